//! The `webrig` command line: clap wiring generated from the registry, the
//! root help by group (`help`), output rendering; the daemon client (which starts the daemon when needed) is
//! `crate::client`, shared with MCP stdio.

mod first_run;
mod help;
mod progress;

use std::io::Write;
use std::process::ExitCode;

use clap::{Arg, ArgAction, ArgMatches, FromArgMatches};

use crate::commands::envelope::{Request, Response};
use crate::commands::{self, Entry};
use crate::config::{self, Home};

/// Options every command takes.
#[derive(Debug, Clone, clap::Args)]
pub struct Globals {
    /// Session to act in.
    #[arg(
        long = "session",
        id = "global_session",
        value_name = "NAME",
        global = true,
        env = "WEBRIG_SESSION",
        hide_env_values = true,
        default_value = "default"
    )]
    pub session: String,
    /// Tab to act on (default: the session's active tab).
    #[arg(long = "tab", id = "global_tab", value_name = "TAB", global = true)]
    pub tab: Option<String>,
    /// Deadline for the whole command in ms (1-120000, default 30000).
    #[arg(long, value_name = "MS", global = true)]
    pub timeout_ms: Option<u64>,
    /// Print the API envelope as JSON.
    #[arg(long = "json", id = "global_json", global = true)]
    pub json: bool,
    /// Daemon port (default 9377).
    #[arg(long = "port", id = "global_port", value_name = "PORT", global = true)]
    pub port: Option<u16>,
    /// Request id to send (echoed back).
    #[arg(
        long = "id",
        id = "global_id",
        value_name = "ID",
        global = true,
        hide = true
    )]
    pub id: Option<String>,
    /// Who calls: a tab is leased to one client at a time.
    #[arg(
        long = "client",
        id = "global_client",
        value_name = "CLIENT",
        global = true,
        env = "WEBRIG_CLIENT",
        hide_env_values = true
    )]
    pub client: Option<String>,
    /// Wait for a tab leased to another client instead of answering busy.
    #[arg(long = "wait-lease", id = "global_wait_lease", global = true)]
    pub wait_lease: bool,
}

// Globals have ids of their own (`global_*`): clap carries a global's value
// between a command and the root by id, so a command field of the same name
// (`route --json TEXT`, `tab close ID`) once landed in a global of another
// type and the CLI panicked. Only `timeout_ms` keeps its name: `run
// workflow --timeout-ms` is the same deadline, of the same type.

/// Global options that take a value (kept in sync with [`Globals`]; a test
/// checks it).
const VALUE_FLAGS: &[&str] = &[
    "--session",
    "--tab",
    "--timeout-ms",
    "--port",
    "--id",
    "--client",
];

/// The command words an argv names, found without clap: the first positional
/// argument, plus the next one for grouped commands (`tab new`).
fn command_words(argv: &[String]) -> Vec<&str> {
    let mut words = Vec::new();
    let mut args = argv.iter().skip(1);
    while let Some(arg) = args.next() {
        if VALUE_FLAGS.contains(&arg.as_str()) {
            args.next();
        } else if arg == "--" {
            break;
        } else if !arg.starts_with('-') {
            words.push(arg.as_str());
            if words.len() == 3 {
                break;
            }
        }
    }
    words
}

/// Builds the clap tree. Building every subcommand costs about a millisecond,
/// a third of a warm `webrig eval`, so when argv names a known command only
/// that command is built; help and errors get the full tree.
fn build_for(argv: &[String]) -> clap::Command {
    let words = command_words(argv);
    let wants_help = argv
        .iter()
        .any(|a| a == "-h" || a == "--help" || a == "help");
    let only = match words.as_slice() {
        _ if wants_help => None,
        [first, second, third, ..]
            if commands::find(&format!("{first} {second} {third}")).is_some() =>
        {
            Some(format!("{first} {second} {third}"))
        }
        [first, second, ..] if commands::find(&format!("{first} {second}")).is_some() => {
            Some(format!("{first} {second}"))
        }
        [first, ..] if commands::find(first).is_some() => Some(first.to_string()),
        _ => None,
    };
    build_filtered(only.as_deref())
}

