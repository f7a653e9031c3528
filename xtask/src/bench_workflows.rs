//! Workflow runs through the CLI on the fixture web's small internet:
//! `research` (web, community and social providers, 5 pages read) and
//! `shopping` (three stores), wall time process included; the daemon's
//! peak RSS (VmHWM) after them; and the concurrency the runs reached (from
//! meta.json).

use super::bench::{ms, pct};
use super::rig::Rig;

const RUNS: usize = 20;

pub fn run(rig: &Rig) -> Result<(), String> {
    super::setup::build_plugins()?;
    rig.install_providers()?;
    rig.use_small_web()?;
    for id in ["research", "shopping"] {
        rig.install_workflow(id)?;
    }
    let research = [
        "run",
        "workflow",
        "research",
        "--topic",
        "webassembly sandboxing",
        "--sources",
        "all",
        "--fetch",
        "5",
        "--format",
        "path",
    ];
    let shopping = [
        "run",
        "workflow",
        "shopping",
        "--query",
        "trail running shoes",
        "--budget",
        "150",
        "--format",
        "path",
    ];
    let mut rows = Vec::new();
    for (name, args, target) in [
        (
            "research: 3 sources (4 provider calls) + 5 pages read",
            &research[..],
            "≤ 1.5 s",
        ),
        (
            "shopping: 3 stores, 10 listings, priceless ones read",
            &shopping[..],
            "≤ 1 s",
        ),
    ] {
        rig.run_ok(args)?; // warm: compiled components cached, daemon up
        let mut took = Vec::with_capacity(RUNS);
        let mut concurrency = 0;
        for _ in 0..RUNS {
            let (out, t) = rig.run_ok(args)?;
            took.push(t);
            let bundle = out.lines().next().unwrap_or_default();
            let meta = std::fs::read_to_string(std::path::Path::new(bundle).join("meta.json"))
                .map_err(|e| format!("{bundle}/meta.json: {e}"))?;
            let meta: serde_json::Value = serde_json::from_str(&meta).map_err(|e| e.to_string())?;
            concurrency = concurrency.max(
                meta["concurrency"]["provider_calls_max"]
                    .as_u64()
                    .unwrap_or(0),
            );
        }
        rows.push((name, took, target, concurrency));
    }
    let (status, _) = rig.run_ok(&["--json", "daemon", "status"])?;
    let pid = serde_json::from_str::<serde_json::Value>(&status)
        .ok()
        .and_then(|v| v["result"]["pid"].as_u64())
        .unwrap_or(0);
    let hwm = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map(|kb| format!("{:.1} MB", kb * 1024.0 / 1e6))
        .unwrap_or_else(|| "n/a".into());
    println!(
        "\n| workflow run through the CLI ({RUNS} runs, warm) | p50 | max | target | provider calls at once |"
    );
    println!("| --- | --- | --- | --- | --- |");
    for (name, mut took, target, concurrency) in rows {
        println!(
            "| {name} | {} | {} | {target} | {concurrency} |",
            ms(pct(&mut took, 50)),
            ms(pct(&mut took, 100))
        );
    }
    println!("| daemon peak RSS (VmHWM) after the runs, browser excluded | {hwm} | | ≤ 60 MB | |");
    Ok(())
}
