//! Files webrig writes for a user: screenshots, PDFs, later downloads and bundles.
//!
//! Owns the write rule: owner-only (0600), through a temp file in the target
//! directory, published by rename, never over an existing path unless asked. A
//! half-written file never appears at its final path.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::ApiError;

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
    fn refuses_relative_and_unwritable_paths() {
        assert!(write_new(Path::new("rel.png"), b"x", false).is_err());
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("plain");
        std::fs::write(&file, b"").expect("write");
        let err = write_new(&file.join("under-a-file.png"), b"x", false).expect_err("ENOTDIR");
        assert!(err.message().contains("cannot write"), "{err}");
    }
}
