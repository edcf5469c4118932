//! Flows in the model: checked state machines over instances (the subject), with guards on
//! the states and consensus rules, and the IRIs of AD4M's link layout for their definitions.

use serde_json::{Map, Number, Value};

use super::Action;

mod json;

pub use json::actions_json;

/// The predicates and types of AD4M's flow layout, and this server's additions.
pub mod vocab {
    pub const FLOW: &str = "ad4m://Flow";
    pub const FLOW_NAME: &str = "ad4m://flowName";
    pub const HAS_STATE: &str = "ad4m://hasState";
    pub const STATE_NAME: &str = "ad4m://stateName";
    pub const STATE_VALUE: &str = "ad4m://stateValue";
    pub const REQUIRES: &str = "ad4m://requires";
    pub const HAS_TRANSITION: &str = "ad4m://hasTransition";
    pub const ACTION_NAME: &str = "ad4m://actionName";
    pub const FROM_STATE: &str = "ad4m://fromState";
    pub const TO_STATE: &str = "ad4m://toState";
    pub const TRANSITION_ACTIONS: &str = "ad4m://transitionActions";
    /// The whole flow as JSON text: what add_flow was given, so every key is kept.
    pub const FLOW_DEFINITION: &str = "ad4m://flowDefinition";
    pub const FLOW_INSTANCE: &str = "ad4m://FlowInstance";
    pub const INSTANCE_FLOW: &str = "ad4m://flow";
    pub const SUBJECT: &str = "ad4m://subject";
    pub const CURRENT_STATE: &str = "ad4m://currentState";
    pub const TRANSITION_RECORD: &str = "ad4m://FlowTransitionRecord";
    pub const HAS_RECORD: &str = "ad4m://hasTransitionRecord";
    pub const RECORD_AUTHOR: &str = "ad4m://author";
    /// `instance —ad4m://proposal→ transition IRI`, signed by the agent that proposes the step.
    pub const PROPOSAL: &str = "ad4m://proposal";
}

/// A flow: `{namespace}{name}Flow` in the graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Flow {
    pub name: String,
    pub namespace: String,
    pub interpretation_hint: Option<String>,
    /// Class names a subject must be an instance of (one of them); empty means any node.
    pub input_types: Vec<String>,
    /// In declaration order.
    pub states: Vec<FlowState>,
    pub transitions: Vec<Transition>,
    /// Run on the subject when the flow starts.
    pub start_actions: Vec<Action>,
    /// The flow's rule, for states without one of their own.
    pub consensus: Option<Rule>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FlowState {
    pub name: String,
    pub value: Number,
    pub interpretation_hint: Option<String>,
    /// Every query must hold on the graph after a step's actions for the step to enter here.
    pub requires: Vec<Query>,
    pub consensus: Option<Rule>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Transition {
    pub action_name: String,
    pub from_state: String,
    pub to_state: String,
    pub actions: Vec<Action>,
    pub description: Option<String>,
}

/// How many instances of a class, matching a filter, and linked how.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    pub class_name: String,
    /// An instance_query filter; strings may use `$flow.subject`, `$flow.instance`, `$did`.
    pub filter: Map<String, Value>,
    pub min: u64,
    pub max: Option<u64>,
    pub linked_to: Option<LinkedTo>,
}

/// Which node a query's instances must be linked to (a link either way), and by what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkedTo {
    /// `None`: any predicate.
    pub via: Option<String>,
    pub to: Anchor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    Subject,
    Flow,
}

impl Anchor {
    pub fn as_str(self) -> &'static str {
        match self {
            Anchor::Subject => "subject",
            Anchor::Flow => "flow",
        }
    }
}

/// A consensus rule: `n` distinct agents propose the step before it happens.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    pub n: u64,
    pub from_role: Option<Role>,
}

/// Only proposals by the DIDs in `did_property` of the query's instances count.
#[derive(Clone, Debug, PartialEq)]
pub struct Role {
    pub query: Query,
    pub did_property: String,
}

impl Flow {
    /// `{namespace}{Name}Flow`.
    pub fn iri(&self) -> String {
        format!("{}{}Flow", self.namespace, self.name)
    }

    /// `{namespace}{Name}.{state}`.
    pub fn state_iri(&self, state: &str) -> String {
        format!("{}{}.{state}", self.namespace, self.name)
    }

    /// `{namespace}{Name}.{from}To{to}`.
    pub fn transition_iri(&self, t: &Transition) -> String {
        format!("{}{}.{}To{}", self.namespace, self.name, t.from_state, t.to_state)
    }

    pub fn state(&self, name: &str) -> Option<&FlowState> {
        self.states.iter().find(|s| s.name == name)
    }

    /// The state a flow starts in: the lowest value (the first declared among equals).
    pub fn start_state(&self) -> Option<&FlowState> {
        let value = |s: &FlowState| s.value.as_f64().unwrap_or(f64::INFINITY);
        self.states
            .iter()
            .reduce(|best, s| if value(s) < value(best) { s } else { best })
    }

    /// The state whose IRI is `iri`.
    pub fn state_by_iri(&self, iri: &str) -> Option<&FlowState> {
        self.states.iter().find(|s| self.state_iri(&s.name) == iri)
    }

    /// The rule a step into `state` counts proposals under: the state's, else the flow's.
    pub fn rule_for<'a>(&'a self, state: &'a FlowState) -> Option<&'a Rule> {
        state.consensus.as_ref().or(self.consensus.as_ref())
    }

    /// Whether any node may enter (no input types, or `"any"` among them).
    pub fn accepts_any(&self) -> bool {
        self.input_types.is_empty()
    }
}
