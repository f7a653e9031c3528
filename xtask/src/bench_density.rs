//! `cargo xtask bench density`: many sessions on one machine (issue 25).
//!
//! Opens sessions in steps (1, 10, 50, 100), each with one page of the
//! fixture web open and a snapshot taken, then at each step measures:
//! - the proportional set size (PSS) of the daemon and every browser
//!   process (the daemon's process tree, and each browser's keeper and
//!   tree), in total and per session;
//! - per-command latency (`snapshot`, `eval`, `click`), round robin over
//!   the live sessions, one command at a time, over HTTP on loopback;
//! - `eval` throughput with eight clients at once;
//! - errors (any answer that is not `ok`).
//!
//! Sessions are browser contexts of one shared browser unless
//! `--own-browser` is given (then each launches its own: the comparison).
//! `--steps 1,10` picks other steps; `--no-build` measures the release
//! binaries in place.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use super::bench::{ms, pct};
use super::rig::Rig;
use super::setup;

/// Commands measured at each step, per session visited.
const ROUNDS: usize = 300;
/// Commands sent to each session before each measurement and not
/// recorded (at least [`WARM_UP_MIN`] in all).
const WARM_UP: usize = 10;
const WARM_UP_MIN: usize = 100;

struct Client {
    port: u16,
    token: String,
}

impl Client {
    /// One command over HTTP (a fresh loopback connection); the answer.
    fn command(&self, session: &str, command: &str, args: serde_json::Value) -> (bool, Duration) {
        let body =
            serde_json::json!({ "session": session, "command": command, "args": args }).to_string();
        let head = format!(
            "POST /command HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.port,
            self.token,
            body.len()
        );
        let started = Instant::now();
        let answer = (|| -> Option<serde_json::Value> {
            let mut c = TcpStream::connect(SocketAddr::from(([127, 0, 0, 1], self.port))).ok()?;
            c.set_read_timeout(Some(Duration::from_secs(60))).ok()?;
            c.write_all(head.as_bytes()).ok()?;
            c.write_all(body.as_bytes()).ok()?;
            let mut raw = Vec::new();
            c.read_to_end(&mut raw).ok()?;
            let raw = String::from_utf8_lossy(&raw);
            let (_, json) = raw.split_once("\r\n\r\n")?;
            serde_json::from_str(json).ok()
        })();
        let took = started.elapsed();
        let ok = answer.as_ref().is_some_and(|a| a["ok"] == true);
        if !ok {
            eprintln!("  {session} {command}: {answer:?}");
        }
        (ok, took)
    }
}

fn parents() -> BTreeMap<u32, u32> {
    let mut map = BTreeMap::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return map;
    };
    for entry in dir.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The command name may hold spaces: the fields after its `)`.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse().ok());
        if let Some(ppid) = ppid {
            map.insert(pid, ppid);
        }
    }
    map
}

/// `roots`, their parents' keepers excluded, and every descendant.
fn tree(roots: &[u32]) -> BTreeSet<u32> {
    let parents = parents();
    let mut all: BTreeSet<u32> = roots.iter().copied().collect();
    loop {
        let before = all.len();
        for (pid, ppid) in &parents {
            if all.contains(ppid) {
                all.insert(*pid);
            }
        }
        if all.len() == before {
            return all;
        }
    }
}

fn pss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        .ok()
        .and_then(|t| {
            let line = t.lines().find(|l| l.starts_with("Pss:"))?;
            line.split_whitespace().nth(1)?.parse().ok()
        })
        .unwrap_or(0)
}

fn ppid_of(pid: u32) -> Option<u32> {
    parents().get(&pid).copied()
}

