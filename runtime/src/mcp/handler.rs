//! The rmcp `ServerHandler`: tools/list from the table, tools/call through the checks of
//! docs/errors.md (tool name, per-class refusal, authentication, arguments) into the engine, and
//! `notifications/tools/list_changed` when a model adds tools.
//!
//! In multi-user mode the caller is identified first ([`McpServer::identify`]): a user's calls
//! run on an engine acting for that user ([`Engine::as_user`]), and tools/list shows the
//! per-class tools of run-time classes only to callers who can see a perspective with them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult, ErrorData,
    GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, SubscribeRequestParams, SubscriptionFilter, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext, SubscriptionSink};
use rmcp::{Peer, RoleServer, ServerHandler};
use serde_json::{Map, Value, json};
use shacl_mcp_compiler::model::Class;
use shacl_mcp_compiler::surface::SurfaceOptions;

use super::account_tools;
use super::arguments;
use super::auth::{AUTH_TOOLS, Caller, ClientAddr, Secret};
use super::completions;
use super::custom::Route;
use super::logging::{Outcome, SessionLevel};
use super::subscriptions::Subscriptions;
use super::table::{Entry, StaticTool, Table};
use super::{CustomCall, ServerOptions};
use super::{dispatch, documentation};
use super::{prompts, resources};
use crate::engine::{Engine, Envelope, Subject, ToolError};

/// The server. Cheap to clone: the HTTP transport makes one per session or per request
/// ([`McpServer::for_session`]).
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
    /// Multi-user mode with HTTP sessions: the token the last successful login of this session
    /// answered, used when a request carries none. One slot per session's server.
    session: Arc<Mutex<Option<Secret>>>,
    /// The level this session's client set with `logging/setLevel` (docs/tools.md, Logging).
    log_level: SessionLevel,
}

/// Per-class tools of classes added at run time.
#[derive(Default)]
struct RuntimeTools {
    /// Every run-time class: single-user mode, and the owner and admin of multi-user mode.
    all: Arc<Table>,
    /// Multi-user mode: the run-time classes of each owner's perspectives, by owner DID.
    by_owner: HashMap<String, Arc<Table>>,
}

struct Inner {
    engine: Arc<Engine>,
    options: ServerOptions,
    /// Static tools and the fixed DNA's per-class tools: built once.
    fixed: Arc<Table>,
    /// Per-class tools of classes added at run time, rebuilt when a model is added.
    runtime: RwLock<Arc<RuntimeTools>>,
    /// Legacy-lifecycle sessions (stdio, HTTP with sessions) to notify of list changes.
    peers: Mutex<Vec<Peer<RoleServer>>>,
    /// 2026-07-28 `subscriptions/listen` streams, by a number of their own.
    sinks: Mutex<Vec<(u64, SubscriptionSink)>>,
    next_sink: std::sync::atomic::AtomicU64,
    /// Resource subscriptions of every session and listen stream.
    subscriptions: Arc<Subscriptions>,
    /// Engine calls under way ([`StoreCall`]): a call that finds none runs on its worker.
    store_calls: Arc<std::sync::atomic::AtomicUsize>,
}

const INSTRUCTIONS: &str = "Data lives in perspectives as instances of SHACL classes. Start with list_perspectives \
     (or add_perspective), then describe_perspective to learn the classes and their properties; create, query \
     and change instances with the instance_* tools (or the per-class tools when listed). Every write is \
     validated: a failure comes back as a tool error listing every problem.";

const MULTI_USER_INSTRUCTIONS: &str = " This server is multi-user: call signup (once) and login_email first, then \
     send the token as Authorization: Bearer <token>; you see only the perspectives you created. auth_status tells \
     whether you are logged in.";

