//! The fixture small web read from the repository, standing in for the
//! providers: their search answers parsed the way the provider crates
//! parse them (DuckDuckGo HTML, Algolia HN, a Reddit listing, a Mastodon
//! timeline), and pages read with the kit the way the web provider reads
//! them (og/JSON-LD/`<time>` dates, site name, canonical). The real
//! providers run in the end-to-end test; these keep the unit tests honest
//! about the fixture's shapes.

use webrig_workflow_sdk::kit::html::{Document as Html, meta};
use webrig_workflow_sdk::kit::{date, url};
use webrig_workflow_sdk::serde_json::Value;
use webrig_workflow_sdk::types::{Document, Failure, Fetched, Hit, ResultItem, SearchOutcome};

pub const ORIGIN: &str = "http://127.0.0.1:8080";

fn root() -> String {
    format!("{}/../../../tests/fixtures/web", env!("CARGO_MANIFEST_DIR"))
}

/// A fixture file with `{{origin}}` filled in, as the fixture server does.
pub fn file(rel: &str) -> String {
    let path = format!("{}/{rel}", root());
    let raw = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("fixture {path}: {e}"));
    raw.replace("{{origin_pct}}", &url::encode(ORIGIN))
        .replace("{{origin}}", ORIGIN)
}

fn item(
    url: &str,
    title: &str,
    snippet: &str,
    published: Option<String>,
    extra: Vec<(&str, String)>,
) -> ResultItem {
    ResultItem {
        url: url.into(),
        title: title.into(),
        snippet: snippet.into(),
        published,
        extra: extra.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    }
}

/// small/news/ddg/html/index.html as the web provider reads it.
pub fn ddg() -> Vec<ResultItem> {
    ddg_at("small/news/ddg/html/index.html")
}

/// A DuckDuckGo results page of the fixture web as the web provider reads
/// it (with the display URL it passes on).
pub fn ddg_at(rel: &str) -> Vec<ResultItem> {
    let html = Html::parse(&file(rel));
    html.elements()
        .filter(|&b| html.has_class(b, "result") && !html.has_class(b, "result--ad"))
        .filter_map(|b| {
            let a = html.find_class_in(b, "result__a").next()?;
            let target = url::query_param(html.attr(a, "href")?, "uddg")?;
            let snippet = html
                .find_class_in(b, "result__snippet")
                .next()
                .map(|s| html.text(s));
            let published = html
                .find_class_in(b, "result__extras__url")
                .next()
                .and_then(|e| {
                    html.descendants(e)
                        .filter(|&d| html.is(d, "span"))
                        .find_map(|d| date::normalize(&html.text(d)))
                });
            let shown = html
                .find_class_in(b, "result__url")
                .next()
                .map(|u| html.text(u))
                .filter(|u| !u.is_empty());
            Some(item(
                &target,
                &html.text(a),
                &snippet.unwrap_or_default(),
                published,
                shown.map(|u| ("display_url", u)).into_iter().collect(),
            ))
        })
        .take(10)
        .collect()
}

fn json(rel: &str) -> Value {
    webrig_workflow_sdk::serde_json::from_str(&file(rel)).expect("fixture JSON")
}

fn s<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

/// HN and Reddit answers interleaved, as the community provider does.
pub fn community() -> Vec<ResultItem> {
    let hn: Vec<ResultItem> = json("small/news/hn/api/v1/search/index.html")["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .filter_map(|h| {
            let title = s(h, "title")?;
            let discussion = format!("https://news.ycombinator.com/item?id={}", s(h, "objectID")?);
            let url = s(h, "url")
                .map(str::to_string)
                .unwrap_or(discussion.clone());
            let extra = vec![
                ("site", "hackernews".to_string()),
                ("score", h["points"].to_string()),
                ("comments", h["num_comments"].to_string()),
                ("discussion_url", discussion),
            ];
            let snippet = s(h, "story_text").unwrap_or_default();
            Some(item(
                &url,
                title,
                snippet,
                s(h, "created_at").and_then(date::normalize),
                extra,
            ))
        })
        .collect();
    let reddit: Vec<ResultItem> = json("small/news/reddit/search.json")["data"]["children"]
        .as_array()
        .expect("children")
        .iter()
        .filter_map(|c| {
            let p = &c["data"];
            let title = s(p, "title")?;
            let discussion = format!("https://www.reddit.com{}", s(p, "permalink")?);
            let is_self = p["is_self"].as_bool().unwrap_or(false);
            let url = if is_self {
                discussion.clone()
            } else {
                s(p, "url")?.to_string()
            };
            let extra = vec![
                ("site", "reddit".to_string()),
                ("score", p["score"].to_string()),
                ("comments", p["num_comments"].to_string()),
                ("discussion_url", discussion),
            ];
            let published = p["created_utc"].as_f64().and_then(date::from_unix);
            Some(item(
                &url,
                title,
                s(p, "selftext").unwrap_or_default(),
                published,
                extra,
            ))
        })
        .collect();
    let mut out = Vec::new();
    for i in 0..hn.len().max(reddit.len()) {
        out.extend(hn.get(i).cloned());
        out.extend(reddit.get(i).cloned());
    }
    out.truncate(10);
    out
}

