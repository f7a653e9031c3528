//! Accepting connections on the daemon's two doors: TCP on loopback (HTTP API
//! clients, the extension) and the Unix socket in the owner-only state
//! directory (the CLI). Owns the per-door connection cap, the header-read and
//! idle timeouts, the request-body deadline and cap, and which connection
//! gives way when a door is full.
//!
//! Why not `axum::serve`: it has no header-read timeout, no idle timeout and no
//! cap, so 20,000 half-open connections used up the daemon's file descriptors
//! and `/ping` and the CLI hung until they closed. Here a full door closes its
//! oldest connection that is not running a request (a slow or silent client),
//! so a flood cannot keep a fresh, quick request out; connections running a
//! request are never dropped for room, and a request runs until its answer
//! is sent whole (a stream of progress events is not idle). A request whose body is still coming
//! is not running yet: a client that promises a body and never sends it
//! (an unauthenticated `POST /pair` with a large `Content-Length`) holds
//! nothing — it gives way like an idle one, and its body must arrive whole
//! within `body_timeout_ms` on every route.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{Notify, watch};
use tokio::time::Instant;

/// Which door a request came through; handlers read it from the request's
/// extensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// Loopback TCP: any local process (of any user) can knock.
    Tcp(SocketAddr),
    /// The Unix socket in the 0700 state directory: this user's processes.
    Local,
}

/// The door's rules, from `[limits]`.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    pub max_connections: usize,
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    /// Time a request's body has to arrive whole.
    pub body_timeout: Duration,
    /// Largest request body on any route (the handlers' own caps may be
    /// smaller): a backstop for routes that read their body themselves.
    pub body_bytes: u64,
}

/// One open connection as the door sees it.
struct Conn {
    /// Requests running on it now.
    busy: AtomicUsize,
    /// Of those, requests whose body is still arriving.
    receiving: AtomicUsize,
    /// When it last finished a request (or opened).
    last: Mutex<Instant>,
    /// Set when the door closes it to make room.
    evicted: Notify,
    gone: AtomicBool,
}

impl Conn {
    fn idle_since(&self) -> Option<Instant> {
        (self.busy.load(Ordering::SeqCst) == 0)
            .then(|| *self.last.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Every request on it is still waiting for its body: nothing has
    /// started that closing the connection could cut short.
    fn only_receiving(&self) -> bool {
        let busy = self.busy.load(Ordering::SeqCst);
        busy > 0 && self.receiving.load(Ordering::SeqCst) >= busy
    }
}

/// The open connections of one door, oldest first.
#[derive(Default)]
struct Table {
    next: u64,
    open: BTreeMap<u64, Arc<Conn>>,
}

impl Table {
    /// Makes room for one more under `max`: closes the oldest idle
    /// connection when full, else the oldest still receiving a body.
    /// `None` when every connection is running a request.
    fn admit(&mut self, max: usize) -> Option<(u64, Arc<Conn>)> {
        if self.open.len() >= max {
            let victim = self
                .open
                .iter()
                .find(|(_, c)| c.idle_since().is_some())
                .or_else(|| self.open.iter().find(|(_, c)| c.only_receiving()))
                .map(|(id, _)| *id)?;
            if let Some(c) = self.open.remove(&victim) {
                c.gone.store(true, Ordering::SeqCst);
                c.evicted.notify_one();
            }
        }
        let id = self.next;
        self.next += 1;
        let conn = Arc::new(Conn {
            busy: AtomicUsize::new(0),
            receiving: AtomicUsize::new(0),
            last: Mutex::new(Instant::now()),
            evicted: Notify::new(),
            gone: AtomicBool::new(false),
        });
        self.open.insert(id, conn.clone());
        Some((id, conn))
    }
}

/// Something that hands out connections: a TCP or Unix listener.
pub trait Door: Send + 'static {
    type Io: AsyncRead + AsyncWrite + Unpin + Send + 'static;
    fn accept(&mut self) -> impl Future<Output = std::io::Result<(Self::Io, Via)>> + Send;
}

impl Door for tokio::net::TcpListener {
    type Io = tokio::net::TcpStream;
    async fn accept(&mut self) -> std::io::Result<(Self::Io, Via)> {
        let (io, peer) = tokio::net::TcpListener::accept(self).await?;
        let _ = io.set_nodelay(true);
        Ok((io, Via::Tcp(peer)))
    }
}

impl Door for tokio::net::UnixListener {
    type Io = tokio::net::UnixStream;
    async fn accept(&mut self) -> std::io::Result<(Self::Io, Via)> {
        let (io, _) = tokio::net::UnixListener::accept(self).await?;
        Ok((io, Via::Local))
    }
}

/// Serves `app` on `door` until `stop` turns true; then lets running
/// requests finish.
pub async fn serve(
    mut door: impl Door,
    app: Router,
    rules: Rules,
    mut stop: watch::Receiver<bool>,
) {
    let table = Arc::new(Mutex::new(Table::default()));
    let mut tasks = tokio::task::JoinSet::new();
    loop {
        let accepted = tokio::select! {
            a = door.accept() => a,
            _ = stop.wait_for(|s| *s) => break,
        };
        let (io, via) = match accepted {
            Ok(x) => x,
            Err(e) => {
                // Out of file descriptors or a connection reset before we
                // took it: back off a moment rather than spin.
                tracing::debug!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(5)).await;
                continue;
            }
        };
        let admitted = table
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .admit(rules.max_connections);
        let Some((id, conn)) = admitted else {
            tracing::debug!("every connection is busy; refusing one");
            drop(io);
            continue;
        };
        let app = app.clone();
        let table = table.clone();
        let stop = stop.clone();
        tasks.spawn(async move {
            handle(io, via, app, rules, conn, stop).await;
            table
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .open
                .remove(&id);
        });
        // Reap finished connections so the set stays small.
        while tasks.try_join_next().is_some() {}
    }
    while tasks.join_next().await.is_some() {}
}

