//! `cargo xtask bench relay`: the extension relay's cost. `eval 1` and a
//! snapshot of the corpus page wikipedia-2, timed inside the daemon (its
//! per-command log line), through a browser webrig launched and through
//! the user's browser via the extension. Prints markdown table rows.

use std::collections::HashMap;

use serde_json::json;
use webrig_tests::user_browser::UserBrowser;
use webrig_tests::{Daemon, FixtureWeb};

const EVALS: usize = 300;
const SNAPSHOTS: usize = 30;

fn pct(v: &mut [f64], p: usize) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() - 1) * p) / 100]
}

/// The daemon's own time for each request id, from its log.
fn times(d: &Daemon) -> HashMap<String, f64> {
    d.log()
        .lines()
        .filter_map(|l| {
            let id = l.split("id=").nth(1)?.split_whitespace().next()?;
            let ms = l.split(" ms=").nth(1)?.trim().parse::<f64>().ok()?;
            Some((id.to_string(), ms))
        })
        .collect()
}

fn run(d: &Daemon, session: &str, command: &str, args: serde_json::Value, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            let id = format!("{session}-{command}-{i}");
            let r = d.request(json!({
                "id": id, "session": session, "command": command, "args": args,
            }));
            assert_eq!(r["ok"], true, "{r}");
            id
        })
        .collect()
}

fn main() {
    let d = Daemon::start().expect("daemon");
    let web = FixtureWeb::start();
    let corpus_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../plugins/providers/web/tests/corpus");
    let corpus = FixtureWeb::start_on(corpus_dir, 0);
    let user = UserBrowser::start();
    let code = d.ok("default", "pair", json!({}));
    user.pair(d.port(), code["code"].as_str().expect("code"));
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while d.ok("default", "extension_status", json!({}))["connected"] != true {
        assert!(
            std::time::Instant::now() < until,
            "the extension did not connect"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    d.ok("relay", "connect", json!({ "extension": true }));
    d.ok("relay", "tab_new", json!({}));
    let mut rows = Vec::new();
    for (what, url, command, args, n) in [
        (
            "`eval 1`",
            web.url("index.html"),
            "eval",
            json!({ "script": "1" }),
            EVALS,
        ),
        (
            "snapshot of wikipedia-2 (corpus)",
            corpus.url("wikipedia-2/source.html"),
            "snapshot",
            json!({}),
            SNAPSHOTS,
        ),
    ] {
        let mut medians = Vec::new();
        for session in ["direct", "relay"] {
            d.ok(session, "goto", json!({ "url": url }));
            run(&d, session, command, args.clone(), 10); // warm
            let ids = run(&d, session, command, args.clone(), n);
            let log = times(&d);
            let mut ms: Vec<f64> = ids.iter().filter_map(|i| log.get(i).copied()).collect();
            assert_eq!(ms.len(), n, "every request has a log line");
            let (p50, p99) = (pct(&mut ms, 50), pct(&mut ms, 99));
            medians.push(p50);
            rows.push(format!(
                "| {what}, {session}, inside the daemon ({n} runs) | {p50:.2} ms | {p99:.2} ms |"
            ));
        }
        rows.push(format!(
            "| {what}: relay / direct (median) | {:.2}× | |",
            medians[1] / medians[0]
        ));
    }
    for r in rows {
        println!("{r}");
    }
}
