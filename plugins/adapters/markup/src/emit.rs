//! The preserving emitter: a graph back to source, as one edit inside the
//! bound span. It re-parses the source it was handed and, for every node
//! whose content did not change (same fields, same children, recursively),
//! copies that node's source text; a changed element keeps its own open and
//! close tags when only its children changed, and the whitespace (and
//! comments) between children that stayed neighbours. New and changed parts
//! are printed fresh, escaped, indented like their siblings. Opaque nodes
//! and components are only ever copied: a change to one is refused.
//!
//! Every refusal is `invalid-input` naming the node, checked before any
//! text is produced: dangling children, cycles, shared children, nesting
//! deeper than [`MAX_DEPTH`], spans that do not match the source, and
//! anything that would not re-parse to the same graph (adjacent text nodes,
//! blank text, a tag or attribute name the dialect reads differently).

use std::collections::{HashMap, HashSet};

use webrig_adapter_sdk::style_text;
use webrig_adapter_sdk::types::{Declaration, Error, Graph, Node, NodeKind, SourceEdit, Span};

use crate::entities::{escape_attr, escape_text};
use crate::graph::{Built, attr_map, build, decl_map, offset, source_order};
use crate::parse::{
    Dialect, Doc, MAX_DEPTH, PNode, RawAttr, classify, is_blank, is_rcdata, is_void,
};

fn bad(message: String) -> Error {
    Error::InvalidInput(message)
}

fn kind_name(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Element => "element",
        NodeKind::Text => "text",
        NodeKind::Component => "component",
        NodeKind::Opaque => "opaque",
    }
}

/// Checks `graph` is a tree: ids unique, every child present, no node
/// reached twice (cycle or shared child), depth within [`MAX_DEPTH`]. Its
/// nodes by id.
pub fn check_tree(graph: &Graph) -> Result<HashMap<u32, &Node>, Error> {
    let mut by_id = HashMap::with_capacity(graph.nodes.len());
    for n in &graph.nodes {
        if by_id.insert(n.id, n).is_some() {
            return Err(bad(format!("node id {} is used twice", n.id)));
        }
    }
    if !by_id.contains_key(&graph.root) {
        return Err(bad(format!("the root {} is not in the graph", graph.root)));
    }
    let mut seen = HashSet::new();
    seen.insert(graph.root);
    let mut stack = vec![(graph.root, 0usize)];
    while let Some((id, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            return Err(bad(format!(
                "node {id} is nested deeper than {MAX_DEPTH} levels"
            )));
        }
        for &c in &by_id[&id].children {
            if !by_id.contains_key(&c) {
                return Err(bad(format!(
                    "node {id} names child {c}, which is not in the graph"
                )));
            }
            if !seen.insert(c) {
                return Err(bad(format!(
                    "node {c} appears twice in the tree (a cycle or a shared child)"
                )));
            }
            stack.push((c, depth + 1));
        }
    }
    Ok(by_id)
}

/// The emitter's inputs for one call.
struct Ctx<'a> {
    src: &'a str,
    dialect: Dialect,
    doc: &'a Doc,
    orig: HashMap<u32, &'a Node>,
    built: &'a Built,
    new: HashMap<u32, &'a Node>,
    memo: HashMap<u32, bool>,
}

/// The edit that makes the bound part of `src` (the node `root` of `doc`,
/// parsed from `src` as `dialect`) read as `graph`.
pub fn emit(
    src: &str,
    dialect: Dialect,
    doc: &Doc,
    root: usize,
    graph: &Graph,
) -> Result<SourceEdit, Error> {
    let new = check_tree(graph)?;
    let built = build(doc, root);
    if graph.root != built.graph.root {
        return Err(bad(format!(
            "the graph's root is {}, not the bound node {}",
            graph.root, built.graph.root
        )));
    }
    let mut ctx = Ctx {
        src,
        dialect,
        doc,
        orig: built.graph.nodes.iter().map(|n| (n.id, n)).collect(),
        built: &built,
        new,
        memo: HashMap::new(),
    };
    for n in &graph.nodes {
        match (ctx.orig.get(&n.id), n.span) {
            (Some(o), Some(s))
                if o.span
                    .is_some_and(|os| os.start != s.start || os.end != s.end) =>
            {
                return Err(bad(format!(
                    "node {}'s span {}..{} does not match the source (was the file changed?)",
                    n.id, s.start, s.end
                )));
            }
            (None, Some(_)) => {
                return Err(bad(format!(
                    "node {} has a span but parse gave no such node",
                    n.id
                )));
            }
            _ => {}
        }
    }
    let (start, end) = doc.nodes[root].span;
    let mut out = String::with_capacity(end - start + 64);
    let indent = line_indent(src, start);
    ctx.print(graph.root, &indent, false, &mut out)?;
    Ok(minimal_edit(src, (start, end), &out))
}

