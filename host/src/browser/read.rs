//! Reading from the page: text, HTML, form values, attributes, element boxes.
//!
//! Owns the small page-side functions and how their failures (no match, bad
//! selector, stale ref) become API errors. Targets are refs from a snapshot or
//! CSS selectors, resolved in webrig's isolated world.

use serde_json::{Value, json};

use super::actions;
use super::tab::Tab;
use crate::error::ApiError;

/// Runs `body` (a JS function body over `el` and `arg`) on the target (a ref
/// from a snapshot or a CSS selector), or on `document.documentElement` when
/// `target` is None. The function's return value must be JSON.
pub async fn on_element(
    tab: &Tab,
    target: Option<&str>,
    body: &str,
    arg: Value,
) -> Result<Value, ApiError> {
    let Some(raw) = target else {
        let script = format!("((el, arg) => {{ {body} }})(document.documentElement, {arg})");
        return tab.eval(&script).await;
    };
    let (mut frames, at) = actions::target(tab, raw).await?;
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

fn text_of(selector: Option<&str>) -> &'static str {
    if selector.is_none() {
        "(document.body || el).innerText"
    } else {
        "el.innerText ?? el.textContent"
    }
}

pub async fn text(tab: &Tab, selector: Option<&str>) -> Result<String, ApiError> {
    let body = format!("return {}", text_of(selector));
    Ok(str_of(on_element(tab, selector, &body, Value::Null).await?))
}

/// The visible text, unless its JSON would be longer than `max`.
pub async fn text_at_most(
    tab: &Tab,
    selector: Option<&str>,
    max: usize,
) -> Result<Capped<String>, ApiError> {
    let body = format!("const s = {}; {AT_MOST}", text_of(selector));
    let v = on_element(tab, selector, &body, json!({ "max": max })).await?;
    Ok(capped_str(v))
}

/// The HTML, unless its JSON would be longer than `max`.
pub async fn html_at_most(
    tab: &Tab,
    selector: Option<&str>,
    inner: bool,
    max: usize,
) -> Result<Capped<String>, ApiError> {
    let body = format!("const s = arg.inner ? el.innerHTML : el.outerHTML; {AT_MOST}");
    let v = on_element(tab, selector, &body, json!({ "inner": inner, "max": max })).await?;
    Ok(capped_str(v))
}

pub async fn value(tab: &Tab, selector: &str) -> Result<Value, ApiError> {
    let body = "if (el instanceof HTMLSelectElement && el.multiple) \
                  return [...el.selectedOptions].map(o => o.value); \
                if ('value' in el) return el.value; \
                if (el.isContentEditable) return el.innerText; \
                return null";
    on_element(tab, Some(selector), body, Value::Null).await
}

pub async fn attr(tab: &Tab, selector: &str, name: &str) -> Result<Option<String>, ApiError> {
    let v = on_element(
        tab,
        Some(selector),
        "return el.getAttribute(arg)",
        json!(name),
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
