//! Acting on the page: resolving a target (a ref, a CSS selector, or a
//! locator through `locate.rs`), checking actionability, trusted input, and
//! settling before returning.
//!
//! Owns the rule that an action never hits the wrong element: a ref resolves
//! only to the node it was handed out for (else `not_found`, take a new
//! snapshot), and a click goes ahead only when the element is attached,
//! visible, enabled, stable and what its click point hits (itself, a part of
//! it, or the control it is a part of, such as the button around a label's
//! span); otherwise the error says why (`@e7 is covered by @e12 "Accept
//! cookies"`). What changes between the check and the act is caught too: a
//! click's own events are watched as they land (the page library's
//! hit-target interceptor, see [`click_point`]), and the commands read back
//! what they promised once the page settles. Input is real
//! (`Input.dispatch*`), so pages see trusted events.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::broadcast::{Receiver, error::TryRecvError};
use tokio::time::Instant;

use super::cdp::Event;
use super::frames::{Frames, Target, stale};
use super::keys::{self, Combo, Key};
use super::nav::{LoadState, NavWatch};
use super::tab::Tab;
use crate::error::{ApiError, ErrorCode};

/// A target resolved to the frame that holds it.
#[derive(Debug, Clone)]
pub struct Located {
    ordinal: u32,
    js: String,
    label: String,
    selector: bool,
}

impl Located {
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The page library's spelling: a ref number or a selector string.
    pub fn js(&self) -> &str {
        &self.js
    }
}

/// Resolves `raw` (a ref, a CSS selector or a locator) in the tab's frames.
/// A locator is first resolved to the one element it names, which gets a
/// ref (waiting for it until `deadline`); the action then goes on as on
/// that ref.
pub async fn locate(
    tab: &Tab,
    frames: &mut Frames,
    raw: &str,
    deadline: Instant,
) -> Result<Located, ApiError> {
    let mut target = Target::parse(raw)?;
    let mut label = target.label();
    if let Target::Locator(loc) = &target {
        frames.main(tab);
        let resolved = super::locate::resolve(tab, frames, loc, deadline).await?;
        label = format!("{} ({})", resolved.label(), loc.source());
        target = resolved;
    }
    let ordinal = frames.frame_of(&target)?;
    let (js, selector) = match &target {
        Target::Ref { number, .. } => (number.to_string(), false),
        Target::Selector(s) => (serde_json::to_string(s).unwrap_or_default(), true),
        Target::Locator(_) => return Err(ApiError::internal("a locator was left unresolved")),
    };
    Ok(Located {
        ordinal,
        js,
        label,
        selector,
    })
}

/// Locks the tab's frame table and resolves `raw` in it (a ref, selector
/// or locator; see [`locate`]).
pub async fn target<'a>(
    tab: &'a Tab,
    raw: &str,
    deadline: Instant,
) -> Result<(tokio::sync::MutexGuard<'a, Frames>, Located), ApiError> {
    let mut frames = tab.frames().await;
    frames.main(tab);
    let at = locate(tab, &mut frames, raw, deadline).await?;
    Ok((frames, at))
}

/// A locator resolved once, to the ref of the element it names, so an
/// action that reads its target again (check, then click, then read back)
/// stays on that element even when the click changes its text or state.
/// Refs and selectors come back as given.
pub async fn pin(tab: &Tab, raw: &str, deadline: Instant) -> Result<String, ApiError> {
    let Target::Locator(loc) = Target::parse(raw)? else {
        return Ok(raw.to_string());
    };
    let mut frames = tab.frames().await;
    frames.main(tab);
    Ok(super::locate::resolve(tab, &mut frames, &loc, deadline)
        .await?
        .label())
}

