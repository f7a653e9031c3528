//! The shopping workflow: compares offers for a product across the
//! shopping providers.
//!
//! 1. **search** — `runtime::search("shopping", query, limit)`; hits of
//!    providers the `providers` parameter leaves out are dropped.
//! 2. **fetch** — hits without a price get their product page read
//!    (`runtime::fetch_many`); its metadata (the shopping provider's
//!    `price`, `currency`, `availability`, `rating`, `review_count`,
//!    `brand`, `image`, `sku`) fills the offer in.
//! 3. **rank** — normalize ([`offers`]), drop what cannot be compared and
//!    count why ([`pipeline`]: no usable price, another currency than the
//!    region's, total over budget), dedupe (same canonical URL, or same
//!    title at the same store; the cheaper copy stays), score and sort
//!    ([`score`] documents the formula and the age rule: an offer without
//!    its own date counts as 0 h old).
//! 4. **render** — `deals.md` (best pick and why), `offers.json`,
//!    `comparison.csv` (RFC 4180) and `report.html` (self-contained, with
//!    an inline SVG chart; page text escaped).
//!
//! Runtime failures (a provider or page that did not answer) are recorded
//! by the host in meta.json and reported in deals.md/offers.json; the
//! result's `failures` lists none of them again. No offer left is
//! `not-found`, saying why.

pub mod csv;
pub mod data;
pub mod html;
pub mod markdown;
pub mod money;
pub mod offers;
pub mod params;
pub mod pick;
pub mod pipeline;
pub mod score;

#[cfg(test)]
mod render_tests;
#[cfg(test)]
mod stove_tests;
#[cfg(test)]
mod tests;

use offers::Listing;
use webrig_workflow_sdk::serde_json::{Value, json};
use webrig_workflow_sdk::types::*;
use webrig_workflow_sdk::{Workflow, artifacts, progress, runtime};

/// The component (exported only when built for wasm: a native cdylib
/// cannot carry the component's export names, and the tests need none).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
struct Flow;

impl Workflow for Flow {
    fn info() -> WorkflowInfo {
        WorkflowInfo {
            id: "shopping".into(),
            name: "Shopping".into(),
            description: "Compares offers for a product across the shopping providers: normalizes prices, drops other currencies and offers over budget, dedupes, scores (price, availability, rating, freshness) and writes deals.md, offers.json, comparison.csv and report.html.".into(),
            params: params::declare(),
            outputs: vec![
                "deals.md".into(),
                "offers.json".into(),
                "comparison.csv".into(),
                "report.html".into(),
            ],
        }
    }

    fn run(input: Value) -> Result<Value, Error> {
        let p = params::read(&input)?;
        let opts = &p.options;
        progress(
            "search",
            &format!("searching shopping providers for {:?}", opts.query),
            0,
            1,
        );
        let outcome = runtime::search("shopping", &opts.query, opts.limit as u32)?;
        params::check_providers(&p.providers, &outcome.providers)?;
        let mut failures = outcome.failures;
        let mut listings: Vec<Listing> = outcome
            .hits
            .into_iter()
            .filter(|h| p.providers.is_empty() || p.providers.contains(&h.provider))
            .map(Listing::from_hit)
            .collect();
        progress(
            "search",
            &format!("{} products found", listings.len()),
            1,
            1,
        );

        let missing: Vec<usize> = (0..listings.len())
            .filter(|&i| !listings[i].has_price())
            .collect();
        let mut fetched = 0;
        if !missing.is_empty() {
            let urls: Vec<String> = missing.iter().map(|&i| listings[i].url.clone()).collect();
            let n = urls.len() as u32;
            progress(
                "fetch",
                &format!("reading {n} product page(s) without a price"),
                0,
                n,
            );
            for (&i, page) in missing.iter().zip(runtime::fetch_many(&urls)) {
                match page {
                    Ok(f) => {
                        fetched += 1;
                        listings[i].merge(f.document);
                    }
                    Err(f) => failures.push(f),
                }
            }
            progress("fetch", &format!("{fetched} of {n} page(s) read"), n, n);
        }

        progress("rank", "normalizing, filtering, deduping and scoring", 0, 1);
        let out = pipeline::process(&listings, opts);
        progress(
            "rank",
            &format!("{} offers kept of {}", out.kept, out.found),
            1,
            1,
        );
        if out.offers.is_empty() {
            if out.found == 0 && !failures.is_empty() {
                let why: Vec<String> = failures
                    .iter()
                    .map(|f| format!("{} ({}): {}", f.provider, f.code, f.message))
                    .collect();
                return Err(Error::Upstream(format!(
                    "no shopping provider answered for {:?}: {}",
                    opts.query,
                    why.join("; ")
                )));
            }
            return Err(Error::NotFound(pipeline::why_none(&out, opts)));
        }

        progress(
            "render",
            "writing deals.md, offers.json, comparison.csv, report.html",
            0,
            4,
        );
        artifacts::write(
            "deals.md",
            markdown::deals(&out, opts, &failures).as_bytes(),
        )?;
        artifacts::write_json("offers.json", &data::offers_json(&out, opts, &failures))?;
        artifacts::write("comparison.csv", csv::comparison(&out.offers).as_bytes())?;
        artifacts::write(
            "report.html",
            html::report(&out, opts, &failures).as_bytes(),
        )?;
        progress("render", "done", 4, 4);

        Ok(json!({
            "summary": markdown::summary(&out, opts, &failures),
            "context": data::context(&out, opts),
            "report": "deals.md",
            "data": "offers.json",
            "files": ["deals.md", "offers.json", "comparison.csv", "report.html"],
            "status": if failures.is_empty() { "pass" } else { "partial" },
            "failures": [],
            "meta": {
                "found": out.found,
                "fetched": fetched,
                "kept": out.kept,
                "listed": out.offers.len(),
                "dropped": {
                    "no_price": out.drops.no_price,
                    "currency": out.drops.currency,
                    "over_budget": out.drops.over_budget,
                    "duplicate": out.drops.duplicate,
                },
                "runtime_failures": failures.len(),
            },
        }))
    }
}

#[cfg(target_arch = "wasm32")]
webrig_workflow_sdk::export_workflow!(Flow);
