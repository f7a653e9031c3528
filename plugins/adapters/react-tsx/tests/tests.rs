//! The adapter end to end, natively: detect, parse, edit the graph, emit,
//! apply the edit as the host does, and read the result back.

use std::time::Instant;

use webrig_adapter_react_tsx::ReactTsx;
use webrig_adapter_sdk::types::*;
use webrig_adapter_sdk::{Adapter, node};

const DASHBOARD: &str = include_str!("fixtures/canvas/Dashboard.tsx");
const BIG: &str = include_str!("fixtures/canvas/Big.tsx");

fn pull(src: &str) -> (Entrypoint, Graph) {
    let ep =
        ReactTsx::detect("Dashboard.tsx", src, None).expect("the fixture has a default export");
    let g = ReactTsx::parse(src, &ep).expect("the fixture parses");
    (ep, g)
}

fn apply(src: &str, edit: &SourceEdit) -> String {
    let (s, e) = (edit.span.start as usize, edit.span.end as usize);
    format!("{}{}{}", &src[..s], edit.text, &src[e..])
}

/// A graph's structure as the host compares it: kind, tag, attributes,
/// text, style, children in order (ids and spans left out).
fn shape(g: &Graph) -> String {
    fn walk(g: &Graph, id: u32, depth: usize, out: &mut String) {
        let n = g.nodes.iter().find(|n| n.id == id).expect("child in graph");
        let attrs: Vec<String> = n
            .attributes
            .iter()
            .map(|a| format!("{}={:?}", a.name, a.value))
            .collect();
        let style: Vec<String> = n
            .style
            .iter()
            .map(|d| format!("{}:{}", d.property, d.value))
            .collect();
        out.push_str(&format!(
            "{}{:?} {:?} [{}] {:?} {{{}}}\n",
            "  ".repeat(depth),
            n.kind,
            n.tag,
            attrs.join(" "),
            n.text,
            style.join("; ")
        ));
        for c in &n.children {
            walk(g, *c, depth + 1, out);
        }
    }
    let mut out = String::new();
    walk(g, g.root, 0, &mut out);
    out
}

fn find(g: &mut Graph, f: impl Fn(&Node) -> bool) -> &mut Node {
    g.nodes
        .iter_mut()
        .find(|n| f(n))
        .expect("the node is in the graph")
}

fn id_of(g: &Graph, f: impl Fn(&Node) -> bool) -> u32 {
    g.nodes
        .iter()
        .find(|n| f(n))
        .expect("the node is in the graph")
        .id
}

fn class_is(n: &Node, c: &str) -> bool {
    n.attributes
        .iter()
        .any(|a| a.name == "class" && a.value == c)
}

/// Emits, applies, re-reads and checks what the host checks.
fn push(src: &str, ep: &Entrypoint, g: &Graph) -> (String, SourceEdit) {
    let edit = ReactTsx::emit(src, ep.span, g).expect("emit");
    assert!(
        edit.span.start >= ep.span.start && edit.span.end <= ep.span.end,
        "edit inside bound"
    );
    let out = apply(src, &edit);
    assert_eq!(out[..ep.span.start as usize], src[..ep.span.start as usize]);
    let tail = src.len() - ep.span.end as usize;
    assert_eq!(out[out.len() - tail..], src[src.len() - tail..]);
    let ep2 = ReactTsx::detect("Dashboard.tsx", &out, Some(&ep.name)).expect("still detected");
    let g2 = ReactTsx::parse(&out, &ep2).expect("re-parses");
    assert_eq!(
        shape(&g2),
        shape(g),
        "re-parsed graph equals emitted graph\n{out}"
    );
    (out, edit)
}

