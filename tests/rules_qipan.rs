//! qipan (棋盘图版杀2, seed 003): every vote rule of the seed, as a case through `bansha tally`.
//! qipan's ballots reach the judge by private message (L104–L106): every case sends its ballots
//! as private messages (the captured API v1 conversation answer with its messages replaced; the
//! captured vote thread's replies resent by PM with pmid = pid).

mod common;
use common::{run_cases, Case, DPost, Pages};

const SEED: &str = "003_qipan.txt";
const AFTER: &str = "2026-11-29 21:30";
const DAY2: &str =
    "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n";
const DAY2_RUNOFF: &str = "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\nrunoff = { closes_at = \"2026-11-29 21:30:00\", candidates = [\"李逵\", \"小飞\"] }\n";

use common::post as p;

/// 李逵 4, 小飞 4 of 12 living (needed: 30% of 12, rounded up = 4).
fn four_four() -> Vec<DPost> {
    vec![
        p(
            201,
            "大灰狼",
            "2026-11-29 10:00:00",
            "投票对象：李逵\n投票理由：他太黑",
        ),
        p(
            202,
            "花千树",
            "2026-11-29 10:01:00",
            "投票对象：李逵\n投票理由：跟票",
        ),
        p(
            203,
            "不见",
            "2026-11-29 10:02:00",
            "投票对象：李逵\n投票理由：直觉",
        ),
        p(
            204,
            "冷雪",
            "2026-11-29 10:03:00",
            "投票对象：李逵\n投票理由：划水",
        ),
        p(
            205,
            "李逵",
            "2026-11-29 10:04:00",
            "投票对象：小飞\n投票理由：反投",
        ),
        p(
            206,
            "蝈蝈",
            "2026-11-29 10:05:00",
            "投票对象：小飞\n投票理由：分票",
        ),
        p(
            207,
            "超人",
            "2026-11-29 10:06:00",
            "投票对象：小飞\n投票理由：查杀",
        ),
        p(
            208,
            "yucca",
            "2026-11-29 10:07:00",
            "投票对象：小飞\n投票理由：跟票",
        ),
    ]
}

