//! A bansha42 night through the daemon (issue 34): round 1's vote closes; the kill posts of
//! night 1 are handed in to the forum's kill-post thread (004 L60 "自己根据交帖口令提交至论坛"),
//! read from it as night actions — a passing post naming its killer's code (L59) and its victim,
//! a short one (a 重写, L64), one whose victim cannot be read (the judge is asked), one after
//! the deadline (late) — shown in the digest, drafted at the deadline, confirmed on the
//! dashboard; then round 2's tally counts the post victims' votes as half votes (L74 "当轮被
//! 贴杀的人投票算半票，仅在平票时计算生效") with no `half_voters` in the config.
//!
//! The kill-post thread is the replayed discussion thread (tid 4) with its opening post kept
//! and the kill posts added as replies in the captured post form (`post_like`).

use crate::support::*;

fn unix(t: &str) -> i64 {
    chrono::DateTime::parse_from_str(&format!("{t} +0800"), "%Y-%m-%d %H:%M:%S %z")
        .unwrap()
        .timestamp()
}

/// A post body of at least `n` words (Word's count: a Chinese character is a word, a number
/// one), no sentence repeated (004 L57), in simplified characters, as API HTML: sentences on
/// `scene` (nine characters), so that two posts on different scenes are not alike (L63).
fn prose(n: usize, scene: &str) -> String {
    (1..=n / 12 + 1)
        .map(|i| format!("第{i}段{scene}。"))
        .collect::<Vec<_>>()
        .join("<br />\n")
}

/// A kill post in the captured reply form: floor `floor` of the kill-post thread.
fn kill_post(template: &Value, floor: u32, pid: u64, author: &str, at: &str, html: &str) -> Value {
    let mut p = post_like(template, pid, author, unix(at), html);
    p["number"] = Value::String(floor.to_string());
    p["first"] = Value::String("0".into());
    p
}

