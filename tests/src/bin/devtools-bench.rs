//! `cargo xtask bench devtools`: what capturing console, errors and network
//! costs. Clicks and snapshots timed inside the daemon (its per-command log
//! line) with capture on and off, in rounds whose order alternates so drift
//! hits both alike; then the daemon's RSS with full rings on 10 tabs. Prints markdown
//! table rows.

use std::collections::HashMap;

use serde_json::json;
use webrig_tests::bench::{pct, run, timed};
use webrig_tests::{Daemon, FixtureWeb};

const ROUNDS: usize = 8;
const CLICKS: usize = 50;
const SNAPSHOTS: usize = 10;
const TABS: usize = 10;

/// The ref of the fixture form's "Save my details" checkbox.
fn checkbox(d: &Daemon) -> String {
    let snap = d.ok("bench", "snapshot", json!({ "interactive": true }));
    snap["text"]
        .as_str()
        .unwrap_or_default()
        .lines()
        .find(|l| l.contains("\"Save my details\""))
        .and_then(|l| l.split_whitespace().find(|w| w.starts_with("@e")))
        .expect("the checkbox")
        .to_string()
}

fn main() {
    let web = FixtureWeb::start();
    let corpus_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../plugins/providers/web/tests/corpus");
    let corpus = FixtureWeb::start_on(corpus_dir, 0);
    let on = Daemon::start().expect("daemon");
    let off = Daemon::start_with_config("[devtools]\ncapture = false\n").expect("daemon");
    let mut clicks: HashMap<&str, Vec<f64>> = HashMap::new();
    let mut snaps: HashMap<&str, Vec<f64>> = HashMap::new();
    for round in 0..ROUNDS {
        // Which goes first alternates, so a trend favours neither.
        let order = if round % 2 == 0 {
            [("on", &on), ("off", &off)]
        } else {
            [("off", &off), ("on", &on)]
        };
        for (name, d) in order {
            let tag = format!("{name}{round}");
            d.ok(
                "bench",
                "goto",
                json!({ "url": web.url("snap/basic.html") }),
            );
            let target = checkbox(d);
            let click = json!({ "target": target });
            run(d, "bench", &format!("{tag}w"), "click", &click, 5);
            let ids = run(d, "bench", &tag, "click", &click, CLICKS);
            clicks.entry(name).or_default().extend(timed(d, &ids));
            d.ok(
                "bench",
                "goto",
                json!({ "url": corpus.url("wikipedia-2/source.html") }),
            );
            run(d, "bench", &format!("{tag}w"), "snapshot", &json!({}), 2);
            let ids = run(d, "bench", &tag, "snapshot", &json!({}), SNAPSHOTS);
            snaps.entry(name).or_default().extend(timed(d, &ids));
        }
    }
    for (what, data) in [
        ("click on the fixture form's checkbox", &mut clicks),
        ("snapshot of wikipedia-2 (corpus)", &mut snaps),
    ] {
        let mut p50 = HashMap::new();
        for name in ["on", "off"] {
            let v = data.get_mut(name).expect("runs");
            let (a, b) = (pct(v, 50), pct(v, 90));
            p50.insert(name, a);
            println!(
                "| {what}, capture {name}, inside the daemon ({} runs) | {a:.2} ms | {b:.2} ms |",
                v.len()
            );
        }
        println!(
            "| {what}: capture on / off (median) | {:+.1} % | |",
            (p50["on"] / p50["off"] - 1.0) * 100.0
        );
    }

    // Full rings: 10 tabs, each logging, throwing and fetching past the caps.
    let before = on.ok("bench", "daemon_status", json!({}))["rss_bytes"]
        .as_u64()
        .unwrap_or(0);
    for i in 0..TABS {
        let url = web.url("devtools/flood.html");
        if i == 0 {
            on.ok("bench", "goto", json!({ "url": url }));
        } else {
            on.ok("bench", "tab_new", json!({ "url": url }));
        }
    }
    let tabs = on.ok("bench", "tabs", json!({}));
    for t in tabs["tabs"].as_array().into_iter().flatten() {
        let tab = t["id"].as_str().expect("tab id");
        let until = std::time::Instant::now() + std::time::Duration::from_secs(120);
        loop {
            let ask = |command: &str| {
                on.request(json!({ "session": "bench", "tab": tab, "command": command,
                                   "args": { "max": 1 } }))["result"]["last"]
                    .as_u64()
                    .unwrap_or(0)
            };
            if ask("console") >= 600 && ask("errors") >= 600 && ask("network") >= 600 {
                break;
            }
            assert!(
                std::time::Instant::now() < until,
                "tab {tab} never filled its rings"
            );
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    }
    let full = on.ok("bench", "daemon_status", json!({}))["rss_bytes"]
        .as_u64()
        .unwrap_or(0);
    println!(
        "| daemon RSS with full rings on {TABS} tabs (500 console, 500 errors, 500 requests each) | {:.1} MB | before: {:.1} MB |",
        full as f64 / 1e6,
        before as f64 / 1e6
    );
}
