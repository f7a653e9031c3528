//! Round trips on `tests/fixtures/canvas/Card.vue` and refusals.

use super::*;
use webrig_adapter_markup::testing::{
    self, element, find, get, get_mut, insert_element, slice, text_child,
};
use webrig_adapter_markup::{apply, same_shape};
use webrig_adapter_sdk::types::Declaration;

const CARD: &str = include_str!("../../../../tests/fixtures/canvas/Card.vue");

fn pull(src: &str) -> (Entrypoint, Graph) {
    testing::pull::<VueSfc>("Card.vue", src)
}

fn push(src: &str, ep: &Entrypoint, g: &Graph) -> String {
    testing::push::<VueSfc>("Card.vue", src, ep, g)
}

#[test]
fn template_is_bound_with_directives_and_interpolations_kept() {
    let (ep, g) = pull(CARD);
    assert_eq!(ep.name, "template");
    assert!(
        slice(CARD, &g.nodes[0]).starts_with("<template>")
            && slice(CARD, &g.nodes[0]).ends_with("</template>")
    );
    let article = element(&g, "article").expect("article");
    let a = get(&g, article).expect("node");
    assert!(
        a.unsupported
            .as_deref()
            .is_some_and(|w| w.contains(":class")),
        "{:?}",
        a.unsupported
    );
    assert_eq!(a.attributes.len(), 1);
    let badge = element(&g, "span").expect("span");
    assert!(
        get(&g, badge)
            .expect("node")
            .unsupported
            .as_deref()
            .is_some_and(|w| w.contains("v-if"))
    );
    let button = element(&g, "button").expect("button");
    assert!(
        get(&g, button)
            .expect("node")
            .unsupported
            .as_deref()
            .is_some_and(|w| w.contains("@click"))
    );
    let interp = find(&g, |n| n.kind == NodeKind::Opaque).expect("interpolation");
    assert_eq!(get(&g, interp).expect("node").text, "{{ title }}");
    assert!(VueSfc::detect("Card.tsx", CARD, None).is_none());
    assert!(VueSfc::detect("X.vue", "<template lang=\"pug\">div</template>", None).is_none());
}

#[test]
fn round_trip_inside_directive_elements() {
    let (ep, mut g) = pull(CARD);
    let body = find(&g, |n| n.attributes.iter().any(|a| a.value == "card-body")).expect("p");
    let t = text_child(&g, body).expect("text");
    get_mut(&mut g, t).expect("node").text = "Plans from {9} a month".into();
    let footer = element(&g, "footer").expect("footer");
    get_mut(&mut g, footer).expect("node").style[1] = Declaration {
        property: "gap".into(),
        value: "12px".into(),
    };
    let ul = element(&g, "ul").expect("ul");
    insert_element(&mut g, ul, 2, "li", "Audit log").expect("li");
    let a = element(&g, "a").expect("a");
    get_mut(&mut g, a)
        .expect("node")
        .attributes
        .push(Attribute {
            name: "title".into(),
            value: "Sign up".into(),
        });

    let out = push(CARD, &ep, &g);
    assert!(
        out.contains("<p class=\"card-body\">Plans from &#123;9} a month</p>"),
        "{out}"
    );
    assert!(out.contains("<footer class=\"card-footer\" style=\"display: flex; gap: 12px\">"));
    assert!(
        out.contains("<li>Role-based access</li>\n      <li>Audit log</li>\n    </ul>"),
        "{out}"
    );
    assert!(out.contains("<a class=\"button\" href=\"/signup\" title=\"Sign up\">Get started</a>"));
    // The directive elements' own tags are copied, as are untouched nodes.
    assert!(out.contains("<article class=\"card\" :class=\"{ featured }\">"));
    for tag in ["header", "button"] {
        let id = element(&g, tag).expect("node");
        assert!(
            out.contains(&slice(CARD, get(&g, id).expect("node"))),
            "{tag}"
        );
    }
}

#[test]
fn directives_and_interpolations_cannot_change() {
    let (ep, g) = pull(CARD);
    let mut interp = g.clone();
    let i = find(&interp, |n| n.kind == NodeKind::Opaque).expect("opaque");
    get_mut(&mut interp, i).expect("node").text = "{{ subtitle }}".into();
    match VueSfc::emit(CARD, ep.span, &interp) {
        Err(Error::InvalidInput(m)) => assert!(m.contains(&format!("node {i}")), "{m}"),
        other => panic!("expected invalid-input, got {other:?}"),
    }
    let mut attr = g.clone();
    let span = element(&attr, "span").expect("span");
    get_mut(&mut attr, span).expect("node").attributes[0].value = "pill".into();
    match VueSfc::emit(CARD, ep.span, &attr) {
        Err(Error::InvalidInput(m)) => assert!(
            m.contains(&format!("node {span}")) && m.contains("v-if"),
            "{m}"
        ),
        other => panic!("expected invalid-input, got {other:?}"),
    }
    let mut directive = g.clone();
    let p = element(&directive, "p").expect("p");
    get_mut(&mut directive, p)
        .expect("node")
        .attributes
        .push(Attribute {
            name: "v-show".into(),
            value: "x".into(),
        });
    assert!(VueSfc::emit(CARD, ep.span, &directive).is_err());
    let mut component = g.clone();
    insert_element(&mut component, 1, 0, "MyCard", "x").expect("inserted");
    assert!(VueSfc::emit(CARD, ep.span, &component).is_err());
    let mut cycle = g;
    get_mut(&mut cycle, p).expect("node").children.push(1);
    assert!(VueSfc::emit(CARD, ep.span, &cycle).is_err());
}

#[test]
fn components_are_instances() {
    let src = "<template>\n  <div>\n    <MyCard title=\"a\"><p>slot</p></MyCard>\n  </div>\n</template>\n";
    let (ep, mut g) = pull(src);
    let c = find(&g, |n| n.kind == NodeKind::Component).expect("component");
    assert!(get(&g, c).expect("node").children.is_empty());
    let div = element(&g, "div").expect("div");
    insert_element(&mut g, div, 0, "h3", "Title").expect("h3");
    let out = push(src, &ep, &g);
    assert!(
        out.contains("<h3>Title</h3>\n    <MyCard title=\"a\"><p>slot</p></MyCard>"),
        "{out}"
    );
}

#[test]
fn every_single_edit_of_the_fixture_round_trips() {
    let (ep, g) = pull(CARD);
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
        let edit = VueSfc::emit(CARD, ep.span, &edited).expect("a plain edit is written");
        let out = apply(CARD, &edit).expect("applies");
        let g2 = VueSfc::parse(&out, &VueSfc::detect("f.vue", &out, None).expect("detects"))
            .expect("parses");
        assert!(same_shape(&edited, &g2), "node {}: {out}", n.id);
        tried += 1;
    }
    assert!(tried > 5, "{tried}");
}
