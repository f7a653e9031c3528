//! From listings to the ranked offers: normalize, drop what cannot be
//! compared (no price, another currency, over budget — each counted),
//! dedupe, score, sort, cap. Pure, so the whole path is tested natively.

use crate::offers::{self, Listing, Offer, Rejected};
use crate::score::{self, Sort};
use std::collections::BTreeMap;

/// What the user asked for, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub query: String,
    pub region: String,
    /// The region's currency: offers in others are dropped.
    pub currency: String,
    pub budget: Option<f64>,
    pub sort: Sort,
    pub limit: usize,
    /// The run's reference time (`_now`, RFC 3339).
    pub now: String,
}

/// How many listings each step removed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Drops {
    /// No price, or a price of 0 or less.
    pub no_price: usize,
    /// Priced in another currency than the region's (or in none).
    pub currency: usize,
    /// Total (price + shipping) above the budget.
    pub over_budget: usize,
    /// The same offer again (same canonical URL, or same title and store).
    pub duplicate: usize,
    /// The currencies of the offers dropped for theirs (`?` for none).
    pub other_currencies: BTreeMap<String, usize>,
    /// Each dropped listing by name, in the order it was dropped, so the
    /// reports can say which offers were left out and why.
    pub offers: Vec<DroppedOffer>,
}

/// One listing left out of the comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct DroppedOffer {
    pub title: String,
    pub store: String,
    pub url: String,
    /// "no usable price", "priced in GBP, not USD", "total $160.00 over
    /// the budget of $150.00", "duplicate of “X” at Store".
    pub reason: String,
}

impl DroppedOffer {
    fn of(o: &Offer, reason: String) -> DroppedOffer {
        DroppedOffer {
            title: o.title.clone(),
            store: o.store.clone(),
            url: o.url.clone(),
            reason,
        }
    }
}

impl Drops {
    pub fn total(&self) -> usize {
        self.no_price + self.currency + self.over_budget + self.duplicate
    }
}

/// The ranked offers and what happened on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Sorted, at most `limit`.
    pub offers: Vec<Offer>,
    /// Offers left before the `limit` cap.
    pub kept: usize,
    /// Listings the providers gave.
    pub found: usize,
    pub drops: Drops,
}

pub fn process(listings: &[Listing], opts: &Options) -> Outcome {
    let mut drops = Drops::default();
    let mut priced = Vec::new();
    for l in listings {
        match offers::normalize(l, &opts.now) {
            Ok(o) => priced.push(o),
            Err(Rejected::NoPrice) => {
                drops.no_price += 1;
                drops.offers.push(DroppedOffer {
                    title: offers::clean_text(&l.title),
                    store: offers::store_of(l),
                    url: l.url.clone(),
                    reason: "no usable price (missing or 0)".into(),
                });
            }
        }
    }
    let mut in_budget = Vec::new();
    for o in priced {
        if o.currency.as_deref() != Some(opts.currency.as_str()) {
            drops.currency += 1;
            let code = o.currency.clone().unwrap_or_else(|| "?".into());
            let reason = match &o.currency {
                Some(c) => format!("priced in {c}, not {}", opts.currency),
                None => format!("no currency stated (region {})", opts.region),
            };
            drops.offers.push(DroppedOffer::of(&o, reason));
            *drops.other_currencies.entry(code).or_default() += 1;
        } else if let Some(b) = opts.budget.filter(|b| o.total > *b) {
            drops.over_budget += 1;
            let reason = format!(
                "total {} over the budget of {}",
                crate::money::format(o.total, &opts.currency),
                crate::money::format(b, &opts.currency)
            );
            drops.offers.push(DroppedOffer::of(&o, reason));
        } else {
            in_budget.push(o);
        }
    }
    let (mut kept, duplicates) = dedupe_named(in_budget);
    drops.duplicate = duplicates.len();
    drops.offers.extend(duplicates);
    for o in &mut kept {
        o.score = score::score(o);
    }
    score::sort(&mut kept, opts.sort);
    let count = kept.len();
    kept.truncate(opts.limit);
    Outcome {
        offers: kept,
        kept: count,
        found: listings.len(),
        drops,
    }
}

/// Removes repeats of an offer: the same canonical URL, or the same
/// normalized title at the same store. Of a group the cheapest total is
/// kept (the first listed on a tie); the survivors keep their order.
pub fn dedupe(list: Vec<Offer>) -> (Vec<Offer>, usize) {
    let (kept, removed) = dedupe_named(list);
    (kept, removed.len())
}

/// [`dedupe`], naming each removed offer and the one it repeats.
pub fn dedupe_named(list: Vec<Offer>) -> (Vec<Offer>, Vec<DroppedOffer>) {
    let mut order: Vec<usize> = (0..list.len()).collect();
    order.sort_by(|&a, &b| list[a].total.total_cmp(&list[b].total).then(a.cmp(&b)));
    // (canonical URL, (title key, store), index of the kept offer)
    let mut keys: Vec<(String, (String, String), usize)> = Vec::new();
    let mut keep = vec![false; list.len()];
    let mut removed = Vec::new();
    for i in order {
        let o = &list[i];
        let by_title = (offers::title_key(&o.title), o.store.to_lowercase());
        if let Some((url, _, k)) = keys
            .iter()
            .find(|(url, title, _)| *url == o.canonical || *title == by_title)
        {
            let why = if *url == o.canonical {
                "same canonical URL"
            } else {
                "same title at the same store"
            };
            let first = &list[*k];
            removed.push(DroppedOffer::of(
                o,
                format!(
                    "duplicate of “{}” at {} ({why}; the cheaper copy is kept)",
                    first.title, first.store
                ),
            ));
            continue;
        }
        keys.push((o.canonical.clone(), by_title, i));
        keep[i] = true;
    }
    let kept = list
        .into_iter()
        .zip(keep)
        .filter_map(|(o, k)| k.then_some(o))
        .collect();
    (kept, removed)
}

/// Why no offer is left, for the NotFound error: nothing found, or what
/// removed them all.
pub fn why_none(out: &Outcome, opts: &Options) -> String {
    let q = &opts.query;
    if out.found == 0 {
        return format!("no shopping provider found any product for {q:?}");
    }
    let d = &out.drops;
    let mut parts = Vec::new();
    if d.no_price > 0 {
        parts.push(format!("{} without a usable price", d.no_price));
    }
    if d.currency > 0 {
        let seen: Vec<String> = d
            .other_currencies
            .iter()
            .map(|(c, n)| format!("{n} {c}"))
            .collect();
        parts.push(format!(
            "{} not in {} (region {}: {})",
            d.currency,
            opts.currency,
            opts.region,
            seen.join(", ")
        ));
    }
    if d.over_budget > 0 {
        let budget = opts.budget.unwrap_or_default();
        parts.push(format!(
            "{} over the budget of {}",
            d.over_budget,
            crate::money::format(budget, &opts.currency)
        ));
    }
    format!(
        "no offer left for {q:?}: all {} found were dropped — {}",
        out.found,
        parts.join("; ")
    )
}
