//! Workflow commands: `run workflow`, `workflows`, `artifacts list`,
//! `artifacts cleanup`. The runner itself is [`crate::workflows`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Command, Cx, Scope};
use crate::error::{ApiError, ErrorCode};
use crate::workflows::bundle::{self, Cleanup, RunEntry};
use crate::workflows::{Finished, RunRequest, WorkflowInfo};

/// How `run workflow` prints its result.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// The ranked summary, at most 10 lines, and the bundle.
    #[default]
    Compact,
    /// The main data file (records, offers, tokens).
    Json,
    /// The main report (Markdown).
    Md,
    /// Compact JSON for an agent's context window.
    Context,
    /// The bundle's path and facts.
    Path,
}

/// Run an installed workflow; its files go to a new bundle folder.
///
/// Parameters follow the name as `--name value` (`--limit-per-source 5`);
/// `webrig run workflow NAME --help` lists them. Progress goes to stderr,
/// the result to stdout; Ctrl-C cancels the run.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunWorkflow {
    /// The workflow (see `webrig workflows`).
    pub name: String,
    /// How to print the result.
    #[arg(long, value_enum, default_value_t)]
    #[serde(default)]
    pub format: Format,
    /// The bundle folder to create (default: a new folder under the
    /// artifacts folder of WEBRIG_HOME).
    #[arg(long)]
    #[serde(default)]
    pub out: Option<PathBuf>,
    /// Hours the bundle is kept (1-168, default 72).
    #[arg(long)]
    #[serde(default)]
    pub ttl_hours: Option<u32>,
    /// The run's deadline in ms (default 120000), host calls included.
    #[arg(long)]
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Parameters as a JSON object; flags override its keys.
    #[arg(long)]
    #[serde(default)]
    pub input: Option<String>,
    /// The run's reference time (RFC 3339; default now): "today" for
    /// timeboxes and ages, for reproducible runs.
    #[arg(long)]
    #[serde(default)]
    pub now: Option<String>,
    /// Seed a canvas document of this name in the project folder from the
    /// run's design tokens (workflows that write tokens.json: inspiredesign).
    #[arg(long, value_name = "NAME")]
    #[serde(default)]
    pub canvas: Option<String>,
    /// The project folder for --canvas (default: the working directory).
    #[arg(long, value_name = "DIR")]
    #[serde(default)]
    pub root: Option<PathBuf>,
    /// The workflow's parameters by name (the CLI fills it from the flags
    /// after the name).
    #[arg(skip)]
    #[serde(default)]
    pub params: BTreeMap<String, Value>,
    /// The flags after the name, as typed.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "--PARAM VALUE"
    )]
    #[serde(skip)]
    #[schemars(skip)]
    pub rest: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RunOutput {
    #[serde(flatten)]
    pub run: Finished,
    /// The canvas document --canvas seeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canvas: Option<Seeded>,
    pub format: Format,
    /// The result as the format asked prints it.
    pub rendered: String,
}

/// A canvas document seeded from a run's design tokens.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Seeded {
    pub name: String,
    pub path: PathBuf,
    pub tokens: usize,
    pub nodes: usize,
}

const RUN_DEFAULT_MS: u64 = 120_000;

impl RunWorkflow {
    /// The flags after the name: `--key value`, `--key=value`, a flag
    /// given twice is a list; the runner's own options may come here too.
    fn take_rest(&mut self) -> Result<(), ApiError> {
        let mut args = std::mem::take(&mut self.rest).into_iter();
        while let Some(arg) = args.next() {
            let Some(flag) = arg.strip_prefix("--") else {
                return Err(ApiError::invalid(format!(
                    "unexpected {arg:?}: parameters are --name value"
                ))
                .with_hint(format!("see webrig run workflow {} --help", self.name)));
            };
            let (key, value) = match flag.split_once('=') {
                Some((k, v)) => (k.to_string(), v.to_string()),
                None => {
                    let v = args
                        .next()
                        .ok_or_else(|| ApiError::invalid(format!("--{flag} needs a value")))?;
                    (flag.to_string(), v)
                }
            };
            let key = key.replace('-', "_");
            let bad = |e: String| ApiError::invalid(format!("--{flag}: {e}"));
            match key.as_str() {
                "format" => {
                    self.format =
                        <Format as clap::ValueEnum>::from_str(&value, true).map_err(|_| {
                            let valid: Vec<String> = <Format as clap::ValueEnum>::value_variants()
                                .iter()
                                .filter_map(clap::ValueEnum::to_possible_value)
                                .map(|p| p.get_name().to_string())
                                .collect();
                            bad(format!(
                                "{value:?} is not a format; use one of {}",
                                valid.join(", ")
                            ))
                        })?
                }
                "out" => self.out = Some(PathBuf::from(value)),
                "ttl_hours" => {
                    self.ttl_hours =
                        Some(value.parse().map_err(|_| bad("a number of hours".into()))?)
                }
                "timeout_ms" => {
                    self.timeout_ms = Some(value.parse().map_err(|_| bad("milliseconds".into()))?)
                }
                "input" => self.input = Some(value),
                "canvas" => self.canvas = Some(value),
                "root" => self.root = Some(PathBuf::from(value)),
                "now" => self.now = Some(value),
                _ => match self.params.remove(&key) {
                    None => {
                        self.params.insert(key, Value::String(value));
                    }
                    Some(Value::Array(mut list)) => {
                        list.push(Value::String(value));
                        self.params.insert(key, Value::Array(list));
                    }
                    Some(first) => {
                        self.params
                            .insert(key, Value::Array(vec![first, Value::String(value)]));
                    }
                },
            }
        }
        Ok(())
    }
}

