//! Where canvas documents live and how they are read and written: in the
//! caller's project folder, under `.webrig/canvas/` (0700), as sorted-key
//! JSON written 0600 through a temp file and a rename, each document
//! guarded by a lock file (`flock`) so two daemons cannot interleave.
//!
//! Source files the canvas pulls and pushes are named relative to the
//! project folder. One is read only when it is a regular file (not a
//! symlink), inside the folder once every link above it is resolved, and
//! every folder above it is this user's or root's and not writable by
//! others (so no other local user can swap a folder mid-push). A push
//! writes through a temp file in the same folder, keeping the file's mode,
//! after a backup copy under `.webrig/canvas/backups/`.
//!
//! The daemon keeps per document an undo and a redo stack and a lease
//! (which agent is editing), in memory ([`OPEN`]): a restart drops them,
//! never the document.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

use sha2::Digest as _;

use super::doc::Document;
use crate::artifacts::{Symlinks, read_regular};
use crate::error::{ApiError, ErrorCode};

/// A document file, at most.
pub const MAX_DOC: u64 = 32 << 20;
/// A source file the canvas reads, at most.
pub const MAX_SOURCE: u64 = crate::plugins::adapter::MAX_SOURCE as u64;
/// Undo steps kept per document.
pub const HISTORY: usize = 50;
/// How long a lease lasts after the holder's last change.
pub const LEASE: Duration = Duration::from_secs(120);

/// The caller's project folder, checked.
#[derive(Debug, Clone)]
pub struct Project {
    root: PathBuf,
}

fn untrusted(e: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::Forbidden, e.to_string())
}

fn io(path: &Path, e: impl std::fmt::Display) -> ApiError {
    ApiError::internal(format!("{}: {e}", path.display()))
}

impl Project {
    /// `root` must be an absolute path to a folder whose every ancestor
    /// only this user (or root) may change.
    pub fn open(root: &Path) -> Result<Project, ApiError> {
        if !root.is_absolute() {
            return Err(ApiError::invalid(format!(
                "the project folder {} is not an absolute path",
                root.display()
            )));
        }
        let real = std::fs::canonicalize(root).map_err(|e| {
            ApiError::not_found(format!("the project folder {}: {e}", root.display()))
        })?;
        if !real.is_dir() {
            return Err(ApiError::invalid(format!(
                "{} is not a folder",
                root.display()
            )));
        }
        crate::config::trust::check_dir(&real).map_err(untrusted)?;
        Ok(Project { root: real })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn canvas_dir(&self) -> PathBuf {
        self.root.join(".webrig").join("canvas")
    }

    fn ensure_canvas_dir(&self) -> Result<PathBuf, ApiError> {
        let dir = self.canvas_dir();
        crate::config::ensure_private_dir(&dir).map_err(untrusted)?;
        Ok(dir)
    }

    /// The document `name` (1 to 64 of `A-Za-z0-9_-`).
    pub fn doc_path(&self, name: &str) -> Result<PathBuf, ApiError> {
        super::doc::check_id(name).map_err(|e| ApiError::invalid(format!("document name: {e}")))?;
        Ok(self.canvas_dir().join(format!("{name}.canvas.json")))
    }

    pub fn exists(&self, name: &str) -> Result<bool, ApiError> {
        Ok(std::fs::symlink_metadata(self.doc_path(name)?).is_ok())
    }

    /// Reads and checks a document: this user's alone, not a symlink, at
    /// most [`MAX_DOC`], well-formed and consistent.
    pub fn read(&self, name: &str) -> Result<Document, ApiError> {
        let path = self.doc_path(name)?;
        if std::fs::symlink_metadata(&path).is_err() {
            return Err(ApiError::not_found(format!(
                "no canvas document {name:?} in {} (create it with `webrig canvas new {name}`)",
                self.root.display()
            )));
        }
        crate::config::trust::check_dir(&self.canvas_dir()).map_err(untrusted)?;
        let bytes = read_regular(&path, MAX_DOC, Symlinks::Refuse, mine_alone)?;
        let doc: Document = serde_json::from_slice(&bytes).map_err(|e| {
            ApiError::invalid(format!("{} is not a canvas document: {e}", path.display()))
        })?;
        doc.check()
            .map_err(|e| ApiError::invalid(format!("{}: {e}", path.display())))?;
        if doc.name != name {
            return Err(ApiError::invalid(format!(
                "{} says it is {:?}",
                path.display(),
                doc.name
            )));
        }
        Ok(doc)
    }

    /// Writes a document: sorted-key JSON, 0600, temp file then rename.
    pub fn write(&self, doc: &Document) -> Result<PathBuf, ApiError> {
        self.ensure_canvas_dir()?;
        let path = self.doc_path(&doc.name)?;
        let mut bytes = to_sorted_json(doc)?;
        bytes.push(b'\n');
        crate::config::write_private(&path, &bytes).map_err(|e| io(&path, format!("{e:#}")))?;
        Ok(path)
    }

    /// Holds the document's lock file while `f` runs: one writer at a time
    /// across daemons (and processes).
    pub fn locked<R>(
        &self,
        name: &str,
        f: impl FnOnce() -> Result<R, ApiError>,
    ) -> Result<R, ApiError> {
        let dir = self.ensure_canvas_dir()?;
        super::doc::check_id(name).map_err(ApiError::invalid)?;
        let path = dir.join(format!("{name}.lock"));
        use rustix::fs::{FlockOperation, Mode, OFlags};
        let fd = rustix::fs::open(
            &path,
            OFlags::CREATE | OFlags::RDWR | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        )
        .map_err(|e| io(&path, std::io::Error::from(e)))?;
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match rustix::fs::flock(&fd, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => break,
                Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                Err(_) => {
                    return Err(ApiError::new(
                        ErrorCode::Busy,
                        format!("canvas document {name:?} is locked by another process"),
                    ));
                }
            }
        }
        let out = f();
        drop(fd);
        out
    }

