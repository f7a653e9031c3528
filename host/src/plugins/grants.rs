//! Capabilities a plugin may use: what its manifest asks for, intersected
//! with what the user granted. Deny by default: an empty list, a missing
//! grant or a parse error means no access. Every privileged host import asks
//! this module first.

use std::net::IpAddr;

use serde::{Deserialize, Serialize};

pub use crate::browser::hosts::{HostRule, is_internal, is_localhost_name};

use super::manifest::{BrowserAccess, Capabilities};

/// The user's decision for one plugin, stored beside it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Grant {
    pub http: Vec<String>,
    pub browser: BrowserAccess,
    pub cache: bool,
}

impl Grant {
    /// Grants everything the manifest asks for (what `--grant` / "yes" means).
    pub fn all_of(asked: &Capabilities) -> Grant {
        Grant {
            http: asked.http.clone(),
            browser: asked.browser,
            cache: asked.cache,
        }
    }

    /// The grant as capabilities (to describe it in the manifest's words),
    /// with the configured endpoints a manifest names beside it.
    pub fn as_capabilities(&self, http_from_config: &[String]) -> Capabilities {
        Capabilities {
            http: self.http.clone(),
            http_from_config: http_from_config.to_vec(),
            browser: self.browser,
            cache: self.cache,
        }
    }
}

/// What a plugin may actually do: manifest ∩ grant, computed once at load.
#[derive(Debug, Clone, Default)]
pub struct Effective {
    hosts: Vec<HostRule>,
    browser: BrowserAccess,
    cache: bool,
}

impl Effective {
    pub fn new(asked: &Capabilities, granted: &Grant) -> Effective {
        let hosts = asked
            .http
            .iter()
            .filter(|h| granted.http.iter().any(|g| g.eq_ignore_ascii_case(h)))
            .filter_map(|h| HostRule::parse(h).ok())
            .collect();
        Effective {
            hosts,
            browser: asked.browser.min(granted.browser),
            cache: asked.cache && granted.cache,
        }
    }

    /// Manifest ∩ grant, plus the exact hosts of the URLs the user configured
    /// for the keys the manifest lists in `http_from_config` (the user
    /// writing a `base_url` is the grant for that host).
    pub fn with_settings(
        asked: &Capabilities,
        granted: &Grant,
        settings: &std::collections::BTreeMap<String, String>,
    ) -> Effective {
        let mut e = Effective::new(asked, granted);
        for key in &asked.http_from_config {
            let Some(value) = settings.get(key) else {
                continue;
            };
            let Ok(url) = url::Url::parse(&value.replace("{query}", "q")) else {
                continue;
            };
            let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
                continue;
            };
            let host = host.trim_start_matches('[').trim_end_matches(']');
            if let Ok(mut rule) = HostRule::parse(&format!("{host}:{port}")) {
                rule.configured = true;
                e.hosts.push(rule);
            }
        }
        e
    }

    /// What is wrong with the settings that name endpoints (`http_from_config`
    /// keys): each message names the plugin, the key and the value.
    pub fn setting_problems(
        plugin: &str,
        asked: &Capabilities,
        settings: &std::collections::BTreeMap<String, String>,
    ) -> Vec<String> {
        asked
            .http_from_config
            .iter()
            .filter_map(|key| {
                let value = settings.get(key)?;
                let why = match url::Url::parse(&value.replace("{query}", "q")) {
                    Err(e) => e.to_string(),
                    Ok(u) if !matches!(u.scheme(), "http" | "https") => {
                        format!("scheme {} is not http or https", u.scheme())
                    }
                    Ok(u) if u.host_str().is_none_or(str::is_empty) => "it has no host".into(),
                    Ok(_) => return None,
                };
                Some(format!(
                    "config.toml [plugins.{plugin}] {key} = {value:?} is not a usable URL: {why}"
                ))
            })
            .collect()
    }

    /// Whether a request to `url` may go out. Checks scheme, host rule and
    /// port; `resolved` are the addresses the host resolves to (SSRF guard).
    /// `*.localhost` counts as loopback whatever DNS says: browsers answer
    /// it with 127.0.0.1 themselves.
    pub fn check_url(&self, url: &url::Url, resolved: &[IpAddr]) -> Result<(), String> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("scheme {} is not allowed", url.scheme()));
        }
        let host = url.host_str().ok_or("the URL has no host")?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let port = url.port_or_known_default().unwrap_or(0);
        let mut rules = self
            .hosts
            .iter()
            .filter(|r| r.allows(host, port))
            .peekable();
        if rules.peek().is_none() {
            return Err(format!("host {host}:{port} was not granted"));
        }
        let internal = targets_internal(host, resolved);
        // An internal address needs a rule naming that very host: `*` or
        // `*.example.org` never open one.
        if internal && !rules.any(|r| r.opens_internal(host)) {
            return Err(format!(
                "{host}:{port} is a loopback, private or link-local address that was not granted"
            ));
        }
        Ok(())
    }

    /// Whether a granted manifest rule other than `*` names `host:port`
    /// (what routes a `fetch` to a specialised provider; a configured
    /// endpoint is where the plugin reads from, not what it specialises in).
    pub fn names_host(&self, host: &str, port: u16) -> bool {
        self.hosts
            .iter()
            .any(|r| !r.configured && !r.is_any() && r.allows(host, port))
    }

    /// Whether a user-configured endpoint of this plugin is `host:port`.
    pub fn configured_for(&self, host: &str, port: u16) -> bool {
        self.hosts
            .iter()
            .any(|r| r.configured && r.allows(host, port))
    }

    /// Whether any granted rule (`*` and configured endpoints included)
    /// lets a request to `host:port` out (before the SSRF check).
    pub fn covers(&self, host: &str, port: u16) -> bool {
        self.hosts.iter().any(|r| r.allows(host, port))
    }

    pub fn browser(&self) -> BrowserAccess {
        self.browser
    }

    pub fn cache(&self) -> bool {
        self.cache
    }
}