#[test]
fn qipan() {
    run_cases(&[
        Case {
            name: "30% of the living players, rounded up: 12 alive → 4 votes",
            seed: (SEED, 98, "存活人数30％的最高票者判作被投死"),
            ruleset: "qipan",
            config: DAY2,
            pages: Pages::CapturedAsPm,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert_eq!(g.json["threshold"]["base"], 12.0);
                assert_eq!(g.json["threshold"]["needed"], 4.0);
                assert_eq!(g.votes("李逵"), 6.0);
                g.assert_outcome("eliminated", &["李逵"]);
            },
        },
        Case {
            name: "9 alive → 3 votes",
            seed: (SEED, 100, "30％为上取整，如9人超过30％指的是3票和3票以上"),
            ruleset: "qipan",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\", \"音乐虫子\", \"蝈蝈\", \"冷雪\"]\n",
            pages: Pages::CapturedAsPm,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert_eq!(g.json["threshold"]["base"], 9.0);
                assert_eq!(g.json["threshold"]["needed"], 3.0);
            },
        },
        Case {
            name: "below 30% of the living: nobody dies",
            seed: (SEED, 98, "如第一轮投票中没有超过30％的高票，则这个白天不死人"),
            ruleset: "qipan",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-28 16:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n",
            pages: Pages::CapturedAsPm,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert_eq!(g.votes("李逵"), 1.0);
                g.assert_outcome("none", &[]);
            },
        },
        Case {
            name: "one change allowed, with no lock window; the second change is void",
            seed: (SEED, 98, "允许改票一次"),
            ruleset: "qipan",
            config: DAY2,
            pages: Pages::CapturedAsPm,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert!(g.is_valid(108), "20:31: qipan has no last-hour lock");
                assert!(g.is_valid(114), "21:00:00 is at the close, not after it");
                g.void(88, "超过改票次数");
                assert_eq!(g.json["lock_from"], serde_json::Value::Null);
            },
        },
        Case {
            name: "a ballot must carry its reasoning",
            seed: (SEED, 130, "投票时需要写推理过程"),
            ruleset: "qipan",
            config: DAY2,
            pages: Pages::CapturedAsPm,
            day: 2,
            round: 1,
            at: None,
            check: |g| g.void(92, "没有写推理过程"),
        },
        Case {
            name: "a change must carry its reasoning too",
            seed: (SEED, 98, "投票时尽可能写推理过程"),
            ruleset: "qipan",
            config: DAY2,
            pages: Pages::Pm(vec![
                p(201, "大灰狼", "2026-11-29 10:00:00", "投票对象：小飞\n投票理由：他分票"),
                p(202, "大灰狼", "2026-11-29 11:00:00", "改票对象：李逵\n改票理由："),
            ]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.void(202, "未说明理由");
                assert_eq!(g.votes("小飞"), 1.0);
            },
        },
        Case {
            name: "abstaining must be written: 弃票",
            seed: (SEED, 130, "如果弃权，请写明弃票"),
            ruleset: "qipan",
            config: DAY2,
            pages: Pages::Pm(vec![p(201, "音乐虫子", "2026-11-29 10:00:00", "投票对象：弃票\n投票理由：没有头绪")]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.json["ballots"][0]["kind"], "abstain");
                assert_eq!(g.non_voter("音乐虫子"), None);
            },
        },
        Case {
            name: "ballots in the players' own words: every message is a ballot, a void one, or ignored with its reason",
            seed: (SEED, 106, "只允许用站内短信的方式私下通知法官"),
            ruleset: "qipan",
            config: DAY2,
            pages: Pages::Pm(vec![
                p(201, "大灰狼", "2026-11-29 10:00:00", "我投李逵，理由是他昨晚的发言前后矛盾"),
                p(202, "小飞", "2026-11-29 10:01:00", "票：李逵 他一直在带节奏"),
                p(203, "冷雪", "2026-11-29 10:02:00", "弃票"),
                p(204, "花千树", "2026-11-29 10:03:00", "李逵和小飞都很可疑，先投小飞吧"),
                p(205, "蝈蝈", "2026-11-29 10:04:00", "法官晚上好，今天几点截止？"),
                p(206, "超人", "2026-11-29 10:05:00", "投龙舌"),
                p(207, "不见", "2026-11-29 10:06:00", "投李逵"),
                p(208, "大灰狼", "2026-11-29 11:00:00", "改投小飞，他今天的发言更可疑"),
            ]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert!(g.is_valid(201) && g.is_valid(202), "{}", g.text);
                assert_eq!(g.json["ballots"].as_array().unwrap().iter().find(|b| b["pid"] == 203).unwrap()["kind"], "abstain");
                g.void(204, "多名存活玩家");
                g.void(206, "已出局");
                g.void(207, "没有写推理过程");
                assert!(g.is_valid(208), "a change in own words, with its reasoning");
                assert_eq!(g.votes("李逵"), 1.0);
                assert_eq!(g.votes("小飞"), 1.0);
                let ignored = g.json["ignored"].as_array().unwrap();
                let i = ignored.iter().find(|i| i["pid"] == 205).expect("the chat message is accounted for");
                assert!(i["reason"].as_str().unwrap().contains("不是投票"), "{i}");
            },
        },
        Case {
            name: "reasoning written after its label counts however short, even in the words of a vote (the simulator's qipan seed 3)",
            seed: (SEED, 130, "投票时需要写推理过程"),
            ruleset: "qipan",
            config: DAY2,
            pages: Pages::Pm(vec![
                p(201, "冷雪", "2026-11-29 10:00:00", "我投李逵，理由是跟票"),
                p(202, "小飞", "2026-11-29 10:01:00", "投李逵，原因：是狼"),
                p(203, "大灰狼", "2026-11-29 10:02:00", "票给李逵，理由：投票像狼"),
                p(204, "冷雪", "2026-11-29 11:00:00", "改投小飞，理由是改票了"),
                p(205, "花千树", "2026-11-29 10:03:00", "投李逵，理由："),
                p(206, "蝈蝈", "2026-11-29 10:04:00", "投票给李逵"),
                p(207, "超人", "2026-11-29 10:05:00", "我投李逵，理由是小飞说他是狼"),
                p(208, "音乐虫子", "2026-11-29 10:06:00", "投龙舌，理由是小飞说的"),
            ]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                // 207: a name in the reasoning is no second target.
                for pid in [201, 202, 203, 204, 207] {
                    assert!(g.is_valid(pid), "{pid}: {}", g.text);
                }
                g.void(205, "没有写推理过程");
                g.void(206, "没有写推理过程");
                // 208 names the dead 龙舌 before its reason label: void, not a vote for 小飞.
                g.void(208, "已出局");
                assert_eq!(g.votes("小飞"), 1.0);
                assert_eq!(g.votes("李逵"), 3.0);
            },
        },
        Case {
            name: "a day with no opens_at and no day before reads two days of messages, shows the week before as too early, and no further",
            seed: (SEED, 98, "同时给法官发第一次的投票（截止时间为每天的21：00）"),
            ruleset: "qipan",
            config: DAY2,
            pages: Pages::Pm(vec![
                p(401, "小飞", "2026-11-19 10:00:00", "投票对象：李逵\n投票理由：上一局的票"),
                p(402, "大灰狼", "2026-11-26 10:00:00", "投票对象：李逵\n投票理由：太早了"),
                p(403, "冷雪", "2026-11-28 10:00:00", "投票对象：李逵\n投票理由：他太黑"),
            ]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                let pids: Vec<i64> = g.json["ballots"].as_array().unwrap().iter().filter_map(|b| b["pid"].as_i64()).collect();
                assert!(!pids.contains(&401), "a message from ten days before is not this day's: {pids:?}");
                g.void(402, "早于本轮开始");
                assert!(g.is_valid(403));
                assert_eq!(g.votes("李逵"), 1.0);
            },
        },
        Case {
            name: "the next day's messages leave out the day before's ballots and the night's moves and kills, and show a night ballot as too early",
            seed: (SEED, 112, "所有存活的好人给法官发移动"),
            ruleset: "qipan",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n\
                     [[days]]\nday = 3\nopens_at = \"2026-11-30 09:00:00\"\ncloses_at = \"2026-11-30 21:00:00\"\n",
            pages: Pages::Pm(vec![
                p(501, "小飞", "2026-11-29 18:00:00", "投票对象：李逵\n投票理由：第二天的票"),
                p(502, "大灰狼", "2026-11-29 21:10:00", "向东"),
                p(503, "冷雪", "2026-11-29 22:30:00", "东北；杀人：小飞"),
                p(504, "蝈蝈", "2026-11-29 23:00:00", "投票对象：李逵\n投票理由：早投"),
                p(505, "花千树", "2026-11-30 10:00:00", "投票对象：李逵\n投票理由：他太黑"),
            ]),
            day: 3,
            round: 1,
            at: Some("2026-11-30 21:30"),
            check: |g| {
                let pids: Vec<i64> = g.json["ballots"].as_array().unwrap().iter().filter_map(|b| b["pid"].as_i64()).collect();
                for gone in [501, 502, 503] {
                    assert!(!pids.contains(&gone), "{gone} is not day 3's: {pids:?}");
                }
                g.void(504, "早于本轮开始");
                assert!(g.is_valid(505));
                assert_eq!(g.votes("李逵"), 1.0);
            },
        },
        Case {
            name: "a day typed without opens_at opens when the night before it ends (9:00): a ballot sent in the night is too early",
            seed: (SEED, 96, "9：00—21：00 白天"),
            ruleset: "qipan",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n\
                     [[days]]\nday = 3\ncloses_at = \"2026-11-30 21:00:00\"\n",
            pages: Pages::Pm(vec![
                p(601, "蝈蝈", "2026-11-29 23:00:00", "投票对象：李逵\n投票理由：早投"),
                p(602, "小飞", "2026-11-30 08:59:00", "投票对象：李逵\n投票理由：也早"),
                p(603, "花千树", "2026-11-30 09:00:01", "投票对象：李逵\n投票理由：他太黑"),
            ]),
            day: 3,
            round: 1,
            at: Some("2026-11-30 21:30"),
            check: |g| {
                // L116 "22：00—9：00 夜晚", the preset's night ending 720 minutes after the close.
                g.void(601, "早于本轮开始");
                g.void(602, "早于本轮开始");
                assert!(g.is_valid(603), "{}", g.text);
                assert_eq!(g.votes("李逵"), 1.0);
            },
        },
        Case {
            name: "in round 2 no reasoning is needed: a name alone is the vote",
            seed: (SEED, 100, "投票可以不写原因"),
            ruleset: "qipan",
            config: DAY2_RUNOFF,
            pages: Pages::Pm(vec![
                p(301, "大灰狼", "2026-11-29 21:05:00", "投李逵"),
                p(302, "冷雪", "2026-11-29 21:06:00", "小飞"),
            ]),
            day: 2,
            round: 2,
            at: Some(AFTER),
            check: |g| {
                assert!(g.is_valid(301) && g.is_valid(302), "{}", g.text);
                assert_eq!(g.votes("李逵"), 1.0);
            },
        },
        Case {
            name: "tied at the top, both at 30%: round 2",
            seed: (SEED, 100, "如最高票出现平票(也必须超过总票数30%)，则进行第二次高票对决"),
            ruleset: "qipan",
            config: DAY2,
            pages: Pages::Pm(four_four()),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| g.assert_outcome("runoff", &["李逵", "小飞"]),
        },
        Case {
            name: "round 2: a ballot needs no reason",
            seed: (SEED, 100, "投票可以不写原因"),
            ruleset: "qipan",
            config: DAY2_RUNOFF,
            pages: Pages::Pm(vec![
                p(301, "大灰狼", "2026-11-29 21:05:00", "投票对象：李逵"),
                p(302, "冷雪", "2026-11-29 21:06:00", "投票对象：李逵"),
                p(303, "李逵", "2026-11-29 21:07:00", "投票对象：小飞"),
            ]),
            day: 2,
            round: 2,
            at: Some(AFTER),
            check: |g| {
                assert!(g.is_valid(301) && g.is_valid(302) && g.is_valid(303));
                g.assert_outcome("eliminated", &["李逵"]);
            },
        },
        Case {
            name: "round 2: no change allowed",
            seed: (SEED, 100, "但是不允许改票"),
            ruleset: "qipan",
            config: DAY2_RUNOFF,
            pages: Pages::Pm(vec![
                p(301, "大灰狼", "2026-11-29 21:05:00", "投票对象：李逵"),
                p(302, "大灰狼", "2026-11-29 21:10:00", "改票对象：小飞\n改票理由：再想想"),
            ]),
            day: 2,
            round: 2,
            at: Some(AFTER),
            check: |g| {
                g.void(302, "第二轮不允许改票");
                assert_eq!(g.votes("李逵"), 1.0);
            },
        },
        Case {
            name: "round 2: only the tied are candidates",
            seed: (SEED, 100, "投票对象为第一次投票最高票票数相同的可疑者"),
            ruleset: "qipan",
            config: DAY2_RUNOFF,
            pages: Pages::Pm(vec![p(301, "大灰狼", "2026-11-29 21:05:00", "投票对象：冷雪")]),
            day: 2,
            round: 2,
            at: Some(AFTER),
            check: |g| g.void(301, "不是第二轮候选人"),
        },
        Case {
            name: "round 2 tied again: nobody dies",
            seed: (SEED, 100, "则进行第二次高票对决"),
            ruleset: "qipan",
            config: DAY2_RUNOFF,
            pages: Pages::Pm(vec![
                p(301, "大灰狼", "2026-11-29 21:05:00", "投票对象：李逵"),
                p(302, "李逵", "2026-11-29 21:07:00", "投票对象：小飞"),
            ]),
            day: 2,
            round: 2,
            at: Some(AFTER),
            check: |g| g.assert_outcome("none", &[]),
        },
        Case {
            name: "round 1's published tally shows only the counts",
            seed: (SEED, 102, "则只公布某某得到X票，不公布投票具体谁投给了谁"),
            ruleset: "qipan",
            config: DAY2,
            pages: Pages::CapturedAsPm,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert!(g.text.contains("李逵 6 票\n"), "{}", g.text);
                for voter in ["超人（", "yucca（", "无效票", "改票"] {
                    assert!(!g.text.contains(voter), "{voter} in\n{}", g.text);
                }
                assert_eq!(g.json["publish_voters"], false);
                assert!(g.json["ballots"].as_array().unwrap().len() > 20, "the JSON keeps every ballot for the judge");
            },
        },
        Case {
            name: "round 2's published tally shows who voted for whom",
            seed: (SEED, 102, "如果是第二轮高票对决，则公布所有投票具体细节"),
            ruleset: "qipan",
            config: DAY2_RUNOFF,
            pages: Pages::Pm(vec![
                p(301, "大灰狼", "2026-11-29 21:05:00", "投票对象：李逵"),
                p(302, "李逵", "2026-11-29 21:07:00", "投票对象：小飞"),
            ]),
            day: 2,
            round: 2,
            at: Some(AFTER),
            check: |g| {
                assert!(g.text.contains("李逵 1 票：大灰狼"), "{}", g.text);
                assert!(g.text.contains("小飞 1 票：李逵"), "{}", g.text);
            },
        },
        Case {
            name: "a missed vote is a warning",
            seed: (SEED, 136, "如果1个环节没有完成，警告"),
            ruleset: "qipan",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-28 14:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n",
            pages: Pages::CapturedAsPm,
            day: 2,
            round: 1,
            at: None,
            check: |g| assert_eq!(g.non_voter("李逵").as_deref(), Some("未投票，警告一次")),
        },
        Case {
            name: "the deadline is 21:00: later ballots are void",
            seed: (SEED, 98, "截止时间为每天的21：00"),
            ruleset: "qipan",
            config: DAY2,
            pages: Pages::CapturedAsPm,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                g.void(115, "截止");
                g.void(117, "截止");
            },
        },
        Case {
            name: "a near miss is not counted",
            seed: (SEED, 108, "请大家根据线索投票"),
            ruleset: "qipan",
            config: DAY2,
            pages: Pages::CapturedAsPm,
            day: 2,
            round: 1,
            at: None,
            check: |g| g.void(60, "可能是 李逵"),
        },
    ]);
}
