//! A session's domain policy: where its pages may go.
//!
//! Rules come in layers (`launch|connect --allow/--block`, `[policy]` in
//! config.toml, a pool entry's `allow`/`block`), and a URL must pass every
//! layer: so the stricter of two always wins, and no flag can loosen what
//! the config holds. In a layer a `--block` rule beats an `--allow` rule;
//! an empty allowlist allows every host the blocklist does not name.
//!
//! Rules are host patterns (`example.com`, `*.example.org` for its
//! subdomains, either with an optional `:port`, or `*`). Only URLs that
//! reach the network are held to them (http, https, ws, wss, ftp, and the
//! origin inside a `blob:` or `filesystem:` URL); `data:`, `about:` and
//! `javascript:` stay in the page.
//!
//! The browser layer enforces the policy (see `guard.rs` and the tab's
//! devtools); this module only decides.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::hosts::HostRule;
use crate::error::{ApiError, ErrorCode};

/// One source of rules.
#[derive(Debug, Clone)]
pub struct Layer {
    /// Where the rules come from: `--allow/--block`, `[policy]`, `pool NAME`.
    source: String,
    allow: Vec<(String, HostRule)>,
    block: Vec<(String, HostRule)>,
}

impl Layer {
    /// Parses comma-separated rule lists (each entry may itself hold
    /// several); None when both are empty.
    pub fn parse(
        source: &str,
        allow: &[String],
        block: &[String],
    ) -> Result<Option<Layer>, ApiError> {
        let rules = |lists: &[String], flag: &str| -> Result<Vec<(String, HostRule)>, ApiError> {
            let mut out = Vec::new();
            for raw in lists.iter().flat_map(|l| l.split(',')) {
                let raw = raw.trim();
                if raw.is_empty() {
                    continue;
                }
                if out.len() >= MAX_RULES {
                    return Err(ApiError::invalid(format!(
                        "{source}: more than {MAX_RULES} {flag} rules"
                    )));
                }
                let rule = HostRule::parse_user(raw).map_err(|why| {
                    ApiError::invalid(format!("{source}: bad {flag} rule {raw:?}: {why}"))
                })?;
                out.push((raw.to_ascii_lowercase(), rule));
            }
            Ok(out)
        };
        let layer = Layer {
            source: source.to_string(),
            allow: rules(allow, "allow")?,
            block: rules(block, "block")?,
        };
        Ok((!layer.allow.is_empty() || !layer.block.is_empty()).then_some(layer))
    }

    fn check(&self, url: &str, host: &str, port: u16) -> Result<(), String> {
        if let Some((raw, _)) = self.block.iter().find(|(_, r)| r.allows(host, port)) {
            return Err(format!(
                "{url} is blocked by the rule {raw:?} ({})",
                self.source
            ));
        }
        if !self.allow.is_empty() && !self.allow.iter().any(|(_, r)| r.allows(host, port)) {
            let list: Vec<&str> = self.allow.iter().map(|(raw, _)| raw.as_str()).collect();
            return Err(format!(
                "{url} is not on the allowlist {} ({})",
                list.join(","),
                self.source
            ));
        }
        Ok(())
    }
}

/// At most this many rules per list: a policy is read on every request.
const MAX_RULES: usize = 256;

/// The layers a session's pages are held to.
#[derive(Debug, Clone)]
pub struct DomainPolicy {
    layers: Vec<Layer>,
}

/// What `sessions` and `inspect` show of a policy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PolicyInfo {
    /// Each layer: where it comes from and its rules.
    pub layers: Vec<LayerInfo>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LayerInfo {
    pub source: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub block: Vec<String>,
}

impl PolicyInfo {
    /// One line: each layer's rules and where they come from.
    pub fn human(&self) -> String {
        self.layers
            .iter()
            .map(|l| {
                let mut parts = Vec::new();
                if !l.allow.is_empty() {
                    parts.push(format!("allow {}", l.allow.join(",")));
                }
                if !l.block.is_empty() {
                    parts.push(format!("block {}", l.block.join(",")));
                }
                format!("{} ({})", parts.join("; "), l.source)
            })
            .collect::<Vec<_>>()
            .join(", and ")
    }
}

impl DomainPolicy {
    /// The policy of these layers; None when there are none.
    pub fn new(layers: impl IntoIterator<Item = Layer>) -> Option<Arc<DomainPolicy>> {
        let layers: Vec<Layer> = layers.into_iter().collect();
        (!layers.is_empty()).then(|| Arc::new(DomainPolicy { layers }))
    }

