//! Round trips on `tests/fixtures/canvas/landing.html`, refusals, tokens.

use super::*;
use webrig_adapter_markup::testing::{element, find, get, get_mut, insert_element, text_child};
use webrig_adapter_markup::{apply, same_shape};
use webrig_adapter_sdk::types::Declaration;

const LANDING: &str = include_str!("../../../../tests/fixtures/canvas/landing.html");

fn pull(src: &str, want: Option<&str>) -> (Entrypoint, Graph) {
    let ep = HtmlStatic::detect("landing.html", src, want).expect("detects");
    let g = HtmlStatic::parse(src, &ep).expect("parses");
    (ep, g)
}

fn slice(src: &str, n: &Node) -> String {
    let s = n.span.expect("span");
    src[s.start as usize..s.end as usize].to_string()
}

/// Emits `g`, applies the edit and checks what the host checks: the edit
/// lies in the bound span, the result re-parses to `g`, and the file
/// outside the bound span is unchanged. The new source.
fn push(src: &str, ep: &Entrypoint, g: &Graph) -> String {
    let edit = HtmlStatic::emit(src, ep.span, g).expect("emits");
    assert!(
        edit.span.start >= ep.span.start && edit.span.end <= ep.span.end,
        "edit inside the bound span"
    );
    let out = apply(src, &edit).expect("applies");
    let (ep2, g2) = pull(
        &out,
        if ep.name == "body" {
            None
        } else {
            Some(&ep.name)
        },
    );
    assert!(
        same_shape(g, &g2),
        "re-parse equals the emitted graph:\n{out}"
    );
    let (s, e) = (ep.span.start as usize, ep.span.end as usize);
    assert_eq!(&out[..s], &src[..s], "before the bound span");
    assert_eq!(
        &out[ep2.span.end as usize..],
        &src[e..],
        "after the bound span"
    );
    out
}

#[test]
fn detect_binds_body_or_an_element_by_id() {
    let (ep, g) = pull(LANDING, None);
    assert_eq!(ep.name, "body");
    assert!(slice(LANDING, &g.nodes[0]).starts_with("<body class=\"page\">"));
    assert!(slice(LANDING, &g.nodes[0]).ends_with("</body>"));
    assert_eq!(g.root, 1);
    assert!(
        g.nodes
            .iter()
            .enumerate()
            .all(|(i, n)| n.id as usize == i + 1)
    );
    let (ep, g) = pull(LANDING, Some("hero"));
    assert_eq!(ep.name, "hero");
    assert_eq!(g.nodes[0].tag, "section");
    assert!(HtmlStatic::detect("landing.html", LANDING, Some("nope")).is_none());
    assert!(HtmlStatic::detect("landing.txt", LANDING, None).is_none());
}

#[test]
fn graph_models_text_style_tokens_and_opaque_parts() {
    let (_, g) = pull(LANDING, None);
    let button = find(&g, |n| {
        n.attributes
            .iter()
            .any(|a| a.name == "class" && a.value == "button")
    })
    .expect("button");
    let b = get(&g, button).expect("node");
    assert_eq!(b.style.len(), 2);
    assert_eq!(b.token_refs, vec!["--brand"]);
    assert!(b.attributes.iter().all(|a| a.name != "style"));
    let lead = find(&g, |n| n.text.contains("feature flags")).expect("lead text");
    assert_eq!(
        get(&g, lead).expect("node").text,
        "Deploy previews, feature flags & rollbacks in one place."
    );
    let script = find(&g, |n| n.kind == NodeKind::Opaque).expect("script");
    assert_eq!(get(&g, script).expect("node").tag, "script");
    assert!(
        g.nodes
            .iter()
            .all(|n| n.kind != NodeKind::Text || !n.text.trim().is_empty())
    );
}

