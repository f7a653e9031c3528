//! One product as the kit reads it from a page
//! ([`webrig_provider_sdk::html::product`]: schema.org data merged with the
//! page's feature lists and spec tables), and how it becomes a WIT result
//! or document. The metadata keys are the kit's
//! [`Product::metadata`], the same the web provider gives for a product
//! page, so a workflow reads the same facts whichever served it.

pub use webrig_provider_sdk::html::product::{Product, parse_page};
use webrig_provider_sdk::html::text;
use webrig_provider_sdk::types::{self, ResultItem};

pub fn into_result(p: Product) -> ResultItem {
    ResultItem {
        snippet: text::truncate(&p.description, 300),
        extra: p.metadata(),
        url: p.url,
        title: p.name,
        published: None,
    }
}

pub fn into_document(p: Product) -> types::Document {
    types::Document {
        metadata: p.metadata(),
        text: p.text(),
        url: p.url,
        title: p.name,
        published: None,
    }
}
