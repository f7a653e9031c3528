//! schema.org products in HTML microdata: elements with `itemscope` and an
//! `itemtype` ending in `/Product`, their `itemprop`s (`name`, `url`,
//! `description`, `image`, `sku`, `brand`), nested `offers` (`price`,
//! `priceCurrency`, `availability`) and `aggregateRating` (`ratingValue`,
//! `reviewCount`) items. A property's value is its `content` attribute,
//! else `href`/`src`/`datetime`/`value` by element, else its text — as the
//! microdata spec says.

use super::Product;
use crate::html::{Document, NodeId};

enum Value {
    Text(String),
    Item(NodeId),
}

fn is_scope_of(doc: &Document, id: NodeId, ty: &str) -> bool {
    doc.attr(id, "itemscope").is_some()
        && doc.attr(id, "itemtype").is_some_and(|t| {
            t.split_ascii_whitespace().any(|t| {
                t.rsplit(['/', ':', '#'])
                    .next()
                    .is_some_and(|l| l.eq_ignore_ascii_case(ty))
            })
        })
}

/// Products in document order; a Product nested in another Product (an
/// accessory) is read on its own too, not merged into its parent.
pub fn products(doc: &Document) -> Vec<Product> {
    doc.elements()
        .filter(|&id| is_scope_of(doc, id, "Product"))
        .map(|id| product(doc, id))
        .collect()
}

/// The `(name, value)` properties of the item at `scope`.
fn properties(doc: &Document, scope: NodeId) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let end = doc.subtree_end(scope);
    let mut n = scope + 1;
    while n <= end {
        if doc.name(n).is_none() {
            n += 1;
            continue;
        }
        let nested = doc.attr(n, "itemscope").is_some();
        if let Some(props) = doc.attr(n, "itemprop") {
            let value = if nested {
                Value::Item(n)
            } else {
                Value::Text(value_of(doc, n))
            };
            for name in props.split_ascii_whitespace() {
                let v = match &value {
                    Value::Item(i) => Value::Item(*i),
                    Value::Text(t) => Value::Text(t.clone()),
                };
                out.push((name.to_string(), v));
            }
        }
        // Properties inside a nested item belong to that item.
        n = if nested {
            doc.subtree_end(n) + 1
        } else {
            n + 1
        };
    }
    out
}

fn value_of(doc: &Document, id: NodeId) -> String {
    if let Some(c) = doc.attr(id, "content") {
        return c.trim().to_string();
    }
    let attr = match doc.name(id).unwrap_or_default() {
        "a" | "link" | "area" => "href",
        "img" | "source" | "audio" | "video" | "embed" | "iframe" | "track" => "src",
        "object" => "data",
        "time" => "datetime",
        "data" | "meter" => "value",
        _ => "",
    };
    doc.attr(id, attr)
        .map(|v| v.trim().to_string())
        .unwrap_or_else(|| doc.text(id))
}

fn get_text(doc: &Document, props: &[(String, Value)], name: &str) -> Option<String> {
    props
        .iter()
        .find(|(k, _)| k == name)
        .and_then(|(_, v)| match v {
            Value::Text(t) => Some(t.clone()).filter(|t| !t.is_empty()),
            // An item where text is wanted: its name, else its text.
            Value::Item(i) => {
                get_text(doc, &properties(doc, *i), "name").or_else(|| Some(doc.text(*i)))
            }
        })
}

fn get_item(props: &[(String, Value)], name: &str) -> Option<NodeId> {
    props.iter().find_map(|(k, v)| match v {
        Value::Item(i) if k == name => Some(*i),
        _ => None,
    })
}

fn product(doc: &Document, scope: NodeId) -> Product {
    let props = properties(doc, scope);
    let offer = get_item(&props, "offers").map(|o| properties(doc, o));
    let from_offer = |name: &str| {
        offer
            .as_ref()
            .and_then(|o| get_text(doc, o, name))
            .or_else(|| get_text(doc, &props, name))
    };
    let rating = get_item(&props, "aggregateRating").map(|r| properties(doc, r));
    let from_rating = |name: &str| rating.as_ref().and_then(|r| get_text(doc, r, name));
    Product {
        name: get_text(doc, &props, "name").unwrap_or_default(),
        url: get_text(doc, &props, "url").unwrap_or_default(),
        description: get_text(doc, &props, "description").unwrap_or_default(),
        price: from_offer("price").or_else(|| from_offer("lowPrice")),
        currency: from_offer("priceCurrency"),
        availability: from_offer("availability"),
        brand: get_text(doc, &props, "brand"),
        rating: from_rating("ratingValue"),
        review_count: from_rating("reviewCount").or_else(|| from_rating("ratingCount")),
        image: get_text(doc, &props, "image"),
        images: get_text(doc, &props, "image").into_iter().collect(),
        sku: get_text(doc, &props, "sku"),
        gtin: ["gtin", "gtin13", "gtin12", "gtin14", "gtin8"]
            .iter()
            .find_map(|k| get_text(doc, &props, k)),
        mpn: get_text(doc, &props, "mpn"),
        seller: offer.as_ref().and_then(|o| get_text(doc, o, "seller")),
        ..Product::default()
    }
}

/// Product links of microdata `ItemList`s whose `ListItem`s carry only a
/// `url` (or an `item` that is a link).
pub fn list_links(doc: &Document) -> Vec<String> {
    doc.elements()
        .filter(|&id| is_scope_of(doc, id, "ListItem"))
        .filter_map(|li| {
            let props = properties(doc, li);
            if get_item(&props, "item").is_some_and(|i| is_scope_of(doc, i, "Product")) {
                return None;
            }
            get_text(doc, &props, "url").or_else(|| get_text(doc, &props, "item"))
        })
        .collect()
}
