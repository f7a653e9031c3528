//! Devtools: what a session's tabs logged, threw and fetched (bounded rings),
//! the routes that answer their requests, their emulation, and the
//! session's downloads.
//!
//! [`Shared`] is one per session and handed to each of its tabs; a tab's
//! [`TabDevtools`] holds its rings and its event task. Everything here is
//! fed by CDP events and bounded: a page that logs or fetches without end
//! costs the daemon a fixed amount.

pub mod devices;
pub mod downloads;
pub mod emulation;
pub mod entry;
pub mod har;
pub mod redact;
pub mod rings;
pub mod routes;

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::cdp::{Connection, Session as CdpSession};
use crate::error::ApiError;

pub use downloads::{Download, Downloads};
pub use emulation::{Emulation, Setting};
pub use rings::{Caps, ConsoleEntry, PageError, Rings};
pub use routes::{Route, RouteAction};

pub use crate::config::Devtools as Config;

/// One session's devtools state, shared by its tabs.
pub struct Shared {
    pub config: Config,
    pub routes: Mutex<Vec<Route>>,
    pub emulation: Mutex<Emulation>,
    pub downloads: Arc<Downloads>,
    /// The session's browser is the user's own, through the extension.
    relay: std::sync::atomic::AtomicBool,
    /// Coherence, site health and challenges (`browser::signals`).
    pub signals: super::signals::Signals,
    /// The session's domain policy (None: every host).
    policy: std::sync::RwLock<Option<Arc<super::policy::DomainPolicy>>>,
    /// What the session's guard (browser-wide, or per tab on the relay)
    /// refused lately.
    refusals: std::sync::RwLock<Arc<super::guard::Refusals>>,
}

impl Shared {
    pub fn new(config: Config, downloads: Downloads) -> Arc<Shared> {
        Arc::new(Shared {
            config,
            routes: Mutex::new(Vec::new()),
            emulation: Mutex::new(Emulation::default()),
            downloads: Arc::new(downloads),
            relay: Default::default(),
            signals: Default::default(),
            policy: Default::default(),
            refusals: Default::default(),
        })
    }

