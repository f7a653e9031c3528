//! Reading from the page: text, HTML, form values, attributes, element boxes.
//!
//! Owns the small page-side functions and how their failures (no match, bad
//! selector) become API errors. Targets are CSS selectors today; `@e` refs from a
//! snapshot resolve through the same entry point once snapshots exist.

use serde_json::{Value, json};

use super::tab::Tab;
use crate::error::ApiError;

/// Runs `body` (a JS function body over `el` and `arg`) on the element matching
/// `selector`, or on `document.documentElement` when `selector` is None.
/// The function's return value must be JSON.
pub async fn on_element(
    tab: &Tab,
    selector: Option<&str>,
    body: &str,
    arg: Value,
) -> Result<Value, ApiError> {
    if let Some(sel) = selector
        && sel.starts_with('@')
    {
        return Err(ApiError::not_found(format!("unknown ref {sel}"))
            .with_hint("refs come from webrig snapshot; take one and use its @e refs"));
    }
    let script = format!(
        "(() => {{
            const sel = {sel};
            let el;
            if (sel === null) {{ el = document.documentElement; }}
            else {{
              try {{ el = document.querySelector(sel); }}
              catch (e) {{ return {{ __webrig: 'invalid', message: String(e.message) }}; }}
            }}
            if (!el) return {{ __webrig: 'missing' }};
            const arg = {arg};
            return {{ ok: ((el, arg) => {{ {body} }})(el, arg) }};
        }})()",
        sel = serde_json::to_string(&selector).unwrap_or_else(|_| "null".into()),
        arg = arg,
    );
    let v = tab.eval(&script).await?;
    match v.get("__webrig").and_then(Value::as_str) {
        Some("invalid") => Err(ApiError::invalid(format!(
            "{:?} is not a valid CSS selector",
            selector.unwrap_or_default()
        ))),
        Some(_) => Err(ApiError::not_found(format!(
            "no element matches {:?}",
            selector.unwrap_or_default()
        ))
        .with_hint("check the selector, or wait for it with webrig wait --selector")),
        None => Ok(v.get("ok").cloned().unwrap_or(Value::Null)),
    }
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
