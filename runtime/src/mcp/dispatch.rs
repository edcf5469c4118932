//! From a tool call's arguments to the engine: the static tools of docs/tools.md and the
//! per-class tools, interpreted from the model (the generated ones call the same engine).

use serde_json::{Map, Value, json};

use super::CustomCall;
use super::table::{Entry, Kind, StaticTool};
use crate::engine::{Engine, ForgetTarget, LinkPattern, Order, Problem, QueryArgs, Subject, ToolError};

/// Runs one tool. `tool` is the name called (for the envelope of argument problems).
pub fn call(engine: &Engine, tool: &str, entry: &Entry, args: &Map<String, Value>) -> Result<Value, ToolError> {
    let result = match entry {
        Entry::Static(which) => static_tool(engine, *which, args),
        Entry::Unavailable => Err(unavailable(tool)),
        Entry::Custom(CustomCall::Plain(call)) => call(engine, args),
        // Only an MCP request has the context a route needs: the handler calls routes itself.
        Entry::Custom(CustomCall::Routed(_)) => {
            Err(ToolError::Internal(format!("{tool} is served to MCP requests only")))
        }
        Entry::Class { class, kind } => class_tool(engine, &class.name, kind, args),
    };
    // Argument problems found by the engine name the tool the client called.
    result.map_err(|e| match e {
        ToolError::Invalid(mut envelope) if matches!(envelope.subject, Subject::Tool(_)) => {
            envelope.subject = Subject::Tool(tool.to_string());
            ToolError::Invalid(envelope)
        }
        other => other,
    })
}

/// Whether a tool runs on the async worker that received it rather than on the blocking pool:
/// those that touch no store, and with `local_reads` (a store of local files,
/// [`super::ServerOptions::local_store`]) reads of one instance, which cost less than the two
/// thread switches of `spawn_blocking` (a read transaction never waits for a writer in WAL mode).
pub fn runs_inline(entry: &Entry, local_reads: bool) -> bool {
    match entry {
        Entry::Static(StaticTool::GetMyDid) => true,
        Entry::Static(which) => local_reads && *which == StaticTool::InstanceGet,
        Entry::Class { kind, .. } => local_reads && matches!(kind, Kind::Get | Kind::GetCollection(_)),
        Entry::Custom(_) | Entry::Unavailable => false,
    }
}

/// [`call`] on the caller's thread, a panic answered like one on the blocking pool.
pub fn call_inline(engine: &Engine, tool: &str, entry: &Entry, args: &Map<String, Value>) -> Result<Value, ToolError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| call(engine, tool, entry, args))).unwrap_or_else(|panic| {
        let text = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(ToolError::Internal(format!("the call failed: {text}")))
    })
}

struct Args<'a>(&'a Map<String, Value>);

impl<'a> Args<'a> {
    fn str(&self, key: &str) -> Option<&'a str> {
        self.0.get(key).and_then(Value::as_str)
    }

    /// A string the schema requires (checked before dispatch); empty when absent.
    fn req(&self, key: &str) -> &'a str {
        self.str(key).unwrap_or_default()
    }

    fn u64(&self, key: &str) -> Option<u64> {
        self.0.get(key).and_then(Value::as_u64)
    }

    fn object(&self, key: &str) -> Option<&'a Map<String, Value>> {
        self.0.get(key).and_then(Value::as_object)
    }

    fn order(&self) -> Order {
        match self.str("order") {
            Some("newest_first") => Order::NewestFirst,
            _ => Order::OldestFirst,
        }
    }

    /// An argument a per-class tool needs but cannot mark required (docs/tools.md lists only
    /// `perspective_id` in `required`).
    fn needed(&self, key: &str) -> Result<&'a str, ToolError> {
        self.str(key)
            .ok_or_else(|| ToolError::invalid_arguments("", vec![Problem::new(key, "missing required argument")]))
    }
}

