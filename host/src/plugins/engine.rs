//! The wasmtime side: one engine for every plugin, compiled components cached
//! on disk, a pre-instantiated template per plugin, and a fresh store per
//! call with its limits always on — wall-clock deadline (epochs), memory cap
//! (StoreLimits, growth failure traps), output size cap. A guest that loops,
//! panics or runs out of memory ends that call with `plugin_failed`; the
//! daemon and other plugins carry on.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use wasmtime::component::{Component, Linker, ResourceTable};
use wasmtime::{Config, Engine, Store};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use super::host::{Access, HostState};
use super::manifest::{Kind, PluginLimits};
use super::wit::{Provider, Version};

pub use super::wit::Loaded;
/// The 0.1.0 types every version shares (`crate::plugins::wit::types`),
/// under the name its callers use.
pub use super::wit::types as wit;

/// Plugin calls that may run at once (instances in the pool).
const POOL: u32 = 64;

/// How often the epoch advances; deadlines are counted in these ticks.
const TICK: Duration = Duration::from_millis(5);

/// Per-call state of a store: the host imports' context, WASI (empty: no
/// files, no environment, no sockets), and the memory limiter.
pub struct CallState {
    pub host: HostState,
    wasi: WasiCtx,
    table: ResourceTable,
    limits: Budget,
}

/// A call's memory budget, counted across every linear memory and table
/// of the instance (a per-memory cap would let a component with several
/// memories take a multiple of it). Growing past it traps.
struct Budget {
    memory_left: usize,
    memory_mb: u32,
}

const TABLE_ELEMENTS: usize = 1 << 20;

impl wasmtime::ResourceLimiter for Budget {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let grow = desired.saturating_sub(current);
        if grow > self.memory_left {
            wasmtime::bail!("memory limit of {} MiB reached", self.memory_mb);
        }
        self.memory_left -= grow;
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > TABLE_ELEMENTS {
            wasmtime::bail!("table limit of {TABLE_ELEMENTS} elements reached");
        }
        Ok(true)
    }

    fn instances(&self) -> usize {
        16
    }

    fn tables(&self) -> usize {
        16
    }

    fn memories(&self) -> usize {
        4
    }
}

impl WasiView for CallState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    #[error("{0}")]
    Load(String),
    #[error("the plugin ran past its {0} ms deadline")]
    Deadline(u32),
    #[error("the plugin hit its {0} MiB memory limit")]
    Memory(u32),
    #[error("the plugin's result is over its {0} KiB limit")]
    Output(u32),
    #[error("the plugin trapped: {0}")]
    Trap(String),
    #[error("{0}")]
    Guest(String),
}

/// WASI's monotonic clock with every wait cut at the call's deadline.
struct Clamped;

impl wasmtime::component::HasData for Clamped {
    type Data<'a> = ClampedClock<'a>;
}

struct ClampedClock<'a> {
    inner: wasmtime_wasi::clocks::WasiClocksCtxView<'a>,
    left: Duration,
    cut_short: Arc<AtomicBool>,
}

use wasmtime_wasi::p2::bindings::clocks::monotonic_clock::{
    Duration as WasiDuration, Host as MonotonicHost, Instant as WasiInstant,
};

impl MonotonicHost for ClampedClock<'_> {
    fn now(&mut self) -> wasmtime::Result<WasiInstant> {
        self.inner.now()
    }

    fn resolution(&mut self) -> wasmtime::Result<WasiDuration> {
        self.inner.resolution()
    }

    fn subscribe_instant(
        &mut self,
        when: WasiInstant,
    ) -> wasmtime::Result<wasmtime::component::Resource<wasmtime_wasi::p2::DynPollable>> {
        let now = self.inner.now()?;
        self.subscribe_duration(when.saturating_sub(now))
    }

    fn subscribe_duration(
        &mut self,
        nanos: WasiDuration,
    ) -> wasmtime::Result<wasmtime::component::Resource<wasmtime_wasi::p2::DynPollable>> {
        // A little past the deadline, so the epoch check after it fires.
        let cap = (self.left + TICK * 2).as_nanos().min(u128::from(u64::MAX)) as u64;
        if nanos > cap {
            self.cut_short.store(true, Ordering::Relaxed);
        }
        self.inner.subscribe_duration(nanos.min(cap))
    }
}

