//! 潜水 through `bansha lurk`: the captured discussion thread (tid 4) against a hand count from the
//! database rows, and the seeds' rules case by case.

mod common;

use assert_cmd::Command;
use common::{DPost, ROSTER};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn pages(thread: &str, n: u32) -> Vec<PathBuf> {
    (1..=n)
        .map(|p| {
            common::fixtures().join(format!(
                "discuz/desktop/guest/viewthread_{thread}_p{p}.html"
            ))
        })
        .collect()
}

fn discussion() -> Vec<PathBuf> {
    pages("tid4_discussion", 7)
}

fn vote() -> Vec<PathBuf> {
    pages("tid3_vote", 4)
}

fn game(dir: &Path, ruleset: &str, days: &str) -> PathBuf {
    let p = dir.join(format!("{ruleset}.toml"));
    std::fs::write(
        &p,
        format!("ruleset = \"{ruleset}\"\nname = \"测试局\"\n{ROSTER}\n{days}"),
    )
    .unwrap();
    p
}

const DAY2: &str = "[[days]]\nday = 2\nvote_thread = 3\ndiscussion_threads = [4]\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n";

fn lurk(config: &Path, day: u32, pages: &[PathBuf]) -> Value {
    let out = Command::cargo_bin("bansha")
        .unwrap()
        .args(["lurk", "--json", "--day", &day.to_string(), "--config"])
        .arg(config)
        .args(pages)
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

fn counted(report: &Value) -> BTreeMap<String, u64> {
    report["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["player"].as_str().unwrap().to_string(),
                p["counted"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn player<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["player"] == name)
        .unwrap()
}

/// The hand count from forum_post.json (tid 4, visible rows up to the close 2026-11-29 21:00):
/// (player, every post, the posts chuhan does not count and why, their vote-thread posts).
/// (player, posts, not counted under chuhan with why, vote-thread posts)
type Hand = (
    &'static str,
    &'static [u64],
    &'static [(u64, &'static str)],
    &'static [u64],
);

const HAND: &[Hand] = &[
    (
        "大灰狼",
        &[21, 35, 57, 77, 100],
        &[(21, "沙发！ — a 路过-style post")],
        &[34, 56, 106, 111],
    ),
    (
        "小飞",
        &[22, 36, 61, 81, 104],
        &[(22, "1 — a number"), (36, "+1 — a number")],
        &[68, 108],
    ),
    ("李逵", &[26, 46, 73, 99], &[], &[80]),
    ("花千树", &[25, 39, 59, 76, 93], &[(76, "1")], &[78, 113]),
    (
        "不见",
        &[28, 48, 67],
        &[(28, "😂😂😂 — only emoji")],
        &[62, 83, 114],
    ),
    (
        "冷雪",
        &[27, 40, 64, 79, 96],
        &[(79, "+1"), (96, "2")],
        &[38, 65, 110],
    ),
    ("蝈蝈", &[29, 44, 66, 84, 109], &[(44, "顶")], &[41, 75, 88]),
    (
        "小熊维尼",
        &[30, 49, 69, 89],
        &[(49, "1"), (69, "💤 — only emoji")],
        &[47, 85],
    ),
    ("超人", &[23, 33, 58, 74, 94], &[], &[45, 92, 103]),
    ("音乐虫子", &[31, 51, 71, 87, 107], &[(107, "1")], &[50, 98]),
    // pid 91 was blocked by the admin (status 1): listed, not counted.
    ("yucca", &[32, 52, 72], &[], &[53, 95]),
    ("雪罂子", &[37, 63, 82, 102], &[(63, "+1")], &[60, 105]),
];

