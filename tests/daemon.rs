//! The daemon end to end: the real binary (`bansha run --once --now T`, one poll cycle at an
//! injected time per run) against a local HTTP server replaying the captured vote thread as the
//! mobile API v1 served it, and a real local SMTP server (mailin-embedded).
//!
//! The thread as it stood at an earlier time is the captured pages with the later posts taken
//! out (and pid 98 with the text it had before its 21:05 edit, from the scenario key); a
//! deleted post is one taken out. Faults are injected per request: a 502, a timeout, a login
//! expiry (the captured "no permission" answer, then a login through the captured login form).

mod common;

use mailin_embedded::{response, Handler, Response, Server};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

// ---------------------------------------------------------------- SMTP

#[derive(Clone, Default)]
struct Mailbox {
    mails: Arc<Mutex<Vec<String>>>,
    current: Arc<Mutex<Vec<u8>>>,
    refuse: Arc<AtomicBool>,
    slow: Arc<AtomicBool>,
    /// Milliseconds each mail's transfer takes (before its end arrives).
    delay_ms: Arc<std::sync::atomic::AtomicU64>,
}

impl Handler for Mailbox {
    fn data_start(&mut self, _: &str, _: &str, _: bool, _: &[String]) -> Response {
        // A slow transfer: the mail is the server's only once its end has arrived.
        std::thread::sleep(std::time::Duration::from_millis(
            self.delay_ms.load(Ordering::SeqCst),
        ));
        if self.refuse.load(Ordering::SeqCst) {
            return response::INTERNAL_ERROR;
        }
        self.current.lock().unwrap().clear();
        response::OK
    }
    fn data(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.current.lock().unwrap().extend_from_slice(buf);
        Ok(())
    }
    fn data_end(&mut self) -> Response {
        if self.slow.load(Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_secs(3));
        }
        let raw = String::from_utf8_lossy(&self.current.lock().unwrap()).into_owned();
        self.mails.lock().unwrap().push(raw);
        response::OK
    }
}

fn smtp() -> (Mailbox, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let mailbox = Mailbox::default();
    let mut server = Server::new(mailbox.clone());
    server.with_name("judge.test").with_tcp_listener(listener);
    std::thread::spawn(move || {
        let _ = server.serve();
    });
    (mailbox, port)
}

/// A received mail: Message-ID and decoded subject.
fn summary(raw: &str) -> (String, String) {
    let m = parsed(raw);
    (
        format!("<{}>", m.message_id().unwrap_or_default()),
        m.subject().unwrap_or_default().to_string(),
    )
}

fn parsed(raw: &str) -> mail_parser::Message<'_> {
    mail_parser::MessageParser::default()
        .parse(raw.as_bytes())
        .expect("a MIME message")
}

/// A received mail's plain-text part, decoded.
fn body(raw: &str) -> String {
    parsed(raw)
        .body_text(0)
        .expect("a text part")
        .replace("\r\n", "\n")
}

/// A received mail's HTML part, decoded.
fn html(raw: &str) -> String {
    parsed(raw).body_html(0).expect("an HTML part").into_owned()
}

/// A received mail's attachments and inline parts: (file name or content id, content type, bytes).
fn files(raw: &str) -> Vec<(String, String, Vec<u8>)> {
    use mail_parser::MimeHeaders;
    let m = parsed(raw);
    m.attachments()
        .map(|a| {
            let ct = a
                .content_type()
                .map(|c| format!("{}/{}", c.ctype(), c.subtype().unwrap_or_default()))
                .unwrap_or_default();
            let name = a
                .attachment_name()
                .or(a.content_id())
                .unwrap_or_default()
                .to_string();
            (name, ct, a.contents().to_vec())
        })
        .collect()
}

// ---------------------------------------------------------------- the forum

#[derive(Clone, Debug)]
enum Fault {
    Status(u16),
    Delay(std::time::Duration),
    NoPermission,
    /// The connection closes half-way through the body (a Content-Length the body never
    /// reaches).
    Reset,
    /// A complete answer holding the first half of the page.
    Truncated,
    /// A Discuz HTML page (the captured forum index) where API JSON was asked for.
    Html,
    /// The anti-flood (CC defence) page; no captured page exists, the text is Discuz's.
    Flood,
    /// The captured "request_tainting" System Error page, with its HTTP 503.
    Tainting,
    /// A redirect to the same URL.
    RedirectLoop,
}

struct Forum {
    /// Every post of the captured vote thread (v1 JSON objects), in order.
    posts: Vec<Value>,
    envelope: Value,
    /// The captured discussion thread (tid 4), served as it stood at `at` too.
    discussion: Vec<Value>,
    discussion_envelope: Value,
    /// Show the thread as it stood at this unix time.
    at: i64,
    /// pids taken out (deleted).
    deleted: BTreeSet<u64>,
    /// Faults for the next thread-page requests, in order.
    faults: Vec<Fault>,
    /// Thread-page requests served.
    requests: usize,
    logged_in: bool,
    /// The reply count the thread claims instead of the true one.
    claim_replies: Option<u64>,
    /// (asked, served): this page number answers with that page.
    serve_instead: Option<(usize, usize)>,
    /// A fault for every thread-page request after `faults` ran out.
    always: Option<Fault>,
}

fn captured_thread() -> (Vec<Value>, Value) {
    captured("tid3_vote", 4)
}

fn captured(thread: &str, pages: u32) -> (Vec<Value>, Value) {
    let mut posts = Vec::new();
    let mut envelope = Value::Null;
    for p in 1..=pages {
        let path = common::fixtures().join(format!(
            "discuz/mobile/guest/v1/viewthread_{thread}_p{p}.json"
        ));
        let page: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        posts.extend(
            page["Variables"]["postlist"]
                .as_array()
                .unwrap()
                .iter()
                .cloned(),
        );
        if p == 1 {
            envelope = page;
        }
    }
    (posts, envelope)
}

impl Forum {
    fn discussion_page(&self, page: usize) -> Value {
        let visible: Vec<Value> = self
            .discussion
            .iter()
            .filter(|p| p["dbdateline"].as_str().unwrap().parse::<i64>().unwrap() <= self.at)
            .cloned()
            .collect();
        let replies = visible.len() as u64 - 1;
        served(&self.discussion_envelope, &visible, page, replies)
    }

    fn page(&self, page: usize) -> Value {
        let mut visible: Vec<Value> = self
            .posts
            .iter()
            .filter(|p| p["dbdateline"].as_str().unwrap().parse::<i64>().unwrap() <= self.at)
            .filter(|p| {
                !self
                    .deleted
                    .contains(&p["pid"].as_str().unwrap().parse::<u64>().unwrap())
            })
            .cloned()
            .collect();
        // pid 98 before its edit at 21:05:30 (text as typed, from the scenario key).
        if self.at < 1795957530 {
            for p in visible.iter_mut().filter(|p| p["pid"] == "98") {
                p["message"] = Value::String("投票对象：冷雪<br />\n投票理由：她改票太随意".into());
            }
        }
        let page = match self.serve_instead {
            Some((asked, instead)) if asked == page => instead,
            _ => page,
        };
        let replies = self.claim_replies.unwrap_or(visible.len() as u64 - 1);
        served(&self.envelope, &visible, page, replies)
    }
}

/// Page `page` (10 posts a page, clamped to the last as Discuz does) of `visible`, in the
/// captured envelope, claiming `replies` replies.
fn served(envelope: &Value, visible: &[Value], page: usize, replies: u64) -> Value {
    let last = visible.len().div_ceil(10).max(1);
    let page = page.clamp(1, last);
    let mut out = envelope.clone();
    out["Variables"]["postlist"] = Value::Array(
        visible
            .iter()
            .skip((page - 1) * 10)
            .take(10)
            .cloned()
            .collect(),
    );
    out["Variables"]["thread"]["replies"] = Value::String(replies.to_string());
    out
}

struct ThreadResponder(Arc<Mutex<Forum>>);

impl Respond for ThreadResponder {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let mut f = self.0.lock().unwrap();
        f.requests += 1;
        let page: usize = req
            .url
            .query_pairs()
            .find(|(k, _)| k == "page")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(1);
        let fault = if f.faults.is_empty() {
            f.always.clone()
        } else {
            Some(f.faults.remove(0))
        };
        let fixture = |rel: &str| std::fs::read(common::fixtures().join(rel)).unwrap();
        match fault {
            None => ResponseTemplate::new(200).set_body_json(f.page(page)),
            Some(Fault::Status(s)) => {
                ResponseTemplate::new(s).set_body_string("<html>Bad Gateway</html>")
            }
            Some(Fault::Delay(d)) => ResponseTemplate::new(200)
                .set_delay(d)
                .set_body_json(f.page(page)),
            Some(Fault::NoPermission) => {
                f.logged_in = false;
                ResponseTemplate::new(200).set_body_raw(
                    fixture("discuz/errors/mobile_v1_viewthread_tid2_private_guest.json"),
                    "application/json",
                )
            }
            // Served whole: `cutting_proxy` in front of the server cuts it.
            Some(Fault::Reset) => ResponseTemplate::new(200).set_body_json(f.page(page)),
            Some(Fault::Truncated) => {
                let mut body = serde_json::to_vec(&f.page(page)).unwrap();
                body.truncate(body.len() / 2);
                ResponseTemplate::new(200).set_body_raw(body, "application/json")
            }
            Some(Fault::Html) => ResponseTemplate::new(200).set_body_raw(
                fixture("discuz/desktop/guest/forum_index.html"),
                "text/html; charset=utf-8",
            ),
            Some(Fault::Flood) => ResponseTemplate::new(200).set_body_raw(
                "<html><body>您访问本站速度过快或者刷新间隔时间小于两秒！请等待页面自动跳转 ...</body></html>",
                "text/html; charset=utf-8",
            ),
            Some(Fault::Tainting) => ResponseTemplate::new(503).set_body_raw(
                fixture("discuz/login/desktop_login_fail_badformhash_inajax.xml"),
                "text/html; charset=utf-8",
            ),
            Some(Fault::RedirectLoop) => {
                let to = format!("{}?{}", req.url.path(), req.url.query().unwrap_or_default());
                ResponseTemplate::new(302).insert_header("Location", to.as_str())
            }
        }
    }
}

