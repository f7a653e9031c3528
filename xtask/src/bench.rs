//! `cargo xtask bench`: the foundation's performance targets, measured on a
//! release build against the fixture web on loopback.
//!
//! - `eval 1` through the CLI with a warm daemon (process start included);
//! - the daemon's idle RSS (browser excluded);
//! - the first command on a cold machine: daemon start + browser launch + goto;
//! - snapshots and clicks (bench_pages), plugins and providers (bench_plugins).
//!
//! `cargo xtask bench flood|pages|macros|workflows|policy|canvas|annotate|relay|mcp|devtools` runs one part alone.

use std::time::Duration;

use super::rig::Rig;
use super::setup;

pub fn run(args: &[String]) -> Result<(), String> {
    let runs: usize = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(300);
    // One part alone (quick): `cargo xtask bench macros|flood`.
    let parts: [(&str, Part); 6] = [
        ("macros", super::bench_macros::run),
        ("flood", super::bench_flood::run),
        ("workflows", super::bench_workflows::run),
        ("policy", super::bench_policy::run),
        ("canvas", super::bench_canvas::run),
        ("annotate", super::bench_annotate::run),
    ];
    if let Some((_, part)) = parts
        .iter()
        .find(|(name, _)| args.iter().any(|a| a == name))
    {
        setup::build_bins(true)?;
        return part(&Rig::start("release")?);
    }
    if let Some(bin) = BENCH_BINS.iter().find(|b| args.iter().any(|a| a == b.part)) {
        setup::build_bins(true)?;
        return bin.run();
    }
    if args.iter().any(|a| a == "pages") {
        // Only `eval 1`, snapshots and clicks (a few minutes with the
        // corpus): `cargo xtask bench pages`.
        setup::ensure_browser()?;
        // `--no-build`: measure the release binaries in place (a before and
        // after comparison puts each build's binary there in turn).
        if !args.iter().any(|a| a == "--no-build") {
            setup::build_rig_bins()?;
        }
        let rig = Rig::start("release")?;
        rig.run_ok(&["goto", &rig.url("index.html")])?;
        let mut evals = evals(&rig, runs)?;
        print_evals(&mut evals, runs);
        return super::bench_pages::run(&rig, mb);
    }
    setup::ensure_browser()?;
    setup::build_plugins()?;
    setup::step("building release binaries");
    setup::build_bins(true)?;

    // Cold start: a fresh home and port each time, so the daemon and the
    // browser both start inside the measured command.
    let mut cold = Vec::new();
    for _ in 0..5 {
        let rig = Rig::start("release")?;
        let (_, took) = rig.run_ok(&["goto", &rig.url("index.html")])?;
        cold.push(took);
    }

    let rig = Rig::start("release")?;
    rig.run_ok(&["daemon", "stop"]).ok();
    // Idle RSS: a daemon that has served a status call, with no session.
    rig.run_ok(&["sessions"])?;
    std::thread::sleep(Duration::from_millis(300));
    let (status, _) = rig.run_ok(&["--json", "daemon", "status"])?;
    let idle_rss = serde_json::from_str::<serde_json::Value>(&status)
        .ok()
        .and_then(|v| v["result"]["rss_bytes"].as_u64());

    rig.run_ok(&["goto", &rig.url("index.html")])?;
    let mut evals = evals(&rig, runs)?;
    let (status, _) = rig.run_ok(&["--json", "daemon", "status"])?;
    let busy_rss = serde_json::from_str::<serde_json::Value>(&status)
        .ok()
        .and_then(|v| v["result"]["rss_bytes"].as_u64());

    print_evals(&mut evals, runs);
    println!(
        "| first command cold: daemon start + browser launch + goto (5 runs) | {} | {} | ≤ 500 ms |",
        ms(pct(&mut cold, 50)),
        ms(pct(&mut cold, 100))
    );
    println!(
        "| daemon RSS idle (no session) | {} | | ≤ 15 MB |",
        mb(idle_rss)
    );
    println!(
        "| daemon RSS with one session after the eval runs | {} | | |",
        mb(busy_rss)
    );
    super::bench_pages::run(&rig, mb)?;
    drop(rig);
    super::bench_flood::run(&Rig::start("release")?)?;
    super::bench_macros::run(&Rig::start("release")?)?;
    super::bench_workflows::run(&Rig::start("release")?)?;
    super::bench_policy::run(&Rig::start("release")?)?;
    super::bench_canvas::run(&Rig::start("release")?)?;
    super::bench_annotate::run(&Rig::start("release")?)?;
    for bin in BENCH_BINS {
        bin.run()?;
    }
    super::bench_plugins::run()
}

