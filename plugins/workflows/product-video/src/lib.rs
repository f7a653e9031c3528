//! The product-video workflow: a product's facts, specs, price and images,
//! and the copy and storyboard a video tool (or an editor) can take.
//!
//! 1. **find** — with `product_name`, a shopping search; the hit whose
//!    title shares the most of the name's words is the product
//!    ([`lookup::best_match`]).
//! 2. **fetch** — `runtime::fetch_many([url])`: the runtime routes a store
//!    page to the provider that may read it (the shopping provider gives
//!    product metadata). A looked-up product whose page cannot be read
//!    goes on with the search hit's facts.
//! 3. **facts** — [`facts::gather`]: name, brand, price, stock, rating,
//!    description, features and specs (bullet items), image URLs.
//! 4. **images** — each image (at most 6) downloaded with
//!    `artifacts::download` into `images/NN.ext`; failures are recorded
//!    (product.json, the result's `failures`) and skipped.
//! 5. **write** — `product.json`, `features.md`, `copy.md` (headline,
//!    three taglines, the timed script; [`copy`]) and `storyboard.json`
//!    (shots whose durations sum to `duration`; [`storyboard`]).

pub mod chrome;
pub mod copy;
pub mod facts;
pub mod lookup;
pub mod params;
pub mod render;
pub mod storyboard;

#[cfg(test)]
mod route_tests;
#[cfg(test)]
mod tests;

use params::Target;
use render::Image;
use webrig_workflow_sdk::serde_json::{Value, json};
use webrig_workflow_sdk::types::*;
use webrig_workflow_sdk::{Workflow, artifacts, error_message, log, progress, runtime};

/// The component (exported only when built for wasm: a native cdylib
/// cannot carry the component's export names, and the tests need none).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
struct Flow;

/// The bundle name for the `n`th image (from 1): `images/01.png`, the
/// extension from the URL's path when it is an image one.
pub fn image_name(n: usize, url: &str) -> String {
    let path = url.split(['?', '#']).next().unwrap_or_default();
    let last = path.rsplit('/').next().unwrap_or_default();
    let ext = last
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .filter(|e| ["png", "jpg", "jpeg", "webp", "gif", "avif"].contains(&e.as_str()))
        .unwrap_or_else(|| "img".into());
    format!("images/{n:02}.{ext}")
}

/// A runtime failure as the WIT error the run ends with. A refusal by
/// grant says whose grant is missing: the page is read by a provider,
/// under the provider's grant, not the workflow's.
pub fn failure_error(f: &Failure, url: &str) -> Error {
    let m = format!("reading {url}: {} ({})", f.message, f.code);
    match f.code.as_str() {
        "policy_blocked" => Error::Denied(provider_grant_message(f, url)),
        "not_found" => Error::NotFound(m),
        "invalid_input" => Error::InvalidInput(m),
        "timeout" => Error::Timeout(m),
        _ => Error::Upstream(m),
    }
}

/// The host:port of a URL, for a grant hint ("127.0.0.1:8080").
fn host_port(url: &str) -> String {
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    authority.rsplit('@').next().unwrap_or_default().to_string()
}

/// "reading URL: refused by the web provider's grant (host … was not
/// granted) — the provider's grant is missing, not this workflow's; …".
pub fn provider_grant_message(f: &Failure, url: &str) -> String {
    let host = host_port(url);
    if f.provider.is_empty() {
        return format!(
            "reading {url}: refused before any provider read it ({}); no installed provider may read {host}",
            f.message
        );
    }
    let p = &f.provider;
    format!(
        "reading {url}: refused by the {p} provider's grant ({}) — the {p} provider's grant is missing, not the product-video workflow's; grant it with `webrig plugin grant {p} --http {host}` (a loopback or private host must also be named in the provider's manifest)",
        f.message
    )
}

/// An image download refused by grant: downloads run under the
/// workflow's own grant, so that is the one to widen.
pub fn download_error_message(e: &Error, image_url: &str) -> String {
    match e {
        Error::Denied(m) => {
            let host = host_port(image_url);
            format!(
                "downloading {image_url}: refused by the product-video workflow's grant ({m}) — the workflow's grant is missing, not a provider's; grant it with `webrig plugin grant product-video --http {host}`"
            )
        }
        other => format!("downloading {image_url}: {}", error_message(other)),
    }
}

impl Workflow for Flow {
    fn info() -> WorkflowInfo {
        WorkflowInfo {
            id: "product-video".into(),
            name: "Product video".into(),
            description: "Gathers a product's facts, specs, price and images (from its page, or looked up by name with the shopping providers) and writes the copy (headline, taglines, timed script), features and a storyboard whose shots fill the requested duration.".into(),
            params: params::declare(),
            outputs: vec![
                "copy.md".into(),
                "features.md".into(),
                "product.json".into(),
                "storyboard.json".into(),
                "images/".into(),
            ],
        }
    }

