//! What a page says about itself, read in order of reliability: Open
//! Graph and `article:*` properties (<https://ogp.me/>), schema.org
//! JSON-LD (`Article`/`NewsArticle`/`BlogPosting`/`WebPage`: `headline`,
//! `author`, `datePublished`, `publisher`), classic `<meta name=…>` tags,
//! microdata, then the markup itself (`<title>`, `<h1>`, `<time
//! datetime>`, `rel=author`, `.byline`). The publication time follows
//! Mozilla Readability's order (JSON-LD first) and goes further; see
//! [`super::published`].

use crate::date;
use crate::html::{Document, NodeId, meta, text};
use serde_json::Value;

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

/// The JSON-LD object describing the page's article, if any.
pub(super) fn article_ld(objects: &[Value]) -> Option<Value> {
    // Prefer a real article type over a generic WebPage.
    ARTICLE_TYPES
        .iter()
        .find_map(|ty| objects.iter().find(|o| meta::has_type(o, ty)).cloned())
}

pub(super) fn title(doc: &Document, ld: Option<&Value>) -> Option<String> {
    let visible = doc
        .find("title")
        .map(|t| doc.text(t))
        .filter(|t| !t.trim().is_empty())
        .or_else(|| doc.find("h1").map(|h| doc.text(h)));
    // A JSON-LD `headline` is sometimes a category ("Wikimedia list
    // article"), not the page's title: it counts only when half its
    // words are in the visible title (or there is none).
    let agrees = |candidate: &String| visible.as_deref().is_none_or(|v| shares_word(candidate, v));
    let from_ld = |key: &str| {
        ld.and_then(|l| l.get(key))
            .and_then(meta::ld_text)
            .filter(agrees)
    };
    let found = meta::meta_content(doc, &["og:title", "twitter:title"])
        .or_else(|| from_ld("headline"))
        .or_else(|| from_ld("name"))
        .or(visible)?;
    let t = text::collapse_whitespace(&found);
    (!t.is_empty()).then_some(t)
}

/// True when at least half the words of `a` (three letters or more,
/// case-insensitive) are in `b`: "Wikimedia list article" shares only
/// "list" with "List of whale strandings - Wikipedia".
fn shares_word(a: &str, b: &str) -> bool {
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= 3)
            .map(str::to_lowercase)
            .collect()
    };
    let (a, b) = (words(a), words(b));
    let shared = a.iter().filter(|w| b.contains(w)).count();
    !a.is_empty() && shared * 2 >= a.len()
}

/// See [`super::published`].
pub(super) fn published(doc: &Document, objects: &[Value], ld: Option<&Value>) -> Option<String> {
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
            let page: Value = serde_json::from_str(&page).ok()?;
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

pub(super) fn author(doc: &Document, ld: Option<&Value>) -> Option<String> {
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

pub(super) fn lang(doc: &Document) -> Option<String> {
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
