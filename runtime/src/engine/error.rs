//! How a tool call fails (docs/errors.md): the validation envelope, a refusal with a hint, or the
//! server's own failure. The MCP layer turns the first two into tool results with `isError`.

use serde_json::{Map, Value};

use crate::store::StoreError;

/// One problem of the validation envelope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The property or argument (`tags[2]` for one item of a collection).
    pub property: String,
    pub problem: String,
    pub expected_type: Option<String>,
    pub cardinality: Option<String>,
    pub received: Option<String>,
    /// The SHACL constraint component broken (`sh:LessThanConstraintComponent`): for every
    /// problem that stands for a SHACL constraint, typed or found by the engine (docs/errors.md).
    pub constraint: Option<String>,
    /// The node whose result it is, for problems the engine finds.
    pub focus_node: Option<String>,
    /// What to do about it, in words.
    pub fix: Option<String>,
}

impl Problem {
    pub fn new(property: impl Into<String>, problem: impl Into<String>) -> Self {
        Problem {
            property: property.into(),
            problem: problem.into(),
            expected_type: None,
            cardinality: None,
            received: None,
            constraint: None,
            focus_node: None,
            fix: None,
        }
    }

    /// The SHACL Core constraint component the problem breaks, with the fix of
    /// [`shacl_mcp_compiler::problems::fix`]; an empty component (a problem of the call's
    /// form) names none.
    pub fn breaks(mut self, component: &str) -> Self {
        if component.is_empty() {
            return self;
        }
        self.fix = Some(shacl_mcp_compiler::problems::fix(component).to_string());
        self.constraint = Some(component.to_string());
        self
    }

    pub fn received(mut self, value: &Value) -> Self {
        self.received = Some(super::values::received(value));
        self
    }

    /// `<property>: <problem> (expected <type>, <cardinality>), received <received>`
    pub fn headline(&self) -> String {
        let mut text = format!("{}: {}", self.property, self.problem);
        match (&self.expected_type, &self.cardinality) {
            (Some(t), Some(c)) => text.push_str(&format!(" (expected {t}, {c})")),
            (Some(t), None) => text.push_str(&format!(" (expected {t})")),
            (None, Some(c)) => text.push_str(&format!(" ({c})")),
            (None, None) => {}
        }
        if let Some(r) = &self.received {
            text.push_str(&format!(", received {r}"));
        }
        text
    }

    fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert("property".into(), self.property.clone().into());
        o.insert("problem".into(), self.problem.clone().into());
        if let Some(t) = &self.expected_type {
            o.insert("expected_type".into(), t.clone().into());
        }
        if let Some(c) = &self.cardinality {
            o.insert("cardinality".into(), c.clone().into());
        }
        if let Some(r) = &self.received {
            o.insert("received".into(), r.clone().into());
        }
        for (key, value) in [
            ("constraint", &self.constraint),
            ("focus_node", &self.focus_node),
            ("fix", &self.fix),
        ] {
            if let Some(v) = value {
                o.insert(key.into(), v.clone().into());
            }
        }
        Value::Object(o)
    }
}

/// Whose envelope: a class's data, or a tool's arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    Class(String),
    Tool(String),
    /// A step of a flow (flow_run_action): its guards, the shapes its actions broke, its rule.
    Flow {
        flow: String,
        action: String,
    },
}

/// The validation envelope: every problem at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Envelope {
    pub subject: Subject,
    pub problems: Vec<Problem>,
}

