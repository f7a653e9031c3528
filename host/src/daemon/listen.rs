//! Accepting connections on the daemon's two doors: TCP on loopback (HTTP API
//! clients, the extension) and the Unix socket in the owner-only state
//! directory (the CLI). Owns the per-door connection cap, the header-read and
//! idle timeouts, and which connection gives way when a door is full.
//!
//! Why not `axum::serve`: it has no header-read timeout, no idle timeout and no
//! cap, so 20,000 half-open connections used up the daemon's file descriptors
//! and `/ping` and the CLI hung until they closed. Here a full door closes its
//! oldest connection that is not running a request (a slow or silent client),
//! so a flood cannot keep a fresh, quick request out; connections running a
//! request are never dropped for room.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use hyper::body::Incoming;
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
}

/// One open connection as the door sees it.
struct Conn {
    /// Requests running on it now.
    busy: AtomicUsize,
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
}

/// The open connections of one door, oldest first.
#[derive(Default)]
struct Table {
    next: u64,
    open: BTreeMap<u64, Arc<Conn>>,
}

impl Table {
    /// Makes room for one more under `max`: closes the oldest idle
    /// connection when full. `None` when every connection is busy.
    fn admit(&mut self, max: usize) -> Option<(u64, Arc<Conn>)> {
        if self.open.len() >= max {
            let victim = self
                .open
                .iter()
                .find(|(_, c)| c.idle_since().is_some())
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
        counted.busy.fetch_add(1, Ordering::SeqCst);
        let running = Running(counted.clone());
        req.extensions_mut().insert(via);
        if let Via::Tcp(peer) = via {
            req.extensions_mut()
                .insert(axum::extract::ConnectInfo(peer));
        }
        let mut app = app.clone();
        async move {
            use tower::Service;
            let resp = app.call(req.map(axum::body::Body::new)).await;
            drop(running);
            resp
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
}
