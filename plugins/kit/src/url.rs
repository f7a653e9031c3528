//! URL pieces providers need: query encoding, resolving links against the
//! page they came from, and reading a host. Hand-written because the `url`
//! crate drags in IDNA/ICU tables that would multiply each wasm's size and
//! build time; plugins only need these three operations on http(s) URLs.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// Bytes left as-is in a query component (RFC 3986 unreserved).
const QUERY_COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// Percent-encodes `s` for use as one query value or path segment.
pub fn encode(s: &str) -> String {
    utf8_percent_encode(s, QUERY_COMPONENT).to_string()
}

/// Decodes `%XX` escapes, and `+` as a space (form encoding, which query
/// strings such as DuckDuckGo's `uddg=` use).
pub fn decode_query_value(s: &str) -> String {
    let plus_decoded = s.replace('+', " ");
    percent_encoding::percent_decode_str(&plus_decoded)
        .decode_utf8_lossy()
        .into_owned()
}

/// The value of `name` in `url`'s query string, decoded.
pub fn query_param(url: &str, name: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    let query = query.split('#').next().unwrap_or_default();
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == name).then(|| decode_query_value(v))
    })
}

/// The scheme, lowercased, if `s` starts with one (`http:`, `mailto:`).
fn scheme(s: &str) -> Option<String> {
    let (scheme, _) = s.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)))
        .then(|| scheme.to_ascii_lowercase())
}

/// `(scheme, authority, path)` of an absolute hierarchical URL; the path
/// keeps its query and fragment.
fn split(base: &str) -> Option<(String, &str, &str)> {
    let scheme = scheme(base)?;
    let rest = base[scheme.len() + 1..].strip_prefix("//")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    Some((scheme, &rest[..end], &rest[end..]))
}

/// The host of an absolute URL, lowercased, without port or credentials.
pub fn host(url: &str) -> Option<String> {
    let (_, authority, _) = split(url)?;
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next().unwrap_or_default()
    } else {
        authority.split(':').next().unwrap_or_default()
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// Resolves `href` against `base` (RFC 3986 §5.2, for http-like URLs).
/// Returns `None` for links that are not http(s) (`javascript:`,
/// `mailto:`) or when `base` is not absolute.
pub fn resolve(base: &str, href: &str) -> Option<String> {
    let href = href.trim();
    if let Some(s) = scheme(href) {
        return matches!(s.as_str(), "http" | "https").then(|| href.to_string());
    }
    let (scheme, authority, base_path) = split(base)?;
    if let Some(rest) = href.strip_prefix("//") {
        return Some(format!("{scheme}://{rest}"));
    }
    let base_path_only = base_path.split(['?', '#']).next().unwrap_or_default();
    let joined = if href.is_empty() {
        base_path.split('#').next().unwrap_or_default().to_string()
    } else if href.starts_with('#') {
        format!("{}{href}", base_path.split('#').next().unwrap_or_default())
    } else if href.starts_with('?') {
        format!("{base_path_only}{href}")
    } else if href.starts_with('/') {
        remove_dot_segments(href)
    } else {
        let dir = match base_path_only.rfind('/') {
            Some(i) => &base_path_only[..=i],
            None => "/",
        };
        remove_dot_segments(&format!("{dir}{href}"))
    };
    Some(format!("{scheme}://{authority}{joined}"))
}

/// Drops `.` and `..` segments from a path (its query/fragment untouched).
fn remove_dot_segments(path_and_more: &str) -> String {
    let split_at = path_and_more
        .find(['?', '#'])
        .unwrap_or(path_and_more.len());
    let (path, more) = path_and_more.split_at(split_at);
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len().saturating_sub(1);
    for (i, seg) in segments.iter().enumerate() {
        match *seg {
            "." => {
                if i == last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > 1 {
                    out.pop();
                }
                if i == last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    let mut joined = out.join("/");
    if !joined.starts_with('/') {
        joined.insert(0, '/');
    }
    joined + more
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_query_values() {
        assert_eq!(encode("rust wasm&x=1"), "rust%20wasm%26x%3D1");
        assert_eq!(encode("é"), "%C3%A9");
    }

    #[test]
    fn reads_query_params() {
        let u = "//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2Fx%3Fy%3D1&rut=abc";
        assert_eq!(
            query_param(u, "uddg").as_deref(),
            Some("https://a.example/x?y=1")
        );
        assert_eq!(query_param(u, "nope"), None);
    }

    #[test]
    fn resolves_relative_links() {
        let base = "http://127.0.0.1:9/providers/shop/search.html?q=x";
        assert_eq!(
            resolve(base, "products/a.html").as_deref(),
            Some("http://127.0.0.1:9/providers/shop/products/a.html")
        );
        assert_eq!(
            resolve(base, "../x/./y.html").as_deref(),
            Some("http://127.0.0.1:9/providers/x/y.html")
        );
        assert_eq!(resolve(base, "/a").as_deref(), Some("http://127.0.0.1:9/a"));
        assert_eq!(
            resolve(base, "//cdn.example/i.png").as_deref(),
            Some("http://cdn.example/i.png")
        );
        assert_eq!(
            resolve(base, "?q=y").as_deref(),
            Some("http://127.0.0.1:9/providers/shop/search.html?q=y")
        );
        assert_eq!(
            resolve(base, "https://b.example/").as_deref(),
            Some("https://b.example/")
        );
        assert_eq!(resolve(base, "javascript:void(0)"), None);
        assert_eq!(resolve("not a url", "a"), None);
        assert_eq!(
            resolve("https://h.example", "a").as_deref(),
            Some("https://h.example/a")
        );
    }

    #[test]
    fn reads_hosts() {
        assert_eq!(
            host("https://User@Shop.Example:8443/x").as_deref(),
            Some("shop.example")
        );
        assert_eq!(host("http://[::1]:80/").as_deref(), Some("::1"));
        assert_eq!(host("/relative"), None);
    }
}
