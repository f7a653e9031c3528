//! Framework adapters (WIT 0.3.0 `adapter-plugin`) as the host calls them:
//! the graph, entrypoint and edit in the host's own serde types, every
//! answer checked before anyone uses it. An adapter is untrusted code: a
//! graph with a dangling child, a node with two parents, a cycle, a span
//! outside the text or an edit outside the bound span is refused here with
//! `plugin_failed`, whatever the guest meant. Loops, memory and output
//! size are the engine's limits, as for every plugin.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use wasmtime::Store;

use super::Plugin;
use super::engine::{CallState, PluginError, Runtime};
use super::wit::v0_3_0::graph as g;
use super::wit::{Adapter, Loaded, types};

/// Nodes a graph may have (a 500-line component has a few hundred).
pub const MAX_NODES: usize = 20_000;
/// Source text handed to an adapter, at most.
pub const MAX_SOURCE: usize = 4 << 20;
/// Tokens a file may define.
pub const MAX_TOKENS: usize = 2_000;

/// What an adapter says it is (`describe`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AdapterInfo {
    pub id: String,
    pub name: String,
    /// html, react, custom-elements, vue, svelte, …
    pub family: String,
    /// File names it reads, as globs (`*.tsx`).
    pub patterns: Vec<String>,
    /// Of pull, push, tokens, preview.
    pub capabilities: Vec<String>,
    pub description: String,
}

impl AdapterInfo {
    pub fn can(&self, capability: &str) -> bool {
        self.capabilities.iter().any(|c| c == capability)
    }

    /// Whether `file_name` matches one of its patterns (`*.ext` or a name).
    pub fn reads(&self, file_name: &str) -> bool {
        self.patterns.iter().any(|p| match p.strip_prefix('*') {
            Some(suffix) => file_name.len() > suffix.len() && file_name.ends_with(suffix),
            None => p == file_name,
        })
    }
}

/// A byte range `[start, end)` of a source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Span {
    pub end: u32,
    pub start: u32,
}

impl Span {
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    pub fn contains(self, inner: Span) -> bool {
        self.start <= inner.start && inner.end <= self.end
    }

    /// A span of `text`: ordered, inside it, on character boundaries.
    fn check(self, text: &str, what: &str) -> Result<(), PluginError> {
        let r = self.range();
        if r.start > r.end
            || r.end > text.len()
            || !text.is_char_boundary(r.start)
            || !text.is_char_boundary(r.end)
        {
            return Err(bad(format!(
                "{what}'s span {}..{} is not a range of the {}-byte source",
                self.start,
                self.end,
                text.len()
            )));
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Element,
    Text,
    Component,
    Opaque,
}

/// One node of an adapter's graph. Fields in name order, empty ones left
/// out: a canvas document stores graphs as sorted-key JSON, written
/// straight from these structs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GraphNode {
    /// Literal attributes, in source order (never `style`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<u32>,
    pub id: u32,
    pub kind: NodeKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
    /// Inline style declarations, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub style: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tag: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub token_refs: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsupported: Option<String>,
}

/// A subtree of a source file, as an adapter reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Graph {
    pub nodes: Vec<GraphNode>,
    pub root: u32,
}

impl Graph {
    /// Its nodes by id.
    pub fn by_id(&self) -> BTreeMap<u32, &GraphNode> {
        self.nodes.iter().map(|n| (n.id, n)).collect()
    }

