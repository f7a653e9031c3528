//! One page target: its CDP session, its main frame's load state, and running
//! script in it.
//!
//! Owns the per-tab event watcher (lifecycle of the main frame) and the mapping of
//! page exceptions to API errors. Navigation and reading build on it.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::cdp::{CdpError, Session as CdpSession};
use super::frames::Frames;
use super::read::Capped;
use crate::error::{ApiError, ErrorCode};

/// What the tab's watcher knows of the main frame's current document.
#[derive(Debug, Default)]
pub struct Lifecycle {
    pub loader_id: String,
    pub events: HashSet<String>,
}

/// The viewport a launched headless browser's tabs get (a connected browser's
/// tabs keep theirs).
pub const DEFAULT_VIEWPORT: (u32, u32) = (1280, 800);

#[derive(Clone)]
pub struct Tab {
    inner: Arc<TabInner>,
}

struct TabInner {
    id: String,
    target_id: String,
    cdp: CdpSession,
    lifecycle: Arc<Mutex<Lifecycle>>,
    detached: Arc<AtomicBool>,
    /// Out-of-process iframes: frame (target) id → child session id.
    children: Arc<Mutex<HashMap<String, String>>>,
    frames: tokio::sync::Mutex<Frames>,
    /// Held while a command runs on this tab: its commands run in order.
    queue: Arc<tokio::sync::Mutex<()>>,
    dialog: DialogWatch,
    devtools: Arc<super::devtools::TabDevtools>,
}

/// A JavaScript dialog (alert, confirm, prompt, beforeunload) open on a tab.
/// While one is open the page runs nothing, so webrig answers at once
/// instead of hanging, and `dialog accept|dismiss` closes it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Dialog {
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    pub kind: String,
    pub message: String,
    /// A prompt's default text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_prompt: Option<String>,
}

pub type DialogWatch = tokio::sync::watch::Receiver<Option<Dialog>>;

/// The error every page call gets while a dialog is open.
pub fn dialog_open(tab: &str, d: &Dialog) -> ApiError {
    ApiError::new(
        ErrorCode::Busy,
        format!("a {} dialog is open on tab {tab}: {:?}", d.kind, d.message),
    )
    .with_hint("answer it first: webrig dialog accept, or webrig dialog dismiss (prompts: --text)")
}

impl Tab {
    /// Enables the domains webrig relies on and starts the watcher.
    pub async fn attach(
        id: String,
        target_id: String,
        cdp: CdpSession,
        viewport: Option<(u32, u32)>,
        shared: Arc<super::devtools::Shared>,
    ) -> Result<Tab, ApiError> {
        let lifecycle = Arc::new(Mutex::new(Lifecycle::default()));
        let detached = Arc::new(AtomicBool::new(false));
        let children = Arc::new(Mutex::new(HashMap::new()));
        let (dialog_tx, dialog) = tokio::sync::watch::channel(None);
        let devtools = super::devtools::TabDevtools::new(&id, shared);
        spawn_watcher(
            &cdp,
            &target_id,
            Watched {
                lifecycle: Arc::downgrade(&lifecycle),
                detached: detached.clone(),
                children: children.clone(),
                dialog: dialog_tx,
                devtools: Arc::downgrade(&devtools),
            },
        );
        let metrics = async {
            match viewport {
                Some((width, height)) => cdp
                    .call(
                        "Emulation.setDeviceMetricsOverride",
                        json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
                    )
                    .await
                    .map(|_| ()),
                None => Ok(()),
            }
        };
        // Out-of-process iframes become child sessions on this connection.
        let auto_attach = cdp.call(
            "Target.setAutoAttach",
            auto_attach(devtools.shared.policy().is_some()),
        );
        let (page, events, metrics, attach, enabled, hooks) = tokio::join!(
            cdp.call("Page.enable", json!({})),
            cdp.call("Page.setLifecycleEventsEnabled", json!({ "enabled": true })),
            metrics,
            auto_attach,
            devtools.enable(&cdp),
            install_hooks(&cdp),
        );
        // Without the hooks (an old browser, a refused call) snapshots and
        // settling still work, from what the isolated world sees alone.
        if let Err(e) = hooks {
            tracing::debug!(error = %e, "page hooks not installed");
        }
        page?;
        events?;
        metrics?;
        attach?;
        enabled?;
        Ok(Tab {
            inner: Arc::new(TabInner {
                id,
                target_id,
                cdp,
                lifecycle,
                detached,
                children,
                frames: tokio::sync::Mutex::new(Frames::default()),
                queue: Arc::new(tokio::sync::Mutex::new(())),
                dialog,
                devtools,
            }),
        })
    }

