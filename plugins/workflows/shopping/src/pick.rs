//! The best pick and why, in plain sentences with figures: shared by
//! deals.md, report.html and the summary, each escaping for its format.

use crate::money;
use crate::offers::{Availability, Offer};
use crate::score::{self, Sort};

/// At most `max` characters, with an ellipsis when cut.
pub fn short(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

pub fn total_of(o: &Offer) -> String {
    money::format(o.total, o.currency.as_deref().unwrap_or("?"))
}

/// "free shipping", "$5.99 shipping (3–5 days)", "shipping not stated".
pub fn shipping_words(o: &Offer) -> String {
    let cost = match o.shipping {
        Some(0.0) => "free shipping".into(),
        Some(s) => format!(
            "{} shipping",
            money::format(s, o.currency.as_deref().unwrap_or("?"))
        ),
        None => "shipping not stated".into(),
    };
    match &o.delivery {
        Some(d) => format!("{cost} ({d})"),
        None => cost,
    }
}

/// The offer the reports call "Best": the first in order, unless it
/// cannot be ordered ([`crate::score::sort`] puts out-of-stock offers
/// last, so then none can).
pub fn best(offers: &[Offer]) -> Option<&Offer> {
    offers
        .first()
        .filter(|o| o.availability != Availability::OutOfStock)
}

/// "rated 4.5/5 from 212 reviews", "rated 4.5/5", "unrated".
pub fn rating_words(o: &Offer) -> String {
    match (o.rating, o.reviews) {
        (Some(r), Some(n)) => format!("rated {r:.1}/5 from {n} reviews"),
        (Some(r), None) => format!("rated {r:.1}/5"),
        _ => "unrated".into(),
    }
}

/// One line about an offer: "$89.99 total ($89.99 + free shipping), in
/// stock, rated 4.5/5 from 212 reviews".
pub fn facts(o: &Offer) -> String {
    format!(
        "{} total ({} + {}), {}, {}",
        total_of(o),
        money::format(o.price, o.currency.as_deref().unwrap_or("?")),
        shipping_words(o),
        o.availability.words(),
        rating_words(o)
    )
}

/// Why `offers[0]` leads under `sort`: sentences with figures.
pub fn reasons(offers: &[Offer], sort: Sort) -> Vec<String> {
    let Some(best) = offers.first() else {
        return Vec::new();
    };
    let n = offers.len();
    let next = offers.get(1);
    let mut out = Vec::new();
    match sort {
        Sort::BestDeal => {
            let b = score::breakdown(best);
            out.push(format!(
                "It has the highest deal score of the {n} offer{}: {:.3} of 1 — price {:.3} of 0.55, availability {:.3} of 0.20, rating {:.3} of 0.15, freshness {:.3} of 0.10.",
                plural(n),
                best.score,
                b.price,
                b.availability,
                b.rating,
                b.recency
            ));
            if let Some(next) = next {
                out.push(format!(
                    "The runner-up, {} at {}, scores {:.3} ({:.3} less) with {} total, {}.",
                    short(&next.title, 80),
                    next.store,
                    next.score,
                    best.score - next.score,
                    total_of(next),
                    compare_total(next, best)
                ));
            }
            let cheapest = offers
                .iter()
                .min_by(|a, b| a.total.total_cmp(&b.total))
                .unwrap_or(best);
            if std::ptr::eq(cheapest, best) || cheapest.total == best.total {
                out.push("It is also the cheapest offer.".into());
            } else {
                out.push(format!(
                    "The cheapest offer, {} ({} total), scores only {:.3}: {}, {}.",
                    short(&cheapest.title, 80),
                    total_of(cheapest),
                    cheapest.score,
                    cheapest.availability.words(),
                    rating_words(cheapest)
                ));
            }
        }
        Sort::LowestPrice => {
            let orderable = offers
                .iter()
                .filter(|o| o.availability != Availability::OutOfStock)
                .count();
            out.push(format!(
                "It has the lowest total of the {orderable} offer{} that can be ordered: {} ({} + {}).",
                plural(orderable),
                total_of(best),
                money::format(best.price, best.currency.as_deref().unwrap_or("?")),
                shipping_words(best)
            ));
            if let Some(next) = next {
                out.push(format!(
                    "Next is {} at {}: {} total, {}.",
                    short(&next.title, 80),
                    next.store,
                    total_of(next),
                    compare_total(next, best)
                ));
            }
            out.push(format!("Its deal score is {:.3}.", best.score));
            let cheaper: Vec<&Offer> = offers
                .iter()
                .filter(|o| o.availability == Availability::OutOfStock && o.total < best.total)
                .collect();
            if let Some(low) = cheaper.iter().min_by(|a, b| a.total.total_cmp(&b.total)) {
                out.push(format!(
                    "{} out-of-stock offer{} cost{} less (from {}, {}) but cannot be ordered; listed last.",
                    cheaper.len(),
                    plural(cheaper.len()),
                    if cheaper.len() == 1 { "s" } else { "" },
                    total_of(low),
                    short(&low.title, 80)
                ));
            }
        }
        Sort::HighestRating => {
            match best.rating {
                Some(_) => out.push(format!(
                    "It has the highest rating of the {n} offer{}: {}.",
                    plural(n),
                    rating_words(best)
                )),
                None => out.push("No offer is rated; ties go to the best deal score.".into()),
            }
            if let Some(next) = next {
                out.push(format!(
                    "Next is {} at {}, {}, at {} total.",
                    short(&next.title, 80),
                    next.store,
                    rating_words(next),
                    total_of(next)
                ));
            }
            out.push(format!(
                "It costs {} in total; its deal score is {:.3}.",
                total_of(best),
                best.score
            ));
        }
    }
    match best.availability {
        Availability::OutOfStock => out.push("Note: it is out of stock.".into()),
        Availability::Limited => out.push("Note: stock is limited.".into()),
        Availability::PreOrder => {
            out.push("Note: it is a pre-order; it ships when it is released.".into())
        }
        Availability::BackOrder => {
            out.push("Note: it is on back-order; it ships when it is restocked.".into())
        }
        Availability::Unknown => {
            out.push("Note: the store does not say whether it is in stock.".into())
        }
        Availability::InStock => {}
    }
    out
}

/// "$1.96 more than the pick", "$3.00 less than the pick", "the same
/// total as the pick".
fn compare_total(other: &Offer, pick: &Offer) -> String {
    let diff = money::cents(other.total - pick.total);
    let cur = pick.currency.as_deref().unwrap_or("?");
    if diff > 0.0 {
        format!("{} more than the pick", money::format(diff, cur))
    } else if diff < 0.0 {
        format!("{} less than the pick", money::format(-diff, cur))
    } else {
        "the same total as the pick".into()
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
