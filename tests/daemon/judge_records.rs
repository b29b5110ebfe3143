//! What the judge writes and the daemon must take as written, or refuse: a close that cannot
//! be one, duties missed recorded after the close, the ledger kept by hand.

use crate::support::*;

/// Issue 29 item 6: `closes_at` a month early (a typo of the month), the service started on the
/// day. A close before the vote thread's first post is a configuration error: the day is held
/// (no final, no 潜水, no ledger entry, no void digest), the judge is told once by mail and on
/// every cycle's report (`bansha status`, the dashboard). Corrected, the day runs as usual.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn a_close_before_the_vote_thread_existed_holds_the_day() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let game = dir.path().join("games/banshayishi-12.toml");
    let right = std::fs::read_to_string(&game).unwrap();
    let wrong = right.replace(
        "closes_at = \"2026-11-29 21:00:00\"",
        "closes_at = \"2026-10-29 21:00:00\"",
    );
    assert_ne!(wrong, right);
    std::fs::write(&game, &wrong).unwrap();
    for (now, ts) in [
        ("2026-11-29 12:00:00", 1795924800),
        ("2026-11-29 18:00:00", 1795946400),
        ("2026-11-29 21:06:00", 1795957560),
    ] {
        forum.lock().unwrap().at = ts;
        let r = cycle_at(&config, now).await;
        let errors = r["errors"].to_string();
        assert!(
            errors.contains("第 2 天的截止时间 2026-10-29 21:00 早于投票帖（tid 3）的第一帖"),
            "{now}: {r}; mailed: {:?}",
            subject_lines(&mailbox)
        );
    }
    let subjects = subject_lines(&mailbox);
    assert_eq!(subjects.len(), 1, "one mail, the error: {subjects:?}");
    assert!(subjects[0].contains("配置错误"), "{subjects:?}");
    let text = mails_about(&mailbox, "配置错误").remove(0).1;
    assert!(
        text.contains("2026-10-29 21:00") && text.contains("closes_at"),
        "{text}"
    );
    // Nothing in the ledger (read from the record: the service is not running).
    let (code, ledger, err) = tokio::task::block_in_place(|| cli(&config, &["ledger"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(ledger.contains("（无）"), "{ledger}");

    // The judge corrects the month: the day closes as it should.
    std::fs::write(&game, &right).unwrap();
    forum.lock().unwrap().at = 1795957590;
    let r = cycle_at(&config, "2026-11-29 21:06:30").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let finals = final_texts(&mailbox);
    assert_eq!(finals.len(), 1, "{:?}", subject_lines(&mailbox));
    assert!(finals[0].contains("李逵"), "{}", finals[0]);
}

/// Issue 29 item 5 (qipan 003 L110–L114: the night move is due 21:00–22:00, after the day's
/// close; L136 "如果1个环节没有完成，警告。2个环节没有完成，按潜水论处，直接换人"). A duty missed
/// recorded after the end-of-day mail counts toward replacement, whether the judge writes it in
/// the day's `missed_night_moves` or adds it by hand with `bansha ledger` (here with the service
/// not running: written to the record the service reads). Each recording that changes a verdict
/// is mailed as a corrected ledger, whose public 潜水 line agrees with the ledger below it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn duties_missed_recorded_after_the_close_count_toward_replacement() {
    use crate::ballot_sources::{Inbox, Message};
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let at = |t: &str| {
        chrono::DateTime::parse_from_str(&format!("2026-11-29 {t} +0800"), "%Y-%m-%d %H:%M %z")
            .unwrap()
            .timestamp()
    };
    // 12 living; 冷雪 and 雪罂子 send no ballot (one duty missed each at the close, L136).
    let ballots: Vec<Message> = vec![
        ("大灰狼", at("18:00"), "投李逵，理由是他昨天发言前后矛盾"),
        ("小飞", at("18:05"), "我投李逵，因为他一直在带节奏"),
        ("不见", at("18:10"), "票：李逵\n推理：夜里移动路线可疑"),
        ("蝈蝈", at("18:20"), "投李逵，理由：跟票跟得太快"),
        ("李逵", at("18:30"), "投花千树，理由是她在保护杀手"),
        ("超人", at("18:40"), "我投花千树，理由是她的移动对不上"),
        ("音乐虫子", at("18:50"), "投李逵，理由：昨天的发言太含糊"),
        ("yucca", at("19:00"), "投花千树，因为她回避了问题"),
        ("花千树", at("19:10"), "投大灰狼，理由是他在带节奏"),
        ("小熊维尼", at("19:20"), "投大灰狼，理由：怀疑他是副杀"),
    ];
    Mock::given(method("GET"))
        .and(path("/api/mobile/index.php"))
        .and(query_param("module", "mypm"))
        .respond_with(Inbox(Arc::new(Mutex::new(ballots))))
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let game = dir.path().join("games/banshayishi-12.toml");
    std::fs::write(
        &game,
        format!(
            "ruleset = \"qipan\"\nname = \"棋盘局\"\n{}\n[[days]]\nday = 2\nvote_thread = 3\nopens_at = \"2026-11-29 09:00:00\"\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n",
            common::ROSTER
        ),
    )
    .unwrap();
    forum.lock().unwrap().at = at("21:01");
    let r = cycle_at(&config, "2026-11-29 21:01:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let lurk = mails_about(&mailbox, "发言统计");
    assert_eq!(lurk.len(), 1, "{:?}", subject_lines(&mailbox));
    assert!(lurk[0].1.contains("冷雪：警告 1\n"), "{}", lurk[0].1);

    // 22:10: the night (21:00–22:00, L112–L114) is over; the judge records that 冷雪 did not
    // move, in the day's missed_night_moves, and restarts.
    let text = std::fs::read_to_string(&game).unwrap();
    std::fs::write(
        &game,
        text.replace(
            "dead = [\"龙舌\", \"青鸾花\"]\n",
            "dead = [\"龙舌\", \"青鸾花\"]\nmissed_night_moves = [\"冷雪\"]\n",
        ),
    )
    .unwrap();
    forum.lock().unwrap().at = at("22:10");
    let r = cycle_at(&config, "2026-11-29 22:10:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let corrected = mails_about(&mailbox, "违规记录更正");
    assert_eq!(corrected.len(), 1, "{:?}", subject_lines(&mailbox));
    let (subject, text) = &corrected[0];
    assert!(subject.contains("冷雪"), "{subject}");
    assert!(
        text.contains("冷雪：警告 1（第 2 天 2 个环节没有完成：按潜水论处，按规则换人）"),
        "{text}"
    );
    // The public 潜水 line says the same as the ledger: 冷雪 is replaced, 雪罂子 warned.
    let public = text
        .lines()
        .find(|l| l.starts_with("[b]潜水[/b]"))
        .unwrap_or_default();
    assert!(
        public.contains("冷雪（本讨论日没有投票；没有在规定时间内行使夜间行动）按潜水论处，换人"),
        "{public}\n{text}"
    );
    assert!(
        public.contains("雪罂子（本讨论日没有投票），各警告一次"),
        "{public}"
    );
    // The end-of-day mail is not sent again: the correction is its own mail.
    assert_eq!(mails_about(&mailbox, "发言统计").len(), 1);

    // The judge adds 雪罂子's missed night move by hand, the service not running: the record
    // takes it, and the ledger printed says what follows.
    let (code, out, err) = tokio::task::block_in_place(|| {
        cli(
            &config,
            &[
                "ledger",
                "--add",
                "雪罂子",
                "--kind",
                "warning",
                "--day",
                "2",
                "--reason",
                "夜晚没有移动",
            ],
        )
    });
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("雪罂子：警告 2（第 2 天 2 个环节没有完成：按潜水论处，按规则换人）"),
        "{out}"
    );
    // A warning for a missed duty needs its day where duties count per day.
    let (code, _, err) = tokio::task::block_in_place(|| {
        cli(&config, &["ledger", "--add", "超人", "--kind", "warning"])
    });
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--day"), "{err}");
    forum.lock().unwrap().at = at("22:20");
    let r = cycle_at(&config, "2026-11-29 22:20:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let corrected = mails_about(&mailbox, "违规记录更正");
    assert_eq!(corrected.len(), 2, "{:?}", subject_lines(&mailbox));
    let (subject, text) = &corrected[1];
    assert!(
        subject.contains("雪罂子") && !subject.contains("冷雪"),
        "{subject}"
    );
    let public = text
        .lines()
        .find(|l| l.starts_with("[b]潜水[/b]"))
        .unwrap_or_default();
    assert!(
        public.contains("雪罂子（本讨论日没有投票）按潜水论处，换人"),
        "{public}\n{text}"
    );
    // Nothing changed since: nothing more is sent.
    forum.lock().unwrap().at = at("22:40");
    let r = cycle_at(&config, "2026-11-29 22:40:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    assert_eq!(mails_about(&mailbox, "违规记录更正").len(), 2);
}
