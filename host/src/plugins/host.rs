//! The host imports plugins call: WIT 0.1.0's `http`, `cache`, `config`,
//! `log`, `browser` (every later version re-uses them). Each checks the
//! plugin's effective grant first and refuses with a typed `denied` error
//! value, never a trap.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::grants::{Effective, Reserved};
use super::manifest::BrowserAccess;
use super::wit::types::Error as WitError;
use super::wit::v0_1_0::{browser, cache, config, http, log, types};

const MAX_REDIRECTS: usize = 5;
const HTTP_TIMEOUT: Duration = Duration::from_secs(15);
const MAX_RESPONSE: u64 = 8 << 20;

/// What one plugin may use, computed at load and shared by its calls.
#[derive(Debug, Clone, Default)]
pub struct Access {
    /// The plugin's id (its browser session is `plugin-<id>`).
    pub plugin: Arc<str>,
    /// The daemon's browser, for plugins granted it (None in tests that
    /// run the engine alone: browser calls then answer `unsupported`).
    pub browser: Option<Arc<dyn BrowserBridge>>,
    pub grants: Arc<Effective>,
    /// Its `[plugins.<id>]` settings from config.toml.
    pub settings: Arc<BTreeMap<String, String>>,
    /// Its cache, kept across calls (each call gets a fresh store).
    cache: Arc<Mutex<PluginCache>>,
    /// Its log, kept across calls and reloads.
    pub logs: Arc<LogRing>,
}

impl Access {
    pub fn new(grants: Effective, settings: BTreeMap<String, String>) -> Access {
        Access {
            plugin: Arc::from(""),
            browser: None,
            grants: Arc::new(grants),
            settings: Arc::new(settings),
            cache: Arc::default(),
            logs: Arc::default(),
        }
    }

    /// The same access for plugin `id`, with the daemon's browser.
    pub fn for_plugin(mut self, id: &str, browser: Option<Arc<dyn BrowserBridge>>) -> Access {
        self.plugin = Arc::from(id);
        self.browser = browser;
        self
    }

    /// The same access writing to `logs` (the plugin's ring).
    pub fn with_logs(mut self, logs: Arc<LogRing>) -> Access {
        self.logs = logs;
        self
    }
}

/// Cancellation of the call running on this thread. A workflow run whose
/// client left is cancelled; its guest runs on one blocking thread and its
/// host calls run on that same thread, so the runner marks the thread for
/// the run's length and a call that waits (a page that is loading) stops
/// waiting at once. A thread-local rather than one more argument on every
/// bridge method: only waits read it, and only the runner sets it.
pub mod cancel {
    use std::cell::RefCell;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    thread_local! {
        static FLAG: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
    }

    /// Marks this thread's calls with `flag` until the guard is dropped.
    pub fn enter(flag: Arc<AtomicBool>) -> Entered {
        let before = FLAG.with(|f| f.borrow_mut().replace(flag));
        Entered(before)
    }

    /// The flag of this thread's call, if it has one.
    pub fn current() -> Option<Arc<AtomicBool>> {
        FLAG.with(|f| f.borrow().clone())
    }

    /// Whether `flag` says cancelled.
    pub fn is_set(flag: &Option<Arc<AtomicBool>>) -> bool {
        flag.as_ref().is_some_and(|f| f.load(Ordering::Relaxed))
    }

    pub struct Entered(Option<Arc<AtomicBool>>);

    impl Drop for Entered {
        fn drop(&mut self) {
            let before = self.0.take();
            FLAG.with(|f| *f.borrow_mut() = before);
        }
    }
}

