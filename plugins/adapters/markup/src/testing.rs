//! Graph editing helpers for the adapters' round-trip tests (what a canvas
//! does to a pulled graph). Not used by the components themselves.

use webrig_adapter_sdk::node;
use webrig_adapter_sdk::types::{Graph, Node, NodeKind};

/// The id of the first node (in id order) that `pred` accepts.
pub fn find(g: &Graph, pred: impl Fn(&Node) -> bool) -> Option<u32> {
    g.nodes.iter().find(|n| pred(n)).map(|n| n.id)
}

/// The first element with `tag` whose text child (if `text` is given)
/// starts with it.
pub fn element(g: &Graph, tag: &str) -> Option<u32> {
    find(g, |n| n.kind == NodeKind::Element && n.tag == tag)
}

/// The node `id`, to change.
pub fn get_mut(g: &mut Graph, id: u32) -> Option<&mut Node> {
    g.nodes.iter_mut().find(|n| n.id == id)
}

/// The node `id`.
pub fn get(g: &Graph, id: u32) -> Option<&Node> {
    g.nodes.iter().find(|n| n.id == id)
}

/// Adds `n` (its id replaced by a fresh one) as child `at` of `parent`;
/// the new id.
pub fn insert(g: &mut Graph, parent: u32, at: usize, mut n: Node) -> Option<u32> {
    let id = g.nodes.iter().map(|n| n.id).max().unwrap_or(0) + 1;
    n.id = id;
    n.span = None;
    let p = get_mut(g, parent)?;
    let at = at.min(p.children.len());
    p.children.insert(at, id);
    g.nodes.push(n);
    Some(id)
}

/// Adds a new element `tag` holding `text` as child `at` of `parent`; the
/// element's id.
pub fn insert_element(g: &mut Graph, parent: u32, at: usize, tag: &str, text: &str) -> Option<u32> {
    let el = insert(g, parent, at, node(0, NodeKind::Element, tag))?;
    let mut t = node(0, NodeKind::Text, "");
    t.text = text.to_string();
    insert(g, el, 0, t)?;
    Some(el)
}

/// The first text child of `id`'s subtree's direct children.
pub fn text_child(g: &Graph, id: u32) -> Option<u32> {
    get(g, id)?
        .children
        .iter()
        .copied()
        .find(|&c| get(g, c).is_some_and(|n| n.kind == NodeKind::Text))
}

/// `A`'s entrypoint and graph for `src`, the file named `file`.
pub fn pull<A: webrig_adapter_sdk::Adapter>(
    file: &str,
    src: &str,
) -> (webrig_adapter_sdk::types::Entrypoint, Graph) {
    let ep = A::detect(file, src, None).expect("detects");
    let g = A::parse(src, &ep).expect("parses");
    (ep, g)
}

/// The source text of `n`.
pub fn slice(src: &str, n: &Node) -> String {
    let s = n.span.expect("span");
    src[s.start as usize..s.end as usize].to_string()
}

/// Emits `g` with `A` as the host would: the edit inside the bound span,
/// the result re-parsing to the same shape, the bytes outside the bound
/// span untouched. Returns the new text.
pub fn push<A: webrig_adapter_sdk::Adapter>(
    file: &str,
    src: &str,
    ep: &webrig_adapter_sdk::types::Entrypoint,
    g: &Graph,
) -> String {
    let edit = A::emit(src, ep.span, g).expect("emits");
    assert!(edit.span.start >= ep.span.start && edit.span.end <= ep.span.end);
    let out = crate::apply(src, &edit).expect("applies");
    let (ep2, g2) = pull::<A>(file, &out);
    assert!(
        crate::same_shape(g, &g2),
        "re-parse equals the emitted graph:\n{out}"
    );
    assert_eq!(
        &out[..ep.span.start as usize],
        &src[..ep.span.start as usize]
    );
    assert_eq!(&out[ep2.span.end as usize..], &src[ep.span.end as usize..]);
    out
}
