//! features.md, product.json, storyboard.json, the summary and the
//! context value.

use crate::copy::{self, escape};
use crate::facts::{self, Product};
use crate::storyboard::Shot;
use webrig_workflow_sdk::serde_json::{Value, json};

/// An image of the page and what became of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    pub url: String,
    /// The bundle file, when the download worked.
    pub file: Option<String>,
    pub content_type: Option<String>,
    pub bytes: Option<u64>,
    pub error: Option<String>,
}

fn availability_words(p: &Product) -> Option<&'static str> {
    match p.availability.as_deref()? {
        "in_stock" => Some("in stock"),
        "limited" => Some("limited stock"),
        "pre_order" => Some("available to pre-order"),
        "back_order" => Some("on back-order"),
        "out_of_stock" => Some("out of stock"),
        _ => None,
    }
}

/// One line of the offer facts: "Ridgeline · $89.99 · in stock · rated
/// 4.5/5 (212 reviews)".
pub fn offer_line(p: &Product) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(b) = &p.brand {
        parts.push(b.clone());
    }
    if let Some(price) = facts::price_words(p) {
        parts.push(price);
    }
    if let Some(a) = availability_words(p) {
        parts.push(a.into());
    }
    if let Some(r) = p.rating {
        parts.push(match p.reviews {
            Some(n) => format!("rated {r:.1}/5 ({n} reviews)"),
            None => format!("rated {r:.1}/5"),
        });
    }
    parts.join(" · ")
}

/// "Sold by Basecamp Gear Co. · $4.95 shipping, 2–5 days · GTIN
/// 0812345678905 · SKU BGC-CIN2"; empty when the page says none of it.
pub fn purchase_line(p: &Product) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(s) = facts::seller_name(p) {
        parts.push(format!("Sold by {s}"));
    }
    let ship = match p.shipping {
        Some(0.0) => Some("free shipping".to_string()),
        Some(v) => {
            let mut q = p.clone();
            q.price = Some(v);
            facts::price_words(&q).map(|w| format!("{w} shipping"))
        }
        None => None,
    };
    match (ship, &p.delivery) {
        (Some(s), Some(d)) => parts.push(format!("{s}, {d}")),
        (Some(s), None) => parts.push(s),
        (None, Some(d)) => parts.push(format!("delivery in {d}")),
        (None, None) => {}
    }
    if let Some(g) = &p.gtin {
        parts.push(format!("GTIN {g}"));
    }
    if let Some(s) = &p.sku {
        parts.push(format!("SKU {s}"));
    }
    parts.join(" · ")
}

pub fn features_md(p: &Product) -> String {
    let mut md = format!("# {}\n\n", escape(&p.name));
    let line = offer_line(p);
    if !line.is_empty() {
        md.push_str(&format!("{}\n\n", escape(&line)));
    }
    let buy = purchase_line(p);
    if !buy.is_empty() {
        md.push_str(&format!("{}\n\n", escape(&buy)));
    }
    md.push_str("## Features\n\n");
    if p.features.is_empty() {
        md.push_str("The page lists no features.\n");
    }
    for f in &p.features {
        md.push_str(&format!("- {}\n", escape(f)));
    }
    md.push_str("\n## Specs\n\n");
    if p.specs.is_empty() {
        md.push_str("The page lists no specs.\n");
    } else {
        md.push_str("| Spec | Value |\n|---|---|\n");
        for (k, v) in &p.specs {
            md.push_str(&format!("| {} | {} |\n", escape(k), escape(v)));
        }
    }
    if !p.description.is_empty() {
        md.push_str(&format!("\n## About\n\n{}\n", escape(&p.description)));
    }
    if !p.quotes.is_empty() {
        md.push_str("\n## What reviewers say\n\n");
        for q in &p.quotes {
            md.push_str(&format!("> {}\n\n", escape(q)));
        }
    }
    if let Some(u) = copy::link(&p.url) {
        md.push_str(&format!("\nSource: <{u}>\n"));
    }
    md
}

pub fn product_json(p: &Product, images: &[Image], now: &str) -> Value {
    json!({
        "name": p.name,
        "brand": p.brand,
        "url": p.url,
        "canonical_url": p.canonical,
        "price": p.price,
        "currency": p.currency,
        "availability": p.availability,
        "rating": p.rating,
        "reviews": p.reviews,
        "sku": p.sku,
        "gtin": p.gtin,
        "seller": p.seller,
        "shipping": p.shipping,
        "delivery": p.delivery,
        "reviews_quoted": p.quotes,
        "description": p.description,
        "features": p.features,
        "specs": p.specs.iter().map(|(k, v)| json!({"name": k, "value": v})).collect::<Vec<_>>(),
        "images": images.iter().map(|i| json!({
            "url": i.url,
            "file": i.file,
            "content_type": i.content_type,
            "bytes": i.bytes,
            "error": i.error,
        })).collect::<Vec<_>>(),
        "headline": copy::headline(p),
        "taglines": copy::taglines(p),
        "provider": p.provider,
        "retrieved_at": now,
    })
}

pub fn storyboard_json(p: &Product, shots: &[Shot], seconds: u32) -> Value {
    json!({
        "product": p.name,
        "duration": seconds,
        "shots": shots.iter().enumerate().map(|(i, s)| json!({
            "index": i + 1,
            "kind": s.kind,
            "start": s.start,
            "duration": s.duration,
            "caption": s.caption,
            "voiceover": s.voiceover,
            "image": s.image,
            "transition": s.transition,
        })).collect::<Vec<_>>(),
    })
}

fn short(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

/// At most 10 lines.
pub fn summary(p: &Product, images: &[Image], shots: &[Shot], seconds: u32) -> String {
    let saved = images.iter().filter(|i| i.file.is_some()).count();
    let mut lines = vec![short(&p.name, 100)];
    let offer = offer_line(p);
    if !offer.is_empty() {
        lines.push(short(&offer, 120));
    }
    lines.push(format!("Headline: {}", short(&copy::headline(p), 110)));
    for t in copy::taglines(p) {
        lines.push(format!("- {}", short(&t, 110)));
    }
    lines.push(format!(
        "{} features, {} specs; {saved} of {} images saved; storyboard {} shots, {seconds} s",
        p.features.len(),
        p.specs.len(),
        images.len(),
        shots.len()
    ));
    let failed = images.len() - saved;
    if failed > 0 {
        lines.push(format!(
            "{failed} image download(s) failed (see product.json)"
        ));
    }
    lines.truncate(10);
    lines.join("\n")
}

pub fn context(p: &Product, images: &[Image], shots: &[Shot], seconds: u32) -> Value {
    json!({
        "name": short(&p.name, 120),
        "url": short(&p.url, 300),
        "price": p.price,
        "currency": p.currency,
        "availability": p.availability,
        "rating": p.rating,
        "headline": short(&copy::headline(p), 160),
        "taglines": copy::taglines(p).iter().map(|t| short(t, 160)).collect::<Vec<_>>(),
        "features": p.features.iter().take(6).map(|f| short(f, 100)).collect::<Vec<_>>(),
        "specs": p.specs.iter().take(8).map(|(k, v)| format!("{}: {}", short(k, 30), short(v, 60))).collect::<Vec<_>>(),
        "images": images.iter().filter_map(|i| i.file.clone()).collect::<Vec<_>>(),
        "shots": shots.len(),
        "duration": seconds,
        "files": ["copy.md", "features.md", "product.json", "storyboard.json"],
    })
}
