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
        ("web", format!("[plugins.web]\nbase_url = \"{base}/news/ddg\"\n")),
        (
            "community",
            format!(
                "[plugins.community]\nhn_url = \"{base}/news/hn\"\nreddit_url = \"{base}/news/reddit\"\n"
            ),
        ),
        ("social", format!("[plugins.social]\nbase_url = \"{base}/news/mastodon\"\n")),
        (
            "shopping",
            format!("[plugins.shopping]\nsearch_url = \"{base}/shop/search.html?q={{query}}\"\n"),
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

    let r = run(&d, "hello-workflow", json!({"params": {"topic": "webassembly"}}));
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
    assert!(names.contains(&"links.md") && names.contains(&"meta.json"), "{manifest}");
    let meta = read_json(&bundle.join("meta.json"));
    assert_eq!(meta["stages"][0]["stage"], "search", "{meta}");
    assert!(meta["providers"]["web"]["calls"].as_u64() >= Some(1), "{meta}");
    let links = std::fs::read_to_string(bundle.join("links.md")).expect("links");
    assert!(links.contains("](http"), "{links}");
}

#[test]
fn the_cli_streams_progress_to_stderr_and_prints_only_the_result() {
    let d = small_daemon(&[], &["hello-workflow"]);
    let out = d.cli(&["run", "workflow", "hello-workflow", "--topic", "webassembly"]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains("search"), "progress on stderr: {stderr}");
    assert!(stderr.contains("provider web"), "provider lines: {stderr}");
    assert!(!stdout.contains("provider web"), "stdout: {stdout}");
    let last = stdout.trim_end().lines().last().unwrap_or_default();
    assert!(last.starts_with("→ ") && last.ends_with("links.md"), "{stdout}");
    assert!(stdout.lines().count() <= 10, "{stdout}");

    // Each format; parameters may come before or after the runner's options.
    let md = d.cli(&["run", "workflow", "hello-workflow", "--format", "md", "--topic", "wasm"]);
    assert!(String::from_utf8_lossy(&md.stdout).starts_with("# wasm"), "{md:?}");
    let path = d.cli(&["run", "workflow", "hello-workflow", "--topic", "wasm", "--format", "path"]);
    let text = String::from_utf8_lossy(&path.stdout);
    let dir = PathBuf::from(text.lines().next().unwrap_or_default());
    assert!(dir.join("bundle-manifest.json").is_file(), "{text}");
    let ctx = d.cli(&["run", "workflow", "hello-workflow", "--topic", "wasm", "--format=context"]);
    let v: Value = serde_json::from_slice(&ctx.stdout).expect("context is JSON");
    assert_eq!(v["context"]["topic"], "wasm", "{v}");

    // The workflow's own help, from what it declares.
    let help = d.cli(&["run", "workflow", "hello-workflow", "--help"]);
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(text.contains("--topic") && text.contains("--limit"), "{text}");
}

#[test]
fn bad_input_is_refused_before_anything_runs() {
    let d = small_daemon(&[], &["hello-workflow"]);
    let e = run(&d, "nope", json!({}));
    assert_eq!(e["error"]["code"], "not_found", "{e}");
    assert!(e["error"]["hint"].as_str().unwrap_or_default().contains("hello-workflow"), "{e}");
    for (params, named) in [
        (json!({}), "--topic"),
        (json!({"topic": "x", "colour": "red"}), "--colour"),
        (json!({"topic": "x", "limit": "many"}), "--limit"),
        (json!({"topic": ["a", "b"]}), "--topic"),
    ] {
        let e = run(&d, "hello-workflow", json!({ "params": params }));
        assert_eq!(e["error"]["code"], "invalid_argument", "{e}");
        assert!(e["error"]["message"].as_str().unwrap_or_default().contains(named), "{e}");
    }
    for bad in [json!({"ttl_hours": 169}), json!({"now": "yesterday"}), json!({"input": "[1]"})] {
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
