//! Talks to the daemon over HTTP, starting it in the background when nothing
//! listens. Blocking and runtime-free so a CLI call costs about one round trip.

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::os::unix::process::CommandExt;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::commands::envelope::{DEFAULT_TIMEOUT_MS, Request, Response};
use crate::config::Home;

const START_TIMEOUT: Duration = Duration::from_secs(15);

pub struct Client {
    home: Home,
    port: u16,
}

impl Client {
    pub fn new(home: Home, port: u16) -> Self {
        Client { home, port }
    }

    fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// Sends one command; returns the raw body and its parsed envelope.
    pub fn send(&self, req: &Request, autostart: bool) -> anyhow::Result<(String, Response)> {
        let body = serde_json::to_string(req)?;
        let wait = Duration::from_millis(req.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS))
            + Duration::from_secs(5);
        match self.post(&body, wait) {
            Err(PostError::Refused) if autostart => {
                self.start_daemon()?;
                self.post(&body, wait).map_err(PostError::into_anyhow)
            }
            Err(PostError::Refused) => bail!(
                "the webrig daemon is not running on port {} (any other command starts it)",
                self.port
            ),
            other => other.map_err(PostError::into_anyhow),
        }
    }

    fn post(&self, body: &str, wait: Duration) -> Result<(String, Response), PostError> {
        let token = self.home.read_token().unwrap_or_default();
        let raw = http_post(self.addr(), "/command", &token, body, wait)?;
        let parsed: Response = serde_json::from_str(&raw).map_err(|e| {
            PostError::Other(anyhow::anyhow!(
                "the daemon answered something that is not an envelope ({e}): {raw:.200}"
            ))
        })?;
        Ok((raw, parsed))
    }

    /// Spawns `webrig serve` detached, logging to the home's daemon.log, and
    /// waits until it accepts connections.
    fn start_daemon(&self) -> anyhow::Result<()> {
        self.home.ensure_dir(None)?;
        let log_path = self.home.log_path();
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode_private()
            .open(&log_path)
            .with_context(|| format!("opening {}", log_path.display()))?;
        let exe = std::env::current_exe().context("finding the webrig executable")?;
        let mut child = std::process::Command::new(exe)
            .args(["serve", "--port", &self.port.to_string()])
            .env("WEBRIG_HOME", self.home.root())
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .process_group(0)
            .spawn()
            .context("starting the daemon")?;
        let started = Instant::now();
        while started.elapsed() < START_TIMEOUT {
            if TcpStream::connect_timeout(&self.addr(), Duration::from_millis(100)).is_ok() {
                return Ok(());
            }
            if let Ok(Some(status)) = child.try_wait() {
                // Lost a race with another CLI starting the daemon? Then it listens.
                if TcpStream::connect(self.addr()).is_ok() {
                    return Ok(());
                }
                bail!("the daemon exited ({status}); see {}", log_path.display());
            }
            std::thread::sleep(Duration::from_millis(3));
        }
        let _ = std::io::stderr().flush();
        bail!(
            "the daemon did not start within {START_TIMEOUT:?}; see {}",
            log_path.display()
        )
    }
}

/// One HTTP/1.1 POST to the daemon on loopback, returning the body.
///
/// Hand-written rather than through an HTTP crate: on the CLI's hot path
/// (`webrig eval 1` targets 2 ms including process start) ureq cost a resolver
/// thread and two writes per request (strace showed ~0.5 ms). The daemon is
/// always our own axum server on 127.0.0.1, so the subset needed is tiny:
/// one request per connection, `Connection: close`, read to EOF.
fn http_post(
    addr: SocketAddr,
    path: &str,
    token: &str,
    body: &str,
    wait: Duration,
) -> Result<String, PostError> {
    let mut stream = match TcpStream::connect_timeout(&addr, Duration::from_secs(2)) {
        Ok(s) => s,
        // Nothing listens: nothing was sent, so starting the daemon and sending
        // again cannot run the command twice.
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {
            return Err(PostError::Refused);
        }
        Err(e) => {
            return Err(PostError::Other(anyhow::anyhow!(
                "connecting to the daemon: {e}"
            )));
        }
    };
    let io = |e: std::io::Error| PostError::Other(anyhow::anyhow!("talking to the daemon: {e}"));
    stream.set_nodelay(true).map_err(io)?;
    stream.set_read_timeout(Some(wait)).map_err(io)?;
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n{body}",
        port = addr.port(),
        len = body.len(),
    );
    stream.write_all(request.as_bytes()).map_err(io)?;
    let mut raw = Vec::new();
    std::io::Read::read_to_end(&mut stream, &mut raw).map_err(|e| {
        if e.kind() == std::io::ErrorKind::WouldBlock || e.kind() == std::io::ErrorKind::TimedOut {
            PostError::Other(anyhow::anyhow!(
                "the daemon did not answer within {wait:?}; the command's outcome is unknown"
            ))
        } else {
            io(e)
        }
    })?;
    let text = String::from_utf8(raw)
        .map_err(|_| PostError::Other(anyhow::anyhow!("the daemon's answer is not UTF-8")))?;
    let (head, body) = text.split_once("\r\n\r\n").ok_or_else(|| {
        PostError::Other(anyhow::anyhow!(
            "the daemon's answer has no body: {text:.200}"
        ))
    })?;
    if head.lines().any(|l| {
        l.to_ascii_lowercase()
            .starts_with("transfer-encoding: chunked")
    }) {
        return Err(PostError::Other(anyhow::anyhow!(
            "the daemon answered chunked; expected a sized body"
        )));
    }
    Ok(body.to_string())
}

enum PostError {
    Refused,
    Other(anyhow::Error),
}

impl PostError {
    fn into_anyhow(self) -> anyhow::Error {
        match self {
            PostError::Refused => anyhow::anyhow!("the daemon stopped answering"),
            PostError::Other(e) => e,
        }
    }
}

trait PrivateMode {
    fn mode_private(&mut self) -> &mut Self;
}

impl PrivateMode for std::fs::OpenOptions {
    fn mode_private(&mut self) -> &mut Self {
        use std::os::unix::fs::OpenOptionsExt;
        self.mode(0o600)
    }
}