#[cfg(test)]
fn build() -> clap::Command {
    build_filtered(None)
}

fn build_filtered(only: Option<&str>) -> clap::Command {
    let root = clap::Command::new("webrig")
        .version(crate::VERSION)
        .subcommand_required(true)
        .arg_required_else_help(true);
    // After the globals: their struct's doc comment would be the about.
    let mut root = <Globals as clap::Args>::augment_args(root).about(help::WHAT);
    root = root.subcommand(
        clap::Command::new("serve")
            .about("Run the daemon in the foreground (other commands start it in the background)")
            .arg(
                Arg::new("watch-pid")
                    .long("watch-pid")
                    .hide(true)
                    .value_parser(clap::value_parser!(u32)),
            ),
    );
    root = root.subcommand(
        clap::Command::new("mcp")
            .about("Serve webrig's commands as MCP tools over stdio (for MCP clients)")
            .long_about(
                "Serve webrig's commands as MCP tools over stdio. An MCP client starts it; \
                 add to the client's configuration:\n\n  \
                 {\"mcpServers\": {\"webrig\": {\"command\": \"webrig\", \"args\": [\"mcp\", \"--tools\", \"core\"]}}}\n\n\
                 Tools act in --session (default \"default\"); the daemon starts when needed.",
            )
            .arg(
                Arg::new("tools")
                    .long("tools")
                    .default_value("core")
                    .help("core (12 tools an agent needs most), all, or a comma-separated list of command names"),
            ),
    );
    root = root.subcommand(
        clap::Command::new("browser-keeper")
            .hide(true)
            .about("Hold a managed browser's DevTools pipe (started by the daemon)")
            .arg(Arg::new("dir").required(true))
            .arg(Arg::new("browser").num_args(1..).last(true).required(true)),
    );
    root = root.subcommand(
        clap::Command::new("docs")
            .hide(true)
            .about(
                "Print docs/SURFACE.md (or, with --openapi, docs/openapi.json) from the registry",
            )
            .arg(
                Arg::new("openapi")
                    .long("openapi")
                    .action(ArgAction::SetTrue),
            ),
    );
    let mut groups: Vec<(&str, clap::Command)> = Vec::new();
    for entry in commands::registry() {
        if only.is_some_and(|name| name != entry.cli_name()) {
            continue;
        }
        match entry.cli_name().split_once(' ') {
            None => {
                let cmd = clap::Command::new(entry.cli_name()).about(entry.about());
                root = root.subcommand(entry.augment(cmd));
            }
            Some((group, leaf)) => {
                // Three words (`canvas code pull`): the middle word is a
                // group of its own inside the first.
                let (word, cmd) = match leaf.split_once(' ') {
                    None => (
                        leaf,
                        entry.augment(clap::Command::new(leaf).about(entry.about())),
                    ),
                    Some((mid, last)) => {
                        let cmd = entry.augment(clap::Command::new(last).about(entry.about()));
                        let middle = groups
                            .iter()
                            .find(|(g, _)| *g == group)
                            .and_then(|(_, p)| p.find_subcommand(mid).cloned())
                            .unwrap_or_else(|| {
                                clap::Command::new(mid)
                                    .subcommand_required(true)
                                    .about(help::parent_about(&format!("{group} {mid}")))
                            });
                        (mid, middle.subcommand(cmd))
                    }
                };
                if let Some((_, parent)) = groups.iter_mut().find(|(g, _)| *g == group)
                    && parent.find_subcommand(word).is_some()
                {
                    *parent = parent.clone().mut_subcommand(word, |_| cmd);
                    continue;
                }
                match groups.iter_mut().find(|(g, _)| *g == group) {
                    Some((_, parent)) => *parent = parent.clone().subcommand(cmd),
                    None => groups.push((
                        group,
                        clap::Command::new(group)
                            .subcommand_required(true)
                            .about(help::parent_about(group))
                            .subcommand(cmd),
                    )),
                }
            }
        }
    }
    for (group, parent) in groups {
        if root.find_subcommand(group).is_some() {
            // A command that is also a group (`providers`, `providers
            // status`): the leaf runs when no subcommand follows.
            let children: Vec<clap::Command> = parent.get_subcommands().cloned().collect();
            root = root.mut_subcommand(group, |leaf| {
                leaf.args_conflicts_with_subcommands(true)
                    .subcommands(children)
            });
        } else {
            root = root.subcommand(parent);
        }
    }
    if only.is_none() {
        root = help::apply(root);
    }
    root
}