struct Step {
    sessions: usize,
    pss_mib: f64,
    daemon_mib: f64,
    /// `eval` commands per second with eight clients at once.
    throughput: f64,
    processes: usize,
    latency: Vec<(&'static str, Duration, Duration)>,
    errors: usize,
}

pub fn run(args: &[String]) -> Result<(), String> {
    let own = args.iter().any(|a| a == "--own-browser");
    let steps: Vec<usize> = args
        .iter()
        .position(|a| a == "--steps")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.split(',').filter_map(|n| n.parse().ok()).collect())
        .unwrap_or_else(|| vec![1, 10, 50, 100]);
    setup::ensure_browser()?;
    // `--no-build`: measure the release binaries in place.
    if !args.iter().any(|a| a == "--no-build") {
        setup::step("building release binaries");
        setup::build_bins(true)?;
    }
    let rig = Rig::start("release")?;
    // Room for the sessions, whatever this machine's memory default.
    let max = steps.iter().copied().max().unwrap_or(1);
    std::fs::write(
        rig.home().join("config.toml"),
        format!("[limits]\nsessions = {}\n", max + 1),
    )
    .map_err(|e| format!("config.toml: {e}"))?;
    rig.run_ok(&["sessions"])?; // starts the daemon
    let (status, _) = rig.run_ok(&["--json", "daemon", "status"])?;
    let status: serde_json::Value = serde_json::from_str(&status).map_err(|e| e.to_string())?;
    let daemon_pid = status["result"]["pid"].as_u64().ok_or("no daemon pid")? as u32;
    let client = Client {
        port: rig.port(),
        token: std::fs::read_to_string(rig.home().join("token"))
            .map_err(|e| format!("token: {e}"))?
            .trim()
            .to_string(),
    };
    // The daemon opens its plugins in the background at start: let it.
    std::thread::sleep(Duration::from_secs(5));
    let page = rig.url("index.html");
    let mut results = Vec::new();
    let mut open = 0;
    let mut errors = 0;
    for &n in &steps {
        let started = Instant::now();
        while open < n {
            let name = format!("s{open:03}");
            if own {
                errors += usize::from(
                    !client
                        .command(&name, "launch", serde_json::json!({ "own_browser": true }))
                        .0,
                );
            }
            errors += usize::from(
                !client
                    .command(&name, "goto", serde_json::json!({ "url": page }))
                    .0,
            );
            errors += usize::from(!client.command(&name, "snapshot", serde_json::json!({})).0);
            open += 1;
        }
        let opened = started.elapsed();
        // Let the pages settle before measuring memory.
        std::thread::sleep(Duration::from_secs(2));
        let (list, _) = rig.run_ok(&["--json", "sessions"])?;
        let list: serde_json::Value = serde_json::from_str(&list).map_err(|e| e.to_string())?;
        let mut roots = vec![daemon_pid];
        for s in list["result"]["sessions"].as_array().into_iter().flatten() {
            if let Some(pid) = s["info"]["pid"].as_u64() {
                roots.push(pid as u32);
                roots.extend(ppid_of(pid as u32).filter(|p| *p != 1));
            }
        }
        let pids = tree(&roots);
        let pss: u64 = pids.iter().map(|p| pss_kib(*p)).sum();
        let daemon_mib = pss_kib(daemon_pid) as f64 / 1024.0;
        let mut latency = Vec::new();
        let mut step_errors = 0;
        for (label, command, args) in [
            ("snapshot", "snapshot", serde_json::json!({})),
            (
                "eval",
                "eval",
                serde_json::json!({ "script": "document.title" }),
            ),
            ("click", "click", serde_json::json!({ "target": "#intro" })),
        ] {
            // Warm-up, not recorded, for every session alike: each renderer
            // compiles and tiers up webrig's page code on its own, so a
            // session's first commands pay for that; what is measured is the
            // cost of many sessions side by side, not of fresh renderers.
            for i in 0..(WARM_UP * n).max(WARM_UP_MIN) {
                client.command(&format!("s{:03}", i % n), command, args.clone());
            }
            let mut samples = Vec::with_capacity(ROUNDS);
            for i in 0..ROUNDS {
                let (ok, took) = client.command(&format!("s{:03}", i % n), command, args.clone());
                step_errors += usize::from(!ok);
                samples.push(took);
            }
            latency.push((label, pct(&mut samples, 50), pct(&mut samples, 99)));
        }
        // Eight agents at once, each round robin over the sessions.
        let started = Instant::now();
        let failed = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for t in 0..8 {
                let (client, failed) = (&client, &failed);
                scope.spawn(move || {
                    for i in 0..ROUNDS / 2 {
                        let session = format!("s{:03}", (t * 37 + i) % n);
                        let args = serde_json::json!({ "script": "document.title" });
                        if !client.command(&session, "eval", args).0 {
                            failed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        let throughput = (8 * (ROUNDS / 2)) as f64 / started.elapsed().as_secs_f64();
        step_errors += failed.into_inner();
        println!(
            "{n} sessions opened in {:.1} s; {} processes; PSS {:.0} MiB",
            opened.as_secs_f64(),
            pids.len(),
            pss as f64 / 1024.0
        );
        results.push(Step {
            sessions: n,
            pss_mib: pss as f64 / 1024.0,
            daemon_mib,
            throughput,
            processes: pids.len(),
            latency,
            errors: step_errors + std::mem::take(&mut errors),
        });
    }
    let _ = rig.run_ok(&["daemon", "stop"]);
    print_table(&results, own);
    Ok(())
}

/// The CPU, cores, memory and date, for the record.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            let line = t.lines().find(|l| l.starts_with("model name"))?;
            Some(line.split_once(':')?.1.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let mem_gib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .next()?
                .split_whitespace()
                .nth(1)?
                .parse::<f64>()
                .ok()
        })
        .map_or(0.0, |kib| kib / 1024.0 / 1024.0);
    let date = std::process::Command::new("date")
        .arg("-u")
        .arg("+%Y-%m-%d")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    format!(
        "{cpu}, {} cores, {mem_gib:.1} GiB, {date}",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    )
}

fn print_table(results: &[Step], own: bool) {
    let mode = if own {
        "own browser per session (--own-browser)"
    } else {
        "browser contexts of one shared browser"
    };
    println!("\n{mode}; {}", machine());
    println!(
        "\n| sessions | PSS total | PSS per session | daemon PSS | processes | snapshot p50 / p99 | eval p50 / p99 | click p50 / p99 | eval/s, 8 clients | errors |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for s in results {
        let cell = |label: &str| {
            s.latency
                .iter()
                .find(|(l, ..)| *l == label)
                .map(|(_, p50, p99)| format!("{} / {}", ms(*p50), ms(*p99)))
                .unwrap_or_default()
        };
        println!(
            "| {} | {:.0} MiB | {:.1} MiB | {:.1} MiB | {} | {} | {} | {} | {:.0} | {} |",
            s.sessions,
            s.pss_mib,
            s.pss_mib / s.sessions as f64,
            s.daemon_mib,
            s.processes,
            cell("snapshot"),
            cell("eval"),
            cell("click"),
            s.throughput,
            s.errors
        );
    }
    if let (Some(first), Some(last)) = (results.first(), results.last()) {
        for (i, (label, p50, _)) in last.latency.iter().enumerate() {
            let base = first.latency[i].1;
            println!(
                "{label}: p50 at {} sessions is {:.2}× the p50 at {}",
                last.sessions,
                p50.as_secs_f64() / base.as_secs_f64().max(1e-9),
                first.sessions
            );
        }
    }
}
