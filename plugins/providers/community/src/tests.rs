//! Parsers against the fixtures in `tests/fixtures/web/providers/`.

use super::*;

fn fixture(rel: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../../tests/fixtures/web/providers/{rel}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("fixture {path}: {e}"))
}

fn extra<'a>(item: &'a ResultItem, key: &str) -> Option<&'a str> {
    item.extra
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

#[test]
fn hn_hits_with_url_fallback_and_dates() {
    let items = hn::parse(&fixture("hn/api/v1/search")).expect("hn fixture parses");
    assert_eq!(items.len(), 3, "the title-less hit is skipped");
    let show = &items[0];
    assert_eq!(show.url, "https://github.com/webrig/webrig");
    assert_eq!(show.title, "Show HN: webrig – a browser rig for AI agents");
    assert_eq!(show.published.as_deref(), Some("2024-10-30T14:05:12Z"));
    assert_eq!(extra(show, "score"), Some("312"));
    assert_eq!(extra(show, "comments"), Some("87"));
    assert_eq!(extra(show, "author"), Some("adaq"));
    assert_eq!(extra(show, "site"), Some("hackernews"));
    let ask = &items[1];
    assert_eq!(ask.url, "https://news.ycombinator.com/item?id=42011223");
    assert_eq!(ask.published.as_deref(), Some("2024-11-03T21:40:00.000Z"));
    assert!(
        ask.snippet
            .starts_with("We're evaluating webrig for a crawler fleet."),
        "{}",
        ask.snippet
    );
    assert!(
        ask.snippet.contains("memory per session & startup"),
        "{}",
        ask.snippet
    );
}

#[test]
fn reddit_posts_with_epoch_dates() {
    let items = reddit::parse(&fixture("reddit/search.json")).expect("reddit fixture parses");
    assert_eq!(items.len(), 3, "the title-less post is skipped");
    assert_eq!(items[0].url, "https://github.com/webrig/webrig");
    assert_eq!(items[0].published.as_deref(), Some("2024-10-31T16:00:00Z"));
    assert_eq!(extra(&items[0], "subreddit"), Some("rust"));
    assert_eq!(extra(&items[0], "score"), Some("241"));
    assert_eq!(extra(&items[0], "comments"), Some("37"));
    let self_post = &items[1];
    assert_eq!(
        self_post.url,
        "https://www.reddit.com/r/webscraping/comments/1ghx9zq/experience_report_webrig_longrunning/"
    );
    assert_eq!(
        self_post.title,
        "Experience report: webrig & long-running scraping sessions"
    );
    assert_eq!(self_post.published.as_deref(), Some("2024-11-04T10:10:00Z"));
    assert!(
        self_post.snippet.contains("consent dialogs & popups"),
        "{}",
        self_post.snippet
    );
    assert_eq!(items[2].published.as_deref(), Some("2024-10-27T03:33:20Z"));
}

#[test]
fn malformed_answers_are_upstream_errors() {
    for body in [
        &b""[..],
        b"<html>",
        b"{}",
        b"[]",
        b"{\"hits\": 3}",
        b"{\"data\": {\"children\": {}}}",
    ] {
        assert!(
            matches!(hn::parse(body), Err(Error::Upstream(_))),
            "hn {body:?}"
        );
        assert!(
            matches!(reddit::parse(body), Err(Error::Upstream(_))),
            "reddit {body:?}"
        );
    }
    let odd = br#"{"hits": [1, "x", null, {"title": 5}, {"title": "t"}]}"#;
    assert!(hn::parse(odd).expect("odd hits are skipped").is_empty());
}

#[test]
fn merge_interleaves_and_tolerates_one_failure() {
    let hn = hn::parse(&fixture("hn/api/v1/search")).expect("hn");
    let rd = reddit::parse(&fixture("reddit/search.json")).expect("reddit");
    let merged = merge(Some(Ok(hn.clone())), Some(Ok(rd.clone()))).expect("both answered");
    let sites: Vec<_> = merged
        .iter()
        .map(|i| extra(i, "site").unwrap_or_default())
        .collect();
    assert_eq!(
        sites,
        [
            "hackernews",
            "reddit",
            "hackernews",
            "reddit",
            "hackernews",
            "reddit"
        ]
    );
    let one =
        merge(Some(Err(Error::RateLimited("429".into()))), Some(Ok(rd))).expect("reddit answered");
    assert_eq!(one.len(), 3);
    let none = merge(
        Some(Err(Error::RateLimited("429".into()))),
        Some(Err(Error::Upstream("500".into()))),
    );
    assert!(matches!(none, Err(Error::RateLimited(_))));
    assert_eq!(merge(Some(Ok(hn)), None).expect("hn only").len(), 3);
}

#[test]
fn site_option_restricts() {
    let opt = |v: &str| vec![("site".to_string(), v.to_string())];
    assert_eq!(
        sites(&[]).expect("default"),
        Sites {
            hackernews: true,
            reddit: true
        }
    );
    assert_eq!(
        sites(&opt("hackernews")).expect("hn"),
        Sites {
            hackernews: true,
            reddit: false
        }
    );
    assert_eq!(
        sites(&opt("Reddit")).expect("reddit"),
        Sites {
            hackernews: false,
            reddit: true
        }
    );
    assert!(matches!(
        sites(&opt("lobsters")),
        Err(Error::InvalidInput(_))
    ));
}
