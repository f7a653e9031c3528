//! The daemon's doors as another local user or a hostile local process sees
//! them: no DevTools port for managed browsers, the CLI's token only ever on
//! the owner-only Unix socket, connection floods, rate-limit keys, refusals
//! as envelopes, local files over the HTTP API, memory before a launch.

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::{Daemon, SessionGuard, daemon, web};

const EXT_A: &str = "chrome-extension://abcdefghijklmnopabcdefghijklmnop";
const EXT_B: &str = "chrome-extension://ponmlkjihgfedcbaponmlkjihgfedcba";

/// Parent pid of `pid`, from /proc/PID/stat (the field after the `)`).
fn ppid(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// `root` and every process below it.
fn process_tree(root: u32) -> HashSet<u32> {
    let all: Vec<u32> = std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    let mut tree = HashSet::from([root]);
    loop {
        let before = tree.len();
        for pid in &all {
            if ppid(*pid).is_some_and(|p| tree.contains(&p)) {
                tree.insert(*pid);
            }
        }
        if tree.len() == before {
            return tree;
        }
    }
}

/// Socket inodes the processes hold open.
fn socket_inodes(pids: &HashSet<u32>) -> HashSet<u64> {
    let mut inodes = HashSet::new();
    for pid in pids {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if let Ok(link) = std::fs::read_link(fd.path())
                && let Some(inode) = link
                    .to_str()
                    .and_then(|l| l.strip_prefix("socket:["))
                    .and_then(|l| l.strip_suffix(']'))
                    .and_then(|l| l.parse().ok())
            {
                inodes.insert(inode);
            }
        }
    }
    inodes
}

/// Inodes of every listening TCP socket (IPv4 and IPv6), with its line.
fn tcp_listeners() -> Vec<(u64, String)> {
    let mut out = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split_whitespace().collect();
            if cols.get(3) == Some(&"0A")
                && let Some(inode) = cols.get(9).and_then(|i| i.parse().ok())
            {
                out.push((inode, line.trim().to_string()));
            }
        }
    }
    out
}

fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// Runs a Perl snippet (Perl is essential on Debian) with `args` as uid/gid
/// 65534 (nobody); its output.
fn as_nobody(script: &str, args: &[String]) -> String {
    let out = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .args(["/usr/bin/perl", "-e", script])
        .args(args)
        .output()
        .expect("setpriv and perl run");
    // format!, not `+`: another crate's `impl Add<…> for String` makes `+ &Cow` ambiguous.
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn managed_browsers_listen_on_no_tcp_port_and_another_uid_cannot_reach_them() {
    let s = SessionGuard::new(daemon(), "doors-no-devtools-port");
    s.ok("goto", json!({ "url": web().url("nav/a.html") }));
    let info = s.ok("sessions", json!({}));
    let mine = info["sessions"]
        .as_array()
        .and_then(|l| l.iter().find(|x| x["name"] == s.name.as_str()))
        .cloned()
        .expect("the session is listed");
    let pid = mine["info"]["pid"].as_u64().expect("a browser pid") as u32;
    // The keeper (the browser's parent) and every browser process.
    let mut pids = process_tree(pid);
    pids.extend(ppid(pid));
    let inodes = socket_inodes(&pids);
    assert!(!inodes.is_empty(), "the browser holds sockets: {pids:?}");
    let listening: Vec<String> = tcp_listeners()
        .into_iter()
        .filter(|(inode, _)| inodes.contains(inode))
        .map(|(_, line)| line)
        .collect();
    assert!(
        listening.is_empty(),
        "a managed browser listens on TCP: {listening:?}"
    );

    let endpoint = mine["info"]["endpoint"].as_str().expect("endpoint");
    let keeper_socket = endpoint.strip_prefix("pipe:").expect("a pipe endpoint");
    if !is_root() {
        eprintln!("not root: the second-uid half of this test needs setpriv as root");
        return;
    }
    let d = daemon();
    let script = r#"
use Socket;
for my $p (@ARGV[0, 1]) {
    socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die "socket: $!";
    if (connect($s, pack_sockaddr_un($p))) { print "REACHED $p\n" } else { print "refused $!\n" }
}
if (open(my $f, '<', $ARGV[2])) { print "REACHED token\n" } else { print "refused $!\n" }
"#;
    let args = [
        keeper_socket.to_string(),
        d.socket().display().to_string(),
        d.home().join("token").display().to_string(),
    ];
    let out = as_nobody(script, &args);
    assert!(!out.contains("REACHED"), "uid 65534 got in: {out}");
    assert_eq!(out.matches("refused Permission denied").count(), 3, "{out}");
}

#[test]
fn a_squatter_on_the_port_never_gets_the_token_and_the_cli_says_so() {
    let squatter = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = squatter.local_addr().expect("addr").port();
    squatter.set_nonblocking(true).expect("nonblocking");
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let done_rx = done.clone();
    let heard = std::thread::spawn(move || {
        let mut heard = Vec::new();
        // Listens until the CLI has finished (or a generous bound passes).
        let until = Instant::now() + Duration::from_secs(60);
        while Instant::now() < until && !done_rx.load(std::sync::atomic::Ordering::SeqCst) {
            match squatter.accept() {
                Ok((mut conn, _)) => {
                    let _ = conn.set_nonblocking(false);
                    let _ = conn.set_read_timeout(Some(Duration::from_millis(500)));
                    let mut buf = [0u8; 4096];
                    let n = conn.read(&mut buf).unwrap_or(0);
                    heard.extend_from_slice(&buf[..n]);
                    let body = r#"{"id":"x","ok":true,"result":{"title":"forged"}}"#;
                    let _ = write!(
                        conn,
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                        body.len()
                    );
                }
                Err(_) => std::thread::sleep(Duration::from_millis(10)),
            }
        }
        String::from_utf8_lossy(&heard).into_owned()
    });
    let home = tempfile::tempdir().expect("home");
    let started = Instant::now();
    let out = std::process::Command::new(webrig_tests::webrig_bin())
        .args(["title"])
        .env("WEBRIG_HOME", home.path())
        .env("WEBRIG_PORT", port.to_string())
        .output()
        .expect("webrig runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stdout} {stderr}");
    assert!(!stdout.contains("forged"), "{stdout}");
    assert!(
        stderr.contains("another process holds the port"),
        "the CLI says why: {stderr}"
    );
    assert!(started.elapsed() < Duration::from_secs(15));
    let token = std::fs::read_to_string(home.path().join("token")).unwrap_or_default();
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let heard = heard.join().expect("squatter thread");
    assert!(
        !heard.contains("Bearer") && (token.is_empty() || !heard.contains(token.trim())),
        "the squatter heard: {heard:?}"
    );
}

/// Opens a connection that sends half a request header and stops.
fn half_open(port: u16) -> Option<TcpStream> {
    let mut c = TcpStream::connect_timeout(
        &SocketAddr::from(([127, 0, 0, 1], port)),
        Duration::from_secs(2),
    )
    .ok()?;
    let _ = c.write_all(format!("GET /ping HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n").as_bytes());
    Some(c)
}

/// One GET /ping on a fresh connection: status and how long it took.
fn ping(port: u16) -> (u16, Duration) {
    let started = Instant::now();
    let Ok(mut c) = TcpStream::connect_timeout(
        &SocketAddr::from(([127, 0, 0, 1], port)),
        Duration::from_secs(5),
    ) else {
        return (0, started.elapsed());
    };
    let _ = c.set_read_timeout(Some(Duration::from_secs(5)));
    let _ = c.write_all(
        format!("GET /ping HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n")
            .as_bytes(),
    );
    let mut raw = String::new();
    let _ = c.read_to_string(&mut raw);
    let status = raw
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, started.elapsed())
}

fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0)
}

