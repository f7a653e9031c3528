//! schema.org products in JSON-LD: `Product` objects wherever the page put
//! them (top level, arrays, `@graph`, `mainEntity`, `ItemList` →
//! `ListItem` → `item`), and the product links of `ItemList`s whose
//! `ListItem`s only carry a `url`.
//!
//! Offers come as an `Offer`, a list of them, or an `AggregateOffer`
//! (`lowPrice`); the price may also sit in `priceSpecification`. From the
//! offer also its `seller` and `shippingDetails`
//! (<https://schema.org/OfferShippingDetails>: `shippingRate`,
//! `deliveryTime`, `shippingDestination`); from the product its
//! identifiers (`sku`, `gtin*`, `mpn`), `additionalProperty` specs and
//! `review`s.

use super::{Product, Review};
use crate::html::{Document, meta};
use serde_json::Value;

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
    let shipping = offer.and_then(|o| first_object(o.get("shippingDetails")));
    let rate = shipping.and_then(|s| first_object(s.get("shippingRate")));
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
        sku: text_of(v.get("sku")),
        gtin: ["gtin", "gtin13", "gtin12", "gtin14", "gtin8"]
            .iter()
            .find_map(|k| text_of(v.get(*k)).or_else(|| offer.and_then(|o| text_of(o.get(*k))))),
        mpn: text_of(v.get("mpn")),
        seller: offer.and_then(|o| text_of(o.get("seller"))),
        shipping: rate.and_then(|r| {
            text_of(r.get("value"))
                .or_else(|| text_of(r.get("maxValue")))
                .or_else(|| text_of(r.get("price")))
        }),
        shipping_currency: rate
            .and_then(|r| text_of(r.get("currency")).or_else(|| text_of(r.get("priceCurrency")))),
        delivery: shipping.and_then(|s| delivery_of(s.get("deliveryTime")?)),
        ship_to: shipping.and_then(|s| destinations(s.get("shippingDestination")?)),
        features: Vec::new(),
        specs: properties(v.get("additionalProperty")),
        reviews: reviews(v.get("review").or_else(|| v.get("reviews"))),
    }
}

/// The first object of a value that is an object or a list of them.
fn first_object(v: Option<&Value>) -> Option<&Value> {
    match v? {
        o @ Value::Object(_) => Some(o),
        Value::Array(items) => items.iter().find(|i| i.is_object()),
        _ => None,
    }
}

/// A `QuantitativeValue` in days: (min, max); `value` alone is both.
fn days(v: Option<&Value>) -> Option<(f64, f64)> {
    let v = v?;
    let num = |k: &str| {
        v.get(k).and_then(|n| match n {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        })
    };
    let unit = text_of(v.get("unitCode"))
        .or_else(|| text_of(v.get("unitText")))
        .unwrap_or_else(|| "DAY".into())
        .to_ascii_lowercase();
    let scale = if unit.starts_with("wk") || unit.starts_with("week") {
        7.0
    } else if unit == "d" || unit.starts_with("day") {
        1.0
    } else {
        return None;
    };
    let (lo, hi) = match (num("minValue"), num("maxValue"), num("value")) {
        (Some(a), Some(b), _) => (a, b),
        (Some(a), None, _) => (a, a),
        (None, Some(b), _) => (0.0, b),
        (None, None, Some(x)) => (x, x),
        _ => return None,
    };
    (lo.is_finite() && hi.is_finite() && lo >= 0.0 && hi >= lo).then_some((lo * scale, hi * scale))
}

/// "3–6 days" from a `ShippingDeliveryTime` (handling plus transit).
fn delivery_of(v: &Value) -> Option<String> {
    let parts: Vec<(f64, f64)> = ["handlingTime", "transitTime"]
        .iter()
        .filter_map(|k| days(v.get(*k)))
        .collect();
    if parts.is_empty() {
        return None;
    }
    let lo: f64 = parts.iter().map(|p| p.0).sum();
    let hi: f64 = parts.iter().map(|p| p.1).sum();
    let unit = if hi == 1.0 { "day" } else { "days" };
    Some(if lo == hi {
        format!("{hi} {unit}")
    } else {
        format!("{lo}–{hi} {unit}")
    })
}

/// "US, CA" from `DefinedRegion`s (`addressCountry`, then `name`).
fn destinations(v: &Value) -> Option<String> {
    let list: Vec<&Value> = match v {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    let mut out: Vec<String> = Vec::new();
    for r in list {
        let name = text_of(r.get("addressCountry"))
            .or_else(|| text_of(r.get("addressRegion")))
            .or_else(|| text_of(Some(r)));
        if let Some(n) = name
            && !out.contains(&n)
        {
            out.push(n);
        }
    }
    (!out.is_empty()).then(|| out.join(", "))
}

/// `additionalProperty` `PropertyValue`s as (name, "value unit").
fn properties(v: Option<&Value>) -> Vec<(String, String)> {
    let Some(Value::Array(items)) = v else {
        return match v {
            Some(o @ Value::Object(_)) => properties(Some(&Value::Array(vec![o.clone()]))),
            _ => Vec::new(),
        };
    };
    items
        .iter()
        .filter_map(|p| {
            let name = text_of(p.get("name"))?;
            let value = text_of(p.get("value"))?;
            let unit = text_of(p.get("unitText")).unwrap_or_default();
            Some((name, format!("{value} {unit}").trim().to_string()))
        })
        .collect()
}

/// `Review`s: body, author, rating.
fn reviews(v: Option<&Value>) -> Vec<Review> {
    let list: Vec<&Value> = match v {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(o @ Value::Object(_)) => vec![o],
        _ => Vec::new(),
    };
    list.into_iter()
        .filter_map(|r| {
            Some(Review {
                body: text_of(r.get("reviewBody")).or_else(|| text_of(r.get("description")))?,
                author: text_of(r.get("author")),
                rating: r
                    .get("reviewRating")
                    .and_then(|x| text_of(x.get("ratingValue"))),
            })
        })
        .collect()
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
