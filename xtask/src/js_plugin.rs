//! What needs Node.js: the JavaScript example provider
//! (plugins/examples/js-provider: `npm run build`, jco componentize, to
//! `js_provider.wasm`) and the extension's smoke test (extension/test: a
//! mock daemon and a real headless Chromium). `npm ci` runs when a folder's
//! dependencies are missing or its lockfile changed. Skipped, with a note,
//! where Node.js or npm is not installed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::SystemTime;

use crate::setup::{root, step};

/// Where `npm ci` leaves a copy of the lockfile it installed from.
const STAMP: &str = "node_modules/.webrig-package-lock.json";

pub fn dir() -> PathBuf {
    root().join("plugins/examples/js-provider")
}

pub fn works(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn npm(dir: &Path, args: &[&str]) -> Result<(), String> {
    let status = Command::new("npm")
        .args(args)
        .current_dir(dir)
        .status()
        .map_err(|e| format!("running npm {}: {e}", args.join(" ")))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "npm {} failed in {} ({status})",
            args.join(" "),
            dir.display()
        ))
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// `npm ci` in `dir` unless its installed lockfile is the current one;
/// returns the lockfile's path.
fn npm_ci(dir: &Path, what: &str) -> Result<PathBuf, String> {
    let lock_path = dir.join("package-lock.json");
    let lock = std::fs::read(&lock_path).map_err(|e| format!("{}: {e}", lock_path.display()))?;
    if std::fs::read(dir.join(STAMP)).ok().as_deref() != Some(lock.as_slice()) {
        step(&format!("installing {what} (npm ci)"));
        npm(dir, &["ci", "--no-audit", "--no-fund"])?;
        std::fs::write(dir.join(STAMP), &lock)
            .map_err(|e| format!("{}: {e}", dir.join(STAMP).display()))?;
    }
    Ok(lock_path)
}

/// The extension's smoke test (pairing, relay protocol, tabs and windows,
/// worker restarts) against `browser`; skipped where Node.js is absent.
pub fn extension_smoke(browser: &Path) -> Result<(), String> {
    let dir = root().join("extension/test");
    if !works("node") || !works("npm") {
        step("skipping the extension's smoke test: node and npm are not installed");
        return Ok(());
    }
    npm_ci(&dir, "the extension's smoke test (ws)")?;
    step("the extension's smoke test (mock daemon, headless Chromium)");
    let status = Command::new("node")
        .arg("relay-smoke.mjs")
        .current_dir(&dir)
        .env("CHROMIUM", browser)
        .status()
        .map_err(|e| format!("running the extension's smoke test: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("the extension's smoke test failed ({status})"))
    }
}

/// Builds `js_provider.wasm`; Ok without building when node or npm is absent.
pub fn build() -> Result<(), String> {
    let dir = dir();
    if !works("node") || !works("npm") {
        step(&format!(
            "skipping the JavaScript provider: node and npm are not installed \
             (install Node.js 20+, then run `npm ci && npm run build` in {}; \
             the polyglot e2e test needs it)",
            dir.display()
        ));
        return Ok(());
    }
    let lock_path = npm_ci(&dir, "the JavaScript provider's build tools")?;
    let wasm = dir.join("js_provider.wasm");
    let inputs = [
        dir.join("provider.js"),
        dir.join("package.json"),
        lock_path,
        root().join("wit/v0.1.0/plugin.wit"),
    ];
    let built = modified(&wasm);
    let fresh = built.is_some() && inputs.iter().all(|p| modified(p) <= built);
    if fresh {
        step("the JavaScript provider is up to date (js_provider.wasm)");
        return Ok(());
    }
    step("building the JavaScript provider (jco componentize)");
    npm(&dir, &["run", "build"])
}
