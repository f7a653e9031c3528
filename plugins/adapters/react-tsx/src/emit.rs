//! Printing a graph back as JSX: one edit inside the bound span.
//!
//! The source is read again and each node of the graph is matched to the
//! node of the same id and span. A node whose content did not change
//! (its own parts and its children, recursively) keeps its source text;
//! an element whose own parts did not change keeps its opening tag; the
//! rest is printed fresh, indented from the original line. Components,
//! fragments and expressions are only ever copied. The edit is then
//! narrowed to the bytes that differ.

use std::collections::{HashMap, HashSet};

use oxc_allocator::Allocator;
use webrig_adapter_sdk::types::{Error, Graph, Node, NodeKind, SourceEdit, Span};

use crate::read::{MAX_DEPTH, Parts, read_bound, same_span};
use crate::{source, style, text};

/// One level of indentation for printed children.
const INDENT: &str = "  ";

/// Attributes React treats as booleans: the value "" prints bare.
const BOOLEAN: &[&str] = &[
    "allowFullScreen",
    "async",
    "autoFocus",
    "autoPlay",
    "checked",
    "controls",
    "default",
    "defer",
    "disabled",
    "formNoValidate",
    "hidden",
    "loop",
    "multiple",
    "muted",
    "noValidate",
    "open",
    "playsInline",
    "readOnly",
    "required",
    "reversed",
    "selected",
];

/// The edit that makes the JSX at `bound` in `source` print `graph`.
pub fn emit(source: &str, bound: Span, graph: &Graph) -> Result<SourceEdit, Error> {
    let alloc = Allocator::default();
    let program = source::program(&alloc, source)?;
    let read = read_bound(source, &program, bound)?;
    let new = checked_index(graph)?;
    let printer = Printer {
        src: source,
        new,
        orig: read.graph.nodes.iter().map(|n| (n.id, n)).collect(),
        parts: &read.parts,
    };
    for n in &graph.nodes {
        printer.original(n)?;
    }
    let indent = line_indent(source, bound.start as usize);
    let printed = printer.print(graph.root, &indent)?;
    Ok(narrow(source, bound, printed))
}

/// The graph's nodes by id, after checking it is a tree: ids unique, the
/// root and every child present, no node reached twice (so no cycle), no
/// deeper than [`MAX_DEPTH`]. Iterative, so a hostile graph cannot
/// overflow the stack here.
fn checked_index(graph: &Graph) -> Result<HashMap<u32, &Node>, Error> {
    let bad = |m: String| Err(Error::InvalidInput(m));
    let mut by_id = HashMap::with_capacity(graph.nodes.len());
    for n in &graph.nodes {
        if by_id.insert(n.id, n).is_some() {
            return bad(format!("two nodes have the id {}", n.id));
        }
    }
    if !by_id.contains_key(&graph.root) {
        return bad(format!("the root {} is not in the graph", graph.root));
    }
    let mut seen = HashSet::new();
    let mut stack = vec![(graph.root, 0usize)];
    while let Some((id, depth)) = stack.pop() {
        if !seen.insert(id) {
            return bad(format!(
                "node {id} is reached twice (a cycle or a shared child)"
            ));
        }
        if depth > MAX_DEPTH {
            return bad(format!("the graph nests deeper than {MAX_DEPTH}"));
        }
        for c in &by_id[&id].children {
            if !by_id.contains_key(c) {
                return bad(format!("node {id} lists the child {c}, not in the graph"));
            }
            stack.push((*c, depth + 1));
        }
    }
    Ok(by_id)
}

struct Printer<'g> {
    src: &'g str,
    new: HashMap<u32, &'g Node>,
    orig: HashMap<u32, &'g Node>,
    parts: &'g HashMap<u32, Parts>,
}

fn invalid<T>(m: String) -> Result<T, Error> {
    Err(Error::InvalidInput(m))
}

