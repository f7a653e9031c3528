//! Plugins through the daemon: install (grants, sha256), tampering, manifest
//! errors, grant/revoke, replacing a plugin, its folders and its grants (the
//! provider runtime itself: `providers.rs`).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::providers::{by_provider, install_first_party, provider_config};
use crate::{Daemon, web};

pub fn plugins_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../plugins")
}

pub fn wasm_path(name: &str) -> PathBuf {
    let p = plugins_root()
        .join("target/wasm32-wasip2/release")
        .join(format!("{name}.wasm"));
    assert!(
        p.is_file(),
        "{} is missing (cargo xtask test builds the plugins first)",
        p.display()
    );
    p
}

fn hello_manifest() -> PathBuf {
    plugins_root().join("examples/hello-provider/plugin.toml")
}

fn install_hello(d: &Daemon, grant: bool) -> Value {
    let mut args = json!({
        "path": wasm_path("hello_provider"),
        "manifest": hello_manifest(),
    });
    if grant {
        args["grant"] = json!(true);
    }
    d.cmd("default", "plugin_install", args)
}

fn sha256_of(path: &Path) -> String {
    use sha2::Digest;
    let bytes = std::fs::read(path).expect("read");
    sha2::Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn install_needs_a_grant_and_records_the_sha256() {
    let d = Daemon::start().expect("daemon");
    let refused = install_hello(&d, false);
    assert_eq!(refused["error"]["code"], "forbidden", "{refused}");
    let msg = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("example.com") && msg.contains("nothing was installed"),
        "{msg}"
    );
    let list = d.ok("default", "plugin_list", json!({}));
    assert_eq!(list, json!([]), "a refused install leaves nothing behind");

    let ok = install_hello(&d, true);
    let v = &ok["result"];
    assert_eq!(v["ready"], true, "{ok}");
    assert_eq!(v["sha256"], sha256_of(&wasm_path("hello_provider")));
    assert_eq!(
        v["granted"]["http"],
        json!(["127.0.0.1:18555", "example.com"])
    );
    let again = install_hello(&d, true);
    assert_eq!(again["error"]["code"], "invalid_argument", "{again}");
    let mut replace = json!({ "path": wasm_path("hello_provider"), "manifest": hello_manifest(), "grant": true, "replace": true });
    assert_eq!(
        d.cmd("default", "plugin_install", replace.take())["ok"],
        true
    );

    let found = d.ok(
        "default",
        "search",
        json!({ "query": "rig", "source": "all", "limit": 2 }),
    );
    let titles: Vec<&str> = found["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["title"].as_str())
        .collect();
    assert_eq!(titles, ["Hello, rig #1", "Hello, rig #2"]);
    assert_eq!(found["failures"], json!([]));
    assert_eq!(found["meta"]["providers"], json!(["hello-provider"]));

    let info = d.ok("default", "plugin_info", json!({ "id": "hello-provider" }));
    assert_eq!(info["operations"], json!(["search", "fetch"]));
    d.ok(
        "default",
        "plugin_remove",
        json!({ "id": "hello-provider" }),
    );
    assert_eq!(d.ok("default", "plugin_list", json!({})), json!([]));
    d.err(
        "default",
        "plugin_info",
        json!({ "id": "hello-provider" }),
        "not_found",
    );
    d.err("default", "search", json!({ "query": "rig" }), "not_found");
}

#[test]
fn a_tampered_component_is_refused_and_the_daemon_serves_on() {
    let mut d = Daemon::start().expect("daemon");
    assert_eq!(install_hello(&d, true)["ok"], true);
    let installed = d.home().join("plugins/hello-provider/hello_provider.wasm");
    let mut bytes = std::fs::read(&installed).expect("installed");
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    std::fs::write(&installed, &bytes).expect("tamper");

    let verify = d.ok("default", "plugin_verify", json!({}));
    assert_eq!(verify[0]["ok"], false, "{verify}");
    // The CLI prints BAD and fails with plugin_failed's exit code.
    let cli = d.cli(&["plugin", "verify"]);
    assert_eq!(cli.status.code(), Some(12), "{cli:?}");
    d.crash_and_restart().expect("restart");
    let status = d.ok("default", "providers", json!({}));
    assert_eq!(status[0]["ready"], false, "{status}");
    let why = status[0]["error"].as_str().unwrap_or_default();
    assert!(why.contains("changed since it was installed"), "{why}");
    // Installed but refused: not ready, saying which and why.
    let e = d.err(
        "default",
        "search",
        json!({ "query": "x", "source": "all" }),
        "unsupported",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("hello-provider: refused at load"),
        "{e}"
    );
    // The daemon carries on, and a reinstall makes it usable again.
    let again = json!({ "path": wasm_path("hello_provider"), "manifest": hello_manifest(), "grant": true, "replace": true });
    assert_eq!(d.cmd("default", "plugin_install", again)["ok"], true);
    let found = d.ok(
        "default",
        "search",
        json!({ "query": "back", "source": "all" }),
    );
    assert_eq!(found["results"][0]["title"], "Hello, back #1");
}

#[test]
fn a_manifest_sha256_that_does_not_match_is_refused_at_install() {
    let d = Daemon::start().expect("daemon");
    let dir = tempfile::tempdir().expect("dir");
    let manifest = std::fs::read_to_string(hello_manifest()).expect("manifest");
    let bad = manifest.replace(
        "component = \"hello_provider.wasm\"",
        &format!(
            "component = \"hello_provider.wasm\"\nsha256 = \"{}\"",
            "ab".repeat(32)
        ),
    );
    std::fs::write(dir.path().join("plugin.toml"), bad).expect("write");
    std::fs::copy(
        wasm_path("hello_provider"),
        dir.path().join("hello_provider.wasm"),
    )
    .expect("copy");
    let r = d.cmd(
        "default",
        "plugin_install",
        json!({ "path": dir.path(), "grant": true }),
    );
    assert_eq!(r["error"]["code"], "forbidden", "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("sha256"),
        "{r}"
    );
    assert_eq!(d.ok("default", "plugin_list", json!({})), json!([]));
}

#[test]
fn a_malformed_manifest_is_a_clear_error_naming_the_field() {
    let d = Daemon::start().expect("daemon");
    let good = std::fs::read_to_string(hello_manifest()).expect("manifest");
    let cases = [
        (
            good.replace("kind = \"provider\"", "kind = \"daemon\""),
            "kind",
        ),
        (
            good.replace("memory_mb = 32", "memory_mb = 0"),
            "limits.memory_mb",
        ),
        (
            good.replace("[capabilities]", "[capabilitiez]"),
            "capabilitiez",
        ),
        (
            good.replace("\"example.com\"", "\"https://example.com/x\""),
            "capabilities.http",
        ),
        (
            good.replace("id = \"hello-provider\"", "id = \"Hello Provider\""),
            "id",
        ),
        (good.replace("wit = \"0.1.0\"", "wit = \"9.0.0\""), "wit"),
        (
            good.replace(
                "component = \"hello_provider.wasm\"",
                "component = \"../x.wasm\"",
            ),
            "component",
        ),
        ("id = [".to_string(), "plugin.toml"),
    ];
    for (text, field) in cases {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::write(dir.path().join("plugin.toml"), &text).expect("write");
        std::fs::copy(
            wasm_path("hello_provider"),
            dir.path().join("hello_provider.wasm"),
        )
        .expect("copy");
        let r = d.cmd(
            "default",
            "plugin_install",
            json!({ "path": dir.path(), "grant": true }),
        );
        assert_eq!(r["error"]["code"], "invalid_argument", "{field}: {r}");
        let msg = r["error"]["message"].as_str().unwrap_or_default();
        assert!(msg.contains(field), "{field}: {msg}");
    }
    // Not a component at all.
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("plugin.toml"), &good).expect("write");
    std::fs::write(dir.path().join("hello_provider.wasm"), b"not wasm").expect("write");
    let r = d.cmd(
        "default",
        "plugin_install",
        json!({ "path": dir.path(), "grant": true }),
    );
    assert_eq!(r["error"]["code"], "invalid_argument", "{r}");
    assert_eq!(d.ok("default", "plugin_list", json!({})), json!([]));
    // And the daemon still installs a good one.
    assert_eq!(install_hello(&d, true)["ok"], true);
}

