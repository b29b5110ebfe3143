//! The whole service in a deterministic simulator (issue 33): the daemon's cycle, scheduler
//! decisions, record and mail queue run in one thread against a simulated forum, relay,
//! clock and disk (`world`), at simulated time, with faults drawn from the seed at any moment;
//! what it mailed is checked against two oracles that are not the daemon (`game::check`).
//!
//! `BANSHA_SIMD_SEED=123 cargo test --test simd seeds` replays one seed (its trace printed) and
//! shrinks it if it fails; `BANSHA_SIMD_SEEDS=N` runs N seeds from `BANSHA_SIMD_START`
//! (`scripts/sim.sh --service`).

#[path = "../common/mod.rs"]
mod common;
mod game;
#[path = "../sim/gen.rs"]
#[allow(dead_code)]
mod gen;
#[path = "../sim/oracle.rs"]
#[allow(dead_code)]
mod oracle;
#[path = "../sim/run.rs"]
#[allow(dead_code)]
mod run;
mod world;

use std::time::Instant;

/// The seeds every CI run checks: 40 in the optimised build `.ci/run` runs this binary in
/// (`--profile profiling`), 3 in the debug build of the workspace's tests (about 25 s a seed).
const FIXED: std::ops::Range<u64> = if cfg!(debug_assertions) { 1..4 } else { 1..41 };
/// Seeds that once failed, kept as regression cases (in the optimised build CI runs): 183
/// (bansha42: a failed reading of the poll widened the span a vote came in to hold the judge's
/// proxy for the same player; the order is now said to be unknown), 302 (qipan: a machine
/// clock 15 s fast took the final before a message sent 2 s before the forum's close), 1870
/// (qipan: a conversation page served in another charset than declared was read, its ballot
/// garbled away and the conversation marked read), 3079 (bansha42: a proxy typed for a player
/// the judge then confirmed out on an earlier day still counted), 3248 (bansha42: a proxy for a
/// player out already voided its voter's own poll vote), 3799 (chuhan: day 11 confirmed before
/// day 10, whose late result then took day 11's elimination back in a corrected final). Seed 27
/// (jiaohui, in `FIXED`) found a night's changed action to a player out at dusk decided
/// silently (now the judge's reading A-J10, `night_jiaohui::a_change_to_…`). Seed 10 (chuhan,
/// in `FIXED`) sent a mail twice: the server accepted it on a full disk and the record could not
/// say so (`io::store::…a_mail_accepted_on_a_full_disk…`). 6176 (chuhan): a ballot edited after
/// the close, whose read before the edit the full disk lost, is voided (the simulator's truth,
/// fixed there). 6215 (chuhan): night 5, confirmed overdue after day 6, took day 6's vote-out
/// for dead at its dusk (`domain::night::…a_later_days_vote_out_…`). 6685 (chuhan): day 7
/// confirmed while night 6 was open, overdue; night 6 then made day 7's final again without its
/// vote-out, which the state kept: a day now waits for the nights before it. 7277 (chuhan): day
/// 6's run-off, paused over the weekend (000 L155), ran past day 7's close; night 7 was settled
/// before day 6 had a result and night 6 had begun, and killed a player day 6's run-off put out:
/// a night and a day now wait for every earlier night, begun or not. Seed 3 (qipan, in `FIXED`):
/// "移动：东" was left unread (`night::read::…a_move_written_as_the_power_…`). 7604 (chuhan): day
/// 4, nobody out, was confirmed ("局面不变") while day 3's run-off ran; day 3's result and night 3
/// then made day 4's final put a player out, never recorded: a day with nobody out now waits
/// as one that puts someone out does (`daemon confirm_day::a_day_with_nobody_out_…`). 7791
/// (chuhan): the relay refused day 8's round-2 final (554), and the simulator opened night 8 at
/// round 1's close (the simulator's own gap, fixed there). Seed 2 (bansha42, in `FIXED`): the
/// kill-post thread, listed on day 1, was read by no day after it, and every night was drafted
/// and confirmed without its posts: the night now reads it itself and waits for a whole read
/// after its deadline (`daemon night_bansha42::bansha42_the_night_reads_a_kill_thread_…`). Seed
/// 6 (bansha42, in `FIXED`): a post victim voted out in the same round lost his half vote in it
/// when the judge confirmed that vote-out, whose final was then corrected against itself
/// (`night_bansha42::l74_a_post_victim_voted_out_…`). 8439 (bansha42): a post naming no code whose
/// victim is called what a code is was read as the code holder's
/// (`night::kill_posts::…a_victim_named_like_a_code_…`). 10991 (bansha42): a poll's voter list
/// served in another charset than it declares was kept with garbled names as many as the votes,
/// never read again, and day 6's final held for good
/// (`io::forum::…a_voter_list_in_another_charset_than_declared_is_an_error`).
const REGRESSIONS: &[u64] = if cfg!(debug_assertions) {
    &[]
} else {
    &[
        183, 302, 1870, 3079, 3248, 3799, 6176, 6215, 6685, 7277, 7604, 7791, 8439, 10991,
    ]
};
/// New seeds per run, drawn from the clock and printed.
const FRESH: u64 = if cfg!(debug_assertions) { 1 } else { 4 };

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| {
        v.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v} is not a number"))
    })
}

fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    (nanos as u64) % 1_000_000_000_000
}

/// A failing plan made smaller while it still fails: later days dropped, faults and deletions
/// taken out one at a time, then the posts of the failing day's rounds.
fn shrink(
    mut plan: game::Plan,
    day: Option<u32>,
    fails: &dyn Fn(&game::Plan) -> bool,
    budget: u32,
) -> game::Plan {
    let runs = std::cell::Cell::new(0u32);
    let fails = |p: &game::Plan| {
        if runs.get() >= budget {
            return false;
        }
        runs.set(runs.get() + 1);
        fails(p)
    };
    // The days after the failing one cut at once (each day's final is its own), then fewer.
    if let Some(day) = day {
        let mut p = plan.clone();
        p.game.days.truncate(day as usize);
        if fails(&p) {
            plan = p;
        }
    }
    while plan.game.days.len() > 1 {
        let mut p = plan.clone();
        p.game.days.pop();
        if fails(&p) {
            plan = p;
        } else {
            break;
        }
    }
    // Earlier days emptied of posts, one day at a time.
    for i in 0..plan.game.days.len() {
        let mut p = plan.clone();
        p.game.days[i].posts.clear();
        if let Some(r) = &mut p.game.days[i].runoff {
            r.posts.clear();
        }
        if fails(&p) {
            plan = p;
        }
    }
    // No night played.
    if !plan.nights.is_empty() {
        let mut p = plan.clone();
        p.nights.clear();
        if fails(&p) {
            plan = p;
        }
    }
    // No day confirmed by the judge.
    if !plan.confirms.is_empty() {
        let mut p = plan.clone();
        p.confirms.clear();
        if fails(&p) {
            plan = p;
        }
    }
    // The machine's clock with the forum's.
    if plan.machine_skew != 0 {
        let mut p = plan.clone();
        p.machine_skew = 0;
        if fails(&p) {
            plan = p;
        }
    }
    // Fewer faults, fewer deletions.
    let mut i = 0;
    while i < plan.events.len() {
        let mut p = plan.clone();
        p.events.remove(i);
        if fails(&p) {
            plan = p;
        } else {
            i += 1;
        }
    }
    let mut i = 0;
    while i < plan.deletions.len() {
        let mut p = plan.clone();
        p.deletions.remove(i);
        if fails(&p) {
            plan = p;
        } else {
            i += 1;
        }
    }
    let mut i = 0;
    while i < plan.edits.len() {
        let mut p = plan.clone();
        p.edits.remove(i);
        if fails(&p) {
            plan = p;
        } else {
            i += 1;
        }
    }
    // Fewer posts, each day from the last.
    for d in (0..plan.game.days.len()).rev() {
        for two in [false, true] {
            let mut i = 0;
            loop {
                let len = match two {
                    false => plan.game.days[d].posts.len(),
                    true => plan.game.days[d]
                        .runoff
                        .as_ref()
                        .map_or(0, |r| r.posts.len()),
                };
                if i >= len {
                    break;
                }
                let mut p = plan.clone();
                match two {
                    false => {
                        p.game.days[d].posts.remove(i);
                    }
                    true => {
                        p.game.days[d].runoff.as_mut().unwrap().posts.remove(i);
                    }
                }
                if fails(&p) {
                    plan = p;
                } else {
                    i += 1;
                }
            }
        }
    }
    plan
}

