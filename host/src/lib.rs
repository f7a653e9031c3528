//! webrig: a browser rig for AI agents. One daemon owns the browser and the
//! security boundary; agents drive it through the CLI, HTTP or MCP.
//!
//! The layers, each importing only the ones below it (`host/tests/layers.rs`
//! checks every `crate::` path against this table):
//!
//! | layer | holds | its one rule |
//! |---|---|---|
//! | [`cli`], [`client`] | the `webrig` command line; the daemon client it and MCP stdio share | parses and prints; every command runs in the daemon |
//! | [`daemon`], [`mcp`] | the doors: TCP, the Unix socket, `/mcp`, the extension's WebSocket, the CDP front end's discovery and WebSockets | who may call and how much; never what a command does |
//! | [`commands`] | the one registry (CLI, HTTP, MCP and `docs/SURFACE.md` come from it) and the scheduler (`commands::dispatch`) | one struct per command; transports never special-case one |
//! | [`rig`] | what every door shares: sessions, tab leases, pairing, CDP tickets, the plugin host's browser bridge | knows no transport |
//! | [`canvas`] | design documents, patches, previews as HTML, code sync through adapters | reads and writes only the caller's project folder, through its checks |
//! | [`workflows`], [`macros`] | workflow runs and their bundles; `@macro(...)` expressions | reach the outside only through providers and the browser bridge |
//! | [`providers`], [`plugins`] | provider calls (retries, breakers, merging); the wasmtime host, WIT bindings per version, grants | a plugin gets only what it was granted |
//! | [`browser`] | Chromium over CDP, the relay to the user's Chrome, the CDP front end a client drives a session through (`front`), the page library | one layer for every transport; knows no command |
//! | [`artifacts`], [`config`], [`error`] | files under the home, limits, grants, the error codes | owner-only files, checked before they are read |

pub mod artifacts;
pub mod browser;
pub mod canvas;
pub mod cli;
pub mod client;
pub mod commands;
pub mod config;
pub mod daemon;
pub mod error;
pub mod macros;
pub mod mcp;
pub mod plugins;
pub mod providers;
pub mod rig;
pub mod workflows;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