#[test]
fn the_discussion_thread_matches_the_hand_count() {
    let dir = tempfile::tempdir().unwrap();
    // jiaohui: only the discussion thread, nothing excluded (seed 001 L212).
    let r = lurk(
        &game(dir.path(), "jiaohui", DAY2),
        2,
        &[discussion(), vote()].concat(),
    );
    let want: BTreeMap<String, u64> = HAND
        .iter()
        .map(|(p, all, _, _)| (p.to_string(), all.len() as u64))
        .collect();
    assert_eq!(counted(&r), want);
    let yucca = player(&r, "yucca");
    assert_eq!(yucca["excluded"][0]["reason"], "被屏蔽，内容不可见");
    // Night (超人 21:05), dead (青鸾花), spectator (路人甲) and judge posts are not counted.
    let ignored = r["ignored"].to_string();
    assert!(
        ignored.contains("截止后（夜间）的发言，计入下一天"),
        "{ignored}"
    );
    assert!(ignored.contains("青鸾花 已出局"), "{ignored}");
    assert!(ignored.contains("不是本局玩家"), "{ignored}");

    // chuhan: discussion and vote threads, without empty / quote-only / emoji / number / 路过 posts.
    let r = lurk(
        &game(dir.path(), "chuhan", DAY2),
        2,
        &[discussion(), vote()].concat(),
    );
    let want: BTreeMap<String, u64> = HAND
        .iter()
        .map(|(p, all, out, votes)| (p.to_string(), (all.len() - out.len() + votes.len()) as u64))
        .collect();
    assert_eq!(counted(&r), want);
    for (p, _, out, _) in HAND {
        let got: Vec<u64> = player(&r, p)["excluded"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["pid"].as_u64().unwrap())
            .filter(|pid| *pid != 91)
            .collect();
        let want: Vec<u64> = out.iter().map(|(pid, _)| *pid).collect();
        assert_eq!(got, want, "{p}");
    }
    assert!((r["average"].as_f64().unwrap() - 70.0 / 12.0).abs() < 1e-9);
}

use common::post as p;

