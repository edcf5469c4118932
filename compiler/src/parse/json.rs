//! AD4M's SHACL JSON: one class shape, an array of them, or a DNA document.
//!
//! The reader is strict: an unknown key, a missing required key or a value of the wrong JSON
//! type is a diagnostic with its JSON pointer, and reading goes on so every problem is found.

mod flows;

pub use flows::parse_flow;
use serde_json::{Map, Number, Value};

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::shape::{ActionShape, ClassShape, InValue, Origin, PropertyShape, ShapeDocument, SourceFormat, Spanned};

const DOCUMENT_KEYS: &[&str] = &["name", "description", "classes", "flows"];
const CLASS_KEYS: &[&str] = &[
    "target_class",
    "class_name",
    "properties",
    "node_shape_uri",
    "interpretation_hint",
    "constructor",
    "constructor_actions",
    "destructor",
    "destructor_actions",
    "parent_shapes",
];
/// Property keys read into typed fields.
const PROPERTY_KEYS: &[&str] = &[
    "path",
    "name",
    "datatype",
    "min_count",
    "max_count",
    "collection",
    "writable",
    "setter",
    "adder",
    "remover",
    "node_kind",
    "class",
    "relation_kind",
    "target_class_name",
    "in",
    "pattern",
    "flags",
    "min_length",
    "max_length",
    "min_inclusive",
    "max_inclusive",
    "min_exclusive",
    "max_exclusive",
    "has_value",
    "getter",
    "identity",
    "local",
    "interpretation_hint",
];
/// Property keys carried through as data, not interpreted (docs/dna-format.md).
const CARRIED_KEYS: &[&str] = &[
    "resolve_language",
    "ordering",
    "monotonic",
    "transform",
    "conformance_conditions",
    "where_filter",
    "where_predicates",
    "filter",
];
const ACTION_KEYS: &[&str] = &["action", "source", "predicate", "target", "local"];
const IN_KEYS: &[&str] = &["value", "label"];

/// Parses SHACL JSON text. `None` only when the text is not JSON or not an object or array.
pub fn parse_json(text: &str) -> (Option<ShapeDocument>, Diagnostics) {
    let mut reader = Reader::default();
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            let origin = Origin {
                line: u32::try_from(e.line()).ok(),
                column: u32::try_from(e.column()).ok(),
                ..Origin::default()
            };
            let message = format!("not valid JSON: {}", strip_position(&e.to_string()));
            reader
                .diags
                .push(Diagnostic::error("syntax", origin, message).help("fix the JSON syntax at this position"));
            return (None, reader.diags);
        }
    };
    let root = Origin::pointer("");
    let document = match &value {
        Value::Object(o) if o.contains_key("classes") => Some(reader.document(o, &root)),
        Value::Object(o) => Some(reader.single(o, &root)),
        Value::Array(items) => Some(ShapeDocument {
            classes: reader.class_list(items, &root),
            ..empty_document()
        }),
        other => {
            reader.diags.push(
                Diagnostic::error("invalid-type", root, format!("a DNA must be a JSON object or array, found {}", kind(other)))
                    .help("write one class shape `{ \"target_class\": …, \"properties\": [...] }`, an array of them, or `{ \"name\": …, \"classes\": [...] }`"),
            );
            None
        }
    };
    (document, reader.diags)
}

fn empty_document() -> ShapeDocument {
    ShapeDocument {
        format: SourceFormat::Json,
        name: None,
        description: None,
        classes: Vec::new(),
        flows: Vec::new(),
        enforced: Vec::new(),
    }
}

