//! Annotations: a person points at elements of a page and says something
//! about each; the agent gets them as refs it can act on.
//!
//! Owns the capture (the overlay of `page/annotate.js`, opened in webrig's
//! isolated world of the tab's main frame, watched until the person sends,
//! cancels or the page goes away), the payload built from it (refs handed
//! out like a snapshot's, ranked selector candidates, the element's role,
//! name, text, box and key styles), its redaction (with a report of what
//! was masked) and its byte budget. Storing a payload is the inbox's job
//! (`rig::inbox`); the screenshot is the caller's (a file, never inline).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::devtools::redact::{self, MASK};
use super::tab::Tab;
use crate::error::{ApiError, ErrorCode};

/// The most compact JSON a payload takes, in bytes.
pub const BUDGET: usize = 24 * 1024;

/// Where a capture is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The overlay is up.
    Open,
    Sent,
    Cancelled,
    /// The page took the overlay away (again and again).
    Removed,
    /// The document went away (a navigation, a reload, a closed tab).
    Gone,
}

/// One selector for a picked element, as `click` takes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Candidate {
    /// `testid`, `role`, `css` or `text`.
    pub kind: String,
    pub value: String,
    /// 0 to 1: how likely it still names this element after the page changes.
    pub confidence: f64,
    /// How many visible elements it matched when picked (more than one:
    /// the value picks this one with `>> nth=`; 0: not counted, the page
    /// was too large to count every candidate in time).
    pub matches: u32,
}

/// A box in CSS pixels of the top frame's viewport.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Rect {
    pub x: i64,
    pub y: i64,
    pub width: i64,
    pub height: i64,
}

/// One picked element.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct Item {
    /// 1-based, in the order the person picked (`inbox:ID#N`).
    pub n: usize,
    /// Its ref in the session's snapshot of the page, valid while the page
    /// stays (then stale, like every ref). Empty when the element was gone.
    #[serde(rename = "ref")]
    pub reference: String,
    pub tag: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    pub name: String,
    pub text: String,
    pub rect: Rect,
    /// The frame it is in: `main`, or `f<N>` (its refs are `@f<N>e<M>`).
    pub frame: String,
    /// The frame's URL, for an element in a child frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_url: Option<String>,
    /// Ranked, best first.
    pub candidates: Vec<Candidate>,
    /// Key computed styles.
    pub styles: BTreeMap<String, String>,
    /// Identifying attributes (id, class, href, test ids, …).
    pub attributes: BTreeMap<String, String>,
    /// What the person wrote about it.
    pub note: String,
    /// The element left the page before the send was read.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gone: bool,
}

/// Something the redaction masked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Masked {
    /// Where: `url`, `title`, `items[2].note`, `items[1].candidates`, …
    pub field: String,
    /// How many secrets (keys, tokens, emails, secret parameters).
    pub count: usize,
}

/// What a person sent: the page, the elements and their notes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Annotation {
    pub url: String,
    pub title: String,
    /// When it was sent, in ms since the Unix epoch.
    pub at_ms: u64,
    pub session: String,
    pub tab: String,
    pub items: Vec<Item>,
    /// The page with the picked boxes drawn, as a file (never inline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<std::path::PathBuf>,
    /// What the redaction masked (empty: nothing).
    pub redacted: Vec<Masked>,
    /// What was shortened to keep the payload in its budget.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trimmed: Vec<String>,
}

impl Annotation {
    /// The compact JSON's length in bytes.
    pub fn compact_len(&self) -> usize {
        serde_json::to_vec(self)
            .map(|v| v.len())
            .unwrap_or(usize::MAX)
    }
}

/// Calls `__webrig.lib.<call>` in the tab's main frame. `fresh_ok`: the
/// world may be made (opening); else a document that went away is a stale
/// (`not_found`) error.
async fn main_call(tab: &Tab, call: &str, fresh_ok: bool) -> Result<Value, ApiError> {
    let mut frames = tab.frames().await;
    frames.main(tab);
    frames
        .eval(0, &format!("__webrig.lib.{call}"), fresh_ok, "annotate")
        .await
}

