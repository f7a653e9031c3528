//! Navigation and waiting: goto, history, reload, and the conditions `wait` polls.
//!
//! Owns what "loaded" means (CDP lifecycle events of the main frame, matched to
//! the navigation's loader) and how long to wait (the command's deadline).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::broadcast::{Receiver, error::RecvError};
use tokio::time::Instant;

use super::cdp::Event;
use super::tab::Tab;
use crate::error::{ApiError, ErrorCode};

/// How far a navigation must get before the command returns.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum LoadState {
    /// The new document is committed (the response arrived).
    Commit,
    /// HTML parsed, deferred scripts ran.
    Domcontentloaded,
    /// The page can be used: the load event fired, or the network went
    /// idle, or the DOM has been ready for a few seconds while something
    /// still loads (a script from an unreachable host must not hold the
    /// agent for the whole timeout); what still loads is reported.
    #[default]
    Usable,
    /// The load event fired (images, styles, frames done), however long it takes.
    Load,
    /// No network connections for 500 ms.
    Networkidle,
}

impl LoadState {
    fn lifecycle_name(self) -> &'static str {
        match self {
            LoadState::Commit => "commit",
            LoadState::Domcontentloaded => "DOMContentLoaded",
            LoadState::Usable | LoadState::Load => "load",
            LoadState::Networkidle => "networkIdle",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Navigated {
    pub url: String,
    pub title: String,
    /// When the page was returned as usable before its load event: what it
    /// was still loading (resource URLs, or `load event` when none is known).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<String>,
    /// A dialog that was open when this navigation started: leaving the
    /// page answered it (alerts, confirms and prompts dismissed, a
    /// beforeunload accepted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dismissed_dialog: Option<super::tab::Dialog>,
}

/// How long a page whose DOM is ready may keep loading before a `usable`
/// navigation returns it anyway.
const USABLE_GRACE: Duration = Duration::from_secs(3);

/// Normalizes what a user typed: `example.com` → `https://example.com/`,
/// `localhost:8080` → `http://localhost:8080/`.
pub fn normalize_url(raw: &str) -> Result<url::Url, ApiError> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Err(ApiError::invalid("the URL is empty"));
    }
    let candidate = if raw.contains("://") || raw.starts_with("about:") || raw.starts_with("data:")
    {
        raw.to_string()
    } else if raw.starts_with("localhost") || raw.starts_with("127.") || raw.starts_with("[::1]") {
        format!("http://{raw}")
    } else {
        format!("https://{raw}")
    };
    let url = url::Url::parse(&candidate)
        .map_err(|e| ApiError::invalid(format!("{raw:?} is not a valid URL: {e}")))?;
    match url.scheme() {
        "http" | "https" | "file" | "about" | "data" => {}
        other => {
            return Err(ApiError::invalid(format!(
                "URL scheme {other}: is not supported (use http, https, file, about or data)"
            )));
        }
    }
    if matches!(url.scheme(), "http" | "https") && url.host_str().is_none_or(str::is_empty) {
        return Err(ApiError::invalid(format!("{raw:?} has no host")));
    }
    Ok(url)
}

/// Tracks a main-frame navigation through its events until `until` is reached.
pub(crate) struct NavWatch {
    frame: String,
    session: String,
    committed: Option<String>,
    seen: HashMap<String, HashSet<String>>,
    /// When each loader's DOM became ready.
    dom_ready: HashMap<String, Instant>,
    same_document: bool,
    /// The navigation turned into a download: no document will commit.
    downloaded: bool,
}

impl NavWatch {
    pub(crate) fn new(tab: &Tab) -> Self {
        NavWatch {
            frame: tab.main_frame().to_string(),
            session: tab.cdp().id().to_string(),
            committed: None,
            seen: HashMap::new(),
            dom_ready: HashMap::new(),
            same_document: false,
            downloaded: false,
        }
    }

    /// True once a new document (or same-document navigation) committed.
    pub(crate) fn committed(&self) -> bool {
        self.committed.is_some() || self.same_document
    }

