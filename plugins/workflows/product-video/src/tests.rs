//! Facts, copy and storyboard on documents shaped like the shopping
//! provider's (the small-shop fixture) and a web reader's.

use crate::copy;
use crate::facts::{self, Page, Product};
use crate::render::{self, Image};
use crate::storyboard::{self, Shot};
use webrig_workflow_sdk::types::{Document, Hit, ResultItem};

const URL: &str = "http://127.0.0.1:8080/small/shop/store-a/products/ridgeline-trail-runner-2.html";

fn kv(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// What the shopping provider's `fetch` gives for the Ridgeline page.
fn shopping_doc() -> Document {
    Document {
        url: URL.into(),
        title: "Ridgeline Trail Runner 2".into(),
        text: "Ridgeline Trail Runner 2\n\nPrice: 89.99 USD\n\nAvailability: InStock\n\nFree shipping. A light, grippy trail shoe for rocky singletrack and long days out. • Sticky 4 mm lugs bite on loose ground • Rock plate shields the forefoot • Gusseted tongue keeps grit out • Weight: 255 g • Drop: 6 mm • Stack height: 28 mm • Upper: recycled mesh".into(),
        published: None,
        metadata: kv(&[
            ("price", "89.99"),
            ("currency", "USD"),
            ("availability", "InStock"),
            ("brand", "Ridgeline"),
            ("rating", "4.5"),
            ("review_count", "212"),
            ("image", "http://127.0.0.1:8080/small/shop/store-a/images/ridgeline-2-side.png"),
            ("sku", "PO-RTR2"),
        ]),
    }
}

fn ridgeline() -> Product {
    facts::gather(&Page::new(Some(shopping_doc()), "shopping", None)).expect("a product")
}

#[test]
fn facts_from_the_shopping_provider() {
    let p = ridgeline();
    assert_eq!(p.name, "Ridgeline Trail Runner 2");
    assert_eq!((p.price, p.currency.as_deref()), (Some(89.99), Some("USD")));
    assert_eq!(p.availability.as_deref(), Some("in_stock"));
    assert_eq!((p.rating, p.reviews), (Some(4.5), Some(212)));
    assert_eq!(p.brand.as_deref(), Some("Ridgeline"));
    assert_eq!(p.sku.as_deref(), Some("PO-RTR2"));
    assert_eq!(
        p.description,
        "A light, grippy trail shoe for rocky singletrack and long days out."
    );
    assert_eq!(
        p.features,
        [
            "Sticky 4 mm lugs bite on loose ground",
            "Rock plate shields the forefoot",
            "Gusseted tongue keeps grit out"
        ]
    );
    let specs: Vec<String> = p.specs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    assert_eq!(
        specs,
        [
            "Weight=255 g",
            "Drop=6 mm",
            "Stack height=28 mm",
            "Upper=recycled mesh"
        ]
    );
    assert_eq!(
        p.images,
        ["http://127.0.0.1:8080/small/shop/store-a/images/ridgeline-2-side.png"]
    );
    assert_eq!(p.canonical, None);
}

/// What the web provider's reader gives for the Alpine Scree page.
fn web_doc() -> Document {
    Document {
        url: "http://127.0.0.1:8080/small/shop/store-c/item/alpine-scree.html".into(),
        title: "Alpine Scree Trail Runner | Fellside Running Co.".into(),
        text: "Alpine Scree Trail Runner\nby Alpine\n$99.00\nIn stock\nShipping $4.99\n4.2 out of 5 (140 reviews)\nA stable, protective shoe for scree, talus and loose alpine ground.\nToe bumper takes the knocks\nFirm heel counter for stability\nWeight: 320 g\nDrop: 8 mm".into(),
        published: None,
        metadata: kv(&[
            ("description", "Shipping: $4.99. A stable, protective shoe for scree, talus and loose alpine ground."),
            ("site_name", "Fellside Running Co."),
            ("lang", "en"),
            ("canonical", "http://127.0.0.1:8080/small/shop/store-c/item/alpine-scree.html"),
        ]),
    }
}

#[test]
fn facts_from_a_web_reader() {
    let p = facts::gather(&Page::new(Some(web_doc()), "web", None)).expect("a product");
    assert_eq!(p.name, "Alpine Scree Trail Runner");
    assert_eq!((p.price, p.currency.as_deref()), (Some(99.0), Some("USD")));
    assert_eq!(p.availability.as_deref(), Some("in_stock"));
    assert_eq!((p.rating, p.reviews), (Some(4.2), Some(140)));
    assert_eq!(
        p.description,
        "A stable, protective shoe for scree, talus and loose alpine ground."
    );
    assert_eq!(
        p.features,
        [
            "Toe bumper takes the knocks",
            "Firm heel counter for stability"
        ]
    );
    let specs: Vec<String> = p.specs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    assert_eq!(specs, ["Weight=320 g", "Drop=8 mm"]);
    assert!(p.images.is_empty(), "a web reader gives no image");
    assert_eq!(p.canonical, None, "the canonical URL is the page's own");
}

#[test]
fn spec_metadata_and_image_lists() {
    let doc = Document {
        url: "https://shop.test/p/scree".into(),
        title: "Scree".into(),
        text: String::new(),
        published: None,
        metadata: kv(&[
            ("canonical", "/p/scree-trail-runner"),
            ("spec:Weight", "320 g"),
            ("images", "/img/a.jpg /img/b.jpg, /img/a.jpg"),
        ]),
    };
    let p = facts::gather(&Page::new(Some(doc), "web", None)).expect("a product");
    assert_eq!(p.specs, [("Weight".to_string(), "320 g".to_string())]);
    assert_eq!(
        p.images,
        ["https://shop.test/img/a.jpg", "https://shop.test/img/b.jpg"]
    );
    assert_eq!(
        p.canonical.as_deref(),
        Some("https://shop.test/p/scree-trail-runner")
    );
}

fn hit(title: &str, url: &str, extra: &[(&str, &str)]) -> Hit {
    Hit {
        provider: "shopping".into(),
        source: "shopping".into(),
        item: ResultItem {
            url: url.into(),
            title: title.into(),
            snippet: "Free shipping on this item. Max cushioning for ultra distances on mixed terrain. • Plush midsole for 50 km and beyond • Weight: 298 g".into(),
            published: None,
            extra: kv(extra),
        },
    }
}

#[test]
fn best_match_by_shared_words() {
    let hits = vec![
        hit("Ridgeline Trail Runner 2 Men's", "https://s.test/1", &[]),
        hit("Talus Ultra Trail Running Shoe", "https://s.test/2", &[]),
        hit("Ridgeline Trail Runner 2", "https://s.test/3", &[]),
    ];
    let url = |name: &str| crate::lookup::best_match(name, &hits).map(|h| h.item.url.as_str());
    assert_eq!(
        url("ridgeline trail runner 2"),
        Some("https://s.test/3"),
        "fewer other words wins"
    );
    assert_eq!(url("Talus ultra"), Some("https://s.test/2"));
    assert_eq!(url("kayak paddle"), None);
}

#[test]
fn a_hit_alone_gives_facts() {
    let h = hit(
        "Talus Ultra Trail Running Shoe",
        "https://s.test/2",
        &[
            ("price", "119.95"),
            ("currency", "USD"),
            ("image", "https://s.test/t.png"),
        ],
    );
    let p = facts::gather(&Page::new(None, "", Some(&h))).expect("a product");
    assert_eq!(p.provider, "shopping");
    assert_eq!(p.price, Some(119.95));
    assert_eq!(p.features, ["Plush midsole for 50 km and beyond"]);
    assert_eq!(p.specs, [("Weight".to_string(), "298 g".to_string())]);
    assert_eq!(facts::price_words(&p).as_deref(), Some("$119.95"));
}

fn total(shots: &[Shot]) -> u32 {
    shots.iter().map(|s| s.duration).sum()
}

#[test]
fn storyboard_durations_sum_for_every_length() {
    let full = ridgeline();
    let bare = Product {
        name: "Thing".into(),
        url: "https://s.test/x".into(),
        ..Product::default()
    };
    let images = vec!["images/01.png".to_string(), "images/02.jpg".to_string()];
    for seconds in 10..=120 {
        for p in [&full, &bare] {
            let shots = storyboard::plan(p, &images, seconds);
            assert_eq!(total(&shots), seconds, "{seconds} s for {}", p.name);
            assert!(
                shots.iter().all(|s| s.duration >= storyboard::MIN_SHOT),
                "{seconds} s"
            );
            let mut start = 0;
            for s in &shots {
                assert_eq!(s.start, start);
                start += s.duration;
            }
            assert_eq!(shots.first().map(|s| s.kind), Some("intro"));
            assert_eq!(shots.last().map(|s| s.kind), Some("outro"));
            assert_eq!(shots.last().map(|s| s.transition), Some("fade-out"));
        }
    }
}

#[test]
fn storyboard_for_thirty_seconds() {
    let shots = storyboard::plan(&ridgeline(), &["images/01.png".to_string()], 30);
    let kinds: Vec<&str> = shots.iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        [
            "intro", "feature", "feature", "specs", "price", "rating", "outro"
        ]
    );
    assert_eq!(
        shots.iter().map(|s| s.duration).collect::<Vec<_>>(),
        [5, 5, 4, 4, 4, 4, 4]
    );
    assert_eq!(
        shots[3].caption,
        "Weight 255 g · Drop 6 mm · Stack height 28 mm"
    );
    assert_eq!(shots[4].caption, "$89.99, in stock now");
    assert_eq!(shots[5].caption, "Rated 4.5/5 from 212 reviews");
    // No seller named: the outro names the product, never the host.
    assert_eq!(shots[6].caption, "Ridgeline Trail Runner 2");
    assert_eq!(shots[6].voiceover, "The Ridgeline Trail Runner 2.");
    assert_eq!(
        shots[0].voiceover,
        "Meet the Ridgeline Trail Runner 2: a light, grippy trail shoe for rocky singletrack and long days out."
    );
    assert!(
        shots
            .iter()
            .all(|s| s.image.as_deref() == Some("images/01.png"))
    );
    // Ten seconds: the intro and the outro.
    let short = storyboard::plan(&ridgeline(), &[], 10);
    assert_eq!(
        short
            .iter()
            .map(|s| (s.kind, s.duration))
            .collect::<Vec<_>>(),
        [("intro", 5), ("outro", 5)]
    );
    assert!(
        short.iter().all(|s| s.image.is_none()),
        "no image was downloaded"
    );
    assert_eq!(storyboard::split(31, 4), [8, 8, 8, 7]);
}

