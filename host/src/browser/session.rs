//! A named session: its browser (launched or connected), its tabs, the active tab.
//!
//! Owns the browser's lifetime and tab bookkeeping. Commands for one session run
//! one at a time (the daemon holds the session's lock), so nothing here needs its
//! own locking. It must not know about HTTP or the CLI.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::cdp::{Connection, Session as CdpSession};
use super::launch::LaunchOptions;
use super::sessions_json::{Binding, Bindings};
use super::shared::SharedBrowsers;
use super::tab::Tab;
use crate::error::{ApiError, ErrorCode};

/// How long a page the browser opened by itself may take to attach.
const ADOPT_PATIENCE: Duration = Duration::from_secs(2);

mod browser;

pub(crate) use browser::PIPE_PREFIX;
use browser::{Browser, Owner, RELAY_ENDPOINT};

/// What `sessions` reports without taking a session's lock.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct SessionInfo {
    pub name: String,
    /// `none` (no browser yet), `launched`, `connected` or `gone`.
    pub browser: String,
    pub endpoint: Option<String>,
    pub executable: Option<String>,
    /// Process id of a browser webrig launched (a shared browser's for a
    /// context).
    pub pid: Option<u32>,
    /// The session's browser context in the shared browser; None for a
    /// browser of its own (`launch --own-browser`), connected or relay.
    #[serde(default)]
    pub context: Option<String>,
    /// Why the browser is gone (a crash of the shared browser loses every
    /// context on it: the sessions it lists here were lost).
    #[serde(default)]
    pub lost: Option<String>,
    pub tabs: usize,
    /// The remote pool and endpoint the browser runs on (`launch --pool`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<super::pool::Placement>,
    /// The domain policy its pages are held to (`--allow/--block`, `[policy]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<super::policy::PolicyInfo>,
    /// The proxy its browser goes through (`launch --proxy`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy: Option<super::proxy::ProxyInfo>,
}

pub struct SessionState {
    name: String,
    browser: Option<Browser>,
    gone: Option<String>,
    /// The loss was reported to a command: a context session's next
    /// command starts a fresh context (and the shared browser if needed).
    gone_reported: bool,
    closed: bool,
    tabs: Vec<Tab>,
    active: Option<String>,
    next_tab: u32,
    max_tabs: usize,
    /// Memory a new browser, or a new context, needs available (MiB)
    /// before it is started.
    launch_memory_mib: u64,
    context_memory_mib: u64,
    /// The daemon's shared browsers, where contexts live.
    shared: Arc<SharedBrowsers>,
    /// Browsers of its own by default (plugins' sessions: their guard
    /// intercepts the whole browser).
    own_browser: bool,
    /// Shared with the daemon so `close` can cut a stuck command loose.
    interrupt: Arc<std::sync::Mutex<Option<Connection>>>,
    bindings: Arc<Bindings>,
    /// Tabs borrowed from the user (relay sessions): released, not closed.
    borrowed: std::collections::HashSet<String>,
    /// Routes, emulation, downloads and capture settings, shared with the tabs.
    devtools: Arc<super::devtools::Shared>,
    /// Where the browser runs when it is on a remote pool.
    placement: Option<super::pool::Placement>,
    /// The rules `launch|connect --allow/--block` added to the policy
    /// (kept in sessions.json, so a restarted daemon holds them too).
    flag_rules: Option<(Vec<String>, Vec<String>)>,
    /// `launch --proxy`.
    proxy: Option<super::proxy::Proxy>,
    /// `[policy]` (and `[policy.sessions.NAME]`) of config.toml.
    config_policy: Option<Arc<super::policy::DomainPolicy>>,
}