#[test]
fn a_connection_flood_leaves_ping_the_api_and_the_cli_working() {
    let d = Daemon::start_with_config("[limits]\nconnections = 128\nheader_timeout_ms = 1500\n")
        .expect("daemon");
    let fds_before = open_fds(d.pid());
    let mut flood = Vec::new();
    for _ in 0..3000 {
        if let Some(c) = half_open(d.port()) {
            flood.push(c);
        }
    }
    assert!(flood.len() > 2500, "opened {}", flood.len());
    let (status, took) = ping(d.port());
    assert_eq!(status, 200, "ping under a flood");
    assert!(took < Duration::from_secs(2), "ping took {took:?}");
    let resp = d.request_tcp(json!({ "command": "sessions" }));
    assert_eq!(resp["ok"], true, "a token holder on TCP: {resp}");
    let out = d.cli(&["sessions"]);
    assert!(out.status.success(), "the CLI: {out:?}");
    let fds = open_fds(d.pid());
    assert!(
        fds < fds_before + 128 + 16,
        "the daemon holds {fds} descriptors under a flood of {} (cap 128)",
        flood.len()
    );
    // Half-open connections that were not pushed out end at the header
    // timeout: the daemon closes them.
    // Each read blocks until the daemon closes the connection (EOF or
    // reset); one that is still open when the bound passes is a failure.
    let bound = Instant::now() + Duration::from_secs(20);
    let mut still_open = 0;
    for c in flood.iter_mut().rev().take(50) {
        let left = bound.saturating_duration_since(Instant::now());
        let _ = c.set_read_timeout(Some(left.max(Duration::from_millis(1))));
        let mut buf = [0u8; 64];
        if matches!(c.read(&mut buf), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock || e.kind() == std::io::ErrorKind::TimedOut)
        {
            still_open += 1;
        }
    }
    assert_eq!(
        still_open, 0,
        "half-open connections outlived the header timeout"
    );
}

