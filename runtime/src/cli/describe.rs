//! `shacl-mcp describe`: a DNA's classes and the tools they produce (and its flows), as a
//! table for people, JSON for programs, or a Mermaid class diagram.

use serde_json::{Value, json};
use shacl_mcp_compiler::describe::class_json;
use shacl_mcp_compiler::model::{Class, Dna, Flow, Property, RelationKind};
use shacl_mcp_compiler::surface::{plan, summary};

/// `{ name, description, classes: [ { ...describe_perspective's class, tools: [..] } ], flows? }`
/// (`flows` as the DNA writes them, when it has any).
pub fn json(dna: &Dna) -> Value {
    let classes: Vec<Value> = dna
        .classes
        .iter()
        .map(|class| {
            let mut c = class_json(class);
            c["tools"] = plan(class).into_iter().map(|t| Value::from(t.name)).collect();
            c
        })
        .collect();
    let mut described = json!({ "name": dna.name, "description": dna.description, "classes": classes });
    if !dna.flows.is_empty() {
        described["flows"] = dna.flows.iter().map(Flow::to_json).collect();
    }
    described
}

pub fn table(dna: &Dna) -> String {
    let mut out = format!("DNA `{}`", dna.name);
    if let Some(d) = &dna.description {
        out.push_str(&format!(": {d}"));
    }
    let n = dna.classes.len();
    out.push_str(&format!(" ({n} class{})\n", if n == 1 { "" } else { "es" }));
    for class in &dna.classes {
        out.push('\n');
        out.push_str(&class_table(class));
    }
    for flow in &dna.flows {
        out.push('\n');
        out.push_str(&flow_table(flow));
    }
    out
}

/// `Flow Feeding (any)`, its states by value, then one line per transition.
fn flow_table(flow: &Flow) -> String {
    let takes = if flow.accepts_any() {
        "any".to_string()
    } else {
        flow.input_types.join(", ")
    };
    let mut out = format!("Flow {}  ({takes})\n", flow.name);
    let states: Vec<String> = flow
        .states
        .iter()
        .map(|s| format!("{} = {}", s.name, s.value))
        .collect();
    out.push_str(&format!("  states: {}\n", states.join(", ")));
    for t in &flow.transitions {
        out.push_str(&format!("  {} --{}--> {}\n", t.from_state, t.action_name, t.to_state));
    }
    out
}

fn class_table(class: &Class) -> String {
    let mut out = format!("{}  <{}>", class.name, class.target_class);
    if !class.parents.is_empty() {
        out.push_str(&format!("  extends {}", class.parents.join(", ")));
    }
    out.push('\n');
    if let Some(hint) = &class.interpretation_hint {
        out.push_str(&format!("  {hint}\n"));
    }
    let rows: Vec<[String; 3]> = class
        .visible_properties()
        .map(|p| {
            let star = if p.required { "*" } else { "" };
            let kind = if p.collection { "collection" } else { "property" };
            [format!("{}{star}", p.name), kind.to_string(), summary(p)]
        })
        .collect();
    let header = ["property", "kind", "type and constraints"].map(String::from);
    let widths: Vec<usize> = (0..2)
        .map(|i| {
            rows.iter()
                .chain([&header])
                .map(|r| r[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in [&header].into_iter().chain(&rows) {
        out.push_str(&format!(
            "  {:w0$}  {:w1$}  {}\n",
            row[0],
            row[1],
            row[2],
            w0 = widths[0],
            w1 = widths[1]
        ));
    }
    if rows.is_empty() {
        out.push_str("  (no properties)\n");
    }
    let marker: Vec<String> = class
        .marker
        .iter()
        .map(|m| format!("{} → {}", m.predicate, m.target))
        .collect();
    out.push_str(&format!("  marker: {}\n", marker.join(", ")));
    let tools: Vec<String> = plan(class).into_iter().map(|t| t.name).collect();
    out.push_str(&format!("  tools ({}): {}\n", tools.len(), tools.join(", ")));
    out
}

/// A Mermaid `classDiagram`: classes with their properties, inheritance, and relations.
pub fn mermaid(dna: &Dna) -> String {
    let mut out = String::from("classDiagram\n");
    if let Some(d) = &dna.description {
        out.push_str(&format!("  %% {}: {}\n", dna.name, d.replace('\n', " ")));
    }
    for class in &dna.classes {
        let id = mermaid_id(&class.name);
        out.push_str(&format!("  class {id} {{\n"));
        for p in class.visible_properties() {
            let ty = mermaid_type(p);
            let vis = if p.is_writable() { "+" } else { "-" };
            out.push_str(&format!("    {vis}{ty} {}\n", mermaid_id(&p.name)));
        }
        out.push_str("  }\n");
        if let Some(hint) = &class.interpretation_hint {
            out.push_str(&format!("  note for {id} \"{}\"\n", hint.replace('"', "'")));
        }
    }
    for class in &dna.classes {
        for parent in &class.parents {
            out.push_str(&format!("  {} <|-- {}\n", mermaid_id(parent), mermaid_id(&class.name)));
        }
        for p in class
            .properties
            .iter()
            .filter(|p| p.declared_in == class.name && !p.is_marker())
        {
            let Some(target) = &p.target_class else { continue };
            let many = if p.collection { "\"*\"" } else { "\"1\"" };
            let arrow = match p.relation.as_ref().map(|r| r.kind) {
                Some(RelationKind::BelongsToOne | RelationKind::BelongsToMany) => "..>",
                _ => "-->",
            };
            out.push_str(&format!(
                "  {} {arrow} {many} {} : {}\n",
                mermaid_id(&class.name),
                mermaid_id(target),
                mermaid_id(&p.name)
            ));
        }
    }
    out
}

fn mermaid_type(p: &Property) -> String {
    let base = match (&p.target_class, p.value_type.format()) {
        (Some(t), _) => mermaid_id(t),
        (None, Some(format)) => format.replace('-', "_"),
        (None, None) => p.value_type.type_name().to_string(),
    };
    if p.collection { format!("List~{base}~") } else { base }
}

/// Mermaid identifiers: letters, digits and `_`.
fn mermaid_id(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_alphanumeric() || c == '_' { c } else { '_' })
        .collect()
}
