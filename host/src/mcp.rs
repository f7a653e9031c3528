//! `webrig mcp`: the command registry as an MCP server over stdio (the way
//! MCP clients start a tool), on the official Rust SDK (`rmcp`).
//!
//! Every command is a tool: its API name, its description, and the JSON
//! Schema of its arguments, all from the registry (no list kept by hand; a
//! test compares them). A call goes to the daemon exactly as the CLI's
//! would (the owner's Unix socket, started when needed), so MCP and the
//! CLI cannot drift. Results: the CLI's rendering as text (snapshots read
//! as outlines), the JSON as structured content, screenshots as images;
//! errors as `isError` with their code, message and hint.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};

use crate::client::Client;
use crate::commands::envelope::Request;
use crate::commands::{self, Entry};
use crate::config::Home;

/// What an agent needs for most tasks (so its context is not flooded with
/// every schema): navigate, look, act, read, tabs, capture, and what the
/// person sends from the browser.
pub const CORE: &[&str] = &[
    "goto",
    "snapshot",
    "click",
    "fill",
    "type",
    "press",
    "select",
    "wait",
    "text",
    "eval",
    "tabs",
    "screenshot",
    "inbox_consume",
];

/// Which tools a server offers.
pub fn choose(tools: &str) -> Result<Vec<&'static Entry>, String> {
    let all = commands::registry();
    match tools {
        "all" => Ok(all.iter().collect()),
        "core" => Ok(CORE.iter().filter_map(|n| commands::find(n)).collect()),
        list => list
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(|n| {
                commands::find(n).ok_or_else(|| {
                    format!("--tools: no command {n:?} (core, all, or names from docs/SURFACE.md)")
                })
            })
            .collect(),
    }
}

/// One registry entry as an MCP tool.
pub fn tool(entry: &Entry) -> Tool {
    let mut schema = serde_json::to_value(entry.args_schema()).unwrap_or(json!({}));
    let mut object = match schema.as_object_mut() {
        Some(o) => std::mem::take(o),
        None => Map::new(),
    };
    object.remove("$schema");
    object.remove("title");
    object.insert("type".into(), json!("object"));
    let annotations = ToolAnnotations::from_raw(
        Some(entry.cli_name().to_string()),
        Some(entry.read_only()),
        Some(entry.destructive()),
        None,
        Some(true),
    );
    Tool::new(
        entry.api_name().to_string(),
        entry.about(),
        Arc::new(object),
    )
    .with_annotations(annotations)
}

/// Where tool calls go.
#[derive(Clone)]
pub enum Backend {
    /// The daemon's Unix socket, as the CLI talks to it (`webrig mcp`).
    Socket { home: Home, port: u16 },
    /// Inside the daemon (`/mcp`): the same dispatch as `/command`.
    InProcess(Arc<crate::rig::State>),
}

/// The MCP server: a registry subset, a session, where calls go.
#[derive(Clone)]
pub struct Server {
    tools: Vec<&'static Entry>,
    session: String,
    client_id: Option<String>,
    backend: Backend,
}

impl Server {
    pub fn new(
        tools: Vec<&'static Entry>,
        session: String,
        client_id: Option<String>,
        backend: Backend,
    ) -> Server {
        Server {
            tools,
            session,
            client_id,
            backend,
        }
    }

    /// Runs one tool call through the daemon.
    async fn call(&self, entry: &'static Entry, args: Value) -> CallToolResult {
        let mut request = Request {
            id: None,
            session: Some(self.session.clone()),
            tab: None,
            command: entry.api_name().to_string(),
            args,
            timeout_ms: None,
            client: self.client_id.clone(),
            wait_lease: false,
            local_files: false,
            events: None,
        };
        let response = match &self.backend {
            Backend::Socket { home, port } => {
                let client = Client::new(home.clone(), *port);
                let timeout = entry.timeout_for(&request.args);
                let autostart = entry.autostart();
                let sent = tokio::task::spawn_blocking(move || {
                    client.send(&request, autostart, timeout, None)
                })
                .await;
                match sent {
                    Ok(Ok((_, response))) => response,
                    Ok(Err(e)) => {
                        return CallToolResult::error(vec![ContentBlock::text(format!(
                            "outcome_unknown: the daemon did not answer: {e:#}"
                        ))]);
                    }
                    Err(e) => {
                        return CallToolResult::error(vec![ContentBlock::text(format!(
                            "internal: {e}"
                        ))]);
                    }
                }
            }
            Backend::InProcess(state) => {
                // The HTTP door: local files only when config.toml says so.
                request.local_files = state.access().http_local_files;
                crate::commands::dispatch::dispatch(state.clone(), request).await
            }
        };
        match (response.result, response.error) {
            (_, Some(error)) => {
                let mut text = format!("{}: {}", error.code(), error.message());
                if let Some(hint) = error.hint() {
                    text.push_str(&format!("\nhint: {hint}"));
                }
                CallToolResult::error(vec![ContentBlock::text(text)])
            }
            (result, None) => answer(entry, result.unwrap_or(Value::Null)),
        }
    }
}

