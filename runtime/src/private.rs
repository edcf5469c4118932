//! What generated code calls (`::shacl_mcp::__private`). Not a public API: generated code and
//! this module change together. Everything a generated item needs is here, so a class named
//! `String` or `Option` cannot break it.

use std::sync::OnceLock;

use regex::Regex;
pub use serde;
use serde::Serialize;
use serde::de::DeserializeOwned;
pub use serde_json;
pub use serde_json::{Map, Value};
pub use shacl_mcp_compiler::literal::{is_blank, is_iri, is_node, lang_value};
pub use shacl_mcp_compiler::model::{Access, ReadOnlyReason, TemporalKind};

pub use crate::compiled::{CompiledClass, CompiledDna, Source};
pub use crate::engine::validate::{Item, PropertyInfo, RefState, ReferenceCheck, is_whole, temporal_ok};
pub use crate::engine::{Engine, Problem, QueryArgs, ToolError};
pub use crate::store::StoreError;
pub use crate::types::{Date, DateTime, InstanceMeta, Iri, LangString, Time, ValueError};

/// Whether a value has one of `datatypes` (full IRIs, in the shapes' order): the type check of
/// a property of several datatypes, as the interpreter's `has_type` makes it.
pub fn any_of_ok(datatypes: &[&str], value: &Value) -> bool {
    use shacl_mcp_compiler::model::{Alternative, ValueType, alternative_nodes};
    let alternative = |d: &&str| match alternative_nodes(d) {
        Some(_) => Some((d.to_string(), ValueType::Reference)),
        None => shacl_mcp_compiler::check::datatype(d),
    };
    datatypes
        .iter()
        .filter_map(alternative)
        .any(|(datatype, value_type)| crate::engine::values::fits(&Alternative { datatype, value_type }, value))
}

/// A pattern of the DNA, compiled on first use (it was checked to compile at build time).
pub struct Pattern {
    source: &'static str,
    regex: OnceLock<Option<Regex>>,
}

impl Pattern {
    pub const fn new(source: &'static str) -> Pattern {
        Pattern {
            source,
            regex: OnceLock::new(),
        }
    }

    pub fn is_match(&self, text: &str) -> bool {
        self.regex
            .get_or_init(|| Regex::new(self.source).ok())
            .as_ref()
            .is_none_or(|r| r.is_match(text))
    }
}

/// Records `out of range` for the bounds that do not hold: `(op, bound as text, holds)`.
pub fn out_of_range(item: &mut Item<'_>, bounds: &[(&str, &str, bool)]) {
    let broken: Vec<(&str, &str)> = bounds.iter().filter(|b| !b.2).map(|b| (b.0, b.1)).collect();
    if let Some((op, _)) = broken.first() {
        let component = shacl_mcp_compiler::problems::bound_component(op);
        item.problem(component, shacl_mcp_compiler::problems::range_text(broken));
    }
}

/// Runs a generated check on one value outside any store (references are not looked up):
/// the `TryFrom` of a constrained newtype.
pub fn check_alone(
    value: Value,
    property: &PropertyInfo,
    check: fn(&mut Item<'_>, &mut ReferenceCheck<'_>) -> Result<(), StoreError>,
) -> Result<(), ValueError> {
    let mut skip = |_: &str, _: &str| Ok(RefState::Instance);
    let mut run = |_: usize, item: &mut Item<'_>, refs: &mut ReferenceCheck<'_>| check(item, refs);
    let problems = crate::engine::validate::check_single(property, 0, &value, &mut run, &mut skip)
        .map_err(|e| ValueError(vec![e.to_string()]))?;
    if problems.is_empty() {
        Ok(())
    } else {
        Err(ValueError(problems.into_iter().map(|p| p.problem).collect()))
    }
}

/// Arguments of the per-class tools whose shape is the same for every class.
pub mod args {
    use serde::{Deserialize, Serialize};

    /// `*_query`.
    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Query {
        pub perspective_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub filter: Option<serde_json::Map<String, serde_json::Value>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub limit: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub offset: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub order: Option<String>,
    }

