//! Finding or installing what the tasks need, and running cargo.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

pub fn step(what: &str) {
    eprintln!("==> {what}");
}

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// The real-world pages (Mozilla Readability's test suite) beside the
/// checkout, `../shared/corpus/readability`, or `WEBRIG_READABILITY_CORPUS`.
/// The suites that read it skip without it; this says so up front.
pub fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("WEBRIG_READABILITY_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/corpus/readability"));
    let found = std::fs::read_dir(&dir)
        .map(|mut d| d.any(|e| e.is_ok_and(|e| e.path().join("source.html").is_file())))
        .unwrap_or(false);
    if found {
        step(&format!("readability corpus: {}", dir.display()));
        Some(dir)
    } else {
        step(&format!(
            "SKIPPING the corpus checks: no readability corpus at {} (set WEBRIG_READABILITY_CORPUS)",
            dir.display()
        ));
        None
    }
}

pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}

/// Builds `webrig` and the test binaries (fixture web server) with `profile`.
pub fn build_bins(release: bool) -> Result<(), String> {
    let mut args = vec![
        "build",
        "--package",
        "webrig",
        "--package",
        "webrig-tests",
        "--bins",
    ];
    if release {
        args.push("--release");
    }
    cargo(&args)
}

/// Only the daemon and the fixture web, in release (what `Rig` runs): the
/// bench binaries' link-time optimisation is most of a full release build.
pub fn build_rig_bins() -> Result<(), String> {
    build_rig_bins_as(true)
}

/// The daemon and the fixture web, as a release or a debug build.
pub fn build_rig_bins_as(release: bool) -> Result<(), String> {
    let mut args = vec!["build"];
    if release {
        args.push("--release");
    }
    args.extend([
        "--package",
        "webrig",
        "--bin",
        "webrig",
        "--package",
        "webrig-tests",
        "--bin",
        "fixture-web",
    ]);
    cargo(&args)
}

pub fn cargo(args: &[&str]) -> Result<(), String> {
    cargo_env(args, &[])
}

pub fn cargo_env(args: &[&str], env: &[(&str, &OsStr)]) -> Result<(), String> {
    cargo_in(&root(), args, env)
}

/// Runs cargo in `dir` (the workspace root, or the plugins workspace).
fn cargo_in(dir: &Path, args: &[&str], env: &[(&str, &OsStr)]) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(args).current_dir(dir);
    if dir != root() {
        // The plugins workspace keeps its own target dir (plugins/target),
        // where the tests and the install steps look for components.
        cmd.env_remove("CARGO_TARGET_DIR");
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let status = cmd.status().map_err(|e| format!("running cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo {} failed ({status})", args.join(" ")))
    }
}

/// Same order as the daemon's own search (host/src/browser/launch.rs).
const CANDIDATES: &[&str] = &[
    "/usr/lib/chromium/chromium",
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
];

fn which(name: &str) -> Option<PathBuf> {
    let path = Path::new(name);
    if path.is_absolute() {
        return path.is_file().then(|| path.to_path_buf());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

fn find_browser() -> Option<PathBuf> {
    if let Some(env) = std::env::var_os("WEBRIG_BROWSER").filter(|v| !v.is_empty()) {
        let path = PathBuf::from(env);
        return path.is_file().then_some(path);
    }
    CANDIDATES.iter().find_map(|c| which(c))
}

fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self")
        .map(|m| m.uid() == 0)
        .unwrap_or(false)
}

/// A Chromium to test with: the one configured or on the machine, else one
/// installed through apt-get (Debian/Ubuntu, as root).
pub fn ensure_browser() -> Result<PathBuf, String> {
    if let Some(found) = find_browser() {
        step(&format!("browser: {}", found.display()));
        return Ok(found);
    }
    if which("apt-get").is_some() && is_root() {
        step("no Chromium found: installing Debian's chromium with apt-get");
        apt_install(&["chromium"])?;
        if let Some(found) = find_browser() {
            step(&format!("installed {}", found.display()));
            return Ok(found);
        }
    }
    Err("no Chromium or Chrome found and none could be installed: install Chromium \
         (Debian/Ubuntu: apt-get install chromium) or set WEBRIG_BROWSER to a Chrome/Chromium binary"
        .into())
}

/// `apt-get update`, then `apt-get install` of `packages` (as root).
fn apt_install(packages: &[&str]) -> Result<(), String> {
    let run = |args: &[&str]| -> Result<(), String> {
        let status = Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .map_err(|e| format!("running apt-get: {e}"))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("apt-get {} failed ({status})", args.join(" ")))
        }
    };
    run(&["update", "-qq"])?;
    let mut args = vec!["install", "-y", "-qq", "--no-install-recommends"];
    args.extend_from_slice(packages);
    run(&args)
}

/// A keyring to test `v11` cookie stores with (a D-Bus bus, gnome-keyring
/// and `secret-tool`): true when they are there, installed through apt-get
/// (as root) when missing. Without them the v11 test skips and says so.
pub fn ensure_keyring() -> bool {
    let tools = [
        "/usr/bin/dbus-daemon",
        "/usr/bin/gnome-keyring-daemon",
        "/usr/bin/secret-tool",
    ];
    let have = || tools.iter().all(|t| Path::new(t).is_file());
    if !have() && which("apt-get").is_some() && is_root() {
        step("installing gnome-keyring and secret-tool with apt-get (the v11 cookie test)");
        if let Err(e) = apt_install(&["dbus", "gnome-keyring", "libsecret-tools"]) {
            step(&format!("no keyring for the v11 test: {e}"));
        }
    }
    have()
}

/// The wasm32-wasip2 target, added with rustup when missing.
pub fn ensure_wasm_target() -> Result<(), String> {
    let installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .any(|l| l.trim() == "wasm32-wasip2")
        })
        .unwrap_or(false);
    if installed {
        return Ok(());
    }
    step("adding the wasm32-wasip2 target (rustup target add wasm32-wasip2)");
    let status = Command::new("rustup")
        .args(["target", "add", "wasm32-wasip2"])
        .status()
        .map_err(|e| {
            format!(
                "running rustup: {e} (install rustup, or add the wasm32-wasip2 target yourself)"
            )
        })?;
    if status.success() {
        Ok(())
    } else {
        Err("rustup target add wasm32-wasip2 failed".into())
    }
}

/// Builds the plugins workspace (first-party plugins, examples, sandbox
/// test guests) for wasm32-wasip2.
pub fn build_plugins() -> Result<(), String> {
    build_wasm_plugins()?;
    // The example provider written in JavaScript (jco, from npm).
    crate::js_plugin::build()
}

/// The Rust plugins only: what webrig embeds (host/build.rs) comes from here.
pub fn build_wasm_plugins() -> Result<(), String> {
    ensure_wasm_target()?;
    step("building plugins for wasm32-wasip2");
    cargo_in(
        &root().join("plugins"),
        &["build", "--release", "--target", "wasm32-wasip2"],
        &[],
    )
}

/// Runs the plugins' own unit tests (parsers, SDK) natively; `corpus`
/// for the extraction checks against real pages.
pub fn test_plugins(corpus: Option<&Path>) -> Result<(), String> {
    step("testing the plugins' parsers natively");
    let env: Vec<(&str, &OsStr)> = corpus
        .map(|c| ("WEBRIG_READABILITY_CORPUS", c.as_os_str()))
        .into_iter()
        .collect();
    cargo_in(
        &root().join("plugins"),
        &["test", "--workspace", "--exclude", "sandbox-guest"],
        &env,
    )
}
