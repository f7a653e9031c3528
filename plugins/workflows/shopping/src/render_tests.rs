//! The files and the summary: CSV quoting, HTML and Markdown escaping of a
//! hostile title, the chart, the best pick's reasons, the parameters.

use crate::pipeline::{self, Outcome};
use crate::score::Sort;
use crate::tests::{fixture_hits, opts};
use crate::{csv, data, html, markdown, params, pick};
use webrig_workflow_sdk::serde_json::json;
use webrig_workflow_sdk::types::{Error, Failure};

fn fixture_outcome(sort: Sort) -> Outcome {
    pipeline::process(&fixture_hits(), &opts(sort, None))
}

#[test]
fn csv_fields_are_rfc4180() {
    assert_eq!(csv::field("plain"), "plain");
    assert_eq!(csv::field("a,b"), "\"a,b\"");
    assert_eq!(csv::field("say \"hi\""), "\"say \"\"hi\"\"\"");
    assert_eq!(csv::field("two\nlines"), "\"two\nlines\"");
    let out = fixture_outcome(Sort::BestDeal);
    let text = csv::comparison(&out.offers);
    let lines: Vec<&str> = text.split("\r\n").collect();
    assert_eq!(
        lines.len(),
        out.offers.len() + 2,
        "header, rows, empty tail"
    );
    assert_eq!(
        lines[0],
        "rank,title,store,provider,price,shipping,total,currency,availability,rating,reviews,score,url"
    );
    assert!(lines[1].starts_with("1,Ridgeline Trail Runner 2,127.0.0.1,shopping,89.99,0.00,89.99,USD,in_stock,4.5,212,0.7245,http"));
    assert!(
        lines[6].starts_with("6,\"Quarry Trail Runner \"\"Mud & Rock\"\" <script>alert('pwned')</script>\",127.0.0.1,shopping,64.00,,64.00,USD,unknown,,,0.5254,"),
        "{}",
        lines[6]
    );
    assert!(
        lines[7]
            .starts_with("7,Mesa Trail 5,127.0.0.1,shopping,74.50,6.50,81.00,USD,out_of_stock,"),
        "out of stock is listed last: {}",
        lines[7]
    );
    assert!(!text.replace("\r\n", "").contains('\n'));
}

#[test]
fn html_escapes_a_hostile_title() {
    let out = fixture_outcome(Sort::LowestPrice);
    let page = html::report(&out, &opts(Sort::LowestPrice, None), &[]);
    assert!(
        !page.contains("<script"),
        "a page title must not become markup"
    );
    assert!(page.contains("Quarry Trail Runner &quot;Mud &amp; Rock&quot; &lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt;"));
    assert!(page.contains("default-src 'none'"));
    for external in ["src=", "<link", "@import", "url("] {
        assert!(!page.contains(external), "{external} would load something");
    }
    assert_eq!(
        html::escape("<a href='x'>&</a>"),
        "&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;"
    );
}

#[test]
fn html_links_only_http() {
    let mut out = fixture_outcome(Sort::BestDeal);
    out.offers[0].url = "javascript:alert(1)".into();
    let page = html::report(&out, &opts(Sort::BestDeal, None), &[]);
    assert!(!page.contains("javascript:"));
}

#[test]
fn chart_has_one_bar_per_offer() {
    let out = fixture_outcome(Sort::BestDeal);
    let svg = html::chart(&out);
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert_eq!(svg.matches("class=\"bar\"").count(), out.offers.len());
    assert_eq!(svg.matches("class=\"score-bar\"").count(), out.offers.len());
    // The highest total gets the full width; the best pick is marked.
    assert!(
        svg.contains("width=\"300.0\""),
        "Summit's $144.99 is the widest bar"
    );
    assert_eq!(svg.matches("class=\"offer best\"").count(), 1);
    assert!(!svg.contains("<script"));
    let page = html::report(&out, &opts(Sort::BestDeal, None), &[]);
    assert!(page.contains(&svg));
}

#[test]
fn markdown_escapes_and_explains() {
    assert_eq!(
        markdown::escape("a *b* [c](d) <e> | #f"),
        "a \\*b\\* \\[c\\](d) \\<e\\> \\| \\#f"
    );
    assert_eq!(markdown::escape("Mud & Rock &amp;"), "Mud & Rock \\&amp;");
    let o = opts(Sort::BestDeal, None);
    let out = fixture_outcome(Sort::BestDeal);
    let failures = [Failure {
        provider: "shopping".into(),
        code: "timeout".into(),
        message: "page <b> slow".into(),
    }];
    let md = markdown::deals(&out, &o, &failures);
    assert!(md.contains("**Ridgeline Trail Runner 2** at 127.0.0.1: $89.99 total ($89.99 + free shipping), in stock, rated 4.5/5 from 212 reviews."), "{md}");
    assert!(
        md.contains("highest deal score of the 7 offers: 0.724 of 1 — price 0.289 of 0.55"),
        "{md}"
    );
    assert!(md.contains("The runner-up, Ridgeline Trail Runner 2 Men's at 127.0.0.1, scores 0.719 (0.006 less) with $91.95 total, $1.96 more than the pick."), "{md}");
    assert!(md.contains("The cheapest offer, Quarry"), "{md}");
    assert!(!md.contains("<script>"));
    assert!(md.contains("\\<script\\>"));
    assert!(md.contains("- 1 in another currency than USD (1 GBP)"));
    assert!(md.contains("- 1 duplicate (same canonical URL"));
    assert!(md.contains("- shopping (timeout): page \\<b\\> slow"));
}

