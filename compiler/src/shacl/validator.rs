//! Validation (SHACL §3.4, §4): the focus nodes of every shape with targets, their value
//! nodes, and every constraint component over them.
//!
//! Conformance checks (`sh:node`, `sh:not`, `sh:and`, `sh:or`, `sh:xone`,
//! `sh:qualifiedValueShape`) validate the value node against the other shape and stop at its
//! first result; their answers are memoised per (shape, node). A shape reached again for the
//! same node while it is being checked (recursive shapes, which SHACL leaves undefined) is
//! taken to conform, so every shapes graph terminates.

use std::cmp::Ordering::{self, Equal, Greater, Less};
use std::collections::{HashMap, HashSet};

use super::graph::Graph;
use super::path::Path;
use super::read;
use super::shapes::{Component, Constraint, ShapeRef, Shapes, Target};
use super::term::Term;
use super::vocab::{RDF_LANG_STRING, compact};
use super::xsd;
use crate::problems as words;

/// One validation result (`sh:ValidationResult`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationResult {
    pub focus: Term,
    pub path: Option<Path>,
    pub value: Option<Term>,
    pub component: Component,
    pub severity: Term,
    pub source_shape: Term,
    /// The shape's `sh:message` values, or one message saying what is wrong.
    pub messages: Vec<Term>,
}

/// A validation report: it conforms when there is no result (of any severity).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub results: Vec<ValidationResult>,
}

impl Report {
    pub fn conforms(&self) -> bool {
        self.results.is_empty()
    }
}

/// Validates `data` against `shapes`.
pub fn validate(data: &dyn Graph, shapes: &Shapes) -> Report {
    validate_where(data, shapes, &|_| true)
}

/// Validates only the focus nodes in `only`: what a write that touched those nodes can have
/// changed, without validating the rest of the graph (`data` must hold their links).
pub fn validate_nodes(data: &dyn Graph, shapes: &Shapes, only: &HashSet<Term>) -> Report {
    validate_where(data, shapes, &|node| only.contains(node))
}

/// Validates each `(node, roots)`: the node against those of `roots` whose targets select it,
/// found by asking about the node alone (no target is enumerated). What a write needs that can
/// have changed the results of these nodes only ([`super::reach`]).
pub fn validate_focus(data: &dyn Graph, shapes: &Shapes, nodes: &[(Term, Vec<ShapeRef>)]) -> Report {
    let mut v = Validator::new(data, shapes);
    let mut sink = Sink::collect();
    for (node, roots) in nodes {
        for &root in roots {
            if !shapes.shapes[root].deactivated && v.is_focus(root, node) {
                v.validate_shape(root, node, &mut sink);
            }
        }
    }
    Report { results: sink.results }
}

fn validate_where(data: &dyn Graph, shapes: &Shapes, wanted: &dyn Fn(&Term) -> bool) -> Report {
    let mut v = Validator::new(data, shapes);
    let mut sink = Sink::collect();
    for &root in &shapes.roots {
        if shapes.shapes[root].deactivated {
            continue;
        }
        for focus in v.focus_nodes(root).into_iter().filter(|n| wanted(n)) {
            v.validate_shape(root, &focus, &mut sink);
        }
    }
    Report { results: sink.results }
}

/// Where results go: all of them, or (for a conformance check) just whether there is one.
struct Sink {
    results: Vec<ValidationResult>,
    first_only: bool,
}

impl Sink {
    fn collect() -> Sink {
        Sink {
            results: Vec::new(),
            first_only: false,
        }
    }

    fn probe() -> Sink {
        Sink {
            results: Vec::new(),
            first_only: true,
        }
    }

    fn done(&self) -> bool {
        self.first_only && !self.results.is_empty()
    }
}

struct Validator<'a> {
    data: &'a dyn Graph,
    shapes: &'a Shapes,
    /// (shape, node) pairs being checked right now.
    active: HashSet<(ShapeRef, Term)>,
    memo: HashMap<(ShapeRef, Term), bool>,
    /// How often a recursive check was assumed to conform (answers that depend on such an
    /// assumption are not memoised).
    assumed: u64,
    super_classes: HashMap<Term, HashSet<Term>>,
}

/// What a constraint reports about one value: the value (or none) and the text.
struct Finding {
    value: Option<Term>,
    path: Option<Path>,
    text: String,
}

