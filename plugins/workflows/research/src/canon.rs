//! Telling copies apart: canonical URLs, title keys, the "domain" a record
//! counts for, and dedupe.
//!
//! Two records are the same thing when their canonical URLs match (the
//! page's `<link rel=canonical>`/`og:url` when it was fetched, else its own
//! URL; scheme, `www.`, default port, fragment, trailing slash and
//! tracking parameters ignored) or their titles match (lowercased, site
//! suffix such as " | Site" dropped). The richer copy is kept — more text,
//! a date — and the others are folded into it.
//!
//! Domain (the host a record counts for): the URL's host without `www.`.
//! A test site or a local mirror serves many sites from one IP address,
//! so when the host is an IP literal or `localhost` the host of the search
//! hit's display URL stands in (`bytecodeweekly.example`), then a social
//! author's instance (`ada@hachyderm.example` → `hachyderm.example`), then
//! the host. All of it comes from the hit, never from the page, so the
//! count of hosts does not depend on how many pages were read. The
//! publisher's *name* is separate: see [`publisher_name`].

use crate::records::Record;
use std::collections::BTreeMap;
use webrig_workflow_sdk::kit::url;

/// Query parameters that only track where a click came from.
const TRACKING: &[&str] = &[
    "fbclid",
    "gclid",
    "dclid",
    "msclkid",
    "yclid",
    "mc_cid",
    "mc_eid",
    "igshid",
    "ref",
    "ref_src",
    "ref_url",
    "spm",
    "_hsenc",
    "_hsmi",
    "cmpid",
    "ocid",
    "si",
    "share",
    "guccounter",
    "smid",
    "mkt_tok",
];

fn is_tracking(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.starts_with("utm_") || TRACKING.contains(&n.as_str())
}

/// The URL with what does not change the page removed: fragment, tracking
/// parameters (`utm_*`, `fbclid`, …), `www.`, default port, trailing
/// slash; host lowercased, remaining parameters sorted. Not-http input is
/// returned trimmed.
pub fn clean_url(input: &str) -> String {
    let s = input.trim();
    let Some((scheme, rest)) = s.split_once("://") else {
        return s.to_string();
    };
    let scheme = scheme.to_ascii_lowercase();
    let rest = rest.split('#').next().unwrap_or_default();
    let (before_query, query) = rest.split_once('?').unwrap_or((rest, ""));
    let (authority, path) = match before_query.find('/') {
        Some(i) => before_query.split_at(i),
        None => (before_query, ""),
    };
    let mut host = authority.to_ascii_lowercase();
    if let Some(h) = host.strip_prefix("www.") {
        host = h.to_string();
    }
    for default in [":80", ":443"] {
        if let Some(h) = host.strip_suffix(default) {
            let matches =
                (default == ":80" && scheme == "http") || (default == ":443" && scheme == "https");
            if matches {
                host = h.to_string();
            }
        }
    }
    let path = path.trim_end_matches('/');
    let mut params: Vec<&str> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .filter(|p| !is_tracking(p.split('=').next().unwrap_or_default()))
        .collect();
    params.sort_unstable();
    let query = if params.is_empty() {
        String::new()
    } else {
        format!("?{}", params.join("&"))
    };
    format!("{scheme}://{host}{path}{query}")
}

/// The dedupe key of a URL: [`clean_url`] without its scheme, so the
/// http and https copies of a page are one.
pub fn url_key(input: &str) -> String {
    let clean = clean_url(input);
    match clean.split_once("://") {
        Some((_, rest)) => rest.to_string(),
        None => clean,
    }
}

/// Separators that put a site name after a title.
const SUFFIX_SEPARATORS: [&str; 6] = [" | ", " - ", " – ", " — ", " · ", " :: "];
/// Longest site name, in words, dropped without knowing the site.
const SUFFIX_WORDS: usize = 4;

/// The title without a trailing site name (" | Site", " - Site",
/// " – Site", " — Site", " · Site", " :: Site"), applied the same way to
/// every title: the tail goes when at least three words remain before it
/// and it is short (at most [`SUFFIX_WORDS`] words), so a subtitle after
/// a dash stays.
pub fn strip_site_suffix(title: &str) -> &str {
    strip_site_suffix_of(title, &[])
}

