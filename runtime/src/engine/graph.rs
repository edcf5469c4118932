//! A perspective's links as an RDF graph for the SHACL validator: every link a triple, its
//! target decoded (docs/data-model.md, Links and values) into a typed RDF literal or an IRI.
//!
//! A target is typed as a write would have taken it: read ([`values::read`]) for a property
//! of the subject's classes (then of any class) with that predicate, kept when the write's type
//! check ([`super::validate::type_ok`]) passes and the spelling is of that type (text for text), and
//! made the literal [`dna::term_for`] makes of the value: the same function that types the
//! shapes' `sh:in` and `sh:hasValue`. Any other target is decoded by its own spelling
//! ([`generic_term`]), so a value that a write would have refused fails `sh:datatype`.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use shacl_mcp_compiler::literal::is_node;
use shacl_mcp_compiler::model::{Class, Property, ValueType};
use shacl_mcp_compiler::shacl::dna;
use shacl_mcp_compiler::shacl::graph::show;
use shacl_mcp_compiler::shacl::vocab::{XSD_BOOLEAN, XSD_DECIMAL, XSD_INTEGER};
use shacl_mcp_compiler::shacl::{Graph, GraphBuilder, MemoryGraph, Term};

use super::validate::type_ok;
use super::values::{self, Decoded};
use crate::store::{Link, LinkPattern, ReadTx, StoreError};

/// The links of one perspective as triples. Terms are shown as the links hold them (an IRI,
/// or an encoded literal such as `literal:string:open`).
pub struct PerspectiveGraph {
    graph: MemoryGraph,
    /// The link target each literal term was read from (the first one, when several).
    written: HashMap<Term, String>,
}

impl PerspectiveGraph {
    /// Reads every link of `perspective` in one snapshot; `classes` type the values.
    pub fn load(tx: &dyn ReadTx, perspective: &str, classes: &[Arc<Class>]) -> Result<Self, StoreError> {
        let links = tx.links(perspective, LinkPattern::default(), None, 0)?;
        Ok(Self::from_links(&links, classes))
    }

    /// Every triple, in the order the graph holds them.
    pub fn triples(&self) -> impl Iterator<Item = (&Term, &Term, &Term)> + '_ {
        self.graph.triples()
    }

    fn from_links(links: &[Link], classes: &[Arc<Class>]) -> Self {
        let typer = LinkTyper::new(classes);
        // The marker links each node has, to tell which classes it is an instance of.
        let mut marked: HashMap<&str, HashSet<(&str, &str)>> = HashMap::new();
        for l in links {
            if typer.is_marker(&l.predicate, &l.target) {
                marked
                    .entry(l.source.as_str())
                    .or_default()
                    .insert((l.predicate.as_str(), l.target.as_str()));
            }
        }
        let mut builder = GraphBuilder::new();
        let mut written = HashMap::new();
        for l in links {
            let object = typer.object(&l.predicate, &l.target, marked.get(l.source.as_str()));
            if object.is_literal() {
                written.entry(object.clone()).or_insert_with(|| l.target.clone());
            }
            builder.add(Term::node(&l.source), Term::iri(&l.predicate), object);
        }
        PerspectiveGraph {
            graph: builder.build(),
            written,
        }
    }
}

/// How a link's target becomes an RDF term, as a write would have taken it: by a property of
/// the subject's own classes with that predicate first (the subject's marker links say which
/// classes those are), then of any class, else by its own spelling. One typing for every reader
/// of the graph: the SHACL report and SPARQL.
pub struct LinkTyper<'c> {
    /// Every class marker, as (predicate, target).
    markers: HashSet<(&'c str, &'c str)>,
    /// The properties that read each predicate, with their class.
    readers: HashMap<&'c str, Vec<(&'c Class, &'c Property)>>,
}

impl<'c> LinkTyper<'c> {
    pub fn new(classes: &'c [Arc<Class>]) -> Self {
        let markers = classes
            .iter()
            .flat_map(|c| c.marker.iter().map(|m| (m.predicate.as_str(), m.target.as_str())))
            .collect();
        let mut readers: HashMap<&str, Vec<(&Class, &Property)>> = HashMap::new();
        for class in classes {
            for p in class.visible_properties().filter(|p| p.getter.is_none()) {
                readers.entry(p.path.as_str()).or_default().push((class, p));
            }
        }
        LinkTyper { markers, readers }
    }

    /// Whether (predicate, target) is a class marker link.
    pub fn is_marker(&self, predicate: &str, target: &str) -> bool {
        self.markers.contains(&(predicate, target))
    }

