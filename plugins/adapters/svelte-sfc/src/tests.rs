//! Round trips on `tests/fixtures/canvas/Counter.svelte` and refusals.

use super::*;
use webrig_adapter_markup::testing::{
    self, element, find, get, get_mut, insert_element, slice, text_child,
};
use webrig_adapter_markup::{apply, same_shape};
use webrig_adapter_sdk::types::Declaration;

const COUNTER: &str = include_str!("../../../../tests/fixtures/canvas/Counter.svelte");

fn pull(src: &str) -> (Entrypoint, Graph) {
    testing::pull::<SvelteSfc>("Counter.svelte", src)
}

fn push(src: &str, ep: &Entrypoint, g: &Graph) -> String {
    testing::push::<SvelteSfc>("Counter.svelte", src, ep, g)
}

#[test]
fn markup_is_bound_with_blocks_and_directives_kept() {
    let (ep, g) = pull(COUNTER);
    assert_eq!(ep.name, "markup");
    let all = slice(COUNTER, &g.nodes[0]);
    assert!(
        all.starts_with("<section class=\"counter\">") && all.ends_with("</footer>"),
        "{all}"
    );
    assert_eq!(g.nodes[0].tag, FRAGMENT);
    assert_eq!(g.nodes[0].children.len(), 2);
    let button = element(&g, "button").expect("button");
    let b = get(&g, button).expect("node");
    assert!(
        b.unsupported
            .as_deref()
            .is_some_and(|w| w.contains("on:click")),
        "{:?}",
        b.unsupported
    );
    assert_eq!(b.children.len(), 3, "{{label}}, text, {{count}}");
    let block = find(&g, |n| n.tag == "{#if} block").expect("if block");
    let text = &get(&g, block).expect("node").text;
    assert!(text.starts_with("{#if count > 10}") && text.ends_with("{/if}"));
    assert!(SvelteSfc::detect("Counter.vue", COUNTER, None).is_none());
    assert!(SvelteSfc::detect("Only.svelte", "<script>let a;</script>", None).is_none());
}

#[test]
fn round_trip_edits_static_markup() {
    let (ep, mut g) = pull(COUNTER);
    let hint = find(&g, |n| n.attributes.iter().any(|a| a.value == "hint")).expect("hint");
    let t = text_child(&g, hint).expect("text");
    get_mut(&mut g, t).expect("node").text = "Press {it} & count".into();
    let h2 = element(&g, "h2").expect("h2");
    get_mut(&mut g, h2).expect("node").style.push(Declaration {
        property: "color".into(),
        value: "var(--brand)".into(),
    });
    let ul = element(&g, "ul").expect("ul");
    insert_element(&mut g, ul, 0, "li", "Tip zero").expect("li");
    let footer = element(&g, "footer").expect("footer");
    get_mut(&mut g, footer)
        .expect("node")
        .attributes
        .push(Attribute {
            name: "data-x".into(),
            value: "1".into(),
        });
    insert_element(&mut g, 1, 2, "aside", "New top-level").expect("aside");

    let out = push(COUNTER, &ep, &g);
    assert!(
        out.contains("<p class=\"hint\">Press &#123;it&#125; &amp; count</p>"),
        "{out}"
    );
    assert!(out.contains("<h2 class=\"counter-title\" style=\"color: var(--brand)\">Counter</h2>"));
    assert!(
        out.contains("<ul class=\"tips\">\n    <li>Tip zero</li>\n    <li>Tip one</li>"),
        "{out}"
    );
    assert!(out.contains("<footer class=\"counter-footer\" data-x=\"1\">"));
    assert!(
        out.contains("</footer>\n\n<aside>New top-level</aside>\n\n<style>"),
        "{out}"
    );
    let block = find(&g, |n| n.tag == "{#if} block").expect("block");
    assert!(out.contains(&get(&g, block).expect("node").text));
    let button = element(&g, "button").expect("button");
    assert!(out.contains(&slice(COUNTER, get(&g, button).expect("node"))));
}

#[test]
fn blocks_directives_and_expression_attributes_cannot_change() {
    let (ep, g) = pull(COUNTER);
    let mut block = g.clone();
    let b = find(&block, |n| n.tag == "{#if} block").expect("block");
    get_mut(&mut block, b).expect("node").text = "{#if true}{/if}".into();
    match SvelteSfc::emit(COUNTER, ep.span, &block) {
        Err(Error::InvalidInput(m)) => assert!(m.contains(&format!("node {b}")), "{m}"),
        other => panic!("expected invalid-input, got {other:?}"),
    }
    let mut button = g.clone();
    let id = element(&button, "button").expect("button");
    get_mut(&mut button, id).expect("node").attributes.clear();
    match SvelteSfc::emit(COUNTER, ep.span, &button) {
        Err(Error::InvalidInput(m)) => assert!(m.contains("on:click"), "{m}"),
        other => panic!("expected invalid-input, got {other:?}"),
    }
    let mut braces = g.clone();
    let p = element(&braces, "p").expect("p");
    get_mut(&mut braces, p)
        .expect("node")
        .attributes
        .push(Attribute {
            name: "on:click".into(),
            value: "f".into(),
        });
    assert!(SvelteSfc::emit(COUNTER, ep.span, &braces).is_err());
    let mut root_tag = g.clone();
    get_mut(&mut root_tag, 1).expect("root").tag = "div".into();
    assert!(SvelteSfc::emit(COUNTER, ep.span, &root_tag).is_err());
    let mut dangling = g;
    get_mut(&mut dangling, p).expect("node").children.push(4242);
    assert!(SvelteSfc::emit(COUNTER, ep.span, &dangling).is_err());
}

#[test]
fn every_single_edit_of_the_fixture_round_trips() {
    let (ep, g) = pull(COUNTER);
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
        let edit = SvelteSfc::emit(COUNTER, ep.span, &edited).expect("a plain edit is written");
        let out = apply(COUNTER, &edit).expect("applies");
        let g2 = SvelteSfc::parse(
            &out,
            &SvelteSfc::detect("f.svelte", &out, None).expect("detects"),
        )
        .expect("parses");
        assert!(same_shape(&edited, &g2), "node {}: {out}", n.id);
        tried += 1;
    }
    assert!(tried > 5, "{tried}");
}
