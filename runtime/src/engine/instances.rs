//! The instance tools: create, get, update, add to and remove from collections, remove.

use std::borrow::Cow;
use std::collections::HashSet;

use serde_json::{Map, Value, json};
use shacl_mcp_compiler::literal::is_node;
use shacl_mcp_compiler::model::{Class, HAS_CHILD, Property};
use shacl_mcp_compiler::problems as words;

use super::actions::Runner;
use super::error::{Envelope, Problem, Subject, ToolError};
use super::object::{carries_marker, instance_object, is_instance, links_of};
use super::validate::{
    Mode, RefState, ReferenceCheck, check_compiled, check_single, compiled_item, interpret_item, with_type,
};
use super::write_rule::{Checked, Recorder, WriteKind};
use super::{Engine, values};
use crate::compiled::Item;
use crate::store::{LinkPattern, ReadTx, StoreError, WriteTx};

/// What [`Engine::collection_item_read_back`] does with the item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemChange {
    Add,
    Remove,
}

/// With `wanted`, the instance object as the write's transaction sees it, before its commit:
/// the typed API's answer to a write is the instance that write made.
fn read_back_if(
    wanted: bool,
    tx: &dyn ReadTx,
    perspective: &str,
    class: &Class,
    node: &str,
) -> Result<Option<Value>, StoreError> {
    match wanted {
        true => Ok(Some(instance_object(class, node, &links_of(tx, perspective, node)?))),
        false => Ok(None),
    }
}

impl Engine {
    /// `instance_create`.
    pub fn instance_create(
        &self,
        perspective: &str,
        class_name: &str,
        properties: &Map<String, Value>,
        base_uri: Option<&str>,
        parent: Option<&str>,
    ) -> Result<Value, ToolError> {
        let (result, _) = self.create(perspective, class_name, properties, base_uri, parent, false)?;
        Ok(result)
    }

    /// `instance_create`, answering with the instance object read back inside the write's
    /// transaction (so it is the instance the write made): the typed API's create.
    pub fn instance_create_read_back(
        &self,
        perspective: &str,
        class_name: &str,
        properties: &Map<String, Value>,
        base_uri: Option<&str>,
        parent: Option<&str>,
    ) -> Result<Value, ToolError> {
        let (_, instance) = self.create(perspective, class_name, properties, base_uri, parent, true)?;
        Ok(instance.unwrap_or_default())
    }

