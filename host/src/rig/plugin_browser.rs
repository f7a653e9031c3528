//! The `browser` import's daemon side: a plugin's pages are tabs of its own
//! session, `plugin-<id>` (visible in `webrig sessions`, closed with
//! `webrig --session plugin-<id> close`). The same browser layer serves
//! plugins and every other transport.
//!
//! A plugin session's browser is the plugin's alone, so its grant is
//! enforced in the browser itself: every request any of its pages makes
//! (documents, frames, subresources, redirects, workers) is paused by the
//! Fetch domain on the browser target and goes out only when the plugin's
//! grant allows its URL. Reads then show only frames whose origin the grant
//! allows (an opaque or inherited-from-elsewhere one counts as not granted).
//! Pages live as long as the call that opened them.
//!
//! Plugin calls run on blocking worker threads (`spawn_blocking`, never a
//! runtime worker, where blocking would panic); each bridge call blocks on
//! the daemon's runtime until it is done or the plugin call's deadline.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use crate::browser::Tab;
use crate::browser::capture::{self, Area, ImageFormat};
use crate::browser::cdp::Connection;
use crate::browser::{nav, read, snapshot};
use crate::error::{ApiError, ErrorCode};
use crate::plugins::engine::wit::Error as WitError;
use crate::plugins::grants::{Effective, Reserved};
use crate::plugins::host::BrowserBridge;

use super::State;

/// How long closing a finished call's pages may hold up its answer (the
/// closing itself carries on past it).
const CLOSE_WAIT: Duration = Duration::from_secs(5);

/// How long a page request may wait for its host's DNS answer.
const DNS_WAIT: Duration = Duration::from_secs(5);

/// How long one page a plugin opens may take to load (bounded further by
/// the call's deadline), like a provider's request: a page that hangs fails
/// as `timeout` and the plugin goes on to its next page, instead of the
/// page eating the whole run.
const PAGE_LOAD: Duration = Duration::from_secs(10);

#[derive(Debug)]
pub struct PluginBrowser {
    state: Weak<State>,
    runtime: tokio::runtime::Handle,
    /// Calls that may use the browser, running now, per plugin.
    calls: Arc<Mutex<HashMap<String, usize>>>,
    /// Request interception, per plugin (its session's browser).
    guards: Arc<tokio::sync::Mutex<HashMap<String, Guard>>>,
}

/// The interception running on one plugin browser's connection.
struct Guard {
    conn: Connection,
    policy: Arc<Policy>,
    refusals: Arc<crate::browser::guard::Refusals>,
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard").finish_non_exhaustive()
    }
}

/// What the interception holds requests to: the plugin's grant (the one
/// of its latest call), the daemon's reserved ports, and the domain policy
/// of `[policy]` in config (the stricter of grant and policy wins).
struct Policy {
    grants: Mutex<Arc<Effective>>,
    state: Weak<State>,
}

impl Policy {
    fn grants(&self) -> Arc<Effective> {
        self.grants
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Whether the browser may fetch `url`: granted, not a reserved port,
    /// allowed by the configured domain policy, and (for a host name) not
    /// resolving where the grant does not open.
    async fn allows(&self, url: &str) -> Result<(), String> {
        let parsed = url::Url::parse(url).map_err(|_| format!("{url:?} is not a URL"))?;
        let grants = self.grants();
        let state = self.state.upgrade();
        let reserved = state.as_ref().map(|s| reserved(s)).unwrap_or_default();
        if let Some(policy) = state.as_ref().and_then(|s| s.configured_policy(None)) {
            policy.check(url)?;
        }
        let url = parsed;
        grants.check_url(&url, &[])?;
        reserved.check(&url, &[])?;
        let host = url
            .host_str()
            .unwrap_or_default()
            .trim_start_matches('[')
            .trim_end_matches(']');
        if host.parse::<IpAddr>().is_ok() {
            return Ok(());
        }
        let port = url.port_or_known_default().unwrap_or(80);
        let ips: Vec<IpAddr> =
            match tokio::time::timeout(DNS_WAIT, tokio::net::lookup_host((host, port))).await {
                Ok(Ok(addrs)) => addrs.map(|a| a.ip()).collect(),
                Ok(Err(e)) => return Err(format!("cannot resolve {host}: {e}")),
                Err(_) => return Err(format!("resolving {host} took too long")),
            };
        grants.check_url(&url, &ips)?;
        reserved.check(&url, &ips)
    }
}

impl crate::browser::guard::Judge for Policy {
    fn judge<'a>(
        &'a self,
        url: &'a str,
    ) -> futures_util::future::BoxFuture<'a, Result<(), String>> {
        Box::pin(self.allows(url))
    }
}

