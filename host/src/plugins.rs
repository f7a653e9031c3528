//! The plugin host: manifests, grants, the wasmtime engine and the host
//! imports. Plugins are WebAssembly components behind `wit/v0.1.0`; they get
//! only what their manifest asked for and the user granted.

pub mod engine;
pub mod grants;
pub mod host;
pub mod manifest;
pub mod registry;
