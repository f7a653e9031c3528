//! Routes: requests of a session's tabs answered by webrig instead of the
//! network (a canned status and body, or a failure), through CDP's Fetch
//! domain. The browser pauses only requests whose URL matches a route's
//! pattern; everything else never leaves the network stack.

use base64::Engine;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::error::ApiError;

/// What a route does with a matching request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", tag = "action")]
pub enum RouteAction {
    /// The request fails as a network error would (`net::ERR_FAILED`).
    Abort,
    /// The request is answered with this status, headers and body.
    Fulfill {
        status: u16,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        headers: Vec<(String, String)>,
        /// Body bytes, base64 (kept small: routes are for canned answers).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        body_base64: String,
        /// Body length, bytes.
        body_bytes: usize,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Route {
    /// A URL glob: `*` any run of characters (`/` included), `?` one
    /// character, `\` escapes the next; without a wildcard, the whole URL.
    pub pattern: String,
    #[serde(flatten)]
    pub action: RouteAction,
    /// Requests this route answered.
    #[serde(default)]
    pub hits: u64,
}

/// Largest body a route may carry.
pub const ROUTE_BODY_BYTES: usize = 4 << 20;
/// Most routes a session holds.
pub const MAX_ROUTES: usize = 64;

/// Checks a pattern: not empty, no blanks or control characters, a
/// dangling escape refused.
pub fn check_pattern(pattern: &str) -> Result<(), ApiError> {
    let bad = |why: &str| {
        ApiError::invalid(format!("route pattern {pattern:?} {why}")).with_hint(
            "a pattern is a URL glob: * matches any characters, ? one, \\ escapes; \
             e.g. '*/api/cart*' or 'https://cdn.example.com/*.js'",
        )
    };
    if pattern.is_empty() {
        return Err(bad("is empty"));
    }
    if pattern.len() > 2048 {
        return Err(bad("is longer than 2048 bytes"));
    }
    if pattern.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(bad("has a blank or control character (URLs have none)"));
    }
    let mut escaped = false;
    for c in pattern.chars() {
        escaped = !escaped && c == '\\';
    }
    if escaped {
        return Err(bad("ends with a lone \\"));
    }
    Ok(())
}

/// Whether `url` matches glob `pattern` (the same rules as CDP's
/// `Fetch.RequestPattern.urlPattern`). Linear-time: no backtracking blowup.
pub fn matches(pattern: &str, url: &str) -> bool {
    #[derive(Clone, Copy, PartialEq)]
    enum Tok {
        Any,
        One,
        Lit(char),
    }
    let mut toks = Vec::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        toks.push(match c {
            '*' => Tok::Any,
            '?' => Tok::One,
            '\\' => Tok::Lit(chars.next().unwrap_or('\\')),
            c => Tok::Lit(c),
        });
    }
    let text: Vec<char> = url.chars().collect();
    // Classic two-pointer wildcard match with one backtrack point.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match toks.get(p) {
            Some(Tok::Any) => {
                star = Some((p, t));
                p += 1;
            }
            Some(Tok::One) => {
                p += 1;
                t += 1;
            }
            Some(Tok::Lit(c)) if *c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    toks[p..].iter().all(|t| *t == Tok::Any)
}

/// `Fetch.enable`'s arguments for these routes (None: disable Fetch).
pub fn fetch_patterns(routes: &[Route]) -> Option<Value> {
    if routes.is_empty() {
        return None;
    }
    let patterns: Vec<Value> = routes
        .iter()
        .map(|r| json!({ "urlPattern": r.pattern, "requestStage": "Request" }))
        .collect();
    Some(json!({ "patterns": patterns }))
}

/// The CDP call that answers a paused request per the last route (newest
/// first) matching `url`; `continueRequest` when none does.
pub fn answer(routes: &mut [Route], request_id: &str, url: &str) -> (&'static str, Value) {
    let Some(route) = routes.iter_mut().rev().find(|r| matches(&r.pattern, url)) else {
        return ("Fetch.continueRequest", json!({ "requestId": request_id }));
    };
    route.hits += 1;
    match &route.action {
        RouteAction::Abort => (
            "Fetch.failRequest",
            json!({ "requestId": request_id, "errorReason": "Failed" }),
        ),
        RouteAction::Fulfill {
            status,
            headers,
            body_base64,
            ..
        } => {
            let headers: Vec<Value> = headers
                .iter()
                .map(|(name, value)| json!({ "name": name, "value": value }))
                .collect();
            (
                "Fetch.fulfillRequest",
                json!({
                    "requestId": request_id,
                    "responseCode": status,
                    "responseHeaders": headers,
                    "body": body_base64,
                }),
            )
        }
    }
}

