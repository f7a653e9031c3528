//! Workflows: WebAssembly components of world `workflow-plugin`
//! (wit/v0.2.0) that turn the provider runtime, the browser and the
//! artifact writer into a finished piece of work (a research report, a
//! price comparison, …).
//!
//! A run: parameters checked against what the workflow declares
//! ([`params`]) → for a workflow that reaches the web only through
//! providers, one ready to serve it (else it fails naming what is missing)
//! → a fresh bundle folder ([`bundle`]) → the guest's `run` on
//! a blocking thread, in a fresh store with the plugin's memory cap, a CPU
//! budget for its own running time (the manifest's `time_ms`) and the run's
//! wall-clock deadline for everything (host calls included) → `meta.json`
//! and the final manifest, written whatever happened. Progress reported by
//! the guest, and each provider call, goes out as events while the run
//! goes on. Dropping the run (the client left, Ctrl-C) cancels it: the
//! guest is interrupted at its next epoch check and the bundle stays marked
//! incomplete.

pub mod bundle;
mod imports;
pub mod params;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::error::{ApiError, ErrorCode};
use crate::plugins::Plugin;
pub use crate::plugins::described::WorkflowInfo;
use crate::plugins::engine::{Loaded, PluginError, Runtime, wit};
use crate::plugins::host::HostState;
use crate::providers::{Probe, Providers};

/// Refuses a workflow whose declaration (its parameters) this host could
/// not check values against; the plugin host runs it when a workflow
/// loads (see [`crate::plugins::PluginHost::open`]).
pub fn check_declaration(w: &WorkflowInfo) -> Result<(), String> {
    params::check_declared(&w.params)
}

/// An event of a run, streamed to the caller while it goes on.
pub type Events = tokio::sync::mpsc::UnboundedSender<Value>;

/// Events one run may send (progress beyond this is dropped).
const MAX_EVENTS: u32 = 2000;

/// The state of one run, shared by its host imports.
pub struct RunCx {
    pub run_id: String,
    pub workflow: String,
    pub bundle: bundle::Bundle,
    providers: Arc<Providers>,
    handle: tokio::runtime::Handle,
    events: Option<Events>,
    sent: AtomicU32,
    cancel: Arc<AtomicBool>,
    pub deadline: Instant,
    started: Instant,
    probe: Arc<Probe>,
    record: Mutex<Record>,
}

/// What `meta.json` reports about a run.
#[derive(Debug, Default, Serialize)]
struct Record {
    stages: Vec<Stage>,
    providers: BTreeMap<String, ProviderUse>,
    failures: Vec<Value>,
    searches: u32,
    fetches: u32,
    downloads: u32,
}

#[derive(Debug, Serialize)]
struct Stage {
    stage: String,
    /// Milliseconds from the run's start to the stage's first and last report.
    first_ms: u64,
    last_ms: u64,
    done: u32,
    total: u32,
    message: String,
}

#[derive(Debug, Default, Serialize)]
struct ProviderUse {
    calls: u32,
    failures: u32,
    /// Milliseconds of provider time (calls overlap, so these add up to
    /// more than the run took when they ran at once).
    ms: u64,
}

fn clip(s: &str, n: usize) -> String {
    s.chars().filter(|c| !c.is_control()).take(n).collect()
}

impl crate::plugins::host::Run for RunCx {
    fn cancelled(&self) -> bool {
        RunCx::cancelled(self)
    }
}

impl RunCx {
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    fn elapsed_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    fn send(&self, event: Value) {
        if let Some(tx) = &self.events
            && self.sent.fetch_add(1, Ordering::Relaxed) < MAX_EVENTS
        {
            let _ = tx.send(event);
        }
    }

    fn record(&self) -> std::sync::MutexGuard<'_, Record> {
        self.record.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The guest reported progress.
    pub fn progress(&self, stage: &str, message: &str, done: u32, total: u32) {
        let stage = clip(stage, 64);
        let message = clip(message, 300);
        let at = self.elapsed_ms();
        {
            let mut r = self.record();
            let known = r.stages.iter().position(|s| s.stage == stage);
            match known {
                Some(i) => {
                    let s = &mut r.stages[i];
                    s.last_ms = at;
                    s.done = done;
                    s.total = total;
                    s.message = message.clone();
                }
                None if r.stages.len() < 64 => r.stages.push(Stage {
                    stage: stage.clone(),
                    first_ms: at,
                    last_ms: at,
                    done,
                    total,
                    message: message.clone(),
                }),
                None => {}
            }
        }
        self.send(json!({
            "event": "progress", "stage": stage, "message": message,
            "done": done, "total": total, "elapsed_ms": at,
        }));
    }

