//! One annotation capture from start to inbox: open the overlay on a tab,
//! wait for the person, read what they picked (refs recorded in the tab's
//! snapshot refs), screenshot the page with the picked boxes drawn (a file
//! in the inbox folder, never inline), redact, fit the budget, store.
//!
//! `webrig annotate` runs it and waits; the extension's "Annotate this
//! page" runs it in the background (the result goes to the inbox only).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use super::State;
use super::inbox::{Source, Stored};
use crate::browser::Tab;
use crate::browser::annotate::{self, Annotation, Phase};
use crate::browser::capture::{Area, ImageFormat};
use crate::error::{ApiError, ErrorCode};

/// How often the capture looks at the overlay.
const POLL: Duration = Duration::from_millis(50);

/// How a capture runs.
pub struct Options<'a> {
    pub session: &'a str,
    pub prompt: Option<&'a str>,
    pub screenshot: bool,
    pub source: Source,
    /// When the person's time is up.
    pub until: Instant,
}

/// The tabs (target ids) with a capture running: one at a time per tab.
#[derive(Default)]
pub struct Captures(std::sync::Mutex<std::collections::HashSet<String>>);

/// A capture's hold on its tab, let go when dropped.
struct Capturing<'a> {
    captures: &'a Captures,
    target: String,
}

impl Captures {
    /// Marks a capture running on the tab `target`; `busy` when one is.
    fn begin(&self, target: &str) -> Result<Capturing<'_>, ApiError> {
        let mut running = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if !running.insert(target.to_string()) {
            return Err(
                ApiError::new(ErrorCode::Busy, "a person is already annotating this tab")
                    .with_hint("wait for that capture to end (send, cancel or its timeout)"),
            );
        }
        Ok(Capturing {
            captures: self,
            target: target.to_string(),
        })
    }
}

impl Drop for Capturing<'_> {
    fn drop(&mut self) {
        self.captures
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.target);
    }
}

/// A capture's overlay: closed by [`Overlay::close`], or in the
/// background when dropped before (only that capture's overlay: a newer
/// one on the tab stays).
struct Overlay(Option<(Tab, String)>);

impl Overlay {
    async fn close(&mut self) {
        if let Some((tab, id)) = self.0.take() {
            annotate::close(&tab, &id).await;
        }
    }
}

impl Drop for Overlay {
    fn drop(&mut self) {
        if let Some((tab, id)) = self.0.take()
            && let Ok(rt) = tokio::runtime::Handle::try_current()
        {
            rt.spawn(async move { annotate::close(&tab, &id).await });
        }
    }
}

/// How a capture ended.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Outcome {
    /// `sent` or `cancelled`.
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotation: Option<Annotation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored: Option<Stored>,
}

/// Runs one capture on `tab`. The tab's line is held while the overlay
/// opens and while the send is read, not while the person works: other
/// commands (and a CDP client) use the tab meanwhile.
pub async fn capture(state: &State, tab: &Tab, opts: Options<'_>) -> Result<Outcome, ApiError> {
    let _one = state.captures().begin(tab.target_id())?;
    let inbox = state.inbox();
    // The capture's id: its overlay's, and its inbox entry's.
    let id = super::inbox::Inbox::new_id()?;
    {
        let _line = tab.queue().lock_owned().await;
        annotate::open(tab, &id, opts.prompt).await?;
    }
    // A capture dropped midway (its caller went away) takes its overlay
    // down behind it.
    let mut overlay = Overlay(Some((tab.clone(), id.clone())));
    let ended = loop {
        match annotate::phase(tab).await {
            Ok(Phase::Open) => {}
            Ok(other) => break other,
            Err(e) => {
                overlay.close().await;
                return Err(e);
            }
        }
        if Instant::now() + POLL >= opts.until {
            overlay.close().await;
            return Err(ApiError::timeout(
                "nobody sent or cancelled the annotation in time; the overlay was taken away",
            )
            .with_hint("give the person longer: webrig annotate --timeout 120s"));
        }
        tokio::time::sleep(POLL).await;
    };
    match ended {
        Phase::Sent => {}
        Phase::Cancelled => {
            overlay.close().await;
            return Ok(Outcome {
                status: "cancelled".into(),
                annotation: None,
                stored: None,
            });
        }
        Phase::Removed => {
            overlay.close().await;
            return Err(ApiError::new(
                ErrorCode::Forbidden,
                "the page kept removing the annotation overlay",
            ));
        }
        Phase::Gone | Phase::Open => {
            return Err(ApiError::new(
                ErrorCode::NavigationFailed,
                "the page went away (navigated, reloaded or closed) before anything was sent",
            )
            .with_hint("run webrig annotate again on the page you mean"));
        }
    }
    let (mut annotation, shot) = {
        let _line = tab.queue().lock_owned().await;
        let collected = annotate::collect(tab, opts.session, inbox.now_ms()).await;
        // The overlay now shows the picked boxes only (its panel hid on send).
        let shot = match (&collected, opts.screenshot) {
            (Ok(_), true) => {
                crate::browser::capture::screenshot(tab, Area::Viewport, ImageFormat::Png, None)
                    .await
                    .ok()
            }
            _ => None,
        };
        overlay.close().await;
        (collected?, shot)
    };
    if let Some(bytes) = shot {
        let path = inbox.screenshot_path(&id)?;
        crate::artifacts::write_new(&path, &bytes, false)?;
        annotation.screenshot = Some(path);
    }
    annotate::redact(&mut annotation);
    annotate::fit(&mut annotation);
    let stored = inbox.add(id.clone(), annotation.clone(), opts.source)?;
    if stored.deduped {
        // The same send a moment ago: its entry (and screenshot) stands.
        if let Some(path) = annotation.screenshot.take() {
            let _ = std::fs::remove_file(path);
        }
        annotation = inbox.get(&stored.id)?.annotation;
    }
    Ok(Outcome {
        status: "sent".into(),
        annotation: Some(annotation),
        stored: Some(stored),
    })
}

