//! The browser a client sees: browser-level methods answered or emulated
//! within the session (targets, attaching, tab targets, contexts, cookies),
//! and what the client is told of pages as they come.

use std::sync::atomic::Ordering;

use serde_json::{Value, json};

use super::policy::{self, Filter};
use super::{Client, Kind, Sess, cdp_error, lock, page_of, tab_of};
use crate::browser::cdp::CdpError;

impl Client {
    /// Calls on an emulated tab target's session: it attaches its page.
    pub(super) async fn tab_call(
        &self,
        session: &str,
        page: &str,
        method: &str,
        params: &Value,
    ) -> Result<Value, Value> {
        match method {
            "Target.setAutoAttach" => {
                if params["autoAttach"].as_bool() == Some(true) {
                    self.once(&format!("{session}/{page}"), async {
                        let info = self.info_of(page).await?;
                        let child = self.attach_page(page).await.map_err(|e| cdp_error(&e))?;
                        self.send(attached(Some(session), &child, info));
                        Ok(())
                    })
                    .await?;
                }
                Ok(json!({}))
            }
            "Runtime.runIfWaitingForDebugger" => Ok(json!({})),
            "Target.getTargetInfo" => Ok(json!({"targetInfo": self.tab_info(page).await?})),
            _ => Err(policy::refused(
                method,
                "a tab target here only attaches its page",
            )),
        }
    }

