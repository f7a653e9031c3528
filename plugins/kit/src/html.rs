//! A small, forgiving HTML reader for provider parsers: a document tree
//! built from any input (never an error, never a panic), with the queries
//! scrapers need — tag/class lookups, CSS selectors
//! ([`Document::select`], subset in [`select`]), attributes, text
//! ([`text`]), meta tags and JSON-LD blocks ([`meta`]), and the page's
//! readable content ([`readable`], also at `webrig_kit::readable`).
//!
//! Hand-written rather than html5ever (through `scraper`): scraping needs
//! only the forgiving parts of the HTML tree rules (implied end and parent
//! tags, void and raw-text elements), which [`Document::parse`]
//! implements. Measured on Mozilla Readability's 24 test pages (2026-12,
//! docs/BENCHMARKS.md), both parsers give the same titles, `<meta>`,
//! JSON-LD, links and readable text, this one parses about 3× faster, and
//! it adds about 63 KB to a wasm component where html5ever adds about
//! 520 KB. It does not run the full HTML5 tree-construction algorithm: no
//! adoption agency (a nested `<a>` stays nested), no foster parenting, and
//! a stray body element (say an `<iframe>`) in `<head>` does not end it.

pub mod entities;
pub mod meta;
mod parse;
pub mod product;
pub mod select;
pub mod text;

pub use entities::decode as decode_entities;
pub use select::{Selector, SelectorError};

/// [`crate::readable`], here too so that crates which see the kit only
/// through the provider SDK's `html` re-export reach it.
pub use crate::readable;

/// Index of a node in its [`Document`]. Ids follow document order.
pub type NodeId = usize;

#[derive(Debug, Clone)]
enum NodeData {
    Root,
    Element {
        /// Lowercased tag name.
        name: String,
        /// Lowercased attribute names; values with entities decoded.
        attrs: Vec<(String, String)>,
    },
    Text(String),
}

#[derive(Debug, Clone)]
struct Node {
    data: NodeData,
    parent: Option<NodeId>,
    children: Vec<NodeId>,
}

/// A parsed HTML document. Node 0 is the root (above `<html>`).
#[derive(Debug, Clone)]
pub struct Document {
    nodes: Vec<Node>,
}

impl Document {
    /// Parses `html`. Every input gives a tree; broken markup gives a
    /// best-effort one.
    pub fn parse(html: &str) -> Document {
        parse::parse(html)
    }

    pub fn root(&self) -> NodeId {
        0
    }

    /// Number of nodes; ids are `0..len()`.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// The lowercased tag name, for elements.
    pub fn name(&self, id: NodeId) -> Option<&str> {
        match &self.nodes.get(id)?.data {
            NodeData::Element { name, .. } => Some(name),
            _ => None,
        }
    }

    /// True when `id` is an element named `tag` (lowercase).
    pub fn is(&self, id: NodeId, tag: &str) -> bool {
        self.name(id) == Some(tag)
    }

    /// The decoded text of a text node.
    pub fn text_node(&self, id: NodeId) -> Option<&str> {
        match &self.nodes.get(id)?.data {
            NodeData::Text(t) => Some(t),
            _ => None,
        }
    }

    pub fn attrs(&self, id: NodeId) -> &[(String, String)] {
        match self.nodes.get(id).map(|n| &n.data) {
            Some(NodeData::Element { attrs, .. }) => attrs,
            _ => &[],
        }
    }

    /// An attribute value (name lowercase), entities decoded.
    pub fn attr(&self, id: NodeId, name: &str) -> Option<&str> {
        self.attrs(id)
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// True when the `class` attribute lists `class`.
    pub fn has_class(&self, id: NodeId, class: &str) -> bool {
        self.attr(id, "class")
            .is_some_and(|c| c.split_ascii_whitespace().any(|c| c == class))
    }

    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.nodes.get(id)?.parent
    }

    pub fn children(&self, id: NodeId) -> &[NodeId] {
        self.nodes
            .get(id)
            .map(|n| n.children.as_slice())
            .unwrap_or(&[])
    }

    /// Ancestors of `id`, nearest first, excluding the root.
    pub fn ancestors(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(self.parent(id), |&p| self.parent(p)).filter(|&p| p != 0)
    }

    /// The last node of `id`'s subtree: descendants are `id+1..=end`,
    /// because ids follow document order.
    pub fn subtree_end(&self, id: NodeId) -> NodeId {
        let mut end = id;
        while let Some(&last) = self.children(end).last() {
            end = last;
        }
        end
    }

    /// Descendants of `id` in document order (not `id` itself).
    pub fn descendants(&self, id: NodeId) -> std::ops::RangeInclusive<NodeId> {
        id + 1..=self.subtree_end(id)
    }

