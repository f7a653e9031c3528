//! Devtools commands: console, errors, network (and bodies, HAR), routes,
//! downloads. What they show is masked (`browser::devtools::redact`) unless
//! `--reveal`.

use std::path::PathBuf;

use base64::Engine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::capture::{check_writable, output_path};
use super::session::absolutize;
use super::{Command, Cx, Scope};
use crate::artifacts;
use crate::browser::devtools::entry::Request;
use crate::browser::devtools::rings::Selection;
use crate::browser::devtools::{
    self, ConsoleEntry, Download, PageError, Route, RouteAction, har, routes,
};
use crate::error::ApiError;

/// Entries a listing returns when the caller names no `--max`.
const DEFAULT_MAX: usize = 100;

fn capture_off(cx: &Cx) -> Option<String> {
    (!cx.state().limits().devtools.capture)
        .then(|| "capture is off ([devtools] capture = false in config.toml)".to_string())
}

/// Messages the page logged (console.*) and the browser's own log
/// (failed loads, CSP and other violations), newest last.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Console {
    /// Only entries after this seq (the `last` of an earlier answer).
    #[arg(long)]
    pub since: Option<u64>,
    /// Only this level and above: debug, info, warning, error.
    #[arg(long)]
    pub level: Option<String>,
    /// At most this many (the newest); default 100.
    #[arg(long)]
    pub max: Option<usize>,
    /// Show secrets (tokens in URLs, Bearer values) instead of masking them.
    #[arg(long)]
    #[serde(default)]
    pub reveal: bool,
}

/// A listing of one of a tab's rings (console, errors, network).
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Listing<T> {
    /// Oldest first.
    pub entries: Vec<T>,
    /// The newest seq the tab handed out: pass it as `--since` next time.
    pub last: u64,
    /// Entries that matched but were left out by `--max`.
    pub more: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl<T> Listing<T> {
    /// The selection, shown masked unless `reveal`.
    fn of(cx: &Cx, sel: Selection<T>, reveal: bool, redact: fn(&mut T)) -> Self {
        let mut entries = sel.items;
        if !reveal {
            entries.iter_mut().for_each(redact);
        }
        Listing {
            entries,
            last: sel.last,
            more: sel.more,
            note: capture_off(cx),
        }
    }
}

fn level_rank(level: &str) -> Option<u8> {
    Some(match level {
        "debug" | "verbose" => 0,
        "info" | "log" => 1,
        "warning" | "warn" => 2,
        "error" => 3,
        _ => return None,
    })
}

impl Command for Console {
    const NAME: &'static str = "console";
    const ABOUT: &'static str = "Show what the page logged (console and browser messages)";
    const SCOPE: Scope = Scope::Tab;
    const READ_ONLY: bool = true;
    type Output = Listing<ConsoleEntry>;

    async fn run(self, mut cx: Cx) -> Result<Listing<ConsoleEntry>, ApiError> {
        let min = match &self.level {
            Some(l) => level_rank(l).ok_or_else(|| {
                ApiError::invalid(format!("--level {l:?}: say debug, info, warning or error"))
            })?,
            None => 0,
        };
        let tab = cx.tab().await?;
        let sel = tab.devtools().rings().console.select(
            self.since,
            |e| level_rank(&e.level).unwrap_or(1) >= min,
            self.max.unwrap_or(DEFAULT_MAX),
        );
        Ok(Listing::of(&cx, sel, self.reveal, devtools::redact_console))
    }

    fn human(out: &Listing<ConsoleEntry>) -> String {
        let mut lines: Vec<String> = out
            .entries
            .iter()
            .map(|e| {
                let at = match (&e.url, e.line) {
                    (Some(u), Some(l)) => format!("  ({u}:{l})"),
                    (Some(u), None) => format!("  ({u})"),
                    _ => String::new(),
                };
                format!("#{} [{}] {}{at}", e.seq, e.level, e.text)
            })
            .collect();
        footer(
            &mut lines,
            out.more,
            out.last,
            out.note.as_deref(),
            "no console messages",
        );
        lines.join("\n")
    }
}

fn footer(lines: &mut Vec<String>, more: usize, last: u64, note: Option<&str>, empty: &str) {
    if lines.is_empty() {
        lines.push(empty.to_string());
    }
    if more > 0 {
        lines.push(format!("… {more} older left out (--max)"));
    }
    if let Some(n) = note {
        lines.push(format!("note: {n}"));
    }
    lines.push(format!("(last {last}: --since {last} shows only newer)"));
}

/// Uncaught exceptions and unhandled promise rejections, with their stacks.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Errors {
    /// Only errors after this seq.
    #[arg(long)]
    pub since: Option<u64>,
    /// At most this many (the newest); default 100.
    #[arg(long)]
    pub max: Option<usize>,
    /// Show secrets instead of masking them.
    #[arg(long)]
    #[serde(default)]
    pub reveal: bool,
}