    /// A tree: at most [`MAX_NODES`], ids unique, the root among them,
    /// every child a node, every node but the root the child of exactly
    /// one parent and reachable from the root (so no cycles), spans (when
    /// `source` is given) ranges of it.
    pub fn check(&self, source: Option<&str>) -> Result<(), PluginError> {
        if self.nodes.len() > MAX_NODES {
            return Err(bad(format!(
                "the graph has {} nodes, over the limit of {MAX_NODES}",
                self.nodes.len()
            )));
        }
        let mut ids = BTreeSet::new();
        for n in &self.nodes {
            if !ids.insert(n.id) {
                return Err(bad(format!("node id {} is used twice", n.id)));
            }
        }
        if !ids.contains(&self.root) {
            return Err(bad(format!("the root {} is not a node", self.root)));
        }
        let mut parent: BTreeMap<u32, u32> = BTreeMap::new();
        for n in &self.nodes {
            for c in &n.children {
                if !ids.contains(c) {
                    return Err(bad(format!("node {} has a dangling child {c}", n.id)));
                }
                if *c == self.root {
                    return Err(bad(format!(
                        "node {} has the root as a child: a cycle",
                        n.id
                    )));
                }
                if let Some(p) = parent.insert(*c, n.id) {
                    return Err(bad(format!(
                        "node {c} is a child of both {p} and {}: a graph, not a tree",
                        n.id
                    )));
                }
            }
            if let (Some(span), Some(text)) = (n.span, source) {
                span.check(text, &format!("node {}", n.id))?;
            }
            if matches!(n.kind, NodeKind::Component | NodeKind::Opaque) && n.unsupported.is_none() {
                return Err(bad(format!(
                    "node {} is {:?} but says no reason it is unsupported",
                    n.id, n.kind
                )));
            }
        }
        // Every node reachable from the root, iteratively.
        let by_id = self.by_id();
        let mut seen = BTreeSet::from([self.root]);
        let mut stack = vec![self.root];
        while let Some(id) = stack.pop() {
            for c in &by_id[&id].children {
                if seen.insert(*c) {
                    stack.push(*c);
                }
            }
        }
        if seen.len() != ids.len() {
            let lost = ids.difference(&seen).next().copied().unwrap_or_default();
            return Err(bad(format!(
                "node {lost} is not reachable from the root (a cycle or a stray node)"
            )));
        }
        Ok(())
    }

    /// Ids of `id` and everything under it.
    pub fn subtree(&self, id: u32) -> Vec<u32> {
        let by_id = self.by_id();
        let mut out = Vec::new();
        let mut stack = vec![id];
        while let Some(i) = stack.pop() {
            if let Some(n) = by_id.get(&i) {
                out.push(i);
                stack.extend(n.children.iter().rev());
            }
        }
        out
    }
}

/// The part of a file an adapter binds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Entrypoint {
    pub name: String,
    pub span: Span,
}

/// One replacement the host applies, inside the bound span.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Edit {
    pub span: Span,
    pub text: String,
}

impl Edit {
    /// `source` with the edit applied.
    pub fn apply(&self, source: &str) -> String {
        let r = self.span.range();
        let mut out = String::with_capacity(source.len() + self.text.len());
        out.push_str(&source[..r.start]);
        out.push_str(&self.text);
        out.push_str(&source[r.end..]);
        out
    }
}

/// A design token: a CSS custom property.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Token {
    pub name: String,
    pub value: String,
}

fn bad(why: String) -> PluginError {
    PluginError::Guest(format!("the adapter answered a bad value: {why}"))
}

fn guest_error(e: types::Error) -> PluginError {
    use types::Error as E;
    let (kind, m) = match e {
        E::Denied(m) => ("denied", m),
        E::NotFound(m) => ("not found", m),
        E::InvalidInput(m) => ("invalid input", m),
        E::RateLimited(m) => ("rate limited", m),
        E::Auth(m) => ("auth", m),
        E::Timeout(m) => ("timeout", m),
        E::Upstream(m) => ("upstream", m),
        E::Unsupported(m) => ("unsupported", m),
        E::Internal(m) => ("internal", m),
    };
    let m: String = m.chars().take(2000).collect();
    PluginError::Guest(format!("{kind}: {m}"))
}

fn span_in(s: g::Span) -> Span {
    Span {
        start: s.start,
        end: s.end,
    }
}

