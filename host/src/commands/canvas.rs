//! `webrig canvas …`: design documents in the caller's project folder,
//! changed by revisioned patches, previewed in the session's browser and
//! synced with source files through adapters (`crate::canvas`). Every
//! canvas command reads or writes the project folder, so each needs local
//! file access: the owner's socket (the CLI, MCP over stdio) has it; the
//! HTTP door has it only with `[access] http_local_files`.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::session::absolutize;
use super::{Command, Cx, Scope};
use crate::canvas::code::{self, BindingStatus, Pulled, Pushed};
use crate::canvas::patch::{self, Op};
use crate::canvas::store::{Lease, OPEN, Project};
use crate::canvas::{Document, render};
use crate::error::{ApiError, ErrorCode};

/// The project folder (default: the CLI's working directory) and the
/// agent editing: every canvas command takes these two.
pub(super) fn project(cx: &Cx, root: &Option<PathBuf>) -> Result<Project, ApiError> {
    cx.require_local_files("the canvas (it reads and writes the project folder)")?;
    let root = root.as_ref().ok_or_else(|| {
        ApiError::invalid(
            "name the project folder with `root` (the CLI sends its working directory)",
        )
    })?;
    Project::open(root)
}

pub(super) fn default_root(root: &mut Option<PathBuf>) -> Result<(), ApiError> {
    if root.is_none() {
        *root = Some(
            std::env::current_dir()
                .map_err(|e| ApiError::invalid(format!("no working directory: {e}")))?,
        );
    }
    absolutize(root)
}

fn default_agent() -> String {
    "default".into()
}

fn check_agent(agent: &str) -> Result<(), ApiError> {
    crate::canvas::doc::check_id(agent).map_err(|e| ApiError::invalid(format!("agent: {e}")))
}

/// Runs blocking canvas work (file locks, adapter calls) off the async
/// workers.
async fn blocking<R: Send + 'static>(
    f: impl FnOnce() -> Result<R, ApiError> + Send + 'static,
) -> Result<R, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::internal(format!("canvas task: {e}")))?
}

/// Reads `name`, checks the base revision and the lease, lets `f` change a
/// copy, and writes it (one revision later) when it changed; the change is
/// recorded for undo. All under the document's lock. `f` leaves the copy
/// consistent: a patch is checked by `patch::apply`, a pull by `code::pull`,
/// and a push changes only bindings and source references. `f` leaves the copy
/// consistent: a patch is checked by `patch::apply`, a pull by `code::pull`,
/// and a push changes only bindings and source references.
fn mutate<R>(
    p: &Project,
    name: &str,
    agent: &str,
    base: Option<u64>,
    f: impl FnOnce(&mut Document) -> Result<R, ApiError>,
) -> Result<(Document, R), ApiError> {
    check_agent(agent)?;
    p.locked(name, || {
        let path = p.doc_path(name)?;
        let before = p.read(name)?;
        if let Some(base) = base
            && base != before.revision
        {
            return Err(revision_conflict(&before, base));
        }
        OPEN.lease(&path, name, agent)?;
        let mut doc = before.clone();
        let out = f(&mut doc)?;
        doc.revision = before.revision;
        if doc != before {
            doc.revision = before.revision + 1;
            p.write(&doc)?;
            OPEN.changed(&path, before, doc.revision);
        }
        Ok((doc, out))
    })
}

fn revision_conflict(doc: &Document, base: u64) -> ApiError {
    ApiError::new(
        ErrorCode::Conflict,
        format!(
            "revision_conflict: {} is at revision {}, the patch was made on {base}",
            doc.name, doc.revision
        ),
    )
    .with_hint(format!(
        "read it again (`webrig canvas open {}`) and rebase the patch on revision {}",
        doc.name, doc.revision
    ))
}

/// A document's state after a command.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct CanvasOut {
    pub name: String,
    pub path: PathBuf,
    pub revision: u64,
    pub pages: usize,
    pub nodes: usize,
    pub tokens: usize,
    pub bindings: usize,
    /// Who holds the lease, if anyone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease: Option<Lease>,
    /// Steps to undo and to redo.
    pub undo: usize,
    pub redo: usize,
    /// The whole document (`canvas open`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document: Option<Document>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pulled: Option<Pulled>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pushed: Option<Pushed>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Vec<BindingStatus>>,
    /// A file written (`canvas export`, `canvas save --as`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written: Option<PathBuf>,
    /// Nothing to undo or redo, a push with nothing to write, …
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

