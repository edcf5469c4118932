//! The engine: AD4M instance semantics (docs/tools.md) for any class of the model, over a
//! [`LinkStore`]. Usable from Rust without MCP: every tool is a method that takes its
//! arguments and returns the result JSON of docs/tools.md, or a [`ToolError`].
//!
//! A call is one store transaction: validation runs first, inside it, and nothing is committed
//! unless every check passed (docs/design.md invariant 2).

mod actions;
mod changes;
pub mod error;
mod fixed;
mod flows;
mod forget;
mod graph;
mod instances;
mod links;
mod models;
mod object;
mod pushdown;
mod query;
mod report;
mod sparql;
pub mod validate;
pub mod values;
mod write_rule;

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// The link pattern of `query_links` and the order of `instance_query` are the store's own
/// vocabulary, passed through unchanged: re-exported so that callers of the engine (the MCP layer)
/// speak to the engine alone.
pub use crate::store::{LinkPattern, Order};
pub use error::{Envelope, Problem, Subject, ToolError};
pub use fixed::FixedDna;
pub use forget::ForgetTarget;
pub use instances::ItemChange;
pub use query::QueryArgs;
use shacl_mcp_compiler::model::Class;
use shacl_mcp_compiler::shacl::{self, Shapes};

use crate::clock::IdSource;
use crate::store::{AuthorKey, LinkStore, ReadTx, WriteTx};

/// The engine over one store. Cheap to share (`Arc<Engine>`); every method takes `&self`.
///
/// An engine acts for one [`Principal`]: [`Engine::new`] gives the node's owner, who sees
/// every perspective and writes with the node key (single-user mode, stdio, the admin
/// credential); [`Engine::as_user`] gives a view of the same store for one user of multi-user
/// mode, who sees only the perspectives they created and signs with their own key.
pub struct Engine {
    store: Arc<dyn LinkStore>,
    fixed: Arc<FixedDna>,
    ids: Arc<dyn IdSource>,
    /// Classes added with add_model, per perspective, parsed once (shared by every view).
    registered: Arc<Registered>,
    principal: Principal,
    /// Whether queries narrow their candidates by the value keys of their filters
    /// ([`pushdown`]); off, a query evaluates every instance of the class (the naive answer the
    /// differential tests compare with).
    pushdown: bool,
    /// Whether validated writes run the SHACL rule ([`write_rule`]); off only for tests that
    /// need the graph a refused write would make.
    write_check: bool,
}

/// What add_model added to each perspective, by perspective uuid.
type Registered = RwLock<HashMap<String, Arc<PerspectiveModel>>>;

/// A perspective's classes added with add_model, and the complete shapes of its DNA (the fixed
/// DNA's and the added classes'), built once per change of its models.
struct PerspectiveModel {
    added: Vec<Arc<Class>>,
    /// What every validation of the perspective runs ([`shacl::complete_shapes`]), with what
    /// the write rule needs to know about them.
    write: Arc<write_rule::WriteShapes>,
}

/// What add_model added to a perspective and its complete shapes, built once and kept in
/// `registered` (the engine and the change log's labeller share it).
fn registered_model(
    fixed: &FixedDna,
    registered: &Registered,
    tx: &dyn ReadTx,
    perspective: &str,
) -> Result<Arc<PerspectiveModel>, crate::store::StoreError> {
    if let Some(found) = registered.read().unwrap_or_else(|e| e.into_inner()).get(perspective) {
        return Ok(found.clone());
    }
    let models = tx.models(perspective)?;
    let added = fixed.resolve_models(&models);
    let all: Vec<&Class> = fixed.classes().iter().chain(&added).map(|c| &**c).collect();
    let shapes = shacl::complete_shapes(fixed.graph(), &all, None, &graph::generic_term);
    let write = write_rule::WriteShapes::new(shapes, &all, &graph::generic_term);
    let model = Arc::new(PerspectiveModel {
        added,
        write: Arc::new(write),
    });
    registered
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .insert(perspective.to_string(), model.clone());
    Ok(model)
}

/// On whose behalf an [`Engine`] acts.
#[derive(Clone, Debug, Default)]
pub enum Principal {
    /// The node's owner: every perspective, the node key.
    #[default]
    Owner,
    /// A user of multi-user mode: their own perspectives, their own key (whose DID is theirs).
    User(Arc<AuthorKey>),
}

