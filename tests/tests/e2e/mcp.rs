//! `webrig mcp` through a real MCP client: the official Python SDK
//! (`tests/mcp/client.py`) starts the server over stdio, lists its tools and
//! drives a page (goto, snapshot, click by ref, text, screenshot, an error),
//! then checks `--tools all` against the registry and `--tools a,b`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::web;

#[test]
fn the_python_sdk_drives_a_page_through_webrig_mcp() {
    let python = std::env::var_os("WEBRIG_MCP_PYTHON")
        .map(PathBuf::from)
        .expect(
            "WEBRIG_MCP_PYTHON is not set: run `cargo xtask test` (it makes target/mcp-venv \
         with the pinned `mcp` package and sets WEBRIG_MCP_PYTHON to its python)",
        );
    let client = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("mcp")
        .join("client.py");
    let daemon = crate::Daemon::start().expect("daemon starts");
    // Two unread sends: an older one for another agent, one for this
    // client (the Python SDK calls itself "mcp"). inbox_consume must pick
    // this client's by its name.
    super::annotate::seed_inbox(
        daemon.home(),
        &[
            ("0000aaaa", Some("other-agent"), 0),
            ("0000bbbb", Some("mcp"), 0),
        ],
    );
    let out = Command::new(&python)
        .arg(&client)
        .arg("--webrig")
        .arg(webrig_tests::webrig_bin())
        .args(["--session", "mcp-e2e"])
        .args(["--click-label", "Accept cookies"])
        .args(["--expect-gone", "We use cookies"])
        .args(["--inbox-expect", "0000bbbb"])
        .arg(web().url("snap/actions.html"))
        .env("WEBRIG_HOME", daemon.home())
        .env("WEBRIG_PORT", daemon.port().to_string())
        .env_remove("WEBRIG_SESSION")
        .output()
        .unwrap_or_else(|e| panic!("running {} {}: {e}", python.display(), client.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report = || {
        let log = daemon.log();
        let tail: Vec<&str> = log.lines().rev().take(30).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        format!(
            "client.py {}\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}\n\
             --- daemon log tail ---\n{}",
            out.status,
            tail.join("\n")
        )
    };
    let line = stdout.lines().rev().find(|l| l.starts_with('{'));
    let result: serde_json::Value = line
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no JSON line from the client\n{}", report()));
    assert!(
        out.status.success() && result["ok"] == true,
        "the MCP client failed: {}\n{}",
        result["error"],
        report()
    );
    for call in [
        "core.initialize",
        "core.list_tools",
        "core.goto",
        "core.snapshot",
        "core.click",
        "core.text",
        "core.screenshot",
        "core.inbox_consume",
        "core.click#2",
        "all.list_tools",
        "list.list_tools",
    ] {
        assert!(
            result["timings_ms"][call].is_number(),
            "no timing for {call}: {result}"
        );
    }
    assert!(
        result["refusal"]
            .as_str()
            .is_some_and(|e| e.starts_with("not_found")),
        "{result}"
    );
    assert!(result["png_bytes"].as_u64().unwrap_or(0) > 100, "{result}");
    assert_eq!(result["all_tools"], result["commands"], "{result}");
    eprintln!("mcp client: {result}");
}