#[test]
fn round_trip_changes_only_what_changed() {
    let (ep, mut g) = pull(LANDING, None);
    let h1 = element(&g, "h1").expect("h1");
    let h1_text = text_child(&g, h1).expect("text");
    get_mut(&mut g, h1_text).expect("node").text = "Ship <faster> & safer".into();
    let button = find(&g, |n| n.attributes.iter().any(|a| a.value == "button")).expect("button");
    get_mut(&mut g, button).expect("node").style[0] = Declaration {
        property: "padding".into(),
        value: "16px 32px".into(),
    };
    let hero = find(&g, |n| {
        n.attributes
            .iter()
            .any(|a| a.name == "id" && a.value == "hero")
    })
    .expect("hero");
    let at = get(&g, hero).expect("node").children.len();
    let note = insert_element(&mut g, hero, at, "p", "No credit card needed.").expect("inserted");
    get_mut(&mut g, note)
        .expect("node")
        .attributes
        .push(Attribute {
            name: "class".into(),
            value: "note".into(),
        });
    let nav = element(&g, "nav").expect("nav");
    get_mut(&mut g, nav).expect("node").attributes[1].value = "Primary \"site\" nav".into();

    let out = push(LANDING, &ep, &g);
    assert!(out.contains("<h1>Ship &lt;faster&gt; &amp; safer</h1>"));
    assert!(out.contains("style=\"padding: 16px 32px; background: var(--brand)\""));
    assert!(out.contains(">Start free trial</a>\n      <p class=\"note\">No credit card needed.</p>\n    </section>"), "{out}");
    assert!(out.contains("<nav id=\"main-nav\" aria-label=\"Primary &quot;site&quot; nav\">\n      <a href=\"#features\">"));
    // Untouched nodes keep their exact text (comments, entities, script).
    for tag in ["footer", "blockquote", "script"] {
        let id = find(&g, |n| n.tag == tag).expect("node");
        assert!(
            out.contains(&slice(LANDING, get(&g, id).expect("node"))),
            "{tag} kept"
        );
    }
    assert!(out.contains("<!-- Three feature cards -->\n    <section id=\"features\""));
}

#[test]
fn reorder_and_delete_keep_the_rest() {
    let (ep, mut g) = pull(LANDING, Some("features"));
    let cards = get(&g, g.root).expect("root").children.clone();
    assert_eq!(cards.len(), 3);
    let root = g.root;
    get_mut(&mut g, root).expect("root").children = vec![cards[2], cards[0]];
    let out = push(LANDING, &ep, &g);
    let first = slice(LANDING, get(&g, cards[0]).expect("card"));
    let last = slice(LANDING, get(&g, cards[2]).expect("card"));
    assert!(out.contains(&format!("{last}\n      {first}")));
    assert!(!out.contains("<h2>Flags</h2>"));
}

#[test]
fn unchanged_graph_emits_an_empty_edit() {
    let (ep, g) = pull(LANDING, None);
    let edit = HtmlStatic::emit(LANDING, ep.span, &g).expect("emits");
    assert!(edit.text.is_empty() && edit.span.start == edit.span.end);
}

#[test]
fn changed_opaque_node_is_refused_by_name() {
    let (ep, mut g) = pull(LANDING, None);
    let script = find(&g, |n| n.kind == NodeKind::Opaque).expect("script");
    get_mut(&mut g, script).expect("node").text = "<script>alert(1)</script>".into();
    match HtmlStatic::emit(LANDING, ep.span, &g) {
        Err(Error::InvalidInput(m)) => assert!(m.contains(&format!("node {script}")), "{m}"),
        other => panic!("expected invalid-input, got {other:?}"),
    }
}

#[test]
fn dangling_children_cycles_and_bad_spans_are_errors() {
    let (ep, g) = pull(LANDING, None);
    let mut dangling = g.clone();
    get_mut(&mut dangling, 1).expect("root").children.push(9999);
    let mut cycle = g.clone();
    let h1 = element(&cycle, "h1").expect("h1");
    get_mut(&mut cycle, h1).expect("node").children.push(1);
    let mut shared = g.clone();
    let footer = element(&shared, "footer").expect("footer");
    get_mut(&mut shared, h1)
        .expect("node")
        .children
        .push(footer);
    let mut dup = g.clone();
    dup.nodes[2].id = 2;
    let mut new_with_span = g.clone();
    let h1_node = get(&new_with_span, h1).expect("h1").clone();
    let new_id = insert_element(&mut new_with_span, 1, 0, "p", "x").expect("p");
    get_mut(&mut new_with_span, new_id).expect("node").span = h1_node.span;
    for (what, bad) in [
        ("dangling", dangling),
        ("cycle", cycle),
        ("shared", shared),
        ("dup", dup),
        ("span", new_with_span),
    ] {
        match HtmlStatic::emit(LANDING, ep.span, &bad) {
            Err(Error::InvalidInput(m)) => assert!(!m.is_empty(), "{what}"),
            other => panic!("{what}: expected invalid-input, got {other:?}"),
        }
    }
    let wrong_bound = Span {
        start: ep.span.start + 1,
        end: ep.span.end,
    };
    assert!(HtmlStatic::emit(LANDING, wrong_bound, &g).is_err());
    let outside = Span {
        start: 0,
        end: u32::MAX,
    };
    assert!(HtmlStatic::emit(LANDING, outside, &g).is_err());
}

