//! The typed API of a compiled class: what generated code declares and this module does.
//!
//! A generated class is a struct, its `CreateArgs`, an impl of [`Model`] (two constants) and a
//! handle per property ([`Scalar`] or [`Collection`]); every method lives here once, over the
//! same engine entry points the MCP tools call, so a typed call cannot mean anything else than
//! the tool call it stands for.
//!
//! ```ignore
//! use tasks::task::{Status, Task};
//! use shacl_mcp::typed::Model;
//!
//! let task = Task::create(&engine, &pid, &task::CreateArgs::new("Write the report".into()))?;
//! Task::STATUS.set(&engine, &pid, &task.id, Status::Done)?;
//! let done = Task::query()
//!     .filter(Task::STATUS.eq(Status::Done))
//!     .filter(Task::PRIORITY.gte(3))
//!     .newest_first()
//!     .limit(10)
//!     .fetch(&engine, &pid)?;
//! ```

use std::marker::PhantomData;

mod checked;
pub use checked::{Checked, Rule};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::engine::{Engine, ItemChange, Order, QueryArgs, ToolError};

/// A class compiled into Rust. Generated code implements the constants; the methods are the
/// engine's, through the tools' entry points.
pub trait Model: Serialize + DeserializeOwned {
    /// The class name the tools take as `class_name`.
    const CLASS_NAME: &'static str;
    /// The arguments of its create tool (the property values; the instance's own IRI and
    /// parent optional).
    type Create: Serialize;

    /// `<class>_create`: validates and writes the instance, and reads it back in the same
    /// transaction.
    fn create(engine: &Engine, perspective_id: &str, args: &Self::Create) -> Result<Self, ToolError> {
        let mut properties = to_map(args)?;
        // The properties not given (generated `CreateArgs` write them as null and []).
        properties.retain(|_, v| !(v.is_null() || v.as_array().is_some_and(Vec::is_empty)));
        let text = |m: &mut Map<String, Value>, k: &str| match m.remove(k) {
            Some(Value::String(s)) => Some(s),
            _ => None,
        };
        let address = text(&mut properties, "expression_address");
        let parent = text(&mut properties, "parent");
        let instance = engine.instance_create_read_back(
            perspective_id,
            Self::CLASS_NAME,
            &properties,
            address.as_deref(),
            parent.as_deref(),
        )?;
        from_value(instance)
    }

    /// `<class>_get`: one instance.
    fn get(engine: &Engine, perspective_id: &str, id: &str) -> Result<Self, ToolError> {
        from_value(engine.instance_get(perspective_id, Self::CLASS_NAME, id)?)
    }

    /// `<class>_delete`: runs the destructor, then removes every link in or out of the
    /// instance.
    fn delete(engine: &Engine, perspective_id: &str, id: &str) -> Result<(), ToolError> {
        engine.instance_remove(perspective_id, Self::CLASS_NAME, id).map(drop)
    }

    /// A query of this class: every instance until filtered, oldest first, 100 a page.
    fn query() -> Query<Self>
    where
        Self: Sized,
    {
        Query::default()
    }
}

/// A page of a query: the instances and how many match over all pages.
#[derive(Clone, Debug, PartialEq)]
pub struct Page<M> {
    pub instances: Vec<M>,
    pub total_count: u64,
}

/// A typed `instance_query`: conditions combined with AND, an order and a page.
#[derive(Clone, Debug)]
pub struct Query<M> {
    conditions: Vec<Condition<M>>,
    parent: Option<String>,
    limit: Option<u64>,
    offset: Option<u64>,
    order: Order,
}

impl<M> Default for Query<M> {
    fn default() -> Self {
        Query {
            conditions: Vec::new(),
            parent: None,
            limit: None,
            offset: None,
            order: Order::OldestFirst,
        }
    }
}

impl<M: Model> Query<M> {
    /// Only instances meeting `condition` (and every other one given).
    pub fn filter(mut self, condition: Condition<M>) -> Self {
        self.conditions.push(condition);
        self
    }

    /// Only instances under `parent` (by `ad4m://has_child`).
    pub fn under(mut self, parent: impl Into<String>) -> Self {
        self.parent = Some(parent.into());
        self
    }

    /// Newest first (by creation); the default is oldest first.
    pub fn newest_first(mut self) -> Self {
        self.order = Order::NewestFirst;
        self
    }

    /// Page size, 1 to 500 (default 100).
    pub fn limit(mut self, limit: u64) -> Self {
        self.limit = Some(limit);
        self
    }

