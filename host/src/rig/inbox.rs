//! The agent inbox: what people send from the browser (annotations), kept
//! until an agent reads it.
//!
//! Owns the file (`<home>/inbox/inbox.jsonl`, one entry per line, 0600 in a
//! 0700 folder, rewritten whole through a temp file and a rename, read
//! through one descriptor that must be a regular file of this user's), the
//! rules (dedupe of identical sends within 60 s, at most 50 unread and 200
//! entries, 7 days), the scopes agents register to say "sends are for me",
//! and resolving `inbox:ID#N` to the ref it names. Time comes from a
//! [`Clock`], so tests move it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::browser::annotate::Annotation;
use crate::error::{ApiError, ErrorCode};

/// Identical sends within this long are stored once.
pub const DEDUPE_MS: u64 = 60_000;
/// Entries are kept this long.
pub const TTL_MS: u64 = 7 * 24 * 3600 * 1000;
pub const MAX_UNREAD: usize = 50;
pub const MAX_TOTAL: usize = 200;
/// How long a registered scope stays active without being renewed.
pub const SCOPE_TTL_MS: u64 = 3600 * 1000;
/// The most active scopes at once.
const MAX_SCOPES: usize = 64;
/// The largest inbox file read.
const MAX_FILE: u64 = 32 << 20;

/// Where "now" comes from.
pub trait Clock: Send + Sync {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> u64;
}

pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or_default()
    }
}

/// What an entry and its summary both say of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Head {
    pub id: String,
    /// When it was stored, in ms since the Unix epoch.
    pub at_ms: u64,
    /// The scope it went to (None: no agent had one active).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// Several scopes were active: these, and the entry is any of theirs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ambiguous: Vec<String>,
    pub source: Source,
    pub read: bool,
}

/// Who started a send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// An agent ran `annotate` and got the send back (stored as read).
    Annotate,
    /// The person, from the extension's popup (stored unread).
    Extension,
}

/// One thing sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Entry {
    #[serde(flatten)]
    pub head: Head,
    /// Of the payload without its time and screenshot: what dedupe compares.
    pub digest: String,
    pub annotation: Annotation,
}

/// An entry as `inbox list` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    #[serde(flatten)]
    pub head: Head,
    pub url: String,
    pub title: String,
    pub items: usize,
    /// The first item's note, shortened.
    pub note: String,
}

impl std::ops::Deref for Entry {
    type Target = Head;
    fn deref(&self) -> &Head {
        &self.head
    }
}

impl std::ops::DerefMut for Entry {
    fn deref_mut(&mut self) -> &mut Head {
        &mut self.head
    }
}

impl std::ops::Deref for Summary {
    type Target = Head;
    fn deref(&self) -> &Head {
        &self.head
    }
}

impl Entry {
    pub fn summary(&self) -> Summary {
        let note = self
            .annotation
            .items
            .first()
            .map(|i| i.note.chars().take(80).collect())
            .unwrap_or_default();
        Summary {
            head: self.head.clone(),
            url: self.annotation.url.clone(),
            title: self.annotation.title.clone(),
            items: self.annotation.items.len(),
            note,
        }
    }

    /// For the caller in `scope` (None: any caller): its own, unscoped
    /// ones, and ambiguous ones that name it.
    fn is_for(&self, scope: Option<&str>) -> bool {
        let Some(s) = scope else { return true };
        match &self.scope {
            Some(mine) => mine == s,
            None => self.ambiguous.is_empty() || self.ambiguous.iter().any(|a| a == s),
        }
    }
}

/// What storing a send did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Stored {
    pub id: String,
    /// An identical send within 60 s was already stored: this is its id.
    pub deduped: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ambiguous: Vec<String>,
    /// Older entries dropped to keep the caps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evicted: Vec<String>,
}

pub struct Inbox {
    dir: PathBuf,
    clock: Arc<dyn Clock>,
    /// One writer at a time (the daemon is the only one).
    lock: Mutex<()>,
    /// Scope name → when it stops being active (ms).
    scopes: Mutex<HashMap<String, u64>>,
}

fn err(e: impl std::fmt::Display) -> ApiError {
    ApiError::internal(format!("the inbox: {e}"))
}

impl Inbox {
    pub fn new(dir: PathBuf, clock: Arc<dyn Clock>) -> Inbox {
        Inbox {
            dir,
            clock,
            lock: Mutex::new(()),
            scopes: Mutex::new(HashMap::new()),
        }
    }

    pub fn now_ms(&self) -> u64 {
        self.clock.now_ms()
    }

