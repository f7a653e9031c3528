//! `@macro` resolve speed: inside the daemon (the command reports the
//! microseconds it spent resolving) and through the CLI, process included.

use std::time::Duration;

use super::bench::{ms, pct};
use super::rig::Rig;

const PIPE: &str = r#"@web.search("rust wasm", limit=5) | @fetch.top(3) | @fetch.top(1)"#;

pub fn run(rig: &Rig) -> Result<(), String> {
    rig.run_ok(&["macro", "resolve", PIPE])?; // starts the daemon, compiles nothing new
    let mut inside = Vec::new();
    let mut cli = Vec::new();
    for _ in 0..300 {
        let (out, took) = rig.run_ok(&["--json", "macro", "resolve", PIPE])?;
        let v: serde_json::Value = serde_json::from_str(&out).map_err(|e| e.to_string())?;
        let us = v["result"]["resolve_us"]
            .as_u64()
            .ok_or_else(|| format!("no resolve_us in {out}"))?;
        inside.push(Duration::from_micros(us));
        cli.push(took);
    }
    println!("\n| macros (3-step pipe, 300 runs) | p50 | p99 | target |");
    println!("| --- | --- | --- | --- |");
    println!(
        "| resolve inside the daemon | {} µs | {} µs | ≤ 50 µs |",
        pct(&mut inside, 50).as_micros(),
        pct(&mut inside, 99).as_micros()
    );
    println!(
        "| `webrig macro resolve` through the CLI | {} | {} | ≤ 3 ms p50 |",
        ms(pct(&mut cli, 50)),
        ms(pct(&mut cli, 99))
    );
    Ok(())
}
