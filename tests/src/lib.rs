//! Test harness for webrig's end-to-end suites and the demo: a fixture web
//! server on loopback, and a daemon started from the built `webrig` binary in a
//! throwaway home. Real Chromium, real HTTP; nothing is mocked.

pub mod bench;
mod fixture;
pub mod other_user;
pub mod outline;
pub mod proxy;
pub mod sink;
pub mod user_browser;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

pub use fixture::FixtureWeb;

/// The repository's `tests/fixtures/web`.
pub fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join("web")
}

/// The `webrig` binary: `WEBRIG_BIN`, else beside the running test binary.
pub fn webrig_bin() -> PathBuf {
    if let Some(bin) = std::env::var_os("WEBRIG_BIN") {
        return PathBuf::from(bin);
    }
    let exe = std::env::current_exe().expect("test binary has a path");
    let mut dir = exe
        .parent()
        .expect("test binary lives in a directory")
        .to_path_buf();
    if dir.ends_with("deps") {
        dir.pop();
    }
    let bin = dir.join("webrig");
    assert!(
        bin.is_file(),
        "{} is missing: run `cargo build -p webrig` (cargo xtask test does)",
        bin.display()
    );
    bin
}

fn spawn_daemon(home: &Path, port: u16) -> anyhow::Result<Child> {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(home.join("daemon.log"))?;
    Command::new(webrig_bin())
        .args(["serve", "--port", &port.to_string()])
        .args(["--watch-pid", &std::process::id().to_string()])
        .env("WEBRIG_HOME", home)
        .env("WEBRIG_LOG", "webrig=debug,info")
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log)
        .spawn()
        .context("starting webrig serve")
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// A daemon in its own home, stopped when dropped and when the test process exits.
pub struct Daemon {
    port: u16,
    home: tempfile::TempDir,
    child: Child,
    agent: ureq::Agent,
}

impl Daemon {
    pub fn start() -> anyhow::Result<Daemon> {
        Self::start_with_config("")
    }