    /// Relay cookie calls touch only the sites the session's tabs show.
    pub(super) async fn check_sites(&self, method: &str, urls: &[String]) -> Result<(), Value> {
        let sites: Vec<String> = self
            .targets()
            .await?
            .iter()
            .filter_map(|t| policy::host_of(t["url"].as_str()?))
            .collect();
        for u in urls {
            let ok = policy::host_of(u).is_some_and(|h| policy::same_site(&h, &sites));
            if !ok {
                return Err(policy::refused(
                    method,
                    &format!(
                        "{u:?} is not a site this session's tabs show (your browser's other cookies stay yours)"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The session's page targets, as the client sees them.
    pub(super) async fn targets(&self) -> Result<Vec<Value>, Value> {
        let v = self
            .seat
            .conn
            .call(None, "Target.getTargets", json!({}))
            .await
            .map_err(|e| cdp_error(&e))?;
        Ok(v["targetInfos"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["type"] == "page")
            .map(|t| self.dress(t.clone()))
            .collect())
    }

    /// A target's info with the context the client expects on it.
    pub(super) fn dress(&self, mut info: Value) -> Value {
        if !info["browserContextId"].is_string() {
            info["browserContextId"] = json!(self.seat.context);
        }
        // A tab the relay just opened has no URL yet; Chrome would report
        // about:blank (Puppeteer waits for a URL before it takes a page).
        if info["url"].as_str().is_none_or(str::is_empty) {
            info["url"] = json!("about:blank");
        }
        info
    }

    pub(super) async fn info_of(&self, page: &str) -> Result<Value, Value> {
        self.targets()
            .await?
            .into_iter()
            .find(|t| t["targetId"] == page)
            .ok_or_else(|| json!({"code": -32000, "message": format!("No target with given id found: {page}")}))
    }

    async fn tab_info(&self, page: &str) -> Result<Value, Value> {
        let info = self.info_of(page).await?;
        Ok(tab_info_of(&info))
    }

    /// Attaches page `page` for the client (the caller found it among the
    /// session's, [`Client::info_of`]); its session id.
    pub(super) async fn attach_page(&self, page: &str) -> Result<String, CdpError> {
        let v = self
            .seat
            .conn
            .call(
                None,
                "Target.attachToTarget",
                json!({"targetId": page, "flatten": true}),
            )
            .await?;
        let session = v["sessionId"].as_str().unwrap_or_default().to_string();
        let shared = self.seat.relay;
        lock(&self.state).sessions.insert(
            session.clone(),
            Sess {
                page: page.to_string(),
                kind: Kind::Page { shared },
            },
        );
        Ok(session)
    }

    /// Attaches `info` (a page, or its emulated tab) for the client once,
    /// and tells it so (the browser-level auto-attach).
    async fn auto_attach(&self, info: &Value, tab: bool) -> Result<(), Value> {
        let page = info["targetId"].as_str().unwrap_or_default();
        let key = if tab { tab_of(page) } else { page.to_string() };
        self.once(&key, async {
            self.attach_and_tell(info, tab).await.map(|_| ())
        })
        .await
    }

    /// Runs `attach` once per `key`; later callers wait for its end.
    async fn once(
        &self,
        key: &str,
        attach: impl Future<Output = Result<(), Value>>,
    ) -> Result<(), Value> {
        let cell = lock(&self.state)
            .auto_done
            .entry(key.to_string())
            .or_default()
            .clone();
        cell.get_or_try_init(|| attach).await.map(|_| ())
    }

    /// Attaches page `info` (or its emulated tab) for the client and tells
    /// it so; the new session's id.
    async fn attach_and_tell(&self, info: &Value, tab: bool) -> Result<String, Value> {
        let page = info["targetId"].as_str().unwrap_or_default().to_string();
        let (session, target_info) = if tab {
            let n = self.next_virtual.fetch_add(1, Ordering::Relaxed);
            let session = format!("webrig-tab-{n}");
            lock(&self.state).sessions.insert(
                session.clone(),
                Sess {
                    page,
                    kind: Kind::Tab,
                },
            );
            (session, tab_info_of(info))
        } else {
            let session = self.attach_page(&page).await.map_err(|e| cdp_error(&e))?;
            (session, info.clone())
        };
        self.send(attached(None, &session, target_info));
        Ok(session)
    }

    /// Auto-attaches what the client's browser-level filter asks for.
    pub(super) async fn auto_attach_all(&self, pages: &[Value]) -> Result<(), Value> {
        let Some(filter) = lock(&self.state).auto.clone() else {
            return Ok(());
        };
        for info in pages {
            if filter.admits("tab") {
                self.auto_attach(info, true).await?;
            }
            if filter.admits("page") {
                self.auto_attach(info, false).await?;
            }
        }
        Ok(())
    }

    /// Tells a discovering client of pages it has not heard of.
    pub(super) fn announce(&self, pages: &[Value]) {
        let mut state = lock(&self.state);
        let Some(filter) = state.discover.clone() else {
            return;
        };
        for info in pages {
            let id = info["targetId"].as_str().unwrap_or_default().to_string();
            if !state.announced.insert(id) {
                continue;
            }
            for shown in seen(&filter, info) {
                self.send(
                    json!({"method": "Target.targetCreated", "params": {"targetInfo": shown}}),
                );
            }
        }
    }

    pub(super) async fn browser_call(&self, method: &str, params: Value) -> Result<Value, Value> {
        let conn = &self.seat.conn;
        let pass = |r: Result<Value, CdpError>| r.map_err(|e| cdp_error(&e));
        match method {
            "Browser.getVersion" => pass(conn.call(None, method, json!({})).await),
            "Target.setDiscoverTargets" => {
                let on = params["discover"].as_bool().unwrap_or(false);
                let pages = if on {
                    self.targets().await?
                } else {
                    Vec::new()
                };
                {
                    let mut state = lock(&self.state);
                    state.discover = on.then(|| Filter::parse(&params));
                    state.announced.clear();
                }
                self.announce(&pages);
                Ok(json!({}))
            }
            "Target.setAutoAttach" => {
                if params["autoAttach"].as_bool() != Some(true) {
                    lock(&self.state).auto = None;
                    return Ok(json!({}));
                }
                flat(method, &params)?;
                lock(&self.state).auto = Some(Filter::parse(&params));
                let pages = self.targets().await?;
                self.auto_attach_all(&pages).await?;
                Ok(json!({}))
            }
            "Target.getTargets" => {
                let filter = Filter::parse(&params);
                let list: Vec<Value> = self
                    .targets()
                    .await?
                    .iter()
                    .flat_map(|info| seen(&filter, info))
                    .collect();
                Ok(json!({"targetInfos": list}))
            }
            "Target.getTargetInfo" => match params["targetId"].as_str() {
                None => Ok(json!({"targetInfo": {
                    "targetId": "webrig-browser", "type": "browser", "title": "", "url": "",
                    "attached": true, "canAccessOpener": false,
                }})),
                Some(t) => match page_of(t) {
                    (page, true) => Ok(json!({"targetInfo": self.tab_info(page).await?})),
                    (page, false) => Ok(json!({"targetInfo": self.info_of(page).await?})),
                },
            },
            "Target.attachToTarget" => {
                flat(method, &params)?;
                let (page, tab) = page_of(params["targetId"].as_str().unwrap_or_default());
                let info = self.info_of(page).await?;
                // Told before the answer: both go through one queue.
                let session = self.attach_and_tell(&info, tab).await?;
                Ok(json!({"sessionId": session}))
            }
            "Target.detachFromTarget" => {
                let session = params["sessionId"].as_str().unwrap_or_default().to_string();
                let Some(sess) = lock(&self.state).sessions.remove(&session) else {
                    return Err(
                        json!({"code": -32000, "message": format!("No session with given id: {session}")}),
                    );
                };
                self.release(&session, &sess).await;
                self.send(json!({"method": "Target.detachedFromTarget", "params": {"sessionId": session, "targetId": sess.page}}));
                Ok(json!({}))
            }
            "Target.createTarget" => {
                let url = params["url"].as_str().unwrap_or("about:blank");
                if let Some(Err(why)) = self.seat.policy.as_ref().map(|p| p.check(url)) {
                    return Err(super::policy::refused(method, &why));
                }
                let mut create = json!({"url": url});
                // In a context this client made, or the session's own.
                if let Some(id) = params["browserContextId"].as_str()
                    && lock(&self.state).contexts.contains(id)
                {
                    create["browserContextId"] = json!(id);
                }
                let made = pass(conn.call(None, method, create).await)?;
                let target = made["targetId"].as_str().unwrap_or_default().to_string();
                if let Some(list) = self.seat.new_pages.upgrade() {
                    lock(&list).push(target.clone());
                }
                let info = self.info_of(&target).await?;
                self.announce(std::slice::from_ref(&info));
                // Attached and told before the answer (Playwright and
                // Puppeteer look the page up when it comes).
                self.auto_attach_all(std::slice::from_ref(&info)).await?;
                Ok(json!({"targetId": target}))
            }
            "Target.closeTarget" | "Target.activateTarget" => {
                let (page, _) = page_of(params["targetId"].as_str().unwrap_or_default());
                self.info_of(page).await?;
                let r = pass(conn.call(None, method, json!({"targetId": page})).await)?;
                if method == "Target.closeTarget" {
                    for frame in self.gone(page, false) {
                        self.send(frame);
                    }
                }
                Ok(r)
            }
            "Storage.getCookies" if self.seat.relay => self.relay_cookies().await,
            "Storage.getCookies"
            | "Storage.setCookies"
            | "Storage.clearCookies"
            | "Browser.grantPermissions"
            | "Browser.resetPermissions"
            | "Browser.setPermission"
                if !self.seat.relay =>
            {
                // Pinned to the session's context by its connection, or a
                // browser of the session's own.
                pass(conn.call(None, method, params).await)
            }
            // Downloads stay in the session's own folder, under its
            // budget: a client's download path is not taken.
            "Browser.setDownloadBehavior" => Ok(json!({})),
            "Target.createBrowserContext" if self.own_browser() => {
                let made = pass(conn.call(None, method, params).await)?;
                if let Some(id) = made["browserContextId"].as_str() {
                    lock(&self.state).contexts.insert(id.to_string());
                }
                Ok(made)
            }
            "Target.disposeBrowserContext" if self.own_browser() => {
                let id = params["browserContextId"].as_str().unwrap_or_default();
                if !lock(&self.state).contexts.remove(id) {
                    return Err(policy::refused(
                        method,
                        "only a context this client created",
                    ));
                }
                pass(
                    conn.call(None, method, json!({"browserContextId": id}))
                        .await,
                )
            }
            "Target.getBrowserContexts" => {
                let mine: Vec<String> = lock(&self.state).contexts.iter().cloned().collect();
                Ok(json!({"browserContextIds": mine}))
            }
            "Target.createBrowserContext" => Err(policy::refused(
                method,
                "this session is one browser context of a shared browser (or your own browser); for another, start another session (webrig launch --session NAME, or --own-browser for contexts of its own) and connect to it",
            )),
            "Browser.close" => Err(policy::refused(
                method,
                "the browser belongs to the webrig session; disconnect instead, or end it with webrig close",
            )),
            _ => Err(policy::refused(method, "it reaches outside the session")),
        }
    }

    /// `Storage.getCookies` on the user's browser: the cookies of the
    /// sites the session's tabs show, never the whole profile's.
    async fn relay_cookies(&self) -> Result<Value, Value> {
        let pages = self.targets().await?;
        let urls: Vec<&str> = pages
            .iter()
            .filter_map(|t| t["url"].as_str())
            .filter(|u| u.starts_with("http"))
            .collect();
        let Some(page) = pages.first().and_then(|t| t["targetId"].as_str()) else {
            return Ok(json!({"cookies": []}));
        };
        if urls.is_empty() {
            return Ok(json!({"cookies": []}));
        }
        // A tab's debuggee the client holds already, else the first tab's.
        let held = lock(&self.state)
            .sessions
            .iter()
            .find(|(_, s)| matches!(s.kind, Kind::Page { .. }))
            .map(|(id, _)| id.clone());
        let session = match held {
            Some(s) => s,
            None => self.attach_page(page).await.map_err(|e| cdp_error(&e))?,
        };
        self.seat
            .conn
            .call(Some(&session), "Network.getCookies", json!({"urls": urls}))
            .await
            .map_err(|e| cdp_error(&e))
    }

    /// The session has a browser of its own (launched apart, connected,
    /// pooled): new contexts in it stay the session's.
    fn own_browser(&self) -> bool {
        !self.seat.relay && self.seat.conn.context().is_none()
    }
}

/// The target infos a `filter` shows of one page: its emulated tab, the
/// page, or both.
pub(super) fn seen(filter: &Filter, info: &Value) -> Vec<Value> {
    let mut shown = Vec::new();
    if filter.admits("tab") {
        shown.push(tab_info_of(info));
    }
    if filter.admits("page") {
        shown.push(info.clone());
    }
    shown
}

/// `Target.attachedToTarget` for `session` on `info`, under `parent` (None:
/// the browser).
fn attached(parent: Option<&str>, session: &str, info: Value) -> Value {
    let mut event = json!({
        "method": "Target.attachedToTarget",
        "params": {"sessionId": session, "targetInfo": info, "waitingForDebugger": false},
    });
    if let Some(p) = parent {
        event["sessionId"] = json!(p);
    }
    event
}

/// Only flat sessions are served.
fn flat(method: &str, params: &Value) -> Result<(), Value> {
    if params["flatten"].as_bool() == Some(true) {
        Ok(())
    } else {
        Err(policy::refused(
            method,
            "only flat sessions (flatten: true) are served",
        ))
    }
}

/// A page's emulated tab target.
pub(super) fn tab_info_of(page: &Value) -> Value {
    let mut tab = page.clone();
    tab["targetId"] = json!(tab_of(page["targetId"].as_str().unwrap_or_default()));
    tab["type"] = json!("tab");
    tab
}
