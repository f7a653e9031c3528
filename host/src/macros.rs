//! `@macro(...)` expressions: rhai packs that turn a macro call into provider
//! operations. Owns the hardened rhai engine, the packs (first-party ones
//! built into the binary, the user's in `<config>/macros/*.rhai`), and
//! resolving an expression into a plan. Running a plan is `run`'s job; this
//! module never touches the network.
//!
//! A pack `web.rhai` defines macros as functions: `fn search(query, limit)`
//! is `@web.search`. Arguments bind by name, else by position; a missing one
//! is `()` (packs write `limit ?? 10`). Inside a macro, `this` is the previous
//! step's results in a pipe (`()` for the first step and when resolving).
//! Scripts reach the world only through `op(source, operation, input)` and
//! `workflow(name, input)`, which only *describe* an action. Each call runs
//! in `sandbox` (its own thread, checked builtins, budgets); posting needs
//! `confirm=true, riskAccepted=true` in the user's own expression.

mod alloc;
pub mod parse;
mod run;
mod sandbox;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use rhai::{Dynamic, Engine, EvalAltResult, Map as RMap};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::error::{ApiError, ErrorCode};

pub use run::{RunOutcome, execute};
pub use sandbox::Budget;

/// First-party packs, built in.
const FIRST_PARTY: &[(&str, &str)] = &[
    ("web", include_str!("../../macros/web.rhai")),
    ("developer", include_str!("../../macros/developer.rhai")),
    ("community", include_str!("../../macros/community.rhai")),
    ("media", include_str!("../../macros/media.rhai")),
    ("social", include_str!("../../macros/social.rhai")),
    ("fetch", include_str!("../../macros/fetch.rhai")),
    ("shopping", include_str!("../../macros/shopping.rhai")),
    ("research", include_str!("../../macros/research.rhai")),
];

/// How long one macro call may run, at most (the command's deadline may be
/// shorter).
const CALL_BUDGET: std::time::Duration = std::time::Duration::from_millis(500);
/// Deepest plan value (an action's input) accepted from a macro.
const PLAN_DEPTH: usize = 32;

/// One macro as `macro list` shows it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct MacroInfo {
    /// `pack.function`, as written after `@`.
    pub name: String,
    /// `name(param, …)`.
    pub signature: String,
    /// From the `///` comment above the function.
    pub doc: String,
    pub pack: String,
    /// `built-in` or the user file's path.
    pub file: String,
    /// False when another definition of the same name wins (a user pack
    /// overrides a first-party one).
    pub wins: bool,
}

/// A pack that failed to load (the others still load).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PackError {
    pub file: String,
    pub line: Option<usize>,
    pub message: String,
}

struct Pack {
    name: String,
    ast: Arc<rhai::AST>,
    macros: Vec<MacroInfo>,
}

/// A user pack file as last compiled: its stamp and the outcome.
struct Cached {
    stamp: (SystemTime, u64),
    pack: Result<Arc<Pack>, PackError>,
}

/// Cheap to clone (shared inside), so a call can move to a blocking thread.
#[derive(Clone)]
pub struct Macros {
    engine: Arc<Engine>,
    first_party: Arc<Vec<Arc<Pack>>>,
    user_dir: PathBuf,
    user: Arc<Mutex<BTreeMap<PathBuf, Cached>>>,
}