/// A pairing try from `from` with `origin`: its status.
fn pair_with(port: u16, from: [u8; 4], origin: Option<&str>) -> u16 {
    let socket =
        socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).expect("socket");
    socket
        .bind(&SocketAddr::from((from, 0)).into())
        .expect("bind source");
    socket
        .connect(&SocketAddr::from(([127, 0, 0, 1], port)).into())
        .expect("connect");
    let mut c: TcpStream = socket.into();
    let origin = origin
        .map(|o| format!("Origin: {o}\r\n"))
        .unwrap_or_default();
    let body = r#"{"code": "000000"}"#;
    let _ = c.write_all(
        format!(
            "POST /pair HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{origin}Content-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    );
    let mut raw = String::new();
    let _ = c.read_to_string(&mut raw);
    raw.split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

#[test]
fn rate_limits_key_on_what_a_caller_cannot_choose() {
    let d =
        Daemon::start_with_config("[limits]\nunauthenticated_per_minute = 3\n").expect("daemon");
    let p = d.port();
    // Pairing without an extension origin is refused before its body and
    // before any budget: it costs the daemon nothing, and spends nothing.
    for last in 1..=5 {
        assert_eq!(pair_with(p, [127, 0, 0, last], None), 403);
    }
    let out = d.cli(&["pair"]);
    assert!(out.status.success(), "{out:?}");
    // Wrong codes spend the extension class's budget; a fresh source
    // address or a fresh extension id is no fresh budget.
    for last in 1..=3 {
        assert_eq!(pair_with(p, [127, 0, 0, last], Some(EXT_A)), 401);
    }
    assert_eq!(pair_with(p, [127, 0, 0, 9], Some(EXT_A)), 429);
    assert_eq!(pair_with(p, [127, 1, 2, 3], Some(EXT_B)), 429);
    // /ping and the owner's CLI keep working.
    assert_eq!(ping(p).0, 200);
    let out = d.cli(&["sessions"]);
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn every_refusal_is_the_error_envelope() {
    let d = daemon();
    let check = |(status, body): (u16, Value), want_status: u16, code: &str| {
        assert_eq!(status, want_status, "{body}");
        assert_eq!(body["ok"], false, "{body}");
        assert_eq!(body["error"]["code"], code, "{body}");
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
    };
    let big = format!("{{\"code\": \"{}\"}}", "1".repeat((2 << 20) + 10));
    check(
        d.http("POST", "/pair", Some(&big), &[("Origin", EXT_A)]).0,
        413,
        "limit_exceeded",
    );
    check(
        d.http("GET", "/command", None, &[]).0,
        405,
        "invalid_argument",
    );
    check(
        d.http("POST", "/ping", Some(""), &[]).0,
        405,
        "invalid_argument",
    );
    check(d.http("GET", "/nope", None, &[]).0, 404, "not_found");
    let token = format!("Bearer {}", d.token());
    check(
        d.http("GET", "/nope/deeper", None, &[("Authorization", &token)])
            .0,
        404,
        "not_found",
    );
}

#[test]
fn the_http_api_cannot_name_local_files_unless_allowed() {
    let d = daemon();
    let file = webrig_tests::fixture_dir().join("nav/a.html");
    let file_url = format!("file://{}", file.display());
    let tcp = |command: &str, args: Value| {
        d.request_tcp(json!({ "session": "doors-files", "command": command, "args": args }))
    };
    for (command, args) in [
        ("goto", json!({ "url": file_url })),
        ("tab_new", json!({ "url": file_url })),
        ("launch", json!({ "browser_path": "/bin/sh" })),
        ("launch", json!({ "profile": "/tmp" })),
        ("screenshot", json!({ "path": "/tmp/doors-shot.png" })),
        (
            "upload",
            json!({ "target": "input", "files": [file.display().to_string()] }),
        ),
        ("plugin_install", json!({ "path": "/tmp/x.wasm" })),
    ] {
        let resp = tcp(command, args.clone());
        assert_eq!(
            resp["error"]["code"], "forbidden",
            "{command} {args}: {resp}"
        );
        assert!(
            resp["error"]["hint"]
                .as_str()
                .is_some_and(|h| h.contains("http_local_files")),
            "{resp}"
        );
    }
    assert!(!std::path::Path::new("/tmp/doors-shot.png").exists());
    // The owner's own door may; a web URL over TCP is untouched.
    let s = SessionGuard::new(d, "doors-files");
    assert_eq!(s.ok("goto", json!({ "url": file_url }))["title"], "Page A");
    let resp = tcp("goto", json!({ "url": web().url("nav/b.html") }));
    assert_eq!(resp["ok"], true, "{resp}");

    let allowed = Daemon::start_with_config("[access]\nhttp_local_files = true\n").expect("daemon");
    let resp = allowed.request_tcp(json!({
        "session": "files", "command": "goto", "args": { "url": file_url }
    }));
    assert_eq!(resp["ok"], true, "allowed by config: {resp}");
    allowed.request(json!({ "session": "files", "command": "close" }));
}

#[test]
fn a_browser_is_not_started_without_the_memory_it_needs() {
    let d =
        Daemon::start_with_config("[limits]\nmin_free_memory_mib = 100000000\n").expect("daemon");
    let err = d.err(
        "mem",
        "goto",
        json!({ "url": web().url("nav/a.html") }),
        "limit_exceeded",
    );
    let message = err["message"].as_str().unwrap_or_default();
    assert!(message.contains("MiB"), "{err}");
    assert!(
        err["hint"].as_str().is_some_and(|h| h.contains("close")),
        "{err}"
    );
    // Nothing was started.
    let sessions = d.ok("mem", "sessions", json!({}));
    assert!(
        sessions["sessions"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|s| s["info"]["pid"].is_null()),
        "{sessions}"
    );
}

#[test]
fn a_managed_browsers_throwaway_profile_is_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let s = SessionGuard::new(daemon(), "doors-profile-mode");
    s.ok("goto", json!({ "url": web().url("nav/a.html") }));
    let bindings: Value = serde_json::from_str(
        &std::fs::read_to_string(daemon().home().join("sessions.json")).expect("sessions.json"),
    )
    .expect("json");
    let profile = bindings[s.name.as_str()]["temp_profile"]
        .as_str()
        .expect("a throwaway profile")
        .to_string();
    let mode = std::fs::metadata(&profile)
        .expect("stat")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o700, "{profile}");
}
