//! The JSON envelope of `POST /command`, shared by the daemon and the CLI.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ApiError;

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

/// Session names: 1–64 of `A–Z a–z 0–9 _ . -`.
pub fn check_session_name(name: &str) -> Result<(), ApiError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if ok {
        Ok(())
    } else {
        Err(ApiError::invalid(format!(
            "session name {name:?} must be 1-64 characters of A-Z a-z 0-9 _ . -"
        )))
    }
}