#[test]
fn dashboard_reads_as_expected() {
    let (ep, g) = pull(DASHBOARD);
    assert_eq!(ep.name, "default");
    assert!(DASHBOARD[ep.span.start as usize..].starts_with("<div className=\"dashboard\""));
    let s = shape(&g);
    assert!(
        s.contains("Element \"h1\" [class=\"dashboard__title\"] \"\" {}"),
        "{s}"
    );
    assert!(s.contains("Text \"\" [] \"Team dashboard\""));
    assert!(s.contains("{padding:16px; border-bottom:1px solid var(--line)}"));
    assert!(s.contains("{display:grid; gap:12px; grid-template-columns:repeat(3, 1fr)}"));
    assert!(s.contains("{margin-top:4px; opacity:0.7}"));
    assert!(s.contains("\"Tasks due in the next two weeks, by date.\""));
    assert!(s.contains("\"Reports & exports\""));
    assert!(s.contains("Element \"label\" [for=\"filter\"]"));
    assert!(s.contains("Component \"StatCard\" [label=\"Open tasks\" value=\"24\" trend=\"up\"]"));
    assert!(
        !g.nodes
            .iter()
            .any(|n| n.kind == NodeKind::Text && n.text.trim().is_empty())
    );
    let input = g.nodes.iter().find(|n| n.tag == "input").expect("input");
    assert_eq!(
        input.unsupported.as_deref(),
        Some("the attribute value is an expression; the attribute onChange is an expression")
    );
    let header = g.nodes.iter().find(|n| n.tag == "header").expect("header");
    assert_eq!(header.token_refs, vec!["--line"]);
    let opaque: Vec<_> = g
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Opaque)
        .collect();
    assert_eq!(opaque.len(), 2);
    assert_eq!(opaque[1].unsupported.as_deref(), Some("a comment"));
    // Ids in source order from 1.
    for (i, n) in g.nodes.iter().enumerate() {
        assert_eq!(n.id, i as u32 + 1);
    }
}

#[test]
fn an_unchanged_graph_emits_no_change() {
    let (ep, g) = pull(DASHBOARD);
    let edit = ReactTsx::emit(DASHBOARD, ep.span, &g).expect("emit");
    assert_eq!(edit.text, "");
    assert_eq!(edit.span.start, edit.span.end);
}

#[test]
fn a_text_change_edits_only_that_text() {
    let (ep, mut g) = pull(DASHBOARD);
    find(&mut g, |n| n.text == "Team dashboard").text = "Ops dashboard".into();
    let (_, edit) = push(DASHBOARD, &ep, &g);
    assert_eq!(edit.text, "Ops");
    assert_eq!(
        &DASHBOARD[edit.span.start as usize..edit.span.end as usize],
        "Team"
    );
}

#[test]
fn text_with_markup_characters_round_trips() {
    let (ep, mut g) = pull(DASHBOARD);
    find(&mut g, |n| n.text == "Team dashboard").text = "a {b} <c> & \"d\"\tend".into();
    find(&mut g, |n| n.text.starts_with("Tasks due")).text = "  spaced  ".into();
    push(DASHBOARD, &ep, &g);
}

#[test]
fn style_attribute_and_insert_round_trip_keeping_untouched_nodes() {
    let (ep, mut g) = pull(DASHBOARD);
    let header = find(&mut g, |n| n.tag == "header");
    header.style[0].value = "24px".into();
    header.style.push(Declaration {
        property: "z-index".into(),
        value: "2".into(),
    });
    find(&mut g, |n| n.tag == "nav").attributes.push(Attribute {
        name: "data-x".into(),
        value: "say \"hi\" & {go}".into(),
    });
    find(&mut g, |n| n.tag == "h2").attributes.push(Attribute {
        name: "class".into(),
        value: "tasks__title".into(),
    });

    // A new <p class="note" style="margin-top: 8px; color: red">New</p>
    // after the h2, with a new <em> inside.
    let next = g.nodes.iter().map(|n| n.id).max().unwrap_or(0) + 1;
    let mut p = node(next, NodeKind::Element, "p");
    p.attributes.push(Attribute {
        name: "class".into(),
        value: "note".into(),
    });
    p.style = vec![
        Declaration {
            property: "margin-top".into(),
            value: "8px".into(),
        },
        Declaration {
            property: "color".into(),
            value: "red".into(),
        },
    ];
    let mut t = node(next + 1, NodeKind::Text, "");
    t.text = "New ".into();
    let em = node(next + 2, NodeKind::Element, "em");
    let mut t2 = node(next + 3, NodeKind::Text, "");
    t2.text = "note".into();
    let mut em = em;
    em.children = vec![t2.id];
    p.children = vec![t.id, em.id];
    let h2 = id_of(&g, |n| n.tag == "h2");
    let tasks = find(&mut g, |n| class_is(n, "tasks"));
    let at = tasks
        .children
        .iter()
        .position(|c| *c == h2)
        .expect("h2 in tasks")
        + 1;
    tasks.children.insert(at, p.id);
    g.nodes.extend([p, t, em, t2]);

    let (out, _) = push(DASHBOARD, &ep, &g);
    assert!(
        out.contains("style={{ padding: 24, borderBottom: '1px solid var(--line)', zIndex: 2 }}"),
        "{out}"
    );
    assert!(
        out.contains(
            "<p className=\"note\" style={{ marginTop: 8, color: 'red' }}>New <em>note</em></p>"
        ),
        "{out}"
    );
    // Untouched subtrees are byte-identical.
    for part in [
        "<ul className=\"tasks__list\">",
        "            {visible.map((item) => (\n              <li key={item.id} className=\"task\">",
        "<footer className=\"dashboard__footer\">\n        <small>Updated every 5 minutes · <a href=\"/status\">status</a></small>\n      </footer>",
        "<StatCard label=\"Done this week\" value=\"41\">\n            <small>best week this quarter</small>\n          </StatCard>",
        "<button type=\"button\" className=\"button button--primary\" onClick={() => window.print()}>",
    ] {
        assert!(out.contains(part), "{part} kept in\n{out}");
    }
}

