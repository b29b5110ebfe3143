//! The simulator over the pure tally (issue 33, first piece): seeded games on m103, chuhan,
//! jiaohui, qipan (ballots by private message) and bansha42 (the forum's poll, as bansha reads
//! it, and the judge's proxies), each day's tally checked against an independent oracle,
//! failing seeds replayed and shrunk. See README "Simulator".
//!
//! `BANSHA_SIM_SEED=123 cargo test --test sim` replays one seed (and shrinks it if it fails);
//! `BANSHA_SIM_SEEDS=N` (scripts/sim.sh --seeds N) runs N seeds from `BANSHA_SIM_START`.

mod gen;
mod oracle;
mod run;
mod shrink;

use std::time::Instant;

/// The seeds every CI run checks. Seed 3 (qipan) found a defect, fixed in the tally: a free-
/// worded "我投李逵，理由是跟票" was void, its reasoning cut to one character (`tests/rules_qipan.rs`).
/// Seeds 2 and 24 (bansha42) found three: a player who proxied could not change through the
/// judge, a proxy at 20:40:00 itself counted, a ballot posted in the thread after the close
/// spared its author the suicide (`tests/rules_bansha42.rs`).
const FIXED: std::ops::Range<u64> = 1..101;
/// Seeds that once failed, kept: 100155 (an oracle error, fixed in the oracle: a second ballot
/// while one stands is a change, whatever its wording; chuhan, day 14, round 2); 216077 (an
/// oracle error: bansha42, a proxy entered again for the same target moved when its vote
/// arrived; the tally keeps it, `tests/rules_bansha42.rs`).
const REGRESSIONS: [u64; 2] = [100155, 216077];
/// New seeds per run, drawn from the clock and printed.
const FRESH: u64 = 6;

/// Run `seeds`; on the first failure, shrink it and panic with the replay command.
fn check(seeds: impl Iterator<Item = u64>, label: &str) {
    let start = Instant::now();
    let (mut n, mut days, mut judged, mut outcomes, mut runoffs) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for seed in seeds {
        let game = gen::generate(seed);
        days += game.days.len() as u64;
        n += 1;
        let first = run::run(&game);
        judged += first.judged;
        outcomes += first.outcomes;
        runoffs += first.runoffs;
        let again = run::run(&gen::generate(seed));
        assert!(
            first.trace == again.trace,
            "seed {seed}: the same seed gave two different traces"
        );
        if let Some((day, round, why)) = first.failure {
            let small = shrink::shrink(game, day, round, &why);
            let out = run::run(&small);
            panic!(
                "simulator: seed {seed} fails on day {day}, round {round}:\n{why}\n\nshrunk to day {} with {} posts:\n{}\n{}\nreplay: BANSHA_SIM_SEED={seed} cargo test --test sim",
                small.days.last().map_or(0, |d| d.day),
                small.days.last().map_or(0, |d| d.posts.len() + d.runoff.as_ref().map_or(0, |r| r.posts.len())),
                out.trace,
                out.failure.map(|f| f.2).unwrap_or_default(),
            );
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!("sim {label}: the oracle judged the counts of {judged} rounds ({days} days, {runoffs} run-offs) and the outcome of {outcomes}");
    println!(
        "sim {label}: {n} seeds, {days} game-days in {secs:.2}s: {:.1} seeds/s, {:.0} game-days/s ({}; each seed generated and run twice, for the determinism check)",
        n as f64 / secs,
        days as f64 / secs,
        if cfg!(debug_assertions) { "debug" } else { "release" }
    );
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| {
        v.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v} is not a number"))
    })
}

#[test]
fn seeds() {
    if let Some(seed) = env_u64("BANSHA_SIM_SEED") {
        println!("{}", run::run(&gen::generate(seed)).trace);
        return check(std::iter::once(seed), "replay");
    }
    if let Some(n) = env_u64("BANSHA_SIM_SEEDS") {
        let from = env_u64("BANSHA_SIM_START").unwrap_or_else(clock_seed);
        println!("sim: seeds {from}..{}", from + n);
        return check(from..from + n, "batch");
    }
    check(FIXED.chain(REGRESSIONS), "fixed");
    let from = clock_seed();
    println!("sim: fresh seeds {from}..{}", from + FRESH);
    check(from..from + FRESH, "fresh");
}

fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    (nanos as u64) % 1_000_000_000_000
}