#[test]
fn revoking_a_host_denies_it_on_the_next_call() {
    let d = Daemon::start().expect("daemon");
    assert_eq!(install_hello(&d, true)["ok"], true);
    let v = d.ok(
        "default",
        "plugin_revoke",
        json!({ "id": "hello-provider", "http": ["example.com"] }),
    );
    assert_eq!(v["granted"]["http"], json!(["127.0.0.1:18555"]));
    let r = d.cmd(
        "default",
        "fetch",
        json!({ "url": "http://example.com/", "provider": "hello-provider" }),
    );
    assert_eq!(r["error"]["code"], "plugin_failed", "{r}");
    let msg = r["error"]["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("policy_blocked") && msg.contains("example.com"),
        "{msg}"
    );
    // A host the manifest never asked for cannot be granted.
    d.err(
        "default",
        "plugin_grant",
        json!({ "id": "hello-provider", "http": ["evil.test"] }),
        "invalid_argument",
    );
    let v = d.ok(
        "default",
        "plugin_grant",
        json!({ "id": "hello-provider", "all": true }),
    );
    assert_eq!(
        v["granted"]["http"],
        json!(["127.0.0.1:18555", "example.com"])
    );
    // Loopback stays closed unless that exact host was granted.
    let r = d.cmd(
        "default",
        "fetch",
        json!({ "url": web().url("index.html"), "provider": "hello-provider" }),
    );
    assert_eq!(r["error"]["code"], "plugin_failed", "{r}");
}

