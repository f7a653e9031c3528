//! Run a provider natively, against canned HTTP answers, in `cargo test`.
//!
//! On the host the SDK's [`http`](crate::http), [`config`](crate::config)
//! and [`log`](crate::log) call the component imports; compiled for any
//! other target (your machine, in `cargo test`), they call this module
//! instead, so a provider's `search` and `fetch` run whole without a daemon:
//!
//! ```ignore
//! use webrig_provider_sdk::testing::{self, Mock};
//!
//! #[test]
//! fn search_reads_the_api() {
//!     Mock::new()
//!         .get("https://api.example.com/search?q=rust", 200, r#"{"items": []}"#)
//!         .header("content-type", "application/json")
//!         .install();
//!     testing::set_config("base_url", "https://api.example.com");
//!     let found = <Mine as Provider>::search(testing::search_request("rust", 5));
//!     assert!(found.unwrap().is_empty());
//!     assert!(testing::logs().iter().any(|l| l.contains("rust")));
//! }
//! ```
//!
//! - A request nothing answers fails with an `internal` error naming its
//!   method and URL (and what was mocked), so a typo in a test shows.
//! - The state is per thread: `cargo test` runs each test on its own
//!   thread, so parallel tests never see each other's mocks, config or
//!   logs. Work a provider hands to another thread sees an empty mock.
//! - URLs match exactly (the whole string, query included); for anything
//!   looser, answer with a closure: [`mock_http`].
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
//! `#[cfg(target_arch = "wasm32")] export_provider!(Mine);`.
//!
//! This module exists only when not targeting wasm32: a component never
//! contains it, and a provider cannot call it by mistake in production.

use std::cell::RefCell;
use std::collections::BTreeMap;

use crate::http::Response;
use crate::types::{Error, SearchRequest};

/// An outbound request as the provider sent it (method, url, headers, body).
pub use crate::webrig::plugin::http::Request;

type Handler = Box<dyn Fn(&Request) -> Result<Response, Error>>;

struct Route {
    method: String,
    url: String,
    answer: Result<Response, Error>,
}

#[derive(Default)]
struct State {
    routes: Vec<Route>,
    handler: Option<Handler>,
    config: BTreeMap<String, String>,
    logs: Vec<String>,
    requests: Vec<Request>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::default();
}

/// Canned HTTP answers, built then [installed](Mock::install) for the
/// current thread.
#[derive(Default)]
#[must_use = "a Mock does nothing until .install()"]
pub struct Mock {
    routes: Vec<Route>,
    config: Vec<(String, String)>,
}

impl Mock {
    pub fn new() -> Mock {
        Mock::default()
    }

    /// Answers `GET url` with `status` and `body` (every time it is asked).
    pub fn get(self, url: &str, status: u16, body: impl Into<Vec<u8>>) -> Mock {
        self.respond("GET", url, status, body)
    }

    /// Answers `method url` with `status` and `body`.
    pub fn respond(
        mut self,
        method: &str,
        url: &str,
        status: u16,
        body: impl Into<Vec<u8>>,
    ) -> Mock {
        self.routes.push(Route {
            method: method.to_ascii_uppercase(),
            url: url.to_string(),
            answer: Ok(response(status, body)),
        });
        self
    }

    /// Fails `GET url` the way the host would (a refused grant is
    /// `Error::Denied`, a slow server `Error::Timeout`, …).
    pub fn fail(mut self, url: &str, error: Error) -> Mock {
        self.routes.push(Route {
            method: "GET".into(),
            url: url.to_string(),
            answer: Err(error),
        });
        self
    }

    /// Adds a response header to the answer added last.
    pub fn header(mut self, name: &str, value: &str) -> Mock {
        self.last("header")
            .headers
            .push((name.into(), value.into()));
        self
    }

    /// The answer added last came after redirects ending at `url` (its
    /// `final_url`; by default the URL asked).
    pub fn redirected_to(mut self, url: &str) -> Mock {
        self.last("redirected_to").final_url = url.into();
        self
    }

    /// A `[plugins.<id>]` setting, as [`set_config`].
    pub fn config(mut self, key: &str, value: &str) -> Mock {
        self.config.push((key.into(), value.into()));
        self
    }

    /// Makes these the current thread's answers, replacing earlier routes
    /// and any [`mock_http`] closure. Settings are added to the current
    /// ones; logs and recorded requests are kept (see [`reset`]).
    pub fn install(self) {
        STATE.with_borrow_mut(|s| {
            s.routes = self.routes;
            s.handler = None;
            s.config.extend(self.config);
        });
    }

    fn last(&mut self, what: &str) -> &mut Response {
        match self.routes.last_mut().map(|r| &mut r.answer) {
            Some(Ok(resp)) => resp,
            _ => panic!("Mock::{what} applies to the answer added last (.get or .respond)"),
        }
    }
}

