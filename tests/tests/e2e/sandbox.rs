//! The plugin sandbox: real components (built from `plugins/` for
//! wasm32-wasip2) under the host's limits and grants. After every refusal or
//! failure, the same runtime serves the next call.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use webrig::plugins::engine::{Loaded, PluginError, Runtime, wit};
use webrig::plugins::grants::{Effective, Grant};
use webrig::plugins::host::Access;
use webrig::plugins::manifest::{BrowserAccess, Capabilities, PluginLimits};

use crate::web;

fn wasm(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../plugins/target/wasm32-wasip2/release")
        .join(format!("{name}.wasm"));
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (cargo xtask test builds the plugins first)",
            path.display()
        )
    })
}

fn limits(time_ms: u32) -> PluginLimits {
    PluginLimits {
        memory_mb: 32,
        time_ms,
        output_kb: 256,
    }
}

fn grants(hosts: &[&str], browser: BrowserAccess) -> Access {
    let asked = Capabilities {
        http: hosts.iter().map(|s| s.to_string()).collect(),
        browser,
        cache: true,
        ..Default::default()
    };
    Access::new(
        Effective::new(&asked, &Grant::all_of(&asked)),
        Default::default(),
    )
}

fn none() -> Access {
    Access::default()
}

struct Rig {
    runtime: Runtime,
    sandbox: Loaded,
}

impl Rig {
    fn new() -> Rig {
        let runtime = Runtime::new(None).expect("runtime");
        let bytes = wasm("sandbox_guest");
        let sandbox = runtime
            .load(
                &bytes,
                "sandbox",
                webrig::plugins::manifest::Kind::Provider,
                webrig::plugins::wit::v0_1_0::VERSION,
            )
            .expect("loads");
        Rig { runtime, sandbox }
    }

    fn search(
        &self,
        query: &str,
        time_ms: u32,
        g: Access,
    ) -> Result<Result<Vec<wit::ResultItem>, wit::Error>, PluginError> {
        let req = wit::SearchRequest {
            query: query.into(),
            limit: 5,
            options: vec![],
        };
        self.runtime
            .search(&self.sandbox, &limits(time_ms), &g, &req)
    }

    fn still_serves(&self) {
        let ok = self.search("ok", 2000, none()).expect("call").expect("ok");
        assert_eq!(ok[0].title, "fine");
    }
}

#[test]
fn hello_provider_answers_search_and_describe() {
    let runtime = Runtime::new(None).expect("runtime");
    let loaded = runtime
        .load(
            &wasm("hello_provider"),
            "hello",
            webrig::plugins::manifest::Kind::Provider,
            webrig::plugins::wit::v0_1_0::VERSION,
        )
        .expect("loads");
    let info = runtime
        .call(&loaded, &limits(2000), &none(), |p, s| p.call_describe(s))
        .expect("describe");
    assert_eq!(info.id, "hello-provider");
    let req = wit::SearchRequest {
        query: "webrig".into(),
        limit: 2,
        options: vec![],
    };
    let items = runtime
        .call(&loaded, &limits(2000), &none(), |p, s| {
            p.call_search(s, &req)
        })
        .expect("call")
        .expect("search");
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].title, "Hello, webrig #1");
}

/// `behavior` ends with the deadline error within 1 s of a 300 ms deadline,
/// and the runtime serves the next call.
fn ends_at_the_deadline(behavior: &str) {
    let rig = Rig::new();
    let start = Instant::now();
    let err = rig.search(behavior, 300, none()).expect_err("deadline");
    assert!(matches!(err, PluginError::Deadline(300)), "{err}");
    assert!(
        start.elapsed() < Duration::from_millis(1000),
        "{:?}",
        start.elapsed()
    );
    rig.still_serves();
}

#[test]
fn loop_forever_ends_at_the_deadline() {
    ends_at_the_deadline("loop-forever");
}

#[test]
fn a_guest_asleep_in_wasi_ends_at_the_deadline() {
    ends_at_the_deadline("sleep-forever");
}

#[test]
fn memory_bomb_hits_the_memory_limit() {
    let rig = Rig::new();
    let err = rig.search("memory-bomb", 5000, none()).expect_err("limit");
    assert!(matches!(err, PluginError::Memory(32)), "{err}");
    rig.still_serves();
}

#[test]
fn stack_overflow_and_panic_are_traps_not_crashes() {
    let rig = Rig::new();
    let err = rig
        .search("stack-overflow", 5000, none())
        .expect_err("trap");
    assert!(matches!(err, PluginError::Trap(_)), "{err}");
    let err = rig.search("panic", 5000, none()).expect_err("trap");
    assert!(err.to_string().contains("panicked"), "{err}");
    rig.still_serves();
}

#[test]
fn output_over_the_cap_is_refused() {
    let rig = Rig::new();
    let err = rig.search("big-output", 5000, none()).expect_err("cap");
    assert!(matches!(err, PluginError::Output(256)), "{err}");
    rig.still_serves();
}

