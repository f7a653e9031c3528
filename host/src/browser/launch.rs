//! Finding and starting a Chromium, and finding a running one's CDP endpoint.
//!
//! Owns the browser process: flags, profile directory, the DevTools URL it prints.
//! It must not speak CDP beyond the initial handshake.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::process::{Child, Command};

use crate::error::{ApiError, ErrorCode};

const LAUNCH_TIMEOUT: Duration = Duration::from_secs(30);

/// Names tried in order when neither `--browser-path` nor `WEBRIG_BROWSER` is set.
/// Debian's `/usr/bin/chromium` is a shell wrapper that adds flags of its own, so
/// the real binary behind it comes first.
const CANDIDATES: &[&str] = &[
    "/usr/lib/chromium/chromium",
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
    "/opt/google/chrome/chrome",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
];

#[derive(Debug, Clone, Default)]
pub struct LaunchOptions {
    pub headed: bool,
    pub profile: Option<PathBuf>,
    pub browser_path: Option<PathBuf>,
    pub extra_args: Vec<String>,
    /// A browser of the session's own, not a context in the shared one.
    pub own_browser: bool,
}

impl LaunchOptions {
    /// Whether the session gets a browser of its own: asked for, or implied
    /// by anything a shared browser could not honour for one context alone
    /// (a profile folder, another executable, switches).
    pub fn wants_own_browser(&self) -> bool {
        self.own_browser
            || self.profile.is_some()
            || self.browser_path.is_some()
            || !self.extra_args.is_empty()
    }
}

/// A browser process webrig started, with the profile it owns.
pub struct Launched {
    /// The keeper holding the browser's DevTools pipe (see `keeper`).
    pub keeper: Child,
    pub browser_pid: u32,
    /// The keeper's Unix socket: the browser's CDP, for this user only.
    pub socket: PathBuf,
    pub conn: super::cdp::Connection,
    pub executable: PathBuf,
    /// A throwaway profile webrig must delete when the browser closes; None
    /// when the user named one.
    pub temp_profile: Option<PathBuf>,
}

/// Resolves the browser executable: explicit path, `WEBRIG_BROWSER`, then the
/// common names on `PATH`.
pub fn find_browser(explicit: Option<&Path>) -> Result<PathBuf, ApiError> {
    if let Some(path) = explicit {
        return if path.is_file() {
            Ok(path.to_path_buf())
        } else {
            Err(ApiError::invalid(format!(
                "no browser at {}",
                path.display()
            )))
        };
    }
    if let Some(env) = std::env::var_os("WEBRIG_BROWSER").filter(|v| !v.is_empty()) {
        let path = PathBuf::from(env);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(ApiError::invalid(format!(
                "WEBRIG_BROWSER={} is not a file",
                path.display()
            )))
        };
    }
    CANDIDATES
        .iter()
        .find_map(|name| which(name))
        .ok_or_else(|| {
            ApiError::new(ErrorCode::NotFound, "no Chromium or Chrome found")
                .with_hint("install Chromium (Debian: apt-get install chromium) or set WEBRIG_BROWSER to its path")
        })
}

