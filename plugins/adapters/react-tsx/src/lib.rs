//! The React TSX/JSX adapter: binds the JSX an exported function component
//! returns to the design canvas and writes canvas edits back as JSX.
//!
//! It reads with oxc's TSX parser ([`source`]), finds the bound component
//! ([`detect`]), reads its JSX into a graph ([`read`]) and prints a graph
//! back, keeping the source text of every node that did not change
//! ([`emit`]). It never touches files: the host hands it text.
//!
//! How JSX maps to the graph (the contract the host re-checks on push):
//! - a lowercase tag (`div`, `my-el`) is an `element`; `className` is the
//!   attribute `class`, `htmlFor` is `for`; other string attributes keep
//!   their names; a bare attribute (`disabled`) has the value "".
//! - `style={{ marginTop: 8 }}` with literal values is the element's
//!   `style` (`margin-top: 8px`): keys become CSS names, numbers get `px`
//!   as React adds it (not on unitless properties such as `opacity`,
//!   `z-index`, `flex-grow`, nor on 0) ([`style`]).
//! - text follows React's whitespace rules ([`text`]): text that is only
//!   whitespace with a line break is dropped, lines are trimmed and joined
//!   by one space; entities are decoded.
//! - a capitalized or member tag (`<Card>`, `<ui.Button>`) is a
//!   `component`, and a fragment (`<>…</>`) a `component` with the tag ""
//!   (both "not edited inside": no children in the graph).
//! - `{expr}` children are `opaque` ("an expression"; `{/* … */}` is "a
//!   comment"), their source as their text.
//! - an element with a spread, an event handler or any non-literal
//!   attribute or style keeps its literal parts and is `unsupported`,
//!   naming what it cannot model; its own parts cannot be changed, its
//!   children can.
//!
//! Printed text escapes `{`, `}`, `<`, `>` and `&` as character references
//! (`&#123;`), not as `{"{"}`: an expression container would read back as
//! an opaque child, not as the text. Line breaks and tabs inside a text
//! are written `&#10;` and `&#9;` so React's whitespace rules keep them.

pub mod detect;
pub mod emit;
pub mod read;
pub mod source;
pub mod style;
pub mod text;

#[cfg(target_arch = "wasm32")]
use webrig_adapter_sdk::export_adapter;
use webrig_adapter_sdk::{Adapter, types::*};

/// The adapter (exported as the component's `adapter` interface).
pub struct ReactTsx;

impl Adapter for ReactTsx {
    fn info() -> AdapterInfo {
        AdapterInfo {
            id: "react-tsx".into(),
            name: "React TSX".into(),
            family: "react".into(),
            patterns: vec!["*.tsx".into(), "*.jsx".into()],
            capabilities: vec!["pull".into(), "push".into()],
            description: "The JSX an exported React function component returns: intrinsic \
                          elements, literal attributes and inline styles, text; components, \
                          fragments and expressions kept as they are."
                .into(),
        }
    }

    fn detect(path: &str, source: &str, want: Option<&str>) -> Option<Entrypoint> {
        let lower = path.to_ascii_lowercase();
        if !(lower.ends_with(".tsx") || lower.ends_with(".jsx")) {
            return None;
        }
        detect::detect(source, want)
    }

    fn parse(source: &str, entrypoint: &Entrypoint) -> Result<Graph, Error> {
        read::parse(source, entrypoint.span)
    }

    fn emit(source: &str, bound: Span, graph: &Graph) -> Result<SourceEdit, Error> {
        emit::emit(source, bound, graph)
    }
}

#[cfg(target_arch = "wasm32")]
export_adapter!(ReactTsx);