struct LoginResponder {
    forum: Arc<Mutex<Forum>>,
    file: &'static str,
    logs_in: bool,
}

impl Respond for LoginResponder {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        if self.logs_in {
            self.forum.lock().unwrap().logged_in = true;
        }
        let body = std::fs::read(common::fixtures().join(self.file)).unwrap();
        ResponseTemplate::new(200).set_body_raw(body, "text/xml; charset=utf-8")
    }
}

struct DiscussionResponder(Arc<Mutex<Forum>>);

impl Respond for DiscussionResponder {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let f = self.0.lock().unwrap();
        let page: usize = req
            .url
            .query_pairs()
            .find(|(k, _)| k == "page")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(1);
        ResponseTemplate::new(200).set_body_json(f.discussion_page(page))
    }
}

async fn forum_server() -> (MockServer, Arc<Mutex<Forum>>) {
    let (posts, envelope) = captured_thread();
    let (discussion, discussion_envelope) = captured("tid4_discussion", 7);
    let state = Arc::new(Mutex::new(Forum {
        posts,
        envelope,
        discussion,
        discussion_envelope,
        at: 0,
        deleted: BTreeSet::new(),
        faults: Vec::new(),
        requests: 0,
        logged_in: false,
        claim_replies: None,
        serve_instead: None,
        always: None,
    }));
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/mobile/index.php"))
        .and(query_param("module", "viewthread"))
        .and(query_param("tid", "3"))
        .respond_with(ThreadResponder(state.clone()))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/mobile/index.php"))
        .and(query_param("module", "viewthread"))
        .and(query_param("tid", "4"))
        .respond_with(DiscussionResponder(state.clone()))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/member.php"))
        .and(query_param("action", "login"))
        .respond_with(LoginResponder {
            forum: state.clone(),
            file: "discuz/login/desktop_login_float_form_inajax.xml",
            logs_in: false,
        })
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/member.php"))
        .and(query_param("loginsubmit", "yes"))
        .respond_with(LoginResponder {
            forum: state.clone(),
            file: "discuz/login/desktop_login_success_inajax.xml",
            logs_in: true,
        })
        .mount(&server)
        .await;
    (server, state)
}

// ---------------------------------------------------------------- the daemon

