//! The first run at a terminal. A command that found nothing installed to
//! serve it (the answer whose hint is [`SETUP_HINT`]) offers `webrig setup`
//! there and then: setup lists what the first-party plugins ask for and
//! asks once, and on "y" the command runs again. Without a terminal, or
//! with `--json`, the error and its hint are the answer: nothing prompts a
//! script or an agent.

use std::io::IsTerminal;

use crate::commands::envelope::Response;
use crate::providers::route::SETUP_HINT;

/// Whether to offer setup after this answer.
pub fn offers(response: &Response, json: bool) -> bool {
    !json
        && std::io::stdin().is_terminal()
        && std::io::stderr().is_terminal()
        && response
            .error
            .as_ref()
            .is_some_and(|e| e.hint() == Some(SETUP_HINT))
}

/// Runs `webrig setup` on this terminal (same home and port); true when it
/// installed them.
pub fn setup(port: Option<u16>) -> bool {
    eprintln!("webrig's first-party plugins are not installed yet: webrig setup");
    let Ok(exe) = std::env::current_exe() else {
        return false;
    };
    let mut cmd = std::process::Command::new(exe);
    if let Some(p) = port {
        cmd.args(["--port", &p.to_string()]);
    }
    cmd.arg("setup").status().is_ok_and(|s| s.success())
}