impl Command for RunWorkflow {
    const NAME: &'static str = "run workflow";
    const ABOUT: &'static str =
        "Run an installed workflow (research, shopping, …) into a bundle of files";
    const SCOPE: Scope = Scope::Daemon;
    const DEFAULT_TIMEOUT_MS: Option<u64> = Some(RUN_DEFAULT_MS);
    const STREAMS: bool = true;
    const ASK_FOR_LESS: &'static str =
        "print less (--format compact or path) and read the files from the bundle";
    type Output = RunOutput;

    fn prepare(&mut self) -> Result<(), ApiError> {
        self.take_rest()?;
        if let Some(out) = &self.out
            && out.is_relative()
        {
            let cwd = std::env::current_dir()
                .map_err(|e| ApiError::invalid(format!("no working directory: {e}")))?;
            self.out = Some(cwd.join(out));
        }
        if self.canvas.is_some() && self.root.as_ref().is_none_or(|r| r.is_relative()) {
            let cwd = std::env::current_dir()
                .map_err(|e| ApiError::invalid(format!("no working directory: {e}")))?;
            self.root = Some(cwd.join(self.root.take().unwrap_or_default()));
        }
        Ok(())
    }

    async fn run(mut self, cx: Cx) -> Result<RunOutput, ApiError> {
        self.take_rest()?;
        let mut given: BTreeMap<String, Value> = BTreeMap::new();
        if let Some(text) = &self.input {
            match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(m)) => given.extend(m),
                _ => return Err(ApiError::invalid("--input must be a JSON object")),
            }
        }
        given.extend(std::mem::take(&mut self.params));
        if let Some(out) = &self.out {
            cx.require_local_files("--out")?;
            if !out.is_absolute() {
                return Err(ApiError::invalid(format!(
                    "--out {} must be an absolute path",
                    out.display()
                )));
            }
        }
        let providers = cx.state().providers().await?;
        let plugin = crate::workflows::find(&providers.host().all(), &self.name)?;
        // --canvas: checked before the run, so a refusal costs nothing.
        let seed_into = match &self.canvas {
            Some(name) => {
                cx.require_local_files("--canvas")?;
                let writes_tokens = plugin
                    .workflow
                    .as_ref()
                    .is_some_and(|w| w.outputs.iter().any(|o| o == "tokens.json"));
                if !writes_tokens {
                    return Err(ApiError::invalid(format!(
                        "--canvas: {} writes no design tokens (tokens.json); inspiredesign does",
                        self.name
                    )));
                }
                let root = self
                    .root
                    .clone()
                    .ok_or_else(|| ApiError::invalid("--canvas needs the project folder (root)"))?;
                let project = crate::canvas::store::Project::open(&root)?;
                if project.exists(name)? {
                    return Err(ApiError::invalid(format!(
                        "--canvas: canvas {name:?} exists in {}",
                        project.root().display()
                    )));
                }
                Some((project, name.clone()))
            }
            None => None,
        };
        let run = crate::workflows::run(
            cx.state().home(),
            providers,
            plugin,
            RunRequest {
                given,
                out: self.out.clone(),
                ttl_hours: self.ttl_hours.unwrap_or(bundle::TTL_DEFAULT_HOURS),
                now: self.now.clone(),
                events: cx.events(),
                deadline: cx.deadline().into_std(),
            },
        )
        .await?;
        let canvas = match seed_into {
            Some((project, name)) => Some(seed_canvas(&run, &project, &name)?),
            None => None,
        };
        let mut rendered = render(&run, self.format)?;
        if let Some(c) = &canvas {
            rendered.push_str(&format!(
                "\ncanvas {} seeded: {} token(s), {} node(s) ({})",
                c.name,
                c.tokens,
                c.nodes,
                c.path.display()
            ));
        }
        Ok(RunOutput {
            run,
            canvas,
            format: self.format,
            rendered,
        })
    }

    fn human(out: &RunOutput) -> String {
        out.rendered.clone()
    }
}

