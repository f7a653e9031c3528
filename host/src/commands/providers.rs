//! Provider commands: `search`, `fetch`, `providers`, `providers status`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Command, Cx, Scope};
use crate::error::{ApiError, ErrorCode};
use crate::providers::route::Want;
use crate::providers::{Failure, FailureCode, Page, SearchOutcome, Status};

const MAX_QUERY: usize = 2048;
const MAX_LIMIT: u32 = 100;

/// Search through the installed providers (partial success: results from
/// those that answered, a failure for each that did not).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Search {
    /// What to search for.
    pub query: String,
    /// Which providers: auto, web, community, social, shopping or all.
    #[arg(long, default_value = "auto")]
    #[serde(default = "auto")]
    pub source: String,
    /// Most results (1-100).
    #[arg(long, default_value_t = 10)]
    #[serde(default = "ten")]
    pub limit: u32,
    /// Ask only this provider (an installed provider's id), whatever its
    /// source: for trying a plugin you are writing.
    #[arg(long)]
    #[serde(default)]
    pub provider: Option<String>,
    /// Provider-specific options (`search-request.options`), e.g.
    /// `--option site=example.com`; repeatable.
    #[arg(skip)]
    #[serde(default)]
    pub options: std::collections::BTreeMap<String, String>,
    #[arg(long = "option", value_name = "KEY=VALUE")]
    #[serde(skip)]
    #[schemars(skip)]
    pub option_flags: Vec<String>,
}

/// Most options one search may carry, and their size.
const MAX_OPTIONS: usize = 32;
const MAX_OPTION: usize = 1024;

fn auto() -> String {
    "auto".into()
}

fn ten() -> u32 {
    10
}

impl Command for Search {
    const NAME: &'static str = "search";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str =
        "Search the web, communities, social and shops through provider plugins";
    const SCOPE: Scope = Scope::Daemon;
    type Output = SearchOutcome;

    fn prepare(&mut self) -> Result<(), ApiError> {
        for flag in std::mem::take(&mut self.option_flags) {
            let (k, v) = flag.split_once('=').ok_or_else(|| {
                ApiError::invalid(format!("--option {flag:?}: expected KEY=VALUE"))
            })?;
            self.options.insert(k.trim().to_string(), v.to_string());
        }
        Ok(())
    }

    async fn run(self, cx: Cx) -> Result<SearchOutcome, ApiError> {
        let query = self.query.trim();
        if self.options.len() > MAX_OPTIONS
            || self
                .options
                .iter()
                .any(|(k, v)| k.is_empty() || k.len() + v.len() > MAX_OPTION)
        {
            return Err(ApiError::invalid(format!(
                "at most {MAX_OPTIONS} options, each a non-empty key and under {MAX_OPTION} bytes"
            )));
        }
        if query.is_empty() {
            return Err(ApiError::invalid("the query is empty"));
        }
        if query.len() > MAX_QUERY {
            return Err(ApiError::invalid(format!(
                "the query is over {MAX_QUERY} bytes"
            )));
        }
        if !(1..=MAX_LIMIT).contains(&self.limit) {
            return Err(ApiError::invalid(format!(
                "--limit must be 1..={MAX_LIMIT}"
            )));
        }
        let providers = cx.state().providers().await?;
        let source = match &self.provider {
            Some(id) => {
                let p = providers.host().get(id).ok_or_else(|| {
                    ApiError::not_found(format!("no provider {id:?} is installed"))
                        .with_hint("`webrig providers` lists the installed ones")
                })?;
                // One that did not load says why below, not "does not search".
                if p.info.is_some() && !p.does("search") {
                    return Err(ApiError::invalid(format!(
                        "provider {id:?} does not search"
                    )));
                }
                providers
                    .ready_of(Want::Search(id.clone()), vec![p])
                    .map_err(|u| u.error())?;
                id.clone()
            }
            None => self.source.clone(),
        };
        let req = crate::plugins::engine::wit::SearchRequest {
            query: query.to_string(),
            limit: self.limit,
            options: self.options.clone().into_iter().collect(),
        };
        // Nothing installed or ready to serve it is an error (see
        // `providers::route`); a search that found nothing is a success.
        providers
            .search_with(&source, req, self.limit as usize, cx.deadline())
            .await
    }

    /// Every provider it asked failed.
    fn failed(out: &SearchOutcome) -> bool {
        out.results.is_empty()
            && !out.failures.is_empty()
            && out
                .meta
                .providers
                .iter()
                .all(|p| out.failures.iter().any(|f| &f.provider == p))
    }

    fn human(out: &SearchOutcome) -> String {
        let mut lines = Vec::new();
        for (i, r) in out.results.iter().enumerate() {
            let date = r
                .published
                .as_deref()
                .map(|d| format!(", {}", d.get(..10).unwrap_or(d)))
                .unwrap_or_default();
            lines.push(format!(
                "{}. {} — {} ({}{date})",
                i + 1,
                r.title,
                r.url,
                r.provider
            ));
            if !r.snippet.is_empty() {
                let snippet: String = r.snippet.chars().take(200).collect();
                lines.push(format!("   {snippet}"));
            }
        }
        if out.results.is_empty() {
            lines.push(if Self::failed(out) {
                "no results: every provider asked failed".into()
            } else {
                let answered: Vec<&str> = out
                    .meta
                    .providers
                    .iter()
                    .filter(|p| !out.failures.iter().any(|f| &&f.provider == p))
                    .map(String::as_str)
                    .collect();
                format!("no results: {} found nothing", answered.join(", "))
            });
        }
        lines.extend(out.failures.iter().map(human_failure));
        lines.join("\n")
    }
}

