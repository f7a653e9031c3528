//! The daemon's doors: loopback TCP and the owner-only Unix socket (HTTP
//! for the CLI and any client), the `/mcp` mount, and the extension's
//! WebSocket. Owns who may call (token, Host, Origin, pairing redemption),
//! the rate limits and connection limits, and request envelopes; hands every
//! command to the scheduler (`commands::dispatch`) and keeps no state of
//! its own beyond the limiter. Sessions, the plugin host and pairing codes
//! live in the rig (`crate::rig`).

mod cdp;
pub mod extension;
mod guard;
mod listen;
mod peer;
mod routes;
mod upgrade;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;

use crate::config::{Home, Limits};
use crate::rig::State;

pub use routes::app;

/// What the door's handlers share: the rig, and the door's own rate limiter.
pub struct Door {
    rig: Arc<State>,
    limiter: Mutex<guard::Limiter>,
    /// Room for CDP front-end clients (`cdp`).
    cdp_clients: Arc<tokio::sync::Semaphore>,
}

impl Door {
    fn new(rig: Arc<State>) -> Arc<Door> {
        Arc::new(Door {
            rig,
            limiter: Mutex::new(guard::Limiter::default()),
            cdp_clients: Arc::new(tokio::sync::Semaphore::new(cdp::MAX_CLIENTS)),
        })
    }

    fn limiter(&self) -> std::sync::MutexGuard<'_, guard::Limiter> {
        self.limiter.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl std::ops::Deref for Door {
    type Target = State;

    fn deref(&self) -> &State {
        &self.rig
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
    crate::rig::check_config(&home, &access)?;
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
    let stop = state.shutdown_requested();
    tokio::join!(
        listen::serve(listener, router.clone(), rules, stop.clone()),
        listen::serve(local, router, rules, stop),
    );
    let _ = std::fs::remove_file(state.home().daemon_socket(port));
    state.close_all().await;
    tracing::info!("webrig daemon stopped");
    Ok(())
}
