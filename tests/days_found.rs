//! Days found on the forum, on the captured forums (issue 30): the boards' thread lists (UTF-8
//! and GBK) give day 2's threads, the threads' first posts give its deadline, and the found day
//! is written into a copy of the captured game's config, which then loads to the same days
//! plus the new one.

mod common;

use bansha::domain::days::{discover, Discovery, FoundDay};
use bansha::domain::deadline::{check_deadline, read_deadline, AskReason, Deadline, DeadlineCheck};
use bansha::domain::game::load_str;
use bansha::io::config_edit::{add_day, set_closes_at, NewDay};
use bansha_parsers::threadlist::{parse_thread_list, ThreadEntry};
use bansha_parsers::{ParseOptions, Post};
use chrono::{DateTime, FixedOffset};
use std::path::Path;

fn t(s: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(s).unwrap()
}

fn cst() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).unwrap()
}

fn board(rel: &str) -> Vec<ThreadEntry> {
    let path = common::fixtures().join(rel);
    let (_, ct) = common::headers_of(&path);
    parse_thread_list(
        &std::fs::read(&path).unwrap(),
        ct.as_deref(),
        &ParseOptions::default(),
    )
    .unwrap()
    .threads
}

fn first_post(rel: &str) -> Post {
    let page = common::parse_fixture(rel).unwrap();
    let post = page.posts.into_iter().next().unwrap();
    assert!(post.first, "{rel}");
    post
}

fn example(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("config/examples/{name}")),
    )
    .unwrap()
}

/// The captured game's config as it stood on day 1, before the judge opened day 2's threads
/// (day 1's own threads are not among the captured ones).
fn on_day_one() -> String {
    let text = example("banshayishi-12.toml");
    let start = text.find("[[days]]").unwrap();
    let end = text.find("[rules]").unwrap();
    let day_one = "[[days]]\nday = 1\nvote_thread = 90\ndiscussion_threads = [91]\n\
                   opens_at = \"2026-11-26 21:00\"\ncloses_at = \"2026-11-27 21:00\"\n\n";
    format!("{}{day_one}{}", &text[..start], &text[end..])
}

#[test]
fn the_captured_board_gives_day_two_with_its_threads() {
    let game = load_str(&on_day_one(), Path::new("game.toml")).unwrap();
    let found = discover(
        &game,
        &board("discuz/desktop/guest/forumdisplay_fid3.html"),
        &[],
    );
    // tid 3 "【第十二局】投票帖 第二天", tid 4 "【第十二局】讨论帖 第二天"; tid 5 is the poll
    // "第二天 投票机（仅供参考，以投票帖为准）", not the vote thread; tid 1 is the rules post.
    assert_eq!(found.questions, vec![]);
    assert_eq!(found.waiting, vec![]);
    assert_eq!(found.days.len(), 1, "{found:?}");
    let d = &found.days[0];
    assert_eq!(
        (d.day, d.vote_thread, d.discussion_threads.clone()),
        (2, 3, vec![4])
    );
    assert_eq!(d.author, "版杀一室法官");
    assert_eq!(d.subject, "【第十二局】投票帖 第二天");
    assert!(d.opened_at.is_some());
}

#[test]
fn the_gbk_board_gives_day_two_too() {
    let text = example("gbk-day2.toml");
    let start = text.find("[[days]]").unwrap();
    let end = text.find("[rules]").unwrap();
    let day_one =
        "[[days]]\nday = 1\nopens_at = \"2026-11-27 19:00\"\ncloses_at = \"2026-11-27 23:00\"\n\n";
    let game = load_str(
        &format!("{}{day_one}{}", &text[..start], &text[end..]),
        Path::new("gbk.toml"),
    )
    .unwrap();
    let found = discover(
        &game,
        &board("discuz-gbk/desktop/guest/forumdisplay_fid36.html"),
        &[],
    );
    assert_eq!(found.questions, vec![]);
    let d = &found.days[0];
    assert_eq!(
        (d.day, d.vote_thread, d.discussion_threads.clone()),
        (2, 2, vec![1])
    );
    assert_eq!(d.subject, "【第十三局】投票帖 第二天");
}

#[test]
fn a_day_already_configured_is_not_proposed_again() {
    for (config, list) in [
        (
            "banshayishi-12.toml",
            "discuz/desktop/guest/forumdisplay_fid3.html",
        ),
        (
            "gbk-day2.toml",
            "discuz-gbk/desktop/guest/forumdisplay_fid36.html",
        ),
    ] {
        let game = load_str(&example(config), Path::new(config)).unwrap();
        let found = discover(&game, &board(list), &[]);
        // gbk-day2 has no discussion thread configured: tid 1 is asked about, never added
        // silently.
        let expected_questions = usize::from(config == "gbk-day2.toml");
        assert!(found.days.is_empty(), "{config}: {found:?}");
        assert_eq!(
            found.questions.len(),
            expected_questions,
            "{config}: {found:?}"
        );
    }
}