fn setup(dir: &Path, forum: &str, smtp_port: u16) -> PathBuf {
    let games = dir.join("games");
    std::fs::create_dir_all(&games).unwrap();
    std::fs::copy(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("config/examples/banshayishi-12.toml"),
        games.join("banshayishi-12.toml"),
    )
    .unwrap();
    let pw = dir.join("forum-password");
    std::fs::write(&pw, "test1234\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&pw, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let config = dir.join("daemon.toml");
    std::fs::write(
        &config,
        format!(
            r#"state_dir = "state"

[forum]
base_url = "{forum}/"
source = "api"
api_version = 1
posts_per_page = 10
min_gap_ms = 10
timeout_secs = 2
retries = 2

[forum.login]
username = "版杀一室法官"
password_file = "forum-password"

[smtp]
host = "127.0.0.1"
port = {smtp_port}
security = "plain"
from = "bansha@judge.test"

[judge]
to = ["judge@judge.test"]

[poll]
interim_every_hours = 0

[status]
listen = "127.0.0.1:0"

[[games]]
config = "games/banshayishi-12.toml"
"#
        ),
    )
    .unwrap();
    config
}

fn once(config: &Path, now: &str) -> Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(["run", "--once", "--now", now, "--config"])
        .arg(config)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.trim()).unwrap_or_else(|_| {
        panic!(
            "no report at {now}: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Give the service's dashboard a free loopback port (the tests' config says 127.0.0.1:0,
/// which only `--once` runs can leave unresolved, since the CLI must find the service).
fn pin_status_port(config: &Path) -> u16 {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let text = std::fs::read_to_string(config)
        .unwrap()
        .replace("127.0.0.1:0", &format!("127.0.0.1:{port}"));
    std::fs::write(config, text).unwrap();
    port
}

/// `bansha ARGS --config CONFIG`: exit code, stdout, stderr.
fn cli(config: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(args)
        .arg("--config")
        .arg(config)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `bansha run --once --now NOW`, SIGKILLed after `delay`.
fn once_killed(config: &Path, now: &str, delay: std::time::Duration) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(["run", "--once", "--now", now, "--config"])
        .arg(config)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    let _ = child.kill(); // SIGKILL
    let _ = child.wait();
}

fn subjects(mailbox: &Mailbox) -> Vec<(String, String)> {
    mailbox
        .mails
        .lock()
        .unwrap()
        .iter()
        .map(|m| summary(m))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_day_of_polling_mails_the_judge_each_thing_once() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let run = |now: &'static str| {
        let config = config.clone();
        async move {
            tokio::task::spawn_blocking(move || once(&config, now))
                .await
                .unwrap()
        }
    };

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
    assert!(
        first.iter().any(|s| s.contains("无效票：7# 小熊维尼")),
        "{first:?}"
    );
    assert!(
        first.iter().any(|s| s.contains("无效票：11# 雪罂子")),
        "{first:?}"
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
    // once more; nothing new, so nothing is sent again. 22:00 — the closed day is no longer
    // polled.
    let sent_before = mailbox.mails.lock().unwrap().len();
    let requests_before = forum.lock().unwrap().requests;
    let r = run("2026-11-29 21:30:00").await;
    assert_eq!(r["mails_queued"], 0, "{r}");
    assert_eq!(r["edited_posts"], 0, "{r}");
    assert_eq!(mailbox.mails.lock().unwrap().len(), sent_before);
    assert_eq!(
        forum.lock().unwrap().requests,
        requests_before + 4,
        "4 pages"
    );
    let r = run("2026-11-29 22:00:00").await;
    assert_eq!(r["requests"], 0, "{r}");
    assert_eq!(mailbox.mails.lock().unwrap().len(), sent_before);
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
    for late in ["34# 小熊维尼", "29# 小飞", "33# 不见"] {
        assert_eq!(
            count(&format!("无效票：{late}")),
            1,
            "{late}: {subjects:#?}"
        );
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

/// Kill the daemon mid-poll and mid-send, restart it: the judge gets the same mails as from an
/// uninterrupted run (a mail the server accepted as the daemon died may come twice, with the
/// same Message-ID).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_daemon_restarts_to_the_same_outcome() {
    // The uninterrupted run.
    let (clean_box, clean_port) = smtp();
    let (clean_server, clean_forum) = forum_server().await;
    let clean_dir = tempfile::tempdir().unwrap();
    let clean_config = setup(clean_dir.path(), &clean_server.uri(), clean_port);
    clean_forum.lock().unwrap().at = 1795957560;
    let c = clean_config.clone();
    tokio::task::spawn_blocking(move || once(&c, "2026-11-29 21:06:00"))
        .await
        .unwrap();
    let clean: BTreeMap<String, String> = subjects(&clean_box).into_iter().collect();
    assert!(clean.values().any(|s| s.contains("最终计票")));

    // The interrupted one.
    let (mailbox, port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), port);
    forum.lock().unwrap().at = 1795957560;
    let kill_after = |delay_ms: u64| {
        let config = config.clone();
        move || {
            once_killed(
                &config,
                "2026-11-29 21:06:00",
                std::time::Duration::from_millis(delay_ms),
            )
        }
    };
    // Mid-poll: the second page hangs.
    forum.lock().unwrap().faults = vec![
        Fault::Delay(std::time::Duration::ZERO),
        Fault::Delay(std::time::Duration::from_secs(5)),
    ];
    tokio::task::spawn_blocking(kill_after(700)).await.unwrap();
    assert!(mailbox.mails.lock().unwrap().is_empty());
    // Mid-send: the SMTP server takes 3 s per mail.
    forum.lock().unwrap().faults.clear();
    mailbox.slow.store(true, Ordering::SeqCst);
    tokio::task::spawn_blocking(kill_after(2500)).await.unwrap();
    mailbox.slow.store(false, Ordering::SeqCst);
    // Restart, run to the end.
    let c = config.clone();
    let r = tokio::task::spawn_blocking(move || once(&c, "2026-11-29 21:06:00"))
        .await
        .unwrap();
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    // Let the server finish recording the mail it was given as the client died.
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;

    let got: BTreeMap<String, String> = subjects(&mailbox).into_iter().collect();
    let clean_subjects: BTreeSet<&String> = clean.values().collect();
    let got_subjects: BTreeSet<&String> = got.values().collect();
    assert_eq!(got_subjects, clean_subjects);
    let received = mailbox.mails.lock().unwrap().len();
    assert!(
        received <= clean.len() + 1,
        "{received} mails for {} alerts",
        clean.len()
    );
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

    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(["run", "--config"])
        .arg(&config)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let ask = |args: &[&str]| cli(&config, args);
    let mut status = String::new();
    for _ in 0..100 {
        let (code, out, _) = tokio::task::block_in_place(|| ask(&["status"]));
        if code == Some(0) && out.contains("上一轮") {
            status = out;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
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
    assert_eq!(code, Some(1));
    assert!(err.contains("本局玩家"), "{err}");

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
    let c = config.clone();
    let r = tokio::task::spawn_blocking(move || once(&c, "2026-11-29 20:30:00"))
        .await
        .unwrap();
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

/// A forum that keeps failing is mailed about once, after `fetch_failure_alert_minutes`; a login
/// that needs a captcha is mailed about at once and never retried into a lock-out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_are_mailed_once_and_captchas_at_once() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let run = |now: &'static str| {
        let config = config.clone();
        async move {
            tokio::task::spawn_blocking(move || once(&config, now))
                .await
                .unwrap()
        }
    };
    let failures = |mailbox: &Mailbox| {
        subjects(mailbox)
            .iter()
            .filter(|(_, s)| s.contains("无法读取论坛"))
            .count()
    };

    // 502 on every attempt (1 + 2 retries) of each cycle.
    forum.lock().unwrap().at = 1795924800;
    forum.lock().unwrap().faults = vec![Fault::Status(502); 3];
    let r = run("2026-11-29 12:00:00").await;
    assert!(!r["errors"].as_array().unwrap().is_empty());
    assert_eq!(failures(&mailbox), 0, "not yet: under 30 minutes");
    forum.lock().unwrap().faults = vec![Fault::Status(502); 3];
    run("2026-11-29 12:31:00").await;
    assert_eq!(failures(&mailbox), 1);
    forum.lock().unwrap().faults = vec![Fault::Status(502); 3];
    run("2026-11-29 12:45:00").await;
    assert_eq!(failures(&mailbox), 1, "once per failure streak");
    let r = run("2026-11-29 12:50:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "recovered: {r}");

    // The login now demands a captcha: mailed at once; no password is posted.
    server.reset().await;
    let state = forum.clone();
    Mock::given(method("GET"))
        .and(path("/api/mobile/index.php"))
        .respond_with(move |_: &Request| {
            let _ = &state;
            let body = std::fs::read(
                common::fixtures()
                    .join("discuz/errors/mobile_v1_viewthread_tid2_private_guest.json"),
            )
            .unwrap();
            ResponseTemplate::new(200).set_body_raw(body, "application/json")
        })
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/member.php"))
        .respond_with(|_: &Request| {
            let body = std::fs::read(
                common::fixtures().join("discuz/login_default_captcha_on/login_page.html"),
            )
            .unwrap();
            ResponseTemplate::new(200).set_body_raw(body, "text/html; charset=utf-8")
        })
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500))
        .expect(0)
        .mount(&server)
        .await;
    run("2026-11-29 13:00:00").await;
    let mails = mailbox.mails.lock().unwrap().clone();
    let captcha = mails
        .iter()
        .filter(|m| summary(m).1.contains("无法读取论坛"))
        .nth(1)
        .expect("a second failure mail, at once");
    let text = body(captcha);
    assert!(
        text.contains("验证码") && text.contains("需要法官处理"),
        "{text}"
    );
    run("2026-11-29 13:05:00").await;
    assert_eq!(failures(&mailbox), 2, "the captcha streak is mailed once");
    server.verify().await;
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
    let run = |now: &'static str| {
        let config = config.clone();
        async move {
            tokio::task::spawn_blocking(move || once(&config, now))
                .await
                .unwrap()
        }
    };
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
    // 57, 64, 73: 371, 364, 483, 875, 384, 311, 481 words).
    assert_eq!(first.len(), 35, "{first:#?}");
    assert!(
        first.iter().any(|s| s.ends_with("报道不合格：沙发 大灰狼")),
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
        .find(|m| summary(m).1.ends_with("报道不合格：沙发 大灰狼"))
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
    assert_eq!(failing(&mailbox).len(), 35, "nothing is mailed twice");
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
    let c = config.clone();
    let r = tokio::task::spawn_blocking(move || once(&c, "2026-11-29 21:06:00"))
        .await
        .unwrap();
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
    let c = config.clone();
    let r = tokio::task::spawn_blocking(move || once(&c, "2026-11-29 21:06:00"))
        .await
        .unwrap();
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
    let change = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
            .args(["change", "--config"])
            .arg(&game)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    };
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
        .find(|(s, _)| s.ends_with("再出局一人即成立：我爱皇帝 负：密探、太医、侍卫、太子全部出局"))
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

    // 太子 out: 4 of 8 — the assassins win and the court has lost.
    change(&["eliminate", "小熊维尼", "--cause", "投票", "--day", "2"]);
    let mails = cycle("2026-11-29 12:30:00").await;
    let mut subjects: Vec<String> = mails.into_iter().map(|(s, _)| s).collect();
    subjects.sort();
    assert_eq!(
        subjects,
        [
            "[版杀一室 第十二局] 胜负条件成立：我爱皇帝 负：密探、太医、侍卫、太子全部出局",
            "[版杀一室 第十二局] 胜负条件成立：杀了狗皇帝（刺客）胜：存活人数不少于存活总数的一半",
        ]
    );

    // Undone: nothing new holds. Recorded again: mailed again, as a new decision.
    change(&["undo"]);
    assert!(cycle("2026-11-29 12:40:00").await.is_empty());
    change(&["eliminate", "小熊维尼", "--cause", "投票", "--day", "2"]);
    assert_eq!(cycle("2026-11-29 12:50:00").await.len(), 2);
}

// ---------------------------------------------------------------- the poll (bansha42)

/// The poll as it stands: voter → options. Served as the captured API v1 answer of tid 5 with
/// the counts replaced, and the captured `inajax` voter list with the voters replaced.
#[derive(Default)]
struct PollState {
    votes: Vec<(&'static str, &'static str)>,
    requests: Vec<String>,
    /// The forum answers 502.
    down: bool,
}

struct PollResponder(Arc<Mutex<PollState>>);

impl Respond for PollResponder {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let mut st = self.0.lock().unwrap();
        st.requests.push(req.url.query().unwrap_or("").to_string());
        if st.down {
            return ResponseTemplate::new(502);
        }
        let q: BTreeMap<String, String> = req.url.query_pairs().into_owned().collect();
        if q.get("module").map(String::as_str) == Some("viewthread") {
            let mut v: Value = serde_json::from_slice(
                &std::fs::read(
                    common::fixtures().join("discuz/poll/mobile_v1_viewthread_tid5_judge.json"),
                )
                .unwrap(),
            )
            .unwrap();
            let options = v["Variables"]["special_poll"]["polloptions"]
                .as_object_mut()
                .unwrap();
            for o in options.values_mut() {
                let text = o["polloption"].as_str().unwrap().to_string();
                let n = st.votes.iter().filter(|(_, t)| *t == text).count();
                o["votes"] = Value::String(n.to_string());
            }
            let voters: BTreeSet<&str> = st.votes.iter().map(|(v, _)| *v).collect();
            v["Variables"]["special_poll"]["voterscount"] = Value::String(voters.len().to_string());
            return ResponseTemplate::new(200)
                .insert_header("content-type", "application/json; charset=utf-8")
                .set_body_bytes(serde_json::to_vec(&v).unwrap());
        }
        // The voter list of one option.
        let option: u64 = q["polloptionid"].parse().unwrap();
        let captured = std::fs::read_to_string(
            common::fixtures().join("discuz/poll/viewvote_tid5_option3_judge_inajax.xml"),
        )
        .unwrap();
        let text = common_option_text(&captured, option);
        let items: String = st
            .votes
            .iter()
            .filter(|(_, t)| *t == text)
            .map(|(v, _)| {
                format!(
                    "<li><p><a href=\"home.php?mod=space&amp;uid={}\" target=\"_blank\">{v}</a></p></li>\n",
                    common::member_uid(v)
                )
            })
            .collect();
        let start = captured.find("<ul class=\"ml mtm cl voterl\">").unwrap();
        let end = captured[start..].find("</ul>").unwrap() + start;
        let body = format!(
            "{}<ul class=\"ml mtm cl voterl\">\n{items}{}",
            &captured[..start],
            &captured[end..]
        )
        .replace(" selected=\"selected\"", "")
        .replace(
            &format!("<option value=\"{option}\">"),
            &format!("<option value=\"{option}\" selected=\"selected\">"),
        );
        ResponseTemplate::new(200)
            .insert_header("content-type", "text/xml; charset=utf-8")
            .set_body_string(body)
    }
}

/// The text of option `id` in the captured voter list's selector.
fn common_option_text(page: &str, id: u64) -> String {
    let marker = format!("<option value=\"{id}\"");
    let at = page.find(&marker).unwrap();
    let rest = &page[at..];
    let open = rest.find('>').unwrap() + 1;
    let close = rest.find("</option>").unwrap();
    rest[open..close].to_string()
}

/// A bansha42 day voting in the poll (tid 5) against a server replaying the captured poll as
/// it changes; the final mail's outcome and each reading's cost.
/// `down`: the readings at which the forum answers 502.
async fn poll_day(
    readings: &[(&'static str, Vec<(&'static str, &'static str)>)],
    down: &[&str],
) -> (Vec<(String, String)>, Arc<Mutex<PollState>>) {
    let (mailbox, smtp_port) = smtp();
    let server = MockServer::start().await;
    let state = Arc::new(Mutex::new(PollState::default()));
    Mock::given(method("GET"))
        .and(path("/api/mobile/index.php"))
        .and(query_param("tid", "5"))
        .respond_with(PollResponder(state.clone()))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/forum.php"))
        .and(query_param("action", "viewvote"))
        .respond_with(PollResponder(state.clone()))
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    std::fs::write(
        dir.path().join("games/banshayishi-12.toml"),
        format!(
            "ruleset = \"bansha42\"\nname = \"四十二人局\"\n{}\n[[days]]\nday = 1\nvote_thread = 5\nopens_at = \"2026-11-29 09:00:00\"\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n",
            common::ROSTER
        ),
    )
    .unwrap();
    for (at, new) in readings {
        let is_down = down.contains(at);
        {
            let mut st = state.lock().unwrap();
            st.votes.extend(new.iter().cloned());
            st.down = is_down;
        }
        let c = config.clone();
        let at = *at;
        let r = tokio::task::spawn_blocking(move || once(&c, at))
            .await
            .unwrap();
        if is_down {
            assert_eq!(r["fetch_failures"], 1, "{at}: {r}");
        } else {
            assert_eq!(r["errors"], serde_json::json!([]), "{at}: {r}");
        }
    }
    let mails = mailbox
        .mails
        .lock()
        .unwrap()
        .iter()
        .map(|m| (summary(m).1, body(m)))
        .collect();
    (mails, state)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_poll_is_read_over_time_and_later_arrivals_go_first() {
    let (mails, state) = poll_day(
        &[
            ("2026-11-29 19:50:00", vec![("花千树", "李逵")]),
            (
                "2026-11-29 20:00:00",
                vec![("大灰狼", "李逵"), ("小飞", "冷雪")],
            ),
            ("2026-11-29 20:10:00", vec![("李逵", "冷雪")]),
            ("2026-11-29 20:20:00", vec![]),
            ("2026-11-29 21:00:00", vec![]),
        ],
        &[],
    )
    .await;
    let (subject, text) = mails
        .iter()
        .find(|(s, _)| s.contains("最终计票"))
        .expect("a final mail");
    // 李逵 reached 2 at the 20:00 reading, 冷雪 at 20:10: 冷雪 got there later and goes out.
    assert!(subject.contains("冷雪"), "{subject}");
    assert!(text.contains("后到先出"), "{text}");
    assert!(
        text.contains("冷雪 2 票") && text.contains("李逵 2 票"),
        "{text}"
    );
    // Readings cost what changed: an unchanged poll is one request.
    let requests = state.lock().unwrap().requests.clone();
    let at_2020 = requests.iter().filter(|q| q.contains("viewvote")).count();
    assert_eq!(
        at_2020, 4,
        "voter lists only for changed options: 李逵 at 19:50 and 20:00, 冷雪 at 20:00 and 20:10: {requests:?}"
    );
    assert_eq!(requests.len(), 5 + 4, "{requests:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn votes_seen_in_the_same_reading_mean_overtime() {
    let (mails, _) = poll_day(
        &[
            ("2026-11-29 19:50:00", vec![]),
            (
                "2026-11-29 20:00:00",
                vec![("大灰狼", "李逵"), ("小飞", "冷雪")],
            ),
            ("2026-11-29 21:00:00", vec![]),
        ],
        &[],
    )
    .await;
    let (subject, text) = mails
        .iter()
        .find(|(s, _)| s.contains("最终计票"))
        .expect("a final mail");
    assert!(subject.contains("加时 15 分钟"), "{subject}");
    assert!(text.contains("同一次读取"), "{text}");
}

/// A poll that cannot be read at the close gets no final tally from the last reading: the day
/// stays open and is tallied when the poll answers again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poll_unreadable_at_the_close_is_tallied_when_it_answers() {
    let (mails, _) = poll_day(
        &[
            ("2026-11-29 19:50:00", vec![("花千树", "李逵")]),
            ("2026-11-29 21:00:05", vec![("大灰狼", "李逵")]),
            ("2026-11-29 21:01:00", vec![]),
            ("2026-11-29 21:03:00", vec![]),
        ],
        &["2026-11-29 21:00:05", "2026-11-29 21:01:00"],
    )
    .await;
    let finals: Vec<&(String, String)> = mails
        .iter()
        .filter(|(s, _)| s.contains("最终计票"))
        .collect();
    assert_eq!(finals.len(), 1, "{mails:#?}");
    assert!(finals[0].1.contains("大灰狼"), "{}", finals[0].1);
}

/// qipan votes by private message: the daemon logs in as the judge, reads the inbox (API v1,
/// exact times) and each conversation with something new, and mails the final tally — counts
/// only in round 1 (seed 003 L102). The server replays the captured inbox.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn qipan_ballots_come_from_the_judges_inbox() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795957200; // 21:00
    let requests = Arc::new(Mutex::new(Vec::<String>::new()));
    struct PmResponder(Arc<Mutex<Vec<String>>>);
    impl Respond for PmResponder {
        fn respond(&self, req: &Request) -> ResponseTemplate {
            let q: BTreeMap<String, String> = req.url.query_pairs().into_owned().collect();
            self.0
                .lock()
                .unwrap()
                .push(req.url.query().unwrap_or("").to_string());
            let file = match q.get("touid") {
                Some(u) => format!("discuz/pm/mobile_v1_mypm_subop_view_touid{u}_judge.json"),
                None => "discuz/pm/mobile_v1_mypm_list_judge.json".into(),
            };
            match std::fs::read(common::fixtures().join(&file)) {
                Ok(b) => ResponseTemplate::new(200)
                    .insert_header("content-type", "application/json; charset=utf-8")
                    .set_body_bytes(b),
                // Conversations not captured as API answers: an empty conversation.
                Err(_) => ResponseTemplate::new(200)
                    .insert_header("content-type", "application/json; charset=utf-8")
                    .set_body_string(
                        r#"{"Version":"1","Variables":{"member_uid":"2","member_username":"版杀一室法官","list":[],"count":"0","perpage":"5","page":"1","pmid":"0"}}"#,
                    ),
            }
        }
    }
    Mock::given(method("GET"))
        .and(path("/api/mobile/index.php"))
        .and(query_param("module", "mypm"))
        .respond_with(PmResponder(requests.clone()))
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    std::fs::write(
        dir.path().join("games/banshayishi-12.toml"),
        format!(
            "ruleset = \"qipan\"\nname = \"棋盘局\"\n{}\n[[days]]\nday = 2\nvote_thread = 3\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n[rules.ballot]\nreason = \"optional\"\nformats = [{{ name = \"票\", vote = \"票 {{target}}\" }}]\n",
            common::ROSTER
        ),
    )
    .unwrap();
    let c = config.clone();
    let r = tokio::task::spawn_blocking(move || once(&c, "2026-11-29 21:05:00"))
        .await
        .unwrap();
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let mails: Vec<(String, String)> = mailbox
        .mails
        .lock()
        .unwrap()
        .iter()
        .map(|m| (summary(m).1, body(m)))
        .collect();
    let (subject, text) = mails
        .iter()
        .find(|(s, _)| s.contains("最终计票"))
        .expect("a final mail");
    // 小熊维尼 votes 李逵 by PM at 18:30; yucca's 21:02 message is late. (花千树's and 大灰狼's
    // conversations were captured only as desktop pages: served here as empty API answers.)
    assert!(text.contains("李逵 1 票\n"), "{text}");
    assert!(
        !text.contains("小熊维尼（"),
        "round 1 publishes counts only: {text}"
    );
    assert!(subject.contains("第2天"), "{subject}");
    let late = mails
        .iter()
        .find(|(s, _)| s.contains("无效票") && s.contains("yucca"))
        .expect("the late PM is reported");
    assert!(late.1.contains("截止"), "{}", late.1);
    // The inbox list, then each conversation.
    let q = requests.lock().unwrap().clone();
    assert!(
        q[0].contains("module=mypm") && !q[0].contains("touid"),
        "{q:?}"
    );
    assert_eq!(q.iter().filter(|x| x.contains("touid")).count(), 5, "{q:?}");
}

/// m103 acceleration (seed 002 L245): the daemon counts distinct living players asking in the
/// progress thread (here the captured discussion thread, tid 4, with requests added in the
/// captured post form) and tells the judge once, when more than half of the 12 living have asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acceleration_requests_past_half_are_mailed_once() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let game = dir.path().join("games/banshayishi-12.toml");
    let text = std::fs::read_to_string(&game).unwrap().replace(
        "discussion_threads = [4]\n",
        "discussion_threads = [4]\nprogress_thread = 4\n",
    );
    std::fs::write(&game, text).unwrap();
    // 11:00 + i minutes (2026-11-29 +08:00).
    let requests: [(u64, &str, i64, &str); 9] = [
        (901, "大灰狼", 0, "申请加速"),
        (902, "小飞", 5, "同意加速，拖着没意思"),
        (903, "大灰狼", 10, "再次申请加速"), // the same player twice counts once
        (904, "龙舌", 15, "支持加速"),       // out: does not count
        (905, "李逵", 20, "我觉得还不到时候"), // not a request
        (906, "花千树", 25, "赞成进程加速"),
        (907, "不见", 30, "同意 加速"),
        (908, "冷雪", 35, "申请加速"),
        (909, "蝈蝈", 40, "支持加速"),
    ];
    let late = (910u64, "超人", 90i64, "同意加速"); // 12:30: the 7th of 12 living
    {
        let mut f = forum.lock().unwrap();
        let template = f.discussion[1].clone();
        for (pid, author, minutes, text) in requests.iter().copied().chain([late]) {
            let mut p = template.clone();
            p["pid"] = Value::String(pid.to_string());
            p["author"] = Value::String(author.into());
            p["authorid"] = Value::String(common::member_uid(author));
            p["dbdateline"] = Value::String((1795921200 + minutes * 60).to_string());
            p["message"] = Value::String(text.into());
            f.discussion.push(p);
        }
        f.at = 1795924800; // 12:00
    }
    let accel = |mailbox: &Mailbox| {
        subjects(mailbox)
            .into_iter()
            .filter(|(_, s)| s.contains("加速"))
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
    };
    let c = config.clone();
    let r = tokio::task::spawn_blocking(move || once(&c, "2026-11-29 12:00:00"))
        .await
        .unwrap();
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    assert!(accel(&mailbox).is_empty(), "6 of 12 is not more than half");

    forum.lock().unwrap().at = 1795927200; // 12:40
    for now in ["2026-11-29 12:40:00", "2026-11-29 12:50:00"] {
        let c = config.clone();
        let r = tokio::task::spawn_blocking(move || once(&c, now))
            .await
            .unwrap();
        assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    }
    assert_eq!(
        accel(&mailbox),
        ["[版杀一室 第十二局] 第2天 申请加速的玩家已过半（7/12）"]
    );
    let mails = mailbox.mails.lock().unwrap().clone();
    let text = body(
        mails
            .iter()
            .find(|m| summary(m).1.contains("加速"))
            .unwrap(),
    );
    assert!(
        text.contains("需要 7 人，2026-11-29 12:30:00 时达到"),
        "{text}"
    );
    assert!(text.contains("accelerated_at"), "{text}");
    assert!(!text.contains("龙舌") && !text.contains("李逵"), "{text}");
}

fn chromium() -> PathBuf {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::var("PATH").unwrap_or_default().split(':') {
            let p = Path::new(dir).join(name);
            if p.is_file() {
                return p;
            }
        }
    }
    panic!("the dashboard test needs headless Chromium: apt-get install chromium (.ci/run does)");
}

/// Headless Chromium on a URL: the DOM after loading, and a screenshot written to `shot`.
fn browse(url: &str, shot: &Path, profile: &Path) -> String {
    let common = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--hide-scrollbars",
    ];
    let dom = std::process::Command::new(chromium())
        .args(common)
        .arg(format!("--user-data-dir={}", profile.join("a").display()))
        .args(["--dump-dom", url])
        .output()
        .unwrap();
    assert!(
        dom.status.success(),
        "{}",
        String::from_utf8_lossy(&dom.stderr)
    );
    let shot_run = std::process::Command::new(chromium())
        .args(common)
        .arg(format!("--user-data-dir={}", profile.join("b").display()))
        .arg(format!("--screenshot={}", shot.display()))
        .args(["--window-size=1280,2600", url])
        .output()
        .unwrap();
    assert!(
        shot_run.status.success(),
        "{}",
        String::from_utf8_lossy(&shot_run.stderr)
    );
    String::from_utf8_lossy(&dom.stdout).into_owned()
}

