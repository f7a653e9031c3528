//! A shop's search/listing page: the products it describes, or else the
//! product pages it links to (same host only, deduplicated, in order).
//!
//! Links come from schema.org `ItemList`s (JSON-LD or microdata) and, when
//! a page has none, from anchors whose path looks like a product page
//! (`/product`, `/products/`, `/p/`, `/item`, `/dp/`).

use crate::product::Product;
use webrig_provider_sdk::html::Document;
use webrig_provider_sdk::html::product::{jsonld, microdata};
use webrig_provider_sdk::url;

/// Path fragments that mark a product page in shop URL schemes.
const PRODUCT_PATHS: &[&str] = &["/product", "/p/", "/item", "/dp/", "/shop/"];

#[derive(Debug, Default)]
pub struct Listing {
    pub products: Vec<Product>,
    /// Absolute product page URLs on the listing's host.
    pub links: Vec<String>,
}

pub fn parse(page: &str, page_url: &str) -> Listing {
    let doc = Document::parse(page);
    let ld = jsonld::products(&doc);
    let mut products: Vec<Product> = ld
        .products
        .into_iter()
        .chain(microdata::products(&doc))
        .filter_map(|p| p.finish(page_url))
        .collect();
    // The same product in JSON-LD and microdata is one product.
    let mut seen = Vec::new();
    products.retain(|p| {
        let key = (p.url.clone(), p.name.clone());
        let new = !seen.contains(&key);
        seen.push(key);
        new
    });
    let mut candidates = ld.links;
    candidates.extend(microdata::list_links(&doc));
    if candidates.is_empty() && products.is_empty() {
        candidates = doc
            .find_all("a")
            .filter_map(|a| doc.attr(a, "href"))
            .filter(|h| {
                let path = h
                    .split(['?', '#'])
                    .next()
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                PRODUCT_PATHS.iter().any(|p| path.contains(p)) || path.starts_with("product")
            })
            .map(str::to_string)
            .collect();
    }
    let host = url::host(page_url);
    let mut links: Vec<String> = Vec::new();
    for href in candidates {
        let Some(abs) = url::resolve(page_url, &href) else {
            continue;
        };
        let abs = abs.split('#').next().unwrap_or_default().to_string();
        if host.is_some() && url::host(&abs) == host && abs != page_url && !links.contains(&abs) {
            links.push(abs);
        }
    }
    Listing { products, links }
}
