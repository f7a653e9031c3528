//! A session's browser, by who owns it: a browser of its own webrig
//! launched, a context of the shared browser, or someone else's (connected,
//! a pool's, the user's through the relay). Starting, re-attaching,
//! persisting and ending each kind; [`super::SessionState`] holds one.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use crate::browser::cdp::Connection;
use crate::browser::launch::{self, LaunchOptions, Process};
use crate::browser::sessions_json::Binding;
use crate::browser::shared::{Context, SharedBrowsers};
use crate::error::{ApiError, ErrorCode};

/// How a binding names a browser reached through its keeper's socket.
pub(crate) const PIPE_PREFIX: &str = "pipe:";

/// The endpoint of a session bound to the user's browser through the
/// extension relay (never persisted: the extension reconnects by itself,
/// and a session binds again with `connect --extension`).
pub(super) const RELAY_ENDPOINT: &str = "extension:";

/// How the endpoint of a session on a remote pool reads (`pool:NAME ENDPOINT`,
/// never the token). Never persisted: its URL holds a token, so a daemon
/// restart does not re-attach it (see docs/SCALING.md).
pub(super) const POOL_PREFIX: &str = "pool:";

pub(super) enum Owner {
    /// A browser of the session's own, started by webrig (now, or by an
    /// earlier daemon and re-attached): closed with the session, its
    /// throwaway profile deleted.
    Launched { process: Process, headless: bool },
    /// A browser context in a shared managed browser: disposed of with the
    /// session.
    Context(Context),
    /// Someone else's browser: we only disconnect.
    Connected,
}

pub struct Browser {
    pub(super) conn: Connection,
    /// Page targets the browser opened by itself (popups, target=_blank),
    /// waiting to become tabs of the session.
    pub(super) new_pages: Arc<std::sync::Mutex<Vec<String>>>,
    pub(super) owner: Owner,
    pub(super) endpoint: String,
    pub(super) executable: Option<PathBuf>,
}

impl Browser {
    pub async fn launch(opts: &LaunchOptions) -> Result<Browser, ApiError> {
        let (process, conn, socket, executable) = Process::of(launch::launch(opts).await?);
        Ok(Browser {
            conn,
            new_pages: Default::default(),
            endpoint: format!("{PIPE_PREFIX}{}", socket.display()),
            executable: Some(executable),
            owner: Owner::Launched {
                process,
                headless: !opts.headed,
            },
        })
    }

    /// A session's browser as a context of the shared browser.
    pub(super) fn context(context: Context) -> Browser {
        Browser {
            conn: context.connection().clone(),
            new_pages: Default::default(),
            endpoint: context.endpoint(),
            executable: context.executable(),
            owner: Owner::Context(context),
        }
    }

    pub async fn connect(endpoint: &str) -> Result<Browser, ApiError> {
        let ws = launch::resolve_endpoint(endpoint).await?;
        let conn = Connection::connect_ws(&ws)
            .await
            .map_err(|e| ApiError::new(ErrorCode::BrowserGone, e.to_string()))?;
        Ok(Browser {
            conn,
            new_pages: Default::default(),
            endpoint: ws,
            executable: None,
            owner: Owner::Connected,
        })
    }

    /// A browser on a remote pool, already connected (`browser::pool`).
    pub(super) fn pooled(conn: Connection, placement: &crate::browser::pool::Placement) -> Browser {
        Browser {
            conn,
            new_pages: Default::default(),
            endpoint: format!("{POOL_PREFIX}{} {}", placement.pool, placement.endpoint),
            executable: None,
            owner: Owner::Connected,
        }
    }

    /// The user's own browser through the extension relay; new tabs go to
    /// the tab group `group`.
    pub fn relay(link: &Arc<crate::browser::relay::Link>, group: &str) -> Browser {
        Browser {
            conn: link.connection(group),
            new_pages: Default::default(),
            endpoint: RELAY_ENDPOINT.into(),
            executable: None,
            owner: Owner::Connected,
        }
    }

    /// Re-attaches to a browser (or a shared browser's context) an earlier
    /// daemon bound to a session.
    pub async fn adopt(
        binding: &Binding,
        shared: &Arc<SharedBrowsers>,
    ) -> Result<Browser, ApiError> {
        if let Some(context) = &binding.context {
            return Ok(Browser::context(shared.adopt(binding, context).await?));
        }
        if binding.owned && !binding.pid.is_some_and(launch::pid_alive) {
            return Err(ApiError::new(
                ErrorCode::BrowserGone,
                "the browser is no longer running",
            ));
        }
        let conn = match binding.endpoint.strip_prefix(PIPE_PREFIX) {
            Some(socket) => {
                crate::browser::shared::connect_keeper(std::path::Path::new(socket)).await?
            }
            None => Connection::connect_ws(&binding.endpoint)
                .await
                .map_err(|e| ApiError::new(ErrorCode::BrowserGone, e.to_string()))?,
        };
        let owner = if binding.owned {
            Owner::Launched {
                process: Process {
                    keeper: None,
                    pid: binding.pid,
                    temp_profile: binding.temp_profile.clone(),
                },
                headless: binding.headless,
            }
        } else {
            Owner::Connected
        };
        Ok(Browser {
            conn,
            new_pages: Default::default(),
            owner,
            endpoint: binding.endpoint.clone(),
            executable: binding.executable.clone(),
        })
    }

    pub(super) async fn binding(&self) -> Option<Binding> {
        let (owned, pid, temp_profile, headless) = match &self.owner {
            // A pool's URL holds its token: never persisted.
            _ if self.endpoint == RELAY_ENDPOINT || self.endpoint.starts_with(POOL_PREFIX) => {
                return None;
            }
            Owner::Context(context) => return Some(context.binding().await),
            Owner::Launched { process, headless } => {
                (true, process.pid, process.temp_profile.clone(), *headless)
            }
            Owner::Connected => (false, None, None, false),
        };
        Some(Binding {
            endpoint: self.endpoint.clone(),
            owned,
            pid,
            temp_profile,
            headless,
            executable: self.executable.clone(),
            context: None,
            ..Binding::default()
        })
    }

    pub(super) fn is_gone(&mut self) -> bool {
        if self.conn.is_closed() {
            return true;
        }
        match &mut self.owner {
            Owner::Launched { process, .. } => !process.alive(),
            Owner::Context(context) => !context.alive(),
            Owner::Connected => false,
        }
    }

    pub(super) fn headless(&self) -> bool {
        match &self.owner {
            Owner::Launched { headless, .. } => *headless,
            Owner::Context(context) => context.headless(),
            Owner::Connected => false,
        }
    }

    /// Closes a launched browser (politely, then by force), disposes of a
    /// context, or disconnects.
    pub(super) async fn shutdown(self) {
        match self.owner {
            Owner::Launched { mut process, .. } => process.stop(&self.conn).await,
            Owner::Context(context) => context.dispose().await,
            Owner::Connected => {
                // A pool's browser was made for this session: end it, so the
                // pool frees its slot now.
                if self.endpoint.starts_with(POOL_PREFIX) {
                    let _ = tokio::time::timeout(
                        Duration::from_millis(1000),
                        self.conn.call(None, "Browser.close", json!({})),
                    )
                    .await;
                }
                self.conn.close()
            }
        }
    }
}
