//! The CLI: same envelope as HTTP, human output, exit codes, paths relative to
//! the caller, and starting the daemon on first use.

use std::time::Duration;

use serde_json::{Value, json};

use crate::{daemon, session, web};

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn cli_json_is_exactly_the_http_envelope() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("index.html") }));
    let d = daemon();
    for (args, command, cli_args) in [
        (json!({}), "title", vec!["title"]),
        (
            json!({ "target": "#intro" }),
            "text",
            vec!["text", "#intro"],
        ),
        (json!({ "target": "#nope" }), "text", vec!["text", "#nope"]),
    ] {
        let http =
            d.request(json!({ "id": "same", "session": s.name, "command": command, "args": args }));
        let mut argv = vec!["--json", "--id", "same", "--session", &s.name];
        argv.extend(cli_args.iter().copied());
        let out = d.cli(&argv);
        let cli: Value = serde_json::from_str(stdout(&out).trim()).expect("CLI prints JSON");
        assert_eq!(cli, http);
    }
}

#[test]
fn cli_prints_short_text_and_maps_errors_to_exit_codes() {
    let s = session!();
    let d = daemon();
    let out = d.cli(&["--session", &s.name, "goto", &web().url("nav/a.html")]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        stdout(&out),
        format!("Page A\n{}\n", web().url("nav/a.html"))
    );
    let out = d.cli(&["--session", &s.name, "eval", "1 + 2"]);
    assert_eq!(stdout(&out), "3\n");
    let out = d.cli(&["--session", &s.name, "text", "#missing"]);
    assert_eq!(out.status.code(), Some(3), "not_found exits 3");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("error: no element matches") && err.contains("hint:"),
        "{err}"
    );
    let out = d.cli(&["--session", &s.name, "eval", "throw 1"]);
    assert_eq!(out.status.code(), Some(2));
    let out = d.cli(&["--session", "nobody-here", "title"]);
    assert_eq!(out.status.code(), Some(3));
    let out = d.cli(&["goto"]);
    assert_eq!(out.status.code(), Some(2), "clap usage error");
}

#[test]
fn cli_resolves_relative_paths_against_its_directory() {
    let s = session!();
    let d = daemon();
    let dir = tempfile::tempdir().expect("temp dir");
    d.cli(&["--session", &s.name, "goto", &web().url("nav/a.html")]);
    let out = d.cli_in(
        &["--session", &s.name, "screenshot", "--path", "shot.png"],
        Some(dir.path()),
    );
    assert!(out.status.success(), "{out:?}");
    assert!(dir.path().join("shot.png").is_file());
    let out = d.cli_in(
        &["--session", &s.name, "screenshot", "--path", "shot.png"],
        Some(dir.path()),
    );
    assert_eq!(out.status.code(), Some(2), "exists → invalid_argument");
}

#[test]
fn the_first_command_starts_the_daemon_and_stop_ends_it() {
    let home = tempfile::tempdir().expect("home");
    let port = webrig_tests::free_port();
    let run = |args: &[&str]| {
        std::process::Command::new(webrig_tests::webrig_bin())
            .args(args)
            .env("WEBRIG_HOME", home.path())
            .env("WEBRIG_PORT", port.to_string())
            .output()
            .expect("webrig runs")
    };
    let out = run(&["daemon", "status"]);
    assert_eq!(out.status.code(), Some(1), "status does not start a daemon");
    assert!(String::from_utf8_lossy(&out.stderr).contains("not running"));

    let out = run(&["--session", "auto", "goto", &web().url("nav/b.html")]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stdout(&out).lines().next(), Some("Page B"));
    use std::os::unix::fs::PermissionsExt;
    let mode =
        |p: &std::path::Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
    assert_eq!(mode(home.path()), 0o700);
    assert_eq!(mode(&home.path().join("token")), 0o600);

    let out = run(&["--json", "daemon", "status"]);
    let status: Value = serde_json::from_str(stdout(&out).trim()).expect("json");
    assert_eq!(status["result"]["sessions"], 1);
    let out = run(&["daemon", "stop"]);
    assert!(out.status.success(), "{out:?}");
    let start = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "daemon did not stop"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
