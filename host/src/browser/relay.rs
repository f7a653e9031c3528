//! The extension relay as a CDP transport: the user's own Chrome, reached
//! through the webrig MV3 extension (`extension/`, protocol in
//! `extension/PROTOCOL.md`).
//!
//! A [`Link`] is the extension's WebSocket: requests to it, answers and
//! events from it. [`Link::connection`] makes a [`Connection`] over it that
//! speaks CDP like any browser, so the browser layer (tabs, snapshots,
//! actions, capture) runs unchanged: calls with a `sessionId` go through
//! `chrome.debugger`; the browser-level calls `chrome.debugger` refuses
//! (`Target.getTargets`, `Target.createTarget`, `Browser.*`) are answered
//! from `chrome.tabs` through the extension. A connection sees only the
//! tabs it created or borrowed; the user's other tabs stay invisible.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc, oneshot, watch};

use super::cdp::Connection;

/// How long the extension gets to answer one request.
const ANSWER_WITHIN: Duration = Duration::from_secs(60);
/// Requests waiting for an answer at once.
const MAX_PENDING: usize = 4096;

/// A request sent to the extension: its id and where its answer comes.
type Sent = (u64, oneshot::Receiver<Result<Value, RelayError>>);

/// Why a relay request failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RelayError {
    #[error("the extension disconnected; the outcome is unknown")]
    Gone,
    #[error("the extension did not answer within {0:?}")]
    Timeout(Duration),
    #[error("{0}")]
    Refused(String),
}

/// The extension's WebSocket, as the daemon holds it.
pub struct Link {
    out: mpsc::UnboundedSender<String>,
    pending: Mutex<HashMap<u64, oneshot::Sender<Result<Value, RelayError>>>>,
    next: AtomicU64,
    events: broadcast::Sender<Arc<Value>>,
    closed: watch::Sender<bool>,
    /// What the extension said about itself when it connected.
    pub hello: Mutex<Value>,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("closed", &self.is_closed())
            .finish()
    }
}

impl Link {
    /// A link whose outgoing frames go to `out` (the WebSocket writer).
    pub fn new(out: mpsc::UnboundedSender<String>) -> Arc<Link> {
        Arc::new(Link {
            out,
            pending: Mutex::default(),
            next: AtomicU64::new(1),
            events: broadcast::channel(4096).0,
            closed: watch::channel(false).0,
            hello: Mutex::new(Value::Null),
        })
    }

    pub fn is_closed(&self) -> bool {
        *self.closed.borrow()
    }

    pub async fn closed(&self) {
        let mut rx = self.closed.subscribe();
        let _ = rx.wait_for(|c| *c).await;
    }

    /// Ends the link: every request waiting is answered `Gone`.
    pub fn close(&self) {
        self.closed.send_replace(true);
        for (_, tx) in self
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain()
        {
            let _ = tx.send(Err(RelayError::Gone));
        }
    }

