//! A game day end to end: polling, the lock, the close, the after-close look; the service
//! (status, live tally, SIGTERM); a GBK forum; required posts; players' own threads; progress.

use crate::support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_day_of_polling_mails_the_judge_each_thing_once() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let run = |now: &'static str| cycle_at(&config, now);

    // 12:00 — the first poll reads the whole thread so far.
    forum.lock().unwrap().at = 1795924800; // 2026-11-29 12:00:00 +08:00
    let r = run("2026-11-29 12:00:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    // Vote thread: pids 19 to 83; discussion thread: the 46 rows up to pid 84.
    assert_eq!(r["new_posts"], 19 + 46, "{r}");
    assert_eq!(
        forum.lock().unwrap().requests,
        2,
        "vote thread pages 1 and 2 (19 posts)"
    );
    let first: Vec<String> = subjects(&mailbox).into_iter().map(|(_, s)| s).collect();
    assert!(first.iter().any(|s| s.contains("领先者变化")), "{first:?}");
    // The first read finds three void ballots at once: one digest, each with its floor link
    // (issue 21), not a mail each.
    assert_eq!(first.len(), 2, "{first:?}");
    let digest = mailbox
        .mails
        .lock()
        .unwrap()
        .iter()
        .find(|m| summary(m).1.contains("无效票 3 张（汇总，"))
        .map(|m| body(m))
        .expect("one digest");
    for floor in ["7# 小熊维尼", "11# 雪罂子"] {
        assert!(digest.contains(floor), "{floor}: {digest}");
    }
    assert!(
        digest.contains("forum.php?mod=redirect&goto=findpost&ptid=3&pid="),
        "{digest}"
    );

    // 17:56 — new posts; the forum answers 502 once and times out once: retried.
    {
        let mut f = forum.lock().unwrap();
        f.at = 1795946160; // 17:56:00
        f.faults = vec![
            Fault::Status(502),
            Fault::Delay(std::time::Duration::from_secs(4)),
        ];
    }
    let before = forum.lock().unwrap().requests;
    let r = run("2026-11-29 17:56:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    assert_eq!(
        r["new_posts"],
        5 + 7,
        "vote pids 85, 88, 92, 95, 98 and discussion pids 87 to 96: {r}"
    );
    assert!(
        forum.lock().unwrap().requests - before <= 4,
        "probe from the last page, plus two retries: {r}"
    );

    // 19:50 — the login expired: the forum says no permission; bansha logs in and goes on.
    // The SMTP server is down (451): mails wait in the store.
    {
        let mut f = forum.lock().unwrap();
        f.at = 1795953000; // 19:50:00
        f.faults = vec![Fault::NoPermission];
    }
    mailbox.refuse.store(true, Ordering::SeqCst);
    let before = mailbox.mails.lock().unwrap().len();
    let r = run("2026-11-29 19:50:00").await;
    assert!(
        forum.lock().unwrap().logged_in,
        "logged in through the captured login form"
    );
    assert!(r["mails_waiting"].as_u64().unwrap() > 0, "{r}");
    assert_eq!(mailbox.mails.lock().unwrap().len(), before);

    // 20:01 — the lock window started; the SMTP server is back; pid 47 was deleted.
    mailbox.refuse.store(false, Ordering::SeqCst);
    {
        let mut f = forum.lock().unwrap();
        f.at = 1795953660; // 20:01:00
        f.deleted.insert(47);
    }
    let r = run("2026-11-29 20:01:00").await;
    assert_eq!(r["mails_waiting"], 0, "{r}");

    // 21:06 — after the close and after pid 98's edit at 21:05:30.
    forum.lock().unwrap().at = 1795957560; // 21:06:00
    let r = run("2026-11-29 21:06:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    assert_eq!(r["edited_posts"], 1, "pid 98: {r}");

    // 21:30 — the one look after the close (due ten minutes after it): the whole vote thread
    // once more; nothing new, so nothing is sent again but m103's reminder that the night's
    // 30 minutes are up (002 L236–237). 22:00 — the closed day is no longer polled.
    let sent_before = mailbox.mails.lock().unwrap().len();
    let requests_before = forum.lock().unwrap().requests;
    let r = run("2026-11-29 21:30:00").await;
    assert_eq!(r["mails_queued"], 1, "{r}");
    assert_eq!(r["edited_posts"], 0, "{r}");
    assert_eq!(mailbox.mails.lock().unwrap().len(), sent_before + 1);
    assert!(subject_lines(&mailbox)
        .last()
        .is_some_and(|s| s.contains("提醒：关门已满 30 分钟")));
    assert_eq!(
        forum.lock().unwrap().requests,
        requests_before + 4,
        "4 pages"
    );
    let r = run("2026-11-29 22:00:00").await;
    assert_eq!(r["requests"], 0, "{r}");
    assert_eq!(mailbox.mails.lock().unwrap().len(), sent_before + 1);
    assert_eq!(forum.lock().unwrap().requests, requests_before + 4);

    // The judge's mailbox: every mail once.
    let all = subjects(&mailbox);
    let ids: BTreeSet<&String> = all.iter().map(|(id, _)| id).collect();
    assert_eq!(ids.len(), all.len(), "a Message-ID twice: {all:?}");
    let subjects: Vec<&String> = all.iter().map(|(_, s)| s).collect();
    let count = |needle: &str| subjects.iter().filter(|s| s.contains(needle)).count();
    assert_eq!(count("最终计票"), 1, "{subjects:#?}");
    assert_eq!(count("进入截止前锁定时段"), 1, "{subjects:#?}");
    assert_eq!(count("投票被编辑：24# 音乐虫子"), 1, "{subjects:#?}");
    assert_eq!(count("投票帖消失：7# 小熊维尼"), 1, "{subjects:#?}");
    let voids: Vec<&&String> = subjects.iter().filter(|s| s.contains("无效票")).collect();
    let unique: BTreeSet<&&&String> = voids.iter().collect();
    assert_eq!(voids.len(), unique.len(), "{voids:#?}");
    // Each void ballot is told once, on its own or in a digest.
    let void_mails: Vec<(String, String)> = mails_about(&mailbox, "无效票");
    for late in ["34# 小熊维尼", "29# 小飞", "33# 不见"] {
        let told = void_mails
            .iter()
            .filter(|(s, b)| s.contains(late) || b.contains(&format!("{late}（")))
            .count();
        assert_eq!(told, 1, "{late}: {subjects:#?}");
    }

    // The final tally: as the thread stood at 21:00 — pid 98 with its pre-edit text.
    let mails = mailbox.mails.lock().unwrap().clone();
    let final_mail = mails
        .iter()
        .find(|m| summary(m).1.contains("最终计票"))
        .unwrap();
    let final_subject = summary(final_mail).1;
    assert!(
        final_subject.contains("李逵 以 4 票最高，出局"),
        "{final_subject}"
    );
    let final_body = body(final_mail);
    assert!(
        final_body.contains("李逵 4 票：yucca（9#）、大灰狼（10#）、雪罂子（27#）、花千树（32#）"),
        "{final_body}"
    );
    assert!(
        final_body.contains("24# 音乐虫子（改票：冷雪）：改票未引用自己的原投票帖"),
        "the pre-edit ballot: {final_body}"
    );
    // The subject sorts by game and day; the HTML alternative has the tally as a table with
    // links to the floors, the invalid ballots with reasons, the timeline as an inline PNG, and
    // the BBCode both as a block and as an attachment equal to the text part's.
    assert!(
        final_subject.starts_with("[版杀一室 第十二局] 第2天 投票统计（截止 21:00）最终计票："),
        "{final_subject}"
    );
    let page = html(final_mail);
    assert!(
        page.contains("<td style=\"border:1px solid #ccc;padding:4px 10px;vertical-align:top\"><b>李逵</b></td>"),
        "{page}"
    );
    assert!(
        page.contains("yucca（<a href=\"http://127.0.0.1:"),
        "a voter links to the floor: {page}"
    );
    assert!(
        page.contains("forum.php?mod=redirect&amp;goto=findpost&amp;ptid=3&amp;pid="),
        "{page}"
    );
    assert!(page.contains("改票未引用自己的原投票帖"), "{page}");
    // The BBCode's 不计的帖子, in the HTML too (issue 21), each linked.
    let ignored_bb = final_body.matches("[b]不计的帖子[/b]").count();
    assert_eq!(ignored_bb, 1, "{final_body}");
    assert!(
        page.contains("<h3 style=\"margin:10px 0 4px 0\">不计的帖子（"),
        "{page}"
    );
    assert!(page.contains("<ul class=\"ignored\""), "{page}");
    assert!(page.contains("<img src=\"cid:timeline\""), "{page}");
    let attached = files(final_mail);
    let names: Vec<&str> = attached.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(names, ["timeline", "第2天投票统计.txt"], "{names:?}");
    let png = &attached[0];
    assert_eq!(png.1, "image/png");
    assert!(
        png.2.starts_with(b"\x89PNG\r\n\x1a\n") && png.2.len() > 4_000,
        "{} bytes: {:?}",
        png.2.len(),
        &png.2[..png.2.len().min(16)]
    );
    let code = String::from_utf8(attached[1].2.clone()).unwrap();
    assert!(code.starts_with("[b]【版杀一室 第十二局】第2天"), "{code}");
    assert!(
        final_body.contains(&code),
        "the attachment is the text's BBCode"
    );
    // A sample for people to look at (not committed): the mail as received, its HTML with the
    // picture beside it.
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("judge-view");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("final-mail.eml"), final_mail).unwrap();
    std::fs::write(
        out.join("final-mail.html"),
        page.replace("cid:timeline", "final-mail-timeline.png"),
    )
    .unwrap();
    std::fs::write(out.join("final-mail-timeline.png"), &png.2).unwrap();

    // The day's 潜水 mail (m103: under 5 discussion posts is a yellow card; pid 91 is blocked).
    let lurk_mail = mails
        .iter()
        .find(|m| summary(m).1.contains("发言统计"))
        .unwrap();
    assert_eq!(count("发言统计"), 1);
    assert!(
        summary(lurk_mail)
            .1
            .contains("潜水 李逵、不见、小熊维尼、yucca、雪罂子"),
        "{}",
        summary(lurk_mail).1
    );
    assert!(
        body(lurk_mail).contains("yucca 3 帖（不计：50#：被屏蔽，内容不可见）"),
        "{}",
        body(lurk_mail)
    );
    let edit_mail = mails
        .iter()
        .find(|m| summary(m).1.contains("投票被编辑"))
        .unwrap();
    let edit_body = body(edit_mail);
    assert!(
        edit_body.contains("本帖最后由 音乐虫子 于 2026-11-29 21:05 编辑"),
        "{edit_body}"
    );
    assert!(
        edit_body.contains("之前看到的内容：\n投票对象：冷雪"),
        "{edit_body}"
    );
    assert!(edit_body.contains("投票对象：不见"), "{edit_body}");

    // The store holds both versions of the edited post.
    drop(server);
    let store = bansha::io::store::Store::open(&dir.path().join("state")).unwrap();
    let records = store.records(3).unwrap();
    let r98 = records
        .iter()
        .find(|r| r.versions[0].post.pid == 98)
        .unwrap();
    let texts: Vec<&str> = r98.versions.iter().map(|v| v.post.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "投票对象：冷雪\n投票理由：她改票太随意",
            "投票对象：不见\n投票理由：冷雪解释了，改投不见"
        ]
    );
    let r47 = records
        .iter()
        .find(|r| r.versions[0].post.pid == 47)
        .unwrap();
    assert!(r47.gone_at.is_some());
    let at_close = store
        .posts_as_of(
            3,
            chrono::DateTime::parse_from_rfc3339("2026-11-29T21:00:00+08:00").unwrap(),
        )
        .unwrap();
    assert!(at_close
        .iter()
        .any(|p| p.pid == 98 && p.text.contains("冷雪") && p.edited_at.is_none()));
}
/// `bansha run` as a service: it catches up at once (the close has passed by the real clock),
/// answers `bansha status` and `bansha tally --live` on its loopback address, and stops cleanly
/// on SIGTERM.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_answers_status_and_live_tally_and_stops_on_sigterm() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = i64::MAX;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    pin_status_port(&config);

    let (mut child, status) = start_service(&config, None).await;
    let ask = |args: &[&str]| cli(&config, args);
    assert!(status.contains("状态：正常"), "{status}");
    assert!(status.contains("待发邮件：0"), "{status}");
    let (code, live, err) = tokio::task::block_in_place(|| ask(&["tally", "--live", "--day", "2"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(live.contains("李逵 4 票"), "{live}");
    let (code, _, err) = tokio::task::block_in_place(|| ask(&["tally", "--live", "--day", "9"]));
    assert_eq!(code, Some(1));
    assert!(err.contains("配置中没有第 9 天"), "{err}");

    // The discipline ledger: the close gave each lurker a yellow card (m103); the judge adds a
    // blue card and strikes one yellow card out.
    let (code, ledger, err) = tokio::task::block_in_place(|| ask(&["ledger"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(ledger.contains("李逵：黄牌 1"), "{ledger}");
    assert!(
        ledger.contains("[auto-lurk-d2-李逵] 第2天 黄牌（自动）：潜水：发言 4 帖，少于 5 帖"),
        "{ledger}"
    );
    let (code, ledger, err) = tokio::task::block_in_place(|| {
        ask(&[
            "ledger",
            "--add",
            "超人",
            "--kind",
            "blue_card",
            "--reason",
            "使用红色字体",
            "--day",
            "2",
        ])
    });
    assert_eq!(code, Some(0), "{err}");
    assert!(ledger.contains("超人：蓝牌 1"), "{ledger}");
    let (code, ledger, _) =
        tokio::task::block_in_place(|| ask(&["ledger", "--remove", "auto-lurk-d2-李逵"]));
    assert_eq!(code, Some(0));
    assert!(ledger.contains("（已撤销）"), "{ledger}");
    assert!(!ledger.contains("李逵：黄牌 1"), "{ledger}");
    let (code, _, err) =
        tokio::task::block_in_place(|| ask(&["ledger", "--add", "路人甲", "--kind", "warning"]));
    assert_eq!(
        code,
        Some(2),
        "a name not on the roster is the judge's input to fix"
    );
    assert!(err.contains("本局玩家"), "{err}");

    // A second copy on the same record is told, in Chinese, that the first has it.
    let second = tokio::task::block_in_place(|| {
        std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
            .args(["run", "--once", "--config"])
            .arg(&config)
            .output()
            .unwrap()
    });
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success(), "{err}");
    assert!(err.contains("正被另一个 bansha 进程使用"), "{err}");
    assert!(!err.contains("WouldBlock"), "{err}");

    std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let exit = tokio::task::block_in_place(|| child.wait()).unwrap();
    assert!(exit.success(), "{exit:?}");
    let finals = subjects(&mailbox)
        .iter()
        .filter(|(_, s)| s.contains("最终计票"))
        .count();
    assert_eq!(finals, 1);
    drop(server);
}
/// A GBK forum read through its desktop pages: the bytes are decoded as GBK, and the final mail
/// carries the tally its judge posted (pid 25: 李逵 5, 冷雪 1).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gbk_forum_through_desktop_pages() {
    let (mailbox, smtp_port) = smtp();
    let server = MockServer::start().await;
    for page in 1..=3 {
        let file = common::fixtures().join(format!(
            "discuz-gbk/desktop/guest/viewthread_tid2_vote_p{page}.html"
        ));
        let (_, content_type) = common::headers_of(&file);
        Mock::given(method("GET"))
            .and(path("/forum.php"))
            .and(query_param("tid", "2"))
            .and(query_param("page", page.to_string()))
            .respond_with(ResponseTemplate::new(200).set_body_raw(
                std::fs::read(&file).unwrap(),
                content_type.as_deref().unwrap(),
            ))
            .mount(&server)
            .await;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("games")).unwrap();
    std::fs::copy(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("config/examples/gbk-day2.toml"),
        dir.path().join("games/gbk.toml"),
    )
    .unwrap();
    let config = dir.path().join("daemon.toml");
    std::fs::write(
        &config,
        format!(
            "state_dir = \"state\"\n[forum]\nbase_url = \"{}/\"\nsource = \"desktop\"\nmin_gap_ms = 10\n\
             [smtp]\nhost = \"127.0.0.1\"\nport = {smtp_port}\nsecurity = \"plain\"\nfrom = \"b@judge.test\"\n\
             [judge]\nto = [\"j@judge.test\"]\n[[games]]\nconfig = \"games/gbk.toml\"\n",
            server.uri()
        ),
    )
    .unwrap();
    let r = cycle_at(&config, "2026-11-29 20:30:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    assert_eq!(r["requests"], 3, "{r}");
    assert_eq!(r["new_posts"], 12, "{r}");
    let mails = mailbox.mails.lock().unwrap().clone();
    let final_mail = mails
        .iter()
        .find(|m| summary(m).1.contains("最终计票"))
        .expect("final mail");
    assert!(
        summary(final_mail).1.contains("李逵 以 5 票最高，出局"),
        "{}",
        summary(final_mail).1
    );
}
/// bansha42's report thread (here the captured discussion thread, tid 4, stands in for it): each
/// player's post is checked once against 报道's rules (≥ 301 words, seed 004 L47); each failing
/// post is mailed once, the passing ones are not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn required_posts_are_checked_and_failures_mailed_once() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795924800; // 12:00 on the 29th
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    std::fs::write(
        dir.path().join("games/banshayishi-12.toml"),
        format!(
            "ruleset = \"bansha42\"\nname = \"报道测试\"\n{}\n[[days]]\nday = 2\nvote_thread = 3\n\
             checked_threads = [{{ tid = 4, kind = \"report\" }}]\ncloses_at = \"2026-11-29 21:00:00\"\n\
             dead = [\"龙舌\", \"青鸾花\"]\n[[days]]\nday = 1\ncloses_at = \"2026-11-28 12:00:00\"\n\
             [rules.vote]\nsource = \"thread\"\n",
            // The reports are under test, not the vote: the captured vote thread (tid 3) stands
            // in for bansha42's poll, which the poll tests replay.
            common::ROSTER
        ),
    )
    .unwrap();
    let run = |now: &'static str| cycle_at(&config, now);
    let r = run("2026-11-29 12:00:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let failing = |mailbox: &Mailbox| {
        subjects(mailbox)
            .into_iter()
            .map(|(_, s)| s)
            .filter(|s| s.contains("报道不合格"))
            .collect::<Vec<_>>()
    };
    let first = failing(&mailbox);
    // 42 posts by living players up to 12:00; 7 of them reach 301 words (pids 26, 29, 37, 48,
    // 57, 64, 73: 371, 364, 483, 875, 384, 311, 481 words), and 6 pass: 33# 冷雪 (pid 64)
    // quotes “今天先观察，不急着投票” and “切割队友” inline, which leaves 296 words of her own
    // (L47 "除去引用部分，必须够301字"; inline quotations are quotes, L58).
    assert_eq!(first.len(), 36, "{first:#?}");
    assert!(first
        .iter()
        .any(|s| s.ends_with("报道不合格：33# 冷雪（pid 64）")));
    assert!(
        first
            .iter()
            .any(|s| s.ends_with("报道不合格：沙发 大灰狼（pid 21）")),
        "{first:#?}"
    );
    assert!(
        !first
            .iter()
            .any(|s| s.contains("路人甲") || s.contains("青鸾花")),
        "non-players and the dead are not checked"
    );
    let m = mailbox.mails.lock().unwrap().clone();
    let sofa = m
        .iter()
        .find(|m| summary(m).1.ends_with("报道不合格：沙发 大灰狼（pid 21）"))
        .unwrap();
    assert!(body(sofa).contains("总字数 3，少于 301"), "{}", body(sofa));
    // Round 1 (day 1) closed at 12:00 on the 28th (seed 004 L48): 大灰狼's report from the 27th
    // could have been fixed until then; a report after it is simply out.
    assert!(
        body(sofa).contains("须在第1天截止（11-28 12:00）前重新跟帖补正，否则出局"),
        "{}",
        body(sofa)
    );
    let late = m
        .iter()
        .find(|m| summary(m).1.contains("报道不合格") && body(m).contains("已过第1天截止"))
        .is_some();
    assert!(late, "posts after round 1 are marked out");

    forum.lock().unwrap().at = 1795924800 + 300;
    run("2026-11-29 12:05:00").await;
    assert_eq!(failing(&mailbox).len(), 36, "nothing is mailed twice");
}
/// chuhan: the daemon reads the board's thread list; a thread a player opened that day (here the
/// captured discussion thread, its opener changed to 李逵 on the captured board page) counts for
/// 潜水 with the vote thread (seed 000 L128, L147).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chuhan_players_threads_on_the_board_are_counted() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795957560; // 21:06
    let board = std::fs::read_to_string(
        common::fixtures().join("discuz/desktop/guest/forumdisplay_fid3.html"),
    )
    .unwrap();
    let start = board.find("<tbody id=\"normalthread_4\">").unwrap();
    let end = start + board[start..].find("</tbody>").unwrap();
    let row = board[start..end].replacen(
        "<a href=\"home.php?mod=space&amp;uid=2\" c=\"1\">版杀一室法官</a>",
        "<a href=\"home.php?mod=space&amp;uid=5\" c=\"1\">李逵</a>",
        1,
    );
    let derived = format!("{}{}{}", &board[..start], row, &board[end..]);
    Mock::given(method("GET"))
        .and(path("/forum.php"))
        .and(query_param("mod", "forumdisplay"))
        .and(query_param("fid", "3"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(derived, "text/html; charset=utf-8"))
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    std::fs::write(
        dir.path().join("games/banshayishi-12.toml"),
        format!(
            "ruleset = \"chuhan\"\nname = \"楚汉测试\"\nboard = 3\n{}\n[[days]]\nday = 2\nvote_thread = 3\n\
             closes_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n",
            common::ROSTER
        ),
    )
    .unwrap();
    let r = cycle_at(&config, "2026-11-29 21:06:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let mails = mailbox.mails.lock().unwrap().clone();
    let lurk = mails
        .iter()
        .find(|m| summary(m).1.contains("发言统计"))
        .expect("the 潜水 mail");
    let text = body(lurk);
    // The hand count of tests/lurk.rs: 大灰狼 4 in tid 4 (without 沙发！) + 4 ballots.
    assert!(text.contains("计入的帖子：tid 3"), "{text}");
    assert!(text.contains("大灰狼 8 帖"), "{text}");
}
/// The first read of a long thread: progress lines in the log when stderr is not a terminal,
/// one per tenth of the pages. The thread is the captured vote thread's first post (the judge's)
/// replicated as replies to 250 pages (new pids), served 10 a page as captured.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_first_read_logs_its_progress() {
    let (_mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    {
        let mut f = forum.lock().unwrap();
        f.at = 1795955400; // 20:30
        let first = f.posts[0].clone();
        let mut posts = vec![first.clone()];
        for pid in 10_000u64..12_499 {
            let mut p = first.clone();
            p["pid"] = Value::String(pid.to_string());
            p["first"] = Value::String("0".into());
            p["position"] = Value::String((posts.len() + 1).to_string());
            posts.push(p);
        }
        posts.truncate(2500);
        f.posts = posts;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("min_gap_ms = 10", "min_gap_ms = 0");
    std::fs::write(&config, text).unwrap();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
            .args(["run", "--once", "--now", "2026-11-29 20:30:00", "--config"])
            .arg(&config)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("读取帖子 tid 3：第 "))
        .collect();
    assert_eq!(
        lines,
        (1..=10)
            .map(|t| format!("读取帖子 tid 3：第 {}/250 页（{}%）", t * 25, t * 10))
            .collect::<Vec<_>>(),
        "{log}"
    );
    // The short discussion thread (7 pages) goes without.
    assert!(!log.contains("读取帖子 tid 4"), "{log}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["new_posts"].as_u64().unwrap() > 2500, "{report}");
    assert_eq!(report["errors"], serde_json::json!([]), "{report}");

    // On a terminal (a pseudo-terminal from util-linux `script`): the bar, not the lines.
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let command = format!(
        "{} run --once --now '2026-11-29 20:30:00' --config {}",
        env!("CARGO_BIN_EXE_bansha"),
        config.display()
    );
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("script")
            .args(["-qec", &command, "/dev/null"])
            .output()
            .expect("util-linux script")
    })
    .await
    .unwrap();
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{screen}");
    assert!(screen.contains("读取帖子 tid 3 ["), "{screen}");
    assert!(screen.contains("/250 页"), "{screen}");
    assert!(!screen.contains("读取帖子 tid 3：第"), "{screen}");
}

/// A ballot deleted in the last hour is missing at the close's own read: it is not counted in
/// the final tally, and the judge is told it is gone and when it was last seen (issue 18,
/// break 0). yucca's 9# (pid 53, 11-28, for 李逵) is deleted at 20:59:40; the last full read
/// before the close was the lock's, at 20:00.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ballot_deleted_before_the_close_is_not_counted_in_the_final() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    forum.lock().unwrap().at = 1795953600; // 20:00
    let r = cycle_at(&config, "2026-11-29 20:00:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    {
        let mut f = forum.lock().unwrap();
        f.at = 1795957205; // 21:00:05
        f.deleted.insert(53);
    }
    let r = cycle_at(&config, "2026-11-29 21:00:05").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let text = final_texts(&mailbox).pop().expect("a final tally");
    assert!(text.contains("李逵 3 票"), "{text}");
    assert!(!text.contains("yucca（9#）"), "{text}");
    let mails = mailbox.mails.lock().unwrap().clone();
    let gone = mails
        .iter()
        .find(|m| summary(m).1.contains("投票帖消失：9# yucca"))
        .unwrap_or_else(|| panic!("the judge is told: {text}"));
    let gone = body(gone);
    assert!(gone.contains("最终计票不计入"), "{gone}");
    assert!(
        gone.contains("2026-11-29 20:00:00"),
        "last seen at the lock's read: {gone}"
    );
}

/// An edit made before the deadline counts in the final even when bansha first sees it at the
/// close (issue 18, break 3): the forum's edit notice, not the moment of the read, says when
/// the text changed. yucca edits her 9# (page 1) at 20:30 from 李逵 to 大灰狼; the polls after
/// the lock's full read only read the last page, so the close's read is the first to see it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_before_the_close_first_seen_at_it_counts() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let run = |now: &'static str| cycle_at(&config, now);
    forum.lock().unwrap().at = 1795953600; // 20:00
    let r = run("2026-11-29 20:00:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    {
        let mut f = forum.lock().unwrap();
        f.edits.insert(
            53,
            vec![(
                1795955400, // 20:30
                "<i class=\"pstatus\"> 本帖最后由 yucca 于 2026-11-29 20:30 编辑 </i><br />\n<br />\n投票对象：大灰狼<br />\n投票理由：想了想还是他"
                    .into(),
            )],
        );
        f.at = 1795956300; // 20:45
    }
    let r = run("2026-11-29 20:45:00").await;
    assert_eq!(
        r["edited_posts"], 0,
        "page 1 is not read between full reads: {r}"
    );
    forum.lock().unwrap().at = 1795957205; // 21:00:05
    let r = run("2026-11-29 21:00:05").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let text = final_texts(&mailbox).pop().expect("a final tally");
    let line = text
        .lines()
        .find(|l| l.starts_with("大灰狼 "))
        .unwrap_or_default();
    assert!(line.contains("yucca（9#）"), "{line}\n{text}");
    assert!(!text.lines().any(|l| l.starts_with("李逵 4 票")), "{text}");
}

/// Edit storms (issue 18, break 12): yucca edits her 23# back and forth four times in four
/// minutes. The judge gets the first edit at once and one mail for the rest when the
/// half-hour window closes, not one mail per poll.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_storm_is_one_mail_per_window() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let edit = |minute: u32, target: &str| {
        format!(
            "<i class=\"pstatus\"> 本帖最后由 yucca 于 2026-11-29 19:0{minute} 编辑 </i><br />\n<br />\n投票对象：{target}<br />\n投票理由：改来改去"
        )
    };
    {
        let mut f = forum.lock().unwrap();
        f.at = 1795950000; // 19:00
        f.edits.insert(
            95,
            (1..=4)
                .map(|m| {
                    (
                        1795950000 + 60 * m as i64,
                        edit(m, if m % 2 == 1 { "冷雪" } else { "大灰狼" }),
                    )
                })
                .collect(),
        );
    }
    let r = cycle_at(&config, "2026-11-29 19:00:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    for m in 1..=4 {
        forum.lock().unwrap().at = 1795950000 + 60 * m + 30;
        let r = cycle_at(&config, &format!("2026-11-29 19:0{m}:30")).await;
        assert_eq!(r["edited_posts"], 1, "{r}");
    }
    let edits = |m: &Mailbox| -> Vec<String> {
        m.mails
            .lock()
            .unwrap()
            .iter()
            .filter(|x| summary(x).1.contains("23# yucca") && summary(x).1.contains("编辑"))
            .map(|x| body(x))
            .collect()
    };
    assert_eq!(
        edits(&mailbox).len(),
        1,
        "the first edit at once, the rest held"
    );
    forum.lock().unwrap().at = 1795952400; // 19:40
    let r = cycle_at(&config, "2026-11-29 19:40:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let all = edits(&mailbox);
    assert_eq!(all.len(), 2, "one more for the window: {all:#?}");
    assert!(all[1].contains("又编辑了 3 次"), "{}", all[1]);
    assert!(
        all[1].contains("投票对象：大灰狼"),
        "the last text: {}",
        all[1]
    );
}