    /// This policy with one more layer (the stricter of both holds).
    pub fn with(
        this: Option<&Arc<DomainPolicy>>,
        layer: Option<Layer>,
    ) -> Option<Arc<DomainPolicy>> {
        let mut layers = this.map(|p| p.layers.clone()).unwrap_or_default();
        layers.extend(layer);
        DomainPolicy::new(layers)
    }

    /// Whether a page may fetch or open `url`; the error names the URL and
    /// the rule that refused it.
    pub fn check(&self, url: &str) -> Result<(), String> {
        let Some((host, port)) = network_host(url) else {
            return Ok(());
        };
        let shown = shown(url);
        self.layers
            .iter()
            .try_for_each(|l| l.check(&shown, &host, port))
    }

    /// `check` as the API error a command answers with.
    pub fn require(&self, url: &str) -> Result<(), ApiError> {
        self.check(url).map_err(refused)
    }

    pub fn info(&self) -> PolicyInfo {
        PolicyInfo {
            layers: self
                .layers
                .iter()
                .map(|l| LayerInfo {
                    source: l.source.clone(),
                    allow: l.allow.iter().map(|(r, _)| r.clone()).collect(),
                    block: l.block.iter().map(|(r, _)| r.clone()).collect(),
                })
                .collect(),
        }
    }

    /// A script for the start of every document: WebSocket connections
    /// (which request interception does not see) to a host the policy
    /// refuses throw a SecurityError, and popups and link clicks to one
    /// are stopped before the browser opens a window (on the user's
    /// browser, where no browser-wide guard sees a new window's first
    /// request). It runs in the page, so a page set on it could get
    /// around it: the browser's own record of every socket
    /// (`Network.webSocketCreated`) is checked as well, and one it misses
    /// shows in `network` as escaped.
    pub fn socket_guard(&self, relay: bool) -> String {
        let layers: Vec<serde_json::Value> = self
            .layers
            .iter()
            .map(|l| {
                let side = |rules: &[(String, HostRule)]| -> Vec<serde_json::Value> {
                    rules
                        .iter()
                        .map(|(_, r)| {
                            let (host, wildcard, port) = r.parts();
                            serde_json::json!([host, wildcard, port])
                        })
                        .collect()
                };
                serde_json::json!({ "allow": side(&l.allow), "block": side(&l.block) })
            })
            .collect();
        include_str!("policy_guard.js")
            .replace("__LAYERS__", &serde_json::Value::Array(layers).to_string())
            .replace("__NO_WORKERS__", if relay { "true" } else { "false" })
    }
}

impl DomainPolicy {
    /// One `Content-Security-Policy` value per layer with an allowlist
    /// (several headers all hold): `connect-src` limited to the allowed
    /// hosts, so a worker's fetches and sockets are held by the browser
    /// itself. A blocklist cannot be said in CSP; `*` needs none.
    pub fn csp(&self) -> Vec<String> {
        self.layers
            .iter()
            .filter(|l| !l.allow.is_empty() && !l.allow.iter().any(|(_, r)| r.parts().0.is_empty()))
            .map(|l| {
                let mut sources = Vec::new();
                for (_, rule) in &l.allow {
                    let (host, wildcard, port) = rule.parts();
                    let host = if host.contains(':') {
                        format!("[{host}]")
                    } else if wildcard {
                        format!("*.{host}")
                    } else {
                        host.to_string()
                    };
                    let port = port.map_or(":*".to_string(), |p| format!(":{p}"));
                    for scheme in ["http", "https", "ws", "wss"] {
                        sources.push(format!("{scheme}://{host}{port}"));
                    }
                }
                format!("connect-src {} data: blob:", sources.join(" "))
            })
            .collect()
    }
}

impl super::guard::Judge for DomainPolicy {
    fn judge<'a>(
        &'a self,
        url: &'a str,
    ) -> futures_util::future::BoxFuture<'a, Result<(), String>> {
        Box::pin(std::future::ready(self.check(url)))
    }

    fn response_headers(&self) -> Vec<(String, String)> {
        self.csp()
            .into_iter()
            .map(|v| ("Content-Security-Policy".to_string(), v))
            .collect()
    }

    fn worker_script(&self) -> Option<String> {
        Some(self.socket_guard(false))
    }
}

/// The layers `[policy]` in config.toml holds session `name` to (None:
/// what holds every session).
pub fn configured(
    config: &crate::config::PolicyConfig,
    name: Option<&str>,
) -> Result<Vec<Layer>, ApiError> {
    let mut layers = Vec::new();
    layers.extend(Layer::parse("[policy]", &config.allow, &config.block)?);
    if let Some((name, rules)) = name.and_then(|n| config.sessions.get_key_value(n)) {
        let source = format!("[policy.sessions.{name}]");
        layers.extend(Layer::parse(&source, &rules.allow, &rules.block)?);
    }
    Ok(layers)
}