impl McpServer {
    pub fn new(engine: Arc<Engine>, options: ServerOptions) -> McpServer {
        let surface = SurfaceOptions {
            class_tools: options.class_tools,
            multi_user: options.accounts.is_some(),
        };
        let fixed = Arc::new(Table::build(surface, engine.fixed(), &options.custom_tools));
        let server = McpServer {
            inner: Arc::new(Inner {
                engine,
                options,
                fixed,
                runtime: RwLock::default(),
                peers: Mutex::default(),
                sinks: Mutex::default(),
                next_sink: Default::default(),
                subscriptions: Arc::default(),
                store_calls: Arc::default(),
            }),
            session: Arc::default(),
            log_level: SessionLevel::default(),
        };
        server.refresh_runtime_tools();
        server
    }

    /// The same server with a session slot of its own: what the HTTP transport serves each
    /// session (or stateless request) with, so that a login in one session is not another's.
    pub fn for_session(&self) -> McpServer {
        McpServer {
            inner: self.inner.clone(),
            session: Arc::default(),
            log_level: SessionLevel::default(),
        }
    }

    fn multi_user(&self) -> bool {
        self.inner.options.accounts.is_some()
    }

    /// docs/errors.md step 4: who is calling, from the request's parts (`None`: stdio), without
    /// rejecting yet. Single-user mode: the admin credential or nothing. Multi-user mode: the
    /// admin credential, else a user's JWT from the `Authorization` header, else (with HTTP
    /// sessions) the token a login in this session answered.
    pub fn identify(&self, parts: Option<&http::request::Parts>) -> Caller {
        let credential = self.inner.options.admin_credential.as_ref();
        let Some(accounts) = &self.inner.options.accounts else {
            return Caller::from_request(parts, credential);
        };
        let Some(parts) = parts else { return Caller::Stdio };
        let bearer = Caller::bearer(parts);
        if let (Some(token), Some(credential)) = (bearer, credential)
            && credential.matches(token)
        {
            return Caller::HttpAdmin;
        }
        let remembered = self.session.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let token = match (bearer, &remembered) {
            (Some(token), _) => token,
            (None, Some(secret)) => secret.expose(),
            (None, None) => return Caller::Guest(None),
        };
        match accounts.identify(token) {
            Ok(user) => Caller::User(user),
            Err(refused) => Caller::Guest(Some(refused)),
        }
    }

    pub fn engine(&self) -> &Arc<Engine> {
        &self.inner.engine
    }

    pub fn options(&self) -> &ServerOptions {
        &self.inner.options
    }

    /// Rebuilds the per-class tools of run-time classes: one family per class name over every
    /// perspective, in order of first registration, with the most recent shape of that name
    /// (in multi-user mode also one such set per owner, over that owner's perspectives).
    pub fn refresh_runtime_tools(&self) {
        let classes = self.runtime_classes().unwrap_or_else(|e| {
            tracing::warn!(kind = "models", error = %e, "could not read the registered models");
            Vec::new()
        });
        let table = |classes: Vec<Arc<Class>>| {
            let mut table = Table::default();
            for class in classes {
                table.add_class(class);
            }
            Arc::new(table)
        };
        let mut by_owner: HashMap<String, Vec<Arc<Class>>> = HashMap::new();
        if self.multi_user() {
            for (owner, class) in &classes {
                latest(by_owner.entry(owner.clone()).or_default(), class.clone());
            }
        }
        let mut all = Vec::new();
        for (_, class) in classes {
            latest(&mut all, class);
        }
        let runtime = RuntimeTools {
            all: table(all),
            by_owner: by_owner
                .into_iter()
                .map(|(owner, classes)| (owner, table(classes)))
                .collect(),
        };
        *self.inner.runtime.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(runtime);
    }

    /// Every run-time class with the owner of its perspective, perspectives in order of
    /// creation and classes in order of registration.
    fn runtime_classes(&self) -> Result<Vec<(String, Arc<Class>)>, ToolError> {
        let engine = &self.inner.engine;
        let tx = engine.store().read()?;
        let mut found = Vec::new();
        for p in tx.perspectives()? {
            for class in engine.classes(&*tx, &p.uuid)? {
                if !engine.fixed().has_class(&class.name) {
                    found.push((p.owner.clone(), class));
                }
            }
        }
        Ok(found)
    }

