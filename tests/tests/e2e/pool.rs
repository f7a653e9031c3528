//! Remote browser pools: sessions on two real browserless 2.42 instances on
//! loopback (Debian's Chromium), started here and killed at the end. Spill
//! to the second endpoint, `busy` when both are full, a killed instance
//! fails only its own sessions, a restarted one takes new ones, actions
//! and snapshots work unchanged, and the pool's token shows nowhere.
//! Hostile config and a hostile endpoint need no browserless.
//!
//! Skipped with a printed reason when browserless is not installed
//! (`cargo xtask test` installs it into target/browserless) unless
//! `WEBRIG_EXPECT_POOL` is set: then its absence fails.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webrig_tests::{Daemon, free_port};

use crate::web;

const TOKEN: &str = "pool-token-3f9a1c77e2b04d5e";

/// Where xtask installs browserless.
fn browserless_dir() -> PathBuf {
    match std::env::var_os("WEBRIG_BROWSERLESS_DIR") {
        Some(d) => PathBuf::from(d),
        // target/debug/webrig → target/browserless
        None => webrig_tests::webrig_bin()
            .parent()
            .and_then(Path::parent)
            .map(|t| t.join("browserless"))
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/browserless")),
    }
}

/// Ready to start browserless, or why not (the caller skips, or fails
/// under WEBRIG_EXPECT_POOL).
fn prepare() -> Result<PathBuf, String> {
    let dir = browserless_dir();
    let package = dir.join("node_modules/@browserless.io/browserless/package.json");
    if !package.is_file() {
        return Err(format!("browserless is not installed in {}", dir.display()));
    }
    let node = Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        return Err("node is not installed".into());
    }
    // browserless finds Chromium where Playwright keeps it: under
    // PLAYWRIGHT_BROWSERS_PATH, at chromium-<revision>/chrome-linux64/chrome.
    let browsers: Value = serde_json::from_slice(
        &std::fs::read(dir.join("node_modules/playwright-core/browsers.json"))
            .map_err(|e| format!("playwright-core's browsers.json: {e}"))?,
    )
    .map_err(|e| e.to_string())?;
    let revision = browsers["browsers"]
        .as_array()
        .and_then(|b| b.iter().find(|b| b["name"] == "chromium"))
        .and_then(|b| b["revision"].as_str())
        .ok_or("no chromium revision in browsers.json")?;
    let chrome_dir = dir.join(format!("pw/chromium-{revision}/chrome-linux64"));
    std::fs::create_dir_all(&chrome_dir).map_err(|e| e.to_string())?;
    let browser = std::env::var_os("WEBRIG_BROWSER")
        .map(PathBuf::from)
        .unwrap_or_else(|| "/usr/lib/chromium/chromium".into());
    let link = chrome_dir.join("chrome");
    if std::fs::read_link(&link).ok().as_deref() != Some(browser.as_path()) {
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&browser, &link).map_err(|e| e.to_string())?;
    }
    std::fs::write(
        dir.join("webrig-start.mjs"),
        include_str!("../../pool/browserless-start.mjs"),
    )
    .map_err(|e| e.to_string())?;
    Ok(dir)
}

fn ready_or_skip() -> Option<PathBuf> {
    match prepare() {
        Ok(dir) => Some(dir),
        Err(why) if std::env::var_os("WEBRIG_EXPECT_POOL").is_some() => {
            panic!("WEBRIG_EXPECT_POOL is set but {why}")
        }
        Err(why) => {
            eprintln!(
                "skipping the browserless pool test: {why} (cargo xtask test installs it; \
                 set WEBRIG_EXPECT_POOL=1 to make this a failure)"
            );
            None
        }
    }
}

/// One browserless instance on loopback, in its own process group (its
/// Chromiums die with it).
struct Browserless {
    child: Child,
    port: u16,
    concurrent: u32,
    tmp: tempfile::TempDir,
}

