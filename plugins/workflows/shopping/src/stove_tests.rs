//! The products fixture's camp-stove offers, read the way the shopping
//! provider reads them (the kit's product metadata as hit extras): the
//! offer's schema.org shipping is read (once every offer said "not
//! stated"), a pre-order is not "limited stock", `lowest_price` never
//! calls an out-of-stock offer "Best", and dropped offers are named.

use crate::markdown;
use crate::offers::{Availability, Listing};
use crate::pipeline::{self, Options};
use crate::score::Sort;
use webrig_workflow_sdk::kit::html::product;

const ORIGIN: &str = "http://127.0.0.1:8080";

fn listing(rel: &str) -> Listing {
    let path = format!(
        "{}/../../../tests/fixtures/web/products/{rel}",
        env!("CARGO_MANIFEST_DIR")
    );
    let page = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("fixture {path}: {e}"))
        .replace("{{origin}}", ORIGIN);
    let url = format!("{ORIGIN}/products/{rel}");
    let p = product::parse_page(&page, &url).expect("a product");
    Listing {
        provider: "shopping".into(),
        url: p.url.clone(),
        title: p.name.clone(),
        text: p.description.clone(),
        published: None,
        fields: p.metadata(),
    }
}

fn stoves() -> Vec<Listing> {
    [
        "offers/trailpost.html",
        "offers/ember.html",
        "offers/lowland.html",
        "offers/northway.html",
        "offers/driftwood.html",
        "cinder-stove.html",
    ]
    .iter()
    .map(|r| listing(r))
    .collect()
}

fn opts(sort: Sort, budget: Option<f64>) -> Options {
    Options {
        query: "camp stove".into(),
        region: "us".into(),
        currency: "USD".into(),
        budget,
        sort,
        limit: 20,
        now: "2026-12-01T12:00:00Z".into(),
    }
}

#[test]
fn json_ld_shipping_seller_and_pre_order_are_read() {
    let out = pipeline::process(&stoves(), &opts(Sort::BestDeal, None));
    let by_store = |s: &str| {
        out.offers
            .iter()
            .find(|o| o.store == s)
            .unwrap_or_else(|| panic!("{s} in {:?}", out.offers))
    };
    let trailpost = by_store("Trailpost Outfitters");
    assert_eq!(trailpost.shipping, Some(6.5));
    assert_eq!(trailpost.total, 125.5);
    assert_eq!(trailpost.delivery.as_deref(), Some("3–5 days"));
    let basecamp = by_store("Basecamp Gear Co.");
    assert_eq!(basecamp.shipping, Some(4.95));
    let ember = by_store("Ember & Pine");
    assert_eq!(ember.shipping, Some(0.0));
    assert_eq!(ember.availability, Availability::PreOrder);
    assert_eq!(ember.availability.words(), "pre-order");
}

#[test]
fn lowest_price_never_calls_an_out_of_stock_offer_best() {
    let o = opts(Sort::LowestPrice, None);
    let out = pipeline::process(&stoves(), &o);
    let order: Vec<(&str, f64)> = out
        .offers
        .iter()
        .map(|x| (x.store.as_str(), x.total))
        .collect();
    assert_eq!(
        order,
        [
            ("Ember & Pine", 99.0),
            ("Trailpost Outfitters", 125.5),
            ("Basecamp Gear Co.", 133.95),
            ("Lowland Supply", 79.0),
        ],
        "the $79 out-of-stock offer is listed last"
    );
    let md = markdown::deals(&out, &o, &[]);
    assert!(
        md.contains("## Best pick\n\n**Cinder 2 Camp Stove (2027 edition)** at Ember & Pine: $99.00 total ($99.00 + free shipping), pre-order, unrated."),
        "{md}"
    );
    assert!(
        md.contains("1 out-of-stock offer costs less (from $79.00, Cinder 2 Stove) but cannot be ordered; listed last."),
        "{md}"
    );
    assert!(
        md.contains("Note: it is a pre-order; it ships when it is released."),
        "{md}"
    );
    assert!(!md.contains("limited stock"), "{md}");
    assert!(
        md.contains("| $119.00 | $6.50, 3–5 days | $125.50 | in stock |"),
        "{md}"
    );
    let summary = markdown::summary(&out, &o, &[]);
    assert!(
        summary
            .lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("Best: Cinder 2 Camp Stove (2027 edition) — $99.00")),
        "{summary}"
    );
    assert!(!summary.contains("Best: Cinder 2 Stove"), "{summary}");
}

#[test]
fn when_every_offer_is_out_of_stock_there_is_no_best() {
    let only = vec![listing("offers/lowland.html")];
    let o = opts(Sort::LowestPrice, None);
    let out = pipeline::process(&only, &o);
    let md = markdown::deals(&out, &o, &[]);
    assert!(
        md.contains("## No pick\n\nEvery offer left is out of stock"),
        "{md}"
    );
    assert!(!md.contains("## Best pick"), "{md}");
    assert!(!markdown::summary(&out, &o, &[]).contains("Best:"));
}

#[test]
fn dropped_offers_are_named_with_their_reason() {
    let o = opts(Sort::BestDeal, Some(130.0));
    let out = pipeline::process(&stoves(), &o);
    let md = markdown::deals(&out, &o, &[]);
    for line in [
        "- [Cinder 2 Camp Stove bundle](<http://127.0.0.1:8080/products/offers/driftwood.html>) at Driftwood Goods: no usable price (missing or 0)\n",
        "- [Cinder 2 Camp Stove UK](<http://127.0.0.1:8080/products/offers/northway.html>) at Northway Camping: priced in GBP, not USD\n",
        "- [Cinder 2 Camp Stove](<http://127.0.0.1:8080/products/cinder-stove.html>) at Basecamp Gear Co.: total $133.95 over the budget of $130.00\n",
    ] {
        assert!(md.contains(line), "{line:?} in:\n{md}");
    }
    let html = crate::html::report(&out, &o, &[]);
    assert!(
        html.contains("Northway Camping: priced in GBP, not USD</li>"),
        "{html}"
    );
}