/// True when `host` (or what it resolved to) is on this machine or its
/// network: an internal address, `localhost` or a name under it.
fn targets_internal(host: &str, resolved: &[IpAddr]) -> bool {
    resolved.iter().any(|ip| is_internal(*ip))
        || host.parse::<IpAddr>().is_ok_and(is_internal)
        || is_localhost_name(host)
}

/// Ports on this machine no plugin may reach, whatever its grant: the
/// daemon's own and the DevTools endpoints of the browsers it drives. Kept
/// by the daemon and read at every check (browsers come and go).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reserved {
    ports: Vec<u16>,
}

impl Reserved {
    pub fn new(ports: impl IntoIterator<Item = u16>) -> Reserved {
        let mut ports: Vec<u16> = ports.into_iter().collect();
        ports.sort_unstable();
        ports.dedup();
        Reserved { ports }
    }

    /// Adds the port of an endpoint URL (`ws://127.0.0.1:9222/devtools/…`);
    /// endpoints without one (a pipe) reserve nothing.
    pub fn add_endpoint(&mut self, endpoint: &str) {
        if let Ok(u) = url::Url::parse(endpoint)
            && let Some(port) = u.port_or_known_default()
            && !self.ports.contains(&port)
        {
            self.ports.push(port);
        }
    }

