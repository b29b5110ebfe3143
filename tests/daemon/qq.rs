//! QQ through a OneBot 11 bot (issue 35), end to end: the real binary against the replay forum,
//! the SMTP server and a OneBot 11 HTTP API on loopback (wiremock) that answers as the
//! specification says (communication/http.md: 200 with `{status, retcode, data}`; `failed` with
//! a retcode other than 0 and 1), or late, or not at all; and the bot's event POSTs, signed as
//! communication/http-post.md says (`X-Signature: sha1=<HMAC-SHA1 of the body>`).

use crate::support::*;

/// How the bot answers.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Ok,
    /// `send_group_msg` fails (`status: failed`, retcode 100: the bot is not in the group).
    FailGroup,
    /// Every action fails (retcode 100).
    Fail,
    /// The answer comes after the daemon's timeout (the bot got the request).
    Late,
}

#[derive(Clone)]
struct Bot {
    mode: Arc<Mutex<Mode>>,
    /// The messages the bot took (answered `ok`, or would have, late): (action, target, text).
    took: Arc<Mutex<Vec<(String, u64, String)>>>,
}

impl Respond for Bot {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let mode = *self.mode.lock().unwrap();
        let failed = serde_json::json!({"status": "failed", "retcode": 100, "data": null, "message": "not in group"});
        let ok = serde_json::json!({"status": "ok", "retcode": 0, "data": {"message_id": 1}});
        if req
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            != Some("Bearer bot-token")
        {
            return ResponseTemplate::new(401);
        }
        if req.url.path().ends_with("get_login_info") {
            return ResponseTemplate::new(200).set_body_json(serde_json::json!({
                "status": "ok", "retcode": 0, "data": {"user_id": 42, "nickname": "裁判机器人"}
            }));
        }
        let refused = mode == Mode::Fail
            || (mode == Mode::FailGroup && req.url.path().ends_with("send_group_msg"));
        if !refused {
            self.took.lock().unwrap().push(message(req));
        }
        match mode {
            Mode::Ok => ResponseTemplate::new(200).set_body_json(ok),
            Mode::Fail => ResponseTemplate::new(200).set_body_json(failed),
            Mode::FailGroup if req.url.path().ends_with("send_group_msg") => {
                ResponseTemplate::new(200).set_body_json(failed)
            }
            Mode::FailGroup => ResponseTemplate::new(200).set_body_json(ok),
            Mode::Late => ResponseTemplate::new(200)
                .set_body_json(ok)
                .set_delay(std::time::Duration::from_millis(2500)),
        }
    }
}

type Took = Arc<Mutex<Vec<(String, u64, String)>>>;

async fn bot() -> (MockServer, Arc<Mutex<Mode>>, Took) {
    let server = MockServer::start().await;
    let mode = Arc::new(Mutex::new(Mode::Ok));
    let took = Took::default();
    Mock::given(method("POST"))
        .respond_with(Bot {
            mode: mode.clone(),
            took: took.clone(),
        })
        .mount(&server)
        .await;
    (server, mode, took)
}

/// A request to the bot as (action, target, text).
fn message(r: &Request) -> (String, u64, String) {
    let v: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(v["auto_escape"], true, "sent as plain text");
    let target = v["user_id"].as_u64().or(v["group_id"].as_u64()).unwrap();
    (
        r.url.path().trim_start_matches('/').to_string(),
        target,
        v["message"].as_str().unwrap().to_string(),
    )
}

/// What the bot was asked to send, in order, taken or not.
async fn asked(server: &MockServer) -> Vec<(String, u64, String)> {
    server
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(message)
        .collect()
}

fn secret_file(dir: &Path, name: &str, text: &str) {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
}

/// `[qq]` added to the test config: the bot at `api`, judge 10001, group 20002.
fn with_qq(config: &Path, api: &str, extra: &str) {
    let dir = config.parent().unwrap();
    secret_file(dir, "qq-token", "bot-token\n");
    secret_file(dir, "qq-secret", "event-secret\n");
    let text = std::fs::read_to_string(config).unwrap().replace(
        "[[games]]",
        &format!(
            "[qq]\napi = \"{api}\"\naccess_token_file = \"qq-token\"\nevent_secret_file = \"qq-secret\"\njudges = [10001]\ngroup = 20002\ntimeout_secs = 1\nalert_after = 2\n{extra}\n[[games]]"
        ),
    );
    std::fs::write(config, text).unwrap();
}