    /// The run-time per-class tools `caller` may see: all of them in single-user mode (calls
    /// are refused later for the unauthenticated); in multi-user mode those of the user's own
    /// perspectives, all for the owner and the admin, none for a guest.
    fn runtime_tools(&self, caller: &Caller) -> Option<Arc<Table>> {
        let runtime = self.inner.runtime.read().unwrap_or_else(|e| e.into_inner()).clone();
        if !self.multi_user() {
            return Some(runtime.all.clone());
        }
        match caller {
            Caller::User(user) => runtime.by_owner.get(&user.did).cloned(),
            Caller::Guest(_) | Caller::HttpAnonymous => None,
            Caller::Stdio | Caller::HttpOpen | Caller::HttpAdmin => Some(runtime.all.clone()),
        }
    }

    fn lookup(&self, name: &str, caller: &Caller) -> Option<Arc<super::table::TableTool>> {
        if let Some(tool) = self.inner.fixed.get(name) {
            return Some(tool.clone());
        }
        self.runtime_tools(caller)?.get(name).cloned()
    }

    /// The tools a caller sees: static tools; per-class tools when on (those of run-time
    /// classes only for callers that may call tools and, in multi-user mode, can see a
    /// perspective with the class).
    pub fn visible_tools(&self, caller: Caller) -> Vec<Tool> {
        let class_tools = self.inner.options.class_tools;
        let mut tools: Vec<Tool> = self
            .inner
            .fixed
            .tools
            .iter()
            .filter(|t| class_tools || !matches!(t.entry, Entry::Class { .. }))
            .map(|t| t.tool.clone())
            .collect();
        if class_tools
            && caller.may_call_tools()
            && let Some(runtime) = self.runtime_tools(&caller)
        {
            tools.extend(runtime.tools.iter().map(|t| t.tool.clone()));
        }
        tools
    }

