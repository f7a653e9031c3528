//! Records: one per thing found, built from a search hit and, when its page
//! was read, from the fetched document.
//!
//! Dates follow one rule. A fetched page's date is the page's own
//! (`Document.published`, read from JSON-LD, `article:published_time`,
//! `<time>` …), `date_source` `page`. A hit's own `published` is used only
//! when the page was not fetched *and* the hit is the content itself (a
//! social post, a community discussion): `date_source` `post`. A link
//! to an article never takes the date of the post that linked it, and
//! nothing is ever dated "now": otherwise `date_source` is `none`.

use crate::canon;
use crate::dates;
use webrig_workflow_sdk::types::{Document, Hit};

/// What a record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A destination page (article, post on a site) a search pointed at.
    Page,
    /// A community discussion (Ask HN, a Reddit self post): the hit is it.
    Discussion,
    /// A social post: the hit is it.
    Post,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Page => "page",
            Kind::Discussion => "discussion",
            Kind::Post => "post",
        }
    }
}

/// Where a record's date came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DateSource {
    Page,
    Post,
    None,
}

impl DateSource {
    pub fn name(self) -> &'static str {
        match self {
            DateSource::Page => "page",
            DateSource::Post => "post",
            DateSource::None => "none",
        }
    }

    /// How far the date can be trusted: the page's own date most, the
    /// date a post was made (an honest date of that post) less, none least.
    pub fn confidence(self) -> &'static str {
        match self {
            DateSource::Page => "high",
            DateSource::Post => "medium",
            DateSource::None => "low",
        }
    }
}

/// One thing found.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The URL found (a fetched page's final URL).
    pub url: String,
    /// Dedupe key from the URL: see [`canon::url_key`].
    pub key: String,
    pub title: String,
    /// The page's readable text when fetched, else empty.
    pub text: String,
    /// The search hit's snippet.
    pub snippet: String,
    pub description: Option<String>,
    /// The page's `og:site_name` (or JSON-LD `publisher`), as given.
    pub site_name: Option<String>,
    /// The article's author: the page's byline, or the poster of a post
    /// or discussion that is the content itself — never the person who
    /// submitted a link to HN or Reddit.
    pub author: Option<String>,
    /// The host a record counts for: see [`canon::domain`].
    pub domain: String,
    /// The search engine's display URL, when it gave one.
    pub display_url: Option<String>,
    /// web, community or social (of the first hit).
    pub source: String,
    /// Providers that found it, sorted.
    pub providers: Vec<String>,
    pub kind: Kind,
    pub fetched: bool,
    /// RFC 3339.
    pub published: Option<String>,
    pub date_source: DateSource,
    /// Points/score and favourites/boosts, summed over the hits.
    pub score: i64,
    /// Comments and replies, summed over the hits.
    pub comments: i64,
    /// How many hits pointed at it.
    pub mentions: u32,
    /// Other URLs merged into it.
    pub also_at: Vec<String>,
    /// Order first seen, for stable ties.
    pub order: usize,
    /// Best position in a provider's answer (0 = first).
    pub position: usize,
}

fn extra<'a>(hit: &'a Hit, key: &str) -> Option<&'a str> {
    hit.item
        .extra
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

fn extra_num(hit: &Hit, keys: &[&str]) -> i64 {
    keys.iter()
        .filter_map(|k| extra(hit, k)?.trim().parse::<i64>().ok())
        .map(|n| n.max(0))
        .sum()
}

/// True when the hit is the content itself (a social post, a discussion
/// page) rather than a link to a page elsewhere.
pub fn is_content_itself(hit: &Hit) -> bool {
    hit.source == "social" || extra(hit, "discussion_url").is_some_and(|d| d == hit.item.url)
}

/// The record for one search hit (not fetched yet): `order` is its place
/// among all hits, `position` its place in its provider's answer.
pub fn from_hit(hit: &Hit, order: usize, position: usize) -> Record {
    let itself = is_content_itself(hit);
    let kind = match (itself, hit.source.as_str()) {
        (true, "social") => Kind::Post,
        (true, _) => Kind::Discussion,
        _ => Kind::Page,
    };
    let published = if itself {
        hit.item.published.as_deref().and_then(valid_date)
    } else {
        None
    };
    let date_source = if published.is_some() {
        DateSource::Post
    } else {
        DateSource::None
    };
    // A link's submitter is not the linked article's author.
    let poster = extra(hit, "author").map(str::to_string);
    let author = if itself { poster.clone() } else { None };
    let display_url = extra(hit, "display_url").map(str::to_string);
    let url = hit.item.url.clone();
    Record {
        key: canon::url_key(&url),
        domain: canon::domain(&url, display_url.as_deref(), poster.as_deref()),
        display_url,
        url,
        title: canon::strip_site_suffix(hit.item.title.trim()).to_string(),
        text: String::new(),
        snippet: hit.item.snippet.trim().to_string(),
        description: None,
        site_name: None,
        author,
        source: hit.source.clone(),
        providers: vec![hit.provider.clone()],
        kind,
        fetched: false,
        published,
        date_source,
        score: extra_num(hit, &["score", "favourites", "reblogs"]),
        comments: extra_num(hit, &["comments", "replies"]),
        mentions: 1,
        also_at: Vec::new(),
        order,
        position,
    }
}