/// One action a macro planned, with where it came from.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Planned {
    /// Index of the pipe step (0-based).
    pub step: usize,
    pub action: Action,
    pub provenance: Provenance,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Action {
    /// A source policy (`web`, `community`, `social`, `shopping`, `all`,
    /// `auto`), a provider id, or `workflow`.
    pub source: String,
    /// `search`, `fetch`, `post`, or a workflow's name.
    pub operation: String,
    pub input: Value,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Provenance {
    #[serde(rename = "macro")]
    pub macro_name: String,
    pub pack: String,
    /// The query or URL the action will use.
    pub resolved_query: Option<String>,
    /// The provider that would serve it, when one is known without the network.
    pub provider: Option<String>,
    pub args: Args,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Args {
    pub positional: Vec<Value>,
    pub named: serde_json::Map<String, Value>,
}

impl Macros {
    /// The engine and the first-party packs; user packs come from
    /// `user_dir` and are read when used. The default budget.
    pub fn new(user_dir: PathBuf) -> Macros {
        Macros::with_budget(user_dir, Budget::default())
    }

    /// [`new`](Self::new), with each call's memory and output `budget`.
    pub fn with_budget(user_dir: PathBuf, budget: Budget) -> Macros {
        let mut engine = sandbox::harden(budget);
        register_host_functions(&mut engine);
        let first_party = FIRST_PARTY
            .iter()
            .map(|(name, src)| {
                // First-party packs are compiled in tests; a failure here is a bug.
                compile(&engine, name, "built-in", src)
                    .map(Arc::new)
                    .unwrap_or_else(|e| {
                        panic!("built-in pack {name} does not compile: {}", e.message)
                    })
            })
            .collect();
        Macros {
            engine: Arc::new(engine),
            first_party: Arc::new(first_party),
            user_dir,
            user: Arc::default(),
        }
    }

    /// The same engine and packs with one more, compiled from `src` and
    /// found before the others: for the fuzzer and tests, which feed packs
    /// without files (the daemon reads packs only from files).
    pub fn with_pack_source(&self, name: &str, src: &str) -> Result<Macros, PackError> {
        let pack = compile(&self.engine, name, "inline", src)?;
        let mut packs = vec![Arc::new(pack)];
        packs.extend(self.first_party.iter().cloned());
        Ok(Macros {
            first_party: Arc::new(packs),
            ..self.clone()
        })
    }

    /// User packs, recompiled when their file changed; broken ones as errors.
    fn user_packs(&self) -> Vec<Result<Arc<Pack>, PackError>> {
        let mut files: Vec<(PathBuf, (SystemTime, u64))> = std::fs::read_dir(&self.user_dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "rhai"))
            .filter_map(|e| {
                let meta = e.metadata().ok().filter(|m| m.is_file())?;
                Some((e.path(), (meta.modified().ok()?, meta.len())))
            })
            .collect();
        files.sort();
        let mut cache = self.user.lock().unwrap_or_else(|e| e.into_inner());
        cache.retain(|path, _| files.iter().any(|(p, _)| p == path));
        files
            .into_iter()
            .map(|(path, stamp)| {
                if let Some(c) = cache.get(&path).filter(|c| c.stamp == stamp) {
                    return c.pack.clone();
                }
                let pack = self.load_user(&path);
                cache.insert(
                    path,
                    Cached {
                        stamp,
                        pack: pack.clone(),
                    },
                );
                pack
            })
            .collect()
    }

    fn load_user(&self, path: &Path) -> Result<Arc<Pack>, PackError> {
        let file = path.display().to_string();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        let src = std::fs::read_to_string(path).map_err(|e| PackError {
            file: file.clone(),
            line: None,
            message: e.to_string(),
        })?;
        if src.len() > 1 << 20 {
            return Err(PackError {
                file,
                line: None,
                message: "the pack is over 1 MiB".into(),
            });
        }
        compile(&self.engine, &name, &file, &src).map(Arc::new)
    }

    /// Every macro (user definitions first win), and the packs that failed.
    pub fn list(&self) -> (Vec<MacroInfo>, Vec<PackError>) {
        let mut errors = Vec::new();
        let mut out: Vec<MacroInfo> = Vec::new();
        for pack in self.user_packs() {
            match pack {
                Ok(p) => out.extend(p.macros.iter().cloned()),
                Err(e) => errors.push(e),
            }
        }
        for p in self.first_party.iter() {
            for m in &p.macros {
                let overridden = out.iter().any(|u| u.name == m.name);
                out.push(MacroInfo {
                    wins: !overridden,
                    ..m.clone()
                });
            }
        }
        out.sort_by(|a, b| a.name.cmp(&b.name).then(b.wins.cmp(&a.wins)));
        (out, errors)
    }

    /// The winning definition of `name`, with its pack.
    fn find(&self, name: &str) -> Result<(Arc<Pack>, MacroInfo), ApiError> {
        self.find_in(name, &self.user_packs())
    }

    /// Like [`find`], with the user packs already read.
    fn find_in(
        &self,
        name: &str,
        user: &[Result<Arc<Pack>, PackError>],
    ) -> Result<(Arc<Pack>, MacroInfo), ApiError> {
        let packs = user.iter().flatten().chain(self.first_party.iter());
        for pack in packs {
            if let Some(m) = pack.macros.iter().find(|m| m.name == name) {
                return Ok((pack.clone(), m.clone()));
            }
        }
        let (all, errors) = self.list();
        let mut near: Vec<(f64, &str)> = all
            .iter()
            .filter(|m| m.wins)
            .map(|m| (strsim::jaro_winkler(name, &m.name), m.name.as_str()))
            .collect();
        near.sort_by(|a, b| b.0.total_cmp(&a.0));
        let names: Vec<String> = near.iter().take(3).map(|(_, n)| format!("@{n}")).collect();
        let mut err = ApiError::not_found(format!("no macro @{name}"));
        err = if errors.is_empty() {
            err.with_hint(format!(
                "did you mean {}? (webrig macro list)",
                names.join(", ")
            ))
        } else {
            err.with_hint(format!(
                "did you mean {}? {} pack(s) failed to load: webrig macro list",
                names.join(", "),
                errors.len()
            ))
        };
        Err(err)
    }

    pub fn info(&self, name: &str) -> Result<MacroInfo, ApiError> {
        self.find(name.trim_start_matches('@')).map(|(_, m)| m)
    }

    /// Resolves `expr` into the plan: each step's macro called with its
    /// arguments (and `this` = `previous`, the previous step's results when
    /// running; `()` when only resolving).
    pub fn resolve(&self, expr: &str, deadline: Instant) -> Result<Vec<Vec<Planned>>, ApiError> {
        let steps = parse::parse(expr).map_err(|e| ApiError::invalid(e.to_string()))?;
        // The user's packs are looked at once per expression.
        let user = self.user_packs();
        let mut plan = Vec::with_capacity(steps.len());
        for (i, step) in steps.iter().enumerate() {
            let mut unknown = Dynamic::UNIT;
            plan.push(self.call(i, step, &mut unknown, deadline, &user)?);
        }
        Ok(plan)
    }

    /// [`resolve`](Self::resolve) on a blocking thread, off the async runtime.
    pub async fn resolve_blocking(
        &self,
        expr: String,
        deadline: Instant,
    ) -> Result<Vec<Vec<Planned>>, ApiError> {
        let macros = self.clone();
        tokio::task::spawn_blocking(move || macros.resolve(&expr, deadline))
            .await
            .map_err(|e| ApiError::internal(format!("resolving the macro: {e}")))?
    }

    /// [`resolve_step`](Self::resolve_step) on a blocking thread, off the
    /// async runtime; `previous` becomes `this`.
    pub async fn resolve_step_blocking(
        &self,
        index: usize,
        step: parse::Step,
        previous: Dynamic,
        deadline: Instant,
    ) -> Result<Vec<Planned>, ApiError> {
        let macros = self.clone();
        tokio::task::spawn_blocking(move || {
            let mut previous = previous;
            macros.resolve_step(index, &step, &mut previous, deadline)
        })
        .await
        .map_err(|e| ApiError::internal(format!("running the macro: {e}")))?
    }

    /// The parsed steps of `expr`.
    pub fn steps(&self, expr: &str) -> Result<Vec<parse::Step>, ApiError> {
        parse::parse(expr).map_err(|e| ApiError::invalid(e.to_string()))
    }

    /// Calls one step's macro; `previous` becomes `this` inside it.
    pub fn resolve_step(
        &self,
        index: usize,
        step: &parse::Step,
        previous: &mut Dynamic,
        deadline: Instant,
    ) -> Result<Vec<Planned>, ApiError> {
        self.call(index, step, previous, deadline, &self.user_packs())
    }

    fn call(
        &self,
        index: usize,
        step: &parse::Step,
        previous: &mut Dynamic,
        deadline: Instant,
        user: &[Result<Arc<Pack>, PackError>],
    ) -> Result<Vec<Planned>, ApiError> {
        let (pack, info) = self.find_in(&step.name, user)?;
        let function = step
            .name
            .rsplit('.')
            .next()
            .unwrap_or(&step.name)
            .to_string();
        let params = params_of(&info.signature);
        let args = bind(step, &params, &info.signature)?;
        let until = deadline.min(Instant::now() + CALL_BUDGET);
        let (engine, ast, name) = (self.engine.clone(), pack.ast.clone(), step.name.clone());
        let mut this = std::mem::take(previous);
        let ran = sandbox::on_own_thread(until, move || {
            let mut scope = rhai::Scope::new();
            let options = rhai::CallFnOptions::new()
                .eval_ast(false)
                .bind_this_ptr(&mut this);
            let called: Result<Dynamic, Box<EvalAltResult>> =
                engine.call_fn_with_options(options, &mut scope, &ast, &function, args);
            let value = called.map_err(|e| script_error(&name, &e))?;
            actions_of(&name, value)
        });
        let mut actions = match ran {
            Ok(actions) => actions?,
            Err(sandbox::Stopped::Late) => {
                return Err(ApiError::new(
                    ErrorCode::LimitExceeded,
                    format!("@{} ran past its deadline", step.name),
                )
                .with_hint(
                    "the macro did too much work or ran too long; macros may only plan actions",
                ));
            }
            Err(sandbox::Stopped::Crashed(why)) => {
                return Err(ApiError::internal(format!("@{}: {why}", step.name)));
            }
        };
        gate_posts(step, &mut actions)?;
        Ok(actions
            .into_iter()
            .map(|action| Planned {
                step: index,
                provenance: Provenance {
                    macro_name: step.name.clone(),
                    pack: pack.name.clone(),
                    resolved_query: action.input["query"]
                        .as_str()
                        .or_else(|| action.input["url"].as_str())
                        .map(str::to_string),
                    provider: None,
                    args: Args {
                        positional: step.positional.clone(),
                        named: step.named.clone(),
                    },
                },
                action,
            })
            .collect())
    }
}

/// The host functions packs may call; everything else is rhai's own.
fn register_host_functions(e: &mut Engine) {
    e.register_fn("op", op);
    e.register_fn("workflow", workflow);
    e.register_fn("days_ago", days_ago);
    e.register_fn("site_query", site_query);
}

/// `op(source, operation, input)`: describes one provider operation.
/// Posting is gated by the host after the call ([`gate_posts`]), on what
/// the user wrote, never on what the pack put in `input`.
fn op(source: &str, operation: &str, input: RMap) -> Result<RMap, Box<EvalAltResult>> {
    if !matches!(operation, "search" | "fetch" | "post") {
        return Err(format!("op: unknown operation {operation:?} (search, fetch or post)").into());
    }
    Ok(action_map(source, operation, input))
}

/// Posting needs `confirm=true` and `riskAccepted=true` written by name in
/// the user's own expression for this step. The pack's `input` may say what
/// it likes: it is overwritten with what the user said.
fn gate_posts(step: &parse::Step, actions: &mut [Action]) -> Result<(), ApiError> {
    if !actions.iter().any(|a| a.operation == "post") {
        return Ok(());
    }
    let said = |k: &str| step.named.get(k) == Some(&Value::Bool(true));
    if !(said("confirm") && said("riskAccepted")) {
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            format!(
                "@{}: posting needs confirm=true and riskAccepted=true in your expression",
                step.name
            ),
        )
        .with_hint("add confirm=true, riskAccepted=true (by name) if you mean to post"));
    }
    for a in actions.iter_mut().filter(|a| a.operation == "post") {
        if let Value::Object(input) = &mut a.input {
            input.insert("confirm".into(), Value::Bool(true));
            input.insert("riskAccepted".into(), Value::Bool(true));
        }
    }
    Ok(())
}

