//! `cargo xtask bench relay`: the extension relay's cost. `eval 1` and a
//! snapshot of the corpus page wikipedia-2, timed inside the daemon (its
//! per-command log line), through a browser webrig launched and through
//! the user's browser via the extension. Prints markdown table rows.

use serde_json::json;
use webrig_tests::bench::{pct, run, timed};
use webrig_tests::user_browser::UserBrowser;
use webrig_tests::{Daemon, FixtureWeb};

const EVALS: usize = 300;
const SNAPSHOTS: usize = 30;

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
    // The agent's tab in front, as the launched browser's is: a hidden tab's
    // renderer runs at background priority, which is not the relay's cost.
    d.ok("relay", "tab_select", json!({ "id": "t1" }));
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
            run(&d, session, &format!("{session}w"), command, &args, 10); // warm
            let ids = run(&d, session, session, command, &args, n);
            let mut ms = timed(&d, &ids);
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
