//! What a fetched page says about itself, read in order of reliability:
//! Open Graph and `article:*` properties (<https://ogp.me/>), schema.org
//! JSON-LD (`Article`/`NewsArticle`/`BlogPosting`/`WebPage`:
//! `headline`, `author`, `datePublished`, `publisher`), classic `<meta
//! name=…>` tags, microdata, then the markup itself (`<title>`, `<h1>`,
//! `<time datetime>`, `rel=author`, `.byline`). The publication time
//! follows Mozilla Readability's order (JSON-LD first) and goes further;
//! see [`published`]. The main text comes from
//! [`readability`](crate::readability).

use crate::readability;
use webrig_plugin_sdk::html::{Document, NodeId, meta, text};
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
    let objects = meta::json_ld_objects(&doc);
    let ld = article_ld(&objects);
    let body = readability::extract(&doc);
    let title = title(&doc, ld.as_ref()).unwrap_or_else(|| text::truncate(&body, 80));
    let published = published(&doc, &objects, ld.as_ref());
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
fn article_ld(objects: &[Value]) -> Option<Value> {
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

/// When the page was published, from the most reliable place that says:
///
/// 1. JSON-LD `datePublished` of the page's article object (as Mozilla
///    Readability reads it first), then of any other object describing
///    the page's content (`@graph` members, arrays, `@type` lists);
/// 2. `<meta>` that name a publication time: Readability's
///    `article:published_time` and `parsely-pub-date`, then
///    `og:published_time`, `datePublished`, `pubdate`, `publishdate`,
///    `sailthru.date`, Dublin Core `issued`/`created`,
///    `weibo:article:create_at`, … and Parse.ly's `parsely-page` JSON;
/// 3. microdata `itemprop="datePublished"` (`<time>`, `<meta>`, any
///    element), unless it belongs to a comment, review or the like;
/// 4. JSON-LD `dateCreated`, then `uploadDate` (videos);
/// 5. generic `<meta name="date">`, `dc.date`, `dcterms.date`, and
///    microdata `dateCreated`;
/// 6. `<time>`: `pubdate` ones, then ones classed as the publication
///    date, then the first other one — never one marked as modified or
///    inside comments, `<aside>` or `<nav>`.
///
/// Modified dates are never read here (a page with only those gets
/// `None`); dates without a zone are kept as written and marked UTC (see
/// [`date::normalize`]); placeholders (the Unix epoch, year < 1000) are
/// skipped.
fn published(doc: &Document, objects: &[Value], ld: Option<&Value>) -> Option<String> {
    let ld_dated: Vec<&Value> = ld
        .into_iter()
        .chain(objects.iter().filter(|o| {
            Some(*o) != ld
                && ARTICLE_TYPES
                    .iter()
                    .chain(DATED_TYPES)
                    .any(|t| meta::has_type(o, t))
        }))
        .collect();
    let from_ld = |key: &str| {
        ld_dated
            .iter()
            .filter_map(|o| o.get(key))
            .filter_map(meta::ld_text)
            .find_map(|d| plausible(&d))
    };
    from_ld("datePublished")
        .or_else(|| meta_date(doc, PUBLISHED_META))
        .or_else(|| {
            let page = meta::meta_named(doc, &["parsely-page"])?;
            let page: Value = webrig_plugin_sdk::serde_json::from_str(&page).ok()?;
            page.get("pub_date")
                .and_then(meta::ld_text)
                .and_then(|d| plausible(&d))
        })
        .or_else(|| microdata_date(doc, "datePublished"))
        .or_else(|| from_ld("dateCreated"))
        .or_else(|| from_ld("uploadDate"))
        .or_else(|| meta_date(doc, GENERIC_DATE_META))
        .or_else(|| microdata_date(doc, "dateCreated"))
        .or_else(|| time_element_date(doc))
}

/// `<meta>` names and properties that say when the page was published,
/// most specific first.
const PUBLISHED_META: &[&str] = &[
    "article:published_time",
    "parsely-pub-date",
    "article:published",
    "og:published_time",
    "og:article:published_time",
    "published_time",
    "datePublished",
    "date_published",
    "published-date",
    "published_date",
    "publish-date",
    "publish_date",
    "publishdate",
    "pubdate",
    "publication_date",
    "publication-date",
    "sailthru.date",
    "dcterms.issued",
    "dc.date.issued",
    "dc.issued",
    "citation_publication_date",
    "citation_date",
    "weibo:article:create_at",
    "dcterms.created",
    "dc.date.created",
    "published_at",
];

/// `<meta>` dates that do not say which date they are.
const GENERIC_DATE_META: &[&str] = &["date", "dc.date", "dcterms.date", "dc:date"];

/// JSON-LD types whose dates may date the page, besides [`ARTICLE_TYPES`]
/// (never `Comment`, `Review`, `Person`, `ImageObject`, `WebSite`, …).
const DATED_TYPES: &[&str] = &[
    "AdvertiserContentArticle",
    "AskPublicNewsArticle",
    "BackgroundNewsArticle",
    "ReviewNewsArticle",
    "SatiricalArticle",
    "MedicalScholarlyArticle",
    "SocialMediaPosting",
    "DiscussionForumPosting",
    "APIReference",
    "ItemPage",
    "QAPage",
    "VideoObject",
    "PodcastEpisode",
    "Recipe",
];

/// Microdata items whose dates are not the page's.
const UNDATED_ITEMS: &[&str] = &[
    "Comment",
    "UserComments",
    "Answer",
    "Review",
    "Rating",
    "Person",
    "Organization",
    "ImageObject",
    "Offer",
    "Event",
];

/// The first `<meta>` of `keys` (in that order) holding a readable date:
/// an unreadable one does not hide the next.
fn meta_date(doc: &Document, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| meta::meta_named(doc, &[k]).and_then(|d| plausible(&d)))
}

