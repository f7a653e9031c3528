//! The session table: one [`Slot`] per named session, each holding its
//! browser state behind a FIFO lock (one session's commands keep their
//! order), the count of commands in its line, its parallel-tab permits, the
//! leases on its tabs, and a way to interrupt a stuck command.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::browser::SessionState;
use crate::browser::cdp::Connection;
use crate::error::{ApiError, ErrorCode};

use super::State;
use super::lease::{Leased, Leases};

/// The prefix of the sessions plugins' pages live in; users cannot create
/// one (a plugin could read it), only use or close one that exists.
pub const PLUGIN_SESSION: &str = "plugin-";

/// One session as the rig holds it: its state (locked while a command
/// runs, which keeps its commands in order), how many commands wait for it,
/// and a way to interrupt a stuck command without that lock.
pub struct Slot {
    state: Arc<tokio::sync::Mutex<SessionState>>,
    /// Tabs of this session whose commands may run at once.
    parallel: Arc<tokio::sync::Semaphore>,
    waiting: AtomicUsize,
    /// Which client holds each tab, and who waits for it.
    leases: Mutex<Leases>,
    /// The browser's CDP connection, shared with the session state, reachable
    /// without the session's lock.
    interrupt: Arc<Mutex<Option<Connection>>>,
    /// Turns on each page between webrig's commands and CDP clients.
    gates: Arc<crate::browser::front::Gates>,
}

impl Slot {
    pub fn state(&self) -> &Arc<tokio::sync::Mutex<SessionState>> {
        &self.state
    }

    /// The session's lock, for work outside the scheduler's line (a CDP
    /// client's seat, an annotation capture): `busy` when it is not free
    /// by `deadline`, `not_found` when the session was closed meanwhile.
    pub async fn lock_until(
        &self,
        name: &str,
        deadline: tokio::time::Instant,
    ) -> Result<tokio::sync::OwnedMutexGuard<SessionState>, ApiError> {
        let session = tokio::time::timeout_at(deadline, self.state.clone().lock_owned())
            .await
            .map_err(|_| {
                ApiError::new(
                    crate::error::ErrorCode::Busy,
                    format!("session {name:?} stayed busy; try again"),
                )
            })?;
        if session.is_closed() {
            return Err(ApiError::not_found(format!("session {name:?} was closed")));
        }
        Ok(session)
    }

    pub fn parallel(&self) -> &Arc<tokio::sync::Semaphore> {
        &self.parallel
    }

    pub fn gates(&self) -> &Arc<crate::browser::front::Gates> {
        &self.gates
    }

    /// Counts a command into the line; `None` when more than `max` wait.
    /// The count drops when the returned guard does.
    pub fn enter(self: &Arc<Self>, max: usize) -> Option<Entered> {
        let before = self.waiting.fetch_add(1, Ordering::SeqCst);
        if before > max {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(Entered(self.clone()))
    }

    /// Commands of this session that are in line and not finished, the
    /// running one included (what `sessions` reports as `queued`).
    pub fn queued(&self) -> usize {
        self.waiting.load(Ordering::SeqCst)
    }

    /// Takes or refreshes `client`'s lease on tab `tab` (see [`Leases::take`]).
    pub fn lease(
        &self,
        tab: &str,
        client: Option<&str>,
        idle: std::time::Duration,
        queue: bool,
    ) -> Result<(), Leased> {
        self.leases.lock().unwrap_or_else(|e| e.into_inner()).take(
            tab,
            client,
            idle,
            queue,
            std::time::Instant::now(),
        )
    }

    /// The session's browser connection, without the session's lock.
    fn connection(&self) -> Option<Connection> {
        self.interrupt
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Notes on the session's browser connection that a caller was told it
    /// is gone.
    pub fn told_gone(&self) {
        if let Some(conn) = self.connection() {
            conn.told_closed();
        }
    }

    /// Drops the session's browser connection: a command stuck on it fails
    /// at once (`browser_gone`), releasing the session.
    pub fn interrupt(&self) {
        if let Some(conn) = self.connection() {
            conn.close();
        }
    }
}

/// A command counted in a slot's line until it is done, however it ends.
pub struct Entered(Arc<Slot>);

impl Drop for Entered {
    fn drop(&mut self) {
        self.0.waiting.fetch_sub(1, Ordering::SeqCst);
    }
}

impl State {
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
                self.shared.clone(),
                plugin,
            ))),
            waiting: AtomicUsize::new(0),
            leases: Mutex::new(Leases::default()),
            interrupt,
            gates: Arc::default(),
        });
        // The config's domain policy holds from the first command on.
        if let Ok(mut state) = session.state.try_lock() {
            state.set_config_policy(self.configured_policy(Some(name)));
        }
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

    /// Re-attaches the sessions an earlier daemon left bound to browsers that
    /// still run; forgets the others.
    pub async fn reattach(&self) {
        for (name, binding) in self.bindings.all() {
            let adopted = async {
                let slot = self.session(&name, true)?;
                let mut state = slot.state().lock().await;
                tokio::time::timeout(std::time::Duration::from_secs(5), state.adopt(&binding))
                    .await
                    .map_err(|_| ApiError::timeout("re-attaching took too long"))?
            };
            match adopted.await {
                Ok(()) => tracing::info!(session = %name, "re-attached to its browser"),
                Err(e) => {
                    tracing::info!(session = %name, error = %e, "its browser is gone; forgetting it");
                    self.remove_session(&name);
                    self.bindings.set(&name, None);
                    // A shared browser's profile stays while the browser
                    // runs (only this session's context is gone).
                    let running = binding.pid.is_some_and(crate::browser::launch::pid_alive);
                    if let Some(dir) = binding.temp_profile.filter(|_| binding.owned && !running)
                        && crate::config::trust::check_dir(&dir).is_ok()
                    {
                        let _ = std::fs::remove_dir_all(dir);
                    }
                }
            }
        }
    }

    /// Closes every session's browser.
    pub async fn close_all(&self) {
        let sessions: Vec<_> = self.lock_sessions().drain().map(|(_, s)| s).collect();
        let closing = sessions.into_iter().map(|s| async move {
            s.state.lock().await.shutdown().await;
        });
        futures_util::future::join_all(closing).await;
        self.shared.shutdown().await;
    }
}
