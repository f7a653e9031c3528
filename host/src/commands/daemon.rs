//! Daemon commands: status and stop.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Command, Cx, Scope};
use crate::error::ApiError;

/// Show the daemon's version, pid, uptime, memory and sessions.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DaemonStatus {}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Status {
    pub version: String,
    pub pid: u32,
    pub port: u16,
    pub uptime_ms: u64,
    /// Resident memory of the daemon process (browsers excluded), when known.
    pub rss_bytes: Option<u64>,
    pub sessions: usize,
    pub home: String,
}

impl Command for DaemonStatus {
    const NAME: &'static str = "daemon status";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "Show whether the daemon runs, and its figures";
    const SCOPE: Scope = Scope::Daemon;
    const AUTOSTART: bool = false;
    type Output = Status;

    async fn run(self, cx: Cx) -> Result<Status, ApiError> {
        let state = cx.state();
        Ok(Status {
            version: crate::VERSION.to_string(),
            pid: std::process::id(),
            port: state.port(),
            uptime_ms: state.uptime().as_millis() as u64,
            rss_bytes: rss_bytes(),
            sessions: state.sessions().len(),
            home: state.home().root().display().to_string(),
        })
    }

    fn human(out: &Status) -> String {
        let rss = out
            .rss_bytes
            .map(|b| format!("{:.1} MB", b as f64 / 1e6))
            .unwrap_or_else(|| "?".into());
        format!(
            "webrig {} running, pid {}, port {}, up {} s, RSS {rss}, {} session(s)",
            out.version,
            out.pid,
            out.port,
            out.uptime_ms / 1000,
            out.sessions
        )
    }
}

/// Linux: VmRSS from /proc/self/status.
fn rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Stop the daemon, closing every session's browser.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DaemonStop {}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Stopping {
    pub stopping: bool,
}

impl Command for DaemonStop {
    const NAME: &'static str = "daemon stop";
    const DESTRUCTIVE: bool = true;
    const ABOUT: &'static str = "Stop the daemon and close every session";
    const SCOPE: Scope = Scope::Daemon;
    const AUTOSTART: bool = false;
    type Output = Stopping;

    async fn run(self, cx: Cx) -> Result<Stopping, ApiError> {
        cx.state().request_shutdown();
        Ok(Stopping { stopping: true })
    }

    fn human(_: &Stopping) -> String {
        "daemon stopping".into()
    }
}

/// Show a code that pairs the webrig extension with this daemon.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pair {
    /// Only this extension (its 32-letter id, as chrome://extensions shows
    /// it) may redeem the code; other extensions of your browser cannot.
    #[arg(long)]
    #[serde(default)]
    pub extension_id: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct PairCode {
    /// `XXXX-XXXX-XXXX`: case, dashes and spaces do not matter when typed.
    pub code: String,
    pub expires_in_s: u64,
    /// The only origin that may redeem it, when `--extension-id` was given.
    pub extension: Option<String>,
}

impl Command for Pair {
    const NAME: &'static str = "pair";
    const ABOUT: &'static str = "Show a pairing code for the extension (valid 5 minutes, once)";
    const SCOPE: Scope = Scope::Daemon;
    type Output = PairCode;

    async fn run(self, cx: Cx) -> Result<PairCode, ApiError> {
        let only = match self.extension_id {
            Some(id) => {
                let origin = format!("chrome-extension://{}", id.trim());
                if !crate::rig::pairing::is_extension_origin(&origin) {
                    return Err(ApiError::invalid(format!(
                        "--extension-id {id:?}: an extension id is 32 letters from a to p"
                    )));
                }
                Some(origin)
            }
            None => None,
        };
        let (code, ttl) = cx
            .state()
            .start_pairing(only.clone())
            .map_err(|e| ApiError::internal(format!("{e:#}")))?;
        Ok(PairCode {
            code,
            expires_in_s: ttl.as_secs(),
            extension: only,
        })
    }

    fn human(out: &PairCode) -> String {
        let only = match &out.extension {
            Some(o) => format!(", only for {o}"),
            None => String::new(),
        };
        format!(
            "pairing code {} — enter it in the webrig extension's popup (valid {} min, once{only})",
            out.code,
            out.expires_in_s.div_ceil(60),
        )
    }
}

/// Replace the daemon's token; the old one stops working at once.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TokenRotate {}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Rotated {
    /// Where the new token is (never the token itself).
    pub token_file: String,
}

impl Command for TokenRotate {
    const NAME: &'static str = "token rotate";
    const DESTRUCTIVE: bool = true;
    const ABOUT: &'static str = "Replace the token; the old one stops working at once";
    const SCOPE: Scope = Scope::Daemon;
    type Output = Rotated;

    async fn run(self, cx: Cx) -> Result<Rotated, ApiError> {
        cx.state()
            .rotate_token()
            .map_err(|e| ApiError::internal(format!("rotating the token: {e:#}")))?;
        Ok(Rotated {
            token_file: cx.state().home().token_path().display().to_string(),
        })
    }

    fn human(out: &Rotated) -> String {
        format!(
            "token rotated; the new one is in {} (paired extensions must pair again)",
            out.token_file
        )
    }
}
