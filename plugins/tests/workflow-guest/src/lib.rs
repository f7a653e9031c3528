//! A workflow that misbehaves on request, for the runner's tests:
//! `--mode loop` spins (CPU budget), `trap` panics midway after writing a
//! file, `search` waits on the providers (host time, cancellation),
//! `escape` tries bundle names it may not use, `browse` opens a page
//! without the browser grant, `download` fetches a URL into the bundle.

use webrig_workflow_sdk::serde_json::{Value, json};
use webrig_workflow_sdk::types::*;
use webrig_workflow_sdk::{
    ParamExt, Workflow, artifacts, browser, error_message, export_workflow, param, progress,
    runtime,
};

struct Guest;

impl Workflow for Guest {
    fn info() -> WorkflowInfo {
        WorkflowInfo {
            id: "workflow-guest".into(),
            name: "Workflow guest".into(),
            description: "Misbehaves on request.".into(),
            params: vec![
                param(
                    "mode",
                    "string",
                    true,
                    "loop, trap, search, escape, browse, download",
                ),
                param("url", "string", false, "For download and browse."),
                param("rounds", "integer", false, "Searches one after another.").with_default("1"),
            ],
            outputs: vec!["out.txt".into()],
        }
    }

    fn run(input: Value) -> Result<Value, Error> {
        let mode = input["mode"].as_str().unwrap_or_default();
        let url = input["url"].as_str().unwrap_or_default();
        progress("start", mode, 0, 1);
        artifacts::write("out.txt", b"started")?;
        match mode {
            "loop" => {
                let mut n: u64 = 0;
                loop {
                    n = n.wrapping_add(std::hint::black_box(1));
                    if n == u64::MAX {
                        break;
                    }
                }
            }
            "trap" => panic!("the guest gave up midway"),
            "search" => {
                for i in 0..input["rounds"].as_u64().unwrap_or(1) {
                    progress("search", "waiting on the providers", i as u32, 0);
                    let _ = runtime::search("web", "slow", 3);
                }
            }
            "escape" => {
                let mut refused = Vec::new();
                for name in [
                    "../escape.txt",
                    "/tmp/escape.txt",
                    "a\\b.txt",
                    "meta.json",
                    "bundle-manifest.json",
                    "link/x.txt",
                ] {
                    if let Err(e) = artifacts::write(name, b"x") {
                        refused.push(format!("{name}: {}", error_message(&e)));
                    }
                }
                return Ok(json!({"summary": refused.join("\n"), "context": refused}));
            }
            "browse" => match browser::open(url) {
                Ok(_) => return Ok(json!({"summary": "opened"})),
                Err(e) => return Err(e),
            },
            "download" => {
                let saved = artifacts::download(url, "images/got.bin")?;
                return Ok(json!({"summary": format!("{} {} B", saved.name, saved.bytes)}));
            }
            other => return Err(Error::InvalidInput(format!("unknown mode {other}"))),
        }
        progress("start", mode, 1, 1);
        Ok(json!({"summary": "done", "report": "out.txt"}))
    }
}

export_workflow!(Guest);
