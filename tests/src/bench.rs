//! Helpers of the benchmark binaries (`relay-bench`, `devtools-bench`):
//! commands sent with known ids, and the daemon's own time for each, read
//! from its per-command log line.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::Daemon;

/// The `p`-th percentile of `v` (sorts it).
pub fn pct(v: &mut [f64], p: usize) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() - 1) * p) / 100]
}

/// The daemon's own time (ms) for each request id, from its log.
pub fn times(d: &Daemon) -> HashMap<String, f64> {
    d.log()
        .lines()
        .filter_map(|l| {
            let id = l.split("id=").nth(1)?.split_whitespace().next()?;
            let ms = l.split(" ms=").nth(1)?.trim().parse::<f64>().ok()?;
            Some((id.to_string(), ms))
        })
        .collect()
}

/// Sends `command` `n` times in `session`, each with an id `tag-command-i`;
/// returns the ids. Panics on a failed command.
pub fn run(
    d: &Daemon,
    session: &str,
    tag: &str,
    command: &str,
    args: &Value,
    n: usize,
) -> Vec<String> {
    (0..n)
        .map(|i| {
            let id = format!("{tag}-{command}-{i}");
            let r = d.request(json!({
                "id": id, "session": session, "command": command, "args": args,
            }));
            assert_eq!(r["ok"], true, "{r}");
            id
        })
        .collect()
}

/// The daemon's times of `ids` (every one must have its log line).
pub fn timed(d: &Daemon, ids: &[String]) -> Vec<f64> {
    let log = times(d);
    let ms: Vec<f64> = ids.iter().filter_map(|i| log.get(i).copied()).collect();
    assert_eq!(ms.len(), ids.len(), "every request has a log line");
    ms
}
