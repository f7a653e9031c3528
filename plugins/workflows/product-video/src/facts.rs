//! Product facts from what the runtime read: the fetched page's document
//! (the product metadata both the shopping and the web provider give for
//! a product page — the kit's `html::product` keys `name`, `price`,
//! `currency`, `availability`, `brand`, `rating`, `review_count`,
//! `image`/`images`, `sku`, `gtin`, `seller`, `shipping`, `delivery`,
//! `features`, `specs`, `reviews` (one per line); a web reader's
//! `description`,
//! `canonical`, `site_name`) and, when the product was looked up by name,
//! the search hit's extras as fallbacks.
//!
//! Features are the page's own feature list (`features`) first, then
//! the description's bullet list ("• Rock plate shields the forefoot •
//! Weight: 255 g") or its lines; specs are `spec:<name>` keys and
//! `specs` lines, then `Name: value` items. Offer talk (price,
//! availability, "Free shipping") is kept out of the prose.

use crate::chrome::{self, availability};
use webrig_workflow_sdk::kit::url;
use webrig_workflow_sdk::types::{Document, Hit};

/// What the workflow was given to read facts from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Page {
    pub url: String,
    pub title: String,
    pub text: String,
    /// Page metadata first, then hit extras; first match wins.
    pub fields: Vec<(String, String)>,
    pub provider: String,
}

impl Page {
    pub fn new(doc: Option<Document>, provider: &str, hit: Option<&Hit>) -> Page {
        let mut page = Page {
            provider: provider.to_string(),
            ..Page::default()
        };
        if let Some(d) = doc {
            page.url = d.url;
            page.title = d.title;
            page.text = d.text;
            page.fields = d.metadata;
        }
        if let Some(h) = hit {
            if page.url.is_empty() {
                page.url = h.item.url.clone();
            }
            if page.title.trim().is_empty() {
                page.title = h.item.title.clone();
            }
            if page.text.trim().is_empty() {
                page.text = h.item.snippet.clone();
            }
            page.fields.extend(h.item.extra.iter().cloned());
            if page.provider.is_empty() {
                page.provider = h.provider.clone();
            }
        }
        page
    }

    fn field(&self, keys: &[&str]) -> Option<&str> {
        keys.iter().find_map(|k| {
            self.fields
                .iter()
                .find(|(n, v)| n.eq_ignore_ascii_case(k) && !v.trim().is_empty())
                .map(|(_, v)| v.trim())
        })
    }
}

/// Everything the copy and storyboard are made from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Product {
    pub name: String,
    pub brand: Option<String>,
    pub url: String,
    pub canonical: Option<String>,
    pub price: Option<f64>,
    pub currency: Option<String>,
    /// in_stock, limited, out_of_stock (None when the page does not say).
    pub availability: Option<String>,
    pub rating: Option<f64>,
    pub reviews: Option<u64>,
    pub sku: Option<String>,
    pub gtin: Option<String>,
    /// Who sells it (the offer's seller, else the site's name).
    pub seller: Option<String>,
    /// Shipping cost in `currency` (0 is free), when the offer states it.
    pub shipping: Option<f64>,
    /// "2–5 days", when the offer states it.
    pub delivery: Option<String>,
    /// Review quotes the page carries ("… — Priya N., 5/5"), at most 3.
    pub quotes: Vec<String>,
    pub description: String,
    pub features: Vec<String>,
    pub specs: Vec<(String, String)>,
    /// Absolute image URLs, at most [`MAX_IMAGES`].
    pub images: Vec<String>,
    pub provider: String,
}

pub use chrome::amount;

pub const MAX_IMAGES: usize = 6;
const MAX_FEATURES: usize = 6;
const MAX_SPECS: usize = 12;

/// Spec names that are offer talk, not product facts.
const NOT_SPECS: &[&str] = &[
    "price",
    "availability",
    "shipping",
    "delivery",
    "postage",
    "sku",
    "rating",
];

/// Adds the sentences not already there.
fn push_new(prose: &mut Vec<String>, sentences: Vec<String>) {
    for s in sentences {
        if !prose.contains(&s) {
            prose.push(s);
        }
    }
}