fn set_api(config: &Path, api: &str) {
    let text = std::fs::read_to_string(config).unwrap();
    let re = regex::Regex::new(r#"(?m)^api = ".*"$"#).unwrap();
    std::fs::write(
        config,
        re.replace(&text, format!("api = \"{api}\"")).as_ref(),
    )
    .unwrap();
}

/// A loopback address nothing listens on: the bot down.
fn nobody() -> String {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    format!("http://127.0.0.1:{port}/")
}

/// The final tally goes to the judge's QQ (short, with the dashboard link) and, as the BBCode
/// the rules publish only, to the group. A bot that is down holds the QQ messages, never the
/// mail; failing twice in a row is mailed to the judge once; a failed retcode for the group
/// holds the group's message only; each message reaches the bot once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn qq_down_holds_no_mail_and_each_message_reaches_the_judge_once() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let (onebot, mode, took) = bot().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    with_qq(&config, &nobody(), "send = [\"final\"]");
    forum.lock().unwrap().at = 1795957560;
    let r = cycle_at(&config, "2026-11-29 21:06:00").await;
    assert_eq!(
        final_texts(&mailbox).len(),
        1,
        "the mail goes with the bot down: {r}"
    );
    assert_eq!(r["qq_sent"], 0, "{r}");
    assert!(
        r["qq_waiting"].as_u64().unwrap() >= 2,
        "judge and group wait: {r}"
    );
    assert!(r["errors"].to_string().contains("连不上 QQ 机器人"), "{r}");
    // The bot is up but fails every action (retcode 100): the second failure in a row is told
    // to the judge, by mail, once, and shown by `bansha status` and the dashboard.
    set_api(&config, &onebot.uri());
    *mode.lock().unwrap() = Mode::Fail;
    let r = cycle_at(&config, "2026-11-29 21:08:00").await;
    assert!(r["errors"].to_string().contains("retcode 100"), "{r}");
    let port = pin_status_port(&config);
    let (service, status) = start_service(&config, Some("2026-11-29 21:09:00")).await;
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    drop(service);
    assert!(status.contains("QQ 发送连续失败"), "{status}");
    assert!(page.contains("QQ 发送连续失败"), "on the dashboard");
    assert!(took.lock().unwrap().is_empty());
    // The bot is in order, but not in the group: the judge's message goes, the group's waits.
    *mode.lock().unwrap() = Mode::FailGroup;
    let r = cycle_at(&config, "2026-11-29 21:10:00").await;
    let told = mails_about(&mailbox, "QQ 发不出去了");
    assert_eq!(told.len(), 1, "{r}\n{:?}", subject_lines(&mailbox));
    assert!(told[0].1.contains("邮件照常发送"), "{}", told[0].1);
    assert_eq!(r["qq_waiting"], 1, "the group's message waits: {r}");
    let got = took.lock().unwrap().clone();
    assert_eq!(got.len(), 1, "{got:?}");
    let (action, to, p) = &got[0];
    assert_eq!((action.as_str(), *to), ("send_private_msg", 10001));
    assert!(p.starts_with("【bansha】"), "{p}");
    assert!(p.contains("最终计票"), "{p}");
    assert!(p.contains("仪表盘：http://127.0.0.1:"), "{p}");
    // The group takes it now: the tally as published, nothing judge-only.
    *mode.lock().unwrap() = Mode::Ok;
    cycle_at(&config, "2026-11-29 21:12:00").await;
    let r = cycle_at(&config, "2026-11-29 21:14:00").await;
    assert_eq!(r["qq_waiting"], 0, "{r}");
    let got = took.lock().unwrap().clone();
    assert_eq!(got.len(), 2, "each message taken once: {got:?}");
    let (action, to, g) = &got[1];
    assert_eq!((action.as_str(), *to), ("send_group_msg", 20002));
    assert!(
        !g.contains("[b]") && !g.contains("仪表盘") && !g.contains("【bansha】"),
        "{g}"
    );
    assert!(g.contains("李逵 4 票"), "{g}");
    // The streak ended: no longer shown.
    let (service, status) = start_service(&config, Some("2026-11-29 21:15:00")).await;
    drop(service);
    assert!(
        !status.is_empty() && !status.contains("QQ 发送连续失败"),
        "{status}"
    );
    assert_eq!(mails_about(&mailbox, "QQ 发不出去了").len(), 1);
    assert_eq!(final_texts(&mailbox).len(), 1);
}

