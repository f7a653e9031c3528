//! `cargo xtask bench cdp`: the CDP front end's overhead (issue 26).
//!
//! One headless Chromium, started here with its own DevTools port; a
//! webrig session `bench` attached to it (`webrig connect`); then
//! Playwright's `page.evaluate('1')` round trip (tests/cdp/bench.mjs), in
//! one run, over A = the browser's own endpoint and B = webrig's front end
//! for that session (`webrig cdp-url`). Target: B ≤ 1.3× A. Exits non-zero
//! on errors only, not on a missed target.
//!
//! `--debug` measures the debug binaries (quicker to build; slower, so
//! not for the record); `--no-build` measures the binaries in place.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use super::bench_density::machine;
use super::rig::Rig;
use super::{npm, setup};

const SESSION: &str = "bench";
const TARGET: f64 = 1.3;

/// A headless Chromium with its DevTools port open, killed on drop.
struct Chromium {
    child: Child,
    ws: String,
    profile: tempfile::TempDir,
}

impl Chromium {
    fn start(browser: &Path) -> Result<Chromium, String> {
        let profile = tempfile::Builder::new()
            .prefix("webrig-bench-cdp-")
            .tempdir()
            .map_err(|e| format!("creating a profile folder: {e}"))?;
        let mut child = Command::new(browser)
            .args([
                "--headless=new",
                "--no-sandbox",
                "--remote-debugging-port=0",
                "--no-first-run",
                "--no-default-browser-check",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("starting {}: {e}", browser.display()))?;
        let stderr = child.stderr.take().ok_or("Chromium has no stderr")?;
        let mut lines = BufReader::new(stderr).lines();
        let ws = lines.by_ref().map_while(Result::ok).find_map(|l| {
            l.strip_prefix("DevTools listening on ")
                .map(|u| u.trim().to_string())
        });
        // Keep reading: a full pipe would stall the browser.
        std::thread::spawn(move || lines.for_each(drop));
        let mut chromium = Chromium {
            child,
            ws: String::new(),
            profile,
        };
        chromium.ws = ws.ok_or("Chromium exited before printing its DevTools URL")?;
        Ok(chromium)
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Its helper processes outlive it by a moment and keep writing to
        // the profile, which then fails to go as a whole: try until it does.
        for _ in 0..50 {
            match std::fs::remove_dir_all(self.profile.path()) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                _ => break,
            }
        }
    }
}

/// The front end's one-time URL for the session, or None (with a note)
/// when this webrig has no `cdp-url` command yet.
fn front_end_url(rig: &Rig) -> Result<Option<String>, String> {
    let (out, _) = rig.run(&["cdp-url", "--session", SESSION, "--json"])?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        if stderr.contains("unrecognized subcommand") {
            return Ok(None);
        }
        return Err(format!("webrig cdp-url failed: {}", stderr.trim()));
    }
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("webrig cdp-url --json printed no JSON: {e}"))?;
    // The API envelope, or the bare result.
    let url = answer["result"]["url"]
        .as_str()
        .or_else(|| answer["url"].as_str())
        .ok_or_else(|| format!("webrig cdp-url --json has no url: {answer}"))?;
    Ok(Some(url.to_string()))
}

pub fn run(args: &[String]) -> Result<(), String> {
    let profile = if args.iter().any(|a| a == "--debug") {
        "debug"
    } else {
        "release"
    };
    let browser = setup::ensure_browser()?;
    let clients = npm::CDP_CLIENTS
        .ensure()?
        .ok_or("bench cdp drives Playwright: install Node.js 20+ and npm")?;
    if !args.iter().any(|a| a == "--no-build") {
        setup::step(&format!("building webrig and the fixture web ({profile})"));
        setup::build_rig_bins_as(profile == "release")?;
    }
    let rig = Rig::start(profile)?;
    let chromium = Chromium::start(&browser)?;
    rig.run_ok(&["connect", &chromium.ws, "--session", SESSION])?;
    rig.run_ok(&["goto", &rig.url("index.html"), "--session", SESSION])?;
    let front = front_end_url(&rig)?;
    if front.is_none() {
        setup::step(
            "this webrig has no `cdp-url` command: B is the direct endpoint again \
             (a check of the bench itself, not of the front end)",
        );
    }
    let b = front.clone().unwrap_or_else(|| chromium.ws.clone());
    setup::step("page.evaluate('1'): 50 warm-up, then 500 per side in alternating blocks of 50");
    let out = Command::new("node")
        .arg(setup::root().join("tests/cdp/bench.mjs"))
        .env("WEBRIG_CDP_CLIENTS", &clients)
        .env("CDP_A", &chromium.ws)
        .env("CDP_B", &b)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("running node tests/cdp/bench.mjs: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let result: serde_json::Value = serde_json::from_str(stdout.trim())
        .map_err(|e| format!("bench.mjs printed no JSON ({e}): {stdout}"))?;
    if !out.status.success() {
        return Err(format!(
            "bench.mjs failed at {}: {}",
            result["stage"], result["error"]
        ));
    }
    print_table(&result, front.is_some(), profile);
    Ok(())
}

fn print_table(result: &serde_json::Value, through_front_end: bool, profile: &str) {
    let b_label = if through_front_end {
        "B: webrig's CDP front end (`webrig cdp-url`)"
    } else {
        "B: direct again (no `cdp-url` in this webrig)"
    };
    println!(
        "\nPlaywright `page.evaluate('1')`, {profile} webrig; {}",
        machine()
    );
    println!("\n| endpoint | runs | p50 | p95 | mean |");
    println!("| --- | --- | --- | --- | --- |");
    for (label, side) in [
        (
            "A: Chromium's own endpoint (direct `connectOverCDP`)",
            &result["a"],
        ),
        (b_label, &result["b"]),
    ] {
        let ms = |k: &str| format!("{:.3} ms", side[k].as_f64().unwrap_or(f64::NAN));
        println!(
            "| {label} | {} | {} | {} | {} |",
            side["n"],
            ms("p50"),
            ms("p95"),
            ms("mean")
        );
    }
    let ratio = result["ratio_p50"].as_f64().unwrap_or(f64::NAN);
    let verdict = if ratio <= TARGET { "met" } else { "MISSED" };
    println!(
        "\nB/A: {ratio:.2}× at p50, {:.2}× on the mean (target ≤ {TARGET}× at p50: {verdict})",
        result["ratio_mean"].as_f64().unwrap_or(f64::NAN)
    );
}
