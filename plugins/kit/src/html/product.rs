//! A product page read fully: schema.org `Product` data
//! (<https://schema.org/Product>) — as JSON-LD ([`jsonld`]) or microdata
//! ([`microdata`]), Open Graph product tags last — merged with what the
//! page's HTML shows: its feature lists and spec tables ([`sections`]).
//!
//! Shared by every provider that may serve a shop page (the shopping
//! provider, the general web reader), so a workflow gets the same facts
//! whichever one the runtime routed the page to. Fields are what the page
//! says, as text; none is invented. [`Product::metadata`] is the one
//! `(key, value)` shape both providers hand to workflows.
//!
//! ```
//! use webrig_kit::html::product;
//!
//! let page = r#"<script type="application/ld+json">{"@type":"Product","name":"Kettle",
//!   "offers":{"@type":"Offer","price":"30","priceCurrency":"USD"}}</script>
//!   <h2>Features</h2><ul><li>Boils a litre in three minutes</li></ul>"#;
//! let p = product::parse_page(page, "https://shop.test/kettle").expect("a product");
//! assert_eq!(p.price.as_deref(), Some("30"));
//! assert_eq!(p.features, ["Boils a litre in three minutes"]);
//! ```

pub mod jsonld;
pub mod microdata;
pub mod sections;

use crate::html::{Document, meta, text};
use crate::url;

/// At most this many images, features, specs and reviews are kept (a
/// hostile page cannot grow the metadata without bound).
const MAX_IMAGES: usize = 12;
const MAX_FEATURES: usize = 20;
const MAX_SPECS: usize = 40;
const MAX_REVIEWS: usize = 5;

/// One review a page quotes (schema.org `Review`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Review {
    pub author: Option<String>,
    /// `reviewRating.ratingValue`, as written.
    pub rating: Option<String>,
    pub body: String,
}

