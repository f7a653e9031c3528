//! Patches: the only way a canvas document changes. A batch of [`Op`]s is
//! applied to a copy and the copy checked whole ([`Document::check`]); the
//! document is replaced only when every op applied and the result is
//! consistent, so a batch with one bad op changes nothing. A batch names
//! the revision it was made on; another revision is a conflict.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::doc::{
    Asset, Document, Node, NodeKind, Page, check_asset_url, check_id, check_token_name,
};

/// Ops in one batch, at most.
pub const MAX_OPS: usize = 5_000;

/// A node as `node.insert` gives it (the id is generated when absent).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewNode {
    #[serde(default)]
    pub id: Option<String>,
    pub kind: NodeKind,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub tag: Option<String>,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub attributes: BTreeMap<String, String>,
    #[serde(default)]
    pub style: BTreeMap<String, String>,
    #[serde(default)]
    pub tokens: Vec<String>,
}

/// What `node.update` changes: a field given is set; in `style` and
/// `attributes`, a `null` value removes that entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Changes {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub tag: Option<String>,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub attributes: BTreeMap<String, Option<String>>,
    #[serde(default)]
    pub style: BTreeMap<String, Option<String>>,
    #[serde(default)]
    pub tokens: Option<Vec<String>>,
}

/// One change to a document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "op", deny_unknown_fields)]
pub enum Op {
    #[serde(rename = "page.create")]
    PageCreate {
        #[serde(default)]
        id: Option<String>,
        name: String,
    },
    /// Inserts a node under `parent` (a node or a page) at `index` (default:
    /// last).
    #[serde(rename = "node.insert")]
    NodeInsert {
        parent: String,
        #[serde(default)]
        index: Option<usize>,
        node: NewNode,
    },
    #[serde(rename = "node.update")]
    NodeUpdate { id: String, set: Changes },
    /// Removes a node and everything under it.
    #[serde(rename = "node.remove")]
    NodeRemove { id: String },
    #[serde(rename = "node.reparent")]
    NodeReparent {
        id: String,
        parent: String,
        #[serde(default)]
        index: Option<usize>,
    },
    #[serde(rename = "node.reorder")]
    NodeReorder { id: String, index: usize },
    /// Copies a node and its subtree next to it (fresh ids, no source).
    #[serde(rename = "node.duplicate")]
    NodeDuplicate {
        id: String,
        #[serde(default)]
        new_id: Option<String>,
    },
    /// Sets a token; `null` removes it.
    #[serde(rename = "token.set")]
    TokenSet { name: String, value: Option<String> },
    #[serde(rename = "tokens.merge")]
    TokensMerge { tokens: BTreeMap<String, String> },
    #[serde(rename = "asset.attach")]
    AssetAttach {
        id: String,
        url: String,
        #[serde(default)]
        mime: Option<String>,
    },
    /// Binds a node to a page element of a live site or a source selector
    /// (kept as the node's `data-binding` attribute).
    #[serde(rename = "binding.set")]
    BindingSet { node: String, selector: String },
    #[serde(rename = "binding.remove")]
    BindingRemove { node: String },
}

/// Why a batch was refused: which op, and what was wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct PatchError {
    /// The op's position in the batch (none: the batch as a whole).
    pub op: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for PatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.op {
            Some(i) => write!(f, "op {i}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// `doc` with `ops` applied and its revision bumped once; `doc` itself is
/// never touched.
pub fn apply(doc: &Document, ops: &[Op]) -> Result<Document, PatchError> {
    if ops.len() > MAX_OPS {
        return Err(PatchError {
            op: None,
            message: format!("{} ops, over {MAX_OPS} in one batch", ops.len()),
        });
    }
    let mut copy = doc.clone();
    for (i, op) in ops.iter().enumerate() {
        apply_one(&mut copy, op).map_err(|message| PatchError {
            op: Some(i),
            message,
        })?;
    }
    copy.check()
        .map_err(|message| PatchError { op: None, message })?;
    copy.revision += 1;
    Ok(copy)
}

fn node_mut<'a>(doc: &'a mut Document, id: &str) -> Result<&'a mut Node, String> {
    doc.nodes
        .get_mut(id)
        .ok_or_else(|| format!("no node {id:?}"))
}

