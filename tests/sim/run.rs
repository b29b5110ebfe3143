//! One simulated game: its config and posts handed to the tally, the tally's result checked
//! against the oracle and the invariants, and a trace of everything (the same seed must give
//! the same trace, byte for byte).

use crate::gen::{Day, Game, GenPost, Intent, Preset, JUDGE, PLAYERS};
use crate::oracle::{self, Counted};
use bansha::domain::config::GameConfig;
use bansha::domain::rules::tally::Source;
use bansha::domain::rules::{OutcomeKind, Tally};
use bansha_parsers::{Post, Quote};
use chrono::{DateTime, Duration, FixedOffset};
use std::fmt::Write;

/// Day 1 closes at this time; each day two days after the one before (room for a run-off of
/// 24 hours, 000 L105).
const FIRST_CLOSE: &str = "2026-12-01T21:00:00+08:00";

pub fn close_of(day: u32) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(FIRST_CLOSE).unwrap() + Duration::days(2 * (day as i64 - 1))
}

/// When round 2 of `day` closes: a run-off's day later, bansha42's overtime 15 minutes later.
pub fn runoff_close_of(preset: Preset, day: u32) -> DateTime<FixedOffset> {
    close_of(day) + Duration::seconds(preset.runoff_secs())
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn config_text(game: &Game) -> String {
    let mut s = format!(
        "ruleset = \"{}\"\nname = \"模拟局\"\nutc_offset = \"+08:00\"\n[roster]\nplayers = [{}]\njudges = [\"{JUDGE}\"]\n",
        game.preset.name(),
        quoted(&PLAYERS.iter().map(|p| p.to_string()).collect::<Vec<_>>())
    );
    for d in &game.days {
        let _ = write!(
            s,
            "\n[[days]]\nday = {}\ncloses_at = \"{}\"\ndead = [{}]\n",
            d.day,
            close_of(d.day).format("%Y-%m-%d %H:%M:%S"),
            quoted(&d.dead)
        );
        if game.preset == Preset::Qipan {
            // Ballots by private message have no thread to tell their day by: the judge types
            // when the day opens (9:00, 003 L96), and a message before it is too early, however
            // soon after the day before closed.
            let _ = writeln!(
                s,
                "opens_at = \"{}\"",
                (close_of(d.day) - Duration::seconds(crate::gen::QIPAN_DAY_SECS))
                    .format("%Y-%m-%d %H:%M:%S")
            );
        }
        if let Some(sh) = &d.sheriff {
            let _ = writeln!(s, "sheriff = \"{sh}\"");
        }
        if !d.half.is_empty() {
            let _ = writeln!(s, "half_voters = [{}]", quoted(&d.half));
        }
        // A confirmed night's 诅咒 / 庇佑 (one 左士, one 右士: one of each at most).
        for (p, by) in &d.adjust {
            let key = if *by > 0 { "curse" } else { "bless" };
            let _ = writeln!(s, "{key} = \"{p}\"");
        }
        if let Some(r) = &d.runoff {
            let places = r
                .places
                .map(|p| format!(", eliminate = {p}"))
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "runoff = {{ closes_at = \"{}\", candidates = [{}]{places} }}",
                runoff_close_of(game.preset, d.day).format("%Y-%m-%d %H:%M:%S"),
                quoted(&r.candidates)
            );
        }
        // The judge's proxies (004 L76 托票), typed as they come in.
        for p in d
            .posts
            .iter()
            .filter(|p| matches!(p.intent, Intent::Proxy(_)))
        {
            let Intent::Proxy(t) = &p.intent else {
                continue;
            };
            let _ = write!(
                s,
                "[[days.proxies]]\nvoter = \"{}\"\ntarget = \"{}\"\nat = \"{}\"\n",
                p.author,
                t.name(),
                (close_of(d.day) + Duration::seconds(p.secs)).format("%Y-%m-%d %H:%M:%S")
            );
        }
    }
    s
}

