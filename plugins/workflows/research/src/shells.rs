//! Shells: pages that stand where content should be — login walls,
//! "enable JavaScript" app shells, not-found pages, cookie-consent
//! interstitials, search-result pages — told apart by their title, their
//! text (shells are short, so text phrases count only under
//! [`SHORT_TEXT`] characters), their metadata and their URL.
//!
//! A record that was not fetched is judged on its title and URL only: a
//! search snippet is too short and too often a teaser ("subscribe to read
//! more") to condemn the page behind it.

use webrig_workflow_sdk::kit::url;

/// Text longer than this is an article that merely mentions "sign in".
pub const SHORT_TEXT: usize = 1500;
/// Fetched text shorter than this is no content at all.
pub const EMPTY_TEXT: usize = 40;

/// Why a record was dropped as a shell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ShellKind {
    LoginWall,
    JsRequired,
    NotFound,
    Consent,
    SearchResults,
    Empty,
}

impl ShellKind {
    /// The `meta.dropped` key.
    pub fn name(self) -> &'static str {
        match self {
            ShellKind::LoginWall => "login_wall",
            ShellKind::JsRequired => "js_required",
            ShellKind::NotFound => "not_found",
            ShellKind::Consent => "consent",
            ShellKind::SearchResults => "search_results",
            ShellKind::Empty => "empty",
        }
    }
}

/// A shell and the evidence for it, e.g. `text says "sign in to continue"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shell {
    pub kind: ShellKind,
    pub why: String,
}

/// Title phrases (lowercase) per kind: a title containing one is a shell.
const TITLE: &[(ShellKind, &[&str])] = &[
    (
        ShellKind::Consent,
        &[
            "before you continue",
            "cookie consent",
            "cookie settings",
            "privacy choices",
            "consent to cookies",
        ],
    ),
    (
        ShellKind::LoginWall,
        &[
            "sign in to continue",
            "log in to continue",
            "subscribe to continue",
            "subscribe to read",
            "login required",
        ],
    ),
    (
        ShellKind::JsRequired,
        &[
            "enable javascript",
            "javascript is required",
            "javascript is not available",
            "javascript required",
        ],
    ),
    (
        ShellKind::NotFound,
        &[
            "page not found",
            "404 not found",
            "error 404",
            "page doesn't exist",
            "page does not exist",
        ],
    ),
    (
        ShellKind::SearchResults,
        &[
            "search results",
            "results for “",
            "results for \"",
            " - google search",
            " at duckduckgo",
        ],
    ),
];

/// Titles that are a shell when they are all there is (after trimming a
/// site suffix), e.g. "Sign in | Site", "404".
const TITLE_EXACT: &[(ShellKind, &[&str])] = &[
    (
        ShellKind::LoginWall,
        &["sign in", "log in", "login", "sign up", "subscribe"],
    ),
    (ShellKind::NotFound, &["404", "not found", "page not found"]),
    (
        ShellKind::JsRequired,
        &["loading", "loading…", "loading..."],
    ),
    (ShellKind::SearchResults, &["search", "search results"]),
];

/// Text phrases (lowercase) per kind, for short texts.
const TEXT: &[(ShellKind, &[&str])] = &[
    (
        ShellKind::Consent,
        &[
            "we use cookies",
            "accept all",
            "reject all",
            "cookie preferences",
            "manage privacy settings",
            "consent to the use of cookies",
        ],
    ),
    (
        ShellKind::LoginWall,
        &[
            "sign in to continue",
            "log in to continue",
            "subscribe to continue",
            "subscribers only",
            "for subscribers",
            "subscribe to read",
            "create a free account to",
            "you must be logged in",
            "please log in",
            "members only",
            "to continue reading",
        ],
    ),
    (
        ShellKind::JsRequired,
        &[
            "enable javascript",
            "javascript is required",
            "javascript is not available",
            "javascript is disabled",
            "requires javascript",
            "turn on javascript",
            "need javascript",
        ],
    ),
    (
        ShellKind::NotFound,
        &[
            "page not found",
            "page you requested could not be found",
            "this page doesn't exist",
            "this page does not exist",
            "404 not found",
            "no longer available",
        ],
    ),
    (
        ShellKind::SearchResults,
        &[
            "search results for",
            "results found",
            "no results found",
            "did you mean",
        ],
    ),
];