impl Review {
    /// "Great grip on wet rock. — Sam K., 5/5".
    pub fn line(&self) -> String {
        let mut by = Vec::new();
        if let Some(a) = &self.author {
            by.push(a.clone());
        }
        if let Some(r) = &self.rating {
            by.push(format!("{r}/5"));
        }
        if by.is_empty() {
            self.body.clone()
        } else {
            format!("{} — {}", self.body, by.join(", "))
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Product {
    pub name: String,
    /// Absolute URL of the product page.
    pub url: String,
    pub description: String,
    pub price: Option<String>,
    pub currency: Option<String>,
    /// schema.org availability without its URL prefix (`InStock`).
    pub availability: Option<String>,
    pub brand: Option<String>,
    pub rating: Option<String>,
    pub review_count: Option<String>,
    /// Absolute URL of the first image.
    pub image: Option<String>,
    /// Every image the page lists for the product (absolute URLs, first
    /// included), for callers that want more than one.
    pub images: Vec<String>,
    pub sku: Option<String>,
    /// `gtin`, `gtin13`, `gtin12`, `gtin14` or `gtin8`.
    pub gtin: Option<String>,
    pub mpn: Option<String>,
    /// The offer's `seller` name.
    pub seller: Option<String>,
    /// The shipping rate's amount as written ("0.00" is free shipping).
    pub shipping: Option<String>,
    pub shipping_currency: Option<String>,
    /// Handling plus transit time: "3–6 days".
    pub delivery: Option<String>,
    /// Countries (or regions) the shipping rate applies to: "US, CA".
    pub ship_to: Option<String>,
    /// Short lines the page lists as the product's features.
    pub features: Vec<String>,
    /// `additionalProperty` values, then the page's spec tables and lists.
    pub specs: Vec<(String, String)>,
    pub reviews: Vec<Review>,
}

impl Product {
    /// The facts as `(key, value)` pairs, the WIT `metadata`/`extra`
    /// shape: `name`, `price`, `currency`, `availability`, `brand`,
    /// `rating`, `review_count`, `image`, `images` (space-separated, when
    /// more than one), `sku`, `gtin`, `mpn`, `seller`, `shipping`,
    /// `shipping_currency`, `delivery`, `ship_to`; then `features` (one
    /// per line), `specs` (`Name: value` lines, in the page's order) and
    /// `reviews` (one [`Review::line`] per line). Every key appears once:
    /// the host keeps metadata as a map, so a repeated key would keep only
    /// one of its values.
    pub fn metadata(&self) -> Vec<(String, String)> {
        let images = (self.images.len() > 1).then(|| self.images.join(" "));
        let name = Some(self.name.clone());
        let mut out: Vec<(String, String)> = [
            ("name", &name),
            ("price", &self.price),
            ("currency", &self.currency),
            ("availability", &self.availability),
            ("brand", &self.brand),
            ("rating", &self.rating),
            ("review_count", &self.review_count),
            ("image", &self.image),
            ("images", &images),
            ("sku", &self.sku),
            ("gtin", &self.gtin),
            ("mpn", &self.mpn),
            ("seller", &self.seller),
            ("shipping", &self.shipping),
            ("shipping_currency", &self.shipping_currency),
            ("delivery", &self.delivery),
            ("ship_to", &self.ship_to),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.clone().map(|v| (k.to_string(), v)))
        .collect();
        let lines = |items: Vec<String>| (!items.is_empty()).then(|| items.join("\n"));
        let specs: Vec<String> = self
            .specs
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        let reviews: Vec<String> = self.reviews.iter().map(Review::line).collect();
        for (k, v) in [
            ("features", lines(self.features.clone())),
            ("specs", lines(specs)),
            ("reviews", lines(reviews)),
        ] {
            if let Some(v) = v {
                out.push((k.to_string(), v));
            }
        }
        out
    }

    /// The page as plain text lines: name, price, availability, shipping,
    /// the description, the features as bullets and the specs as
    /// `Name: value` lines.
    pub fn text(&self) -> String {
        let mut lines = vec![self.name.clone()];
        if let Some(price) = &self.price {
            let cur = self.currency.clone().unwrap_or_default();
            lines.push(format!("Price: {price} {cur}").trim_end().to_string());
        }
        if let Some(a) = &self.availability {
            lines.push(format!("Availability: {a}"));
        }
        if !self.description.is_empty() {
            lines.push(self.description.clone());
        }
        if !self.features.is_empty() {
            let bullets: Vec<String> = self.features.iter().map(|f| format!("• {f}")).collect();
            lines.push(bullets.join("\n"));
        }
        if !self.specs.is_empty() {
            let specs: Vec<String> = self
                .specs
                .iter()
                .map(|(k, v)| format!("{k}: {v}"))
                .collect();
            lines.push(specs.join("\n"));
        }
        lines.join("\n\n")
    }

    /// Makes URLs absolute against the page and tidies text fields; a
    /// product without a name is dropped.
    pub fn finish(mut self, page_url: &str) -> Option<Product> {
        self.name = text::collapse_whitespace(&self.name);
        if self.name.is_empty() {
            return None;
        }
        self.description = text::collapse_whitespace(&self.description);
        self.url = url::resolve(page_url, &self.url)
            .filter(|_| !self.url.is_empty())
            .unwrap_or_else(|| page_url.to_string());
        self.image = self.image.and_then(|i| url::resolve(page_url, &i));
        self.images = std::mem::take(&mut self.images)
            .into_iter()
            .filter_map(|i| url::resolve(page_url, &i))
            .filter(|i| !i.contains(char::is_whitespace))
            .take(MAX_IMAGES)
            .collect();
        if self.image.is_none() {
            self.image = self.images.first().cloned();
        }
        self.availability = self
            .availability
            .map(|a| a.rsplit(['/', ':']).next().unwrap_or(&a).trim().to_string());
        for field in [
            &mut self.price,
            &mut self.currency,
            &mut self.brand,
            &mut self.rating,
            &mut self.review_count,
            &mut self.sku,
            &mut self.gtin,
            &mut self.mpn,
            &mut self.seller,
            &mut self.shipping,
            &mut self.shipping_currency,
            &mut self.delivery,
            &mut self.ship_to,
        ] {
            *field = field
                .take()
                .map(|v| text::collapse_whitespace(&v))
                .filter(|v| !v.is_empty());
        }
        self.features = tidy_list(std::mem::take(&mut self.features), MAX_FEATURES);
        let mut specs: Vec<(String, String)> = Vec::new();
        for (k, v) in std::mem::take(&mut self.specs) {
            let (k, v) = (text::collapse_whitespace(&k), text::collapse_whitespace(&v));
            // A name holds no colon: `specs` lines split at the first.
            let k = k.replace(':', " ").trim().to_string();
            if !k.is_empty()
                && !v.is_empty()
                && !specs.iter().any(|(n, _)| n.eq_ignore_ascii_case(&k))
                && specs.len() < MAX_SPECS
            {
                specs.push((k, v));
            }
        }
        self.specs = specs;
        self.reviews.retain(|r| !r.body.trim().is_empty());
        self.reviews.truncate(MAX_REVIEWS);
        for r in &mut self.reviews {
            r.body = text::truncate(&text::collapse_whitespace(&r.body), 300);
        }
        Some(self)
    }

    /// Adds what the page's HTML shows and the structured data left out:
    /// its feature lists and its spec tables (a spec the data already
    /// names keeps the data's value).
    pub fn merge_sections(&mut self, found: sections::Sections) {
        for f in found.features {
            if !self.features.iter().any(|x| x.eq_ignore_ascii_case(&f)) {
                self.features.push(f);
            }
        }
        self.specs.extend(found.specs);
    }
}

/// Whitespace collapsed, a trailing full stop dropped, blanks and repeats
/// removed, at most `max`.
fn tidy_list(items: Vec<String>, max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in items {
        let item = text::collapse_whitespace(&item);
        let item = item.trim_end_matches('.').trim().to_string();
        if !item.is_empty() && !out.iter().any(|o| o.eq_ignore_ascii_case(&item)) {
            out.push(item);
        }
    }
    out.truncate(max);
    out
}

/// The product a product page describes: JSON-LD first, then microdata,
/// then Open Graph product tags, with the page's feature lists and spec
/// tables merged in. When a page holds several products (a bundle, "you
/// may also like"), the first is the page's own.
pub fn parse_page(page: &str, page_url: &str) -> Option<Product> {
    read(&Document::parse(page), page_url)
}

/// [`parse_page`] on a parsed document (a caller that also reads the
/// page otherwise parses it once).
pub fn read(doc: &Document, page_url: &str) -> Option<Product> {
    let mut p = jsonld::products(doc)
        .products
        .into_iter()
        .chain(microdata::products(doc))
        .chain(open_graph(doc))
        .find(|p| !text::collapse_whitespace(&p.name).is_empty())?;
    p.merge_sections(sections::read(doc));
    p.finish(page_url)
}

/// `og:type=product` pages with `product:price:*` tags
/// (<https://developers.facebook.com/docs/marketing-api/catalog/reference/#og-tags>).
fn open_graph(doc: &Document) -> Option<Product> {
    let price = meta::meta_content(doc, &["product:price:amount", "og:price:amount"])?;
    Some(Product {
        name: meta::meta_content(doc, &["og:title"])
            .or_else(|| doc.find("title").map(|t| doc.text(t)))?,
        url: meta::meta_content(doc, &["og:url"]).unwrap_or_default(),
        description: meta::meta_content(doc, &["og:description", "description"])
            .unwrap_or_default(),
        price: Some(price),
        currency: meta::meta_content(doc, &["product:price:currency", "og:price:currency"]),
        availability: meta::meta_content(doc, &["product:availability", "og:availability"]),
        brand: meta::meta_content(doc, &["product:brand"]),
        image: meta::meta_content(doc, &["og:image"]),
        ..Product::default()
    })
}

#[cfg(test)]
mod tests;
