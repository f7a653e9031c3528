//! The daemon: shared state, the HTTP app, and the command dispatcher.
//!
//! Owns who may call (token, Host, Origin), request envelopes, deadlines and the
//! per-session ordering of commands. It must not know how commands work inside.

mod dispatch;
pub mod extension;
mod guard;
mod listen;
mod plugin_browser;
mod routes;

use std::collections::{BTreeMap, HashMap};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use tokio::sync::watch;
use tokio::time::Instant;

use crate::browser::SessionState;
use crate::browser::bindings::Bindings;
use crate::browser::cdp::Connection;
use crate::config::{Home, Limits};
use crate::error::{ApiError, ErrorCode};

pub use routes::app;

/// One session as the daemon holds it: its state (locked while a command
/// runs, which keeps its commands in order), how many commands wait for it,
/// and a way to interrupt a stuck command without that lock.
pub struct Slot {
    state: Arc<tokio::sync::Mutex<SessionState>>,
    /// Tabs of this session whose commands may run at once.
    parallel: Arc<tokio::sync::Semaphore>,
    waiting: std::sync::atomic::AtomicUsize,
    /// The browser's CDP connection, shared with the session state, reachable
    /// without the session's lock.
    interrupt: Arc<Mutex<Option<Connection>>>,
}

impl Slot {
    pub fn state(&self) -> &Arc<tokio::sync::Mutex<SessionState>> {
        &self.state
    }

    pub fn parallel(&self) -> &Arc<tokio::sync::Semaphore> {
        &self.parallel
    }

    /// Counts a command in; `false` when the queue is full.
    fn enter(&self, max: usize) -> bool {
        use std::sync::atomic::Ordering;
        let before = self.waiting.fetch_add(1, Ordering::SeqCst);
        if before > max {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return false;
        }
        true
    }

    /// Drops the session's browser connection: a command stuck on it fails
    /// at once (`browser_gone`), releasing the session.
    pub fn interrupt(&self) {
        let conn = self
            .interrupt
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(conn) = conn {
            conn.close();
        }
    }