/// An element the source never closed (closed by its parent's close tag
/// or the end of the file).
fn left_open(p: &PNode) -> bool {
    !p.fragment
        && !p.self_closing
        && matches!(p.kind, NodeKind::Element | NodeKind::Component)
        && !is_void(&p.tag)
        && p.close_start == p.span.1
}

/// `</tag>` for an element the source left open, if a close tag can name
/// it (the tokenizer reads odd names like `a<b` that no close tag matches).
fn close_tag(id: u32, tag: &str) -> Result<String, Error> {
    let ok = tag.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && tag
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | ':' | '.' | '_'));
    if !ok {
        return Err(bad(format!(
            "node {id}: <{tag}> was left unclosed in the source and cannot be closed by name"
        )));
    }
    Ok(format!("</{tag}>"))
}

/// The smallest edit turning `src[span]` into `new`.
pub fn minimal_edit(src: &str, span: (usize, usize), new: &str) -> SourceEdit {
    let old = &src[span.0..span.1];
    let (ob, nb) = (old.as_bytes(), new.as_bytes());
    let mut p = ob.iter().zip(nb).take_while(|(a, b)| a == b).count();
    while !old.is_char_boundary(p) || !new.is_char_boundary(p) {
        p -= 1;
    }
    let max = ob.len().min(nb.len()) - p;
    let mut s = ob
        .iter()
        .rev()
        .zip(nb.iter().rev())
        .take(max)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(ob.len() - s) || !new.is_char_boundary(nb.len() - s) {
        s -= 1;
    }
    SourceEdit {
        span: Span {
            start: offset(span.0 + p),
            end: offset(span.1 - s),
        },
        text: new[p..nb.len() - s].to_string(),
    }
}

/// The whitespace before `at` on its line, when only whitespace precedes it.
fn line_indent(src: &str, at: usize) -> String {
    let line_start = src[..at].rfind('\n').map_or(0, |p| p + 1);
    let before = &src[line_start..at];
    if is_blank(before) {
        before.to_string()
    } else {
        String::new()
    }
}

/// The trailing whitespace of a gap (the indentation before what follows).
fn ws_suffix(gap: &str) -> &str {
    let keep = gap
        .trim_end_matches(|c: char| c.is_ascii_whitespace())
        .len();
    &gap[keep..]
}

/// `gap` made safe between neighbours: whitespace next to a text node
/// would become part of that text when re-parsed.
fn fit(gap: &str, prev_text: bool, next_text: bool) -> &str {
    let mut g = gap;
    if prev_text {
        g = g.trim_start_matches(|c: char| c.is_ascii_whitespace());
    }
    if next_text {
        g = g.trim_end_matches(|c: char| c.is_ascii_whitespace());
    }
    g
}

/// The indentation a gap leaves for what follows it.
fn indent_after(gap: &str, fallback: &str) -> String {
    match gap.rfind('\n') {
        Some(p) if is_blank(&gap[p + 1..]) => gap[p + 1..].to_string(),
        _ => fallback.to_string(),
    }
}

