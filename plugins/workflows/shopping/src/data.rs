//! offers.json (the data file) and the small `context` value for an
//! agent's context window.

use crate::offers::Offer;
use crate::pick::short;
use crate::pipeline::{Options, Outcome};
use crate::score;
use webrig_workflow_sdk::serde_json::{Value, json};
use webrig_workflow_sdk::types::Failure;

fn round(v: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (v * f).round() / f
}

pub fn offer(rank: usize, o: &Offer) -> Value {
    let b = score::breakdown(o);
    json!({
        "rank": rank,
        "title": o.title,
        "price": round(o.price, 2),
        "currency": o.currency,
        "shipping": o.shipping.map(|s| round(s, 2)),
        "delivery": o.delivery,
        "total": round(o.total, 2),
        "availability": o.availability.as_str(),
        "rating": o.rating,
        "reviews": o.reviews,
        "url": o.url,
        "canonical_url": o.canonical,
        "provider": o.provider,
        "store": o.store,
        "brand": o.brand,
        "image": o.image,
        "published": o.published,
        "age_hours": round(o.age_hours, 2),
        "retrieved_at": o.retrieved_at,
        "score": round(o.score, 4),
        "score_parts": {
            "price": round(b.price, 4),
            "availability": round(b.availability, 4),
            "rating": round(b.rating, 4),
            "recency": round(b.recency, 4),
        },
    })
}

fn dropped(out: &Outcome) -> Value {
    let d = &out.drops;
    json!({
        "no_price": d.no_price,
        "currency": d.currency,
        "over_budget": d.over_budget,
        "duplicate": d.duplicate,
        "other_currencies": d.other_currencies,
        "offers": d.offers.iter().map(|o| json!({
            "title": o.title,
            "store": o.store,
            "url": o.url,
            "reason": o.reason,
        })).collect::<Vec<_>>(),
    })
}

fn failures_json(failures: &[Failure]) -> Vec<Value> {
    failures
        .iter()
        .map(|f| json!({"provider": f.provider, "code": f.code, "message": f.message}))
        .collect()
}

pub fn offers_json(out: &Outcome, opts: &Options, failures: &[Failure]) -> Value {
    json!({
        "query": opts.query,
        "region": opts.region,
        "currency": opts.currency,
        "budget": opts.budget,
        "sort": opts.sort.as_str(),
        "limit": opts.limit,
        "retrieved_at": opts.now,
        "found": out.found,
        "kept": out.kept,
        "dropped": dropped(out),
        "offers": out.offers.iter().enumerate().map(|(i, o)| offer(i + 1, o)).collect::<Vec<_>>(),
        "failures": failures_json(failures),
        "scoring": "0.55*1/(1+total/100) + 0.2*availability(in_stock 1, limited 0.75, pre_order/back_order 0.5, unknown 0.45, out_of_stock 0.1) + 0.15*rating/5 + 0.1*1/(1+age_hours/24); total = price + shipping (unknown shipping = 0); age 0 h without an offer date",
    })
}

/// A few KB at most: the pick, the top five, the counts.
pub fn context(out: &Outcome, opts: &Options) -> Value {
    let brief = |rank: usize, o: &Offer| {
        json!({
            "rank": rank,
            "title": short(&o.title, 80),
            "store": short(&o.store, 40),
            "total": round(o.total, 2),
            "currency": o.currency,
            "availability": o.availability.as_str(),
            "rating": o.rating,
            "score": round(o.score, 3),
            "url": short(&o.url, 300),
        })
    };
    json!({
        "query": short(&opts.query, 200),
        "currency": opts.currency,
        "sort": opts.sort.as_str(),
        "budget": opts.budget,
        "found": out.found,
        "kept": out.kept,
        "dropped": dropped(out),
        "best": crate::pick::best(&out.offers).map(|o| brief(1, o)),
        "top": out.offers.iter().take(5).enumerate().map(|(i, o)| brief(i + 1, o)).collect::<Vec<_>>(),
        "files": ["deals.md", "offers.json", "comparison.csv", "report.html"],
    })
}
