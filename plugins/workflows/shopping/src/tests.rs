//! Normalization, filtering, dedupe, scoring and sorting, on listings
//! shaped like the shopping provider's hits (the small-shop fixture).

use crate::offers::{self, Availability, Listing, Offer};
use crate::pipeline::{self, Options};
use crate::score::{self, Sort};

const NOW: &str = "2025-06-01T12:00:00Z";
const ORIGIN: &str = "http://127.0.0.1:8080/small/shop";

fn hit(path: &str, title: &str, snippet: &str, extra: &[(&str, &str)]) -> Listing {
    Listing {
        provider: "shopping".into(),
        url: format!("{ORIGIN}/{path}"),
        title: title.into(),
        text: snippet.into(),
        published: None,
        fields: extra
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

/// The hits the provider gives for the small-shop fixture.
pub(crate) fn fixture_hits() -> Vec<Listing> {
    let usd = |price: &'static str, av: &'static str, rating: &'static str, n: &'static str| {
        vec![
            ("price", price),
            ("currency", "USD"),
            ("availability", av),
            ("rating", rating),
            ("review_count", n),
        ]
    };
    vec![
        hit(
            "store-a/products/ridgeline-trail-runner-2.html",
            "Ridgeline Trail Runner 2",
            "Free shipping. A light, grippy trail shoe.",
            &usd("89.99", "InStock", "4.5", "212"),
        ),
        hit(
            "store-b/products/ridgeline-2-mens.html",
            "Ridgeline Trail Runner 2 Men's",
            "Standard shipping $7.95. Our best-selling trail shoe.",
            &usd("84.00", "InStock", "4.4", "57"),
        ),
        hit(
            "store-c/item/alpine-scree.html",
            "Alpine Scree Trail Runner",
            "Shipping: $4.99. A stable shoe.",
            &usd("99.00", "InStock", "4.2", "140"),
        ),
        hit(
            "store-a/products/summit-grip-gtx.html",
            "Summit Grip GTX Trail Shoe",
            "Shipping: $5.99. Waterproof.",
            &usd("139.00", "LimitedAvailability", "4.7", "88"),
        ),
        hit(
            "store-b/products/talus-ultra.html",
            "Talus Ultra Trail Running Shoe",
            "Free shipping on this item. Max cushioning.",
            &usd("119.95", "InStock", "4.8", "301"),
        ),
        hit(
            "store-c/item/fell-racer-pro.html",
            "Fell Racer Pro",
            "Free UK delivery.",
            &[
                ("price", "95.00"),
                ("currency", "GBP"),
                ("availability", "InStock"),
                ("rating", "4.6"),
                ("review_count", "64"),
            ],
        ),
        hit(
            "store-a/products/mesa-trail-5.html",
            "Mesa Trail 5",
            "Shipping: $6.50. A cushioned all-rounder.",
            &usd("74.50", "OutOfStock", "4.1", "35"),
        ),
        hit(
            "store-b/sale/talus-ultra.html",
            "Talus Ultra Trail Running Shoe",
            "Free shipping on this item. Max cushioning.",
            &usd("119.95", "InStock", "4.8", "301"),
        ),
        hit(
            "store-b/products/quarry-trail-runner.html",
            "Quarry Trail Runner \"Mud & Rock\" <script>alert('pwned')</script>",
            "A budget trail shoe.",
            &[("price", "64.00"), ("currency", "USD")],
        ),
        hit(
            "store-c/item/trailhead-everyday.html",
            "Trailhead Everyday Runner",
            "Price on request.",
            &[
                ("currency", "USD"),
                ("availability", "InStock"),
                ("rating", "3.9"),
            ],
        ),
    ]
}

pub(crate) fn opts(sort: Sort, budget: Option<f64>) -> Options {
    Options {
        query: "trail running shoes".into(),
        region: "us".into(),
        currency: "USD".into(),
        budget,
        sort,
        limit: 20,
        now: NOW.into(),
    }
}

fn titles(offers: &[Offer]) -> Vec<&str> {
    offers.iter().map(|o| o.title.as_str()).collect()
}

#[test]
fn normalizes_a_hit() {
    let o = offers::normalize(&fixture_hits()[1], NOW).expect("priced");
    assert_eq!(o.price, 84.0);
    assert_eq!(o.currency.as_deref(), Some("USD"));
    assert_eq!(o.shipping, Some(7.95));
    assert_eq!(o.total, 91.95);
    assert_eq!(o.availability, Availability::InStock);
    assert_eq!(o.rating, Some(4.4));
    assert_eq!(o.reviews, Some(57));
    assert_eq!(o.store, "127.0.0.1");
    assert_eq!(o.age_hours, 0.0);
    assert_eq!(o.retrieved_at, NOW);
}

#[test]
fn normalizes_written_prices() {
    let with = |price: &str, currency: Option<&str>| {
        let mut extra = vec![("price", price)];
        if let Some(c) = currency {
            extra.push(("currency", c));
        }
        offers::normalize(&hit("p.html", "Shoe", "", &extra), NOW)
    };
    let o = with("1,299.00", Some("usd")).expect("priced");
    assert_eq!((o.price, o.currency.as_deref()), (1299.0, Some("USD")));
    let o = with("€12,50", None).expect("priced");
    assert_eq!((o.price, o.currency.as_deref()), (12.5, Some("EUR")));
    assert_eq!(with("0.00", Some("USD")), Err(offers::Rejected::NoPrice));
    assert_eq!(with("-3", Some("USD")), Err(offers::Rejected::NoPrice));
    assert_eq!(with("call us", Some("USD")), Err(offers::Rejected::NoPrice));
    let none = hit("p.html", "Shoe", "", &[("currency", "USD")]);
    assert!(!none.has_price());
    assert_eq!(
        offers::normalize(&none, NOW),
        Err(offers::Rejected::NoPrice)
    );
}

#[test]
fn availability_words() {
    use Availability::*;
    for (text, want) in [
        ("https://schema.org/InStock", InStock),
        ("InStoreOnly", InStock),
        ("LimitedAvailability", Limited),
        ("PreOrder", PreOrder),
        ("https://schema.org/PreSale", PreOrder),
        ("BackOrder", BackOrder),
        ("only 2 left", Limited),
        ("http://schema.org/OutOfStock", OutOfStock),
        ("SoldOut", OutOfStock),
        ("Discontinued", OutOfStock),
        ("ask the shop", Unknown),
    ] {
        assert_eq!(Availability::parse(Some(text)), want, "{text}");
    }
    assert_eq!(Availability::parse(None), Unknown);
}

#[test]
fn age_comes_from_the_offer_date() {
    let mut l = fixture_hits().remove(0);
    l.published = Some("2025-05-31T12:00:00Z".into());
    let o = offers::normalize(&l, NOW).expect("priced");
    assert_eq!(o.age_hours, 24.0);
    assert!((score::breakdown(&o).recency - 0.05).abs() < 1e-12);
}

#[test]
fn fixture_run_drops_and_ranks() {
    let out = pipeline::process(&fixture_hits(), &opts(Sort::BestDeal, None));
    assert_eq!(out.found, 10);
    assert_eq!(out.drops.no_price, 1);
    assert_eq!(out.drops.currency, 1);
    assert_eq!(out.drops.other_currencies.get("GBP"), Some(&1));
    assert_eq!(out.drops.over_budget, 0);
    assert_eq!(out.drops.duplicate, 1);
    assert_eq!(out.kept, 7);
    assert_eq!(
        titles(&out.offers),
        [
            "Ridgeline Trail Runner 2",
            "Ridgeline Trail Runner 2 Men's",
            "Alpine Scree Trail Runner",
            "Talus Ultra Trail Running Shoe",
            "Summit Grip GTX Trail Shoe",
            "Quarry Trail Runner \"Mud & Rock\" <script>alert('pwned')</script>",
            "Mesa Trail 5",
        ]
    );
    let best = &out.offers[0];
    assert!((best.score - 0.724_489).abs() < 1e-5, "{}", best.score);
    // The kept Talus is the first listed copy (same total).
    assert!(out.offers[3].url.ends_with("/products/talus-ultra.html"));
}

#[test]
fn budget_drops_by_total_not_price() {
    // Alpine Scree: $99.00 + $4.99 shipping = $103.99 > $100.
    let out = pipeline::process(&fixture_hits(), &opts(Sort::BestDeal, Some(100.0)));
    assert_eq!(
        out.drops.over_budget, 4,
        "Summit, Talus twice, Alpine Scree"
    );
    assert_eq!(out.drops.duplicate, 0);
    assert_eq!(out.kept, 4);
    assert!(out.offers.iter().all(|o| o.total <= 100.0));
}

#[test]
fn other_region_keeps_its_currency_only() {
    let mut o = opts(Sort::BestDeal, None);
    o.region = "uk".into();
    o.currency = "GBP".into();
    let out = pipeline::process(&fixture_hits(), &o);
    assert_eq!(titles(&out.offers), ["Fell Racer Pro"]);
    assert_eq!(out.offers[0].shipping, Some(0.0));
    assert_eq!(out.drops.currency, 8);
    o.region = "eu".into();
    o.currency = "EUR".into();
    let out = pipeline::process(&fixture_hits(), &o);
    assert!(out.offers.is_empty());
    let why = pipeline::why_none(&out, &o);
    assert!(
        why.contains("9 not in EUR (region eu: 1 GBP, 8 USD)"),
        "{why}"
    );
    assert!(why.contains("1 without a usable price"), "{why}");
}

#[test]
fn nothing_found_says_so() {
    let o = opts(Sort::BestDeal, Some(10.0));
    let out = pipeline::process(&[], &o);
    assert!(pipeline::why_none(&out, &o).contains("no shopping provider found any product"));
    let out = pipeline::process(&fixture_hits(), &o);
    let why = pipeline::why_none(&out, &o);
    assert!(why.contains("over the budget of $10.00"), "{why}");
}

#[test]
fn dedupe_by_canonical_url_keeps_the_cheaper() {
    let mut a = fixture_hits().remove(0);
    a.url = "https://Shop.example:443/p/ridge/?utm_source=x#reviews".into();
    let mut b = a.clone();
    b.title = "Ridgeline 2 (sale)".into();
    b.url = "https://shop.example/p/ridge".into();
    b.fields[0].1 = "79.99".into();
    let list: Vec<Offer> = [a, b]
        .iter()
        .map(|l| offers::normalize(l, NOW).expect("priced"))
        .collect();
    assert_eq!(list[0].canonical, "https://shop.example/p/ridge");
    let (kept, removed) = pipeline::dedupe(list);
    assert_eq!(removed, 1);
    assert_eq!(titles(&kept), ["Ridgeline 2 (sale)"]);
}

#[test]
fn dedupe_by_title_and_store_only_within_a_store() {
    let hits = fixture_hits();
    let mut other_store = hits[0].clone();
    other_store.url = "https://elsewhere.example/ridgeline".into();
    let mut same_store = hits[0].clone();
    same_store.title = "  RIDGELINE trail-runner 2 ".into();
    same_store.url = format!("{ORIGIN}/store-a/products/ridgeline.html?color=red");
    let list: Vec<Offer> = [hits[0].clone(), other_store, same_store]
        .iter()
        .map(|l| offers::normalize(l, NOW).expect("priced"))
        .collect();
    let (kept, removed) = pipeline::dedupe(list);
    assert_eq!(removed, 1);
    assert_eq!(kept.len(), 2);
    assert_eq!(kept[1].store, "elsewhere.example");
}

#[test]
fn canonical_urls() {
    assert_eq!(
        offers::canonical_url("HTTP://Example.COM:80/a/b/?id=4&utm_medium=m&ref=x#top"),
        "http://example.com/a/b?id=4"
    );
    assert_eq!(offers::canonical_url("https://x.test/"), "https://x.test");
}

fn offer(
    title: &str,
    total: f64,
    av: Availability,
    rating: Option<f64>,
    reviews: Option<u64>,
) -> Offer {
    let mut o = offers::normalize(
        &hit("x.html", title, "", &[("price", "1"), ("currency", "USD")]),
        NOW,
    )
    .expect("priced");
    o.url = format!("https://shop.test/{title}");
    o.price = total;
    o.total = total;
    o.availability = av;
    o.rating = rating;
    o.reviews = reviews;
    o.score = score::score(&o);
    o
}

#[test]
fn score_formula() {
    let o = offer("a", 100.0, Availability::Limited, Some(4.0), None);
    let want = 0.55 * 0.5 + 0.2 * 0.75 + 0.15 * 0.8 + 0.1;
    assert!((o.score - want).abs() < 1e-12, "{} vs {want}", o.score);
    let unknown = offer("b", 0.0, Availability::Unknown, None, None);
    assert!((unknown.score - (0.55 + 0.09 + 0.1)).abs() < 1e-12);
    let out = offer("c", 0.0, Availability::OutOfStock, Some(5.0), None);
    assert!((out.score - (0.55 + 0.02 + 0.15 + 0.1)).abs() < 1e-12);
}

#[test]
fn each_sort_order() {
    use Availability::*;
    let base = vec![
        offer("cheap-out", 40.0, OutOfStock, Some(3.0), Some(10)),
        offer("mid", 60.0, InStock, Some(4.5), Some(20)),
        offer("dear", 150.0, InStock, Some(4.9), Some(5)),
        offer("unrated", 55.0, Unknown, None, None),
        offer("mid-more-reviews", 70.0, InStock, Some(4.5), Some(99)),
    ];
    let sorted = |by| {
        let mut v = base.clone();
        score::sort(&mut v, by);
        v.iter().map(|o| o.title.clone()).collect::<Vec<_>>()
    };
    // Out of stock comes last in every order: it is never the "Best".
    assert_eq!(
        sorted(Sort::BestDeal),
        ["mid", "mid-more-reviews", "dear", "unrated", "cheap-out"]
    );
    assert_eq!(
        sorted(Sort::LowestPrice),
        ["unrated", "mid", "mid-more-reviews", "dear", "cheap-out"]
    );
    assert_eq!(
        sorted(Sort::HighestRating),
        ["dear", "mid-more-reviews", "mid", "unrated", "cheap-out"]
    );
}

#[test]
fn limit_caps_the_list_not_the_count() {
    let mut o = opts(Sort::LowestPrice, None);
    o.limit = 2;
    let out = pipeline::process(&fixture_hits(), &o);
    assert_eq!(out.kept, 7);
    assert_eq!(out.offers.len(), 2);
    assert!(out.offers[0].title.starts_with("Quarry"));
    assert_eq!(
        out.offers[1].title, "Ridgeline Trail Runner 2",
        "the cheaper but out-of-stock Mesa Trail 5 is not listed before it"
    );
}
