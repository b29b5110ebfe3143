//! bansha42 (42-player game, seed 004): every vote rule of the seed, as a case. The game votes
//! in the forum's poll (L72), which shows who chose what but never when: the cases give the
//! readings the daemon would make (each with the votes new since the reading before) and the
//! rules see when each vote was first seen. The captured poll goes through `bansha tally`.

mod common;
use common::{run_cases, Case, Pages, Reading};

const SEED: &str = "004_bansha42.txt";
const AFTER: &str = "2026-11-29 21:30";

const DAY1: &str =
    "[[days]]\nday = 1\nvote_thread = 5\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n";
const DAY2: &str =
    "[[days]]\nday = 2\nvote_thread = 5\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n";

fn r(at: &'static str, new: Vec<(&'static str, Vec<&'static str>)>) -> Reading {
    Reading { at, new }
}

/// One vote per reading, in this order, a minute apart from 10:00.
fn one_by_one(votes: Vec<(&'static str, Vec<&'static str>)>) -> Pages {
    const AT: [&str; 8] = [
        "2026-11-29 10:00:00",
        "2026-11-29 10:01:00",
        "2026-11-29 10:02:00",
        "2026-11-29 10:03:00",
        "2026-11-29 10:04:00",
        "2026-11-29 10:05:00",
        "2026-11-29 10:06:00",
        "2026-11-29 10:07:00",
    ];
    let mut readings = vec![r("2026-11-29 09:55:00", vec![])];
    for (i, v) in votes.into_iter().enumerate() {
        readings.push(r(AT[i], vec![v]));
    }
    Pages::Poll(readings)
}

/// Day 2 (two votes each): 李逵 3 (at 10:03), 冷雪 3 (10:04), 小飞 3 (10:05), 超人 2, 不见 1.
fn two_votes() -> Pages {
    one_by_one(vec![
        ("大灰狼", vec!["李逵", "小飞"]),
        ("小飞", vec!["李逵", "冷雪"]),
        ("李逵", vec!["小飞", "冷雪"]),
        ("花千树", vec!["李逵", "不见"]),
        ("不见", vec!["超人", "冷雪"]),
        ("冷雪", vec!["小飞", "超人"]),
    ])
}

