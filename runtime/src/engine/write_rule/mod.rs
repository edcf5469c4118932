//! The rule of every validated write (docs/validation.md): a write commits only when it leaves
//! no Violation-severity SHACL result that was not there before, on every focus node whose
//! result it can change. Those nodes are found from the links the write changed and the reach
//! of the perspective's shapes ([`Reach`]): the written instance, the nodes whose validation
//! reads a changed link, and the nodes whose validation steps to those. Results already there
//! are reported beside the outcome; Warning and Info results come back in the success result.
//!
//! The check is one call, [`Engine::check_write`], made by the write path inside its
//! transaction after the write's links are written and before it commits.

mod problems;
mod recorder;
mod tx_graph;

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use serde_json::{Map, Value};
use shacl_mcp_compiler::model::Class;
use shacl_mcp_compiler::shacl::reach::{Dir, Reach};
use shacl_mcp_compiler::shacl::{Graph, ShapeRef, Shapes, Target, Term, validate_focus};

pub(crate) use recorder::Recorder;
pub(crate) use tx_graph::TxGraph;

use super::Engine;
use super::error::ToolError;
use super::graph::LinkTyper;
use super::instances::class_envelope;

/// A perspective's complete shapes, with what the write rule needs to know about them.
pub(crate) struct WriteShapes {
    pub shapes: Arc<Shapes>,
    reach: Reach,
    /// Roots that only restate the typed checks of a typed-only class (every target a marker
    /// of a class with no engine-enforced constraint): a create of that class has passed them.
    typed_roots: HashSet<ShapeRef>,
    /// Every root is such a root: no write but a removal can change a result the typed checks
    /// did not see.
    typed_only: bool,
}

impl WriteShapes {
    pub fn new(shapes: Shapes, classes: &[&Class], marker_term: &dyn Fn(&str) -> Term) -> Self {
        let typed_marker = |links: &Vec<(String, Term)>| {
            classes.iter().any(|c| {
                c.is_typed_only()
                    && c.marker.len() == links.len()
                    && c.marker
                        .iter()
                        .all(|m| links.contains(&(m.predicate.clone(), marker_term(&m.target))))
            })
        };
        let typed_roots: HashSet<ShapeRef> = shapes
            .roots
            .iter()
            .copied()
            .filter(|&r| {
                let targets = &shapes.shapes[r].targets;
                !targets.is_empty()
                    && targets
                        .iter()
                        .all(|t| matches!(t, Target::Marker(links) if typed_marker(links)))
            })
            .collect();
        WriteShapes {
            reach: Reach::of(&shapes),
            typed_only: typed_roots.len() == shapes.roots.len(),
            typed_roots,
            shapes: Arc::new(shapes),
        }
    }
}

/// What a write that passed the check carries back.
#[derive(Debug, Default)]
pub(crate) struct Checked {
    /// Warning and Info results on the nodes the write affects.
    pub warnings: Vec<Value>,
    /// Violations on those nodes that were there before the write (and still are).
    pub preexisting: Vec<Value>,
}

impl Checked {
    /// Adds `validation_warnings` and `preexisting_violations` to a success result, each only
    /// when it has entries (docs/tools.md, Results of validated writes).
    pub fn add_to(self, result: &mut Map<String, Value>) {
        if !self.warnings.is_empty() {
            result.insert("validation_warnings".into(), Value::Array(self.warnings));
        }
        if !self.preexisting.is_empty() {
            result.insert("preexisting_violations".into(), Value::Array(self.preexisting));
        }
    }
}

/// Which write: a create has passed the typed checks of every value it writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WriteKind {
    Create,
    Change,
    Remove,
}

