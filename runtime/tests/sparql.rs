//! sparql_query through the engine (on SQLite, and on PostgreSQL when SHACL_MCP_TEST_POSTGRES is
//! set): values typed as the SHACL report types them, joins and paths, the answer formats, and
//! every refusal. The comparison with rdflib over many queries is tests/python/test_sparql.py.

mod common;

use common::*;
use serde_json::{Value, json};

const TYPE: &str = "rdf://type";

fn query(s: &Setup, p: &str, text: &str) -> Value {
    s.engine
        .sparql_query(p, text, None, None)
        .unwrap_or_else(|e| panic!("{text}: {:?}", e.to_json()))
}

/// The values of `var` in every row, as `type:value` (literals with their datatype).
fn column(answer: &Value, var: &str) -> Vec<String> {
    answer["results"]["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            let b = &row[var];
            match b["datatype"].as_str() {
                Some(dt) => format!("{}:{}^^{dt}", b["type"].as_str().unwrap(), b["value"].as_str().unwrap()),
                None => format!(
                    "{}:{}",
                    b["type"].as_str().unwrap_or("unbound"),
                    b["value"].as_str().unwrap_or("")
                ),
            }
        })
        .collect()
}

/// Two lists, three tasks (one in each list, one in none), values of every kind.
fn seeded() -> (Setup, String, Vec<String>, Vec<String>) {
    let s = setup(&["tasks.json"]);
    let p = s.perspective("Team");
    let tasks = vec![
        s.created(&p, "Task", json!({ "title": "Write docs", "status": "open", "priority": 2, "estimateHours": 1.5, "dueDate": "2026-12-30T09:00:00Z", "tags": ["docs", "easy"] })),
        s.created(&p, "Task", json!({ "title": "Ship it", "status": "done", "priority": 5 })),
        s.created(&p, "Task", json!({ "title": "Plan", "status": "open", "priority": 3 })),
    ];
    let lists = vec![
        s.created(&p, "TodoList", json!({ "name": "Now", "items": [tasks[0].clone()] })),
        s.created(&p, "TodoList", json!({ "name": "Later", "items": [tasks[1].clone()] })),
    ];
    (s, p, tasks, lists)
}

#[test]
fn values_are_typed_literals_and_iris() {
    let (s, p, tasks, _) = seeded();
    let answer = query(
        &s,
        &p,
        &format!(
            "SELECT ?title ?priority ?estimate ?due WHERE {{ <{}> <todo://title> ?title ; <todo://priority> ?priority ; <todo://estimate> ?estimate ; <todo://due> ?due }}",
            tasks[0]
        ),
    );
    let row = &answer["results"]["bindings"][0];
    assert_eq!(row["title"], json!({ "type": "literal", "value": "Write docs" }));
    assert_eq!(row["priority"]["datatype"], "http://www.w3.org/2001/XMLSchema#integer");
    assert_eq!(row["estimate"]["datatype"], "http://www.w3.org/2001/XMLSchema#decimal");
    assert_eq!(row["due"]["datatype"], "http://www.w3.org/2001/XMLSchema#dateTime");
    assert_eq!(answer["head"]["vars"], json!(["title", "priority", "estimate", "due"]));
    assert_eq!(answer["truncated"], false);
}

#[test]
fn joins_filters_paths_and_aggregates() {
    let (s, p, tasks, lists) = seeded();
    // A join across classes: the titles of the tasks in the list named "Now".
    let titles = query(
        &s,
        &p,
        "SELECT ?title WHERE { ?l <todo://list_name> \"Now\" ; <todo://item> ?t . ?t <todo://title> ?title }",
    );
    assert_eq!(column(&titles, "title"), ["literal:Write docs"]);
    // A numeric filter and an order.
    let high = query(
        &s,
        &p,
        "SELECT ?t WHERE { ?t <todo://priority> ?n FILTER(?n >= 3) } ORDER BY DESC(?n)",
    );
    assert_eq!(
        column(&high, "t"),
        [format!("uri:{}", tasks[1]), format!("uri:{}", tasks[2])]
    );
    // A sequence path, and OPTIONAL leaving a variable unbound.
    let path = query(
        &s,
        &p,
        &format!(
            "SELECT ?title WHERE {{ <{}> <todo://item>/<todo://title> ?title }}",
            lists[1]
        ),
    );
    assert_eq!(column(&path, "title"), ["literal:Ship it"]);
    let optional = query(
        &s,
        &p,
        "SELECT ?t ?l WHERE { ?t <rdf://type> <todo://Task> OPTIONAL { ?l <todo://item> ?t } } ORDER BY ?t",
    );
    assert_eq!(optional["results"]["bindings"].as_array().unwrap().len(), 3);
    assert!(column(&optional, "l").contains(&"unbound:".to_string()));
    // Aggregates: open tasks per status.
    let counts = query(
        &s,
        &p,
        "SELECT ?status (COUNT(?t) AS ?n) WHERE { ?t <todo://status> ?status } GROUP BY ?status ORDER BY ?status",
    );
    assert_eq!(column(&counts, "status"), ["literal:done", "literal:open"]);
    assert_eq!(
        column(&counts, "n"),
        [
            "literal:1^^http://www.w3.org/2001/XMLSchema#integer",
            "literal:2^^http://www.w3.org/2001/XMLSchema#integer"
        ]
    );
    // A subquery joined on its aggregate: only the tasks of the highest priority.
    let top = query(
        &s,
        &p,
        "SELECT ?t WHERE { ?t <todo://priority> ?p { SELECT (MAX(?q) AS ?p) WHERE { ?x <todo://priority> ?q } } }",
    );
    assert_eq!(column(&top, "t"), [format!("uri:{}", tasks[1])]);
    // AD4M DNAs mark instances with <rdf://type>, not rdf:type: `a` finds none of them.
    let marked = query(&s, &p, &format!("SELECT ?t WHERE {{ ?t <{TYPE}> <todo://Task> }}"));
    assert_eq!(marked["results"]["bindings"].as_array().unwrap().len(), 3);
    let typed = query(&s, &p, "ASK { ?t a <todo://Task> }");
    assert_eq!(typed["boolean"], false);
}

