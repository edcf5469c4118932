//! The fixed DNA: every class compiled into the binary or given with `--dna`, present in every
//! perspective and never replaced at run time (docs/data-model.md, Classes and perspectives).

use std::path::Path;
use std::sync::Arc;

use shacl_mcp_compiler::model::{Class, Dna, Flow};
use shacl_mcp_compiler::parse::{self, Format};
use shacl_mcp_compiler::shacl::{DnaGraph, MemoryGraph};
use shacl_mcp_compiler::shape::{ClassShape, FlowShape, ShapeDocument, SourceFormat};
use shacl_mcp_compiler::{Diagnostics, check};

use crate::compiled::{CompiledClass, CompiledDna};
use crate::store::StoredModel;

/// The fixed DNA, with the shapes it came from so models added at run time are checked
/// together with it (relations to fixed classes, name collisions).
#[derive(Clone, Debug)]
pub struct FixedDna {
    classes: Vec<Arc<Class>>,
    /// Generated validators of compiled classes, by class name.
    compiled: Vec<&'static CompiledClass>,
    shapes: Vec<ClassShape>,
    /// The DNA's flows, present in every perspective like its classes.
    flows: Vec<Arc<Flow>>,
    name: String,
    /// The shapes graph of its Turtle sources, when it has any: what the engine validates
    /// beyond the typed checks ([`shacl_mcp_compiler::shacl::complete_shapes`]).
    graph: Option<Arc<DnaGraph>>,
}

impl FixedDna {
    /// No fixed classes: every class comes from add_model.
    pub fn empty() -> Self {
        FixedDna {
            classes: Vec::new(),
            compiled: Vec::new(),
            shapes: Vec::new(),
            flows: Vec::new(),
            name: "empty".to_string(),
            graph: None,
        }
    }

    /// Loads one or more DNA files as one DNA (references may cross files).
    pub fn load(paths: &[impl AsRef<Path>]) -> Result<(Self, Diagnostics), Diagnostics> {
        let mut sources = Vec::new();
        for path in paths {
            let path = path.as_ref();
            let file = path.display().to_string();
            match std::fs::read_to_string(path) {
                Ok(text) => sources.push((text, file, Format::from_path(path))),
                Err(e) => {
                    let d = shacl_mcp_compiler::Diagnostic::error(
                        "unreadable-file",
                        Default::default(),
                        format!("cannot read the file: {e}"),
                    );
                    return Err(Diagnostics(vec![d]).in_file(&file));
                }
            }
        }
        Self::from_sources(&sources)
    }

