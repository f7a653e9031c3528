//! Unit tests: exact spans, hostile input (truncation, `<` soup, deep
//! nesting, generated junk) and the emitter's round trip on generated
//! documents.

use super::*;
use webrig_adapter_sdk::types::{Node, NodeKind};

#[test]
fn spans_are_exact() {
    let src = "<div id=\"a\"><p>Hi &amp; bye</p>\n  <br><img src=x /></div>";
    let doc = parse_doc(src, Dialect::Html).expect("parses");
    let g = subtree(&doc, doc.top[0]);
    let p = &g.nodes[1];
    assert_eq!(p.tag, "p");
    let s = p.span.expect("span");
    assert_eq!(
        &src[s.start as usize..s.end as usize],
        "<p>Hi &amp; bye</p>"
    );
    assert_eq!(g.nodes[2].text, "Hi & bye");
    assert_eq!(g.nodes.len(), 5);
}

#[test]
fn comments_and_blank_text_are_not_nodes_but_survive_an_edit() {
    let src = "<ul>\n  <!-- first -->\n  <li>a</li>\n  <li>b</li>\n</ul>";
    let doc = parse_doc(src, Dialect::Html).expect("parses");
    let mut g = subtree(&doc, 0);
    assert_eq!(g.nodes[0].children.len(), 2);
    let b = testing::text_child(&g, 4).expect("text");
    testing::get_mut(&mut g, b).expect("node").text = "B".into();
    let edit = emit::emit(src, Dialect::Html, &doc, 0, &g).expect("emits");
    assert_eq!(
        apply(src, &edit).expect("applies"),
        src.replace(">b<", ">B<")
    );
    assert_eq!(edit.text, "B");
}

#[test]
fn truncated_and_soup_input_never_panics() {
    let cases = [
        "<",
        "<d",
        "<div",
        "<div class",
        "<div class=",
        "<div class=\"a",
        "<div class='a",
        "</",
        "</di",
        "</div",
        "<!--",
        "<!-- x --",
        "<!",
        "<?xml",
        "<script>",
        "<script>let a = '</scr'",
        "<style>p{",
        "<title>x",
        "<textarea>",
        "{{ a",
        "{#if x}",
        "{a",
        "<a b={c",
        "<<<>><</><a<b<c>>>",
        "<a<b<c",
        "<>",
        "< div>",
        "<p>&#xFFFFFFFF;&#99999999999;&",
        "<div/><br/></br></p>",
        "\u{0}<\u{0}>",
        "<é>日本</é>",
        "<a href=\u{a0}x>",
        "<a =b>",
        "<a ==>",
        "<a/b/c>",
    ];
    for src in cases {
        for d in [Dialect::Html, Dialect::Vue, Dialect::Svelte] {
            if let Ok(doc) = parse_doc(src, d) {
                for &top in &doc.top {
                    let g = subtree(&doc, top);
                    let edit = emit::emit(src, d, &doc, top, &g).expect("an unchanged graph emits");
                    assert!(edit.text.is_empty(), "{src:?} {d:?}");
                }
            }
        }
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = "<div>".repeat(10_000) + &"</div>".repeat(10_000);
    let err = parse::parse(&deep, Dialect::Html).expect_err("too deep");
    assert!(err.contains("deeper than"), "{err}");
    assert!(parse::parse(&"<div>".repeat(10_000), Dialect::Vue).is_err());
    let ok = "<div>".repeat(MAX_DEPTH) + "x" + &"</div>".repeat(MAX_DEPTH);
    let doc = parse_doc(&ok, Dialect::Html).expect("parses at the cap");
    let mut g = subtree(&doc, 0);
    let last = g.nodes.len() as u32;
    testing::get_mut(&mut g, last).expect("text").text = "y".into();
    let edit = emit::emit(&ok, Dialect::Html, &doc, 0, &g).expect("emits");
    assert_eq!(edit.text, "y");
    // A graph deeper than the cap is refused before printing.
    let mut chain = g.clone();
    for k in 0..(MAX_DEPTH as u32 + 10) {
        let id = 100_000 + k;
        let mut n = webrig_adapter_sdk::node(id, NodeKind::Element, "b");
        n.children = if k + 1 < MAX_DEPTH as u32 + 10 {
            vec![id + 1]
        } else {
            vec![]
        };
        chain.nodes.push(n);
    }
    testing::get_mut(&mut chain, 1)
        .expect("root")
        .children
        .push(100_000);
    assert!(emit::emit(&ok, Dialect::Html, &doc, 0, &chain).is_err());
}

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as usize
    }
}

