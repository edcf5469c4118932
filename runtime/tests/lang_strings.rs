//! Language-tagged strings (`sh:datatype rdf:langString`, docs/data-model.md): JSON-LD value
//! objects in tool values, `literal:lang:<tag>:` links, and `rdf:langString` literals in the
//! graph the SHACL engine judges, so `sh:languageIn` and `sh:uniqueLang` see the real tags.

mod common;

use std::sync::Arc;

use common::*;
use serde_json::{Value, json};
use shacl_mcp::clock::{FixedClock, SeededIds};
use shacl_mcp::compiler::parse::Format;
use shacl_mcp::engine::{Engine, FixedDna, QueryArgs};
use shacl_mcp_compiler::surface::{property_schema, setter_value_schema};

const DNA: &str = include_str!("lang_strings.ttl");

/// The compiled path: generated structs hold `shacl_mcp::LangString`.
#[shacl_mcp::shacl_model(path = "tests/lang_strings.ttl")]
pub mod notes {}

fn notes() -> Setup {
    let source = [(DNA.to_string(), "notes.ttl".to_string(), Format::Turtle)];
    let (fixed, diags) = FixedDna::from_sources(&source).unwrap_or_else(|d| panic!("{d}"));
    assert!(
        diags.iter().all(|d| d.code != "no-language-form"),
        "the language form exists: {diags}"
    );
    setup_with(fixed)
}

fn lang(text: &str, tag: &str) -> Value {
    json!({"@value": text, "@language": tag})
}

/// `(property, constraint)` of every entry of a refusal.
fn refused(r: Result<Value, shacl_mcp::engine::ToolError>) -> Vec<(String, String)> {
    entries(r, &["property", "constraint"])
        .into_iter()
        .map(|e| (e[0].clone(), e[1].clone()))
        .collect()
}

fn query(s: &Setup, p: &str, filter: Value) -> Vec<String> {
    let args = QueryArgs {
        filter: obj(filter),
        parent: None,
        limit: None,
        offset: None,
        order: Default::default(),
    };
    let result = s.engine.instance_query(p, "Note", &args).unwrap();
    result["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_property_is_typed_as_json_ld_value_objects() {
    let s = notes();
    let class = &s.engine.fixed().classes()[0];
    let title = class.properties.iter().find(|p| p.name == "title").unwrap();
    assert_eq!(title.value_type.type_name(), "langString");
    let schema = property_schema(title);
    assert_eq!(schema["type"], "array", "{schema}");
    assert_eq!(schema["items"]["type"], "object");
    assert_eq!(schema["items"]["required"], json!(["@value", "@language"]));
    assert_eq!(schema["items"]["additionalProperties"], false);
    let subtitle = class.properties.iter().find(|p| p.name == "subtitle").unwrap();
    let schema = property_schema(subtitle);
    assert_eq!(schema["properties"]["@value"]["maxLength"], 10, "{schema}");
    // An optional scalar's setter takes null too.
    assert_eq!(setter_value_schema(subtitle)["type"], json!(["object", "null"]));
    // describe_perspective's type word, which its output schema lists.
    let p = s.perspective("Notes");
    let described = s.engine.describe_perspective(&p).unwrap();
    assert!(described.to_string().contains(r#""type":"langString""#), "{described}");
    let tools = shacl_mcp_compiler::surface::static_tools(Default::default());
    let describe = tools.iter().find(|t| t.name == "describe_perspective").unwrap();
    assert!(
        serde_json::to_string(&describe.output_schema)
            .unwrap()
            .contains("\"langString\"")
    );
}

#[test]
fn writes_are_judged_on_the_real_language_tags() {
    let s = notes();
    let p = s.perspective("Notes");

    // A tag outside sh:languageIn.
    let r = s.create(&p, "Note", json!({"title": [lang("Bonjour", "fr")]}));
    assert_eq!(
        refused(r),
        [("title".to_string(), "sh:LanguageInConstraintComponent".to_string())]
    );
    // Two values of one language.
    let r = s.create(&p, "Note", json!({"title": [lang("Hello", "en"), lang("Hi", "en")]}));
    assert_eq!(
        refused(r),
        [("title".to_string(), "sh:UniqueLangConstraintComponent".to_string())]
    );
    // Not a value object: the type problem, before any SHACL.
    for bad in [
        json!("Hello"),
        json!({"@value": "Hello"}),
        json!({"@value": "Hello", "@language": "en", "@type": "x"}),
        json!({"@value": "Hello", "@language": "not a tag"}),
    ] {
        let found = problems(s.create(&p, "Note", json!({ "title": [bad] })));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].1.contains("language-tagged string"), "{found:?}");
    }
    // Lengths are of the text.
    let found = problems(s.create(
        &p,
        "Note",
        json!({"title": [lang("Hi", "en")], "subtitle": lang("far too long a text", "en")}),
    ));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "subtitle");
    assert_eq!(s.links(&p), 0, "nothing refused was written");

    // Valid: read back as written, tag case kept.
    let created = s
        .create(
            &p,
            "Note",
            json!({"title": [lang("Hello world", "en"), lang("Hallo Welt", "DE")], "subtitle": lang("a: b/c", "en-GB")}),
        )
        .unwrap();
    let id = created["base_uri"].as_str().unwrap().to_string();
    let got = s.engine.instance_get(&p, "Note", &id).unwrap();
    assert_eq!(
        got["title"],
        json!([lang("Hello world", "en"), lang("Hallo Welt", "DE")])
    );
    assert_eq!(got["subtitle"], lang("a: b/c", "en-GB"));
    let report = s.engine.validate_perspective(&p, None).unwrap();
    assert_eq!(report["conforms"], true, "{report}");
    // SPARQL sees the same literals: tags as written, langMatches case-insensitive.
    let found = s
        .engine
        .sparql_query(
            &p,
            r#"SELECT ?t WHERE { ?s <app://title> ?t FILTER(langMatches(lang(?t), "de") && datatype(?t) = <http://www.w3.org/1999/02/22-rdf-syntax-ns#langString>) }"#,
            None,
            None,
        )
        .unwrap();
    assert!(found.to_string().contains("Hallo Welt"), "{found}");
    assert!(!found.to_string().contains("Hello world"), "{found}");

    // The links are `literal:lang:` targets.
    let links = s.engine.query_links(&p, Default::default(), Some(100), None).unwrap();
    let targets: Vec<&str> = links["links"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["target"].as_str())
        .collect();
    assert!(targets.contains(&"literal:lang:en:Hello%20world"), "{targets:?}");
    assert!(targets.contains(&"literal:lang:en-GB:a%3A%20b%2Fc"), "{targets:?}");

    // A second English title added later is refused too; a French one is outside languageIn.
    let r = s
        .engine
        .instance_add_to_collection(&p, "Note", &id, "title", &lang("Hi", "EN"));
    assert_eq!(
        refused(r),
        [("title".to_string(), "sh:UniqueLangConstraintComponent".to_string())]
    );
    let r = s
        .engine
        .instance_add_to_collection(&p, "Note", &id, "title", &lang("Salut", "fr"));
    assert_eq!(
        refused(r),
        [("title".to_string(), "sh:LanguageInConstraintComponent".to_string())]
    );
    s.engine
        .instance_update(
            &p,
            "Note",
            &id,
            obj(json!({"subtitle": lang("neu", "de")})).as_ref(),
            &[],
        )
        .unwrap();
    let got = s.engine.instance_get(&p, "Note", &id).unwrap();
    assert_eq!(got["subtitle"], lang("neu", "de"));
}

