//! Outbound GET through the host's `http` import, with statuses mapped to
//! typed errors so providers never hand a 404 page to a parser. Natively
//! (`cargo test`) requests go to [`crate::testing`]'s mock instead.

use crate::types::Error;
use crate::webrig::plugin::http as wit_http;

/// What a successful GET returned.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The URL after redirects; relative links resolve against it.
    pub final_url: String,
}

impl Response {
    /// The body as text. Invalid UTF-8 is replaced rather than refused:
    /// pages in legacy encodings still yield their ASCII structure.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Headers sent with every request. Some services (Reddit, DuckDuckGo)
/// refuse requests without a user agent.
const DEFAULT_HEADERS: &[(&str, &str)] = &[
    (
        "user-agent",
        "Mozilla/5.0 (compatible; webrig/0.1; +https://github.com/webrig)",
    ),
    ("accept", "text/html,application/json;q=0.9,*/*;q=0.8"),
];

/// GETs `url` and returns the response when its status is 2xx.
pub fn get(url: &str) -> Result<Response, Error> {
    let resp = get_unchecked(url)?;
    check_status(resp.status, url)?;
    Ok(resp)
}

/// GETs `url` and returns whatever status came back, for callers that
/// report the status themselves. Transport failures and refused grants are
/// still errors.
pub fn get_unchecked(url: &str) -> Result<Response, Error> {
    send(&wit_http::Request {
        method: "GET".into(),
        url: url.to_string(),
        headers: DEFAULT_HEADERS
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        body: None,
    })
}

/// The host's `http` import.
#[cfg(target_arch = "wasm32")]
fn send(req: &wit_http::Request) -> Result<Response, Error> {
    let resp = wit_http::fetch(req)?;
    Ok(Response {
        status: resp.status,
        headers: resp.headers,
        body: resp.body,
        final_url: resp.final_url,
    })
}

/// Natively (`cargo test`) the import does not exist: the mock answers
/// (see [`crate::testing`]).
#[cfg(not(target_arch = "wasm32"))]
fn send(req: &wit_http::Request) -> Result<Response, Error> {
    crate::testing::fetch(req)
}

/// GETs `url` and returns the body as text (see [`Response::text`]).
pub fn get_text(url: &str) -> Result<String, Error> {
    get(url).map(|r| r.text())
}

/// GETs `url` and decodes its JSON body, whatever the Content-Type says.
pub fn get_json<T: serde::de::DeserializeOwned>(url: &str) -> Result<T, Error> {
    let resp = get(url)?;
    parse_json(&resp.body, url)
}

/// Decodes a JSON body; a body that is not the expected JSON is the
/// service's fault, so it is `upstream`.
pub fn parse_json<T: serde::de::DeserializeOwned>(body: &[u8], url: &str) -> Result<T, Error> {
    serde_json::from_slice(body)
        .map_err(|e| Error::Upstream(format!("{url} did not answer the expected JSON: {e}")))
}

/// Maps an HTTP status to the error a caller can act on.
pub fn check_status(status: u16, url: &str) -> Result<(), Error> {
    match status {
        200..=299 => Ok(()),
        404 | 410 => Err(Error::NotFound(format!("{url} answered {status}"))),
        401 | 403 => Err(Error::Auth(format!("{url} answered {status}"))),
        429 => Err(Error::RateLimited(format!(
            "{url} answered 429 Too Many Requests"
        ))),
        500..=599 => Err(Error::Upstream(format!("{url} failed with {status}"))),
        _ => Err(Error::Upstream(format!("{url} answered HTTP {status}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_typed_errors() {
        assert!(check_status(200, "u").is_ok());
        assert!(check_status(204, "u").is_ok());
        assert!(matches!(check_status(404, "u"), Err(Error::NotFound(_))));
        assert!(matches!(check_status(429, "u"), Err(Error::RateLimited(_))));
        assert!(matches!(check_status(503, "u"), Err(Error::Upstream(_))));
        match check_status(403, "u") {
            Err(Error::Auth(m)) => assert!(m.contains("403")),
            other => panic!("unexpected {other:?}"),
        }
        match check_status(418, "u") {
            Err(Error::Upstream(m)) => assert!(m.contains("418")),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn bad_json_is_upstream_error() {
        let r: Result<serde_json::Value, _> = parse_json(b"<html>", "u");
        assert!(matches!(r, Err(Error::Upstream(_))));
    }
}