impl Command for Errors {
    const NAME: &'static str = "errors";
    const ABOUT: &'static str = "Show the page's uncaught exceptions and unhandled rejections";
    const SCOPE: Scope = Scope::Tab;
    const READ_ONLY: bool = true;
    type Output = Listing<PageError>;

    async fn run(self, mut cx: Cx) -> Result<Listing<PageError>, ApiError> {
        let tab = cx.tab().await?;
        let sel = tab.devtools().rings().errors.select(
            self.since,
            |_| true,
            self.max.unwrap_or(DEFAULT_MAX),
        );
        Ok(Listing::of(&cx, sel, self.reveal, devtools::redact_error))
    }

    fn human(out: &Listing<PageError>) -> String {
        let mut lines = Vec::new();
        for e in &out.entries {
            lines.push(format!("#{} {}", e.seq, e.message));
            lines.extend(e.stack.lines().map(|l| format!("    {l}")));
        }
        footer(
            &mut lines,
            out.more,
            out.last,
            out.note.as_deref(),
            "no errors",
        );
        lines.join("\n")
    }
}

/// The tab's requests: method, URL, status, type, sizes, timing, initiator.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Network {
    /// Only requests after this seq.
    #[arg(long)]
    pub since: Option<u64>,
    /// Only URLs containing this text.
    #[arg(long)]
    pub filter: Option<String>,
    /// Only this resource type: document, xhr, fetch, script, stylesheet,
    /// image, font, media, websocket, other…
    #[arg(long = "type")]
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Only requests that failed or answered 4xx/5xx.
    #[arg(long)]
    #[serde(default)]
    pub failed: bool,
    /// At most this many (the newest); default 100.
    #[arg(long)]
    pub max: Option<usize>,
    /// Show header values and URL tokens instead of masking them.
    #[arg(long)]
    #[serde(default)]
    pub reveal: bool,
}

const TYPES: &[&str] = &[
    "document",
    "stylesheet",
    "image",
    "media",
    "font",
    "script",
    "texttrack",
    "xhr",
    "fetch",
    "prefetch",
    "eventsource",
    "websocket",
    "manifest",
    "signedexchange",
    "ping",
    "cspviolationreport",
    "preflight",
    "other",
];

/// Whether a request failed or was answered with an error status.
pub fn is_failed(r: &Request) -> bool {
    r.failed.is_some() || r.status.is_some_and(|s| s >= 400)
}

impl Command for Network {
    const NAME: &'static str = "network";
    const ABOUT: &'static str = "Show the tab's requests (status, type, size, time)";
    const SCOPE: Scope = Scope::Tab;
    const READ_ONLY: bool = true;
    type Output = Listing<Request>;

    async fn run(self, mut cx: Cx) -> Result<Listing<Request>, ApiError> {
        let kind = self.kind.as_deref().map(str::to_ascii_lowercase);
        if let Some(k) = &kind
            && !TYPES.contains(&k.as_str())
        {
            return Err(ApiError::invalid(format!(
                "--type {k:?} is not a resource type; one of: {}",
                TYPES.join(", ")
            )));
        }
        let tab = cx.tab().await?;
        let sel = tab.devtools().rings().network.select(
            self.since,
            |r| {
                kind.as_ref().is_none_or(|k| &r.resource_type == k)
                    && self
                        .filter
                        .as_ref()
                        .is_none_or(|f| r.url.contains(f.as_str()))
                    && (!self.failed || is_failed(r))
            },
            self.max.unwrap_or(DEFAULT_MAX),
        );
        Ok(Listing::of(&cx, sel, self.reveal, devtools::redact_request))
    }

