//! The night through the daemon (issue 31): a chuhan night whose actions arrive as private
//! messages in the judge's replayed inbox; one digest of what arrived; the draft at the
//! deadline; nothing written until the judge confirms on the dashboard; then the next day's
//! tally carries the 士's curse and blessing (000 L80 "诅咒…得票数+1", L82 "庇佑…得票数-1",
//! round 1 only, L114) with no `curse =` / `bless =` in the config.

use crate::ballot_sources::{Inbox, Message};
use crate::support::*;
use std::sync::{Arc, Mutex};
use wiremock::matchers::{method, path, query_param};
use wiremock::Mock;

/// A chuhan game of days 2 and 3 with a 左士, a 右士 and a 兵, whose night 2's actions are
/// due at 07:00 (600 minutes after day 2's 21:00 close).
fn chuhan_night_game(dir: &std::path::Path) -> std::path::PathBuf {
    let game = dir.join("games/banshayishi-12.toml");
    std::fs::write(
        &game,
        format!(
            "ruleset = \"chuhan\"\nname = \"楚汉局\"\nid = \"ch\"\n{}\n\
             [roster.roles]\n\"大灰狼\" = {{ role = \"左士\", faction = \"楚\" }}\n\
             \"小飞\" = {{ role = \"右士\", faction = \"汉\" }}\n\
             \"不见\" = {{ role = \"兵\", faction = \"楚\" }}\n\
             [[days]]\nday = 2\nvote_thread = 3\ncloses_at = \"2026-11-29 21:00:00\"\n\
             dead = [\"龙舌\", \"青鸾花\"]\n\
             [[days]]\nday = 3\nvote_thread = 4\nopens_at = \"2026-11-30 09:00:00\"\n\
             closes_at = \"2026-11-30 21:00:00\"\n\
             [rules.night]\ndeadline_after_close_minutes = 600\n",
            crate::common::ROSTER
        ),
    )
    .unwrap();
    game
}

/// `chuhan_night_game` with the judge's inbox served by `inbox`, run to day 2's final (21:00):
/// the daemon's config, the dashboard's port and the game config.
async fn chuhan_day_two_closed(
    server: &wiremock::MockServer,
    forum: &Arc<Mutex<Forum>>,
    smtp_port: u16,
    dir: &std::path::Path,
    inbox: impl wiremock::Respond + 'static,
) -> (std::path::PathBuf, u16, std::path::PathBuf) {
    Mock::given(method("GET"))
        .and(path("/api/mobile/index.php"))
        .and(query_param("module", "mypm"))
        .respond_with(inbox)
        .mount(server)
        .await;
    let config = setup(dir, &server.uri(), smtp_port);
    let port = pin_status_port(&config);
    let game = chuhan_night_game(dir);
    forum.lock().unwrap().at = unix("2026-11-29 21:00") + 5;
    let r = cycle_at(&config, "2026-11-29 21:00:05").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    (config, port, game)
}

/// The judge clicks "确认第 2 天结果" on the dashboard (no pardon to ask about).
fn confirm_day_two(port: u16) {
    confirm_day(port, 2);
}

