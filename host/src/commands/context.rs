//! What a handler gets: the daemon, its session (locked for the command's
//! duration, which is what keeps one session's commands in order), the tab the
//! request named, and the deadline.

use std::sync::Arc;

use tokio::sync::OwnedMutexGuard;
use tokio::time::Instant;

use crate::browser::{SessionState, Tab};
use crate::error::ApiError;
use crate::rig::State;

pub struct Cx {
    state: Arc<State>,
    session: Option<OwnedMutexGuard<SessionState>>,
    tab: Option<String>,
    /// For per-tab commands: the tab, resolved and held for the command.
    held: Option<HeldTab>,
    deadline: Instant,
    /// The caller may name local files (see `config::Access`).
    local_files: bool,
    /// Where progress events go (a streaming caller), if anywhere.
    events: Option<crate::workflows::Events>,
    /// The session the request named (`default` when none), for commands
    /// that find their session themselves (daemon-scope ones).
    session_name: String,
}

/// A tab a per-tab command holds: its queue lock and a parallel slot.
pub struct HeldTab {
    tab: Tab,
    _queue: OwnedMutexGuard<()>,
    _parallel: tokio::sync::OwnedSemaphorePermit,
    /// The page, not shared with a CDP client's call while the command runs.
    _turn: tokio::sync::OwnedRwLockWriteGuard<()>,
}

impl HeldTab {
    pub fn tab(&self) -> &Tab {
        &self.tab
    }

    pub fn new(
        tab: Tab,
        queue: OwnedMutexGuard<()>,
        parallel: tokio::sync::OwnedSemaphorePermit,
        turn: tokio::sync::OwnedRwLockWriteGuard<()>,
    ) -> Self {
        HeldTab {
            tab,
            _queue: queue,
            _parallel: parallel,
            _turn: turn,
        }
    }
}

impl Cx {
    pub fn new(
        state: Arc<State>,
        session: Option<OwnedMutexGuard<SessionState>>,
        tab: Option<String>,
        deadline: Instant,
    ) -> Self {
        Cx {
            state,
            session,
            tab,
            held: None,
            deadline,
            local_files: false,
            events: None,
            session_name: "default".into(),
        }
    }

    /// A context for a per-tab command (no session lock).
    pub fn for_tab(state: Arc<State>, held: HeldTab, deadline: Instant) -> Self {
        Cx {
            state,
            session: None,
            tab: None,
            held: Some(held),
            deadline,
            local_files: false,
            events: None,
            session_name: "default".into(),
        }
    }

    /// The session the request named.
    pub fn with_session_name(mut self, name: &str) -> Self {
        self.session_name = name.to_string();
        self
    }

    pub fn session_name(&self) -> &str {
        &self.session_name
    }

    /// The tab the request named, if it named one.
    pub fn tab_id(&self) -> Option<&str> {
        self.tab.as_deref()
    }

    /// Lets this command name local files (the caller is this user's own
    /// process, or `[access] http_local_files` allows it).
    pub fn with_local_files(mut self, allowed: bool) -> Self {
        self.local_files = allowed;
        self
    }

    /// Refuses `what` (a local path or file URL) unless the caller may name
    /// local files.
    /// A daemon-scope copy (same state, deadline and file access; no
    /// session), for running another command's logic from this one.
    pub fn fork(&self) -> Cx {
        Cx::new(self.state.clone(), None, None, self.deadline).with_local_files(self.local_files)
    }

    pub fn with_events(mut self, events: Option<crate::workflows::Events>) -> Self {
        self.events = events;
        self
    }

    /// The caller's progress channel (None: nobody is listening).
    pub fn events(&self) -> Option<crate::workflows::Events> {
        self.events.clone()
    }

    pub fn require_local_files(&self, what: &str) -> Result<(), ApiError> {
        if self.local_files {
            return Ok(());
        }
        Err(ApiError::new(
            crate::error::ErrorCode::Forbidden,
            format!("{what} is refused over the HTTP API: it names a local file"),
        )
        .with_hint(
            "run it with the webrig CLI (its local socket may), or set [access] \
             http_local_files = true in config.toml",
        ))
    }

    pub fn state(&self) -> &Arc<State> {
        &self.state
    }

    /// The largest result the command may return (`limits.result_bytes`):
    /// commands that can measure in the page refuse there, before the value
    /// crosses CDP.
    pub fn result_bytes(&self) -> usize {
        self.state.limits().result_bytes
    }

    /// When the command must have finished; waits inside a handler end here.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    pub fn session(&mut self) -> Result<&mut SessionState, ApiError> {
        self.session
            .as_deref_mut()
            .ok_or_else(|| ApiError::internal("this command runs without a session"))
    }

    /// The tab the request named, else the session's active tab (opened, and
    /// the browser launched, when there is none).
    pub async fn tab(&mut self) -> Result<Tab, ApiError> {
        if let Some(held) = &self.held {
            return Ok(held.tab.clone());
        }
        let id = self.tab.clone();
        self.session()?.tab(id.as_deref()).await
    }
}