/// Opens the overlay of capture `id` in the tab's main frame (`prompt`:
/// the line it shows).
pub async fn open(tab: &Tab, id: &str, prompt: Option<&str>) -> Result<(), ApiError> {
    let args = json!({ "prompt": prompt, "id": id });
    main_call(tab, &format!("annotOpen({args})"), true).await?;
    Ok(())
}

/// Where the capture is. A document that went away is [`Phase::Gone`].
pub async fn phase(tab: &Tab) -> Result<Phase, ApiError> {
    if tab.is_detached() {
        return Ok(Phase::Gone);
    }
    let v = match main_call(tab, "annotState()", false).await {
        Ok(v) => v,
        Err(e) if e.code() == ErrorCode::NotFound => return Ok(Phase::Gone),
        Err(e) => return Err(e),
    };
    Ok(match v["state"].as_str() {
        Some("open") => Phase::Open,
        Some("sent") => Phase::Sent,
        Some("cancelled") => Phase::Cancelled,
        Some("removed") => Phase::Removed,
        _ => Phase::Gone,
    })
}

/// The picked elements, each given a ref in the session's snapshot refs
/// (recorded, so `click @eN` takes it), plus the page's URL and title.
/// Nothing here is redacted yet: see [`redact`].
pub async fn collect(tab: &Tab, session: &str, at_ms: u64) -> Result<Annotation, ApiError> {
    let mut frames = tab.frames().await;
    frames.main(tab);
    let first = frames.next_ref();
    let args = json!({ "prefix": "", "nextRef": first });
    let v = frames
        .eval(
            0,
            &format!("__webrig.lib.annotCollect({args})"),
            false,
            "annotate",
        )
        .await?;
    if v.get("none").is_some() {
        return Err(ApiError::not_found("the annotation overlay is gone"));
    }
    frames.handed_out(0, first, &v);
    let mut items = Vec::new();
    for (i, it) in v["items"].as_array().into_iter().flatten().enumerate() {
        let mut item = item_of(it)?;
        if let Some(inner) = it.get("inner") {
            // Picked inside a frame: the element there, else the <iframe>.
            match inside(tab, &mut frames, inner).await {
                Ok(Some(found)) => {
                    item = Item {
                        note: item.note,
                        ..found
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    tracing::debug!(error = %e, "annotate: the frame's element was not found")
                }
            }
        }
        item.n = i + 1;
        items.push(item);
    }
    drop(frames);
    Ok(Annotation {
        url: v["url"].as_str().unwrap_or_default().to_string(),
        title: v["title"].as_str().unwrap_or_default().to_string(),
        at_ms,
        session: session.to_string(),
        tab: tab.id().to_string(),
        items,
        ..Default::default()
    })
}

/// An item as the page library describes it (in the main frame until
/// said otherwise).
fn item_of(it: &Value) -> Result<Item, ApiError> {
    let mut item: Item = serde_json::from_value(it.clone())
        .map_err(|e| ApiError::internal(format!("the page library's item: {e}")))?;
    item.frame = "main".into();
    Ok(item)
}

/// The element at a point inside a child frame of the main frame (`inner`:
/// the `<iframe>`'s index in the last collect and the point in its
/// viewport): found by that frame's own world, given a ref there
/// (`@f<N>e<M>`), its box moved into the top frame's viewport. Cross-origin
/// frames too: the parent never looks inside.
async fn inside(
    tab: &Tab,
    frames: &mut super::frames::Frames,
    inner: &Value,
) -> Result<Option<Item>, ApiError> {
    let index = inner["index"].as_u64().unwrap_or(0);
    let child =
        super::snapshot::child_frame(tab, frames, 0, &format!("__webrig.annotFrames[{index}]"))
            .await?;
    let first = frames.next_ref();
    let args = json!({
        "prefix": format!("f{child}"),
        "nextRef": first,
        "x": inner["x"].as_f64().unwrap_or(0.0),
        "y": inner["y"].as_f64().unwrap_or(0.0),
    });
    let v = frames
        .eval(
            child,
            &format!("__webrig.lib.annotAt({args})"),
            true,
            "annotate",
        )
        .await?;
    if v.get("item").is_none() {
        return Ok(None);
    }
    frames.handed_out(child, first, &v);
    let mut item = item_of(&v["item"])?;
    let (dx, dy) = frames.offset(child).await?;
    item.rect.x += dx.round() as i64;
    item.rect.y += dy.round() as i64;
    item.frame = format!("f{child}");
    item.frame_url = v["url"].as_str().map(str::to_string);
    Ok(Some(item))
}

/// Takes capture `id`'s overlay away (nothing when the page already did,
/// went, or shows another capture's).
pub async fn close(tab: &Tab, id: &str) {
    let _ = main_call(tab, &format!("annotClose({})", json!(id)), false).await;
}

/// How many masks `s` holds.
fn masks_in(s: &str) -> usize {
    s.matches(MASK).count()
}

/// `s` with secrets masked: what devtools masks (keys, tokens, secret
/// parameters in URLs, `password=…`) plus email addresses. Returns the
/// text and how many secrets were masked.
pub fn mask_text(s: &str) -> (String, usize) {
    masked(s, redact::text)
}

fn mask_url(s: &str) -> (String, usize) {
    masked(s, redact::url)
}

/// `s` through `devtools` (a redact rule), then emails; and how many masks
/// that added.
fn masked(s: &str, devtools: fn(&str) -> String) -> (String, usize) {
    let out = mask_emails(&devtools(s));
    let count = masks_in(&out).saturating_sub(masks_in(s));
    (out, count)
}

/// Email addresses masked (`a.b+c@example.org` → the mask). One pass: each
/// `@` looks left over the local part and right over the domain, neither
/// crossing another `@`, so the cost stays linear.
pub fn mask_emails(s: &str) -> String {
    let local = |c: char| c.is_ascii_alphanumeric() || "._%+-".contains(c);
    let domain = |c: char| c.is_ascii_alphanumeric() || c == '.' || c == '-';
    let mut out = String::with_capacity(s.len());
    let mut done = 0;
    for (at, _) in s.match_indices('@') {
        if at < done {
            continue;
        }
        let start = s[done..at]
            .char_indices()
            .rev()
            .take_while(|(_, c)| local(*c))
            .last()
            .map(|(i, _)| done + i);
        let end = at
            + 1
            + s[at + 1..]
                .char_indices()
                .take_while(|(_, c)| domain(*c))
                .last()
                .map(|(i, c)| i + c.len_utf8())
                .unwrap_or(0);
        let host = s[at + 1..end].trim_end_matches('.');
        let end = at + 1 + host.len();
        let dotted = host.rsplit_once('.').is_some_and(|(l, tld)| {
            !l.is_empty() && tld.len() >= 2 && tld.chars().all(|c| c.is_ascii_alphabetic())
        });
        match start {
            Some(start) if dotted => {
                out.push_str(&s[done..start]);
                out.push_str(MASK);
                done = end;
            }
            _ => {}
        }
    }
    out.push_str(&s[done..]);
    out
}

/// Masks the payload's page-controlled and person-written text in place
/// and records what was masked in `a.redacted`. A candidate whose value
/// held a secret is dropped (a masked selector would name nothing).
pub fn redact(a: &mut Annotation) {
    let mut report = Vec::new();
    let mut note = |field: String, count: usize| {
        if count > 0 {
            report.push(Masked { field, count });
        }
    };
    let (url, n) = mask_url(&a.url);
    a.url = url;
    note("url".into(), n);
    let (title, n) = mask_text(&a.title);
    a.title = title;
    note("title".into(), n);
    for (i, item) in a.items.iter_mut().enumerate() {
        for (field, value) in [
            ("name", &mut item.name),
            ("text", &mut item.text),
            ("note", &mut item.note),
        ] {
            let (masked, n) = mask_text(value);
            *value = masked;
            note(format!("items[{i}].{field}"), n);
        }
        if let Some(u) = &mut item.frame_url {
            let (masked, n) = mask_url(u);
            *u = masked;
            note(format!("items[{i}].frame_url"), n);
        }
        let mut n = 0;
        for (k, v) in item.attributes.iter_mut() {
            let (masked, c) = if k == "href" {
                mask_url(v)
            } else {
                mask_text(v)
            };
            *v = masked;
            n += c;
        }
        note(format!("items[{i}].attributes"), n);
        let before = item.candidates.len();
        item.candidates.retain(|c| mask_text(&c.value).1 == 0);
        note(
            format!("items[{i}].candidates"),
            before - item.candidates.len(),
        );
    }
    a.redacted = report;
}

/// Keeps the compact payload within [`BUDGET`]: the least useful parts are
/// shortened first (styles, then attributes, text and candidates), the
/// person's notes last. What was shortened is listed in `a.trimmed`.
pub fn fit(a: &mut Annotation) {
    type Step = (&'static str, fn(&mut Item));
    const STEPS: &[Step] = &[
        ("styles: the key four kept", |it| {
            it.styles.retain(|k, _| {
                matches!(
                    k.as_str(),
                    "display" | "color" | "background-color" | "font-size"
                )
            })
        }),
        ("attribute values to 80 characters", |it| {
            for v in it.attributes.values_mut() {
                cut(v, 80)
            }
        }),
        ("text to 120 characters", |it| cut(&mut it.text, 120)),
        ("names to 120 characters", |it| cut(&mut it.name, 120)),
        ("candidates: the best 3 kept", |it| {
            it.candidates.truncate(3)
        }),
        ("styles dropped", |it| it.styles.clear()),
        ("attributes dropped", |it| it.attributes.clear()),
        ("text to 40 characters", |it| cut(&mut it.text, 40)),
        ("notes to 600 characters", |it| cut(&mut it.note, 600)),
        ("candidates: the best kept", |it| it.candidates.truncate(1)),
        ("notes to 200 characters", |it| cut(&mut it.note, 200)),
    ];
    for (what, step) in STEPS {
        if a.compact_len() <= BUDGET {
            return;
        }
        a.items.iter_mut().for_each(step);
        a.trimmed.push((*what).to_string());
    }
    cut(&mut a.title, 200);
    // Still over (a title or URL of kilobytes, or many long notes): the
    // last items go, and say so.
    while a.compact_len() > BUDGET && a.items.len() > 1 {
        let gone = a.items.pop().map(|i| i.n).unwrap_or_default();
        a.trimmed.push(format!("item {gone} dropped"));
    }
    if a.compact_len() > BUDGET {
        cut(&mut a.url, 2000);
        a.trimmed.push("url to 2000 characters".into());
    }
}

/// `s` cut to `max` characters, with an ellipsis when cut.
fn cut(s: &mut String, max: usize) {
    if s.chars().count() > max {
        let end = s
            .char_indices()
            .nth(max.saturating_sub(1))
            .map(|(i, _)| i)
            .unwrap_or(s.len());
        s.truncate(end);
        s.push('…');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(note: &str) -> Item {
        Item {
            n: 1,
            reference: "@e3".into(),
            tag: "button".into(),
            role: Some("button".into()),
            name: "Pay".into(),
            text: "Pay".into(),
            note: note.into(),
            candidates: vec![
                Candidate {
                    kind: "role".into(),
                    value: "role=button[name=\"Pay\"]".into(),
                    confidence: 0.9,
                    matches: 1,
                },
                Candidate {
                    kind: "text".into(),
                    value: "text=\"token ghp_R2d2C3poX9yZ8wV7uT6sQ5pO4nM3lK2jI1hG\"".into(),
                    confidence: 0.7,
                    matches: 1,
                },
            ],
            ..Default::default()
        }
    }

    #[test]
    fn emails_are_masked_and_nothing_else_moves() {
        assert_eq!(
            mask_emails("write to a.b+c@example.org now"),
            format!("write to {MASK} now")
        );
        assert_eq!(
            mask_emails("x@y and @handle and a@b"),
            "x@y and @handle and a@b"
        );
        assert_eq!(
            mask_emails("mail jo@mail.example.co.uk."),
            format!("mail {MASK}.")
        );
        assert_eq!(mask_emails("é@é.com ü"), "é@é.com ü");
        let bomb = format!("{}{}", "@".repeat(100_000), "a".repeat(100_000));
        assert_eq!(mask_emails(&bomb), bomb);
        assert_eq!(mask_emails("a@b.cc@d.ee"), format!("{MASK}@d.ee"));
    }

    #[test]
    fn redaction_masks_and_reports_and_drops_secret_candidates() {
        let mut a = Annotation {
            url: "https://shop.test/cart?session=abcdef0123456789&q=shoes".into(),
            title: "Cart of jane@example.com".into(),
            items: vec![item(
                "my key is sk-live_0123456789abcdefghijklmn, mail me at jane@example.com",
            )],
            ..Default::default()
        };
        redact(&mut a);
        assert!(!a.url.contains("abcdef0123456789"), "{}", a.url);
        assert!(a.url.contains("q=shoes"), "{}", a.url);
        assert!(!a.title.contains("jane@"), "{}", a.title);
        let note = &a.items[0].note;
        assert!(
            !note.contains("sk-live") && !note.contains("jane@"),
            "{note}"
        );
        assert_eq!(a.items[0].candidates.len(), 1);
        let fields: Vec<_> = a.redacted.iter().map(|m| m.field.as_str()).collect();
        assert!(
            fields.contains(&"url") && fields.contains(&"title"),
            "{fields:?}"
        );
        assert!(
            fields.contains(&"items[0].note") && fields.contains(&"items[0].candidates"),
            "{fields:?}"
        );
        let n = a
            .redacted
            .iter()
            .find(|m| m.field == "items[0].note")
            .map(|m| m.count);
        assert_eq!(n, Some(2), "{:?}", a.redacted);
    }

    #[test]
    fn the_budget_holds_and_notes_go_last() {
        let mut a = Annotation {
            url: "https://x.test/".into(),
            ..Default::default()
        };
        for n in 1..=20 {
            let mut it = item(&"n".repeat(500));
            it.n = n;
            it.text = "t".repeat(500);
            it.styles = (0..18)
                .map(|i| (format!("style-{i}"), "v".repeat(40)))
                .collect();
            it.attributes = (0..8).map(|i| (format!("a{i}"), "v".repeat(300))).collect();
            a.items.push(it);
        }
        assert!(a.compact_len() > BUDGET);
        fit(&mut a);
        assert!(a.compact_len() <= BUDGET, "{}", a.compact_len());
        assert_eq!(a.items.len(), 20);
        assert!(
            a.items.iter().all(|i| i.note.len() == 500),
            "notes kept whole"
        );
        assert!(!a.trimmed.is_empty());

        // Notes of 2 000 characters each: cut, never past the budget.
        for it in &mut a.items {
            it.note = "é".repeat(2000);
        }
        fit(&mut a);
        assert!(a.compact_len() <= BUDGET, "{}", a.compact_len());
        // A small payload is left alone.
        let mut small = Annotation {
            items: vec![item("fine")],
            ..Default::default()
        };
        let before = small.clone();
        fit(&mut small);
        assert_eq!(small, before);
    }
}
