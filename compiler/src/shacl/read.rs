//! A shapes graph to [`Shapes`]: the shapes with targets (explicit, and implicit class
//! targets), every shape they reach through `sh:property`, `sh:node`, `sh:not`, `sh:and`,
//! `sh:or`, `sh:xone` and `sh:qualifiedValueShape`, and nothing else (an ill-formed shape
//! that nothing uses is not an error, as the suite's `path-unused-001` wants).

use std::collections::{HashSet, VecDeque};

use super::graph::Graph;
use super::path::{Path, read_list};
use super::shapes::{Constraint, NodeKind, Shape, ShapeRef, Shapes, Target, pattern};
use super::term::Term;
use super::vocab::{RDF_TYPE, RDFS_CLASS, RDFS_SUB_CLASS_OF, sh};

/// The explicit target predicates, as local names.
const TARGETS: [&str; 4] = ["targetNode", "targetClass", "targetSubjectsOf", "targetObjectsOf"];

impl Shapes {
    /// Reads every shape that validation can reach. `Err` lists every ill-formed shape found
    /// (a path that is not a path, a count that is not an integer, a list that is not a list, ...).
    pub fn from_graph(graph: &dyn Graph) -> Result<Shapes, Vec<String>> {
        let mut reader = Reader {
            graph,
            shapes: Shapes::new(),
            queue: VecDeque::new(),
            errors: Vec::new(),
        };
        for node in roots(graph) {
            let r = reader.shape_ref(&node);
            reader.shapes.roots.push(r);
        }
        while let Some((r, node)) = reader.queue.pop_front() {
            let shape = reader.read(&node);
            reader.shapes.set(r, shape);
        }
        if reader.errors.is_empty() {
            Ok(reader.shapes)
        } else {
            Err(reader.errors)
        }
    }
}

/// Shapes with a target, in order of first appearance.
fn roots(graph: &dyn Graph) -> Vec<Term> {
    let mut found: Vec<Term> = TARGETS
        .iter()
        .flat_map(|t| graph.subjects_with(&sh(t)))
        .chain(
            instances(graph, &Term::iri(RDFS_CLASS))
                .into_iter()
                .filter(|c| c.is_iri() && is_shape_type(graph, c)),
        )
        .collect();
    let mut seen = HashSet::new();
    found.retain(|t| seen.insert(t.clone()));
    found.sort_by_key(|t| graph.position(t).unwrap_or(usize::MAX));
    found
}

/// A SHACL instance of `sh:NodeShape` or `sh:PropertyShape`.
fn is_shape_type(graph: &dyn Graph, node: &Term) -> bool {
    ["NodeShape", "PropertyShape"]
        .iter()
        .any(|t| is_instance(graph, node, &Term::iri(&sh(t))))
}

/// `node` has an `rdf:type` that is `class` or one of its subclasses.
pub fn is_instance(graph: &dyn Graph, node: &Term, class: &Term) -> bool {
    graph
        .objects(node, RDF_TYPE)
        .iter()
        .any(|t| super_classes(graph, t).contains(class))
}

/// `class` and everything it is an `rdfs:subClassOf*` of.
pub fn super_classes(graph: &dyn Graph, class: &Term) -> HashSet<Term> {
    closure(class, |c| graph.objects(c, RDFS_SUB_CLASS_OF))
}

/// The SHACL instances of `class`: nodes typed with it or with a subclass.
pub fn instances(graph: &dyn Graph, class: &Term) -> Vec<Term> {
    let mut classes: Vec<Term> = closure(class, |c| graph.subjects(RDFS_SUB_CLASS_OF, c))
        .into_iter()
        .collect();
    classes.sort_by_key(|t| graph.position(t).unwrap_or(usize::MAX));
    let mut seen = HashSet::new();
    classes
        .iter()
        .flat_map(|c| graph.subjects(RDF_TYPE, c))
        .filter(|n| seen.insert(n.clone()))
        .collect()
}

fn closure(start: &Term, next: impl Fn(&Term) -> Vec<Term>) -> HashSet<Term> {
    let mut seen = HashSet::from([start.clone()]);
    let mut todo = vec![start.clone()];
    while let Some(t) = todo.pop() {
        for n in next(&t) {
            if seen.insert(n.clone()) {
                todo.push(n);
            }
        }
    }
    seen
}

struct Reader<'g> {
    graph: &'g dyn Graph,
    shapes: Shapes,
    queue: VecDeque<(ShapeRef, Term)>,
    errors: Vec<String>,
}

