//! Honest answers: a command that finds nothing to serve it fails with the
//! error and the hint that fixes it, through the real CLI (exit code and
//! stderr) and the JSON envelope; nothing installed (`not_found`, the setup
//! command), installed but not ready (`unsupported`, which and why) and a
//! real search that found nothing (a success) are told apart.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use super::plugin_install::{plugins_root, wasm_path};
use super::providers::install_first_party;
use crate::{Daemon, FixtureWeb};

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The CLI failed with `code`'s exit code and said `words` (and the hint
/// line) on stderr.
fn fails(o: &Output, exit: i32, words: &[&str]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(exit), "{o:?}");
    for w in words {
        assert!(err.contains(w), "{w:?} not in: {err}");
    }
    assert!(err.contains("\nhint: "), "no hint: {err}");
}

fn install_research(d: &Daemon) {
    let r = d.cmd(
        "default",
        "plugin_install",
        json!({
            "path": wasm_path("webrig_workflow_research"),
            "manifest": plugins_root().join("workflows/research/plugin.toml"),
            "grant": true,
        }),
    );
    assert_eq!(r["ok"], true, "{r}");
}

fn bundles(home: &Path) -> usize {
    std::fs::read_dir(home.join("artifacts"))
        .map(|d| d.count())
        .unwrap_or(0)
}

#[test]
fn with_nothing_installed_search_fetch_macro_and_workflows_fail_with_the_setup_hint() {
    let d = Daemon::start().expect("daemon");
    // The envelope: not_found, with the setup command as hint.
    for (command, args) in [
        ("search", json!({ "query": "rust wasm" })),
        ("fetch", json!({ "url": "https://example.com/" })),
        ("macro_run", json!({ "expr": "@web.search(\"x\")" })),
        ("run_workflow", json!({ "name": "research" })),
    ] {
        let e = d.err("default", command, args, "not_found");
        assert!(
            e["hint"]
                .as_str()
                .unwrap_or_default()
                .contains("webrig setup"),
            "{command}: {e}"
        );
    }
    // The CLI: exit 3 (not_found), the message and the hint on stderr,
    // nothing that looks like an answer on stdout.
    let search = d.cli(&["search", "rust wasm"]);
    fails(
        &search,
        3,
        &[
            "no provider is installed, so nothing can search",
            "webrig setup",
        ],
    );
    assert!(!stdout(&search).contains("no results"), "{search:?}");
    fails(
        &d.cli(&["fetch", "https://example.com/"]),
        3,
        &["nothing can fetch pages", "webrig setup"],
    );
    let run = d.cli(&["macro", "run", "@web.search(\"x\")"]);
    fails(
        &run,
        3,
        &[
            "@web.search: no provider is installed",
            "source \"web\"",
            "webrig setup",
        ],
    );
    assert!(!stdout(&run).contains("no results"), "{run:?}");
    fails(
        &d.cli(&["run", "workflow", "research", "--topic", "x"]),
        3,
        &["no workflow \"research\" is installed", "webrig setup"],
    );
    // A plan runs nothing: it stands, and says nothing would serve it.
    let plan = d.cli(&["macro", "resolve", "@web.search(\"x\")"]);
    assert!(plan.status.success(), "{plan:?}");
    assert!(
        stdout(&plan).contains("(no installed provider serves it: webrig setup)"),
        "{plan:?}"
    );
    // Listings may be empty: they exit 0 and say how to fill them.
    for list in [&["providers"][..], &["workflows"][..]] {
        let out = d.cli(list);
        assert!(out.status.success(), "{out:?}");
        assert!(stdout(&out).contains("webrig setup"), "{out:?}");
    }
}

#[test]
fn a_workflow_whose_providers_are_all_missing_fails_before_it_makes_a_bundle() {
    let d = Daemon::start().expect("daemon");
    install_research(&d);
    let started = std::time::Instant::now();
    let out = d.cli(&["run", "workflow", "research", "--topic", "rust wasm"]);
    fails(
        &out,
        3,
        &[
            "workflow research works only through providers",
            "no provider is installed",
            "web, community, social, shopping",
            "webrig setup",
        ],
    );
    // Before any provider call or fetch budget: far under the run's own
    // deadline even on a loaded machine (the bundle count is the proof).
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "fails fast"
    );
    assert_eq!(bundles(d.home()), 0, "no bundle was made");
    // Bad input is still told first.
    d.err(
        "default",
        "run_workflow",
        json!({ "name": "research" }),
        "invalid_argument",
    );
    // Installed but not granted: unsupported, which one and why.
    install_first_party(&d, "web");
    d.ok(
        "default",
        "plugin_revoke",
        json!({ "id": "web", "all": true }),
    );
    let e = d.err(
        "default",
        "run_workflow",
        json!({ "name": "research", "params": { "topic": "x" } }),
        "unsupported",
    );
    let message = e["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("web: it was granted none of what it asks for"),
        "{e}"
    );
    assert!(
        e["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("webrig plugin grant web --all"),
        "{e}"
    );
    assert_eq!(bundles(d.home()), 0, "no bundle was made");
}

