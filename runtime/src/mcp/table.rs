//! The tool table: every tool's spec, its rmcp `Tool`, and a compiled validator for its fixed
//! arguments, built once and looked up by name (rmcp's `#[tool_handler]` would rebuild its
//! router on every call, which measured six times slower with a hundred tools).

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::{Tool, ToolAnnotations};
use serde_json::{Map, Value};
use shacl_mcp_compiler::model::Class;
use shacl_mcp_compiler::surface::{self, ClassToolKind, SurfaceOptions, ToolSpec};

/// What a tool name resolves to.
#[derive(Clone)]
pub enum Entry {
    Static,
    /// A hand-written tool served beside the generated ones.
    Custom(super::CustomCall),
    /// A per-class tool: the class (as listed) and what the tool does.
    Class {
        class: Arc<Class>,
        kind: Kind,
    },
}

/// [`ClassToolKind`] without the borrow, so entries can live in the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Create,
    Query,
    List,
    Get,
    Delete,
    Set(String),
    GetCollection(String),
    Add(String),
    Remove(String),
}

impl From<&ClassToolKind<'_>> for Kind {
    fn from(kind: &ClassToolKind<'_>) -> Self {
        match kind {
            ClassToolKind::Create => Kind::Create,
            ClassToolKind::Query => Kind::Query,
            ClassToolKind::List => Kind::List,
            ClassToolKind::Get => Kind::Get,
            ClassToolKind::Delete => Kind::Delete,
            ClassToolKind::Set(p) => Kind::Set(p.name.clone()),
            ClassToolKind::GetCollection(p) => Kind::GetCollection(p.name.clone()),
            ClassToolKind::Add(p) => Kind::Add(p.name.clone()),
            ClassToolKind::Remove(p) => Kind::Remove(p.name.clone()),
        }
    }
}

/// One tool, ready to list and to call.
pub struct TableTool {
    pub tool: Tool,
    pub entry: Entry,
    /// Validates the fixed arguments (for per-class tools, the class's properties are left to
    /// the engine, which reports them in the class's envelope).
    pub arguments: Arc<jsonschema::Validator>,
    /// The fixed argument names in schema order, for ordering problems.
    pub argument_order: Vec<String>,
}

/// Tools in list order, with a name index.
#[derive(Default)]
pub struct Table {
    pub tools: Vec<Arc<TableTool>>,
    index: HashMap<String, usize>,
}

impl Table {
    /// The static tools, then the per-class tools of `classes` (whose names are also known when
    /// per-class tools are off, to answer with the refusal rather than "unknown tool").
    pub fn build(options: SurfaceOptions, fixed: &crate::engine::FixedDna, custom: &[super::CustomTool]) -> Table {
        let mut table = Table::default();
        for spec in surface::static_tools(options) {
            table.push(spec, Entry::Static, &[]);
        }
        for tool in custom {
            table.push(tool.spec.clone(), Entry::Custom(tool.call.clone()), &[]);
        }
        for class in fixed.classes() {
            table.add_class_with(class.clone(), fixed.compiled_class(&class.name));
        }
        table
    }

    pub fn add_class(&mut self, class: Arc<Class>) {
        self.add_class_with(class, None);
    }

    /// A class's tools; a compiled class brings its specs as static data (the same JSON the
    /// surface gives, derived at build time).
    pub fn add_class_with(&mut self, class: Arc<Class>, compiled: Option<&'static crate::compiled::CompiledClass>) {
        let specs: Vec<ToolSpec> = match compiled {
            Some(c) => c
                .tools
                .iter()
                .filter_map(|text| serde_json::from_str::<Value>(text).ok())
                .filter_map(|v| ToolSpec::from_json(&v))
                .collect(),
            None => surface::class_tools(&class),
        };
        let plan = surface::plan(&class);
        for (spec, planned) in specs.into_iter().zip(&plan) {
            let kind = Kind::from(&planned.kind);
            let properties: Vec<String> = class.properties.iter().map(|p| p.name.clone()).collect();
            let class_params: Vec<&str> = match kind {
                Kind::Create => properties.iter().map(String::as_str).collect(),
                _ => Vec::new(),
            };
            self.push(
                spec,
                Entry::Class {
                    class: class.clone(),
                    kind,
                },
                &class_params,
            );
        }
    }

    fn push(&mut self, spec: ToolSpec, entry: Entry, class_params: &[&str]) {
        let (validator, order) = fixed_arguments(&spec.input_schema, class_params);
        let tool = to_rmcp(&spec);
        self.index.insert(spec.name.clone(), self.tools.len());
        self.tools.push(Arc::new(TableTool {
            tool,
            entry,
            arguments: Arc::new(validator),
            argument_order: order,
        }));
    }

    pub fn get(&self, name: &str) -> Option<&Arc<TableTool>> {
        self.index.get(name).map(|&i| &self.tools[i])
    }
}

/// A validator for the schema less the class's own parameters, which stay open so the engine
/// reports them (unknown ones included) in the class envelope.
fn fixed_arguments(schema: &Value, class_params: &[&str]) -> (jsonschema::Validator, Vec<String>) {
    let mut schema = schema.clone();
    if !class_params.is_empty()
        && let Some(o) = schema.as_object_mut()
    {
        if let Some(Value::Object(props)) = o.get_mut("properties") {
            props.retain(|k, _| !class_params.contains(&k.as_str()));
        }
        o.insert("additionalProperties".into(), Value::Bool(true));
    }
    let order = schema["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    // The linear `regex` engine (docs/data-model.md): a pattern cannot stall the server.
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .build(&schema)
        .or_else(|_| jsonschema::validator_for(&serde_json::json!({})))
        .expect("the empty schema compiles");
    (validator, order)
}

fn to_rmcp(spec: &ToolSpec) -> Tool {
    let object = |v: &Value| -> Arc<Map<String, Value>> { Arc::new(v.as_object().cloned().unwrap_or_default()) };
    let a = spec.annotations;
    let annotations = ToolAnnotations::with_title(spec.title.clone())
        .read_only(a.read_only)
        .destructive(a.destructive)
        .idempotent(a.idempotent)
        .open_world(false);
    Tool::new(spec.name.clone(), spec.description.clone(), object(&spec.input_schema))
        .with_title(spec.title.clone())
        .with_raw_output_schema(object(&spec.output_schema))
        .with_annotations(annotations)
}
