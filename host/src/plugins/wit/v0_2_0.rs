//! WIT 0.2.0 (`wit/v0.2.0/workflow.wit`): the workflow world. It imports
//! 0.1.0's `types`, `http`, `cache`, `config`, `log` and `browser`
//! unchanged (through `deps/plugin-0.1.0`), so those map to the 0.1.0
//! bindings (`with:`) and one implementation serves both versions. Its own
//! interfaces (`types`, `runtime`, `artifacts`, `progress`, `design`) are
//! implemented by the workflow runner (`crate::workflows`), on
//! [`HostState`].

use wasmtime::component::{HasSelf, Linker};

use super::{Release, Support, Version};
use crate::plugins::engine::CallState;
use crate::plugins::host::HostState;
use crate::plugins::manifest::Kind;

wasmtime::component::bindgen!({
    world: "workflow-plugin",
    path: "../wit/v0.2.0",
    with: {
        "webrig:plugin/types@0.1.0": crate::plugins::wit::v0_1_0::types,
        "webrig:plugin/http@0.1.0": crate::plugins::wit::v0_1_0::http,
        "webrig:plugin/cache@0.1.0": crate::plugins::wit::v0_1_0::cache,
        "webrig:plugin/config@0.1.0": crate::plugins::wit::v0_1_0::config,
        "webrig:plugin/log@0.1.0": crate::plugins::wit::v0_1_0::log,
        "webrig:plugin/browser@0.1.0": crate::plugins::wit::v0_1_0::browser,
    },
});

pub use self::exports::webrig::plugin0_2_0::workflow as guest;
pub use self::webrig::plugin0_2_0::{artifacts, design, progress, runtime, types};

pub const VERSION: Version = Version::new(0, 2, 0);

/// This version's row of [`super::RELEASES`].
pub const RELEASE: Release = Release {
    version: VERSION,
    worlds: &[(Kind::Workflow, Support::Runs(bind))],
    add_to_linker,
};

/// Adds the interfaces 0.2.0 adds; the 0.1.0 ones it imports are 0.1.0's
/// (added by its row).
fn add_to_linker(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    fn host(s: &mut CallState) -> &mut HostState {
        &mut s.host
    }
    types::add_to_linker::<CallState, HasSelf<HostState>>(linker, host)?;
    runtime::add_to_linker::<CallState, HasSelf<HostState>>(linker, host)?;
    artifacts::add_to_linker::<CallState, HasSelf<HostState>>(linker, host)?;
    progress::add_to_linker::<CallState, HasSelf<HostState>>(linker, host)?;
    design::add_to_linker::<CallState, HasSelf<HostState>>(linker, host)?;
    Ok(())
}

fn bind(pre: wasmtime::component::InstancePre<CallState>) -> wasmtime::Result<super::Loaded> {
    Ok(super::Loaded::Workflow(super::WorkflowPre::V0_2_0(
        WorkflowPluginPre::new(pre)?,
    )))
}
