//! The `svelte-sfc` adapter: a Svelte component's markup as a canvas.
//!
//! There is no maintained Svelte parser in Rust to build on, so this is an
//! HTML parse of the component (the shared markup crate, Svelte dialect)
//! with Svelte's syntax recognised and kept, not modelled: `{expr}`,
//! `{@html …}` and whole `{#if}…{/if}`, `{#each}…{/each}`, `{#await}`,
//! `{#key}` blocks are opaque nodes (a block's inner markup is not
//! editable); an element with a directive (`on:`, `bind:`, `use:`,
//! `class:`, any `x:y` attribute), a `{…}` attribute value or a `{…}`
//! shorthand/spread is unsupported, its reason naming it (its tag and
//! attributes cannot change; its children stay editable); capitalised tags
//! are components; `svelte:*` elements are unsupported. Limits: braces are
//! matched with simple string skipping (a regex literal holding `}` can
//! confuse it), and entities are decoded as HTML does.
//!
//! The entrypoint is `markup`: the span from the first top-level node that
//! is not `<script>` or `<style>` to the end of the last one. The graph's
//! root is a tagless fragment over that span (kind element, tag `markup`,
//! no attributes) whose children are the top-level nodes in it; a
//! `<script>` or `<style>` between them is an opaque child.

use webrig_adapter_markup::{Dialect, Doc, emit_at, graph_of, parse_doc};
use webrig_adapter_sdk::Adapter;
#[cfg(target_arch = "wasm32")]
use webrig_adapter_sdk::export_adapter;
use webrig_adapter_sdk::types::*;

/// The adapter (exported as the component's `adapter` interface).
pub struct SvelteSfc;

/// The root fragment's tag.
pub const FRAGMENT: &str = "markup";

/// The top-level nodes of the markup and its span.
fn markup(doc: &Doc) -> Option<(Vec<usize>, (usize, usize))> {
    let is_markup = |i: &usize| {
        let n = &doc.nodes[*i];
        !(n.kind == NodeKind::Opaque && (n.tag == "script" || n.tag == "style"))
    };
    let first = doc.top.iter().position(is_markup)?;
    let last = doc.top.iter().rposition(is_markup)?;
    let kids = doc.top[first..=last].to_vec();
    let span = (
        doc.nodes[kids[0]].span.0,
        doc.nodes[kids[kids.len() - 1]].span.1,
    );
    Some((kids, span))
}

/// Adds the markup fragment to `doc` if it spans exactly `span`.
fn fragment_at(doc: &mut Doc, span: (usize, usize)) -> Option<usize> {
    let (kids, at) = markup(doc)?;
    (at == span).then(|| doc.add_fragment(FRAGMENT, kids, at))
}

impl Adapter for SvelteSfc {
    fn info() -> AdapterInfo {
        AdapterInfo {
            id: "svelte-sfc".into(),
            name: "Svelte component".into(),
            family: "svelte".into(),
            patterns: vec!["*.svelte".into()],
            capabilities: vec!["pull".into(), "push".into()],
            description: "Binds the markup outside <script> and <style>, read as HTML: {expr} and \
                          {#…} blocks are opaque, elements with directives are unsupported."
                .into(),
        }
    }

    fn detect(path: &str, source: &str, _want: Option<&str>) -> Option<Entrypoint> {
        if !path.to_ascii_lowercase().ends_with(".svelte") {
            return None;
        }
        let doc = parse_doc(source, Dialect::Svelte).ok()?;
        let (_, (start, end)) = markup(&doc)?;
        Some(Entrypoint {
            name: "markup".into(),
            span: Span {
                start: u32::try_from(start).ok()?,
                end: u32::try_from(end).ok()?,
            },
        })
    }

    fn parse(source: &str, entrypoint: &Entrypoint) -> Result<Graph, Error> {
        let span = webrig_adapter_markup::checked_span(source, entrypoint.span)?;
        let mut doc = parse_doc(source, Dialect::Svelte)?;
        let root = fragment_at(&mut doc, span).ok_or_else(|| {
            Error::InvalidInput(format!(
                "the markup does not span {}..{}; was the file changed?",
                span.0, span.1
            ))
        })?;
        graph_of(&doc, root)
    }

    fn emit(source: &str, bound: Span, graph: &Graph) -> Result<SourceEdit, Error> {
        emit_at(source, Dialect::Svelte, bound, graph, fragment_at)
    }
}

#[cfg(target_arch = "wasm32")]
export_adapter!(SvelteSfc);

#[cfg(test)]
mod tests;
