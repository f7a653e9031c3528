//! A misbehaving provider for the sandbox tests: `search` does what its
//! query says — loop forever, allocate without end, recurse without end,
//! panic, return too much, fetch a URL, open the browser, read a page with
//! frames, leave a page open and fail.

/// The bindings and the export. wit-bindgen's generated ABI glue (lifting,
/// lowering, the exported functions) is unsafe code; the guest's own code
/// outside this module is not.
#[allow(unsafe_code)]
mod bindings {
    wit_bindgen::generate!({
        world: "provider-plugin",
        path: "../../../wit/v0.1.0",
    });

    use super::Sandbox;
    export!(Sandbox);
}

use bindings::exports::webrig::plugin::provider::Guest;
use bindings::webrig::plugin::types::{
    CrawlRequest, Document, Error, FetchRequest, PostRequest, ProviderInfo, ResultItem,
    SearchRequest,
};
use bindings::webrig::plugin::{browser, http};

struct Sandbox;

fn item(title: String) -> ResultItem {
    ResultItem {
        url: "https://sandbox.example/".into(),
        title,
        snippet: String::new(),
        published: None,
        extra: vec![],
    }
}

#[allow(unconditional_recursion, clippy::only_used_in_recursion)]
fn recurse(n: u64) -> u64 {
    std::hint::black_box(recurse(n + 1)) + 1
}

impl Guest for Sandbox {
    fn describe() -> ProviderInfo {
        ProviderInfo {
            id: "sandbox-guest".into(),
            name: "Sandbox guest".into(),
            source: "web".into(),
            operations: vec!["search".into()],
            description: "misbehaves on request".into(),
        }
    }

    fn search(req: SearchRequest) -> Result<Vec<ResultItem>, Error> {
        let q = req.query.as_str();
        match q {
            "ok" => Ok(vec![item("fine".into())]),
            "loop-forever" => {
                let mut x: u64 = 0;
                loop {
                    x = std::hint::black_box(x.wrapping_add(1));
                }
            }
            // Blocks in WASI (a clock poll), where no wasm runs.
            "sleep-forever" => {
                std::thread::sleep(std::time::Duration::from_secs(u64::MAX / 4));
                Ok(vec![item("woke".into())])
            }
            "memory-bomb" => {
                let mut hoard: Vec<Vec<u8>> = Vec::new();
                loop {
                    hoard.push(vec![1u8; 1 << 20]);
                    std::hint::black_box(&hoard);
                }
            }
            "stack-overflow" => Ok(vec![item(recurse(0).to_string())]),
            "panic" => panic!("the guest panicked on purpose"),
            "big-output" => Ok((0..20_000).map(|i| item(format!("{i:0>200}"))).collect()),
            "browser" => browser::open("https://example.com/").map(|p| vec![item(p)]),
            _ if q.starts_with("browse:") => {
                let page = browser::open(&q["browse:".len()..])?;
                let outline = browser::snapshot(&page)?;
                let text = browser::text(&page)?;
                let headings = browser::extract(&page, "h1")?;
                let png = browser::screenshot(&page)?;
                let bad = browser::extract(&page, "[[nope");
                browser::close(&page);
                let mut it = item(headings.first().cloned().unwrap_or_default());
                it.snippet = outline;
                it.extra = vec![
                    ("text_len".into(), text.len().to_string()),
                    ("png".into(), (png.starts_with(b"\x89PNG")).to_string()),
                    ("bad_selector".into(), format!("{bad:?}")),
                    ("page".into(), page),
                ];
                Ok(vec![it])
            }
            // Waits for the page's probes (its text says "probes done"),
            // then reads it every way.
            _ if q.starts_with("read:") => {
                let page = browser::open(&q["read:".len()..])?;
                let mut text = String::new();
                for _ in 0..80 {
                    text = browser::text(&page)?;
                    if text.contains("probes done") {
                        break;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                let outline = browser::snapshot(&page)?;
                let all = browser::extract(&page, "p")?.join("\n");
                let png = browser::screenshot(&page)?;
                browser::close(&page);
                let mut it = item("read".into());
                it.snippet = outline;
                it.extra = vec![
                    ("text".into(), text),
                    ("extract".into(), all),
                    ("png".into(), (png.starts_with(b"\x89PNG")).to_string()),
                ];
                Ok(vec![it])
            }
            // `leave-open:HOW:URL`: opens a page, then fails without
            // closing it: an error (`err`), a panic, or the deadline (`loop`).
            _ if q.starts_with("leave-open:") => {
                let rest = &q["leave-open:".len()..];
                let (how, url) = rest
                    .split_once(':')
                    .ok_or_else(|| Error::InvalidInput("leave-open:HOW:URL".into()))?;
                let page = browser::open(url)?;
                match how {
                    "err" => Err(Error::Upstream(format!("failed with {page} open"))),
                    "panic" => panic!("the guest panicked with {page} open"),
                    _ => {
                        let mut x: u64 = 0;
                        loop {
                            x = std::hint::black_box(x.wrapping_add(1));
                        }
                    }
                }
            }
            // Reads a page id it did not open in this call.
            _ if q.starts_with("read-page:") => {
                let text = browser::text(&q["read-page:".len()..])?;
                Ok(vec![item(text)])
            }
            _ => match q.strip_prefix("fetch:") {
                Some(url) => {
                    let resp = http::fetch(&http::Request {
                        method: "GET".into(),
                        url: url.into(),
                        headers: vec![],
                        body: None,
                    })?;
                    Ok(vec![item(format!("{} {}", resp.status, resp.final_url))])
                }
                None => Err(Error::InvalidInput(format!("unknown behavior {q:?}"))),
            },
        }
    }

    fn fetch(_req: FetchRequest) -> Result<Document, Error> {
        Err(Error::Unsupported("fetch".into()))
    }

    fn crawl(_req: CrawlRequest) -> Result<Vec<Document>, Error> {
        Err(Error::Unsupported("crawl".into()))
    }

    fn post(_req: PostRequest) -> Result<String, Error> {
        Err(Error::Unsupported("post".into()))
    }
}
