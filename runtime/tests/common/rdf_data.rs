//! Loading an RDF data graph into a perspective through the tools, as a user re-creating
//! published data would: every node typed with a DNA class's target class is created with
//! `instance_create` (its IRI as `base_uri`, each triple whose predicate is a property of the
//! class as that property's value); every other triple is written first with `add_link`, the
//! unvalidated path. Creates that are refused are tried again after the others (a reference
//! needs its target to exist first) until a round changes nothing.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use shacl_mcp::engine::Engine;
use shacl_mcp_compiler::model::{Class, Property, ValueType};
use shacl_mcp_compiler::shacl::{Graph, Literal, MemoryGraph, Term};

pub const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

/// What the tools cannot write of a data graph, said as the reason it does not fit.
pub type Unfit = &'static str;

/// The writes a data graph becomes.
pub struct Plan {
    /// Instances by IRI: their class and their properties.
    pub creates: BTreeMap<String, (Arc<Class>, Map<String, Value>)>,
    /// Every triple of the data kept, in graph order (subject IRI, predicate, object).
    pub raw: Vec<(String, String, Term)>,
}

/// The plan of `triples` for `classes`; `Err` names the first thing the tools cannot write.
pub fn plan<'g>(
    graph: &MemoryGraph,
    triples: impl Iterator<Item = (&'g Term, &'g Term, &'g Term)>,
    classes: &[Arc<Class>],
) -> Result<Plan, Unfit> {
    let mut raw = Vec::new();
    for (s, p, o) in triples {
        raw.push((spelling(s), p.as_iri().unwrap_or_default().to_string(), o.clone()));
    }
    let mut creates: BTreeMap<String, (Arc<Class>, Map<String, Value>)> = BTreeMap::new();
    for (s, p, o) in &raw {
        let Some(class) = classes
            .iter()
            .find(|c| graph.contains(&Term::node(s), RDF_TYPE, &Term::iri(&c.target_class)))
        else {
            continue;
        };
        let entry = creates.entry(s.clone()).or_insert_with(|| (class.clone(), Map::new()));
        let Some((name, value)) = literal_json(class, p, o) else {
            continue;
        };
        let q = class.property(&name).unwrap();
        let text_will_do = q.value_type == ValueType::String && language_blind(class, &name);
        let tagged_value = matches!(q.value_type, ValueType::LangString | ValueType::AnyOf);
        if is_tagged(o) && !tagged_value && !text_will_do {
            return Err("language-tagged values where a shape reads the language");
        }
        if !matches!(o, Term::Literal(_)) {
            node_value(q, o)?;
        }
        if let Term::Literal(l) = o
            && q.value_type == ValueType::AnyOf
        {
            any_of_value(q, l)?;
        }
        if q.collection {
            let items = entry.1.entry(name).or_insert_with(|| json!([]));
            items.as_array_mut().unwrap().push(value);
        } else if entry.1.insert(name, value).is_some() {
            return Err("two values for a single-valued property (the tools write one)");
        }
    }
    let plan = Plan { creates, raw };
    if plan
        .raw
        .iter()
        .any(|(s, p, o)| is_tagged(o) && !plan.written_by_create(s, p, o))
    {
        return Err("language-tagged values outside the instances (add_link writes text)");
    }
    Ok(plan)
}

/// A language-tagged literal: a JSON-LD value object for an `rdf:langString` property; for a
/// property typed as text, written as its text only where no shape of the class reads the
/// language.
fn is_tagged(o: &Term) -> bool {
    matches!(o, Term::Literal(l) if l.language.is_some())
}

/// `property` has no datatype and no engine-enforced constraint of `class` reads the language
/// of its values. Anything else that tells the two apart shows in the comparison.
pub fn language_blind(class: &Class, property: &str) -> bool {
    class.property(property).is_some_and(|p| p.datatype.is_none())
        && !class.enforced.iter().any(|e| {
            e.property.as_deref() == Some(property)
                && ["LanguageIn", "UniqueLang", "Datatype"].contains(&e.component.as_str())
        })
}

impl Plan {
    /// Whether the create of `s` writes this triple (its marker or one of its properties).
    fn written_by_create(&self, s: &str, pred: &str, o: &Term) -> bool {
        self.creates.get(s).is_some_and(|(class, _)| {
            (pred == RDF_TYPE && o.as_iri() == Some(&class.target_class))
                || class.visible_properties().any(|q| q.path == pred)
        })
    }

    /// Writes the plan into `perspective`: each instance's outcome, `Err` with the last refusal.
    pub fn run(&self, engine: &Engine, perspective: &str) -> BTreeMap<String, Result<(), Value>> {
        for (s, pred, o) in &self.raw {
            if !self.written_by_create(s, pred, o) {
                let target = match o {
                    Term::Literal(l) => encoded(l),
                    node => spelling(node),
                };
                engine.add_link(perspective, s, pred, &target, false).unwrap();
            }
        }
        let mut outcome: BTreeMap<String, Result<(), Value>> = BTreeMap::new();
        let mut pending: Vec<&String> = self.creates.keys().collect();
        loop {
            let before = pending.len();
            pending.retain(|id| {
                let (class, props) = &self.creates[*id];
                let done = engine.instance_create(perspective, &class.name, props, Some(id), None);
                let refused = done.is_err();
                outcome.insert(
                    (*id).clone(),
                    done.map(|_| ()).map_err(|e| e.to_json().unwrap_or_default()),
                );
                refused
            });
            if pending.is_empty() || pending.len() == before {
                break;
            }
        }
        outcome
    }
}

