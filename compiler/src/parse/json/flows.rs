//! The `flows` of a DNA document, read as strictly as the classes: an unknown key, a missing
//! required key or a value of the wrong JSON type is a diagnostic with its JSON pointer.

use serde_json::{Map, Value};

use super::{Reader, kind};
use crate::diagnostic::Diagnostic;
use crate::model::{Anchor, LinkedTo};
use crate::shape::{FlowShape, Origin, QueryShape, RoleShape, RuleShape, Spanned, StateShape, TransitionShape};

const FLOW_KEYS: &[&str] = &[
    "name",
    "namespace",
    "interpretation_hint",
    "input_types",
    "states",
    "transitions",
    "start_actions",
    "consensus",
];
const STATE_KEYS: &[&str] = &["name", "value", "interpretation_hint", "requires", "consensus"];
const TRANSITION_KEYS: &[&str] = &["action_name", "from_state", "to_state", "actions", "description"];
const QUERY_KEYS: &[&str] = &["class_name", "where", "count", "linked_to"];
const COUNT_KEYS: &[&str] = &["min", "max"];
const LINKED_TO_KEYS: &[&str] = &["via", "to"];
const RULE_KEYS: &[&str] = &["n", "from_role"];
const ROLE_KEYS: &[&str] = &["class_name", "where", "count", "linked_to", "did_property"];

