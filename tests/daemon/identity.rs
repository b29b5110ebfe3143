//! Telling things apart (issue 29): two posts that came to stand on the same floor, a game
//! renamed without an `id`, and the daemon that answers on the port being another config's.

use crate::support::*;

/// Issue 29 item 13: Discuz numbers floors by place, so a deletion moves every later post up
/// one, and a post made after it lands on the floor an earlier one was read at. Two void
/// ballots of one player, pid 1000 read at 28# and pid 1001 read at 28# after pid 43 was
/// deleted: each is mailed once, under its own name (the floor as read and the pid), with the
/// link to its own pid; nothing is mailed twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_posts_read_at_the_same_floor_are_told_apart() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    forum.lock().unwrap().renumber = true;
    cycles(&config, &forum, &[("2026-11-29 20:00:00", 1795953600)]).await;
    {
        let mut f = forum.lock().unwrap();
        let template = f.posts[1].clone();
        // 20:10, after pid 105 (27#): 28#. Void: no colon (the format's "投票对象：").
        f.posts.push(post_like(
            &template,
            1000,
            "超人",
            1795954200,
            "投票对象 李逵<br />\n投票理由 没有冒号",
        ));
    }
    cycles(&config, &forum, &[("2026-11-29 20:10:00", 1795954200)]).await;
    {
        let mut f = forum.lock().unwrap();
        // 路人甲's 5# goes: pid 1000 moves up to 27#, and the next post is 28#.
        f.deleted.insert(43);
        let template = f.posts[1].clone();
        f.posts.push(post_like(
            &template,
            1001,
            "超人",
            1795954320,
            "投票对象 大灰狼<br />\n投票理由 还是没有冒号",
        ));
    }
    cycles(
        &config,
        &forum,
        &[
            ("2026-11-29 20:12:00", 1795954320),
            ("2026-11-29 20:14:00", 1795954440),
        ],
    )
    .await;

    let voids: Vec<(String, String)> = mails_about(&mailbox, "无效票：")
        .into_iter()
        .filter(|(s, _)| s.contains("超人"))
        .collect();
    assert_eq!(voids.len(), 2, "{voids:#?}");
    assert_ne!(voids[0].0, voids[1].0, "one name for two posts: {voids:#?}");
    for ((subject, body), pid) in voids.iter().zip([1000, 1001]) {
        assert!(
            subject.contains(&format!("28# 超人（pid {pid}）")),
            "{subject}"
        );
        assert!(
            body.contains(&format!("goto=findpost&ptid=3&pid={pid}\n")),
            "{body}"
        );
    }
    // Every mail about one post names it apart from every other.
    let all = subject_lines(&mailbox);
    let named: Vec<&String> = all.iter().filter(|s| s.contains('#')).collect();
    let unique: BTreeSet<&&String> = named.iter().collect();
    assert_eq!(unique.len(), named.len(), "{all:#?}");
}