    /// True when the navigation became a download (nothing will load).
    pub(crate) fn downloaded(&self) -> bool {
        self.downloaded && self.committed.is_none()
    }

    pub(crate) fn observe(&mut self, event: &Event) {
        // Browser-level (no session) when downloads are followed; the
        // page's own (deprecated) event otherwise.
        if matches!(
            event.method.as_str(),
            "Browser.downloadWillBegin" | "Page.downloadWillBegin"
        ) && event.params["frameId"] == self.frame.as_str()
        {
            self.downloaded = true;
        }
        if event.session_id.as_deref() != Some(self.session.as_str()) {
            return;
        }
        let p = &event.params;
        match event.method.as_str() {
            "Page.lifecycleEvent" if p["frameId"] == self.frame.as_str() => {
                let loader = p["loaderId"].as_str().unwrap_or_default().to_string();
                let name = p["name"].as_str().unwrap_or_default().to_string();
                if name == "DOMContentLoaded" {
                    self.dom_ready
                        .entry(loader.clone())
                        .or_insert_with(Instant::now);
                }
                self.seen.entry(loader).or_default().insert(name);
            }
            "Page.frameNavigated" if p["frame"]["id"] == self.frame.as_str() => {
                let loader = p["frame"]["loaderId"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                // A page restored from the back/forward cache fires no new lifecycle.
                if p["type"] == "BackForwardCacheRestore" {
                    self.same_document = true;
                }
                self.committed = Some(loader);
            }
            "Page.navigatedWithinDocument" if p["frameId"] == self.frame.as_str() => {
                self.same_document = true;
            }
            _ => {}
        }
    }

    fn done(&self, until: LoadState) -> bool {
        if self.same_document || self.downloaded() {
            return true;
        }
        let Some(loader) = &self.committed else {
            return false;
        };
        let seen = |name: &str| self.seen.get(loader).is_some_and(|n| n.contains(name));
        match until {
            LoadState::Commit => true,
            LoadState::Usable => {
                seen("load")
                    || seen("networkIdle")
                    || self.usable_at().is_some_and(|at| Instant::now() >= at)
            }
            other => seen(other.lifecycle_name()),
        }
    }

    /// When a `usable` wait gives up on the load event: a while after the
    /// committed document's DOM became ready.
    fn usable_at(&self) -> Option<Instant> {
        let loader = self.committed.as_ref()?;
        self.dom_ready.get(loader).map(|at| *at + USABLE_GRACE)
    }

    /// True when the committed document fired its load event.
    pub(crate) fn loaded(&self) -> bool {
        self.same_document
            || self
                .committed
                .as_ref()
                .and_then(|l| self.seen.get(l))
                .is_some_and(|n| n.contains("load"))
    }

    /// Consumes events until done or the deadline passes.
    pub(crate) async fn run(
        &mut self,
        events: &mut Receiver<Arc<Event>>,
        tab: &Tab,
        until: LoadState,
        deadline: Instant,
        what: &str,
    ) -> Result<(), ApiError> {
        while !self.done(until) {
            let wake = match (until, self.usable_at()) {
                (LoadState::Usable, Some(at)) => at.min(deadline),
                _ => deadline,
            };
            match tokio::time::timeout_at(wake, events.recv()).await {
                Ok(Ok(event)) => self.observe(&event),
                Err(_) if wake < deadline => {} // the grace ended: done() says so
                Ok(Err(RecvError::Lagged(_))) => {
                    // Events were lost: fall back to the document's own state.
                    if ready_state_reached(tab, until).await {
                        return Ok(());
                    }
                }
                Ok(Err(RecvError::Closed)) => {
                    return Err(ApiError::from(super::cdp::CdpError::Closed));
                }
                Err(_) => {
                    return Err(ApiError::timeout(format!(
                        "{what} did not reach {until:?} before the deadline"
                    ))
                    .with_hint("raise --timeout-ms, or wait for less with --until commit"));
                }
            }
        }
        Ok(())
    }
}

async fn ready_state_reached(tab: &Tab, until: LoadState) -> bool {
    let Ok(Value::String(state)) = tab.eval("document.readyState").await else {
        return false;
    };
    match until {
        LoadState::Commit => true,
        LoadState::Domcontentloaded | LoadState::Usable => state != "loading",
        LoadState::Load | LoadState::Networkidle => state == "complete",
    }
}

pub async fn goto(
    tab: &Tab,
    url: &url::Url,
    until: LoadState,
    deadline: Instant,
) -> Result<Navigated, ApiError> {
    let shared = &tab.devtools().shared;
    if let Some(policy) = shared.policy() {
        policy.require(url.as_str())?;
    }
    let mut events = tab.cdp().connection().subscribe();
    let reply = tab
        .call("Page.navigate", json!({ "url": url.as_str() }))
        .await?;
    if let Some(error) = reply["errorText"].as_str().filter(|e| !e.is_empty()) {
        // A redirect (or a frame of it) the domain policy refused.
        if error.contains("ERR_BLOCKED_BY_CLIENT")
            && let Some(why) = shared.refusals().take_last_document()
        {
            return Err(super::policy::refused(format!(
                "could not load {url}: {why}"
            )));
        }
        return Err(ApiError::new(
            ErrorCode::NavigationFailed,
            format!("could not load {url}: {error}"),
        ));
    }
    let mut watch = NavWatch::new(tab);
    match reply["loaderId"].as_str() {
        Some(loader) => watch.committed = Some(loader.to_string()),
        None => watch.same_document = true,
    }
    watch
        .run(&mut events, tab, until, deadline, &format!("loading {url}"))
        .await?;
    arrived(tab, &watch, until).await
}

/// The page a navigation reached; for a `usable` one returned before its
/// load event, with what it still loads.
async fn arrived(tab: &Tab, watch: &NavWatch, until: LoadState) -> Result<Navigated, ApiError> {
    let mut out = current(tab).await?;
    if until == LoadState::Usable && !watch.loaded() {
        out.pending = pending_resources(tab).await;
    }
    Ok(out)
}

/// Resources the page references that have not finished loading: elements
/// whose URL has no resource timing entry yet (entries appear when a load
/// ends), and images not complete. At most 10.
async fn pending_resources(tab: &Tab) -> Vec<String> {
    const PROBE: &str = r#"(() => {
        const done = new Set(performance.getEntriesByType('resource').map((e) => e.name));
        const out = [];
        const add = (u) => { if (u && !done.has(u) && !out.includes(u) && out.length < 10) out.push(u); };
        for (const el of document.querySelectorAll('script[src], link[rel~="stylesheet"][href], iframe[src]')) {
            add(el.src || el.href);
        }
        for (const img of document.images) if (!img.complete) add(img.currentSrc || img.src);
        return out;
    })()"#;
    let listed: Vec<String> = match tab.eval(PROBE).await {
        Ok(Value::Array(items)) => items
            .into_iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    if listed.is_empty() {
        vec!["load event".to_string()]
    } else {
        listed
    }
}

