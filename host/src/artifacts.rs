//! Files webrig writes for a user (screenshots, PDFs, HAR files, debug and
//! workflow bundles, saved state) and the files it reads on a user's word
//! (`route --body`, `state load`). Downloads a page starts have their own
//! rules (`browser::devtools::downloads`).
//!
//! Owns the write rule: owner-only (0600), through a temp file in the target
//! directory, published by rename, never over an existing path unless asked. A
//! half-written file never appears at its final path. A folder webrig creates
//! ([`PrivateDir`]) is made by one `mkdir` and written through its own
//! descriptor, so a path swapped meanwhile redirects nothing. A file webrig
//! reads ([`read_regular`]) is opened once, checked on that descriptor and
//! read to a cap: no check-then-reopen, no device or FIFO read whole.

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use rustix::fs::{Mode, OFlags};

use crate::error::{ApiError, ErrorCode};

/// Whether [`read_regular`] opens a symlink named as the last component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symlinks {
    /// Follow it (what it points at is still checked to be a regular file).
    Follow,
    /// Refuse it (`O_NOFOLLOW`).
    Refuse,
}

/// Opens `path` once (`O_NONBLOCK`, so a FIFO cannot hang the call), checks
/// the opened descriptor is a regular file and hands `check` its metadata
/// (owner, mode), then reads at most `cap` bytes from that same descriptor:
/// one byte more is `limit_exceeded`. Nothing is looked up twice.
pub fn read_regular(
    path: &Path,
    cap: u64,
    symlinks: Symlinks,
    check: impl FnOnce(&std::fs::Metadata) -> Result<(), String>,
) -> Result<Vec<u8>, ApiError> {
    let bad = |why: String| ApiError::invalid(format!("cannot read {}: {why}", path.display()));
    let mut flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    if symlinks == Symlinks::Refuse {
        flags |= OFlags::NOFOLLOW;
    }
    let fd = rustix::fs::open(path, flags, Mode::empty()).map_err(|e| {
        if e == rustix::io::Errno::LOOP && symlinks == Symlinks::Refuse {
            bad("it is a symlink; name the file itself".into())
        } else {
            bad(std::io::Error::from(e).to_string())
        }
    })?;
    let file = File::from(fd);
    let meta = file.metadata().map_err(|e| bad(e.to_string()))?;
    if !meta.is_file() {
        let what = match meta.mode() & 0o170000 {
            0o040000 => "a folder",
            0o020000 | 0o060000 => "a device",
            0o010000 => "a FIFO",
            0o140000 => "a socket",
            _ => "not a regular file",
        };
        return Err(bad(format!("it is {what}, not a regular file")));
    }
    check(&meta).map_err(bad)?;
    let over = |n: u64| {
        ApiError::new(
            ErrorCode::LimitExceeded,
            format!(
                "{} is {n} bytes or more; at most {cap} are read",
                path.display()
            ),
        )
    };
    if meta.len() > cap {
        return Err(over(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // The size can grow after the stat: the read itself is capped too.
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| bad(e.to_string()))?;
    if bytes.len() as u64 > cap {
        return Err(over(bytes.len() as u64));
    }
    Ok(bytes)
}

/// A folder webrig created itself, mode 0700 from its `mkdir`, held by its
/// descriptor: every file goes in through `openat` with `O_EXCL|O_NOFOLLOW`,
/// so a path renamed or swapped for a symlink after the `mkdir` cannot
/// redirect a write. No path is chmodded.
#[derive(Debug)]
pub struct PrivateDir {
    path: PathBuf,
    fd: std::os::fd::OwnedFd,
}

impl PrivateDir {
    /// Creates `path` (absolute; its parent must exist) with one `mkdir`:
    /// an existing path, symlink or not, is refused. The folder opened after
    /// is checked to be a folder of this user that no one else may enter.
    pub fn create_new(path: &Path) -> Result<PrivateDir, ApiError> {
        let cannot =
            |why: String| ApiError::invalid(format!("cannot create {}: {why}", path.display()));
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(cannot("it names no folder".into()));
        };
        if !path.is_absolute() || parent.as_os_str().is_empty() {
            return Err(cannot("it is not an absolute path".into()));
        }
        let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let parent_fd = rustix::fs::open(parent, dir_flags, Mode::empty())
            .map_err(|e| cannot(format!("its parent folder: {}", std::io::Error::from(e))))?;
        rustix::fs::mkdirat(&parent_fd, name, Mode::from_raw_mode(0o700)).map_err(|e| {
            if e == rustix::io::Errno::EXIST {
                ApiError::invalid(format!("{} already exists", path.display()))
                    .with_hint("name a folder that does not exist yet")
            } else {
                cannot(std::io::Error::from(e).to_string())
            }
        })?;
        let fd = rustix::fs::openat(
            &parent_fd,
            name,
            dir_flags | OFlags::NOFOLLOW,
            Mode::empty(),
        )
        .map_err(|e| cannot(format!("reopening it: {}", std::io::Error::from(e))))?;
        let meta = rustix::fs::fstat(&fd)
            .map_err(|e| cannot(format!("stat: {}", std::io::Error::from(e))))?;
        // What was opened is the folder just made only if it is this user's
        // and private: another user can swap in a folder, never one of ours.
        if Some(meta.st_uid) != crate::config::own_uid() || meta.st_mode & 0o077 != 0 {
            return Err(cannot(
                "the folder was replaced while it was being created".into(),
            ));
        }
        Ok(PrivateDir {
            path: path.to_path_buf(),
            fd,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes a new file `name` (one plain component) in the folder, 0600.
    pub fn write_new(&self, name: &str, bytes: &[u8]) -> Result<(), ApiError> {
        if name.is_empty() || name.starts_with('.') || name.contains(['/', '\\', '\0']) {
            return Err(ApiError::internal(format!(
                "{name:?} is no plain file name"
            )));
        }
        let cannot = |e: std::io::Error| {
            ApiError::invalid(format!(
                "cannot write {}: {e}",
                self.path.join(name).display()
            ))
        };
        let fd = rustix::fs::openat(
            &self.fd,
            name,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        )
        .map_err(|e| cannot(e.into()))?;
        let mut file = File::from(fd);
        file.write_all(bytes).map_err(cannot)?;
        file.sync_all().map_err(cannot)
    }
}

/// Writes `bytes` to `path` (absolute). Refuses an existing path unless
/// `overwrite`, a missing directory, and anything that is not a regular file.
pub fn write_new(path: &Path, bytes: &[u8], overwrite: bool) -> Result<PathBuf, ApiError> {
    if !path.is_absolute() {
        return Err(ApiError::invalid(format!(
            "{} is not an absolute path",
            path.display()
        )));
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .ok_or_else(|| ApiError::invalid(format!("{} has no directory", path.display())))?;
    if path.file_name().is_none() {
        return Err(ApiError::invalid(format!(
            "{} names no file",
            path.display()
        )));
    }
    match std::fs::symlink_metadata(path) {
        Ok(meta) if !overwrite => {
            let what = if meta.is_dir() {
                "a directory"
            } else {
                "a file"
            };
            return Err(
                ApiError::invalid(format!("{} already exists ({what})", path.display()))
                    .with_hint("pick another path, or pass --overwrite"),
            );
        }
        Ok(meta) if !meta.is_file() => {
            return Err(ApiError::invalid(format!(
                "{} exists and is not a regular file",
                path.display()
            )));
        }
        _ => {}
    }
    let cannot =
        |e: std::io::Error| ApiError::invalid(format!("cannot write {}: {e}", path.display()));
    let mut tmp = tempfile::Builder::new()
        .prefix(".webrig-")
        .suffix(".part")
        .tempfile_in(dir)
        .map_err(cannot)?;
    tmp.write_all(bytes).map_err(cannot)?;
    tmp.as_file().sync_all().map_err(cannot)?;
    if overwrite {
        tmp.persist(path).map_err(|e| cannot(e.error))?;
    } else {
        // Atomic no-replace: a file that appeared meanwhile is not clobbered.
        tmp.persist_noclobber(path).map_err(|e| cannot(e.error))?;
    }
    Ok(path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn writes_owner_only_and_refuses_existing_paths() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("shot.png");
        write_new(&path, b"one", false).expect("first write");
        let mode = std::fs::metadata(&path).expect("stat").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let err = write_new(&path, b"two", false).expect_err("exists");
        assert!(err.message().contains("already exists"), "{err}");
        assert_eq!(std::fs::read(&path).expect("read"), b"one");
        write_new(&path, b"two", true).expect("overwrite");
        assert_eq!(std::fs::read(&path).expect("read"), b"two");
        let leftovers = std::fs::read_dir(dir.path()).expect("ls").count();
        assert_eq!(leftovers, 1, "no temp files left behind");
    }

    #[test]
    fn reads_only_regular_files_and_only_up_to_the_cap() {
        let dir = tempfile::tempdir().expect("temp dir");
        let ok = |_: &std::fs::Metadata| Ok(());
        let file = dir.path().join("body.bin");
        std::fs::write(&file, b"12345").expect("write");
        let got = read_regular(&file, 5, Symlinks::Refuse, ok).expect("at the cap");
        assert_eq!(got, b"12345");
        let err = read_regular(&file, 4, Symlinks::Refuse, ok).expect_err("over");
        assert_eq!(err.code(), ErrorCode::LimitExceeded, "{err}");
        // A device reads forever: refused on its descriptor, not read.
        let err = read_regular(Path::new("/dev/zero"), 1 << 20, Symlinks::Follow, ok)
            .expect_err("a device");
        assert!(err.message().contains("a device"), "{err}");
        // A FIFO with no writer would block an open without O_NONBLOCK.
        let fifo = dir.path().join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .expect("mkfifo");
        let err = read_regular(&fifo, 10, Symlinks::Follow, ok).expect_err("a FIFO");
        assert!(err.message().contains("a FIFO"), "{err}");
        // A symlink: refused outright, or followed to what it names.
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("/dev/zero", &link).expect("symlink");
        let err = read_regular(&link, 10, Symlinks::Refuse, ok).expect_err("a symlink");
        assert!(err.message().contains("symlink"), "{err}");
        let err = read_regular(&link, 10, Symlinks::Follow, ok).expect_err("to a device");
        assert!(err.message().contains("a device"), "{err}");
        // The check sees the opened file's own metadata.
        let err = read_regular(&file, 10, Symlinks::Refuse, |m| {
            Err(format!("len {}", m.len()))
        })
        .expect_err("checked");
        assert!(err.message().contains("len 5"), "{err}");
    }

    #[test]
    fn a_private_dir_is_made_once_and_written_through_its_descriptor() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("bundle");
        let made = PrivateDir::create_new(&path).expect("created");
        let mode = std::fs::metadata(&path).expect("stat").permissions().mode() & 0o777;
        assert_eq!(mode & 0o077, 0, "{mode:o}");
        made.write_new("page.json", b"{}").expect("write");
        assert!(
            made.write_new("page.json", b"again").is_err(),
            "no overwrite"
        );
        assert!(made.write_new("../escape", b"x").is_err());
        // The folder moved and a symlink took its name: writes still land
        // in the folder that was made, never through the symlink.
        let moved = dir.path().join("moved");
        std::fs::rename(&path, &moved).expect("rename");
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).expect("mkdir");
        std::os::unix::fs::symlink(&elsewhere, &path).expect("symlink");
        made.write_new("console.json", b"[]").expect("write");
        assert!(moved.join("console.json").exists());
        assert_eq!(std::fs::read_dir(&elsewhere).expect("ls").count(), 0);
        // An existing path, a symlink included, is refused.
        let err = PrivateDir::create_new(&path).expect_err("exists");
        assert!(err.message().contains("already exists"), "{err}");
        let mode = std::fs::metadata(&moved)
            .expect("stat")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode & 0o077, 0, "not chmodded through a path");
    }

    #[test]
    fn refuses_relative_and_unwritable_paths() {
        assert!(write_new(Path::new("rel.png"), b"x", false).is_err());
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("plain");
        std::fs::write(&file, b"").expect("write");
        let err = write_new(&file.join("under-a-file.png"), b"x", false).expect_err("ENOTDIR");
        assert!(err.message().contains("cannot write"), "{err}");
    }
}