    /// One `tools/call`, transport-independent: the checks of docs/errors.md steps 5 to 11. The
    /// caller's address for rate limits is the local one (stdio, in-process use).
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        caller: Caller,
    ) -> Result<CallToolResult, ErrorData> {
        self.call_as(name, arguments, &caller, "stdio", false, None).await
    }

    /// One `tools/call` from an HTTP request's parts (`None`: stdio): identifies the caller
    /// ([`McpServer::identify`]), takes the client's address from [`ClientAddr`] for rate
    /// limits, and with a session (`Mcp-Session-Id`) remembers the token of a login.
    pub async fn call_request(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        parts: Option<&http::request::Parts>,
    ) -> Result<CallToolResult, ErrorData> {
        self.call_from(name, arguments, parts, None).await
    }

    /// The static tool called `name`, if it is one (they are all in the fixed table).
    fn static_tool(&self, name: &str) -> Option<StaticTool> {
        match self.inner.fixed.get(name)?.entry {
            Entry::Static(which) => Some(which),
            _ => None,
        }
    }

    /// Whether a `tools/call` of `name` is answered the same without rmcp's request context
    /// (stateless HTTP's direct route, `super::http::direct`): not a routed tool (which reads
    /// the context), and not one whose call may notify (add_model and forget change the tool
    /// list and the resources). An unknown name qualifies: its error needs no context either.
    pub(crate) fn answers_without_context(&self, name: &str) -> bool {
        self.inner.fixed.get(name).is_none_or(|tool| {
            !matches!(
                tool.entry,
                Entry::Static(StaticTool::AddModel | StaticTool::Forget) | Entry::Custom(CustomCall::Routed(_))
            )
        })
    }

    /// [`McpServer::call_request`], with the MCP request's context when there is one (a tool of
    /// [`super::CustomTool::router`] needs it).
    async fn call_from(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        parts: Option<&http::request::Parts>,
        context: Option<RequestContext<RoleServer>>,
    ) -> Result<CallToolResult, ErrorData> {
        let caller = self.identify(parts);
        let client = match parts {
            None => "stdio".to_string(),
            Some(parts) => match parts.extensions.get::<ClientAddr>() {
                Some(ClientAddr(ip)) => format!("ip:{}", ip.to_canonical()),
                None => "ip:unknown".to_string(),
            },
        };
        let session = parts.is_some_and(|p| p.headers.contains_key("mcp-session-id"));
        self.call_as(name, arguments, &caller, &client, session, context).await
    }

    async fn call_as(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        caller: &Caller,
        client: &str,
        session: bool,
        context: Option<RequestContext<RoleServer>>,
    ) -> Result<CallToolResult, ErrorData> {
        let started = std::time::Instant::now();
        let Some(tool) = self.lookup(name, caller) else {
            return Err(ErrorData::invalid_params(
                format!("unknown tool '{name}'"),
                Some(json!({ "tool": name })),
            ));
        };
        if let Entry::Class { class, .. } = &tool.entry
            && !self.inner.options.class_tools
        {
            return Ok(refusal(per_class_off(name, &class.name)));
        }
        if !caller.may_call_tools() && !AUTH_TOOLS.contains(&name) {
            return Ok(refusal(caller.not_authenticated()));
        }
        let args = Value::Object(arguments.unwrap_or_default());
        let problems = arguments::check(&tool, &args);
        let args = match args {
            Value::Object(args) => args,
            _ => Map::new(),
        };
        let outcome = if !problems.is_empty() {
            Err(ToolError::Invalid(Envelope {
                subject: Subject::Tool(name.to_string()),
                problems,
            }))
        } else if let Entry::Static(StaticTool::GetDocumentation) = tool.entry {
            documentation::answer(&args)
        } else if let Entry::Static(StaticTool::AuthStatus) = tool.entry {
            Ok(match self.multi_user() {
                false => caller.status(),
                true => caller.multi_user_status(self.inner.engine.store().did()),
            })
        } else if let Some(accounts) = self.inner.options.accounts.clone()
            && let Entry::Static(which) = tool.entry
            && which.is_account_tool()
        {
            let client = client.to_string();
            let outcome = tokio::task::spawn_blocking(move || account_tools::call(&accounts, which, &args, &client))
                .await
                .unwrap_or_else(|e| Err(ToolError::Internal(format!("the call failed: {e}"))));
            if session
                && which.is_login()
                && let Ok(answer) = &outcome
            {
                let token = answer.get("token").and_then(Value::as_str).and_then(Secret::new);
                *self.session.lock().unwrap_or_else(|e| e.into_inner()) = token;
            }
            outcome
        } else if let Entry::Custom(CustomCall::Routed(route)) = &tool.entry {
            return match self.engine_for(caller) {
                Err(refused) => Ok(refusal(refused)),
                Ok(engine) => routed(route.clone(), engine, name, args, context, started).await,
            };
        } else {
            match self.engine_for(caller) {
                Err(refused) => return Ok(refusal(refused)),
                Ok(engine) if dispatch::runs_inline(&tool.entry, self.inner.options.local_store) => {
                    dispatch::call_inline(&engine, name, &tool.entry, &args)
                }
                Ok(engine) => match StoreCall::start(&self.inner.store_calls, self.inner.options.local_store) {
                    StoreCall::Alone(_call) => dispatch::call_inline(&engine, name, &tool.entry, &args),
                    StoreCall::Beside(call) => {
                        let (tool, tool_name) = (tool.clone(), name.to_string());
                        tokio::task::spawn_blocking(move || {
                            let _call = call;
                            dispatch::call(&engine, &tool_name, &tool.entry, &args)
                        })
                        .await
                        .unwrap_or_else(|e| Err(ToolError::Internal(format!("the call failed: {e}"))))
                    }
                },
            }
        };
        let kind = match &outcome {
            Ok(_) => "ok",
            Err(ToolError::Invalid(_)) => "invalid",
            Err(ToolError::Refused { .. }) => "refused",
            Err(ToolError::Internal(_)) => "internal",
        };
        tracing::info!(
            kind = "tools/call",
            tool = name,
            outcome = kind,
            elapsed_us = started.elapsed().as_micros() as u64
        );
        match outcome {
            Ok(value) => Ok(CallToolResult::structured(value)),
            Err(ToolError::Invalid(envelope)) if self.inner.options.jsonrpc_validation_errors => {
                let data = envelope.to_json();
                let message = data["error"].as_str().unwrap_or("invalid arguments").to_string();
                Err(ErrorData::invalid_params(message, Some(data)))
            }
            Err(e) => tool_error(Some(name), e),
        }
    }

    /// The engine a caller's tools run on: acting for the user, or for the node's owner.
    /// `Err` with the refusal when the user's key cannot be had.
    fn engine_for(&self, caller: &Caller) -> Result<Arc<Engine>, Value> {
        let engine = &self.inner.engine;
        let (Caller::User(user), Some(accounts)) = (caller, &self.inner.options.accounts) else {
            return Ok(engine.clone());
        };
        match accounts.key(&user.did) {
            Ok(Some(key)) => Ok(Arc::new(engine.as_user(key))),
            Ok(None) => Err(Caller::Guest(Some(crate::accounts::TokenRefusal::UnknownUser)).not_authenticated()),
            Err(e) => {
                tracing::warn!(kind = "auth", error = %e, "could not read a user's key");
                Err(Caller::Guest(Some(crate::accounts::TokenRefusal::Unchecked)).not_authenticated())
            }
        }
    }

    /// The engine resources are read on for this request's caller: the tools' access rules (a
    /// user sees their own perspectives), and the tools' refusal, as -32600, for a caller who
    /// may call no tool.
    fn resource_engine(&self, parts: Option<&http::request::Parts>) -> Result<Arc<Engine>, ErrorData> {
        let caller = self.identify(parts);
        if !caller.may_call_tools() {
            return Err(ErrorData::invalid_request(
                "not authenticated",
                Some(caller.not_authenticated()),
            ));
        }
        self.engine_for(&caller)
            .map_err(|refused| ErrorData::invalid_request("not authenticated", Some(refused)))
    }

    /// After add_model (or a forget that took models away): rebuild the run-time tools and tell
    /// every client that listens.
    async fn tools_changed(&self, current: &RequestContext<RoleServer>) {
        self.refresh_runtime_tools();
        self.broadcast_tools_changed().await;
        // Stateless legacy HTTP: no session to keep, so the notification rides on the response
        // to the call that caused it.
        let parts = current.extensions.get::<http::request::Parts>();
        let stateless = parts.is_some_and(|p| !p.headers.contains_key("mcp-session-id"));
        if stateless {
            let _ = current.peer.notify_tool_list_changed().await;
        }
    }

    /// The models of `perspective` changed on another node sharing the database (or on this
    /// one: the database cannot tell): read them again, rebuild the run-time tools and tell
    /// every client that listens here.
    pub async fn models_changed(&self, perspective: &str) {
        self.inner.engine.invalidate_models(perspective);
        self.refresh_runtime_tools();
        self.broadcast_tools_changed().await;
        self.inner.subscriptions.perspective_changed(perspective).await;
    }

    /// The session a legacy-lifecycle request belongs to, for its resource subscriptions: this
    /// server's session slot (one per HTTP session, one for stdio). Stateless HTTP has none:
    /// nothing could carry a notification after the response.
    fn subscription_session(&self, context: &RequestContext<RoleServer>) -> Result<usize, ErrorData> {
        let stateless = context
            .extensions
            .get::<http::request::Parts>()
            .is_some_and(|p| !p.headers.contains_key("mcp-session-id"));
        if stateless {
            return Err(ErrorData::invalid_request(
                "resources/subscribe needs a session to notify: serve HTTP with sessions (--http-sessions true), or use the 2026-07-28 lifecycle's subscriptions/listen",
                None,
            ));
        }
        Ok(Arc::as_ptr(&self.session) as usize)
    }

    /// `notifications/tools/list_changed` to every saved session and `subscriptions/listen` stream.
    async fn broadcast_tools_changed(&self) {
        let peers: Vec<Peer<RoleServer>> = self.inner.peers.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let mut dead = Vec::new();
        for (i, peer) in peers.iter().enumerate() {
            if peer.notify_tool_list_changed().await.is_err() {
                dead.push(i);
            }
        }
        if !dead.is_empty() {
            let mut saved = self.inner.peers.lock().unwrap_or_else(|e| e.into_inner());
            let mut i = 0;
            saved.retain(|_| {
                i += 1;
                !dead.contains(&(i - 1))
            });
        }
        let sinks: Vec<SubscriptionSink> = self
            .inner
            .sinks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(_, s)| s.clone())
            .collect();
        for sink in sinks {
            let _ = sink.notify_tool_list_changed().await;
        }
    }
}

