//! The CDP front end: one DevTools client (Playwright, Puppeteer, a raw
//! WebSocket) drives one webrig session's browser, on every transport.
//!
//! The client speaks to what looks like a whole browser; underneath is the
//! session's own [`Connection`] (a context of the shared browser, its own
//! launched browser, a connected or pooled one, or the user's browser
//! through the extension relay), so the front end needs no transport of
//! its own and reaches no further than the session does:
//! - **browser-level** methods are answered or emulated here, within the
//!   session (targets listed, created, attached and closed are the
//!   session's; `Browser.getVersion`; cookies and permissions of its
//!   context), and every other one is refused with a CDP error. Tab
//!   targets (Puppeteer attaches pages through them) are emulated, one per
//!   page, on every transport alike;
//! - **page sessions** are the client's own flat sessions (on the relay, a
//!   tab's debuggee is shared with the session), checked by [`policy`];
//! - **events** reach the client only for its own sessions, and target
//!   events only as it asked (`setDiscoverTargets`, `setAutoAttach`);
//! - **taking turns**: each call on a page holds that page's gate shared
//!   ([`Gates`]); a webrig command holds it alone, so neither runs in the
//!   middle of the other;
//! - **limits**: a client that does not read is dropped once its queue
//!   passes the send-buffer cap or one frame waits past the stall time;
//!   frames and calls in flight are capped.
//!
//! When the client goes, the sessions it attached are detached; the tabs
//! stay the session's (pages it opened become webrig tabs).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, watch};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

use super::cdp::{CdpError, Connection, Event};

mod gates;
pub mod policy;

pub use gates::Gates;
use policy::{Filter, Verdict};

/// What the front end needs of a session.
pub struct Seat {
    pub conn: Connection,
    /// The session drives the user's own browser (the extension relay).
    pub relay: bool,
    /// The browser context id targets report when the transport gives
    /// none (the relay's tabs).
    pub context: String,
    pub gates: Arc<Gates>,
    /// Pages the client opens, handed to the session as new tabs.
    pub new_pages: Weak<Mutex<Vec<String>>>,
}

/// Where the client connected: the browser, or one page
/// (`/devtools/page/{targetId}`, whose calls need no `sessionId`).
#[derive(Debug, Clone)]
pub enum Entry {
    Browser,
    Page(String),
}

#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest frame the client may send.
    pub max_frame: usize,
    /// Bytes queued to a client that does not read before it is dropped.
    pub send_buffer: usize,
    /// How long one frame may wait to be written.
    pub send_stall: Duration,
    /// Calls of one client waiting for an answer at once.
    pub in_flight: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_frame: 32 << 20,
            send_buffer: 64 << 20,
            send_stall: Duration::from_secs(30),
            in_flight: 1024,
        }
    }
}

/// One of the client's sessions.
#[derive(Debug, Clone)]
struct Sess {
    /// The page target whose gate its calls hold.
    page: String,
    kind: Kind,
}

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    /// A page's session the front end attached; detached when the client
    /// goes unless `shared` (the relay's debuggee of a tab).
    Page { shared: bool },
    /// An emulated tab target's session (no browser session behind it).
    Tab,
    /// A frame's or worker's session Chrome attached under a page's.
    Child,
}

#[derive(Default)]
struct ClientState {
    sessions: HashMap<String, Sess>,
    /// `Target.setDiscoverTargets`: which kinds it wants to hear of.
    discover: Option<Filter>,
    /// Browser-level `Target.setAutoAttach`: which kinds it attaches.
    auto: Option<Filter>,
    /// Pages and emulated tabs auto-attached (or being attached) once:
    /// a second caller waits for the first one's attach to be told.
    auto_done: HashMap<String, Arc<tokio::sync::OnceCell<()>>>,
    /// Pages it has heard of through `targetCreated`.
    announced: HashSet<String>,
    /// Browser contexts it created (a session with a browser of its own):
    /// disposed, with their pages, when it goes.
    contexts: HashSet<String>,
}

