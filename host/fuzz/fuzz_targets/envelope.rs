//! Request bytes as the daemon receives them: envelope, command lookup,
//! arguments, and the parsers behind them. Any panic is a finding.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = webrig::commands::check_request(data);
});
