//! A workflow run's bundle: one owner-only folder of files, described by
//! `bundle-manifest.json`, kept for a TTL.
//!
//! The rules: folders 0700, files 0600, each written through a temp file and
//! a rename (a half-written file never shows); names are plain relative
//! paths (no absolute path, `..`, backslash, hidden part or symlink on the
//! way); the manifest says whether the run completed. `list` and `cleanup`
//! read manifests only: a run whose dates do not parse is kept, and
//! symlinks are never followed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const MANIFEST: &str = "bundle-manifest.json";
/// Files the host writes itself; a workflow may not.
pub const RESERVED: &[&str] = &[MANIFEST, "meta.json"];
pub const TTL_DEFAULT_HOURS: u32 = 72;
pub const TTL_MAX_HOURS: u32 = 168;
const MAX_FILES: usize = 1000;
const MAX_BYTES: u64 = 256 << 20;
const MAX_NAME: usize = 200;
const MAX_DEPTH: usize = 4;

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct FileEntry {
    pub name: String,
    pub bytes: u64,
}

/// `bundle-manifest.json`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Manifest {
    pub run_id: String,
    pub workflow: String,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub ttl_hours: u32,
    pub expires_at: String,
    /// False while the run goes on, and for runs that failed or were
    /// cancelled.
    pub complete: bool,
    pub files: Vec<FileEntry>,
    /// What the run was about (its topic, query, brief or URL), clipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// How it ended: the workflow's own verdict (`pass`, `partial`, …),
    /// else `complete`, `cancelled` or the error's code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

/// A bundle being written by a run.
#[derive(Debug)]
pub struct Bundle {
    dir: PathBuf,
    manifest: Mutex<Manifest>,
}

pub fn rfc3339(t: SystemTime) -> String {
    humantime::format_rfc3339_seconds(t).to_string()
}

fn parse_time(s: &str) -> Option<SystemTime> {
    humantime::parse_rfc3339_weak(s).ok()
}