/// [`strip_site_suffix`], also dropping a longer tail that is one of
/// `sites` (the page's site name, its host), compared by [`slug`].
pub fn strip_site_suffix_of<'a>(title: &'a str, sites: &[&str]) -> &'a str {
    let known: Vec<String> = sites
        .iter()
        .map(|s| slug(s))
        .filter(|s| !s.is_empty())
        .collect();
    let mut t = title.trim();
    loop {
        let cut = SUFFIX_SEPARATORS
            .iter()
            .filter_map(|sep| t.rfind(sep).map(|i| (i, i + sep.len())))
            .max();
        let Some((at, tail_at)) = cut else {
            return t;
        };
        let (head, tail) = (t[..at].trim_end(), t[tail_at..].trim());
        let short = tail.split_whitespace().count() <= SUFFIX_WORDS;
        let is_site = known.contains(&slug(tail));
        if head.split_whitespace().count() >= 3 && (short || is_site) {
            t = head;
        } else {
            return t;
        }
    }
}

/// A site name as a reader knows it: "Aktuálně.cz – Víte co se právě
/// děje" is "Aktuálně.cz" (a tagline after a separator goes when the name
/// before it is at most three words).
pub fn publisher_name(site_name: &str) -> String {
    let s = site_name.split_whitespace().collect::<Vec<_>>().join(" ");
    for sep in SUFFIX_SEPARATORS.iter().chain(&[": "]) {
        if let Some((head, _)) = s.split_once(sep) {
            let head = head.trim();
            if !head.is_empty() && head.split_whitespace().count() <= 3 {
                return head.to_string();
            }
        }
    }
    s
}

/// The dedupe key of a title: lowercased words of the title without its
/// site suffix ([`strip_site_suffix`]).
pub fn title_key(title: &str) -> String {
    strip_site_suffix(&title.to_lowercase())
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn is_ip_or_local(host: &str) -> bool {
    host == "localhost"
        || host.contains(':')
        || (!host.is_empty() && host.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// Lowercase words joined by `-`.
pub fn slug(s: &str) -> String {
    s.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// The host a record counts for (see the module doc): never the page's
/// own words, so the count is the same whether the page was read or not.
pub fn domain(page_url: &str, display_url: Option<&str>, author: Option<&str>) -> String {
    let host = url::host(page_url).unwrap_or_default();
    let host = host.strip_prefix("www.").unwrap_or(&host).to_string();
    if !is_ip_or_local(&host) {
        return host;
    }
    if let Some(shown) = display_url.and_then(display_host) {
        return shown;
    }
    if let Some(instance) = author
        .and_then(|a| a.rsplit_once('@'))
        .map(|(_, i)| i.trim().to_ascii_lowercase())
        .filter(|i| i.contains('.'))
    {
        return instance;
    }
    host
}

/// The host of a search engine's display URL (`bytecodeweekly.example/
/// 2026/11/…`, with or without a scheme), when it looks like a host name.
fn display_host(shown: &str) -> Option<String> {
    let s = shown.trim();
    let s = s.split_once("://").map_or(s, |(_, rest)| rest);
    let host = s
        .split(['/', '?', '#', ' ', '›'])
        .next()?
        .trim()
        .to_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host).to_string();
    let ok = host.contains('.')
        && !is_ip_or_local(&host)
        && host
            .chars()
            .all(|c| c.is_alphanumeric() || c == '.' || c == '-' || c == ':');
    ok.then_some(host)
}

/// Folds copies together (see the module doc); with `by_title` false only
/// URL keys count (before fetching, when titles are the search engines').
/// Returns the kept records in first-seen order and how many were folded.
pub fn dedupe(records: Vec<Record>, by_title: bool) -> (Vec<Record>, usize) {
    let n = records.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut first_of: BTreeMap<String, usize> = BTreeMap::new();
    for (i, r) in records.iter().enumerate() {
        let mut keys = vec![format!("u:{}", r.key)];
        let tk = title_key(&r.title);
        if by_title && tk.split(' ').count() >= 3 {
            keys.push(format!("t:{tk}"));
        }
        for k in keys {
            match first_of.get(&k) {
                Some(&j) => {
                    let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                    if a != b {
                        parent[a.max(b)] = a.min(b);
                    }
                }
                None => {
                    first_of.insert(k, i);
                }
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<Record>> = BTreeMap::new();
    for (i, r) in records.into_iter().enumerate() {
        let root = find(&mut parent, i);
        groups.entry(root).or_default().push(r);
    }
    let mut folded = 0;
    let mut kept: Vec<Record> = groups
        .into_values()
        .map(|mut group| {
            // The richest copy wins; on a tie, the first seen.
            let best = group
                .iter()
                .enumerate()
                .max_by(|(ia, a), (ib, b)| a.richness().cmp(&b.richness()).then(ib.cmp(ia)))
                .map(|(i, _)| i)
                .unwrap_or(0);
            let mut keep = group.remove(best);
            folded += group.len();
            for other in group {
                keep.absorb(other);
            }
            keep
        })
        .collect();
    kept.sort_by_key(|r| r.order);
    (kept, folded)
}