impl<'a> Validator<'a> {
    fn new(data: &'a dyn Graph, shapes: &'a Shapes) -> Self {
        Validator {
            data,
            shapes,
            active: HashSet::new(),
            memo: HashMap::new(),
            assumed: 0,
            super_classes: HashMap::new(),
        }
    }

    fn focus_nodes(&self, shape: ShapeRef) -> Vec<Term> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for target in &self.shapes.shapes[shape].targets {
            let found = match target {
                Target::Node(n) => vec![n.clone()],
                Target::Class(c) => read::instances(self.data, c),
                Target::SubjectsOf(p) => self.data.subjects_with(p),
                Target::ObjectsOf(p) => self.data.objects_with(p),
                Target::Marker(links) => match links.split_first() {
                    None => Vec::new(),
                    Some(((p, o), rest)) => self
                        .data
                        .subjects(p, o)
                        .into_iter()
                        .filter(|s| rest.iter().all(|(p, o)| self.data.contains(s, p, o)))
                        .collect(),
                },
            };
            out.extend(found.into_iter().filter(|n| seen.insert(n.clone())));
        }
        out
    }

    /// Whether a target of `shape` selects `node`.
    fn is_focus(&self, shape: ShapeRef, node: &Term) -> bool {
        self.shapes.shapes[shape].targets.iter().any(|target| match target {
            Target::Node(n) => n == node,
            Target::Class(c) => read::is_instance(self.data, node, c),
            Target::SubjectsOf(p) => !self.data.objects(node, p).is_empty(),
            Target::ObjectsOf(p) => !self.data.subjects(p, node).is_empty(),
            Target::Marker(links) => links.iter().all(|(p, o)| self.data.contains(node, p, o)),
        })
    }

    /// Whether `node` conforms to `shape` (no result at all).
    fn conforms(&mut self, shape: ShapeRef, node: &Term) -> bool {
        if self.shapes.shapes[shape].deactivated {
            return true;
        }
        let key = (shape, node.clone());
        if let Some(&known) = self.memo.get(&key) {
            return known;
        }
        if self.active.contains(&key) {
            self.assumed += 1;
            return true;
        }
        self.active.insert(key.clone());
        let before = self.assumed;
        let mut sink = Sink::probe();
        self.validate_shape(shape, node, &mut sink);
        self.active.remove(&key);
        let conforms = sink.results.is_empty();
        if self.assumed == before {
            self.memo.insert(key, conforms);
        }
        conforms
    }

    fn validate_shape(&mut self, shape: ShapeRef, focus: &Term, sink: &mut Sink) {
        let s = &self.shapes.shapes[shape];
        if s.deactivated {
            return;
        }
        let values = match &s.path {
            Some(path) => path.values(self.data, focus),
            None => vec![focus.clone()],
        };
        for constraint in &s.constraints {
            self.check(shape, constraint, focus, &values, sink);
            if sink.done() {
                return;
            }
        }
    }

    fn emit(&self, sink: &mut Sink, shape: ShapeRef, focus: &Term, component: Component, finding: Finding) {
        let s = &self.shapes.shapes[shape];
        let messages = if sink.first_only {
            Vec::new()
        } else if s.messages.is_empty() {
            vec![Term::string(finding.text)]
        } else {
            s.messages.clone()
        };
        sink.results.push(ValidationResult {
            focus: focus.clone(),
            path: finding.path.or_else(|| s.path.clone()),
            value: finding.value,
            component,
            severity: s.severity.clone(),
            source_shape: s.node.clone(),
            messages,
        });
    }

    fn check(&mut self, shape: ShapeRef, constraint: &Constraint, focus: &Term, values: &[Term], sink: &mut Sink) {
        let is_property = self.shapes.shapes[shape].path.is_some();
        let component = component_of(constraint);
        let mut findings: Vec<Finding> = Vec::new();
        // Per value node: a message when the value fails.
        let mut each = |test: &mut dyn FnMut(&Term) -> Option<String>| {
            for v in values {
                if let Some(text) = test(v) {
                    findings.push(Finding {
                        value: Some(v.clone()),
                        path: None,
                        text,
                    });
                }
            }
        };
        match constraint {
            Constraint::Class(class) => {
                for v in values {
                    if !self.is_instance(v, class) {
                        findings.push(Finding {
                            value: Some(v.clone()),
                            path: None,
                            text: format!("not an instance of {class}"),
                        });
                    }
                }
            }
            Constraint::Datatype(datatype) => each(&mut |v| datatype_problem(v, datatype)),
            Constraint::NodeKind(kind) => {
                each(&mut |v| (!kind.matches(v)).then(|| format!("expects a node of kind sh:{}", kind.local_name())))
            }
            Constraint::MinCount(min) if is_property && (values.len() as u64) < *min => {
                findings.push(whole(words::too_few(*min)));
            }
            Constraint::MaxCount(max) if is_property && (values.len() as u64) > *max => {
                findings.push(whole(words::too_many(*max)));
            }
            Constraint::MinExclusive(bound) => each(&mut |v| range(v, bound, ">", &[Greater])),
            Constraint::MinInclusive(bound) => each(&mut |v| range(v, bound, ">=", &[Greater, Equal])),
            Constraint::MaxExclusive(bound) => each(&mut |v| range(v, bound, "<", &[Less])),
            Constraint::MaxInclusive(bound) => each(&mut |v| range(v, bound, "<=", &[Less, Equal])),
            Constraint::MinLength(min) => each(&mut |v| match v.text() {
                Some(t) if (t.chars().count() as u64) >= *min => None,
                Some(_) => Some(words::too_short(*min)),
                None => Some("a blank node has no length".to_string()),
            }),
            Constraint::MaxLength(max) => each(&mut |v| match v.text() {
                Some(t) if (t.chars().count() as u64) <= *max => None,
                Some(_) => Some(words::too_long(*max)),
                None => Some("a blank node has no length".to_string()),
            }),
            Constraint::Pattern { regex, source, .. } => each(&mut |v| match v.text() {
                Some(t) if regex.is_match(t) => None,
                _ => Some(words::pattern_text(source)),
            }),
            Constraint::LanguageIn(ranges) => each(&mut |v| {
                let tag = v.as_literal().and_then(|l| l.language.as_deref());
                match tag {
                    Some(tag) if ranges.iter().any(|r| lang_matches(tag, r)) => None,
                    _ => Some(format!("language tag not one of: {}", ranges.join(", "))),
                }
            }),
            Constraint::UniqueLang if is_property => {
                let mut counts: Vec<(String, usize)> = Vec::new();
                for tag in values.iter().filter_map(|v| v.as_literal()?.language.as_deref()) {
                    let tag = tag.to_ascii_lowercase();
                    match counts.iter_mut().find(|(t, _)| *t == tag) {
                        Some((_, n)) => *n += 1,
                        None => counts.push((tag, 1)),
                    }
                }
                for (tag, n) in counts.into_iter().filter(|(_, n)| *n > 1) {
                    findings.push(whole(format!("language tag \"{tag}\" is used by {n} values")));
                }
            }
            Constraint::Equals(p) => {
                let others = self.data.objects(focus, p);
                each(&mut |v| (!others.contains(v)).then(|| format!("not also a value of <{p}>")));
                for o in others.iter().filter(|o| !values.contains(o)) {
                    findings.push(Finding {
                        value: Some(o.clone()),
                        path: None,
                        text: format!("a value of <{p}> that the path does not reach"),
                    });
                }
            }
            Constraint::Disjoint(p) => {
                let others = self.data.objects(focus, p);
                each(&mut |v| others.contains(v).then(|| format!("also a value of <{p}>")));
            }
            Constraint::LessThan(p) | Constraint::LessThanOrEquals(p) if is_property => {
                let or_equal = matches!(constraint, Constraint::LessThanOrEquals(_));
                let others = self.data.objects(focus, p);
                for v in values {
                    for o in &others {
                        let order = xsd::compare(v, o);
                        let holds = order == Some(Less) || (or_equal && order == Some(Equal));
                        if !holds {
                            let op = if or_equal { "<=" } else { "<" };
                            findings.push(Finding {
                                value: Some(v.clone()),
                                path: None,
                                text: format!("not {op} {o}, a value of <{p}>"),
                            });
                        }
                    }
                }
            }
            Constraint::Not(other) => {
                let label = self.shape_label(*other);
                self.each_conforming(values, &mut findings, |me, v| {
                    me.conforms(*other, v)
                        .then(|| format!("conforms to {label}, which sh:not forbids"))
                });
            }
            Constraint::And(members) => self.each_conforming(values, &mut findings, |me, v| {
                let failed = members.iter().position(|m| !me.conforms(*m, v))?;
                Some(format!(
                    "does not conform to {} (member {} of sh:and)",
                    me.shape_label(members[failed]),
                    failed + 1
                ))
            }),
            Constraint::Or(members) => self.each_conforming(values, &mut findings, |me, v| {
                (!members.iter().any(|m| me.conforms(*m, v)))
                    .then(|| format!("conforms to none of the {} shapes of sh:or", members.len()))
            }),
            Constraint::Xone(members) => self.each_conforming(values, &mut findings, |me, v| {
                let n = members.iter().filter(|m| me.conforms(**m, v)).count();
                (n != 1).then(|| format!("conforms to {n} of the shapes of sh:xone, not exactly one"))
            }),
            Constraint::Node(other) => {
                let label = self.shapes.shapes[*other].label.clone();
                let shown = self.shape_label(*other);
                self.each_conforming(values, &mut findings, |me, v| {
                    (!me.conforms(*other, v)).then(|| match &label {
                        Some(class) => words::not_instance(class),
                        None => format!("does not conform to {shown}"),
                    })
                });
            }
            Constraint::Property(other) => {
                for v in values {
                    // A property shape reached again for the same node (a shape that is its
                    // own sh:property over cyclic data) adds nothing new: stop there.
                    let key = (*other, v.clone());
                    if !self.active.insert(key.clone()) {
                        self.assumed += 1;
                        continue;
                    }
                    self.validate_shape(*other, v, sink);
                    self.active.remove(&key);
                    if sink.done() {
                        return;
                    }
                }
            }
            Constraint::QualifiedValueShape {
                shape: q,
                min,
                max,
                siblings,
            } if is_property => {
                let mut n = 0u64;
                for v in values {
                    if self.conforms(*q, v) && !siblings.iter().any(|s| self.conforms(*s, v)) {
                        n += 1;
                    }
                }
                let label = self.shape_label(*q);
                if let Some(min) = min.filter(|min| n < *min) {
                    let text = format!("{n} value(s) conform to {label}: at least {min} must");
                    self.emit(sink, shape, focus, Component::QualifiedMinCount, whole(text));
                }
                if let Some(max) = max.filter(|max| n > *max) {
                    let text = format!("{n} value(s) conform to {label}: at most {max} may");
                    self.emit(sink, shape, focus, Component::QualifiedMaxCount, whole(text));
                }
            }
            Constraint::Closed { allowed } => {
                for v in values {
                    for (p, o) in self.data.outgoing(v) {
                        let Some(iri) = p.as_iri() else { continue };
                        if !allowed.iter().any(|a| a == iri) {
                            findings.push(Finding {
                                value: Some(o),
                                path: Some(Path::Predicate(p.clone())),
                                text: format!("<{iri}> is not a property the closed shape allows"),
                            });
                        }
                    }
                }
            }
            Constraint::HasValue(expected) if !values.contains(expected) => {
                findings.push(whole(format!("missing the value {expected}")));
            }
            Constraint::In(allowed) => each(&mut |v| {
                (!allowed.contains(v)).then(|| {
                    let list: Vec<String> = allowed.iter().map(Term::to_string).collect();
                    format!("not one of the allowed values: {}", list.join(", "))
                })
            }),
            // Parameters that do not apply to this kind of shape, and constraints that hold.
            _ => {}
        }
        for finding in findings {
            self.emit(sink, shape, focus, component, finding);
            if sink.done() {
                return;
            }
        }
    }

    /// Runs a conformance test per value node (which needs `&mut self`).
    fn each_conforming(
        &mut self,
        values: &[Term],
        findings: &mut Vec<Finding>,
        mut test: impl FnMut(&mut Self, &Term) -> Option<String>,
    ) {
        for v in values {
            if let Some(text) = test(self, v) {
                findings.push(Finding {
                    value: Some(v.clone()),
                    path: None,
                    text,
                });
            }
        }
    }

    fn shape_label(&self, shape: ShapeRef) -> String {
        let s = &self.shapes.shapes[shape];
        match (&s.label, &s.node) {
            (Some(label), _) => label.clone(),
            (None, Term::Blank(_)) => "an inline shape".to_string(),
            (None, node) => format!("shape {node}"),
        }
    }

    /// A SHACL instance: an `rdf:type` that is the class or one of its subclasses.
    fn is_instance(&mut self, node: &Term, class: &Term) -> bool {
        if node.is_literal() {
            return false;
        }
        for t in self.data.objects(node, super::vocab::RDF_TYPE) {
            if &t == class {
                return true;
            }
            let data = self.data;
            let supers = self
                .super_classes
                .entry(t.clone())
                .or_insert_with(|| read::super_classes(data, &t));
            if supers.contains(class) {
                return true;
            }
        }
        false
    }
}

