//! The code-first form: the shape from a struct, its SHACL JSON, and the same generated code.

#![deny(warnings)]

/// A unit of work.
#[shacl_mcp::shacl_model(target_class = "todo://Task")]
#[allow(dead_code)]
pub struct Task {
    /// What to do.
    #[shacl(path = "todo://title", min_length = 1, max_length = 200)]
    title: String,
    #[shacl(path = "todo://status", in = ["open", "done"])]
    status: Option<String>,
    #[shacl(path = "todo://priority", min_inclusive = 1, max_inclusive = 5)]
    priority: Option<i64>,
    #[shacl(path = "todo://due")]
    due: Option<shacl_mcp::DateTime>,
    #[shacl(path = "todo://assignee")]
    assignee: Option<shacl_mcp::Iri>,
    #[shacl(path = "todo://tag", max_count = 10)]
    tags: Vec<String>,
    done: bool,
    #[shacl(path = "todo://label")]
    labels: Vec<shacl_mcp::LangString>,
}

fn main() {
    use shacl_mcp::CompiledDna;
    let shape: serde_json::Value = serde_json::from_str(Task::SHACL_JSON).expect("JSON");
    assert_eq!(shape["target_class"], "todo://Task");
    assert_eq!(shape["properties"][0]["min_count"], 1);
    assert_eq!(shape["properties"][2]["max_inclusive"], 5);
    assert_eq!(shape["properties"][6]["path"], "todo://done");
    assert_eq!(shape["properties"][7]["datatype"], "rdf:langString");
    assert_eq!(<task_model::Dna as CompiledDna>::CLASSES[0].name, "Task");
    assert_eq!(task_model::task::Task::TAGS.name(), "tags");
    assert!("later".parse::<task_model::task::Status>().is_err());
}
