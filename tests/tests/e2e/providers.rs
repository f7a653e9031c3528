//! The provider runtime over the first-party providers pointed at the
//! fixture web: fan-out search and fetch, typed errors, retries, circuit
//! breakers and config edits.

use serde_json::{Value, json};

use super::plugin_install::{plugins_root, wasm_path};
use crate::{Daemon, web};

/// The first-party providers (folders under plugins/providers; each builds
/// `webrig_provider_<name>.wasm`).
const FIRST_PARTY: [&str; 4] = ["web", "community", "shopping", "social"];

/// config.toml pointing the first-party providers at the fixture web;
/// `dead` names providers whose endpoints point at a closed port.
pub fn provider_config(dead: &[&str]) -> String {
    let base = web().url("providers");
    let closed = "http://127.0.0.1:9";
    let at = |id: &str| {
        if dead.contains(&id) {
            closed.to_string()
        } else {
            base.clone()
        }
    };
    format!(
        "[plugins.web]\nbase_url = \"{}/ddg\"\n\
         [plugins.community]\nhn_url = \"{}/hn\"\nreddit_url = \"{}/reddit\"\n\
         [plugins.shop]\nsearch_url = \"{}/shop/search.html?q={{query}}\"\n\
         [plugins.social]\nbase_url = \"{}/mastodon\"\n",
        at("web"),
        at("community"),
        at("community"),
        at("shop"),
        at("social"),
    )
}

/// A daemon with the four first-party providers installed the way users
/// install them (plugin install --grant).
pub fn with_providers(dead: &[&str]) -> Daemon {
    let d = Daemon::start_with_config(&provider_config(dead)).expect("daemon");
    for dir in FIRST_PARTY {
        install_first_party(&d, dir);
    }
    d
}

/// Installs first-party provider `dir` with `--grant`; it must succeed.
pub fn install_first_party(d: &Daemon, dir: &str) {
    let r = d.cmd(
        "default",
        "plugin_install",
        json!({
            "path": wasm_path(&format!("webrig_provider_{dir}")),
            "manifest": plugins_root().join("providers").join(dir).join("plugin.toml"),
            "grant": true,
        }),
    );
    assert_eq!(r["ok"], true, "{dir}: {r}");
}

pub fn by_provider<'a>(out: &'a Value, id: &str) -> Vec<&'a Value> {
    out["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r["provider"] == id)
        .collect()
}

#[test]
fn search_all_merges_four_real_formats_from_the_fixture_web() {
    let d = with_providers(&[]);
    let status = d.ok("default", "providers", json!({}));
    let sources: Vec<&str> = status
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|s| s["source"].as_str())
        .collect();
    assert_eq!(
        sources,
        ["community", "shopping", "social", "web"],
        "{status}"
    );

    let out = d.ok(
        "default",
        "search",
        json!({ "query": "webrig", "source": "all", "limit": 40 }),
    );
    assert_eq!(out["failures"], json!([]), "{out}");
    let web_hits = by_provider(&out, "web");
    assert!(web_hits.len() >= 5, "{out}");
    for hit in &web_hits {
        let (url, title) = (
            hit["url"].as_str().unwrap_or(""),
            hit["title"].as_str().unwrap_or(""),
        );
        assert!(
            !url.contains("duckduckgo.com"),
            "DDG links are unwrapped, ads skipped: {url}"
        );
        assert!(!title.is_empty() && title != url, "a real title: {hit}");
    }
    assert!(
        web_hits
            .iter()
            .any(|h| h["url"] == "https://webrig.example.org/docs/getting-started?ref=ddg&lang=en"),
        "{out}"
    );
    let community = by_provider(&out, "community");
    assert!(
        community.iter().any(|h| h["extra"]["site"] == "hackernews"),
        "{out}"
    );
    assert!(
        community.iter().any(|h| h["extra"]["site"] == "reddit"),
        "{out}"
    );
    for h in &community {
        let p = h["published"]
            .as_str()
            .expect("community posts say when they were published");
        assert!(p.len() >= 20 && p.as_bytes()[10] == b'T', "RFC 3339: {p}");
    }
    let shop = by_provider(&out, "shop");
    assert!(shop.len() >= 2, "{out}");
    assert!(
        shop.iter()
            .all(|h| h["extra"]["price"].is_string() && h["extra"]["currency"].is_string()),
        "{out}"
    );
    let social = by_provider(&out, "social");
    assert!(
        !social.is_empty() && social.iter().all(|h| h["extra"]["author"].is_string()),
        "{out}"
    );
    // Interleaved: the first four results come from four providers.
    let first: std::collections::HashSet<&str> = out["results"].as_array().expect("results")[..4]
        .iter()
        .filter_map(|r| r["provider"].as_str())
        .collect();
    assert_eq!(first.len(), 4, "{out}");
    assert_eq!(out["meta"]["timings"].as_object().map(|m| m.len()), Some(4));

    // auto: web and community for a plain query; social joins for a #tag.
    let auto = d.ok(
        "default",
        "search",
        json!({ "query": "webrig", "limit": 40 }),
    );
    assert_eq!(auto["meta"]["providers"], json!(["community", "web"]));
    let tagged = d.ok(
        "default",
        "search",
        json!({ "query": "#webrig", "limit": 5 }),
    );
    assert_eq!(
        tagged["meta"]["providers"],
        json!(["community", "social", "web"])
    );
    let only = d.ok(
        "default",
        "search",
        json!({ "query": "trail shoes", "source": "shopping" }),
    );
    assert_eq!(only["meta"]["providers"], json!(["shop"]));
}