#[test]
fn bad_search_and_fetch_input_is_refused_up_front() {
    let d = Daemon::start().expect("daemon");
    assert_eq!(install_hello(&d, true)["ok"], true);
    d.err(
        "default",
        "search",
        json!({ "query": "  " }),
        "invalid_argument",
    );
    d.err(
        "default",
        "search",
        json!({ "query": "x", "source": "everything" }),
        "invalid_argument",
    );
    d.err(
        "default",
        "search",
        json!({ "query": "x", "limit": 0 }),
        "invalid_argument",
    );
    d.err(
        "default",
        "search",
        json!({ "query": "x".repeat(5000) }),
        "invalid_argument",
    );
    d.err(
        "default",
        "fetch",
        json!({ "url": "not a url" }),
        "invalid_argument",
    );
    d.err(
        "default",
        "fetch",
        json!({ "url": "file:///etc/passwd" }),
        "invalid_argument",
    );
    d.err(
        "default",
        "fetch",
        json!({ "url": "http://x.test/", "provider": "nope" }),
        "not_found",
    );
}

/// The sandbox guest installed with a manifest asking for `capabilities`.
pub fn install_sandbox_guest(d: &Daemon, capabilities: &str) -> tempfile::TempDir {
    install_sandbox_guest_within(d, capabilities, 20_000)
}

/// The same, with a call deadline of `time_ms`.
pub fn install_sandbox_guest_within(
    d: &Daemon,
    capabilities: &str,
    time_ms: u32,
) -> tempfile::TempDir {
    let dir = sandbox_guest_dir(capabilities, time_ms);
    let r = d.cmd(
        "default",
        "plugin_install",
        json!({ "path": dir.path(), "grant": true }),
    );
    assert_eq!(r["ok"], true, "{r}");
    dir
}

/// A folder holding the sandbox guest and a manifest asking for `capabilities`.
pub fn sandbox_guest_dir(capabilities: &str, time_ms: u32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("dir");
    let manifest = format!(
        "id = \"sandbox-guest\"\nversion = \"0.1.0\"\nkind = \"provider\"\nwit = \"0.1.0\"\n\
         component = \"sandbox_guest.wasm\"\n[capabilities]\n{capabilities}\n[limits]\ntime_ms = {time_ms}\n"
    );
    std::fs::write(dir.path().join("plugin.toml"), manifest).expect("write");
    std::fs::copy(
        wasm_path("sandbox_guest"),
        dir.path().join("sandbox_guest.wasm"),
    )
    .expect("copy");
    dir
}

