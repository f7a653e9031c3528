//! One CDP connection multiplexing flat sessions, over any text-frame transport.
//!
//! Owns request ids, matching responses to callers, fanning events out to
//! subscribers, and failing every pending call when the transport drops. The
//! transport is a launched browser's DevTools pipe (through its keeper), a
//! browser's WebSocket endpoint (`connect`), or the extension relay, which
//! hands the same [`Connection::from_transport`] its own frame stream: every
//! feature above this layer works unchanged on all three. A [`Connection::scope`]
//! is one browser context's view of a shared browser's connection (see
//! `scope`): the same type, so the layers above do not know the difference.
//! Typed protocol crates are not used:
//! the handful of methods webrig calls are plain JSON, and a generated protocol
//! crate would cost minutes of compile time on a 2-core machine.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::{Sink, SinkExt, Stream, StreamExt};
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::{broadcast, oneshot, watch};

mod scope;

/// Largest frame accepted from a browser (full-page screenshots are big).
const MAX_FRAME: usize = 256 << 20;
const EVENT_BUFFER: usize = 4096;

#[derive(Debug, Clone, thiserror::Error)]
pub enum CdpError {
    #[error("the browser connection is closed")]
    Closed,
    #[error("{message} (CDP error {code})")]
    Protocol { code: i64, message: String },
    #[error("cannot connect to {url}: {reason}")]
    Connect { url: String, reason: String },
}

/// A CDP event: `session_id` is the flat session it came from (None: browser).
#[derive(Debug)]
pub struct Event {
    pub session_id: Option<String>,
    pub method: String,
    pub params: Value,
}

type Pending = Mutex<HashMap<u64, oneshot::Sender<Result<Value, CdpError>>>>;
type FrameSink = std::pin::Pin<Box<dyn Sink<String, Error = ()> + Send>>;

struct Inner {
    /// Callers write their frame themselves (no writer task): one task hop
    /// less per call, which is a tenth of a warm `eval` here.
    sink: tokio::sync::Mutex<FrameSink>,
    pending: Pending,
    next_id: AtomicU64,
    events: broadcast::Sender<Arc<Event>>,
    closed: Arc<watch::Sender<bool>>,
    /// Which browser context each target, frame, flat session and download
    /// belongs to, for the scopes on this connection (empty without any).
    routes: Mutex<scope::Routes>,
    /// Calls whose answers travel with the events (see [`Connection::start_in_line`]),
    /// and the scope whose subscribers get them.
    in_line: Mutex<HashMap<u64, Option<Arc<scope::Scope>>>>,
}

/// A cheap-to-clone handle on one browser connection, or on one browser
/// context's scope of it.
#[derive(Clone)]
pub struct Connection {
    inner: Arc<Inner>,
    scope: Option<Arc<scope::Scope>>,
}

#[derive(Deserialize)]
struct Incoming {
    id: Option<u64>,
    result: Option<Value>,
    error: Option<ProtocolError>,
    method: Option<String>,
    #[serde(default)]
    params: Value,
    #[serde(rename = "sessionId")]
    session_id: Option<String>,
}

#[derive(Deserialize)]
struct ProtocolError {
    code: i64,
    message: String,
}

impl Connection {
    /// Connects to a browser's `ws://…/devtools/browser/…` endpoint.
    pub async fn connect_ws(url: &str) -> Result<Connection, CdpError> {
        let config = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
            .max_message_size(Some(MAX_FRAME))
            .max_frame_size(Some(MAX_FRAME));
        let (ws, _) = tokio_tungstenite::connect_async_with_config(url, Some(config), true)
            .await
            .map_err(|e| CdpError::Connect {
                url: url.to_string(),
                reason: e.to_string(),
            })?;
        use tokio_tungstenite::tungstenite::Message;
        let (sink, stream) = ws.split();
        let sink = sink.with(|text: String| async move {
            Ok::<_, tokio_tungstenite::tungstenite::Error>(Message::text(text))
        });
        let stream = stream.filter_map(|msg| async move {
            match msg {
                Ok(Message::Text(text)) => Some(Ok(text.to_string())),
                Ok(Message::Binary(bytes)) => {
                    Some(Ok(String::from_utf8_lossy(&bytes).into_owned()))
                }
                Ok(Message::Close(_)) => Some(Err(())),
                Ok(_) => None,
                Err(_) => Some(Err(())),
            }
        });
        Ok(Connection::from_transport(sink, stream))
    }

