//! Guest SDK for webrig framework adapters.
//!
//! It owns the bindings to `webrig:plugin@0.3.0` (world `adapter-plugin`),
//! so an adapter is an [`Adapter`] impl plus [`export_adapter!`]. The host
//! reads and writes every file; an adapter sees only the text it is handed
//! and answers a typed graph or a source edit.
//!
//! ```ignore
//! use webrig_adapter_sdk::{export_adapter, Adapter, types::*};
//! struct Mine;
//! impl Adapter for Mine { /* … */ }
//! #[cfg(target_arch = "wasm32")]
//! export_adapter!(Mine);
//! ```

wit_bindgen::generate!({
    world: "adapter-plugin",
    path: "../../wit/v0.3.0",
    pub_export_macro: true,
    default_bindings_module: "webrig_adapter_sdk",
    export_macro_name: "export_bindings",
    generate_all,
});

/// The WIT records and error type, under short names.
pub mod types {
    pub use crate::webrig::plugin0_1_0::types::Error;
    pub use crate::webrig::plugin0_3_0::graph::{
        AdapterInfo, Attribute, Declaration, Entrypoint, Graph, Node, NodeKind, SourceEdit, Span,
        Token,
    };
}

use types::*;

/// What an adapter implements (the WIT `adapter` interface).
pub trait Adapter {
    fn info() -> AdapterInfo;
    fn detect(path: &str, source: &str, want: Option<&str>) -> Option<Entrypoint>;
    fn parse(source: &str, entrypoint: &Entrypoint) -> Result<Graph, Error>;
    fn emit(source: &str, bound: Span, graph: &Graph) -> Result<SourceEdit, Error>;
    /// Default: this adapter has no tokens.
    fn read_tokens(_source: &str) -> Result<Vec<Token>, Error> {
        Err(Error::Unsupported("this adapter reads no tokens".into()))
    }
    /// Default: this adapter writes no tokens.
    fn emit_tokens(_source: &str, _tokens: &[Token]) -> Result<SourceEdit, Error> {
        Err(Error::Unsupported("this adapter writes no tokens".into()))
    }
}

/// Exports an [`Adapter`] as the component's `adapter` interface. Export
/// only for wasm32 in a `cdylib` + `rlib` crate (see the workflow SDK).
#[macro_export]
macro_rules! export_adapter {
    ($ty:ident) => {
        impl $crate::exports::webrig::plugin0_3_0::adapter::Guest for $ty {
            fn describe() -> $crate::types::AdapterInfo {
                <$ty as $crate::Adapter>::info()
            }
            fn detect(
                path: ::std::string::String,
                source: ::std::string::String,
                want: ::core::option::Option<::std::string::String>,
            ) -> ::core::option::Option<$crate::types::Entrypoint> {
                <$ty as $crate::Adapter>::detect(&path, &source, want.as_deref())
            }
            fn parse(
                source: ::std::string::String,
                entrypoint: $crate::types::Entrypoint,
            ) -> ::core::result::Result<$crate::types::Graph, $crate::types::Error> {
                <$ty as $crate::Adapter>::parse(&source, &entrypoint)
            }
            fn emit(
                source: ::std::string::String,
                bound: $crate::types::Span,
                graph: $crate::types::Graph,
            ) -> ::core::result::Result<$crate::types::SourceEdit, $crate::types::Error> {
                <$ty as $crate::Adapter>::emit(&source, bound, &graph)
            }
            fn read_tokens(
                source: ::std::string::String,
            ) -> ::core::result::Result<::std::vec::Vec<$crate::types::Token>, $crate::types::Error>
            {
                <$ty as $crate::Adapter>::read_tokens(&source)
            }
            fn emit_tokens(
                source: ::std::string::String,
                tokens: ::std::vec::Vec<$crate::types::Token>,
            ) -> ::core::result::Result<$crate::types::SourceEdit, $crate::types::Error> {
                <$ty as $crate::Adapter>::emit_tokens(&source, &tokens)
            }
        }
        $crate::export_bindings!($ty with_types_in $crate);
    };
}

/// Logs through the host (`log` import); natively, to stderr.
pub fn log(message: &str) {
    #[cfg(target_arch = "wasm32")]
    webrig::plugin0_1_0::log::log(webrig::plugin0_1_0::log::Level::Info, message);
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!("{message}");
}

/// A node with only the required parts set; fill the rest.
pub fn node(id: u32, kind: NodeKind, tag: &str) -> Node {
    Node {
        id,
        kind,
        tag: tag.into(),
        attributes: Vec::new(),
        text: String::new(),
        style: Vec::new(),
        token_refs: Vec::new(),
        children: Vec::new(),
        span: None,
        unsupported: None,
    }
}

/// The `--name`s of `var(--name…)` in a CSS value, in order, once each.
pub fn token_refs(value: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = value;
    while let Some(at) = rest.find("var(") {
        rest = &rest[at + 4..];
        let inner = rest.trim_start();
        if let Some(name) = inner.strip_prefix("--") {
            let end = name
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .unwrap_or(name.len());
            let token = format!("--{}", &name[..end]);
            if end > 0 && !out.contains(&token) {
                out.push(token);
            }
        }
    }
    out
}

/// An inline style's declarations (`color: red; margin: 0`), in order.
pub fn parse_style(style: &str) -> Vec<Declaration> {
    style
        .split(';')
        .filter_map(|d| {
            let (p, v) = d.split_once(':')?;
            let (p, v) = (p.trim(), v.trim());
            (!p.is_empty()).then(|| Declaration {
                property: p.to_string(),
                value: v.to_string(),
            })
        })
        .collect()
}

/// Declarations back to an inline style.
pub fn style_text(style: &[Declaration]) -> String {
    style
        .iter()
        .map(|d| format!("{}: {}", d.property, d.value))
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_refs_are_found_once_in_order() {
        assert_eq!(
            token_refs("var(--a) calc(var( --b-2, 1px) + var(--a))"),
            vec!["--a", "--b-2"]
        );
        assert!(token_refs("red").is_empty());
    }

    #[test]
    fn styles_round_trip() {
        let s = parse_style("color: red; margin:0 ;;");
        assert_eq!(s.len(), 2);
        assert_eq!(style_text(&s), "color: red; margin: 0");
    }
}