    /// A daemon whose `config.toml` holds `config` (e.g. tighter limits).
    pub fn start_with_config(config: &str) -> anyhow::Result<Daemon> {
        let home = tempfile::Builder::new()
            .prefix("webrig-test-home-")
            .tempdir()?;
        if !config.is_empty() {
            std::fs::write(home.path().join("config.toml"), config)?;
        }
        let port = free_port();
        let child = spawn_daemon(home.path(), port)?;
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(150)))
            .build()
            .into();
        let daemon = Daemon {
            port,
            home,
            child,
            agent,
        };
        daemon.wait_listening()?;
        Ok(daemon)
    }

    fn wait_listening(&self) -> anyhow::Result<()> {
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err()
            || std::os::unix::net::UnixStream::connect(self.socket()).is_err()
        {
            if started.elapsed() > Duration::from_secs(15) {
                bail!("daemon did not start: {}", self.log());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(())
    }

    /// Kills the daemon with SIGKILL (a crash: nothing is cleaned up) and
    /// starts a new one on the same home and port.
    pub fn crash_and_restart(&mut self) -> anyhow::Result<()> {
        self.crash_then(|| {})
    }

    /// Kills the daemon with SIGKILL, runs `meanwhile` (the port is free
    /// then: e.g. another user takes it), then starts a new daemon on the
    /// same home and port.
    pub fn crash_then(&mut self, meanwhile: impl FnOnce()) -> anyhow::Result<()> {
        self.child.kill()?;
        self.child.wait()?;
        meanwhile();
        self.child = spawn_daemon(self.home.path(), self.port)?;
        self.wait_listening()
    }

    /// One daemon shared by the tests of a binary; tests use their own sessions.
    pub fn shared() -> &'static Daemon {
        static SHARED: OnceLock<Daemon> = OnceLock::new();
        SHARED.get_or_init(|| Daemon::start().expect("daemon starts"))
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The daemon's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn home(&self) -> &Path {
        self.home.path()
    }

    pub fn token(&self) -> String {
        std::fs::read_to_string(self.home.path().join("token"))
            .expect("token file")
            .trim()
            .to_string()
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.home.path().join("daemon.log")).unwrap_or_default()
    }

    /// POSTs a raw body with the given headers; returns (status, JSON body).
    pub fn post_raw(&self, body: &str, headers: &[(&str, &str)]) -> (u16, Value) {
        self.http("POST", "/command", Some(body), headers).0
    }

    /// Any request; returns ((status, JSON body or text), headers).
    pub fn http(
        &self,
        method: &str,
        path: &str,
        body: Option<&str>,
        headers: &[(&str, &str)],
    ) -> ((u16, Value), Vec<(String, String)>) {
        let url = format!("http://127.0.0.1:{}{path}", self.port);
        let resp = if method == "GET" {
            let mut req = self.agent.get(&url);
            for (k, v) in headers {
                req = req.header(*k, *v);
            }
            req.call()
        } else {
            let mut req = self.agent.post(&url);
            for (k, v) in headers {
                req = req.header(*k, *v);
            }
            req.send(body.unwrap_or(""))
        };
        let mut resp = resp.expect("daemon answers");
        let status = resp.status().as_u16();
        let heads = resp
            .headers()
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().to_string()))
            .collect();
        let text = resp.body_mut().read_to_string().unwrap_or_default();
        let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
        ((status, value), heads)
    }

    /// Sends a full envelope with the token over the daemon's Unix socket
    /// (the way the CLI talks to it); returns the response envelope.
    pub fn request(&self, envelope: Value) -> Value {
        let body = envelope.to_string();
        let (status, text) = self.local_post("/command", &body);
        serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("status {status}: not an envelope ({e}): {text:.300}"))
    }

    /// The daemon's Unix socket for the CLI.
    pub fn socket(&self) -> PathBuf {
        self.home.path().join(format!("daemon.{}.sock", self.port))
    }

    /// One POST over the Unix socket with the token; (status, body).
    pub fn local_post(&self, path: &str, body: &str) -> (u16, String) {
        use std::io::{Read, Write};
        let mut stream = std::os::unix::net::UnixStream::connect(self.socket())
            .unwrap_or_else(|e| panic!("connecting to {}: {e}", self.socket().display()));
        stream
            .set_read_timeout(Some(Duration::from_secs(150)))
            .expect("timeout");
        let request = format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.port,
            self.token(),
            body.len()
        );
        stream.write_all(request.as_bytes()).expect("request sent");
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).expect("answer read");
        let text = String::from_utf8_lossy(&raw).into_owned();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        (status, body.to_string())
    }

    /// Sends a full envelope with the token over loopback TCP (the HTTP
    /// API's door); returns the response envelope.
    pub fn request_tcp(&self, envelope: Value) -> Value {
        let token = format!("Bearer {}", self.token());
        self.post_raw(&envelope.to_string(), &[("Authorization", &token)])
            .1
    }

    /// Runs `command` in `session`; returns the response envelope.
    pub fn cmd(&self, session: &str, command: &str, args: Value) -> Value {
        self.request(json!({ "session": session, "command": command, "args": args }))
    }

    /// Like [`cmd`], asserting success; returns `result`.
    pub fn ok(&self, session: &str, command: &str, args: Value) -> Value {
        let resp = self.cmd(session, command, args.clone());
        assert_eq!(
            resp["ok"],
            true,
            "{command} {args} failed: {resp}\n--- daemon log tail ---\n{}",
            tail(&self.log(), 20)
        );
        resp["result"].clone()
    }

    /// Like [`cmd`], asserting failure with `code`; returns `error`.
    pub fn err(&self, session: &str, command: &str, args: Value, code: &str) -> Value {
        let resp = self.cmd(session, command, args.clone());
        assert_eq!(resp["ok"], false, "{command} {args} should fail: {resp}");
        assert_eq!(resp["error"]["code"], code, "{command} {args}: {resp}");
        resp["error"].clone()
    }

    /// Waits until `session` has `n` commands in line (the running one
    /// included): a counted command holds its place, so what is sent next
    /// runs after it. No timing assumed.
    pub fn wait_queued(&self, session: &str, n: usize) {
        let start = Instant::now();
        loop {
            let list = self.ok("x", "sessions", json!({}));
            let queued = list["sessions"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|e| e["name"] == session)
                .map(|e| e["queued"].clone());
            if queued == Some(json!(n)) {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "session {session} never had {n} commands queued: {list}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Runs the CLI against this daemon.
    pub fn cli(&self, args: &[&str]) -> Output {
        self.cli_in(args, None)
    }

    pub fn cli_in(&self, args: &[&str], cwd: Option<&Path>) -> Output {
        let mut cmd = Command::new(webrig_bin());
        cmd.args(args)
            .env("WEBRIG_HOME", self.home.path())
            .env("WEBRIG_PORT", self.port.to_string())
            .env_remove("WEBRIG_SESSION");
        if let Some(dir) = cwd {
            cmd.current_dir(dir);
        }
        cmd.output().expect("webrig runs")
    }
}

impl Drop for Daemon {
    /// Stops the daemon politely (it closes its browsers), then by force.
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(5) {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// A session that is closed when the test ends, pass or fail.
pub struct SessionGuard<'a> {
    pub daemon: &'a Daemon,
    pub name: String,
}

impl<'a> SessionGuard<'a> {
    pub fn new(daemon: &'a Daemon, name: &str) -> Self {
        SessionGuard {
            daemon,
            name: name.to_string(),
        }
    }

    pub fn ok(&self, command: &str, args: Value) -> Value {
        self.daemon.ok(&self.name, command, args)
    }

    pub fn err(&self, command: &str, args: Value, code: &str) -> Value {
        self.daemon.err(&self.name, command, args, code)
    }

    pub fn cmd(&self, command: &str, args: Value) -> Value {
        self.daemon.cmd(&self.name, command, args)
    }

    /// The text of a `snapshot` with `args`.
    pub fn snapshot(&self, args: Value) -> String {
        self.ok("snapshot", args)["text"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Runs `command` until its answer passes `pred` (events reach the
    /// daemon asynchronously); panics with the last answer after 15 s.
    pub fn until(&self, command: &str, args: Value, pred: impl Fn(&Value) -> bool) -> Value {
        let started = Instant::now();
        loop {
            let v = self.ok(command, args.clone());
            if pred(&v) {
                return v;
            }
            assert!(
                started.elapsed() < Duration::from_secs(15),
                "{command} never got there: {v}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for SessionGuard<'_> {
    fn drop(&mut self) {
        let _ = self.daemon.cmd(&self.name, "close", json!({}));
    }
}
