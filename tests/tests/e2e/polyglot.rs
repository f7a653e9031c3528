//! Providers written in other languages than Rust, through the real daemon:
//! the JavaScript example (plugins/examples/js-provider, componentized with
//! jco) installed with --grant, searching and fetching the fixture web.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::plugin_install::plugins_root;
use crate::{Daemon, web};

fn js_dir() -> PathBuf {
    plugins_root().join("examples/js-provider")
}

/// The built component; missing is a failure that says how to build it.
fn js_wasm() -> PathBuf {
    let p = js_dir().join("js_provider.wasm");
    assert!(
        p.is_file(),
        "{} is missing: build it with `npm ci && npm run build` in {} (Node.js 20+ and \
         the npm registry), or run `cargo xtask test`, which builds it when node is installed",
        p.display(),
        js_dir().display()
    );
    p
}

fn titles_and_urls(out: &Value) -> Vec<(String, String)> {
    out["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["title"].as_str().unwrap_or_default().to_string(),
                r["url"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_javascript_provider_searches_and_fetches_the_fixture_web() {
    let wasm = js_wasm();
    let config = format!(
        "[plugins.js-example]\nbase_url = \"{}\"\n",
        web().url("providers/js")
    );
    let d = Daemon::start_with_config(&config).expect("daemon");
    // A 13 MB component: compiling it in a debug daemon takes seconds.
    let installed = d.request(json!({
        "session": "default",
        "command": "plugin_install",
        "timeout_ms": 120_000,
        "args": { "path": wasm, "manifest": js_dir().join("plugin.toml"), "grant": true },
    }));
    assert_eq!(installed["ok"], true, "{installed}");
    assert_eq!(installed["result"]["ready"], true, "{installed}");
    assert_eq!(
        installed["result"]["granted"]["http"],
        json!([]),
        "{installed}"
    );

    let info = d.ok("default", "plugin_info", json!({ "id": "js-example" }));
    assert_eq!(info["operations"], json!(["search", "fetch"]), "{info}");
    assert_eq!(info["source"], "web", "{info}");

    let found = d.ok(
        "default",
        "search",
        json!({ "query": "webrig", "source": "web", "limit": 10 }),
    );
    assert_eq!(found["failures"], json!([]), "{found}");
    assert_eq!(found["meta"]["providers"], json!(["js-example"]), "{found}");
    let article = web().url("providers/articles/agents-need-a-browser.html");
    let wasm_post = web().url("providers/articles/writing-plugins-in-wasm.html");
    assert_eq!(
        titles_and_urls(&found),
        [
            (
                "Why AI agents need a real browser".to_string(),
                article.clone()
            ),
            (
                "Writing webrig plugins in Rust and WebAssembly".to_string(),
                wasm_post.clone()
            ),
            (
                "Sessions that survive consent dialogs and popups".to_string(),
                format!("{article}?section=sessions")
            ),
        ],
        "{found}"
    );
    let first = &found["results"][0];
    assert_eq!(first["provider"], "js-example");
    assert_eq!(first["published"], "2024-10-28T08:15:00Z", "{first}");
    assert_eq!(first["extra"]["author"], "Ada Quill", "{first}");
    assert_eq!(first["extra"]["score"], "42", "{first}");
    assert!(found["results"][2]["published"].is_null(), "{found}");
    // The request's limit reaches the provider.
    let two = d.ok(
        "default",
        "search",
        json!({ "query": "webrig", "source": "web", "limit": 2 }),
    );
    assert_eq!(two["results"].as_array().map(Vec::len), Some(2), "{two}");

    let page = d.ok(
        "default",
        "fetch",
        json!({ "url": article, "provider": "js-example" }),
    );
    assert_eq!(page["provider"], "js-example", "{page}");
    assert_eq!(page["url"], article.as_str());
    assert_eq!(
        page["title"], "Why AI agents need a real browser | Example News",
        "{page}"
    );
    assert_eq!(page["published"], "2024-10-28T09:15:00+01:00", "{page}");
    assert_eq!(page["metadata"]["author"], "Ada Quill", "{page}");
    let text = page["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("Headless scraping used to be enough."),
        "{page}"
    );
    assert!(
        !text.contains('<') && !text.contains("gtag(") && !text.contains(".promo{"),
        "no markup, scripts or styles: {text}"
    );
    let other = d.ok(
        "default",
        "fetch",
        json!({ "url": wasm_post, "provider": "js-example" }),
    );
    assert!(
        other["title"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Writing webrig plugins in Rust and WebAssembly"),
        "{other}"
    );

    // Its typed errors come through: a missing page, then a host that was
    // never granted (the host's `denied`, passed on by the JS code).
    d.err(
        "default",
        "fetch",
        json!({ "url": web().url("providers/articles/nope.html"), "provider": "js-example" }),
        "not_found",
    );
    let refused = d.cmd(
        "default",
        "fetch",
        json!({
            "url": format!("http://localhost:{}/providers/articles/agents-need-a-browser.html", web().port()),
            "provider": "js-example",
        }),
    );
    let msg = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("policy_blocked") && msg.contains("not granted"),
        "{refused}"
    );
}
