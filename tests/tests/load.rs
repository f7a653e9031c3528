//! Load: 32 sessions × 100 commands at once against the fixture web. Zero
//! errors, every session's commands applied in order, and the latency
//! figures printed (recorded in docs/BENCHMARKS.md; nothing here asserts a
//! time).
//!
//! A binary of its own: cargo runs test binaries one after another, so 32
//! browser launches never starve the e2e suite's tests of their deadlines.

use std::time::{Duration, Instant};

use serde_json::json;

use webrig_tests::{Daemon, FixtureWeb};

fn web() -> &'static FixtureWeb {
    static WEB: std::sync::OnceLock<FixtureWeb> = std::sync::OnceLock::new();
    WEB.get_or_init(FixtureWeb::start)
}

const SESSIONS: usize = 32;
const COMMANDS: usize = 100;

#[test]
fn thirty_two_sessions_times_a_hundred_commands_without_an_error() {
    let d: &'static Daemon = Box::leak(Box::new(Daemon::start().expect("daemon")));
    let started = Instant::now();
    let workers: Vec<_> = (0..SESSIONS)
        .map(|i| {
            std::thread::spawn(move || -> Result<Vec<Duration>, String> {
                let s = format!("load-{i}");
                // The first command launches this session's browser: 32
                // launches at once on 2 cores take most of the default 30 s,
                // so it gets the longest deadline (the load measured is the
                // 100 commands after it).
                let open = d.request(json!({
                    "session": s,
                    "command": "goto",
                    "args": { "url": web().url("nav/a.html") },
                    "timeout_ms": 120000,
                }));
                if open["ok"] != true {
                    return Err(format!("{s}: goto failed: {open}"));
                }
                let mut latencies = Vec::with_capacity(COMMANDS);
                for n in 1..=COMMANDS {
                    let t = Instant::now();
                    let r = d.cmd(
                        &s,
                        "eval",
                        json!({ "script": "window.n = (window.n || 0) + 1" }),
                    );
                    latencies.push(t.elapsed());
                    if r["result"]["value"] != n {
                        return Err(format!("{s}: command {n} answered {r}"));
                    }
                }
                let close = d.cmd(&s, "close", json!({}));
                if close["ok"] != true {
                    return Err(format!("{s}: close failed: {close}"));
                }
                Ok(latencies)
            })
        })
        .collect();
    let mut all = Vec::new();
    let mut errors = Vec::new();
    for w in workers {
        match w.join().expect("worker thread") {
            Ok(l) => all.extend(l),
            Err(e) => errors.push(e),
        }
    }
    assert!(
        errors.is_empty(),
        "{} sessions failed:\n{}",
        errors.len(),
        errors.join("\n")
    );
    assert_eq!(all.len(), SESSIONS * COMMANDS);
    all.sort();
    let p = |q: usize| all[(all.len() * q / 100).min(all.len() - 1)].as_secs_f64() * 1e3;
    eprintln!(
        "load: {SESSIONS} sessions x {COMMANDS} commands in {:.1} s; per-command latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        started.elapsed().as_secs_f64(),
        p(50),
        p(99),
        all[all.len() - 1].as_secs_f64() * 1e3
    );
}