#[test]
fn graphs_that_would_not_re_parse_equal_are_refused() {
    let (ep, g) = pull(LANDING, None);
    let h1 = element(&g, "h1").expect("h1");
    let mut blank = g.clone();
    let t = text_child(&blank, h1).expect("text");
    get_mut(&mut blank, t).expect("node").text = "  \n".into();
    let mut bad_tag = g.clone();
    insert_element(&mut bad_tag, 1, 0, "my tag", "x").expect("inserted");
    let mut bad_attr = g.clone();
    get_mut(&mut bad_attr, h1)
        .expect("node")
        .attributes
        .push(Attribute {
            name: "a\"b".into(),
            value: String::new(),
        });
    let mut void_kids = g.clone();
    insert_element(&mut void_kids, 1, 0, "br", "x").expect("inserted");
    for (what, bad) in [
        ("blank", blank),
        ("tag", bad_tag),
        ("attr", bad_attr),
        ("void", void_kids),
    ] {
        assert!(
            matches!(
                HtmlStatic::emit(LANDING, ep.span, &bad),
                Err(Error::InvalidInput(_))
            ),
            "{what}"
        );
    }
}

#[test]
fn tokens_are_read_and_rewritten_in_place() {
    let tokens = HtmlStatic::read_tokens(LANDING).expect("reads");
    let names: Vec<&str> = tokens.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        ["--brand", "--brand-dark", "--radius", "--ink", "--muted"]
    );
    assert_eq!(tokens[0].value, "#2f6fed");
    let want = [
        Token {
            name: "--brand".into(),
            value: "#ff5a1f".into(),
        },
        Token {
            name: "--space".into(),
            value: "8px".into(),
        },
    ];
    let edit = HtmlStatic::emit_tokens(LANDING, &want).expect("emits");
    let out = apply(LANDING, &edit).expect("applies");
    let after = HtmlStatic::read_tokens(&out).expect("reads");
    assert_eq!(after.len(), 6);
    assert_eq!(after[0].value, "#ff5a1f");
    assert_eq!(after[5].name, "--space");
    assert_eq!(after[2].value, "12px");
    assert!(
        out.contains("      --muted: #5b6475;\n      --space: 8px;\n    }"),
        "{out}"
    );
    assert!(
        LANDING.replace("#2f6fed", "#ff5a1f").len() + "\n      --space: 8px;".len() == out.len()
    );
}

#[test]
fn tokens_create_a_rule_or_a_style_when_missing() {
    let page = "<html><head><title>x</title></head><body><p>hi</p></body></html>";
    let t = [Token {
        name: "--brand".into(),
        value: "red".into(),
    }];
    let out = apply(page, &HtmlStatic::emit_tokens(page, &t).expect("emits")).expect("applies");
    assert_eq!(
        HtmlStatic::read_tokens(&out).expect("reads")[0].value,
        "red"
    );
    let styled = "<head><style>p { color: blue; }</style></head>";
    let out = apply(styled, &HtmlStatic::emit_tokens(styled, &t).expect("emits")).expect("applies");
    assert_eq!(HtmlStatic::read_tokens(&out).expect("reads").len(), 1);
    assert!(out.contains("p { color: blue; }"));
    let bad = [Token {
        name: "--x".into(),
        value: "red; } body { color: red".into(),
    }];
    assert!(matches!(
        HtmlStatic::emit_tokens(styled, &bad),
        Err(Error::InvalidInput(_))
    ));
    let bad = [Token {
        name: "brand".into(),
        value: "red".into(),
    }];
    assert!(HtmlStatic::emit_tokens(styled, &bad).is_err());
}

