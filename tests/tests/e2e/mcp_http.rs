//! MCP over Streamable HTTP at the daemon's `/mcp`: the same doors as
//! `/command` (token, Host, Origin), and tool calls that reach the browser.

use crate::Daemon;

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"0"}}}"#;

fn post(d: &Daemon, body: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let mut all = vec![
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
    ];
    all.extend_from_slice(headers);
    let ((status, body), _) = d.http("POST", "/mcp", Some(body), &all);
    (status, body.to_string())
}

#[test]
fn mcp_over_http_keeps_the_token_host_and_origin_rules() {
    let d = Daemon::start().expect("daemon");
    let token = format!("Bearer {}", d.token());
    assert_eq!(post(&d, INIT, &[]).0, 401, "no token");
    assert_eq!(post(&d, INIT, &[("authorization", "Bearer wrong")]).0, 401);
    assert_eq!(
        post(
            &d,
            INIT,
            &[
                ("authorization", &token),
                ("origin", "https://evil.example")
            ]
        )
        .0,
        403,
        "a web origin"
    );
    assert_eq!(
        post(
            &d,
            INIT,
            &[("authorization", &token), ("host", "evil.example")]
        )
        .0,
        403,
        "a foreign Host (DNS rebinding)"
    );
    let (status, _) = post(&d, INIT, &[("authorization", &token)]);
    assert_eq!(status, 200);
}