/// The tool value of `term` for the property of `class` at `predicate`.
pub fn literal_json(class: &Class, predicate: &str, term: &Term) -> Option<(String, Value)> {
    let p = class.visible_properties().find(|p| p.path == predicate)?;
    let value = match term {
        Term::Literal(l) if p.value_type == ValueType::AnyOf => any_of_value(p, l).unwrap_or_else(|_| json!(l.lexical)),
        Term::Literal(l) => literal_value(p.value_type, l),
        node => node_value(p, node).unwrap_or_else(|_| json!(spelling(node))),
    };
    Some((p.name.clone(), value))
}

/// A property of several datatypes one of which is an IRI, given as `{"@id": …}`.
pub fn takes_iri_objects(p: &Property) -> bool {
    p.any_of
        .iter()
        .flat_map(|a| &a.alternatives)
        .any(|a| a.value_type == ValueType::Reference)
}

/// A node (IRI or blank node) as links spell it: the IRI, or `_:label`.
pub fn spelling(term: &Term) -> String {
    term.node_spelling().map(|s| s.into_owned()).unwrap_or_default()
}

/// The tool value of a node for `p`: `{"@id": …}` for a property that also takes literals, the
/// node's spelling for a node-valued one; `Err` when `p` cannot take that node.
pub fn node_value(p: &Property, term: &Term) -> Result<Value, Unfit> {
    let spelled = spelling(term);
    if let Some(nodes) = p.any_of.as_ref().and_then(|a| a.nodes()) {
        return match nodes.allow(&spelled) {
            true => Ok(json!({ "@id": spelled })),
            false => Err("a blank node value of a property whose values are IRIs"),
        };
    }
    if p.value_type != ValueType::Reference && p.node_kind.is_none() {
        return Err("an IRI value of a property the compiler types as text");
    }
    match p.nodes().allow(&spelled) || p.value_type != ValueType::Reference {
        true => Ok(json!(spelled)),
        false => Err("a blank node value of a property whose values are IRIs"),
    }
}

/// The tool value of a literal for a property of several datatypes: the value its own datatype
/// gives it, which the tools write with the first datatype of the property it fits: that must
/// be the literal's. Of a property that says no datatype (any literal or term), a literal of a
/// datatype no JSON value carries (`xsd:date`) is given as its text, as a user would.
pub fn any_of_value(p: &Property, l: &Literal) -> Result<Value, Unfit> {
    let own = shacl_mcp_compiler::check::datatype(&l.datatype).map_or(ValueType::String, |(_, t)| t);
    let value = literal_value(own, l);
    match shacl_mcp::engine::values::alternative(p, &value) {
        Some(a) if a.datatype == l.datatype => Ok(value),
        _ if p.any_of.as_ref().and_then(|a| a.any_term()).is_some() => Ok(json!(l.lexical)),
        _ => Err("a value whose datatype its JSON value does not carry"),
    }
}

/// A literal as the tool value of a property of type `value_type` (its lexical form where it
/// is not of that type: the write then says what is wrong).
pub fn literal_value(value_type: ValueType, l: &Literal) -> Value {
    match value_type {
        ValueType::LangString => match &l.language {
            Some(tag) => json!({"@value": l.lexical, "@language": tag}),
            None => json!(l.lexical),
        },
        ValueType::Integer(_) => l.lexical.parse::<i64>().map_or(json!(l.lexical), |i| json!(i)),
        ValueType::Number => l.lexical.parse::<f64>().map_or(json!(l.lexical), |f| json!(f)),
        ValueType::Boolean => match l.lexical.as_str() {
            "true" => json!(true),
            "false" => json!(false),
            other => json!(other),
        },
        _ => json!(l.lexical),
    }
}

/// A literal as a link target, as a write stores its value (docs/data-model.md, Links and
/// values): numbers and booleans by their value, a language-tagged string as `literal:lang:`,
/// anything else as text.
pub fn encoded(l: &Literal) -> String {
    use shacl_mcp_compiler::literal;
    if let Some(tag) = &l.language {
        return literal::lang_string(&l.lexical, tag);
    }
    let value_type = shacl_mcp_compiler::check::datatype(&l.datatype).map(|(_, t)| t);
    let lexical = l.lexical.trim();
    let typed = match value_type {
        Some(ValueType::Boolean) if lexical == "true" || lexical == "false" => {
            Some(literal::boolean(lexical == "true"))
        }
        Some(ValueType::Integer(_)) => lexical.parse::<i64>().ok().map(|i| literal::number(&i.into())),
        Some(ValueType::Number) => lexical
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(|n| literal::number(&n)),
        _ => None,
    };
    typed.unwrap_or_else(|| literal::string(&l.lexical))
}
