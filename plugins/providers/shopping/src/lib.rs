//! The `shopping` provider: products from a shop the user points it at.
//!
//! * `search` GETs the config value `search_url` with `{query}` replaced by
//!   the percent-encoded query (e.g. `https://shop.example/search?q={query}`;
//!   there is no default shop). Products described on that listing page are
//!   the results; when the listing only links to products (a schema.org
//!   `ItemList` of `ListItem` URLs, or product-looking links), up to `limit`
//!   of those pages on the listing's host are fetched and read.
//! * `fetch` reads one product page.
//!
//! Products are read from schema.org `Product` data
//! (<https://schema.org/Product>, <https://schema.org/Offer>), as JSON-LD
//! (<https://json-ld.org/>, including `@graph` and `ItemList`) or as HTML
//! microdata (<https://html.spec.whatwg.org/multipage/microdata.html>);
//! Open Graph product tags are the last resort — all read by the
//! kit's `html::product`, which also merges the page's feature lists and
//! spec tables and reads the offer's seller and shipping.

pub mod listing;
pub mod product;

use webrig_provider_sdk::types::{
    Document, Error, FetchRequest, ProviderInfo, ResultItem, SearchRequest,
};
use webrig_provider_sdk::{
    Provider, config, effective_limit, export_provider, http, log, require_http_url, require_query,
    url,
};

struct Shopping;

/// The listing URL for `query` from the `search_url` template.
pub fn search_url(template: Option<String>, query: &str) -> Result<String, Error> {
    let template = template.ok_or_else(|| {
        Error::InvalidInput(
            "set plugins.shopping.search_url (a shop's search URL with {query}, e.g. https://shop.example/search?q={query})"
                .into(),
        )
    })?;
    if !template.contains("{query}") {
        return Err(Error::InvalidInput(format!(
            "plugins.shopping.search_url {template:?} has no {{query}} placeholder"
        )));
    }
    let filled = template.replace("{query}", &url::encode(query));
    require_http_url(&filled).map(str::to_string)
}

impl Provider for Shopping {
    fn info() -> ProviderInfo {
        ProviderInfo {
            id: "shop".into(),
            name: "Shopping".into(),
            source: "shopping".into(),
            operations: vec!["search".into(), "fetch".into()],
            description: "Products from a shop's pages (schema.org data).".into(),
        }
    }

    fn search(req: SearchRequest) -> Result<Vec<ResultItem>, Error> {
        let query = require_query(&req.query)?;
        let limit = effective_limit(req.limit, 10, 30) as usize;
        let listing_url = search_url(config("search_url"), query)?;
        let resp = http::get(&listing_url)?;
        let found = listing::parse(&resp.text(), &resp.final_url);
        let mut products = found.products;
        if products.is_empty() {
            for link in found.links.iter().take(limit) {
                match http::get(link) {
                    Ok(page) => products.extend(product::parse_page(&page.text(), &page.final_url)),
                    Err(e) => log::warn(&format!("skipping product page {link}: {e:?}")),
                }
            }
        }
        products.truncate(limit);
        Ok(products.into_iter().map(product::into_result).collect())
    }

    fn fetch(req: FetchRequest) -> Result<Document, Error> {
        let target = require_http_url(&req.url)?;
        let resp = http::get(target)?;
        product::parse_page(&resp.text(), &resp.final_url)
            .map(product::into_document)
            .ok_or_else(|| {
                Error::Upstream(format!(
                    "{} describes no product (no schema.org Product or og product tags)",
                    resp.final_url
                ))
            })
    }
}

export_provider!(Shopping);

#[cfg(test)]
mod tests;
