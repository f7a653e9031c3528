//! Code sync: a source file's subtree pulled into a canvas document through
//! an adapter, and the document's changes pushed back.
//!
//! A pull picks the adapter (`--adapter`, or the first whose patterns match
//! the file and whose `detect` finds an entrypoint), parses, turns the
//! graph into canvas nodes and stores a [`Binding`]: the file's sha256, the
//! graph as pulled (ids, spans) and which node each graph node became. The
//! text pulled is kept beside the document.
//!
//! A push rebuilds the graph from the canvas (a node unchanged since the
//! pull is handed back exactly as pulled, so the adapter can keep its
//! text), asks the adapter for one edit inside the bound span, and refuses:
//! - when the file changed since the pull (`source_changed`), unless
//!   `--prefer canvas` (then the edit is made against the text pulled, and
//!   the bound span it yields replaces the file's current one);
//! - when a locked node (a component, an expression, an element with parts
//!   the adapter does not model) changed, moved or was removed;
//! - when the result does not re-parse, or re-parses to another graph than
//!   the one emitted (`drift`).
//!
//! Only then is the file written (atomically, after a backup) and the
//! binding moved to the new text.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::doc::{Binding, Document, Node, NodeKind, SourceRef};
use super::store::{Project, sha256};
use crate::error::{ApiError, ErrorCode};
use crate::plugins::adapter::{AdapterCall, Entrypoint, Graph, GraphNode, Span};
use crate::plugins::{Plugin, PluginHost};

/// What a pull did.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Pulled {
    pub binding: String,
    pub file: String,
    pub adapter: String,
    pub entry: Entrypoint,
    /// The canvas node the subtree hangs from.
    pub root: String,
    pub nodes: usize,
    /// Nodes the adapter could not model (locked on the canvas).
    pub locked: usize,
    /// Tokens read from the file into the document.
    pub tokens: usize,
    pub parse_ms: f64,
}

/// What a push did.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Pushed {
    pub binding: String,
    pub file: String,
    /// Nodes that changed (updated, added, removed) since the pull.
    pub changed: usize,
    /// The byte range of the file the edit replaced, and what it wrote.
    pub replaced: Span,
    pub written: usize,
    /// The file as it was, kept.
    pub backup: Option<String>,
    /// Nothing changed: the file was left alone.
    pub unchanged: bool,
    pub tokens_written: usize,
}

/// One binding's drift, both ways.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct BindingStatus {
    pub binding: String,
    pub file: String,
    pub adapter: String,
    pub entry: String,
    /// The file changed since the pull (or last push).
    pub file_changed: bool,
    pub file_missing: bool,
    /// Canvas nodes changed, added or removed since then.
    pub canvas_changes: usize,
    /// Ids of the changed nodes (at most 50).
    pub changed_nodes: Vec<String>,
}

fn failed(e: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::PluginFailed, e.to_string())
}

fn conflict(reason: &str, message: String) -> ApiError {
    ApiError::new(ErrorCode::Conflict, format!("{reason}: {message}"))
}

/// The adapters installed and ready, by id.
pub fn adapters(host: &PluginHost) -> Vec<std::sync::Arc<Plugin>> {
    host.all()
        .into_iter()
        .filter(|p| p.adapter.is_some() && p.loaded.is_ok())
        .collect()
}

fn adapter(host: &PluginHost, id: &str) -> Result<std::sync::Arc<Plugin>, ApiError> {
    adapters(host)
        .into_iter()
        .find(|p| p.id() == id)
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::Unsupported,
                format!("no adapter {id:?} is installed and ready"),
            )
            .with_hint("see `webrig plugin list`; first-party adapters come with `webrig setup`")
        })
}

fn file_name(rel: &str) -> &str {
    rel.rsplit('/').next().unwrap_or(rel)
}

