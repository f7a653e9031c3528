//! `webrig canvas preview`: a canvas page rendered to HTML
//! (`crate::canvas::render`, no script runs), opened in the session's tab,
//! screenshotted, with the console's errors. `--diff` renders the document
//! before its last change too, so the agent sees what its patch did.

use std::path::PathBuf;
use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::canvas::{default_root, project};
use super::{Command, Cx, Scope};
use crate::browser::Tab;
use crate::browser::capture::{self, Area, ImageFormat};
use crate::canvas::store::OPEN;
use crate::canvas::{Document, render};
use crate::error::ApiError;

/// Render a canvas page in the session's browser and screenshot it.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CanvasPreview {
    /// The document's name.
    pub name: String,
    /// The project folder (default: the working directory).
    #[arg(long, value_name = "DIR")]
    #[serde(default)]
    pub root: Option<PathBuf>,
    /// The page (default: the first).
    #[arg(long)]
    pub page: Option<String>,
    /// One of the document's viewports by name, or WIDTHxHEIGHT (default:
    /// the document's first viewport).
    #[arg(long)]
    pub viewport: Option<String>,
    /// Also screenshot the document as it was before its last change.
    #[arg(long)]
    #[serde(default)]
    pub diff: bool,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Preview {
    pub name: String,
    pub revision: u64,
    /// The screenshot (PNG) of the page as it is now.
    pub screenshot: PathBuf,
    /// With --diff: the screenshot before the last change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<PathBuf>,
    /// With --diff: nodes added, removed or changed by the last change.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed_nodes: Vec<String>,
    pub width: u32,
    pub height: u32,
    /// Nodes on the page.
    pub nodes: usize,
    /// Console errors and uncaught exceptions while it rendered.
    pub console_errors: Vec<String>,
    /// Loads that failed or were refused (an image URL, a CSP refusal).
    pub network_errors: Vec<String>,
    pub render_ms: f64,
    pub total_ms: f64,
}

fn viewport(doc: &Document, given: Option<&str>) -> Result<(u32, u32), ApiError> {
    let named = |n: &str| {
        doc.viewports
            .iter()
            .find(|v| v.name == n)
            .map(|v| (v.width, v.height))
    };
    let (w, h) = match given {
        None => doc
            .viewports
            .first()
            .map_or((1280, 800), |v| (v.width, v.height)),
        Some(v) => match named(v) {
            Some(wh) => wh,
            None => {
                let (w, h) = v.split_once('x').ok_or_else(|| {
                    ApiError::invalid(format!(
                        "viewport {v:?}: a name of the document's viewports, or WIDTHxHEIGHT"
                    ))
                })?;
                let n = |s: &str| {
                    s.trim()
                        .parse::<u32>()
                        .map_err(|_| ApiError::invalid(format!("viewport {v:?}: not numbers")))
                };
                (n(w)?, n(h)?)
            }
        },
    };
    if !(100..=4000).contains(&w) || !(100..=4000).contains(&h) {
        return Err(ApiError::invalid(
            "a viewport is 100 to 4000 pixels each way",
        ));
    }
    Ok((w, h))
}

/// Shows `html` in the tab and screenshots the page.
async fn shoot(tab: &Tab, html: &str, cx: &Cx, stem: &str) -> Result<PathBuf, ApiError> {
    let frame = tab.main_frame().to_string();
    tab.call(
        "Page.setDocumentContent",
        json!({ "frameId": frame, "html": html }),
    )
    .await?;
    // Two frames: layout and paint done.
    tab.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))")
        .await?;
    let bytes = capture::screenshot(tab, Area::Viewport, ImageFormat::Png, None).await?;
    let path = super::capture::output_path(cx, None, false, stem, "png")?;
    crate::artifacts::write_new(&path, &bytes, false)
}

fn changed(before: &Document, after: &Document) -> Vec<String> {
    let mut out: Vec<String> = after
        .nodes
        .iter()
        .filter(|(id, n)| before.nodes.get(*id) != Some(*n))
        .map(|(id, _)| id.clone())
        .collect();
    out.extend(
        before
            .nodes
            .keys()
            .filter(|id| !after.nodes.contains_key(*id))
            .map(|id| format!("removed:{id}")),
    );
    out
}