/// Goes `delta` steps through the tab's history (-1 back, +1 forward).
pub async fn history(
    tab: &Tab,
    delta: i64,
    until: LoadState,
    deadline: Instant,
) -> Result<Navigated, ApiError> {
    let history = tab.call("Page.getNavigationHistory", json!({})).await?;
    let index = history["currentIndex"].as_i64().unwrap_or(0) + delta;
    let entries = history["entries"].as_array().cloned().unwrap_or_default();
    let Some(entry) = usize::try_from(index).ok().and_then(|i| entries.get(i)) else {
        let which = if delta < 0 { "back" } else { "forward" };
        return Err(ApiError::invalid(format!(
            "there is no page to go {which} to"
        )));
    };
    let mut events = tab.cdp().connection().subscribe();
    tab.call(
        "Page.navigateToHistoryEntry",
        json!({ "entryId": entry["id"] }),
    )
    .await?;
    let mut watch = NavWatch::new(tab);
    watch
        .run(&mut events, tab, until, deadline, "the history navigation")
        .await?;
    arrived(tab, &watch, until).await
}

pub async fn reload(tab: &Tab, until: LoadState, deadline: Instant) -> Result<Navigated, ApiError> {
    let mut events = tab.cdp().connection().subscribe();
    tab.call("Page.reload", json!({})).await?;
    let mut watch = NavWatch::new(tab);
    watch
        .run(&mut events, tab, until, deadline, "the reload")
        .await?;
    arrived(tab, &watch, until).await
}

