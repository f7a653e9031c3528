//! Extraction quality: unit cases, metadata, and word-level
//! recall/precision against Readability's own test corpus.

use super::{Readable, extract, main_text, published};
use crate::html::Document;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn words(text: &str) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for w in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        *counts.entry(w.to_lowercase()).or_insert(0) += 1;
    }
    counts
}

/// (recall, precision) of `got`'s words against `want`'s, as multisets.
fn recall_precision(want: &str, got: &str) -> (f64, f64) {
    let (w, g) = (words(want), words(got));
    let common: usize = w
        .iter()
        .map(|(k, n)| (*n).min(g.get(k).copied().unwrap_or(0)))
        .sum();
    let total = |m: &HashMap<String, usize>| m.values().sum::<usize>().max(1) as f64;
    (common as f64 / total(&w), common as f64 / total(&g))
}

#[test]
fn keeps_article_drops_chrome() {
    let page = r#"<html><body>
        <nav><a href="/">Home</a> <a href="/news">News</a></nav>
        <div class="sidebar"><p>Popular: ten tricks, twenty tips, thirty ways to waste your time today.</p></div>
        <article><h1>Title</h1>
          <p>The first paragraph of the story is long enough to count, with commas, clauses, and detail.</p>
          <p>The second paragraph continues the story, adding more words, more commas, and more substance.</p>
          <div style="display:none">hidden tracking text that must not appear</div>
        </article>
        <footer>Copyright and legal links that are not content at all.</footer>
        </body></html>"#;
    let text = main_text(&Document::parse(page));
    assert!(text.contains("The first paragraph"), "{text}");
    assert!(text.contains("second paragraph"), "{text}");
    assert!(!text.contains("Popular"), "{text}");
    assert!(!text.contains("Copyright"), "{text}");
    assert!(!text.contains("hidden tracking"), "{text}");
    assert!(!text.contains("Home"), "{text}");
}

#[test]
fn empty_and_broken_pages_do_not_panic() {
    for page in [
        "",
        "<html>",
        "<body><p>",
        "<div><div><div>text",
        "<a href=x>",
    ] {
        let _ = main_text(&Document::parse(page));
    }
    let deep = format!(
        "{}{}",
        "<div>".repeat(5000),
        "deep text, with commas, enough to score"
    );
    let _ = main_text(&Document::parse(&deep));
}

/// `WEBRIG_READABILITY_CORPUS` (`cargo xtask test` sets it, and says when
/// there is none), else `shared/corpus/readability` beside the checkout.
fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("WEBRIG_READABILITY_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/readability")
        });
    dir.is_dir().then_some(dir)
}