/// OneBot has no idempotency key: when the bot takes a message but its answer comes after the
/// daemon's timeout, the message stays queued and goes again at the next cycle — one repeat,
/// then never again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn a_timeout_after_the_bot_took_a_message_costs_one_repeat() {
    let (_mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let (onebot, mode, took) = bot().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    with_qq(&config, &onebot.uri(), "send = [\"final\"]");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("group = 20002\n", "");
    std::fs::write(&config, text).unwrap();
    forum.lock().unwrap().at = 1795957560;
    *mode.lock().unwrap() = Mode::Late;
    let r = cycle_at(&config, "2026-11-29 21:06:00").await;
    assert!(r["errors"].to_string().contains("没有及时回答"), "{r}");
    assert_eq!(asked(&onebot).await.len(), 1, "the bot got it");
    *mode.lock().unwrap() = Mode::Ok;
    let r = cycle_at(&config, "2026-11-29 21:08:00").await;
    assert_eq!(r["qq_sent"], 1, "{r}");
    cycle_at(&config, "2026-11-29 21:10:00").await;
    let got = asked(&onebot).await;
    assert_eq!(got.len(), 2, "one repeat, no more: {got:?}");
    assert_eq!(got[0], got[1]);
    assert_eq!(
        *took.lock().unwrap(),
        got,
        "the bot took both: the judge reads it twice"
    );
}

fn event(user: u64, at: i64, id: i64, text: &str) -> String {
    serde_json::json!({
        "time": at, "self_id": 1, "post_type": "message", "message_type": "private",
        "sub_type": "friend", "message_id": id, "user_id": user, "message": text,
        "raw_message": text, "font": 0, "sender": {"user_id": user, "nickname": "x"}
    })
    .to_string()
}

