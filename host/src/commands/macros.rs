//! Macro commands: `macro resolve`, `macro run`, `macro list`, `macro info`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Command, Cx, Scope};
use crate::error::ApiError;
use crate::macros::{MacroInfo, PackError, Planned, RunOutcome};

/// Show the plan an `@macro(...)` expression resolves to, without any network.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MacroResolve {
    /// The expression, e.g. '@web.search("rust wasm", limit=5) | @fetch.top(3)'.
    pub expr: String,
    /// Also list every macro that can be called.
    #[arg(long)]
    #[serde(default)]
    pub catalog: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Resolved {
    pub expr: String,
    /// One entry per planned action, in order.
    pub plan: Vec<Planned>,
    /// With --catalog: every macro that can be called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog: Option<Vec<Value>>,
    /// Microseconds the daemon spent resolving.
    pub resolve_us: u64,
}

impl Command for MacroResolve {
    const NAME: &'static str = "macro resolve";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "Show the plan of an @macro expression (no network)";
    const SCOPE: Scope = Scope::Daemon;
    type Output = Resolved;

    async fn run(self, cx: Cx) -> Result<Resolved, ApiError> {
        let started = std::time::Instant::now();
        let macros = cx.state().macros();
        // Off the async runtime: a slow script must not hold a worker.
        let steps = macros
            .resolve_blocking(self.expr.clone(), cx.deadline().into_std())
            .await?;
        let mut plan: Vec<Planned> = steps.into_iter().flatten().collect();
        let resolve_us = started.elapsed().as_micros() as u64;
        // Which ready provider would serve each action, when the installed
        // ones say so without the network (none: left empty).
        if let Ok(providers) = cx.state().providers().await {
            for p in &mut plan {
                let input = &p.action.input;
                p.provenance.provider = match p.action.operation.as_str() {
                    "search" => providers
                        .select_ready(
                            &p.action.source,
                            input["query"].as_str().unwrap_or_default(),
                        )
                        .ok()
                        .map(|(ps, _)| {
                            ps.iter()
                                .map(|p| p.id().to_string())
                                .collect::<Vec<_>>()
                                .join(",")
                        })
                        .filter(|s| !s.is_empty()),
                    "fetch" => input["url"]
                        .as_str()
                        .and_then(|u| url::Url::parse(u).ok())
                        .and_then(|u| providers.fetcher(&u, None).ok())
                        .map(|p| p.id().to_string()),
                    _ => None,
                };
            }
        }
        let catalog = self
            .catalog
            .then(|| crate::macros::catalog(&macros.list().0));
        Ok(Resolved {
            expr: self.expr,
            plan,
            catalog,
            resolve_us,
        })
    }

    fn human(out: &Resolved) -> String {
        let mut lines: Vec<String> = out
            .plan
            .iter()
            .map(|p| {
                format!(
                    "{}. @{} → {} {} {}{}",
                    p.step + 1,
                    p.provenance.macro_name,
                    p.action.source,
                    p.action.operation,
                    p.action.input,
                    match (
                        p.provenance.provider.as_deref(),
                        p.action.operation.as_str()
                    ) {
                        (Some(s), _) => format!(" (via {s})"),
                        // The plan stands; running it would fail (see `macro run`).
                        (None, "search") => {
                            " (no installed provider serves it: webrig setup)".to_string()
                        }
                        (None, "fetch") if p.action.input["url"].is_string() => {
                            " (no installed provider serves it: webrig setup)".to_string()
                        }
                        (None, _) => String::new(),
                    }
                )
            })
            .collect();
        if let Some(catalog) = &out.catalog {
            lines.push(String::new());
            lines.extend(
                catalog
                    .iter()
                    .map(|m| format!("@{}", m["signature"].as_str().unwrap_or_default())),
            );
        }
        lines.join("\n")
    }
}

/// Run an `@macro(...)` expression through the provider runtime.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MacroRun {
    /// The expression, e.g. '@web.search("rust wasm", limit=5) | @fetch.top(3)'.
    pub expr: String,
}

impl Command for MacroRun {
    const NAME: &'static str = "macro run";
    const ABOUT: &'static str =
        "Run an @macro expression: results with provenance, partial success";
    const SCOPE: Scope = Scope::Daemon;
    type Output = RunOutcome;

    async fn run(self, cx: Cx) -> Result<RunOutcome, ApiError> {
        let providers = cx.state().providers().await?;
        crate::macros::execute(
            cx.state().macros(),
            cx.state().home(),
            providers,
            &self.expr,
            cx.deadline(),
        )
        .await
    }

    fn human(out: &RunOutcome) -> String {
        let mut lines = Vec::new();
        for (i, r) in out.results.iter().enumerate() {
            let title = r["title"].as_str().unwrap_or_default();
            let url = r["url"].as_str().unwrap_or_default();
            let via = r["provenance"]["provider"].as_str().unwrap_or_default();
            lines.push(format!("{}. {title}\n   {url} (via {via})", i + 1));
        }
        if lines.is_empty() {
            lines.push(if out.failures.is_empty() {
                "no results: the providers found nothing".into()
            } else {
                "no results: every action failed".into()
            });
        }
        for f in &out.failures {
            lines.push(format!(
                "failed: {} ({:?}): {}",
                f.provider, f.code, f.message
            ));
        }
        lines.join("\n")
    }

    /// Nothing came back and something failed: the CLI exits non-zero.
    fn failed(out: &RunOutcome) -> bool {
        out.results.is_empty() && !out.failures.is_empty()
    }
}

/// List every macro: signature, doc, pack, and which definition wins.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MacroList {}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct MacroListing {
    pub macros: Vec<MacroInfo>,
    /// Packs that failed to load (the others did).
    pub errors: Vec<PackError>,
}

impl Command for MacroList {
    const NAME: &'static str = "macro list";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "List the @macros: signature, doc, pack, which definition wins";
    const SCOPE: Scope = Scope::Daemon;
    type Output = MacroListing;

    async fn run(self, cx: Cx) -> Result<MacroListing, ApiError> {
        let (macros, errors) = cx.state().macros().list();
        Ok(MacroListing { macros, errors })
    }

    fn human(out: &MacroListing) -> String {
        let mut lines: Vec<String> = out
            .macros
            .iter()
            .map(|m| {
                let shadowed = if m.wins { "" } else { " (overridden)" };
                format!("@{} [{}]{shadowed}\n    {}", m.signature, m.pack, m.doc)
            })
            .collect();
        for e in &out.errors {
            let line = e.line.map(|l| format!(":{l}")).unwrap_or_default();
            lines.push(format!("BROKEN {}{line}: {}", e.file, e.message));
        }
        lines.join("\n")
    }
}

/// Show one macro.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MacroInfoCmd {
    /// The macro's name, e.g. web.search.
    pub name: String,
}

impl Command for MacroInfoCmd {
    const NAME: &'static str = "macro info";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "Show one @macro: signature, doc, pack, file";
    const SCOPE: Scope = Scope::Daemon;
    type Output = MacroInfo;

    async fn run(self, cx: Cx) -> Result<MacroInfo, ApiError> {
        cx.state().macros().info(&self.name)
    }

    fn human(m: &MacroInfo) -> String {
        format!("@{}\n{}\npack {} ({})", m.signature, m.doc, m.pack, m.file)
    }
}
