//! The `research` workflow: researches a topic over the installed providers
//! within a timebox.
//!
//! Steps: one search per source → fetch the most promising destination
//! pages → drop shells (login walls, consent pages, …) → fold duplicates →
//! keep what falls in the timebox (undated records are kept, marked) →
//! rank → cluster into themes → `report.md`, `records.json`,
//! `context.json`. Dates come from the pages themselves; see [`records`].
//! All the logic between the runtime calls is pure ([`pipeline`]); `run`
//! only calls the imports and reports progress.

pub mod canon;
pub mod dates;
pub mod gate;
pub mod input;
pub mod output;
pub mod pipeline;
pub mod rank;
pub mod records;
pub mod render;
pub mod shells;
pub mod terms;
pub mod themes;

use input::Sources;
#[cfg(target_arch = "wasm32")]
use webrig_workflow_sdk::export_workflow;
use webrig_workflow_sdk::serde_json::{Value, json};
use webrig_workflow_sdk::types::*;
use webrig_workflow_sdk::{ParamExt, Workflow, artifacts, param, progress, runtime};

/// The component's export (only linked into the wasm build).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub struct ResearchFlow;

impl Workflow for ResearchFlow {
    fn info() -> WorkflowInfo {
        WorkflowInfo {
            id: "research".into(),
            name: "Research".into(),
            description: "Researches a topic within a timebox: searches the web, community and social providers, reads the most promising pages, drops login walls and other shells, dedupes, ranks by date, engagement and relevance, groups into themes and writes a cited report.".into(),
            params: vec![
                param("topic", "string", true, "What to research."),
                param("days", "integer", false, "Timebox: the last N days (1..=3650); default 30. Not with from/to."),
                param("from", "date", false, "Timebox start (YYYY-MM-DD). Not with days."),
                param("to", "date", false, "Timebox end (YYYY-MM-DD), not after today. Not with days."),
                param("sources", "choice", false, "Which providers to search: auto, web, community, social or all (web, community and social).")
                    .choices(&Sources::NAMES)
                    .with_default("auto"),
                param("limit_per_source", "integer", false, "Results asked of each provider (1..=50).").with_default("10"),
                param("fetch", "integer", false, "Pages to read in full (0..=20).").with_default("5"),
            ],
            outputs: vec!["report.md".into(), "records.json".into(), "context.json".into()],
        }
    }

    fn run(input: Value) -> Result<Value, Error> {
        let params = input::parse(&input)?;
        let found = search(&params);
        let topic = terms::topic_terms(&params.topic);
        let picks = rank::pick_fetch(&found.records, &topic, params.fetch as usize, &[]);
        let mut fetched = fetch(&found.records, &picks);
        progress(
            "filter",
            "dropping shells, folding duplicates, applying the timebox",
            0,
            1,
        );
        let mut research = pipeline::finish(&params, found.clone(), fetched.clone());
        if research.timebox_empty() {
            // Every page read fell outside the timebox: read the next
            // candidates once before giving up.
            let more = rank::pick_fetch(&found.records, &topic, params.fetch as usize, &picks);
            if !more.is_empty() {
                progress(
                    "fetch",
                    "no page read falls in the timebox: reading the next candidates",
                    0,
                    1,
                );
                fetched.extend(fetch(&found.records, &more));
                research = pipeline::finish(&params, found, fetched);
            }
        }
        progress(
            "filter",
            &format!(
                "{} kept, {} dropped, {} duplicates folded, {} failures",
                research.ranked.len(),
                research.drops().count(),
                research.deduped,
                research.failures.len()
            ),
            1,
            1,
        );
        if research.timebox_empty() {
            return Err(Error::NotFound(research.nothing_in_range(&params)));
        }
        if research.ranked.is_empty() {
            return Err(Error::NotFound(
                research.nothing_usable(&params.topic, &params.timebox.label()),
            ));
        }
        progress(
            "rank",
            &format!(
                "{} records in {} themes",
                research.ranked.len(),
                research.themes.len()
            ),
            1,
            1,
        );
        let verdict = gate::judge(research.ranked.iter().map(|(r, _)| r));
        progress(
            "render",
            "writing report.md, records.json, context.json",
            0,
            3,
        );
        let report = render::report(&params, &research, &verdict);
        artifacts::write("report.md", report.as_bytes())?;
        progress("render", "report.md", 1, 3);
        artifacts::write_json("records.json", &output::records_json(&research))?;
        progress("render", "records.json", 2, 3);
        let context = output::context(&params, &research, &verdict);
        artifacts::write_json("context.json", &context)?;
        progress("render", "context.json", 3, 3);
        let failures: Vec<Value> = research
            .failures
            .iter()
            .map(|f| json!({"provider": f.provider, "code": f.code, "message": f.message}))
            .collect();
        Ok(json!({
            "summary": output::summary(&params, &research, &verdict),
            "context": context,
            "report": "report.md",
            "data": "records.json",
            "status": verdict.status.name(),
            "failures": failures,
            "meta": output::meta(&research),
        }))
    }
}

/// One search per source (several at once for `all`), with progress.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn search(params: &input::Params) -> pipeline::Found {
    let sources = params.sources.searched();
    let total = sources.len() as u32;
    progress(
        "search",
        &format!("searching {} for {:?}", sources.join(", "), params.topic),
        0,
        total,
    );
    let answers = if sources.len() == 1 {
        vec![runtime::search(
            &sources[0],
            &params.topic,
            params.limit_per_source,
        )]
    } else {
        runtime::search_many(&sources, &params.topic, params.limit_per_source)
    };
    let outcomes: Vec<(String, Result<SearchOutcome, Error>)> =
        sources.into_iter().zip(answers).collect();
    for (i, (source, outcome)) in outcomes.iter().enumerate() {
        let message = match outcome {
            Ok(o) => format!(
                "{source}: {} hits, {} failures",
                o.hits.len(),
                o.failures.len()
            ),
            Err(e) => format!(
                "{source}: failed: {}",
                webrig_workflow_sdk::error_message(e)
            ),
        };
        progress("search", &message, i as u32 + 1, total);
    }
    pipeline::collect(outcomes)
}

/// Reads the picked pages at once, reporting each.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn fetch(records: &[records::Record], picks: &[usize]) -> Vec<(usize, Result<Fetched, Failure>)> {
    let total = picks.len() as u32;
    progress("fetch", &format!("reading {total} pages"), 0, total);
    if picks.is_empty() {
        return Vec::new();
    }
    let urls: Vec<String> = picks.iter().map(|&i| records[i].url.clone()).collect();
    let answers = runtime::fetch_many(&urls);
    let out: Vec<(usize, Result<Fetched, Failure>)> = picks.iter().copied().zip(answers).collect();
    for (n, ((_, answer), url)) in out.iter().zip(&urls).enumerate() {
        let message = match answer {
            Ok(f) => format!("{url} ({} ms)", f.elapsed_ms),
            Err(f) => format!("{url}: {} {}", f.code, f.message),
        };
        progress("fetch", &message, n as u32 + 1, total);
    }
    out
}

#[cfg(target_arch = "wasm32")]
export_workflow!(ResearchFlow);

#[cfg(test)]
mod tests;
