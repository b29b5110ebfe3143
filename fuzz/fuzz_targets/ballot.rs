//! Any text as a post read for ballots under the five presets' formats.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    bansha_parsers::fuzz::ballot(data);
});