/// Answers every request the [`Mock`] routes do not, with `f`. Replaces an
/// earlier closure; routes installed before are kept and still win.
///
/// ```ignore
/// testing::mock_http(|req| {
///     assert_eq!(req.method, "GET");
///     Ok(testing::response(200, format!("you asked {}", req.url)))
/// });
/// ```
pub fn mock_http(f: impl Fn(&Request) -> Result<Response, Error> + 'static) {
    STATE.with_borrow_mut(|s| s.handler = Some(Box::new(f)));
}

/// A response with `status` and `body`, for [`mock_http`] closures (its
/// `final_url` left empty becomes the URL asked).
pub fn response(status: u16, body: impl Into<Vec<u8>>) -> Response {
    Response {
        status,
        headers: Vec::new(),
        body: body.into(),
        final_url: String::new(),
    }
}

/// Sets a `[plugins.<id>]` setting for the current thread (what
/// [`crate::config`] reads).
pub fn set_config(key: &str, value: &str) {
    STATE.with_borrow_mut(|s| {
        s.config.insert(key.into(), value.into());
    });
}

/// Unsets a setting.
pub fn unset_config(key: &str) {
    STATE.with_borrow_mut(|s| {
        s.config.remove(key);
    });
}

/// The lines logged so far on this thread, as `level: message`
/// (`info: searching for rust`).
pub fn logs() -> Vec<String> {
    STATE.with_borrow(|s| s.logs.clone())
}

/// Every request sent so far on this thread, answered or not, in order.
pub fn requests() -> Vec<Request> {
    STATE.with_borrow(|s| s.requests.clone())
}

/// Forgets this thread's routes, closure, settings, logs and requests.
pub fn reset() {
    STATE.with_borrow_mut(|s| *s = State::default());
}

/// A search request as the host builds it (no options).
pub fn search_request(query: &str, limit: u32) -> SearchRequest {
    SearchRequest {
        query: query.into(),
        limit,
        options: Vec::new(),
    }
}

// ---- what the SDK's wrappers call instead of the imports ----

pub(crate) fn fetch(req: &Request) -> Result<Response, Error> {
    // The closure runs outside the borrow: it may call logs() or the like.
    let handler = STATE.with_borrow_mut(|s| {
        s.requests.push(req.clone());
        let method = req.method.to_ascii_uppercase();
        if let Some(route) = s
            .routes
            .iter()
            .find(|r| r.method == method && r.url == req.url)
        {
            return Err(route.answer.clone());
        }
        Ok(s.handler.take())
    });
    let answer = match handler {
        Err(answer) => answer,
        Ok(Some(f)) => {
            let answer = f(req);
            STATE.with_borrow_mut(|s| {
                s.handler.get_or_insert(f);
            });
            answer
        }
        Ok(None) => Err(Error::Internal(unmatched(req))),
    };
    answer.map(|mut resp| {
        if resp.final_url.is_empty() {
            resp.final_url = req.url.clone();
        }
        resp
    })
}