/// Pulls `file` into `doc` under `parent` (a node or page; default the
/// first page).
#[allow(clippy::too_many_arguments)]
pub fn pull(
    host: &PluginHost,
    project: &Project,
    doc: &mut Document,
    file: &str,
    adapter_id: Option<&str>,
    want: Option<&str>,
    parent: Option<&str>,
) -> Result<Pulled, ApiError> {
    let (rel, _path, source) = project.read_source(file)?;
    let name = file_name(&rel);
    let started = std::time::Instant::now();
    let (plugin, entry) = match adapter_id {
        Some(id) => {
            let p = adapter(host, id)?;
            let call = AdapterCall::new(host.runtime(), &p);
            let entry = call
                .detect(name, &source, want)
                .map_err(failed)?
                .ok_or_else(|| {
                    ApiError::not_found(format!(
                        "adapter {id} finds nothing to bind in {rel}{}",
                        want.map(|w| format!(" named {w:?}")).unwrap_or_default()
                    ))
                })?;
            (p, entry)
        }
        None => {
            let mut found = None;
            for p in adapters(host) {
                let info = p.adapter.as_ref().expect("filtered on adapter info");
                if !info.can("pull") || !info.reads(name) {
                    continue;
                }
                if let Some(e) = AdapterCall::new(host.runtime(), &p)
                    .detect(name, &source, want)
                    .map_err(failed)?
                {
                    found = Some((p, e));
                    break;
                }
            }
            found.ok_or_else(|| {
                ApiError::new(
                    ErrorCode::Unsupported,
                    format!("no installed adapter reads {rel}"),
                )
                .with_hint("name one with --adapter; `webrig plugin list` shows the adapters")
            })?
        }
    };
    let call = AdapterCall::new(host.runtime(), &plugin);
    let graph = call.parse(&source, &entry).map_err(failed)?;
    let parse_ms = started.elapsed().as_secs_f64() * 1000.0;

    let (parent_node, page) = match parent {
        Some(p) if doc.nodes.contains_key(p) => (Some(p.to_string()), doc.nodes[p].page.clone()),
        Some(p) if doc.page(p).is_some() => (None, p.to_string()),
        Some(p) => return Err(ApiError::not_found(format!("no node or page {p:?}"))),
        None => (
            None,
            doc.pages
                .first()
                .map(|p| p.id.clone())
                .ok_or_else(|| ApiError::invalid("the document has no page"))?,
        ),
    };
    if let Some(p) = &parent_node
        && !doc.nodes[p].kind.holds_children()
    {
        return Err(ApiError::invalid(format!("{p:?} cannot hold children")));
    }
    let binding = doc.fresh_id("b");
    let (root, map) = place_graph(doc, &graph, &binding, &page, parent_node.as_deref())?;
    let mut tokens = 0;
    if plugin.adapter.as_ref().is_some_and(|i| i.can("tokens")) {
        for t in call.read_tokens(&source).map_err(failed)? {
            if super::doc::check_token_name(&t.name).is_ok() {
                doc.tokens.insert(t.name, t.value);
                tokens += 1;
            }
        }
    }
    let locked = graph
        .nodes
        .iter()
        .filter(|n| n.unsupported.is_some())
        .count();
    doc.bindings.insert(
        binding.clone(),
        Binding {
            id: binding.clone(),
            file: rel.clone(),
            adapter: plugin.id().to_string(),
            entry: entry.clone(),
            source_sha256: sha256(&source),
            graph: graph.clone(),
            map,
            root: root.clone(),
        },
    );
    doc.check()
        .map_err(|e| failed(format!("the pulled graph does not fit the document: {e}")))?;
    project.keep_pulled(&doc.name, &binding, &source)?;
    Ok(Pulled {
        binding,
        file: rel,
        adapter: plugin.id().to_string(),
        entry,
        root,
        nodes: graph.nodes.len(),
        locked,
        tokens,
        parse_ms,
    })
}

fn kind_of(n: &GraphNode) -> NodeKind {
    use crate::plugins::adapter::NodeKind as G;
    match n.kind {
        G::Element => NodeKind::Frame,
        G::Text => NodeKind::Text,
        G::Component => NodeKind::ComponentInstance,
        G::Opaque => NodeKind::DomBinding,
    }
}

