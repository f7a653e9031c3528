//! schema.org products in JSON-LD: `Product` objects wherever the page put
//! them (top level, arrays, `@graph`, `mainEntity`, `ItemList` →
//! `ListItem` → `item`), and the product links of `ItemList`s whose
//! `ListItem`s only carry a `url`.
//!
//! Offers come as an `Offer`, a list of them, or an `AggregateOffer`
//! (`lowPrice`); the price may also sit in `priceSpecification`.

use crate::product::Product;
use webrig_plugin_sdk::html::{Document, meta};
use webrig_plugin_sdk::serde_json::Value;

/// Nesting deeper than this is not searched (hostile or broken data).
const MAX_DEPTH: usize = 12;

#[derive(Debug, Default)]
pub struct Found {
    pub products: Vec<Product>,
    /// Product page links (as written, maybe relative).
    pub links: Vec<String>,
}

pub fn products(doc: &Document) -> Found {
    let mut found = Found::default();
    for block in meta::json_ld_blocks(doc) {
        walk(&block, 0, &mut found);
    }
    found
}

fn walk(v: &Value, depth: usize, found: &mut Found) {
    if depth > MAX_DEPTH {
        return;
    }
    match v {
        Value::Array(items) => items.iter().for_each(|i| walk(i, depth + 1, found)),
        Value::Object(map) => {
            if meta::has_type(v, "Product") || meta::has_type(v, "ProductGroup") {
                found.products.push(product(v));
                return;
            }
            // Breadcrumbs are ListItems too, but they link to categories.
            if meta::has_type(v, "BreadcrumbList") {
                return;
            }
            if meta::has_type(v, "ListItem") {
                match v.get("item") {
                    Some(item @ Value::Object(_)) if meta::has_type(item, "Product") => {
                        let mut p = product(item);
                        if p.url.is_empty() {
                            p.url = str_of(v.get("url")).unwrap_or_default();
                        }
                        found.products.push(p);
                    }
                    Some(item) => {
                        // An item that is a URL, or a reference object.
                        if let Some(link) = str_of(Some(item))
                            .filter(|_| item.is_string())
                            .or_else(|| str_of(item.get("url")))
                            .or_else(|| str_of(item.get("@id")))
                            .or_else(|| str_of(v.get("url")))
                        {
                            found.links.push(link);
                        }
                    }
                    None => {
                        if let Some(link) = str_of(v.get("url")) {
                            found.links.push(link);
                        }
                    }
                }
                return;
            }
            for (k, child) in map {
                if k != "@context" {
                    walk(child, depth + 1, found);
                }
            }
        }
        _ => {}
    }
}

fn str_of(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn text_of(v: Option<&Value>) -> Option<String> {
    v.and_then(meta::ld_text)
}

/// An image value: a URL, an `ImageObject`, or a list of either.
fn image_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
        Value::Array(items) => items.iter().find_map(|i| image_of(Some(i))),
        Value::Object(o) => str_of(o.get("url")).or_else(|| str_of(o.get("contentUrl"))),
        _ => None,
    }
}

/// Every image a value lists, in order.
fn images_of(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(items)) => items.iter().filter_map(|i| image_of(Some(i))).collect(),
        other => image_of(other).into_iter().collect(),
    }
}

fn product(v: &Value) -> Product {
    let offer = first_offer(v.get("offers"));
    let from_offer = |keys: &[&str]| {
        offer.and_then(|o| {
            keys.iter().find_map(|k| {
                text_of(o.get(*k))
                    .or_else(|| text_of(o.get("priceSpecification").and_then(|s| s.get(*k))))
            })
        })
    };
    let rating = v.get("aggregateRating");
    Product {
        name: text_of(v.get("name")).unwrap_or_default(),
        url: str_of(v.get("url"))
            .or_else(|| {
                str_of(v.get("@id")).filter(|id| !id.starts_with('_') && !id.starts_with('#'))
            })
            .unwrap_or_default(),
        description: text_of(v.get("description")).unwrap_or_default(),
        price: from_offer(&["price", "lowPrice"]),
        currency: from_offer(&["priceCurrency"]),
        availability: from_offer(&["availability"]),
        brand: text_of(v.get("brand")).or_else(|| text_of(v.get("manufacturer"))),
        rating: rating.and_then(|r| text_of(r.get("ratingValue"))),
        review_count: rating
            .and_then(|r| text_of(r.get("reviewCount")).or_else(|| text_of(r.get("ratingCount")))),
        image: image_of(v.get("image")),
        images: images_of(v.get("image")),
        sku: text_of(v.get("sku")).or_else(|| text_of(v.get("gtin13"))),
    }
}

/// The first offer object of an `offers` value.
fn first_offer(v: Option<&Value>) -> Option<&Value> {
    match v? {
        o @ Value::Object(_) => {
            // An AggregateOffer may list its offers; its own lowPrice wins.
            if o.get("price").is_none()
                && o.get("lowPrice").is_none()
                && let Some(inner) = first_offer(o.get("offers"))
            {
                return Some(inner);
            }
            Some(o)
        }
        Value::Array(items) => items.iter().find_map(|i| first_offer(Some(i))),
        _ => None,
    }
}