/// A date as RFC 3339 unless it is unreadable or a placeholder.
fn plausible(raw: &str) -> Option<String> {
    let d = date::normalize_lenient(raw)?;
    let placeholder = d.starts_with('0') || date::unix_millis(&d) == Some(0);
    (!placeholder).then_some(d)
}

/// True when `id` sits where dates are not the page's: inside comments,
/// an `<aside>` or a `<nav>`.
fn off_page(doc: &Document, id: NodeId) -> bool {
    std::iter::once(id).chain(doc.ancestors(id)).any(|a| {
        if doc.is(a, "aside") || doc.is(a, "nav") {
            return true;
        }
        let id_attr = doc.attr(a, "id").unwrap_or("");
        let classes = doc.attr(a, "class").unwrap_or("");
        std::iter::once(id_attr)
            .chain(classes.split_ascii_whitespace())
            .any(is_comment_marker)
    })
}

/// `comments`, `comment-list`, `commentlist`, `comment-123`, `reply`, …
/// but not `comments-open` or `no-comments` (classes WordPress puts on
/// the article itself).
fn is_comment_marker(token: &str) -> bool {
    let t = token.to_ascii_lowercase();
    let t = t.as_str();
    matches!(
        t,
        "comment"
            | "comments"
            | "commentlist"
            | "comment-list"
            | "comments-list"
            | "comments-area"
            | "comment-body"
            | "comment-content"
            | "comment-meta"
            | "comment-metadata"
            | "comment-respond"
            | "comment-thread"
            | "comments-section"
            | "reply"
            | "replies"
    ) || t
        .strip_prefix("comment-")
        .or_else(|| t.strip_prefix("comment_"))
        .or_else(|| t.strip_prefix("li-comment-"))
        .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|c| c.is_ascii_digit()))
}

