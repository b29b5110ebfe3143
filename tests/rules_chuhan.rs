//! chuhan (楚汉, seed 000): every vote rule of the seed, as a case through `bansha tally`.
//! Captured = the real day-2 thread (tid 3); Derived = the captured API page with other replies.
//! The chuhan preset reads format two (投票对象：X, reason optional) until the judge announces
//! another; format one (第几天 第几次) is not a chuhan ballot.

mod common;
use common::{run_cases, Case, DPost, Pages};

const SEED: &str = "000_chuhan.txt";
/// Derived pages carry no server time: the tally is asked for after the close.
const AFTER: &str = "2026-11-29 21:30";
const DAY2: &str =
    "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n";

use common::post as p;

/// Ten ballots spread over seven targets: 李逵 tops with 2 of 10 (20%).
fn spread() -> Vec<DPost> {
    vec![
        p(201, "大灰狼", "2026-11-29 10:00:00", "投票对象：李逵"),
        p(202, "小飞", "2026-11-29 10:01:00", "投票对象：李逵"),
        p(203, "李逵", "2026-11-29 10:02:00", "投票对象：花千树"),
        p(204, "花千树", "2026-11-29 10:03:00", "投票对象：不见"),
        p(205, "不见", "2026-11-29 10:04:00", "投票对象：冷雪"),
        p(206, "冷雪", "2026-11-29 10:05:00", "投票对象：蝈蝈"),
        p(207, "蝈蝈", "2026-11-29 10:06:00", "投票对象：超人"),
        p(208, "超人", "2026-11-29 10:07:00", "投票对象：yucca"),
        p(209, "yucca", "2026-11-29 10:08:00", "投票对象：雪罂子"),
        p(210, "雪罂子", "2026-11-29 10:09:00", "投票对象：花千树"),
    ]
}

