//! THE command registry: every command is one typed struct and its handler.
//!
//! The CLI's subcommands, `POST /command` dispatch, the MCP tools,
//! `docs/SURFACE.md` and `docs/openapi.json` are all derived from
//! [`registry`], so the surfaces cannot drift; each command's [`Group`]
//! (given where the registry lists it) orders `webrig --help` and the docs. A command struct derives
//! `clap::Args` (CLI flags, help), `serde` (the JSON `args` of the HTTP API)
//! and `schemars::JsonSchema` (docs, MCP tool schemas, OpenAPI); field doc
//! comments feed all of them. The scheduler every door hands requests to is
//! [`dispatch`]. This module must not know about sockets or terminals.

mod actions;
pub mod annotate;
mod canvas;
mod canvas_preview;
mod capture;
mod cdp;
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
mod pool;
mod providers;
mod read;
mod relay;
mod resume;
mod scaffold;
mod session;
mod setup;
mod skill;
mod snapshot;
pub(crate) mod state;
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

/// Where a command sits in `webrig --help` and `docs/SURFACE.md`, in the
/// order they show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Pages,
    Reading,
    Acting,
    Tabs,
    Capture,
    Debugging,
    State,
    Plugins,
    Macros,
    Workflows,
    Canvas,
    Annotations,
    Extension,
    Daemon,
}

impl Group {
    pub const ALL: [Group; 14] = [
        Group::Pages,
        Group::Reading,
        Group::Acting,
        Group::Tabs,
        Group::Capture,
        Group::Debugging,
        Group::State,
        Group::Plugins,
        Group::Macros,
        Group::Workflows,
        Group::Canvas,
        Group::Annotations,
        Group::Extension,
        Group::Daemon,
    ];

