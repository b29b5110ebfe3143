//! A qipan night through the daemon (issue 34). The moves come as private messages to the judge
//! (003 L106 "只允许用站内短信的方式私下通知法官"), in the players' own words ("向东", "北",
//! "往北走"), read from the replayed inbox; the map is the game's (003 L12 "本地图形状不规则": the
//! judge draws it, `[rules.night.map]`). The good players move one cell east, west, south or
//! north (L24), a move into no cell fails and the player stays (L24, told as L28); their moves
//! are due at 22:00 (L110–L114 "所有存活的好人给法官发移动…注：截止时间为22:00"), the killers'
//! night runs to 9:00 (L116); the 主杀 moves one cell in eight directions (L36) and kills a good
//! player on his own cell or one around it (L42, L46). A living player without a move has missed
//! a duty (L130–L136): with the day's missed vote, two of one day are 潜水 and replacement
//! (L136 "2个环节没有完成，按潜水论处，直接换人"), without the judge typing `missed_night_moves`.
//!
//! The map (rows north to south, "#" no cell):
//!
//! ```text
//!      A B C D E
//!   1  . . . # .
//!   2  . # . . .
//!   3  . . . . #
//!   4  # . . . .
//! ```

use crate::ballot_sources::{Inbox, Message};
use crate::support::*;

fn unix(t: &str) -> i64 {
    chrono::DateTime::parse_from_str(&format!("{t} +0800"), "%Y-%m-%d %H:%M %z")
        .unwrap()
        .timestamp()
}