/// The ports no plugin may reach: the daemon's, and those of every
/// browser endpoint a session is bound to (connected browsers listen on one).
fn reserved(state: &State) -> Reserved {
    let mut r = Reserved::new([state.port()]);
    for (_, binding) in state.bindings.all() {
        r.add_endpoint(&binding.endpoint);
    }
    r
}

impl PluginBrowser {
    pub fn new(state: &Arc<State>, runtime: tokio::runtime::Handle) -> Arc<PluginBrowser> {
        Arc::new(PluginBrowser {
            state: Arc::downgrade(state),
            runtime,
            calls: Arc::default(),
            guards: Arc::default(),
        })
    }

    fn session_name(plugin: &str) -> String {
        // Plugin ids are at most 56 characters: the name is unique per plugin.
        format!("{}{plugin}", super::PLUGIN_SESSION)
    }

    /// Runs `f` on the daemon's runtime, bounded by `deadline`, and by the
    /// calling run's cancellation (see `plugins::host::cancel`).
    fn block<T>(
        &self,
        deadline: Instant,
        f: impl std::future::Future<Output = Result<T, ApiError>>,
    ) -> Result<T, WitError> {
        use crate::plugins::host::cancel;
        let left = deadline.saturating_duration_since(Instant::now());
        let flag = cancel::current();
        if cancel::is_set(&flag) {
            return Err(WitError::Timeout("the run was cancelled".into()));
        }
        self.runtime
            .block_on(async {
                tokio::select! {
                    done = tokio::time::timeout(left, f) => done.map_err(|_| {
                        WitError::Timeout("the browser call ran past the plugin's deadline".into())
                    }),
                    _ = async {
                        while !cancel::is_set(&flag) {
                            tokio::time::sleep(Duration::from_millis(20)).await;
                        }
                    }, if flag.is_some() => {
                        Err(WitError::Timeout("the run was cancelled".into()))
                    }
                }
            })?
            .map_err(to_wit)
    }

    fn state(&self) -> Result<Arc<State>, ApiError> {
        upgrade(&self.state)
    }

    /// The plugin's tab `page`.
    async fn tab(&self, plugin: &str, page: &str) -> Result<Tab, ApiError> {
        let state = self.state()?;
        let slot = state.session(&Self::session_name(plugin), false)?;
        let mut session = slot.state().lock().await;
        session.tab(Some(page)).await
    }

    /// Closes `pages` of `plugin`, and with `sweep` every page of its
    /// session once no call of it runs. Runs on the daemon's runtime by
    /// itself; the caller waits at most [`CLOSE_WAIT`] for it.
    fn close_pages(&self, plugin: &str, pages: Vec<String>, sweep: bool) {
        let Ok(state) = self.state() else {
            return;
        };
        let name = Self::session_name(plugin);
        let plugin = plugin.to_string();
        let calls = self.calls.clone();
        let task = self.runtime.spawn(async move {
            let Ok(slot) = state.session(&name, false) else {
                return;
            };
            let mut session = slot.state().lock().await;
            // Decided under the session's lock: a call that starts now
            // opens its first page only after this.
            let sweep = sweep && running(&calls, &plugin) == 0;
            // Bounded: a browser that stops answering must not keep the
            // session's lock.
            let closing = close_tabs(&mut session, &pages, sweep);
            if tokio::time::timeout(CLOSE_WAIT, closing).await.is_err() {
                tracing::warn!(session = %name, "closing a plugin's pages took too long");
            }
        });
        self.runtime.block_on(async {
            let _ = tokio::time::timeout(CLOSE_WAIT, task).await;
        });
    }
}

/// Closes `pages` (with `all`, every tab) of a session.
async fn close_tabs(session: &mut crate::browser::SessionState, pages: &[String], all: bool) {
    if !session.has_browser() {
        return;
    }
    // Listing first takes in the pages the browser opened meanwhile
    // (popups), while they are all still alive to attach to.
    let listed = match session.list_tabs().await {
        Ok(tabs) => tabs,
        Err(e) => {
            tracing::debug!(error = %e.message(), "listing a plugin's pages");
            return;
        }
    };
    for tab in listed {
        if all || pages.contains(&tab.id) {
            let _ = session.close_tab(&tab.id).await;
        }
    }
}

fn running(calls: &Mutex<HashMap<String, usize>>, plugin: &str) -> usize {
    calls
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(plugin)
        .copied()
        .unwrap_or(0)
}

fn upgrade(state: &Weak<State>) -> Result<Arc<State>, ApiError> {
    state
        .upgrade()
        .ok_or_else(|| ApiError::new(ErrorCode::BrowserGone, "the daemon is stopping"))
}