    /// A file of the project named `file` (relative to the project folder,
    /// or absolute inside it), checked as the module says; it need exist.
    pub fn source_path(&self, file: &str) -> Result<(String, PathBuf), ApiError> {
        let given = Path::new(file);
        let rel = if given.is_absolute() {
            let under = given
                .strip_prefix(&self.root)
                .map_err(|_| outside(file, &self.root))?;
            under.to_path_buf()
        } else {
            given.to_path_buf()
        };
        if rel.as_os_str().is_empty()
            || rel.components().any(|c| !matches!(c, Component::Normal(_)))
        {
            return Err(ApiError::invalid(format!(
                "{file:?}: name a file inside the project folder, without `..`"
            )));
        }
        let rel_text = rel
            .to_str()
            .ok_or_else(|| ApiError::invalid(format!("{file:?} is not UTF-8")))?
            .to_string();
        if rel_text.starts_with(".webrig/") || rel_text == ".webrig" {
            return Err(ApiError::new(
                ErrorCode::Forbidden,
                "the canvas's own folder (.webrig) is not a source file",
            ));
        }
        let path = self.root.join(&rel);
        let parent = path.parent().unwrap_or(&self.root);
        let real_parent = std::fs::canonicalize(parent)
            .map_err(|e| ApiError::not_found(format!("{file}: {e}")))?;
        if !real_parent.starts_with(&self.root) {
            return Err(outside(file, &self.root));
        }
        crate::config::trust::check_ancestors(&real_parent.join("x")).map_err(untrusted)?;
        let name = path
            .file_name()
            .ok_or_else(|| ApiError::invalid(format!("{file:?} names no file")))?;
        Ok((rel_text, real_parent.join(name)))
    }

    /// Reads a source file (UTF-8, regular, not a symlink, capped).
    pub fn read_source(&self, file: &str) -> Result<(String, PathBuf, String), ApiError> {
        let (rel, path) = self.source_path(file)?;
        let bytes = read_regular(&path, MAX_SOURCE, Symlinks::Refuse, |_| Ok(()))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| ApiError::invalid(format!("{rel} is not UTF-8 text")))?;
        Ok((rel, path, text))
    }

    /// Replaces a source file: a backup of `old` first, then the new text
    /// through a temp file in its folder, keeping the file's mode. Returns
    /// the backup's path.
    pub fn write_source(
        &self,
        rel: &str,
        path: &Path,
        old: &str,
        new: &str,
    ) -> Result<PathBuf, ApiError> {
        let backups = self.ensure_canvas_dir()?.join("backups");
        crate::config::ensure_private_dir(&backups).map_err(untrusted)?;
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or_default();
        let backup = backups.join(format!("{stamp}-{}", rel.replace('/', "__")));
        write_unsynced(&backup, old.as_bytes())?;
        let mode = {
            use std::os::unix::fs::PermissionsExt;
            std::fs::symlink_metadata(path)
                .map(|m| m.permissions().mode() & 0o777)
                .unwrap_or(0o644)
        };
        crate::config::write_atomic(path, new.as_bytes(), mode, true)
            .map_err(|e| io(path, format!("{e:#}")))?;
        Ok(backup)
    }

    /// The text a binding was pulled from (kept to push `--prefer canvas`
    /// over a file that changed since).
    pub fn pulled_path(&self, doc: &str, binding: &str) -> PathBuf {
        self.canvas_dir().join(format!("{doc}.{binding}.pulled"))
    }

    pub fn keep_pulled(&self, doc: &str, binding: &str, text: &str) -> Result<(), ApiError> {
        self.ensure_canvas_dir()?;
        let path = self.pulled_path(doc, binding);
        write_unsynced(&path, text.as_bytes())
    }

    pub fn read_pulled(&self, doc: &str, binding: &str) -> Result<String, ApiError> {
        let path = self.pulled_path(doc, binding);
        let bytes = read_regular(&path, MAX_SOURCE, Symlinks::Refuse, mine_alone)?;
        String::from_utf8(bytes)
            .map_err(|_| ApiError::invalid(format!("{} is not UTF-8", path.display())))
    }
}

