//! `bansha demo`: the first thing a judge runs. The real daemon against the local replay of the
//! recorded game, mails in a folder, the final tally printed.

use std::path::Path;

fn eml(path: &Path) -> (String, String, Option<String>, Vec<String>) {
    let raw = std::fs::read(path).unwrap();
    let m = mail_parser::MessageParser::default().parse(&raw).unwrap();
    let files = m
        .attachments()
        .map(|a| {
            use mail_parser::MimeHeaders;
            a.attachment_name()
                .or(a.content_id())
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    (
        m.subject().unwrap_or_default().to_string(),
        m.body_text(0).unwrap_or_default().into_owned(),
        m.body_html(0).map(|h| h.into_owned()),
        files,
    )
}

#[test]
fn the_demo_replays_the_recorded_day_and_prints_the_final_tally() {
    let dir = tempfile::tempdir().unwrap();
    let demo = dir.path().join("demo");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(["demo", "--dir"])
        .arg(&demo)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The final tally as the judge's mail has it: the recorded game's result.
    for line in [
        "李逵 4 票：yucca（9#）、大灰狼（10#）、雪罂子（27#）、花千树（32#）",
        "大灰狼 2 票：超人（6#）、小飞（14#）",
        "10# 大灰狼：小飞 → 李逵",
        "29# 小飞（改票：李逵）：截止前 60 分钟内（11-29 20:00:00 起）不得改票",
        "[b]结果[/b]：[color=red]李逵 以 4 票最高，出局[/color]",
    ] {
        assert!(stdout.contains(line), "{line}\n{stdout}");
    }
    assert!(!stdout.contains("· 错误："), "no cycle failed: {stdout}");
    // Issue 32: the README's sample of this output is the real output: each of its lines
    // ("…" leaves lines out) is a line of it, in the same order.
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let sample = readme
        .split("```text\n")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("the README's sample output");
    let real = stdout.replace(&demo.display().to_string(), "bansha-demo");
    let real: Vec<&str> = real.lines().collect();
    let mut from = 0;
    for line in sample.lines().filter(|l| l.trim() != "…") {
        let Some(i) = real[from..].iter().position(|r| *r == line) else {
            panic!("README sample line not in the demo's output (in order): {line:?}\n{stdout}");
        };
        from += i + 1;
    }

    // The mails, in the order they were sent, named like an inbox.
    let mut names: Vec<String> = std::fs::read_dir(demo.join("mails"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.iter().all(|n| n.ends_with(".eml")), "{names:?}");
    let subjects: Vec<String> = names
        .iter()
        .map(|n| eml(&demo.join("mails").join(n)).0)
        .collect();
    for (i, s) in subjects.iter().enumerate() {
        assert!(names[i].starts_with(&format!("{:02}-", i + 1)), "{names:?}");
        assert!(
            s.starts_with("[版杀一室 第十二局] 第2天 "),
            "sorts by game and day: {s}"
        );
        assert!(stdout.contains(&format!("✉ {s}")), "{s} announced");
    }
    let position = |needle: &str| {
        subjects
            .iter()
            .position(|s| s.contains(needle))
            .unwrap_or_else(|| panic!("{needle}: {subjects:#?}"))
    };
    // A late change (void in the lock window), the lock, the close, then the edit made after
    // the close, seen by the look ten minutes later.
    let lock = position("进入截止前锁定时段（20:00 起不得改票）");
    let late = position("无效票：29# 小飞");
    let close = position("最终计票：李逵 以 4 票最高，出局");
    let edit = position("投票被编辑：24# 音乐虫子");
    assert!(lock < late && late < close && close < edit, "{subjects:#?}");
    // The same look tells the judge of the ballot posted after the close (34#, 21:00:40).
    let after = position("无效票：34# 小熊维尼");
    assert!(close < after, "{subjects:#?}");
    assert_eq!(subjects.len(), 26, "{subjects:#?}");
    let names_of = |i: usize| eml(&demo.join("mails").join(&names[i]));
    let (_, text, html, files) = names_of(close);
    assert!(text.contains("李逵 4 票"), "{text}");
    assert!(html.unwrap().contains("<img src=\"cid:timeline\""));
    assert_eq!(files, ["timeline", "第2天投票统计.txt"]);
    let (_, text, _, _) = names_of(edit);
    assert!(
        text.contains("这次编辑在截止（2026-11-29 21:00:00）之后，最终计票按截止时的内容。"),
        "{text}"
    );

    // The HTML of the final mail, with its picture, for a browser.
    let page = std::fs::read_to_string(demo.join("最终统计.html")).unwrap();
    assert!(page.contains("src=\"timeline.png\""));
    assert!(std::fs::read(demo.join("timeline.png"))
        .unwrap()
        .starts_with(b"\x89PNG"));

    // Run again: the demo folder is reused; a folder that is not the demo's is left alone.
    let again = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(["demo", "--dir"])
        .arg(&demo)
        .output()
        .unwrap();
    assert!(again.status.success());
    std::fs::write(dir.path().join("mine.txt"), "x").unwrap();
    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(["demo", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("不是 bansha 演示目录"));
    assert!(dir.path().join("mine.txt").exists());
}

/// GET `path` from `addr` (HTTP/1.0, no keep-alive): the whole answer, headers included.
fn get(addr: &str, path: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
    let mut body = Vec::new();
    s.read_to_end(&mut body).unwrap();
    String::from_utf8_lossy(&body).into_owned()
}

struct Killed(std::process::Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Issue 32: `bansha demo --serve` keeps the replay forum and the daemon running on a fast
/// clock and prints the dashboard's address; the dashboard answers there and shows the day
/// going from open, through the lock, to closed with the recorded ballots.
#[test]
fn the_served_demo_prints_the_dashboards_address_and_runs_the_day_through_its_close() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, _) = serve_day(dir.path(), std::process::Stdio::null());
    // The service keeps running after the close (it ends on Ctrl-C, not by itself).
    assert!(child.0.try_wait().unwrap().is_none());
}

/// Issue 32: the judge reads the service's log in `journalctl`, so every line a normal day
/// logs (start, the cycles through the lock and the close, the mails) says it in Chinese.
#[test]
fn every_log_line_of_a_served_demo_day_is_chinese() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("stderr.txt");
    let (child, _) = serve_day(dir.path(), std::fs::File::create(&log).unwrap().into());
    // The dashboard shows the day closed by the clock; the close's cycle comes a few simulated
    // seconds later (its job waits for the forum's clock).
    let after_close = |t: &str| {
        t.lines()
            .any(|l| l.starts_with("轮询 2026-11-29 21:") || l.starts_with("轮询 2026-11-29 22:"))
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !after_close(&std::fs::read_to_string(&log).unwrap())
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    drop(child);
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    // The day's cycles are logged, one line each, at demo speed: ticks every simulated minute
    // near the close, so the close's cycle (21:00 on) is logged within the real seconds the
    // dashboard took to show it closed (ticks once a real minute missed it).
    assert!(
        lines.iter().filter(|l| l.starts_with("轮询 ")).count() >= 2,
        "{text}"
    );
    assert!(after_close(&text), "no cycle after the close: {text}");
    let cjk = |l: &str| l.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
    let english: Vec<&&str> = lines.iter().filter(|l| !cjk(l)).collect();
    assert!(
        english.is_empty(),
        "log lines without Chinese: {english:#?}"
    );
}

/// `bansha demo --serve` at 900×, its stderr to `stderr`, run until its dashboard shows the
/// day closed with the recorded ballots: the running child and the dashboard's address.
fn serve_day(dir: &Path, stderr: std::process::Stdio) -> (Killed, String) {
    use std::io::BufRead;
    let mut child = Killed(
        std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
            .args(["demo", "--serve", "--speed", "900", "--dir"])
            .arg(dir.join("demo"))
            .stdout(std::process::Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap(),
    );
    let stdout = std::io::BufReader::new(child.0.stdout.take().unwrap());
    let prefix = "仪表盘：http://";
    let line = stdout
        .lines()
        .map_while(Result::ok)
        .take(20)
        .find(|l| l.starts_with(prefix))
        .expect("the dashboard's address is printed");
    let addr = line[prefix.len()..].trim_end_matches('/').to_string();
    assert!(!addr.ends_with(":0"), "{line}");
    let first = get(&addr, "/");
    assert!(
        first.starts_with("HTTP/1.1 200") || first.starts_with("HTTP/1.0 200"),
        "{first}"
    );
    // 19:00 → 21:00 at 900× is 8 s: the day closes with the recorded ballots counted.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(90);
    loop {
        let page = get(&addr, "/");
        if page.contains("已截止") && page.contains("李逵") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the served demo's day never closed:\n{page}"
        );
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    (child, addr)
}