    /// Connects to a browser keeper's Unix socket (see `keeper`): the
    /// browser's `--remote-debugging-pipe`, NUL-terminated JSON messages.
    pub async fn connect_unix(path: &std::path::Path) -> Result<Connection, CdpError> {
        let stream =
            tokio::net::UnixStream::connect(path)
                .await
                .map_err(|e| CdpError::Connect {
                    url: path.display().to_string(),
                    reason: e.to_string(),
                })?;
        let (read, write) = stream.into_split();
        let sink = futures_util::sink::unfold(write, |mut write, text: String| async move {
            use tokio::io::AsyncWriteExt;
            let mut frame = text.into_bytes();
            frame.push(0);
            write.write_all(&frame).await?;
            Ok::<_, std::io::Error>(write)
        });
        let reader = tokio::io::BufReader::with_capacity(1 << 16, read);
        let stream = futures_util::stream::unfold(reader, |mut reader| async move {
            use tokio::io::{AsyncBufReadExt, AsyncReadExt};
            let mut frame = Vec::new();
            let read = (&mut reader)
                .take(MAX_FRAME as u64 + 1)
                .read_until(0, &mut frame)
                .await;
            match read {
                Ok(_) if frame.last() == Some(&0) => {
                    frame.pop();
                    let text = String::from_utf8(frame)
                        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
                    Some((Ok(text), reader))
                }
                // End of input, an error, or a frame over the cap.
                _ => Some((Err(()), reader)),
            }
        });
        Ok(Connection::from_transport(sink, stream))
    }

    /// Runs the protocol over any transport of text frames. The connection counts
    /// as closed when `stream` ends or yields an error, or `sink` fails.
    pub fn from_transport<Tx, Rx>(sink: Tx, stream: Rx) -> Connection
    where
        Tx: Sink<String> + Send + 'static,
        Rx: Stream<Item = Result<String, ()>> + Send + 'static,
    {
        let (events, _) = broadcast::channel(EVENT_BUFFER);
        let closed = Arc::new(watch::channel(false).0);
        let sink: FrameSink = Box::pin(sink.sink_map_err(|_| ()));
        let inner = Arc::new(Inner {
            sink: tokio::sync::Mutex::new(sink),
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(first_id()),
            events,
            closed: closed.clone(),
            routes: Mutex::default(),
            in_line: Mutex::default(),
        });

        let weak = Arc::downgrade(&inner);
        tokio::spawn(async move {
            let mut stream = std::pin::pin!(stream);
            let mut closed_rx = closed.subscribe();
            loop {
                let frame = tokio::select! {
                    frame = stream.next() => frame,
                    _ = closed_rx.wait_for(|closed| *closed) => None,
                };
                let Some(Ok(text)) = frame else { break };
                let Some(inner) = weak.upgrade() else { break };
                inner.dispatch(&text);
            }
            closed.send_replace(true);
            if let Some(inner) = weak.upgrade() {
                inner.fail_pending();
            }
        });

        Connection { inner, scope: None }
    }

    /// Sends `method` to the browser (`session` None) or to a flat session.
    pub async fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, CdpError> {
        let (id, frame) = self.frame(session, method, params)?;
        let (tx, rx) = oneshot::channel();
        self.inner.lock_pending().insert(id, tx);
        if let Some(scope) = &self.scope {
            scope.track(id);
        }
        // Removes the entry if this future is dropped before the answer comes.
        let _guard = PendingGuard {
            inner: &self.inner,
            scope: self.scope.as_deref(),
            id,
        };
        if self.inner.sink.lock().await.send(frame).await.is_err() {
            self.close();
            return Err(CdpError::Closed);
        }
        // The reader may have failed all pending calls between our check and insert.
        if self.is_closed() {
            return Err(CdpError::Closed);
        }
        let started = std::time::Instant::now();
        let answer = rx.await.unwrap_or(Err(CdpError::Closed));
        tracing::trace!(method, ms = started.elapsed().as_secs_f64() * 1e3, "cdp");
        let answer = answer?;
        Ok(match &self.scope {
            Some(scope) => scope.narrow(session, method, answer),
            None => answer,
        })
    }

