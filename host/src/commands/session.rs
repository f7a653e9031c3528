//! Session commands: launch, connect, sessions, close.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Command, Cx, Scope};
use crate::browser::launch::LaunchOptions;
use crate::browser::session::{SessionInfo, TabInfo};
use crate::error::ApiError;

/// Start a managed Chromium for the session (headless unless --headed).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Launch {
    /// Show the browser window.
    #[arg(long)]
    #[serde(default)]
    pub headed: bool,
    /// Use (and keep) this profile directory instead of a throwaway one.
    #[arg(long, value_name = "DIR")]
    pub profile: Option<PathBuf>,
    /// The browser executable (else WEBRIG_BROWSER, else chromium/chrome on PATH).
    #[arg(long, value_name = "PATH")]
    pub browser_path: Option<PathBuf>,
    /// A browser of the session's own (full process isolation) instead of
    /// a browser context in the daemon's shared browser; implied by
    /// --profile and --browser-path.
    #[arg(long)]
    #[serde(default)]
    pub own_browser: bool,
    /// Use your own browser through the paired webrig extension instead of
    /// starting one (the same as `connect --extension`).
    #[arg(long, conflicts_with_all = ["headed", "profile", "browser_path", "own_browser"])]
    #[serde(default)]
    pub extension: bool,
    /// Put the browser on this remote pool (`[[pool]]` in config.toml);
    /// without it, a pool with `default = true` is used, else a local one.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["headed", "profile", "browser_path", "extension"])]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<String>,
    /// Import your logins (cookies) from a browser of yours before the
    /// first page: chrome, chromium or brave (`:PROFILE` names a profile
    /// folder or its name; default: the one last used), or the path of a
    /// profile, a user data folder or a Cookies file.
    #[arg(long, value_name = "BROWSER[:PROFILE]|PATH", conflicts_with_all = ["extension", "pool"])]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cookies_from: Option<String>,
    /// auto (the default): import the cookies that pass the checks;
    /// required: also fail with auth_required when none does; off: none.
    #[arg(long, value_enum, value_name = "POLICY")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cookies_policy: Option<crate::rig::logins::CookiesPolicy>,
    /// Hosts the session's pages may reach, comma-separated
    /// (`example.com,*.example.org`, `host:port`); every other host is
    /// refused. On top of `[policy]` in config.toml: the stricter holds.
    #[arg(long, value_name = "HOSTS")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    /// Hosts the session's pages may not reach (beats --allow).
    #[arg(long, value_name = "HOSTS")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub block: Vec<String>,
    /// Send the browser's requests through this proxy
    /// (`http://host:port`, `https://…`, `socks5://…`); no credentials in it.
    #[arg(long, value_name = "URL", conflicts_with = "extension")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy: Option<String>,
    /// Hosts that skip the proxy (`example.com,*.internal,<-loopback>`).
    #[arg(long, value_name = "HOSTS", requires = "proxy")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proxy_bypass: Vec<String>,
    /// A file of yours (mode 600) holding the proxy's `user:password`.
    #[arg(
        long,
        value_name = "FILE",
        requires = "proxy",
        conflicts_with = "proxy_auth_env"
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_auth_file: Option<PathBuf>,
    /// An environment variable of the daemon holding the proxy's `user:password`.
    #[arg(long, value_name = "VAR", requires = "proxy")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_auth_env: Option<String>,
    /// The country the proxy exits in (ISO 3166 code, e.g. `DE`), if you
    /// know it: the coherence check warns when the time zone or locale
    /// disagree with it.
    #[arg(long, value_name = "CC", requires = "proxy")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy_country: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Started {
    pub session: SessionInfo,
    pub tabs: Vec<TabInfo>,
    /// What `--cookies-from` imported (never a cookie's value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logins: Option<crate::rig::logins::LoginsReport>,
}

impl Command for Launch {
    const NAME: &'static str = "launch";
    const ABOUT: &'static str = "Start a managed Chromium for the session";
    const SCOPE: Scope = Scope::SessionCreate;
    type Output = Started;

    fn prepare(&mut self) -> Result<(), ApiError> {
        crate::rig::logins::absolutize(&mut self.cookies_from)?;
        absolutize(&mut self.profile)?;
        absolutize(&mut self.proxy_auth_file)?;
        absolutize(&mut self.browser_path)
    }

