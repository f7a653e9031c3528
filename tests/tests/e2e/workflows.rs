//! Workflows end to end: the runner (parameters, bundles, progress,
//! cancellation, deadlines, grants) and the four first-party workflows on
//! the fixture web's "small internet" (tests/fixtures/web/small).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::plugin_install::{plugins_root, wasm_path};
use super::providers::install_first_party;
use crate::{Daemon, web};

mod design;
mod research;
mod shop;

/// Provider endpoints on the small internet; `swap` replaces one
/// provider's config line (a dead or slow one).
pub fn small_config(swap: &[(&str, String)]) -> String {
    let base = web().url("small");
    let mut lines = vec![
        (
            "web",
            format!("[plugins.web]\nbase_url = \"{base}/news/ddg\"\n"),
        ),
        (
            "community",
            format!(
                "[plugins.community]\nhn_url = \"{base}/news/hn\"\nreddit_url = \"{base}/news/reddit\"\n"
            ),
        ),
        (
            "social",
            format!("[plugins.social]\nbase_url = \"{base}/news/mastodon\"\n"),
        ),
        (
            "shop",
            format!("[plugins.shop]\nsearch_url = \"{base}/shop/search.html?q={{query}}\"\n"),
        ),
    ];
    for (id, text) in swap {
        if let Some(l) = lines.iter_mut().find(|l| l.0 == *id) {
            l.1 = text.clone();
        }
    }
    lines.into_iter().map(|l| l.1).collect()
}

const PROVIDERS: &[&str] = &["web", "community", "social", "shopping"];

/// A daemon with the four providers on the small internet and `workflows`
/// installed (each with --grant).
fn small_daemon(swap: &[(&str, String)], workflows: &[&str]) -> Daemon {
    let d = Daemon::start_with_config(&small_config(swap)).expect("daemon");
    for p in PROVIDERS {
        install_first_party(&d, p);
    }
    for w in workflows {
        install_workflow(&d, w, true);
    }
    d
}

fn workflow_dir(id: &str) -> PathBuf {
    match id {
        "hello-workflow" => plugins_root().join("examples/hello-workflow"),
        other => plugins_root().join("workflows").join(other),
    }
}

fn install_workflow(d: &Daemon, id: &str, grant: bool) -> Value {
    let wasm = match id {
        "hello-workflow" => "hello_workflow".to_string(),
        other => format!("webrig_workflow_{}", other.replace('-', "_")),
    };
    let r = d.cmd(
        "default",
        "plugin_install",
        json!({
            "path": wasm_path(&wasm),
            "manifest": workflow_dir(id).join("plugin.toml"),
            "grant": grant,
        }),
    );
    if grant {
        assert_eq!(r["ok"], true, "{id}: {r}");
    }
    r
}

fn run(d: &Daemon, name: &str, args: Value) -> Value {
    let mut a = args;
    a["name"] = json!(name);
    d.cmd("default", "run_workflow", a)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("read")).expect("json")
}

fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).expect("stat").permissions().mode() & 0o777
}

