//! report.html: one self-contained page — inline CSS, an inline SVG chart
//! of total price and score per offer, the offers table. It loads nothing
//! (a Content-Security-Policy of `default-src 'none'` says so to the
//! browser too) and every page-derived string is escaped, so a product
//! title holding `<script>` is shown, not run.

use crate::money;
use crate::pick::{self, short};
use crate::pipeline::{Options, Outcome};
use webrig_workflow_sdk::types::Failure;

/// Text for HTML content and quoted attribute values.
pub use webrig_workflow_sdk::kit::escape::html as escape;

/// An `href` value: http(s) URLs only (no `javascript:`), escaped.
fn href(url: &str) -> Option<String> {
    let lower = url.trim().to_ascii_lowercase();
    (lower.starts_with("http://") || lower.starts_with("https://")).then(|| escape(url.trim()))
}

const ROW: usize = 26;
const TOP: usize = 30;
const LABEL_END: usize = 226;
const BAR_X: usize = 232;
const BAR_W: f64 = 300.0;
const SCORE_X: usize = 612;
const SCORE_W: f64 = 100.0;

/// The chart: per offer, in the report's order, a bar for its total
/// (`class="bar"`, scaled to the highest total) and one for its score
/// (`class="score-bar"`, 0 to 1).
pub fn chart(out: &Outcome) -> String {
    let offers = &out.offers;
    let max_total = offers.iter().map(|o| o.total).fold(0.0_f64, f64::max);
    let height = TOP + offers.len() * ROW + 8;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" role=\"img\" viewBox=\"0 0 760 {height}\" width=\"760\" height=\"{height}\" aria-label=\"Total price and score per offer\">\n"
    );
    svg.push_str(&format!(
        "<text x=\"{BAR_X}\" y=\"16\" class=\"head\">Total price</text><text x=\"{SCORE_X}\" y=\"16\" class=\"head\">Score (0–1)</text>\n"
    ));
    for (i, o) in offers.iter().enumerate() {
        let y = TOP + i * ROW;
        let cur = o.currency.as_deref().unwrap_or("?");
        let total = money::format(o.total, cur);
        let w = if max_total > 0.0 {
            (o.total / max_total * BAR_W).max(1.0)
        } else {
            1.0
        };
        let sw = (o.score.clamp(0.0, 1.0) * SCORE_W).max(1.0);
        let class = if i == 0 { "offer best" } else { "offer" };
        svg.push_str(&format!(
            "<g class=\"{class}\"><title>{}: {}, score {:.3}</title>\
<text x=\"{LABEL_END}\" y=\"{}\" text-anchor=\"end\">{}. {}</text>\
<rect class=\"bar\" x=\"{BAR_X}\" y=\"{}\" width=\"{w:.1}\" height=\"16\" rx=\"2\"/>\
<text x=\"{:.1}\" y=\"{}\" class=\"num\">{}</text>\
<rect class=\"score-bar\" x=\"{SCORE_X}\" y=\"{}\" width=\"{sw:.1}\" height=\"16\" rx=\"2\"/>\
<text x=\"{}\" y=\"{}\" class=\"num\">{:.3}</text></g>\n",
            escape(&o.title),
            escape(&total),
            o.score,
            y + 13,
            i + 1,
            escape(&short(&o.title, 32)),
            y + 1,
            BAR_X as f64 + w + 6.0,
            y + 13,
            escape(&total),
            y + 1,
            SCORE_X + SCORE_W as usize + 6,
            y + 13,
            o.score,
        ));
    }
    svg.push_str("</svg>\n");
    svg
}

const STYLE: &str = "body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:62rem;padding:0 1rem;color:#1f2328}\
h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2rem}\
.best{background:#f0f7ff;border:1px solid #b6d4fe;border-radius:6px;padding:.8rem 1rem}.best h2{margin-top:0}\
table{border-collapse:collapse;width:100%;font-size:14px}th,td{border-bottom:1px solid #ddd;padding:.35rem .5rem;text-align:left;vertical-align:top}\
td.n{text-align:right;font-variant-numeric:tabular-nums}\
.chart text{font:12px system-ui,sans-serif;fill:#1f2328}.chart .head{font-weight:600}\
.chart .bar{fill:#6b9bd8}.chart .best .bar{fill:#1f6feb}.chart .score-bar{fill:#57ab5a}\
.muted{color:#656d76}";