    /// Refuses `url` when it reaches one of these ports on an internal
    /// address (loopback, private, `localhost`). Checked on the port alone:
    /// the daemon and DevTools listen on loopback, and every internal
    /// address of this machine may reach a listener on all interfaces.
    pub fn check(&self, url: &url::Url, resolved: &[IpAddr]) -> Result<(), String> {
        let Some(port) = url.port_or_known_default() else {
            return Ok(());
        };
        let host = url
            .host_str()
            .unwrap_or_default()
            .trim_start_matches('[')
            .trim_end_matches(']');
        if self.ports.contains(&port) && targets_internal(host, resolved) {
            return Err(format!(
                "port {port} on this machine belongs to webrig (its daemon or a browser's \
                 DevTools endpoint): no plugin may reach it, whatever its grant"
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(hosts: &[&str]) -> Capabilities {
        Capabilities {
            http: hosts.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    fn url(s: &str) -> url::Url {
        url::Url::parse(s).expect("url")
    }

    #[test]
    fn wildcards_cover_subdomains_not_the_apex_or_lookalikes() {
        let r = HostRule::parse("*.example.org").expect("rule");
        assert!(r.allows("api.example.org", 443));
        assert!(r.allows("a.b.example.org", 80));
        assert!(!r.allows("example.org", 443));
        assert!(!r.allows("evilexample.org", 443));
        assert!(!r.allows("example.org.evil.test", 443));
        let p = HostRule::parse("api.test:8443").expect("rule");
        assert!(p.allows("api.test", 8443) && !p.allows("api.test", 443));
        for bad in [
            "",
            "http://x",
            "a/b",
            "**",
            "*.",
            "a.*.b",
            "x:notaport",
            "user@host",
        ] {
            assert!(HostRule::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_manifest_host_name_never_opens_an_internal_address() {
        let asked = caps(&["api.evil.test", "127.0.0.1:8080", "localhost:8081"]);
        let e = Effective::new(&asked, &Grant::all_of(&asked));
        let lo: IpAddr = "127.0.0.1".parse().expect("ip");
        let meta: IpAddr = "169.254.169.254".parse().expect("ip");
        // DNS of a named host pointing inward is refused.
        assert!(e.check_url(&url("http://api.evil.test/"), &[lo]).is_err());
        assert!(e.check_url(&url("http://api.evil.test/"), &[meta]).is_err());
        // An IP literal or localhost named exactly is the user's explicit grant.
        assert!(e.check_url(&url("http://127.0.0.1:8080/"), &[lo]).is_ok());
        assert!(e.check_url(&url("http://localhost:8081/"), &[lo]).is_ok());
        assert!(e.check_url(&url("http://localhost/"), &[lo]).is_err());
    }

    #[test]
    fn a_local_host_without_a_port_is_refused_no_permission() {
        for bare in [
            "localhost",
            "LocalHost",
            "*.localhost",
            "app.localhost",
            "127.0.0.1",
            "127.1.2.3",
            "10.0.0.5",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
        ] {
            let err = HostRule::parse(bare).expect_err(bare);
            assert!(err.contains("name the one port"), "{bare}: {err}");
            assert!(HostRule::parse(&format!("{bare}:8080")).is_ok(), "{bare}");
        }
        // Public hosts and IP literals may leave the port open.
        for fine in ["example.com", "*.example.org", "93.184.216.34", "*"] {
            assert!(HostRule::parse(fine).is_ok(), "{fine}");
        }
        // A grant that somehow holds a bare local host opens nothing.
        let asked = caps(&["localhost", "127.0.0.1"]);
        let e = Effective::new(&asked, &Grant::all_of(&asked));
        let lo: IpAddr = "127.0.0.1".parse().expect("ip");
        assert!(e.check_url(&url("http://localhost:9377/"), &[lo]).is_err());
        assert!(e.check_url(&url("http://127.0.0.1:9222/"), &[lo]).is_err());
    }

    #[test]
    fn names_under_localhost_count_as_loopback_no_permission() {
        // A browser answers *.localhost itself, whatever DNS says.
        let asked = caps(&["*.localhost:8080", "app.localhost:8080"]);
        let e = Effective::new(&asked, &Grant::all_of(&asked));
        assert!(e.check_url(&url("http://x.localhost:8080/"), &[]).is_err());
        assert!(
            e.check_url(&url("http://app.localhost:8080/"), &[])
                .is_err()
        );
    }

    #[test]
    fn reserved_ports_are_refused_whatever_the_grant_no_permission() {
        let asked = caps(&["127.0.0.1:9377", "localhost:9222", "127.0.0.1:8080"]);
        let e = Effective::new(&asked, &Grant::all_of(&asked));
        let mut reserved = Reserved::new([9377]);
        reserved.add_endpoint("ws://127.0.0.1:9222/devtools/browser/abc");
        reserved.add_endpoint("pipe:/run/webrig/b.sock");
        let lo: IpAddr = "127.0.0.1".parse().expect("ip");
        for u in [
            "http://127.0.0.1:9377/command",
            "http://localhost:9222/json/list",
            "http://[::1]:9222/json/list",
            "http://0.0.0.0:9377/",
            "http://10.1.2.3:9222/",
        ] {
            let err = reserved.check(&url(u), &[]).expect_err(u);
            assert!(err.contains("belongs to webrig"), "{u}: {err}");
        }
        // A granted name resolving to loopback is caught by what it resolved to.
        assert!(reserved.check(&url("http://a.test:9377/"), &[lo]).is_err());
        assert!(
            reserved
                .check(&url("http://127.0.0.1:8080/"), &[lo])
                .is_ok()
        );
        assert!(e.check_url(&url("http://127.0.0.1:8080/"), &[lo]).is_ok());
        // The same port on a public host is someone else's service.
        let public: IpAddr = "93.184.216.34".parse().expect("ip");
        assert!(
            reserved
                .check(&url("http://example.com:9222/"), &[public])
                .is_ok()
        );
    }

    #[test]
    fn an_exact_rule_opens_loopback_even_beside_a_star() {
        let asked = Capabilities {
            http: vec!["*".into()],
            http_from_config: vec!["base_url".into()],
            ..Default::default()
        };
        let mut settings = std::collections::BTreeMap::new();
        let none = Effective::with_settings(&asked, &Grant::all_of(&asked), &settings);
        let lo: IpAddr = "127.0.0.1".parse().expect("ip");
        assert!(
            none.check_url(&url("http://127.0.0.1:8080/x"), &[lo])
                .is_err()
        );
        assert!(none.check_url(&url("https://example.com/"), &[]).is_ok());
        settings.insert(
            "base_url".to_string(),
            "http://127.0.0.1:8080/base".to_string(),
        );
        let e = Effective::with_settings(&asked, &Grant::all_of(&asked), &settings);
        assert!(e.check_url(&url("http://127.0.0.1:8080/x"), &[lo]).is_ok());
        assert!(
            e.check_url(&url("http://127.0.0.1:8081/x"), &[lo]).is_err(),
            "other port"
        );
        assert!(
            e.check_url(&url("http://localhost:8080/x"), &[lo]).is_err(),
            "other name"
        );
    }

    #[test]
    fn bad_endpoint_settings_name_the_plugin_key_and_value() {
        let mut asked = caps(&[]);
        asked.http_from_config = vec!["base_url".into(), "other".into()];
        let settings = [
            ("base_url".to_string(), "not a url".to_string()),
            ("other".to_string(), "ftp://x.test/".to_string()),
        ]
        .into_iter()
        .collect();
        let problems = Effective::setting_problems("web", &asked, &settings);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(
            problems[0].contains("[plugins.web] base_url = \"not a url\""),
            "{problems:?}"
        );
        assert!(problems[1].contains("scheme ftp"), "{problems:?}");
        let good = [(
            "base_url".to_string(),
            "http://127.0.0.1:8080/x?q={query}".to_string(),
        )]
        .into_iter()
        .collect();
        assert!(Effective::setting_problems("web", &asked, &good).is_empty());
    }

    #[test]
    fn effective_is_manifest_and_grant() {
        let asked = caps(&["a.test", "b.test"]);
        let granted = Grant {
            http: vec!["b.test".into(), "c.test".into()],
            ..Default::default()
        };
        let e = Effective::new(&asked, &granted);
        assert!(e.check_url(&url("https://b.test/x"), &[]).is_ok());
        assert!(
            e.check_url(&url("https://a.test/x"), &[]).is_err(),
            "asked, not granted"
        );
        assert!(
            e.check_url(&url("https://c.test/x"), &[]).is_err(),
            "granted, not asked"
        );
        let none = Effective::new(&asked, &Grant::default());
        assert!(
            none.check_url(&url("https://a.test/"), &[]).is_err(),
            "deny by default"
        );
    }

    #[test]
    fn internal_addresses_need_their_exact_host_granted() {
        let asked = caps(&["*.example.org", "127.0.0.1:8080"]);
        let e = Effective::new(&asked, &Grant::all_of(&asked));
        let lo: IpAddr = "127.0.0.1".parse().expect("ip");
        let meta: IpAddr = "169.254.169.254".parse().expect("ip");
        assert!(
            e.check_url(&url("http://rebind.example.org/"), &[lo])
                .is_err(),
            "DNS to loopback"
        );
        assert!(e.check_url(&url("http://x.example.org/"), &[meta]).is_err());
        assert!(
            e.check_url(&url("http://127.0.0.1:8080/"), &[lo]).is_ok(),
            "exactly granted"
        );
        assert!(
            e.check_url(&url("http://127.0.0.1:9999/"), &[lo]).is_err(),
            "other port"
        );
        assert!(
            e.check_url(&url("http://169.254.169.254/"), &[meta])
                .is_err()
        );
        assert!(e.check_url(&url("file:///etc/passwd"), &[]).is_err());
        assert!(is_internal("::ffff:10.0.0.1".parse().expect("ip")));
        assert!(!is_internal("93.184.216.34".parse().expect("ip")));
    }

    #[test]
    fn ipv4_inside_ipv6_is_judged_by_the_ipv4_address() {
        for inside in [
            "::7f00:1",             // compatible 127.0.0.1
            "::127.0.0.1",          // the same, written out
            "::ffff:7f00:1",        // mapped
            "64:ff9b::7f00:1",      // NAT64 of 127.0.0.1
            "64:ff9b::a9fe:a9fe",   // NAT64 of 169.254.169.254
            "64:ff9b::10.1.2.3",    // NAT64 of a private address
            "64:ff9b:1::5db8:d822", // local-use NAT64
            "2002:7f00:1::",        // 6to4 of 127.0.0.1
            "2002:c0a8:101::1",     // 6to4 of 192.168.1.1
            "fec0::1",              // site local
        ] {
            assert!(is_internal(inside.parse().expect("ip")), "{inside}");
        }
        for outside in [
            "64:ff9b::5db8:d822", // NAT64 of 93.184.216.34
            "2002:5db8:d822::1",  // 6to4 of a public address
            "2606:4700:4700::1111",
        ] {
            assert!(!is_internal(outside.parse().expect("ip")), "{outside}");
        }
        for v4 in ["198.18.0.1", "240.0.0.1", "192.0.0.8"] {
            assert!(is_internal(v4.parse().expect("ip")), "{v4}");
        }
    }
}