/// `workflow(name, input)`: describes a workflow run.
fn workflow(name: &str, input: RMap) -> RMap {
    action_map("workflow", name, input)
}

fn action_map(source: &str, operation: &str, input: RMap) -> RMap {
    let mut action = RMap::new();
    action.insert("source".into(), source.into());
    action.insert("operation".into(), operation.into());
    action.insert("input".into(), input.into());
    let mut out = RMap::new();
    out.insert("action".into(), action.into());
    out
}

/// The date `n` days before today (UTC), `YYYY-MM-DD`.
fn days_ago(n: i64) -> String {
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (y, m, d) = civil_from_days(now.div_euclid(86_400) - n.clamp(0, 36_500));
    format!("{y:04}-{m:02}-{d:02}")
}

/// Howard Hinnant's days-to-civil algorithm.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// `site_query(query, sites)`: `query (site:a OR site:b)`.
fn site_query(query: &str, sites: rhai::Array) -> String {
    let sites: Vec<String> = sites
        .iter()
        .filter_map(|s| s.clone().into_string().ok())
        .map(|s| format!("site:{s}"))
        .collect();
    if sites.is_empty() {
        query.to_string()
    } else {
        format!("{query} ({})", sites.join(" OR "))
    }
}

fn compile(engine: &Engine, name: &str, file: &str, src: &str) -> Result<Pack, PackError> {
    let ast = engine.compile(src).map_err(|e| PackError {
        file: file.to_string(),
        line: e.position().line(),
        message: e.to_string(),
    })?;
    let macros = ast
        .iter_functions()
        .filter(|f| f.access != rhai::FnAccess::Private)
        .map(|f| {
            let doc = f
                .comments
                .iter()
                .flat_map(|c| c.lines())
                .map(|l| {
                    l.trim_start_matches("///")
                        .trim_start_matches("/**")
                        .trim_end_matches("*/")
                        .trim()
                })
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            let params: Vec<String> = f
                .params
                .iter()
                .map(|p| match default_of(src, f.name, p) {
                    Some(d) => format!("{p}={d}"),
                    None => p.to_string(),
                })
                .collect();
            MacroInfo {
                name: format!("{name}.{}", f.name),
                signature: format!("{name}.{}({})", f.name, params.join(", ")),
                doc,
                pack: name.to_string(),
                file: file.to_string(),
                wins: true,
            }
        })
        .collect();
    Ok(Pack {
        name: name.to_string(),
        ast: Arc::new(ast),
        macros,
    })
}

