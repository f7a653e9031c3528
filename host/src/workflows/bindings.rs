//! Host bindings of world `workflow-plugin` (wit/v0.2.0). Its 0.1.0
//! imports (http, cache, config, log, browser) are the provider world's own
//! bindings, so one implementation serves both worlds.

use wasmtime::component::{HasSelf, Linker};

use crate::plugins::engine::CallState;
use crate::plugins::host::HostState;

wasmtime::component::bindgen!({
    world: "workflow-plugin",
    path: "../wit/v0.2.0",
    with: {
        "webrig:plugin/types@0.1.0": crate::plugins::engine::webrig::plugin::types,
        "webrig:plugin/http@0.1.0": crate::plugins::engine::webrig::plugin::http,
        "webrig:plugin/cache@0.1.0": crate::plugins::engine::webrig::plugin::cache,
        "webrig:plugin/config@0.1.0": crate::plugins::engine::webrig::plugin::config,
        "webrig:plugin/log@0.1.0": crate::plugins::engine::webrig::plugin::log,
        "webrig:plugin/browser@0.1.0": crate::plugins::engine::webrig::plugin::browser,
    },
});

pub use self::exports::webrig::plugin0_2_0::workflow as guest;
pub use self::webrig::plugin0_2_0::{artifacts, design, progress, runtime, types};

/// Adds the 0.2.0 interfaces to a linker that has the 0.1.0 ones already
/// (the provider world's).
pub fn add_to_linker(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
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