/// A copy webrig keeps for itself (a backup, the text pulled): 0600, not
/// waited for on disk, which a push would pay twice more. A crash may lose
/// the copy, never the file or the document (both synced).
fn write_unsynced(path: &Path, bytes: &[u8]) -> Result<(), ApiError> {
    crate::config::write_private_unsynced(path, bytes).map_err(|e| io(path, format!("{e:#}")))
}

/// This user's file alone (what the canvas reads of its own).
fn mine_alone(m: &std::fs::Metadata) -> Result<(), String> {
    if crate::config::is_mine_alone(m) {
        Ok(())
    } else {
        Err("it is not this user's alone".into())
    }
}

fn outside(file: &str, root: &Path) -> ApiError {
    ApiError::new(
        ErrorCode::Forbidden,
        format!("{file:?} is outside the project folder {}", root.display()),
    )
}

/// sha256 of a text, hex.
pub fn sha256(text: &str) -> String {
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// JSON with every object's keys sorted, written straight from `value`:
/// its maps are `BTreeMap`s and its structs declare their fields in name
/// order (`canvas::doc`, `plugins::adapter`; a unit test holds them to it).
pub fn to_sorted_json<T: serde::Serialize>(value: &T) -> Result<Vec<u8>, ApiError> {
    serde_json::to_vec_pretty(value).map_err(|e| ApiError::internal(format!("encoding: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The document written straight from its structs is byte for byte
    /// what sorting every object's keys gives (serde_json's `Value` map is
    /// a `BTreeMap`): every field of every struct declared in name order.
    #[test]
    fn documents_are_written_with_sorted_keys() {
        let mut doc = Document::new("d");
        let ops: Vec<crate::canvas::Op> = serde_json::from_str(
            r##"[{"op":"token.set","name":"--b","value":"1"},
                {"op":"asset.attach","id":"a","url":"https://x/y.png","mime":"image/png"},
                {"op":"node.insert","parent":"p1","node":{"id":"f","kind":"frame","tag":"div",
                  "attributes":{"z":"1","a":"2"},"style":{"color":"red"},"tokens":["--b"]}},
                {"op":"node.insert","parent":"f","node":{"id":"t","kind":"text","text":"x","name":"n"}}]"##,
        )
        .expect("ops");
        doc = crate::canvas::patch::apply(&doc, &ops).expect("applies");
        let g = crate::plugins::adapter::Graph {
            nodes: vec![crate::plugins::adapter::GraphNode {
                attributes: vec![("a".into(), "b".into())],
                children: vec![],
                id: 1,
                kind: crate::plugins::adapter::NodeKind::Element,
                span: Some(crate::plugins::adapter::Span { end: 3, start: 0 }),
                style: vec![("c".into(), "d".into())],
                tag: "div".into(),
                text: String::new(),
                token_refs: vec!["--b".into()],
                unsupported: Some("why".into()),
            }],
            root: 1,
        };
        doc.bindings.insert(
            "b9".into(),
            crate::canvas::doc::Binding {
                adapter: "a".into(),
                entry: crate::plugins::adapter::Entrypoint {
                    name: "x".into(),
                    span: crate::plugins::adapter::Span { end: 3, start: 0 },
                },
                file: "f".into(),
                graph: g,
                id: "b9".into(),
                // Numeric and text order agree on these keys.
                map: [(2, "f".to_string()), (5, "t".to_string())].into(),
                root: "f".into(),
                source_sha256: "0".into(),
            },
        );
        doc.nodes.get_mut("f").expect("f").source = Some(crate::canvas::doc::SourceRef {
            binding: "b9".into(),
            graph_id: 1,
        });
        doc.nodes.get_mut("f").expect("f").locked = Some("l".into());
        let text = to_sorted_json(&doc).expect("encodes");
        let value = serde_json::to_value(&doc).expect("value");
        let resorted = serde_json::to_vec_pretty(&value).expect("encodes");
        assert_eq!(
            String::from_utf8_lossy(&text),
            String::from_utf8_lossy(&resorted)
        );
        // And it reads back the same.
        assert_eq!(
            serde_json::from_slice::<Document>(&text).expect("reads"),
            doc
        );
    }
}

/// What the daemon keeps for an open document.
#[derive(Default)]
struct Open {
    lease: Option<(String, Instant)>,
    /// Each step: the document before a change, and the revision the
    /// change wrote (a step applies only to that revision).
    undo: Vec<(Document, u64)>,
    redo: Vec<(Document, u64)>,
}

/// Every document the daemon has touched, by path.
#[derive(Default)]
pub struct Canvases {
    open: Mutex<BTreeMap<PathBuf, Open>>,
}

/// The daemon's canvases.
pub static OPEN: LazyLock<Canvases> = LazyLock::new(Canvases::default);

/// Who holds a document's lease, and until when.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Lease {
    pub holder: String,
    pub seconds_left: u64,
}

impl Canvases {
    fn with<R>(&self, path: &Path, f: impl FnOnce(&mut Open) -> R) -> R {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        f(open.entry(path.to_path_buf()).or_default())
    }

    /// Takes or renews the lease for `holder`; refuses while another
    /// holder's lease runs.
    pub fn lease(&self, path: &Path, name: &str, holder: &str) -> Result<Lease, ApiError> {
        self.with(path, |o| {
            let now = Instant::now();
            if let Some((who, until)) = &o.lease
                && who != holder
                && *until > now
            {
                return Err(ApiError::new(
                    ErrorCode::Conflict,
                    format!(
                        "lease_held: canvas {name:?} is being edited by {who:?} for {} s more",
                        until.duration_since(now).as_secs() + 1
                    ),
                )
                .with_hint("wait for it, or ask that agent to run `webrig canvas close`"));
            }
            o.lease = Some((holder.to_string(), now + LEASE));
            Ok(Lease {
                holder: holder.to_string(),
                seconds_left: LEASE.as_secs(),
            })
        })
    }

    pub fn holder(&self, path: &Path) -> Option<Lease> {
        self.with(path, |o| {
            let now = Instant::now();
            o.lease
                .as_ref()
                .filter(|(_, u)| *u > now)
                .map(|(h, u)| Lease {
                    holder: h.clone(),
                    seconds_left: u.duration_since(now).as_secs(),
                })
        })
    }

    /// Releases `holder`'s lease (another's stays).
    pub fn release(&self, path: &Path, holder: &str) -> bool {
        self.with(path, |o| {
            if o.lease.as_ref().is_some_and(|(h, _)| h == holder) {
                o.lease = None;
                true
            } else {
                false
            }
        })
    }

    /// Records `before` as the step a change (to revision `now`) undoes.
    pub fn changed(&self, path: &Path, before: Document, now: u64) {
        self.with(path, |o| {
            o.undo.push((before, now));
            if o.undo.len() > HISTORY {
                o.undo.remove(0);
            }
            o.redo.clear();
        });
    }

    /// The document before the last change (for `preview --diff`).
    pub fn previous(&self, path: &Path) -> Option<Document> {
        self.with(path, |o| o.undo.last().map(|(d, _)| d.clone()))
    }

    /// Undo (`redo` false) or redo: the document to write, with its
    /// revision moved past `current`'s; `current` goes on the other stack.
    /// None when there is nothing to step to; an error when the document
    /// changed since the step was recorded (by hand, another daemon): the
    /// history no longer applies and is dropped.
    pub fn step(
        &self,
        path: &Path,
        current: &Document,
        redo: bool,
    ) -> Result<Option<Document>, ApiError> {
        self.with(path, |o| {
            let (from, to) = if redo {
                (&mut o.redo, &mut o.undo)
            } else {
                (&mut o.undo, &mut o.redo)
            };
            let Some((mut doc, at)) = from.pop() else {
                return Ok(None);
            };
            if at != current.revision {
                o.undo.clear();
                o.redo.clear();
                return Err(ApiError::new(
                    ErrorCode::Conflict,
                    format!(
                        "revision_conflict: the document is at revision {}, changed since this \
                         step was recorded (at {at}); the history was dropped",
                        current.revision
                    ),
                ));
            }
            doc.revision = current.revision + 1;
            to.push((current.clone(), doc.revision));
            Ok(Some(doc))
        })
    }

    pub fn depth(&self, path: &Path) -> (usize, usize) {
        self.with(path, |o| (o.undo.len(), o.redo.len()))
    }
}
