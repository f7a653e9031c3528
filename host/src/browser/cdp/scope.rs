//! One browser context's view of a shared browser's connection.
//!
//! Many sessions share one managed Chromium, each in a browser context of
//! its own (`Target.createBrowserContext`: its own cookies, storage, cache
//! and permissions). A scope makes that context look like a whole browser
//! to the layers above, so they run unchanged on it:
//! - **events**: the connection's reader routes each event to the context
//!   it belongs to (by target, frame, flat session or download), and a
//!   scope's subscribers see only its own;
//! - **calls**: browser-level methods are admitted only within the context
//!   (`Target.createTarget` lands in it, `Target.getTargets` lists only its
//!   targets, downloads and cookies are its own) and every other
//!   browser-level method is refused; a flat session must be one of its own;
//! - **closing** a scope fails its own calls only: the shared browser and
//!   the other contexts go on.
//!
//! It owns the routing table; it must not know about sessions or commands.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, Weak};

use serde_json::Value;
use tokio::sync::{broadcast, watch};

use super::{CdpError, EVENT_BUFFER, Event, Inner};

/// Which context each id on the connection belongs to.
#[derive(Default)]
pub(super) struct Routes {
    scopes: HashMap<Arc<str>, Weak<Scope>>,
    /// Target, frame, flat-session and download ids → their context. The
    /// id spaces do not overlap (targets and main frames share ids, which
    /// is what a download's `frameId` needs).
    owner: HashMap<String, Arc<str>>,
}

impl Routes {
    fn note(&mut self, id: &Value, context: &Arc<str>) {
        if let Some(id) = id.as_str() {
            self.owner.insert(id.to_string(), context.clone());
        }
    }

    fn forget(&mut self, id: &Value) -> Option<Arc<str>> {
        self.owner.remove(id.as_str()?)
    }

    fn owner_of(&self, id: &Value) -> Option<Arc<str>> {
        self.owner.get(id.as_str()?).cloned()
    }

    /// The scope's own key for `context`, when a scope holds it.
    fn context(&self, context: &Value) -> Option<Arc<str>> {
        let (key, _) = self.scopes.get_key_value(context.as_str()?)?;
        Some(key.clone())
    }
}

pub(super) struct Scope {
    context: Arc<str>,
    events: broadcast::Sender<Arc<Event>>,
    closed: watch::Sender<bool>,
    /// Ids of this scope's calls in flight (failed by [`Scope::close`]).
    calls: Mutex<HashSet<u64>>,
    /// A call failed to a caller because the connection closed.
    told: std::sync::atomic::AtomicBool,
    inner: Weak<Inner>,
}

/// Browser-level methods a context may call, as they are.
const PASS: &[&str] = &[
    "Browser.getVersion",
    "Target.getTargets",
    "Target.setDiscoverTargets",
];

/// Browser-level methods that name the context they act in: pinned to the
/// scope's own.
const PINNED: &[&str] = &[
    "Target.createTarget",
    "Browser.setDownloadBehavior",
    "Browser.grantPermissions",
    "Browser.resetPermissions",
    "Browser.setPermission",
    "Storage.getCookies",
    "Storage.setCookies",
    "Storage.clearCookies",
];

/// Browser-level methods on one target (`targetId`) of the context.
const ON_TARGET: &[&str] = &[
    "Target.attachToTarget",
    "Target.closeTarget",
    "Target.activateTarget",
    "Target.getTargetInfo",
];

impl Scope {
    pub(super) fn open(inner: &Arc<Inner>, context: &str) -> Arc<Scope> {
        let scope = Arc::new(Scope {
            context: Arc::from(context),
            events: broadcast::channel(EVENT_BUFFER).0,
            closed: watch::channel(false).0,
            calls: Mutex::default(),
            told: Default::default(),
            inner: Arc::downgrade(inner),
        });
        inner
            .lock_routes()
            .scopes
            .insert(scope.context.clone(), Arc::downgrade(&scope));
        scope
    }