fn span_out(s: Span) -> g::Span {
    g::Span {
        start: s.start,
        end: s.end,
    }
}

fn graph_in(graph: g::Graph) -> Graph {
    Graph {
        root: graph.root,
        nodes: graph
            .nodes
            .into_iter()
            .map(|n| GraphNode {
                id: n.id,
                kind: match n.kind {
                    g::NodeKind::Element => NodeKind::Element,
                    g::NodeKind::Text => NodeKind::Text,
                    g::NodeKind::Component => NodeKind::Component,
                    g::NodeKind::Opaque => NodeKind::Opaque,
                },
                tag: n.tag,
                attributes: n
                    .attributes
                    .into_iter()
                    .map(|a| (a.name, a.value))
                    .collect(),
                text: n.text,
                style: n.style.into_iter().map(|d| (d.property, d.value)).collect(),
                token_refs: n.token_refs,
                children: n.children,
                span: n.span.map(span_in),
                unsupported: n.unsupported,
            })
            .collect(),
    }
}

fn graph_out(graph: &Graph) -> g::Graph {
    g::Graph {
        root: graph.root,
        nodes: graph
            .nodes
            .iter()
            .map(|n| g::Node {
                id: n.id,
                kind: match n.kind {
                    NodeKind::Element => g::NodeKind::Element,
                    NodeKind::Text => g::NodeKind::Text,
                    NodeKind::Component => g::NodeKind::Component,
                    NodeKind::Opaque => g::NodeKind::Opaque,
                },
                tag: n.tag.clone(),
                attributes: n
                    .attributes
                    .iter()
                    .map(|(name, value)| g::Attribute {
                        name: name.clone(),
                        value: value.clone(),
                    })
                    .collect(),
                text: n.text.clone(),
                style: n
                    .style
                    .iter()
                    .map(|(property, value)| g::Declaration {
                        property: property.clone(),
                        value: value.clone(),
                    })
                    .collect(),
                token_refs: n.token_refs.clone(),
                children: n.children.clone(),
                span: n.span.map(span_out),
                unsupported: n.unsupported.clone(),
            })
            .collect(),
    }
}

/// Bytes a graph costs against the output cap.
fn graph_size(graph: &g::Graph) -> usize {
    graph
        .nodes
        .iter()
        .map(|n| {
            64 + n.tag.len()
                + n.text.len()
                + n.unsupported.as_ref().map_or(0, String::len)
                + n.attributes
                    .iter()
                    .map(|a| 16 + a.name.len() + a.value.len())
                    .sum::<usize>()
                + n.style
                    .iter()
                    .map(|d| 16 + d.property.len() + d.value.len())
                    .sum::<usize>()
                + n.token_refs.iter().map(|t| 16 + t.len()).sum::<usize>()
                + n.children.len() * 4
        })
        .sum()
}

/// One adapter plugin, ready to call: each method is a fresh instance with
/// the plugin's limits, and checks what the guest answered.
pub struct AdapterCall<'a> {
    runtime: &'a Runtime,
    plugin: &'a Plugin,
}