/// The judge's dashboard in a real browser: the service runs on the replay with its clock at
/// 20:30 (in the lock window), headless Chromium loads the page, and the tally it shows is the
/// one `bansha tally --live` prints, with the phase, the deadline, the timeline and the 潜水
/// counts. The screenshot lands in target/tmp/judge-view/dashboard.png.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_shows_the_live_tally_in_a_browser() {
    let (_mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795955400; // 2026-11-29 20:30:00 +08:00
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let port = pin_status_port(&config);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(["run", "--now", "2026-11-29 20:30:00", "--config"])
        .arg(&config)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let ask = |args: &[&str]| {
        let (code, out, _) = cli(&config, args);
        (code, out)
    };
    let mut ready = false;
    for _ in 0..150 {
        let (code, out) = tokio::task::block_in_place(|| ask(&["status"]));
        if code == Some(0) && out.contains("上一轮") {
            ready = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert!(ready, "the service did not finish a cycle");
    let (code, live) = tokio::task::block_in_place(|| ask(&["tally", "--live", "--day", "2"]));
    assert_eq!(code, Some(0));

    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("judge-view");
    std::fs::create_dir_all(&out).unwrap();
    let shot = out.join("dashboard.png");
    let _ = std::fs::remove_file(&shot);
    let url = format!("http://127.0.0.1:{port}/");
    let profile = dir.path().join("chromium");
    let dom = tokio::task::block_in_place(|| browse(&url, &shot, &profile));
    let _ = child.kill();
    let _ = child.wait();
    std::fs::write(out.join("dashboard.html"), &dom).unwrap();

    // Every count of the live tally is a row of the page's table.
    let counts = regex::Regex::new(r"(?m)^(\S+) (\d+(?:\.\d+)?) 票").unwrap();
    let rows: Vec<(String, String)> = counts
        .captures_iter(&live)
        .map(|c| (c[1].to_string(), c[2].to_string()))
        .filter(|(t, _)| t != "弃权")
        .collect();
    assert!(rows.len() >= 3, "{live}");
    let table = regex::Regex::new(r"<b>([^<]+)</b></td><td[^>]*>([0-9.]+)</td>").unwrap();
    let shown: Vec<(String, String)> = table
        .captures_iter(&dom)
        .map(|c| (c[1].to_string(), c[2].to_string()))
        .collect();
    assert_eq!(shown, rows, "{live}");
    assert!(dom.contains(
        "<td style=\"border:1px solid #ccc;padding:4px 10px;vertical-align:top\">弃权</td>"
    ));
    assert!(dom.contains("第2天 · 锁定时段（不得改票）"), "{dom}");
    assert!(dom.contains("截止：<b>2026-11-29 21:00:00</b>"), "{dom}");
    assert!(dom.contains("还有 30 分钟"), "{dom}");
    assert!(
        dom.contains("下一个时间点：<b>第2天 截止</b> 2026-11-29 21:00:00（还有 30 分钟）"),
        "{dom}"
    );
    assert!(dom.contains("<svg"), "the timeline: {dom}");
    assert!(dom.contains("发言统计（潜水）：截至目前"), "{dom}");
    assert!(dom.contains("<b style=\"color:#1a7f37\">正常</b>"), "{dom}");
    let png = std::fs::read(&shot).unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 50_000,
        "{}",
        png.len()
    );
}

/// Off loopback the dashboard needs a token: refused at load without one, 401 without it in
/// the request, the page with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_off_loopback_needs_its_token() {
    let (_mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795955400;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let port = TcpListener::bind("0.0.0.0:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let text = std::fs::read_to_string(&config).unwrap();
    let open = text.replace("127.0.0.1:0\"", &format!("0.0.0.0:{port}\""));
    std::fs::write(&config, &open).unwrap();
    let check = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(["check-config"])
        .arg(&config)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&check.stderr);
    assert_eq!(check.status.code(), Some(1), "{err}");
    assert!(err.contains("status.listen"), "{err}");
    assert!(err.contains("必须设置 token_file 或 token_env"), "{err}");

    std::fs::write(dir.path().join("token"), "s3cret-token\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            dir.path().join("token"),
            std::fs::Permissions::from_mode(0o600),
        )
        .unwrap();
    }
    let with_token = open.replace(
        &format!("listen = \"0.0.0.0:{port}\""),
        &format!("listen = \"0.0.0.0:{port}\"\ntoken_file = \"token\""),
    );
    assert_ne!(with_token, open);
    std::fs::write(&config, with_token).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(["run", "--now", "2026-11-29 20:30:00", "--config"])
        .arg(&config)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let client = reqwest::Client::new();
    let url = format!("http://127.0.0.1:{port}/");
    let mut answered = None;
    for _ in 0..100 {
        if let Ok(r) = client.get(&url).send().await {
            answered = Some(r.status().as_u16());
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(answered, Some(401));
    let wrong = client
        .get(format!("{url}?token=guess"))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status().as_u16(), 401);
    let page = client
        .get(format!("{url}?token=s3cret-token"))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status().as_u16(), 200);
    assert!(page.text().await.unwrap().contains("bansha 法官仪表盘"));
    // The CLI sends it too.
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(["status", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert_eq!(
        status.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let _ = child.kill();
    let _ = child.wait();
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
        .filter(|l| l.starts_with("reading tid 3: page "))
        .collect();
    assert_eq!(
        lines,
        (1..=10)
            .map(|t| format!("reading tid 3: page {}/250 ({}%)", t * 25, t * 10))
            .collect::<Vec<_>>(),
        "{log}"
    );
    // The short discussion thread (7 pages) goes without.
    assert!(!log.contains("reading tid 4"), "{log}");
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
    assert!(!screen.contains("reading tid 3: page"), "{screen}");
}

/// Every file under `dir`, recursively, as bytes with its path.
fn all_files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(b) = std::fs::read(&p) {
                out.push((p, b));
            }
        }
    }
    out
}

