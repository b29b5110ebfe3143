//! The judge's game state: the final's judge-only projection, and condition mails.

use crate::support::*;

/// The final mail tells the judge, privately, what confirming the vote would do under the secret
/// roles: here 李逵 is m103's 太子 and survives the vote (seed 002 L124).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_final_mail_projects_the_vote_onto_the_roles() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795957560; // 21:06
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let game = dir.path().join("games/banshayishi-12.toml");
    let text = std::fs::read_to_string(&game).unwrap().replace(
        "judges = [\"版杀一室法官\", \"admin\"]\n",
        "judges = [\"版杀一室法官\", \"admin\"]\n[roster.roles]\n\"李逵\" = { role = \"东宫太子\", faction = \"我爱皇帝\" }\n",
    );
    std::fs::write(&game, text).unwrap();
    let r = cycle_at(&config, "2026-11-29 21:06:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let mails = mailbox.mails.lock().unwrap().clone();
    let final_mail = mails
        .iter()
        .find(|m| summary(m).1.contains("最终计票"))
        .unwrap();
    let text = body(final_mail);
    assert!(text.contains("仅法官可见"), "{text}");
    assert!(
        text.contains("【保护】李逵：太子被投票出局时发动“谁敢动我”，不出局"),
        "{text}"
    );
    // The public part (the BBCode above the line) has no role in it.
    assert!(
        !text.contains("胜负条件成立"),
        "a partial roster decides nothing: {text}"
    );
    let public = text.split("—— 仅法官可见").next().unwrap();
    assert!(
        !public.contains("东宫太子") && !public.contains("我爱皇帝"),
        "{public}"
    );
}
/// The judge records eliminations with `bansha change`; the daemon's next cycle mails each win
/// condition or warning that has come to hold, and each win condition that is one elimination
/// away, once (m103, seed 002; conditions from config/rulesets/m103.toml).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn state_changes_are_mailed_to_the_judge_once() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795924800; // 12:00
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let game = dir.path().join("games/banshayishi-12.toml");
    let roles = [
        ("大灰狼", "卧底刺客", "杀了狗皇帝"),
        ("小飞", "卧底刺客", "杀了狗皇帝"),
        ("李逵", "卧底刺客", "杀了狗皇帝"),
        ("花千树", "卧底刺客", "杀了狗皇帝"),
        ("不见", "大内密探", "我爱皇帝"),
        ("冷雪", "妙手太医", "我爱皇帝"),
        ("蝈蝈", "御前侍卫", "我爱皇帝"),
        ("小熊维尼", "东宫太子", "我爱皇帝"),
        ("超人", "牵线红娘", "我爱皇帝"),
        ("音乐虫子", "绝色宠妃", "我爱皇帝"),
        ("yucca", "绝色宠妃", "我爱皇帝"),
        ("龙舌", "绝色宠妃", "我爱皇帝"),
        ("青鸾花", "绝色宠妃", "我爱皇帝"),
        ("雪罂子", "至尊帝王", "我爱皇帝"),
    ];
    let mut table = String::from("judges = [\"版杀一室法官\", \"admin\"]\n[roster.roles]\n");
    for (p, r, f) in roles {
        table.push_str(&format!(
            "\"{p}\" = {{ role = \"{r}\", faction = \"{f}\" }}\n"
        ));
    }
    let text = std::fs::read_to_string(&game)
        .unwrap()
        .replace("judges = [\"版杀一室法官\", \"admin\"]\n", &table);
    std::fs::write(&game, text).unwrap();
    let change = |args: &[&str]| crate::live_game::change(&game, args);
    let cycle = |now: &'static str| {
        let config = config.clone();
        let mailbox = mailbox.clone();
        async move {
            let before = mailbox.mails.lock().unwrap().len();
            let r = tokio::task::spawn_blocking(move || once(&config, now))
                .await
                .unwrap();
            assert_eq!(r["errors"], serde_json::json!([]), "{r}");
            let mails = mailbox.mails.lock().unwrap()[before..].to_vec();
            let state: Vec<(String, String)> = mails
                .iter()
                .map(|m| (summary(m).1, body(m)))
                .filter(|(s, _)| {
                    s.contains("胜负条件成立") || s.contains("提醒：") || s.contains("再出局一人")
                })
                .collect();
            state
        }
    };

    // No state yet (龙舌 and 青鸾花 are out by the day's `dead`): nothing to say.
    assert!(cycle("2026-11-29 12:00:00").await.is_empty());

    // Three of the court out: 4 assassins of 9 alive. The warning holds; the assassins' win and
    // the court's first loss are each one elimination away.
    for p in ["不见", "冷雪", "蝈蝈"] {
        change(&["eliminate", p, "--cause", "夜杀", "--day", "2"]);
    }
    let mails = cycle("2026-11-29 12:10:00").await;
    let subjects: Vec<&str> = mails.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(mails.len(), 3, "{subjects:?}");
    assert!(subjects
        .iter()
        .any(|s| s.ends_with("提醒：再有一名非刺客出局，刺客即达到存活总数的一半")));
    let away = mails
        .iter()
        .find(|(s, _)| {
            s.ends_with("再出局一人即成立：我爱皇帝 负：本阵营的密探、太医、侍卫、太子全部出局")
        })
        .expect("one away");
    assert!(
        away.1.contains("以下任何一人出局，该条件即成立：小熊维尼"),
        "{}",
        away.1
    );
    assert!(away.1.contains("仅法官可见"), "{}", away.1);
    assert!(
        away.1
            .contains("蝈蝈 — 御前侍卫（我爱皇帝） — 出局：第2天 夜杀"),
        "{}",
        away.1
    );
    assert!(subjects.iter().any(
        |s| s.ends_with("再出局一人即成立：杀了狗皇帝（刺客）胜：存活人数不少于存活总数的一半")
    ));

    // Nothing changed: nothing mailed again.
    assert!(cycle("2026-11-29 12:20:00").await.is_empty());

    // 太子 out: 4 of 8 — the assassins win, the court has lost, and so the assassins are the
    // last faction not lost (002 L168).
    change(&["eliminate", "小熊维尼", "--cause", "投票", "--day", "2"]);
    let mails = cycle("2026-11-29 12:30:00").await;
    let mut subjects: Vec<String> = mails.into_iter().map(|(s, _)| s).collect();
    subjects.sort();
    assert_eq!(
        subjects,
        [
            "[版杀一室 第十二局] 胜负条件成立：我爱皇帝 负：本阵营的密探、太医、侍卫、太子全部出局",
            "[版杀一室 第十二局] 胜负条件成立：杀了狗皇帝 胜：其余阵营均已判负",
            "[版杀一室 第十二局] 胜负条件成立：杀了狗皇帝（刺客）胜：存活人数不少于存活总数的一半",
        ]
    );

    // Undone: nothing new holds. Recorded again: mailed again, as a new decision.
    change(&["undo"]);
    assert!(cycle("2026-11-29 12:40:00").await.is_empty());
    change(&["eliminate", "小熊维尼", "--cause", "投票", "--day", "2"]);
    assert_eq!(cycle("2026-11-29 12:50:00").await.len(), 3);
}

