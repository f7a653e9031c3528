//! Downloads of a session's browser, into the session's own folder.
//!
//! The browser writes each download under its guid (`allowAndName`), so a
//! page cannot choose the path; once complete, webrig gives it the page's
//! suggested name, made safe (one path component, no hidden or control
//! characters) and never over an existing file, with mode 0600 in a 0700
//! folder.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

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
    /// `in_progress`, `completed`, `canceled` or `failed`.
    pub state: String,
    pub bytes: u64,
    /// Expected size (0: unknown).
    pub total: u64,
    /// Seconds since the Unix epoch.
    pub started: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// How many downloads the session had begun, this one included.
    #[serde(skip)]
    pub ordinal: u64,
}

/// Most downloads a session remembers (the files stay; the list forgets).
const REMEMBERED: usize = 200;

pub struct Downloads {
    dir: PathBuf,
    list: Mutex<Vec<Download>>,
    begun: std::sync::atomic::AtomicU64,
    /// Bumped on every change; waiters watch it.
    changed: tokio::sync::watch::Sender<u64>,
}

impl Downloads {
    pub fn new(dir: PathBuf) -> Self {
        Downloads {
            dir,
            list: Mutex::new(Vec::new()),
            begun: Default::default(),
            changed: tokio::sync::watch::channel(0).0,
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Download>> {
        self.list.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn list(&self) -> Vec<Download> {
        self.lock().clone()
    }

    /// Downloads begun so far (a mark for [`Downloads::wait_for`]).
    pub fn mark(&self) -> u64 {
        self.begun.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn bump(&self) {
        self.changed.send_modify(|n| *n += 1);
    }

    /// Takes a browser-level CDP event; true if it was a download's.
    pub fn apply(&self, method: &str, p: &Value) -> bool {
        match method {
            "Browser.downloadWillBegin" => {
                let mut list = self.lock();
                let ordinal = self.begun.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                list.push(Download {
                    ordinal,
                    id: p["guid"].as_str().unwrap_or_default().to_string(),
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
                });
                if list.len() > REMEMBERED {
                    let extra = list.len() - REMEMBERED;
                    list.drain(..extra);
                }
            }
            "Browser.downloadProgress" => {
                let guid = p["guid"].as_str().unwrap_or_default();
                let state = p["state"].as_str().unwrap_or("inProgress");
                let mut list = self.lock();
                let Some(d) = list.iter_mut().rev().find(|d| d.id == guid) else {
                    return true;
                };
                d.bytes = p["receivedBytes"].as_f64().unwrap_or(0.0).max(0.0) as u64;
                d.total = p["totalBytes"].as_f64().unwrap_or(0.0).max(0.0) as u64;
                match state {
                    "completed" => match self.publish(guid, &d.suggested) {
                        Ok(path) => {
                            d.state = "completed".into();
                            d.path = Some(path.display().to_string());
                        }
                        Err(e) => {
                            d.state = "failed".into();
                            d.error = Some(e);
                        }
                    },
                    "canceled" => d.state = "canceled".into(),
                    _ => {}
                }
            }
            _ => return false,
        }
        self.bump();
        true
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

    /// Waits for the first download begun after `mark`; None if none began
    /// within `within`.
    pub async fn wait_begun(&self, mark: u64, within: std::time::Duration) -> Option<String> {
        let mut rx = self.changed.subscribe();
        let wait = async {
            loop {
                let found = self
                    .lock()
                    .iter()
                    .find(|d| d.ordinal > mark)
                    .map(|d| d.id.clone());
                if let Some(id) = found {
                    return id;
                }
                if rx.changed().await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
        };
        tokio::time::timeout(within, wait).await.ok()
    }

    /// Waits for download `id` to finish; its final record.
    pub async fn wait_done(
        &self,
        id: &str,
        deadline: tokio::time::Instant,
    ) -> Result<Download, ApiError> {
        let mut rx = self.changed.subscribe();
        loop {
            let now = self.lock().iter().rev().find(|d| d.id == id).cloned();
            match now {
                Some(d) if d.state == "completed" => return Ok(d),
                Some(d) if d.state != "in_progress" => {
                    return Err(ApiError::new(
                        ErrorCode::Internal,
                        format!(
                            "the download of {} ended {}{}",
                            d.url,
                            d.state,
                            d.error.map(|e| format!(": {e}")).unwrap_or_default()
                        ),
                    ));
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
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_one_safe_component() {
        assert_eq!(safe_name("../../etc/passwd"), "passwd");
        assert_eq!(safe_name(".bashrc"), "bashrc");
        assert_eq!(safe_name("a\u{0}b\nc.txt"), "a_b_c.txt");
        assert_eq!(safe_name(""), "download");
        assert_eq!(safe_name(".."), "download");
        assert_eq!(safe_name("C:\\x\\report.pdf"), "report.pdf");
    }

    #[test]
    fn a_finished_download_gets_its_name_and_never_overwrites() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = Downloads::new(dir.path().to_path_buf());
        std::fs::write(dir.path().join("report.csv"), b"old").expect("write");
        for guid in ["g1", "g2"] {
            std::fs::write(dir.path().join(guid), b"new").expect("write");
            d.apply(
                "Browser.downloadWillBegin",
                &json!({ "guid": guid, "url": "http://x/r", "suggestedFilename": "report.csv" }),
            );
            d.apply(
                "Browser.downloadProgress",
                &json!({ "guid": guid, "state": "completed", "receivedBytes": 3, "totalBytes": 3 }),
            );
        }
        let list = d.list();
        assert_eq!(
            list[0].path.as_deref(),
            Some(
                dir.path()
                    .join("report (1).csv")
                    .to_str()
                    .unwrap_or_default()
            )
        );
        assert_eq!(
            list[1].path.as_deref(),
            Some(
                dir.path()
                    .join("report (2).csv")
                    .to_str()
                    .unwrap_or_default()
            )
        );
        assert_eq!(
            std::fs::read(dir.path().join("report.csv")).expect("read"),
            b"old"
        );
        let mode = std::fs::metadata(dir.path().join("report (1).csv"))
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(!dir.path().join("g1").exists());
    }
}
