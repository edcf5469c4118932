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
    // Problems are grouped so one class or property with six bad tool names is one diagnostic.
    let mut groups: Vec<Group> = Vec::new();
    let mut seen: HashMap<String, Owner> = HashMap::new();
    for (class, draft) in classes.iter().zip(drafts) {
        for tool in plan(class) {
            let property = tool.kind.property().map(|p| p.name.clone());
            // A property's tools point at its shape when the class declares it.
            let origin = property
                .as_ref()
                .and_then(|name| draft.own.iter().position(|p| &p.name == name))
                .map_or_else(|| draft.shape.origin.clone(), |i| draft.own_shapes[i].origin.clone());
            let owner = Owner {
                class: class.name.clone(),
                property,
                origin,
            };
            let problem = if let Some(problem) = naming::tool_name_problem(&tool.name) {
                Problem::Invalid(problem)
            } else if statics.contains(&tool.name) {
                Problem::Static
            } else if let Some(first) = seen.get(&tool.name) {
                Problem::Taken(first.describe())
            } else {
                seen.insert(tool.name.clone(), owner);
                continue;
            };
            match groups.iter_mut().find(|g| g.owner == owner && g.problem == problem) {
                Some(g) => g.tools.push(tool.name),
                None => groups.push(Group {
                    owner,
                    problem,
                    tools: vec![tool.name],
                }),
            }
        }
    }
    for g in groups {
        let who = g.owner.describe();
        let tools = g.tools.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ");
        let plural = if g.tools.len() == 1 { "tool" } else { "tools" };
        let d = match &g.problem {
            Problem::Invalid(problem) => {
                // The problem text names one tool; say it of the first and list the rest.
                Diagnostic::error(
                    "invalid-tool-name",
                    g.owner.origin.clone(),
                    format!("{plural} {tools} of {who}: the name {problem}"),
                )
                .help("rename the class or property with ASCII letters, digits and `_`")
            }
            Problem::Static => Diagnostic::error(
                "tool-name-collision",
                g.owner.origin.clone(),
                format!("{plural} {tools} of {who} would have the name of a static tool"),
            )
            .help("rename the class so its tools do not collide with the static tools"),
            Problem::Taken(first) => Diagnostic::error(
                "tool-name-collision",
                g.owner.origin.clone(),
                format!("{plural} {tools} of {who} would have the same name as the tools of {first}"),
            )
            .help("rename one of them: tool names are the snake_case of class and property names"),
        };
        let d = d.class(&g.owner.class);
        diags.push(match &g.owner.property {
            Some(p) => d.property(p),
            None => d,
        });
    }
}

#[derive(Clone, PartialEq)]
struct Owner {
    class: String,
    property: Option<String>,
    origin: crate::shape::Origin,
}

impl Owner {
    fn describe(&self) -> String {
        match &self.property {
            Some(p) => format!("property `{p}` of class `{}`", self.class),
            None => format!("class `{}`", self.class),
        }
    }
}

#[derive(PartialEq)]
enum Problem {
    Invalid(String),
    Static,
    Taken(String),
}

struct Group {
    owner: Owner,
    problem: Problem,
    tools: Vec<String>,
}