// ---------------------------------------------------------------- the poll (bansha42)

/// An unreadable state file holds the close like an unreadable forum (issue 18, break 2): the
/// judge has recorded yucca as out, and one stray comma in the file must not bring back her
/// ballot in a final tally. The judge hears at once; the final waits for a file that reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreadable_state_file_holds_the_final_tally() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795957560; // 21:06
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let game = dir.path().join("games/banshayishi-12.toml");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(["change", "--config"])
        .arg(&game)
        .args([
            "--at",
            "2026-11-28 08:00",
            "eliminate",
            "yucca",
            "--cause",
            "夜杀",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let state = dir.path().join("games/banshayishi-12.state.json");
    let good = std::fs::read_to_string(&state).unwrap();
    let broken = good.replacen('{', "{,", 1);
    std::fs::write(&state, &broken).unwrap();

    let r = cycle_at(&config, "2026-11-29 21:06:00").await;
    let subjects = subject_lines(&mailbox);
    assert!(
        !subjects.iter().any(|s| s.contains("最终计票")),
        "no final tally from a state the daemon cannot read: {subjects:?}"
    );
    assert!(
        subjects.iter().any(|s| s.contains("局面文件无法读取")),
        "the judge is told at once: {subjects:?}"
    );
    assert!(
        r["errors"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e.as_str().unwrap().contains("state.json")),
        "{r}"
    );

    // The judge mends the file: the next cycle makes the final tally without her ballot.
    std::fs::write(&state, &good).unwrap();
    let r = cycle_at(&config, "2026-11-29 21:07:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let mails = mailbox.mails.lock().unwrap().clone();
    let finals: Vec<&String> = mails
        .iter()
        .filter(|m| summary(m).1.contains("最终计票"))
        .collect();
    assert_eq!(finals.len(), 1);
    let text = body(finals[0]);
    assert!(text.contains("李逵 3 票"), "{text}");
    assert!(text.contains("yucca 已出局"), "{text}");
}

/// A final tally made long after its close says so (issue 18, break 5): here the daemon first
/// runs two and a half hours after the deadline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_final_made_after_the_fact_says_so() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795966200; // 23:30
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let r = cycle_at(&config, "2026-11-29 23:30:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let text = final_texts(&mailbox).pop().expect("a final tally");
    assert!(
        text.contains("这次最终计票是截止 2 小时 30 分钟后（2026-11-29 23:30:00）才做的"),
        "{text}"
    );
    // Still the tally as of the close.
    assert!(text.contains("李逵 4 票"), "{text}");
}

/// A deadline extended after it passed, edited in the config and restarted as the README says
/// (issue 18, break 5): the earlier final is withdrawn in a mail, the day is watched again, and
/// at the new close a new final goes out. Before, the changed deadline was ignored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_moved_later_reopens_the_day() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795957560; // 21:06
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let run = |now: &'static str| cycle_at(&config, now);
    let r = run("2026-11-29 21:06:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    assert_eq!(final_texts(&mailbox).len(), 1);

    // The judge extends day 2 by a day and restarts.
    let game = dir.path().join("games/banshayishi-12.toml");
    let text = std::fs::read_to_string(&game)
        .unwrap()
        .replace("2026-11-29 21:00:00", "2026-11-30 21:00:00");
    std::fs::write(&game, text).unwrap();
    let r = run("2026-11-29 21:20:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let subjects = subject_lines(&mailbox);
    assert!(
        subjects
            .iter()
            .any(|s| s.contains("截止时间改为 11-30 21:00：之前的最终计票作废")),
        "{subjects:?}"
    );
    assert_eq!(
        final_texts(&mailbox).len(),
        1,
        "no final before the new close"
    );

    forum.lock().unwrap().at = 1796043605; // 11-30 21:00:05
    let r = run("2026-11-30 21:00:05").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let all = final_texts(&mailbox);
    assert_eq!(all.len(), 2, "a new final at the new close");
    assert!(
        all[1].contains("截止时间 2026-11-30 21:00:00 已到"),
        "{}",
        all[1]
    );
}

/// A ruling made after the day's final (issue 19): the final no longer says what the judge
/// ruled, so the daemon makes it again from the record as of the close, with the rulings as
/// they now stand, and mails it once as the corrected final naming the change; undoing the
/// ruling corrects it back. 潜水, where a missed vote counts, is counted again with them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ruling_after_the_final_mails_a_corrected_final() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795957560; // 21:06
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let r = cycle_at(&config, "2026-11-29 21:06:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let first = final_texts(&mailbox);
    assert_eq!(first.len(), 1);
    assert!(first[0].contains("李逵 4 票"), "{}", first[0]);
    let lurk_before = subject_lines(&mailbox)
        .iter()
        .filter(|s| s.contains("发言统计"))
        .count();

    forum.lock().unwrap().at = 1795959000; // 21:30
    let _port = pin_status_port(&config);
    let (mut child, _) = start_service(&config, Some("2026-11-29 21:30:00")).await;
    let ask = |args: &[&str]| tokio::task::block_in_place(|| cli(&config, args));
    // 32# 花千树's ballot for 李逵 (pid 113): the judge voids it.
    let (code, out, err) = ask(&[
        "ruling",
        "--day",
        "2",
        "--pid",
        "113",
        "--void",
        "--reason",
        "托票给了其他玩家",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    let finals = wait_finals(&mailbox, 2).await;
    assert_eq!(finals.len(), 2, "{:?}", subject_lines(&mailbox));
    let corrected = &finals[1];
    assert!(corrected.contains("李逵 3 票"), "{corrected}");
    assert!(
        corrected.contains(
            "法官在最终计票之后改了这一天的裁定（新裁定 pid 113 作废（托票给了其他玩家））"
        ),
        "{corrected}"
    );
    assert!(
        subject_lines(&mailbox)
            .iter()
            .any(|s| s.contains("更正后的最终计票：")),
        "{:?}",
        subject_lines(&mailbox)
    );

    // Undone: corrected back, once.
    let (_, list, _) = ask(&["ruling"]);
    let id = list.split_whitespace().next().unwrap().to_string();
    let (code, _, err) = ask(&["ruling", "--remove", &id]);
    assert_eq!(code, Some(0), "{err}");
    let finals = wait_finals(&mailbox, 3).await;
    assert_eq!(finals.len(), 3, "{:?}", subject_lines(&mailbox));
    assert!(finals[2].contains("李逵 4 票"), "{}", finals[2]);
    assert!(finals[2].contains("撤销裁定 pid 113"), "{}", finals[2]);
    // A later cycle changes nothing more.
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    assert_eq!(final_texts(&mailbox).len(), 3);
    // m103 counts a missed vote as 潜水 (002 L354): with 花千树's ballot void she had none, and
    // the 潜水 mail was made again with her; undone, her entry is withdrawn.
    let lurks: Vec<String> = mailbox
        .mails
        .lock()
        .unwrap()
        .iter()
        .filter(|m| summary(m).1.contains("发言统计"))
        .map(|m| body(m))
        .collect();
    assert_eq!(lurks.len(), lurk_before + 2, "once per count made again");
    assert!(!lurks[0].contains("auto-lurk-d2-花千树"), "{}", lurks[0]);
    assert!(
        lurks[1].contains("花千树 auto-lurk-d2-花千树"),
        "the id, judge-only: {}",
        lurks[1]
    );
    assert!(
        !lurks[1]
            .split("—— 仅法官可见")
            .next()
            .unwrap()
            .contains("auto-lurk"),
        "the BBCode carries no internal ids: {}",
        lurks[1]
    );
    assert!(lurks[1].contains("本讨论日没有投票"), "{}", lurks[1]);
    assert!(
        lurks[2].contains("（重新统计后不再成立）（已撤销）"),
        "{}",
        lurks[2]
    );
    std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let _ = tokio::task::block_in_place(|| child.wait());
}

/// The final tallies once `n` have arrived (or after 20 s).
async fn wait_finals(mailbox: &Mailbox, n: usize) -> Vec<String> {
    for _ in 0..100 {
        if final_texts(mailbox).len() >= n {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    final_texts(mailbox)
}

/// A change to the game state after a day's final that changes who could vote that day (the
/// judge records a night kill stamped before the close, or confirms an earlier day late): the
/// final was counted with a voter who was out, so it is made again from the record as of the
/// close and mailed once as the corrected final, naming the change; undone, corrected back.
/// The class the rulings' corrected final covers (`a_ruling_after_the_final_…`), for the
/// state: the simulator's judge confirms days late (issue 33).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_state_change_after_the_final_that_changes_who_could_vote_mails_a_corrected_final() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795957560; // 21:06
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let game = dir.path().join("games/banshayishi-12.toml");
    let r = cycle_at(&config, "2026-11-29 21:06:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let first = final_texts(&mailbox);
    assert_eq!(first.len(), 1);
    assert!(first[0].contains("李逵 4 票"), "{}", first[0]);
    let change = |args: &[&str]| crate::live_game::change(&game, args);
    // 32# 花千树 voted for 李逵 (pid 113); she was killed in the night before, recorded late.
    change(&[
        "--at",
        "2026-11-29 08:00",
        "eliminate",
        "花千树",
        "--cause",
        "夜杀",
        "--day",
        "2",
    ]);
    forum.lock().unwrap().at = 1795959000; // 21:30
                                           // A cycle at `now`; the finals mailed by then, the last of them checked for `says`.
    let finals_at = |now: &'static str, n: usize, says: &'static [&'static str]| {
        let (config, mailbox) = (config.clone(), mailbox.clone());
        async move {
            let r = cycle_at(&config, now).await;
            assert_eq!(r["errors"], serde_json::json!([]), "{r}");
            let finals = final_texts(&mailbox);
            assert_eq!(finals.len(), n, "{:?}", subject_lines(&mailbox));
            for s in says {
                assert!(finals[n - 1].contains(s), "{s}: {}", finals[n - 1]);
            }
        }
    };
    finals_at(
        "2026-11-29 21:30:00",
        2,
        &[
            "李逵 3 票",
            "这一天的存活名单在最终计票之后有变（出局：花千树）",
        ],
    )
    .await;
    assert!(subject_lines(&mailbox)
        .iter()
        .any(|s| s.contains("更正后的最终计票：")));
    // A later cycle changes nothing more.
    finals_at("2026-11-29 21:40:00", 2, &[]).await;
    // Undone: corrected back, once.
    change(&["undo"]);
    finals_at(
        "2026-11-29 21:50:00",
        3,
        &[
            "李逵 4 票",
            "这一天的存活名单在最终计票之后有变（恢复：花千树）",
        ],
    )
    .await;
}