/// The kill-post thread left with the judge's opening post (the posts of the night are added to
/// it), and its reply form; then round 1 closes at 16:00: night 1 opens, its posts due at 16:15
/// (L60).
async fn night_one(
    config: &std::path::Path,
    forum: &Arc<Mutex<Forum>>,
    mailbox: &Mailbox,
) -> Value {
    let template = {
        let mut f = forum.lock().unwrap();
        f.discussion.truncate(2);
        f.discussion.pop().unwrap()
    };
    cycles(
        config,
        forum,
        &[("2026-11-28 16:00:05", unix("2026-11-28 16:00:05"))],
    )
    .await;
    assert_eq!(
        final_texts(mailbox).len(),
        1,
        "{:?}",
        subject_lines(mailbox)
    );
    template
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bansha42_kill_posts_read_from_the_thread_reach_the_next_rounds_tally_as_half_votes() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let port = pin_status_port(&config);
    // The codes are 004 L93–L95's; 大灰狼, 冷雪 and 蝈蝈 post for the black side (L8–L11).
    bansha42_game(
        dir.path(),
        "贴杀局",
        "[roster.roles]\n\
         \"大灰狼\" = { role = \"联合杀\", faction = \"黑道\", code = \"七叶明芝\" }\n\
         \"冷雪\" = { role = \"情侣刺\", faction = \"黑道\", code = \"圣火令\" }\n\
         \"蝈蝈\" = { role = \"独立刺\", faction = \"黑道\", code = \"冰蚕丝\" }\n\
         \"小熊维尼\" = { role = \"游侠\", faction = \"白道\" }\n\
         \"花千树\" = { role = \"游侠\", faction = \"白道\" }\n\
         \"李逵\" = { role = \"游侠\", faction = \"白道\" }\n\
         [[days]]\nday = 1\nvote_thread = 3\ncloses_at = \"2026-11-28 16:00:00\"\n\
         [[days]]\nday = 2\nvote_thread = 3\ncloses_at = \"2026-11-29 21:00:00\"\n\
         code_names = [\"七叶明芝\", \"圣火令\", \"冰蚕丝\"]\n\
         checked_threads = [{ tid = 4, kind = \"kill\" }]\n",
    );
    let template = night_one(&config, &forum, &mailbox).await;

    let in_time = [
        // Handed in from the 交帖 account (a member who is no player), naming 大灰狼's code.
        kill_post(
            &template,
            2,
            9001,
            "路人甲",
            "2026-11-28 16:05:00",
            &format!(
                "贴杀：小熊维尼<br />\n代号：七叶明芝<br />\n{}",
                prose(820, "月色如水照在江面上")
            ),
        ),
        // 冷雪's own, 300 words: fails the 801 (L58), a 重写 (L64).
        kill_post(
            &template,
            3,
            9002,
            "冷雪",
            "2026-11-28 16:08:00",
            &format!(
                "贴杀：花千树<br />\n代号：圣火令<br />\n{}",
                prose(300, "春水向东流去不回头")
            ),
        ),
        // 蝈蝈's names no victim in its first lines: asked, not guessed.
        kill_post(
            &template,
            4,
            9003,
            "蝈蝈",
            "2026-11-28 16:10:00",
            &format!(
                "代号：冰蚕丝<br />\n江湖夜雨十年灯<br />\n{}",
                prose(820, "秋风吹过山间小路上")
            ),
        ),
    ];
    forum.lock().unwrap().discussion.extend(in_time);
    cycles(
        &config,
        &forum,
        &[
            ("2026-11-28 16:12:00", unix("2026-11-28 16:12:00")),
            // Read once: the next cycle (another process) adds nothing.
            ("2026-11-28 16:13:00", unix("2026-11-28 16:13:00")),
        ],
    )
    .await;
    let digests = mails_about(&mailbox, "第1夜 已收到");
    assert_eq!(digests.len(), 1, "{:?}", subject_lines(&mailbox));
    let (subject, digest) = &digests[0];
    assert!(subject.contains("已收到 2 条行动"), "{subject}");
    assert!(
        digest.contains("杀帖 tid 4 沙发（pid 9001）：大灰狼 贴杀 小熊维尼，11-28 16:05:00 寄出"),
        "{digest}"
    );
    assert!(
        digest.contains("杀帖 tid 4 板凳（pid 9002），不合格：")
            && digest.contains("冷雪 重写 花千树"),
        "{digest}"
    );
    assert!(digest.contains("少于 801"), "{digest}");
    assert!(
        digest.contains("杀帖 tid 4 地板（pid 9003） 蝈蝈：前 3 行没有读出被帖的玩家"),
        "{digest}"
    );

    // 蝈蝈 posts again after the deadline (16:15): read, and late.
    forum.lock().unwrap().discussion.push(kill_post(
        &template,
        5,
        9004,
        "蝈蝈",
        "2026-11-28 16:18:00",
        &format!(
            "贴杀：李逵<br />\n代号：冰蚕丝<br />\n{}",
            prose(820, "细雨落在青石桥头边")
        ),
    ));
    cycles(
        &config,
        &forum,
        &[("2026-11-28 16:20:00", unix("2026-11-28 16:20:00"))],
    )
    .await;
    let digests = mails_about(&mailbox, "第1夜 已收到");
    assert_eq!(digests.len(), 2, "{:?}", subject_lines(&mailbox));
    // Each post once in the record, whichever cycle read it.
    assert!(digests[1].0.contains("已收到 3 条行动"), "{}", digests[1].0);
    assert_eq!(digests[1].1.matches("（pid 9001）").count(), 1);
    assert_eq!(digests[1].1.matches("（pid 9003）").count(), 1);
    let drafts = mails_about(&mailbox, "第1夜结算草稿");
    assert_eq!(drafts.len(), 1, "{:?}", subject_lines(&mailbox));
    let (subject, draft) = &drafts[0];
    assert!(subject.contains("小熊维尼"), "{subject}");
    assert!(subject.contains("花千树"), "{subject}");
    let late = draft
        .split("【迟到的行动")
        .nth(1)
        .and_then(|s| s.split("\n【").next())
        .unwrap_or_default();
    assert!(late.contains("（pid 9004）：蝈蝈 贴杀 李逵"), "{draft}");
    assert!(draft.contains("重写 1500 字以上"), "{draft}");
    assert!(
        draft.contains("半票：花千树、小熊维尼") || draft.contains("半票：小熊维尼、花千树"),
        "{draft}"
    );
    let state = dir.path().join("games/banshayishi-12.state.json");
    let before = std::fs::read_to_string(&state).unwrap_or_default();
    assert!(
        !before.contains("小熊维尼"),
        "nothing written before the judge confirms"
    );

    // The judge confirms on the dashboard.
    let (mut child, _) = start_service(&config, Some("2026-11-28 16:30:00")).await;
    let answer = tokio::task::block_in_place(|| {
        post_json(
            port,
            "/night",
            r#"{"game": "贴杀局", "night": 1, "action": "confirm"}"#,
        )
    });
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    child.kill().unwrap();
    child.wait().unwrap();
    let after = std::fs::read_to_string(&state).unwrap();
    assert!(after.contains("half:2:小熊维尼"), "{after}");

    // Round 2's ballots in the rule's own form ("票×××", L76), by the two post victims and by
    // 李逵; its final (21:00 on the 29th): each victim's is a half vote, counted only in a tie
    // (L74), beside 李逵's whole one.
    {
        let mut f = forum.lock().unwrap();
        let template = f.posts[1].clone();
        for (pid, who, at, vote) in [
            (9101, "小熊维尼", "2026-11-29 12:50:00", "票 超人"),
            (9102, "花千树", "2026-11-29 12:55:00", "票 李逵"),
            (9103, "李逵", "2026-11-29 13:00:00", "票 超人"),
        ] {
            f.posts.push(post_like(&template, pid, who, unix(at), vote));
        }
        f.posts
            .sort_by_key(|p| p["dbdateline"].as_str().unwrap().parse::<i64>().unwrap());
        f.renumber = true;
    }
    cycles(
        &config,
        &forum,
        &[("2026-11-29 21:00:05", unix("2026-11-29 21:00:05"))],
    )
    .await;
    let finals = final_texts(&mailbox);
    assert_eq!(
        finals.len(),
        2,
        "round 2's final: {:?}",
        subject_lines(&mailbox)
    );
    let day2 = &finals[1];
    let line = |who: &str| {
        day2.lines()
            .find(|l| l.trim_start().starts_with(&format!("{who} ")) && l.contains(" 票"))
            .unwrap_or_else(|| panic!("{who}: {day2}"))
            .to_string()
    };
    let chaoren = line("超人");
    assert!(
        chaoren
            .trim_start()
            .starts_with("超人 1 票（另有半票 0.5，仅平票时计）"),
        "李逵's whole vote, 小熊维尼's half: {day2}"
    );
    assert!(
        line("李逵").contains("0 票（另有半票 0.5，仅平票时计）"),
        "花千树's half: {day2}"
    );
}

