//! Whose is this path: the checks made before the daemon or the CLI adopts
//! a home, a token, a config file, a plugin or macro folder, or a keeper's
//! socket, and the one way to open such a file.
//!
//! A path qualifies when it belongs to this process's uid and no one else
//! may write it, and when no one else can swap it out from under us: every
//! folder above it belongs to this uid or root and is writable by others
//! only with the sticky bit (as `/tmp` is), and every symlink on the way
//! belongs to this uid or root. A daemon running as root must never adopt
//! a home another user planted (a predictable `/tmp` name, a home made by a
//! script): it would read that user's `config.toml` and token and run what
//! they name. Nothing here changes the mode of a path that is not ours.

use std::fs::{File, Metadata};
use std::io::Read;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

/// Why a path is not safe to adopt; the message says what to do.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {why}")]
pub struct Untrusted {
    path: PathBuf,
    why: String,
}

impl Untrusted {
    fn new(path: &Path, why: impl Into<String>) -> Untrusted {
        Untrusted {
            path: path.to_path_buf(),
            why: why.into(),
        }
    }
}

fn own_uid() -> u32 {
    super::own_uid().unwrap_or(u32::MAX)
}

fn io(path: &Path, e: std::io::Error) -> Untrusted {
    Untrusted::new(path, e.to_string())
}

/// The folder or file belongs to this uid and others cannot write it.
fn mine_alone(path: &Path, meta: &Metadata) -> Result<(), Untrusted> {
    if meta.uid() != own_uid() {
        return Err(Untrusted::new(
            path,
            format!(
                "belongs to uid {}, not to you (uid {}); refusing to use it: remove it or \
                 point WEBRIG_HOME elsewhere",
                meta.uid(),
                own_uid()
            ),
        ));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(Untrusted::new(
            path,
            format!(
                "others may write it (mode {:o}); refusing to use it: chmod go-w it",
                meta.mode() & 0o7777
            ),
        ));
    }
    Ok(())
}

/// Every folder above `path` (which need not exist) and every symlink on
/// the way: this uid's or root's, and writable by others only when sticky.
pub fn check_ancestors(path: &Path) -> Result<(), Untrusted> {
    let abs = std::path::absolute(path).map_err(|e| io(path, e))?;
    let mut walked = PathBuf::new();
    let me = own_uid();
    for part in abs.components() {
        walked.push(part);
        if matches!(part, Component::RootDir | Component::Prefix(_)) || walked == abs {
            continue;
        }
        let meta = match std::fs::symlink_metadata(&walked) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
            Err(e) => return Err(io(&walked, e)),
        };
        if meta.uid() != me && meta.uid() != 0 {
            return Err(Untrusted::new(
                &walked,
                format!(
                    "a folder above {} belongs to uid {}, who could swap it; refusing to use it",
                    abs.display(),
                    meta.uid()
                ),
            ));
        }
        if meta.file_type().is_symlink() {
            // Its target is checked below, once resolved.
            continue;
        }
        if meta.mode() & 0o022 != 0 && meta.mode() & 0o1000 == 0 {
            return Err(Untrusted::new(
                &walked,
                format!(
                    "a folder above {} may be written by others (mode {:o}) and is not sticky; \
                     refusing to use it",
                    abs.display(),
                    meta.mode() & 0o7777
                ),
            ));
        }
    }
    // Symlinks above resolved: the real folders must pass too.
    if let Some(parent) = abs.parent()
        && let Ok(real) = std::fs::canonicalize(parent)
        && real != parent
    {
        return check_ancestors(&real.join("x"));
    }
    Ok(())
}

/// Adopts `dir` as a private folder: creates it (and missing parents) mode
/// 0700 when absent; otherwise it must already be this uid's alone. An
/// existing folder of ours that others may read is tightened to 0700
/// through the descriptor that was checked, never by path.
pub fn adopt_dir(dir: &Path) -> Result<(), Untrusted> {
    check_ancestors(dir)?;
    if let Some(link) = std::fs::symlink_metadata(dir)
        .ok()
        .filter(|m| m.file_type().is_symlink())
        && link.uid() != own_uid()
        && link.uid() != 0
    {
        return Err(Untrusted::new(
            dir,
            format!("is a symlink of uid {}; refusing to follow it", link.uid()),
        ));
    }
    match std::fs::DirBuilder::new()
        .recursive(false)
        .mode(0o700)
        .create(dir)
    {
        Ok(()) => return Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|e| io(dir, e))?;
            // The parents just made are ours; check the chain once more.
            return check_ancestors(dir);
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(io(dir, e)),
    }
    let handle = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY)
        .open(dir)
        .map_err(|e| io(dir, e))?;
    let meta = handle.metadata().map_err(|e| io(dir, e))?;
    if !meta.is_dir() {
        return Err(Untrusted::new(dir, "is not a folder"));
    }
    mine_alone(dir, &meta)?;
    if meta.mode() & 0o077 != 0 {
        handle
            .set_permissions(std::fs::Permissions::from_mode(0o700))
            .map_err(|e| io(dir, e))?;
    }
    Ok(())
}