#[test]
fn seed_rules_case_by_case() {
    let dir = tempfile::tempdir().unwrap();

    // chuhan L149 "前一天黑夜的发贴数量不计算到当天，计算到后一天的第一个游戏环节":
    // 超人's 21:05 post (pid 116) counts on day 3.
    let days = format!("{DAY2}[[days]]\nday = 3\nvote_thread = 3\ndiscussion_threads = [4]\ncloses_at = \"2026-11-30 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n");
    let cfg = game(dir.path(), "chuhan", &days);
    let r = lurk(&cfg, 3, &discussion());
    assert_eq!(player(&r, "超人")["counted"], 1);
    assert_eq!(player(&r, "大灰狼")["counted"], 0);

    // chuhan L143: fewer than 5 AND under 20% of the average → lurking; L144 a warning.
    // On day 3 only 超人 posted (average 1/12): the others have 0 < 5 and 0 < 0.017.
    assert_eq!(player(&r, "大灰狼")["verdict"], "lurk");
    assert_eq!(
        player(&r, "超人")["verdict"],
        "ok",
        "1 post is not under 20% of the average"
    );
    assert_eq!(r["penalty"], "警告一次");

    // chuhan L132 "不得发表…单纯引用内容帖": a post that is only a quote does not count.
    // chuhan L147 "灌水专贴中的发帖…都不计算在内": a chat thread never counts.
    let chat_dir = tempfile::tempdir().unwrap();
    let derived = common::derived_page(
        chat_dir.path(),
        "page.json",
        &[
            p(
                201,
                "大灰狼",
                "2026-11-29 10:00:00",
                "我觉得李逵是狼，理由如下。",
            ),
            DPost {
                pid: 202,
                author: "小飞",
                at: "2026-11-29 10:05:00",
                text: "",
                quotes: Some(201),
            },
        ],
    );
    let days = "[[days]]\nday = 2\ndiscussion_threads = [3]\ncloses_at = \"2026-11-29 21:00:00\"\n";
    let r = lurk(
        &game(dir.path(), "chuhan", days),
        2,
        std::slice::from_ref(&derived),
    );
    assert_eq!(player(&r, "大灰狼")["counted"], 1);
    assert_eq!(player(&r, "小飞")["counted"], 0);
    assert_eq!(player(&r, "小飞")["excluded"][0]["reason"], "只有引用");
    let days = "[[days]]\nday = 2\ndiscussion_threads = [4]\nchat_threads = [3]\ncloses_at = \"2026-11-29 21:00:00\"\n";
    let r = lurk(&game(dir.path(), "chuhan", days), 2, &[derived]);
    assert_eq!(player(&r, "大灰狼")["counted"], 0);
    assert!(r["ignored"].to_string().contains("灌水帖的发言不计"));

    // A fetch outage: pages 3 to 7 of the discussion thread are missing — no verdict for those
    // who fall short (m103: under 5); nobody is called a lurker on a partial count.
    let cfg = game(dir.path(), "m103", DAY2);
    let partial: Vec<PathBuf> = discussion().into_iter().take(2).collect();
    let r = lurk(&cfg, 2, &partial);
    assert_eq!(player(&r, "李逵")["verdict"], "unknown");
    assert!(player(&r, "李逵")["reasons"]
        .to_string()
        .contains("无法读取"));

    // m103 L354 "单个讨论日不足五贴或连续三个讨论日均不足十贴…未投票…判作黄牌": days 1–3 cut the
    // captured discussion into three windows; nobody reaches 10 on any of them.
    let days = "[[days]]\nday = 1\ndiscussion_threads = [4]\ncloses_at = \"2026-11-28 09:00:00\"\n\
                [[days]]\nday = 2\ndiscussion_threads = [4]\ncloses_at = \"2026-11-28 21:00:00\"\n\
                [[days]]\nday = 3\nvote_thread = 3\ndiscussion_threads = [4]\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n";
    let cfg = game(dir.path(), "m103", days);
    let r = lurk(&cfg, 3, &[discussion(), vote()].concat());
    let chaoren = player(&r, "超人");
    assert!(
        chaoren["reasons"]
            .to_string()
            .contains("连续 3 个讨论日每天都少于 10 帖"),
        "{chaoren}"
    );
    assert_eq!(r["penalty"], "黄牌一张");
    assert_eq!(chaoren["voted"], true);
    // L354 "游戏进程加速以前": after acceleration nobody is called a lurker.
    let accelerated = days.replace(
        "dead = [\"龙舌\", \"青鸾花\"]\n",
        "dead = [\"龙舌\", \"青鸾花\"]\naccelerated = true\n",
    );
    let other = tempfile::tempdir().unwrap();
    let r2 = lurk(
        &game(other.path(), "m103", &accelerated),
        3,
        &[discussion(), vote()].concat(),
    );
    assert_eq!(player(&r2, "超人")["verdict"], "ok");
    assert!(player(&r2, "超人")["reasons"]
        .to_string()
        .contains("进程已加速"));
    // L316 "必须行使特权的角色未在规定时间内行使": a power not used in time (the judge's record)
    // is 潜水, before acceleration and after it (L314–315 scope only the posts and the vote).
    for (text, what) in [(days.to_string(), "before"), (accelerated.clone(), "after")] {
        let text = text.replace(
            "dead = [\"龙舌\", \"青鸾花\"]\n",
            "dead = [\"龙舌\", \"青鸾花\"]\nmissed_night_moves = [\"超人\"]\n",
        );
        let d = tempfile::tempdir().unwrap();
        let r = lurk(
            &game(d.path(), "m103", &text),
            3,
            &[discussion(), vote()].concat(),
        );
        let c = player(&r, "超人");
        assert_eq!(c["verdict"], "lurk", "{what}: {c}");
        assert!(
            c["reasons"]
                .to_string()
                .contains("没有在规定时间内行使夜间行动"),
            "{c}"
        );
    }
    // Everyone voted in the captured thread; with only its first page, 李逵 (pid 80 is on page 2)
    // has not.
    let r = lurk(
        &cfg,
        3,
        &[discussion(), vote().into_iter().take(1).collect()].concat(),
    );
    assert_eq!(player(&r, "李逵")["voted"], false);
    assert!(player(&r, "李逵")["reasons"]
        .to_string()
        .contains("没有投票"));
}