    /// A frame from the extension: an answer, an event, or its hello.
    pub fn receive(&self, text: &str) {
        let Ok(v) = serde_json::from_str::<Value>(text) else {
            tracing::debug!("relay: a frame that is not JSON");
            return;
        };
        if let Some(id) = v.get("id").and_then(Value::as_u64) {
            let tx = self
                .pending
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&id);
            if let Some(tx) = tx {
                let answer = match v.get("error") {
                    Some(e) => Err(RelayError::Refused(
                        e.get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("the extension refused")
                            .chars()
                            .take(2000)
                            .collect(),
                    )),
                    None => Ok(v.get("result").cloned().unwrap_or(Value::Null)),
                };
                let _ = tx.send(answer);
            }
            return;
        }
        match v.get("type").and_then(Value::as_str) {
            Some("ping") => {
                let _ = self.out.send(json!({"type": "pong"}).to_string());
            }
            Some("hello") => {
                *self.hello.lock().unwrap_or_else(|e| e.into_inner()) = v;
            }
            Some(_) => {
                let _ = self.events.send(Arc::new(v));
            }
            None => {}
        }
    }

    /// The extension's events and messages (`{"type": …}` frames that are
    /// not answers), as they come.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Value>> {
        self.events.subscribe()
    }

    /// One request to the extension.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, RelayError> {
        let (id, rx) = self.send(method, params)?;
        self.wait(id, rx).await
    }

    /// Sends a request now (requests sent one after another reach the
    /// extension in that order); [`Link::wait`] takes its answer.
    fn send(&self, method: &str, params: Value) -> Result<Sent, RelayError> {
        if self.is_closed() {
            return Err(RelayError::Gone);
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            if pending.len() >= MAX_PENDING {
                return Err(RelayError::Refused("too many requests in flight".into()));
            }
            pending.insert(id, tx);
        }
        let frame = json!({"id": id, "method": method, "params": params}).to_string();
        if self.out.send(frame).is_err() {
            self.close();
            return Err(RelayError::Gone);
        }
        Ok((id, rx))
    }

    async fn wait(
        &self,
        id: u64,
        rx: oneshot::Receiver<Result<Value, RelayError>>,
    ) -> Result<Value, RelayError> {
        match tokio::time::timeout(ANSWER_WITHIN, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err(RelayError::Gone),
            Err(_) => {
                self.pending
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&id);
                Err(RelayError::Timeout(ANSWER_WITHIN))
            }
        }
    }

    /// The tabs of the user's browser (`tabs.list`).
    pub async fn tabs(&self) -> Result<Vec<Value>, RelayError> {
        let v = self.request("tabs.list", json!({})).await?;
        Ok(v["tabs"].as_array().cloned().unwrap_or_default())
    }

    /// A CDP connection over this link for one webrig session: new tabs go
    /// to the tab group `group`; `borrowed` names the user's tabs (by
    /// target id) it may attach to.
    pub fn connection(self: &Arc<Self>, group: &str) -> Connection {
        let (frames_tx, frames_rx) = mpsc::unbounded_channel::<String>();
        let (answers_tx, answers_rx) = mpsc::unbounded_channel::<Result<String, ()>>();
        let adapter = Arc::new(Adapter {
            link: self.clone(),
            group: group.to_string(),
            state: Mutex::default(),
            answers: answers_tx,
        });
        tokio::spawn(adapter.run(frames_rx));
        let sink = futures_util::sink::unfold(frames_tx, |tx, frame: String| async move {
            tx.send(frame).map_err(|_| ())?;
            Ok::<_, ()>(tx)
        });
        let stream = futures_util::stream::unfold(answers_rx, |mut rx| async move {
            rx.recv().await.map(|f| (f, rx))
        });
        Connection::from_transport(sink, stream)
    }
}

/// What one connection holds in the user's browser.
#[derive(Default)]
struct Held {
    /// Target id → tab id, for tabs it created (closed at the end).
    created: HashMap<String, u64>,
    /// Target id → tab id, for the user's tabs it attached to (released
    /// at the end, never closed).
    borrowed: HashMap<String, u64>,
    /// Debuggee sessions (tabs and their child targets) it attached.
    sessions: HashSet<String>,
    /// Tab session → tab id.
    session_tab: HashMap<String, u64>,
}

/// Turns one CDP connection's frames into relay requests and the link's
/// events into CDP events.
struct Adapter {
    link: Arc<Link>,
    group: String,
    state: Mutex<Held>,
    answers: mpsc::UnboundedSender<Result<String, ()>>,
}

impl Adapter {
    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn run(self: Arc<Self>, mut frames: mpsc::UnboundedReceiver<String>) {
        let mut events = self.link.events.subscribe();
        let mut closed = self.link.closed.subscribe();
        let mut calls = tokio::task::JoinSet::new();
        loop {
            tokio::select! {
                frame = frames.recv() => {
                    let Some(frame) = frame else { break };
                    let Ok(call) = serde_json::from_str::<Value>(&frame) else { continue };
                    let me = self.clone();
                    // A plain call on a tab is sent before the next frame is
                    // read: pipelined calls (a client's input events) keep
                    // their order. The rest runs on its own.
                    match self.send_plain(&call) {
                        Some((id, sent)) => calls.spawn(async move {
                            let answer = match sent {
                                Ok((req, rx)) => me.link.wait(req, rx).await,
                                Err(e) => Err(e),
                            };
                            me.reply(id, answer);
                        }),
                        None => calls.spawn(async move { me.call(call).await }),
                    };
                    while calls.try_join_next().is_some() {}
                }
                event = events.recv() => match event {
                    Ok(e) => self.event(&e),
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        tracing::warn!(lost = n, "relay: events lost");
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                },
                _ = closed.wait_for(|c| *c) => break,
            }
        }
        // The link went away: the calls in flight answer first (their
        // outcome is unknown), then the connection closes. Or the session
        // let go of the connection: its tabs go back (borrowed) or away
        // (created).
        let _ = tokio::time::timeout(Duration::from_secs(2), async {
            while calls.join_next().await.is_some() {}
        })
        .await;
        let _ = self.answers.send(Err(()));
        if !self.link.is_closed() {
            let held = std::mem::take(&mut *self.held());
            for (_, tab) in held.created {
                let _ = self.link.request("tabs.close", json!({"tabId": tab})).await;
            }
            for session in held.session_tab.keys() {
                let _ = self
                    .link
                    .request("detach", json!({"sessionId": session}))
                    .await;
            }
        }
    }