impl SessionState {
    pub fn new(
        name: &str,
        limits: &crate::config::Limits,
        interrupt: Arc<std::sync::Mutex<Option<Connection>>>,
        bindings: Arc<Bindings>,
        downloads_dir: PathBuf,
        shared: Arc<SharedBrowsers>,
        own_browser: bool,
    ) -> Self {
        SessionState {
            devtools: super::devtools::Shared::new(
                limits.devtools.clone(),
                super::devtools::Downloads::new(
                    downloads_dir,
                    super::devtools::downloads::Rules::from_limits(limits),
                ),
            ),
            name: name.to_string(),
            browser: None,
            gone: None,
            gone_reported: false,
            closed: false,
            tabs: Vec::new(),
            active: None,
            next_tab: 1,
            borrowed: Default::default(),
            max_tabs: limits.tabs_per_session,
            launch_memory_mib: limits.session_memory_mib + limits.min_free_memory_mib,
            context_memory_mib: limits.context_memory_mib + limits.min_free_memory_mib,
            shared,
            own_browser,
            interrupt,
            bindings,
            placement: None,
            flag_rules: None,
            proxy: None,
            config_policy: None,
        }
    }

    /// The domain policy config.toml holds the session to (set once, when
    /// the session is made); flags add to it.
    pub fn set_config_policy(&mut self, policy: Option<Arc<super::policy::DomainPolicy>>) {
        self.config_policy = policy.clone();
        self.devtools.set_policy(policy);
    }

    /// Holds the session's pages, on top of the config's policy, to the
    /// rules of `launch|connect --allow/--block` (replacing earlier flags').
    pub fn restrict(&mut self, allow: &[String], block: &[String]) -> Result<(), ApiError> {
        let layer = super::policy::Layer::parse("--allow/--block", allow, block)?;
        if layer.is_some() && self.browser.is_some() && self.check_gone().is_ok() {
            return Err(ApiError::invalid(format!(
                "session {:?} already has a browser: its policy is set when it starts",
                self.name
            ))
            .with_hint("close it first (webrig close), or pick another --session"));
        }
        self.flag_rules = layer.is_some().then(|| (allow.to_vec(), block.to_vec()));
        self.devtools.set_policy(super::policy::DomainPolicy::with(
            self.config_policy.as_ref(),
            layer,
        ));
        Ok(())
    }

    /// The proxy the session's next browser goes through.
    pub fn set_proxy(&mut self, proxy: Option<super::proxy::Proxy>) {
        self.proxy = proxy;
    }

    pub fn proxy(&self) -> Option<&super::proxy::Proxy> {
        self.proxy.as_ref()
    }

    /// Adds a layer (a pool's rules) to the session's policy before its
    /// browser starts: the stricter of all layers holds.
    pub fn hold_to(&mut self, layer: super::policy::Layer) {
        let now = self.devtools.policy();
        self.devtools
            .set_policy(super::policy::DomainPolicy::with(now.as_ref(), Some(layer)));
    }

    /// A policy or proxy credentials need the browser-wide request guard,
    /// so a browser of the session's own.
    fn needs_guard(&self) -> bool {
        self.devtools.policy().is_some()
            || self
                .proxy
                .as_ref()
                .is_some_and(|p| p.credentials().is_some())
    }

    /// Starts the request guard on a (non-relay) browser when the session
    /// needs one; the user's browser is guarded per tab instead.
    async fn guard(&self, browser: &Browser) -> Result<(), ApiError> {
        // Plugin sessions (`own_browser`) run their own guard, which holds
        // their grants and the config's policy both.
        if browser.endpoint == RELAY_ENDPOINT || self.own_browser || !self.needs_guard() {
            return Ok(());
        }
        let judge: Arc<dyn super::guard::Judge> = match self.devtools.policy() {
            Some(policy) => policy,
            None => Arc::new(super::guard::Anything),
        };
        let credentials = self.proxy.as_ref().and_then(|p| p.credentials().cloned());
        let refusals = super::guard::start(&browser.conn, judge, credentials).await?;
        self.devtools.set_refusals(refusals);
        Ok(())
    }