    async fn run(self, mut cx: Cx) -> Result<Started, ApiError> {
        // Without --cookies-from, `[session] cookies_from` holds for a
        // local launch by the CLI: an HTTP API caller never gets the
        // user's logins from config alone, nor does a remote pool.
        let defaults = &cx.state().access().session;
        let configured = self.cookies_from.is_none()
            && defaults.cookies_from.is_some()
            && !self.extension
            && cx.require_local_files("").is_ok();
        let (from, policy) = if configured {
            (
                defaults.cookies_from.clone(),
                self.cookies_policy.or(defaults.cookies_policy),
            )
        } else {
            (self.cookies_from.clone(), self.cookies_policy)
        };
        let wanted =
            crate::rig::logins::wanted(from.as_deref(), policy, self.extension).and_then(|w| {
                if w.is_some() {
                    cx.require_local_files("--cookies-from")?;
                }
                Ok(w)
            });
        let logins = match wanted {
            Ok(w) => w,
            Err(e) => {
                // Refused before anything started: no session stays behind.
                let state = cx.state().clone();
                let session = cx.session()?;
                if !session.has_browser() {
                    crate::rig::logins::discard(&state, session).await;
                }
                return Err(e);
            }
        };
        if self.proxy_auth_file.is_some() {
            cx.require_local_files("--proxy-auth-file")?;
        }
        if self.proxy_auth_env.is_some() {
            cx.require_local_files("--proxy-auth-env (it reads the daemon's environment)")?;
        }
        if self.proxy.is_none()
            && (!self.proxy_bypass.is_empty()
                || self.proxy_auth_file.is_some()
                || self.proxy_auth_env.is_some()
                || self.proxy_country.is_some())
        {
            return Err(ApiError::invalid(
                "--proxy-bypass, --proxy-auth-file, --proxy-auth-env and --proxy-country need --proxy",
            ));
        }
        let proxy_country = match self.proxy_country.as_deref().map(str::trim) {
            Some(c) if c.len() == 2 && c.bytes().all(|b| b.is_ascii_alphabetic()) => {
                Some(c.to_ascii_uppercase())
            }
            Some(c) => {
                return Err(ApiError::invalid(format!(
                    "--proxy-country: {:?} is not a two-letter country code (DE, US, JP)",
                    c.chars().take(16).collect::<String>()
                )));
            }
            None => None,
        };
        if self.proxy.is_some() && self.extension {
            return Err(ApiError::invalid(
                "--proxy is for a browser webrig starts: your own browser (--extension) keeps \
                 its own proxy settings",
            ));
        }
        let proxy = match &self.proxy {
            Some(url) => Some(crate::browser::proxy::Proxy::parse(
                url,
                &self.proxy_bypass,
                crate::browser::proxy::credentials(
                    self.proxy_auth_file.as_deref(),
                    self.proxy_auth_env.as_deref(),
                )?,
            )?),
            None => None,
        };
        {
            let session = cx.session()?;
            session.restrict(&self.allow, &self.block)?;
            session.set_proxy(proxy);
            session.devtools().signals.set_proxy_country(proxy_country);
        }
        if self.extension {
            let link = relay_link(&cx)?;
            let session = cx.session()?;
            session.connect_extension(&link).await?;
            return started(session).await;
        }
        let local = self.headed || self.profile.is_some() || self.browser_path.is_some();
        if self.pool.is_some() && local {
            return Err(ApiError::invalid(
                "--pool runs the browser remotely: it takes no --headed, --profile or --browser-path",
            ));
        }
        let pool = match &self.pool {
            Some(name) => crate::rig::pool::find(cx.state(), Some(name))?,
            None if !local => crate::rig::pool::find(cx.state(), None)?,
            None => None,
        };
        if let Some(pool) = pool {
            // The configured default is for local browsers only.
            if logins.is_some() && !configured {
                return Err(crate::rig::logins::not_on_a_pool());
            }
            let state = cx.state().clone();
            let pool_proxy = match &self.proxy {
                Some(_) => None,
                None => crate::rig::pool::proxy(&pool, state.home())?,
            };
            let session = cx.session()?;
            if let Some(layer) = crate::rig::pool::layer(&pool)? {
                session.hold_to(layer);
            }
            if pool_proxy.is_some() {
                session.set_proxy(pool_proxy);
            }
            if let Err(e) = state.place(session, &pool).await {
                // Never leave a session made for this launch behind empty.
                if !session.has_browser() {
                    let name = session.name().to_string();
                    session.shutdown().await;
                    state.remove_session(&name);
                }
                return Err(e);
            }
            return started(session).await;
        }
        if self.browser_path.is_some() {
            cx.require_local_files("--browser-path (it runs an executable)")?;
        }
        if self.profile.is_some() {
            cx.require_local_files("--profile")?;
        }
        let opts = LaunchOptions {
            headed: self.headed,
            profile: self.profile,
            browser_path: self.browser_path,
            extra_args: Vec::new(),
            own_browser: self.own_browser,
        };
        let state = cx.state().clone();
        let logins = match logins {
            // Read and checked before a browser starts: a bad store starts none.
            Some(wanted) => match crate::rig::logins::read(wanted).await {
                Ok(prepared) => Some(prepared),
                Err(e) => {
                    let session = cx.session()?;
                    if !session.has_browser() {
                        crate::rig::logins::discard(&state, session).await;
                    }
                    return Err(e);
                }
            },
            None => None,
        };
        let session = cx.session()?;
        session.launch(&opts).await?;
        let report = match logins {
            Some(prepared) => match crate::rig::logins::load(session, prepared).await {
                Ok(report) => Some(report),
                Err(e) => {
                    crate::rig::logins::discard(&state, session).await;
                    return Err(e);
                }
            },
            None => None,
        };
        let mut out = started(session).await?;
        out.logins = report;
        Ok(out)
    }