impl Bundle {
    /// Creates the bundle folder `dir` (it must not exist; its parent is
    /// created owner-only when missing) and writes a first manifest
    /// marked incomplete.
    pub fn create(
        dir: PathBuf,
        run_id: &str,
        workflow: &str,
        ttl_hours: u32,
        now: SystemTime,
    ) -> Result<Bundle, String> {
        if !(1..=TTL_MAX_HOURS).contains(&ttl_hours) {
            return Err(format!(
                "ttl_hours must be 1..={TTL_MAX_HOURS}, not {ttl_hours}"
            ));
        }
        let parent = dir
            .parent()
            .ok_or_else(|| format!("{} has no parent folder", dir.display()))?;
        if !parent.exists() {
            crate::config::ensure_private_dir(parent).map_err(|e| format!("{e:#}"))?;
        }
        if std::fs::symlink_metadata(parent).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(format!("{} is a symlink", parent.display()));
        }
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => {
                    format!("{} already exists; pick a new folder", dir.display())
                }
                _ => format!("cannot create {}: {e}", dir.display()),
            })?;
        let expires = now + Duration::from_secs(u64::from(ttl_hours) * 3600);
        let bundle = Bundle {
            dir,
            manifest: Mutex::new(Manifest {
                run_id: run_id.into(),
                workflow: workflow.into(),
                created_at: rfc3339(now),
                ttl_hours,
                expires_at: rfc3339(expires),
                complete: false,
                files: Vec::new(),
                subject: None,
                status: None,
            }),
        };
        bundle.save_manifest()?;
        Ok(bundle)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn manifest(&self) -> Manifest {
        self.lock().clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Manifest> {
        self.manifest.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes a workflow's file `name`; returns its checked name.
    pub fn write(&self, name: &str, bytes: &[u8]) -> Result<String, String> {
        let parts = check_name(name)?;
        if parts.len() == 1 && RESERVED.contains(&parts[0]) {
            return Err(format!("{name} is written by webrig itself"));
        }
        self.put(&parts, bytes)
    }

    /// Writes a file the host owns (meta.json).
    pub fn write_own(&self, name: &str, bytes: &[u8]) -> Result<String, String> {
        self.put(&[name], bytes)
    }

    fn put(&self, parts: &[&str], bytes: &[u8]) -> Result<String, String> {
        let name = parts.join("/");
        {
            let m = self.lock();
            let total: u64 = m
                .files
                .iter()
                .filter(|f| f.name != name)
                .map(|f| f.bytes)
                .sum();
            if total + bytes.len() as u64 > MAX_BYTES {
                return Err(format!("the bundle would pass {} MiB", MAX_BYTES >> 20));
            }
            if m.files.len() >= MAX_FILES && !m.files.iter().any(|f| f.name == name) {
                return Err(format!("a bundle holds at most {MAX_FILES} files"));
            }
        }
        let mut dir = self.dir.clone();
        for part in &parts[..parts.len() - 1] {
            dir.push(part);
            match std::fs::symlink_metadata(&dir) {
                Ok(m) if m.file_type().is_symlink() || !m.is_dir() => {
                    return Err(format!("{name}: {part} is not a plain folder"));
                }
                Ok(_) => {}
                Err(_) => std::fs::DirBuilder::new()
                    .mode(0o700)
                    .create(&dir)
                    .map_err(|e| format!("{name}: {e}"))?,
            }
        }
        let path = dir.join(parts[parts.len() - 1]);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) {
            return Err(format!("{name} exists and is not a plain file"));
        }
        crate::artifacts::write_new(&path, bytes, true).map_err(|e| e.message().to_string())?;
        let mut m = self.lock();
        m.files.retain(|f| f.name != name);
        m.files.push(FileEntry {
            name: name.clone(),
            bytes: bytes.len() as u64,
        });
        Ok(name)
    }

    /// Writes the manifest as it is now.
    fn save_manifest(&self) -> Result<(), String> {
        let mut m = self.manifest();
        m.files.sort_by(|a, b| a.name.cmp(&b.name));
        let text = serde_json::to_vec_pretty(&m).map_err(|e| e.to_string())?;
        crate::artifacts::write_new(&self.dir.join(MANIFEST), &text, true)
            .map(|_| ())
            .map_err(|e| e.message().to_string())
    }

    /// Marks the run complete or not and writes the final manifest.
    pub fn finish(&self, complete: bool) -> Result<(), String> {
        self.lock().complete = complete;
        self.save_manifest()
    }

    /// Notes what the run is about (saved with the next manifest write).
    pub fn set_subject(&self, subject: Option<String>) {
        self.lock().subject = subject;
    }

    /// Notes how the run ended (saved with the next manifest write).
    pub fn set_status(&self, status: String) {
        self.lock().status = Some(status);
    }
}

use std::os::unix::fs::DirBuilderExt;

/// The parts of a bundle-relative file name, or why it is refused.
pub fn check_name(name: &str) -> Result<Vec<&str>, String> {
    let bad = |why: &str| Err(format!("bad file name {name:?}: {why}"));
    if name.is_empty() || name.len() > MAX_NAME {
        return bad(&format!("1 to {MAX_NAME} bytes"));
    }
    if name.starts_with('/') {
        return bad("absolute");
    }
    if name.contains('\\') {
        return bad("contains a backslash");
    }
    if name.chars().any(|c| c.is_control() || c == ':') {
        return bad("contains a control character or ':'");
    }
    let parts: Vec<&str> = name.split('/').collect();
    if parts.len() > MAX_DEPTH {
        return bad(&format!("at most {MAX_DEPTH} levels"));
    }
    for p in &parts {
        if *p == ".." {
            return bad("contains ..");
        }
        if p.is_empty() || *p == "." || p.starts_with('.') {
            return bad("has an empty or hidden part");
        }
    }
    Ok(parts)
}

/// One run as `artifacts list` shows it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RunEntry {
    pub run_id: String,
    pub workflow: String,
    pub path: String,
    pub created_at: String,
    pub expires_at: String,
    pub complete: bool,
    pub expired: bool,
    pub files: usize,
    pub bytes: u64,
    /// What the run was about (topic, query, brief, URL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// How it ended (`pass`, `partial`, `complete`, `cancelled`, an error code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