fn static_tool(engine: &Engine, tool: StaticTool, args: &Map<String, Value>) -> Result<Value, ToolError> {
    let a = Args(args);
    let p = a.req("perspective_id");
    match tool {
        StaticTool::ListPerspectives => engine.list_perspectives(),
        StaticTool::AddPerspective => engine.add_perspective(a.req("name")),
        StaticTool::AddLink => engine.add_link(
            p,
            a.req("source"),
            a.req("predicate"),
            a.req("target"),
            args.get("local").and_then(Value::as_bool).unwrap_or(false),
        ),
        StaticTool::QueryLinks => {
            let pattern = LinkPattern {
                source: a.str("source"),
                predicate: a.str("predicate"),
                target: a.str("target"),
            };
            engine.query_links(p, pattern, a.u64("limit"), a.u64("offset"))
        }
        StaticTool::SparqlQuery => engine.sparql_query(p, a.req("query"), a.u64("limit"), a.u64("timeout_ms")),
        StaticTool::ChangesSince => engine.changes_since(p, a.str("cursor"), a.str("class_name"), a.u64("limit")),
        StaticTool::AddModel => {
            engine.add_model(p, a.req("class_name"), args.get("shacl_json").unwrap_or(&Value::Null))
        }
        StaticTool::DescribePerspective => engine.describe_perspective(p),
        StaticTool::InstanceCreate => {
            let empty = Map::new();
            engine.instance_create(
                p,
                a.req("class_name"),
                a.object("properties").unwrap_or(&empty),
                a.str("base_uri"),
                a.str("parent"),
            )
        }
        StaticTool::InstanceQuery => engine.instance_query(p, a.req("class_name"), &query_args(&a, a.str("parent"))),
        StaticTool::InstanceGet => engine.instance_get(p, a.req("class_name"), a.req("base_uri")),
        StaticTool::InstanceUpdate => {
            let unset: Vec<String> = args
                .get("unset")
                .and_then(Value::as_array)
                .map(|u| u.iter().filter_map(Value::as_str).map(str::to_string).collect())
                .unwrap_or_default();
            engine.instance_update(
                p,
                a.req("class_name"),
                a.req("base_uri"),
                a.object("properties"),
                &unset,
            )
        }
        StaticTool::InstanceAddToCollection => engine.instance_add_to_collection(
            p,
            a.req("class_name"),
            a.req("base_uri"),
            a.req("collection"),
            args.get("item_uri").unwrap_or(&Value::Null),
        ),
        StaticTool::InstanceRemoveFromCollection => engine.instance_remove_from_collection(
            p,
            a.req("class_name"),
            a.req("base_uri"),
            a.req("collection"),
            args.get("item_uri").unwrap_or(&Value::Null),
        ),
        StaticTool::InstanceRemove => engine.instance_remove(p, a.req("class_name"), a.req("base_uri")),
        StaticTool::AddChild => engine.add_child(p, a.req("parent"), a.req("child")),
        StaticTool::GetChildren => engine.get_children(p, a.req("parent"), a.u64("limit")),
        StaticTool::ExecuteCommands => {
            let commands = args
                .get("commands")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            engine.execute_commands(p, a.req("expression_address"), commands, a.object("parameters"))
        }
        StaticTool::ValidatePerspective => engine.validate_perspective(p, a.str("class_name")),
        StaticTool::GetMyDid => Ok(engine.get_my_did()),
        StaticTool::Forget => ForgetTarget::from_arguments(args).and_then(|target| engine.forget(p, target)),
        StaticTool::GetFlows => engine.get_flows(p, a.str("subject")),
        StaticTool::AddFlow => engine.add_flow(p, args.get("flow").unwrap_or(&Value::Null)),
        StaticTool::FlowStart => engine.flow_start(p, a.req("flow_name"), a.req("subject")),
        StaticTool::FlowState => engine.flow_state(p, a.req("flow_name"), a.req("subject")),
        StaticTool::FlowActions => engine.flow_actions(p, a.req("flow_name"), a.req("subject")),
        StaticTool::FlowRunAction => {
            engine.flow_run_action(p, a.req("flow_name"), a.req("subject"), a.req("action_name"))
        }
        // Answered by the handler (docs/errors.md) before the engine is reached.
        StaticTool::AuthStatus
        | StaticTool::GetDocumentation
        | StaticTool::Signup
        | StaticTool::LoginEmail
        | StaticTool::RequestLoginVerification
        | StaticTool::VerifyEmailCode => Err(unavailable(tool.name())),
    }
}

fn unavailable(tool: &str) -> ToolError {
    ToolError::refused(
        format!("'{tool}' is not available in this release"),
        "See docs/tools.md for what this server implements; erasure (forget) and the account tools come with multi-user mode.",
    )
}

fn query_args(a: &Args<'_>, parent: Option<&str>) -> QueryArgs {
    QueryArgs {
        filter: a.object("filter").cloned(),
        parent: parent.map(str::to_string),
        limit: a.u64("limit"),
        offset: a.u64("offset"),
        order: a.order(),
    }
}

/// Keys of a per-class tool that are not the class's properties.
const FIXED: &[&str] = &["perspective_id", "expression_address", "parent"];

fn class_tool(engine: &Engine, class: &str, kind: &Kind, args: &Map<String, Value>) -> Result<Value, ToolError> {
    let a = Args(args);
    let p = a.req("perspective_id");
    match kind {
        Kind::Create => {
            let properties: Map<String, Value> = args
                .iter()
                .filter(|(k, _)| !FIXED.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            engine.instance_create(p, class, &properties, a.str("expression_address"), a.str("parent"))
        }
        Kind::Query => engine.instance_query(p, class, &query_args(&a, None)),
        Kind::List => engine.instance_query(p, class, &query_args(&a, a.str("parent"))),
        Kind::Get => engine.instance_get(p, class, a.needed("expression_address")?),
        Kind::Delete => engine.instance_remove(p, class, a.needed("expression_address")?),
        Kind::Set(property) => {
            let address = a.needed("expression_address")?;
            match args.get("value") {
                None => Err(ToolError::invalid_arguments(
                    "",
                    vec![Problem::new("value", "missing required argument")],
                )),
                // `null` clears an optional scalar (the engine refuses it for a required one).
                Some(Value::Null) => engine.instance_update(p, class, address, None, std::slice::from_ref(property)),
                Some(value) => {
                    let mut properties = Map::new();
                    properties.insert(property.clone(), value.clone());
                    engine.instance_update(p, class, address, Some(&properties), &[])
                }
            }
        }
        Kind::GetCollection(property) => {
            let address = a.needed("expression_address")?;
            let instance = engine.instance_get(p, class, address)?;
            Ok(
                json!({ "expression_address": address, "collection": property, "items": instance.get(property).cloned().unwrap_or(json!([])) }),
            )
        }
        Kind::Add(property) | Kind::Remove(property) => {
            let address = a.needed("expression_address")?;
            let Some(value) = args.get("value") else {
                return Err(ToolError::invalid_arguments(
                    "",
                    vec![Problem::new("value", "missing required argument")],
                ));
            };
            if matches!(kind, Kind::Add(_)) {
                engine.instance_add_to_collection(p, class, address, property, value)
            } else {
                engine.instance_remove_from_collection(p, class, address, property, value)
            }
        }
    }
}