fn out(p: &Project, doc: &Document) -> Result<CanvasOut, ApiError> {
    let path = p.doc_path(&doc.name)?;
    let (undo, redo) = OPEN.depth(&path);
    Ok(CanvasOut {
        name: doc.name.clone(),
        lease: OPEN.holder(&path),
        path,
        revision: doc.revision,
        pages: doc.pages.len(),
        nodes: doc.nodes.len(),
        tokens: doc.tokens.len(),
        bindings: doc.bindings.len(),
        undo,
        redo,
        document: None,
        pulled: None,
        pushed: None,
        status: None,
        written: None,
        note: None,
    })
}

fn human(o: &CanvasOut) -> String {
    let mut s = format!(
        "{} r{}: {} page(s), {} node(s), {} token(s), {} binding(s)",
        o.name, o.revision, o.pages, o.nodes, o.tokens, o.bindings
    );
    if let Some(p) = &o.pulled {
        s.push_str(&format!(
            "\npulled {} through {} ({}): {} node(s), {} locked, under {} as binding {}",
            p.file, p.adapter, p.entry.name, p.nodes, p.locked, p.root, p.binding
        ));
    }
    if let Some(p) = &o.pushed {
        s.push_str(&if p.unchanged {
            format!("\n{}: nothing to push", p.file)
        } else {
            format!(
                "\npushed {} node change(s) to {} (bytes {}..{} replaced); backup {}",
                p.changed,
                p.file,
                p.replaced.start,
                p.replaced.end,
                p.backup.as_deref().unwrap_or("-")
            )
        });
    }
    for b in o.status.iter().flatten() {
        s.push_str(&format!(
            "\n{} {} ({}): file {}, canvas {} change(s)",
            b.binding,
            b.file,
            b.adapter,
            if b.file_missing {
                "missing"
            } else if b.file_changed {
                "changed"
            } else {
                "unchanged"
            },
            b.canvas_changes
        ));
    }
    if let Some(w) = &o.written {
        s.push_str(&format!("\nwrote {}", w.display()));
    }
    if let Some(doc) = &o.document {
        for page in &doc.pages {
            s.push_str(&format!(
                "\npage {} {:?}: {} top node(s)",
                page.id,
                page.name,
                page.children.len()
            ));
        }
    }
    if let Some(n) = &o.note {
        s.push_str(&format!("\n{n}"));
    }
    s
}