#[test]
fn the_first_posts_give_each_days_deadline() {
    let rules = load_str(&example("banshayishi-12.toml"), Path::new("g.toml"))
        .unwrap()
        .rules
        .discovery
        .clone();
    for (page, expected) in [
        // pid 19: "截止时间：2026年11月29日 21:00（以论坛显示时间为准）"
        (
            "discuz/desktop/guest/viewthread_tid3_vote_p1.html",
            "2026-11-29T21:00:00+08:00",
        ),
        // pid 20: "截止时间：2026-11-29 21:00"
        (
            "discuz/desktop/guest/viewthread_tid4_discussion_p1.html",
            "2026-11-29T21:00:00+08:00",
        ),
        // GBK pid 6: "投票截止时间：2026-11-28 23:00（北京时间）"
        (
            "discuz-gbk/desktop/guest/viewthread_tid2_vote_p1.html",
            "2026-11-28T23:00:00+08:00",
        ),
    ] {
        let post = first_post(page);
        let read = read_deadline(&post.text, post.posted_at.unwrap(), cst(), &rules);
        assert_eq!(read.at(), Some(t(expected)), "{page}: {read:?}");
    }
    // The GBK discussion thread's first post names no deadline: asked.
    let post = first_post("discuz-gbk/desktop/guest/viewthread_tid1_discussion_p1.html");
    let read = read_deadline(&post.text, post.posted_at.unwrap(), cst(), &rules);
    assert!(
        matches!(
            read,
            Deadline::Ask {
                reason: AskReason::NoneFound,
                ..
            }
        ),
        "{read:?}"
    );
}

#[test]
fn the_deadline_read_against_the_config() {
    for (config, page) in [
        (
            "banshayishi-12.toml",
            "discuz/desktop/guest/viewthread_tid3_vote_p1.html",
        ),
        (
            "gbk-day2.toml",
            "discuz-gbk/desktop/guest/viewthread_tid2_vote_p1.html",
        ),
    ] {
        let game = load_str(&example(config), Path::new(config)).unwrap();
        let configured = game.day(2).unwrap().closes_at;
        let post = first_post(page);
        let read = read_deadline(
            &post.text,
            post.posted_at.unwrap(),
            cst(),
            &game.rules.discovery,
        );
        assert_eq!(
            check_deadline(&read, configured),
            DeadlineCheck::Same,
            "{config}"
        );
        // The judge edits the first post: the deadline moves a day.
        let edited = post
            .text
            .replace("29日", "30日")
            .replace("11-28 23:00", "11-29 23:00");
        let moved = read_deadline(
            &edited,
            post.posted_at.unwrap(),
            cst(),
            &game.rules.discovery,
        );
        assert_eq!(
            check_deadline(&moved, configured),
            DeadlineCheck::Differs {
                read: configured + chrono::Duration::days(1),
                configured
            },
            "{config}"
        );
    }
}

#[test]
fn a_found_day_is_written_into_the_game_config() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("banshayishi-12.toml");
    let text = on_day_one();
    std::fs::write(&path, &text).unwrap();
    let before = load_str(&text, &path).unwrap();

    let found: Discovery = discover(
        &before,
        &board("discuz/desktop/guest/forumdisplay_fid3.html"),
        &[],
    );
    let day: &FoundDay = &found.days[0];
    let post = first_post("discuz/desktop/guest/viewthread_tid3_vote_p1.html");
    let closes_at = read_deadline(
        &post.text,
        post.posted_at.unwrap(),
        cst(),
        &before.rules.discovery,
    )
    .at()
    .unwrap();
    let now = t("2026-11-27T21:10:00+08:00");
    let edited = add_day(&path, &NewDay::from_found(day, closes_at), now).unwrap();

    let written = std::fs::read_to_string(&path).unwrap();
    for line in text.lines() {
        assert!(written.contains(line), "lost: {line}");
    }
    assert!(written.contains("# 第 2 天：bansha 于 2026-11-27 21:10 经法官确认后添加，来自帖子 tid 3“【第十二局】投票帖 第二天”"), "{written}");
    assert_eq!(std::fs::read_to_string(&edited.backup).unwrap(), text);
    let after = load_str(&written, &path).unwrap();
    assert_eq!(after.days.len(), 2);
    assert_eq!(after.days[0], before.days[0]);
    let d2 = after.day(2).unwrap();
    assert_eq!(
        (d2.vote_thread, d2.discussion_threads.clone()),
        (Some(3), vec![4])
    );
    assert_eq!(d2.closes_at, t("2026-11-29T21:00:00+08:00"));
    assert_eq!(d2.opens_at, day.opened_at);
    // Found again, the day is known now.
    assert_eq!(
        discover(
            &after,
            &board("discuz/desktop/guest/forumdisplay_fid3.html"),
            &[]
        ),
        Discovery::default()
    );

    // The judge moves the deadline in the first post; confirmed, the close moves in the file.
    let moved = t("2026-11-29T22:00:00+08:00");
    let edited = set_closes_at(&path, 2, moved, "投票帖 tid 3 首帖的截止时间改了", now).unwrap();
    assert_eq!(edited.game.day(2).unwrap().closes_at, moved);
    let after_move = load_str(&std::fs::read_to_string(&path).unwrap(), &path).unwrap();
    assert_eq!(after_move.days[0], before.days[0]);
    assert_eq!(after_move.day(2).unwrap().closes_at, moved);
}

#[test]
fn the_documented_discovery_table_loads_and_finds_the_captured_day() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("config/README.md"))
            .unwrap();
    let start = readme.find("```toml\n[discovery]").unwrap() + "```toml\n".len();
    let table = &readme[start..start + readme[start..].find("```").unwrap()];
    let text = format!("{}\n{table}", on_day_one());
    let game = load_str(&text, Path::new("game.toml")).unwrap();
    assert!(!game.rules.discovery.auto_days);
    let found = discover(
        &game,
        &board("discuz/desktop/guest/forumdisplay_fid3.html"),
        &[],
    );
    assert_eq!(found.questions, vec![]);
    assert_eq!(
        found
            .days
            .iter()
            .map(|d| (d.day, d.vote_thread))
            .collect::<Vec<_>>(),
        vec![(2, 3)]
    );
    assert_eq!(found.days[0].discussion_threads, vec![4]);
}
