//! comparison.csv: one row per offer, RFC 4180 — CRLF line ends, fields
//! with a comma, quote, CR or LF quoted, quotes doubled.

use crate::offers::Offer;

/// One field as RFC 4180 writes it.
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

const HEADER: &[&str] = &[
    "rank",
    "title",
    "store",
    "provider",
    "price",
    "shipping",
    "total",
    "currency",
    "availability",
    "rating",
    "reviews",
    "score",
    "url",
];

pub fn comparison(offers: &[Offer]) -> String {
    let mut out = HEADER.join(",");
    out.push_str("\r\n");
    for (i, o) in offers.iter().enumerate() {
        let row = [
            (i + 1).to_string(),
            o.title.clone(),
            o.store.clone(),
            o.provider.clone(),
            format!("{:.2}", o.price),
            o.shipping.map(|s| format!("{s:.2}")).unwrap_or_default(),
            format!("{:.2}", o.total),
            o.currency.clone().unwrap_or_default(),
            o.availability.as_str().to_string(),
            o.rating.map(|r| format!("{r:.1}")).unwrap_or_default(),
            o.reviews.map(|n| n.to_string()).unwrap_or_default(),
            format!("{:.4}", o.score),
            o.url.clone(),
        ];
        let fields: Vec<String> = row.iter().map(|f| field(f)).collect();
        out.push_str(&fields.join(","));
        out.push_str("\r\n");
    }
    out
}