fn to_wit(e: ApiError) -> WitError {
    let m = e.message().to_string();
    match e.code() {
        ErrorCode::NotFound => WitError::NotFound(m),
        ErrorCode::InvalidArgument => WitError::InvalidInput(m),
        ErrorCode::Timeout | ErrorCode::OutcomeUnknown => WitError::Timeout(m),
        ErrorCode::NavigationFailed => WitError::Upstream(m),
        ErrorCode::Forbidden | ErrorCode::Unauthorized => WitError::Denied(m),
        ErrorCode::LimitExceeded | ErrorCode::Busy => WitError::RateLimited(m),
        ErrorCode::Unsupported => WitError::Unsupported(m),
        _ => WitError::Internal(m),
    }
}

/// Holds every request of the plugin's browser to `grants` (started once
/// per browser connection; later calls only update the grant).
async fn guard_browser(
    guards: &tokio::sync::Mutex<HashMap<String, Guard>>,
    state: &Weak<State>,
    plugin: &str,
    tab: &Tab,
    grants: &Arc<Effective>,
) -> Result<Arc<crate::browser::guard::Refusals>, ApiError> {
    let mut guards = guards.lock().await;
    if let Some(g) = guards.get(plugin)
        && !g.conn.is_closed()
    {
        *g.policy.grants.lock().unwrap_or_else(|e| e.into_inner()) = grants.clone();
        return Ok(g.refusals.clone());
    }
    let conn = tab.cdp().connection().clone();
    let policy = Arc::new(Policy {
        grants: Mutex::new(grants.clone()),
        state: state.clone(),
    });
    let refusals = crate::browser::guard::start(&conn, policy.clone(), None).await?;
    guards.insert(
        plugin.to_string(),
        Guard {
            conn,
            policy,
            refusals: refusals.clone(),
        },
    );
    Ok(refusals)
}

/// Opens a tab of the plugin's session with its requests held to `grants`,
/// and loads `url` in it. The tab is closed on any failure.
async fn open_page(
    state: Arc<State>,
    guards: Arc<tokio::sync::Mutex<HashMap<String, Guard>>>,
    plugin: String,
    grants: Arc<Effective>,
    url: url::Url,
    deadline: Instant,
) -> Result<String, ApiError> {
    let slot = state.plugin_session(&PluginBrowser::session_name(&plugin))?;
    let tab = slot.state().lock().await.new_tab().await?;
    let bound = deadline
        .saturating_duration_since(Instant::now())
        .min(PAGE_LOAD);
    let until = tokio::time::Instant::now() + bound;
    let loaded = async {
        let policy =
            guard_browser(&guards, &Arc::downgrade(&state), &plugin, &tab, &grants).await?;
        match nav::goto(&tab, &url, Default::default(), until).await {
            Err(e) if e.message().contains("ERR_BLOCKED_BY_CLIENT") => {
                let why = policy
                    .take_last_document()
                    .unwrap_or_else(|| "it went where the plugin was not granted".into());
                Err(ApiError::new(
                    ErrorCode::Forbidden,
                    format!("the page navigated away: {why}"),
                ))
            }
            other => other.map(|_| ()),
        }
    };
    // Bounded as a whole: the navigation's own answer waits for the
    // response, so a server that never answers would outlast `until`.
    let loaded = tokio::time::timeout_at(until, loaded)
        .await
        .unwrap_or_else(|_| {
            Err(ApiError::timeout(format!(
                "{url} did not load within {:.1} s",
                bound.as_secs_f64()
            )))
        });
    if let Err(e) = loaded {
        let mut session = slot.state().lock().await;
        let pages = [tab.id().to_string()];
        let _ = tokio::time::timeout(CLOSE_WAIT, close_tabs(&mut session, &pages, false)).await;
        return Err(e);
    }
    Ok(tab.id().to_string())
}

impl BrowserBridge for PluginBrowser {
    fn open(
        &self,
        plugin: &str,
        grants: &Arc<Effective>,
        url: &url::Url,
        deadline: Instant,
    ) -> Result<String, WitError> {
        let state = self.state().map_err(to_wit)?;
        let (tx, rx) = tokio::sync::oneshot::channel();
        let opening = open_page(
            state.clone(),
            self.guards.clone(),
            plugin.to_string(),
            grants.clone(),
            url.clone(),
            deadline,
        );
        let name = Self::session_name(plugin);
        // On a task of its own: when the caller stops waiting (deadline),
        // the page it would have got is closed instead of left behind.
        self.runtime.spawn(async move {
            let opened = opening.await;
            if let Err(Ok(page)) = tx.send(opened)
                && let Ok(slot) = state.session(&name, false)
            {
                let mut session = slot.state().lock().await;
                let _ = tokio::time::timeout(CLOSE_WAIT, close_tabs(&mut session, &[page], false))
                    .await;
            }
        });
        self.block(deadline, async {
            rx.await
                .map_err(|_| ApiError::internal("opening the page stopped"))?
        })
    }