/// A canvas command's struct with the arguments every one shares, as
/// fields (serde's flatten does not mix with `deny_unknown_fields`), and
/// its [`Command`] impl: the project folder defaulted, the run and the
/// human rendering shared, the rest from its [`CanvasRun`].
macro_rules! project_args {
    ($(#[$m:meta])* pub struct $name:ident { $($body:tt)* }) => {
        $(#[$m])*
        #[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// The document's name (1 to 64 of A-Z a-z 0-9 - _).
            pub name: String,
            /// The project folder (default: the working directory).
            #[arg(long, value_name = "DIR")]
            #[serde(default)]
            pub root: Option<PathBuf>,
            /// The agent editing: holds the document's lease while it changes it.
            #[arg(long, value_name = "NAME", default_value = "default")]
            #[serde(default = "default_agent")]
            pub agent: String,
            $($body)*
        }

        impl Command for $name {
            const NAME: &'static str = <$name as CanvasRun>::NAME;
            const ABOUT: &'static str = <$name as CanvasRun>::ABOUT;
            const SCOPE: Scope = Scope::Daemon;
            const READ_ONLY: bool = <$name as CanvasRun>::READ_ONLY;
            type Output = CanvasOut;

            fn prepare(&mut self) -> Result<(), ApiError> {
                default_root(&mut self.root)?;
                CanvasRun::more(self)
            }

            async fn run(self, cx: Cx) -> Result<CanvasOut, ApiError> {
                CanvasRun::go(self, cx).await
            }

            fn human(o: &CanvasOut) -> String {
                human(o)
            }
        }
    };
}

/// What each canvas command adds to the shared [`Command`] impl that
/// [`project_args!`] writes.
trait CanvasRun {
    const NAME: &'static str;
    const ABOUT: &'static str;
    const READ_ONLY: bool = false;

    /// Client-side normalisation beyond the project folder.
    fn more(&mut self) -> Result<(), ApiError> {
        Ok(())
    }

    async fn go(self, cx: Cx) -> Result<CanvasOut, ApiError>;
}

project_args! {
    /// Create a canvas document in the project folder.
    pub struct CanvasNew {
        /// Replace a document of that name.
        #[arg(long)]
        #[serde(default)]
        pub replace: bool,
    }
}

impl CanvasRun for CanvasNew {
    const NAME: &'static str = "canvas new";
    const ABOUT: &'static str = "Create a design canvas document in the project folder";

    async fn go(self, cx: Cx) -> Result<CanvasOut, ApiError> {
        let p = project(&cx, &self.root)?;
        check_agent(&self.agent)?;
        blocking(move || {
            p.locked(&self.name, || {
                if p.exists(&self.name)? && !self.replace {
                    return Err(ApiError::invalid(format!(
                        "canvas {:?} exists in {} (open it, or pass --replace)",
                        self.name,
                        p.root().display()
                    )));
                }
                let doc = Document::new(&self.name);
                p.write(&doc)?;
                OPEN.lease(&p.doc_path(&self.name)?, &self.name, &self.agent)?;
                let mut o = out(&p, &doc)?;
                o.note = Some(format!("created {}", o.path.display()));
                Ok(o)
            })
        })
        .await
    }
}

project_args! {
    /// Read a canvas document whole, and take its lease.
    pub struct CanvasOpen {}
}

impl CanvasRun for CanvasOpen {
    const NAME: &'static str = "canvas open";
    const ABOUT: &'static str =
        "Read a canvas document (pages, nodes, tokens, bindings) and take its lease";

    async fn go(self, cx: Cx) -> Result<CanvasOut, ApiError> {
        let p = project(&cx, &self.root)?;
        check_agent(&self.agent)?;
        blocking(move || {
            let doc = p.read(&self.name)?;
            OPEN.lease(&p.doc_path(&self.name)?, &self.name, &self.agent)?;
            let mut o = out(&p, &doc)?;
            o.document = Some(doc);
            Ok(o)
        })
        .await
    }
}

project_args! {
    /// Release the lease this agent holds on a document.
    pub struct CanvasClose {}
}

impl CanvasRun for CanvasClose {
    const NAME: &'static str = "canvas close";
    const ABOUT: &'static str = "Release this agent's lease on a canvas document";

    async fn go(self, cx: Cx) -> Result<CanvasOut, ApiError> {
        let p = project(&cx, &self.root)?;
        let doc = p.read(&self.name)?;
        let released = OPEN.release(&p.doc_path(&self.name)?, &self.agent);
        let mut o = out(&p, &doc)?;
        o.note = Some(if released {
            format!("lease released by {}", self.agent)
        } else {
            format!("{} held no lease on {}", self.agent, self.name)
        });
        Ok(o)
    }
}

project_args! {
    /// Write a document again as sorted-key JSON, or a copy under another name.
    pub struct CanvasSave {
        /// Save a copy under this name instead.
        #[arg(long = "as", value_name = "NAME")]
        #[serde(default, rename = "as")]
        pub copy: Option<String>,
    }
}

impl CanvasRun for CanvasSave {
    const NAME: &'static str = "canvas save";
    const ABOUT: &'static str =
        "Write a canvas document again (sorted keys, 0600), or a copy with --as";

    async fn go(self, cx: Cx) -> Result<CanvasOut, ApiError> {
        let p = project(&cx, &self.root)?;
        check_agent(&self.agent)?;
        blocking(move || {
            let mut doc = p.locked(&self.name, || p.read(&self.name))?;
            let target = self.copy.clone().unwrap_or_else(|| self.name.clone());
            p.locked(&target, || {
                if self.copy.is_some() {
                    if p.exists(&target)? {
                        return Err(ApiError::invalid(format!("canvas {target:?} exists")));
                    }
                    doc.name = target.clone();
                    doc.bindings.clear();
                    for n in doc.nodes.values_mut() {
                        n.source = None;
                    }
                } else {
                    OPEN.lease(&p.doc_path(&target)?, &target, &self.agent)?;
                }
                let path = p.write(&doc)?;
                let mut o = out(&p, &doc)?;
                o.written = Some(path);
                Ok(o)
            })
        })
        .await
    }
}

/// What `canvas export` writes.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// One page rendered to HTML (the preview's markup).
    #[default]
    Html,
    /// The document as JSON.
    Json,
}