/// Renaming a game after its close (issue 18, break 11): the record keys the game by its id,
/// so nothing is sent again; the next mail carries the new name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn renaming_a_game_after_the_close_sends_nothing_again() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    forum.lock().unwrap().at = 1795924800;
    cycle_at(&config, "2026-11-29 16:00:00").await;
    forum.lock().unwrap().at = 1795960800;
    cycle_at(&config, "2026-11-29 21:06:00").await;
    let before = subject_lines(&mailbox);
    assert!(
        before.iter().any(|s| s.contains("最终计票：")),
        "{before:?}"
    );

    let game = dir.path().join("games/banshayishi-12.toml");
    let text = std::fs::read_to_string(&game).unwrap();
    let renamed = text.replace(
        "name = \"版杀一室 第十二局\"",
        "name = \"版杀一室 第十二局（改名）\"",
    );
    assert_ne!(renamed, text);
    std::fs::write(&game, renamed).unwrap();
    // The after-close look ten minutes on still runs, and sends only what is new.
    cycle_at(&config, "2026-11-29 21:08:00").await;
    cycle_at(&config, "2026-11-29 21:20:00").await;
    let after = subject_lines(&mailbox);
    assert_eq!(after[..before.len()], before[..]);
    let again: Vec<&String> = after[before.len()..]
        .iter()
        .filter(|s| before.contains(&s.replace("（改名）", "")))
        .collect();
    assert!(again.is_empty(), "sent again after the rename: {again:?}");
    assert!(
        after.len() > before.len(),
        "the after-close look still mails"
    );
}