/// The canvas node a graph node becomes (children left empty).
fn node_of(n: &GraphNode, id: &str, page: &str, parent: Option<&str>, binding: &str) -> Node {
    let kind = kind_of(n);
    Node {
        id: id.to_string(),
        kind,
        page: page.to_string(),
        parent: parent.map(str::to_string),
        name: None,
        tag: (kind != NodeKind::Text && !n.tag.is_empty()).then(|| n.tag.clone()),
        text: (kind == NodeKind::Text).then(|| n.text.clone()),
        attributes: n.attributes.iter().cloned().collect(),
        style: n.style.iter().cloned().collect(),
        tokens: n.token_refs.clone(),
        children: Vec::new(),
        locked: n.unsupported.clone(),
        source: Some(SourceRef {
            binding: binding.to_string(),
            graph_id: n.id,
        }),
    }
}

/// Adds the graph's nodes to `doc`; returns the root's id and the map.
fn place_graph(
    doc: &mut Document,
    graph: &Graph,
    binding: &str,
    page: &str,
    parent: Option<&str>,
) -> Result<(String, BTreeMap<u32, String>), ApiError> {
    let by_id = graph.by_id();
    let mut map = BTreeMap::new();
    for n in &graph.nodes {
        map.insert(n.id, doc.fresh_id("n"));
    }
    let mut stack = vec![(graph.root, parent.map(str::to_string))];
    while let Some((gid, under)) = stack.pop() {
        let n = by_id[&gid];
        let id = map[&gid].clone();
        let mut node = node_of(n, &id, page, under.as_deref(), binding);
        // A leaf kind with children: the graph's children stay with it in
        // the source only (they are locked with it).
        if node.kind.holds_children() {
            node.children = n.children.iter().map(|c| map[c].clone()).collect();
            stack.extend(n.children.iter().map(|c| (*c, Some(id.clone()))));
        } else if !n.children.is_empty() && node.locked.is_none() {
            node.locked = Some("it has children the canvas cannot hold".into());
        }
        doc.nodes.insert(id.clone(), node);
    }
    map.retain(|_, id| doc.nodes.contains_key(id));
    let root = map[&graph.root].clone();
    let list = doc
        .siblings_mut(parent, page)
        .ok_or_else(|| ApiError::not_found("the parent is gone"))?;
    list.push(root.clone());
    Ok((root, map))
}

/// A node's content as compared for "changed": what a push writes.
#[derive(PartialEq, Debug)]
struct Content<'a> {
    kind: NodeKind,
    tag: Option<&'a str>,
    text: Option<&'a str>,
    attributes: BTreeMap<&'a str, &'a str>,
    style: BTreeMap<&'a str, &'a str>,
}

fn content_of_node(n: &Node) -> Content<'_> {
    Content {
        kind: n.kind,
        tag: n.tag.as_deref(),
        text: n.text.as_deref(),
        attributes: n
            .attributes
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect(),
        style: n
            .style
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect(),
    }
}

fn content_of_graph(n: &GraphNode) -> Content<'_> {
    let kind = kind_of(n);
    Content {
        kind,
        tag: (kind != NodeKind::Text && !n.tag.is_empty()).then_some(n.tag.as_str()),
        text: (kind == NodeKind::Text).then_some(n.text.as_str()),
        attributes: n
            .attributes
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect(),
        style: n
            .style
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect(),
    }
}

/// The graph to emit for a binding, and the canvas nodes that changed.
struct Rebuilt {
    graph: Graph,
    /// Emitted graph id → canvas node id.
    canvas_of: BTreeMap<u32, String>,
    changed: Vec<String>,
}

