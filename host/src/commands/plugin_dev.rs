//! The plugin author's loop: `plugin dev` (install from a build output and
//! reinstall whenever it changes) and `plugin logs` (what a plugin logged,
//! with `--follow`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::plugins::{PluginInstall, PluginView};
use super::session::absolutize;
use super::{Command, Cx, Scope};
use crate::error::ApiError;
use crate::plugins::host::LogLine;

/// How often a watched build output is looked at.
const POLL: Duration = Duration::from_millis(300);

/// The running watchers, by plugin id (one daemon per process).
static WATCHERS: LazyLock<Mutex<HashMap<String, tokio::task::AbortHandle>>> =
    LazyLock::new(Mutex::default);

/// Install a plugin from its build output and reinstall it whenever the
/// file changes (until `plugin dev --stop ID`, its removal, or the daemon
/// stops). Each reinstall, and why one failed, goes to `plugin logs ID`.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginDev {
    /// The built component (.wasm) or plugin folder to watch.
    #[arg(required_unless_present = "stop")]
    #[serde(default)]
    pub path: Option<PathBuf>,
    /// The manifest (plugin.toml), when PATH is a .wasm without one beside it.
    #[arg(long)]
    #[serde(default)]
    pub manifest: Option<PathBuf>,
    /// Grant what the manifest asks for, now and on each reinstall (a
    /// rebuilt manifest that asks for more is refused).
    #[arg(long)]
    #[serde(default)]
    pub grant: bool,
    /// Stop watching plugin ID (it stays installed).
    #[arg(long, value_name = "ID")]
    #[serde(default)]
    pub stop: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct DevOut {
    /// The plugin as installed now (none after --stop).
    pub plugin: Option<PluginView>,
    /// The file being watched.
    pub watching: Option<String>,
    pub stopped: Option<String>,
}

/// What tells a rebuilt file apart: size and modification time.
fn stamp(path: &std::path::Path) -> Option<(u64, std::time::SystemTime)> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.len(), m.modified().ok()?))
}

impl Command for PluginDev {
    const NAME: &'static str = "plugin dev";
    const ABOUT: &'static str =
        "Install a plugin from its build output and reinstall it on every rebuild";
    const SCOPE: Scope = Scope::Daemon;
    type Output = DevOut;

    fn prepare(&mut self) -> Result<(), ApiError> {
        absolutize(&mut self.path)?;
        absolutize(&mut self.manifest)
    }

    async fn run(self, cx: Cx) -> Result<DevOut, ApiError> {
        if let Some(id) = &self.stop {
            let watcher = WATCHERS
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(id);
            return match watcher {
                Some(w) => {
                    w.abort();
                    Ok(DevOut {
                        plugin: None,
                        watching: None,
                        stopped: Some(id.clone()),
                    })
                }
                None => Err(ApiError::not_found(format!(
                    "plugin {id:?} is not being watched"
                ))),
            };
        }
        let path = self
            .path
            .clone()
            .ok_or_else(|| ApiError::invalid("plugin dev needs the build output's path"))?;
        cx.require_local_files("plugin dev")?;
        let install = |replace: bool| PluginInstall {
            path: path.clone(),
            manifest: self.manifest.clone(),
            grant: self.grant,
            replace,
            approved: None,
        };
        // Installed (or replaced) now: a bad build is reported right away.
        let view = install(true).run(cx.fork()).await?;
        let id = view.id.clone();
        let watched = if path.is_dir() {
            path.join(
                crate::plugins::manifest::Manifest::load(&path.join("plugin.toml"))
                    .map(|m| m.component)
                    .unwrap_or_default(),
            )
        } else {
            path.clone()
        };
        let state = cx.state().clone();
        let logs = cx.state().providers().await?.host().logs_of(&id);
        let (manifest, grant) = (self.manifest.clone(), self.grant);
        let file = watched.clone();
        let task = tokio::spawn(async move {
            let mut seen = stamp(&file);
            loop {
                tokio::time::sleep(POLL).await;
                let now = stamp(&file);
                if now.is_none() || now == seen {
                    continue;
                }
                // Still being written? Wait until it holds still.
                tokio::time::sleep(POLL).await;
                if stamp(&file) != now {
                    continue;
                }
                seen = now;
                let cx = Cx::new(
                    state.clone(),
                    None,
                    None,
                    tokio::time::Instant::now() + Duration::from_secs(60),
                )
                .with_local_files(true);
                let again = PluginInstall {
                    path: path.clone(),
                    manifest: manifest.clone(),
                    grant,
                    replace: true,
                    approved: None,
                };
                match again.run(cx).await {
                    Ok(v) => logs.push(
                        "info",
                        format!(
                            "plugin dev: reinstalled {} from {}",
                            v.line(),
                            file.display()
                        ),
                    ),
                    Err(e) => logs.push(
                        "error",
                        format!("plugin dev: the rebuild was not installed: {}", e.message()),
                    ),
                }
            }
        });
        if let Some(old) = WATCHERS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.clone(), task.abort_handle())
        {
            old.abort();
        }
        Ok(DevOut {
            plugin: Some(view),
            watching: Some(watched.display().to_string()),
            stopped: None,
        })
    }

    fn human(out: &DevOut) -> String {
        match (&out.plugin, &out.watching, &out.stopped) {
            (Some(p), Some(w), _) => format!(
                "installed {}\nwatching {w}: every rebuild is reinstalled (webrig plugin logs {} --follow; stop with webrig plugin dev --stop {})",
                p.line(),
                p.id,
                p.id
            ),
            (_, _, Some(id)) => format!("stopped watching {id}"),
            _ => String::new(),
        }
    }
}