#[test]
fn ask_construct_and_the_row_limit() {
    let (s, p, tasks, _) = seeded();
    let ask = query(&s, &p, "ASK { ?t <todo://status> \"done\" }");
    assert_eq!(ask, json!({ "head": {}, "boolean": true }));
    let built = query(
        &s,
        &p,
        &format!(
            "CONSTRUCT {{ ?t <urn:x:named> ?title }} WHERE {{ ?t <todo://title> ?title FILTER(?t = <{}>) }}",
            tasks[0]
        ),
    );
    assert_eq!(built["triple_count"], 1);
    assert_eq!(
        built["ntriples"],
        format!("<{}> <urn:x:named> \"Write docs\" .\n", tasks[0])
    );
    let limited = s
        .engine
        .sparql_query(&p, "SELECT ?s ?o WHERE { ?s <todo://title> ?o }", Some(2), None)
        .unwrap();
    assert_eq!(limited["results"]["bindings"].as_array().unwrap().len(), 2);
    assert_eq!(limited["truncated"], true);
}

#[test]
fn refusals_name_what_is_wrong() {
    let (s, p, _, _) = seeded();
    let refused = |text: &str| error_json(s.engine.sparql_query(&p, text, None, None)).to_string();
    assert!(refused("INSERT DATA { <a:b> <c:d> <e:f> }").contains("updates are refused"));
    assert!(refused("SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }").contains("SERVICE"));
    assert!(refused("SELECT * FROM <urn:x:other> WHERE { ?s ?p ?o }").contains("FROM"));
    assert!(refused("SELECT * WHERE { GRAPH <urn:x:g> { ?s ?p ?o } }").contains("GRAPH"));
    assert!(
        refused("SELECT * WHERE { FILTER NOT EXISTS { SERVICE <http://x.org/> { ?s ?p ?o } } }").contains("SERVICE"),
        "inside EXISTS too"
    );
    let syntax = refused("SELECT ?s WHERE {\n  ?s ?p \n}");
    assert!(syntax.contains("syntax error at 3:"), "line and column: {syntax}");
    for (limit, timeout) in [
        (Some(0), None),
        (Some(10_001), None),
        (None, Some(0)),
        (None, Some(30_001)),
    ] {
        let e = error_json(s.engine.sparql_query(&p, "ASK {}", limit, timeout));
        assert!(e.to_string().contains("out of range"), "{e}");
    }
    let missing = error_json(s.engine.sparql_query("nope", "ASK {}", None, None));
    assert!(
        missing.to_string().contains("Perspective 'nope' not found"),
        "{missing}"
    );
    // GRAPH ?g matches nothing: the perspective has no named graphs.
    let graphs = query(&s, &p, "SELECT * WHERE { GRAPH ?g { ?s ?p ?o } }");
    assert_eq!(graphs["results"]["bindings"], json!([]));
}

#[test]
fn a_query_past_its_time_is_cancelled() {
    let (s, p, _, _) = seeded();
    // Every triple against every triple, four times over: far more than a millisecond of work.
    let text = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }";
    let e = error_json(s.engine.sparql_query(&p, text, None, Some(1)));
    assert!(e.to_string().contains("did not finish within 1 ms"), "{e}");
}

/// A value written through add_link in a foreign spelling reads as the write would have
/// taken it, the same view as validate_perspective's.
#[test]
fn foreign_spellings_read_as_their_value() {
    let (s, p, tasks, _) = seeded();
    s.engine
        .add_link(&p, &tasks[2], "todo://estimate", "literal:4.5^^xsd:decimal", false)
        .expect("add_link");
    let answer = query(
        &s,
        &p,
        &format!("SELECT ?e WHERE {{ <{}> <todo://estimate> ?e }}", tasks[2]),
    );
    assert_eq!(
        column(&answer, "e"),
        ["literal:4.5^^http://www.w3.org/2001/XMLSchema#decimal"]
    );
}
