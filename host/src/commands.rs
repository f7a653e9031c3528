//! THE command registry: every command is one typed struct and its handler.
//!
//! The CLI's subcommands, `POST /command` dispatch, the MCP tools,
//! `docs/SURFACE.md` and `docs/openapi.json` are all derived from
//! [`registry`], so the surfaces cannot drift. A command struct derives
//! `clap::Args` (CLI flags, help), `serde` (the JSON `args` of the HTTP API)
//! and `schemars::JsonSchema` (docs, MCP tool schemas, OpenAPI); field doc
//! comments feed all of them. The scheduler every door hands requests to is
//! [`dispatch`]. This module must not know about sockets or terminals.

mod actions;
mod capture;
mod context;
mod daemon;
mod devtools;
pub mod dispatch;
mod emulate;
pub mod envelope;
mod find;
mod inspect;
mod macros;
mod nav;
pub mod openapi;
mod plugin_dev;
mod plugins;
mod providers;
mod read;
mod relay;
mod scaffold;
mod session;
mod setup;
mod skill;
mod snapshot;
mod state;
pub mod surface;
mod tabs;
mod workflows;

use std::future::Future;
use std::pin::Pin;
use std::sync::LazyLock;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use context::{Cx, HeldTab};
pub use plugin_dev::log_line;

use crate::error::ApiError;

/// What a command needs from the daemon before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Daemon-wide; takes no session lock.
    Daemon,
    /// Runs in an existing session, in order with its other commands.
    Session,
    /// Like `Session`, but creates the session when it does not exist yet.
    SessionCreate,
    /// Acts on one tab: in order with that tab's other commands, in parallel
    /// with other tabs of the session (up to a cap), under the tab's lease.
    Tab,
    /// Like `Tab`, but creates the session (and its browser) when needed.
    TabCreate,
}

impl Scope {
    pub fn creates(self) -> bool {
        matches!(self, Scope::SessionCreate | Scope::TabCreate)
    }

    pub fn per_tab(self) -> bool {
        matches!(self, Scope::Tab | Scope::TabCreate)
    }
}

/// One command of the API. Implementors are plain data plus a handler.
pub trait Command:
    clap::Args + Serialize + DeserializeOwned + JsonSchema + Send + Sized + 'static
{
    /// The CLI words (`"tab new"`) and, with spaces as `_`, the API name.
    const NAME: &'static str;
    const ABOUT: &'static str;
    const SCOPE: Scope;
    /// False for commands that must not start a daemon just to answer.
    const AUTOSTART: bool = true;
    /// True for commands that must get through a saturated or stuck session
    /// (close): they skip the waiting limit and interrupt a stuck command.
    const RESERVED: bool = false;
    /// How to ask for less, told to a caller whose result passed
    /// `limits.result_bytes` (the hint of that `limit_exceeded` error).
    const ASK_FOR_LESS: &'static str = "ask for less (a narrower target or fewer items), \
         or raise result_bytes in [limits] of config.toml";
    /// The deadline when the caller names none, for commands whose work
    /// takes longer than most (a workflow run); the `timeout_ms` argument,
    /// when the command has one, overrides it. None: the daemon's default.
    const DEFAULT_TIMEOUT_MS: Option<u64> = None;
    /// The CLI asks for progress events while it runs (`/command/stream`).
    const STREAMS: bool = false;
    /// Changes nothing (reads the page, lists, describes): MCP's readOnlyHint.
    const READ_ONLY: bool = false;
    /// May destroy what cannot be recovered (closes, removes, deletes):
    /// MCP's destructiveHint.
    const DESTRUCTIVE: bool = false;
    type Output: Serialize + DeserializeOwned + JsonSchema + Send;

    /// Client-side normalization before sending (e.g. relative paths made
    /// absolute against the CLI's working directory).
    fn prepare(&mut self) -> Result<(), ApiError> {
        Ok(())
    }

    fn run(self, cx: Cx) -> impl Future<Output = Result<Self::Output, ApiError>> + Send;

    /// Short human rendering for the CLI.
    fn human(out: &Self::Output) -> String;

    /// The command answered, but what was asked did not happen (every
    /// provider failed a search, a plugin failed verification): the CLI
    /// prints the answer and exits with `plugin_failed`'s code (12).
    fn failed(_out: &Self::Output) -> bool {
        false
    }
}

type BoxFuture = Pin<Box<dyn Future<Output = Result<Value, ApiError>> + Send>>;

