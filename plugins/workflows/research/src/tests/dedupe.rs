//! Canonical URLs, title keys, domains and dedupe keeping the richer copy.

use super::{doc, fetched_record, hit, prose};
use crate::canon::{clean_url, dedupe, domain, title_key, url_key};
use crate::records;

#[test]
fn clean_urls_drop_what_does_not_change_the_page() {
    assert_eq!(
        clean_url(
            "HTTPS://WWW.Bytecode.Example:443/2026/11/wasi/?utm_source=hn&utm_medium=social&b=2&a=1#comments"
        ),
        "https://bytecode.example/2026/11/wasi?a=1&b=2"
    );
    assert_eq!(
        clean_url("http://127.0.0.1:8080/x/?fbclid=abc"),
        "http://127.0.0.1:8080/x"
    );
    assert_eq!(clean_url("http://example.com:80/"), "http://example.com");
    assert_eq!(
        clean_url("https://example.com:8443/a"),
        "https://example.com:8443/a"
    );
    assert_eq!(
        url_key("http://a.example/x"),
        url_key("https://www.a.example/x/")
    );
    assert_ne!(
        url_key("https://a.example/x?id=1"),
        url_key("https://a.example/x?id=2")
    );
    assert_eq!(clean_url("not a url"), "not a url");
}

#[test]
fn title_keys_ignore_case_punctuation_and_site_suffixes() {
    let a = title_key("How WASI capabilities sandbox WebAssembly components | Bytecode Weekly");
    assert_eq!(a, "how wasi capabilities sandbox webassembly components");
    assert_eq!(
        a,
        title_key("How WASI capabilities sandbox WebAssembly components - Stack Syndicate")
    );
    assert_eq!(
        a,
        title_key("How WASI Capabilities Sandbox WebAssembly Components")
    );
    // A short head keeps its suffix: "Rust - Wikipedia" is not "Rust".
    assert_eq!(title_key("Rust - Wikipedia"), "rust wikipedia");
    assert_eq!(
        title_key("Shared-nothing: how it works"),
        "shared nothing how it works"
    );
}

#[test]
fn hosts_come_from_the_hit_never_from_the_page() {
    assert_eq!(
        domain("https://www.bytecode.example/a", Some("x.example/a"), None),
        "bytecode.example"
    );
    // A local mirror: the search engine's display URL names the host.
    assert_eq!(
        domain(
            "http://127.0.0.1:8080/small/news/a.html",
            Some("sandboxjournal.example/posts/a/"),
            None
        ),
        "sandboxjournal.example"
    );
    assert_eq!(
        domain(
            "http://127.0.0.1:8080/m/@ada/1",
            None,
            Some("ada@hachyderm.example")
        ),
        "hachyderm.example"
    );
    assert_eq!(domain("http://localhost:3000/a", None, None), "localhost");
    assert_eq!(domain("http://[::1]:8080/a", None, Some("nobody")), "::1");
    assert_eq!(
        domain("http://127.0.0.1:8080/a", Some("not a host"), None),
        "127.0.0.1"
    );
}

#[test]
fn the_host_count_does_not_depend_on_reading_the_page() {
    use crate::records;
    let url = "http://127.0.0.1:8080/small/news/articles/sandbox-journal/posts/x/";
    let h = super::hit(
        "web",
        "web",
        url,
        "Capability-based security in Wasmtime",
        None,
        &[("display_url", "sandboxjournal.example/posts/x/")],
    );
    let unread = records::from_hit(&h, 0, 0);
    let mut read = unread.clone();
    records::apply_document(
        &mut read,
        &doc(
            url,
            "Capability-based security in Wasmtime | The Sandbox Journal",
            &prose(900),
            None,
            &[("site_name", "The Sandbox Journal")],
        ),
    );
    assert_eq!(unread.domain, "sandboxjournal.example");
    assert_eq!(read.domain, unread.domain);
    // The publisher is named, not slugged.
    assert_eq!(read.publisher(), "The Sandbox Journal");
    assert_eq!(unread.publisher(), "sandboxjournal.example");
    assert_eq!(read.title, "Capability-based security in Wasmtime");
}