/// An engine call under way, counted while it lives. With a local store, a call that finds no
/// other under way runs on the async worker that received it ([`StoreCall::Alone`]): no call of
/// this server holds the writer, and it saves the two thread switches of `spawn_blocking`, a
/// fifth of a create's server time (`runtime/benches/results/query-and-http-2026-12-07.md`,
/// section 8). Beside others it goes to the blocking pool, so that calls queued for the writer
/// never hold the workers. (Another process writing the same file can still keep a lone write
/// waiting, up to the store's busy timeout, on one worker.)
enum StoreCall {
    Alone(CallGuard),
    Beside(CallGuard),
}

struct CallGuard(Arc<std::sync::atomic::AtomicUsize>);

impl StoreCall {
    fn start(calls: &Arc<std::sync::atomic::AtomicUsize>, local: bool) -> StoreCall {
        use std::sync::atomic::Ordering;
        let guard = CallGuard(calls.clone());
        if local
            && calls
                .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        {
            return StoreCall::Alone(guard);
        }
        calls.fetch_add(1, Ordering::AcqRel);
        StoreCall::Beside(guard)
    }
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

/// Whether a successful call of `tool` added or took away run-time classes: add_model, or a
/// forget that erased a perspective with models.
fn changes_models(tool: Option<StaticTool>, result: &CallToolResult) -> bool {
    match tool {
        Some(StaticTool::AddModel) => true,
        Some(StaticTool::Forget) => result
            .structured_content
            .as_ref()
            .and_then(|r| r["erased"]["models"].as_u64())
            .is_some_and(|models| models > 0),
        _ => false,
    }
}

/// Puts `class` into `found`: replacing a class of the same name (the most recent shape wins,
/// in the place of the first).
/// Runs a store read off the async workers (the stores are synchronous).
async fn blocking<T: Send + 'static>(
    read: impl FnOnce() -> Result<T, ErrorData> + Send + 'static,
) -> Result<T, ErrorData> {
    tokio::task::spawn_blocking(read)
        .await
        .unwrap_or_else(|e| Err(ErrorData::internal_error(format!("the read failed: {e}"), None)))
}