/// A command, type-erased for tables.
pub struct Entry {
    cli_name: &'static str,
    api_name: String,
    about: &'static str,
    scope: Scope,
    autostart: bool,
    reserved: bool,
    ask_for_less: &'static str,
    default_timeout_ms: Option<u64>,
    streams: bool,
    read_only: bool,
    destructive: bool,
    augment: fn(clap::Command) -> clap::Command,
    parse: fn(&clap::ArgMatches) -> Result<Value, ApiError>,
    run: fn(Cx, Value) -> BoxFuture,
    check: fn(Value) -> Result<(), ApiError>,
    human: fn(&Value) -> Option<String>,
    failed: fn(&Value) -> bool,
    args_schema: fn() -> schemars::Schema,
    output_schema: fn() -> schemars::Schema,
}

impl Entry {
    fn of<T: Command>() -> Entry {
        Entry {
            cli_name: T::NAME,
            api_name: T::NAME.replace(' ', "_"),
            about: T::ABOUT,
            scope: T::SCOPE,
            autostart: T::AUTOSTART,
            reserved: T::RESERVED,
            ask_for_less: T::ASK_FOR_LESS,
            default_timeout_ms: T::DEFAULT_TIMEOUT_MS,
            streams: T::STREAMS,
            read_only: T::READ_ONLY,
            destructive: T::DESTRUCTIVE,
            augment: |cmd| T::augment_args(cmd),
            parse: parse::<T>,
            run: run::<T>,
            check: |args| decode::<T>(args).map(drop),
            human: |v| {
                serde_json::from_value::<T::Output>(v.clone())
                    .ok()
                    .map(|out| T::human(&out))
            },
            failed: |v| {
                serde_json::from_value::<T::Output>(v.clone()).is_ok_and(|out| T::failed(&out))
            },
            args_schema: || schemars::schema_for!(T),
            output_schema: || schemars::schema_for!(T::Output),
        }
    }

    /// True when an answer says the work did not happen (see [`Command::failed`]).
    pub fn failed(&self, result: &Value) -> bool {
        (self.failed)(result)
    }

    /// The CLI words, e.g. `tab new`.
    pub fn cli_name(&self) -> &'static str {
        self.cli_name
    }

    /// The name in `POST /command`, e.g. `tab_new`.
    pub fn api_name(&self) -> &str {
        &self.api_name
    }

    pub fn about(&self) -> &'static str {
        self.about
    }

    pub fn scope(&self) -> Scope {
        self.scope
    }

    pub fn autostart(&self) -> bool {
        self.autostart
    }

    pub fn reserved(&self) -> bool {
        self.reserved
    }

    /// The deadline a request gets when it names none: its `timeout_ms`
    /// argument for commands that take one, else [`Command::DEFAULT_TIMEOUT_MS`].
    pub fn timeout_for(&self, args: &Value) -> Option<u64> {
        let own = self.default_timeout_ms?;
        Some(
            args.get("timeout_ms")
                .and_then(Value::as_u64)
                .unwrap_or(own),
        )
    }

    /// The CLI streams progress events for this command.
    pub fn streams(&self) -> bool {
        self.streams
    }

    pub fn read_only(&self) -> bool {
        self.read_only
    }

    pub fn destructive(&self) -> bool {
        self.destructive
    }

    /// The hint for a result over `limits.result_bytes`.
    pub fn ask_for_less(&self) -> &'static str {
        self.ask_for_less
    }

    /// Adds this command's arguments to a clap command.
    pub fn augment(&self, cmd: clap::Command) -> clap::Command {
        (self.augment)(cmd)
    }

    /// CLI matches → the JSON `args` the API takes.
    pub fn parse(&self, matches: &clap::ArgMatches) -> Result<Value, ApiError> {
        (self.parse)(matches)
    }

    pub fn run(&self, cx: Cx, args: Value) -> BoxFuture {
        (self.run)(cx, args)
    }

    /// Decodes `args` as this command's arguments without running it.
    pub fn check(&self, args: Value) -> Result<(), ApiError> {
        (self.check)(args)
    }

    /// The CLI's short rendering of a result; None when it does not parse.
    pub fn human(&self, result: &Value) -> Option<String> {
        (self.human)(result)
    }

    pub fn args_schema(&self) -> schemars::Schema {
        (self.args_schema)()
    }

    pub fn output_schema(&self) -> schemars::Schema {
        (self.output_schema)()
    }
}

fn parse<T: Command>(matches: &clap::ArgMatches) -> Result<Value, ApiError> {
    let mut cmd = <T as clap::FromArgMatches>::from_arg_matches(matches)
        .map_err(|e| ApiError::invalid(e.to_string()))?;
    cmd.prepare()?;
    serde_json::to_value(&cmd).map_err(|e| ApiError::internal(format!("encoding arguments: {e}")))
}

