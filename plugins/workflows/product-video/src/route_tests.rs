//! The same product page served by either provider — the shopping
//! provider (the kit's product document) or the web reader (readable text
//! plus the kit's product metadata) — gives the same facts. Once the web
//! route lost the price and images and the shopping route said "The page
//! lists no features" on a page with four.

use crate::facts::{self, Page};
use crate::{copy, render, storyboard};
use webrig_workflow_sdk::kit::html::{Document as Html, product};
use webrig_workflow_sdk::kit::readable;
use webrig_workflow_sdk::types::{Document, Error, Failure};

const URL: &str = "http://127.0.0.1:8080/products/cinder-stove.html";

fn page() -> String {
    let path = format!(
        "{}/../../../tests/fixtures/web/products/cinder-stove.html",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("fixture {path}: {e}"))
        .replace("{{origin}}", "http://127.0.0.1:8080")
}

/// Metadata as it reaches a workflow: the host keeps it as a map (one
/// value a key, sorted by key).
fn through_host(pairs: Vec<(String, String)>) -> Vec<(String, String)> {
    pairs
        .into_iter()
        .collect::<std::collections::BTreeMap<_, _>>()
        .into_iter()
        .collect()
}

/// What the shopping provider's `fetch` gives.
fn shopping_doc() -> Document {
    let p = product::parse_page(&page(), URL).expect("product");
    Document {
        url: p.url.clone(),
        title: p.name.clone(),
        text: p.text(),
        published: None,
        metadata: through_host(p.metadata()),
    }
}

/// What the web provider's `fetch` gives (its `article::read`).
fn web_doc() -> Document {
    let html = Html::parse(&page());
    let r = readable::extract(&html, URL);
    let mut metadata = r.metadata();
    metadata.extend(product::read(&html, URL).expect("product").metadata());
    Document {
        url: URL.into(),
        title: r.title,
        text: r.text,
        published: r.published,
        metadata: through_host(metadata),
    }
}

const FEATURES: [&str; 4] = [
    "Two 10,000 BTU burners with true simmer control",
    "Wind shields fold out on three sides",
    "Push-button ignition lights in the cold",
    "Folds flat into its own carry lid",
];

#[test]
fn either_provider_gives_price_images_features_specs_and_offer() {
    for (route, doc) in [("shopping", shopping_doc()), ("web", web_doc())] {
        let p = facts::gather(&Page::new(Some(doc), route, None)).expect("facts");
        assert_eq!(p.name, "Cinder 2 Camp Stove", "{route}");
        assert_eq!(p.price, Some(129.0), "{route}");
        assert_eq!(p.currency.as_deref(), Some("USD"), "{route}");
        assert_eq!(p.images.len(), 2, "{route}: {:?}", p.images);
        assert_eq!(p.features, FEATURES, "{route}");
        let spec_names: Vec<&str> = p.specs.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            spec_names,
            ["Weight", "Output", "Burners", "Fuel", "Packed size"],
            "{route}"
        );
        assert_eq!(p.seller.as_deref(), Some("Basecamp Gear Co."), "{route}");
        assert_eq!(p.shipping, Some(4.95), "{route}");
        assert_eq!(p.delivery.as_deref(), Some("2–5 days"), "{route}");
        assert_eq!(p.gtin.as_deref(), Some("0812345678905"), "{route}");
        assert_eq!(p.quotes.len(), 2, "{route}");
        assert!(
            p.description
                .starts_with("A two-burner camp stove that boils a litre of water"),
            "{route}: {}",
            p.description
        );
        let md = render::features_md(&p);
        assert!(!md.contains("lists no features"), "{route}: {md}");
        assert!(
            md.contains("- Wind shields fold out on three sides\n"),
            "{route}: {md}"
        );
        assert!(
            md.contains("| Packed size | 56 × 33 × 8 cm |"),
            "{route}: {md}"
        );
        assert!(
            md.contains("Sold by Basecamp Gear Co. · $4.95 shipping, 2–5 days · GTIN 0812345678905 · SKU BGC-CIN2"),
            "{route}: {md}"
        );
    }
}

#[test]
fn the_script_says_what_it_does_and_ends_with_the_seller_not_the_host() {
    let p = facts::gather(&Page::new(Some(web_doc()), "web", None)).expect("facts");
    let shots = storyboard::plan(&p, &[], 30);
    let md = copy::copy_md(&p, &shots, 30);
    assert!(
        md.contains("VO: \"Meet the Cinder 2 Camp Stove: a two-burner camp stove that boils a litre of water in under four minutes, folds flat into its own lid and runs on standard propane canisters.\""),
        "{md}"
    );
    assert!(
        md.contains("VO: \"The Cinder 2 Camp Stove. Find it at Basecamp Gear Co.\"\n"),
        "{md}"
    );
    assert!(!md.contains("Find it at 127.0.0.1"), "{md}");
    // A seller that is only a host is no call to action.
    let mut q = p.clone();
    q.seller = Some("127.0.0.1:8080".into());
    let md = copy::copy_md(&q, &storyboard::plan(&q, &[], 30), 30);
    assert!(!md.contains("Find it at"), "{md}");
    assert!(copy::taglines(&q).iter().all(|t| !t.contains("127.0.0.1")));
}

#[test]
fn a_grant_refusal_names_whose_grant_is_missing() {
    let f = Failure {
        provider: "web".into(),
        code: "policy_blocked".into(),
        message: "host 127.0.0.1:8080 was not granted".into(),
    };
    match crate::failure_error(&f, URL) {
        Error::Denied(m) => {
            assert!(
                m.contains("the web provider's grant is missing, not the product-video workflow's"),
                "{m}"
            );
            assert!(
                m.contains("webrig plugin grant web --http 127.0.0.1:8080"),
                "{m}"
            );
        }
        other => panic!("{other:?}"),
    }
    let m = crate::download_error_message(
        &Error::Denied("host 127.0.0.1:8080 was not granted".into()),
        "http://127.0.0.1:8080/products/img/cinder-stove-front.png",
    );
    assert!(
        m.contains("the workflow's grant is missing, not a provider's")
            && m.contains("webrig plugin grant product-video --http 127.0.0.1:8080"),
        "{m}"
    );
}
