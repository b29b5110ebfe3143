//! Any bytes as a thread page (desktop HTML, inajax XML or API JSON, sniffed), in any charset.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    bansha_parsers::fuzz::page(data);
});
