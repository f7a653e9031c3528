//! What a fetched page says about itself, read in order of reliability:
//! Open Graph and `article:*` properties (<https://ogp.me/>), schema.org
//! JSON-LD (`Article`/`NewsArticle`/`BlogPosting`/`WebPage`:
//! `headline`, `author`, `datePublished`, `publisher`), classic `<meta
//! name=…>` tags, then the markup itself (`<title>`, `<h1>`, `<time
//! datetime>`, `rel=author`, `.byline`). The main text comes from
//! [`readability`](crate::readability).

use crate::readability;
use webrig_plugin_sdk::html::{Document, meta, text};
use webrig_plugin_sdk::serde_json::Value;
use webrig_plugin_sdk::types;
use webrig_plugin_sdk::{date, url};

/// JSON-LD types that describe the page's own content.
const ARTICLE_TYPES: &[&str] = &[
    "Article",
    "NewsArticle",
    "BlogPosting",
    "Report",
    "ScholarlyArticle",
    "TechArticle",
    "WebPage",
    "AnalysisNewsArticle",
    "ReportageNewsArticle",
    "OpinionNewsArticle",
    "LiveBlogPosting",
];

/// The page as a WIT document: main text, title, published date and the
/// metadata keys `author`, `description`, `site_name`, `lang`,
/// `canonical`, `modified` (each only when the page says).
pub fn read(page: &str, final_url: &str) -> types::Document {
    let doc = Document::parse(page);
    let ld = article_ld(&doc);
    let body = readability::extract(&doc);
    let title = title(&doc, ld.as_ref()).unwrap_or_else(|| text::truncate(&body, 80));
    let published = published(&doc, ld.as_ref());
    let mut metadata = Vec::new();
    let mut put = |key: &str, value: Option<String>| {
        if let Some(v) = value
            .map(|v| text::collapse_whitespace(&v))
            .filter(|v| !v.is_empty())
        {
            metadata.push((key.to_string(), v));
        }
    };
    put("author", author(&doc, ld.as_ref()));
    put(
        "description",
        meta::meta_content(
            &doc,
            &["og:description", "description", "twitter:description"],
        )
        .or_else(|| {
            ld.as_ref()
                .and_then(|l| l.get("description"))
                .and_then(meta::ld_text)
        }),
    );
    put(
        "site_name",
        meta::meta_content(&doc, &["og:site_name", "application-name"]).or_else(|| {
            ld.as_ref()
                .and_then(|l| l.get("publisher"))
                .and_then(meta::ld_text)
        }),
    );
    put("lang", lang(&doc));
    put(
        "canonical",
        meta::link_href(&doc, "canonical")
            .or_else(|| meta::meta_content(&doc, &["og:url"]))
            .and_then(|href| url::resolve(final_url, &href)),
    );
    put(
        "modified",
        meta::meta_content(
            &doc,
            &["article:modified_time", "og:updated_time", "dateModified"],
        )
        .or_else(|| {
            ld.as_ref()
                .and_then(|l| l.get("dateModified"))
                .and_then(meta::ld_text)
        })
        .and_then(|d| date::normalize(&d)),
    );
    types::Document {
        url: final_url.to_string(),
        title,
        text: body,
        published,
        metadata,
    }
}

/// The JSON-LD object describing the page's article, if any.
fn article_ld(doc: &Document) -> Option<Value> {
    let objects = meta::json_ld_objects(doc);
    // Prefer a real article type over a generic WebPage.
    ARTICLE_TYPES
        .iter()
        .find_map(|ty| objects.iter().find(|o| meta::has_type(o, ty)).cloned())
}

fn title(doc: &Document, ld: Option<&Value>) -> Option<String> {
    let found = meta::meta_content(doc, &["og:title", "twitter:title"])
        .or_else(|| {
            ld.and_then(|l| l.get("headline").or_else(|| l.get("name")))
                .and_then(meta::ld_text)
        })
        .or_else(|| {
            doc.find("title")
                .map(|t| doc.text(t))
                .filter(|t| !t.is_empty())
        })
        .or_else(|| doc.find("h1").map(|h| doc.text(h)))?;
    let t = text::collapse_whitespace(&found);
    (!t.is_empty()).then_some(t)
}

fn published(doc: &Document, ld: Option<&Value>) -> Option<String> {
    let from_meta = meta::meta_content(
        doc,
        &[
            "article:published_time",
            "datePublished",
            "date",
            "pubdate",
            "publishdate",
            "dc.date.issued",
            "dcterms.created",
            "sailthru.date",
        ],
    )
    .and_then(|d| date::normalize(&d));
    from_meta
        .or_else(|| {
            ld.and_then(|l| l.get("datePublished"))
                .and_then(meta::ld_text)
                .and_then(|d| date::normalize(&d))
        })
        .or_else(|| {
            // `<time itemprop="datePublished">` first, then any `<time datetime>`.
            let times: Vec<_> = doc.find_all("time").collect();
            times
                .iter()
                .filter(|&&t| {
                    doc.attr(t, "itemprop") == Some("datePublished")
                        || doc.attr(t, "pubdate").is_some()
                })
                .chain(times.iter())
                .find_map(|&t| doc.attr(t, "datetime").and_then(date::normalize))
        })
}