/// A part measured by its own binary of the tests crate (release), which
/// drives daemons and browsers itself and prints markdown table rows.
struct BenchBin {
    part: &'static str,
    bin: &'static str,
    header: &'static str,
}

/// - relay: `eval 1` and a snapshot of wikipedia-2 inside the daemon,
///   direct and through the extension relay;
/// - mcp: `eval 1` as an MCP `tools/call` over `/mcp` against `/command`,
///   and `tools/list`;
/// - devtools: clicks and snapshots with capture on and off, and the RSS
///   with full rings on 10 tabs.
const BENCH_BINS: &[BenchBin] = &[
    BenchBin {
        part: "relay",
        bin: "relay-bench",
        header: "| relay measure | p50 | p99 |",
    },
    BenchBin {
        part: "mcp",
        bin: "mcp-bench",
        header: "| MCP measure | p50 | p99 |",
    },
    BenchBin {
        part: "devtools",
        bin: "devtools-bench",
        header: "| devtools measure | p50 | p90 |",
    },
];

impl BenchBin {
    fn run(&self) -> Result<(), String> {
        let release = setup::target_dir().join("release");
        let browser = setup::ensure_browser()?;
        println!("\n{}", self.header);
        println!("| --- | --- | --- |");
        let out = std::process::Command::new(release.join(self.bin))
            .env("WEBRIG_BROWSER", browser)
            .env("WEBRIG_BIN", release.join("webrig"))
            .output()
            .map_err(|e| format!("running {}: {e}", self.bin))?;
        if !out.status.success() {
            return Err(format!(
                "{} failed: {}",
                self.bin,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        print!("{}", String::from_utf8_lossy(&out.stdout));
        Ok(())
    }
}

/// `webrig eval 1` `runs` times after a warm-up: the CLI's round trip.
fn evals(rig: &Rig, runs: usize) -> Result<Vec<Duration>, String> {
    for _ in 0..20 {
        rig.run_ok(&["eval", "1"])?;
    }
    let mut evals = Vec::with_capacity(runs);
    for _ in 0..runs {
        let (_, took) = rig.run_ok(&["eval", "1"])?;
        evals.push(took);
    }
    Ok(evals)
}

fn mb(b: Option<u64>) -> String {
    b.map(|b| format!("{:.1} MB", b as f64 / 1e6))
        .unwrap_or_else(|| "n/a".into())
}

/// A part of the bench that can run alone.
type Part = fn(&Rig) -> Result<(), String>;

/// The header of the foundation table and its `eval 1` row.
fn print_evals(evals: &mut [Duration], runs: usize) {
    println!("\n| measure | p50 | p99 / max | target |");
    println!("| --- | --- | --- | --- |");
    println!(
        "| `webrig eval 1`, warm daemon, CLI process included ({runs} runs) | {} | {} | ≤ 2 ms |",
        ms(pct(evals, 50)),
        ms(pct(evals, 99))
    );
}

pub fn pct(samples: &mut [Duration], p: usize) -> Duration {
    samples.sort();
    let i = ((samples.len() * p).div_ceil(100))
        .saturating_sub(1)
        .min(samples.len() - 1);
    samples[i]
}

pub fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}
