//! jiaohui (教会, seed 001): every vote rule of the seed, as a case through `bansha tally`.
//! The captured thread has three ballots in the jiaohui format (pids 34, 56, 110); the other
//! cases use derived pages (the captured API page with other replies).

mod common;
use common::{run_cases, Case, DPost, Pages};

const SEED: &str = "001_jiaohui.txt";
const AFTER: &str = "2026-11-29 21:30";
const DAY2: &str =
    "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n";
const DAY2_RUNOFF: &str = "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\nrunoff = { closes_at = \"2026-11-29 21:30:00\", candidates = [\"李逵\", \"小飞\"] }\n";

use common::post as p;

/// Eight ballots: 李逵 3 (大灰狼, 小飞, 花千树); four players do not vote (abstentions).
fn three_for_likui() -> Vec<DPost> {
    vec![
        p(
            201,
            "大灰狼",
            "2026-11-29 10:00:00",
            "大灰狼 第二天 第一次 投票的对象是 李逵 原因是 他太黑了",
        ),
        p(
            202,
            "小飞",
            "2026-11-29 10:01:00",
            "小飞 第二天 第一次 投票的对象是 李逵 原因是 跟票",
        ),
        p(
            203,
            "花千树",
            "2026-11-29 10:02:00",
            "花千树 第二天 第一次 投票的对象是 李逵 原因是 发言划水",
        ),
        p(
            204,
            "李逵",
            "2026-11-29 10:03:00",
            "李逵 第二天 第一次 投票的对象是 小飞 原因是 反投",
        ),
        p(
            205,
            "不见",
            "2026-11-29 10:04:00",
            "不见 第二天 第一次 投票的对象是 冷雪 原因是 直觉",
        ),
        p(
            206,
            "冷雪",
            "2026-11-29 10:05:00",
            "冷雪 第二天 第一次 投票的对象是 蝈蝈 原因是 不说话",
        ),
        p(
            207,
            "蝈蝈",
            "2026-11-29 10:06:00",
            "蝈蝈 第二天 第一次 投票的对象是 超人 原因是 悍跳",
        ),
        p(
            208,
            "超人",
            "2026-11-29 10:07:00",
            "超人 第二天 第一次 投票的对象是 yucca 原因是 划水",
        ),
    ]
}

