//! m103 ([M103] 菁华浮梦, seed 002): every vote rule of the seed, as a case through
//! `bansha tally`. The m103 ballot format is the captured thread's format two, so most cases
//! run on the captured thread (under the m103 preset, format one is not a ballot).

mod common;
use common::{run_cases, Case, DPost, Pages};

const SEED: &str = "002_m103.txt";
const AFTER: &str = "2026-11-29 21:30";
const DAY2: &str =
    "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n";

use common::post as p;

/// Void ballots at each point of the day: no valid ballot yet (201, 19:00), a change without
/// its quote a minute before the lock (203), a change in the lock (205, 20:10), a late one (206).
fn hint_posts() -> Vec<DPost> {
    vec![
        p(
            201,
            "大灰狼",
            "2026-11-29 19:00:00",
            "投票对象：路人甲\n投票理由：x",
        ),
        p(
            202,
            "小飞",
            "2026-11-29 10:00:00",
            "投票对象：花千树\n投票理由：划水",
        ),
        p(
            203,
            "小飞",
            "2026-11-29 19:59:00",
            "改票对象：李逵\n改票理由：他太黑",
        ),
        p(
            204,
            "冷雪",
            "2026-11-29 10:00:00",
            "投票对象：花千树\n投票理由：划水",
        ),
        DPost {
            pid: 205,
            author: "冷雪",
            at: "2026-11-29 20:10:00",
            text: "改票对象：李逵\n改票理由：他太黑",
            quotes: Some(204),
        },
        p(
            206,
            "蝈蝈",
            "2026-11-29 21:10:00",
            "投票对象：李逵\n投票理由：晚了",
        ),
    ]
}

/// The BBCode a judge pastes tells no player what they may still do.
fn assert_no_hint_in_public(g: &common::Got) {
    for word in ["重新投票", "改票须在", "不能再改票", "仍可"] {
        assert!(
            !g.text.contains(word),
            "{word} in the public tally:\n{}",
            g.text
        );
    }
}