/// Where `parent` (a node or a page) puts children: (parent node, page).
fn place(doc: &Document, parent: &str) -> Result<(Option<String>, String), String> {
    if let Some(n) = doc.nodes.get(parent) {
        if !n.kind.holds_children() {
            return Err(format!(
                "{parent:?} is {:?} and cannot hold children",
                n.kind
            ));
        }
        return Ok((Some(parent.to_string()), n.page.clone()));
    }
    if doc.page(parent).is_some() {
        return Ok((None, parent.to_string()));
    }
    Err(format!("no node or page {parent:?}"))
}

fn insert_at(list: &mut Vec<String>, index: Option<usize>, id: String) -> Result<(), String> {
    let at = index.unwrap_or(list.len());
    if at > list.len() {
        return Err(format!(
            "index {at} is past the end ({} children)",
            list.len()
        ));
    }
    list.insert(at, id);
    Ok(())
}

/// Takes `id` out of its parent's (or page's) children.
fn detach(doc: &mut Document, id: &str) -> Result<(), String> {
    let (parent, page) = {
        let n = doc.nodes.get(id).ok_or_else(|| format!("no node {id:?}"))?;
        (n.parent.clone(), n.page.clone())
    };
    let list = doc
        .siblings_mut(parent.as_deref(), &page)
        .ok_or_else(|| format!("node {id:?}'s parent is gone"))?;
    list.retain(|c| c != id);
    Ok(())
}

fn fresh_or(doc: &mut Document, id: Option<String>, prefix: &str) -> Result<String, String> {
    match id {
        Some(id) => {
            check_id(&id)?;
            if doc.id_taken(&id) {
                return Err(format!("id {id:?} is taken"));
            }
            Ok(id)
        }
        None => Ok(doc.fresh_id(prefix)),
    }
}