/// What goes to the client, in order: answers and synthesized events go
/// through the pump, behind the browser events that came before them.
enum Ordered {
    Frame(Value),
    /// Resolves once everything queued before it reached the client's
    /// queue (a synthesized attach before the answer that needs it).
    Barrier(tokio::sync::oneshot::Sender<()>),
}

struct Client {
    seat: Seat,
    /// The page session a page entry's calls go to.
    page_session: Mutex<Option<String>>,
    state: Mutex<ClientState>,
    /// Calls written to the browser, by the connection's id for them.
    waiting: Mutex<HashMap<u64, Waiter>>,
    ordered: mpsc::UnboundedSender<Ordered>,
    next_virtual: AtomicU64,
}

/// Serves one client on an upgraded WebSocket until either side goes.
pub async fn serve<S>(ws: WebSocketStream<S>, seat: Seat, entry: Entry, limits: Limits)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sink, mut stream) = ws.split();
    let (ordered_tx, ordered_rx) = mpsc::unbounded_channel();
    let client = Arc::new(Client {
        seat,
        page_session: Mutex::new(None),
        state: Mutex::default(),
        waiting: Mutex::default(),
        ordered: ordered_tx,
        next_virtual: AtomicU64::new(1),
    });
    let (stop_tx, mut stop) = watch::channel(false);
    let stop_tx = Arc::new(stop_tx);

    // The writer: frames to the client, dropping it when it does not read.
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<String>();
    let queued = Arc::new(AtomicUsize::new(0));
    let writer = {
        let queued = queued.clone();
        let stop_tx = stop_tx.clone();
        tokio::spawn(async move {
            while let Some(frame) = out_rx.recv().await {
                let len = frame.len();
                let sent = tokio::time::timeout(limits.send_stall, sink.send(Message::text(frame)));
                if !matches!(sent.await, Ok(Ok(()))) {
                    tracing::info!("cdp front: a client stopped reading; dropping it");
                    break;
                }
                queued.fetch_sub(len, Ordering::SeqCst);
            }
            stop_tx.send_replace(true);
            let _ = sink.close().await;
        })
    };
    let out = Out {
        tx: out_tx,
        queued,
        cap: limits.send_buffer,
        stop: stop_tx.clone(),
    };
    let pump = tokio::spawn(pump(
        client.clone(),
        client.seat.conn.subscribe(),
        ordered_rx,
        out,
    ));

    if let Entry::Page(target) = &entry {
        match client.attach_page(target).await {
            Ok(session) => *lock(&client.page_session) = Some(session),
            Err(e) => {
                tracing::info!(error = %e, "cdp front: the page could not be attached");
                stop_tx.send_replace(true);
            }
        }
    }

    let slots = Arc::new(tokio::sync::Semaphore::new(limits.in_flight));
    let conn = client.seat.conn.clone();
    // One dispatcher writes the client's calls to the browser in the order
    // they came (pipelined input events must not swap); answers are
    // awaited side by side. Its calls in flight end with it.
    let (calls_tx, calls_rx) = mpsc::unbounded_channel();
    let dispatcher = tokio::spawn(dispatch(client.clone(), calls_rx));
    loop {
        let msg = tokio::select! {
            m = stream.next() => m,
            _ = stop.wait_for(|s| *s) => break,
            _ = conn.closed() => break,
        };
        let text = match msg {
            Some(Ok(Message::Text(t))) => t.to_string(),
            Some(Ok(Message::Binary(b))) => String::from_utf8_lossy(&b).into_owned(),
            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
            Some(Ok(_)) => continue,
        };
        if text.len() > limits.max_frame {
            break;
        }
        let Ok(call) = serde_json::from_str::<Value>(&text) else {
            // Chrome answers a frame it cannot parse with an error and no id.
            client.send(json!({"error": {"code": -32700, "message": "the message is not JSON"}}));
            continue;
        };
        let Some(id) = call["id"].as_u64().filter(|_| call["method"].is_string()) else {
            client.send(json!({"id": call["id"], "error": {"code": -32600, "message": "a message needs a numeric id and a method"}}));
            continue;
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            client.answer(
                id,
                call["sessionId"].as_str(),
                Err(policy::refused(
                    call["method"].as_str().unwrap_or_default(),
                    &format!(
                        "more than {} calls are waiting for an answer",
                        limits.in_flight
                    ),
                )),
            );
            continue;
        };
        let _ = calls_tx.send((id, call, slot));
    }
    stop_tx.send_replace(true);
    dispatcher.abort();
    pump.abort();
    writer.abort();
    // Calls still out: nobody waits for them (their pages are free again).
    for (cid, _) in lock(&client.waiting).drain() {
        conn.forget_in_line(cid);
    }
    client.detach_all().await;
}

