//! `@macro` expressions as a user or an agent types them: the parser, then
//! resolving against the first-party packs (arguments bound into rhai).
//! Any panic is a finding; errors are expected.
#![no_main]

use std::sync::OnceLock;
use std::time::{Duration, Instant};

static MACROS: OnceLock<webrig::macros::Macros> = OnceLock::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(expr) = std::str::from_utf8(data) else {
        return;
    };
    if webrig::macros::parse::parse(expr).is_err() {
        return;
    }
    let macros = MACROS.get_or_init(|| {
        webrig::macros::Macros::new(std::path::PathBuf::from("/nonexistent-webrig-fuzz"))
    });
    let _ = macros.resolve(expr, Instant::now() + Duration::from_millis(200));
});
