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

mod emulate;
mod events;
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
    /// The session's domain policy: what `Target.createTarget` may open
    /// (everything else a client loads meets the session's guard).
    pub policy: Option<Arc<super::policy::DomainPolicy>>,
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

struct Client {
    seat: Seat,
    /// The page session a page entry's calls go to.
    page_session: Mutex<Option<String>>,
    state: Mutex<ClientState>,
    /// Calls written to the browser, by the connection's id for them.
    waiting: Mutex<HashMap<u64, Waiter>>,
    /// Answers and events the front end makes, in order, to the pump.
    ordered: mpsc::UnboundedSender<Value>,
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
        let attached = match client.info_of(target).await {
            Ok(_) => client.attach_page(target).await.map_err(|e| cdp_error(&e)),
            Err(e) => Err(e),
        };
        match attached {
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
    mut ordered: mpsc::UnboundedReceiver<Value>,
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
                Some(f) => out.push(&f),
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

/// The page a target id names, and whether it named the page's emulated
/// tab (see [`tab_of`]).
fn page_of(target: &str) -> (&str, bool) {
    match target.strip_prefix("tab-") {
        Some(page) => (page, true),
        None => (target, false),
    }
}

impl Client {
    fn send(&self, frame: Value) {
        let _ = self.ordered.send(frame);
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
}