type Queued = (u64, Value, tokio::sync::OwnedSemaphorePermit);

/// Takes the client's calls in order: a plain call on a page's session is
/// written to the browser before the next one is looked at, and its answer
/// comes back among the browser's events, in the order the browser sent
/// them (see `pump`); calls the front end answers itself run on their own.
async fn dispatch(client: Arc<Client>, mut calls: mpsc::UnboundedReceiver<Queued>) {
    let mut own = tokio::task::JoinSet::new();
    while let Some((id, call, slot)) = calls.recv().await {
        while own.try_join_next().is_some() {}
        let Some((session, page)) = client.plain(&call) else {
            let c = client.clone();
            own.spawn(async move {
                c.call(id, call).await;
                drop(slot);
            });
            continue;
        };
        let method = call["method"].as_str().unwrap_or_default();
        // A dialog's answer never waits: the call it unblocks may hold the
        // page while a webrig command waits for it.
        let turn = match method {
            "Page.handleJavaScriptDialog" => None,
            _ => Some(client.seat.gates.shared(&page).await),
        };
        let params = match &call["params"] {
            Value::Null => json!({}),
            p => p.clone(),
        };
        // A page entry's calls came without a session; so go the answers.
        let given = call["sessionId"].as_str().map(str::to_string);
        let waiter = Waiter {
            id,
            session: given.clone(),
            _turn: turn,
            _slot: slot,
        };
        let started = client
            .seat
            .conn
            .start_in_line(Some(&session), method, params, |cid| {
                lock(&client.waiting).insert(cid, waiter);
            })
            .await;
        if let Err(e) = started {
            client.answer(id, given.as_deref(), Err(cdp_error(&e)));
        }
    }
}

/// A client's call written to the browser, until its answer comes.
struct Waiter {
    /// The client's id for it, and the session it named.
    id: u64,
    session: Option<String>,
    _turn: Option<tokio::sync::OwnedRwLockReadGuard<()>>,
    _slot: tokio::sync::OwnedSemaphorePermit,
}

/// The client's outgoing queue, with its byte count.
struct Out {
    tx: mpsc::UnboundedSender<String>,
    queued: Arc<AtomicUsize>,
    cap: usize,
    stop: Arc<watch::Sender<bool>>,
}

impl Out {
    fn push(&self, frame: &Value) {
        let text = frame.to_string();
        let now = self.queued.fetch_add(text.len(), Ordering::SeqCst) + text.len();
        if now > self.cap {
            tracing::info!(
                queued = now,
                "cdp front: a client's queue passed its cap; dropping it"
            );
            self.stop.send_replace(true);
            return;
        }
        let _ = self.tx.send(text);
    }
}