/// Whitespace collapsed, control characters dropped.
pub fn clean(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// `Name: value` when it reads as a spec.
fn spec_of(item: &str) -> Option<(String, String)> {
    let (k, v) = item.split_once(':')?;
    let (k, v) = (k.trim(), v.trim().trim_end_matches('.'));
    let key_ok = (1..=30).contains(&k.chars().count())
        && k.split_whitespace().count() <= 4
        && k.starts_with(|c: char| c.is_alphabetic())
        && !k.contains('.')
        && !NOT_SPECS.contains(&k.to_lowercase().as_str());
    let value_ok = (1..=80).contains(&v.chars().count()) && !v.contains(". ");
    (key_ok && value_ok).then(|| (k.to_string(), v.to_string()))
}

/// Offer and page talk that does not belong in the prose: shipping,
/// price and stock lines, rating lines.
fn is_chrome(sentence: &str) -> bool {
    let s = sentence.to_lowercase();
    [
        "shipping",
        "delivery",
        "postage",
        "price on request",
        "price:",
        "availability:",
        "review",
        "out of 5",
    ]
    .iter()
    .any(|w| s.contains(w))
        || availability(sentence).is_some() && letter_words(sentence) <= 3
}

/// Words holding a letter.
fn letter_words(s: &str) -> usize {
    s.split_whitespace()
        .filter(|w| w.chars().any(char::is_alphabetic))
        .count()
}

/// Sentences, each with its final stop.
fn sentences(prose: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = prose.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        cur.push(c);
        let at_end =
            matches!(c, '.' | '!' | '?') && chars.get(i + 1).is_none_or(|n| n.is_whitespace());
        if at_end {
            out.push(cur.trim().to_string());
            cur.clear();
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// The description's items: lines, split again at bullet characters,
/// list markers removed.
fn items(text: &str) -> Vec<String> {
    text.lines()
        .flat_map(|line| line.split(['•', '·', '▪', '●', '◦']))
        .map(|p| {
            let p = p.trim();
            let p = p
                .strip_prefix("- ")
                .or_else(|| p.strip_prefix("* "))
                .or_else(|| p.strip_prefix("– "))
                .unwrap_or(p);
            clean(p)
        })
        .filter(|p| !p.is_empty())
        .collect()
}

/// A short item that is about the product, not the offer or the page.
fn is_feature(item: &str) -> bool {
    item.chars().count() <= 90
        && letter_words(item) >= 2
        && !item.contains(". ")
        && !is_chrome(item)
}

/// The product's own name when the page's data gives one, else the page
/// title without a " | Shop name" tail.
fn product_name(page: &Page) -> String {
    if let Some(name) = page.field(&["name"]).map(clean).filter(|n| !n.is_empty()) {
        return name;
    }
    let title = clean(&page.title);
    if let Some(site) = page.field(&["site_name"]) {
        for sep in [" | ", " – ", " — ", " - "] {
            if let Some(head) = title.strip_suffix(&format!("{sep}{site}")) {
                return head.trim().to_string();
            }
        }
    }
    title
}

/// "212", "1,301": a count, not review quotes (a provider's `reviews`
/// may be either).
fn is_count(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_digit() || c == ',')
}

/// The facts, or None when the page names no product.
pub fn gather(page: &Page) -> Option<Product> {
    let name = product_name(page);
    if name.is_empty() {
        return None;
    }
    // The page's own feature list first (`features`, one per line).
    let mut features: Vec<String> = page
        .field(&["features"])
        .unwrap_or_default()
        .lines()
        .map(|f| clean(f).trim_end_matches('.').to_string())
        .filter(|f| !f.is_empty())
        .collect();
    let listed = features.len();
    let mut specs: Vec<(String, String)> = page
        .fields
        .iter()
        .filter_map(|(k, v)| {
            let n = k
                .strip_prefix("spec:")
                .or_else(|| k.strip_prefix("spec_"))?;
            Some((clean(n), clean(v)))
        })
        .collect();
    // `specs`: "Name: value" lines in the page's order.
    for line in page.field(&["specs"]).unwrap_or_default().lines() {
        if let Some((k, v)) = line.split_once(':') {
            let (k, v) = (clean(k), clean(v));
            if !k.is_empty()
                && !v.is_empty()
                && !specs.iter().any(|(n, _)| n.eq_ignore_ascii_case(&k))
            {
                specs.push((k, v));
            }
        }
    }
    let mut prose = Vec::new();
    let mut text = page.text.clone();
    if let Some(d) = page.field(&["description"])
        && !text.contains(d)
    {
        text = format!("{text}\n{d}");
    }
    // The first item with real sentences is the lead (prose); later short
    // items are features.
    let mut lead_taken = false;
    let (mut seen_price, mut seen_stock, mut seen_rating) = (None, None, None);
    for item in items(&text) {
        if item.eq_ignore_ascii_case(&name) {
            continue;
        }
        if let Some((k, v)) = spec_of(&item) {
            if !specs.iter().any(|(n, _)| n.eq_ignore_ascii_case(&k)) {
                specs.push((k, v));
            }
            continue;
        }
        let kept: Vec<String> = sentences(&item)
            .into_iter()
            .filter(|s| !is_chrome(s) && letter_words(s) >= 3)
            .collect();
        if !lead_taken && !kept.is_empty() {
            lead_taken = true;
            push_new(&mut prose, kept);
        } else if !lead_taken {
            // Before the lead: the page's price, stock and rating lines.
            seen_price = seen_price.or_else(|| chrome::money_line(&item));
            seen_stock = seen_stock.or_else(|| availability(&item));
            seen_rating = seen_rating.or_else(|| chrome::rating_line(&item));
        } else if is_feature(&item) {
            // A page with its own feature list has said what its features
            // are; short lines of its text (table rows, badges) are not.
            let f = item.trim_end_matches('.').to_string();
            if listed == 0 && !features.iter().any(|x| x.eq_ignore_ascii_case(&f)) {
                features.push(f);
            }
        } else {
            push_new(&mut prose, kept);
        }
    }
    if features.is_empty() && listed == 0 {
        features = prose
            .iter()
            .skip(1)
            .filter(|s| s.chars().count() <= 90)
            .map(|s| s.trim_end_matches('.').to_string())
            .collect();
    }
    features.truncate(MAX_FEATURES);
    specs.truncate(MAX_SPECS);
    let price_text = page
        .field(&["price", "low_price"])
        .map(str::to_string)
        .or_else(|| {
            page.text
                .lines()
                .find_map(|l| l.trim().strip_prefix("Price:").map(str::to_string))
        });
    let mut images: Vec<String> = Vec::new();
    for key in ["image", "images", "og:image"] {
        for (k, v) in &page.fields {
            if !k.eq_ignore_ascii_case(key) {
                continue;
            }
            for candidate in v.split_whitespace() {
                let candidate = candidate.trim_end_matches(',');
                if let Some(abs) = url::resolve(&page.url, candidate)
                    && !images.contains(&abs)
                    && images.len() < MAX_IMAGES
                {
                    images.push(abs);
                }
            }
        }
    }
    Some(Product {
        name,
        brand: page.field(&["brand"]).map(clean),
        url: page.url.clone(),
        canonical: page
            .field(&["canonical"])
            .and_then(|c| url::resolve(&page.url, c))
            .filter(|c| *c != page.url),
        price: price_text
            .as_deref()
            .and_then(amount)
            .filter(|p| *p > 0.0)
            .or(seen_price.as_ref().map(|(v, _)| *v)),
        currency: page
            .field(&["currency", "price_currency"])
            .map(|c| c.to_ascii_uppercase())
            .or_else(|| {
                price_text.as_deref().and_then(|p| {
                    p.split_whitespace()
                        .find(|w| w.len() == 3 && w.chars().all(|c| c.is_ascii_alphabetic()))
                        .map(str::to_ascii_uppercase)
                })
            })
            .or(seen_price.map(|(_, c)| c)),
        availability: page
            .field(&["availability"])
            .and_then(availability)
            .or(seen_stock),
        rating: page
            .field(&["rating", "rating_value"])
            .and_then(amount)
            .map(|r| r.clamp(0.0, 5.0))
            .or(seen_rating.map(|(r, _)| r)),
        reviews: page
            .field(&["review_count"])
            .or_else(|| page.field(&["reviews"]).filter(|r| is_count(r)))
            .and_then(amount)
            .map(|n| n as u64)
            .or(seen_rating.and_then(|(_, n)| n)),
        sku: page.field(&["sku"]).map(clean),
        gtin: page.field(&["gtin"]).map(clean),
        seller: page.field(&["seller", "site_name"]).map(clean),
        shipping: page
            .field(&["shipping"])
            .and_then(|s| {
                if s.to_ascii_lowercase().contains("free") {
                    Some(0.0)
                } else {
                    amount(s)
                }
            })
            .filter(|s| *s >= 0.0),
        delivery: page.field(&["delivery"]).map(clean),
        quotes: page
            .field(&["reviews"])
            .filter(|r| !is_count(r))
            .unwrap_or_default()
            .lines()
            .map(clean)
            .filter(|q| !q.is_empty())
            .take(3)
            .collect(),
        description: prose.join(" "),
        features,
        specs,
        images,
        provider: page.provider.clone(),
    })
}

/// What the product is and does, in one sentence: the description's
/// first sentence (at most 200 characters). None without a description.
pub fn lead(p: &Product) -> Option<String> {
    let first = sentences(&p.description).into_iter().next()?;
    let first = first.trim_end_matches(['.', '!']).trim().to_string();
    (!first.is_empty() && first.chars().count() <= 200).then_some(first)
}

/// Who to buy it from, for a call to action: the seller's or the shop's
/// name — never a bare host or address ("127.0.0.1", "shop.example"),
/// which is not something a viewer can act on.
pub fn seller_name(p: &Product) -> Option<&str> {
    let s = p.seller.as_deref()?.trim();
    let bare_host = !s.contains(char::is_whitespace)
        && (s.contains('.') || s.contains(':'))
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c));
    (!s.is_empty() && !bare_host).then_some(s)
}

/// `s` ending in one full stop ("Basecamp Gear Co." stays as it is).
pub fn full_stop(s: &str) -> String {
    if s.ends_with(['.', '!', '?']) {
        s.to_string()
    } else {
        format!("{s}.")
    }
}

/// "$89.99", "£95.00", "95.00 CHF"; None without a price.
pub fn price_words(p: &Product) -> Option<String> {
    let v = p.price?;
    let cur = p.currency.as_deref().unwrap_or("");
    Some(match cur {
        "USD" => format!("${v:.2}"),
        "GBP" => format!("£{v:.2}"),
        "EUR" => format!("€{v:.2}"),
        "JPY" => format!("¥{v:.0}"),
        "" => format!("{v:.2}"),
        other => format!("{v:.2} {other}"),
    })
}
