//! Frames and webrig's isolated worlds: where the page library runs.
//!
//! Owns the per-tab frame table (main frame, in-process iframes, out-of-process
//! iframes reached through auto-attached child sessions), one isolated world
//! per frame, installing the page library (`page/`) into it, the ref → frame map, and
//! resolving a target (`@e5`, `@f1e2` or a CSS selector) to the frame that
//! holds it; a locator (`text=Stop`) parses here and is resolved to a ref
//! by `locate.rs`. A world whose document went away is never silently recreated for
//! an old ref: that ref is stale.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::cdp::{CdpError, Session as CdpSession};
use super::locate::Locator;
use super::locate::parse::check_chars;
use super::tab::{Tab, value_of};
use crate::error::{ApiError, ErrorCode};

/// The page library: one function, its parts joined in order (see core.js).
const PAGE_LIB: &str = concat!(
    include_str!("page/core.js"),
    include_str!("page/outline.js"),
    include_str!("page/act.js"),
    include_str!("page/settle.js"),
    include_str!("page/locate.js"),
    include_str!("page/annotate.js"),
    include_str!("page/end.js"),
);
/// webrig's hooks in each document's own world, installed before the page's
/// scripts run: which elements the page listens on for clicks, and the short
/// timers an action sets off (see the file).
pub const HOOKS: &str = include_str!("page/hooks.js");
const WORLD: &str = "webrig";
const MISSING: &str = "__webrig_missing__";

/// One frame webrig has seen in a tab.
#[derive(Clone)]
pub struct Frame {
    /// 0 for the main frame; refs in frame N are `@fNeM`.
    pub ordinal: u32,
    pub session: CdpSession,
    pub frame_id: String,
    /// The frame that holds this frame's `<iframe>` element, and that
    /// element's backend node id there (for coordinates).
    pub parent: Option<(u32, i64)>,
    context: Option<i64>,
}

/// The per-tab table. Commands of a tab run one at a time, so a plain struct
/// behind the tab's async lock is enough.
#[derive(Default)]
pub struct Frames {
    frames: Vec<Frame>,
    /// ref number → frame ordinal.
    refs: HashMap<u64, u32>,
    next_ref: u64,
    /// The tab's dialog watch: page calls stop when a dialog opens.
    dialog: Option<(String, super::tab::DialogWatch)>,
    /// The last snapshot's lines per kind of snapshot (options), for `--diff`:
    /// an interactive listing is compared with the previous interactive one.
    pub last_snapshot: HashMap<String, Vec<String>>,
}

/// A parsed action/reading target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Ref {
        frame: u32,
        number: u64,
    },
    Selector(String),
    /// `text=…`, `role=…`, chains: resolved to a ref by `locate::resolve`.
    Locator(Box<Locator>),
}

impl Target {
    /// `@e5`, `@f2e17`, `e5`, a locator (`text=Stop`, `role=button[name=Go]
    /// >> nth=1`) or a CSS selector.
    pub fn parse(raw: &str) -> Result<Target, ApiError> {
        let raw = raw.trim();
        if raw.is_empty() {
            return Err(ApiError::invalid("the target is empty"));
        }
        let body = raw.strip_prefix('@').unwrap_or(raw);
        let parsed = if let Some(rest) = body.strip_prefix('f') {
            rest.split_once('e')
                .and_then(|(f, n)| Some((f.parse().ok()?, n.parse().ok()?)))
        } else {
            body.strip_prefix('e')
                .and_then(|n| n.parse().ok())
                .map(|n| (0, n))
        };
        match parsed {
            Some((frame, number)) => Ok(Target::Ref { frame, number }),
            None if raw.starts_with('@') => Err(ApiError::invalid(format!(
                "{raw:?} is not a ref (refs look like @e12 or @f1e3)"
            ))),
            None if Locator::is_locator(raw) => Ok(Target::Locator(Box::new(Locator::parse(raw)?))),
            None => {
                check_chars(raw)?;
                Ok(Target::Selector(raw.to_string()))
            }
        }
    }

    pub fn label(&self) -> String {
        match self {
            Target::Ref { frame: 0, number } => format!("@e{number}"),
            Target::Ref { frame, number } => format!("@f{frame}e{number}"),
            Target::Selector(s) => format!("{s:?}"),
            Target::Locator(l) => l.source().to_string(),
        }
    }
}

