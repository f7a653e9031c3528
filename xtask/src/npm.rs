//! Pinned npm packages that tests drive, installed into `target/<dir>/`:
//! browserless for the remote-pool tests, Playwright and Puppeteer for the
//! CDP front end. One `npm install --ignore-scripts` (no browser download)
//! when any pinned version is missing; nothing when all are there. Skipped,
//! with a note, where Node.js or npm is not installed.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::js_plugin::works;
use crate::setup::{step, target_dir};

/// A set of pinned packages that one group of tests needs.
pub struct Pinned {
    /// The folder under `target/`.
    dir: &'static str,
    /// `(name, exact version)`.
    packages: &'static [(&'static str, &'static str)],
    /// Which tests use them, for the notes.
    for_what: &'static str,
}

impl Pinned {
    /// Absolute: the tests run from their own crate's folder.
    pub fn dir(&self) -> PathBuf {
        let dir = target_dir().join(self.dir);
        std::path::absolute(&dir).unwrap_or(dir)
    }

    /// Installs what is missing; `Ok(Some(dir))` when every package is
    /// there at its pinned version (the tests must then run, not skip),
    /// `Ok(None)` when Node.js or npm is missing.
    pub fn ensure(&self) -> Result<Option<PathBuf>, String> {
        if !works("node") || !works("npm") {
            step(&format!(
                "skipping {} ({} skip too): node and npm are not installed \
                 (install Node.js 20+ and npm)",
                self.names(),
                self.for_what
            ));
            return Ok(None);
        }
        let dir = self.dir();
        let missing: Vec<String> = self
            .packages
            .iter()
            .filter(|(name, version)| installed(&dir, name).as_deref() != Some(*version))
            .map(|(name, version)| format!("{name}@{version}"))
            .collect();
        if missing.is_empty() {
            return Ok(Some(dir));
        }
        step(&format!(
            "installing {} into {} (npm; for {})",
            missing.join(" "),
            dir.display(),
            self.for_what
        ));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let status = Command::new("npm")
            .args([
                "install",
                "--prefix",
                &dir.display().to_string(),
                "--no-audit",
                "--no-fund",
                "--ignore-scripts",
                "--save-exact",
                "--loglevel=error",
            ])
            .args(&missing)
            .current_dir(&dir)
            .status()
            .map_err(|e| format!("running npm install {}: {e}", missing.join(" ")))?;
        if !status.success() {
            return Err(format!(
                "npm install {} failed in {} ({status}); without it {} cannot run",
                missing.join(" "),
                dir.display(),
                self.for_what
            ));
        }
        Ok(Some(dir))
    }

    fn names(&self) -> String {
        let names: Vec<&str> = self.packages.iter().map(|(name, _)| *name).collect();
        names.join(" and ")
    }
}

/// The version of `name` installed under `dir`, from its package.json.
fn installed(dir: &Path, name: &str) -> Option<String> {
    let manifest = dir.join("node_modules").join(name).join("package.json");
    let text = std::fs::read_to_string(manifest).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value["version"].as_str().map(str::to_string)
}

/// browserless 2.42 for the remote-pool tests (they point it at Debian's
/// Chromium through PLAYWRIGHT_BROWSERS_PATH, see docs/SCALING.md).
pub const BROWSERLESS: Pinned = Pinned {
    dir: "browserless",
    packages: &[("@browserless.io/browserless", "2.42.0")],
    for_what: "the remote pool tests",
};

/// The CDP clients that drive the CDP front end (tests/cdp/*.mjs resolve
/// them from `$WEBRIG_CDP_CLIENTS/node_modules`).
pub const CDP_CLIENTS: Pinned = Pinned {
    dir: "cdp-clients",
    packages: &[("playwright-core", "1.58.2"), ("puppeteer-core", "24.37.5")],
    for_what: "the CDP front end tests",
};