/// The registry entry and argument matches a parsed command line names.
fn resolve(matches: &ArgMatches) -> Option<(&'static Entry, &ArgMatches)> {
    let (name, sub) = matches.subcommand()?;
    if let Some((leaf, leaf_matches)) = sub.subcommand() {
        if let Some((last, last_matches)) = leaf_matches.subcommand() {
            return commands::find(&format!("{name} {leaf} {last}")).map(|e| (e, last_matches));
        }
        return commands::find(&format!("{name} {leaf}")).map(|e| (e, leaf_matches));
    }
    commands::find(name).map(|e| (e, sub))
}

pub fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().collect();
    // Before clap and the registry: `--version` is how scripts and agents
    // check for webrig, and it should cost no more than starting a process.
    if let [_, flag] = argv.as_slice()
        && (flag == "--version" || flag == "-V")
    {
        let line = format!("webrig {}\n", crate::VERSION);
        return match std::io::stdout().lock().write_all(line.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::from(1),
        };
    }
    if let Some(name) = workflow_help(&argv) {
        return show_workflow_help(&argv, name);
    }
    let matches = build_for(&argv).get_matches_from(&argv);
    let globals = match Globals::from_arg_matches(&matches) {
        Ok(g) => g,
        Err(e) => e.exit(),
    };
    match matches.subcommand() {
        Some(("serve", sub)) => return serve(&globals, sub.get_one::<u32>("watch-pid").copied()),
        Some(("mcp", sub)) => {
            let tools = sub.get_one::<String>("tools").cloned().unwrap_or_default();
            return mcp(&globals, &tools);
        }
        Some(("browser-keeper", sub)) => {
            let dir = sub.get_one::<String>("dir").cloned().unwrap_or_default();
            let browser: Vec<String> = sub
                .get_many::<String>("browser")
                .map(|v| v.cloned().collect())
                .unwrap_or_default();
            if let Err(e) = crate::browser::keeper::run(std::path::Path::new(&dir), &browser) {
                eprintln!("error: {e:#}");
            }
            return ExitCode::from(1);
        }
        Some(("docs", sub)) => {
            if sub.get_flag("openapi") {
                let doc = commands::openapi::document();
                println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
            } else {
                print!("{}", commands::surface::markdown());
            }
            return ExitCode::SUCCESS;
        }
        _ => {}
    }
    let Some((entry, sub)) = resolve(&matches) else {
        eprintln!("error: unknown command");
        return ExitCode::from(2);
    };
    let args = match entry.parse(sub) {
        Ok(args) => args,
        Err(e) => return report_local(&globals, e.message(), 2),
    };
    let request = Request {
        id: globals.id.clone(),
        session: Some(globals.session.clone()),
        tab: globals.tab.clone(),
        command: entry.api_name().to_string(),
        args,
        timeout_ms: globals.timeout_ms,
        client: globals.client.clone(),
        wait_lease: globals.wait_lease,
        local_files: false,
        events: None,
    };
    let home = match Home::from_env() {
        Ok(h) => h,
        Err(e) => return report_local(&globals, &format!("{e:#}"), 1),
    };
    let port = match config::port(globals.port) {
        Ok(p) => p,
        Err(e) => return report_local(&globals, &format!("{e:#}"), 1),
    };
    let client = crate::client::Client::new(home, port);
    let timeout = entry.timeout_for(&request.args);
    let send = || {
        if entry.streams() {
            let mut progress = progress::Progress::new(globals.json);
            let mut sink = |v: &serde_json::Value| progress.event(v);
            let sent = client.send(&request, entry.autostart(), timeout, Some(&mut sink));
            progress.done();
            sent
        } else {
            client.send(&request, entry.autostart(), timeout, None)
        }
    };
    let mut sent = send();
    // The first run at a terminal: nothing installed serves it, so offer
    // `webrig setup`, then run the command again.
    if let Ok((_, response)) = &sent
        && first_run::offers(response, globals.json)
        && first_run::setup(globals.port)
    {
        sent = send();
    }
    let (raw, response) = match sent {
        Ok(r) => r,
        Err(e) => return report_local(&globals, &format!("{e:#}"), 1),
    };
    render(&globals, entry, &raw, &response)
}