const PIECES: &[&str] = &[
    "<div>",
    "</div>",
    "<p class=\"a\">",
    "</p>",
    "<span style=\"color: red\">",
    "</span>",
    "<br>",
    "<img src=x>",
    "text",
    " ",
    "\n  ",
    "&amp;",
    "&lt;",
    "é",
    "日本",
    "<!-- c -->",
    "<",
    ">",
    "\"",
    "{{ x }}",
    "{y}",
    "{#if a}<b>z</b>{/if}",
    "<a v-if=\"q\">",
    "</a>",
    "<i on:click={f}>",
    "</i>",
    "<Comp/>",
    "<script>1<2</script>",
    "<style>p{}</style>",
    "<li>",
    "</li>",
    "=",
    "/>",
    "'",
];

fn text_nodes(g: &Graph) -> Vec<u32> {
    g.nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Text)
        .map(|n| n.id)
        .collect()
}

#[test]
fn generated_documents_round_trip_or_are_refused() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut round_trips = 0;
    for _ in 0..3000 {
        let len = rng.next() % 24;
        let src: String = (0..len)
            .map(|_| PIECES[rng.next() % PIECES.len()])
            .collect();
        let src = format!("<main>{src}</main>");
        for d in [Dialect::Html, Dialect::Vue, Dialect::Svelte] {
            let Ok(doc) = parse_doc(&src, d) else {
                continue;
            };
            let Some(root) = doc
                .top
                .iter()
                .copied()
                .find(|&i| doc.nodes[i].kind == NodeKind::Element)
            else {
                continue;
            };
            let mut g = subtree(&doc, root);
            // What a canvas does: change a text, add an element, drop a node.
            if let Some(&t) = text_nodes(&g).first() {
                testing::get_mut(&mut g, t).expect("text").text = "T & <u> {v}".into();
            }
            let kids = g.nodes[0].children.len();
            testing::insert_element(&mut g, 1, rng.next() % (kids + 1), "em", "new")
                .expect("inserted");
            if kids > 2 && rng.next().is_multiple_of(2) {
                g.nodes[0].children.remove(0);
            }
            // Set an attribute the way the host sends a changed node (name
            // order, no reason), and swap two children.
            let elements: Vec<u32> = g
                .nodes
                .iter()
                .filter(|n| n.kind == NodeKind::Element && n.id != 1)
                .map(|n| n.id)
                .collect();
            if !elements.is_empty() {
                let pick = elements[rng.next() % elements.len()];
                let n = testing::get_mut(&mut g, pick).expect("element");
                n.attributes.push(webrig_adapter_sdk::types::Attribute {
                    name: "data-k".into(),
                    value: "v\"{1}".into(),
                });
                n.attributes.sort_by(|a, b| a.name.cmp(&b.name));
                n.unsupported = None;
                if rng.next().is_multiple_of(4) {
                    n.tag = "section".into();
                }
            }
            let kids = g.nodes[0].children.len();
            if kids > 1 && rng.next().is_multiple_of(3) {
                g.nodes[0].children.swap(0, kids - 1);
            }
            let Ok(edit) = emit::emit(&src, d, &doc, root, &g) else {
                continue;
            };
            let out = apply(&src, &edit).expect("applies inside the source");
            let (s, e) = doc.nodes[root].span;
            assert!(edit.span.start as usize >= s && edit.span.end as usize <= e);
            let new_end = e + edit.text.len() - (edit.span.end - edit.span.start) as usize;
            let doc2 =
                parse_doc(&out, d).unwrap_or_else(|e| panic!("{d:?} {src:?} -> {out:?}: {e:?}"));
            let root2 = doc2.element_at((s, new_end)).unwrap_or_else(|| {
                panic!(
                    "{d:?} {src:?} -> {out:?} {edit:?} {:?}",
                    doc2.nodes.iter().map(|n| n.span).collect::<Vec<_>>()
                )
            });
            let g2 = subtree(&doc2, root2);
            assert!(
                same_shape(&g, &g2),
                "{d:?}\n{src:?}\n-> {out:?}\n{:?}\n{:?}",
                dump(&g),
                dump(&g2)
            );
            round_trips += 1;
        }
    }
    assert!(round_trips > 1000, "only {round_trips} round trips");
}

