//! Hacker News search answers from the Algolia API
//! (<https://hn.algolia.com/api>, `GET /api/v1/search?tags=story`):
//!
//! ```json
//! {"hits": [{"objectID": "41234567", "title": "…", "url": "https://…" | null,
//!            "author": "pg", "points": 120, "num_comments": 48,
//!            "created_at": "2024-10-28T09:15:00.000Z", "story_text": "<p>…" | null}]}
//! ```
//!
//! Ask HN / Show HN posts have no `url`; their discussion page
//! (`https://news.ycombinator.com/item?id={objectID}`) is the result.

use webrig_provider_sdk::html::text;
use webrig_provider_sdk::serde_json::Value;
use webrig_provider_sdk::types::{Error, ResultItem};
use webrig_provider_sdk::{date, http};

const ITEM_URL: &str = "https://news.ycombinator.com/item?id=";

/// The stories in an Algolia answer, in its order. Hits without a title
/// are skipped; an answer without a `hits` list is `upstream`.
pub fn parse(body: &[u8]) -> Result<Vec<ResultItem>, Error> {
    let answer: Value = http::parse_json(body, "hn.algolia.com")?;
    let hits = answer
        .get("hits")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::Upstream("Hacker News answer has no \"hits\" list".into()))?;
    Ok(hits.iter().filter_map(read_hit).collect())
}

fn read_hit(hit: &Value) -> Option<ResultItem> {
    let str_field = |k: &str| {
        hit.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    let title = text::collapse_whitespace(str_field("title")?);
    let id = match hit.get("objectID") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    };
    let discussion = (!id.is_empty()).then(|| format!("{ITEM_URL}{id}"));
    let url = str_field("url")
        .filter(|u| u.starts_with("http://") || u.starts_with("https://"))
        .map(str::to_string)
        .or_else(|| discussion.clone())?;
    let snippet = str_field("story_text")
        .map(|html| text::truncate(&text::html_to_text(html), 300))
        .unwrap_or_default();
    let published = str_field("created_at")
        .and_then(date::normalize)
        .or_else(|| {
            hit.get("created_at_i")
                .and_then(Value::as_f64)
                .and_then(date::from_unix)
        });
    let mut extra = vec![("site".to_string(), "hackernews".to_string())];
    if let Some(points) = hit.get("points").and_then(Value::as_i64) {
        extra.push(("score".into(), points.to_string()));
    }
    if let Some(comments) = hit.get("num_comments").and_then(Value::as_i64) {
        extra.push(("comments".into(), comments.to_string()));
    }
    if let Some(author) = str_field("author") {
        extra.push(("author".into(), author.to_string()));
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
