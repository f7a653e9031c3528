//! The deal score and the sort orders.
//!
//! ```text
//! score = 0.55 · 1/(1 + total/100)          cheaper is better, never 0
//!       + 0.20 · availability               in stock 1, limited .75,
//!                                           pre-/back-order .5,
//!                                           unknown .45, out of stock .1
//!       + 0.15 · rating/5                   unrated offers get 0 here
//!       + 0.10 · 1/(1 + age_hours/24)       fresher is better
//! ```
//!
//! `total` is price + shipping in the region's currency (unknown shipping
//! counts as 0). `age_hours` runs from the offer's own date (a hit's or a
//! page's `published`) to the run's reference time `_now`; an offer
//! without a date was just retrieved, so its age is 0 h and its freshness
//! term the full 0.10 — shop pages rarely date their offers, and the
//! workflow will not invent one.

use crate::offers::{Availability, Offer};
use std::cmp::Ordering;

/// The score's four terms, each already weighted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Breakdown {
    pub price: f64,
    pub availability: f64,
    pub rating: f64,
    pub recency: f64,
}

impl Breakdown {
    pub fn total(&self) -> f64 {
        self.price + self.availability + self.rating + self.recency
    }
}

/// The availability factor of the formula.
pub fn availability_factor(a: Availability) -> f64 {
    match a {
        Availability::InStock => 1.0,
        Availability::Limited => 0.75,
        Availability::PreOrder | Availability::BackOrder => 0.5,
        Availability::Unknown => 0.45,
        Availability::OutOfStock => 0.1,
    }
}

pub fn breakdown(o: &Offer) -> Breakdown {
    Breakdown {
        price: 0.55 / (1.0 + o.total.max(0.0) / 100.0),
        availability: 0.2 * availability_factor(o.availability),
        rating: 0.15 * o.rating.unwrap_or(0.0).clamp(0.0, 5.0) / 5.0,
        recency: 0.1 / (1.0 + o.age_hours.max(0.0) / 24.0),
    }
}

pub fn score(o: &Offer) -> f64 {
    breakdown(o).total()
}

/// The `sort` parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    /// Highest score first.
    BestDeal,
    /// Lowest total (price + shipping) first.
    LowestPrice,
    /// Highest rating first (unrated last), more reviews first on a tie.
    HighestRating,
}

impl Sort {
    pub const CHOICES: [&'static str; 3] = ["best_deal", "lowest_price", "highest_rating"];

    pub fn parse(s: &str) -> Option<Sort> {
        match s {
            "best_deal" => Some(Sort::BestDeal),
            "lowest_price" => Some(Sort::LowestPrice),
            "highest_rating" => Some(Sort::HighestRating),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        Sort::CHOICES[self as usize]
    }

    pub fn words(self) -> &'static str {
        match self {
            Sort::BestDeal => "best deal first",
            Sort::LowestPrice => "lowest total first",
            Sort::HighestRating => "highest rating first",
        }
    }
}

/// Sorts in place. In every order an offer that cannot be ordered (out of
/// stock) comes after every one that can, so the first offer — the one
/// the reports call "Best" — is never out of stock while another is not.
/// Every order ends in the same stable tie-breaks (score, total, title,
/// URL), so equal offers never swap between runs.
pub fn sort(offers: &mut [Offer], by: Sort) {
    sort_within(offers, by);
    offers.sort_by_key(|o| o.availability == Availability::OutOfStock);
}

fn sort_within(offers: &mut [Offer], by: Sort) {
    let tie = |a: &Offer, b: &Offer| -> Ordering {
        b.score
            .total_cmp(&a.score)
            .then(a.total.total_cmp(&b.total))
            .then_with(|| a.title.cmp(&b.title))
            .then_with(|| a.url.cmp(&b.url))
    };
    match by {
        Sort::BestDeal => offers.sort_by(tie),
        Sort::LowestPrice => offers.sort_by(|a, b| a.total.total_cmp(&b.total).then(tie(a, b))),
        Sort::HighestRating => offers.sort_by(|a, b| {
            let ra = a.rating.unwrap_or(-1.0);
            let rb = b.rating.unwrap_or(-1.0);
            rb.total_cmp(&ra)
                .then(b.reviews.unwrap_or(0).cmp(&a.reviews.unwrap_or(0)))
                .then(tie(a, b))
        }),
    }
}