    fn run(input: Value) -> Result<Value, Error> {
        let p = params::read(&input)?;
        let mut failures: Vec<Value> = Vec::new();
        let (url, hit) = match &p.target {
            Target::Url(u) => (u.clone(), None),
            Target::Name(name) => {
                progress("find", &format!("looking up {name:?}"), 0, 1);
                let outcome = runtime::search("shopping", name, 10)?;
                let hit = lookup::best_match(name, &outcome.hits).cloned().ok_or_else(|| {
                    Error::NotFound(format!(
                        "no shopping provider found a product matching {name:?} ({} results, {} provider failures)",
                        outcome.hits.len(),
                        outcome.failures.len()
                    ))
                })?;
                progress("find", &format!("found {}", hit.item.title), 1, 1);
                (hit.item.url.clone(), Some(hit))
            }
        };

        progress("fetch", &format!("reading {url}"), 0, 1);
        let page = runtime::fetch_many(std::slice::from_ref(&url))
            .into_iter()
            .next();
        let (doc, provider) = match page {
            Some(Ok(f)) => (Some(f.document), f.provider),
            Some(Err(f)) => {
                if hit.is_none() {
                    return Err(failure_error(&f, &url));
                }
                // The host records the failure; the hit's facts carry on.
                log::warn(&format!(
                    "{url} could not be read ({}); using the search hit",
                    f.code
                ));
                (None, String::new())
            }
            None => {
                return Err(Error::Internal(format!(
                    "the runtime gave no answer for {url}"
                )));
            }
        };
        let page_read = doc.is_some();
        progress("fetch", "page read", 1, 1);
        let page = facts::Page::new(doc, &provider, hit.as_ref());
        let product = facts::gather(&page)
            .ok_or_else(|| Error::NotFound(format!("{url} names no product")))?;

        let n = product.images.len() as u32;
        let mut images = Vec::new();
        for (i, image_url) in product.images.iter().enumerate() {
            progress("images", &format!("downloading {image_url}"), i as u32, n);
            let name = image_name(i + 1, image_url);
            images.push(match artifacts::download(image_url, &name) {
                Ok(saved) => Image {
                    url: image_url.clone(),
                    file: Some(saved.name),
                    content_type: Some(saved.content_type),
                    bytes: Some(saved.bytes),
                    error: None,
                },
                Err(e) => {
                    let message = download_error_message(&e, image_url);
                    failures.push(
                        json!({"provider": "artifacts", "code": code_of(&e), "message": message}),
                    );
                    Image {
                        url: image_url.clone(),
                        file: None,
                        content_type: None,
                        bytes: None,
                        error: Some(message),
                    }
                }
            });
        }
        progress(
            "images",
            &format!(
                "{} of {n} saved",
                images.iter().filter(|i| i.file.is_some()).count()
            ),
            n,
            n,
        );

        progress("write", "copy, features, storyboard", 0, 4);
        let files: Vec<String> = images.iter().filter_map(|i| i.file.clone()).collect();
        let shots = storyboard::plan(&product, &files, p.duration);
        artifacts::write_json(
            "product.json",
            &render::product_json(&product, &images, &p.now),
        )?;
        artifacts::write("features.md", render::features_md(&product).as_bytes())?;
        artifacts::write(
            "copy.md",
            copy::copy_md(&product, &shots, p.duration).as_bytes(),
        )?;
        artifacts::write_json(
            "storyboard.json",
            &render::storyboard_json(&product, &shots, p.duration),
        )?;
        progress("write", "done", 4, 4);

        let partial = !failures.is_empty() || !page_read;
        Ok(json!({
            "summary": render::summary(&product, &images, &shots, p.duration),
            "context": render::context(&product, &images, &shots, p.duration),
            "report": "copy.md",
            "data": "product.json",
            "files": ["copy.md", "features.md", "product.json", "storyboard.json"],
            "status": if partial { "partial" } else { "pass" },
            "failures": failures,
            "meta": {
                "provider": provider,
                "page_read": page_read,
                "images": images.len(),
                "images_saved": files.len(),
                "shots": shots.len(),
                "features": product.features.len(),
                "specs": product.specs.len(),
            },
        }))
    }
}

/// The runtime failure code for a host error.
pub use webrig_workflow_sdk::failure_code as code_of;

#[cfg(target_arch = "wasm32")]
webrig_workflow_sdk::export_workflow!(Flow);
