//! Confirming a day from what the daemon holds (issue 30): no page files, the rule post's
//! questions asked first, the elimination stamped at the close of the round it comes from —
//! refused while a run-off is still to close, and right when clicked a day late.

use crate::live_game::{add_votes, jiaohui_ballot, round_one_tie, runoff_day, unix};
use crate::support::*;

fn confirm(
    game: &std::path::Path,
    daemon: &std::path::Path,
    more: &[&str],
) -> (Option<i32>, String, String) {
    let mut args = vec![
        "confirm",
        "--day",
        "2",
        "--daemon",
        daemon.to_str().unwrap(),
    ];
    args.extend_from_slice(more);
    cli(game, &args)
}

/// 小飞 an 异教徒 and 大灰狼 the 黑暗领主, who may 特赦 (001 L85).
fn with_dark_lord(game: &std::path::Path) {
    let mut text = std::fs::read_to_string(game).unwrap();
    text += "\n[roster.roles]\n\"小飞\" = { role = \"异教徒\", faction = \"异教徒\" }\n\
             \"大灰狼\" = { role = \"黑暗领主\", faction = \"异教徒\" }\n";
    std::fs::write(game, text).unwrap();
}

/// jiaohui's day 2 with the 黑暗领主, round 1 tied and closed at 22:00 (round 2 runs to
/// 23:00): the game config and the dashboard's port.
async fn round_one_tied(
    dir: &std::path::Path,
    forum: &Arc<Mutex<Forum>>,
    config: &std::path::Path,
) -> (std::path::PathBuf, u16) {
    let game = runoff_day(dir);
    with_dark_lord(&game);
    let port = pin_status_port(config);
    round_one_tie(forum);
    forum.lock().unwrap().at = unix("2026-11-29 22:00:05");
    let r = cycle_at(config, "2026-11-29 22:00:05").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    (game, port)
}

/// Round 2 of day 2: three votes for 小飞, one for 李逵; closed at 23:00.
async fn close_round_two(forum: &Arc<Mutex<Forum>>, config: &std::path::Path) {
    let b = |v: &str, t: &str| jiaohui_ballot(v, "二", "二", t);
    add_votes(
        forum,
        &[
            (3213, "李逵", "2026-11-29 22:05:00", &b("李逵", "小飞")),
            (3214, "大灰狼", "2026-11-29 22:06:00", &b("大灰狼", "小飞")),
            (3215, "冷雪", "2026-11-29 22:07:00", &b("冷雪", "李逵")),
            (3217, "花千树", "2026-11-29 22:09:00", &b("花千树", "小飞")),
        ],
    );
    forum.lock().unwrap().at = unix("2026-11-29 23:00:05");
    let r = cycle_at(config, "2026-11-29 23:00:05").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
}

