//! Masking secrets in devtools output unless the user asked for `--reveal`.
//!
//! Owns what counts as a secret and how each kind of output is masked; it
//! must not decide *whether* to mask (the caller checks `--reveal`).
//! Masking keeps what helps debugging (header, parameter and field names,
//! the auth scheme, cookie attributes, a key's well-known prefix) and
//! leaves every other byte as it was.
//!
//! The rule that keeps a secret from coming back through another field:
//! every field of an entry that can hold a URL or page-controlled text is
//! masked here, in one place per entry type ([`request`], [`console`],
//! [`error`], [`tab`]), so a token masked in a request's own URL is masked
//! in the next request's `Referer`, its `initiator`, a `Location` and HAR's
//! `redirectURL` (made from it) too. A new field on an entry needs a line
//! here and a case in the tests at the bottom.

mod bodies;
mod headers;
mod names;
mod text;
mod urls;

use super::entry::{Header, Request};
use super::rings::{ConsoleEntry, PageError};
use crate::browser::session::TabInfo;

pub use bodies::body;
pub use headers::{header_value, headers, is_sensitive_header};
pub use text::text;
pub use urls::url;

/// What replaces a secret. Not valid in a URL or a header token, so a masked
/// value can never be mistaken for (or replayed as) the real one.
pub const MASK: &str = "‹redacted›";

/// A request as shown without `--reveal`: its URL, every header (credential
/// headers masked, URL headers as URLs, the rest as free text), its body
/// by content type, its initiator and its failure text.
pub fn request(r: &mut Request) {
    // Read before the headers are masked: the multipart boundary is in it.
    let content_type = header_of(&r.request_headers, "content-type").map(str::to_string);
    r.url = url(&r.url);
    headers(&mut r.request_headers);
    headers(&mut r.response_headers);
    if let Some(post) = &mut r.post_data {
        *post = body(content_type.as_deref(), post);
    }
    r.initiator = r.initiator.as_deref().map(initiator);
    r.failed = r.failed.as_deref().map(text);
    r.blocked = r.blocked.as_deref().map(text);
    r.status_text = r.status_text.as_deref().map(text);
}

/// A response body as `network body` shows it, read as its MIME type says.
pub fn response_body(r: Option<&Request>, text: &str) -> String {
    let content_type =
        r.and_then(|r| header_of(&r.response_headers, "content-type").or(r.mime_type.as_deref()));
    body(content_type, text)
}

pub fn console(e: &mut ConsoleEntry) {
    e.text = text(&e.text);
    e.url = e.url.as_deref().map(url);
}

pub fn error(e: &mut PageError) {
    e.message = text(&e.message);
    e.stack = text(&e.stack);
    e.url = e.url.as_deref().map(url);
}

/// A tab as `inspect` lists it: its URL, and its title (page-controlled
/// text, which may show a key).
pub fn tab(t: &mut TabInfo) {
    t.url = url(&t.url);
    t.title = text(&t.title);
}

/// `parser URL:LINE` / `script URL` / `other` (see
/// [`Request::initiator`]): the URL masked, the kind and the line
/// kept.
fn initiator(s: &str) -> String {
    match s.split_once(' ') {
        Some((kind, rest)) => format!("{kind} {}", text::url_keeping_position(rest)),
        None => text(s),
    }
}