    pub(super) fn context(&self) -> &str {
        &self.context
    }

    pub(super) fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.events.subscribe()
    }

    pub(super) fn deliver(&self, event: Arc<Event>) {
        let _ = self.events.send(event);
    }

    pub(super) fn is_closed(&self) -> bool {
        *self.closed.borrow()
    }

    pub(super) fn told_closed(&self) {
        self.told.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    pub(super) fn closed_was_told(&self) -> bool {
        self.told.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub(super) fn closed_rx(&self) -> watch::Receiver<bool> {
        self.closed.subscribe()
    }

    fn lock_calls(&self) -> std::sync::MutexGuard<'_, HashSet<u64>> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn track(&self, id: u64) {
        self.lock_calls().insert(id);
    }

    pub(super) fn untrack(&self, id: u64) {
        self.lock_calls().remove(&id);
    }

    /// Ends this scope: its calls in flight fail with [`CdpError::Closed`].
    pub(super) fn close(&self, inner: &Inner) {
        self.closed.send_replace(true);
        let ids: Vec<u64> = self.lock_calls().drain().collect();
        let mut pending = inner.lock_pending();
        for id in ids {
            if let Some(tx) = pending.remove(&id) {
                let _ = tx.send(Err(CdpError::Closed));
            }
        }
    }

    fn refuse(method: &str, why: &str) -> CdpError {
        CdpError::Protocol {
            code: -32000,
            message: format!("{method} is refused in a browser context session: {why}"),
        }
    }

    /// Checks a call against the scope and pins it to the context.
    pub(super) fn admit(
        &self,
        inner: &Inner,
        session: Option<&str>,
        method: &str,
        mut params: Value,
    ) -> Result<Value, CdpError> {
        let routes = inner.lock_routes();
        let own = |id: &Value| routes.owner_of(id).is_some_and(|c| c == self.context);
        if let Some(session) = session {
            return if routes
                .owner
                .get(session)
                .is_some_and(|c| *c == self.context)
            {
                Ok(params)
            } else {
                Err(Self::refuse(method, "the session is not one of its own"))
            };
        }
        if !params.is_object() {
            params = Value::Object(Default::default());
        }
        let context = Value::from(&*self.context);
        if PASS.contains(&method) {
        } else if PINNED.contains(&method) {
            params["browserContextId"] = context;
        } else if ON_TARGET.contains(&method) {
            if !own(&params["targetId"]) {
                return Err(Self::refuse(method, "no such target in this context"));
            }
        } else if method == "Target.detachFromTarget" {
            if !own(&params["sessionId"]) {
                return Err(Self::refuse(method, "no such session in this context"));
            }
        } else if method == "Browser.cancelDownload" {
            if !own(&params["guid"]) {
                return Err(Self::refuse(method, "no such download in this context"));
            }
            params["browserContextId"] = context;
        } else {
            return Err(Self::refuse(method, "it reaches past the context"));
        }
        Ok(params)
    }

    /// Narrows an answer to the context (the browser's target list), and
    /// notes the targets it names as the context's.
    pub(super) fn narrow(&self, session: Option<&str>, method: &str, mut answer: Value) -> Value {
        if session.is_some() {
            return answer;
        }
        let Some(inner) = self.inner.upgrade() else {
            return answer;
        };
        match method {
            "Target.getTargets" => {
                if let Some(list) = answer["targetInfos"].as_array_mut() {
                    list.retain(|t| t["browserContextId"].as_str() == Some(&*self.context));
                    let mut routes = inner.lock_routes();
                    for t in list.iter() {
                        routes.note(&t["targetId"], &self.context);
                    }
                }
            }
            "Target.createTarget" => inner.lock_routes().note(&answer["targetId"], &self.context),
            _ => {}
        }
        answer
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        let Some(inner) = self.inner.upgrade() else {
            return;
        };
        let mut routes = inner.lock_routes();
        // A newer scope of the same context (re-attached) keeps its routes.
        if routes
            .scopes
            .get(&self.context)
            .is_some_and(|w| w.strong_count() > 0)
        {
            return;
        }
        routes.scopes.remove(&self.context);
        routes.owner.retain(|_, c| *c != self.context);
    }
}

