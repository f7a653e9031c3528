//! What a domain policy costs a page load (`cargo xtask bench policy`): the
//! same page of forty fresh image requests, loaded by a session of its own
//! browser without a policy and by one held to an allowlist (every request
//! paused by the browser-wide guard and judged), through the CLI.

use super::bench::{ms, pct};
use super::rig::Rig;

/// One load in each session per round, alternating, so the machine's drift
/// falls on both alike.
fn loads(rig: &Rig, url: &str, runs: usize) -> Result<[Vec<std::time::Duration>; 2], String> {
    let sessions = ["open", "held"];
    for s in sessions {
        rig.run_ok(&["--session", s, "goto", url])?;
    }
    let mut times = [Vec::with_capacity(runs), Vec::with_capacity(runs)];
    for _ in 0..runs {
        for (i, s) in sessions.iter().enumerate() {
            let (_, took) = rig.run_ok(&["--session", s, "goto", url])?;
            times[i].push(took);
        }
    }
    Ok(times)
}

pub fn run(rig: &Rig) -> Result<(), String> {
    let url = rig.url("policy/heavy.html");
    // `http://HOST:PORT/…`: the fixture web's host and port, the one rule.
    let allow = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or_default()
        .to_string();
    rig.run_ok(&["--session", "open", "launch", "--own-browser"])?;
    rig.run_ok(&["--session", "held", "launch", "--allow", &allow])?;
    let runs = 40;
    let [mut open, mut held] = loads(rig, &url, runs)?;
    println!("\n| page load, 40 fresh images ({runs} runs, CLI) | p50 | p90 |");
    println!("| --- | --- | --- |");
    println!(
        "| own browser, no policy | {} | {} |",
        ms(pct(&mut open, 50)),
        ms(pct(&mut open, 90))
    );
    println!(
        "| own browser, `--allow` (every request judged) | {} | {} |",
        ms(pct(&mut held, 50)),
        ms(pct(&mut held, 90))
    );
    Ok(())
}