fn component_of(c: &Constraint) -> Component {
    match c {
        Constraint::Class(_) => Component::Class,
        Constraint::Datatype(_) => Component::Datatype,
        Constraint::NodeKind(_) => Component::NodeKind,
        Constraint::MinCount(_) => Component::MinCount,
        Constraint::MaxCount(_) => Component::MaxCount,
        Constraint::MinExclusive(_) => Component::MinExclusive,
        Constraint::MinInclusive(_) => Component::MinInclusive,
        Constraint::MaxExclusive(_) => Component::MaxExclusive,
        Constraint::MaxInclusive(_) => Component::MaxInclusive,
        Constraint::MinLength(_) => Component::MinLength,
        Constraint::MaxLength(_) => Component::MaxLength,
        Constraint::Pattern { .. } => Component::Pattern,
        Constraint::LanguageIn(_) => Component::LanguageIn,
        Constraint::UniqueLang => Component::UniqueLang,
        Constraint::Equals(_) => Component::Equals,
        Constraint::Disjoint(_) => Component::Disjoint,
        Constraint::LessThan(_) => Component::LessThan,
        Constraint::LessThanOrEquals(_) => Component::LessThanOrEquals,
        Constraint::Not(_) => Component::Not,
        Constraint::And(_) => Component::And,
        Constraint::Or(_) => Component::Or,
        Constraint::Xone(_) => Component::Xone,
        Constraint::Node(_) => Component::Node,
        Constraint::Property(_) => Component::Property,
        Constraint::QualifiedValueShape { .. } => Component::QualifiedMinCount,
        Constraint::Closed { .. } => Component::Closed,
        Constraint::HasValue(_) => Component::HasValue,
        Constraint::In(_) => Component::In,
    }
}