/// Writes the canvas document `name` from the run's tokens.json.
fn seed_canvas(
    run: &Finished,
    project: &crate::canvas::store::Project,
    name: &str,
) -> Result<Seeded, ApiError> {
    let path = std::path::Path::new(&run.bundle).join("tokens.json");
    let bytes =
        crate::artifacts::read_regular(&path, 8 << 20, crate::artifacts::Symlinks::Refuse, |_| {
            Ok(())
        })?;
    let tokens: Value = serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::internal(format!("{}: {e}", path.display())))?;
    let doc = crate::canvas::seed::from_design_tokens(name, &tokens).map_err(|e| {
        ApiError::new(
            crate::error::ErrorCode::PluginFailed,
            format!("--canvas: the run's tokens.json cannot seed a canvas: {e}"),
        )
    })?;
    let path = project.locked(name, || project.write(&doc))?;
    Ok(Seeded {
        name: name.to_string(),
        path,
        tokens: doc.tokens.len(),
        nodes: doc.nodes.len(),
    })
}

/// The result as `format` prints it.
fn render(run: &Finished, format: Format) -> Result<String, ApiError> {
    let read = |name: &Option<String>, what: &str| -> Result<String, ApiError> {
        let name = name.as_ref().ok_or_else(|| {
            ApiError::new(
                ErrorCode::Unsupported,
                format!("workflow {} names no {what} file", run.workflow),
            )
            .with_hint("try --format compact or path")
        })?;
        let path = std::path::Path::new(&run.bundle).join(name);
        std::fs::read_to_string(&path)
            .map_err(|e| ApiError::internal(format!("reading {}: {e}", path.display())))
    };
    Ok(match format {
        Format::Compact => {
            let mut lines: Vec<&str> = run.summary.lines().take(9).collect();
            let tail = format!(
                "{} {}",
                if run.complete {
                    "→"
                } else {
                    "→ (incomplete)"
                },
                match &run.report {
                    Some(r) => format!("{}/{r}", run.bundle),
                    None => run.bundle.clone(),
                }
            );
            lines.push(&tail);
            lines.join("\n")
        }
        Format::Json => read(&run.data, "data")?.trim_end().to_string(),
        Format::Md => read(&run.report, "report")?.trim_end().to_string(),
        Format::Context => serde_json::to_string(&serde_json::json!({
            "workflow": run.workflow,
            "run_id": run.run_id,
            "status": run.status,
            "bundle": run.bundle,
            "context": run.context,
            "failures": run.failures.len(),
        }))
        .unwrap_or_default(),
        Format::Path => {
            let files: Vec<String> = run
                .files
                .iter()
                .map(|f| format!("{} ({} B)", f.name, f.bytes))
                .collect();
            format!(
                "{}\nrun {} · {} · {} ms · {}\nfiles: {}",
                run.bundle,
                run.run_id,
                run.status.as_deref().unwrap_or(if run.complete {
                    "complete"
                } else {
                    "incomplete"
                }),
                run.elapsed_ms,
                if run.failures.is_empty() {
                    "no failures".to_string()
                } else {
                    format!("{} failures", run.failures.len())
                },
                files.join(", ")
            )
        }
    })
}

/// List installed workflows and the parameters each takes.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkflowsList {
    /// Only this workflow.
    #[serde(default)]
    pub name: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct WorkflowView {
    pub version: String,
    /// Ready to run; else `error` says why.
    pub ready: bool,
    pub error: Option<String>,
    /// What it declares (empty when it did not load).
    #[serde(flatten)]
    pub info: WorkflowInfo,
}

impl Command for WorkflowsList {
    const NAME: &'static str = "workflows";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "List installed workflows and their parameters";
    const SCOPE: Scope = Scope::Daemon;
    type Output = Vec<WorkflowView>;

    async fn run(self, cx: Cx) -> Result<Vec<WorkflowView>, ApiError> {
        let providers = cx.state().providers().await?;
        let all = providers.host().all();
        let chosen = match &self.name {
            Some(name) => vec![crate::workflows::find(&all, name)?],
            None => all
                .into_iter()
                .filter(|p| p.installed.manifest.kind == crate::plugins::manifest::Kind::Workflow)
                .collect(),
        };
        let mut out: Vec<WorkflowView> = chosen
            .iter()
            .map(|p| {
                let error = p.ready().err().or_else(|| {
                    p.workflow
                        .is_none()
                        .then(|| "it did not describe itself".to_string())
                });
                WorkflowView {
                    version: p.installed.manifest.version.clone(),
                    ready: error.is_none(),
                    error,
                    info: p.workflow.clone().unwrap_or_else(|| WorkflowInfo {
                        id: p.id().to_string(),
                        ..WorkflowInfo::default()
                    }),
                }
            })
            .collect();
        out.sort_by(|a, b| a.info.id.cmp(&b.info.id));
        Ok(out)
    }

