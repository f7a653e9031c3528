//! `cargo xtask bench mcp`: MCP's cost over the same command on
//! `/command`, both over loopback HTTP to one daemon: `eval 1` as an MCP
//! `tools/call` (Streamable HTTP at `/mcp`) against `POST /command`, and
//! `tools/list` with every tool. Prints markdown table rows.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use webrig_tests::{Daemon, FixtureWeb};

const RUNS: usize = 300;

fn pct(v: &mut [Duration], p: usize) -> Duration {
    v.sort();
    v[((v.len() - 1) * p) / 100]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let d = Daemon::start().expect("daemon");
    let web = FixtureWeb::start();
    d.ok("default", "goto", json!({ "url": web.url("index.html") }));
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let base = format!("http://127.0.0.1:{}", d.port());
    let auth = format!("Bearer {}", d.token());
    let mcp = |session: Option<&str>, body: Value| -> (Option<String>, String) {
        let mut req = agent
            .post(format!("{base}/mcp"))
            .header("authorization", &auth)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(s) = session {
            req = req.header("mcp-session-id", s);
        }
        let mut resp = req.send(body.to_string()).expect("mcp answers");
        let sid = resp
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        (sid, resp.body_mut().read_to_string().unwrap_or_default())
    };
    let (sid, _) = mcp(
        None,
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}),
    );
    // A stateless server gives no session id.
    let sid = sid.unwrap_or_default();
    let sid = Some(sid.as_str()).filter(|s| !s.is_empty());
    mcp(
        sid,
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    );
    let call = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"eval","arguments":{"script":"1"}}});
    let list = json!({"jsonrpc":"2.0","id":3,"method":"tools/list"});
    let command = json!({"session":"default","command":"eval","args":{"script":"1"}});
    for _ in 0..30 {
        mcp(sid, call.clone());
        d.request_tcp(command.clone());
    }
    let (mut via_mcp, mut via_command, mut lists) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let t = Instant::now();
        let (_, body) = mcp(sid, call.clone());
        via_mcp.push(t.elapsed());
        assert!(body.contains("\"isError\":false"), "{body}");
        let t = Instant::now();
        let r = d.request_tcp(command.clone());
        via_command.push(t.elapsed());
        assert_eq!(r["ok"], true, "{r}");
    }
    for _ in 0..100 {
        let t = Instant::now();
        let (_, body) = mcp(sid, list.clone());
        lists.push(t.elapsed());
        assert!(body.contains("\"tools\""));
    }
    let (m, c) = (pct(&mut via_mcp, 50), pct(&mut via_command, 50));
    println!(
        "| `eval 1` as an MCP tools/call over HTTP ({RUNS} runs) | {} | {} |",
        ms(m),
        ms(pct(&mut via_mcp, 99))
    );
    println!(
        "| `eval 1` on POST /command over HTTP ({RUNS} runs) | {} | {} |",
        ms(c),
        ms(pct(&mut via_command, 99))
    );
    println!(
        "| MCP overhead (median difference) | {} | |",
        ms(m.saturating_sub(c))
    );
    println!(
        "| tools/list, every tool (100 runs) | {} | {} |",
        ms(pct(&mut lists, 50)),
        ms(pct(&mut lists, 99))
    );
}