impl<'g> Printer<'g> {
    fn slice(&self, s: Span) -> &'g str {
        &self.src[s.start as usize..s.end as usize]
    }

    /// The source node `n` came from: same id and span.
    fn original(&self, n: &Node) -> Result<Option<&'g Node>, Error> {
        let Some(span) = n.span else { return Ok(None) };
        match self.orig.get(&n.id) {
            Some(o) if o.span.is_some_and(|s| same_span(s, span)) => Ok(Some(o)),
            _ => invalid(format!(
                "node {} has a span ({}..{}) that is not its own in this source: was the graph pulled from another version?",
                n.id, span.start, span.end
            )),
        }
    }

    /// Whether new node `n` has the content of original node `o`.
    fn same_deep(&self, n: &Node, o: &Node) -> bool {
        same_own(n, o)
            && n.children.len() == o.children.len()
            && n.children.iter().zip(&o.children).all(|(a, b)| {
                match (self.new.get(a), self.orig.get(b)) {
                    (Some(a), Some(b)) => self.same_deep(a, b),
                    _ => false,
                }
            })
    }

    fn print(&self, id: u32, indent: &str) -> Result<String, Error> {
        let n = self.new[&id];
        let o = self.original(n)?;
        if let Some(o) = o
            && self.same_deep(n, o)
            && let Some(span) = o.span
        {
            let kept = self.slice(span);
            // A text's span leaves out its edge whitespace, which may be
            // part of the text ("Hello " before a tag): keep the source
            // only where it reads as the text on its own.
            if n.kind != NodeKind::Text || text::decode_entities(&text::clean(kept)) == n.text {
                return Ok(kept.to_string());
            }
        }
        match n.kind {
            NodeKind::Text if n.text.is_empty() => invalid(format!("text node {id} is empty")),
            NodeKind::Text => Ok(text::escape(&n.text)),
            NodeKind::Opaque => invalid(format!(
                "node {id} ({}) can only be kept as it is",
                o.and_then(|o| o.unsupported.as_deref())
                    .unwrap_or("an opaque node")
            )),
            NodeKind::Component => match o {
                Some(o) => invalid(format!(
                    "node {id} ({}: <{}>) can only be kept as it is",
                    o.unsupported.as_deref().unwrap_or("a component"),
                    o.tag
                )),
                None => self.new_component(n),
            },
            NodeKind::Element => self.element(n, o, indent),
        }
    }

    fn new_component(&self, n: &Node) -> Result<String, Error> {
        let valid = n.tag.starts_with(|c: char| c.is_ascii_uppercase())
            && n.tag
                .split('.')
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        if !valid || !n.children.is_empty() || !n.style.is_empty() {
            return invalid(format!(
                "new node {} can only be a component as <Name attr=\"…\" />",
                n.id
            ));
        }
        Ok(format!("<{}{} />", n.tag, attributes(n)?))
    }

    fn element(&self, n: &Node, o: Option<&'g Node>, indent: &str) -> Result<String, Error> {
        let tag_ok = n.tag.starts_with(|c: char| c.is_ascii_lowercase())
            && n.tag
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ':');
        if !tag_ok {
            return invalid(format!(
                "node {} has the tag {:?}, not an intrinsic element's",
                n.id, n.tag
            ));
        }
        let own_same = o.is_some_and(|o| same_own(n, o));
        if let Some(o) = o
            && let Some(why) = &o.unsupported
            && !own_same
        {
            return invalid(format!(
                "node {} <{}> has {why}: its attributes and style can only be kept",
                n.id, o.tag
            ));
        }
        let indent = match o.and_then(|o| o.span) {
            Some(s) => line_indent(self.src, s.start as usize),
            None => indent.to_string(),
        };
        let parts = o.and_then(|o| self.parts.get(&o.id));
        // The opening tag up to its `>` or `/>`.
        let open = match parts {
            Some(p) if own_same => {
                let t = &self.src[p.open.0 as usize..p.open.1 as usize];
                match t.strip_suffix("/>") {
                    Some(t) => t.trim_end().to_string(),
                    None => t.strip_suffix('>').unwrap_or(t).to_string(),
                }
            }
            _ => format!("<{}{}{}", n.tag, attributes(n)?, style_attribute(n)),
        };
        if n.children.is_empty() {
            return Ok(format!("{} />", open.trim_end()));
        }
        let child_indent = format!("{indent}{INDENT}");
        let mut printed = Vec::with_capacity(n.children.len());
        let mut block = true;
        let mut prev_text = false;
        let mut has_tags = false;
        for c in &n.children {
            let child = self.new[c];
            let is_text = matches!(child.kind, NodeKind::Text);
            if is_text && prev_text {
                return invalid(format!(
                    "node {} has two text children in a row: they would read back as one",
                    n.id
                ));
            }
            prev_text = is_text;
            if is_text {
                block &= text::fits_own_line(&child.text);
            } else {
                has_tags = true;
            }
            printed.push(self.print(*c, &child_indent)?);
        }
        let had_lines = match (o.and_then(|o| o.span), parts) {
            (Some(s), Some(p)) => self.src[p.open.1 as usize..s.end as usize].contains('\n'),
            _ => false,
        };
        let mut out = format!("{open}>");
        if block && (has_tags || had_lines) {
            // Line breaks between children: the original ones where two
            // non-text children stay neighbours (blank lines kept).
            let ids: Vec<Option<u32>> = std::iter::once(None)
                .chain(n.children.iter().map(|c| Some(*c)))
                .chain(std::iter::once(None))
                .collect();
            for (i, pair) in ids.windows(2).enumerate() {
                let gap = self.kept_gap(o, parts, pair[0], pair[1]);
                match gap {
                    Some(g) => out.push_str(g),
                    None if pair[1].is_none() => {
                        out.push('\n');
                        out.push_str(&indent);
                    }
                    None => {
                        out.push('\n');
                        out.push_str(&child_indent);
                    }
                }
                if let Some(p) = printed.get(i)
                    && pair[1].is_some()
                {
                    out.push_str(p);
                }
            }
        } else {
            // Inline, so text keeps its edge spaces; a line break still
            // goes where it reads as nothing, if there were lines before.
            let edge_ok = |id: Option<&u32>, start: bool| {
                id.map(|c| self.new[c]).is_some_and(|c| {
                    c.kind != NodeKind::Text
                        || if start {
                            !c.text.starts_with([' ', '\t'])
                        } else {
                            !c.text.ends_with([' ', '\t'])
                        }
                })
            };
            if had_lines && edge_ok(n.children.first(), true) {
                out.push('\n');
                out.push_str(&child_indent);
            }
            printed.iter().for_each(|p| out.push_str(p));
            if had_lines && edge_ok(n.children.last(), false) {
                out.push('\n');
                out.push_str(&indent);
            }
        }
        out.push_str(&format!("</{}>", n.tag));
        Ok(out)
    }
}

