//! bansha42 (42-player game, seed 004): every vote rule of the seed, as a case through
//! `bansha tally`. The game votes in the forum's poll (L72); reading the poll arrives with
//! issue 7. Here the same rules run on thread pages in the preset's proxy format "票 ×××" (L76):
//! derived pages, and the captured thread with its own format.

mod common;
use common::{run_cases, Case, DPost, Pages};

const SEED: &str = "004_bansha42.txt";
const AFTER: &str = "2026-11-29 21:30";

use common::post as p;

const DAY1: &str =
    "[[days]]\nday = 1\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n";
const DAY2: &str =
    "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n";

/// Day 2 (two votes each): 李逵 3 (at 10:03), 冷雪 3 (10:04), 小飞 3 (10:05), 超人 2, 不见 1.
fn two_votes() -> Vec<DPost> {
    vec![
        p(201, "大灰狼", "2026-11-29 10:00:00", "票 李逵 小飞"),
        p(202, "小飞", "2026-11-29 10:01:00", "票 李逵、冷雪"),
        p(203, "李逵", "2026-11-29 10:02:00", "票 小飞 冷雪"),
        p(204, "花千树", "2026-11-29 10:03:00", "票 李逵 不见"),
        p(205, "不见", "2026-11-29 10:04:00", "票 超人 冷雪"),
        p(206, "冷雪", "2026-11-29 10:05:00", "票 小飞 超人"),
    ]
}

