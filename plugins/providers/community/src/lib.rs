//! The `community` provider: discussions from Hacker News and Reddit.
//!
//! * Hacker News: `GET {hn_url}/api/v1/search?query={q}&tags=story&hitsPerPage={n}`
//!   (default `hn_url` `https://hn.algolia.com`), the Algolia search API
//!   documented at <https://hn.algolia.com/api>; parsed by [`hn`].
//! * Reddit: `GET {reddit_url}/search.json?q={q}&limit={n}&sort=relevance`
//!   (default `reddit_url` `https://www.reddit.com`), a listing as
//!   documented at <https://www.reddit.com/dev/api/#GET_search>; parsed
//!   by [`reddit`].
//!
//! Both are asked; answers are interleaved (HN first). When one service
//! fails and the other answers, the answers are returned (the failure is
//! logged); when both fail, the first error is returned. The option
//! `("site", "hackernews" | "reddit")` asks only one.

pub mod hn;
pub mod reddit;

use webrig_provider_sdk::types::{Error, ProviderInfo, ResultItem, SearchRequest};
use webrig_provider_sdk::{
    Provider, config_url, effective_limit, export_provider, http, log, require_query, url,
};

pub const DEFAULT_HN_URL: &str = "https://hn.algolia.com";
pub const DEFAULT_REDDIT_URL: &str = "https://www.reddit.com";

struct Community;

/// Which services a search asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sites {
    pub hackernews: bool,
    pub reddit: bool,
}

/// Reads the `site` option: absent means both.
pub fn sites(options: &[(String, String)]) -> Result<Sites, Error> {
    match options
        .iter()
        .find(|(k, _)| k == "site")
        .map(|(_, v)| v.trim().to_ascii_lowercase())
    {
        None => Ok(Sites {
            hackernews: true,
            reddit: true,
        }),
        Some(v) if v == "hackernews" || v == "hn" => Ok(Sites {
            hackernews: true,
            reddit: false,
        }),
        Some(v) if v == "reddit" => Ok(Sites {
            hackernews: false,
            reddit: true,
        }),
        Some(v) => Err(Error::InvalidInput(format!(
            "option site={v:?}: expected \"hackernews\" or \"reddit\""
        ))),
    }
}

impl Provider for Community {
    fn info() -> ProviderInfo {
        ProviderInfo {
            id: "community".into(),
            name: "Community".into(),
            source: "community".into(),
            operations: vec!["search".into()],
            description: "Hacker News and Reddit discussions.".into(),
        }
    }

    fn search(req: SearchRequest) -> Result<Vec<ResultItem>, Error> {
        let query = require_query(&req.query)?;
        let sites = sites(&req.options)?;
        let limit = effective_limit(req.limit, 10, 100);
        let q = url::encode(query);
        let hn = sites.hackernews.then(|| {
            let base = config_url("hn_url", DEFAULT_HN_URL);
            let url = format!("{base}/api/v1/search?query={q}&tags=story&hitsPerPage={limit}");
            http::get(&url).and_then(|r| hn::parse(&r.body))
        });
        let reddit = sites.reddit.then(|| {
            let base = config_url("reddit_url", DEFAULT_REDDIT_URL);
            let url = format!("{base}/search.json?q={q}&limit={limit}&sort=relevance");
            http::get(&url).and_then(|r| reddit::parse(&r.body))
        });
        for (name, outcome) in [("hackernews", &hn), ("reddit", &reddit)] {
            if let Some(Err(e)) = outcome {
                log::warn(&format!("{name} search failed: {e:?}"));
            }
        }
        let mut items = merge(hn, reddit)?;
        items.truncate(limit as usize);
        Ok(items)
    }
}

/// Interleaves the answers of the services that were asked. A failed
/// service is skipped when another answered; all failing is an error.
pub fn merge(
    hn: Option<Result<Vec<ResultItem>, Error>>,
    reddit: Option<Result<Vec<ResultItem>, Error>>,
) -> Result<Vec<ResultItem>, Error> {
    let mut answers = Vec::new();
    let mut first_error = None;
    for outcome in [hn, reddit].into_iter().flatten() {
        match outcome {
            Ok(items) => answers.push(items),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    if answers.is_empty() {
        return Err(first_error.unwrap_or_else(|| Error::Internal("no site was searched".into())));
    }
    let longest = answers.iter().map(Vec::len).max().unwrap_or(0);
    let mut iters: Vec<_> = answers.into_iter().map(Vec::into_iter).collect();
    let mut out = Vec::new();
    for _ in 0..longest {
        for it in &mut iters {
            out.extend(it.next());
        }
    }
    Ok(out)
}

export_provider!(Community);

#[cfg(test)]
mod tests;