impl Engine {
    /// A write transaction that records what it changes (call after the perspective is known
    /// to exist). A create in a perspective whose shapes are all typed-only records nothing:
    /// the typed checks are the whole rule there, and such a class pays nothing for the engine.
    pub(crate) fn recorded<'a>(
        &self,
        tx: Recorder<'a>,
        perspective: &str,
        kind: WriteKind,
    ) -> Result<Recorder<'a>, ToolError> {
        let shapes = self.write_shapes(&tx, perspective)?;
        Ok(if shapes.typed_only && kind == WriteKind::Create {
            tx.without_recording()
        } else {
            tx
        })
    }

    /// The rule, over the graph `tx` holds now: `Err` is the validation envelope of `class`
    /// listing every new violation; nothing is committed by the caller then.
    pub(crate) fn check_write(
        &self,
        tx: &Recorder<'_>,
        perspective: &str,
        class: &Class,
        written: &str,
        kind: WriteKind,
    ) -> Result<Checked, ToolError> {
        if !self.write_check || !tx.is_recording() || tx.changes.is_empty() {
            return Ok(Checked::default());
        }
        let shapes = self.write_shapes(tx, perspective)?;
        let classes = self.classes(tx, perspective)?;
        let typer = LinkTyper::new(&classes);
        let after = TxGraph::after(tx, perspective, &typer);
        let written_term = Term::node(written);
        let foci: Vec<(Term, Vec<ShapeRef>)> = affected(&shapes.reach, tx, &after, &written_term)
            .into_iter()
            .map(|node| {
                let skip_typed = kind == WriteKind::Create && node == written_term;
                let roots = shapes
                    .shapes
                    .roots
                    .iter()
                    .copied()
                    .filter(|r| !(skip_typed && shapes.typed_roots.contains(r)))
                    .collect::<Vec<_>>();
                (node, roots)
            })
            .filter(|(_, roots)| !roots.is_empty())
            .collect();
        if foci.is_empty() {
            return Ok(Checked::default());
        }
        let report = validate_focus(&after, &shapes.shapes, &foci);
        if let Some(e) = after.failure() {
            return Err(e.into());
        }
        if report.results.is_empty() {
            return Ok(Checked::default());
        }
        let now = results(report.to_json(&after));
        let before_graph = TxGraph::before(tx, perspective, &typer, &tx.changes);
        let before = results(validate_focus(&before_graph, &shapes.shapes, &foci).to_json(&before_graph));
        if let Some(e) = before_graph.failure() {
            return Err(e.into());
        }
        let is_violation = |r: &Value| r["severity"] == "sh:Violation";
        let new: Vec<&Value> = now.iter().filter(|r| is_violation(r) && !before.contains(r)).collect();
        if !new.is_empty() {
            let problems = new
                .into_iter()
                .map(|r| problems::from_result(r, written, &classes))
                .collect();
            return Err(class_envelope(class, problems));
        }
        let (preexisting, warnings) = now.into_iter().partition(is_violation);
        Ok(Checked { warnings, preexisting })
    }
}

fn results(report: Value) -> Vec<Value> {
    match report {
        Value::Object(mut o) => match o.remove("results") {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// The focus nodes whose results the changed links can change: every end of a changed link at
/// which a validation reads it, the written node, and every node from which validation steps
/// to one of those within the shapes' depth (backwards along [`Reach::steps`]).
fn affected(reach: &Reach, tx: &Recorder<'_>, graph: &TxGraph<'_>, written: &Term) -> Vec<Term> {
    let mut start: Vec<Term> = vec![written.clone()];
    for (s, p, o) in tx.changes.all() {
        if reach.reads(p, Dir::Out) {
            start.push(Term::node(s));
        }
        if reach.reads(p, Dir::In) {
            start.extend(
                graph
                    .objects(&Term::node(s), p)
                    .into_iter()
                    .filter(|t| graph.show(t) == *o),
            );
            if shacl_mcp_compiler::literal::is_node(o) {
                start.push(Term::node(o));
            }
        }
    }
    let mut seen: HashSet<Term> = HashSet::new();
    let mut order = Vec::new();
    let mut queue: VecDeque<(Term, usize)> = VecDeque::new();
    for node in start {
        if seen.insert(node.clone()) {
            order.push(node.clone());
            queue.push_back((node, 0));
        }
    }
    while let Some((node, distance)) = queue.pop_front() {
        if reach.depth.is_some_and(|d| distance >= d) {
            continue;
        }
        for (p, dir) in &reach.steps {
            let back = match dir {
                Dir::Out => graph.subjects(p, &node),
                Dir::In => graph.objects(&node, p),
            };
            for prev in back {
                if seen.insert(prev.clone()) {
                    order.push(prev.clone());
                    queue.push_back((prev, distance + 1));
                }
            }
        }
    }
    order
}
