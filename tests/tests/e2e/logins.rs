//! Logins imported from the system browser (`launch --cookies-from`): a
//! real Chromium signs in on the fixture web and writes its cookie store
//! (v10-encrypted, `--password-store=basic`); a webrig session imports it
//! and is signed in on its first page. Broken, locked, missing and hostile
//! stores are clear errors that leave no session behind.
//!
//! v11 (a password from the Secret Service keyring) runs against a
//! keyring of the test's own (a D-Bus session bus and gnome-keyring, unlocked
//! with a known password) when `dbus-daemon`, `gnome-keyring-daemon` and
//! `secret-tool` are installed; without them that test says SKIPPED and
//! v11 is covered by the unit tests only (`host/src/rig/logins/crypt.rs`:
//! values sealed and opened with a known password).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::json;
use webrig::browser::cdp::Connection;

use crate::{daemon, session, web};

const COOKIE: &str = "webrig_login";

fn chromium() -> PathBuf {
    std::env::var_os("WEBRIG_BROWSER")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/chromium/chromium"))
}

/// A token no other test (or earlier run) uses.
fn token() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("tok-{}-{nanos}", std::process::id())
}

/// A Chromium the test started, killed if the test ends before it exits.
struct Browser(Child);

impl Drop for Browser {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// A Chromium user data folder where `user` signed in on the fixture web,
/// its cookie store written to disk by the browser itself.
struct SignedIn {
    data: tempfile::TempDir,
    user: String,
    token: String,
}

impl SignedIn {
    fn new(user: &str) -> SignedIn {
        // v10: the fixed key, not the keyring's.
        Self::with_store(user, "basic", &[])
    }