    /// Whether typing a link of `predicate` depends on which classes its subject is an
    /// instance of: only when several properties of different types read the predicate.
    pub fn needs_subject(&self, predicate: &str) -> bool {
        self.readers
            .get(predicate)
            .is_some_and(|r| r.windows(2).any(|w| w[0].1.value_type != w[1].1.value_type))
    }

    /// The term of a link's target; `subject_markers` are the marker links of its subject
    /// (`None`: none, or unknown when [`Self::needs_subject`] is false).
    pub fn object(&self, predicate: &str, target: &str, subject_markers: Option<&HashSet<(&str, &str)>>) -> Term {
        if self.markers.contains(&(predicate, target)) {
            return generic_term(target);
        }
        let candidates = self.readers.get(predicate).map(Vec::as_slice).unwrap_or_default();
        let instance_of = |class: &Class| {
            class
                .marker
                .iter()
                .all(|m| subject_markers.is_some_and(|h| h.contains(&(m.predicate.as_str(), m.target.as_str()))))
        };
        let own = candidates.iter().filter(|(c, _)| instance_of(c));
        own.chain(candidates.iter())
            .find_map(|(_, p)| typed(p, target))
            .unwrap_or_else(|| generic_term(target))
    }
}

/// The target as `property` reads it, when it is a value of the property's type. Stricter
/// than the reader, as strict as a write: text properties take text (the reader also turns a
/// `literal:number:` or an IRI into text; a write would have refused them).
fn typed(property: &Property, target: &str) -> Option<Term> {
    let value = values::read(property, target)?;
    // A value of several datatypes is the one its write chose (`values::alternative`).
    let (value_type, datatype, value) = match property.value_type {
        ValueType::AnyOf => {
            let a = values::alternative(property, &value)?;
            let datatype = (a.value_type != ValueType::Reference).then_some(a.datatype.as_str());
            (a.value_type, datatype, values::plain(a, &value))
        }
        t => (t, property.datatype.as_deref(), value),
    };
    if matches!(value_type, ValueType::String | ValueType::DateTime(_)) {
        let text = match values::decode(target) {
            Decoded::String(_) => true,
            Decoded::Iri(s) => !is_node(&s),
            Decoded::Number(_) | Decoded::Boolean(_) | Decoded::LangString { .. } => false,
        };
        if !text {
            return None;
        }
    }
    type_ok(value_type, &value)
        .then(|| dna::term_as(value_type, datatype, &value))
        .flatten()
}

/// A target by its own spelling: `literal:string:` an `xsd:string`, `literal:number:` an
/// `xsd:integer` (whole) or `xsd:decimal`, `literal:boolean:` an `xsd:boolean`,
/// `literal:lang:<tag>:` an `rdf:langString` with that tag; an IRI itself;
/// any other text an `xsd:string`.
pub fn generic_term(target: &str) -> Term {
    match values::decode(target) {
        Decoded::String(s) => Term::string(s),
        Decoded::Number(n) => match n.as_i64() {
            Some(i) => Term::typed(i.to_string(), XSD_INTEGER),
            None => Term::typed(format!("{}", n.as_f64().unwrap_or_default()), XSD_DECIMAL),
        },
        Decoded::Boolean(b) => Term::typed(b.to_string(), XSD_BOOLEAN),
        Decoded::LangString { text, language } => Term::lang_string(text, &language),
        Decoded::Iri(s) if is_node(&s) => Term::node(&s),
        Decoded::Iri(s) => Term::string(s),
    }
}

impl Graph for PerspectiveGraph {
    fn objects(&self, subject: &Term, predicate: &str) -> Vec<Term> {
        self.graph.objects(subject, predicate)
    }

    fn subjects(&self, predicate: &str, object: &Term) -> Vec<Term> {
        self.graph.subjects(predicate, object)
    }

    fn outgoing(&self, subject: &Term) -> Vec<(Term, Term)> {
        self.graph.outgoing(subject)
    }

    fn subjects_with(&self, predicate: &str) -> Vec<Term> {
        self.graph.subjects_with(predicate)
    }

    fn objects_with(&self, predicate: &str) -> Vec<Term> {
        self.graph.objects_with(predicate)
    }

    fn contains(&self, subject: &Term, predicate: &str, object: &Term) -> bool {
        self.graph.contains(subject, predicate, object)
    }

    fn position(&self, term: &Term) -> Option<usize> {
        self.graph.position(term)
    }

    /// As the link holds it: `literal:string:open`, `literal:number:3`, an IRI.
    fn show(&self, term: &Term) -> String {
        self.written.get(term).cloned().unwrap_or_else(|| show(term))
    }
}