/// The generator covers what it promises: over the fixed seeds, every preset, 1 and 15 days, and
/// every kind of post the oracle judges.
#[test]
fn generator_covers_the_kinds() {
    use gen::{Intent, Target};
    let games: Vec<gen::Game> = FIXED.map(gen::generate).collect();
    for p in gen::PRESETS {
        assert!(games.iter().any(|g| g.preset == p), "no {} game", p.name());
    }
    assert!(games.iter().any(|g| g.days.len() == 1) && games.iter().any(|g| g.days.len() == 15));
    let posts: Vec<&gen::GenPost> = games
        .iter()
        .flat_map(|g| g.days.iter().flat_map(|d| d.posts.iter()))
        .collect();
    let has = |f: &dyn Fn(&gen::GenPost) -> bool| posts.iter().any(|p| f(p));
    assert!(has(&|p| matches!(
        p.intent,
        Intent::Vote(Target::Player(_))
    ) && p.secs < -3600));
    assert!(has(&|p| matches!(p.intent, Intent::Vote(Target::Abstain))));
    assert!(has(&|p| p.intent == Intent::Malformed));
    assert!(
        has(&|p| matches!(p.intent, Intent::Vote(_)) && p.secs > 0),
        "late"
    );
    assert!(
        has(&|p| matches!(p.intent, Intent::Change(_)) && (-3600..=0).contains(&p.secs)),
        "in the lock"
    );
    assert!(
        has(&|p| matches!(p.intent, Intent::Change(_)) && p.secs == -3600),
        "at the lock's edge"
    );
    assert!(
        has(&|p| p.intent == Intent::Chatter && p.quote.is_some()),
        "quotes of ballots"
    );
    assert!(
        has(&|p| gen::OUTSIDERS.contains(&p.author.as_str())),
        "non-players"
    );
    assert!(
        games.iter().any(|g| g
            .days
            .iter()
            .any(|d| d.posts.iter().any(|p| d.dead.contains(&p.author)))),
        "dead voters"
    );
    assert!(
        games
            .iter()
            .any(|g| g.days.iter().any(|d| d.runoff.is_some())),
        "run-offs"
    );
    // bansha42: poll votes by the dead, ballots in the thread, proxies and a proxy's change
    // through the judge, half voters, an overtime.
    let b42: Vec<&gen::Game> = games
        .iter()
        .filter(|g| g.preset == gen::Preset::Bansha42)
        .collect();
    let b42_days = || b42.iter().flat_map(|g| g.days.iter());
    assert!(
        b42_days().any(|d| d
            .posts
            .iter()
            .any(|p| d.dead.contains(&p.author) && matches!(p.intent, Intent::Poll(_)))),
        "dead voters in the poll"
    );
    assert!(b42_days().any(|d| d
        .posts
        .iter()
        .any(|p| matches!(p.intent, Intent::InThread(_)))));
    assert!(
        b42_days().any(|d| {
            let proxies: Vec<&str> = d
                .posts
                .iter()
                .filter(|p| matches!(p.intent, Intent::Proxy(_)))
                .map(|p| p.author.as_str())
                .collect();
            proxies
                .iter()
                .enumerate()
                .any(|(i, a)| proxies[..i].contains(a))
        }),
        "a proxy's change"
    );
    assert!(b42_days().any(|d| !d.half.is_empty()), "half voters");
    assert!(
        b42_days().any(|d| d.runoff.as_ref().is_some_and(|r| r.places.is_some())),
        "an overtime"
    );
    // Second changes: a voter with two change posts in a day.
    assert!(games.iter().any(|g| g.days.iter().any(|d| {
        let mut c = std::collections::BTreeMap::<&str, u32>::new();
        for p in d
            .posts
            .iter()
            .filter(|p| matches!(p.intent, Intent::Change(_)))
        {
            *c.entry(p.author.as_str()).or_default() += 1;
        }
        c.values().any(|n| *n >= 2)
    })));
}

/// The shrinker keeps a failure and makes it smaller: a game failing on a predicate shrinks to
/// the one post that makes it fail.
#[test]
fn shrink_finds_the_smallest_case() {
    let game = (1..100)
        .map(gen::generate)
        .find(|g| g.days.len() >= 3 && g.days[2].posts.len() > 5)
        .unwrap();
    let culprit = game.days[2].posts[3].pid;
    let small = shrink::shrink_by(game, 3, &|g: &gen::Game| {
        g.days
            .last()
            .is_some_and(|d| d.posts.iter().any(|p| p.pid == culprit))
    });
    assert_eq!(small.days.len(), 3);
    assert!(small.days[..2].iter().all(|d| d.posts.is_empty()));
    assert_eq!(small.days[2].posts.len(), 1);
}