    fn human(out: &Started) -> String {
        if let Some(p) = &out.session.pool {
            return format!(
                "session {} launched on pool {} ({})",
                out.session.name, p.pool, p.endpoint
            );
        }
        let mut s = format!(
            "session {} launched {}",
            out.session.name,
            out.session.executable.as_deref().unwrap_or("a browser")
        );
        if let Some(policy) = &out.session.policy {
            s.push_str(&format!("\npolicy: {}", policy.human()));
        }
        if let Some(proxy) = &out.session.proxy {
            s.push_str(&format!("\nproxy: {}", proxy.human()));
        }
        if let Some(logins) = &out.logins {
            s.push('\n');
            s.push_str(&logins.human());
        }
        s
    }
}

/// The extension's link, or why there is none.
pub fn relay_link(cx: &Cx) -> Result<std::sync::Arc<crate::browser::relay::Link>, ApiError> {
    cx.state().relay().ok_or_else(|| {
        ApiError::new(
            crate::error::ErrorCode::BrowserGone,
            "the webrig extension is not connected",
        )
        .with_hint(
            "load it (webrig extension path), pair it (webrig pair), and keep the browser open",
        )
    })
}

async fn started(session: &mut crate::browser::SessionState) -> Result<Started, ApiError> {
    let tabs = session.list_tabs().await?;
    Ok(Started {
        session: session.info(),
        tabs,
        logins: None,
    })
}

/// Attach the session to a running browser (http://host:port or ws://…),
/// or with --extension to your own Chrome through the webrig extension.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Connect {
    /// `http://127.0.0.1:9222` (a browser started with --remote-debugging-port) or its `ws://` URL.
    #[arg(required_unless_present = "extension")]
    #[serde(default)]
    pub endpoint: Option<String>,
    /// Your own browser, through the paired webrig extension: new tabs go
    /// to the session's tab group; `borrow` takes tabs you have open.
    #[arg(long, conflicts_with = "endpoint")]
    #[serde(default)]
    pub extension: bool,
    /// Hosts the session's pages may reach, comma-separated (see launch).
    #[arg(long, value_name = "HOSTS")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    /// Hosts the session's pages may not reach (beats --allow).
    #[arg(long, value_name = "HOSTS")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub block: Vec<String>,
}

impl Command for Connect {
    const NAME: &'static str = "connect";
    const ABOUT: &'static str = "Attach the session to a running browser";
    const SCOPE: Scope = Scope::SessionCreate;
    type Output = Started;

    async fn run(self, mut cx: Cx) -> Result<Started, ApiError> {
        cx.session()?.restrict(&self.allow, &self.block)?;
        if self.extension {
            let link = relay_link(&cx)?;
            let session = cx.session()?;
            session.connect_extension(&link).await?;
            return started(session).await;
        }
        let endpoint = self
            .endpoint
            .ok_or_else(|| ApiError::invalid("connect needs an endpoint, or --extension"))?;
        let session = cx.session()?;
        session.connect(&endpoint).await?;
        started(session).await
    }

    fn human(out: &Started) -> String {
        format!(
            "session {} connected, {} tab(s)",
            out.session.name,
            out.tabs.len()
        )
    }
}

/// List the daemon's sessions.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Sessions {}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct SessionList {
    pub sessions: Vec<SessionEntry>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct SessionEntry {
    pub name: String,
    /// True while a command of this session is running (details then unknown).
    pub busy: bool,
    /// Commands of this session in line and not finished, the running one
    /// included (`close` is not counted). A command counted here has its
    /// place: one sent later runs after it.
    pub queued: usize,
    /// Details, when the session was idle.
    pub info: Option<SessionInfo>,
    /// Where what the browser claims disagrees (user agent and platform,
    /// languages, locale, time zone, geolocation, proxy exit), as its
    /// pages last saw it; empty when all agrees or the session was busy.
    #[serde(default)]
    pub warnings: Vec<crate::browser::signals::Warning>,
}

