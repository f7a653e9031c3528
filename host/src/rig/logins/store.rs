//! Reads a Chromium `Cookies` database: copies it (and its `-wal` or
//! `-journal`) into a private 0700 folder, since the running browser holds
//! the live one locked, then queries the copy (never the store itself)
//! read-only, after SQLite has rolled back a transaction the browser was in
//! the middle of when the copy was taken. The copy is deleted
//! when the read ends, however it ends. Sizes and counts are capped before
//! anything is loaded into memory.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::check::{DOMAIN_BYTES, NAME_VALUE_BYTES, PATH_BYTES, Row};
use crate::artifacts::{Symlinks, read_regular};
use crate::error::{ApiError, ErrorCode};

/// Largest store copied (a heavy real one is a few MiB: Chromium keeps at
/// most about 3300 cookies).
pub const STORE_BYTES: u64 = 64 << 20;
/// Rows read from one store; the rest are counted, not read.
pub const MAX_ROWS: usize = 5000;

/// What a store holds, as read.
#[derive(Debug)]
pub struct Store {
    pub rows: Vec<Row>,
    /// Rows past [`MAX_ROWS`], not read.
    pub unread: usize,
    /// Values carry SHA-256(host_key) first (meta version 24 and later).
    pub domain_hash: bool,
}

/// A private copy, removed when dropped.
struct Copy(PathBuf);

impl Drop for Copy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Reads the store at `path` (a file of this user, not a symlink).
pub fn read(path: &Path) -> Result<Store, ApiError> {
    let copy = Copy(
        crate::config::private_tempdir("webrig-cookies-", None).map_err(|e| {
            ApiError::internal(format!("making a private folder for the copy: {e}"))
        })?,
    );
    let db = copy.0.join("Cookies");
    copy_file(path, &db, true)?;
    for suffix in ["-wal", "-journal"] {
        let side = sibling(path, suffix);
        if side.symlink_metadata().is_ok() {
            copy_file(&side, &sibling(&db, suffix), false)?;
        }
    }
    let store = query(&db).map_err(|e| unreadable(path, e))?;
    drop(copy);
    Ok(store)
}

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Copies one file of the store, refusing a symlink, a non-regular file,
/// another user's file and one past [`STORE_BYTES`].
fn copy_file(from: &Path, to: &Path, main: bool) -> Result<(), ApiError> {
    use std::os::unix::fs::MetadataExt;
    let bytes = read_regular(from, STORE_BYTES, Symlinks::Refuse, |meta| {
        if Some(meta.uid()) != crate::config::own_uid() {
            return Err(format!(
                "owned by uid {}, not you: webrig imports only your own browser's logins",
                meta.uid()
            ));
        }
        if main && meta.len() == 0 {
            return Err("it is empty: not a cookie store".into());
        }
        Ok(())
    })?;
    crate::config::write_private(to, &bytes)
        .map_err(|e| ApiError::internal(format!("copying {}: {e:#}", from.display())))
}

fn unreadable(path: &Path, e: rusqlite::Error) -> ApiError {
    let busy = matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
            | Some(rusqlite::ErrorCode::ReadOnly)
    );
    let mut err = ApiError::new(
        ErrorCode::InvalidArgument,
        format!("{}: not a readable cookie store: {e}", path.display()),
    );
    if busy {
        err = err.with_hint(
            "the browser was writing it when it was copied: try again, or close that browser first",
        );
    }
    err
}

fn query(db: &Path) -> Result<Store, rusqlite::Error> {
    // The private copy is opened read-write, and only it: copied while the
    // browser was committing, it has a hot journal, and SQLite must roll
    // that back to read the last committed state (a read-only open fails
    // with "attempt to write a readonly database"). Statements stay
    // read-only (query_only); the browser's own store is never opened.
    let conn = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.pragma_update(None, "query_only", true)?;
    // Nothing in the copy is worth waiting for: no one else has it.
    conn.busy_timeout(std::time::Duration::ZERO)?;
    let version: i64 = conn
        .query_row("SELECT value FROM meta WHERE key = 'version'", [], |r| {
            r.get::<_, String>(0)
        })
        .map(|v| v.parse().unwrap_or(0))
        .unwrap_or(0);
    let mut columns = Vec::new();
    {
        let mut stmt = conn.prepare("SELECT name FROM pragma_table_info('cookies')")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            columns.push(r.get::<_, String>(0)?);
        }
    }
    let has = |c: &str| columns.iter().any(|n| n == c);
    for needed in [
        "host_key",
        "name",
        "value",
        "encrypted_value",
        "path",
        "expires_utc",
    ] {
        if !has(needed) {
            return Err(rusqlite::Error::InvalidColumnName(format!(
                "cookies.{needed} (is this a Chromium Cookies file?)"
            )));
        }
    }
    let pick = |a: &str, b: &str, default: &str| -> String {
        if has(a) {
            a.to_string()
        } else if has(b) {
            b.to_string()
        } else {
            default.to_string()
        }
    };
    let secure = pick("is_secure", "secure", "0");
    let http_only = pick("is_httponly", "httponly", "0");
    let samesite = pick("samesite", "samesite", "-1");
    let has_expires = pick("has_expires", "has_expires", "expires_utc != 0");
    // Fields past their cap come back NULL: a huge one is never loaded.
    let sql = format!(
        "SELECT \
           CASE WHEN octet_length(host_key) <= {DOMAIN_BYTES} THEN host_key END, \
           CASE WHEN octet_length(name) <= {NAME_VALUE_BYTES} THEN name END, \
           CASE WHEN octet_length(value) <= {NAME_VALUE_BYTES} THEN value END, \
           CASE WHEN octet_length(encrypted_value) <= {enc} THEN encrypted_value END, \
           CASE WHEN octet_length(path) <= {PATH_BYTES} THEN path END, \
           expires_utc, {has_expires}, {secure}, {http_only}, {samesite} \
         FROM cookies LIMIT {MAX_ROWS}",
        enc = NAME_VALUE_BYTES + 64,
    );
    let total: i64 = conn.query_row("SELECT count(*) FROM cookies", [], |r| r.get(0))?;
    let mut stmt = conn.prepare(&sql)?;
    let mut out = Vec::new();
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        out.push(Row {
            host_key: text(r.get_ref(0)?),
            name: text(r.get_ref(1)?),
            value: text(r.get_ref(2)?),
            encrypted: match r.get_ref(3)? {
                rusqlite::types::ValueRef::Blob(b) => Some(b.to_vec()),
                rusqlite::types::ValueRef::Text(t) => Some(t.to_vec()),
                _ => None,
            },
            path: text(r.get_ref(4)?),
            expires_utc: r.get::<_, Option<i64>>(5)?.unwrap_or(0),
            has_expires: r.get::<_, Option<i64>>(6)?.unwrap_or(0) != 0,
            secure: r.get::<_, Option<i64>>(7)?.unwrap_or(0) != 0,
            http_only: r.get::<_, Option<i64>>(8)?.unwrap_or(0) != 0,
            samesite: r.get::<_, Option<i64>>(9)?.unwrap_or(-1),
        });
    }
    Ok(Store {
        unread: usize::try_from(total)
            .unwrap_or(0)
            .saturating_sub(out.len()),
        rows: out,
        domain_hash: version >= 24,
    })
}

