//! The whole pipeline on the fixture small web (tests/fixtures/web/small/
//! news), with the providers' answers read from the fixture files: what an
//! end-to-end run on the fixture should produce.

use super::fixture::{self, ORIGIN};
use super::params;
use crate::input::{Params, Sources};
use crate::pipeline::{self, Research};
use crate::rank::pick_fetch;
use crate::terms::topic_terms;
use webrig_workflow_sdk::serde_json::{Value, json};
use webrig_workflow_sdk::types::Hit;

/// The host's merge of one search over several providers: interleaved,
/// exact duplicates (fragment and trailing slash ignored) dropped.
fn interleave(lists: Vec<Vec<Hit>>) -> Vec<Hit> {
    let key = |u: &str| {
        u.split('#')
            .next()
            .unwrap_or_default()
            .trim_end_matches('/')
            .to_string()
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut iters: Vec<_> = lists.into_iter().map(Vec::into_iter).collect();
    let mut out = Vec::new();
    loop {
        let mut any = false;
        for it in &mut iters {
            if let Some(h) = it.next() {
                any = true;
                if seen.insert(key(&h.item.url)) {
                    out.push(h);
                }
            }
        }
        if !any {
            return out;
        }
    }
}

/// Runs search → fetch → finish as `run` does, on the fixture.
pub fn run(input: Value) -> (Params, Research) {
    let p = params(input);
    let outcomes = p
        .sources
        .searched()
        .into_iter()
        .map(|s| {
            let outcome = match s.as_str() {
                "web" => fixture::outcome("web", fixture::ddg()),
                "community" => fixture::outcome("community", fixture::community()),
                "social" => fixture::outcome("social", fixture::social()),
                // auto: web and community for a query without #tags.
                _ => {
                    let mut o = fixture::outcome("web", fixture::ddg());
                    let c = fixture::outcome("community", fixture::community());
                    o.hits = interleave(vec![o.hits, c.hits]);
                    o
                }
            };
            (s, Ok(outcome))
        })
        .collect();
    let found = pipeline::collect(outcomes);
    let picks = pick_fetch(
        &found.records,
        &topic_terms(&p.topic),
        p.fetch as usize,
        &[],
    );
    let fetched = picks
        .iter()
        .map(|&i| (i, fixture::fetch(&found.records[i].url)))
        .collect();
    let mut fetched: Vec<_> = fetched;
    let mut research = pipeline::finish(&p, found.clone(), fetched.clone());
    if research.timebox_empty() {
        let more = pick_fetch(
            &found.records,
            &topic_terms(&p.topic),
            p.fetch as usize,
            &picks,
        );
        fetched.extend(
            more.iter()
                .map(|&i| (i, fixture::fetch(&found.records[i].url))),
        );
        research = pipeline::finish(&p, found, fetched);
    }
    (p, research)
}

fn path(url: &str) -> &str {
    url.strip_prefix(ORIGIN).unwrap_or(url)
}

fn urls(r: &Research) -> Vec<&str> {
    r.ranked.iter().map(|(rec, _)| path(&rec.url)).collect()
}

fn dropped(r: &Research) -> Vec<(&str, &str)> {
    r.dropped
        .iter()
        .map(|d| (d.reason.as_str(), path(&d.url)))
        .collect()
}

const A: &str = "/small/news/articles/bytecode-weekly/2026/11/wasi-capabilities-sandbox.html";
const B: &str = "/small/news/articles/sandbox-journal/posts/capability-security-in-wasmtime/";
const C: &str = "/small/news/articles/runtime-notes/2026-11-27-fuel-and-epochs.html";
const K: &str = "/small/news/articles/component-times/2026/11/shared-nothing-isolation.html";
const E: &str = "/small/news/articles/devnotes/what-is-a-wasm-sandbox.html";
const ASK_HN: &str = "https://news.ycombinator.com/item?id=46150010";
const REDDIT_SELF: &str = "https://www.reddit.com/r/WebAssembly/comments/1q7kx2m/how_are_you_sandboxing_webassembly_plugins_our/";

#[test]
fn all_sources_reading_every_page() {
    let (p, r) = run(json!({"topic": "webassembly sandboxing", "sources": "all", "fetch": 20}));
    assert_eq!(p.sources, Sources::All);
    assert_eq!(r.hits, 23);
    assert_eq!(r.hits_by_source.get("web"), Some(&10));
    assert_eq!(r.hits_by_source.get("community"), Some(&9));
    assert_eq!(r.hits_by_source.get("social"), Some(&4));
    assert_eq!((r.fetch_attempted, r.fetch_ok), (11, 10));
    assert_eq!(
        r.deduped, 5,
        "HN's utm link, Reddit's B and D links, HN's C link, the syndicated copy"
    );
    assert_eq!(
        urls(&r),
        [
            A,
            C,
            B,
            ASK_HN,
            "/small/news/mastodon/@cz/115590000000000303",
            REDDIT_SELF,
            "/small/news/mastodon/@ada/115620000000000101",
            "/small/news/mastodon/@dee/115550000000000404",
            K,
            E,
        ]
    );
    assert_eq!(
        dropped(&r),
        [
            (
                "not_found",
                "/small/news/articles/the-ledger/2026/11/deleted-story.html"
            ),
            (
                "login_wall",
                "/small/news/articles/the-ledger/2026/11/inside-the-wasm-sandbox-race.html"
            ),
            (
                "consent",
                "/small/news/articles/daily-stack/2026/11/wasmtime-sandbox-defaults.html"
            ),
            (
                "search_results",
                "/small/news/articles/devnotes/search/?q=webassembly+sandboxing"
            ),
            (
                "js_required",
                "/small/news/articles/appshell/webassembly-sandboxing-benchmarks.html"
            ),
            (
                "out_of_timebox",
                "/small/news/articles/bytecode-weekly/2023/11/wasm-sandbox-escapes.html"
            ),
            (
                "out_of_timebox",
                "/small/news/articles/sandbox-journal/posts/host-functions-are-the-attack-surface.html"
            ),
            (
                "out_of_timebox",
                "/small/news/mastodon/@eve/115100000000000505"
            ),
        ]
    );
    let top = &r.ranked[0].0;
    assert_eq!((top.score, top.comments, top.mentions), (214, 96, 3));
    assert_eq!(top.published.as_deref(), Some("2026-11-24T09:00:00Z"));
    assert_eq!(r.domains(), 10);
    assert_eq!(r.failures.len(), 1);
    assert_eq!(
        (r.failures[0].provider.as_str(), r.failures[0].code.as_str()),
        ("web", "not_found")
    );
    let themes: Vec<(Vec<&str>, &[usize])> = r
        .themes
        .iter()
        .map(|t| {
            (
                t.terms.iter().map(String::as_str).collect(),
                t.members.as_slice(),
            )
        })
        .collect();
    assert_eq!(
        themes,
        [
            (vec!["plugin"], &[1, 3, 5, 6][..]),
            (vec!["imports", "file"], &[0, 2, 9][..]),
            (vec!["shared-nothing"], &[7, 8][..]),
            (vec![], &[4][..]),
        ]
    );
    // Every member of a theme holds its key phrase.
    for t in r.themes.iter().filter(|t| !t.is_unrelated()) {
        for &m in &t.members {
            let (rec, _) = &r.ranked[m];
            let input = crate::themes::Input {
                title: rec.title.clone(),
                description: rec.description.clone().unwrap_or_default(),
                text: rec.body().to_string(),
            };
            assert!(
                super::theme_corpus::holds_phrase(&input, &t.terms[0]),
                "{} lacks {:?}",
                rec.title,
                t.terms[0]
            );
        }
    }
    let verdict = crate::gate::judge(r.ranked.iter().map(|(rec, _)| rec));
    assert_eq!(verdict.status, crate::gate::Status::Pass);
}

#[test]
fn the_old_article_comes_back_only_in_a_long_timebox_and_ranks_low() {
    let (_, r) = run(
        json!({"topic": "webassembly sandboxing", "sources": "all", "fetch": 20, "days": 3650}),
    );
    let at = |u: &str| {
        r.ranked
            .iter()
            .position(|(rec, _)| path(&rec.url).ends_with(u))
    };
    let old = at("2023/11/wasm-sandbox-escapes.html").expect("kept in ten years");
    let (rec, f) = &r.ranked[old];
    assert_eq!(rec.date_source.name(), "page");
    assert_eq!(
        (rec.score, rec.comments),
        (412, 150),
        "the most discussed link"
    );
    assert!(!f.recent);
    // Below every fresh article about the topic, despite the most points.
    assert!(
        old > at(A).expect("present")
            && old > at(C).expect("present")
            && old > at(B).expect("present")
    );
    assert_eq!(f.age_days, Some(1107));
    assert!(r.dropped.iter().all(|d| d.reason != "out_of_timebox"));
}

#[test]
fn default_params_search_web_and_community_and_read_five_pages() {
    let (p, r) = run(json!({"topic": "webassembly sandboxing"}));
    assert_eq!((p.sources, p.fetch), (Sources::Auto, 5));
    print_run(&p, &r);
    assert_eq!(r.fetch_attempted, 5);
    assert!(urls(&r).starts_with(&[A, C, B]), "{:?}", urls(&r));
    assert!(dropped(&r).contains(&(
        "out_of_timebox",
        "/small/news/articles/bytecode-weekly/2023/11/wasm-sandbox-escapes.html"
    )));
    let verdict = crate::gate::judge(r.ranked.iter().map(|(rec, _)| rec));
    assert_eq!(verdict.status, crate::gate::Status::Pass);
}

#[test]
fn nothing_read_and_nothing_dated_is_partial() {
    // Web only, no fetching: snippets on one host, none 500 characters.
    let (_, r) = run(json!({"topic": "webassembly sandboxing", "sources": "web", "fetch": 0}));
    assert_eq!(r.fetch_attempted, 0);
    assert!(
        r.ranked
            .iter()
            .all(|(rec, _)| rec.published.is_none() && !rec.fetched)
    );
    let verdict = crate::gate::judge(r.ranked.iter().map(|(rec, _)| rec));
    assert_eq!(
        verdict.status,
        crate::gate::Status::Partial,
        "{}",
        verdict.reason
    );
    // Shells are still told by title and URL.
    assert!(dropped(&r).contains(&(
        "search_results",
        "/small/news/articles/devnotes/search/?q=webassembly+sandboxing"
    )));
}

/// Prints a run (see it with `cargo test -- --nocapture`).
fn print_run(p: &Params, r: &Research) {
    println!(
        "hits {} {:?} fetched {}/{} deduped {}",
        r.hits, r.hits_by_source, r.fetch_ok, r.fetch_attempted, r.deduped
    );
    for (i, (rec, f)) in r.ranked.iter().enumerate() {
        println!(
            "{:>2} {:.3} {} [{}] {:?} {}",
            i + 1,
            f.score,
            path(&rec.url),
            rec.domain,
            rec.published,
            rec.date_source.name()
        );
    }
    for d in &r.dropped {
        println!("drop {} {} — {}", d.reason, path(&d.url), d.why);
    }
    let verdict = crate::gate::judge(r.ranked.iter().map(|(rec, _)| rec));
    println!("{}", crate::output::summary(p, r, &verdict));
}

#[test]
fn failed_reads_are_failures_once_and_never_sources() {
    use webrig_workflow_sdk::types::Failure;
    let p = params(json!({"topic": "webassembly sandboxing", "sources": "web"}));
    let found = pipeline::collect(vec![(
        "web".into(),
        Ok(fixture::outcome("web", fixture::ddg())),
    )]);
    let fail = |code: &str| Failure {
        provider: "web".into(),
        code: code.into(),
        message: format!("it said {code}"),
    };
    // A, B and K: gone, refused, timed out.
    let research = pipeline::finish(
        &p,
        found,
        vec![
            (0, Err(fail("not_found"))),
            (1, Err(fail("auth"))),
            (2, Err(fail("timeout"))),
        ],
    );
    for u in [A, B, K] {
        assert!(!urls(&research).contains(&u), "{u} is no source");
        for t in &research.themes {
            for &m in &t.members {
                assert_ne!(path(&research.ranked[m].0.url), u);
            }
        }
    }
    // Each failure once: in the failures (naming its URL), not as a drop.
    assert_eq!(research.failures.len(), 3);
    assert!(
        research.failures[2].message.contains(K),
        "{:?}",
        research.failures
    );
    assert!(research.drops().all(|d| ![A, B, K].contains(&path(&d.url))));
    assert_eq!(research.dropped_by_reason().get("not_found"), None);
    assert_eq!((research.fetch_attempted, research.fetch_ok), (3, 0));
    let verdict = crate::gate::judge(research.ranked.iter().map(|(rec, _)| rec));
    let md = crate::render::report(&p, &research, &verdict);
    assert!(md.contains("3 failures"), "{md}");
    assert!(
        md.contains("3 pages could not be read; they are not among the sources or themes."),
        "{md}"
    );
    let (_, limitations) = md.split_once("## Limitations").expect("limitations");
    let (limitations, failures) = limitations.split_once("## Failures").expect("failures");
    assert!(!limitations.contains(K), "{limitations}");
    assert_eq!(failures.matches(K).count(), 1, "{failures}");
}

#[test]
fn nothing_usable_names_the_failures() {
    use webrig_workflow_sdk::types::{Error, Failure};
    let p = params(json!({"topic": "webassembly sandboxing", "sources": "all"}));
    let mut community = fixture::outcome("community", Vec::new());
    community.failures.push(Failure {
        provider: "community".into(),
        code: "rate_limited".into(),
        message: "reddit answered 429".into(),
    });
    let found = pipeline::collect(vec![
        (
            "web".into(),
            Err(Error::Timeout("duckduckgo took too long".into())),
        ),
        ("community".into(), Ok(community)),
        ("social".into(), Ok(fixture::outcome("social", Vec::new()))),
    ]);
    let research = pipeline::finish(&p, found, Vec::new());
    assert!(research.ranked.is_empty());
    let m = research.nothing_usable(&p.topic, &p.timebox.label());
    assert!(
        m.starts_with(
            "no usable record for \"webassembly sandboxing\" in 2026-11-01 → 2026-12-01: 0 hits"
        ),
        "{m}"
    );
    assert!(m.contains("web timeout: duckduckgo took too long"), "{m}");
    assert!(
        m.contains("community rate_limited: reddit answered 429"),
        "{m}"
    );
}