#[test]
fn copy_is_derived_from_the_facts() {
    let p = ridgeline();
    assert_eq!(
        copy::headline(&p),
        "Ridgeline Trail Runner 2: sticky 4 mm lugs bite on loose ground"
    );
    assert_eq!(
        copy::taglines(&p),
        [
            "Rock plate shields the forefoot.",
            "Weight: 255 g. Drop: 6 mm.",
            "$89.99, rated 4.5/5 by 212 reviewers."
        ]
    );
    let bare = Product {
        name: "Thing".into(),
        url: "https://s.test/x".into(),
        ..Product::default()
    };
    assert_eq!(copy::headline(&bare), "Thing");
    assert_eq!(copy::taglines(&bare), ["The Thing."]);
    let shots = storyboard::plan(&p, &["images/01.png".to_string()], 30);
    let md = copy::copy_md(&p, &shots, 30);
    assert!(md.starts_with("# Ridgeline Trail Runner 2: sticky 4 mm lugs bite on loose ground\n"));
    assert!(md.contains("## Script (30 s)"));
    assert!(md.contains("**[0:00–0:05]** intro — on screen: Ridgeline Trail Runner 2 (image images/01.png)  \nVO: \"Meet the Ridgeline Trail Runner 2: a light, grippy trail shoe for rocky singletrack and long days out.\""), "{md}");
    assert!(md.contains("**[0:26–0:30]** outro"), "{md}");
}

