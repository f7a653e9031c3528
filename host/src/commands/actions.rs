//! Action commands: click, dblclick, hover, focus, scroll, drag, upload, and
//! (in `actions/input.rs`) type, fill, press, select, check, uncheck. Each
//! resolves its target (ref, CSS selector, or a locator resolved once to a
//! ref), checks actionability, acts with trusted input and settles; a click fails when something else took it as it
//! landed, and an action that promises an end state reads it back.

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::time::Instant;

use super::{Command, Cx, Scope};
use crate::browser::Tab;
use crate::browser::actions::{self as act, Button, Settle};
use crate::browser::keys;
use crate::browser::snapshot::{self, Options};
use crate::browser::tab::Dialog;
use crate::error::{ApiError, ErrorCode};

/// What to return after the action.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum After {
    /// Only the lines that changed since the tab's previous snapshot.
    Diff,
    /// A whole new snapshot.
    Full,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Acted {
    pub action: String,
    pub target: Option<String>,
    /// The URL the action navigated to ("" while it is still loading).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigated: Option<String>,
    /// What the action read back (a field's value, selected options, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// With --snapshot-after: the snapshot or diff.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
    /// A dialog the action opened (answer it with `dialog accept|dismiss`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Dialog>,
}

fn human(out: &Acted) -> String {
    let mut s = match &out.target {
        Some(t) => format!("{} {t}", out.action),
        None => out.action.clone(),
    };
    if let Some(v) = &out.value {
        s.push_str(&format!(" → {v}"));
    }
    if let Some(url) = &out.navigated {
        s.push_str(&format!(
            "\nnavigated to {}",
            if url.is_empty() {
                "(still loading)"
            } else {
                url
            }
        ));
    }
    if let Some(d) = &out.dialog {
        s.push_str(&format!(
            "\na {} dialog opened: {:?} (answer it: webrig dialog accept | dismiss)",
            d.kind, d.message
        ));
    }
    if let Some(snap) = &out.snapshot {
        s.push('\n');
        s.push_str(snap);
    }
    s
}

/// Runs `body` between a settle watch and the optional snapshot.
async fn perform<F, Fut>(
    cx: &mut Cx,
    action: &str,
    target: Option<&str>,
    after: Option<After>,
    body: F,
) -> Result<Acted, ApiError>
where
    F: FnOnce(Tab, Instant) -> Fut,
    Fut: Future<Output = Result<Option<Value>, ApiError>>,
{
    perform_verified(cx, action, target, after, |tab, deadline| async move {
        Ok((body(tab, deadline).await?, None))
    })
    .await
}

/// [`perform`] for an action that promises an end state: `body` also says
/// what to read back, and it is read once the page has settled (what the
/// page's handlers did to it included). Not after a navigation or with a
/// dialog open: the element is gone, or the page cannot be read.
async fn perform_verified<F, Fut>(
    cx: &mut Cx,
    action: &str,
    target: Option<&str>,
    after: Option<After>,
    body: F,
) -> Result<Acted, ApiError>
where
    F: FnOnce(Tab, Instant) -> Fut,
    Fut: Future<Output = Result<(Option<Value>, Option<input::Verify>), ApiError>>,
{
    let tab = cx.tab().await?;
    let deadline = cx.deadline();
    let settle = Settle::begin(&tab).await;
    let (mut value, verify) = body(tab.clone(), deadline).await?;
    let navigated = settle.finish(&tab, deadline).await;
    if let Some(verify) = verify
        && navigated.is_none()
        && tab.dialog().is_none()
    {
        value = verify.run(&tab).await?.or(value);
    }
    let dialog = tab.dialog();
    let snapshot = match after {
        // A page behind a dialog cannot be read until the dialog is answered.
        Some(_) if dialog.is_some() => None,
        None => None,
        Some(kind) => {
            let limits = cx.state().limits();
            let opts = Options {
                diff: kind == After::Diff,
                cap_nodes: Some(limits.snapshot_nodes),
                cap_chars: Some(limits.snapshot_chars),
                ..Options::default()
            };
            Some(snapshot::snapshot(&tab, &opts).await?.text)
        }
    };
    Ok(Acted {
        action: action.to_string(),
        target: target.map(str::to_string),
        navigated,
        value,
        snapshot,
        dialog,
    })
}

