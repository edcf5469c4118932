//! The validator beyond the W3C suite: recursion, flags, ill-formed shapes, and the report
//! in its three forms.

use serde_json::json;
use shacl_mcp_compiler::shacl::{Graph, MemoryGraph, Shapes, Term, validate};

const PREFIXES: &str = "@prefix ex: <http://ex/> .\n@prefix sh: <http://www.w3.org/ns/shacl#> .\n\
                        @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n";

fn graph(text: &str) -> MemoryGraph {
    MemoryGraph::read_turtle(format!("{PREFIXES}{text}").as_bytes(), None).expect("Turtle")
}

/// `(focus, component)` of every result of validating `text` against itself.
fn run(text: &str) -> Vec<(String, String)> {
    let g = graph(text);
    let shapes = Shapes::from_graph(&g).expect("shapes");
    validate(&g, &shapes)
        .results
        .iter()
        .map(|r| (g.show(&r.focus), r.component.name().to_string()))
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

#[test]
fn recursive_shapes_terminate() {
    let mutual = "
        ex:Person a sh:NodeShape ; sh:targetNode ex:a ;
            sh:node ex:Person ;
            sh:property [ sh:path ex:knows ; sh:node ex:Person ; sh:minCount 1 ] .
        ex:a ex:knows ex:b . ex:b ex:knows ex:a .
        ex:Odd a sh:NodeShape ; sh:targetNode ex:c ; sh:not ex:Odd .";
    // A property shape that is its own sh:property, over a cycle in the data.
    let own_property = "
        ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property ex:P .
        ex:P sh:path ex:knows ; sh:property ex:P ; sh:class ex:Person .
        ex:a ex:knows ex:b . ex:b ex:knows ex:a .";
    assert_eq!(
        run(own_property),
        pairs(&[("http://ex/a", "Class"), ("http://ex/b", "Class")])
    );
    // SHACL leaves recursion undefined; what matters is that it ends (here the inner check of
    // ex:Odd for ex:c, reached again, is taken to conform).
    assert_eq!(run(mutual), pairs(&[]));
}

#[test]
fn deactivated_shapes_conform_when_referenced() {
    let text = "
        ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:node ex:Off .
        ex:Off sh:deactivated true ; sh:class ex:Nothing .
        ex:Half sh:deactivated \"1\"^^xsd:boolean ; sh:targetNode ex:a ; sh:class ex:Nothing .";
    // Only the literal true deactivates (as the suite's uniqueLang-002 reads booleans).
    assert_eq!(run(text), pairs(&[("http://ex/a", "Class")]));
}

#[test]
fn pattern_flags() {
    let text = r#"
        ex:S a sh:NodeShape ; sh:targetNode "ABC", "a.c", "abc" ;
            sh:pattern "^a.c$" ; sh:flags "i" .
        ex:Q a sh:NodeShape ; sh:targetNode "ABC", "a.c" ; sh:pattern "a.c" ; sh:flags "q" ."#;
    assert_eq!(run(text), pairs(&[("\"ABC\"", "Pattern")]));
}

#[test]
fn ill_formed_shapes_are_refused_with_every_problem() {
    let g = graph(
        "ex:S sh:targetNode ex:a ; sh:minLength \"x\" ; sh:path [ ex:p ex:q ] ; sh:pattern \"(\" ;
         sh:nodeKind ex:Nope .",
    );
    let errors = Shapes::from_graph(&g).expect_err("ill-formed");
    assert_eq!(errors.len(), 4, "{errors:#?}");
    // An ill-formed shape that nothing uses is no error.
    let g = graph("ex:S sh:targetNode ex:a ; sh:class ex:C . ex:Unused sh:path ( ex:p ) .");
    assert!(Shapes::from_graph(&g).is_ok());
}

fn person_report() -> (MemoryGraph, shacl_mcp_compiler::shacl::Report) {
    let g = graph(
        r#"
        ex:PersonShape a sh:NodeShape ; sh:targetClass ex:Person ;
            sh:closed true ; sh:ignoredProperties ( <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> ) ;
            sh:property [ sh:path ex:age ; sh:datatype xsd:integer ; sh:maxInclusive 150 ] ;
            sh:property [ sh:path ( ex:knows [ sh:inversePath ex:knows ] ) ; sh:minCount 2 ;
                          sh:severity sh:Warning ; sh:message "needs friends"@en ] .
        ex:ann a ex:Person ; ex:age 200 ; ex:nick "A" .
        "#,
    );
    let shapes = Shapes::from_graph(&g).expect("shapes");
    let report = validate(&g, &shapes);
    (g, report)
}

#[test]
fn json_report() {
    let (g, report) = person_report();
    assert_eq!(
        report.to_json(&g),
        json!({
            "conforms": false,
            "result_count": 3,
            "results": [
                { "focus_node": "http://ex/ann", "path": "http://ex/age", "value": "\"200\"^^xsd:integer",
                  "constraint": "sh:MaxInclusiveConstraintComponent", "severity": "sh:Violation",
                  "message": "out of range: must be <= 150", "shape": g.show(&report.results[0].source_shape) },
                { "focus_node": "http://ex/ann", "path": "<http://ex/knows>/^<http://ex/knows>", "value": null,
                  "constraint": "sh:MinCountConstraintComponent", "severity": "sh:Warning",
                  "message": "needs friends", "shape": g.show(&report.results[1].source_shape) },
                { "focus_node": "http://ex/ann", "path": "http://ex/nick", "value": "\"A\"",
                  "constraint": "sh:ClosedConstraintComponent", "severity": "sh:Violation",
                  "message": "<http://ex/nick> is not a property the closed shape allows",
                  "shape": "http://ex/PersonShape" },
            ],
        })
    );
}

#[test]
fn turtle_report_is_the_standard_graph() {
    let (_, report) = person_report();
    let text = report.to_turtle();
    let g = MemoryGraph::read_turtle(text.as_bytes(), None).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let sh = |l: &str| format!("http://www.w3.org/ns/shacl#{l}");
    let reports = g.subjects(
        "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
        &Term::iri(&sh("ValidationReport")),
    );
    assert_eq!(reports.len(), 1);
    assert_eq!(
        g.objects(&reports[0], &sh("conforms")),
        [Term::typed("false", "http://www.w3.org/2001/XMLSchema#boolean")]
    );
    let results = g.objects(&reports[0], &sh("result"));
    assert_eq!(results.len(), 3);
    for r in &results {
        for p in [
            "focusNode",
            "resultSeverity",
            "sourceConstraintComponent",
            "sourceShape",
            "resultMessage",
        ] {
            assert_eq!(g.objects(r, &sh(p)).len(), 1, "{p} in\n{text}");
        }
    }
    // The sequence path is written as a path again.
    let paths: Vec<String> = results
        .iter()
        .flat_map(|r| g.objects(r, &sh("resultPath")))
        .filter_map(|p| shacl_mcp_compiler::shacl::Path::parse(&g, &p).ok())
        .map(|p| p.to_string())
        .collect();
    assert!(
        paths.contains(&"<http://ex/knows>/^<http://ex/knows>".to_string()),
        "{paths:?}"
    );
    // A conforming report.
    let empty = shacl_mcp_compiler::shacl::Report::default().to_turtle();
    assert!(empty.contains("sh:conforms true ."), "{empty}");
    assert!(MemoryGraph::read_turtle(empty.as_bytes(), None).is_ok());
}

#[test]
fn text_report_reads_like_compiler_errors() {
    let (g, report) = person_report();
    let text = report.to_text("people.ttl", g.prefixes());
    assert!(
        text.ends_with(
            "error[sh:ClosedConstraintComponent]: ex:nick is not a property the closed shape allows\n  \
             --> people.ttl: ex:ann ex:nick\n   = value: \"A\"\n   = shape: ex:PersonShape\n\n\
             does not conform: 2 errors, 1 warning\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "warning[sh:MinCountConstraintComponent]: needs friends\n  --> people.ttl: ex:ann ex:knows/^ex:knows\n"
        ),
        "{text}"
    );
    assert!(text.contains(" (an inline shape)\n"), "{text}");
}

mod no_panic {
    use proptest::prelude::*;

    use super::{MemoryGraph, PREFIXES, Shapes, validate};

    const NODES: &[&str] = &["ex:s0", "ex:s1", "ex:s2", "_:b0", "_:b1", "ex:C", "sh:IRI", "rdf:nil"];
    const PREDICATES: &[&str] = &[
        "a",
        "sh:targetNode",
        "sh:targetClass",
        "sh:targetSubjectsOf",
        "sh:targetObjectsOf",
        "sh:path",
        "sh:property",
        "sh:node",
        "sh:not",
        "sh:and",
        "sh:or",
        "sh:xone",
        "sh:class",
        "sh:datatype",
        "sh:nodeKind",
        "sh:minCount",
        "sh:maxCount",
        "sh:minInclusive",
        "sh:maxExclusive",
        "sh:minLength",
        "sh:pattern",
        "sh:flags",
        "sh:languageIn",
        "sh:uniqueLang",
        "sh:equals",
        "sh:disjoint",
        "sh:lessThan",
        "sh:qualifiedValueShape",
        "sh:qualifiedMinCount",
        "sh:qualifiedValueShapesDisjoint",
        "sh:closed",
        "sh:ignoredProperties",
        "sh:hasValue",
        "sh:in",
        "sh:inversePath",
        "sh:zeroOrMorePath",
        "sh:alternativePath",
        "sh:deactivated",
        "sh:severity",
        "rdf:first",
        "rdf:rest",
        "ex:p",
        "rdfs:subClassOf",
    ];
    const OBJECTS: &[&str] = &[
        "ex:s0",
        "ex:s1",
        "ex:s2",
        "_:b0",
        "_:b1",
        "ex:C",
        "ex:p",
        "sh:IRI",
        "sh:NodeShape",
        "rdfs:Class",
        "rdf:nil",
        "xsd:integer",
        "1",
        "-3",
        "\"x\"",
        "\"(\"",
        "\"a\"@en",
        "true",
        "\"2002-10-10\"^^xsd:date",
        "( ex:s0 ex:s1 )",
        "( ex:p [ sh:inversePath ex:p ] )",
        "( )",
        "[ sh:zeroOrMorePath ex:p ]",
    ];

    fn triple() -> impl Strategy<Value = String> {
        (
            prop::sample::select(NODES),
            prop::sample::select(PREDICATES),
            prop::sample::select(OBJECTS),
        )
            .prop_map(|(s, p, o)| format!("{s} {p} {o} ."))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Any graph, used as both shapes and data: reading the shapes and validating end,
        /// without a panic.
        #[test]
        fn any_shapes_graph_validates_or_is_refused(triples in prop::collection::vec(triple(), 1..24)) {
            let text = format!(
                "{PREFIXES}@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n\
                 @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n{}",
                triples.join("\n")
            );
            let g = MemoryGraph::read_turtle(text.as_bytes(), None).expect("generated Turtle parses");
            if let Ok(shapes) = Shapes::from_graph(&g) {
                let report = validate(&g, &shapes);
                let _ = (report.to_turtle(), report.to_json(&g), report.to_text("x", g.prefixes()));
            }
        }
    }
}
