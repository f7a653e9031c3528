//! Tier 2: how a session is faring with each site. Counts the main
//! documents a site answered, the 403, 429 and 503 among them, the
//! challenge pages and the redirect loops, and scores them. Pure: fed by
//! [`super::Signals`] from the tabs' events and probes.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Sites kept per session; past it the one seen longest ago goes.
const SITES: usize = 256;

/// One site's record.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SiteHealth {
    /// The registrable host (`shop.example.co.uk`'s is `example.co.uk`).
    pub site: String,
    /// 0 (every answer a refusal) to 100 (none): the share of its main
    /// documents that were neither 403, 429, 503 nor a challenge, with
    /// redirect loops counted as failed documents.
    pub score: u8,
    pub documents: u32,
    #[serde(rename = "403")]
    pub status_403: u32,
    #[serde(rename = "429")]
    pub status_429: u32,
    #[serde(rename = "503")]
    pub status_503: u32,
    pub challenges: u32,
    pub redirect_loops: u32,
    /// The last challenge met on this site.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_challenge: Option<super::Challenge>,
    /// Documents counted bad (a refusal status, or found a challenge).
    #[serde(skip)]
    bad: u32,
    #[serde(skip)]
    seen: u64,
}

impl SiteHealth {
    fn rescore(&mut self) {
        let total = self.documents + self.redirect_loops;
        let good = self.documents.saturating_sub(self.bad);
        self.score = if total == 0 {
            100
        } else {
            ((u64::from(good) * 100 + u64::from(total) / 2) / u64::from(total)) as u8
        };
    }
}

/// A session's sites.
#[derive(Debug, Default)]
pub struct Health {
    sites: BTreeMap<String, SiteHealth>,
    clock: u64,
}

/// A refusal status: counted and scored against the site.
pub fn refusal(status: u16) -> bool {
    matches!(status, 403 | 429 | 503)
}

impl Health {
    fn site(&mut self, url: &str) -> Option<&mut SiteHealth> {
        let site = site_of(url)?;
        self.clock += 1;
        if !self.sites.contains_key(&site) && self.sites.len() >= SITES {
            let oldest = self
                .sites
                .iter()
                .min_by_key(|(_, s)| s.seen)
                .map(|(k, _)| k.clone());
            if let Some(k) = oldest {
                self.sites.remove(&k);
            }
        }
        let clock = self.clock;
        let entry = self
            .sites
            .entry(site.clone())
            .or_insert_with(|| SiteHealth {
                site,
                ..SiteHealth::default()
            });
        entry.seen = clock;
        Some(entry)
    }

    /// A main document `url` answered with `status`; true when it counted
    /// against the site.
    pub fn document(&mut self, url: &str, status: u16) -> bool {
        let Some(s) = self.site(url) else {
            return false;
        };
        s.documents += 1;
        match status {
            403 => s.status_403 += 1,
            429 => s.status_429 += 1,
            503 => s.status_503 += 1,
            _ => {}
        }
        let bad = refusal(status);
        if bad {
            s.bad += 1;
        }
        s.rescore();
        bad
    }

    /// A document of the site turned out to be a challenge; `counted_bad`:
    /// its status already counted against the site.
    pub fn challenge(&mut self, c: &super::Challenge, counted_bad: bool) {
        let Some(s) = self.site(&c.url) else {
            return;
        };
        s.challenges += 1;
        if !counted_bad {
            s.bad += 1;
            // A challenge seen before its response was counted (or without
            // capture) is a document too.
            s.documents = s.documents.max(s.bad);
        }
        s.last_challenge = Some(c.clone());
        s.rescore();
    }

    pub fn redirect_loop(&mut self, url: &str) {
        if let Some(s) = self.site(url) {
            s.redirect_loops += 1;
            s.rescore();
        }
    }

    pub fn sites(&self) -> Vec<SiteHealth> {
        self.sites.values().cloned().collect()
    }
}

/// The session over all its sites.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    /// As a site's score, over every site's documents (100 with none).
    pub score: u8,
    pub documents: u32,
    pub challenges: u32,
    pub redirect_loops: u32,
    pub sites: Vec<SiteHealth>,
}