    /// A call's id and frame, once the scope (if any) admitted it.
    fn frame(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<(u64, String), CdpError> {
        if self.is_closed() {
            return Err(CdpError::Closed);
        }
        let params = match &self.scope {
            Some(scope) => scope.admit(&self.inner, session, method, params)?,
            None => params,
        };
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let mut frame = serde_json::json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            frame["sessionId"] = Value::String(session.to_string());
        }
        Ok((id, frame.to_string()))
    }

    /// Writes a call whose answer comes to this connection's subscribers
    /// (see [`Inner::answer_in_line`]) in the order the browser sent it
    /// among the events, not to the caller: a relay of the browser's
    /// frames (the CDP front end) keeps their order. The call's id.
    /// `before` learns the id before the frame is written (the answer may
    /// come at once).
    pub async fn start_in_line(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
        before: impl FnOnce(u64),
    ) -> Result<(), CdpError> {
        let (id, frame) = self.frame(session, method, params)?;
        self.inner
            .in_line
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, self.scope.clone());
        before(id);
        if self
            .inner
            .sink
            .lock()
            .await
            .send(frame.to_string())
            .await
            .is_err()
        {
            self.forget_in_line(id);
            self.close();
            return Err(CdpError::Closed);
        }
        Ok(())
    }

    /// Drops a call started with [`Connection::start_in_line`] whose answer
    /// nobody waits for any more.
    pub fn forget_in_line(&self, id: u64) {
        self.inner
            .in_line
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
    }

    /// Every event from now on. Slow subscribers lose the oldest events
    /// (`RecvError::Lagged`) rather than slowing the connection.
    /// A scope sees only its browser context's events.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        match &self.scope {
            Some(scope) => scope.subscribe(),
            None => self.inner.events.subscribe(),
        }
    }

    pub fn is_closed(&self) -> bool {
        *self.inner.closed.borrow() || self.scope.as_ref().is_some_and(|s| s.is_closed())
    }

    /// Resolves once the transport has dropped (or the scope was closed).
    pub async fn closed(&self) {
        let mut rx = self.inner.closed.subscribe();
        match &self.scope {
            None => {
                let _ = rx.wait_for(|closed| *closed).await;
            }
            Some(scope) => {
                let mut own = scope.closed_rx();
                tokio::select! {
                    _ = rx.wait_for(|closed| *closed) => {}
                    _ = own.wait_for(|closed| *closed) => {}
                }
            }
        }
    }

    /// Ends the connection: the reader stops (dropping the transport) and
    /// every pending call fails with [`CdpError::Closed`]. On a scope, only
    /// the scope ends, and only its calls fail: the shared browser and the
    /// other contexts on it go on.
    pub fn close(&self) {
        match &self.scope {
            Some(scope) => scope.close(&self.inner),
            None => {
                self.inner.closed.send_replace(true);
                self.inner.fail_pending();
                // Close our half too (a WebSocket's close frame): the far end
                // (a pool counting its sessions) sees the end now, not when
                // the last clone of this connection is dropped.
                if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                    let inner = self.inner.clone();
                    runtime.spawn(async move {
                        let _ = inner.sink.lock().await.close().await;
                    });
                }
            }
        }
    }

    /// Browser context `context`'s view of this connection: the browser's
    /// targets, events, downloads and cookies of that context only, and no
    /// browser-level method that would reach past it (see `scope`).
    pub fn scope(&self, context: &str) -> Connection {
        Connection {
            scope: Some(scope::Scope::open(&self.inner, context)),
            inner: self.inner.clone(),
        }
    }

    /// Notes that a caller (an agent, not a background task) was told this
    /// scope's browser is gone.
    pub fn told_closed(&self) {
        if let Some(scope) = &self.scope {
            scope.told_closed();
        }
    }

    /// Whether a caller was told this scope closed (see `told_closed`);
    /// always false for a whole connection.
    pub fn closed_was_told(&self) -> bool {
        self.scope.as_ref().is_some_and(|s| s.closed_was_told())
    }

    /// The browser context this connection is scoped to, if any.
    pub fn context(&self) -> Option<&str> {
        self.scope.as_deref().map(scope::Scope::context)
    }
}

