//! Shared set-up for the engine tests: an engine over an in-memory store with a fixed clock
//! and seeded ids, so results compare as exact JSON.

#![allow(dead_code)]

pub mod rdf_data;
mod stores;

#[allow(unused_imports)] // each test binary uses its own part of it
pub use stores::{AnyStore, TestDb, fresh_store};

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value};
use shacl_mcp::clock::{FixedClock, IdSource, SeededIds};
use shacl_mcp::engine::{Engine, FixedDna, ToolError};

pub const T0: &str = "2026-12-24T10:00:00.000000Z";
pub const SEED: u64 = 42;

pub fn shared_dna(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../dna").join(file)
}

pub fn fixed(files: &[&str]) -> FixedDna {
    let paths: Vec<PathBuf> = files.iter().map(|f| shared_dna(f)).collect();
    match FixedDna::load(&paths) {
        Ok((dna, _)) => dna,
        Err(diags) => panic!("{diags}"),
    }
}

pub struct Setup {
    pub engine: Engine,
    pub clock: Arc<FixedClock>,
    /// Mints the same ids as the engine, to write expected results.
    pub ids: SeededIds,
}

pub fn setup(files: &[&str]) -> Setup {
    setup_with(fixed(files))
}

/// [`setup`] for a DNA loaded some other way (from a text, from a Turtle file of the tests).
pub fn setup_with(dna: FixedDna) -> Setup {
    let clock = Arc::new(FixedClock::at("2026-12-24T10:00:00Z").unwrap());
    let store = fresh_store(clock.clone());
    let engine = Engine::new(store.links, dna, Arc::new(SeededIds::new(SEED)));
    Setup {
        engine,
        clock,
        ids: SeededIds::new(SEED),
    }
}

impl Setup {
    /// Adds a perspective and returns its uuid (checked against the seeded ids).
    pub fn perspective(&self, name: &str) -> String {
        let result = self.engine.add_perspective(name).expect("add_perspective");
        let uuid = self.ids.mint_uuid();
        assert_eq!(result["uuid"], uuid.as_str());
        uuid
    }

    /// The id the next create will mint.
    pub fn next_id(&self) -> String {
        self.ids.mint()
    }

    pub fn did(&self) -> String {
        self.engine.store().did().to_string()
    }

    pub fn create(&self, p: &str, class: &str, properties: Value) -> Result<Value, ToolError> {
        self.engine
            .instance_create(p, class, obj(properties).as_ref().unwrap(), None, None)
    }

    /// Creates and returns the new id, panicking on failure.
    pub fn created(&self, p: &str, class: &str, properties: Value) -> String {
        let id = self.next_id();
        let result = self
            .create(p, class, properties)
            .unwrap_or_else(|e| panic!("create {class}: {:?}", e.to_json()));
        assert_eq!(result["base_uri"], id.as_str());
        id
    }

    pub fn links(&self, p: &str) -> u64 {
        let result = self
            .engine
            .query_links(p, Default::default(), Some(1000), None)
            .unwrap();
        result["total_count"].as_u64().unwrap()
    }
}

pub fn obj(v: Value) -> Option<Map<String, Value>> {
    match v {
        Value::Object(o) => Some(o),
        Value::Null => Some(Map::new()),
        other => panic!("not an object: {other}"),
    }
}

/// The JSON of a refusal or envelope, panicking when the call succeeded.
pub fn error_json(r: Result<Value, ToolError>) -> Value {
    match r {
        Ok(v) => panic!("expected an error, got {v}"),
        Err(e) => e.to_json().unwrap_or_else(|| panic!("internal error: {e}")),
    }
}

/// Only the `validation_errors` as (property, problem) pairs.
pub fn problems(r: Result<Value, ToolError>) -> Vec<(String, String)> {
    entries(r, &["property", "problem"])
        .into_iter()
        .map(|e| (e[0].clone(), e[1].clone()))
        .collect()
}

/// The `keys` of each entry of a refusal's `validation_errors` (`-` for a key it lacks).
pub fn entries(r: Result<Value, ToolError>, keys: &[&str]) -> Vec<Vec<String>> {
    let json = error_json(r);
    json["validation_errors"]
        .as_array()
        .unwrap_or_else(|| panic!("no envelope: {json}"))
        .iter()
        .map(|e| keys.iter().map(|k| e[*k].as_str().unwrap_or("-").to_string()).collect())
        .collect()
}

pub fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}