#[test]
fn a_plugin_granted_the_browser_reads_pages_in_its_own_session() {
    let d = Daemon::start().expect("daemon");
    let host = format!("127.0.0.1:{}", web().port());
    let _dir = install_sandbox_guest(&d, &format!("http = [\"{host}\"]\nbrowser = \"read\""));
    let out = d.ok(
        "default",
        "search",
        json!({ "query": format!("browse:{}", web().url("index.html")), "source": "all" }),
    );
    assert_eq!(out["failures"], json!([]), "{out}");
    let hit = &out["results"][0];
    assert_eq!(
        hit["title"], "Fixture Shop",
        "the h1, through extract: {out}"
    );
    let outline = hit["snippet"].as_str().unwrap_or_default();
    assert!(outline.starts_with("page \"Fixture Shop"), "{outline}");
    assert_eq!(hit["extra"]["png"], "true");
    assert!(
        hit["extra"]["bad_selector"]
            .as_str()
            .unwrap_or("")
            .contains("InvalidInput"),
        "{out}"
    );
    let sessions = d.ok("default", "sessions", json!({}));
    assert!(
        sessions.to_string().contains("plugin-sandbox-guest"),
        "{sessions}"
    );

    // open() is held to the plugin's HTTP grant: another host is denied.
    let other = format!("browse:http://localhost:{}/index.html", web().port());
    let out = d.ok(
        "default",
        "search",
        json!({ "query": other, "source": "all" }),
    );
    assert_eq!(out["failures"][0]["code"], "policy_blocked", "{out}");
    // A granted page that redirects elsewhere cannot be read there.
    let away = format!(
        "browse:{}",
        web().url(&format!(
            "redirect?to=http://localhost:{}/index.html",
            web().port()
        ))
    );
    let out = d.ok(
        "default",
        "search",
        json!({ "query": away, "source": "all" }),
    );
    assert_eq!(out["failures"][0]["code"], "policy_blocked", "{out}");
    let msg = out["failures"][0]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("navigated away"), "{msg}");
    // Users cannot create a plugin's session (its plugin could read it),
    // but can close one.
    d.err(
        "plugin-other",
        "goto",
        json!({ "url": web().url("index.html") }),
        "invalid_argument",
    );
    d.ok("plugin-sandbox-guest", "close", json!({}));
}

#[test]
fn a_failed_replace_keeps_the_installed_plugin_working() {
    let d = Daemon::start().expect("daemon");
    assert_eq!(install_hello(&d, true)["ok"], true);
    let dir = tempfile::tempdir().expect("dir");
    std::fs::copy(hello_manifest(), dir.path().join("plugin.toml")).expect("copy");
    // A core module, not a component: it does not link.
    std::fs::write(dir.path().join("hello_provider.wasm"), b"\0asm\x01\0\0\0").expect("write");
    let r = d.cmd(
        "default",
        "plugin_install",
        json!({ "path": dir.path(), "grant": true, "replace": true }),
    );
    assert_eq!(r["error"]["code"], "invalid_argument", "{r}");
    let found = d.ok(
        "default",
        "search",
        json!({ "query": "still", "source": "all" }),
    );
    assert_eq!(found["results"][0]["title"], "Hello, still #1", "{found}");
    let verify = d.ok("default", "plugin_verify", json!({}));
    assert_eq!(verify[0]["ok"], true, "{verify}");
}

#[test]
fn an_install_whose_manifest_changed_after_approval_is_refused() {
    let d = Daemon::start().expect("daemon");
    // What the prompt showed: only example.com.
    let approved = json!({ "http": ["example.com"], "http_from_config": [], "browser": "none", "cache": false });
    let r = d.cmd(
        "default",
        "plugin_install",
        json!({
            "path": wasm_path("hello_provider"),
            "manifest": hello_manifest(),
            "grant": true,
            "approved": approved,
        }),
    );
    assert_eq!(r["error"]["code"], "forbidden", "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("after you approved it"),
        "{r}"
    );
    assert_eq!(d.ok("default", "plugin_list", json!({})), json!([]));
    // The same request with what the manifest really asks installs.
    let exact = json!({ "http": ["127.0.0.1:18555", "example.com"], "http_from_config": [], "browser": "none", "cache": false });
    let r = d.cmd(
        "default",
        "plugin_install",
        json!({ "path": wasm_path("hello_provider"), "manifest": hello_manifest(), "grant": true, "approved": exact }),
    );
    assert_eq!(r["ok"], true, "{r}");
}

#[test]
fn plugin_folders_are_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let d = Daemon::start().expect("daemon");
    assert_eq!(install_hello(&d, true)["ok"], true);
    let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
    let plugins = d.home().join("plugins");
    assert_eq!(mode(&plugins), 0o700);
    for dir in std::fs::read_dir(&plugins).expect("plugins").flatten() {
        assert_eq!(mode(&dir.path()), 0o700, "{}", dir.path().display());
        for file in std::fs::read_dir(dir.path()).expect("plugin").flatten() {
            assert_eq!(mode(&file.path()), 0o600, "{}", file.path().display());
        }
    }
}