impl<'g> Printer<'g> {
    /// The original whitespace between `a` and `b` (None: the opening
    /// tag, the closing tag) when both are non-text nodes that were
    /// neighbours in element `o` and it holds a line break, so it reads
    /// as nothing.
    fn kept_gap(
        &self,
        o: Option<&'g Node>,
        parts: Option<&Parts>,
        a: Option<u32>,
        b: Option<u32>,
    ) -> Option<&'g str> {
        let (o, parts) = (o?, parts?);
        let orig_of = |id: Option<u32>| -> Option<Option<&'g Node>> {
            match id {
                None => Some(None),
                Some(id) => {
                    let n = self.new.get(&id)?;
                    let on = self.orig.get(&id)?;
                    let same = n.span.zip(on.span).is_some_and(|(x, y)| same_span(x, y));
                    (same && on.kind != NodeKind::Text).then_some(Some(*on))
                }
            }
        };
        let (oa, ob) = (orig_of(a)?, orig_of(b)?);
        let pos = |x: Option<&Node>| x.and_then(|x| o.children.iter().position(|c| *c == x.id));
        let adjacent = match (oa, ob) {
            (None, None) => false,
            (None, Some(y)) => pos(Some(y)) == Some(0),
            (Some(x), None) => pos(Some(x)) == Some(o.children.len() - 1),
            (Some(x), Some(y)) => {
                matches!((pos(Some(x)), pos(Some(y))), (Some(i), Some(j)) if i + 1 == j)
            }
        };
        if !adjacent {
            return None;
        }
        let start = oa.and_then(|x| x.span).map_or(parts.open.1, |s| s.end) as usize;
        let end = ob
            .and_then(|y| y.span)
            .map_or(parts.close_start, |s| s.start) as usize;
        let gap = self.src.get(start..end)?;
        (gap.contains('\n') && gap.chars().all(char::is_whitespace)).then_some(gap)
    }
}

/// Kind, tag, attributes, text and style equal (children not compared).
fn same_own(a: &Node, b: &Node) -> bool {
    a.kind == b.kind
        && a.tag == b.tag
        && a.text == b.text
        && a.attributes.len() == b.attributes.len()
        && a.attributes
            .iter()
            .zip(&b.attributes)
            .all(|(x, y)| x.name == y.name && x.value == y.value)
        && a.style.len() == b.style.len()
        && a.style
            .iter()
            .zip(&b.style)
            .all(|(x, y)| x.property == y.property && x.value == y.value)
}

/// ` name="value"` for each attribute, in JSX names.
fn attributes(n: &Node) -> Result<String, Error> {
    let mut out = String::new();
    for a in &n.attributes {
        let name = match a.name.as_str() {
            "class" => "className",
            "for" => "htmlFor",
            other => other,
        };
        let valid = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':'))
            && name != "style";
        if !valid {
            return invalid(format!(
                "node {} has the attribute name {:?}, which JSX cannot hold here",
                n.id, a.name
            ));
        }
        out.push(' ');
        out.push_str(name);
        if !(a.value.is_empty() && BOOLEAN.contains(&name)) {
            out.push('=');
            out.push_str(&text::attribute_value(&a.value));
        }
    }
    Ok(out)
}

/// ` style={{ … }}`, or "" without declarations.
fn style_attribute(n: &Node) -> String {
    if n.style.is_empty() {
        return String::new();
    }
    let entries: Vec<String> = n
        .style
        .iter()
        .map(|d| style::entry(&d.property, &d.value))
        .collect();
    format!(" style={{{{ {} }}}}", entries.join(", "))
}

/// The spaces and tabs that start the line holding `at`.
fn line_indent(src: &str, at: usize) -> String {
    let start = src[..at].rfind('\n').map_or(0, |i| i + 1);
    src[start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// The smallest edit that turns the bound text into `printed`.
fn narrow(src: &str, bound: Span, printed: String) -> SourceEdit {
    let old = &src[bound.start as usize..bound.end as usize];
    let (a, b) = (old.as_bytes(), printed.as_bytes());
    let mut pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !old.is_char_boundary(pre) || !printed.is_char_boundary(pre) {
        pre -= 1;
    }
    let max_suf = a.len().min(b.len()) - pre;
    let mut suf = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max_suf)
        .take_while(|(x, y)| x == y)
        .count();
    while !old.is_char_boundary(a.len() - suf) || !printed.is_char_boundary(b.len() - suf) {
        suf -= 1;
    }
    SourceEdit {
        span: Span {
            start: bound.start + pre as u32,
            end: bound.end - suf as u32,
        },
        text: printed[pre..b.len() - suf].to_string(),
    }
}
