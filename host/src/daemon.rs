//! The daemon: shared state, the HTTP app, and the command dispatcher.
//!
//! Owns who may call (token, Host, Origin), request envelopes, deadlines and the
//! per-session ordering of commands. It must not know how commands work inside.

mod dispatch;
mod routes;

use std::collections::{BTreeMap, HashMap};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use tokio::sync::watch;
use tokio::time::Instant;

use crate::browser::{SessionState, SharedSession};
use crate::config::Home;
use crate::error::{ApiError, ErrorCode};

pub use routes::app;

pub const MAX_SESSIONS: usize = 128;

/// Daemon-wide state shared by every request.
pub struct State {
    home: Home,
    token: String,
    port: u16,
    started: Instant,
    sessions: Mutex<HashMap<String, SharedSession>>,
    shutdown: watch::Sender<bool>,
}

impl State {
    pub fn new(home: Home, token: String, port: u16) -> Arc<State> {
        Arc::new(State {
            home,
            token,
            port,
            started: Instant::now(),
            sessions: Mutex::new(HashMap::new()),
            shutdown: watch::channel(false).0,
        })
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

    pub(crate) fn token(&self) -> &str {
        &self.token
    }

    fn lock_sessions(&self) -> std::sync::MutexGuard<'_, HashMap<String, SharedSession>> {
        // The map stays consistent under a poisoned lock: every change is one call.
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The named session; created when `create` and absent.
    pub fn session(&self, name: &str, create: bool) -> Result<SharedSession, ApiError> {
        let mut sessions = self.lock_sessions();
        if let Some(s) = sessions.get(name) {
            return Ok(s.clone());
        }
        if !create {
            return Err(ApiError::not_found(format!("no session {name:?}"))
                .with_hint("start one with webrig launch or webrig goto URL; list them with webrig sessions"));
        }
        if sessions.len() >= MAX_SESSIONS {
            return Err(ApiError::new(
                ErrorCode::LimitExceeded,
                format!("the daemon already holds {MAX_SESSIONS} sessions"),
            )
            .with_hint("close one with webrig --session NAME close"));
        }
        let session = Arc::new(tokio::sync::Mutex::new(SessionState::new(name)));
        sessions.insert(name.to_string(), session.clone());
        Ok(session)
    }

    /// Sessions by name, sorted.
    pub fn sessions(&self) -> Vec<(String, SharedSession)> {
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

    async fn shutdown_requested(&self) {
        let mut rx = self.shutdown.subscribe();
        let _ = rx.wait_for(|stop| *stop).await;
    }

    /// Closes every session's browser.
    async fn close_all(&self) {
        let sessions: Vec<_> = self.lock_sessions().drain().map(|(_, s)| s).collect();
        let closing = sessions.into_iter().map(|s| async move {
            s.lock().await.shutdown().await;
        });
        futures_util::future::join_all(closing).await;
    }
}

pub struct ServeOptions {
    pub port: u16,
    /// Exit when this process is gone (tests and the demo tie the daemon to themselves).
    pub watch_pid: Option<u32>,
}

/// Runs the daemon until `daemon stop`, SIGTERM/SIGINT, or the watched pid exits.
pub async fn serve(home: Home, opts: ServeOptions) -> anyhow::Result<()> {
    home.ensure_dir(None)?;
    let token = home.ensure_token()?;
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, opts.port));
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr} (is another daemon running?)"))?;
    let port = listener.local_addr()?.port();
    let state = State::new(home, token, port);
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

    let shutdown_state = state.clone();
    axum::serve(listener, app(state.clone()))
        .with_graceful_shutdown(async move { shutdown_state.shutdown_requested().await })
        .await
        .context("serving HTTP")?;
    state.close_all().await;
    tracing::info!("webrig daemon stopped");
    Ok(())
}
