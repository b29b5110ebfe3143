//! Days found on the forum (issue 30): the judge opens the day's threads on the board and
//! clicks "开始监视" on the dashboard; bansha found the threads, read the deadline from the
//! vote thread's first post, wrote the day into the game config (comments kept, a backup
//! beside it) and watched it without a restart; the final is the day's.

use crate::support::*;
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, ResponseTemplate};

/// The captured game with only day 1 written down (no thread of its own here): day 2's threads
/// are on the board (the captured forumdisplay page: 投票帖 tid 3, 讨论帖 tid 4, the poll tid 5).
pub(crate) fn day_one_only(dir: &std::path::Path) -> std::path::PathBuf {
    let game = dir.join("games/banshayishi-12.toml");
    let text = std::fs::read_to_string(&game).unwrap();
    let start = text.find("[[days]]").unwrap();
    let end = text.find("[rules]").unwrap();
    let text = format!(
        "{}board = 3\n{}# Day 1, played before bansha watched the game.\n[[days]]\nday = 1\nopens_at = \"2026-11-27 21:00:00\"\ncloses_at = \"2026-11-28 21:00:00\"\ndead = [\"龙舌\"]\n\n{}",
        &text[..text.find("[roster]").unwrap()],
        &text[text.find("[roster]").unwrap()..start],
        &text[end..]
    );
    std::fs::write(&game, text).unwrap();
    game
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_day_opened_on_the_forum_is_found_accepted_on_the_dashboard_and_watched() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let board = std::fs::read_to_string(
        crate::common::fixtures().join("discuz/desktop/guest/forumdisplay_fid3.html"),
    )
    .unwrap();
    Mock::given(method("GET"))
        .and(path("/forum.php"))
        .and(query_param("mod", "forumdisplay"))
        .and(query_param("fid", "3"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(board, "text/html; charset=utf-8"))
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let game = day_one_only(dir.path());
    let port = pin_status_port(&config);
    forum.lock().unwrap().at = 1795953600; // 20:00
    let r = cycle_at(&config, "2026-11-29 20:00:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let found = mails_about(&mailbox, "发现新的一天");
    assert_eq!(found.len(), 1, "{:?}", subject_lines(&mailbox));
    assert!(
        found[0]
            .1
            .contains("发现第 2 天的投票帖 tid 3，截止 11-29 21:00"),
        "the deadline of pid 19 (\"截止时间：2026年11月29日 21:00\"): {}",
        found[0].1
    );
    assert!(
        !std::fs::read_to_string(&game).unwrap().contains("day = 2"),
        "not written until the judge says so"
    );
    // Found again next cycle: not mailed twice.
    cycle_at(&config, "2026-11-29 20:02:00").await;
    assert_eq!(mails_about(&mailbox, "发现新的一天").len(), 1);

    let (mut child, _) = start_service(&config, Some("2026-11-29 20:05:00")).await;
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    assert!(page.contains("开始监视第 2 天"), "{page}");
    assert!(page.contains("value=\"2026-11-29 21:00\""), "{page}");
    let body = r#"{"game":"版杀一室 第十二局","day":2,"closes_at":"2026-11-29 21:00"}"#;
    let answer = tokio::task::block_in_place(|| post_json(port, "/accept-day", body));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let written = std::fs::read_to_string(&game).unwrap();
    assert!(
        written.contains("# Day 1, played before bansha watched the game."),
        "{written}"
    );
    assert!(written.contains("vote_thread = 3"), "{written}");
    assert!(written.contains("discussion_threads = [4]"), "{written}");
    assert!(
        written.contains("closes_at = \"2026-11-29 21:00\""),
        "{written}"
    );
    assert!(
        written.contains("经法官确认后添加，来自帖子 tid 3"),
        "{written}"
    );
    let backups: Vec<_> = std::fs::read_dir(dir.path().join("games"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".bak"))
        .collect();
    assert_eq!(backups.len(), 1);
    // Taken without a restart: watched now.
    let (code, status, _) = tokio::task::block_in_place(|| cli(&config, &["status"]));
    assert_eq!(code, Some(0));
    assert!(status.contains("第2天 投票帖 tid 3"), "{status}");
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    assert!(!page.contains("开始监视第 2 天"), "accepted: {page}");
    child.kill().unwrap();
    child.wait().unwrap();

    forum.lock().unwrap().at = 1795957205;
    let r = cycle_at(&config, "2026-11-29 21:00:05").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let finals = final_texts(&mailbox);
    assert!(
        finals.iter().any(|t| t.contains("李逵 以 4 票最高")),
        "the day's own final: {finals:?}"
    );
}

/// The judge edits the vote thread's first post to move the deadline (pid 19: "截止时间：
/// 2026年11月29日 21:00" → 21:30): the judge is mailed once; the close stays until he says so on
/// the dashboard, which writes it into the config and moves the lock and close at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_moved_by_an_edit_of_the_first_post_is_asked_then_taken() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let game = dir.path().join("games/banshayishi-12.toml");
    let port = pin_status_port(&config);
    forum.lock().unwrap().at = 1795950000; // 19:00, the first read
    let r = cycle_at(&config, "2026-11-29 19:00:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    assert!(mails_about(&mailbox, "截止时间可能改了").is_empty());
    {
        let mut f = forum.lock().unwrap();
        let first = f.posts[0].clone();
        assert_eq!(first["pid"], "19");
        let text = first["message"].as_str().unwrap().replace("21:00", "21:30");
        assert!(text.contains("21:30"), "{text}");
        f.edits.insert(
            19,
            vec![(
                1795950300, // 19:05
                format!("<i class=\"pstatus\"> 本帖最后由 版杀一室法官 于 2026-11-29 19:05 编辑 </i><br />\n{text}"),
            )],
        );
        f.at = 1795953605; // 20:00:05: the lock's full read sees the edit
    }
    for t in ["2026-11-29 20:00:05", "2026-11-29 20:02:00"] {
        let r = cycle_at(&config, t).await;
        assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    }
    let moved = mails_about(&mailbox, "截止时间可能改了");
    assert_eq!(moved.len(), 1, "{:?}", subject_lines(&mailbox));
    assert!(
        moved[0]
            .1
            .contains("现在是 11-29 21:30，配置里是 11-29 21:00"),
        "{}",
        moved[0].1
    );
    assert!(std::fs::read_to_string(&game)
        .unwrap()
        .contains("closes_at = \"2026-11-29 21:00:00\""));

    let (mut child, _) = start_service(&config, Some("2026-11-29 20:15:00")).await;
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    assert!(page.contains("改为这个截止时间（11-29 21:30）"), "{page}");
    let body = r#"{"game":"版杀一室 第十二局","day":2,"closes_at":"2026-11-29 21:30:00"}"#;
    let answer = tokio::task::block_in_place(|| post_json(port, "/move-close", body));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let written = std::fs::read_to_string(&game).unwrap();
    assert!(written.contains("2026-11-29 21:30"), "{written}");
    assert!(
        written.contains("# 龙舌 exiled day 1"),
        "the judge's comments kept: {written}"
    );
    let (_, status, _) = tokio::task::block_in_place(|| cli(&config, &["status"]));
    assert!(
        status.contains("下一个时间点：2026-11-29 20:30:00"),
        "the lock of the moved close: {status}"
    );
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    assert!(!page.contains("改为这个截止时间"), "{page}");
    child.kill().unwrap();
    child.wait().unwrap();
}
