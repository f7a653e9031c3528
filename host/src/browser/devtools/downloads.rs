//! Downloads of a session's browser, into the session's own folder, within
//! the session's and the home's budgets.
//!
//! The browser writes each download under its guid (`allowAndName`), so a
//! page cannot choose the path; once complete, webrig gives it the page's
//! suggested name, made safe (one path component, no hidden or control
//! characters) and never over an existing file, with mode 0600 in a 0700
//! folder.
//!
//! A download is accepted only when `[devtools] downloads` allows it: by
//! default only for an agent action that asked for one ([`Downloads::arm`],
//! `click --download`), one download per action. Accepted downloads count
//! against `[limits]` budgets: files and bytes per session, and files and
//! bytes of the whole home's `downloads` folder as found on disk. A
//! download past a budget is refused at its start, or cancelled as soon as
//! its announced size or its bytes on disk pass it, and its partial file is
//! removed; its entry says which limit stopped it. The byte check runs on
//! each progress event and on a 100 ms poll of the partial file, so an
//! unannounced size overshoots by at most what arrives in that time.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::browser::cdp::Connection;
use crate::config::{DownloadPolicy, Limits};
use crate::error::{ApiError, ErrorCode};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Download {
    /// The browser's id for it.
    pub id: String,
    pub url: String,
    /// The name the page suggested.
    pub suggested: String,
    /// Where it is (once complete).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `in_progress`, `completed`, `refused` (never accepted), `canceled`
    /// or `failed`.
    pub state: String,
    pub bytes: u64,
    /// Expected size (0: unknown).
    pub total: u64,
    /// Seconds since the Unix epoch.
    pub started: f64,
    /// Why it did not complete (for a refused or cancelled one: the rule
    /// or the limit, by its config key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// How many downloads the session had begun, this one included.
    #[serde(skip)]
    pub ordinal: u64,
    /// Stopped by a `[limits]` budget (the error code `limit_exceeded`).
    #[serde(skip)]
    pub over_limit: bool,
}

/// Most downloads a session remembers (the files stay; the list forgets).
const REMEMBERED: usize = 200;
/// Most entries of the home's downloads folder read to total its size.
const SCAN_ENTRIES: usize = 20_000;
/// How often the partial files of running downloads are measured.
pub const POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// Which downloads are accepted, and how much they may take.
#[derive(Debug, Clone, PartialEq)]
pub struct Rules {
    pub policy: DownloadPolicy,
    pub files_per_session: usize,
    pub bytes_per_session: u64,
    pub files_total: usize,
    pub bytes_total: u64,
}

impl Rules {
    pub fn from_limits(l: &Limits) -> Rules {
        Rules {
            policy: l.devtools.downloads,
            files_per_session: l.download_files_per_session,
            bytes_per_session: l.download_bytes_per_session,
            files_total: l.download_files_total,
            bytes_total: l.download_bytes_total,
        }
    }
}

/// An agent action waiting for the download it asked for.
#[derive(Debug)]
struct Arm {
    id: u64,
    /// The frame (a tab's target id) the action ran in.
    frame: String,
    /// The download it was given (accepted or refused).
    claimed: Option<String>,
}

#[derive(Default)]
struct Inner {
    list: Vec<Download>,
    arms: Vec<Arm>,
    next_arm: u64,
    /// Downloads accepted, and bytes of those completed, this session.
    accepted: usize,
    completed_bytes: u64,
}

/// What became of a session's downloads when it closed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Leftovers {
    /// The session's downloads folder.
    pub folder: PathBuf,
    /// Completed downloads kept there (an agent asked for each).
    pub kept: Vec<String>,
    /// Partial files of unfinished downloads, removed.
    pub removed: usize,
    /// The folder was empty and was removed.
    pub folder_removed: bool,
}

pub struct Downloads {
    dir: PathBuf,
    rules: Rules,
    inner: Mutex<Inner>,
    begun: std::sync::atomic::AtomicU64,
    /// Bumped on every change; waiters watch it.
    changed: tokio::sync::watch::Sender<u64>,
}

/// A download accepted or refused; for refused and cancelled ones, the
/// browser must be told to cancel it.
#[derive(Debug, PartialEq)]
pub struct Verdict {
    pub cancel: Option<String>,
}