    /// The create, and with `read_back` the instance object before the commit.
    fn create(
        &self,
        perspective: &str,
        class_name: &str,
        properties: &Map<String, Value>,
        base_uri: Option<&str>,
        parent: Option<&str>,
        read_back: bool,
    ) -> Result<(Value, Option<Value>), ToolError> {
        let mut problems = Vec::new();
        for (name, value) in [("base_uri", base_uri), ("parent", parent)] {
            if let Some(v) = value.filter(|v| !is_node(v)) {
                let text = "not an IRI or a blank node (expected a scheme, e.g. ad4m://…, or _:label)";
                problems.push(Problem::new(name, text).received(&json!(v)));
            }
        }
        if !problems.is_empty() {
            return Err(ToolError::invalid_arguments("instance_create", problems));
        }
        let tx = Recorder::new(self.write()?);
        self.require_perspective(&tx, perspective)?;
        let mut tx = self.recorded(tx, perspective, WriteKind::Create)?;
        let class = self.class(&tx, perspective, class_name)?;
        if let Some(base) = base_uri
            && is_instance(&tx, perspective, &class, base)?
        {
            return Err(ToolError::refused(
                format!("'{base}' is already a {} in this perspective", class.name),
                "Omit base_uri to mint a fresh id, or use instance_update to change the existing instance.",
            ));
        }
        let typed = self.typed(&tx, perspective, &class, properties, &[], Mode::Create)?;
        let properties = &*typed.kept(properties);

        let base = base_uri.map_or_else(|| self.ids.mint(), str::to_string);
        let out_of_base = LinkPattern {
            source: Some(&base),
            ..LinkPattern::default()
        };
        let fresh = tx.count_links(perspective, out_of_base)? == 0;
        if fresh {
            tx.fresh(&base);
        }
        let mut run = Runner::new(&mut tx, perspective, &base);
        if fresh {
            run = run.on_fresh_node();
        }
        let encoded = |name: &str| -> Option<String> {
            let p = class.property(name).filter(|p| !p.collection)?;
            properties.get(name).map(|v| values::encode(p, v))
        };
        let mut by_constructor: HashSet<&str> = HashSet::new();
        for action in &class.constructor {
            let substituted = !action.target.contains(':') && action.target != "this";
            if run.run(action, &encoded)? && substituted {
                by_constructor.insert(action.target.as_str());
            }
        }
        let mut properties_set = Vec::new();
        let mut collections_set = Map::new();
        for p in class.visible_properties() {
            let Some(value) = properties.get(&p.name) else { continue };
            if p.collection {
                let items = value.as_array().cloned().unwrap_or_default();
                for item in &items {
                    let target = values::encode(p, item);
                    for action in &p.adder {
                        run.run(action, &|t| (t == "value").then(|| target.clone()))?;
                    }
                }
                collections_set.insert(p.name.clone(), Value::Array(items));
            } else {
                if !by_constructor.contains(p.name.as_str()) {
                    let target = values::encode(p, value);
                    for action in &p.setter {
                        run.run(action, &|t| (t == "value").then(|| target.clone()))?;
                    }
                }
                properties_set.push(Value::from(p.name.clone()));
            }
        }
        run.flush()?;
        if let Some(parent) = parent {
            run.add(parent, HAS_CHILD, &base, false)?;
        }
        let checked = typed.settle(
            &class,
            self.check_write(&tx, perspective, &class, &base, WriteKind::Create),
        )?;
        let instance = read_back_if(read_back, &tx, perspective, &class, &base)?;
        tx.commit()?;

        let mut result = Map::new();
        result.insert("created".into(), true.into());
        result.insert("class_name".into(), class.name.clone().into());
        result.insert("base_uri".into(), base.into());
        result.insert("properties_set".into(), Value::Array(properties_set));
        if !collections_set.is_empty() {
            result.insert("collections_set".into(), Value::Object(collections_set));
        }
        if let Some(parent) = parent {
            result.insert("parent".into(), parent.into());
            result.insert("added_to_parent".into(), true.into());
        }
        checked.add_to(&mut result);
        Ok((Value::Object(result), instance))
    }

    /// `instance_get`: the instance object.
    pub fn instance_get(&self, perspective: &str, class_name: &str, base_uri: &str) -> Result<Value, ToolError> {
        let tx = self.store.read()?;
        self.require_perspective(&*tx, perspective)?;
        let class = self.class(&*tx, perspective, class_name)?;
        // The links out of the node say whether it carries the marker: one read, not two.
        let links = links_of(&*tx, perspective, base_uri)?;
        if !carries_marker(&class, &links) {
            return Err(missing_instance(perspective, &class, base_uri));
        }
        Ok(instance_object(&class, base_uri, &links))
    }

    /// `instance_update`: writable scalars through their setters, `unset` optional ones.
    pub fn instance_update(
        &self,
        perspective: &str,
        class_name: &str,
        base_uri: &str,
        properties: Option<&Map<String, Value>>,
        unset: &[String],
    ) -> Result<Value, ToolError> {
        self.update(perspective, class_name, base_uri, properties, unset, false)
            .map(|(result, _)| result)
    }

    /// [`Engine::instance_update`], answering with the instance object as the write left it,
    /// read inside the write's transaction (the typed API's setters).
    pub fn instance_update_read_back(
        &self,
        perspective: &str,
        class_name: &str,
        base_uri: &str,
        properties: Option<&Map<String, Value>>,
        unset: &[String],
    ) -> Result<Value, ToolError> {
        let (_, instance) = self.update(perspective, class_name, base_uri, properties, unset, true)?;
        Ok(instance.unwrap_or_default())
    }

