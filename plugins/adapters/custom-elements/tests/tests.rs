//! The adapter end to end, natively: detect, parse, edit the graph, emit,
//! apply the edit as the host does, and read the result back.

use webrig_adapter_custom_elements::CustomElements as Ce;
use webrig_adapter_markup::{apply, same_shape};
use webrig_adapter_sdk::types::*;
use webrig_adapter_sdk::{Adapter, node};

const CARD: &str = include_str!("fixtures/canvas/x-card.js");

fn pull(src: &str) -> (Entrypoint, Graph) {
    let ep = Ce::detect("x-card.js", src, None).expect("x-card is detected");
    let g = Ce::parse(src, &ep).expect("the template parses");
    (ep, g)
}

fn find(g: &mut Graph, f: impl Fn(&Node) -> bool) -> &mut Node {
    g.nodes
        .iter_mut()
        .find(|n| f(n))
        .expect("the node is in the graph")
}

fn push(src: &str, ep: &Entrypoint, g: &Graph) -> String {
    let edit = Ce::emit(src, ep.span, g).unwrap_or_else(|e| panic!("emit: {e:?}"));
    assert!(edit.span.start >= ep.span.start && edit.span.end <= ep.span.end);
    let out = apply(src, &edit).expect("edit applies");
    assert_eq!(out[..ep.span.start as usize], src[..ep.span.start as usize]);
    let tail = src.len() - ep.span.end as usize;
    assert_eq!(out[out.len() - tail..], src[src.len() - tail..]);
    let ep2 = Ce::detect("x-card.js", &out, Some(&ep.name)).expect("still detected");
    let g2 = Ce::parse(&out, &ep2).expect("re-parses");
    assert!(
        same_shape(&g2, g),
        "re-parsed graph equals emitted graph\n{out}"
    );
    out
}

#[test]
fn the_card_template_is_found_and_read() {
    let (ep, g) = pull(CARD);
    assert_eq!(ep.name, "x-card");
    let content = &CARD[ep.span.start as usize..ep.span.end as usize];
    assert!(content.trim_start().starts_with("<style>"));
    assert!(content.trim_end().ends_with("</article>"));
    let root = g.nodes.iter().find(|n| n.id == g.root).expect("root");
    assert_eq!(root.tag, "template");
    let article = g
        .nodes
        .iter()
        .find(|n| n.tag == "article")
        .expect("article");
    assert!(
        article
            .unsupported
            .as_deref()
            .is_some_and(|w| w.contains("class")),
        "{:?}",
        article.unsupported
    );
    let h2 = g.nodes.iter().find(|n| n.tag == "h2").expect("h2");
    let sub = g
        .nodes
        .iter()
        .find(|n| n.id == h2.children[0])
        .expect("h2 child");
    assert_eq!(sub.kind, NodeKind::Opaque);
    assert_eq!(sub.text, "${heading}");
    let header = g.nodes.iter().find(|n| n.tag == "header").expect("header");
    assert_eq!(header.style.len(), 2);
    assert!(
        g.nodes
            .iter()
            .any(|n| n.text == "No actions yet \u{2014} add some.")
    );
    assert!(g.nodes.iter().any(|n| n.tag == "slot"));
    // Spans are offsets into the whole file.
    let button = g.nodes.iter().find(|n| n.tag == "button").expect("button");
    let s = button.span.expect("span");
    assert!(CARD[s.start as usize..s.end as usize].starts_with("<button class=\"toggle\""));
}

#[test]
fn an_unchanged_graph_emits_no_change() {
    let (ep, g) = pull(CARD);
    let edit = Ce::emit(CARD, ep.span, &g).expect("emit");
    assert_eq!(edit.text, "");
}

#[test]
fn text_attribute_style_and_insert_round_trip() {
    let (ep, mut g) = pull(CARD);
    find(&mut g, |n| n.text == "Toggle").text = "Show `code` ${not} \\ {x}".into();
    find(&mut g, |n| n.tag == "button")
        .attributes
        .push(Attribute {
            name: "data-x".into(),
            value: "a`b$c \\ d".into(),
        });
    find(&mut g, |n| n.tag == "header").style[0].value = "2px dashed var(--line)".into();
    let next = g.nodes.iter().map(|n| n.id).max().unwrap_or(0) + 1;
    let mut p = node(next, NodeKind::Element, "p");
    p.attributes.push(Attribute {
        name: "class".into(),
        value: "note".into(),
    });
    let mut t = node(next + 1, NodeKind::Text, "");
    t.text = "Fresh note".into();
    p.children = vec![t.id];
    let body = find(&mut g, |n| {
        n.attributes
            .iter()
            .any(|a| a.value == "body" && a.name == "class")
    });
    body.children.insert(0, p.id);
    g.nodes.extend([p, t]);
    let out = push(CARD, &ep, &g);
    assert!(
        out.contains("<h2 class=\"title\" id=\"title\">${heading}</h2>"),
        "{out}"
    );
    assert!(
        out.contains("Show &#96;code&#96; $&#123;not&#125; &#92; &#123;x&#125;"),
        "{out}"
    );
    assert!(out.contains("<p class=\"note\">Fresh note</p>"), "{out}");
    assert!(
        out.contains("<style>\n        :host {"),
        "style kept verbatim"
    );
}

#[test]
fn a_text_change_edits_only_that_text() {
    let (ep, mut g) = pull(CARD);
    find(&mut g, |n| n.text == "Toggle").text = "Collapse".into();
    let edit = Ce::emit(CARD, ep.span, &g).expect("emit");
    // The narrowest edit: "Toggl" → "Collaps" (the "e" is shared).
    assert_eq!(
        &CARD[edit.span.start as usize..edit.span.end as usize],
        "Toggl"
    );
    assert_eq!(edit.text, "Collaps");
}