fn author(doc: &Document, ld: Option<&Value>) -> Option<String> {
    let not_a_url = |s: &String| !s.starts_with("http://") && !s.starts_with("https://");
    meta::meta_content(doc, &["author", "article:author", "byl", "dc.creator"])
        .filter(not_a_url)
        .or_else(|| {
            ld.and_then(|l| l.get("author"))
                .and_then(meta::ld_text)
                .filter(not_a_url)
        })
        .or_else(|| {
            doc.elements()
                .find(|&e| {
                    doc.attr(e, "rel") == Some("author")
                        || doc.attr(e, "itemprop") == Some("author")
                        || doc.has_class(e, "byline")
                        || doc.has_class(e, "author")
                })
                .map(|e| doc.text(e))
                .filter(|t| !t.is_empty() && t.chars().count() < 100)
        })
        .map(|a| {
            a.trim_start_matches("By ")
                .trim_start_matches("by ")
                .to_string()
        })
}

fn lang(doc: &Document) -> Option<String> {
    doc.find("html")
        .and_then(|h| doc.attr(h, "lang").map(str::to_string))
        .or_else(|| meta::meta_content(doc, &["og:locale"]))
        .or_else(|| {
            doc.find_all("meta").find_map(|m| {
                doc.attr(m, "http-equiv")
                    .filter(|h| h.eq_ignore_ascii_case("content-language"))
                    .and_then(|_| doc.attr(m, "content").map(str::to_string))
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        let path = format!(
            "{}/../../../tests/fixtures/web/providers/articles/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("fixture {path}: {e}"))
    }

    fn meta<'a>(doc: &'a types::Document, key: &str) -> Option<&'a str> {
        doc.metadata
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    #[test]
    fn reads_open_graph_article() {
        let url = "http://127.0.0.1:8080/providers/articles/agents-need-a-browser.html";
        let doc = read(&fixture("agents-need-a-browser.html"), url);
        assert_eq!(doc.url, url);
        assert_eq!(
            doc.title,
            "Why AI agents need a real browser — and what \"webrig\" does about it"
        );
        assert_eq!(doc.published.as_deref(), Some("2024-10-28T09:15:00+01:00"));
        assert_eq!(meta(&doc, "author"), Some("Ada Quill"));
        assert_eq!(meta(&doc, "site_name"), Some("Example News"));
        assert_eq!(meta(&doc, "lang"), Some("en-GB"));
        assert_eq!(meta(&doc, "modified"), Some("2024-10-29T17:40:00+01:00"));
        assert_eq!(
            meta(&doc, "canonical"),
            Some("http://127.0.0.1:8080/2024/10/agents-need-a-browser")
        );
        assert!(
            doc.text.contains("Headless scraping used to be enough."),
            "{}",
            doc.text
        );
        assert!(
            doc.text.contains("“Agents fail in boring ways,”"),
            "{}",
            doc.text
        );
        assert!(doc.text.contains("Limits are always on"), "{}", doc.text);
        for noise in [
            "Opinion",
            "Accept all",
            "Related",
            "newsletter",
            "Great piece",
            "All rights reserved",
            "Share on X",
        ] {
            assert!(
                !doc.text.contains(noise),
                "{noise:?} leaked into:\n{}",
                doc.text
            );
        }
    }

    #[test]
    fn reads_json_ld_graph_article() {
        let doc = read(
            &fixture("writing-plugins-in-wasm.html"),
            "https://blog.example.net/posts/webrig-plugins-in-wasm",
        );
        assert_eq!(doc.title, "Writing webrig plugins in Rust and WebAssembly");
        assert_eq!(doc.published.as_deref(), Some("2024-09-14T18:02:11+00:00"));
        assert_eq!(meta(&doc, "author"), Some("Bo Lindqvist"));
        assert_eq!(meta(&doc, "modified"), Some("2024-09-15T07:00:00+00:00"));
        assert!(doc.text.contains("host’s http import"), "{}", doc.text);
        assert!(
            doc.text.contains("fn info() -> ProviderInfo"),
            "{}",
            doc.text
        );
        for noise in [
            "Archive",
            "Recent posts",
            "Nice write-up",
            "Proudly powered",
        ] {
            assert!(
                !doc.text.contains(noise),
                "{noise:?} leaked into:\n{}",
                doc.text
            );
        }
    }

    #[test]
    fn time_element_dates_and_missing_dates() {
        let page = r#"<html><body><h1>Plain</h1><p>Posted <time datetime="2023-05-06">May 6</time></p></body></html>"#;
        let doc = read(page, "https://x.example/");
        assert_eq!(doc.title, "Plain");
        assert_eq!(doc.published.as_deref(), Some("2023-05-06T00:00:00Z"));
        let undated = read(
            "<title>T</title><p>no date here, really</p>",
            "https://x.example/",
        );
        assert_eq!(undated.published, None);
        assert_eq!(undated.title, "T");
    }
}