/// chuhan L118 "不参加投票视同一次潜水" (also L144's warning): a living player with no ballot
/// that day is judged 潜水 for it in the lurk verdict (and so the end-of-day mail and the
/// ledger), whatever their post count.
#[test]
fn chuhan_a_missed_vote_is_one_lurk() {
    let dir = tempfile::tempdir().unwrap();
    // At 16:00 on the 28th several living players have no ballot yet.
    let day = "[[days]]\nday = 2\nvote_thread = 3\ndiscussion_threads = [4]\ncloses_at = \"2026-11-28 16:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n";
    let cfg = game(dir.path(), "chuhan", day);
    let mut pages = discussion();
    pages.extend(vote());
    let r = lurk(&cfg, 2, &pages);
    let players = r["players"].as_array().unwrap();
    let missed: Vec<&Value> = players.iter().filter(|p| p["voted"] == false).collect();
    assert!(!missed.is_empty(), "{r}");
    for p in &missed {
        assert_eq!(p["verdict"], "lurk", "{p}");
        assert!(p["reasons"].to_string().contains("本讨论日没有投票"), "{p}");
    }
    let voted = players
        .iter()
        .find(|p| p["voted"] == true)
        .expect("someone voted");
    assert!(
        !voted["reasons"].to_string().contains("没有投票"),
        "{voted}"
    );
}

#[test]
fn the_plain_output_is_chinese() {
    let dir = tempfile::tempdir().unwrap();
    Command::cargo_bin("bansha")
        .unwrap()
        .args(["lurk", "--day", "2", "--config"])
        .arg(game(dir.path(), "chuhan", DAY2))
        .args(discussion())
        .args(vote())
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "大灰狼 8 帖（不计：沙发：路过类帖子（沙发!））",
        ))
        .stdout(predicates::str::contains("[b]潜水[/b]：无"));
}

/// m103's 电梯楼: each player linked to the thread filtered to them, with the count.
#[test]
fn the_elevator_index_links_each_player() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("bansha")
        .unwrap()
        .args(["lurk", "--elevator", "--day", "2", "--config"])
        .arg(game(dir.path(), "m103", DAY2))
        .args(discussion())
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.starts_with("[b]第2天 电梯楼[/b]\n"), "{text}");
    // 大灰狼 is uid 3 on the captured forum (common_member.json).
    assert!(
        text.contains("[url=forum.php?mod=viewthread&tid=4&page=1&authorid=3]大灰狼[/url]（5 帖）"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 13, "a title and 12 living players");
}

/// chuhan L128 "也可以自行开主题贴发表分析…每个玩家每个白天只能开一个主题贴": a player's own
/// thread (from the board's thread list) counts, a second one the same day is flagged. The list is
/// the captured board page with the opener of two threads changed to 李逵 (uid 5).
#[test]
fn chuhan_players_own_threads_count_and_a_second_is_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let board = std::fs::read_to_string(
        common::fixtures().join("discuz/desktop/guest/forumdisplay_fid3.html"),
    )
    .unwrap();
    let mut derived = String::new();
    let mut rest = board.as_str();
    for tid in ["4", "5"] {
        let start = rest
            .find(&format!("<tbody id=\"normalthread_{tid}\">"))
            .unwrap();
        derived.push_str(&rest[..start]);
        let row_end = start + rest[start..].find("</tbody>").unwrap();
        let row = rest[start..row_end].replacen(
            "<a href=\"home.php?mod=space&amp;uid=2\" c=\"1\">版杀一室法官</a>",
            "<a href=\"home.php?mod=space&amp;uid=5\" c=\"1\">李逵</a>",
            1,
        );
        assert!(row.contains("李逵"), "row {tid} rewritten");
        derived.push_str(&row);
        rest = &rest[row_end..];
    }
    derived.push_str(rest);
    let list = dir.path().join("board.html");
    std::fs::write(&list, derived).unwrap();

    let days = "[[days]]\nday = 2\ndiscussion_threads = []\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n[rules.lurk]\nthreads = [\"discussion\"]\n";
    let cfg = game(dir.path(), "chuhan", days);
    let r = lurk(&cfg, 2, &[vec![list.clone()], discussion()].concat());
    assert_eq!(r["player_threads"], serde_json::json!([4, 5]));
    assert_eq!(r["extra_threads"][0]["player"], "李逵");
    // tid 4's posts count now: it is 李逵's own thread.
    assert_eq!(player(&r, "大灰狼")["counted"], 4);
    let out = Command::cargo_bin("bansha")
        .unwrap()
        .args(["lurk", "--day", "2", "--config"])
        .arg(&cfg)
        .arg(&list)
        .args(discussion())
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("[b]多开主题[/b]：李逵 当天开了 2 个主题帖（tid 4、tid 5）"),
        "{text}"
    );
    // Without the thread list, nothing of tid 4 counts (no discussion thread configured).
    let r = lurk(&cfg, 2, &discussion());
    assert_eq!(player(&r, "大灰狼")["counted"], 0);
}