/// Writes day 2's close and, optionally, the ruleset and extra rule lines into the game config.
fn regame(dir: &std::path::Path, ruleset: Option<&str>, closes_at: &str, extra: &str) {
    let game = dir.join("games/banshayishi-12.toml");
    let mut text = std::fs::read_to_string(&game).unwrap().replace(
        "closes_at = \"2026-11-29 21:00:00\"",
        &format!("closes_at = \"{closes_at}\""),
    );
    if let Some(r) = ruleset {
        text = text.replace("ruleset = \"m103\"", &format!("ruleset = \"{r}\""));
    }
    text.push_str(extra);
    std::fs::write(&game, text).unwrap();
}

/// chuhan (000 L105, L113): a tie at the top with ≥ 30% goes to 高票辩论 among the tied, the
/// day extended by 24 hours. The daemon watches round 2 on its own: its lock, its final at the
/// new close, with round 2's rules (only the candidates may be voted for).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn a_chuhan_tie_runs_round_two_through_the_daemon() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    // chuhan's run-off (24 hours, L105) under the captured game's own count (plurality, its
    // round-2 rules): at 16:00 on the 28th four players have one vote each. The captured game
    // ran over a weekend, which chuhan pauses: not here, so the 24 hours are plain (the pause
    // is `decide::game_time_after`'s unit test).
    regame(
        dir.path(),
        Some("chuhan"),
        "2026-11-28 16:00:00",
        "\n[rules.schedule]\npaused_weekdays = []\n",
    );
    let at = |t: &str| {
        chrono::DateTime::parse_from_str(&format!("{t} +0800"), "%Y-%m-%d %H:%M:%S %z")
            .unwrap()
            .timestamp()
    };
    for now in [
        "2026-11-28 15:30:00",
        "2026-11-28 16:00:05",
        "2026-11-28 16:30:00",
        "2026-11-29 15:10:00",
        "2026-11-29 16:00:05",
    ] {
        forum.lock().unwrap().at = at(now);
        let r = cycle_at(&config, now).await;
        assert_eq!(r["errors"], serde_json::json!([]), "{now}: {r}");
    }
    let subjects = subject_lines(&mailbox);
    let finals: Vec<&String> = subjects.iter().filter(|s| s.contains("最终计票")).collect();
    assert_eq!(finals.len(), 2, "{subjects:?}");
    assert!(
        finals[0].contains("投票统计（截止 16:00）最终计票")
            && !finals[0].contains("第二轮投票统计"),
        "{}",
        finals[0]
    );
    assert!(
        finals[1].contains("第二轮投票统计（截止 16:00）最终计票"),
        "{}",
        finals[1]
    );
    assert!(
        subjects
            .iter()
            .any(|s| s.contains("第二轮投票统计（截止 16:00）进入截止前锁定时段")),
        "round 2 has its own lock: {subjects:?}"
    );
    let texts = final_texts(&mailbox);
    assert!(
        texts[0].contains("第二轮"),
        "round 1's final names the run-off: {}",
        texts[0]
    );
    let r2 = &texts[1];
    assert!(r2.contains("第二轮（高票辩论）"), "{r2}");
    assert!(r2.contains("不是第二轮候选人"), "round 2's own rule: {r2}");
    assert!(r2.contains("截止时间：2026-11-29 16:00:00"), "{r2}");
    // L118 "每个活着的玩家必须参加投票…不参加投票视同一次潜水", in round 2 too: each living player
    // the round-2 final lists as not voting gets a warning (L144), mailed once.
    let listed = r2
        .split("[b]未投票[/b]：")
        .nth(1)
        .and_then(|x| x.lines().next())
        .expect("the BBCode's non-voter line")
        .to_string();
    let missed: Vec<&str> = listed
        .split('、')
        .filter_map(|x| x.split('（').next())
        .filter(|x| !x.is_empty() && *x != "无")
        .collect();
    assert!(
        !missed.is_empty(),
        "the captured thread leaves some out: {listed}"
    );
    let duty: Vec<&String> = subjects
        .iter()
        .filter(|s| s.contains("第二轮投票义务"))
        .collect();
    assert_eq!(duty.len(), 1, "{subjects:?}");
    assert!(
        duty[0].contains(&format!("{} 没有有效投票", missed.join("、"))),
        "{} vs {listed}",
        duty[0]
    );
}

