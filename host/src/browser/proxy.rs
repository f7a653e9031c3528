//! A session's proxy (`launch --proxy URL`): where its browser's requests
//! go, what bypasses it, and the credentials it asks for.
//!
//! A context of the shared browser gets its own proxy
//! (`Target.createBrowserContext {proxyServer}`); a browser of the
//! session's own gets `--proxy-server`. Credentials never go into a URL,
//! an argument or a log: they come from a file of the user's or an
//! environment variable of the daemon, and the session's request guard
//! answers the proxy's `Fetch.authRequired` with them (so a session with
//! credentials runs a browser of its own, see `guard.rs`).

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::guard::ProxyCredentials;
use crate::error::ApiError;

/// The most a credentials file may hold.
const CREDENTIALS_BYTES: u64 = 4096;

#[derive(Debug, Clone)]
pub struct Proxy {
    /// `scheme://host:port`, never with credentials.
    server: String,
    bypass: Vec<String>,
    credentials: Option<ProxyCredentials>,
}

/// What `sessions` and `inspect` show of a proxy (never its credentials).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProxyInfo {
    pub server: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bypass: Vec<String>,
    /// The session answers the proxy's request for credentials.
    pub authenticated: bool,
}

impl ProxyInfo {
    /// One line: the server, its bypass list, whether it is answered.
    pub fn human(&self) -> String {
        let mut s = self.server.clone();
        if !self.bypass.is_empty() {
            s.push_str(&format!(" (bypass {})", self.bypass.join(",")));
        }
        if self.authenticated {
            s.push_str(", with credentials");
        }
        s
    }
}

impl Proxy {
    /// A proxy from `launch --proxy URL [--proxy-bypass LIST]`; the URL may
    /// not hold credentials (they would show in `ps` and in logs).
    pub fn parse(
        raw: &str,
        bypass: &[String],
        credentials: Option<ProxyCredentials>,
    ) -> Result<Proxy, ApiError> {
        let url = url::Url::parse(raw.trim()).map_err(|e| {
            ApiError::invalid(format!(
                "--proxy: {e}: give scheme://host:port (http, https, socks5 or socks4)"
            ))
        })?;
        if !url.username().is_empty() || url.password().is_some() {
            return Err(ApiError::invalid(
                "--proxy: credentials do not go in the URL (they would show in ps and logs)",
            )
            .with_hint("put user:password in a file of yours (--proxy-auth-file) or an environment variable (--proxy-auth-env)"));
        }
        let scheme = url.scheme();
        if !matches!(scheme, "http" | "https" | "socks5" | "socks4") {
            return Err(ApiError::invalid(format!(
                "--proxy: {scheme}: is not a proxy scheme (http, https, socks5, socks4)"
            )));
        }
        if credentials.is_some() && scheme.starts_with("socks") {
            return Err(ApiError::new(
                crate::error::ErrorCode::Unsupported,
                "--proxy: Chromium cannot give credentials to a SOCKS proxy",
            )
            .with_hint("use an http or https proxy for one that needs credentials"));
        }
        if url.path() != "/" && !url.path().is_empty() || url.query().is_some() {
            return Err(ApiError::invalid(
                "--proxy: give scheme://host:port only, no path or query",
            ));
        }
        let host = url
            .host_str()
            .ok_or_else(|| ApiError::invalid("--proxy: the URL names no host"))?;
        let port = url
            .port_or_known_default()
            .or(match scheme {
                "socks5" | "socks4" => Some(1080),
                _ => None,
            })
            .ok_or_else(|| ApiError::invalid("--proxy: the URL names no port"))?;
        let mut rules = Vec::new();
        for b in bypass.iter().flat_map(|b| b.split([',', ';'])) {
            let b = b.trim();
            if b.is_empty() {
                continue;
            }
            if b.len() > 253
                || !b
                    .bytes()
                    .all(|c| c.is_ascii_alphanumeric() || b"-.*:<>[]/_".contains(&c))
            {
                return Err(ApiError::invalid(format!(
                    "--proxy-bypass: {b:?} is not a host pattern (example.com, *.example.org, \
                     10.0.0.0/8, <local>, <-loopback>)"
                )));
            }
            rules.push(b.to_string());
            if rules.len() > 256 {
                return Err(ApiError::invalid("--proxy-bypass: more than 256 rules"));
            }
        }
        Ok(Proxy {
            server: format!("{scheme}://{host}:{port}"),
            bypass: rules,
            credentials,
        })
    }