#[test]
fn reasons_per_sort() {
    let out = fixture_outcome(Sort::LowestPrice);
    let r = pick::reasons(&out.offers, Sort::LowestPrice);
    assert_eq!(
        r[0],
        "It has the lowest total of the 6 offers that can be ordered: $64.00 ($64.00 + shipping not stated)."
    );
    assert_eq!(
        r[1],
        "Next is Ridgeline Trail Runner 2 at 127.0.0.1: $89.99 total, $25.99 more than the pick.",
        "the out-of-stock Mesa Trail 5 ($81.00) is not the next choice"
    );
    assert_eq!(
        r.last().map(String::as_str),
        Some("Note: the store does not say whether it is in stock.")
    );
    let out = fixture_outcome(Sort::HighestRating);
    let r = pick::reasons(&out.offers, Sort::HighestRating);
    assert_eq!(
        r[0],
        "It has the highest rating of the 7 offers: rated 4.8/5 from 301 reviews."
    );
    assert_eq!(out.offers[0].title, "Talus Ultra Trail Running Shoe");
}

#[test]
fn summary_fits_ten_lines() {
    let o = opts(Sort::BestDeal, None);
    let out = fixture_outcome(Sort::BestDeal);
    let failures = vec![
        Failure {
            provider: "p".into(),
            code: "timeout".into(),
            message: "m".into()
        };
        5
    ];
    let s = markdown::summary(&out, &o, &failures);
    assert!(s.lines().count() <= 10, "{s}");
    let first = s.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        "7 offers for \"trail running shoes\" in USD, best deal first; dropped 3: 1 no price, 1 other currency, 0 over budget, 1 duplicate"
    );
    assert!(
        s.contains(
            "Best: Ridgeline Trail Runner 2 — $89.99 at 127.0.0.1, in stock, 4.5/5, score 0.724"
        ),
        "{s}"
    );
    assert!(s.ends_with("5 failure(s): p (timeout), p (timeout), p (timeout)"));
}

#[test]
fn offers_json_and_context() {
    let o = opts(Sort::BestDeal, None);
    let out = fixture_outcome(Sort::BestDeal);
    let v = data::offers_json(&out, &o, &[]);
    assert_eq!(v["offers"].as_array().map(Vec::len), Some(7));
    assert_eq!(v["offers"][0]["total"], json!(89.99));
    assert_eq!(v["offers"][0]["availability"], json!("in_stock"));
    assert_eq!(v["offers"][0]["score"], json!(0.7245));
    assert_eq!(v["offers"][5]["shipping"], json!(null));
    assert_eq!(v["offers"][6]["availability"], json!("out_of_stock"));
    let dropped = &v["dropped"];
    assert_eq!(
        (
            &dropped["no_price"],
            &dropped["currency"],
            &dropped["over_budget"],
            &dropped["duplicate"],
            &dropped["other_currencies"]
        ),
        (
            &json!(1),
            &json!(1),
            &json!(0),
            &json!(1),
            &json!({"GBP": 1})
        )
    );
    let reasons: Vec<&str> = dropped["offers"]
        .as_array()
        .expect("dropped offers")
        .iter()
        .filter_map(|o| o["reason"].as_str())
        .collect();
    assert_eq!(reasons.len(), 3, "{dropped}");
    let c = data::context(&out, &o);
    assert!(c.to_string().len() < 4096);
    assert_eq!(c["best"]["title"], json!("Ridgeline Trail Runner 2"));
}

#[test]
fn params_are_checked() {
    let now = "2025-06-01T12:00:00Z";
    let p = params::read(&json!({"query": " shoes ", "_now": now})).expect("defaults");
    assert_eq!(p.options.query, "shoes");
    assert_eq!((p.options.currency.as_str(), p.options.limit), ("USD", 20));
    let p = params::read(
        &json!({"query": "shoes", "region": "jp", "providers": "a, b,", "budget": 50, "_now": now}),
    )
    .expect("valid");
    assert_eq!(p.options.currency, "JPY");
    assert_eq!(p.providers, ["a", "b"]);
    let bad = |v| matches!(params::read(&v), Err(Error::InvalidInput(_)));
    assert!(bad(json!({"query": " ", "_now": now})));
    assert!(bad(json!({"query": "x", "budget": 0, "_now": now})));
    assert!(bad(json!({"query": "x", "region": "mars", "_now": now})));
    assert!(bad(json!({"query": "x", "limit": 0, "_now": now})));
    assert!(bad(json!({"query": "x", "sort": "random", "_now": now})));
    assert!(bad(json!({"query": "x"})));
    assert!(params::check_providers(&["shopping".into()], &["shopping".into()]).is_ok());
    let e = params::check_providers(&["amazon".into()], &["shopping".into()]);
    assert!(
        matches!(e, Err(Error::InvalidInput(m)) if m.contains("\"amazon\" is not a shopping provider here; the shopping providers are: shopping"))
    );
}
