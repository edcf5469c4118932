//! A flow back in the DNA's JSON form: what add_flow stores with the definition links (so the
//! flow reads back whole), the `ad4m://requires` and `ad4m://transitionActions` literals, and
//! get_flows. Keys in the order the DNA writes them; defaults are left out.

use serde_json::{Map, Value, json};

use super::{Flow, FlowState, LinkedTo, Query, Rule, Transition};
use crate::model::Action;

impl Flow {
    /// The whole flow as a DNA would write it; [`crate::parse::json::parse_flow`] reads it back.
    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert("name".into(), self.name.clone().into());
        o.insert("namespace".into(), self.namespace.clone().into());
        if let Some(hint) = &self.interpretation_hint {
            o.insert("interpretation_hint".into(), hint.clone().into());
        }
        o.insert("input_types".into(), self.input_types_json());
        o.insert("states".into(), self.states.iter().map(FlowState::to_json).collect());
        o.insert(
            "transitions".into(),
            self.transitions.iter().map(Transition::to_json).collect(),
        );
        if !self.start_actions.is_empty() {
            o.insert("start_actions".into(), actions_json(&self.start_actions));
        }
        if let Some(rule) = &self.consensus {
            o.insert("consensus".into(), rule.to_json());
        }
        Value::Object(o)
    }

    /// `["any"]` for a flow any node may enter, else the class names.
    pub fn input_types_json(&self) -> Value {
        if self.input_types.is_empty() {
            json!(["any"])
        } else {
            json!(self.input_types)
        }
    }
}

impl FlowState {
    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert("name".into(), self.name.clone().into());
        o.insert("value".into(), Value::Number(self.value.clone()));
        if let Some(hint) = &self.interpretation_hint {
            o.insert("interpretation_hint".into(), hint.clone().into());
        }
        if !self.requires.is_empty() {
            o.insert("requires".into(), self.requires_json());
        }
        if let Some(rule) = &self.consensus {
            o.insert("consensus".into(), rule.to_json());
        }
        Value::Object(o)
    }

    /// The guards as one JSON array (`ad4m://requires`).
    pub fn requires_json(&self) -> Value {
        self.requires.iter().map(Query::to_json).collect()
    }
}

impl Transition {
    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert("action_name".into(), self.action_name.clone().into());
        o.insert("from_state".into(), self.from_state.clone().into());
        o.insert("to_state".into(), self.to_state.clone().into());
        o.insert("actions".into(), actions_json(&self.actions));
        if let Some(d) = &self.description {
            o.insert("description".into(), d.clone().into());
        }
        Value::Object(o)
    }
}

impl Query {
    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        self.write_into(&mut o);
        Value::Object(o)
    }

    fn write_into(&self, o: &mut Map<String, Value>) {
        o.insert("class_name".into(), self.class_name.clone().into());
        if !self.filter.is_empty() {
            o.insert("where".into(), Value::Object(self.filter.clone()));
        }
        if self.min != 1 || self.max.is_some() {
            let mut count = Map::new();
            count.insert("min".into(), self.min.into());
            if let Some(max) = self.max {
                count.insert("max".into(), max.into());
            }
            o.insert("count".into(), Value::Object(count));
        }
        if let Some(linked) = &self.linked_to {
            o.insert("linked_to".into(), linked.to_json());
        }
    }

    /// What the query asks, for a reason a step is blocked: `at least 1 Review where {..}
    /// linked to the subject`.
    pub fn describe(&self) -> String {
        let amount = match (self.min, self.max) {
            (min, None) => format!("at least {min}"),
            (min, Some(max)) if min == max => format!("exactly {min}"),
            (0, Some(max)) => format!("at most {max}"),
            (min, Some(max)) => format!("between {min} and {max}"),
        };
        let mut text = format!("{amount} {}", self.class_name);
        if !self.filter.is_empty() {
            text.push_str(&format!(" where {}", Value::Object(self.filter.clone())));
        }
        if let Some(linked) = &self.linked_to {
            match &linked.via {
                Some(via) => text.push_str(&format!(" linked to the {} by {via}", linked.to.as_str())),
                None => text.push_str(&format!(" linked to the {}", linked.to.as_str())),
            }
        }
        text
    }
}

impl LinkedTo {
    fn to_json(&self) -> Value {
        match &self.via {
            None => self.to.as_str().into(),
            Some(via) => json!({ "via": via, "to": self.to.as_str() }),
        }
    }
}

impl Rule {
    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert("n".into(), self.n.into());
        if let Some(role) = &self.from_role {
            let mut r = Map::new();
            role.query.write_into(&mut r);
            r.insert("did_property".into(), role.did_property.clone().into());
            o.insert("from_role".into(), Value::Object(r));
        }
        Value::Object(o)
    }
}

/// Actions as the DNA writes them (`local` only when set).
pub fn actions_json(actions: &[Action]) -> Value {
    actions
        .iter()
        .map(|a| {
            let mut o = Map::new();
            o.insert("action".into(), a.kind.as_str().into());
            o.insert("source".into(), a.source.clone().into());
            o.insert("predicate".into(), a.predicate.clone().into());
            o.insert("target".into(), a.target.clone().into());
            if a.local {
                o.insert("local".into(), true.into());
            }
            Value::Object(o)
        })
        .collect()
}
