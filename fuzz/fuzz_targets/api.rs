//! Any bytes as a mobile API answer: thread pages, polls and private messages.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    bansha_parsers::fuzz::api(data);
});
