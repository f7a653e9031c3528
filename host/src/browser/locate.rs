//! Locators: finding elements by text, role, label and the like, in every
//! frame of a tab and in open shadow roots, and handing each match a ref.
//!
//! Owns the frame search (the page side is `page/locate.js`), the rule that
//! a locator used as a target names exactly one visible element (else an
//! error listing the candidates, or saying only hidden ones match), and
//! waiting for a match until the command's deadline. The language itself is
//! parsed in [`parse`]. A match gets a ref the way a snapshot gives one, so
//! an action on a locator goes on as an action on that ref.

pub mod parse;

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::time::Instant;

pub use parse::Locator;

use super::frames::{Frames, Target};
use super::nav::ElementState;
use super::snapshot::{FrameGate, child_frame};
use super::tab::Tab;
use crate::error::{ApiError, ErrorCode};

/// Candidates an ambiguous target lists.
const LIST: usize = 10;
/// Frames one search walks (nested ones included).
const MAX_FRAMES: usize = 64;
const MAX_DEPTH: u32 = 8;
/// How often a target with no match yet is looked for again.
const POLL: Duration = Duration::from_millis(100);
/// Left of the deadline when the wait gives up, to report why in time.
const MARGIN: Duration = Duration::from_millis(300);

/// One visible match.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Found {
    /// Its ref (`@e12`, `@f1e3`), usable like a snapshot's.
    #[serde(rename = "ref")]
    pub reference: String,
    /// Its snapshot line: `@e12 button "Stop"`.
    pub line: String,
    /// What it sits in: `listitem "Flight 2 …"`, `heading "Results"`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub context: String,
    #[serde(skip)]
    ordinal: u32,
    #[serde(skip)]
    number: u64,
}

/// What a search saw across the tab's frames.
#[derive(Debug, Default)]
pub struct Search {
    /// The first `limit` visible matches, in frame then document order.
    pub found: Vec<Found>,
    /// Visible matches in all.
    pub count: usize,
    /// Matches that are not rendered or not visible.
    pub hidden: usize,
    pub hidden_lines: Vec<String>,
    /// A walk hit its node cap (the page is huge): matches may be missing.
    pub truncated: bool,
    /// Per frame searched: (ordinal, visible matches), for picking by index.
    per_frame: Vec<(u32, usize)>,
}

/// What to search with.
pub struct Query<'a> {
    pub locator: &'a Locator,
    pub limit: usize,
    /// Add a context line to each match (for `find`).
    pub context: bool,
    /// Frames a caller may see (plugins); None: all.
    pub gate: Option<&'a FrameGate>,
}

/// Searches every frame of the tab for `q`'s matches (without a trailing
/// `nth=`, which [`resolve`] applies across frames).
pub async fn search(tab: &Tab, frames: &mut Frames, q: &Query<'_>) -> Result<Search, ApiError> {
    frames.main(tab);
    let (parts, _) = q.locator.split_nth();
    let parts = serde_json::to_value(parts)
        .map_err(|e| ApiError::internal(format!("encoding a locator: {e}")))?;
    let mut out = Search::default();
    let mut walked = 0;
    search_frame(tab, frames, 0, 0, &parts, q, &mut out, &mut walked).await?;
    Ok(out)
}

type SearchFuture<'a> = Pin<Box<dyn Future<Output = Result<(), ApiError>> + Send + 'a>>;