impl Command for Sessions {
    const NAME: &'static str = "sessions";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "List sessions";
    const SCOPE: Scope = Scope::Daemon;
    type Output = SessionList;

    async fn run(self, cx: Cx) -> Result<SessionList, ApiError> {
        let mut sessions = Vec::new();
        for (name, slot) in cx.state().sessions() {
            // Never wait behind a running command just to list.
            let queued = slot.queued();
            let entry = match slot.state().try_lock() {
                Ok(mut state) => {
                    let shared = state.devtools().clone();
                    SessionEntry {
                        info: Some(state.info()),
                        name,
                        busy: false,
                        queued,
                        warnings: shared.signals.warnings(&shared.emulation()),
                    }
                }
                Err(_) => SessionEntry {
                    info: None,
                    name,
                    busy: true,
                    queued,
                    warnings: Vec::new(),
                },
            };
            sessions.push(entry);
        }
        Ok(SessionList { sessions })
    }

    fn human(out: &SessionList) -> String {
        if out.sessions.is_empty() {
            return "no sessions".into();
        }
        out.sessions
            .iter()
            .map(|s| {
                let line = match &s.info {
                    Some(info) => format!("{}\t{}\t{} tab(s)", s.name, info.browser, info.tabs),
                    None => format!("{}\tbusy", s.name),
                };
                let held = s.info.iter().flat_map(|i| {
                    let policy = i
                        .policy
                        .as_ref()
                        .map(|p| format!("  policy: {}", p.human()));
                    let proxy = i.proxy.as_ref().map(|p| format!("  proxy: {}", p.human()));
                    policy.into_iter().chain(proxy)
                });
                std::iter::once(line)
                    .chain(held)
                    .chain(
                        s.warnings
                            .iter()
                            .map(|w| format!("  warning: {}", w.message)),
                    )
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// End the session: close its browser (or disconnect from a connected one).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Close {}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Closed {
    pub session: String,
    /// Dialogs that were open on the session's tabs (gone with them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dismissed_dialogs: Vec<TabDialog>,
    /// What became of the session's downloads (none for the user's own
    /// browser: its downloads are its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downloads: Option<crate::browser::devtools::downloads::Leftovers>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TabDialog {
    pub tab: String,
    pub dialog: crate::browser::tab::Dialog,
}

impl Command for Close {
    const NAME: &'static str = "close";
    const DESTRUCTIVE: bool = true;
    const ABOUT: &'static str = "End the session and close its browser";
    const SCOPE: Scope = Scope::Session;
    const RESERVED: bool = true;
    type Output = Closed;

    async fn run(self, mut cx: Cx) -> Result<Closed, ApiError> {
        let session = cx.session()?;
        let name = session.name().to_string();
        let dismissed_dialogs = session
            .open_dialogs()
            .into_iter()
            .map(|(tab, dialog)| TabDialog { tab, dialog })
            .collect();
        session.shutdown().await;
        // Partial downloads go; completed ones (each asked for by an agent
        // action, by default) stay and are listed.
        let shared = session.devtools().clone();
        let downloads = (!shared.is_relay()).then(|| shared.downloads.close());
        cx.state().remove_session(&name);
        Ok(Closed {
            session: name,
            dismissed_dialogs,
            downloads,
        })
    }

    fn human(out: &Closed) -> String {
        let mut s = format!("session {} closed", out.session);
        if let Some(d) = out.downloads.as_ref().filter(|d| !d.kept.is_empty()) {
            s.push_str(&format!(
                "; {} download(s) kept in {}",
                d.kept.len(),
                d.folder.display()
            ));
        }
        s
    }
}

/// Makes a client-side relative path absolute against the CLI's directory.
/// [`absolutize`] for a path that is always given.
pub(super) fn absolutize_given(path: &mut PathBuf) -> Result<(), ApiError> {
    let mut p = Some(std::mem::take(path));
    absolutize(&mut p)?;
    *path = p.unwrap_or_default();
    Ok(())
}

pub(super) fn absolutize(path: &mut Option<PathBuf>) -> Result<(), ApiError> {
    if let Some(p) = path.as_mut()
        && p.is_relative()
    {
        let cwd = std::env::current_dir()
            .map_err(|e| ApiError::invalid(format!("no working directory: {e}")))?;
        *p = cwd.join(&*p);
    }
    Ok(())
}