pub fn summary(sites: Vec<SiteHealth>) -> Summary {
    let mut all = SiteHealth::default();
    for s in &sites {
        all.documents += s.documents;
        all.bad += s.bad;
        all.challenges += s.challenges;
        all.redirect_loops += s.redirect_loops;
    }
    all.rescore();
    Summary {
        score: all.score,
        documents: all.documents,
        challenges: all.challenges,
        redirect_loops: all.redirect_loops,
        sites,
    }
}

/// The site a URL belongs to: its registrable host, approximated as the
/// last two labels, or three under a known second level of a country
/// (`example.co.uk`); an IP address or a single label is its own site.
/// Not the public suffix list: compiling it in costs more build time than
/// this grouping is worth, and a wrong guess only merges or splits a row.
pub fn site_of(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return None;
    }
    let host = match parsed.host()? {
        url::Host::Domain(d) => d.trim_end_matches('.').to_ascii_lowercase(),
        url::Host::Ipv4(ip) => return Some(ip.to_string()),
        url::Host::Ipv6(ip) => return Some(format!("[{ip}]")),
    };
    let labels: Vec<&str> = host.split('.').filter(|l| !l.is_empty()).collect();
    let n = labels.len();
    if n <= 2 {
        return Some(labels.join("."));
    }
    const SECOND: &[&str] = &[
        "co", "com", "net", "org", "gov", "edu", "ac", "ne", "or", "go",
    ];
    let country_tld = labels[n - 1].len() == 2;
    let take = if country_tld && SECOND.contains(&labels[n - 2]) {
        3
    } else {
        2
    };
    Some(labels[n - take..].join("."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_are_registrable_hosts() {
        for (url, site) in [
            ("https://www.shop.example.com/a", "example.com"),
            ("https://shop.example.co.uk/", "example.co.uk"),
            ("https://news.bbc.co.uk/", "bbc.co.uk"),
            ("http://127.0.0.1:8080/x", "127.0.0.1"),
            ("http://[::1]:9/", "[::1]"),
            ("http://localhost:3000/", "localhost"),
            ("https://example.com./", "example.com"),
            ("https://a.b.c.example.de/", "example.de"),
        ] {
            assert_eq!(site_of(url).as_deref(), Some(site), "{url}");
        }
        for url in [
            "about:blank",
            "data:text/html,x",
            "file:///etc/passwd",
            "junk",
            "",
        ] {
            assert_eq!(site_of(url), None, "{url}");
        }
    }

    #[test]
    fn refusals_and_challenges_lower_the_score() {
        let mut h = Health::default();
        assert!(!h.document("https://a.example/1", 200));
        assert!(h.document("https://a.example/2", 429));
        let s = &h.sites()[0];
        assert_eq!((s.documents, s.status_429, s.score), (2, 1, 50));
        let c = super::super::Challenge {
            kind: super::super::Kind::JsChallenge,
            url: "https://a.example/3".into(),
            vendor: None,
            status: Some(503),
        };
        assert!(h.document("https://a.example/3", 503));
        h.challenge(&c, true);
        let s = &h.sites()[0];
        assert_eq!(
            (s.documents, s.challenges, s.status_503, s.score),
            (3, 1, 1, 33)
        );
        h.redirect_loop("https://a.example/loop");
        assert_eq!(h.sites()[0].score, 25);
        let all = summary(h.sites());
        assert_eq!((all.documents, all.score, all.redirect_loops), (3, 25, 1));
        assert_eq!(summary(Vec::new()).score, 100);
    }

    #[test]
    fn sites_are_bounded() {
        let mut h = Health::default();
        for i in 0..(SITES + 10) {
            h.document(&format!("https://s{i}.test/"), 200);
        }
        assert_eq!(h.sites().len(), SITES);
        assert!(
            h.sites()
                .iter()
                .any(|s| s.site == format!("s{}.test", SITES + 9))
        );
        assert!(!h.sites().iter().any(|s| s.site == "s0.test"));
    }
}
