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
use super::inbox::Stored;
use crate::browser::Tab;
use crate::browser::annotate::{self, Annotation, Phase};
use crate::browser::capture::{Area, ImageFormat};
use crate::error::{ApiError, ErrorCode};

/// How often the capture looks at the overlay.
const POLL: Duration = Duration::from_millis(100);

/// How a capture runs.
pub struct Options<'a> {
    pub session: &'a str,
    pub prompt: Option<&'a str>,
    pub screenshot: bool,
    /// `annotate` (the agent waits; stored as read) or `extension`.
    pub source: &'a str,
    /// When the person's time is up.
    pub until: Instant,
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
    {
        let _line = tab.queue().lock_owned().await;
        annotate::open(tab, opts.prompt).await?;
    }
    let ended = loop {
        match annotate::phase(tab).await {
            Ok(Phase::Open(_)) => {}
            Ok(other) => break other,
            Err(e) => {
                annotate::close(tab).await;
                return Err(e);
            }
        }
        if Instant::now() + POLL >= opts.until {
            annotate::close(tab).await;
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
            annotate::close(tab).await;
            return Ok(Outcome {
                status: "cancelled".into(),
                annotation: None,
                stored: None,
            });
        }
        Phase::Removed => {
            annotate::close(tab).await;
            return Err(ApiError::new(
                ErrorCode::Forbidden,
                "the page kept removing the annotation overlay",
            ));
        }
        Phase::Gone | Phase::Open(_) => {
            return Err(ApiError::new(
                ErrorCode::NavigationFailed,
                "the page went away (navigated, reloaded or closed) before anything was sent",
            )
            .with_hint("run webrig annotate again on the page you mean"));
        }
    }
    let inbox = state.inbox();
    let id = super::inbox::Inbox::new_id()?;
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
        annotate::close(tab).await;
        (collected?, shot)
    };
    if let Some(bytes) = shot {
        let path = inbox.screenshot_path(&id)?;
        crate::artifacts::write_new(&path, &bytes, false)?;
        annotation.screenshot = Some(path);
    }
    annotate::redact(&mut annotation);
    annotate::fit(&mut annotation);
    let stored = inbox.add(id.clone(), annotation.clone(), opts.source, opts.source == "annotate")?;
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