/// How long a person has for an annotation they started from the
/// extension (no agent waits on it).
const EXTENSION_WITHIN: Duration = Duration::from_secs(600);
/// Captures started from the extension at once.
const EXTENSION_AT_ONCE: usize = 2;
/// The session an extension-started capture runs in when no session
/// bound to the extension holds the tab.
pub const EXTENSION_SESSION: &str = "annotate";

/// Serves the extension's "Annotate this page" (`{"type":"annotate",
/// "tabId":N}`) while `link` lives: each runs [`capture`] in the
/// background and lands in the inbox. More than two at once, or a tab
/// already being annotated, is refused (logged).
pub fn serve_extension(
    state: std::sync::Arc<State>,
    link: std::sync::Arc<crate::browser::relay::Link>,
) {
    tokio::spawn(async move {
        let mut events = link.subscribe();
        let room = std::sync::Arc::new(tokio::sync::Semaphore::new(EXTENSION_AT_ONCE));
        loop {
            let event = tokio::select! {
                e = events.recv() => e,
                _ = link.closed() => break,
            };
            let v = match event {
                Ok(v) => v,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(_) => break,
            };
            if v.get("type").and_then(serde_json::Value::as_str) != Some("annotate") {
                continue;
            }
            let Some(tab_id) = v.get("tabId").and_then(serde_json::Value::as_u64) else {
                continue;
            };
            let Ok(permit) = room.clone().try_acquire_owned() else {
                tracing::info!(
                    tab_id,
                    "annotate from the extension: two are running already"
                );
                continue;
            };
            let (state, link) = (state.clone(), link.clone());
            tokio::spawn(async move {
                let _permit = permit;
                match from_extension(&state, &link, tab_id).await {
                    Ok(o) => {
                        tracing::info!(tab_id, status = %o.status, "annotate from the extension")
                    }
                    Err(e) => {
                        tracing::info!(tab_id, error = %e.message(), "annotate from the extension failed")
                    }
                }
            });
        }
    });
}

/// One capture the person started on their tab `tab_id`: in the session
/// that holds the tab, else borrowed into [`EXTENSION_SESSION`] (bound to
/// the extension on first use).
async fn from_extension(
    state: &std::sync::Arc<State>,
    link: &std::sync::Arc<crate::browser::relay::Link>,
    tab_id: u64,
) -> Result<Outcome, ApiError> {
    let until = Instant::now() + EXTENSION_WITHIN;
    let within = || Instant::now() + Duration::from_secs(30);
    // The tab as the extension lists it (lent tabs only).
    let own = state.session(EXTENSION_SESSION, true)?;
    let target = {
        let mut session = own.lock_until(EXTENSION_SESSION, within()).await?;
        if !session.is_relay() {
            session.connect_extension(link).await?;
        }
        let tabs = session.user_tabs().await?;
        tabs.iter()
            .find(|t| t["tabId"].as_u64() == Some(tab_id))
            .and_then(|t| t["targetId"].as_str())
            .map(str::to_string)
            .ok_or_else(|| ApiError::not_found(format!("tab {tab_id} is not lent to webrig")))?
    };
    // A session that holds it already keeps it (its refs are that session's).
    for (name, slot) in state.sessions() {
        let mut session = match slot.lock_until(&name, within()).await {
            Ok(s) => s,
            // Closed meanwhile: it holds nothing.
            Err(e) if e.code() == ErrorCode::NotFound => continue,
            Err(e) => return Err(e),
        };
        if !session.is_relay() {
            continue;
        }
        if let Some(tab) = session
            .all_tabs()
            .into_iter()
            .find(|t| t.target_id() == target)
        {
            drop(session);
            return capture(state, &tab, extension_options(&name, until)).await;
        }
    }
    let tab = {
        let mut session = own.lock_until(EXTENSION_SESSION, within()).await?;
        session.borrow(&target).await?
    };
    capture(state, &tab, extension_options(EXTENSION_SESSION, until)).await
}

fn extension_options(session: &str, until: Instant) -> Options<'_> {
    Options {
        session,
        prompt: None,
        screenshot: true,
        source: Source::Extension,
        until,
    }
}
