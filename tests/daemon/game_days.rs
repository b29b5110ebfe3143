//! A game, not a day (issue 30, Done when): three days of the captured game played against the
//! replay forum by one running service that is never restarted, while the judge only opens
//! threads on the forum and clicks on the dashboard in headless Chromium. Day 2 is the captured
//! day (its threads tid 3 and 4 on the captured board); days 3 and 4 are opened on the board
//! as the judge opens them (rows and first posts derived from the captured ones). Day 3's
//! round 1 ties and the rules give round 2 no time ("平票则平票者 PK 发言后再投", the game's
//! tie = "runoff"): the judge sets it on the dashboard. The days bansha found end up in the
//! game config; each elimination is stamped at the close it comes from.
//!
//! Time is the service's own `--clock-file`: the test writes the forum's time into the file and
//! waits for the service's scheduler to run its cycle; nothing else drives a cycle.

use crate::browser::Browser;
use crate::confirm_day::eliminations;
use crate::days_found::day_one_only;
use crate::support::*;
use std::time::Duration;

fn unix(t: &str) -> i64 {
    chrono::DateTime::parse_from_str(&format!("{t} +0800"), "%Y-%m-%d %H:%M:%S %z")
        .unwrap()
        .timestamp()
}

/// The threads the judge opens after the captured day: tid → (envelope, posts), and the board
/// rows for them: (tid, opened at, subject).
#[derive(Default)]
struct Opened {
    threads: BTreeMap<u64, (Value, Vec<Value>)>,
    rows: Vec<(u64, i64, String)>,
}

struct Game {
    forum: Arc<Mutex<Forum>>,
    opened: Arc<Mutex<Opened>>,
}

/// A derived thread of the opened ones, served as the mobile API serves the captured ones.
struct OpenedThread(Arc<Mutex<Opened>>, Arc<Mutex<Forum>>, u64);

impl Respond for OpenedThread {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let at = self.1.lock().unwrap().at;
        let o = self.0.lock().unwrap();
        let (envelope, posts) = &o.threads[&self.2];
        let visible: Vec<Value> = posts
            .iter()
            .filter(|p| p["dbdateline"].as_str().unwrap().parse::<i64>().unwrap() <= at)
            .cloned()
            .collect();
        let page: usize = req
            .url
            .query_pairs()
            .find(|(k, _)| k == "page")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(1);
        let replies = visible.len().saturating_sub(1) as u64;
        ResponseTemplate::new(200).set_body_json(served(envelope, &visible, page, replies))
    }
}

/// The captured board (forumdisplay fid 3) with a row for each opened thread the forum's time
/// has reached, above the captured rows, as Discuz lists the newest first. Each row is the
/// captured row of tid 3 with its tid, subject and opening time replaced.
struct Board(Arc<Mutex<Opened>>, Arc<Mutex<Forum>>);

impl Respond for Board {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        let captured = std::fs::read_to_string(
            common::fixtures().join("discuz/desktop/guest/forumdisplay_fid3.html"),
        )
        .unwrap();
        let start = captured.find("<tbody id=\"normalthread_3\">").unwrap();
        let end = start + captured[start..].find("</tbody>").unwrap() + "</tbody>\n".len();
        let row = &captured[start..end];
        let at = self.1.lock().unwrap().at;
        let mut rows = String::new();
        for (tid, opened, subject) in self.0.lock().unwrap().rows.iter().rev() {
            if *opened > at {
                continue;
            }
            let when = chrono::DateTime::from_timestamp(*opened, 0)
                .unwrap()
                .with_timezone(&chrono::FixedOffset::east_opt(8 * 3600).unwrap());
            rows += &row
                .replace("tid=3&", &format!("tid={tid}&"))
                .replace("normalthread_3", &format!("normalthread_{tid}"))
                .replace("content_3", &format!("content_{tid}"))
                .replace("CONTENT_TID='3'", &format!("CONTENT_TID='{tid}'"))
                .replace("【第十二局】投票帖 第二天", subject)
                .replace(
                    "<span title=\"2026-11-27\">前天&nbsp;21:03</span>",
                    &format!(
                        "<span title=\"{}\">今天&nbsp;{}</span>",
                        when.format("%Y-%m-%d"),
                        when.format("%H:%M")
                    ),
                );
        }
        let body = format!("{}{rows}{}", &captured[..start], &captured[start..]);
        ResponseTemplate::new(200).set_body_raw(body, "text/html; charset=utf-8")
    }
}