/// A fulfilled route's action from the command's parts, checked.
pub fn fulfill(
    status: Option<u16>,
    headers: &[String],
    body: Option<Vec<u8>>,
    json_text: Option<&str>,
) -> Result<RouteAction, ApiError> {
    let status = status.unwrap_or(200);
    if !(100..=599).contains(&status) {
        return Err(ApiError::invalid(format!(
            "--status {status} is not an HTTP status (100 to 599)"
        )));
    }
    let mut list = Vec::new();
    for h in headers {
        let Some((name, value)) = h.split_once(':') else {
            return Err(ApiError::invalid(format!(
                "--header {h:?} is not NAME:VALUE"
            )));
        };
        let name = name.trim();
        let valid_name = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if !valid_name {
            return Err(ApiError::invalid(format!(
                "--header {h:?}: {name:?} is not a header name"
            )));
        }
        if value.chars().any(|c| c == '\r' || c == '\n' || c == '\0') {
            return Err(ApiError::invalid(format!(
                "--header {name}: the value has a line break or NUL"
            )));
        }
        list.push((name.to_string(), value.trim().to_string()));
    }
    let body = match (body, json_text) {
        (Some(_), Some(_)) => {
            return Err(ApiError::invalid("give --body or --json, not both"));
        }
        (Some(b), None) => b,
        (None, Some(text)) => {
            serde_json::from_str::<Value>(text)
                .map_err(|e| ApiError::invalid(format!("--json is not JSON: {e}")))?;
            if !list
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case("content-type"))
            {
                list.push(("Content-Type".into(), "application/json".into()));
            }
            text.as_bytes().to_vec()
        }
        (None, None) => Vec::new(),
    };
    if body.len() > ROUTE_BODY_BYTES {
        return Err(ApiError::invalid(format!(
            "the body is {} bytes; a route carries at most {ROUTE_BODY_BYTES}",
            body.len()
        )));
    }
    Ok(RouteAction::Fulfill {
        status,
        headers: list,
        body_bytes: body.len(),
        body_base64: base64::engine::general_purpose::STANDARD.encode(body),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_like_cdp() {
        assert!(matches("*", "http://a/"));
        assert!(matches("*/api/*", "http://a/api/cart?x=1"));
        assert!(matches("**/api/**", "http://a/api/cart"));
        assert!(!matches("*/api/*", "http://a/apix/cart"));
        assert!(matches("http://a/x?y", "http://a/x1y"));
        assert!(!matches("http://a/x", "http://a/x/"));
        assert!(matches("http://a/x\\?y=1", "http://a/x?y=1"));
        assert!(!matches("http://a/x\\?y=1", "http://a/xzy=1"));
        assert!(matches("*.png", "http://a/b/c.png"));
        assert!(!matches("*.png", "http://a/b/c.png?v=2"));
        // No exponential backtracking.
        let long = "a".repeat(5000);
        assert!(!matches("*a*a*a*a*a*a*a*a*b", &long));
    }

    #[test]
    fn bad_patterns_say_why() {
        for p in ["", "a b", "x\n", "abc\\"] {
            assert!(check_pattern(p).is_err(), "{p:?}");
        }
        assert!(check_pattern("*/x\\*y").is_ok());
    }

    #[test]
    fn the_newest_matching_route_answers() {
        let mut routes = vec![
            Route {
                pattern: "*/api/*".into(),
                action: RouteAction::Abort,
                hits: 0,
            },
            Route {
                pattern: "*/api/cart".into(),
                action: fulfill(Some(201), &["X-Test: 1".into()], None, Some("{\"n\":1}"))
                    .expect("valid"),
                hits: 0,
            },
        ];
        let (method, params) = answer(&mut routes, "r1", "http://a/api/cart");
        assert_eq!(method, "Fetch.fulfillRequest");
        assert_eq!(params["responseCode"], 201);
        assert_eq!(params["responseHeaders"][1]["value"], "application/json");
        assert_eq!(
            answer(&mut routes, "r2", "http://a/api/other").0,
            "Fetch.failRequest"
        );
        assert_eq!(
            answer(&mut routes, "r3", "http://a/").0,
            "Fetch.continueRequest"
        );
        assert_eq!((routes[0].hits, routes[1].hits), (1, 1));
    }

    #[test]
    fn fulfill_checks_its_parts() {
        assert!(fulfill(Some(99), &[], None, None).is_err());
        assert!(fulfill(None, &["nocolon".into()], None, None).is_err());
        assert!(fulfill(None, &["Bad Name: x".into()], None, None).is_err());
        assert!(fulfill(None, &["X: a\r\nEvil: 1".into()], None, None).is_err());
        assert!(fulfill(None, &[], None, Some("{nope")).is_err());
        assert!(fulfill(None, &[], Some(vec![1]), Some("1")).is_err());
        assert!(fulfill(None, &[], Some(vec![0; ROUTE_BODY_BYTES + 1]), None).is_err());
        let ok = fulfill(None, &[], Some(b"hi".to_vec()), None).expect("valid");
        assert_eq!(
            ok,
            RouteAction::Fulfill {
                status: 200,
                headers: vec![],
                body_base64: "aGk=".into(),
                body_bytes: 2
            }
        );
    }
}