/// What the plugin host needs from the daemon: pages in the plugin's own
/// session, and the ports no plugin may reach. Calls block (they run on a
/// plugin worker thread) and end by `deadline`. Grants are checked before
/// any of these is called.
pub trait BrowserBridge: Send + Sync + std::fmt::Debug {
    /// Opens `url` in a new page. Every request the page makes afterwards
    /// (frames, subresources, its own navigations) is held to `grants` too.
    fn open(
        &self,
        plugin: &str,
        grants: &Arc<Effective>,
        url: &url::Url,
        deadline: Instant,
    ) -> Result<String, WitError>;
    /// The page's current URL (it may have navigated since `open`).
    fn url(&self, plugin: &str, page: &str, deadline: Instant) -> Result<String, WitError>;
    /// Reads only show frames whose origin `grants` allows.
    fn snapshot(
        &self,
        plugin: &str,
        grants: &Arc<Effective>,
        page: &str,
        deadline: Instant,
    ) -> Result<String, WitError>;
    fn text(&self, plugin: &str, page: &str, deadline: Instant) -> Result<String, WitError>;
    fn extract(
        &self,
        plugin: &str,
        page: &str,
        selector: &str,
        deadline: Instant,
    ) -> Result<Vec<String>, WitError>;
    fn screenshot(&self, plugin: &str, page: &str, deadline: Instant) -> Result<Vec<u8>, WitError>;
    /// The page's design tokens from its computed styles (JSON text; see
    /// `design.tokens` in wit/v0.2.0).
    fn design_tokens(
        &self,
        plugin: &str,
        page: &str,
        deadline: Instant,
    ) -> Result<String, WitError>;
    fn close(&self, plugin: &str, page: &str, deadline: Instant);
    /// A call of `plugin` that may use the browser starts.
    fn call_started(&self, plugin: &str);
    /// That call ended (answered, failed, trapped or ran out of time): the
    /// pages it left open are closed, and once no call of the plugin runs,
    /// every page of its session (popups included).
    fn call_ended(&self, plugin: &str, pages: Vec<String>);
    /// The ports on this machine no plugin may reach, as they are now.
    fn reserved(&self) -> Reserved;
    /// The domain policy the daemon's config holds every session to
    /// (`[policy]`): a plugin's grant never reaches past it.
    fn policy(&self, _url: &url::Url) -> Result<(), String> {
        Ok(())
    }
}

/// A plugin's key/value cache: bounded in entries and bytes, expired
/// entries dropped first when full.
#[derive(Debug, Default)]
struct PluginCache {
    entries: HashMap<String, (Vec<u8>, Instant)>,
    bytes: usize,
}

const CACHE_ENTRIES: usize = 1024;
const CACHE_BYTES: usize = 16 << 20;
const CACHE_VALUE: usize = 1 << 20;

impl PluginCache {
    fn get(&self, key: &str) -> Option<Vec<u8>> {
        match self.entries.get(key) {
            Some((v, until)) if Instant::now() < *until => Some(v.clone()),
            _ => None,
        }
    }

    fn set(&mut self, key: String, value: Vec<u8>, ttl: Duration) {
        if value.len() > CACHE_VALUE || key.len() > 1024 {
            return;
        }
        if let Some((old, _)) = self.entries.remove(&key) {
            self.bytes -= old.len();
        }
        if self.entries.len() >= CACHE_ENTRIES || self.bytes + value.len() > CACHE_BYTES {
            let now = Instant::now();
            self.entries.retain(|_, (_, until)| *until > now);
            self.bytes = self.entries.values().map(|(v, _)| v.len()).sum();
        }
        if self.entries.len() >= CACHE_ENTRIES || self.bytes + value.len() > CACHE_BYTES {
            return;
        }
        self.bytes += value.len();
        self.entries.insert(key, (value, Instant::now() + ttl));
    }
}

/// A run a call is part of (a workflow run): the imports of the kind that
/// runs it keep their state in it. The plugin host only asks whether it
/// was cancelled; the kind's imports get their own type back with
/// [`HostState::run_as`], so this layer names no kind.
pub trait Run: std::any::Any + Send + Sync {
    fn cancelled(&self) -> bool;
}

pub struct HostState {
    pub(crate) access: Access,
    /// When the call must end; outbound requests get at most what is left.
    deadline: Instant,
    /// Pages this call opened and has not closed: the only ones it may
    /// read, closed when the call ends however it ends.
    pages: Vec<String>,
    /// Whether the bridge was told this call started (browser granted).
    browsing: bool,
    /// Set when a WASI wait was cut at the deadline: the call ran out of
    /// time even if the epoch ticker (a thread) had not caught up yet.
    pub cut_short: Arc<std::sync::atomic::AtomicBool>,
    /// Log lines this call wrote (capped per call, so one call cannot
    /// flush the plugin's ring).
    logged: u32,
    /// Time this call spent blocked in host imports (pages, HTTP, the
    /// provider runtime): not charged to a workflow's CPU budget.
    waited: Duration,
    /// The run this call is part of (a workflow's; None for provider
    /// calls).
    run: Option<Arc<dyn Run>>,
}

