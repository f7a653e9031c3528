//! deals.md (the report) and the compact summary.

use crate::pick::{self, short};
use crate::pipeline::{Options, Outcome};
use webrig_workflow_sdk::types::Failure;

/// Page-derived text made inert in Markdown.
pub use webrig_workflow_sdk::kit::escape::markdown as escape;

/// A link target Markdown cannot be broken out of: http(s) only, spaces
/// and parentheses percent-encoded.
fn link(url: &str) -> Option<String> {
    let lower = url.to_ascii_lowercase();
    (lower.starts_with("http://") || lower.starts_with("https://")).then(|| {
        url.replace(' ', "%20")
            .replace('(', "%28")
            .replace(')', "%29")
            .replace('<', "%3C")
            .replace('>', "%3E")
            .replace('|', "%7C")
    })
}

pub fn deals(out: &Outcome, opts: &Options, failures: &[Failure]) -> String {
    let mut md = format!("# Deals for \"{}\"\n\n", escape(&opts.query));
    let budget = opts
        .budget
        .map(|b| format!(", budget {}", crate::money::format(b, &opts.currency)))
        .unwrap_or_default();
    md.push_str(&format!(
        "{} offer{} in {} (region {}{budget}), {}; {} listing{} found, retrieved {}.\n\n",
        out.kept,
        if out.kept == 1 { "" } else { "s" },
        opts.currency,
        opts.region,
        opts.sort.words(),
        out.found,
        if out.found == 1 { "" } else { "s" },
        opts.now
    ));
    if !out.offers.is_empty() && pick::best(&out.offers).is_none() {
        md.push_str("## No pick\n\nEvery offer left is out of stock, so none is recommended; they are listed below.\n\n");
    }
    if let Some(best) = pick::best(&out.offers) {
        md.push_str("## Best pick\n\n");
        md.push_str(&format!(
            "**{}** at {}: {}.\n\n",
            escape(&best.title),
            escape(&best.store),
            escape(&pick::facts(best))
        ));
        for reason in pick::reasons(&out.offers, opts.sort) {
            md.push_str(&format!("{}\n", escape(&reason)));
        }
        if let Some(u) = link(&best.url) {
            md.push_str(&format!("\n<{u}>\n"));
        }
        md.push('\n');
    }
    md.push_str("## Offers\n\n");
    md.push_str(
        "| # | Offer | Store | Price | Shipping | Total | Availability | Rating | Score |\n",
    );
    md.push_str("|---|---|---|---:|---|---:|---|---|---:|\n");
    for (i, o) in out.offers.iter().enumerate() {
        let cur = o.currency.as_deref().unwrap_or("?");
        let title = match link(&o.url) {
            Some(u) => format!("[{}](<{u}>)", escape(&short(&o.title, 90))),
            None => escape(&short(&o.title, 90)),
        };
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.3} |\n",
            i + 1,
            title,
            escape(&o.store),
            crate::money::format(o.price, cur),
            {
                let cost = match o.shipping {
                    Some(0.0) => "free".to_string(),
                    Some(s) => crate::money::format(s, cur),
                    None => "not stated".into(),
                };
                match &o.delivery {
                    Some(d) => format!("{cost}, {}", escape(d)),
                    None => cost,
                }
            },
            crate::money::format(o.total, cur),
            o.availability.words(),
            o.rating
                .map(|r| match o.reviews {
                    Some(n) => format!("{r:.1} ({n})"),
                    None => format!("{r:.1}"),
                })
                .unwrap_or_else(|| "—".into()),
            o.score
        ));
    }
    if out.kept > out.offers.len() {
        md.push_str(&format!(
            "\n{} more offer(s) not listed (limit {}).\n",
            out.kept - out.offers.len(),
            opts.limit
        ));
    }
    let d = &out.drops;
    md.push_str("\n## Dropped\n\n");
    md.push_str(&format!(
        "- {} without a usable price (missing or 0)\n",
        d.no_price
    ));
    let other: Vec<String> = d
        .other_currencies
        .iter()
        .map(|(c, n)| format!("{n} {c}"))
        .collect();
    md.push_str(&format!(
        "- {} in another currency than {}{}\n",
        d.currency,
        opts.currency,
        if other.is_empty() {
            String::new()
        } else {
            format!(" ({})", other.join(", "))
        }
    ));
    md.push_str(&format!(
        "- {} over budget{}\n",
        d.over_budget,
        if opts.budget.is_none() {
            " (no budget set)"
        } else {
            ""
        }
    ));
    md.push_str(&format!(
        "- {} duplicate{} (same canonical URL, or same title at the same store)\n",
        d.duplicate,
        if d.duplicate == 1 { "" } else { "s" }
    ));
    if !d.offers.is_empty() {
        md.push('\n');
        for o in &d.offers {
            let title = match link(&o.url) {
                Some(u) => format!("[{}](<{u}>)", escape(&short(&o.title, 90))),
                None => escape(&short(&o.title, 90)),
            };
            md.push_str(&format!(
                "- {title} at {}: {}\n",
                escape(&o.store),
                escape(&o.reason)
            ));
        }
    }
    if !failures.is_empty() {
        md.push_str("\n## Failures\n\n");
        for f in failures {
            md.push_str(&format!(
                "- {} ({}): {}\n",
                escape(&f.provider),
                escape(&f.code),
                escape(&short(&f.message, 300))
            ));
        }
    }
    md.push_str("\n## How offers are scored\n\n");
    md.push_str(
        "score = 0.55 · 1/(1 + total/100) + 0.20 · availability (in stock 1, limited 0.75, pre-order or back-order 0.5, unknown 0.45, out of stock 0.1) + 0.15 · rating/5 + 0.10 · 1/(1 + age in hours/24). \
Total is price + shipping (shipping not stated counts as 0); an out-of-stock offer is listed after every offer that can be ordered, whatever the sort; an offer without its own date is as fresh as the run (age 0 h); an unrated offer gets 0 for rating.\n",
    );
    md
}

/// At most 10 lines: counts, the best pick, the next offers, failures.
pub fn summary(out: &Outcome, opts: &Options, failures: &[Failure]) -> String {
    let d = &out.drops;
    let mut lines = vec![format!(
        "{} offer{} for \"{}\" in {}, {}; dropped {}: {} no price, {} other currency, {} over budget, {} duplicate",
        out.kept,
        if out.kept == 1 { "" } else { "s" },
        short(&opts.query, 60),
        opts.currency,
        opts.sort.words(),
        d.total(),
        d.no_price,
        d.currency,
        d.over_budget,
        d.duplicate
    )];
    let rest = if failures.is_empty() { 8 } else { 7 };
    for (i, o) in out.offers.iter().take(rest).enumerate() {
        let line = format!(
            "{} — {} at {}, {}, {}, score {:.3}",
            short(&o.title, 60),
            pick::total_of(o),
            short(&o.store, 30),
            o.availability.words(),
            o.rating
                .map(|r| format!("{r:.1}/5"))
                .unwrap_or_else(|| "unrated".into()),
            o.score
        );
        lines.push(if i == 0 && pick::best(&out.offers).is_some() {
            format!("Best: {line}")
        } else {
            format!("{}. {line}", i + 1)
        });
    }
    if !failures.is_empty() {
        let who: Vec<String> = failures
            .iter()
            .take(3)
            .map(|f| format!("{} ({})", f.provider, f.code))
            .collect();
        lines.push(format!("{} failure(s): {}", failures.len(), who.join(", ")));
    }
    lines.join("\n")
}