    fn leave(&self) {
        self.waiting
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Ends a slot's waiting count when the command is done, however it ends.
pub struct Entered(Arc<Slot>);

impl Drop for Entered {
    fn drop(&mut self) {
        self.0.leave();
    }
}

/// The prefix of the sessions plugins' pages live in; users cannot create
/// one (a plugin could read it), only use or close one that exists.
pub const PLUGIN_SESSION: &str = "plugin-";

/// Daemon-wide state shared by every request.
pub struct State {
    home: Home,
    token: std::sync::RwLock<String>,
    pairing: Mutex<Option<guard::Pairing>>,
    limiter: Mutex<guard::Limiter>,
    port: u16,
    limits: Limits,
    access: crate::config::Access,
    started: Instant,
    sessions: Mutex<HashMap<String, Arc<Slot>>>,
    bindings: Arc<Bindings>,
    shutdown: watch::Sender<bool>,
    /// Installed plugins and the provider runtime, opened in the
    /// background at start (the first command that needs them waits).
    providers: tokio::sync::OnceCell<Result<Arc<crate::providers::Providers>, String>>,
    /// The macro engine and packs, made on first use.
    macros: std::sync::OnceLock<crate::macros::Macros>,
    /// The user's browser through the extension, while it is connected.
    relay: Mutex<Option<Arc<crate::browser::relay::Link>>>,
}

/// Runs one request as `POST /command` does (for in-process surfaces: MCP).
pub async fn dispatch_request(
    state: Arc<State>,
    request: crate::commands::envelope::Request,
) -> crate::commands::envelope::Response {
    dispatch::dispatch(state, request).await
}

impl State {
    pub fn new(
        home: Home,
        token: String,
        port: u16,
        limits: Limits,
        access: crate::config::Access,
    ) -> Arc<State> {
        let bindings = Arc::new(Bindings::load(home.root().join("sessions.json")));
        Arc::new(State {
            bindings,
            home,
            token: std::sync::RwLock::new(token),
            pairing: Mutex::new(None),
            limiter: Mutex::new(guard::Limiter::default()),
            port,
            limits,
            access,
            started: Instant::now(),
            sessions: Mutex::new(HashMap::new()),
            shutdown: watch::channel(false).0,
            providers: tokio::sync::OnceCell::new(),
            macros: std::sync::OnceLock::new(),
            relay: Mutex::new(None),
        })
    }

    /// The extension's link, when one is connected.
    pub fn relay(&self) -> Option<Arc<crate::browser::relay::Link>> {
        self.relay
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .filter(|l| !l.is_closed())
    }

    pub fn set_relay(&self, link: Arc<crate::browser::relay::Link>) {
        *self.relay.lock().unwrap_or_else(|e| e.into_inner()) = Some(link);
    }

    /// The provider runtime over the installed plugins, with an edited
    /// `config.toml` applied first (one stat per call; a reload only when it
    /// changed).
    pub async fn providers(self: &Arc<Self>) -> Result<Arc<crate::providers::Providers>, ApiError> {
        let providers = self.open_providers().await?;
        if providers.host().config_changed() {
            let p = providers.clone();
            let _ = tokio::task::spawn_blocking(move || p.apply_config()).await;
        }
        Ok(providers)
    }

    async fn open_providers(
        self: &Arc<Self>,
    ) -> Result<Arc<crate::providers::Providers>, ApiError> {
        self.providers
            .get_or_init(|| async {
                let home = self.home.clone();
                let bridge: Arc<dyn crate::plugins::host::BrowserBridge> =
                    plugin_browser::PluginBrowser::new(self, tokio::runtime::Handle::current());
                let opened = tokio::task::spawn_blocking(move || {
                    crate::plugins::PluginHost::open(&home, Some(bridge))
                })
                .await;
                match opened {
                    Ok(Ok(host)) => Ok(Arc::new(crate::providers::Providers::new(
                        Arc::new(host),
                        crate::providers::Settings::default(),
                    ))),
                    Ok(Err(e)) => Err(e.to_string()),
                    Err(e) => Err(format!("opening plugins: {e}")),
                }
            })
            .await
            .clone()
            .map_err(|e| {
                ApiError::new(
                    ErrorCode::PluginFailed,
                    format!("the plugin host did not start: {e}"),
                )
            })
    }

    /// The macro engine: first-party packs and the user's in `<config>/macros`.
    pub fn macros(&self) -> &crate::macros::Macros {
        self.macros.get_or_init(|| {
            let budget = crate::macros::Budget {
                memory_bytes: self.limits.macro_memory_mib.saturating_mul(1 << 20),
                print_lines: self.limits.macro_print_lines,
                print_bytes: self.limits.macro_print_bytes,
            };
            crate::macros::Macros::with_budget(self.home.macros_dir(), budget)
        })
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    pub fn access(&self) -> &crate::config::Access {
        &self.access
    }

    pub fn home(&self) -> &Home {
        &self.home
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    pub(crate) fn token(&self) -> String {
        self.token.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// A new token, effective at once: the old one stops working with the
    /// next request. Written to the token file first, so a failure changes
    /// nothing.
    pub fn rotate_token(&self) -> anyhow::Result<()> {
        let fresh = crate::config::random_hex(32)?;
        crate::config::write_private(&self.home.token_path(), fresh.as_bytes())?;
        *self.token.write().unwrap_or_else(|e| e.into_inner()) = fresh;
        Ok(())
    }

    /// Starts a pairing: a new code replaces any earlier one. `only`: the
    /// one extension origin that may redeem it. Returns the code as shown
    /// and its lifetime.
    pub fn start_pairing(&self, only: Option<String>) -> anyhow::Result<(String, Duration)> {
        let p = guard::Pairing::new(Duration::from_secs(self.limits.pair_code_ttl_s), only)?;
        let out = (p.code(), p.expires_in());
        *self.pairing.lock().unwrap_or_else(|e| e.into_inner()) = Some(p);
        Ok(out)
    }

    fn redeem(&self, code: &str, origin: &str) -> guard::Redeem {
        guard::redeem(
            &mut self.pairing.lock().unwrap_or_else(|e| e.into_inner()),
            code,
            origin,
        )
    }

    pub(crate) fn limiter(&self) -> std::sync::MutexGuard<'_, guard::Limiter> {
        self.limiter.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn lock_sessions(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Slot>>> {
        // The map stays consistent under a poisoned lock: every change is one call.
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The named session; created when `create` and absent.
    pub fn session(&self, name: &str, create: bool) -> Result<Arc<Slot>, ApiError> {
        self.session_inner(name, create, false)
    }

    /// A plugin's own browser session (`plugin-<id>`), created on demand.
    pub fn plugin_session(&self, name: &str) -> Result<Arc<Slot>, ApiError> {
        self.session_inner(name, true, true)
    }

    fn session_inner(&self, name: &str, create: bool, plugin: bool) -> Result<Arc<Slot>, ApiError> {
        let mut sessions = self.lock_sessions();
        if let Some(s) = sessions.get(name) {
            return Ok(s.clone());
        }
        if create && !plugin && name.starts_with(PLUGIN_SESSION) {
            return Err(ApiError::invalid(format!(
                "session names starting with {PLUGIN_SESSION:?} belong to plugins"
            ))
            .with_hint("pick another --session name"));
        }
        if !create {
            return Err(ApiError::not_found(format!("no session {name:?}"))
                .with_hint("start one with webrig launch or webrig goto URL; list them with webrig sessions"));
        }
        if sessions.len() >= self.limits.sessions {
            return Err(ApiError::new(
                ErrorCode::LimitExceeded,
                format!("the daemon already holds {} sessions", self.limits.sessions),
            )
            .with_hint("close one with webrig --session NAME close"));
        }
        let interrupt = Arc::new(Mutex::new(None));
        let session = Arc::new(Slot {
            parallel: Arc::new(tokio::sync::Semaphore::new(
                self.limits.parallel_tabs_per_session,
            )),
            state: Arc::new(tokio::sync::Mutex::new(SessionState::new(
                name,
                &self.limits,
                interrupt.clone(),
                self.bindings.clone(),
                self.home.root().join("downloads").join(name),
            ))),
            waiting: std::sync::atomic::AtomicUsize::new(0),
            interrupt,
        });
        sessions.insert(name.to_string(), session.clone());
        Ok(session)
    }

    /// Sessions by name, sorted.
    pub fn sessions(&self) -> Vec<(String, Arc<Slot>)> {
        let sessions = self.lock_sessions();
        let sorted: BTreeMap<_, _> = sessions
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        sorted.into_iter().collect()
    }

    pub fn remove_session(&self, name: &str) {
        self.lock_sessions().remove(name);
    }

    pub fn request_shutdown(&self) {
        self.shutdown.send_replace(true);
    }

    /// Re-attaches the sessions an earlier daemon left bound to browsers that
    /// still run; forgets the others.
    async fn reattach(&self) {
        for (name, binding) in self.bindings.all() {
            let adopted = async {
                let slot = self.session(&name, true)?;
                let mut state = slot.state().lock().await;
                tokio::time::timeout(Duration::from_secs(5), state.adopt(&binding))
                    .await
                    .map_err(|_| ApiError::timeout("re-attaching took too long"))?
            };
            match adopted.await {
                Ok(()) => tracing::info!(session = %name, "re-attached to its browser"),
                Err(e) => {
                    tracing::info!(session = %name, error = %e, "its browser is gone; forgetting it");
                    self.remove_session(&name);
                    self.bindings.set(&name, None);
                    if let Some(dir) = binding.temp_profile.filter(|_| binding.owned)
                        && crate::config::trust::check_dir(&dir).is_ok()
                    {
                        let _ = std::fs::remove_dir_all(dir);
                    }
                }
            }
        }
    }

    /// Closes every session's browser.
    async fn close_all(&self) {
        let sessions: Vec<_> = self.lock_sessions().drain().map(|(_, s)| s).collect();
        let closing = sessions.into_iter().map(|s| async move {
            s.state.lock().await.shutdown().await;
        });
        futures_util::future::join_all(closing).await;
    }
}

/// Binds the CLI's Unix socket. A socket file left by a daemon that died is
/// replaced; one that answers belongs to a live daemon of this home.
async fn bind_local(home: &Home, port: u16) -> anyhow::Result<tokio::net::UnixListener> {
    let path = home.daemon_socket(port);
    // sun_path holds 108 bytes with its terminator.
    if path.as_os_str().len() > 107 {
        anyhow::bail!(
            "{} is too long for a Unix socket; set WEBRIG_HOME to a shorter directory",
            path.display()
        );
    }
    if tokio::net::UnixStream::connect(&path).await.is_ok() {
        anyhow::bail!(
            "a daemon for {} already answers on {}",
            home.root().display(),
            path.display()
        );
    }
    let _ = std::fs::remove_file(&path);
    let listener = tokio::net::UnixListener::bind(&path)
        .with_context(|| format!("cannot listen on {}", path.display()))?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
        .with_context(|| format!("setting 0600 on {}", path.display()))?;
    Ok(listener)
}

pub struct ServeOptions {
    pub port: u16,
    /// Exit when this process is gone (tests and the demo tie the daemon to themselves).
    pub watch_pid: Option<u32>,
}

/// Runs the daemon until `daemon stop`, SIGTERM/SIGINT, or the watched pid exits.
pub async fn serve(home: Home, opts: ServeOptions) -> anyhow::Result<()> {
    // Before anything in it is read: a home (token, config) another user
    // made is never adopted, and never chmodded.
    home.adopt()?;
    let limits = Limits::load(&home)?;
    let token = home.ensure_token()?;
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, opts.port));
    let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| {
        format!(
            "cannot listen on {addr}: another process holds the port (another daemon, or \
             something else); pick another with --port or WEBRIG_PORT"
        )
    })?;
    let port = listener.local_addr()?.port();
    let local = bind_local(&home, port).await?;
    let access = crate::config::Access::load(&home)?;
    let state = State::new(home, token, port, limits, access);
    state.reattach().await;
    let has_plugins = std::fs::read_dir(state.home().plugins_dir())
        .map(|mut d| d.any(|e| e.is_ok_and(|e| e.path().is_dir())))
        .unwrap_or(false);
    if has_plugins {
        // Load plugins while the first requests come in (without any, the
        // engine starts on the first plugin command: idle RSS stays small).
        let state = state.clone();
        tokio::spawn(async move {
            if let Err(e) = state.providers().await {
                tracing::warn!(error = %e.message(), "plugins");
            }
        });
    }
    tracing::info!(%addr, pid = std::process::id(), "webrig daemon listening");

    if let Some(pid) = opts.watch_pid {
        let state = state.clone();
        tokio::spawn(async move {
            let proc_dir = std::path::PathBuf::from(format!("/proc/{pid}"));
            while proc_dir.exists() {
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            tracing::info!(pid, "watched process exited; stopping");
            state.request_shutdown();
        });
    }
    {
        let state = state.clone();
        tokio::spawn(async move {
            let mut term =
                match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                    Ok(s) => s,
                    Err(_) => return,
                };
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            state.request_shutdown();
        });
    }

    let rules = listen::Rules {
        max_connections: state.limits().connections,
        header_timeout: Duration::from_millis(state.limits().header_timeout_ms),
        idle_timeout: Duration::from_millis(state.limits().idle_timeout_ms),
        body_timeout: Duration::from_millis(state.limits().body_timeout_ms),
        body_bytes: state.limits().body_bytes as u64,
    };
    let router = app(state.clone());
    let stop = state.shutdown.subscribe();
    tokio::join!(
        listen::serve(listener, router.clone(), rules, stop.clone()),
        listen::serve(local, router, rules, stop),
    );
    let _ = std::fs::remove_file(state.home().daemon_socket(port));
    state.close_all().await;
    tracing::info!("webrig daemon stopped");
    Ok(())
}
