//! The browser layer: CDP connections, sessions, tabs, navigation, reading and
//! capture. Written once against a CDP session, whatever carries it (a launched
//! browser's WebSocket today, the extension relay later).

pub mod actions;
pub mod bindings;
pub mod capture;
pub mod cdp;
pub mod devtools;
pub mod frames;
pub mod keeper;
pub mod keys;
pub mod launch;
pub mod locate;
pub mod nav;
pub mod read;
pub mod relay;
pub mod session;
pub mod snapshot;
pub mod tab;

pub use session::{SessionState, SharedSession};
pub use tab::Tab;
