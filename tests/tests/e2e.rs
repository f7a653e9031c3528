//! End-to-end suites: the real `webrig` daemon and CLI driving a real Chromium
//! against the fixture web on loopback. One binary, one module per area.

mod e2e {
    pub mod actions;
    pub mod authoring;
    pub mod boundary;
    pub mod capture;
    pub mod cli;
    pub mod doors;
    pub mod load;
    pub mod macros;
    pub mod nav;
    pub mod plugins;
    pub mod providers;
    pub mod read;
    pub mod relay;
    pub mod sessions;
    pub mod snapshot;
    pub mod tabs;
    pub mod workflows;
}

use std::sync::OnceLock;

pub use webrig_tests::{Daemon, FixtureWeb, SessionGuard};

/// The fixture web shared by every test of this binary.
pub fn web() -> &'static FixtureWeb {
    static WEB: OnceLock<FixtureWeb> = OnceLock::new();
    WEB.get_or_init(FixtureWeb::start)
}

pub fn daemon() -> &'static Daemon {
    Daemon::shared()
}

/// A fresh session named after the test, closed when it ends.
#[macro_export]
macro_rules! session {
    () => {{
        fn f() {}
        let name = std::any::type_name_of_val(&f)
            .trim_end_matches("::f")
            .rsplit("::")
            .next()
            .unwrap_or("test")
            .replace('_', "-");
        let name: String = name.chars().take(60).collect();
        $crate::SessionGuard::new($crate::daemon(), &name)
    }};
}