impl<'a> Ctx<'a> {
    fn pnode(&self, id: u32) -> Option<&'a PNode> {
        self.built.arena.get(&id).map(|&i| &self.doc.nodes[i])
    }

    /// Same own fields as parsed (kind, tag, attributes, style, text), with
    /// attributes and style compared as maps, as the host does.
    fn own_same(&self, n: &Node) -> bool {
        self.orig.get(&n.id).is_some_and(|o| {
            o.kind == n.kind
                && o.tag == n.tag
                && o.text == n.text
                && attr_map(&o.attributes) == attr_map(&n.attributes)
                && decl_map(&o.style) == decl_map(&n.style)
        })
    }

    /// Unchanged from the parse, children included.
    fn unchanged(&mut self, id: u32) -> bool {
        if let Some(&m) = self.memo.get(&id) {
            return m;
        }
        let n = self.new[&id];
        let mut same =
            self.own_same(n) && self.orig.get(&id).is_some_and(|o| o.children == n.children);
        if same {
            for &c in &n.children {
                if !self.unchanged(c) {
                    same = false;
                    break;
                }
            }
        }
        self.memo.insert(id, same);
        same
    }

    /// Prints node `id`; `more` when siblings follow it (an element the
    /// source left unclosed then needs its close tag, or they would nest
    /// inside it when re-parsed).
    fn print(&mut self, id: u32, indent: &str, more: bool, out: &mut String) -> Result<(), Error> {
        let n = self.new[&id];
        if self.unchanged(id)
            && let Some(p) = self.pnode(id)
        {
            out.push_str(&self.src[p.span.0..p.span.1]);
            if more {
                // Close the chain of elements left open at its end,
                // innermost first, so each close tag matches its own.
                let mut chain = Vec::new();
                let mut at = Some(p);
                while let Some(q) = at.filter(|q| left_open(q)) {
                    chain.push(&q.tag);
                    at = q.children.last().map(|&c| &self.doc.nodes[c]);
                }
                for tag in chain.iter().rev() {
                    out.push_str(&close_tag(id, tag)?);
                }
            }
            return Ok(());
        }
        let orig = self.orig.get(&id).copied();
        if let Some(o) = orig {
            if matches!(o.kind, NodeKind::Opaque | NodeKind::Component) {
                return Err(bad(format!(
                    "node {id} ({} `{}`) cannot be changed: {}",
                    kind_name(o.kind),
                    o.tag,
                    o.unsupported
                        .as_deref()
                        .unwrap_or("the adapter does not model it")
                )));
            }
            if o.kind != n.kind {
                return Err(bad(format!(
                    "node {id} changed from {} to {}",
                    kind_name(o.kind),
                    kind_name(n.kind)
                )));
            }
        }
        match n.kind {
            NodeKind::Text => {
                if !n.children.is_empty() {
                    return Err(bad(format!("text node {id} has children")));
                }
                if is_blank(&n.text) {
                    return Err(bad(format!(
                        "text node {id} is empty or only whitespace (it would not re-parse as a node)"
                    )));
                }
                out.push_str(&escape_text(&n.text, self.dialect.braces()));
                Ok(())
            }
            NodeKind::Element => self.print_element(n, indent, more, out),
            kind => Err(bad(format!(
                "node {id}: a new {} node cannot be created by this adapter",
                kind_name(kind)
            ))),
        }
    }

    fn print_element(
        &mut self,
        n: &'a Node,
        indent: &str,
        more: bool,
        out: &mut String,
    ) -> Result<(), Error> {
        let id = n.id;
        let p = self.pnode(id);
        let own_same = self.own_same(n);
        if let Some(o) = self.orig.get(&id)
            && let Some(why) = &o.unsupported
            && !own_same
        {
            return Err(bad(format!(
                "node {id} (<{}>) cannot have its tag, attributes or style changed: {why}",
                o.tag
            )));
        }
        let void = is_void(&n.tag);
        if void && !n.children.is_empty() {
            return Err(bad(format!(
                "node {id}: <{}> is a void element and has no children",
                n.tag
            )));
        }
        if is_rcdata(&n.tag)
            && let Some(&c) = n
                .children
                .iter()
                .find(|c| self.new[*c].kind != NodeKind::Text)
        {
            return Err(bad(format!("node {c}: <{}> may only hold text", n.tag)));
        }
        let raw_tags = match p {
            Some(p) if own_same && (!p.self_closing || n.children.is_empty()) => Some(p),
            Some(p) if p.fragment => {
                return Err(bad(format!(
                    "node {id} is the bound fragment; it has no tag to change"
                )));
            }
            Some(p) if p.unsupported.is_some() => {
                return Err(bad(format!(
                    "node {id} (<{}>) is written self-closing with a directive; it cannot get children",
                    p.tag
                )));
            }
            _ => None,
        };
        match raw_tags {
            Some(p) => out.push_str(&self.src[p.span.0..p.open_end]),
            None => out.push_str(&self.open_tag(n)?),
        }
        let child_indent = format!("{indent}  ");
        self.print_children(n, p, indent, &child_indent, out)?;
        match (raw_tags, p) {
            (Some(p), _) if more && left_open(p) => out.push_str(&close_tag(id, &p.tag)?),
            (Some(p), _) => out.push_str(&self.src[p.close_start..p.span.1]),
            (None, _) if void => {}
            (None, Some(p)) if p.close_start < p.span.1 && p.tag == n.tag => {
                out.push_str(&self.src[p.close_start..p.span.1])
            }
            (None, _) => {
                out.push_str("</");
                out.push_str(&n.tag);
                out.push('>');
            }
        }
        Ok(())
    }

    /// A fresh open tag, refused if the dialect would read it differently.
    fn open_tag(&self, n: &'a Node) -> Result<String, Error> {
        let id = n.id;
        let tag_ok = n
            .tag
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && n.tag.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if !tag_ok {
            return Err(bad(format!(
                "node {id}: {:?} is not a tag name this adapter writes",
                n.tag
            )));
        }
        if matches!(n.tag.to_ascii_lowercase().as_str(), "script" | "style") {
            return Err(bad(format!(
                "node {id}: <{}> elements are kept verbatim, not written",
                n.tag
            )));
        }
        // Existing names keep their place in the source; new ones follow.
        let orig = self.orig.get(&id).copied();
        let names = |o: &'a Node| {
            o.attributes
                .iter()
                .map(|a| a.name.as_str())
                .collect::<Vec<_>>()
        };
        let props = |o: &'a Node| {
            o.style
                .iter()
                .map(|d| d.property.as_str())
                .collect::<Vec<_>>()
        };
        let now_attrs: Vec<(&str, &str)> = n
            .attributes
            .iter()
            .map(|a| (a.name.as_str(), a.value.as_str()))
            .collect();
        let now_style: Vec<(&str, &str)> = n
            .style
            .iter()
            .map(|d| (d.property.as_str(), d.value.as_str()))
            .collect();
        let attrs = source_order(&orig.map(names).unwrap_or_default(), &now_attrs);
        let style: Vec<Declaration> =
            source_order(&orig.map(props).unwrap_or_default(), &now_style)
                .into_iter()
                .map(|(p, v)| Declaration {
                    property: p.to_string(),
                    value: v.to_string(),
                })
                .collect();
        let mut raw = Vec::new();
        for &(name, value) in &attrs {
            let ok = !name.is_empty()
                && !name.eq_ignore_ascii_case("style")
                && !name.chars().any(|c| {
                    c.is_whitespace()
                        || c.is_control()
                        || matches!(c, '"' | '\'' | '<' | '>' | '/' | '=' | '{' | '}')
                });
            if !ok {
                return Err(bad(format!(
                    "node {id}: {name:?} is not an attribute name this adapter writes"
                )));
            }
            raw.push(RawAttr {
                name: name.to_string(),
                value: Some(value.to_string()),
                expr: false,
            });
        }
        for d in &style {
            let ok = !d.property.trim().is_empty()
                && d.property.trim() == d.property
                && d.value.trim() == d.value
                && !d.property.contains([':', ';'])
                && !d.value.contains(';');
            if !ok {
                return Err(bad(format!(
                    "node {id}: the declaration {:?}: {:?} cannot be written inline",
                    d.property, d.value
                )));
            }
        }
        if !style.is_empty() {
            raw.push(RawAttr {
                name: "style".into(),
                value: Some(style_text(&style)),
                expr: false,
            });
        }
        let (kind, _, _, why) = classify(self.dialect, &n.tag, &raw);
        if kind != NodeKind::Element || why.is_some() {
            return Err(bad(format!(
                "node {id}: <{}> would not read back as a plain element ({})",
                n.tag,
                why.unwrap_or_default()
            )));
        }
        let braces = self.dialect.braces();
        let mut s = format!("<{}", n.tag);
        for (name, value) in &attrs {
            s.push(' ');
            s.push_str(name);
            if !value.is_empty() {
                s.push_str(&format!("=\"{}\"", escape_attr(value, braces)));
            }
        }
        if !style.is_empty() {
            s.push_str(&format!(
                " style=\"{}\"",
                escape_attr(&style_text(&style), braces)
            ));
        }
        s.push('>');
        Ok(s)
    }

    fn is_text(&self, id: u32) -> bool {
        self.new.get(&id).is_some_and(|n| n.kind == NodeKind::Text)
    }

    fn print_children(
        &mut self,
        n: &'a Node,
        p: Option<&'a PNode>,
        indent: &str,
        child_indent: &str,
        out: &mut String,
    ) -> Result<(), Error> {
        let kids = &n.children;
        for w in kids.windows(2) {
            if self.is_text(w[0]) && self.is_text(w[1]) {
                return Err(bad(format!(
                    "nodes {} and {} are neighbouring text nodes; they would re-parse as one",
                    w[0], w[1]
                )));
            }
        }
        let src = self.src;
        let orig_node: Option<&'a Node> = self.orig.get(&n.id).copied();
        let orig_kids: &'a [u32] = orig_node.map_or(&[], |o| o.children.as_slice());
        let p = match p {
            Some(p) if !orig_kids.is_empty() => p,
            Some(p) if kids.is_empty() => {
                out.push_str(&src[p.open_end..p.close_start]);
                return Ok(());
            }
            _ => {
                let inline = kids.iter().any(|&k| self.new[&k].kind != NodeKind::Element);
                for &k in kids {
                    if !inline {
                        out.push('\n');
                        out.push_str(child_indent);
                    }
                    // More follows each child: its siblings or the close tag.
                    self.print(k, child_indent, true, out)?;
                }
                if !inline && !kids.is_empty() {
                    out.push('\n');
                    out.push_str(indent);
                }
                return Ok(());
            }
        };
        // gaps[k]: the source before original child k; gaps[len]: after the last.
        let spans: Vec<(usize, usize)> = orig_kids
            .iter()
            .filter_map(|&c| self.pnode(c).map(|q| q.span))
            .collect();
        let mut gaps = Vec::with_capacity(spans.len() + 1);
        let mut at = p.open_end;
        for s in &spans {
            gaps.push(&src[at..s.0]);
            at = s.1;
        }
        gaps.push(&src[at..p.close_start]);
        let lead = ws_suffix(gaps[0]);
        let sep = gaps
            .get(1)
            .filter(|_| spans.len() > 1)
            .map_or(lead, |g| ws_suffix(g));
        let trail = ws_suffix(gaps[spans.len()]);
        let index: HashMap<u32, usize> =
            orig_kids.iter().enumerate().map(|(k, &c)| (c, k)).collect();
        let pos = |id: u32| index.get(&id).copied();
        for (k, &kid) in kids.iter().enumerate() {
            let gap = if k == 0 {
                if orig_kids.first() == Some(&kid) {
                    gaps[0]
                } else {
                    lead
                }
            } else {
                match (pos(kids[k - 1]), pos(kid)) {
                    (Some(a), Some(b)) if a + 1 == b => gaps[b],
                    _ => sep,
                }
            };
            let prev_text = k > 0 && self.is_text(kids[k - 1]);
            let gap = fit(gap, prev_text, self.is_text(kid));
            out.push_str(gap);
            let ind = indent_after(gap, child_indent);
            // A child left open before the parent's close tag is closed
            // too: that tag could otherwise match the child.
            self.print(kid, &ind, k + 1 < kids.len() || !p.fragment, out)?;
        }
        let end_gap = match kids.last() {
            Some(&last) if orig_kids.last() == Some(&last) => gaps[spans.len()],
            Some(&last) => fit(trail, self.is_text(last), false),
            None => "",
        };
        out.push_str(end_gap);
        Ok(())
    }
}