/// A folder `cleanup` left alone, and why.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Skipped {
    pub path: String,
    pub reason: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Cleanup {
    /// Run ids removed.
    pub removed: Vec<String>,
    pub skipped: Vec<Skipped>,
}

enum Found {
    Run(Box<Manifest>, SystemTime),
    Skip(String),
}

fn read_run(dir: &Path) -> Found {
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_symlink() => return Found::Skip("a symlink".into()),
        Ok(m) if !m.is_dir() => return Found::Skip("not a folder".into()),
        Err(e) => return Found::Skip(e.to_string()),
        Ok(_) => {}
    }
    let path = dir.join(MANIFEST);
    if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) {
        return Found::Skip(format!("{MANIFEST} is not a plain file"));
    }
    let Ok(text) = std::fs::read(&path) else {
        return Found::Skip(format!("no {MANIFEST}"));
    };
    let Ok(m) = serde_json::from_slice::<Manifest>(&text) else {
        return Found::Skip(format!("{MANIFEST} does not parse"));
    };
    match parse_time(&m.expires_at) {
        Some(at) if parse_time(&m.created_at).is_some() => Found::Run(Box::new(m), at),
        _ => Found::Skip("its dates do not parse".into()),
    }
}

fn runs(root: &Path) -> Vec<(PathBuf, Found)> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut all: Vec<(PathBuf, Found)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .map(|p| {
            let found = read_run(&p);
            (p, found)
        })
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    all
}

/// The runs under `root`, oldest first.
pub fn list(root: &Path, now: SystemTime) -> Vec<RunEntry> {
    let mut out: Vec<RunEntry> = runs(root)
        .into_iter()
        .filter_map(|(path, found)| match found {
            Found::Run(m, expires) => Some(RunEntry {
                run_id: m.run_id,
                workflow: m.workflow,
                path: path.display().to_string(),
                created_at: m.created_at,
                expires_at: m.expires_at,
                complete: m.complete,
                expired: expires <= now,
                files: m.files.len(),
                bytes: m.files.iter().map(|f| f.bytes).sum(),
                subject: m.subject,
                status: m.status,
            }),
            Found::Skip(_) => None,
        })
        .collect();
    out.sort_by(|a, b| {
        a.created_at
            .cmp(&b.created_at)
            .then(a.run_id.cmp(&b.run_id))
    });
    out
}

/// Removes expired runs (and, unless `expired_only`, runs that did not
/// complete). Keeps what it cannot read, never follows a symlink.
pub fn cleanup(root: &Path, expired_only: bool, now: SystemTime) -> Cleanup {
    let mut report = Cleanup::default();
    for (path, found) in runs(root) {
        match found {
            Found::Skip(reason) => report.skipped.push(Skipped {
                path: path.display().to_string(),
                reason,
            }),
            Found::Run(m, expires) => {
                let expired = expires <= now;
                if !(expired || (!expired_only && !m.complete)) {
                    continue;
                }
                // remove_dir_all does not follow symlinks inside the folder.
                match std::fs::remove_dir_all(&path) {
                    Ok(()) => report.removed.push(m.run_id),
                    Err(e) => report.skipped.push(Skipped {
                        path: path.display().to_string(),
                        reason: e.to_string(),
                    }),
                }
            }
        }
    }
    report
}