/// Runs `__webrig.lib.<call>` for a located target and maps the library's
/// refusals ({stale}, {invalid}, {missing}) to API errors.
pub async fn lib(frames: &mut Frames, at: &Located, call: &str) -> Result<Value, ApiError> {
    let expr = format!("__webrig.lib.{call}");
    let v = frames
        .eval(at.ordinal, &expr, at.selector, &at.label)
        .await?;
    if let Some(why) = v.get("stale").and_then(Value::as_str) {
        let why = if why == "changed" {
            "the element changed since the snapshot"
        } else {
            "the element is no longer in the page"
        };
        return Err(stale(&at.label, why));
    }
    if v.get("invalid").is_some() {
        return Err(ApiError::invalid(format!(
            "{} is not a valid CSS selector",
            at.label
        )));
    }
    if v.get("missing").is_some() {
        return Err(
            ApiError::not_found(format!("no element matches {}", at.label))
                .with_hint("take a snapshot and use its refs, or check the selector"),
        );
    }
    Ok(v)
}

/// Where to click `at`, in the top frame's viewport, once it is actionable.
pub async fn point(
    frames: &mut Frames,
    at: &Located,
    enabled: bool,
    hit: bool,
    deadline: Instant,
) -> Result<(f64, f64), ApiError> {
    actionable(
        frames,
        at,
        json!({ "enabled": enabled, "hit": hit }),
        deadline,
    )
    .await
}

/// Where to click `at` once it is actionable, with the page library's
/// hit-target interceptor armed in the same evaluation (no extra round
/// trip): the click that follows is checked as it lands, and [`intercepted`]
/// says whether something else took it.
pub async fn click_point(
    frames: &mut Frames,
    at: &Located,
    deadline: Instant,
) -> Result<(f64, f64), ApiError> {
    let opts = json!({ "enabled": true, "hit": true, "arm": true });
    actionable(frames, at, opts, deadline).await
}

/// After a click through [`click_point`]: what took the click instead of
/// `at` (an overlay that appeared as the mouse came down), whose events the
/// interceptor blocked; None when the click landed. One evaluation. A click
/// that opened a dialog or navigated landed.
pub async fn intercepted(tab: &Tab, at: &Located) -> Option<String> {
    if tab.dialog().is_some() {
        return None;
    }
    let mut frames = tab.frames().await;
    frames.main(tab);
    let v = lib(&mut frames, at, "intercepted()").await.ok()?;
    v.get("covered").and_then(Value::as_str).map(str::to_string)
}

async fn actionable(
    frames: &mut Frames,
    at: &Located,
    mut opts: Value,
    deadline: Instant,
) -> Result<(f64, f64), ApiError> {
    // Leave room to report why, rather than running into the deadline.
    let wait = deadline
        .saturating_duration_since(Instant::now())
        .saturating_sub(Duration::from_millis(300));
    opts["timeoutMs"] = json!(wait.as_millis() as u64);
    let v = lib(frames, at, &format!("actionable({}, {opts})", at.js)).await?;
    if let Some(blocked) = v.get("blocked") {
        let label = &at.label;
        let (code, message, hint) = match blocked["code"].as_str().unwrap_or_default() {
            "covered" => (
                ErrorCode::Timeout,
                format!(
                    "{label} is covered by {}",
                    blocked["by"].as_str().unwrap_or("another element")
                ),
                "close or act on the covering element first",
            ),
            "disabled" => (
                ErrorCode::Timeout,
                format!("{label} is disabled"),
                "wait until it is enabled, or check the form",
            ),
            "hidden" => (
                ErrorCode::Timeout,
                format!("{label} is not visible"),
                "scroll, open its container, or wait for it",
            ),
            "moving" => (
                ErrorCode::Timeout,
                format!("{label} kept moving"),
                "wait for the animation to end",
            ),
            _ => (
                ErrorCode::NotFound,
                format!("no element matches {label}"),
                "take a snapshot and use its refs, or check the selector",
            ),
        };
        return Err(ApiError::new(code, message).with_hint(hint));
    }
    let (x, y) = (
        v["x"].as_f64().unwrap_or(0.0),
        v["y"].as_f64().unwrap_or(0.0),
    );
    let (ox, oy) = frames.offset(at.ordinal).await?;
    Ok((x + ox, y + oy))
}

