//! Tests of the Turtle front end.

use serde_json::json;

use super::parse_turtle;
use crate::diagnostic::{Diagnostics, Severity};
use crate::model::RDF_TYPE;
use crate::shape::{ClassShape, InValue, PropertyShape, ShapeDocument, SourceFormat};

const CHAT_TTL: &str = include_str!("../../../../dna/chat.ttl");

const PREFIXES: &str = "@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix dash: <http://datashapes.org/dash#> .
@prefix ex: <http://example.org/> .
";

fn parse_ok(body: &str) -> (ShapeDocument, Diagnostics) {
    let text = format!("{PREFIXES}{body}");
    let (doc, diagnostics) = parse_turtle(&text);
    match doc {
        Some(doc) => (doc, diagnostics),
        None => panic!("expected a document, got:\n{diagnostics}"),
    }
}

fn names(class: &ClassShape) -> Vec<String> {
    class
        .properties
        .iter()
        .map(|p| p.name.clone().unwrap_or_else(|| p.path.clone().unwrap_or_default()))
        .collect()
}

fn codes(diagnostics: &Diagnostics) -> Vec<&'static str> {
    diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn chat_ttl_gives_channel_then_message() {
    let (doc, diagnostics) = parse_turtle(CHAT_TTL);
    assert!(diagnostics.0.is_empty(), "{diagnostics}");
    let doc = doc.expect("chat.ttl parses");
    assert_eq!(doc.format, SourceFormat::Turtle);
    assert_eq!(doc.name, None);
    assert_eq!(doc.description, None);
    assert!(doc.flows.is_empty());
    assert_eq!(doc.classes.len(), 2);

    let channel = &doc.classes[0];
    assert_eq!(channel.target_class.as_deref(), Some("app://Channel"));
    assert_eq!(channel.node_shape_uri.as_deref(), Some("app://ChannelShape"));
    assert_eq!(
        channel.interpretation_hint.as_deref(),
        Some("A named place where members post messages.")
    );
    assert_eq!(channel.origin.shape.as_deref(), Some("app://ChannelShape"));
    assert_eq!(channel.origin.line, Some(9));
    assert!(channel.parent_shapes.is_empty());
    assert_eq!(channel.destructor, None);
    let constructor = channel.constructor.as_ref().expect("a constructor");
    assert_eq!(constructor.len(), 1);
    assert_eq!(constructor[0].action, "addLink");
    assert_eq!(constructor[0].source, "this");
    assert_eq!(constructor[0].predicate, RDF_TYPE);
    assert_eq!(constructor[0].target, "app://Channel");
    assert_eq!(constructor[0].local, None);
    assert_eq!(
        names(channel),
        ["name", "description", "isPinned", "members", "messages"]
    );

    let name = &channel.properties[0];
    assert_eq!(name.path.as_deref(), Some("app://has_name"));
    assert_eq!(
        name.interpretation_hint.as_deref(),
        Some("Human-readable channel name.")
    );
    assert_eq!(
        name.datatype.as_ref().map(|d| d.value.as_str()),
        Some("http://www.w3.org/2001/XMLSchema#string")
    );
    assert_eq!((name.min_count, name.max_count), (Some(1), Some(1)));
    assert_eq!(name.writable, Some(true));
    assert_eq!(name.collection, None);
    assert_eq!((&name.setter, &name.adder, &name.remover), (&None, &None, &None));
    assert_eq!(name.origin.shape.as_deref(), Some("app://ChannelShape"));
    assert_eq!(name.origin.path.as_deref(), Some("app://has_name"));
    assert_eq!(name.origin.line, Some(14));

    let description = &channel.properties[1];
    assert_eq!(description.path.as_deref(), Some("app://has_description"));
    assert_eq!((description.min_count, description.max_count), (None, Some(1)));
    assert_eq!(description.interpretation_hint, None);

    let pinned = &channel.properties[2];
    assert_eq!(
        pinned.datatype.as_ref().map(|d| d.value.as_str()),
        Some("http://www.w3.org/2001/XMLSchema#boolean")
    );

    let members = &channel.properties[3];
    assert_eq!(members.path.as_deref(), Some("app://has_member"));
    assert_eq!(
        members.node_kind.as_ref().map(|d| d.value.as_str()),
        Some("http://www.w3.org/ns/shacl#IRI")
    );
    assert_eq!(members.datatype, None);
    assert_eq!((members.min_count, members.max_count), (None, None));

    let messages = &channel.properties[4];
    assert_eq!(messages.class.as_ref().map(|c| c.value.as_str()), Some("app://Message"));
    assert_eq!(messages.writable, Some(true));

    let message = &doc.classes[1];
    assert_eq!(message.target_class.as_deref(), Some("app://Message"));
    assert_eq!(message.node_shape_uri.as_deref(), Some("app://MessageShape"));
    assert_eq!(message.interpretation_hint, None);
    assert_eq!(names(message), ["body", "reactions"]);
    let body = &message.properties[0];
    assert_eq!((body.min_length, body.max_length), (Some(1), Some(4000)));
    assert_eq!((body.min_count, body.max_count), (Some(1), Some(1)));
    let reactions = &message.properties[1];
    assert_eq!(reactions.path.as_deref(), Some("app://reaction"));
    assert_eq!((reactions.min_count, reactions.max_count), (None, None));
}

