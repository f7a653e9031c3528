//! The JSON envelope of `POST /command`, shared by the daemon and the CLI.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{ApiError, ErrorCode};

pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;
pub const MAX_TIMEOUT_MS: u64 = 120_000;

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// Echoed in the response; generated when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Session name (default `default`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Tab id (`t1`); default: the session's active tab.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<String>,
    /// Command name, e.g. `goto` or `tab_new`.
    pub command: String,
    #[serde(default)]
    pub args: Value,
    /// Deadline for the whole command, 1..=120000 (default 30000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Who is calling. A tab is leased to the first client that uses it until
    /// that client goes idle; others get `busy` (or wait, with `wait_lease`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    /// Wait in line for a tab leased to another client instead of `busy`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub wait_lease: bool,
    /// May this request name local files (set by the daemon from the door
    /// it came through and `[access]`, never by the caller).
    #[serde(skip)]
    #[schemars(skip)]
    pub local_files: bool,
    /// Where progress events go while the command runs (set by the
    /// daemon for `/command/stream`, never by the caller).
    #[serde(skip)]
    #[schemars(skip)]
    pub events: Option<crate::workflows::Events>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Response {
    pub id: String,
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ApiError>,
}

impl Response {
    pub fn from_result(id: String, result: Result<Value, ApiError>) -> Self {
        match result {
            Ok(value) => Response {
                id,
                ok: true,
                result: Some(value),
                error: None,
            },
            Err(error) => Response {
                id,
                ok: false,
                result: None,
                error: Some(error),
            },
        }
    }
}

/// How big a result is, as far as it was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// The exact length of its JSON.
    Exactly(usize),
    /// Measured in the page before it was brought back (UTF-16 units of its
    /// JSON, never more than its UTF-8 bytes).
    AtLeast(usize),
}

/// The refusal of a result over `limits.result_bytes` (`limit`): says how big
/// it is and, in the hint, how to ask for less.
pub fn too_large(command: &str, size: Size, limit: usize, ask_for_less: &str) -> ApiError {
    let mib = |n: usize| n as f64 / f64::from(1u32 << 20);
    let size = match size {
        Size::Exactly(n) => format!("{n} bytes ({:.1} MiB)", mib(n)),
        Size::AtLeast(n) => format!("at least {n} bytes ({:.1} MiB)", mib(n)),
    };
    ApiError::new(
        ErrorCode::LimitExceeded,
        format!(
            "the result of {command} is {size}, over the {limit}-byte ({:.1} MiB) limit on results (result_bytes in [limits])",
            mib(limit)
        ),
    )
    .with_hint(ask_for_less)
}

/// Session names: 1–64 of `A–Z a–z 0–9 _ . -`, starting with a letter,
/// digit or `_`. A name becomes a path component (the session's downloads
/// folder), so `.`, `..`, hidden names and ones that read as a flag never
/// pass.
pub fn check_session_name(name: &str) -> Result<(), ApiError> {
    let ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if ok {
        Ok(())
    } else {
        Err(ApiError::invalid(format!(
            "session name {name:?} must be 1-64 characters of A-Z a-z 0-9 _ . -, \
             starting with a letter, a digit or _"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_names_that_could_walk_a_path_are_refused() {
        for bad in [
            ".",
            "..",
            ".hidden",
            "-rf",
            "a/b",
            "",
            "x\0y",
            &"a".repeat(65),
        ] {
            assert!(check_session_name(bad).is_err(), "{bad:?}");
        }
        for good in ["default", "a.b", "_x", "9-lives", "research.2"] {
            assert!(check_session_name(good).is_ok(), "{good:?}");
        }
    }

    #[test]
    fn too_large_says_how_big_the_limit_and_how_to_ask_for_less() {
        let e = too_large(
            "eval",
            Size::AtLeast(100_000_002),
            8 << 20,
            "return a slice",
        );
        assert_eq!(e.code(), ErrorCode::LimitExceeded);
        assert!(
            e.message().contains("at least 100000002 bytes (95.4 MiB)"),
            "{e}"
        );
        assert!(e.message().contains("8388608-byte (8.0 MiB)"), "{e}");
        assert_eq!(e.hint(), Some("return a slice"));
    }
}
