//! `bansha demo`: the real pipeline on a recorded game, with no setup. A local replay of the
//! captured Discuz pages (the day-2 vote and discussion threads of 版杀一室 第十二局, as the
//! mobile API served them) shows each post from its recorded time on, and pid 98 with its text
//! from before the 21:05 edit until then. The daemon polls it at simulated moments through the
//! day (time compressed: a day and a half in a few seconds), exactly as `bansha run --once
//! --now T` would; its mails go into a folder (lettre's file transport). At the end the demo
//! prints the mails it wrote and the final tally.

use crate::daemon::Daemon;
use crate::io::replay;
use axum::extract::{Query, State};
use axum::routing::get;
use axum::Router;
use chrono::{DateTime, Duration, FixedOffset, TimeZone};
use serde_json::Value;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;

type Time = DateTime<FixedOffset>;

const GAME: &str = include_str!("../../config/examples/banshayishi-12.toml");
const VOTE: [&str; 4] = [
    include_str!("../../tests/fixtures/discuz/mobile/guest/v1/viewthread_tid3_vote_p1.json"),
    include_str!("../../tests/fixtures/discuz/mobile/guest/v1/viewthread_tid3_vote_p2.json"),
    include_str!("../../tests/fixtures/discuz/mobile/guest/v1/viewthread_tid3_vote_p3.json"),
    include_str!("../../tests/fixtures/discuz/mobile/guest/v1/viewthread_tid3_vote_p4.json"),
];
const DISCUSSION: [&str; 7] = [
    include_str!("../../tests/fixtures/discuz/mobile/guest/v1/viewthread_tid4_discussion_p1.json"),
    include_str!("../../tests/fixtures/discuz/mobile/guest/v1/viewthread_tid4_discussion_p2.json"),
    include_str!("../../tests/fixtures/discuz/mobile/guest/v1/viewthread_tid4_discussion_p3.json"),
    include_str!("../../tests/fixtures/discuz/mobile/guest/v1/viewthread_tid4_discussion_p4.json"),
    include_str!("../../tests/fixtures/discuz/mobile/guest/v1/viewthread_tid4_discussion_p5.json"),
    include_str!("../../tests/fixtures/discuz/mobile/guest/v1/viewthread_tid4_discussion_p6.json"),
    include_str!("../../tests/fixtures/discuz/mobile/guest/v1/viewthread_tid4_discussion_p7.json"),
];
/// pid 98 as typed at 17:55:05, before its author edited it at 21:05:30 (scenario key V23).
const PID98_BEFORE: &str = "投票对象：冷雪<br />\n投票理由：她改票太随意";
const PID98_EDITED_AT: i64 = 1795957530;
const MARKER: &str = ".bansha-demo";

/// A captured thread with the recording's one edit: pid 98 shows its text from before the
/// 21:05 edit until then.
struct Thread(replay::Thread);

impl Thread {
    fn load(pages: &[&str]) -> anyhow::Result<Thread> {
        Ok(Thread(replay::Thread::from_pages(pages)?))
    }

    /// Page `page` of the thread as it stood at unix time `at` (10 posts a page, as captured).
    fn page(&self, at: i64, page: usize) -> Value {
        let mut visible = self.0.visible_at(at);
        if at < PID98_EDITED_AT {
            for p in visible.iter_mut().filter(|p| p["pid"] == "98") {
                p["message"] = Value::String(PID98_BEFORE.into());
            }
        }
        let replies = visible.len().saturating_sub(1) as u64;
        replay::page(&self.0.envelope, &visible, page, 10, replies)
    }
}

struct Replay {
    vote: Thread,
    discussion: Thread,
    /// The simulated moment, unix seconds.
    at: AtomicI64,
    requests: AtomicU64,
}