#[test]
fn sh_order_sorts_properties_stably() {
    let (doc, diagnostics) = parse_ok(
        "ex:TaskShape a sh:NodeShape ; sh:targetClass ex:Task ;
            sh:property [ sh:path ex:a ] ;
            sh:property [ sh:path ex:b ; sh:order 2 ] ;
            sh:property [ sh:path ex:c ] ;
            sh:property [ sh:path ex:d ; sh:order 1.5 ] ;
            sh:property [ sh:path ex:e ; sh:order 2 ] .",
    );
    assert!(diagnostics.0.is_empty(), "{diagnostics}");
    let paths: Vec<&str> = doc.classes[0]
        .properties
        .iter()
        .filter_map(|p| p.path.as_deref())
        .collect();
    assert_eq!(
        paths,
        [
            "http://example.org/d",
            "http://example.org/b",
            "http://example.org/e",
            "http://example.org/a",
            "http://example.org/c"
        ]
    );
    // No sh:name: the name stays None (check derives it).
    assert_eq!(doc.classes[0].properties[0].name, None);
}

#[test]
fn sh_in_list_becomes_in_values() {
    let (doc, diagnostics) = parse_ok(
        "ex:TaskShape a sh:NodeShape ; sh:targetClass ex:Task ;
            sh:property [ sh:path ex:status ; sh:in ( \"open\" 3 2.5 true ex:Done \"7\"^^xsd:int ) ] ;
            sh:property [ sh:path ex:none ; sh:in () ] .",
    );
    assert!(diagnostics.0.is_empty(), "{diagnostics}");
    let values = doc.classes[0].properties[0].in_values.clone().expect("in values");
    let expected: Vec<InValue> = [
        json!("open"),
        json!(3),
        json!(2.5),
        json!(true),
        json!("http://example.org/Done"),
        json!(7),
    ]
    .into_iter()
    .map(|value| InValue { value, label: None })
    .collect();
    assert_eq!(values, expected);
    assert!(values[1].value.is_i64());
    assert_eq!(doc.classes[0].properties[1].in_values, Some(vec![]));
}

#[test]
fn malformed_sh_in_is_a_diagnostic() {
    let (doc, diagnostics) = parse_ok(
        "ex:TaskShape a sh:NodeShape ; sh:targetClass ex:Task ;
            sh:property [ sh:path ex:status ; sh:in ex:NotAList ] ;
            sh:property [ sh:path ex:other ; sh:in [ rdf:first \"a\" ] ] ;
            sh:property [ sh:path ex:fine ; sh:in ( \"a\" ) ] .",
    );
    assert_eq!(codes(&diagnostics), ["invalid-list", "invalid-list"]);
    assert!(diagnostics.0[0].is_error());
    assert_eq!(
        diagnostics.0[1].origin.path.as_deref(),
        Some("http://example.org/other")
    );
    let properties = &doc.classes[0].properties;
    assert_eq!(properties.len(), 3);
    assert_eq!((&properties[0].in_values, &properties[1].in_values), (&None, &None));
    assert_eq!(properties[2].in_values.as_ref().map(Vec::len), Some(1));
}

#[test]
fn sh_node_becomes_parent_shapes() {
    let (doc, diagnostics) = parse_ok(
        "ex:AnimalShape a sh:NodeShape ; sh:targetClass ex:Animal ;
            sh:property [ sh:path ex:name ; sh:datatype xsd:string ] .
         ex:DogShape a sh:NodeShape ; sh:targetClass ex:Dog ; sh:node ex:AnimalShape ;
            sh:property [ sh:path ex:breed ] .",
    );
    assert!(diagnostics.0.is_empty(), "{diagnostics}");
    assert_eq!(doc.classes.len(), 2);
    let dog = &doc.classes[1];
    assert_eq!(dog.target_class.as_deref(), Some("http://example.org/Dog"));
    assert_eq!(dog.parent_shapes.len(), 1);
    assert_eq!(dog.parent_shapes[0].value, "http://example.org/AnimalShape");
    assert_eq!(
        dog.parent_shapes[0].origin.shape.as_deref(),
        Some("http://example.org/DogShape")
    );
}

#[test]
fn sh_node_to_a_shape_without_class_is_the_engines() {
    let (doc, diagnostics) = parse_ok(
        "ex:Named a sh:NodeShape ; sh:property [ sh:path ex:name ; sh:minCount 1 ] .
         ex:DogShape a sh:NodeShape ; sh:targetClass ex:Dog ; sh:node ex:Named ;
            sh:node [ sh:property [ sh:path ex:age ; sh:maxCount 1 ] ] .",
    );
    assert!(diagnostics.0.is_empty(), "{diagnostics}");
    assert_eq!(doc.classes.len(), 1);
    let dog = &doc.classes[0];
    assert!(dog.parent_shapes.is_empty());
    let texts: Vec<(&str, &str)> = dog
        .enforced
        .iter()
        .map(|n| (n.component.as_str(), n.text.as_str()))
        .collect();
    assert_eq!(
        texts,
        [
            ("Node", "must conform to the shape ex:Named"),
            (
                "Node",
                "must conform to the shape [ sh:property [ sh:path ex:age ; sh:maxCount 1 ] ]"
            ),
        ]
    );
    assert!(dog.enforced.iter().all(|n| n.property.is_none()));
}

#[test]
fn implicit_class_target() {
    let (doc, diagnostics) = parse_ok(
        "ex:Person a rdfs:Class, sh:NodeShape ;
            rdfs:comment \"A person.\" ;
            sh:property [ sh:path ex:name ; sh:name \"name\" ] .
         ex:NotAClass a rdfs:Class .",
    );
    assert!(diagnostics.0.is_empty(), "{diagnostics}");
    assert_eq!(doc.classes.len(), 1);
    let person = &doc.classes[0];
    assert_eq!(person.target_class.as_deref(), Some("http://example.org/Person"));
    assert_eq!(person.node_shape_uri.as_deref(), Some("http://example.org/Person"));
    assert_eq!(person.interpretation_hint.as_deref(), Some("A person."));
    let constructor = person.constructor.as_ref().expect("a constructor");
    assert_eq!(constructor[0].target, "http://example.org/Person");
}

#[test]
fn complex_paths_are_the_engines_and_the_rest_is_typed() {
    let (doc, diagnostics) = parse_ok(
        "ex:GroupShape a sh:NodeShape ; sh:targetClass ex:Group ;
            sh:property [ sh:path ex:title ; sh:name \"title\" ] ;
            sh:property [ sh:path [ sh:inversePath ex:memberOf ] ; sh:name \"members\" ; sh:minCount 1 ] ;
            sh:property [ sh:path ( ex:a ex:b ) ; sh:class ex:B ] ;
            sh:property [ sh:path ex:size ; sh:datatype xsd:integer ] .",
    );
    assert!(diagnostics.0.is_empty(), "{diagnostics}");
    let group = &doc.classes[0];
    let paths: Vec<&str> = group.properties.iter().filter_map(|p| p.path.as_deref()).collect();
    assert_eq!(paths, ["http://example.org/title", "http://example.org/size"]);
    let notes: Vec<(Option<&str>, &str, &str)> = group
        .enforced
        .iter()
        .map(|n| (n.property.as_deref(), n.component.as_str(), n.text.as_str()))
        .collect();
    assert_eq!(
        notes,
        [
            (Some("members"), "MinCount", "must have at least 1 value(s)"),
            (
                Some("( ex:a ex:b )"),
                "Class",
                "each value must be an instance of ex:B (an rdf:type link to it or to a subclass)"
            ),
        ]
    );
}

#[test]
fn syntax_error_has_line_and_column() {
    let text = "@prefix sh: <http://www.w3.org/ns/shacl#> .\n\nex:A a sh:NodeShape .\n";
    let (doc, diagnostics) = parse_turtle(text);
    assert!(doc.is_none());
    assert!(!diagnostics.0.is_empty());
    let d = &diagnostics.0[0];
    assert_eq!(d.code, "syntax");
    assert!(d.is_error());
    assert_eq!(d.origin.line, Some(3));
    assert_eq!(d.origin.column, Some(1));
    assert!(d.message.contains("ex"), "{}", d.message);
    assert!(d.help.is_some());

    let (doc, diagnostics) =
        parse_turtle("@prefix sh: <http://www.w3.org/ns/shacl#> .\n<a:b> sh:name \"x\" ;\n   sh:path ]");
    assert!(doc.is_none());
    let d = &diagnostics.0[0];
    assert_eq!((d.code, d.origin.line, d.origin.column), ("syntax", Some(3), Some(12)));
}

#[test]
fn dash_read_only_makes_a_property_read_only() {
    let (doc, diagnostics) = parse_ok(
        "ex:TaskShape a sh:NodeShape ; sh:targetClass ex:Task ;
            sh:property [ sh:path ex:created ; dash:readOnly true ] ;
            sh:property [ sh:path ex:title ; dash:readOnly false ] ;
            sh:property [ sh:path ex:other ] .",
    );
    assert!(diagnostics.0.is_empty(), "{diagnostics}");
    let writable: Vec<Option<bool>> = doc.classes[0].properties.iter().map(|p| p.writable).collect();
    assert_eq!(writable, [Some(false), Some(true), Some(true)]);
}

#[test]
fn other_core_constraints_are_the_engines_in_words() {
    let (doc, diagnostics) = parse_ok(
        "ex:TaskShape a sh:NodeShape ; sh:targetClass ex:Task ; sh:closed true ; sh:closed false ;
            sh:property [ sh:path ex:a ; sh:name \"a\" ; sh:uniqueLang true ; sh:lessThan ex:b ;
                sh:or ( [ sh:datatype xsd:string ] [ sh:datatype xsd:integer ] ) ] ;
            sh:property [ sh:path ex:b ; sh:sparql [ sh:select \"SELECT $this {}\" ] ; sh:mesage \"typo\" ] .",
    );
    assert_eq!(codes(&diagnostics), ["not-core", "unknown-term"]);
    assert!(
        diagnostics
            .iter()
            .all(|d| d.severity == Severity::Warning && d.help.is_some())
    );
    assert!(
        diagnostics.0[1].message.contains("shacl#mesage"),
        "{}",
        diagnostics.0[1].message
    );
    let task = &doc.classes[0];
    assert_eq!(task.properties.len(), 2);
    let notes: Vec<(Option<&str>, &str, &str)> = task
        .enforced
        .iter()
        .map(|n| (n.property.as_deref(), n.component.as_str(), n.text.as_str()))
        .collect();
    assert_eq!(
        notes,
        [
            (
                None,
                "Closed",
                "may have no property other than the paths its shape declares"
            ),
            (Some("a"), "UniqueLang", "no two values may have the same language tag"),
            (
                Some("a"),
                "LessThan",
                "each value must be less than every value of ex:b"
            ),
            (
                Some("a"),
                "Or",
                "must conform to at least one shape of ( [ sh:datatype xsd:string ] [ sh:datatype xsd:integer ] )"
            ),
        ]
    );
    let unenforced: Vec<(Option<&str>, &str)> = task
        .unenforced
        .iter()
        .map(|n| (n.property.as_deref(), n.component.as_str()))
        .collect();
    assert_eq!(unenforced, [(Some("b"), "SPARQL")]);
}

#[test]
fn one_path_twice_is_one_property_the_conjunction() {
    let (doc, diagnostics) = parse_ok(
        "@prefix dc: <http://purl.org/dc/elements/1.1/> .
         @prefix dct: <http://purl.org/dc/terms/> .
         ex:S a sh:NodeShape ; sh:targetClass ex:T ;
            sh:property [ sh:path ex:top ; sh:minCount 1 ] ;
            sh:property [ sh:path ex:top ; sh:class ex:Concept ; sh:maxCount 5 ; sh:minCount 2 ] ;
            sh:property [ sh:path ex:top ; sh:class ex:Other ] ;
            sh:property [ sh:path dct:title ] ;
            sh:property [ sh:path dc:title ] .
         ex:S2 a sh:NodeShape ; sh:targetClass ex:T ;
            sh:property [ sh:path ex:top ; sh:maxCount 3 ] ;
            sh:property [ sh:path ex:extra ; sh:datatype xsd:string ; sh:datatype xsd:token ] .",
    );
    assert!(diagnostics.0.is_empty(), "{diagnostics}");
    assert_eq!(doc.classes.len(), 1, "two shapes targeting one class are one class");
    let t = &doc.classes[0];
    assert_eq!(
        names(t),
        [
            "http://example.org/top",
            "http://purl.org/dc/terms/title",
            "dc_title",
            "http://example.org/extra"
        ]
    );
    let top = &t.properties[0];
    assert_eq!((top.min_count, top.max_count), (Some(2), Some(3)));
    assert_eq!(
        top.class.as_ref().map(|c| c.value.as_str()),
        Some("http://example.org/Concept")
    );
    let notes: Vec<(&str, &str)> = t
        .enforced
        .iter()
        .map(|n| (n.component.as_str(), n.text.as_str()))
        .collect();
    assert_eq!(
        notes,
        [
            (
                "Class",
                "each value must be an instance of http://example.org/Other (an rdf:type link to it or to a subclass)"
            ),
            ("Datatype", "each value must be a literal of datatype xsd:token"),
        ]
    );
}

#[test]
fn other_targets_are_the_engines_and_no_class_is_said() {
    let (doc, diagnostics) =
        parse_ok("ex:S a sh:NodeShape ; sh:targetNode ex:alice ; sh:property [ sh:path ex:p ; sh:minCount 1 ] .");
    assert!(doc.classes.is_empty());
    assert_eq!(codes(&diagnostics), ["no-classes"]);
    assert_eq!(diagnostics.0[0].severity, Severity::Warning);
    assert_eq!(doc.enforced.len(), 1);
    assert_eq!(doc.enforced[0].component, "Node");
    assert_eq!(
        doc.enforced[0].text,
        "the nodes of sh:targetNode ex:alice must conform to ex:S"
    );
}

#[test]
fn deactivated_several_targets_and_language_tags() {
    let (doc, diagnostics) = parse_ok(
        "ex:Off a sh:NodeShape ; sh:targetClass ex:Off ; sh:deactivated true .
         ex:S a sh:NodeShape ; sh:targetClass ex:A, ex:B ;
            sh:property [ sh:path ex:p ; sh:name \"nom\"@fr, \"name\"@en ] ;
            sh:property [ sh:path ex:q ; sh:deactivated true ] .",
    );
    assert_eq!(codes(&diagnostics), ["deactivated", "deactivated"]);
    assert_eq!(diagnostics.0[0].severity, Severity::Note);
    let targets: Vec<Option<&str>> = doc.classes.iter().map(|c| c.target_class.as_deref()).collect();
    assert_eq!(targets, [Some("http://example.org/A"), Some("http://example.org/B")]);
    assert_eq!(doc.classes[0].node_shape_uri.as_deref(), Some("http://example.org/S"));
    assert_eq!(doc.classes[1].node_shape_uri, None);
    assert_eq!(names(&doc.classes[0]), ["name"]);
    assert_eq!(names(&doc.classes[1]), ["name"]);
}

#[test]
fn values_ranges_and_invalid_values() {
    let (doc, diagnostics) = parse_ok(
        "ex:S a sh:NodeShape ; sh:targetClass ex:T ;
            sh:description \"Described.\" ; rdfs:comment \"Commented.\" ;
            sh:property [ sh:path ex:n ; sh:minInclusive 0 ; sh:maxInclusive 20.5 ;
                sh:minExclusive -1 ; sh:maxExclusive 1e2 ; sh:pattern \"^a\" ; sh:flags \"i\" ;
                sh:hasValue ex:V ; rdfs:comment \"Doc.\" ] ;
            sh:property [ sh:path ex:m ; sh:minCount -1 ; sh:maxCount \"2\" ; sh:minInclusive \"x\" ;
                sh:hasValue 5 ] .",
    );
    let class = &doc.classes[0];
    assert_eq!(class.interpretation_hint.as_deref(), Some("Described."));
    let n: &PropertyShape = &class.properties[0];
    // Ranges on a property without a numeric datatype are the engine's.
    assert_eq!((&n.min_inclusive, &n.max_inclusive), (&None, &None));
    let ranges: Vec<&str> = class.enforced.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(
        ranges,
        [
            "each value must be at least 0",
            "each value must be at most 20.5",
            "each value must be greater than -1",
            "each value must be less than 1e2",
        ]
    );
    assert_eq!(n.pattern.as_ref().map(|p| p.value.as_str()), Some("^a"));
    assert_eq!(n.flags.as_deref(), Some("i"));
    assert_eq!(n.has_value, Some(json!("http://example.org/V")));
    assert_eq!(n.interpretation_hint.as_deref(), Some("Doc."));
    let m = &class.properties[1];
    assert_eq!((m.min_count, m.max_count, &m.min_inclusive), (None, None, &None));
    assert_eq!(m.has_value, Some(json!(5)));
    assert_eq!(codes(&diagnostics), ["invalid-value", "invalid-value", "invalid-value"]);
    assert!(
        diagnostics
            .iter()
            .all(|d| d.origin.path.as_deref() == Some("http://example.org/m"))
    );
    assert!(diagnostics.0[0].message.contains("sh:minCount"));
    assert!(diagnostics.0[0].message.contains("\"-1\"^^xsd:integer"));
    assert_eq!(diagnostics.0[0].property.as_deref(), Some("m"));
    assert_eq!(diagnostics.0[0].class.as_deref(), Some("T"));
}

#[test]
fn blank_node_shapes_and_odd_input_do_not_panic() {
    let (doc, diagnostics) = parse_ok(
        "[] a sh:NodeShape ; sh:targetClass ex:Anon ; sh:property [ sh:name \"nameless\" ] ;
            sh:property \"literal\" .
         ex:Loop a sh:NodeShape ; sh:targetClass ex:L ; sh:property [ sh:path ex:p ; sh:in _:l ] .
         _:l <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> 1 ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> _:l .",
    );
    assert_eq!(doc.classes.len(), 2);
    assert_eq!(doc.classes[0].node_shape_uri, None);
    assert_eq!(doc.classes[0].origin.shape.as_deref(), Some("_:b0"));
    assert_eq!(codes(&diagnostics), ["missing-path", "invalid-value", "invalid-list"]);
    for text in ["", "   ", "@prefix", "<", "\"", "[ ] .", "_:a _:b _:c ."] {
        let _ = parse_turtle(text);
    }
}

#[test]
fn two_classes_with_one_local_name_are_told_apart_by_prefix() {
    let (doc, diagnostics) = parse_ok(
        "@prefix dcat: <http://www.w3.org/ns/dcat#> .
         ex:A a sh:NodeShape ; sh:targetClass dcat:Resource .
         ex:B a sh:NodeShape ; sh:targetClass rdfs:Resource .",
    );
    assert!(diagnostics.0.is_empty(), "{diagnostics}");
    let names: Vec<Option<&str>> = doc.classes.iter().map(|c| c.name.as_deref()).collect();
    assert_eq!(names, [None, Some("RdfsResource")]);
}

#[test]
fn what_the_engine_cannot_read_in_the_graph_the_front_end_read_is_an_error() {
    // The front end leaves `sh:not` to the engine; the engine's reader, given the graph the
    // front end read (not a second parse), finds the property shape without a path.
    let text = format!(
        "{PREFIXES}ex:TaskShape a sh:NodeShape ; sh:targetClass ex:Task ;
            sh:property [ sh:path ex:title ; sh:datatype xsd:string ] ;
            sh:not [ sh:property [ sh:minCount 1 ] ] ."
    );
    let (dna, diagnostics) = crate::load_str(&text, "task.ttl", crate::parse::Format::Turtle);
    assert!(dna.is_none());
    assert_eq!(codes(&diagnostics), ["shapes-graph"], "{diagnostics}");
}

#[test]
fn what_the_shapes_say_of_a_value_types_it() {
    let (doc, diagnostics) = parse_ok(
        "ex:DateOrDateTime a sh:NodeShape ; sh:or ( [ sh:datatype xsd:date ] [ sh:datatype xsd:dateTime ] ) .
         ex:Year a sh:NodeShape ; sh:datatype xsd:gYear .
         ex:EventShape a sh:NodeShape ; sh:targetClass ex:Event ;
            sh:property [ sh:path ex:start ; sh:or ( [ sh:datatype xsd:date ] [ sh:datatype xsd:dateTime ] ) ;
                sh:pattern \"^2\" ] ;
            sh:property [ sh:path ex:end ; sh:node ex:DateOrDateTime ] ;
            sh:property [ sh:path ex:year ; sh:node ex:Year ] ;
            sh:property [ sh:path ex:size ; sh:xone ( [ sh:datatype xsd:integer ] [ sh:datatype xsd:string ] ) ] ;
            sh:property [ sh:path ex:both ; sh:and ( ex:DateOrDateTime [ sh:datatype xsd:date ] ) ] ;
            sh:property [ sh:path ex:open ; sh:or ( [ sh:datatype xsd:date ] [ sh:minLength 3 ] ) ] ;
            sh:property [ sh:path ex:iri ; sh:or ( [ sh:datatype xsd:date ] [ sh:nodeKind sh:IRI ] ) ] ;
            sh:property [ sh:path ex:nothing ] ;
            sh:property [ sh:path ex:status ; sh:in ( ex:Draft ex:Published ) ] ;
            sh:property [ sh:path ex:note ; sh:nodeKind sh:Literal ] ;
            sh:property [ sh:path ex:own ; sh:datatype xsd:string ;
                sh:or ( [ sh:datatype xsd:date ] [ sh:datatype xsd:dateTime ] ) ] .",
    );
    assert!(diagnostics.0.is_empty(), "{diagnostics}");
    let event = &doc.classes[0];
    let by = |name: &str| -> &PropertyShape {
        event
            .properties
            .iter()
            .find(|p| p.path.as_deref() == Some(&format!("http://example.org/{name}")))
            .expect(name)
    };
    let xsd = |local: &str| format!("http://www.w3.org/2001/XMLSchema#{local}");
    let any_of = |name: &str| {
        by(name).any_of.as_ref().map(|a| {
            let datatypes: Vec<String> = a.datatypes.iter().map(|d| d.value.clone()).collect();
            (datatypes, a.component)
        })
    };
    let date_or_date_time = vec![xsd("date"), xsd("dateTime")];
    assert_eq!(
        any_of("start"),
        Some((date_or_date_time.clone(), "sh:OrConstraintComponent"))
    );
    assert_eq!(any_of("end"), Some((date_or_date_time, "sh:NodeConstraintComponent")));
    assert_eq!(
        any_of("size"),
        Some((vec![xsd("integer"), xsd("string")], "sh:XoneConstraintComponent"))
    );
    // One datatype left is the property's datatype; the shapes saying it stay the engine's.
    assert_eq!(
        by("year").datatype.as_ref().map(|d| d.value.clone()),
        Some(xsd("gYear"))
    );
    assert_eq!(by("both").datatype.as_ref().map(|d| d.value.clone()), Some(xsd("date")));
    // A member that says nothing of the datatype (or allows IRIs) lets any value through:
    // any literal or IRI, as a property that says nothing at all.
    let any_term: Vec<String> = crate::model::any_term(Some(crate::model::NODE_ALTERNATIVE))
        .into_iter()
        .map(|a| a.datatype)
        .collect();
    for name in ["open", "iri", "nothing"] {
        assert_eq!(any_of(name), Some((any_term.clone(), "")), "{name}");
        assert_eq!(by(name).datatype, None, "{name}");
    }
    // `sh:in` of IRIs: an IRI property; a node kind of literals: any literal.
    assert_eq!(any_of("status"), None);
    assert_eq!(
        by("status").node_kind.as_ref().map(|k| k.value.as_str()),
        Some("http://www.w3.org/ns/shacl#IRI")
    );
    let literal: Vec<String> = crate::model::any_term(None).into_iter().map(|a| a.datatype).collect();
    assert_eq!(any_of("note"), Some((literal, "sh:NodeKindConstraintComponent")));
    // A datatype of its own wins (the `sh:or` is the engine's).
    assert_eq!(any_of("own"), None);
    assert_eq!(
        by("own").datatype.as_ref().map(|d| d.value.clone()),
        Some(xsd("string"))
    );
    // The facets of a value of several datatypes are the engine's, named, not dropped.
    assert_eq!(by("start").pattern, None);
    let start_notes: Vec<&str> = event
        .enforced
        .iter()
        .filter(|n| n.property.as_deref() == Some("start"))
        .map(|n| n.component.as_str())
        .collect();
    assert_eq!(start_notes, ["Or", "Pattern"]);
}