/// Where a connection's request ids start: random, so answers to calls a
/// crashed daemon left in flight on a re-attached browser (a keeper's pipe
/// outlives its client) do not match the new daemon's calls. Below 2^30:
/// the browser reads ids as 32-bit integers.
fn first_id() -> u64 {
    let mut buf = [0u8; 4];
    if getrandom::fill(&mut buf).is_err() {
        return 1;
    }
    u64::from(u32::from_le_bytes(buf) >> 3) + 1
}

struct PendingGuard<'a> {
    inner: &'a Inner,
    scope: Option<&'a scope::Scope>,
    id: u64,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        self.inner.lock_pending().remove(&self.id);
        if let Some(scope) = self.scope {
            scope.untrack(self.id);
        }
    }
}

impl Inner {
    fn lock_pending(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<u64, oneshot::Sender<Result<Value, CdpError>>>> {
        // A poisoned map only means a panic elsewhere while holding it; the map
        // itself is still consistent (inserts and removes are single operations).
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn dispatch(&self, text: &str) {
        let Ok(msg) = serde_json::from_str::<Incoming>(text) else {
            tracing::warn!(len = text.len(), "ignoring a CDP frame that is not JSON");
            return;
        };
        if let Some(id) = msg.id {
            let Some(tx) = self.lock_pending().remove(&id) else {
                self.answer_in_line(id, msg);
                return;
            };
            let answer = match msg.error {
                Some(e) => Err(CdpError::Protocol {
                    code: e.code,
                    message: e.message,
                }),
                None => Ok(msg.result.unwrap_or(Value::Null)),
            };
            let _ = tx.send(answer);
        } else if let Some(method) = msg.method {
            let owner = self.route(msg.session_id.as_deref(), &method, &msg.params);
            let event = Arc::new(Event {
                session_id: msg.session_id,
                method,
                params: msg.params,
            });
            match owner {
                Some(scope) => scope.deliver(event),
                None => {
                    let _ = self.events.send(event);
                }
            }
        }
    }

    /// An answer to a call started with [`Connection::start_in_line`]:
    /// an [`Event`] with an empty method and `{id, result | error}`, sent
    /// where the scope's events go, in the order the browser sent it.
    fn answer_in_line(&self, id: u64, msg: Incoming) {
        let Some(scope) = self
            .in_line
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id)
        else {
            return;
        };
        let mut params = serde_json::json!({ "id": id });
        match msg.error {
            Some(e) => params["error"] = serde_json::json!({"code": e.code, "message": e.message}),
            None => params["result"] = msg.result.unwrap_or(Value::Null),
        }
        let event = Arc::new(Event {
            session_id: msg.session_id,
            method: String::new(),
            params,
        });
        match scope {
            Some(scope) => scope.deliver(event),
            None => {
                let _ = self.events.send(event);
            }
        }
    }

    fn fail_pending(&self) {
        for (_, tx) in self.lock_pending().drain() {
            let _ = tx.send(Err(CdpError::Closed));
        }
    }
}

/// The next event of a subscription, skipping over events lost to lag
/// (slow subscribers lose the oldest); None once the connection is gone.
pub async fn next_event(rx: &mut broadcast::Receiver<Arc<Event>>) -> Option<Arc<Event>> {
    loop {
        match rx.recv().await {
            Ok(e) => return Some(e),
            Err(broadcast::error::RecvError::Lagged(n)) => {
                tracing::debug!(lost = n, "a CDP event subscriber lagged");
            }
            Err(broadcast::error::RecvError::Closed) => return None,
        }
    }
}

/// One flat session (a page target) on a connection.
#[derive(Clone)]
pub struct Session {
    conn: Connection,
    id: Arc<str>,
}

impl Session {
    /// Attaches to page target `target` as a flat session.
    pub async fn attach(conn: &Connection, target: &str) -> Result<Session, CdpError> {
        let attached = conn
            .call(
                None,
                "Target.attachToTarget",
                serde_json::json!({ "targetId": target, "flatten": true }),
            )
            .await?;
        let id = attached["sessionId"].as_str().ok_or(CdpError::Protocol {
            code: 0,
            message: "Target.attachToTarget returned no sessionId".into(),
        })?;
        Ok(Session::new(conn.clone(), id))
    }

    pub fn new(conn: Connection, id: &str) -> Self {
        Session {
            conn,
            id: Arc::from(id),
        }
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    pub async fn call(&self, method: &str, params: Value) -> Result<Value, CdpError> {
        self.conn.call(Some(&self.id), method, params).await
    }
}
