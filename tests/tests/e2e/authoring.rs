//! The plugin author's loop: `plugin dev` reinstalls a rebuilt component,
//! `plugin logs` shows what the plugin logged, `search --provider` asks one
//! provider, `--option` reaches `search-request.options`.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::plugin_install::{plugins_root, wasm_path};
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

/// Builds the crate in `dir` for wasm32-wasip2 (sharing the plugins'
/// target folder, so only the new crate and its vendored SDK compile).
fn build_component(dir: &Path) -> std::path::PathBuf {
    let target = plugins_root().join("target");
    let out = std::process::Command::new("cargo")
        .args([
            "build",
            "--release",
            "--target",
            "wasm32-wasip2",
            "--offline",
        ])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(dir)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo build in {dir:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    target.join("wasm32-wasip2/release/scaffold_demo.wasm")
}

/// `plugin new` → build → `plugin dev` → `search --provider` → edit the
/// source → rebuild → the daemon reinstalls it → the edit shows.
#[test]
fn a_scaffolded_provider_builds_installs_and_reloads_on_edit() {
    let d = Daemon::start_with_config(&format!(
        "[plugins.scaffold-demo]\nbase_url = \"{}\"\n",
        crate::web().url("scaffold")
    ))
    .expect("daemon");
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path().join("scaffold-demo");
    let out = d.cli(&[
        "plugin",
        "new",
        "scaffold-demo",
        "--dir",
        &dir.display().to_string(),
    ]);
    assert!(out.status.success(), "{out:?}");
    for f in ["Cargo.toml", "plugin.toml", "src/lib.rs", "README.md"] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    // The scaffold's own test runs natively against its mock.
    let tested = std::process::Command::new("cargo")
        .args(["test", "--offline", "--lib"])
        .env("CARGO_TARGET_DIR", plugins_root().join("target"))
        .current_dir(&dir)
        .output()
        .expect("cargo test");
    assert!(
        tested.status.success(),
        "{}",
        String::from_utf8_lossy(&tested.stderr)
    );

    let wasm = build_component(&dir);
    d.ok(
        "default",
        "plugin_dev",
        json!({ "path": wasm, "manifest": dir.join("plugin.toml"), "grant": true }),
    );
    let found = d.ok(
        "default",
        "search",
        json!({ "query": "agents", "provider": "scaffold-demo" }),
    );
    assert_eq!(
        found["results"][0]["snippet"], "from the scaffold fixture",
        "{found}"
    );

    let lib = dir.join("src/lib.rs");
    let src = std::fs::read_to_string(&lib).expect("lib.rs");
    let edited = src.replace(
        r#"snippet: v["snippet"].as_str().unwrap_or_default().into(),"#,
        r#"snippet: "edited in the dev loop".into(),"#,
    );
    assert_ne!(src, edited, "the template's snippet line moved");
    std::fs::write(&lib, edited).expect("edit");
    build_component(&dir);
    wait_for_log(&d, "scaffold-demo", "reinstalled");
    let found = d.ok(
        "default",
        "search",
        json!({ "query": "agents", "provider": "scaffold-demo" }),
    );
    assert_eq!(
        found["results"][0]["snippet"], "edited in the dev loop",
        "{found}"
    );
}