#[test]
fn publisher_names_drop_taglines_and_titles_drop_site_suffixes() {
    use crate::canon::{publisher_name, strip_site_suffix, strip_site_suffix_of};
    assert_eq!(
        publisher_name("Aktuálně.cz – Víte co se právě děje"),
        "Aktuálně.cz"
    );
    assert_eq!(publisher_name("The Sandbox Journal"), "The Sandbox Journal");
    assert_eq!(
        strip_site_suffix("List of whale strandings - Wikipedia"),
        "List of whale strandings"
    );
    assert_eq!(
        strip_site_suffix("Fuel and epochs | Runtime Notes | Blog"),
        "Fuel and epochs"
    );
    // A subtitle after a dash is no site name.
    let sub = "Rust in the kernel — what the maintainers agreed on after three years of debate";
    assert_eq!(strip_site_suffix(sub), sub);
    assert_eq!(
        strip_site_suffix_of(
            "Why agents need a browser - Example News Network Daily Edition",
            &["Example News Network Daily Edition"]
        ),
        "Why agents need a browser"
    );
}

#[test]
fn copies_fold_into_the_richer_record() {
    let original = "http://127.0.0.1:8080/small/news/articles/bytecode-weekly/2026/11/wasi-capabilities-sandbox.html";
    let title = "How WASI capabilities sandbox WebAssembly components";
    // The article, fetched, dated, long.
    let a = fetched_record(
        original,
        &doc(
            original,
            title,
            &prose(1300),
            Some("2026-11-24T09:00:00Z"),
            &[("canonical", original), ("site_name", "Bytecode Weekly")],
        ),
        0,
    );
    // The same article through HN, with tracking parameters (a link record
    // with points and comments).
    let hn = records::from_hit(
        &hit(
            "community",
            "community",
            &format!("{original}?utm_source=hackernews&utm_medium=social"),
            title,
            Some("2026-11-24T11:02:00Z"),
            &[
                ("score", "214"),
                ("comments", "96"),
                (
                    "discussion_url",
                    "https://news.ycombinator.com/item?id=46120001",
                ),
            ],
        ),
        1,
        0,
    );
    // A syndicated copy: another URL, canonical link to the original,
    // shorter text, undated.
    let copy_url =
        "http://127.0.0.1:8080/small/news/articles/syndicate/wasi-capabilities-sandbox-copy.html";
    let copy = fetched_record(
        copy_url,
        &doc(
            copy_url,
            title,
            &prose(370),
            None,
            &[("canonical", original), ("site_name", "Stack Syndicate")],
        ),
        2,
    );
    // An unrelated page.
    let other_url = "https://runtime.example/fuel";
    let other = fetched_record(
        other_url,
        &doc(
            other_url,
            "Fuel, epochs and deadlines",
            &prose(900),
            None,
            &[],
        ),
        3,
    );
    let (kept, folded) = dedupe(vec![copy, hn, a, other], true);
    assert_eq!(folded, 2);
    assert_eq!(kept.len(), 2);
    let k = &kept[0];
    assert_eq!(k.url, original, "the richer copy is kept");
    assert_eq!(k.published.as_deref(), Some("2026-11-24T09:00:00Z"));
    assert_eq!(k.publisher(), "Bytecode Weekly");
    assert_eq!(k.mentions, 3);
    assert_eq!((k.score, k.comments), (214, 96));
    assert_eq!(k.providers, ["community", "web"]);
    assert!(k.also_at.contains(&copy_url.to_string()), "{:?}", k.also_at);
    assert_eq!(k.order, 0, "first seen order of the group");
    assert_eq!(kept[1].url, other_url);
}

#[test]
fn before_fetching_only_urls_fold() {
    let a = records::from_hit(
        &hit(
            "web",
            "web",
            "https://a.example/x",
            "Same title for both pages",
            None,
            &[],
        ),
        0,
        0,
    );
    let b = records::from_hit(
        &hit(
            "web",
            "web",
            "https://b.example/y",
            "Same title for both pages",
            None,
            &[],
        ),
        1,
        1,
    );
    let c = records::from_hit(
        &hit(
            "community",
            "community",
            "https://a.example/x/#top",
            "Other words",
            None,
            &[],
        ),
        2,
        0,
    );
    let (kept, folded) = dedupe(vec![a.clone(), b.clone(), c], false);
    assert_eq!((kept.len(), folded), (2, 1));
    let (kept, folded) = dedupe(vec![a, b], true);
    assert_eq!((kept.len(), folded), (1, 1));
    // Equal richness: the first seen wins.
    assert_eq!(kept[0].url, "https://a.example/x");
}