fn rebuild(doc: &Document, b: &Binding) -> Result<Rebuilt, ApiError> {
    let pulled = b.graph.by_id();
    let mut next = b.graph.nodes.iter().map(|n| n.id).max().unwrap_or(0) + 1;
    let mut nodes = Vec::new();
    let mut canvas_of = BTreeMap::new();
    let mut changed = Vec::new();
    let mut seen_pulled = BTreeSet::new();
    // Pass 1: an id for every canvas node of the subtree.
    let subtree = doc.subtree(&b.root);
    let mut gid_of: BTreeMap<&str, u32> = BTreeMap::new();
    for cid in &subtree {
        let n = &doc.nodes[cid];
        let gid = match &n.source {
            Some(s) if s.binding == b.id && pulled.contains_key(&s.graph_id) => {
                if !seen_pulled.insert(s.graph_id) {
                    // Two canvas nodes claim one source node: the copy is new.
                    let g = next;
                    next += 1;
                    g
                } else {
                    s.graph_id
                }
            }
            _ => {
                let g = next;
                next += 1;
                g
            }
        };
        gid_of.insert(cid.as_str(), gid);
    }
    for cid in &subtree {
        let n = &doc.nodes[cid];
        let gid = gid_of[cid.as_str()];
        let children: Vec<u32> = n.children.iter().map(|c| gid_of[c.as_str()]).collect();
        canvas_of.insert(gid, cid.clone());
        match pulled.get(&gid) {
            // A leaf on the canvas (an instance, a kept expression) whose
            // source node has children: those stay in the source, so the
            // node goes back with its whole pulled subtree, as it was.
            Some(p) if !n.kind.holds_children() && !p.children.is_empty() => {
                if content_of_graph(p) != content_of_node(n) {
                    return Err(conflict(
                        "unsupported",
                        format!(
                            "node {cid:?} ({}) changed, but the adapter cannot write it: {}",
                            p.tag,
                            p.unsupported
                                .as_deref()
                                .unwrap_or("the canvas holds it as a leaf")
                        ),
                    ));
                }
                for d in b.graph.subtree(gid) {
                    seen_pulled.insert(d);
                    if d != gid {
                        nodes.push((*pulled[&d]).clone());
                    }
                }
                nodes.push((*p).clone());
            }
            Some(p) => {
                let same = content_of_graph(p) == content_of_node(n) && p.children == children;
                if same {
                    nodes.push((*p).clone());
                    continue;
                }
                if let Some(why) = &p.unsupported {
                    return Err(conflict(
                        "unsupported",
                        format!(
                            "node {cid:?} ({}) changed, but the adapter cannot write it: {why}",
                            p.tag
                        ),
                    )
                    .with_hint(
                        "undo that change (`webrig canvas history undo`), or edit it in the source",
                    ));
                }
                changed.push(cid.clone());
                nodes.push(graph_node(n, gid, children, p.span)?);
            }
            None => {
                changed.push(cid.clone());
                nodes.push(graph_node(n, gid, children, None)?);
            }
        }
    }
    // Removed: a pulled node no canvas node stands for.
    for p in &b.graph.nodes {
        if !seen_pulled.contains(&p.id) {
            if let Some(why) = &p.unsupported {
                return Err(conflict(
                    "unsupported",
                    format!(
                        "a {} the adapter cannot write was removed from the canvas ({why})",
                        if p.tag.is_empty() { "node" } else { &p.tag }
                    ),
                ));
            }
            changed.push(format!("removed:{}", p.id));
        }
    }
    let root = gid_of[b.root.as_str()];
    Ok(Rebuilt {
        graph: Graph { root, nodes },
        canvas_of,
        changed,
    })
}

fn graph_node(
    n: &Node,
    id: u32,
    children: Vec<u32>,
    span: Option<Span>,
) -> Result<GraphNode, ApiError> {
    use crate::plugins::adapter::NodeKind as G;
    let kind = match n.kind {
        NodeKind::Frame | NodeKind::Group | NodeKind::Shape => G::Element,
        NodeKind::Text => G::Text,
        NodeKind::ComponentInstance | NodeKind::DomBinding => {
            return Err(conflict(
                "unsupported",
                format!(
                    "node {:?} is a new {:?}: only frames, groups, shapes and text are written to source",
                    n.id, n.kind
                ),
            ));
        }
    };
    let tag = match n.kind {
        NodeKind::Text => String::new(),
        _ => n.tag.clone().unwrap_or_else(|| "div".into()),
    };
    Ok(GraphNode {
        id,
        kind,
        tag,
        attributes: n
            .attributes
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        text: n.text.clone().unwrap_or_default(),
        style: n
            .style
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        token_refs: n.tokens.clone(),
        children,
        span,
        unsupported: None,
    })
}