/// The first microdata `prop` date that belongs to the page.
fn microdata_date(doc: &Document, prop: &str) -> Option<String> {
    meta::itemprop_values(doc, prop)
        .into_iter()
        .filter(|&(e, _)| {
            let item = meta::item_type(doc, e).unwrap_or("");
            !off_page(doc, e)
                && !UNDATED_ITEMS.iter().any(|t| {
                    item.split_ascii_whitespace()
                        .any(|it| it.rsplit(['/', ':', '#']).next() == Some(*t))
                })
        })
        .find_map(|(_, d)| plausible(&d))
}

/// A `<time>` date: `pubdate` first, then one whose class says
/// "published", then the first other one; modified ones never.
fn time_element_date(doc: &Document) -> Option<String> {
    let token_has = |e: NodeId, attr: &str, words: &[&str]| {
        doc.attr(e, attr).is_some_and(|v| {
            let v = v.to_ascii_lowercase();
            words.iter().any(|w| v.contains(w))
        })
    };
    let published_class = ["publish", "posted", "entry-date", "pubdate", "created"];
    let times: Vec<NodeId> = doc
        .find_all("time")
        .filter(|&t| {
            let modified = ["modified", "updated", "edited"];
            let is_modified = token_has(t, "itemprop", &modified)
                || (token_has(t, "class", &modified) && !token_has(t, "class", &published_class));
            !is_modified && !off_page(doc, t)
        })
        .collect();
    let value = |t: NodeId| match doc.attr(t, "datetime") {
        Some(d) => plausible(d),
        None => plausible(&doc.text(t)),
    };
    let pubdate = times.iter().filter(|&&t| doc.attr(t, "pubdate").is_some());
    let classed = times
        .iter()
        .filter(|&&t| token_has(t, "class", &published_class));
    pubdate
        .chain(classed)
        .chain(times.iter())
        .find_map(|&t| value(t))
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
        // JSON-LD `datePublished` first, as Readability reads it; the
        // page's `article:published_time` (09:15+01:00) is the same instant.
        assert_eq!(doc.published.as_deref(), Some("2024-10-28T08:15:00Z"));
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

    fn published_of(page: &str) -> Option<String> {
        read(page, "https://x.example/a").published
    }

    fn ld(json: &str) -> String {
        format!(r#"<script type="application/ld+json">{json}</script>"#)
    }

    #[test]
    fn json_ld_graph_skips_comments_and_sites() {
        let page = ld(r#"{"@context":"https://schema.org","@graph":[
            {"@type":"WebSite","name":"S","datePublished":"2010-01-01"},
            {"@type":"Comment","datePublished":"2021-06-02T10:00:00Z"},
            {"@type":["Article","BlogPosting"],"headline":"H","dateModified":"2021-06-03","datePublished":"2021-06-01T08:30:00+02:00"}]}"#);
        assert_eq!(
            published_of(&page).as_deref(),
            Some("2021-06-01T08:30:00+02:00")
        );
    }

    #[test]
    fn json_ld_arrays_and_type_lists() {
        // A top-level array; the article's `@type` is a list naming a type
        // outside ARTICLE_TYPES first; the date is an `@value` object.
        let page = ld(r#"[{"@type":"BreadcrumbList","itemListElement":[]},
            {"@type":["CreativeWork","SocialMediaPosting"],"datePublished":{"@value":"2020-02-29 23:00"}}]"#);
        assert_eq!(published_of(&page).as_deref(), Some("2020-02-29T23:00:00Z"));
        // CDATA-wrapped, as Wikipedia writes it.
        let page = ld(
            "<![CDATA[\n{\"@context\":\"https://schema.org\",\"@type\":\"Article\",\"datePublished\":\"2001-10-29T01:59:14Z\"}\n]]>",
        );
        assert_eq!(published_of(&page).as_deref(), Some("2001-10-29T01:59:14Z"));
    }

    #[test]
    fn json_ld_date_published_beats_meta_and_created_is_a_fallback() {
        let page = format!(
            r#"<meta property="article:published_time" content="2017-11-03T03:01:00-04:00">{}"#,
            ld(
                r#"{"@type":"NewsArticle","datePublished":"2017-11-03 03:01:00.000000","dateCreated":"2017-11-01"}"#
            )
        );
        assert_eq!(
            published_of(&page).as_deref(),
            Some("2017-11-03T03:01:00.000000Z")
        );
        let created = ld(
            r#"{"@type":"Article","dateCreated":"2019-10-18T17:23:34.816Z","dateModified":"2019-10-19"}"#,
        );
        assert_eq!(
            published_of(&created).as_deref(),
            Some("2019-10-18T17:23:34.816Z")
        );
        // An unreadable `<meta>` does not hide the next one.
        let page = r#"<meta name="publishdate" content="05/29/2007 09:49:00"><meta name="DC.date.issued" content="2007-05-29">"#;
        assert_eq!(published_of(page).as_deref(), Some("2007-05-29T00:00:00Z"));
        // An unreadable or placeholder `datePublished` falls through.
        let page = format!(
            r#"<meta name="pubdate" content="2014-12-15">{}"#,
            ld(r#"{"@type":"Article","datePublished":"soon"}"#)
        );
        assert_eq!(published_of(&page).as_deref(), Some("2014-12-15T00:00:00Z"));
        let epoch = ld(r#"{"@type":"Article","datePublished":"1970-01-01T00:00:00Z"}"#);
        assert_eq!(published_of(&epoch), None);
    }

    #[test]
    fn json_ld_video_upload_date() {
        let page = ld(
            r#"{"@context":"https://schema.org","@type":"VideoObject","name":"V","uploadDate":"2022-04-05T06:07:08-07:00"}"#,
        );
        assert_eq!(
            published_of(&page).as_deref(),
            Some("2022-04-05T06:07:08-07:00")
        );
    }

    #[test]
    fn each_publication_meta_is_read() {
        for (tag, want) in [
            (
                r#"<meta property="article:published_time" content="2015-03-17T16:27:40.294Z">"#,
                "2015-03-17T16:27:40.294Z",
            ),
            (
                r#"<meta property="og:type article:published_time" content="2015-03-17">"#,
                "2015-03-17T00:00:00Z",
            ),
            (
                r#"<meta name="parsely-pub-date" content="2016-01-02T03:04:05Z">"#,
                "2016-01-02T03:04:05Z",
            ),
            (
                r#"<meta property="og:published_time" content="2016-01-02T03:04:05+09:00">"#,
                "2016-01-02T03:04:05+09:00",
            ),
            (
                r#"<meta property="article:published" itemprop="datePublished" content="2019-02-21T08:00:08.000Z">"#,
                "2019-02-21T08:00:08.000Z",
            ),
            (
                r#"<meta name="datePublished" content="2018-07-08">"#,
                "2018-07-08T00:00:00Z",
            ),
            (
                r#"<meta name="pubdate" content="2018-07-08T10:00">"#,
                "2018-07-08T10:00:00Z",
            ),
            (
                r#"<meta name="publishdate" content="2018-07-08">"#,
                "2018-07-08T00:00:00Z",
            ),
            (
                r#"<meta name="sailthru.date" content="Tue, 07 Feb 2017 10:00:00 -0500">"#,
                "2017-02-07T10:00:00-05:00",
            ),
            (
                r#"<meta name="DC.date.issued" content="2016-02-01T01:28:49">"#,
                "2016-02-01T01:28:49Z",
            ),
            (
                r#"<meta name="dcterms.created" content="2014-12-15">"#,
                "2014-12-15T00:00:00Z",
            ),
            (
                r#"<meta name="citation_publication_date" content="2014/12/15">"#,
                "2014-12-15T00:00:00Z",
            ),
            (
                r#"<meta name="weibo:article:create_at" content="2017-01-01 12:00:00">"#,
                "2017-01-01T12:00:00Z",
            ),
            (
                r#"<meta name="date" content="2016-02-01 01:28:49">"#,
                "2016-02-01T01:28:49Z",
            ),
            (
                r#"<meta name="DC.date" content="2014-12-15">"#,
                "2014-12-15T00:00:00Z",
            ),
            (
                r#"<meta name="parsely-page" content="{&quot;pub_date&quot;:&quot;2015-04-16T20:02:01Z&quot;}">"#,
                "2015-04-16T20:02:01Z",
            ),
        ] {
            assert_eq!(published_of(tag).as_deref(), Some(want), "{tag}");
        }
    }

    #[test]
    fn specific_meta_beats_generic_date_meta() {
        let page = r#"<meta name="date" content="2020-01-01"><meta name="sailthru.date" content="2019-12-31 22:00">"#;
        assert_eq!(published_of(page).as_deref(), Some("2019-12-31T22:00:00Z"));
        // Microdata `datePublished` beats a generic `date` too.
        let page = r#"<meta name="date" content="2020-01-01"><span itemprop="datePublished" content="2019-05-05"></span>"#;
        assert_eq!(published_of(page).as_deref(), Some("2019-05-05T00:00:00Z"));
    }

    #[test]
    fn microdata_date_published_but_not_a_comments() {
        let page = r#"<article itemscope itemtype="http://schema.org/BlogPosting">
            <h1 itemprop="headline">Post</h1>
            <ol class="comment-list"><li><time itemprop="datePublished" datetime="2017-03-10T08:00:00Z">Mar 10</time></li></ol>
            <div itemprop="comment" itemscope itemtype="http://schema.org/Comment"><meta itemprop="datePublished" content="2017-03-11"></div>
            <time class="entry-published updated" datetime="2017-03-09T18:16:02-04:00" itemprop="datePublished">Mar 9</time>
            </article>"#;
        assert_eq!(
            published_of(page).as_deref(),
            Some("2017-03-09T18:16:02-04:00")
        );
        let nyt = r#"<time class="dateline" datetime="2017-01-13T03:38:38-05:00" itemprop="dateModified">Jan 13</time>
            <meta itemprop="datePublished" content="2017-01-13T00:00:04-05:00">"#;
        assert_eq!(
            published_of(nyt).as_deref(),
            Some("2017-01-13T00:00:04-05:00")
        );
        let created = r#"<span itemprop="dateCreated">12 May 2011</span>"#;
        assert_eq!(
            published_of(created).as_deref(),
            Some("2011-05-12T00:00:00Z")
        );
    }

    #[test]
    fn only_modified_and_comment_dates_give_none() {
        let page = format!(
            r#"<html><head><meta property="article:modified_time" content="2020-05-06T07:08:09Z">
            <meta property="og:updated_time" content="2020-05-06T07:08:09Z">{}</head>
            <body><article><h1>Title</h1><p>Text of the article, long enough.</p>
            <time class="updated" datetime="2020-05-06">May 6</time>
            <p>Last modified: <time itemprop="dateModified" datetime="2020-05-06">May 6</time></p></article>
            <section id="comments"><article class="comment"><time datetime="2020-05-07T10:00:00Z">May 7</time></article></section>
            <li id="comment-42"><span class="when"><time datetime="2020-05-08">May 8</time></span></li>
            <aside><time datetime="2020-04-01">Related, April 1</time></aside></body></html>"#,
            ld(
                r#"{"@type":"Article","headline":"Title","dateModified":"2020-05-06T07:08:09Z","comment":[{"@type":"Comment","datePublished":"2020-05-07T10:00:00Z"}]}"#
            )
        );
        let doc = read(&page, "https://x.example/a");
        assert_eq!(doc.published, None);
        assert_eq!(meta(&doc, "modified"), Some("2020-05-06T07:08:09Z"));
        // The same page with the publication date among them finds it.
        let dated = page.replace(
            "<h1>Title</h1>",
            r#"<h1>Title</h1><time datetime="2020-05-01T09:00:00+02:00">May 1</time>"#,
        );
        assert_eq!(
            published_of(&dated).as_deref(),
            Some("2020-05-01T09:00:00+02:00")
        );
    }

    #[test]
    fn time_elements_pubdate_then_classed_then_first() {
        let page = r#"<p><time datetime="2020-01-01">a</time><time class="entry-date published" datetime="2020-02-02">b</time><time pubdate datetime="2020-03-03">c</time></p>"#;
        assert_eq!(published_of(page).as_deref(), Some("2020-03-03T00:00:00Z"));
        let page = r#"<p><time datetime="2020-01-01">a</time><time class="post-published" datetime="2020-02-02">b</time></p>"#;
        assert_eq!(published_of(page).as_deref(), Some("2020-02-02T00:00:00Z"));
        // Without `datetime` the element's text is the date.
        let page = r#"<p>Posted <time>December 2, 2016 11:29 PM</time></p>"#;
        assert_eq!(published_of(page).as_deref(), Some("2016-12-02T23:29:00Z"));
    }

    /// Every page of Readability's test corpus (`tests/corpus`): where
    /// Readability found a publication time we must find the same instant;
    /// where it found none, what we find is printed, and fails only when
    /// it cannot be right (in the future, or before the web).
    #[test]
    fn corpus_publication_times() {
        let root = format!("{}/tests/corpus", env!("CARGO_MANIFEST_DIR"));
        let mut names: Vec<String> = std::fs::read_dir(&root)
            .unwrap_or_else(|e| panic!("{root}: {e}"))
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names.len(), 24, "{names:?}");
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64;
        // 1991-08-06, the first web page: nothing on the web is older.
        let web_born_ms = date::unix_millis("1991-08-06").unwrap();
        let (mut found, mut right, mut wrong, mut none) = (0, 0, 0, 0);
        let (mut dated, mut dated_right) = (0, 0);
        let mut failures = Vec::new();
        for name in &names {
            let dir = format!("{root}/{name}");
            let html = std::fs::read_to_string(format!("{dir}/source.html")).unwrap();
            let expected: Value = webrig_plugin_sdk::serde_json::from_str(
                &std::fs::read_to_string(format!("{dir}/expected-metadata.json")).unwrap(),
            )
            .unwrap();
            let want = expected["publishedTime"].as_str();
            let doc = read(&html, &format!("http://fakehost/test/{name}/"));
            let got = doc.published.as_deref();
            let got_ms = got.and_then(date::unix_millis);
            if got.is_some() {
                assert!(got_ms.is_some(), "{name}: {got:?} is not RFC 3339");
                found += 1;
            } else {
                none += 1;
            }
            let verdict = match (want, got_ms) {
                (Some(w), _) => {
                    dated += 1;
                    let want_ms = date::unix_millis(w)
                        .unwrap_or_else(|| panic!("{name}: expected {w:?} unreadable"));
                    if got_ms == Some(want_ms) {
                        dated_right += 1;
                        right += 1;
                        "right"
                    } else {
                        failures.push(format!("{name}: want {w}, got {got:?}"));
                        if got.is_some() {
                            wrong += 1;
                        }
                        "WRONG"
                    }
                }
                (None, Some(ms)) if ms > now_ms || ms < web_born_ms => {
                    wrong += 1;
                    failures.push(format!("{name}: {got:?} cannot be a publication time"));
                    "WRONG"
                }
                (None, Some(_)) => "extra (Readability: none)",
                (None, None) => "none (Readability: none)",
            };
            println!("{name:<20} want {want:<34?} got {got:<38?} {verdict}");
        }
        println!(
            "tally: {} pages, found {found}, right {right}, wrong {wrong}, none {none}; \
             Readability-dated pages right {dated_right}/{dated}",
            names.len()
        );
        assert!(failures.is_empty(), "{failures:#?}");
    }
}
