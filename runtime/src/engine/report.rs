//! validate_perspective: a SHACL validation report over a whole perspective, its links (the
//! ones `add_link` wrote too) against the complete shapes of the fixed DNA and the models added
//! there ([`Engine::shapes`]).

use serde_json::Value;
use shacl_mcp_compiler::model::Class;
use shacl_mcp_compiler::shacl::{complete_shapes, validate};

use super::Engine;
use super::error::ToolError;
use super::graph::{PerspectiveGraph, generic_term};

const XSD: &str = "http://www.w3.org/2001/XMLSchema#";

impl Engine {
    /// `{ conforms, result_count, results: [{ focus_node, path, value, constraint, severity,
    /// message, shape }] }` for every class of the perspective, or only `class_name`'s.
    pub fn validate_perspective(&self, perspective: &str, class_name: Option<&str>) -> Result<Value, ToolError> {
        let tx = self.store.read()?;
        self.require_perspective(&*tx, perspective)?;
        let classes = self.classes(&*tx, perspective)?;
        let only = match class_name {
            Some(name) => Some(self.class(&*tx, perspective, name)?.name.clone()),
            None => None,
        };
        let graph = PerspectiveGraph::load(&*tx, perspective, &classes)?;
        let report = match only {
            None => validate(&graph, &*self.shapes(&*tx, perspective)?),
            Some(name) => {
                let refs: Vec<&Class> = classes.iter().map(|c| &**c).collect();
                let shapes = complete_shapes(self.fixed.graph(), &refs, Some(&name), &generic_term);
                validate(&graph, &shapes)
            }
        };
        Ok(report.to_json(&graph))
    }

    /// The graph `validate_perspective` validates, as Turtle: every link a triple, its target
    /// typed as the report reads it. What an outside SHACL validator (pySHACL) is given to
    /// compare its results with ours.
    pub fn perspective_turtle(&self, perspective: &str) -> Result<String, ToolError> {
        let tx = self.store.read()?;
        self.require_perspective(&*tx, perspective)?;
        let classes = self.classes(&*tx, perspective)?;
        let graph = PerspectiveGraph::load(&*tx, perspective, &classes)?;
        let mut out = format!("@prefix xsd: <{XSD}> .\n");
        for (s, p, o) in graph.triples() {
            out.push_str(&format!("{s} {p} {o} .\n"));
        }
        Ok(out)
    }
}