impl Game {
    async fn mount(server: &MockServer, forum: Arc<Mutex<Forum>>) -> Game {
        let opened = Arc::new(Mutex::new(Opened::default()));
        Mock::given(method("GET"))
            .and(path("/forum.php"))
            .and(query_param("mod", "forumdisplay"))
            .and(query_param("fid", "3"))
            .respond_with(Board(opened.clone(), forum.clone()))
            .mount(server)
            .await;
        Game { forum, opened }
    }

    /// The judge opens day `day`'s vote thread `tid` and discussion thread `tid + 1` at
    /// `opened`, the vote thread's first post (pid 19's, as the judge wrote day 2's) naming the
    /// deadline `deadline` ("2026年11月30日 21:00").
    async fn open_day(
        &self,
        server: &MockServer,
        tid: u64,
        day: &str,
        opened: &str,
        deadline: &str,
    ) {
        let (_, vote_env) = captured("tid3_vote", 1);
        let (talk, talk_env) = captured("tid4_discussion", 1);
        {
            let first = self.forum.lock().unwrap().posts[0].clone();
            assert_eq!(first["pid"], "19");
            let text = first["message"]
                .as_str()
                .unwrap()
                .replace("第二天", day)
                .replace("2026年11月29日 21:00", deadline)
                .replace("tid=4", &format!("tid={}", tid + 1));
            let at = unix(opened);
            let thread = |env: &Value, tid: u64, subject: &str, first: Value| {
                let mut env = env.clone();
                env["Variables"]["thread"]["tid"] = Value::String(tid.to_string());
                env["Variables"]["thread"]["subject"] = Value::String(subject.into());
                env["Variables"]["thread"]["short_subject"] = Value::String(subject.into());
                env["Variables"]["thread"]["dateline"] = Value::String(at.to_string());
                let mut first = first;
                first["tid"] = Value::String(tid.to_string());
                (env, vec![first])
            };
            let vote_subject = format!("【第十二局】投票帖 {day}");
            let talk_subject = format!("【第十二局】讨论帖 {day}");
            let mut o = self.opened.lock().unwrap();
            o.threads.insert(
                tid,
                thread(
                    &vote_env,
                    tid,
                    &vote_subject,
                    post_like(&first, tid * 1000, "版杀一室法官", at, &text),
                ),
            );
            o.threads.insert(
                tid + 1,
                thread(
                    &talk_env,
                    tid + 1,
                    &talk_subject,
                    post_like(
                        &talk[0],
                        (tid + 1) * 1000,
                        "版杀一室法官",
                        at,
                        &format!("{day} 讨论帖"),
                    ),
                ),
            );
            o.rows.push((tid, at, vote_subject));
            o.rows.push((tid + 1, at, talk_subject));
        }
        for t in [tid, tid + 1] {
            Mock::given(method("GET"))
                .and(path("/api/mobile/index.php"))
                .and(query_param("module", "viewthread"))
                .and(query_param("tid", t.to_string().as_str()))
                .respond_with(OpenedThread(self.opened.clone(), self.forum.clone(), t))
                .mount(server)
                .await;
        }
    }

    /// Ballots (格式二, the game's own) posted in vote thread `tid`: (voter, time, target).
    fn ballots(&self, tid: u64, ballots: &[(&str, &str, &str)]) {
        let template = self.forum.lock().unwrap().posts[1].clone();
        let mut o = self.opened.lock().unwrap();
        let posts = &mut o.threads.get_mut(&tid).unwrap().1;
        for (voter, at, target) in ballots {
            let pid = tid * 1000 + posts.len() as u64;
            let mut p = post_like(
                &template,
                pid,
                voter,
                unix(at),
                &format!("投票对象：{target}<br />\n投票理由：发言可疑"),
            );
            p["tid"] = Value::String(tid.to_string());
            p["number"] = Value::String((posts.len() + 1).to_string());
            posts.push(p);
        }
    }
}

