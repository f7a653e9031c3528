//! Reading from the page: text, HTML, form values, attributes, element boxes.
//!
//! Owns the small page-side functions and how their failures (no match, bad
//! selector, stale ref) become API errors. Targets are refs from a snapshot,
//! CSS selectors or locators, resolved in webrig's isolated world.

use serde_json::{Value, json};
use tokio::time::Instant;

use super::actions;
use super::tab::Tab;
use crate::error::ApiError;

/// The script that reads a page's design tokens (colours by painted area,
/// fonts, type, spacing, radii, shadows) from computed styles, for the WIT
/// `design.tokens` import. One expression, evaluated in the page; host
/// code, never guest-supplied.
pub const DESIGN_TOKENS_JS: &str = include_str!("page/design_tokens.js");

/// Runs `body` (a JS function body over `el` and `arg`) on the target (a ref
/// from a snapshot or a CSS selector), or on `document.documentElement` when
/// `target` is None. The function's return value must be JSON.
pub async fn on_element(
    tab: &Tab,
    target: Option<&str>,
    body: &str,
    arg: Value,
    deadline: Instant,
) -> Result<Value, ApiError> {
    let Some(raw) = target else {
        let script = format!("((el, arg) => {{ {body} }})(document.documentElement, {arg})");
        return tab.eval(&script).await;
    };
    let (mut frames, at) = actions::target(tab, raw, deadline).await?;
    let v = actions::lib(
        &mut frames,
        &at,
        &format!("run({}, (el, arg) => {{ {body} }}, {arg})", at.js()),
    )
    .await?;
    Ok(v.get("ok").cloned().unwrap_or(Value::Null))
}

/// A page-side read that was measured before it was brought back.
#[derive(Debug, Clone, PartialEq)]
pub enum Capped<T> {
    Fits(T),
    /// Not brought back: its JSON has at least this many UTF-16 units (so
    /// at least as many UTF-8 bytes).
    TooLarge(usize),
}

/// The tail of a page-side read that yields a string `s`: the string, or its
/// length alone when it is longer than `arg.max`.
const AT_MOST: &str = "return typeof s === 'string' && s.length + 2 > arg.max \
                       ? { too_large: s.length + 2 } : s";

fn capped_str(v: Value) -> Capped<String> {
    match v["too_large"].as_u64() {
        Some(n) => Capped::TooLarge(usize::try_from(n).unwrap_or(usize::MAX)),
        None => Capped::Fits(str_of(v)),
    }
}

/// `(root) => text`: the text a person reads under `root`, shadow content
/// included. `innerText` leaves out what open shadow roots render, so a
/// subtree that holds one is read through the composed tree: `innerText` of
/// each part without shadow roots, shadow roots and slots walked, a line
/// break around block boxes. Without shadow roots it is `innerText` itself.
pub const DEEP_TEXT: &str = r#"((root) => {
  // innerText sees neither shadow roots nor what a <slot> shows.
  const hasShadow = (n) => !!n.shadowRoot || n.tagName === 'SLOT'
    || [...n.querySelectorAll('*')].some((e) => e.shadowRoot || e.tagName === 'SLOT');
  if (!root || root.nodeType !== 1 || !hasShadow(root)) return root ? (root.innerText ?? root.textContent) : '';
  const walk = (n) => {
    if (n.nodeType === 3) return n.data.replace(/\s+/g, ' ');
    if (n.nodeType !== 1 && n.nodeType !== 11) return '';
    if (n.nodeType === 1) {
      if (n.tagName === 'SLOT') {
        const got = n.assignedNodes({ flatten: true });
        return (got.length ? got : [...n.childNodes]).map(walk).join('');
      }
      const s = getComputedStyle(n);
      if (s.display === 'none' || ['SCRIPT', 'STYLE', 'TEMPLATE'].includes(n.tagName)) return '';
      if (n.tagName === 'BR') return '\n';
      const inner = n.shadowRoot || hasShadow(n)
        ? [...(n.shadowRoot || n).childNodes].map(walk).join('')
        : (s.visibility === 'hidden' ? '' : n.innerText);
      const block = !/^(inline|contents|ruby)/.test(s.display);
      return block ? '\n' + inner + '\n' : inner;
    }
    return [...n.childNodes].map(walk).join('');
  };
  return walk(root).replace(/[ \t]*\n[ \t\n]*/g, '\n').replace(/ {2,}/g, ' ').trim();
})"#;

fn text_of(selector: Option<&str>) -> String {
    if selector.is_none() {
        format!("{DEEP_TEXT}(document.body || el)")
    } else {
        format!("{DEEP_TEXT}(el)")
    }
}

pub async fn text(
    tab: &Tab,
    selector: Option<&str>,
    deadline: Instant,
) -> Result<String, ApiError> {
    let body = format!("return {}", text_of(selector));
    Ok(str_of(
        on_element(tab, selector, &body, Value::Null, deadline).await?,
    ))
}

/// The visible text, unless its JSON would be longer than `max`.
pub async fn text_at_most(
    tab: &Tab,
    selector: Option<&str>,
    max: usize,
    deadline: Instant,
) -> Result<Capped<String>, ApiError> {
    let body = format!("const s = {}; {AT_MOST}", text_of(selector));
    let v = on_element(tab, selector, &body, json!({ "max": max }), deadline).await?;
    Ok(capped_str(v))
}

/// The HTML, unless its JSON would be longer than `max`.
pub async fn html_at_most(
    tab: &Tab,
    selector: Option<&str>,
    inner: bool,
    max: usize,
    deadline: Instant,
) -> Result<Capped<String>, ApiError> {
    let body = format!("const s = arg.inner ? el.innerHTML : el.outerHTML; {AT_MOST}");
    let v = on_element(
        tab,
        selector,
        &body,
        json!({ "inner": inner, "max": max }),
        deadline,
    )
    .await?;
    Ok(capped_str(v))
}

pub async fn value(tab: &Tab, selector: &str, deadline: Instant) -> Result<Value, ApiError> {
    let body = "if (el instanceof HTMLSelectElement && el.multiple) \
                  return [...el.selectedOptions].map(o => o.value); \
                if ('value' in el) return el.value; \
                if (el.isContentEditable) return el.innerText; \
                return null";
    on_element(tab, Some(selector), body, Value::Null, deadline).await
}

pub async fn attr(
    tab: &Tab,
    selector: &str,
    name: &str,
    deadline: Instant,
) -> Result<Option<String>, ApiError> {
    let v = on_element(
        tab,
        Some(selector),
        "return el.getAttribute(arg)",
        json!(name),
        deadline,
    )
    .await?;
    Ok(v.as_str().map(str::to_string))
}

fn str_of(v: Value) -> String {
    match v {
        Value::String(s) => s,
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