fn apply_one(doc: &mut Document, op: &Op) -> Result<(), String> {
    match op {
        Op::PageCreate { id, name } => {
            let id = fresh_or(doc, id.clone(), "p")?;
            doc.pages.push(Page {
                id,
                name: name.clone(),
                children: Vec::new(),
            });
        }
        Op::NodeInsert {
            parent,
            index,
            node,
        } => {
            let (parent, page) = place(doc, parent)?;
            let id = fresh_or(doc, node.id.clone(), "n")?;
            for t in &node.tokens {
                check_token_name(t)?;
            }
            let n = Node {
                id: id.clone(),
                kind: node.kind,
                page: page.clone(),
                parent: parent.clone(),
                name: node.name.clone(),
                tag: node.tag.clone(),
                text: node.text.clone(),
                attributes: node.attributes.clone(),
                style: node.style.clone(),
                tokens: node.tokens.clone(),
                children: Vec::new(),
                locked: None,
                source: None,
            };
            let list = doc
                .siblings_mut(parent.as_deref(), &page)
                .ok_or("the parent is gone")?;
            insert_at(list, *index, id.clone())?;
            doc.nodes.insert(id, n);
        }
        Op::NodeUpdate { id, set } => {
            let n = node_mut(doc, id)?;
            if let Some(name) = &set.name {
                n.name = Some(name.clone());
            }
            if let Some(tag) = &set.tag {
                n.tag = Some(tag.clone());
            }
            if let Some(text) = &set.text {
                if n.kind != NodeKind::Text {
                    return Err(format!("{id:?} is {:?}; only text nodes hold text", n.kind));
                }
                n.text = Some(text.clone());
            }
            for (k, v) in &set.attributes {
                if k.eq_ignore_ascii_case("style") {
                    return Err("style is set through `style`, not `attributes`".into());
                }
                match v {
                    Some(v) => n.attributes.insert(k.clone(), v.clone()),
                    None => n.attributes.remove(k),
                };
            }
            for (k, v) in &set.style {
                match v {
                    Some(v) => n.style.insert(k.clone(), v.clone()),
                    None => n.style.remove(k),
                };
            }
            if let Some(tokens) = &set.tokens {
                for t in tokens {
                    check_token_name(t)?;
                }
                n.tokens = tokens.clone();
            }
        }
        Op::NodeRemove { id } => {
            detach(doc, id)?;
            for gone in doc.subtree(id) {
                doc.nodes.remove(&gone);
            }
            doc.bindings.retain(|_, b| doc.nodes.contains_key(&b.root));
        }
        Op::NodeReparent { id, parent, index } => {
            if !doc.nodes.contains_key(id) {
                return Err(format!("no node {id:?}"));
            }
            if doc.subtree(id).iter().any(|d| d == parent) {
                return Err(format!(
                    "{parent:?} is inside {id:?}: that would be a cycle"
                ));
            }
            let (new_parent, page) = place(doc, parent)?;
            detach(doc, id)?;
            let list = doc
                .siblings_mut(new_parent.as_deref(), &page)
                .ok_or("the parent is gone")?;
            insert_at(list, *index, id.clone())?;
            for d in doc.subtree(id) {
                if let Some(n) = doc.nodes.get_mut(&d) {
                    n.page = page.clone();
                }
            }
            node_mut(doc, id)?.parent = new_parent;
        }
        Op::NodeReorder { id, index } => {
            let (parent, page) = {
                let n = doc.nodes.get(id).ok_or_else(|| format!("no node {id:?}"))?;
                (n.parent.clone(), n.page.clone())
            };
            let list = doc
                .siblings_mut(parent.as_deref(), &page)
                .ok_or("the parent is gone")?;
            list.retain(|c| c != id);
            insert_at(list, Some(*index), id.clone())?;
        }
        Op::NodeDuplicate { id, new_id } => {
            let original = doc
                .nodes
                .get(id)
                .cloned()
                .ok_or_else(|| format!("no node {id:?}"))?;
            let top = fresh_or(doc, new_id.clone(), "n")?;
            let mut renamed: BTreeMap<String, String> = BTreeMap::new();
            renamed.insert(id.clone(), top.clone());
            for d in doc.subtree(id).into_iter().skip(1) {
                let fresh = doc.fresh_id("n");
                renamed.insert(d, fresh);
            }
            for (old, new) in &renamed {
                let mut n = doc.nodes[old].clone();
                n.id = new.clone();
                n.source = None;
                n.parent = n
                    .parent
                    .as_ref()
                    .map(|p| renamed.get(p).cloned().unwrap_or_else(|| p.clone()));
                n.children = n.children.iter().map(|c| renamed[c].clone()).collect();
                doc.nodes.insert(new.clone(), n);
            }
            let list = doc
                .siblings_mut(original.parent.as_deref(), &original.page)
                .ok_or("the parent is gone")?;
            let at = list
                .iter()
                .position(|c| c == id)
                .map_or(list.len(), |i| i + 1);
            list.insert(at, top);
        }
        Op::TokenSet { name, value } => {
            check_token_name(name)?;
            match value {
                Some(v) => doc.tokens.insert(name.clone(), v.clone()),
                None => doc.tokens.remove(name),
            };
        }
        Op::TokensMerge { tokens } => {
            for (name, value) in tokens {
                check_token_name(name)?;
                doc.tokens.insert(name.clone(), value.clone());
            }
        }
        Op::AssetAttach { id, url, mime } => {
            check_id(id)?;
            check_asset_url(url)?;
            if doc.nodes.contains_key(id) || doc.pages.iter().any(|p| &p.id == id) {
                return Err(format!("id {id:?} is taken"));
            }
            doc.assets.insert(
                id.clone(),
                Asset {
                    id: id.clone(),
                    url: url.clone(),
                    mime: mime.clone(),
                },
            );
        }
        Op::BindingSet { node, selector } => {
            if selector.is_empty() || selector.len() > 1024 {
                return Err("a binding's selector is 1 to 1024 bytes".into());
            }
            node_mut(doc, node)?
                .attributes
                .insert("data-binding".into(), selector.clone());
        }
        Op::BindingRemove { node } => {
            node_mut(doc, node)?.attributes.remove("data-binding");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(json: &str) -> Vec<Op> {
        serde_json::from_str(json).expect("ops parse")
    }

    fn starter() -> Document {
        let doc = Document::new("t");
        apply(
            &doc,
            &ops(r##"[
              {"op":"node.insert","parent":"p1","node":{"id":"hero","kind":"frame","tag":"section"}},
              {"op":"node.insert","parent":"hero","node":{"id":"title","kind":"text","text":"Hello"}},
              {"op":"node.insert","parent":"hero","node":{"id":"cta","kind":"frame","tag":"button"}}
            ]"##),
        )
        .expect("starter applies")
    }

    #[test]
    fn every_op_applies_and_the_revision_moves_once_per_batch() {
        let doc = starter();
        assert_eq!(doc.revision, 1);
        let next = apply(
            &doc,
            &ops(r##"[
              {"op":"page.create","id":"p2","name":"Two"},
              {"op":"node.update","id":"title","set":{"text":"Hi","style":{"color":"var(--brand)"}}},
              {"op":"node.reorder","id":"cta","index":0},
              {"op":"node.duplicate","id":"cta","new_id":"cta2"},
              {"op":"node.reparent","id":"cta2","parent":"p2"},
              {"op":"token.set","name":"--brand","value":"#0a7"},
              {"op":"tokens.merge","tokens":{"--radius":"8px"}},
              {"op":"asset.attach","id":"logo","url":"https://example.com/logo.png"},
              {"op":"binding.set","node":"hero","selector":"main > section"},
              {"op":"node.remove","id":"title"}
            ]"##),
        )
        .expect("applies");
        assert_eq!(next.revision, 2);
        assert_eq!(next.nodes["hero"].children, vec!["cta"]);
        assert_eq!(next.page("p2").expect("p2").children, vec!["cta2"]);
        assert_eq!(next.nodes["cta2"].page, "p2");
        assert_eq!(next.tokens.len(), 2);
        assert!(!next.nodes.contains_key("title"));
        next.check().expect("consistent");
    }

    #[test]
    fn a_batch_with_one_bad_op_changes_nothing() {
        let doc = starter();
        for bad in [
            r##"[{"op":"node.update","id":"title","set":{"text":"x"}},{"op":"node.remove","id":"nope"}]"##,
            r##"[{"op":"node.reparent","id":"hero","parent":"cta"}]"##,
            r##"[{"op":"node.insert","parent":"title","node":{"kind":"text"}}]"##,
            r##"[{"op":"node.insert","parent":"p1","node":{"id":"hero","kind":"text"}}]"##,
            r##"[{"op":"node.insert","parent":"p1","index":9,"node":{"kind":"text"}}]"##,
            r##"[{"op":"token.set","name":"brand","value":"x"}]"##,
            r##"[{"op":"asset.attach","id":"a","url":"file:///etc/passwd"}]"##,
            r##"[{"op":"node.update","id":"cta","set":{"text":"buttons hold no text"}}]"##,
            r##"[{"op":"node.insert","parent":"p1","node":{"id":"../x","kind":"text"}}]"##,
        ] {
            let before = doc.clone();
            let err = apply(&doc, &ops(bad)).expect_err(bad);
            assert_eq!(doc, before, "{bad}: {err}");
        }
        let err = apply(
            &doc,
            &ops(r##"[{"op":"node.remove","id":"hero"},{"op":"node.remove","id":"nope"}]"##),
        )
        .expect_err("second op fails");
        assert_eq!(err.op, Some(1));
    }

    #[test]
    fn unknown_ops_and_fields_do_not_parse() {
        assert!(serde_json::from_str::<Vec<Op>>(r##"[{"op":"node.explode","id":"x"}]"##).is_err());
        assert!(
            serde_json::from_str::<Vec<Op>>(r##"[{"op":"node.remove","id":"x","force":true}]"##)
                .is_err()
        );
    }

    #[test]
    fn a_hand_made_cycle_or_double_placement_is_refused_on_check() {
        let mut doc = starter();
        doc.nodes.get_mut("cta").expect("cta").kind = NodeKind::Frame;
        doc.nodes
            .get_mut("cta")
            .expect("cta")
            .children
            .push("hero".into());
        assert!(doc.check().is_err());
        let mut doc = starter();
        doc.pages[0].children.push("title".into());
        assert!(doc.check().is_err());
    }
}