    /// One CDP call from the browser layer.
    async fn call(&self, v: Value) {
        let id = v["id"].clone();
        let method = v["method"].as_str().unwrap_or_default().to_string();
        let params = v.get("params").cloned().unwrap_or(json!({}));
        let answer = match v["sessionId"].as_str() {
            Some(session) => self.session_call(session, &method, params).await,
            None => self.browser_call(&method, params).await,
        };
        self.reply(id, answer);
    }

    fn reply(&self, id: Value, answer: Result<Value, RelayError>) {
        let frame = match answer {
            Ok(result) => json!({"id": id, "result": result}),
            Err(e) => json!({"id": id, "error": {"code": -32000, "message": e.to_string()}}),
        };
        let _ = self.answers.send(Ok(frame.to_string()));
    }

    /// Sends a call on a held session that needs no step before it, now;
    /// None for every other call (answered by [`Adapter::call`]).
    fn send_plain(&self, v: &Value) -> Option<(Value, Result<Sent, RelayError>)> {
        let session = v["sessionId"].as_str()?;
        let method = v["method"].as_str()?;
        if matches!(method, "Page.navigate" | "Page.captureScreenshot")
            || !self.held().sessions.contains(session)
        {
            return None;
        }
        let params = v.get("params").cloned().unwrap_or(json!({}));
        let sent = self.link.send(
            "cdp",
            json!({"sessionId": session, "method": method, "params": params}),
        );
        Some((v["id"].clone(), sent))
    }

    async fn session_call(
        &self,
        session: &str,
        method: &str,
        params: Value,
    ) -> Result<Value, RelayError> {
        let tab = {
            let held = self.held();
            if !held.sessions.contains(session) {
                return Err(RelayError::Refused(format!(
                    "session {session} is not attached"
                )));
            }
            held.session_tab.get(session).copied()
        };
        // chrome.debugger may not attach to the browser's own pages: going
        // there would detach the tab for good. Refused up front instead.
        if method == "Page.navigate"
            && let Some(url) = params["url"].as_str()
            && is_browser_page(url)
        {
            return Err(RelayError::Refused(format!(
                "{url}: the browser's own pages cannot be driven through the extension \
                 (chrome.debugger detaches from them)"
            )));
        }
        // Hidden tabs stall screenshots: bring it to the front first.
        if method == "Page.captureScreenshot"
            && let Some(tab) = tab
        {
            self.link
                .request("tabs.activate", json!({"tabId": tab}))
                .await?;
        }
        self.link
            .request(
                "cdp",
                json!({"sessionId": session, "method": method, "params": params}),
            )
            .await
    }

