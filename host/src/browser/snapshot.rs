//! The snapshot: a compact outline of the page built from an in-page walk, with
//! `@e` refs on what an agent can act on, frames stitched in, and diffs
//! against the tab's previous snapshot.
//!
//! Owns the options, the caps, stitching frames (same-origin, cross-origin
//! in-process and out-of-process) and the diff. Roles, names and refs are
//! computed by the page library (`page/core.js`, `page/outline.js`) inside webrig's isolated world.

use std::future::Future;
use std::pin::Pin;
use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::frames::{Frames, Target, stale};
use super::tab::Tab;
use crate::error::ApiError;

pub const MAX_NODES: usize = 4000;
pub const MAX_CHARS: usize = 192_000;
/// A page with more text than this has its long lines shortened (each one
/// saying how to read the rest); one with less shows all of it.
pub const TEXT_BUDGET: usize = 6_000;

#[derive(Debug, Clone, Default)]
pub struct Options {
    pub interactive: bool,
    pub scope: Option<Target>,
    pub depth: Option<u32>,
    pub max_chars: Option<usize>,
    pub urls: bool,
    pub diff: bool,
    /// The daemon's caps (limits table); None: the defaults.
    pub cap_nodes: Option<usize>,
    pub cap_chars: Option<usize>,
    /// Which frames may be shown (plugins see only granted origins);
    /// None: every frame.
    pub frames: Option<FrameGate>,
}

/// Decides by a frame document's origin (`http://host:port`, or `null`
/// for an opaque one) whether the snapshot may show that frame. A frame it
/// refuses is replaced by one line saying so; nothing of it is read out.
#[derive(Clone)]
pub struct FrameGate(std::sync::Arc<dyn Fn(&str) -> bool + Send + Sync>);

impl FrameGate {
    pub fn new(allows: impl Fn(&str) -> bool + Send + Sync + 'static) -> FrameGate {
        FrameGate(std::sync::Arc::new(allows))
    }

    pub fn allows(&self, origin: &str) -> bool {
        (self.0)(origin)
    }
}

impl std::fmt::Debug for FrameGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FrameGate")
    }
}

/// What stands in for a frame the gate refused.
pub const WITHHELD: &str = "(frame withheld: its origin is not granted)";

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Snapshot {
    /// The outline (or, with `diff`, only the changed lines with +/- marks).
    pub text: String,
    pub url: String,
    pub title: String,
    /// Elements with a ref in this snapshot.
    pub refs: usize,
    pub lines: usize,
    /// True when a cap cut the outline short.
    pub truncated: bool,
    /// True when `text` is a diff against the previous snapshot.
    pub diff: bool,
    pub took_ms: f64,
}

struct Budget {
    nodes: usize,
    chars: usize,
}

struct Walked {
    lines: Vec<(usize, String)>,
    title: String,
    url: String,
    truncated: bool,
}

pub async fn snapshot(tab: &Tab, opts: &Options) -> Result<Snapshot, ApiError> {
    let start = Instant::now();
    let mut frames = tab.frames().await;
    frames.main(tab);
    let (root, scope) = match &opts.scope {
        None => (0, None),
        // Callers resolve selectors and locators to a ref first.
        Some(t @ (Target::Selector(_) | Target::Locator(_))) => {
            return Err(ApiError::invalid(format!(
                "--scope takes a ref from a snapshot, not {}",
                t.label()
            )));
        }
        Some(t @ Target::Ref { number, .. }) => (frames.frame_of(t)?, Some((*number, t.label()))),
    };
    let cap_chars = opts.cap_chars.unwrap_or(MAX_CHARS);
    let max_nodes = opts.cap_nodes.unwrap_or(MAX_NODES);
    let max_chars = opts.max_chars.unwrap_or(cap_chars).min(cap_chars);
    let mut budget = Budget {
        nodes: max_nodes,
        chars: max_chars,
    };
    let walked = walk(tab, &mut frames, root, scope, opts, &mut budget).await?;

    // Enforce the caps once more over the stitched result.
    let mut truncated = walked.truncated;
    let mut lines: Vec<String> = Vec::with_capacity(walked.lines.len());
    let mut chars = 0;
    for (depth, text) in walked.lines {
        let line = format!("{}{}", " ".repeat(depth + 1), text);
        if lines.len() >= max_nodes || chars + line.len() + 1 > max_chars {
            truncated = true;
            break;
        }
        chars += line.len() + 1;
        lines.push(line);
    }
    let refs = lines.iter().map(|l| count_refs(l)).sum();
    let header = format!("page {:?} {}", walked.title, walked.url);
    let kind = format!(
        "{}|{:?}|{:?}|{}",
        opts.interactive,
        opts.scope.as_ref().map(Target::label),
        opts.depth,
        opts.urls
    );
    let previous = frames.last_snapshot.insert(kind, lines.clone());
    let text = if opts.diff {
        diff(previous.as_deref().unwrap_or_default(), &lines)
    } else {
        let mut text = header;
        for line in &lines {
            text.push('\n');
            text.push_str(line);
        }
        if truncated {
            text.push_str("\n(truncated: narrow it with --scope @eN, --depth N or --interactive)");
        }
        text
    };
    Ok(Snapshot {
        text,
        url: walked.url,
        title: walked.title,
        refs,
        lines: lines.len(),
        truncated,
        diff: opts.diff,
        took_ms: start.elapsed().as_secs_f64() * 1e3,
    })
}

