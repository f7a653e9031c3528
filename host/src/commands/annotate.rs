//! `annotate` (a person points at elements of the session's page, the
//! agent gets them as refs) and the inbox of what people send
//! (`inbox list|show|consume|clear|scope`), plus `inbox:ID#N` targets.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Command, Cx, Scope};
use crate::browser::annotate::Annotation;
use crate::error::{ApiError, ErrorCode};
use crate::rig::annotating::{self, Outcome};
use crate::rig::inbox::{self, Entry, SCOPE_TTL_MS, Source, Summary};

/// What `annotate` keeps back from its deadline to read and store a send.
const COLLECT_MS: u64 = 3_000;

/// A duration as people write it: `120s`, `2m`, `500ms`, or seconds.
fn duration_ms(raw: &str) -> Result<u64, String> {
    let raw = raw.trim();
    let (num, unit) = match raw.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => raw.split_at(i),
        None => (raw, "s"),
    };
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{raw:?} is not a duration (120s, 2m, 500ms)"))?;
    let ms = match unit {
        "ms" => n,
        "s" => n.saturating_mul(1000),
        "m" => n.saturating_mul(60_000),
        _ => return Err(format!("{raw:?}: the unit is ms, s or m")),
    };
    if ms == 0 {
        return Err("the timeout must be more than 0".into());
    }
    Ok(ms)
}

/// Let a person point at elements of the page (hover, click, a note each,
/// Enter sends, Esc cancels) and wait for what they send: each element's
/// ref, ranked selectors, role, name, text, box and styles, redacted.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Annotate {
    /// How long the person has, e.g. 120s or 2m (at most the daemon's
    /// longest deadline, limits.timeout_max_ms; default 120s).
    #[arg(long = "timeout", id = "annotate_timeout", value_name = "DURATION", value_parser = duration_ms)]
    #[serde(default, rename = "timeout_ms")]
    pub timeout_ms: Option<u64>,
    /// The line the overlay shows the person.
    #[arg(long)]
    #[serde(default)]
    pub prompt: Option<String>,
    /// Skip the screenshot (by default one is saved to a file, with the
    /// picked boxes drawn).
    #[arg(long)]
    #[serde(default)]
    pub no_screenshot: bool,
}

impl Command for Annotate {
    const NAME: &'static str = "annotate";
    const ABOUT: &'static str =
        "Let a person point at elements of the page, with notes; wait for what they send";
    const SCOPE: Scope = Scope::Daemon;
    const DEFAULT_TIMEOUT_MS: Option<u64> = Some(120_000);
    type Output = Outcome;

    async fn run(self, cx: Cx) -> Result<Outcome, ApiError> {
        if let Some(p) = &self.prompt
            && p.chars().count() > 300
        {
            return Err(ApiError::invalid("--prompt takes at most 300 characters"));
        }
        let name = cx.session_name().to_string();
        super::envelope::check_session_name(&name)?;
        let state = cx.state().clone();
        let slot = state.session(&name, false)?;
        let (tab, headless) = {
            let mut session = slot.lock_until(&name, cx.deadline()).await?;
            (session.tab(cx.tab_id()).await?, session.is_headless())
        };
        let until = cx.deadline() - std::time::Duration::from_millis(COLLECT_MS);
        annotating::capture(
            &state,
            &tab,
            annotating::Options {
                session: &name,
                prompt: self.prompt.as_deref(),
                screenshot: !self.no_screenshot,
                source: Source::Annotate,
                until,
            },
        )
        .await
        .map_err(|e| {
            if headless && e.code() == ErrorCode::Timeout {
                // Nobody could have seen it.
                ApiError::timeout(format!(
                    "{} (this session's browser is headless: nobody saw the overlay)",
                    e.message()
                ))
                .with_hint(
                    "launch it headed (webrig launch --headed) or bind your own Chrome \
                     (webrig connect --extension), then annotate again",
                )
            } else {
                e
            }
        })
    }

    fn human(out: &Outcome) -> String {
        let Some(a) = &out.annotation else {
            return "the person cancelled".into();
        };
        let id = out.stored.as_ref().map(|s| s.id.as_str()).unwrap_or("?");
        format!("inbox {id}: {}", human_annotation(a, id))
    }
}