fn modifiers(list: &[String]) -> Result<u32, ApiError> {
    let mut bits = 0;
    for m in list {
        bits |= match m.to_ascii_lowercase().as_str() {
            "alt" | "option" => keys::ALT,
            "control" | "ctrl" => keys::CONTROL,
            "meta" | "cmd" | "command" => keys::META,
            "shift" => keys::SHIFT,
            other => {
                return Err(ApiError::invalid(format!(
                    "{other:?} is not a modifier (Alt, Control, Meta, Shift)"
                )));
            }
        };
    }
    Ok(bits)
}

/// How long a click blocked by something that appeared over its target waits
/// for it to go before the one retry.
const RECLICK_WAIT: Duration = Duration::from_millis(1500);

/// Clicks `target` once it is actionable. When something else takes the
/// click as it lands (an overlay that appeared on hover or mousedown), the
/// interceptor blocks its events and the click is retried once with a fresh
/// check, as Playwright does; a second block fails, naming what covered it.
async fn click_target(
    tab: &Tab,
    target: &str,
    button: Button,
    count: u32,
    mods: u32,
    deadline: Instant,
) -> Result<(), ApiError> {
    let mut until = deadline;
    loop {
        let (x, y, pointer, at) = {
            let (mut frames, at) = act::target(tab, target, deadline).await?;
            let (x, y) = act::click_point(&mut frames, &at, until).await?;
            (x, y, act::Pointer::of(&frames, &at).await?, at)
        };
        let clicked = act::click_at(tab, &pointer, x, y, button, count, mods).await;
        // Disarmed whatever happened, so it cannot block a later click.
        let covered = act::intercepted(tab, &at).await;
        clicked?;
        let Some(by) = covered else {
            return Ok(());
        };
        if until != deadline {
            return Err(ApiError::new(
                ErrorCode::Timeout,
                format!("{} is covered by {by}", at.label()),
            )
            .with_hint(
                "it appeared as the mouse came down and took the click (blocked, so nothing was clicked); \
                 close or act on it first",
            ));
        }
        until = deadline.min(Instant::now() + RECLICK_WAIT);
    }
}

/// Click an element (a ref like @e5, a locator like text=Stop, or a CSS selector).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Click {
    /// @eN ref from a snapshot, a locator (text=Stop, role=button[name="Stop"], label=Email) or a CSS selector.
    pub target: String,
    /// Mouse button (default left).
    #[arg(long, value_enum)]
    pub button: Option<Button>,
    /// Number of clicks (2 = double click).
    #[arg(long)]
    pub count: Option<u32>,
    /// Modifier keys held during the click: Alt, Control, Meta, Shift.
    #[arg(long, value_delimiter = ',')]
    #[serde(default)]
    pub modifiers: Vec<String>,
    /// Return a snapshot (full) or only its changes (diff) after the click.
    #[arg(long, value_enum)]
    pub snapshot_after: Option<After>,
    /// The click starts a download: wait for the file and return its path.
    #[arg(long)]
    #[serde(default)]
    pub download: bool,
}

/// How long a click has to start the download `--download` waits for.
const DOWNLOAD_BEGINS_WITHIN: std::time::Duration = std::time::Duration::from_secs(10);

impl Command for Click {
    const NAME: &'static str = "click";
    const ABOUT: &'static str = "Click an element once it is actionable";
    const SCOPE: Scope = Scope::Tab;
    type Output = Acted;