/// The forum password and the SMTP credentials never show: not in the service's log, `run
/// --once`'s report, `bansha status`, `tally --live`, the dashboard, the queued mails or any file
/// of the record. The run logs in (the forum answers "no permission" first) and fails to
/// authenticate to the SMTP server (which offers no AUTH on a plain connection), so both secrets
/// are used and both failure paths speak.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_never_appear_in_any_output() {
    const FORUM_PW: &str = "F0rum-Secret-pw!";
    const SMTP_PW: &str = "Smtp-Secret-pw!";
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    {
        let mut f = forum.lock().unwrap();
        f.at = 1795955400; // 20:30
        f.faults = vec![Fault::NoPermission];
    }
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    std::fs::write(dir.path().join("forum-password"), format!("{FORUM_PW}\n")).unwrap();
    let smtp_pw = dir.path().join("smtp-password");
    std::fs::write(&smtp_pw, format!("{SMTP_PW}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&smtp_pw, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let port = pin_status_port(&config);
    let text = std::fs::read_to_string(&config).unwrap().replace(
        "security = \"plain\"\n",
        "security = \"plain\"\nusername = \"bansha-user\"\npassword_file = \"smtp-password\"\n",
    );
    std::fs::write(&config, text).unwrap();

    let mut outputs: Vec<(String, String)> = Vec::new();
    let log = dir.path().join("service.log");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(["run", "--now", "2026-11-29 20:30:00", "--config"])
        .arg(&config)
        .stdout(std::fs::File::create(dir.path().join("service.out")).unwrap())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let ask = |args: &[&str]| {
        let (_, out, err) = cli(&config, args);
        format!("{out}{err}")
    };
    let mut status = String::new();
    for _ in 0..150 {
        status = tokio::task::block_in_place(|| ask(&["status"]));
        if status.contains("上一轮") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    outputs.push(("status".into(), status.clone()));
    outputs.push((
        "tally --live".into(),
        tokio::task::block_in_place(|| ask(&["tally", "--live", "--day", "2"])),
    ));
    let dashboard = reqwest::get(format!("http://127.0.0.1:{port}/"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    outputs.push(("dashboard".into(), dashboard.clone()));
    let _ = child.kill();
    let _ = child.wait();
    outputs.push((
        "service log".into(),
        std::fs::read_to_string(&log).unwrap_or_default(),
    ));
    // The close, by hand: its report carries the SMTP error.
    forum.lock().unwrap().at = 1795957260;
    let c = config.clone();
    let report = tokio::task::spawn_blocking(move || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
            .args(["run", "--once", "--now", "2026-11-29 21:01:00", "--config"])
            .arg(&c)
            .output()
            .unwrap();
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
    .await
    .unwrap();
    outputs.push(("run --once".into(), report.clone()));

    // Both secrets were used, and both failure paths spoke.
    assert!(forum.lock().unwrap().logged_in, "the login happened");
    assert!(
        mailbox.mails.lock().unwrap().is_empty(),
        "no mail got through"
    );
    assert!(report.contains("mails_waiting"), "{report}");
    assert!(
        dashboard.contains("未发出的邮件"),
        "the queued mails are pending: {dashboard}"
    );
    assert!(
        report.contains("No compatible authentication mechanism"),
        "the SMTP login was tried and its failure reported: {report}"
    );

    for (what, text) in &outputs {
        for secret in [FORUM_PW, SMTP_PW] {
            assert!(!text.contains(secret), "{what} shows a secret: {text}");
        }
    }
    // Nor any file the daemon wrote (the record, queued mails), other than the secret files.
    for (path, bytes) in all_files(dir.path()) {
        if path.ends_with("forum-password") || path.ends_with("smtp-password") {
            continue;
        }
        for secret in [FORUM_PW, SMTP_PW] {
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "{} holds a secret",
                path.display()
            );
        }
    }
}

/// The SMTP server down for a simulated hour (and more) across the busiest stretch of the day:
/// every mail an uninterrupted run sends arrives afterwards, once each, in the same order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smtp_down_for_an_hour_loses_nothing_and_keeps_the_order() {
    // 16:30 to 20:10 in ten-minute cycles: void ballots, a leader change, the lock.
    let times: Vec<(i64, String)> = (0..23)
        .map(|i| {
            let unix = 1795941000 + i * 600; // from 16:30
            let t = chrono::DateTime::from_timestamp(unix, 0)
                .unwrap()
                .with_timezone(&chrono::FixedOffset::east_opt(8 * 3600).unwrap());
            (unix, t.format("%Y-%m-%d %H:%M:%S").to_string())
        })
        .collect();
    let day = |down: Option<std::ops::Range<usize>>| {
        let times = times.clone();
        async move {
            let (mailbox, smtp_port) = smtp();
            let (server, forum) = forum_server().await;
            let dir = tempfile::tempdir().unwrap();
            let config = setup(dir.path(), &server.uri(), smtp_port);
            // The day so far, read before the stretch begins.
            forum.lock().unwrap().at = times[0].0 - 600;
            let c = config.clone();
            let first = times[0].0 - 600;
            let start = chrono::DateTime::from_timestamp(first, 0)
                .unwrap()
                .with_timezone(&chrono::FixedOffset::east_opt(8 * 3600).unwrap())
                .format("%Y-%m-%d %H:%M:%S")
                .to_string();
            tokio::task::spawn_blocking(move || once(&c, &start))
                .await
                .unwrap();
            let before = mailbox.mails.lock().unwrap().len();
            for (i, (unix, now)) in times.iter().enumerate() {
                let is_down = down.as_ref().is_some_and(|d| d.contains(&i));
                mailbox.refuse.store(is_down, Ordering::SeqCst);
                forum.lock().unwrap().at = *unix;
                let (c, now) = (config.clone(), now.clone());
                let r = tokio::task::spawn_blocking(move || once(&c, &now))
                    .await
                    .unwrap();
                if is_down {
                    assert!(
                        r["errors"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .any(|e| e.as_str().unwrap().contains("smtp")),
                        "{r}"
                    );
                }
            }
            let got: Vec<(String, String)> = subjects(&mailbox).split_off(before);
            drop(server);
            got
        }
    };
    let clean = day(None).await;
    // Down from 16:40 to 19:50 (cycles 1..=20): back for the 20:00 cycle.
    let outage = day(Some(1..21)).await;
    assert!(clean.len() >= 5, "{clean:#?}");
    let subjects_of = |v: &[(String, String)]| v.iter().map(|m| m.1.clone()).collect::<Vec<_>>();
    assert_eq!(
        subjects_of(&outage),
        subjects_of(&clean),
        "the same mails, in the same order"
    );
    let ids: BTreeSet<&String> = outage.iter().map(|m| &m.0).collect();
    assert_eq!(ids.len(), outage.len(), "each once");
    let clean_ids: Vec<&String> = clean.iter().map(|m| &m.0).collect();
    let outage_ids: Vec<&String> = outage.iter().map(|m| &m.0).collect();
    assert_eq!(outage_ids, clean_ids, "the same Message-IDs");
}

/// A forum that claims a million replies costs one extra request, not a hundred thousand: the
/// page past the end comes back as the last page again and the read stops there (and such a
/// read, cut short of the forum's own count, never takes a missing post for deleted). A forum
/// that answers a page number with an older page is an error for that read: nothing is
/// recorded from it, and no post is taken for deleted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forum_that_lies_about_its_pages_costs_nothing_and_deletes_nothing() {
    let (_mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let run = |now: &'static str| {
        let config = config.clone();
        async move {
            tokio::task::spawn_blocking(move || once(&config, now))
                .await
                .unwrap()
        }
    };
    // 19:00, the first read; the thread claims 999,999 replies (100,000 pages of 10).
    {
        let mut f = forum.lock().unwrap();
        f.at = 1795950000; // 19:00
        f.claim_replies = Some(999_999);
    }
    let r = run("2026-11-29 19:00:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    assert_eq!(
        forum.lock().unwrap().requests,
        4,
        "pages 1-3, then page 4 repeats page 3: {r}"
    );
    // 19:30, an ordinary poll: the last page, then the repeat.
    forum.lock().unwrap().requests = 0;
    forum.lock().unwrap().at = 1795951800;
    let r = run("2026-11-29 19:30:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    assert_eq!(forum.lock().unwrap().requests, 2, "{r}");

    // 20:01, the full read at the lock; page 3 answers with page 1.
    {
        let mut f = forum.lock().unwrap();
        f.claim_replies = None;
        f.at = 1795953660;
        f.serve_instead = Some((3, 1));
    }
    let r = run("2026-11-29 20:01:00").await;
    let errors = r["errors"].to_string();
    assert!(errors.contains("第 3 页返回的是前面某一页的帖子"), "{r}");
    // 20:05, the forum is right again.
    forum.lock().unwrap().serve_instead = None;
    forum.lock().unwrap().at = 1795953900;
    let r = run("2026-11-29 20:05:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    drop(server);
    let store = bansha::io::store::Store::open(&dir.path().join("state")).unwrap();
    let records = store.records(3).unwrap();
    assert!(records.len() > 25, "{}", records.len());
    let gone: Vec<u64> = records
        .iter()
        .filter(|r| r.gone_at.is_some())
        .map(|r| r.versions[0].post.pid)
        .collect();
    assert!(gone.is_empty(), "taken for deleted: {gone:?}");
}

/// A loopback proxy in front of the replay forum, one connection per request: while the forum's
/// fault is `Reset`, a vote-thread answer reaches the client with its headers and half its body,
/// and the connection closes (a reset mid-body as the client meets it).
async fn cutting_proxy(upstream: std::net::SocketAddr, forum: Arc<Mutex<Forum>>) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    async fn read_head(s: &mut tokio::net::TcpStream) -> Option<(Vec<u8>, Vec<u8>)> {
        let mut data = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
                let rest = data.split_off(end + 4);
                return Some((data, rest));
            }
            let n = s.read(&mut buf).await.ok()?;
            if n == 0 {
                return None;
            }
            data.extend_from_slice(&buf[..n]);
        }
    }
    fn content_length(head: &[u8]) -> usize {
        String::from_utf8_lossy(head)
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.trim()
                    .eq_ignore_ascii_case("content-length")
                    .then(|| v.trim().parse().ok())?
            })
            .unwrap_or(0)
    }
    async fn read_body(s: &mut tokio::net::TcpStream, mut have: Vec<u8>, len: usize) -> Vec<u8> {
        let mut buf = [0u8; 8192];
        while have.len() < len {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => have.extend_from_slice(&buf[..n]),
            }
        }
        have
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let forum = forum.clone();
            tokio::spawn(async move {
                let Some((head, rest)) = read_head(&mut client).await else {
                    return;
                };
                let body = read_body(&mut client, rest, content_length(&head)).await;
                let vote_thread = String::from_utf8_lossy(&head)
                    .lines()
                    .next()
                    .is_some_and(|l| l.contains("module=viewthread") && l.contains("tid=3&"));
                let mut up = tokio::net::TcpStream::connect(upstream).await.unwrap();
                up.write_all(&head).await.unwrap();
                up.write_all(&body).await.unwrap();
                let Some((rhead, rrest)) = read_head(&mut up).await else {
                    return;
                };
                let len = content_length(&rhead);
                let rbody = read_body(&mut up, rrest, len).await;
                let cut = vote_thread && matches!(forum.lock().unwrap().always, Some(Fault::Reset));
                let text = String::from_utf8_lossy(&rhead).into_owned();
                let (status, headers) = text.split_once("\r\n").unwrap();
                let _ = client
                    .write_all(format!("{status}\r\nconnection: close\r\n{headers}").as_bytes())
                    .await;
                let _ = client
                    .write_all(if cut { &rbody[..len / 2] } else { &rbody[..] })
                    .await;
                let _ = client.shutdown().await;
            });
        }
    });
    format!("http://{addr}")
}