fn post_event(port: u16, body: &str, signature: Option<&str>) -> String {
    let sig = signature
        .map(|s| format!("X-Signature: {s}\r\n"))
        .unwrap_or_default();
    raw_http(
        port,
        &format!(
            "POST /onebot HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nX-Self-ID: 1\r\n{sig}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    )
}

fn signed(body: &str) -> String {
    bansha::domain::qq::sign(b"event-secret", body.as_bytes())
}

/// The bot's events: a missing or wrong signature is refused (401, 403); a bansha42 player's
/// "票×××" by QQ (004 L76) counts in the tally at the time it was sent, and one after 20:40 is
/// refused by the rule's cutoff; a repeated POST is kept once; a number no game names is listed
/// for the judge (status, dashboard, a mail); the enabled reply goes to the player.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn signed_events_are_kept_and_a_qq_proxy_vote_counts_with_its_time() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let (onebot, _mode, _took) = bot().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    with_qq(&config, &onebot.uri(), "replies = [\"proxy_vote\"]");
    bansha42_game(
        dir.path(),
        "托票局",
        "[roster.qq]\n\"30001\" = \"雪罂子\"\n\"30002\" = \"青鸾花\"\n[[days]]\nday = 2\nvote_thread = 3\ncloses_at = \"2026-11-29 21:00:00\"\n",
    );
    let port = pin_status_port(&config);
    forum.lock().unwrap().at = 1795953600;
    let (service, status) = start_service(&config, Some("2026-11-29 20:00:00")).await;
    assert!(!status.is_empty(), "the service answers");
    let vote = event(30001, 1795954200, 7, "票花千树"); // 20:10
    assert!(post_event(port, &vote, None).starts_with("HTTP/1.1 401"));
    assert!(post_event(port, &vote, Some("sha1=0000")).starts_with("HTTP/1.1 403"));
    let forged = signed(&vote.replace("花千树", "大灰狼"));
    assert!(post_event(port, &vote, Some(&forged)).starts_with("HTTP/1.1 403"));
    // A web page's request (it sends an Origin, and cannot send JSON without CORS leave).
    let from_page = raw_http(
        port,
        &format!(
            "POST /onebot HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://evil.test\r\nContent-Type: text/plain\r\nX-Signature: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{vote}",
            signed(&vote),
            vote.len()
        ),
    );
    assert!(from_page.starts_with("HTTP/1.1 403"), "{from_page}");
    for _ in 0..2 {
        let a = post_event(port, &vote, Some(&signed(&vote)));
        assert!(a.starts_with("HTTP/1.1 204"), "{a}");
    }
    let late = event(30002, 1795956300, 8, "托票：票大灰狼"); // 20:45, after 20:40
    assert!(post_event(port, &late, Some(&signed(&late))).starts_with("HTTP/1.1 204"));
    // A night action (after the close, 22:00) and a kill post (a short one) by QQ.
    let night = event(30001, 1795960800, 10, "行动：刀 花千树");
    assert!(post_event(port, &night, Some(&signed(&night))).starts_with("HTTP/1.1 204"));
    let kill = event(30002, 1795961400, 11, "杀帖\n代号：圣火令\n月色如水。");
    assert!(post_event(port, &kill, Some(&signed(&kill))).starts_with("HTTP/1.1 204"));
    let stranger = event(99999, 1795954800, 9, "法官你好，我是新来的");
    assert!(post_event(port, &stranger, Some(&signed(&stranger))).starts_with("HTTP/1.1 204"));
    // The night action's reply is a draft (night_action not in replies): the judge sends it
    // with the dashboard's button.
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    let key = regex::Regex::new(r#"data-key="(reply/30001/1795960800/10)">发到 QQ</button>"#)
        .unwrap()
        .captures(&page)
        .map(|c| c[1].to_string())
        .unwrap_or_else(|| panic!("the draft and its button: {page}"));
    assert!(page.contains("给 QQ 30001 的回复草稿：法官已收到你的夜间行动：刀 花千树"));
    let body = serde_json::json!({ "key": key }).to_string();
    let click = |with_header: bool| {
        raw_http(
            port,
            &format!(
                "POST /qq-reply HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n{}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                if with_header { "X-Bansha: judge\r\n" } else { "" },
                body.len()
            ),
        )
    };
    let refused = tokio::task::block_in_place(|| click(false));
    assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
    let sent = tokio::task::block_in_place(|| click(true));
    assert!(sent.starts_with("HTTP/1.1 200"), "{sent}");
    let again = tokio::task::block_in_place(|| click(true));
    assert!(
        again.starts_with("HTTP/1.1 404"),
        "one click, one reply: {again}"
    );
    let (_, out, _) = tokio::task::block_in_place(|| cli(&config, &["status"]));
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    drop(service);
    assert!(
        out.contains("待法官处理的 QQ 消息：") && out.contains("QQ 99999"),
        "the stranger is listed: {out}"
    );
    assert!(
        page.contains("<li>待法官处理的 QQ 消息：") && page.contains("QQ 99999"),
        "and on the dashboard"
    );
    forum.lock().unwrap().at = 1795957560;
    let r = cycle_at(&config, "2026-11-29 21:06:00").await;
    let finals = final_texts(&mailbox);
    assert_eq!(finals.len(), 1, "{r}\n{:?}", subject_lines(&mailbox));
    let t = &finals[0];
    assert!(
        t.contains("花千树 1 票：雪罂子（法官代投）"),
        "counted: {t}"
    );
    assert!(
        t.contains("法官代投 青鸾花（投票：大灰狼）：代投须在截止前 20 分钟（11-29 20:40:00）之前"),
        "青鸾花's came at 20:45: {t}"
    );
    // Each ballot's time is the message's, not when the daemon received it (about 20:00 on
    // its clock): the HTML tally lists the void one at 20:45:00.
    let raw = mailbox
        .mails
        .lock()
        .unwrap()
        .iter()
        .find(|m| summary(m).1.contains("最终计票："))
        .cloned()
        .unwrap();
    let h = html(&raw);
    let row = h
        .lines()
        .find(|l| l.contains("法官录入") && l.contains("青鸾花"))
        .unwrap_or_default();
    assert!(row.contains("2026-11-29 20:45:00"), "{row}");
    let stranger_mail = mails_about(&mailbox, "QQ 消息待法官处理");
    assert_eq!(stranger_mail.len(), 1, "{:?}", subject_lines(&mailbox));
    assert!(stranger_mail[0].1.contains("法官你好，我是新来的"));
    let kill = mails_about(&mailbox, "QQ 杀帖：青鸾花（不合格）");
    assert_eq!(kill.len(), 1, "{:?}", subject_lines(&mailbox));
    assert!(
        kill[0].1.contains("少于 801") && kill[0].1.contains("月色如水"),
        "{}",
        kill[0].1
    );
    let got = asked(&onebot).await;
    // The enabled kind of reply went by itself (proxy votes), the night action's on the click.
    let replies: Vec<_> = got.iter().filter(|(_, to, _)| *to == 30001).collect();
    assert_eq!(replies.len(), 2, "each reply once: {got:?}");
    assert!(replies[0].2.contains("票花千树"), "{}", replies[0].2);
    assert!(
        replies[1].2.contains("夜间行动：刀 花千树"),
        "{}",
        replies[1].2
    );
    // The night action is in the record, read back as the night resolver's input.
    let store = bansha::io::store::Store::open(&dir.path().join("state")).unwrap();
    let inbox: Vec<bansha::domain::qq::Inbound> = store.get_meta("qq/inbox").unwrap().unwrap();
    assert_eq!(inbox.len(), 5, "each message once: {inbox:?}");
    let t = |s: &str| chrono::DateTime::parse_from_rfc3339(s).unwrap();
    let actions = bansha::domain::qq::night_actions(
        &inbox,
        "托票局",
        t("2026-11-29T21:00:00+08:00"),
        t("2026-11-30T08:00:00+08:00"),
    );
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert_eq!(actions[0].by, vec!["雪罂子"]);
    assert_eq!(
        (actions[0].power.as_str(), actions[0].target.as_deref()),
        ("刀", Some("花千树"))
    );
    assert_eq!(actions[0].sent_at, Some(t("2026-11-29T22:00:00+08:00")));
}

/// `check-config --online` asks the bot who it is logged in as (sending nothing), and says
/// when it cannot be reached.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn check_config_online_asks_the_bot_who_it_is() {
    let (_mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let (onebot, _mode, took) = bot().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    with_qq(&config, &onebot.uri(), "");
    forum.lock().unwrap().at = 1795957560;
    let online = |config: PathBuf| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
            .args(["check-config", "--online"])
            .arg(config)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let c = config.clone();
    let (code, out, err) = tokio::task::spawn_blocking(move || online(c))
        .await
        .unwrap();
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.contains("✓ QQ 机器人可用：登录号 42（裁判机器人；没有发消息）"),
        "{out}"
    );
    assert!(took.lock().unwrap().is_empty(), "nothing sent");
    set_api(&config, &nobody());
    let (code, _, err) = tokio::task::spawn_blocking(move || online(config))
        .await
        .unwrap();
    assert_eq!(code, Some(1));
    assert!(err.contains("✗ QQ 机器人不可用（qq.api"), "{err}");
}

/// The reverse: an SMTP server that is down (451) holds the mails, not QQ — the final tally
/// reaches the judge's QQ in the same cycle, and the mail once the server is back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn a_mail_server_that_is_down_holds_no_qq_message() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let (onebot, _mode, took) = bot().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    with_qq(&config, &onebot.uri(), "send = [\"final\"]");
    forum.lock().unwrap().at = 1795957560;
    mailbox.refuse.store(true, Ordering::SeqCst);
    let r = cycle_at(&config, "2026-11-29 21:06:00").await;
    assert!(r["mails_waiting"].as_u64().unwrap() > 0, "{r}");
    assert!(final_texts(&mailbox).is_empty());
    let got = took.lock().unwrap().clone();
    assert_eq!(got.len(), 2, "the judge's and the group's: {got:?}");
    assert!(got[0].2.contains("最终计票"), "{}", got[0].2);
    mailbox.refuse.store(false, Ordering::SeqCst);
    let r = cycle_at(&config, "2026-11-29 21:08:00").await;
    assert_eq!(r["mails_waiting"], 0, "{r}");
    assert_eq!(final_texts(&mailbox).len(), 1);
    assert_eq!(took.lock().unwrap().len(), 2, "QQ sent nothing again");
}