/// `webrig mcp`: the registry as MCP tools on stdio.
fn mcp(globals: &Globals, tools: &str) -> ExitCode {
    let tools = match crate::mcp::choose(tools) {
        Ok(t) => t,
        Err(e) => return report_local(globals, &e, 2),
    };
    let setup = Home::from_env().and_then(|home| Ok((home, config::port(globals.port)?)));
    let (home, port) = match setup {
        Ok(x) => x,
        Err(e) => return report_local(globals, &format!("{e:#}"), 1),
    };
    let server = crate::mcp::Server::new(
        tools,
        globals.session.clone(),
        globals.client.clone(),
        crate::mcp::Backend::Socket { home, port },
    );
    match crate::mcp::serve_stdio(server) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// `run workflow NAME … --help`: the workflow's own parameters, asked of
/// the daemon (clap knows only the runner's options).
fn workflow_help(argv: &[String]) -> Option<&str> {
    let words = command_words(argv);
    if words.get(..2) != Some(&["run", "workflow"][..]) {
        return None;
    }
    let at = argv.iter().position(|a| a == "workflow")?;
    let name = argv[at + 1..].iter().find(|a| !a.starts_with('-'))?;
    let asks = argv[at + 1..].iter().any(|a| a == "--help" || a == "-h");
    asks.then_some(name.as_str())
}

fn show_workflow_help(argv: &[String], name: &str) -> ExitCode {
    // The globals (port, --json) as given; the rest is help anyway.
    let globals = build_filtered(Some("workflows"))
        .ignore_errors(true)
        .get_matches_from(argv.iter().filter(|a| *a != "--help" && *a != "-h"));
    let globals = Globals::from_arg_matches(&globals).unwrap_or_else(|e| e.exit());
    let Some(entry) = commands::find("workflows") else {
        return ExitCode::from(2);
    };
    let request = Request {
        id: None,
        session: None,
        tab: None,
        command: entry.api_name().to_string(),
        args: serde_json::json!({ "name": name }),
        timeout_ms: globals.timeout_ms,
        client: None,
        wait_lease: false,
        local_files: false,
        events: None,
    };
    let sent = Home::from_env().and_then(|home| {
        let port = config::port(globals.port)?;
        crate::client::Client::new(home, port).send(&request, true, None, None)
    });
    match sent {
        Ok((raw, response)) => render(&globals, entry, &raw, &response),
        Err(e) => report_local(&globals, &format!("{e:#}"), 1),
    }
}

/// Text for a terminal: page titles, page text and plugin answers are
/// untrusted, so control characters (escape sequences that could rewrite
/// the screen or the window title) are dropped; newlines and tabs stay.
fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let bad = |c: char| c.is_control() && c != '\n' && c != '\t';
    if text.chars().any(bad) {
        text.chars().filter(|c| !bad(*c)).collect::<String>().into()
    } else {
        text.into()
    }
}

fn render(globals: &Globals, entry: &Entry, raw: &str, response: &Response) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    if globals.json {
        let _ = writeln!(stdout, "{}", raw.trim_end());
    }
    match (&response.result, &response.error) {
        (Some(result), None) => {
            if !globals.json {
                let text = entry
                    .human(result)
                    .unwrap_or_else(|| serde_json::to_string_pretty(result).unwrap_or_default());
                if !text.is_empty() {
                    let _ = writeln!(stdout, "{}", printable(&text));
                }
            }
            if entry.failed(result) {
                return ExitCode::from(crate::error::ErrorCode::PluginFailed.exit_code());
            }
            ExitCode::SUCCESS
        }
        (_, Some(error)) => {
            if !globals.json {
                eprintln!("error: {}", printable(error.message()));
                if let Some(hint) = error.hint() {
                    eprintln!("hint: {}", printable(hint));
                }
            }
            ExitCode::from(error.code().exit_code())
        }
        (None, None) => ExitCode::SUCCESS,
    }
}