#[test]
fn chuhan() {
    run_cases(&[
        Case {
            name: "30% of the votes cast, inclusive: 4 of 12 is executed",
            seed: (SEED, 111, "得票等于或超过总票数30%的最高票得主被处决"),
            ruleset: "chuhan",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert_eq!(g.total(), 12.0);
                assert_eq!(g.json["threshold"]["needed"], 3.6);
                assert_eq!(g.votes("李逵"), 4.0);
                g.assert_outcome("eliminated", &["李逵"]);
            },
        },
        Case {
            name: "nobody at 30%: no execution",
            seed: (SEED, 111, "如无人等于或超过总票数30%，则当天不处决任何人"),
            ruleset: "chuhan",
            config: DAY2,
            pages: Pages::Derived(spread()),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.total(), 10.0);
                assert_eq!(g.votes("李逵"), 2.0);
                assert_eq!(g.votes("花千树"), 2.0);
                g.assert_outcome("none", &[]);
                assert!(g.text.contains("未达到门槛 3 票"), "{}", g.text);
            },
        },
        Case {
            name: "tied at the top with at least 30%: round 2 among them",
            seed: (SEED, 113, "则所有最高票得主接受第二轮高票辩论投票"),
            ruleset: "chuhan",
            // At a 09:10 close: 大灰狼 2 (超人, 小飞), 李逵 1 + curse = 2, of 6 cast.
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-29 09:10:00\"\ndead = [\"龙舌\", \"青鸾花\"]\ncurse = \"李逵\"\n",
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert_eq!(g.total(), 6.0);
                assert_eq!(g.votes("大灰狼"), 2.0);
                assert_eq!(g.votes("李逵"), 2.0);
                g.assert_outcome("runoff", &["李逵", "大灰狼"]);
                assert!(g.text.contains("进入第二轮"), "{}", g.text);
            },
        },
        Case {
            name: "左士's curse adds one vote at the close, and the tally says so",
            seed: (SEED, 80, "第二天投票结束时法官将给被诅咒的对象多计一票，并说明该票来自诅咒"),
            ruleset: "chuhan",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\ncurse = \"大灰狼\"\n",
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert_eq!(g.votes("大灰狼"), 3.0);
                assert_eq!(g.total(), 12.0, "the curse is not a ballot");
                assert!(g.text.contains("大灰狼 3 票（含左士诅咒 +1）"), "{}", g.text);
                g.assert_outcome("eliminated", &["李逵"]);
            },
        },
        Case {
            name: "右士's blessing removes one vote: 3 of 12 is below 30%",
            seed: (SEED, 82, "第二天投票结束时法官将给被庇佑的对象少计一票"),
            ruleset: "chuhan",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\nbless = \"李逵\"\n",
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert_eq!(g.votes("李逵"), 3.0);
                assert!(g.text.contains("李逵 3 票（含右士庇佑 −1）"), "{}", g.text);
                g.assert_outcome("none", &[]);
            },
        },
        Case {
            name: "round 2: only ballots after round 1, only for the tied, no curse carried",
            seed: (SEED, 114, "诅咒和庇佑的效果不能带入第二轮投票"),
            ruleset: "chuhan",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\ncurse = \"大灰狼\"\nrunoff = { closes_at = \"2026-11-29 21:15:00\", candidates = [\"李逵\", \"大灰狼\"] }\n",
            pages: Pages::Captured,
            day: 2,
            round: 2,
            at: None,
            check: |g| {
                // pid 115 (21:00:40) 小熊维尼 → 李逵; pid 117 (21:12) yucca → 花千树.
                assert_eq!(g.votes("李逵"), 1.0);
                assert_eq!(g.votes("大灰狼"), 0.0);
                g.void(117, "不是第二轮候选人");
                g.void(121, "截止");
                assert_eq!(g.json["ballots"].as_array().unwrap().len(), 3, "round-1 ballots are not round-2 ballots");
                g.assert_outcome("eliminated", &["李逵"]);
            },
        },
        Case {
            name: "round 2 tied again: nobody is executed",
            seed: (SEED, 113, "如再度平票，则当天不处决任何人"),
            ruleset: "chuhan",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\nrunoff = { closes_at = \"2026-11-29 21:30:00\", candidates = [\"李逵\", \"大灰狼\"] }\n",
            pages: Pages::Captured,
            day: 2,
            round: 2,
            at: Some(AFTER),
            check: |g| {
                // + pid 121 (21:18:13) 雪罂子 → 大灰狼.
                assert_eq!(g.votes("李逵"), 1.0);
                assert_eq!(g.votes("大灰狼"), 1.0);
                g.assert_outcome("none", &[]);
            },
        },
        Case {
            name: "one change per round; the second change is void",
            seed: (SEED, 116, "每轮投票允许玩家改票1次，超过1次的改票无效"),
            ruleset: "chuhan",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert!(g.is_valid(75));
                g.void(88, "超过改票次数");
                assert_eq!(g.votes("小熊维尼"), 1.0);
            },
        },
        Case {
            name: "no change in the last hour before the close",
            seed: (SEED, 117, "投票时间结束前1小时内禁止改票"),
            ruleset: "chuhan",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                g.void(108, "不得改票");
                g.void(114, "不得改票");
                assert!(g.is_valid(103), "超人's change at 19:45 is before the lock");
                assert_eq!(g.json["lock_from"], "2026-11-29T20:00:00+08:00");
            },
        },
        Case {
            name: "an abstention is a vote and counts in the total",
            seed: (SEED, 118, "弃权票也视为一次投票或改票"),
            ruleset: "chuhan",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert_eq!(g.json["abstentions"][0]["voter"], "音乐虫子");
                assert_eq!(g.json["threshold"]["base"], 12.0);
                assert!(g.text.contains("弃权 1 票：音乐虫子（8#）"), "{}", g.text);
            },
        },
        Case {
            name: "a living player who does not vote is lurking once",
            seed: (SEED, 118, "不参加投票视同一次潜水"),
            ruleset: "chuhan",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-28 14:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n",
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                // By 14:00 on the 28th only 冷雪, 蝈蝈 and 超人 had voted.
                assert_eq!(g.json["non_voters"].as_array().unwrap().len(), 9);
                assert_eq!(g.non_voter("李逵").as_deref(), Some("未投票，记潜水一次"));
                assert_eq!(g.non_voter("冷雪"), None);
            },
        },
        Case {
            name: "a malformed ballot is void, uses nothing, and may be posted again",
            seed: (SEED, 119, "格式错误的投票或改票无效，允许在投票时间内再次投票或改票直至符合格式要求"),
            ruleset: "chuhan",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                g.void(47, "缺少冒号");
                assert!(g.verdict(47).1.contains("看起来是投 超人"));
                assert!(g.is_valid(85));
                assert_eq!(g.json["ballots"].as_array().unwrap().iter().find(|b| b["pid"] == 85).unwrap()["kind"], "first");
            },
        },
        Case {
            name: "the judge's own announced format: ##vote:X, any width and case",
            seed: (SEED, 119, "按格式要求跟帖进行"),
            ruleset: "chuhan",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n[[rules.ballot.formats]]\nname = \"vote\"\nvote = \"##vote:{target}\"\n",
            pages: Pages::Derived(vec![
                p(201, "大灰狼", "2026-11-29 10:00:00", "＃＃ｖｏｔｅ：李逵"),
                p(202, "小飞", "2026-11-29 10:01:00", "##VOTE: 李逵！"),
                p(203, "李逵", "2026-11-29 10:02:00", "投票对象：小飞"),
                p(204, "花千树", "2026-11-29 10:03:00", "##vote 小飞"),
            ]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.votes("李逵"), 2.0);
                assert_eq!(g.votes("小飞"), 0.0, "the old format is not this game's format");
                g.void(204, "缺少冒号");
            },
        },
        Case {
            name: "a ballot with a condition is void (a target, then 如果 / 若 / 除非 / …的话)",
            seed: (SEED, 120, "投票时不得为自己这一票设定生效条件"),
            ruleset: "chuhan",
            config: DAY2,
            pages: Pages::Derived(vec![
                p(201, "大灰狼", "2026-11-29 10:00:00", "投票对象：李逵，如果他今晚不解释"),
                p(202, "小飞", "2026-11-29 10:01:00", "投票对象：李逵 若他不跳身份"),
                p(203, "花千树", "2026-11-29 10:02:00", "投票对象：李逵，除非小飞先出局"),
                p(204, "冷雪", "2026-11-29 10:03:00", "投票对象：李逵（他不跳的话）"),
                p(205, "蝈蝈", "2026-11-29 10:04:00", "投票对象：李逵\n投票理由：如果他是好人就不会这样发言"),
                p(206, "大灰狼", "2026-11-29 10:05:00", "投票对象：李逵"),
            ]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                for pid in [201, 202, 203, 204] {
                    g.void(pid, "设定了生效条件");
                }
                assert!(g.is_valid(205), "a condition in the reason is not a condition on the vote");
                assert!(g.is_valid(206), "the void one used nothing");
                assert_eq!(g.votes("李逵"), 2.0);
            },
        },
        Case {
            name: "a near miss is not counted; the judge is told who it may be",
            seed: (SEED, 120, "投票必须投给一个还活着的确定的玩家"),
            ruleset: "chuhan",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                g.void(60, "无效：对象不明确，可能是 李逵");
                assert!(g.is_valid(105));
            },
        },
        Case {
            name: "an alias the judge accepts resolves to the player",
            seed: (SEED, 120, "投票必须投给一个还活着的确定的玩家"),
            ruleset: "chuhan",
            config: "[roster.aliases]\n\"李逵\" = [\"李奎\", \"黑旋风\"]\n[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n",
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert!(g.is_valid(60), "{:?}", g.verdict(60));
                assert_eq!(g.json["ballots"].as_array().unwrap().iter().find(|b| b["pid"] == 60).unwrap()["target"], "李逵");
                assert_eq!(g.json["ballots"].as_array().unwrap().iter().find(|b| b["pid"] == 105).unwrap()["kind"], "repeat");
            },
        },
        Case {
            name: "where the judge forbids it, a vote for oneself is void",
            seed: (SEED, 120, "投票必须投给一个还活着的确定的玩家"),
            ruleset: "chuhan",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n[rules.vote]\nself_vote = false\n",
            pages: Pages::Derived(vec![
                p(201, "大灰狼", "2026-11-29 10:00:00", "投票对象：大灰狼"),
                p(202, "大灰狼", "2026-11-29 10:05:00", "投票对象：李逵"),
            ]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.void(201, "不能投自己");
                assert!(g.is_valid(202), "the void ballot used nothing");
                assert_eq!(g.json["ballots"][1]["kind"], "first");
            },
        },
        Case {
            name: "a ballot for a dead player is void and uses nothing",
            seed: (SEED, 120, "投票必须投给一个还活着的确定的玩家"),
            ruleset: "chuhan",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\", \"大灰狼\"]\n",
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                g.void(45, "大灰狼 已出局");
                g.void(68, "大灰狼 已出局");
                // Their later ballots are first ballots: the lock does not apply to them.
                assert!(g.is_valid(103));
                assert!(g.is_valid(108), "{:?}", g.verdict(108));
                assert_eq!(g.votes("大灰狼"), 0.0);
            },
        },
        Case {
            name: "dead players do not vote; their posts are listed, not counted",
            seed: (SEED, 123, "死去的玩家不得再在游戏室内发言"),
            ruleset: "chuhan",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                let ignored = g.json["ignored"].to_string();
                assert!(ignored.contains("龙舌 已出局，投票不计"), "{ignored}");
                assert!(ignored.contains("青鸾花 已出局，投票不计"), "{ignored}");
                assert_eq!(g.votes("小飞"), 0.0, "龙舌's vote for 小飞 is not counted");
            },
        },
        Case {
            name: "spectators are not players: not voters, not targets",
            seed: (SEED, 124, "旁观者不得在游戏室内发言"),
            ruleset: "chuhan",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                g.void(62, "路人甲 不是本局玩家");
                assert!(g.is_valid(83), "不见's next ballot is his first valid one");
            },
        },
        Case {
            name: "the forum's clock decides: 20:59:58 is in, 21:00:40 is out",
            seed: (SEED, 153, "游戏中的所有时钟均以“杀手的童话”论坛发帖时显示的时钟为准"),
            ruleset: "chuhan",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert!(g.is_valid(113));
                g.void(115, "截止");
                g.void(121, "截止");
            },
        },
        Case {
            name: "one vote each: a ballot naming two players is void",
            seed: (SEED, 109, "每人可以投一票"),
            ruleset: "chuhan",
            config: DAY2,
            pages: Pages::Derived(vec![
                p(201, "大灰狼", "2026-11-29 10:00:00", "投票对象：李逵、小飞"),
                p(202, "小飞", "2026-11-29 10:01:00", "投票对象：李逵"),
            ]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.void(201, "多个对象");
                assert_eq!(g.votes("李逵"), 1.0);
            },
        },
        Case {
            name: "before the close the tally is provisional",
            seed: (SEED, 118, "玩家在白天的各轮投票中必须投票"),
            ruleset: "chuhan",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: Some("2026-11-29 12:00"),
            check: |g| {
                assert_eq!(g.json["closed"], false);
                g.assert_outcome("pending", &[]);
                assert_eq!(g.non_voter("花千树").as_deref(), Some("尚未投票"));
                assert!(g.text.contains("以下为临时统计"), "{}", g.text);
            },
        },
        // Issue 29 (live game): round 2 starts when the judge opens it. Between round 1's close
        // and the judge's announcement, a ballot that names no round is a late round-1 ballot.
        Case {
            name: "round 2 opens at the judge's announcement; earlier ballots are round 1's",
            seed: (SEED, 105, "游戏将进入第二轮高票辩论投票"),
            ruleset: "chuhan",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\nrunoff = { closes_at = \"2026-11-29 22:00:00\", candidates = [\"李逵\", \"大灰狼\"] }\n",
            pages: Pages::Derived(vec![
                p(301, "小飞", "2026-11-29 21:00:30", "投票对象：李逵\n投票理由：晚了一点"),
                p(302, "版杀一室法官", "2026-11-29 21:10:00", "第一轮李逵、大灰狼平票，进入第二轮高票辩论投票"),
                p(303, "冷雪", "2026-11-29 21:20:00", "投票对象：大灰狼\n投票理由：辩论不行"),
            ]),
            day: 2,
            round: 2,
            at: Some("2026-11-29 22:30"),
            check: |g| {
                assert_eq!(g.json["ballots"].as_array().unwrap().len(), 1, "{}", g.json["ballots"]);
                assert!(g.is_valid(303));
                assert_eq!(g.votes("李逵"), 0.0);
            },
        },
        Case {
            name: "round 1 with round 2 announced: a ballot before the announcement is late, after it round 2's",
            seed: (SEED, 105, "游戏将进入第二轮高票辩论投票"),
            ruleset: "chuhan",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\nrunoff = { closes_at = \"2026-11-29 22:00:00\", candidates = [\"李逵\", \"大灰狼\"] }\n",
            pages: Pages::Derived(vec![
                p(301, "小飞", "2026-11-29 21:00:30", "投票对象：李逵\n投票理由：晚了一点"),
                p(302, "版杀一室法官", "2026-11-29 21:10:00", "第一轮李逵、大灰狼平票，进入第二轮高票辩论投票"),
                p(303, "冷雪", "2026-11-29 21:20:00", "投票对象：大灰狼\n投票理由：辩论不行"),
            ]),
            day: 2,
            round: 1,
            at: Some("2026-11-29 22:30"),
            check: |g| {
                g.void(301, "截止");
                assert!(g.json["ballots"].as_array().unwrap().iter().all(|b| b["pid"] != 303));
            },
        },
        Case {
            name: "round 2 opens when the runoff block says, before any announcement",
            seed: (SEED, 105, "游戏将进入第二轮高票辩论投票"),
            ruleset: "chuhan",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\nrunoff = { opens_at = \"2026-11-29 21:25:00\", closes_at = \"2026-11-29 22:00:00\", candidates = [\"李逵\", \"大灰狼\"] }\n",
            pages: Pages::Derived(vec![
                p(302, "版杀一室法官", "2026-11-29 21:10:00", "第一轮李逵、大灰狼平票，进入第二轮高票辩论投票"),
                p(303, "冷雪", "2026-11-29 21:20:00", "投票对象：大灰狼\n投票理由：辩论不行"),
                p(304, "小飞", "2026-11-29 21:30:00", "投票对象：李逵\n投票理由：辩论更差"),
            ]),
            day: 2,
            round: 2,
            at: Some("2026-11-29 22:30"),
            check: |g| {
                assert_eq!(g.json["ballots"].as_array().unwrap().len(), 1, "{}", g.json["ballots"]);
                assert!(g.is_valid(304));
            },
        },
    ]);
}
