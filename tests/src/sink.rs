//! A loopback HTTP server that only records what reached it: the path of
//! every request (without its query), `ws:PATH` for a WebSocket handshake.
//! Tests that prove a request was blocked count its hits; a second sink
//! the page may reach proves the page really tried.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The head of one HTTP request on `conn` (up to the blank line, at most
/// 64 KiB, waiting at most 5 s), as text.
pub fn read_head(conn: &mut std::net::TcpStream) -> String {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 65536 {
        match conn.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&head).to_string()
}

pub struct Sink {
    port: u16,
    hits: Arc<Mutex<Vec<String>>>,
}

impl Sink {
    pub fn start() -> Sink {
        let listener = TcpListener::bind(("127.0.0.1", 0)).expect("bind sink");
        let port = listener.local_addr().expect("sink addr").port();
        let hits: Arc<Mutex<Vec<String>>> = Arc::default();
        let seen = hits.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut conn) = conn else { continue };
                let seen = seen.clone();
                std::thread::spawn(move || {
                    let text = read_head(&mut conn);
                    let target = text.split_whitespace().nth(1).unwrap_or("").to_string();
                    let path = target.split('?').next().unwrap_or("").to_string();
                    let upgrade = text.to_ascii_lowercase().contains("upgrade: websocket");
                    seen.lock().expect("sink hits").push(if upgrade {
                        format!("ws:{path}")
                    } else {
                        path.clone()
                    });
                    if upgrade {
                        return;
                    }
                    let (kind, body) = if path.ends_with("/es") {
                        ("text/event-stream", "retry: 600000\ndata: hi\n\n")
                    } else if path.ends_with(".js") {
                        ("text/javascript", "")
                    } else {
                        ("text/html", "<!doctype html><title>sink</title><p>sink</p>")
                    };
                    let _ = write!(
                        conn,
                        "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nAccess-Control-Allow-Origin: *\r\n\
                         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                });
            }
        });
        Sink { port, hits }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// What reached it so far, in order.
    pub fn hits(&self) -> Vec<String> {
        self.hits.lock().expect("sink hits").clone()
    }

    /// Waits until every one of `paths` reached it (panics after `within`,
    /// naming what is missing).
    pub fn wait_for(&self, paths: &[&str], within: Duration) {
        let deadline = Instant::now() + within;
        loop {
            let hits = self.hits();
            let missing: Vec<&&str> = paths
                .iter()
                .filter(|p| !hits.iter().any(|h| h == *p))
                .collect();
            if missing.is_empty() {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "never reached the sink: {missing:?}; it saw {hits:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}