impl HostState {
    pub fn new(access: Access, deadline: Instant) -> Self {
        let browsing = access.grants.browser() != BrowserAccess::None;
        if browsing && let Some(bridge) = &access.browser {
            bridge.call_started(&access.plugin);
        }
        HostState {
            access,
            deadline,
            pages: Vec::new(),
            browsing,
            cut_short: Arc::default(),
            logged: 0,
            waited: Duration::ZERO,
            run: None,
        }
    }

    /// The same state for a call of `run`.
    pub fn for_run(mut self, run: Arc<dyn Run>) -> Self {
        self.run = Some(run);
        self
    }

    /// The run this call is part of, as the type that made it (the imports
    /// of the kind that runs it get their own state back); None outside a
    /// run, or for a run of another type.
    pub fn run_as<T: Run>(&self) -> Option<Arc<T>> {
        let run: Arc<dyn std::any::Any + Send + Sync> = self.run.clone()?;
        run.downcast::<T>().ok()
    }

    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Time spent blocked in host imports so far.
    pub fn waited(&self) -> Duration {
        self.waited
    }

    /// The run this call belongs to was cancelled.
    pub fn cancelled(&self) -> bool {
        self.run.as_ref().is_some_and(|r| r.cancelled())
    }

    /// Runs a blocking host import, counting its time as waited.
    pub fn timed<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let started = Instant::now();
        let out = f(self);
        self.waited += started.elapsed();
        out
    }
}

/// Pages do not outlive the call that opened them: a guest that errs,
/// traps or runs out of time before `close` leaves nothing behind (the
/// store, and this state with it, is dropped on every path).
impl Drop for HostState {
    fn drop(&mut self) {
        if self.browsing
            && let Some(bridge) = &self.access.browser
        {
            bridge.call_ended(&self.access.plugin, std::mem::take(&mut self.pages));
        }
    }
}

impl HostState {
    /// Time left before the call's deadline.
    pub fn time_left(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }
}

impl config::Host for HostState {
    fn get(&mut self, key: String) -> Option<String> {
        self.access.settings.get(&key).cloned()
    }
}

impl types::Host for HostState {}

/// Lines one call may add to its plugin's log.
const LOG_PER_CALL: u32 = 200;
/// Lines a plugin's log keeps (the oldest go first).
const LOG_LINES: usize = 1000;

impl log::Host for HostState {
    fn log(&mut self, level: log::Level, message: String) {
        if self.logged >= LOG_PER_CALL {
            return;
        }
        self.logged += 1;
        let message: String = message
            .chars()
            .take(2000)
            .map(|c| {
                if c.is_control() && c != '\n' && c != '\t' {
                    ' '
                } else {
                    c
                }
            })
            .collect();
        let plugin = &*self.access.plugin;
        let name = match level {
            log::Level::Debug => {
                tracing::debug!(%plugin, %message, "plugin log");
                "debug"
            }
            log::Level::Info => {
                tracing::info!(%plugin, %message, "plugin log");
                "info"
            }
            log::Level::Warn => {
                tracing::warn!(%plugin, %message, "plugin log");
                "warn"
            }
            log::Level::Error => {
                tracing::error!(%plugin, %message, "plugin log");
                "error"
            }
        };
        self.access.logs.push(name, message);
    }
}

/// One line a plugin logged.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct LogLine {
    /// Increases by one per line of this plugin (since the daemon started).
    pub seq: u64,
    /// RFC 3339, UTC.
    pub at: String,
    pub level: String,
    pub message: String,
}

/// A plugin's recent log lines, kept across calls and reloads.
#[derive(Debug, Default)]
pub struct LogRing {
    lines: Mutex<(u64, std::collections::VecDeque<LogLine>)>,
}

impl LogRing {
    pub fn push(&self, level: &str, message: String) {
        let mut g = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        g.0 += 1;
        let seq = g.0;
        if g.1.len() >= LOG_LINES {
            g.1.pop_front();
        }
        g.1.push_back(LogLine {
            seq,
            at: humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string(),
            level: level.to_string(),
            message,
        });
    }

    /// Lines after `seq`, oldest first, at most the last `limit`.
    pub fn after(&self, seq: u64, limit: usize) -> Vec<LogLine> {
        let g = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        let newer: Vec<&LogLine> = g.1.iter().filter(|l| l.seq > seq).collect();
        newer[newer.len().saturating_sub(limit)..]
            .iter()
            .map(|l| (*l).clone())
            .collect()
    }
}

