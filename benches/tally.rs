//! Tally throughput: the captured day-2 vote thread (37 posts) under its game config, and a
//! thread of 10,000 ballot posts (the captured posts repeated with new pids and later times,
//! as a long game's busiest thread might be). `cargo bench --bench tally`.

use bansha::domain::rules::tally;
use bansha_parsers::{parse_thread_page, ParseOptions, Post};
use chrono::Duration;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::path::Path;

fn captured() -> Vec<Post> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/discuz/desktop/guest");
    (1..=4)
        .flat_map(|p| {
            let bytes =
                std::fs::read(root.join(format!("viewthread_tid3_vote_p{p}.html"))).unwrap();
            parse_thread_page(&bytes, None, &ParseOptions::default())
                .unwrap()
                .posts
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let game = bansha::io::files::load_game(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("config/examples/banshayishi-12.toml"),
    )
    .unwrap();
    let posts = captured();
    let close = game.day(2).unwrap().closes_at;
    let mut big = Vec::new();
    for i in 0..(10_000 / posts.len() + 1) {
        for p in &posts {
            let mut q = p.clone();
            q.pid += 1000 * i as u64;
            q.posted_at = q
                .posted_at
                .map(|t| t - Duration::days(3) + Duration::seconds(i as i64));
            big.push(q);
        }
    }
    big.truncate(10_000);
    let mut group = c.benchmark_group("tally");
    group.throughput(Throughput::Elements(posts.len() as u64));
    group.bench_function("captured_thread_37_posts", |b| {
        b.iter(|| tally(&game, 2, 1, close, &posts).unwrap())
    });
    group.throughput(Throughput::Elements(big.len() as u64));
    group.bench_function("thread_10000_posts", |b| {
        b.iter(|| tally(&game, 2, 1, close, &big).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
