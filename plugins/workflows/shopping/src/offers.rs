//! Offers: what a search hit (and, when the hit has no price, the product
//! page the runtime fetched) says, normalized into one comparable shape.
//!
//! Fields are read from the provider's structured extras / document
//! metadata (`price`, `currency`, `availability`, `rating`,
//! `review_count`, `brand`, `image`; `shipping`, `shipping_currency`,
//! `delivery`, `seller`, `canonical` when a provider gives them — the
//! shopping provider reads them from the offer's schema.org
//! `shippingDetails` and `seller`). Shipping a provider does not state is read
//! from the description ("Free shipping", "Shipping: $5.99"); when nothing
//! states it, it is unknown and counts as 0 in the total.

use crate::money;
use webrig_workflow_sdk::kit::{date, url};
use webrig_workflow_sdk::types::{Document, Hit};

/// A product as a provider described it, before normalization.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listing {
    pub provider: String,
    pub url: String,
    pub title: String,
    /// The hit's snippet, or the fetched page's text.
    pub text: String,
    pub published: Option<String>,
    /// Structured fields, first match wins (page metadata before hit extras).
    pub fields: Vec<(String, String)>,
}

impl Listing {
    pub fn from_hit(hit: Hit) -> Listing {
        Listing {
            provider: hit.provider,
            url: hit.item.url,
            title: hit.item.title,
            text: hit.item.snippet,
            published: hit.item.published,
            fields: hit.item.extra,
        }
    }

    /// The first non-blank value of any of `keys`.
    pub fn field(&self, keys: &[&str]) -> Option<&str> {
        keys.iter().find_map(|k| {
            self.fields
                .iter()
                .find(|(name, v)| name.eq_ignore_ascii_case(k) && !v.trim().is_empty())
                .map(|(_, v)| v.trim())
        })
    }

    /// True when the listing states a price (whatever its amount); a hit
    /// without one is worth fetching its page for.
    pub fn has_price(&self) -> bool {
        self.field(PRICE_KEYS)
            .and_then(money::parse_amount)
            .is_some()
    }

    /// Adds what a fetched product page says: its metadata goes before the
    /// hit's extras, its text replaces the snippet, its own URL (the
    /// product's declared URL) becomes the canonical URL unless the page
    /// names one.
    pub fn merge(&mut self, doc: Document) {
        let mut fields = doc.metadata;
        if !doc.url.is_empty() {
            fields.push(("canonical".into(), doc.url));
        }
        fields.append(&mut self.fields);
        self.fields = fields;
        if !doc.title.trim().is_empty() {
            self.title = doc.title;
        }
        if !doc.text.trim().is_empty() {
            self.text = doc.text;
        }
        if doc.published.is_some() {
            self.published = doc.published;
        }
    }
}

const PRICE_KEYS: &[&str] = &["price", "sale_price", "low_price", "amount"];

/// Stock status, as the score weighs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Availability {
    InStock,
    Limited,
    /// Not released yet: orderable, but nothing ships now (not "limited").
    PreOrder,
    /// Orderable, shipped when restocked.
    BackOrder,
    OutOfStock,
    Unknown,
}

impl Availability {
    /// From schema.org values (`InStock`, `https://schema.org/OutOfStock`,
    /// `LimitedAvailability`, `PreOrder`, `BackOrder`, `SoldOut`,
    /// `Discontinued`, …) or plain words ("in stock", "only 2 left").
    pub fn parse(text: Option<&str>) -> Availability {
        let Some(text) = text else {
            return Availability::Unknown;
        };
        let last = text.rsplit(['/', ':']).next().unwrap_or(text);
        let key: String = last
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        let has = |words: &[&str]| words.iter().any(|w| key.contains(w));
        if has(&["outofstock", "soldout", "discontinued", "unavailable"]) {
            Availability::OutOfStock
        } else if has(&["preorder", "presale"]) {
            Availability::PreOrder
        } else if has(&["backorder"]) {
            Availability::BackOrder
        } else if has(&["limited", "left", "few"]) {
            Availability::Limited
        } else if has(&["instock", "instoreonly", "onlineonly", "available"]) {
            Availability::InStock
        } else {
            Availability::Unknown
        }
    }

    /// The name written in the outputs.
    pub fn as_str(self) -> &'static str {
        match self {
            Availability::InStock => "in_stock",
            Availability::Limited => "limited",
            Availability::PreOrder => "pre_order",
            Availability::BackOrder => "back_order",
            Availability::OutOfStock => "out_of_stock",
            Availability::Unknown => "unknown",
        }
    }

    /// How it reads in a sentence.
    pub fn words(self) -> &'static str {
        match self {
            Availability::InStock => "in stock",
            Availability::Limited => "limited stock",
            Availability::PreOrder => "pre-order",
            Availability::BackOrder => "back-order",
            Availability::OutOfStock => "out of stock",
            Availability::Unknown => "stock unknown",
        }
    }
}

/// One normalized offer.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    pub title: String,
    pub price: f64,
    /// ISO 4217 code; None when neither a field nor the price names one.
    pub currency: Option<String>,
    pub rating: Option<f64>,
    pub reviews: Option<u64>,
    pub availability: Availability,
    /// None when no source states it (counted as 0 in `total`).
    pub shipping: Option<f64>,
    pub total: f64,
    pub url: String,
    /// The URL duplicates are recognised by (see [`canonical_url`]).
    pub canonical: String,
    pub provider: String,
    /// The seller when the provider names one, else the URL's host.
    pub store: String,
    pub brand: Option<String>,
    pub image: Option<String>,
    /// The offer's own date (RFC 3339) when its source gives one.
    pub published: Option<String>,
    /// Handling plus transit time the offer states ("3–5 days").
    pub delivery: Option<String>,
    /// Hours from `published` to the run's reference time; 0 without a date.
    pub age_hours: f64,
    pub retrieved_at: String,
    pub score: f64,
}