#[test]
fn children_of_an_unsupported_element_can_change() {
    let (ep, mut g) = pull(DASHBOARD);
    find(&mut g, |n| n.text == "Export ").text = "Print ".into();
    let (out, _) = push(DASHBOARD, &ep, &g);
    assert!(
        out.contains("onClick={() => window.print()}>\n            Print <b>PDF</b>"),
        "{out}"
    );
}

#[test]
fn texts_with_edge_spaces_beside_a_changed_sibling_keep_them() {
    let (ep, mut g) = pull(DASHBOARD);
    find(&mut g, |n| n.text == "status").text = "health".into();
    let (out, edit) = push(DASHBOARD, &ep, &g);
    assert!(
        out.contains("<small>Updated every 5 minutes · <a href=\"/status\">health</a></small>"),
        "{out}"
    );
    assert_eq!(edit.text, "health");
    let (ep, mut g) = pull(DASHBOARD);
    let b = id_of(&g, |n| n.tag == "b");
    find(&mut g, |n| n.tag == "button")
        .children
        .retain(|c| *c != b);
    let (out, _) = push(DASHBOARD, &ep, &g);
    // The trailing space is text: no line break may follow it.
    assert!(
        out.contains("window.print()}>\n            Export </button>"),
        "{out}"
    );
}

#[test]
fn removing_and_moving_nodes_round_trips() {
    let (ep, mut g) = pull(DASHBOARD);
    let footer = id_of(&g, |n| n.tag == "footer");
    let header = id_of(&g, |n| n.tag == "header");
    let root = g.root;
    let r = find(&mut g, |n| n.id == root);
    r.children.retain(|c| *c != footer);
    r.children.insert(0, footer);
    let nav = id_of(&g, |n| n.tag == "nav");
    find(&mut g, |n| n.id == header)
        .children
        .retain(|c| *c != nav);
    push(DASHBOARD, &ep, &g);
}

fn refused(g: &Graph) -> String {
    let (ep, _) = pull(DASHBOARD);
    match ReactTsx::emit(DASHBOARD, ep.span, g) {
        Err(Error::InvalidInput(m)) => m,
        other => panic!("expected invalid-input, got {:?}", other.map(|e| e.text)),
    }
}