/// The game's kill-post thread listed on day 1 only, and day 2 not typed yet when night 1
/// opens (the judge types it the next morning): no day reads the thread then, so the night
/// reads it itself. While the thread cannot be read past the deadline (16:15) the night is
/// neither drafted nor confirmed — a post handed in by then may not have been read (004 L60) —
/// and once it can, the draft kills both victims.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bansha42_the_night_reads_a_kill_thread_no_day_reads_and_waits_for_it() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let port = pin_status_port(&config);
    bansha42_game(
        dir.path(),
        "贴杀局",
        "[roster.roles]\n\
         \"大灰狼\" = { role = \"联合杀\", faction = \"黑道\", code = \"七叶明芝\" }\n\
         \"冷雪\" = { role = \"情侣刺\", faction = \"黑道\", code = \"圣火令\" }\n\
         \"小熊维尼\" = { role = \"游侠\", faction = \"白道\" }\n\
         \"花千树\" = { role = \"游侠\", faction = \"白道\" }\n\
         [[days]]\nday = 1\nvote_thread = 3\ncloses_at = \"2026-11-28 16:00:00\"\n\
         checked_threads = [{ tid = 4, kind = \"kill\" }]\n",
    );
    let template = night_one(&config, &forum, &mailbox).await;
    {
        let mut f = forum.lock().unwrap();
        f.discussion.push(kill_post(
            &template,
            2,
            9001,
            "大灰狼",
            "2026-11-28 16:05:00",
            &format!(
                "贴杀：小熊维尼<br />\n代号：七叶明芝<br />\n{}",
                prose(820, "月色如水照在江面上")
            ),
        ));
        f.discussion.push(kill_post(
            &template,
            3,
            9002,
            "冷雪",
            "2026-11-28 16:10:00",
            &format!(
                "贴杀：花千树<br />\n代号：圣火令<br />\n{}",
                prose(820, "春水向东流去不回头")
            ),
        ));
        f.discussion_down = true;
    }
    // Past the deadline, the thread answering 502: nothing drafted, the confirmation refused.
    for now in ["2026-11-28 16:20:00", "2026-11-28 16:25:00"] {
        forum.lock().unwrap().at = unix(now);
        cycle_at(&config, now).await;
    }
    assert!(
        mails_about(&mailbox, "第1夜结算草稿").is_empty(),
        "{:?}",
        subject_lines(&mailbox)
    );
    let (mut child, _) = start_service(&config, Some("2026-11-28 16:26:00")).await;
    let answer = tokio::task::block_in_place(|| {
        post_json(
            port,
            "/night",
            r#"{"game": "贴杀局", "night": 1, "action": "confirm"}"#,
        )
    });
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(answer.starts_with("HTTP/1.1 409"), "{answer}");
    assert!(answer.contains("还没有读完杀帖楼（tid 4）"), "{answer}");
    // The thread answers again: read by the night, drafted with both posts.
    forum.lock().unwrap().discussion_down = false;
    cycles(
        &config,
        &forum,
        &[("2026-11-28 16:40:00", unix("2026-11-28 16:40:00"))],
    )
    .await;
    let drafts = mails_about(&mailbox, "第1夜结算草稿");
    assert_eq!(drafts.len(), 1, "{:?}", subject_lines(&mailbox));
    let (subject, draft) = &drafts[0];
    assert!(
        subject.contains("小熊维尼") && subject.contains("花千树"),
        "{subject}\n{draft}"
    );
}
