//! report.html: a self-contained visual report (inline CSS, no script, no
//! network) that opens from the bundle folder: screenshots by their
//! relative names, colour swatches, type specimens in each font family,
//! spacing, radii and shadows. Everything page-derived is HTML-escaped, and
//! what goes into a `style` attribute is reduced to characters that cannot
//! end the declaration or fetch anything.

use crate::brief_md::role;
use crate::color;
use crate::study::{Study, clip, label, pct};
use crate::tokens::{System, Tokens};
use crate::{fonts, rank};
use std::fmt::Write;

/// Escapes text for HTML content and quoted attribute values.
pub use webrig_workflow_sdk::kit::escape::html as esc;

/// A font-family stack fit for a `style` attribute: letters, digits,
/// spaces, commas, hyphens, underscores and quotes only.
pub fn css_family(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric() || " ,-_'\"".contains(*c))
        .collect()
}

/// A shadow fit for a `style` attribute: no `;`, `:`, `/`, `\` or quotes,
/// so it stays one value of one declaration.
pub fn css_shadow(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric() || " ,.()#%-".contains(*c))
        .collect()
}

/// A colour fit for CSS, or a neutral grey when it is not `#rrggbb`.
fn css_color(s: &str) -> String {
    color::normalize(s).unwrap_or_else(|| "#808080".into())
}

const STYLE: &str = "body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:24px;color:#1d1d1f;background:#fafafa}\
h1{margin:0 0 8px}blockquote{font-size:20px;margin:0 0 24px;padding:12px 16px;border-left:4px solid #999;background:#fff}\
section{background:#fff;border:1px solid #e3e3e3;border-radius:8px;padding:16px 20px;margin:0 0 24px}\
.swatches{display:flex;flex-wrap:wrap;gap:12px}.sw{width:120px;font-size:12px}\
.chip{height:64px;border-radius:6px;border:1px solid rgba(0,0,0,.15)}\
.specimen{border-top:1px solid #eee;padding:8px 0;overflow:hidden;white-space:nowrap;text-overflow:ellipsis}\
.row{display:flex;align-items:center;gap:12px;margin:4px 0;font-size:12px}.radii{display:flex;gap:24px}.bar{height:12px;background:#7a8cff}\
.radius{width:64px;height:64px;background:#dde3ff;border:1px solid #7a8cff}\
.shadow{width:96px;height:48px;background:#fff;margin:12px 24px 12px 0;border:1px solid #eee}\
.flag{background:#fff4e5;border-left:4px solid #d9480f;padding:6px 10px}.shot{max-width:100%;border:1px solid #ddd;border-radius:4px}.muted{color:#666;font-size:13px}code{font-size:12px}";

const SAMPLE: &str = "The quick brown fox jumps over the lazy dog";

/// Renders report.html.
pub fn render(study: &Study) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src 'self' file:; style-src 'unsafe-inline'\">\
         <title>Design brief: {}</title><style>{STYLE}</style></head><body>\n\
         <h1>Design brief</h1><blockquote>{}</blockquote>\n",
        esc(&clip(&study.brief, 80)),
        esc(&study.brief)
    );
    system(&mut h, study);
    h.push_str("<h2>References</h2>\n");
    for (i, r) in study.ranked.iter().enumerate() {
        let rf = &r.reference;
        let _ = writeln!(
            h,
            "<section><h3>{}. {}</h3><p class=\"muted\">{} &middot; score {} &middot; weight {:.2}<br>Matched: {}</p>",
            i + 1,
            esc(&label(rf)),
            link(&rf.url),
            r.standing.score,
            r.weight,
            esc(&rank::why(&r.standing))
        );
        if let Some(why) = &rf.unstyled {
            let _ = writeln!(
                h,
                "<p class=\"flag\">{}; weighted out of the proposed system.</p>",
                esc(&clip(why, 300))
            );
        }
        if let Some(shot) = &rf.screenshot {
            let _ = writeln!(
                h,
                "<img class=\"shot\" src=\"{}\" alt=\"Screenshot of {}\">",
                esc(shot),
                esc(&label(rf))
            );
        }
        tokens(&mut h, &rf.tokens);
        h.push_str("</section>\n");
    }
    let unread: Vec<_> = study.unread().collect();
    if !unread.is_empty() {
        h.push_str("<section><h2>Not read</h2><ul>\n");
        for p in unread {
            let _ = writeln!(
                h,
                "<li>{} &mdash; {}: {}: {}</li>",
                esc(&clip(&p.url, 300)),
                esc(&p.step),
                esc(&p.code),
                esc(&clip(&p.message, 300))
            );
        }
        h.push_str("</ul></section>\n");
    }
    h.push_str("</body></html>\n");
    h
}