/// serde_json appends " at line L column C"; the diagnostic carries those separately.
fn strip_position(message: &str) -> &str {
    message.find(" at line ").map_or(message, |i| &message[..i])
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[derive(Default)]
struct Reader {
    diags: Diagnostics,
}

impl Reader {
    fn document(&mut self, o: &Map<String, Value>, at: &Origin) -> ShapeDocument {
        self.unknown_keys(o, at, DOCUMENT_KEYS, "DNA document", &[]);
        let classes = match o.get("classes") {
            Some(Value::Array(items)) => self.class_list(items, &at.child("classes")),
            Some(other) => {
                self.wrong_type(&at.child("classes"), "classes", "an array of class shapes", other);
                Vec::new()
            }
            None => Vec::new(),
        };
        let flows = match o.get("flows") {
            None => Vec::new(),
            Some(flows) => self.flows(flows, &at.child("flows")),
        };
        ShapeDocument {
            name: self.string(o, "name", at),
            description: self.string(o, "description", at),
            classes,
            flows,
            ..empty_document()
        }
    }

    fn single(&mut self, o: &Map<String, Value>, at: &Origin) -> ShapeDocument {
        ShapeDocument {
            classes: vec![self.class(o, at)],
            ..empty_document()
        }
    }

    fn class_list(&mut self, items: &[Value], at: &Origin) -> Vec<ClassShape> {
        let mut classes = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let here = at.child(i);
            match item {
                Value::Object(o) => classes.push(self.class(o, &here)),
                other => self.wrong_type(&here, "class shape", "an object", other),
            }
        }
        classes
    }

    fn class(&mut self, o: &Map<String, Value>, at: &Origin) -> ClassShape {
        let before = self.diags.0.len();
        let target_class = self.string(o, "target_class", at);
        let label = target_class
            .as_deref()
            .map(crate::model::local_name)
            .map(str::to_string);
        self.unknown_keys(o, at, CLASS_KEYS, "class shape", &[]);
        if target_class.is_none() && !o.contains_key("target_class") {
            self.missing(
                at,
                "target_class",
                "class shape",
                "add `\"target_class\": \"app://Name\"`: the IRI of the class",
            );
        }
        let properties = match o.get("properties") {
            Some(Value::Array(items)) => {
                let list = at.child("properties");
                let mut properties = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let here = list.child(i);
                    match item {
                        Value::Object(p) => properties.push(self.property(p, &here, label.as_deref())),
                        other => self.wrong_type(&here, "property shape", "an object", other),
                    }
                }
                properties
            }
            Some(other) => {
                self.wrong_type(
                    &at.child("properties"),
                    "properties",
                    "an array of property shapes",
                    other,
                );
                Vec::new()
            }
            None => {
                self.missing(
                    at,
                    "properties",
                    "class shape",
                    "add `\"properties\": []` (it may be empty)",
                );
                Vec::new()
            }
        };
        let parent_shapes = match o.get("parent_shapes") {
            None => Vec::new(),
            Some(Value::Array(items)) => {
                let list = at.child("parent_shapes");
                items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, v)| match v {
                        Value::String(s) => Some(Spanned::new(s.clone(), list.child(i))),
                        other => {
                            self.wrong_type(
                                &list.child(i),
                                "parent_shapes item",
                                "a string (a node shape IRI)",
                                other,
                            );
                            None
                        }
                    })
                    .collect()
            }
            Some(other) => {
                self.wrong_type(
                    &at.child("parent_shapes"),
                    "parent_shapes",
                    "an array of node shape IRIs",
                    other,
                );
                Vec::new()
            }
        };
        let shape = ClassShape {
            origin: at.clone(),
            target_class,
            class_name: self.string(o, "class_name", at),
            name: None,
            node_shape_uri: self.string(o, "node_shape_uri", at),
            interpretation_hint: self.string(o, "interpretation_hint", at),
            properties,
            constructor: self.either_actions(o, at, "constructor", "constructor_actions"),
            destructor: self.either_actions(o, at, "destructor", "destructor_actions"),
            parent_shapes,
            // The JSON form's engine-enforced constraints: none yet (core-accept).
            enforced: Vec::new(),
            unenforced: Vec::new(),
        };
        for d in &mut self.diags.0[before..] {
            if d.class.is_none() {
                d.class = label.clone();
            }
        }
        shape
    }

    fn property(&mut self, o: &Map<String, Value>, at: &Origin, class: Option<&str>) -> PropertyShape {
        let path = self.string(o, "path", at);
        let name = self.string(o, "name", at);
        let label = name
            .clone()
            .or_else(|| path.as_deref().map(|p| crate::model::local_name(p).to_string()));
        let before = self.diags.0.len();
        self.unknown_keys(o, at, PROPERTY_KEYS, "property shape", CARRIED_KEYS);
        if !o.contains_key("path") {
            self.missing(
                at,
                "path",
                "property shape",
                "add `\"path\"`: the predicate IRI of the property's links",
            );
        }
        let extras = o
            .iter()
            .filter(|(k, _)| CARRIED_KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let shape = PropertyShape {
            origin: at.clone(),
            path,
            name,
            datatype: self.spanned_string(o, "datatype", at),
            any_of: None,
            min_count: self.count(o, "min_count", at),
            max_count: self.count(o, "max_count", at),
            collection: self.boolean(o, "collection", at),
            writable: self.boolean(o, "writable", at),
            setter: self.actions(o, "setter", at),
            adder: self.actions(o, "adder", at),
            remover: self.actions(o, "remover", at),
            node_kind: self.spanned_string(o, "node_kind", at),
            class: self.spanned_string(o, "class", at),
            relation_kind: self.spanned_string(o, "relation_kind", at),
            target_class_name: self.spanned_string(o, "target_class_name", at),
            in_values: self.in_values(o, at),
            pattern: self.spanned_string(o, "pattern", at),
            flags: self.string(o, "flags", at),
            min_length: self.count(o, "min_length", at),
            max_length: self.count(o, "max_length", at),
            min_inclusive: self.number(o, "min_inclusive", at),
            max_inclusive: self.number(o, "max_inclusive", at),
            min_exclusive: self.number(o, "min_exclusive", at),
            max_exclusive: self.number(o, "max_exclusive", at),
            has_value: self.has_value(o, at),
            getter: self.string(o, "getter", at),
            identity: self.boolean(o, "identity", at),
            local: self.boolean(o, "local", at),
            interpretation_hint: self.string(o, "interpretation_hint", at),
            extras,
        };
        for d in &mut self.diags.0[before..] {
            if d.class.is_none() {
                d.class = class.map(str::to_string);
            }
            if d.property.is_none() {
                d.property = label.clone();
            }
        }
        shape
    }

    fn either_actions(
        &mut self,
        o: &Map<String, Value>,
        at: &Origin,
        short: &str,
        long: &str,
    ) -> Option<Vec<ActionShape>> {
        if o.contains_key(short) && o.contains_key(long) {
            self.diags.push(
                Diagnostic::error(
                    "conflicting-keys",
                    at.child(long),
                    format!("both `{short}` and `{long}` are given; they are two spellings of one key"),
                )
                .help(format!(
                    "keep one of them (`{short}` is read, `{long}` ignored until then)"
                )),
            );
        }
        self.actions(o, short, at).or_else(|| self.actions(o, long, at))
    }

    fn actions(&mut self, o: &Map<String, Value>, key: &str, at: &Origin) -> Option<Vec<ActionShape>> {
        let here = at.child(key);
        match o.get(key)? {
            Value::Array(items) => Some(
                items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, item)| self.action(item, &here.child(i)))
                    .collect(),
            ),
            other => {
                self.wrong_type(&here, key, "an array of actions", other);
                None
            }
        }
    }

    fn action(&mut self, v: &Value, at: &Origin) -> Option<ActionShape> {
        let Value::Object(o) = v else {
            self.wrong_type(at, "action", "an object `{ action, source, predicate, target }`", v);
            return None;
        };
        self.unknown_keys(o, at, ACTION_KEYS, "action", &[]);
        let mut field = |key: &str| {
            let value = self.string(o, key, at);
            if !o.contains_key(key) {
                self.missing(
                    at,
                    key,
                    "action",
                    "every action has `action`, `source`, `predicate` and `target`",
                );
            }
            value
        };
        let (action, source, predicate, target) =
            (field("action"), field("source"), field("predicate"), field("target"));
        let local = self.boolean(o, "local", at);
        Some(ActionShape {
            origin: at.clone(),
            action: action?,
            source: source?,
            predicate: predicate?,
            target: target?,
            local,
        })
    }

    fn in_values(&mut self, o: &Map<String, Value>, at: &Origin) -> Option<Vec<InValue>> {
        let here = at.child("in");
        let items = match o.get("in")? {
            Value::Array(items) => items,
            other => {
                self.wrong_type(&here, "in", "an array of `{ \"value\", \"label\"? }`", other);
                return None;
            }
        };
        let mut values = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let at = here.child(i);
            match item {
                Value::Object(entry) => {
                    self.unknown_keys(entry, &at, IN_KEYS, "`in` entry", &[]);
                    let label = self.string(entry, "label", &at);
                    match entry.get("value") {
                        Some(v @ (Value::String(_) | Value::Number(_) | Value::Bool(_))) => values.push(InValue {
                            value: v.clone(),
                            label,
                        }),
                        Some(other) => {
                            self.wrong_type(&at.child("value"), "value", "a string, number or boolean", other)
                        }
                        None => self.missing(&at, "value", "`in` entry", "write `{ \"value\": \"open\" }`"),
                    }
                }
                // A bare value is how SHACL writes sh:in; accept it as `{ "value": v }`.
                v @ (Value::String(_) | Value::Number(_) | Value::Bool(_)) => values.push(InValue {
                    value: v.clone(),
                    label: None,
                }),
                other => self.wrong_type(&at, "in entry", "`{ \"value\", \"label\"? }`", other),
            }
        }
        Some(values)
    }

    fn has_value(&mut self, o: &Map<String, Value>, at: &Origin) -> Option<Value> {
        match o.get("has_value")? {
            v @ (Value::String(_) | Value::Number(_) | Value::Bool(_)) => Some(v.clone()),
            other => {
                self.wrong_type(&at.child("has_value"), "has_value", "an IRI or a literal value", other);
                None
            }
        }
    }

    fn string(&mut self, o: &Map<String, Value>, key: &str, at: &Origin) -> Option<String> {
        match o.get(key)? {
            Value::String(s) => Some(s.clone()),
            other => {
                self.wrong_type(&at.child(key), key, "a string", other);
                None
            }
        }
    }

    fn spanned_string(&mut self, o: &Map<String, Value>, key: &str, at: &Origin) -> Option<Spanned<String>> {
        self.string(o, key, at).map(|s| Spanned::new(s, at.child(key)))
    }

    fn boolean(&mut self, o: &Map<String, Value>, key: &str, at: &Origin) -> Option<bool> {
        match o.get(key)? {
            Value::Bool(b) => Some(*b),
            other => {
                self.wrong_type(&at.child(key), key, "true or false", other);
                None
            }
        }
    }

    fn count(&mut self, o: &Map<String, Value>, key: &str, at: &Origin) -> Option<u64> {
        let v = o.get(key)?;
        // `3.0` is the integer 3, as for values (docs/data-model.md).
        let n = v.as_u64().or_else(|| {
            v.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 9.0e15)
                .map(|f| f as u64)
        });
        if n.is_none() {
            self.wrong_type(&at.child(key), key, "a whole number, 0 or more", v);
        }
        n
    }

    fn number(&mut self, o: &Map<String, Value>, key: &str, at: &Origin) -> Option<Number> {
        match o.get(key)? {
            Value::Number(n) => Some(n.clone()),
            other => {
                self.wrong_type(&at.child(key), key, "a number", other);
                None
            }
        }
    }

    fn wrong_type(&mut self, at: &Origin, key: &str, expected: &str, found: &Value) {
        self.diags.push(
            Diagnostic::error(
                "invalid-type",
                at.clone(),
                format!("`{key}` must be {expected}, found {}", kind(found)),
            )
            .help(format!("write `{key}` as {expected}")),
        );
    }

    fn missing(&mut self, at: &Origin, key: &str, what: &str, help: &str) {
        self.diags.push(
            Diagnostic::error("missing-key", at.clone(), format!("{what} has no `{key}`")).help(help.to_string()),
        );
    }

    fn unknown_keys(&mut self, o: &Map<String, Value>, at: &Origin, known: &[&str], what: &str, also: &[&str]) {
        for key in o.keys() {
            if known.contains(&key.as_str()) || also.contains(&key.as_str()) {
                continue;
            }
            let candidates = known.iter().chain(also).copied();
            let help = match closest(key, candidates) {
                Some(near) => format!("did you mean `{near}`?"),
                None => format!(
                    "the keys of a {what} are: {}",
                    known.iter().chain(also).copied().collect::<Vec<_>>().join(", ")
                ),
            };
            self.diags.push(
                Diagnostic::error("unknown-key", at.child(key), format!("unknown key `{key}` in {what}")).help(help),
            );
        }
    }
}