/// Moves browser events and the client's answers to its queue, in order:
/// events already received go first (the connection's reader puts an
/// event in the channel before it hands over a later answer).
async fn pump(
    client: Arc<Client>,
    mut events: tokio::sync::broadcast::Receiver<Arc<Event>>,
    mut ordered: mpsc::UnboundedReceiver<Ordered>,
    out: Out,
) {
    loop {
        tokio::select! {
            biased;
            e = events.recv() => match e {
                Ok(e) if e.method.is_empty() => {
                    // An answer to one of this client's calls, in line.
                    let cid = e.params["id"].as_u64().unwrap_or_default();
                    let Some(w) = lock(&client.waiting).remove(&cid) else { continue };
                    let mut frame = json!({"id": w.id});
                    match e.params.get("error") {
                        Some(err) => frame["error"] = err.clone(),
                        None => frame["result"] = e.params["result"].clone(),
                    }
                    if let Some(s) = &w.session {
                        frame["sessionId"] = json!(s);
                    }
                    out.push(&frame);
                }
                Ok(e) => {
                    for frame in client.event(&e) {
                        out.push(&frame);
                    }
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                    // Answers may be among the lost: the client cannot go on.
                    tracing::info!(lost = n, "cdp front: a client fell behind the browser; dropping it");
                    out.stop.send_replace(true);
                    break;
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            },
            o = ordered.recv() => match o {
                Some(Ordered::Frame(f)) => out.push(&f),
                Some(Ordered::Barrier(done)) => {
                    let _ = done.send(());
                }
                None => break,
            },
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn cdp_error(e: &CdpError) -> Value {
    match e {
        CdpError::Protocol { code, message } => json!({"code": code, "message": message}),
        other => json!({"code": -32000, "message": other.to_string()}),
    }
}

/// The id of a page's emulated tab target.
fn tab_of(page: &str) -> String {
    format!("tab-{page}")
}

impl Client {
    fn send(&self, frame: Value) {
        let _ = self.ordered.send(Ordered::Frame(frame));
    }

    /// Waits until what was sent so far is in the client's queue.
    async fn flush(&self) {
        let (tx, rx) = tokio::sync::oneshot::channel();
        if self.ordered.send(Ordered::Barrier(tx)).is_ok() {
            let _ = rx.await;
        }
    }

    fn answer(&self, id: u64, session: Option<&str>, result: Result<Value, Value>) {
        let mut frame = match result {
            Ok(r) => json!({"id": id, "result": r}),
            Err(e) => json!({"id": id, "error": e}),
        };
        if let Some(s) = session {
            frame["sessionId"] = json!(s);
        }
        self.send(frame);
    }

    /// One call from the client, answered whatever happens.
    async fn call(&self, id: u64, call: Value) {
        let method = call["method"].as_str().unwrap_or_default().to_string();
        let params = match &call["params"] {
            Value::Null => json!({}),
            p => p.clone(),
        };
        let given = call["sessionId"].as_str().map(str::to_string);
        // A page entry's calls without a session go to its page.
        let session = given.clone().or_else(|| lock(&self.page_session).clone());
        let result = match &session {
            Some(s) => self.session_call(s, &method, params).await,
            None => self.browser_call(&method, params).await,
        };
        self.answer(id, given.as_deref(), result);
    }

    async fn session_call(
        &self,
        session: &str,
        method: &str,
        params: Value,
    ) -> Result<Value, Value> {
        let Some(sess) = lock(&self.state).sessions.get(session).cloned() else {
            return Err(
                json!({"code": -32001, "message": format!("Session with given id not found: {session}")}),
            );
        };
        if sess.kind == Kind::Tab {
            return self.tab_call(session, &sess.page, method, &params).await;
        }
        let relay = self.seat.relay;
        match policy::on_session(method, &params, &sess.page, relay) {
            Verdict::Refuse(why) => return Err(policy::refused(method, why)),
            Verdict::Answer(v) => return Ok(v),
            Verdict::SitesOnly(urls) => self.check_sites(method, &urls).await?,
            Verdict::Pass => {}
        }
        if method == "Target.detachFromTarget" {
            return self.detach_child(session, &params).await;
        }
        // A call that passed after a check (a relay cookie call).
        let _turn = self.seat.gates.shared(&sess.page).await;
        self.seat
            .conn
            .call(Some(session), method, params)
            .await
            .map_err(|e| cdp_error(&e))
    }

    /// A call on one of the client's page (or frame) sessions that goes to
    /// the browser as it is: its session and the page whose turn it takes.
    fn plain(&self, call: &Value) -> Option<(String, String)> {
        let method = call["method"].as_str()?;
        let session = match call["sessionId"].as_str() {
            Some(s) => s.to_string(),
            None => lock(&self.page_session).clone()?,
        };
        let sess = lock(&self.state).sessions.get(&session).cloned()?;
        let plain = sess.kind != Kind::Tab
            && method != "Target.detachFromTarget"
            && policy::on_session(method, &call["params"], &sess.page, self.seat.relay)
                == Verdict::Pass;
        plain.then_some((session, sess.page))
    }

    /// A frame's or worker's session detached by the client.
    async fn detach_child(&self, parent: &str, params: &Value) -> Result<Value, Value> {
        let child = params["sessionId"].as_str().unwrap_or_default().to_string();
        let known = lock(&self.state)
            .sessions
            .get(&child)
            .is_some_and(|s| s.kind == Kind::Child);
        if !known {
            return Err(policy::refused(
                "Target.detachFromTarget",
                "no such session of this client",
            ));
        }
        let r = self
            .seat
            .conn
            .call(Some(parent), "Target.detachFromTarget", params.clone())
            .await
            .map_err(|e| cdp_error(&e));
        lock(&self.state).sessions.remove(&child);
        r
    }

    /// Calls on an emulated tab target's session: it attaches its page.
    async fn tab_call(
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
                        self.send(json!({
                            "method": "Target.attachedToTarget",
                            "sessionId": session,
                            "params": {"sessionId": child, "targetInfo": info, "waitingForDebugger": false},
                        }));
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
    async fn check_sites(&self, method: &str, urls: &[String]) -> Result<(), Value> {
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
    async fn targets(&self) -> Result<Vec<Value>, Value> {
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
    fn dress(&self, mut info: Value) -> Value {
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

    async fn info_of(&self, page: &str) -> Result<Value, Value> {
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

    /// Attaches a page of the session for the client; its session id.
    async fn attach_page(&self, page: &str) -> Result<String, CdpError> {
        let known = self
            .targets()
            .await
            .map_err(|_| CdpError::Closed)?
            .iter()
            .any(|t| t["targetId"] == page);
        if !known {
            return Err(CdpError::Protocol {
                code: -32000,
                message: format!("No target with given id found: {page}"),
            });
        }
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
        self.send(json!({
            "method": "Target.attachedToTarget",
            "params": {"sessionId": session, "targetInfo": target_info, "waitingForDebugger": false},
        }));
        Ok(session)
    }

    /// Auto-attaches what the client's browser-level filter asks for.
    async fn auto_attach_all(&self, pages: &[Value]) -> Result<(), Value> {
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
    fn announce(&self, pages: &[Value]) {
        let mut state = lock(&self.state);
        let Some(filter) = state.discover.clone() else {
            return;
        };
        for info in pages {
            let id = info["targetId"].as_str().unwrap_or_default().to_string();
            if !state.announced.insert(id) {
                continue;
            }
            if filter.admits("tab") {
                self.send(json!({"method": "Target.targetCreated", "params": {"targetInfo": tab_info_of(info)}}));
            }
            if filter.admits("page") {
                self.send(
                    json!({"method": "Target.targetCreated", "params": {"targetInfo": info}}),
                );
            }
        }
    }

    async fn browser_call(&self, method: &str, params: Value) -> Result<Value, Value> {
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
                if params["flatten"].as_bool() != Some(true) {
                    return Err(policy::refused(
                        method,
                        "only flat sessions (flatten: true) are served",
                    ));
                }
                lock(&self.state).auto = Some(Filter::parse(&params));
                let pages = self.targets().await?;
                self.auto_attach_all(&pages).await?;
                Ok(json!({}))
            }
            "Target.getTargets" => {
                let filter = Filter::parse(&params);
                let mut list = Vec::new();
                for info in self.targets().await? {
                    if filter.admits("tab") {
                        list.push(tab_info_of(&info));
                    }
                    if filter.admits("page") {
                        list.push(info);
                    }
                }
                Ok(json!({"targetInfos": list}))
            }
            "Target.getTargetInfo" => match params["targetId"].as_str() {
                None => Ok(json!({"targetInfo": {
                    "targetId": "webrig-browser", "type": "browser", "title": "", "url": "",
                    "attached": true, "canAccessOpener": false,
                }})),
                Some(t) => match t.strip_prefix("tab-") {
                    Some(page) => Ok(json!({"targetInfo": self.tab_info(page).await?})),
                    None => Ok(json!({"targetInfo": self.info_of(t).await?})),
                },
            },
            "Target.attachToTarget" => {
                if params["flatten"].as_bool() != Some(true) {
                    return Err(policy::refused(
                        method,
                        "only flat sessions (flatten: true) are served",
                    ));
                }
                let target = params["targetId"].as_str().unwrap_or_default();
                let (page, tab) = match target.strip_prefix("tab-") {
                    Some(page) => (page, true),
                    None => (target, false),
                };
                let info = self.info_of(page).await?;
                let session = self.attach_and_tell(&info, tab).await?;
                self.flush().await;
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
                self.auto_attach_all(std::slice::from_ref(&info)).await?;
                self.flush().await;
                Ok(json!({"targetId": target}))
            }
            "Target.closeTarget" | "Target.activateTarget" => {
                let target = params["targetId"].as_str().unwrap_or_default();
                let page = target.strip_prefix("tab-").unwrap_or(target);
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
        // The tab's debuggee: the extension attaches each tab once.
        let session = self.attach_page(page).await.map_err(|e| cdp_error(&e))?;
        self.seat
            .conn
            .call(Some(&session), "Network.getCookies", json!({"urls": urls}))
            .await
            .map_err(|e| cdp_error(&e))
    }

    /// An event from the session's browser, as the client should see it.
    fn event(self: &Arc<Self>, e: &Event) -> Vec<Value> {
        match &e.session_id {
            Some(s) => {
                let mut state = lock(&self.state);
                let Some(sess) = state.sessions.get(s).cloned() else {
                    return Vec::new();
                };
                match e.method.as_str() {
                    "Target.attachedToTarget" => {
                        if let Some(child) = e.params["sessionId"].as_str() {
                            state.sessions.insert(
                                child.to_string(),
                                Sess {
                                    page: sess.page.clone(),
                                    kind: Kind::Child,
                                },
                            );
                        }
                    }
                    "Target.detachedFromTarget" => {
                        if let Some(child) = e.params["sessionId"].as_str() {
                            state.sessions.remove(child);
                        }
                    }
                    _ => {}
                }
                drop(state);
                let mut frame = json!({"method": e.method, "params": e.params});
                // A page entry's own session speaks without a sessionId.
                if lock(&self.page_session).as_deref() != Some(s.as_str()) {
                    frame["sessionId"] = json!(s);
                }
                vec![frame]
            }
            None => self.browser_event(e),
        }
    }

    fn browser_event(self: &Arc<Self>, e: &Event) -> Vec<Value> {
        let p = &e.params;
        match e.method.as_str() {
            "Target.detachedFromTarget" => {
                let Some(s) = p["sessionId"].as_str() else {
                    return Vec::new();
                };
                let Some(sess) = lock(&self.state).sessions.remove(s) else {
                    return Vec::new();
                };
                vec![json!({"method": e.method, "params": {"sessionId": s, "targetId": sess.page}})]
            }
            "Target.targetCreated" | "Target.targetInfoChanged"
                if p["targetInfo"]["type"] == "page" =>
            {
                let info = self.dress(p["targetInfo"].clone());
                if e.method == "Target.targetCreated" {
                    // A page the client did not open (a popup, webrig's
                    // `tab new`): announced and attached as it asked.
                    let me = self.clone();
                    let created = info.clone();
                    tokio::spawn(async move {
                        me.announce(std::slice::from_ref(&created));
                        let _ = me.auto_attach_all(std::slice::from_ref(&created)).await;
                    });
                    return Vec::new();
                }
                let state = lock(&self.state);
                let Some(filter) = &state.discover else {
                    return Vec::new();
                };
                let id = info["targetId"].as_str().unwrap_or_default();
                if !state.announced.contains(id) {
                    return Vec::new();
                }
                let mut frames = Vec::new();
                if filter.admits("tab") {
                    frames.push(
                        json!({"method": e.method, "params": {"targetInfo": tab_info_of(&info)}}),
                    );
                }
                if filter.admits("page") {
                    frames.push(json!({"method": e.method, "params": {"targetInfo": info}}));
                }
                frames
            }
            "Target.targetDestroyed" | "Target.targetCrashed" => match p["targetId"].as_str() {
                Some(id) => self.gone(id, e.method == "Target.targetCrashed"),
                None => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// The frames that tell the client page `id` is gone (or crashed):
    /// its sessions detach, and a discovering client hears of it. Told
    /// once, whoever reports it first (the browser, or a close the client
    /// asked for on a transport that reports none).
    fn gone(&self, id: &str, crashed: bool) -> Vec<Value> {
        let mut state = lock(&self.state);
        let mut frames = Vec::new();
        if !crashed {
            let mine: Vec<(String, Sess)> = state
                .sessions
                .iter()
                .filter(|(_, s)| s.page == id && s.kind != Kind::Child)
                .map(|(k, s)| (k.clone(), s.clone()))
                .collect();
            for (s, sess) in mine {
                state.sessions.remove(&s);
                let target = if sess.kind == Kind::Tab {
                    tab_of(id)
                } else {
                    id.to_string()
                };
                frames.push(json!({"method": "Target.detachedFromTarget", "params": {"sessionId": s, "targetId": target}}));
            }
        }
        let method = if crashed {
            "Target.targetCrashed"
        } else {
            "Target.targetDestroyed"
        };
        if state.announced.contains(id)
            && let Some(filter) = &state.discover
        {
            let mut params = json!({"targetId": id});
            if crashed {
                params["status"] = json!("crashed");
                params["errorCode"] = json!(0);
            }
            if filter.admits("page") {
                frames.push(json!({"method": method, "params": params}));
            }
            if filter.admits("tab") && !crashed {
                frames.push(json!({"method": method, "params": {"targetId": tab_of(id)}}));
            }
        }
        if !crashed {
            state.announced.remove(id);
        }
        frames
    }

    /// Lets go of one of the client's sessions.
    async fn release(&self, session: &str, sess: &Sess) {
        if sess.kind == (Kind::Page { shared: false }) {
            let _ = self
                .seat
                .conn
                .call(
                    None,
                    "Target.detachFromTarget",
                    json!({"sessionId": session}),
                )
                .await;
        }
    }

    /// The client went: every page session it attached is detached (their
    /// frames' sessions go with them); the pages stay the session's.
    async fn detach_all(&self) {
        let (sessions, contexts): (Vec<(String, Sess)>, Vec<String>) = {
            let mut state = lock(&self.state);
            (
                state.sessions.drain().collect(),
                state.contexts.drain().collect(),
            )
        };
        for (id, sess) in sessions {
            self.release(&id, &sess).await;
        }
        for id in contexts {
            let _ = self
                .seat
                .conn
                .call(
                    None,
                    "Target.disposeBrowserContext",
                    json!({"browserContextId": id}),
                )
                .await;
        }
    }

    /// The session has a browser of its own (launched apart, connected,
    /// pooled): new contexts in it stay the session's.
    fn own_browser(&self) -> bool {
        !self.seat.relay && self.seat.conn.context().is_none()
    }
}

/// A page's emulated tab target.
fn tab_info_of(page: &Value) -> Value {
    let mut tab = page.clone();
    tab["targetId"] = json!(tab_of(page["targetId"].as_str().unwrap_or_default()));
    tab["type"] = json!("tab");
    tab
}