fn decode<T: Command>(args: Value) -> Result<T, ApiError> {
    let args = if args.is_null() {
        Value::Object(Default::default())
    } else {
        args
    };
    serde_json::from_value(args).map_err(|e| {
        ApiError::invalid(format!("bad arguments for {}: {e}", T::NAME))
            .with_hint(format!("see webrig {} --help", T::NAME))
    })
}

fn run<T: Command>(cx: Cx, args: Value) -> BoxFuture {
    Box::pin(async move {
        let cmd: T = decode(args)?;
        let out = cmd.run(cx).await?;
        serde_json::to_value(out)
            .map_err(|e| ApiError::internal(format!("encoding the result: {e}")))
    })
}

static REGISTRY: LazyLock<Vec<Entry>> = LazyLock::new(|| {
    vec![
        Entry::of::<session::Launch>(),
        Entry::of::<session::Connect>(),
        Entry::of::<relay::Borrow>(),
        Entry::of::<relay::Release>(),
        Entry::of::<relay::ExtensionPath>(),
        Entry::of::<relay::ExtensionStatus>(),
        Entry::of::<session::Sessions>(),
        Entry::of::<session::Close>(),
        Entry::of::<nav::Goto>(),
        Entry::of::<nav::Back>(),
        Entry::of::<nav::Forward>(),
        Entry::of::<nav::Reload>(),
        Entry::of::<nav::Wait>(),
        Entry::of::<read::Text>(),
        Entry::of::<read::Html>(),
        Entry::of::<read::Value>(),
        Entry::of::<read::Attr>(),
        Entry::of::<read::Title>(),
        Entry::of::<read::Url>(),
        Entry::of::<read::Eval>(),
        Entry::of::<snapshot::Snapshot>(),
        Entry::of::<find::Find>(),
        Entry::of::<actions::Click>(),
        Entry::of::<actions::Dblclick>(),
        Entry::of::<actions::Hover>(),
        Entry::of::<actions::Focus>(),
        Entry::of::<actions::Type>(),
        Entry::of::<actions::Fill>(),
        Entry::of::<actions::Press>(),
        Entry::of::<actions::Select>(),
        Entry::of::<actions::Check>(),
        Entry::of::<actions::Uncheck>(),
        Entry::of::<actions::Scroll>(),
        Entry::of::<actions::Drag>(),
        Entry::of::<actions::Upload>(),
        Entry::of::<actions::DialogAccept>(),
        Entry::of::<actions::DialogDismiss>(),
        Entry::of::<tabs::Tabs>(),
        Entry::of::<tabs::TabNew>(),
        Entry::of::<tabs::TabSelect>(),
        Entry::of::<tabs::TabClose>(),
        Entry::of::<capture::Screenshot>(),
        Entry::of::<capture::Pdf>(),
        Entry::of::<devtools::Console>(),
        Entry::of::<devtools::Errors>(),
        Entry::of::<devtools::Network>(),
        Entry::of::<devtools::NetworkBody>(),
        Entry::of::<devtools::HarStart>(),
        Entry::of::<devtools::HarStop>(),
        Entry::of::<devtools::RouteCmd>(),
        Entry::of::<devtools::Unroute>(),
        Entry::of::<devtools::Routes>(),
        Entry::of::<devtools::Downloads>(),
        Entry::of::<state::Cookies>(),
        Entry::of::<state::CookiesSet>(),
        Entry::of::<state::CookiesClear>(),
        Entry::of::<state::Storage>(),
        Entry::of::<state::StateSave>(),
        Entry::of::<state::StateLoad>(),
        Entry::of::<inspect::Inspect>(),
        Entry::of::<inspect::DebugBundle>(),
        Entry::of::<emulate::SetViewport>(),
        Entry::of::<emulate::SetDevice>(),
        Entry::of::<emulate::SetGeo>(),
        Entry::of::<emulate::SetOffline>(),
        Entry::of::<emulate::SetHeaders>(),
        Entry::of::<emulate::SetMedia>(),
        Entry::of::<emulate::SetUserAgent>(),
        Entry::of::<emulate::SetTimezone>(),
        Entry::of::<emulate::SetLocale>(),
        Entry::of::<providers::Search>(),
        Entry::of::<providers::Fetch>(),
        Entry::of::<providers::ProvidersList>(),
        Entry::of::<providers::ProvidersStatus>(),
        Entry::of::<providers::ProvidersReset>(),
        Entry::of::<macros::MacroResolve>(),
        Entry::of::<macros::MacroRun>(),
        Entry::of::<macros::MacroList>(),
        Entry::of::<macros::MacroInfoCmd>(),
        Entry::of::<workflows::RunWorkflow>(),
        Entry::of::<workflows::WorkflowsList>(),
        Entry::of::<workflows::ArtifactsList>(),
        Entry::of::<workflows::ArtifactsCleanup>(),
        Entry::of::<setup::Setup>(),
        Entry::of::<plugins::PluginInstall>(),
        Entry::of::<plugins::PluginList>(),
        Entry::of::<plugins::PluginInfo>(),
        Entry::of::<plugins::PluginRemove>(),
        Entry::of::<plugins::PluginVerify>(),
        Entry::of::<plugins::PluginGrant>(),
        Entry::of::<plugins::PluginRevoke>(),
        Entry::of::<plugins::PluginReload>(),
        Entry::of::<scaffold::PluginNew>(),
        Entry::of::<plugin_dev::PluginDev>(),
        Entry::of::<plugin_dev::PluginLogs>(),
        Entry::of::<skill::Skill>(),
        Entry::of::<daemon::DaemonStatus>(),
        Entry::of::<daemon::Pair>(),
        Entry::of::<daemon::TokenRotate>(),
        Entry::of::<daemon::DaemonStop>(),
    ]
});

