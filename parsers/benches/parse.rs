//! Parsing throughput on the captured pages: every desktop thread page and every API v4/v1
//! thread page of both forums. `cargo bench -p bansha-parsers` prints time per batch; the
//! throughput lines give MB/s (criterion's "thrpt") and the batch size gives pages/s.

use bansha_parsers::{parse_thread_page, ParseOptions};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::path::{Path, PathBuf};

fn pages(sub: &str, ext: &str) -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let mut out = Vec::new();
    for forum in ["discuz", "discuz-gbk"] {
        let mut stack: Vec<PathBuf> = vec![root.join(forum).join(sub)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                if p.is_dir() {
                    // API v3 answers with error pages on this forum.
                    if !name.starts_with("v3") && name != "variants" && name != "touch_html" {
                        stack.push(p);
                    }
                } else if name.starts_with("viewthread_") && name.ends_with(ext) {
                    out.push(std::fs::read(p).unwrap());
                }
            }
        }
    }
    assert!(!out.is_empty(), "no fixtures under {sub}");
    out
}

fn bench(c: &mut Criterion) {
    let opts = ParseOptions::default();
    for (name, batch) in [
        ("desktop_html", pages("desktop", ".html")),
        ("api_json", pages("mobile", ".json")),
    ] {
        let bytes: usize = batch.iter().map(Vec::len).sum();
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_function(
            format!("{} pages, {} KiB", batch.len(), bytes / 1024),
            |b| {
                b.iter(|| {
                    let mut posts = 0;
                    for page in &batch {
                        posts += parse_thread_page(page, None, &opts)
                            .map(|p| p.posts.len())
                            .unwrap_or(0);
                    }
                    posts
                })
            },
        );
        group.finish();
    }
}

/// Word counting throughput on the five seed texts (75 KB of mixed Chinese and Western text).
fn bench_wordcount(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/seeds");
    let mut text = String::new();
    for e in std::fs::read_dir(&root).unwrap().flatten() {
        text.push_str(&std::fs::read_to_string(e.path()).unwrap());
    }
    let mut group = c.benchmark_group("wordcount");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function(format!("seeds, {} KiB", text.len() / 1024), |b| {
        b.iter(|| bansha_parsers::wordcount::count(&text).words)
    });
    group.bench_function("figures with repetition", |b| {
        b.iter(|| bansha_parsers::wordcount::figures(&text, &[]).repeated_words)
    });
    group.finish();
}

criterion_group!(benches, bench, bench_wordcount);
criterion_main!(benches);