/// The host keeps attributes and style in maps: a changed node comes back
/// in name order, without `unsupported`. Order alone is no change.
fn as_host_sends(n: &mut Node) {
    n.attributes.sort_by(|a, b| a.name.cmp(&b.name));
    n.style.sort_by(|a, b| a.property.cmp(&b.property));
    n.unsupported = None;
}

#[test]
fn host_shaped_graph_keeps_source_order() {
    let (ep, mut g) = pull(LANDING, None);
    let nav = element(&g, "nav").expect("nav");
    as_host_sends(get_mut(&mut g, nav).expect("nav"));
    let link = insert_element(&mut g, nav, 3, "a", "Blog").expect("a");
    get_mut(&mut g, link).expect("a").attributes = vec![
        Attribute {
            name: "class".into(),
            value: "new".into(),
        },
        Attribute {
            name: "href".into(),
            value: "/blog".into(),
        },
    ];
    let button = find(&g, |n| n.attributes.iter().any(|a| a.value == "button")).expect("button");
    let b = get_mut(&mut g, button).expect("button");
    as_host_sends(b);
    b.style
        .iter_mut()
        .filter(|d| d.property == "padding")
        .for_each(|d| d.value = "16px".into());
    b.attributes.push(Attribute {
        name: "data-cta".into(),
        value: "hero".into(),
    });
    let out = push(LANDING, &ep, &g);
    assert!(
        out.contains("<nav id=\"main-nav\" aria-label=\"Main\">"),
        "open tag kept"
    );
    assert!(
        out.contains(
            "<a href=\"/docs\">Docs</a>\n      <a class=\"new\" href=\"/blog\">Blog</a>\n    </nav>"
        ),
        "{out}"
    );
    assert!(
        out.contains("<a class=\"button\" href=\"/signup\" data-cta=\"hero\" style=\"padding: 16px; background: var(--brand)\">"),
        "{out}"
    );
}

#[test]
fn every_single_edit_of_the_fixture_round_trips() {
    let (ep, g) = pull(LANDING, None);
    let mut tried = 0;
    for n in &g.nodes {
        let mut edited = g.clone();
        let node = get_mut(&mut edited, n.id).expect("node");
        match (n.kind, &n.unsupported) {
            (NodeKind::Text, _) => node.text = format!("{} (edited)", n.text.trim()),
            (NodeKind::Element, None) if n.id != 1 => {
                node.attributes.push(Attribute {
                    name: "data-edited".into(),
                    value: "yes".into(),
                });
                node.style.push(Declaration {
                    property: "outline".into(),
                    value: "1px solid".into(),
                });
            }
            _ => continue,
        }
        let edit = HtmlStatic::emit(LANDING, ep.span, &edited).expect("a plain edit is written");
        let out = apply(LANDING, &edit).expect("applies");
        let g2 = HtmlStatic::parse(
            &out,
            &HtmlStatic::detect("f.html", &out, None).expect("detects"),
        )
        .expect("parses");
        assert!(same_shape(&edited, &g2), "node {}: {out}", n.id);
        tried += 1;
    }
    assert!(tried > 5, "{tried}");
}

#[test]
fn new_subtrees_are_indented_like_their_siblings() {
    let (ep, mut g) = pull(LANDING, Some("features"));
    let card = insert_element(&mut g, 1, 3, "article", "unused").expect("card");
    get_mut(&mut g, card).expect("card").children.clear();
    get_mut(&mut g, card)
        .expect("card")
        .attributes
        .push(Attribute {
            name: "class".into(),
            value: "card".into(),
        });
    insert_element(&mut g, card, 0, "h2", "Audit").expect("h2");
    insert_element(&mut g, card, 1, "p", "Every change, signed\u{a0}and kept.").expect("p");
    let out = push(LANDING, &ep, &g);
    let want = "        <p>One click back to the last good build &mdash; no pager.</p>\n      </article>\n      \
                <article class=\"card\">\n        <h2>Audit</h2>\n        <p>Every change, signed&nbsp;and kept.</p>\n      </article>\n    </section>";
    assert!(out.contains(want), "{out}");
}