/// Per-file sizes, for results.
pub fn sizes(m: &Manifest) -> BTreeMap<String, u64> {
    m.files.iter().map(|f| (f.name.clone(), f.bytes)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).expect("stat").permissions().mode() & 0o777
    }

    #[test]
    fn names_are_plain_relative_paths() {
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "a\\b",
            ".hidden",
            "a//b",
            "a/./b",
            "a/b/c/d/e",
            "c:x",
        ] {
            assert!(check_name(bad).is_err(), "{bad:?} passed");
        }
        assert_eq!(check_name("images/a.png").expect("ok"), ["images", "a.png"]);
    }

    #[test]
    fn writes_owner_only_and_refuses_symlinks_and_reserved_names() {
        let root = tempfile::tempdir().expect("tmp");
        let now = SystemTime::now();
        let b =
            Bundle::create(root.path().join("arts/run1"), "run1", "w", 72, now).expect("bundle");
        assert_eq!(mode(b.dir()), 0o700);
        b.write("images/a.png", b"png").expect("write");
        assert_eq!(mode(&b.dir().join("images")), 0o700);
        assert_eq!(mode(&b.dir().join("images/a.png")), 0o600);
        assert!(b.write(MANIFEST, b"{}").is_err());
        assert!(b.write("meta.json", b"{}").is_err());
        let outside = tempfile::tempdir().expect("tmp");
        std::os::unix::fs::symlink(outside.path(), b.dir().join("link")).expect("symlink");
        let err = b.write("link/x.txt", b"x").expect_err("through a symlink");
        assert!(err.contains("not a plain folder"), "{err}");
        assert!(
            std::fs::read_dir(outside.path())
                .expect("ls")
                .next()
                .is_none()
        );
        std::os::unix::fs::symlink(outside.path().join("f"), b.dir().join("f.txt")).expect("ln");
        assert!(b.write("f.txt", b"x").is_err());
        assert!(!outside.path().join("f").exists());
        b.finish(true).expect("finish");
        let m: Manifest =
            serde_json::from_slice(&std::fs::read(b.dir().join(MANIFEST)).expect("read"))
                .expect("manifest");
        assert!(m.complete);
        assert_eq!(m.files.len(), 1);
        assert_eq!(m.ttl_hours, 72);
        assert!(Bundle::create(root.path().join("arts/run1"), "run1", "w", 72, now).is_err());
        assert!(Bundle::create(root.path().join("arts/run2"), "r", "w", 169, now).is_err());
    }

    #[test]
    fn cleanup_removes_expired_keeps_unparseable_and_skips_symlinks() {
        let root = tempfile::tempdir().expect("tmp");
        let arts = root.path().join("arts");
        let long_ago = SystemTime::now() - Duration::from_secs(10 * 24 * 3600);
        let old = Bundle::create(arts.join("old"), "old", "w", 1, long_ago).expect("old");
        old.finish(true).expect("finish");
        let fresh =
            Bundle::create(arts.join("fresh"), "fresh", "w", 72, SystemTime::now()).expect("fresh");
        fresh.finish(true).expect("finish");
        let broken =
            Bundle::create(arts.join("broken"), "broken", "w", 72, SystemTime::now()).expect("b");
        broken.finish(false).expect("finish");
        std::fs::create_dir(arts.join("garbled")).expect("mkdir");
        std::fs::write(
            arts.join("garbled").join(MANIFEST),
            br#"{"run_id":"g","workflow":"w","created_at":"yesterday","ttl_hours":1,"expires_at":"soon","complete":true,"files":[]}"#,
        )
        .expect("write");
        let victim = tempfile::tempdir().expect("victim");
        std::fs::write(victim.path().join("keep.txt"), b"keep").expect("write");
        std::os::unix::fs::symlink(victim.path(), arts.join("link")).expect("symlink");

        let listed = list(&arts, SystemTime::now());
        assert_eq!(listed.len(), 3, "{listed:?}");
        assert!(listed.iter().any(|r| r.run_id == "old" && r.expired));

        let report = cleanup(&arts, true, SystemTime::now());
        assert_eq!(report.removed, ["old"]);
        assert!(arts.join("fresh").exists() && arts.join("broken").exists());
        assert!(arts.join("garbled").exists());
        assert!(victim.path().join("keep.txt").exists());
        let reasons: Vec<&str> = report.skipped.iter().map(|s| s.reason.as_str()).collect();
        assert!(reasons.contains(&"a symlink"), "{reasons:?}");
        assert!(reasons.contains(&"its dates do not parse"), "{reasons:?}");

        let report = cleanup(&arts, false, SystemTime::now());
        assert_eq!(report.removed, ["broken"]);
        assert!(arts.join("fresh").exists());
    }
}