    fn human(out: &Listing<Request>) -> String {
        let mut lines: Vec<String> = out.entries.iter().map(request_line).collect();
        footer(
            &mut lines,
            out.more,
            out.last,
            out.note.as_deref(),
            "no requests",
        );
        lines.join("\n")
    }
}

/// One request as a line: `#3 GET 200 xhr 1.2 kB 35 ms URL (id 123.4)`.
pub fn request_line(r: &Request) -> String {
    let status = match (&r.failed, r.status) {
        (Some(why), _) => format!("FAILED {why}"),
        (None, Some(s)) => s.to_string(),
        (None, None) if r.pending => "…".into(),
        (None, None) => "-".into(),
    };
    let time = r
        .duration_ms
        .map(|ms| format!(" {ms:.0} ms"))
        .unwrap_or_default();
    format!(
        "#{} {} {status} {} {}{time} {}  (id {})",
        r.seq,
        r.method,
        r.resource_type,
        size(r.body_bytes),
        r.url,
        r.id
    )
}

fn size(bytes: u64) -> String {
    match bytes {
        b if b < 1000 => format!("{b} B"),
        b if b < 1_000_000 => format!("{:.1} kB", b as f64 / 1e3),
        b => format!("{:.1} MB", b as f64 / 1e6),
    }
}

/// A response body the browser still holds (bodies are kept up to a budget
/// per tab, oldest evicted).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NetworkBody {
    /// The request's id (`network` shows it).
    pub id: String,
    /// Write the body to this file instead of returning it.
    #[arg(long, value_name = "FILE")]
    pub path: Option<PathBuf>,
    /// Replace the file if it exists.
    #[arg(long)]
    #[serde(default)]
    pub overwrite: bool,
    /// Keep secrets (token-shaped values, secret JSON and form fields) in a
    /// text body instead of masking them; binary bodies are never changed.
    #[arg(long)]
    #[serde(default)]
    pub reveal: bool,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct BodyOut {
    pub id: String,
    pub bytes: usize,
    /// The body as text (when it is text and no --path was given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The body as base64 (binary, no --path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base64: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
}

impl Command for NetworkBody {
    const NAME: &'static str = "network body";
    const ABOUT: &'static str = "Get a response body by request id (or save it with --path)";
    const SCOPE: Scope = Scope::Tab;
    const READ_ONLY: bool = true;
    type Output = BodyOut;

    fn prepare(&mut self) -> Result<(), ApiError> {
        absolutize(&mut self.path)
    }

    async fn run(self, mut cx: Cx) -> Result<BodyOut, ApiError> {
        if let Some(p) = &self.path {
            cx.require_local_files("--path")?;
            check_writable(p, self.overwrite)?;
        }
        let tab = cx.tab().await?;
        let known = tab
            .devtools()
            .rings()
            .network
            .iter()
            .rev()
            .find(|r| r.id == self.id)
            .cloned();
        match &known {
            Some(r) if r.pending => {
                return Err(ApiError::invalid(format!(
                    "request {} has not finished loading",
                    self.id
                ))
                .with_hint("wait for it (webrig wait --load), then ask again"));
            }
            Some(r) if r.failed.is_some() => {
                return Err(ApiError::not_found(format!(
                    "request {} failed; it has no body",
                    self.id
                )));
            }
            _ => {}
        }
        let reply = tab
            .cdp()
            .call("Network.getResponseBody", json!({ "requestId": self.id }))
            .await
            .map_err(|e| {
                ApiError::not_found(format!("no body for request {}: {e}", self.id)).with_hint(
                    "bodies are kept while they fit the tab's budget ([devtools] \
                     network_body_bytes); list requests with webrig network",
                )
            })?;
        let body = reply["body"].as_str().unwrap_or_default();
        let encoded = reply["base64Encoded"] == true;
        let mut bytes = if encoded {
            base64::engine::general_purpose::STANDARD
                .decode(body)
                .map_err(|e| ApiError::internal(format!("the browser sent bad base64: {e}")))?
        } else {
            body.as_bytes().to_vec()
        };
        // A text body is masked like every other output, read as its MIME
        // type says; `bytes` still counts what the server sent.
        let sent = bytes.len();
        if !self.reveal
            && let Ok(text) = std::str::from_utf8(&bytes)
        {
            bytes = devtools::redact::response_body(known.as_ref(), text).into_bytes();
        }
        if let Some(p) = self.path {
            let path = artifacts::write_new(&p, &bytes, self.overwrite)?;
            return Ok(BodyOut {
                id: self.id,
                bytes: sent,
                text: None,
                base64: None,
                path: Some(path),
            });
        }
        let (text, base64) = match String::from_utf8(bytes) {
            Ok(t) => (Some(t), None),
            Err(_) => (None, Some(body.to_string())),
        };
        Ok(BodyOut {
            id: self.id,
            bytes: sent,
            text,
            base64,
            path: None,
        })
    }