/// Counts a request as running on its connection while it lives.
struct Running(Arc<Conn>);

impl Drop for Running {
    fn drop(&mut self) {
        *self.0.last.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A response body being sent: its request counts as running until the
/// last frame is out (or the body is dropped).
struct Sending {
    inner: axum::body::Body,
    running: Option<Running>,
}

impl Body for Sending {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        if matches!(polled, Poll::Ready(None) | Poll::Ready(Some(Err(_)))) {
            this.running = None;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Why a connection was closed without an answer.
#[derive(Debug, thiserror::Error)]
#[error("a request from a web page (Sec-Fetch-Site)")]
struct WebPage;

/// Counts a request as still receiving its body while it lives.
struct Receiving(Arc<Conn>);

impl Drop for Receiving {
    fn drop(&mut self) {
        self.0.receiving.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A request body as the door lets handlers see it: it must arrive whole
/// before its deadline and within the cap, or it ends in an error (the
/// handler answers, the connection closes); while it is arriving, its
/// connection counts as receiving.
struct Watched {
    inner: Incoming,
    deadline: Pin<Box<tokio::time::Sleep>>,
    left: u64,
    receiving: Option<Receiving>,
}

impl Watched {
    fn new(inner: Incoming, conn: &Arc<Conn>, rules: &Rules) -> Watched {
        let receiving = (!inner.is_end_stream()).then(|| {
            conn.receiving.fetch_add(1, Ordering::SeqCst);
            Receiving(conn.clone())
        });
        Watched {
            inner,
            deadline: Box::pin(tokio::time::sleep(rules.body_timeout)),
            left: rules.body_bytes,
            receiving,
        }
    }

    fn fail(&mut self, why: String) -> Poll<Option<Result<Frame<Bytes>, BodyError>>> {
        self.receiving = None;
        Poll::Ready(Some(Err(why.into())))
    }
}

type BodyError = Box<dyn std::error::Error + Send + Sync>;

impl Body for Watched {
    type Data = Bytes;
    type Error = BodyError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BodyError>>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                let len = frame.data_ref().map_or(0, |d| d.len() as u64);
                if len > this.left {
                    return this.fail("the request body is larger than limits.body_bytes".into());
                }
                this.left -= len;
                if this.inner.is_end_stream() {
                    this.receiving = None;
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) => {
                this.receiving = None;
                Poll::Ready(Some(Err(e.into())))
            }
            Poll::Ready(None) => {
                this.receiving = None;
                Poll::Ready(None)
            }
            Poll::Pending if this.receiving.is_some() => {
                if this.deadline.as_mut().poll(cx).is_ready() {
                    return this.fail(
                        "the request body did not arrive within limits.body_timeout_ms".into(),
                    );
                }
                Poll::Pending
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

async fn handle<Io: AsyncRead + AsyncWrite + Unpin + Send + 'static>(
    io: Io,
    via: Via,
    app: Router,
    rules: Rules,
    conn: Arc<Conn>,
    mut stop: watch::Receiver<bool>,
) {
    let counted = conn.clone();
    let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
        // A web page knocking: close without answering (see
        // `routes::from_a_web_page`); hyper ends the connection on an error.
        let refused = super::routes::from_a_web_page(req.headers());
        counted.busy.fetch_add(1, Ordering::SeqCst);
        let running = Running(counted.clone());
        let watched = {
            let counted = counted.clone();
            move |body: Incoming| Watched::new(body, &counted, &rules)
        };
        req.extensions_mut().insert(via);
        if let Via::Tcp(peer) = via {
            req.extensions_mut()
                .insert(axum::extract::ConnectInfo(peer));
        }
        let mut app = app.clone();
        async move {
            use tower::Service;
            if refused {
                return Err(WebPage);
            }
            let resp = app
                .call(req.map(|b| axum::body::Body::new(watched(b))))
                .await;
            // The request runs until its answer has been sent whole: a
            // streamed answer (progress, then the envelope) is not idle.
            match resp {
                Ok(resp) => Ok(resp.map(|body| {
                    axum::body::Body::new(Sending {
                        inner: body,
                        running: Some(running),
                    })
                })),
                Err(never) => match never {},
            }
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(rules.header_timeout)
        .keep_alive(true);
    // With upgrades: the extension's WebSocket leaves HTTP here.
    let served = builder
        .serve_connection(TokioIo::new(io), service)
        .with_upgrades();
    tokio::pin!(served);
    let mut stopping = false;
    loop {
        let idle_deadline = conn
            .idle_since()
            .map(|since| since + rules.idle_timeout)
            .unwrap_or_else(|| Instant::now() + rules.idle_timeout);
        tokio::select! {
            _ = served.as_mut() => return,
            _ = conn.evicted.notified() => return,
            _ = tokio::time::sleep_until(idle_deadline) => {
                if conn.idle_since().is_some_and(|s| s + rules.idle_timeout <= Instant::now()) {
                    return;
                }
            }
            _ = stop.wait_for(|s| *s), if !stopping => {
                stopping = true;
                served.as_mut().graceful_shutdown();
            }
        }
        if conn.gone.load(Ordering::SeqCst) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_table_gives_way_oldest_idle_first_and_never_a_busy_one() {
        let mut t = Table::default();
        let (a, ca) = t.admit(2).expect("room");
        let (b, _) = t.admit(2).expect("room");
        ca.busy.fetch_add(1, Ordering::SeqCst);
        let (c, _) = t.admit(2).expect("b gives way");
        assert!(t.open.contains_key(&a), "busy a stays");
        assert!(!t.open.contains_key(&b), "idle b went");
        assert!(t.open.contains_key(&c));
        t.open[&c].busy.fetch_add(1, Ordering::SeqCst);
        assert!(t.admit(2).is_none(), "all busy: refuse the newcomer");
    }

    #[test]
    fn a_connection_still_receiving_its_body_gives_way_after_idle_ones() {
        let mut t = Table::default();
        let (a, ca) = t.admit(2).expect("room");
        let (b, cb) = t.admit(2).expect("room");
        // a: a request that has its body and runs; b: one still waiting
        // for the body it promised.
        ca.busy.fetch_add(1, Ordering::SeqCst);
        cb.busy.fetch_add(1, Ordering::SeqCst);
        cb.receiving.fetch_add(1, Ordering::SeqCst);
        let (c, _) = t.admit(2).expect("b gives way");
        assert!(
            t.open.contains_key(&a),
            "a running request is never dropped"
        );
        assert!(!t.open.contains_key(&b), "a promised body holds nothing");
        assert!(t.open.contains_key(&c));
    }
}