    /// The browser-level calls the browser layer makes, from `chrome.tabs`.
    async fn browser_call(&self, method: &str, params: Value) -> Result<Value, RelayError> {
        match method {
            "Target.getTargets" => {
                let tabs = self.link.tabs().await?;
                let held = self.held();
                let infos: Vec<Value> = tabs
                    .iter()
                    .filter_map(|t| {
                        let target = t["targetId"].as_str()?;
                        (held.created.contains_key(target) || held.borrowed.contains_key(target))
                            .then(|| target_info(t))
                    })
                    .collect();
                Ok(json!({"targetInfos": infos}))
            }
            "Target.createTarget" => {
                let url = params["url"].as_str().unwrap_or("about:blank");
                let made = self
                    .link
                    .request("tabs.create", json!({"url": url, "group": self.group}))
                    .await?;
                let (Some(target), Some(tab)) = (made["targetId"].as_str(), made["tabId"].as_u64())
                else {
                    return Err(RelayError::Refused("tabs.create gave no targetId".into()));
                };
                self.held().created.insert(target.to_string(), tab);
                Ok(json!({"targetId": target}))
            }
            "Target.attachToTarget" => {
                let target = params["targetId"].as_str().unwrap_or_default().to_string();
                let tab = {
                    let held = self.held();
                    held.created
                        .get(&target)
                        .or(held.borrowed.get(&target))
                        .copied()
                };
                let tab = match tab {
                    Some(t) => t,
                    None => {
                        return Err(RelayError::Refused(format!(
                            "target {target} is not a tab of this session (borrow it first)"
                        )));
                    }
                };
                let attached = self.link.request("attach", json!({"tabId": tab})).await?;
                let session = attached["sessionId"]
                    .as_str()
                    .ok_or_else(|| RelayError::Refused("attach gave no sessionId".into()))?
                    .to_string();
                let mut held = self.held();
                held.sessions.insert(session.clone());
                held.session_tab.insert(session.clone(), tab);
                Ok(json!({"sessionId": session}))
            }
            "Target.closeTarget" => {
                let target = params["targetId"].as_str().unwrap_or_default().to_string();
                let (created, borrowed) = {
                    let mut held = self.held();
                    (held.created.remove(&target), held.borrowed.remove(&target))
                };
                if let Some(tab) = created {
                    self.link
                        .request("tabs.close", json!({"tabId": tab}))
                        .await?;
                } else if let Some(tab) = borrowed {
                    // The user's tab goes back to the user, open.
                    self.release_tab(tab).await;
                }
                Ok(json!({"success": true}))
            }
            "Target.activateTarget" => {
                let target = params["targetId"].as_str().unwrap_or_default();
                let tab = {
                    let held = self.held();
                    held.created
                        .get(target)
                        .or(held.borrowed.get(target))
                        .copied()
                };
                match tab {
                    Some(tab) => self
                        .link
                        .request("tabs.activate", json!({"tabId": tab}))
                        .await
                        .map(|_| json!({})),
                    None => Err(RelayError::Refused(format!(
                        "no tab {target} in this session"
                    ))),
                }
            }
            "Target.setDiscoverTargets" => Ok(json!({})),
            // The user's tabs, for `borrow` to pick from.
            "Relay.tabs" => Ok(json!({"tabs": self.link.tabs().await?})),
            // Takes one of the user's tabs into this connection; it stays
            // in the user's group and goes back on release.
            "Relay.borrow" => {
                let target = params["targetId"].as_str().unwrap_or_default();
                let tabs = self.link.tabs().await?;
                let tab = tabs
                    .iter()
                    .find(|t| t["targetId"] == target)
                    .ok_or_else(|| RelayError::Refused(format!("no tab {target} is open")))?;
                if tab["held"] == true {
                    return Err(RelayError::Refused(format!(
                        "tab {target} is held by another session"
                    )));
                }
                let id = tab["tabId"].as_u64().unwrap_or_default();
                self.borrow(target, id);
                Ok(json!({"tabId": id}))
            }
            "Browser.getVersion" => {
                let hello = self
                    .link
                    .hello
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .clone();
                Ok(json!({
                    "protocolVersion": "1.3",
                    "product": hello["browser"].as_str().unwrap_or("Chrome (extension relay)"),
                    "userAgent": hello["browser"],
                    "jsVersion": "",
                    "revision": "",
                }))
            }
            // Never the user's browser: closing the relay connection lets
            // the session's tabs go instead.
            "Browser.close" => Ok(json!({})),
            other => Err(RelayError::Refused(format!(
                "{other} is not available through the extension relay"
            ))),
        }
    }

    async fn release_tab(&self, tab: u64) {
        let sessions: Vec<String> = {
            let mut held = self.held();
            let gone: Vec<String> = held
                .session_tab
                .iter()
                .filter(|(_, t)| **t == tab)
                .map(|(s, _)| s.clone())
                .collect();
            for s in &gone {
                held.session_tab.remove(s);
                held.sessions.remove(s);
            }
            gone
        };
        for s in sessions {
            let _ = self.link.request("detach", json!({"sessionId": s})).await;
        }
    }

    /// Takes the user's tab `target` (tab `tab`) into this connection.
    fn borrow(&self, target: &str, tab: u64) {
        self.held().borrowed.insert(target.to_string(), tab);
    }