    fn human(out: &BodyOut) -> String {
        match (&out.path, &out.text) {
            (Some(p), _) => format!("{} ({} bytes)", p.display(), out.bytes),
            (None, Some(t)) => t.clone(),
            (None, None) => format!("{} bytes of binary; save them with --path FILE", out.bytes),
        }
    }
}

/// Start recording the tab's requests for a HAR file.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HarStart {}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct HarStarted {
    /// The first request seq the recording covers.
    pub from: u64,
}

impl Command for HarStart {
    const NAME: &'static str = "har start";
    const ABOUT: &'static str = "Start recording the tab's requests (write them with har stop)";
    const SCOPE: Scope = Scope::Tab;
    type Output = HarStarted;

    async fn run(self, mut cx: Cx) -> Result<HarStarted, ApiError> {
        if !cx.state().limits().devtools.capture {
            return Err(ApiError::invalid("network capture is off")
                .with_hint("set [devtools] capture = true in config.toml"));
        }
        let tab = cx.tab().await?;
        let mut rings = tab.devtools().rings();
        if let Some(from) = rings.har_from {
            return Err(ApiError::invalid(format!(
                "tab {} is already recording (since request #{from})",
                tab.id()
            ))
            .with_hint("write it with webrig har stop --path FILE"));
        }
        rings.har_start();
        Ok(HarStarted {
            from: rings.har_from.unwrap_or(1),
        })
    }

    fn human(out: &HarStarted) -> String {
        format!("recording from request #{}", out.from)
    }
}

/// Stop recording and write the requests as a HAR 1.2 file.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HarStop {
    /// File to write (default: a new file in the artifacts folder).
    #[arg(long, value_name = "FILE")]
    pub path: Option<PathBuf>,
    /// Replace the file if it exists.
    #[arg(long)]
    #[serde(default)]
    pub overwrite: bool,
    /// Keep header values and URL tokens instead of masking them.
    #[arg(long)]
    #[serde(default)]
    pub reveal: bool,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct HarOut {
    pub path: PathBuf,
    pub bytes: usize,
    pub entries: usize,
}

impl Command for HarStop {
    const NAME: &'static str = "har stop";
    const ABOUT: &'static str = "Stop recording and write a HAR 1.2 file";
    const SCOPE: Scope = Scope::Tab;
    type Output = HarOut;

    fn prepare(&mut self) -> Result<(), ApiError> {
        absolutize(&mut self.path)
    }

    async fn run(self, mut cx: Cx) -> Result<HarOut, ApiError> {
        // The path is checked before the recording ends: a refused path
        // loses nothing.
        let path = output_path(&cx, self.path, self.overwrite, "network", "har")?;
        let tab = cx.tab().await?;
        if tab.devtools().rings().har_from.is_none() {
            return Err(
                ApiError::invalid(format!("tab {} is not recording", tab.id()))
                    .with_hint("start with webrig har start"),
            );
        }
        let page = crate::browser::nav::current(&tab).await.ok();
        let mut entries = tab.devtools().rings().har_stop().unwrap_or_default();
        if !self.reveal {
            entries.iter_mut().for_each(devtools::redact_request);
        }
        let (url, title) = page.map(|p| (p.url, p.title)).unwrap_or_default();
        let page = har::Page {
            id: tab.id().to_string(),
            title: if self.reveal {
                title
            } else {
                devtools::redact::text(&title)
            },
            url: if self.reveal {
                url
            } else {
                devtools::redact::url(&url)
            },
            started: entries
                .first()
                .map(|e| e.started)
                .unwrap_or_else(devtools::rings::now_epoch),
        };
        let doc = har::har(&entries, &[page], env!("CARGO_PKG_VERSION"));
        let text = serde_json::to_vec_pretty(&doc)
            .map_err(|e| ApiError::internal(format!("encoding the HAR: {e}")))?;
        let path = artifacts::write_new(&path, &text, self.overwrite)?;
        Ok(HarOut {
            path,
            bytes: text.len(),
            entries: entries.len(),
        })
    }