    /// The heading.
    pub fn title(self) -> &'static str {
        match self {
            Group::Pages => "Pages",
            Group::Reading => "Reading",
            Group::Acting => "Acting",
            Group::Tabs => "Tabs",
            Group::Capture => "Capture",
            Group::Debugging => "Debugging",
            Group::State => "State",
            Group::Plugins => "Plugins & providers",
            Group::Macros => "Macros",
            Group::Workflows => "Workflows",
            Group::Canvas => "Design canvas",
            Group::Annotations => "Annotations & inbox",
            Group::Extension => "Extension",
            Group::Daemon => "Daemon & MCP",
        }
    }

    /// What is in it, said in a line (after the title and a colon).
    pub fn summary(self) -> &'static str {
        match self {
            Group::Pages => {
                "launch or connect a browser, goto, back, forward, reload, wait, \
                             resume, sessions, close"
            }
            Group::Reading => "snapshot (@e refs), find, text, html, value, attr, title, url, eval",
            Group::Acting => {
                "click, fill, type, press, select, check, hover, scroll, upload, \
                              drag, dialogs"
            }
            Group::Tabs => "list, open, select and close the session's tabs",
            Group::Capture => "screenshots, PDFs, and the files pages download",
            Group::Debugging => {
                "console, errors, network, HAR, routes that answer requests, \
                                 inspect, a debug bundle"
            }
            Group::State => {
                "cookies, storage, saved state; emulated viewport, device, place, \
                             time, network"
            }
            Group::Plugins => {
                "search and fetch through providers; install, grant, verify and \
                               write plugins"
            }
            Group::Macros => "run, resolve, list and describe @macros such as @web.search(\"x\")",
            Group::Workflows => "run an installed workflow, list workflows and their artifacts",
            Group::Canvas => {
                "design documents: revisioned patches, a browser preview, code sync by adapters"
            }
            Group::Annotations => {
                "a person points at elements for the agent (annotate); what people send (inbox)"
            }
            Group::Extension => {
                "your own Chrome through the webrig extension: pair, borrow and \
                                 release tabs"
            }
            Group::Daemon => "the daemon's status, stop, token; MCP over stdio; the agents' guide",
        }
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
    group: Group,
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
    fn of<T: Command>(group: Group) -> Entry {
        Entry {
            cli_name: T::NAME,
            group,
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

    pub fn group(&self) -> Group {
        self.group
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

/// Every command and its [`Group`]; a new command is one line here.
static REGISTRY: LazyLock<Vec<Entry>> = LazyLock::new(|| {
    use Group::*;
    vec![
        Entry::of::<session::Launch>(Pages),
        Entry::of::<session::Connect>(Pages),
        Entry::of::<relay::Borrow>(Extension),
        Entry::of::<relay::Release>(Extension),
        Entry::of::<relay::ExtensionPath>(Extension),
        Entry::of::<relay::ExtensionStatus>(Extension),
        Entry::of::<session::Sessions>(Pages),
        Entry::of::<pool::PoolStatus>(Pages),
        Entry::of::<cdp::CdpUrl>(Pages),
        Entry::of::<session::Close>(Pages),
        Entry::of::<nav::Goto>(Pages),
        Entry::of::<nav::Back>(Pages),
        Entry::of::<nav::Forward>(Pages),
        Entry::of::<nav::Reload>(Pages),
        Entry::of::<nav::Wait>(Pages),
        Entry::of::<resume::Resume>(Pages),
        Entry::of::<read::Text>(Reading),
        Entry::of::<read::Html>(Reading),
        Entry::of::<read::Value>(Reading),
        Entry::of::<read::Attr>(Reading),
        Entry::of::<read::Title>(Reading),
        Entry::of::<read::Url>(Reading),
        Entry::of::<read::Eval>(Reading),
        Entry::of::<snapshot::Snapshot>(Reading),
        Entry::of::<find::Find>(Reading),
        Entry::of::<actions::Click>(Acting),
        Entry::of::<actions::Dblclick>(Acting),
        Entry::of::<actions::Hover>(Acting),
        Entry::of::<actions::Focus>(Acting),
        Entry::of::<actions::Type>(Acting),
        Entry::of::<actions::Fill>(Acting),
        Entry::of::<actions::Press>(Acting),
        Entry::of::<actions::Select>(Acting),
        Entry::of::<actions::Check>(Acting),
        Entry::of::<actions::Uncheck>(Acting),
        Entry::of::<actions::Scroll>(Acting),
        Entry::of::<actions::Drag>(Acting),
        Entry::of::<actions::Upload>(Acting),
        Entry::of::<actions::DialogAccept>(Acting),
        Entry::of::<actions::DialogDismiss>(Acting),
        Entry::of::<tabs::Tabs>(Tabs),
        Entry::of::<tabs::TabNew>(Tabs),
        Entry::of::<tabs::TabSelect>(Tabs),
        Entry::of::<tabs::TabClose>(Tabs),
        Entry::of::<capture::Screenshot>(Capture),
        Entry::of::<capture::Pdf>(Capture),
        Entry::of::<devtools::Console>(Debugging),
        Entry::of::<devtools::Errors>(Debugging),
        Entry::of::<devtools::Network>(Debugging),
        Entry::of::<devtools::NetworkBody>(Debugging),
        Entry::of::<devtools::HarStart>(Debugging),
        Entry::of::<devtools::HarStop>(Debugging),
        Entry::of::<devtools::RouteCmd>(Debugging),
        Entry::of::<devtools::Unroute>(Debugging),
        Entry::of::<devtools::Routes>(Debugging),
        Entry::of::<devtools::Downloads>(Capture),
        Entry::of::<state::Cookies>(State),
        Entry::of::<state::CookiesSet>(State),
        Entry::of::<state::CookiesClear>(State),
        Entry::of::<state::Storage>(State),
        Entry::of::<state::StateSave>(State),
        Entry::of::<state::StateLoad>(State),
        Entry::of::<inspect::Inspect>(Debugging),
        Entry::of::<inspect::DebugBundle>(Debugging),
        Entry::of::<emulate::SetViewport>(State),
        Entry::of::<emulate::SetDevice>(State),
        Entry::of::<emulate::SetGeo>(State),
        Entry::of::<emulate::SetOffline>(State),
        Entry::of::<emulate::SetHeaders>(State),
        Entry::of::<emulate::SetMedia>(State),
        Entry::of::<emulate::SetUserAgent>(State),
        Entry::of::<emulate::SetTimezone>(State),
        Entry::of::<emulate::SetLocale>(State),
        Entry::of::<providers::Search>(Plugins),
        Entry::of::<providers::Fetch>(Plugins),
        Entry::of::<providers::ProvidersList>(Plugins),
        Entry::of::<providers::ProvidersStatus>(Plugins),
        Entry::of::<providers::ProvidersReset>(Plugins),
        Entry::of::<macros::MacroResolve>(Macros),
        Entry::of::<macros::MacroRun>(Macros),
        Entry::of::<macros::MacroList>(Macros),
        Entry::of::<macros::MacroInfoCmd>(Macros),
        Entry::of::<workflows::RunWorkflow>(Workflows),
        Entry::of::<workflows::WorkflowsList>(Workflows),
        Entry::of::<workflows::ArtifactsList>(Workflows),
        Entry::of::<workflows::ArtifactsCleanup>(Workflows),
        Entry::of::<canvas::CanvasNew>(Canvas),
        Entry::of::<canvas::CanvasOpen>(Canvas),
        Entry::of::<canvas::CanvasPatch>(Canvas),
        Entry::of::<canvas::CanvasHistory>(Canvas),
        Entry::of::<canvas::CanvasPreview>(Canvas),
        Entry::of::<canvas::CanvasSave>(Canvas),
        Entry::of::<canvas::CanvasExport>(Canvas),
        Entry::of::<canvas::CanvasClose>(Canvas),
        Entry::of::<canvas::CanvasCodePull>(Canvas),
        Entry::of::<canvas::CanvasCodePush>(Canvas),
        Entry::of::<canvas::CanvasCodeStatus>(Canvas),
        Entry::of::<annotate::Annotate>(Annotations),
        Entry::of::<annotate::InboxList>(Annotations),
        Entry::of::<annotate::InboxShow>(Annotations),
        Entry::of::<annotate::InboxConsume>(Annotations),
        Entry::of::<annotate::InboxClear>(Annotations),
        Entry::of::<annotate::InboxScope>(Annotations),
        Entry::of::<setup::Setup>(Plugins),
        Entry::of::<plugins::PluginInstall>(Plugins),
        Entry::of::<plugins::PluginList>(Plugins),
        Entry::of::<plugins::PluginInfo>(Plugins),
        Entry::of::<plugins::PluginRemove>(Plugins),
        Entry::of::<plugins::PluginVerify>(Plugins),
        Entry::of::<plugins::PluginGrant>(Plugins),
        Entry::of::<plugins::PluginRevoke>(Plugins),
        Entry::of::<plugins::PluginReload>(Plugins),
        Entry::of::<scaffold::PluginNew>(Plugins),
        Entry::of::<plugin_dev::PluginDev>(Plugins),
        Entry::of::<plugin_dev::PluginLogs>(Plugins),
        Entry::of::<skill::Skill>(Daemon),
        Entry::of::<daemon::DaemonStatus>(Daemon),
        Entry::of::<daemon::Pair>(Extension),
        Entry::of::<daemon::TokenRotate>(Daemon),
        Entry::of::<daemon::DaemonStop>(Daemon),
    ]
});

/// Every command, in registration order (`--help` and the docs show them
/// by [`Group`], in this order within one).
pub fn registry() -> &'static [Entry] {
    &REGISTRY
}

/// The commands of one group, in registration order.
pub fn in_group(group: Group) -> impl Iterator<Item = &'static Entry> {
    registry().iter().filter(move |e| e.group == group)
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
    fn every_group_has_commands_and_every_command_one_group() {
        // A command's group is an argument of its registry line; this
        // catches a group nothing uses (an empty heading in --help) and one
        // missing from Group::ALL (its commands vanish from --help).
        for group in Group::ALL {
            assert!(
                in_group(group).next().is_some(),
                "{} is empty",
                group.title()
            );
        }
        let listed: usize = Group::ALL.iter().map(|g| in_group(*g).count()).sum();
        assert_eq!(
            listed,
            registry().len(),
            "a command's group is not in Group::ALL"
        );
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