#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Button {
    #[default]
    Left,
    Right,
    Middle,
}

impl Button {
    fn cdp(self) -> &'static str {
        match self {
            Button::Left => "left",
            Button::Right => "right",
            Button::Middle => "middle",
        }
    }
}

/// Where mouse input for a target goes. The tab's own session takes it at
/// top-frame coordinates, except for a target in an out-of-process frame:
/// that frame's session takes it, at the frame's coordinates (through the
/// extension relay, `chrome.debugger` does not route a tab's input into its
/// out-of-process frames; the frame's own session works on every transport).
pub struct Pointer {
    frame: Option<(super::cdp::Session, f64, f64)>,
}

impl Pointer {
    /// The pointer for a drag from `from` to `to`: within one frame that
    /// frame's, across frames the tab's (top-frame coordinates).
    pub async fn spanning(
        frames: &Frames,
        from: &Located,
        to: &Located,
    ) -> Result<Pointer, ApiError> {
        if from.ordinal == to.ordinal {
            Pointer::of(frames, from).await
        } else {
            Ok(Pointer::top())
        }
    }

    /// Input at top-frame coordinates through the tab.
    pub fn top() -> Pointer {
        Pointer { frame: None }
    }

    /// The pointer for a located target.
    pub async fn of(frames: &Frames, at: &Located) -> Result<Pointer, ApiError> {
        let top = frames.frame(0).map(|f| f.session.id().to_string());
        match frames.frame(at.ordinal) {
            Some(f) if Some(f.session.id()) != top.as_deref() => {
                let (dx, dy) = frames.offset(at.ordinal).await?;
                Ok(Pointer {
                    frame: Some((f.session.clone(), dx, dy)),
                })
            }
            _ => Ok(Pointer::top()),
        }
    }

    /// One `Input.dispatchMouseEvent` at top-frame (x, y).
    async fn send(&self, tab: &Tab, x: f64, y: f64, mut event: Value) -> Result<(), ApiError> {
        match &self.frame {
            None => {
                event["x"] = json!(x);
                event["y"] = json!(y);
                tab.call("Input.dispatchMouseEvent", event).await?;
            }
            Some((session, dx, dy)) => {
                event["x"] = json!(x - dx);
                event["y"] = json!(y - dy);
                session.call("Input.dispatchMouseEvent", event).await?;
            }
        }
        Ok(())
    }
}

pub async fn mouse_move(
    tab: &Tab,
    pointer: &Pointer,
    x: f64,
    y: f64,
    modifiers: u32,
) -> Result<(), ApiError> {
    pointer
        .send(
            tab,
            x,
            y,
            json!({ "type": "mouseMoved", "modifiers": modifiers }),
        )
        .await
}

/// Presses and releases `button` `count` times at (x, y) (a double click is
/// two presses with clickCount 1 then 2).
///
/// No separate mouseMoved first: Chromium delivers moves on the next
/// animation frame (up to 16 ms), while a press at a new point updates hover
/// state and fires the boundary events itself.
pub async fn click_at(
    tab: &Tab,
    pointer: &Pointer,
    x: f64,
    y: f64,
    button: Button,
    count: u32,
    modifiers: u32,
) -> Result<(), ApiError> {
    for n in 1..=count.max(1) {
        for kind in ["mousePressed", "mouseReleased"] {
            let event = json!({ "type": kind, "button": button.cdp(), "clickCount": n, "modifiers": modifiers });
            match pointer.send(tab, x, y, event).await {
                // The click opened a dialog: it happened; the dialog is
                // reported with the result and answered with `dialog`.
                Err(_) if tab.dialog().is_some() => return Ok(()),
                other => other?,
            }
        }
    }
    Ok(())
}