/// Checks an existing folder (a plugin or macro folder, a keeper's socket
/// folder) without creating or changing anything. Absent is fine.
pub fn check_dir(dir: &Path) -> Result<(), Untrusted> {
    match std::fs::metadata(dir) {
        Ok(meta) => {
            check_ancestors(dir)?;
            mine_alone(dir, &meta)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io(dir, e)),
    }
}

/// A Unix socket to connect to (a browser keeper's): it and its folder
/// exist and are this uid's alone.
pub fn check_socket(socket: &Path) -> Result<(), Untrusted> {
    let dir = socket
        .parent()
        .ok_or_else(|| Untrusted::new(socket, "has no folder"))?;
    let meta = std::fs::metadata(dir).map_err(|e| io(dir, e))?;
    check_ancestors(dir)?;
    mine_alone(dir, &meta)?;
    let meta = std::fs::symlink_metadata(socket).map_err(|e| io(socket, e))?;
    if meta.uid() != own_uid() {
        return Err(Untrusted::new(
            socket,
            format!("belongs to uid {}, not to you", meta.uid()),
        ));
    }
    Ok(())
}

/// Opens a file for reading once, not following a symlink in its last
/// component and not blocking on a FIFO, and checks what was opened: a
/// regular file of this uid that others cannot write (nor read, with
/// `secret`), at most `max` bytes. `Ok(None)` when it does not exist.
pub fn read_owned(path: &Path, secret: bool, max: u64) -> Result<Option<Vec<u8>>, Untrusted> {
    let mut file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(Untrusted::new(path, "is a symlink; refusing to follow it"));
        }
        Err(e) => return Err(io(path, e)),
    };
    let meta = file.metadata().map_err(|e| io(path, e))?;
    if !meta.is_file() {
        return Err(Untrusted::new(path, "is not a regular file"));
    }
    mine_alone(path, &meta)?;
    if secret && meta.mode() & 0o077 != 0 {
        return Err(Untrusted::new(
            path,
            format!(
                "others may read it (mode {:o}); it holds a secret: chmod 600 it (and change \
                 the secret, which others may have read)",
                meta.mode() & 0o7777
            ),
        ));
    }
    if meta.len() > max {
        return Err(Untrusted::new(
            path,
            format!("is {} bytes, more than the {max} allowed", meta.len()),
        ));
    }
    let mut bytes = Vec::new();
    (&mut file as &mut File)
        .take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io(path, e))?;
    if bytes.len() as u64 > max {
        return Err(Untrusted::new(path, format!("grew past {max} bytes")));
    }
    Ok(Some(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn private() -> tempfile::TempDir {
        tempfile::Builder::new()
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir()
            .expect("a temp dir")
    }

    #[test]
    fn a_missing_home_is_created_private() {
        let t = private();
        let home = t.path().join("a/b/home");
        adopt_dir(&home).expect("created");
        let meta = std::fs::metadata(&home).expect("exists");
        assert_eq!(meta.mode() & 0o777, 0o700);
    }

    #[test]
    fn a_writable_home_is_refused_and_left_as_it_was() {
        let t = private();
        let home = t.path().join("home");
        std::fs::create_dir(&home).expect("mkdir");
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o777)).expect("chmod");
        let err = adopt_dir(&home).expect_err("refused");
        assert!(err.to_string().contains("others may write it"), "{err}");
        let mode = std::fs::metadata(&home).expect("exists").mode() & 0o777;
        assert_eq!(mode, 0o777, "never chmods what it refuses");
    }

    #[test]
    fn our_own_readable_home_is_tightened() {
        let t = private();
        let home = t.path().join("home");
        std::fs::create_dir(&home).expect("mkdir");
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        adopt_dir(&home).expect("ours");
        assert_eq!(
            std::fs::metadata(&home).expect("exists").mode() & 0o777,
            0o700
        );
    }

    #[test]
    fn a_home_under_a_writable_folder_is_refused() {
        let t = private();
        let open = t.path().join("open");
        std::fs::create_dir(&open).expect("mkdir");
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).expect("chmod");
        let err = adopt_dir(&open.join("home")).expect_err("refused");
        assert!(err.to_string().contains("a folder above"), "{err}");
        // Sticky, like /tmp: fine.
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o1777)).expect("chmod");
        adopt_dir(&open.join("home")).expect("sticky parent is fine");
    }

    #[test]
    fn a_secret_file_readable_by_others_or_a_symlink_or_a_fifo_is_refused() {
        let t = private();
        let token = t.path().join("token");
        std::fs::write(&token, "abc").expect("write");
        std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        assert_eq!(
            read_owned(&token, true, 64).expect("ok"),
            Some(b"abc".to_vec())
        );
        std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        assert!(read_owned(&token, true, 64).is_err());
        assert!(
            read_owned(&token, false, 64).is_ok(),
            "a config may be readable"
        );
        let link = t.path().join("link");
        std::os::unix::fs::symlink(&token, &link).expect("symlink");
        assert!(read_owned(&link, false, 64).is_err());
        let fifo = t.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
        let err = read_owned(&fifo, false, 64).expect_err("not regular");
        assert!(err.to_string().contains("not a regular file"), "{err}");
        assert_eq!(
            read_owned(&t.path().join("none"), false, 64).ok(),
            Some(None)
        );
        std::fs::write(&token, vec![b'a'; 100]).expect("write");
        assert!(read_owned(&token, false, 64).is_err(), "over the cap");
    }
}