    pub fn policy(&self) -> Option<Arc<super::policy::DomainPolicy>> {
        self.policy
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn refusals(&self) -> Arc<super::guard::Refusals> {
        self.refusals
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn set_refusals(&self, refusals: Arc<super::guard::Refusals>) {
        *self.refusals.write().unwrap_or_else(|e| e.into_inner()) = refusals;
    }

    pub fn set_policy(&self, policy: Option<Arc<super::policy::DomainPolicy>>) {
        *self.policy.write().unwrap_or_else(|e| e.into_inner()) = policy;
    }

    /// The policy the tabs themselves enforce: on the user's browser,
    /// where there is no browser-wide guard. Elsewhere the guard does.
    fn tab_guard(&self) -> Option<Arc<super::policy::DomainPolicy>> {
        self.policy().filter(|_| self.is_relay())
    }

    /// `Fetch.enable`'s arguments for a tab (None: Fetch off): every
    /// request when the tab guards the policy, else the routes' patterns.
    pub fn fetch_params(&self) -> Option<Value> {
        match self.tab_guard() {
            Some(policy) => {
                Some(json!({ "patterns": super::guard::patterns(!policy.csp().is_empty()) }))
            }
            None => routes::fetch_patterns(&self.routes()),
        }
    }

    /// `Network.enable`: the browser keeps response bodies up to the cap.
    fn network_enable(&self) -> emulation::Call {
        let body = self.config.network_body_bytes;
        (
            "Network.enable",
            json!({ "maxTotalBufferSize": body, "maxResourceBufferSize": body }),
        )
    }

    /// Emulation calls as a tab takes them: the Network domain enabled
    /// first when they use it and capture has not enabled it already.
    pub fn emulation_calls(&self, calls: Vec<emulation::Call>) -> Vec<emulation::Call> {
        let network = calls.iter().any(|(m, _)| m.starts_with("Network."));
        if network && !self.config.capture {
            std::iter::once(self.network_enable())
                .chain(calls)
                .collect()
        } else {
            calls
        }
    }

    pub fn set_relay(&self, relay: bool) {
        self.relay
            .store(relay, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn is_relay(&self) -> bool {
        self.relay.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn routes(&self) -> Vec<Route> {
        self.routes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn emulation(&self) -> Emulation {
        self.emulation
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn caps(&self) -> Caps {
        Caps {
            console: self.config.console_entries,
            errors: self.config.error_entries,
            network: self.config.network_entries,
        }
    }

    /// Sends downloads of a (launched or connected) browser to the
    /// session's folder and follows them. Not for the user's browser
    /// through the extension: its downloads are the user's.
    pub async fn watch_downloads(&self, conn: &Connection) -> Result<(), ApiError> {
        self.downloads.follow(conn).await
    }
}

/// The last actions a tab ran, for `inspect`.
const ACTIONS: usize = 10;

/// One tab's rings and the session state it follows.
pub struct TabDevtools {
    pub shared: Arc<Shared>,
    rings: Mutex<Rings>,
    actions: Mutex<std::collections::VecDeque<String>>,
}

impl TabDevtools {
    /// A tab's devtools; its events come from the tab's watcher
    /// ([`TabDevtools::on_event`]), its setup from [`TabDevtools::enable`].
    pub fn new(tab: &str, shared: Arc<Shared>) -> Arc<TabDevtools> {
        Arc::new(TabDevtools {
            rings: Mutex::new(Rings::new(tab, shared.caps())),
            actions: Mutex::new(Default::default()),
            shared,
        })
    }

    /// Enables what the tab needs: capture domains, routes, emulation. The
    /// calls run concurrently with the tab's own setup, so attaching costs
    /// no extra round trips in sequence.
    pub async fn enable(&self, cdp: &CdpSession) -> Result<(), ApiError> {
        let mut calls: Vec<(&'static str, Value)> = Vec::new();
        if self.shared.config.capture {
            calls.push(("Runtime.enable", json!({})));
            calls.push(("Log.enable", json!({})));
            calls.push(self.shared.network_enable());
        }
        if let Some(params) = self.shared.fetch_params() {
            calls.push(("Fetch.enable", params));
        }
        let guard;
        if let Some(policy) = self.shared.policy() {
            guard = policy.socket_guard(self.shared.is_relay());
            calls.push((
                "Page.addScriptToEvaluateOnNewDocument",
                json!({ "source": guard, "runImmediately": true }),
            ));
        }
        let emulation = self.shared.emulation();
        if !emulation.is_default() {
            calls.extend(self.shared.emulation_calls(emulation.calls()));
        }
        let replies =
            futures_util::future::join_all(calls.into_iter().map(|(m, p)| cdp.call(m, p))).await;
        for r in replies {
            r?;
        }
        Ok(())
    }

    /// Guards an out-of-process frame of the tab as the tab itself, where
    /// the tab guards the policy (the user's browser).
    pub async fn enable_frame(&self, frame: &CdpSession) -> Result<(), ApiError> {
        let Some(policy) = self.shared.policy() else {
            return Ok(());
        };
        let relay = self.shared.is_relay();
        let guard = policy.socket_guard(relay);
        let script = frame.call(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": guard, "runImmediately": true }),
        );
        // A browser-wide guard already holds the frame's requests; on the
        // user's browser the frame guards them itself.
        if relay {
            let (script, fetch) = tokio::join!(
                script,
                frame.call(
                    "Fetch.enable",
                    self.shared.fetch_params().unwrap_or_default()
                ),
            );
            script?;
            fetch?;
        } else {
            script.await?;
        }
        Ok(())
    }

    /// Takes one event of the tab's own session: into the rings, or (a
    /// paused request) answered per the session's routes.
    pub fn on_event(&self, cdp: &CdpSession, method: &str, params: &Value) {
        if method != "Fetch.requestPaused" {
            self.shared.signals.on_event(cdp.id(), method, params);
            let mut rings = self.rings();
            rings.apply(method, params);
            match method {
                "Network.loadingFailed" => {
                    let id = params["requestId"].as_str().unwrap_or_default();
                    if let Some(why) = self.shared.refusals().of(id) {
                        rings.mark_blocked(id, why);
                    }
                }
                "Network.webSocketCreated" => {
                    let url = params["url"].as_str().unwrap_or_default();
                    if let Some(Err(why)) = self.shared.policy().map(|p| p.check(url)) {
                        // The page's guard should have thrown; say so loudly.
                        tracing::warn!(%why, "a page opened a WebSocket the domain policy refuses");
                        rings.note_escape(params, why);
                    }
                }
                _ => {}
            }
            return;
        }
        let id = params["requestId"].as_str().unwrap_or_default().to_string();
        let url = params["request"]["url"].as_str().unwrap_or_default();
        if let Some(policy) = self.shared.tab_guard() {
            // The user's browser: this tab guards the policy, then routes.
            let (cdp, shared, params) = (cdp.clone(), self.shared.clone(), params.clone());
            tokio::spawn(async move {
                let call = match super::guard::verdict(&*policy, &shared.refusals(), &params).await
                {
                    Some(call) => call,
                    None => {
                        let url = params["request"]["url"].as_str().unwrap_or_default();
                        let mut routes = shared.routes.lock().unwrap_or_else(|e| e.into_inner());
                        routes::answer(&mut routes, &id, url)
                    }
                };
                if let Err(e) = cdp.call(call.0, call.1).await {
                    tracing::debug!(error = %e, "answering a guarded request");
                }
            });
            return;
        }
        let (method, params) = {
            let mut routes = self.shared.routes.lock().unwrap_or_else(|e| e.into_inner());
            routes::answer(&mut routes, &id, url)
        };
        let cdp = cdp.clone();
        tokio::spawn(async move {
            if let Err(e) = cdp.call(method, params).await {
                tracing::debug!(error = %e, "answering a routed request");
            }
        });
    }

    pub fn rings(&self) -> std::sync::MutexGuard<'_, Rings> {
        self.rings.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Notes an action the tab ran (`click @e3`), for `inspect`.
    pub fn note_action(&self, what: String) {
        let mut a = self.actions.lock().unwrap_or_else(|e| e.into_inner());
        a.push_back(what);
        while a.len() > ACTIONS {
            a.pop_front();
        }
    }

    pub fn actions(&self) -> Vec<String> {
        self.actions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .cloned()
            .collect()
    }
}

/// A request as shown without `--reveal` (see [`redact::request`]).
pub fn redact_request(r: &mut entry::Request) {
    redact::request(r);
}

pub fn redact_console(e: &mut ConsoleEntry) {
    redact::console(e);
}

pub fn redact_error(e: &mut PageError) {
    redact::error(e);
}

/// Writes local storage of `origins` (origin → items) without a page of
/// theirs open: a throwaway tab navigates to each origin, its requests
/// answered with an empty page (nothing goes to the network), writes the
/// items, and is closed.
pub async fn seed_local_storage(
    conn: &Connection,
    origins: &[(String, std::collections::BTreeMap<String, String>)],
) -> Result<(), ApiError> {
    if origins.is_empty() {
        return Ok(());
    }
    let made = conn
        .call(
            None,
            "Target.createTarget",
            json!({ "url": "about:blank", "background": true }),
        )
        .await?;
    let target = made["targetId"]
        .as_str()
        .ok_or_else(|| ApiError::internal("Target.createTarget returned no targetId"))?
        .to_string();
    let result = async {
        let page = CdpSession::attach(conn, &target).await?;
        let mut events = conn.subscribe();
        let answerer = page.clone();
        let answering = tokio::spawn(async move {
            loop {
                let Some(event) = super::cdp::next_event(&mut events).await else {
                    break;
                };
                if event.session_id.as_deref() != Some(answerer.id())
                    || event.method != "Fetch.requestPaused"
                {
                    continue;
                }
                let request = event.params["requestId"].clone();
                let _ = answerer
                    .call(
                        "Fetch.fulfillRequest",
                        json!({ "requestId": request, "responseCode": 200,
                                "responseHeaders": [{ "name": "Content-Type", "value": "text/html" }],
                                "body": "" }),
                    )
                    .await;
            }
        });
        let seeded = async {
            page.call(
                "Fetch.enable",
                json!({ "patterns": [{ "urlPattern": "*", "requestStage": "Request" }] }),
            )
            .await?;
            for (origin, items) in origins {
                page.call("Page.navigate", json!({ "url": format!("{origin}/") }))
                    .await?;
                let script = format!(
                    "(() => {{ if (location.origin !== {o}) return false; \
                     for (const [k, v] of Object.entries({items})) localStorage.setItem(k, v); \
                     return true; }})()",
                    o = json!(origin),
                    items = json!(items),
                );
                let mut done = false;
                for _ in 0..50 {
                    let r = page
                        .call(
                            "Runtime.evaluate",
                            json!({ "expression": script, "returnByValue": true }),
                        )
                        .await?;
                    if r["result"]["value"] == true {
                        done = true;
                        break;
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
                if !done {
                    return Err(ApiError::internal(format!(
                        "could not open {origin} to restore its local storage"
                    )));
                }
            }
            Ok::<(), ApiError>(())
        }
        .await;
        answering.abort();
        seeded
    }
    .await;
    let _ = conn
        .call(None, "Target.closeTarget", json!({ "targetId": target }))
        .await;
    result
}

#[cfg(test)]
mod tests {
    use super::entry::{Header, Request};
    use super::*;

    #[test]
    fn a_request_is_shown_without_its_secrets() {
        let mut r = Request {
            url: "https://shop.example/api?q=shoes&access_token=abc123".into(),
            request_headers: vec![Header {
                name: "Authorization".into(),
                value: "Bearer sekret".into(),
            }],
            response_headers: vec![Header {
                name: "Set-Cookie".into(),
                value: "sid=xyz; Path=/".into(),
            }],
            post_data: Some("user=ann&password=hunter2&remember=1".into()),
            ..Request::default()
        };
        redact_request(&mut r);
        let shown = serde_json::to_string(&r).unwrap_or_default();
        for secret in ["abc123", "sekret", "xyz", "hunter2"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        assert!(r.url.contains("q=shoes"), "{}", r.url);
        assert_eq!(
            r.post_data.as_deref(),
            Some("user=ann&password=‹redacted›&remember=1")
        );
        assert_eq!(r.request_headers[0].value, "Bearer ‹redacted›");
        // A JSON body is free text: a Bearer token or JWT in it is masked.
        let mut j = Request {
            post_data: Some(r#"{"auth": "Bearer Zx81.abcDEF99"}"#.into()),
            ..Request::default()
        };
        redact_request(&mut j);
        assert!(!j.post_data.unwrap_or_default().contains("Zx81"));
    }
}
