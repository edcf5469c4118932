//! sparql_query: read-only SPARQL over a perspective.

use serde_json::json;

use super::fragments::{closed_object, count, described, free_object, perspective_id, string, tool, typed};
use crate::surface::{ToolAnnotations, ToolSpec};

pub(super) fn sparql_query() -> ToolSpec {
    tool(
        "sparql_query",
        "SPARQL query",
        ToolAnnotations::READ,
        concat!(
            "Ask a perspective a read-only SPARQL 1.1 question instance_query cannot: joins across classes, ",
            "paths, OPTIONAL, FILTER, aggregates, ORDER BY. The perspective's links are the default graph: an ",
            "instance is its IRI with its class's marker link (AD4M DNAs: <rdf://type> <class IRI>), a property ",
            "its path IRI (describe_perspective lists them), a value a typed literal or an IRI. SELECT and ASK answer in the W3C SPARQL JSON results format; CONSTRUCT and ",
            "DESCRIBE answer N-Triples text. At most limit rows (truncated says when there were more). Updates, ",
            "SERVICE, FROM and GRAPH <iri> are refused.\n",
            r#"Example: sparql_query({"perspective_id": "<P>", "query": "SELECT ?t WHERE { ?t <todo://status> "#,
            r#"\"open\" }"}) → {"head": {"vars": ["t"]}, "results": {"bindings": [{"t": {"type": "uri", "#,
            r#""value": "<T>"}}]}, "truncated": false}"#,
        ),
        closed_object(
            json!({
                "perspective_id": perspective_id(),
                "query": string("A SPARQL 1.1 query: SELECT, ASK, CONSTRUCT or DESCRIBE."),
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 10_000,
                    "default": 1_000,
                    "description": "Most rows (or triples) to return.",
                },
                "timeout_ms": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 30_000,
                    "default": 5_000,
                    "description": "Give up after this many milliseconds.",
                },
            }),
            &["perspective_id", "query"],
        ),
        closed_object(
            json!({
                "head": free_object("SELECT: { vars: [names] }; ASK: {}."),
                "results": free_object("SELECT: { bindings: [{ var: { type: uri|literal|bnode, value, datatype?, xml:lang? } }] }."),
                "boolean": described("ASK: the answer.", typed("boolean")),
                "format": described("CONSTRUCT and DESCRIBE: application/n-triples.", typed("string")),
                "triple_count": count(),
                "ntriples": described("CONSTRUCT and DESCRIBE: the triples, one a line.", typed("string")),
                "truncated": described("true when there were more rows than limit.", typed("boolean")),
            }),
            &[],
        ),
    )
}
