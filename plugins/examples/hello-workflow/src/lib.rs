//! A small example workflow: one search, a Markdown list of what it found,
//! progress as it goes. Copy it to start your own (see docs/PLUGINS.md).

use webrig_workflow_sdk::serde_json::{Value, json};
use webrig_workflow_sdk::types::*;
use webrig_workflow_sdk::{
    ParamExt, Workflow, artifacts, export_workflow, param, progress, runtime,
};

struct Hello;

impl Workflow for Hello {
    fn info() -> WorkflowInfo {
        WorkflowInfo {
            id: "hello-workflow".into(),
            name: "Hello workflow".into(),
            description: "Searches a topic and writes the links it found to links.md.".into(),
            params: vec![
                param("topic", "string", true, "What to search for."),
                param("limit", "integer", false, "Results per provider.").with_default("5"),
            ],
            outputs: vec!["links.md".into()],
        }
    }

    fn run(input: Value) -> Result<Value, Error> {
        let topic = input["topic"].as_str().unwrap_or_default().to_string();
        let limit = input["limit"].as_u64().unwrap_or(5) as u32;
        progress("search", &format!("searching for {topic}"), 0, 1);
        let outcome = runtime::search("web", &topic, limit)?;
        progress("search", &format!("{} results", outcome.hits.len()), 1, 1);
        let mut md = format!("# {topic}\n\n");
        for hit in &outcome.hits {
            md.push_str(&format!(
                "- [{}]({}) ({})\n",
                hit.item.title, hit.item.url, hit.provider
            ));
        }
        for f in &outcome.failures {
            md.push_str(&format!(
                "\n> {} failed: {} ({})\n",
                f.provider, f.message, f.code
            ));
        }
        artifacts::write("links.md", md.as_bytes())?;
        let summary: Vec<String> = outcome
            .hits
            .iter()
            .take(10)
            .map(|h| format!("{} — {}", h.item.title, h.item.url))
            .collect();
        Ok(json!({
            "summary": summary.join("\n"),
            "context": {"topic": topic, "links": outcome.hits.iter().map(|h| &h.item.url).collect::<Vec<_>>()},
            "report": "links.md",
        }))
    }
}

export_workflow!(Hello);
