//! Parameters and timebox validation edges.

use super::NOW;
use crate::dates::{format_day, parse_day};
use crate::input::{Sources, parse};
use webrig_workflow_sdk::serde_json::{Value, json};
use webrig_workflow_sdk::types::Error;

fn err(v: Value) -> String {
    let mut v = v;
    v["_now"] = json!(NOW);
    match parse(&v) {
        Err(Error::InvalidInput(m)) => m,
        other => panic!("expected invalid-input for {v}, got {other:?}"),
    }
}

fn ok(v: Value) -> crate::input::Params {
    super::params(v)
}

#[test]
fn defaults_are_thirty_days_auto_ten_and_five() {
    let p = ok(json!({"topic": "webassembly sandboxing"}));
    assert_eq!(format_day(p.timebox.from), "2026-11-01");
    assert_eq!(format_day(p.timebox.to), "2026-12-01");
    assert_eq!(p.timebox.given, "default");
    assert_eq!(p.timebox.span_days(), 31);
    assert_eq!(p.sources, Sources::Auto);
    assert_eq!((p.limit_per_source, p.fetch), (10, 5));
    assert_eq!(Sources::All.searched(), ["web", "community", "social"]);
    assert_eq!(Sources::Auto.searched(), ["auto"]);
}

#[test]
fn days_must_be_one_to_3650() {
    assert!(err(json!({"topic": "t", "days": 0})).starts_with("days:"));
    assert!(err(json!({"topic": "t", "days": 3651})).starts_with("days:"));
    assert!(err(json!({"topic": "t", "days": -3})).starts_with("days:"));
    assert!(err(json!({"topic": "t", "days": 2.5})).starts_with("days:"));
    let p = ok(json!({"topic": "t", "days": 1}));
    assert_eq!(format_day(p.timebox.from), "2026-11-30");
    let p = ok(json!({"topic": "t", "days": "3650"}));
    assert_eq!(p.timebox.span_days(), 3651);
}

#[test]
fn from_after_to_is_refused() {
    let m = err(json!({"topic": "t", "from": "2026-11-20", "to": "2026-11-01"}));
    assert!(m.starts_with("from:") && m.contains("2026-11-20"), "{m}");
    let p = ok(json!({"topic": "t", "from": "2026-11-20", "to": "2026-11-20"}));
    assert_eq!(p.timebox.span_days(), 1);
}

#[test]
fn to_after_today_is_refused() {
    let m = err(json!({"topic": "t", "to": "2026-12-02"}));
    assert!(m.starts_with("to:") && m.contains("2026-12-01"), "{m}");
    // Today itself is fine, whatever the hour of _now.
    let p = ok(json!({"topic": "t", "to": "2026-12-01", "from": "2025-12-01"}));
    assert_eq!(p.timebox.to, parse_day("2026-12-01").expect("present"));
}

#[test]
fn days_and_from_to_together_are_refused() {
    assert!(err(json!({"topic": "t", "days": 7, "from": "2026-11-01"})).contains("days and from"));
    assert!(err(json!({"topic": "t", "days": 7, "to": "2026-11-01"})).contains("days and to"));
    // Null means absent (the host leaves unset optional params out or null).
    let p = ok(json!({"topic": "t", "days": 7, "from": null}));
    assert_eq!(p.timebox.given, "days");
}

#[test]
fn one_sided_ranges() {
    let p = ok(json!({"topic": "t", "from": "2026-10-01"}));
    assert_eq!(format_day(p.timebox.to), "2026-12-01");
    let p = ok(json!({"topic": "t", "to": "2026-06-30"}));
    assert_eq!(format_day(p.timebox.from), "2026-05-31");
}

#[test]
fn other_params_are_checked_and_named() {
    assert!(err(json!({"topic": "  "})).starts_with("topic:"));
    assert!(err(json!({})).starts_with("topic:"));
    assert!(err(json!({"topic": "t", "from": "2026-13-01"})).starts_with("from:"));
    assert!(err(json!({"topic": "t", "to": "01/12/2026"})).starts_with("to:"));
    assert!(err(json!({"topic": "t", "sources": "shopping"})).starts_with("sources:"));
    assert!(err(json!({"topic": "t", "limit_per_source": 0})).starts_with("limit_per_source:"));
    assert!(err(json!({"topic": "t", "limit_per_source": 51})).starts_with("limit_per_source:"));
    assert!(err(json!({"topic": "t", "fetch": 21})).starts_with("fetch:"));
    assert_eq!(ok(json!({"topic": "t", "fetch": 0})).fetch, 0);
    let no_now = parse(&json!({"topic": "t"}));
    assert!(matches!(no_now, Err(Error::InvalidInput(m)) if m.starts_with("_now:")));
    let bad_now = parse(&json!({"topic": "t", "_now": "yesterday"}));
    assert!(matches!(bad_now, Err(Error::InvalidInput(m)) if m.starts_with("_now:")));
}
