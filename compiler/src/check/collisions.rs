//! Tool names: two classes or properties mapping to one name, a per-class tool equal to a
//! static tool (a class `Instance` would make `instance_create`), or a name MCP refuses.

use std::collections::HashMap;

use super::Draft;
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::model::Class;
use crate::naming;
use crate::surface::{SurfaceOptions, plan, static_tools};

pub(crate) fn check(classes: &[Class], drafts: &[Draft], diags: &mut Diagnostics) {
    let all_static = SurfaceOptions {
        class_tools: false,
        multi_user: true,
    };
    let statics: Vec<String> = static_tools(all_static).into_iter().map(|t| t.name).collect();
    // tool name → who made it first: (class, property)
    let mut seen: HashMap<String, (String, Option<String>)> = HashMap::new();
    for (class, draft) in classes.iter().zip(drafts) {
        for tool in plan(class) {
            let property = tool.kind.property().map(|p| p.name.clone());
            let who = match &property {
                Some(p) => format!("property `{p}` of class `{}`", class.name),
                None => format!("class `{}`", class.name),
            };
            let origin = draft.shape.origin.clone();
            let with_context = |d: Diagnostic| {
                let d = d.class(&class.name);
                match &property {
                    Some(p) => d.property(p),
                    None => d,
                }
            };
            if let Some(problem) = naming::tool_name_problem(&tool.name) {
                diags.push(with_context(
                    Diagnostic::error(
                        "invalid-tool-name",
                        origin.clone(),
                        format!("tool name `{}` for {who} {problem}", tool.name),
                    )
                    .help("rename the class or property with ASCII letters, digits and `_`"),
                ));
            }
            if statics.contains(&tool.name) {
                diags.push(with_context(
                    Diagnostic::error(
                        "tool-name-collision",
                        origin.clone(),
                        format!("tool `{}` for {who} has the name of a static tool", tool.name),
                    )
                    .help("rename the class so its tools do not collide with the static tools"),
                ));
            } else if let Some((first_class, first_property)) = seen.get(&tool.name) {
                let first = match first_property {
                    Some(p) => format!("property `{p}` of class `{first_class}`"),
                    None => format!("class `{first_class}`"),
                };
                diags.push(with_context(
                    Diagnostic::error(
                        "tool-name-collision",
                        origin.clone(),
                        format!("tool `{}` for {who} has the same name as a tool for {first}", tool.name),
                    )
                    .help("rename one of them: tool names are the snake_case of class and property names"),
                ));
            } else {
                seen.insert(tool.name.clone(), (class.name.clone(), property));
            }
        }
    }
}