impl Browserless {
    fn start(dir: &Path, port: u16, concurrent: u32) -> Browserless {
        let tmp = tempfile::Builder::new()
            .prefix("webrig-browserless-")
            .tempdir()
            .expect("temp dir");
        let log = std::fs::File::create(tmp.path().join("log")).expect("log file");
        let child = Command::new("node")
            .arg("webrig-start.mjs")
            .current_dir(dir)
            .env("PLAYWRIGHT_BROWSERS_PATH", dir.join("pw"))
            .env("HOST", "127.0.0.1")
            .env("PORT", port.to_string())
            .env("TOKEN", TOKEN)
            .env("CONCURRENT", concurrent.to_string())
            .env("QUEUED", "0")
            // No session time limit, and no refusals for a busy test machine.
            .env("TIMEOUT", "0")
            .env("MAX_CPU_PERCENT", "1000")
            .env("MAX_MEMORY_PERCENT", "1000")
            .env("TMPDIR", tmp.path())
            .env("DEBUG", "browserless*,-*:trace,-*:verbose")
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .process_group(0)
            .spawn()
            .expect("node starts");
        let b = Browserless {
            child,
            port,
            concurrent,
            tmp,
        };
        b.wait_ready();
        b
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn pressure(&self) -> Option<Value> {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(2)))
            .build()
            .into();
        let mut r = agent
            .get(format!("{}/pressure?token={TOKEN}", self.url()))
            .call()
            .ok()?;
        r.body_mut().read_json::<Value>().ok()
    }

    fn wait_ready(&self) {
        let started = Instant::now();
        while self.pressure().is_none() {
            assert!(
                started.elapsed() < Duration::from_secs(40),
                "browserless on port {} did not start:\n{}",
                self.port,
                std::fs::read_to_string(self.tmp.path().join("log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until it counts `n` running sessions (closing is asynchronous).
    fn wait_running(&self, n: u64) {
        let started = Instant::now();
        loop {
            let p = self.pressure().unwrap_or_default();
            if p["pressure"]["running"] == n {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(15),
                "browserless :{} never had {n} running: {p}",
                self.port
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// SIGKILL to browserless's process group and to its Chromiums.
    fn kill(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", self.child.id())])
                .stderr(Stdio::null())
                .status();
            let _ = self.child.wait();
        }
        // Puppeteer starts each Chromium in a process group of its own:
        // find them by their profile under this instance's TMPDIR.
        let marker = self.tmp.path().to_string_lossy().into_owned();
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            if String::from_utf8_lossy(&cmdline).contains(&marker) {
                let _ = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .stderr(Stdio::null())
                    .status();
            }
        }
    }
}

impl Drop for Browserless {
    fn drop(&mut self) {
        self.kill();
    }
}

fn pool_config(endpoints: &[String]) -> String {
    let list: Vec<String> = endpoints.iter().map(|e| format!("{e:?}")).collect();
    format!(
        "[[pool]]\nname = \"bl\"\nengine = \"browserless\"\nendpoints = [{}]\ntoken_file = \"bl.token\"\n",
        list.join(", ")
    )
}

/// A `cdp` pool, round robin, over the same instances' DevTools WebSockets.
fn cdp_pool_config(endpoints: &[String]) -> String {
    let list: Vec<String> = endpoints
        .iter()
        .map(|e| format!("{:?}", format!("{}/chromium", e.replace("http:", "ws:"))))
        .collect();
    format!(
        "[[pool]]\nname = \"rr\"\nengine = \"cdp\"\nstrategy = \"round-robin\"\nendpoints = [{}]\ntoken_file = \"bl.token\"\n",
        list.join(", ")
    )
}

fn write_token(home: &Path, mode: u32) {
    let path = home.join("bl.token");
    std::fs::write(&path, format!("{TOKEN}\n")).expect("token file");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

fn launch(d: &Daemon, session: &str) -> Value {
    d.cmd(session, "launch", json!({ "pool": "bl" }))
}

fn endpoint_of(resp: &Value) -> String {
    assert_eq!(resp["ok"], true, "launch --pool failed: {resp}");
    resp["result"]["session"]["pool"]["endpoint"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn assert_no_token(what: &str, text: &str) {
    assert!(
        !text.contains(TOKEN),
        "the pool token shows in {what}: {text}"
    );
}

#[test]
fn pooled_sessions_spill_fill_fail_alone_and_never_show_the_token() {
    let Some(dir) = ready_or_skip() else { return };
    let started = Instant::now();
    let (pa, pb) = (free_port(), free_port());
    // A takes two sessions, B one: the most room goes first, ties to A.
    let a = Browserless::start(&dir, pa, 2);
    let mut b = Browserless::start(&dir, pb, 1);
    let urls = [a.url(), b.url()];
    let config = format!("{}{}", pool_config(&urls), cdp_pool_config(&urls));
    let d = Daemon::start_with_config(&config).expect("daemon");
    write_token(d.home(), 0o600);

    assert_eq!(endpoint_of(&launch(&d, "p1")), a.url());
    assert_eq!(endpoint_of(&launch(&d, "p2")), a.url(), "A still has room");
    assert_eq!(
        endpoint_of(&launch(&d, "p3")),
        b.url(),
        "A is at its CONCURRENT ({}): the next spills to B",
        a.concurrent
    );

    // A session with a browser is not given a second one.
    let again = d.err("p1", "launch", json!({ "pool": "bl" }), "invalid_argument");
    assert!(
        again.to_string().contains("already has a browser"),
        "{again}"
    );

    // Both full: busy, with a retry-after, and no session left behind.
    let full = d.cli(&["--session", "p4", "launch", "--pool", "bl"]);
    let stderr = String::from_utf8_lossy(&full.stderr).to_string();
    assert_eq!(full.status.code(), Some(5), "busy exits 5: {stderr}");
    assert!(stderr.contains("retry_after=5s"), "{stderr}");
    assert_no_token("the busy error", &stderr);
    let busy = launch(&d, "p4");
    assert_eq!(busy["error"]["code"], "busy", "{busy}");
    assert_no_token("the busy error", &busy.to_string());
    let sessions = d.ok("x", "sessions", json!({}));
    assert!(
        !sessions.to_string().contains("\"p4\""),
        "no half-made session: {sessions}"
    );

    // A click and a snapshot on a pooled session, as on a local one.
    d.ok(
        "p1",
        "goto",
        json!({ "url": web().url("snap/actions.html") }),
    );
    let covered = d.request(json!({
        "session": "p1", "command": "click", "timeout_ms": 1200, "args": { "target": "#under" }
    }));
    assert_eq!(covered["error"]["code"], "timeout", "{covered}");
    d.ok("p1", "click", json!({ "target": "#accept" }));
    d.ok("p1", "click", json!({ "target": "#under" }));
    let log = d.ok("p1", "text", json!({ "target": "#log" }));
    assert_eq!(log["text"], "under", "{log}");
    let snap = d.ok("p1", "snapshot", json!({}));
    assert!(
        snap["text"].as_str().is_some_and(|t| t.contains("button")),
        "{snap}"
    );

    // Where each session runs, and each endpoint's load; no token anywhere.
    let sessions = d.ok("x", "sessions", json!({}));
    let p3 = sessions["sessions"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == "p3"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(p3["info"]["pool"]["pool"], "bl", "{sessions}");
    assert_eq!(p3["info"]["pool"]["endpoint"], b.url(), "{sessions}");
    let status = d.ok("x", "pool_status", json!({}));
    let eps = &status["pools"][0]["endpoints"];
    assert_eq!(eps[0]["running"], 2, "{status}");
    assert_eq!(eps[0]["capacity"], 2, "{status}");
    assert_eq!(eps[0]["health"], "full", "{status}");
    assert_eq!(eps[0]["sessions"], json!(["p1", "p2"]), "{status}");
    assert_eq!(eps[1]["sessions"], json!(["p3"]), "{status}");
    let rr = &status["pools"][1];
    assert_eq!(rr["strategy"], "round-robin", "{status}");
    assert_eq!(
        rr["endpoints"][0]["health"], "ok",
        "a plain CDP endpoint that answers: {status}"
    );
    let human = d.cli(&["pool", "status"]);
    assert!(human.status.success(), "{human:?}");
    for (what, text) in [
        ("sessions", sessions.to_string()),
        ("pool status", status.to_string()),
        (
            "pool status (CLI)",
            String::from_utf8_lossy(&human.stdout).to_string(),
        ),
        (
            "sessions.json",
            std::fs::read_to_string(d.home().join("sessions.json")).unwrap_or_default(),
        ),
        ("the daemon log", d.log()),
    ] {
        assert_no_token(what, &text);
    }

    // B dies in the middle of a command: browser_gone for p3 only.
    let waiting = std::thread::scope(|scope| {
        let running = scope.spawn(|| {
            d.request(json!({
                "session": "p3", "command": "wait", "timeout_ms": 20000,
                "args": { "fn": "window.__never === true" }
            }))
        });
        // Queued or already waiting on the page: either way, B's death
        // must end it as browser_gone.
        d.wait_queued("p3", 1);
        b.kill();
        running.join().expect("joins")
    });
    assert_eq!(waiting["error"]["code"], "browser_gone", "{waiting}");
    assert_no_token("browser_gone", &waiting.to_string());
    d.err("p3", "title", json!({}), "browser_gone");
    let title = d.ok("p1", "title", json!({}));
    assert!(title["title"].is_string(), "p1 on A keeps working: {title}");
    d.ok(
        "p2",
        "goto",
        json!({ "url": web().url("snap/actions.html") }),
    );

    // B back on its port: a new session lands there (A is still full).
    let b = Browserless::start(&dir, pb, 1);
    d.ok("p3", "close", json!({}));
    assert_eq!(endpoint_of(&launch(&d, "p5")), b.url());
    b.wait_running(1);

    for s in ["p1", "p2", "p5"] {
        d.ok(s, "close", json!({}));
    }
    a.wait_running(0);
    b.wait_running(0);

    // A plain CDP pool, round robin: one session on each endpoint in turn.
    let r1 = d.cmd("r1", "launch", json!({ "pool": "rr" }));
    let r2 = d.cmd("r2", "launch", json!({ "pool": "rr" }));
    let (e1, e2) = (endpoint_of(&r1), endpoint_of(&r2));
    assert!(
        e1.ends_with("/chromium") && e2.ends_with("/chromium") && e1 != e2,
        "{r1}\n{r2}"
    );
    assert_no_token("a cdp pool's session", &format!("{r1}{r2}"));
    d.ok("r1", "close", json!({}));
    d.ok("r2", "close", json!({}));
    assert_no_token("the daemon log", &d.log());
    eprintln!("pool test took {:.1}s", started.elapsed().as_secs_f64());
}

/// A loopback endpoint whose `/pressure` says it has room but whose
/// WebSocket upgrade answers 429, as a browserless that another client
/// filled in the meantime.
fn racing_endpoint() -> String {
    serve(|head| {
        if head.starts_with("GET /pressure") {
            let body = r#"{"pressure":{"isAvailable":true,"running":0,"queued":0,"maxConcurrent":1,"maxQueued":0,"reason":""}}"#;
            format!(
                "HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            )
        } else {
            "HTTP/1.1 429 Too Many Requests\r\ncontent-length: 0\r\n\r\n".to_string()
        }
    })
}

/// A loopback endpoint that answers every request with `body`.
fn hostile_endpoint(body: String) -> String {
    serve(move |_| {
        format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
    })
}

/// A loopback server answering each request (its head) with `reply`.
fn serve(reply: impl Fn(&str) -> String + Send + 'static) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { return };
            let mut buf = [0u8; 4096];
            let n = s.read(&mut buf).unwrap_or(0);
            let _ = s.write_all(reply(&String::from_utf8_lossy(&buf[..n])).as_bytes());
        }
    });
    format!("http://127.0.0.1:{port}")
}

#[test]
fn hostile_pool_config_and_endpoints_are_refused_without_harm() {
    let huge = hostile_endpoint(format!("{{\"pressure\": \"{}\"}}", "x".repeat(8 << 20)));
    let d = Daemon::start_with_config(&pool_config(std::slice::from_ref(&huge))).expect("daemon");
    let home = d.home().to_path_buf();

    // A token file others may read, or a symlink: refused, and said why.
    write_token(&home, 0o640);
    let e = d.err("h1", "launch", json!({ "pool": "bl" }), "invalid_argument");
    assert!(
        e["message"]
            .as_str()
            .is_some_and(|m| m.contains("others may read it")),
        "{e}"
    );
    assert_no_token("the error", &e.to_string());
    write_token(&home, 0o600);
    std::fs::rename(home.join("bl.token"), home.join("real.token")).expect("rename");
    std::os::unix::fs::symlink(home.join("real.token"), home.join("bl.token")).expect("symlink");
    let e = d.err("h1", "launch", json!({ "pool": "bl" }), "invalid_argument");
    assert!(
        e["message"].as_str().is_some_and(|m| m.contains("symlink")),
        "{e}"
    );
    std::fs::remove_file(home.join("bl.token")).expect("rm link");
    std::fs::rename(home.join("real.token"), home.join("bl.token")).expect("rename");

    // An 8 MiB /pressure: read only up to the cap, the endpoint counts as
    // down, and the answer is busy; the daemon carries on.
    let e = d.err("h1", "launch", json!({ "pool": "bl" }), "busy");
    assert!(
        e["message"]
            .as_str()
            .is_some_and(|m| m.contains("more than")),
        "{e}"
    );
    let status = d.ok("x", "pool_status", json!({}));
    assert_eq!(
        status["pools"][0]["endpoints"][0]["health"], "down",
        "{status}"
    );
    let sessions = d.ok("x", "sessions", json!({}));
    assert!(!sessions.to_string().contains("\"h1\""), "{sessions}");

    // Room by /pressure, but 429 at the WebSocket upgrade: busy too.
    std::fs::write(home.join("config.toml"), pool_config(&[racing_endpoint()])).expect("config");
    let e = d.err("h2", "launch", json!({ "pool": "bl" }), "busy");
    assert!(
        e["message"]
            .as_str()
            .is_some_and(|m| m.contains("429") && m.contains("retry_after")),
        "{e}"
    );
    assert_no_token("the busy error", &e.to_string());
    let sessions = d.ok("x", "sessions", json!({}));
    assert!(!sessions.to_string().contains("\"h2\""), "{sessions}");

    // A cdp pool whose only endpoint is dead: browser_gone, not busy.
    let dead = format!("ws://127.0.0.1:{}/devtools/browser/x", free_port());
    std::fs::write(
        home.join("config.toml"),
        format!("[[pool]]\nname = \"bl\"\nengine = \"cdp\"\nendpoints = [{dead:?}]\n"),
    )
    .expect("config");
    d.err("h3", "launch", json!({ "pool": "bl" }), "browser_gone");

    // An endpoint that is not http(s)/ws(s), a literal token: the config is
    // refused by name, and the literal token is never echoed.
    for (config, says) in [
        (pool_config(&["file:///etc/passwd".into()]), "is not http(s):// or ws(s)://"),
        (
            "[[pool]]\nname = \"bl\"\nengine = \"cdp\"\nendpoints = [\"ws://127.0.0.1:9\"]\ntoken = \"literal-secret-77\"\n".into(),
            "literal `token` is not allowed",
        ),
    ] {
        std::fs::write(home.join("config.toml"), config).expect("config");
        let e = d.err("x", "pool_status", json!({}), "invalid_argument");
        let text = e.to_string();
        assert!(text.contains(says), "{says}: {e}");
        assert!(!text.contains("literal-secret-77"), "{e}");
    }
    let alive = d.ok("x", "sessions", json!({}));
    assert!(
        alive["sessions"].is_array(),
        "the daemon still answers: {alive}"
    );
}

/// A pool entry's own rules and proxy hold its sessions: `allow` is a
/// layer on top of the launch's (the stricter wins), and `proxy` with
/// `proxy_auth_file` carries the pooled browser's requests with the
/// credentials, answered by the session's guard over the pool's CDP.
#[test]
fn a_pools_policy_and_proxy_hold_its_sessions() {
    let Some(dir) = ready_or_skip() else { return };
    let bl = Browserless::start(&dir, free_port(), 1);
    let proxy = webrig_tests::proxy::TestProxy::start(Some("pooled:pw-7q"));
    let config = format!(
        "{}allow = [\"127.0.0.1:{}\", \"pooled.example\"]\nproxy = {:?}\nproxy_auth_file = \"proxy.auth\"\n",
        pool_config(&[bl.url()]),
        web().port(),
        proxy.url()
    );
    let d = Daemon::start_with_config(&config).expect("daemon");
    write_token(d.home(), 0o600);
    let auth = d.home().join("proxy.auth");
    std::fs::write(&auth, "pooled:pw-7q\n").expect("auth file");
    std::fs::set_permissions(&auth, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    bl.wait_ready();

    let out = launch(&d, "pp");
    assert_eq!(out["ok"], true, "{out}");
    let session = &out["result"]["session"];
    assert_eq!(session["proxy"]["authenticated"], true, "{out}");
    assert!(
        session["policy"]["layers"]
            .as_array()
            .is_some_and(|l| l.iter().any(|l| l["source"] == "[[pool]] bl")),
        "{out}"
    );
    let page = d.ok("pp", "goto", json!({ "url": "http://pooled.example/in" }));
    assert_eq!(page["title"], "via proxy", "{page}");
    assert!(
        proxy
            .hits_for("pooled.example/in")
            .iter()
            .any(|h| h.auth.as_deref() == Some("pooled:pw-7q")),
        "{:?}",
        proxy.hits()
    );
    let e = d.err(
        "pp",
        "goto",
        json!({ "url": "http://elsewhere.example/" }),
        "forbidden",
    );
    assert!(e.to_string().contains("[[pool]] bl"), "{e}");
    assert!(proxy.hits_for("elsewhere.example").is_empty());
    // The fixture web is allowed, and loopback skips the proxy.
    d.ok("pp", "goto", json!({ "url": web().url("index.html") }));
    assert!(
        !d.log().contains("pw-7q"),
        "the proxy password is in the log"
    );
    d.ok("pp", "close", json!({}));
}
