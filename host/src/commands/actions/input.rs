//! Input commands: type, fill, press, select, check, uncheck. What goes into
//! a field is read back once the page has settled ([`Verify`]): an action
//! whose end state is not what it promised fails, saying what the element
//! shows and what changed around it (a dialog opened, the field became
//! disabled, focus moved), rather than reporting success.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::perform_verified;
use super::{Acted, After, Button, Command, Cx, Scope, click_target, human, perform};
use crate::browser::Tab;
use crate::browser::actions as act;
use crate::browser::keys;
use crate::error::{ApiError, ErrorCode};

/// At most this many keys in one `press`, and characters in `press --text`.
const MAX_KEYS: usize = 64;
const MAX_PRESS_TEXT: usize = 1024;

/// An end state to read back after the action settles.
pub(super) enum Verify {
    /// The field holds `want` (as the page shows it: formatting allowed).
    Fill { target: String, want: String },
    /// The select shows the options `picked` (their values; `asked` as the
    /// agent named them).
    Select {
        target: String,
        asked: Vec<String>,
        picked: Value,
    },
    /// The checkbox, radio or switch is `want`.
    Checked { target: String, want: bool },
}

impl Verify {
    /// The value read back (None when the target's ref no longer resolves),
    /// or why the action did not take.
    pub(super) async fn run(self, tab: &Tab) -> Result<Option<Value>, ApiError> {
        let (target, kind, want) = match &self {
            Verify::Fill { target, want } => (target, "fill", json!(want)),
            Verify::Select { target, picked, .. } => (target, "select", picked.clone()),
            Verify::Checked { target, want } => (target, "checked", json!(want)),
        };
        let read = async {
            // The target was pinned to a ref before the action: no wait.
            let now = tokio::time::Instant::now();
            let (mut frames, at) = act::target(tab, target, now).await?;
            let call = format!("verify({}, {}, {want})", at.js(), json!(kind));
            let v = act::lib(&mut frames, &at, &call).await?;
            Ok::<_, ApiError>((v, at))
        };
        let (v, at) = match read.await {
            Ok(read) => read,
            // The ref no longer resolves: the page replaced the element, or
            // renamed it (a switch that reads "On" once on). Its end state
            // cannot be read through the ref; what the action did stands.
            Err(e) if e.code() == ErrorCode::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        if let Some(ok) = v.get("ok") {
            return Ok(Some(ok.clone()));
        }
        Err(self.failed(at.label(), &v))
    }

    fn failed(&self, label: &str, v: &Value) -> ApiError {
        let change = &v["change"];
        let why = what_changed(label, change);
        let fatal = change["fatal"] == true;
        let (message, hint) = match self {
            Verify::Fill { want, .. } => {
                let shows = v["shows"].as_str().unwrap_or_default();
                let hint = match v["maxLength"].as_u64() {
                    Some(n) => format!("it takes at most {n} characters"),
                    None => "the page did not keep the text: check the field's format, \
                             or type it key by key (type) if the page reacts to keys"
                        .to_string(),
                };
                (
                    format!("{label} shows {shows:?} after filling {want:?}"),
                    hint,
                )
            }
            Verify::Select { asked, .. } => {
                let shows = v["shows"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .map(|o| format!("{:?}", o.as_str().unwrap_or_default()))
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .filter(|s| !s.is_empty())
                    .unwrap_or_else(|| "no option".to_string());
                (
                    format!(
                        "{label} shows {shows} after selecting {}",
                        asked
                            .iter()
                            .map(|a| format!("{a:?}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    "the page's change handler set it back: take a snapshot to see why \
                     (another field may have to be set first)"
                        .to_string(),
                )
            }
            Verify::Checked { want, .. } => (
                format!(
                    "{label} is {} after {} it",
                    if *want { "unchecked" } else { "checked" },
                    if *want { "checking" } else { "unchecking" }
                ),
                "the page's click handler undid it (a radio cannot be unchecked by clicking)"
                    .to_string(),
            ),
        };
        let message = if why.is_empty() {
            message
        } else {
            format!("{message}: {why}")
        };
        let code = if fatal {
            ErrorCode::Timeout
        } else {
            ErrorCode::InvalidArgument
        };
        ApiError::new(code, message).with_hint(hint)
    }
}

/// The page library's account of what changed around a target (see
/// `changes()` in act.js), in words: `a dialog opened: dialog "Pick a date";
/// @e5 became disabled`. Empty when nothing did.
fn what_changed(label: &str, c: &Value) -> String {
    let mut parts = Vec::new();
    for d in c["dialogs"].as_array().into_iter().flatten() {
        parts.push(format!(
            "a dialog opened: {}",
            d.as_str().unwrap_or("dialog")
        ));
    }
    if c["gone"] == true {
        parts.push(format!("{label} left the page"));
    }
    if c["disabled"] == true {
        parts.push(format!("{label} became disabled"));
    }
    if c["hidden"] == true {
        parts.push(format!("{label} became hidden"));
    }
    if let Some(to) = c["focus"].as_str() {
        parts.push(format!("focus moved to {to}"));
    }
    if let Some(by) = c["covered"].as_str() {
        parts.push(format!("{label} is covered by {by}"));
    }
    parts.join("; ")
}

/// check and uncheck: the target, the optional snapshot, and the state read
/// back once the page settles.
macro_rules! check_action {
    ($name:ident, $cli:literal, $about:literal, $doc:literal, $past:literal, $want:literal) => {
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
                let target = self.target.clone();
                perform_verified(
                    &mut cx,
                    $past,
                    Some(&self.target),
                    self.snapshot_after,
                    |tab, deadline| async move {
                        let target = act::pin(&tab, &target, deadline).await?;
                        let now = set_checked(&tab, &target, $want, deadline).await?;
                        let verify = Verify::Checked {
                            target,
                            want: $want,
                        };
                        Ok((now, Some(verify)))
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

check_action!(
    Check,
    "check",
    "Check a checkbox or radio (no-op when checked)",
    "Check a checkbox, radio or switch.",
    "checked",
    true
);

check_action!(
    Uncheck,
    "uncheck",
    "Uncheck a checkbox (no-op when unchecked)",
    "Uncheck a checkbox or switch.",
    "unchecked",
    false
);

async fn checked_state(
    tab: &Tab,
    target: &str,
    deadline: tokio::time::Instant,
) -> Result<bool, ApiError> {
    let (mut frames, at) = act::target(tab, target, deadline).await?;
    let v = act::lib(&mut frames, &at, &format!("checked({})", at.js())).await?;
    if v.get("notCheckable").is_some() {
        return Err(ApiError::invalid(format!(
            "{} is not a checkbox, radio or switch",
            at.label()
        )));
    }
    Ok(v["ok"] == true)
}

/// Clicks the target unless it is already `want`; then reads it back once
/// the page has settled (a handler that undoes the click fails the action).
async fn set_checked(
    tab: &Tab,
    target: &str,
    want: bool,
    deadline: tokio::time::Instant,
) -> Result<Option<Value>, ApiError> {
    if checked_state(tab, target, deadline).await? == want {
        return Ok(Some(json!(want)));
    }
    click_target(tab, target, Button::Left, 1, 0, deadline).await?;
    // Read at once too: a handler that undid the click fails here, before
    // the settle; the read-back after it catches one that undid it later.
    let verify = Verify::Checked {
        target: target.to_string(),
        want,
    };
    verify.run(tab).await
}

/// Type text key by key into an element, or into whatever has focus
/// (appends to what is there).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[command(override_usage = "webrig type [OPTIONS] [TARGET] <TEXT>")]
#[serde(deny_unknown_fields)]
pub struct Type {
    /// @eN ref from a snapshot, a locator or a CSS selector; without it the text goes
    /// to the focused element. Clicked first unless it already has focus.
    #[arg(skip)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The text to type.
    #[arg(skip)]
    pub text: String,
    /// [TARGET] TEXT: the element (optional: without it, the focused one),
    /// then the text.
    #[arg(value_name = "WORDS", num_args = 1..=2, required = true)]
    #[serde(skip)]
    #[schemars(skip)]
    pub words: Vec<String>,
    /// Return a snapshot (full) or only its changes (diff) afterwards.
    #[arg(long, value_enum)]
    pub snapshot_after: Option<After>,
}

impl Command for Type {
    const NAME: &'static str = "type";
    const ABOUT: &'static str = "Type text key by key into an element or the focused one";
    const SCOPE: Scope = Scope::Tab;
    type Output = Acted;

    fn prepare(&mut self) -> Result<(), ApiError> {
        let mut words = std::mem::take(&mut self.words);
        match words.len() {
            0 => {}
            1 => self.text = words.remove(0),
            _ => {
                self.text = words.remove(1);
                self.target = Some(words.remove(0));
            }
        }
        Ok(())
    }

    async fn run(self, mut cx: Cx) -> Result<Acted, ApiError> {
        let (target, text) = (self.target.clone(), self.text.clone());
        perform(
            &mut cx,
            "typed into",
            Some(self.target.as_deref().unwrap_or("the focused element")),
            self.snapshot_after,
            |tab, deadline| async move {
                let Some(target) = target else {
                    focused(&tab).await?;
                    act::type_text(&tab, &text).await?;
                    return Ok(focused(&tab).await?.get("value").cloned());
                };
                let target = act::pin(&tab, &target, deadline).await?;
                // Clicking a field that has focus moves its caret (into the
                // year of a date field): only one without focus is clicked.
                let has_focus = {
                    let (mut frames, at) = act::target(&tab, &target, deadline).await?;
                    act::lib(&mut frames, &at, &format!("hasFocus({})", at.js())).await?["ok"]
                        == true
                };
                if !has_focus {
                    click_target(&tab, &target, Button::Left, 1, 0, deadline).await?;
                }
                act::type_text(&tab, &text).await?;
                read_value(&tab, &target, deadline).await
            },
        )
        .await
    }

    fn human(out: &Acted) -> String {
        human(out)
    }
}

/// What has focus in the tab's top document ({ok: its description, value}),
/// or an error when nothing does.
async fn focused(tab: &Tab) -> Result<Value, ApiError> {
    let mut frames = tab.frames().await;
    frames.main(tab);
    let v = frames
        .eval(0, "__webrig.lib.focused()", true, "the focused element")
        .await?;
    if v.get("none").is_some() {
        return Err(
            ApiError::invalid("nothing on the page has focus to type into")
                .with_hint("give a target (a ref or selector), or click or focus a field first"),
        );
    }
    Ok(v)
}

async fn read_value(
    tab: &Tab,
    target: &str,
    deadline: tokio::time::Instant,
) -> Result<Option<Value>, ApiError> {
    let (mut frames, at) = act::target(tab, target, deadline).await?;
    let v = act::lib(&mut frames, &at, &format!("changed({})", at.js())).await?;
    Ok(v.get("ok").cloned())
}

/// Replace a field's content: clear it, then insert the text (input and change fire).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fill {
    /// @eN ref from a snapshot, a locator (text=Stop, role=button[name="Stop"], label=Email) or a CSS selector.
    pub target: String,
    /// The new content ("" clears the field). Date, time and the like take
    /// their value's format: date YYYY-MM-DD, time HH:MM, datetime-local
    /// YYYY-MM-DDTHH:MM, month YYYY-MM, week YYYY-Www, color #rrggbb, range a
    /// number.
    pub text: String,
    /// Return a snapshot (full) or only its changes (diff) afterwards.
    #[arg(long, value_enum)]
    pub snapshot_after: Option<After>,
}

impl Command for Fill {
    const NAME: &'static str = "fill";
    const ABOUT: &'static str = "Replace a field's content";
    const SCOPE: Scope = Scope::Tab;
    type Output = Acted;

    async fn run(self, mut cx: Cx) -> Result<Acted, ApiError> {
        let (target, text) = (self.target.clone(), self.text.clone());
        perform_verified(
            &mut cx,
            "filled",
            Some(&self.target),
            self.snapshot_after,
            |tab, deadline| async move {
                let target = act::pin(&tab, &target, deadline).await?;
                let (mut frames, at) = act::target(&tab, &target, deadline).await?;
                act::point(&mut frames, &at, true, false, deadline).await?;
                let v = act::lib(
                    &mut frames,
                    &at,
                    &format!("prepareFill({}, {})", at.js(), json!(text)),
                )
                .await?;
                let label = at.label();
                if v.get("disabled").is_some() {
                    return Err(ApiError::invalid(format!("{label} is disabled")));
                }
                if v.get("readonly").is_some() {
                    return Err(ApiError::invalid(format!("{label} is read-only")));
                }
                if let Some(kind) = v.get("notFillable").and_then(Value::as_str) {
                    return Err(ApiError::invalid(format!(
                        "{label} is a {kind}, not a text field"
                    ))
                    .with_hint(
                        "use select for dropdowns, check/uncheck for checkboxes, upload for files",
                    ));
                }
                if let Some(format) = v.get("malformed").and_then(Value::as_str) {
                    let kind = v["type"].as_str().unwrap_or_default();
                    return Err(ApiError::invalid(format!(
                        "{label} is type={kind}: give {format}"
                    ))
                    .with_hint(format!("{text:?} is not in that format")));
                }
                if let Some(change) = v.get("changed") {
                    return Err(ApiError::new(
                        ErrorCode::Timeout,
                        format!(
                            "{label} was not filled: as it took focus, {}",
                            what_changed(label, change)
                        ),
                    )
                    .with_hint("close or finish what opened, then fill it again"));
                }
                let verify = |want: String| Verify::Fill {
                    target: target.clone(),
                    want,
                };
                // Date, color, range and the like: set in place, as it is now.
                if v["set"] == true {
                    let now = v.get("ok").cloned();
                    let want = now.as_ref().and_then(Value::as_str).unwrap_or_default();
                    return Ok((now.clone(), Some(verify(want.to_string()))));
                }
                let text = v["text"].as_str().unwrap_or(&text).to_string();
                if text.is_empty() {
                    act::lib(&mut frames, &at, &format!("clear({})", at.js())).await?;
                } else {
                    act::insert_text(&tab, &text).await?;
                }
                let v = act::lib(&mut frames, &at, &format!("changed({})", at.js())).await?;
                Ok((v.get("ok").cloned(), Some(verify(text))))
            },
        )
        .await
    }

    fn human(out: &Acted) -> String {
        human(out)
    }
}

/// Press keys or combos in order (Enter; Tab Tab Enter; Control+a), or type
/// text key by key (--text).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Press {
    /// Key names or combos, pressed in order: Enter, Escape, Control+a,
    /// Shift+Tab, a (at most 64).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<String>,
    /// One key or combo (the older form of `keys`).
    #[arg(skip)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// Type this text key by key instead (digits into a date field: 0909).
    #[arg(long)]
    pub text: Option<String>,
    /// Focus this element first (default: whatever has focus).
    #[arg(long)]
    pub target: Option<String>,
    /// Return a snapshot (full) or only its changes (diff) afterwards.
    #[arg(long, value_enum)]
    pub snapshot_after: Option<After>,
}

impl Command for Press {
    const NAME: &'static str = "press";
    const ABOUT: &'static str = "Press keys or key combos in order, or type text key by key";
    const SCOPE: Scope = Scope::Tab;
    type Output = Acted;

    async fn run(self, mut cx: Cx) -> Result<Acted, ApiError> {
        let mut names = self.keys.clone();
        names.extend(self.key.clone());
        if names.is_empty() == self.text.is_none() {
            let what = if names.is_empty() {
                "press needs keys or --text"
            } else {
                "press takes keys or --text, not both"
            };
            return Err(
                ApiError::invalid(what).with_hint("press Tab Tab Enter, or press --text 0909")
            );
        }
        if names.len() > MAX_KEYS {
            return Err(ApiError::invalid(format!(
                "press takes at most {MAX_KEYS} keys ({} given)",
                names.len()
            )));
        }
        if let Some(text) = &self.text
            && text.chars().count() > MAX_PRESS_TEXT
        {
            return Err(ApiError::invalid(format!(
                "press --text takes at most {MAX_PRESS_TEXT} characters"
            ))
            .with_hint("use fill for long text"));
        }
        // Every key is checked before any is pressed.
        let combos = names
            .iter()
            .map(|k| keys::combo(k))
            .collect::<Result<Vec<_>, _>>()?;
        let text = self.text.clone();
        let target = self.target.clone();
        let what = match &self.text {
            Some(t) => format!("{t:?}"),
            None => names.join(" "),
        };
        let label = format!(
            "{what}{}",
            self.target
                .as_ref()
                .map(|t| format!(" on {t}"))
                .unwrap_or_default()
        );
        perform(
            &mut cx,
            "pressed",
            Some(&label),
            self.snapshot_after,
            |tab, deadline| async move {
                if let Some(target) = target {
                    let (mut frames, at) = act::target(&tab, &target, deadline).await?;
                    act::lib(
                        &mut frames,
                        &at,
                        &format!("run({}, el => el.focus())", at.js()),
                    )
                    .await?;
                }
                for combo in &combos {
                    act::press(&tab, combo).await?;
                }
                if let Some(text) = text {
                    act::type_text(&tab, &text).await?;
                }
                Ok(None)
            },
        )
        .await
    }

    fn human(out: &Acted) -> String {
        human(out)
    }
}

/// Choose options of a <select> by value or visible label.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Select {
    /// @eN ref from a snapshot, a locator (label=Country) or a CSS selector of a <select>.
    pub target: String,
    /// Option values or labels (several for a multiple select).
    #[arg(required = true)]
    pub values: Vec<String>,
    /// Return a snapshot (full) or only its changes (diff) afterwards.
    #[arg(long, value_enum)]
    pub snapshot_after: Option<After>,
}

impl Command for Select {
    const NAME: &'static str = "select";
    const ABOUT: &'static str = "Choose options of a select by value or label";
    const SCOPE: Scope = Scope::Tab;
    type Output = Acted;

    async fn run(self, mut cx: Cx) -> Result<Acted, ApiError> {
        if self.values.is_empty() {
            return Err(ApiError::invalid(
                "select needs at least one value or label",
            ));
        }
        let (target, values) = (self.target.clone(), self.values.clone());
        perform_verified(
            &mut cx,
            "selected in",
            Some(&self.target),
            self.snapshot_after,
            |tab, deadline| async move {
                let target = act::pin(&tab, &target, deadline).await?;
                let picked = {
                    let (mut frames, at) = act::target(&tab, &target, deadline).await?;
                    act::point(&mut frames, &at, true, false, deadline).await?;
                    let v = act::lib(
                        &mut frames,
                        &at,
                        &format!("select({}, {})", at.js(), json!(values)),
                    )
                    .await?;
                    if v.get("notSelect").is_some() {
                        return Err(ApiError::invalid(format!(
                            "{} is not a <select>",
                            at.label()
                        )));
                    }
                    if v.get("notMultiple").is_some() {
                        return Err(ApiError::invalid(format!(
                            "{} takes one option",
                            at.label()
                        )));
                    }
                    if v.get("disabled").is_some() {
                        return Err(ApiError::invalid(format!("{} is disabled", at.label())));
                    }
                    if let Some(missing) = v.get("noOption") {
                        return Err(ApiError::not_found(format!(
                            "{} has no option {missing}",
                            at.label()
                        ))
                        .with_hint(format!("its options: {}", v["options"])));
                    }
                    v.get("ok").cloned().unwrap_or(Value::Null)
                };
                let verify = Verify::Select {
                    target,
                    asked: values,
                    picked: picked.clone(),
                };
                Ok((Some(picked), Some(verify)))
            },
        )
        .await
    }

    fn human(out: &Acted) -> String {
        human(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Args;

    /// The API arguments a command line gives, as the CLI sends them.
    fn cli<T: Args + Command + Serialize>(words: &[&str]) -> Value {
        let cmd = T::augment_args(clap::Command::new("t").no_binary_name(true));
        let matches = cmd.try_get_matches_from(words).expect("parses");
        let mut parsed = T::from_arg_matches(&matches).expect("fits");
        parsed.prepare().expect("prepares");
        serde_json::to_value(&parsed).expect("encodes")
    }

    #[test]
    fn type_takes_an_optional_target_before_the_text() {
        assert_eq!(
            cli::<Type>(&["hello"]),
            json!({ "text": "hello", "snapshot_after": null })
        );
        assert_eq!(
            cli::<Type>(&["@e5", "hello"]),
            json!({ "target": "@e5", "text": "hello", "snapshot_after": null })
        );
        let cmd = Type::augment_args(clap::Command::new("t").no_binary_name(true));
        assert!(cmd.try_get_matches_from(["a", "b", "c"]).is_err());
    }

    #[test]
    fn press_takes_a_sequence_text_or_the_older_single_key() {
        assert_eq!(
            cli::<Press>(&["Tab", "Tab", "Enter"])["keys"],
            json!(["Tab", "Tab", "Enter"])
        );
        assert_eq!(cli::<Press>(&["--text", "0909"])["text"], "0909");
        let old: Press = serde_json::from_value(json!({ "key": "Enter" })).expect("the older form");
        assert_eq!((old.key.as_deref(), old.keys.len()), (Some("Enter"), 0));
        assert!(serde_json::from_value::<Press>(json!({ "keys": "Enter", "bogus": 1 })).is_err());
    }
}