/// The poll votes of one round as bansha first saw them (bansha42): each vote at the first
/// reading at or after it was cast.
pub fn casts_of(
    close: DateTime<FixedOffset>,
    posts: &[GenPost],
    readings: &[i64],
) -> Vec<bansha::domain::rules::tally::Cast> {
    let at = |secs: i64| close + Duration::seconds(secs);
    posts
        .iter()
        .filter_map(|p| {
            let Intent::Poll(ts) = &p.intent else {
                return None;
            };
            let (seen, since) = crate::gen::seen(readings, p.secs)?;
            Some(bansha::domain::rules::tally::Cast {
                voter: p.author.clone(),
                targets: ts.iter().map(|t| t.name().to_string()).collect(),
                at: at(seen),
                since: since.map(at),
            })
        })
        .collect()
}

pub fn load(game: &Game) -> GameConfig {
    bansha::domain::game::load_str(&config_text(game), std::path::Path::new("sim.toml"))
        .unwrap_or_else(|e| {
            panic!(
                "seed {}: the simulated config does not load: {e:?}",
                game.seed
            )
        })
}

pub fn post_of(day: u32, close: DateTime<FixedOffset>, g: &GenPost) -> Post {
    let mut p = Post::text_only(
        g.pid,
        100 + day as u64,
        format!("{}#", g.pid % 1000),
        g.author.clone(),
        Some(close + Duration::seconds(g.secs)),
        g.text.clone(),
    );
    p.quotes = g
        .quote
        .iter()
        .map(|(pid, author, text, _)| Quote {
            author: Some(author.clone()),
            pid: Some(*pid),
            posted_at: None,
            text: text.clone(),
        })
        .collect();
    p
}

/// The private messages of a qipan game (003 L106 "只允许用站内短信的方式私下通知法官"): every
/// post of every round, sent at its time; the judge's own are his replies.
pub fn messages_of(game: &Game) -> Vec<bansha_parsers::pm::PrivateMessage> {
    let mut out = Vec::new();
    for d in &game.days {
        let rounds = [
            Some((&d.posts, close_of(d.day))),
            d.runoff
                .as_ref()
                .map(|r| (&r.posts, runoff_close_of(game.preset, d.day))),
        ];
        for (posts, close) in rounds.into_iter().flatten() {
            for g in posts {
                out.push(message_of(close, g));
            }
        }
    }
    out
}

pub fn message_of(close: DateTime<FixedOffset>, g: &GenPost) -> bansha_parsers::pm::PrivateMessage {
    bansha_parsers::pm::PrivateMessage {
        pmid: g.pid,
        plid: Some(crate::gen::uid_of(&g.author)),
        from_uid: Some(crate::gen::uid_of(&g.author)),
        from: g.author.clone(),
        to_uid: Some(2),
        sent_at: Some(close + Duration::seconds(g.secs)),
        precision: bansha_parsers::TimePrecision::Second,
        text: g.text.clone(),
    }
}

/// What one run found: the trace, and the first failure if any (day, message).
pub struct Outcome {
    pub trace: String,
    /// (day, round, what failed).
    pub failure: Option<(u32, u32, String)>,
    /// Rounds whose counts the oracle judged, of them whose outcome it judged too, and how many
    /// were run-offs.
    pub judged: u64,
    pub outcomes: u64,
    pub runoffs: u64,
}

fn kind_name(k: OutcomeKind) -> String {
    serde_json::to_value(k)
        .unwrap()
        .as_str()
        .unwrap_or("?")
        .to_string()
}

/// The tally's view of the day, in the oracle's shape.
fn as_counted(t: &Tally) -> Counted {
    let ballots = t
        .ballots
        .iter()
        .filter(|b| b.counted)
        .map(|b| {
            (
                b.voter.clone(),
                (
                    b.pid.unwrap_or(0),
                    if b.targets.is_empty() {
                        b.target.clone().unwrap_or_default()
                    } else {
                        b.targets.join("、")
                    },
                ),
            )
        })
        .collect();
    let counts = t
        .counts
        .iter()
        .filter(|c| c.votes != 0.0)
        .map(|c| (c.target.clone(), c.votes))
        .collect();
    let mut players = t.outcome.players.clone();
    players.sort();
    Counted {
        ballots,
        counts,
        abstain: t.abstain_votes(),
        total: t.total_votes,
        // bansha42 L72: a ballot posted in the thread is void, and no suicide.
        non_voters: t
            .non_voters
            .iter()
            .map(|n| match n.consequence.contains("不算自杀") {
                true => format!("{}（版面投票，不算自杀）", n.player),
                false => n.player.clone(),
            })
            .collect(),
        outcome: Some((kind_name(t.outcome.kind), players)),
        unmodeled: None,
        decided: {
            let mut d = t.outcome.decided.clone();
            d.sort();
            d
        },
    }
}