async fn api(
    State(r): State<Arc<Replay>>,
    Query(q): Query<HashMap<String, String>>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    r.requests.fetch_add(1, Ordering::Relaxed);
    let page = q.get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
    let thread = match (
        q.get("module").map(String::as_str),
        q.get("tid").map(String::as_str),
    ) {
        (Some("viewthread"), Some("3")) => &r.vote,
        (Some("viewthread"), Some("4")) => &r.discussion,
        _ => return (axum::http::StatusCode::NOT_FOUND, "not in the recording").into_response(),
    };
    axum::Json(thread.page(r.at.load(Ordering::Relaxed), page)).into_response()
}

/// The simulated moments the daemon polls at: every two hours through the day, every 15
/// minutes in the last two hours, every 5 around the lock and the close, and a last look after
/// the edit of pid 98.
fn moments(offset: FixedOffset) -> Vec<Time> {
    let at = |d: u32, h: u32, m: u32| {
        offset
            .with_ymd_and_hms(2026, 11, d, h, m, 0)
            .single()
            .expect("valid time")
    };
    let mut out = Vec::new();
    let mut t = at(28, 14, 0);
    while t < at(29, 18, 0) {
        out.push(t);
        t += Duration::hours(2);
    }
    while t < at(29, 19, 45) {
        out.push(t);
        t += Duration::minutes(15);
    }
    while t <= at(29, 21, 10) {
        out.push(t);
        t += Duration::minutes(5);
    }
    out
}

fn prepare(dir: &Path) -> anyhow::Result<()> {
    if dir.exists() {
        let empty = std::fs::read_dir(dir)?.next().is_none();
        if !empty && !dir.join(MARKER).exists() {
            anyhow::bail!(
                "目录 {} 已存在且不是 bansha 演示目录；请换一个目录（--dir）",
                dir.display()
            );
        }
        std::fs::remove_dir_all(dir)?;
    }
    std::fs::create_dir_all(dir.join("games"))?;
    std::fs::write(dir.join(MARKER), "bansha demo; safe to delete\n")?;
    Ok(())
}