/// A date string as RFC 3339, or `None` when it cannot be read.
fn valid_date(s: &str) -> Option<String> {
    dates::unix_secs(s)?;
    webrig_workflow_sdk::kit::date::normalize(s)
}

fn meta<'a>(doc: &'a Document, key: &str) -> Option<&'a str> {
    doc.metadata
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.trim())
        .filter(|v| !v.is_empty())
}

/// Fills a record from its fetched page. The date becomes the page's own
/// (or none): the hit's date never survives a fetch.
pub fn apply_document(rec: &mut Record, doc: &Document) {
    rec.fetched = true;
    if !doc.url.trim().is_empty() && doc.url != rec.url {
        if !rec.also_at.contains(&rec.url) {
            rec.also_at.push(rec.url.clone());
        }
        rec.url = doc.url.clone();
        rec.domain = canon::domain(&rec.url, rec.display_url.as_deref(), None);
    }
    rec.site_name = meta(doc, "site_name").map(str::to_string);
    rec.title = page_title(
        doc.title.trim(),
        &rec.title,
        rec.site_name.as_deref(),
        &rec.domain,
    );
    rec.text = doc.text.trim().to_string();
    rec.description = meta(doc, "description").map(str::to_string);
    if let Some(a) = meta(doc, "author") {
        rec.author = Some(a.to_string());
    }
    rec.published = doc.published.as_deref().and_then(valid_date);
    rec.date_source = if rec.published.is_some() {
        DateSource::Page
    } else {
        DateSource::None
    };
    let canonical = meta(doc, "canonical")
        .filter(|c| c.starts_with("http://") || c.starts_with("https://"))
        .unwrap_or(&rec.url);
    rec.key = canon::url_key(canonical);
}

/// The title a read page is reported under: the page's own (its
/// `og:title`, else `<title>`, as the provider read it), site suffix
/// dropped — unless fewer than half its words are in the search hit's
/// title and it is no shell: then it is a category or a section name
/// ("Wikimedia list article"), and the hit's title, which a reader
/// clicked, stands.
fn page_title(page: &str, hit: &str, site: Option<&str>, host: &str) -> String {
    let sites: Vec<&str> = site.into_iter().chain([host]).collect();
    let page = canon::strip_site_suffix_of(page, &sites).trim();
    if page.is_empty() {
        return hit.to_string();
    }
    let words = |t: &str| -> std::collections::BTreeSet<String> {
        crate::terms::words(t)
            .filter(|w| w.chars().count() >= 3)
            .map(|w| crate::terms::stem(&w))
            .collect()
    };
    let page_words = words(page);
    let shared = page_words.intersection(&words(hit)).count();
    let shares = shared * 2 >= page_words.len();
    let shell = crate::shells::detect("", page, "", false).is_some();
    if shares || shell || words(hit).is_empty() {
        page.to_string()
    } else {
        hit.to_string()
    }
}

impl Record {
    /// Characters of text: the page's, else the snippet's.
    pub fn text_chars(&self) -> usize {
        self.body().chars().count()
    }

    /// The best text there is: the page's, else the snippet.
    pub fn body(&self) -> &str {
        if self.text.is_empty() {
            &self.snippet
        } else {
            &self.text
        }
    }

    /// Whole days between the date and `now` (negative when dated after it).
    pub fn age_days(&self, now: i64) -> Option<i64> {
        let t = dates::unix_secs(self.published.as_deref()?)?;
        Some((now - t).div_euclid(dates::DAY))
    }

    /// The day of the date, in the page's own offset.
    pub fn day(&self) -> Option<i64> {
        dates::local_day(self.published.as_deref()?)
    }

    /// Who published it, by name: the site name (tagline dropped), else
    /// the host.
    pub fn publisher(&self) -> String {
        self.site_name
            .as_deref()
            .map(canon::publisher_name)
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| self.domain.clone())
    }

    /// How much a copy of the same thing holds: text, plus a bonus for a
    /// date, so an undated stub never replaces a dated article.
    pub fn richness(&self) -> (usize, bool) {
        let dated = if self.published.is_some() { 500 } else { 0 };
        (self.text_chars() + dated, self.fetched)
    }

    /// Merges a duplicate into this record: mentions, providers and
    /// engagement add up; the duplicate's URL is remembered.
    pub fn absorb(&mut self, other: Record) {
        self.mentions += other.mentions;
        self.score += other.score;
        self.comments += other.comments;
        self.order = self.order.min(other.order);
        self.position = self.position.min(other.position);
        for p in other.providers {
            if !self.providers.contains(&p) {
                self.providers.push(p);
            }
        }
        self.providers.sort();
        for u in std::iter::once(other.url).chain(other.also_at) {
            if u != self.url && !self.also_at.contains(&u) {
                self.also_at.push(u);
            }
        }
        if self.snippet.is_empty() {
            self.snippet = other.snippet;
        }
        if self.display_url.is_none() && other.display_url.is_some() {
            self.display_url = other.display_url;
            self.domain = canon::domain(&self.url, self.display_url.as_deref(), None);
        }
    }
}