/// The day named first in a failing run's report ("day 9 round 1: …").
fn failing_day(why: &str) -> Option<u32> {
    why.split("day ").nth(1)?.split(' ').next()?.parse().ok()
}

fn size(plan: &game::Plan) -> String {
    let posts: usize = plan
        .game
        .days
        .iter()
        .map(|d| d.posts.len() + d.runoff.as_ref().map_or(0, |r| r.posts.len()))
        .sum();
    format!(
        "{} days, {posts} posts, {} deletions, {} fault events, the machine's clock {:+}s",
        plan.game.days.len(),
        plan.deletions.len(),
        plan.events.len(),
        plan.machine_skew
    )
}

/// The whole batch's peak resident set may not pass this (about 50 MiB measured for 40 seeds in
/// the optimised build): memory that grows with cycles, seeds or restarts crosses it.
const PEAK_RSS_KIB: u64 = 400 << 10;

/// `VmHWM` of /proc/self/status (0 where there is none).
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// Run `seeds` with `make` turning a seed into a plan; the first failing seed is shrunk and
/// returned with its report.
fn check(
    seeds: impl Iterator<Item = u64>,
    label: &str,
    make: &dyn Fn(u64) -> game::Plan,
    shrink_budget: u32,
) -> Option<(u64, String)> {
    let start = Instant::now();
    let (mut n, mut days, mut cycles, mut crashes, mut mails, mut finals) =
        (0u64, 0u64, 0, 0, 0, 0);
    let (mut confirmed, mut corrected, mut nights, mut night_deaths, mut entered) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut late_edits = (0u64, 0u64, 0u64);
    let mut pardons = 0u64;
    let mut largest = (0u64, 0usize);
    let mut presets: std::collections::BTreeMap<&str, u64> = Default::default();
    for seed in seeds {
        let plan = make(seed);
        n += 1;
        *presets.entry(plan.game.preset.name()).or_default() += 1;
        days += plan.game.days.len() as u64;
        let first = game::run(&plan);
        cycles += first.cycles;
        crashes += first.crashes;
        mails += first.mails;
        finals += first.finals;
        confirmed += first.confirmed;
        corrected += first.corrected;
        nights += first.nights;
        night_deaths += first.night_deaths;
        entered += first.entered;
        pardons += first.pardons;
        late_edits.0 += first.late_edits.0;
        late_edits.1 += first.late_edits.1;
        late_edits.2 += first.late_edits.2;
        largest = largest.max((first.disk_bytes, plan.game.days.len()));
        if let Some(why) = first.failure {
            let budget = env_u64("BANSHA_SIMD_SHRINK").map_or(shrink_budget, |b| b as u32);
            let small = shrink(
                plan.clone(),
                failing_day(&why),
                &|p| game::run(p).failure.is_some(),
                budget,
            );
            let again = game::run(&small);
            return Some((
                seed,
                format!(
                    "simulator (service): seed {seed} ({label}) fails:\n{why}\n\nshrunk to {}:\n{}\n{}\nreplay: BANSHA_SIMD_SEED={seed} cargo test --test simd seeds -- --nocapture",
                    size(&small),
                    again.trace,
                    again.failure.unwrap_or_default()
                ),
            ));
        }
    }
    let secs = start.elapsed().as_secs_f64();
    // Memory bounded: the process's peak resident set over the whole batch (every seed's
    // service, started and killed many times, in this one process).
    let peak = peak_rss_kib();
    println!(
        "simd {label}: the largest record {} KiB ({} days); the process's peak resident set {} MiB",
        largest.0 / 1024,
        largest.1,
        peak / 1024
    );
    assert!(
        peak <= PEAK_RSS_KIB,
        "simd {label}: the process's peak resident set {peak} KiB is over the bound of {PEAK_RSS_KIB} KiB"
    );
    println!("simd {label}: seeds by preset {presets:?}");
    println!(
        "simd {label}: ballots edited after the close: {} counted as they stood at it, {} voided as first read after the edit ({} rounds where the read before the edit was not kept)",
        late_edits.0, late_edits.1, late_edits.2
    );
    println!(
        "simd {label}: {confirmed} days and {nights} nights confirmed by the judge's clicks ({night_deaths} night deaths as the rule posts give them, {entered} actions the judge entered), {pardons} pardons granted, {corrected} corrected finals"
    );
    // The optimised build's fixed seeds (1–40) confirm some day after a later day's final
    // (the class of `judge_state::a_state_change_after_the_final_…`).
    assert!(
        label != "fixed" || cfg!(debug_assertions) || corrected > 0,
        "simd fixed: no confirmation came after a later day's final"
    );
    assert!(
        label != "fixed"
            || cfg!(debug_assertions)
            || (nights >= 20 && night_deaths >= 10 && entered >= 5 && pardons >= 1),
        "simd fixed: {nights} nights confirmed, {night_deaths} night deaths, {entered} entries, {pardons} pardons"
    );
    println!(
        "simd {label}: {n} seeds, {days} game-days, {cycles} cycles, {crashes} kills, {mails} mails ({finals} finals checked against both oracles) in {secs:.2}s: {:.1} seeds/s, {:.1} game-days/s ({})",
        n as f64 / secs,
        days as f64 / secs,
        if cfg!(debug_assertions) { "debug" } else { "release" }
    );
    None
}