    /// The inbox's folder (made 0700 on first use).
    pub fn dir(&self) -> Result<PathBuf, ApiError> {
        crate::config::ensure_private_dir(&self.dir).map_err(err)?;
        Ok(self.dir.clone())
    }

    fn file(&self) -> PathBuf {
        self.dir.join("inbox.jsonl")
    }

    /// Where an entry's screenshot goes.
    pub fn screenshot_path(&self, id: &str) -> Result<PathBuf, ApiError> {
        Ok(self.dir()?.join(format!("{id}.png")))
    }

    /// A fresh entry id.
    pub fn new_id() -> Result<String, ApiError> {
        crate::config::random_hex(4).map_err(err)
    }

    fn load(&self) -> Result<Vec<Entry>, ApiError> {
        let path = self.file();
        match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            _ => {}
        }
        let uid = rustix::process::getuid().as_raw();
        let bytes = crate::artifacts::read_regular(
            &path,
            MAX_FILE,
            crate::artifacts::Symlinks::Refuse,
            |m| {
                use std::os::unix::fs::MetadataExt;
                if m.uid() != uid {
                    return Err("it belongs to another user".into());
                }
                if m.mode() & 0o077 != 0 {
                    return Err(format!("its mode {:o} lets others in", m.mode() & 0o777));
                }
                Ok(())
            },
        )?;
        let mut out = Vec::new();
        for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<Entry>(line) {
                Ok(e) => out.push(e),
                Err(e) => {
                    tracing::warn!(line = i + 1, error = %e, "inbox: a line that is not an entry is skipped")
                }
            }
        }
        Ok(out)
    }

    fn save(&self, entries: &[Entry]) -> Result<(), ApiError> {
        let mut bytes = Vec::new();
        for e in entries {
            serde_json::to_writer(&mut bytes, e).map_err(err)?;
            bytes.push(b'\n');
        }
        self.dir()?;
        crate::config::write_private(&self.file(), &bytes).map_err(err)
    }

    /// Runs `f` on the entries (expired ones already gone) and saves them
    /// when `f` says they changed or some expired. Every entry that is not
    /// there any more afterwards (expired, evicted, cleared) takes its
    /// screenshot with it.
    fn with<T>(
        &self,
        f: impl FnOnce(&mut Vec<Entry>) -> Result<(T, bool), ApiError>,
    ) -> Result<T, ApiError> {
        let _one = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let mut entries = self.load()?;
        let loaded: Vec<(String, Option<PathBuf>)> = entries
            .iter()
            .map(|e| (e.id.clone(), e.annotation.screenshot.clone()))
            .collect();
        let now = self.now_ms();
        entries.retain(|e| now.saturating_sub(e.at_ms) < TTL_MS);
        let expired = entries.len() != loaded.len();
        let (out, changed) = f(&mut entries)?;
        if changed || expired {
            self.save(&entries)?;
            let kept: std::collections::HashSet<&str> =
                entries.iter().map(|e| e.id.as_str()).collect();
            for (id, shot) in &loaded {
                if !kept.contains(id.as_str()) {
                    self.remove_screenshot(shot.as_deref());
                }
            }
        }
        Ok(out)
    }

    /// Removes an entry's screenshot (only ours, in the inbox folder).
    fn remove_screenshot(&self, shot: Option<&Path>) {
        if let Some(shot) = shot
            && shot.parent() == Some(self.dir.as_path())
        {
            let _ = std::fs::remove_file(shot);
        }
    }

    /// Stores a send: deduped against the last minute's, routed to the
    /// active scope, within the caps. One from `annotate` is stored read
    /// (the agent already has it).
    pub fn add(
        &self,
        id: String,
        annotation: Annotation,
        source: Source,
    ) -> Result<Stored, ApiError> {
        let now = self.now_ms();
        let digest = digest_of(&annotation);
        let (scope, ambiguous) = self.route();
        self.with(|entries| {
            if let Some(same) = entries
                .iter()
                .rev()
                .find(|e| e.digest == digest && now.saturating_sub(e.at_ms) < DEDUPE_MS)
            {
                return Ok((
                    Stored {
                        id: same.id.clone(),
                        deduped: true,
                        scope: same.scope.clone(),
                        ambiguous: same.ambiguous.clone(),
                        evicted: Vec::new(),
                    },
                    false,
                ));
            }
            entries.push(Entry {
                head: Head {
                    id: id.clone(),
                    at_ms: now,
                    scope: scope.clone(),
                    ambiguous: ambiguous.clone(),
                    source,
                    read: source == Source::Annotate,
                },
                digest: digest.clone(),
                annotation: annotation.clone(),
            });
            // The oldest unread go past 50 unread; past 200 in all, the
            // oldest read ones first, then the oldest.
            let mut evicted = Vec::new();
            while entries.iter().filter(|e| !e.read).count() > MAX_UNREAD {
                if let Some(i) = entries.iter().position(|e| !e.read) {
                    evicted.push(entries.remove(i).head.id);
                }
            }
            while entries.len() > MAX_TOTAL {
                let i = entries.iter().position(|e| e.read).unwrap_or(0);
                evicted.push(entries.remove(i).head.id);
            }
            Ok((
                Stored {
                    id: id.clone(),
                    deduped: false,
                    scope: scope.clone(),
                    ambiguous: ambiguous.clone(),
                    evicted,
                },
                true,
            ))
        })
    }

    /// The entries for `scope` (None: all), newest first; unread only
    /// unless `all`.
    pub fn list(&self, scope: Option<&str>, all: bool) -> Result<Vec<Summary>, ApiError> {
        self.with(|entries| {
            Ok((
                entries
                    .iter()
                    .rev()
                    .filter(|e| (all || !e.read) && e.is_for(scope))
                    .map(Entry::summary)
                    .collect(),
                false,
            ))
        })
    }

    pub fn get(&self, id: &str) -> Result<Entry, ApiError> {
        self.with(|entries| {
            let e = entries.iter().find(|e| e.id == id).cloned();
            Ok((e, false))
        })?
        .ok_or_else(|| missing(id))
    }

    /// Marks an entry read and returns it: `id`, else the oldest unread
    /// one for `scope`. None: nothing unread.
    pub fn consume(
        &self,
        id: Option<&str>,
        scope: Option<&str>,
    ) -> Result<Option<Entry>, ApiError> {
        self.with(|entries| {
            let at = match id {
                Some(id) => Some(
                    entries
                        .iter()
                        .position(|e| e.id == id)
                        .ok_or_else(|| missing(id))?,
                ),
                None => entries.iter().position(|e| !e.read && e.is_for(scope)),
            };
            let Some(at) = at else {
                return Ok((None, false));
            };
            let changed = !entries[at].read;
            entries[at].read = true;
            Ok((Some(entries[at].clone()), changed))
        })
    }

    /// Removes entries: one, the read ones, or all. How many went.
    pub fn clear(&self, id: Option<&str>, all: bool) -> Result<usize, ApiError> {
        self.with(|entries| {
            let before = entries.len();
            entries.retain(|e| match id {
                Some(id) => e.id != id,
                None => !(all || e.read),
            });
            if let Some(id) = id
                && entries.len() == before
            {
                return Err(missing(id));
            }
            Ok((before - entries.len(), before != entries.len()))
        })
    }

    /// Registers (or renews) a scope as active for `ttl_ms`.
    pub fn register(&self, name: &str, ttl_ms: u64) -> Result<(), ApiError> {
        check_scope(name)?;
        let now = self.now_ms();
        let mut scopes = self.scopes.lock().unwrap_or_else(|e| e.into_inner());
        scopes.retain(|_, until| *until > now);
        if !scopes.contains_key(name) && scopes.len() >= MAX_SCOPES {
            return Err(ApiError::new(
                ErrorCode::LimitExceeded,
                format!("{MAX_SCOPES} inbox scopes are active already"),
            )
            .with_hint("release one: webrig inbox scope NAME --release"));
        }
        scopes.insert(name.to_string(), now + ttl_ms);
        Ok(())
    }

    /// Gives a scope up; whether it was active.
    pub fn release(&self, name: &str) -> Result<bool, ApiError> {
        check_scope(name)?;
        Ok(self
            .scopes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(name)
            .is_some())
    }

    /// The active scopes, sorted.
    pub fn active(&self) -> Vec<String> {
        let now = self.now_ms();
        let mut scopes = self.scopes.lock().unwrap_or_else(|e| e.into_inner());
        scopes.retain(|_, until| *until > now);
        let mut names: Vec<String> = scopes.keys().cloned().collect();
        names.sort();
        names
    }

    /// Where a send goes: the one active scope; none; or, with several,
    /// no scope and the list (the entry is flagged ambiguous).
    fn route(&self) -> (Option<String>, Vec<String>) {
        let active = self.active();
        match active.len() {
            0 => (None, Vec::new()),
            1 => (active.into_iter().next(), Vec::new()),
            _ => (None, active),
        }
    }

    /// `inbox:ID#N` → the entry and its item N (1-based); None when `raw`
    /// is not an inbox target.
    pub fn target(&self, raw: &str) -> Result<Option<(Entry, usize)>, ApiError> {
        let Some(rest) = raw.trim().strip_prefix("inbox:") else {
            return Ok(None);
        };
        let bad = || {
            ApiError::invalid(format!("{raw:?} is not an inbox target"))
                .with_hint("inbox targets look like inbox:ID#N (webrig inbox list shows the ids)")
        };
        let (id, n) = rest.split_once('#').ok_or_else(bad)?;
        let n: usize = n.parse().map_err(|_| bad())?;
        check_id(id).map_err(|_| bad())?;
        let entry = self.get(id)?;
        if n == 0 || n > entry.annotation.items.len() {
            return Err(ApiError::not_found(format!(
                "inbox entry {id} has {} items; there is no #{n}",
                entry.annotation.items.len()
            )));
        }
        Ok(Some((entry, n - 1)))
    }
}