fn latest(found: &mut Vec<Arc<Class>>, class: Arc<Class>) {
    match found.iter_mut().find(|c| c.name == class.name) {
        Some(slot) => *slot = class,
        None => found.push(class),
    }
}

/// A routed tool's call ([`CustomTool::router`]): on the blocking pool, with the caller's
/// engine in the request's extensions; its answer is rmcp's, logged as the table's are.
async fn routed(
    route: Arc<dyn Route>,
    engine: Arc<Engine>,
    name: &str,
    args: Map<String, Value>,
    context: Option<RequestContext<RoleServer>>,
    started: std::time::Instant,
) -> Result<CallToolResult, ErrorData> {
    let Some(mut context) = context else {
        return Err(ErrorData::internal_error(
            format!("{name} is an rmcp tool: it is served to MCP requests only"),
            None,
        ));
    };
    context.extensions.insert(engine);
    let tool = name.to_string();
    let answer = tokio::task::spawn_blocking(move || route.call(context, &tool, args))
        .await
        .unwrap_or_else(|e| Err(ErrorData::internal_error(format!("the call failed: {e}"), None)));
    let (outcome, answer) = match answer {
        Ok(CallToolResponse::Complete(result)) => {
            (if result.is_error == Some(true) { "refused" } else { "ok" }, Ok(result))
        }
        Ok(_) => (
            "internal",
            Err(ErrorData::internal_error(
                format!("{name} asked for input, which this server does not relay"),
                None,
            )),
        ),
        Err(e) => ("internal", Err(e)),
    };
    tracing::info!(
        kind = "tools/call",
        tool = name,
        outcome,
        elapsed_us = started.elapsed().as_micros() as u64
    );
    answer
}