#[allow(clippy::too_many_arguments)]
fn search_frame<'a>(
    tab: &'a Tab,
    frames: &'a mut Frames,
    ordinal: u32,
    depth: u32,
    parts: &'a Value,
    q: &'a Query<'a>,
    out: &'a mut Search,
    walked: &'a mut usize,
) -> SearchFuture<'a> {
    Box::pin(async move {
        *walked += 1;
        let first = frames.next_ref();
        let args = json!({
            "prefix": prefix(ordinal),
            "nextRef": first,
            "parts": parts,
            "limit": q.limit.saturating_sub(out.found.len()),
            "context": q.context,
        });
        let v = frames
            .eval(
                ordinal,
                &format!("__webrig.lib.locate({args})"),
                true,
                q.locator.source(),
            )
            .await?;
        if let Some(why) = v.get("invalid").and_then(Value::as_str) {
            return Err(ApiError::invalid(format!("{}: {why}", q.locator.source()))
                .with_hint("check the CSS in css= (or in a part without an engine)"));
        }
        // A frame the caller may not see: nothing of it, nor of the frames
        // inside it, is reported (the snapshot withholds the same frames).
        if let Some(gate) = q.gate
            && !gate.allows(v["origin"].as_str().unwrap_or("null"))
        {
            return Ok(());
        }
        frames.handed_out(ordinal, first, &v);
        let count = v["count"].as_u64().unwrap_or(0) as usize;
        out.count += count;
        out.per_frame.push((ordinal, count));
        out.hidden += v["hidden"].as_u64().unwrap_or(0) as usize;
        out.truncated |= v["truncated"].as_bool().unwrap_or(false);
        for line in v["hiddenLines"].as_array().into_iter().flatten() {
            if out.hidden_lines.len() < 5
                && let Some(l) = line.as_str()
            {
                out.hidden_lines.push(l.to_string());
            }
        }
        for item in v["items"].as_array().into_iter().flatten() {
            out.found.push(found(ordinal, item));
        }
        let children = v["frames"].as_u64().unwrap_or(0);
        if depth >= MAX_DEPTH {
            return Ok(());
        }
        for i in 0..children {
            if *walked >= MAX_FRAMES {
                out.truncated = true;
                break;
            }
            // A frame that cannot be searched (loading, gone, about:blank
            // without a document) is skipped, as the snapshot skips it.
            let element = format!("__webrig.locFrames[{i}]");
            match child_frame(tab, frames, ordinal, &element).await {
                Ok(child) => {
                    if let Err(e) =
                        search_frame(tab, frames, child, depth + 1, parts, q, out, walked).await
                    {
                        if e.code() == ErrorCode::InvalidArgument {
                            return Err(e);
                        }
                        tracing::debug!(error = %e, "skipping a frame");
                    }
                }
                Err(e) => tracing::debug!(error = %e, "skipping a frame"),
            }
        }
        Ok(())
    })
}

fn prefix(ordinal: u32) -> String {
    if ordinal == 0 {
        String::new()
    } else {
        format!("f{ordinal}")
    }
}

fn found(ordinal: u32, item: &Value) -> Found {
    let number = item["ref"].as_u64().unwrap_or(0);
    Found {
        reference: format!("@{}e{number}", prefix(ordinal)),
        line: item["line"].as_str().unwrap_or_default().to_string(),
        context: item["context"].as_str().unwrap_or_default().to_string(),
        ordinal,
        number,
    }
}