pub fn report(out: &Outcome, opts: &Options, failures: &[Failure]) -> String {
    let q = escape(&opts.query);
    let mut h =
        String::from("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    h.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    h.push_str(&format!(
        "<title>Deals for “{q}”</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
    ));
    h.push_str(&format!("<h1>Deals for “{q}”</h1>\n"));
    h.push_str(&format!(
        "<p class=\"muted\">{} offers in {} (region {}), {}; {} listings found; retrieved {}.</p>\n",
        out.kept,
        escape(&opts.currency),
        escape(&opts.region),
        opts.sort.words(),
        out.found,
        escape(&opts.now)
    ));
    if !out.offers.is_empty() && pick::best(&out.offers).is_none() {
        h.push_str("<section class=\"best\">\n<h2>No pick</h2>\n<p>Every offer left is out of stock, so none is recommended.</p>\n</section>\n");
    }
    if let Some(best) = pick::best(&out.offers) {
        let name = match href(&best.url) {
            Some(u) => format!(
                "<a href=\"{u}\" rel=\"noopener noreferrer\">{}</a>",
                escape(&best.title)
            ),
            None => escape(&best.title),
        };
        h.push_str(&format!(
            "<section class=\"best\">\n<h2>Best pick</h2>\n<p><strong>{name}</strong> at {}: {}.</p>\n",
            escape(&best.store),
            escape(&pick::facts(best))
        ));
        for r in pick::reasons(&out.offers, opts.sort) {
            h.push_str(&format!("<p>{}</p>\n", escape(&r)));
        }
        h.push_str("</section>\n");
    }
    h.push_str("<h2>Price and score</h2>\n");
    h.push_str(&chart(out));
    h.push_str("<h2>Offers</h2>\n<table>\n<thead><tr><th>#</th><th>Offer</th><th>Store</th><th>Price</th><th>Shipping</th><th>Total</th><th>Availability</th><th>Rating</th><th>Reviews</th><th>Score</th></tr></thead>\n<tbody>\n");
    for (i, o) in out.offers.iter().enumerate() {
        let cur = o.currency.as_deref().unwrap_or("?");
        let title = match href(&o.url) {
            Some(u) => format!(
                "<a href=\"{u}\" rel=\"noopener noreferrer\">{}</a>",
                escape(&o.title)
            ),
            None => escape(&o.title),
        };
        h.push_str(&format!(
            "<tr><td class=\"n\">{}</td><td>{title}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.3}</td></tr>\n",
            i + 1,
            escape(&o.store),
            escape(&money::format(o.price, cur)),
            escape(&{
                let cost = o.shipping.map(|s| if s == 0.0 { "free".into() } else { money::format(s, cur) }).unwrap_or_else(|| "not stated".into());
                match &o.delivery { Some(d) => format!("{cost}, {d}"), None => cost }
            }),
            escape(&money::format(o.total, cur)),
            o.availability.words(),
            o.rating.map(|r| format!("{r:.1}")).unwrap_or_else(|| "—".into()),
            o.reviews.map(|n| n.to_string()).unwrap_or_else(|| "—".into()),
            o.score
        ));
    }
    h.push_str("</tbody>\n</table>\n");
    let d = &out.drops;
    h.push_str(&format!(
        "<h2>Dropped</h2>\n<ul>\n<li>{} without a usable price</li>\n<li>{} in another currency than {}</li>\n<li>{} over budget</li>\n<li>{} duplicate{}</li>\n</ul>\n",
        d.no_price,
        d.currency,
        escape(&opts.currency),
        d.over_budget,
        d.duplicate,
        if d.duplicate == 1 { "" } else { "s" }
    ));
    if !d.offers.is_empty() {
        h.push_str("<ul class=\"dropped\">\n");
        for o in &d.offers {
            let title = match href(&o.url) {
                Some(u) => format!(
                    "<a href=\"{u}\" rel=\"noopener noreferrer\">{}</a>",
                    escape(&o.title)
                ),
                None => escape(&o.title),
            };
            h.push_str(&format!(
                "<li>{title} at {}: {}</li>\n",
                escape(&o.store),
                escape(&o.reason)
            ));
        }
        h.push_str("</ul>\n");
    }
    if !failures.is_empty() {
        h.push_str("<h2>Failures</h2>\n<ul>\n");
        for f in failures {
            h.push_str(&format!(
                "<li>{} ({}): {}</li>\n",
                escape(&f.provider),
                escape(&f.code),
                escape(&short(&f.message, 300))
            ));
        }
        h.push_str("</ul>\n");
    }
    h.push_str("<p class=\"muted\">Score = 0.55·1/(1+total/100) + 0.20·availability + 0.15·rating/5 + 0.10·1/(1+age h/24). Written by the webrig shopping workflow.</p>\n</body>\n</html>\n");
    h
}