/// A tie for a run-off where nothing says when round 2 closes (the captured game's house rule:
/// 平票 PK, the time set by the judge): the judge is asked once; once the day's config sets
/// it, round 2 runs to it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn a_runoff_without_a_deadline_asks_the_judge_then_runs_when_set() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    regame(dir.path(), None, "2026-11-28 16:00:00", "");
    forum.lock().unwrap().at = 1795852805; // 11-28 16:00:05
    cycle_at(&config, "2026-11-28 16:00:05").await;
    cycle_at(&config, "2026-11-28 16:05:00").await;
    let asks: Vec<String> = subject_lines(&mailbox)
        .into_iter()
        .filter(|s| s.contains("请设置第二轮截止时间"))
        .collect();
    assert_eq!(asks.len(), 1, "{:?}", subject_lines(&mailbox));
    assert!(asks[0].contains("进入第二轮（"), "{}", asks[0]);

    // The judge sets it (the candidates as the mail names them) and restarts.
    let game = dir.path().join("games/banshayishi-12.toml");
    let text = std::fs::read_to_string(&game).unwrap().replace(
        "closes_at = \"2026-11-28 16:00:00\"\n",
        "closes_at = \"2026-11-28 16:00:00\"\nrunoff = { closes_at = \"2026-11-28 22:00:00\", candidates = [\"花千树\", \"李逵\", \"大灰狼\"] }\n",
    );
    std::fs::write(&game, text).unwrap();
    forum.lock().unwrap().at = 1795874405; // 22:00:05
    cycle_at(&config, "2026-11-28 22:00:05").await;
    let subjects = subject_lines(&mailbox);
    assert!(
        subjects
            .iter()
            .any(|s| s.contains("第二轮投票统计（截止 22:00）最终计票")),
        "{subjects:?}"
    );
}