/// The captured game without its `id` line: keyed by its name, as configs written before `id`
/// existed are.
fn without_id(dir: &Path) -> PathBuf {
    let game = dir.join("games/banshayishi-12.toml");
    let text = std::fs::read_to_string(&game).unwrap();
    let stripped: String = text
        .lines()
        .filter(|l| !l.starts_with("id = ") && !l.contains("keys the game by"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_ne!(stripped, text);
    std::fs::write(&game, stripped).unwrap();
    game
}

/// Issue 29 item 15: a game without `id`, renamed after its close, is the same game (the same
/// vote threads, the same roster): every start after the rename (each `run --once` is one)
/// keeps its record, sends nothing again, and tells the judge once which record it kept and
/// the `id` line that says so. A rename that also changes the roster is not guessed: bansha
/// does not start, and says what to write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_renamed_without_an_id_keeps_its_record() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let game = without_id(dir.path());
    cycles(
        &config,
        &forum,
        &[
            ("2026-11-29 16:00:00", 1795924800),
            ("2026-11-29 21:06:00", 1795960800),
        ],
    )
    .await;
    let before = subject_lines(&mailbox);
    assert!(
        before.iter().any(|s| s.contains("最终计票：")),
        "{before:?}"
    );
    assert!(before.iter().any(|s| s.contains("潜水")), "{before:?}");

    let text = std::fs::read_to_string(&game).unwrap();
    let renamed = text.replace(
        "name = \"版杀一室 第十二局\"",
        "name = \"版杀一室 第十二局（改名）\"",
    );
    assert_ne!(renamed, text);
    std::fs::write(&game, &renamed).unwrap();
    cycles(
        &config,
        &forum,
        &[
            ("2026-11-29 21:08:00", 1795960800),
            ("2026-11-29 21:20:00", 1795960800),
            ("2026-11-29 21:40:00", 1795960800),
        ],
    )
    .await;
    let after = subject_lines(&mailbox);
    assert_eq!(after[..before.len()], before[..]);
    let new = &after[before.len()..];
    let again: Vec<&String> = new
        .iter()
        .filter(|s| before.contains(&s.replace("（改名）", "")))
        .collect();
    assert!(again.is_empty(), "sent again after the rename: {new:#?}");
    assert!(
        !new.iter()
            .any(|s| s.contains("最终计票") || s.contains("潜水")),
        "{new:#?}"
    );
    let told = mails_about(&mailbox, "游戏改名");
    assert_eq!(told.len(), 1, "told once: {new:#?}");
    assert!(told[0].0.contains("版杀一室 第十二局（改名）"), "{told:?}");
    assert!(
        told[0].1.contains("id = \"版杀一室 第十二局\""),
        "{}",
        told[0].1
    );

    // Renamed again with one player replaced: the same vote thread, another roster. Asked,
    // not guessed.
    let text = renamed
        .replace("（改名）", "（再改）")
        .replace("\"yucca\"", "\"新玩家\"");
    std::fs::write(&game, text).unwrap();
    let sent = mailbox.mails.lock().unwrap().len();
    let (code, out, err) = tokio::task::block_in_place(|| {
        cli(&config, &["run", "--once", "--now", "2026-11-29 22:00:00"])
    });
    assert_ne!(code, Some(0), "{out}");
    assert!(err.contains("投票帖 tid 3"), "{err}");
    assert!(err.contains("id = \"版杀一室 第十二局\""), "{err}");
    assert_eq!(mailbox.mails.lock().unwrap().len(), sent);
}

/// Issue 29 item 16: two configs, two daemons. Config B's `[status] listen` names the port
/// daemon A holds (a copy-paste): `bansha status` and `bansha tally --live` for B say, in
/// Chinese, that the daemon answering is not B's, and print nothing of A's games. Each config
/// asking its own daemon gets its own answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_asks_only_its_own_configs_daemon() {
    let (_mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795953600; // 20:00
    let a = tempfile::tempdir().unwrap();
    let config_a = setup(a.path(), &server.uri(), smtp_port);
    let port_a = pin_status_port(&config_a);
    let b = tempfile::tempdir().unwrap();
    let config_b = setup(b.path(), &server.uri(), smtp_port);
    let game_b = b.path().join("games/banshayishi-12.toml");
    let text = std::fs::read_to_string(&game_b)
        .unwrap()
        .replace("版杀一室 第十二局", "教会 测试局");
    std::fs::write(&game_b, text).unwrap();
    let port_b = pin_status_port(&config_b);

    let (_daemon_a, status_a) = start_service(&config_a, Some("2026-11-29 20:00:00")).await;
    assert!(status_a.contains("版杀一室 第十二局"), "{status_a}");
    let (_daemon_b, status_b) = start_service(&config_b, Some("2026-11-29 20:00:00")).await;
    assert!(status_b.contains("教会 测试局"), "{status_b}");
    assert!(!status_b.contains("版杀一室"), "{status_b}");

    // B's config now points at A's port.
    let text = std::fs::read_to_string(&config_b).unwrap().replace(
        &format!("127.0.0.1:{port_b}"),
        &format!("127.0.0.1:{port_a}"),
    );
    std::fs::write(&config_b, text).unwrap();
    for args in [
        &["status"][..],
        &["tally", "--live", "--day", "2"][..],
        &["ledger"][..],
    ] {
        let (code, out, err) = tokio::task::block_in_place(|| cli(&config_b, args));
        assert_eq!(code, Some(1), "{args:?}: {out}{err}");
        assert!(!out.contains("版杀一室"), "{args:?}: {out}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(
            err.contains(&format!("127.0.0.1:{port_a}")) && err.contains("不是这个配置的守护进程"),
            "{args:?}: {err}"
        );
        assert!(err.contains("版杀一室 第十二局"), "what it watches: {err}");
    }
    // A's own config, asking A: answered.
    let (code, out, err) = tokio::task::block_in_place(|| cli(&config_a, &["status"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("版杀一室 第十二局"), "{out}");
    let (code, live, err) =
        tokio::task::block_in_place(|| cli(&config_a, &["tally", "--live", "--day", "2"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(live.contains("李逵"), "{live}");
}
