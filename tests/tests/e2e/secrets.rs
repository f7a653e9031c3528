//! Secrets a page sends stay masked in every devtools output: a real
//! Chromium loads `fixtures/web/secrets/` (a `?session_token=` page reached
//! through a redirect, 20 subresources that carry it as `Referer` and
//! initiator, fetches with credential headers, JSON and multipart bodies,
//! console lines with a cookie string, Basic credentials, a password and
//! GitHub/AWS/OpenAI keys, an uncaught error holding a token, a JSON
//! response with tokens), and every output is grepped for each secret:
//! console, errors, network and its views, bodies, the HAR file, inspect,
//! the debug bundle, the CLI's human text and MCP. With `--reveal` they
//! come back, so the grep can fail.

use serde_json::{Value, json};

use crate::{Daemon, SessionGuard, web};

/// The secret part of each shape the fixture sends (a prefix such as
/// `ghp_` or `AKIA` may stay: it names the kind of key).
const SECRETS: &[&str] = &[
    "sessTok9Q2x7LmZ",
    "ck7Yh2Pq9Wv",
    "YW5uOmI0c2ljUHc5",
    "pw4Console7",
    "R4nd0mGh1TokenAbCdEf",
    "Q7SECRETKEY12345",
    "Zz9SecretOpenAiKey",
    "xauthSecret1",
    "authnSecret2",
    "customKeySecret3",
    "sigSecret4",
    "apimSecret5",
    "jsonPw6Secret",
    "jsonTok7Secret",
    "mpPw8Secret",
    "errTok9Secret",
    "respTok10Secret",
    "respKey11Secret",
];

/// The secrets found in `shown`.
fn leaked(shown: &str) -> Vec<&'static str> {
    SECRETS
        .iter()
        .copied()
        .filter(|s| shown.contains(s))
        .collect()
}

fn requests(v: &Value) -> Vec<Value> {
    v["entries"].as_array().cloned().unwrap_or_default()
}

/// A tool call through the daemon's `/mcp` (session `default`), as text.
fn mcp(d: &Daemon, tool: &str, args: Value) -> String {
    let token = format!("Bearer {}", d.token());
    let headers = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("authorization", token.as_str()),
    ];
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"0"}}}"#;
    let ((status, _), _) = d.http("POST", "/mcp", Some(init), &headers);
    assert_eq!(status, 200, "MCP initialize");
    let call = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
                       "params": { "name": tool, "arguments": args } });
    let ((status, answer), _) = d.http("POST", "/mcp", Some(&call.to_string()), &headers);
    assert_eq!(status, 200, "MCP {tool}: {answer}");
    assert!(
        answer["result"]["isError"] != true,
        "MCP {tool} failed: {answer}"
    );
    answer.to_string()
}

#[test]
fn no_secret_a_page_sends_reaches_any_devtools_output() {
    // A daemon of its own: MCP over HTTP acts in session `default`.
    let d = Daemon::start().expect("daemon");
    let s = SessionGuard::new(&d, "default");
    s.ok("goto", json!({ "url": web().url("secrets/blank.html") }));
    s.ok("har_start", json!({}));
    let page = "/secrets/index.html%3Fsession_token%3DsessTok9Q2x7LmZ%26tab%3D2";
    s.ok(
        "goto",
        json!({ "url": web().url(&format!("redirect?to={page}")) }),
    );
    s.until("errors", json!({ "reveal": true }), |v| {
        v.to_string().contains("errTok9Secret")
    });
    let all = s.until("network", json!({ "reveal": true }), |v| {
        let r = requests(v);
        r.iter()
            .filter(|r| r["url"].as_str().is_some_and(|u| u.contains("dot.svg")))
            .count()
            == 20
            && r.iter().filter(|r| r["type"] == "fetch").count() == 3
            && r.iter().all(|r| r["pending"] == false)
    });

    let mut outputs: Vec<(String, String)> = Vec::new();
    let mut add = |what: &str, shown: String| outputs.push((what.to_string(), shown));
    for (command, args) in [
        ("console", json!({})),
        ("console", json!({ "level": "error" })),
        ("errors", json!({})),
        ("network", json!({})),
        ("network", json!({ "type": "fetch" })),
        ("network", json!({ "type": "document" })),
        ("network", json!({ "type": "image" })),
        ("network", json!({ "failed": true })),
        ("inspect", json!({})),
    ] {
        add(
            &format!("{command} {args}"),
            s.ok(command, args).to_string(),
        );
    }
    // Bodies the page fetched (the page's own script is its source, not
    // traffic: it is left out).
    for r in requests(&all) {
        if r["type"] == "script" || r["failed"].is_string() {
            continue;
        }
        let id = r["id"].as_str().unwrap_or_default();
        let body = s.cmd("network_body", json!({ "id": id }));
        add(&format!("network body {}", r["url"]), body.to_string());
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let har = dir.path().join("page.har");
    s.ok("har_stop", json!({ "path": har }));
    add(
        "har file",
        std::fs::read_to_string(&har).expect("the HAR file"),
    );
    let bundle = dir.path().join("bundle");
    s.ok("debug_bundle", json!({ "path": bundle }));
    for entry in std::fs::read_dir(&bundle).expect("the bundle") {
        let path = entry.expect("a bundle file").path();
        if path.extension().is_some_and(|e| e == "png") {
            continue;
        }
        add(
            &format!("bundle {}", path.display()),
            std::fs::read_to_string(&path).expect("a bundle file"),
        );
    }
    for command in ["console", "errors", "network", "inspect"] {
        let out = d.cli(&["--session", "default", command]);
        let shown = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        add(&format!("cli {command}"), shown);
    }
    for tool in ["console", "errors", "network", "inspect"] {
        add(&format!("mcp {tool}"), mcp(&d, tool, json!({})));
    }

    let leaks: Vec<String> = outputs
        .iter()
        .filter_map(|(what, shown)| {
            let found = leaked(shown);
            (!found.is_empty()).then(|| format!("{what}: {found:?}\n{shown}\n"))
        })
        .collect();
    assert!(leaks.is_empty(), "secrets shown:\n{}", leaks.join("\n"));

    // What helps debugging stays readable.
    let network = s.ok("network", json!({ "type": "image" }));
    let image = &requests(&network)[0];
    assert!(
        image["initiator"]
            .as_str()
            .is_some_and(|i| i.contains("session_token=‹redacted›&tab=2")),
        "{image}"
    );
    let console = s.ok("console", json!({}));
    assert!(
        console.to_string().contains("ghp_‹redacted›")
            && console.to_string().contains("Basic ‹redacted›"),
        "{console}"
    );

    // With --reveal every secret is there: the grep above can fail.
    let mut revealed = String::new();
    for (command, args) in [
        ("console", json!({ "reveal": true })),
        ("errors", json!({ "reveal": true })),
        ("network", json!({ "reveal": true })),
        ("inspect", json!({ "reveal": true })),
    ] {
        revealed.push_str(&s.ok(command, args).to_string());
    }
    for r in requests(&all) {
        if r["url"]
            .as_str()
            .is_some_and(|u| u.contains("session.json"))
        {
            let id = r["id"].as_str().unwrap_or_default();
            revealed.push_str(
                &s.ok("network_body", json!({ "id": id, "reveal": true }))
                    .to_string(),
            );
        }
    }
    let missing: Vec<&str> = SECRETS
        .iter()
        .copied()
        .filter(|s| !revealed.contains(s))
        .collect();
    assert!(missing.is_empty(), "--reveal lost {missing:?}: {revealed}");
}
