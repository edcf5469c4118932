//! The tool table: every tool's spec, its rmcp `Tool`, and a compiled validator for its fixed
//! arguments, built once and looked up by name (rmcp's `#[tool_handler]` would rebuild its
//! router on every call, which measured six times slower with a hundred tools).

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::{Tool, ToolAnnotations};
use serde_json::{Map, Value};
use shacl_mcp_compiler::model::Class;
use shacl_mcp_compiler::surface::{self, ClassToolKind, SurfaceOptions, ToolSpec};

/// What a tool name resolves to, once, when the table is built: a call is routed on this, never
/// on its name again.
#[derive(Clone)]
pub enum Entry {
    Static(StaticTool),
    /// A static spec this release does not serve.
    Unavailable,
    /// A hand-written tool served beside the generated ones.
    Custom(super::CustomCall),
    /// A per-class tool: the class (as listed) and what the tool does.
    Class {
        class: Arc<Class>,
        kind: Kind,
    },
}

/// The static tools of docs/tools.md; a static spec whose name is none of these is listed and
/// answered as not available ([`Entry::Unavailable`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StaticTool {
    ListPerspectives,
    AddPerspective,
    AddLink,
    QueryLinks,
    SparqlQuery,
    ChangesSince,
    AddModel,
    DescribePerspective,
    InstanceCreate,
    InstanceQuery,
    InstanceGet,
    InstanceUpdate,
    InstanceAddToCollection,
    InstanceRemoveFromCollection,
    InstanceRemove,
    AddChild,
    GetChildren,
    ExecuteCommands,
    GetMyDid,
    AuthStatus,
    GetDocumentation,
    Signup,
    LoginEmail,
    RequestLoginVerification,
    VerifyEmailCode,
    Forget,
    ValidatePerspective,
    GetFlows,
    AddFlow,
    FlowStart,
    FlowState,
    FlowActions,
    FlowRunAction,
}

/// Every static tool and its name, in declaration order: the one table both directions read.
const NAMES: [(StaticTool, &str); 33] = [
    (StaticTool::ListPerspectives, "list_perspectives"),
    (StaticTool::AddPerspective, "add_perspective"),
    (StaticTool::AddLink, "add_link"),
    (StaticTool::QueryLinks, "query_links"),
    (StaticTool::SparqlQuery, "sparql_query"),
    (StaticTool::ChangesSince, "changes_since"),
    (StaticTool::AddModel, "add_model"),
    (StaticTool::DescribePerspective, "describe_perspective"),
    (StaticTool::InstanceCreate, "instance_create"),
    (StaticTool::InstanceQuery, "instance_query"),
    (StaticTool::InstanceGet, "instance_get"),
    (StaticTool::InstanceUpdate, "instance_update"),
    (StaticTool::InstanceAddToCollection, "instance_add_to_collection"),
    (
        StaticTool::InstanceRemoveFromCollection,
        "instance_remove_from_collection",
    ),
    (StaticTool::InstanceRemove, "instance_remove"),
    (StaticTool::AddChild, "add_child"),
    (StaticTool::GetChildren, "get_children"),
    (StaticTool::ExecuteCommands, "execute_commands"),
    (StaticTool::GetMyDid, "get_my_did"),
    (StaticTool::AuthStatus, "auth_status"),
    (StaticTool::GetDocumentation, "get_documentation"),
    (StaticTool::Signup, "signup"),
    (StaticTool::LoginEmail, "login_email"),
    (StaticTool::RequestLoginVerification, "request_login_verification"),
    (StaticTool::VerifyEmailCode, "verify_email_code"),
    (StaticTool::Forget, "forget"),
    (StaticTool::ValidatePerspective, "validate_perspective"),
    (StaticTool::GetFlows, "get_flows"),
    (StaticTool::AddFlow, "add_flow"),
    (StaticTool::FlowStart, "flow_start"),
    (StaticTool::FlowState, "flow_state"),
    (StaticTool::FlowActions, "flow_actions"),
    (StaticTool::FlowRunAction, "flow_run_action"),
];

impl StaticTool {
    pub fn from_name(name: &str) -> Option<StaticTool> {
        NAMES.iter().find(|(_, n)| *n == name).map(|(tool, _)| *tool)
    }

    pub fn name(self) -> &'static str {
        // Declaration order is the table's (checked by a test), so the discriminant indexes it.
        NAMES[self as usize].1
    }

    /// The account tools of multi-user mode, answered by the accounts (`auth_status` is the
    /// handler's own).
    pub fn is_account_tool(self) -> bool {
        matches!(
            self,
            StaticTool::Signup
                | StaticTool::LoginEmail
                | StaticTool::RequestLoginVerification
                | StaticTool::VerifyEmailCode
        )
    }

    /// Those whose success carries a token (remembered for an HTTP session).
    pub fn is_login(self) -> bool {
        matches!(self, StaticTool::LoginEmail | StaticTool::VerifyEmailCode)
    }
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
            let entry = StaticTool::from_name(&spec.name).map_or(Entry::Unavailable, Entry::Static);
            table.push(spec, entry, &[]);
        }
        for tool in custom {
            table.push(tool.spec.clone(), Entry::Custom(tool.call.clone()), &[]);
        }
        for class in fixed.classes() {
            table.add_class(class.clone());
        }
        table
    }

    /// A class's tools, derived from the model (a compiled class's model is loaded from the
    /// sources embedded in it, so both paths list the same tools).
    pub fn add_class(&mut self, class: Arc<Class>) {
        let specs = surface::class_tools(&class);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_table_is_in_declaration_order_and_names_each_tool_once() {
        for (i, (tool, name)) in NAMES.iter().enumerate() {
            assert_eq!(*tool as usize, i, "{name} is out of declaration order");
            assert_eq!(StaticTool::from_name(name), Some(*tool));
            assert_eq!(tool.name(), *name);
        }
        let names: std::collections::HashSet<&str> = NAMES.iter().map(|(_, n)| *n).collect();
        assert_eq!(names.len(), NAMES.len());
        assert_eq!(StaticTool::from_name("no_such_tool"), None);
    }

    #[test]
    fn every_static_tool_is_served_under_its_own_name() {
        let all = surface::static_tools(SurfaceOptions {
            class_tools: true,
            multi_user: true,
        });
        for spec in &all {
            let tool = StaticTool::from_name(&spec.name).unwrap_or_else(|| panic!("{} has no StaticTool", spec.name));
            assert_eq!(tool.name(), spec.name);
        }
        assert_eq!(StaticTool::from_name("no_such_tool"), None);
        let accounts: Vec<&str> = all
            .iter()
            .filter_map(|s| StaticTool::from_name(&s.name))
            .filter(|t| t.is_account_tool())
            .map(StaticTool::name)
            .collect();
        assert_eq!(accounts, super::super::account_tools::ACCOUNT_TOOLS);
    }
}
