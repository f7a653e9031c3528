//! webrig: a browser rig for AI agents. One daemon owns the browser and the
//! security boundary; agents drive it through the CLI or the HTTP API.

pub mod artifacts;
pub mod browser;
pub mod cli;
pub mod commands;
pub mod config;
pub mod daemon;
pub mod error;
pub mod macros;
pub mod mcp;
pub mod plugins;
pub mod providers;
pub mod workflows;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