#[test]
fn http_to_an_unlisted_host_is_denied_no_permission() {
    let rig = Rig::new();
    let r = rig
        .search(
            "fetch:https://example.net/",
            3000,
            grants(&["example.com"], BrowserAccess::None),
        )
        .expect("call");
    assert!(
        matches!(r, Err(wit::Error::Denied(ref m)) if m.contains("example.net")),
        "{r:?}"
    );
    rig.still_serves();
}

#[test]
fn http_to_loopback_and_metadata_without_grant_is_denied_no_permission() {
    let rig = Rig::new();
    for url in [
        "http://127.0.0.1:1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://localhost/",
    ] {
        let r = rig
            .search(
                &format!("fetch:{url}"),
                3000,
                grants(&["*.example.com"], BrowserAccess::None),
            )
            .expect("call");
        assert!(matches!(r, Err(wit::Error::Denied(_))), "{url}: {r:?}");
    }
    rig.still_serves();
}

#[test]
fn http_to_a_granted_loopback_host_works_and_redirects_are_checked() {
    let rig = Rig::new();
    let host = format!("127.0.0.1:{}", web().port());
    let ok = rig
        .search(
            &format!("fetch:{}", web().url("nav/a.html")),
            3000,
            grants(&[&host], BrowserAccess::None),
        )
        .expect("call")
        .expect("fetched");
    assert!(ok[0].title.starts_with("200 "), "{ok:?}");
    // The fixture redirects to another origin (localhost): not granted.
    let r = rig
        .search(
            &format!("fetch:{}", web().url("redirect?to=http://localhost:1/")),
            3000,
            grants(&[&host], BrowserAccess::None),
        )
        .expect("call");
    assert!(
        matches!(r, Err(wit::Error::Denied(ref m)) if m.contains("localhost")),
        "{r:?}"
    );
}

#[test]
fn browser_import_without_grant_is_denied_no_permission() {
    let rig = Rig::new();
    let r = rig.search("browser", 3000, none()).expect("call");
    assert!(matches!(r, Err(wit::Error::Denied(_))), "{r:?}");
}

#[test]
fn a_thousand_calls_keep_working() {
    let rig = Rig::new();
    for _ in 0..1000 {
        rig.still_serves();
    }
}

// Through the daemon: the browser import and the http import held to the
// plugin's grant in every frame, on every port, and for as long as a call.

mod through_the_daemon {
    use serde_json::{Value, json};

    use super::super::plugin_install::{
        install_sandbox_guest, install_sandbox_guest_within, sandbox_guest_dir,
    };
    use crate::{Daemon, web};

    const SESSION: &str = "plugin-sandbox-guest";

    fn search(d: &Daemon, query: &str) -> Value {
        d.ok(
            "default",
            "search",
            json!({ "query": query, "source": "all" }),
        )
    }

    /// The first failure's code and message.
    fn failure(out: &Value) -> (String, String) {
        let f = &out["failures"][0];
        (
            f["code"].as_str().unwrap_or_default().to_string(),
            f["message"].as_str().unwrap_or_default().to_string(),
        )
    }

    fn plugin_tabs(d: &Daemon) -> Vec<Value> {
        let r = d.cmd(SESSION, "tabs", json!({}));
        assert_eq!(r["ok"], true, "{r}");
        r["result"]["tabs"].as_array().cloned().unwrap_or_default()
    }

    #[test]
    fn a_plugin_page_shows_and_loads_only_granted_frames_no_permission() {
        let d = Daemon::start().expect("daemon");
        // Granted 127.0.0.1:PORT; the page frames localhost:PORT (the same
        // server under another name: another origin, not granted).
        let host = format!("127.0.0.1:{}", web().port());
        let _dir = install_sandbox_guest(&d, &format!("http = [\"{host}\"]\nbrowser = \"read\""));
        let out = search(&d, &format!("read:{}", web().url("grants/framed.html")));
        assert_eq!(out["failures"], json!([]), "{out}");
        let hit = &out["results"][0];
        let outline = hit["snippet"].as_str().unwrap_or_default();
        let text = hit["extra"]["text"].as_str().unwrap_or_default();
        let extract = hit["extra"]["extract"].as_str().unwrap_or_default();
        assert!(
            text.contains("probes done"),
            "the page's probes ran: {text}"
        );
        // Reads: nothing of the other host's frame, nor of an opaque one;
        // the page's own frame still shows.
        for read in [outline, text, extract] {
            assert!(!read.contains("SECRET-FRAME-TEXT"), "{read}");
            assert!(!read.contains("OPAQUE-FRAME-TEXT"), "{read}");
        }
        assert!(outline.contains("OWN-FRAME-TEXT"), "{outline}");
        assert!(outline.contains("frame withheld"), "{outline}");
        // Loads: the frame never ran and the image never came, so no
        // screenshot can show them either.
        assert!(
            !text.contains("secret frame loaded"),
            "the ungranted frame loaded: {text}"
        );
        assert!(
            text.contains("other-host image blocked"),
            "the ungranted image loaded: {text}"
        );
        assert_eq!(hit["extra"]["png"], "true", "{out}");
    }

