//! A fetched page as a WIT document, read by the kit's [`readable`]: the
//! main text after Mozilla's Readability, and what the page says about
//! itself (Open Graph and `article:*` properties, <https://ogp.me/>;
//! schema.org JSON-LD `Article`/`NewsArticle`/`BlogPosting`/`WebPage`;
//! classic `<meta name=…>` tags; microdata; `<title>`, `<h1>`, `<time
//! datetime>`, `rel=author`, `.byline`). The tests here pin that
//! behaviour on the article fixtures and Readability's test corpus
//! (`tests/corpus`).

use webrig_provider_sdk::html::{Document, product, readable};
use webrig_provider_sdk::types;

/// The page as a WIT document: main text, title, published date and the
/// metadata keys `author`, `description`, `site_name`, `lang`,
/// `canonical`, `modified` (each only when the page says).
///
/// A product page (schema.org `Product` data) also gets the kit's product
/// facts (`price`, `images`, `seller`, `shipping`, `feature`, `spec:*`,
/// …; [`product::Product::metadata`]), the keys the shopping provider
/// gives, so a workflow reads the same product whichever provider served
/// the page.
pub fn read(page: &str, final_url: &str) -> types::Document {
    let doc = Document::parse(page);
    let r = readable::extract(&doc, final_url);
    let mut metadata = r.metadata();
    if let Some(p) = product::read(&doc, final_url) {
        metadata.extend(p.metadata());
    }
    types::Document {
        url: final_url.to_string(),
        title: r.title,
        text: r.text,
        published: r.published,
        metadata,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use webrig_provider_sdk::date;
    use webrig_provider_sdk::serde_json::Value;

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
            .expect("ok")
            .as_millis() as i64;
        // 1991-08-06, the first web page: nothing on the web is older.
        let web_born_ms = date::unix_millis("1991-08-06").expect("present");
        let (mut found, mut right, mut wrong, mut none) = (0, 0, 0, 0);
        let (mut dated, mut dated_right) = (0, 0);
        let mut failures = Vec::new();
        for name in &names {
            let dir = format!("{root}/{name}");
            let html = std::fs::read_to_string(format!("{dir}/source.html")).expect("ok");
            let expected: Value = webrig_provider_sdk::serde_json::from_str(
                &std::fs::read_to_string(format!("{dir}/expected-metadata.json")).expect("ok"),
            )
            .expect("ok");
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