impl Engine {
    /// The engine over `store`, which from now on labels its change log with this DNA's
    /// classes (`changes_since`).
    pub fn new(store: Arc<dyn LinkStore>, fixed: FixedDna, ids: Arc<dyn IdSource>) -> Self {
        let engine = Engine {
            store,
            fixed: Arc::new(fixed),
            ids,
            registered: Arc::default(),
            principal: Principal::Owner,
            pushdown: true,
            write_check: true,
        };
        engine.store.set_change_labeller(Arc::new(changes::ClassLabeller {
            fixed: engine.fixed.clone(),
            registered: engine.registered.clone(),
        }));
        engine
    }

    /// The same engine with queries that narrow nothing by value: every instance of the class
    /// (under the parent) is evaluated. Slower and never different: for tests and measurements.
    pub fn without_pushdown(&self) -> Engine {
        Engine {
            pushdown: false,
            ..self.acting_for(self.principal.clone())
        }
    }

    /// The same engine with validated writes that skip the SHACL rule (the typed checks still
    /// run): it writes what the rule would refuse. For tests that compare the graph a refused
    /// write would make with an outside validator, and for measuring the rule's cost.
    pub fn without_write_check(&self) -> Engine {
        Engine {
            write_check: false,
            ..self.acting_for(self.principal.clone())
        }
    }

    /// The same engine (store, DNA, model cache) acting for a user: perspectives of others
    /// answer exactly like missing ones, and the user's links are signed with `key`.
    pub fn as_user(&self, key: Arc<AuthorKey>) -> Engine {
        self.acting_for(Principal::User(key))
    }

    /// The same engine acting for `principal`.
    pub fn acting_for(&self, principal: Principal) -> Engine {
        Engine {
            store: self.store.clone(),
            fixed: self.fixed.clone(),
            ids: self.ids.clone(),
            registered: self.registered.clone(),
            principal,
            pushdown: self.pushdown,
            write_check: self.write_check,
        }
    }

    pub fn principal(&self) -> &Principal {
        &self.principal
    }

    /// The DID this engine acts as: the user's, or the node's.
    pub fn did(&self) -> &str {
        match &self.principal {
            Principal::Owner => self.store.did(),
            Principal::User(key) => key.did(),
        }
    }

    /// A write transaction signed by the principal's key.
    fn write(&self) -> Result<Box<dyn WriteTx + '_>, crate::store::StoreError> {
        match &self.principal {
            Principal::Owner => self.store.write(),
            Principal::User(key) => self.store.write_as(key),
        }
    }

    /// Whether the principal may see a perspective: the owner sees all, a user their own.
    pub fn may_see(&self, perspective: &crate::store::Perspective) -> bool {
        match &self.principal {
            Principal::Owner => true,
            Principal::User(key) => perspective.owner == key.did(),
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
        serde_json::json!({ "did": self.did() })
    }

    /// The perspective must exist and the principal may see it: else the not-found answer, the
    /// same for both (docs/errors.md step 8).
    fn require_perspective(&self, tx: &dyn ReadTx, perspective: &str) -> Result<crate::store::Perspective, ToolError> {
        tx.perspective(perspective)?.filter(|p| self.may_see(p)).ok_or_else(|| {
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
        all.extend(self.registered(tx, perspective)?.added.iter().cloned());
        Ok(all)
    }

    /// The complete shapes of a perspective: what validate_perspective, flow guards and
    /// validated writes run (docs/validation.md).
    pub fn shapes(&self, tx: &dyn ReadTx, perspective: &str) -> Result<Arc<Shapes>, ToolError> {
        Ok(self.registered(tx, perspective)?.write.shapes.clone())
    }

    fn write_shapes(&self, tx: &dyn ReadTx, perspective: &str) -> Result<Arc<write_rule::WriteShapes>, ToolError> {
        Ok(self.registered(tx, perspective)?.write.clone())
    }

    fn registered(&self, tx: &dyn ReadTx, perspective: &str) -> Result<Arc<PerspectiveModel>, ToolError> {
        Ok(registered_model(&self.fixed, &self.registered, tx, perspective)?)
    }

    /// Class lookup: exact name, then case-insensitive; else an error listing the classes.
    fn class(&self, tx: &dyn ReadTx, perspective: &str, name: &str) -> Result<Arc<Class>, ToolError> {
        // The common case, a class of the fixed DNA by its exact name, without a list.
        if let Some(found) = self.fixed.classes().iter().find(|c| c.name == name) {
            return Ok(found.clone());
        }
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
