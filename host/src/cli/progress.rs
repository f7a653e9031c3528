//! Progress of a long command (a workflow run) on stderr: on a terminal,
//! one line per stage and provider with its status and time (indicatif);
//! otherwise plain lines. Stdout carries only the result.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::Value;

pub struct Progress {
    bars: Option<(MultiProgress, BTreeMap<String, ProgressBar>)>,
    quiet: bool,
}

fn text(v: &Value, key: &str) -> String {
    let raw = v.get(key).and_then(Value::as_str).unwrap_or_default();
    raw.chars().filter(|c| !c.is_control()).take(120).collect()
}

impl Progress {
    /// `quiet`: print nothing (JSON output asked for).
    pub fn new(quiet: bool) -> Progress {
        let bars = (!quiet && std::io::stderr().is_terminal()).then(|| {
            (
                MultiProgress::with_draw_target(ProgressDrawTarget::stderr()),
                BTreeMap::new(),
            )
        });
        Progress { bars, quiet }
    }

    pub fn event(&mut self, v: &Value) {
        if v.get("event").and_then(Value::as_str) == Some("log") {
            // A followed log: the lines are the output, on stdout (as JSON
            // lines with --json).
            if self.quiet {
                println!("{}", v["line"]);
            } else if let Ok(line) = serde_json::from_value(v["line"].clone()) {
                println!("{}", crate::commands::log_line(&line));
            }
            return;
        }
        if self.quiet {
            return;
        }
        let secs = v.get("elapsed_ms").and_then(Value::as_u64).unwrap_or(0) as f64 / 1000.0;
        let (key, line, finished) = match v.get("event").and_then(Value::as_str) {
            Some("progress") => {
                let stage = text(v, "stage");
                let (done, total) = (
                    v.get("done").and_then(Value::as_u64).unwrap_or(0),
                    v.get("total").and_then(Value::as_u64).unwrap_or(0),
                );
                let count = if total > 0 {
                    format!(" {done}/{total}")
                } else {
                    String::new()
                };
                let line = format!("{stage:<10}{count} {}", text(v, "message"));
                (format!("stage:{stage}"), line, total > 0 && done >= total)
            }
            Some("provider") => {
                let provider = text(v, "provider");
                let ms = v.get("ms").and_then(Value::as_u64).unwrap_or(0);
                let status = text(v, "status");
                let why = text(v, "message");
                let line = format!(
                    "provider {provider:<12} {status} in {ms} ms{}",
                    if why.is_empty() {
                        String::new()
                    } else {
                        format!(": {why}")
                    }
                );
                (format!("provider:{provider}"), line, true)
            }
            _ => return,
        };
        match &mut self.bars {
            Some((multi, bars)) => {
                let bar = bars.entry(key).or_insert_with(|| {
                    let b = multi.add(ProgressBar::new_spinner());
                    b.set_style(
                        ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
                            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                    );
                    b.enable_steady_tick(Duration::from_millis(120));
                    b
                });
                bar.set_message(line);
                if finished {
                    bar.finish();
                }
            }
            None => eprintln!("[{secs:6.1}s] {line}"),
        }
    }

    /// Stops drawing (before the result is printed).
    pub fn done(&mut self) {
        if let Some((multi, bars)) = &mut self.bars {
            for b in bars.values() {
                if !b.is_finished() {
                    b.finish();
                }
            }
            let _ = multi.clear();
        }
    }
}