fn human_failure(f: &Failure) -> String {
    let code = serde_json::to_value(f.code)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    format!("! {} failed ({code}): {}", f.provider, f.message)
}

/// Read a page through a provider: readable text and what the page says
/// about itself (title, author, publication time, price, …).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fetch {
    /// The page's URL (http or https).
    pub url: String,
    /// The provider to use (default: one that names the URL's host, else web).
    #[arg(long)]
    #[serde(default)]
    pub provider: Option<String>,
}

impl Command for Fetch {
    const NAME: &'static str = "fetch";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str =
        "Fetch a page's readable text and metadata through a provider plugin";
    const SCOPE: Scope = Scope::Daemon;
    type Output = Page;

    async fn run(self, cx: Cx) -> Result<Page, ApiError> {
        let providers = cx.state().providers().await?;
        match providers
            .fetch(&self.url, self.provider.as_deref(), cx.deadline())
            .await?
        {
            Ok(page) => Ok(page),
            // The provider's own verdict keeps its code; only a provider
            // that failed to answer is `plugin_failed`.
            Err(f) => Err(ApiError::new(
                match f.code {
                    FailureCode::NotFound => ErrorCode::NotFound,
                    FailureCode::InvalidInput => ErrorCode::InvalidArgument,
                    FailureCode::NotSupported => ErrorCode::Unsupported,
                    _ => ErrorCode::PluginFailed,
                },
                human_failure(&f).trim_start_matches("! ").to_string(),
            )),
        }
    }

    fn human(p: &Page) -> String {
        let mut out = format!("{}\n{}", p.title, p.url);
        if let Some(d) = &p.published {
            out.push_str(&format!("\npublished {d}"));
        }
        out.push_str("\n\n");
        out.push_str(&p.text);
        out
    }
}

/// List the installed providers and their health.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProvidersList {}

impl Command for ProvidersList {
    const NAME: &'static str = "providers";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "List the installed providers, their sources and operations";
    const SCOPE: Scope = Scope::Daemon;
    type Output = Vec<Status>;

    async fn run(self, cx: Cx) -> Result<Vec<Status>, ApiError> {
        Ok(cx.state().providers().await?.status())
    }

    fn human(out: &Vec<Status>) -> String {
        if out.is_empty() {
            return format!(
                "no providers installed: {}",
                crate::providers::route::SETUP_HINT
            );
        }
        out.iter()
            .map(|s| {
                let state = if s.ready {
                    "ready".to_string()
                } else {
                    format!("NOT READY: {}", s.error.as_deref().unwrap_or("?"))
                };
                format!(
                    "{} {} [{}] {} — {state}",
                    s.id,
                    s.version,
                    s.source.as_deref().unwrap_or("?"),
                    s.operations.join(", ")
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Show each provider's circuit breaker: closed, open, half-open or cooling
/// down, with its recent failures.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProvidersStatus {}

impl Command for ProvidersStatus {
    const NAME: &'static str = "providers status";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "Show each provider's circuit breaker and recent failures";
    const SCOPE: Scope = Scope::Daemon;
    type Output = Vec<Status>;

    async fn run(self, cx: Cx) -> Result<Vec<Status>, ApiError> {
        Ok(cx.state().providers().await?.status())
    }

    fn human(out: &Vec<Status>) -> String {
        if out.is_empty() {
            return format!(
                "no providers installed: {}",
                crate::providers::route::SETUP_HINT
            );
        }
        out.iter()
            .map(|s| {
                let state = serde_json::to_value(s.breaker)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                let mut line = format!(
                    "{}: {state}, {} call(s), {} failed, {} in a row",
                    s.id, s.calls, s.failed, s.consecutive_failures
                );
                if let Some(ms) = s.retry_in_ms {
                    line.push_str(&format!(", retry in {} s", ms.div_ceil(1000)));
                }
                if let Some(e) = &s.last_error {
                    line.push_str(&format!("\n  last error: {e}"));
                }
                line
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Close a provider's circuit breaker by hand (after fixing what failed).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProvidersReset {
    /// The provider's id.
    pub id: String,
}

impl Command for ProvidersReset {
    const NAME: &'static str = "providers reset";
    const ABOUT: &'static str = "Close a provider's circuit breaker (forget its failures)";
    const SCOPE: Scope = Scope::Daemon;
    type Output = Vec<Status>;

    async fn run(self, cx: Cx) -> Result<Vec<Status>, ApiError> {
        let providers = cx.state().providers().await?;
        let is_provider = |p: &crate::plugins::Plugin| {
            p.installed.manifest.kind == crate::plugins::manifest::Kind::Provider
        };
        if !providers
            .host()
            .get(&self.id)
            .is_some_and(|p| is_provider(&p))
        {
            return Err(
                ApiError::not_found(format!("no provider {:?} is installed", self.id))
                    .with_hint("see webrig providers"),
            );
        }
        providers.reset(&self.id);
        Ok(providers
            .status()
            .into_iter()
            .filter(|s| s.id == self.id)
            .collect())
    }

    fn human(out: &Vec<Status>) -> String {
        <ProvidersStatus as Command>::human(out)
    }
}
