//! Reddit search answers (`GET /search.json`, a Listing as documented at
//! <https://www.reddit.com/dev/api/#GET_search>):
//!
//! ```json
//! {"kind": "Listing", "data": {"children": [{"kind": "t3", "data": {
//!     "title": "…", "permalink": "/r/rust/comments/abc123/…/", "url": "https://…",
//!     "created_utc": 1730106900.0, "score": 321, "num_comments": 54,
//!     "subreddit": "rust", "author": "someone", "selftext": "…", "is_self": false}}]}}
//! ```
//!
//! A link post's result is its `url`; a self post's (or one whose `url` is
//! not http) is its discussion, `https://www.reddit.com{permalink}`.

use webrig_provider_sdk::html::{decode_entities, text};
use webrig_provider_sdk::serde_json::Value;
use webrig_provider_sdk::types::{Error, ResultItem};
use webrig_provider_sdk::{date, http};

const SITE: &str = "https://www.reddit.com";

/// The posts in a Reddit listing, in its order. Children that are not
/// posts or lack a title are skipped; a body that is not a listing is
/// `upstream`.
pub fn parse(body: &[u8]) -> Result<Vec<ResultItem>, Error> {
    let answer: Value = http::parse_json(body, "reddit")?;
    let children = answer
        .pointer("/data/children")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            Error::Upstream("Reddit answer is not a listing (no data.children)".into())
        })?;
    Ok(children
        .iter()
        .filter_map(|c| c.get("data"))
        .filter_map(read_post)
        .collect())
}

fn read_post(post: &Value) -> Option<ResultItem> {
    let str_field = |k: &str| {
        post.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    // Reddit escapes &, < and > in titles and text of its JSON.
    let title = text::collapse_whitespace(&decode_entities(str_field("title")?));
    let discussion = str_field("permalink").map(|p| format!("{SITE}{p}"));
    let is_self = post
        .get("is_self")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let link = str_field("url")
        .filter(|u| !is_self && (u.starts_with("http://") || u.starts_with("https://")));
    let url = link.map(str::to_string).or_else(|| discussion.clone())?;
    let snippet = str_field("selftext")
        .map(|t| text::truncate(&decode_entities(t), 300))
        .unwrap_or_default();
    let published = post
        .get("created_utc")
        .and_then(Value::as_f64)
        .and_then(date::from_unix);
    let mut extra = vec![("site".to_string(), "reddit".to_string())];
    if let Some(score) = post.get("score").and_then(Value::as_i64) {
        extra.push(("score".into(), score.to_string()));
    }
    if let Some(comments) = post.get("num_comments").and_then(Value::as_i64) {
        extra.push(("comments".into(), comments.to_string()));
    }
    if let Some(author) = str_field("author") {
        extra.push(("author".into(), author.to_string()));
    }
    if let Some(sub) = str_field("subreddit") {
        extra.push(("subreddit".into(), sub.to_string()));
    }
    if let Some(d) = discussion {
        extra.push(("discussion_url".into(), d));
    }
    Some(ResultItem {
        url,
        title,
        snippet,
        published,
        extra,
    })
}