/// Why an offer is not compared.
#[derive(Debug, Clone, PartialEq)]
pub enum Rejected {
    /// No price, or a price of 0 or less.
    NoPrice,
}

/// Normalizes one listing. `now` is the run's reference time (`_now`).
pub fn normalize(l: &Listing, now: &str) -> Result<Offer, Rejected> {
    let price_text = l.field(PRICE_KEYS);
    let price = price_text
        .and_then(money::parse_amount)
        .map(money::cents)
        .filter(|p| *p > 0.0)
        .ok_or(Rejected::NoPrice)?;
    let currency = l
        .field(&["currency", "price_currency", "priceCurrency"])
        .and_then(money::currency_of)
        .or_else(|| price_text.and_then(money::currency_of));
    // A shipping rate stated in another currency than the price's cannot
    // be added to it: it counts as not stated.
    let ship_currency = l.field(&["shipping_currency"]).and_then(money::currency_of);
    let shipping_field = l
        .field(&["shipping", "shipping_cost", "shipping_price"])
        .filter(|_| ship_currency.is_none() || ship_currency == currency);
    let shipping = match shipping_field {
        Some(s) if s.to_ascii_lowercase().contains("free") => Some(0.0),
        Some(s) => money::parse_amount(s).filter(|v| *v >= 0.0),
        None => None,
    }
    .or_else(|| money::shipping_in_text(&l.text))
    .map(money::cents);
    let rating = l
        .field(&["rating", "rating_value"])
        .and_then(money::parse_amount)
        .map(|r| r.clamp(0.0, 5.0));
    let reviews = l
        .field(&["review_count", "reviews", "rating_count"])
        .and_then(money::parse_amount)
        .filter(|n| *n >= 0.0)
        .map(|n| n as u64);
    let canonical_src = l
        .field(&["canonical"])
        .and_then(|c| url::resolve(&l.url, c))
        .unwrap_or_else(|| l.url.clone());
    let store = store_of(l);
    let published = l.published.as_deref().and_then(date::normalize);
    let age_hours = match (
        published.as_deref().and_then(date::unix_millis),
        date::unix_millis(now),
    ) {
        (Some(then), Some(now)) => ((now - then).max(0) as f64) / 3_600_000.0,
        _ => 0.0,
    };
    Ok(Offer {
        title: clean_text(&l.title),
        price,
        currency,
        rating,
        reviews,
        availability: Availability::parse(l.field(&["availability", "stock"])),
        shipping,
        total: money::cents(price + shipping.unwrap_or(0.0)),
        url: l.url.clone(),
        canonical: canonical_url(&canonical_src),
        provider: l.provider.clone(),
        store,
        brand: l.field(&["brand"]).map(clean_text),
        image: l.field(&["image"]).map(str::to_string),
        delivery: l.field(&["delivery"]).map(clean_text),
        published,
        age_hours,
        retrieved_at: now.to_string(),
        score: 0.0,
    })
}

/// Whitespace collapsed and control characters (a terminal escape in a
/// product name) removed; the text is otherwise kept as the page wrote it.
pub fn clean_text(s: &str) -> String {
    let no_controls: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    no_controls.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Query parameters that only track where a visitor came from.
fn is_tracking(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.starts_with("utm_")
        || matches!(
            n.as_str(),
            "gclid"
                | "fbclid"
                | "msclkid"
                | "ref"
                | "ref_"
                | "srsltid"
                | "mc_cid"
                | "mc_eid"
                | "_ga"
        )
}

/// A URL reduced to what identifies the page: scheme and host lowercased,
/// default port, fragment and tracking parameters dropped, no trailing
/// slash. Other query parameters stay (`?id=42` may be the product).
pub fn canonical_url(u: &str) -> String {
    let u = u.trim();
    let without_fragment = u.split('#').next().unwrap_or_default();
    let (head, query) = match without_fragment.split_once('?') {
        Some((h, q)) => (h, Some(q)),
        None => (without_fragment, None),
    };
    let (scheme, rest) = match head.split_once("://") {
        Some((s, r)) => (s.to_ascii_lowercase(), r),
        None => return without_fragment.to_string(),
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let mut authority = authority.to_ascii_lowercase();
    for (s, port) in [("http", ":80"), ("https", ":443")] {
        if scheme == s && authority.ends_with(port) {
            authority.truncate(authority.len() - port.len());
        }
    }
    let path = path.trim_end_matches('/');
    let kept: Vec<&str> = query
        .unwrap_or_default()
        .split('&')
        .filter(|p| !p.is_empty() && !is_tracking(p.split('=').next().unwrap_or_default()))
        .collect();
    let mut out = format!("{scheme}://{authority}{path}");
    if !kept.is_empty() {
        out.push('?');
        out.push_str(&kept.join("&"));
    }
    out
}

/// A title reduced for comparison: lowercase letters and digits, words
/// separated by single spaces.
pub fn title_key(title: &str) -> String {
    title
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where a listing is sold: the seller the provider names, else the
/// URL's host, else the provider.
pub fn store_of(l: &Listing) -> String {
    l.field(&["seller", "store", "merchant"])
        .map(clean_text)
        .or_else(|| url::host(&l.url).map(|h| h.trim_start_matches("www.").to_string()))
        .unwrap_or_else(|| l.provider.clone())
}