/// The shared engine and its epoch ticker.
pub struct Runtime {
    engine: Engine,
    linker: Linker<CallState>,
    cache_dir: Option<PathBuf>,
    stop: Arc<AtomicBool>,
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl Runtime {
    /// `cache_dir`: where compiled components are kept (None: no disk cache).
    pub fn new(cache_dir: Option<PathBuf>) -> Result<Runtime, PluginError> {
        let mut config = Config::new();
        config.wasm_component_model(true);
        config.epoch_interruption(true);
        // A guest's deep recursion ends in a trap, not in the host's stack.
        config.max_wasm_stack(512 << 10);
        // Instances come from a pre-reserved pool: a fresh store per call
        // costs microseconds. Falls back to on-demand allocation where the
        // address space cannot be reserved.
        let mut pool = wasmtime::PoolingAllocationConfig::default();
        pool.total_component_instances(POOL)
            .total_core_instances(POOL * 4)
            .total_memories(POOL * 2)
            .total_tables(POOL * 4)
            .max_memory_size(1 << 30);
        config.allocation_strategy(wasmtime::InstanceAllocationStrategy::Pooling(pool));
        let engine = match Engine::new(&config) {
            Ok(e) => e,
            Err(e) => {
                tracing::warn!(error = %e, "pooling allocator unavailable; allocating on demand");
                config.allocation_strategy(wasmtime::InstanceAllocationStrategy::OnDemand);
                Engine::new(&config).map_err(|e| PluginError::Load(format!("wasmtime: {e}")))?
            }
        };
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker)
            .map_err(|e| PluginError::Load(format!("linking WASI: {e}")))?;
        // A guest blocked in WASI (a sleep, a poll on a clock) runs no wasm,
        // so epochs cannot stop it: its clock waits end at the call's
        // deadline instead, and the next epoch check ends the call.
        linker.allow_shadowing(true);
        wasmtime_wasi::p2::bindings::clocks::monotonic_clock::add_to_linker::<CallState, Clamped>(
            &mut linker,
            |s| {
                let left = s.host.time_left();
                let cut_short = s.host.cut_short.clone();
                ClampedClock {
                    inner: wasmtime_wasi::clocks::WasiClocksView::clocks(s),
                    left,
                    cut_short,
                }
            },
        )
        .map_err(|e| PluginError::Load(format!("linking WASI clocks: {e}")))?;
        linker.allow_shadowing(false);
        // Every released version's imports: a component links against the
        // ones its version's world imports.
        super::wit::add_to_linker(&mut linker)
            .map_err(|e| PluginError::Load(format!("linking webrig imports: {e:#}")))?;
        let stop = Arc::new(AtomicBool::new(false));
        {
            let engine = engine.clone();
            let stop = stop.clone();
            std::thread::Builder::new()
                .name("webrig-epoch".into())
                .spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        std::thread::sleep(TICK);
                        engine.increment_epoch();
                    }
                })
                .map_err(|e| PluginError::Load(format!("epoch thread: {e}")))?;
        }
        if let Some(dir) = &cache_dir {
            crate::config::ensure_private_dir(dir)
                .map_err(|e| PluginError::Load(format!("{}: {e:#}", dir.display())))?;
        }
        Ok(Runtime {
            engine,
            linker,
            cache_dir,
            stop,
        })
    }

    /// Compiles (or loads from the cache) and pre-instantiates a component
    /// of `kind` built against WIT `version` (its manifest's `wit`, checked
    /// against [`super::wit::RELEASES`]), bound with that version's bindings.
    pub fn load(
        &self,
        bytes: &[u8],
        sha256: &str,
        kind: Kind,
        version: Version,
    ) -> Result<Loaded, PluginError> {
        super::wit::check(kind, &version.to_string()).map_err(PluginError::Load)?;
        let component = self.component(bytes, sha256)?;
        let pre = self.linker.instantiate_pre(&component).map_err(|e| {
            PluginError::Load(format!(
                "the component does not fit WIT {version}'s {} world: {e}",
                super::wit::world(kind)
            ))
        })?;
        super::wit::bind(kind, version, pre).map_err(PluginError::Load)
    }

    fn cache_path(&self, sha256: &str) -> Option<PathBuf> {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.engine.precompile_compatibility_hash().hash(&mut h);
        let dir = self.cache_dir.as_ref()?;
        Some(dir.join(format!("{sha256}-{:016x}.cwasm", h.finish())))
    }

    fn component(&self, bytes: &[u8], sha256: &str) -> Result<Component, PluginError> {
        if let Some(path) = self.cache_path(sha256)
            && path.is_file()
            && let Some(c) = self.deserialize(&path)
        {
            return Ok(c);
        }
        let compiled = self
            .engine
            .precompile_component(bytes)
            .map_err(|e| PluginError::Load(format!("not a valid component: {e}")))?;
        if let Some(path) = self.cache_path(sha256)
            && let Err(e) = crate::config::write_private(&path, &compiled)
        {
            tracing::warn!(error = %e, "cannot cache a compiled plugin");
        }
        self.deserialize_bytes(&compiled)
    }

    /// Loads a compiled component webrig wrote itself.
    #[allow(unsafe_code)]
    fn deserialize(&self, path: &Path) -> Option<Component> {
        // SAFETY: the file is one this runtime wrote (precompile_component),
        // in the owner-only plugin cache, named by the component's sha256 and
        // this engine's compatibility hash; wasmtime still checks its header.
        unsafe { Component::deserialize_file(&self.engine, path) }.ok()
    }

    #[allow(unsafe_code)]
    fn deserialize_bytes(&self, compiled: &[u8]) -> Result<Component, PluginError> {
        // SAFETY: `compiled` was produced just now by this engine's
        // precompile_component.
        unsafe { Component::deserialize(&self.engine, compiled) }
            .map_err(|e| PluginError::Load(format!("loading a compiled component: {e}")))
    }

    /// Runs `f` against a fresh provider instance with the plugin's limits.
    pub fn call<R>(
        &self,
        loaded: &Loaded,
        limits: &PluginLimits,
        access: &Access,
        f: impl FnOnce(&Provider, &mut Store<CallState>) -> wasmtime::Result<R>,
    ) -> Result<R, PluginError> {
        let Loaded::Provider(pre) = loaded else {
            return Err(PluginError::Load("this plugin is not a provider".into()));
        };
        self.fresh(limits, access, |s| pre.instantiate(s), f)
    }

    /// Runs `f` against a fresh instance (`make`) in a store with the
    /// plugin's limits and its deadline: a call of a provider or adapter.
    fn fresh<I, R>(
        &self,
        limits: &PluginLimits,
        access: &Access,
        make: impl FnOnce(&mut Store<CallState>) -> wasmtime::Result<I>,
        f: impl FnOnce(&I, &mut Store<CallState>) -> wasmtime::Result<R>,
    ) -> Result<R, PluginError> {
        let deadline = Instant::now() + Duration::from_millis(u64::from(limits.time_ms));
        let host = HostState::new(access.clone(), deadline);
        self.in_store(limits, host, None, |store| {
            let instance = make(&mut *store)?;
            f(&instance, store)
        })
    }

    /// Runs `f` against a fresh adapter instance with the plugin's limits.
    pub fn run_adapter<R>(
        &self,
        pre: &super::wit::AdapterPre,
        limits: &PluginLimits,
        access: &Access,
        f: impl FnOnce(&super::wit::Adapter, &mut Store<CallState>) -> wasmtime::Result<R>,
    ) -> Result<R, PluginError> {
        self.fresh(limits, access, |s| pre.instantiate(s), f)
    }

    /// Runs `f` in a fresh store with the plugin's memory and output limits,
    /// the wall-clock deadline of `host`, and, when `cpu` is given, a budget
    /// for the guest's own running time: time spent in host calls (counted
    /// by `host` as waited) is not charged to it.
    pub fn in_store<R>(
        &self,
        limits: &PluginLimits,
        host: HostState,
        cpu: Option<Duration>,
        f: impl FnOnce(&mut Store<CallState>) -> wasmtime::Result<R>,
    ) -> Result<R, PluginError> {
        let memory = (limits.memory_mb as usize) << 20;
        let deadline = host.deadline();
        let state = CallState {
            host,
            wasi: WasiCtx::builder().build(),
            table: ResourceTable::new(),
            limits: Budget {
                memory_left: memory,
                memory_mb: limits.memory_mb,
            },
        };
        let mut store = Store::new(&self.engine, state);
        store.limiter(|s| &mut s.limits);
        // The deadline is wall-clock: each tick the callback compares the
        // clock, so a ticker slowed by a busy machine cannot stretch it.
        // The first check comes at half the time, then one every tick.
        let started = Instant::now();
        let first = cpu
            .unwrap_or(Duration::MAX)
            .min(deadline.saturating_duration_since(started));
        let ticks = (first.as_millis() as u64 / TICK.as_millis() as u64 / 2).max(1);
        store.set_epoch_deadline(ticks);
        store.epoch_deadline_callback(move |ctx| {
            let now = Instant::now();
            let host = &ctx.data().host;
            let over_cpu = cpu.is_some_and(|cpu| {
                now.duration_since(started).saturating_sub(host.waited()) >= cpu
            });
            if now >= deadline || over_cpu || host.cancelled() {
                Ok(wasmtime::UpdateDeadline::Interrupt)
            } else {
                Ok(wasmtime::UpdateDeadline::Continue(1))
            }
        });
        let run = f(&mut store);
        if run.is_ok() && store.data().host.cut_short.load(Ordering::Relaxed) {
            // It waited past its deadline (the wait was cut): whatever it
            // answered after that is late.
            return Err(PluginError::Deadline(limits.time_ms));
        }
        run.map_err(|e| classify(e, limits))
    }
}