    async fn run(self, mut cx: Cx) -> Result<Acted, ApiError> {
        let mods = modifiers(&self.modifiers)?;
        let count = self.count.unwrap_or(1);
        if !(1..=3).contains(&count) {
            return Err(ApiError::invalid("--count must be 1, 2 or 3"));
        }
        let button = self.button.unwrap_or_default();
        let target = self.target.clone();
        let download = self.download;
        perform(
            &mut cx,
            "clicked",
            Some(&self.target),
            self.snapshot_after,
            |tab, deadline| async move {
                let target = act::pin(&tab, &target, deadline).await?;
                let downloads = tab.devtools().shared.downloads.clone();
                if download && tab.devtools().shared.is_relay() {
                    return Err(ApiError::invalid(
                        "--download is for browsers webrig launched or connected: \
                         in your own browser, downloads go where it puts them",
                    ));
                }
                if download && downloads.policy() == crate::config::DownloadPolicy::Never {
                    return Err(ApiError::invalid(
                        "downloads are off ([devtools] downloads = \"never\" in config.toml)",
                    ));
                }
                // The click asks for one download: only it is accepted.
                let armed = download.then(|| downloads.arm(tab.target_id()));
                click_target(&tab, &target, button, count, mods, deadline).await?;
                let Some(armed) = armed else {
                    return Ok(None);
                };
                let within =
                    DOWNLOAD_BEGINS_WITHIN.min(deadline.saturating_duration_since(Instant::now()));
                let Some(id) = armed.wait_begun(within).await else {
                    return Err(ApiError::new(
                        crate::error::ErrorCode::Timeout,
                        format!(
                            "the click started no download within {:.1} s",
                            within.as_secs_f64()
                        ),
                    )
                    .with_hint(
                        "check that the element links to a file; webrig downloads lists what came",
                    ));
                };
                let done = downloads.wait_done(&id, deadline).await?;
                Ok(Some(json!({
                    "path": done.path,
                    "bytes": done.bytes,
                    "url": crate::browser::devtools::redact::url(&done.url),
                })))
            },
        )
        .await
    }

    fn human(out: &Acted) -> String {
        human(out)
    }
}

/// A target plus the optional snapshot, for actions that need nothing else.
macro_rules! simple_action {
    ($name:ident, $cli:literal, $about:literal, $doc:literal, $past:literal, |$tab:ident, $target:ident, $deadline:ident| $body:block) => {
        #[doc = $doc]
        #[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// @eN ref from a snapshot, a locator (text=Stop, role=button[name="Stop"], label=Email) or a CSS selector.
            pub target: String,
            /// Return a snapshot (full) or only its changes (diff) afterwards.
            #[arg(long, value_enum)]
            pub snapshot_after: Option<After>,
        }

        impl Command for $name {
            const NAME: &'static str = $cli;
            const ABOUT: &'static str = $about;
            const SCOPE: Scope = Scope::Tab;
            type Output = Acted;

            async fn run(self, mut cx: Cx) -> Result<Acted, ApiError> {
                let $target = self.target.clone();
                perform(
                    &mut cx,
                    $past,
                    Some(&self.target),
                    self.snapshot_after,
                    |$tab, $deadline| async move {
                        let $target = act::pin(&$tab, &$target, $deadline).await?;
                        $body
                    },
                )
                .await
            }

            fn human(out: &Acted) -> String {
                human(out)
            }
        }
    };
}

simple_action!(
    Dblclick,
    "dblclick",
    "Double-click an element",
    "Double-click an element.",
    "double-clicked",
    |tab, target, deadline| {
        click_target(&tab, &target, Button::Left, 2, 0, deadline).await?;
        Ok(None)
    }
);

simple_action!(
    Hover,
    "hover",
    "Move the mouse over an element",
    "Move the mouse over an element.",
    "hovered",
    |tab, target, deadline| {
        let (x, y, pointer) = {
            let (mut frames, at) = act::target(&tab, &target, deadline).await?;
            let (x, y) = act::point(&mut frames, &at, false, true, deadline).await?;
            (x, y, act::Pointer::of(&frames, &at).await?)
        };
        act::mouse_move(&tab, &pointer, x, y, 0).await?;
        Ok(None)
    }
);