    fn human(out: &Vec<WorkflowView>) -> String {
        if out.is_empty() {
            return format!(
                "no workflow is installed: {}",
                crate::providers::route::SETUP_HINT
            );
        }
        out.iter().map(help_text).collect::<Vec<_>>().join("\n\n")
    }
}

/// A workflow's usage: what it does and each parameter.
pub fn help_text(w: &WorkflowView) -> String {
    let info = &w.info;
    if info.name.is_empty() {
        return format!(
            "{} {} — not ready: {}",
            w.info.id,
            w.version,
            w.error.as_deref().unwrap_or("?")
        );
    }
    let mut s = format!(
        "{} {} — {}\n  webrig run workflow {}",
        info.id, w.version, info.description, info.id
    );
    for p in &info.params {
        let flag = format!("--{}", p.name.replace('_', "-"));
        if p.required {
            s.push_str(&format!(" {flag} <{}>", p.kind));
        }
    }
    s.push_str(" [options]");
    for p in &info.params {
        let flag = format!("--{}", p.name.replace('_', "-"));
        let mut notes = Vec::new();
        if p.kind == "choice" {
            notes.push(p.choices.join("|"));
        } else {
            notes.push(p.kind.clone());
        }
        if p.required {
            notes.push("required".into());
        }
        if p.repeated {
            notes.push("repeatable".into());
        }
        if let Some(d) = &p.default {
            notes.push(format!("default {d}"));
        }
        s.push_str(&format!(
            "\n    {flag:<22} {} ({})",
            p.description,
            notes.join(", ")
        ));
    }
    if !info.outputs.is_empty() {
        s.push_str(&format!("\n  writes: {}", info.outputs.join(", ")));
    }
    if !w.ready {
        s.push_str(&format!(
            "\n  not ready: {}",
            w.error.as_deref().unwrap_or("?")
        ));
    }
    s
}

/// List workflow bundles (runs) under the artifacts folder.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArtifactsList {}

impl Command for ArtifactsList {
    const NAME: &'static str = "artifacts list";
    const READ_ONLY: bool = true;
    const ABOUT: &'static str = "List workflow bundles with their expiry";
    const SCOPE: Scope = Scope::Daemon;
    type Output = Vec<RunEntry>;

    async fn run(self, cx: Cx) -> Result<Vec<RunEntry>, ApiError> {
        Ok(bundle::list(
            &cx.state().home().artifacts_dir(),
            std::time::SystemTime::now(),
        ))
    }

    fn human(out: &Vec<RunEntry>) -> String {
        if out.is_empty() {
            return "no bundles".into();
        }
        out.iter()
            .map(|r| {
                format!(
                    "{}  {}{}  {}  {} files, {} B  expires {}{}{}",
                    r.run_id,
                    r.workflow,
                    r.subject
                        .as_deref()
                        .map(|s| format!(" \"{s}\""))
                        .unwrap_or_default(),
                    r.status.as_deref().unwrap_or(if r.complete {
                        "complete"
                    } else {
                        "incomplete"
                    }),
                    r.files,
                    r.bytes,
                    r.expires_at,
                    if r.expired { " (expired)" } else { "" },
                    if r.complete { "" } else { " (incomplete)" }
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Remove expired bundles (and, without --expired-only, incomplete ones).
///
/// Runs whose dates do not parse are kept; symlinks are skipped.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArtifactsCleanup {
    /// Only remove runs past their TTL.
    #[arg(long)]
    #[serde(default)]
    pub expired_only: bool,
}

impl Command for ArtifactsCleanup {
    const NAME: &'static str = "artifacts cleanup";
    const DESTRUCTIVE: bool = true;
    const ABOUT: &'static str = "Remove expired (and incomplete) workflow bundles";
    const SCOPE: Scope = Scope::Daemon;
    type Output = Cleanup;

    async fn run(self, cx: Cx) -> Result<Cleanup, ApiError> {
        let root = cx.state().home().artifacts_dir();
        let expired_only = self.expired_only;
        tokio::task::spawn_blocking(move || {
            bundle::cleanup(&root, expired_only, std::time::SystemTime::now())
        })
        .await
        .map_err(|e| ApiError::internal(format!("cleanup: {e}")))
    }

    fn human(out: &Cleanup) -> String {
        let mut s = format!("removed {} bundle(s)", out.removed.len());
        for k in &out.skipped {
            s.push_str(&format!("\nskipped {}: {}", k.path, k.reason));
        }
        s
    }
}