#[test]
fn changed_opaque_component_or_unsupported_parts_are_refused() {
    let (_, g0) = pull(DASHBOARD);
    let mut g = g0.clone();
    find(&mut g, |n| n.kind == NodeKind::Opaque).text = "x".into();
    assert!(refused(&g).contains("an expression"));
    let mut g = g0.clone();
    find(&mut g, |n| n.tag == "StatCard").attributes[0].value = "Closed".into();
    assert!(refused(&g).contains("a component"));
    let mut g = g0.clone();
    let card = id_of(&g, |n| n.tag == "StatCard");
    let small = id_of(&g, |n| n.tag == "small");
    find(&mut g, |n| n.id == card).children.push(small);
    assert!(!refused(&g).is_empty());
    let mut g = g0.clone();
    find(&mut g, |n| n.tag == "button").attributes[0].value = "submit".into();
    assert!(refused(&g).contains("onClick"));
    let mut g = g0.clone();
    let next = g.nodes.len() as u32 + 10;
    let mut o = node(next, NodeKind::Opaque, "");
    o.unsupported = Some("an expression".into());
    g.nodes.push(o);
    find(&mut g, |n| n.tag == "h2").children.push(next);
    assert!(!refused(&g).is_empty());
}

#[test]
fn broken_graphs_are_refused_not_looped() {
    let (_, g0) = pull(DASHBOARD);
    let mut g = g0.clone();
    find(&mut g, |n| n.tag == "h2").children.push(9999);
    assert!(refused(&g).contains("9999"));
    let mut g = g0.clone();
    let root = g.root;
    find(&mut g, |n| n.tag == "h2").children.push(root);
    assert!(refused(&g).contains("twice"));
    let mut g = g0.clone();
    let dup = g.nodes[3].clone();
    g.nodes.push(dup);
    assert!(refused(&g).contains("two nodes"));
    let mut g = g0.clone();
    g.root = 4242;
    assert!(refused(&g).contains("root"));
    let mut g = g0.clone();
    find(&mut g, |n| n.tag == "h1").span = Some(Span { start: 1, end: 5 });
    assert!(refused(&g).contains("span"));
    // Two texts in a row would read back as one.
    let mut g = g0.clone();
    let next = g.nodes.len() as u32 + 10;
    let mut t = node(next, NodeKind::Text, "");
    t.text = "more".into();
    g.nodes.push(t);
    find(&mut g, |n| n.tag == "h1").children.push(next);
    assert!(refused(&g).contains("two text children"));
}

#[test]
fn a_very_deep_graph_is_refused() {
    let (_, mut g) = pull(DASHBOARD);
    let base = 100_000;
    let mut prev = g.root;
    for i in 0..10_000u32 {
        let n = node(base + i, NodeKind::Element, "div");
        find(&mut g, |x| x.id == prev).children.push(n.id);
        prev = n.id;
        g.nodes.push(n);
    }
    assert!(refused(&g).contains("deeper"));
}

#[test]
fn hostile_sources_give_errors_not_panics() {
    let ep = Entrypoint {
        name: "default".into(),
        span: Span { start: 0, end: 10 },
    };
    let truncated = &DASHBOARD[..DASHBOARD.len() / 2];
    assert!(ReactTsx::detect("D.tsx", truncated, None).is_none());
    assert!(ReactTsx::parse(truncated, &ep).is_err());
    let deep = format!(
        "export default function A() {{ return {}{}; }}",
        "<div>".repeat(10_000),
        "</div>".repeat(10_000)
    );
    assert!(ReactTsx::detect("D.tsx", &deep, None).is_none());
    assert!(ReactTsx::parse(&deep, &ep).is_err());
    let parens = format!(
        "export default function A() {{ return {}<a/>; }}",
        "(".repeat(50_000)
    );
    assert!(ReactTsx::detect("D.tsx", &parens, None).is_none());
    // Deep but under the limit: read fine.
    let ok = format!(
        "export default function A() {{ return {}{}; }}",
        "<div>".repeat(200),
        "</div>".repeat(200)
    );
    let ep = ReactTsx::detect("D.tsx", &ok, None).expect("200 levels are fine");
    assert_eq!(ReactTsx::parse(&ok, &ep).expect("parse").nodes.len(), 200);
    // A span that is not the entrypoint's.
    let (_, _) = pull(DASHBOARD);
    let bad = Entrypoint {
        name: "default".into(),
        span: Span { start: 3, end: 9 },
    };
    assert!(ReactTsx::parse(DASHBOARD, &bad).is_err());
    assert!(ReactTsx::detect("D.ts", DASHBOARD, None).is_none());
}

