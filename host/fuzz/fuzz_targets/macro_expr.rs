//! `@macro` expressions as a user or an agent types them: the parser, then
//! resolving against the first-party packs (arguments bound into rhai).
//! An input `EXPR\n---\nPACK` also loads PACK as the pack `fuzz`, so hostile
//! packs (the size bombs in the seed corpus) are fuzzed too.
//! Any panic or abort is a finding; errors are expected.
#![no_main]

use std::sync::OnceLock;
use std::time::{Duration, Instant};

static MACROS: OnceLock<webrig::macros::Macros> = OnceLock::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let (expr, pack) = match input.split_once("\n---\n") {
        Some((expr, pack)) => (expr, Some(pack)),
        None => (input, None),
    };
    if webrig::macros::parse::parse(expr).is_err() {
        return;
    }
    let macros = MACROS.get_or_init(|| {
        webrig::macros::Macros::new(std::path::PathBuf::from("/nonexistent-webrig-fuzz"))
    });
    let deadline = Instant::now() + Duration::from_millis(200);
    match pack {
        None => drop(macros.resolve(expr, deadline)),
        Some(src) => {
            if let Ok(with) = macros.with_pack_source("fuzz", src) {
                drop(with.resolve(expr, deadline));
            }
        }
    }
});