/// The judge clicks "确认第 N 天结果" on the dashboard (no pardon to ask about).
fn confirm_day(port: u16, day: u32) {
    let body = format!(r#"{{"game":"楚汉局","day":{day},"no_pardon":true}}"#);
    let answer = tokio::task::block_in_place(|| post_json(port, "/confirm", &body));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

/// Day 3's close (21:00) run: its final's text.
async fn day_three_closed(
    config: &std::path::Path,
    forum: &Arc<Mutex<Forum>>,
    mailbox: &Mailbox,
) -> String {
    forum.lock().unwrap().at = unix("2026-11-30 21:00") + 5;
    let r = cycle_at(config, "2026-11-30 21:00:05").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    final_texts(mailbox)
        .into_iter()
        .find(|t| t.contains("第3天"))
        .expect("day 3's final")
}

fn unix(t: &str) -> i64 {
    chrono::DateTime::parse_from_str(&format!("{t} +0800"), "%Y-%m-%d %H:%M %z")
        .unwrap()
        .timestamp()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chuhan_night_from_the_inbox_is_drafted_confirmed_and_carried_into_the_next_tally() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let night: Vec<Message> = vec![
        // 左士 大灰狼 curses 冷雪; 右士 小飞 blesses 花千树; 不见 writes something else.
        ("大灰狼", unix("2026-11-29 22:00"), "诅咒：冷雪"),
        ("小飞", unix("2026-11-29 22:10"), "庇佑：花千树"),
        (
            "不见",
            unix("2026-11-29 22:20"),
            "法官晚上好，今晚我没有行动",
        ),
    ];
    let inbox = Arc::new(Mutex::new(Vec::new()));
    let dir = tempfile::tempdir().unwrap();
    let (config, port, game) =
        chuhan_day_two_closed(&server, &forum, smtp_port, dir.path(), Inbox(inbox.clone())).await;

    inbox.lock().unwrap().extend(night);
    let r = cycle_at(&config, "2026-11-29 22:30:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let digests = mails_about(&mailbox, "第2夜 已收到");
    assert_eq!(digests.len(), 1, "{:?}", subject_lines(&mailbox));
    assert!(digests[0].1.contains("诅咒"), "{}", digests[0].1);
    assert!(
        digests[0].1.contains("不见：法官晚上好，今晚我没有行动"),
        "a message that reads as no action is listed: {}",
        digests[0].1
    );
    // Nothing new: no second digest.
    cycle_at(&config, "2026-11-29 23:00:00").await;
    assert_eq!(mails_about(&mailbox, "第2夜 已收到").len(), 1);
    // Half an hour before the deadline: the living roles that sent nothing (不见's message read
    // as no action), once.
    for t in ["2026-11-30 06:40:00", "2026-11-30 06:45:00"] {
        cycle_at(&config, t).await;
    }
    let reminders = mails_about(&mailbox, "第2夜 还有");
    assert_eq!(reminders.len(), 1, "{:?}", subject_lines(&mailbox));
    assert!(
        reminders[0].0.contains("还有 1 人没有行动"),
        "{}",
        reminders[0].0
    );
    assert!(reminders[0].1.contains("：不见。"), "{}", reminders[0].1);
    // The judge confirms day 2 (李逵 out) on the dashboard: the night is resolved on it.
    let (mut child, _) = start_service(&config, Some("2026-11-30 06:50:00")).await;
    confirm_day_two(port);
    child.kill().unwrap();
    child.wait().unwrap();
    // At the deadline (07:00): the draft.
    cycle_at(&config, "2026-11-30 07:00:05").await;
    let drafts = mails_about(&mailbox, "第2夜结算草稿");
    assert_eq!(drafts.len(), 1, "{:?}", subject_lines(&mailbox));
    let state = game.with_file_name("banshayishi-12.state.json");
    let before = std::fs::read_to_string(&state).unwrap_or_default();
    assert!(
        !before.contains("adjust:"),
        "not written before the judge confirms"
    );

    // Confirmed on the dashboard.
    let (mut child, _) = start_service(&config, Some("2026-11-30 07:10:00")).await;
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    assert!(page.contains("确认第 2 夜结算"), "{page}");
    // The judge enters an action that reached him by QQ, then clicks the confirm button, in
    // headless Chromium.
    tokio::task::block_in_place(|| {
        let mut b = crate::browser::Browser::launch(&dir.path().join("cdp"));
        let ready = "[...document.querySelectorAll('button')].some(x => x.textContent.includes('确认第 2 夜结算'))";
        b.open(&format!("http://127.0.0.1:{port}/"), ready);
        b.eval(
            "var f = document.querySelector('form.night-add'); f.by.value = '不见'; \
             f.power.value = '祈祷'; f.target.value = '不见'; f.querySelector('button').click()",
        );
        b.wait(
            "[...document.querySelectorAll('section.night li')].some(x => x.textContent.includes('祈祷'))",
            std::time::Duration::from_secs(20),
        );
        if let Ok(dir) = std::env::var("BANSHA_SCREENSHOTS") {
            b.screenshot(&std::path::Path::new(&dir).join("dashboard-night.png"));
        }
        b.eval("[...document.querySelectorAll('button')].find(x => x.textContent.includes('确认第 2 夜结算')).click()");
        b.wait(
            "document.body.innerText.includes('已确认，已写入局面') || !document.body.innerText.includes('确认第 2 夜结算')",
            std::time::Duration::from_secs(20),
        );
    });
    let after = std::fs::read_to_string(&state).unwrap();
    assert!(after.contains("adjust:3:冷雪"), "{after}");
    assert!(after.contains("adjust:3:花千树"), "{after}");

    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    assert!(!page.contains("确认第 2 夜结算"), "confirmed once: {page}");
    child.kill().unwrap();
    child.wait().unwrap();

    // Day 3's final: 李逵 +1, 花千树 −1 (never below 0), from the night.
    let day3 = day_three_closed(&config, &forum, &mailbox).await;
    assert!(day3.contains("诅咒"), "{day3}");
    assert!(day3.contains("冷雪"), "{day3}");
}

/// m103 starts with a night (002 L223 "直接入夜", before L230 "开始第一天讨论日"): night 0 is
/// open in the daemon before day 1, with the 红娘's 红线 of the game's start (L142, L222); the
/// judge enters what reached him by QQ (L215) on the dashboard and confirms it; its deaths are
/// in the state before day 1 opens.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn m103_night_zero_is_open_before_day_one_and_confirmed_on_the_dashboard() {
    let (_mailbox, smtp_port) = smtp();
    let (server, _forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let port = pin_status_port(&config);
    // The 14 seats of 002 L12–L13.
    let seats = [
        ("阿大", "卧底刺客", "杀了狗皇帝"),
        ("阿二", "卧底刺客", "杀了狗皇帝"),
        ("阿三", "卧底刺客", "杀了狗皇帝"),
        ("阿四", "卧底刺客", "杀了狗皇帝"),
        ("小明", "大内密探", "我爱皇帝"),
        ("小红", "妙手太医", "我爱皇帝"),
        ("小刚", "御前侍卫", "我爱皇帝"),
        ("小强", "东宫太子", "我爱皇帝"),
        ("小美", "牵线红娘", "我爱皇帝"),
        ("春桃", "绝色宠妃", "我爱皇帝"),
        ("夏荷", "绝色宠妃", "我爱皇帝"),
        ("秋菊", "绝色宠妃", "我爱皇帝"),
        ("冬梅", "绝色宠妃", "我爱皇帝"),
        ("老王", "至尊帝王", "我爱皇帝"),
    ];
    let names: Vec<String> = seats.iter().map(|(p, _, _)| format!("\"{p}\"")).collect();
    let mut text = format!(
        "ruleset = \"m103\"\nname = \"首夜局\"\nid = \"m0\"\n[roster]\nplayers = [{}]\njudges = [\"版杀一室法官\"]\n[roster.roles]\n",
        names.join(", ")
    );
    for (p, role, faction) in seats {
        text += &format!("\"{p}\" = {{ role = \"{role}\", faction = \"{faction}\" }}\n");
    }
    text += "[[days]]\nday = 1\nvote_thread = 3\nopens_at = \"2026-11-28 09:00:00\"\ncloses_at = \"2026-11-28 21:00:00\"\n";
    let game = dir.path().join("games/banshayishi-12.toml");
    std::fs::write(&game, text).unwrap();

    let (mut child, _) = start_service(&config, Some("2026-11-27 22:00:00")).await;
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    assert!(page.contains("首夜局 第0夜"), "{page}");
    // Not confirmable while a power is still within its limit (due when day 1 opens, the
    // 太医's 30 minutes after that, L238).
    let body = r#"{"game":"首夜局","night":0,"action":"confirm"}"#;
    let answer = tokio::task::block_in_place(|| post_json(port, "/night", body));
    assert!(answer.starts_with("HTTP/1.1 409"), "{answer}");
    child.kill().unwrap();
    child.wait().unwrap();
    // The morning of day 1, past every limit: still open until day 1's close.
    let (mut child, _) = start_service(&config, Some("2026-11-28 09:35:00")).await;
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    assert!(page.contains("首夜局 第0夜"), "{page}");
    for (by, power, target) in [("小美", "红线", "阿四、春桃"), ("阿大", "杀人", "夏荷")]
    {
        let body = serde_json::json!({"game": "首夜局", "night": 0, "action": "add", "by": by, "power": power, "target": target});
        let answer = tokio::task::block_in_place(|| post_json(port, "/night", &body.to_string()));
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    }
    let body = r#"{"game":"首夜局","night":0,"action":"confirm"}"#;
    let answer = tokio::task::block_in_place(|| post_json(port, "/night", body));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("首夜"), "{answer}");
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    assert!(!page.contains("首夜局 第0夜"), "confirmed once: {page}");
    child.kill().unwrap();
    child.wait().unwrap();
    let state = std::fs::read_to_string(game.with_file_name("banshayishi-12.state.json")).unwrap();
    assert!(state.contains("夏荷"), "the night's kill: {state}");
    assert!(state.contains("情侣"), "the lovers of the 红线: {state}");
}

/// The judge's inbox, failing (503) while `down` is set: a forum that cannot be read.
struct FlakyInbox(Inbox, Arc<std::sync::atomic::AtomicBool>);
impl wiremock::Respond for FlakyInbox {
    fn respond(&self, req: &wiremock::Request) -> wiremock::ResponseTemplate {
        if self.1.load(std::sync::atomic::Ordering::SeqCst) {
            return wiremock::ResponseTemplate::new(503);
        }
        self.0.respond(req)
    }
}

/// A night is resolved on the game as it stands at dusk, and from every message sent before
/// its deadline. So neither its draft nor its confirmation may come (a) while the inbox has not
/// been read since the deadline (a message sent in the night's last minutes may be unread: the
/// draft would be built from a reading bansha cannot vouch for), nor (b) while the day's own
/// vote-out is not in the state (the resolver would take him for alive at night: 000 L99 powers
/// are those of the living). And (c) a confirmation is written once, even when the store lost
/// its note of it in a crash after the state was written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_night_waits_for_an_inbox_read_after_its_deadline_and_for_its_days_result() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let inbox = Arc::new(Mutex::new(Vec::new()));
    let down = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let dir = tempfile::tempdir().unwrap();
    let (config, port, game) = chuhan_day_two_closed(
        &server,
        &forum,
        smtp_port,
        dir.path(),
        FlakyInbox(Inbox(inbox.clone()), down.clone()),
    )
    .await;
    let out = final_texts(&mailbox)
        .into_iter()
        .find(|t| t.contains("第2天"))
        .expect("day 2's final");
    assert!(out.contains("出局"), "day 2 puts someone out: {out}");

    inbox
        .lock()
        .unwrap()
        .push(("大灰狼", unix("2026-11-29 22:00"), "诅咒：李逵"));
    cycle_at(&config, "2026-11-29 22:30:00").await;
    // 06:59: 小飞's blessing, sent a minute before the deadline; the inbox cannot be read from
    // 06:58 until after the deadline.
    cycle_at(&config, "2026-11-30 06:58:00").await;
    down.store(true, std::sync::atomic::Ordering::SeqCst);
    inbox
        .lock()
        .unwrap()
        .push(("小飞", unix("2026-11-30 06:59"), "庇佑：花千树"));
    cycle_at(&config, "2026-11-30 07:00:05").await;
    assert!(
        mails_about(&mailbox, "第2夜结算草稿：").is_empty(),
        "no draft before the inbox is read after the deadline: {:?}",
        subject_lines(&mailbox)
    );
    let (mut child, _) = start_service(&config, Some("2026-11-30 07:10:00")).await;
    let confirm_night = r#"{"game":"楚汉局","night":2,"action":"confirm"}"#;
    let answer = tokio::task::block_in_place(|| post_json(port, "/night", confirm_night));
    assert!(answer.starts_with("HTTP/1.1 409"), "{answer}");
    assert!(answer.contains("站内信"), "says why: {answer}");
    child.kill().unwrap();
    child.wait().unwrap();

    // The inbox is read again, but day 2's result is not confirmed yet: the night waits for
    // it, and the judge is told so once.
    down.store(false, std::sync::atomic::Ordering::SeqCst);
    cycle_at(&config, "2026-11-30 07:20:00").await;
    cycle_at(&config, "2026-11-30 07:21:00").await;
    assert!(mails_about(&mailbox, "第2夜结算草稿：").is_empty());
    let waits = mails_about(&mailbox, "第2夜结算草稿要等一等");
    assert_eq!(waits.len(), 1, "{:?}", subject_lines(&mailbox));
    assert!(waits[0].1.contains("请先确认第2天"), "{}", waits[0].1);
    let (mut child, _) = start_service(&config, Some("2026-11-30 07:25:00")).await;
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    assert!(
        page.contains("还不能结算：第2天的结果") && page.contains("请先确认第2天"),
        "the dashboard says what the night waits for: {page}"
    );
    if let Ok(d) = std::env::var("BANSHA_SCREENSHOTS") {
        let body = page.split_once("\r\n\r\n").map_or(page.as_str(), |x| x.1);
        std::fs::write(
            std::path::Path::new(&d).join("dashboard-night-waits.html"),
            body,
        )
        .unwrap();
    }
    let answer = tokio::task::block_in_place(|| post_json(port, "/night", confirm_night));
    assert!(answer.starts_with("HTTP/1.1 409"), "{answer}");
    assert!(answer.contains("请先确认第2天"), "says why: {answer}");
    confirm_day_two(port);
    child.kill().unwrap();
    child.wait().unwrap();
    // Now the draft, with the blessing sent in the night's last minute.
    cycle_at(&config, "2026-11-30 07:26:00").await;
    let drafts = mails_about(&mailbox, "第2夜结算草稿：");
    assert_eq!(drafts.len(), 1, "{:?}", subject_lines(&mailbox));
    assert!(drafts[0].1.contains("花千树"), "{}", drafts[0].1);

    // (c) The judge confirms; the machine then loses the store's last writes (a crash before
    // they reached the disk): the store is put back as it was before the click.
    let store = dir.path().join("state");
    let saved = dir.path().join("state-before-click");
    copy_dir(&store, &saved);
    let (mut child, _) = start_service(&config, Some("2026-11-30 07:30:00")).await;
    let answer = tokio::task::block_in_place(|| post_json(port, "/night", confirm_night));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    child.kill().unwrap();
    child.wait().unwrap();
    let state_file = game.with_file_name("banshayishi-12.state.json");
    let once = std::fs::read_to_string(&state_file).unwrap();
    assert!(once.contains("adjust:3:花千树"), "{once}");
    std::fs::remove_dir_all(&store).unwrap();
    copy_dir(&saved, &store);
    let (mut child, _) = start_service(&config, Some("2026-11-30 07:40:00")).await;
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    assert!(!page.contains("确认第 2 夜结算"), "confirmed once: {page}");
    let answer = tokio::task::block_in_place(|| post_json(port, "/night", confirm_night));
    assert!(!answer.starts_with("HTTP/1.1 200"), "{answer}");
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(std::fs::read_to_string(&state_file).unwrap(), once);
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// A night the judge has not confirmed by the next day's close stays open (on the dashboard, to
/// confirm) instead of leaving unseen: its deaths and its 诅咒 / 庇佑 were never written, and the
/// next day's final was counted without them. Confirmed then, it is written at its deadline and
/// the next day's final is made again, corrected (000 L80: 左士's 诅咒 +1 on day 3's round 1).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_night_not_confirmed_by_the_next_close_stays_open_and_corrects_that_final() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let inbox = Arc::new(Mutex::new(Vec::new()));
    let dir = tempfile::tempdir().unwrap();
    let (config, port, game) =
        chuhan_day_two_closed(&server, &forum, smtp_port, dir.path(), Inbox(inbox.clone())).await;
    inbox
        .lock()
        .unwrap()
        .push(("大灰狼", unix("2026-11-29 22:00"), "诅咒：冷雪"));
    cycle_at(&config, "2026-11-29 22:30:00").await;
    let (mut child, _) = start_service(&config, Some("2026-11-30 06:50:00")).await;
    confirm_day_two(port);
    child.kill().unwrap();
    child.wait().unwrap();
    cycle_at(&config, "2026-11-30 07:00:05").await;
    assert_eq!(mails_about(&mailbox, "第2夜结算草稿：").len(), 1);

    // Day 3 closes with night 2 unconfirmed: its final has no curse.
    let day3 = day_three_closed(&config, &forum, &mailbox).await;
    assert!(!day3.contains("诅咒"), "{day3}");

    // The next morning night 2 is still on the dashboard, saying what its lateness did, and
    // is confirmed before night 3 (whose dusk depends on it), as days are.
    let (mut child, _) = start_service(&config, Some("2026-12-01 09:00:00")).await;
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    assert!(page.contains("确认第 2 夜结算"), "{page}");
    assert!(page.contains("第3天的统计没有计入这一夜"), "{page}");
    if let Ok(d) = std::env::var("BANSHA_SCREENSHOTS") {
        let body = page.split_once("\r\n\r\n").map_or(page.as_str(), |x| x.1);
        std::fs::write(
            std::path::Path::new(&d).join("dashboard-night-overdue.html"),
            body,
        )
        .unwrap();
    }
    // Day 3 (nobody out) is not confirmed "局面不变" while night 2 is open: its final is about
    // to change (below).
    let answer = tokio::task::block_in_place(|| {
        post_json(
            port,
            "/confirm",
            r#"{"game":"楚汉局","day":3,"no_pardon":true}"#,
        )
    });
    assert!(answer.starts_with("HTTP/1.1 409"), "{answer}");
    assert!(answer.contains("请先确认第2夜"), "{answer}");
    let answer = tokio::task::block_in_place(|| {
        post_json(
            port,
            "/night",
            r#"{"game":"楚汉局","night":3,"action":"confirm"}"#,
        )
    });
    assert!(answer.starts_with("HTTP/1.1 409"), "{answer}");
    assert!(answer.contains("请先确认第2夜"), "{answer}");
    let confirm_night = r#"{"game":"楚汉局","night":2,"action":"confirm"}"#;
    let answer = tokio::task::block_in_place(|| post_json(port, "/night", confirm_night));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    child.kill().unwrap();
    child.wait().unwrap();
    let state = std::fs::read_to_string(game.with_file_name("banshayishi-12.state.json")).unwrap();
    assert!(state.contains("adjust:3:冷雪"), "{state}");
    // Day 3's final again, corrected, with the curse.
    cycle_at(&config, "2026-12-01 09:10:00").await;
    let corrected: Vec<String> = final_texts(&mailbox)
        .into_iter()
        .filter(|t| t.contains("第3天") && t.contains("诅咒"))
        .collect();
    assert_eq!(corrected.len(), 1, "{:?}", subject_lines(&mailbox));
    assert!(
        subject_lines(&mailbox)
            .iter()
            .any(|s| s.contains("第3天") && s.contains("更正后")),
        "{:?}",
        subject_lines(&mailbox)
    );
}