/// Presses at `from`, moves in steps, releases at `to`, all through
/// `pointer` (a drag inside an out-of-process frame goes to that frame).
pub async fn drag(
    tab: &Tab,
    pointer: &Pointer,
    from: (f64, f64),
    to: (f64, f64),
) -> Result<(), ApiError> {
    mouse_move(tab, pointer, from.0, from.1, 0).await?;
    let press = json!({ "type": "mousePressed", "button": "left", "clickCount": 1 });
    pointer.send(tab, from.0, from.1, press).await?;
    const STEPS: u32 = 8;
    for i in 1..=STEPS {
        let f = f64::from(i) / f64::from(STEPS);
        let (x, y) = (from.0 + (to.0 - from.0) * f, from.1 + (to.1 - from.1) * f);
        let moved = json!({ "type": "mouseMoved", "button": "left", "buttons": 1 });
        pointer.send(tab, x, y, moved).await?;
    }
    let release = json!({ "type": "mouseReleased", "button": "left", "clickCount": 1 });
    pointer.send(tab, to.0, to.1, release).await
}

async fn key_event(tab: &Tab, kind: &str, key: &Key, modifiers: u32) -> Result<(), ApiError> {
    let mut params = json!({
        "type": kind,
        "key": key.key,
        "code": key.code,
        "windowsVirtualKeyCode": key.key_code,
        "nativeVirtualKeyCode": key.key_code,
        "modifiers": modifiers,
    });
    if kind == "keyDown"
        && let Some(text) = &key.text
    {
        params["text"] = json!(text);
        params["unmodifiedText"] = json!(text);
    } else if kind == "keyDown" {
        params["type"] = json!("rawKeyDown");
    }
    tab.call("Input.dispatchKeyEvent", params).await?;
    Ok(())
}

pub async fn press(tab: &Tab, combo: &Combo) -> Result<(), ApiError> {
    let mut held = 0;
    for m in &combo.held {
        held |= modifier_bit(m);
        key_event(tab, "keyDown", m, held).await?;
    }
    key_event(tab, "keyDown", &combo.key, combo.modifiers).await?;
    key_event(tab, "keyUp", &combo.key, combo.modifiers).await?;
    for m in combo.held.iter().rev() {
        held &= !modifier_bit(m);
        key_event(tab, "keyUp", m, held).await?;
    }
    Ok(())
}

fn modifier_bit(k: &Key) -> u32 {
    match k.key.as_str() {
        "Alt" => keys::ALT,
        "Control" => keys::CONTROL,
        "Meta" => keys::META,
        "Shift" => keys::SHIFT,
        _ => 0,
    }
}

/// Types `text` key by key into whatever has focus.
pub async fn type_text(tab: &Tab, text: &str) -> Result<(), ApiError> {
    for c in text.chars() {
        let key = if c == '\n' {
            keys::key("Enter")?
        } else {
            keys::char_key(c)
        };
        key_event(tab, "keyDown", &key, 0).await?;
        key_event(tab, "keyUp", &key, 0).await?;
    }
    Ok(())
}

pub async fn insert_text(tab: &Tab, text: &str) -> Result<(), ApiError> {
    tab.call("Input.insertText", json!({ "text": text }))
        .await?;
    Ok(())
}