#[test]
fn fetch_reads_an_article_and_a_product_page() {
    let d = with_providers(&[]);
    let page = d.ok(
        "default",
        "fetch",
        json!({ "url": web().url("providers/articles/agents-need-a-browser.html") }),
    );
    assert_eq!(page["provider"], "web");
    assert!(
        page["title"]
            .as_str()
            .unwrap_or("")
            .contains("Why AI agents need a real browser"),
        "{page}"
    );
    let published = page["published"].as_str().expect("published");
    assert!(published.starts_with("20"), "{published}");
    let text = page["text"].as_str().unwrap_or("");
    assert!(text.len() > 500, "{page}");
    let product = d.ok(
        "default",
        "fetch",
        json!({ "url": web().url("providers/shop/products/merino-socks.html"), "provider": "shop" }),
    );
    assert_eq!(product["provider"], "shop");
    assert!(product["metadata"]["price"].is_string(), "{product}");
    // A page that is not there is the provider's `not_found`, not a crash.
    let missing = d.cmd(
        "default",
        "fetch",
        json!({ "url": web().url("providers/articles/nope.html") }),
    );
    assert_eq!(missing["error"]["code"], "not_found", "{missing}");
}

#[test]
fn a_dead_provider_fails_alone_then_its_circuit_opens() {
    let d = with_providers(&["community"]);
    // Two searches: three failed attempts (a search retries once), so the
    // breaker opens; the second search still reports the real cause.
    for round in 0..2 {
        let out = d.ok(
            "default",
            "search",
            json!({ "query": "webrig", "source": "all" }),
        );
        assert!(
            !by_provider(&out, "web").is_empty(),
            "partial success: {out}"
        );
        let failures = out["failures"].as_array().expect("failures");
        assert_eq!(failures.len(), 1, "round {round}: {out}");
        assert_eq!(failures[0]["provider"], "community");
        assert_eq!(failures[0]["code"], "network", "{out}");
    }
    let status = d.ok("default", "providers_status", json!({}));
    let community = status
        .as_array()
        .expect("status")
        .iter()
        .find(|s| s["id"] == "community")
        .expect("community");
    assert_eq!(community["breaker"], "open", "{status}");
    assert!(community["last_error"].is_string());
    let out = d.ok(
        "default",
        "search",
        json!({ "query": "webrig", "source": "all" }),
    );
    let f = &out["failures"][0];
    assert_eq!(f["code"], "circuit_open", "{out}");
    assert!(
        out["meta"]["timings"]["community"].as_u64().unwrap_or(99) < 50,
        "refused at once: {out}"
    );
    let web_status = status
        .as_array()
        .expect("s")
        .iter()
        .find(|s| s["id"] == "web")
        .expect("web");
    assert_eq!(web_status["breaker"], "closed");
}

#[test]
fn provider_errors_are_typed_and_not_counted_against_health() {
    let d = Daemon::start_with_config("").expect("daemon");
    install_first_party(&d, "shopping");
    // No search_url configured: the provider says so.
    let out = d.ok(
        "default",
        "search",
        json!({ "query": "socks", "source": "shopping" }),
    );
    assert_eq!(out["failures"][0]["code"], "invalid_input", "{out}");
    assert!(
        out["failures"][0]["message"]
            .as_str()
            .unwrap_or("")
            .contains("search_url"),
        "{out}"
    );
    let status = d.ok("default", "providers_status", json!({}));
    assert_eq!(status[0]["breaker"], "closed", "{status}");
}