/// m103 (002 L152–156): the sheriff day 1 elects weighs 1.5 in the daemon's later tallies with
/// no `sheriff` retyped; once that sheriff is out the judge is told the succession rule, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn the_day_one_sheriff_carries_to_day_two_and_its_loss_is_told() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    // Day 1 on the same thread to 16:00 on the 28th (花千树 reaches the top first), day 2 after
    // it; the house rule's weight 1.0 taken out, so m103's 1.5 holds.
    let game = dir.path().join("games/banshayishi-12.toml");
    let text = std::fs::read_to_string(&game)
        .unwrap()
        .replace("sheriff_weight = 1.0\n", "")
        .replace(
            "[[days]]\nday = 2\n",
            "[[days]]\nday = 1\nvote_thread = 3\ncloses_at = \"2026-11-28 16:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n\n[[days]]\nday = 2\n",
        );
    assert!(text.contains("day = 1\n"), "{text}");
    std::fs::write(&game, &text).unwrap();
    forum.lock().unwrap().at = 1795852805; // 11-28 16:00:05
    let r = cycle_at(&config, "2026-11-28 16:00:05").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    assert!(
        subject_lines(&mailbox)
            .iter()
            .any(|s| s.contains("第1天") && s.contains("最终计票")),
        "{:?}",
        subject_lines(&mailbox)
    );
    forum.lock().unwrap().at = 1795957505; // 11-29 21:05:05
    cycle_at(&config, "2026-11-29 21:00:05").await;
    let day2 = final_texts(&mailbox)
        .into_iter()
        .find(|t| t.contains("第2天 第一轮投票统计"))
        .expect("day 2's final");
    assert!(day2.contains("花千树（32#，计 1.5 票）"), "{day2}");

    // The judge records the sheriff killed the night before day 3's vote.
    let text = text.replace(
        "[[days]]\nday = 2\n",
        "[[days]]\nday = 3\nvote_thread = 3\ncloses_at = \"2026-11-30 21:00:00\"\n\n[[days]]\nday = 2\n",
    );
    std::fs::write(&game, &text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(["change", "--config"])
        .arg(&game)
        .args([
            "--at",
            "2026-11-30 08:00",
            "eliminate",
            "花千树",
            "--cause",
            "夜杀",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    cycle_at(&config, "2026-11-30 10:00:00").await;
    cycle_at(&config, "2026-11-30 11:00:00").await;
    let told: Vec<String> = subject_lines(&mailbox)
        .into_iter()
        .filter(|s| s.contains("警长 花千树 已出局"))
        .collect();
    assert_eq!(told.len(), 1, "{:?}", subject_lines(&mailbox));
}

/// jiaohui (001 L172–173): two tied at the top with ≥ 25% go to round 2, the time the judge's;
/// driven through the daemon on the vote thread with ballots in jiaohui's own form (the
/// captured post form, new pids after the captured ones).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn a_jiaohui_tie_at_a_quarter_goes_to_round_two() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let game = dir.path().join("games/banshayishi-12.toml");
    let text = format!(
        "ruleset = \"jiaohui\"\nname = \"教会局\"\nid = \"jh\"\n{}\n[[days]]\nday = 2\nvote_thread = 3\nopens_at = \"2026-11-29 21:30:00\"\ncloses_at = \"2026-11-29 22:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n",
        common::ROSTER
    );
    std::fs::write(&game, &text).unwrap();
    let base = 1795959000; // 21:30
                           // Each ballot names its round (L175 "第几次"): 第一次 in round 1, 第二次 in round 2.
    let add = |forum: &Arc<Mutex<Forum>>, ballots: &[(u64, &str, i64, &str)]| {
        let mut f = forum.lock().unwrap();
        let template = f.posts[1].clone();
        for (pid, author, minutes, target) in ballots {
            let n = if *minutes >= 30 { "二" } else { "一" };
            let text = format!("{author} 第二天 第{n}次 投票的对象是 {target} 原因是 发言可疑");
            let p = post_like(&template, *pid, author, base + minutes * 60, &text);
            f.posts.push(p);
        }
    };
    // 3 and 3 of 12 living (non-voters count as abstaining, L182): 25% each.
    add(
        &forum,
        &[
            (901, "大灰狼", 5, "李逵"),
            (902, "花千树", 6, "李逵"),
            (903, "不见", 7, "李逵"),
            (904, "冷雪", 8, "小飞"),
            (905, "蝈蝈", 9, "小飞"),
            (906, "超人", 10, "小飞"),
        ],
    );
    forum.lock().unwrap().at = base + 30 * 60 + 5;
    cycle_at(&config, "2026-11-29 22:00:05").await;
    let subjects = subject_lines(&mailbox);
    assert!(
        subjects.iter().any(
            |s| s.contains("进入第二轮（李逵、小飞）：请设置第二轮截止时间")
                || s.contains("进入第二轮（小飞、李逵）：请设置第二轮截止时间")
        ),
        "{subjects:?}"
    );
    std::fs::write(
        &game,
        text.replace(
            "closes_at = \"2026-11-29 22:00:00\"\n",
            "closes_at = \"2026-11-29 22:00:00\"\nrunoff = { closes_at = \"2026-11-29 23:00:00\", candidates = [\"李逵\", \"小飞\"] }\n",
        ),
    )
    .unwrap();
    add(
        &forum,
        &[
            (911, "大灰狼", 40, "小飞"),
            (912, "花千树", 41, "小飞"),
            (913, "yucca", 42, "小飞"),
            (914, "冷雪", 43, "李逵"),
            (915, "蝈蝈", 44, "冷雪"),
        ],
    );
    forum.lock().unwrap().at = base + 90 * 60 + 5;
    let r = cycle_at(&config, "2026-11-29 23:00:05").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let text = final_texts(&mailbox).pop().unwrap();
    assert!(text.contains("第二轮（高票辩论）"), "{text}");
    assert!(text.contains("冷雪 不是第二轮候选人"), "{text}");
    assert!(text.contains("小飞 以 3 票最高，出局"), "{text}");
}

/// m103's night deadlines (002 L235–237): 30 minutes after the close the judge is reminded
/// that the night's powers are now forfeit, once, through the daemon.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn the_rules_reminders_are_mailed_once_at_their_time() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let reminders = |m: &Mailbox| -> Vec<String> {
        subject_lines(m)
            .into_iter()
            .filter(|s| s.contains("提醒：关门已满 30 分钟"))
            .collect()
    };
    for (now, ts, n) in [
        ("2026-11-29 21:06:00", 1795957560, 0),
        ("2026-11-29 21:30:05", 1795959005, 1),
        ("2026-11-29 21:45:00", 1795959900, 1),
    ] {
        forum.lock().unwrap().at = ts;
        let r = cycle_at(&config, now).await;
        assert_eq!(r["errors"], serde_json::json!([]), "{now}: {r}");
        assert_eq!(
            reminders(&mailbox).len(),
            n,
            "{now}: {:?}",
            subject_lines(&mailbox)
        );
    }
    let text = mailbox
        .mails
        .lock()
        .unwrap()
        .iter()
        .find(|m| summary(m).1.contains("提醒："))
        .map(|m| body(m))
        .unwrap();
    assert!(text.contains("2026-11-29 21:30"), "{text}");
    assert!(text.contains("missed_night_moves"), "{text}");
}