impl Runtime {
    /// A provider's `describe`.
    pub fn describe(
        &self,
        loaded: &Loaded,
        limits: &PluginLimits,
        access: &Access,
    ) -> Result<wit::ProviderInfo, PluginError> {
        let info = self.call(loaded, limits, access, |p, s| p.call_describe(s))?;
        capped(info, limits)
    }

    /// A provider's `search`, with the output cap applied to what it returns.
    pub fn search(
        &self,
        loaded: &Loaded,
        limits: &PluginLimits,
        access: &Access,
        req: &wit::SearchRequest,
    ) -> Result<Result<Vec<wit::ResultItem>, wit::Error>, PluginError> {
        let out = self.call(loaded, limits, access, |p, s| p.call_search(s, req))?;
        capped(out, limits)
    }

    /// A provider's `fetch`, with the output cap applied.
    pub fn fetch(
        &self,
        loaded: &Loaded,
        limits: &PluginLimits,
        access: &Access,
        req: &wit::FetchRequest,
    ) -> Result<Result<wit::Document, wit::Error>, PluginError> {
        let out = self.call(loaded, limits, access, |p, s| p.call_fetch(s, req))?;
        capped(out, limits)
    }
}

/// Refuses a result over the plugin's output cap.
fn capped<T: Size>(out: T, limits: &PluginLimits) -> Result<T, PluginError> {
    if out.size() > (limits.output_kb as usize) << 10 {
        return Err(PluginError::Output(limits.output_kb));
    }
    Ok(out)
}

