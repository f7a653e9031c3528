//! Running a macro pipe: each step's macro is called with the previous step's
//! results as `this`, and the actions it plans go through the provider
//! runtime (timeouts, retries, breakers, partial success). Results carry
//! their provenance: macro, pack, provider, retrieval path, time. A step
//! whose action nothing installed (or ready) serves fails the run before
//! any of that step's actions runs (see `providers::route`).

use std::sync::Arc;
use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{Action, Macros, Planned};
use crate::error::ApiError;
use crate::providers::{Failure, FailureCode, Providers};

/// Most pages one `from_previous` fetch takes.
const MAX_FETCH: usize = 20;

/// The partial-success envelope of `macro run`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RunOutcome {
    /// The last step's results, each with `provenance`.
    pub results: Vec<Value>,
    pub failures: Vec<Failure>,
    pub meta: RunMeta,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RunMeta {
    pub steps: Vec<StepMeta>,
    pub total_ms: u64,
    /// The plan that ran (actions with their provenance).
    pub provenance: Vec<Planned>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct StepMeta {
    #[serde(rename = "macro")]
    pub macro_name: String,
    pub actions: usize,
    pub results: usize,
    pub failures: usize,
    pub ms: u64,
}

/// Runs `expr` until `deadline`.
pub async fn execute(
    macros: &Macros,
    home: &crate::config::Home,
    providers: Arc<Providers>,
    expr: &str,
    deadline: tokio::time::Instant,
) -> Result<RunOutcome, ApiError> {
    let started = Instant::now();
    let steps = macros.steps(expr)?;
    let mut previous: Vec<Value> = Vec::new();
    let mut failures = Vec::new();
    let mut metas = Vec::new();
    let mut provenance = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let step_started = Instant::now();
        let this = if i == 0 {
            rhai::Dynamic::UNIT
        } else {
            rhai::serde::to_dynamic(&previous).map_err(|e| ApiError::internal(e.to_string()))?
        };
        // Off the async runtime: a slow script must not hold a worker.
        let planned = macros
            .resolve_step_blocking(i, step.clone(), this, deadline.into_std())
            .await?;
        // Before any of the step runs: each action has a provider to serve it.
        for p in &planned {
            preflight(&providers, p)?;
        }
        let mut results = Vec::new();
        let before = failures.len();
        for p in &planned {
            if p.action.source == "workflow" {
                results.push(run_workflow(home, &providers, p, deadline).await?);
                continue;
            }
            let (mut got, mut failed) = act(&providers, p, &previous, deadline).await?;
            results.append(&mut got);
            failures.append(&mut failed);
        }
        metas.push(StepMeta {
            macro_name: step.name.clone(),
            actions: planned.len(),
            results: results.len(),
            failures: failures.len() - before,
            ms: step_started.elapsed().as_millis() as u64,
        });
        provenance.extend(planned);
        previous = results;
    }
    Ok(RunOutcome {
        results: previous,
        failures,
        meta: RunMeta {
            steps: metas,
            total_ms: started.elapsed().as_millis() as u64,
            provenance,
        },
    })
}

