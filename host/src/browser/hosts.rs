//! Host patterns and address classes: the rules of a session's domain
//! policy and of a plugin's grants (`example.com`, `*.example.org`, with an
//! optional port), and which addresses are this machine's or its network's.

use std::net::IpAddr;

/// One allowed host: exact (`api.example.com`), subdomains of a domain
/// (`*.example.org` — not the apex), with an optional port; or `*`, any
/// public host (a fetch-anything provider) — never a loopback, private or
/// link-local one, which only an exact rule opens. A rule for a host on this
/// machine or its network (`localhost`, `127.0.0.1`, `10.0.0.5`) must name
/// its port: a bare one would open every service there, the daemon and the
/// browsers' DevTools endpoints included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostRule {
    host: String,
    wildcard: bool,
    port: Option<u16>,
    /// From the user's own config (`http_from_config`): may be internal.
    pub(crate) configured: bool,
}

impl HostRule {
    pub fn parse(raw: &str) -> Result<HostRule, String> {
        Self::parse_as(raw, false)
    }

    /// A rule of the user's own domain policy (`launch --allow/--block`):
    /// the same syntax, but a host on this machine may be named without a
    /// port (the user decides about their own machine, not a plugin).
    pub fn parse_user(raw: &str) -> Result<HostRule, String> {
        Self::parse_as(raw, true)
    }

    fn parse_as(raw: &str, user: bool) -> Result<HostRule, String> {
        let raw = raw.trim().to_ascii_lowercase();
        if raw == "*" {
            return Ok(HostRule {
                host: String::new(),
                wildcard: true,
                port: None,
                configured: false,
            });
        }
        if raw.is_empty() || raw.contains('/') || raw.contains('@') || raw.contains("://") {
            return Err(
                "a host name like api.example.com or *.example.org, with an optional :port".into(),
            );
        }
        let (host, port) = match raw.rsplit_once(':') {
            Some((h, p)) if !h.contains(':') => (
                h.to_string(),
                Some(p.parse::<u16>().map_err(|_| format!("bad port {p:?}"))?),
            ),
            _ => (raw.clone(), None),
        };
        let (host, wildcard) = match host.strip_prefix("*.") {
            Some(rest) => (rest.to_string(), true),
            None => (host, false),
        };
        if host.is_empty() || host.contains('*') || host.starts_with('.') || host.ends_with('.') {
            return Err("wildcards only as a leading *.".into());
        }
        if !host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
        {
            return Err("letters, digits, - and . only".into());
        }
        if !user && port.is_none() && names_local(&host) {
            return Err(format!(
                "{host} is on this machine or its network: name the one port the plugin \
                 needs ({host}:8080); a bare host would open every port there"
            ));
        }
        Ok(HostRule {
            host,
            wildcard,
            port,
            configured: user,
        })
    }

    /// Host (empty for `*`), whether subdomains match, and the port.
    pub fn parts(&self) -> (&str, bool, Option<u16>) {
        (&self.host, self.wildcard, self.port)
    }

    /// The `*` rule.
    pub(crate) fn is_any(&self) -> bool {
        self.wildcard && self.host.is_empty()
    }

    pub fn allows(&self, host: &str, port: u16) -> bool {
        let host = host.to_ascii_lowercase();
        let host = host.trim_end_matches('.');
        let name_ok = if self.wildcard && self.host.is_empty() {
            !host.is_empty()
        } else if self.wildcard {
            host.len() > self.host.len() + 1
                && host.ends_with(&self.host)
                && host.as_bytes()[host.len() - self.host.len() - 1] == b'.'
        } else {
            host == self.host
        };
        name_ok && self.port.is_none_or(|p| p == port)
    }

    /// True when this rule may open a loopback, private or link-local
    /// address for `host`: it names an IP literal or `localhost` exactly, or
    /// it is an endpoint the user configured. A host *name* from a manifest
    /// never does (its DNS could point anywhere).
    pub fn opens_internal(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        !self.wildcard
            && self.host == host
            && (self.configured || host == "localhost" || host.parse::<IpAddr>().is_ok())
    }
}

pub fn is_localhost_name(host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    host == "localhost" || host.ends_with(".localhost")
}

/// A manifest or grant host that must name its port: `localhost` and names
/// under it, and internal IP literals.
fn names_local(host: &str) -> bool {
    is_localhost_name(host) || host.parse::<IpAddr>().is_ok_and(is_internal)
}

/// Loopback, private, link-local, unspecified, multicast, reserved, and
/// the like, including an IPv4 address carried inside an IPv6 one (mapped
/// `::ffff:a.b.c.d`, compatible `::a.b.c.d` such as `::7f00:1`, NAT64
/// `64:ff9b::a.b.c.d`, 6to4 `2002:aabb:ccdd::`).
pub fn is_internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, c, _] = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || a == 100 && (b & 0xc0) == 64 // CGNAT
                || a == 0
                || a == 192 && b == 0 && c == 0 // IETF protocol assignments
                || a == 198 && (b & 0xfe) == 18 // benchmarking
                || a >= 240 // reserved
        }
        IpAddr::V6(v6) => {
            let seg = v6.segments();
            let embedded = |hi: u16, lo: u16| {
                let [h1, h2] = hi.to_be_bytes();
                let [l1, l2] = lo.to_be_bytes();
                is_internal(IpAddr::V4(std::net::Ipv4Addr::new(h1, h2, l1, l2)))
            };
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (seg[0] & 0xfe00) == 0xfc00 // unique local
                || (seg[0] & 0xffc0) == 0xfe80 // link local
                || (seg[0] & 0xffc0) == 0xfec0 // site local (deprecated, still routed by some)
                // ::a.b.c.d (compatible) and ::ffff:a.b.c.d (mapped)
                || v6.to_ipv4().is_some_and(|v4| is_internal(IpAddr::V4(v4)))
                // NAT64, well-known prefix 64:ff9b::/96
                || seg[..6] == [0x64, 0xff9b, 0, 0, 0, 0] && embedded(seg[6], seg[7])
                // NAT64 for local use, 64:ff9b:1::/48: whatever it maps to is local
                || seg[..3] == [0x64, 0xff9b, 1]
                // 6to4, 2002::/16
                || seg[0] == 0x2002 && embedded(seg[1], seg[2])
        }
    }
}