pub fn stale(label: &str, why: &str) -> ApiError {
    ApiError::not_found(format!("{label} is stale: {why}"))
        .with_hint("take a new snapshot (webrig snapshot) and use its refs")
}

fn context_gone(e: &CdpError) -> bool {
    matches!(e, CdpError::Protocol { message, .. }
        if message.contains("context") || message.contains("Cannot find") || message.contains("No frame"))
}

impl Frames {
    pub fn next_ref(&self) -> u64 {
        self.next_ref.max(1)
    }

    /// Records the refs a page-library call in frame `ordinal` handed out:
    /// from `first` (the [`Frames::next_ref`] it was given) up to the
    /// `nextRef` its reply names.
    pub fn handed_out(&mut self, ordinal: u32, first: u64, reply: &Value) {
        let next = reply["nextRef"].as_u64().unwrap_or(first).max(first);
        for n in first..next {
            self.refs.insert(n, ordinal);
        }
        self.next_ref = next;
    }

    pub fn frame(&self, ordinal: u32) -> Option<&Frame> {
        self.frames.iter().find(|f| f.ordinal == ordinal)
    }

    /// The main frame, registered on first use.
    pub fn main(&mut self, tab: &Tab) -> Frame {
        if self.dialog.is_none() {
            self.dialog = Some((tab.id().to_string(), tab.dialog_watch()));
        }
        if self.frames.is_empty() {
            self.frames.push(Frame {
                ordinal: 0,
                session: tab.cdp().clone(),
                frame_id: tab.main_frame().to_string(),
                parent: None,
                context: None,
            });
        }
        self.frames[0].clone()
    }

    /// The ordinal for `frame_id` (stable across snapshots), registering it.
    pub fn child(&mut self, session: CdpSession, frame_id: &str, parent: (u32, i64)) -> Frame {
        if let Some(f) = self.frames.iter_mut().find(|f| f.frame_id == frame_id) {
            if f.session.id() != session.id() {
                f.session = session;
                f.context = None;
            }
            f.parent = Some(parent);
            return f.clone();
        }
        let ordinal = self.frames.iter().map(|f| f.ordinal).max().unwrap_or(0) + 1;
        let frame = Frame {
            ordinal,
            session,
            frame_id: frame_id.to_string(),
            parent: Some(parent),
            context: None,
        };
        self.frames.push(frame.clone());
        frame
    }

    fn set_context(&mut self, ordinal: u32, context: Option<i64>) {
        if let Some(f) = self.frames.iter_mut().find(|f| f.ordinal == ordinal) {
            f.context = context;
        }
    }

    /// The frame's world, created when missing. Only snapshots call this:
    /// they are what hands out refs for a (possibly new) document.
    pub async fn ensure_world(&mut self, ordinal: u32) -> Result<i64, ApiError> {
        let frame = self
            .frame(ordinal)
            .cloned()
            .ok_or_else(|| ApiError::internal(format!("no frame {ordinal}")))?;
        if let Some(ctx) = frame.context {
            return Ok(ctx);
        }
        let call = frame.session.call(
            "Page.createIsolatedWorld",
            json!({ "frameId": frame.frame_id, "worldName": WORLD }),
        );
        let made = match &self.dialog {
            Some((tab, watch)) => super::tab::guard_dialog(tab, watch, call).await?,
            None => call.await?,
        };
        let ctx = made["executionContextId"]
            .as_i64()
            .ok_or_else(|| ApiError::internal("Page.createIsolatedWorld returned no context"))?;
        self.set_context(ordinal, Some(ctx));
        Ok(ctx)
    }

    /// Runs `expr` (which may use `__webrig.lib`) in the frame's world.
    /// `fresh_ok`: whether a destroyed world may be replaced (snapshots) or
    /// means the target is stale (everything else).
    pub async fn eval(
        &mut self,
        ordinal: u32,
        expr: &str,
        fresh_ok: bool,
        label: &str,
    ) -> Result<Value, ApiError> {
        for attempt in 0..2 {
            let ctx = match self.frame(ordinal).and_then(|f| f.context) {
                Some(ctx) => ctx,
                None if fresh_ok => self.ensure_world(ordinal).await?,
                None => return Err(stale(label, "its page was navigated or reloaded")),
            };
            let session = self
                .frame(ordinal)
                .map(|f| f.session.clone())
                .ok_or_else(|| stale(label, "its frame is gone"))?;
            match run_in(&session, ctx, expr, self.dialog.as_ref()).await {
                Ok(v) => return Ok(v),
                Err(EvalError::Cdp(e)) if context_gone(&e) => {
                    self.set_context(ordinal, None);
                    if !fresh_ok || attempt == 1 {
                        return Err(stale(label, "its page was navigated or reloaded"));
                    }
                }
                Err(EvalError::Cdp(e)) => return Err(e.into()),
                Err(EvalError::Api(e)) => return Err(e),
            }
        }
        Err(stale(label, "its page changed"))
    }

