//! The provider runtime: routes a search to the providers a source policy
//! names, runs them in parallel under concurrency caps, retries retryable
//! failures with jittered backoff, keeps a circuit breaker per provider, and
//! answers with partial success — the results of the providers that
//! answered and a typed failure for each one that did not. Which providers
//! serve a call, and the error when none can, are [`route`]'s.
//!
//! It knows plugins only through [`PluginHost`]; it must not know about
//! HTTP routes or the CLI.

pub mod breaker;
pub mod route;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;

use crate::error::ApiError;
use crate::plugins::engine::{Loaded, PluginError, Runtime, wit};
use crate::plugins::host::Access;
use crate::plugins::manifest::PluginLimits;
use crate::plugins::{Plugin, PluginHost};

/// What one plugin call gives back: the sandbox's verdict, then the
/// provider's own answer.
type CallResult<T> = Result<Result<T, wit::Error>, PluginError>;
use breaker::{Breaker, BreakerState, Policy};

/// Why one provider did not answer (the runtime's closed set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FailureCode {
    InvalidInput,
    /// The provider answered that what was asked for does not exist.
    NotFound,
    Timeout,
    Network,
    RateLimited,
    Auth,
    Upstream,
    NotSupported,
    PolicyBlocked,
    CircuitOpen,
    Unavailable,
    Internal,
}

impl FailureCode {
    /// Worth another attempt after a short wait.
    fn retryable(self) -> bool {
        matches!(
            self,
            FailureCode::Timeout | FailureCode::Network | FailureCode::Upstream
        )
    }

    /// Counts against the provider's health. A bad query, a missing page or
    /// an operation it does not have says nothing about whether the provider
    /// works.
    fn counts(self) -> bool {
        !matches!(
            self,
            FailureCode::InvalidInput
                | FailureCode::NotFound
                | FailureCode::NotSupported
                | FailureCode::PolicyBlocked
        )
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Failure {
    pub provider: String,
    pub code: FailureCode,
    pub message: String,
}

/// One search result, with the provider that found it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Item {
    pub provider: String,
    pub source: String,
    pub url: String,
    pub title: String,
    pub snippet: String,
    /// RFC 3339, when the source says when it was published.
    pub published: Option<String>,
    pub extra: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Meta {
    /// The source policy asked for.
    pub source: String,
    /// The providers it selected, in order.
    pub providers: Vec<String>,
    /// Milliseconds each provider took (retries included).
    pub timings: BTreeMap<String, u64>,
    pub total_ms: u64,
}

/// The partial-success envelope of `search`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SearchOutcome {
    pub results: Vec<Item>,
    pub failures: Vec<Failure>,
    pub meta: Meta,
}

/// A fetched page, with the provider that read it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Page {
    pub provider: String,
    pub url: String,
    pub title: String,
    pub text: String,
    pub published: Option<String>,
    pub metadata: BTreeMap<String, String>,
    pub elapsed_ms: u64,
}

/// One provider's state, for `providers` and `providers status`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Status {
    pub id: String,
    pub version: String,
    pub source: Option<String>,
    pub operations: Vec<String>,
    /// False when it cannot take a call: refused at load, its describe()
    /// failed, or granted nothing it asks for (see `error`).
    pub ready: bool,
    pub error: Option<String>,
    pub breaker: BreakerState,
    pub consecutive_failures: u32,
    /// Milliseconds until calls are let through again.
    pub retry_in_ms: Option<u64>,
    pub calls: u64,
    pub failed: u64,
    pub last_error: Option<String>,
}

/// The runtime's knobs (defaults from the seed system's provider runtime).
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub search_timeout: Duration,
    pub fetch_timeout: Duration,
    /// Extra attempts for reads, on retryable failures only.
    pub read_retries: u32,
    pub concurrency: usize,
    pub per_provider: usize,
    pub breaker: Policy,
    pub backoff: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            search_timeout: Duration::from_secs(12),
            fetch_timeout: Duration::from_secs(12),
            read_retries: 1,
            concurrency: 4,
            per_provider: 2,
            breaker: Policy {
                failures: 3,
                open_for: Duration::from_secs(30),
                cooldown: Duration::from_secs(30),
            },
            backoff: Duration::from_millis(150),
        }
    }
}

pub const SOURCES: &[&str] = &["auto", "web", "community", "social", "shopping", "all"];

