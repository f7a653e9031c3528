//! Mastodon hashtag timelines: an array of Status entities
//! (<https://docs.joinmastodon.org/entities/Status/>):
//!
//! ```json
//! [{"id": "113…", "created_at": "2024-11-01T10:00:00.000Z", "language": "en",
//!   "uri": "https://host/users/a/statuses/113…", "url": "https://host/@a/113…",
//!   "content": "<p>HTML</p>", "spoiler_text": "", "replies_count": 1,
//!   "reblogs_count": 2, "favourites_count": 3,
//!   "account": {"acct": "a@host", "display_name": "A", "url": "…"},
//!   "reblog": null}]
//! ```
//!
//! A boost (`reblog` set) is read as the boosted status.

use webrig_provider_sdk::html::text;
use webrig_provider_sdk::serde_json::Value;
use webrig_provider_sdk::types::{Error, ResultItem};
use webrig_provider_sdk::{date, http};

/// Characters of post text used as its title.
const TITLE_CHARS: usize = 80;

/// The hashtag for a query: `#` and whitespace removed, lowercased. Tags
/// are letters, digits and `_` (Mastodon's rule); anything else is
/// `invalid-input`.
pub fn tag(query: &str) -> Result<String, Error> {
    let tag: String = query
        .chars()
        .filter(|c| *c != '#' && !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect();
    if tag.is_empty() {
        return Err(Error::InvalidInput("the hashtag is empty".into()));
    }
    if let Some(bad) = tag.chars().find(|c| !(c.is_alphanumeric() || *c == '_')) {
        return Err(Error::InvalidInput(format!(
            "{query:?} is not a hashtag: {bad:?} is not a letter, digit or _"
        )));
    }
    if tag.chars().count() > 100 {
        return Err(Error::InvalidInput(
            "the hashtag is longer than 100 characters".into(),
        ));
    }
    Ok(tag)
}

/// The statuses of a timeline answer, in its order. Statuses without a
/// link or text are skipped; a body that is not a JSON array is `upstream`.
pub fn parse(body: &[u8]) -> Result<Vec<ResultItem>, Error> {
    let answer: Value = http::parse_json(body, "mastodon")?;
    let statuses = answer
        .as_array()
        .ok_or_else(|| Error::Upstream("Mastodon answer is not a list of statuses".into()))?;
    Ok(statuses.iter().filter_map(read_status).collect())
}

fn read_status(status: &Value) -> Option<ResultItem> {
    let status = match status.get("reblog") {
        Some(inner @ Value::Object(_)) => inner,
        _ => status,
    };
    let str_field = |v: &Value, k: &str| -> Option<String> {
        v.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let url = str_field(status, "url")
        .or_else(|| str_field(status, "uri"))
        .filter(|u| u.starts_with("http://") || u.starts_with("https://"))?;
    let body = str_field(status, "content")
        .map(|c| text::html_to_text(&c))
        .unwrap_or_default();
    let spoiler = str_field(status, "spoiler_text").map(|s| text::collapse_whitespace(&s));
    // A content warning is what the author chose to show first.
    let headline = spoiler.clone().unwrap_or_else(|| body.clone());
    if headline.is_empty() {
        return None;
    }
    let title = text::truncate(&headline, TITLE_CHARS);
    let snippet = text::truncate(&body, 500);
    let published = str_field(status, "created_at").and_then(|d| date::normalize(&d));
    let mut extra = Vec::new();
    let account = status.get("account");
    if let Some(acct) = account.and_then(|a| str_field(a, "acct")) {
        extra.push(("author".to_string(), acct));
    }
    if let Some(name) = account.and_then(|a| str_field(a, "display_name")) {
        extra.push(("author_name".to_string(), name));
    }
    for (key, field) in [
        ("reblogs", "reblogs_count"),
        ("favourites", "favourites_count"),
        ("replies", "replies_count"),
    ] {
        if let Some(n) = status.get(field).and_then(Value::as_i64) {
            extra.push((key.to_string(), n.to_string()));
        }
    }
    if let Some(lang) = str_field(status, "language") {
        extra.push(("language".to_string(), lang));
    }
    if let Some(cw) = spoiler {
        extra.push(("content_warning".to_string(), cw));
    }
    Some(ResultItem {
        url,
        title,
        snippet,
        published,
        extra,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> Vec<u8> {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../tests/fixtures/web/providers/mastodon/api/v1/timelines/tag/webrig"
        );
        std::fs::read(path).expect("fixture mastodon/api/v1/timelines/tag/webrig is readable")
    }

    fn extra<'a>(item: &'a ResultItem, key: &str) -> Option<&'a str> {
        item.extra
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    #[test]
    fn tags_are_normalized_or_refused() {
        assert_eq!(tag("#WebRig").expect("tag"), "webrig");
        assert_eq!(tag("web rig").expect("tag"), "webrig");
        assert_eq!(tag("#café_2024").expect("tag"), "café_2024");
        for bad in ["#", "  ", "web/rig", "a?b=c", "../x"] {
            assert!(matches!(tag(bad), Err(Error::InvalidInput(_))), "{bad}");
        }
    }

    #[test]
    fn statuses_become_results_with_plain_text() {
        let items = parse(&fixture()).expect("fixture parses");
        assert_eq!(items.len(), 4, "{items:#?}");
        let first = &items[0];
        assert_eq!(
            first.url,
            "https://mastodon.example/@ada/113412345678901234"
        );
        assert_eq!(first.published.as_deref(), Some("2024-11-01T10:15:30.000Z"));
        assert!(
            first.snippet.starts_with(
                "Just shipped plugin grants for #webrig: every HTTP request & redirect is checked."
            ),
            "{}",
            first.snippet
        );
        assert!(!first.snippet.contains('<'), "{}", first.snippet);
        assert!(first.title.chars().count() <= 81, "{}", first.title);
        assert_eq!(extra(first, "author"), Some("ada@mastodon.example"));
        assert_eq!(extra(first, "reblogs"), Some("4"));
        assert_eq!(extra(first, "favourites"), Some("17"));
        assert_eq!(extra(first, "replies"), Some("2"));
        assert_eq!(extra(first, "language"), Some("en"));
        // The boost is read as the boosted status.
        assert_eq!(
            items[2].url,
            "https://fosstodon.example/@cz/113300000000000001"
        );
        assert_eq!(extra(&items[2], "author"), Some("cz@fosstodon.example"));
        // A content warning is the title; uri stands in for a missing url.
        assert_eq!(items[3].title, "long post about sandboxing");
        assert_eq!(
            items[3].url,
            "https://social.example/users/dee/statuses/113000000000000009"
        );
    }

    #[test]
    fn malformed_answers_are_errors_not_panics() {
        for body in [&b""[..], b"{}", b"{\"error\": \"not found\"}", b"<html>"] {
            assert!(matches!(parse(body), Err(Error::Upstream(_))), "{body:?}");
        }
        let odd = br#"[1, null, {"url": 5}, {"url": "javascript:x", "content": "hi"}, {"url": "https://x.example/1", "content": ""}]"#;
        assert!(parse(odd).expect("odd statuses are skipped").is_empty());
    }
}