    /// An event from the extension, as CDP, when it concerns this connection.
    fn event(&self, e: &Value) {
        let frame = match e["type"].as_str() {
            Some("event") => {
                let Some(session) = e["sessionId"].as_str() else {
                    return;
                };
                let method = e["method"].as_str().unwrap_or_default();
                let mut held = self.held();
                if !held.sessions.contains(session) {
                    return;
                }
                // Child targets (out-of-process frames, workers) join the
                // connection's sessions as Chrome reports them.
                if method == "Target.attachedToTarget"
                    && let Some(child) = e["params"]["sessionId"].as_str()
                {
                    held.sessions.insert(child.to_string());
                }
                if method == "Target.detachedFromTarget"
                    && let Some(child) = e["params"]["sessionId"].as_str()
                {
                    held.sessions.remove(child);
                }
                json!({"method": method, "params": e["params"], "sessionId": session})
            }
            Some("detached") => {
                let Some(session) = e["sessionId"].as_str() else {
                    return;
                };
                let mut held = self.held();
                if !held.sessions.remove(session) {
                    return;
                }
                held.session_tab.remove(session);
                json!({"method": "Target.detachedFromTarget", "params": {"sessionId": session, "reason": e["reason"]}})
            }
            Some("tab-removed") => {
                let Some(tab) = e["tabId"].as_u64() else {
                    return;
                };
                let mut held = self.held();
                let target = held
                    .created
                    .iter()
                    .chain(held.borrowed.iter())
                    .find(|(_, t)| **t == tab)
                    .map(|(k, _)| k.clone());
                let Some(target) = target else { return };
                held.created.remove(&target);
                held.borrowed.remove(&target);
                json!({"method": "Target.targetDestroyed", "params": {"targetId": target}})
            }
            _ => return,
        };
        let _ = self.answers.send(Ok(frame.to_string()));
    }
}

/// Pages `chrome.debugger` cannot attach to.
fn is_browser_page(url: &str) -> bool {
    let lower = url.trim().to_ascii_lowercase();
    [
        "chrome:",
        "chrome-extension:",
        "chrome-untrusted:",
        "devtools:",
        "edge:",
        "about:devtools",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
}

/// A `chrome.tabs` tab as a CDP `TargetInfo`.
fn target_info(t: &Value) -> Value {
    json!({
        "targetId": t["targetId"],
        "type": "page",
        "title": t["title"],
        "url": t["url"],
        "attached": t["held"],
        "canAccessOpener": false,
    })
}

/// Runs the WebSocket's frames through `link` until either side closes or
/// the extension is silent for `silence`; then closes the link.
pub async fn serve<S>(
    ws: S,
    link: Arc<Link>,
    mut out: mpsc::UnboundedReceiver<String>,
    silence: Duration,
) where
    S: futures_util::Stream<
            Item = Result<
                tokio_tungstenite::tungstenite::Message,
                tokio_tungstenite::tungstenite::Error,
            >,
        > + futures_util::Sink<tokio_tungstenite::tungstenite::Message>
        + Unpin,
{
    use futures_util::SinkExt;
    use tokio_tungstenite::tungstenite::Message;
    let (mut sink, mut stream) = ws.split();
    loop {
        tokio::select! {
            frame = tokio::time::timeout(silence, stream.next()) => match frame {
                Ok(Some(Ok(Message::Text(text)))) => link.receive(&text),
                Ok(Some(Ok(Message::Binary(bytes)))) => link.receive(&String::from_utf8_lossy(&bytes)),
                Ok(Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_)))) => {}
                Ok(Some(Ok(Message::Close(_)) | Err(_)) | None) => break,
                Err(_) => {
                    tracing::info!("relay: the extension was silent too long");
                    break;
                }
            },
            frame = out.recv() => match frame {
                Some(text) => {
                    if sink.send(Message::text(text)).await.is_err() {
                        break;
                    }
                }
                None => break,
            },
        }
    }
    let _ = sink.close().await;
    link.close();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn answers_events_and_a_closed_link() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let link = Link::new(tx);
        let l = link.clone();
        let asked = tokio::spawn(async move { l.request("tabs.list", json!({})).await });
        let frame: Value = serde_json::from_str(&rx.recv().await.expect("frame")).expect("json");
        assert_eq!(frame["method"], "tabs.list");
        link.receive(&json!({"id": frame["id"], "result": {"tabs": []}}).to_string());
        assert_eq!(
            asked.await.expect("join").expect("answer"),
            json!({"tabs": []})
        );
        link.receive(r#"{"type":"ping"}"#);
        assert_eq!(rx.recv().await.expect("pong"), r#"{"type":"pong"}"#);
        let l = link.clone();
        let waiting = tokio::spawn(async move { l.request("tabs.list", json!({})).await });
        let _ = rx.recv().await;
        link.close();
        assert!(matches!(
            waiting.await.expect("join"),
            Err(RelayError::Gone)
        ));
    }
}