/// What a plugin logged (its `log` import, and `plugin dev` reinstalls),
/// newest last. `--follow` keeps printing new lines until Ctrl-C or the
/// deadline (--timeout-ms, at most the daemon's limit).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginLogs {
    /// The plugin's id.
    pub id: String,
    /// Lines to show (1-1000).
    #[arg(long, default_value_t = 50)]
    #[serde(default = "fifty")]
    pub limit: usize,
    /// Keep printing new lines as they come.
    #[arg(long)]
    #[serde(default)]
    pub follow: bool,
}

fn fifty() -> usize {
    50
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct LogsOut {
    pub id: String,
    /// The lines (with --follow over a stream: the ones not already sent
    /// as events).
    pub lines: Vec<LogLine>,
}

impl Command for PluginLogs {
    const NAME: &'static str = "plugin logs";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "Show what a plugin logged (--follow for new lines)";
    const SCOPE: Scope = Scope::Daemon;
    const STREAMS: bool = true;
    type Output = LogsOut;

    async fn run(self, cx: Cx) -> Result<LogsOut, ApiError> {
        if !(1..=1000).contains(&self.limit) {
            return Err(ApiError::invalid("--limit must be 1..=1000"));
        }
        let host = cx.state().providers().await?.host().clone();
        if host.get(&self.id).is_none() {
            return Err(
                ApiError::not_found(format!("no plugin {:?} is installed", self.id))
                    .with_hint("see webrig plugin list"),
            );
        }
        let ring = host.logs_of(&self.id);
        let mut lines = ring.after(0, self.limit);
        if !self.follow {
            return Ok(LogsOut { id: self.id, lines });
        }
        let mut last = lines.last().map_or(0, |l| l.seq);
        let events = cx.events();
        if let Some(tx) = &events {
            for l in lines.drain(..) {
                let _ = tx.send(serde_json::json!({"event": "log", "line": l}));
            }
        }
        // Until the deadline (a little before, to answer in time) or the
        // client hangs up (the stream is dropped, and this with it).
        let until = cx.deadline() - Duration::from_millis(200);
        while tokio::time::Instant::now() < until {
            tokio::time::sleep(POLL.min(until - tokio::time::Instant::now())).await;
            for l in ring.after(last, 1000) {
                last = l.seq;
                match &events {
                    Some(tx) => {
                        let _ = tx.send(serde_json::json!({"event": "log", "line": l}));
                    }
                    None => lines.push(l),
                }
            }
        }
        Ok(LogsOut { id: self.id, lines })
    }

    fn human(out: &LogsOut) -> String {
        out.lines
            .iter()
            .map(log_line)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// One log line for a terminal.
pub fn log_line(l: &LogLine) -> String {
    format!("{} {:<5} {}", l.at, l.level, l.message)
}
