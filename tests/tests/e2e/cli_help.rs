//! The real binary's help and version, with no daemon: `webrig --help`,
//! `webrig help` and bare `webrig` say what webrig is, then the command
//! groups in order; a grouped word's help (`webrig tab --help`) says what
//! is in it; `--version` answers on its own.

use std::process::{Command, Output};

use webrig_tests::webrig_bin;

/// The groups of `webrig --help`, in order.
const GROUPS: [&str; 12] = [
    "Pages",
    "Reading",
    "Acting",
    "Tabs",
    "Capture",
    "Debugging",
    "State",
    "Plugins & providers",
    "Macros",
    "Workflows",
    "Extension",
    "Daemon & MCP",
];

/// Runs the CLI with a home nobody uses: none of this may need a daemon.
fn webrig(args: &[&str]) -> Output {
    let home = tempfile::tempdir().expect("home");
    Command::new(webrig_bin())
        .args(args)
        .env("WEBRIG_HOME", home.path())
        .env("WEBRIG_PORT", "1")
        .env_remove("WEBRIG_SESSION")
        .output()
        .expect("webrig runs")
}

fn check_root_help(text: &str, how: &str) {
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("webrig: a browser for AI agents"),
        "{how}: first line {first:?}"
    );
    let mut at = 0;
    for group in GROUPS {
        let heading = format!("\n{group}: ");
        let found = text[at..]
            .find(&heading)
            .unwrap_or_else(|| panic!("{how}: {group} missing or out of order:\n{text}"));
        at += found + heading.len();
    }
    let options = text.find("\nOptions:\n").expect("the global options");
    assert!(options > at, "{how}: the options come after the groups");
    assert!(
        text.contains("  tab new "),
        "{how}: grouped commands are listed"
    );
    assert!(
        !text.contains(" commands\n"),
        "{how}: a group says what it holds"
    );
    for line in text.lines() {
        assert!(line.chars().count() <= 100, "{how}: too wide: {line}");
    }
}

#[test]
fn help_says_what_webrig_is_then_the_groups_in_order() {
    let out = webrig(&["--help"]);
    assert!(out.status.success(), "{out:?}");
    check_root_help(&String::from_utf8_lossy(&out.stdout), "--help");
    let out = webrig(&["help"]);
    assert!(out.status.success(), "{out:?}");
    check_root_help(&String::from_utf8_lossy(&out.stdout), "help");
    // Bare `webrig`: the same help, on stderr, as a usage error.
    let out = webrig(&[]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    check_root_help(&String::from_utf8_lossy(&out.stderr), "no arguments");
}

#[test]
fn a_grouped_word_says_what_it_holds_and_commands_keep_their_own_help() {
    let out = webrig(&["tab", "--help"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap_or_default();
    assert!(!first.contains("commands"), "{first}");
    assert!(first.contains("tab"), "{first}");
    for leaf in ["new", "select", "close"] {
        assert!(text.contains(&format!("\n  {leaf} ")), "{leaf}:\n{text}");
    }
    let out = webrig(&["click", "--help"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("Click an element"), "{text}");
    assert!(text.contains("Usage: webrig click"), "{text}");
}

#[test]
fn version_answers_without_a_daemon() {
    for flag in ["--version", "-V"] {
        let out = webrig(&[flag]);
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.starts_with("webrig ") && text.ends_with('\n'),
            "{text:?}"
        );
        assert_eq!(text.lines().count(), 1, "{text:?}");
    }
    // Anywhere else on the line, clap still answers it.
    let out = webrig(&["--json", "--version"]);
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("webrig "));
}
