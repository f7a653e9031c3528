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

pub async fn text(tab: &Tab, selector: Option<&str>) -> Result<String, ApiError> {
    let body = if selector.is_none() {
        "return (document.body || el).innerText"
    } else {
        "return el.innerText ?? el.textContent"
    };
    Ok(str_of(on_element(tab, selector, body, Value::Null).await?))
}

pub async fn html(tab: &Tab, selector: Option<&str>, inner: bool) -> Result<String, ApiError> {
    let body = "return arg ? el.innerHTML : el.outerHTML";
    Ok(str_of(on_element(tab, selector, body, json!(inner)).await?))
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
