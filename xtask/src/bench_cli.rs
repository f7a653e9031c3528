//! `cargo xtask bench cli`: the CLI's whole process, start to exit, median
//! and p90 of 50 runs (`--runs N`), for `webrig --version`, `webrig eval 1`
//! (a warm daemon, one session with a fixture page open) and `webrig
//! snapshot` of a small fixture page. Measured in the same run, runs
//! interleaved so load on the machine falls on all alike:
//! - this checkout's release build;
//! - a baseline commit (`HEAD~1`, or `--baseline REV`), built in a git
//!   worktree under `target/bench-cli/` with its own target dir there, and
//!   reused while that commit's binary is there;
//! - the peer agent-browser, when `npm install --prefix target/peers
//!   agent-browser` put its native binary there (its `open`, `eval` and
//!   `snapshot` drive the same Chromium, offline).
//!
//! A baseline that does not build, or a peer that is absent or does not
//! run, is said and skipped; this build's figures are printed anyway.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::bench::{ms, pct};
use super::rig::{Rig, free_port};
use super::setup;

/// What is measured: a label and the CLI words (webrig's, the peer's).
const MEASURES: [(&str, &[&str], &[&str]); 3] = [
    ("`--version`", &["--version"], &["--version"]),
    (
        "`eval 1`, warm daemon, a page open",
        &["eval", "1"],
        &["eval", "1"],
    ),
    (
        "`snapshot` of a small page (snap/basic.html)",
        &["snapshot"],
        &["snapshot"],
    ),
];

pub fn run(args: &[String]) -> Result<(), String> {
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let runs: usize = flag("--runs").and_then(|n| n.parse().ok()).unwrap_or(50);
    let rev = flag("--baseline").map_or("HEAD~1", String::as_str);
    let browser = setup::ensure_browser()?;
    if !args.iter().any(|a| a == "--no-build") {
        setup::step("building this checkout (release)");
        setup::build_rig_bins()?;
    }
    let rig = Rig::start("release")?;
    let page = rig.url("snap/basic.html");
    let release = setup::target_dir().join("release");

    let mut subjects = vec![Subject::webrig(
        format!("this ({})", head_label()),
        release.join("webrig"),
        rig.home().to_path_buf(),
        rig.port(),
        None,
    )];
    match baseline(rev) {
        Ok((bin, sha)) => {
            let home = tempfile::Builder::new()
                .prefix("webrig-bench-cli-")
                .tempdir()
                .map_err(|e| format!("creating a home for the baseline: {e}"))?;
            subjects.push(Subject::webrig(
                format!("baseline {rev} ({})", &sha[..sha.len().min(9)]),
                bin,
                home.path().to_path_buf(),
                free_port(),
                Some(home),
            ));
        }
        Err(e) => println!("(baseline {rev} not measured: {e})"),
    }
    match Subject::peer(&browser) {
        Ok(peer) => subjects.push(peer),
        Err(e) => println!("(agent-browser not measured: {e})"),
    }

    // Each warms up: the daemon (and its browser) started, the page open.
    let mut ready = Vec::new();
    for subject in subjects {
        match subject.warm(&page) {
            Ok(()) => ready.push(subject),
            Err(e) => println!("({} not measured: {e})", subject.label),
        }
    }
    let mut table: Vec<Vec<Vec<Duration>>> = Vec::new();
    for (_, words, peer_words) in MEASURES {
        let mut times = vec![Vec::with_capacity(runs); ready.len()];
        for _ in 0..runs {
            for (i, subject) in ready.iter().enumerate() {
                let words = if subject.peer { peer_words } else { words };
                times[i].push(subject.time(words)?);
            }
        }
        table.push(times);
    }

    println!("\nCLI, whole process, {runs} runs each, interleaved:\n");
    let mut head = String::from("| measure |");
    let mut rule = String::from("| --- |");
    for subject in &ready {
        head.push_str(&format!(" {} p50 | p90 |", subject.label));
        rule.push_str(" --- | --- |");
    }
    println!("{head}\n{rule}");
    for ((label, _, _), mut times) in MEASURES.iter().zip(table) {
        let mut row = format!("| {label} |");
        for samples in &mut times {
            row.push_str(&format!(
                " {} | {} |",
                ms(pct(samples, 50)),
                ms(pct(samples, 90))
            ));
        }
        println!("{row}");
    }
    Ok(())
}

/// One CLI measured: a webrig build with its own home and daemon, or the peer.
struct Subject {
    label: String,
    program: PathBuf,
    env: Vec<(&'static str, OsString)>,
    peer: bool,
    /// A home this bench made (the baseline's, the peer's); its daemon is
    /// stopped and the folder removed on drop.
    own_home: Option<tempfile::TempDir>,
}

impl Subject {
    fn webrig(
        label: String,
        program: PathBuf,
        home: PathBuf,
        port: u16,
        own_home: Option<tempfile::TempDir>,
    ) -> Subject {
        Subject {
            label,
            program,
            env: vec![
                ("WEBRIG_HOME", home.into_os_string()),
                ("WEBRIG_PORT", port.to_string().into()),
            ],
            peer: false,
            own_home,
        }
    }

