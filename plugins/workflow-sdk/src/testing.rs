//! Run a workflow natively, against canned searches and pages, in
//! `cargo test`.
//!
//! On the host the SDK's [`runtime`](crate::runtime),
//! [`artifacts`](crate::artifacts), [`progress`](crate::progress),
//! [`config`](crate::config) and [`log`](crate::log) call the component
//! imports; compiled for any other target (your machine, in `cargo test`),
//! they call this module instead, so `Workflow::run` runs whole without a
//! daemon:
//!
//! ```ignore
//! use webrig_workflow_sdk::testing::{self, Mock};
//!
//! #[test]
//! fn writes_the_links() {
//!     Mock::new()
//!         .search("web", vec![testing::hit("web", "https://a.example/", "A")])
//!         .page("https://a.example/", "A", "the page's text")
//!         .install();
//!     let out = <Mine as Workflow>::run(serde_json::json!({"topic": "rust"})).unwrap();
//!     assert!(testing::artifact_text("links.md").unwrap().contains("https://a.example/"));
//! }
//! ```
//!
//! - A search of a source nothing answers is an `internal` error naming the
//!   source and query; a page nothing answers is a failure (code
//!   `not_found`) naming the URL; `artifacts::download` fails the same way
//!   unless [`mock_download`] answers.
//! - The state is per thread: `cargo test` runs each test on its own
//!   thread, so parallel tests never see each other's mocks or files.
//! - The browser imports (`browser::open`, …) are not mocked: they panic
//!   natively.
//!
//! # Where the tests go
//!
//! Unit tests (`#[cfg(test)] mod tests` in `src/`) always work. Tests in a
//! crate's `tests/` folder link the crate as a Rust library, which a
//! `crate-type = ["cdylib"]` crate is not: give the crate
//! `crate-type = ["cdylib", "rlib"]` (the wasm build still makes the
//! component) to test it from `tests/`. Such a crate must export only
//! for wasm32, since with an rlib `cargo test` also links the cdylib
//! natively, where the component's export names fail to link:
//! `#[cfg(target_arch = "wasm32")] export_workflow!(Mine);`.
//!
//! This module exists only when not targeting wasm32.

use std::cell::RefCell;
use std::collections::BTreeMap;

use crate::types::*;

type SearchFn = Box<dyn Fn(&str, &SearchRequest) -> Result<SearchOutcome, Error>>;
type FetchFn = Box<dyn Fn(&str) -> Result<Fetched, Failure>>;
type DownloadFn = Box<dyn Fn(&str, &str) -> Result<Vec<u8>, Error>>;

/// One progress report: stage, message, done, total.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    pub stage: String,
    pub message: String,
    pub done: u32,
    pub total: u32,
}

#[derive(Default)]
struct State {
    searches: BTreeMap<String, Vec<Hit>>,
    pages: BTreeMap<String, Result<Fetched, Failure>>,
    on_search: Option<std::rc::Rc<SearchFn>>,
    on_fetch: Option<std::rc::Rc<FetchFn>>,
    on_download: Option<std::rc::Rc<DownloadFn>>,
    config: BTreeMap<String, String>,
    artifacts: BTreeMap<String, Vec<u8>>,
    progress: Vec<Progress>,
    logs: Vec<String>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::default();
}

/// Canned runtime answers, built then [installed](Mock::install) for the
/// current thread.
#[derive(Default)]
#[must_use = "a Mock does nothing until .install()"]
pub struct Mock {
    searches: BTreeMap<String, Vec<Hit>>,
    pages: BTreeMap<String, Result<Fetched, Failure>>,
    config: Vec<(String, String)>,
}

impl Mock {
    pub fn new() -> Mock {
        Mock::default()
    }

    /// What a search of `source` (`web`, `community`, …, as the workflow
    /// names it) finds, whatever the query; each search answers at most
    /// `limit` of them per provider.
    pub fn search(mut self, source: &str, hits: Vec<Hit>) -> Mock {
        self.searches.entry(source.into()).or_default().extend(hits);
        self
    }

    /// What reading `url` gives.
    pub fn page(mut self, url: &str, title: &str, text: &str) -> Mock {
        self.pages.insert(url.into(), Ok(page(url, title, text)));
        self
    }

    /// Reading `url` fails with `code` (`timeout`, `upstream`, …).
    pub fn page_fails(mut self, url: &str, code: &str, message: &str) -> Mock {
        self.pages.insert(
            url.into(),
            Err(Failure {
                provider: "mock".into(),
                code: code.into(),
                message: message.into(),
            }),
        );
        self
    }

    /// A `[plugins.<id>]` setting, as [`set_config`].
    pub fn config(mut self, key: &str, value: &str) -> Mock {
        self.config.push((key.into(), value.into()));
        self
    }

    /// Makes these the current thread's answers, replacing earlier
    /// searches and pages (closures are kept, and answer what these do
    /// not). Settings are added; files, progress and logs are kept.
    pub fn install(self) {
        STATE.with_borrow_mut(|s| {
            s.searches = self.searches;
            s.pages = self.pages;
            s.config.extend(self.config);
        });
    }
}

