//! Product pages read fully: the products fixture (JSON-LD plus an HTML
//! feature list and spec table) and inline pages.

use super::*;

const URL: &str = "http://127.0.0.1:8080/products/cinder-stove.html";

fn fixture(rel: &str) -> String {
    let path = format!(
        "{}/../../tests/fixtures/web/products/{rel}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("fixture {path}: {e}"))
        .replace("{{origin}}", "http://127.0.0.1:8080")
}

fn stove() -> Product {
    parse_page(&fixture("cinder-stove.html"), URL).expect("a product")
}

#[test]
fn json_ld_product_gives_identifiers_offer_seller_and_shipping() {
    let p = stove();
    assert_eq!(p.name, "Cinder 2 Camp Stove");
    assert_eq!(p.brand.as_deref(), Some("Cinder"));
    assert_eq!(p.sku.as_deref(), Some("BGC-CIN2"));
    assert_eq!(p.gtin.as_deref(), Some("0812345678905"));
    assert_eq!(p.mpn.as_deref(), Some("CIN-2-BLK"));
    assert_eq!(p.price.as_deref(), Some("129.00"));
    assert_eq!(p.currency.as_deref(), Some("USD"));
    assert_eq!(p.availability.as_deref(), Some("InStock"));
    assert_eq!(p.seller.as_deref(), Some("Basecamp Gear Co."));
    assert_eq!(p.shipping.as_deref(), Some("4.95"));
    assert_eq!(p.shipping_currency.as_deref(), Some("USD"));
    assert_eq!(p.delivery.as_deref(), Some("2–5 days"));
    assert_eq!(p.ship_to.as_deref(), Some("US"));
    assert_eq!(p.rating.as_deref(), Some("4.6"));
    assert_eq!(p.review_count.as_deref(), Some("318"));
    assert_eq!(
        p.images,
        [
            "http://127.0.0.1:8080/products/img/cinder-stove-front.png",
            "http://127.0.0.1:8080/products/img/cinder-stove-lit.png"
        ]
    );
    assert_eq!(
        p.reviews.iter().map(Review::line).collect::<Vec<_>>(),
        [
            "Lit first time in the wind and cooked for six of us. — Priya N., 5/5",
            "Heavy, but the simmer control is superb. — Tom B., 4/5"
        ]
    );
}

#[test]
fn html_feature_list_and_spec_table_merge_with_additional_property() {
    let p = stove();
    assert_eq!(
        p.features,
        [
            "Two 10,000 BTU burners with true simmer control",
            "Wind shields fold out on three sides",
            "Push-button ignition lights in the cold",
            "Folds flat into its own carry lid"
        ],
        "the footer's and the nav's lists are not features"
    );
    // additionalProperty first; the table's Weight repeats it and is not
    // listed twice.
    assert_eq!(
        p.specs,
        [
            ("Weight".to_string(), "4.1 kg".to_string()),
            ("Output".into(), "20000 BTU/h".into()),
            ("Burners".into(), "2".into()),
            ("Fuel".into(), "Propane (16 oz canister)".into()),
            ("Packed size".into(), "56 × 33 × 8 cm".into()),
        ]
    );
}

#[test]
fn metadata_carries_every_fact_once() {
    let m = stove().metadata();
    let get = |k: &str| -> Vec<&str> {
        m.iter()
            .filter(|(n, _)| n == k)
            .map(|(_, v)| v.as_str())
            .collect()
    };
    assert_eq!(get("name"), ["Cinder 2 Camp Stove"]);
    assert_eq!(get("seller"), ["Basecamp Gear Co."]);
    assert_eq!(get("shipping"), ["4.95"]);
    assert_eq!(get("delivery"), ["2–5 days"]);
    assert_eq!(get("gtin"), ["0812345678905"]);
    assert_eq!(
        get("features"),
        [
            "Two 10,000 BTU burners with true simmer control\nWind shields fold out on three sides\nPush-button ignition lights in the cold\nFolds flat into its own carry lid"
        ]
    );
    assert_eq!(
        get("specs"),
        [
            "Weight: 4.1 kg\nOutput: 20000 BTU/h\nBurners: 2\nFuel: Propane (16 oz canister)\nPacked size: 56 × 33 × 8 cm"
        ]
    );
    assert_eq!(get("reviews").first().map(|r| r.lines().count()), Some(2));
    let keys: Vec<&str> = m.iter().map(|(k, _)| k.as_str()).collect();
    let mut unique = keys.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(
        keys.len(),
        unique.len(),
        "the host keeps metadata as a map: {keys:?}"
    );
    assert_eq!(
        get("images"),
        [
            "http://127.0.0.1:8080/products/img/cinder-stove-front.png http://127.0.0.1:8080/products/img/cinder-stove-lit.png"
        ]
    );
}

#[test]
fn shipping_destinations_and_delivery_in_days() {
    let p = parse_page(
        &fixture("offers/trailpost.html"),
        "http://127.0.0.1:8080/products/offers/trailpost.html",
    )
    .expect("offer");
    assert_eq!(p.shipping.as_deref(), Some("6.50"));
    assert_eq!(p.ship_to.as_deref(), Some("US, CA"));
    assert_eq!(p.delivery.as_deref(), Some("3–5 days"));
    let p = parse_page(
        &fixture("offers/ember.html"),
        "http://127.0.0.1:8080/products/offers/ember.html",
    )
    .expect("offer");
    assert_eq!(p.shipping.as_deref(), Some("0"), "a numeric 0 rate is free");
    assert_eq!(p.availability.as_deref(), Some("PreOrder"));
    assert_eq!(p.seller.as_deref(), Some("Ember & Pine"));
}

#[test]
fn definition_lists_and_headed_lists_are_read() {
    let page = r#"<html><body><main>
        <script type="application/ld+json">{"@type":"Product","name":"Lamp"}</script>
        <div class="specifications"><dl><dt>Height</dt><dd>40 cm</dd><div><dt>Bulb</dt><dd>E27</dd></div></dl></div>
        <h3>Why you'll love it</h3><p>In short:</p><ol><li>Dims smoothly to 5%</li><li>Base: oak</li></ol>
        <ul><li>Not a feature list</li></ul>
        </main></body></html>"#;
    let p = parse_page(page, "https://shop.test/lamp").expect("lamp");
    assert_eq!(p.features, ["Dims smoothly to 5%"]);
    assert_eq!(
        p.specs,
        [
            ("Height".to_string(), "40 cm".to_string()),
            ("Bulb".into(), "E27".into()),
            ("Base".into(), "oak".into()),
        ]
    );
}

#[test]
fn hostile_shipping_values_do_not_panic() {
    let page = r#"<script type="application/ld+json">{"@type":"Product","name":"X",
        "offers":{"@type":"Offer","price":"1","shippingDetails":[1,{"shippingRate":"free",
        "deliveryTime":{"transitTime":{"minValue":5,"maxValue":1,"unitCode":"DAY"}},
        "shippingDestination":[null,{"addressCountry":["GB"]}]}]}}</script>"#;
    let p = parse_page(page, "https://shop.test/x").expect("x");
    assert_eq!(p.delivery, None, "min above max is no range");
    assert_eq!(p.ship_to.as_deref(), Some("GB"));
}
