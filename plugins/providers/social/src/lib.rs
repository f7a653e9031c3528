//! The `social` provider: posts from a Mastodon server's public hashtag
//! timeline.
//!
//! `search` GETs `{base_url}/api/v1/timelines/tag/{tag}?limit={n}`
//! (default `base_url` `https://mastodon.social`; the tag is the query
//! without `#` and spaces, lowercased) and parses the array of Status
//! entities documented at
//! <https://docs.joinmastodon.org/methods/timelines/#tag> and
//! <https://docs.joinmastodon.org/entities/Status/>; see [`mastodon`].

pub mod mastodon;

use webrig_provider_sdk::types::{Error, ProviderInfo, ResultItem, SearchRequest};
use webrig_provider_sdk::{
    Provider, config_url, effective_limit, export_provider, http, require_query, url,
};

pub const DEFAULT_BASE_URL: &str = "https://mastodon.social";

struct Social;

impl Provider for Social {
    fn info() -> ProviderInfo {
        ProviderInfo {
            id: "social".into(),
            name: "Social".into(),
            source: "social".into(),
            operations: vec!["search".into()],
            description: "Mastodon posts for a hashtag.".into(),
        }
    }

    fn search(req: SearchRequest) -> Result<Vec<ResultItem>, Error> {
        let tag = mastodon::tag(require_query(&req.query)?)?;
        // Mastodon serves at most 40 statuses per page.
        let limit = effective_limit(req.limit, 20, 40);
        let base = config_url("base_url", DEFAULT_BASE_URL);
        let timeline = format!(
            "{base}/api/v1/timelines/tag/{}?limit={limit}",
            url::encode(&tag)
        );
        let resp = http::get(&timeline)?;
        let mut items = mastodon::parse(&resp.body)?;
        items.truncate(limit as usize);
        Ok(items)
    }
}

export_provider!(Social);
