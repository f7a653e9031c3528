//! One cookie as the browser holds it, and its CDP form (`Network`/`Storage`
//! cookie objects): what `cookies`, `state save|load` and a logins import
//! hand the browser.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// One cookie as the browser holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Cookie {
    pub name: String,
    pub value: String,
    pub domain: String,
    pub path: String,
    /// Seconds since the Unix epoch; absent for a session cookie.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<f64>,
    #[serde(default)]
    pub http_only: bool,
    #[serde(default)]
    pub secure: bool,
    /// Strict, Lax or None (absent: the browser's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_site: Option<String>,
}

impl Cookie {
    pub fn from_cdp(c: &Value) -> Cookie {
        let expires = c["expires"]
            .as_f64()
            .filter(|e| *e > 0.0 && c["session"] != true);
        Cookie {
            name: c["name"].as_str().unwrap_or_default().to_string(),
            value: c["value"].as_str().unwrap_or_default().to_string(),
            domain: c["domain"].as_str().unwrap_or_default().to_string(),
            path: c["path"].as_str().unwrap_or("/").to_string(),
            expires,
            http_only: c["httpOnly"] == true,
            secure: c["secure"] == true,
            same_site: c["sameSite"].as_str().map(str::to_string),
        }
    }

    pub fn to_cdp(&self) -> Value {
        let mut p = json!({
            "name": self.name, "value": self.value, "domain": self.domain,
            "path": self.path, "httpOnly": self.http_only, "secure": self.secure,
        });
        if let Some(e) = self.expires {
            p["expires"] = json!(e);
        }
        if let Some(s) = &self.same_site {
            p["sameSite"] = json!(s);
        }
        p
    }
}