fn which(name: &str) -> Option<PathBuf> {
    let path = Path::new(name);
    if path.is_absolute() {
        return path.is_file().then(|| path.to_path_buf());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// Switches no caller may add: a DevTools port or its origin list would open
/// the browser to every local user again, and another profile folder would
/// escape the one webrig made and checked.
const FORBIDDEN_SWITCHES: &[&str] = &["remote-debugging", "remote-allow-origins", "user-data-dir"];

/// Refuses an extra argument that names a forbidden switch, however
/// Chromium would read it: `--name`, `-name`, any case, with or without
/// `=value`; and `--`, after which Chromium reads no switches at all.
fn check_extra_args(args: &[String]) -> Result<(), ApiError> {
    for arg in args {
        if arg == "--" {
            return Err(ApiError::invalid(
                "a bare `--` would end the browser's switches; leave it out",
            ));
        }
        let Some(name) = arg
            .strip_prefix("--")
            .or_else(|| arg.strip_prefix('-'))
            .map(|n| n.split('=').next().unwrap_or(n).to_ascii_lowercase())
        else {
            continue;
        };
        if let Some(bad) = FORBIDDEN_SWITCHES.iter().find(|f| name.starts_with(**f)) {
            return Err(ApiError::new(
                ErrorCode::Forbidden,
                format!("the browser switch {arg:?} is not allowed (--{bad}…: webrig owns it)"),
            ));
        }
    }
    Ok(())
}

/// Starts a browser behind a keeper (`--remote-debugging-pipe`: no port
/// listens) and waits until it answers over CDP.
pub async fn launch(opts: &LaunchOptions) -> Result<Launched, ApiError> {
    check_extra_args(&opts.extra_args)?;
    let executable = find_browser(opts.browser_path.as_deref())?;
    let (profile, temp_profile) = match &opts.profile {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| {
                ApiError::invalid(format!("cannot use profile {}: {e}", dir.display()))
            })?;
            (dir.clone(), None)
        }
        None => {
            // Kept on disk (not a TempDir that deletes on drop): the browser
            // may outlive this daemon and be re-attached by the next one,
            // which then owns the deletion.
            // Owner-only: a profile holds cookies and logins.
            let dir = crate::config::private_tempdir("webrig-profile-", None)
                .map_err(|e| ApiError::internal(format!("cannot create a profile dir: {e}")))?;
            (dir.clone(), Some(dir))
        }
    };
    // stderr goes to an unlinked temp file, not a pipe: a pipe would break
    // (SIGPIPE) when this daemon exits while the browser lives on.
    let stderr = tempfile::tempfile()
        .map_err(|e| ApiError::internal(format!("cannot create a log file: {e}")))?;
    let mut stderr_reader = stderr
        .try_clone()
        .map_err(|e| ApiError::internal(format!("cannot create a log file: {e}")))?;

    let mut argv: Vec<String> = vec![executable.display().to_string()];
    argv.extend(
        [
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--disable-breakpad",
            "--disable-dev-shm-usage",
            // The omnibox popup's WebUI (and its AI-mode variant) keeps a
            // renderer of its own warm in every browser, headless too: ~37 MB
            // private per session that no agent uses (docs/BENCHMARKS.md,
            // "Browser processes per session"). Flags tried there that
            // changed nothing measurable, or cost more than they saved
            // (a spare renderer: +48 ms per cross-site goto), are left out.
            "--disable-features=Translate,MediaRouter,OptimizationHints,\
             WebUIOmniboxPopup,WebUIOmniboxAimPopup",
            "--password-store=basic",
            "--use-mock-keychain",
            "--window-size=1280,800",
        ]
        .map(String::from),
    );
    // Running as root (containers, CI) needs --no-sandbox; GPU is absent there too.
    if is_root() {
        argv.extend(["--no-sandbox", "--disable-gpu"].map(String::from));
    }
    if !opts.headed {
        argv.extend(["--headless", "--hide-scrollbars", "--mute-audio"].map(String::from));
    }
    argv.push(format!("--user-data-dir={}", profile.display()));
    argv.extend(opts.extra_args.iter().cloned());
    argv.push("about:blank".into());

    let fail = |why: String, stderr_reader: &mut std::fs::File| {
        let mut log = String::new();
        use std::io::{Read, Seek};
        let _ = stderr_reader.seek(std::io::SeekFrom::Start(0));
        let _ = stderr_reader.read_to_string(&mut log);
        let tail: Vec<&str> = log.lines().rev().take(6).collect::<Vec<_>>();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        if let Some(dir) = &temp_profile {
            let _ = std::fs::remove_dir_all(dir);
        }
        ApiError::new(
            ErrorCode::BrowserGone,
            format!("{} {why}: {}", executable.display(), tail.join(" | ")),
        )
    };
    let started = super::keeper::start(&argv, stderr)
        .await
        .map_err(|e| fail(e, &mut stderr_reader))?;
    let mut keeper = started.keeper;
    let ready = async {
        let conn = super::cdp::Connection::connect_unix(&started.socket)
            .await
            .map_err(|e| e.to_string())?;
        conn.call(None, "Browser.getVersion", serde_json::json!({}))
            .await
            .map_err(|e| e.to_string())?;
        Ok::<_, String>(conn)
    };
    let conn = match tokio::time::timeout(LAUNCH_TIMEOUT, ready).await {
        Ok(Ok(conn)) => conn,
        outcome => {
            let why = match outcome {
                Ok(Err(e)) => format!("exited before answering over CDP ({e})"),
                _ => "timed out before answering over CDP".into(),
            };
            kill_pid(started.browser_pid).await;
            let _ = keeper.start_kill();
            let _ = keeper.wait().await;
            return Err(fail(why, &mut stderr_reader));
        }
    };
    Ok(Launched {
        keeper,
        browser_pid: started.browser_pid,
        socket: started.socket,
        conn,
        executable,
        temp_profile,
    })
}

/// A browser process webrig owns, launched now or by an earlier daemon:
/// stopped (politely, then by force) with its throwaway profile deleted.
pub struct Process {
    /// The keeper; None when re-attached (it is not our child any more).
    pub keeper: Option<Box<Child>>,
    pub pid: Option<u32>,
    pub temp_profile: Option<PathBuf>,
}