/// A command's result as MCP content.
fn answer(entry: &Entry, result: Value) -> CallToolResult {
    let mut content = Vec::new();
    if entry.api_name() == "screenshot"
        && let Some(path) = result["path"].as_str()
        && let Ok(bytes) = std::fs::read(path)
    {
        use base64::Engine;
        let mime = if path.ends_with(".jpg") || path.ends_with(".jpeg") {
            "image/jpeg"
        } else {
            "image/png"
        };
        content.push(ContentBlock::image(
            base64::engine::general_purpose::STANDARD.encode(&bytes),
            mime,
        ));
    }
    let text = entry
        .human(&result)
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| result.to_string());
    content.push(ContentBlock::text(text));
    let mut out = CallToolResult::success(content);
    if result.is_object() {
        out.structured_content = Some(result);
    }
    if entry.failed(out.structured_content.as_ref().unwrap_or(&Value::Null)) {
        out.is_error = Some(true);
    }
    out
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("webrig", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "webrig drives a browser: goto a URL, take a snapshot (an outline with @e refs), \
                 act on refs (click, fill, type, press, select), read (text, eval), wait. \
                 Refs go stale after the page changes: take a new snapshot. Errors name a code \
                 and a hint; `webrig skill` prints the full guide.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        // rmcp's result types are non_exhaustive: no struct literal.
        #[allow(clippy::field_reassign_with_default)]
        let out = {
            let mut out = ListToolsResult::default();
            out.tools = self.tools.iter().map(|e| tool(e)).collect();
            out
        };
        Ok(out)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(entry) = self
            .tools
            .iter()
            .find(|e| e.api_name() == request.name.as_ref())
            .copied()
        else {
            return Err(McpError::invalid_params(
                format!("no tool {:?} here (see tools/list)", request.name),
                None,
            ));
        };
        let mut args = Value::Object(request.arguments.unwrap_or_default());
        // The inbox is read by scope: an MCP client's is its --client id,
        // else the name it gave at initialize. Reading renews the scope,
        // so sends from the browser route to this agent.
        if matches!(entry.api_name(), "inbox_consume" | "inbox_list")
            && args.get("scope").is_none_or(Value::is_null)
            && let Some(scope) = self
                .client_id
                .clone()
                .or_else(|| context.peer.peer_info().map(|p| p.client_info.name.clone()))
                .as_deref()
                .and_then(crate::rig::inbox::scope_of)
        {
            args["scope"] = Value::String(scope);
        }
        Ok(self.call(entry, args).await.into())
    }
}

/// MCP over Streamable HTTP for the daemon's `/mcp` (behind its token,
/// Host and Origin checks): every tool, acting in session `default`.
pub fn http_service(
    state: Arc<crate::rig::State>,
) -> rmcp::transport::streamable_http_server::StreamableHttpService<
    Server,
    rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
> {
    let server = Server::new(
        commands::registry().iter().collect(),
        "default".into(),
        None,
        Backend::InProcess(state),
    );
    // Stateless, plain JSON answers: tools need no server-to-client
    // requests, and each call stands alone (as on `/command`).
    // Non_exhaustive: set field by field.
    #[allow(clippy::field_reassign_with_default)]
    let config = {
        let mut config =
            rmcp::transport::streamable_http_server::StreamableHttpServerConfig::default();
        config.legacy_session_mode = false;
        config.json_response = true;
        config
    };
    rmcp::transport::streamable_http_server::StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::default(),
        config,
    )
}

/// Serves MCP on stdin/stdout until the client goes away.
pub fn serve_stdio(server: Server) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| anyhow::anyhow!("starting MCP: {e}"))?;
        running
            .waiting()
            .await
            .map_err(|e| anyhow::anyhow!("MCP: {e}"))?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_is_a_tool_with_an_object_schema_and_core_is_a_subset() {
        let all = choose("all").expect("all");
        let names: Vec<&str> = all.iter().map(|e| e.api_name()).collect();
        let registry: Vec<&str> = commands::registry().iter().map(|e| e.api_name()).collect();
        assert_eq!(names, registry, "the tool list is the registry");
        for e in &all {
            let t = tool(e);
            assert_eq!(t.name, e.api_name());
            assert_eq!(
                t.input_schema.get("type"),
                Some(&json!("object")),
                "{}",
                e.api_name()
            );
            assert!(t.description.as_deref().is_some_and(|d| !d.is_empty()));
        }
        let core = choose("core").expect("core");
        assert_eq!(core.len(), CORE.len(), "every core tool is a command");
        assert!(choose("goto,nope").is_err());
        let snapshot = tool(commands::find("snapshot").expect("snapshot"));
        let hints = snapshot.annotations.expect("annotations");
        assert_eq!(hints.read_only_hint, Some(true));
        let close = tool(commands::find("close").expect("close"));
        assert_eq!(close.annotations.expect("a").destructive_hint, Some(true));
    }
}