    /// The update, and with `read_back` the instance object before the commit.
    fn update(
        &self,
        perspective: &str,
        class_name: &str,
        base_uri: &str,
        properties: Option<&Map<String, Value>>,
        unset: &[String],
        read_back: bool,
    ) -> Result<(Value, Option<Value>), ToolError> {
        let empty = Map::new();
        let properties = properties.unwrap_or(&empty);
        if properties.is_empty() && unset.is_empty() {
            return Err(ToolError::invalid_arguments(
                "instance_update",
                vec![Problem::new(
                    "properties",
                    "give properties to set, or unset to clear, or both",
                )],
            ));
        }
        let mut tx = Recorder::new(self.write()?);
        self.require_perspective(&tx, perspective)?;
        let class = self.class(&tx, perspective, class_name)?;
        self.require_instance(&tx, perspective, &class, base_uri)?;
        let typed = self.typed(&tx, perspective, &class, properties, unset, Mode::Update)?;
        let (properties, unset) = (&*typed.kept(properties), &*typed.kept_names(unset));

        let mut run = Runner::new(&mut tx, perspective, base_uri);
        let mut updated = Vec::new();
        let mut cleared = Vec::new();
        for p in class.visible_properties() {
            if let Some(value) = properties.get(&p.name) {
                let target = values::encode(p, value);
                for action in &p.setter {
                    run.run(action, &|t| (t == "value").then(|| target.clone()))?;
                }
                updated.push(Value::from(p.name.clone()));
            } else if unset.contains(&p.name) {
                run.remove(base_uri, &p.path, None)?;
                cleared.push(Value::from(p.name.clone()));
            }
        }
        let checked = typed.settle(
            &class,
            self.check_write(&tx, perspective, &class, base_uri, WriteKind::Change),
        )?;
        let instance = read_back_if(read_back, &tx, perspective, &class, base_uri)?;
        tx.commit()?;
        let mut result = Map::new();
        result.insert("success".into(), true.into());
        result.insert("class_name".into(), class.name.clone().into());
        result.insert("base_uri".into(), base_uri.into());
        result.insert("updated_properties".into(), Value::Array(updated));
        if !cleared.is_empty() {
            result.insert("unset_properties".into(), Value::Array(cleared));
        }
        checked.add_to(&mut result);
        Ok((Value::Object(result), instance))
    }

    /// `instance_add_to_collection`: idempotent; `already_member: true` when the item was there.
    pub fn instance_add_to_collection(
        &self,
        perspective: &str,
        class_name: &str,
        base_uri: &str,
        collection: &str,
        item: &Value,
    ) -> Result<Value, ToolError> {
        self.add_item(perspective, class_name, base_uri, collection, item, false)
            .map(|(result, _)| result)
    }

    /// `instance_remove_from_collection`.
    pub fn instance_remove_from_collection(
        &self,
        perspective: &str,
        class_name: &str,
        base_uri: &str,
        collection: &str,
        item: &Value,
    ) -> Result<Value, ToolError> {
        self.remove_item(perspective, class_name, base_uri, collection, item, false)
            .map(|(result, _)| result)
    }

    /// An item added to or removed from a collection, answering with the instance object as
    /// the write left it, read inside the write's transaction (the typed API's collection
    /// handles).
    pub fn collection_item_read_back(
        &self,
        perspective: &str,
        class_name: &str,
        base_uri: &str,
        collection: &str,
        item: &Value,
        change: ItemChange,
    ) -> Result<Value, ToolError> {
        let change = match change {
            ItemChange::Add => Self::add_item,
            ItemChange::Remove => Self::remove_item,
        };
        let (_, instance) = change(self, perspective, class_name, base_uri, collection, item, true)?;
        Ok(instance.unwrap_or_default())
    }