/// The known key nearest to `key` by edit distance, when it is near enough to be a typo.
fn closest<'a>(key: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let key_lower = key.to_ascii_lowercase().replace('-', "_");
    known
        .map(|k| (edit_distance(&key_lower, k), k))
        .filter(|(d, k)| *d <= (k.len() / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (ShapeDocument, Vec<(&'static str, String)>) {
        let (doc, diags) = parse_json(text);
        let found = diags
            .0
            .into_iter()
            .map(|d| (d.code, d.origin.pointer.unwrap_or_default()))
            .collect();
        (doc.expect("a document"), found)
    }

    #[test]
    fn three_file_forms() {
        let shape = r#"{"target_class": "app://A", "properties": []}"#;
        for text in [
            shape.to_string(),
            format!("[{shape}, {shape}]"),
            format!(r#"{{"name": "n", "classes": [{shape}]}}"#),
        ] {
            let (doc, diags) = parse(&text);
            assert!(diags.is_empty(), "{diags:?}");
            assert!(!doc.classes.is_empty());
            assert_eq!(doc.classes[0].target_class.as_deref(), Some("app://A"));
        }
    }

    #[test]
    fn both_action_spellings() {
        let action = r#"{"action": "addLink", "source": "this", "predicate": "rdf://type", "target": "app://A"}"#;
        for key in ["constructor", "constructor_actions"] {
            let text = format!(r#"{{"target_class": "app://A", "properties": [], "{key}": [{action}]}}"#);
            let (doc, diags) = parse(&text);
            assert!(diags.is_empty());
            assert_eq!(doc.classes[0].constructor.as_ref().map(Vec::len), Some(1));
        }
    }

    #[test]
    fn every_problem_with_its_pointer() {
        let text = r#"{"classes": [{"target_clas": "x", "properties": [{"path": "a://p", "datatyp": 1, "min_count": -1, "writable": "yes"}]}], "extra": 1}"#;
        let (_, diags) = parse(text);
        assert_eq!(
            diags,
            vec![
                ("unknown-key", "/extra".to_string()),
                ("unknown-key", "/classes/0/target_clas".to_string()),
                ("missing-key", "/classes/0".to_string()),
                ("unknown-key", "/classes/0/properties/0/datatyp".to_string()),
                ("invalid-type", "/classes/0/properties/0/min_count".to_string()),
                ("invalid-type", "/classes/0/properties/0/writable".to_string()),
            ]
        );
    }

    #[test]
    fn typo_gets_a_suggestion() {
        let (_, diags) =
            parse_json(r#"{"target_class": "app://A", "properties": [{"path": "a://p", "datatyp": "xsd:string"}]}"#);
        assert_eq!(diags.0[0].help.as_deref(), Some("did you mean `datatype`?"));
        assert_eq!(diags.0[0].class.as_deref(), Some("A"));
        assert_eq!(diags.0[0].property.as_deref(), Some("p"));
    }

    #[test]
    fn syntax_error_has_line_and_column() {
        let (doc, diags) = parse_json("{\n  \"target_class\": \"app://A\",\n  \"properties\": [,]\n}");
        assert!(doc.is_none());
        let d = &diags.0[0];
        assert_eq!((d.code, d.origin.line, d.origin.column), ("syntax", Some(3), Some(18)));
    }

    #[test]
    fn carried_keys_are_kept_in_order() {
        let (doc, diags) = parse(
            r#"{"target_class": "app://A", "properties": [{"path": "a://p", "ordering": "x", "resolve_language": "literal"}]}"#,
        );
        assert!(diags.is_empty());
        let keys: Vec<_> = doc.classes[0].properties[0].extras.keys().cloned().collect();
        assert_eq!(keys, ["ordering", "resolve_language"]);
    }
}
