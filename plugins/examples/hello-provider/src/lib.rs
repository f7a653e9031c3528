//! The smallest provider: `search` answers with greetings, `fetch` reads a
//! page through the host's `http` import (only hosts the user granted).
//! The host's sandbox tests depend on exactly this behaviour.

use webrig_provider_sdk::types::{
    Document, Error, FetchRequest, ProviderInfo, ResultItem, SearchRequest,
};
use webrig_provider_sdk::{Provider, export_provider, html, http, log};

struct Hello;

impl Provider for Hello {
    fn info() -> ProviderInfo {
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
        log::info(&format!("searching for {}", req.query));
        Ok((1..=req.limit.min(3))
            .map(|i| ResultItem {
                url: format!("https://hello.example/{i}"),
                title: format!("Hello, {} #{i}", req.query),
                snippet: "a greeting".into(),
                published: None,
                // Options (`webrig search --option k=v`) come back as extras.
                extra: req.options.clone(),
            })
            .collect())
    }

    fn fetch(req: FetchRequest) -> Result<Document, Error> {
        // Any status is an answer here: it is reported in the metadata.
        let resp = http::get_unchecked(&req.url)?;
        let text = resp.text();
        let doc = html::Document::parse(&text);
        let title = doc.find("title").map(|t| doc.text(t)).unwrap_or_default();
        Ok(Document {
            url: resp.final_url,
            title,
            text,
            published: None,
            metadata: vec![("status".into(), resp.status.to_string())],
        })
    }
}

export_provider!(Hello);
