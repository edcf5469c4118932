//! What becomes of each constraint of a DNA (`docs/dna-format.md`, Coverage): typed (in the
//! tools' JSON Schema, the generated structs and the per-write checks), enforced by the SHACL
//! Core engine on every validated write, or not enforceable (and why). `shacl-mcp check` ends
//! with these lines, so that nothing is dropped silently.

use serde_json::{Value, json};

use crate::model::{Class, Dna, Enforced, Property};

/// One class's account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassCoverage {
    pub class: String,
    pub typed: usize,
    pub engine: usize,
    /// `parameter: why` for each constraint nothing checks.
    pub not_enforceable: Vec<String>,
}

/// Every class's account, then (named `None`) the shapes beyond the classes, when there are any.
pub fn coverage(dna: &Dna) -> Vec<(Option<&str>, ClassCoverage)> {
    let mut out: Vec<(Option<&str>, ClassCoverage)> = dna
        .classes
        .iter()
        .map(|c| (Some(c.name.as_str()), class_coverage(c)))
        .collect();
    if !dna.enforced.is_empty() {
        out.push((None, account("", 0, &dna.enforced, &[])));
    }
    out
}

fn class_coverage(class: &Class) -> ClassCoverage {
    let typed = class.visible_properties().map(typed_constraints).sum();
    account(&class.name, typed, &class.enforced, &class.unenforced)
}

fn account(class: &str, typed: usize, enforced: &[Enforced], unenforced: &[Enforced]) -> ClassCoverage {
    ClassCoverage {
        class: class.to_string(),
        typed,
        engine: enforced.len(),
        not_enforceable: unenforced
            .iter()
            .map(|e| match &e.property {
                Some(p) => format!("`{p}`: {}", e.text),
                None => e.text.clone(),
            })
            .collect(),
    }
}

/// The constraints a property's typed checks carry: its value type when the shapes said one,
/// counts, `in`, pattern, lengths, ranges and a `sh:class` of the DNA.
pub fn typed_constraints(p: &Property) -> usize {
    let k = &p.constraints;
    let said_type = p.datatype.is_some() || p.node_kind.is_some() || p.relation.is_some();
    [
        said_type,
        p.min_count > 0,
        p.max_count.is_some(),
        p.target_class.is_some(),
        !k.in_values.is_empty(),
        k.pattern.is_some(),
        k.min_length.is_some(),
        k.max_length.is_some(),
        k.min_inclusive.is_some(),
        k.max_inclusive.is_some(),
        k.min_exclusive.is_some(),
        k.max_exclusive.is_some(),
        p.has_value.is_some(),
    ]
    .into_iter()
    .filter(|b| *b)
    .count()
}

/// The lines `shacl-mcp check` ends with.
pub fn text(dna: &Dna) -> String {
    let n = dna.classes.len();
    let mut out = format!("coverage: {n} class{}\n", if n == 1 { "" } else { "es" });
    for (class, c) in coverage(dna) {
        let who = class.map_or_else(|| "beyond the classes".to_string(), |c| format!("class `{c}`"));
        out.push_str(&format!(
            "  {who}: {} typed, {} enforced by the SHACL Core engine, {} not enforceable\n",
            c.typed,
            c.engine,
            c.not_enforceable.len()
        ));
        for why in &c.not_enforceable {
            out.push_str(&format!("    not enforceable: {why}\n"));
        }
    }
    out
}

/// [`text`] for `--format json`.
pub fn json(dna: &Dna) -> Value {
    coverage(dna)
        .into_iter()
        .map(|(class, c)| {
            json!({
                "class": class,
                "typed": c.typed,
                "engine": c.engine,
                "not_enforceable": c.not_enforceable,
            })
        })
        .collect()
}
