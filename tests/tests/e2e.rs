//! End-to-end suites: the real `webrig` daemon and CLI driving a real Chromium
//! against the fixture web on loopback. One binary, one module per area.

mod e2e {
    pub mod actions;
    pub mod annotate;
    pub mod authoring;
    pub mod canvas;
    pub mod canvas_adapters;
    pub mod capture;
    pub mod cdp;
    pub mod cli;
    pub mod cli_help;
    pub mod contexts;
    pub mod devtools;
    pub mod files;
    pub mod hardening;
    pub mod honest;
    pub mod inputs;
    pub mod locators;
    pub mod logins;
    pub mod macros;
    pub mod mcp;
    pub mod mcp_http;
    pub mod nav;
    pub mod plugin_install;
    pub mod policy;
    pub mod polyglot;
    pub mod pool;
    pub mod providers;
    pub mod proxy;
    pub mod read;
    pub mod relay;
    pub mod relay_door;
    pub mod sandbox;
    pub mod secrets;
    pub mod security_api;
    pub mod security_local;
    pub mod sessions;
    pub mod setup;
    pub mod signals;
    pub mod snapshot;
    pub mod tabs;
    pub mod widgets;
    pub mod wit_versions;
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

/// The user's browser, with the extension paired to the shared daemon
/// (once per test binary).
pub fn user_browser() -> &'static webrig_tests::user_browser::UserBrowser {
    static USER: OnceLock<webrig_tests::user_browser::UserBrowser> = OnceLock::new();
    USER.get_or_init(|| {
        let user = webrig_tests::user_browser::UserBrowser::start();
        let code = daemon().ok("default", "pair", serde_json::json!({}));
        user.pair(daemon().port(), code["code"].as_str().expect("code"));
        user
    })
}

/// A session of the shared daemon bound to the user's browser through the
/// extension, with one tab of its own.
pub fn relay_session(name: &str) -> SessionGuard<'static> {
    user_browser();
    let s = SessionGuard::new(daemon(), name);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    // The extension may still be (re)connecting.
    loop {
        let r = s.cmd("connect", serde_json::json!({ "extension": true }));
        if r["ok"] == true {
            break;
        }
        assert!(
            std::time::Instant::now() < until,
            "connect --extension: {r}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    s.ok("tab_new", serde_json::json!({}));
    s
}

/// A test body run against both transports: a browser webrig launched
/// (`NAME::direct`) and the user's own browser through the extension relay
/// (`NAME::relay`). One suite, two transports: the browser layer must not
/// tell them apart.
#[macro_export]
macro_rules! both_transports {
    ($name:ident, |$s:ident| $body:block) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            fn body($s: $crate::SessionGuard<'_>) $body

            fn name(prefix: &str) -> String {
                let n = format!("{prefix}{}", stringify!($name).replace('_', "-"));
                n.chars().take(60).collect()
            }

            #[test]
            fn direct() {
                body($crate::SessionGuard::new($crate::daemon(), &name("")));
            }

            #[test]
            fn relay() {
                body($crate::relay_session(&name("relay-")));
            }
        }
    };
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