#[test]
fn fetch_routes_by_host_and_port() {
    // The shop lives on a second server: same host, another port.
    let shop = webrig_tests::FixtureWeb::start_on(webrig_tests::fixture_dir(), 0);
    let config = provider_config(&[]).replace(
        &format!("search_url = \"{}", web().url("providers")),
        &format!("search_url = \"{}", shop.url("providers")),
    );
    assert!(config.contains(&shop.port().to_string()), "{config}");
    let d = Daemon::start_with_config(&config).expect("daemon");
    for dir in ["web", "shopping"] {
        install_first_party(&d, dir);
    }
    let product = d.ok(
        "default",
        "fetch",
        json!({ "url": shop.url("providers/shop/products/merino-socks.html") }),
    );
    assert_eq!(product["provider"], "shop", "routed by port: {product}");
    let article = d.ok(
        "default",
        "fetch",
        json!({ "url": web().url("providers/articles/agents-need-a-browser.html") }),
    );
    assert_eq!(article["provider"], "web", "{article}");
    // A port nobody was granted: the message names host:port.
    let e = d.err(
        "default",
        "fetch",
        json!({ "url": "http://127.0.0.1:9/x", "provider": "web" }),
        "plugin_failed",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("127.0.0.1:9"),
        "{e}"
    );
}

#[test]
fn a_component_changed_while_the_daemon_runs_is_refused_at_once() {
    let d = Daemon::start().expect("daemon");
    assert_eq!(install_hello(&d, true)["ok"], true);
    let found = d.ok(
        "default",
        "search",
        json!({ "query": "x", "source": "all" }),
    );
    assert_eq!(found["failures"], json!([]), "{found}");
    // Same size, one bit flipped, no restart and no reload.
    let installed = d.home().join("plugins/hello-provider/hello_provider.wasm");
    let mut bytes = std::fs::read(&installed).expect("installed");
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    std::fs::write(&installed, &bytes).expect("tamper");
    let list = d.ok("default", "plugin_list", json!({}));
    assert_eq!(list[0]["ready"], false, "{list}");
    assert!(
        list[0]["error"]
            .as_str()
            .unwrap_or_default()
            .contains("changed since it was installed"),
        "{list}"
    );
    let out = d.cmd(
        "default",
        "search",
        json!({ "query": "x", "source": "all" }),
    );
    let text = out.to_string();
    assert!(
        out["ok"] == false || text.contains("changed since it was installed"),
        "the next call is refused: {out}"
    );
    assert!(
        out["result"]["results"]
            .as_array()
            .is_none_or(|r| r.is_empty()),
        "{out}"
    );
    // Putting the bytes back does not bring it back without a reinstall.
    bytes[last] ^= 0x01;
    std::fs::write(&installed, &bytes).expect("restore");
    let list = d.ok("default", "plugin_list", json!({}));
    assert_eq!(list[0]["ready"], false, "{list}");
}

#[test]
fn a_manifest_id_that_describe_disowns_is_refused_at_install() {
    let d = Daemon::start().expect("daemon");
    let dir = tempfile::tempdir().expect("dir");
    let manifest = std::fs::read_to_string(hello_manifest())
        .expect("manifest")
        .replace("id = \"hello-provider\"", "id = \"someone-else\"");
    let path = dir.path().join("plugin.toml");
    std::fs::write(&path, manifest).expect("write");
    let r = d.cmd(
        "default",
        "plugin_install",
        json!({ "path": wasm_path("hello_provider"), "manifest": path, "grant": true }),
    );
    assert_eq!(r["ok"], false, "{r}");
    let message = r["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("describe() says its id is \"hello-provider\"")
            && message.contains("someone-else"),
        "{r}"
    );
    assert_eq!(d.ok("default", "plugin_list", json!({})), json!([]));
}

#[test]
fn a_bad_endpoint_setting_names_the_plugin_and_the_key() {
    let d = Daemon::start_with_config("[plugins.web]\nbase_url = \"not a url\"\n").expect("daemon");
    let r = d.cmd(
        "default",
        "plugin_install",
        json!({
            "path": wasm_path("webrig_provider_web"),
            "manifest": plugins_root().join("providers/web/plugin.toml"),
            "grant": true,
        }),
    );
    let message = r["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("[plugins.web] base_url = \"not a url\" is not a usable URL"),
        "{r}"
    );
    let list = d.ok("default", "plugin_list", json!({}));
    assert_eq!(list[0]["ready"], false, "{list}");
    // Fixed in config.toml: the next provider command applies it.
    std::fs::write(d.home().join("config.toml"), provider_config(&[])).expect("config");
    let out = d.ok(
        "default",
        "search",
        json!({ "query": "webrig", "source": "web" }),
    );
    assert!(!by_provider(&out, "web").is_empty(), "{out}");
}

