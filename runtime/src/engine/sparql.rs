//! sparql_query: read-only SPARQL 1.1 over one perspective (docs/sparql.md).
//!
//! The perspective's links are the default graph, their targets typed as the SHACL report reads
//! them ([`LinkTyper`]: one graph view, not two). oxigraph's evaluator (spareval) asks
//! [`LinkDataset`] for the triples of each pattern, and each ask is a lookup in the store's
//! indexes (by source, predicate or IRI target) inside one read transaction: nothing copies the
//! perspective. Updates, `SERVICE`, `FROM`/`FROM NAMED` and `GRAPH <iri>` are refused before
//! evaluation; there are no named graphs, so `GRAPH ?g` matches nothing.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::time::Duration;

use oxrdf::{BlankNode, Literal, NamedNode, Term as RdfTerm};
use serde_json::{Map, Value, json};
use shacl_mcp_compiler::shacl::Term;
use spareval::{CancellationToken, InternalQuad, QueryEvaluator, QueryResults, QueryableDataset};
use spargebra::algebra::{Expression, GraphPattern};
use spargebra::term::NamedNodePattern;
use spargebra::{Query, SparqlParser};

use super::Engine;
use super::error::{Problem, ToolError};
use super::graph::LinkTyper;
use crate::store::{LinkPattern, ReadTx};

pub const DEFAULT_LIMIT: u64 = 1_000;
pub const MAX_LIMIT: u64 = 10_000;
pub const DEFAULT_TIMEOUT_MS: u64 = 5_000;
pub const MAX_TIMEOUT_MS: u64 = 30_000;

impl Engine {
    /// `sparql_query`: SELECT and ASK in the W3C SPARQL 1.1 Query Results JSON Format (plus
    /// `truncated`), CONSTRUCT and DESCRIBE as N-Triples text.
    pub fn sparql_query(
        &self,
        perspective: &str,
        query: &str,
        limit: Option<u64>,
        timeout_ms: Option<u64>,
    ) -> Result<Value, ToolError> {
        let limit = bounded("limit", limit, DEFAULT_LIMIT, MAX_LIMIT)?;
        let timeout = Duration::from_millis(bounded("timeout_ms", timeout_ms, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS)?);
        let parsed = parse(query)?;
        let tx = self.store.read()?;
        self.require_perspective(&*tx, perspective)?;
        let classes = self.classes(&*tx, perspective)?;
        let typer = LinkTyper::new(&classes);
        let dataset = LinkDataset {
            tx: &*tx,
            perspective,
            typer: &typer,
            markers: RefCell::default(),
        };
        let cancel = CancellationToken::new();
        let answer = std::thread::scope(|scope| {
            let (done, finished) = std::sync::mpsc::channel::<()>();
            let watchdog = cancel.clone();
            scope.spawn(move || {
                if finished.recv_timeout(timeout).is_err() {
                    watchdog.cancel();
                }
            });
            let evaluator = QueryEvaluator::new().with_cancellation_token(cancel.clone());
            let answer = evaluator
                .prepare(&parsed)
                .execute(dataset)
                .map_err(|e| evaluation_error(&e))
                .and_then(|results| collect(results, limit));
            let _ = done.send(());
            answer
        });
        answer.map_err(|e| match e {
            Failure::Cancelled => ToolError::refused(
                format!("The query did not finish within {} ms", timeout.as_millis()),
                "Narrow it (bind a subject or a class, add a LIMIT), or raise timeout_ms (at most 30000).",
            ),
            Failure::Refused(e) => e,
        })
    }
}

/// Why an evaluation stopped.
enum Failure {
    Cancelled,
    Refused(ToolError),
}

fn evaluation_error(e: &spareval::QueryEvaluationError) -> Failure {
    match e {
        spareval::QueryEvaluationError::Cancelled => Failure::Cancelled,
        other => Failure::Refused(ToolError::refused(
            format!("The query could not be evaluated: {other}"),
            "Check the functions and types it uses; get_documentation(topic: \"sparql\") lists what is served.",
        )),
    }
}