    fn add_item(
        &self,
        perspective: &str,
        class_name: &str,
        base_uri: &str,
        collection: &str,
        item: &Value,
        read_back: bool,
    ) -> Result<(Value, Option<Value>), ToolError> {
        self.with_collection_item(
            perspective,
            class_name,
            base_uri,
            collection,
            item,
            read_back,
            |tx, class, p, target| {
                let present = LinkPattern {
                    source: Some(base_uri),
                    predicate: Some(&p.path),
                    target: Some(&target),
                };
                let mut result = Map::new();
                result.insert("success".into(), true.into());
                result.insert("class_name".into(), class.name.clone().into());
                result.insert("base_uri".into(), base_uri.into());
                result.insert("collection".into(), p.name.clone().into());
                if tx.count_links(perspective, present)? > 0 {
                    result.insert("links_added".into(), 0.into());
                    result.insert("already_member".into(), true.into());
                    return Ok(Value::Object(result));
                }
                if let Some(max) = p.max_count {
                    let all = LinkPattern {
                        source: Some(base_uri),
                        predicate: Some(&p.path),
                        target: None,
                    };
                    if tx.count_links(perspective, all)? >= max {
                        let problem = with_type(p, Problem::new(&p.name, words::too_many(max)))
                            .received(item)
                            .breaks(words::component::MAX_COUNT);
                        return Err(class_envelope(class, vec![problem]));
                    }
                }
                let mut run = Runner::new(tx, perspective, base_uri);
                for action in &p.adder {
                    run.run(action, &|t| (t == "value").then(|| target.clone()))?;
                }
                result.insert("links_added".into(), run.links_added.into());
                Ok(Value::Object(result))
            },
        )
    }

    fn remove_item(
        &self,
        perspective: &str,
        class_name: &str,
        base_uri: &str,
        collection: &str,
        item: &Value,
        read_back: bool,
    ) -> Result<(Value, Option<Value>), ToolError> {
        self.with_collection_item(
            perspective,
            class_name,
            base_uri,
            collection,
            item,
            read_back,
            |tx, class, p, target| {
                let mut run = Runner::new(tx, perspective, base_uri);
                for action in &p.remover {
                    run.run(action, &|t| (t == "value").then(|| target.clone()))?;
                }
                Ok(json!({
                    "success": true,
                    "class_name": class.name,
                    "base_uri": base_uri,
                    "collection": p.name,
                    "links_removed": run.links_removed,
                }))
            },
        )
    }

    /// The shared part of adding and removing a collection item, in one write transaction:
    /// perspective, class, instance, the collection and the item checked, the item encoded;
    /// `body` writes, and the transaction commits when it succeeds.
    #[allow(clippy::too_many_arguments)]
    fn with_collection_item(
        &self,
        perspective: &str,
        class_name: &str,
        base_uri: &str,
        collection: &str,
        item: &Value,
        read_back: bool,
        body: impl FnOnce(&mut dyn WriteTx, &Class, &Property, String) -> Result<Value, ToolError>,
    ) -> Result<(Value, Option<Value>), ToolError> {
        let mut tx = Recorder::new(self.write()?);
        self.require_perspective(&tx, perspective)?;
        let class = self.class(&tx, perspective, class_name)?;
        self.require_instance(&tx, perspective, &class, base_uri)?;
        let p = self.collection_item_check(&tx, perspective, &class, collection, item)?;
        let target = values::encode(p, item);
        let mut result = body(&mut tx, &class, p, target)?;
        let checked = self.check_write(&tx, perspective, &class, base_uri, WriteKind::Change)?;
        let instance = read_back_if(read_back, &tx, perspective, &class, base_uri)?;
        tx.commit()?;
        if let Value::Object(o) = &mut result {
            checked.add_to(o);
        }
        Ok((result, instance))
    }