    /// The lock a command holds while it runs on this tab.
    pub fn queue(&self) -> Arc<tokio::sync::Mutex<()>> {
        self.inner.queue.clone()
    }

    /// The child session of an out-of-process frame, if it is one.
    pub fn child_session(&self, frame_id: &str) -> Option<CdpSession> {
        let children = self.inner.children.lock().ok()?;
        let id = children.get(frame_id)?;
        Some(CdpSession::new(self.inner.cdp.connection().clone(), id))
    }

    /// The tab's frames, refs and last snapshot (held for a whole command).
    pub async fn frames(&self) -> tokio::sync::MutexGuard<'_, Frames> {
        self.inner.frames.lock().await
    }

    /// True once the browser detached the tab (closed by the page or the user).
    pub fn is_detached(&self) -> bool {
        self.inner.detached.load(Ordering::Relaxed)
    }

    pub fn id(&self) -> &str {
        &self.inner.id
    }

    pub fn target_id(&self) -> &str {
        &self.inner.target_id
    }

    /// The main frame's id (Chromium gives a page's main frame its target id).
    pub fn main_frame(&self) -> &str {
        &self.inner.target_id
    }

    pub fn cdp(&self) -> &CdpSession {
        &self.inner.cdp
    }

    /// The tab's console, errors and network rings, and its session's
    /// routes, emulation and downloads.
    pub fn devtools(&self) -> &Arc<super::devtools::TabDevtools> {
        &self.inner.devtools
    }

    /// A CDP call on the page. While a dialog is open the page runs nothing:
    /// the call fails at once (`busy`, naming the dialog), and a call in
    /// flight when one opens ends then instead of hanging.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, ApiError> {
        guard_dialog(
            &self.inner.id,
            &self.inner.dialog,
            self.inner.cdp.call(method, params),
        )
        .await
    }

    /// The dialog open on this tab, if any.
    pub fn dialog(&self) -> Option<Dialog> {
        self.inner.dialog.borrow().clone()
    }

    /// A receiver other layers (frames) use to stop waiting when a dialog opens.
    pub fn dialog_watch(&self) -> DialogWatch {
        self.inner.dialog.clone()
    }

    /// Accepts or dismisses the open dialog.
    pub async fn answer_dialog(
        &self,
        accept: bool,
        text: Option<&str>,
    ) -> Result<Dialog, ApiError> {
        let Some(d) = self.dialog() else {
            return Err(ApiError::not_found(format!(
                "no dialog is open on tab {}",
                self.id()
            )));
        };
        let mut params = json!({ "accept": accept });
        if let Some(t) = text {
            params["promptText"] = json!(t);
        }
        self.inner
            .cdp
            .call("Page.handleJavaScriptDialog", params)
            .await?;
        Ok(d)
    }

    /// Leaving the page is an explicit wish to leave: answers an open dialog
    /// the way leaving would (an alert, confirm or prompt dismissed, a
    /// beforeunload accepted) and returns it; None when none was open.
    pub async fn leave_dialog(&self) -> Result<Option<Dialog>, ApiError> {
        let Some(d) = self.dialog() else {
            return Ok(None);
        };
        let accept = d.kind == "beforeunload";
        // It may have closed meanwhile ("No dialog is showing"): fine.
        let _ = self
            .inner
            .cdp
            .call("Page.handleJavaScriptDialog", json!({ "accept": accept }))
            .await;
        let mut watch = self.inner.dialog.clone();
        let closed = tokio::time::timeout(
            std::time::Duration::from_secs(2),
            watch.wait_for(|d| d.is_none()),
        )
        .await;
        if !matches!(closed, Ok(Ok(_))) {
            return Err(dialog_open(self.id(), &d));
        }
        Ok(Some(d))
    }

    /// Whether the main frame's current document has reached lifecycle `name`.
    pub fn reached(&self, name: &str) -> bool {
        self.inner
            .lifecycle
            .lock()
            .map(|l| l.events.contains(name))
            .unwrap_or(false)
    }

    /// Evaluates webrig's own `expression` in the page's main world and returns
    /// its JSON value. Promises are awaited. A thrown exception becomes
    /// `invalid_argument` with the page's message.
    pub async fn eval(&self, expression: &str) -> Result<Value, ApiError> {
        let reply = self
            .call(
                "Runtime.evaluate",
                json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
            )
            .await?;
        value_of(&reply)
    }

    /// Evaluates a user's script like a console would: statements, `let`
    /// redeclaration and top-level `await` are allowed (REPL mode), and a
    /// promise that is the script's value is awaited too.
    ///
    /// A value whose JSON would be longer than `max` is measured in the page
    /// and not brought back. CDP returns a primitive (a 100 MB string)
    /// inline with the evaluation whatever the options, so the value must
    /// never be what the evaluation returns: one expression runs as
    /// `[(script)]`, statements as `[(0, eval)(script)]` (global code, its
    /// completion value; `let`/`const` live for that call). Only statements
    /// that use top-level `await`, which global code cannot, run in REPL
    /// mode and are capped by the dispatcher once back.
    pub async fn eval_user(&self, script: &str, max: usize) -> Result<Capped<Value>, ApiError> {
        // Objects the evaluation left in its group (a holder, an exception):
        // released after, in the background. A primitive leaves none, so
        // `eval 1` is one round trip, which counts through the relay.
        let mut held = false;
        let result = match expression_of(script) {
            // One call in the common case: a script that does not parse as an
            // expression fails to compile, so nothing ran and it may run
            // again as statements. Only a SyntaxError is ambiguous (the
            // script's own, thrown at run time, or the compiler's), and only
            // then is it parsed apart.
            Some(expr) => match self.eval_expression(expr, max, &mut held).await {
                Err(Evaluated::SyntaxError(_)) if !self.parses_as_expression(expr).await? => {
                    self.eval_script(script, max, &mut held).await
                }
                Err(Evaluated::NeedsRepl) => self.eval_script(script, max, &mut held).await,
                Err(Evaluated::SyntaxError(e) | Evaluated::Failed(e)) => Err(e),
                Ok(v) => Ok(v),
            },
            None => self.eval_script(script, max, &mut held).await,
        };
        if held {
            let cdp = self.inner.cdp.clone();
            tokio::spawn(async move {
                let _ = cdp
                    .call(
                        "Runtime.releaseObjectGroup",
                        json!({ "objectGroup": "webrig-eval" }),
                    )
                    .await;
            });
        }
        result
    }

    /// Whether `expr` parses as one expression (top-level `await` allowed).
    /// The AsyncFunction constructor parses a body given as a string (which
    /// cannot break out of it) and runs nothing; `Runtime.compileScript`
    /// would need the Runtime domain enabled, and its events.
    async fn parses_as_expression(&self, expr: &str) -> Result<bool, ApiError> {
        let body = json!(format!("return [({expr}\n)]"));
        let reply = self
            .call(
                "Runtime.evaluate",
                json!({
                    "expression": format!("void (async () => {{}}).constructor({body})"),
                    "returnByValue": true,
                }),
            )
            .await?;
        Ok(reply.get("exceptionDetails").is_none())
    }

    /// Statements: as global code through an indirect `eval`, measured like
    /// an expression; those only REPL mode can run (top-level `await`) run
    /// there, nothing having run yet.
    async fn eval_script(
        &self,
        script: &str,
        max: usize,
        held: &mut bool,
    ) -> Result<Capped<Value>, ApiError> {
        // A script that does not parse as a function body (top-level
        // `await`) has not run when the holder comes back null.
        let source = json!(script);
        let holder = format!(
            "(() => {{ try {{ new Function({source}); }} catch (e) {{ return null; }} \
               return [(0, eval)({source})]; }})()"
        );
        match self.eval_measured(&holder, max, held).await {
            Err(Evaluated::NeedsRepl) => self.eval_statements(script, held).await.map(Capped::Fits),
            Err(Evaluated::SyntaxError(e) | Evaluated::Failed(e)) => Err(e),
            Ok(v) => Ok(v),
        }
    }

    async fn eval_expression(
        &self,
        expr: &str,
        max: usize,
        held: &mut bool,
    ) -> Result<Capped<Value>, Evaluated> {
        self.eval_measured(&format!("[({expr}\n)]"), max, held)
            .await
    }

    /// Evaluates `holder` (JS giving a one-element array, or null for "run
    /// it in REPL mode"), awaits a promise in it, and measures its JSON in
    /// the page. The answer says which it is by its type: a bigint is the
    /// length of a value over `max` (-1: REPL needed); a primitive that
    /// fits comes inline, as an evaluation gives it (in one call, which
    /// matters to a script that closes its own page); anything else stays
    /// in the holder array and is fetched by value.
    async fn eval_measured(
        &self,
        holder: &str,
        max: usize,
        held: &mut bool,
    ) -> Result<Capped<Value>, Evaluated> {
        let measured = format!(
            "await (async (h) => {{ if (h === null) return -1n; {MEASURE} \
               if (n > {max}) return BigInt(n); \
               const inline = v === null || !['object', 'function', 'symbol', 'bigint'].includes(typeof v); \
               return inline ? v : h; }})({holder})"
        );
        let reply = self
            .call(
                "Runtime.evaluate",
                json!({
                    "expression": measured,
                    "replMode": true,
                    "awaitPromise": true,
                    "userGesture": true,
                    "objectGroup": "webrig-eval",
                }),
            )
            .await?;
        *held |= holds_objects(&reply);
        if let Some(details) = reply.get("exceptionDetails") {
            let error = value_of(&reply)
                .err()
                .unwrap_or_else(|| ApiError::invalid("page script failed"));
            return Err(if details["exception"]["className"] == "SyntaxError" {
                Evaluated::SyntaxError(error)
            } else {
                Evaluated::Failed(error)
            });
        }
        let result = &reply["result"];
        if result["type"] == "bigint" {
            let raw = result["unserializableValue"].as_str().unwrap_or_default();
            if raw == "-1n" {
                return Err(Evaluated::NeedsRepl);
            }
            let n = raw.trim_end_matches('n').parse().unwrap_or(usize::MAX);
            return Ok(Capped::TooLarge(n));
        }
        let Some(holder) = result["objectId"].as_str() else {
            return Ok(Capped::Fits(value_of(&reply)?));
        };
        let reply = self
            .call(
                "Runtime.callFunctionOn",
                json!({
                    "objectId": holder,
                    // A symbol goes boxed, as `this` did before (`{}`).
                    "functionDeclaration": "function () { \
                        const v = this[0]; return typeof v === 'symbol' ? Object(v) : v; }",
                    "returnByValue": true,
                }),
            )
            .await?;
        Ok(Capped::Fits(value_of(&reply)?))
    }

    /// The script as REPL statements; their value comes back whatever its
    /// size. REPL mode hands back a promise that is the script's value
    /// unresolved, hence the second step.
    async fn eval_statements(&self, script: &str, held: &mut bool) -> Result<Value, ApiError> {
        let reply = self
            .call(
                "Runtime.evaluate",
                json!({
                    "expression": script,
                    "replMode": true,
                    "awaitPromise": true,
                    "userGesture": true,
                    "objectGroup": "webrig-eval",
                }),
            )
            .await?;
        *held |= holds_objects(&reply);
        if reply.get("exceptionDetails").is_some() {
            return value_of(&reply);
        }
        let result = &reply["result"];
        let Some(object_id) = result["objectId"].as_str() else {
            return value_of(&reply);
        };
        let settled = if result["subtype"] == "promise" {
            self.call(
                "Runtime.awaitPromise",
                json!({ "promiseObjectId": object_id, "returnByValue": true }),
            )
            .await
        } else {
            self.call(
                "Runtime.callFunctionOn",
                json!({
                    "objectId": object_id,
                    "functionDeclaration": "function () { return this; }",
                    "returnByValue": true,
                }),
            )
            .await
        };
        value_of(&settled?)
    }
}