impl cache::Host for HostState {
    fn get(&mut self, key: String) -> Option<Vec<u8>> {
        if !self.access.grants.cache() {
            return None;
        }
        self.access.cache.lock().ok()?.get(&key)
    }

    fn set(&mut self, key: String, value: Vec<u8>, ttl_seconds: u32) {
        if !self.access.grants.cache() {
            return;
        }
        let ttl = Duration::from_secs(u64::from(ttl_seconds.min(86_400)));
        if let Ok(mut c) = self.access.cache.lock() {
            c.set(key, value, ttl);
        }
    }
}

/// Pages one call may hold open at once (the session's tab limit bounds
/// all calls of a plugin together).
const PAGES_PER_CALL: usize = 8;

impl browser::Host for HostState {
    fn open(&mut self, url: String) -> Result<String, WitError> {
        self.timed(|s| s.open_page(url))
    }

    fn snapshot(&mut self, page: String) -> Result<String, WitError> {
        self.timed(|s| {
            let bridge = s.page(&page)?;
            bridge.snapshot(&s.access.plugin, &s.access.grants, &page, s.deadline)
        })
    }

    fn text(&mut self, page: String) -> Result<String, WitError> {
        self.timed(|s| {
            let bridge = s.page(&page)?;
            bridge.text(&s.access.plugin, &page, s.deadline)
        })
    }

    fn extract(&mut self, page: String, selector: String) -> Result<Vec<String>, WitError> {
        self.timed(|s| {
            let bridge = s.page(&page)?;
            bridge.extract(&s.access.plugin, &page, &selector, s.deadline)
        })
    }

    fn screenshot(&mut self, page: String) -> Result<Vec<u8>, WitError> {
        self.timed(|s| {
            let bridge = s.page(&page)?;
            bridge.screenshot(&s.access.plugin, &page, s.deadline)
        })
    }

    fn close(&mut self, page: String) {
        self.timed(|s| s.close_page(&page))
    }
}

impl HostState {
    fn open_page(&mut self, url: String) -> Result<String, WitError> {
        let bridge = self.bridge()?;
        let url =
            url::Url::parse(&url).map_err(|e| WitError::InvalidInput(format!("bad URL: {e}")))?;
        // The page's own address must be one the plugin may reach.
        self.check(&url)?;
        if self.pages.len() >= PAGES_PER_CALL {
            return Err(WitError::RateLimited(format!(
                "a call may hold {PAGES_PER_CALL} pages open at once; close one first"
            )));
        }
        let page = bridge.open(
            &self.access.plugin,
            &self.access.grants,
            &url,
            self.deadline,
        )?;
        self.pages.push(page.clone());
        Ok(page)
    }

    fn close_page(&mut self, page: &str) {
        // Only a page this call opened: another call's pages are its own.
        let Some(at) = self.pages.iter().position(|p| p == page) else {
            return;
        };
        self.pages.remove(at);
        if let Ok(bridge) = self.bridge() {
            bridge.close(&self.access.plugin, page, self.deadline);
        }
    }

    /// The browser, for reading `page`: a page this call opened, and where
    /// it is now must still be a host the plugin may reach (a page can
    /// navigate itself elsewhere).
    pub fn page(&self, page: &str) -> Result<Arc<dyn BrowserBridge>, WitError> {
        let bridge = self.bridge()?;
        if !self.pages.iter().any(|p| p == page) {
            return Err(WitError::NotFound(format!(
                "no page {page:?} is open in this call (pages live as long as the call that opened them)"
            )));
        }
        let now = bridge.url(&self.access.plugin, page, self.deadline)?;
        let url = url::Url::parse(&now)
            .map_err(|_| WitError::Denied(format!("the page is at {now:?} now")))?;
        self.check(&url).map_err(|e| match e {
            WitError::Denied(m) => WitError::Denied(format!("the page navigated away: {m}")),
            other => other,
        })?;
        Ok(bridge)
    }

    /// The browser, when granted and available.
    fn bridge(&self) -> Result<Arc<dyn BrowserBridge>, WitError> {
        if self.access.grants.browser() == BrowserAccess::None {
            return Err(WitError::Denied(
                "this plugin was not granted the browser".into(),
            ));
        }
        self.access
            .browser
            .clone()
            .ok_or_else(|| WitError::Unsupported("no browser in this host".into()))
    }

