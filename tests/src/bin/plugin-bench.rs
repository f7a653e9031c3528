//! `cargo xtask bench` part: the plugin sandbox's per-call overhead, the
//! cost of loading a cached compiled component, and RSS across 10,000 calls.
//! Prints markdown table rows. Usage: plugin-bench PATH/TO/hello_provider.wasm

use std::time::{Duration, Instant};

use webrig::plugins::engine::{Runtime, wit};
use webrig::plugins::host::Access;
use webrig::plugins::manifest::PluginLimits;

fn rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .unwrap_or(0)
        * 1024
}

fn pct(v: &mut [Duration], p: usize) -> Duration {
    v.sort();
    v[((v.len() - 1) * p) / 100]
}

fn us(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

fn main() -> Result<(), String> {
    let wasm = std::env::args()
        .nth(1)
        .ok_or("usage: plugin-bench HELLO.wasm")?;
    let bytes = std::fs::read(&wasm).map_err(|e| format!("{wasm}: {e}"))?;
    let cache = tempfile::tempdir().map_err(|e| e.to_string())?;
    let runtime = Runtime::new(Some(cache.path().to_path_buf())).map_err(|e| e.to_string())?;
    let t = Instant::now();
    let loaded = runtime
        .load(
            &bytes,
            "bench",
            webrig::plugins::manifest::Kind::Provider,
            webrig::plugins::wit::v0_1_0::VERSION,
        )
        .map_err(|e| e.to_string())?;
    let compile = t.elapsed();
    let mut loads = Vec::new();
    for _ in 0..50 {
        let t = Instant::now();
        let _again = runtime
            .load(
                &bytes,
                "bench",
                webrig::plugins::manifest::Kind::Provider,
                webrig::plugins::wit::v0_1_0::VERSION,
            )
            .map_err(|e| e.to_string())?;
        loads.push(t.elapsed());
    }
    let limits = PluginLimits::default();
    let access = Access::default();
    let req = wit::SearchRequest {
        query: "bench".into(),
        limit: 1,
        options: vec![],
    };
    let call = || {
        runtime
            .search(&loaded, &limits, &access, &req)
            .map_err(|e| e.to_string())?
            .map_err(|e| format!("{e:?}"))
    };
    for _ in 0..200 {
        call()?;
    }
    let rss_before = rss();
    let mut calls = Vec::with_capacity(10_000);
    for _ in 0..10_000 {
        let t = Instant::now();
        call()?;
        calls.push(t.elapsed());
    }
    let rss_after = rss();
    println!(
        "| provider call (fresh store + instantiate + `search`), 10,000 calls | {} | {} | p50 ≤ 50 µs, p99 ≤ 150 µs |",
        us(pct(&mut calls, 50)),
        us(pct(&mut calls, 99))
    );
    println!(
        "| load a cached compiled component (50 runs; first compile took {:.0} ms) | {} | {} | ≪ 1 ms |",
        compile.as_secs_f64() * 1e3,
        us(pct(&mut loads, 50)),
        us(pct(&mut loads, 99))
    );
    println!(
        "| process RSS before → after the 10,000 calls | {:.1} MB → {:.1} MB | | flat |",
        rss_before as f64 / 1e6,
        rss_after as f64 / 1e6
    );
    if let Some(path) = std::env::args().nth(2) {
        workflow_overhead(&runtime, &path)?;
    }
    Ok(())
}

/// A workflow's fixed cost per run: a fresh store, instantiate and a first
/// call (`describe`), 2,000 times.
fn workflow_overhead(runtime: &Runtime, wasm: &str) -> Result<(), String> {
    let bytes = std::fs::read(wasm).map_err(|e| format!("{wasm}: {e}"))?;
    let loaded = runtime
        .load(
            &bytes,
            "bench-workflow",
            webrig::plugins::manifest::Kind::Workflow,
            webrig::plugins::wit::v0_2_0::VERSION,
        )
        .map_err(|e| e.to_string())?;
    let limits = PluginLimits::default();
    let access = Access::default();
    let call = || webrig::plugins::described::describe_workflow(runtime, &loaded, &limits, &access);
    for _ in 0..100 {
        call()?;
    }
    let mut calls = Vec::with_capacity(2000);
    for _ in 0..2000 {
        let t = Instant::now();
        call()?;
        calls.push(t.elapsed());
    }
    println!(
        "| workflow instantiate + first call (fresh store + `describe`), 2,000 calls | {} | {} | ≤ 1 ms |",
        us(pct(&mut calls, 50)),
        us(pct(&mut calls, 99))
    );
    Ok(())
}