    /// `instance_remove`: the destructors, then every link in or out of the instance.
    pub fn instance_remove(&self, perspective: &str, class_name: &str, base_uri: &str) -> Result<Value, ToolError> {
        let mut tx = Recorder::new(self.write()?);
        self.require_perspective(&tx, perspective)?;
        let class = self.class(&tx, perspective, class_name)?;
        self.require_instance(&tx, perspective, &class, base_uri)?;
        let mut run = Runner::new(&mut tx, perspective, base_uri);
        for action in &class.destructor {
            run.run(action, &|_| None)?;
        }
        let out = LinkPattern {
            source: Some(base_uri),
            ..LinkPattern::default()
        };
        let into = LinkPattern {
            target: Some(base_uri),
            ..LinkPattern::default()
        };
        let mut removed = run.links_removed;
        removed += tx.remove_links(perspective, out)?;
        removed += tx.remove_links(perspective, into)?;
        let checked = self.check_write(&tx, perspective, &class, base_uri, WriteKind::Remove)?;
        tx.commit()?;
        let mut result = Map::new();
        result.insert("success".into(), true.into());
        result.insert("class_name".into(), class.name.clone().into());
        result.insert("deleted".into(), base_uri.into());
        result.insert("links_removed".into(), removed.into());
        checked.add_to(&mut result);
        Ok(Value::Object(result))
    }

    /// The typed checks inside the call's transaction (references are looked up there too).
    /// When they fail and the engine has more to check (`tx` records the write), the write
    /// goes on with the values that passed, so that its refusal lists both paths' problems.
    fn typed(
        &self,
        tx: &Recorder<'_>,
        perspective: &str,
        class: &Class,
        properties: &Map<String, Value>,
        unset: &[String],
        mode: Mode,
    ) -> Result<Typed, ToolError> {
        let mut references = |iri: &str, target: &str| self.reference_state(tx, perspective, iri, target);
        let problems = match self.fixed.compiled_class(&class.name) {
            // Generated code: the same structure, the checks of each value compiled in.
            Some(compiled) => check_compiled(compiled, class, properties, unset, mode, &mut references)?,
            None => super::validate::interpret_values(class, properties, unset, mode, &mut references)?,
        };
        if !problems.is_empty() && !tx.is_recording() {
            return Err(class_envelope(class, problems));
        }
        Ok(Typed::new(problems))
    }

    pub(crate) fn reference_state(
        &self,
        tx: &dyn ReadTx,
        perspective: &str,
        iri: &str,
        target: &str,
    ) -> Result<RefState, StoreError> {
        let class = match self.class(tx, perspective, target) {
            Ok(c) => c,
            Err(ToolError::Internal(e)) => return Err(StoreError::Database(e)),
            Err(_) => return Ok(RefState::Missing),
        };
        if super::object::is_shacl_instance(tx, perspective, &class, iri)? {
            return Ok(RefState::Instance);
        }
        let any = LinkPattern {
            source: Some(iri),
            ..LinkPattern::default()
        };
        Ok(if tx.count_links(perspective, any)? > 0 {
            RefState::OtherKind
        } else {
            RefState::Missing
        })
    }

    /// The instance must exist as an instance of the class: else the missing-instance answer.
    fn require_instance(&self, tx: &dyn ReadTx, perspective: &str, class: &Class, node: &str) -> Result<(), ToolError> {
        if is_instance(tx, perspective, class, node)? {
            return Ok(());
        }
        Err(missing_instance(perspective, class, node))
    }

