//! The plugin author's loop: `plugin dev` reinstalls a rebuilt component,
//! `plugin logs` shows what the plugin logged, `search --provider` asks one
//! provider, `--option` reaches `search-request.options`.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::providers::{plugins_root, wasm_path};
use crate::Daemon;

fn hello_manifest() -> std::path::PathBuf {
    plugins_root().join("examples/hello-provider/plugin.toml")
}

/// Waits until `plugin logs ID` has a line containing `needle`.
fn wait_for_log(d: &Daemon, id: &str, needle: &str) -> Value {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let out = d.ok("default", "plugin_logs", json!({ "id": id, "limit": 1000 }));
        if out["lines"].to_string().contains(needle) {
            return out;
        }
        assert!(Instant::now() < until, "no log line with {needle:?}: {out}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn replace_file(path: &Path, bytes: &[u8]) {
    // Written beside and renamed, as a build tool does: the watcher never
    // sees half a file.
    let tmp = path.with_extension("part");
    std::fs::write(&tmp, bytes).expect("write");
    std::fs::rename(&tmp, path).expect("rename");
}

#[test]
fn plugin_dev_reinstalls_each_rebuild_and_keeps_the_last_good_one() {
    let d = Daemon::start_with_config("").expect("daemon");
    let dir = tempfile::tempdir().expect("tmp");
    let wasm = dir.path().join("hello_provider.wasm");
    let good = std::fs::read(wasm_path("hello_provider")).expect("hello");
    std::fs::write(&wasm, &good).expect("copy");
    let out = d.ok(
        "default",
        "plugin_dev",
        json!({ "path": wasm, "manifest": hello_manifest(), "grant": true }),
    );
    assert_eq!(out["plugin"]["id"], "hello-provider", "{out}");

    // One provider by id, whatever its source; options reach the plugin.
    let found = d.ok(
        "default",
        "search",
        json!({ "query": "dev", "provider": "hello-provider", "options": {"lang": "fr"} }),
    );
    assert_eq!(
        found["meta"]["providers"],
        json!(["hello-provider"]),
        "{found}"
    );
    assert_eq!(found["results"][0]["extra"]["lang"], "fr", "{found}");
    let logs = wait_for_log(&d, "hello-provider", "searching for dev");
    assert_eq!(logs["lines"][0]["level"], "info", "{logs}");
    // --follow prints what is there, then new lines, until its deadline.
    let followed = d.cli(&[
        "plugin",
        "logs",
        "hello-provider",
        "--follow",
        "--timeout-ms",
        "1500",
    ]);
    let text = String::from_utf8_lossy(&followed.stdout);
    assert!(followed.status.success(), "{followed:?}");
    assert_eq!(text.matches("searching for dev").count(), 1, "{text}");

    // A broken build: refused, logged, and the installed one serves on.
    replace_file(&wasm, b"\0asm not really");
    wait_for_log(&d, "hello-provider", "the rebuild was not installed");
    let still = d.ok(
        "default",
        "search",
        json!({ "query": "still", "provider": "hello-provider" }),
    );
    assert!(
        still["results"][0]["title"]
            .as_str()
            .unwrap_or_default()
            .contains("still"),
        "{still}"
    );

    // A good build again: reinstalled.
    replace_file(&wasm, &good);
    wait_for_log(&d, "hello-provider", "reinstalled");
    d.ok("default", "plugin_dev", json!({ "stop": "hello-provider" }));
    d.err(
        "default",
        "plugin_dev",
        json!({ "stop": "hello-provider" }),
        "not_found",
    );
}

#[test]
fn search_by_provider_and_options_are_checked() {
    let d = Daemon::start_with_config("").expect("daemon");
    d.err(
        "default",
        "search",
        json!({ "query": "x", "provider": "nope" }),
        "not_found",
    );
    let e = d.err(
        "default",
        "search",
        json!({ "query": "x", "source": "nope" }),
        "invalid_argument",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("provider id"),
        "{e}"
    );
    let out = d.cli(&["search", "x", "--option", "novalue"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("KEY=VALUE"),
        "{out:?}"
    );
    d.err(
        "default",
        "plugin_logs",
        json!({ "id": "nope" }),
        "not_found",
    );
}