/// The URL as a link when it is http(s), else as text.
fn link(url: &str) -> String {
    let text = esc(&clip(url, 120));
    if url.starts_with("http://") || url.starts_with("https://") {
        format!("<a href=\"{}\">{text}</a>", esc(url))
    } else {
        text
    }
}

fn swatch(h: &mut String, hex: &str, caption: &str) {
    let c = css_color(hex);
    let _ = write!(
        h,
        "<div class=\"sw\"><div class=\"chip\" style=\"background:{c}\"></div><code>{c}</code> {}</div>",
        esc(caption)
    );
}

/// Type specimens of a stack at the scale's sizes (largest first), set
/// with its generic fallback, which the caption names.
fn specimens(h: &mut String, family: &str, sizes: &[u32], note: &str) {
    let stack = fonts::with_generic(family);
    let _ = writeln!(
        h,
        "<p class=\"muted\">{} {} &middot; generic fallback: {}</p>",
        esc(family),
        esc(note),
        fonts::generic(&stack)
    );
    let mut sizes: Vec<u32> = sizes.iter().copied().filter(|s| *s <= 120).collect();
    if sizes.is_empty() {
        sizes.push(16);
    }
    for size in sizes.iter().rev().take(6) {
        let _ = writeln!(
            h,
            "<div class=\"specimen\" style=\"font-family:{};font-size:{size}px\">{size}px &middot; {SAMPLE}</div>",
            esc(&css_family(&stack))
        );
    }
}

fn rows(h: &mut String, values: &[u32], class: &str) {
    for v in values {
        let n = (*v).min(400);
        let style = match class {
            "bar" => format!("width:{n}px"),
            _ => format!("border-radius:{}px", n.min(32)),
        };
        let _ = writeln!(
            h,
            "<div class=\"row\"><div class=\"{class}\" style=\"{style}\"></div>{v}px</div>"
        );
    }
}

fn shadows(h: &mut String, list: &[String]) {
    for s in list {
        let _ = writeln!(
            h,
            "<div class=\"row\"><div class=\"shadow\" style=\"box-shadow:{}\"></div><code>{}</code></div>",
            esc(&css_shadow(s)),
            esc(s)
        );
    }
}

fn system(h: &mut String, study: &Study) {
    let s: &System = &study.system;
    h.push_str("<section><h2>Proposed system</h2>\n<h3>Palette</h3><div class=\"swatches\">");
    for c in &s.palette {
        let caption = format!("{} {}", pct(c.share), role(&c.value, s));
        swatch(h, &c.value, &caption);
    }
    h.push_str("</div>\n<h3>Type</h3>\n");
    for f in &s.fonts {
        specimens(h, &f.value, &s.type_scale, &format!("({})", pct(f.share)));
    }
    h.push_str("<h3>Spacing</h3>\n");
    rows(h, &s.spacing, "bar");
    h.push_str("<h3>Radii</h3>\n");
    h.push_str("<div class=\"radii\">");
    rows(h, &s.radii, "radius");
    h.push_str("</div>\n");
    if !s.shadows.is_empty() {
        h.push_str("<h3>Shadows</h3>\n");
        shadows(h, &s.shadows);
    }
    h.push_str("</section>\n");
}