pub(crate) fn eliminations(game: &std::path::Path) -> Vec<(String, String)> {
    let path = game.with_file_name("banshayishi-12.state.json");
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let state: serde_json::Value = serde_json::from_str(&text).unwrap();
    state["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["change"]["type"] == "eliminate" && e["undone"] != true)
        .map(|e| {
            (
                e["change"]["player"].as_str().unwrap().to_string(),
                e["at"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// jiaohui day 2 (001 L172–173): round 1 ties, round 2 runs to 23:00. Confirmed during round 2,
/// nothing is recorded (小飞 would be out of his own run-off); confirmed the next evening, the
/// dashboard first asks the 黑暗领主 about 特赦 (001 L85, L114), and 小飞 is out as of round 2's
/// close, not the click.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_day_is_confirmed_from_the_record_at_its_last_close() {
    let (_mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let (game, port) = round_one_tied(dir.path(), &forum, &config).await;

    // During round 2: round 1's tie is no result to confirm.
    {
        let (mut child, _) = start_service(&config, Some("2026-11-29 22:10:00")).await;
        let (code, out, err) = tokio::task::block_in_place(|| confirm(&game, &config, &[]));
        assert_eq!(code, Some(1), "{out}{err}");
        assert!(err.contains("第二轮截止后再确认"), "{err}");
        assert!(eliminations(&game).is_empty());
        let page = tokio::task::block_in_place(|| http_get(port, "/"));
        assert!(!page.contains("确认第 2 天结果"), "nothing to confirm yet");
        assert!(
            page.contains("<td>第2天</td><td>tid 3</td><td>11-29 22:00</td><td>第二轮进行中</td>"),
            "the schedule shows the run-off: {page}"
        );
        child.kill().unwrap();
        child.wait().unwrap();
    }

    close_round_two(&forum, &config).await;

    // The next evening, a day late.
    forum.lock().unwrap().at = unix("2026-11-30 23:30:00");
    let (mut child, _) = start_service(&config, Some("2026-11-30 23:30:00")).await;
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    assert!(page.contains("等法官处理"), "{page}");
    assert!(page.contains("黑暗领主 是否对 小飞 使用“特赦”"), "{page}");
    assert!(page.contains("都没有用，确认第 2 天结果"), "{page}");
    assert!(page.contains("<td>已结束</td>"), "{page}");
    assert!(page.contains("<b>待确认</b>"), "{page}");
    // Not asked yet: nothing recorded.
    let (code, _, err) = tokio::task::block_in_place(|| confirm(&game, &config, &[]));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("先征求意见"), "{err}");
    assert!(eliminations(&game).is_empty());
    let (code, out, err) =
        tokio::task::block_in_place(|| confirm(&game, &config, &["--no-pardon"]));
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("第2天第二轮结果"), "{out}");
    assert!(out.contains("小飞 投票出局，已记录"), "{out}");
    assert_eq!(
        eliminations(&game),
        [("小飞".to_string(), "2026-11-29T23:00:00+08:00".to_string())],
        "stamped at round 2's close, not at the click"
    );
    // Once only.
    let (code, _, err) = tokio::task::block_in_place(|| confirm(&game, &config, &["--no-pardon"]));
    assert_eq!(code, Some(1));
    assert!(err.contains("已经确认过"), "{err}");
    assert_eq!(eliminations(&game).len(), 1);
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    assert!(!page.contains("确认第 2 天结果"), "confirmed: {page}");
    assert!(page.contains("<td>已确认</td>"), "{page}");
    child.kill().unwrap();
    child.wait().unwrap();
}

/// A day confirmed with a pardon (jiaohui's 特赦, 001 L85, L114: 小飞 is saved and stays in)
/// records no vote-out, yet it is confirmed: not offered again (a second confirmation would
/// find the pardon spent and put him out), and it holds up no later day nor its night.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_day_confirmed_with_a_pardon_is_confirmed() {
    let (_mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let (game, port) = round_one_tied(dir.path(), &forum, &config).await;
    close_round_two(&forum, &config).await;

    forum.lock().unwrap().at = unix("2026-11-29 23:30:00");
    let (mut child, _) = start_service(&config, Some("2026-11-29 23:30:00")).await;
    let (code, out, err) =
        tokio::task::block_in_place(|| confirm(&game, &config, &["--pardon", "特赦"]));
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("小飞 被救回，不出局"), "{out}");
    assert!(eliminations(&game).is_empty());
    // Confirmed: not offered again, and a second confirmation records nothing.
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    assert!(!page.contains("确认第 2 天结果"), "confirmed: {page}");
    let (code, _, err) = tokio::task::block_in_place(|| confirm(&game, &config, &["--no-pardon"]));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("已经确认过"), "{err}");
    assert!(eliminations(&game).is_empty(), "{:?}", eliminations(&game));
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Days are confirmed in order (simd seed 3799): a day's result not yet recorded can change who
/// could vote on a later day (its final is then made again without that player's ballots), so
/// a later day is refused until the earlier one is recorded, and then until its final is made
/// again. Confirmed the other way round, or before the corrected final, the later day's
/// confirmation had recorded an elimination its corrected final took back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_later_day_waits_for_an_earlier_days_result() {
    use bansha::daemon::confirm::{Final, Refusal};
    use bansha::domain::rules::{Outcome, OutcomeKind};
    let dir = tempfile::tempdir().unwrap();
    let daemon_toml = two_days(dir.path());
    let at = |s: &str| chrono::DateTime::parse_from_rfc3339(s).unwrap();
    let out = |p: &str, note: &str| Outcome {
        kind: OutcomeKind::Eliminated,
        players: vec![p.to_string()],
        note: note.to_string(),
        decided: Vec::new(),
        places: None,
    };
    {
        let store = bansha::io::store::Store::open(&dir.path().join("state")).unwrap();
        for (day, who, close) in [
            (1, "甲", "2026-11-29T21:00:00+08:00"),
            (2, "乙", "2026-11-30T21:00:00+08:00"),
        ] {
            let fin = Final {
                outcome: out(who, &format!("{who} 以 3 票最高，出局")),
                close: at(close),
            };
            store
                .set_meta(&format!("final/shunxu/{day}/1"), &fin)
                .unwrap();
            // Who could vote as each final counted: everyone.
            store
                .set_meta(
                    &format!("played_for/shunxu/{day}"),
                    &serde_json::json!({"dead": [], "half": []}),
                )
                .unwrap();
        }
        store.flush_blocking().unwrap();
    }
    let settings = bansha::io::files::load_settings(&daemon_toml).unwrap();
    let daemon = bansha::daemon::Daemon::open_with(settings, Default::default()).unwrap();
    match daemon.confirm_day(None, 2, &[], false).await {
        Err(Refusal::NotNow(m)) => assert!(
            m.contains("第1天的结果（甲 以 3 票最高，出局）还没有确认"),
            "{m}"
        ),
        other => panic!("day 2 before day 1: {other:?}"),
    }
    let lines = daemon.confirm_day(None, 1, &[], false).await.unwrap();
    assert!(
        lines.iter().any(|l| l.contains("甲 投票出局，已记录")),
        "{lines:?}"
    );
    // 甲 is out from day 1's close: day 2's final counted him, and is made again first.
    match daemon.confirm_day(None, 2, &[], false).await {
        Err(Refusal::NotNow(m)) => assert!(
            m.contains("第2天：这一天的存活名单在最终计票之后有变（出局：甲），要重新计票"),
            "{m}"
        ),
        other => panic!("day 2's final is stale: {other:?}"),
    }
    // The cycle's corrected final, as it leaves the record.
    daemon
        .store
        .set_meta(
            "played_for/shunxu/2",
            &serde_json::json!({"dead": ["甲"], "half": []}),
        )
        .unwrap();
    let lines = daemon.confirm_day(None, 2, &[], false).await.unwrap();
    assert!(
        lines.iter().any(|l| l.contains("乙 投票出局，已记录")),
        "{lines:?}"
    );
}

/// A day whose final puts nobody out is confirmed no more readily than one that does: while day
/// 1's round 2 still runs (its result can put out someone who voted on day 2, and change day
/// 2's count), "confirm day 2" is refused, not answered "局面不变"; once day 1 has its result and
/// is recorded, it is. (simd seed
/// 194826245353: day 4, nobody out, confirmed while day 3's run-off ran; day 3's result and
/// night 3 then made day 4's corrected final put a player out, which the judge, told the game
/// was unchanged, never recorded.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_day_with_nobody_out_waits_for_an_earlier_run_off() {
    use bansha::daemon::confirm::{Final, Refusal};
    use bansha::domain::rules::{Outcome, OutcomeKind};
    let dir = tempfile::tempdir().unwrap();
    let daemon_toml = two_days(dir.path());
    let at = |s: &str| chrono::DateTime::parse_from_rfc3339(s).unwrap();
    let outcome = |kind, players: &[&str], note: &str| Outcome {
        kind,
        players: players.iter().map(|p| p.to_string()).collect(),
        note: note.to_string(),
        decided: Vec::new(),
        places: None,
    };
    let fin = |o, close: &str| Final {
        outcome: o,
        close: at(close),
    };
    let settings = bansha::io::files::load_settings(&daemon_toml).unwrap();
    let daemon = bansha::daemon::Daemon::open_with(settings, Default::default()).unwrap();
    let set = |key: &str, v: serde_json::Value| daemon.store.set_meta(key, &v).unwrap();
    // Day 1 went to a round 2 (甲 and 乙 tied), closing after day 2's close; day 2 put nobody
    // out.
    let tied = fin(
        outcome(
            OutcomeKind::Runoff,
            &["甲", "乙"],
            "甲、乙 平票，进行第二轮",
        ),
        "2026-11-29T21:00:00+08:00",
    );
    set("final/shunxu/1/1", serde_json::to_value(&tied).unwrap());
    let none = fin(
        outcome(OutcomeKind::None, &[], "最高票 1 票，未达到门槛，无人出局"),
        "2026-11-30T21:00:00+08:00",
    );
    set("final/shunxu/2/1", serde_json::to_value(&none).unwrap());
    set(
        "played_for/shunxu/2",
        serde_json::json!({"dead": [], "half": []}),
    );
    match daemon.confirm_day(None, 2, &[], false).await {
        Err(Refusal::NotNow(m)) => assert!(m.contains("第1天的第二轮还没有结束"), "{m}"),
        other => panic!("day 2 while day 1's round 2 runs: {other:?}"),
    }
    // Round 2 closes: 甲 out, recorded; day 2's final made again without 甲.
    let out = fin(
        outcome(OutcomeKind::Eliminated, &["甲"], "甲 以 2 票最高，出局"),
        "2026-12-01T21:00:00+08:00",
    );
    set("final/shunxu/1/2", serde_json::to_value(&out).unwrap());
    set(
        "played_for/shunxu~r2/1",
        serde_json::json!({"dead": [], "half": []}),
    );
    let lines = daemon.confirm_day(None, 1, &[], false).await.unwrap();
    assert!(
        lines.iter().any(|l| l.contains("甲 投票出局，已记录")),
        "{lines:?}"
    );
    // (甲 is out from round 2's close, after day 2's: day 2's final stands as counted.)
    let lines = daemon.confirm_day(None, 2, &[], false).await.unwrap();
    assert!(lines.iter().any(|l| l.contains("局面不变")), "{lines:?}");
}

/// A chuhan game of two days (顺序局, id shunxu) and a daemon config for it under `dir`; the
/// daemon config's path.
fn two_days(dir: &std::path::Path) -> std::path::PathBuf {
    std::fs::create_dir_all(dir.join("games")).unwrap();
    std::fs::write(
        dir.join("games/g.toml"),
        "ruleset = \"chuhan\"\nname = \"顺序局\"\nid = \"shunxu\"\n[roster]\nplayers = [\"甲\", \"乙\", \"丙\", \"丁\", \"戊\"]\n\
         [[days]]\nday = 1\nvote_thread = 11\ncloses_at = \"2026-11-29 21:00:00\"\n\
         [[days]]\nday = 2\nvote_thread = 12\ncloses_at = \"2026-11-30 21:00:00\"\n",
    )
    .unwrap();
    std::fs::write(dir.join("forum-password"), "x\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        dir.join("forum-password"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let daemon_toml = dir.join("daemon.toml");
    std::fs::write(
        &daemon_toml,
        "state_dir = \"state\"\n[forum]\nbase_url = \"http://127.0.0.1:9/\"\n[forum.login]\nusername = \"法官\"\npassword_file = \"forum-password\"\n\
         [smtp]\nhost = \"127.0.0.1\"\nport = 25\nsecurity = \"plain\"\nfrom = \"b@judge.test\"\n[judge]\nto = [\"j@judge.test\"]\n\
         [status]\nlisten = \"127.0.0.1:0\"\n[[games]]\nconfig = \"games/g.toml\"\n",
    )
    .unwrap();
    daemon_toml
}
