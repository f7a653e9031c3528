//! Finding and starting a Chromium, and finding a running one's CDP endpoint.
//!
//! Owns the browser process: flags, profile directory, the DevTools URL it prints.
//! It must not speak CDP beyond the initial handshake.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
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
}

/// A browser process webrig started, with the profile it owns.
pub struct Launched {
    pub child: Child,
    pub ws_url: String,
    pub executable: PathBuf,
    /// A throwaway profile, deleted on drop; None when the user named one.
    pub temp_profile: Option<tempfile::TempDir>,
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

/// Starts a browser and waits for its DevTools endpoint.
pub async fn launch(opts: &LaunchOptions) -> Result<Launched, ApiError> {
    let executable = find_browser(opts.browser_path.as_deref())?;
    let (profile, temp_profile) = match &opts.profile {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| {
                ApiError::invalid(format!("cannot use profile {}: {e}", dir.display()))
            })?;
            (dir.clone(), None)
        }
        None => {
            let dir = tempfile::Builder::new()
                .prefix("webrig-profile-")
                .tempdir()
                .map_err(|e| ApiError::internal(format!("cannot create a profile dir: {e}")))?;
            (dir.path().to_path_buf(), Some(dir))
        }
    };

    let mut cmd = Command::new(&executable);
    cmd.args([
        "--remote-debugging-port=0",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--disable-breakpad",
        "--disable-dev-shm-usage",
        "--disable-features=Translate,MediaRouter,OptimizationHints",
        "--password-store=basic",
        "--use-mock-keychain",
        "--window-size=1280,800",
    ]);
    // Running as root (containers, CI) needs --no-sandbox; GPU is absent there too.
    if is_root() {
        cmd.args(["--no-sandbox", "--disable-gpu"]);
    }
    if !opts.headed {
        cmd.args(["--headless", "--hide-scrollbars", "--mute-audio"]);
    }
    cmd.arg(format!("--user-data-dir={}", profile.display()));
    cmd.args(&opts.extra_args);
    cmd.arg("about:blank");
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        // Its own process group: a Ctrl-C aimed at a terminal does not reach it.
        .process_group(0);

    let mut child = cmd
        .spawn()
        .map_err(|e| ApiError::internal(format!("cannot start {}: {e}", executable.display())))?;
    let stderr = child
        .stderr
        .take()
        .ok_or_else(|| ApiError::internal("browser stderr was not captured"))?;
    let mut lines = BufReader::new(stderr).lines();
    let mut tail: Vec<String> = Vec::new();
    let found = tokio::time::timeout(LAUNCH_TIMEOUT, async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(url) = line.trim().strip_prefix("DevTools listening on ") {
                return Some(url.to_string());
            }
            if tail.len() == 8 {
                tail.remove(0);
            }
            tail.push(line);
        }
        None
    })
    .await;
    let ws_url = match found {
        Ok(Some(url)) => url,
        Ok(None) | Err(_) => {
            let _ = child.start_kill();
            let why = if found.is_err() {
                "timed out"
            } else {
                "exited"
            };
            return Err(ApiError::new(
                ErrorCode::BrowserGone,
                format!(
                    "{} {why} before opening DevTools: {}",
                    executable.display(),
                    tail.join(" | ")
                ),
            ));
        }
    };
    // Keep draining stderr so the browser never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok(Launched {
        child,
        ws_url,
        executable,
        temp_profile,
    })
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