#[test]
fn grants_are_shown_as_they_are_and_config_is_consent() {
    let d = Daemon::start_with_config(&provider_config(&[])).expect("daemon");
    let port = web().port();
    // A manifest asking only for a configured endpoint needs no --grant.
    let dir = tempfile::tempdir().expect("dir");
    let manifest = std::fs::read_to_string(hello_manifest())
        .expect("manifest")
        .replace(
            "http = [\"127.0.0.1:18555\", \"example.com\"]",
            "http_from_config = [\"base_url\"]",
        );
    let path = dir.path().join("plugin.toml");
    std::fs::write(&path, &manifest).expect("write");
    std::fs::write(
        d.home().join("config.toml"),
        format!(
            "{}[plugins.hello-provider]\nbase_url = \"{}\"\n",
            provider_config(&[]),
            web().url("")
        ),
    )
    .expect("config");
    let v = d.ok(
        "default",
        "plugin_install",
        json!({ "path": wasm_path("hello_provider"), "manifest": path }),
    );
    assert_eq!(
        v["endpoints"]["base_url"],
        format!("127.0.0.1:{port}"),
        "{v}"
    );
    // The CLI shows the resolved host:port, not a placeholder.
    let out = d.cli(&["plugin", "info", "hello-provider"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!(
            "http: 127.0.0.1:{port} (your [plugins.hello-provider] base_url"
        )),
        "{text}"
    );
    // Revoking everything says the configured endpoint stays.
    let out = d.cli(&["plugin", "revoke", "hello-provider", "--all"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("configured endpoints stay reachable"),
        "{text}"
    );
    // --replace asking for nothing new keeps the earlier consent.
    let r = install_hello(&d, true);
    assert_eq!(
        r["ok"], false,
        "another id is already installed under this name: {r}"
    );
    let again = d.cmd(
        "default",
        "plugin_install",
        json!({ "path": wasm_path("hello_provider"), "manifest": path, "replace": true }),
    );
    assert_eq!(again["ok"], true, "{again}");
}

#[test]
fn a_replace_that_asks_for_more_still_needs_a_grant() {
    let d = Daemon::start().expect("daemon");
    let dir = tempfile::tempdir().expect("dir");
    let narrow = std::fs::read_to_string(hello_manifest())
        .expect("manifest")
        .replace(
            "http = [\"127.0.0.1:18555\", \"example.com\"]",
            "http = [\"127.0.0.1:18555\"]",
        );
    let path = dir.path().join("plugin.toml");
    std::fs::write(&path, &narrow).expect("write");
    let v = d.cmd(
        "default",
        "plugin_install",
        json!({ "path": wasm_path("hello_provider"), "manifest": path, "grant": true }),
    );
    assert_eq!(v["ok"], true, "{v}");
    // Same asks: no grant needed. More asks: refused without --grant.
    let same = d.cmd(
        "default",
        "plugin_install",
        json!({ "path": wasm_path("hello_provider"), "manifest": path, "replace": true }),
    );
    assert_eq!(same["ok"], true, "{same}");
    let more = d.cmd(
        "default",
        "plugin_install",
        json!({ "path": wasm_path("hello_provider"), "manifest": hello_manifest(), "replace": true }),
    );
    assert_eq!(more["error"]["code"], "forbidden", "{more}");
}

/// `[policy]` in config holds plugins too: a host a plugin was granted
/// but the policy blocks is refused to its HTTP and to its browser (the
/// stricter of the grant and the policy wins).
#[test]
fn the_configured_domain_policy_holds_a_plugins_grant() {
    let host = format!("127.0.0.1:{}", web().port());
    let d =
        Daemon::start_with_config(&format!("[policy]\nblock = [\"{host}\"]\n")).expect("daemon");
    let _dir = install_sandbox_guest(&d, &format!("http = [\"{host}\"]\nbrowser = \"read\""));
    for query in [
        format!("fetch:{}", web().url("index.html")),
        format!("browse:{}", web().url("index.html")),
    ] {
        let out = d.cmd(
            "default",
            "search",
            json!({ "query": query, "source": "all" }),
        );
        let text = out.to_string();
        assert!(
            out["ok"] == false
                || out["result"]["failures"]
                    .as_array()
                    .is_some_and(|f| !f.is_empty()),
            "{query}: {text}"
        );
        assert!(
            text.contains("[policy]"),
            "{query}: the refusal names the policy: {text}"
        );
        assert!(
            !text.contains("Fixture Shop"),
            "{query}: the page was read: {text}"
        );
    }
}