pub struct Providers {
    host: Arc<PluginHost>,
    settings: Settings,
    breakers: Mutex<HashMap<String, Breaker>>,
    overall: Arc<Semaphore>,
    per: Mutex<HashMap<String, Arc<Semaphore>>>,
}

/// A failed attempt, before it becomes a [`Failure`].
struct Attempt {
    code: FailureCode,
    message: String,
}

impl Attempt {
    fn of(self, provider: &str) -> Failure {
        Failure {
            provider: provider.to_string(),
            code: self.code,
            message: self.message,
        }
    }
}

impl Providers {
    pub fn new(host: Arc<PluginHost>, settings: Settings) -> Providers {
        Providers {
            host,
            overall: Arc::new(Semaphore::new(settings.concurrency)),
            settings,
            breakers: Mutex::default(),
            per: Mutex::default(),
        }
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn host(&self) -> &Arc<PluginHost> {
        &self.host
    }

    /// Forgets a provider's breaker (closed, no failures); false when it had none.
    pub fn reset(&self, id: &str) -> bool {
        self.breakers().remove(id).is_some()
    }

    /// Reloads `id` (or every plugin) from disk and resets the reloaded
    /// providers' breakers: a new component or config deserves a new chance.
    pub fn reload(&self, id: Option<&str>) -> Vec<String> {
        let ids: Vec<String> = match id {
            Some(id) => {
                self.host.reload(id);
                vec![id.to_string()]
            }
            None => {
                self.host.reload_all();
                self.host.all().iter().map(|p| p.id().to_string()).collect()
            }
        };
        for id in &ids {
            self.reset(id);
        }
        ids
    }

    /// Applies an edited `config.toml` (see `PluginHost::apply_config`)
    /// and resets the breakers of the providers it reloaded.
    pub fn apply_config(&self) -> Vec<String> {
        let ids = self.host.apply_config();
        for id in &ids {
            self.reset(id);
        }
        ids
    }

    fn breakers(&self) -> std::sync::MutexGuard<'_, HashMap<String, Breaker>> {
        self.breakers.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every installed provider and its health.
    pub fn status(&self) -> Vec<Status> {
        let now = Instant::now();
        // Readiness checks the component file: done before the breakers'
        // lock is taken, and once per plugin. Workflows are plugins too, but
        // not providers (`webrig workflows` lists them).
        let plugins: Vec<(Arc<Plugin>, Option<route::Unready>)> = self
            .host
            .all()
            .into_iter()
            .filter(|p| p.installed.manifest.kind == crate::plugins::manifest::Kind::Provider)
            .map(|p| {
                let unready = route::unready(&p);
                (p, unready)
            })
            .collect();
        let breakers = self.breakers();
        plugins
            .into_iter()
            .map(|(p, unready)| {
                let b = breakers.get(p.id());
                let empty = Breaker::default();
                let b = b.unwrap_or(&empty);
                Status {
                    id: p.id().to_string(),
                    version: p.installed.manifest.version.clone(),
                    source: p.info.as_ref().map(|_| p.source().to_string()),
                    operations: p.operations().to_vec(),
                    ready: unready.is_none(),
                    error: unready.map(|u| format!("{} ({})", u.why, u.fix)),
                    breaker: b.state(now),
                    consecutive_failures: b.consecutive_failures(),
                    retry_in_ms: b.retry_in(now).map(|d| d.as_millis() as u64),
                    calls: b.calls,
                    failed: b.failed,
                    last_error: b.last_error.clone(),
                }
            })
            .collect()
    }

    /// Fans a search out to the selected providers and merges what comes
    /// back: interleaved by provider, duplicates (same URL) dropped.
    pub async fn search(
        &self,
        query: &str,
        source: &str,
        limit: u32,
        deadline: tokio::time::Instant,
    ) -> Result<SearchOutcome, ApiError> {
        let req = wit::SearchRequest {
            query: query.to_string(),
            limit,
            options: Vec::new(),
        };
        self.search_with(source, req, limit as usize, deadline)
            .await
    }

    /// [`Providers::search`] with a full request (options) and a cap on
    /// the merged list separate from each provider's `req.limit`.
    pub async fn search_with(
        &self,
        source: &str,
        req: wit::SearchRequest,
        total: usize,
        deadline: tokio::time::Instant,
    ) -> Result<SearchOutcome, ApiError> {
        let started = Instant::now();
        let (selected, unready) = self.select_ready(source, &req.query)?;
        let runs = selected.iter().map(|p| {
            let p = p.clone();
            let req = req.clone();
            async move {
                let t = Instant::now();
                let out = self
                    .with_retries(
                        &p,
                        self.settings.search_timeout,
                        deadline,
                        move |rt, loaded, limits, access| rt.search(loaded, limits, access, &req),
                    )
                    .await;
                (p, out, t.elapsed())
            }
        });
        let answers = futures_util::future::join_all(runs).await;
        let mut meta = Meta {
            source: source.to_string(),
            providers: selected
                .iter()
                .map(|p| p.id().to_string())
                .chain(unready.iter().map(|f| f.provider.clone()))
                .collect(),
            ..Meta::default()
        };
        let mut failures = unready;
        let mut lists = Vec::new();
        for (p, out, took) in answers {
            meta.timings
                .insert(p.id().to_string(), took.as_millis() as u64);
            match out {
                Ok(items) => {
                    let source = p.source().to_string();
                    lists.push(
                        items
                            .into_iter()
                            .map(|i| Item {
                                provider: p.id().to_string(),
                                source: source.clone(),
                                url: i.url,
                                title: i.title,
                                snippet: i.snippet,
                                published: i.published,
                                extra: i.extra.into_iter().collect(),
                            })
                            .collect::<Vec<_>>(),
                    );
                }
                Err(a) => failures.push(a.of(p.id())),
            }
        }
        let results = interleave(lists, total);
        meta.total_ms = started.elapsed().as_millis() as u64;
        Ok(SearchOutcome {
            results,
            failures,
            meta,
        })
    }

    pub async fn fetch(
        &self,
        url: &str,
        provider: Option<&str>,
        deadline: tokio::time::Instant,
    ) -> Result<Result<Page, Failure>, ApiError> {
        let parsed = url::Url::parse(url)
            .map_err(|e| ApiError::invalid(format!("{url:?} is not a URL: {e}")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(ApiError::invalid(format!(
                "{url:?}: only http and https URLs can be fetched"
            )));
        }
        let p = self.fetcher(&parsed, provider)?;
        let started = Instant::now();
        let req = wit::FetchRequest {
            url: parsed.to_string(),
        };
        let out = self
            .with_retries(
                &p,
                self.settings.fetch_timeout,
                deadline,
                move |rt, loaded, limits, access| rt.fetch(loaded, limits, access, &req),
            )
            .await;
        Ok(match out {
            Ok(d) => Ok(Page {
                provider: p.id().to_string(),
                url: d.url,
                title: d.title,
                text: d.text,
                published: d.published,
                metadata: d.metadata.into_iter().collect(),
                elapsed_ms: started.elapsed().as_millis() as u64,
            }),
            Err(a) => Err(a.of(p.id())),
        })
    }

    fn semaphore(&self, id: &str) -> Arc<Semaphore> {
        self.per
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(id.to_string())
            .or_insert_with(|| Arc::new(Semaphore::new(self.settings.per_provider)))
            .clone()
    }

    /// Runs one read operation of `p` with the breaker, the caps, the
    /// timeout and the retries.
    async fn with_retries<T: Send + 'static>(
        &self,
        p: &Arc<Plugin>,
        timeout: Duration,
        deadline: tokio::time::Instant,
        call: impl Fn(&Runtime, &Loaded, &PluginLimits, &Access) -> CallResult<T>
        + Send
        + Sync
        + Clone
        + 'static,
    ) -> Result<T, Attempt> {
        let id = p.id().to_string();
        let mut attempt = 0;
        let mut last: Option<Attempt> = None;
        loop {
            let now = Instant::now();
            {
                let mut breakers = self.breakers();
                let b = breakers.entry(id.clone()).or_default();
                if !b.admit(now) {
                    // A retry the breaker refuses reports the real cause.
                    if let Some(last) = last {
                        return Err(last);
                    }
                    let state = b.state(now);
                    let wait = b.retry_in(now).unwrap_or_default().as_secs().max(1);
                    let (code, why) = if state == BreakerState::Cooldown {
                        (
                            FailureCode::RateLimited,
                            "cooling down after a rate-limit or auth answer",
                        )
                    } else {
                        (
                            FailureCode::CircuitOpen,
                            "its circuit is open after repeated failures",
                        )
                    };
                    return Err(Attempt {
                        code,
                        message: format!("{id}: {why}; retry in {wait} s"),
                    });
                }
            }
            let result = self.attempt(p, timeout, deadline, call.clone()).await;
            let now = Instant::now();
            let err = match result {
                Ok(v) => {
                    self.breakers().entry(id.clone()).or_default().success();
                    return Ok(v);
                }
                Err(e) => e,
            };
            {
                let mut breakers = self.breakers();
                let b = breakers.entry(id.clone()).or_default();
                if err.code.counts() {
                    let slow = matches!(err.code, FailureCode::RateLimited | FailureCode::Auth);
                    b.failure(now, &self.settings.breaker, err.message.clone(), slow);
                } else {
                    b.success();
                }
            }
            let backoff = self.settings.backoff * (attempt + 1) + jitter(self.settings.backoff);
            let time_left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if !err.code.retryable()
                || attempt >= self.settings.read_retries
                || time_left < backoff + Duration::from_millis(50)
            {
                return Err(err);
            }
            attempt += 1;
            last = Some(err);
            tokio::time::sleep(backoff).await;
        }
    }

    /// One attempt: caps, then the blocking call on a worker thread with the
    /// plugin's limits narrowed to what time is left.
    async fn attempt<T: Send + 'static>(
        &self,
        p: &Arc<Plugin>,
        timeout: Duration,
        deadline: tokio::time::Instant,
        call: impl FnOnce(&Runtime, &Loaded, &PluginLimits, &Access) -> CallResult<T> + Send + 'static,
    ) -> Result<T, Attempt> {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let per = self.semaphore(p.id());
        let slot = tokio::time::timeout(left, per.acquire_owned())
            .await
            .map_err(|_| Attempt {
                code: FailureCode::Timeout,
                message: "waited for a free slot until the deadline".into(),
            })?
            .map_err(|_| internal("closed"))?;
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let all = tokio::time::timeout(left, self.overall.clone().acquire_owned())
            .await
            .map_err(|_| Attempt {
                code: FailureCode::Timeout,
                message: "waited for a free slot until the deadline".into(),
            })?
            .map_err(|_| internal("closed"))?;
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let mut limits: PluginLimits = p.installed.manifest.limits.clone();
        let budget = timeout
            .min(left)
            .as_millis()
            .min(u128::from(limits.time_ms)) as u32;
        if budget < 10 {
            return Err(Attempt {
                code: FailureCode::Timeout,
                message: "no time left before the command's deadline".into(),
            });
        }
        limits.time_ms = budget;
        let host = self.host.clone();
        let plugin = p.clone();
        let id = p.id().to_string();
        let _gauge = PROBE.try_with(|probe| probe.enter()).ok();
        // The slots go with the call: a command that gives up (deadline,
        // client gone) does not free them while the plugin still runs.
        let out = tokio::task::spawn_blocking(move || {
            let _held = (slot, all);
            let loaded = plugin.ready().map_err(PluginError::Load)?;
            call(host.runtime(), loaded, &limits, &plugin.access)
        })
        .await
        .map_err(|e| internal(&format!("the plugin call did not finish: {e}")))?;
        match out {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(from_wit(e)),
            Err(e) => Err(from_plugin(&id, e)),
        }
    }
}

