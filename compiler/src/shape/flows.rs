//! Flows as written: state machines over instances (`"flows"` beside `"classes"`). Like the
//! rest of [`crate::shape`], nothing here is resolved; [`crate::check`] checks the states,
//! transitions, classes and properties a flow names and builds [`crate::model::Flow`].

use serde_json::{Map, Number};

use super::{ActionShape, Origin, Spanned};
use crate::model::LinkedTo;

/// `{ name, namespace, interpretation_hint?, input_types, states, transitions, start_actions?,
/// consensus? }`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowShape {
    pub origin: Origin,
    pub name: Option<String>,
    pub namespace: Option<String>,
    pub interpretation_hint: Option<String>,
    /// Class names, or `"any"`; `None` when the key is absent (read as `["any"]`).
    pub input_types: Option<Vec<Spanned<String>>>,
    pub states: Vec<StateShape>,
    pub transitions: Vec<TransitionShape>,
    pub start_actions: Vec<ActionShape>,
    pub consensus: Option<RuleShape>,
}

/// `{ name, value, interpretation_hint?, requires?, consensus? }`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StateShape {
    pub origin: Origin,
    pub name: Option<String>,
    pub value: Option<Number>,
    pub interpretation_hint: Option<String>,
    pub requires: Vec<QueryShape>,
    pub consensus: Option<RuleShape>,
}

/// `{ action_name, from_state, to_state, actions, description? }`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TransitionShape {
    pub origin: Origin,
    pub action_name: Option<Spanned<String>>,
    pub from_state: Option<Spanned<String>>,
    pub to_state: Option<Spanned<String>>,
    pub actions: Vec<ActionShape>,
    pub description: Option<String>,
}

/// `{ class_name, where?, count?: { min?, max? }, linked_to? }`: a guard, or who may vote.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueryShape {
    pub origin: Origin,
    pub class_name: Option<Spanned<String>>,
    /// An instance_query filter, kept as written (its keys are checked against the class).
    pub filter: Option<Spanned<Map<String, serde_json::Value>>>,
    pub min: Option<u64>,
    pub max: Option<u64>,
    pub linked_to: Option<LinkedTo>,
}

/// `{ n?, from_role?: query + did_property }`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RuleShape {
    pub origin: Origin,
    pub n: Option<u64>,
    pub from_role: Option<RoleShape>,
}

/// The agents whose proposals count: the values of `did_property` of the query's instances.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RoleShape {
    pub query: QueryShape,
    pub did_property: Option<Spanned<String>>,
}