    /// The ports no plugin may reach (none without a daemon).
    fn reserved(&self) -> Reserved {
        self.access
            .browser
            .as_ref()
            .map(|b| b.reserved())
            .unwrap_or_default()
    }
}

impl http::Host for HostState {
    fn fetch(&mut self, req: http::Request) -> Result<http::Response, WitError> {
        self.timed(|s| s.http_fetch(req))
    }
}

impl HostState {
    /// Plugin HTTP: grant checked on every hop, pinned addresses, caps.
    pub fn http_fetch(&mut self, req: http::Request) -> Result<http::Response, WitError> {
        let mut url = url::Url::parse(&req.url)
            .map_err(|e| WitError::InvalidInput(format!("bad URL: {e}")))?;
        let mut method = req.method.to_ascii_uppercase();
        let mut req_headers = req.headers.clone();
        let mut req_body = req.body.clone();
        if !matches!(
            method.as_str(),
            "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD"
        ) {
            return Err(WitError::InvalidInput(format!(
                "method {method} is not allowed"
            )));
        }
        // Every hop is checked, so a granted host cannot redirect the
        // plugin somewhere it was not granted; and the connection goes to
        // the very addresses that were checked (no second DNS answer).
        for _ in 0..=MAX_REDIRECTS {
            let addrs = self.check(&url)?;
            let _slot = DomainSlot::acquire(url.host_str().unwrap_or_default(), self.deadline)?;
            let config = ureq::Agent::config_builder()
                .http_status_as_error(false)
                .max_redirects(0)
                .user_agent(concat!("webrig/", env!("CARGO_PKG_VERSION")))
                .proxy(None)
                .timeout_global(Some(self.remaining()?))
                .build();
            let agent = ureq::Agent::with_parts(
                config,
                ureq::unversioned::transport::DefaultConnector::default(),
                Pinned(addrs),
            );
            let mut builder = ureq::http::Request::builder()
                .method(method.as_str())
                .uri(url.as_str());
            for (k, v) in &req_headers {
                if !k.eq_ignore_ascii_case("host") {
                    builder = builder.header(k, v);
                }
            }
            let request = builder
                .body(req_body.clone().unwrap_or_default())
                .map_err(|e| WitError::InvalidInput(format!("bad request: {e}")))?;
            let mut resp = agent.run(request).map_err(|e| match e {
                ureq::Error::Timeout(_) => WitError::Timeout(format!("{url}: {e}")),
                other => WitError::Upstream(format!("{url}: {other}")),
            })?;
            let status = resp.status().as_u16();
            if (300..400).contains(&status)
                && let Some(loc) = resp.headers().get("location").and_then(|l| l.to_str().ok())
            {
                let next = url
                    .join(loc)
                    .map_err(|e| WitError::Upstream(format!("bad redirect: {e}")))?;
                if url.scheme() == "https" && next.scheme() == "http" {
                    return Err(WitError::Denied(format!(
                        "{url} redirected to plain http ({next})"
                    )));
                }
                if next.host_str() != url.host_str()
                    || next.port_or_known_default() != url.port_or_known_default()
                {
                    // Credentials are for the host they were written for.
                    req_headers.retain(|(k, _)| {
                        !["authorization", "cookie", "proxy-authorization"]
                            .iter()
                            .any(|c| k.eq_ignore_ascii_case(c))
                    });
                }
                if status == 303 || (matches!(status, 301 | 302) && method == "POST") {
                    method = "GET".into();
                    req_body = None;
                }
                url = next;
                continue;
            }
            let headers = resp
                .headers()
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().to_string()))
                .collect();
            let body = resp
                .body_mut()
                .with_config()
                .limit(MAX_RESPONSE)
                .read_to_vec()
                .map_err(|e| WitError::Upstream(format!("reading {url}: {e}")))?;
            return Ok(http::Response {
                status,
                headers,
                body,
                final_url: url.to_string(),
            });
        }
        Err(WitError::Upstream(format!(
            "more than {MAX_REDIRECTS} redirects"
        )))
    }
}

/// Requests in flight to one host, across every plugin: at most
/// [`PER_DOMAIN`] at once, so a fan-out cannot hammer one site.
static DOMAINS: std::sync::LazyLock<(Mutex<HashMap<String, usize>>, std::sync::Condvar)> =
    std::sync::LazyLock::new(Default::default);

