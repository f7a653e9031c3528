//! Markup for webrig's adapters: HTML (and the HTML-like templates of Vue
//! and Svelte single-file components) read into the canvas graph with exact
//! byte spans, and a graph written back as one minimal source edit.
//!
//! The parser is a small hand-written tokenizer and tree builder
//! ([`parse`]), not a browser-grade HTML5 parser: see its module doc for
//! why and for what it does not do (implied end tags, foreign content).
//! What it guarantees is what the canvas needs: every node's span is exact,
//! whitespace-only text between tags is not a node (text is otherwise kept
//! exactly, references decoded), comments are skipped (kept in the source
//! by the emitter), `<script>` and `<style>` are opaque nodes kept
//! verbatim, hostile input gives an error and never a panic, and nothing
//! recurses deeper than [`MAX_DEPTH`].
//!
//! The emitter ([`emit`]) copies the source of every unchanged node, so a
//! push changes as little of the file as possible, and refuses a graph it
//! could not write so that it re-parses equal.

pub mod emit;
pub mod entities;
pub mod graph;
pub mod parse;
pub mod testing;

pub use graph::same_shape;
pub use parse::{Dialect, Doc, MAX_DEPTH};

use webrig_adapter_sdk::types::{Error, Graph, SourceEdit, Span};

/// Parses `src` as `dialect`; a parse error is `invalid-input`.
pub fn parse_doc(src: &str, dialect: Dialect) -> Result<Doc, Error> {
    parse::parse(src, dialect)
        .map_err(|e| Error::InvalidInput(format!("cannot parse the markup: {e}")))
}

/// The graph of the subtree of `doc` rooted at node `root` (ids from 1 in
/// source order).
pub fn subtree(doc: &Doc, root: usize) -> Graph {
    graph::build(doc, root).graph
}

/// Nodes a graph may have: the host's limit, refused here with a clear
/// error rather than answered and refused there.
pub const MAX_NODES: usize = 20_000;

/// [`subtree`], refused when it has more than [`MAX_NODES`] nodes.
pub fn graph_of(doc: &Doc, root: usize) -> Result<Graph, Error> {
    let g = subtree(doc, root);
    if g.nodes.len() > MAX_NODES {
        return Err(Error::InvalidInput(format!(
            "the bound part has {} nodes, over the limit of {MAX_NODES}",
            g.nodes.len()
        )));
    }
    Ok(g)
}

/// `span` as byte offsets, checked against `src`.
pub fn checked_span(src: &str, span: Span) -> Result<(usize, usize), Error> {
    let (s, e) = (span.start as usize, span.end as usize);
    if s > e || e > src.len() || !src.is_char_boundary(s) || !src.is_char_boundary(e) {
        return Err(Error::InvalidInput(format!(
            "span {s}..{e} is not a range of the {}-byte source",
            src.len()
        )));
    }
    Ok((s, e))
}

/// The edit for `graph`, pulled from the node of `src` that `find_root`
/// finds at `bound` (`None`: the bound span is not an entrypoint).
pub fn emit_at(
    src: &str,
    dialect: Dialect,
    bound: Span,
    graph: &Graph,
    find_root: impl Fn(&mut Doc, (usize, usize)) -> Option<usize>,
) -> Result<SourceEdit, Error> {
    let bound = checked_span(src, bound)?;
    let mut doc = parse_doc(src, dialect)?;
    let root = find_root(&mut doc, bound).ok_or_else(|| {
        Error::InvalidInput(format!(
            "the bound span {}..{} is not an entrypoint of this source",
            bound.0, bound.1
        ))
    })?;
    emit::emit(src, dialect, &doc, root, graph)
}

/// `src` with `edit` applied (for tests and tools; the host applies edits
/// itself). `None` if the edit's span is not a range of `src`.
pub fn apply(src: &str, edit: &SourceEdit) -> Option<String> {
    let (s, e) = checked_span(src, edit.span).ok()?;
    Some(format!("{}{}{}", &src[..s], edit.text, &src[e..]))
}

#[cfg(test)]
mod tests;