    /// `*_list`.
    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct List {
        pub perspective_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub parent: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub limit: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub offset: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub order: Option<String>,
    }

    /// `*_get`, `*_delete` and `*_get_<collection>`: one instance.
    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Instance {
        pub perspective_id: String,
        pub expression_address: String,
    }
}

/// The fixed keys of `*_create` arguments; the rest are the class's properties.
const FIXED: [&str; 3] = ["perspective_id", "expression_address", "parent"];

fn to_map<T: Serialize>(value: &T) -> Result<Map<String, Value>, ToolError> {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ToolError::Internal("arguments must serialize to an object".into())),
        Err(e) => Err(ToolError::Internal(e.to_string())),
    }
}

fn from_value<R: DeserializeOwned>(value: Value) -> Result<R, ToolError> {
    serde_json::from_value(value)
        .map_err(|e| ToolError::Internal(format!("the stored instance does not fit its type: {e}")))
}

/// Typed create: validates through the engine, then reads the instance back as `R`.
pub fn create<A: Serialize, R: DeserializeOwned>(engine: &Engine, class: &str, args: &A) -> Result<R, ToolError> {
    let mut map = to_map(args)?;
    let text = |m: &Map<String, Value>, k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
    let (perspective, address, parent) = (
        text(&map, "perspective_id"),
        text(&map, "expression_address"),
        text(&map, "parent"),
    );
    map.retain(|k, _| !FIXED.contains(&k.as_str()));
    let perspective = perspective.unwrap_or_default();
    let created = engine.instance_create(&perspective, class, &map, address.as_deref(), parent.as_deref())?;
    let id = created["base_uri"].as_str().unwrap_or_default().to_string();
    get(engine, class, &perspective, &id)
}

pub fn get<R: DeserializeOwned>(engine: &Engine, class: &str, perspective: &str, id: &str) -> Result<R, ToolError> {
    from_value(engine.instance_get(perspective, class, id)?)
}

pub fn query<R: DeserializeOwned>(
    engine: &Engine,
    class: &str,
    perspective: &str,
    args: QueryArgs,
) -> Result<Vec<R>, ToolError> {
    let mut result = engine.instance_query(perspective, class, &args)?;
    let instances = result
        .get_mut("instances")
        .map(Value::take)
        .unwrap_or(Value::Array(Vec::new()));
    from_value(instances)
}

pub fn delete(engine: &Engine, class: &str, perspective: &str, id: &str) -> Result<(), ToolError> {
    engine.instance_remove(perspective, class, id).map(drop)
}

/// Sets one scalar; `None` (an optional scalar) clears it.
pub fn set<V: Serialize>(
    engine: &Engine,
    class: &str,
    perspective: &str,
    id: &str,
    property: &str,
    value: &V,
) -> Result<(), ToolError> {
    let value = serde_json::to_value(value).map_err(|e| ToolError::Internal(e.to_string()))?;
    if value.is_null() {
        return engine
            .instance_update(perspective, class, id, None, &[property.to_string()])
            .map(drop);
    }
    let mut map = Map::new();
    map.insert(property.to_string(), value);
    engine
        .instance_update(perspective, class, id, Some(&map), &[])
        .map(drop)
}

pub fn add<V: Serialize>(
    engine: &Engine,
    class: &str,
    perspective: &str,
    id: &str,
    collection: &str,
    item: &V,
) -> Result<(), ToolError> {
    let item = serde_json::to_value(item).map_err(|e| ToolError::Internal(e.to_string()))?;
    engine
        .instance_add_to_collection(perspective, class, id, collection, &item)
        .map(drop)
}

pub fn remove<V: Serialize>(
    engine: &Engine,
    class: &str,
    perspective: &str,
    id: &str,
    collection: &str,
    item: &V,
) -> Result<(), ToolError> {
    let item = serde_json::to_value(item).map_err(|e| ToolError::Internal(e.to_string()))?;
    engine
        .instance_remove_from_collection(perspective, class, id, collection, &item)
        .map(drop)
}
