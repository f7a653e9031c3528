//! Ranking the three fixture design pages (their HTML text and the tokens
//! design_tokens.js read from them) against briefs.

use super::*;
use crate::tokens::tests::{brutal, calm, neon};
use webrig_workflow_sdk::kit::html::Document;

struct Fixture {
    title: String,
    text: String,
    tokens: Tokens,
}

fn fixture(html: &str, tokens: Tokens) -> Fixture {
    let doc = Document::parse(html);
    let title = doc.find("title").map(|t| doc.text(t)).unwrap_or_default();
    let text = doc.find("body").map(|b| doc.text(b)).unwrap_or_default();
    Fixture {
        title,
        text,
        tokens,
    }
}

fn fixtures() -> Vec<Fixture> {
    vec![
        fixture(
            include_str!("../../../../tests/fixtures/web/small/design/brutal.html"),
            brutal(),
        ),
        fixture(
            include_str!("../../../../tests/fixtures/web/small/design/neon.html"),
            neon(),
        ),
        fixture(
            include_str!("../../../../tests/fixtures/web/small/design/calm.html"),
            calm(),
        ),
    ]
}

fn order(brief: &str) -> Vec<usize> {
    let f = fixtures();
    let pages: Vec<Page> = f
        .iter()
        .map(|f| Page {
            title: &f.title,
            text: &f.text,
            tokens: &f.tokens,
        })
        .collect();
    rank(brief, &pages).iter().map(|s| s.index).collect()
}

const BRUTAL: usize = 0;
const NEON: usize = 1;
const CALM: usize = 2;

#[test]
fn each_brief_ranks_its_page_first() {
    assert_eq!(
        order("calm editorial serif with warm natural colours")[0],
        CALM
    );
    assert_eq!(
        order("Brutalist developer tool: monospace, black and yellow, hard edges")[0],
        BRUTAL
    );
    assert_eq!(
        order("A dark neon night club site with magenta and cyan glow, sans-serif")[0],
        NEON
    );
}

#[test]
fn why_names_the_words_and_where_they_were_found() {
    let f = fixtures();
    let calm = &f[CALM];
    let page = Page {
        title: &calm.title,
        text: &calm.text,
        tokens: &calm.tokens,
    };
    let s = standing(7, &brief_words("Calm, serif & warm!"), &page);
    assert_eq!(s.index, 7);
    assert_eq!(
        why(&s),
        "calm (title, text), serif (design, text), warm (design, text)"
    );
    assert_eq!(s.score, 9);
    let none = standing(0, &brief_words("zebra"), &page);
    assert_eq!(
        (none.score, why(&none).as_str()),
        (0, "no word of the brief found")
    );
}

#[test]
fn ties_keep_the_input_order() {
    assert_eq!(order("zebra quantum"), [0, 1, 2]);
}

#[test]
fn brief_words_drop_filler_and_meet_variants() {
    assert_eq!(
        brief_words("A calm, editorial look with warm natural colours and greys; calm!"),
        ["calm", "editorial", "warm", "natural", "gray"]
    );
    assert_eq!(
        brief_words("sans-serif, mono glows"),
        ["sans", "monospace", "glow"]
    );
    assert_eq!(stem("stories"), "story");
    assert_eq!(stem("glass"), "glass");
}

#[test]
fn design_words_come_from_fonts_colours_and_shapes() {
    let c = design_words(&calm());
    for w in [
        "serif", "georgia", "cream", "green", "warm", "natural", "rounded", "light",
    ] {
        assert!(c.contains(w), "calm lacks {w}: {c:?}");
    }
    assert!(!c.contains("sans"));
    let b = design_words(&brutal());
    for w in [
        "monospace",
        "courier",
        "black",
        "yellow",
        "square",
        "hard",
        "shadow",
    ] {
        assert!(b.contains(w), "brutal lacks {w}: {b:?}");
    }
    let n = design_words(&neon());
    for w in [
        "sans",
        "helvetica",
        "dark",
        "magenta",
        "cyan",
        "neon",
        "glow",
    ] {
        assert!(n.contains(w), "neon lacks {w}: {n:?}");
    }
    assert!(!n.contains("serif"));
}

#[test]
fn weights_follow_scores() {
    let s = |index, score| Standing {
        index,
        score,
        matched: Vec::new(),
    };
    assert_eq!(
        weights(&[s(2, 12), s(0, 6), s(1, 3), s(3, 12)]),
        [1.0, 0.5, 0.0, 0.0]
    );
    assert_eq!(
        weights(&[s(0, 0), s(1, 0), s(2, 0), s(3, 0)]),
        [1.0, 0.5, 0.25, 0.0]
    );
    assert!(weights(&[]).is_empty());
}
