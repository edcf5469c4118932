//! The engine: AD4M instance semantics (tool-surface.md) for any class of the model, over a
//! [`LinkStore`]. Usable from Rust without MCP: every tool is a method that takes its
//! arguments and returns the result JSON of tool-surface.md, or a [`ToolError`].
//!
//! A call is one store transaction: validation runs first, inside it, and nothing is committed
//! unless every check passed (DESIGN.md invariant 2).

mod actions;
pub mod error;
mod fixed;
mod instances;
mod links;
mod models;
mod object;
mod query;
pub mod temporal;
pub mod validate;
pub mod values;

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

pub use error::{Envelope, Problem, Subject, ToolError};
pub use fixed::FixedDna;
pub use query::QueryArgs;
use shacl_mcp_compiler::model::Class;

use crate::clock::IdSource;
use crate::store::{LinkStore, ReadTx};

/// The engine over one store. Cheap to share (`Arc<Engine>`); every method takes `&self`.
pub struct Engine {
    store: Arc<dyn LinkStore>,
    fixed: FixedDna,
    ids: Arc<dyn IdSource>,
    /// Classes added with add_model, per perspective, parsed once.
    registered: RwLock<HashMap<String, Arc<Vec<Arc<Class>>>>>,
}

impl Engine {
    pub fn new(store: Arc<dyn LinkStore>, fixed: FixedDna, ids: Arc<dyn IdSource>) -> Self {
        Engine {
            store,
            fixed,
            ids,
            registered: RwLock::default(),
        }
    }

    pub fn store(&self) -> &dyn LinkStore {
        &*self.store
    }

    pub fn fixed(&self) -> &FixedDna {
        &self.fixed
    }

    /// `get_my_did`: `{ did }`.
    pub fn get_my_did(&self) -> serde_json::Value {
        serde_json::json!({ "did": self.store.did() })
    }

    /// The perspective must exist (and, later, be visible to the caller): else the not-found answer.
    fn require_perspective(&self, tx: &dyn ReadTx, perspective: &str) -> Result<crate::store::Perspective, ToolError> {
        tx.perspective(perspective)?.ok_or_else(|| {
            ToolError::refused(
                format!("Perspective '{perspective}' not found"),
                "Call list_perspectives for the perspectives you can use, or add_perspective to create one.",
            )
        })
    }

    /// Every class of a perspective: the fixed DNA, then the models added there in order of
    /// first registration.
    pub fn classes(&self, tx: &dyn ReadTx, perspective: &str) -> Result<Vec<Arc<Class>>, ToolError> {
        let mut all: Vec<Arc<Class>> = self.fixed.classes().to_vec();
        all.extend(self.registered(tx, perspective)?.iter().cloned());
        Ok(all)
    }

    fn registered(&self, tx: &dyn ReadTx, perspective: &str) -> Result<Arc<Vec<Arc<Class>>>, ToolError> {
        if let Some(found) = self
            .registered
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(perspective)
        {
            return Ok(found.clone());
        }
        let models = tx.models(perspective)?;
        let classes = Arc::new(self.fixed.resolve_models(&models));
        self.registered
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(perspective.to_string(), classes.clone());
        Ok(classes)
    }

    /// Class lookup: exact name, then case-insensitive; else an error listing the classes.
    fn class(&self, tx: &dyn ReadTx, perspective: &str, name: &str) -> Result<Arc<Class>, ToolError> {
        let classes = self.classes(tx, perspective)?;
        let found = classes
            .iter()
            .find(|c| c.name == name)
            .or_else(|| classes.iter().find(|c| c.name.eq_ignore_ascii_case(name)));
        found.cloned().ok_or_else(|| {
            let names: Vec<&str> = classes.iter().map(|c| c.name.as_str()).collect();
            let known = if names.is_empty() { "none yet".to_string() } else { names.join(", ") };
            ToolError::refused(
                format!("Unknown class '{name}' in perspective '{perspective}'"),
                format!(
                    "Classes in this perspective: {known}. Call describe_perspective for their properties, or add_model to add a class."
                ),
            )
        })
    }
}