/// The game: 大灰狼 主杀 and 小飞 副杀 (L42), the others good; the map above with each start.
fn game_text() -> String {
    let mut roles = String::from(
        "[roster.roles]\n\"大灰狼\" = { role = \"主杀\", faction = \"杀手\" }\n\
         \"小飞\" = { role = \"副杀\", faction = \"杀手\" }\n",
    );
    for p in crate::common::ROSTER_PLAYERS.iter().skip(2) {
        roles.push_str(&format!(
            "\"{p}\" = {{ role = \"好人\", faction = \"好人\" }}\n"
        ));
    }
    format!(
        "ruleset = \"qipan\"\nname = \"棋盘局\"\nid = \"qp\"\n{}\n{roles}\
         [[days]]\nday = 2\nvote_thread = 3\nopens_at = \"2026-11-29 09:00:00\"\n\
         closes_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n\
         [[days]]\nday = 3\nvote_thread = 4\nopens_at = \"2026-11-30 09:00:00\"\n\
         closes_at = \"2026-11-30 21:00:00\"\n\
         [rules.night.map]\ngrid = [\"...#.\", \".#...\", \"....#\", \"#....\"]\n\
         start = {{ \"李逵\" = \"A1\", \"花千树\" = \"B3\", \"不见\" = \"C2\", \"冷雪\" = \"E1\", \
         \"蝈蝈\" = \"D4\", \"小熊维尼\" = \"A3\", \"超人\" = \"C4\", \"音乐虫子\" = \"D2\", \
         \"yucca\" = \"E4\", \"雪罂子\" = \"C3\", \"大灰狼\" = \"D3\", \"小飞\" = \"C4\" }}\n",
        crate::common::ROSTER
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_qipan_night_of_private_messages_moves_kills_and_counts_the_missed_move() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let at = |t: &str| unix(t);
    // Day 2's ballots (L106, L130): 11 of the 12 living vote, nobody reaches 30% (4 of 12, L98,
    // L100); 雪罂子 does not vote.
    let ballots: Vec<Message> = vec![
        (
            "大灰狼",
            at("2026-11-29 18:00"),
            "投李逵，理由是他昨天发言前后矛盾",
        ),
        ("小飞", at("2026-11-29 18:02"), "投李逵，理由：带节奏"),
        ("不见", at("2026-11-29 18:04"), "投李逵，理由是移动路线可疑"),
        (
            "李逵",
            at("2026-11-29 18:06"),
            "投花千树，理由是她在保护杀手",
        ),
        ("超人", at("2026-11-29 18:08"), "投花千树，理由：移动对不上"),
        (
            "音乐虫子",
            at("2026-11-29 18:10"),
            "投花千树，理由：发言含糊",
        ),
        ("花千树", at("2026-11-29 18:12"), "投冷雪，理由是她回避问题"),
        ("小熊维尼", at("2026-11-29 18:14"), "投冷雪，理由：跟票太快"),
        ("yucca", at("2026-11-29 18:16"), "投冷雪，理由：昨天划水"),
        ("冷雪", at("2026-11-29 18:18"), "投蝈蝈，理由：不说话"),
        (
            "蝈蝈",
            at("2026-11-29 18:20"),
            "投大灰狼，理由：怀疑他是主杀",
        ),
    ];
    let inbox = Arc::new(Mutex::new(ballots));
    Mock::given(method("GET"))
        .and(path("/api/mobile/index.php"))
        .and(query_param("module", "mypm"))
        .respond_with(Inbox(inbox.clone()))
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let port = pin_status_port(&config);
    let game = dir.path().join("games/banshayishi-12.toml");
    std::fs::write(&game, game_text()).unwrap();
    forum.lock().unwrap().at = at("2026-11-29 21:00") + 5;
    let r = cycle_at(&config, "2026-11-29 21:00:05").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let day2 = final_texts(&mailbox).remove(0);
    assert!(
        day2.contains("无人出局") || day2.contains("不死人"),
        "{day2}"
    );

    // The good players' moves, 21:00–22:00 (L110–L114), in their own words.
    inbox.lock().unwrap().extend([
        ("李逵", at("2026-11-29 21:10"), "向东"),     // A1 → B1
        ("花千树", at("2026-11-29 21:12"), "北"),     // B3 → B2: no cell (L24)
        ("不见", at("2026-11-29 21:15"), "往北走"),   // C2 → C1
        ("冷雪", at("2026-11-29 21:20"), "南"),       // E1 → E2
        ("小熊维尼", at("2026-11-29 21:25"), "向北"), // A3 → A2
        ("超人", at("2026-11-29 21:27"), "西"),       // C4 → B4
        ("音乐虫子", at("2026-11-29 21:28"), "东"),   // D2 → E2
        ("yucca", at("2026-11-29 21:29"), "往西走"),  // E4 → D4
    ]);
    let r = cycle_at(&config, "2026-11-29 21:30:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let digests = mails_about(&mailbox, "第2夜 已收到");
    assert_eq!(digests.len(), 1, "{:?}", subject_lines(&mailbox));
    assert!(digests[0].0.contains("已收到 8 条行动"), "{}", digests[0].0);
    assert!(digests[0].1.contains("花千树 移动 北"), "{}", digests[0].1);
    // Half an hour before the good players' 22:00 (L114): those who have not moved, once.
    cycle_at(&config, "2026-11-29 21:40:00").await;
    let reminders = mails_about(&mailbox, "第2夜 还有");
    assert_eq!(reminders.len(), 1, "{:?}", subject_lines(&mailbox));
    assert!(
        reminders[0].1.contains("蝈蝈") && reminders[0].1.contains("雪罂子"),
        "{}",
        reminders[0].1
    );
    assert!(!reminders[0].1.contains("李逵"), "{}", reminders[0].1);

    // At 22:00 (L114), the replies the good players are owed (L26–L29, L112 "法官将及时反馈位置信息")
    // and what the killers are told before they move (L48), once.
    for t in ["2026-11-29 22:00:05", "2026-11-29 22:02:00"] {
        let r = cycle_at(&config, t).await;
        assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    }
    let fed = mails_about(&mailbox, "好人移动结果");
    assert_eq!(fed.len(), 1, "{:?}", subject_lines(&mailbox));
    let fed = &fed[0].1;
    assert!(fed.contains("→ 李逵：移动成功，你现在位于B1区域"), "{fed}");
    assert!(fed.contains("→ 花千树：移动失败，原地停留"), "{fed}");
    assert!(
        fed.contains("→ 大灰狼：好人移动后的位置（003 L48）：") && fed.contains("李逵 在 B1"),
        "{fed}"
    );

    // 蝈蝈 moves after 22:00: late (L114). The killers, after the good players (L48): the 主杀
    // steps north-east to E2 and kills 冷雪 there (L36, L46); the 副杀 steps north-west.
    inbox.lock().unwrap().extend([
        ("蝈蝈", at("2026-11-29 22:05"), "南"),
        ("大灰狼", at("2026-11-29 22:30"), "东北；杀人：冷雪"),
        ("小飞", at("2026-11-29 23:00"), "西北"),
    ]);
    let r = cycle_at(&config, "2026-11-29 23:10:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    assert_eq!(mails_about(&mailbox, "第2夜 已收到").len(), 2);

    // At 9:00 (L116), the draft; nothing written yet.
    let r = cycle_at(&config, "2026-11-30 09:00:05").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let drafts = mails_about(&mailbox, "第2夜结算草稿");
    assert_eq!(drafts.len(), 1, "{:?}", subject_lines(&mailbox));
    assert!(drafts[0].0.contains("冷雪 死亡"), "{}", drafts[0].0);
    let draft = &drafts[0].1;
    assert!(
        draft.contains("→ 李逵：移动成功，你现在位于B1区域"),
        "L27: {draft}"
    );
    assert!(
        draft.contains("→ 花千树：移动失败，原地停留"),
        "L28: {draft}"
    );
    assert!(
        draft.contains("→ 不见：移动成功，你现在位于C1区域"),
        "{draft}"
    );
    // Day 3's ballots are private messages too (L106): day 2's ballots and the night's moves and
    // kill are none of its (too early) ballots.
    assert!(
        mails_about(&mailbox, "第3天 无效票").is_empty(),
        "{:?}",
        subject_lines(&mailbox)
    );
    let state = game.with_file_name("banshayishi-12.state.json");
    assert!(!std::fs::read_to_string(&state)
        .unwrap_or_default()
        .contains("位置:"));

    // Confirmed on the dashboard.
    let (mut child, _) = start_service(&config, Some("2026-11-30 09:10:00")).await;
    let answer = tokio::task::block_in_place(|| {
        post_json(
            port,
            "/night",
            r#"{"game":"棋盘局","night":2,"action":"confirm"}"#,
        )
    });
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let text = std::fs::read_to_string(&state).unwrap();
    let st: serde_json::Value = serde_json::from_str(&text).unwrap();
    let fact = |k: &str| {
        st["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["change"]["type"] == "fact" && e["change"]["key"] == k)
            .map(|e| e["change"]["value"].as_f64().unwrap())
            .next_back()
    };
    let dead: Vec<&str> = st["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["change"]["type"] == "eliminate")
        .map(|e| e["change"]["player"].as_str().unwrap())
        .collect();
    assert_eq!(dead, ["冷雪"], "{text}");
    assert!(text.contains("位于E2区域"), "L14: {text}");
    // Positions as row × 100 + column: B1, C1 moved; 花千树 stays at B3 and knows the way north
    // from there is none (L32); 蝈蝈's late move is not made (D4).
    assert_eq!(fact("位置:李逵"), Some(102.0), "{text}");
    assert_eq!(fact("位置:不见"), Some(103.0), "{text}");
    assert_eq!(fact("位置:花千树"), Some(302.0), "{text}");
    assert_eq!(fact("无路:花千树:北"), Some(302.0), "{text}");
    assert_eq!(fact("位置:蝈蝈"), Some(404.0), "{text}");
    assert_eq!(fact("位置:大灰狼"), Some(205.0), "{text}");
    assert_eq!(fact("missed:2:雪罂子"), Some(1.0), "{text}");
    assert_eq!(fact("missed:2:蝈蝈"), Some(1.0), "L114 late: {text}");
    for moved in ["李逵", "花千树", "大灰狼", "小飞", "yucca"] {
        assert_eq!(fact(&format!("missed:2:{moved}")), None, "{text}");
    }
    child.kill().unwrap();
    child.wait().unwrap();

    // The ledger told again (L136): 雪罂子 missed the vote and the move, two duties of day 2, 潜水
    // and replacement; 蝈蝈 missed the move only, a warning.
    let r = cycle_at(&config, "2026-11-30 09:15:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let corrected = mails_about(&mailbox, "违规记录");
    assert!(!corrected.is_empty(), "{:?}", subject_lines(&mailbox));
    let last = &corrected.last().unwrap().1;
    assert!(
        last.contains("雪罂子：警告 1（第 2 天 2 个环节没有完成：按潜水论处，按规则换人）"),
        "{last}"
    );
    let snow = crate::night_m103::entries_of(last, "雪罂子").join("\n");
    assert!(
        snow.contains("本讨论日没有投票；没有在规定时间内行使夜间行动"),
        "{last}"
    );
    assert!(last.contains("蝈蝈：警告 1\n"), "{last}");
    let guo = crate::night_m103::entries_of(last, "蝈蝈").join("\n");
    assert!(guo.contains("没有在规定时间内行使夜间行动"), "{last}");
    for moved in ["李逵", "花千树", "大灰狼", "小飞"] {
        assert!(
            crate::night_m103::entries_of(last, moved).is_empty(),
            "{moved} moved: {last}"
        );
    }
}