    fn set_interrupt(&self, conn: Option<Connection>) {
        *self.interrupt.lock().unwrap_or_else(|e| e.into_inner()) = conn;
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn is_closed(&self) -> bool {
        self.closed
    }

    pub fn has_browser(&self) -> bool {
        self.browser.is_some()
    }

    pub fn info(&mut self) -> SessionInfo {
        // Listing is not telling a command: a lost context stays lost.
        let gone = self.detect_gone();
        let (browser, endpoint, executable, pid, context) = match &self.browser {
            None if gone => ("gone", None, None, None, None),
            None => ("none", None, None, None, None),
            Some(b) => {
                let (kind, pid, context) = match &b.owner {
                    Owner::Launched { process, .. } => ("launched", process.pid, None),
                    Owner::Context(c) => ("launched", c.pid(), Some(c.id().to_string())),
                    Owner::Connected => ("connected", None, None),
                };
                (
                    if gone { "gone" } else { kind },
                    Some(b.endpoint.clone()),
                    b.executable.as_ref().map(|p| p.display().to_string()),
                    pid,
                    context,
                )
            }
        };
        SessionInfo {
            name: self.name.clone(),
            browser: browser.to_string(),
            endpoint,
            executable,
            pid,
            context,
            lost: self.gone.clone(),
            tabs: self.tabs.len(),
            pool: self.placement.clone(),
            policy: self.devtools.policy().map(|p| p.info()),
            proxy: self.proxy.as_ref().map(|p| p.info()),
        }
    }

    fn check_gone(&mut self) -> Result<(), ApiError> {
        self.detect_gone();
        match &self.gone {
            Some(why) => {
                let mut e = browser_gone(&self.name, why);
                if self.context_headed().is_some() {
                    self.gone_reported = true;
                    e = e.with_hint(
                        "the session's next command starts it afresh in a new browser context",
                    );
                }
                Err(e)
            }
            None => Ok(()),
        }
    }

    /// Notes whether the browser is gone (and why); true when it is.
    fn detect_gone(&mut self) -> bool {
        if self.gone.is_none() && self.browser.as_mut().is_some_and(Browser::is_gone) {
            self.gone = Some(if self.context_headed().is_some() {
                "the shared browser exited or its connection dropped; the session's tabs, \
                 cookies and storage were lost with it"
                    .into()
            } else {
                "the browser exited or its connection dropped".into()
            });
        }
        self.gone.is_some()
    }

    /// Starts a browser for this session (a context in the shared browser
    /// unless it must have its own); refuses if one is running.
    pub async fn launch(&mut self, opts: &LaunchOptions) -> Result<(), ApiError> {
        let own = self.own_browser || opts.wants_own_browser() || self.needs_guard();
        let needed = if !own && self.shared.running(opts.headed).await {
            self.context_memory_mib
        } else {
            self.launch_memory_mib
        };
        if let Some(available) = crate::config::mem_available_mib()
            && available < needed
        {
            return Err(ApiError::new(
                ErrorCode::LimitExceeded,
                format!(
                    "not starting a browser for session {:?}: {available} MiB of memory is \
                     available and it needs {needed} MiB (limits.{}_memory_mib + \
                     limits.min_free_memory_mib)",
                    self.name,
                    if needed == self.context_memory_mib {
                        "context"
                    } else {
                        "session"
                    }
                ),
            )
            .with_hint(
                "close sessions you no longer need (webrig sessions; webrig --session NAME close)",
            ));
        }
        if own {
            let mut opts = opts.clone();
            if let Some(proxy) = &self.proxy {
                opts.extra_args.extend(proxy.switches());
            }
            return self.replace_browser(Browser::launch(&opts).await?).await;
        }
        self.refuse_if_running().await?;
        let proxy = self.proxy.as_ref().map(|p| p.context_params());
        let context = self.shared.open(opts.headed, proxy).await?;
        self.replace_browser(Browser::context(context)).await?;
        // A browser starts with a blank page; so does a context.
        if self.tabs.is_empty() {
            self.open_tab().await?;
        }
        Ok(())
    }

    pub async fn connect(&mut self, endpoint: &str) -> Result<(), ApiError> {
        self.replace_browser(Browser::connect(endpoint).await?)
            .await
    }

    /// Binds this session to a browser made on a remote pool at `ws` (a
    /// secret URL: it holds the pool's token). On any failure the session
    /// is left without a browser and nothing is persisted.
    pub async fn connect_pooled(
        &mut self,
        ws: &crate::config::pool::Secret,
        placement: super::pool::Placement,
    ) -> Result<(), ApiError> {
        let conn = super::pool::connect(ws, &placement).await?;
        self.replace_browser(Browser::pooled(conn, &placement))
            .await?;
        self.placement = Some(placement);
        Ok(())
    }

    /// Binds this session to the user's browser through the extension.
    pub async fn connect_extension(
        &mut self,
        link: &Arc<super::relay::Link>,
    ) -> Result<(), ApiError> {
        // Chrome's group titles are short; the session's name leads.
        let group: String = format!("webrig {}", self.name).chars().take(60).collect();
        self.replace_browser(Browser::relay(link, &group)).await
    }

    /// Whether this session drives the user's browser through the relay.
    pub fn is_relay(&self) -> bool {
        self.browser
            .as_ref()
            .is_some_and(|b| b.endpoint == RELAY_ENDPOINT)
    }

    fn relay_connection(&mut self) -> Result<Connection, ApiError> {
        if !self.is_relay() {
            return Err(ApiError::invalid(format!(
                "session {:?} is not bound to your browser",
                self.name
            ))
            .with_hint("bind it with webrig connect --extension"));
        }
        Ok(self.connection()?.clone())
    }

    /// The user's open tabs (through the relay), for `borrow` to pick from.
    pub async fn user_tabs(&mut self) -> Result<Vec<Value>, ApiError> {
        let conn = self.relay_connection()?;
        let v = conn.call(None, "Relay.tabs", json!({})).await?;
        Ok(v["tabs"].as_array().cloned().unwrap_or_default())
    }

    /// Takes the user's tab `target` into this session (it stays in the
    /// user's group and goes back on release) and makes it active.
    pub async fn borrow(&mut self, target: &str) -> Result<Tab, ApiError> {
        if self.tabs.iter().any(|t| t.target_id() == target) {
            return Err(ApiError::invalid("this session already holds that tab"));
        }
        let conn = self.relay_connection()?;
        conn.call(None, "Relay.borrow", json!({ "targetId": target }))
            .await?;
        let tab = self.attach(target).await?;
        self.borrowed.insert(tab.id().to_string());
        self.active = Some(tab.id().to_string());
        Ok(tab)
    }

    /// Gives borrowed tab `id` back to the user (detached, left open).
    pub async fn release(&mut self, id: &str) -> Result<(), ApiError> {
        if !self.borrowed.contains(id) {
            return Err(ApiError::invalid(format!("tab {id} was not borrowed"))
                .with_hint("close the session's own tabs with webrig tab close"));
        }
        self.close_tab(id).await?;
        self.borrowed.remove(id);
        Ok(())
    }

    /// What the CDP front end drives: the session's browser (launched
    /// now when it has none), its connection and where new pages go.
    pub async fn seat(
        &mut self,
        gates: Arc<super::front::Gates>,
    ) -> Result<super::front::Seat, ApiError> {
        self.ensure_browser().await?;
        if self.tabs.is_empty() && !self.is_relay() {
            // A client finds a page to drive, as in any browser.
            self.open_tab().await?;
        }
        let relay = self.is_relay();
        let browser = self
            .browser
            .as_ref()
            .ok_or_else(|| ApiError::internal("no browser"))?;
        Ok(super::front::Seat {
            conn: browser.conn.clone(),
            relay,
            context: browser
                .conn
                .context()
                .map(str::to_string)
                .unwrap_or_else(|| format!("webrig-{}", self.name)),
            gates,
            new_pages: Arc::downgrade(&browser.new_pages),
            policy: self.devtools.policy(),
        })
    }

    /// Routes, emulation and downloads of this session.
    pub fn devtools(&self) -> &Arc<super::devtools::Shared> {
        &self.devtools
    }

    /// The session's tabs (pruned of closed ones).
    pub fn all_tabs(&mut self) -> Vec<Tab> {
        self.prune_detached();
        self.tabs.clone()
    }

    /// The tabs this session borrowed from the user.
    pub fn borrowed(&self) -> Vec<String> {
        let mut v: Vec<String> = self.borrowed.iter().cloned().collect();
        v.sort();
        v
    }

    /// Re-attaches to the browser an earlier daemon bound to this session.
    pub async fn adopt(&mut self, binding: &Binding) -> Result<(), ApiError> {
        // The rules it was started with hold again before anything loads.
        self.restrict(&binding.allow, &binding.block)?;
        self.replace_browser(Browser::adopt(binding, &self.shared).await?)
            .await
    }

    /// Refuses to start a browser for a session that has a live one.
    async fn refuse_if_running(&mut self) -> Result<(), ApiError> {
        if self.browser.is_some() && self.check_gone().is_ok() {
            return Err(ApiError::invalid(format!(
                "session {:?} already has a browser",
                self.name
            ))
            .with_hint("close it first (webrig close), or pick another --session"));
        }
        Ok(())
    }

    async fn replace_browser(&mut self, browser: Browser) -> Result<(), ApiError> {
        if let Err(e) = self.refuse_if_running().await {
            browser.shutdown().await;
            return Err(e);
        }
        if let Some(old) = self.browser.take() {
            old.shutdown().await;
        }
        self.gone = None;
        self.gone_reported = false;
        self.placement = None;
        self.tabs.clear();
        self.active = None;
        self.set_interrupt(Some(browser.conn.clone()));
        let relay = browser.endpoint == RELAY_ENDPOINT;
        self.devtools.set_relay(relay);
        if !relay && let Err(e) = self.devtools.watch_downloads(&browser.conn).await {
            // A browser that refuses (an old one) still works, without downloads.
            tracing::warn!(error = %e, "downloads are not followed");
        }
        if let Err(e) = self.guard(&browser).await {
            // Never a browser of a guarded session without its guard.
            browser.shutdown().await;
            return Err(e);
        }
        let mut binding = browser.binding().await;
        if let (Some(b), Some((allow, block))) = (&mut binding, &self.flag_rules) {
            b.allow = allow.clone();
            b.block = block.clone();
        }
        self.bindings.set(&self.name, binding);
        self.browser = Some(browser);
        if let Err(e) = self.adopt_pages().await {
            if let Some(browser) = self.browser.take() {
                browser.shutdown().await;
            }
            self.bindings.set(&self.name, None);
            self.tabs.clear();
            self.active = None;
            return Err(e);
        }
        Ok(())
    }

    /// Takes every existing page target of the browser as a tab.
    async fn adopt_pages(&mut self) -> Result<(), ApiError> {
        let conn = self.connection()?.clone();
        let targets = conn.call(None, "Target.getTargets", json!({})).await?;
        let pages: Vec<String> = targets["targetInfos"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["type"] == "page")
            .filter_map(|t| t["targetId"].as_str().map(str::to_string))
            .take(self.max_tabs)
            .collect();
        for target in pages {
            self.attach(&target).await?;
        }
        self.watch_new_pages().await
    }

    /// Notes page targets the browser opens later (popups, target=_blank
    /// links) so the next command takes them in as tabs.
    async fn watch_new_pages(&mut self) -> Result<(), ApiError> {
        let Some(browser) = &self.browser else {
            return Ok(());
        };
        let conn = browser.conn.clone();
        let pending = Arc::downgrade(&browser.new_pages);
        let mut events = conn.subscribe();
        tokio::spawn(async move {
            loop {
                let Some(event) = super::cdp::next_event(&mut events).await else {
                    break;
                };
                let Some(pending) = pending.upgrade() else {
                    break;
                };
                if event.session_id.is_none()
                    && event.method == "Target.targetDestroyed"
                    && let Some(id) = event.params["targetId"].as_str()
                    && let Ok(mut list) = pending.lock()
                {
                    list.retain(|t| t != id);
                    continue;
                }
                if event.session_id.is_none()
                    && event.method == "Target.targetCreated"
                    && event.params["targetInfo"]["type"] == "page"
                    && let Some(id) = event.params["targetInfo"]["targetId"].as_str()
                    && let Ok(mut list) = pending.lock()
                {
                    list.push(id.to_string());
                }
            }
        });
        conn.call(
            None,
            "Target.setDiscoverTargets",
            json!({ "discover": true }),
        )
        .await?;
        Ok(())
    }

    /// Attaches the pages the browser opened since the last command.
    async fn adopt_new_pages(&mut self) {
        let fresh: Vec<String> = match &self.browser {
            Some(b) => b
                .new_pages
                .lock()
                .map(|mut l| std::mem::take(&mut *l))
                .unwrap_or_default(),
            None => return,
        };
        for target in fresh {
            if self.tabs.len() >= self.max_tabs || self.tabs.iter().any(|t| t.target_id() == target)
            {
                continue;
            }
            // A page that closed again in the meantime is simply skipped;
            // the bound keeps one that closes mid-attach (whose calls may
            // never be answered) from holding the session.
            match tokio::time::timeout(ADOPT_PATIENCE, self.attach(&target)).await {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => tracing::debug!(error = %e, "not adopting a new page"),
                Err(_) => tracing::debug!(%target, "a new page did not attach in time"),
            }
        }
    }

    fn connection(&mut self) -> Result<&Connection, ApiError> {
        self.check_gone()?;
        match &self.browser {
            Some(b) => Ok(&b.conn),
            None => Err(
                ApiError::not_found(format!("session {:?} has no browser", self.name))
                    .with_hint("start one with webrig launch or webrig goto URL"),
            ),
        }
    }

    /// A context lost with its shared browser whose loss a command was
    /// told of: whether it was headed.
    fn lost_context(&mut self) -> Option<bool> {
        let headed = self.context_headed()?;
        let told = self.gone_reported || self.browser.as_ref()?.conn.closed_was_told();
        (told && self.detect_gone()).then_some(headed)
    }

    /// Whether nobody can see this session's pages: a context of the
    /// shared headless browser.
    pub fn is_headless(&self) -> bool {
        self.context_headed() == Some(false)
    }

    /// For a session that is a context of the shared browser: whether it
    /// is the headed one's. None for every other kind of browser.
    fn context_headed(&self) -> Option<bool> {
        match &self.browser {
            Some(Browser {
                owner: Owner::Context(c),
                ..
            }) => Some(!c.headless()),
            _ => None,
        }
    }

    async fn ensure_browser(&mut self) -> Result<(), ApiError> {
        if self.browser.is_none() && self.gone.is_none() {
            self.launch(&LaunchOptions::default()).await?;
        } else if let Some(headed) = self.lost_context() {
            // Lost with a crash of the shared browser, and told so once: a
            // fresh context, headed or not as the lost one was.
            self.launch(&LaunchOptions {
                headed,
                ..LaunchOptions::default()
            })
            .await?;
        }
        self.check_gone()
    }

    async fn attach(&mut self, target_id: &str) -> Result<Tab, ApiError> {
        let conn = self.connection()?.clone();
        let cdp = CdpSession::attach(&conn, target_id).await?;
        let id = format!("t{}", self.next_tab);
        self.next_tab += 1;
        let viewport = match &self.browser {
            // `set viewport` or `set device` wins over the default.
            _ if self.devtools.emulation().viewport.is_some() => None,
            Some(b) if b.headless() => Some(super::tab::DEFAULT_VIEWPORT),
            _ => None,
        };
        let tab = Tab::attach(
            id,
            target_id.to_string(),
            cdp,
            viewport,
            self.devtools.clone(),
        )
        .await?;
        if self.active.is_none() {
            self.active = Some(tab.id().to_string());
        }
        self.tabs.push(tab.clone());
        Ok(tab)
    }

    /// The tab a command acts on: `id`, else the active tab; launches a browser
    /// and opens a tab when the session has none.
    pub async fn tab(&mut self, id: Option<&str>) -> Result<Tab, ApiError> {
        self.ensure_browser().await?;
        self.prune_detached();
        self.adopt_new_pages().await;
        if let Some(id) = id {
            return self.find_tab(id).cloned();
        }
        if let Some(active) = self.active.clone()
            && let Ok(tab) = self.find_tab(&active)
        {
            return Ok(tab.clone());
        }
        match self.tabs.first().cloned() {
            Some(tab) => {
                self.active = Some(tab.id().to_string());
                Ok(tab)
            }
            None => self.new_tab().await,
        }
    }

    /// Forgets tabs the browser detached (closed by the page or the user).
    fn prune_detached(&mut self) {
        self.tabs.retain(|t| !t.is_detached());
        self.repair_active();
    }

    /// After tabs went away: keeps the active tab if it is still there, else
    /// makes the newest tab active.
    fn repair_active(&mut self) {
        let gone = self
            .active
            .as_ref()
            .is_some_and(|active| !self.tabs.iter().any(|t| t.id() == active));
        if gone {
            self.active = self.tabs.last().map(|t| t.id().to_string());
        }
    }

    fn find_tab(&self, id: &str) -> Result<&Tab, ApiError> {
        self.tabs.iter().find(|t| t.id() == id).ok_or_else(|| {
            ApiError::not_found(format!("no tab {id:?} in session {:?}", self.name))
                .with_hint("list tabs with webrig tabs")
        })
    }

    /// Opens a blank tab and makes it active.
    pub async fn new_tab(&mut self) -> Result<Tab, ApiError> {
        self.ensure_browser().await?;
        self.open_tab().await
    }

    async fn open_tab(&mut self) -> Result<Tab, ApiError> {
        if self.tabs.len() >= self.max_tabs {
            return Err(ApiError::new(
                ErrorCode::LimitExceeded,
                format!("session {:?} already has {} tabs", self.name, self.max_tabs),
            )
            .with_hint("close one with webrig tab close ID"));
        }
        let conn = self.connection()?.clone();
        let created = conn
            .call(None, "Target.createTarget", json!({ "url": "about:blank" }))
            .await?;
        let target = created["targetId"]
            .as_str()
            .ok_or_else(|| ApiError::internal("Target.createTarget returned no targetId"))?
            .to_string();
        let tab = self.attach(&target).await?;
        self.active = Some(tab.id().to_string());
        Ok(tab)
    }

    pub fn select_tab(&mut self, id: &str) -> Result<Tab, ApiError> {
        self.check_gone()?;
        let tab = self.find_tab(id)?.clone();
        self.active = Some(id.to_string());
        Ok(tab)
    }

    pub async fn close_tab(&mut self, id: &str) -> Result<(), ApiError> {
        let tab = self.find_tab(id)?.clone();
        let conn = self.connection()?.clone();
        conn.call(
            None,
            "Target.closeTarget",
            json!({ "targetId": tab.target_id() }),
        )
        .await?;
        self.tabs.retain(|t| t.id() != id);
        if self.active.as_deref() == Some(id) {
            self.active = self.tabs.last().map(|t| t.id().to_string());
        }
        Ok(())
    }

    /// Tabs with their live URL and title, in opening order.
    pub async fn list_tabs(&mut self) -> Result<Vec<TabInfo>, ApiError> {
        let conn = self.connection()?.clone();
        self.adopt_new_pages().await;
        let targets = conn.call(None, "Target.getTargets", json!({})).await?;
        let infos: Vec<&Value> = targets["targetInfos"]
            .as_array()
            .into_iter()
            .flatten()
            .collect();
        // Tabs whose target vanished (closed by the page) are dropped here.
        self.tabs
            .retain(|tab| infos.iter().any(|t| t["targetId"] == tab.target_id()));
        self.repair_active();
        Ok(self
            .tabs
            .iter()
            .map(|tab| {
                let info = infos.iter().find(|t| t["targetId"] == tab.target_id());
                let field = |k: &str| {
                    info.and_then(|t| t[k].as_str())
                        .unwrap_or_default()
                        .to_string()
                };
                TabInfo {
                    id: tab.id().to_string(),
                    url: field("url"),
                    title: field("title"),
                    active: self.active.as_deref() == Some(tab.id()),
                }
            })
            .collect())
    }

    /// Dialogs open on the session's tabs, by tab id.
    pub fn open_dialogs(&self) -> Vec<(String, super::tab::Dialog)> {
        self.tabs
            .iter()
            .filter_map(|t| Some((t.id().to_string(), t.dialog()?)))
            .collect()
    }

    /// Ends the session: closes a launched browser, disconnects a connected one.
    pub async fn shutdown(&mut self) {
        self.closed = true;
        self.set_interrupt(None);
        self.bindings.set(&self.name, None);
        self.tabs.clear();
        self.active = None;
        if let Some(browser) = self.browser.take() {
            browser.shutdown().await;
        }
    }
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct TabInfo {
    pub id: String,
    pub url: String,
    pub title: String,
    pub active: bool,
}

fn browser_gone(session: &str, why: &str) -> ApiError {
    ApiError::new(
        ErrorCode::BrowserGone,
        format!("the browser of session {session:?} is gone: {why}"),
    )
    .with_hint("start a new one with webrig launch, or end the session with webrig close")
}

/// Shared so the daemon can hold it across awaits.
pub type SharedSession = Arc<tokio::sync::Mutex<SessionState>>;
