//! Product parsing against the shop fixtures and inline pages.

use super::*;
use crate::product::{Product, into_document, into_result, parse_page};

const BASE: &str = "http://127.0.0.1:8080/providers/shop/";

fn fixture(rel: &str) -> String {
    let path = format!(
        "{}/../../../tests/fixtures/web/providers/shop/{rel}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("fixture {path}: {e}"))
}

#[test]
fn json_ld_product_in_graph() {
    let url = format!("{BASE}products/trail-runner-x.html");
    let p = parse_page(&fixture("products/trail-runner-x.html"), &url).expect("a product");
    assert_eq!(p.name, "Trail Runner X & Webrig Edition");
    assert_eq!(p.url, url, "@id '#product' is not a page URL; the page is");
    assert_eq!(p.price.as_deref(), Some("129.00"));
    assert_eq!(p.currency.as_deref(), Some("EUR"));
    assert_eq!(p.availability.as_deref(), Some("InStock"));
    assert_eq!(p.brand.as_deref(), Some("Ridgeline"));
    assert_eq!(p.rating.as_deref(), Some("4.6"));
    assert_eq!(p.review_count.as_deref(), Some("128"));
    assert_eq!(p.sku.as_deref(), Some("TRX-WR-42"));
    assert_eq!(
        p.image.as_deref(),
        Some("http://127.0.0.1:8080/providers/shop/img/trail-runner-x.jpg")
    );
    assert!(
        p.description.starts_with("A light trail shoe"),
        "{}",
        p.description
    );
}

#[test]
fn microdata_only_product() {
    let url = format!("{BASE}products/merino-socks.html");
    let p = parse_page(&fixture("products/merino-socks.html"), &url).expect("a product");
    assert_eq!(p.name, "Merino Hiking Socks (3 pairs)");
    assert_eq!(p.url, url);
    assert_eq!(p.price.as_deref(), Some("24.90"));
    assert_eq!(p.currency.as_deref(), Some("EUR"));
    assert_eq!(p.availability.as_deref(), Some("LimitedAvailability"));
    assert_eq!(p.brand.as_deref(), Some("Woolpath"));
    assert_eq!(p.rating.as_deref(), Some("4.8"));
    assert_eq!(p.review_count.as_deref(), Some("312"));
    assert_eq!(p.sku.as_deref(), Some("WP-MS-3"));
    assert_eq!(
        p.image.as_deref(),
        Some("http://127.0.0.1:8080/providers/shop/img/merino-socks.jpg")
    );
    assert_eq!(
        p.description,
        "Cushioned merino wool socks that stay warm when wet & don’t smell after a week on the trail."
    );
}

#[test]
fn item_list_listing_links_product_pages() {
    let url = format!("{BASE}search.html?q=webrig");
    let found = listing::parse(&fixture("search.html"), &url);
    assert!(found.products.is_empty(), "{:#?}", found.products);
    assert_eq!(
        found.links,
        [
            format!("{BASE}products/trail-runner-x.html"),
            format!("{BASE}products/merino-socks.html"),
        ]
    );
}

#[test]
fn listing_with_inline_products_and_link_fallback() {
    let page = r#"<html><body>
      <div itemscope itemtype="http://schema.org/ItemList">
        <div itemprop="itemListElement" itemscope itemtype="http://schema.org/ListItem">
          <div itemprop="item" itemscope itemtype="http://schema.org/Product">
            <a itemprop="url" href="/p/lamp-1"><span itemprop="name">Desk Lamp</span></a>
            <span itemprop="offers" itemscope itemtype="http://schema.org/Offer">
              <span itemprop="price">19.99</span><meta itemprop="priceCurrency" content="USD">
            </span>
          </div>
        </div>
      </div>
      <script type="application/ld+json">{"@type":"ItemList","itemListElement":[{"@type":"ListItem","item":{"@type":"Product","name":"Floor Lamp","url":"/p/lamp-2","offers":[{"@type":"Offer","price":49,"priceCurrency":"USD"}]}}]}</script>
    </body></html>"#;
    let found = listing::parse(page, "https://shop.example/search?q=lamp");
    let names: Vec<_> = found.products.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["Floor Lamp", "Desk Lamp"]);
    assert_eq!(found.products[0].url, "https://shop.example/p/lamp-2");
    assert_eq!(found.products[0].price.as_deref(), Some("49"));
    assert_eq!(found.products[1].price.as_deref(), Some("19.99"));
    assert!(found.links.is_empty(), "{:?}", found.links);

    let links_only = r#"<a href="/products/a">A</a><a href="/about">About</a><a href="https://other.example/products/b">B</a><a href="/products/a#x">A again</a>"#;
    let found = listing::parse(links_only, "https://shop.example/search?q=x");
    assert_eq!(found.links, ["https://shop.example/products/a"]);
}

