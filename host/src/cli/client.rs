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
        let wait = Duration::from_millis(req.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS)) + Duration::from_secs(5);
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
        // Fast refusal check: nothing listening means start the daemon.
        if TcpStream::connect_timeout(&self.addr(), Duration::from_millis(500)).is_err() {
            return Err(PostError::Refused);
        }
        let token = self.home.read_token().unwrap_or_default();
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(wait))
            .build()
            .into();
        let url = format!("http://127.0.0.1:{}/command", self.port);
        let mut resp = agent
            .post(&url)
            .header("Authorization", &format!("Bearer {token}"))
            .header("Content-Type", "application/json")
            .send(body)
            .map_err(|e| PostError::Other(anyhow::anyhow!("talking to the daemon: {e}")))?;
        let raw = resp
            .body_mut()
            .with_config()
            .limit(1 << 30)
            .read_to_string()
            .map_err(|e| PostError::Other(anyhow::anyhow!("reading the daemon's answer: {e}")))?;
        let parsed: Response = serde_json::from_str(&raw).map_err(|e| {
            PostError::Other(anyhow::anyhow!("the daemon answered something that is not an envelope ({e}): {raw:.200}"))
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
        bail!("the daemon did not start within {START_TIMEOUT:?}; see {}", log_path.display())
    }
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