/// A failure that never got an answer from the daemon.
fn report_local(globals: &Globals, message: &str, code: u8) -> ExitCode {
    if globals.json {
        let envelope = serde_json::json!({
            "id": globals.id.clone().unwrap_or_default(),
            "ok": false,
            "error": { "code": if code == 2 { "invalid_argument" } else { "internal" }, "message": message },
        });
        println!("{envelope}");
    } else {
        eprintln!("error: {message}");
    }
    ExitCode::from(code)
}

fn serve(globals: &Globals, watch_pid: Option<u32>) -> ExitCode {
    let filter = tracing_subscriber::EnvFilter::try_from_env("WEBRIG_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let result = (|| -> anyhow::Result<()> {
        let home = Home::from_env()?;
        let port = config::port(globals.port)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        runtime.block_on(crate::daemon::serve(
            home,
            crate::daemon::ServeOptions { port, watch_pid },
        ))
    })();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_never_reach_the_terminal() {
        assert_eq!(
            printable("a\u{1b}]0;pwned\u{7}b\nc\td\u{9b}2J"),
            "a]0;pwnedb\nc\td2J"
        );
        assert!(matches!(
            printable("plain\ntext"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn clap_tree_is_valid() {
        build().debug_assert();
    }

    #[test]
    fn value_flags_match_the_globals() {
        let cmd = <Globals as clap::Args>::augment_args(clap::Command::new("x"));
        let mut takes_value: Vec<String> = cmd
            .get_arguments()
            .filter(|a| a.get_action().takes_values())
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect();
        takes_value.sort();
        let mut listed: Vec<String> = VALUE_FLAGS.iter().map(|s| s.to_string()).collect();
        listed.sort();
        assert_eq!(takes_value, listed);
    }

    /// Every command's own arguments, walking nested command groups.
    fn command_args(cmd: &clap::Command, path: &str, out: &mut Vec<(String, clap::Arg)>) {
        for sub in cmd.get_subcommands() {
            let here = format!("{path} {}", sub.get_name());
            out.extend(sub.get_arguments().map(|a| (here.clone(), a.clone())));
            command_args(sub, &here, out);
        }
    }

    #[test]
    fn no_command_field_collides_with_a_global_flag() {
        // `route --json BODY` once shared the id of the global `--json`
        // (a bool) and the CLI panicked reading it.
        let globals = <Globals as clap::Args>::augment_args(clap::Command::new("x"));
        let taken: Vec<(String, Option<String>)> = globals
            .get_arguments()
            .map(|a| (a.get_id().to_string(), a.get_long().map(str::to_string)))
            .collect();
        let mut args = Vec::new();
        command_args(&build(), "webrig", &mut args);
        assert!(args.len() > 100, "walked the tree: {}", args.len());
        // `run workflow --timeout-ms` is the request's deadline too (same
        // type, same meaning): shadowing the global is intended.
        let intended = |cmd: &str, id: &str| cmd == "webrig run workflow" && id == "timeout_ms";
        let clashes: Vec<String> = args
            .iter()
            .filter(|(_, a)| !a.is_global_set())
            .filter(|(cmd, a)| !intended(cmd, a.get_id().as_str()))
            .filter(|(_, a)| {
                taken.iter().any(|(id, long)| {
                    a.get_id() == id.as_str()
                        || (a.get_long().is_some() && a.get_long() == long.as_deref())
                })
            })
            .map(|(cmd, a)| format!("{cmd}: {}", a.get_id()))
            .collect();
        assert!(
            clashes.is_empty(),
            "fields that clash with a global flag: {clashes:?}"
        );
    }

    /// Splits one shell command line (quotes, backslashes) into words.
    fn shell_words(line: &str) -> Vec<String> {
        let (mut words, mut word, mut quote, mut any) = (Vec::new(), String::new(), None, false);
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match (quote, c) {
                (None, '\'' | '"') => (quote, any) = (Some(c), true),
                (Some(q), c) if c == q => quote = None,
                (None | Some('"'), '\\') => word.extend(chars.next()),
                (None, c) if c.is_whitespace() => {
                    if any || !word.is_empty() {
                        words.push(std::mem::take(&mut word));
                    }
                    any = false;
                }
                (None, '#') if word.is_empty() && !any => break,
                (_, c) => word.push(c),
            }
        }
        if any || !word.is_empty() {
            words.push(word);
        }
        words
    }

    #[test]
    fn every_readme_example_parses_into_its_api_args() {
        let readme = include_str!("../../README.md");
        let mut lines = Vec::new();
        let mut in_sh = false;
        let mut pending = String::new();
        for line in readme.lines() {
            if line.starts_with("```") {
                in_sh = line.trim() == "```sh";
                continue;
            }
            if !in_sh || line.trim_start().starts_with('#') {
                continue;
            }
            match line.strip_suffix('\\') {
                Some(head) => pending.push_str(head),
                None => lines.push(std::mem::take(&mut pending) + line),
            }
        }
        let mut checked = 0;
        for line in &lines {
            let words = shell_words(line);
            for command in words.split(|w| w == "&&" || w == "|" || w == ";") {
                if command.first().map(String::as_str) != Some("webrig") {
                    continue;
                }
                let parsed = build()
                    .try_get_matches_from(command)
                    .unwrap_or_else(|e| panic!("README: {line}\n{e}"));
                if let Some((entry, sub)) = resolve(&parsed) {
                    // A clap id clash panics here (the test fails with it).
                    if let Err(e) = entry.parse(sub) {
                        panic!("README: {line}\n{e}");
                    }
                    // The global flags read back too.
                    let _ = <Globals as clap::FromArgMatches>::from_arg_matches(&parsed)
                        .unwrap_or_else(|e| panic!("README: {line}\n{e}"));
                }
                checked += 1;
            }
        }
        assert!(checked > 40, "found the README's examples: {checked}");
    }

    #[test]
    fn a_partial_tree_parses_like_the_full_one() {
        for line in [
            "webrig --session s1 goto a.test --until load",
            "webrig --json tab new x.test",
            "webrig --timeout-ms 5 wait --text hi",
            "webrig daemon status",
        ] {
            let argv: Vec<String> = line.split(' ').map(str::to_string).collect();
            let full = build()
                .try_get_matches_from(&argv)
                .expect("full tree parses");
            let partial = build_for(&argv)
                .try_get_matches_from(&argv)
                .expect("partial tree parses");
            let (a, am) = resolve(&full).expect("full resolves");
            let (b, bm) = resolve(&partial).expect("partial resolves");
            assert_eq!(a.api_name(), b.api_name());
            assert_eq!(a.parse(am).expect("args"), b.parse(bm).expect("args"));
        }
    }

    #[test]
    fn grouped_commands_resolve_to_their_entry() {
        let m = build()
            .try_get_matches_from(["webrig", "tab", "new", "example.com"])
            .expect("parses");
        let (entry, sub) = resolve(&m).expect("resolves");
        assert_eq!(entry.api_name(), "tab_new");
        assert_eq!(entry.parse(sub).expect("args")["url"], "example.com");
    }

    #[test]
    fn cli_args_become_the_api_args() {
        let m = build()
            .try_get_matches_from([
                "webrig",
                "--session",
                "s1",
                "goto",
                "a.test",
                "--until",
                "networkidle",
            ])
            .expect("parses");
        let (entry, sub) = resolve(&m).expect("resolves");
        let args = entry.parse(sub).expect("args");
        assert_eq!(
            args,
            serde_json::json!({"url": "a.test", "until": "networkidle"})
        );
    }
}