project_args! {
    /// Write a page as HTML, or the document as JSON, to a file.
    pub struct CanvasExport {
        /// The page (default: the first).
        #[arg(long)]
        pub page: Option<String>,
        #[arg(long, value_enum, default_value = "html")]
        #[serde(default)]
        pub format: ExportFormat,
        /// File to write (default: a new file in the artifacts folder).
        #[arg(long, value_name = "FILE")]
        pub path: Option<PathBuf>,
        /// Replace the file if it exists.
        #[arg(long)]
        #[serde(default)]
        pub overwrite: bool,
    }
}

impl CanvasRun for CanvasExport {
    const NAME: &'static str = "canvas export";
    const ABOUT: &'static str = "Export a canvas page as HTML (or the document as JSON) to a file";
    const READ_ONLY: bool = true;

    fn more(&mut self) -> Result<(), ApiError> {
        absolutize(&mut self.path)
    }

    async fn go(self, cx: Cx) -> Result<CanvasOut, ApiError> {
        let p = project(&cx, &self.root)?;
        let doc = p.read(&self.name)?;
        let (bytes, ext) = match self.format {
            ExportFormat::Html => (
                render::page(&doc, self.page.as_deref())
                    .map_err(ApiError::not_found)?
                    .into_bytes(),
                "html",
            ),
            ExportFormat::Json => (crate::canvas::store::to_sorted_json(&doc)?, "json"),
        };
        let path = super::capture::output_path(
            &cx,
            self.path,
            self.overwrite,
            &format!("canvas-{}", doc.name),
            ext,
        )?;
        let path = crate::artifacts::write_new(&path, &bytes, self.overwrite)?;
        let mut o = out(&p, &doc)?;
        o.written = Some(path);
        Ok(o)
    }
}

project_args! {
    /// Apply a batch of patch ops, atomically, on a named revision.
    pub struct CanvasPatch {
        /// The revision the patch was made on; another is a conflict.
        #[arg(long, value_name = "N")]
        pub base_revision: u64,
        /// A JSON file with the ops (an array, or {"ops": […]}); `-` reads stdin.
        #[arg(value_name = "PATCHES.json")]
        #[serde(default)]
        pub file: Option<PathBuf>,
        /// The ops themselves (with or instead of the file).
        #[arg(skip)]
        #[serde(default)]
        pub ops: Vec<Op>,
    }
}

/// Ops from a patch file (by the daemon: regular files only, capped), or
/// from stdin (`-`, by the CLI).
fn read_ops(file: &std::path::Path) -> Result<Vec<Op>, ApiError> {
    const MAX: u64 = 16 << 20;
    let text = if file.as_os_str() == "-" {
        use std::io::Read as _;
        let mut s = String::new();
        std::io::stdin()
            .take(MAX + 1)
            .read_to_string(&mut s)
            .map_err(|e| ApiError::invalid(format!("reading stdin: {e}")))?;
        s
    } else {
        let bytes =
            crate::artifacts::read_regular(file, MAX, crate::artifacts::Symlinks::Follow, |_| {
                Ok(())
            })?;
        String::from_utf8(bytes)
            .map_err(|_| ApiError::invalid(format!("{} is not UTF-8", file.display())))?
    };
    if text.len() as u64 > MAX {
        return Err(ApiError::new(
            ErrorCode::LimitExceeded,
            "the patch is over 16 MiB",
        ));
    }
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Given {
        List(Vec<Op>),
        Wrapped { ops: Vec<Op> },
    }
    match serde_json::from_str::<Given>(&text) {
        Ok(Given::List(ops) | Given::Wrapped { ops }) => Ok(ops),
        Err(_) => {
            // Say which op is wrong: parse them one by one.
            let v: serde_json::Value = serde_json::from_str(&text)
                .map_err(|e| ApiError::invalid(format!("{} is not JSON: {e}", file.display())))?;
            let list = v
                .get("ops")
                .unwrap_or(&v)
                .as_array()
                .cloned()
                .unwrap_or_default();
            for (i, op) in list.into_iter().enumerate() {
                if let Err(e) = serde_json::from_value::<Op>(op) {
                    return Err(ApiError::invalid(format!("op {i}: {e}")));
                }
            }
            Err(ApiError::invalid(
                "the patch is a JSON array of ops, or {\"ops\": [...]}",
            ))
        }
    }
}