simple_action!(
    Focus,
    "focus",
    "Focus an element",
    "Focus an element.",
    "focused",
    |tab, target, deadline| {
        let (mut frames, at) = act::target(&tab, &target, deadline).await?;
        let v = act::lib(&mut frames, &at, &format!("run({}, el => {{ el.focus(); return el.ownerDocument.activeElement === el || el.contains(el.ownerDocument.activeElement); }})", at.js())).await?;
        if v["ok"] != true {
            return Err(ApiError::invalid(format!(
                "{} cannot take focus",
                at.label()
            )));
        }
        Ok(None)
    }
);

// The commands that put values into fields: type, fill, press, select,
// check, uncheck.
mod input;
pub use input::{Check, Fill, Press, Select, Type, Uncheck};

/// Scroll the page, scroll inside an element, or bring an element into view.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scroll {
    /// An element to scroll into view (or to scroll inside, with --dx/--dy).
    pub target: Option<String>,
    /// Pixels to scroll right (negative: left).
    #[arg(long, allow_hyphen_values = true, default_value_t = 0)]
    #[serde(default)]
    pub dx: i64,
    /// Pixels to scroll down (negative: up).
    #[arg(long, allow_hyphen_values = true, default_value_t = 0)]
    #[serde(default)]
    pub dy: i64,
    /// Return a snapshot (full) or only its changes (diff) afterwards.
    #[arg(long, value_enum)]
    pub snapshot_after: Option<After>,
}

impl Command for Scroll {
    const NAME: &'static str = "scroll";
    const ABOUT: &'static str = "Scroll the page or an element, or bring an element into view";
    const SCOPE: Scope = Scope::Tab;
    type Output = Acted;

    async fn run(self, mut cx: Cx) -> Result<Acted, ApiError> {
        let (target, dx, dy) = (self.target.clone(), self.dx, self.dy);
        if target.is_none() && dx == 0 && dy == 0 {
            return Err(ApiError::invalid("scroll needs an element, --dx or --dy"));
        }
        perform(
            &mut cx,
            "scrolled",
            self.target.as_deref(),
            self.snapshot_after,
            |tab, deadline| async move {
                let mut frames = tab.frames().await;
                frames.main(&tab);
                let v = match target {
                    Some(t) => {
                        let at = act::locate(&tab, &mut frames, &t, deadline).await?;
                        act::lib(
                            &mut frames,
                            &at,
                            &format!("scroll({}, {dx}, {dy})", at.js()),
                        )
                        .await?
                    }
                    None => {
                        let at = act::locate(&tab, &mut frames, "html", deadline).await?;
                        act::lib(&mut frames, &at, &format!("scroll(null, {dx}, {dy})")).await?
                    }
                };
                Ok(v.get("ok").cloned().filter(|v| !v.is_null()))
            },
        )
        .await
    }

    fn human(out: &Acted) -> String {
        human(out)
    }
}

/// Drag one element onto another with the mouse.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Drag {
    /// What to drag: a ref, locator or CSS selector.
    pub from: String,
    /// Where to drop it: a ref, locator or CSS selector.
    pub to: String,
    /// Return a snapshot (full) or only its changes (diff) afterwards.
    #[arg(long, value_enum)]
    pub snapshot_after: Option<After>,
}

impl Command for Drag {
    const NAME: &'static str = "drag";
    const ABOUT: &'static str = "Drag an element onto another";
    const SCOPE: Scope = Scope::Tab;
    type Output = Acted;