/// Issue 35 with issue 31: a chuhan player's night action by QQ (`[roster.qq]`) reaches the
/// night: the digest lists it, the draft at the deadline resolves it (000 L80: the 左士's
/// curse, +1 in the next day's round 1).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn a_night_action_by_qq_reaches_the_nights_draft() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let (onebot, _mode, _took) = bot().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    with_qq(&config, &onebot.uri(), "");
    std::fs::write(
        dir.path().join("games/banshayishi-12.toml"),
        format!(
            "ruleset = \"chuhan\"\nname = \"楚汉局\"\nid = \"ch\"\n{}\n\
             [roster.roles]\n\"大灰狼\" = {{ role = \"左士\", faction = \"楚\" }}\n\
             \"小飞\" = {{ role = \"右士\", faction = \"汉\" }}\n\
             [roster.qq]\n\"30001\" = \"大灰狼\"\n\
             [[days]]\nday = 2\nvote_thread = 3\ncloses_at = \"2026-11-29 21:00:00\"\n\
             dead = [\"龙舌\", \"青鸾花\"]\n\
             [rules.night]\ndeadline_after_close_minutes = 600\n",
            crate::common::ROSTER
        ),
    )
    .unwrap();
    let port = pin_status_port(&config);
    forum.lock().unwrap().at = 1795957205; // 21:00:05
    let r = cycle_at(&config, "2026-11-29 21:00:05").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let (service, status) = start_service(&config, Some("2026-11-29 22:00:00")).await;
    assert!(!status.is_empty(), "the service answers");
    let action = event(30001, 1795960800, 21, "行动：诅咒 冷雪"); // 22:00
    assert!(post_event(port, &action, Some(&signed(&action))).starts_with("HTTP/1.1 204"));
    // What reached the judge in person, entered from the terminal (`bansha night --add`).
    let game = dir.path().join("games/banshayishi-12.toml");
    let daemon = config.to_str().unwrap().to_string();
    let (code, out, err) = tokio::task::block_in_place(|| {
        cli(
            &game,
            &[
                "night",
                "--night",
                "2",
                "--daemon",
                &daemon,
                "--add",
                "小飞 庇佑 花千树",
            ],
        )
    });
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("已记下第 2 夜的行动"), "{out}");
    // The judge confirms day 2 (李逵 out) before the night: the night is resolved on it.
    let (code, out, err) = tokio::task::block_in_place(|| {
        cli(
            &game,
            &["confirm", "--day", "2", "--daemon", &daemon, "--no-pardon"],
        )
    });
    assert_eq!(code, Some(0), "{out}{err}");
    drop(service);
    let r = cycle_at(&config, "2026-11-29 22:30:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let digest = mails_about(&mailbox, "第2夜 已收到");
    assert_eq!(digest.len(), 1, "{:?}", subject_lines(&mailbox));
    assert!(digest[0].1.contains("QQ 30001"), "{}", digest[0].1);
    assert!(digest[0].1.contains("诅咒"), "{}", digest[0].1);
    cycle_at(&config, "2026-11-30 07:00:05").await;
    let draft = mails_about(&mailbox, "第2夜结算草稿");
    assert_eq!(draft.len(), 1, "{:?}", subject_lines(&mailbox));
    assert!(draft[0].1.contains("冷雪：+1 票"), "{}", draft[0].1);
    assert!(draft[0].1.contains("花千树：−1 票"), "{}", draft[0].1);
    // Confirmed from the terminal (`bansha night --confirm`): written to the state.
    let (_service, _) = start_service(&config, Some("2026-11-30 07:10:00")).await;
    let (code, out, err) = tokio::task::block_in_place(|| {
        cli(
            &game,
            &["night", "--night", "2", "--daemon", &daemon, "--confirm"],
        )
    });
    assert_eq!(code, Some(0), "{out}{err}");
    let state = std::fs::read_to_string(game.with_file_name("banshayishi-12.state.json")).unwrap();
    assert!(state.contains("adjust:3:冷雪"), "{state}");
    assert!(state.contains("adjust:3:花千树"), "{state}");
}