impl Downloads {
    pub fn new(dir: PathBuf, rules: Rules) -> Self {
        Downloads {
            dir,
            rules,
            inner: Mutex::new(Inner::default()),
            begun: Default::default(),
            changed: tokio::sync::watch::channel(0).0,
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn policy(&self) -> DownloadPolicy {
        self.rules.policy
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn list(&self) -> Vec<Download> {
        self.lock().list.clone()
    }

    /// Downloads begun so far (a mark for [`Downloads::wait_for`]).
    pub fn mark(&self) -> u64 {
        self.begun.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn bump(&self) {
        self.changed.send_modify(|n| *n += 1);
    }

    /// An agent action in tab `frame` asks for one download: the first to
    /// begin while the arm is held (from that tab first) is accepted.
    pub fn arm(self: &Arc<Self>, frame: &str) -> Armed {
        let mut inner = self.lock();
        inner.next_arm += 1;
        let id = inner.next_arm;
        inner.arms.push(Arm {
            id,
            frame: frame.to_string(),
            claimed: None,
        });
        Armed {
            downloads: self.clone(),
            id,
        }
    }

    /// Follows the downloads of a launched or connected browser: into the
    /// session's folder, refused or cancelled per the rules.
    pub async fn follow(self: &Arc<Self>, conn: &Connection) -> Result<(), ApiError> {
        crate::config::ensure_private_dir(&self.dir)
            .map_err(|e| ApiError::internal(format!("the downloads folder: {e:#}")))?;
        self.sweep_partials();
        let mut events = conn.subscribe();
        let downloads = Arc::downgrade(self);
        let canceller = conn.clone();
        tokio::spawn(async move {
            let mut poll = tokio::time::interval(POLL);
            poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            loop {
                let cancel = tokio::select! {
                    event = crate::browser::cdp::next_event(&mut events) => {
                        let Some(event) = event else { break };
                        if event.session_id.is_some()
                            || !event.method.starts_with("Browser.download")
                        {
                            continue;
                        }
                        let Some(downloads) = downloads.upgrade() else { break };
                        downloads.apply(&event.method, &event.params).cancel.into_iter().collect()
                    }
                    _ = poll.tick() => {
                        let Some(downloads) = downloads.upgrade() else { break };
                        downloads.measure()
                    }
                };
                for guid in cancel {
                    let conn = canceller.clone();
                    tokio::spawn(async move {
                        if let Err(e) = conn
                            .call(None, "Browser.cancelDownload", json!({ "guid": guid }))
                            .await
                        {
                            tracing::debug!(error = %e, "cancelling a download");
                        }
                    });
                }
            }
        });
        // Always followed, so every download is seen and judged; "never"
        // still refuses each one as it begins, with an entry saying why.
        conn.call(
            None,
            "Browser.setDownloadBehavior",
            json!({ "behavior": "allowAndName", "downloadPath": self.dir, "eventsEnabled": true }),
        )
        .await?;
        Ok(())
    }

    /// Takes a browser-level CDP event.
    pub fn apply(&self, method: &str, p: &Value) -> Verdict {
        let guid = p["guid"].as_str().unwrap_or_default().to_string();
        let cancel = match method {
            "Browser.downloadWillBegin" => self.begin(&guid, p),
            "Browser.downloadProgress" => self.progress(&guid, p),
            _ => return Verdict { cancel: None },
        };
        self.bump();
        Verdict { cancel }
    }

    fn begin(&self, guid: &str, p: &Value) -> Option<String> {
        let ordinal = self.begun.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        let home = self.home_usage(&[guid]);
        let mut inner = self.lock();
        let frame = p["frameId"].as_str().unwrap_or_default();
        let refusal = admit(&self.rules, &mut inner, guid, frame, home);
        let mut d = Download {
            ordinal,
            id: guid.to_string(),
            url: p["url"].as_str().unwrap_or_default().to_string(),
            suggested: p["suggestedFilename"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            path: None,
            state: "in_progress".into(),
            bytes: 0,
            total: 0,
            started: super::rings::now_epoch(),
            error: None,
            over_limit: false,
        };
        let cancel = match refusal {
            Ok(()) => {
                inner.accepted += 1;
                None
            }
            Err((why, over_limit)) => {
                d.state = "refused".into();
                d.error = Some(why);
                d.over_limit = over_limit;
                Some(guid.to_string())
            }
        };
        inner.list.push(d);
        if inner.list.len() > REMEMBERED {
            let extra = inner.list.len() - REMEMBERED;
            inner.list.drain(..extra);
        }
        drop(inner);
        if cancel.is_some() {
            self.remove_partial(guid);
        }
        cancel
    }

    fn progress(&self, guid: &str, p: &Value) -> Option<String> {
        let state = p["state"].as_str().unwrap_or("inProgress");
        let bytes = p["receivedBytes"].as_f64().unwrap_or(0.0).max(0.0) as u64;
        let total = p["totalBytes"].as_f64().unwrap_or(0.0).max(0.0) as u64;
        let mut inner = self.lock();
        let i = inner.list.iter().rposition(|d| d.id == guid)?;
        let d = &mut inner.list[i];
        d.bytes = bytes;
        d.total = total;
        if d.state != "in_progress" {
            // Refused or cancelled by us: its bytes go, and a browser that
            // still reports it running is told again.
            drop(inner);
            self.remove_partial(guid);
            return (state == "inProgress").then(|| guid.to_string());
        }
        match state {
            "completed" => {
                let suggested = d.suggested.clone();
                let published = self.publish(guid, &suggested);
                let d = &mut inner.list[i];
                match published {
                    Ok(path) => {
                        d.state = "completed".into();
                        d.path = Some(path.display().to_string());
                        inner.completed_bytes = inner.completed_bytes.saturating_add(bytes);
                    }
                    Err(e) => {
                        d.state = "failed".into();
                        d.error = Some(e);
                    }
                }
                None
            }
            "canceled" => {
                d.state = "canceled".into();
                drop(inner);
                self.remove_partial(guid);
                None
            }
            _ => {
                drop(inner);
                self.check_budgets(guid, bytes.max(total))
            }
        }
    }

    /// Measures the partial files of running downloads; the ones to cancel.
    fn measure(&self) -> Vec<String> {
        let running: Vec<(String, u64)> = self
            .lock()
            .list
            .iter()
            .filter(|d| d.state == "in_progress")
            .map(|d| (d.id.clone(), d.bytes.max(d.total)))
            .collect();
        let mut cancel = Vec::new();
        for (guid, known) in running {
            let on_disk = self.partial_bytes(&guid);
            if on_disk > known
                && let Some(d) = self.lock().list.iter_mut().rev().find(|d| d.id == guid)
            {
                d.bytes = d.bytes.max(on_disk);
            }
            if let Some(g) = self.check_budgets(&guid, known.max(on_disk)) {
                cancel.push(g);
            }
        }
        if !cancel.is_empty() {
            self.bump();
        }
        cancel
    }

    /// Cancels running download `guid` (`size`: its bytes, or its announced
    /// size if larger) when it passes the session's or the home's budget.
    fn check_budgets(&self, guid: &str, size: u64) -> Option<String> {
        let running: Vec<String> = self
            .lock()
            .list
            .iter()
            .filter(|d| d.state == "in_progress")
            .map(|d| d.id.clone())
            .collect();
        let running_refs: Vec<&str> = running.iter().map(String::as_str).collect();
        let (_, home_bytes) = self.home_usage(&running_refs);
        let mut inner = self.lock();
        let others: u64 = inner
            .list
            .iter()
            .filter(|d| d.state == "in_progress" && d.id != guid)
            .map(|d| d.bytes)
            .sum();
        let session_used = inner.completed_bytes.saturating_add(others);
        let home_used = home_bytes.saturating_add(others);
        let why = if session_used.saturating_add(size) > self.rules.bytes_per_session {
            Some(over_bytes(
                "limits.download_bytes_per_session",
                self.rules.bytes_per_session,
                session_used,
                size,
            ))
        } else if home_used.saturating_add(size) > self.rules.bytes_total {
            Some(over_bytes(
                "limits.download_bytes_total",
                self.rules.bytes_total,
                home_used,
                size,
            ))
        } else {
            None
        }?;
        let d = inner.list.iter_mut().rev().find(|d| d.id == guid)?;
        if d.state != "in_progress" {
            return None;
        }
        d.state = "canceled".into();
        d.error = Some(why);
        d.over_limit = true;
        drop(inner);
        self.remove_partial(guid);
        self.bump();
        Some(guid.to_string())
    }

    /// Files and bytes under the home's downloads folder (every session's),
    /// leaving out the partial files of `skip` (counted by their progress).
    fn home_usage(&self, skip: &[&str]) -> (usize, u64) {
        let Some(root) = self.dir.parent() else {
            return (0, 0);
        };
        let mut files = 0;
        let mut bytes = 0u64;
        let mut seen = 0;
        let Ok(sessions) = std::fs::read_dir(root) else {
            return (0, 0);
        };
        for session in sessions.flatten() {
            let Ok(entries) = std::fs::read_dir(session.path()) else {
                continue;
            };
            for entry in entries.flatten() {
                seen += 1;
                if seen > SCAN_ENTRIES {
                    return (files, bytes);
                }
                let name = entry.file_name();
                let name = name.to_string_lossy();
                let stem = name.trim_end_matches(".crdownload");
                if session.path() == self.dir && skip.contains(&stem) {
                    continue;
                }
                if let Ok(meta) = entry.metadata()
                    && meta.is_file()
                {
                    files += 1;
                    bytes = bytes.saturating_add(meta.len());
                }
            }
        }
        (files, bytes)
    }

    fn partial_paths(&self, guid: &str) -> Option<[PathBuf; 2]> {
        if guid.is_empty() || guid.contains(['/', '\\']) || guid.starts_with('.') {
            return None;
        }
        Some([
            self.dir.join(guid),
            self.dir.join(format!("{guid}.crdownload")),
        ])
    }

    fn partial_bytes(&self, guid: &str) -> u64 {
        self.partial_paths(guid)
            .into_iter()
            .flatten()
            .filter_map(|p| std::fs::symlink_metadata(p).ok())
            .filter(std::fs::Metadata::is_file)
            .map(|m| m.len())
            .max()
            .unwrap_or(0)
    }

    fn remove_partial(&self, guid: &str) {
        for p in self.partial_paths(guid).into_iter().flatten() {
            let _ = std::fs::remove_file(p);
        }
    }

    /// Removes partial files a crashed daemon or browser left (named by a
    /// guid, as the browser names them while they run).
    fn sweep_partials(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for entry in entries.flatten().take(SCAN_ENTRIES) {
            let name = entry.file_name();
            if is_partial_name(&name.to_string_lossy()) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }

    /// At the session's close (its browser gone): partial files removed,
    /// completed ones kept and listed, an empty folder removed.
    pub fn close(&self) -> Leftovers {
        let mut out = Leftovers {
            folder: self.dir.clone(),
            ..Leftovers::default()
        };
        let mut inner = self.lock();
        for d in inner.list.iter_mut() {
            if d.state == "in_progress" {
                d.state = "canceled".into();
                d.error = Some("the session closed".into());
            }
        }
        drop(inner);
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return out;
        };
        for entry in entries.flatten().take(SCAN_ENTRIES) {
            let name = entry.file_name().to_string_lossy().to_string();
            if is_partial_name(&name) {
                if std::fs::remove_file(entry.path()).is_ok() {
                    out.removed += 1;
                }
            } else {
                out.kept.push(entry.path().display().to_string());
            }
        }
        out.kept.sort();
        out.folder_removed = out.kept.is_empty() && std::fs::remove_dir(&self.dir).is_ok();
        out
    }

    /// Moves a finished download from its guid to its safe name.
    fn publish(&self, guid: &str, suggested: &str) -> Result<PathBuf, String> {
        if guid.is_empty() || guid.contains(['/', '\\']) || guid.starts_with('.') {
            return Err(format!("the browser named a download {guid:?}"));
        }
        let from = self.dir.join(guid);
        let meta = std::fs::symlink_metadata(&from).map_err(|e| format!("{e}"))?;
        if !meta.is_file() {
            return Err("the downloaded file is not a regular file".into());
        }
        std::fs::set_permissions(&from, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| e.to_string())?;
        let name = safe_name(suggested);
        let (stem, ext) = match name.rfind('.') {
            Some(i) if i > 0 => (&name[..i], &name[i..]),
            _ => (name.as_str(), ""),
        };
        for n in 0..1000 {
            let candidate = if n == 0 {
                name.clone()
            } else {
                format!("{stem} ({n}){ext}")
            };
            let to = self.dir.join(&candidate);
            // A hard link never replaces an existing name: no overwrite,
            // even against a file appearing meanwhile.
            match std::fs::hard_link(&from, &to) {
                Ok(()) => {
                    let _ = std::fs::remove_file(&from);
                    return Ok(to);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e.to_string()),
            }
        }
        Err(format!("no free name for {name:?}"))
    }

    /// Waits for download `id` to finish; its final record.
    pub async fn wait_done(
        &self,
        id: &str,
        deadline: tokio::time::Instant,
    ) -> Result<Download, ApiError> {
        let mut rx = self.changed.subscribe();
        loop {
            let now = self.lock().list.iter().rev().find(|d| d.id == id).cloned();
            match now {
                Some(d) if d.state == "completed" => return Ok(d),
                Some(d) if d.state != "in_progress" => {
                    let code = if d.over_limit {
                        ErrorCode::LimitExceeded
                    } else if d.state == "refused" {
                        ErrorCode::InvalidArgument
                    } else {
                        ErrorCode::Internal
                    };
                    return Err(ApiError::new(
                        code,
                        format!(
                            "the download of {} was {}{}",
                            super::redact::url(&d.url),
                            d.state,
                            d.error.map(|e| format!(": {e}")).unwrap_or_default()
                        ),
                    )
                    .with_hint("webrig downloads lists every download and why it stopped"));
                }
                None => return Err(ApiError::not_found(format!("no download {id}"))),
                Some(_) => {}
            }
            if tokio::time::timeout_at(deadline, rx.changed())
                .await
                .is_err()
            {
                return Err(ApiError::new(
                    ErrorCode::Timeout,
                    "the download did not finish before the command's deadline",
                )
                .with_hint("webrig downloads shows its progress; raise --timeout-ms"));
            }
        }
    }
}

/// Why a beginning download is refused (and whether a budget refused it),
/// or Ok; claims the agent action that asked for it.
fn admit(
    rules: &Rules,
    inner: &mut Inner,
    guid: &str,
    frame: &str,
    (home_files, home_bytes): (usize, u64),
) -> Result<(), (String, bool)> {
    if rules.policy == DownloadPolicy::Never {
        return Err((
            "downloads are off ([devtools] downloads = \"never\")".into(),
            false,
        ));
    }
    // The action in the download's own tab first, else any waiting one.
    let arm = match inner
        .arms
        .iter()
        .position(|a| a.claimed.is_none() && a.frame == frame)
    {
        Some(i) => Some(i),
        None => inner.arms.iter().position(|a| a.claimed.is_none()),
    };
    match arm {
        Some(i) => inner.arms[i].claimed = Some(guid.to_string()),
        None if rules.policy == DownloadPolicy::Agent => {
            return Err((
                "no agent action asked for it: a page's own downloads are refused \
                 (use click --download, or set [devtools] downloads = \"always\")"
                    .into(),
                false,
            ));
        }
        None => {}
    }
    let limit = |key: &str, max: String| (format!("{key} ({max}) is reached"), true);
    if inner.accepted >= rules.files_per_session {
        return Err(limit(
            "limits.download_files_per_session",
            rules.files_per_session.to_string(),
        ));
    }
    if inner.completed_bytes >= rules.bytes_per_session {
        return Err(limit(
            "limits.download_bytes_per_session",
            format!("{} bytes", rules.bytes_per_session),
        ));
    }
    if home_files >= rules.files_total {
        return Err(limit(
            "limits.download_files_total",
            rules.files_total.to_string(),
        ));
    }
    if home_bytes >= rules.bytes_total {
        return Err(limit(
            "limits.download_bytes_total",
            format!("{} bytes", rules.bytes_total),
        ));
    }
    Ok(())
}

fn over_bytes(key: &str, max: u64, used: u64, size: u64) -> String {
    format!(
        "{key} ({max} bytes) would be passed: {size} bytes with {used} already used; \
         the partial file was removed"
    )
}

/// A name the browser gives a running download: a guid (36 characters of
/// hex digits and dashes), perhaps with `.crdownload`.
fn is_partial_name(name: &str) -> bool {
    let stem = name.trim_end_matches(".crdownload");
    stem.len() == 36
        && stem.chars().filter(|c| *c == '-').count() == 4
        && stem.chars().all(|c| c == '-' || c.is_ascii_hexdigit())
}

/// An agent action's claim on the next download; released when dropped.
pub struct Armed {
    downloads: Arc<Downloads>,
    id: u64,
}

impl Armed {
    /// Waits for the download this action was given (accepted or refused);
    /// None if none began within `within`.
    pub async fn wait_begun(&self, within: std::time::Duration) -> Option<String> {
        let mut rx = self.downloads.changed.subscribe();
        let wait = async {
            loop {
                let claimed = self
                    .downloads
                    .lock()
                    .arms
                    .iter()
                    .find(|a| a.id == self.id)
                    .and_then(|a| a.claimed.clone());
                if let Some(id) = claimed {
                    return id;
                }
                if rx.changed().await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
        };
        tokio::time::timeout(within, wait).await.ok()
    }
}

impl Drop for Armed {
    fn drop(&mut self) {
        self.downloads.lock().arms.retain(|a| a.id != self.id);
    }
}

/// One safe path component from a page's suggested name.
fn safe_name(suggested: &str) -> String {
    let last = suggested.rsplit(['/', '\\']).next().unwrap_or_default();
    let mut name: String = last
        .chars()
        .map(|c| if c.is_control() || c == ':' { '_' } else { c })
        .collect();
    name = name.trim().trim_start_matches('.').to_string();
    if name.len() > 200 {
        let mut end = 200;
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        name.truncate(end);
    }
    if name.is_empty() {
        "download".into()
    } else {
        name
    }
}

#[cfg(test)]
mod tests;