/// Every command, in documentation order.
pub fn registry() -> &'static [Entry] {
    &REGISTRY
}

/// Everything the daemon does with untrusted request bytes before a browser
/// is involved: the envelope, the command lookup, the arguments, and the
/// parsers behind them (targets, keys, URLs). It must never panic; the fuzz
/// target (`host/fuzz`, `cargo xtask fuzz`) and a unit test feed it.
pub fn check_request(bytes: &[u8]) -> Result<(), ApiError> {
    let req: envelope::Request = serde_json::from_slice(bytes)
        .map_err(|e| ApiError::invalid(format!("malformed request: {e}")))?;
    if let Some(session) = &req.session {
        envelope::check_session_name(session)?;
    }
    let entry = find(&req.command).ok_or_else(|| ApiError::invalid("unknown command"))?;
    let args = req.args.clone();
    entry.check(args.clone())?;
    // The string parsers the commands apply to their arguments.
    for key in ["target", "scope", "from", "to"] {
        if let Some(t) = args.get(key).and_then(Value::as_str) {
            let _ = crate::browser::frames::Target::parse(t);
        }
    }
    if let Some(q) = args.get("query").and_then(Value::as_str) {
        let _ = crate::browser::locate::Locator::parse_find(q);
    }
    if let Some(k) = args.get("key").and_then(Value::as_str) {
        let _ = crate::browser::keys::combo(k);
    }
    if let Some(u) = args.get("url").and_then(Value::as_str) {
        let _ = crate::browser::nav::normalize_url(u);
    }
    Ok(())
}

/// Looks a command up by its API name (`tab_new`) or CLI words (`tab new`).
pub fn find(name: &str) -> Option<&'static Entry> {
    registry()
        .iter()
        .find(|e| e.api_name == name || e.cli_name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_lowercase() {
        let mut seen = std::collections::HashSet::new();
        for entry in registry() {
            assert!(seen.insert(entry.api_name()), "{} twice", entry.api_name());
            assert_eq!(entry.api_name(), entry.api_name().to_lowercase());
        }
    }

    #[test]
    fn hostile_requests_are_refused_without_panicking() {
        let cases: &[&[u8]] = &[
            b"",
            b"{",
            b"null",
            b"[]",
            b"{\"command\": 1}",
            b"{\"command\": \"goto\"}",
            b"{\"command\": \"goto\", \"args\": {\"url\": \"\\u0000\"}}",
            b"{\"command\": \"click\", \"args\": {\"target\": \"@f99999999999999999999e1\"}}",
            b"{\"command\": \"press\", \"args\": {\"key\": \"++++\"}}",
            b"{\"command\": \"press\", \"args\": {\"key\": \"Control+\"}}",
            b"{\"command\": \"wait\", \"args\": {\"ms\": -1}}",
            b"{\"command\": \"snapshot\", \"args\": {\"depth\": 99999999999}}",
            b"{\"command\": \"goto\", \"session\": \"../../etc\", \"args\": {\"url\": \"x\"}}",
            b"{\"command\": \"goto\", \"args\": {\"url\": \"http://[::1\"}}",
            "{\"command\": \"click\", \"args\": {\"target\": \"@é\"}}".as_bytes(),
        ];
        for case in cases {
            let _ = check_request(case);
        }
        assert!(check_request(br#"{"command": "goto", "args": {"url": "a.test"}}"#).is_ok());
        assert!(check_request(br#"{"command": "goto", "args": {"url": 5}}"#).is_err());
    }

    #[test]
    fn every_command_has_an_object_schema() {
        for entry in registry() {
            let schema = entry.args_schema();
            assert_eq!(
                schema.get("type").and_then(|t| t.as_str()),
                Some("object"),
                "{}",
                entry.api_name()
            );
        }
    }
}