impl CanvasRun for CanvasPatch {
    const NAME: &'static str = "canvas patch";
    const ABOUT: &'static str =
        "Apply patch ops to a canvas document on a base revision, all or nothing";

    fn more(&mut self) -> Result<(), ApiError> {
        // stdin is the CLI's; a file is read by the daemon (local files).
        if self.file.as_ref().is_some_and(|f| f.as_os_str() == "-") {
            self.file = None;
            let mut ops = read_ops(std::path::Path::new("-"))?;
            self.ops.append(&mut ops);
        }
        absolutize(&mut self.file)
    }

    async fn go(mut self, cx: Cx) -> Result<CanvasOut, ApiError> {
        let p = project(&cx, &self.root)?;
        if let Some(file) = self.file.take() {
            if !file.is_absolute() {
                return Err(ApiError::invalid(format!(
                    "{}: give the patch file as an absolute path",
                    file.display()
                )));
            }
            let mut ops = blocking(move || read_ops(&file)).await?;
            self.ops.append(&mut ops);
        }
        if self.ops.is_empty() {
            return Err(ApiError::invalid("the patch has no ops"));
        }
        blocking(move || {
            let (doc, ()) = mutate(
                &p,
                &self.name,
                &self.agent,
                Some(self.base_revision),
                |doc| {
                    *doc = patch::apply(doc, &self.ops)
                        .map_err(|e| ApiError::invalid(format!("nothing was applied: {e}")))?;
                    Ok(())
                },
            )?;
            out(&p, &doc)
        })
        .await
    }
}

/// `canvas history` steps.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Step {
    Undo,
    Redo,
}

project_args! {
    /// Undo or redo the last change (this daemon's history of the document).
    pub struct CanvasHistory {
        #[arg(value_enum)]
        pub step: Step,
    }
}

impl CanvasRun for CanvasHistory {
    const NAME: &'static str = "canvas history";
    const ABOUT: &'static str = "Undo or redo the last change to a canvas document";

    async fn go(self, cx: Cx) -> Result<CanvasOut, ApiError> {
        let p = project(&cx, &self.root)?;
        check_agent(&self.agent)?;
        blocking(move || {
            p.locked(&self.name, || {
                let path = p.doc_path(&self.name)?;
                let current = p.read(&self.name)?;
                OPEN.lease(&path, &self.name, &self.agent)?;
                match OPEN.step(&path, &current, self.step == Step::Redo)? {
                    // A document this daemon wrote before (checked then).
                    Some(doc) => {
                        p.write(&doc)?;
                        out(&p, &doc)
                    }
                    None => {
                        let mut o = out(&p, &current)?;
                        o.note = Some(format!("nothing to {:?}", self.step).to_lowercase());
                        Ok(o)
                    }
                }
            })
        })
        .await
    }
}

project_args! {
    /// Pull a source file's component or page into the document.
    pub struct CanvasCodePull {
        /// The file, relative to the project folder.
        #[arg(value_name = "FILE")]
        pub file: String,
        /// The adapter (default: the first installed one that reads the file).
        #[arg(long, value_name = "ID")]
        pub adapter: Option<String>,
        /// The export, element or template to bind (default: the adapter's choice).
        #[arg(long, value_name = "NAME")]
        pub export: Option<String>,
        /// The node or page to put it under (default: the first page).
        #[arg(long, value_name = "ID")]
        pub parent: Option<String>,
    }
}