/// The API error for a refused URL.
pub fn refused(why: String) -> ApiError {
    ApiError::new(ErrorCode::Forbidden, why).with_hint(
        "the session's domain policy refuses it (webrig inspect shows the rules; \
         launch or connect --allow/--block, [policy] in config.toml)",
    )
}

/// The host and port a URL reaches on the network; None for one that
/// stays in the page (`data:`, `about:`, `javascript:`) or the browser.
fn network_host(raw: &str) -> Option<(String, u16)> {
    let url = url::Url::parse(raw).ok()?;
    let url = match url.scheme() {
        "blob" | "filesystem" => url::Url::parse(url.path()).ok()?,
        _ => url,
    };
    match url.scheme() {
        "http" | "https" | "ws" | "wss" | "ftp" => {}
        _ => return None,
    }
    let host = url
        .host_str()?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase();
    let port = url.port_or_known_default().unwrap_or(80);
    Some((host, port))
}

/// A URL as an error shows it: no query, no credentials, bounded.
fn shown(raw: &str) -> String {
    match url::Url::parse(raw) {
        Ok(mut u) => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.set_query(None);
            u.set_fragment(None);
            u.as_str().chars().take(200).collect()
        }
        Err(_) => raw.chars().take(200).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(layers: &[(&str, &str)]) -> Arc<DomainPolicy> {
        DomainPolicy::new(layers.iter().enumerate().filter_map(|(i, (a, b))| {
            Layer::parse(&format!("layer {i}"), &[a.to_string()], &[b.to_string()]).expect("ok")
        }))
        .expect("ok")
    }

    #[test]
    fn an_allowlist_holds_hosts_and_subdomains_and_block_wins() {
        let p = policy(&[("example.com,*.example.org", "ads.example.org")]);
        assert!(p.check("https://example.com/a?b").is_ok());
        assert!(p.check("https://www.example.org/").is_ok());
        assert!(p.check("wss://live.example.org/socket").is_ok());
        // The apex of a wildcard is not its subdomain.
        assert!(p.check("https://example.org/").is_err());
        assert!(p.check("https://evil.com/").is_err());
        assert!(p.check("https://example.com.evil.com/").is_err());
        let why = p
            .check("https://ads.example.org/x?secret=1")
            .expect_err("refused");
        assert!(why.contains("\"ads.example.org\""), "{why}");
        assert!(!why.contains("secret"), "{why}");
        // What stays in the page passes; blob: is its origin's.
        assert!(p.check("data:text/html,hi").is_ok());
        assert!(p.check("about:blank").is_ok());
        assert!(p.check("blob:https://evil.com/1234").is_err());
        assert!(p.check("blob:https://example.com/1234").is_ok());
    }

    #[test]
    fn layers_each_hold_and_ports_count() {
        let p = policy(&[("127.0.0.1:8080,example.com", ""), ("", "example.com")]);
        assert!(p.check("http://127.0.0.1:8080/").is_ok());
        assert!(p.check("http://127.0.0.1:8081/").is_err());
        // The second layer blocks what the first allows: the stricter wins.
        assert!(p.check("https://example.com/").is_err());
        // Credentials and a trailing dot do not get a host past the rules.
        assert!(p.check("http://example.com@evil.com/").is_err());
        assert!(p.check("http://127.0.0.1.:8080/").is_ok());
        assert!(p.check("http://[::1]:8080/").is_err());
        // Only the allowlist layer says CSP; the blocklist layer cannot.
        let csp = p.csp();
        assert_eq!(csp.len(), 1, "{csp:?}");
        assert!(csp[0].starts_with("connect-src http://127.0.0.1:8080 https://127.0.0.1:8080 ws://127.0.0.1:8080 wss://127.0.0.1:8080 http://example.com:* "), "{}", csp[0]);
    }

    #[test]
    fn bad_rules_are_clear_errors_and_empty_lists_are_no_layer() {
        assert!(
            Layer::parse("x", &[], &[" , ".into()])
                .expect("ok")
                .is_none()
        );
        for bad in [
            "http://a.com",
            "a.com/path",
            "*evil.com",
            "a*.com",
            "a.com:99999",
        ] {
            let e = Layer::parse("--allow/--block", &[bad.into()], &[]).expect_err("refused");
            assert!(e.message().contains(bad), "{}", e.message());
        }
        // A block-only policy allows everything else, loopback included.
        let p = policy(&[("", "localhost")]);
        assert!(p.check("http://localhost:9/").is_err());
        assert!(p.check("http://127.0.0.1:9/").is_ok());
    }
}