/// A parameter's default, read from the pack's own convention `param ?? value`
/// inside the function, for the signature `macro list` shows.
fn default_of(src: &str, function: &str, param: &str) -> Option<String> {
    let start = src.find(&format!("fn {function}("))?;
    let body = &src[start..];
    let end = body[1..].find("\nfn ").map_or(body.len(), |i| i + 1);
    let body = &body[..end];
    let at = body.find(&format!("{param} ?? "))? + param.len() + 4;
    let value: String = body[at..]
        .chars()
        .take_while(|c| !matches!(c, ',' | '}' | ')' | ';' | '\n'))
        .collect();
    let value = value.trim();
    (!value.is_empty() && value.len() <= 40).then(|| value.to_string())
}

/// Parameter names from a signature (`name(a, b=1)` → `[a, b]`).
fn params_of(signature: &str) -> Vec<String> {
    signature
        .split_once('(')
        .map(|(_, rest)| rest.trim_end_matches(')'))
        .unwrap_or_default()
        .split(',')
        .map(|p| p.split('=').next().unwrap_or_default().trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// The call's arguments for `params`: `named[p]`, else `positional[i]`, else `()`.
fn bind(step: &parse::Step, params: &[String], signature: &str) -> Result<Vec<Dynamic>, ApiError> {
    if step.positional.len() > params.len() {
        return Err(ApiError::invalid(format!(
            "@{} takes {} argument(s), got {} positional",
            step.name,
            params.len(),
            step.positional.len()
        ))
        .with_hint(format!("its signature: {signature}")));
    }
    if let Some(extra) = step.named.keys().find(|k| !params.contains(k)) {
        return Err(
            ApiError::invalid(format!("@{} has no argument {extra:?}", step.name))
                .with_hint(format!("its signature: {signature}")),
        );
    }
    params
        .iter()
        .enumerate()
        .map(|(i, p)| match step.arg(p, i) {
            Some(v) => rhai::serde::to_dynamic(v)
                .map_err(|e| ApiError::invalid(format!("@{} argument {p}: {e}", step.name))),
            None => Ok(Dynamic::UNIT),
        })
        .collect()
}

/// A plan map or a list of them, as JSON actions.
fn actions_of(name: &str, value: Dynamic) -> Result<Vec<Action>, ApiError> {
    let json: Value = rhai::serde::from_dynamic(&value).map_err(|e| {
        ApiError::invalid(format!(
            "@{name} returned something that is not a plan: {e}"
        ))
    })?;
    if sandbox::depth_over(&json, PLAN_DEPTH) {
        return Err(ApiError::new(
            ErrorCode::LimitExceeded,
            format!("@{name} returned a plan nested over {PLAN_DEPTH} deep"),
        ));
    }
    let items = match json {
        Value::Array(items) => items,
        one => vec![one],
    };
    items
        .into_iter()
        .map(|item| {
            serde_json::from_value::<Action>(item["action"].clone()).map_err(|_| {
                ApiError::invalid(format!(
                    "@{name} must return op(…) or workflow(…) (or a list of them), not {item}"
                ))
            })
        })
        .collect()
}

fn script_error(name: &str, e: &EvalAltResult) -> ApiError {
    // A failure inside a callback (`map`, `filter`, …) comes wrapped.
    let mut e = e;
    while let EvalAltResult::ErrorInFunctionCall(_, _, inner, _) = e {
        e = inner;
    }
    let text = match e {
        // The reason the sandbox stopped it, not just "terminated".
        EvalAltResult::ErrorTerminated(why, _) => format!("stopped: {why}"),
        _ => e.to_string(),
    };
    let (code, hint) = match e {
        EvalAltResult::ErrorTooManyOperations(_) | EvalAltResult::ErrorTerminated(..) => (
            ErrorCode::LimitExceeded,
            "the macro did too much work or ran too long; macros may only plan actions",
        ),
        EvalAltResult::ErrorDataTooLarge(..) | EvalAltResult::ErrorStackOverflow(_) => (
            ErrorCode::LimitExceeded,
            "the macro built too much data or recursed too deep",
        ),
        _ => (
            ErrorCode::InvalidArgument,
            "check the macro's arguments (webrig macro info NAME)",
        ),
    };
    ApiError::new(code, format!("@{name} failed: {text}")).with_hint(hint)
}

/// The catalog for `--catalog`: winning macro signatures.
pub fn catalog(list: &[MacroInfo]) -> Vec<Value> {
    list.iter()
        .filter(|m| m.wins)
        .map(|m| json!({ "name": m.name, "signature": m.signature, "doc": m.doc }))
        .collect()
}

#[cfg(test)]
mod tests;
