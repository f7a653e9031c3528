//! What a domain policy costs a page load (`cargo xtask bench policy`): the
//! same page of forty fresh image requests, loaded by a session of its own
//! browser without a policy and by one held to an allowlist (every request
//! paused by the browser-wide guard and judged), through the CLI.

use super::bench::{ms, pct};
use super::rig::Rig;

fn loads(
    rig: &Rig,
    session: &str,
    url: &str,
    runs: usize,
) -> Result<Vec<std::time::Duration>, String> {
    rig.run_ok(&["--session", session, "goto", url])?;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let (_, took) = rig.run_ok(&["--session", session, "goto", url])?;
        times.push(took);
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
    let runs = 30;
    let mut open = loads(rig, "open", &url, runs)?;
    let mut held = loads(rig, "held", &url, runs)?;
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