/// The flags of issue 20 (m103 002 L331 "禁止使用红色字体", L319 "禁止已出局角色在讨论帖、投票帖
/// …中发言"): the end-of-day mail lists, below its public part, the posts the judge should look
/// at, each with its floor link; nothing of it is in the BBCode the judge pastes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn the_end_of_day_mail_flags_posts_for_the_judge() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    // 超人 is recorded out before day 2: his posts in the day's threads are flagged too.
    let game = dir.path().join("games/banshayishi-12.toml");
    let text = std::fs::read_to_string(&game).unwrap().replacen(
        "dead = [\"龙舌\", \"青鸾花\"]",
        "dead = [\"龙舌\", \"青鸾花\", \"超人\"]",
        1,
    );
    std::fs::write(&game, text).unwrap();
    forum.lock().unwrap().at = 1795957560; // 21:06
    let r = cycle_at(&config, "2026-11-29 21:06:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let text = mailbox
        .mails
        .lock()
        .unwrap()
        .iter()
        .find(|m| summary(m).1.contains("发言统计"))
        .map(|m| body(m))
        .expect("the end-of-day mail");
    let (public, judge) = text
        .split_once("—— 仅法官可见（不要贴到论坛）：需要注意的帖子")
        .expect("the judge-only part");
    assert!(!public.contains("红色字体"), "{public}");
    assert!(
        judge.contains("投票帖 26# 超人：红色字体；已出局的玩家在游戏帖发言"),
        "{judge}"
    );
    assert!(
        judge.contains("forum.php?mod=redirect&goto=findpost&ptid=3&pid=103"),
        "{judge}"
    );
    assert!(judge.contains("讨论帖 tid 4 54# 李逵：红色字体"), "{judge}");
    assert!(
        !judge.contains("版杀一室法官"),
        "the judge's own posts: {judge}"
    );
}