    /// [`FixedDna::load`] for texts in memory: `(text, file name, format)`.
    pub fn from_sources(sources: &[(String, String, Format)]) -> Result<(Self, Diagnostics), Diagnostics> {
        let mut all = Diagnostics::default();
        let mut shapes = Vec::new();
        let mut flows: Vec<FlowShape> = Vec::new();
        let mut enforced = Vec::new();
        let mut owners: Vec<String> = Vec::new();
        let mut name = None;
        // Each Turtle source's graph as the front end read it (`None`: a syntax error).
        let mut graphs = Vec::new();
        for (text, file, format) in sources {
            let base = parse::file_base(Path::new(file));
            let (document, diags, graph) = parse::parse_with_graph_at(text, *format, base.as_deref());
            all.extend(diags.in_file(file));
            if *format == Format::Turtle {
                graphs.push(graph);
            }
            if let Some(document) = document {
                name = name.or(document.name.clone());
                owners.extend(document.classes.iter().map(|_| file.clone()));
                shapes.extend(document.classes);
                flows.extend(document.flows);
                enforced.extend(document.enforced);
            }
        }
        let fallback = sources
            .first()
            .and_then(|(_, file, _)| Path::new(file).file_stem().map(|s| s.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "dna".to_string());
        let document = ShapeDocument {
            format: SourceFormat::Json,
            name,
            description: None,
            classes: shapes.clone(),
            flows,
            enforced,
        };
        let (dna, diags) = check::check(&document, &fallback);
        // Checks of the merged document: name the file each class came from.
        let mut diags = diags;
        for d in &mut diags.0 {
            let owner = d.class.as_ref().and_then(|c| {
                shapes
                    .iter()
                    .position(|s| s.target_class.as_deref().map(shacl_mcp_compiler::model::local_name) == Some(c))
            });
            d.file = owner
                .map(|i| owners[i].clone())
                .unwrap_or_else(|| sources.first().map(|s| s.1.clone()).unwrap_or_default());
        }
        all.extend(diags);
        let graph = shapes_graph(sources, graphs, &mut all);
        match dna {
            Some(dna) if !all.has_errors() => Ok((Self::from_dna(dna, shapes, graph), all)),
            _ => Err(all),
        }
    }

    fn from_dna(dna: Dna, shapes: Vec<ClassShape>, graph: Option<DnaGraph>) -> Self {
        FixedDna {
            graph: graph.map(Arc::new),
            classes: dna.classes.into_iter().map(Arc::new).collect(),
            compiled: Vec::new(),
            shapes,
            flows: dna.flows.into_iter().map(Arc::new).collect(),
            name: dna.name,
        }
    }

    /// The fixed DNA of generated code: its sources, checked as the build checked them, with
    /// the generated validators attached.
    pub fn compiled<D: CompiledDna>() -> Result<Self, Diagnostics> {
        let sources: Vec<(String, String, Format)> = D::SOURCES
            .iter()
            .map(|s| {
                (
                    s.text.to_string(),
                    s.file.to_string(),
                    if s.turtle { Format::Turtle } else { Format::Json },
                )
            })
            .collect();
        let (mut fixed, _) = Self::from_sources(&sources)?;
        fixed.compiled = D::CLASSES.iter().collect();
        Ok(fixed)
    }

    /// The generated validator of a compiled class.
    pub fn compiled_class(&self, name: &str) -> Option<&'static CompiledClass> {
        self.compiled.iter().find(|c| c.name == name).copied()
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn classes(&self) -> &[Arc<Class>] {
        &self.classes
    }

    pub fn flows(&self) -> &[Arc<Flow>] {
        &self.flows
    }

    pub fn has_flow(&self, name: &str) -> bool {
        self.flows.iter().any(|f| f.name == name)
    }

    pub fn shapes(&self) -> &[ClassShape] {
        &self.shapes
    }

    /// The shapes graph of the DNA's Turtle sources (none for a JSON DNA).
    pub fn graph(&self) -> Option<&DnaGraph> {
        self.graph.as_deref()
    }

    pub fn has_class(&self, name: &str) -> bool {
        self.classes.iter().any(|c| c.name == name)
    }

    /// The classes of models registered in a perspective, checked with the fixed DNA. A model
    /// that no longer checks (the fixed DNA changed under it) is left out rather than served wrong.
    pub fn resolve_models(&self, models: &[StoredModel]) -> Vec<Arc<Class>> {
        let mut shapes = self.shapes.clone();
        let mut added = Vec::new();
        for model in models {
            let (document, _) = parse::json::parse_json(&model.shacl_json);
            let Some(shape) = document.and_then(|d| d.classes.into_iter().next()) else {
                continue;
            };
            let mut trial = shapes.clone();
            trial.push(shape.clone());
            if let Some(class) = self.check_with(&trial).and_then(|dna| dna.classes.last().cloned()) {
                shapes = trial;
                added.push(Arc::new(class));
            }
        }
        added
    }

    /// Checks `shapes` (the fixed DNA's and added ones) as one DNA.
    pub fn check_with(&self, shapes: &[ClassShape]) -> Option<Dna> {
        let document = ShapeDocument {
            format: SourceFormat::Json,
            name: Some(self.name.clone()),
            description: None,
            classes: shapes.to_vec(),
            flows: Vec::new(),
            enforced: Vec::new(),
        };
        check::check(&document, &self.name).0
    }
}

/// The shapes graph of the Turtle sources (`None` without any), from the `graphs` the front end
/// read them into; an ill-formed one is an error of the DNA, since the engine could not enforce it.
fn shapes_graph(
    sources: &[(String, String, Format)],
    graphs: Vec<Option<MemoryGraph>>,
    diags: &mut Diagnostics,
) -> Option<DnaGraph> {
    if graphs.is_empty() {
        return None;
    }
    let read = match graphs.into_iter().collect::<Option<Vec<_>>>() {
        Some(graphs) => DnaGraph::from_graphs(&graphs),
        // A syntax error, which fails the load: read the texts again only to say it as the
        // engine always has (`shapes-graph` errors beside the front end's `syntax` ones).
        None => {
            let bases: Vec<(&str, Option<String>)> = sources
                .iter()
                .filter(|(_, _, format)| *format == Format::Turtle)
                .map(|(text, file, _)| (text.as_str(), parse::file_base(Path::new(file))))
                .collect();
            let turtle: Vec<(&str, Option<&str>)> = bases.iter().map(|(text, base)| (*text, base.as_deref())).collect();
            DnaGraph::read(&turtle)
        }
    };
    match read {
        Ok(graph) => Some(graph),
        Err(errors) => {
            for e in errors {
                let d = shacl_mcp_compiler::Diagnostic::error("shapes-graph", Default::default(), e);
                diags.push(d);
            }
            None
        }
    }
}
