//! Tokens read from what design_tokens.js returned on the fixture pages
//! (testdata/*.json, written by tools/try-tokens.mjs), and their merge.

use super::*;

pub fn calm() -> Tokens {
    Tokens::parse(include_str!("../testdata/calm.json")).expect("ok")
}
pub fn brutal() -> Tokens {
    Tokens::parse(include_str!("../testdata/brutal.json")).expect("ok")
}
pub fn neon() -> Tokens {
    Tokens::parse(include_str!("../testdata/neon.json")).expect("ok")
}
/// tests/fixtures/web/design/studio.html: styled by a stylesheet that loads.
pub fn studio() -> Tokens {
    Tokens::parse(include_str!("../testdata/studio.json")).expect("ok")
}
/// tests/fixtures/web/design/broken.html: both stylesheets answer 404.
pub fn broken() -> Tokens {
    Tokens::parse(include_str!("../testdata/broken.json")).expect("ok")
}
/// tests/fixtures/web/design/plain.html: no styles at all.
pub fn plain() -> Tokens {
    Tokens::parse(include_str!("../testdata/plain.json")).expect("ok")
}

#[test]
fn reads_the_hosts_tokens() {
    let t = calm();
    assert_eq!(t.background, "#f6f0e1");
    assert_eq!(t.foreground, "#2b2a26");
    assert_eq!(t.palette[0].color, "#f6f0e1");
    assert_eq!(t.palette.len(), 8);
    assert_eq!(t.fonts[0].family, "Georgia, \"Times New Roman\", serif");
    assert_eq!(t.type_scale, [14, 16, 18, 20, 28, 56]);
    assert_eq!(t.radii, [24, 32, 999]);
    assert!(brutal().radii.is_empty());
    assert_eq!(neon().shadows.len(), 6);
}

#[test]
fn bad_entries_are_skipped_and_colours_normalized() {
    let t = Tokens::parse(
        r##"{"palette": [{"color": "#FFF", "area": 10}, {"color": "rgb(255, 255, 255)", "area": 5},
            {"color": "rgba(0,0,0,0.5)", "area": 4}, {"color": "nope", "area": 99},
            {"color": "#000", "area": -1}, {"area": 3}, 7],
            "fonts": [{"family": "  ", "area": 3}, {"family": "Inter", "area": "x"}, {"family": "Inter, sans-serif", "area": 2}],
            "type_scale": [16, 16.4, -3, "x", 1e12, 12], "spacing": "nope", "background": "#0B0716"}"##,
    )
    .expect("ok");
    assert_eq!(
        t.palette,
        [
            Swatch {
                color: "#ffffff".into(),
                area: 15.0
            },
            Swatch {
                color: "#06040b".into(),
                area: 4.0
            },
        ]
    );
    assert_eq!(t.fonts.len(), 1);
    assert_eq!(t.type_scale, [12, 16]);
    assert!(t.spacing.is_empty());
    assert_eq!(t.background, "#0b0716");
    assert_eq!(t.foreground, "#000000");
    assert!(Tokens::parse("[1]").is_err());
    assert!(
        Tokens::parse("{")
            .expect_err("an error")
            .contains("not JSON")
    );
}

#[test]
fn a_single_reference_is_its_own_system() {
    let t = calm();
    let s = merge(&[(1.0, &t)]);
    assert_eq!(s.background, "#f6f0e1");
    assert_eq!(s.foreground, "#2b2a26");
    assert_eq!(s.type_scale, t.type_scale);
    assert_eq!(s.spacing, t.spacing);
    assert_eq!(s.radii, t.radii);
    assert_eq!(s.fonts[0].value, t.fonts[0].family);
    assert!((s.fonts[0].share - 1.0).abs() < 1e-9);
    // #fffaf0 and #f6f0e1 are within merging distance: one cream.
    assert_eq!(s.palette[0].value, "#f6f0e1");
    assert!(s.palette.iter().all(|c| c.value != "#fffaf0"));
    assert_eq!(s.accent.as_deref(), Some("#2f5d3a"));
    let total: f64 = s.palette.iter().map(|c| c.share).sum();
    assert!((total - 1.0).abs() < 1e-9);
}