    pub fn credentials(&self) -> Option<&ProxyCredentials> {
        self.credentials.as_ref()
    }

    /// The switches a browser of the session's own starts with.
    pub fn switches(&self) -> Vec<String> {
        let mut args = vec![format!("--proxy-server={}", self.server)];
        if !self.bypass.is_empty() {
            args.push(format!("--proxy-bypass-list={}", self.bypass.join(";")));
        }
        args
    }

    /// `Target.createBrowserContext`'s proxy fields, for a context.
    pub fn context_params(&self) -> Value {
        let mut p = json!({ "proxyServer": self.server });
        if !self.bypass.is_empty() {
            p["proxyBypassList"] = json!(self.bypass.join(";"));
        }
        p
    }

    pub fn info(&self) -> ProxyInfo {
        ProxyInfo {
            server: self.server.clone(),
            bypass: self.bypass.clone(),
            authenticated: self.credentials.is_some(),
        }
    }
}

/// Reads `user:password` from a file of the user's that no one else may
/// read (not a symlink), or from an environment variable of the daemon.
pub fn credentials(
    file: Option<&Path>,
    env: Option<&str>,
) -> Result<Option<ProxyCredentials>, ApiError> {
    let text = match (file, env) {
        (Some(_), Some(_)) => {
            return Err(ApiError::invalid(
                "--proxy-auth-file and --proxy-auth-env: give one",
            ));
        }
        (Some(path), None) => {
            let bytes = crate::config::trust::read_owned(path, true, CREDENTIALS_BYTES)
                .map_err(|e| ApiError::invalid(format!("--proxy-auth-file: {e}")))?
                .ok_or_else(|| {
                    ApiError::not_found(format!(
                        "--proxy-auth-file: {} does not exist",
                        path.display()
                    ))
                })?;
            String::from_utf8(bytes)
                .map_err(|_| ApiError::invalid("--proxy-auth-file: not UTF-8 text"))?
        }
        (None, Some(var)) => std::env::var(var).map_err(|_| {
            ApiError::invalid(format!(
                "--proxy-auth-env: the daemon has no environment variable {var:?}"
            ))
        })?,
        (None, None) => return Ok(None),
    };
    let line = text
        .lines()
        .next()
        .unwrap_or_default()
        .trim_end_matches('\r');
    let (username, password) = line.split_once(':').ok_or_else(|| {
        ApiError::invalid("proxy credentials: write them as user:password on one line")
    })?;
    if username.is_empty() {
        return Err(ApiError::invalid(
            "proxy credentials: the user name is empty",
        ));
    }
    Ok(Some(ProxyCredentials {
        username: username.to_string(),
        password: password.to_string(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proxy_url_is_checked_and_never_holds_credentials() {
        let p =
            Proxy::parse("http://127.0.0.1:3128", &["<-loopback>".into()], None).expect("parses");
        assert_eq!(
            p.switches(),
            [
                "--proxy-server=http://127.0.0.1:3128",
                "--proxy-bypass-list=<-loopback>"
            ]
        );
        assert_eq!(p.context_params()["proxyServer"], "http://127.0.0.1:3128");
        let socks = Proxy::parse("socks5://proxy.example", &[], None).expect("parses");
        assert_eq!(socks.info().server, "socks5://proxy.example:1080");
        let e = Proxy::parse("http://ann:pw@proxy:3128", &[], None).expect_err("refused");
        assert!(!e.message().contains("pw"), "{}", e.message());
        for bad in ["ftp://p:21", "proxy:3128", "http://p:3128/path", "http://"] {
            assert!(Proxy::parse(bad, &[], None).is_err(), "{bad}");
        }
        assert!(Proxy::parse("http://p:1", &["a b".into()], None).is_err());
        let creds = ProxyCredentials {
            username: "u".into(),
            password: "p".into(),
        };
        assert!(Proxy::parse("socks5://p:1080", &[], Some(creds.clone())).is_err());
        let p = Proxy::parse("http://p:1", &[], Some(creds)).expect("parses");
        assert!(p.info().authenticated);
        assert!(!format!("{p:?}").contains("password: \"p\""));
    }
}
