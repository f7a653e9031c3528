//! DuckDuckGo's HTML results page (`https://html.duckduckgo.com/html/?q=…`).
//!
//! Each organic result is a `div.result` (also `.results_links`) holding
//! `a.result__a` (title; `href` is either the target or a redirect
//! `//duckduckgo.com/l/?uddg=<percent-encoded target>&rut=…`),
//! `.result__snippet` (snippet, an `a` or `div`), `a.result__url` (display
//! URL) and, for some results, a date in a `span` after the display URL
//! (`2024-01-15T00:00:00.0000000`). Ads are the same blocks with class
//! `result--ad` (their links go to `duckduckgo.com/y.js`); they are
//! skipped. A bot check answers a page with an `anomaly-modal` or
//! `challenge-form` instead of results.

use webrig_provider_sdk::html::{Document, NodeId};
use webrig_provider_sdk::types::{Error, ResultItem};
use webrig_provider_sdk::{date, url};

/// The organic results on a results page, in page order. An empty page
/// (no results) is an empty list; a bot-check page is `rate-limited`.
pub fn parse_results(page: &str) -> Result<Vec<ResultItem>, Error> {
    let doc = Document::parse(page);
    let blocks: Vec<NodeId> = select(&doc, ".result, .results_links")?
        .into_iter()
        // A block nested in another block would be read twice.
        .filter(|&id| {
            !doc.ancestors(id)
                .any(|a| doc.has_class(a, "result") || doc.has_class(a, "results_links"))
        })
        .collect();
    let items: Vec<ResultItem> = blocks
        .iter()
        .filter_map(|&b| read_result(&doc, b))
        .collect();
    if items.is_empty() && !select(&doc, ".anomaly-modal, #challenge-form")?.is_empty() {
        return Err(Error::RateLimited(
            "DuckDuckGo answered a bot check instead of results".into(),
        ));
    }
    Ok(items)
}

/// [`Document::select`] with a selector written here (an error is a bug).
fn select(doc: &Document, css: &str) -> Result<Vec<NodeId>, Error> {
    doc.select(css).map_err(|e| Error::Internal(e.to_string()))
}

fn read_result(doc: &Document, block: NodeId) -> Option<ResultItem> {
    if doc.has_class(block, "result--ad") || doc.has_class(block, "result--ad--small") {
        return None;
    }
    let link = doc.find_class_in(block, "result__a").next()?;
    let target = unwrap_link(doc.attr(link, "href")?)?;
    let title = doc.text(link);
    if title.is_empty() {
        return None;
    }
    let snippet = doc
        .find_class_in(block, "result__snippet")
        .next()
        .map(|s| doc.text(s))
        .unwrap_or_default();
    let mut extra = Vec::new();
    if let Some(display) = doc.find_class_in(block, "result__url").next() {
        let display = doc.text(display);
        if !display.is_empty() {
            extra.push(("display_url".to_string(), display));
        }
    }
    let published = doc
        .find_class_in(block, "result__extras__url")
        .next()
        .and_then(|e| {
            doc.descendants(e)
                .filter(|&d| doc.is(d, "span"))
                .find_map(|d| date::normalize(&doc.text(d)))
        });
    Some(ResultItem {
        url: target,
        title,
        snippet,
        published,
        extra,
    })
}

/// The real target of a result link: DuckDuckGo's redirect
/// (`/l/?uddg=…`) unwrapped, ad redirects (`/y.js`) refused, relative
/// links resolved against duckduckgo.com, non-http links refused.
pub fn unwrap_link(href: &str) -> Option<String> {
    let absolute = url::resolve("https://duckduckgo.com/", href)?;
    let on_ddg = url::host(&absolute)
        .is_some_and(|h| h == "duckduckgo.com" || h.ends_with(".duckduckgo.com"));
    if on_ddg {
        let path = absolute
            .split("://")
            .nth(1)?
            .split_once('/')
            .map(|(_, p)| p)
            .unwrap_or("");
        if path.starts_with("l/") || path.starts_with("l?") {
            let target = url::query_param(&absolute, "uddg")?;
            return url::resolve(&target, &target);
        }
        if path.starts_with("y.js") {
            return None;
        }
    }
    Some(absolute)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> String {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../tests/fixtures/web/providers/ddg/html/index.html"
        );
        std::fs::read_to_string(path).expect("fixture ddg/html/index.html is readable")
    }

    #[test]
    fn unwraps_redirect_links() {
        assert_eq!(
            unwrap_link("//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2Fx%3Fy%3D1&rut=abc")
                .as_deref(),
            Some("https://a.example/x?y=1")
        );
        assert_eq!(
            unwrap_link("/l/?uddg=http%3A%2F%2Fb.example%2F").as_deref(),
            Some("http://b.example/")
        );
        assert_eq!(
            unwrap_link("https://c.example/page").as_deref(),
            Some("https://c.example/page")
        );
        assert_eq!(unwrap_link("//duckduckgo.com/y.js?ad_domain=x"), None);
        assert_eq!(
            unwrap_link("//duckduckgo.com/l/?uddg=javascript%3Aalert(1)"),
            None
        );
    }

    #[test]
    fn parses_fixture_results_skipping_ads() {
        let items = parse_results(&fixture()).expect("results");
        assert!(items.len() >= 5, "{items:#?}");
        assert!(items.iter().all(|i| !i.url.contains("duckduckgo.com")));
        assert!(items.iter().all(|i| !i.title.contains("Sponsored")));
        assert!(
            items
                .iter()
                .all(|i| i.title != i.url && !i.title.is_empty())
        );
        let first = &items[0];
        assert_eq!(
            first.url,
            "https://webrig.example.org/docs/getting-started?ref=ddg&lang=en"
        );
        assert_eq!(
            first.title,
            "Getting started with webrig — a browser rig for agents"
        );
        assert!(
            first.snippet.contains("AI agents & scripts"),
            "{}",
            first.snippet
        );
        assert!(
            items
                .iter()
                .any(|i| i.published.as_deref() == Some("2024-11-02T00:00:00.0000000Z"))
        );
        assert!(items.iter().any(|i| i.published.is_none()));
    }

    #[test]
    fn empty_and_malformed_pages_give_no_results() {
        assert!(parse_results("").expect("empty page").is_empty());
        assert!(
            parse_results("<div class=result><a class=result__a>no href</a>")
                .expect("ok")
                .is_empty()
        );
        assert!(
            parse_results("<<<div class='result'>>")
                .expect("ok")
                .is_empty()
        );
    }

    #[test]
    fn bot_check_is_rate_limited() {
        let page = r#"<form id="challenge-form" action="/anomaly"></form>"#;
        assert!(matches!(parse_results(page), Err(Error::RateLimited(_))));
    }
}