fn unmatched(req: &Request) -> String {
    let mocked: Vec<String> = STATE.with_borrow(|s| {
        s.routes
            .iter()
            .map(|r| format!("{} {}", r.method, r.url))
            .collect()
    });
    let mocked = if mocked.is_empty() {
        "nothing is mocked on this thread".to_string()
    } else {
        format!("mocked: {}", mocked.join(", "))
    };
    format!(
        "webrig_provider_sdk::testing: no mocked answer for {} {} ({mocked}); add \
         Mock::new().get({:?}, 200, body) or a mock_http closure",
        req.method, req.url, req.url
    )
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
    use crate::types::{Document, FetchRequest, ProviderInfo, ResultItem};
    use crate::{Provider, config_url, effective_limit, http, log, require_query};

    /// A provider as a service's crate would write it: a JSON search API
    /// at a configurable base URL, and fetch of HTML pages.
    struct Tiny;

    impl Provider for Tiny {
        fn info() -> ProviderInfo {
            ProviderInfo {
                id: "tiny".into(),
                name: "Tiny".into(),
                source: "web".into(),
                operations: vec!["search".into(), "fetch".into()],
                description: "test provider".into(),
            }
        }

        fn search(req: SearchRequest) -> Result<Vec<ResultItem>, Error> {
            let q = require_query(&req.query)?;
            let base = config_url("base_url", "https://api.tiny.example");
            let limit = effective_limit(req.limit, 10, 50);
            let url = format!("{base}/search?q={}&n={limit}", crate::url::encode(q));
            log::info(&format!("searching for {q}"));
            let body: serde_json::Value = http::get_json(&url)?;
            Ok(body["items"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|i| ResultItem {
                    url: i["url"].as_str().unwrap_or_default().into(),
                    title: i["title"].as_str().unwrap_or_default().into(),
                    snippet: String::new(),
                    published: None,
                    extra: vec![],
                })
                .collect())
        }

        fn fetch(req: FetchRequest) -> Result<Document, Error> {
            let resp = http::get(&req.url)?;
            let text = resp.text();
            let doc = crate::html::Document::parse(&text);
            let title = doc.find("title").map(|t| doc.text(t)).unwrap_or_default();
            let kind = resp
                .headers
                .iter()
                .find(|(k, _)| k == "content-type")
                .map(|(_, v)| v.clone())
                .unwrap_or_default();
            Ok(Document {
                url: resp.final_url,
                title,
                text,
                published: None,
                metadata: vec![("content-type".into(), kind)],
            })
        }
    }

    const ITEMS: &str = r#"{"items": [
        {"url": "https://a.example/1", "title": "One"},
        {"url": "https://a.example/2", "title": "Two"}
    ]}"#;

    #[test]
    fn a_mocked_search_runs_whole() {
        Mock::new()
            .get(
                "https://api.tiny.example/search?q=rust%20wasm&n=5",
                200,
                ITEMS,
            )
            .install();
        let found = Tiny::search(search_request("rust wasm", 5)).expect("search");
        let titles: Vec<&str> = found.iter().map(|r| r.title.as_str()).collect();
        assert_eq!(titles, ["One", "Two"]);
        assert_eq!(logs(), ["info: searching for rust wasm"]);
        let sent = requests();
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].method, "GET");
        assert!(sent[0].headers.iter().any(|(k, _)| k == "user-agent"));
    }

    #[test]
    fn config_moves_the_base_url() {
        Mock::new()
            .config("base_url", "http://127.0.0.1:9/api/")
            .get("http://127.0.0.1:9/api/search?q=x&n=10", 200, ITEMS)
            .install();
        assert_eq!(
            Tiny::search(search_request("x", 0)).expect("search").len(),
            2
        );
        set_config("base_url", "   ");
        assert_eq!(crate::config("base_url"), None, "blank is unset");
        unset_config("base_url");
        assert_eq!(crate::config("base_url"), None);
    }

    #[test]
    fn an_unmatched_request_names_its_url() {
        Mock::new()
            .get("https://elsewhere.example/", 200, "")
            .install();
        match Tiny::search(search_request("rust", 1)) {
            Err(Error::Internal(m)) => {
                assert!(
                    m.contains("GET https://api.tiny.example/search?q=rust&n=1"),
                    "{m}"
                );
                assert!(m.contains("mocked: GET https://elsewhere.example/"), "{m}");
            }
            other => panic!("unexpected {other:?}"),
        }
        reset();
        match http::get("https://x.example/") {
            Err(Error::Internal(m)) => assert!(m.contains("nothing is mocked"), "{m}"),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn statuses_headers_redirects_and_failures() {
        Mock::new()
            .get("https://a.example/page", 200, "<title>Hi</title><p>x</p>")
            .header("content-type", "text/html")
            .redirected_to("https://a.example/page/")
            .get("https://a.example/gone", 404, "nope")
            .fail("https://a.example/slow", Error::Timeout("slow".into()))
            .install();
        let doc = Tiny::fetch(FetchRequest {
            url: "https://a.example/page".into(),
        })
        .expect("fetch");
        assert_eq!(doc.title, "Hi");
        assert_eq!(doc.url, "https://a.example/page/");
        assert_eq!(doc.metadata, [("content-type".into(), "text/html".into())]);
        let gone = Tiny::fetch(FetchRequest {
            url: "https://a.example/gone".into(),
        });
        assert!(matches!(gone, Err(Error::NotFound(_))), "{gone:?}");
        let unchecked = http::get_unchecked("https://a.example/gone").expect("answered");
        assert_eq!((unchecked.status, unchecked.text().as_str()), (404, "nope"));
        assert!(matches!(
            http::get("https://a.example/slow"),
            Err(Error::Timeout(_))
        ));
    }

    #[test]
    fn a_closure_answers_what_routes_do_not() {
        Mock::new()
            .get("https://a.example/fixed", 200, "fixed")
            .install();
        mock_http(|req| {
            log::debug("in the closure");
            Ok(response(201, format!("echo {}", req.url)))
        });
        assert_eq!(
            http::get_text("https://a.example/fixed").expect("route"),
            "fixed"
        );
        let r = http::get("https://b.example/any").expect("closure");
        assert_eq!(
            (r.status, r.text()),
            (201, "echo https://b.example/any".into())
        );
        assert_eq!(r.final_url, "https://b.example/any");
        // The closure is still there after answering.
        assert!(http::get("https://b.example/again").is_ok());
        assert_eq!(logs().len(), 2);
    }

    #[test]
    fn threads_do_not_share_mocks() {
        Mock::new()
            .get("https://a.example/", 200, "mine")
            .config("k", "v")
            .install();
        log::warn("here");
        std::thread::spawn(|| {
            assert!(http::get("https://a.example/").is_err());
            assert_eq!(crate::config("k"), None);
            assert!(logs().is_empty());
        })
        .join()
        .expect("other thread");
        assert_eq!(http::get_text("https://a.example/").expect("mine"), "mine");
        assert_eq!(logs(), ["warn: here"]);
    }
}
