//! browserless 2.42 (`@browserless.io/browserless` from npm) for the
//! remote-pool tests: installed into `target/browserless/` with npm
//! (`--ignore-scripts`: it downloads no browser; the tests point it at
//! Debian's Chromium through PLAYWRIGHT_BROWSERS_PATH, see docs/SCALING.md).
//! Skipped, with a note, where Node.js or npm is not installed; the pool
//! tests then skip too.

use std::path::PathBuf;
use std::process::Command;

use crate::js_plugin::works;
use crate::setup::{step, target_dir};

const PACKAGE: &str = "@browserless.io/browserless";
const VERSION: &str = "2.42.0";

pub fn dir() -> PathBuf {
    target_dir().join("browserless")
}

/// Installs browserless unless this version is there; Ok(true) when the
/// pool tests can run (and must: WEBRIG_EXPECT_POOL is set then).
pub fn ensure() -> Result<bool, String> {
    if !works("node") || !works("npm") {
        step(
            "skipping browserless (the remote pool tests skip too): node and npm are not \
             installed (install Node.js 20+ and npm)",
        );
        return Ok(false);
    }
    let dir = dir();
    let manifest = dir.join("node_modules").join(PACKAGE).join("package.json");
    let installed = std::fs::read_to_string(&manifest)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .is_some_and(|v| v["version"] == VERSION);
    if installed {
        return Ok(true);
    }
    step(&format!(
        "installing {PACKAGE}@{VERSION} into {} (npm; for the pool tests)",
        dir.display()
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let spec = format!("{PACKAGE}@{VERSION}");
    let status = Command::new("npm")
        .args([
            "install",
            "--prefix",
            &dir.display().to_string(),
            "--no-audit",
            "--no-fund",
            "--ignore-scripts",
            "--loglevel=error",
            &spec,
        ])
        .current_dir(&dir)
        .status()
        .map_err(|e| format!("running npm install {spec}: {e}"))?;
    if !status.success() {
        return Err(format!(
            "npm install {spec} failed in {} ({status}); without it the pool tests cannot run",
            dir.display()
        ));
    }
    Ok(true)
}