#[test]
fn auth_and_rate_limit_answers_cool_the_provider_down() {
    for (status, code) in [(401, "auth"), (429, "rate_limited")] {
        let config = format!(
            "[plugins.social]\nbase_url = \"{}?to=\"\n",
            web().url(&format!("status/{status}"))
        );
        let d = Daemon::start_with_config(&config).expect("daemon");
        install_first_party(&d, "social");
        let out = d.ok(
            "default",
            "search",
            json!({ "query": "#webrig", "source": "social" }),
        );
        assert_eq!(out["failures"][0]["code"], code, "{status}: {out}");
        let status_now = d.ok("default", "providers_status", json!({}));
        assert_eq!(
            status_now[0]["breaker"], "cooldown",
            "{status}: {status_now}"
        );
        assert!(
            status_now[0]["retry_in_ms"].as_u64().unwrap_or(0) > 25_000,
            "{status_now}"
        );
        // Refused at once while cooling down, without calling the service.
        let again = d.ok(
            "default",
            "search",
            json!({ "query": "#webrig", "source": "social" }),
        );
        assert_eq!(again["failures"][0]["code"], "rate_limited", "{again}");
        assert!(
            again["failures"][0]["message"]
                .as_str()
                .unwrap_or("")
                .contains("cooling down"),
            "{again}"
        );
        assert_eq!(
            d.ok("default", "providers_status", json!({}))[0]["calls"],
            1,
            "no second call went out"
        );
    }
}

#[test]
fn not_found_passes_through_without_retries_or_the_breaker() {
    let d = with_providers(&[]);
    let missing = web().url("providers/articles/nope.html");
    for _ in 0..4 {
        d.err("default", "fetch", json!({ "url": missing }), "not_found");
    }
    let status = d.ok("default", "providers_status", json!({}));
    let web_status = status
        .as_array()
        .expect("list")
        .iter()
        .find(|s| s["id"] == "web")
        .cloned()
        .expect("web provider");
    assert_eq!(web_status["breaker"], "closed", "{web_status}");
    assert_eq!(web_status["consecutive_failures"], 0, "{web_status}");
    assert_eq!(
        web_status["calls"], 4,
        "one call per fetch, no retries: {web_status}"
    );
    // Search through the same provider still works.
    let out = d.ok(
        "default",
        "search",
        json!({ "query": "webrig", "source": "web" }),
    );
    assert_eq!(out["failures"], json!([]), "{out}");
}

#[test]
fn a_search_where_every_provider_failed_exits_with_plugin_failed() {
    let d = with_providers(&["web", "community", "shop", "social"]);
    let out = d.cli(&["search", "webrig", "--source", "all"]);
    assert_eq!(out.status.code(), Some(12), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("web") && text.contains("community"),
        "each failure is shown: {text}"
    );
    // One provider answering is a partial success: exit 0.
    let d = with_providers(&["community", "shop", "social"]);
    let out = d.cli(&["search", "webrig", "--source", "all"]);
    assert!(out.status.success(), "{out:?}");
}

fn breaker_of(d: &Daemon, id: &str) -> Value {
    let status = d.ok("default", "providers_status", json!({}));
    status
        .as_array()
        .expect("status")
        .iter()
        .find(|s| s["id"] == id)
        .cloned()
        .expect("the provider")
}

#[test]
fn an_edited_config_applies_at_once_and_gives_the_provider_a_fresh_breaker() {
    let d = with_providers(&["community"]);
    for _ in 0..2 {
        d.ok(
            "default",
            "search",
            json!({ "query": "webrig", "source": "all" }),
        );
    }
    assert_eq!(breaker_of(&d, "community")["breaker"], "open");
    // The user fixes the endpoint: no reload, no restart.
    std::fs::write(d.home().join("config.toml"), provider_config(&[])).expect("config");
    let out = d.ok(
        "default",
        "search",
        json!({ "query": "webrig", "source": "all" }),
    );
    assert_eq!(out["failures"], json!([]), "{out}");
    assert!(!by_provider(&out, "community").is_empty(), "{out}");
    assert_eq!(breaker_of(&d, "community")["breaker"], "closed");
    // By hand: providers reset, plugin reload.
    let reset = d.ok("default", "providers_reset", json!({ "id": "community" }));
    assert_eq!(reset[0]["breaker"], "closed", "{reset}");
    d.err(
        "default",
        "providers_reset",
        json!({ "id": "nope" }),
        "not_found",
    );
    let reloaded = d.ok("default", "plugin_reload", json!({}));
    assert_eq!(reloaded.as_array().map(Vec::len), Some(4), "{reloaded}");
    let one = d.ok("default", "plugin_reload", json!({ "id": "web" }));
    assert_eq!(one[0]["id"], "web");
    d.err(
        "default",
        "plugin_reload",
        json!({ "id": "nope" }),
        "not_found",
    );
}
