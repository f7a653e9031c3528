//! The rig: what every door shares. The daemon-wide [`State`] (home,
//! token, limits, grants, the session table, the plugin host, the macro
//! engine, the extension's link, pairing, remote pool placement) and the
//! plugin→browser bridge.
//!
//! Doors (`daemon/` over HTTP and the Unix socket, MCP) hold an
//! `Arc<State>` and hand requests to the scheduler
//! (`commands::dispatch`); nothing here knows a transport.

pub mod annotating;
mod check;
pub mod inbox;
mod lease;
pub mod logins;
pub mod pairing;
mod plugin_browser;
pub mod pool;
mod sessions;
pub mod tickets;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use crate::browser::sessions_json::Bindings;
use crate::config::{Home, Limits};
use crate::error::{ApiError, ErrorCode};

pub use check::check_config;

pub use lease::Leased;
pub use sessions::{Entered, PLUGIN_SESSION, Slot};

/// Daemon-wide state shared by every request.
pub struct State {
    home: Home,
    token: std::sync::RwLock<String>,
    pairing: Mutex<Option<pairing::Pairing>>,
    port: u16,
    limits: Limits,
    access: crate::config::Access,
    /// `[policy]`'s layers that hold every session and plugin, parsed once.
    policy: Option<Arc<crate::browser::policy::DomainPolicy>>,
    started: Instant,
    sessions: Mutex<HashMap<String, Arc<Slot>>>,
    bindings: Arc<Bindings>,
    /// The shared browsers sessions open their contexts in.
    shared: Arc<crate::browser::shared::SharedBrowsers>,
    shutdown: watch::Sender<bool>,
    /// Installed plugins and the provider runtime, opened in the
    /// background at start (the first command that needs them waits).
    providers: tokio::sync::OnceCell<Result<Arc<crate::providers::Providers>, String>>,
    /// The macro engine and packs, made on first use.
    macros: std::sync::OnceLock<crate::macros::Macros>,
    /// The user's browser through the extension, while it is connected.
    relay: Mutex<Option<Arc<crate::browser::relay::Link>>>,
    /// Where sessions run on remote pools (`[[pool]]`).
    pools: pool::Pools,
    /// One-time CDP front-end tickets (`cdp-url`).
    tickets: tickets::Tickets,
    /// What people send from the browser, for agents to read.
    inbox: inbox::Inbox,
    /// The annotation captures running, one per tab.
    captures: annotating::Captures,
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
        let home_root = home.root().to_path_buf();
        Arc::new(State {
            bindings,
            shared: crate::browser::shared::SharedBrowsers::new(),
            home,
            token: std::sync::RwLock::new(token),
            pairing: Mutex::new(None),
            port,
            limits,
            policy: crate::browser::policy::DomainPolicy::new(
                crate::browser::policy::configured(&access.policy, None).unwrap_or_default(),
            ),
            access,
            started: Instant::now(),
            sessions: Mutex::new(HashMap::new()),
            shutdown: watch::channel(false).0,
            providers: tokio::sync::OnceCell::new(),
            macros: std::sync::OnceLock::new(),
            relay: Mutex::new(None),
            pools: pool::Pools::default(),
            tickets: tickets::Tickets::default(),
            inbox: inbox::Inbox::new(
                inbox::dir_of(home_root.as_path()),
                Arc::new(inbox::SystemClock),
            ),
            captures: annotating::Captures::default(),
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
                    crate::plugins::PluginHost::open(
                        &home,
                        Some(bridge),
                        crate::workflows::check_declaration,
                    )
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

    pub fn inbox(&self) -> &inbox::Inbox {
        &self.inbox
    }

    pub fn captures(&self) -> &annotating::Captures {
        &self.captures
    }

    pub fn tickets(&self) -> &tickets::Tickets {
        &self.tickets
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    pub fn access(&self) -> &crate::config::Access {
        &self.access
    }

    /// The domain policy config.toml holds session `name` to (None: what
    /// holds every session, plugins' included); None when it has none.
    pub fn configured_policy(
        &self,
        name: Option<&str>,
    ) -> Option<Arc<crate::browser::policy::DomainPolicy>> {
        let Some(name) = name else {
            return self.policy.clone();
        };
        // Checked when the daemon started: a bad rule never gets this far.
        let layers =
            crate::browser::policy::configured(&self.access.policy, Some(name)).unwrap_or_default();
        crate::browser::policy::DomainPolicy::new(layers)
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

    pub fn token(&self) -> String {
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
        let p = pairing::Pairing::new(Duration::from_secs(self.limits.pair_code_ttl_s), only)?;
        let out = (p.code(), p.expires_in());
        *self.pairing.lock().unwrap_or_else(|e| e.into_inner()) = Some(p);
        Ok(out)
    }

    /// Redeems a pairing code sent from extension `origin` (see
    /// [`pairing::redeem`]).
    pub fn redeem(&self, code: &str, origin: &str) -> pairing::Redeem {
        pairing::redeem(
            &mut self.pairing.lock().unwrap_or_else(|e| e.into_inner()),
            code,
            origin,
        )
    }

    pub fn request_shutdown(&self) {
        self.shutdown.send_replace(true);
    }

    /// Whether shutdown was asked for, as a watch the door serves until.
    pub fn shutdown_requested(&self) -> watch::Receiver<bool> {
        self.shutdown.subscribe()
    }
}
