//! Renders `docs/SURFACE.md` from the registry: the commands by group (as
//! `webrig --help` shows them), then each with its CLI usage, API name,
//! arguments and result fields, plus the error codes and exit codes. A test fails when the committed file differs from this output.

use std::fmt::Write;

use serde_json::Value;

use super::{Group, Scope, in_group};
use crate::error::ErrorCode;

pub fn markdown() -> String {
    let mut out = String::new();
    out.push_str(
        "# webrig command surface\n\n\
         Generated from the command registry (`host/src/commands.rs`) by \
         `cargo xtask docs`; a test fails when this file is stale. Every command \
         is the same on every surface: `webrig <words> [args]` on the CLI, and \
         `POST /command` with `{\"command\": \"<api name>\", \"args\": {…}}` on \
         the daemon's HTTP API.\n\n",
    );
    out.push_str(
        "## Global options\n\n\
         | option | env | meaning |\n| --- | --- | --- |\n\
         | `--session NAME` | `WEBRIG_SESSION` | session to act in (default `default`) |\n\
         | `--tab ID` | | tab to act on (default: the session's active tab) |\n\
         | `--client NAME` | `WEBRIG_CLIENT` | who is calling: a tab is leased to one client at a time |\n\
         | `--wait-lease` | | wait (FIFO) for a tab leased to another client instead of answering `busy` |\n\
         | `--timeout-ms N` | | deadline for the whole command, 1–120000 (default 30000) |\n\
         | `--json` | | print the API envelope `{id, ok, result \\| error}` |\n\
         | `--port N` | `WEBRIG_PORT` | daemon port (default 9377) |\n\
         | | `WEBRIG_HOME` | state directory (token, logs, artifacts) |\n\
         | | `WEBRIG_BROWSER` | browser executable for `launch` |\n\n",
    );
    out.push_str(
        "## Commands\n\nIn the groups of `webrig --help`; besides these, `webrig serve` runs \
         the daemon in the foreground and `webrig mcp` serves the commands as MCP tools over \
         stdio.\n\n",
    );
    for group in Group::ALL {
        let _ = writeln!(
            out,
            "### {}\n\n{}.\n\n| CLI | API name | what it does |\n| --- | --- | --- |",
            group.title(),
            upper_first(group.summary())
        );
        for e in in_group(group) {
            let _ = writeln!(
                out,
                "| `webrig {}` | `{}` | {} |",
                e.cli_name(),
                e.api_name(),
                e.about()
            );
        }
        out.push('\n');
    }
    out.push_str("## Each command\n\n");
    for e in Group::ALL.into_iter().flat_map(in_group) {
        let _ = writeln!(out, "### `{}`\n\n{}", e.cli_name(), e.about());
        let scope = match e.scope() {
            Scope::Daemon => "daemon-wide",
            Scope::Session => "runs in an existing session, in order",
            Scope::SessionCreate => "runs in the session, creating it if needed",
            Scope::Tab => {
                "runs on one tab of an existing session, in order with that tab's commands"
            }
            Scope::TabCreate => "runs on one tab, creating the session and its browser if needed",
        };
        let _ = writeln!(out, "\nAPI name `{}`; {scope}.\n", e.api_name());
        let args = e.args_schema();
        let _ = writeln!(out, "Arguments:\n");
        fields(&mut out, args.as_value());
        let _ = writeln!(out, "Result:\n");
        fields(&mut out, e.output_schema().as_value());
    }
    out.push_str("## Errors and exit codes\n\nA failed command answers `{\"ok\": false, \"error\": {\"code\", \"message\", \"hint\"?}}`. The codes are a closed set; the CLI exits with the code's number (1: the daemon could not be reached or started). Two answers that are not errors still fail the CLI with `plugin_failed`'s 12: a `search` where every provider it asked failed (the answer, with each failure, is printed), and a `plugin verify` that found a bad plugin.\n\n| code | exit | HTTP | meaning |\n| --- | --- | --- | --- |\n");
    for code in ErrorCode::ALL {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            code.as_str(),
            code.exit_code(),
            code.http_status(),
            code.meaning()
        );
    }
    out
}

fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// One bullet per property: name, type, required, description.
fn fields(out: &mut String, schema: &Value) {
    let props = schema.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    match props {
        Some(props) if !props.is_empty() => {
            for (name, prop) in props {
                let ty = type_name(prop, schema);
                let req = if required.contains(&name.as_str()) {
                    ", required"
                } else {
                    ""
                };
                let desc = prop
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .replace('\n', " ");
                let _ = writeln!(out, "- `{name}` ({ty}{req}) {desc}");
            }
        }
        _ => out.push_str("- none\n"),
    }
    out.push('\n');
}

fn type_name(prop: &Value, root: &Value) -> String {
    if let Some(reference) = prop.get("$ref").and_then(Value::as_str) {
        let name = reference.rsplit('/').next().unwrap_or(reference);
        let def = root.get("$defs").and_then(|d| d.get(name));
        return match def.and_then(enum_values) {
            Some(values) => values,
            None => name.to_string(),
        };
    }
    if let Some(values) = enum_values(prop) {
        return values;
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = prop.get(key).and_then(Value::as_array) {
            let names: Vec<String> = options
                .iter()
                .filter(|o| o.get("type").and_then(Value::as_str) != Some("null"))
                .map(|o| type_name(o, root))
                .collect();
            return names.join(" or ");
        }
    }
    match prop.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "any".to_string(),
    }
}

fn enum_values(schema: &Value) -> Option<String> {
    let list: Vec<String> = if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        values
            .iter()
            .filter_map(Value::as_str)
            .map(|s| format!("`{s}`"))
            .collect()
    } else {
        schema
            .get("oneOf")
            .and_then(Value::as_array)?
            .iter()
            .map(|o| {
                o.get("const")
                    .and_then(Value::as_str)
                    .map(|s| format!("`{s}`"))
            })
            .collect::<Option<Vec<_>>>()?
    };
    (!list.is_empty()).then(|| list.join(" \\| "))
}

#[cfg(test)]
mod tests {
    #[test]
    fn surface_doc_is_fresh() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/SURFACE.md");
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        let generated = super::markdown();
        assert!(
            committed == generated,
            "docs/SURFACE.md is stale: run `cargo xtask docs` and commit the result"
        );
    }
}