const PER_DOMAIN: usize = 2;

struct DomainSlot(String);

impl DomainSlot {
    /// Waits (until `deadline`) for one of the host's slots.
    fn acquire(host: &str, deadline: Instant) -> Result<DomainSlot, WitError> {
        let host = host.to_ascii_lowercase();
        let (lock, cv) = &*DOMAINS;
        let mut map = lock.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let n = map.entry(host.clone()).or_insert(0);
            if *n < PER_DOMAIN {
                *n += 1;
                return Ok(DomainSlot(host));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(WitError::Timeout(format!(
                    "waited for a free connection slot to {host} until the deadline"
                )));
            }
            map = cv
                .wait_timeout(map, left)
                .map(|(m, _)| m)
                .unwrap_or_else(|e| e.into_inner().0);
        }
    }
}

impl Drop for DomainSlot {
    fn drop(&mut self) {
        let (lock, cv) = &*DOMAINS;
        let mut map = lock.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = map.get_mut(&self.0) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                map.remove(&self.0);
            }
        }
        cv.notify_all();
    }
}

/// Resolves `host` on a helper thread, giving up after `within` (the
/// system resolver has no timeout of its own).
fn resolve(host: &str, port: u16, within: Duration) -> Result<Vec<std::net::SocketAddr>, WitError> {
    use std::net::ToSocketAddrs;
    let (tx, rx) = std::sync::mpsc::channel();
    let name = host.to_string();
    std::thread::Builder::new()
        .name("webrig-dns".into())
        .spawn(move || {
            let found = (name.as_str(), port)
                .to_socket_addrs()
                .map(Iterator::collect::<Vec<_>>);
            let _ = tx.send(found);
        })
        .map_err(|e| WitError::Internal(format!("resolver thread: {e}")))?;
    match rx.recv_timeout(within) {
        Ok(Ok(addrs)) => Ok(addrs),
        Ok(Err(e)) => Err(WitError::Upstream(format!("cannot resolve {host}: {e}"))),
        Err(_) => Err(WitError::Timeout(format!("resolving {host} took too long"))),
    }
}

/// A resolver that answers with addresses already resolved and checked.
#[derive(Debug)]
struct Pinned(Vec<std::net::SocketAddr>);

impl ureq::unversioned::resolver::Resolver for Pinned {
    fn resolve(
        &self,
        _uri: &ureq::http::Uri,
        _config: &ureq::config::Config,
        _timeout: ureq::unversioned::transport::NextTimeout,
    ) -> Result<ureq::unversioned::resolver::ResolvedSocketAddrs, ureq::Error> {
        let mut out = self.empty();
        for a in self.0.iter().take(16) {
            out.push(*a);
        }
        if out.is_empty() {
            return Err(ureq::Error::HostNotFound);
        }
        Ok(out)
    }
}

impl HostState {
    /// Time left for an outbound request: the call's deadline, at most
    /// HTTP_TIMEOUT.
    fn remaining(&self) -> Result<Duration, WitError> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(WitError::Timeout("the call's deadline has passed".into()));
        }
        Ok(left.min(HTTP_TIMEOUT))
    }

    /// The grant check for one hop; returns the addresses to connect to
    /// (SSRF guard: every address the name resolves to is checked).
    fn check(&self, url: &url::Url) -> Result<Vec<std::net::SocketAddr>, WitError> {
        // Refuse before resolving anything when the host was not granted,
        // or the configured domain policy refuses it (the stricter holds).
        self.access
            .grants
            .check_url(url, &[])
            .map_err(WitError::Denied)?;
        if let Some(b) = &self.access.browser {
            b.policy(url).map_err(WitError::Denied)?;
        }
        let host = url
            .host_str()
            .unwrap_or_default()
            .trim_start_matches('[')
            .trim_end_matches(']');
        let port = url.port_or_known_default().unwrap_or(80);
        let addrs = resolve(host, port, self.remaining()?)?;
        let ips: Vec<std::net::IpAddr> = addrs.iter().map(|a| a.ip()).collect();
        self.access
            .grants
            .check_url(url, &ips)
            .map_err(WitError::Denied)?;
        self.reserved().check(url, &ips).map_err(WitError::Denied)?;
        Ok(addrs)
    }
}