/// Files into an `<input type=file>`.
pub async fn upload(frames: &mut Frames, at: &Located, files: &[String]) -> Result<(), ApiError> {
    let frame = frames
        .frame(at.ordinal)
        .cloned()
        .ok_or_else(|| stale(&at.label, "its frame is gone"))?;
    let check = lib(
        frames,
        at,
        &format!(
            "run({}, el => el.tagName === 'INPUT' && el.type === 'file' ? (el.multiple ? 2 : 1) : 0)",
            at.js
        ),
    )
    .await?;
    match check["ok"].as_u64() {
        Some(0) | None => {
            return Err(ApiError::invalid(format!(
                "{} is not a file input",
                at.label
            )));
        }
        Some(1) if files.len() > 1 => {
            return Err(ApiError::invalid(format!("{} takes one file", at.label)));
        }
        _ => {}
    }
    let ctx = frames.ensure_world(at.ordinal).await?;
    let reply = frame
        .session
        .call(
            "Runtime.evaluate",
            json!({ "expression": format!("__webrig.lib.node({})", at.js), "contextId": ctx, "objectGroup": "webrig-upload" }),
        )
        .await?;
    let object = reply["result"]["objectId"]
        .as_str()
        .ok_or_else(|| stale(&at.label, "the element is no longer in the page"))?
        .to_string();
    let set = frame
        .session
        .call(
            "DOM.setFileInputFiles",
            json!({ "files": files, "objectId": object }),
        )
        .await;
    let _ = frame
        .session
        .call(
            "Runtime.releaseObjectGroup",
            json!({ "objectGroup": "webrig-upload" }),
        )
        .await;
    set?;
    Ok(())
}

/// Watches what an action sets off, so the action can return once its
/// effects are visible: a navigation it started has committed (and parsed),
/// and the DOM holds what its handlers did or scheduled (the contract is at
/// `settle` in page/settle.js: microtasks, zero-delay timers, the animation frames
/// they asked for). It waits a frame only when the page asked for one or
/// started a transition; a click that changed nothing, or changed the DOM
/// and scheduled nothing, returns without one.
pub struct Settle {
    events: Receiver<Arc<Event>>,
    watch: NavWatch,
    session: String,
    frame: String,
}

/// Long enough for a 300 ms timer and the transition it starts; a page pays
/// it only when it asked for either.
const SETTLE_MAX_MS: u64 = 1000;

impl Settle {
    pub async fn begin(tab: &Tab) -> Settle {
        let settle = Settle {
            events: tab.cdp().connection().subscribe(),
            watch: NavWatch::new(tab),
            session: tab.cdp().id().to_string(),
            frame: tab.main_frame().to_string(),
        };
        let mut frames = tab.frames().await;
        frames.main(tab);
        // Best effort: a page without a document yet has nothing to watch.
        let _ = frames.eval(0, "__webrig.lib.watch()", true, "settle").await;
        settle
    }

    async fn render(tab: &Tab) {
        let mut frames = tab.frames().await;
        let call = format!("__webrig.lib.settle({SETTLE_MAX_MS})");
        let _ = tokio::time::timeout(
            Duration::from_millis(SETTLE_MAX_MS + 200),
            frames.eval(0, &call, true, "settle"),
        )
        .await;
    }

    /// Returns the new URL when the action navigated the tab.
    pub async fn finish(mut self, tab: &Tab, deadline: Instant) -> Option<String> {
        Self::render(tab).await;
        let mut navigating = false;
        loop {
            match self.events.try_recv() {
                Ok(event) => {
                    if event.session_id.as_deref() == Some(self.session.as_str())
                        && matches!(
                            event.method.as_str(),
                            "Page.frameRequestedNavigation"
                                | "Page.frameStartedNavigating"
                                | "Page.frameStartedLoading"
                        )
                        && event.params["frameId"] == self.frame.as_str()
                    {
                        navigating = true;
                    }
                    self.watch.observe(&event);
                }
                Err(TryRecvError::Lagged(_)) => continue,
                Err(_) => break,
            }
        }
        if !navigating && !self.watch.committed() || self.watch.downloaded() {
            return None;
        }
        // Bounded by the command's deadline; a slow page is reported as
        // navigating rather than as a failed click.
        let until = deadline.min(Instant::now() + Duration::from_secs(10));
        if self
            .watch
            .run(
                &mut self.events,
                tab,
                LoadState::Domcontentloaded,
                until,
                "the navigation",
            )
            .await
            .is_err()
        {
            return Some(String::new());
        }
        if self.watch.downloaded() {
            return None;
        }
        super::nav::current(tab).await.ok().map(|n| n.url)
    }
}
