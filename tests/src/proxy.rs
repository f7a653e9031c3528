//! A loopback HTTP forward proxy for tests: it answers every request
//! itself (`<title>via proxy</title>`, so any host name works without
//! DNS), asks for Basic credentials when it has some (407), and records
//! each request's target and the credentials it carried.

use std::io::Write;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use base64::Engine;

/// One request that reached the proxy.
#[derive(Debug, Clone, PartialEq)]
pub struct ProxyHit {
    /// The absolute URL asked for (`http://host/path`).
    pub target: String,
    /// `user:password` from `Proxy-Authorization`, decoded.
    pub auth: Option<String>,
}

pub struct TestProxy {
    port: u16,
    hits: Arc<Mutex<Vec<ProxyHit>>>,
}

impl TestProxy {
    /// `needs`: the `user:password` it insists on, if any.
    pub fn start(needs: Option<&str>) -> TestProxy {
        let listener = TcpListener::bind(("127.0.0.1", 0)).expect("bind proxy");
        let port = listener.local_addr().expect("proxy addr").port();
        let hits: Arc<Mutex<Vec<ProxyHit>>> = Arc::default();
        let seen = hits.clone();
        let needs = needs.map(str::to_string);
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut conn) = conn else { continue };
                let (seen, needs) = (seen.clone(), needs.clone());
                std::thread::spawn(move || {
                    let text = crate::sink::read_head(&mut conn);
                    let Some(target) = text.split_whitespace().nth(1).map(str::to_string) else {
                        return;
                    };
                    let auth = text.lines().find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        if !k.trim().eq_ignore_ascii_case("proxy-authorization") {
                            return None;
                        }
                        let b64 = v.trim().strip_prefix("Basic ")?;
                        let raw = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
                        String::from_utf8(raw).ok()
                    });
                    let let_in = needs.is_none() || auth == needs;
                    seen.lock().expect("proxy hits").push(ProxyHit {
                        target: target.clone(),
                        auth,
                    });
                    let reply = if let_in {
                        let body = format!(
                            "<!doctype html><title>via proxy</title><p>proxied {target}</p>"
                        );
                        format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\
                             Connection: close\r\n\r\n{body}",
                            body.len()
                        )
                    } else {
                        let body = "<!doctype html><title>proxy says no</title>";
                        format!(
                            "HTTP/1.1 407 Proxy Authentication Required\r\n\
                             Proxy-Authenticate: Basic realm=\"test\"\r\nContent-Type: text/html\r\n\
                             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                            body.len()
                        )
                    };
                    let _ = conn.write_all(reply.as_bytes());
                });
            }
        });
        TestProxy { port, hits }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn hits(&self) -> Vec<ProxyHit> {
        self.hits.lock().expect("proxy hits").clone()
    }

    /// The hits for targets containing `part`.
    pub fn hits_for(&self, part: &str) -> Vec<ProxyHit> {
        self.hits()
            .into_iter()
            .filter(|h| h.target.contains(part))
            .collect()
    }
}
