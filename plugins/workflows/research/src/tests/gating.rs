//! The evidence gate.

use super::{doc, fetched_record, prose};
use crate::gate::{Status, judge};
use crate::records::Record;

fn rec(url: &str, site: &str, chars: usize) -> Record {
    fetched_record(
        url,
        &doc(
            url,
            "A page about sandboxes",
            &prose(chars),
            None,
            &[("site_name", site)],
        ),
        0,
    )
}

#[test]
fn pass_needs_three_records_two_domains_and_one_long_text() {
    let pass = [
        rec("https://a.example/1", "A", 600),
        rec("https://a.example/2", "A", 100),
        rec("https://b.example/1", "B", 100),
    ];
    let v = judge(&pass);
    assert_eq!(v.status, Status::Pass, "{}", v.reason);
    assert_eq!(
        v.reason,
        "3 records from 2 hosts, 1 with ≥ 500 characters of text"
    );
}

#[test]
fn partial_when_any_condition_is_missing() {
    let one_domain = [
        rec("https://a.example/1", "A", 600),
        rec("https://a.example/2", "A", 600),
        rec("https://a.example/3", "A", 600),
    ];
    let short = [
        rec("https://a.example/1", "A", 499),
        rec("https://b.example/2", "B", 100),
        rec("https://c.example/3", "C", 100),
    ];
    let two = [
        rec("https://a.example/1", "A", 600),
        rec("https://b.example/2", "B", 600),
    ];
    for (name, set) in [
        ("one domain", &one_domain[..]),
        ("no long text", &short[..]),
        ("two records", &two[..]),
    ] {
        let v = judge(set);
        assert_eq!(v.status, Status::Partial, "{name}: {}", v.reason);
        assert!(v.reason.contains("a pass needs"), "{}", v.reason);
    }
}

#[test]
fn fail_with_nothing() {
    let v = judge(&[]);
    assert_eq!(v.status, Status::Fail);
    assert_eq!(v.status.name(), "fail");
}
