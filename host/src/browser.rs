//! The browser layer: CDP connections, sessions, tabs, navigation, reading,
//! acting and capture, and the page library that runs in every frame
//! (`browser/page/*.js`). Written once against a CDP session, whatever
//! carries it: a launched browser's pipe (through its keeper) or the
//! extension relay to the user's own Chrome. It knows no command and no
//! transport.

pub mod actions;
pub mod annotate;
pub mod capture;
pub mod cdp;
pub mod cookie;
pub mod devtools;
pub mod frames;
pub mod front;
pub mod guard;
pub mod hosts;
pub mod keeper;
pub mod keys;
pub mod launch;
pub mod locate;
pub mod nav;
pub mod policy;
pub mod pool;
pub mod proxy;
pub mod read;
pub mod relay;
pub mod session;
pub mod sessions_json;
pub mod shared;
pub mod signals;
pub mod snapshot;
pub mod tab;

pub use session::{SessionState, SharedSession};
pub use tab::Tab;