#[test]
fn changed_substitutions_and_unsupported_parts_are_refused() {
    let (ep, g0) = pull(CARD);
    let mut g = g0.clone();
    find(&mut g, |n| n.text == "${heading}").text = "${other}".into();
    assert!(matches!(
        Ce::emit(CARD, ep.span, &g),
        Err(Error::InvalidInput(_))
    ));
    let mut g = g0.clone();
    find(&mut g, |n| n.tag == "article")
        .attributes
        .push(Attribute {
            name: "id".into(),
            value: "x".into(),
        });
    assert!(matches!(
        Ce::emit(CARD, ep.span, &g),
        Err(Error::InvalidInput(_))
    ));
    let mut g = g0.clone();
    find(&mut g, |n| n.tag == "button")
        .attributes
        .push(Attribute {
            name: "data-x".into(),
            value: "{y}".into(),
        });
    assert!(
        matches!(Ce::emit(CARD, ep.span, &g), Err(Error::InvalidInput(m)) if m.contains("brace"))
    );
    let mut g = g0.clone();
    let root = g.root;
    find(&mut g, |n| n.tag == "h2").children.push(root);
    assert!(matches!(
        Ce::emit(CARD, ep.span, &g),
        Err(Error::InvalidInput(_))
    ));
    let mut g = g0.clone();
    find(&mut g, |n| n.tag == "h2").children.push(77_777);
    assert!(matches!(
        Ce::emit(CARD, ep.span, &g),
        Err(Error::InvalidInput(_))
    ));
}

#[test]
fn other_shapes_are_detected() {
    let src = "const template = document.createElement('template');\n\
               template.innerHTML = `<p class=\"a\">Hi</p>`;\n\
               class XA extends HTMLElement {}\n\
               customElements.define('x-a', XA);\n\
               window.customElements.define('x-b', class extends HTMLElement {\n\
                 connectedCallback() { this.attachShadow({ mode: 'open' }).innerHTML = `<b>B</b>`; }\n\
               });\n";
    let a = Ce::detect("a.mjs", src, None).expect("x-a");
    assert_eq!(a.name, "x-a");
    assert_eq!(
        &src[a.span.start as usize..a.span.end as usize],
        "<p class=\"a\">Hi</p>"
    );
    let b = Ce::detect("a.ts", src, Some("x-b")).expect("x-b");
    assert_eq!(&src[b.span.start as usize..b.span.end as usize], "<b>B</b>");
    assert!(Ce::detect("a.js", src, Some("x-c")).is_none());
    assert!(Ce::detect("a.html", src, None).is_none());
    assert!(Ce::detect("a.js", "customElements.define('x-d', D);", None).is_none());
}

#[test]
fn hostile_sources_give_errors_not_panics() {
    let truncated = &CARD[..CARD.len() / 2];
    assert!(Ce::detect("x.js", truncated, None).is_none());
    let ep = Entrypoint {
        name: "x".into(),
        span: Span { start: 0, end: 4 },
    };
    assert!(Ce::parse(truncated, &ep).is_err());
    assert!(Ce::parse(CARD, &ep).is_err());
    let deep = format!(
        "class A extends HTMLElement {{ c() {{ this.innerHTML = `{}{}`; }} }}\ncustomElements.define('x-a', A);",
        "<div>".repeat(10_000),
        "</div>".repeat(10_000)
    );
    let ep = Ce::detect("x.js", &deep, None).expect("found");
    assert!(Ce::parse(&deep, &ep).is_err());
    let parens = format!("customElements.define('x-a', {}A);", "(".repeat(50_000));
    assert!(Ce::detect("x.js", &parens, None).is_none());
}

/// Emits and, when it succeeds, checks the result reads back equal: a
/// push may be refused, never drift. Whether it was written.
fn written_or_refused(src: &str, ep: &Entrypoint, g: &Graph) -> bool {
    match Ce::emit(src, ep.span, g) {
        Ok(_) => {
            push(src, ep, g);
            true
        }
        Err(Error::InvalidInput(_)) => false,
        Err(e) => panic!("unexpected error {e:?}"),
    }
}

#[test]
fn every_single_edit_is_written_or_refused_never_drifts() {
    let (ep, g0) = pull(CARD);
    let mut written = 0;
    for n in &g0.nodes {
        let mut g = g0.clone();
        let m = find(&mut g, |x| x.id == n.id);
        match m.kind {
            NodeKind::Text => m.text = format!("{} & `more`", m.text),
            _ => m.attributes.push(Attribute {
                name: "data-t".into(),
                value: "1".into(),
            }),
        }
        written += usize::from(written_or_refused(CARD, &ep, &g));
        if n.id != g0.root {
            let mut g = g0.clone();
            for p in &mut g.nodes {
                p.children.retain(|c| *c != n.id);
            }
            written += usize::from(written_or_refused(CARD, &ep, &g));
        }
    }
    assert!(
        written > g0.nodes.len(),
        "most edits are written ({written})"
    );
}

#[test]
fn card_parse_time() {
    let (ep, _) = pull(CARD);
    let runs = 50;
    let start = std::time::Instant::now();
    for _ in 0..runs {
        Ce::parse(CARD, &ep).expect("parse");
    }
    eprintln!("x-card.js: parse {:?} per run", start.elapsed() / runs);
}