impl Process {
    pub fn of(launched: Launched) -> (Process, super::cdp::Connection, PathBuf, PathBuf) {
        let process = Process {
            keeper: Some(Box::new(launched.keeper)),
            pid: Some(launched.browser_pid),
            temp_profile: launched.temp_profile,
        };
        (process, launched.conn, launched.socket, launched.executable)
    }

    /// Whether the browser still runs.
    pub fn alive(&mut self) -> bool {
        match &mut self.keeper {
            Some(keeper) => matches!(keeper.try_wait(), Ok(None)),
            None => self.pid.is_some_and(pid_alive),
        }
    }

    /// Asks the browser to close over `conn`, waits a moment, forces it,
    /// and deletes its throwaway profile.
    pub async fn stop(&mut self, conn: &super::cdp::Connection) {
        let _ = tokio::time::timeout(
            Duration::from_millis(500),
            conn.call(None, "Browser.close", serde_json::json!({})),
        )
        .await;
        conn.close();
        // The browser is not our child (the keeper is): wait for it to go,
        // then force it. The keeper exits once the browser's pipe closes.
        let pid = self.pid;
        for _ in 0..30 {
            if !pid.is_some_and(pid_alive) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if let Some(pid) = pid.filter(|p| pid_alive(*p)) {
            kill_pid(pid).await;
        }
        if let Some(keeper) = &mut self.keeper
            && tokio::time::timeout(Duration::from_millis(1500), keeper.wait())
                .await
                .is_err()
        {
            let _ = keeper.start_kill();
            let _ = keeper.wait().await;
        }
        if let Some(dir) = self.temp_profile.take() {
            let _ = tokio::task::spawn_blocking(move || std::fs::remove_dir_all(dir)).await;
        }
    }
}

/// Whether process `pid` runs (a zombie still has /proc/PID; its state line says Z).
pub fn pid_alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map(|s| !s.contains("State:\tZ"))
        .unwrap_or(false)
}

/// SIGKILL by pid, for a browser that is not our child (the keeper's).
pub async fn kill_pid(pid: u32) {
    let _ = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .await;
}

fn is_root() -> bool {
    // The owner of /proc/self is our effective uid; no libc call (and no unsafe) needed.
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self")
        .map(|m| m.uid() == 0)
        .unwrap_or(false)
}

/// Turns `http://host:port` (a browser started with --remote-debugging-port) or a
/// `ws://` URL into the browser's WebSocket endpoint.
pub async fn resolve_endpoint(endpoint: &str) -> Result<String, ApiError> {
    let url = url::Url::parse(endpoint)
        .map_err(|e| ApiError::invalid(format!("{endpoint:?} is not a URL: {e}")))?;
    match url.scheme() {
        "ws" | "wss" => Ok(endpoint.to_string()),
        "http" | "https" => {
            let version = url
                .join("/json/version")
                .map_err(|e| ApiError::invalid(e.to_string()))?;
            let body = tokio::task::spawn_blocking(move || -> Result<serde_json::Value, String> {
                let agent: ureq::Agent = ureq::Agent::config_builder()
                    .timeout_global(Some(Duration::from_secs(5)))
                    .build()
                    .into();
                let mut resp = agent
                    .get(version.as_str())
                    .call()
                    .map_err(|e| e.to_string())?;
                resp.body_mut().read_json().map_err(|e| e.to_string())
            })
            .await
            .map_err(|e| ApiError::internal(e.to_string()))?
            .map_err(|e| {
                ApiError::new(
                    ErrorCode::BrowserGone,
                    format!("no browser answers at {endpoint}: {e}"),
                )
                .with_hint(
                    "start Chrome with --remote-debugging-port=PORT and pass http://127.0.0.1:PORT",
                )
            })?;
            body.get("webSocketDebuggerUrl")
                .and_then(|v| v.as_str())
                .map(str::to_string)
                .ok_or_else(|| {
                    ApiError::new(
                        ErrorCode::BrowserGone,
                        format!("{endpoint}/json/version has no webSocketDebuggerUrl"),
                    )
                })
        }
        other => Err(ApiError::invalid(format!(
            "connect needs http://host:port or ws://…, not {other}:"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_devtools_port_or_another_profile_cannot_be_slipped_in_however_spelled() {
        for bad in [
            "--remote-debugging-port=9222",
            "-remote-debugging-port=9222",
            "--REMOTE-DEBUGGING-PORT=9222",
            "-remote-debugging-address=0.0.0.0",
            "--remote-allow-origins=*",
            "-user-data-dir=/tmp/x",
            "--",
        ] {
            assert!(check_extra_args(&[bad.to_string()]).is_err(), "{bad}");
        }
        let fine = ["--lang=fr", "--window-size=800,600", "-incognito"].map(String::from);
        assert!(check_extra_args(&fine).is_ok());
    }
}