#[test]
fn weights_decide_what_the_merge_keeps() {
    let (c, b, n) = (calm(), brutal(), neon());
    let s = merge(&[(1.0, &c), (0.5, &b), (0.25, &n)]);
    assert_eq!(
        s.background, "#f6f0e1",
        "the heaviest reference's background"
    );
    assert_eq!(s.palette[0].value, "#f6f0e1");
    let share = |hex: &str| s.palette.iter().find(|p| p.value == hex).map(|p| p.share);
    // Brutal's yellow (a third of its area, half weight) outweighs neon's
    // cyan (2% of its area, quarter weight), which does not make the cut.
    assert!(share("#ffe600").expect("present") > 0.05);
    assert_eq!(share("#00f0ff"), None);
    assert_eq!(s.fonts[0].value, c.fonts[0].family);
    assert!(s.fonts[1].value.contains("Courier"));
    // 16 is used by all three; 64 only by brutal at half weight (kept);
    // 60 only by neon at a quarter (dropped, and too far from 64 anyway).
    assert!(s.type_scale.contains(&16) && s.type_scale.contains(&64));
    assert!(!s.type_scale.contains(&60));
    assert_eq!(s.radii, [24, 32, 999]);
    assert!(s.shadows.iter().any(|x| x.contains("12px 12px")));
    assert!(!s.shadows.iter().any(|x| x.contains("40px")));

    // Reweighted, neon leads.
    let s = merge(&[(1.0, &n), (0.5, &c)]);
    assert_eq!(s.background, "#0b0716");
    assert_eq!(s.radii, [8, 12, 24, 32, 999]);
    assert_eq!(s.accent.as_deref(), Some("#00f0ff"), "{:?}", s.palette);
}

#[test]
fn nothing_to_merge() {
    assert_eq!(merge(&[]), System::default());
}

#[test]
fn reads_how_the_page_arrived() {
    let t = broken();
    assert_eq!(t.status, 200);
    assert_eq!(t.stylesheets.linked, 2);
    assert_eq!(
        t.stylesheets.failed,
        [
            "http://127.0.0.1:9/design/missing/broken.css",
            "http://127.0.0.1:9/status/404/design/theme.css"
        ]
    );
    assert_eq!(studio().stylesheets.failed.len(), 0);
    // Tokens from an older host say nothing: unknown, not failed.
    let old = Tokens::parse(r#"{"palette": []}"#).expect("ok");
    assert_eq!((old.status, old.stylesheets.linked), (0, 0));
}

#[test]
fn the_accent_is_never_a_browser_default() {
    // Studio's links in the footer keep the default #0000ee; alone it
    // would be the most vivid colour. Its own orange is the accent.
    let mut t = studio();
    for s in &mut t.palette {
        if s.color == "#0000ee" {
            s.area = 30_000.0;
        }
    }
    let s = merge(&[(1.0, &t)]);
    assert_eq!(s.accent.as_deref(), Some("#d9480f"), "{:?}", s.palette);
    // A page of defaults has no accent at all.
    assert_eq!(merge(&[(1.0, &plain())]).accent, None);
}

#[test]
fn spacing_leaves_out_centring_margins_and_layout_offsets() {
    // studio.css centres its wrapper with `margin: 0 auto` (109 px each
    // side at 1280 px) and offsets its aside by 300 px.
    assert_eq!(studio().spacing, [8, 12, 16, 24, 32, 48, 64]);
}

#[test]
fn proposed_fonts_name_their_generic_fallback() {
    let s = merge(&[(1.0, &studio())]);
    let fonts: Vec<&str> = s.fonts.iter().map(|f| f.value.as_str()).collect();
    assert_eq!(
        fonts,
        [
            "\"Helvetica Neue\", Helvetica, Arial, sans-serif",
            "Georgia, serif"
        ]
    );
}