    #[test]
    fn a_local_host_granted_without_a_port_is_refused_at_install_no_permission() {
        let d = Daemon::start().expect("daemon");
        for bare in ["localhost", "127.0.0.1", "192.168.1.10"] {
            let dir = sandbox_guest_dir(&format!("http = [\"{bare}\"]"), 2000);
            let r = d.cmd(
                "default",
                "plugin_install",
                json!({ "path": dir.path(), "grant": true }),
            );
            assert_eq!(r["error"]["code"], "invalid_argument", "{bare}: {r}");
            let msg = r["error"]["message"].as_str().unwrap_or_default();
            assert!(
                msg.contains("capabilities.http") && msg.contains("name the one port"),
                "{bare}: {msg}"
            );
        }
        assert_eq!(d.ok("default", "plugin_list", json!({})), json!([]));
    }

    #[test]
    fn the_daemon_and_browser_devtools_ports_are_never_reachable_no_permission() {
        let d = Daemon::start().expect("daemon");
        let devtools = Devtools::start();
        d.ok(
            "connected",
            "connect",
            json!({ "endpoint": format!("http://127.0.0.1:{}", devtools.port) }),
        );
        // Even granted by exact host and port, the daemon's own port and a
        // connected browser's DevTools port stay shut.
        let daemon_host = format!("127.0.0.1:{}", d.port());
        let devtools_host = format!("127.0.0.1:{}", devtools.port);
        let web_host = format!("127.0.0.1:{}", web().port());
        let _dir = install_sandbox_guest(
            &d,
            &format!(
                "http = [\"{daemon_host}\", \"{devtools_host}\", \"{web_host}\"]\nbrowser = \"read\""
            ),
        );
        for query in [
            format!("fetch:http://{daemon_host}/ping"),
            format!("fetch:http://{devtools_host}/json/list"),
            format!("browse:http://{daemon_host}/ping"),
            format!("browse:http://{devtools_host}/json/list"),
        ] {
            let out = search(&d, &query);
            let (code, msg) = failure(&out);
            assert_eq!(code, "policy_blocked", "{query}: {out}");
            assert!(msg.contains("belongs to webrig"), "{query}: {msg}");
        }
        // The same grant still reaches the fixture web.
        let out = search(&d, &format!("fetch:{}", web().url("nav/a.html")));
        assert_eq!(out["failures"], json!([]), "{out}");
    }

    #[test]
    fn pages_a_call_opened_close_when_it_fails_before_close() {
        let d = Daemon::start().expect("daemon");
        let host = format!("127.0.0.1:{}", web().port());
        let _dir = install_sandbox_guest_within(
            &d,
            &format!("http = [\"{host}\"]\nbrowser = \"read\""),
            5000,
        );
        let url = web().url("nav/a.html");
        // The browser starts once, outside the failing calls' deadlines.
        let out = search(&d, &format!("browse:{url}"));
        assert_eq!(out["failures"], json!([]), "{out}");
        for how in ["err", "panic", "loop"] {
            let out = search(&d, &format!("leave-open:{how}:{url}"));
            assert_ne!(out["failures"], json!([]), "{how}: {out}");
            assert_ne!(failure(&out).0, "circuit_open", "{how}: {out}");
            let tabs = plugin_tabs(&d);
            assert!(tabs.is_empty(), "{how} left pages open: {tabs:?}");
            // A success in between keeps the provider's circuit closed.
            assert_eq!(search(&d, "ok")["failures"], json!([]));
        }
        // A page id from another call is not this call's to read.
        let out = search(&d, "read-page:t1");
        let (_, msg) = failure(&out);
        assert!(msg.contains("no page \"t1\" is open in this call"), "{out}");
    }

    /// A Chromium with a DevTools port, as a user would `connect` to.
    struct Devtools {
        child: std::process::Child,
        port: u16,
        _profile: tempfile::TempDir,
    }

    impl Devtools {
        fn start() -> Devtools {
            let exe = [
                "/usr/lib/chromium/chromium",
                "/usr/bin/chromium",
                "/usr/bin/google-chrome",
            ]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists())
            .expect("a Chromium");
            let profile = tempfile::tempdir().expect("profile");
            let child = std::process::Command::new(exe)
                .args([
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--no-first-run",
                ])
                .arg("--remote-debugging-port=0")
                .arg(format!("--user-data-dir={}", profile.path().display()))
                .arg("about:blank")
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("chromium starts");
            let port_file = profile.path().join("DevToolsActivePort");
            let start = std::time::Instant::now();
            let port = loop {
                if let Some(port) = std::fs::read_to_string(&port_file)
                    .ok()
                    .and_then(|s| s.lines().next().and_then(|l| l.parse().ok()))
                {
                    break port;
                }
                assert!(start.elapsed().as_secs() < 20, "no DevToolsActivePort");
                std::thread::sleep(std::time::Duration::from_millis(20));
            };
            Devtools {
                child,
                port,
                _profile: profile,
            }
        }
    }

    impl Drop for Devtools {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
