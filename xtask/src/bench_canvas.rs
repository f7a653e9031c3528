//! The design canvas (`cargo xtask bench canvas`), through the CLI against
//! a release daemon, each figure a whole command (process start included):
//!
//! - pull of a 500-line TSX file through the react-tsx adapter (and the
//!   adapter's own detect + parse time, as the daemon measured it);
//! - push of a one-text change back to it (emit, re-parse, drift check,
//!   backup, atomic write);
//! - a patch of 100 ops;
//! - a preview (render, load in the browser, screenshot) of the pulled
//!   page;
//! - the adapters' component sizes.

use std::time::Duration;

use super::bench::{ms, pct};
use super::rig::Rig;

const RUNS: usize = 20;

fn install_adapter(rig: &Rig, dir: &str, wasm: &str) -> Result<(), String> {
    let plugins = super::setup::root().join("plugins");
    rig.install_plugin(
        &plugins.join("target/wasm32-wasip2/release").join(wasm),
        &plugins.join("adapters").join(dir).join("plugin.toml"),
    )
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_default()
}

pub fn run(rig: &Rig) -> Result<(), String> {
    install_adapter(rig, "react-tsx", "webrig_adapter_react_tsx.wasm")?;
    let project = tempfile::Builder::new()
        .prefix("webrig-bench-canvas-")
        .tempdir()
        .map_err(|e| e.to_string())?;
    let root = project.path().display().to_string();
    let big = super::setup::root().join("plugins/adapters/react-tsx/tests/fixtures/canvas/Big.tsx");
    let source = std::fs::read_to_string(&big).map_err(|e| format!("{}: {e}", big.display()))?;
    let lines = source.lines().count();
    std::fs::write(project.path().join("Big.tsx"), &source).map_err(|e| e.to_string())?;
    let r = ["--root", root.as_str()];

    // Pull, into a fresh document each time.
    let (mut pulls, mut parse) = (Vec::new(), Vec::new());
    for i in 0..RUNS + 2 {
        rig.run_ok(&["canvas", "new", "big", "--replace", r[0], r[1]])?;
        let (out, took) = rig.run_ok(&[
            "--json", "canvas", "code", "pull", "big", "Big.tsx", r[0], r[1],
        ])?;
        if i >= 2 {
            pulls.push(took);
            let p = json(&out)["result"]["pulled"]["parse_ms"]
                .as_f64()
                .unwrap_or(0.0);
            parse.push(Duration::from_secs_f64(p / 1000.0));
        }
    }
    let (out, _) = rig.run_ok(&["--json", "canvas", "open", "big", r[0], r[1]])?;
    let doc = json(&out)["result"]["document"].clone();
    let nodes = doc["nodes"].as_object().map_or(0, |n| n.len());
    // A text node to change, and 100 ops to apply.
    let text_node = doc["nodes"]
        .as_object()
        .and_then(|n| {
            n.values()
                .find(|v| v["kind"] == "text" && v.get("locked").is_none())
                .and_then(|v| v["id"].as_str())
        })
        .ok_or("no editable text node in the pulled Big.tsx")?
        .to_string();

    // Push a one-text change, RUNS times (each a new revision).
    let mut pushes = Vec::new();
    let patch_file = project.path().join("one.json");
    for i in 0..RUNS + 2 {
        let (out, _) = rig.run_ok(&["--json", "canvas", "open", "big", r[0], r[1]])?;
        let rev = json(&out)["result"]["revision"]
            .as_u64()
            .unwrap_or(0)
            .to_string();
        let ops = serde_json::json!([{ "op": "node.update", "id": text_node, "set": { "text": format!("Revenue {i}") } }]);
        std::fs::write(&patch_file, ops.to_string()).map_err(|e| e.to_string())?;
        rig.run_ok(&[
            "canvas",
            "patch",
            "big",
            "--base-revision",
            &rev,
            &patch_file.display().to_string(),
            r[0],
            r[1],
        ])?;
        let (_, took) = rig.run_ok(&["canvas", "code", "push", "big", r[0], r[1]])?;
        if i >= 2 {
            pushes.push(took);
        }
    }

    // A patch of 100 ops on a document of its own.
    rig.run_ok(&["canvas", "new", "ops", "--replace", r[0], r[1]])?;
    let mut patches = Vec::new();
    let hundred = project.path().join("hundred.json");
    for i in 0..RUNS + 2 {
        let ops: Vec<serde_json::Value> = (0..100)
            .map(|k| serde_json::json!({ "op": "token.set", "name": format!("--t{k}"), "value": format!("{i}px") }))
            .collect();
        std::fs::write(&hundred, serde_json::Value::Array(ops).to_string())
            .map_err(|e| e.to_string())?;
        let (_, took) = rig.run_ok(&[
            "canvas",
            "patch",
            "ops",
            "--base-revision",
            &i.to_string(),
            &hundred.display().to_string(),
            r[0],
            r[1],
        ])?;
        if i >= 2 {
            patches.push(took);
        }
    }

    // Preview the pulled page.
    let (mut previews, mut inside) = (Vec::new(), Vec::new());
    for i in 0..RUNS + 2 {
        let (out, took) = rig.run_ok(&["--json", "canvas", "preview", "big", r[0], r[1]])?;
        if i >= 2 {
            previews.push(took);
            let t = json(&out)["result"]["total_ms"].as_f64().unwrap_or(0.0);
            inside.push(Duration::from_secs_f64(t / 1000.0));
        }
    }

    println!("\n| canvas measure ({RUNS} runs, CLI process included) | p50 | p90 | target |");
    println!("| --- | --- | --- | --- |");
    println!(
        "| pull a {lines}-line TSX file (react-tsx; {nodes} nodes) | {} | {} | ≤ 20 ms |",
        ms(pct(&mut pulls, 50)),
        ms(pct(&mut pulls, 90))
    );
    println!(
        "| … of which the adapter's detect + parse (in the daemon) | {} | {} | |",
        ms(pct(&mut parse, 50)),
        ms(pct(&mut parse, 90))
    );
    println!(
        "| push a one-text change to it (emit, re-parse, drift check, backup, write) | {} | {} | ≤ 20 ms |",
        ms(pct(&mut pushes, 50)),
        ms(pct(&mut pushes, 90))
    );
    println!(
        "| patch of 100 ops | {} | {} | ≤ 5 ms |",
        ms(pct(&mut patches, 50)),
        ms(pct(&mut patches, 90))
    );
    println!(
        "| preview of the pulled page: render, load, screenshot | {} | {} | ≤ 300 ms |",
        ms(pct(&mut previews, 50)),
        ms(pct(&mut previews, 90))
    );
    println!(
        "| … as the daemon measured it | {} | {} | |",
        ms(pct(&mut inside, 50)),
        ms(pct(&mut inside, 90))
    );
    let built = super::setup::root().join("plugins/target/wasm32-wasip2/release");
    println!("\n| adapter component | size |");
    println!("| --- | --- |");
    let mut sizes: Vec<(String, u64)> = std::fs::read_dir(&built)
        .map_err(|e| e.to_string())?
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name.starts_with("webrig_adapter_") && name.ends_with(".wasm"))
                .then(|| (name, e.metadata().map(|m| m.len()).unwrap_or(0)))
        })
        .collect();
    sizes.sort();
    for (name, size) in sizes {
        println!("| {name} | {:.0} KB |", size as f64 / 1024.0);
    }
    Ok(())
}