/// Bytes of text a plugin returned (what the output cap counts).
trait Size {
    fn size(&self) -> usize;
}

impl Size for String {
    fn size(&self) -> usize {
        self.len()
    }
}

impl<A: Size, B: Size> Size for (A, B) {
    fn size(&self) -> usize {
        self.0.size() + self.1.size()
    }
}

impl<T: Size> Size for Vec<T> {
    /// Each element costs at least its bookkeeping, so a million empty
    /// records are not free.
    fn size(&self) -> usize {
        self.iter().map(|e| e.size() + 32).sum()
    }
}

impl<T: Size> Size for Option<T> {
    fn size(&self) -> usize {
        self.as_ref().map_or(0, Size::size)
    }
}

impl<T: Size, E: Size> Size for Result<T, E> {
    fn size(&self) -> usize {
        match self {
            Ok(t) => t.size(),
            Err(e) => e.size(),
        }
    }
}

impl Size for wit::Error {
    fn size(&self) -> usize {
        use wit::Error as E;
        match self {
            E::Denied(m)
            | E::NotFound(m)
            | E::InvalidInput(m)
            | E::RateLimited(m)
            | E::Auth(m)
            | E::Timeout(m)
            | E::Upstream(m)
            | E::Unsupported(m)
            | E::Internal(m) => m.len(),
        }
    }
}

impl Size for wit::ResultItem {
    fn size(&self) -> usize {
        self.url.size()
            + self.title.size()
            + self.snippet.size()
            + self.published.size()
            + self.extra.size()
    }
}

impl Size for wit::Document {
    fn size(&self) -> usize {
        self.url.size()
            + self.title.size()
            + self.text.size()
            + self.published.size()
            + self.metadata.size()
    }
}

impl Size for wit::ProviderInfo {
    fn size(&self) -> usize {
        self.id.size()
            + self.name.size()
            + self.source.size()
            + self.operations.size()
            + self.description.size()
    }
}

/// Names a failed call's cause from wasmtime's error.
fn classify(e: wasmtime::Error, limits: &PluginLimits) -> PluginError {
    if let Some(trap) = e.downcast_ref::<wasmtime::Trap>() {
        return match trap {
            wasmtime::Trap::Interrupt => PluginError::Deadline(limits.time_ms),
            wasmtime::Trap::StackOverflow => PluginError::Trap("stack overflow".into()),
            wasmtime::Trap::UnreachableCodeReached => {
                PluginError::Trap("the guest panicked (unreachable code reached)".into())
            }
            other => PluginError::Trap(other.to_string()),
        };
    }
    let text = format!("{e:#}");
    if text.contains("memory") && (text.contains("grow") || text.contains("limit")) {
        return PluginError::Memory(limits.memory_mb);
    }
    PluginError::Trap(text)
}