impl CanvasRun for CanvasCodePull {
    const NAME: &'static str = "canvas code pull";
    const ABOUT: &'static str = "Pull a source file (HTML, React, custom element, Vue, Svelte) into a canvas through its adapter";

    fn more(&mut self) -> Result<(), ApiError> {
        // A path given relative to the CLI's working directory.
        let given = PathBuf::from(&self.file);
        if given.is_relative()
            && let (Ok(cwd), Some(root)) = (std::env::current_dir(), &self.root)
            && let Ok(rel) = cwd.join(&given).strip_prefix(root)
        {
            self.file = rel.to_string_lossy().into_owned();
        }
        Ok(())
    }

    async fn go(self, cx: Cx) -> Result<CanvasOut, ApiError> {
        let p = project(&cx, &self.root)?;
        let providers = cx.state().providers().await?;
        blocking(move || {
            let host = providers.host();
            let (doc, pulled) = mutate(&p, &self.name, &self.agent, None, |doc| {
                code::pull(
                    host,
                    &p,
                    doc,
                    &self.file,
                    self.adapter.as_deref(),
                    self.export.as_deref(),
                    self.parent.as_deref(),
                )
            })?;
            let mut o = out(&p, &doc)?;
            o.pulled = Some(pulled);
            Ok(o)
        })
        .await
    }
}

/// Who wins when the file changed since the pull.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Prefer {
    /// Overwrite the file's bound part with the canvas.
    Canvas,
}

project_args! {
    /// Write the document's changes back to a bound source file.
    pub struct CanvasCodePush {
        /// The binding (default: the document's only one).
        #[arg(long, value_name = "ID")]
        pub binding: Option<String>,
        /// Push even though the file changed since the pull.
        #[arg(long, value_enum)]
        pub prefer: Option<Prefer>,
    }
}

fn only_binding(doc: &Document, given: Option<&str>) -> Result<String, ApiError> {
    if let Some(b) = given {
        return Ok(b.to_string());
    }
    match doc.bindings.keys().collect::<Vec<_>>().as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(ApiError::not_found(format!(
            "{} has no bound source file (pull one with `webrig canvas code pull`)",
            doc.name
        ))),
        many => Err(ApiError::invalid(format!(
            "{} has {} bindings; name one with --binding ({})",
            doc.name,
            many.len(),
            many.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

impl CanvasRun for CanvasCodePush {
    const NAME: &'static str = "canvas code push";
    const ABOUT: &'static str =
        "Push canvas changes back to the bound source file (checked, atomic, with a backup)";

    async fn go(self, cx: Cx) -> Result<CanvasOut, ApiError> {
        let p = project(&cx, &self.root)?;
        let providers = cx.state().providers().await?;
        blocking(move || {
            let host = providers.host();
            let (doc, pushed) = mutate(&p, &self.name, &self.agent, None, |doc| {
                let b = only_binding(doc, self.binding.as_deref())?;
                code::push(host, &p, doc, &b, self.prefer == Some(Prefer::Canvas))
            })?;
            let mut o = out(&p, &doc)?;
            o.pushed = Some(pushed);
            Ok(o)
        })
        .await
    }
}

project_args! {
    /// Show drift between a document and its bound files, both ways.
    pub struct CanvasCodeStatus {}
}

impl CanvasRun for CanvasCodeStatus {
    const NAME: &'static str = "canvas code status";
    const ABOUT: &'static str =
        "Show what changed in the canvas and in the bound files since the last pull or push";
    const READ_ONLY: bool = true;

    async fn go(self, cx: Cx) -> Result<CanvasOut, ApiError> {
        let p = project(&cx, &self.root)?;
        blocking(move || {
            let doc = p.read(&self.name)?;
            let mut o = out(&p, &doc)?;
            o.status = Some(code::status(&p, &doc));
            Ok(o)
        })
        .await
    }
}

pub use super::canvas_preview::CanvasPreview;