    /// How many matches to skip.
    pub fn offset(mut self, offset: u64) -> Self {
        self.offset = Some(offset);
        self
    }

    /// The `filter` of `instance_query` this query stands for (`None` without conditions).
    pub fn filter_json(&self) -> Option<Map<String, Value>> {
        let mut conditions: Vec<Value> = self.conditions.iter().map(|c| c.json.clone()).collect();
        match conditions.len() {
            0 => None,
            1 => match conditions.pop() {
                Some(Value::Object(map)) => Some(map),
                _ => None,
            },
            _ => Some(Map::from_iter([("AND".to_string(), Value::Array(conditions))])),
        }
    }

    /// The arguments of `instance_query` this query stands for.
    pub fn args(&self) -> QueryArgs {
        QueryArgs {
            filter: self.filter_json(),
            parent: self.parent.clone(),
            limit: self.limit,
            offset: self.offset,
            order: self.order,
        }
    }

    /// Runs the query: one page and the count of all matches.
    pub fn fetch(&self, engine: &Engine, perspective_id: &str) -> Result<Page<M>, ToolError> {
        let mut result = engine.instance_query(perspective_id, M::CLASS_NAME, &self.args())?;
        let total_count = result.get("total_count").and_then(Value::as_u64).unwrap_or_default();
        let instances = result.get_mut("instances").map(Value::take).unwrap_or_default();
        Ok(Page {
            instances: from_value(instances)?,
            total_count,
        })
    }
}

/// One condition of a query: a JSON filter of `instance_query`, typed by the handle that made it.
#[derive(Debug)]
pub struct Condition<M> {
    json: Value,
    model: PhantomData<fn() -> M>,
}

impl<M> Clone for Condition<M> {
    fn clone(&self) -> Self {
        Condition::new(self.json.clone())
    }
}

impl<M> Condition<M> {
    fn new(json: Value) -> Self {
        Condition {
            json,
            model: PhantomData,
        }
    }

    /// `{property: value}`, or with an operator `{property: {op: value}}`.
    fn on(property: &str, op: Option<&str>, value: &impl Serialize) -> Self {
        let value = to_value(value).unwrap_or(Value::Null);
        match op {
            None => Condition::new(json!({ property: value })),
            Some(op) => Condition::new(json!({ property: { op: value } })),
        }
    }

    /// Either condition.
    pub fn or(self, other: Condition<M>) -> Condition<M> {
        Condition::new(json!({ "OR": [self.json, other.json] }))
    }

    /// The opposite condition.
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Condition<M> {
        Condition::new(json!({ "NOT": self.json }))
    }

    /// The condition as `instance_query` takes it.
    pub fn to_json(&self) -> &Value {
        &self.json
    }
}

/// Values whose order the query's ranges compare (numbers, dates, times), with the type a
/// bound is given in: a checked number's bound is a plain number, in its range or not.
pub trait Ordered {
    type Bound: Serialize;
}

impl Ordered for i64 {
    type Bound = i64;
}
impl Ordered for f64 {
    type Bound = f64;
}
impl Ordered for crate::types::DateTime {
    type Bound = crate::types::DateTime;
}
impl Ordered for crate::types::Date {
    type Bound = crate::types::Date;
}
impl Ordered for crate::types::Time {
    type Bound = crate::types::Time;
}

/// Values made of text (strings, and checked strings), which `contains` searches.
pub trait Text {}

impl Text for String {}
impl Text for crate::types::Iri {}

/// A scalar property of `M` with values of type `V`: set, clear and filter by it.
pub struct Scalar<M, V> {
    name: &'static str,
    types: PhantomData<fn() -> (M, V)>,
}

impl<M, V> Scalar<M, V> {
    /// The handle of the property the DNA names `name`.
    pub const fn new(name: &'static str) -> Self {
        Scalar {
            name,
            types: PhantomData,
        }
    }

    /// The property's name in the DNA (and in the tools).
    pub const fn name(&self) -> &'static str {
        self.name
    }
}

impl<M: Model, V: Serialize> Scalar<M, V> {
    /// `<class>_set_<property>`: sets the value, and answers with the instance as the write
    /// left it, read inside the write's transaction.
    pub fn set(&self, engine: &Engine, perspective_id: &str, id: &str, value: V) -> Result<M, ToolError> {
        let properties = Map::from_iter([(self.name.to_string(), to_value(&value)?)]);
        from_value(engine.instance_update_read_back(perspective_id, M::CLASS_NAME, id, Some(&properties), &[])?)
    }