fn tokens(h: &mut String, t: &Tokens) {
    let total: f64 = t.palette.iter().map(|p| p.area).sum::<f64>().max(1.0);
    h.push_str("<h4>Palette</h4><div class=\"swatches\">");
    for p in &t.palette {
        swatch(h, &p.color, &pct(p.area / total));
    }
    h.push_str("</div>\n<h4>Type</h4>\n");
    for f in t.fonts.iter().take(3) {
        specimens(h, &f.family, &t.type_scale, "");
    }
    let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
    let _ = writeln!(
        h,
        "<p class=\"muted\">Background <code>{}</code>, text <code>{}</code>; spacing {} px; radii {} px; {} shadows</p>",
        css_color(&t.background),
        css_color(&t.foreground),
        list(&t.spacing),
        if t.radii.is_empty() {
            "none".into()
        } else {
            list(&t.radii)
        },
        t.shadows.len()
    );
    shadows(h, &t.shadows[..t.shadows.len().min(3)]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::tests::study;

    #[test]
    fn references_every_screenshot_relatively() {
        let s = study();
        let html = render(&s);
        for n in 1..=3 {
            assert!(
                html.contains(&format!(
                    "<img class=\"shot\" src=\"screenshots/ref-{n}.png\""
                )),
                "ref-{n}"
            );
        }
        assert!(!html.contains("ref-4.png"), "the refused one has none");
        assert!(!html.contains("<script"));
        assert!(html.contains("style=\"background:#f6f0e1\""));
        assert!(
            html.contains("font-family:Georgia, &quot;Times New Roman&quot;, serif;font-size:56px")
        );
        assert!(html.contains("box-shadow:rgba(47, 93, 58, 0.08) 0px 8px 24px 0px"));
    }

    #[test]
    fn a_hostile_page_cannot_inject_markup_or_styles() {
        let mut s = study();
        let r = &mut s.ranked[0].reference;
        r.title = "</h3><script>alert(1)</script><img src=x onerror=alert(2)>".into();
        r.url = "javascript:alert(3)".into();
        r.tokens.fonts[0].family = "x;background:url(//evil.test/a)\"><script>".into();
        r.tokens.shadows = vec!["0 0 1px red; background-image: url('http://evil.test/')".into()];
        s.brief = "<b>bold</b> & \"quoted\"".into();
        let html = render(&s);
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img src=x"));
        assert!(html.contains("&lt;/h3&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(!html.contains("href=\"javascript"));
        assert!(
            html.contains("font-family:xbackgroundurleviltesta&quot;script, sans-serif;font-size")
        );
        assert!(html.contains("box-shadow:0 0 1px red background-image url(httpevil.test)\""));
        assert!(!html.contains("url('http"));
        assert!(html.contains("&lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot;"));
        assert_eq!(
            css_family("Georgia, \"Times\"; x:url(/a)"),
            "Georgia, \"Times\" xurla"
        );
        assert_eq!(
            css_shadow("0 0 1px red; y: url('/a')"),
            "0 0 1px red y url(a)"
        );
    }

    #[test]
    fn specimens_name_their_generic_fallback_and_flags_show() {
        let html = render(&crate::study::tests::studio_study());
        assert!(
            html.contains(
                "<p class=\"muted\">Georgia, serif (38%) &middot; generic fallback: serif</p>"
            ),
            "{html}"
        );
        assert!(html.contains("font-family:Georgia, serif;font-size:48px"));
        // A reference's own stack, which names no generic, is set with one.
        assert!(html.contains(
            "font-family:&quot;Helvetica Neue&quot;, Helvetica, Arial, sans-serif;font-size:48px"
        ));
        assert!(html.contains(
            "<p class=\"flag\">rendered with default styles: none of its 2 stylesheets loaded"
        ));
        let shots: Vec<&str> = html
            .match_indices("src=\"screenshots/")
            .map(|(i, _)| &html[i + 5..i + 26])
            .collect();
        assert_eq!(
            shots,
            [
                "screenshots/ref-1.png",
                "screenshots/ref-2.png",
                "screenshots/ref-3.png"
            ]
        );
    }
}