    async fn run(self, mut cx: Cx) -> Result<Acted, ApiError> {
        let (from, to) = (self.from.clone(), self.to.clone());
        let label = format!("{} → {}", self.from, self.to);
        perform(
            &mut cx,
            "dragged",
            Some(&label),
            self.snapshot_after,
            |tab, deadline| async move {
                let (pointer, a, b) = {
                    let (mut frames, at_from) = act::target(&tab, &from, deadline).await?;
                    let at_to = act::locate(&tab, &mut frames, &to, deadline).await?;
                    let a = act::point(&mut frames, &at_from, true, true, deadline).await?;
                    let b = act::point(&mut frames, &at_to, false, false, deadline).await?;
                    let pointer = act::Pointer::spanning(&frames, &at_from, &at_to).await?;
                    (pointer, a, b)
                };
                act::drag(&tab, &pointer, a, b).await?;
                Ok(None)
            },
        )
        .await
    }

    fn human(out: &Acted) -> String {
        human(out)
    }
}

/// Put files into a file input.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Upload {
    /// @eN ref, locator or CSS selector of an <input type=file>.
    pub target: String,
    /// Files to upload.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Return a snapshot (full) or only its changes (diff) afterwards.
    #[arg(long, value_enum)]
    pub snapshot_after: Option<After>,
}

impl Command for Upload {
    const NAME: &'static str = "upload";
    const ABOUT: &'static str = "Put files into a file input";
    const SCOPE: Scope = Scope::Tab;
    type Output = Acted;

    fn prepare(&mut self) -> Result<(), ApiError> {
        for file in &mut self.files {
            let mut one = Some(std::mem::take(file));
            super::session::absolutize(&mut one)?;
            *file = one.unwrap_or_default();
        }
        Ok(())
    }

    async fn run(self, mut cx: Cx) -> Result<Acted, ApiError> {
        if self.files.is_empty() {
            return Err(ApiError::invalid("upload needs at least one file"));
        }
        cx.require_local_files("upload")?;
        let mut files = Vec::new();
        for f in &self.files {
            if !f.is_absolute() {
                return Err(ApiError::invalid(format!(
                    "{} is not an absolute path",
                    f.display()
                )));
            }
            if !f.is_file() {
                return Err(ApiError::not_found(format!("no file at {}", f.display())));
            }
            files.push(f.display().to_string());
        }
        let target = self.target.clone();
        perform(
            &mut cx,
            "uploaded to",
            Some(&self.target),
            self.snapshot_after,
            |tab, deadline| async move {
                let (mut frames, at) = act::target(&tab, &target, deadline).await?;
                act::upload(&mut frames, &at, &files).await?;
                Ok(Some(json!(files)))
            },
        )
        .await
    }

    fn human(out: &Acted) -> String {
        human(out)
    }
}

macro_rules! dialog_command {
    ($name:ident, $cli:literal, $about:literal, $accept:expr) => {
        #[doc = $about]
        #[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// Text to answer a prompt with.
            #[arg(long)]
            pub text: Option<String>,
        }

        impl Command for $name {
            const NAME: &'static str = $cli;
            const ABOUT: &'static str = $about;
            const SCOPE: Scope = Scope::Tab;
            const RESERVED: bool = true;
            type Output = Answered;

            async fn run(self, mut cx: Cx) -> Result<Answered, ApiError> {
                let tab = cx.tab().await?;
                let dialog = tab.answer_dialog($accept, self.text.as_deref()).await?;
                Ok(Answered {
                    accepted: $accept,
                    dialog,
                })
            }

            fn human(out: &Answered) -> String {
                let verb = if out.accepted {
                    "accepted"
                } else {
                    "dismissed"
                };
                format!(
                    "{verb} the {} dialog {:?}",
                    out.dialog.kind, out.dialog.message
                )
            }
        }
    };
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Answered {
    pub accepted: bool,
    pub dialog: Dialog,
}

dialog_command!(
    DialogAccept,
    "dialog accept",
    "Accept the open alert/confirm/prompt (OK)",
    true
);
dialog_command!(
    DialogDismiss,
    "dialog dismiss",
    "Dismiss the open alert/confirm/prompt (Cancel)",
    false
);