#[test]
fn seeds() {
    if let Some(seed) = env_u64("BANSHA_SIMD_SEED") {
        let out = game::run(&game::plan(seed));
        println!("{}", out.trace);
        if let Some((_, report)) = check(std::iter::once(seed), "replay", &game::plan, 10_000) {
            panic!("{report}");
        }
        return;
    }
    if let Some(n) = env_u64("BANSHA_SIMD_SEEDS") {
        let from = env_u64("BANSHA_SIMD_START").unwrap_or_else(clock_seed);
        println!("simd: seeds {from}..{}", from + n);
        if let Some((_, report)) = check(from..from + n, "batch", &game::plan, 10_000) {
            panic!("{report}");
        }
        return;
    }
    if let Some((_, report)) = check(
        FIXED.chain(REGRESSIONS.iter().copied()),
        "fixed",
        &game::plan,
        10_000,
    ) {
        panic!("{report}");
    }
    let from = clock_seed();
    println!("simd: fresh seeds {from}..{}", from + FRESH);
    if let Some((_, report)) = check(from..from + FRESH, "fresh", &game::plan, 10_000) {
        panic!("{report}");
    }
}

/// CI's fixed seeds (those of the optimised build) play every preset the generator knows.
#[test]
fn the_fixed_seeds_play_every_preset() {
    let played: Vec<gen::Preset> = (1..41).map(|s| game::plan(s).game.preset).collect();
    for p in gen::PRESETS {
        assert!(played.contains(&p), "no {} game in seeds 1–40", p.name());
    }
    // And the judge's doings between days: posts edited before the close, days confirmed
    // after the next day's close.
    let plans: Vec<game::Plan> = (1..41).map(game::plan).collect();
    let edits: usize = plans.iter().map(|p| p.edits.len()).sum();
    assert!(edits >= 10, "{edits} edits in seeds 1–40");
    let late = plans
        .iter()
        .flat_map(|p| p.confirms.iter())
        .filter(|(t, day)| *t > game::close_unix(*day) + 24 * 3600)
        .count();
    assert!(late >= 10, "{late} late confirmations in seeds 1–40");
    // And the nights: chuhan's 帅's kills, the 士's curses and blessings; jiaohui's 异教徒's
    // lists, the 僧侣's prayers, the 十字军剑士's searches; actions the judge enters on the
    // dashboard; some confirmed only after the night's draft waited hours.
    let nights: Vec<&game::NightPlan> = plans.iter().flat_map(|p| p.nights.iter()).collect();
    let said = |w: &str| {
        nights
            .iter()
            .flat_map(|n| n.messages.iter())
            .filter(|m| m.2.starts_with(w))
            .count()
    };
    assert!(nights.len() >= 40, "{} nights in seeds 1–40", nights.len());
    for w in ["杀人", "诅咒", "庇佑", "祈祷"] {
        assert!(said(w) >= 20, "{} {w} in seeds 1–40", said(w));
    }
    assert!(said("搜索") >= 5, "{} 搜索 in seeds 1–40", said("搜索"));
    let entries: usize = nights.iter().map(|n| n.entries.len()).sum();
    assert!(entries >= 10, "{entries} dashboard entries in seeds 1–40");
    let churches = plans.iter().filter(|p| p.church.is_some()).count();
    assert!(
        churches >= 3,
        "{churches} jiaohui games with nights in seeds 1–40"
    );
    // m103's nights, night 0 among them (002 L223 "直接入夜"), every action entered by the judge:
    // kills, 守卫, potions.
    let courts: Vec<&game::Plan> = plans.iter().filter(|p| p.court.is_some()).collect();
    assert!(
        courts.len() >= 3,
        "{} m103 games with nights in seeds 1–40",
        courts.len()
    );
    for (w, least) in [("杀人", 20), ("守卫", 15), ("救药", 5), ("毒药", 3)] {
        assert!(
            entered(&courts, w) >= least,
            "{} {w} entered in seeds 1–40",
            entered(&courts, w)
        );
    }
    assert!(courts
        .iter()
        .all(|p| p.nights.first().is_some_and(|n| n.night == 0)));
    // qipan's nights: the good players' moves in their own words, the killers' moves and kills
    // (003 L24–L46), by private message.
    let boards: Vec<&game::Plan> = plans.iter().filter(|p| p.board.is_some()).collect();
    assert!(
        boards.len() >= 3,
        "{} qipan games with nights in seeds 1–40",
        boards.len()
    );
    let sent = |f: &dyn Fn(&str) -> bool| {
        boards
            .iter()
            .flat_map(|p| p.nights.iter())
            .flat_map(|n| n.messages.iter())
            .filter(|m| f(&m.2))
            .count()
    };
    let (moves, kills) = (
        sent(&|t| !t.starts_with("杀人")),
        sent(&|t| t.starts_with("杀人")),
    );
    assert!(
        moves >= 200 && kills >= 20,
        "{moves} moves, {kills} kills in seeds 1–40"
    );
    assert!(sent(&|t| t.starts_with("移动：")) >= 20);
    // bansha42's nights: kill posts handed in to the game's kill-post thread (004 L60), some on
    // an egg (L22, L24), some from the 交帖 account naming the code (L59), some after the
    // deadline.
    let tables: Vec<&game::Plan> = plans.iter().filter(|p| p.table.is_some()).collect();
    assert!(
        tables.len() >= 3,
        "{} bansha42 games with nights in seeds 1–40",
        tables.len()
    );
    let (mut posts, mut on_egg, mut handed, mut late) = (0, 0, 0, 0);
    for p in &tables {
        let eggs = &p.table.as_ref().unwrap().seats[4..];
        for n in &p.nights {
            let deadline = n.messages.first().map_or(0, |m| m.0) + 15 * 60;
            for (t, from, text) in n.messages.iter().filter(|m| m.2.starts_with("贴杀：")) {
                posts += 1;
                on_egg += usize::from(
                    eggs.iter()
                        .any(|e| text.starts_with(&format!("贴杀：{}\n", e.0))),
                );
                handed += usize::from(from == "交帖口令");
                late += usize::from(*t > deadline);
            }
        }
    }
    assert!(
        posts >= 60 && on_egg >= 10 && handed >= 5 && late >= 3,
        "{posts} kill posts, {on_egg} on an egg, {handed} from the 交帖 account, {late} late in seeds 1–40"
    );
    // And the 巫师's potions, entered by the judge (L16–L17).
    let potion = |w: &str| entered(&tables, w);
    assert!(
        potion("解药") >= 5 && potion("毒药") >= 3,
        "{} 解药, {} 毒药 entered in seeds 1–40",
        potion("解药"),
        potion("毒药")
    );
}

