//! Boundary hardening, round 3 (issue 20): a home another user made is never
//! adopted, a promised body that never comes holds nothing, a web page cannot
//! even tell that the daemon listens, and the smaller doors (session names,
//! `/mcp` body size, statement `eval`, the README's own commands).
//! Each test failed on the code before its fix.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;
use webrig_tests::other_user::OtherUser;

use crate::{Daemon, SessionGuard, daemon, web};

const EXT: &str = "chrome-extension://abcdefghijklmnopabcdefghijklmnop";

fn chown(path: &Path, user: &OtherUser) {
    let out = Command::new("chown")
        .arg("-R")
        .arg(format!("{}:{}", user.uid(), user.gid()))
        .arg(path)
        .output()
        .expect("chown runs");
    assert!(out.status.success(), "{out:?}");
}

/// `webrig serve` in `home`: how it exited, and what it said.
fn serve_in(home: impl AsRef<Path>) -> (std::process::Output, String) {
    let out = Command::new(webrig_tests::webrig_bin())
        .args(["serve", "--port", &webrig_tests::free_port().to_string()])
        .env("WEBRIG_HOME", home.as_ref())
        .output()
        .expect("webrig serve runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stderr)
}

/// A home as another user would plant it: their folder (0777, as a careless
/// or hostile script leaves it), their token and a config whose browser
/// path would run their program.
fn planted_home(user: &OtherUser, mode: u32) -> (tempfile::TempDir, std::path::PathBuf) {
    let parent = tempfile::tempdir().expect("a parent");
    std::fs::set_permissions(parent.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let home = parent.path().join("home");
    std::fs::create_dir(&home).expect("mkdir");
    std::fs::write(home.join("token"), "f".repeat(64)).expect("token");
    std::fs::write(
        home.join("config.toml"),
        "[limits]\nbody_bytes = 1\n# planted by another user\n",
    )
    .expect("config");
    chown(&home, user);
    std::fs::set_permissions(&home, std::fs::Permissions::from_mode(mode)).expect("chmod");
    (parent, home)
}

#[test]
fn serve_refuses_a_home_another_user_made_and_never_chmods_it() {
    let Some(user) = OtherUser::get("serve_refuses_a_home_another_user_made") else {
        return;
    };
    for mode in [0o777, 0o700, 0o755] {
        let (_keep, home) = planted_home(&user, mode);
        let (out, stderr) = serve_in(&home);
        assert!(!out.status.success(), "mode {mode:o}: {stderr}");
        assert!(
            stderr.contains(&format!("belongs to uid {}", user.uid())),
            "mode {mode:o}: says whose it is: {stderr}"
        );
        let meta = std::fs::metadata(&home).expect("still there");
        assert_eq!(meta.mode() & 0o7777, mode, "never chmodded");
        assert_eq!(meta.uid(), user.uid());
        let names: Vec<String> = std::fs::read_dir(&home)
            .expect("list")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            !names.iter().any(|n| n.starts_with("daemon")),
            "nothing written into it: {names:?}"
        );
    }
}

#[test]
fn the_cli_refuses_a_foreign_home_before_it_starts_a_daemon() {
    let Some(user) = OtherUser::get("the_cli_refuses_a_foreign_home") else {
        return;
    };
    let (_keep, home) = planted_home(&user, 0o777);
    let port = webrig_tests::free_port();
    let out = Command::new(webrig_tests::webrig_bin())
        .args(["title"])
        .env("WEBRIG_HOME", &home)
        .env("WEBRIG_PORT", port.to_string())
        .output()
        .expect("webrig runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("belongs to uid"), "{stderr}");
    assert!(
        !home.join("daemon.log").exists(),
        "no daemon was started in it"
    );
    assert!(
        TcpStream::connect(("127.0.0.1", port)).is_err(),
        "nothing listens on the port"
    );
}

#[test]
fn a_home_of_ours_that_others_may_write_or_under_their_folder_is_refused() {
    let Some(user) = OtherUser::get("a_home_under_their_folder_is_refused") else {
        return;
    };
    // Ours, but group/world-writable.
    let parent = tempfile::tempdir().expect("a parent");
    let home = parent.path().join("home");
    std::fs::create_dir(&home).expect("mkdir");
    std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let (out, stderr) = serve_in(&home);
    assert!(
        !out.status.success() && stderr.contains("others may write"),
        "{stderr}"
    );
    // Ours, inside a folder another user owns (they could swap it).
    let theirs = parent.path().join("theirs");
    std::fs::create_dir(&theirs).expect("mkdir");
    chown(&theirs, &user);
    let (out, stderr) = serve_in(theirs.join("home"));
    assert!(
        !out.status.success() && stderr.contains("a folder above"),
        "{stderr}"
    );
    // A token or config another user may write, in our own home.
    let home = parent.path().join("mine");
    std::fs::create_dir(&home).expect("mkdir");
    std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    std::fs::write(home.join("config.toml"), "").expect("config");
    std::fs::set_permissions(
        home.join("config.toml"),
        std::fs::Permissions::from_mode(0o666),
    )
    .expect("chmod");
    let (out, stderr) = serve_in(&home);
    assert!(
        !out.status.success()
            && stderr.contains("config.toml")
            && stderr.contains("others may write"),
        "{stderr}"
    );
}

#[test]
fn a_keeper_socket_in_another_users_folder_is_never_connected_to() {
    let Some(user) = OtherUser::get("a_keeper_socket_in_another_users_folder") else {
        return;
    };
    // The other user listens on a Unix socket in a folder of theirs and
    // notes any connection.
    let theirs = tempfile::tempdir().expect("dir");
    std::fs::set_permissions(theirs.path(), std::fs::Permissions::from_mode(0o777)).expect("chmod");
    chown(theirs.path(), &user);
    let socket = theirs.path().join("cdp.sock");
    let heard = theirs.path().join("heard");
    let script = r#"use IO::Socket::UNIX; my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Local => $ARGV[0], Listen => 5) or die "listen: $!"; chmod 0777, $ARGV[0]; $SIG{ALRM} = sub { exit 0 }; alarm 20; while (my $c = $s->accept) { open my $f, '>>', $ARGV[1]; print $f "connected\n"; close $f; }"#;
    let mut listener = user
        .command("/usr/bin/perl")
        .args(["-e", script])
        .arg(&socket)
        .arg(&heard)
        .spawn()
        .expect("perl runs");
    let until = Instant::now() + Duration::from_secs(5);
    while !socket.exists() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(socket.exists(), "the other user's socket is up");
    // A home whose sessions.json names that socket as a keeper's.
    let home = tempfile::tempdir().expect("home");
    let binding = json!({ "planted": {
        "endpoint": format!("pipe:{}", socket.display()),
        "owned": false, "pid": null, "temp_profile": null, "headless": true, "executable": null
    }});
    std::fs::write(home.path().join("sessions.json"), binding.to_string()).expect("write");
    let port = webrig_tests::free_port();
    let mut serve = Command::new(webrig_tests::webrig_bin())
        .args(["serve", "--port", &port.to_string()])
        .env("WEBRIG_HOME", home.path())
        .spawn()
        .expect("serve");
    let until = Instant::now() + Duration::from_secs(15);
    while TcpStream::connect(("127.0.0.1", port)).is_err() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    // Re-attaching happens before the daemon listens.
    let _ = serve.kill();
    let _ = serve.wait();
    let _ = listener.kill();
    let _ = listener.wait();
    assert!(
        !heard.exists(),
        "the daemon connected to another user's socket"
    );
}

/// A raw request on a fresh TCP connection; the whole answer (empty when
/// the daemon closed without one), read for at most `wait`.
fn raw(port: u16, head: &str, body: &[u8], wait: Duration) -> String {
    let mut c = TcpStream::connect_timeout(
        &SocketAddr::from(([127, 0, 0, 1], port)),
        Duration::from_secs(2),
    )
    .expect("connect");
    let _ = c.set_read_timeout(Some(wait));
    let _ = c.write_all(head.as_bytes());
    let _ = c.write_all(body);
    let mut out = Vec::new();
    let _ = c.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn status(answer: &str) -> u16 {
    answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// A connection that sent a whole header promising `len` bytes of body,
/// and no body.
fn promise_body(port: u16, path: &str, len: usize, origin: Option<&str>) -> TcpStream {
    let mut c = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let origin = origin
        .map(|o| format!("Origin: {o}\r\n"))
        .unwrap_or_default();
    let _ = c.write_all(
        format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{origin}\
             Content-Type: application/json\r\nContent-Length: {len}\r\n\r\n"
        )
        .as_bytes(),
    );
    c
}

#[test]
fn a_promised_body_that_never_comes_holds_no_connection() {
    let d = Daemon::start_with_config("[limits]\nconnections = 16\nbody_timeout_ms = 1500\n")
        .expect("daemon");
    let port = d.port();
    // Fill the door with slow bodies on /pair (from an extension origin:
    // allowed to pair) and /command (with the token).
    let token = d.token();
    let mut slow: Vec<TcpStream> = (0..8)
        .map(|_| promise_body(port, "/pair", 300, Some(EXT)))
        .collect();
    for _ in 0..8 {
        let mut c = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        let _ = c.write_all(
            format!(
                "POST /command HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n\
                 Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
            )
            .as_bytes(),
        );
        slow.push(c);
    }
    std::thread::sleep(Duration::from_millis(300));
    // A full door of promised bodies still lets a newcomer in at once.
    let started = Instant::now();
    let answer = raw(
        port,
        &format!("GET /ping HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"),
        b"",
        Duration::from_secs(5),
    );
    assert_eq!(status(&answer), 200, "{answer}");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    let resp = d.request_tcp(json!({ "command": "sessions" }));
    assert_eq!(resp["ok"], true, "a token holder on TCP: {resp}");
    // A body that never comes ends at the body deadline with an answer,
    // and the connection closes.
    let started = Instant::now();
    let mut c = promise_body(port, "/pair", 100, Some(EXT));
    let _ = c.set_read_timeout(Some(Duration::from_secs(10)));
    let mut out = Vec::new();
    let _ = c.read_to_end(&mut out);
    let took = started.elapsed();
    let answer = String::from_utf8_lossy(&out);
    assert!(
        took >= Duration::from_millis(1200) && took < Duration::from_secs(5),
        "closed after {took:?}: {answer}"
    );
    assert!(status(&answer) >= 400, "{answer}");
    drop(slow);
}

#[test]
fn refusals_that_need_no_body_come_before_it() {
    let d = daemon();
    let port = d.port();
    let quick = |path: &str, len: usize, origin: Option<&str>| {
        let mut c = promise_body(port, path, len, origin);
        let _ = c.set_read_timeout(Some(Duration::from_secs(3)));
        // The answer's head is enough: the connection may stay open a
        // while to read (and drop) what the client still sends.
        let mut out = Vec::new();
        let started = Instant::now();
        let mut buf = [0u8; 4096];
        while !out.windows(4).any(|w| w == b"\r\n\r\n") {
            match c.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => out.extend_from_slice(&buf[..n]),
            }
        }
        (status(&String::from_utf8_lossy(&out)), started.elapsed())
    };
    // Not the extension: refused before a byte of body.
    let (code, took) = quick("/pair", 50, None);
    assert_eq!(code, 403);
    assert!(took < Duration::from_secs(1), "{took:?}");
    // A pairing body bigger than a code could need.
    let (code, took) = quick("/pair", 100_000, Some(EXT));
    assert_eq!(code, 413);
    assert!(took < Duration::from_secs(1), "{took:?}");
    // No token: refused before the body.
    let (code, took) = quick("/command", 1000, None);
    assert_eq!(code, 401);
    assert!(took < Duration::from_secs(1), "{took:?}");
    // Over body_bytes anywhere, /mcp included, before the body.
    let token = d.token();
    let mut c = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let _ = c.set_read_timeout(Some(Duration::from_secs(3)));
    let _ = c.write_all(
        format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n\
             Accept: application/json, text/event-stream\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            64 << 20
        )
        .as_bytes(),
    );
    let mut out = [0u8; 64];
    let n = c.read(&mut out).unwrap_or(0);
    assert_eq!(status(&String::from_utf8_lossy(&out[..n])), 413);
}

#[test]
fn mcp_keeps_the_body_limit_for_chunked_bodies_too() {
    let d = Daemon::start_with_config("[limits]\nbody_bytes = 4096\n").expect("daemon");
    let port = d.port();
    let token = d.token();
    // A JSON-RPC call padded past the limit, sent chunked (no length given).
    let pad = "x".repeat(64 * 1024);
    let body =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"pad":"{pad}"}}}}"#);
    let mut chunked = Vec::new();
    for part in body.as_bytes().chunks(8192) {
        chunked.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
        chunked.extend_from_slice(part);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let answer = raw(
        port,
        &format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n\
             Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n\
             Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        ),
        &chunked,
        Duration::from_secs(5),
    );
    assert!(
        !answer.contains("\"tools\""),
        "an over-limit body was read whole: {:.300}",
        answer
    );
    // The same call within the limit works.
    let small = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;
    let answer = raw(
        port,
        &format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n\
             Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            small.len()
        ),
        small.as_bytes(),
        Duration::from_secs(5),
    );
    assert!(answer.contains("\"tools\""), "{:.300}", answer);
}

