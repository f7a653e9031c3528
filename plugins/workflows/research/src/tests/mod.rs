//! Native tests of the pure parts, on realistic inputs: hand-made hits
//! and documents, and the fixture "small internet" under
//! tests/fixtures/web/small/news read from the repository.

mod dating;
mod dedupe;
mod fixture;
mod gating;
mod input;
mod ranking;
mod reef_web;
mod rendering;
mod shells;
mod small_web;
mod theme_corpus;
mod theming;

use crate::input::{Params, parse};
use crate::records::{self, Record};
use webrig_workflow_sdk::serde_json::{Value, json};
use webrig_workflow_sdk::types::{Document, Hit, ResultItem};

/// The reference time the end-to-end tests pass as `_now`.
pub const NOW: &str = "2026-12-01T12:00:00Z";

/// Params from a JSON object (with `_now` = [`NOW`] unless given).
pub fn params(v: Value) -> Params {
    let mut v = v;
    if v.get("_now").is_none() {
        v["_now"] = json!(NOW);
    }
    parse(&v).expect("valid params")
}

pub fn hit(
    provider: &str,
    source: &str,
    url: &str,
    title: &str,
    published: Option<&str>,
    extra: &[(&str, &str)],
) -> Hit {
    Hit {
        provider: provider.into(),
        source: source.into(),
        item: ResultItem {
            url: url.into(),
            title: title.into(),
            snippet: format!("About {title}."),
            published: published.map(str::to_string),
            extra: extra
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        },
    }
}

pub fn doc(
    url: &str,
    title: &str,
    text: &str,
    published: Option<&str>,
    meta: &[(&str, &str)],
) -> Document {
    Document {
        url: url.into(),
        title: title.into(),
        text: text.into(),
        published: published.map(str::to_string),
        metadata: meta
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

/// A web hit's record, fetched with `doc`.
pub fn fetched_record(url: &str, d: &Document, order: usize) -> Record {
    let mut r = records::from_hit(&hit("web", "web", url, &d.title, None, &[]), order, order);
    records::apply_document(&mut r, d);
    r
}

/// Realistic article text of about `chars` characters.
pub fn prose(chars: usize) -> String {
    let sentence = "The runtime keeps each guest inside its own linear memory and checks every call it makes to the host. ";
    sentence.repeat(chars / sentence.len() + 1)[..chars].to_string()
}