/// What one run of the fault scenario left: the mails (Message-ID, subject) in arrival order,
/// the final tally's BBCode attachment, and each cycle's report and vote-thread requests.
struct FaultRun {
    mails: Vec<(String, String)>,
    bodies: Vec<String>,
    bbcode: Vec<u8>,
    cycles: Vec<(String, Value, usize)>,
}

/// The vote thread read at 16:00; from 18:00 to 18:45 and again at the close (21:06, 21:40)
/// every request for it meets `fault`; in between and afterwards the forum answers.
async fn fault_run(base: &str, forum: &Arc<Mutex<Forum>>, fault: Option<Fault>) -> FaultRun {
    let (mailbox, smtp_port) = smtp();
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), base, smtp_port);
    let mut cycles = Vec::new();
    // (forum time, daemon time, faulty)
    let steps: [(i64, &str, bool); 8] = [
        (1795939200, "2026-11-29 16:00:00", false),
        (1795946400, "2026-11-29 18:00:00", true),
        (1795946400, "2026-11-29 18:31:00", true),
        (1795946400, "2026-11-29 18:45:00", true),
        (1795946400, "2026-11-29 18:50:00", false),
        (1795957560, "2026-11-29 21:06:00", true),
        (1795957560, "2026-11-29 21:40:00", true),
        (1795957560, "2026-11-29 21:45:00", false),
    ];
    for (at, now, faulty) in steps {
        let before = {
            let mut f = forum.lock().unwrap();
            f.at = at;
            f.faults.clear();
            f.always = fault.clone().filter(|_| faulty);
            f.requests
        };
        let c = config.clone();
        let r = tokio::task::spawn_blocking(move || once(&c, now))
            .await
            .unwrap();
        let requests = forum.lock().unwrap().requests - before;
        cycles.push((now.to_string(), r, requests));
    }
    forum.lock().unwrap().always = None;
    let raw = mailbox.mails.lock().unwrap().clone();
    let bbcode = raw
        .iter()
        .filter(|m| summary(m).1.contains("最终计票"))
        .flat_map(|m| files(m))
        .find(|f| f.0.ends_with(".txt"))
        .map(|f| f.2)
        .unwrap_or_default();
    FaultRun {
        mails: raw.iter().map(|m| summary(m)).collect(),
        bodies: raw.iter().map(|m| body(m)).collect(),
        bbcode,
        cycles,
    }
}

