//! The `web` provider: search through DuckDuckGo's HTML endpoint, fetch any
//! page as readable text with what the page says about itself.
//!
//! * `search` GETs `{base_url}/html/?q={query}` (default base URL
//!   `https://html.duckduckgo.com`, config key `base_url`) and parses the
//!   results page described in [`ddg`] — the no-JavaScript page at
//!   <https://html.duckduckgo.com/html/>.
//! * `fetch` GETs the URL and returns, through [`article`], what the
//!   kit's `readable` module reads: the main text (after Mozilla's
//!   Readability, <https://github.com/mozilla/readability>) and the
//!   page's metadata (Open Graph <https://ogp.me/>, `article:*`
//!   properties, schema.org JSON-LD `Article`, `<time datetime>`).

pub mod article;
pub mod ddg;

use webrig_provider_sdk::types::{
    Document, Error, FetchRequest, ProviderInfo, ResultItem, SearchRequest,
};
use webrig_provider_sdk::{
    Provider, config_url, effective_limit, export_provider, http, log, require_http_url,
    require_query, url,
};

/// DuckDuckGo's no-JavaScript endpoint.
pub const DEFAULT_BASE_URL: &str = "https://html.duckduckgo.com";

struct Web;

impl Provider for Web {
    fn info() -> ProviderInfo {
        ProviderInfo {
            id: "web".into(),
            name: "Web".into(),
            source: "web".into(),
            operations: vec!["search".into(), "fetch".into()],
            description: "Web search (DuckDuckGo HTML) and readable page fetch.".into(),
        }
    }

    fn search(req: SearchRequest) -> Result<Vec<ResultItem>, Error> {
        let query = require_query(&req.query)?;
        let limit = effective_limit(req.limit, 10, 30) as usize;
        let base = config_url("base_url", DEFAULT_BASE_URL);
        let search_url = format!("{base}/html/?q={}", url::encode(query));
        let page = http::get_text(&search_url)?;
        let mut items = ddg::parse_results(&page)?;
        log::debug(&format!(
            "duckduckgo: {} results for {query:?}",
            items.len()
        ));
        items.truncate(limit);
        Ok(items)
    }

    fn fetch(req: FetchRequest) -> Result<Document, Error> {
        let target = require_http_url(&req.url)?;
        let resp = http::get(target)?;
        Ok(article::read(&resp.text(), &resp.final_url))
    }
}

export_provider!(Web);