/// Page-side: awaits a promise in `h[0]` and sets `n` to the length of its
/// JSON (UTF-16 units, never more than its UTF-8 bytes; a string's without
/// copying it; 0 when it has none, and CDP then reports what it can).
const MEASURE: &str = "let v = h[0]; \
    if (v instanceof Promise || Object.prototype.toString.call(v) === '[object Promise]') \
      h[0] = v = await v; \
    let n = 0; \
    if (typeof v === 'string') n = v.length + 2; \
    else try { \
      n = JSON.stringify(v, (k, x) => typeof x === 'bigint' ? String(x) : x)?.length ?? 0; \
    } catch (_) {}";

/// The script as one expression, when it can be one with the same value:
/// trailing `;` dropped, and never when a statement would read it otherwise
/// (a block, a function or class declaration, `let`), which an expression
/// statement cannot start with.
fn expression_of(script: &str) -> Option<&str> {
    let expr = script.trim_end().trim_end_matches(';').trim_end();
    let mut head = expr;
    loop {
        head = head.trim_start();
        if let Some(rest) = head.strip_prefix("//") {
            head = rest.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(rest) = head.strip_prefix("/*") {
            head = rest.split_once("*/").map_or("", |(_, after)| after);
        } else {
            break;
        }
    }
    let word = |w: &str| {
        head.strip_prefix(w).is_some_and(|rest| {
            !rest
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$')
        })
    };
    let statement = head.is_empty()
        || head.starts_with('{')
        || ["function", "async", "class", "let"].into_iter().any(word);
    (!statement).then_some(expr)
}

/// How an expression's evaluation failed: a SyntaxError may mean it did
/// not compile (and ran nothing).
enum Evaluated {
    SyntaxError(ApiError),
    Failed(ApiError),
    /// Statements only REPL mode runs (top-level `await`); nothing ran.
    NeedsRepl,
}

impl From<ApiError> for Evaluated {
    fn from(e: ApiError) -> Self {
        Evaluated::Failed(e)
    }
}

/// Whether a reply left remote objects behind (a value or an exception
/// held by reference).
fn holds_objects(reply: &Value) -> bool {
    reply["result"].get("objectId").is_some()
        || reply["exceptionDetails"]["exception"]
            .get("objectId")
            .is_some()
}

/// Reads a `Runtime.evaluate` / `callFunctionOn` reply.
pub fn value_of(reply: &Value) -> Result<Value, ApiError> {
    if let Some(details) = reply.get("exceptionDetails") {
        let message = details["exception"]["description"]
            .as_str()
            .or_else(|| details["exception"]["value"].as_str())
            .or_else(|| details["text"].as_str())
            .unwrap_or("the script threw")
            .lines()
            .next()
            .unwrap_or_default()
            .to_string();
        return Err(ApiError::invalid(format!("page script failed: {message}")));
    }
    let result = &reply["result"];
    if let Some(value) = result.get("value") {
        return Ok(value.clone());
    }
    // NaN, Infinity, -0 and bigints have no JSON form: return their text.
    if let Some(text) = result.get("unserializableValue") {
        return Ok(text.clone());
    }
    Ok(Value::Null)
}

impl From<CdpError> for ApiError {
    fn from(e: CdpError) -> Self {
        match e {
            CdpError::Closed => ApiError::new(
                ErrorCode::BrowserGone,
                "the browser connection closed while the command ran",
            )
            .with_hint("start a new one with webrig launch, or end the session with webrig close"),
            // The extension relay dropped while the call was out.
            CdpError::Protocol { message, .. } if message.contains("the outcome is unknown") => {
                ApiError::new(ErrorCode::OutcomeUnknown, message)
                    .with_hint("the extension reconnects by itself; check the page before retrying")
            }
            CdpError::Protocol { message, .. }
                if message.contains("session") && message.contains("not found")
                    || message.contains("No target with given id")
                    // chrome.debugger, through the extension relay.
                    || message.contains("No tab with given id")
                    || message.contains("Debugger is not attached")
                    || message.contains("Detached while handling command") =>
            {
                ApiError::not_found(format!("the tab is gone: {message}"))
                    .with_hint("list tabs with webrig tabs")
            }
            CdpError::Protocol { message, .. } => {
                ApiError::internal(format!("browser refused: {message}"))
            }
            CdpError::Connect { url, reason } => ApiError::new(
                ErrorCode::BrowserGone,
                format!("cannot reach the browser at {url}: {reason}"),
            ),
        }
    }
}

/// What a tab's watcher keeps up to date.
struct Watched {
    lifecycle: std::sync::Weak<Mutex<Lifecycle>>,
    detached: Arc<AtomicBool>,
    children: Arc<Mutex<HashMap<String, String>>>,
    dialog: tokio::sync::watch::Sender<Option<Dialog>>,
    devtools: std::sync::Weak<super::devtools::TabDevtools>,
}

/// Follows the tab's events for as long as it lives: the main frame's
/// lifecycle, dialogs, child frames, and (one subscription for all) what
/// its devtools record.
/// Installs webrig's main-world hooks (`page/hooks.js`) in every document
/// the session's frames load from now on, and in the current ones.
async fn install_hooks(cdp: &CdpSession) -> Result<(), super::cdp::CdpError> {
    cdp.call(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({ "source": super::frames::HOOKS, "runImmediately": true }),
    )
    .await
    .map(|_| ())
}

/// `Target.setAutoAttach` for a page or an out-of-process frame: its
/// out-of-process frames; under a domain policy, each waits to be guarded
/// (Chromium then holds the dedicated workers too, so they are attached
/// as well, to be let run).
fn auto_attach(guarded: bool) -> Value {
    let mut filter = vec![json!({ "type": "iframe", "exclude": false })];
    if guarded {
        filter.push(json!({ "type": "worker", "exclude": false }));
    }
    json!({
        "autoAttach": true,
        "waitForDebuggerOnStart": guarded,
        "flatten": true,
        "filter": filter,
    })
}

/// A target attached below the tab (`p`: `Target.attachedToTarget`). An
/// out-of-process frame gets the page hooks, the policy's guards and (under
/// a policy) its own auto-attach before it runs, and is remembered; a
/// worker that waits is let run.
fn attached(
    cdp: &CdpSession,
    p: &Value,
    devtools: &std::sync::Weak<super::devtools::TabDevtools>,
    children: &Arc<Mutex<HashMap<String, String>>>,
) {
    let Some(id) = p["sessionId"].as_str() else {
        return;
    };
    let child = CdpSession::new(cdp.connection().clone(), id);
    let waiting = p["waitingForDebugger"] == true;
    if p["targetInfo"]["type"] != "iframe" {
        // A dedicated worker (attached only under a policy): the socket
        // guard runs in it before its script does (a worker made from a
        // blob has no response a CSP could ride on).
        let guard = devtools
            .upgrade()
            .and_then(|d| Some(d.shared.policy()?.socket_guard(d.shared.is_relay())));
        if waiting || guard.is_some() {
            tokio::spawn(async move {
                super::guard::let_run(&child, guard.as_deref(), waiting).await;
            });
        }
        return;
    }
    if let (Some(target), Ok(mut map)) = (p["targetInfo"]["targetId"].as_str(), children.lock()) {
        map.insert(target.to_string(), id.to_string());
    }
    let devtools = devtools.clone();
    tokio::spawn(async move {
        // Scripts for new documents hold in a frame's own target only once
        // its Page domain is on.
        let _ = child.call("Page.enable", json!({})).await;
        let _ = install_hooks(&child).await;
        if let Some(devtools) = devtools.upgrade() {
            // The policy's socket guard (and, on the user's browser, the
            // frame's own request guard), and its frames held the same way.
            if let Err(e) = devtools.enable_frame(&child).await {
                tracing::debug!(error = %e, "guarding a frame");
            }
            if devtools.shared.policy().is_some() {
                let _ = child.call("Target.setAutoAttach", auto_attach(true)).await;
            }
        }
        super::guard::let_run(&child, None, waiting).await;
    });
}

fn spawn_watcher(cdp: &CdpSession, main_frame: &str, watched: Watched) {
    let Watched {
        lifecycle,
        detached,
        children,
        dialog,
        devtools,
    } = watched;
    let cdp = cdp.clone();
    let mut events = cdp.connection().subscribe();
    let session = cdp.id().to_string();
    let frame = main_frame.to_string();
    tokio::spawn(async move {
        loop {
            let Some(event) = super::cdp::next_event(&mut events).await else {
                break;
            };
            let Some(lifecycle) = lifecycle.upgrade() else {
                break;
            };
            if event.method == "Target.detachedFromTarget"
                && event.params["sessionId"] == session.as_str()
            {
                detached.store(true, Ordering::Relaxed);
                break;
            }
            if event.session_id.as_deref() == Some(&session) {
                let p = &event.params;
                match event.method.as_str() {
                    "Page.javascriptDialogOpening" => {
                        dialog.send_replace(Some(Dialog {
                            kind: p["type"].as_str().unwrap_or("alert").to_string(),
                            message: p["message"].as_str().unwrap_or_default().to_string(),
                            default_prompt: p["defaultPrompt"].as_str().map(str::to_string),
                        }));
                        continue;
                    }
                    "Page.javascriptDialogClosed" => {
                        dialog.send_replace(None);
                        continue;
                    }
                    "Target.attachedToTarget" => {
                        attached(&cdp, p, &devtools, &children);
                        continue;
                    }
                    "Target.detachedFromTarget" => {
                        if let (Some(child), Ok(mut map)) =
                            (p["sessionId"].as_str(), children.lock())
                        {
                            map.retain(|_, s| s != child);
                        }
                        continue;
                    }
                    "Page.lifecycleEvent" => {}
                    method => {
                        if let Some(devtools) = devtools.upgrade() {
                            devtools.on_event(&cdp, method, p);
                        }
                        continue;
                    }
                }
            }
            // A frame or worker attached below an out-of-process frame
            // (auto-attached there under a policy), and its going.
            if matches!(
                event.method.as_str(),
                "Target.attachedToTarget" | "Target.detachedFromTarget"
            ) && let Some(parent) = event.session_id.as_deref()
                && children
                    .lock()
                    .is_ok_and(|m| m.values().any(|s| s == parent))
            {
                if event.method == "Target.attachedToTarget" {
                    attached(&cdp, &event.params, &devtools, &children);
                } else if let (Some(child), Ok(mut map)) =
                    (event.params["sessionId"].as_str(), children.lock())
                {
                    map.retain(|_, s| s != child);
                }
                continue;
            }
            // A paused request of an out-of-process frame (the relay's
            // per-tab guard).
            if event.method == "Fetch.requestPaused"
                && let Some(child) = event.session_id.as_deref()
                && children
                    .lock()
                    .is_ok_and(|m| m.values().any(|s| s == child))
            {
                if let Some(devtools) = devtools.upgrade() {
                    let child = CdpSession::new(cdp.connection().clone(), child);
                    devtools.on_event(&child, &event.method, &event.params);
                }
                continue;
            }
            if event.session_id.as_deref() != Some(&session)
                || event.method != "Page.lifecycleEvent"
                || event.params["frameId"] != frame.as_str()
            {
                continue;
            }
            let loader = event.params["loaderId"].as_str().unwrap_or_default();
            let name = event.params["name"].as_str().unwrap_or_default();
            let Ok(mut state) = lifecycle.lock() else {
                break;
            };
            if name == "init" || state.loader_id != loader {
                state.loader_id = loader.to_string();
                state.events.clear();
            }
            state.events.insert(name.to_string());
        }
    });
}

/// Runs a CDP call unless a dialog is (or becomes) open on the tab.
pub async fn guard_dialog(
    tab: &str,
    dialog: &DialogWatch,
    call: impl std::future::Future<Output = Result<Value, CdpError>>,
) -> Result<Value, ApiError> {
    Ok(guard_dialog_raw(tab, dialog, call).await??)
}

/// Like [`guard_dialog`], but the call's own CDP error comes back as it is
/// (callers that must recognize a destroyed context need it).
pub async fn guard_dialog_raw(
    tab: &str,
    dialog: &DialogWatch,
    call: impl std::future::Future<Output = Result<Value, CdpError>>,
) -> Result<Result<Value, CdpError>, ApiError> {
    let mut watch = dialog.clone();
    if let Some(d) = watch.borrow_and_update().clone() {
        return Err(dialog_open(tab, &d));
    }
    let opened = async {
        let seen = watch.wait_for(|d| d.is_some()).await.map(|d| d.clone());
        match seen {
            Ok(d) => d,
            // The tab's watcher ended (tab gone): let the call itself fail.
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        r = call => Ok(r),
        d = opened => {
            let d = d.unwrap_or(Dialog { kind: "alert".into(), message: String::new(), default_prompt: None });
            Err(dialog_open(tab, &d))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::expression_of;

    #[test]
    fn scripts_that_read_as_one_expression_are_wrapped_others_stay_statements() {
        assert_eq!(expression_of("'x'.repeat(1e8);  "), Some("'x'.repeat(1e8)"));
        assert_eq!(
            expression_of("await fetch('/a')"),
            Some("await fetch('/a')")
        );
        assert_eq!(
            expression_of("/* c */ letters.length"),
            Some("/* c */ letters.length")
        );
        assert_eq!(
            expression_of("document.title // why"),
            Some("document.title // why")
        );
        for statements in [
            "",
            " ; ",
            "{a: 1}",
            "// c\n{a: 1}",
            "function f() {}",
            "async function f() {}",
            "class A {}",
            "let x = 1; x",
        ] {
            assert_eq!(expression_of(statements), None, "{statements:?}");
        }
    }
}