impl Reader<'_> {
    /// The shape at `node`, read later if it is new.
    fn shape_ref(&mut self, node: &Term) -> ShapeRef {
        let (r, fresh) = self.shapes.reserve(node);
        if fresh {
            self.queue.push_back((r, node.clone()));
        }
        r
    }

    fn values(&self, node: &Term, local: &str) -> Vec<Term> {
        self.graph.objects(node, &sh(local))
    }

    fn error(&mut self, node: &Term, text: String) {
        self.errors.push(format!("shape {node}: {text}"));
    }

    fn read(&mut self, node: &Term) -> Shape {
        let path = match self.values(node, "path").as_slice() {
            [] => None,
            [p] => match Path::parse(self.graph, p) {
                Ok(path) => Some(path),
                Err(e) => {
                    self.error(node, e);
                    None
                }
            },
            many => {
                self.error(node, format!("{} values of sh:path", many.len()));
                None
            }
        };
        let mut shape = Shape::new(node.clone(), path);
        shape.targets = self.targets(node);
        if let Some(severity) = self.values(node, "severity").into_iter().next() {
            shape.severity = severity;
        }
        shape.messages = self.values(node, "message");
        shape.deactivated = self.values(node, "deactivated").iter().any(Term::is_true);
        shape.constraints = self.constraints(node, shape.path.is_some());
        shape
    }

    fn targets(&mut self, node: &Term) -> Vec<Target> {
        let mut targets: Vec<Target> = self.values(node, "targetNode").into_iter().map(Target::Node).collect();
        targets.extend(self.values(node, "targetClass").into_iter().map(Target::Class));
        if node.is_iri() && is_instance(self.graph, node, &Term::iri(RDFS_CLASS)) && is_shape_type(self.graph, node) {
            targets.push(Target::Class(node.clone()));
        }
        for (local, make) in [
            ("targetSubjectsOf", Target::SubjectsOf as fn(String) -> Target),
            ("targetObjectsOf", Target::ObjectsOf),
        ] {
            for value in self.values(node, local) {
                match value.as_iri() {
                    Some(p) => targets.push(make(p.to_string())),
                    None => self.error(node, format!("sh:{local} {value} is not an IRI")),
                }
            }
        }
        targets
    }

    /// The constraints in the order of the components in the SHACL specification (§4).
    fn constraints(&mut self, node: &Term, property: bool) -> Vec<Constraint> {
        let mut out = Vec::new();
        for class in self.values(node, "class") {
            out.push(Constraint::Class(class));
        }
        for datatype in self.values(node, "datatype") {
            match datatype.as_iri() {
                Some(d) => out.push(Constraint::Datatype(d.to_string())),
                None => self.error(node, format!("sh:datatype {datatype} is not an IRI")),
            }
        }
        for kind in self.values(node, "nodeKind") {
            match kind.as_iri().and_then(NodeKind::from_iri) {
                Some(k) => out.push(Constraint::NodeKind(k)),
                None => self.error(node, format!("sh:nodeKind {kind} is not a node kind")),
            }
        }
        if property {
            for n in self.counts(node, "minCount") {
                out.push(Constraint::MinCount(n));
            }
            for n in self.counts(node, "maxCount") {
                out.push(Constraint::MaxCount(n));
            }
        }
        type Range = fn(Term) -> Constraint;
        let ranges: [(&str, Range); 4] = [
            ("minExclusive", Constraint::MinExclusive),
            ("minInclusive", Constraint::MinInclusive),
            ("maxExclusive", Constraint::MaxExclusive),
            ("maxInclusive", Constraint::MaxInclusive),
        ];
        for (local, make) in ranges {
            out.extend(self.values(node, local).into_iter().map(make));
        }
        for n in self.counts(node, "minLength") {
            out.push(Constraint::MinLength(n));
        }
        for n in self.counts(node, "maxLength") {
            out.push(Constraint::MaxLength(n));
        }
        let flags = self.values(node, "flags").into_iter().next();
        let flags = flags.as_ref().and_then(Term::text);
        for source in self.values(node, "pattern") {
            match source.as_literal().map(|l| pattern(&l.lexical, flags)) {
                Some(Ok(c)) => out.push(c),
                Some(Err(e)) => self.error(node, e),
                None => self.error(node, format!("sh:pattern {source} is not a string")),
            }
        }
        for list in self.values(node, "languageIn") {
            if let Some(members) = self.list(node, &list) {
                let tags = members.iter().filter_map(|m| m.text().map(str::to_string)).collect();
                out.push(Constraint::LanguageIn(tags));
            }
        }
        if property && self.values(node, "uniqueLang").iter().any(Term::is_true) {
            out.push(Constraint::UniqueLang);
        }
        type Pair = fn(String) -> Constraint;
        let pairs: [(&str, Pair, bool); 4] = [
            ("equals", Constraint::Equals, false),
            ("disjoint", Constraint::Disjoint, false),
            ("lessThan", Constraint::LessThan, true),
            ("lessThanOrEquals", Constraint::LessThanOrEquals, true),
        ];
        for (local, make, property_only) in pairs {
            if property_only && !property {
                continue;
            }
            for p in self.values(node, local) {
                match p.as_iri() {
                    Some(iri) => out.push(make(iri.to_string())),
                    None => self.error(node, format!("sh:{local} {p} is not a property IRI")),
                }
            }
        }
        self.logical(node, &mut out);
        if property {
            self.qualified(node, &mut out);
        }
        if self.values(node, "closed").iter().any(Term::is_true) {
            let mut allowed: Vec<String> = self
                .values(node, "property")
                .iter()
                .flat_map(|p| self.values(p, "path"))
                .filter_map(|p| p.as_iri().map(str::to_string))
                .collect();
            for list in self.values(node, "ignoredProperties") {
                for member in self.list(node, &list).unwrap_or_default() {
                    allowed.extend(member.as_iri().map(str::to_string));
                }
            }
            out.push(Constraint::Closed { allowed });
        }
        out.extend(self.values(node, "hasValue").into_iter().map(Constraint::HasValue));
        for list in self.values(node, "in") {
            if let Some(members) = self.list(node, &list) {
                out.push(Constraint::In(members));
            }
        }
        out
    }

    /// sh:not, sh:and, sh:or, sh:xone, sh:node and sh:property.
    fn logical(&mut self, node: &Term, out: &mut Vec<Constraint>) {
        for s in self.values(node, "not") {
            if let Some(r) = self.reference(node, &s) {
                out.push(Constraint::Not(r));
            }
        }
        type List = fn(Vec<ShapeRef>) -> Constraint;
        let lists: [(&str, List); 3] = [
            ("and", Constraint::And),
            ("or", Constraint::Or),
            ("xone", Constraint::Xone),
        ];
        for (local, make) in lists {
            for list in self.values(node, local) {
                let Some(members) = self.list(node, &list) else {
                    continue;
                };
                let refs: Vec<ShapeRef> = members.iter().filter_map(|m| self.reference(node, m)).collect();
                out.push(make(refs));
            }
        }
        for s in self.values(node, "node") {
            if let Some(r) = self.reference(node, &s) {
                out.push(Constraint::Node(r));
            }
        }
        for s in self.values(node, "property") {
            if self.values(&s, "path").is_empty() {
                self.error(node, format!("sh:property {s} has no sh:path"));
            } else if let Some(r) = self.reference(node, &s) {
                out.push(Constraint::Property(r));
            }
        }
    }

    /// sh:qualifiedValueShape with sh:qualifiedMinCount / sh:qualifiedMaxCount and, with
    /// sh:qualifiedValueShapesDisjoint, the sibling shapes (§4.7.3).
    fn qualified(&mut self, node: &Term, out: &mut Vec<Constraint>) {
        let own = self.values(node, "qualifiedValueShape");
        if own.is_empty() {
            return;
        }
        let min = self.counts(node, "qualifiedMinCount").into_iter().next();
        let max = self.counts(node, "qualifiedMaxCount").into_iter().next();
        if min.is_none() && max.is_none() {
            return;
        }
        let mut sibling_nodes = Vec::new();
        if self
            .values(node, "qualifiedValueShapesDisjoint")
            .iter()
            .any(Term::is_true)
        {
            for parent in self.graph.subjects(&sh("property"), node) {
                for ps in self.values(&parent, "property") {
                    for q in self.values(&ps, "qualifiedValueShape") {
                        if !own.contains(&q) && !sibling_nodes.contains(&q) {
                            sibling_nodes.push(q);
                        }
                    }
                }
            }
        }
        let siblings: Vec<ShapeRef> = sibling_nodes.iter().filter_map(|s| self.reference(node, s)).collect();
        for q in own {
            if let Some(shape) = self.reference(node, &q) {
                out.push(Constraint::QualifiedValueShape {
                    shape,
                    min,
                    max,
                    siblings: siblings.clone(),
                });
            }
        }
    }

    /// A shape named as a parameter value (an IRI or a blank node).
    fn reference(&mut self, node: &Term, target: &Term) -> Option<ShapeRef> {
        if target.is_literal() {
            self.error(node, format!("{target} is a literal, not a shape"));
            return None;
        }
        Some(self.shape_ref(target))
    }

    fn list(&mut self, node: &Term, head: &Term) -> Option<Vec<Term>> {
        match read_list(self.graph, head) {
            Ok(members) => Some(members),
            Err(e) => {
                self.error(node, e);
                None
            }
        }
    }

    /// The values of a parameter that takes a non-negative integer.
    fn counts(&mut self, node: &Term, local: &str) -> Vec<u64> {
        let mut out = Vec::new();
        for v in self.values(node, local) {
            match v
                .as_literal()
                .and_then(|l| l.lexical.trim_start_matches('+').parse::<u64>().ok())
            {
                Some(n) => out.push(n),
                None => self.error(node, format!("sh:{local} {v} is not a non-negative integer")),
            }
        }
        out
    }
}
