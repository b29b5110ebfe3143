//! Any text as a day thread's first post read for its vote deadline.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    bansha_parsers::fuzz::deadline(data);
});