fn header_of<'a>(list: &'a [Header], name: &str) -> Option<&'a str> {
    list.iter()
        .find(|h| h.name.eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::browser::devtools::har;
    use crate::browser::devtools::rings::{Caps, Rings};

    const TOKEN: &str = "s3ss10n-T0k3n-value";

    /// A page load as CDP reports it: the document at a URL holding
    /// `?session_token=`, a redirect whose `Location` holds it, and many
    /// subresources whose `Referer` and initiator are that URL.
    fn page_load() -> Rings {
        let mut rings = Rings::new(
            "t1",
            Caps {
                console: 50,
                errors: 50,
                network: 100,
            },
        );
        let page = format!("http://app.test/home?session_token={TOKEN}&tab=2");
        rings.apply(
            "Network.requestWillBeSent",
            &json!({ "requestId": "1", "timestamp": 1.0, "type": "Document",
            "request": { "url": "http://app.test/login", "method": "POST",
                         "headers": { "Content-Type": "application/json" },
                         "postData": format!("{{\"user\":\"ann\",\"password\":\"{TOKEN}\"}}") },
            "initiator": { "type": "other" } }),
        );
        rings.apply(
            "Network.requestWillBeSent",
            &json!({ "requestId": "1", "timestamp": 1.1, "type": "Document",
            "redirectResponse": { "status": 302, "statusText": "Found",
                "headers": { "Location": format!("/home?session_token={TOKEN}&tab=2") } },
            "request": { "url": page, "method": "GET", "headers": {} } }),
        );
        for n in 0..40 {
            let id = format!("r{n}");
            rings.apply(
                "Network.requestWillBeSent",
                &json!({ "requestId": id, "timestamp": 2.0, "type": "Image",
                "request": { "url": format!("http://app.test/img/{n}.png"), "method": "GET",
                             "headers": { "Referer": page } },
                "initiator": { "type": "parser", "url": page, "lineNumber": n } }),
            );
            rings.apply("Network.requestWillBeSentExtraInfo", &json!({ "requestId": id,
                "headers": { "Referer": page, "X-Authorization": TOKEN, "Authentication": TOKEN,
                             "Ocp-Apim-Subscription-Key": TOKEN, "X-Hub-Signature-256": TOKEN,
                             "X-Functions-Key": TOKEN, "X-Debug": format!("retry with token={TOKEN}"),
                             "X-Gh": "ghp_AbC123dEf456GhI789jKl012mNo" } }));
        }
        rings.apply(
            "Runtime.consoleAPICalled",
            &json!({ "type": "log", "args": [
            { "type": "string", "value": format!("cookie: theme=dark; sid={TOKEN}") }],
            "stackTrace": { "callFrames": [{ "url": page, "lineNumber": 3 }] } }),
        );
        rings.apply("Runtime.exceptionThrown", &json!({ "timestamp": 1.0, "exceptionDetails": {
            "text": "Uncaught", "lineNumber": 4, "columnNumber": 2, "url": page,
            "exception": { "description": format!("Error: failed with token={TOKEN}\n    at f ({page}:5:3)") } } }));
        rings
    }

    #[test]
    fn a_token_masked_in_its_url_does_not_come_back_through_another_field() {
        let rings = page_load();
        let mut network: Vec<Request> = rings.network.iter().cloned().collect();
        let raw = serde_json::to_string(&network).unwrap_or_default();
        assert!(
            raw.matches(TOKEN).count() >= 40 * 8,
            "the fixture leaks before masking"
        );
        network.iter_mut().for_each(request);
        let mut console_entries: Vec<ConsoleEntry> = rings.console.iter().cloned().collect();
        console_entries.iter_mut().for_each(console);
        let mut errors: Vec<PageError> = rings.errors.iter().cloned().collect();
        errors.iter_mut().for_each(error);
        let page = har::Page {
            id: "t1".into(),
            title: format!("Home token={TOKEN}"),
            url: String::new(),
            started: 0.0,
        };
        let mut shown_page = page.clone();
        shown_page.title = text(&shown_page.title);
        let doc = har::har(&network, &[shown_page], "test");
        for shown in [
            serde_json::to_string(&network).unwrap_or_default(),
            serde_json::to_string(&console_entries).unwrap_or_default(),
            serde_json::to_string(&errors).unwrap_or_default(),
            doc.to_string(),
        ] {
            assert!(!shown.contains(TOKEN), "{shown}");
            assert!(!shown.contains("AbC123dEf"), "{shown}");
        }
        // What helps debugging stays.
        let image = &network[5];
        assert_eq!(
            image.initiator.as_deref(),
            Some(&*format!(
                "parser http://app.test/home?session_token={MASK}&tab=2:4"
            ))
        );
        assert_eq!(
            doc["log"]["entries"][0]["response"]["redirectURL"],
            format!("/home?session_token={MASK}&tab=2")
        );
        assert!(
            errors[0].stack.ends_with("tab=2:5:3)"),
            "{}",
            errors[0].stack
        );
        assert_eq!(
            network[0].post_data.as_deref(),
            Some(&*format!("{{\"user\":\"ann\",\"password\":\"{MASK}\"}}"))
        );
    }

    #[test]
    fn a_request_keeps_what_is_not_secret() {
        let mut r = Request {
            url: "https://shop.example/api?q=shoes&access_token=abc123".into(),
            request_headers: vec![
                Header { name: "Referer".into(), value: "https://shop.example/list?page=2".into() },
                Header { name: "X-Keyboard-Layout".into(), value: "qwerty".into() },
                Header { name: "Content-Type".into(), value: "multipart/form-data; boundary=XyZ123abcDEF456ghiJKL789mno".into() },
            ],
            post_data: Some("--XyZ123abcDEF456ghiJKL789mno\r\nContent-Disposition: form-data; name=\"q\"\r\n\r\nshoes\r\n--XyZ123abcDEF456ghiJKL789mno\r\nContent-Disposition: form-data; name=\"api_key\"\r\n\r\nk-1\r\n--XyZ123abcDEF456ghiJKL789mno--\r\n".into()),
            failed: Some("net::ERR_FAILED".into()),
            initiator: Some("other".into()),
            ..Request::default()
        };
        request(&mut r);
        assert_eq!(
            r.request_headers[0].value,
            "https://shop.example/list?page=2"
        );
        assert_eq!(r.request_headers[1].value, "qwerty");
        let post = r.post_data.unwrap_or_default();
        assert!(post.contains("shoes") && !post.contains("k-1"), "{post}");
        assert_eq!(r.failed.as_deref(), Some("net::ERR_FAILED"));
        assert_eq!(r.initiator.as_deref(), Some("other"));
    }

    #[test]
    fn a_tab_shows_its_url_and_title_masked() {
        let mut t = TabInfo {
            id: "t1".into(),
            url: "https://app.test/?session_token=abc&x=1".into(),
            title: "Key AKIAIOSFODNN7EXAMPLE — console".into(),
            active: true,
        };
        tab(&mut t);
        assert_eq!(t.url, format!("https://app.test/?session_token={MASK}&x=1"));
        assert_eq!(t.title, format!("Key AKIA{MASK} — console"));
    }

    #[test]
    fn a_response_body_is_read_by_its_mime_type() {
        let r = Request {
            mime_type: Some("application/json".into()),
            ..Request::default()
        };
        assert_eq!(
            response_body(Some(&r), r#"{"access_token":"t","n":1}"#),
            format!(r#"{{"access_token":"{MASK}","n":1}}"#)
        );
        assert_eq!(response_body(None, "plain words"), "plain words");
    }

    /// `T` with every string field (and every header value) holding a
    /// secret, but the fields in `exempt` (ids and names the browser sets).
    fn filled<T: schemars::JsonSchema + serde::de::DeserializeOwned>(exempt: &[&str]) -> T {
        const SECRET: &str =
            "see http://x.test/?session_token=Gu4rdS3cret and password=Gu4rdS3cret";
        let schema = schemars::schema_for!(T);
        let mut value = serde_json::Map::new();
        for (name, prop) in schema.as_value()["properties"]
            .as_object()
            .into_iter()
            .flatten()
        {
            let kind = prop["type"].to_string();
            let v = if exempt.contains(&name.as_str()) {
                json!("x")
            } else if kind.contains("string") {
                json!(SECRET)
            } else if kind.contains("array") {
                json!([{ "name": "X-Something", "value": SECRET }])
            } else if kind.contains("number") || kind.contains("integer") {
                json!(1)
            } else if kind.contains("boolean") {
                json!(false)
            } else {
                continue;
            };
            value.insert(name.clone(), v);
        }
        serde_json::from_value(value.into())
            .unwrap_or_else(|e| panic!("filling {}: {e}", std::any::type_name::<T>()))
    }

    /// The guard for new fields: an entry field that can hold page text or
    /// a URL is masked, or this test names it. Adding a field to an entry
    /// without a line in `request`/`console`/`error` fails here.
    #[test]
    fn every_field_of_every_entry_is_masked_or_named_as_safe() {
        let mut r: Request = filled(&[
            "id",
            "tab",
            "method",
            "type",
            "mime_type",
            "protocol",
            "remote_address",
        ]);
        request(&mut r);
        let mut c: ConsoleEntry = filled(&["tab", "level", "kind"]);
        console(&mut c);
        let mut e: PageError = filled(&["tab"]);
        error(&mut e);
        for shown in [
            serde_json::to_string(&r).unwrap_or_default(),
            serde_json::to_string(&c).unwrap_or_default(),
            serde_json::to_string(&e).unwrap_or_default(),
        ] {
            assert!(
                shown.contains("Gu4rd") || shown.contains(MASK),
                "the fill took: {shown}"
            );
            assert!(!shown.contains("Gu4rdS3cret"), "{shown}");
        }
    }
}