fn missing(id: &str) -> ApiError {
    ApiError::not_found(format!("no inbox entry {id:?}"))
        .with_hint("webrig inbox list --all shows them (entries are kept 7 days)")
}

fn check_id(id: &str) -> Result<(), ApiError> {
    if id.is_empty() || id.len() > 32 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(ApiError::invalid(format!("{id:?} is not an inbox id")));
    }
    Ok(())
}

/// A scope name: 1-64 letters, digits, `.`, `_`, `-` (an MCP client's name
/// is cleaned to this first).
pub fn check_scope(name: &str) -> Result<(), ApiError> {
    if name.is_empty()
        || name.len() > 64
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    {
        return Err(ApiError::invalid(format!(
            "{:?} is not a scope name: 1-64 letters, digits, '.', '_' or '-'",
            name.chars().take(80).collect::<String>()
        )));
    }
    Ok(())
}

/// A name made a scope name (MCP clients name themselves freely).
pub fn scope_of(name: &str) -> Option<String> {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '-'
            }
        })
        .take(64)
        .collect();
    let s = s.trim_matches('-').to_string();
    (!s.is_empty()).then_some(s)
}

fn digest_of(a: &Annotation) -> String {
    let mut same = a.clone();
    same.at_ms = 0;
    same.screenshot = None;
    let bytes = serde_json::to_vec(&same).unwrap_or_default();
    let d = Sha256::digest(&bytes);
    d.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// The inbox folder of a home.
pub fn dir_of(root: &Path) -> PathBuf {
    root.join("inbox")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::annotate::Item;
    use std::sync::atomic::{AtomicU64, Ordering};

    struct Manual(AtomicU64);
    impl Clock for Manual {
        fn now_ms(&self) -> u64 {
            self.0.load(Ordering::SeqCst)
        }
    }

    fn inbox() -> (tempfile::TempDir, Arc<Manual>, Inbox) {
        let dir = tempfile::tempdir().expect("dir");
        let clock = Arc::new(Manual(AtomicU64::new(1_800_000_000_000)));
        let inbox = Inbox::new(dir.path().join("inbox"), clock.clone());
        (dir, clock, inbox)
    }

    fn send(note: &str) -> Annotation {
        Annotation {
            url: "https://x.test/".into(),
            items: vec![Item {
                n: 1,
                reference: "@e1".into(),
                note: note.into(),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    fn tick(clock: &Manual, ms: u64) {
        clock.0.fetch_add(ms, Ordering::SeqCst);
    }

    #[test]
    fn identical_sends_within_a_minute_are_stored_once() {
        let (_d, clock, inbox) = inbox();
        let a = inbox
            .add("aaaa0001".into(), send("this"), Source::Extension)
            .expect("add");
        assert!(!a.deduped);
        tick(&clock, 59_000);
        let mut again = send("this");
        again.at_ms = 12345; // another moment, the same content
        let b = inbox
            .add("aaaa0002".into(), again, Source::Extension)
            .expect("add");
        assert!(b.deduped);
        assert_eq!(b.id, "aaaa0001");
        let c = inbox
            .add("aaaa0003".into(), send("that"), Source::Extension)
            .expect("add");
        assert!(!c.deduped, "another note is another send");
        tick(&clock, 1_001);
        let d = inbox
            .add("aaaa0004".into(), send("this"), Source::Extension)
            .expect("add");
        assert!(!d.deduped, "60 s later it is a new send");
        assert_eq!(inbox.list(None, true).expect("list").len(), 3);
    }

    #[test]
    fn caps_and_ttl_hold() {
        let (_d, clock, inbox) = inbox();
        for i in 0..60 {
            let s = inbox
                .add(
                    format!("u{i:07}"),
                    send(&format!("n{i}")),
                    Source::Extension,
                )
                .expect("add");
            if i >= 50 {
                assert_eq!(s.evicted, vec![format!("u{:07}", i - 50)]);
            }
        }
        let unread = inbox.list(None, false).expect("list");
        assert_eq!(unread.len(), MAX_UNREAD);
        assert_eq!(
            unread.last().map(|s| s.id.as_str()),
            Some("u0000010"),
            "the oldest went"
        );
        for i in 0..250 {
            inbox
                .add(format!("r{i:07}"), send(&format!("r{i}")), Source::Annotate)
                .expect("add");
        }
        let all = inbox.list(None, true).expect("list");
        assert_eq!(all.len(), MAX_TOTAL);
        assert_eq!(
            all.iter().filter(|s| !s.read).count(),
            MAX_UNREAD,
            "read ones go first"
        );
        // Seven days on, everything is gone (and the file says so).
        tick(&clock, TTL_MS);
        assert!(inbox.list(None, true).expect("list").is_empty());
        let text = std::fs::read_to_string(inbox.file()).expect("file");
        assert!(text.is_empty(), "{} bytes left", text.len());
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(inbox.file())
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn scopes_route_sends_one_none_several() {
        let (_d, clock, inbox) = inbox();
        let none = inbox
            .add("s0000001".into(), send("a"), Source::Extension)
            .expect("add");
        assert_eq!((none.scope, none.ambiguous.len()), (None, 0));
        inbox.register("claude", SCOPE_TTL_MS).expect("scope");
        let one = inbox
            .add("s0000002".into(), send("b"), Source::Extension)
            .expect("add");
        assert_eq!(one.scope.as_deref(), Some("claude"));
        inbox.register("codex", 1_000).expect("scope");
        let two = inbox
            .add("s0000003".into(), send("c"), Source::Extension)
            .expect("add");
        assert_eq!(two.scope, None);
        assert_eq!(two.ambiguous, vec!["claude", "codex"]);
        // Each agent sees what is its own, unscoped and ambiguous ones.
        let ids = |s: &str| -> Vec<String> {
            inbox
                .list(Some(s), false)
                .expect("list")
                .into_iter()
                .map(|e| e.head.id)
                .collect()
        };
        assert_eq!(ids("claude"), vec!["s0000003", "s0000002", "s0000001"]);
        assert_eq!(ids("codex"), vec!["s0000003", "s0000001"]);
        assert_eq!(ids("other"), vec!["s0000001"]);
        // consume takes the oldest unread of the caller's.
        let next = inbox
            .consume(None, Some("codex"))
            .expect("consume")
            .expect("one");
        assert_eq!(next.id, "s0000001");
        // A scope lapses without renewal.
        tick(&clock, 1_000);
        assert_eq!(inbox.active(), vec!["claude"]);
        assert!(inbox.release("claude").expect("release"));
        assert!(inbox.active().is_empty());
        assert!(inbox.register("bad name", 1).is_err());
        assert!(inbox.register(&"x".repeat(65), 1).is_err());
        assert_eq!(
            scope_of("Claude Code 1.2").as_deref(),
            Some("Claude-Code-1.2")
        );
    }

    #[test]
    fn targets_parse_and_refuse() {
        let (_d, _c, inbox) = inbox();
        inbox
            .add("abcd1234".into(), send("x"), Source::Annotate)
            .expect("add");
        let (e, i) = inbox
            .target("inbox:abcd1234#1")
            .expect("ok")
            .expect("inbox");
        assert_eq!((e.id.as_str(), i), ("abcd1234", 0));
        assert!(inbox.target("#main").expect("ok").is_none());
        for bad in [
            "inbox:abcd1234",
            "inbox:abcd1234#x",
            "inbox:../x#1",
            "inbox:#1",
        ] {
            assert_eq!(
                inbox.target(bad).expect_err(bad).code(),
                ErrorCode::InvalidArgument,
                "{bad}"
            );
        }
        assert_eq!(
            inbox.target("inbox:abcd1234#2").expect_err("2").code(),
            ErrorCode::NotFound
        );
        assert_eq!(
            inbox.target("inbox:ffff0000#1").expect_err("none").code(),
            ErrorCode::NotFound
        );
    }

    #[test]
    fn a_file_that_is_not_ours_alone_is_refused() {
        let (_d, _c, inbox) = inbox();
        inbox
            .add("abcd1234".into(), send("x"), Source::Annotate)
            .expect("add");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(inbox.file(), std::fs::Permissions::from_mode(0o644))
            .expect("chmod");
        assert!(inbox.list(None, true).is_err());
        std::fs::remove_file(inbox.file()).expect("rm");
        std::os::unix::fs::symlink("/etc/passwd", inbox.file()).expect("link");
        assert!(inbox.list(None, true).is_err(), "a symlink is not followed");
    }
}
