//! Shell detection on the fixture pages (read with the kit) and on URLs.

use super::fixture::{ORIGIN, file, read_page};
use crate::shells::{ShellKind, detect};

fn judge(rel: &str) -> Option<ShellKind> {
    let url = format!("{ORIGIN}/small/news/articles/{rel}");
    let d = read_page(&file(&format!("small/news/articles/{rel}")), &url);
    detect(&d.url, &d.title, &d.text, true).map(|s| s.kind)
}

#[test]
fn fixture_shells_are_recognised() {
    assert_eq!(
        judge("the-ledger/2026/11/inside-the-wasm-sandbox-race.html"),
        Some(ShellKind::LoginWall)
    );
    assert_eq!(
        judge("daily-stack/2026/11/wasmtime-sandbox-defaults.html"),
        Some(ShellKind::Consent)
    );
    assert_eq!(
        judge("appshell/webassembly-sandboxing-benchmarks.html"),
        Some(ShellKind::JsRequired)
    );
    assert_eq!(
        judge("devnotes/search/index.html"),
        Some(ShellKind::SearchResults)
    );
}

#[test]
fn fixture_articles_are_not_shells() {
    for rel in [
        "bytecode-weekly/2026/11/wasi-capabilities-sandbox.html",
        "bytecode-weekly/2023/11/wasm-sandbox-escapes.html",
        "sandbox-journal/posts/capability-security-in-wasmtime/index.html",
        "sandbox-journal/posts/host-functions-are-the-attack-surface.html",
        "runtime-notes/2026-11-27-fuel-and-epochs.html",
        "component-times/2026/11/shared-nothing-isolation.html",
        "devnotes/what-is-a-wasm-sandbox.html",
        "syndicate/wasi-capabilities-sandbox-copy.html",
    ] {
        assert_eq!(judge(rel), None, "{rel}");
    }
}

#[test]
fn what_the_web_provider_reads_of_the_shells() {
    // The web provider's Readability gives the consent page no text at
    // all; the title alone must condemn it.
    let consent = detect(
        "http://127.0.0.1:8080/small/news/articles/daily-stack/2026/11/wasmtime-sandbox-defaults.html",
        "Before you continue",
        "",
        true,
    );
    assert_eq!(consent.map(|s| s.kind), Some(ShellKind::Consent));
    let login = detect(
        "http://127.0.0.1:8080/small/news/articles/the-ledger/2026/11/inside-the-wasm-sandbox-race.html",
        "Inside the race to sandbox WebAssembly",
        "This article is for subscribers only.\n\nSign in to continue reading, or subscribe to get unlimited access to The Ledger.\n\nEmail Password\n\nSubscribe now",
        true,
    )
    .expect("login wall");
    assert_eq!(login.kind, ShellKind::LoginWall);
    assert!(
        login.why.contains("subscribers only") || login.why.contains("sign in"),
        "{}",
        login.why
    );
    let app = detect("http://127.0.0.1:8080/a.html", "Sandbench", "", true);
    assert_eq!(app.map(|s| s.kind), Some(ShellKind::Empty));
}

#[test]
fn urls_and_titles_alone() {
    let k = |url: &str, title: &str| detect(url, title, "", false).map(|s| s.kind);
    assert_eq!(
        k("https://news.example/account/login?next=/a", "News"),
        Some(ShellKind::LoginWall)
    );
    assert_eq!(
        k("https://consent.example.com/ml?continue=x", "x"),
        Some(ShellKind::Consent)
    );
    assert_eq!(
        k("https://dev.example/search/?q=wasm", "Dev Notes"),
        Some(ShellKind::SearchResults)
    );
    assert_eq!(
        k("https://dev.example/search", "Dev Notes"),
        Some(ShellKind::SearchResults)
    );
    assert_eq!(
        k("https://x.example/a", "Page not found | X"),
        Some(ShellKind::NotFound)
    );
    assert_eq!(
        k("https://x.example/a", "Sign in | X"),
        Some(ShellKind::LoginWall)
    );
    assert_eq!(
        k(
            "https://x.example/a",
            "webassembly sandboxing at DuckDuckGo"
        ),
        Some(ShellKind::SearchResults)
    );
    // Unfetched: a teaser snippet does not condemn the page.
    assert_eq!(
        detect(
            "https://x.example/a",
            "Inside the race",
            "Subscribe to read the full story.",
            false
        ),
        None
    );
    // Articles that mention the words are not shells.
    assert_eq!(
        k(
            "https://x.example/search-engines-and-wasm",
            "How search engines run WebAssembly"
        ),
        None
    );
    assert_eq!(
        k(
            "https://x.example/research/2026/a",
            "Sign-in with passkeys in a WebAssembly sandbox"
        ),
        None
    );
    let long = format!("We use cookies, the essay says. {}", super::prose(1600));
    assert_eq!(
        detect("https://x.example/a", "Cookies and sandboxes", &long, true),
        None
    );
}
