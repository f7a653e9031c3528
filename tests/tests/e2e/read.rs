//! text, html, value, attr, title, url, eval.

use serde_json::json;

use crate::{session, web};

#[test]
fn text_reads_the_page_and_single_elements() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("index.html") }));
    let page = s.ok("text", json!({}))["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(page.contains("USB-C hub 7-in-1"), "{page}");
    assert!(
        !page.contains("You should not see this"),
        "hidden text leaked: {page}"
    );
    let intro = s.ok("text", json!({ "target": "#intro" }));
    assert_eq!(intro["text"], "Hand-picked gadgets for testing browsers.");
}

#[test]
fn reading_a_missing_element_is_not_found_and_a_bad_selector_invalid() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("index.html") }));
    for cmd in ["text", "html"] {
        s.err(cmd, json!({ "target": "#missing" }), "not_found");
        s.err(cmd, json!({ "target": "a[" }), "invalid_argument");
    }
    s.err("value", json!({ "target": "#missing" }), "not_found");
    s.err(
        "attr",
        json!({ "target": "#missing", "name": "id" }),
        "not_found",
    );
    s.err("text", json!({ "target": "@e9" }), "not_found");
}

#[test]
fn html_gives_outer_and_inner_markup() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("nav/a.html") }));
    let outer = s.ok("html", json!({ "target": "#to-b" }));
    assert_eq!(
        outer["html"],
        "<a id=\"to-b\" href=\"/nav/b.html\">Go to B</a>"
    );
    let inner = s.ok("html", json!({ "target": "#to-b", "inner": true }));
    assert_eq!(inner["html"], "Go to B");
    let doc = s.ok("html", json!({}));
    assert!(
        doc["html"]
            .as_str()
            .unwrap_or_default()
            .starts_with("<html")
    );
}

#[test]
fn value_reads_every_kind_of_field() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("form.html") }));
    assert_eq!(
        s.ok("value", json!({ "target": "#email" }))["value"],
        "ada@example.test"
    );
    assert_eq!(
        s.ok("value", json!({ "target": "#country" }))["value"],
        "ca"
    );
    assert_eq!(
        s.ok("value", json!({ "target": "#extras" }))["value"],
        json!(["wrap", "note"])
    );
    assert_eq!(
        s.ok("value", json!({ "target": "#notes" }))["value"],
        "Leave at the door"
    );
    assert_eq!(
        s.ok("value", json!({ "target": "#editor" }))["value"],
        "Editable text"
    );
    assert_eq!(
        s.ok("value", json!({ "target": "h1" }))["value"],
        json!(null)
    );
}

#[test]
fn attr_reads_attributes_and_null_for_absent_ones() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("form.html") }));
    assert_eq!(
        s.ok("attr", json!({ "target": "#home", "name": "href" }))["value"],
        "/"
    );
    assert_eq!(
        s.ok("attr", json!({ "target": "#place", "name": "data-testid" }))["value"],
        "place-order"
    );
    assert_eq!(
        s.ok("attr", json!({ "target": "#place", "name": "nope" }))["value"],
        json!(null)
    );
    s.err("attr", json!({ "target": "#place" }), "invalid_argument");
}

#[test]
fn title_and_url_follow_the_page() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("form.html?sku=hub-7") }));
    assert_eq!(s.ok("title", json!({}))["title"], "Checkout — Fixture Shop");
    assert_eq!(
        s.ok("url", json!({}))["url"],
        web().url("form.html?sku=hub-7")
    );
}

#[test]
fn eval_returns_json_values_and_awaits_promises() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("index.html") }));
    let v = |script: &str| s.ok("eval", json!({ "script": script }))["value"].clone();
    assert_eq!(v("1 + 1"), json!(2));
    assert_eq!(
        v("({a: [1, 'x', null], b: true})"),
        json!({ "a": [1, "x", null], "b": true })
    );
    assert_eq!(v("document.querySelectorAll('.product').length"), json!(2));
    assert_eq!(
        v("new Promise(r => setTimeout(() => r('later'), 30))"),
        json!("later")
    );
    assert_eq!(v("await Promise.resolve(5)"), json!(5));
    assert_eq!(v("undefined"), json!(null));
    assert_eq!(v("NaN"), json!("NaN"));
    assert_eq!(v("10n ** 20n"), json!("100000000000000000000n"));
}

#[test]
fn eval_runs_statements_and_runs_a_script_once() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("index.html") }));
    let v = |script: &str| s.ok("eval", json!({ "script": script }))["value"].clone();
    // Statements (REPL mode): declarations, redeclaration, the last value.
    assert_eq!(v("const a = 2; a * 3"), json!(6));
    assert_eq!(v("let b = 1; b += 4; b"), json!(5));
    assert_eq!(v("let b = 7; b"), json!(7));
    assert_eq!(v("if (true) { 'yes' } else { 'no' }"), json!("yes"));
    // A SyntaxError the script throws while running is its error, and the
    // script ran once (not again as statements).
    let e = s.err(
        "eval",
        json!({ "script": "(window.__runs = (window.__runs || 0) + 1, JSON.parse('{'))" }),
        "invalid_argument",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("SyntaxError"),
        "{e}"
    );
    assert_eq!(v("window.__runs"), json!(1));
    // Statements that throw a SyntaxError at run time run once too.
    s.err(
        "eval",
        json!({ "script": "window.__runs += 1; JSON.parse('{')" }),
        "invalid_argument",
    );
    assert_eq!(v("window.__runs"), json!(2));
}

#[test]
fn eval_reports_page_exceptions_and_syntax_errors() {
    let s = session!();
    s.ok("goto", json!({ "url": web().url("index.html") }));
    let e = s.err(
        "eval",
        json!({ "script": "throw new Error('boom')" }),
        "invalid_argument",
    );
    assert!(
        e["message"].as_str().unwrap_or_default().contains("boom"),
        "{e}"
    );
    let e = s.err(
        "eval",
        json!({ "script": "function (" }),
        "invalid_argument",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("SyntaxError"),
        "{e}"
    );
    let e = s.err(
        "eval",
        json!({ "script": "Promise.reject(new Error('async boom'))" }),
        "invalid_argument",
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .contains("async boom"),
        "{e}"
    );
    s.err("eval", json!({ "script": "  " }), "invalid_argument");
    s.err("eval", json!({}), "invalid_argument");
    // The page still works afterwards.
    assert_eq!(s.ok("eval", json!({ "script": "2 * 21" }))["value"], 42);
}
