//! Annotations (`cargo xtask bench annotate`): `webrig annotate` through
//! the CLI against a release daemon, the person's side played by
//! Playwright over the session's CDP front end (tests/annotate/bench.mjs):
//! trusted clicks on 5 elements, a note typed on each, Enter.
//!
//! - `open`: from starting the CLI to the overlay covering the page;
//! - `send`: from the Enter key to the CLI's exit with the payload (the
//!   daemon noticing, refs and ranked candidates, the screenshot, the
//!   redaction, the inbox write).
//!
//! On the fixture page and the largest pages of the Readability corpus.

use super::bench::ms;
use super::rig::Rig;
use super::{npm, setup};

const SESSION: &str = "bench-annotate";

fn page(rig: &Rig, clients: &std::path::Path, label: &str, url: &str) -> Result<(), String> {
    rig.run_ok(&["goto", url, "--session", SESSION])?;
    let (out, _) = rig.run_ok(&["cdp-url", "--session", SESSION, "--json"])?;
    let v: serde_json::Value = serde_json::from_str(&out).map_err(|e| e.to_string())?;
    let cdp = v["result"]["url"].as_str().ok_or("cdp-url gave no url")?;
    let bin = setup::root().join("target/release/webrig");
    let out = std::process::Command::new("node")
        .arg(setup::root().join("tests/annotate/bench.mjs"))
        .env("WEBRIG_CDP_CLIENTS", clients)
        .env("CDP_URL", cdp)
        .env("WEBRIG_BIN", &bin)
        .env("WEBRIG_HOME", rig.home())
        .env("WEBRIG_PORT", rig.port().to_string())
        .env("SESSION", SESSION)
        .output()
        .map_err(|e| format!("node: {e}"))?;
    let line = String::from_utf8_lossy(&out.stdout);
    let r: serde_json::Value = line
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_default();
    if r["ok"] != true {
        return Err(format!(
            "{label}: {line}{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let f = |k: &str, p: &str| {
        ms(std::time::Duration::from_secs_f64(
            r[k][p].as_f64().unwrap_or(0.0) / 1e3,
        ))
    };
    println!(
        "| {label} | {} | {} | {} | {} | {} items, {:.1} KB |",
        f("open", "p50"),
        f("open", "p95"),
        f("send", "p50"),
        f("send", "p95"),
        r["items"],
        r["bytes"].as_f64().unwrap_or(0.0) / 1024.0
    );
    Ok(())
}

pub fn run(rig: &Rig) -> Result<(), String> {
    let clients = npm::CDP_CLIENTS
        .ensure()?
        .ok_or("bench annotate drives Playwright: install Node.js 20+ and npm")?;
    println!("\n| page | open p50 | open p95 | send p50 | send p95 | payload |");
    println!("| --- | --- | --- | --- | --- | --- |");
    page(
        rig,
        &clients,
        "fixture checkout",
        &rig.url("annotate/page.html"),
    )?;
    let corpus = setup::root().join("../shared/corpus/readability");
    let mut pages: Vec<(u64, String)> = std::fs::read_dir(&corpus)
        .map(|d| {
            d.filter_map(Result::ok)
                .filter_map(|e| {
                    let size = std::fs::metadata(e.path().join("source.html")).ok()?.len();
                    Some((size, e.file_name().to_string_lossy().to_string()))
                })
                .collect()
        })
        .unwrap_or_default();
    pages.sort();
    for (size, name) in pages.iter().rev().take(3) {
        let url = format!("file://{}/{name}/source.html", corpus.display());
        page(rig, &clients, &format!("{name} ({} KB)", size / 1024), &url)?;
    }
    Ok(())
}
