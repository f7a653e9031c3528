//! A hostile adapter for webrig's tests. It reads `*.hostile` files like
//! the scaffold's lines adapter (one paragraph a line), and misbehaves as
//! the file's stem says:
//!
//! - `loop`: `detect` never returns;
//! - `huge`: `parse` answers 8 MiB of text;
//! - `cycle`: `parse` answers a graph whose nodes form a cycle;
//! - `dangling`: a child id that is no node;
//! - anything else: behaves, except in `emit`, whose misbehaviour the
//!   file's first line names: `mode:outside` (an edit outside the bound
//!   span), `mode:drift` (text that re-parses to another graph),
//!   `mode:broken` (text that does not parse).

use webrig_adapter_sdk::types::*;
use webrig_adapter_sdk::{Adapter, node};

pub struct Hostile;

fn stem(path: &str) -> &str {
    path.split('.').next().unwrap_or("")
}

impl Adapter for Hostile {
    fn info() -> AdapterInfo {
        AdapterInfo {
            id: "adapter-guest".into(),
            name: "Hostile".into(),
            family: "test".into(),
            patterns: vec!["*.hostile".into()],
            capabilities: vec!["pull".into(), "push".into()],
            description: "Misbehaves on purpose.".into(),
        }
    }

    fn detect(path: &str, source: &str, _want: Option<&str>) -> Option<Entrypoint> {
        if stem(path) == "loop" {
            let mut n: u64 = 0;
            loop {
                n = std::hint::black_box(n.wrapping_add(1));
            }
        }
        // A `mode:` first line is outside the bound span.
        let start = match source.starts_with("mode:") {
            true => source.find('\n').map_or(source.len(), |i| i + 1),
            false => 0,
        };
        path.ends_with(".hostile").then(|| Entrypoint {
            name: stem(path).to_string(),
            span: Span {
                start: start as u32,
                end: source.len() as u32,
            },
        })
    }

    fn parse(source: &str, entrypoint: &Entrypoint) -> Result<Graph, Error> {
        if source.contains("!!!") {
            return Err(Error::InvalidInput("a line of bangs does not parse".into()));
        }
        let mut root = node(1, NodeKind::Element, "main");
        root.span = Some(entrypoint.span);
        let mut nodes = vec![root];
        let mut at = 0usize;
        for line in source.split_inclusive('\n') {
            let body = line.trim_end_matches('\n');
            let span = Span {
                start: at as u32,
                end: (at + body.len()) as u32,
            };
            at += line.len();
            if body.trim().is_empty() {
                continue;
            }
            let id = nodes.len() as u32 + 1;
            let mut t = node(id, NodeKind::Text, "");
            t.text = body.to_string();
            t.span = Some(span);
            nodes[0].children.push(id);
            nodes.push(t);
        }
        match entrypoint.name.as_str() {
            "huge" => nodes[0].attributes.push(Attribute {
                name: "data-x".into(),
                value: "x".repeat(8 << 20),
            }),
            "cycle" => {
                let last = nodes.len() as u32;
                let mut a = node(last + 1, NodeKind::Element, "div");
                let mut b = node(last + 2, NodeKind::Element, "div");
                a.children.push(last + 2);
                b.children.push(last + 1);
                nodes.push(a);
                nodes.push(b);
            }
            "dangling" => nodes[0].children.push(9999),
            _ => {}
        }
        Ok(Graph { root: 1, nodes })
    }

    fn emit(_source: &str, bound: Span, graph: &Graph) -> Result<SourceEdit, Error> {
        let root = graph
            .nodes
            .iter()
            .find(|n| n.id == graph.root)
            .ok_or_else(|| Error::InvalidInput("no root".into()))?;
        let mut out = String::new();
        for c in &root.children {
            let n = graph
                .nodes
                .iter()
                .find(|n| n.id == *c)
                .ok_or_else(|| Error::InvalidInput(format!("no node {c}")))?;
            out.push_str(&n.text);
            out.push('\n');
        }
        // Emit's misbehaviour is named by the file's first line (`mode:…`).
        let first = graph
            .nodes
            .iter()
            .find(|n| root.children.first() == Some(&n.id))
            .map(|n| n.text.as_str())
            .unwrap_or("");
        Ok(match first {
            t if t.starts_with("mode:outside") => SourceEdit {
                span: Span { start: 0, end: 1 },
                text: out,
            },
            t if t.starts_with("mode:drift") => SourceEdit {
                span: bound,
                text: out.to_uppercase(),
            },
            t if t.starts_with("mode:broken") => SourceEdit {
                span: bound,
                text: format!("{out}!!!\n"),
            },
            _ => SourceEdit {
                span: bound,
                text: out,
            },
        })
    }
}

#[cfg(target_arch = "wasm32")]
webrig_adapter_sdk::export_adapter!(Hostile);
