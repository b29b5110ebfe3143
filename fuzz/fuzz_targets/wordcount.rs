//! Any text counted the way Word counts it, with quotes and repeated sentences.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    bansha_parsers::fuzz::wordcount(data);
});