impl Inner {
    pub(super) fn lock_routes(&self) -> std::sync::MutexGuard<'_, Routes> {
        // Every change is a single insert or remove: consistent after a panic.
        self.routes.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The scope an event belongs to, noting the ids it introduces; None
    /// for events of no scope (they go to the connection's own subscribers).
    pub(super) fn route(
        &self,
        session: Option<&str>,
        method: &str,
        p: &Value,
    ) -> Option<Arc<Scope>> {
        let mut routes = self.lock_routes();
        if routes.scopes.is_empty() {
            return None;
        }
        let context = match session {
            Some(session) => {
                let context = routes.owner.get(session)?.clone();
                match method {
                    "Target.attachedToTarget" => {
                        routes.note(&p["sessionId"], &context);
                        routes.note(&p["targetInfo"]["targetId"], &context);
                    }
                    "Target.detachedFromTarget" => {
                        routes.forget(&p["sessionId"]);
                    }
                    "Page.frameAttached" => routes.note(&p["frameId"], &context),
                    // A frame swapped into another process lives on as a target.
                    "Page.frameDetached" if p["reason"] != "swap" => {
                        routes.forget(&p["frameId"]);
                    }
                    _ => {}
                }
                context
            }
            None => match method {
                "Target.targetCreated" | "Target.targetInfoChanged" | "Target.attachedToTarget" => {
                    let context = routes.context(&p["targetInfo"]["browserContextId"])?;
                    routes.note(&p["targetInfo"]["targetId"], &context);
                    if method == "Target.attachedToTarget" {
                        routes.note(&p["sessionId"], &context);
                    }
                    context
                }
                "Target.targetDestroyed" => routes.forget(&p["targetId"])?,
                "Target.targetCrashed" => routes.owner_of(&p["targetId"])?,
                "Target.detachedFromTarget" => routes.forget(&p["sessionId"])?,
                "Browser.downloadWillBegin" => {
                    let context = routes.owner_of(&p["frameId"])?;
                    routes.note(&p["guid"], &context);
                    context
                }
                "Browser.downloadProgress" => {
                    if matches!(p["state"].as_str(), Some("completed" | "canceled")) {
                        routes.forget(&p["guid"])?
                    } else {
                        routes.owner_of(&p["guid"])?
                    }
                }
                _ => return None,
            },
        };
        routes.scopes.get(&context)?.upgrade()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::{Value, json};
    use tokio::sync::mpsc;

    use super::super::{CdpError, Connection};

    /// A connection to a scripted browser: every frame webrig sends is
    /// recorded, answered by `answer` (None: never answered), and `push`
    /// sends the browser's own frames (events).
    struct Fake {
        conn: Connection,
        sent: mpsc::UnboundedReceiver<Value>,
        push: mpsc::UnboundedSender<Result<String, ()>>,
    }

    fn fake(answer: fn(&Value) -> Option<Value>) -> Fake {
        let (to_browser, mut browser_rx) = mpsc::unbounded_channel::<String>();
        let (push, from_browser) = mpsc::unbounded_channel::<Result<String, ()>>();
        let (sent_tx, sent) = mpsc::unbounded_channel();
        let replies = push.clone();
        tokio::spawn(async move {
            while let Some(frame) = browser_rx.recv().await {
                let frame: Value = serde_json::from_str(&frame).expect("json");
                if let Some(result) = answer(&frame) {
                    let reply = json!({ "id": frame["id"], "result": result });
                    let _ = replies.send(Ok(reply.to_string()));
                }
                let _ = sent_tx.send(frame);
            }
        });
        let sink = futures_util::sink::unfold(to_browser, |tx, frame: String| async move {
            tx.send(frame).map_err(|_| ())?;
            Ok::<_, ()>(tx)
        });
        let stream = futures_util::stream::unfold(from_browser, |mut rx| async move {
            rx.recv().await.map(|f| (f, rx))
        });
        Fake {
            conn: Connection::from_transport(sink, stream),
            sent,
            push,
        }
    }

    fn browser(frame: &Value) -> Option<Value> {
        if frame["params"]["stall"] == true {
            return None;
        }
        match frame["method"].as_str()? {
            "Target.getTargets" => Some(json!({ "targetInfos": [
                { "targetId": "TA", "type": "page", "browserContextId": "A" },
                { "targetId": "TB", "type": "page", "browserContextId": "B" },
                { "targetId": "TD", "type": "page", "browserContextId": "DEFAULT" },
            ]})),
            "Target.createTarget" => Some(json!({ "targetId": "NEW" })),
            "Never.answered" => None,
            _ => Some(json!({})),
        }
    }

    fn event(session: Option<&str>, method: &str, params: Value) -> Result<String, ()> {
        let mut e = json!({ "method": method, "params": params });
        if let Some(s) = session {
            e["sessionId"] = json!(s);
        }
        Ok(e.to_string())
    }

    fn refused(r: Result<Value, CdpError>) -> bool {
        matches!(r, Err(CdpError::Protocol { message, .. }) if message.contains("refused"))
    }

    #[tokio::test]
    async fn browser_level_calls_are_pinned_to_the_context_or_refused() {
        let mut f = fake(browser);
        let a = f.conn.scope("A");
        a.call(
            None,
            "Target.createTarget",
            json!({ "url": "about:blank", "browserContextId": "B" }),
        )
        .await
        .expect("create");
        let sent = f.sent.recv().await.expect("sent");
        assert_eq!(sent["params"]["browserContextId"], "A", "{sent}");
        a.call(
            None,
            "Browser.setDownloadBehavior",
            json!({ "behavior": "deny" }),
        )
        .await
        .expect("downloads");
        assert_eq!(
            f.sent.recv().await.expect("sent")["params"]["browserContextId"],
            "A"
        );

        let listed = a
            .call(None, "Target.getTargets", json!({}))
            .await
            .expect("list");
        let ids: Vec<&str> = listed["targetInfos"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["targetId"].as_str())
            .collect();
        assert_eq!(ids, ["TA"], "only its own targets");
        let _ = f.sent.recv().await;

        for method in [
            "Browser.close",
            "Browser.crash",
            "Target.createBrowserContext",
            "Target.disposeBrowserContext",
            "Target.getBrowserContexts",
            "Target.setAutoAttach",
            "SystemInfo.getInfo",
            "Storage.clearDataForOrigin",
            "Fetch.enable",
        ] {
            assert!(refused(a.call(None, method, json!({})).await), "{method}");
        }
        // Another context's target, the default context's, or an unknown one.
        for target in ["TB", "TD", "nope"] {
            let r = a
                .call(
                    None,
                    "Target.attachToTarget",
                    json!({ "targetId": target, "flatten": true }),
                )
                .await;
            assert!(refused(r), "{target}");
            assert!(refused(
                a.call(None, "Target.closeTarget", json!({ "targetId": target }))
                    .await
            ));
        }
        // Its own target (listed above) is admitted; nothing refused was sent.
        a.call(None, "Target.closeTarget", json!({ "targetId": "TA" }))
            .await
            .expect("own target");
        let next = f.sent.recv().await.expect("sent");
        assert_eq!(next["method"], "Target.closeTarget");
        assert!(
            f.sent.try_recv().is_err(),
            "a refused call reached the browser"
        );
        // The whole connection is not limited.
        f.conn
            .call(None, "Target.createBrowserContext", json!({}))
            .await
            .expect("unscoped");
    }

    #[tokio::test]
    async fn events_reach_their_own_context_only_and_flat_sessions_are_checked() {
        let f = fake(browser);
        let a = f.conn.scope("A");
        let b = f.conn.scope("B");
        let (mut ea, mut eb, mut eall) = (a.subscribe(), b.subscribe(), f.conn.subscribe());
        let push = |e| f.push.send(e).expect("push");
        push(event(
            None,
            "Target.attachedToTarget",
            json!({
            "sessionId": "SA", "targetInfo": { "targetId": "TA", "browserContextId": "A" } }),
        ));
        push(event(
            None,
            "Target.attachedToTarget",
            json!({
            "sessionId": "SB", "targetInfo": { "targetId": "TB", "browserContextId": "B" } }),
        ));
        push(event(
            Some("SA"),
            "Page.frameAttached",
            json!({ "frameId": "FA" }),
        ));
        push(event(
            None,
            "Browser.downloadWillBegin",
            json!({ "frameId": "FA", "guid": "GA" }),
        ));
        push(event(
            None,
            "Browser.downloadProgress",
            json!({ "guid": "GA", "state": "inProgress" }),
        ));
        push(event(Some("SB"), "Runtime.consoleAPICalled", json!({})));
        push(event(
            None,
            "Target.targetCreated",
            json!({
            "targetInfo": { "targetId": "TX", "browserContextId": "OTHER" } }),
        ));

        let next = |rx: &mut tokio::sync::broadcast::Receiver<_>| {
            let e: std::sync::Arc<super::super::Event> = rx.try_recv().expect("an event");
            e.method.clone()
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(
            [next(&mut ea), next(&mut ea), next(&mut ea), next(&mut ea)],
            [
                "Target.attachedToTarget",
                "Page.frameAttached",
                "Browser.downloadWillBegin",
                "Browser.downloadProgress"
            ]
        );
        assert!(ea.try_recv().is_err(), "A saw another context's event");
        assert_eq!(next(&mut eb), "Target.attachedToTarget");
        assert_eq!(next(&mut eb), "Runtime.consoleAPICalled");
        assert!(eb.try_recv().is_err());
        // Events of no scope go to the whole connection only.
        assert_eq!(next(&mut eall), "Target.targetCreated");
        assert!(eall.try_recv().is_err());

        // A flat session must be the scope's own; downloads too.
        a.call(Some("SA"), "Runtime.evaluate", json!({}))
            .await
            .expect("own");
        assert!(refused(
            a.call(Some("SB"), "Runtime.evaluate", json!({})).await
        ));
        assert!(refused(
            b.call(Some("SA"), "Runtime.evaluate", json!({})).await
        ));
        assert!(refused(
            b.call(None, "Browser.cancelDownload", json!({ "guid": "GA" }))
                .await
        ));
        a.call(None, "Browser.cancelDownload", json!({ "guid": "GA" }))
            .await
            .expect("own download");
    }

    #[tokio::test]
    async fn closing_a_scope_fails_its_own_calls_only() {
        let f = fake(browser);
        let a = f.conn.scope("A");
        let b = f.conn.scope("B");
        let stuck_a = tokio::spawn({
            let a = a.clone();
            async move {
                a.call(None, "Target.getTargets", json!({ "stall": true }))
                    .await
            }
        });
        // Unanswered: the call stays in flight until A is closed.
        let f_conn = f.conn.clone();
        let stuck_b = tokio::spawn(async move {
            tokio::time::timeout(
                Duration::from_millis(300),
                f_conn.call(None, "Never.answered", json!({})),
            )
            .await
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        a.close();
        assert!(a.is_closed());
        assert!(matches!(
            a.call(None, "Target.getTargets", json!({})).await,
            Err(CdpError::Closed)
        ));
        assert!(matches!(
            stuck_a.await.expect("task"),
            Err(CdpError::Closed)
        ));
        assert!(!b.is_closed() && !f.conn.is_closed());
        b.call(None, "Target.getTargets", json!({}))
            .await
            .expect("B goes on");
        assert!(
            stuck_b.await.expect("task").is_err(),
            "the other call was not failed"
        );
        // The browser going away closes every scope.
        f.push.send(Err(())).expect("push");
        tokio::time::timeout(Duration::from_secs(2), b.closed())
            .await
            .expect("B closes with the connection");
    }
}