    /// The collection named in add/remove, writable, and the item's value checked like any value.
    fn collection_item_check<'c>(
        &self,
        tx: &dyn ReadTx,
        perspective: &str,
        class: &'c Class,
        collection: &str,
        item_value: &Value,
    ) -> Result<&'c Property, ToolError> {
        let collections: Vec<&str> = class
            .visible_properties()
            .filter(|p| p.collection && p.is_writable())
            .map(|p| p.name.as_str())
            .collect();
        let Some(p) = class.visible_properties().find(|p| p.name == collection) else {
            let text = format!("unknown collection (writable collections: {})", or_none(&collections));
            return Err(class_envelope(class, vec![Problem::new(collection, text)]));
        };
        if !p.collection {
            let problem = with_type(
                p,
                Problem::new(&p.name, "not a collection: set it with instance_update"),
            );
            return Err(class_envelope(class, vec![problem]));
        }
        if !p.is_writable() {
            let problem = with_type(
                p,
                Problem::new(
                    &p.name,
                    format!("read-only ({})", p.access.reason().unwrap_or_default()),
                ),
            );
            return Err(class_envelope(class, vec![problem]));
        }
        let mut references = |iri: &str, target: &str| self.reference_state(tx, perspective, iri, target);
        let index = class.visible_properties().position(|q| q.name == p.name).unwrap_or(0);
        let problems = match self.fixed.compiled_class(&class.name) {
            Some(c) => {
                let mut check = |i: usize, it: &mut Item<'_>, r: &mut ReferenceCheck<'_>| compiled_item(p, c, i, it, r);
                check_single(p, index, item_value, &mut check, &mut references)?
            }
            None => {
                let mut check = |_: usize, it: &mut Item<'_>, r: &mut ReferenceCheck<'_>| interpret_item(p, it, r);
                check_single(p, 0, item_value, &mut check, &mut references)?
            }
        };
        if problems.is_empty() {
            Ok(p)
        } else {
            Err(class_envelope(class, problems))
        }
    }
}

/// The missing-instance answer.
fn missing_instance(perspective: &str, class: &Class, node: &str) -> ToolError {
    ToolError::refused(
        format!("No {} with id '{node}' in perspective '{perspective}'", class.name),
        format!(
            "Call instance_query with class_name \"{}\" to find its instances.",
            class.name
        ),
    )
}

pub(crate) fn class_envelope(class: &Class, problems: Vec<Problem>) -> ToolError {
    ToolError::Invalid(Envelope {
        subject: Subject::Class(class.name.clone()),
        problems,
    })
}

fn or_none(names: &[&str]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// The typed checks' problems of a write the engine checks too (docs/validation.md, One list
/// of problems): the write is made with the values that passed, the engine checks it, and the
/// refusal lists the typed problems, then the engine's on every property the typed checks let
/// through (a result on a left-out property would only restate its typed problem).
struct Typed {
    problems: Vec<Problem>,
    /// The properties (and arguments) with a typed problem.
    failed: HashSet<String>,
}

impl Typed {
    fn new(problems: Vec<Problem>) -> Typed {
        let failed = problems
            .iter()
            .map(|p| p.property.split('[').next().unwrap_or_default().to_string())
            .collect();
        Typed { problems, failed }
    }

    fn passed(&self) -> bool {
        self.problems.is_empty()
    }

    /// The given values without those with a typed problem (borrowed when there is none).
    fn kept<'a>(&self, given: &'a Map<String, Value>) -> Cow<'a, Map<String, Value>> {
        if self.passed() {
            return Cow::Borrowed(given);
        }
        let keep = |(k, _): &(&String, &Value)| !self.failed.contains(k.as_str());
        Cow::Owned(given.iter().filter(keep).map(|(k, v)| (k.clone(), v.clone())).collect())
    }

    /// The names to unset without those with a typed problem.
    fn kept_names<'a>(&self, names: &'a [String]) -> Cow<'a, [String]> {
        if self.passed() {
            return Cow::Borrowed(names);
        }
        Cow::Owned(
            names
                .iter()
                .filter(|n| !self.failed.contains(n.as_str()))
                .cloned()
                .collect(),
        )
    }

    /// The outcome of the write: the engine's answer when the typed checks passed; otherwise
    /// the one envelope of both (the caller then drops the transaction: nothing is written).
    fn settle(self, class: &Class, engine: Result<Checked, ToolError>) -> Result<Checked, ToolError> {
        if self.passed() {
            return engine;
        }
        let mut problems = self.problems;
        match engine {
            Ok(_) => {}
            Err(ToolError::Invalid(envelope)) => problems.extend(
                envelope
                    .problems
                    .into_iter()
                    .filter(|p| !self.failed.contains(&p.property)),
            ),
            Err(other) => return Err(other),
        }
        Err(class_envelope(class, problems))
    }
}
