//! `webrig setup`: the first-party plugins this webrig carries, installed
//! on a fresh home through the CLI as a new user would, then `search`,
//! `fetch`, `macro run` and `run workflow research` on the fixture web.
//! Consent shown once and never skipped, a user's own plugin of the same id
//! left alone, upgrades that keep grants, and markers that cannot be forged.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use super::plugin_install::{plugins_root, wasm_path};
use super::workflows::small_config;
use crate::{Daemon, web};

/// The thirteen: four providers, four workflows, five framework adapters.
const CARRIED: [&str; 13] = [
    "community",
    "shop",
    "social",
    "web",
    "inspiredesign",
    "product-video",
    "research",
    "shopping",
    "custom-elements",
    "html-static",
    "react-tsx",
    "svelte-sfc",
    "vue-sfc",
];

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {:?}", text(out)))
}

fn listed(d: &Daemon) -> Vec<Value> {
    d.ok("default", "plugin_list", json!({}))
        .as_array()
        .expect("list")
        .clone()
}

fn plugin<'a>(list: &'a [Value], id: &str) -> &'a Value {
    list.iter()
        .find(|p| p["id"] == id)
        .unwrap_or_else(|| panic!("{id} in {list:?}"))
}

#[test]
fn a_fresh_home_gets_search_fetch_macros_and_research_after_one_setup_command() {
    let d = Daemon::start_with_config(&small_config(&[])).expect("daemon");

    // No terminal, no --yes: nothing installed, every grant shown, and the
    // one command to run.
    let refused = d.cli(&["setup"]);
    let (out, err) = text(&refused);
    assert_eq!(refused.status.code(), Some(9), "forbidden: {out}{err}");
    assert!(err.contains("nothing was installed"), "{err}");
    for asks in [
        "html.duckduckgo.com",
        "hn.algolia.com",
        "mastodon.social",
        "browser: read",
    ] {
        assert!(err.contains(asks), "the refusal shows {asks}: {err}");
    }
    assert!(err.contains("webrig setup --yes"), "{err}");
    assert_eq!(
        listed(&d),
        Vec::<Value>::new(),
        "a refusal installs nothing"
    );

    // Before setup the tour's commands fail; they do not answer "no results".
    let before = d.cli(&["search", "webassembly"]);
    assert!(!before.status.success(), "{:?}", text(&before));

    // The dry run says what would happen and installs nothing.
    let dry = json_of(&d.cli(&["--json", "setup", "--dry-run"]));
    let actions: Vec<&str> = dry["result"]["plugins"]
        .as_array()
        .expect("plugins")
        .iter()
        .map(|p| p["action"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(actions, ["would_install"; CARRIED.len()], "{dry}");
    assert_eq!(listed(&d), Vec::<Value>::new());

    let setup = d.cli(&["setup", "--yes"]);
    let (out, err) = text(&setup);
    assert!(setup.status.success(), "{out}{err}");
    for id in CARRIED {
        assert!(out.contains(&format!("installed {id} ")), "{id}: {out}");
    }
    assert!(
        out.contains("granted http: html.duckduckgo.com") && out.contains("granted browser: read"),
        "the grants are shown: {out}"
    );
    let list = listed(&d);
    assert_eq!(list.len(), CARRIED.len(), "{list:?}");
    for p in &list {
        assert_eq!(p["first_party"], true, "{p}");
        assert_eq!(p["ready"], true, "{p}");
        assert_eq!(p["upgrade"], Value::Null, "{p}");
        // The same sha256 check as any plugin: recorded at install.
        assert_eq!(p["sha256"].as_str().map(str::len), Some(64), "{p}");
    }
    // Providers are the four providers; the workflows are `workflows`'.
    let providers = d.ok("default", "providers", json!({}));
    let ids: Vec<&str> = providers
        .as_array()
        .expect("providers")
        .iter()
        .filter_map(|p| p["id"].as_str())
        .collect();
    assert_eq!(ids, ["community", "shop", "social", "web"], "{providers}");
    let workflows = d.ok("default", "workflows", json!({}));
    assert_eq!(workflows.as_array().map(Vec::len), Some(4), "{workflows}");
    let human = text(&d.cli(&["plugin", "list"])).0;
    assert!(
        human.contains("web 0.1.0 (provider, web, first-party) — ready"),
        "{human}"
    );

    // The tour's commands, through the CLI.
    let search = json_of(&d.cli(&["--json", "search", "webassembly", "--source", "web"]));
    assert_eq!(search["ok"], true, "{search}");
    assert!(
        !search["result"]["results"]
            .as_array()
            .expect("results")
            .is_empty(),
        "{search}"
    );
    let page = web().url("small/news/articles/devnotes/what-is-a-wasm-sandbox.html");
    let fetched = json_of(&d.cli(&["--json", "fetch", &page]));
    assert_eq!(fetched["ok"], true, "{fetched}");
    assert!(
        fetched["result"]["text"]
            .as_str()
            .is_some_and(|t| t.len() > 200),
        "{fetched}"
    );
    let macro_run = json_of(&d.cli(&[
        "--json",
        "macro",
        "run",
        r#"@web.search("webassembly", limit=3)"#,
    ]));
    assert_eq!(macro_run["ok"], true, "{macro_run}");
    assert!(
        !macro_run["result"]["results"]
            .as_array()
            .expect("results")
            .is_empty(),
        "{macro_run}"
    );
    let research = d.cmd(
        "default",
        "run_workflow",
        json!({"name": "research", "params": {"topic": "webassembly sandboxing", "sources": "all", "fetch": 10}, "now": "2026-12-01T12:00:00Z"}),
    );
    assert_eq!(research["ok"], true, "{research}");
    assert!(
        Path::new(research["result"]["bundle"].as_str().expect("bundle"))
            .join("report.md")
            .is_file(),
        "{research}"
    );

    // Again: nothing to do, nothing asked.
    let again = d.cli(&["setup"]);
    let (out, err) = text(&again);
    assert!(again.status.success(), "{out}{err}");
    assert_eq!(out.matches("unchanged ").count(), CARRIED.len(), "{out}");
}

/// A component with other bytes than the carried one (a custom section
/// appended: still a valid component), as an older setup would have left.
fn older_build(dir: &Path, name: &str) -> std::path::PathBuf {
    let mut bytes = std::fs::read(wasm_path(name)).expect("wasm");
    let payload = b"\x05olderbuild";
    bytes.push(0);
    bytes.push(payload.len() as u8);
    bytes.extend_from_slice(payload);
    let path = dir.join(format!("{name}.wasm"));
    std::fs::write(&path, bytes).expect("write");
    path
}

/// Installs provider `dir` from `wasm` with `manifest_edit` applied to its
/// plugin.toml, then marks it as a first-party install (what an older
/// `webrig setup` left).
fn install_as_older_setup(d: &Daemon, scratch: &Path, dir: &str, wasm: &Path, edit: &str) {
    let manifest = std::fs::read_to_string(
        plugins_root()
            .join("providers")
            .join(dir)
            .join("plugin.toml"),
    )
    .expect("manifest");
    let manifest = match edit {
        "" => manifest,
        subset => manifest.replace(
            "http = [\"html.duckduckgo.com\", \"*\"]",
            &format!("http = [{subset}]"),
        ),
    };
    let path = scratch.join(format!("{dir}.plugin.toml"));
    std::fs::write(&path, manifest).expect("write");
    let r = d.cmd(
        "default",
        "plugin_install",
        json!({"path": wasm, "manifest": path, "grant": true, "replace": true}),
    );
    assert_eq!(r["ok"], true, "{r}");
    std::fs::write(
        d.home().join("plugins").join(dir).join("first-party"),
        "0.0.1",
    )
    .expect("marker");
}

#[test]
fn setup_upgrades_keeping_grants_and_asks_only_for_what_is_new() {
    let d = Daemon::start_with_config(&small_config(&[])).expect("daemon");
    let scratch = tempfile::tempdir().expect("dir");
    let older = older_build(scratch.path(), "webrig_provider_web");
    install_as_older_setup(&d, scratch.path(), "web", &older, "");
    assert_eq!(
        d.ok(
            "default",
            "plugin_revoke",
            json!({"id": "web", "http": ["*"]})
        )["granted"]["http"],
        json!(["html.duckduckgo.com"])
    );
    let web = plugin(&listed(&d), "web").clone();
    assert_eq!(web["first_party"], true, "{web}");
    assert_eq!(
        web["upgrade"], "0.1.0",
        "the list offers the upgrade: {web}"
    );
    assert!(
        text(&d.cli(&["plugin", "list"]))
            .0
            .contains("webrig setup upgrades it"),
        "the human list says how"
    );

    // The rest asks for grants: without --yes nothing at all is installed,
    // not even the upgrade that needs none.
    let refused = d.cli(&["setup"]);
    assert_eq!(refused.status.code(), Some(9), "{:?}", text(&refused));
    assert_eq!(listed(&d).len(), 1);

    let done = json_of(&d.cli(&["--json", "setup", "--yes"]));
    let web_step = done["result"]["plugins"]
        .as_array()
        .expect("plugins")
        .iter()
        .find(|p| p["id"] == "web")
        .expect("web")
        .clone();
    assert_eq!(web_step["action"], "upgraded", "{done}");
    let web = plugin(&listed(&d), "web").clone();
    assert_eq!(web["upgrade"], Value::Null, "{web}");
    assert_eq!(
        web["granted"]["http"],
        json!(["html.duckduckgo.com"]),
        "an upgrade asking nothing new keeps the revocation: {web}"
    );

    // An older build that asked for less: the upgrade asks for the rest.
    install_as_older_setup(&d, scratch.path(), "web", &older, "\"html.duckduckgo.com\"");
    let refused = d.cli(&["setup"]);
    let (_, err) = text(&refused);
    assert_eq!(refused.status.code(), Some(9), "{err}");
    assert!(
        err.contains("web 0.1.0 (provider) asks for") && !err.contains("shop 0.1.0"),
        "only what asks for something new is listed: {err}"
    );
    let done = d.cli(&["setup", "--yes"]);
    assert!(done.status.success(), "{:?}", text(&done));
    assert_eq!(
        plugin(&listed(&d), "web")["granted"]["http"],
        json!(["html.duckduckgo.com", "*"])
    );
}

#[test]
fn setup_leaves_a_users_own_plugin_alone_and_a_marker_cannot_be_smuggled_in() {
    let d = Daemon::start_with_config(&small_config(&[])).expect("daemon");
    // The user's own "web": a folder with a plugin.toml, the component, and
    // a planted first-party marker, installed with plugin install.
    let folder = tempfile::tempdir().expect("dir");
    std::fs::copy(
        wasm_path("webrig_provider_web"),
        folder.path().join("webrig_provider_web.wasm"),
    )
    .expect("copy");
    std::fs::copy(
        plugins_root().join("providers/web/plugin.toml"),
        folder.path().join("plugin.toml"),
    )
    .expect("copy");
    std::fs::write(folder.path().join("first-party"), "0.1.0").expect("plant");
    let r = d.cmd(
        "default",
        "plugin_install",
        json!({"path": folder.path(), "grant": true}),
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        r["result"]["first_party"], false,
        "the marker is not copied: {r}"
    );

    let done = json_of(&d.cli(&["--json", "setup", "--yes"]));
    assert_eq!(done["ok"], true, "{done}");
    let steps = done["result"]["plugins"].as_array().expect("plugins");
    let web = steps.iter().find(|p| p["id"] == "web").expect("web");
    assert_eq!(web["action"], "skipped", "{web}");
    assert!(
        web["note"]
            .as_str()
            .is_some_and(|n| n.contains("webrig plugin remove web")),
        "{web}"
    );
    assert_eq!(done["result"]["ready"], false, "{done}");
    assert_eq!(plugin(&listed(&d), "web")["first_party"], false);
    assert_eq!(listed(&d).len(), CARRIED.len());

    // Over HTTP: an `approved` that is not what the plugins ask for
    // installs nothing.
    d.ok("default", "plugin_remove", json!({"id": "social"}));
    let forged = d.cmd(
        "default",
        "setup",
        json!({"approved": {"social": {"http": ["evil.example"], "browser": "none", "cache": false}}}),
    );
    assert_eq!(forged["error"]["code"], "forbidden", "{forged}");
    assert_eq!(listed(&d).len(), CARRIED.len() - 1, "nothing installed");
    // Hostile arguments are refused whole.
    let bad = d.cmd("default", "setup", json!({"yes": "please"}));
    assert_eq!(bad["error"]["code"], "invalid_argument", "{bad}");
    let unknown = d.cmd("default", "setup", json!({"yes": true, "path": "/etc"}));
    assert_eq!(unknown["error"]["code"], "invalid_argument", "{unknown}");
}

/// Runs `webrig ARGS` on a pseudo-terminal (util-linux `script`) with
/// `answer` typed in; None when `script` is not installed.
fn at_a_terminal(d: &Daemon, args: &str, answer: &str) -> Option<Output> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let line = format!("{} {args}", webrig_tests::webrig_bin().display());
    let mut child = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .env("WEBRIG_HOME", d.home())
        .env("WEBRIG_PORT", d.port().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let _ = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(answer.as_bytes());
    Some(child.wait_with_output().expect("script runs"))
}

#[test]
fn at_a_terminal_the_first_command_offers_setup_once_then_runs() {
    let d = Daemon::start_with_config(&small_config(&[])).expect("daemon");
    let Some(no) = at_a_terminal(&d, "search webassembly --source web", "n\n") else {
        eprintln!("SKIPPED: needs util-linux `script` for a terminal");
        return;
    };
    let said = String::from_utf8_lossy(&no.stdout).into_owned();
    assert!(!no.status.success(), "{said}");
    assert!(
        said.contains("html.duckduckgo.com") && said.contains("[y/N]"),
        "the grants are shown before it asks: {said}"
    );
    assert!(said.contains("nothing was installed"), "{said}");
    assert_eq!(listed(&d), Vec::<Value>::new(), "no: nothing installed");

    let yes = at_a_terminal(&d, "search webassembly --source web", "y\n").expect("script");
    let said = String::from_utf8_lossy(&yes.stdout).into_owned();
    assert!(yes.status.success(), "{said}");
    assert_eq!(said.matches("[y/N]").count(), 1, "asked once: {said}");
    assert!(said.contains("installed web 0.1.0"), "{said}");
    assert_eq!(listed(&d).len(), CARRIED.len());
    // The search itself ran after setup: its results follow.
    let after = said.split("ready: try").nth(1).unwrap_or_default();
    assert!(
        after.contains("http://127.0.0.1"),
        "results after setup: {said}"
    );

    // Installed now: the same command at a terminal asks nothing.
    let again = at_a_terminal(&d, "search webassembly --source web", "").expect("script");
    let said = String::from_utf8_lossy(&again.stdout).into_owned();
    assert!(again.status.success() && !said.contains("[y/N]"), "{said}");
}
