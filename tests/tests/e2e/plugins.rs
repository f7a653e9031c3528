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
        let sandbox = runtime.load(&bytes, "sandbox").expect("loads");
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
        .load(&wasm("hello_provider"), "hello")
        .expect("loads");
    let info = runtime
        .call(&loaded, &limits(2000), &none(), |p, s| {
            p.webrig_plugin_provider().call_describe(s)
        })
        .expect("describe");
    assert_eq!(info.id, "hello-provider");
    let req = wit::SearchRequest {
        query: "webrig".into(),
        limit: 2,
        options: vec![],
    };
    let items = runtime
        .call(&loaded, &limits(2000), &none(), |p, s| {
            p.webrig_plugin_provider().call_search(s, &req)
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