#[test]
fn bansha42() {
    run_cases(&[
        Case {
            name: "round 1: one vote each, one out",
            seed: (SEED, 30, "第一轮：杀1人。票1出1"),
            ruleset: "bansha42",
            config: DAY1,
            pages: Pages::Derived(vec![
                p(201, "大灰狼", "2026-11-29 10:00:00", "票 李逵"),
                p(202, "小飞", "2026-11-29 10:01:00", "票 李逵"),
                p(203, "李逵", "2026-11-29 10:02:00", "票 小飞"),
                p(204, "花千树", "2026-11-29 10:03:00", "票 李逵 小飞"),
            ]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.void(204, "一票写了多个对象");
                assert_eq!(g.json["threshold"]["eliminate"], 1);
                g.assert_outcome("eliminated", &["李逵"]);
            },
        },
        Case {
            name: "rounds 2–4: two votes each, four out, later arrivals first among the tied",
            seed: (SEED, 31, "第二轮：杀8人。票2出4"),
            ruleset: "bansha42",
            config: DAY2,
            pages: Pages::Derived(two_votes()),
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
            pages: Pages::Derived(vec![p(201, "大灰狼", "2026-11-29 10:00:00", "票 李逵")]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert!(g.is_valid(201));
                assert_eq!(g.votes("李逵"), 1.0);
            },
        },
        Case {
            name: "two votes for the same player count as one",
            seed: (SEED, 73, "同票作一票计"),
            ruleset: "bansha42",
            config: DAY2,
            pages: Pages::Derived(vec![p(201, "大灰狼", "2026-11-29 10:00:00", "票 李逵 李逵")]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.votes("李逵"), 1.0);
                assert!(g.verdict(201).1.contains("作一票计"), "{:?}", g.verdict(201));
            },
        },
        Case {
            name: "more names than votes is void",
            seed: (SEED, 33, "第四轮：杀8人。票2出4"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 4\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n",
            pages: Pages::Derived(vec![p(201, "大灰狼", "2026-11-29 10:00:00", "票 李逵 小飞 冷雪")]),
            day: 4,
            round: 1,
            at: Some(AFTER),
            check: |g| g.void(201, "写了 3 个对象，每人只有 2 票"),
        },
        Case {
            name: "rounds 5–6: three out",
            seed: (SEED, 34, "第五轮：杀6人。票2出3"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 5\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n",
            pages: Pages::Derived(two_votes()),
            day: 5,
            round: 1,
            at: Some(AFTER),
            check: |g| g.assert_outcome("eliminated", &["小飞", "冷雪", "李逵"]),
        },
        Case {
            name: "round 7: two out",
            seed: (SEED, 36, "第七轮：杀4人。票2出2"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 7\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n",
            pages: Pages::Derived(two_votes()),
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
            pages: Pages::Derived(two_votes()),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.non_voter("雪罂子").as_deref(), Some("未投票，按自杀出局"));
                assert_eq!(g.non_voter("大灰狼"), None);
            },
        },
        Case {
            name: "a ballot after the close is void: still a suicide",
            seed: (SEED, 73, "活着的全部玩家参加投票"),
            ruleset: "bansha42",
            config: DAY1,
            pages: Pages::Derived(vec![p(201, "雪罂子", "2026-11-29 21:00:30", "票 李逵")]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.void(201, "截止");
                assert_eq!(g.non_voter("雪罂子").as_deref(), Some("未投票，按自杀出局"));
            },
        },
        Case {
            name: "a post-killed player's half vote breaks a tie",
            seed: (SEED, 74, "当轮被贴杀的人投票算半票，仅在平票时计算生效"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 1\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\nhalf_voters = [\"蝈蝈\"]\n",
            pages: Pages::Derived(vec![
                p(201, "大灰狼", "2026-11-29 10:00:00", "票 李逵"),
                p(202, "花千树", "2026-11-29 10:01:00", "票 李逵"),
                p(203, "李逵", "2026-11-29 10:02:00", "票 小飞"),
                p(204, "不见", "2026-11-29 10:03:00", "票 小飞"),
                p(205, "蝈蝈", "2026-11-29 09:00:00", "票 李逵"),
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
            name: "a half vote does not count when there is no tie",
            seed: (SEED, 74, "仅在平票时计算生效"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 1\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\nhalf_voters = [\"蝈蝈\"]\n",
            pages: Pages::Derived(vec![
                p(201, "大灰狼", "2026-11-29 10:00:00", "票 李逵"),
                p(202, "花千树", "2026-11-29 10:01:00", "票 李逵"),
                p(203, "李逵", "2026-11-29 10:02:00", "票 小飞"),
                p(205, "蝈蝈", "2026-11-29 10:04:00", "票 小飞"),
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
            name: "tied: the one who got there later goes out first (后到先出)",
            seed: (SEED, 79, "平票不加时，后到先出"),
            ruleset: "bansha42",
            config: DAY1,
            pages: Pages::Derived(vec![
                p(201, "大灰狼", "2026-11-29 10:00:00", "票 小飞"),
                p(202, "花千树", "2026-11-29 10:01:00", "票 李逵"),
                p(203, "李逵", "2026-11-29 10:02:00", "票 小飞"),
                p(204, "不见", "2026-11-29 10:03:00", "票 李逵"),
            ]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.assert_outcome("eliminated", &["李逵"]);
                assert!(g.text.contains("后到先出"), "{}", g.text);
            },
        },
        Case {
            name: "tied and all there at the same moment: 15 minutes of overtime",
            seed: (SEED, 79, "如果平票者所有票都同时到，则加时15分钟"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 1\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n[[days.proxies]]\nvoter = \"大灰狼\"\ntarget = \"李逵\"\nat = \"2026-11-29 20:00:00\"\n[[days.proxies]]\nvoter = \"小飞\"\ntarget = \"冷雪\"\nat = \"2026-11-29 20:00:00\"\n",
            pages: Pages::Derived(vec![]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.assert_outcome("overtime", &["冷雪", "李逵"]);
                assert!(g.text.contains("加时 15 分钟"), "{}", g.text);
            },
        },
        Case {
            name: "a proxy (托票) through the judge names its target and counts",
            seed: (SEED, 76, "托票必须明确指定＂票×××＂"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 1\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n[[days.proxies]]\nvoter = \"大灰狼\"\ntarget = \"李逵\"\nat = \"2026-11-29 20:30:00\"\nnote = \"QQ 托票\"\n",
            pages: Pages::Derived(vec![p(201, "小飞", "2026-11-29 10:00:00", "票 冷雪")]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.votes("李逵"), 1.0);
                assert!(g.text.contains("李逵 1 票：大灰狼（法官代投）"), "{}", g.text);
            },
        },
        Case {
            name: "no abstentions: 弃权 is void",
            seed: (SEED, 85, "哨子不接受任何自杀、弃权声明"),
            ruleset: "bansha42",
            config: DAY1,
            pages: Pages::Derived(vec![p(201, "音乐虫子", "2026-11-29 10:00:00", "票 弃权")]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.void(201, "本局不接受弃权");
                assert_eq!(g.non_voter("音乐虫子").as_deref(), Some("未投票，按自杀出局"));
            },
        },
        Case {
            name: "the captured thread with the judge's format: 李逵 out, the abstention void",
            seed: (SEED, 72, "按照投票楼规定投票"),
            ruleset: "bansha42",
            config: "[[days]]\nday = 1\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n[rules.ballot]\nreason = \"required\"\nformats = [{ name = \"投票对象\", vote = \"投票对象：{target}\\n投票理由：{reason}\", change = \"改票对象：{target}\\n改票理由：{reason}\" }]\n",
            pages: Pages::Captured,
            day: 1,
            round: 1,
            at: None,
            check: |g| {
                g.void(50, "本局不接受弃权");
                g.assert_outcome("eliminated", &["李逵"]);
                assert_eq!(g.non_voter("音乐虫子").as_deref(), Some("未投票，按自杀出局"));
            },
        },
        Case {
            name: "players may not proxy their vote to another player",
            seed: (SEED, 75, "任何人不得托票给其他游戏玩家"),
            ruleset: "bansha42",
            config: DAY1,
            pages: Pages::Derived(vec![p(201, "大灰狼", "2026-11-29 10:00:00", "小飞 第一天 第一次 投票 票 李逵")]),
            day: 1,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                // 大灰狼's post counts as his own vote; nobody votes for 小飞 through him.
                assert_eq!(g.json["ballots"][0]["voter"], "大灰狼");
                assert_eq!(g.non_voter("小飞").as_deref(), Some("未投票，按自杀出局"));
            },
        },
    ]);
}