fn human_annotation(a: &Annotation, id: &str) -> String {
    let mut s = format!("{} {:?}\n", a.url, a.title);
    for it in &a.items {
        let what = match &it.role {
            Some(r) => format!("{r} {:?}", it.name),
            None => format!("<{}>", it.tag),
        };
        s.push_str(&format!(
            "  #{} {} {what}{}",
            it.n,
            if it.gone {
                "(gone)"
            } else {
                it.reference.as_str()
            },
            if it.note.is_empty() {
                String::new()
            } else {
                format!(": {}", it.note)
            }
        ));
        if let Some(c) = it.candidates.first() {
            s.push_str(&format!("\n     {}  (or inbox:{id}#{})", c.value, it.n));
        }
        s.push('\n');
    }
    if let Some(p) = &a.screenshot {
        s.push_str(&format!("  screenshot {}\n", p.display()));
    }
    if !a.redacted.is_empty() {
        let n: usize = a.redacted.iter().map(|m| m.count).sum();
        s.push_str(&format!("  {n} secrets masked\n"));
    }
    s.trim_end().to_string()
}

/// The scope a caller reads as: the one it named, else none (all).
fn scope_arg(scope: &Option<String>) -> Result<Option<&str>, ApiError> {
    if let Some(s) = scope {
        inbox::check_scope(s)?;
    }
    Ok(scope.as_deref())
}

/// List what people sent (unread first; --all for read ones too).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InboxList {
    /// Only what is for this scope (its own, unscoped and ambiguous sends).
    #[arg(long)]
    #[serde(default)]
    pub scope: Option<String>,
    /// Read entries too.
    #[arg(long)]
    #[serde(default)]
    pub all: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Listed {
    pub entries: Vec<Summary>,
    /// The scopes agents have active now.
    pub scopes: Vec<String>,
}

impl Command for InboxList {
    const NAME: &'static str = "inbox list";
    const ABOUT: &'static str = "List what people sent from the browser";
    const SCOPE: Scope = Scope::Daemon;
    const READ_ONLY: bool = true;
    type Output = Listed;

    async fn run(self, cx: Cx) -> Result<Listed, ApiError> {
        let scope = scope_arg(&self.scope)?;
        let inbox = cx.state().inbox();
        Ok(Listed {
            entries: inbox.list(scope, self.all)?,
            scopes: inbox.active(),
        })
    }

