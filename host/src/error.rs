//! The API's closed set of error codes and the error value every surface returns.
//!
//! This module owns the wire shape of failures (`{code, message, hint?}`), the exit
//! code each failure maps to in the CLI, and the HTTP status it maps to in the
//! daemon. It must not know how errors arise.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Why a command failed. The set is closed: clients may match on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    InvalidArgument,
    NotFound,
    Timeout,
    Busy,
    OutcomeUnknown,
    Unsupported,
    Unauthorized,
    Forbidden,
    BrowserGone,
    NavigationFailed,
    PluginFailed,
    LimitExceeded,
    AuthRequired,
    NeedsHuman,
    Conflict,
    Internal,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 16] = [
        ErrorCode::InvalidArgument,
        ErrorCode::NotFound,
        ErrorCode::Timeout,
        ErrorCode::Busy,
        ErrorCode::OutcomeUnknown,
        ErrorCode::Unsupported,
        ErrorCode::Unauthorized,
        ErrorCode::Forbidden,
        ErrorCode::BrowserGone,
        ErrorCode::NavigationFailed,
        ErrorCode::PluginFailed,
        ErrorCode::LimitExceeded,
        ErrorCode::AuthRequired,
        ErrorCode::NeedsHuman,
        ErrorCode::Conflict,
        ErrorCode::Internal,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "invalid_argument",
            ErrorCode::NotFound => "not_found",
            ErrorCode::Timeout => "timeout",
            ErrorCode::Busy => "busy",
            ErrorCode::OutcomeUnknown => "outcome_unknown",
            ErrorCode::Unsupported => "unsupported",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::BrowserGone => "browser_gone",
            ErrorCode::NavigationFailed => "navigation_failed",
            ErrorCode::PluginFailed => "plugin_failed",
            ErrorCode::LimitExceeded => "limit_exceeded",
            ErrorCode::AuthRequired => "auth_required",
            ErrorCode::NeedsHuman => "needs_human",
            ErrorCode::Conflict => "conflict",
            ErrorCode::Internal => "internal",
        }
    }

    /// The CLI's process exit code for this failure (0 is success, 1 is reserved
    /// for failures that never reached the daemon).
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorCode::InvalidArgument => 2,
            ErrorCode::NotFound => 3,
            ErrorCode::Timeout => 4,
            ErrorCode::Busy => 5,
            ErrorCode::OutcomeUnknown => 6,
            ErrorCode::Unsupported => 7,
            ErrorCode::Unauthorized => 8,
            ErrorCode::Forbidden => 9,
            ErrorCode::BrowserGone => 10,
            ErrorCode::NavigationFailed => 11,
            ErrorCode::PluginFailed => 12,
            ErrorCode::LimitExceeded => 13,
            ErrorCode::Internal => 14,
            ErrorCode::AuthRequired => 15,
            ErrorCode::NeedsHuman => 16,
            ErrorCode::Conflict => 17,
        }
    }

    /// The HTTP status the daemon answers with.
    pub fn http_status(self) -> u16 {
        match self {
            ErrorCode::InvalidArgument => 400,
            ErrorCode::Unauthorized => 401,
            ErrorCode::Forbidden => 403,
            ErrorCode::NotFound => 404,
            ErrorCode::Timeout => 504,
            ErrorCode::Busy => 429,
            ErrorCode::OutcomeUnknown => 504,
            ErrorCode::Unsupported => 501,
            ErrorCode::BrowserGone => 502,
            ErrorCode::NavigationFailed => 502,
            ErrorCode::PluginFailed => 502,
            ErrorCode::LimitExceeded => 413,
            ErrorCode::AuthRequired => 412,
            ErrorCode::NeedsHuman => 409,
            ErrorCode::Conflict => 409,
            ErrorCode::Internal => 500,
        }
    }

    pub fn meaning(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "the request or one of its arguments is malformed",
            ErrorCode::NotFound => {
                "no such session, tab, element or ref (a stale ref included), or nothing installed serves the command"
            }
            ErrorCode::Timeout => {
                "what the command waited for did not happen in time; nothing was changed"
            }
            ErrorCode::Busy => {
                "the session's queue, or every endpoint of a remote browser pool, is full; retry later"
            }
            ErrorCode::OutcomeUnknown => {
                "the command passed its deadline while running; it may or may not have taken effect"
            }
            ErrorCode::Unsupported => {
                "this transport or browser cannot do that, or no installed plugin that would is ready"
            }
            ErrorCode::Unauthorized => "missing or wrong token",
            ErrorCode::Forbidden => "refused by the trust boundary (Host, Origin, grants)",
            ErrorCode::BrowserGone => "the session's browser exited or its connection dropped",
            ErrorCode::NavigationFailed => {
                "the page could not be loaded (DNS, connection, TLS, aborted)"
            }
            ErrorCode::PluginFailed => "a plugin trapped, timed out or broke its limits",
            ErrorCode::LimitExceeded => "a configured limit was reached",
            ErrorCode::AuthRequired => {
                "a login was required (launch --cookies-policy required) and no usable cookie was imported"
            }
            ErrorCode::NeedsHuman => {
                "the page is a challenge or a login only a person can pass (captcha, MFA, a secret); solve it in the browser, then run webrig resume"
            }
            ErrorCode::Conflict => {
                "what the command would change moved under it: a canvas document's revision, a source file since its pull, or a lease another agent holds; the message names the current state"
            }
            ErrorCode::Internal => "a bug in webrig; please report it",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failure as every surface reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ApiError {
    code: ErrorCode,
    message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hint: Option<String>,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError {
            code,
            message: message.into(),
            hint: None,
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The same error, its message led by `what` (which config entry).
    pub fn prefixed(mut self, what: &str) -> Self {
        self.message = format!("{what}{}", self.message);
        self
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    pub fn hint(&self) -> Option<&str> {
        self.hint.as_deref()
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArgument, message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }

    pub fn timeout(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Timeout, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_serialize_as_their_wire_names() {
        for code in ErrorCode::ALL {
            let wire = serde_json::to_value(code).expect("enum serializes");
            assert_eq!(wire, serde_json::Value::String(code.as_str().into()));
        }
    }

    #[test]
    fn exit_codes_are_distinct_and_nonzero() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            assert!(code.exit_code() > 1);
            assert!(seen.insert(code.exit_code()), "{code} shares its exit code");
        }
    }
}
