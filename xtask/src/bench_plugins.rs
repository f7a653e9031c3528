//! Plugin figures: the sandbox's per-call overhead and RSS over 10,000 calls
//! (the `plugin-bench` binary, in process), daemon start with 10 plugins
//! installed, and `search --source all` over the four first-party providers
//! against the fixture web (≈ the slowest provider, not the sum).

use std::time::Duration;

use super::bench::{ms, pct};
use super::rig::Rig;
use super::setup;

pub fn run() -> Result<(), String> {
    let release = setup::target_dir().join("release");
    let wasm_dir = setup::root().join("plugins/target/wasm32-wasip2/release");
    let hello = wasm_dir.join("hello_provider.wasm");

    println!("\n| plugin measure | p50 | p99 / max | target |");
    println!("| --- | --- | --- | --- |");
    let out = std::process::Command::new(release.join("plugin-bench"))
        .arg(&hello)
        .arg(wasm_dir.join("hello_workflow.wasm"))
        .output()
        .map_err(|e| format!("running plugin-bench: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "plugin-bench failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    print!("{}", String::from_utf8_lossy(&out.stdout));

    // Daemon start with 10 plugins installed: `providers` on a stopped
    // daemon (start + load + describe each), against `daemon status` on a
    // stopped daemon (start only; plugins load in the background).
    let rig = Rig::start("release")?;
    let manifest =
        std::fs::read_to_string(setup::root().join("plugins/examples/hello-provider/plugin.toml"))
            .map_err(|e| e.to_string())?;
    let scratch = tempfile::Builder::new()
        .prefix("webrig-bench-plugins-")
        .tempdir()
        .map_err(|e| format!("creating a private folder: {e}"))?;
    let stage = scratch.path();
    for i in 0..10 {
        let dir = stage.join(format!("hello-{i}"));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let m = manifest.replace("id = \"hello-provider\"", &format!("id = \"hello-{i}\""));
        std::fs::write(dir.join("plugin.toml"), m).map_err(|e| e.to_string())?;
        std::fs::copy(&hello, dir.join("hello_provider.wasm")).map_err(|e| e.to_string())?;
        rig.run_ok(&["plugin", "install", &dir.display().to_string(), "--grant"])?;
    }
    drop(scratch);
    let mut with_plugins = Vec::new();
    let mut bare = Vec::new();
    for _ in 0..7 {
        rig.run_ok(&["daemon", "stop"])?;
        wait_stopped(&rig);
        let (out, took) = rig.run_ok(&["providers"])?;
        if out.lines().filter(|l| l.contains("ready")).count() != 10 {
            return Err(format!("not all 10 plugins loaded:\n{out}"));
        }
        with_plugins.push(took);
        rig.run_ok(&["daemon", "stop"])?;
        wait_stopped(&rig);
        let (_, took) = rig
            .run_ok(&["daemon", "status"])
            .or_else(|_| rig.run_ok(&["sessions"]))?;
        bare.push(took);
    }
    // The first run compiled the components; the rest load them cached.
    let mut cached: Vec<Duration> = with_plugins[1..].to_vec();
    let mut bare: Vec<Duration> = bare[1..].to_vec();
    println!(
        "| daemon start + 10 cached plugins loaded and described, `webrig providers` on a stopped daemon (6 runs after a first at {}) | {} | {} | ≤ 50 ms |",
        ms(with_plugins[0]),
        ms(pct(&mut cached, 50)),
        ms(pct(&mut cached, 100))
    );
    println!(
        "| for comparison: daemon start alone, `webrig sessions` on a stopped daemon (6 runs) | {} | {} | |",
        ms(pct(&mut bare, 50)),
        ms(pct(&mut bare, 100))
    );
    drop(rig);

    // Fan-out: each provider alone, then all four at once.
    let rig = Rig::start("release")?;
    rig.install_providers()?;
    let mut alone = Vec::new();
    for source in ["web", "community", "shopping", "social"] {
        let mut times = Vec::new();
        for _ in 0..20 {
            let (_, took) = rig.run_ok(&["search", "webrig", "--source", source])?;
            times.push(took);
        }
        let p50 = pct(&mut times, 50);
        println!(
            "| `search webrig --source {source}` (20 runs, CLI) | {} | {} | |",
            ms(p50),
            ms(pct(&mut times, 99))
        );
        alone.push(p50);
    }
    let mut all = Vec::new();
    for _ in 0..20 {
        let (_, took) = rig.run_ok(&["search", "webrig", "--source", "all", "--limit", "40"])?;
        all.push(took);
    }
    let slowest = alone.iter().max().copied().unwrap_or_default();
    let sum: Duration = alone.iter().sum();
    println!(
        "| `search webrig --source all` over the 4 providers (20 runs; slowest alone {}, sum {}) | {} | {} | ≈ slowest |",
        ms(slowest),
        ms(sum),
        ms(pct(&mut all, 50)),
        ms(pct(&mut all, 99))
    );
    Ok(())
}

fn wait_stopped(rig: &Rig) {
    for _ in 0..200 {
        match rig.run(&["daemon", "status"]) {
            Ok((out, _)) if !out.status.success() => return,
            _ => std::thread::sleep(Duration::from_millis(10)),
        }
    }
}