impl Command for CanvasPreview {
    const NAME: &'static str = "canvas preview";
    const ABOUT: &'static str =
        "Render a canvas page in the session's browser: screenshot, console and load errors";
    const SCOPE: Scope = Scope::TabCreate;
    const READ_ONLY: bool = true;
    type Output = Preview;

    fn prepare(&mut self) -> Result<(), ApiError> {
        default_root(&mut self.root)
    }

    async fn run(self, mut cx: Cx) -> Result<Preview, ApiError> {
        let started = Instant::now();
        let p = project(&cx, &self.root)?;
        let doc = p.read(&self.name)?;
        let (width, height) = viewport(&doc, self.viewport.as_deref())?;
        let t = Instant::now();
        let html = render::page(&doc, self.page.as_deref()).map_err(ApiError::not_found)?;
        let render_ms = t.elapsed().as_secs_f64() * 1000.0;
        let before_doc = if self.diff {
            let prev = OPEN.previous(&p.doc_path(&self.name)?).ok_or_else(|| {
                ApiError::not_found(format!(
                    "no earlier revision of {} in this daemon's history to compare with",
                    self.name
                ))
            })?;
            Some(prev)
        } else {
            None
        };
        let tab = cx.tab().await?;
        tab.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
        )
        .await?;
        let (console_from, errors_from) = {
            let rings = tab.devtools().rings();
            (rings.console.taken(), rings.errors.taken())
        };
        let before = match &before_doc {
            Some(prev) => {
                let old = render::page(prev, self.page.as_deref()).map_err(ApiError::not_found)?;
                Some(shoot(&tab, &old, &cx, &format!("canvas-{}-before", doc.name)).await?)
            }
            None => None,
        };
        let screenshot = shoot(&tab, &html, &cx, &format!("canvas-{}", doc.name)).await;
        let cleared = tab
            .call("Emulation.clearDeviceMetricsOverride", json!({}))
            .await;
        let screenshot = screenshot?;
        cleared?;
        let (mut console_errors, mut network_errors) = (Vec::new(), Vec::new());
        {
            let rings = tab.devtools().rings();
            for e in rings
                .console
                .iter()
                .filter(|e| e.seq > console_from && e.level == "error")
            {
                let text: String = e.text.chars().take(500).collect();
                if e.kind == "network" || e.kind == "security" || e.kind == "violation" {
                    network_errors.push(text);
                } else {
                    console_errors.push(text);
                }
            }
            for e in rings.errors.iter().filter(|e| e.seq > errors_from) {
                console_errors.push(e.message.chars().take(500).collect());
            }
        }
        let page_nodes = {
            let page = match self.page.as_deref() {
                Some(id) => doc.page(id),
                None => doc.pages.first(),
            };
            page.map_or(0, |pg| {
                pg.children.iter().map(|c| doc.subtree(c).len()).sum()
            })
        };
        Ok(Preview {
            name: doc.name.clone(),
            revision: doc.revision,
            changed_nodes: before_doc
                .as_ref()
                .map(|b| changed(b, &doc))
                .unwrap_or_default(),
            screenshot,
            before,
            width,
            height,
            nodes: page_nodes,
            console_errors,
            network_errors,
            render_ms,
            total_ms: started.elapsed().as_secs_f64() * 1000.0,
        })
    }

    fn human(o: &Preview) -> String {
        let mut s = format!(
            "{} r{} at {}x{}: {} ({} nodes, {:.0} ms)",
            o.name,
            o.revision,
            o.width,
            o.height,
            o.screenshot.display(),
            o.nodes,
            o.total_ms
        );
        if let Some(b) = &o.before {
            s.push_str(&format!(
                "\nbefore: {} ({} node(s) changed)",
                b.display(),
                o.changed_nodes.len()
            ));
        }
        for e in o.console_errors.iter().chain(&o.network_errors) {
            s.push_str(&format!("\nerror: {e}"));
        }
        s
    }
}
