//! `cargo xtask demo|test|bench|docs`: the only entry points a newcomer needs.
//! Each installs what it is missing (a Chromium through the system package
//! manager when possible) and says what it did.

mod bench;
mod bench_annotate;
mod bench_canvas;
mod bench_cdp;
mod bench_cli;
mod bench_density;
mod bench_flood;
mod bench_macros;
mod bench_pages;
mod bench_plugins;
mod bench_policy;
mod bench_workflows;
mod demo;
mod fuzz;
mod js_plugin;
mod mcp_client;
mod npm;
mod rig;
mod setup;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test(&args[1..]),
        Some("demo") => demo::run(),
        Some("install") => install(&args[1..]),
        Some("bench") if args.get(1).is_some_and(|a| a == "cli") => bench_cli::run(&args[2..]),
        Some("bench") if args.get(1).is_some_and(|a| a == "cdp") => bench_cdp::run(&args[2..]),
        Some("bench") if args.get(1).is_some_and(|a| a == "density") => {
            bench_density::run(&args[2..])
        }
        Some("bench") => bench::run(&args[1..]),
        Some("docs") => docs(),
        Some("fuzz") => fuzz::run(&args[1..]),
        _ => {
            eprintln!(
                "usage: cargo xtask <command>\n\n  demo    the main job end to end on the bundled fixture web\n  test    install what is missing, build, run every test suite\n  install build the plugins, then install webrig with them inside (cargo install; --root DIR)\n  bench   measure the performance targets (release build); bench cli: process start against the previous commit; bench density: 1 to 100 sessions; bench cdp: Playwright through the CDP front end against direct\n  docs    regenerate docs/SURFACE.md and docs/openapi.json from the command registry\n  fuzz    fuzz the request envelope and @macro expressions for a bounded time (--target T, --seconds N, default 60 each)"
            );
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::from(1)
        }
    }
}

fn test(extra: &[String]) -> Result<(), String> {
    let browser = setup::ensure_browser()?;
    setup::build_plugins()?;
    let corpus = setup::corpus();
    setup::test_plugins(corpus.as_deref())?;
    setup::step("building webrig");
    setup::cargo(&["build", "--package", "webrig", "--bin", "webrig"])?;
    // A real MCP client (the official Python SDK, from PyPI) for the MCP tests.
    let mcp_python = mcp_client::ensure_venv()?;
    // Two browserless instances on loopback for the remote pool tests.
    let pool = npm::BROWSERLESS.ensure()?;
    // Playwright and Puppeteer for the CDP front end tests.
    let cdp_clients = npm::CDP_CLIENTS.ensure()?;
    // A keyring for the v11 cookie store test.
    let keyring = setup::ensure_keyring();
    setup::step(&format!(
        "running every test suite (browser: {})",
        browser.display()
    ));
    let mut args = vec!["test", "--workspace", "--"];
    args.extend(extra.iter().map(String::as_str));
    let mut env = vec![
        ("WEBRIG_BROWSER", browser.as_os_str()),
        ("WEBRIG_MCP_PYTHON", mcp_python.as_os_str()),
        // The plugins were built first: the binary must carry all thirteen.
        ("WEBRIG_EXPECT_FIRST_PARTY", std::ffi::OsStr::new("1")),
    ];
    if let Some(c) = &corpus {
        env.push(("WEBRIG_READABILITY_CORPUS", c.as_os_str()));
    }
    if pool.is_some() {
        // Installed: the pool tests must run, not skip.
        env.push(("WEBRIG_EXPECT_POOL", std::ffi::OsStr::new("1")));
    }
    if keyring {
        env.push(("WEBRIG_EXPECT_KEYRING", std::ffi::OsStr::new("1")));
    }
    if let Some(dir) = &cdp_clients {
        // Installed: the CDP client tests must run, not skip.
        env.push(("WEBRIG_CDP_CLIENTS", dir.as_os_str()));
        env.push(("WEBRIG_EXPECT_CDP_CLIENTS", std::ffi::OsStr::new("1")));
    }
    setup::cargo_env(&args, &env)?;
    // The whole suite only: a filtered run is someone narrowing in.
    if extra.is_empty() {
        js_plugin::extension_smoke(&browser)?;
    }
    Ok(())
}

/// `cargo xtask install [--root DIR]`: the plugins first, so the release
/// binary carries them (host/build.rs), then `cargo install --path host`
/// reusing this checkout's target folder. `webrig setup` comes next.
fn install(args: &[String]) -> Result<(), String> {
    let root = match args {
        [] => None,
        [flag, dir] if flag == "--root" => Some(dir.as_str()),
        _ => return Err("usage: cargo xtask install [--root DIR]".into()),
    };
    setup::build_wasm_plugins()?;
    setup::step("building and installing webrig (release; cargo install --path host)");
    let target = setup::target_dir().display().to_string();
    let mut cargo = vec![
        "install",
        "--path",
        "host",
        "--locked",
        "--force",
        "--target-dir",
        &target,
    ];
    if let Some(dir) = root {
        cargo.extend(["--root", dir]);
    }
    setup::cargo(&cargo)?;
    setup::step(
        "installed; next, once: `webrig setup` (installs the first-party providers and \
         workflows, showing what they ask for; --yes for scripts)",
    );
    Ok(())
}

fn docs() -> Result<(), String> {
    setup::cargo(&["build", "--package", "webrig", "--bin", "webrig"])?;
    for (flag, file) in [
        (None, "docs/SURFACE.md"),
        (Some("--openapi"), "docs/openapi.json"),
    ] {
        let mut cmd = std::process::Command::new(setup::target_dir().join("debug/webrig"));
        cmd.arg("docs").args(flag);
        let out = cmd
            .output()
            .map_err(|e| format!("running webrig docs: {e}"))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        let path = setup::root().join(file);
        std::fs::write(&path, &out.stdout)
            .map_err(|e| format!("writing {}: {e}", path.display()))?;
        setup::step(&format!("wrote {}", path.display()));
    }
    Ok(())
}