fn bounded(key: &str, value: Option<u64>, default: u64, max: u64) -> Result<u64, ToolError> {
    let value = value.unwrap_or(default);
    if (1..=max).contains(&value) {
        return Ok(value);
    }
    let problem = Problem::new(key, format!("out of range: must be between 1 and {max}")).received(&json!(value));
    Err(ToolError::invalid_arguments("sparql_query", vec![problem]))
}

/// The query, or the refusal: a syntax error with its line and column, an update, or a part
/// that would read outside the perspective.
fn parse(text: &str) -> Result<Query, ToolError> {
    let query = match SparqlParser::new().parse_query(text) {
        Ok(query) => query,
        Err(_) if SparqlParser::new().parse_update(text).is_ok() => {
            return Err(ToolError::refused(
                "SPARQL updates are refused: sparql_query only reads",
                "Write through the tools (instance_create, instance_update, add_link, ...), which validate every write.",
            ));
        }
        // peg's message starts with the position: "error at 3:14: expected ...".
        Err(e) => {
            let problem = Problem::new("query", format!("SPARQL syntax {e}"));
            return Err(ToolError::invalid_arguments("sparql_query", vec![problem]));
        }
    };
    let (dataset, pattern) = match &query {
        Query::Select { dataset, pattern, .. }
        | Query::Construct { dataset, pattern, .. }
        | Query::Describe { dataset, pattern, .. }
        | Query::Ask { dataset, pattern, .. } => (dataset, pattern),
    };
    if dataset.is_some() {
        return Err(outside("FROM and FROM NAMED"));
    }
    if let Some(what) = reaches_outside(pattern) {
        return Err(outside(what));
    }
    Ok(query)
}

fn outside(what: &str) -> ToolError {
    ToolError::refused(
        format!("{what} are refused: a query reads the perspective it is given, its default graph"),
        "Remove them: the perspective's links are the default graph; it has no named graphs.",
    )
}

/// `SERVICE` anywhere, or `GRAPH` naming an IRI, in the pattern or in an `EXISTS` of it.
fn reaches_outside(pattern: &GraphPattern) -> Option<&'static str> {
    use GraphPattern as P;
    match pattern {
        P::Service { .. } => Some("SERVICE clauses"),
        P::Graph {
            name: NamedNodePattern::NamedNode(_),
            ..
        } => Some("GRAPH clauses naming a graph"),
        P::Graph { inner, .. }
        | P::Distinct { inner }
        | P::Reduced { inner }
        | P::Slice { inner, .. }
        | P::Project { inner, .. }
        | P::Group { inner, .. } => reaches_outside(inner),
        P::Join { left, right } | P::Union { left, right } | P::Minus { left, right } => {
            reaches_outside(left).or_else(|| reaches_outside(right))
        }
        P::LeftJoin {
            left,
            right,
            expression,
        } => reaches_outside(left)
            .or_else(|| reaches_outside(right))
            .or_else(|| expression.as_ref().and_then(expression_reaches_outside)),
        P::Filter { expr, inner }
        | P::Extend {
            inner,
            expression: expr,
            ..
        } => expression_reaches_outside(expr).or_else(|| reaches_outside(inner)),
        P::OrderBy { inner, expression } => reaches_outside(inner).or_else(|| {
            expression.iter().find_map(|o| match o {
                spargebra::algebra::OrderExpression::Asc(e) | spargebra::algebra::OrderExpression::Desc(e) => {
                    expression_reaches_outside(e)
                }
            })
        }),
        _ => None,
    }
}

fn expression_reaches_outside(expression: &Expression) -> Option<&'static str> {
    use Expression as E;
    match expression {
        E::Exists(pattern) => reaches_outside(pattern),
        E::Or(a, b)
        | E::And(a, b)
        | E::Equal(a, b)
        | E::SameTerm(a, b)
        | E::Greater(a, b)
        | E::GreaterOrEqual(a, b)
        | E::Less(a, b)
        | E::LessOrEqual(a, b)
        | E::Add(a, b)
        | E::Subtract(a, b)
        | E::Multiply(a, b)
        | E::Divide(a, b) => expression_reaches_outside(a).or_else(|| expression_reaches_outside(b)),
        E::UnaryPlus(a) | E::UnaryMinus(a) | E::Not(a) => expression_reaches_outside(a),
        E::If(a, b, c) => expression_reaches_outside(a)
            .or_else(|| expression_reaches_outside(b))
            .or_else(|| expression_reaches_outside(c)),
        E::In(a, list) => expression_reaches_outside(a).or_else(|| list.iter().find_map(expression_reaches_outside)),
        E::Coalesce(list) | E::FunctionCall(_, list) => list.iter().find_map(expression_reaches_outside),
        _ => None,
    }
}