fn dump(g: &Graph) -> Vec<String> {
    let by: std::collections::HashMap<u32, &Node> = g.nodes.iter().map(|n| (n.id, n)).collect();
    let mut out = Vec::new();
    let mut stack = vec![(g.root, 0)];
    while let Some((id, depth)) = stack.pop() {
        let n = by[&id];
        out.push(format!(
            "{}{:?} {} {:?}",
            " ".repeat(depth),
            n.kind,
            n.tag,
            n.text
        ));
        stack.extend(n.children.iter().rev().map(|&c| (c, depth + 1)));
    }
    out
}

#[test]
fn graphs_over_the_node_limit_are_refused() {
    let src = format!("<ul>{}</ul>", "<li>x</li>".repeat(MAX_NODES / 2 + 1));
    let doc = parse_doc(&src, Dialect::Html).expect("parses");
    assert!(matches!(
        graph_of(&doc, 0),
        Err(webrig_adapter_sdk::types::Error::InvalidInput(_))
    ));
    let src = format!("<ul>{}</ul>", "<li>x</li>".repeat(100));
    assert_eq!(
        graph_of(&parse_doc(&src, Dialect::Html).expect("parses"), 0)
            .expect("fits")
            .nodes
            .len(),
        201
    );
}

#[test]
fn a_wide_list_emits_quickly() {
    let src = format!("<ul>\n{}</ul>", "  <li>item</li>\n".repeat(9_000));
    let doc = parse_doc(&src, Dialect::Html).expect("parses");
    let mut g = graph_of(&doc, 0).expect("fits");
    let last = g.nodes.len() as u32;
    testing::get_mut(&mut g, last).expect("text").text = "last".into();
    testing::insert_element(&mut g, 1, 0, "li", "first").expect("inserted");
    let started = std::time::Instant::now();
    let edit = emit::emit(&src, Dialect::Html, &doc, 0, &g).expect("emits");
    assert!(
        started.elapsed().as_millis() < 500,
        "{:?}",
        started.elapsed()
    );
    let out = apply(&src, &edit).expect("applies");
    assert!(out.starts_with("<ul>\n  <li>first</li>\n  <li>item</li>"));
    assert!(out.ends_with("<li>last</li>\n</ul>"));
}

#[test]
fn a_renamed_element_gets_its_new_close_tag() {
    let src = "<main>\n  <div class=\"a\"><b>x</b></div>\n</main>";
    let doc = parse_doc(src, Dialect::Html).expect("parses");
    let mut g = graph_of(&doc, 0).expect("graph");
    testing::get_mut(&mut g, 2).expect("div").tag = "section".into();
    let edit = emit::emit(src, Dialect::Html, &doc, 0, &g).expect("emits");
    assert_eq!(
        apply(src, &edit).expect("applies"),
        "<main>\n  <section class=\"a\"><b>x</b></section>\n</main>"
    );
}