#[test]
fn hostile_text_stays_text() {
    let mut p = ridgeline();
    p.name = "Quarry <script>alert(1)</script> *Mud*".into();
    let md = render::features_md(&p);
    assert!(
        md.starts_with("# Quarry \\<script\\>alert(1)\\</script\\> \\*Mud\\*\n"),
        "{md}"
    );
    assert!(!copy::copy_md(&p, &storyboard::plan(&p, &[], 20), 20).contains("<script>"));
    p.url = "javascript:alert(1)".into();
    assert!(!render::features_md(&p).contains("javascript:"));
}

#[test]
fn files_and_summary() {
    let p = ridgeline();
    let images = vec![
        Image {
            url: p.images[0].clone(),
            file: Some("images/01.png".into()),
            content_type: Some("image/png".into()),
            bytes: Some(2748),
            error: None,
        },
        Image {
            url: "http://x.test/b.png".into(),
            file: None,
            content_type: None,
            bytes: None,
            error: Some("downloading: denied".into()),
        },
    ];
    let shots = storyboard::plan(&p, &["images/01.png".to_string()], 30);
    let v = render::product_json(&p, &images, "2025-06-01T12:00:00Z");
    assert_eq!(v["images"][0]["file"], "images/01.png");
    assert_eq!(
        v["images"][1]["file"],
        webrig_workflow_sdk::serde_json::Value::Null
    );
    assert_eq!(v["specs"][0]["name"], "Weight");
    let sb = render::storyboard_json(&p, &shots, 30);
    let sum: u64 = sb["shots"]
        .as_array()
        .map(|a| a.iter().filter_map(|s| s["duration"].as_u64()).sum())
        .unwrap_or(0);
    assert_eq!(sum, 30);
    let s = render::summary(&p, &images, &shots, 30);
    assert!(s.lines().count() <= 10, "{s}");
    assert!(
        s.contains("1 of 2 images saved; storyboard 7 shots, 30 s"),
        "{s}"
    );
    assert!(s.contains("1 image download(s) failed"));
    assert!(render::context(&p, &images, &shots, 30).to_string().len() < 4096);
}

#[test]
fn image_names() {
    assert_eq!(
        crate::image_name(1, "https://s.test/a/side.PNG?w=400"),
        "images/01.png"
    );
    assert_eq!(
        crate::image_name(12, "https://s.test/a/photo.jpeg"),
        "images/12.jpeg"
    );
    assert_eq!(
        crate::image_name(3, "https://s.test/img/1234"),
        "images/03.img"
    );
}

#[test]
fn errors_keep_their_kind() {
    use webrig_workflow_sdk::types::{Error, Failure};
    let f = |code: &str| Failure {
        provider: "shopping".into(),
        code: code.into(),
        message: "HTTP 404".into(),
    };
    assert!(
        matches!(crate::failure_error(&f("not_found"), "https://s.test/p"), Error::NotFound(m) if m == "reading https://s.test/p: HTTP 404 (not_found)")
    );
    assert!(matches!(
        crate::failure_error(&f("timeout"), "u"),
        Error::Timeout(_)
    ));
    assert!(matches!(
        crate::failure_error(&f("network"), "u"),
        Error::Upstream(_)
    ));
    assert_eq!(
        crate::code_of(&Error::Denied("no grant".into())),
        "policy_blocked"
    );
}