/// The tab's URL and title, read from the page.
pub async fn current(tab: &Tab) -> Result<Navigated, ApiError> {
    let v = tab.eval("[location.href, document.title]").await?;
    Ok(Navigated {
        url: v[0].as_str().unwrap_or_default().to_string(),
        title: v[1].as_str().unwrap_or_default().to_string(),
        pending: Vec::new(),
        dismissed_dialog: None,
    })
}

/// A condition `wait` polls for.
#[derive(Debug, Clone)]
pub enum Condition {
    Text {
        text: String,
        present: bool,
    },
    Selector {
        selector: String,
        state: ElementState,
    },
    /// A locator (`text=Done`), searched in every frame.
    Locator {
        locator: Box<super::locate::Locator>,
        state: ElementState,
    },
    Url(String),
    Load(LoadState),
    Script(String),
    Delay(Duration),
}

#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum ElementState {
    Attached,
    Detached,
    #[default]
    Visible,
    Hidden,
}

const POLL: Duration = Duration::from_millis(25);

/// Waits until `condition` holds; `timeout` when the deadline passes first.
pub async fn wait(tab: &Tab, condition: &Condition, deadline: Instant) -> Result<(), ApiError> {
    if let Condition::Delay(d) = condition {
        let until = Instant::now() + *d;
        if until > deadline {
            return Err(ApiError::timeout(format!(
                "a {} ms wait is longer than the command timeout",
                d.as_millis()
            ))
            .with_hint("raise --timeout-ms"));
        }
        tokio::time::sleep_until(until).await;
        return Ok(());
    }
    let probe = probe_script(condition)?;
    loop {
        let holds = match condition {
            Condition::Load(state) if *state == LoadState::Networkidle => {
                tab.reached("networkIdle")
            }
            Condition::Locator { locator, state } => {
                match super::locate::holds(tab, locator, *state).await {
                    Ok(b) => b,
                    Err(e) if e.code() == ErrorCode::InvalidArgument => return Err(e),
                    // A document being replaced: look again.
                    Err(_) => false,
                }
            }
            _ => match tab.eval(&probe).await {
                Ok(Value::Bool(b)) => b,
                Ok(Value::Object(o)) if o.contains_key("error") => {
                    return Err(ApiError::invalid(
                        o["error"].as_str().unwrap_or("bad condition").to_string(),
                    ));
                }
                Ok(v) => truthy(&v),
                // A navigation in progress destroys the context: try again.
                Err(e) if e.code() == ErrorCode::Internal => false,
                // A page script that throws is the caller's bug; other probes
                // only throw while a new document is being set up.
                Err(e)
                    if e.code() == ErrorCode::InvalidArgument
                        && !matches!(condition, Condition::Script(_)) =>
                {
                    false
                }
                Err(e) => return Err(e),
            },
        };
        if holds {
            return Ok(());
        }
        if Instant::now() + POLL > deadline {
            return Err(
                ApiError::timeout(format!("waited for {} in vain", describe(condition)))
                    .with_hint("raise --timeout-ms or check the condition"),
            );
        }
        // A locator searches every frame: poll it less often.
        let pause = if matches!(condition, Condition::Locator { .. }) {
            POLL * 4
        } else {
            POLL
        };
        tokio::time::sleep(pause).await;
    }
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        _ => true,
    }
}

