//! One product as read from a page, and how it becomes a WIT result or
//! document. Fields are what the page says, as text; none is invented.

use crate::{jsonld, microdata};
use webrig_plugin_sdk::html::{Document, meta, text};
use webrig_plugin_sdk::types::{self, ResultItem};
use webrig_plugin_sdk::url;

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
}

impl Product {
    fn extras(&self) -> Vec<(String, String)> {
        let images = (self.images.len() > 1).then(|| self.images.join(" "));
        [
            ("price", &self.price),
            ("currency", &self.currency),
            ("availability", &self.availability),
            ("brand", &self.brand),
            ("rating", &self.rating),
            ("review_count", &self.review_count),
            ("image", &self.image),
            ("images", &images),
            ("sku", &self.sku),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.clone().map(|v| (k.to_string(), v)))
        .collect()
    }

    pub fn into_result(self) -> ResultItem {
        ResultItem {
            snippet: text::truncate(&self.description, 300),
            extra: self.extras(),
            url: self.url,
            title: self.name,
            published: None,
        }
    }

    pub fn into_document(self) -> types::Document {
        let mut lines = vec![self.name.clone()];
        if let Some(price) = &self.price {
            lines.push(
                format!(
                    "Price: {price} {}",
                    self.currency.clone().unwrap_or_default()
                )
                .trim_end()
                .to_string(),
            );
        }
        if let Some(a) = &self.availability {
            lines.push(format!("Availability: {a}"));
        }
        if !self.description.is_empty() {
            lines.push(self.description.clone());
        }
        types::Document {
            metadata: self.extras(),
            text: lines.join("\n\n"),
            url: self.url,
            title: self.name,
            published: None,
        }
    }

    /// Makes URLs absolute against the page and tidies text fields; a
    /// product without a name is dropped.
    pub(crate) fn finish(mut self, page_url: &str) -> Option<Product> {
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
            .take(12)
            .collect();
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
        ] {
            *field = field
                .take()
                .map(|v| text::collapse_whitespace(&v))
                .filter(|v| !v.is_empty());
        }
        Some(self)
    }
}

/// The product a product page describes: JSON-LD first, then microdata,
/// then Open Graph product tags. When a page holds several products (a
/// bundle, "you may also like"), the first is the page's own.
pub fn parse_page(page: &str, page_url: &str) -> Option<Product> {
    let doc = Document::parse(page);
    jsonld::products(&doc)
        .products
        .into_iter()
        .chain(microdata::products(&doc))
        .chain(open_graph(&doc))
        .find_map(|p| p.finish(page_url))
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