type WalkFuture<'a> = Pin<Box<dyn Future<Output = Result<Walked, ApiError>> + Send + 'a>>;

/// Walks one frame, then the frames it holds, splicing their lines in.
fn walk<'a>(
    tab: &'a Tab,
    frames: &'a mut Frames,
    ordinal: u32,
    scope: Option<(u64, String)>,
    opts: &'a Options,
    budget: &'a mut Budget,
) -> WalkFuture<'a> {
    Box::pin(async move {
        let first = frames.next_ref();
        let prefix = if ordinal == 0 {
            String::new()
        } else {
            format!("f{ordinal}")
        };
        let args = json!({
            "prefix": prefix,
            "nextRef": first,
            "interactive": opts.interactive,
            "depth": opts.depth,
            "maxNodes": budget.nodes,
            "maxChars": budget.chars,
            // Text is shortened only past this much of it: --max-chars
            // raises it.
            "textBudget": opts.max_chars.unwrap_or(TEXT_BUDGET),
            "urls": opts.urls,
            "scope": scope.as_ref().map(|(n, _)| n),
        });
        // The origin is read in the same evaluation as the outline, so both
        // describe one document (a navigation in between cannot mix them).
        // The outline crosses CDP as one JSON string rather than as thousands
        // of small arrays: one string is cheap for the browser to hand over
        // (through the extension relay it is copied several times).
        let v = frames
            .eval(
                ordinal,
                &format!(
                    "(() => {{ const origin = location.origin; \
                     return JSON.stringify({{ origin, snap: __webrig.lib.snapshot({args}) }}); }})()"
                ),
                true,
                "snapshot",
            )
            .await?;
        let v: Value = serde_json::from_str(v.as_str().unwrap_or("null"))
            .map_err(|e| ApiError::internal(format!("the page's outline is not JSON: {e}")))?;
        if let Some(gate) = &opts.frames
            && !gate.allows(v["origin"].as_str().unwrap_or("null"))
        {
            return Ok(Walked {
                lines: vec![(0, WITHHELD.to_string())],
                title: String::new(),
                url: String::new(),
                truncated: false,
            });
        }
        let v = &v["snap"];
        if v.get("error").is_some() {
            let label = scope.map(|(_, l)| l).unwrap_or_default();
            return Err(stale(&label, "the element is gone or changed"));
        }
        frames.handed_out(ordinal, first, v);

        let mut out = Walked {
            lines: Vec::new(),
            title: v["title"].as_str().unwrap_or_default().to_string(),
            url: v["url"].as_str().unwrap_or_default().to_string(),
            truncated: v["truncated"].as_bool().unwrap_or(false),
        };
        for entry in v["lines"].as_array().into_iter().flatten() {
            let depth = entry[0].as_u64().unwrap_or(0) as usize;
            if let Some(text) = entry[1].as_str() {
                budget.nodes = budget.nodes.saturating_sub(1);
                budget.chars = budget.chars.saturating_sub(depth + text.len() + 1);
                out.lines.push((depth, text.to_string()));
                continue;
            }
            let Some(index) = entry[2].as_u64() else {
                continue;
            };
            if budget.nodes == 0 || budget.chars == 0 {
                out.truncated = true;
                continue;
            }
            // A frame that cannot be walked (still loading, gone, about:blank
            // without a document) is left out rather than failing the page.
            match child_frame(tab, frames, ordinal, &format!("__webrig.pending[{index}]")).await {
                Ok(child) => {
                    if let Ok(inner) = walk(tab, frames, child, None, opts, budget).await {
                        out.truncated |= inner.truncated;
                        out.lines
                            .extend(inner.lines.into_iter().map(|(d, t)| (d + depth, t)));
                    }
                }
                Err(e) => tracing::debug!(error = %e, "skipping a frame"),
            }
        }
        Ok(out)
    })
}