    /// Clears an optional value (a required one refuses, as the tool does), answering like
    /// [`Scalar::set`].
    pub fn clear(&self, engine: &Engine, perspective_id: &str, id: &str) -> Result<M, ToolError> {
        let unset = [self.name.to_string()];
        from_value(engine.instance_update_read_back(perspective_id, M::CLASS_NAME, id, None, &unset)?)
    }

    /// Instances whose value is `value`.
    pub fn eq(&self, value: V) -> Condition<M> {
        Condition::on(self.name, None, &value)
    }

    /// Instances whose value is one of `values`.
    pub fn any_of(&self, values: impl IntoIterator<Item = V>) -> Condition<M> {
        Condition::on(self.name, None, &values.into_iter().collect::<Vec<V>>())
    }

    /// Instances whose value is not `value`.
    pub fn ne(&self, value: V) -> Condition<M> {
        Condition::on(self.name, Some("not"), &value)
    }
}

impl<M: Model, V: Ordered> Scalar<M, V> {
    /// Instances whose value is greater than `bound`.
    pub fn gt(&self, bound: V::Bound) -> Condition<M> {
        Condition::on(self.name, Some("gt"), &bound)
    }
    /// Instances whose value is at least `bound`.
    pub fn gte(&self, bound: V::Bound) -> Condition<M> {
        Condition::on(self.name, Some("gte"), &bound)
    }
    /// Instances whose value is less than `bound`.
    pub fn lt(&self, bound: V::Bound) -> Condition<M> {
        Condition::on(self.name, Some("lt"), &bound)
    }
    /// Instances whose value is at most `bound`.
    pub fn lte(&self, bound: V::Bound) -> Condition<M> {
        Condition::on(self.name, Some("lte"), &bound)
    }
}

impl<M: Model, V: Text> Scalar<M, V> {
    /// Instances whose text contains `text`.
    pub fn contains(&self, text: &str) -> Condition<M> {
        Condition::on(self.name, Some("contains"), &text)
    }
}

/// A collection property of `M` with items of type `V`.
pub struct Collection<M, V> {
    name: &'static str,
    types: PhantomData<fn() -> (M, V)>,
}

impl<M, V> Collection<M, V> {
    /// The handle of the collection the DNA names `name`.
    pub const fn new(name: &'static str) -> Self {
        Collection {
            name,
            types: PhantomData,
        }
    }

    /// The collection's name in the DNA (and in the tools).
    pub const fn name(&self) -> &'static str {
        self.name
    }
}

impl<M: Model, V: Serialize + DeserializeOwned> Collection<M, V> {
    /// `<class>_add_<collection>`: adds one item (adding one already there changes nothing).
    pub fn add(&self, engine: &Engine, perspective_id: &str, id: &str, item: &V) -> Result<M, ToolError> {
        self.change(engine, perspective_id, id, item, ItemChange::Add)
    }

    /// `<class>_remove_<collection>`: removes one item.
    pub fn remove(&self, engine: &Engine, perspective_id: &str, id: &str, item: &V) -> Result<M, ToolError> {
        self.change(engine, perspective_id, id, item, ItemChange::Remove)
    }

    fn change(
        &self,
        engine: &Engine,
        perspective_id: &str,
        id: &str,
        item: &V,
        change: ItemChange,
    ) -> Result<M, ToolError> {
        let item = to_value(item)?;
        from_value(engine.collection_item_read_back(perspective_id, M::CLASS_NAME, id, self.name, &item, change)?)
    }

    /// Instances with `item` among the collection's items.
    pub fn has(&self, item: V) -> Condition<M> {
        Condition::on(self.name, None, &item)
    }
}

impl<M: Model, V: Text> Collection<M, V> {
    /// Instances with an item containing `text`.
    pub fn any_contains(&self, text: &str) -> Condition<M> {
        Condition::on(self.name, Some("contains"), &text)
    }
}

fn to_value<T: Serialize>(value: &T) -> Result<Value, ToolError> {
    serde_json::to_value(value).map_err(|e| ToolError::Internal(e.to_string()))
}

fn to_map<T: Serialize>(value: &T) -> Result<Map<String, Value>, ToolError> {
    match to_value(value)? {
        Value::Object(map) => Ok(map),
        _ => Err(ToolError::Internal("arguments must serialize to an object".into())),
    }
}

fn from_value<R: DeserializeOwned>(value: Value) -> Result<R, ToolError> {
    serde_json::from_value(value)
        .map_err(|e| ToolError::Internal(format!("the stored instance does not fit its type: {e}")))
}