    /// Which frame a target lives in.
    pub fn frame_of(&self, target: &Target) -> Result<u32, ApiError> {
        match target {
            Target::Selector(_) => Ok(0),
            Target::Locator(l) => Err(ApiError::internal(format!(
                "{} was not resolved to a ref",
                l.source()
            ))),
            Target::Ref { frame, number } => match self.refs.get(number) {
                Some(f) if f == frame => Ok(*f),
                _ => Err(stale(
                    &target.label(),
                    "no snapshot of this tab handed it out",
                )),
            },
        }
    }

    /// The offset of frame `ordinal`'s viewport in the top frame's viewport.
    pub async fn offset(&self, ordinal: u32) -> Result<(f64, f64), ApiError> {
        let mut at = ordinal;
        let (mut x, mut y) = (0.0, 0.0);
        while let Some((parent, node)) = self.frame(at).and_then(|f| f.parent) {
            let holder = self
                .frame(parent)
                .ok_or_else(|| ApiError::internal("a frame's parent is unknown"))?;
            let model = holder
                .session
                .call("DOM.getBoxModel", json!({ "backendNodeId": node }))
                .await?;
            let content = &model["model"]["content"];
            x += content[0].as_f64().unwrap_or(0.0);
            y += content[1].as_f64().unwrap_or(0.0);
            at = parent;
        }
        Ok((x, y))
    }
}

enum EvalError {
    Cdp(CdpError),
    Api(ApiError),
}

async fn run_in(
    session: &CdpSession,
    ctx: i64,
    expr: &str,
    dialog: Option<&(String, super::tab::DialogWatch)>,
) -> Result<Value, EvalError> {
    let call = |expression: String| async move {
        let call = session.call(
            "Runtime.evaluate",
            json!({
                "expression": expression,
                "contextId": ctx,
                "returnByValue": true,
                "awaitPromise": true,
            }),
        );
        match dialog {
            Some((tab, watch)) => super::tab::guard_dialog_raw(tab, watch, call)
                .await
                .map_err(EvalError::Api)?
                .map_err(EvalError::Cdp),
            None => call.await.map_err(EvalError::Cdp),
        }
    };
    let guarded = format!("globalThis.__webrig && __webrig.lib ? ({expr}) : {MISSING:?}");
    let mut reply = call(guarded.clone()).await?;
    if reply["result"]["value"] == MISSING {
        let installed = call(PAGE_LIB.to_string()).await?;
        if installed.get("exceptionDetails").is_some() {
            return Err(EvalError::Api(ApiError::internal(format!(
                "webrig's page library failed to load: {}",
                installed["exceptionDetails"]
            ))));
        }
        reply = call(guarded).await?;
    }
    if let Some(details) = reply.get("exceptionDetails") {
        let text = details["exception"]["description"]
            .as_str()
            .or_else(|| details["text"].as_str())
            .unwrap_or("exception");
        return Err(EvalError::Api(ApiError::new(
            ErrorCode::Internal,
            format!("webrig's page library threw: {text}"),
        )));
    }
    value_of(&reply).map_err(EvalError::Api)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_refs_and_fall_back_to_selectors() {
        assert_eq!(
            Target::parse("@e5").ok(),
            Some(Target::Ref {
                frame: 0,
                number: 5
            })
        );
        assert_eq!(
            Target::parse("e5").ok(),
            Some(Target::Ref {
                frame: 0,
                number: 5
            })
        );
        assert_eq!(
            Target::parse("@f2e17").ok(),
            Some(Target::Ref {
                frame: 2,
                number: 17
            })
        );
        assert_eq!(
            Target::parse("#main a").ok(),
            Some(Target::Selector("#main a".into()))
        );
        assert_eq!(
            Target::parse("em").ok(),
            Some(Target::Selector("em".into()))
        );
        assert!(Target::parse("@zz").is_err());
        assert!(Target::parse(" ").is_err());
    }
}