/// The same seed gives the same run, byte for byte.
#[test]
fn a_seed_replays_exactly() {
    for seed in [3, 7] {
        let plan = game::plan(seed);
        let (a, b) = (game::run(&plan), game::run(&plan));
        let first = a.trace.lines().zip(b.trace.lines()).find(|(x, y)| x != y);
        assert!(
            a.trace == b.trace,
            "seed {seed}: two runs differ, first at {first:?}"
        );
        assert!(a.cycles > 0, "seed {seed}: no cycle ran");
    }
}

/// How many seeds the planted-bug test may try for each bug (of those whose plan can show it),
/// and how many runs it may shrink with (fewer in a debug build, where a seed takes seconds).
const PLANT_SEEDS: u64 = 24;
const PLANT_SHRINK_RUNS: u32 = if cfg!(debug_assertions) { 2 } else { 12 };

/// The simulator notices known bugs put back (issue 33, "Done when"): the close's full re-read
/// taken out, the sent journal's reserve step taken out, the lock window a minute short. Each
/// is found within `PLANT_SEEDS` seeds of the fixed set and shrunk.
#[test]
fn planted_bugs_are_caught() {
    type Plant = fn(&mut game::Plan);
    let plants: [(&str, Plant); 3] = [
        ("no full re-read at the close", |p| {
            p.plants.no_close_reread = true
        }),
        ("no sent-journal reserve", |p| {
            p.plants.no_send_reserve = true
        }),
        ("the lock a minute short", |p| p.lock_off_by_one = true),
    ];
    for (name, plant) in plants {
        // The seeds whose plan can show the bug at all: the close's full re-read matters only
        // where a post is deleted in the hour before a close (after the lock's read); qipan's
        // ballots, private messages, are never deleted.
        let can_show = |p: &game::Plan| match name {
            "no full re-read at the close" => p.deletions.iter().any(|(_, t)| {
                game::closes(&p.game)
                    .iter()
                    .any(|c| (c - 3600..*c).contains(t))
            }),
            _ => true,
        };
        let seeds: Vec<u64> = (1u64..)
            .filter(|s| can_show(&game::plan(*s)))
            .take(PLANT_SEEDS as usize)
            .collect();
        let found = check(
            seeds.iter().copied(),
            name,
            &|seed| {
                let mut p = game::plan(seed);
                plant(&mut p);
                p
            },
            PLANT_SHRINK_RUNS,
        );
        let (seed, report) =
            found.unwrap_or_else(|| panic!("planted bug \"{name}\" not found in seeds {seeds:?}"));
        let first = report.lines().nth(1).unwrap_or_default().to_string();
        let shrunk = report
            .lines()
            .find(|l| l.starts_with("shrunk to"))
            .unwrap_or_default()
            .to_string();
        let tried = seeds.iter().position(|s| *s == seed).map_or(0, |i| i + 1);
        println!(
            "simd planted \"{name}\": found at seed {seed}, {tried} tried of {seeds:?} ({first}); {shrunk}"
        );
    }
}

/// How many night actions of power `power` the simulated judge entered in `plans`.
fn entered(plans: &[&game::Plan], power: &str) -> usize {
    plans
        .iter()
        .flat_map(|p| p.nights.iter())
        .flat_map(|n| n.entries.iter())
        .filter(|e| e.2 == power)
        .count()
}