#[test]
fn m103() {
    run_cases(&[
        Case {
            name: "most votes goes out",
            seed: (SEED, 61, "第二天及以后的白天，获得投票最多的角色将出局"),
            ruleset: "m103",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert_eq!(g.votes("李逵"), 4.0);
                assert_eq!(g.votes("大灰狼"), 2.0);
                g.assert_outcome("eliminated", &["李逵"]);
            },
        },
        Case {
            name: "a tie at the top: nobody goes out",
            seed: (SEED, 61, "平票则无人出局"),
            ruleset: "m103",
            // At 16:00 on the 28th: 花千树, 李逵 and 大灰狼 have one vote each.
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-28 16:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n",
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert_eq!((g.votes("花千树"), g.votes("李逵"), g.votes("大灰狼")), (1.0, 1.0, 1.0));
                g.assert_outcome("none", &[]);
            },
        },
        Case {
            name: "day 1: the first to reach the top count becomes sheriff",
            seed: (SEED, 152, "最先获得投票数最多的角色当选警长"),
            ruleset: "m103",
            config: "[[days]]\nday = 1\ncloses_at = \"2026-11-28 16:00:00\"\n",
            pages: Pages::Captured,
            day: 1,
            round: 1,
            at: None,
            check: |g| {
                // 冷雪 → 花千树 at 10:03:10, 蝈蝈 → 李逵 at 11:47:05, 超人 → 大灰狼 at 13:20:41.
                g.assert_outcome("sheriff", &["花千树"]);
                assert!(g.text.contains("最先达到该票数，当选警长"), "{}", g.text);
                // The rule line states day 1's own rule, not the elimination rule.
                assert!(g.text.contains("[b]规则[/b]：第一天投票选警长"), "{}", g.text);
            },
        },
        Case {
            name: "the sheriff's vote counts 1.5",
            seed: (SEED, 153, "计算投票数量时警长投出的票计为1.5票"),
            ruleset: "m103",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\nsheriff = \"超人\"\n",
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert_eq!(g.votes("大灰狼"), 2.5);
                assert!(g.text.contains("超人（6#，计 1.5 票）"), "{}", g.text);
            },
        },
        Case {
            // Issue 29 item 14: "弃权 3 票" above "总票数：3.5" did not add up for a reader.
            name: "the sheriff abstaining: the abstentions count by weight, and say so",
            seed: (SEED, 153, "计算投票数量时警长投出的票计为1.5票"),
            ruleset: "m103",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\nsheriff = \"超人\"\n",
            pages: Pages::Derived(vec![
                p(201, "大灰狼", "2026-11-29 10:00:00", "投票对象：弃权\n投票理由：没信息"),
                p(202, "超人", "2026-11-29 10:01:00", "投票对象：弃权\n投票理由：再看看"),
                p(203, "小飞", "2026-11-29 10:02:00", "投票对象：弃权\n投票理由：同上"),
            ]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                assert_eq!(g.json["total_votes"], 3.5);
                assert!(
                    g.text.contains("弃权 3.5 票（3 人，警长的一票计 1.5 票）"),
                    "{}",
                    g.text
                );
                assert!(g.text.contains("超人（板凳，计 1.5 票）"), "{}", g.text);
                assert!(!g.text.contains("弃权 3 票"), "{}", g.text);
                assert!(
                    g.text.contains("总票数：3.5（警长的一票计 1.5 票）"),
                    "{}",
                    g.text
                );
            },
        },
        Case {
            name: "a change must quote the original ballot post",
            seed: (SEED, 249, "改票时必须引用原投票帖"),
            ruleset: "m103",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                g.void(95, "改票未引用自己的原投票帖");
                g.void(103, "改票未引用自己的原投票帖");
                assert_eq!(g.votes("超人"), 1.0);
            },
        },
        Case {
            name: "a change that quotes the original and names target and reason is valid",
            seed: (SEED, 259, "改票对象：不见"),
            ruleset: "m103",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert!(g.is_valid(65));
                assert!(g.is_valid(75));
                assert_eq!(g.votes("不见"), 1.0);
                assert!(g.text.contains("13# 冷雪：花千树 → 不见"), "{}", g.text);
            },
        },
        Case {
            name: "only one change",
            seed: (SEED, 249, "（只）有一次改票机会"),
            ruleset: "m103",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| g.void(88, "超过改票次数（每轮最多 1 次）"),
        },
        Case {
            name: "no change in the last hour",
            seed: (SEED, 249, "白天结束前一个小时不得改票"),
            ruleset: "m103",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                g.void(108, "不得改票");
                assert_eq!(g.votes("大灰狼"), 2.0, "小飞 stays on 大灰狼");
            },
        },
        Case {
            name: "abstaining takes a ballot post, and it is one ballot",
            seed: (SEED, 249, "允许弃权，弃权也需要发投票帖，并计为一次投票"),
            ruleset: "m103",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert_eq!(g.json["ballots"].as_array().unwrap().iter().find(|b| b["pid"] == 50).unwrap()["kind"], "abstain");
                assert_eq!(g.json["abstentions"][0]["voter"], "音乐虫子");
            },
        },
        Case {
            name: "a malformed ballot is void (废票)",
            seed: (SEED, 249, "投票格式有误的投票将算作废票"),
            ruleset: "m103",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                g.void(47, "格式错误，缺少冒号");
                g.void(92, "格式错误，缺少理由");
                g.void(106, "格式错误");
            },
        },
        Case {
            name: "a change without its reason is void",
            seed: (SEED, 249, "并明确说明改票对象和改票理由"),
            ruleset: "m103",
            config: DAY2,
            pages: Pages::Derived(vec![
                p(201, "大灰狼", "2026-11-29 10:00:00", "投票对象：小飞\n投票理由：他分票"),
                DPost { pid: 202, author: "大灰狼", at: "2026-11-29 11:00:00", text: "改票对象：李逵\n改票理由：", quotes: Some(201) },
                DPost { pid: 203, author: "大灰狼", at: "2026-11-29 12:00:00", text: "改票对象：李逵\n改票理由：他太黑", quotes: Some(201) },
            ]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.void(202, "未说明理由");
                assert!(g.is_valid(203), "the void change used nothing");
                assert_eq!(g.votes("李逵"), 1.0);
            },
        },
        Case {
            name: "a change with no ballot of one's own to change, or quoting another's, is void and uses nothing",
            seed: (SEED, 249, "改票时必须引用原投票帖"),
            ruleset: "m103",
            config: DAY2,
            pages: Pages::Derived(vec![
                p(201, "大灰狼", "2026-11-29 10:00:00", "改票对象：李逵\n改票理由：他太黑"),
                p(202, "小飞", "2026-11-29 10:01:00", "投票对象：花千树\n投票理由：划水"),
                DPost { pid: 203, author: "冷雪", at: "2026-11-29 10:02:00", text: "改票对象：李逵\n改票理由：跟票", quotes: Some(202) },
                p(204, "大灰狼", "2026-11-29 10:03:00", "投票对象：小飞\n投票理由：他分票"),
                DPost { pid: 205, author: "大灰狼", at: "2026-11-29 10:04:00", text: "改票对象：李逵\n改票理由：还是他", quotes: Some(204) },
            ]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.void(201, "没有可改的投票");
                g.void(203, "没有可改的投票");
                assert!(g.is_valid(204), "the void change used nothing: a first ballot after it is valid");
                assert!(g.is_valid(205), "and its one change is still there");
                assert_eq!(g.votes("李逵"), 1.0);
                assert_eq!(g.non_voter("冷雪").as_deref(), Some("未投票，记黄牌一张"));
            },
        },
        Case {
            name: "an empty reason is no reason",
            seed: (SEED, 249, "明确说明投票对象和投票理由"),
            ruleset: "m103",
            config: DAY2,
            pages: Pages::Derived(vec![
                p(201, "大灰狼", "2026-11-29 10:00:00", "投票对象：小飞\n投票理由："),
                p(202, "小飞", "2026-11-29 10:01:00", "投票对象：李逵\n投票理由：  "),
                p(203, "冷雪", "2026-11-29 10:02:00", "投票对象：李逵\n投票理由：划水"),
            ]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                g.void(201, "理由");
                g.void(202, "理由");
                assert!(g.is_valid(203));
            },
        },
        // Issue 29 item 4: what a voter whose ballot is void can still do is told the judge as
        // of the tally's moment (open, in the lock, closed), never in the public BBCode.
        Case {
            name: "a void ballot's hint, while open, says what is still possible now",
            seed: (SEED, 249, "白天结束前一个小时不得改票"),
            ruleset: "m103",
            config: DAY2,
            pages: Pages::Derived(hint_posts()),
            day: 2,
            round: 1,
            at: Some("2026-11-29 19:59"),
            check: |g| {
                g.void(201, "不是本局玩家");
                assert_eq!(g.hint(201), "可在截止（11-29 21:00:00）前重新投票");
                assert_eq!(g.hint(203), "现有投票（板凳）仍有效，如要改票须在 11-29 20:00:00 前");
                assert_no_hint_in_public(g);
            },
        },
        Case {
            name: "a void ballot's hint, in the lock window, says what the lock allows",
            seed: (SEED, 249, "白天结束前一个小时不得改票"),
            ruleset: "m103",
            config: DAY2,
            pages: Pages::Derived(hint_posts()),
            day: 2,
            round: 1,
            at: Some("2026-11-29 20:30"),
            check: |g| {
                // The lock forbids changes only: a first valid ballot can still come.
                assert_eq!(
                    g.hint(201),
                    "锁定时段（20:00:00 起）只禁止改票：尚无有效投票，仍可在截止（11-29 21:00:00）前投票"
                );
                // Written before the lock ("如要改票须在 20:00 前" then), read in it.
                assert_eq!(
                    g.hint(203),
                    "现有投票（板凳）仍有效，已进入锁定时段（20:00:00 起不得改票），不能再改票"
                );
                assert_eq!(
                    g.hint(205),
                    "现有投票（5#）仍有效，已进入锁定时段（20:00:00 起不得改票），不能再改票"
                );
                assert_no_hint_in_public(g);
            },
        },
        Case {
            name: "after the close a void ballot carries no hint",
            seed: (SEED, 249, "投票截止时间是当天白天结束"),
            ruleset: "m103",
            config: DAY2,
            pages: Pages::Derived(hint_posts()),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| {
                for pid in [201, 203, 205, 206] {
                    assert_eq!(g.hint(pid), "", "pid {pid}");
                    let (_, why) = g.verdict(pid);
                    assert!(!why.contains("可在") && !why.contains("改票须"), "{why}");
                }
                assert_no_hint_in_public(g);
            },
        },
        Case {
            name: "not voting is a yellow card",
            seed: (SEED, 249, "没有投票（或弃票）的玩家将记作一张黄牌"),
            ruleset: "m103",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-28 14:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n",
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert_eq!(g.non_voter("李逵").as_deref(), Some("未投票，记黄牌一张"));
                assert_eq!(g.non_voter("超人"), None);
            },
        },
        Case {
            name: "after acceleration every change is void",
            seed: (SEED, 245, "进程加速后不允许改票，所有改票作废"),
            ruleset: "m103",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\naccelerated = true\n",
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                g.void(65, "加速");
                g.void(75, "加速");
                assert_eq!(g.votes("花千树"), 1.0, "冷雪 stays on 花千树");
                assert_eq!(g.votes("李逵"), 5.0, "蝈蝈 stays on 李逵");
                assert!(g.text.contains("进程已加速"), "{}", g.text);
            },
        },
        Case {
            name: "accelerated at a confirmed moment: changes before it stand, changes after are void",
            seed: (SEED, 245, "如果在进程帖中申请加速的玩家超过所有存活玩家的二分之一则游戏进程加速"),
            ruleset: "m103",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\naccelerated_at = \"2026-11-29 08:00:00\"\n",
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                // 冷雪 changed at 11-28 21:33, before; 蝈蝈 at 11-29 08:05, after.
                assert!(g.is_valid(65), "{:?}", g.verdict(65));
                g.void(75, "进程已于 11-29 08:00:00 加速");
                assert_eq!(g.votes("李逵"), 5.0, "蝈蝈 stays on 李逵");
            },
        },
        Case {
            name: "out players are not targets",
            seed: (SEED, 74, "不允许被选为技能或投票的目标"),
            ruleset: "m103",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\", \"大灰狼\"]\n",
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                g.void(45, "大灰狼 已出局");
                g.void(68, "大灰狼 已出局");
                assert_eq!(g.votes("大灰狼"), 0.0);
            },
        },
        Case {
            name: "out players do not vote",
            seed: (SEED, 70, "角色出局结算结束后，不能继续参与讨论、投票、行使特权"),
            ruleset: "m103",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                let ignored: Vec<u64> = g.json["ignored"].as_array().unwrap().iter().map(|i| i["pid"].as_u64().unwrap()).collect();
                assert!(ignored.contains(&70) && ignored.contains(&101), "{ignored:?}");
            },
        },
        Case {
            name: "a proxy ballot the director posts is counted and shown as such",
            seed: (SEED, 369, "允许玩家以其它方式联系导演请求代投"),
            ruleset: "m103",
            config: "[[days]]\nday = 2\ncloses_at = \"2026-11-28 14:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n[[days.proxies]]\nvoter = \"大灰狼\"\ntarget = \"冷雪\"\nat = \"2026-11-28 13:00:00\"\nnote = \"短信代投\"\n",
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert_eq!(g.votes("冷雪"), 1.0);
                let b = g.json["ballots"].as_array().unwrap().iter().find(|b| b["source"] == "judge").unwrap().clone();
                assert_eq!(b["voter"], "大灰狼");
                assert!(g.text.contains("冷雪 1 票：大灰狼（法官代投）"), "{}", g.text);
                assert_eq!(g.non_voter("大灰狼"), None);
            },
        },
        Case {
            name: "one vote each: two names in one ballot is void",
            seed: (SEED, 249, "每人一票"),
            ruleset: "m103",
            config: DAY2,
            pages: Pages::Derived(vec![p(201, "大灰狼", "2026-11-29 10:00:00", "投票对象：李逵 小飞\n投票理由：都可疑")]),
            day: 2,
            round: 1,
            at: Some(AFTER),
            check: |g| g.void(201, "多个对象"),
        },
        Case {
            name: "the format as the seed shows it, full- or half-width, with stray spaces",
            seed: (SEED, 256, "投票对象：花千树"),
            ruleset: "m103",
            config: DAY2,
            pages: Pages::Captured,
            day: 2,
            round: 1,
            at: None,
            check: |g| {
                assert!(g.is_valid(38));
                assert!(g.is_valid(45), "half-width colons");
                assert!(g.is_valid(53), "U+3000 around the name");
            },
        },
    ]);
}