/// A vote count for comparing (sums of 1 and 1.5 are exact; -0 is 0).
fn num(x: f64) -> String {
    format!("{:.3}", x + 0.0)
}

fn nums(m: &std::collections::BTreeMap<String, f64>) -> String {
    m.iter().map(|(k, v)| format!("{k}={} ", num(*v))).collect()
}

/// Every disagreement between the oracle and the tally, and every broken invariant.
pub fn compare(day: &crate::gen::Day, posts: &[GenPost], want: &Counted, t: &Tally) -> Vec<String> {
    let got = as_counted(t);
    let mut bad = Vec::new();
    if !t.closed {
        bad.push("the tally after the close is not closed".into());
    }
    // Every post that is a ballot by a non-judge has a verdict, and so has a living player's
    // post whose only ballot is a quoted well-formed one ("只引用了别人的投票").
    for p in posts {
        let quotes_ballot = p.quote.as_ref().is_some_and(|q| q.3);
        let living = PLAYERS.contains(&p.author.as_str()) && !day.dead.contains(&p.author);
        let needs = p.author != JUDGE && (p.intent != Intent::Chatter || (living && quotes_ballot));
        // A poll vote or a proxy has no post: its verdict is the voter's (bansha42).
        let has = match &p.intent {
            Intent::Poll(_) => {
                t.ballots
                    .iter()
                    .any(|b| b.source == Source::Poll && b.voter == p.author)
                    || t.ignored
                        .iter()
                        .any(|i| i.floor == "投票机" && i.author == p.author)
            }
            Intent::Proxy(_) => t
                .ballots
                .iter()
                .any(|b| b.source == Source::Judge && b.voter == p.author),
            _ => {
                t.ballots.iter().any(|b| b.pid == Some(p.pid))
                    || t.ignored.iter().any(|i| i.pid == p.pid)
            }
        };
        if needs && !has {
            bad.push(format!("post {} ({}) has no verdict", p.pid, p.author));
        }
    }
    if want.unmodeled.is_some() {
        return bad;
    }
    for (what, w, g) in [
        (
            "counted ballots",
            format!("{:?}", want.ballots),
            format!("{:?}", got.ballots),
        ),
        ("counts", nums(&want.counts), nums(&got.counts)),
        ("abstentions", num(want.abstain), num(got.abstain)),
        ("total", num(want.total), num(got.total)),
        (
            "non-voters",
            format!("{:?}", want.non_voters),
            format!("{:?}", got.non_voters),
        ),
    ] {
        if w != g {
            bad.push(format!("{what}: oracle {w}, tally {g}"));
        }
    }
    if let Some(o) = &want.outcome {
        if Some(o) != got.outcome.as_ref() || want.decided != got.decided {
            bad.push(format!(
                "outcome: oracle {o:?} (decided {:?}), tally {:?} (decided {:?})",
                want.decided, got.outcome, got.decided
            ));
        }
    }
    bad
}

fn trace_round(out: &mut String, round: u32, posts: &[GenPost], want: &Counted) {
    let _ = writeln!(out, " round {round}");
    for p in posts {
        let q = p
            .quote
            .as_ref()
            .map(|(pid, a, t, _)| format!(" quotes {pid}({a}: {})", t.replace('\n', "⏎")))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {} {:+}s {} {:?}{q} | {}",
            p.pid,
            p.secs,
            p.author,
            p.intent,
            p.text.replace('\n', "⏎")
        );
    }
    let _ = writeln!(out, "  oracle: {want:?}");
}