/// Walks two graphs side by side from their roots: the first difference
/// (as a path of tags), or the pairing of ids (a's → b's).
fn same_tree(a: &Graph, b: &Graph) -> Result<BTreeMap<u32, u32>, String> {
    let (ba, bb) = (a.by_id(), b.by_id());
    let mut pairs = BTreeMap::new();
    let mut stack = vec![(a.root, b.root, String::new())];
    while let Some((ia, ib, path)) = stack.pop() {
        let (na, nb) = match (ba.get(&ia), bb.get(&ib)) {
            (Some(x), Some(y)) => (*x, *y),
            _ => return Err(format!("{path}: a node is missing")),
        };
        let here = format!(
            "{path}/{}",
            if na.tag.is_empty() { "#text" } else { &na.tag }
        );
        let (ca, cb) = (content_of_graph(na), content_of_graph(nb));
        if ca != cb {
            return Err(format!("{here}: emitted {ca:?}, re-parsed {cb:?}"));
        }
        if na.children.len() != nb.children.len() {
            return Err(format!(
                "{here}: emitted {} children, re-parsed {}",
                na.children.len(),
                nb.children.len()
            ));
        }
        pairs.insert(ia, ib);
        for (x, y) in na.children.iter().zip(&nb.children) {
            stack.push((*x, *y, here.clone()));
        }
    }
    Ok(pairs)
}