#[test]
fn jiaohui() {
    run_cases(&[
        Case {
            name: "the seed's example ballot is read: voter, day, ordinal, target, reason",
            seed: (SEED, 176, "大灰狼 第二天 第一次 投票的对象是 小飞 原因是 他分票"),
            ruleset: "jiaohui",
            config: DAY2,
            pages: Pages::Derived(vec![p(201, "大灰狼", "2026-11-29 10:00:00", "大灰狼 第二天 第一次 投票的对象是 小飞 原因是 他分票")]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert!(g.is_valid(201));
                assert_eq!(g.votes("小飞"), 1.0);
            },
        },
        Case {
            name: "the seed's change, quotes and all, changes the vote",
            seed: (SEED, 179, "现在改为——投票的对象是“李逵 原因是 他太黑了。”"),
            ruleset: "jiaohui",
            config: DAY2,
            pages: Pages::Derived(vec![
                p(201, "大灰狼", "2026-11-29 10:00:00", "大灰狼 第二天 第一次 投票的对象是 小飞 原因是 他分票"),
                p(202, "大灰狼", "2026-11-29 11:00:00", "“大灰狼 第二天 第一次 投票的对象是 小飞 原因是 他分票”；现在改为——投票的对象是“李逵 原因是 他太黑了。”"),
            ]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert!(g.is_valid(202), "{:?}", g.verdict(202));
                assert_eq!(g.votes("李逵"), 1.0);
                assert_eq!(g.votes("小飞"), 0.0);
                assert!(g.text.contains("大灰狼：小飞 → 李逵"), "{}", g.text);
            },
        },
        Case {
            name: "25% is enough (inclusive): 3 of 12 goes out",
            seed: (SEED, 172, "得票超过25%(含25%)的最高票被判出局"),
            ruleset: "jiaohui",
            config: DAY2,
            pages: Pages::Derived(three_for_likui()),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.total(), 12.0, "8 ballots + 4 non-voters counted as abstentions");
                assert_eq!(g.json["threshold"]["needed"], 3.0);
                g.assert_outcome("eliminated", &["李逵"]);
            },
        },
        Case {
            name: "below 25%: nobody goes out",
            seed: (SEED, 172, "第一轮投票为试探性投票"),
            ruleset: "jiaohui",
            config: DAY2,
            pages: Pages::Derived({
                let mut v = three_for_likui();
                v[2] = p(203, "花千树", "2026-11-29 10:02:00", "花千树 第二天 第一次 投票的对象是 不见 原因是 发言划水");
                v
            }),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.votes("李逵"), 2.0);
                g.assert_outcome("none", &[]);
            },
        },
        Case {
            name: "two tied at the top above 25%: round 2",
            seed: (SEED, 173, "则进入第二轮高票辩论投票"),
            ruleset: "jiaohui",
            config: DAY2,
            pages: Pages::Derived({
                let mut v = three_for_likui();
                v[4] = p(205, "不见", "2026-11-29 10:04:00", "不见 第二天 第一次 投票的对象是 小飞 原因是 直觉");
                v[5] = p(206, "冷雪", "2026-11-29 10:05:00", "冷雪 第二天 第一次 投票的对象是 小飞 原因是 不说话");
                v
            }),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.votes("李逵"), 3.0);
                assert_eq!(g.votes("小飞"), 3.0);
                g.assert_outcome("runoff", &["李逵", "小飞"]);
            },
        },
        Case {
            name: "round 2: the highest among the tied dies; others are not candidates",
            seed: (SEED, 173, "此轮得票最高者死"),
            ruleset: "jiaohui",
            config: DAY2_RUNOFF,
            pages: Pages::Derived(vec![
                p(201, "大灰狼", "2026-11-29 10:00:00", "大灰狼 第二天 第一次 投票的对象是 李逵 原因是 他太黑了"),
                p(301, "大灰狼", "2026-11-29 21:05:00", "大灰狼 第二天 第二次 投票的对象是 李逵 原因是 还是他"),
                p(302, "冷雪", "2026-11-29 21:06:00", "冷雪 第二天 第二次 投票的对象是 李逵 原因是 辩论不行"),
                p(303, "李逵", "2026-11-29 21:07:00", "李逵 第二天 第二次 投票的对象是 小飞 原因是 反投"),
                p(304, "蝈蝈", "2026-11-29 21:08:00", "蝈蝈 第二天 第二次 投票的对象是 冷雪 原因是 乱投"),
            ]),
            day: 2,
            round: 2,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.votes("李逵"), 2.0);
                g.void(304, "不是第二轮候选人");
                assert!(g.json["ballots"].as_array().unwrap().iter().all(|b| b["pid"] != 201));
                g.assert_outcome("eliminated", &["李逵"]);
            },
        },
        Case {
            name: "the ID in the ballot must be the poster's own",
            seed: (SEED, 175, "自己版杀id 第几天 第几次"),
            ruleset: "jiaohui",
            config: DAY2,
            pages: Pages::Derived(vec![p(201, "大灰狼", "2026-11-29 10:00:00", "小飞 第二天 第一次 投票的对象是 李逵 原因是 替他投")]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| g.void(201, "不是发帖人"),
        },
        Case {
            name: "the day in the ballot must be the day being voted",
            seed: (SEED, 175, "第几天 第几次 投票的对象是"),
            ruleset: "jiaohui",
            config: DAY2,
            pages: Pages::Derived(vec![p(201, "大灰狼", "2026-11-29 10:00:00", "大灰狼 第三天 第一次 投票的对象是 李逵 原因是 抢跑")]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| g.void(201, "写的是第 3 天"),
        },
        Case {
            name: "only the seed's format is a ballot: the captured thread has three",
            seed: (SEED, 175, "的格式投票"),
            ruleset: "jiaohui",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                let pids: Vec<u64> = g.json["ballots"].as_array().unwrap().iter().map(|b| b["pid"].as_u64().unwrap()).collect();
                assert_eq!(pids, [34, 56, 110]);
                assert_eq!(g.votes("李逵"), 1.0, "大灰狼's change (pid 56, 18:02)");
                assert_eq!(g.votes("不见"), 1.0, "冷雪's 第二次 at 20:48 is her first jiaohui ballot");
            },
        },
        Case {
            name: "nothing is counted before the close",
            seed: (SEED, 178, "讨论和投票过程中不计票，讨论和投票时间结束时计票"),
            ruleset: "jiaohui",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: Some("2026-11-29 20:00"),
            check: |g| {
                g.assert_outcome("pending", &[]);
                assert_eq!(g.json["closed"], false);
            },
        },
        Case {
            name: "a change without a reason is void",
            seed: (SEED, 179, "并需要说明改票的理由"),
            ruleset: "jiaohui",
            config: DAY2,
            pages: Pages::Derived(vec![
                p(201, "大灰狼", "2026-11-29 10:00:00", "大灰狼 第二天 第一次 投票的对象是 小飞 原因是 他分票"),
                p(202, "大灰狼", "2026-11-29 11:00:00", "大灰狼 第二天 第一次 投票的对象是 小飞 原因是 他分票；现在改为——投票的对象是 李逵"),
                p(203, "小飞", "2026-11-29 10:00:00", "小飞 第二天 第一次 投票的对象是 冷雪 原因是 乱"),
                p(204, "小飞", "2026-11-29 11:00:00", "小飞 第二天 第一次 投票的对象是 冷雪 原因是 乱；现在改为——投票的对象是 李逵 原因是"),
            ]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.void(202, "缺少理由");
                g.void(204, "未说明理由");
                assert_eq!(g.votes("小飞"), 1.0);
                assert_eq!(g.votes("冷雪"), 1.0);
            },
        },
        Case {
            name: "one change only; the second is void",
            seed: (SEED, 179, "每次投票只允许改票1次，超过1次的改票无效"),
            ruleset: "jiaohui",
            config: DAY2,
            pages: Pages::Derived(vec![
                p(201, "大灰狼", "2026-11-29 10:00:00", "大灰狼 第二天 第一次 投票的对象是 小飞 原因是 他分票"),
                p(202, "大灰狼", "2026-11-29 11:00:00", "大灰狼 第二天 第一次 投票的对象是 小飞 原因是 他分票；现在改为——投票的对象是 李逵 原因是 他太黑了"),
                p(203, "大灰狼", "2026-11-29 12:00:00", "大灰狼 第二天 第二次 投票的对象是 李逵 原因是 他太黑了；现在改为——投票的对象是 冷雪 原因是 再想想"),
            ]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert!(g.is_valid(202));
                g.void(203, "超过改票次数");
                assert_eq!(g.votes("李逵"), 1.0);
            },
        },
        Case {
            name: "no change in the last hour",
            seed: (SEED, 180, "投票时间结束前1小时内不允许改票，否则改票无效"),
            ruleset: "jiaohui",
            config: DAY2,
            pages: Pages::Derived(vec![
                p(201, "大灰狼", "2026-11-29 10:00:00", "大灰狼 第二天 第一次 投票的对象是 小飞 原因是 他分票"),
                p(202, "大灰狼", "2026-11-29 20:30:00", "大灰狼 第二天 第一次 投票的对象是 小飞 原因是 他分票；现在改为——投票的对象是 李逵 原因是 他太黑了"),
                p(203, "冷雪", "2026-11-29 20:40:00", "冷雪 第二天 第一次 投票的对象是 李逵 原因是 最后一刻"),
            ]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.void(202, "不得改票");
                assert!(g.is_valid(203), "a first ballot in the last hour is allowed");
                assert_eq!(g.votes("小飞"), 1.0);
            },
        },
        Case {
            name: "an abstention is a ballot",
            seed: (SEED, 181, "玩家可以投弃权票，弃权票也视为一次投票或改票"),
            ruleset: "jiaohui",
            config: DAY2,
            pages: Pages::Derived(vec![
                p(201, "音乐虫子", "2026-11-29 10:00:00", "音乐虫子 第二天 第一次 投票的对象是 弃权 原因是 信息太少"),
                p(202, "大灰狼", "2026-11-29 10:00:00", "大灰狼 第二天 第一次 投票的对象是 小飞 原因是 他分票"),
                p(203, "大灰狼", "2026-11-29 11:00:00", "大灰狼 第二天 第一次 投票的对象是 小飞 原因是 他分票；现在改为——投票的对象是 弃票 原因是 想不清"),
            ]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.json["ballots"][0]["kind"], "abstain");
                assert!(g.is_valid(203), "a change to 弃票 is a change");
                assert_eq!(g.json["abstentions"].as_array().unwrap().len(), 2);
            },
        },
        Case {
            name: "no ballot by the close counts as abstaining",
            seed: (SEED, 181, "这种意愿也必须通过投弃权票的方式表达，不能不投"),
            ruleset: "jiaohui",
            config: DAY2,
            pages: Pages::Derived(three_for_likui()),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.non_voter("雪罂子").as_deref(), Some("未投票，按弃权计"));
                assert_eq!(g.json["non_voters"].as_array().unwrap().len(), 4);
            },
        },
        Case {
            name: "forum time: a ballot after the close is void, the voter abstains",
            seed: (SEED, 182, "所有时间以KB论坛时间为准，超过一律视为弃权票"),
            ruleset: "jiaohui",
            config: DAY2,
            pages: Pages::Derived(vec![
                p(201, "大灰狼", "2026-11-29 20:59:59", "大灰狼 第二天 第一次 投票的对象是 小飞 原因是 卡点"),
                p(202, "小飞", "2026-11-29 21:00:01", "小飞 第二天 第一次 投票的对象是 大灰狼 原因是 晚了"),
            ]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert!(g.is_valid(201));
                g.void(202, "截止");
                assert_eq!(g.non_voter("小飞").as_deref(), Some("未投票，按弃权计"));
            },
        },
        Case {
            name: "the dead do not vote",
            seed: (SEED, 4, "死亡的玩家失去在游戏室内的讨论和投票权"),
            ruleset: "jiaohui",
            config: DAY2,
            pages: Pages::Derived(vec![p(201, "龙舌", "2026-11-29 10:00:00", "龙舌 第二天 第一次 投票的对象是 小飞 原因是 死了也要投")]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.votes("小飞"), 0.0);
                assert!(g.json["ignored"].to_string().contains("龙舌 已出局"));
            },
        },
        Case {
            name: "a run-off tied again: nobody goes out",
            seed: (SEED, 173, "如果试探性投票中出现2位得票超过25%且票数相同者"),
            ruleset: "jiaohui",
            config: DAY2_RUNOFF,
            pages: Pages::Derived(vec![
                p(301, "大灰狼", "2026-11-29 21:05:00", "大灰狼 第二天 第二次 投票的对象是 李逵 原因是 还是他"),
                p(302, "李逵", "2026-11-29 21:07:00", "李逵 第二天 第二次 投票的对象是 小飞 原因是 反投"),
            ]),
            day: 2,
            round: 2,
            at: Some(AFTER),
            check: |g| g.assert_outcome("none", &[]),
        },
        // Issue 29 (live game): 李逵's "第二天 第一次" 30 s after round 1's close became his
        // round-2 ballot, and his real one was called a repeat.
        Case {
            name: "round 2: a late ballot naming round 1 is round 1's, not round 2's",
            seed: (SEED, 175, "自己版杀id 第几天 第几次"),
            ruleset: "jiaohui",
            config: DAY2_RUNOFF,
            pages: Pages::Derived(vec![
                p(301, "李逵", "2026-11-29 21:00:30", "李逵 第二天 第一次 投票的对象是 小飞 原因是 晚了"),
                p(302, "李逵", "2026-11-29 21:05:00", "李逵 第二天 第二次 投票的对象是 小飞 原因是 辩论不行"),
                p(303, "大灰狼", "2026-11-29 21:06:00", "大灰狼 第二天 第二次 投票的对象是 李逵 原因是 还是他"),
            ]),
            day: 2,
            round: 2,
            at: Some(AFTER),
            check: |g| {
                assert!(g.is_valid(302), "{}", g.json["ballots"]);
                assert_eq!(g.json["ballots"][0]["kind"], "first", "{}", g.json["ballots"]);
                assert!(g.json["ballots"].as_array().unwrap().iter().all(|b| b["pid"] != 301));
                let ignored = g.json["ignored"].to_string();
                assert!(ignored.contains("写明是第一次投票"), "{ignored}");
                assert_eq!(g.votes("小飞"), 1.0);
            },
        },
        Case {
            name: "round 1: its late ballots are its own; round 2's ballots are not among them",
            seed: (SEED, 173, "进入第二轮高票辩论投票"),
            ruleset: "jiaohui",
            config: DAY2_RUNOFF,
            pages: Pages::Derived(vec![
                p(301, "李逵", "2026-11-29 21:00:30", "李逵 第二天 第一次 投票的对象是 小飞 原因是 晚了"),
                p(302, "李逵", "2026-11-29 21:05:00", "李逵 第二天 第二次 投票的对象是 小飞 原因是 辩论不行"),
            ]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.void(301, "截止");
                assert!(g.json["ballots"].as_array().unwrap().iter().all(|b| b["pid"] != 302));
                let ignored = g.json["ignored"].to_string();
                assert!(ignored.contains("计入第二轮"), "{ignored}");
            },
        },
    ]);
}