/// Move the forum's and the service's time to `t`, and wait until the service's scheduler has
/// run a cycle at it.
async fn step(game: &Game, clock: &Path, port: u16, t: &str) {
    game.forum.lock().unwrap().at = unix(t);
    std::fs::write(clock, t).unwrap();
    let want =
        chrono::DateTime::parse_from_str(&format!("{t} +0800"), "%Y-%m-%d %H:%M:%S %z").unwrap();
    // Generous: a close's cycle (a full read, the chart, the mails) on a loaded 2-core machine.
    for _ in 0..1800 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            // Not listening yet (the service is starting).
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        }
        let status = tokio::task::block_in_place(|| http_get(port, "/status"));
        let json = status.split("\r\n\r\n").nth(1).unwrap_or_default();
        if let Ok(v) = serde_json::from_str::<Value>(json) {
            let at = v["last_cycle"]["at"]
                .as_str()
                .and_then(|a| chrono::DateTime::parse_from_rfc3339(a).ok());
            if at.is_some_and(|a| a >= want) {
                assert_eq!(
                    v["last_cycle"]["errors"],
                    serde_json::json!([]),
                    "the cycle at {t}: {v}"
                );
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no cycle of the service at {t}");
}

/// The judge opens the dashboard, clicks the button whose text has `button` (after typing
/// `input` into its row's field, if any), and waits for the answer.
fn click(b: &mut Browser, port: u16, button: &str, input: Option<&str>) {
    let find = format!(
        "[...document.querySelectorAll('button')].find(x => x.textContent.includes({}))",
        serde_json::json!(button)
    );
    b.open(&format!("http://127.0.0.1:{port}/"), &format!("!!{find}"));
    if let Some(text) = input {
        b.eval(&format!(
            "{find}.parentNode.querySelector('input.closes').value = {}",
            serde_json::json!(text)
        ));
    }
    b.eval(&format!("window.__row = {find}.parentNode; {find}.click()"));
    // Done: the page reloads (the script reloads it after a success; an error stays shown and
    // the wait fails with the page's text).
    b.wait("window.__row === undefined", Duration::from_secs(120));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_days_with_a_runoff_are_run_by_one_service_and_the_judges_clicks() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let game = Game::mount(&server, forum).await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("[poll]\n", "[poll]\nnear_close_secs = 1\n");
    std::fs::write(&config, text).unwrap();
    let game_file = day_one_only(dir.path());
    let port = pin_status_port(&config);
    let clock = dir.path().join("now");
    std::fs::write(&clock, "2026-11-29 20:00:00").unwrap();
    game.forum.lock().unwrap().at = unix("2026-11-29 20:00:00");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(["run", "--clock-file"])
        .arg(&clock)
        .arg("--config")
        .arg(&config)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut child = Running(child);
    step(&game, &clock, port, "2026-11-29 20:00:00").await;
    let mut b = tokio::task::block_in_place(|| Browser::launch(&dir.path().join("cdp")));
    tokio::task::block_in_place(|| {
        // Day 2, the captured one: found on the board, its deadline read from pid 19.
        click(&mut b, port, "开始监视第 2 天", None);
    });
    step(&game, &clock, port, "2026-11-29 21:00:05").await;
    // Day 3 opened on the forum in the morning: round 1 ties 3–3.
    game.open_day(
        &server,
        13,
        "第三天",
        "2026-11-30 09:00:00",
        "2026年11月30日 21:00",
    )
    .await;
    game.ballots(
        13,
        &[
            ("大灰狼", "2026-11-30 10:00:00", "小飞"),
            ("花千树", "2026-11-30 10:05:00", "小飞"),
            ("不见", "2026-11-30 11:00:00", "小飞"),
            ("冷雪", "2026-11-30 12:00:00", "蝈蝈"),
            ("超人", "2026-11-30 13:00:00", "蝈蝈"),
            ("音乐虫子", "2026-11-30 14:00:00", "蝈蝈"),
        ],
    );
    step(&game, &clock, port, "2026-11-29 21:10:00").await;
    tokio::task::block_in_place(|| {
        click(&mut b, port, "确认第 2 天结果", None);
    });
    step(&game, &clock, port, "2026-11-30 09:30:00").await;
    tokio::task::block_in_place(|| {
        click(&mut b, port, "开始监视第 3 天", None);
    });
    step(&game, &clock, port, "2026-11-30 21:00:05").await;
    // Round 2 of day 3, in the same thread, after the judge has set its close.
    game.ballots(
        13,
        &[
            ("大灰狼", "2026-11-30 21:20:00", "小飞"),
            ("花千树", "2026-11-30 21:25:00", "小飞"),
            ("不见", "2026-11-30 21:30:00", "小飞"),
            ("冷雪", "2026-11-30 21:35:00", "蝈蝈"),
        ],
    );
    step(&game, &clock, port, "2026-11-30 21:06:00").await;
    tokio::task::block_in_place(|| {
        if let Ok(dir) = std::env::var("BANSHA_SCREENSHOTS") {
            b.open(&format!("http://127.0.0.1:{port}/"), "true");
            b.screenshot(&std::path::Path::new(&dir).join("dashboard-runoff.png"));
        }
        click(
            &mut b,
            port,
            "设定第 3 天第二轮截止时间",
            Some("2026-11-30 23:00"),
        );
    });
    step(&game, &clock, port, "2026-11-30 23:00:05").await;
    step(&game, &clock, port, "2026-11-30 23:10:00").await;
    // Day 4.
    game.open_day(
        &server,
        23,
        "第四天",
        "2026-12-01 09:00:00",
        "2026年12月1日 21:00",
    )
    .await;
    game.ballots(
        23,
        &[
            ("大灰狼", "2026-12-01 10:00:00", "蝈蝈"),
            ("花千树", "2026-12-01 11:00:00", "蝈蝈"),
            ("冷雪", "2026-12-01 12:00:00", "花千树"),
        ],
    );
    tokio::task::block_in_place(|| {
        click(&mut b, port, "确认第 3 天结果", None);
    });
    step(&game, &clock, port, "2026-12-01 09:30:00").await;
    tokio::task::block_in_place(|| {
        click(&mut b, port, "开始监视第 4 天", None);
    });
    step(&game, &clock, port, "2026-12-01 21:00:05").await;
    step(&game, &clock, port, "2026-12-01 21:10:00").await;
    tokio::task::block_in_place(|| {
        click(&mut b, port, "确认第 4 天结果", None);
        if let Ok(dir) = std::env::var("BANSHA_SCREENSHOTS") {
            b.open(&format!("http://127.0.0.1:{port}/"), "true");
            b.screenshot(&std::path::Path::new(&dir).join("dashboard-game.png"));
        }
    });
    // One service from the first day to the last.
    assert!(
        child.0.try_wait().unwrap().is_none(),
        "the service ran throughout"
    );

    // Each final is right.
    let finals = final_texts(&mailbox);
    let of = |needle: &str| -> String {
        finals
            .iter()
            .find(|t| t.contains(needle))
            .cloned()
            .unwrap_or_else(|| panic!("no final with {needle}: {finals:#?}"))
    };
    assert!(of("第2天").contains("李逵 以 4 票最高"));
    let asked = mails_about(&mailbox, "请设置第二轮截止时间");
    assert_eq!(asked.len(), 1, "{:?}", subject_lines(&mailbox));
    assert!(asked[0].0.contains("小飞、蝈蝈"), "{}", asked[0].0);
    assert!(of("第3天 第一轮").contains("小飞、蝈蝈 平票（各 3 票），进入第二轮"));
    let day3 = of("第3天 第二轮");
    assert!(day3.contains("小飞 以 3 票最高"), "{day3}");
    let day4 = of("第4天");
    assert!(day4.contains("蝈蝈 以 2 票最高"), "{day4}");
    // 14 players: 龙舌 (day 1, the judge's own `dead`), 李逵 (day 2) and 小飞 (day 3) out
    // from the record, none of them typed.
    assert!(day4.contains("存活玩家：11 人"), "{day4}");
    for out in ["李逵", "小飞", "龙舌"] {
        assert!(!day4.contains(out), "{out} is out: {day4}");
    }

    // The days bansha found are in the game config, with day 3's run-off as the judge set it.
    let written = std::fs::read_to_string(&game_file).unwrap();
    for tid in ["vote_thread = 3", "vote_thread = 13", "vote_thread = 23"] {
        assert!(written.contains(tid), "{written}");
    }
    assert!(
        written.contains(
            "runoff = { closes_at = \"2026-11-30 23:00\", candidates = [\"小飞\", \"蝈蝈\"] }"
        ),
        "{written}"
    );
    // Each elimination at its close: day 3's at round 2's.
    assert_eq!(
        eliminations(&game_file),
        [
            ("李逵".to_string(), "2026-11-29T21:00:00+08:00".to_string()),
            ("小飞".to_string(), "2026-11-30T23:00:00+08:00".to_string()),
            ("蝈蝈".to_string(), "2026-12-01T21:00:00+08:00".to_string()),
        ]
    );
    child.0.kill().unwrap();
    child.0.wait().unwrap();
}
