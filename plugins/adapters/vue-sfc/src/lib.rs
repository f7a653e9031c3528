//! The `vue-sfc` adapter: a Vue single-file component's `<template>` block
//! as a canvas.
//!
//! No Vue template parser in Rust was a fit: the ones on crates.io
//! (fervid, verter_core) are whole SFC compilers that pull in swc or oxc
//! and lightningcss, far too big for a 64 MB adapter component, and they
//! do not promise exact spans of every node. So this is an HTML parse of
//! the template (the shared markup crate, Vue dialect), with Vue's syntax
//! recognised and kept, not modelled: `{{ expr }}` interpolations are
//! opaque nodes; an element with a directive (`v-if`, `v-for`, `:prop`,
//! `@event`, `#slot`) is unsupported, its reason naming the directive (its
//! tag and attributes cannot change; its children stay editable); tags
//! starting with a capital or holding a `.` are components; `<slot>` and
//! `<component>` are unsupported. Limits: HTML entities are decoded as
//! HTML does (Vue's own decoder agrees on the common ones), a `}}` inside a
//! string in an interpolation ends it early, and `lang="pug"` templates
//! are not read.
//!
//! The entrypoint is `template`; its span is the whole top-level
//! `<template>` element (open tag to close tag), which is the graph's root.

use webrig_adapter_markup::{Dialect, Doc, emit_at, graph_of, parse_doc};
use webrig_adapter_sdk::Adapter;
#[cfg(target_arch = "wasm32")]
use webrig_adapter_sdk::export_adapter;
use webrig_adapter_sdk::types::*;

/// The adapter (exported as the component's `adapter` interface).
pub struct VueSfc;

/// The top-level `<template>` block, unless it is in another language.
fn template(doc: &Doc) -> Option<usize> {
    let at = doc
        .top
        .iter()
        .copied()
        .find(|&i| doc.nodes[i].kind == NodeKind::Element && doc.nodes[i].tag == "template")?;
    let lang = doc.nodes[at].attributes.iter().find(|a| a.name == "lang");
    lang.is_none_or(|l| l.value == "html").then_some(at)
}

/// The template block, if it spans exactly `span`.
fn template_at(doc: &mut Doc, span: (usize, usize)) -> Option<usize> {
    template(doc).filter(|&i| doc.nodes[i].span == span)
}

impl Adapter for VueSfc {
    fn info() -> AdapterInfo {
        AdapterInfo {
            id: "vue-sfc".into(),
            name: "Vue single-file component".into(),
            family: "vue".into(),
            patterns: vec!["*.vue".into()],
            capabilities: vec!["pull".into(), "push".into()],
            description:
                "Binds the <template> block, read as HTML: {{ }} interpolations are opaque, \
                          elements with directives are unsupported (children editable)."
                    .into(),
        }
    }

    fn detect(path: &str, source: &str, _want: Option<&str>) -> Option<Entrypoint> {
        if !path.to_ascii_lowercase().ends_with(".vue") {
            return None;
        }
        let doc = parse_doc(source, Dialect::Vue).ok()?;
        let (start, end) = doc.nodes[template(&doc)?].span;
        Some(Entrypoint {
            name: "template".into(),
            span: Span {
                start: u32::try_from(start).ok()?,
                end: u32::try_from(end).ok()?,
            },
        })
    }

    fn parse(source: &str, entrypoint: &Entrypoint) -> Result<Graph, Error> {
        let span = webrig_adapter_markup::checked_span(source, entrypoint.span)?;
        let mut doc = parse_doc(source, Dialect::Vue)?;
        let root = template_at(&mut doc, span).ok_or_else(|| {
            Error::InvalidInput(format!(
                "the <template> block does not span {}..{}; was the file changed?",
                span.0, span.1
            ))
        })?;
        graph_of(&doc, root)
    }

    fn emit(source: &str, bound: Span, graph: &Graph) -> Result<SourceEdit, Error> {
        emit_at(source, Dialect::Vue, bound, graph, template_at)
    }
}

#[cfg(target_arch = "wasm32")]
export_adapter!(VueSfc);

#[cfg(test)]
mod tests;