    /// A provider answered (or failed) a call of this run.
    fn provider_call(&self, provider: &str, ms: u64, failure: Option<&crate::providers::Failure>) {
        {
            let mut r = self.record();
            let u = r.providers.entry(provider.to_string()).or_default();
            u.calls += 1;
            u.ms += ms;
            if let Some(f) = failure {
                u.failures += 1;
                if r.failures.len() < 200 {
                    r.failures.push(json!(f));
                }
            }
        }
        self.send(json!({
            "event": "provider", "provider": provider, "ms": ms,
            "status": if failure.is_some() { "failed" } else { "ok" },
            "message": failure.map(|f| clip(&f.message, 200)),
            "elapsed_ms": self.elapsed_ms(),
        }));
    }

    /// Runs provider work on the daemon's runtime from the guest's thread,
    /// counted by this run's probe, until it ends, the run is cancelled or
    /// its deadline passes.
    fn block<T>(&self, work: impl std::future::Future<Output = T>) -> Result<T, wit::Error> {
        if self.cancelled() {
            return Err(wit::Error::Timeout("the run was cancelled".into()));
        }
        let deadline = tokio::time::Instant::from_std(self.deadline);
        let probe = self.probe.clone();
        let passed = || wit::Error::Timeout("the run's deadline passed".into());
        let out = self.handle.block_on(async {
            let work = crate::providers::PROBE.scope(probe, work);
            // Work that ends because the deadline passed (a provider call
            // cut at the same instant) is the deadline, not an answer.
            tokio::select! {
                biased;
                _ = tokio::time::sleep_until(deadline) => Err(passed()),
                out = work => Ok(out),
                _ = async {
                    while !self.cancelled() {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                } => Err(wit::Error::Timeout("the run was cancelled".into())),
            }
        })?;
        if Instant::now() >= self.deadline {
            return Err(passed());
        }
        Ok(out)
    }
}

/// What the caller asked for.
pub struct RunRequest {
    pub given: BTreeMap<String, Value>,
    pub out: Option<std::path::PathBuf>,
    pub ttl_hours: u32,
    pub now: Option<String>,
    pub events: Option<Events>,
    pub deadline: Instant,
}

/// What the guest returned, with the run's facts.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Finished {
    pub run_id: String,
    pub workflow: String,
    /// The bundle folder.
    pub bundle: String,
    pub complete: bool,
    /// The workflow's verdict when it gives one (research's evidence gate:
    /// pass, partial or fail).
    pub status: Option<String>,
    /// At most 10 lines: the compact rendering.
    pub summary: String,
    /// A small JSON value for an agent's context window.
    pub context: Value,
    /// The main report's file in the bundle.
    pub report: Option<String>,
    /// The main data file in the bundle.
    pub data: Option<String>,
    pub files: Vec<bundle::FileEntry>,
    /// What failed on the way (providers, pages, downloads).
    pub failures: Vec<Value>,
    pub elapsed_ms: u64,
    /// The most provider calls that ran at once.
    pub concurrency: usize,
}

/// The installed workflow `name`, or `not_found` listing the installed ones.
pub fn find(plugins: &[Arc<Plugin>], name: &str) -> Result<Arc<Plugin>, ApiError> {
    let mut installed: Vec<&str> = plugins
        .iter()
        .filter(|p| p.installed.manifest.kind == crate::plugins::manifest::Kind::Workflow)
        .map(|p| p.id())
        .collect();
    installed.sort_unstable();
    plugins
        .iter()
        .find(|p| {
            p.id() == name && p.installed.manifest.kind == crate::plugins::manifest::Kind::Workflow
        })
        .cloned()
        .ok_or_else(|| {
            ApiError::not_found(format!("no workflow {name:?} is installed")).with_hint(
                if installed.is_empty() {
                    format!(
                        "no workflow is installed: {}",
                        crate::providers::route::SETUP_HINT
                    )
                } else {
                    format!("installed workflows: {}", installed.join(", "))
                },
            )
        })
}

