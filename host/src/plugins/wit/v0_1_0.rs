//! WIT 0.1.0 (`wit/v0.1.0/plugin.wit`): the provider world. Its imports
//! (`types`, `http`, `cache`, `config`, `log`, `browser`) are implemented
//! once, on [`HostState`] in [`crate::plugins::host`]; later versions that
//! import them unchanged map them here (bindgen `with:`).
//!
//! The package also defines a `workflow-plugin` world (superseded by 0.2.0
//! before any plugin used it) and an `adapter-plugin` world; this host runs
//! neither, and the table says so.

use wasmtime::component::{HasSelf, Linker};

use super::{Release, Support, Version};
use crate::plugins::engine::CallState;
use crate::plugins::host::HostState;
use crate::plugins::manifest::Kind;

wasmtime::component::bindgen!({
    world: "provider-plugin",
    path: "../wit/v0.1.0",
});

pub use self::exports::webrig::plugin::provider as guest;
pub use self::webrig::plugin::{browser, cache, config, http, log, types};

pub const VERSION: Version = Version::new(0, 1, 0);

/// This version's row of [`super::RELEASES`].
pub const RELEASE: Release = Release {
    version: VERSION,
    worlds: &[
        (Kind::Provider, Support::Runs(bind)),
        (
            Kind::Workflow,
            Support::Not("superseded by WIT 0.2.0 before any plugin used it"),
        ),
        (
            Kind::Adapter,
            Support::Not("superseded by WIT 0.3.0's adapter world before any plugin used it"),
        ),
    ],
    add_to_linker,
};

/// Adds the 0.1.0 imports (the provider world's).
fn add_to_linker(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    ProviderPlugin::add_to_linker::<CallState, HasSelf<HostState>>(linker, |s| &mut s.host)
}

fn bind(pre: wasmtime::component::InstancePre<CallState>) -> wasmtime::Result<super::Loaded> {
    Ok(super::Loaded::Provider(super::ProviderPre::V0_1_0(
        ProviderPluginPre::new(pre)?,
    )))
}