impl Envelope {
    pub fn to_json(&self) -> Value {
        let n = self.problems.len();
        let count = if n == 1 {
            "1 problem".to_string()
        } else {
            format!("{n} problems")
        };
        let details: Vec<String> = self.problems.iter().map(Problem::headline).collect();
        let mut o = Map::new();
        let (headline, hint) = match &self.subject {
            Subject::Class(c) => (
                format!("Validation failed for class '{c}' ({count}): {}", details.join("; ")),
                "Call describe_perspective for the full schema of this class.",
            ),
            Subject::Tool(t) => (
                format!("Invalid arguments for tool '{t}' ({count}): {}", details.join("; ")),
                "Call tools/list for the tool's input schema.",
            ),
            Subject::Flow { flow, action } => (
                format!(
                    "Action '{action}' of flow '{flow}' refused ({count}): {}",
                    details.join("; ")
                ),
                "Nothing was written. Call flow_actions for what may be done now and why a step is blocked.",
            ),
        };
        o.insert("error".into(), headline.into());
        match &self.subject {
            Subject::Class(c) => o.insert("class_name".into(), c.clone().into()),
            Subject::Tool(t) => o.insert("tool".into(), t.clone().into()),
            Subject::Flow { flow, action } => {
                o.insert("flow_name".into(), flow.clone().into());
                o.insert("action_name".into(), action.clone().into())
            }
        };
        o.insert(
            "validation_errors".into(),
            self.problems.iter().map(Problem::to_json).collect(),
        );
        o.insert("hint".into(), hint.into());
        Value::Object(o)
    }
}

/// Why a tool call did not succeed.
#[derive(Debug)]
pub enum ToolError {
    /// Arguments or data broke the schema or the shape: the validation envelope.
    Invalid(Envelope),
    /// Unknown perspective or class, missing instance, refused add_model, ...: what to do instead.
    Refused { error: String, hint: Option<String> },
    /// The server's own failure (store unavailable, disk full): JSON-RPC -32603.
    Internal(String),
}

impl ToolError {
    pub fn refused(error: impl Into<String>, hint: impl Into<String>) -> Self {
        ToolError::Refused {
            error: error.into(),
            hint: Some(hint.into()),
        }
    }

    pub fn invalid_arguments(tool: &str, problems: Vec<Problem>) -> Self {
        ToolError::Invalid(Envelope {
            subject: Subject::Tool(tool.to_string()),
            problems,
        })
    }

    /// The body of the tool result with `isError: true` (`None` for internal failures).
    pub fn to_json(&self) -> Option<Value> {
        match self {
            ToolError::Invalid(envelope) => Some(envelope.to_json()),
            ToolError::Refused { error, hint } => {
                let mut o = Map::new();
                o.insert("error".into(), error.clone().into());
                if let Some(h) = hint {
                    o.insert("hint".into(), h.clone().into());
                }
                Some(Value::Object(o))
            }
            ToolError::Internal(_) => None,
        }
    }
}

impl From<StoreError> for ToolError {
    fn from(e: StoreError) -> Self {
        ToolError::Internal(e.to_string())
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.to_json() {
            Some(v) => write!(f, "{}", v["error"].as_str().unwrap_or_default()),
            None => match self {
                ToolError::Internal(e) => write!(f, "internal error: {e}"),
                _ => Ok(()),
            },
        }
    }
}

impl std::error::Error for ToolError {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The example of docs/errors.md, byte for byte.
    #[test]
    fn the_spec_example() {
        let envelope = Envelope {
            subject: Subject::Class("Channel".into()),
            problems: vec![
                Problem {
                    expected_type: Some("string".into()),
                    cardinality: Some("exactly one value (minCount 1, maxCount 1)".into()),
                    ..Problem::new("name", "missing required property")
                },
                Problem {
                    expected_type: Some("boolean".into()),
                    cardinality: Some("at most one value (maxCount 1)".into()),
                    ..Problem::new("isPinned", "expects true or false")
                }
                .received(&json!("maybe")),
            ],
        };
        let expected = json!({
          "error": "Validation failed for class 'Channel' (2 problems): name: missing required property (expected string, exactly one value (minCount 1, maxCount 1)); isPinned: expects true or false (expected boolean, at most one value (maxCount 1)), received string \"maybe\"",
          "class_name": "Channel",
          "validation_errors": [
            { "property": "name", "problem": "missing required property", "expected_type": "string", "cardinality": "exactly one value (minCount 1, maxCount 1)" },
            { "property": "isPinned", "problem": "expects true or false", "expected_type": "boolean", "cardinality": "at most one value (maxCount 1)", "received": "string \"maybe\"" }
          ],
          "hint": "Call describe_perspective for the full schema of this class."
        });
        assert_eq!(
            serde_json::to_string(&envelope.to_json()).unwrap(),
            serde_json::to_string(&expected).unwrap()
        );
    }
}