/// A workflow that may reach no host and not the browser works only
/// through the provider runtime: with no provider ready to search or fetch
/// it fails here, before its bundle is made, saying which (none installed,
/// or installed and why not ready). One with network access of its own may
/// do without providers and is not held back.
fn needs_providers(providers: &Providers, plugin: &Plugin) -> Result<(), ApiError> {
    let caps = &plugin.installed.manifest.capabilities;
    if !caps.http.is_empty()
        || !caps.http_from_config.is_empty()
        || caps.browser != crate::plugins::manifest::BrowserAccess::None
    {
        return Ok(());
    }
    providers.any_ready().map_err(|u| {
        u.error_in(&format!(
            "workflow {} works only through providers",
            plugin.id()
        ))
    })
}

/// A run id: the workflow, the UTC time, and a random suffix.
fn new_run_id(workflow: &str, now: SystemTime) -> String {
    let stamp: String = bundle::rfc3339(now)
        .chars()
        .filter(|c| c.is_ascii_digit())
        .take(14)
        .collect();
    let suffix = crate::config::random_hex(3).unwrap_or_else(|_| "000000".into());
    format!(
        "{workflow}-{}-{}-{suffix}",
        &stamp[..8.min(stamp.len())],
        &stamp[8.min(stamp.len())..]
    )
}

/// Runs workflow `plugin` to the end (or its deadline, or cancellation).
pub async fn run(
    home: &crate::config::Home,
    providers: Arc<Providers>,
    plugin: Arc<Plugin>,
    req: RunRequest,
) -> Result<Finished, ApiError> {
    let name = plugin.id().to_string();
    let info = plugin.workflow.clone().ok_or_else(|| {
        let why = plugin
            .loaded
            .as_ref()
            .err()
            .cloned()
            .unwrap_or_else(|| "it did not describe itself".into());
        ApiError::new(
            ErrorCode::PluginFailed,
            format!("workflow {name} did not load: {why}"),
        )
    })?;
    let mut input = params::validate(&name, &info.params, &req.given)?;
    needs_providers(&providers, &plugin)?;
    let now = SystemTime::now();
    let reference = match &req.now {
        Some(t) => {
            humantime::parse_rfc3339_weak(t)
                .map_err(|_| ApiError::invalid(format!("--now {t:?} is not an RFC 3339 time")))?;
            t.clone()
        }
        None => bundle::rfc3339(now),
    };
    let run_id = new_run_id(&name, now);
    input.insert("_now".into(), Value::String(reference));
    input.insert("_run_id".into(), Value::String(run_id.clone()));
    let root = home.artifacts_dir();
    // Expired bundles go as new ones come.
    let swept = bundle::cleanup(&root, true, now);
    if !swept.removed.is_empty() {
        tracing::info!(removed = swept.removed.len(), "expired bundles removed");
    }
    let dir = req.out.clone().unwrap_or_else(|| root.join(&run_id));
    let bundle = bundle::Bundle::create(dir, &run_id, &name, req.ttl_hours, now)
        .map_err(ApiError::invalid)?;
    bundle.set_subject(subject_of(&input));
    let loaded_ok = plugin
        .ready()
        .map_err(|e| ApiError::new(ErrorCode::PluginFailed, format!("workflow {name}: {e}")));
    let run = Arc::new(RunCx {
        run_id: run_id.clone(),
        workflow: name.clone(),
        bundle,
        providers: providers.clone(),
        handle: tokio::runtime::Handle::current(),
        events: req.events,
        sent: AtomicU32::new(0),
        cancel: Arc::default(),
        deadline: req.deadline,
        started: Instant::now(),
        probe: Arc::default(),
        record: Mutex::default(),
    });
    if let Err(e) = loaded_ok {
        let _ = run.bundle.finish(false);
        return Err(e);
    }
    // Dropping this future (the client left) cancels the run.
    let _cancel_on_drop = CancelOnDrop(run.clone());
    let host = providers.host().clone();
    let input = Value::Object(input).to_string();
    // The run and its bookkeeping (meta.json, the final manifest) happen
    // on the blocking thread, so they finish even when this future is
    // dropped.
    let job = {
        let run = run.clone();
        let plugin = plugin.clone();
        tokio::task::spawn_blocking(move || {
            let outcome = execute(host.runtime(), &plugin, &run, &input);
            finish(&run, &plugin, outcome)
        })
    };
    job.await
        .map_err(|e| ApiError::internal(format!("the run did not finish: {e}")))?
}

