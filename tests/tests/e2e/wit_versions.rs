//! WIT versions: a plugin of every released version installs and runs
//! (0.1.0 providers, 0.2.0 workflows, a 0.2.0 workflow calling a 0.1.0
//! provider through the runtime), and a manifest declaring a version its
//! kind does not run is refused naming the versions that would do, with
//! nothing installed.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::plugin_install::{plugins_root, wasm_path};
use crate::Daemon;

/// A plugin for each world a released version runs: (WIT version, kind,
/// component, example folder).
const RELEASED: &[(&str, &str, &str, &str)] = &[
    (
        "0.1.0",
        "provider",
        "hello_provider",
        "examples/hello-provider",
    ),
    (
        "0.2.0",
        "workflow",
        "hello_workflow",
        "examples/hello-workflow",
    ),
    ("0.3.0", "adapter", "adapter_guest", "tests/adapter-guest"),
];

fn manifest(dir: &str) -> PathBuf {
    plugins_root().join(dir).join("plugin.toml")
}

fn install(d: &Daemon, wasm: &str, manifest: &Path) -> Value {
    d.cmd(
        "default",
        "plugin_install",
        json!({ "path": wasm_path(wasm), "manifest": manifest, "grant": true }),
    )
}

#[test]
fn a_plugin_of_each_released_version_installs_and_runs() {
    let d = Daemon::start().expect("daemon");
    for (version, kind, wasm, dir) in RELEASED {
        let r = install(&d, wasm, &manifest(dir));
        assert_eq!(r["ok"], true, "{version} {kind}: {r}");
        let id = r["result"]["id"].as_str().expect("id").to_string();
        let info = d.ok("default", "plugin_info", json!({ "id": id }));
        assert_eq!(info["ready"], true, "{info}");
        assert_eq!(info["kind"], *kind, "{info}");
        assert_eq!(info["wit"]["built"], *version, "{info}");
        assert!(
            info["wit"]["accepts"]
                .as_array()
                .expect("accepts")
                .contains(&json!(version)),
            "{info}"
        );
    }
    // The list says the same.
    let listed = d.ok("default", "plugin_list", json!({}));
    let wits: Vec<(&str, &str)> = listed
        .as_array()
        .expect("list")
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap_or_default(),
                p["wit"]["built"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        wits,
        [
            ("adapter-guest", "0.3.0"),
            ("hello-provider", "0.1.0"),
            ("hello-workflow", "0.2.0")
        ],
        "{listed}"
    );

    // The 0.1.0 provider answers.
    let found = d.ok(
        "default",
        "search",
        json!({ "query": "versions", "provider": "hello-provider" }),
    );
    assert_eq!(
        found["meta"]["providers"],
        json!(["hello-provider"]),
        "{found}"
    );
    assert!(
        found["results"].as_array().is_some_and(|r| !r.is_empty()),
        "{found}"
    );

    // The 0.2.0 workflow runs, and its search reaches the 0.1.0 provider
    // (the only `web` source installed) through the runtime.
    let r = d.cmd(
        "default",
        "run_workflow",
        json!({ "name": "hello-workflow", "params": { "topic": "versions" } }),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["result"]["complete"], true, "{r}");
    let bundle = PathBuf::from(r["result"]["bundle"].as_str().expect("bundle"));
    let meta: Value =
        serde_json::from_slice(&std::fs::read(bundle.join("meta.json")).expect("meta.json"))
            .expect("json");
    assert!(
        meta["providers"]["hello-provider"]["calls"].as_u64() >= Some(1),
        "{meta}"
    );
    let links = std::fs::read_to_string(bundle.join("links.md")).expect("links.md");
    assert!(links.contains("Hello, versions"), "{links}");

    // The 0.3.0 adapter reads a file into a canvas.
    let project = super::canvas::project();
    std::fs::write(project.path().join("notes.hostile"), "one\ntwo\n").expect("write");
    d.ok(
        "default",
        "canvas_new",
        json!({ "name": "v", "root": project.path() }),
    );
    let pulled = d.ok(
        "default",
        "canvas_code_pull",
        json!({ "name": "v", "root": project.path(), "file": "notes.hostile" }),
    );
    assert_eq!(pulled["pulled"]["adapter"], "adapter-guest", "{pulled}");
    assert_eq!(pulled["pulled"]["nodes"], 3, "{pulled}");

    // `plugin info` says what it was built against and what this host takes.
    let out = d.cli(&["plugin", "info", "hello-provider"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success()
            && text.contains(
                "built against WIT 0.1.0 (this webrig accepts 0.1.0 for provider plugins)"
            ),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = d.cli(&["plugin", "info", "hello-workflow"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("built against WIT 0.2.0 (this webrig accepts 0.2.0 for workflow plugins)"),
        "{text}"
    );
}

#[test]
fn a_version_its_kind_does_not_run_is_refused_naming_the_accepted_ones() {
    let d = Daemon::start().expect("daemon");
    let provider = std::fs::read_to_string(manifest("examples/hello-provider")).expect("read");
    let workflow = std::fs::read_to_string(manifest("examples/hello-workflow")).expect("read");
    let as_provider = |wit: &str| provider.replace("wit = \"0.1.0\"", &format!("wit = \"{wit}\""));
    let as_workflow = |wit: &str| workflow.replace("wit = \"0.2.0\"", &format!("wit = \"{wit}\""));
    let provider_ok = "this webrig accepts WIT 0.1.0 for provider plugins";
    let workflow_ok = "this webrig accepts WIT 0.2.0 for workflow plugins";
    let cases = [
        (
            as_provider("0.2.0"),
            "hello_provider",
            "WIT 0.2.0 has no provider-plugin world",
            provider_ok,
        ),
        (
            as_workflow("0.1.0"),
            "hello_workflow",
            "WIT 0.1.0's workflow-plugin world is not implemented by this webrig",
            workflow_ok,
        ),
        (
            as_provider("0.9.0"),
            "hello_provider",
            "WIT 0.9.0 is not a version this webrig knows (it knows 0.1.0, 0.2.0, 0.3.0",
            provider_ok,
        ),
        (
            as_workflow("0.9.0"),
            "hello_workflow",
            "WIT 0.9.0 is not a version this webrig knows",
            workflow_ok,
        ),
        (
            as_provider("0.1"),
            "hello_provider",
            "\"0.1\" is not a WIT version",
            provider_ok,
        ),
        (
            as_workflow("latest"),
            "hello_workflow",
            "\"latest\" is not a WIT version",
            workflow_ok,
        ),
        (
            provider.replace("kind = \"provider\"", "kind = \"adapter\""),
            "hello_provider",
            "WIT 0.1.0's adapter-plugin world is not implemented",
            "this webrig accepts WIT 0.3.0 for adapter plugins",
        ),
    ];
    for (text, wasm, what, accepted) in cases {
        assert!(
            text.contains("wit = ") && text != provider && text != workflow,
            "{what}"
        );
        let dir = tempfile::tempdir().expect("dir");
        std::fs::write(dir.path().join("plugin.toml"), &text).expect("write");
        std::fs::copy(wasm_path(wasm), dir.path().join(format!("{wasm}.wasm"))).expect("copy");
        let r = d.cmd(
            "default",
            "plugin_install",
            json!({ "path": dir.path(), "grant": true }),
        );
        assert_eq!(r["error"]["code"], "invalid_argument", "{what}: {r}");
        let msg = r["error"]["message"].as_str().unwrap_or_default();
        assert!(
            msg.contains("field `wit`") && msg.contains(what) && msg.contains(accepted),
            "{what}: {msg}"
        );
    }
    assert_eq!(d.ok("default", "plugin_list", json!({})), json!([]));
    assert!(
        std::fs::read_dir(d.home().join("plugins"))
            .map(|entries| entries.count() == 0)
            .unwrap_or(true),
        "nothing may be left in the plugins folder"
    );
}
