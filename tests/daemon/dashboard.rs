//! The dashboard in headless Chromium, and its token off loopback.

use crate::support::*;

pub(crate) fn chromium() -> PathBuf {
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
/// How the tests run Chromium: headless, in a container, with nothing of a first run.
pub(crate) const CHROMIUM_FLAGS: [&str; 6] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--hide-scrollbars",
];

/// Headless Chromium on a URL: the DOM after loading, and a screenshot written to `shot`.
pub(crate) fn browse(url: &str, shot: &Path, profile: &Path) -> String {
    let common = CHROMIUM_FLAGS;
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
pub(crate) async fn the_dashboard_shows_the_live_tally_in_a_browser() {
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
    // The tally's BBCode, the same as `tally --live`, in a box with a copy button (issue 21);
    // the rule system by name.
    assert!(dom.contains("<textarea id=\"bbcode-day-2\""), "{dom}");
    assert!(dom.contains(">复制 BBCode</button>"), "{dom}");
    let first_count = live.lines().find(|l| l.contains(" 票：")).unwrap();
    assert!(dom.contains(first_count), "{first_count}");
    assert!(dom.contains("<p>规则：banshayishi（"), "{dom}");
    assert!(
        !dom.contains("发到投票帖…"),
        "no posting unless the config allows it: {dom}"
    );
    // m103 L331 "禁止使用红色字体": the red posts so far, each linked to its floor (judge-only).
    assert!(dom.contains("需要注意的帖子（仅法官可见"), "{dom}");
    assert!(
        dom.contains("ptid=3&amp;pid=103\">26# 超人</a>：红色字体"),
        "{dom}"
    );
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
pub(crate) async fn the_dashboard_off_loopback_needs_its_token() {
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
    bansha::io::tls::ensure_provider();
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

/// The dashboard answers only the host names it is reached by (issue 18, break 10): a page on
/// another site that rebinds its name to 127.0.0.1 sends its own Host and gets nothing — not
/// the roles, and no POST into the ledger; a cross-site POST is refused by its Origin. The
/// judge's state file (roles) is written 0600.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_answers_only_its_own_host_names() {
    use std::io::{Read, Write};
    let (_mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795953600;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let port = pin_status_port(&config);
    let (mut child, _) = start_service(&config, Some("2026-11-29 20:00:00")).await;
    let ask = |request: String| -> String {
        for _ in 0..100 {
            if let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) {
                s.write_all(request.as_bytes()).unwrap();
                let mut out = String::new();
                let _ = s.read_to_string(&mut out);
                if !out.is_empty() {
                    return out;
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!("the dashboard never answered");
    };
    let get = |host: &str| {
        ask(format!(
            "GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        ))
    };
    let ok = tokio::task::block_in_place(|| get(&format!("127.0.0.1:{port}")));
    assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
    let ok = tokio::task::block_in_place(|| get(&format!("localhost:{port}")));
    assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
    let evil = tokio::task::block_in_place(|| get(&format!("evil.example:{port}")));
    assert!(evil.starts_with("HTTP/1.1 403"), "{evil}");
    assert!(!evil.contains("版杀一室"), "{evil}");
    let body = r#"{"action":"add","player":"超人","kind":"red_card","reason":"x"}"#;
    let post = |host: &str, origin: &str| {
        ask(format!(
            "POST /ledger HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ))
    };
    let rebound = tokio::task::block_in_place(|| {
        post(&format!("evil.example:{port}"), "http://evil.example")
    });
    assert!(rebound.starts_with("HTTP/1.1 403"), "{rebound}");
    let cross =
        tokio::task::block_in_place(|| post(&format!("127.0.0.1:{port}"), "http://evil.example"));
    assert!(cross.starts_with("HTTP/1.1 403"), "{cross}");
    let (code, ledger, _) = tokio::task::block_in_place(|| cli(&config, &["ledger"]));
    assert_eq!(code, Some(0));
    assert!(!ledger.contains("红牌"), "{ledger}");
    std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let _ = tokio::task::block_in_place(|| child.wait());

    // The state file, as `bansha change` writes it.
    let game = dir.path().join("games/banshayishi-12.toml");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(["change", "--config"])
        .arg(&game)
        .args(["eliminate", "yucca", "--cause", "夜杀"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join("games/banshayishi-12.state.json"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }
    drop(server);
}

/// The judge's rulings on single ballots (issue 19): from the CLI (`bansha ruling`) the running
/// daemon counts a void post as a vote for a player and voids a valid change; the public tally
/// shows both as 法官裁定 with their reasons; the dashboard lists them with its form; a post
/// from another site is refused; undoing a ruling restores the tally.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_judges_rulings_are_applied_shown_and_undone() {
    use std::io::{Read, Write};
    let (_mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795953600; // 20:00
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let port = pin_status_port(&config);
    let (mut child, _) = start_service(&config, Some("2026-11-29 20:00:00")).await;
    let ask = |args: &[&str]| tokio::task::block_in_place(|| cli(&config, args));
    let live = || {
        let (code, text, err) = ask(&["tally", "--live", "--day", "2"]);
        assert_eq!(code, Some(0), "{err}");
        text
    };
    let before = live();
    assert!(before.contains("12# 不见（投票：路人甲）"), "{before}");

    // 12# 不见 voted for 路人甲 (not a player); 20# 冷雪's change to 不见 is valid.
    let (code, out, err) = ask(&[
        "ruling",
        "--day",
        "2",
        "--pid",
        "62",
        "--count-for",
        "冷雪",
        "--reason",
        "路人甲是冷雪的旧ID",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        out.contains("pid 62：按投 冷雪 计（路人甲是冷雪的旧ID）"),
        "{out}"
    );
    let (code, _, err) = ask(&[
        "ruling",
        "--day",
        "2",
        "--pid",
        "65",
        "--void",
        "--reason",
        "改票未引用原帖",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let (code, _, err) = ask(&[
        "ruling",
        "--day",
        "2",
        "--pid",
        "66",
        "--count-for",
        "路人甲",
        "--reason",
        "x",
    ]);
    assert_eq!(code, Some(1), "not a player: refused");
    assert!(err.contains("路人甲 不是本局玩家"), "{err}");

    // The next tally (started at once) applies them.
    let mut ruled = String::new();
    for _ in 0..50 {
        ruled = live();
        if ruled.contains("法官裁定") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert!(
        ruled.contains("[b]法官裁定[/b]\n12# 不见：按投 冷雪 计：路人甲是冷雪的旧ID\n"),
        "{ruled}"
    );
    assert!(ruled.contains("作废：改票未引用原帖"), "{ruled}");
    assert!(
        ruled.contains("不见（12#，法官裁定"),
        "the vote is listed under 冷雪: {ruled}"
    );

    // The dashboard lists them, with the form; another site cannot post one.
    let http = |request: String| -> String {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        out
    };
    let page = tokio::task::block_in_place(|| {
        http(format!(
            "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
        ))
    });
    assert!(page.contains("法官裁定（单张票）"), "{page}");
    assert!(
        page.contains("pid 62：按投 冷雪 计（路人甲是冷雪的旧ID）"),
        "{page}"
    );
    assert!(page.contains("<form class=\"ruling\""), "{page}");
    let body = r#"{"action":"add","day":2,"pid":70,"void":true,"reason":"x"}"#;
    let cross = tokio::task::block_in_place(|| {
        http(format!(
            "POST /rulings HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://evil.example\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ))
    });
    assert!(cross.starts_with("HTTP/1.1 403"), "{cross}");

    // Undone: the tally is as before.
    let (_, list, _) = ask(&["ruling"]);
    let ids: Vec<String> = list
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .collect();
    for id in &ids {
        let (code, _, err) = ask(&["ruling", "--remove", id]);
        assert_eq!(code, Some(0), "{err}");
    }
    let mut after = String::new();
    for _ in 0..50 {
        after = live();
        if !after.contains("法官裁定") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let untimed = |t: &str| -> String {
        t.lines()
            .filter(|l| !l.contains("统计时间"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(untimed(&after), untimed(&before));
    std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let _ = tokio::task::block_in_place(|| child.wait());
}

/// Issue 21: the service says where its dashboard is when it starts. Issue 32: with
/// `listen = "127.0.0.1:0"` it says the port the system gave (not `:0`), and the page answers
/// there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_logs_the_dashboard_url_at_start() {
    use std::io::BufRead;
    let (_mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795000000;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    assert!(std::fs::read_to_string(&config)
        .unwrap()
        .contains("127.0.0.1:0"));
    let mut child = Running(
        std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
            .args(["run", "--now", "2026-11-20 12:00:00", "--config"])
            .arg(&config)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let stderr = child.0.stderr.take().unwrap();
    let prefix = "仪表盘（dashboard）：http://127.0.0.1:";
    let line = tokio::task::spawn_blocking(move || {
        std::io::BufReader::new(stderr)
            .lines()
            .take(50)
            .map_while(Result::ok)
            .find(|l| l.contains(prefix))
    })
    .await
    .unwrap()
    .expect("the dashboard's address is logged at start");
    let port: u16 = line[line.find(prefix).unwrap() + prefix.len()..]
        .trim_end_matches('/')
        .parse()
        .unwrap_or_else(|_| panic!("{line}"));
    assert_ne!(port, 0, "{line}");
    let page = reqwest::get(format!("http://127.0.0.1:{port}/status"))
        .await
        .unwrap();
    assert!(page.status().is_success(), "{line}: {}", page.status());
}

/// Issue 21: the judge rules on single ballots from the dashboard, in a real browser — each
/// ballot row's buttons (count it for the player it names, void it, count it for another
/// player), each with its reason; without a reason nothing is posted. The rulings reach the
/// tally the judge pastes (`tally --live`), and a post that does not come from the dashboard's
/// own script (no X-Bansha header, or from another site) is refused. The page after the
/// rulings lands in target/tmp/judge-view/dashboard-rulings.png.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_judge_rules_on_ballots_from_the_dashboard_in_a_browser() {
    use crate::browser::Browser;
    let (_mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795953600; // 20:00
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let port = pin_status_port(&config);
    let (mut child, _) = start_service(&config, Some("2026-11-29 20:00:00")).await;
    let url = format!("http://127.0.0.1:{port}/");
    let profile = dir.path().join("cdp");
    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("judge-view");
    std::fs::create_dir_all(&shot).unwrap();
    tokio::task::block_in_place(|| {
        let mut b = Browser::launch(&profile);
        b.open(&url, "document.querySelector('table.ballots')");
        let row = |pid: u64| format!("document.querySelector('span.rule[data-pid=\"{pid}\"]')");
        // Reloaded until the page shows `text` (the ruling is applied by the cycle it starts).
        let shown = |b: &mut Browser, text: &str| {
            for _ in 0..60 {
                b.open(&url, "document.querySelector('table.ballots')");
                if b.eval(&format!("document.body.innerText.includes({text:?})")) == true {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(250));
            }
            panic!("never shown: {text}");
        };
        // 20# 冷雪's valid change: void needs a reason first; nothing is posted without one.
        b.eval(&format!("{}.querySelector('button.void').click()", row(65)));
        assert_eq!(
            b.eval(&format!("{}.querySelector('.msg').textContent", row(65))),
            "请先写理由"
        );
        // 12# 不见 wrote 路人甲 (no player): counted for 冷雪.
        b.eval(&format!(
            "var r={}; r.querySelector('.why').value='路人甲是冷雪的旧ID'; r.querySelector('.to').value='冷雪'; r.querySelector('button.redirect').click()",
            row(62)
        ));
        shown(&mut b, "按投 冷雪 计：路人甲是冷雪的旧ID");
        b.eval(&format!(
            "var r={}; r.querySelector('.why').value='改票未引用原帖'; r.querySelector('button.void').click()",
            row(65)
        ));
        shown(&mut b, "无效（法官裁定）：改票未引用原帖");
        // 7# 小熊维尼's malformed ballot names 超人: counted as written.
        let seven = "[...document.querySelectorAll('table.ballots tr')].find(r => r.cells[0].textContent === '7#')";
        assert_eq!(
            b.eval(&format!(
                "{seven}.querySelector('button.accept').textContent"
            )),
            "按投 超人 计"
        );
        b.eval(&format!(
            "var r={seven}; r.querySelector('.why').value='冒号是全角'; r.querySelector('button.accept').click()"
        ));
        shown(&mut b, "按投 超人 计：冒号是全角");
        b.screenshot(&shot.join("dashboard-rulings.png"));
    });
    let (code, live, err) =
        tokio::task::block_in_place(|| cli(&config, &["tally", "--live", "--day", "2"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(
        live.contains("12# 不见：按投 冷雪 计：路人甲是冷雪的旧ID"),
        "{live}"
    );
    assert!(live.contains("作废：改票未引用原帖"), "{live}");
    assert!(
        live.contains("7# 小熊维尼：按投 超人 计：冒号是全角"),
        "{live}"
    );
    // Not from the dashboard's script: refused, and nothing added.
    let body = r#"{"action":"add","day":2,"pid":70,"void":true,"reason":"x"}"#;
    for headers in [
        "Content-Type: application/json\r\n".to_string(),
        "Origin: http://evil.example\r\nContent-Type: text/plain\r\nX-Bansha: judge\r\n".into(),
    ] {
        let answer = tokio::task::block_in_place(|| {
            raw_http(
                port,
                &format!(
                    "POST /rulings HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                ),
            )
        });
        assert!(answer.starts_with("HTTP/1.1 403"), "{headers}: {answer}");
    }
    let (_, list, _) = tokio::task::block_in_place(|| cli(&config, &["ruling"]));
    assert_eq!(list.lines().count(), 3, "{list}");
    let _ = child.kill();
    let _ = child.wait();
}

/// Issue 21: a closed day stays on the dashboard with its final, also after the service was
/// restarted once the day was over (the page is drawn from the record, not from what a cycle
/// of this process watched).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_day_stays_on_the_dashboard_after_a_restart() {
    let (_mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    cycles(
        &config,
        &forum,
        &[
            ("2026-11-29 21:06:00", 1795957560),
            ("2026-11-29 21:20:00", 1795958400),
        ],
    )
    .await;
    let port = pin_status_port(&config);
    let (mut child, _) = start_service(&config, Some("2026-11-30 12:00:00")).await;
    let page = tokio::task::block_in_place(|| http_get(port, "/"));
    let _ = child.kill();
    let _ = child.wait();
    assert!(page.contains("第2天 · 已截止"), "{page}");
    assert!(
        page.contains("<b>结果：</b>李逵 以 4 票最高，出局"),
        "{page}"
    );
    assert!(page.contains("<textarea id=\"bbcode-day-2\""), "{page}");
    assert!(
        page.contains("李逵 4 票：yucca（9#）"),
        "the final's BBCode: {page}"
    );
    assert!(
        page.contains("发言统计（潜水）</h4>"),
        "the day's 潜水 verdicts: {page}"
    );
    assert!(!page.contains("目前没有在监视的投票"), "{page}");
}

/// Issue 21: with `[forum] post_tally = "button"` the judge posts the tally to the vote thread
/// from the dashboard — a button, then a second one to confirm — as their reply through the
/// forum's reply form (the captured form of this thread), and the body the forum gets is
/// exactly the BBCode the page showed. The reply is found again in the thread before the page
/// says it went out; the same tally is not posted twice; a tally the page no longer shows is
/// refused. Without the setting there is no button.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_judge_posts_the_tally_to_the_thread_from_the_dashboard() {
    use crate::browser::Browser;
    let (_mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795957560; // 21:06
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        text.replace("retries = 2\n", "retries = 2\npost_tally = \"button\"\n"),
    )
    .unwrap();
    let port = pin_status_port(&config);
    let (mut child, _) = start_service(&config, Some("2026-11-29 21:06:00")).await;
    let url = format!("http://127.0.0.1:{port}/");
    let profile = dir.path().join("cdp");
    let (shown, answer, again) = tokio::task::block_in_place(|| {
        let mut b = Browser::launch(&profile);
        b.open(&url, "document.querySelector('.post-tally button.post')");
        let shown = b.eval("document.getElementById('bbcode-day-2').value");
        assert!(
            b.eval("document.querySelector('.post-tally .confirm').hidden") == true,
            "nothing is posted on the first click"
        );
        b.eval("document.querySelector('.post-tally button.post').click()");
        assert!(
            b.eval("document.body.innerText.includes('以 版杀一室法官 的账号在投票帖 tid 3 回复上面这份统计？')")
                == true
        );
        b.eval("document.querySelector('.post-tally button.post-yes').click()");
        b.wait(
            "document.querySelector('.post-tally .msg').textContent.startsWith('已发到投票帖')",
            std::time::Duration::from_secs(30),
        );
        let answer = b.eval("document.querySelector('.post-tally .msg').textContent");
        // Reloaded: the page says it went out; a second post of the same tally is refused.
        b.open(&url, "document.querySelector('p.posted')");
        b.eval("document.querySelector('.post-tally button.post').click()");
        b.eval("document.querySelector('.post-tally button.post-yes').click()");
        b.wait(
            "document.querySelector('.post-tally .msg').textContent.includes('已经发过')",
            std::time::Duration::from_secs(30),
        );
        let again = b.eval("document.body.innerText");
        (shown, answer, again)
    });
    let shown = shown.as_str().unwrap().to_string();
    assert!(
        shown.starts_with("[b]【版杀一室 第十二局】第2天"),
        "{shown}"
    );
    let replies = forum.lock().unwrap().replies.clone();
    assert_eq!(replies.len(), 1, "posted once");
    let fields: std::collections::BTreeMap<String, String> =
        url::form_urlencoded::parse(&replies[0])
            .into_owned()
            .collect();
    assert_eq!(
        fields["message"], shown,
        "the body is the BBCode the judge saw"
    );
    assert_eq!(fields["formhash"], "adfca1e3", "the reply form's own hash");
    let pid = forum.lock().unwrap().posts.last().unwrap()["pid"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        answer.as_str().unwrap().contains(&format!("（pid {pid}）")),
        "found again in the thread: {answer}"
    );
    let again = again.as_str().unwrap();
    assert!(again.contains("已发到投票帖：38#"), "{again}");
    assert!(again.contains("（与上面的统计相同）"), "{again}");
    // What the page no longer shows is not posted.
    let body = r#"{"game":"版杀一室 第十二局","day":2,"bbcode":"[b]旧的统计[/b]"}"#;
    let stale = tokio::task::block_in_place(|| {
        raw_http(
            port,
            &format!(
                "POST /post-tally HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Bansha: judge\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            ),
        )
    });
    assert!(stale.starts_with("HTTP/1.1 409"), "{stale}");
    assert!(stale.contains("统计已经更新"), "{stale}");
    assert_eq!(forum.lock().unwrap().replies.len(), 1);
    let _ = child.kill();
    let _ = child.wait();
}
