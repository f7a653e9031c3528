//! Snapshot and click figures, with a warm daemon, through the CLI: the
//! fixture form, a to-do list whose clicks re-render it, then the real-world
//! pages of `../shared/corpus/readability` (skipped, and said so, when the
//! corpus is absent).

use super::bench::{ms, pct};
use super::rig::Rig;
use super::setup;

fn rss(rig: &Rig) -> Option<u64> {
    let (status, _) = rig.run_ok(&["--json", "daemon", "status"]).ok()?;
    serde_json::from_str::<serde_json::Value>(&status).ok()?["result"]["rss_bytes"].as_u64()
}

fn measure(rig: &Rig, label: &str, url: &str, target: &str) -> Result<(), String> {
    rig.run_ok(&["goto", url, "--until", "domcontentloaded"])?;
    rig.run_ok(&["snapshot"])?;
    let mut times = Vec::new();
    for _ in 0..15 {
        let (_, took) = rig.run_ok(&["snapshot"])?;
        times.push(took);
    }
    let (json, _) = rig.run_ok(&["--json", "snapshot"])?;
    let v: serde_json::Value = serde_json::from_str(&json).map_err(|e| e.to_string())?;
    let text = v["result"]["text"].as_str().unwrap_or_default();
    let (json, _) = rig.run_ok(&["--json", "snapshot", "--interactive"])?;
    let i: serde_json::Value = serde_json::from_str(&json).map_err(|e| e.to_string())?;
    let interactive = i["result"]["text"].as_str().unwrap_or_default();
    println!(
        "| {label} | {} | {} | {:.1} KB | {} | {:.1} KB | {target} |",
        ms(pct(&mut times, 50)),
        ms(pct(&mut times, 90)),
        text.len() as f64 / 1024.0,
        v["result"]["refs"],
        interactive.len() as f64 / 1024.0,
    );
    Ok(())
}

pub fn run(rig: &Rig, mb: impl Fn(Option<u64>) -> String) -> Result<(), String> {
    println!("\n| page | snapshot p50 | p90 | size | refs | `-i` size | target |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    measure(
        rig,
        "fixture form (small page)",
        &rig.url("snap/basic.html"),
        "≤ 3 ms",
    )?;
    let corpus = setup::root().join("../shared/corpus/readability");
    let corpus = corpus.canonicalize().unwrap_or(corpus);
    let have_corpus = corpus.is_dir();
    if have_corpus {
        // Every corpus page, so a change to the walk shows where it costs
        // (the three with targets are the ones the first issue named).
        let mut names: Vec<String> = std::fs::read_dir(&corpus)
            .map_err(|e| e.to_string())?
            .flatten()
            .filter(|e| e.path().join("source.html").is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for page in &names {
            let target = match page.as_str() {
                "wikipedia-2" => "≤ 150 ms, ≤ 220 KB",
                "nytimes-3" | "yahoo-2" => "≤ 40 ms",
                _ => "",
            };
            let url = format!("file://{}/{page}/source.html", corpus.display());
            measure(rig, page, &url, target)?;
        }
    } else {
        println!(
            "(corpus not found at {}: real-world pages skipped)",
            corpus.display()
        );
    }

    // A click on the fixture form's checkbox, actionability checks included.
    rig.run_ok(&["goto", &rig.url("snap/basic.html")])?;
    let (snap, _) = rig.run_ok(&["snapshot", "--interactive"])?;
    let save = snap
        .lines()
        .find(|l| l.contains("\"Save my details\""))
        .and_then(|l| l.split_whitespace().next())
        .ok_or("no checkbox in the fixture snapshot")?
        .to_string();
    for _ in 0..5 {
        rig.run_ok(&["click", &save])?;
    }
    let mut clicks = Vec::new();
    for _ in 0..50 {
        let (_, took) = rig.run_ok(&["click", &save])?;
        clicks.push(took);
    }
    println!("\n| measure | p50 | p90 | target |\n| --- | --- | --- | --- |");
    println!(
        "| `webrig click @eN` (checkbox, actionability included, 50 runs) | {} | {} | ≤ 10 ms |",
        ms(pct(&mut clicks, 50)),
        ms(pct(&mut clicks, 90))
    );

    if have_corpus {
        let mut pages: Vec<_> = std::fs::read_dir(&corpus)
            .map_err(|e| e.to_string())?
            .flatten()
            .map(|e| e.path().join("source.html"))
            .filter(|p| p.is_file())
            .collect();
        pages.sort();
        for page in &pages {
            let url = format!("file://{}", page.display());
            if rig
                .run_ok(&["goto", &url, "--until", "domcontentloaded"])
                .is_ok()
            {
                rig.run_ok(&["snapshot"])?;
            }
        }
        println!(
            "| daemon RSS after snapshotting all {} corpus pages | {} | | ≤ 40 MB |",
            pages.len(),
            mb(rss(rig))
        );
    }
    println!(
        "\n| to-do list, 100 × click then snapshot | click p50 | p90 | p99 | click + snapshot p50 | p99 | stale | target |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    todo(rig, "microtask", "click ≤ 20 ms p50, 0 stale")?;
    todo(rig, "raf", "0 stale")?;
    Ok(())
}

/// Clicks that change the DOM: a to-do item's checkbox, whose handler
/// re-renders the 40-item list and its count (`render` says when: in a
/// microtask as most framework apps do, or in the next animation frame), on a
/// page with a spinner that never stops. Each click is followed by a snapshot
/// that must show the count the click made: a snapshot that does not is
/// stale, and counted.
fn todo(rig: &Rig, render: &str, target: &str) -> Result<(), String> {
    const RUNS: usize = 100;
    rig.run_ok(&["goto", &rig.url(&format!("todo.html?render={render}"))])?;
    // Task 3 starts undone, with 26 of 40 left; each click flips it.
    let task = "li[data-id=\"3\"] input";
    let mut left = 26;
    let flip = |left: &mut u32| *left = if *left == 26 { 25 } else { 26 };
    for _ in 0..5 {
        rig.run_ok(&["click", task])?;
        flip(&mut left);
    }
    let (mut clicks, mut pairs, mut stale) = (Vec::new(), Vec::new(), 0);
    for _ in 0..RUNS {
        let (_, click) = rig.run_ok(&["click", task])?;
        flip(&mut left);
        let (snap, snapshot) = rig.run_ok(&["snapshot"])?;
        if !snap.contains(&format!("{left} items left")) {
            stale += 1;
        }
        clicks.push(click);
        pairs.push(click + snapshot);
    }
    println!(
        "| re-rendered {} | {} | {} | {} | {} | {} | {stale} | {target} |",
        if render == "raf" {
            "in the next animation frame"
        } else {
            "in a microtask"
        },
        ms(pct(&mut clicks, 50)),
        ms(pct(&mut clicks, 90)),
        ms(pct(&mut clicks, 99)),
        ms(pct(&mut pairs, 50)),
        ms(pct(&mut pairs, 99)),
    );
    if stale > 0 {
        return Err(format!(
            "{stale} of {RUNS} snapshots after a click missed its change ({render})"
        ));
    }
    Ok(())
}