fn text(v: rusqlite::types::ValueRef<'_>) -> Option<String> {
    match v {
        rusqlite::types::ValueRef::Text(t) => std::str::from_utf8(t).ok().map(str::to_string),
        _ => None,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A store of the current schema (version 24) at `path`.
    pub fn make_store(path: &Path, version: i64) -> Connection {
        let conn = Connection::open(path).expect("ok");
        conn.execute_batch(&format!(
            "CREATE TABLE meta(key LONGVARCHAR NOT NULL UNIQUE PRIMARY KEY, value LONGVARCHAR);
             INSERT INTO meta VALUES ('version', '{version}');
             CREATE TABLE cookies(creation_utc INTEGER NOT NULL, host_key TEXT NOT NULL,
               top_frame_site_key TEXT NOT NULL DEFAULT '', name TEXT NOT NULL,
               value TEXT NOT NULL, encrypted_value BLOB NOT NULL DEFAULT x'', path TEXT NOT NULL,
               expires_utc INTEGER NOT NULL, is_secure INTEGER NOT NULL,
               is_httponly INTEGER NOT NULL, last_access_utc INTEGER NOT NULL DEFAULT 0,
               has_expires INTEGER NOT NULL DEFAULT 1, is_persistent INTEGER NOT NULL DEFAULT 1,
               priority INTEGER NOT NULL DEFAULT 1, samesite INTEGER NOT NULL DEFAULT -1,
               source_scheme INTEGER NOT NULL DEFAULT 0, source_port INTEGER NOT NULL DEFAULT -1,
               last_update_utc INTEGER NOT NULL DEFAULT 0, source_type INTEGER NOT NULL DEFAULT 0,
               has_cross_site_ancestor INTEGER NOT NULL DEFAULT 0);"
        ))
        .expect("ok");
        conn
    }

    #[test]
    fn a_store_is_read_from_a_copy_with_huge_fields_left_out() {
        let dir = tempfile::tempdir().expect("ok");
        let path = dir.path().join("Cookies");
        let conn = make_store(&path, 24);
        conn.execute(
            "INSERT INTO cookies(creation_utc, host_key, name, value, encrypted_value, path,
               expires_utc, is_secure, is_httponly, samesite) VALUES
               (1, 'a.test', 'n', 'v', x'', '/', 0, 1, 0, 2),
               (2, 'b.test', 'big', ?1, x'', '/', 0, 0, 0, -1)",
            [&"x".repeat(100_000)],
        )
        .expect("ok");
        drop(conn);
        let store = read(&path).expect("ok");
        assert!(store.domain_hash);
        assert_eq!(store.unread, 0);
        assert_eq!(store.rows.len(), 2);
        assert_eq!(store.rows[0].value.as_deref(), Some("v"));
        assert!(store.rows[0].secure);
        assert_eq!(store.rows[0].samesite, 2);
        assert!(
            store.rows[0].has_expires,
            "the column, as the browser wrote it"
        );
        assert_eq!(store.rows[1].value, None, "past the cap: not loaded");
    }

    #[test]
    fn broken_stores_are_clear_errors() {
        let dir = tempfile::tempdir().expect("ok");
        let junk = dir.path().join("junk");
        std::fs::write(&junk, vec![7u8; 8192]).expect("ok");
        let e = read(&junk).expect_err("an error");
        assert!(e.message().contains("not a readable cookie store"), "{e:?}");
        let other = dir.path().join("other.db");
        Connection::open(&other)
            .expect("ok")
            .execute_batch("CREATE TABLE t(x)")
            .expect("ok");
        let e = read(&other).expect_err("an error");
        assert!(e.message().contains("Chromium Cookies"), "{e:?}");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("/dev/zero", &link).expect("ok");
        assert!(
            read(&link)
                .expect_err("an error")
                .message()
                .contains("symlink")
        );
        assert!(read(Path::new("/dev/zero")).is_err());
        assert!(read(&dir.path().join("absent")).is_err());
    }
}
