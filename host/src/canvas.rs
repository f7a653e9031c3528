//! The design canvas: a document of pages, nodes, tokens, assets and
//! viewports, changed only by revisioned patches ([`patch`]), rendered to
//! HTML for a preview in the browser ([`render`]), stored as sorted-key
//! JSON in the user's project folder ([`store`]), and kept in sync with
//! source files through framework adapters ([`code`]): sandboxed
//! components that read a file's text into a graph and write a graph back
//! as an edit the host checks and applies.
//!
//! The project folder is the caller's (the CLI's working directory); the
//! canvas reads and writes there only through [`store`]'s checks.

pub mod code;
pub mod doc;
pub mod patch;
pub mod render;
pub mod seed;
pub mod store;

pub use doc::{Document, Node, NodeKind};
pub use patch::Op;