#[test]
fn aggregate_offer_and_open_graph_fallback() {
    let page = r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Kit","offers":{"@type":"AggregateOffer","lowPrice":"10.00","highPrice":"20.00","priceCurrency":"GBP"}}</script>"#;
    let p = parse_page(page, "https://s.example/kit").expect("product");
    assert_eq!(
        (p.price.as_deref(), p.currency.as_deref()),
        (Some("10.00"), Some("GBP"))
    );
    let og = r#"<meta property="og:title" content="Mug"><meta property="product:price:amount" content="8"><meta property="product:price:currency" content="USD">"#;
    let p = parse_page(og, "https://s.example/mug").expect("og product");
    assert_eq!((p.name.as_str(), p.price.as_deref()), ("Mug", Some("8")));
}

#[test]
fn pages_without_products_and_broken_data() {
    for page in [
        "",
        "<html><body><p>No products here</p></body></html>",
        "<script type=\"application/ld+json\">{\"@type\":\"Product\"</script>",
        "<div itemscope itemtype=\"https://schema.org/Product\"></div>",
    ] {
        assert_eq!(
            parse_page(page, "https://s.example/"),
            None::<Product>,
            "{page}"
        );
    }
    let mut deep = String::from("{\"a\":");
    deep.push_str(&"[".repeat(10_000));
    let page = format!("<script type=\"application/ld+json\">{deep}</script>");
    assert_eq!(parse_page(&page, "https://s.example/"), None);
}

#[test]
fn search_url_needs_a_template() {
    assert!(
        matches!(search_url(None, "x"), Err(Error::InvalidInput(m)) if m.contains("plugins.shopping.search_url"))
    );
    assert!(matches!(
        search_url(Some("https://s.example/search".into()), "x"),
        Err(Error::InvalidInput(_))
    ));
    assert!(matches!(
        search_url(Some("file:///etc/{query}".into()), "x"),
        Err(Error::InvalidInput(_))
    ));
    assert_eq!(
        search_url(
            Some("https://s.example/search?q={query}&sort=1".into()),
            "trail shoes & socks"
        )
        .expect("url"),
        "https://s.example/search?q=trail%20shoes%20%26%20socks&sort=1"
    );
}

#[test]
fn products_become_results_with_extras() {
    let url = format!("{BASE}products/merino-socks.html");
    let item =
        into_result(parse_page(&fixture("products/merino-socks.html"), &url).expect("product"));
    assert_eq!(item.title, "Merino Hiking Socks (3 pairs)");
    assert_eq!(item.published, None);
    let keys: Vec<_> = item.extra.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "name",
            "price",
            "currency",
            "availability",
            "brand",
            "rating",
            "review_count",
            "image",
            "sku"
        ]
    );
}

/// The products fixture: schema.org data whose description has no
/// bullets, features in an HTML list, specs in a table. Once the provider
/// gave only the data's fields, so a workflow said "The page lists no
/// features" on a page with four, and every offer's shipping was "not
/// stated" although the offer's `shippingDetails` said it.
#[test]
fn a_product_document_carries_features_specs_seller_and_shipping() {
    let path = format!(
        "{}/../../../tests/fixtures/web/products/cinder-stove.html",
        env!("CARGO_MANIFEST_DIR")
    );
    let page = std::fs::read_to_string(&path)
        .expect("fixture")
        .replace("{{origin}}", "http://127.0.0.1:8080");
    let url = "http://127.0.0.1:8080/products/cinder-stove.html";
    let doc = into_document(parse_page(&page, url).expect("product"));
    let get = |k: &str| -> Vec<&str> {
        doc.metadata
            .iter()
            .filter(|(n, _)| n == k)
            .map(|(_, v)| v.as_str())
            .collect()
    };
    assert_eq!(get("price"), ["129.00"]);
    assert_eq!(get("seller"), ["Basecamp Gear Co."]);
    assert_eq!(get("shipping"), ["4.95"]);
    assert_eq!(get("delivery"), ["2–5 days"]);
    assert_eq!(
        get("features").first().map(|f| f.lines().count()),
        Some(4),
        "{:?}",
        doc.metadata
    );
    assert!(
        get("specs")
            .first()
            .is_some_and(|s| s.lines().any(|l| l == "Fuel: Propane (16 oz canister)")),
        "{:?}",
        doc.metadata
    );
    assert!(
        doc.text
            .contains("• Wind shields fold out on three sides\n"),
        "{}",
        doc.text
    );
    assert!(
        doc.text.contains("Packed size: 56 × 33 × 8 cm"),
        "{}",
        doc.text
    );
}