impl<'a> AdapterCall<'a> {
    pub fn new(runtime: &'a Runtime, plugin: &'a Plugin) -> AdapterCall<'a> {
        AdapterCall { runtime, plugin }
    }

    fn call<R>(
        &self,
        size: impl FnOnce(&R) -> usize,
        f: impl FnOnce(&g_guest::Guest, &mut Store<CallState>) -> wasmtime::Result<R>,
    ) -> Result<R, PluginError> {
        let loaded = self.plugin.ready().map_err(PluginError::Load)?;
        let Loaded::Adapter(pre) = loaded else {
            return Err(PluginError::Load(format!(
                "{} is not an adapter",
                self.plugin.id()
            )));
        };
        let limits = &self.plugin.installed.manifest.limits;
        let out =
            self.runtime
                .run_adapter(pre, limits, &self.plugin.access, |a: &Adapter, s| {
                    f(a.guest(), s)
                })?;
        if size(&out) > (limits.output_kb as usize) << 10 {
            return Err(PluginError::Output(limits.output_kb));
        }
        Ok(out)
    }

    pub fn describe(&self) -> Result<AdapterInfo, PluginError> {
        let i = self.call(
            |i: &g::AdapterInfo| {
                i.id.len()
                    + i.name.len()
                    + i.family.len()
                    + i.description.len()
                    + i.patterns
                        .iter()
                        .chain(&i.capabilities)
                        .map(String::len)
                        .sum::<usize>()
            },
            |a, s| a.call_describe(s),
        )?;
        Ok(AdapterInfo {
            id: i.id,
            name: i.name,
            family: i.family,
            patterns: i.patterns,
            capabilities: i.capabilities,
            description: i.description,
        })
    }

    /// The entrypoint in `source` (the file named `file_name`).
    pub fn detect(
        &self,
        file_name: &str,
        source: &str,
        want: Option<&str>,
    ) -> Result<Option<Entrypoint>, PluginError> {
        let found = self.call(
            |e: &Option<g::Entrypoint>| e.as_ref().map_or(0, |e| e.name.len()),
            |a, s| a.call_detect(s, file_name, source, want),
        )?;
        let Some(e) = found else { return Ok(None) };
        let span = span_in(e.span);
        span.check(source, "the entrypoint")?;
        Ok(Some(Entrypoint { name: e.name, span }))
    }

    pub fn parse(&self, source: &str, entrypoint: &Entrypoint) -> Result<Graph, PluginError> {
        let e = g::Entrypoint {
            name: entrypoint.name.clone(),
            span: span_out(entrypoint.span),
        };
        let got = self.call(
            |r: &Result<g::Graph, types::Error>| r.as_ref().map_or(0, graph_size),
            |a, s| a.call_parse(s, source, &e),
        )?;
        let graph = graph_in(got.map_err(guest_error)?);
        graph.check(Some(source))?;
        Ok(graph)
    }

    /// The edit for `graph`, inside `bound`.
    pub fn emit(&self, source: &str, bound: Span, graph: &Graph) -> Result<Edit, PluginError> {
        let wit = graph_out(graph);
        let got = self.call(
            |r: &Result<g::SourceEdit, types::Error>| r.as_ref().map_or(0, |e| e.text.len()),
            |a, s| a.call_emit(s, source, span_out(bound), &wit),
        )?;
        let e = got.map_err(guest_error)?;
        let edit = Edit {
            span: span_in(e.span),
            text: e.text,
        };
        edit.span.check(source, "the edit")?;
        if !bound.contains(edit.span) {
            return Err(bad(format!(
                "its edit {}..{} reaches outside the bound span {}..{}",
                edit.span.start, edit.span.end, bound.start, bound.end
            )));
        }
        Ok(edit)
    }

    pub fn read_tokens(&self, source: &str) -> Result<Vec<Token>, PluginError> {
        let got = self.call(
            |r: &Result<Vec<g::Token>, types::Error>| {
                r.as_ref().map_or(0, |t| {
                    t.iter().map(|t| 32 + t.name.len() + t.value.len()).sum()
                })
            },
            |a, s| a.call_read_tokens(s, source),
        )?;
        let tokens: Vec<Token> = got
            .map_err(guest_error)?
            .into_iter()
            .map(|t| Token {
                name: t.name,
                value: t.value,
            })
            .collect();
        if tokens.len() > MAX_TOKENS {
            return Err(bad(format!("{} tokens, over {MAX_TOKENS}", tokens.len())));
        }
        Ok(tokens)
    }

    pub fn emit_tokens(&self, source: &str, tokens: &[Token]) -> Result<Edit, PluginError> {
        let wit: Vec<g::Token> = tokens
            .iter()
            .map(|t| g::Token {
                name: t.name.clone(),
                value: t.value.clone(),
            })
            .collect();
        let got = self.call(
            |r: &Result<g::SourceEdit, types::Error>| r.as_ref().map_or(0, |e| e.text.len()),
            |a, s| a.call_emit_tokens(s, source, &wit),
        )?;
        let e = got.map_err(guest_error)?;
        let edit = Edit {
            span: span_in(e.span),
            text: e.text,
        };
        edit.span.check(source, "the token edit")?;
        Ok(edit)
    }
}

