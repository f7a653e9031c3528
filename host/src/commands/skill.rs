//! `webrig skill`: the usage guide for agents, shipped in the binary (and as
//! `skills/webrig/SKILL.md` in the repository, checked to match).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Command, Cx, Scope};
use crate::error::ApiError;

/// The guide's text (the body of skills/webrig/SKILL.md).
pub const GUIDE: &str = include_str!("skill.md");

/// Print the usage guide for agents (the snapshot → ref → act loop, errors,
/// sessions, plugins, workflows, the extension, MCP).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Skill {}

impl Command for Skill {
    const NAME: &'static str = "skill";
    const ABOUT: &'static str = "Print the usage guide for agents";
    const SCOPE: Scope = Scope::Daemon;
    const AUTOSTART: bool = true;
    const READ_ONLY: bool = true;
    type Output = String;

    async fn run(self, _cx: Cx) -> Result<String, ApiError> {
        Ok(GUIDE.to_string())
    }

    fn human(out: &String) -> String {
        out.trim_end().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `webrig …` the guide names is a command (or the `mcp`
    /// transport), so a renamed command cannot leave it stale.
    #[test]
    fn the_guide_names_only_real_commands_and_matches_skill_md() {
        let mut checked = 0;
        for line in GUIDE.lines() {
            let mut rest = line;
            while let Some(at) = rest.find("webrig ") {
                rest = &rest[at + "webrig ".len()..];
                let words: Vec<&str> = rest
                    .split(|c: char| !(c.is_ascii_lowercase() || c == '-' || c == ' '))
                    .next()
                    .unwrap_or_default()
                    .split_whitespace()
                    .filter(|w| !w.starts_with('-'))
                    .take(2)
                    .collect();
                let Some(first) = words.first() else { continue };
                let two = words.join(" ");
                let known = super::super::find(&two).is_some()
                    || super::super::find(first).is_some()
                    || ["mcp", "serve"].contains(first)
                    // Words after the command are its arguments.
                    || words.len() == 2 && super::super::find(first).is_some();
                assert!(
                    known,
                    "the guide names `webrig {two}`, which is no command: {line}"
                );
                checked += 1;
            }
        }
        assert!(checked > 40, "only {checked} commands named");
        let shipped = include_str!("../../../skills/webrig/SKILL.md");
        let body = shipped
            .strip_prefix("---\n")
            .and_then(|s| s.split_once("\n---\n"))
            .map(|(_, body)| body.trim_start())
            .expect("SKILL.md has front matter");
        assert_eq!(
            body.trim_end(),
            GUIDE.trim_end(),
            "skills/webrig/SKILL.md = skill.md"
        );
    }
}