    fn human(out: &HarOut) -> String {
        format!(
            "{} ({} requests, {} bytes)",
            out.path.display(),
            out.entries,
            out.bytes
        )
    }
}

/// Answer matching requests of the session's tabs (new ones too) yourself.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RouteCmd {
    /// URL glob: * any characters, ? one, \ escapes (e.g. '*/api/cart*').
    pub pattern: String,
    /// Fail the request as a network error.
    #[arg(long, conflicts_with_all = ["status", "body", "json_body", "header"])]
    #[serde(default)]
    pub abort: bool,
    /// Answer with this HTTP status (default 200).
    #[arg(long)]
    pub status: Option<u16>,
    /// Answer with this file's bytes.
    #[arg(long, value_name = "FILE", conflicts_with = "json_body")]
    pub body: Option<PathBuf>,
    /// Answer with this JSON (Content-Type application/json). Not `--json`:
    /// that is every command's flag for the envelope.
    #[arg(long, value_name = "TEXT")]
    #[serde(alias = "json")]
    pub json_body: Option<String>,
    /// A response header NAME:VALUE (repeatable).
    #[arg(long, value_name = "NAME:VALUE")]
    #[serde(default)]
    pub header: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct RoutesOut {
    pub routes: Vec<Route>,
}

fn human_routes(out: &RoutesOut) -> String {
    if out.routes.is_empty() {
        return "no routes".into();
    }
    out.routes
        .iter()
        .map(|r| {
            let what = match &r.action {
                RouteAction::Abort => "abort".to_string(),
                RouteAction::Fulfill {
                    status, body_bytes, ..
                } => format!("{status}, {body_bytes} bytes"),
            };
            format!("{}\t{what}\t{} hits", r.pattern, r.hits)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Enables (or disables) request interception on every tab for the routes.
async fn apply_routes(cx: &mut Cx, list: Vec<Route>) -> Result<(), ApiError> {
    let session = cx.session()?;
    let shared = session.devtools().clone();
    let tabs = session.all_tabs();
    *shared.routes.lock().unwrap_or_else(|e| e.into_inner()) = list;
    let call = shared.fetch_params();
    for tab in tabs {
        match &call {
            Some(params) => tab.call("Fetch.enable", params.clone()).await?,
            None => tab.call("Fetch.disable", json!({})).await?,
        };
    }
    Ok(())
}

impl Command for RouteCmd {
    const NAME: &'static str = "route";
    const ABOUT: &'static str =
        "Answer matching requests with a status and body, or fail them (--abort)";
    const SCOPE: Scope = Scope::SessionCreate;
    type Output = RoutesOut;

    fn prepare(&mut self) -> Result<(), ApiError> {
        absolutize(&mut self.body)
    }

    async fn run(self, mut cx: Cx) -> Result<RoutesOut, ApiError> {
        routes::check_pattern(&self.pattern)?;
        let action = if self.abort {
            if self.status.is_some()
                || self.body.is_some()
                || self.json_body.is_some()
                || !self.header.is_empty()
            {
                return Err(ApiError::invalid(
                    "--abort takes no --status, --body, --json or --header",
                ));
            }
            RouteAction::Abort
        } else {
            let body = match &self.body {
                Some(path) => {
                    cx.require_local_files("--body")?;
                    // Opened once, a regular file only (not /dev/zero or a
                    // FIFO), read to the cap plus one byte at most.
                    Some(crate::artifacts::read_regular(
                        path,
                        routes::ROUTE_BODY_BYTES as u64,
                        crate::artifacts::Symlinks::Follow,
                        |_| Ok(()),
                    )?)
                }
                None => None,
            };
            routes::fulfill(self.status, &self.header, body, self.json_body.as_deref())?
        };
        let mut list = cx.session()?.devtools().routes();
        list.retain(|r| r.pattern != self.pattern);
        if list.len() >= routes::MAX_ROUTES {
            return Err(ApiError::invalid(format!(
                "the session has {} routes already",
                routes::MAX_ROUTES
            ))
            .with_hint("remove some with webrig unroute PATTERN"));
        }
        list.push(Route {
            pattern: self.pattern,
            action,
            hits: 0,
        });
        apply_routes(&mut cx, list.clone()).await?;
        Ok(RoutesOut { routes: list })
    }

    fn human(out: &RoutesOut) -> String {
        human_routes(out)
    }
}

/// Remove a route (its exact pattern), or all with --all.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Unroute {
    /// The pattern as given to `route`.
    #[arg(required_unless_present = "all")]
    pub pattern: Option<String>,
    /// Remove every route.
    #[arg(long, conflicts_with = "pattern")]
    #[serde(default)]
    pub all: bool,
}

impl Command for Unroute {
    const NAME: &'static str = "unroute";
    const ABOUT: &'static str = "Remove a route (or all: --all)";
    const SCOPE: Scope = Scope::Session;
    type Output = RoutesOut;

    async fn run(self, mut cx: Cx) -> Result<RoutesOut, ApiError> {
        let mut list = cx.session()?.devtools().routes();
        match (&self.pattern, self.all) {
            (_, true) => list.clear(),
            (Some(p), false) => {
                let before = list.len();
                list.retain(|r| &r.pattern != p);
                if list.len() == before {
                    return Err(ApiError::not_found(format!("no route {p:?}"))
                        .with_hint("list them with webrig routes"));
                }
            }
            (None, false) => return Err(ApiError::invalid("name a pattern, or pass --all")),
        }
        apply_routes(&mut cx, list.clone()).await?;
        Ok(RoutesOut { routes: list })
    }

    fn human(out: &RoutesOut) -> String {
        human_routes(out)
    }
}

/// List the session's routes and how often each answered.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Routes {}

impl Command for Routes {
    const NAME: &'static str = "routes";
    const ABOUT: &'static str = "List the session's routes";
    const SCOPE: Scope = Scope::Session;
    const READ_ONLY: bool = true;
    type Output = RoutesOut;

    async fn run(self, mut cx: Cx) -> Result<RoutesOut, ApiError> {
        Ok(RoutesOut {
            routes: cx.session()?.devtools().routes(),
        })
    }

    fn human(out: &RoutesOut) -> String {
        human_routes(out)
    }
}

/// Files the session's pages downloaded (into the session's own folder).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Downloads {}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct DownloadsOut {
    pub downloads: Vec<Download>,
    /// Where this session's downloads go.
    pub folder: PathBuf,
    /// Which downloads are accepted (`[devtools] downloads`): `agent` (only
    /// for `click --download`), `always` or `never`.
    pub policy: crate::config::DownloadPolicy,
}

impl Command for Downloads {
    const NAME: &'static str = "downloads";
    const ABOUT: &'static str = "List the session's downloads: path, size, state";
    const SCOPE: Scope = Scope::Session;
    const READ_ONLY: bool = true;
    type Output = DownloadsOut;

    async fn run(self, mut cx: Cx) -> Result<DownloadsOut, ApiError> {
        let shared = cx.session()?.devtools().clone();
        Ok(DownloadsOut {
            downloads: shared.downloads.list(),
            folder: shared.downloads.dir().to_path_buf(),
            policy: shared.downloads.policy(),
        })
    }

    fn human(out: &DownloadsOut) -> String {
        if out.downloads.is_empty() {
            return format!("no downloads (they go to {})", out.folder.display());
        }
        out.downloads
            .iter()
            .map(|d| {
                let place = d.path.clone().unwrap_or_else(|| d.suggested.clone());
                let why = d
                    .error
                    .as_deref()
                    .map(|e| format!("\t{e}"))
                    .unwrap_or_default();
                format!("{}\t{}\t{}\t{}{why}", d.state, size(d.bytes), place, d.url)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}
