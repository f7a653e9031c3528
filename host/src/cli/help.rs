//! `webrig --help`: one line on what webrig is, every command under its
//! [`Group`], then the global options. clap has no headings for
//! subcommands, so the root's help is rendered here from the registry;
//! `webrig <command> --help` stays clap's own. The command words that only
//! gather others (`tab` of `tab new`) get their line from [`parent_about`].

use std::fmt::Write;

use crate::commands::{self, Group};

/// The first line of `webrig --help`.
pub const WHAT: &str = "webrig: a browser for AI agents: one daemon drives Chromium or your own Chrome; CLI, HTTP and MCP.";

/// Commands the CLI runs itself (not in the registry) and their group. A new
/// one is a line here next to its clap subcommand in `cli.rs`; a test fails
/// when a visible command is in no group.
pub const LOCAL: &[(&str, Group)] = &[("serve", Group::Daemon), ("mcp", Group::Daemon)];

/// Lines are cut to this many columns.
const WIDTH: usize = 100;
/// Where a command's description starts.
const NAME_COLUMN: usize = 20;

/// What a command word that gathers others holds (`webrig tab --help`).
/// Words that are commands of their own (`providers`, `cookies`) keep
/// their command's line.
pub fn parent_about(word: &str) -> &'static str {
    match word {
        "extension" => {
            "The webrig extension for your own Chrome: its folder, whether it is connected"
        }
        "dialog" => "Answer the page's alert, confirm or prompt: accept or dismiss it",
        "tab" => "Open a tab, make one the active tab, or close one",
        "har" => "Record the tab's requests into a HAR file: start, then stop to write it",
        "state" => "Save the session's cookies and local storage to a file, or load them back",
        "debug" => "Save what a page shows and logged (snapshot, screenshot, console, network)",
        "set" => {
            "Emulate for the session: viewport, device, place, time zone, locale, network, \
             headers, media"
        }
        "macro" => "Run, resolve, list and describe @macros",
        "canvas" => {
            "Design documents in your project: create, patch, preview, and sync with source files"
        }
        "canvas code" => "Pull a source file into a canvas, push changes back, show drift",
        "inbox" => {
            "What people sent from the browser: list, show, consume, clear; scope says it is yours"
        }
        "run" => "Run an installed workflow (research, shopping, …) into a bundle of files",
        "artifacts" => "The bundles workflows wrote: list them, remove the expired ones",
        "plugin" => {
            "Install, list, grant, revoke, verify, reload and remove plugins; write your own \
             (new, dev, logs)"
        }
        "daemon" => "The background daemon: its status and figures, or stop it",
        "token" => "The daemon's access token: rotate it",
        "pool" => {
            "Remote browser pools ([[pool]] in config.toml): each endpoint's load and sessions"
        }
        _ => "",
    }
}

/// The root command's help: [`WHAT`], the usage, the groups, the options.
/// `root` is the full clap tree (the CLI's own commands' lines come from it).
pub fn apply(root: clap::Command) -> clap::Command {
    let groups = groups(&root);
    root.about(WHAT).after_help(groups).help_template(
        "{about-with-newline}\n{usage-heading} {usage}{after-help}\
             Options:\n{options}\n\n\
             A command's own arguments: webrig <COMMAND> --help. \
             The guide for agents: webrig skill.\n",
    )
}

/// Every group: its title and what is in it, then one line per command.
fn groups(root: &clap::Command) -> String {
    let mut out = String::new();
    for group in Group::ALL {
        let _ = writeln!(out, "{}: {}", group.title(), group.summary());
        for entry in commands::in_group(group) {
            line(&mut out, entry.cli_name(), entry.about());
        }
        for (name, _) in LOCAL.iter().filter(|(_, g)| *g == group) {
            if let Some(cmd) = root.find_subcommand(name) {
                let about = cmd.get_about().map(|a| a.to_string()).unwrap_or_default();
                line(&mut out, name, &about);
            }
        }
        out.push('\n');
    }
    out
}

/// `  name    about`, the about cut at a word to fit [`WIDTH`].
fn line(out: &mut String, name: &str, about: &str) {
    let room = WIDTH - NAME_COLUMN;
    let about = if about.chars().count() <= room {
        about.to_string()
    } else {
        let cut: String = about.chars().take(room - 1).collect();
        let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
        format!("{}…", cut.trim_end_matches([',', ';', ':', ' ']))
    };
    let _ = writeln!(out, "  {name:<width$}{about}", width = NAME_COLUMN - 2);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn help() -> String {
        super::super::build().render_help().to_string()
    }

    #[test]
    fn help_opens_with_what_webrig_is_then_the_groups_in_order() {
        let help = help();
        assert_eq!(help.lines().next(), Some(WHAT));
        let mut at = 0;
        for group in Group::ALL {
            let heading = format!("\n{}: {}\n", group.title(), group.summary());
            let found = help[at..]
                .find(&heading)
                .unwrap_or_else(|| panic!("{} missing or out of order:\n{help}", group.title()));
            at += found + heading.len();
        }
        let options = help.find("\nOptions:\n").expect("the options");
        assert!(options > at, "the options come after the groups");
        assert!(help.contains("--session <NAME>"));
    }

    #[test]
    fn every_visible_command_is_listed_once_and_fits() {
        let help = help();
        let listed: Vec<&str> = help
            .lines()
            .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
            .filter_map(|l| l.get(2..NAME_COLUMN))
            .map(str::trim_end)
            .collect();
        let root = super::super::build();
        let mut expected: Vec<String> = commands::registry()
            .iter()
            .map(|e| e.cli_name().to_string())
            .collect();
        for cmd in root.get_subcommands().filter(|c| !c.is_hide_set()) {
            let name = cmd.get_name();
            if name != "help" && commands::find(name).is_none() && parent_about(name).is_empty() {
                expected.push(name.to_string());
            }
        }
        for name in &expected {
            let times = listed.iter().filter(|l| *l == name).count();
            assert_eq!(
                times, 1,
                "{name} is listed {times} times (no group?):\n{help}"
            );
        }
        for line in help.lines() {
            assert!(line.chars().count() <= WIDTH, "longer than {WIDTH}: {line}");
        }
    }

    #[test]
    fn every_parent_word_says_what_it_holds() {
        let root = super::super::build();
        for cmd in root.get_subcommands() {
            let name = cmd.get_name();
            if cmd.has_subcommands() && commands::find(name).is_none() && name != "help" {
                assert!(!parent_about(name).is_empty(), "{name} has no line");
                let about = cmd.get_about().map(|a| a.to_string()).unwrap_or_default();
                assert_eq!(about, parent_about(name));
                assert!(!about.contains("commands"), "{name}: {about}");
            }
        }
    }

    #[test]
    fn a_long_description_is_cut_at_a_word() {
        let mut out = String::new();
        line(&mut out, "x", &"word ".repeat(40));
        let printed = out.trim_end();
        assert!(printed.chars().count() <= WIDTH);
        assert!(printed.ends_with("word…"), "{printed}");
    }
}