use super::wit::v0_3_0::guest as g_guest;

#[cfg(test)]
mod tests {
    use super::*;

    fn n(id: u32, children: &[u32]) -> GraphNode {
        GraphNode {
            id,
            kind: NodeKind::Element,
            tag: "div".into(),
            attributes: vec![],
            text: String::new(),
            style: vec![],
            token_refs: vec![],
            children: children.to_vec(),
            span: None,
            unsupported: None,
        }
    }

    fn graph(root: u32, nodes: Vec<GraphNode>) -> Graph {
        Graph { root, nodes }
    }

    #[test]
    fn trees_pass_and_every_broken_shape_is_refused() {
        assert!(
            graph(1, vec![n(1, &[2, 3]), n(2, &[]), n(3, &[])])
                .check(None)
                .is_ok()
        );
        let cases = [
            (graph(1, vec![n(1, &[2]), n(2, &[1])]), "cycle"),
            (
                graph(1, vec![n(1, &[]), n(2, &[3]), n(3, &[2])]),
                "not reachable",
            ),
            (graph(1, vec![n(1, &[9])]), "dangling"),
            (
                graph(1, vec![n(1, &[2, 2]), n(2, &[])]),
                "a graph, not a tree",
            ),
            (graph(1, vec![n(1, &[]), n(1, &[])]), "used twice"),
            (graph(7, vec![n(1, &[])]), "root 7"),
        ];
        for (g, why) in cases {
            let e = g.check(None).expect_err(why).to_string();
            assert!(e.contains(why), "{why}: {e}");
        }
        let mut opaque = n(1, &[]);
        opaque.kind = NodeKind::Opaque;
        assert!(graph(1, vec![opaque]).check(None).is_err());
    }

    #[test]
    fn spans_must_be_ranges_of_the_text_on_char_boundaries() {
        let mut a = n(1, &[]);
        a.span = Some(Span { start: 0, end: 2 });
        assert!(graph(1, vec![a.clone()]).check(Some("ab")).is_ok());
        assert!(graph(1, vec![a.clone()]).check(Some("a")).is_err());
        assert!(graph(1, vec![a.clone()]).check(Some("é")).is_ok());
        a.span = Some(Span { start: 1, end: 2 });
        assert!(graph(1, vec![a.clone()]).check(Some("é")).is_err());
        a.span = Some(Span { start: 2, end: 1 });
        assert!(graph(1, vec![a]).check(Some("abc")).is_err());
    }

    #[test]
    fn a_huge_graph_is_refused_before_it_is_walked() {
        let nodes = (0..=MAX_NODES as u32).map(|i| n(i, &[])).collect();
        let e = graph(0, nodes).check(None).expect_err("over").to_string();
        assert!(e.contains("over the limit"), "{e}");
    }

    #[test]
    fn patterns_match_suffixes_and_names() {
        let info = AdapterInfo {
            id: "x".into(),
            name: "x".into(),
            family: "html".into(),
            patterns: vec!["*.html".into(), "index.htm".into()],
            capabilities: vec!["pull".into()],
            description: String::new(),
        };
        assert!(info.reads("a.html") && info.reads("index.htm"));
        assert!(!info.reads(".html") && !info.reads("a.tsx") && !info.reads("x.htm"));
        assert!(info.can("pull") && !info.can("push"));
    }
}