/// A planned workflow run, with the macro's input as its parameters (nulls
/// dropped: an argument the caller left out takes the workflow's default).
/// Its result is the run's (bundle, summary, context).
async fn run_workflow(
    home: &crate::config::Home,
    providers: &Arc<Providers>,
    planned: &Planned,
    deadline: tokio::time::Instant,
) -> Result<Value, ApiError> {
    let name = &planned.action.operation;
    let plugin = crate::workflows::find(&providers.host().all(), name)?;
    let given = planned
        .action
        .input
        .as_object()
        .map(|m| {
            m.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default();
    let finished = crate::workflows::run(
        home,
        providers.clone(),
        plugin,
        crate::workflows::RunRequest {
            given,
            out: None,
            ttl_hours: crate::workflows::bundle::TTL_DEFAULT_HOURS,
            now: None,
            events: None,
            deadline: deadline.into_std(),
        },
    )
    .await?;
    let mut v = serde_json::to_value(finished).map_err(|e| ApiError::internal(e.to_string()))?;
    v["provenance"] = json!({
        "macro": planned.provenance.macro_name,
        "pack": planned.provenance.pack,
        "workflow": name,
    });
    Ok(v)
}

/// Fails when nothing installed can serve `planned` (see
/// `providers::route`): before any action of its step runs.
fn preflight(providers: &Providers, planned: &Planned) -> Result<(), ApiError> {
    let Action {
        source,
        operation,
        input,
    } = &planned.action;
    let name = &planned.provenance.macro_name;
    match operation.as_str() {
        "search" => providers
            .select_ready(source, input["query"].as_str().unwrap_or_default())
            .map(drop)
            .map_err(|e| within(name, e)),
        "fetch" => providers
            .can_fetch()
            .map_err(|u| u.error_in(&format!("@{name}"))),
        _ => Ok(()),
    }
}

/// `e`, its message led by the macro that planned the action.
fn within(name: &str, e: ApiError) -> ApiError {
    let out = ApiError::new(e.code(), format!("@{name}: {}", e.message()));
    match e.hint() {
        Some(h) => out.with_hint(h),
        None => out,
    }
}

/// One planned action through the runtime: its results and failures.
async fn act(
    providers: &Providers,
    planned: &Planned,
    previous: &[Value],
    deadline: tokio::time::Instant,
) -> Result<(Vec<Value>, Vec<Failure>), ApiError> {
    let Action {
        source,
        operation,
        input,
    } = &planned.action;
    let stamp = |mut v: Value, provider: &str, path: String| {
        v["provenance"] = json!({
            "macro": planned.provenance.macro_name,
            "pack": planned.provenance.pack,
            "provider": provider,
            "retrieval_path": path,
            "retrieved_at": now_rfc3339(),
        });
        v
    };
    match operation.as_str() {
        "search" => {
            let query = input["query"].as_str().map(str::trim).unwrap_or_default();
            if query.is_empty() {
                return Err(ApiError::invalid(format!(
                    "@{} planned a search without a query",
                    planned.provenance.macro_name
                )));
            }
            let limit = input["limit"].as_u64().unwrap_or(10).clamp(1, 100) as u32;
            let out = providers
                .search(query, source, limit, deadline)
                .await
                .map_err(|e| within(&planned.provenance.macro_name, e))?;
            let results = out
                .results
                .into_iter()
                .map(|item| {
                    let provider = item.provider.clone();
                    let v = serde_json::to_value(item).unwrap_or_default();
                    stamp(v, &provider, format!("search/{source}"))
                })
                .collect();
            Ok((results, out.failures))
        }
        "fetch" => {
            let urls: Vec<String> = match (&input["url"], input["from_previous"].as_u64()) {
                (Value::String(url), _) => vec![url.clone()],
                (_, Some(n)) => previous
                    .iter()
                    .filter_map(|r| r["url"].as_str().map(str::to_string))
                    .take((n as usize).min(MAX_FETCH))
                    .collect(),
                _ => {
                    return Err(ApiError::invalid(format!(
                        "@{} planned a fetch without url or from_previous",
                        planned.provenance.macro_name
                    )));
                }
            };
            let fetches = urls
                .iter()
                .map(|url| async move { (url, providers.fetch(url, None, deadline).await) });
            let mut results = Vec::new();
            let mut failures = Vec::new();
            for (url, outcome) in futures_util::future::join_all(fetches).await {
                match outcome {
                    Ok(Ok(page)) => {
                        let provider = page.provider.clone();
                        let v = serde_json::to_value(page).unwrap_or_default();
                        results.push(stamp(v, &provider, "fetch".into()));
                    }
                    Ok(Err(failure)) => failures.push(failure),
                    Err(e) => failures.push(Failure {
                        provider: String::new(),
                        code: FailureCode::InvalidInput,
                        message: format!("{url}: {}", e.message()),
                    }),
                }
            }
            Ok((results, failures))
        }
        // Posting passed its confirm/risk gate when planned; the provider
        // runtime has no post path yet, so it is reported, never faked.
        _ => Ok((
            Vec::new(),
            vec![Failure {
                provider: source.clone(),
                code: FailureCode::NotSupported,
                message: format!("{operation} through providers is not available in this version"),
            }],
        )),
    }
}

/// Now as RFC 3339 (UTC, seconds).
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (y, m, d) = super::civil_from_days(secs.div_euclid(86_400));
    let t = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        t / 3600,
        t % 3600 / 60,
        t % 60
    )
}
