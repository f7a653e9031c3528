//! The smallest provider: `search` answers with greetings, `fetch` reads a
//! page through the host's `http` import (only hosts the user granted).

wit_bindgen::generate!({
    world: "provider-plugin",
    path: "../../../wit/v0.1.0",
});

use exports::webrig::plugin::provider::Guest;
use webrig::plugin::types::{
    CrawlRequest, Document, Error, FetchRequest, PostRequest, ProviderInfo, ResultItem,
    SearchRequest,
};
use webrig::plugin::{http, log};

struct Hello;

impl Guest for Hello {
    fn describe() -> ProviderInfo {
        ProviderInfo {
            id: "hello-provider".into(),
            name: "Hello".into(),
            source: "web".into(),
            operations: vec!["search".into(), "fetch".into()],
            description: "Says hello; fetches pages from granted hosts.".into(),
        }
    }

    fn search(req: SearchRequest) -> Result<Vec<ResultItem>, Error> {
        if req.query.trim().is_empty() {
            return Err(Error::InvalidInput("the query is empty".into()));
        }
        log::log(log::Level::Info, &format!("searching for {}", req.query));
        Ok((1..=req.limit.min(3))
            .map(|i| ResultItem {
                url: format!("https://hello.example/{i}"),
                title: format!("Hello, {} #{i}", req.query),
                snippet: "a greeting".into(),
                published: None,
                extra: vec![],
            })
            .collect())
    }

    fn fetch(req: FetchRequest) -> Result<Document, Error> {
        let resp = http::fetch(&http::Request {
            method: "GET".into(),
            url: req.url.clone(),
            headers: vec![],
            body: None,
        })?;
        let text = String::from_utf8_lossy(&resp.body).into_owned();
        let title = text
            .split("<title>")
            .nth(1)
            .and_then(|t| t.split("</title>").next())
            .unwrap_or_default()
            .trim()
            .to_string();
        Ok(Document {
            url: resp.final_url,
            title,
            text,
            published: None,
            metadata: vec![("status".into(), resp.status.to_string())],
        })
    }

    fn crawl(_req: CrawlRequest) -> Result<Vec<Document>, Error> {
        Err(Error::Unsupported("crawl".into()))
    }

    fn post(_req: PostRequest) -> Result<String, Error> {
        Err(Error::Unsupported("post".into()))
    }
}

export!(Hello);