/// A search result found by `provider` (its source is `provider` too).
pub fn hit(provider: &str, url: &str, title: &str) -> Hit {
    Hit {
        provider: provider.into(),
        source: provider.into(),
        item: ResultItem {
            url: url.into(),
            title: title.into(),
            snippet: String::new(),
            published: None,
            extra: Vec::new(),
        },
    }
}

/// A page read by the provider `mock`.
pub fn page(url: &str, title: &str, text: &str) -> Fetched {
    Fetched {
        provider: "mock".into(),
        elapsed_ms: 1,
        document: Document {
            url: url.into(),
            title: title.into(),
            text: text.into(),
            published: None,
            metadata: Vec::new(),
        },
    }
}

/// Answers searches the [`Mock`] does not, with `f(source, request)`.
pub fn mock_search(f: impl Fn(&str, &SearchRequest) -> Result<SearchOutcome, Error> + 'static) {
    STATE.with_borrow_mut(|s| s.on_search = Some(std::rc::Rc::new(Box::new(f))));
}

/// Answers page reads the [`Mock`] does not, with `f(url)`.
pub fn mock_fetch(f: impl Fn(&str) -> Result<Fetched, Failure> + 'static) {
    STATE.with_borrow_mut(|s| s.on_fetch = Some(std::rc::Rc::new(Box::new(f))));
}

/// Answers `artifacts::download(url, name)` with the bytes `f(url, name)`
/// gives (written to the bundle as `name`).
pub fn mock_download(f: impl Fn(&str, &str) -> Result<Vec<u8>, Error> + 'static) {
    STATE.with_borrow_mut(|s| s.on_download = Some(std::rc::Rc::new(Box::new(f))));
}

/// Sets a `[plugins.<id>]` setting for the current thread.
pub fn set_config(key: &str, value: &str) {
    STATE.with_borrow_mut(|s| {
        s.config.insert(key.into(), value.into());
    });
}

/// The files written to the bundle on this thread, by name.
pub fn artifacts() -> BTreeMap<String, Vec<u8>> {
    STATE.with_borrow(|s| s.artifacts.clone())
}

/// One bundle file as text (None when it was not written).
pub fn artifact_text(name: &str) -> Option<String> {
    STATE.with_borrow(|s| {
        s.artifacts
            .get(name)
            .map(|b| String::from_utf8_lossy(b).into_owned())
    })
}

/// The progress reported so far on this thread.
pub fn progress() -> Vec<Progress> {
    STATE.with_borrow(|s| s.progress.clone())
}

/// The lines logged so far on this thread, as `level: message`.
pub fn logs() -> Vec<String> {
    STATE.with_borrow(|s| s.logs.clone())
}

/// Forgets everything this thread mocked, wrote and reported.
pub fn reset() {
    STATE.with_borrow_mut(|s| *s = State::default());
}

// ---- what the SDK's wrappers call instead of the imports ----

pub(crate) fn search(source: &str, req: &SearchRequest) -> Result<SearchOutcome, Error> {
    let (canned, f) = STATE.with_borrow(|s| (s.searches.get(source).cloned(), s.on_search.clone()));
    if let Some(hits) = canned {
        let mut per: BTreeMap<String, usize> = BTreeMap::new();
        let limit = if req.limit == 0 {
            usize::MAX
        } else {
            req.limit as usize
        };
        let hits: Vec<Hit> = hits
            .into_iter()
            .filter(|h| {
                let n = per.entry(h.provider.clone()).or_default();
                *n += 1;
                *n <= limit
            })
            .collect();
        let providers: Vec<String> = per.into_keys().collect();
        return Ok(SearchOutcome {
            timings: providers.iter().map(|p| (p.clone(), 1)).collect(),
            providers,
            hits,
            failures: Vec::new(),
        });
    }
    match f {
        Some(f) => f(source, req),
        None => Err(Error::Internal(format!(
            "webrig_workflow_sdk::testing: no mocked search for source {source:?} \
             (query {:?}); add Mock::new().search({source:?}, hits) or mock_search",
            req.query
        ))),
    }
}

pub(crate) fn fetch(url: &str) -> Result<Fetched, Failure> {
    let (canned, f) = STATE.with_borrow(|s| (s.pages.get(url).cloned(), s.on_fetch.clone()));
    match (canned, f) {
        (Some(answer), _) => answer,
        (None, Some(f)) => f(url),
        (None, None) => Err(Failure {
            provider: "mock".into(),
            code: "not_found".into(),
            message: format!(
                "webrig_workflow_sdk::testing: no mocked page for {url}; add \
                 Mock::new().page({url:?}, title, text) or mock_fetch"
            ),
        }),
    }
}

pub(crate) fn write(name: &str, bytes: &[u8]) -> Result<String, Error> {
    if name.is_empty()
        || name.starts_with('/')
        || name.contains('\\')
        || name.split('/').any(|p| p == ".." || p.is_empty())
    {
        return Err(Error::InvalidInput(format!(
            "{name:?}: artifact names are plain relative names"
        )));
    }
    STATE.with_borrow_mut(|s| s.artifacts.insert(name.into(), bytes.to_vec()));
    Ok(name.into())
}