fn refusal(body: Value) -> CallToolResult {
    CallToolResult::structured_error(body)
}

/// A tool's error as its answer (docs/errors.md): a refusal or invalid arguments as an
/// `isError` result with the envelope, an internal failure as JSON-RPC -32603 whose details
/// stay in the log. The generated tools' and the routed hand-written ones' alike.
pub(super) fn tool_error(tool: Option<&str>, error: ToolError) -> Result<CallToolResult, ErrorData> {
    match error {
        ToolError::Internal(e) => {
            match tool {
                Some(tool) => tracing::error!(kind = "internal", tool, error = %e),
                None => tracing::error!(kind = "internal", error = %e),
            }
            Err(ErrorData::internal_error("internal error: nothing was written", None))
        }
        e => Ok(refusal(e.to_json().unwrap_or_default())),
    }
}

/// docs/errors.md: a per-class tool while per-class tools are off names the instance_* call.
fn per_class_off(tool: &str, class: &str) -> Value {
    let suffix = tool
        .strip_prefix(&shacl_mcp_compiler::naming::class_prefix(class))
        .unwrap_or(tool)
        .trim_start_matches('_');
    let instead = match suffix {
        "create" => "instance_create",
        "query" | "list" => "instance_query",
        "get" => "instance_get",
        "delete" => "instance_remove",
        s if s.starts_with("set_") => "instance_update",
        s if s.starts_with("get_") => "instance_get",
        s if s.starts_with("add_") => "instance_add_to_collection",
        s if s.starts_with("remove_") => "instance_remove_from_collection",
        _ => "the instance_* tools",
    };
    json!({
        "error": format!("Per-class tools are off on this server: '{tool}' is not available"),
        "hint": format!(
            "Use {instead} with class_name: \"{class}\" instead, or restart the server with --dynamic-class-tools true to get per-class tools."
        ),
    })
}