/// One round of one day: the tally of the thread (both rounds' posts) three hours after the
/// round's close, against the oracle; the trace written, the failures returned.
fn round(
    config: &GameConfig,
    game: &Game,
    day: &Day,
    round: u32,
    trace: &mut String,
) -> (Vec<String>, Counted) {
    let (want, posts, close) = match round {
        1 => (
            oracle::count(game.preset, day),
            &day.posts,
            close_of(day.day),
        ),
        _ => {
            let r = day.runoff.as_ref().expect("a run-off");
            let want = oracle::count_runoff(game.preset, day).expect("a run-off");
            (want, &r.posts, runoff_close_of(game.preset, day.day))
        }
    };
    trace_round(trace, round, posts, &want);
    // bansha42's poll votes and proxies are no posts (`casts_of`, the config's proxies).
    let in_thread = |g: &&GenPost| !matches!(g.intent, Intent::Poll(_) | Intent::Proxy(_));
    let mut thread: Vec<Post> = day
        .posts
        .iter()
        .filter(in_thread)
        .map(|g| post_of(day.day, close_of(day.day), g))
        .collect();
    if let Some(r) = &day.runoff {
        thread.extend(
            r.posts
                .iter()
                .filter(in_thread)
                .map(|g| post_of(day.day, runoff_close_of(game.preset, day.day), g)),
        );
    }
    let casts = match (game.preset, &day.runoff) {
        (Preset::Bansha42, Some(r)) if round == 2 => casts_of(close, &r.posts, &r.readings),
        (Preset::Bansha42, _) => casts_of(close, &day.posts, &day.readings),
        _ => Vec::new(),
    };
    if game.preset == Preset::Bansha42 {
        let readings = match (round, &day.runoff) {
            (2, Some(r)) => &r.readings,
            _ => &day.readings,
        };
        let _ = writeln!(trace, "  readings {readings:?} half {:?}", day.half);
    }
    if game.preset == Preset::Qipan {
        // The judge's inbox holds the whole game's messages; the day's are picked from it as
        // the daemon picks them.
        let d = config
            .days
            .iter()
            .find(|d| d.day == day.day)
            .expect("the day's config");
        thread = bansha::domain::rules::channels::pm_posts(config, d, &messages_of(game));
    }
    let now = close + Duration::hours(3);
    let got = std::panic::catch_unwind(|| {
        bansha::domain::rules::tally::tally_with(config, day.day, round, now, &thread, &casts)
    });
    let bad = match got {
        Err(_) => vec!["the tally panicked".to_string()],
        Ok(Err(e)) => vec![format!("the tally refused: {e}")],
        Ok(Ok(t)) => {
            let c = as_counted(&t);
            let _ = writeln!(trace, "  tally: {} {:?}", nums(&c.counts), c.outcome);
            if game.preset == Preset::Bansha42 {
                // When each count was reached, as the tally orders a tie (004 L79).
                let reached: Vec<String> = t
                    .counts
                    .iter()
                    .map(|x| {
                        format!(
                            "{}@{:?}",
                            x.target,
                            x.reached_at.map(|r| r.format("%H:%M:%S").to_string())
                        )
                    })
                    .collect();
                let _ = writeln!(trace, "   reached {}", reached.join(" "));
            }
            for b in t.ballots.iter().filter(|b| !b.counted) {
                let _ = writeln!(trace, "   {:?} {}: {}", b.pid, b.voter, b.reason);
            }
            compare(day, posts, &want, &t)
        }
    };
    (bad, want)
}

/// Run the game: every round of every day against the oracle.
pub fn run(game: &Game) -> Outcome {
    let config = load(game);
    let mut trace = format!(
        "seed {} preset {} days {}\n",
        game.seed,
        game.preset.name(),
        game.days.len()
    );
    let mut failure = None;
    let (mut judged, mut outcomes, mut runoffs) = (0, 0, 0);
    for day in &game.days {
        let _ = writeln!(
            trace,
            "day {} dead={:?} sheriff={:?}",
            day.day, day.dead, day.sheriff
        );
        let rounds = if day.runoff.is_some() { 2 } else { 1 };
        for r in 1..=rounds {
            let (bad, want) = round(&config, game, day, r, &mut trace);
            if want.unmodeled.is_none() {
                judged += 1;
                runoffs += (r == 2) as u64;
                outcomes += want.outcome.is_some() as u64;
            }
            if !bad.is_empty() && failure.is_none() {
                failure = Some((day.day, r, bad.join("\n")));
            }
        }
    }
    Outcome {
        trace,
        failure,
        judged,
        outcomes,
        runoffs,
    }
}