fn read(path: &Path) -> Option<String> {
    std::fs::read(path)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// Mean word recall ≥ 0.85 and precision ≥ 0.7 over the corpus pages,
/// each page's expected text being Readability's `expected.html`.
#[test]
fn readability_corpus_recall_and_precision() {
    let Some(dir) = corpus_dir() else {
        eprintln!(
            "SKIPPED: no readability corpus (set WEBRIG_READABILITY_CORPUS, or put it at \
             shared/corpus/readability beside the checkout)"
        );
        return;
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus folder is listable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("source.html").is_file() && p.join("expected.html").is_file())
        .collect();
    entries.sort();
    let mut rows = Vec::new();
    for page in &entries {
        let (Some(source), Some(expected)) = (
            read(&page.join("source.html")),
            read(&page.join("expected.html")),
        ) else {
            continue;
        };
        let expected_doc = Document::parse(&expected);
        let want = expected_doc.text(expected_doc.root());
        let got = main_text(&Document::parse(&source));
        let (r, p) = recall_precision(&want, &got);
        let name = page
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let all = Document::parse(&source);
        let whole = all.text(all.root());
        eprintln!(
            "{name:<24} recall {r:.3} precision {p:.3}  (words: expected {}, extracted {}, whole page {})",
            words(&want).values().sum::<usize>(),
            words(&got).values().sum::<usize>(),
            words(&whole).values().sum::<usize>()
        );
        rows.push((r, p));
    }
    if rows.is_empty() {
        eprintln!("readability corpus is empty; skipping");
        return;
    }
    let n = rows.len() as f64;
    let recall = rows.iter().map(|r| r.0).sum::<f64>() / n;
    let precision = rows.iter().map(|r| r.1).sum::<f64>() / n;
    eprintln!(
        "{} pages: mean recall {recall:.3}, mean precision {precision:.3}",
        rows.len()
    );
    assert!(recall >= 0.85, "mean recall {recall:.3} < 0.85");
    assert!(precision >= 0.70, "mean precision {precision:.3} < 0.70");
}

#[test]
fn extract_reads_text_and_metadata() {
    let page = r#"<html lang="fr"><head>
        <title>  Fallback   title </title>
        <meta property="og:title" content="The  Title">
        <meta name="description" content=" What it is about. ">
        <meta property="og:site_name" content="Site">
        <meta name="author" content="By Ada Lovelace">
        <link rel="canonical" href="/story?id=1">
        <meta property="article:modified_time" content="2024-02-03T04:05:06+01:00">
        <script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2024-02-01T10:00:00Z"}</script>
        </head><body><article>
        <p>The first paragraph of the story is long enough to count, with commas, clauses, and detail.</p>
        </article></body></html>"#;
    let r = extract(&Document::parse(page), "https://example.com/news/a");
    assert_eq!(r.title, "The Title");
    assert!(r.text.starts_with("The first paragraph"), "{}", r.text);
    assert_eq!(r.published.as_deref(), Some("2024-02-01T10:00:00Z"));
    assert_eq!(r.author.as_deref(), Some("Ada Lovelace"));
    assert_eq!(r.description.as_deref(), Some("What it is about."));
    assert_eq!(r.site_name.as_deref(), Some("Site"));
    assert_eq!(r.lang.as_deref(), Some("fr"));
    assert_eq!(
        r.canonical.as_deref(),
        Some("https://example.com/story?id=1")
    );
    assert_eq!(r.modified.as_deref(), Some("2024-02-03T04:05:06+01:00"));
    let keys: Vec<String> = r.metadata().into_iter().map(|(k, _)| k).collect();
    assert_eq!(
        keys,
        [
            "author",
            "description",
            "site_name",
            "lang",
            "canonical",
            "modified"
        ]
    );
}

#[test]
fn extract_without_metadata_falls_back_to_text() {
    let r = extract(
        &Document::parse("<p>Only a paragraph of text, nothing else at all.</p>"),
        "https://example.com/",
    );
    assert_eq!(r.title, "Only a paragraph of text, nothing else at all.");
    assert_eq!(
        r,
        Readable {
            title: r.title.clone(),
            text: r.text.clone(),
            ..Readable::default()
        }
    );
    assert!(r.metadata().is_empty());
}

#[test]
fn published_alone() {
    let doc = Document::parse(
        r#"<meta name="date" content="2020-01-01"><p>Posted <time pubdate datetime="2019-12-31T22:00">x</time></p>"#,
    );
    assert_eq!(published(&doc).as_deref(), Some("2020-01-01T00:00:00Z"));
    assert_eq!(published(&Document::parse("<p>undated</p>")), None);
}

#[test]
fn a_json_ld_headline_that_is_a_category_loses_to_the_visible_title() {
    // Wikipedia's shape: no og:title, a JSON-LD `headline` that names the
    // kind of page, a `name` and a `<title>` that name the page.
    let page = r#"<html><head><title>List of whale strandings - Wikipedia</title>
        <script type="application/ld+json">{"@context":"https://schema.org","@type":"Article",
        "name":"List of whale strandings","headline":"Wikimedia list article",
        "publisher":{"@type":"Organization","name":"Wikimedia Foundation, Inc."}}</script>
        </head><body><h1>List of whale strandings</h1><p>Strandings by year.</p></body></html>"#;
    let r = extract(&Document::parse(page), "https://en.wikipedia.org/wiki/List");
    assert_eq!(r.title, "List of whale strandings");
    assert_eq!(r.site_name.as_deref(), Some("Wikimedia Foundation, Inc."));
    // A headline that agrees with the visible title still wins over it.
    let page = r#"<title>Fuel and epochs | Runtime Notes</title>
        <script type="application/ld+json">{"@type":"BlogPosting","headline":"Fuel and epochs"}</script>"#;
    assert_eq!(
        extract(&Document::parse(page), "https://x.example/").title,
        "Fuel and epochs"
    );
    // With no visible title, the headline is all there is.
    let page =
        r#"<script type="application/ld+json">{"@type":"Article","headline":"Only this"}</script>"#;
    assert_eq!(
        extract(&Document::parse(page), "https://x.example/").title,
        "Only this"
    );
}