/// Issue 10's forum faults, each against a fresh record on the replayed vote thread. For each:
/// every run ends with a report (the daemon keeps running); the failing cycles record nothing
/// (no new post, no edit, so no ballot invented) and no post is taken for deleted; a failing
/// read costs a bounded number of requests (retries with backoff only where asking again can
/// help); the judge is told once per fault streak, after 30 minutes (`poll.
/// fetch_failure_alert_minutes`), and at the close is told the final tally waits; once the
/// forum answers, the mails are exactly those of a run that never met the fault, with the same
/// final tally. (The captcha demand: `failures_are_mailed_once_and_captchas_at_once`; the
/// earlier page and the million-post reply count:
/// `a_forum_that_lies_about_its_pages_costs_nothing_and_deletes_nothing`.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_forum_fault_records_nothing_false_and_is_reported_once() {
    let (server, forum) = forum_server().await;
    let proxy = cutting_proxy(*server.address(), forum.clone()).await;
    let clean = fault_run(&proxy, &forum, None).await;
    let others = |run: &FaultRun| -> Vec<String> {
        run.mails
            .iter()
            .map(|m| m.1.clone())
            .filter(|s| !s.contains("无法读取论坛"))
            .collect()
    };
    assert!(others(&clean).iter().any(|s| s.contains("最终计票")));
    assert!(!clean.bbcode.is_empty());
    assert_eq!(others(&clean).len(), clean.mails.len());
    for (_, r, _) in &clean.cycles {
        assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    }

    // (fault, vote-thread requests per failing cycle: 1 + 2 retries where retrying can help)
    let faults = [
        (Fault::Status(500), 3),
        (Fault::Status(502), 3),
        (Fault::Status(503), 3),
        (Fault::Delay(std::time::Duration::from_secs(3)), 3),
        (Fault::Reset, 3),
        (Fault::Truncated, 1),
        (Fault::Html, 1),
        (Fault::NoPermission, 2),
        (Fault::Flood, 2),
        (Fault::Tainting, 1),
        // 1 + the 5 redirects followed; asking again cannot help.
        (Fault::RedirectLoop, 6),
    ];
    let mut table = Vec::new();
    for (fault, per_cycle) in faults {
        let name = format!("{fault:?}");
        let run = fault_run(&proxy, &forum, Some(fault)).await;
        for (now, r, requests) in &run.cycles {
            let faulty = [
                "2026-11-29 18:00:00",
                "2026-11-29 18:31:00",
                "2026-11-29 18:45:00",
                "2026-11-29 21:06:00",
                "2026-11-29 21:40:00",
            ]
            .contains(&now.as_str());
            if faulty {
                assert!(
                    r["fetch_failures"].as_u64().unwrap() >= 1,
                    "{name} {now}: {r}"
                );
                assert!(
                    r["errors"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|e| e.as_str().unwrap().starts_with("fetch tid 3")),
                    "{name} {now}: {r}"
                );
                assert_eq!(
                    r["new_posts"].as_u64(),
                    Some(
                        // The discussion thread (tid 4) still answers.
                        clean
                            .cycles
                            .iter()
                            .find(|c| &c.0 == now)
                            .map(|c| c.1["new_posts"].as_u64().unwrap())
                            .unwrap()
                            .min(r["new_posts"].as_u64().unwrap())
                    ),
                    "{name} {now}: {r}"
                );
                assert_eq!(r["edited_posts"], 0, "{name} {now}: {r}");
                assert_eq!(
                    *requests, per_cycle,
                    "{name} {now}: vote-thread requests: {r}"
                );
            } else {
                assert_eq!(r["errors"], serde_json::json!([]), "{name} {now}: {r}");
            }
        }
        // The recovery read at 18:50 finds the two ballots posted while the forum failed.
        let new_at = |run: &FaultRun, now: &str| {
            run.cycles.iter().find(|c| c.0 == now).unwrap().1["new_posts"]
                .as_u64()
                .unwrap()
        };
        let missed = new_at(&clean, "2026-11-29 18:00:00");
        assert_eq!(
            new_at(&run, "2026-11-29 18:50:00"),
            missed + new_at(&clean, "2026-11-29 18:50:00") - new_at(&run, "2026-11-29 18:00:00"),
            "{name}"
        );
        let failures: Vec<&String> = run
            .mails
            .iter()
            .map(|m| &m.1)
            .filter(|s| s.contains("无法读取论坛"))
            .collect();
        assert_eq!(failures.len(), 2, "{name}: once per streak: {failures:?}");
        let close_note = run
            .bodies
            .iter()
            .filter(|b| b.contains("无法读取帖子（tid 3）"))
            .nth(1)
            .unwrap();
        assert!(
            close_note.contains("第2天已于 2026-11-29 21:00:00 截止：最终计票要等论坛恢复"),
            "{name}: {close_note}"
        );
        assert_eq!(others(&run), others(&clean), "{name}: the same mails");
        assert_eq!(run.bbcode, clean.bbcode, "{name}: the same final tally");
        assert!(
            !others(&run).iter().any(|s| s.contains("删除")),
            "{name}: nothing taken for deleted"
        );
        table.push(format!("{name}: {per_cycle} requests per failing cycle"));
    }
    println!("{}", table.join("\n"));
}