/// qipan L136 "上述3个环节，每个存活角色必须按时及时完成，如果1个环节没有完成，警告": the vote and the
/// night move are duties; the judge records missed night moves (they reach the judge privately).
#[test]
fn qipan_duties_are_the_vote_and_the_night_move() {
    let dir = tempfile::tempdir().unwrap();
    let seed = std::fs::read_to_string(common::fixtures().join("seeds/003_qipan.txt")).unwrap();
    assert!(seed
        .lines()
        .nth(135)
        .unwrap()
        .contains("如果1个环节没有完成，警告"));
    let days = format!("{DAY2}missed_night_moves = [\"超人\"]\n");
    let r = lurk(
        &game(dir.path(), "qipan", &days),
        2,
        &[discussion(), vote()].concat(),
    );
    let chaoren = player(&r, "超人");
    assert_eq!(chaoren["verdict"], "lurk");
    assert!(
        chaoren["reasons"]
            .to_string()
            .contains("没有在规定时间内行使夜间行动"),
        "{chaoren}"
    );
    assert_eq!(
        player(&r, "大灰狼")["verdict"],
        "ok",
        "no post quota in qipan; he voted"
    );
    assert_eq!(r["penalty"], "警告一次");
}

/// m103 002 L314 "连续三个讨论日均不足十帖" offline: a run of days is judged from every day of it.
/// Given day 3's pages alone (days 1 and 2 in threads 6 and 7, not given), `bansha lurk` says
/// which days' threads are missing and gives no verdict on the run: a player under ten on day 3
/// may be under ten on all three, or not. Before, the missing days counted as zero posts and
/// every player under ten on day 3 was carded for "连续 3 个讨论日每天都少于 10 帖".
#[test]
fn m103_a_run_of_days_missing_a_day_is_not_judged() {
    let dir = tempfile::tempdir().unwrap();
    let days = "[[days]]\nday = 1\ndiscussion_threads = [6]\ncloses_at = \"2026-11-26 21:00:00\"\n\
                [[days]]\nday = 2\ndiscussion_threads = [7]\ncloses_at = \"2026-11-27 21:00:00\"\n\
                [[days]]\nday = 3\nvote_thread = 3\ndiscussion_threads = [4]\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n";
    let cfg = game(dir.path(), "m103", days);
    let out = Command::cargo_bin("bansha")
        .unwrap()
        .args(["lurk", "--json", "--day", "3", "--config"])
        .arg(&cfg)
        .args([discussion(), vote()].concat())
        .assert()
        .success();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    for day in [
        "第 1 天要计数的帖子（tid 6）",
        "第 2 天要计数的帖子（tid 7）",
    ] {
        assert!(err.contains(day), "{err}");
    }
    let r: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    // 超人 has 5 posts on day 3 (fewer than ten, not fewer than five): only the run could card him.
    let chaoren = player(&r, "超人");
    assert_eq!(chaoren["verdict"], "unknown", "{chaoren}");
    assert!(
        chaoren["reasons"]
            .to_string()
            .contains("第 1 天、第 2 天的帖子没有读全"),
        "{chaoren}"
    );
    // 李逵's 4 posts on day 3 alone are under five: that verdict stands.
    let likui = player(&r, "李逵");
    assert_eq!(likui["verdict"], "lurk", "{likui}");
    assert!(!likui["reasons"].to_string().contains("连续"), "{likui}");
}
