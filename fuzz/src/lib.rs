//! Shared set-up for the runtime fuzz targets: one engine over an in-memory store with the
//! tasks and zoo DNAs fixed, a perspective and one instance per class, and the server over it.
//! Built once per process (libFuzzer runs every input in the same process).

use std::path::PathBuf;
use std::sync::{Arc, LazyLock};

use serde_json::{Map, Value, json};
use shacl_mcp::clock::{FixedClock, SeededIds};
use shacl_mcp::engine::{Engine, FixedDna};
use shacl_mcp::mcp::{McpServer, ServerOptions};
use shacl_mcp::store::sqlite::SqliteStore;

/// The classes of tasks.json and zoo.json.
pub const CLASSES: &[&str] = &["Task", "TodoList", "Animal", "Dog", "Toy", "Keeper", "Visitor"];

pub struct World {
    pub runtime: tokio::runtime::Runtime,
    pub server: McpServer,
    pub engine: Arc<Engine>,
    pub perspective: String,
    /// One existing instance per class that could be created with minimal properties.
    pub instances: Vec<(String, String)>,
}

pub fn dna_dir() -> PathBuf {
    // fuzz/ sits in the workspace, beside the sample DNAs.
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../dna")
}

pub static WORLD: LazyLock<World> = LazyLock::new(|| {
    let dir = dna_dir();
    let paths = [dir.join("tasks.json"), dir.join("zoo.json")];
    let (fixed, _) = FixedDna::load(&paths).unwrap_or_else(|d| panic!("fixed DNA: {d}"));
    let clock = Arc::new(FixedClock::at("2026-12-24T10:00:00Z").unwrap());
    let store = SqliteStore::open_in_memory(clock).expect("in-memory store");
    let engine = Arc::new(Engine::new(Arc::new(store), fixed, Arc::new(SeededIds::new(42))));
    let perspective = engine.add_perspective("fuzz").expect("perspective")["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let seeds: &[(&str, Value)] = &[
        ("Task", json!({ "title": "seed" })),
        ("TodoList", json!({ "name": "seed" })),
    ];
    let mut instances = Vec::new();
    for (class, props) in seeds {
        let props: Map<String, Value> = props.as_object().unwrap().clone();
        if let Ok(v) = engine.instance_create(&perspective, class, &props, None, None)
            && let Some(id) = v["base_uri"].as_str()
        {
            instances.push((class.to_string(), id.to_string()));
        }
    }
    let server = McpServer::new(engine.clone(), ServerOptions { class_tools: true, ..ServerOptions::default() });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    if std::env::var_os("FUZZ_WORLD_PRINT").is_some() {
        eprintln!("perspective {perspective} instances {instances:?}");
    }
    World {
        runtime,
        server,
        engine,
        perspective,
        instances,
    }
});