#[test]
fn named_and_jsx_files_are_detected() {
    let src = "export const Card = ({ t }) => (\n  <div className=\"card\">{t}</div>\n);\n";
    let ep = ReactTsx::detect("Card.jsx", src, Some("Card")).expect("named export");
    assert_eq!(ep.name, "Card");
    let g = ReactTsx::parse(src, &ep).expect("parse");
    assert_eq!(g.nodes.len(), 2);
}

#[test]
fn big_file_parse_time() {
    let ep = ReactTsx::detect("Big.tsx", BIG, None).expect("big detected");
    let start = Instant::now();
    let runs = 20;
    let mut nodes = 0;
    for _ in 0..runs {
        nodes = ReactTsx::parse(BIG, &ep).expect("parse").nodes.len();
    }
    let per = start.elapsed() / runs;
    eprintln!(
        "Big.tsx: {} lines, {} nodes, parse {:?} per run",
        BIG.lines().count(),
        nodes,
        per
    );
    let g = ReactTsx::parse(BIG, &ep).expect("parse");
    let start = Instant::now();
    let edit = ReactTsx::emit(BIG, ep.span, &g).expect("emit");
    eprintln!("Big.tsx: emit (no change) {:?}", start.elapsed());
    assert_eq!(edit.text, "");
    let mut g = g;
    find(&mut g, |n| n.text == "Block 7").text = "Block seven".into();
    find(&mut g, |n| class_is(n, "block__title") && n.id > 100)
        .attributes
        .push(Attribute {
            name: "id".into(),
            value: "far".into(),
        });
    let (_, edit) = push(BIG, &ep, &g);
    assert!(edit.text.len() < 200, "a narrow edit: {}", edit.text.len());
}

/// Emits and, when it succeeds, checks the result reads back equal: a
/// push may be refused, never drift. Whether it was written.
fn written_or_refused(src: &str, ep: &Entrypoint, g: &Graph) -> bool {
    match ReactTsx::emit(src, ep.span, g) {
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
    let (ep, g0) = pull(DASHBOARD);
    let mut written = 0;
    for n in &g0.nodes {
        let mut g = g0.clone();
        let m = find(&mut g, |x| x.id == n.id);
        match m.kind {
            NodeKind::Text => m.text = format!("{} & more", m.text),
            _ => m.attributes.push(Attribute {
                name: "data-t".into(),
                value: "1".into(),
            }),
        }
        written += usize::from(written_or_refused(DASHBOARD, &ep, &g));
        if n.id != g0.root {
            let mut g = g0.clone();
            for p in &mut g.nodes {
                p.children.retain(|c| *c != n.id);
            }
            written += usize::from(written_or_refused(DASHBOARD, &ep, &g));
        }
    }
    assert!(
        written > g0.nodes.len(),
        "most edits are written ({written})"
    );
}

/// A guest's stack is 1 MiB: the deepest input let through must parse,
/// read and emit within it.
#[test]
fn the_deepest_accepted_input_fits_a_small_stack() {
    let run = || {
        let depth = 390;
        let src = format!(
            "export default function A() {{ return {}{}; }}",
            "<div>".repeat(depth),
            "</div>".repeat(depth)
        );
        let ep = ReactTsx::detect("D.tsx", &src, None);
        let ep = ep.expect("under the nesting limit");
        // Past the graph's depth: refused, not overflowed.
        assert!(ReactTsx::parse(&src, &ep).is_err());
        let parens = format!(
            "export default function A() {{ return {}<a/>{}; }}",
            "(".repeat(390),
            ")".repeat(390)
        );
        assert!(ReactTsx::detect("D.tsx", &parens, None).is_some());
        let ok = format!(
            "export default function A() {{ return {}{}; }}",
            "<div>".repeat(250),
            "</div>".repeat(250)
        );
        let ep = ReactTsx::detect("D.tsx", &ok, None).expect("250 levels");
        let g = ReactTsx::parse(&ok, &ep).expect("250 levels read");
        ReactTsx::emit(&ok, ep.span, &g).expect("250 levels emit");
    };
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(run)
        .expect("thread")
        .join()
        .expect("no overflow");
}