#[test]
fn bansha42() {
    run_cases(&[
        Case {
            name: "round 1: one vote each, one out; two options in round 1 are void",
            seed: (SEED, 30, "第一轮：杀1人。票1出1"),
            ruleset: "bansha42",
            config: DAY1,
            pages: one_by_one(vec![
                ("大灰狼", vec!["李逵"]),
                ("小飞", vec!["李逵"]),
                ("李逵", vec!["小飞"]),
                ("花千树", vec!["李逵", "小飞"]),
            ]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.void_of("花千树", "选了 2 项，每人只有 1 票");
                assert_eq!(g.json["threshold"]["eliminate"], 1);
                assert_eq!(g.json["ballots"][0]["source"], "poll");
                g.assert_outcome("eliminated", &["李逵"]);
            },
        },
        Case {
            name: "rounds 2–4: two votes each, four out, later arrivals first among the tied",
            seed: (SEED, 31, "第二轮：杀8人。票2出4"),
            ruleset: "bansha42",
            config: DAY2,
            pages: two_votes(),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!((g.votes("李逵"), g.votes("冷雪"), g.votes("小飞"), g.votes("超人")), (3.0, 3.0, 3.0, 2.0));
                g.assert_outcome("eliminated", &["小飞", "冷雪", "李逵", "超人"]);
            },
        },
        Case {
            name: "one vote of two is still a valid ballot",
            seed: (SEED, 73, "如当轮投两票，投一票也有效"),
            ruleset: "bansha42",
            config: DAY2,
            pages: one_by_one(vec![("大灰狼", vec!["李逵"])]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert!(g.verdict_of("大灰狼").0);
                assert_eq!(g.votes("李逵"), 1.0);
            },
        },
        Case {
            name: "two votes for the same player count as one (a proxy can name one twice)",
            seed: (SEED, 73, "同票作一票计"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 2\nvote_thread = 5\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n[[days.proxies]]\nvoter = \"大灰狼\"\ntarget = \"李逵 李逵\"\nat = \"2026-11-29 10:00:00\"\n",
            pages: Pages::Poll(vec![]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.votes("李逵"), 1.0);
                assert!(g.verdict_of("大灰狼").0);
            },
        },
        Case {
            name: "more options than votes is void",
            seed: (SEED, 33, "第四轮：杀8人。票2出4"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 4\nvote_thread = 5\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n",
            pages: one_by_one(vec![("大灰狼", vec!["李逵", "小飞", "冷雪"])]),
            day: 4,
            round: 1,
            at: Some(AFTER),
            check: |g| g.void_of("大灰狼", "选了 3 项，每人只有 2 票"),
        },
        Case {
            name: "rounds 5–6: three out",
            seed: (SEED, 34, "第五轮：杀6人。票2出3"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 5\nvote_thread = 5\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n",
            pages: two_votes(),
            day: 5,
            round: 1,
            at: Some(AFTER),
            check: |g| g.assert_outcome("eliminated", &["小飞", "冷雪", "李逵"]),
        },
        Case {
            name: "round 7: two out",
            seed: (SEED, 36, "第七轮：杀4人。票2出2"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 7\nvote_thread = 5\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n",
            pages: two_votes(),
            day: 7,
            round: 1,
            at: Some(AFTER),
            check: |g| g.assert_outcome("eliminated", &["小飞", "冷雪"]),
        },
        Case {
            name: "a living player with no vote by the close commits suicide",
            seed: (SEED, 73, "逾期不投票的判为自杀"),
            ruleset: "bansha42",
            config: DAY2,
            pages: two_votes(),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.non_voter("雪罂子").as_deref(), Some("未投票，按自杀出局"));
                assert_eq!(g.non_voter("大灰狼"), None);
            },
        },
        Case {
            name: "the poll decides: a vote first seen after the close counts, noted when it appeared after a reading past the close",
            seed: (SEED, 77, "投票截止时间：以投票机能投票为准，数据以投票机统计的为准"),
            ruleset: "bansha42",
            config: DAY1,
            pages: Pages::Poll(vec![
                r("2026-11-29 21:00:00", vec![]),
                r("2026-11-29 21:00:30", vec![("雪罂子", vec!["李逵"])]),
            ]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.votes("李逵"), 1.0);
                assert_eq!(g.non_voter("雪罂子"), None, "a vote in the poll is not a suicide");
                let (valid, why) = g.verdict_of("雪罂子");
                assert!(valid, "{why}");
                assert!(why.contains("以投票机为准计入"), "{why}");
            },
        },
        Case {
            name: "the readings at the close failed: the vote first seen after it is not late, and not noted as after it",
            seed: (SEED, 77, "以投票机能投票为准"),
            ruleset: "bansha42",
            config: DAY1,
            pages: Pages::Poll(vec![
                r("2026-11-29 20:55:00", vec![("大灰狼", vec!["小飞"])]),
                r("2026-11-29 21:04:00", vec![("雪罂子", vec!["李逵"])]),
            ]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.votes("李逵"), 1.0);
                assert_eq!(g.non_voter("雪罂子"), None);
                assert!(!g.verdict_of("雪罂子").1.contains("截止"), "{}", g.verdict_of("雪罂子").1);
            },
        },
        Case {
            name: "the poll has no change limit: what it shows last is the vote",
            seed: (SEED, 77, "数据以投票机统计的为准"),
            ruleset: "bansha42",
            config: DAY1,
            pages: Pages::Poll(vec![
                r("2026-11-29 10:00:00", vec![("大灰狼", vec!["小飞"])]),
                r("2026-11-29 11:00:00", vec![("大灰狼", vec!["李逵"])]),
                r("2026-11-29 12:00:00", vec![("大灰狼", vec!["冷雪"])]),
            ]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.votes("冷雪"), 1.0);
                assert_eq!(g.votes("李逵"), 0.0);
                assert_eq!(g.votes("小飞"), 0.0);
            },
        },
        Case {
            name: "a post-killed player's half vote breaks a tie",
            seed: (SEED, 74, "当轮被贴杀的人投票算半票，仅在平票时计算生效"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 1\nvote_thread = 5\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\nhalf_voters = [\"蝈蝈\"]\n",
            pages: one_by_one(vec![
                ("蝈蝈", vec!["李逵"]),
                ("大灰狼", vec!["李逵"]),
                ("花千树", vec!["李逵"]),
                ("李逵", vec!["小飞"]),
                ("不见", vec!["小飞"]),
            ]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.votes("李逵"), 2.0, "the half vote is not in the count");
                // Without it 小飞 (reached 2 later) would go first.
                g.assert_outcome("eliminated", &["李逵"]);
                assert!(g.text.contains("另有半票 0.5"), "{}", g.text);
            },
        },
        Case {
            name: "a post-killed player who does not vote is not a suicide, and is not living",
            seed: (SEED, 73, "逾期不投票的判为自杀"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 1\nvote_thread = 5\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\nhalf_voters = [\"蝈蝈\"]\n",
            pages: one_by_one(vec![
                ("大灰狼", vec!["李逵"]),
                ("花千树", vec!["李逵"]),
                ("李逵", vec!["小飞"]),
            ]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                // L74 "当轮被贴杀的人投票算半票": 蝈蝈 was killed by a post this round; he may vote
                // at half weight, but L73's duty is the living's: no 自杀 for him.
                let absent = g
                    .text
                    .lines()
                    .find(|l| l.contains("未投票"))
                    .unwrap_or_default()
                    .to_string();
                assert!(!absent.contains("蝈蝈"), "{}", g.text);
                assert!(absent.contains("冷雪"), "{}", g.text);
                assert!(g.text.contains("存活玩家：11 人"), "{}", g.text);
                g.assert_outcome("eliminated", &["李逵"]);
            },
        },
        Case {
            name: "a half vote does not count when there is no tie",
            seed: (SEED, 74, "仅在平票时计算生效"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 1\nvote_thread = 5\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\nhalf_voters = [\"蝈蝈\"]\n",
            pages: one_by_one(vec![
                ("大灰狼", vec!["李逵"]),
                ("花千树", vec!["李逵"]),
                ("李逵", vec!["小飞"]),
                ("蝈蝈", vec!["小飞"]),
            ]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.votes("小飞"), 1.0);
                assert_eq!(g.total(), 3.0);
                g.assert_outcome("eliminated", &["李逵"]);
            },
        },
        Case {
            name: "tied: the one whose votes were seen arriving later goes out first (后到先出)",
            seed: (SEED, 79, "平票不加时，后到先出"),
            ruleset: "bansha42",
            config: DAY1,
            pages: one_by_one(vec![
                ("大灰狼", vec!["小飞"]),
                ("花千树", vec!["李逵"]),
                ("李逵", vec!["小飞"]),
                ("不见", vec!["李逵"]),
            ]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.assert_outcome("eliminated", &["李逵"]);
                assert!(g.text.contains("后到先出"), "{}", g.text);
                // Each vote says between which readings it arrived.
                let (_, why) = g.verdict_of("不见");
                assert!(why.contains("投票机 11-29 10:03:00 首次看到，上次读取 11-29 10:02:00"), "{why}");
            },
        },
        Case {
            name: "tied and both reached in the same reading: 15 minutes of overtime",
            seed: (SEED, 79, "如果平票者所有票都同时到，则加时15分钟"),
            ruleset: "bansha42",
            config: DAY1,
            pages: Pages::Poll(vec![
                r("2026-11-29 19:50:00", vec![("花千树", vec!["李逵"])]),
                r("2026-11-29 20:00:00", vec![("大灰狼", vec!["李逵"]), ("小飞", vec!["冷雪"])]),
                r("2026-11-29 20:05:00", vec![("李逵", vec!["冷雪"])]),
            ]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                // 李逵 reached 2 at 20:00, 冷雪 at 20:05: not simultaneous — 冷雪 later, out.
                g.assert_outcome("eliminated", &["冷雪"]);
            },
        },
        Case {
            name: "tied, the deciding votes in the same reading: overtime, and the tally says why",
            seed: (SEED, 79, "则加时15分钟"),
            ruleset: "bansha42",
            config: DAY1,
            pages: Pages::Poll(vec![
                r("2026-11-29 19:50:00", vec![]),
                r("2026-11-29 20:00:00", vec![("大灰狼", vec!["李逵"]), ("小飞", vec!["冷雪"])]),
            ]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.assert_outcome("overtime", &["冷雪", "李逵"]);
                assert!(g.text.contains("加时 15 分钟"), "{}", g.text);
                assert!(g.text.contains("同一次读取"), "{}", g.text);
            },
        },
        Case {
            name: "overtime: one vote each among the tied, X of them out",
            seed: (SEED, 79, "则加时15分钟，票一出X"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 1\nvote_thread = 5\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\nrunoff = { closes_at = \"2026-11-29 21:15:00\", candidates = [\"李逵\", \"冷雪\"], eliminate = 1, vote_thread = 6 }\n",
            pages: Pages::Poll(vec![
                r("2026-11-29 21:00:30", vec![]),
                r("2026-11-29 21:02:00", vec![("大灰狼", vec!["李逵"]), ("超人", vec!["小飞"])]),
                r("2026-11-29 21:05:00", vec![("小飞", vec!["冷雪"]), ("花千树", vec!["冷雪"]), ("不见", vec!["李逵", "冷雪"])]),
            ]),
            day: 1,
            round: 2,
            at: Some("2026-11-29 21:20"),
            check: |g| {
                assert_eq!(g.votes("冷雪"), 2.0);
                assert_eq!(g.votes("李逵"), 1.0);
                g.void_of("超人", "不是第二轮候选人");
                g.void_of("不见", "每人只有 1 票");
                g.assert_outcome("eliminated", &["冷雪"]);
                assert!(g.text.contains("加时（票一出1）"), "{}", g.text);
            },
        },
        Case {
            name: "a proxy (托票) through the judge names its target and counts",
            seed: (SEED, 76, "托票必须明确指定＂票×××＂"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 1\nvote_thread = 5\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n[[days.proxies]]\nvoter = \"大灰狼\"\ntarget = \"李逵\"\nat = \"2026-11-29 20:30:00\"\nnote = \"QQ 托票\"\n",
            pages: one_by_one(vec![("小飞", vec!["冷雪"])]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.votes("李逵"), 1.0);
                assert!(g.text.contains("李逵 1 票：大灰狼（法官代投）"), "{}", g.text);
            },
        },
        Case {
            name: "a proxy the judge entered for a player out already is void (simd seed 3079)",
            seed: (SEED, 73, "活着的全部玩家参加投票"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 1\nvote_thread = 5\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n[[days.proxies]]\nvoter = \"龙舌\"\ntarget = \"李逵\"\nat = \"2026-11-29 20:00:00\"\n",
            pages: one_by_one(vec![("小飞", vec!["冷雪"])]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.void_of("龙舌", "已出局");
                assert_eq!(g.votes("李逵"), 0.0);
                assert_eq!(g.votes("冷雪"), 1.0);
            },
        },
        Case {
            name: "a proxy for a player out already is void and bars nothing: the player's own poll vote counts (simd seed 3248)",
            seed: (SEED, 76, "一旦托票，视为放弃自行投票及掐点权利"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 1\nvote_thread = 5\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n[[days.proxies]]\nvoter = \"大灰狼\"\ntarget = \"龙舌\"\nat = \"2026-11-29 12:00:00\"\n",
            pages: Pages::Poll(vec![
                r("2026-11-29 12:00:00", vec![]),
                r("2026-11-29 20:10:00", vec![("大灰狼", vec!["冷雪"])]),
            ]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert!(g.text.contains("法官代投 大灰狼（投票：龙舌）：龙舌 已出局"), "{}", g.text);
                assert_eq!(g.votes("冷雪"), 1.0);
                assert!(!g.text.contains("托票后本人的投票无效"), "{}", g.text);
            },
        },
        Case {
            name: "a proxy from 20:40 on is void; after a proxy the player's own poll vote is void",
            seed: (SEED, 76, "投票截止前20分钟，即20：40起不再接受托票"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 1\nvote_thread = 5\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n[[days.proxies]]\nvoter = \"大灰狼\"\ntarget = \"李逵\"\nat = \"2026-11-29 20:00:00\"\n[[days.proxies]]\nvoter = \"小飞\"\ntarget = \"李逵\"\nat = \"2026-11-29 20:45:00\"\n",
            pages: Pages::Poll(vec![
                r("2026-11-29 20:00:00", vec![]),
                r("2026-11-29 20:10:00", vec![("大灰狼", vec!["冷雪"])]),
            ]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.void_of("大灰狼", "托票后本人的投票无效");
                g.void_of("小飞", "代投须在截止前 20 分钟");
                assert_eq!(g.votes("李逵"), 1.0);
                assert_eq!(g.votes("冷雪"), 0.0);
            },
        },
        Case {
            name: "a proxy at 20:40:00 itself is void (from 20:40 on, not after it)",
            seed: (SEED, 76, "即20：40起不再接受托票"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 1\nvote_thread = 5\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n[[days.proxies]]\nvoter = \"大灰狼\"\ntarget = \"李逵\"\nat = \"2026-11-29 20:39:59\"\n[[days.proxies]]\nvoter = \"小飞\"\ntarget = \"李逵\"\nat = \"2026-11-29 20:40:00\"\n",
            pages: one_by_one(vec![]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.void_of("小飞", "代投须在截止前 20 分钟");
                assert_eq!(g.votes("李逵"), 1.0);
            },
        },
        Case {
            name: "a player who proxied changes through the judge until 20:40; one who voted in the poll cannot",
            seed: (SEED, 76, "如需改票，请联系哨子，改票时间亦截止20:40. 本身已投票玩家不接受其改票的托票"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 1\nvote_thread = 5\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n[[days.proxies]]\nvoter = \"大灰狼\"\ntarget = \"李逵\"\nat = \"2026-11-29 12:00:00\"\n[[days.proxies]]\nvoter = \"大灰狼\"\ntarget = \"冷雪\"\nat = \"2026-11-29 20:00:00\"\n[[days.proxies]]\nvoter = \"小飞\"\ntarget = \"冷雪\"\nat = \"2026-11-29 20:00:00\"\n",
            pages: Pages::Poll(vec![r("2026-11-29 10:00:00", vec![("小飞", vec!["李逵"])])]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.votes("冷雪"), 1.0, "{}", g.text);
                assert_eq!(g.votes("李逵"), 1.0, "{}", g.text);
                g.void_of("小飞", "本人已经投票");
            },
        },
        Case {
            name: "a proxy between two readings of the poll that show the player's vote: the order is unknown and the judge is told so",
            seed: (SEED, 76, "本身已投票玩家不接受其改票的托票"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 1\nvote_thread = 5\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n[[days.proxies]]\nvoter = \"超人\"\ntarget = \"不见\"\nat = \"2026-11-29 20:39:59\"\n",
            pages: Pages::Poll(vec![
                r("2026-11-29 18:51:01", vec![]),
                r("2026-11-29 20:51:01", vec![("超人", vec!["蝈蝈"])]),
            ]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.void_of("超人", "先后无从得知");
                assert_eq!(g.votes("不见"), 1.0, "{}", g.text);
            },
        },
        Case {
            name: "a proxy the judge enters again unchanged keeps the time its vote arrived (后到先出 goes by it)",
            seed: (SEED, 79, "平票不加时，后到先出"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 1\nvote_thread = 5\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n[[days.proxies]]\nvoter = \"大灰狼\"\ntarget = \"小熊维尼\"\nat = \"2026-11-29 12:00:00\"\n[[days.proxies]]\nvoter = \"大灰狼\"\ntarget = \"小熊维尼\"\nat = \"2026-11-29 13:00:00\"\n",
            pages: Pages::Poll(vec![r("2026-11-29 11:00:00", vec![("小飞", vec!["李逵"])])]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.votes("小熊维尼"), 1.0, "{}", g.text);
                assert_eq!(g.votes("李逵"), 1.0, "{}", g.text);
                assert_eq!(
                    g.json["outcome"]["players"],
                    serde_json::json!(["小熊维尼"]),
                    "{}",
                    g.text
                );
            },
        },
        Case {
            name: "no abstentions: the poll's 弃权 option is void",
            seed: (SEED, 85, "哨子不接受任何自杀、弃权声明"),
            ruleset: "bansha42",
            config: DAY1,
            pages: one_by_one(vec![("音乐虫子", vec!["弃权"])]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.void_of("音乐虫子", "本局不接受弃权");
                assert_eq!(g.non_voter("音乐虫子").as_deref(), Some("未投票，按自杀出局"));
            },
        },
        Case {
            name: "the captured poll through bansha tally: 李逵 out, 弃权 void, a spectator ignored",
            seed: (SEED, 72, "请使用投票机投票"),
            ruleset: "bansha42",
            config: DAY1,
            pages: Pages::CapturedPoll,
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                // Voter lists of options 1 (大灰狼), 3 (李逵) and 13 (弃权) were captured.
                assert_eq!((g.votes("李逵"), g.votes("大灰狼")), (4.0, 3.0));
                g.void_of("音乐虫子", "本局不接受弃权");
                g.assert_outcome("eliminated", &["李逵"]);
                assert!(g.json["warnings"].to_string().contains("没有它的参与人页面"), "{}", g.json["warnings"]);
            },
        },
    ]);
}

/// L74 "当轮被贴杀的人投票算半票，仅在平票时计算生效", also once the judge has recorded the
/// death (`bansha change … eliminate 蝈蝈 --cause 贴杀`): the daemon's path (the state file
/// applied to the day, then the poll's readings) keeps 蝈蝈's vote at half weight for that round
/// and counts nothing of his the round after.
#[test]
fn a_player_killed_by_a_kill_post_that_round_votes_at_half_weight_after_it_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("g.toml");
    let base = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("config/examples/banshayishi-12.toml"),
    )
    .unwrap();
    let roster_start = base.find("[roster]").unwrap();
    let roster_end = base.find("[[days]]").unwrap();
    let text = format!(
        "ruleset = \"bansha42\"\nname = \"测试局\"\nid = \"test\"\n{}{}",
        &base[roster_start..roster_end],
        "[[days]]\nday = 1\nvote_thread = 5\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n\
         [[days]]\nday = 2\nvote_thread = 6\ncloses_at = \"2026-11-30 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n"
    );
    std::fs::write(&game, text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(["change", "--config"])
        .arg(&game)
        .args(["eliminate", "蝈蝈", "--cause", "贴杀", "--day", "1"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let g =
        bansha::io::state_file::with_state(&bansha::io::files::load_game(&game).unwrap()).unwrap();
    let day1 = g.day(1).unwrap();
    assert!(day1.half_voters.contains(&"蝈蝈".to_string()), "{:?}", day1);
    assert!(!day1.dead.contains(&"蝈蝈".to_string()));
    let readings = [
        r("2026-11-29 10:00:00", vec![("蝈蝈", vec!["李逵"])]),
        r("2026-11-29 10:01:00", vec![("大灰狼", vec!["李逵"])]),
        r("2026-11-29 10:02:00", vec![("花千树", vec!["李逵"])]),
        r("2026-11-29 10:03:00", vec![("李逵", vec!["小飞"])]),
        r("2026-11-29 10:04:00", vec![("不见", vec!["小飞"])]),
    ];
    let casts = common::casts_of(&readings, g.utc_offset);
    let at = bansha::domain::time::parse_local_time(AFTER, g.utc_offset).unwrap();
    let t = bansha::domain::rules::tally_with(&g, 1, 1, at, &[], &casts).unwrap();
    let json = serde_json::to_value(&t).unwrap();
    // 李逵 2 and 小飞 2: the half vote breaks the tie (else 小飞, reached later, goes first).
    assert_eq!(json["outcome"]["kind"], "eliminated", "{json}");
    assert_eq!(
        json["outcome"]["players"],
        serde_json::json!(["李逵"]),
        "{json}"
    );
}

/// L72 "请使用投票机投票，如未用投票机，所投票视为废票，不算自杀": a ballot posted in the vote
/// thread (the captured post form) beside the poll's readings, as the daemon's cycle passes
/// both: void, and its author is not judged a suicide for having no vote in the poll; one
/// posted after the close is no vote in time (found by the simulator, seed 24).
#[test]
fn a_ballot_posted_in_the_thread_is_void_and_not_a_suicide() {
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("g.toml");
    let base = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("config/examples/banshayishi-12.toml"),
    )
    .unwrap();
    let roster = &base[base.find("[roster]").unwrap()..base.find("[[days]]").unwrap()];
    std::fs::write(
        &game,
        format!("ruleset = \"bansha42\"\nname = \"测试局\"\nid = \"test\"\n{roster}{DAY1}"),
    )
    .unwrap();
    let g = bansha::io::files::load_game(&game).unwrap();
    let page = common::derived_page(
        dir.path(),
        "page.json",
        &[
            common::post(201, "大灰狼", "2026-11-29 10:00:00", "票 李逵"),
            // After the close: no vote of this round, in the thread or anywhere (L73 "逾期不投票的
            // 判为自杀").
            common::post(202, "冷雪", "2026-11-29 21:05:00", "票 李逵"),
        ],
    );
    let posts = bansha_parsers::parse_thread_page(
        &std::fs::read(page).unwrap(),
        Some("application/json"),
        &bansha_parsers::ParseOptions::default(),
    )
    .unwrap()
    .posts;
    let casts = common::casts_of(
        &[r("2026-11-29 10:05:00", vec![("小飞", vec!["李逵"])])],
        g.utc_offset,
    );
    let at = bansha::domain::time::parse_local_time(AFTER, g.utc_offset).unwrap();
    let t = bansha::domain::rules::tally_with(&g, 1, 1, at, &posts, &casts).unwrap();
    let json = serde_json::to_value(&t).unwrap();
    let b = json["ballots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["pid"] == 201)
        .unwrap();
    assert_eq!(b["valid"], false, "{b}");
    assert!(
        b["reason"].as_str().unwrap().contains("须用投票机投票"),
        "{b}"
    );
    let consequence = |p: &str| {
        json["non_voters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["player"] == p)
            .map(|n| n["consequence"].as_str().unwrap().to_string())
    };
    assert_eq!(
        consequence("大灰狼").as_deref(),
        Some("未用投票机投票（版面上的投票作废），不算自杀")
    );
    assert_eq!(consequence("李逵").as_deref(), Some("未投票，按自杀出局"));
    assert_eq!(consequence("冷雪").as_deref(), Some("未投票，按自杀出局"));
    assert_eq!(consequence("小飞"), None);
    assert_eq!(json["counts"][0]["votes"], 1.0, "{json}");
}

/// A bansha42 game file in `dir` (the captured roster), day 1 voting in the poll of tid 5.
fn poll_game_file(dir: &std::path::Path) -> std::path::PathBuf {
    let game = dir.join("g.toml");
    let base = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("config/examples/banshayishi-12.toml"),
    )
    .unwrap();
    let roster = &base[base.find("[roster]").unwrap()..base.find("[[days]]").unwrap()];
    std::fs::write(
        &game,
        format!("ruleset = \"bansha42\"\nname = \"测试局\"\nid = \"test\"\n{roster}{DAY1}"),
    )
    .unwrap();
    game
}

/// `bansha tally` (the binary) on saved pages after day 1's close: the JSON and the BBCode.
fn tally_offline(
    game: &std::path::Path,
    pages: &[std::path::PathBuf],
) -> (serde_json::Value, String) {
    let run = |json: bool| {
        let mut cmd = assert_cmd::Command::cargo_bin("bansha").unwrap();
        cmd.args(["tally", "--day", "1", "--at", AFTER, "--config"])
            .arg(game);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.args(pages).assert().success();
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    (serde_json::from_str(&run(true)).unwrap(), run(false))
}

fn consequence(json: &serde_json::Value, player: &str) -> Option<String> {
    json["non_voters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["player"] == player)
        .map(|n| n["consequence"].as_str().unwrap().to_string())
}

/// L72 "请使用投票机投票，如未用投票机，所投票视为废票，不算自杀", offline: `bansha tally` on the saved
/// poll thread reads its replies as well as the poll. 冷雪's "票 李逵" there is a void ballot with
/// its reason, and 冷雪 is not a suicide; 大灰狼, who neither voted nor posted, is (L73).
/// The poll is the captured one with the options whose voter lists were not captured set to 0.
#[test]
fn offline_a_ballot_in_the_poll_thread_is_void_and_not_a_suicide() {
    let seed = std::fs::read_to_string(common::fixtures().join("seeds").join(SEED)).unwrap();
    assert!(seed
        .lines()
        .nth(71)
        .unwrap()
        .contains("如未用投票机，所投票视为废票，不算自杀"));
    let dir = tempfile::tempdir().unwrap();
    let game = poll_game_file(dir.path());
    let page = common::derived_poll_page(
        dir.path(),
        "poll.json",
        &[(2, 0), (4, 0), (7, 0), (9, 0)],
        8,
        &[common::post(130, "冷雪", "2026-11-29 20:15:00", "票 李逵")],
    );
    let mut pages = vec![page];
    pages.extend(common::captured_voter_lists());
    let (json, text) = tally_offline(&game, &pages);
    let b = json["ballots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["pid"] == 130)
        .unwrap_or_else(|| panic!("no ballot from the thread: {}", json["ballots"]));
    assert_eq!(b["valid"], false, "{b}");
    assert!(
        b["reason"].as_str().unwrap().contains("须用投票机投票"),
        "{b}"
    );
    assert_eq!(
        consequence(&json, "冷雪").as_deref(),
        Some("未用投票机投票（版面上的投票作废），不算自杀")
    );
    assert_eq!(
        consequence(&json, "大灰狼").as_deref(),
        Some("未投票，按自杀出局")
    );
    assert!(!text.contains("冷雪（未投票，按自杀出局）"), "{text}");
    assert!(
        text.contains("冷雪（未用投票机投票（版面上的投票作废），不算自杀）"),
        "{text}"
    );
    assert!(
        text.contains("本局须用投票机投票，版面上的投票视为废票"),
        "{text}"
    );
}

/// L73 "以投票机数据为准。逾期不投票的判为自杀", L77 "数据以投票机统计的为准": who voted is the poll's
/// own record. Where the saved pages do not name every voter the poll counts, `bansha tally` says
/// in its output what is missing and names no one who may have voted a suicide. Every way the
/// counts and the lists can disagree: lists missing (the captured poll: options 2, 4, 7 and 9
/// have a vote each and no list), a list shorter than its count, the poll's count of voters above
/// the names in its lists.
#[test]
fn offline_a_poll_whose_voter_lists_are_incomplete_names_no_possible_voter_a_suicide() {
    let seed = std::fs::read_to_string(common::fixtures().join("seeds").join(SEED)).unwrap();
    assert!(seed
        .lines()
        .nth(72)
        .unwrap()
        .contains("以投票机数据为准。逾期不投票的判为自杀"));
    assert!(seed
        .lines()
        .nth(76)
        .unwrap()
        .contains("数据以投票机统计的为准"));
    let dir = tempfile::tempdir().unwrap();
    let game = poll_game_file(dir.path());
    let captured = common::fixtures().join("discuz/poll/mobile_v1_viewthread_tid5_judge.json");
    let short = common::derived_poll_page(
        dir.path(),
        "short.json",
        &[(2, 0), (3, 5), (4, 0), (7, 0), (9, 0)],
        9,
        &[],
    );
    let uncounted = common::derived_poll_page(
        dir.path(),
        "uncounted.json",
        &[(2, 0), (4, 0), (7, 0), (9, 0)],
        9,
        &[],
    );
    let cases: [(&std::path::PathBuf, &[&str]); 3] = [
        (
            &captured,
            &[
                "选项“小飞”：投票机显示 1 票，没有读到参与人名单（viewvote&polloptionid=2）",
                "选项“超人”：投票机显示 1 票，没有读到参与人名单（viewvote&polloptionid=9）",
            ],
        ),
        (
            &short,
            &["选项“李逵”：投票机显示 5 票，参与人名单上只有 4 人"],
        ),
        (
            &uncounted,
            &["投票机显示共 9 人参与投票，参与人名单上只有 8 人"],
        ),
    ];
    for (poll, missing) in cases {
        let mut pages = vec![poll.clone()];
        pages.extend(common::captured_voter_lists());
        let (json, text) = tally_offline(&game, &pages);
        assert!(text.contains("[b]投票机名单不全[/b]"), "{text}");
        for m in missing {
            assert!(text.contains(m), "{m}: {text}");
        }
        // No living player whose vote is unknown is named a suicide.
        for p in ["大灰狼", "李逵", "冷雪", "小熊维尼"] {
            assert!(
                !text.contains(&format!("{p}（未投票，按自杀出局）")),
                "{p}: {text}"
            );
            let c = consequence(&json, p).unwrap();
            assert!(c.contains("投票机名单不全，无法确认是否投票"), "{p}: {c}");
        }
        // 音乐虫子's vote is in a list (弃权, void: L85), and a player has one vote on day 1: he
        // is none of the unnamed voters, and L73 stands for him.
        assert_eq!(
            consequence(&json, "音乐虫子").as_deref(),
            Some("未投票，按自杀出局"),
            "{text}"
        );
        assert!(!json["poll_gaps"].as_array().unwrap().is_empty(), "{json}");
        assert!(
            json["outcome"]["note"]
                .as_str()
                .unwrap()
                .contains("投票机名单不全"),
            "{}",
            json["outcome"]
        );
    }
}
