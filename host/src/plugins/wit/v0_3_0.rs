//! WIT 0.3.0 (`wit/v0.3.0/adapter.wit`): the adapter world. It imports
//! 0.1.0's `types` and `log` unchanged (through `deps/plugin-0.1.0`), so
//! those map to the 0.1.0 bindings (`with:`). Its own `graph` interface
//! holds only types; the adapter exports `adapter`, which the canvas calls
//! through [`crate::plugins::adapter`].

use wasmtime::component::{HasSelf, Linker};

use super::{Release, Support, Version};
use crate::plugins::engine::CallState;
use crate::plugins::host::HostState;
use crate::plugins::manifest::Kind;

wasmtime::component::bindgen!({
    world: "adapter-plugin",
    path: "../wit/v0.3.0",
    with: {
        "webrig:plugin/types@0.1.0": crate::plugins::wit::v0_1_0::types,
        "webrig:plugin/log@0.1.0": crate::plugins::wit::v0_1_0::log,
    },
});

pub use self::exports::webrig::plugin0_3_0::adapter as guest;
pub use self::webrig::plugin0_3_0::graph;

pub const VERSION: Version = Version::new(0, 3, 0);

/// This version's row of [`super::RELEASES`]: it defines only the adapter
/// world (providers stay on 0.1.0, workflows on 0.2.0).
pub const RELEASE: Release = Release {
    version: VERSION,
    worlds: &[(Kind::Adapter, Support::Runs(bind))],
    add_to_linker,
};

/// Adds the interface 0.3.0 defines (`graph`, types only); `log` and
/// `types` are 0.1.0's, added by its row.
fn add_to_linker(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    graph::add_to_linker::<CallState, HasSelf<HostState>>(linker, |s| &mut s.host)
}

impl graph::Host for HostState {}

fn bind(pre: wasmtime::component::InstancePre<CallState>) -> wasmtime::Result<super::Loaded> {
    Ok(super::Loaded::Adapter(super::AdapterPre::V0_3_0(
        AdapterPluginPre::new(pre)?,
    )))
}
