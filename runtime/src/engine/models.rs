//! add_model and describe_perspective: classes added at run time, and the schema an agent
//! reads before it writes.

use std::sync::Arc;

use serde_json::{Value, json};
use shacl_mcp_compiler::describe::{USAGE, class_json};
use shacl_mcp_compiler::model::{Class, Flow, local_name};
use shacl_mcp_compiler::parse::json::parse_json;

use super::Engine;
use super::error::{Problem, ToolError};
use crate::store::StoredModel;

impl Engine {
    /// `add_model`: `{ success, perspective_id, class_name, replaced }`. The shape is checked
    /// with the fixed DNA and the perspective's other models, as a build would check it.
    pub fn add_model(&self, perspective: &str, class_name: &str, shacl_json: &Value) -> Result<Value, ToolError> {
        let text = match shacl_json {
            Value::String(s) => s.clone(),
            Value::Object(_) => shacl_json.to_string(),
            _ => {
                let problem = Problem::new("shacl_json", "expects a JSON string or an object").received(shacl_json);
                return Err(ToolError::invalid_arguments("add_model", vec![problem]));
            }
        };
        let (document, diags) = parse_json(&text);
        let refused = |problems: Vec<String>| {
            ToolError::refused(
                format!(
                    "Model for class '{class_name}' refused ({}): {}",
                    count(problems.len()),
                    problems.join("; ")
                ),
                "Fix the shape and call add_model again: one class shape { target_class, properties, ... } as AD4M's SHACL JSON.",
            )
        };
        if diags.has_errors() {
            return Err(refused(diags.iter().filter(|d| d.is_error()).map(describe).collect()));
        }
        let Some(mut shape) = document.and_then(|d| {
            if d.classes.len() == 1 {
                d.classes.into_iter().next()
            } else {
                None
            }
        }) else {
            return Err(refused(vec![
                "shacl_json must hold exactly one class shape".to_string(),
            ]));
        };
        let name = shape
            .target_class
            .as_deref()
            .map(local_name)
            .unwrap_or_default()
            .to_string();
        if self.fixed.has_class(&name) || self.fixed.has_class(class_name) {
            let fixed = if self.fixed.has_class(&name) { &name } else { class_name };
            return Err(ToolError::refused(
                format!("Class '{fixed}' is part of this server's fixed DNA and cannot be replaced at run time"),
                "Choose another class name; the fixed DNA's classes are in every perspective already (describe_perspective lists them).",
            ));
        }
        shape.class_name = Some(class_name.to_string());

        let mut tx = self.write()?;
        self.require_perspective(&*tx, perspective)?;
        let mut shapes = self.fixed.shapes().to_vec();
        for model in tx.models(perspective)? {
            if model.class_name == name {
                continue;
            }
            if let Some(other) = parse_json(&model.shacl_json)
                .0
                .and_then(|d| d.classes.into_iter().next())
            {
                shapes.push(other);
            }
        }
        shapes.push(shape);
        let document = shacl_mcp_compiler::shape::ShapeDocument {
            format: shacl_mcp_compiler::shape::SourceFormat::Json,
            name: Some(self.fixed.name().to_string()),
            description: None,
            classes: shapes,
            flows: Vec::new(),
            enforced: Vec::new(),
        };
        let (_, diags) = shacl_mcp_compiler::check::check(&document, self.fixed.name());
        let mine: Vec<String> = diags
            .iter()
            .filter(|d| d.is_error() && d.class.as_deref().is_none_or(|c| c == name || c == class_name))
            .map(describe)
            .collect();
        if !mine.is_empty() {
            return Err(refused(mine));
        }
        let replaced = tx.put_model(
            perspective,
            &StoredModel {
                class_name: name.clone(),
                shacl_json: text,
            },
        )?;
        tx.commit()?;
        self.registered
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(perspective);
        Ok(json!({ "success": true, "perspective_id": perspective, "class_name": name, "replaced": replaced }))
    }

    /// `describe_perspective`: `{ perspective_id, name, neighbourhood, classes, usage }`.
    pub fn describe_perspective(&self, perspective: &str) -> Result<Value, ToolError> {
        let tx = self.store.read()?;
        let p = self.require_perspective(&*tx, perspective)?;
        let flows = self.flows(&*tx, perspective)?;
        let classes: Vec<Value> = self
            .classes(&*tx, perspective)?
            .iter()
            .map(|c| with_flows(class_json(c), c, &flows))
            .collect();
        Ok(json!({
            "perspective_id": p.uuid,
            "name": p.name,
            "neighbourhood": p.neighbourhood,
            "classes": classes,
            "usage": USAGE,
        }))
    }

    /// Forgets the parsed models of a perspective (after add_model here or elsewhere).
    pub fn invalidate_models(&self, perspective: &str) {
        self.registered
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(perspective);
    }
}

/// A class's description with the flows its instances may enter (`flows`, when there are any):
/// names, states and transitions, so an agent learns them in the call it makes first.
fn with_flows(mut described: Value, class: &Class, flows: &[Arc<Flow>]) -> Value {
    let enters = |f: &&Arc<Flow>| {
        f.accepts_any()
            || f.input_types
                .iter()
                .any(|t| *t == class.name || class.parents.contains(t))
    };
    let listed: Vec<Value> = flows
        .iter()
        .filter(enters)
        .map(|f| {
            let states: Vec<&str> = f.states.iter().map(|s| s.name.as_str()).collect();
            let transitions: Vec<Value> = f
                .transitions
                .iter()
                .map(|t| json!({ "action_name": t.action_name, "from_state": t.from_state, "to_state": t.to_state }))
                .collect();
            json!({ "name": f.name, "states": states, "transitions": transitions })
        })
        .collect();
    if let (Some(o), false) = (described.as_object_mut(), listed.is_empty()) {
        o.insert("flows".into(), listed.into());
    }
    described
}

fn describe(d: &shacl_mcp_compiler::Diagnostic) -> String {
    let mut text = match &d.property {
        Some(p) => format!("{p}: {}", d.message),
        None => d.message.clone(),
    };
    if let Some(help) = &d.help {
        text.push_str(&format!(" ({help})"));
    }
    text
}

fn count(n: usize) -> String {
    if n == 1 {
        "1 problem".to_string()
    } else {
        format!("{n} problems")
    }
}
