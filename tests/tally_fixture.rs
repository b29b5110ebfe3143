//! The captured day-2 vote thread (tid 3) tallied under its own game config
//! (`config/examples/banshayishi-12.toml`), compared with a count made by hand from the database
//! rows (`tests/fixtures/discuz/groundtruth/forum_post.json`), ballot by ballot.
//!
//! The game's rules (tid 1 pid 1, tid 3 pid 19): two formats; format two changes by quoting
//! one's own ballot (the judge, tid 1 pid 8: "改票必须引用自己的原投票帖，否则视为一张新票"); format one
//! changes by writing "现在改为——…" after the original line; one change; none in the last hour
//! (20:00–21:00); the close is 2026-11-29 21:00:00 (a post at exactly 21:00:00 is in time);
//! ballots and edits after the close do not count; dead players do not vote. Alive: 12.

mod common;

use bansha::cli::tally::{run, TallyArgs};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The verdict a judge reaches by hand for one post of the thread.
#[derive(Debug, Clone, Copy)]
enum Hand {
    /// A valid ballot that is the voter's standing ballot at the close.
    Counts(&'static str),
    /// A valid ballot later replaced by a valid change.
    Replaced(&'static str),
    /// A valid restatement of the standing ballot: changes nothing.
    Repeat(&'static str),
    /// A void ballot; the reason must contain this text.
    Void(&'static str),
    /// Not a player's ballot; listed under 不计的帖子 with this reason.
    Ignored(&'static str),
    /// No ballot at all (judge posts, chatter).
    NotABallot,
}
use Hand::*;

/// Every post of tid 3, in order: (pid, author, verdict, why — from the row's message and
/// dateline).
const HAND_COUNT: &[(u64, &str, Hand, &str)] = &[
    (
        19,
        "版杀一室法官",
        NotABallot,
        "the judge's rules post; its 投票对象：XXX are examples",
    ),
    (
        34,
        "大灰狼",
        Replaced("小飞"),
        "format one, 11-28 09:12:33; replaced by pid 56",
    ),
    (
        38,
        "冷雪",
        Replaced("花千树"),
        "format two, 11-28 10:03:10; replaced by pid 65",
    ),
    (
        41,
        "蝈蝈",
        Replaced("李逵"),
        "format two, 11-28 11:47:05; replaced by pid 75",
    ),
    (43, "路人甲", NotABallot, "spectator chatter 路过，前排围观"),
    (
        45,
        "超人",
        Counts("大灰狼"),
        "half-width colons 投票对象:大灰狼, 11-28 13:20:41",
    ),
    (
        47,
        "小熊维尼",
        Void("缺少冒号"),
        "投票对象 超人 — no colon: malformed, uses nothing",
    ),
    (
        50,
        "音乐虫子",
        Counts("弃权"),
        "投票对象：弃权 — an explicit abstention",
    ),
    (
        53,
        "yucca",
        Counts("李逵"),
        "U+3000 spaces around 李逵 normalise away",
    ),
    (
        56,
        "大灰狼",
        Counts("李逵"),
        "format-one change in one post (restates pid 34), 18:02 < 20:00",
    ),
    (
        60,
        "雪罂子",
        Void("可能是 李逵"),
        "李奎 is one edit from 李逵: not counted, the judge decides",
    ),
    (
        62,
        "不见",
        Void("路人甲 不是本局玩家"),
        "the spectator is not a player: void, uses nothing",
    ),
    (
        65,
        "冷雪",
        Counts("不见"),
        "改票对象 quoting her own pid 38, 11-28 21:33: change 1 of 1",
    ),
    (
        68,
        "小飞",
        Counts("大灰狼"),
        "first ballot 11-28 22:15:09; his change pid 108 is void",
    ),
    (70, "龙舌", Ignored("已出局"), "龙舌 was exiled on day 1"),
    (
        75,
        "蝈蝈",
        Counts("小熊维尼"),
        "改票 quoting his own pid 41, 11-29 08:05: change 1 of 1",
    ),
    (
        78,
        "花千树",
        Ignored("只引用了别人的投票"),
        "+1 同意楼上 under a quote of 超人's ballot",
    ),
    (
        80,
        "李逵",
        Counts("蝈蝈"),
        "own 投票对象：蝈蝈 below a quote of 蝈蝈's ballot",
    ),
    (
        83,
        "不见",
        Counts("冷雪"),
        "改票 wording, but pid 62 was void: his first valid ballot",
    ),
    (
        85,
        "小熊维尼",
        Counts("超人"),
        "first well-formed ballot after the malformed pid 47",
    ),
    (
        88,
        "蝈蝈",
        Void("超过改票次数"),
        "a second change (quotes pid 75)",
    ),
    (
        92,
        "超人",
        Void("缺少理由"),
        "投票对象：大灰狼 without 投票理由: malformed",
    ),
    (
        95,
        "yucca",
        Void("未引用"),
        "投票对象：大灰狼 — a change to 大灰狼 without the quote",
    ),
    (
        98,
        "音乐虫子",
        Void("截止后编辑"),
        "edited at 21:05 (after the close): what it said at the close is unknown",
    ),
    (
        101,
        "青鸾花",
        Ignored("已出局"),
        "青鸾花 died night 1; her post is a format reminder",
    ),
    (
        103,
        "超人",
        Void("未引用"),
        "change to 李逵 without quoting (the BBCode around 李逵 is fine)",
    ),
    (
        105,
        "雪罂子",
        Counts("李逵"),
        "first valid ballot at 20:05: a first ballot in the last hour is allowed",
    ),
    (
        106,
        "大灰狼",
        Void("多个对象"),
        "投票对象：@大灰狼 不对，投票对象：李逵 — two targets, no reason",
    ),
    (
        108,
        "小飞",
        Void("不得改票"),
        "change at 20:31:10, inside the last hour",
    ),
    (
        110,
        "冷雪",
        Repeat("不见"),
        "第二次 投票的对象是 不见 = her standing ballot: no change",
    ),
    (
        111,
        "大灰狼",
        Repeat("李逵"),
        "投票对象：李逵 = his standing ballot (pid 56)",
    ),
    (
        113,
        "花千树",
        Counts("李逵"),
        "first ballot at 20:59:58, two seconds before the close",
    ),
    (
        114,
        "不见",
        Void("不得改票"),
        "change at exactly 21:00:00: in time, but inside the lock",
    ),
    (115, "小熊维尼", Void("截止"), "21:00:40: after the close"),
    (117, "yucca", Void("截止"), "21:12: after the close"),
    (118, "版杀一室法官", NotABallot, "the judge closes the vote"),
    (121, "雪罂子", Void("截止"), "21:18:13: after the close"),
];

fn tally_json(pages: &[PathBuf]) -> Value {
    let args = TallyArgs {
        config: PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("config/examples/banshayishi-12.toml"),
        day: 2,
        round: 1,
        at: None,
        json: true,
        charset: None,
        pages: pages.to_vec(),
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run(&args, &mut out, &mut err).expect("tally runs");
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    serde_json::from_slice(&out).expect("JSON")
}

fn pages(dir: &str, ext: &str) -> Vec<PathBuf> {
    (1..=4)
        .map(|p| common::fixtures().join(format!("discuz/{dir}/viewthread_tid3_vote_p{p}.{ext}")))
        .collect()
}

/// The rows themselves: the table above covers every post of tid 3, by the right author.
#[test]
fn the_hand_count_covers_every_row_of_the_thread() {
    let rows: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(common::fixtures().join("discuz/groundtruth/forum_post.json"))
            .unwrap(),
    )
    .unwrap();
    let thread: BTreeMap<u64, String> = rows
        .iter()
        .filter(|r| r["tid"] == "3" && r["invisible"] == "0")
        .map(|r| {
            (
                r["pid"].as_str().unwrap().parse().unwrap(),
                r["author"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let table: BTreeMap<u64, String> = HAND_COUNT
        .iter()
        .map(|(pid, a, _, _)| (*pid, a.to_string()))
        .collect();
    assert_eq!(thread, table);
}

fn check(t: &Value, source: &str, expect_edit_flag: bool) {
    let ballots = t["ballots"].as_array().unwrap();
    let ignored = t["ignored"].as_array().unwrap();
    let by_pid = |list: &[Value], pid: u64| list.iter().find(|b| b["pid"] == pid).cloned();
    for &(pid, author, hand, why) in HAND_COUNT {
        let ctx = format!("{source}: pid {pid} ({author}: {why})");
        let b = by_pid(ballots, pid);
        let i = by_pid(ignored, pid);
        match hand {
            Counts(target) | Replaced(target) | Repeat(target) => {
                let b = b.unwrap_or_else(|| panic!("{ctx}: no ballot"));
                assert_eq!(b["voter"], author, "{ctx}");
                assert_eq!(b["valid"], true, "{ctx}: {}", b["reason"]);
                assert_eq!(b["target"], target, "{ctx}");
                assert_eq!(b["counted"], matches!(hand, Counts(_)), "{ctx}");
                let kind = b["kind"].as_str().unwrap();
                match hand {
                    Repeat(_) => assert_eq!(kind, "repeat", "{ctx}"),
                    _ if target == "弃权" => assert_eq!(kind, "abstain", "{ctx}"),
                    _ => assert!(kind == "first" || kind == "change", "{ctx}: {kind}"),
                }
            }
            Void(reason) => {
                let b = b.unwrap_or_else(|| panic!("{ctx}: no ballot"));
                assert_eq!(b["valid"], false, "{ctx}");
                assert_eq!(b["counted"], false, "{ctx}");
                let got = b["reason"].as_str().unwrap();
                if pid == 98 && !expect_edit_flag {
                    // API v4 carries no edit notice: the post reads as an unquoted change.
                    assert!(got.contains("未引用"), "{ctx}: {got}");
                } else {
                    assert!(got.contains(reason), "{ctx}: {got}");
                }
            }
            Ignored(reason) => {
                assert!(b.is_none(), "{ctx}: listed as a ballot");
                let i = i.unwrap_or_else(|| panic!("{ctx}: not listed"));
                assert!(
                    i["reason"].as_str().unwrap().contains(reason),
                    "{ctx}: {}",
                    i["reason"]
                );
            }
            NotABallot => assert!(b.is_none() && i.is_none(), "{ctx}: {b:?} {i:?}"),
        }
    }
    assert_eq!(
        ballots.len() + ignored.len(),
        HAND_COUNT
            .iter()
            .filter(|h| !matches!(h.2, NotABallot))
            .count()
    );

    // The counts, from the standing ballots of the table.
    let mut expected: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for &(_, author, hand, _) in HAND_COUNT {
        if let Counts(target) = hand {
            if target != "弃权" {
                expected.entry(target.to_string()).or_default().push(author);
            }
        }
    }
    let got: BTreeMap<String, Vec<String>> = t["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            assert_eq!(
                c["votes"].as_f64().unwrap() as usize,
                c["voters"].as_array().unwrap().len()
            );
            let mut v: Vec<String> = c["voters"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v["voter"].as_str().unwrap().to_string())
                .collect();
            v.sort();
            (c["target"].as_str().unwrap().to_string(), v)
        })
        .collect();
    let expected: BTreeMap<String, Vec<String>> = expected
        .into_iter()
        .map(|(k, mut v)| {
            v.sort();
            (k, v.into_iter().map(String::from).collect())
        })
        .collect();
    assert_eq!(got, expected, "{source}");
    assert_eq!(t["counts"][0]["target"], "李逵");
    assert_eq!(t["counts"][0]["votes"], 4.0);
    assert_eq!(t["abstentions"][0]["voter"], "音乐虫子");
    assert_eq!(
        t["total_votes"], 12.0,
        "{source}: 12 living voters, all with a standing ballot"
    );
    assert_eq!(t["non_voters"], serde_json::json!([]), "{source}");
    assert_eq!(t["outcome"]["kind"], "eliminated");
    assert_eq!(t["outcome"]["players"], serde_json::json!(["李逵"]));
    assert_eq!(t["closed"], true);
    assert_eq!(t["closes_at"], "2026-11-29T21:00:00+08:00");
    assert_eq!(t["lock_from"], "2026-11-29T20:00:00+08:00");
}

#[test]
fn desktop_pages_as_guest_match_the_hand_count() {
    check(
        &tally_json(&pages("desktop/guest", "html")),
        "desktop guest",
        true,
    );
}

#[test]
fn desktop_pages_as_judge_match_the_hand_count() {
    check(
        &tally_json(&pages("desktop/judge", "html")),
        "desktop judge",
        true,
    );
}

#[test]
fn api_v1_pages_match_the_hand_count() {
    check(
        &tally_json(&pages("mobile/guest/v1", "json")),
        "api v1",
        true,
    );
}

#[test]
fn api_v4_pages_match_except_the_edit_they_cannot_see_and_say_so() {
    let t = tally_json(&pages("mobile/judge/v4", "json"));
    check(&t, "api v4", false);
    let w = t["warnings"].to_string();
    assert!(w.contains("v4") && w.contains("编辑"), "{w}");
}

#[test]
fn pages_in_any_order_and_repeated_give_the_same_tally() {
    let mut p = pages("desktop/guest", "html");
    p.reverse();
    p.push(p[0].clone());
    let a = tally_json(&p);
    let b = tally_json(&pages("desktop/guest", "html"));
    assert_eq!(a["ballots"], b["ballots"]);
    assert_eq!(a["counts"], b["counts"]);
}

#[test]
fn a_missing_page_is_reported() {
    let p = pages("desktop/guest", "html");
    let t = tally_json(&[p[0].clone(), p[1].clone(), p[3].clone()]);
    let w = t["warnings"].to_string();
    assert!(w.contains("缺少第 3 页"), "{w}");
}

#[test]
fn the_plain_output_is_the_bbcode_tally_a_judge_posts() {
    let args = TallyArgs {
        config: PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("config/examples/banshayishi-12.toml"),
        day: 2,
        round: 1,
        at: None,
        json: false,
        charset: None,
        pages: pages("desktop/guest", "html"),
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(run(&args, &mut out, &mut err).unwrap(), 0);
    let text = String::from_utf8(out).unwrap();
    for line in [
        "[b]【版杀一室 第十二局】第2天 第一轮投票统计[/b]",
        "李逵 4 票：yucca（9#）、大灰狼（10#）、雪罂子（27#）、花千树（32#）",
        "大灰狼 2 票：超人（6#）、小飞（14#）",
        "弃权 1 票：音乐虫子（8#）",
        "总票数：12",
        "10# 大灰狼：小飞 → 李逵",
        // The final tells no player what they may still do (issue 29 item 4).
        "11# 雪罂子（投票：李奎）：对象不明确，可能是 李逵",
        "24# 音乐虫子（改票：不见）：截止后编辑过（11-29 21:05），截止前的内容无法确认",
        "15# 龙舌：龙舌 已出局，投票不计",
        // Quoted as the player typed it: full-width comma and colon (issue 19).
        "28# 大灰狼（改票：大灰狼 不对，投票对象：李逵）：格式错误，缺少理由（一票写了多个对象：大灰狼、李逵）",
        "[b]未投票[/b]：无",
        "[b]结果[/b]：[color=red]李逵 以 4 票最高，出局[/color]",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "missing line {line:?} in\n{text}"
        );
    }
    for word in ["重新投票", "改票须在", "不能再改票", "仍可"] {
        assert!(!text.contains(word), "{word} in the final:\n{text}");
    }
    // Public output: no roles, no factions (the private board's role list is never read).
    for word in ["狼人", "预言家", "女巫", "猎人", "平民"] {
        assert!(!text.contains(word), "{word} in\n{text}");
    }
}

/// The GBK forum's vote thread (tid 2) under its game config: the tally equals the one the
/// judge posted in the thread (pid 25, read from the database rows), voter by voter.
#[test]
fn the_gbk_thread_tallies_as_its_judge_tallied_it() {
    let rows: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(common::fixtures().join("discuz-gbk/groundtruth/forum_post.json"))
            .unwrap(),
    )
    .unwrap();
    let judge_tally = rows
        .iter()
        .find(|r| r["pid"].to_string().trim_matches('"') == "25")
        .unwrap()["message"]
        .as_str()
        .unwrap()
        .to_string();
    // "李逵 5 票（大灰狼、小飞、花千树、不见、冷雪）"
    let line = regex::Regex::new(r"(?m)^(\S+) (\d+) 票（([^）]*)）").unwrap();
    let mut expected: BTreeMap<String, (f64, Vec<String>)> = BTreeMap::new();
    for c in line.captures_iter(&judge_tally) {
        let mut voters: Vec<String> = c[3].split('、').map(String::from).collect();
        voters.sort();
        expected.insert(c[1].to_string(), (c[2].parse().unwrap(), voters));
    }
    assert_eq!(expected.len(), 2, "{judge_tally}");

    let args = TallyArgs {
        config: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("config/examples/gbk-day2.toml"),
        day: 2,
        round: 1,
        at: None,
        json: true,
        charset: None,
        pages: (1..=3)
            .map(|p| {
                common::fixtures().join(format!(
                    "discuz-gbk/desktop/guest/viewthread_tid2_vote_p{p}.html"
                ))
            })
            .collect(),
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(
        run(&args, &mut out, &mut err).unwrap(),
        0,
        "{}",
        String::from_utf8_lossy(&err)
    );
    let t: Value = serde_json::from_slice(&out).unwrap();
    let got: BTreeMap<String, (f64, Vec<String>)> = t["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let mut v: Vec<String> = c["voters"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v["voter"].as_str().unwrap().to_string())
                .collect();
            v.sort();
            (
                c["target"].as_str().unwrap().to_string(),
                (c["votes"].as_f64().unwrap(), v),
            )
        })
        .collect();
    assert_eq!(got, expected);
    assert_eq!(t["outcome"]["players"], serde_json::json!(["李逵"]));
    // pid 16 was edited at 20:09, before the close: the edited ballot stands (pid 24's ruling).
    let b16 = t["ballots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["pid"] == 16)
        .unwrap();
    assert_eq!(
        (b16["valid"].as_bool(), b16["target"].as_str()),
        (Some(true), Some("李逵"))
    );
}