impl ServerHandler for McpServer {
    #[allow(deprecated)] // enable_logging: see mcp/logging.rs
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_completions()
            .enable_logging()
            .enable_prompts()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(
                self.inner.options.server_name.clone(),
                self.inner.options.server_version.clone(),
            ))
            .with_instructions(if self.multi_user() {
                format!("{INSTRUCTIONS}{MULTI_USER_INSTRUCTIONS}")
            } else {
                INSTRUCTIONS.to_string()
            })
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let caller = self.identify(context.extensions.get());
        Ok(ListToolsResult::with_all_items(self.visible_tools(caller)))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        let which = self.static_tool(&name);
        // forget's record, to tell its subscribers here (the log keeps no trace of it).
        let forgotten = match (which, &request.arguments) {
            (Some(StaticTool::Forget), Some(args)) => {
                let text = |key: &str| args.get(key).and_then(Value::as_str);
                text("perspective_id").zip(text("base_uri"))
            }
            _ => None,
        }
        .map(|(p, record)| (p.to_string(), record.to_string()));
        let started = std::time::Instant::now();
        let answer = self
            .call_from(
                &name,
                request.arguments,
                context.extensions.get(),
                Some(context.clone()),
            )
            .await;
        let elapsed_us = started.elapsed().as_micros() as u64;
        (self.log_level)
            .tool_call(&context.peer, &name, Outcome::of(&answer), elapsed_us)
            .await;
        let result = answer?;
        if let Some((p, record)) = &forgotten
            && result.is_error != Some(true)
        {
            self.inner.subscriptions.forgotten(p, record).await;
        }
        if result.is_error != Some(true) && changes_models(which, &result) {
            if self.inner.options.class_tools {
                self.tools_changed(&context).await;
            }
            if let Some(perspective) = result
                .structured_content
                .as_ref()
                .and_then(|r| r["perspective_id"].as_str())
            {
                self.inner.subscriptions.perspective_changed(perspective).await;
            }
        }
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let engine = self.resource_engine(context.extensions.get())?;
        let cursor = request.and_then(|r| r.cursor);
        blocking(move || resources::list(&engine, cursor.as_deref())).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(resources::templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let engine = self.resource_engine(context.extensions.get())?;
        let uri = request.uri;
        Ok(blocking(move || resources::read(&engine, &uri)).await?.into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(prompts::list())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        Ok(prompts::get(&request.name, request.arguments.as_ref())?.into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let engine = self.resource_engine(context.extensions.get())?;
        blocking(move || completions::complete(&engine, &request)).await
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log_level.set(request.level);
        Ok(())
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        // rmcp checks request headers against a tool's schema: any caller's tool will do.
        self.lookup(name, &Caller::Stdio).map(|t| t.tool.clone())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // Stateless HTTP makes a server per request: its peer dies with the response.
        if context
            .extensions
            .get::<http::request::Parts>()
            .is_some_and(|p| !p.headers.contains_key("mcp-session-id"))
        {
            return;
        }
        self.inner
            .peers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(context.peer);
    }

    /// Tool list changes, and updates of this server's resource URIs (whether the caller may
    /// read them is checked in `listen`, which knows the caller: it hears of those only).
    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::builder();
        if requested.tools_list_changed == Some(true) {
            accepted = accepted.tools_list_changed();
        }
        let uris: Vec<&String> = requested
            .resource_subscriptions
            .iter()
            .flatten()
            .filter(|uri| resources::perspective_of(uri).is_some())
            .collect();
        if !uris.is_empty() {
            accepted = accepted.resource_subscriptions(uris.into_iter().cloned());
        }
        let accepted = accepted.build();
        (accepted != SubscriptionFilter::default()).then_some(accepted)
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let session = self.subscription_session(&context)?;
        let engine = self.resource_engine(context.extensions.get())?;
        let subscriptions = self.inner.subscriptions.clone();
        subscriptions
            .subscribe(engine, session, context.peer, request.uri)
            .await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let session = self.subscription_session(&context)?;
        self.inner.subscriptions.unsubscribe(session, &request.uri);
        Ok(())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let sink = context.sink().clone();
        let id = self.inner.next_sink.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.inner
            .sinks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((id, sink.clone()));
        let requested = context.accepted().resource_subscriptions.clone().unwrap_or_default();
        let mut resources = std::collections::BTreeSet::new();
        if !requested.is_empty() {
            let engine = self.resource_engine(context.request_context().extensions.get());
            if let Ok(engine) = engine {
                let subscriptions = self.inner.subscriptions.clone();
                resources = subscriptions.listen(engine, id, sink.clone(), &requested).await?;
            }
        }
        // rmcp acknowledges before calling listen: a change in between would be lost, so send
        // one catch-up notification now (docs/design.md, Protocol), for each resource too.
        let _ = sink.notify_tool_list_changed().await;
        for uri in resources {
            let _ = sink.notify_resource_updated(uri).await;
        }
        context.cancelled().await;
        self.inner
            .sinks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(i, _)| *i != id);
        self.inner.subscriptions.end_listen(id);
        Ok(())
    }
}