/// Finds the frame behind an iframe element of `parent` (`element`: an
/// expression in its world, such as the last walk's `__webrig.pending[i]`).
pub async fn child_frame(
    tab: &Tab,
    frames: &mut Frames,
    parent: u32,
    element: &str,
) -> Result<u32, ApiError> {
    let holder = frames
        .frame(parent)
        .cloned()
        .ok_or_else(|| ApiError::internal("unknown parent frame"))?;
    let ctx = frames.ensure_world(parent).await?;
    let reply = holder
        .session
        .call(
            "Runtime.evaluate",
            json!({
                "expression": element,
                "contextId": ctx,
                "objectGroup": "webrig-frames",
            }),
        )
        .await?;
    let object = reply["result"]["objectId"]
        .as_str()
        .ok_or_else(|| ApiError::internal("the iframe element is gone"))?
        .to_string();
    let described = holder
        .session
        .call("DOM.describeNode", json!({ "objectId": object }))
        .await;
    let _ = holder
        .session
        .call(
            "Runtime.releaseObjectGroup",
            json!({ "objectGroup": "webrig-frames" }),
        )
        .await;
    let node = &described?["node"];
    let frame_id = node["frameId"]
        .as_str()
        .ok_or_else(|| ApiError::internal("the iframe has no frame"))?
        .to_string();
    let backend = node["backendNodeId"].as_i64().unwrap_or(0);
    let session = tab
        .child_session(&frame_id)
        .unwrap_or_else(|| holder.session.clone());
    Ok(frames.child(session, &frame_id, (parent, backend)).ordinal)
}

/// Refs on a line: tokens like `@e12` or `@f2e7` (inline refs included).
fn count_refs(line: &str) -> usize {
    line.split_whitespace()
        .filter(|tok| {
            tok.strip_prefix('@').is_some_and(|t| {
                let t = t.strip_prefix('f').map_or(Some(t), |rest| {
                    rest.find('e')
                        .filter(|&i| i > 0 && rest[..i].bytes().all(|b| b.is_ascii_digit()))
                        .map(|i| &rest[i..])
                });
                t.and_then(|t| t.strip_prefix('e'))
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            })
        })
        .count()
}

/// Only what changed, `+ ` for new lines and `- ` for gone ones.
pub fn diff(before: &[String], after: &[String]) -> String {
    let before: Vec<&str> = before.iter().map(String::as_str).collect();
    let after: Vec<&str> = after.iter().map(String::as_str).collect();
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &before, &after);
    let mut out = String::new();
    for op in ops {
        for change in op.iter_changes(&before, &after) {
            let mark = match change.tag() {
                similar::ChangeTag::Equal => continue,
                similar::ChangeTag::Delete => '-',
                similar::ChangeTag::Insert => '+',
            };
            out.push(mark);
            out.push_str(change.value());
            out.push('\n');
        }
    }
    if out.is_empty() {
        "(no changes)".to_string()
    } else {
        out.pop();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_are_counted_inline_and_in_frames() {
        assert_eq!(
            count_refs(" text: see @e5 \"docs\" and @f2e7 button \"Go\""),
            2
        );
        assert_eq!(
            count_refs(" @e1 link \"@e2 is not a ref\" mail@example.com"),
            1
        );
        assert_eq!(count_refs(" text: @ef @e @fe2"), 0);
    }

    #[test]
    fn diff_shows_only_changed_lines() {
        let a: Vec<String> = [" heading \"A\" h1", " @e1 button \"Go\"", " text: x"]
            .map(String::from)
            .to_vec();
        let b: Vec<String> = [" heading \"A\" h1", " @e2 button \"Went\"", " text: x"]
            .map(String::from)
            .to_vec();
        assert_eq!(diff(&a, &b), "- @e1 button \"Go\"\n+ @e2 button \"Went\"");
        assert_eq!(diff(&a, &a), "(no changes)");
    }
}