    /// agent-browser's native binary from `target/peers`, with a private
    /// HOME (its daemon's sockets and profile) and this machine's Chromium.
    fn peer(browser: &Path) -> Result<Subject, String> {
        let bin = setup::target_dir()
            .join("peers/node_modules/agent-browser/bin/agent-browser-linux-x64");
        if !bin.is_file() {
            return Err(format!(
                "no {} (npm install --prefix target/peers agent-browser)",
                bin.display()
            ));
        }
        let out = Command::new(&bin)
            .arg("--version")
            .output()
            .map_err(|e| format!("running {}: {e}", bin.display()))?;
        let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !out.status.success() || version.is_empty() {
            return Err(format!("{} --version failed", bin.display()));
        }
        let home = tempfile::Builder::new()
            .prefix("webrig-bench-peer-")
            .tempdir()
            .map_err(|e| format!("creating a home for the peer: {e}"))?;
        Ok(Subject {
            label: version,
            program: bin,
            env: vec![
                ("HOME", home.path().as_os_str().to_owned()),
                (
                    "AGENT_BROWSER_EXECUTABLE_PATH",
                    browser.as_os_str().to_owned(),
                ),
                ("AGENT_BROWSER_SESSION", "bench".into()),
                ("AGENT_BROWSER_ARGS", "--no-sandbox".into()),
            ],
            peer: true,
            own_home: Some(home),
        })
    }

    fn command(&self, words: &[&str]) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.args(words).env_remove("WEBRIG_SESSION");
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    /// Runs once; the wall time of a successful run.
    fn time(&self, words: &[&str]) -> Result<Duration, String> {
        let start = Instant::now();
        let out = self
            .command(words)
            .output()
            .map_err(|e| format!("running {}: {e}", self.label))?;
        let took = start.elapsed();
        if !out.status.success() {
            return Err(format!(
                "{} {} failed: {}",
                self.label,
                words.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(took)
    }

    /// The daemon and browser started, `page` open, a few warm-up runs.
    fn warm(&self, page: &str) -> Result<(), String> {
        let open = if self.peer { "open" } else { "goto" };
        self.time(&[open, page])?;
        for _ in 0..10 {
            self.time(&["eval", "1"])?;
            self.time(&["snapshot"])?;
        }
        Ok(())
    }
}

impl Drop for Subject {
    fn drop(&mut self) {
        if self.own_home.is_some() {
            let words: &[&str] = if self.peer {
                &["close"]
            } else {
                &["daemon", "stop"]
            };
            let _ = self.command(words).output();
        }
    }
}

fn git(args: &[&str], dir: &Path) -> Result<String, String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("running git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// HEAD's short hash, and whether the checkout has uncommitted changes.
fn head_label() -> String {
    let root = setup::root();
    let sha = git(&["rev-parse", "--short=9", "HEAD"], &root).unwrap_or_else(|_| "?".into());
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"], &root).is_ok_and(|s| !s.is_empty());
    if dirty {
        format!("{sha} + changes")
    } else {
        sha
    }
}

/// The release `webrig` of commit `rev`: built once in a worktree under
/// `target/bench-cli/` (its target dir seeded with this checkout's release
/// dependencies, so only webrig itself compiles), then kept there by hash.
fn baseline(rev: &str) -> Result<(PathBuf, String), String> {
    let root = setup::root();
    let sha = git(
        &["rev-parse", "--verify", &format!("{rev}^{{commit}}")],
        &root,
    )?;
    let dir = setup::target_dir().join("bench-cli");
    let bin = dir.join(format!("webrig-{sha}"));
    if bin.is_file() {
        setup::step(&format!("baseline {rev}: reusing {}", bin.display()));
        return Ok((bin, sha));
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let tree = dir.join("src");
    if tree.exists() {
        let _ = git(
            &["worktree", "remove", "--force", &tree.display().to_string()],
            &root,
        );
        let _ = std::fs::remove_dir_all(&tree);
    }
    let _ = git(&["worktree", "prune"], &root);
    git(
        &[
            "worktree",
            "add",
            "--detach",
            &tree.display().to_string(),
            &sha,
        ],
        &root,
    )?;
    let target = dir.join("target");
    let seed = setup::target_dir().join("release");
    if !target.join("release").exists() && seed.join("deps").is_dir() {
        setup::step("seeding the baseline's target dir with this checkout's release deps");
        std::fs::create_dir_all(&target).map_err(|e| format!("{}: {e}", target.display()))?;
        let status = Command::new("cp")
            .args(["-a", "--reflink=auto"])
            .arg(&seed)
            .arg(target.join("release"))
            .status()
            .map_err(|e| format!("running cp: {e}"))?;
        if !status.success() {
            return Err(format!("copying {} failed", seed.display()));
        }
    }
    setup::step(&format!("building baseline {rev} ({sha}), release"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "build",
            "--release",
            "--package",
            "webrig",
            "--bin",
            "webrig",
        ])
        .current_dir(&tree)
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .map_err(|e| format!("running cargo: {e}"))?;
    let built = if status.success() {
        std::fs::copy(target.join("release/webrig"), &bin)
            .map(drop)
            .map_err(|e| format!("keeping the baseline binary: {e}"))
    } else {
        Err(format!("cargo build failed for {sha}"))
    };
    let _ = git(
        &["worktree", "remove", "--force", &tree.display().to_string()],
        &root,
    );
    built.map(|()| (bin, sha))
}
