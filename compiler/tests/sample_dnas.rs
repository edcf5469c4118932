//! Every sample DNA in dna/ passes `check`, and the two chat files agree.

use std::path::{Path, PathBuf};

use shacl_mcp_compiler::surface::{SurfaceOptions, tool_list};
use shacl_mcp_compiler::{Dna, load};

fn shared_dna(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../dna").join(file)
}

fn load_ok(file: &str) -> Dna {
    let (dna, diags) = load(&shared_dna(file));
    assert!(!diags.has_errors(), "{file}:\n{diags}");
    dna.expect("a model")
}

#[test]
fn every_sample_dna_checks() {
    for file in ["chat.json", "chat.ttl", "tasks.json", "tasks-flow.json", "zoo.json"] {
        load_ok(file);
    }
}

#[test]
fn chat_json_and_turtle_give_the_same_tools() {
    let options = SurfaceOptions {
        class_tools: true,
        multi_user: false,
    };
    let json = tool_list(&load_ok("chat.json"), options);
    let ttl = tool_list(&load_ok("chat.ttl"), options);
    let names = |tools: &[shacl_mcp_compiler::ToolSpec]| tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
    assert!(
        names(&json).contains(&"channel_add_members".to_string()),
        "{:?}",
        names(&json)
    );
    assert!(names(&json).contains(&"message_set_body".to_string()));
    assert_eq!(names(&json), names(&ttl));
    for (j, t) in json.iter().zip(&ttl) {
        assert_eq!(j.input_schema, t.input_schema, "input schema of {}", j.name);
    }
}