/// One run of the crash scenario: the mailbox's Message-IDs and subjects in arrival order, and
/// the store at the end.
struct CrashRun {
    mails: Vec<(String, String)>,
    store: Vec<bansha::io::store::DumpEntry>,
    /// Per step: how long the uninterrupted cycle took and its vote-thread requests.
    steps: Vec<(std::time::Duration, usize)>,
    /// Kills by where they landed: polling, tallying, sending.
    landed: BTreeMap<&'static str, usize>,
}

/// The day in 20-minute cycles from 16:00 to the close, then 21:06 and 21:20 (the close read,
/// the after-close look). With `kills`, `(step, delay)` pairs: that step's cycle is started and
/// SIGKILLed after the delay, as often as listed, before it runs to the end.
async fn crash_run(kills: &[(usize, std::time::Duration)], clean: Option<&CrashRun>) -> CrashRun {
    let mut times: Vec<i64> = (0..16).map(|i| 1795939200 + i * 1200).collect(); // 16:00–21:00
    times.extend([1795957560, 1795958400]); // 21:06, 21:20
    let (mailbox, smtp_port) = smtp();
    mailbox.delay_ms.store(40, Ordering::SeqCst);
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let stamp = |unix: i64| {
        chrono::DateTime::from_timestamp(unix, 0)
            .unwrap()
            .with_timezone(&chrono::FixedOffset::east_opt(8 * 3600).unwrap())
            .format("%Y-%m-%d %H:%M:%S")
            .to_string()
    };
    let mut steps = Vec::new();
    let mut landed = BTreeMap::new();
    for (i, unix) in times.iter().enumerate() {
        forum.lock().unwrap().at = *unix;
        let now = stamp(*unix);
        for (_, delay) in kills.iter().filter(|k| k.0 == i) {
            let requests = forum.lock().unwrap().requests;
            let mails = mailbox.mails.lock().unwrap().len();
            let (c, now, delay) = (config.clone(), now.clone(), *delay);
            tokio::task::spawn_blocking(move || once_killed(&c, &now, delay))
                .await
                .unwrap();
            // Where it landed, from what the forum and the mailbox saw of the attempt, once the
            // server has finished with what the client sent before it died.
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            let polled = forum.lock().unwrap().requests - requests;
            let sent = mailbox.mails.lock().unwrap().len() - mails;
            let full = clean.map(|c| c.steps[i].1).unwrap_or(0);
            let at = if sent > 0 {
                "sending"
            } else if polled < full.max(1) {
                "polling"
            } else {
                "tallying"
            };
            *landed.entry(at).or_insert(0) += 1;
        }
        let requests = forum.lock().unwrap().requests;
        let start = std::time::Instant::now();
        let c = config.clone();
        let r = tokio::task::spawn_blocking(move || once(&c, &now))
            .await
            .unwrap();
        assert_eq!(r["errors"], serde_json::json!([]), "{r}");
        steps.push((start.elapsed(), forum.lock().unwrap().requests - requests));
    }
    // A mail the server accepted as its client died is recorded when the server finishes it.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let store = bansha::io::store::Store::open(&dir.path().join("state"))
        .unwrap()
        .dump(&["last_cycle"])
        .unwrap();
    CrashRun {
        mails: subjects(&mailbox),
        store,
        steps,
        landed,
    }
}

/// Crash safety (issue 10): `bansha run --once` is SIGKILLed at random moments of the day's
/// cycles — while polling, tallying and sending — and restarted each time; the final store
/// and the mailbox equal those of an uninterrupted run: every mail arrives, in the same order,
/// once (but for SMTP's own window, see below). CI kills 12 times at moments drawn from a fixed seed; `scripts/crash-test.sh`
/// kills 100 times from a fresh seed (`BANSHA_KILLS`, `BANSHA_KILL_SEED`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_at_random_moments_loses_nothing_and_sends_nothing_twice() {
    let kills: usize = std::env::var("BANSHA_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let mut seed: u64 = std::env::var("BANSHA_KILL_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed_ba45_a000_0001);
    println!("BANSHA_KILL_SEED={seed} BANSHA_KILLS={kills}");
    let mut next = move || {
        // xorshift64: reproducible from the printed seed.
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let clean = crash_run(&[], None).await;
    assert!(clean.mails.iter().any(|m| m.1.contains("最终计票")));
    // Each kill: a step, weighted by how long its cycle runs, and a moment within the cycle.
    let total: u128 = clean.steps.iter().map(|s| s.0.as_micros()).sum();
    let plan: Vec<(usize, std::time::Duration)> = (0..kills)
        .map(|_| {
            let mut at = (next() as u128) % total.max(1);
            let step = clean
                .steps
                .iter()
                .position(|s| {
                    let d = s.0.as_micros();
                    if at < d {
                        true
                    } else {
                        at -= d;
                        false
                    }
                })
                .unwrap_or(0);
            (step, std::time::Duration::from_micros(at as u64))
        })
        .collect();
    let killed = crash_run(&plan, Some(&clean)).await;

    let ids = |run: &CrashRun| -> Vec<String> {
        let mut seen = BTreeSet::new();
        run.mails
            .iter()
            .filter(|m| seen.insert(m.0.clone()))
            .map(|m| format!("{} {}", m.0, m.1))
            .collect()
    };
    let duplicates = killed.mails.len() - ids(&killed).len();
    println!(
        "kills: {kills} ({:?}); mails: {} expected, {} distinct received, {duplicates} duplicates; store entries: {} vs {}",
        killed.landed,
        clean.mails.len(),
        ids(&killed).len(),
        killed.store.len(),
        clean.store.len()
    );
    assert_eq!(ids(&killed), ids(&clean), "every mail, in order");
    // SMTP cannot promise more than this: a client killed after the end of a mail reached the
    // server and before the server's "250" reached it cannot know the mail went out (RFC 1047).
    // That window is one loopback round trip (well under a millisecond; `scripts/crash-test.sh`
    // has found no repeat in 300 kills), so a kill may repeat at most the one mail it fell in,
    // with the same Message-ID; a restart that sent anything else again fails here.
    let sending = killed.landed.get("sending").copied().unwrap_or(0);
    assert!(
        duplicates <= sending,
        "{duplicates} mails twice for {sending} kills while sending"
    );
    if killed.store != clean.store {
        let a: BTreeSet<_> = clean.store.iter().collect();
        let b: BTreeSet<_> = killed.store.iter().collect();
        let show = |e: &&bansha::io::store::DumpEntry| {
            format!(
                "{} {} {}",
                e.0,
                String::from_utf8_lossy(&e.1),
                String::from_utf8_lossy(&e.2)
                    .chars()
                    .take(200)
                    .collect::<String>()
            )
        };
        panic!(
            "stores differ:\nonly clean: {:#?}\nonly killed: {:#?}",
            a.difference(&b).map(show).collect::<Vec<_>>(),
            b.difference(&a).map(show).collect::<Vec<_>>()
        );
    }
}