fn describe(c: &Condition) -> String {
    match c {
        Condition::Text {
            text,
            present: true,
        } => format!("text {text:?} to appear"),
        Condition::Text {
            text,
            present: false,
        } => format!("text {text:?} to disappear"),
        Condition::Selector { selector, state } => {
            format!("{selector:?} to be {}", format!("{state:?}").to_lowercase())
        }
        Condition::Locator { locator, state } => format!(
            "{} to be {}",
            locator.source(),
            format!("{state:?}").to_lowercase()
        ),
        Condition::Url(p) => format!("the URL to match {p:?}"),
        Condition::Load(s) => format!("load state {s:?}"),
        Condition::Script(_) => "the script to return a truthy value".to_string(),
        Condition::Delay(d) => format!("{} ms", d.as_millis()),
    }
}

/// JavaScript returning true when the condition holds (or `{error}` when the
/// condition itself is malformed, e.g. a bad selector).
fn probe_script(c: &Condition) -> Result<String, ApiError> {
    let js = |v: &str| serde_json::to_string(v).unwrap_or_default();
    Ok(match c {
        // The text as read, shadow content included (read::DEEP_TEXT).
        Condition::Text { text, present } => format!(
            "(document.body ? {}(document.body) : '').includes({}) === {present}",
            super::read::DEEP_TEXT,
            js(text)
        ),
        // The selector pierces open shadow roots as actions' targets do
        // (deepQuery in page/core.js; this probe runs in the page's world).
        Condition::Selector { selector, state } => format!(
            "(() => {{ const deep = (root) => {{ const w = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
                for (let n = w.nextNode(); n; n = w.nextNode()) if (n.shadowRoot) {{
                  const hit = n.shadowRoot.querySelector({sel}) || deep(n.shadowRoot); if (hit) return hit; }}
                return null; }};
              let el; try {{ el = document.querySelector({sel}) || deep(document); }} catch (e) {{ return {{error: 'invalid selector ' + {sel}}}; }}
              const visible = !!el && (() => {{ const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
                return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; }})();
              return {check}; }})()",
            sel = js(selector),
            check = match state {
                ElementState::Attached => "!!el",
                ElementState::Detached => "!el",
                ElementState::Visible => "visible",
                ElementState::Hidden => "!visible",
            }
        ),
        Condition::Url(pattern) => {
            let regex = glob_to_regex(pattern);
            format!("new RegExp({}).test(location.href)", js(&regex))
        }
        Condition::Load(state) => match state {
            LoadState::Commit => "true".to_string(),
            LoadState::Domcontentloaded | LoadState::Usable => {
                "document.readyState !== 'loading'".to_string()
            }
            _ => "document.readyState === 'complete'".to_string(),
        },
        Condition::Script(src) => src.clone(),
        Condition::Delay(_) | Condition::Locator { .. } => "true".to_string(),
    })
}

/// `*` matches anything, `**` too; without a `*` the pattern matches as a substring.
fn glob_to_regex(pattern: &str) -> String {
    let mut out = String::new();
    let anchored = pattern.contains('*');
    if anchored {
        out.push('^');
    }
    for ch in pattern.chars() {
        match ch {
            '*' => out.push_str(".*"),
            c if "\\^$.|?+()[]{}/".contains(c) => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    if anchored {
        out.push('$');
    }
    out.replace(".*.*", ".*")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_hosts_get_a_scheme() {
        assert_eq!(
            normalize_url("example.com").expect("ok").as_str(),
            "https://example.com/"
        );
        assert_eq!(
            normalize_url("localhost:8080/a").expect("ok").as_str(),
            "http://localhost:8080/a"
        );
        assert_eq!(
            normalize_url("about:blank").expect("ok").as_str(),
            "about:blank"
        );
    }

    #[test]
    fn bad_urls_are_refused_with_invalid_argument() {
        for bad in [
            "",
            "http://",
            "javascript:alert(1)",
            "ftp://x/y",
            "http://exa mple.com",
        ] {
            let err = normalize_url(bad).expect_err(bad);
            assert_eq!(err.code(), ErrorCode::InvalidArgument, "{bad}");
        }
    }

    #[test]
    fn url_globs_anchor_only_with_stars() {
        assert_eq!(glob_to_regex("/done"), "\\/done");
        assert_eq!(glob_to_regex("http://x/*"), "^http:\\/\\/x\\/.*$");
    }
}
