//! The canvas document: what `canvas.json` holds. Plain data with sorted
//! keys (maps are `BTreeMap`), checked whole by [`Document::check`] after
//! every patch and on every read, so a hand-edited or hostile file is
//! refused before anything renders or pushes it.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::plugins::adapter::{Entrypoint, Graph};

/// The format tag every document carries.
pub const FORMAT: &str = "webrig-canvas/1";
/// Nodes a document may hold.
pub const MAX_NODES: usize = 50_000;
/// Depth of the node tree, at most (renders and walks stay bounded).
pub const MAX_DEPTH: usize = 256;

/// One design document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Document {
    pub assets: BTreeMap<String, Asset>,
    /// Source files bound to subtrees (`canvas code pull`).
    pub bindings: BTreeMap<String, Binding>,
    pub format: String,
    pub name: String,
    /// The next number for a generated id (`n12`, `p2`, `b3`).
    pub next_id: u64,
    pub nodes: BTreeMap<String, Node>,
    pub pages: Vec<Page>,
    /// Bumped by every change; a patch names the revision it was made on.
    pub revision: u64,
    /// Design tokens: CSS custom properties (`--brand` → `#0a7`).
    pub tokens: BTreeMap<String, String>,
    pub viewports: Vec<Viewport>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Page {
    /// Top-level nodes, in order.
    pub children: Vec<String>,
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum NodeKind {
    /// A box with children: an element (`tag`, default `div`).
    Frame,
    /// A box that only groups (rendered as a `div`).
    Group,
    /// Text.
    Text,
    /// A leaf box drawn by its style.
    Shape,
    /// A framework component, kept as an instance (not edited inside).
    ComponentInstance,
    /// Source the canvas keeps but cannot edit (an expression, a loop).
    DomBinding,
}

impl NodeKind {
    pub fn holds_children(self) -> bool {
        matches!(self, NodeKind::Frame | NodeKind::Group)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Node {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attributes: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<String>,
    pub id: String,
    pub kind: NodeKind,
    /// Why it cannot be edited (pulled from source the adapter does not
    /// model); a push refuses when such a node changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locked: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The page it is on.
    pub page: String,
    /// Its parent node; none at the page's top level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// The binding it was pulled through, and its id in that graph.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceRef>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub style: BTreeMap<String, String>,
    /// The element's tag (frames), the component's name (instances).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Tokens its style refers to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tokens: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SourceRef {
    pub binding: String,
    pub graph_id: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Asset {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime: Option<String>,
    /// `https:`, `http:` or `data:image/…` (never a local path).
    pub url: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Viewport {
    pub height: u32,
    pub name: String,
    pub width: u32,
}

/// A source file bound to a subtree: what `canvas code pull` stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Binding {
    pub adapter: String,
    pub entry: Entrypoint,
    /// The file, relative to the project folder.
    pub file: String,
    /// The graph as pulled: spans, ids and what every node was.
    pub graph: Graph,
    pub id: String,
    /// The canvas node each graph node became (keys in numeric order).
    pub map: BTreeMap<u32, String>,
    /// The canvas node the bound subtree hangs from.
    pub root: String,
    /// sha256 of the file as pulled (or last pushed).
    pub source_sha256: String,
}

impl Document {
    pub fn new(name: &str) -> Document {
        Document {
            format: FORMAT.into(),
            name: name.into(),
            revision: 0,
            pages: vec![Page {
                id: "p1".into(),
                name: "Page 1".into(),
                children: Vec::new(),
            }],
            nodes: BTreeMap::new(),
            tokens: BTreeMap::new(),
            assets: BTreeMap::new(),
            viewports: vec![
                Viewport {
                    name: "desktop".into(),
                    width: 1280,
                    height: 800,
                },
                Viewport {
                    name: "mobile".into(),
                    width: 390,
                    height: 844,
                },
            ],
            bindings: BTreeMap::new(),
            next_id: 2,
        }
    }

    /// A fresh id with `prefix`, unused by any node, page, asset or binding.
    pub fn fresh_id(&mut self, prefix: &str) -> String {
        loop {
            let id = format!("{prefix}{}", self.next_id);
            self.next_id += 1;
            if !self.id_taken(&id) {
                return id;
            }
        }
    }

    pub fn id_taken(&self, id: &str) -> bool {
        self.nodes.contains_key(id)
            || self.pages.iter().any(|p| p.id == id)
            || self.assets.contains_key(id)
            || self.bindings.contains_key(id)
    }

    pub fn page(&self, id: &str) -> Option<&Page> {
        self.pages.iter().find(|p| p.id == id)
    }

    pub fn page_mut(&mut self, id: &str) -> Option<&mut Page> {
        self.pages.iter_mut().find(|p| p.id == id)
    }

    /// The children list a node sits in: its parent's, or its page's.
    pub fn siblings_mut(&mut self, parent: Option<&str>, page: &str) -> Option<&mut Vec<String>> {
        match parent {
            Some(p) => self.nodes.get_mut(p).map(|n| &mut n.children),
            None => self.page_mut(page).map(|p| &mut p.children),
        }
    }

    /// Ids of `id` and every node under it, parents first.
    pub fn subtree(&self, id: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![id.to_string()];
        while let Some(i) = stack.pop() {
            if let Some(n) = self.nodes.get(&i) {
                stack.extend(n.children.iter().rev().cloned());
                out.push(i);
            }
        }
        out
    }

    /// The whole document is consistent: every id well-formed and unique,
    /// every child a node whose `parent` and `page` say so, every node in
    /// exactly one place, no cycles, depth and size bounded, tokens named
    /// `--…`, assets never local.
    pub fn check(&self) -> Result<(), String> {
        if self.format != FORMAT {
            return Err(format!(
                "format is {:?}, not {FORMAT:?}",
                self.format.chars().take(40).collect::<String>()
            ));
        }
        if self.nodes.len() > MAX_NODES {
            return Err(format!("{} nodes, over {MAX_NODES}", self.nodes.len()));
        }
        let mut ids = BTreeSet::new();
        for id in self
            .pages
            .iter()
            .map(|p| &p.id)
            .chain(self.nodes.keys())
            .chain(self.assets.keys())
            .chain(self.bindings.keys())
        {
            check_id(id)?;
            if !ids.insert(id.as_str()) {
                return Err(format!("id {id:?} is used twice"));
            }
        }
        for (key, n) in &self.nodes {
            if &n.id != key {
                return Err(format!("node {key:?} says its id is {:?}", n.id));
            }
            if self.page(&n.page).is_none() {
                return Err(format!("node {key:?} is on a page that does not exist"));
            }
            if !n.kind.holds_children() && !n.children.is_empty() {
                return Err(format!(
                    "node {key:?} is {:?} and cannot hold children",
                    n.kind
                ));
            }
            for t in n.style.keys().chain(n.attributes.keys()) {
                if t.is_empty() || t.len() > 128 {
                    return Err(format!("node {key:?} has an empty or overlong name"));
                }
            }
        }
        // Every node is placed once: under its parent, or its page.
        let mut placed: BTreeMap<&str, (Option<&str>, &str)> = BTreeMap::new();
        for p in &self.pages {
            for c in &p.children {
                if placed.insert(c, (None, &p.id)).is_some() {
                    return Err(format!("node {c:?} is placed twice"));
                }
            }
        }
        for n in self.nodes.values() {
            for c in &n.children {
                if placed.insert(c, (Some(&n.id), &n.page)).is_some() {
                    return Err(format!("node {c:?} is placed twice"));
                }
            }
        }
        for (id, n) in &self.nodes {
            match placed.get(id.as_str()) {
                None => return Err(format!("node {id:?} is on no page and in no node")),
                Some((parent, page)) => {
                    if n.parent.as_deref() != *parent || n.page != *page {
                        return Err(format!(
                            "node {id:?}'s parent or page does not match where it is"
                        ));
                    }
                }
            }
        }
        if let Some(c) = placed.keys().find(|c| !self.nodes.contains_key(**c)) {
            return Err(format!("{c:?} is listed as a child but is not a node"));
        }
        // From the pages down, every node is reached once and not too deep
        // (a cycle would be placed but unreachable).
        let mut reached = 0usize;
        let mut stack: Vec<(&str, usize)> = self
            .pages
            .iter()
            .flat_map(|p| p.children.iter().map(|c| (c.as_str(), 1)))
            .collect();
        while let Some((id, depth)) = stack.pop() {
            if depth > MAX_DEPTH {
                return Err(format!("the tree is deeper than {MAX_DEPTH} levels"));
            }
            reached += 1;
            if let Some(n) = self.nodes.get(id) {
                stack.extend(n.children.iter().map(|c| (c.as_str(), depth + 1)));
            }
        }
        if reached != self.nodes.len() {
            return Err("some nodes form a cycle, out of every page's reach".into());
        }
        for name in self.tokens.keys() {
            check_token_name(name)?;
        }
        for a in self.assets.values() {
            check_asset_url(&a.url)?;
        }
        for (id, b) in &self.bindings {
            if !self.nodes.contains_key(&b.root) {
                return Err(format!("binding {id:?}'s root is not a node"));
            }
        }
        Ok(())
    }
}

/// Ids: 1 to 64 of `A-Za-z0-9_-`.
pub fn check_id(id: &str) -> Result<(), String> {
    if id.is_empty()
        || id.len() > 64
        || !id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(format!(
            "{:?} is not an id (1 to 64 of A-Z, a-z, 0-9, - and _)",
            id.chars().take(80).collect::<String>()
        ));
    }
    Ok(())
}

/// Token names: `--` then 1 to 100 of `A-Za-z0-9_-`.
pub fn check_token_name(name: &str) -> Result<(), String> {
    match name.strip_prefix("--") {
        Some(rest)
            if !rest.is_empty()
                && rest.len() <= 100
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
        {
            Ok(())
        }
        _ => Err(format!(
            "{:?} is not a token name (--name, letters, digits, - and _)",
            name.chars().take(80).collect::<String>()
        )),
    }
}

/// Assets are references to the web or inline images, never local files.
pub fn check_asset_url(url: &str) -> Result<(), String> {
    let lower = url.to_ascii_lowercase();
    if url.len() <= 2 << 20
        && (lower.starts_with("https://")
            || lower.starts_with("http://")
            || lower.starts_with("data:image/"))
    {
        Ok(())
    } else {
        Err("an asset is an https:, http: or data:image/ URL (at most 2 MiB)".into())
    }
}