pub(crate) fn download(url: &str, name: &str) -> Result<Saved, Error> {
    let f = STATE.with_borrow(|s| s.on_download.clone());
    let Some(f) = f else {
        return Err(Error::NotFound(format!(
            "webrig_workflow_sdk::testing: no mocked download for {url}; add mock_download"
        )));
    };
    let bytes = f(url, name)?;
    let len = bytes.len() as u64;
    write(name, &bytes)?;
    Ok(Saved {
        name: name.into(),
        content_type: "application/octet-stream".into(),
        bytes: len,
    })
}

pub(crate) fn report(stage: &str, message: &str, done: u32, total: u32) {
    STATE.with_borrow_mut(|s| {
        s.progress.push(Progress {
            stage: stage.into(),
            message: message.into(),
            done,
            total,
        })
    });
}

pub(crate) fn config(key: &str) -> Option<String> {
    STATE.with_borrow(|s| s.config.get(key).cloned())
}

pub(crate) fn log(level: &str, message: &str) {
    STATE.with_borrow_mut(|s| s.logs.push(format!("{level}: {message}")));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serde_json::{Value, json};
    use crate::{Workflow, artifacts, param, progress as report_progress, runtime};

    /// A workflow as a crate would write it: search, read the top pages,
    /// write a report.
    struct Tiny;

    impl Workflow for Tiny {
        fn info() -> WorkflowInfo {
            WorkflowInfo {
                id: "tiny".into(),
                name: "Tiny".into(),
                description: "test workflow".into(),
                params: vec![param("topic", "string", true, "What to search for.")],
                outputs: vec!["report.md".into()],
            }
        }

        fn run(input: Value) -> Result<Value, Error> {
            let topic = input["topic"].as_str().unwrap_or_default();
            report_progress("search", topic, 0, 1);
            let found = runtime::search("web", topic, 2)?;
            let urls: Vec<String> = found.hits.iter().map(|h| h.item.url.clone()).collect();
            let mut md = format!("# {topic}\n");
            for (url, page) in urls.iter().zip(runtime::fetch_many(&urls)) {
                match page {
                    Ok(p) => md.push_str(&format!("- {}: {}\n", p.document.title, p.document.text)),
                    Err(f) => md.push_str(&format!("- {url} failed: {}\n", f.code)),
                }
            }
            crate::log::info(&format!("{} pages", urls.len()));
            artifacts::write("report.md", md.as_bytes())?;
            Ok(json!({"summary": md, "report": "report.md"}))
        }
    }

    #[test]
    fn a_mocked_run_runs_whole() {
        Mock::new()
            .search(
                "web",
                vec![
                    hit("web", "https://a.example/", "A"),
                    hit("web", "https://b.example/", "B"),
                    hit("web", "https://c.example/", "C"),
                ],
            )
            .page("https://a.example/", "A", "alpha")
            .page_fails("https://b.example/", "timeout", "slow")
            .install();
        let out = Tiny::run(json!({"topic": "rust"})).expect("run");
        assert_eq!(out["report"], "report.md");
        let report = artifact_text("report.md").expect("written");
        assert_eq!(
            report,
            "# rust\n- A: alpha\n- https://b.example/ failed: timeout\n"
        );
        assert_eq!(progress()[0].stage, "search");
        assert_eq!(logs(), ["info: 2 pages"]);
    }

    #[test]
    fn what_is_not_mocked_is_named() {
        match runtime::search("social", "q", 1) {
            Err(Error::Internal(m)) => assert!(m.contains("\"social\""), "{m}"),
            other => panic!("unexpected {other:?}"),
        }
        let pages = runtime::fetch_many(&["https://x.example/".into()]);
        match &pages[0] {
            Err(f) => assert!(f.message.contains("https://x.example/"), "{}", f.message),
            Ok(_) => panic!("answered"),
        }
        assert!(artifacts::write("../escape", b"x").is_err());
        assert!(artifacts::download("https://x.example/a.png", "a.png").is_err());
    }

    #[test]
    fn closures_answer_the_rest() {
        mock_search(|source, req| {
            Ok(SearchOutcome {
                hits: vec![hit(
                    source,
                    &format!("https://{source}.example/{}", req.query),
                    "x",
                )],
                failures: vec![],
                providers: vec![source.into()],
                timings: vec![],
            })
        });
        mock_download(|url, _| Ok(url.as_bytes().to_vec()));
        let many = runtime::search_many(&["web".into(), "community".into()], "q", 3);
        let urls: Vec<String> = many
            .into_iter()
            .map(|r| r.expect("answered").hits[0].item.url.clone())
            .collect();
        assert_eq!(
            urls,
            ["https://web.example/q", "https://community.example/q"]
        );
        let saved = artifacts::download("https://x.example/a.png", "img/a.png").expect("saved");
        assert_eq!(saved.bytes, 23);
        assert!(artifacts().contains_key("img/a.png"));
        set_config("k", " v ");
        assert_eq!(crate::config("k").as_deref(), Some("v"));
    }
}
