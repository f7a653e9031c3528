//! The parsed tree to the WIT graph: ids in source order from 1 at the
//! bound root. Components keep no children (they are instances).

use std::collections::{BTreeMap, HashMap};

use webrig_adapter_sdk::token_refs;
use webrig_adapter_sdk::types::{Attribute, Declaration, Graph, Node, NodeKind, Span};

use crate::parse::Doc;

/// A graph and, for each of its ids, the parsed node it came from.
#[derive(Clone, Debug)]
pub struct Built {
    pub graph: Graph,
    pub arena: HashMap<u32, usize>,
}

/// The graph of the subtree of `doc` rooted at node `root`.
pub fn build(doc: &Doc, root: usize) -> Built {
    let mut order = Vec::new();
    let mut stack = vec![root];
    while let Some(i) = stack.pop() {
        order.push(i);
        let n = &doc.nodes[i];
        if n.kind != NodeKind::Component {
            stack.extend(n.children.iter().rev());
        }
    }
    let id_of: HashMap<usize, u32> = order
        .iter()
        .enumerate()
        .map(|(k, &i)| (i, u32::try_from(k + 1).unwrap_or(u32::MAX)))
        .collect();
    let mut nodes = Vec::with_capacity(order.len());
    let mut arena = HashMap::with_capacity(order.len());
    for &i in &order {
        let n = &doc.nodes[i];
        let id = id_of[&i];
        arena.insert(id, i);
        let children = if n.kind == NodeKind::Component {
            Vec::new()
        } else {
            n.children
                .iter()
                .filter_map(|c| id_of.get(c).copied())
                .collect()
        };
        let mut refs: Vec<String> = Vec::new();
        for d in &n.style {
            for r in token_refs(&d.value) {
                if !refs.contains(&r) {
                    refs.push(r);
                }
            }
        }
        nodes.push(Node {
            id,
            kind: n.kind,
            tag: n.tag.clone(),
            attributes: n.attributes.clone(),
            text: n.text.clone(),
            style: n.style.clone(),
            token_refs: refs,
            children,
            span: Some(Span {
                start: offset(n.span.0),
                end: offset(n.span.1),
            }),
            unsupported: n.unsupported.clone(),
        });
    }
    Built {
        graph: Graph { root: 1, nodes },
        arena,
    }
}

/// A byte offset as WIT's u32 (sources over 4 GiB are refused earlier by
/// the host's limits; saturate rather than wrap).
pub fn offset(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Whether two graphs are equal as the host compares them: kind, tag,
/// attributes and style (as maps: order does not count), text, and
/// children in order, from the roots down (ids and spans ignored).
/// Iterative; a dangling or repeated id is "not equal".
pub fn same_shape(a: &Graph, b: &Graph) -> bool {
    let ia: HashMap<u32, &Node> = a.nodes.iter().map(|n| (n.id, n)).collect();
    let ib: HashMap<u32, &Node> = b.nodes.iter().map(|n| (n.id, n)).collect();
    let mut stack = vec![(a.root, b.root)];
    let mut seen = 0usize;
    while let Some((x, y)) = stack.pop() {
        seen += 1;
        if seen > a.nodes.len() + 1 {
            return false;
        }
        let (Some(x), Some(y)) = (ia.get(&x), ib.get(&y)) else {
            return false;
        };
        if x.kind != y.kind
            || x.tag != y.tag
            || attr_map(&x.attributes) != attr_map(&y.attributes)
            || x.text != y.text
            || decl_map(&x.style) != decl_map(&y.style)
            || x.children.len() != y.children.len()
        {
            return false;
        }
        stack.extend(x.children.iter().copied().zip(y.children.iter().copied()));
    }
    true
}

/// Attributes as the host compares them: a map, name to value (the canvas
/// keeps them in one, so a changed node comes back in name order).
pub fn attr_map(a: &[Attribute]) -> BTreeMap<&str, &str> {
    a.iter()
        .map(|x| (x.name.as_str(), x.value.as_str()))
        .collect()
}

/// Declarations as the host compares them: a map, property to value.
pub fn decl_map(d: &[Declaration]) -> BTreeMap<&str, &str> {
    d.iter()
        .map(|x| (x.property.as_str(), x.value.as_str()))
        .collect()
}

/// `(name, value)` pairs of `now`, ordered as in `before` (the source) and
/// then as in `now` for names `before` does not have; one per name, the
/// last value winning, as in a map.
pub fn source_order<'a>(before: &[&'a str], now: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let map: BTreeMap<&str, &str> = now.iter().copied().collect();
    let mut out: Vec<(&str, &str)> = Vec::with_capacity(map.len());
    for name in before.iter().chain(now.iter().map(|(n, _)| n)) {
        if let Some(v) = map.get(name)
            && !out.iter().any(|(n, _)| n == name)
        {
            out.push((name, v));
        }
    }
    out
}