struct CancelOnDrop(Arc<RunCx>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

type Outcome = (Result<Result<String, wit::Error>, PluginError>, Duration);

/// The guest's `run`, then meta.json and the manifest, on the calling
/// (blocking) thread.
fn execute(runtime: &Runtime, plugin: &Plugin, run: &Arc<RunCx>, input: &str) -> Outcome {
    let limits = plugin.installed.manifest.limits.clone();
    let cpu = Duration::from_millis(u64::from(limits.time_ms));
    let mut waited = Duration::ZERO;
    let out = match plugin.ready() {
        Err(e) => Err(PluginError::Load(e)),
        Ok(Loaded::Provider(_) | Loaded::Adapter(_)) => {
            Err(PluginError::Load("not a workflow".into()))
        }
        Ok(Loaded::Workflow(pre)) => {
            // The guest's waits on pages stop when the run is cancelled.
            let _cancellable = crate::plugins::host::cancel::enter(run.cancel.clone());
            let host = HostState::new(plugin.access.clone(), run.deadline).for_run(run.clone());
            runtime.in_store(&limits, host, Some(cpu), |store| {
                let w = pre.instantiate(&mut *store)?;
                let out = w.call_run(&mut *store, input);
                waited = store.data().host.waited();
                out
            })
        }
    };
    let out = out.and_then(|r| {
        let size = match &r {
            Ok(s) => s.len(),
            Err(_) => 0,
        };
        if size > (limits.output_kb as usize) << 10 {
            Err(PluginError::Output(limits.output_kb))
        } else {
            Ok(r)
        }
    });
    (out, waited)
}

/// Turns the guest's answer into the run's result, writing meta.json and
/// the final manifest either way.
fn finish(
    run: &Arc<RunCx>,
    plugin: &Plugin,
    (outcome, waited): Outcome,
) -> Result<Finished, ApiError> {
    let name = &run.workflow;
    let elapsed = run.started.elapsed();
    let limits = &plugin.installed.manifest.limits;
    // The workflow refused its input: the run never was, and no bundle is
    // left behind for a typo (7 typos once made 7 folders).
    let refused_input =
        matches!(&outcome, Ok(Err(wit::Error::InvalidInput(_)))) && !run.cancelled();
    let answer: Result<Value, ApiError> = match outcome {
        // A cancelled run is cancelled whatever the guest made of it.
        _ if run.cancelled() => Err(ApiError::new(
            ErrorCode::Timeout,
            format!("workflow {name} was cancelled"),
        )),
        Ok(Ok(text)) => match serde_json::from_str::<Value>(&text) {
            Ok(v @ Value::Object(_)) => Ok(v),
            _ => Err(ApiError::new(
                ErrorCode::PluginFailed,
                format!("workflow {name} answered something that is not a JSON object"),
            )),
        },
        Ok(Err(e)) => Err(guest_error(name, e)),
        Err(PluginError::Deadline(_)) if Instant::now() >= run.deadline => {
            Err(ApiError::timeout(format!(
                "workflow {name} passed the run's {} ms deadline",
                (run.deadline - run.started).as_millis()
            ))
            .with_hint("raise it with --timeout-ms"))
        }
        Err(PluginError::Deadline(_)) => Err(ApiError::new(
            ErrorCode::PluginFailed,
            format!(
                "workflow {name} used its {} ms CPU budget (limits.time_ms)",
                limits.time_ms
            ),
        )),
        Err(e) => Err(ApiError::new(
            ErrorCode::PluginFailed,
            format!("workflow {name}: {e}"),
        )),
    };
    let complete = answer.is_ok() && !run.cancelled();
    let guest_value = answer.as_ref().ok().cloned();
    let guest = guest_value.as_ref();
    let files = run.bundle.manifest().files;
    let str_of = |k: &str| {
        guest
            .and_then(|v| v.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let file_of = |k: &str| str_of(k).filter(|f| files.iter().any(|e| &e.name == f));
    let record = std::mem::take(&mut *run.record());
    let mut failures = record.failures.clone();
    if let Some(extra) = guest
        .and_then(|v| v.get("failures"))
        .and_then(Value::as_array)
    {
        failures.extend(extra.iter().take(200).cloned());
    }
    let meta = json!({
        "run_id": run.run_id,
        "workflow": name,
        "complete": complete,
        "error": answer.as_ref().err().map(|e| json!({"code": e.code(), "message": e.message()})),
        "elapsed_ms": elapsed.as_millis() as u64,
        "guest_ms": elapsed.saturating_sub(waited).as_millis() as u64,
        "waited_ms": waited.as_millis() as u64,
        "stages": record.stages,
        "providers": record.providers,
        "concurrency": {
            "provider_calls_max": run.probe.max(),
            "limit": run.providers.settings().concurrency,
        },
        "calls": {"searches": record.searches, "fetches": record.fetches, "downloads": record.downloads},
        "failures": failures,
        "guest": guest.and_then(|v| v.get("meta")).cloned().unwrap_or(Value::Null),
    });
    if refused_input && let Err(e) = &answer {
        if let Err(why) = std::fs::remove_dir_all(run.bundle.dir()) {
            tracing::warn!(error = %why, "cannot remove a refused run's bundle");
        }
        return Err(ApiError::new(e.code(), e.message())
            .with_hint(format!("see webrig run workflow {name} --help")));
    }
    run.bundle.set_status(match &answer {
        Ok(_) => str_of("status").unwrap_or_else(|| "complete".into()),
        Err(_) if run.cancelled() => "cancelled".into(),
        Err(e) => e.code().as_str().into(),
    });
    let meta_text = serde_json::to_vec_pretty(&meta).unwrap_or_default();
    if let Err(e) = run.bundle.write_own("meta.json", &meta_text) {
        tracing::warn!(error = %e, "cannot write meta.json");
    }
    if let Err(e) = run.bundle.finish(complete) {
        tracing::warn!(error = %e, "cannot write the bundle manifest");
    }
    let bundle_path = run.bundle.dir().display().to_string();
    let guest = match answer {
        Ok(v) => v,
        Err(e) => {
            let hint = format!("the bundle (incomplete) is {bundle_path}");
            let hint = match e.hint() {
                Some(h) => format!("{h}; {hint}"),
                None => hint,
            };
            return Err(ApiError::new(e.code(), e.message()).with_hint(hint));
        }
    };
    let summary: String = guest
        .get("summary")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .lines()
        .take(10)
        .collect::<Vec<_>>()
        .join("\n");
    Ok(Finished {
        run_id: run.run_id.clone(),
        workflow: name.clone(),
        bundle: bundle_path,
        complete,
        status: str_of("status"),
        summary,
        context: guest.get("context").cloned().unwrap_or(Value::Null),
        report: file_of("report"),
        data: file_of("data"),
        files: run.bundle.manifest().files,
        failures,
        elapsed_ms: elapsed.as_millis() as u64,
        concurrency: run.probe.max(),
    })
}

/// What a run is about, from its parameters: the first of the usual
/// subject parameters, clipped to one short line.
fn subject_of(input: &serde_json::Map<String, Value>) -> Option<String> {
    ["topic", "query", "brief", "product", "url", "urls"]
        .iter()
        .find_map(|k| match input.get(*k)? {
            Value::String(s) => Some(s.clone()),
            Value::Array(a) => Some(
                a.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            _ => None,
        })
        .filter(|s| !s.trim().is_empty())
        .map(|s| clip(s.trim(), 120))
}

/// A guest's own error, as the API's.
fn guest_error(name: &str, e: wit::Error) -> ApiError {
    use wit::Error as E;
    let (code, m) = match e {
        E::InvalidInput(m) => (ErrorCode::InvalidArgument, m),
        E::NotFound(m) => (ErrorCode::NotFound, m),
        E::Denied(m) => (ErrorCode::Forbidden, m),
        E::Timeout(m) => (ErrorCode::Timeout, m),
        E::Unsupported(m) => (ErrorCode::Unsupported, m),
        E::RateLimited(m) | E::Auth(m) | E::Upstream(m) | E::Internal(m) => {
            (ErrorCode::PluginFailed, m)
        }
    };
    ApiError::new(code, format!("{name}: {}", clip(&m, 2000)))
}