#[test]
fn hello_workflow_runs_into_an_owner_only_bundle_with_a_manifest_and_meta() {
    let d = small_daemon(&[], &["hello-workflow"]);
    let listed = d.ok("default", "workflows", json!({}));
    assert_eq!(listed[0]["id"], "hello-workflow", "{listed}");
    assert_eq!(listed[0]["params"][0]["name"], "topic", "{listed}");

    let r = run(
        &d,
        "hello-workflow",
        json!({"params": {"topic": "webassembly"}}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let out = &r["result"];
    let bundle = PathBuf::from(out["bundle"].as_str().expect("bundle"));
    assert!(bundle.starts_with(d.home()), "{out}");
    assert_eq!(mode(&bundle), 0o700);
    assert_eq!(mode(&bundle.join("links.md")), 0o600);
    let manifest = read_json(&bundle.join("bundle-manifest.json"));
    assert_eq!(manifest["complete"], true, "{manifest}");
    assert_eq!(manifest["workflow"], "hello-workflow");
    assert_eq!(manifest["ttl_hours"], 72);
    let names: Vec<&str> = manifest["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["name"].as_str())
        .collect();
    assert!(
        names.contains(&"links.md") && names.contains(&"meta.json"),
        "{manifest}"
    );
    let meta = read_json(&bundle.join("meta.json"));
    assert_eq!(meta["stages"][0]["stage"], "search", "{meta}");
    assert!(
        meta["providers"]["web"]["calls"].as_u64() >= Some(1),
        "{meta}"
    );
    let links = std::fs::read_to_string(bundle.join("links.md")).expect("links");
    assert!(links.contains("](http"), "{links}");
}

#[test]
fn the_cli_streams_progress_to_stderr_and_prints_only_the_result() {
    let d = small_daemon(&[], &["hello-workflow"]);
    let out = d.cli(&[
        "run",
        "workflow",
        "hello-workflow",
        "--topic",
        "webassembly",
    ]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains("search"), "progress on stderr: {stderr}");
    assert!(stderr.contains("provider web"), "provider lines: {stderr}");
    assert!(!stdout.contains("provider web"), "stdout: {stdout}");
    let last = stdout.trim_end().lines().last().unwrap_or_default();
    assert!(
        last.starts_with("→ ") && last.ends_with("links.md"),
        "{stdout}"
    );
    assert!(stdout.lines().count() <= 10, "{stdout}");

    // Each format; parameters may come before or after the runner's options.
    let md = d.cli(&[
        "run",
        "workflow",
        "hello-workflow",
        "--format",
        "md",
        "--topic",
        "wasm",
    ]);
    assert!(
        String::from_utf8_lossy(&md.stdout).starts_with("# wasm"),
        "{md:?}"
    );
    let path = d.cli(&[
        "run",
        "workflow",
        "hello-workflow",
        "--topic",
        "wasm",
        "--format",
        "path",
    ]);
    let text = String::from_utf8_lossy(&path.stdout);
    let dir = PathBuf::from(text.lines().next().unwrap_or_default());
    assert!(dir.join("bundle-manifest.json").is_file(), "{text}");
    let ctx = d.cli(&[
        "run",
        "workflow",
        "hello-workflow",
        "--topic",
        "wasm",
        "--format=context",
    ]);
    let v: Value = serde_json::from_slice(&ctx.stdout).expect("context is JSON");
    assert_eq!(v["context"]["topic"], "wasm", "{v}");

    // The workflow's own help, from what it declares.
    let help = d.cli(&["run", "workflow", "hello-workflow", "--help"]);
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(
        text.contains("--topic") && text.contains("--limit"),
        "{text}"
    );
}

#[test]
fn bad_input_is_refused_before_anything_runs() {
    let d = small_daemon(&[], &["hello-workflow"]);
    let e = run(&d, "nope", json!({}));
    assert_eq!(e["error"]["code"], "not_found", "{e}");
    assert!(
        e["error"]["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("hello-workflow"),
        "{e}"
    );
    for (params, named) in [
        (json!({}), "--topic"),
        (json!({"topic": "x", "colour": "red"}), "--colour"),
        (json!({"topic": "x", "limit": "many"}), "--limit"),
        (json!({"topic": ["a", "b"]}), "--topic"),
    ] {
        let e = run(&d, "hello-workflow", json!({ "params": params }));
        assert_eq!(e["error"]["code"], "invalid_argument", "{e}");
        assert!(
            e["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains(named),
            "{e}"
        );
    }
    for bad in [
        json!({"ttl_hours": 169}),
        json!({"now": "yesterday"}),
        json!({"input": "[1]"}),
    ] {
        let mut args = bad.clone();
        args["params"] = json!({"topic": "x"});
        let e = run(&d, "hello-workflow", args);
        assert_eq!(e["error"]["code"], "invalid_argument", "{bad}: {e}");
    }
    // Nothing was left behind by the refused runs (bundles are made after
    // the parameters pass; a bad TTL makes none).
    let listed = d.ok("default", "artifacts_list", json!({}));
    assert_eq!(listed, json!([]), "{listed}");
}

/// The test guest (plugins/tests/workflow-guest), installed.
fn with_guest(swap: &[(&str, String)]) -> Daemon {
    guest_daemon(&small_config(swap))
}

/// A daemon with `config`, the web provider and the test guest installed.
fn guest_daemon(config: &str) -> Daemon {
    let d = Daemon::start_with_config(config).expect("daemon");
    install_first_party(&d, "web");
    let r = d.cmd(
        "default",
        "plugin_install",
        json!({
            "path": wasm_path("workflow_guest"),
            "manifest": plugins_root().join("tests/workflow-guest/plugin.toml"),
            "grant": true,
        }),
    );
    assert_eq!(r["ok"], true, "{r}");
    d
}

fn slow_web(ms: u64) -> (&'static str, String) {
    let base = web().url(&format!("delay/{ms}/small"));
    (
        "web",
        format!("[plugins.web]\nbase_url = \"{base}/news/ddg\"\n"),
    )
}

/// The only bundle under the daemon's artifacts folder.
fn only_bundle(d: &Daemon) -> PathBuf {
    let listed = d.ok("default", "artifacts_list", json!({}));
    let runs = listed.as_array().expect("list");
    assert_eq!(runs.len(), 1, "{listed}");
    PathBuf::from(runs[0]["path"].as_str().expect("path"))
}

#[test]
fn a_spinning_guest_ends_at_its_cpu_budget_and_a_trap_leaves_an_incomplete_bundle() {
    let d = with_guest(&[]);
    let started = std::time::Instant::now();
    let e = run(&d, "workflow-guest", json!({"params": {"mode": "loop"}}));
    assert_eq!(e["error"]["code"], "plugin_failed", "{e}");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("CPU budget"),
        "{e}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let bundle = only_bundle(&d);
    assert_eq!(
        read_json(&bundle.join("bundle-manifest.json"))["complete"],
        false
    );
    let meta = read_json(&bundle.join("meta.json"));
    assert_eq!(meta["error"]["code"], "plugin_failed", "{meta}");
    assert!(
        e["error"]["hint"]
            .as_str()
            .unwrap_or_default()
            .contains(&*bundle.to_string_lossy()),
        "{e}"
    );

    let e = run(&d, "workflow-guest", json!({"params": {"mode": "trap"}}));
    assert_eq!(e["error"]["code"], "plugin_failed", "{e}");
    let runs = d.ok("default", "artifacts_list", json!({}));
    assert!(
        runs.as_array()
            .expect("runs")
            .iter()
            .all(|r| r["complete"] == false),
        "{runs}"
    );
    // The daemon serves on, and cleanup takes the incomplete runs.
    let cleaned = d.ok("default", "artifacts_cleanup", json!({}));
    assert_eq!(
        cleaned["removed"].as_array().map(Vec::len),
        Some(2),
        "{cleaned}"
    );
}

#[test]
fn time_waiting_on_providers_is_not_guest_cpu_but_counts_against_the_deadline() {
    // Three searches of 400 ms each: 1.2 s in host calls against a 300 ms
    // CPU budget, and the run completes.
    let d = with_guest(&[slow_web(400)]);
    let r = run(
        &d,
        "workflow-guest",
        json!({"params": {"mode": "search", "rounds": 3}}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let meta =
        read_json(&PathBuf::from(r["result"]["bundle"].as_str().expect("b")).join("meta.json"));
    assert!(meta["waited_ms"].as_u64() >= Some(1100), "{meta}");
    assert!(meta["guest_ms"].as_u64() < Some(300), "{meta}");

    // The same run with a 1 s deadline ends at the deadline, incomplete.
    let started = std::time::Instant::now();
    let e = run(
        &d,
        "workflow-guest",
        json!({"params": {"mode": "search", "rounds": 3}, "timeout_ms": 1000}),
    );
    assert_eq!(e["error"]["code"], "timeout", "{e}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn ctrl_c_cancels_the_run_in_the_daemon_and_marks_the_bundle_incomplete() {
    let d = with_guest(&[slow_web(3000)]);
    let mut child = std::process::Command::new(webrig_tests::webrig_bin())
        .args([
            "run",
            "workflow",
            "workflow-guest",
            "--mode",
            "search",
            "--rounds",
            "5",
        ])
        .env("WEBRIG_HOME", d.home())
        .env("WEBRIG_PORT", d.port().to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("cli");
    // Wait until the run is under way (its bundle is listed: the folder
    // exists a moment before its first manifest), then interrupt.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while d
        .ok("default", "artifacts_list", json!({}))
        .as_array()
        .is_none_or(Vec::is_empty)
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the run never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let _ = child.wait();
    // The daemon notices within its 2 s keep-alive and ends the run well
    // before the 15 s its searches would take.
    let bundle = only_bundle(&d);
    let meta_path = bundle.join("meta.json");
    let until = std::time::Instant::now() + std::time::Duration::from_secs(8);
    while !meta_path.exists() {
        assert!(
            std::time::Instant::now() < until,
            "the run was not cancelled"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let manifest = read_json(&bundle.join("bundle-manifest.json"));
    assert_eq!(manifest["complete"], false, "{manifest}");
    let meta = read_json(&meta_path);
    assert!(
        meta["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("cancelled"),
        "{meta}"
    );
}

#[test]
fn bundle_names_are_confined_and_the_browser_needs_its_grant() {
    let d = with_guest(&[]);
    let r = run(&d, "workflow-guest", json!({"params": {"mode": "escape"}}));
    assert_eq!(r["ok"], true, "{r}");
    let refused = r["result"]["context"].as_array().expect("refused").len();
    assert_eq!(
        refused, 5,
        "all but link/x.txt (no link exists, a plain folder is made): {r}"
    );
    assert!(!Path::new("/tmp/escape.txt").exists());
    let bundle = PathBuf::from(r["result"]["bundle"].as_str().expect("b"));
    assert!(!bundle.parent().expect("p").join("escape.txt").exists());

    let e = run(
        &d,
        "workflow-guest",
        json!({"params": {"mode": "browse", "url": web().url("index.html")}}),
    );
    assert_eq!(e["error"]["code"], "forbidden", "{e}");
    let e = run(
        &d,
        "workflow-guest",
        json!({"params": {"mode": "download", "url": web().url("index.html")}}),
    );
    assert_eq!(e["error"]["code"], "forbidden", "{e}");
}

/// Installs first-party workflow `id` from a copy of its manifest that
/// also names the fixture web's host:port (a loopback host only an exact
/// rule opens, as a user testing against a local site would write).
fn install_for_fixture(d: &Daemon, id: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tmp");
    let text = std::fs::read_to_string(workflow_dir(id).join("plugin.toml")).expect("manifest");
    let local = format!("127.0.0.1:{}", web().port());
    let text = text.replace("http = [\"*\"]", &format!("http = [\"*\", \"{local}\"]"));
    assert!(text.contains(&local), "{id} asks for http = [\"*\"]");
    let manifest = dir.path().join("plugin.toml");
    std::fs::write(&manifest, text).expect("write");
    let wasm = format!("webrig_workflow_{}", id.replace('-', "_"));
    let r = d.cmd(
        "default",
        "plugin_install",
        json!({ "path": wasm_path(&wasm), "manifest": manifest, "grant": true }),
    );
    assert_eq!(r["ok"], true, "{id}: {r}");
    dir
}

/// Opens a bundle's report.html in the shared browser: it renders, has
/// content, and every image in it loaded.
fn check_report_renders(report: &Path, min_images: usize, min_svgs: u64) {
    let d = crate::daemon();
    let s = crate::SessionGuard::new(d, &format!("report-{}", std::process::id()));
    let url = format!("file://{}", report.display());
    s.ok("goto", json!({ "url": url }));
    let v = s.ok(
        "eval",
        json!({ "script": "({ text: document.body.innerText.length, imgs: [...document.images].map(i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0]), svgs: document.querySelectorAll('svg').length })" }),
    );
    let v = &v["value"];
    assert!(v["text"].as_u64() > Some(200), "{report:?}: {v}");
    let imgs = v["imgs"].as_array().expect("imgs");
    assert!(imgs.len() >= min_images, "{report:?}: {v}");
    assert!(v["svgs"].as_u64() >= Some(min_svgs), "{report:?}: {v}");
    for img in imgs {
        assert_eq!(img[1], true, "{report:?}: image {} did not load", img[0]);
    }
}

fn files_of(out: &Value) -> Vec<String> {
    out["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["name"].as_str().map(str::to_string))
        .collect()
}

/// A bundle file with what changes between runs redacted: the fixture
/// web's port, the run id, times of retrieval and timings.
fn redacted(text: &str, run_id: &str) -> String {
    let text = text
        .replace(&web().port().to_string(), "PORT")
        .replace(run_id, "RUN_ID");
    redact_fields(&text)
}

/// `"…_ms": 123` and `"retrieved_at": "…"` → fixed values (no regex crate
/// in the tests: a small scan).
fn redact_fields(text: &str) -> String {
    text.lines()
        .map(|l| {
            let t = l.trim_start();
            let key_ms =
                t.starts_with('"') && t.split('"').nth(1).is_some_and(|k| k.ends_with("_ms"));
            let key_at = t.starts_with("\"retrieved_at\"") || t.starts_with("\"created_at\"");
            if key_ms || key_at {
                let indent = &l[..l.len() - t.len()];
                let key = t.split(':').next().unwrap_or_default();
                let comma = if t.trim_end().ends_with(',') { "," } else { "" };
                format!("{indent}{key}: \"[redacted]\"{comma}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

const NOW: &str = "2026-12-01T12:00:00Z";

#[test]
fn a_stream_that_is_sending_outlives_the_idle_timeout() {
    // Four searches of 1 s each stream progress for ~4 s against an idle
    // timeout of 1.5 s: once, every run longer than idle_timeout_ms died
    // with "a bad chunk from the daemon".
    let mut config = small_config(&[slow_web(1000)]);
    config.push_str("[limits]\nidle_timeout_ms = 1500\n");
    let d = guest_daemon(&config);
    let started = std::time::Instant::now();
    let out = d.cli(&[
        "run",
        "workflow",
        "workflow-guest",
        "--mode",
        "search",
        "--rounds",
        "4",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        started.elapsed() > std::time::Duration::from_millis(3500),
        "the run streamed past the idle timeout: {:?}",
        started.elapsed()
    );
    assert!(
        !stderr.contains("bad chunk") && !stderr.contains("connection lost"),
        "{stderr}"
    );
}

#[test]
fn a_workflow_that_refuses_its_input_leaves_no_bundle_and_list_says_what_runs_were() {
    let d = with_guest(&[]);
    // The guest itself refuses (a mode it does not know), seven times.
    for _ in 0..7 {
        let e = run(&d, "workflow-guest", json!({"params": {"mode": "bogus"}}));
        assert_eq!(e["error"]["code"], "invalid_argument", "{e}");
    }
    let listed = d.ok("default", "artifacts_list", json!({}));
    assert_eq!(listed, json!([]), "typos leave no folders: {listed}");
    // A bad --format names the valid ones.
    let out = d.cli(&[
        "run",
        "workflow",
        "workflow-guest",
        "--mode",
        "search",
        "--format",
        "yaml",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("compact") && stderr.contains("context") && stderr.contains("path"),
        "{stderr}"
    );
    // A run that worked is listed with what it was about and how it ended.
    let d = small_daemon(&[], &["hello-workflow"]);
    let r = run(
        &d,
        "hello-workflow",
        json!({"params": {"topic": "otters in rivers"}}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let listed = d.ok("default", "artifacts_list", json!({}));
    assert_eq!(listed[0]["subject"], "otters in rivers", "{listed}");
    assert!(listed[0]["status"].is_string(), "{listed}");
    let out = d.cli(&["artifacts", "list"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("\"otters in rivers\""),
        "{out:?}"
    );
}
/// Tabs of `session`, as `sessions` reports them (None when it is busy or
/// absent).
fn tab_count(d: &Daemon, session: &str) -> Option<u64> {
    let list = d.ok("default", "sessions", json!({}));
    list["sessions"]
        .as_array()?
        .iter()
        .find(|s| s["name"] == session)?["info"]["tabs"]
        .as_u64()
}

#[test]
fn ctrl_c_while_a_page_loads_cancels_at_once_and_leaves_no_tab() {
    let d = Daemon::start_with_config(&small_config(&[])).expect("daemon");
    // The test guest, allowed the browser and the fixture web.
    let dir = tempfile::tempdir().expect("tmp");
    let text = std::fs::read_to_string(plugins_root().join("tests/workflow-guest/plugin.toml"))
        .expect("manifest")
        .replace(
            "http = []",
            &format!("http = [\"127.0.0.1:{}\"]", web().port()),
        )
        .replace("browser = \"none\"", "browser = \"read\"")
        .replace("time_ms = 300", "time_ms = 5000");
    let manifest = dir.path().join("plugin.toml");
    std::fs::write(&manifest, text).expect("write");
    let r = d.cmd(
        "default",
        "plugin_install",
        json!({ "path": wasm_path("workflow_guest"), "manifest": manifest, "grant": true }),
    );
    assert_eq!(r["ok"], true, "{r}");
    // A page that answers after a minute: the guest waits in browser.open.
    let mut child = std::process::Command::new(webrig_tests::webrig_bin())
        .args([
            "run",
            "workflow",
            "workflow-guest",
            "--mode",
            "browse",
            "--url",
        ])
        .arg(web().url("delay/60000/index.html"))
        .env("WEBRIG_HOME", d.home())
        .env("WEBRIG_PORT", d.port().to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("cli");
    let tabs_open = |d: &Daemon| -> u64 {
        let listed = d.ok("default", "sessions", json!({}));
        listed["sessions"]
            .as_array()
            .map(|l| {
                l.iter()
                    .map(|s| s["info"]["tabs"].as_u64().unwrap_or(0))
                    .sum()
            })
            .unwrap_or(0)
    };
    // Wait until the page is opening (a plugin tab exists), then Ctrl-C.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while tabs_open(&d) == 0 {
        assert!(
            std::time::Instant::now() < until,
            "the page never started to open"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let _ = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let interrupted = std::time::Instant::now();
    let _ = child.wait();
    let bundle = only_bundle(&d);
    let meta_path = bundle.join("meta.json");
    while !meta_path.exists() {
        assert!(
            interrupted.elapsed() < std::time::Duration::from_secs(3),
            "the run went on after Ctrl-C"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let cancelled_in = interrupted.elapsed();
    assert!(
        cancelled_in < std::time::Duration::from_millis(1500),
        "cancelled after {cancelled_in:?}"
    );
    let meta = read_json(&meta_path);
    assert!(
        meta["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("cancelled"),
        "{meta}"
    );
    // Its tab is gone too.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while tabs_open(&d) > 0 {
        assert!(std::time::Instant::now() < until, "a tab was left open");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