/// The one visible element `locator` names, as a ref target. Waits (until
/// `deadline`) while nothing visible matches; fails at once when more than
/// one does, listing them.
pub async fn resolve(
    tab: &Tab,
    frames: &mut Frames,
    locator: &Locator,
    deadline: Instant,
) -> Result<Target, ApiError> {
    let (_, nth) = locator.split_nth();
    let q = Query {
        locator,
        limit: LIST,
        context: false,
        gate: None,
    };
    loop {
        let began = Instant::now();
        let s = search(tab, frames, &q).await?;
        // Another search must fit before the deadline, with room to say why.
        let room = POLL + MARGIN.max(began.elapsed() * 2);
        let picked = match nth {
            None if s.count > 1 => return Err(ambiguous(locator, &s)),
            None if s.count == 1 => s.found.first().cloned(),
            Some(n) if s.count > 0 => match nth_of(frames, &s, n, false).await? {
                Some(f) => Some(f),
                None => {
                    return Err(ApiError::not_found(format!(
                        "{} picks match {n}, but {} visible element{} match{}",
                        locator.source(),
                        s.count,
                        if s.count == 1 { "" } else { "s" },
                        if s.count == 1 { "es" } else { "" },
                    ))
                    .with_hint("nth= counts from 0 (-1 is the last); see them with webrig find"));
                }
            },
            _ => None,
        };
        if let Some(f) = picked {
            return Ok(Target::Ref {
                frame: f.ordinal,
                number: f.number,
            });
        }
        if Instant::now() + room >= deadline {
            return Err(nothing(locator, &s));
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Match `n` of a search (0-based, negative from the end) across frames,
/// with a ref (and a context line, with `context`); None when there are
/// not that many.
pub async fn nth_of(
    frames: &mut Frames,
    s: &Search,
    n: i64,
    context: bool,
) -> Result<Option<Found>, ApiError> {
    let index = if n < 0 { s.count as i64 + n } else { n };
    match usize::try_from(index) {
        Ok(i) if i < s.count => pick(frames, s, i, context).await.map(Some),
        _ => Ok(None),
    }
}

/// The `index`-th visible match across frames, with a ref.
async fn pick(
    frames: &mut Frames,
    s: &Search,
    index: usize,
    context: bool,
) -> Result<Found, ApiError> {
    if let Some(f) = s.found.get(index) {
        return Ok(f.clone());
    }
    let mut rest = index;
    for &(ordinal, count) in &s.per_frame {
        if rest >= count {
            rest -= count;
            continue;
        }
        let first = frames.next_ref();
        let args = json!({ "prefix": prefix(ordinal), "nextRef": first, "index": rest, "context": context });
        let v = frames
            .eval(
                ordinal,
                &format!("__webrig.lib.locatePick({args})"),
                false,
                "the match",
            )
            .await?;
        frames.handed_out(ordinal, first, &v);
        if v.get("item").is_some() {
            return Ok(found(ordinal, &v["item"]));
        }
        break;
    }
    Err(
        ApiError::not_found("the match went away while it was picked")
            .with_hint("try again, or take a snapshot and use its refs"),
    )
}

/// Whether `locator` is in `state` now (for `wait`): visible or hidden
/// counts visible matches, attached or detached any match.
pub async fn holds(tab: &Tab, locator: &Locator, state: ElementState) -> Result<bool, ApiError> {
    let mut frames = tab.frames().await;
    let q = Query {
        locator,
        limit: 0,
        context: false,
        gate: None,
    };
    let s = search(tab, &mut frames, &q).await?;
    let visible = match locator.split_nth() {
        (_, Some(n)) if n < 0 => s.count as i64 + n >= 0,
        (_, Some(n)) => (n as usize) < s.count,
        (_, None) => s.count > 0,
    };
    Ok(match state {
        ElementState::Visible => visible,
        ElementState::Hidden => !visible,
        ElementState::Attached => visible || s.hidden > 0,
        ElementState::Detached => !visible && s.hidden == 0,
    })
}

fn ambiguous(locator: &Locator, s: &Search) -> ApiError {
    let mut msg = format!("{} matches {} elements:", locator.source(), s.count);
    for f in &s.found {
        msg.push_str("\n  ");
        msg.push_str(&f.line);
    }
    if s.count > s.found.len() {
        msg.push_str(&format!("\n  … and {} more", s.count - s.found.len()));
    }
    ApiError::invalid(msg).with_hint("add >> nth=N, narrow it, or use a ref")
}

fn nothing(locator: &Locator, s: &Search) -> ApiError {
    if s.hidden > 0 {
        let mut msg = format!(
            "{} matches only hidden elements ({}):",
            locator.source(),
            s.hidden
        );
        for l in &s.hidden_lines {
            msg.push_str("\n  ");
            msg.push_str(l);
        }
        return ApiError::not_found(msg)
            .with_hint("open the menu, tab or section that shows it, or wait for it");
    }
    let mut e = ApiError::not_found(format!("no element matches {}", locator.source()));
    e = if s.truncated {
        e.with_hint("the page is too large to search whole: narrow it (css=#main >> text=…) or take a snapshot")
    } else {
        e.with_hint("check the text with webrig find, or take a snapshot and use its refs")
    };
    e
}