    /// True when `id` is inside `ancestor` (or is it).
    pub fn contains(&self, ancestor: NodeId, id: NodeId) -> bool {
        ancestor <= id && id <= self.subtree_end(ancestor)
    }

    /// Elements in document order.
    pub fn elements(&self) -> impl Iterator<Item = NodeId> + '_ {
        (0..self.nodes.len()).filter(|&id| self.name(id).is_some())
    }

    /// Elements named `tag` in document order.
    pub fn find_all<'a>(&'a self, tag: &'a str) -> impl Iterator<Item = NodeId> + 'a {
        self.elements().filter(move |&id| self.is(id, tag))
    }

    /// The first element named `tag`.
    pub fn find(&self, tag: &str) -> Option<NodeId> {
        self.find_all(tag).next()
    }

    /// Elements inside `id` (not `id`) with class `class`.
    pub fn find_class_in<'a>(
        &'a self,
        id: NodeId,
        class: &'a str,
    ) -> impl Iterator<Item = NodeId> + 'a {
        self.descendants(id)
            .filter(move |&d| self.has_class(d, class))
    }

    /// Text inside `id`, whitespace collapsed to single spaces and trimmed;
    /// script, style and template contents are left out.
    pub fn text(&self, id: NodeId) -> String {
        // Rendering keeps inline markup joined ("web<b>rig</b>" is one
        // word) and block boundaries apart; lines are then joined.
        text::collapse_whitespace(&text::render(self, id, &|_| false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_a_tree_with_implied_end_tags() {
        let doc = Document::parse("<ul><li>one<li>two</ul><p>a<p>b<div>c</div>");
        let items: Vec<String> = doc.find_all("li").map(|li| doc.text(li)).collect();
        assert_eq!(items, ["one", "two"]);
        let ps: Vec<String> = doc.find_all("p").map(|p| doc.text(p)).collect();
        assert_eq!(ps, ["a", "b"]);
        let div = doc.find("div").expect("present");
        assert!(!doc.ancestors(div).any(|a| doc.is(a, "p")));
    }

    #[test]
    fn rows_and_cells_get_implied_parents() {
        let doc = Document::parse(
            "<table><tr><td>a<td>b<tr><th>c</table><table><thead><td>d</thead><tbody><tr><td>e</table><table><td>f</table>",
        );
        let path = |id: NodeId| -> Vec<&str> {
            std::iter::once(id)
                .chain(doc.ancestors(id))
                .filter_map(|a| doc.name(a))
                .collect()
        };
        let cells: Vec<Vec<&str>> = doc
            .elements()
            .filter(|&e| doc.is(e, "td") || doc.is(e, "th"))
            .map(path)
            .collect();
        assert_eq!(cells[0], ["td", "tr", "tbody", "table"]);
        assert_eq!(cells[1], ["td", "tr", "tbody", "table"]);
        assert_eq!(cells[2], ["th", "tr", "tbody", "table"]);
        assert_eq!(cells[3], ["td", "tr", "thead", "table"]);
        assert_eq!(cells[4], ["td", "tr", "tbody", "table"]);
        assert_eq!(cells[5], ["td", "tr", "tbody", "table"]);
        assert_eq!(doc.find_all("tbody").count(), 3);
        assert_eq!(doc.find_all("tr").count(), 5);
    }

    #[test]
    fn reads_attributes_and_raw_text() {
        let doc = Document::parse(
            r#"<A HREF='/x?a=1&amp;b=2' class="k  result__a">T&amp;C</a><script>if (a<b) {}</script><title>x &lt; y</title>"#,
        );
        let a = doc.find("a").expect("present");
        assert_eq!(doc.attr(a, "href"), Some("/x?a=1&b=2"));
        assert!(doc.has_class(a, "result__a"));
        assert_eq!(doc.text(a), "T&C");
        let script = doc.find("script").expect("present");
        assert_eq!(doc.text_node(doc.children(script)[0]), Some("if (a<b) {}"));
        assert_eq!(doc.text(doc.find("title").expect("present")), "x < y");
    }

    #[test]
    fn survives_malformed_input() {
        for input in [
            "",
            "<",
            "</",
            "<a",
            "<a href=",
            "<a href='x",
            "<!--",
            "<!doctype",
            "</div></div>",
            "<script>never closed",
            "&#xFFFFFFFFFF;",
            "<p<p<<>>",
            "\u{0}<b>\u{feff}",
        ] {
            let doc = Document::parse(input);
            let _ = doc.text(doc.root());
        }
        let deep = "<div>".repeat(30_000);
        let doc = Document::parse(&deep);
        assert!(doc.text(doc.root()).is_empty());
    }
}