/// `bansha demo [--dir DIR] [--serve [--speed N]]`. Returns the exit code. `serve`: the speed
/// of the kept-running demo's clock.
pub fn run(
    dir: &Path,
    serve: Option<u32>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    if let Err(e) = prepare(dir) {
        writeln!(err, "错误：{e:#}")?;
        return Ok(1);
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    match serve {
        None => rt.block_on(replay_game(dir, out))?,
        Some(speed) => rt.block_on(serve_game(dir, speed, out))?,
    }
    Ok(0)
}

/// When `bansha demo --serve` starts the day: an hour before the lock, two before the close.
const SERVE_FROM: (u32, u32, u32) = (29, 19, 0);

/// `bansha demo --serve`: the replay forum and the daemon as a service (its dashboard
/// included) on a clock that runs `speed` times as fast from 19:00 of the recorded day, until
/// Ctrl-C. The replay shows the forum as it stood at the service's simulated moment.
async fn serve_game(dir: &Path, speed: u32, out: &mut dyn Write) -> anyhow::Result<()> {
    use crate::io::clock::Clock;
    let (replay, forum) = start_forum().await?;
    // Polls every simulated 10 minutes, every simulated minute near a close: at the default
    // speed (60) every 10 s and every second of real time.
    let config = write_config(
        dir,
        &forum,
        "interim_every_hours = 6\ninterval_secs = 600\nnear_close_secs = 60\nnear_close_minutes = 60",
    )?;
    let settings = crate::io::files::load_settings(&config).map_err(|e| anyhow::anyhow!("{e}"))?;
    let offset = settings.games[0].utc_offset;
    let (d, h, m) = SERVE_FROM;
    let start = offset
        .with_ymd_and_hms(2026, 11, d, h, m, 0)
        .single()
        .expect("valid time");
    let clock = Arc::new(crate::io::clock::ShiftedClock::new(start, speed));
    replay.at.store(start.timestamp(), Ordering::Relaxed);
    let follow = clock.clone();
    let shown = replay.clone();
    tokio::spawn(async move {
        loop {
            shown.at.store(follow.now().timestamp(), Ordering::Relaxed);
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    });
    let daemon = Arc::new(Daemon::open(settings)?);
    let service = Arc::new(crate::daemon::service::Service::new(daemon, clock));
    let addr = crate::daemon::http::serve(service.clone()).await?;
    writeln!(
        out,
        "bansha 演示（持续运行）：版杀一室 第十二局 第2天，从 11-29 19:00 起，时间按 {speed} 倍速走（20:00 锁定，21:00 截止）\n\
         本机回放录下的论坛页面：{forum}\n邮件写入 {}\n\n\
         仪表盘：http://{addr}/\n\n\
         在浏览器打开上面的地址，看投票随时间进来、锁定、截止；按 Ctrl-C 结束。",
        dir.join("mails").display()
    )?;
    out.flush()?;
    crate::daemon::service::run(service).await
}

/// The replay of the recorded forum on a local port: the replay's state and the forum's address.
async fn start_forum() -> anyhow::Result<(Arc<Replay>, String)> {
    let replay = Arc::new(Replay {
        vote: Thread::load(&VOTE)?,
        discussion: Thread::load(&DISCUSSION)?,
        at: AtomicI64::new(0),
        requests: AtomicU64::new(0),
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let forum = format!("http://{}/", listener.local_addr()?);
    let app = Router::new()
        .route("/api/mobile/index.php", get(api))
        .with_state(replay.clone());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok((replay, forum))
}

/// The demo's game and daemon configs, against the replay at `forum`; `poll` is the daemon
/// config's `[poll]` table. Returns the daemon config's path.
fn write_config(dir: &Path, forum: &str, poll: &str) -> anyhow::Result<PathBuf> {
    std::fs::write(dir.join("games/banshayishi-12.toml"), GAME)?;
    let config = dir.join("daemon.toml");
    std::fs::write(
        &config,
        format!(
            "# Written by `bansha demo`: the daemon against a local replay of a recorded game.\n\
             state_dir = \"state\"\n\n\
             [forum]\nbase_url = \"{forum}\"\nsource = \"api\"\napi_version = 1\n\
             posts_per_page = 10\nmin_gap_ms = 0\nretries = 1\ntimeout_secs = 10\n\n\
             [smtp]\nfolder = \"mails\"\nfrom = \"bansha@localhost\"\n\n\
             [judge]\nto = [\"judge@localhost\"]\n\n\
             [poll]\n{poll}\n\n\
             [status]\nlisten = \"127.0.0.1:0\"\n\n\
             [[games]]\nconfig = \"games/banshayishi-12.toml\"\n"
        ),
    )?;
    Ok(config)
}

async fn replay_game(dir: &Path, out: &mut dyn Write) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let (replay, forum) = start_forum().await?;
    let config = write_config(dir, &forum, "interim_every_hours = 6")?;
    let settings = crate::io::files::load_settings(&config).map_err(|e| anyhow::anyhow!("{e}"))?;
    let offset = settings.games[0].utc_offset;
    let daemon = Daemon::open(settings)?;
    writeln!(
        out,
        "bansha 演示：版杀一室 第十二局 第2天（m103 规则，截止 2026-11-29 21:00，20:00 起锁定）\n\
         本机回放录下的论坛页面：{forum}\n守护进程按模拟时间轮询（一天半压缩到几秒），邮件写入 {}\n",
        dir.join("mails").display()
    )?;
    let folder = dir.join("mails");
    let mut mails: Vec<Written> = Vec::new();
    for now in moments(offset) {
        replay.at.store(now.timestamp(), Ordering::Relaxed);
        let r = daemon.cycle(now).await;
        writeln!(
            out,
            "[{}] 请求 {:>2} · 新帖 {:>2} · 编辑 {}{}",
            now.format("%m-%d %H:%M"),
            r.requests,
            r.new_posts,
            r.edited_posts,
            if r.errors.is_empty() {
                String::new()
            } else {
                format!(" · 错误：{}", r.errors.join("；"))
            }
        )?;
        for m in name_mails(&folder, mails.len())? {
            writeln!(out, "        ✉ {}", m.subject)?;
            mails.push(m);
        }
    }

    writeln!(
        out,
        "\n法官共收到 {} 封邮件，在 {}",
        mails.len(),
        folder.display()
    )?;
    if let Some(last) = mails.iter().rev().find(|m| m.subject.contains("最终计票")) {
        let page = dir.join("最终统计.html");
        let mut html = last.html.clone();
        if let Some(png) = &last.png {
            std::fs::write(dir.join("timeline.png"), png)?;
            html = html.replace("cid:timeline", "timeline.png");
        }
        std::fs::write(&page, html)?;
        writeln!(
            out,
            "\n最终计票邮件（HTML 版已另存为 {}，可用浏览器打开）：\n\n{}",
            page.display(),
            last.text.trim_end()
        )?;
    }
    writeln!(
        out,
        "\n共向回放论坛发出 {} 次请求，用时 {:.1} 秒。配置在 {}，可用 bansha check-config 检查。",
        replay.requests.load(Ordering::Relaxed),
        started.elapsed().as_secs_f64(),
        config.display()
    )?;
    Ok(())
}

/// Already renamed here: "NN-…" (lettre's names are UUIDs, whose first dash is at 8).
fn renamed(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() > 3 && b[0].is_ascii_digit() && b[1].is_ascii_digit() && b[2] == b'-'
}

struct Written {
    subject: String,
    text: String,
    html: String,
    png: Option<Vec<u8>>,
}

/// The .eml files lettre wrote since the last call (named by a random id), renamed in the order
/// they were sent as `NN-subject.eml` so the folder reads like an inbox.
fn name_mails(folder: &Path, before: usize) -> anyhow::Result<Vec<Written>> {
    // By name: the time the mail was made, then its subject (`io::smtp::file_name`). Not by
    // the file's mtime: Linux stamps files at the kernel tick, so two mails written within a
    // few milliseconds tied and their order was the machine's speed.
    let mut files: Vec<PathBuf> = Vec::new();
    if !folder.exists() {
        return Ok(Vec::new());
    }
    for e in std::fs::read_dir(folder)? {
        let p = e?.path();
        let fresh = p
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(".eml") && !renamed(n));
        if fresh {
            files.push(p);
        }
    }
    files.sort();
    let mut out = Vec::new();
    for (i, path) in files.into_iter().enumerate() {
        let raw = std::fs::read(&path)?;
        let Some(m) = mail_parser::MessageParser::default().parse(&raw) else {
            continue;
        };
        let i = before + i;
        let subject = m.subject().unwrap_or_default().to_string();
        let safe: String = subject
            .chars()
            .map(|c| if "/\\:*?\"<>|".contains(c) { '_' } else { c })
            .take(60)
            .collect();
        std::fs::rename(&path, folder.join(format!("{:02}-{safe}.eml", i + 1)))?;
        let png = m
            .attachments()
            .find(|a| {
                use mail_parser::MimeHeaders;
                a.content_id() == Some("timeline")
            })
            .map(|a| a.contents().to_vec());
        out.push(Written {
            text: m.body_text(0).unwrap_or_default().into_owned(),
            html: m.body_html(0).unwrap_or_default().into_owned(),
            subject,
            png,
        });
    }
    Ok(out)
}

/// The arguments of `bansha demo` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct DemoCommand {
    /// 演示文件（配置、记录、邮件）放在这里；重新运行会清空它
    #[arg(long, default_value = "bansha-demo")]
    pub dir: PathBuf,
    /// 不结束：回放论坛和守护进程一直运行（时间加速），打印仪表盘地址，可在浏览器里看一天的经过；Ctrl-C 结束
    #[arg(long)]
    pub serve: bool,
    /// 与 --serve 一起用：时间走得比真实快多少倍（默认 60：真实 1 秒 = 演示 1 分钟）
    #[arg(long, default_value_t = 60, requires = "serve", value_parser = clap::value_parser!(u32).range(1..=3600))]
    pub speed: u32,
}

impl DemoCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        run(&self.dir, self.serve.then_some(self.speed), out, err)
    }
}
