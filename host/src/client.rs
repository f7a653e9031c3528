//! Talks to the daemon over HTTP on its Unix socket in the owner-only state
//! directory, starting it in the background when nothing listens. Blocking
//! and runtime-free so a CLI call costs about one round trip.
//!
//! Never over TCP: any local process can bind the TCP port before the daemon
//! does, and would receive the token. The socket lives in the 0700 home and
//! must belong to this user, so whoever answers is this user's daemon.

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
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

    fn socket(&self) -> PathBuf {
        self.home.daemon_socket(self.port)
    }

    /// Sends one command; returns the raw body and its parsed envelope.
    /// `timeout_ms`: the command's deadline when the request names none.
    /// With `events`, it asks for progress (`/command/stream`) and hands
    /// each event to `events` as it comes.
    pub fn send(
        &self,
        req: &Request,
        autostart: bool,
        timeout_ms: Option<u64>,
        mut events: Option<&mut (dyn FnMut(&serde_json::Value) + '_)>,
    ) -> anyhow::Result<(String, Response)> {
        let body = serde_json::to_string(req)?;
        let wait =
            Duration::from_millis(req.timeout_ms.or(timeout_ms).unwrap_or(DEFAULT_TIMEOUT_MS))
                + Duration::from_secs(5);
        match self.post(&body, wait, events.as_deref_mut()) {
            Err(PostError::Refused) if autostart => {
                self.start_daemon()?;
                self.post(&body, wait, events)
                    .map_err(PostError::into_anyhow)
            }
            Err(PostError::Refused) => bail!(
                "the webrig daemon is not running for port {} (any other command starts it)",
                self.port
            ),
            other => other.map_err(PostError::into_anyhow),
        }
    }

    fn post<'f>(
        &self,
        body: &str,
        wait: Duration,
        events: Option<&mut (dyn FnMut(&serde_json::Value) + 'f)>,
    ) -> Result<(String, Response), PostError> {
        let token = self
            .home
            .read_token()
            .map_err(PostError::Other)?
            .unwrap_or_default();
        let raw = match events {
            None => http_post(&self.socket(), self.port, "/command", &token, body, wait)?,
            Some(sink) => {
                let stream = send_post(
                    &self.socket(),
                    self.port,
                    "/command/stream",
                    &token,
                    body,
                    wait,
                )?;
                read_stream(stream, wait, sink)?
            }
        };
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
        // Before a daemon starts in it: the home must be ours alone.
        self.home.adopt()?;
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
        let socket = self.socket();
        while started.elapsed() < START_TIMEOUT {
            if UnixStream::connect(&socket).is_ok() {
                return Ok(());
            }
            if let Ok(Some(status)) = child.try_wait() {
                // Lost a race with another CLI starting the daemon? Then it listens.
                if UnixStream::connect(&socket).is_ok() {
                    return Ok(());
                }
                let why = last_error(&log_path)
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default();
                bail!(
                    "the daemon exited ({status}){why}; see {}",
                    log_path.display()
                );
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

/// The last `error:` line of the daemon's log (why it could not start).
fn last_error(log: &Path) -> Option<String> {
    let text = std::fs::read_to_string(log).ok()?;
    text.lines()
        .rev()
        .find_map(|l| l.strip_prefix("error: "))
        .map(str::to_string)
}

/// Refuses a socket that is not this user's: the token must never go to
/// someone else's listener.
fn check_owner(socket: &Path) -> Result<(), PostError> {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::symlink_metadata(socket) else {
        return Ok(()); // nothing there: connecting fails as refused
    };
    let me = crate::config::own_uid();
    let dir = socket.parent().and_then(|d| std::fs::metadata(d).ok());
    if let Some(dir) = dir.filter(|d| !crate::config::is_mine_alone(d)) {
        return Err(PostError::Other(anyhow::anyhow!(
            "{} is not yours alone (uid {}, mode {:o}); refusing to send the token",
            socket.parent().unwrap_or(socket).display(),
            dir.uid(),
            dir.mode() & 0o777
        )));
    }
    if Some(meta.uid()) != me {
        return Err(PostError::Other(anyhow::anyhow!(
            "{} belongs to uid {}, not to you; refusing to send the token there",
            socket.display(),
            meta.uid()
        )));
    }
    Ok(())
}

/// One HTTP/1.1 POST to the daemon on its Unix socket, returning the body.
///
/// Hand-written rather than through an HTTP crate: on the CLI's hot path
/// (`webrig eval 1` targets 2 ms including process start) ureq cost a resolver
/// thread and two writes per request (strace showed ~0.5 ms). The daemon is
/// always our own axum server, so the subset needed is tiny: one request per
/// connection, `Connection: close`, read to EOF.
fn http_post(
    socket: &Path,
    port: u16,
    path: &str,
    token: &str,
    body: &str,
    wait: Duration,
) -> Result<String, PostError> {
    let mut stream = send_post(socket, port, path, token, body, wait)?;
    let io = |e: std::io::Error| PostError::Other(anyhow::anyhow!("talking to the daemon: {e}"));
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

/// Reads a streamed (chunked NDJSON) answer: each `{"event": …}` line goes
/// to `sink` as it arrives; the last line is the envelope, returned.
fn read_stream(
    stream: UnixStream,
    wait: Duration,
    sink: &mut (dyn FnMut(&serde_json::Value) + '_),
) -> Result<String, PostError> {
    use std::io::BufRead;
    let mut reader = std::io::BufReader::new(stream);
    let fail = |e: std::io::Error| {
        if e.kind() == std::io::ErrorKind::WouldBlock || e.kind() == std::io::ErrorKind::TimedOut {
            PostError::Other(anyhow::anyhow!(
                "the daemon went quiet for {wait:?}; the command's outcome is unknown"
            ))
        } else if matches!(
            e.kind(),
            std::io::ErrorKind::UnexpectedEof
                | std::io::ErrorKind::ConnectionReset
                | std::io::ErrorKind::BrokenPipe
        ) {
            PostError::Other(anyhow::anyhow!(
                "connection lost: the daemon's stream ended before the answer ({e}); the \
                 command's outcome is unknown"
            ))
        } else {
            PostError::Other(anyhow::anyhow!("talking to the daemon: {e}"))
        }
    };
    let mut line = String::new();
    let mut chunked = false;
    let lost = || {
        PostError::Other(anyhow::anyhow!(
            "connection lost: the daemon closed the stream before the answer; the command's \
             outcome is unknown"
        ))
    };
    loop {
        line.clear();
        if reader.read_line(&mut line).map_err(fail)? == 0 {
            return Err(lost());
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if l.to_ascii_lowercase()
            .starts_with("transfer-encoding: chunked")
        {
            chunked = true;
        }
    }
    let mut body = Vec::new();
    if chunked {
        // Chunks, decoded as they come: `size\r\n data \r\n`, size 0 ends.
        let mut pending = Vec::new();
        loop {
            line.clear();
            if reader.read_line(&mut line).map_err(fail)? == 0 {
                return Err(lost());
            }
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .map_err(|_| PostError::Other(anyhow::anyhow!("a bad chunk from the daemon")))?;
            if size == 0 {
                break;
            }
            let mut chunk = vec![0u8; size + 2];
            std::io::Read::read_exact(&mut reader, &mut chunk).map_err(fail)?;
            chunk.truncate(size);
            pending.extend_from_slice(&chunk);
            while let Some(at) = pending.iter().position(|b| *b == b'\n') {
                let one: Vec<u8> = pending.drain(..=at).collect();
                let v: serde_json::Value = serde_json::from_slice(&one).unwrap_or_default();
                if v.get("event").is_some() {
                    sink(&v);
                } else {
                    body = one;
                }
            }
        }
    } else {
        std::io::Read::read_to_end(&mut reader, &mut body).map_err(fail)?;
    }
    String::from_utf8(body)
        .map(|s| s.trim_end().to_string())
        .map_err(|_| PostError::Other(anyhow::anyhow!("the daemon's answer is not UTF-8")))
}

/// Connects to the daemon's socket (checking whose it is) and sends one
/// POST; the answer is left to read.
fn send_post(
    socket: &Path,
    port: u16,
    path: &str,
    token: &str,
    body: &str,
    wait: Duration,
) -> Result<UnixStream, PostError> {
    check_owner(socket)?;
    let mut stream = match UnixStream::connect(socket) {
        Ok(s) => s,
        // Nothing listens: nothing was sent, so starting the daemon and sending
        // again cannot run the command twice.
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::NotFound
            ) =>
        {
            return Err(PostError::Refused);
        }
        Err(e) => {
            return Err(PostError::Other(anyhow::anyhow!(
                "connecting to the daemon: {e}"
            )));
        }
    };
    let io = |e: std::io::Error| PostError::Other(anyhow::anyhow!("talking to the daemon: {e}"));
    stream.set_read_timeout(Some(wait)).map_err(io)?;
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n{body}",
        len = body.len(),
    );
    stream.write_all(request.as_bytes()).map_err(io)?;
    Ok(stream)
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
