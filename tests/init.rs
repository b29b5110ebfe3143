//! `bansha init`: a game config from a preset, by answering questions.

use std::io::Write;
use std::process::{Command, Stdio};

fn init(dir: &std::path::Path, out: &str, answers: &str) -> (Option<i32>, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bansha"))
        .current_dir(dir)
        .args(["init", "--out", out])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(answers.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn check(dir: &std::path::Path, file: &str) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_bansha"))
        .current_dir(dir)
        .args(["check-config", file])
        .output()
        .unwrap();
    (
        o.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
    )
}

#[test]
fn init_asks_again_on_wrong_answers_and_writes_configs_that_load() {
    let dir = tempfile::tempdir().unwrap();
    // The captured game's roster, as a judge would keep it: one per line, some on one line.
    std::fs::write(
        dir.path().join("players.txt"),
        "# 版杀一室 第十二局\n大灰狼\n小飞、李逵\n花千树, 不见\n冷雪\n蝈蝈\n小熊维尼\n超人\n音乐虫子\nyucca\n龙舌\n青鸾花\n雪罂子\n",
    )
    .unwrap();
    let answers = [
        "m104",        // no such ruleset: asked again
        "m103",        //
        "投票给 李逵", // no {target}: asked again
        "投票：{target} / 理由：{reason}",
        "",                  // changes in the same wording
        "版杀一室 第十三局", //
        "bbs.example.com",   // no scheme: asked again
        "https://bbs.example.com/forum.php?mod=index",
        "judge@example.com",
        "nosuch.txt", // missing file: asked again
        "players.txt",
        "李逵",         // a player cannot be the judge: asked again
        "版杀一室法官", //
        "2",
        "https://bbs.example.com/forum.php?mod=viewthread&tid=31&page=2",
        "thread-32-1-1.html, 33",
        "34",       // the chat thread
        "明天晚上", // not a time: asked again
        "2026-12-01 21:00",
        "2026-12-02 09:00", // after the close: asked again
        "2026-11-30 21:00",
        "龙舌、青鸾花",
        "龙舌", // the sheriff cannot be out: asked again
        "冷雪",
    ]
    .join("\n")
        + "\n";
    let (code, out, err) = init(dir.path(), "games/g13.toml", &answers);
    assert_eq!(code, Some(0), "{out}{err}");
    // What the preset will do is shown before the first ballot (issue 21), and the generated
    // configs speak Chinese.
    assert!(
        err.contains("规则 m103 会这样读票：")
            && err.contains("投票格式（投票对象）：投票对象：{target} / 投票理由：{reason}"),
        "the preset's wording, shown before the judge may change it: {err}"
    );
    assert!(
        out.contains("投票格式（本局格式）：投票：{target} / 理由：{reason}"),
        "{out}"
    );
    assert!(out.contains("截止前 60 分钟锁定，不得改票"), "{out}");
    assert!(out.contains("每人最多改票 1 次"), "{out}");
    for why in [
        "没有叫 \"m104\" 的规则",
        "格式“本局”的投票模板：缺少 {target}",
        "应早于截止时间 2026-12-01 21:00:00",
        "龙舌 已经出局",
        "警长（一票计 1.5 票",
        "1. chuhan  楚汉：",
        "应以 http:// 或 https:// 开头，请重新输入",
        "无法读取 nosuch.txt",
        "李逵 在玩家名单里",
        "✓ 14 名玩家（取自文件 players.txt）：大灰狼、小飞、李逵、花千树、不见、冷雪",
    ] {
        assert!(err.contains(why), "{why}\n{err}");
    }
    assert!(err.contains("截止时间"), "{err}");
    let game = std::fs::read_to_string(dir.path().join("games/g13.toml")).unwrap();
    let daemon = std::fs::read_to_string(dir.path().join("games/daemon.toml")).unwrap();
    for text in [&game, &daemon] {
        // Comments in words (a commented-out key or table header is TOML, not words).
        let comments: Vec<&str> = text
            .lines()
            .filter(|l| l.trim_start().starts_with("# ") && !l.contains('=') && !l.contains("# ["))
            .filter(|l| !l.trim_start().starts_with("#   bansha"))
            .collect();
        assert!(!comments.is_empty());
        for c in comments {
            assert!(
                c.chars().any(|ch| ch > '\u{2e80}'),
                "an English comment: {c}"
            );
        }
    }
    // What a real day needs (issue 21): when it opens, its chat thread, m103's sheriff.
    for line in [
        "ruleset = \"m103\"",
        "name = \"版杀一室 第十三局\"",
        "id = \"版杀一室 第十三局\"",
        "judges = [\"版杀一室法官\"]",
        "vote_thread = 31",
        "discussion_threads = [32, 33]",
        "closes_at = \"2026-12-01 21:00:00\"",
        "dead = [\"龙舌\", \"青鸾花\"]",
        "chat_threads = [34]",
        "opens_at = \"2026-11-30 21:00:00\"",
        "sheriff = \"冷雪\"",
        "vote = \"\"\"\n投票：{target}\n理由：{reason}\"\"\"",
    ] {
        assert!(game.contains(line), "{line}\n{game}");
    }
    let (code, text) = check(dir.path(), "games/g13.toml");
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("玩家 14 人"), "{text}");
    // The judge's wording is the one the tally reads, the preset's no longer.
    let tried = |ballot: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_bansha"))
            .current_dir(dir.path())
            .args(["check-config", "--try", ballot, "games/g13.toml"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let out = tried("投票：李逵\n理由：他很可疑");
    assert!(out.contains("结果：有效的投票，投给 李逵"), "{out}");
    let out = tried("投票对象：李逵\n投票理由：他很可疑");
    assert!(!out.contains("有效的投票"), "{out}");
    let (code, text) = check(dir.path(), "games/daemon.toml");
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("论坛 https://bbs.example.com/") && text.contains("judge@example.com"),
        "{text}"
    );

    // Run by the shipped unit (ProtectSystem=strict: /etc is read-only), the record goes to
    // the directory systemd made for it, which it may write.
    let unit = Command::new(env!("CARGO_BIN_EXE_bansha"))
        .current_dir(dir.path())
        .args(["check-config", "games/daemon.toml"])
        .env("STATE_DIRECTORY", "/var/lib/bansha")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&unit.stdout);
    assert!(text.contains("记录目录 /var/lib/bansha/state，"), "{text}");
    let (_, text) = check(dir.path(), "games/daemon.toml");
    assert!(text.contains("记录目录 games/state，"), "{text}");

    // Not overwritten; a second game beside an existing daemon.toml is not asked for the forum.
    let (code, _, err) = init(dir.path(), "games/g13.toml", &answers);
    assert_eq!(code, Some(1));
    assert!(err.contains("已存在，不会覆盖"), "{err}");
    // The rules by their Chinese name (issue 21: "楚汉" was refused).
    let second = "棋盘\n\n棋盘杀\nplayers.txt\n法官\n\n40\n\n\n2026-12-02 21:00\n\n";
    let (code, out, err) = init(dir.path(), "games/qipan.toml", second);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(!err.contains("论坛地址"), "{err}");
    assert!(!out.contains("守护进程配置"), "{out}");
    let (code, text) = check(dir.path(), "games/qipan.toml");
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("（规则 qipan）"), "{text}");
    let third = "楚汉\n\n楚汉局\nplayers.txt\n法官\n\n41\n\n\n2026-12-03 21:00\n\n";
    let (code, out, err) = init(dir.path(), "games/chuhan.toml", third);
    assert_eq!(code, Some(0), "{out}{err}");
    let (_, text) = check(dir.path(), "games/chuhan.toml");
    assert!(text.contains("（规则 chuhan）"), "{text}");

    // Answers that run out: a clear error, nothing written.
    let (code, _, err) = init(dir.path(), "games/short.toml", "m103\n\n短局\n");
    assert_eq!(code, Some(1));
    assert!(err.contains("输入已结束，还没有回答：玩家名单"), "{err}");
    assert!(!dir.path().join("games/short.toml").exists());
}