/// The results as the tool answers them, at most `limit` rows (or triples).
fn collect(results: QueryResults<'_>, limit: u64) -> Result<Value, Failure> {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    match results {
        QueryResults::Boolean(answer) => Ok(json!({ "head": {}, "boolean": answer })),
        QueryResults::Solutions(solutions) => {
            let vars: Vec<String> = solutions.variables().iter().map(|v| v.as_str().to_string()).collect();
            let mut bindings = Vec::new();
            let mut truncated = false;
            for solution in solutions {
                let solution = solution.map_err(|e| evaluation_error(&e))?;
                if bindings.len() == limit {
                    truncated = true;
                    break;
                }
                let row: Map<String, Value> = solution
                    .iter()
                    .map(|(var, term)| (var.as_str().to_string(), binding(term)))
                    .collect();
                bindings.push(Value::Object(row));
            }
            Ok(json!({ "head": { "vars": vars }, "results": { "bindings": bindings }, "truncated": truncated }))
        }
        QueryResults::Graph(triples) => {
            let mut text = String::new();
            let mut count = 0;
            let mut truncated = false;
            for triple in triples {
                let triple = triple.map_err(|e| evaluation_error(&e))?;
                if count == limit {
                    truncated = true;
                    break;
                }
                text.push_str(&format!("{triple} .\n"));
                count += 1;
            }
            Ok(
                json!({ "format": "application/n-triples", "triple_count": count, "ntriples": text, "truncated": truncated }),
            )
        }
    }
}

/// One term in the SPARQL 1.1 Query Results JSON Format.
fn binding(term: &RdfTerm) -> Value {
    match term {
        RdfTerm::NamedNode(n) => json!({ "type": "uri", "value": n.as_str() }),
        RdfTerm::BlankNode(b) => json!({ "type": "bnode", "value": b.as_str() }),
        RdfTerm::Literal(l) => {
            let mut o = Map::new();
            o.insert("type".into(), "literal".into());
            o.insert("value".into(), l.value().into());
            if let Some(language) = l.language() {
                o.insert("xml:lang".into(), language.into());
            } else if l.datatype().as_str() != "http://www.w3.org/2001/XMLSchema#string" {
                o.insert("datatype".into(), l.datatype().as_str().into());
            }
            Value::Object(o)
        }
        #[allow(unreachable_patterns)]
        other => json!({ "type": "literal", "value": other.to_string() }),
    }
}

/// A perspective's links as spareval's dataset: each pattern one indexed store read.
struct LinkDataset<'a> {
    tx: &'a dyn ReadTx,
    perspective: &'a str,
    typer: &'a LinkTyper<'a>,
    /// The marker links of each subject whose links needed them, read once per query.
    markers: RefCell<HashMap<String, HashSet<(String, String)>>>,
}

#[derive(Debug)]
struct DatasetError(String);

impl fmt::Display for DatasetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DatasetError {}