/// URL path segments (lowercase) per kind.
const PATH: &[(ShellKind, &[&str])] = &[
    (
        ShellKind::LoginWall,
        &["login", "signin", "sign-in", "log-in", "sso", "auth"],
    ),
    (ShellKind::Consent, &["consent", "cookie-consent", "gdpr"]),
    (ShellKind::SearchResults, &["search"]),
    (ShellKind::NotFound, &["404"]),
];

fn phrase(
    table: &[(ShellKind, &[&'static str])],
    haystack: &str,
) -> Option<(ShellKind, &'static str)> {
    table.iter().find_map(|(kind, phrases)| {
        phrases
            .iter()
            .find(|p| haystack.contains(*p))
            .map(|p| (*kind, *p))
    })
}

fn strip_site_suffix(title: &str) -> &str {
    [" | ", " - ", " – ", " — ", " · "]
        .iter()
        .filter_map(|sep| title.find(sep))
        .min()
        .map_or(title, |i| &title[..i])
        .trim()
}

/// Judges a record's page. `fetched` false: title and URL only.
pub fn detect(page_url: &str, title: &str, text: &str, fetched: bool) -> Option<Shell> {
    let title_lc = title.trim().to_lowercase();
    if let Some((kind, p)) = phrase(TITLE, &title_lc) {
        return Some(Shell {
            kind,
            why: format!("title {title:?} says {p:?}"),
        });
    }
    let bare = strip_site_suffix(&title_lc);
    if let Some((kind, _)) = TITLE_EXACT
        .iter()
        .find(|(_, exact)| exact.contains(&bare))
        .map(|(k, e)| (*k, e))
    {
        return Some(Shell {
            kind,
            why: format!("title is just {title:?}"),
        });
    }
    if let Some(shell) = by_url(page_url) {
        return Some(shell);
    }
    if !fetched {
        return None;
    }
    let chars = text.chars().count();
    if chars < SHORT_TEXT {
        let text_lc = text.to_lowercase();
        if let Some((kind, p)) = phrase(TEXT, &text_lc) {
            return Some(Shell {
                kind,
                why: format!("its {chars}-character text says {p:?}"),
            });
        }
    }
    if chars < EMPTY_TEXT {
        return Some(Shell {
            kind: ShellKind::Empty,
            why: format!("it has {chars} characters of readable text"),
        });
    }
    None
}

/// Shells told by the URL: a login/consent/search path segment, or a
/// search query (`?q=`, `?query=`, `?s=`) on a search-like path.
fn by_url(page_url: &str) -> Option<Shell> {
    let host = url::host(page_url).unwrap_or_default();
    if host.starts_with("consent.") {
        return Some(Shell {
            kind: ShellKind::Consent,
            why: format!("its host is {host}"),
        });
    }
    let after_scheme = page_url.split_once("://").map_or(page_url, |(_, r)| r);
    let path = after_scheme
        .split(['?', '#'])
        .next()
        .unwrap_or_default()
        .split_once('/')
        .map_or("", |(_, p)| p)
        .to_lowercase();
    let segments: Vec<&str> = path
        .split('/')
        .map(|s| s.trim_end_matches(".html").trim_end_matches(".php"))
        .collect();
    let has_query = ["q", "query", "s", "search", "keywords"]
        .iter()
        .any(|k| url::query_param(page_url, k).is_some_and(|v| !v.trim().is_empty()));
    for (kind, names) in PATH {
        if let Some(seg) = segments.iter().find(|s| names.contains(s)) {
            if *kind == ShellKind::SearchResults && !has_query && segments.last() != Some(seg) {
                continue;
            }
            return Some(Shell {
                kind: *kind,
                why: format!("its URL path has /{seg}"),
            });
        }
    }
    None
}