    fn human(out: &Listed) -> String {
        if out.entries.is_empty() {
            return "the inbox is empty".into();
        }
        out.entries
            .iter()
            .map(|e| {
                format!(
                    "{} {} {} item(s) {}{}{}",
                    e.id,
                    if e.read { "read  " } else { "unread" },
                    e.items,
                    e.url,
                    if e.note.is_empty() {
                        String::new()
                    } else {
                        format!(" — {}", e.note)
                    },
                    if e.ambiguous.is_empty() {
                        String::new()
                    } else {
                        format!(" (ambiguous: {})", e.ambiguous.join(", "))
                    }
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Show one entry in full (it stays unread).
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InboxShow {
    /// The entry's id (see `inbox list`).
    pub id: String,
}

impl Command for InboxShow {
    const NAME: &'static str = "inbox show";
    const ABOUT: &'static str = "Show one entry of the inbox in full";
    const SCOPE: Scope = Scope::Daemon;
    const READ_ONLY: bool = true;
    type Output = Entry;

    async fn run(self, cx: Cx) -> Result<Entry, ApiError> {
        cx.state().inbox().get(&self.id)
    }

    fn human(out: &Entry) -> String {
        human_annotation(&out.annotation, &out.id)
    }
}

/// Take the next unread entry for your scope (or the one named), marked read.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InboxConsume {
    /// The entry (default: the oldest unread one for the scope).
    pub id: Option<String>,
    /// Your scope (MCP: the client's name when not given).
    #[arg(long)]
    #[serde(default)]
    pub scope: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Consumed {
    /// None: nothing unread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<Entry>,
    /// Unread entries left for the scope.
    pub unread: usize,
}

impl Command for InboxConsume {
    const NAME: &'static str = "inbox consume";
    const ABOUT: &'static str = "Take the next unread entry of the inbox (marked read)";
    const SCOPE: Scope = Scope::Daemon;
    type Output = Consumed;

    async fn run(self, cx: Cx) -> Result<Consumed, ApiError> {
        let scope = scope_arg(&self.scope)?;
        let inbox = cx.state().inbox();
        if let Some(s) = scope {
            inbox.register(s, SCOPE_TTL_MS)?;
        }
        let entry = inbox.consume(self.id.as_deref(), scope)?;
        Ok(Consumed {
            entry,
            unread: inbox.list(scope, false)?.len(),
        })
    }

    fn human(out: &Consumed) -> String {
        match &out.entry {
            Some(e) => format!(
                "inbox {}: {}\n({} unread left)",
                e.id,
                human_annotation(&e.annotation, &e.id),
                out.unread
            ),
            None => "nothing unread".into(),
        }
    }
}

/// Remove entries: the read ones (default), one by id, or --all.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InboxClear {
    /// Only this entry.
    #[arg(conflicts_with = "all")]
    pub id: Option<String>,
    /// Every entry, unread ones too.
    #[arg(long)]
    #[serde(default)]
    pub all: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Cleared {
    pub removed: usize,
}

impl Command for InboxClear {
    const NAME: &'static str = "inbox clear";
    const ABOUT: &'static str = "Remove read entries (or one, or all) from the inbox";
    const SCOPE: Scope = Scope::Daemon;
    const DESTRUCTIVE: bool = true;
    type Output = Cleared;

    async fn run(self, cx: Cx) -> Result<Cleared, ApiError> {
        if self.id.is_some() && self.all {
            return Err(ApiError::invalid("give an id or --all, not both"));
        }
        Ok(Cleared {
            removed: cx.state().inbox().clear(self.id.as_deref(), self.all)?,
        })
    }

    fn human(out: &Cleared) -> String {
        format!("removed {}", out.removed)
    }
}

/// Say that sends from the browser are for you: registers (or renews, for
/// an hour) a scope; a send goes to the one active scope.
#[derive(Debug, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InboxScope {
    /// 1-64 letters, digits, '.', '_' or '-'.
    pub name: String,
    /// Give the scope up instead.
    #[arg(long)]
    #[serde(default)]
    pub release: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Scopes {
    /// The scopes active now.
    pub active: Vec<String>,
}

impl Command for InboxScope {
    const NAME: &'static str = "inbox scope";
    const ABOUT: &'static str = "Register (or release) the inbox scope sends go to";
    const SCOPE: Scope = Scope::Daemon;
    type Output = Scopes;

    async fn run(self, cx: Cx) -> Result<Scopes, ApiError> {
        let inbox = cx.state().inbox();
        if self.release {
            inbox.release(&self.name)?;
        } else {
            inbox.register(&self.name, SCOPE_TTL_MS)?;
        }
        Ok(Scopes {
            active: inbox.active(),
        })
    }

    fn human(out: &Scopes) -> String {
        match out.active.len() {
            0 => "no scope is active: sends are stored for whoever reads".into(),
            1 => format!("sends go to {}", out.active[0]),
            _ => format!(
                "several scopes are active ({}): sends are flagged ambiguous",
                out.active.join(", ")
            ),
        }
    }
}

/// An `inbox:ID#N` target, rewritten to the ref it names.
pub struct InboxTarget {
    label: String,
    reference: String,
    hint: String,
}

/// Rewrites `args.target` when it is `inbox:ID#N`: to the item's ref, on
/// the tab it was picked on, in the session it was picked in (refs are a
/// session's and a tab's). Another session or tab is refused; a page that
/// moved on fails closed when the ref is resolved.
pub fn inbox_target(
    state: &crate::rig::State,
    session: &str,
    tab: &mut Option<String>,
    args: &mut Value,
) -> Result<Option<InboxTarget>, ApiError> {
    let Some(raw) = args.get("target").and_then(Value::as_str) else {
        return Ok(None);
    };
    let Some((entry, i)) = state.inbox().target(raw)? else {
        return Ok(None);
    };
    let label = raw.trim().to_string();
    let a = &entry.annotation;
    let item = &a.items[i];
    if a.session != session {
        return Err(ApiError::invalid(format!(
            "{label} was picked in session {:?}, not {session:?}",
            a.session
        ))
        .with_hint(format!("use --session {}", a.session)));
    }
    match tab {
        Some(t) if *t != a.tab => {
            return Err(ApiError::invalid(format!(
                "{label} was picked on tab {}, not {t}",
                a.tab
            )));
        }
        _ => *tab = Some(a.tab.clone()),
    }
    if item.gone || item.reference.is_empty() {
        return Err(ApiError::not_found(format!(
            "{label}: the element had left the page when it was sent"
        )));
    }
    let hint = match item.candidates.first() {
        Some(c) => format!(
            "the page moved on since it was picked: take a snapshot, or try its selector {}",
            c.value
        ),
        None => "the page moved on since it was picked: take a snapshot and find it again".into(),
    };
    args["target"] = Value::String(item.reference.clone());
    Ok(Some(InboxTarget {
        label,
        reference: item.reference.clone(),
        hint,
    }))
}

impl InboxTarget {
    /// A failure on the ref, told as one on the inbox target.
    pub fn explain(&self, e: ApiError) -> ApiError {
        if e.code() != ErrorCode::NotFound {
            return e;
        }
        ApiError::not_found(format!(
            "{} ({}): {}",
            self.label,
            self.reference,
            e.message()
        ))
        .with_hint(self.hint.clone())
    }
}