/// The Mastodon tag timeline for "webassembly sandboxing".
pub fn social() -> Vec<ResultItem> {
    json("small/news/mastodon/api/v1/timelines/tag/webassemblysandboxing/index.html")
        .as_array()
        .expect("statuses")
        .iter()
        .filter_map(|st| {
            let st = if st["reblog"].is_object() {
                &st["reblog"]
            } else {
                st
            };
            let url = s(st, "url").or_else(|| s(st, "uri"))?;
            let content = Html::parse(s(st, "content")?);
            let text = content.text(content.root());
            let title: String = text.chars().take(80).collect();
            let extra = vec![
                (
                    "author",
                    s(&st["account"], "acct").unwrap_or_default().to_string(),
                ),
                ("reblogs", st["reblogs_count"].to_string()),
                ("favourites", st["favourites_count"].to_string()),
                ("replies", st["replies_count"].to_string()),
            ];
            Some(item(
                url,
                &title,
                &text,
                s(st, "created_at").and_then(date::normalize),
                extra,
            ))
        })
        .collect()
}

/// One search outcome of a provider's items.
pub fn outcome(provider: &str, items: Vec<ResultItem>) -> SearchOutcome {
    SearchOutcome {
        hits: items
            .into_iter()
            .map(|item| Hit {
                provider: provider.into(),
                source: provider.into(),
                item,
            })
            .collect(),
        failures: Vec::new(),
        providers: vec![provider.into()],
        timings: vec![(provider.into(), 1)],
    }
}

/// A page as the web provider reads it (simplified: the kit's text of
/// `<article>`, `<main>` or `<body>`).
pub fn read_page(html: &str, page_url: &str) -> Document {
    let d = Html::parse(html);
    let ld = meta::json_ld_objects(&d);
    let title = meta::meta_content(&d, &["og:title"])
        .or_else(|| d.find("title").map(|t| d.text(t)))
        .unwrap_or_default();
    let published = meta::meta_content(&d, &["article:published_time"])
        .or_else(|| {
            ld.iter()
                .find_map(|o| o.get("datePublished").and_then(meta::ld_text))
        })
        .or_else(|| {
            d.find_all("time")
                .find_map(|t| d.attr(t, "datetime").map(str::to_string))
        })
        .and_then(|p| date::normalize(&p));
    let mut metadata = Vec::new();
    let mut put = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            metadata.push((k.to_string(), v));
        }
    };
    put(
        "description",
        meta::meta_content(&d, &["og:description", "description"]),
    );
    put("site_name", meta::meta_content(&d, &["og:site_name"]));
    put(
        "canonical",
        meta::link_href(&d, "canonical")
            .or_else(|| meta::meta_content(&d, &["og:url"]))
            .and_then(|h| url::resolve(page_url, &h)),
    );
    let body = ["article", "main", "body"]
        .iter()
        .find_map(|t| d.find(t))
        .map(|n| d.text(n))
        .unwrap_or_default();
    Document {
        url: page_url.into(),
        title,
        text: body,
        published,
        metadata,
    }
}

/// A page as the web provider reads it, with the kit's reader (title,
/// date, author, site name as the provider gives them).
pub fn read_page_readable(html: &str, page_url: &str) -> Document {
    let r = webrig_workflow_sdk::kit::readable::extract(&Html::parse(html), page_url);
    let metadata = r.metadata();
    Document {
        url: page_url.into(),
        title: r.title,
        text: r.text,
        published: r.published,
        metadata,
    }
}

/// [`fetch`] with the kit's reader ([`read_page_readable`]).
pub fn fetch_readable(page_url: &str) -> Result<Fetched, Failure> {
    let mut f = fetch(page_url)?;
    let rel = page_url
        .strip_prefix(ORIGIN)
        .unwrap_or(page_url)
        .trim_start_matches('/')
        .to_string();
    f.document = read_page_readable(&file(&rel), page_url);
    Ok(f)
}

/// Fetches a fixture URL the way the fixture server and web provider
/// answer: the file (a folder's index.html), or a not-found failure.
pub fn fetch(page_url: &str) -> Result<Fetched, Failure> {
    let path = page_url
        .strip_prefix(ORIGIN)
        .unwrap_or(page_url)
        .split(['?', '#'])
        .next()
        .unwrap_or_default()
        .trim_start_matches('/');
    let mut full = format!("{}/{path}", root());
    if std::path::Path::new(&full).is_dir() {
        full = format!("{}/index.html", full.trim_end_matches('/'));
    }
    match std::fs::read_to_string(&full) {
        Ok(_) => {
            let rel = full
                .strip_prefix(&format!("{}/", root()))
                .unwrap_or(&full)
                .to_string();
            Ok(Fetched {
                provider: "web".into(),
                elapsed_ms: 3,
                document: read_page(&file(&rel), page_url),
            })
        }
        Err(_) => Err(Failure {
            provider: "web".into(),
            code: "not_found".into(),
            message: format!("{page_url} answered 404"),
        }),
    }
}
