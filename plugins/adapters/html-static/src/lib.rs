//! The `html-static` adapter: a static HTML page as a canvas.
//!
//! `detect` binds the page's `<body>` element (entrypoint `body`) or, when
//! asked for one, the element with that `id` (entrypoint named by the id).
//! The bound span is the element from the start of its open tag to the end
//! of its close tag. Parsing and emission are the shared markup crate's
//! (HTML dialect): `<script>` and `<style>` inside the body are opaque
//! nodes, kept verbatim. Design tokens are the custom properties of
//! `:root` rules in the page's `<style>` elements ([`tokens`]).

pub mod tokens;

use webrig_adapter_markup::{Dialect, emit_at, graph_of, parse_doc};
use webrig_adapter_sdk::Adapter;
#[cfg(target_arch = "wasm32")]
use webrig_adapter_sdk::export_adapter;
use webrig_adapter_sdk::types::*;

/// The adapter (exported as the component's `adapter` interface).
pub struct HtmlStatic;

/// Whether `path` names a file this adapter reads.
fn reads(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".html") || lower.ends_with(".htm")
}

/// The element `detect` binds: `<body>`, or the element whose `id` is
/// `want` (`want` = `body` means the body).
fn bound_element(doc: &webrig_adapter_markup::Doc, want: Option<&str>) -> Option<usize> {
    let order = doc.preorder();
    match want {
        None | Some("body") => order
            .into_iter()
            .find(|&i| doc.nodes[i].kind == NodeKind::Element && doc.nodes[i].tag == "body"),
        Some(id) => order.into_iter().find(|&i| {
            doc.nodes[i].kind == NodeKind::Element
                && doc.nodes[i]
                    .attributes
                    .iter()
                    .any(|a| a.name.eq_ignore_ascii_case("id") && a.value == id)
        }),
    }
}

impl Adapter for HtmlStatic {
    fn info() -> AdapterInfo {
        AdapterInfo {
            id: "html-static".into(),
            name: "Static HTML".into(),
            family: "html".into(),
            patterns: vec!["*.html".into(), "*.htm".into()],
            capabilities: vec![
                "pull".into(),
                "push".into(),
                "tokens".into(),
                "preview".into(),
            ],
            description:
                "Binds a page's <body> (or an element by id); pushes keep unchanged markup \
                          byte for byte; tokens are :root custom properties in <style>."
                    .into(),
        }
    }

    fn detect(path: &str, source: &str, want: Option<&str>) -> Option<Entrypoint> {
        if !reads(path) {
            return None;
        }
        let doc = parse_doc(source, Dialect::Html).ok()?;
        let at = bound_element(&doc, want)?;
        let (start, end) = doc.nodes[at].span;
        Some(Entrypoint {
            name: want.unwrap_or("body").to_string(),
            span: Span {
                start: u32::try_from(start).ok()?,
                end: u32::try_from(end).ok()?,
            },
        })
    }

    fn parse(source: &str, entrypoint: &Entrypoint) -> Result<Graph, Error> {
        let span = webrig_adapter_markup::checked_span(source, entrypoint.span)?;
        let doc = parse_doc(source, Dialect::Html)?;
        let root = doc.element_at(span).ok_or_else(|| {
            Error::InvalidInput(format!(
                "no element spans {}..{} (entrypoint {:?}); was the file changed?",
                span.0, span.1, entrypoint.name
            ))
        })?;
        graph_of(&doc, root)
    }

    fn emit(source: &str, bound: Span, graph: &Graph) -> Result<SourceEdit, Error> {
        emit_at(source, Dialect::Html, bound, graph, |doc, span| {
            doc.element_at(span)
        })
    }

    fn read_tokens(source: &str) -> Result<Vec<Token>, Error> {
        tokens::read(source)
    }

    fn emit_tokens(source: &str, tokens: &[Token]) -> Result<SourceEdit, Error> {
        tokens::emit(source, tokens)
    }
}

#[cfg(target_arch = "wasm32")]
export_adapter!(HtmlStatic);

#[cfg(test)]
mod tests;
