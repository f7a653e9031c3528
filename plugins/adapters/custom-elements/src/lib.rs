//! The custom elements adapter: binds the HTML template of a custom
//! element to the design canvas. The element is a `customElements.define(
//! 'x-card', Class)` call; its template is the template literal the class
//! (or the module, for a shared `<template>`) assigns to an `innerHTML`.
//! The entrypoint is named by the tag; its span is the literal's content,
//! between the backticks.
//!
//! The JS is read with oxc ([`find`]); the template is read and written by
//! the shared markup crate (`webrig-adapter-markup`), in its Svelte
//! dialect, over a *masked* copy of the file ([`mask`]): same length,
//! everything outside the literal blanked, each `${` written `{\x01` so the
//! markup reader takes the substitution for an `{expression}` (an opaque
//! node, or an unsupported attribute). Offsets are therefore offsets into
//! the whole file with no shifting.
//!
//! What it does not model: the template is read raw, so a backslash escape
//! in it (`\``, `\n`) is text as written, and a `{` in the template's text
//! (outside `<style>`) is read as an expression. Writing back, text and
//! attribute values are escaped for HTML and for the literal: braces,
//! backticks and backslashes become character references.

pub mod find;
pub mod mask;

use webrig_adapter_markup::{Dialect, Doc, emit_at, parse_doc, same_shape, subtree};
use webrig_adapter_sdk::Adapter;
#[cfg(target_arch = "wasm32")]
use webrig_adapter_sdk::export_adapter;
use webrig_adapter_sdk::types::*;

/// The root fragment's tag: the template's top-level nodes are its
/// children.
pub const FRAGMENT: &str = "template";

/// The adapter (exported as the component's `adapter` interface).
pub struct CustomElements;

impl Adapter for CustomElements {
    fn info() -> AdapterInfo {
        AdapterInfo {
            id: "custom-elements".into(),
            name: "Custom elements".into(),
            family: "custom-elements".into(),
            patterns: vec!["*.js".into(), "*.ts".into(), "*.mjs".into()],
            // Not `preview`: the file defines an element; a page must load
            // it and use the tag before anything renders.
            capabilities: vec!["pull".into(), "push".into()],
            description: "The HTML template literal a customElements.define'd class assigns to \
                          innerHTML: elements, literal attributes, inline styles, text; `${}` \
                          substitutions and <style> kept as they are."
                .into(),
        }
    }

    fn detect(path: &str, source: &str, want: Option<&str>) -> Option<Entrypoint> {
        let lower = path.to_ascii_lowercase();
        if ![".js", ".ts", ".mjs"].iter().any(|e| lower.ends_with(e)) {
            return None;
        }
        let found = find::templates(source).ok()?;
        let pick = match want {
            Some(w) => found.iter().find(|f| f.tag == w),
            None => found.first(),
        }?;
        Some(Entrypoint {
            name: pick.tag.clone(),
            span: Span {
                start: u32::try_from(pick.content.0).ok()?,
                end: u32::try_from(pick.content.1).ok()?,
            },
        })
    }

    fn parse(source: &str, entrypoint: &Entrypoint) -> Result<Graph, Error> {
        let (masked, bound) = masked_at(source, entrypoint.span)?;
        let mut doc = parse_doc(&masked, Dialect::Svelte)?;
        let root = fragment_at(&mut doc, bound)
            .ok_or_else(|| Error::Internal("the template's fragment was not found".into()))?;
        let mut graph = subtree(&doc, root);
        mask::unmask_graph(&mut graph);
        Ok(graph)
    }

    fn emit(source: &str, bound: Span, graph: &Graph) -> Result<SourceEdit, Error> {
        let (masked, _) = masked_at(source, bound)?;
        let mut g = graph.clone();
        mask::mask_graph(&mut g)?;
        let edit = emit_at(&masked, Dialect::Svelte, bound, &g, fragment_at)?;
        let edit = SourceEdit {
            span: edit.span,
            text: mask::unmask_text(&edit.text),
        };
        // The check the host makes, made here first: a refusal names the
        // cause instead of a drift.
        let next = webrig_adapter_markup::apply(source, &edit)
            .ok_or_else(|| Error::Internal("the edit is not inside the source".into()))?;
        let tag = find::templates(source)?
            .into_iter()
            .find(|f| f.content == (bound.start as usize, bound.end as usize))
            .map(|f| f.tag);
        let again = Self::detect("x.js", &next, tag.as_deref())
            .ok_or_else(|| {
                Error::InvalidInput("the edited file no longer defines the element".into())
            })
            .and_then(|ep| Self::parse(&next, &ep))?;
        if !same_shape(&again, graph) {
            return Err(Error::InvalidInput(
                "the graph cannot be written so that it reads back the same".into(),
            ));
        }
        Ok(edit)
    }
}

/// The masked source for the template at `bound`, and the bound as
/// offsets; refused if `bound` is not a template of `source`.
fn masked_at(source: &str, bound: Span) -> Result<(String, (usize, usize)), Error> {
    let at = (bound.start as usize, bound.end as usize);
    let found = find::templates(source)?
        .into_iter()
        .find(|f| f.content == at)
        .ok_or_else(|| {
            Error::InvalidInput(format!(
                "no element's template is at {}..{}; was the file changed?",
                at.0, at.1
            ))
        })?;
    Ok((mask::mask(source, &found)?, at))
}

/// Adds the fragment holding every top-level node of the masked template
/// (nothing else is left in the masked source).
fn fragment_at(doc: &mut Doc, span: (usize, usize)) -> Option<usize> {
    let kids = doc.top.clone();
    let inside = kids
        .iter()
        .all(|&k| doc.nodes[k].span.0 >= span.0 && doc.nodes[k].span.1 <= span.1);
    inside.then(|| doc.add_fragment(FRAGMENT, kids, span))
}

#[cfg(target_arch = "wasm32")]
export_adapter!(CustomElements);