tokio::task_local! {
    /// Counts the provider calls a caller's task has running at once (a
    /// workflow run sets it to report the concurrency it reached).
    pub static PROBE: Arc<Probe>;
}

/// Provider calls running now and the most that ran at once.
#[derive(Debug, Default)]
pub struct Probe {
    now: std::sync::atomic::AtomicUsize,
    max: std::sync::atomic::AtomicUsize,
}

impl Probe {
    fn enter(self: &Arc<Self>) -> ProbeGuard {
        use std::sync::atomic::Ordering::Relaxed;
        let now = self.now.fetch_add(1, Relaxed) + 1;
        self.max.fetch_max(now, Relaxed);
        ProbeGuard(self.clone())
    }

    /// The most provider calls that ran at once.
    pub fn max(&self) -> usize {
        self.max.load(std::sync::atomic::Ordering::Relaxed)
    }
}

struct ProbeGuard(Arc<Probe>);

impl Drop for ProbeGuard {
    fn drop(&mut self) {
        self.0
            .now
            .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

fn internal(m: &str) -> Attempt {
    Attempt {
        code: FailureCode::Internal,
        message: m.to_string(),
    }
}

/// A provider's own error value.
fn from_wit(e: wit::Error) -> Attempt {
    use wit::Error as E;
    let (code, message) = match e {
        E::Denied(m) => (FailureCode::PolicyBlocked, m),
        E::NotFound(m) => (FailureCode::NotFound, format!("not found: {m}")),
        E::InvalidInput(m) => (FailureCode::InvalidInput, m),
        E::RateLimited(m) => (FailureCode::RateLimited, m),
        E::Auth(m) => (FailureCode::Auth, m),
        E::Timeout(m) => (FailureCode::Timeout, m),
        E::Upstream(m) => (network_or_upstream(&m), m),
        E::Unsupported(m) => (FailureCode::NotSupported, format!("not supported: {m}")),
        E::Internal(m) => (FailureCode::Internal, m),
    };
    Attempt { code, message }
}

/// Host `http` failures that never reached the server come back as
/// `upstream` with the transport's words; tell them apart.
fn network_or_upstream(m: &str) -> FailureCode {
    let m = m.to_ascii_lowercase();
    let network = [
        "connection refused",
        "connection reset",
        "cannot resolve",
        "host not found",
        "network is unreachable",
        "io:",
    ];
    if network.iter().any(|n| m.contains(n)) {
        FailureCode::Network
    } else {
        FailureCode::Upstream
    }
}

/// The sandbox ended the call.
fn from_plugin(id: &str, e: PluginError) -> Attempt {
    let code = match &e {
        PluginError::Deadline(_) => FailureCode::Timeout,
        PluginError::Load(_) => FailureCode::Unavailable,
        _ => FailureCode::Internal,
    };
    Attempt {
        code,
        message: format!("{id}: {e}"),
    }
}

/// Up to `backoff` of random extra wait.
fn jitter(backoff: Duration) -> Duration {
    let mut b = [0u8; 2];
    let _ = getrandom::fill(&mut b);
    backoff.mul_f64(f64::from(u16::from_le_bytes(b)) / f64::from(u16::MAX))
}

/// Round-robin over the providers' lists (so one provider cannot crowd out
/// the rest), dropping repeated URLs, up to `limit`.
fn interleave(lists: Vec<Vec<Item>>, limit: usize) -> Vec<Item> {
    let mut iters: Vec<_> = lists.into_iter().map(Vec::into_iter).collect();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    loop {
        let mut any = false;
        for it in &mut iters {
            if let Some(item) = it.next() {
                any = true;
                if seen.insert(url_key(&item.url)) && out.len() < limit {
                    out.push(item);
                }
            }
        }
        if !any || out.len() >= limit {
            return out;
        }
    }
}

fn url_key(u: &str) -> String {
    match url::Url::parse(u) {
        Ok(mut p) => {
            p.set_fragment(None);
            p.to_string().trim_end_matches('/').to_string()
        }
        Err(_) => u.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(p: &str, url: &str) -> Item {
        Item {
            provider: p.into(),
            source: "web".into(),
            url: url.into(),
            title: url.into(),
            snippet: String::new(),
            published: None,
            extra: BTreeMap::new(),
        }
    }

    #[test]
    fn interleave_alternates_and_drops_duplicates() {
        let a = vec![item("a", "https://x.test/1"), item("a", "https://x.test/2")];
        let b = vec![
            item("b", "https://x.test/1#top"),
            item("b", "https://y.test/"),
        ];
        let out = interleave(vec![a, b], 10);
        let urls: Vec<_> = out.iter().map(|i| i.url.as_str()).collect();
        assert_eq!(
            urls,
            ["https://x.test/1", "https://x.test/2", "https://y.test/"]
        );
        assert_eq!(
            interleave(vec![vec![item("a", "u1"), item("a", "u2")]], 1).len(),
            1
        );
    }

    #[test]
    fn transport_failures_are_network_errors() {
        assert_eq!(
            network_or_upstream("http://x/: io: Connection refused (os error 111)"),
            FailureCode::Network
        );
        assert_eq!(
            network_or_upstream("HTTP 502 from x"),
            FailureCode::Upstream
        );
    }
}
