//! A proxy per session (`launch --proxy`): a loopback proxy written here,
//! asking for Basic credentials, sees the session's requests with the
//! right credentials, which never show in a result, a listing or the log;
//! a session without the proxy never reaches it; a context of the shared
//! browser gets a proxy of its own; bad flags are refused.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use webrig_tests::proxy::TestProxy;

use crate::{Daemon, SessionGuard};

/// The daemon's `--json` answer to a CLI launch.
fn cli_launch(d: &Daemon, session: &str, args: &[&str]) -> Value {
    let mut all = vec!["--json", "--session", session, "launch"];
    all.extend_from_slice(args);
    let out = d.cli(&all);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        json!({ "unparsed": String::from_utf8_lossy(&out.stdout), "stderr": String::from_utf8_lossy(&out.stderr) })
    })
}

fn secret_file(dir: &Path, name: &str, text: &str, mode: u32) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write credentials");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    path
}

fn listed(d: &Daemon, name: &str) -> Value {
    d.ok("default", "sessions", json!({}))["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["name"] == name)
        .cloned()
        .unwrap_or_default()
}

#[test]
fn a_proxy_with_credentials_carries_the_sessions_requests_and_no_other() {
    let d = Daemon::shared();
    let password = "pa:ss-w0rd-41x";
    let proxy = TestProxy::start(Some(&format!("agent:{password}")));
    let dir = tempfile::tempdir().expect("tempdir");
    let file = secret_file(
        dir.path(),
        "proxy.auth",
        &format!("agent:{password}\n"),
        0o600,
    );
    let s = SessionGuard::new(d, "proxy-auth");
    let started = cli_launch(
        d,
        "proxy-auth",
        &[
            "--proxy",
            &proxy.url(),
            "--proxy-auth-file",
            &file.display().to_string(),
        ],
    );
    assert_eq!(started["ok"], true, "{started}");
    assert_eq!(
        started["result"]["session"]["proxy"],
        json!({ "server": proxy.url(), "authenticated": true }),
        "{started}"
    );

    let out = s.ok("goto", json!({ "url": "http://site.example/page" }));
    assert_eq!(out["title"], "via proxy", "{out}");
    let hits = proxy.hits_for("site.example/page");
    // Asked without credentials first (the proxy said 407), then with the
    // session's: the browser got them from the guard, not from a URL.
    assert_eq!(hits.first().map(|h| h.auth.clone()), Some(None), "{hits:?}");
    assert!(
        hits.iter()
            .any(|h| h.auth.as_deref() == Some(&*format!("agent:{password}"))),
        "{hits:?}"
    );
    // Subresources of the page go the same way.
    s.ok(
        "eval",
        json!({ "script": "fetch('http://api.example/data', {mode: 'no-cors'}).then(() => 1)" }),
    );
    assert!(
        proxy
            .hits_for("api.example/data")
            .iter()
            .any(|h| h.auth.as_deref() == Some(&*format!("agent:{password}"))),
        "{:?}",
        proxy.hits()
    );

    // Shown where a person looks, never with the credentials.
    let v = s.ok("inspect", json!({}));
    assert_eq!(v["proxy"]["server"], proxy.url(), "{v}");
    let me = listed(d, "proxy-auth");
    assert_eq!(me["info"]["proxy"]["authenticated"], true, "{me}");
    for text in [started.to_string(), v.to_string(), me.to_string(), d.log()] {
        assert!(!text.contains(password), "the password leaked: {text}");
    }

    // A session without the proxy does not reach it.
    // (The proxied browser's own background requests may still arrive:
    // only what the other session asked for counts.)
    let other = SessionGuard::new(d, "proxy-none");
    other.ok("launch", json!({}));
    other.err(
        "goto",
        json!({ "url": "http://site.example/other" }),
        "navigation_failed",
    );
    assert_eq!(proxy.hits_for("site.example/other"), vec![]);
}

#[test]
fn wrong_credentials_are_tried_once_and_fail_clearly() {
    let d = Daemon::shared();
    let proxy = TestProxy::start(Some("agent:right"));
    let dir = tempfile::tempdir().expect("tempdir");
    let file = secret_file(dir.path(), "proxy.auth", "agent:wrong\n", 0o600);
    let s = SessionGuard::new(d, "proxy-wrong");
    let started = cli_launch(
        d,
        "proxy-wrong",
        &[
            "--proxy",
            &proxy.url(),
            "--proxy-auth-file",
            &file.display().to_string(),
        ],
    );
    assert_eq!(started["ok"], true, "{started}");
    // The proxy's refusal is the answer: no loop of retries.
    let out = s.cmd("goto", json!({ "url": "http://site.example/denied" }));
    let hits = proxy.hits_for("site.example/denied");
    let wrong = hits
        .iter()
        .filter(|h| h.auth.as_deref() == Some("agent:wrong"))
        .count();
    assert_eq!(wrong, 1, "{hits:?} {out}");
    if out["ok"] == true {
        assert_eq!(out["result"]["title"], "proxy says no", "{out}");
    }
}

#[test]
fn a_context_of_the_shared_browser_gets_a_proxy_of_its_own() {
    let d = Daemon::shared();
    let proxy = TestProxy::start(None);
    let with = SessionGuard::new(d, "proxy-context");
    let started = with.ok(
        "launch",
        json!({ "proxy": proxy.url(), "proxy_country": "jp" }),
    );
    assert_eq!(
        started["session"]["proxy"]["authenticated"], false,
        "{started}"
    );
    // The exit country it was told of is checked against the time zone.
    let set = with.ok("set_timezone", json!({ "timezone": "Europe/Berlin" }));
    assert!(
        set["warnings"].to_string().contains("proxy_timezone"),
        "{set}"
    );
    with.ok("set_timezone", json!({ "timezone": "Asia/Tokyo" }));
    let v = with.ok("inspect", json!({}));
    assert!(
        !v["signals"]["warnings"]
            .to_string()
            .contains("proxy_timezone"),
        "{v}"
    );
    let without = SessionGuard::new(d, "proxy-context-none");
    without.ok("launch", json!({}));
    // Both run in the shared browser; only one goes through the proxy.
    let a = listed(d, "proxy-context");
    let b = listed(d, "proxy-context-none");
    assert_eq!(a["info"]["endpoint"], b["info"]["endpoint"], "{a} {b}");
    let out = with.ok("goto", json!({ "url": "http://ctx.example/mine" }));
    assert_eq!(out["title"], "via proxy", "{out}");
    without.err(
        "goto",
        json!({ "url": "http://ctx.example/theirs" }),
        "navigation_failed",
    );
    assert_eq!(proxy.hits_for("ctx.example/theirs"), vec![]);
    assert_eq!(
        proxy.hits_for("ctx.example/mine").len(),
        1,
        "{:?}",
        proxy.hits()
    );
}

#[test]
fn bad_proxy_flags_are_refused_and_start_nothing() {
    let d = Daemon::shared();
    let s = SessionGuard::new(d, "proxy-bad");
    // Credentials never go in a URL; the refusal does not echo them.
    let e = s.err(
        "launch",
        json!({ "proxy": "http://user:hunter2xy@127.0.0.1:3128" }),
        "invalid_argument",
    );
    assert!(!e.to_string().contains("hunter2xy"), "{e}");
    for bad in [
        "ftp://127.0.0.1:21",
        "http://127.0.0.1:3128/path",
        "not a url",
        "http://",
    ] {
        let e = s.err("launch", json!({ "proxy": bad }), "invalid_argument");
        assert!(
            e["message"]
                .as_str()
                .unwrap_or_default()
                .contains("--proxy"),
            "{bad}: {e}"
        );
    }
    s.err(
        "launch",
        json!({ "proxy_bypass": ["example.com"] }),
        "invalid_argument",
    );
    s.err(
        "launch",
        json!({ "proxy": "http://127.0.0.1:3128", "proxy_country": "Germany" }),
        "invalid_argument",
    );
    s.err(
        "launch",
        json!({ "proxy": "http://127.0.0.1:3128", "proxy_bypass": ["a b"] }),
        "invalid_argument",
    );
    s.err(
        "launch",
        json!({ "proxy": "http://127.0.0.1:3128", "extension": true }),
        "invalid_argument",
    );

    // The credentials file: one of the user's own, private, not a link, small.
    let dir = tempfile::tempdir().expect("tempdir");
    let open = secret_file(dir.path(), "open.auth", "agent:pw\n", 0o644);
    let good = secret_file(dir.path(), "good.auth", "agent:pw\n", 0o600);
    let link = dir.path().join("link.auth");
    std::os::unix::fs::symlink(&good, &link).expect("symlink");
    let bomb = secret_file(dir.path(), "bomb.auth", &"a".repeat(1 << 20), 0o600);
    let nocolon = secret_file(dir.path(), "nocolon.auth", "agentpw\n", 0o600);
    let proxy = TestProxy::start(Some("agent:pw"));
    for (file, why) in [
        (&open, "others may read"),
        (&link, "link"),
        (&bomb, ""),
        (&nocolon, "user:password"),
        (&dir.path().join("missing.auth"), "does not exist"),
    ] {
        let out = cli_launch(
            d,
            "proxy-bad",
            &[
                "--proxy",
                &proxy.url(),
                "--proxy-auth-file",
                &file.display().to_string(),
            ],
        );
        assert_eq!(out["ok"], false, "{}: {out}", file.display());
        let message = out["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_lowercase();
        assert!(
            message.contains(why),
            "{}: {why:?} in {out}",
            file.display()
        );
    }
    // SOCKS cannot take credentials in Chromium: said, not ignored.
    let out = cli_launch(
        d,
        "proxy-bad",
        &[
            "--proxy",
            "socks5://127.0.0.1:1080",
            "--proxy-auth-file",
            &good.display().to_string(),
        ],
    );
    assert_eq!(out["error"]["code"], "unsupported", "{out}");
    // Over HTTP (TCP) a credentials file is a local file: refused.
    let e = d.request_tcp(json!({
        "session": "proxy-bad",
        "command": "launch",
        "args": { "proxy": proxy.url(), "proxy_auth_file": good.display().to_string() }
    }));
    assert_eq!(e["error"]["code"], "forbidden", "{e}");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("--proxy-auth-file"),
        "{e}"
    );
    // Nothing started, nothing reached the proxy.
    assert_ne!(listed(d, "proxy-bad")["info"]["browser"], "launched");
    assert!(proxy.hits().is_empty(), "{:?}", proxy.hits());
}