/// Issue 32: the roster pasted inline (names separated by 、，, or spaces) is taken as well as
/// a file, and init says which it took; a name list that repeats a name is asked again.
#[test]
fn init_takes_the_roster_pasted_inline_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let answers = [
        "楚汉",
        "",
        "楚汉局",
        "https://bbs.example.com/forum.php",
        "judge@example.com",
        "大灰狼、小飞 李逵，李逵", // 李逵 twice: asked again
        "大灰狼、小飞 李逵，花千树,不见",
        "法官",
        "",
        "41",
        "",
        "",
        "2026-12-03 21:00",
        "",
        "",
    ]
    .join("\n")
        + "\n";
    let (code, out, err) = init(dir.path(), "games/inline.toml", &answers);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(err.contains("粘贴的名单：名单里 李逵 出现了两次"), "{err}");
    assert!(
        err.contains("✓ 5 名玩家（取自粘贴的名单）：大灰狼、小飞、李逵、花千树、不见"),
        "{err}"
    );
    let game = std::fs::read_to_string(dir.path().join("games/inline.toml")).unwrap();
    assert!(
        game.contains(r#"["大灰狼", "小飞", "李逵", "花千树", "不见"]"#),
        "{game}"
    );
    let (code, text) = check(dir.path(), "games/inline.toml");
    assert_eq!(code, Some(0), "{text}");
}
