//! Shared managed browsers: one Chromium per kind (headless, headed) that
//! holds many sessions, each in a browser context of its own
//! (`Target.createBrowserContext`: its own cookies, storage, cache and
//! permissions), seen through a scope of the browser's connection
//! (`cdp::Connection::scope`).
//!
//! Owns the shared browsers' lifetime: launched on the first context of a
//! kind, relaunched after a crash by the next context asked for, closed
//! with the last context. It must not know about sessions or commands.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;

use super::cdp::Connection;
use super::launch::{self, LaunchOptions, Process};
use super::sessions_json::Binding;
use crate::error::{ApiError, ErrorCode};

/// How long disposing a context may take before the session closes anyway.
const DISPOSE_PATIENCE: Duration = Duration::from_secs(5);

/// One shared browser.
pub struct Host {
    conn: Connection,
    process: tokio::sync::Mutex<Process>,
    pid: Option<u32>,
    socket: PathBuf,
    executable: Option<PathBuf>,
    headless: bool,
    contexts: AtomicUsize,
}

impl Host {
    fn new(
        conn: Connection,
        process: Process,
        socket: PathBuf,
        executable: Option<PathBuf>,
        headless: bool,
    ) -> Arc<Host> {
        Arc::new(Host {
            conn,
            // Kept beside the process (behind an async lock) so liveness
            // checks need no lock.
            pid: process.pid,
            process: tokio::sync::Mutex::new(process),
            socket,
            executable,
            headless,
            contexts: AtomicUsize::new(0),
        })
    }

    fn alive(&self) -> bool {
        !self.conn.is_closed() && self.pid.is_none_or(launch::pid_alive)
    }
}

/// The shared browsers of one daemon, by kind.
#[derive(Default)]
pub struct SharedBrowsers {
    /// Headless at 0, headed at 1.
    kinds: tokio::sync::Mutex<[Option<Arc<Host>>; 2]>,
}

/// A session's browser context in a shared browser.
pub struct Context {
    id: String,
    conn: Connection,
    host: Arc<Host>,
    browsers: Arc<SharedBrowsers>,
}

fn kind(headed: bool) -> usize {
    usize::from(headed)
}

fn gone(e: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::BrowserGone, e.to_string())
}

impl SharedBrowsers {
    pub fn new() -> Arc<SharedBrowsers> {
        Arc::default()
    }

    /// Whether a live shared browser of this kind runs (a new context then
    /// needs no browser started).
    pub async fn running(&self, headed: bool) -> bool {
        self.kinds.lock().await[kind(headed)]
            .as_ref()
            .is_some_and(|h| h.alive())
    }

    /// A new context in the shared browser of this kind, launching (or,
    /// after a crash, relaunching) it first when needed.
    /// `proxy`: the context's own proxy (`createBrowserContext` fields).
    pub async fn open(
        self: &Arc<Self>,
        headed: bool,
        proxy: Option<serde_json::Value>,
    ) -> Result<Context, ApiError> {
        let mut kinds = self.kinds.lock().await;
        let slot = &mut kinds[kind(headed)];
        let host = match slot.as_ref().filter(|h| h.alive()) {
            Some(host) => host.clone(),
            None => {
                if let Some(dead) = slot.take() {
                    // Its contexts are gone with it; what is left is its profile.
                    dead.process.lock().await.stop(&dead.conn).await;
                }
                let opts = LaunchOptions {
                    headed,
                    ..LaunchOptions::default()
                };
                let (process, conn, socket, executable) = Process::of(launch::launch(&opts).await?);
                let host = Host::new(conn, process, socket, Some(executable), !headed);
                slot.insert(host).clone()
            }
        };
        let made = host
            .conn
            .call(None, "Target.createBrowserContext", {
                let mut p = json!({ "disposeOnDetach": false });
                if let Some(serde_json::Value::Object(fields)) = proxy {
                    p.as_object_mut()
                        .into_iter()
                        .for_each(|o| o.extend(fields.clone()));
                }
                p
            })
            .await
            .map_err(gone)?;
        let id = made["browserContextId"]
            .as_str()
            .ok_or_else(|| ApiError::internal("Target.createBrowserContext returned no id"))?
            .to_string();
        Ok(self.context(host, id))
    }

    fn context(self: &Arc<Self>, host: Arc<Host>, id: String) -> Context {
        host.contexts.fetch_add(1, Ordering::SeqCst);
        Context {
            conn: host.conn.scope(&id),
            id,
            host,
            browsers: self.clone(),
        }
    }

