//! `cargo xtask fuzz [--target envelope|macro_expr] [--seconds N]`: the fuzz
//! targets in `host/fuzz/fuzz_targets/` (the request envelope; `@macro`
//! expressions) under libFuzzer for a bounded time each (default: both).
//!
//! cargo-fuzz wants nightly-only compiler flags; this machine has one stable
//! toolchain, so the run sets RUSTC_BOOTSTRAP=1 and uses `-s none` (coverage
//! guidance without AddressSanitizer: the code under test is safe Rust, so
//! the findings that matter are panics, which libFuzzer catches as aborts).

use std::process::Command;

use super::setup;

pub fn run(args: &[String]) -> Result<(), String> {
    let seconds: u64 = args
        .iter()
        .position(|a| a == "--seconds")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(60);
    let targets: Vec<&str> = match args.iter().position(|a| a == "--target") {
        Some(i) => vec![args.get(i + 1).map(String::as_str).unwrap_or("envelope")],
        None => vec!["envelope", "macro_expr"],
    };
    let have = Command::new("cargo")
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        setup::step("installing cargo-fuzz from crates.io");
        setup::cargo(&["install", "cargo-fuzz", "--locked"])?;
    }
    for target in targets {
        fuzz_one(target, seconds)?;
    }
    Ok(())
}

fn fuzz_one(target: &str, seconds: u64) -> Result<(), String> {
    // A scratch copy of the committed seeds, so a run does not grow the repo.
    let scratch = tempfile::Builder::new()
        .prefix(&format!("webrig-fuzz-{target}-"))
        .tempdir()
        .map_err(|e| format!("creating a private folder: {e}"))?;
    let corpus = scratch.path();
    let seeds = setup::root().join(format!("host/fuzz/corpus/{target}"));
    for seed in std::fs::read_dir(&seeds)
        .map_err(|e| format!("{}: {e}", seeds.display()))?
        .flatten()
    {
        let _ = std::fs::copy(seed.path(), corpus.join(seed.file_name()));
    }
    setup::step(&format!("fuzzing {target} for {seconds} s"));
    let status = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .current_dir(setup::root().join("host"))
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_TARGET_DIR", setup::target_dir().join("fuzz"))
        .args(["fuzz", "run", target, "-s", "none"])
        .arg(corpus)
        .args([
            "--",
            &format!("-max_total_time={seconds}"),
            "-print_final_stats=1",
        ])
        .status()
        .map_err(|e| format!("running cargo fuzz: {e}"))?;
    drop(scratch);
    if status.success() {
        setup::step("no findings");
        Ok(())
    } else {
        Err(format!(
            "the fuzzer found a failing input ({status}); see host/fuzz/artifacts/{target}/"
        ))
    }
}