impl Reader {
    /// `"flows": [...]` of a DNA document.
    pub(super) fn flows(&mut self, value: &Value, at: &Origin) -> Vec<FlowShape> {
        let Value::Array(items) = value else {
            self.wrong_type(at, "flows", "an array of flows", value);
            return Vec::new();
        };
        let mut flows = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let here = at.child(i);
            match item {
                Value::Object(o) => flows.push(self.flow(o, &here)),
                other => self.wrong_type(&here, "flow", "an object", other),
            }
        }
        flows
    }

    pub(super) fn flow(&mut self, o: &Map<String, Value>, at: &Origin) -> FlowShape {
        self.unknown_keys(o, at, FLOW_KEYS, "flow", &[]);
        for key in ["name", "namespace", "states", "transitions"] {
            if !o.contains_key(key) {
                self.missing(
                    at,
                    key,
                    "flow",
                    "a flow has `name`, `namespace`, `states` and `transitions`",
                );
            }
        }
        let input_types = o
            .get("input_types")
            .map(|v| self.strings(v, &at.child("input_types"), "input_types"));
        FlowShape {
            origin: at.clone(),
            name: self.string(o, "name", at),
            namespace: self.string(o, "namespace", at),
            interpretation_hint: self.string(o, "interpretation_hint", at),
            input_types,
            states: self.list(o, "states", at, "state", Self::state),
            transitions: self.list(o, "transitions", at, "transition", Self::transition),
            start_actions: self.actions(o, "start_actions", at).unwrap_or_default(),
            consensus: self.object(o, "consensus", at).map(|(r, here)| self.rule(r, &here)),
        }
    }

    fn state(&mut self, o: &Map<String, Value>, at: &Origin) -> StateShape {
        self.unknown_keys(o, at, STATE_KEYS, "flow state", &[]);
        for key in ["name", "value"] {
            if !o.contains_key(key) {
                self.missing(
                    at,
                    key,
                    "flow state",
                    "a state has `name` and `value` (a number; the lowest is where a flow starts)",
                );
            }
        }
        StateShape {
            origin: at.clone(),
            name: self.string(o, "name", at),
            value: self.number(o, "value", at),
            interpretation_hint: self.string(o, "interpretation_hint", at),
            requires: self.list(o, "requires", at, "query", Self::query),
            consensus: self.object(o, "consensus", at).map(|(r, here)| self.rule(r, &here)),
        }
    }

    fn transition(&mut self, o: &Map<String, Value>, at: &Origin) -> TransitionShape {
        self.unknown_keys(o, at, TRANSITION_KEYS, "flow transition", &[]);
        for key in ["action_name", "from_state", "to_state", "actions"] {
            if !o.contains_key(key) {
                self.missing(
                    at,
                    key,
                    "flow transition",
                    "a transition has `action_name`, `from_state`, `to_state` and `actions` (which may be empty)",
                );
            }
        }
        TransitionShape {
            origin: at.clone(),
            action_name: self.spanned_string(o, "action_name", at),
            from_state: self.spanned_string(o, "from_state", at),
            to_state: self.spanned_string(o, "to_state", at),
            actions: self.actions(o, "actions", at).unwrap_or_default(),
            description: self.string(o, "description", at),
        }
    }

    fn query(&mut self, o: &Map<String, Value>, at: &Origin) -> QueryShape {
        self.unknown_keys(o, at, QUERY_KEYS, "flow query", &[]);
        self.query_fields(o, at)
    }

    /// The keys a query and a role share.
    fn query_fields(&mut self, o: &Map<String, Value>, at: &Origin) -> QueryShape {
        if !o.contains_key("class_name") {
            self.missing(
                at,
                "class_name",
                "flow query",
                "name the class whose instances the query counts",
            );
        }
        let (min, max) = match self.object(o, "count", at) {
            Some((c, here)) => {
                self.unknown_keys(c, &here, COUNT_KEYS, "count", &[]);
                (self.count(c, "min", &here), self.count(c, "max", &here))
            }
            None => (None, None),
        };
        QueryShape {
            origin: at.clone(),
            class_name: self.spanned_string(o, "class_name", at),
            filter: self
                .object(o, "where", at)
                .map(|(w, here)| Spanned::new(w.clone(), here)),
            min,
            max,
            linked_to: o
                .get("linked_to")
                .and_then(|v| self.linked_to(v, &at.child("linked_to"))),
        }
    }

    fn linked_to(&mut self, v: &Value, at: &Origin) -> Option<LinkedTo> {
        match v {
            Value::String(s) => self.anchor(s, at).map(|to| LinkedTo { via: None, to }),
            Value::Object(o) => {
                self.unknown_keys(o, at, LINKED_TO_KEYS, "linked_to", &[]);
                for key in ["via", "to"] {
                    if !o.contains_key(key) {
                        self.missing(
                            at,
                            key,
                            "linked_to",
                            "write `{ \"via\": \"app://predicate\", \"to\": \"subject\" }`",
                        );
                    }
                }
                let via = self.string(o, "via", at)?;
                let to = self.string(o, "to", at)?;
                let to = self.anchor(&to, &at.child("to"))?;
                Some(LinkedTo { via: Some(via), to })
            }
            other => {
                self.wrong_type(at, "linked_to", "\"subject\", \"flow\" or `{ via, to }`", other);
                None
            }
        }
    }

    fn anchor(&mut self, s: &str, at: &Origin) -> Option<Anchor> {
        match s {
            "subject" => Some(Anchor::Subject),
            "flow" => Some(Anchor::Flow),
            other => {
                self.diags.push(
                    Diagnostic::error(
                        "invalid-value",
                        at.clone(),
                        format!("`{other}` is not \"subject\" or \"flow\""),
                    )
                    .help("link a query to the flow's subject (\"subject\") or to its instance node (\"flow\")"),
                );
                None
            }
        }
    }

    fn rule(&mut self, o: &Map<String, Value>, at: &Origin) -> RuleShape {
        self.unknown_keys(o, at, RULE_KEYS, "consensus rule", &[]);
        let from_role = self.object(o, "from_role", at).map(|(r, here)| {
            self.unknown_keys(r, &here, ROLE_KEYS, "from_role", &[]);
            if !r.contains_key("did_property") {
                self.missing(
                    &here,
                    "did_property",
                    "from_role",
                    "name the property that holds each member's DID",
                );
            }
            RoleShape {
                query: self.query_fields(r, &here),
                did_property: self.spanned_string(r, "did_property", &here),
            }
        });
        RuleShape {
            origin: at.clone(),
            n: self.count(o, "n", at),
            from_role,
        }
    }

    /// An array of objects under `key`, each read by `read`.
    fn list<T>(
        &mut self,
        o: &Map<String, Value>,
        key: &str,
        at: &Origin,
        what: &str,
        read: fn(&mut Self, &Map<String, Value>, &Origin) -> T,
    ) -> Vec<T> {
        let here = at.child(key);
        match o.get(key) {
            None => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| match item {
                    Value::Object(m) => Some(read(self, m, &here.child(i))),
                    other => {
                        self.wrong_type(&here.child(i), what, "an object", other);
                        None
                    }
                })
                .collect(),
            Some(other) => {
                self.wrong_type(&here, key, &format!("an array of {what} objects"), other);
                Vec::new()
            }
        }
    }

    fn object<'v>(
        &mut self,
        o: &'v Map<String, Value>,
        key: &str,
        at: &Origin,
    ) -> Option<(&'v Map<String, Value>, Origin)> {
        match o.get(key)? {
            Value::Object(m) => Some((m, at.child(key))),
            other => {
                self.wrong_type(&at.child(key), key, "an object", other);
                None
            }
        }
    }

    fn strings(&mut self, v: &Value, at: &Origin, key: &str) -> Vec<Spanned<String>> {
        let Value::Array(items) = v else {
            self.wrong_type(at, key, "an array of strings", v);
            return Vec::new();
        };
        items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| match item {
                Value::String(s) => Some(Spanned::new(s.clone(), at.child(i))),
                other => {
                    self.wrong_type(&at.child(i), key, "a string", other);
                    None
                }
            })
            .collect()
    }
}

/// Reads one flow given on its own (add_flow): an object, or JSON text holding one.
pub fn parse_flow(value: &Value) -> (Option<FlowShape>, crate::diagnostic::Diagnostics) {
    let mut reader = Reader::default();
    let parsed;
    let object = match value {
        Value::Object(o) => o,
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(o)) => {
                parsed = o;
                &parsed
            }
            Ok(other) => return (None, not_a_flow(reader, &other)),
            Err(e) => {
                reader.diags.push(Diagnostic::error(
                    "syntax",
                    Origin::pointer(""),
                    format!("not valid JSON: {e}"),
                ));
                return (None, reader.diags);
            }
        },
        other => return (None, not_a_flow(reader, other)),
    };
    let flow = reader.flow(object, &Origin::pointer(""));
    (Some(flow), reader.diags)
}

fn not_a_flow(mut reader: Reader, found: &Value) -> crate::diagnostic::Diagnostics {
    reader.diags.push(
        Diagnostic::error(
            "invalid-type",
            Origin::pointer(""),
            format!("a flow must be a JSON object, found {}", kind(found)),
        )
        .help("write `{ \"name\", \"namespace\", \"states\": [...], \"transitions\": [...] }`"),
    );
    reader.diags
}