/// bansha42 (004 L48 "第一轮结束后未补的判出局", L51 "踩而未到视为未到"): at the close of day 1
/// the judge gets the reports' roll-call once, through the daemon — here the captured discussion
/// thread stands in for the report thread, where no post reaches 301 words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn the_reports_roll_call_is_mailed_at_the_close_of_day_one() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    bansha42_game(
        dir.path(),
        "报道局",
        "[[days]]\nday = 1\nvote_thread = 3\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\nchecked_threads = [{ tid = 4, kind = \"report\" }]\nchallenged = [\"李逵\"]\n",
    );
    cycles(
        &config,
        &forum,
        &[
            ("2026-11-29 21:06:00", 1795957560),
            ("2026-11-29 21:20:00", 1795958400),
        ],
    )
    .await;
    let calls: Vec<(String, String)> = mails_about(&mailbox, "报道点名");
    assert_eq!(calls.len(), 1, "{:?}", subject_lines(&mailbox));
    let (subject, text) = &calls[0];
    assert!(subject.contains("报道点名：未到 小飞、李逵、"), "{subject}");
    assert!(
        text.contains("  大灰狼：已补齐（14# 不合格，28# 合格）"),
        "{text}"
    );
    assert!(
        !subject.contains("龙舌"),
        "the dead are not called: {subject}"
    );
    assert!(text.contains("踩而未到视为未到"), "{text}");
    assert!(
        text.contains("少于 601"),
        "李逵 was challenged (L49): {text}"
    );
    assert!(text.contains("判出局"), "{text}");
}

/// bansha42 L60 "允许白条，最迟到次日12点前必须交给哨，且字数为1200字，否则视为无帖自杀出局": at
/// 12:00 after the night's close the judge is told the deadline has passed, with each IOU posted
/// in the checked thread since the close and its verdict — here the captured discussion thread
/// stands in for the thread IOUs are posted to, and no post reaches 1,200 words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn the_kill_post_deadline_mails_what_arrived_and_its_verdict() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    bansha42_game(
        dir.path(),
        "白条局",
        "[[days]]\nday = 1\nvote_thread = 3\ncloses_at = \"2026-11-28 16:00:00\"\ncode_names = [\"圣火令\"]\n[[days]]\nday = 2\nvote_thread = 3\ncloses_at = \"2026-11-29 21:00:00\"\ncode_names = [\"圣火令\"]\nchecked_threads = [{ tid = 4, kind = \"kill_iou\" }]\n",
    );
    cycles(
        &config,
        &forum,
        &[
            ("2026-11-29 11:50:00", 1795924200),
            ("2026-11-29 12:00:05", 1795924805),
        ],
    )
    .await;
    let got: Vec<(String, String)> = mails_about(&mailbox, "提醒：白条与重写");
    let subjects: Vec<&String> = got.iter().map(|(s, _)| s).collect();
    assert_eq!(
        got.len(),
        2,
        "the 11:30 warning and the 12:00 verdict: {subjects:?}"
    );
    let verdict = &got[1].1;
    assert!(verdict.contains("白条与重写已截止"), "{verdict}");
    assert!(verdict.contains("截止前在交帖帖子里收到的："), "{verdict}");
    assert!(verdict.contains("白条杀帖 "), "{verdict}");
    assert!(verdict.contains("不合格——总字数"), "{verdict}");
    assert!(verdict.contains("少于 1200"), "{verdict}");
}

/// Issue 21: `bansha tally --fetch --day N` counts the thread right now, from the forum (the
/// replay of the captured thread, every page), with no daemon and no record — the same BBCode
/// the daemon's final mail attaches for the same moment.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn tally_fetch_counts_the_thread_from_the_forum_now() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    forum.lock().unwrap().at = 1795957560; // 21:06
    let (code, bbcode, err) =
        tokio::task::block_in_place(|| cli(&config, &["tally", "--fetch", "--day", "2"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("已从论坛读取投票帖 tid 3："), "{err}");
    assert!(bbcode.contains("李逵 4 票"), "{bbcode}");
    assert!(forum.lock().unwrap().requests > 1, "every page");
    assert!(mailbox.mails.lock().unwrap().is_empty(), "nothing mailed");
    // The daemon's final for the same close says the same.
    let r = cycle_at(&config, "2026-11-29 21:06:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let attached = mailbox
        .mails
        .lock()
        .unwrap()
        .iter()
        .filter(|m| summary(m).1.contains("最终计票"))
        .flat_map(|m| files(m))
        .find(|f| f.0.ends_with(".txt"))
        .map(|f| f.2)
        .expect("the final's BBCode");
    let counts = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.contains(" 票"))
            .map(String::from)
            .collect()
    };
    assert_eq!(counts(&bbcode), counts(&String::from_utf8_lossy(&attached)));
    // A day the config does not have is named.
    let (code, _, err) =
        tokio::task::block_in_place(|| cli(&config, &["tally", "--fetch", "--day", "7"]));
    assert_eq!(code, Some(2));
    assert!(err.contains("配置中没有第 7 天"), "{err}");
}