#[test]
fn installed_but_not_ready_says_which_and_why_and_the_ready_ones_still_serve() {
    let web = crate::web();
    let d = Daemon::start_with_config(&format!(
        "[plugins.community]\nhn_url = \"{0}/hn\"\nreddit_url = \"{0}/reddit\"\n",
        web.url("providers")
    ))
    .expect("daemon");
    install_first_party(&d, "web");
    d.ok(
        "default",
        "plugin_revoke",
        json!({ "id": "web", "all": true }),
    );
    // Not granted: unsupported (exit 7), naming it, why and the fix.
    let words = [
        "no provider that can search source \"web\" is ready",
        "web: it was granted none of what it asks for",
        "webrig plugin grant web --all",
    ];
    fails(&d.cli(&["search", "--source", "web", "rust"]), 7, &words);
    fails(
        &d.cli(&["macro", "run", "@web.search(\"rust\")"]),
        7,
        &["@web.search: no provider", "web: it was granted none"],
    );
    fails(
        &d.cli(&[
            "fetch",
            &web.url("providers/articles/agents-need-a-browser.html"),
        ]),
        7,
        &[
            "no provider that can fetch pages is ready",
            "web: it was granted none",
        ],
    );
    let status = d.ok("default", "providers", json!({}));
    assert_eq!(status[0]["ready"], false, "{status}");
    // A ready provider beside it serves; the other is a failure of its own.
    install_first_party(&d, "community");
    let out = d.ok(
        "default",
        "search",
        json!({ "query": "webrig", "source": "all" }),
    );
    assert!(
        out["results"]
            .as_array()
            .is_some_and(|r| !r.is_empty() && r.iter().all(|i| i["provider"] == "community")),
        "{out}"
    );
    let failures = out["failures"].as_array().expect("failures");
    assert_eq!(failures.len(), 1, "{out}");
    assert_eq!(failures[0]["provider"], "web");
    assert_eq!(failures[0]["code"], "unavailable");
    // Refused (its component changed on disk): which and why.
    let installed = d.home().join("plugins/community");
    let wasm = std::fs::read_dir(&installed)
        .expect("dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "wasm"))
        .expect("component");
    let mut bytes = std::fs::read(&wasm).expect("read");
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    std::fs::write(&wasm, &bytes).expect("tamper");
    let e = d.err(
        "default",
        "search",
        json!({ "query": "webrig", "source": "community" }),
        "unsupported",
    );
    let message = e["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("community: refused at load")
            && message.contains("changed since it was installed"),
        "{e}"
    );
    // A source nothing installed serves is not_found, naming what is there.
    let e = d.err(
        "default",
        "search",
        json!({ "query": "socks", "source": "shopping" }),
        "not_found",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("installed: community, web"),
        "{e}"
    );
}

#[test]
fn a_real_search_that_finds_nothing_is_a_success() {
    // A results page with no results, on a web of its own.
    let root = tempfile::tempdir().expect("dir");
    std::fs::create_dir_all(root.path().join("html")).expect("dir");
    std::fs::write(
        root.path().join("html/index.html"),
        "<!doctype html><html><body><div class=\"no-results\">No results found.</div></body></html>",
    )
    .expect("write");
    let empty = FixtureWeb::start_on(root.path().to_path_buf(), 0);
    let d = Daemon::start_with_config(&format!(
        "[plugins.web]\nbase_url = \"{}\"\n",
        empty.url("").trim_end_matches('/')
    ))
    .expect("daemon");
    install_first_party(&d, "web");
    let out = d.ok(
        "default",
        "search",
        json!({ "query": "nothing here", "source": "web" }),
    );
    assert_eq!(out["results"], json!([]), "{out}");
    assert_eq!(out["failures"], json!([]), "{out}");
    assert_eq!(out["meta"]["providers"], json!(["web"]), "{out}");
    let cli = d.cli(&["search", "--source", "web", "nothing here"]);
    assert!(cli.status.success(), "{cli:?}");
    assert!(
        stdout(&cli).contains("no results: web found nothing"),
        "{cli:?}"
    );
    let run = d.cli(&["macro", "run", "@web.search(\"nothing here\")"]);
    assert!(run.status.success(), "{run:?}");
    assert!(
        stdout(&run).contains("no results: the providers found nothing"),
        "{run:?}"
    );
    let v: Value = serde_json::from_slice(
        &d.cli(&["--json", "macro", "run", "@web.search(\"nothing here\")"])
            .stdout,
    )
    .expect("json");
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["result"]["results"], json!([]), "{v}");
}