    fn url(&self, plugin: &str, page: &str, deadline: Instant) -> Result<String, WitError> {
        self.block(deadline, async {
            let tab = self.tab(plugin, page).await?;
            Ok(nav::current(&tab).await?.url)
        })
    }

    fn snapshot(
        &self,
        plugin: &str,
        grants: &Arc<Effective>,
        page: &str,
        deadline: Instant,
    ) -> Result<String, WitError> {
        let state = self.state().map_err(to_wit)?;
        let grants = grants.clone();
        let gate = snapshot::FrameGate::new(move |origin: &str| {
            // Opaque origins (`null`: data:, sandboxed, error pages) and
            // anything unparsable are not attributable to a grant.
            url::Url::parse(origin).is_ok_and(|u| {
                grants.check_url(&u, &[]).is_ok() && reserved(&state).check(&u, &[]).is_ok()
            })
        });
        self.block(deadline, async {
            let tab = self.tab(plugin, page).await?;
            let opts = snapshot::Options {
                frames: Some(gate),
                ..Default::default()
            };
            Ok(snapshot::snapshot(&tab, &opts).await?.text)
        })
    }

    fn text(&self, plugin: &str, page: &str, deadline: Instant) -> Result<String, WitError> {
        // The main frame's text: a frame's content is not part of it.
        self.block(deadline, async {
            let tab = self.tab(plugin, page).await?;
            read::text(&tab, None, tokio::time::Instant::from_std(deadline)).await
        })
    }

    fn extract(
        &self,
        plugin: &str,
        page: &str,
        selector: &str,
        deadline: Instant,
    ) -> Result<Vec<String>, WitError> {
        if selector.trim().is_empty() || selector.len() > 1024 {
            return Err(WitError::InvalidInput(
                "a CSS selector of 1-1024 bytes".into(),
            ));
        }
        let sel = serde_json::to_string(selector).unwrap_or_default();
        // The main document only: querySelectorAll does not enter frames.
        self.block(deadline, async {
            let tab = self.tab(plugin, page).await?;
            let js = format!(
                "(() => {{ try {{ return [...document.querySelectorAll({sel})].slice(0, 1000)\
                 .map(e => (e.innerText ?? e.textContent ?? '').trim()); }} \
                 catch (e) {{ return {{ bad: String(e.message || e) }}; }} }})()"
            );
            let v = tab.eval(&js).await?;
            if let Some(bad) = v.get("bad").and_then(|b| b.as_str()) {
                return Err(ApiError::invalid(format!("bad selector: {bad}")));
            }
            Ok(v.as_array()
                .map(|a| {
                    a.iter()
                        .map(|s| s.as_str().unwrap_or_default().to_string())
                        .collect()
                })
                .unwrap_or_default())
        })
    }

    fn screenshot(&self, plugin: &str, page: &str, deadline: Instant) -> Result<Vec<u8>, WitError> {
        // Frames of hosts not granted never loaded (their requests were
        // blocked): the pixels hold nothing of them.
        self.block(deadline, async {
            let tab = self.tab(plugin, page).await?;
            capture::screenshot(&tab, Area::Viewport, ImageFormat::Png, None).await
        })
    }

    fn design_tokens(
        &self,
        plugin: &str,
        page: &str,
        deadline: Instant,
    ) -> Result<String, WitError> {
        self.block(deadline, async {
            let tab = self.tab(plugin, page).await?;
            let v = tab.eval(crate::browser::read::DESIGN_TOKENS_JS).await?;
            if !v.is_object() {
                return Err(ApiError::internal("the page gave no design tokens"));
            }
            Ok(v.to_string())
        })
    }

    fn close(&self, plugin: &str, page: &str, deadline: Instant) {
        let _ = self.block(deadline, async {
            let state = self.state()?;
            let slot = state.session(&Self::session_name(plugin), false)?;
            let mut session = slot.state().lock().await;
            close_tabs(&mut session, &[page.to_string()], false).await;
            Ok(())
        });
    }

    fn call_started(&self, plugin: &str) {
        *self
            .calls
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(plugin.to_string())
            .or_insert(0) += 1;
    }

    fn call_ended(&self, plugin: &str, pages: Vec<String>) {
        let idle = {
            let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
            let n = calls.entry(plugin.to_string()).or_insert(1);
            *n = n.saturating_sub(1);
            let idle = *n == 0;
            if idle {
                calls.remove(plugin);
            }
            idle
        };
        if !pages.is_empty() || idle {
            self.close_pages(plugin, pages, idle);
        }
    }

    fn reserved(&self) -> Reserved {
        self.state
            .upgrade()
            .map(|s| reserved(&s))
            .unwrap_or_default()
    }

    fn policy(&self, url: &url::Url) -> Result<(), String> {
        match self.state.upgrade().and_then(|s| s.configured_policy(None)) {
            Some(policy) => policy.check(url.as_str()),
            None => Ok(()),
        }
    }
}