#[test]
fn a_web_page_cannot_tell_that_the_daemon_listens() {
    let d = daemon();
    let port = d.port();
    // What a browser sends for a page's no-cors fetch or <img>: the door
    // closes without a word, as a port with nothing behind it would.
    for site in ["cross-site", "same-site"] {
        let answer = raw(
            port,
            &format!(
                "GET /ping HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nSec-Fetch-Site: {site}\r\n\
                 Sec-Fetch-Mode: no-cors\r\nConnection: close\r\n\r\n"
            ),
            b"",
            Duration::from_secs(3),
        );
        assert_eq!(answer, "", "{site}: answered {answer:?}");
    }
    // The user (none), the daemon itself (same-origin), no header (curl, the
    // CLI) and the paired extension still get answers.
    for extra in [
        "Sec-Fetch-Site: none\r\n".to_string(),
        "Sec-Fetch-Site: same-origin\r\n".to_string(),
        String::new(),
        format!("Sec-Fetch-Site: cross-site\r\nOrigin: {EXT}\r\n"),
    ] {
        let answer = raw(
            port,
            &format!(
                "GET /ping HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{extra}Connection: close\r\n\r\n"
            ),
            b"",
            Duration::from_secs(3),
        );
        assert_eq!(status(&answer), 200, "{extra:?}: {answer}");
    }
    // And from a real page: a no-cors fetch of the daemon fails exactly as
    // one of a closed port does.
    let s = SessionGuard::new(d, "hardening-web-page");
    s.ok("goto", json!({ "url": web().url("index.html") }));
    let closed = webrig_tests::free_port();
    let probe = |p: u16, path: &str| {
        let script = format!(
            "fetch('http://127.0.0.1:{p}{path}', {{mode: 'no-cors'}}).then(() => 'answered', e => 'failed: ' + e.name)"
        );
        s.ok("eval", json!({ "script": script }))["value"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(probe(closed, "/ping"), "failed: TypeError");
    assert_eq!(
        probe(port, "/ping"),
        "failed: TypeError",
        "the daemon was seen"
    );
    assert_eq!(
        probe(port, "/command"),
        "failed: TypeError",
        "the daemon was seen"
    );
}

#[test]
fn session_names_that_walk_a_path_are_refused() {
    let d = daemon();
    for name in [".", "..", ".hidden", "-x"] {
        let e = d.err(name, "title", json!({}), "invalid_argument");
        assert!(
            e["message"]
                .as_str()
                .unwrap_or_default()
                .contains("session name"),
            "{name}: {e}"
        );
    }
}

#[test]
fn a_statement_eval_over_the_cap_is_measured_in_the_page() {
    let d = Daemon::start_with_config("[limits]\nresult_bytes = 50000\n").expect("daemon");
    let s = SessionGuard::new(&d, "hardening-statement-eval");
    s.ok("goto", json!({ "url": web().url("index.html") }));
    let rss = || {
        std::fs::read_to_string(format!("/proc/{}/status", d.pid()))
            .ok()
            .and_then(|t| {
                t.lines()
                    .find_map(|l| l.strip_prefix("VmHWM:"))
                    .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            })
            .unwrap_or(0)
    };
    let before = rss();
    // 100 MB built by statements: refused with its size, never sent over.
    let e = s.err(
        "eval",
        json!({ "script": "let big = 'x'.repeat(1e8); big" }),
        "limit_exceeded",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("100000002"),
        "{e}"
    );
    let grew_mib = rss().saturating_sub(before) / 1024;
    assert!(grew_mib < 50, "the daemon's peak grew {grew_mib} MiB");
    // Statements keep their value and side effects.
    assert_eq!(
        s.ok(
            "eval",
            json!({ "script": "let a = 2; window.__h = a; a * 3" })
        )["value"],
        json!(6)
    );
    assert_eq!(
        s.ok("eval", json!({ "script": "let a = 5; a" }))["value"],
        json!(5),
        "redeclaring in a later call is fine"
    );
    assert_eq!(
        s.ok(
            "eval",
            json!({ "script": "const r = await Promise.resolve(4); r + 1" })
        )["value"],
        json!(5),
        "top-level await still runs"
    );
    assert_eq!(
        s.ok("eval", json!({ "script": "var o = {k: [1, 2]}; o" }))["value"],
        json!({ "k": [1, 2] })
    );
}

#[test]
fn the_readmes_route_example_runs_from_the_cli() {
    let d = daemon();
    let s = SessionGuard::new(d, "hardening-route-cli");
    s.ok("goto", json!({ "url": web().url("index.html") }));
    let out = d.cli(&[
        "--session",
        &s.name,
        "route",
        "*/hardening-api*",
        "--json-body",
        r#"{"items": []}"#,
    ]);
    assert!(out.status.success(), "{out:?}");
    let body = tempfile::NamedTempFile::new().expect("file");
    std::fs::write(body.path(), "hello").expect("write");
    let out = d.cli(&[
        "--session",
        &s.name,
        "--json",
        "route",
        "*/hardening-file*",
        "--body",
        &body.path().display().to_string(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(stdout.contains("\"ok\":true"), "{stdout}");
    let got = s.ok(
        "eval",
        json!({ "script": "fetch('/hardening-api').then(r => r.json())" }),
    );
    assert_eq!(got["value"], json!({ "items": [] }));
}

#[test]
fn a_plugin_or_macro_folder_of_another_user_is_refused() {
    let Some(user) = OtherUser::get("a_plugin_or_macro_folder_of_another_user_is_refused") else {
        return;
    };
    for folder in ["macros", "plugins"] {
        let home = tempfile::tempdir().expect("home");
        let planted = home.path().join(folder);
        std::fs::create_dir(&planted).expect("mkdir");
        // Their pack or plugin, in a folder of theirs inside our home.
        std::fs::write(planted.join("evil.rhai"), "fn search(q) { q }").expect("write");
        chown(&planted, &user);
        let (out, stderr) = serve_in(home.path());
        assert!(!out.status.success(), "{folder}: {stderr}");
        assert!(
            stderr.contains(folder) && stderr.contains(&format!("belongs to uid {}", user.uid())),
            "{folder}: {stderr}"
        );
    }
}