impl LinkDataset<'_> {
    /// The triples matching the pattern, typed; `object` is compared after typing (an IRI is
    /// also looked up by target, the one spelling an IRI has).
    fn triples(
        &self,
        s: Option<&RdfTerm>,
        p: Option<&RdfTerm>,
        o: Option<&RdfTerm>,
    ) -> Result<Vec<InternalQuad<RdfTerm>>, DatasetError> {
        // A blank node is the link spelling `_:label` (docs/data-model.md).
        let blank = |b: &oxrdf::BlankNode| format!("_:{}", b.as_str());
        let source_text = match s {
            None => None,
            Some(RdfTerm::NamedNode(n)) => Some(n.as_str().to_string()),
            Some(RdfTerm::BlankNode(b)) => Some(blank(b)),
            Some(_) => return Ok(Vec::new()),
        };
        let source = source_text.as_deref();
        let predicate = match p {
            None => None,
            Some(RdfTerm::NamedNode(n)) => Some(n.as_str()),
            Some(_) => return Ok(Vec::new()),
        };
        let target_text = match o {
            Some(RdfTerm::NamedNode(n)) => Some(n.as_str().to_string()),
            Some(RdfTerm::BlankNode(b)) => Some(blank(b)),
            _ => None,
        };
        let target = target_text.as_deref();
        let pattern = LinkPattern {
            source,
            predicate,
            target,
        };
        let links = self
            .tx
            .links(self.perspective, pattern, None, 0)
            .map_err(|e| DatasetError(e.to_string()))?;
        let mut quads = Vec::with_capacity(links.len());
        for link in links {
            let object = self.object(&link.source, &link.predicate, &link.target)?;
            if o.is_some_and(|wanted| *wanted != object) {
                continue;
            }
            quads.push(InternalQuad {
                subject: rdf_term(Term::node(&link.source)),
                predicate: RdfTerm::NamedNode(NamedNode::new_unchecked(link.predicate)),
                object,
                graph_name: None,
            });
        }
        Ok(quads)
    }

    fn object(&self, source: &str, predicate: &str, target: &str) -> Result<RdfTerm, DatasetError> {
        if !self.typer.needs_subject(predicate) {
            return Ok(rdf_term(self.typer.object(predicate, target, None)));
        }
        let mut cache = self.markers.borrow_mut();
        if !cache.contains_key(source) {
            let out = LinkPattern {
                source: Some(source),
                ..LinkPattern::default()
            };
            let links = self
                .tx
                .links(self.perspective, out, None, 0)
                .map_err(|e| DatasetError(e.to_string()))?;
            let marks = links
                .into_iter()
                .filter(|l| self.typer.is_marker(&l.predicate, &l.target))
                .map(|l| (l.predicate, l.target))
                .collect();
            cache.insert(source.to_string(), marks);
        }
        let marks: HashSet<(&str, &str)> = cache[source].iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
        Ok(rdf_term(self.typer.object(predicate, target, Some(&marks))))
    }
}

impl<'a> QueryableDataset<'a> for LinkDataset<'a> {
    type InternalTerm = RdfTerm;
    type Error = DatasetError;

    fn internal_quads_for_pattern(
        &self,
        subject: Option<&RdfTerm>,
        predicate: Option<&RdfTerm>,
        object: Option<&RdfTerm>,
        graph_name: Option<Option<&RdfTerm>>,
    ) -> impl Iterator<Item = Result<InternalQuad<RdfTerm>, DatasetError>> + use<'a> {
        // Only the default graph: no named graph has any triple.
        let found = match graph_name {
            Some(None) => self.triples(subject, predicate, object),
            _ => Ok(Vec::new()),
        };
        let (quads, error) = match found {
            Ok(quads) => (quads, None),
            Err(e) => (Vec::new(), Some(e)),
        };
        error.map(Err).into_iter().chain(quads.into_iter().map(Ok))
    }

    fn internalize_term(&self, term: RdfTerm) -> Result<RdfTerm, DatasetError> {
        Ok(term)
    }

    fn externalize_term(&self, term: RdfTerm) -> Result<RdfTerm, DatasetError> {
        Ok(term)
    }
}

/// The validator's term as oxrdf's.
fn rdf_term(term: Term) -> RdfTerm {
    match term {
        Term::Iri(iri) => NamedNode::new_unchecked(iri.to_string()).into(),
        Term::Blank(label) => BlankNode::new_unchecked(label.to_string()).into(),
        Term::Literal(l) => match &l.language {
            Some(language) => {
                Literal::new_language_tagged_literal_unchecked(l.lexical.clone(), language.clone()).into()
            }
            None => Literal::new_typed_literal(l.lexical.clone(), NamedNode::new_unchecked(l.datatype.clone())).into(),
        },
    }
}