/// A finding about the focus node as a whole (no `sh:value`).
fn whole(text: String) -> Finding {
    Finding {
        value: None,
        path: None,
        text,
    }
}

/// Why `v` fails `sh:datatype datatype`, if it does: not a literal, another datatype, or a
/// lexical form outside the datatype's lexical space (an ill-typed literal).
pub fn datatype_problem(v: &Term, datatype: &str) -> Option<String> {
    let expected = compact(datatype);
    let Some(l) = v.as_literal() else {
        return Some(format!("expects a literal of datatype {expected}"));
    };
    if l.datatype != datatype {
        return Some(format!(
            "expects a literal of datatype {expected}, not {}",
            compact(&l.datatype)
        ));
    }
    if datatype == RDF_LANG_STRING && l.language.is_none() {
        return Some("expects a literal with a language tag".to_string());
    }
    (!xsd::is_valid(datatype, &l.lexical)).then(|| format!("\"{}\" is not a valid {expected}", l.lexical))
}

/// The range check of one value: `None` when `v op bound` holds.
fn range(v: &Term, bound: &Term, op: &str, holds: &[Ordering]) -> Option<String> {
    match xsd::compare(v, bound) {
        Some(order) if holds.contains(&order) => None,
        Some(_) => Some(words::range_text([(op, bound_text(bound).as_str())])),
        None => Some(format!("cannot be compared with {bound}")),
    }
}

/// A bound as the per-write texts write it: `5`, `2002-10-10T12:00:00Z`; strings and IRIs in
/// Turtle.
fn bound_text(bound: &Term) -> String {
    match bound.as_literal() {
        Some(l) if l.language.is_none() && l.datatype != super::vocab::XSD_STRING => l.lexical.clone(),
        _ => bound.to_string(),
    }
}

/// SPARQL's `langMatches` (RFC 4647 basic filtering): `*` matches any tag, `en` matches
/// `en` and `en-GB`, case-insensitively.
fn lang_matches(tag: &str, range: &str) -> bool {
    if range == "*" {
        return !tag.is_empty();
    }
    let (tag, range) = (tag.to_ascii_lowercase(), range.to_ascii_lowercase());
    tag == range || tag.strip_prefix(&range).is_some_and(|rest| rest.starts_with('-'))
}