    /// Re-attaches to the context an earlier daemon bound a session to, in
    /// the shared browser it left running (connected to once for all).
    pub async fn adopt(
        self: &Arc<Self>,
        binding: &Binding,
        context: &str,
    ) -> Result<Context, ApiError> {
        let mut kinds = self.kinds.lock().await;
        let slot = &mut kinds[kind(!binding.headless)];
        let socket = binding
            .endpoint
            .strip_prefix(super::session::PIPE_PREFIX)
            .map(PathBuf::from)
            .ok_or_else(|| gone("a shared browser is reached through its keeper"))?;
        let host = match slot.as_ref().filter(|h| h.alive()) {
            Some(host) if host.socket == socket => host.clone(),
            Some(_) => return Err(gone("another shared browser of its kind runs")),
            None => {
                if !binding.pid.is_some_and(launch::pid_alive) {
                    return Err(gone("the shared browser is no longer running"));
                }
                let process = Process {
                    keeper: None,
                    pid: binding.pid,
                    temp_profile: binding.temp_profile.clone(),
                };
                let conn = connect_keeper(&socket).await?;
                let executable = binding.executable.clone();
                let host = Host::new(conn, process, socket, executable, binding.headless);
                slot.insert(host).clone()
            }
        };
        let contexts = host
            .conn
            .call(None, "Target.getBrowserContexts", json!({}))
            .await
            .map_err(gone)?;
        let known = contexts["browserContextIds"]
            .as_array()
            .is_some_and(|ids| ids.iter().any(|id| id == context));
        if !known {
            return Err(gone("its browser context is gone"));
        }
        Ok(self.context(host, context.to_string()))
    }

    /// Closes every shared browser (the daemon is stopping).
    pub async fn shutdown(&self) {
        let mut kinds = self.kinds.lock().await;
        for host in kinds.iter_mut().filter_map(Option::take) {
            host.process.lock().await.stop(&host.conn).await;
        }
    }
}

/// Connects to a browser keeper's socket that sessions.json names: only
/// to one in a folder of ours alone, that we made.
pub async fn connect_keeper(socket: &std::path::Path) -> Result<Connection, ApiError> {
    crate::config::trust::check_socket(socket).map_err(gone)?;
    Connection::connect_unix(socket).await.map_err(gone)
}

impl Context {
    /// The context's scope of the shared browser's connection.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn alive(&self) -> bool {
        !self.conn.is_closed() && self.host.alive()
    }

    pub fn pid(&self) -> Option<u32> {
        self.host.pid
    }

    pub fn headless(&self) -> bool {
        self.host.headless
    }

    pub fn executable(&self) -> Option<PathBuf> {
        self.host.executable.clone()
    }

    /// The shared browser's keeper socket, as sessions name endpoints.
    pub fn endpoint(&self) -> String {
        format!(
            "{}{}",
            super::session::PIPE_PREFIX,
            self.host.socket.display()
        )
    }

    /// How sessions.json names this context: the shared browser's keeper
    /// and the context's id.
    pub async fn binding(&self) -> Binding {
        Binding {
            endpoint: self.endpoint(),
            owned: true,
            pid: self.host.pid,
            temp_profile: self.host.process.lock().await.temp_profile.clone(),
            headless: self.host.headless,
            executable: self.host.executable.clone(),
            context: Some(self.id.clone()),
            ..Binding::default()
        }
    }

    /// Disposes of the context (its pages, cookies and storage go with it);
    /// the shared browser closes with its last context.
    pub async fn dispose(self) {
        let Context {
            id,
            conn,
            host,
            browsers,
        } = self;
        conn.close();
        if host.alive() {
            let _ = tokio::time::timeout(
                DISPOSE_PATIENCE,
                host.conn.call(
                    None,
                    "Target.disposeBrowserContext",
                    json!({ "browserContextId": id }),
                ),
            )
            .await;
        }
        drop(conn);
        if host.contexts.fetch_sub(1, Ordering::SeqCst) > 1 {
            return;
        }
        let mut kinds = browsers.kinds.lock().await;
        let slot = &mut kinds[kind(!host.headless)];
        let last = slot.as_ref().is_some_and(|h| Arc::ptr_eq(h, &host))
            && host.contexts.load(Ordering::SeqCst) == 0;
        if last {
            slot.take();
            host.process.lock().await.stop(&host.conn).await;
        } else if !slot.as_ref().is_some_and(|h| Arc::ptr_eq(h, &host)) {
            // A crashed browser already replaced: its profile is left to clear.
            host.process.lock().await.stop(&host.conn).await;
        }
    }
}
