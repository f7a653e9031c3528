//! A page as a reader sees it: its main text (after Mozilla's
//! Readability, <https://github.com/mozilla/readability>) and what it says
//! about itself (title, publication time, author, description, …).
//!
//! ```
//! use webrig_kit::{html::Document, readable};
//!
//! let page = r#"<html lang="en"><head><title>Hello</title>
//!   <meta property="article:published_time" content="2024-05-06T07:08:09Z">
//!   </head><body><nav><a href="/">Home</a></nav>
//!   <article><p>The story, with enough words, commas, and clauses to count.</p></article>
//!   </body></html>"#;
//! let r = readable::extract(&Document::parse(page), "https://example.com/a");
//! assert_eq!(r.title, "Hello");
//! assert_eq!(r.published.as_deref(), Some("2024-05-06T07:08:09Z"));
//! assert_eq!(r.lang.as_deref(), Some("en"));
//! assert!(r.text.starts_with("The story") && !r.text.contains("Home"));
//! ```
//!
//! [`extract`] reads everything; [`main_text`] is the text alone (the
//! expensive part). Both take a parsed [`Document`], so a caller that also
//! scrapes the page parses it once.

mod content;
mod metadata;

use crate::html::{Document, meta, text};
use crate::{date, url};

pub use content::main_text;

/// What [`extract`] found. Every string is whitespace-collapsed; an
/// `Option` is `None` when the page does not say (or says only blanks).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Readable {
    /// `og:title`/`twitter:title`, else JSON-LD `headline`/`name` when
    /// half its words are in the visible title (a category such as
    /// "Wikimedia list article" is not), else `<title>`, else the first
    /// `<h1>`, else the text's first 80 characters.
    pub title: String,
    /// The main text ([`main_text`]): paragraphs separated by blank lines.
    pub text: String,
    /// Publication time as RFC 3339 (see [`published`] for where from).
    pub published: Option<String>,
    /// `<meta name=author>` (and `article:author`, `byl`, `dc.creator`)
    /// unless it is a URL, else JSON-LD `author`, else `rel=author`,
    /// `itemprop=author`, `.byline` or `.author` text; a leading "By " is
    /// dropped.
    pub author: Option<String>,
    /// `og:description`, `description`, `twitter:description`, else
    /// JSON-LD `description`.
    pub description: Option<String>,
    /// `og:site_name`, `application-name`, else JSON-LD `publisher`.
    pub site_name: Option<String>,
    /// `<html lang>`, `og:locale` or `Content-Language`.
    pub lang: Option<String>,
    /// `<link rel=canonical>` or `og:url`, resolved against the page URL.
    pub canonical: Option<String>,
    /// Last modification time as RFC 3339 (`article:modified_time`,
    /// `og:updated_time`, `dateModified`).
    pub modified: Option<String>,
}

impl Readable {
    /// The optional fields that are set, as `(key, value)` pairs named as
    /// the fields are, in the order `author`, `description`, `site_name`,
    /// `lang`, `canonical`, `modified` (the WIT `document.metadata` shape;
    /// `published` has its own WIT field and is not repeated).
    pub fn metadata(&self) -> Vec<(String, String)> {
        [
            ("author", &self.author),
            ("description", &self.description),
            ("site_name", &self.site_name),
            ("lang", &self.lang),
            ("canonical", &self.canonical),
            ("modified", &self.modified),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.clone().map(|v| (k.to_string(), v)))
        .collect()
    }
}

/// Reads the page `doc` fetched from `page_url` (the final URL, after
/// redirects; relative canonical links resolve against it).
pub fn extract(doc: &Document, page_url: &str) -> Readable {
    let objects = meta::json_ld_objects(doc);
    let ld = metadata::article_ld(&objects);
    let ld = ld.as_ref();
    let body = main_text(doc);
    let title = metadata::title(doc, ld).unwrap_or_else(|| text::truncate(&body, 80));
    let published = metadata::published(doc, &objects, ld);
    let clean = |value: Option<String>| {
        value
            .map(|v| text::collapse_whitespace(&v))
            .filter(|v| !v.is_empty())
    };
    let ld_field = |key: &str| ld.and_then(|l| l.get(key)).and_then(meta::ld_text);
    Readable {
        author: clean(metadata::author(doc, ld)),
        description: clean(
            meta::meta_content(
                doc,
                &["og:description", "description", "twitter:description"],
            )
            .or_else(|| ld_field("description")),
        ),
        site_name: clean(
            meta::meta_content(doc, &["og:site_name", "application-name"])
                .or_else(|| ld_field("publisher")),
        ),
        lang: clean(metadata::lang(doc)),
        canonical: clean(
            meta::link_href(doc, "canonical")
                .or_else(|| meta::meta_content(doc, &["og:url"]))
                .and_then(|href| url::resolve(page_url, &href)),
        ),
        modified: clean(
            meta::meta_content(
                doc,
                &["article:modified_time", "og:updated_time", "dateModified"],
            )
            .or_else(|| ld_field("dateModified"))
            .and_then(|d| date::normalize(&d)),
        ),
        title,
        text: body,
        published,
    }
}

/// When the page was published, as RFC 3339, from the most reliable
/// place that says:
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
/// skipped. Cheaper than [`extract`] when only the date is wanted.
pub fn published(doc: &Document) -> Option<String> {
    let objects = meta::json_ld_objects(doc);
    let ld = metadata::article_ld(&objects);
    metadata::published(doc, &objects, ld.as_ref())
}

#[cfg(test)]
mod tests;