#[test]
fn filters_match_the_text_or_the_value_object() {
    let s = notes();
    let p = s.perspective("Notes");
    let a = s.created(&p, "Note", json!({"title": [lang("Hallo", "de"), lang("Hello", "en")]}));
    let b = s.created(&p, "Note", json!({"title": [lang("Hallo", "en")]}));
    assert_eq!(query(&s, &p, json!({"title": "Hallo"})), [a.as_str(), b.as_str()]);
    assert_eq!(query(&s, &p, json!({"title": lang("Hallo", "DE")})), [a.as_str()]);
    assert_eq!(query(&s, &p, json!({"title": lang("Hallo", "en")})), [b.as_str()]);
    assert_eq!(query(&s, &p, json!({"title": {"contains": "ell"}})), [a.as_str()]);
    assert_eq!(query(&s, &p, json!({"title": {"not": "Hello"}})), [b.as_str()]);
    assert_eq!(query(&s, &p, json!({"title": {"gt": "A"}})), Vec::<String>::new());
}

#[test]
fn a_plain_string_written_by_hand_is_not_a_value_and_fails_the_datatype() {
    let s = notes();
    let p = s.perspective("Notes");
    let id = s.created(&p, "Note", json!({"title": [lang("Hello", "en")]}));
    s.engine
        .add_link(&p, &id, "app://title", "literal:string:plain", false)
        .unwrap();
    let got = s.engine.instance_get(&p, "Note", &id).unwrap();
    assert_eq!(got["title"], json!([lang("Hello", "en")]));
    let report = s.engine.validate_perspective(&p, None).unwrap();
    let components: Vec<&str> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["constraint"].as_str().unwrap())
        .collect();
    // A plain literal has no tag, so it is outside sh:languageIn too (SHACL §4.6.1).
    assert_eq!(
        components,
        ["sh:DatatypeConstraintComponent", "sh:LanguageInConstraintComponent"],
        "{report}"
    );
}

#[test]
fn the_compiled_path_has_a_rust_type_for_it() {
    let fixed = FixedDna::compiled::<notes::Dna>().expect("compiled DNA loads");
    let clock = Arc::new(FixedClock::at("2026-12-24T10:00:00Z").unwrap());
    let store = fresh_store(clock);
    let engine = Engine::new(store.links, fixed, Arc::new(SeededIds::new(SEED)));
    let p = engine.add_perspective("Notes").unwrap()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let hallo = shacl_mcp::LangString::new("Hallo", "de").unwrap();
    use shacl_mcp::typed::Model;
    let mut args = notes::note::CreateArgs::new();
    args.title = vec![hallo.clone()];
    let note = notes::Note::create(&engine, &p, &args).expect("created");
    let title: &Vec<shacl_mcp::LangString> = &note.title;
    assert_eq!(title, &vec![hallo]);
    // A tag outside languageIn is the engine's refusal, as on the interpreted path.
    args.title = vec![shacl_mcp::LangString::new("Salut", "fr").unwrap()];
    let json = notes::Note::create(&engine, &p, &args).unwrap_err().to_json().unwrap();
    assert_eq!(
        json["validation_errors"][0]["constraint"], "sh:LanguageInConstraintComponent",
        "{json}"
    );
}