/// Issue 21: `bansha lurk --fetch --day N` reads the day's counted threads from the forum now
/// (the replay: discussion tid 4 and, m103 counting a missed vote, vote tid 3, every page) and
/// prints the 潜水 BBCode with the same counts the daemon's 潜水 mail gives at that moment.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn lurk_fetch_counts_the_day_from_the_forum_now() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    forum.lock().unwrap().at = 1795957560; // 21:06
    let (code, bbcode, err) =
        tokio::task::block_in_place(|| cli(&config, &["lurk", "--fetch", "--day", "2"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("已从论坛读取帖子 tid 4："), "{err}");
    assert!(err.contains("已从论坛读取帖子 tid 3："), "{err}");
    assert!(mailbox.mails.lock().unwrap().is_empty(), "nothing mailed");
    let r = cycle_at(&config, "2026-11-29 21:06:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let (subject, text) = mails_about(&mailbox, "发言统计")
        .into_iter()
        .next()
        .expect("the 潜水 mail");
    assert!(
        subject.contains("潜水 李逵、不见、小熊维尼、yucca、雪罂子"),
        "{subject}"
    );
    // Every living player's count in the mail is the BBCode's, and the BBCode names the same
    // lurkers.
    let living = common::ROSTER_PLAYERS
        .iter()
        .filter(|p| !["龙舌", "青鸾花"].contains(p));
    for &name in living {
        let line = |t: &str| {
            t.lines()
                .map(str::trim)
                .find(|l| l.starts_with(&format!("{name} ")) && l.contains(" 帖"))
                .map(|l| l.split(" 帖").next().unwrap().to_string())
        };
        let mailed = line(&text).unwrap_or_else(|| panic!("{name}: {text}"));
        assert_eq!(line(&bbcode), Some(mailed), "{name}: {bbcode}");
    }
    for lurker in ["李逵", "不见", "小熊维尼", "yucca", "雪罂子"] {
        assert!(
            bbcode
                .lines()
                .any(|l| l.contains(lurker) && l.contains("潜水")),
            "{lurker}: {bbcode}"
        );
    }
    // Saved-page arguments and --fetch are one or the other.
    let (code, _, err) = tokio::task::block_in_place(|| {
        cli(&config, &["lurk", "--fetch", "--day", "2", "page.html"])
    });
    assert_eq!(code, Some(2), "{err}");
}

/// Issue 21: `bansha check-post --fetch --pid P` finds the post on the forum (in the day's
/// required-post threads of the kind: the captured discussion thread stands in for bansha42's
/// report thread) and checks it as the daemon does (seed 004 L47: 301 words without quotes).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn check_post_fetch_checks_a_post_read_from_the_forum() {
    let (_mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795924800; // 12:00 on the 29th
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    bansha42_game(
        dir.path(),
        "报道局",
        "[[days]]\nday = 1\nvote_thread = 3\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\nchecked_threads = [{ tid = 4, kind = \"report\" }]\n",
    );
    let check = |args: &[&str]| {
        let mut all = vec!["check-post", "--fetch", "--kind", "report"];
        all.extend(args);
        tokio::task::block_in_place(|| cli(&config, &all))
    };
    // 33# 冷雪 (pid 64): 311 words, 296 of her own once the 15 quoted inline are out (L47, L58;
    // the four quotation marks are hers: issue 29 item 18, the total is Word's 311).
    let (code, out, err) = check(&["--pid", "64"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("已从论坛读取主题 tid 4："), "{err}");
    assert!(out.contains("冷雪（pid 64）"), "{out}");
    assert!(out.contains("总字数 311，去掉引用后 296 字"), "{out}");
    assert!(out.contains("结论：不合格"), "{out}");
    // pid 26: 371 words, passes.
    let (code, out, err) = check(&["--pid", "26", "--day", "1"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("结论：合格"), "{out}");
    // A pid in no thread the config names is said so, with the threads looked in.
    let (code, _, err) = check(&["--pid", "999999"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("没有找到 pid 999999"), "{err}");
    assert!(err.contains("tid 4、tid 3"), "{err}");
    // --thread names the thread; a day the config lacks is named.
    let (code, out, err) = check(&["--pid", "64", "--thread", "4"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("296 字"), "{out}");
    let (code, _, err) = check(&["--pid", "64", "--day", "9"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("--day：配置中没有第 9 天"), "{err}");
}

/// Issue 21: before a day opens, `status` and the dashboard say when it will be watched rather
/// than "监视：无".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn before_a_day_opens_status_says_when() {
    let (_mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795000000;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let port = pin_status_port(&config);
    let (mut child, status) = start_service(&config, Some("2026-11-20 12:00:00")).await;
    assert!(
        status.contains(
            "监视：暂无（版杀一室 第十二局 第2天 投票帖 tid 3：2026-11-22 21:00 开始监视）"
        ),
        "{status}"
    );
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    assert!(
        page.contains("目前没有在监视的投票：第2天 2026-11-22 21:00:00 开始监视。"),
        "{page}"
    );
    let _ = child.kill();
    let _ = child.wait();
}

/// Issue 22: a full scan reads the API in pages of `full_scan_posts_per_page` (Discuz's API
/// takes any size): the close's re-read of the captured thread is one request, not four, and
/// the reads in between go on from the right page at their own size — a ballot posted after
/// the close's scan is found by the next read, and the final is the same as with small pages.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_scan_reads_large_pages_and_the_reads_after_it_go_on_from_the_right_page() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().honour_ppp = true;
    forum.lock().unwrap().at = 1795924800; // 12:00
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    // Read in between at 10 posts a page (the setup's), full scans at 500.
    let r = cycle_at(&config, "2026-11-29 12:00:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    {
        let f = forum.lock().unwrap();
        assert_eq!(
            f.ppp_log,
            vec![(1, 500)],
            "the first read is a full scan, one page of 500"
        );
    }
    forum.lock().unwrap().ppp_log.clear();
    forum.lock().unwrap().at = 1795953600; // 20:00, the lock: a full scan again
    let r = cycle_at(&config, "2026-11-29 20:00:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    forum.lock().unwrap().ppp_log.clear();
    forum.lock().unwrap().at = 1795955400; // 20:30: a read from the last page at 10 a page
    let r = cycle_at(&config, "2026-11-29 20:30:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    {
        let f = forum.lock().unwrap();
        // The read starts from the page of 10 the last post seen at 20:00 is on.
        let by_eight = f
            .posts
            .iter()
            .filter(|p| p["dbdateline"].as_str().unwrap().parse::<i64>().unwrap() <= 1795953600)
            .count();
        let page = by_eight.div_ceil(10);
        assert!(page > 1);
        assert_eq!(f.ppp_log.first(), Some(&(page, 10)), "{:?}", f.ppp_log);
        assert!(f.ppp_log.iter().all(|(_, p)| *p == 10), "{:?}", f.ppp_log);
    }
    forum.lock().unwrap().at = 1795957560; // 21:06
    let r = cycle_at(&config, "2026-11-29 21:06:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let finals = mails_about(&mailbox, "最终计票");
    assert_eq!(finals.len(), 1, "{:?}", subject_lines(&mailbox));
    assert!(finals[0].0.contains("李逵 以 4 票最高"), "{}", finals[0].0);
    // Every ballot of the captured day is in it, as with small pages (day.rs's first test).
    assert!(
        finals[0]
            .1
            .contains("李逵 4 票：yucca（9#）、大灰狼（10#）、雪罂子（27#）、花千树（32#）"),
        "{}",
        finals[0].1
    );
}

/// Issue 29 item 4: what a voter whose ballot is void may still do is a judge's hint of the
/// moment — open, in the lock (m103 L249 "白天结束前一个小时不得改票": the lock forbids changes,
/// not a first ballot), or closed (nothing). The BBCode the judge pastes tells players none of
/// it, in the lock mail as in the final; the judge's HTML and dashboard say what the lock
/// allows, not what was possible when the ballot was posted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_voter_may_still_do_follows_the_phase_and_stays_out_of_the_bbcode() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let hints = [
        "重新投票",
        "改票须在",
        "不能再改票",
        "仍可",
        "锁定时段只禁止",
    ];
    let public = |what: &str, text: &str| {
        for h in hints {
            assert!(!text.contains(h), "{what} tells players {h:?}:\n{text}");
        }
    };
    let mail = |needle: &str| {
        mailbox
            .mails
            .lock()
            .unwrap()
            .iter()
            .find(|m| summary(m).1.contains(needle))
            .cloned()
            .unwrap_or_else(|| panic!("no mail {needle:?}: {:#?}", subject_lines(&mailbox)))
    };
    let bbcode_of = |m: &str| {
        let f = files(m)
            .into_iter()
            .find(|f| f.0.ends_with(".txt"))
            .expect("the BBCode attachment");
        String::from_utf8(f.2).unwrap()
    };
    cycles(
        &config,
        &forum,
        &[
            ("2026-11-29 12:00:00", 1795924800),
            ("2026-11-29 20:01:00", 1795953660),
        ],
    )
    .await;

    // 20:01, in the lock: 26# 超人 (19:45, "如要改票须在 20:00 前" then) can no longer change;
    // 11# 雪罂子 has no valid ballot yet (27# comes at 20:05) and may still cast one.
    let lock = mail("进入截止前锁定时段");
    public("the lock mail's BBCode", &bbcode_of(&lock));
    public("the lock mail's text", &body(&lock));
    let judge = html(&lock);
    assert!(
        !judge.contains("如要改票须在"),
        "a hint of before the lock: {judge}"
    );
    assert!(
        judge.contains(
            "锁定时段（20:00:00 起）只禁止改票：尚无有效投票，仍可在截止（11-29 21:00:00）前投票"
        ),
        "11# 雪罂子: {judge}"
    );
    assert!(
        judge.contains("现有投票（6#）仍有效，已进入锁定时段（20:00:00 起不得改票），不能再改票"),
        "26# 超人: {judge}"
    );

    // 20:30, the dashboard in the lock: 雪罂子 has voted (27#) and can no longer change.
    forum.lock().unwrap().at = 1795955400; // 20:30:00
    let port = pin_status_port(&config);
    let (mut child, _) = start_service(&config, Some("2026-11-29 20:30:00")).await;
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    let _ = child.kill();
    let _ = child.wait();
    assert!(page.contains("逐票明细与裁定"), "{page}");
    assert!(!page.contains("如要改票须在"), "{page}");
    assert!(!page.contains("重新投票"), "{page}");
    assert!(
        page.contains("现有投票（27#）仍有效，已进入锁定时段（20:00:00 起不得改票），不能再改票"),
        "11# 雪罂子 at 20:30: {page}"
    );
    let bb = page
        .split("<textarea id=\"bbcode-day-2\"")
        .nth(1)
        .and_then(|s| s.split("</textarea>").next())
        .expect("the dashboard's BBCode");
    public("the dashboard's BBCode", bb);

    // 21:06, after the close: no hint anywhere, for the players or the judge.
    cycles(&config, &forum, &[("2026-11-29 21:06:00", 1795957560)]).await;
    let fin = mail("最终计票");
    public("the final's BBCode", &bbcode_of(&fin));
    public("the final's text", &body(&fin));
    public("the final's HTML", &html(&fin));
}