/// Pushes binding `id` of `doc` to its file.
pub fn push(
    host: &PluginHost,
    project: &Project,
    doc: &mut Document,
    id: &str,
    prefer_canvas: bool,
) -> Result<Pushed, ApiError> {
    let b = doc
        .bindings
        .get(id)
        .cloned()
        .ok_or_else(|| ApiError::not_found(format!("no binding {id:?} in {}", doc.name)))?;
    let plugin = adapter(host, &b.adapter)?;
    let info = plugin.adapter.clone().expect("adapters have info");
    if !info.can("push") {
        return Err(ApiError::new(
            ErrorCode::Unsupported,
            format!("adapter {} pulls but does not push", b.adapter),
        ));
    }
    let call = AdapterCall::new(host.runtime(), &plugin);
    let (rel, path, current) = project.read_source(&b.file)?;
    let moved = sha256(&current) != b.source_sha256;
    if moved && !prefer_canvas {
        return Err(conflict(
            "source_changed",
            format!("{rel} changed since it was pulled"),
        )
        .with_hint("pull it again (`webrig canvas code pull`), or overwrite its bound part with `--prefer canvas`"));
    }
    let rebuilt = rebuild(doc, &b)?;
    let token_changes: Vec<(String, String)> = if info.can("tokens") {
        let file_tokens: BTreeMap<String, String> = call
            .read_tokens(&current)
            .map_err(failed)?
            .into_iter()
            .map(|t| (t.name, t.value))
            .collect();
        doc.tokens
            .iter()
            .filter(|(k, v)| file_tokens.get(*k) != Some(*v))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    } else {
        Vec::new()
    };
    if rebuilt.changed.is_empty() && token_changes.is_empty() {
        return Ok(Pushed {
            binding: id.into(),
            file: rel,
            changed: 0,
            replaced: b.entry.span,
            written: 0,
            backup: None,
            unchanged: true,
            tokens_written: 0,
        });
    }
    // The edit is made against the text pulled, whose spans the graph has.
    let pulled_text = if moved {
        project.read_pulled(&doc.name, id)?
    } else {
        current.clone()
    };
    let edit = call
        .emit(&pulled_text, b.entry.span, &rebuilt.graph)
        .map_err(failed)?;
    let mut next = if moved {
        // Splice the new bound part over the file's current bound part.
        let bound = b.entry.span.range();
        let mut part = String::new();
        part.push_str(&pulled_text[bound.start..edit.span.start as usize]);
        part.push_str(&edit.text);
        part.push_str(&pulled_text[edit.span.end as usize..bound.end]);
        let now = call
            .detect(file_name(&rel), &current, Some(&b.entry.name))
            .map_err(failed)?
            .ok_or_else(|| {
                conflict(
                    "source_changed",
                    format!("{rel} no longer has {:?} to push to", b.entry.name),
                )
            })?;
        let r = now.span.range();
        format!("{}{part}{}", &current[..r.start], &current[r.end..])
    } else {
        edit.apply(&current)
    };
    let mut tokens_written = 0;
    if !token_changes.is_empty() {
        let mut all: BTreeMap<String, String> = call
            .read_tokens(&next)
            .map_err(failed)?
            .into_iter()
            .map(|t| (t.name, t.value))
            .collect();
        for (k, v) in &token_changes {
            all.insert(k.clone(), v.clone());
        }
        let list: Vec<_> = all
            .into_iter()
            .map(|(name, value)| crate::plugins::adapter::Token { name, value })
            .collect();
        let t = call.emit_tokens(&next, &list).map_err(failed)?;
        next = t.apply(&next);
        tokens_written = token_changes.len();
    }
    // The result must re-parse to what was emitted.
    let entry = call
        .detect(file_name(&rel), &next, Some(&b.entry.name))
        .map_err(failed)?
        .ok_or_else(|| {
            failed(format!(
                "drift: after the edit, {} no longer finds {:?} in {rel}; nothing was written",
                b.adapter, b.entry.name
            ))
        })?;
    let reparsed = call.parse(&next, &entry).map_err(|e| {
        failed(format!(
            "the edited {rel} does not re-parse ({e}); nothing was written"
        ))
    })?;
    let pairs = same_tree(&rebuilt.graph, &reparsed).map_err(|d| {
        failed(format!(
            "drift: the edited {rel} re-parses to another graph than the one emitted ({d}); \
             nothing was written"
        ))
    })?;
    if tokens_written > 0 {
        let got: BTreeMap<String, String> = call
            .read_tokens(&next)
            .map_err(failed)?
            .into_iter()
            .map(|t| (t.name, t.value))
            .collect();
        if let Some((k, _)) = token_changes.iter().find(|(k, v)| got.get(k) != Some(v)) {
            return Err(failed(format!(
                "drift: token {k} does not read back from the edited {rel}; nothing was written"
            )));
        }
    }
    let backup = project.write_source(&rel, &path, &current, &next)?;
    // The binding now stands for the new text.
    let mut map = BTreeMap::new();
    for (emitted, canvas) in &rebuilt.canvas_of {
        if let Some(new_gid) = pairs.get(emitted) {
            map.insert(*new_gid, canvas.clone());
            if let Some(node) = doc.nodes.get_mut(canvas) {
                node.source = Some(SourceRef {
                    binding: id.to_string(),
                    graph_id: *new_gid,
                });
                node.locked = reparsed
                    .nodes
                    .iter()
                    .find(|n| n.id == *new_gid)
                    .and_then(|n| n.unsupported.clone());
            }
        }
    }
    let changed = rebuilt.changed.len() + tokens_written;
    let binding = doc.bindings.get_mut(id).expect("read above");
    binding.source_sha256 = sha256(&next);
    binding.graph = reparsed;
    binding.map = map;
    binding.entry = entry;
    project.keep_pulled(&doc.name, id, &next)?;
    Ok(Pushed {
        binding: id.into(),
        file: rel,
        changed,
        replaced: edit.span,
        written: edit.text.len(),
        backup: Some(backup.display().to_string()),
        unchanged: false,
        tokens_written,
    })
}

/// Every binding's drift.
pub fn status(project: &Project, doc: &Document) -> Vec<BindingStatus> {
    doc.bindings
        .values()
        .map(|b| {
            let read = project.read_source(&b.file);
            let (file_missing, file_changed) = match &read {
                Ok((_, _, text)) => (false, sha256(text) != b.source_sha256),
                Err(_) => (true, true),
            };
            let changed = match rebuild(doc, b) {
                Ok(r) => r.changed,
                Err(e) => vec![format!("locked: {}", e.message())],
            };
            BindingStatus {
                binding: b.id.clone(),
                file: b.file.clone(),
                adapter: b.adapter.clone(),
                entry: b.entry.name.clone(),
                file_changed,
                file_missing,
                canvas_changes: changed.len(),
                changed_nodes: changed.into_iter().take(50).collect(),
            }
        })
        .collect()
}
