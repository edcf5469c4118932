//! `call --data FILE.ttl`: a Turtle file's triples as links of a new perspective, stored through
//! the engine (`add_perspective`, then `execute_commands` in one transaction).
//!
//! Each triple is one link, source and predicate as written. An object becomes the target a
//! write would have stored for its value (docs/data-model.md, Links and values; the inverse of
//! [`crate::engine::values::decode`]): an IRI as written; a literal by its datatype as the
//! model reads datatypes, so `"3"^^xsd:integer` is `literal:number:3`, `true` is
//! `literal:boolean:true`, `2.50` is `literal:number:2.5`, `"Hallo"@de` is
//! `literal:lang:de:Hallo`, and text and dates are `literal:string:…`. A literal that is
//! not a valid value of its datatype is kept as text. A blank node `_:b` is spelled `_:b`, as the tools spell blank nodes.

use serde_json::{Number, Value, json};
use shacl_mcp_compiler::literal;
use shacl_mcp_compiler::model::ValueType;
use shacl_mcp_compiler::shacl::{Literal, MemoryGraph, Term};

use crate::engine::Engine;

/// One link per triple, in the graph's order: `(source, predicate, target)`.
pub fn links(graph: &MemoryGraph) -> Vec<(String, String, String)> {
    graph.triples().map(|(s, p, o)| (node(s), node(p), target(o))).collect()
}

/// A new perspective named `name` holding `links`; its uuid.
pub fn seed(engine: &Engine, name: &str, links: &[(String, String, String)]) -> Result<String, String> {
    let added = engine.add_perspective(name).map_err(|e| e.to_string())?;
    let uuid = added["uuid"].as_str().unwrap_or_default().to_string();
    if links.is_empty() {
        return Ok(uuid);
    }
    // Sources are IRIs, never `this`, and every target holds a `:`, so execute_commands
    // stores each link exactly as given.
    let commands: Vec<Value> = links
        .iter()
        .map(|(source, predicate, target)| {
            json!({ "action": "addLink", "source": source, "predicate": predicate, "target": target })
        })
        .collect();
    engine
        .execute_commands(&uuid, "", &commands, None)
        .map_err(|e| format!("cannot store the data: {e}"))?;
    Ok(uuid)
}

/// A subject, predicate or object that is not a literal.
fn node(term: &Term) -> String {
    match term {
        Term::Iri(iri) => iri.to_string(),
        Term::Blank(label) => format!("_:{label}"),
        Term::Literal(l) => literal::string(&l.lexical),
    }
}

fn target(term: &Term) -> String {
    match term {
        Term::Literal(l) => literal_target(l),
        other => node(other),
    }
}

/// The target a write stores for the literal's value (see the module's documentation).
fn literal_target(l: &Literal) -> String {
    let value_type = shacl_mcp_compiler::check::datatype(&l.datatype).map(|(_, t)| t);
    let lexical = l.lexical.trim();
    let typed = match value_type {
        Some(ValueType::Boolean) => match lexical {
            "true" | "1" => Some(literal::boolean(true)),
            "false" | "0" => Some(literal::boolean(false)),
            _ => None,
        },
        Some(ValueType::Integer(_)) => lexical.parse::<i64>().ok().map(|i| literal::number(&i.into())),
        Some(ValueType::Number) => lexical
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(|n| literal::number(&n)),
        Some(ValueType::LangString) => l
            .language
            .as_deref()
            .filter(|tag| literal::is_language_tag(tag))
            .map(|tag| literal::lang_string(&l.lexical, tag)),
        Some(ValueType::String | ValueType::DateTime(_) | ValueType::Reference | ValueType::AnyOf) | None => None,
    };
    typed.unwrap_or_else(|| literal::string(&l.lexical))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::values::{Decoded, decode};

    fn targets(turtle: &str) -> Vec<String> {
        let graph = MemoryGraph::read_turtle(turtle.as_bytes(), None).expect("turtle");
        links(&graph).into_iter().map(|(_, _, t)| t).collect()
    }

    #[test]
    fn literals_become_the_targets_a_write_stores() {
        let found = targets(
            r#"@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
            <app://a> <app://p1> "open" ; <app://p2> 3 ; <app://p3> 2.50 ; <app://p4> true ;
              <app://p5> "0"^^xsd:boolean ; <app://p6> "x y"@en ; <app://p7> "2024-01-02T03:04:05Z"^^xsd:dateTime ;
              <app://p8> "many"^^xsd:integer ; <app://p9> <app://b> ; <app://p10> _:n ; <app://p11> "4"^^xsd:byte ."#,
        );
        assert_eq!(
            found,
            [
                "literal:string:open",
                "literal:number:3",
                "literal:number:2.5",
                "literal:boolean:true",
                "literal:boolean:false",
                "literal:lang:en:x%20y",
                "literal:string:2024-01-02T03%3A04%3A05Z",
                "literal:string:many",
                "app://b",
                "_:n",
                "literal:number:4",
            ]
        );
        // And they read back as the values written.
        assert_eq!(decode(&found[2]), Decoded::Number(Number::from_f64(2.5).unwrap()));
        assert_eq!(
            decode(&found[5]),
            Decoded::LangString {
                text: "x y".into(),
                language: "en".into()
            }
        );
    }
}