    /// Signed in by a Chromium that keeps its password in `store`
    /// (`--password-store`), with `env` on top of the test's.
    fn with_store(user: &str, store: &str, env: &[(&str, &Path)]) -> SignedIn {
        // In the shared daemon's home: the shared profile (a static, never
        // dropped) goes when that home does.
        let data = tempfile::Builder::new()
            .prefix("logins-")
            .tempdir_in(daemon().home())
            .expect("a user data folder");
        let token = token();
        let url = web().url(&format!("logins/sign-in?user={user}&token={token}"));
        let mut browser = Browser(
            Command::new(chromium())
                .args([
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--no-first-run",
                    "--disable-sync",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--remote-debugging-port=0",
                ])
                .arg(format!("--password-store={store}"))
                .arg(format!("--user-data-dir={}", data.path().display()))
                .envs(env.iter().copied())
                .arg(&url)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("chromium starts"),
        );
        let ws = webrig_tests::user_browser::devtools_ws(data.path());
        let until = Instant::now() + Duration::from_secs(20);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async {
            let conn = Connection::connect_ws(&ws).await.expect("DevTools");
            // The sign-in page has set its cookie once the browser lists it.
            loop {
                let all = conn
                    .call(None, "Storage.getCookies", json!({}))
                    .await
                    .expect("Storage.getCookies");
                let listed = all["cookies"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|c| c["name"] == COOKIE);
                if listed {
                    break;
                }
                assert!(Instant::now() < until, "the sign-in never set its cookie");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            // A clean exit writes the cookie store out (a SIGTERM does not
            // always, in headless mode). The answer may not come back
            // before the connection goes.
            let _ = conn.call(None, "Browser.close", json!({})).await;
        });
        let until = Instant::now() + Duration::from_secs(20);
        while matches!(browser.0.try_wait(), Ok(None)) {
            assert!(Instant::now() < until, "chromium did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
        let signed = SignedIn {
            data,
            user: user.to_string(),
            token,
        };
        let rows = signed.rows();
        assert!(
            rows.iter().any(|r| r.0 == "127.0.0.1" && r.1 == COOKIE),
            "the browser wrote its login to {}: {rows:?}",
            signed.cookies().display()
        );
        signed
    }

    fn profile(&self) -> PathBuf {
        self.data.path().join("Default")
    }

    /// The profile's cookie store (Chromium 96 and later: in `Network`).
    fn cookies(&self) -> PathBuf {
        let network = self.profile().join("Network/Cookies");
        if network.exists() {
            network
        } else {
            self.profile().join("Cookies")
        }
    }

    /// (host_key, name, encrypted_value) of every row of the store.
    fn rows(&self) -> Vec<(String, String, Vec<u8>)> {
        let conn = rusqlite::Connection::open_with_flags(
            self.cookies(),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .expect("the cookie store opens");
        let mut stmt = conn
            .prepare("SELECT host_key, name, encrypted_value FROM cookies")
            .expect("a cookies table");
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("rows read")
    }

    /// A copy of the user data folder (Local State and the profile's store)
    /// to spoil without touching the shared one.
    fn copy(&self) -> tempfile::TempDir {
        let to = tempfile::Builder::new()
            .prefix("webrig-logins-copy-")
            .tempdir()
            .expect("a folder");
        std::fs::copy(
            self.data.path().join("Local State"),
            to.path().join("Local State"),
        )
        .expect("Local State copied");
        let rel = self
            .cookies()
            .strip_prefix(self.data.path())
            .expect("under the user data")
            .to_path_buf();
        std::fs::create_dir_all(to.path().join(&rel).parent().expect("a parent"))
            .expect("profile folder");
        std::fs::copy(self.cookies(), to.path().join(&rel)).expect("Cookies copied");
        to
    }
}

/// One signed-in profile for the tests that only read it.
fn alice() -> &'static SignedIn {
    static ALICE: OnceLock<SignedIn> = OnceLock::new();
    ALICE.get_or_init(|| SignedIn::new("alice"))
}

fn listed(name: &str) -> bool {
    let list = daemon().ok("x", "sessions", json!({}));
    list["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|e| e["name"] == name)
}

/// After a failed launch: no session stayed behind, so no browser and no
/// cookie of the store either.
fn nothing_left(s: &crate::SessionGuard<'_>) {
    assert!(!listed(&s.name), "{} was left behind", s.name);
    let r = s.cmd("cookies", json!({ "all": true }));
    assert_eq!(r["ok"], false, "no browser, no cookies: {r}");
}

fn whoami(s: &crate::SessionGuard<'_>) -> String {
    s.ok("goto", json!({ "url": web().url("logins/whoami") }));
    s.ok(
        "eval",
        json!({ "script": "document.getElementById('who').textContent" }),
    )["value"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn launch_err(s: &crate::SessionGuard<'_>, from: &Path, code: &str) -> String {
    let started = Instant::now();
    let e = s.err("launch", json!({ "cookies_from": from }), code);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{} took {:?}",
        from.display(),
        started.elapsed()
    );
    nothing_left(s);
    e.to_string()
}

#[test]
fn a_signed_in_chromium_profile_signs_the_session_in() {
    let alice = alice();
    let s = session!();
    let out = s.ok("launch", json!({ "cookies_from": alice.data.path() }));
    let logins = &out["logins"];
    assert_eq!(logins["loaded"], 1, "{out}");
    assert_eq!(logins["domains"]["127.0.0.1"], 1, "{out}");
    assert_eq!(logins["profile"], "Default", "the last used: {out}");
    assert_eq!(
        logins["source"],
        json!(alice.cookies()),
        "the store itself is named (a copy was read): {out}"
    );
    assert_eq!(logins["skipped"], json!([]), "{out}");
    assert!(!out.to_string().contains(&alice.token), "{out}");
    assert_eq!(whoami(&s), format!("logged in as {}", alice.user));
    // The cookie is the browser's, as the store had it: host-only,
    // HttpOnly, an hour long; its value masked when listed.
    let c = s.ok("cookies", json!({}));
    let login = c["cookies"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["name"] == COOKIE)
        .cloned()
        .unwrap_or_else(|| panic!("the login is listed: {c}"));
    assert_eq!(login["domain"], "127.0.0.1", "{login}");
    assert_eq!(login["http_only"], true, "{login}");
    assert!(login["expires"].as_f64().is_some(), "persistent: {login}");
    assert!(!c.to_string().contains(&alice.token), "{c}");
    assert!(
        !daemon().log().contains(&alice.token),
        "the value is never logged"
    );
}

#[test]
fn chromium_encrypts_the_store_with_v10_under_the_basic_password_store() {
    let rows = alice().rows();
    let (_, _, enc) = rows.iter().find(|r| r.1 == COOKIE).expect("the login row");
    assert!(enc.starts_with(b"v10"), "{:?}", &enc[..enc.len().min(3)]);
    assert!(
        !enc.windows(alice().token.len())
            .any(|w| w == alice().token.as_bytes()),
        "encrypted, not plain"
    );
}

#[test]
fn a_profile_folder_or_the_cookies_file_names_the_store_too() {
    let alice = alice();
    for from in [alice.profile(), alice.cookies()] {
        let s = session!();
        let out = s.ok("launch", json!({ "cookies_from": from }));
        assert_eq!(out["logins"]["loaded"], 1, "{}: {out}", from.display());
        assert_eq!(whoami(&s), format!("logged in as {}", alice.user));
    }
}

#[test]
fn a_store_the_browser_holds_locked_is_read_from_its_copy() {
    let data = alice().copy();
    let store = data.path().join(
        alice()
            .cookies()
            .strip_prefix(alice().data.path())
            .expect("under the user data"),
    );
    // A writer in the middle of a transaction, as the browser is while it
    // commits: the file locked, changed pages already spilled into it (a
    // one-page cache), the pages as they were in the journal beside it.
    let before = std::fs::metadata(&store).expect("store").len();
    let writer = rusqlite::Connection::open(&store).expect("opens");
    writer
        .execute_batch(
            "PRAGMA cache_size = 1; PRAGMA cache_spill = 1; BEGIN EXCLUSIVE;
             UPDATE cookies SET expires_utc = 1;
             CREATE TABLE junk(x);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
               INSERT INTO junk SELECT randomblob(1000) FROM n;
             DELETE FROM cookies;",
        )
        .expect("locked mid-write");
    let journal = std::fs::metadata(store.with_file_name("Cookies-journal"))
        .expect("a journal")
        .len();
    assert!(
        journal > 0 && std::fs::metadata(&store).expect("store").len() > before,
        "the store is half-written: {journal} bytes of journal"
    );
    let s = session!();
    let out = s.ok("launch", json!({ "cookies_from": data.path() }));
    assert_eq!(
        out["logins"]["loaded"], 1,
        "the last committed state, not the half-written one: {out}"
    );
    assert_eq!(whoami(&s), format!("logged in as {}", alice().user));
    // The import rolled back its copy, not the store: the writer's
    // transaction is still there to roll back.
    assert_eq!(
        std::fs::metadata(store.with_file_name("Cookies-journal"))
            .expect("the journal")
            .len(),
        journal,
        "the store itself is untouched"
    );
    writer.execute_batch("ROLLBACK").expect("rolled back");
}

#[test]
fn a_corrupt_store_is_a_clear_error_and_starts_nothing() {
    let dir = tempfile::tempdir().expect("dir");
    let profile = dir.path().join("Default");
    std::fs::create_dir_all(&profile).expect("profile");
    // Bytes that look random (a multiplicative hash of the offset).
    let junk: Vec<u8> = (0u32..16384)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(profile.join("Cookies"), junk).expect("junk written");
    let s = session!();
    let e = launch_err(&s, &profile, "invalid_argument");
    assert!(e.contains("not a readable cookie store"), "{e}");
}

#[test]
fn a_missing_profile_or_path_is_a_clear_error() {
    let s = session!();
    let e = s.err(
        "launch",
        json!({ "cookies_from": "chromium:NoSuchProfile" }),
        "not_found",
    );
    assert!(
        e.to_string().contains("NoSuchProfile") || e.to_string().contains("no chromium user data"),
        "{e}"
    );
    nothing_left(&s);
    let e = launch_err(
        &s,
        Path::new("/nonexistent/webrig/profile/Default"),
        "not_found",
    );
    assert!(e.contains("/nonexistent/webrig/profile/Default"), "{e}");
    // A user data folder whose Local State names a profile that is gone.
    let data = alice().copy();
    let e = s.err(
        "launch",
        json!({ "cookies_from": data.path().join("Profile 7") }),
        "not_found",
    );
    assert!(e.to_string().contains("Profile 7"), "{e}");
    nothing_left(&s);
    // Not a browser name, nor a path.
    s.err(
        "launch",
        json!({ "cookies_from": "firefox" }),
        "invalid_argument",
    );
    nothing_left(&s);
}

/// A copy of alice's store changed by `sql`.
fn spoiled(sql: &str) -> tempfile::TempDir {
    let data = alice().copy();
    let store = data.path().join(
        alice()
            .cookies()
            .strip_prefix(alice().data.path())
            .expect("under the user data"),
    );
    rusqlite::Connection::open(&store)
        .expect("opens")
        .execute_batch(sql)
        .expect("changed");
    data
}

#[test]
fn required_fails_with_auth_required_when_every_cookie_is_skipped() {
    // The login expired in 2012, and a Google sign-in cookie beside it.
    let data = spoiled(
        "CREATE TEMP TABLE g AS SELECT * FROM cookies;
         UPDATE g SET host_key = '.google.com', name = 'SID';
         INSERT INTO cookies SELECT * FROM g;
         UPDATE cookies SET expires_utc = 12980000000000000 WHERE name = 'webrig_login';",
    );
    let s = session!();
    let e = s.err(
        "launch",
        json!({ "cookies_from": data.path(), "cookies_policy": "required" }),
        "auth_required",
    );
    let text = e.to_string();
    assert!(text.contains("no usable login"), "{text}");
    assert!(!text.contains(&alice().token), "{text}");
    nothing_left(&s);

    let out = s.ok(
        "launch",
        json!({ "cookies_from": data.path(), "cookies_policy": "auto" }),
    );
    let logins = &out["logins"];
    assert_eq!(logins["loaded"], 0, "{out}");
    assert_eq!(
        logins["skipped"],
        json!([
            { "reason": "expired", "count": 1, "domains": ["127.0.0.1"] },
            { "reason": "google_sign_in", "count": 1, "domains": ["google.com"] },
        ]),
        "{out}"
    );
    assert!(!out.to_string().contains(&alice().token), "{out}");
    assert_eq!(whoami(&s), "not logged in");
}

#[test]
fn off_imports_nothing() {
    let s = session!();
    let out = s.ok(
        "launch",
        json!({ "cookies_from": alice().data.path(), "cookies_policy": "off" }),
    );
    assert!(out.get("logins").is_none(), "{out}");
    assert_eq!(whoami(&s), "not logged in");
}

#[test]
fn hostile_stores_are_refused_or_read_safely() {
    let dir = tempfile::tempdir().expect("dir");
    let s = session!();
    let profile = |name: &str| {
        let p = dir.path().join(name);
        std::fs::create_dir_all(&p).expect("profile");
        p
    };

    // A Cookies symlink out of the profile, to a file of another kind.
    let p = profile("symlink-out");
    std::os::unix::fs::symlink("/etc/passwd", p.join("Cookies")).expect("symlink");
    let e = launch_err(&s, &p, "invalid_argument");
    assert!(e.contains("symlink"), "{e}");
    // A symlink to a real store, named directly: refused all the same.
    let link = dir.path().join("link-to-a-store");
    std::os::unix::fs::symlink(alice().cookies(), &link).expect("symlink");
    let e = launch_err(&s, &link, "invalid_argument");
    assert!(e.contains("symlink"), "{e}");

    // A FIFO (no writer ever comes: opening it must not wait for one),
    // a device and a folder.
    let p = profile("fifo");
    let made = Command::new("mkfifo")
        .arg(p.join("Cookies"))
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let e = launch_err(&s, &p, "invalid_argument");
    assert!(e.contains("FIFO"), "{e}");
    let e = launch_err(&s, Path::new("/dev/zero"), "invalid_argument");
    assert!(e.contains("device"), "{e}");
    let p = profile("folder");
    std::fs::create_dir(p.join("Cookies")).expect("a folder named Cookies");
    let e = launch_err(&s, &p, "invalid_argument");
    assert!(e.contains("folder"), "{e}");

    // A size bomb: a sparse file past the 64 MiB cap is refused by its size,
    // not read.
    let p = profile("huge");
    let f = std::fs::File::create(p.join("Cookies")).expect("file");
    f.set_len((64 << 20) + 1).expect("sparse");
    let e = launch_err(&s, &p, "limit_exceeded");
    assert!(e.contains("at most"), "{e}");

    // Another user's store (as root the test can give one away).
    let p = profile("theirs");
    let theirs = p.join("Cookies");
    std::fs::copy(alice().cookies(), &theirs).expect("copied");
    std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    if std::os::unix::fs::chown(&theirs, Some(65534), None).is_ok() {
        let e = launch_err(&s, &p, "invalid_argument");
        assert!(e.contains("not you"), "{e}");
        // Nor does another user's Local State choose the profile.
        let data = alice().copy();
        let state = data.path().join("Local State");
        std::os::unix::fs::chown(&state, Some(65534), None).expect("chown");
        let e = launch_err(&s, data.path(), "invalid_argument");
        assert!(e.contains("not you"), "{e}");
    }

    // `..` in a path is just a path: the same store, read safely.
    let data = alice().copy();
    let round = data
        .path()
        .join("Default/../Default/../../")
        .join(data.path().file_name().expect("a name"));
    let out = s.ok("launch", json!({ "cookies_from": round }));
    assert_eq!(out["logins"]["loaded"], 1, "{out}");
    s.ok("close", json!({}));
    // `..` as a profile name climbs nowhere.
    for from in ["chromium:..", "chrome:..", "brave:."] {
        let r = s.cmd("launch", json!({ "cookies_from": from }));
        assert_eq!(r["ok"], false, "{from}: {r}");
        assert_eq!(r["error"]["code"], "not_found", "{from}: {r}");
        nothing_left(&s);
    }
}

#[test]
fn the_http_api_cannot_import_logins() {
    let s = session!();
    for from in [json!(alice().data.path()), json!("chromium")] {
        let r = daemon().request_tcp(json!({
            "session": s.name, "command": "launch", "args": { "cookies_from": from },
        }));
        assert_eq!(r["ok"], false, "{from}: {r}");
        assert_eq!(r["error"]["code"], "forbidden", "{from}: {r}");
        nothing_left(&s);
    }
}

#[test]
fn config_names_the_store_for_the_clis_local_launches_only() {
    let alice = alice();
    let d = crate::Daemon::start_with_config(&format!(
        "[session]\ncookies_from = \"{}\"\ncookies_policy = \"required\"\n",
        alice.data.path().display()
    ))
    .expect("a daemon with [session]");
    let s = crate::SessionGuard::new(&d, "configured");
    let out = s.ok("launch", json!({}));
    assert_eq!(out["logins"]["loaded"], 1, "{out}");
    assert_eq!(whoami(&s), format!("logged in as {}", alice.user));
    // The flag beats the config.
    let off = crate::SessionGuard::new(&d, "flag-off");
    let out = off.ok("launch", json!({ "cookies_policy": "off" }));
    assert!(out.get("logins").is_none(), "{out}");
    // A token holder on the HTTP API gets no logins from config alone.
    let http = crate::SessionGuard::new(&d, "over-http");
    let r = d.request_tcp(json!({ "session": http.name, "command": "launch", "args": {} }));
    assert_eq!(r["ok"], true, "{r}");
    assert!(r["result"].get("logins").is_none(), "{r}");
    assert_eq!(whoami(&http), "not logged in");
}

/// A Secret Service of the test's own: a D-Bus session bus with an
/// unlocked gnome-keyring on it, both stopped when dropped.
struct Keyring {
    // Dropped in this order: the keyring, then its bus.
    _keyring: Browser,
    _bus: Browser,
    dir: tempfile::TempDir,
    address: PathBuf,
}

impl Keyring {
    /// None (and a SKIPPED line) when the tools are not installed.
    fn start() -> Option<Keyring> {
        for tool in [
            "/usr/bin/dbus-daemon",
            "/usr/bin/gnome-keyring-daemon",
            "/usr/bin/secret-tool",
        ] {
            if !Path::new(tool).is_file() {
                // `cargo xtask test` installs them where it can, and then
                // says so: their absence is a failure there.
                assert!(
                    std::env::var_os("WEBRIG_EXPECT_KEYRING").is_none(),
                    "WEBRIG_EXPECT_KEYRING is set but {tool} is missing"
                );
                eprintln!("SKIPPED v11 end to end: needs {tool} (gnome-keyring, libsecret-tools)");
                return None;
            }
        }
        use std::io::{BufRead, Write};
        let dir = tempfile::tempdir().expect("dir");
        // A bus that activates nothing: with the system's service files, a
        // secret-tool call before our keyring owns its name would start
        // another, locked one in its place.
        let config = dir.path().join("bus.conf");
        std::fs::write(
            &config,
            format!(
                "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN\" \
                 \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n\
                 <busconfig><type>session</type><listen>unix:dir={}</listen>\
                 <auth>EXTERNAL</auth><policy context=\"default\">\
                 <allow send_destination=\"*\" eavesdrop=\"true\"/>\
                 <allow eavesdrop=\"true\"/><allow own=\"*\"/></policy></busconfig>\n",
                dir.path().display()
            ),
        )
        .expect("bus config");
        let mut bus = Command::new("/usr/bin/dbus-daemon")
            .arg(format!("--config-file={}", config.display()))
            .args(["--nofork", "--print-address=1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("dbus-daemon starts");
        let mut address = String::new();
        std::io::BufReader::new(bus.stdout.take().expect("stdout"))
            .read_line(&mut address)
            .expect("the bus's address");
        let bus = Browser(bus);
        let address = PathBuf::from(address.trim());
        let runtime = dir.path().join("runtime");
        std::fs::create_dir(&runtime).expect("runtime dir");
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).expect("0700");
        let mut keyring = Command::new("/usr/bin/gnome-keyring-daemon")
            .args(["--foreground", "--unlock", "--components=secrets"])
            .env("DBUS_SESSION_BUS_ADDRESS", &address)
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("XDG_DATA_HOME", dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("gnome-keyring-daemon starts");
        // The login keyring's password, then EOF.
        keyring
            .stdin
            .take()
            .expect("stdin")
            .write_all(b"test-keyring-password")
            .expect("password sent");
        let k = Keyring {
            _bus: bus,
            _keyring: Browser(keyring),
            dir,
            address,
        };
        // Up once a secret stored can be looked up.
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let mut store = k
                .tool(&["store", "--label=probe", "webrig-test", "probe"])
                .stdin(Stdio::piped())
                .spawn()
                .expect("secret-tool runs");
            let _ = store.stdin.take().expect("stdin").write_all(b"ready");
            let stored = store.wait().is_ok_and(|s| s.success());
            let found = k
                .tool(&["lookup", "webrig-test", "probe"])
                .output()
                .is_ok_and(|o| o.stdout == b"ready");
            if stored && found {
                return Some(k);
            }
            assert!(Instant::now() < until, "the keyring never answered");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn tool(&self, args: &[&str]) -> Command {
        let mut c = Command::new("/usr/bin/secret-tool");
        c.args(args)
            .envs(self.env())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        c
    }

    fn env(&self) -> Vec<(&str, &Path)> {
        vec![
            ("DBUS_SESSION_BUS_ADDRESS", self.address.as_path()),
            ("XDG_DATA_HOME", self.dir.path()),
        ]
    }
}

#[test]
fn a_v11_store_opens_with_the_keyrings_password_and_is_skipped_without_it() {
    let Some(keyring) = Keyring::start() else {
        return;
    };
    let bob = SignedIn::with_store("bob", "gnome-libsecret", &keyring.env());
    let rows = bob.rows();
    let (_, _, enc) = rows.iter().find(|r| r.1 == COOKIE).expect("the login row");
    assert!(enc.starts_with(b"v11"), "{:?}", &enc[..enc.len().min(3)]);
    let item = keyring
        .tool(&["lookup", "application", "chromium"])
        .output()
        .expect("secret-tool runs");
    assert!(
        !item.stdout.is_empty(),
        "Chromium keeps its password in the keyring"
    );

    // The shared daemon has no access to this keyring: no key.
    let s = session!();
    let out = s.ok("launch", json!({ "cookies_from": bob.data.path() }));
    assert_eq!(out["logins"]["loaded"], 0, "{out}");
    assert_eq!(out["logins"]["skipped"][0]["reason"], "no_key", "{out}");
    assert_eq!(whoami(&s), "not logged in");

    // A daemon on the keyring's bus reads the password and opens it.
    let home = tempfile::tempdir().expect("home");
    let port = webrig_tests::free_port();
    let mut daemon = Browser(
        Command::new(webrig_tests::webrig_bin())
            .args(["serve", "--port", &port.to_string()])
            .args(["--watch-pid", &std::process::id().to_string()])
            .env("WEBRIG_HOME", home.path())
            .envs(keyring.env())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("webrig serve starts"),
    );
    let socket = home.path().join(format!("daemon.{port}.sock"));
    let until = Instant::now() + Duration::from_secs(15);
    while std::os::unix::net::UnixStream::connect(&socket).is_err() {
        assert!(Instant::now() < until, "the daemon never listened");
        std::thread::sleep(Duration::from_millis(20));
    }
    let cli = |args: &[&str]| -> serde_json::Value {
        let out = Command::new(webrig_tests::webrig_bin())
            .args(["--session", "v11"])
            .args(args)
            .arg("--json")
            .env("WEBRIG_HOME", home.path())
            .env("WEBRIG_PORT", port.to_string())
            .output()
            .expect("webrig runs");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{args:?}: {text} {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!text.contains(&bob.token), "{text}");
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}: {text}"))
    };
    let out = cli(&[
        "launch",
        "--cookies-from",
        &bob.data.path().to_string_lossy(),
    ]);
    let logins = out
        .get("logins")
        .or_else(|| out["result"].get("logins"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(logins["loaded"], 1, "{out}");
    cli(&["goto", &web().url("logins/whoami")]);
    let who = cli(&["eval", "document.getElementById('who').textContent"]);
    assert!(who.to_string().contains("logged in as bob"), "{who}");
    cli(&["close"]);
    // Stopped politely, so it closes its browser.
    let _ = Command::new("kill")
        .args(["-TERM", &daemon.0.id().to_string()])
        .status();
    let until = Instant::now() + Duration::from_secs(10);
    while matches!(daemon.0.try_wait(), Ok(None)) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_session_with_a_browser_of_its_own_is_signed_in_too() {
    let alice = alice();
    let s = session!();
    let out = s.ok(
        "launch",
        json!({ "cookies_from": alice.data.path(), "own_browser": true }),
    );
    assert_eq!(out["logins"]["loaded"], 1, "{out}");
    assert_eq!(whoami(&s), format!("logged in as {}", alice.user));
}

#[test]
fn another_session_of_the_shared_browser_does_not_get_the_logins() {
    let alice = alice();
    let s = session!();
    let mine = s.ok("launch", json!({ "cookies_from": alice.data.path() }));
    let neighbour = crate::SessionGuard::new(daemon(), "logins-neighbour");
    let theirs = neighbour.ok("launch", json!({}));
    assert_eq!(
        mine["session"]["endpoint"], theirs["session"]["endpoint"],
        "one shared browser: {mine} {theirs}"
    );
    assert_ne!(mine["session"]["context"], theirs["session"]["context"]);
    assert_eq!(whoami(&neighbour), "not logged in");
    assert_eq!(whoami(&s), format!("logged in as {}", alice.user));
}
