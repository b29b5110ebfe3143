//! Parse the given pages over and over for a few seconds (for `perf record`):
//! `cargo run -p bansha-parsers --profile profiling --example parse_loop -- SECONDS FILES...`
use bansha_parsers::{parse_thread_page, ParseOptions};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let secs: f64 = args[1].parse().unwrap();
    let pages: Vec<Vec<u8>> = args[2..]
        .iter()
        .map(|f| std::fs::read(f).unwrap())
        .collect();
    let opts = ParseOptions::default();
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed().as_secs_f64() < secs {
        for p in &pages {
            let page = parse_thread_page(p, None, &opts).unwrap();
            std::hint::black_box(page);
            n += 1;
        }
    }
    println!("{:.0} pages/s", n as f64 / start.elapsed().as_secs_f64());
}
