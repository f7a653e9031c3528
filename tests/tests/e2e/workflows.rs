//! Workflows end to end: the runner (parameters, bundles, progress,
//! cancellation, deadlines, grants) and the four first-party workflows on
//! the fixture web's "small internet" (tests/fixtures/web/small).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::providers::{install_first_party, plugins_root, wasm_path};
use crate::{Daemon, web};

/// Provider endpoints on the small internet; `swap` replaces one
/// provider's config line (a dead or slow one).
fn small_config(swap: &[(&str, String)]) -> String {
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
    // Wait until the run is under way (its bundle exists), then interrupt.
    let arts = d.home().join("artifacts");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::fs::read_dir(&arts).map_or(true, |mut r| r.next().is_none()) {
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

#[test]
fn inspiredesign_reads_three_styles_ranks_them_against_the_brief_and_writes_a_visual_report() {
    let d = small_daemon(&[], &[]);
    let _manifest = install_for_fixture(&d, "inspiredesign");
    let urls: Vec<String> = ["brutal", "calm", "neon"]
        .iter()
        .map(|p| web().url(&format!("small/design/{p}.html")))
        .collect();
    let r = run(
        &d,
        "inspiredesign",
        json!({"params": {"brief": "calm editorial serif with warm natural colours", "url": urls}}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let out = &r["result"];
    let bundle = PathBuf::from(out["bundle"].as_str().expect("bundle"));
    let refs = read_json(&bundle.join("references.json"));
    let first = refs
        .as_array()
        .and_then(|a| a.first())
        .cloned()
        .unwrap_or(refs.clone());
    assert!(
        first.to_string().contains("calm.html"),
        "calm ranks first: {refs}"
    );
    let tokens = read_json(&bundle.join("tokens.json")).to_string();
    for colour in ["#2f5d3a", "#ffe600", "#ff2bd6"] {
        assert!(
            tokens.contains(colour),
            "{colour} (one per reference) in tokens.json"
        );
    }
    for n in 1..=3 {
        let shot = bundle.join(format!("screenshots/ref-{n}.png"));
        let bytes = std::fs::read(&shot).expect("screenshot");
        assert_eq!(&bytes[1..4], b"PNG", "{shot:?}");
    }
    assert!(
        std::fs::read_to_string(bundle.join("design-brief.md"))
            .expect("md")
            .contains("calm")
    );
    check_report_renders(&bundle.join("report.html"), 3, 0);

    // One reference the workflow may not open: a failure named, the run goes on.
    let r = run(
        &d,
        "inspiredesign",
        json!({"params": {"brief": "neon", "url": [urls[2].clone(), "http://10.255.255.1/x.html"]}}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let failures = r["result"]["failures"].to_string();
    assert!(failures.contains("10.255.255.1"), "{failures}");
}

fn files_of(out: &Value) -> Vec<String> {
    out["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["name"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn shopping_compares_three_stores_within_budget_and_renders_its_report() {
    let d = small_daemon(&[], &["shopping"]);
    let r = run(
        &d,
        "shopping",
        json!({"params": {"query": "trail running shoes", "budget": "150"}, "now": NOW}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let out = &r["result"];
    let files = files_of(out);
    for f in [
        "deals.md",
        "offers.json",
        "comparison.csv",
        "report.html",
        "meta.json",
    ] {
        assert!(files.iter().any(|n| n == f), "{f} in {files:?}");
    }
    let bundle = PathBuf::from(out["bundle"].as_str().expect("bundle"));
    let offers = read_json(&bundle.join("offers.json"));
    let list = offers["offers"]
        .as_array()
        .or(offers.as_array())
        .expect("offers")
        .clone();
    assert!(list.len() >= 2, "{offers}");
    for o in &list {
        assert_eq!(o["currency"], "USD", "{o}");
        assert!(o["total"].as_f64().unwrap_or(f64::MAX) <= 150.0, "{o}");
        assert!(o["price"].as_f64() > Some(0.0), "{o}");
    }
    let csv = std::fs::read_to_string(bundle.join("comparison.csv")).expect("csv");
    assert_eq!(csv.lines().count(), list.len() + 1, "{csv}");
    assert!(out["summary"].as_str().unwrap_or_default().lines().count() <= 10);
    check_report_renders(&bundle.join("report.html"), 0, 1);
    let deals = std::fs::read_to_string(bundle.join("deals.md")).expect("deals");
    insta::assert_snapshot!(
        "shopping_deals",
        redacted(&deals, out["run_id"].as_str().unwrap_or("-"))
    );

    // A budget nothing fits: a clear error, and the bundle is not complete.
    let e = run(
        &d,
        "shopping",
        json!({"params": {"query": "trail running shoes", "budget": "1"}}),
    );
    assert_eq!(e["error"]["code"], "not_found", "{e}");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("budget"),
        "{e}"
    );
}

#[test]
fn product_video_downloads_images_into_the_bundle_and_storyboards_them() {
    let d = small_daemon(&[], &[]);
    let _m = install_for_fixture(&d, "product-video");
    let url = web().url("small/shop/store-a/products/ridgeline-trail-runner-2.html");
    let r = run(
        &d,
        "product-video",
        json!({"params": {"product_url": url}, "now": NOW}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let out = &r["result"];
    let bundle = PathBuf::from(out["bundle"].as_str().expect("bundle"));
    let files = files_of(out);
    for f in ["product.json", "copy.md", "features.md", "storyboard.json"] {
        assert!(files.iter().any(|n| n == f), "{f} in {files:?}");
    }
    let images: Vec<&String> = files.iter().filter(|f| f.starts_with("images/")).collect();
    assert!(
        images.len() >= 3,
        "every image the product lists: {files:?}"
    );
    for i in &images {
        let bytes = std::fs::read(bundle.join(i)).expect("image");
        assert_eq!(&bytes[1..4], b"PNG", "{i}");
        assert_eq!(mode(&bundle.join(i)), 0o600);
    }
    let board = read_json(&bundle.join("storyboard.json"));
    let shots = board["shots"]
        .as_array()
        .or(board.as_array())
        .expect("shots")
        .clone();
    let total: f64 = shots.iter().filter_map(|s| s["duration"].as_f64()).sum();
    assert!((total - 30.0).abs() < 0.01, "{board}");
    for s in &shots {
        if let Some(img) = s["image"].as_str() {
            assert!(images.iter().any(|i| *i == img), "{img} was downloaded");
        }
    }
    let run_id = out["run_id"].as_str().unwrap_or("-");
    let copy = std::fs::read_to_string(bundle.join("copy.md")).expect("copy");
    insta::assert_snapshot!("product_video_copy", redacted(&copy, run_id));
    insta::assert_snapshot!(
        "product_video_storyboard",
        redacted(
            &serde_json::to_string_pretty(&board).unwrap_or_default(),
            run_id
        )
    );
    // Both or neither of --product-url / --product-name: refused.
    let e = run(&d, "product-video", json!({"params": {}}));
    assert_eq!(e["error"]["code"], "invalid_argument", "{e}");
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
fn research_reads_dates_from_the_pages_drops_shells_dedupes_and_passes_the_gate() {
    let d = small_daemon(&[], &["research"]);
    let r = run(
        &d,
        "research",
        json!({"params": {"topic": "webassembly sandboxing", "sources": "all", "fetch": 20}, "now": NOW}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let out = &r["result"];
    assert_eq!(out["status"], "pass", "{out}");
    let bundle = PathBuf::from(out["bundle"].as_str().expect("bundle"));
    let run_id = out["run_id"].as_str().expect("run id");
    let records = read_json(&bundle.join("records.json"));
    let list = records["records"]
        .as_array()
        .or(records.as_array())
        .expect("records")
        .clone();
    assert_eq!(list.len(), 10, "{records}");
    // No record is dated "now", and the article from 2023 is out of the
    // 30-day timebox, not ranked as recent.
    let text = records.to_string();
    assert!(
        !text.contains("2026-12-01T12:00"),
        "a record dated at retrieval: {text}"
    );
    assert!(!text.contains("2023-"), "{text}");
    let meta = read_json(&bundle.join("meta.json"));
    assert!(
        meta["concurrency"]["provider_calls_max"].as_u64() >= Some(2),
        "{meta}"
    );
    for p in ["web", "community", "social"] {
        assert!(
            meta["providers"][p]["calls"].as_u64() >= Some(1),
            "{p}: {meta}"
        );
    }
    insta::assert_snapshot!(
        "research_summary",
        redacted(out["summary"].as_str().unwrap_or_default(), run_id)
    );
    let report = std::fs::read_to_string(bundle.join("report.md")).expect("report");
    insta::assert_snapshot!("research_report", redacted(&report, run_id));

    // Over ten years the 2023 article is back, and never ranked as recent.
    let r = run(
        &d,
        "research",
        json!({"params": {"topic": "webassembly sandboxing", "days": 3650, "fetch": 20, "sources": "all"}, "now": NOW}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let bundle = PathBuf::from(r["result"]["bundle"].as_str().expect("bundle"));
    let records = read_json(&bundle.join("records.json"));
    let list = records["records"]
        .as_array()
        .or(records.as_array())
        .expect("records")
        .clone();
    let old = list
        .iter()
        .position(|r| r.to_string().contains("2023-"))
        .expect("the 2023 article is in a ten-year timebox");
    assert_eq!(list[old]["recent"], false, "{}", list[old]);
    for above in &list[..old] {
        assert_eq!(
            above["recent"], true,
            "only recent records rank above it: {above}"
        );
    }
}

#[test]
fn research_timebox_edges_are_invalid_input() {
    let d = small_daemon(&[], &["research"]);
    for params in [
        json!({"topic": "x", "days": 0}),
        json!({"topic": "x", "from": "2026-11-20", "to": "2026-11-10"}),
        json!({"topic": "x", "to": "2026-12-02"}),
        json!({"topic": "x", "days": 3, "from": "2026-11-01"}),
    ] {
        let e = run(&d, "research", json!({"params": params, "now": NOW}));
        assert_eq!(e["error"]["code"], "invalid_argument", "{params}: {e}");
    }
}

#[test]
fn research_with_a_failing_and_a_slow_provider_still_reports_and_names_them() {
    let base = web().url("small");
    let slow = web().url("delay/20000/small");
    let d = small_daemon(
        &[
            (
                "community",
                format!(
                    "[plugins.community]\nhn_url = \"{}/news/hn\"\nreddit_url = \"{}/news/reddit\"\n",
                    web().url("status/500/small"),
                    web().url("status/500/small")
                ),
            ),
            (
                "social",
                format!("[plugins.social]\nbase_url = \"{slow}/news/mastodon\"\n"),
            ),
            (
                "web",
                format!("[plugins.web]\nbase_url = \"{base}/news/ddg\"\n"),
            ),
        ],
        &["research"],
    );
    let started = std::time::Instant::now();
    let r = run(
        &d,
        "research",
        json!({"params": {"topic": "webassembly sandboxing", "sources": "all"}, "now": NOW}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    let out = &r["result"];
    let failures = out["failures"].to_string();
    assert!(
        failures.contains("community") && failures.contains("social"),
        "{failures}"
    );
    let bundle = PathBuf::from(out["bundle"].as_str().expect("bundle"));
    let report = std::fs::read_to_string(bundle.join("report.md")).expect("report");
    assert!(
        report.contains("community") && report.contains("social"),
        "failures named in the report: {report}"
    );

    // Every provider down: an error naming each, no complete bundle.
    let dead = "http://127.0.0.1:9".to_string();
    let d = small_daemon(
        &[
            ("web", format!("[plugins.web]\nbase_url = \"{dead}\"\n")),
            (
                "community",
                format!("[plugins.community]\nhn_url = \"{dead}\"\nreddit_url = \"{dead}\"\n"),
            ),
            (
                "social",
                format!("[plugins.social]\nbase_url = \"{dead}\"\n"),
            ),
        ],
        &["research"],
    );
    let e = run(
        &d,
        "research",
        json!({"params": {"topic": "webassembly sandboxing", "sources": "all"}, "now": NOW}),
    );
    assert_eq!(e["ok"], false, "{e}");
    let msg = e["error"]["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("web") && msg.contains("community") && msg.contains("social"),
        "{e}"
    );
    let runs = d.ok("default", "artifacts_list", json!({}));
    assert!(
        runs.as_array()
            .expect("runs")
            .iter()
            .all(|r| r["complete"] == false),
        "{runs}"
    );
}

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
fn inspiredesign_reads_past_a_hanging_page_and_leaves_out_error_and_unstyled_pages() {
    // A hanging reference first: once, it ate the run's whole deadline and
    // nothing after it was read. Then a page whose stylesheets 404 (the
    // brief's own words in its title), a 404 page, the styled studio (given
    // twice), and a page with no styles at all.
    let d = Daemon::start_with_config("").expect("daemon");
    let _manifest = install_for_fixture(&d, "inspiredesign");
    let hanging = web().url("delay/60000/design/studio.html");
    let gone = web().url("design/gone.html");
    let urls = [
        hanging.clone(),
        web().url("design/broken.html"),
        gone.clone(),
        web().url("design/studio.html"),
        web().url("design/studio.html#again"),
        web().url("design/plain.html"),
    ];
    let started = std::time::Instant::now();
    let r = run(
        &d,
        "inspiredesign",
        json!({
            "params": {"brief": "warm orange studio with clean sans type", "url": urls},
            "timeout_ms": 40000,
        }),
    );
    let took = started.elapsed();
    assert_eq!(r["ok"], true, "{r}");
    assert!(
        took < std::time::Duration::from_secs(25),
        "the hanging page is given 10 s, not the run: {took:?}"
    );
    let out = &r["result"];
    let bundle = PathBuf::from(out["bundle"].as_str().expect("bundle"));

    // references.json: the styled page first; the unstyled ones read but
    // flagged and weighted out; the hanging and the 404 page failed.
    let refs = read_json(&bundle.join("references.json"));
    let rows: Vec<(String, String, Value)> = refs
        .as_array()
        .expect("list")
        .iter()
        .map(|r| {
            let url = r["url"].as_str().unwrap_or_default();
            let name = url.rsplit('/').next().unwrap_or_default().to_string();
            (
                name,
                r["status"].as_str().unwrap_or_default().to_string(),
                r["weight"].clone(),
            )
        })
        .collect();
    let expected: Vec<(String, String, Value)> = vec![
        ("studio.html".into(), "read".into(), json!(1.0)),
        ("broken.html".into(), "default_styles".into(), json!(0.0)),
        ("plain.html".into(), "default_styles".into(), json!(0.0)),
        ("studio.html".into(), "failed".into(), Value::Null),
        ("gone.html".into(), "failed".into(), Value::Null),
    ];
    assert_eq!(rows, expected, "{refs:#}");
    assert_eq!(refs[3]["url"], hanging.as_str());
    assert_eq!(refs[3]["problems"][0]["step"], "open");
    assert_eq!(refs[3]["problems"][0]["code"], "timeout", "{refs:#}");
    assert_eq!(refs[4]["problems"][0]["code"], "not_found");
    assert_eq!(
        refs[4]["problems"][0]["message"],
        "the page answered HTTP 404"
    );
    assert!(
        refs[1]["default_styles"]
            .as_str()
            .unwrap_or_default()
            .starts_with("rendered with default styles: none of its 2 stylesheets loaded"),
        "{refs:#}"
    );
    assert!(
        refs[2]["default_styles"]
            .as_str()
            .unwrap_or_default()
            .contains("every token is a browser default"),
        "{refs:#}"
    );
    // Screenshots in rank order, one per read page.
    for (n, page) in [(1, "studio"), (2, "broken"), (3, "plain")] {
        assert_eq!(
            refs[n - 1]["screenshot"],
            format!("screenshots/ref-{n}.png"),
            "{page}"
        );
        let bytes = std::fs::read(bundle.join(format!("screenshots/ref-{n}.png"))).expect("png");
        assert_eq!(&bytes[1..4], b"PNG");
    }
    assert!(!bundle.join("screenshots/ref-4.png").exists());

    // The proposed system is the studio's alone: its orange accent, its
    // fonts with their generic fallback, spacing without the centring
    // margins or the aside's 300 px offset.
    let tokens = read_json(&bundle.join("tokens.json"));
    let proposed = &tokens["proposed"];
    assert_eq!(proposed["accent"], "#d9480f", "{proposed:#}");
    assert_eq!(proposed["background"], "#fbf7f2");
    assert_eq!(
        proposed["fonts"][0]["family"],
        "\"Helvetica Neue\", Helvetica, Arial, sans-serif"
    );
    assert_eq!(proposed["fonts"][1]["family"], "Georgia, serif");
    assert_eq!(proposed["spacing"], json!([8, 12, 16, 24, 32, 48, 64]));
    assert!(!proposed.to_string().contains("Times New Roman"));
    assert_eq!(tokens["weights"].as_array().map(Vec::len), Some(1));

    let md = std::fs::read_to_string(bundle.join("design-brief.md")).expect("md");
    for line in [
        "3 of 5 references read",
        "1. **Kiln \\& Co — a ceramics studio**",
        "Screenshot: `screenshots/ref-1.png`",
        "**Rendered with default styles: none of its 2 stylesheets loaded",
        "Given more than once, read once: ",
        "Weighted from: Kiln \\& Co — a ceramics studio (1.00).",
        "Left out (rendered with default styles): Warm orange studio with clean sans type, Warm orange notes.",
        "accent `#d9480f`",
        "(open: not_found: the page answered HTTP 404)",
        "- Georgia, serif (",
        "generic fallback: sans-serif)",
    ] {
        assert!(md.contains(line), "{line:?} in\n{md}");
    }
    assert!(
        md.contains(&format!("- {hanging} (open: timeout: ")),
        "{md}"
    );
    assert_eq!(out["status"], "partial");
    inspiredesign_report_renders(&bundle.join("report.html"), 3);

    // The run's pages are closed with it.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while tab_count(&d, "plugin-inspiredesign").unwrap_or(0) > 0 {
        assert!(
            std::time::Instant::now() < until,
            "{}",
            d.ok("default", "sessions", json!({}))
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn inspiredesign_fails_when_every_reference_shows_only_browser_defaults() {
    let d = Daemon::start_with_config("").expect("daemon");
    let _manifest = install_for_fixture(&d, "inspiredesign");
    let e = run(
        &d,
        "inspiredesign",
        json!({"params": {"brief": "warm orange", "url": [
            web().url("design/broken.html"), web().url("design/plain.html"),
        ]}}),
    );
    assert_eq!(e["ok"], false, "{e}");
    let msg = e["error"]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("no reference page could be used"), "{e}");
    assert!(
        msg.contains("broken.html (styles: upstream: rendered with default styles"),
        "{e}"
    );
}

/// Like [`check_report_renders`], in a session of its own: tests run in
/// parallel, and two guards of one session name close it under each other.
fn inspiredesign_report_renders(report: &Path, images: usize) {
    let d = crate::daemon();
    let s = crate::SessionGuard::new(d, &format!("design-report-{}", std::process::id()));
    s.ok(
        "goto",
        json!({ "url": format!("file://{}", report.display()) }),
    );
    let v = s.ok(
        "eval",
        json!({ "script": "({ text: document.body.innerText, imgs: [...document.images].map(i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0]), specimens: [...document.querySelectorAll('.specimen')].map(e => e.style.fontFamily) })" }),
    );
    let v = &v["value"];
    let text = v["text"].as_str().unwrap_or_default();
    assert!(text.contains("generic fallback: serif"), "{text}");
    assert!(
        text.contains("weighted out of the proposed system"),
        "{text}"
    );
    let imgs = v["imgs"].as_array().expect("imgs");
    let srcs: Vec<&str> = imgs.iter().filter_map(|i| i[0].as_str()).collect();
    let expected: Vec<String> = (1..=images)
        .map(|n| format!("screenshots/ref-{n}.png"))
        .collect();
    assert_eq!(srcs, expected, "screenshots in rank order");
    for img in imgs {
        assert_eq!(img[1], true, "{report:?}: image {} did not load", img[0]);
    }
    let specimens = v["specimens"].to_string();
    assert!(specimens.contains("Georgia, serif"), "{specimens}");
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

/// The web provider on the research fixture web (tests/fixtures/web/
/// research: seven pages found for "coral reef bleaching").
fn reef_daemon() -> Daemon {
    let base = web().url("research");
    small_daemon(
        &[("web", format!("[plugins.web]\nbase_url = \"{base}/ddg\"\n"))],
        &["research"],
    )
}

#[test]
fn research_reef_report_has_key_phrase_themes_visible_titles_and_page_offset_dates() {
    let d = reef_daemon();
    let r = run(
        &d,
        "research",
        json!({"params": {"topic": "coral reef bleaching", "sources": "web", "fetch": 10}, "now": NOW}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let out = &r["result"];
    assert_eq!(out["status"], "pass", "{out}");
    let bundle = PathBuf::from(out["bundle"].as_str().expect("bundle"));
    let report = std::fs::read_to_string(bundle.join("report.md")).expect("report");
    let report = report.replace(&web().port().to_string(), "PORT");
    for line in [
        "- **Kept:** 6 records from 6 hosts; 1 dropped; 0 duplicates folded; 0 failures",
        "### marine heatwave (3 sources: ",
        "Key phrase in every source: “marine heatwave”",
        "[Marine heatwave pushes Great Barrier Reef into fifth mass bleaching](http://127.0.0.1:PORT/research/articles/reeftimes/2026/11/fifth-mass-bleaching.html) — Reef Times (reeftimes.example) · by Mara Okoye · 2026-11-30 (date from the page; date confidence high) · read, ",
        "[List of coral bleaching events](http://127.0.0.1:PORT/research/articles/wiki/List_of_coral_bleaching_events.html) — Wikimedia Foundation, Inc. (en.wikipedia.example) · undated (date confidence low)",
        "- Dropped (off topic): http://127.0.0.1:PORT/research/articles/devpulse/gitlab-survey-2026.html",
        "## Failures\n\nNone.",
    ] {
        assert!(report.contains(line), "{line:?} in:\n{report}");
    }
    for absent in [
        "Wikimedia list article",
        "GitLab survey",
        "high confidence",
        "2026-12-01 (date",
    ] {
        assert!(!report.contains(absent), "{absent:?} in:\n{report}");
    }
    let records = read_json(&bundle.join("records.json"));
    let list = records.as_array().expect("records");
    let reef = list
        .iter()
        .find(|r| r["domain"] == "reeftimes.example")
        .expect("reef times");
    assert_eq!(reef["date"], "2026-11-30", "{reef}");
    assert_eq!(reef["published"], "2026-11-30T22:30:00-05:00", "{reef}");
    assert_eq!(reef["publisher"], "Reef Times", "{reef}");
    assert_eq!(reef["author"], "Mara Okoye", "{reef}");
}

#[test]
fn research_an_empty_timebox_is_not_found_and_says_how_to_widen_it() {
    let d = reef_daemon();
    let e = run(
        &d,
        "research",
        json!({"params": {"topic": "coral reef bleaching", "sources": "web", "fetch": 3,
            "from": "2025-01-01", "to": "2025-06-30"}, "now": NOW}),
    );
    assert_eq!(e["ok"], false, "{e}");
    assert_eq!(e["error"]["code"], "not_found", "{e}");
    let msg = e["error"]["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("nothing dated in 2025-01-01 → 2025-06-30 for \"coral reef bleaching\""),
        "{msg}"
    );
    assert!(
        msg.contains("widen the timebox: days 1 takes in the newest (2026-11-30)"),
        "{msg}"
    );
    assert!(!msg.contains("GitLab"), "{msg}");
}

/// The small internet with the shopping provider pointed at the products
/// fixture (tests/fixtures/web/products): its product pages then go to the
/// shopping provider; with the default config they go to the web reader.
fn products_config() -> (&'static str, String) {
    let base = web().url("products");
    (
        "shop",
        format!("[plugins.shop]\nsearch_url = \"{base}/search.html?q={{query}}\"\n"),
    )
}

/// Runs product-video on the stove page and checks what the bundle says.
fn check_stove_bundle(d: &Daemon, provider: &str) {
    let url = web().url("products/cinder-stove.html");
    let r = run(
        d,
        "product-video",
        json!({"params": {"product_url": url}, "now": NOW}),
    );
    assert_eq!(r["ok"], true, "{provider}: {r}");
    let out = &r["result"];
    let bundle = PathBuf::from(out["bundle"].as_str().expect("bundle"));
    let product = read_json(&bundle.join("product.json"));
    assert_eq!(product["provider"], provider, "{product}");
    assert_eq!(product["price"], json!(129.0), "{provider}: {product}");
    assert_eq!(product["seller"], "Basecamp Gear Co.", "{product}");
    assert_eq!(product["shipping"], json!(4.95), "{product}");
    assert_eq!(product["gtin"], "0812345678905", "{product}");
    let saved: Vec<&str> = product["images"]
        .as_array()
        .expect("images")
        .iter()
        .filter_map(|i| i["file"].as_str())
        .collect();
    assert_eq!(
        saved,
        ["images/01.png", "images/02.png"],
        "{provider}: {product}"
    );
    let features = std::fs::read_to_string(bundle.join("features.md")).expect("features");
    assert!(
        !features.contains("lists no features"),
        "{provider}: {features}"
    );
    for line in [
        "- Two 10,000 BTU burners with true simmer control\n",
        "- Wind shields fold out on three sides\n",
        "- Push-button ignition lights in the cold\n",
        "- Folds flat into its own carry lid\n",
        "| Fuel | Propane (16 oz canister) |\n",
        "| Packed size | 56 × 33 × 8 cm |\n",
        "Sold by Basecamp Gear Co. · $4.95 shipping, 2–5 days · GTIN 0812345678905 · SKU BGC-CIN2\n",
        "> Lit first time in the wind and cooked for six of us. — Priya N., 5/5\n",
    ] {
        assert!(
            features.contains(line),
            "{provider}: {line:?} in\n{features}"
        );
    }
    let copy = std::fs::read_to_string(bundle.join("copy.md")).expect("copy");
    assert!(
        copy.contains("VO: \"Meet the Cinder 2 Camp Stove: a two-burner camp stove that boils a litre of water in under four minutes"),
        "{provider}: {copy}"
    );
    assert!(
        copy.contains("VO: \"The Cinder 2 Camp Stove. Find it at Basecamp Gear Co.\"\n"),
        "{provider}: {copy}"
    );
    assert!(!copy.contains("Find it at 127.0.0.1"), "{provider}: {copy}");
    assert_eq!(out["status"], "pass", "{provider}: {out}");
}

#[test]
fn product_video_reads_the_page_fully_through_the_web_reader() {
    // /products/… is nobody's configured path: the web reader serves it.
    // Once this route lost the price and the images.
    let d = small_daemon(&[], &[]);
    let _m = install_for_fixture(&d, "product-video");
    check_stove_bundle(&d, "web");
}

#[test]
fn product_video_reads_the_page_fully_through_the_shopping_provider() {
    // Once this route said "The page lists no features" on a page with four.
    let d = small_daemon(&[products_config()], &[]);
    let _m = install_for_fixture(&d, "product-video");
    check_stove_bundle(&d, "shop");
}

#[test]
fn product_video_names_the_workflows_grant_when_an_image_download_is_refused() {
    // Installed from its own manifest (http = ["*"]), the workflow may not
    // reach the loopback fixture web; the provider reading the page may.
    let d = small_daemon(&[], &["product-video"]);
    let url = web().url("products/cinder-stove.html");
    let r = run(
        &d,
        "product-video",
        json!({"params": {"product_url": url}, "now": NOW}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let out = &r["result"];
    assert_eq!(out["status"], "partial", "{out}");
    let failures = out["failures"].to_string();
    assert!(
        failures.contains("the product-video workflow's grant")
            && failures.contains("the workflow's grant is missing, not a provider's"),
        "{failures}"
    );
}

#[test]
fn shopping_reads_offer_shipping_keeps_pre_order_apart_and_never_calls_out_of_stock_best() {
    let d = small_daemon(&[products_config()], &["shopping"]);
    let r = run(
        &d,
        "shopping",
        json!({"params": {"query": "camp stove", "sort": "lowest_price"}, "now": NOW}),
    );
    assert_eq!(r["ok"], true, "{r}");
    let out = &r["result"];
    let bundle = PathBuf::from(out["bundle"].as_str().expect("bundle"));
    let deals = std::fs::read_to_string(bundle.join("deals.md")).expect("deals");
    let port = web().port();
    for expected in [
        "## Best pick\n\n**Cinder 2 Camp Stove (2027 edition)** at Ember & Pine: $99.00 total ($99.00 + free shipping), pre-order, unrated.".to_string(),
        "1 out-of-stock offer costs less (from $79.00, Cinder 2 Stove) but cannot be ordered; listed last.".into(),
        "Note: it is a pre-order; it ships when it is released.".into(),
        "| Trailpost Outfitters | $119.00 | $6.50, 3–5 days | $125.50 | in stock |".into(),
        "| Basecamp Gear Co. | $129.00 | $4.95, 2–5 days | $133.95 | in stock | 4.6 (318) |".into(),
        "| Lowland Supply | $79.00 | free | $79.00 | out of stock |".into(),
        format!("- [Cinder 2 Camp Stove bundle](<http://127.0.0.1:{port}/products/offers/driftwood.html>) at Driftwood Goods: no usable price (missing or 0)\n"),
        format!("- [Cinder 2 Camp Stove UK](<http://127.0.0.1:{port}/products/offers/northway.html>) at Northway Camping: priced in GBP, not USD\n"),
    ] {
        assert!(deals.contains(&expected), "{expected:?} in\n{deals}");
    }
    assert!(!deals.contains("limited stock"), "{deals}");
    assert!(
        !deals.contains("| not stated |"),
        "every offer states its shipping: {deals}"
    );
    // The out-of-stock offer is the last row.
    let rows: Vec<&str> = deals.lines().filter(|l| l.starts_with("| 4 |")).collect();
    assert!(
        rows.first().is_some_and(|r| r.contains("Lowland Supply")),
        "{deals}"
    );
    let summary = out["summary"].as_str().unwrap_or_default();
    assert!(
        summary.contains("Best: Cinder 2 Camp Stove (2027 edition) — $99.00"),
        "{summary}"
    );
    let offers = read_json(&bundle.join("offers.json"));
    assert_eq!(
        offers["dropped"]["offers"].as_array().map(Vec::len),
        Some(2),
        "{offers}"
    );
}
