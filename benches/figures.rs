//! Every figure `benches/run.sh` prints, measured in one run and written as JSON (stdout, or
//! `--out FILE`): parse throughput, tallies of 10,000 ballots under each preset, word counting,
//! the requests and bytes a poll cycle costs on a 500-page thread, the latency from a new
//! ballot to the tally and from the close to the judge's mailbox, a whole 42-player game of
//! about 30,000 posts through the offline commands, and the idle daemon with 10 games.
//!
//! Everything runs on loopback: the forum is a local HTTP server replaying the captured pages
//! (grown with new pids, authors and times), the mail server a local SMTP server. The release
//! binary is run as a user runs it for the scale, latency and idle figures.
//! `BANSHA_BENCH_QUICK=1` shortens the timed loops (a smoke run, not figures).

use bansha::daemon::Daemon;
use bansha::domain::config;
use bansha::domain::rules::{tally_with, Cast};
use bansha_parsers::{parse_thread_page, ParseOptions, Post};
use chrono::{DateTime, Duration, FixedOffset, TimeZone};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

type Time = DateTime<FixedOffset>;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn quick() -> bool {
    std::env::var_os("BANSHA_BENCH_QUICK").is_some()
}

fn east8() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).unwrap()
}

fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> Time {
    east8().with_ymd_and_hms(y, mo, d, h, mi, 0).unwrap()
}

// ---------------------------------------------------------------- parse

/// The captured thread pages both parsers read: the vote and discussion threads as a guest saw
/// them, desktop HTML and API v1 JSON.
pub fn parse_files() -> (Vec<PathBuf>, Vec<PathBuf>) {
    let d = root().join("tests/fixtures/discuz/desktop/guest");
    let a = root().join("tests/fixtures/discuz/mobile/guest/v1");
    let mut desktop = Vec::new();
    let mut api = Vec::new();
    for p in 1..=4 {
        desktop.push(d.join(format!("viewthread_tid3_vote_p{p}.html")));
        api.push(a.join(format!("viewthread_tid3_vote_p{p}.json")));
    }
    for p in 1..=7 {
        desktop.push(d.join(format!("viewthread_tid4_discussion_p{p}.html")));
        api.push(a.join(format!("viewthread_tid4_discussion_p{p}.json")));
    }
    (desktop, api)
}

fn parse_rate(files: &[PathBuf], budget: f64) -> Value {
    let pages: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let opts = ParseOptions {
        utc_offset: east8(),
    };
    let (mut n, mut bytes, mut posts) = (0u64, 0u64, 0u64);
    let start = Instant::now();
    while start.elapsed().as_secs_f64() < budget {
        for p in &pages {
            let page = parse_thread_page(p, None, &opts).unwrap();
            posts += page.posts.len() as u64;
            n += 1;
            bytes += p.len() as u64;
        }
    }
    let s = start.elapsed().as_secs_f64();
    json!({
        "pages": n, "bytes": bytes, "posts": posts, "seconds": s,
        "pages_per_s": n as f64 / s, "mb_per_s": bytes as f64 / s / 1e6,
    })
}

fn parse() -> Value {
    let (desktop, api) = parse_files();
    let budget = if quick() { 0.3 } else { 5.0 };
    json!({
        "desktop": parse_rate(&desktop, budget),
        "api": parse_rate(&api, budget),
        "files": {
            "desktop": desktop.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "api": api.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        },
        "budget_s": budget,
    })
}

// ---------------------------------------------------------------- tallies and word counts

/// 42 players: the captured game's 14 and 28 more.
fn players() -> Vec<String> {
    let mut p: Vec<String> = [
        "大灰狼",
        "小飞",
        "李逵",
        "花千树",
        "不见",
        "冷雪",
        "蝈蝈",
        "小熊维尼",
        "超人",
        "音乐虫子",
        "yucca",
        "龙舌",
        "青鸾花",
        "雪罂子",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for i in 15..=42 {
        p.push(format!("玩家{i:02}"));
    }
    p
}

fn fill(template: &str, voter: &str, target: &str, n: usize) -> String {
    template
        .replace("{voter}", voter)
        .replace("{day}", "1")
        .replace("{n}", &n.to_string())
        .replace("{target}", target)
        .replace("{reason}", "发言可疑，划水严重")
}

fn tallies() -> Value {
    let players = players();
    let opens = at(2026, 12, 1, 8, 0);
    let mut out = serde_json::Map::new();
    // A ballot post as the parser gives it (captured page, second post), refilled below.
    let page = std::fs::read(
        root().join("tests/fixtures/discuz/mobile/guest/v1/viewthread_tid3_vote_p1.json"),
    )
    .unwrap();
    let post_template: Post = parse_thread_page(&page, None, &ParseOptions::default())
        .unwrap()
        .posts[1]
        .clone();
    for (name, _) in config::PRESETS {
        let toml = format!(
            "ruleset = \"{name}\"\nname = \"bench\"\n[roster]\nplayers = [{}]\njudges = [\"法官\"]\n\
             [[days]]\nday = 1\nvote_thread = 1\nopens_at = \"2026-12-01 08:00\"\ncloses_at = \"2026-12-02 21:00\"\n",
            players
                .iter()
                .map(|p| format!("\"{p}\""))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let game = bansha::domain::game::load_str(&toml, Path::new("bench.toml")).unwrap();
        let template = game.rules.ballot.formats[0].vote.clone();
        let n = 10_000usize;
        let mut posts = Vec::new();
        let mut casts = Vec::new();
        for i in 0..n {
            let voter = &players[i % players.len()];
            let target = &players[(i * 7 + 3 + i / players.len()) % players.len()];
            let t = opens + Duration::seconds(i as i64 * 3);
            if game.rules.vote.source == config::BallotSource::Poll {
                casts.push(Cast {
                    voter: voter.clone(),
                    targets: vec![target.clone()],
                    at: t,
                    since: Some(t - Duration::seconds(3)),
                });
            } else {
                let mut p = post_template.clone();
                p.pid = 1000 + i as u64;
                p.tid = 1;
                p.floor = format!("{}#", i + 2);
                p.number = Some(i as u32 + 2);
                p.author = voter.clone();
                p.author_uid = Some(100 + (i % players.len()) as u64);
                p.posted_at = Some(t);
                p.text = fill(&template, voter, target, i / players.len() + 1);
                posts.push(p);
            }
        }
        let now = at(2026, 12, 2, 22, 0);
        let runs = if quick() { 2 } else { 10 };
        let mut times = Vec::new();
        let mut counted = 0;
        for _ in 0..runs {
            let start = Instant::now();
            let t = tally_with(&game, 1, 1, now, &posts, &casts).unwrap();
            times.push(start.elapsed().as_secs_f64());
            counted = t.ballots.len();
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        out.insert(
            name.to_string(),
            json!({"ballots": n, "verdicts": counted, "median_ms": median * 1e3,
                   "ballots_per_s": n as f64 / median}),
        );
    }
    Value::Object(out)
}

fn wordcount() -> Value {
    // Long Chinese text: the seeds (rule posts) repeated to about 8 MB.
    let mut text = String::new();
    for e in std::fs::read_dir(root().join("tests/fixtures/seeds")).unwrap() {
        let p = e.unwrap().path();
        if let Ok(t) = std::fs::read_to_string(&p) {
            text.push_str(&t);
        }
    }
    let base = text.clone();
    while text.len() < 8_000_000 {
        text.push_str(&base);
    }
    let runs = if quick() { 1 } else { 5 };
    let mut best = f64::MAX;
    let mut words = 0;
    for _ in 0..runs {
        let start = Instant::now();
        words = bansha_parsers::wordcount::count(&text).words;
        best = best.min(start.elapsed().as_secs_f64());
    }
    json!({"bytes": text.len(), "words": words, "seconds": best,
           "mb_per_s": text.len() as f64 / best / 1e6})
}

// ---------------------------------------------------------------- the replayed forum

/// A vote thread served as the mobile API v1 serves it, `ppp` posts a page; requests and
/// response bytes counted.
#[derive(Clone)]
struct Replay {
    posts: Arc<Mutex<Vec<Value>>>,
    envelope: Arc<Value>,
    requests: Arc<AtomicU64>,
    bytes: Arc<AtomicU64>,
}

impl Respond for Replay {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let q: HashMap<String, String> = req.url.query_pairs().into_owned().collect();
        let ppp: usize = q.get("ppp").and_then(|v| v.parse().ok()).unwrap_or(10);
        let posts = self.posts.lock().unwrap();
        let page = q.get("page").and_then(|v| v.parse().ok()).unwrap_or(1usize);
        let mut out =
            bansha::io::replay::page(&self.envelope, &posts, page, ppp, (posts.len() - 1) as u64);
        out["Variables"]["ppp"] = Value::String(ppp.to_string());
        // Any thread asked for is this one, under the tid asked for (the daemon refuses a page
        // carrying another thread's posts).
        if let Some(tid) = q.get("tid").filter(|t| t.as_str() != "3") {
            if let Some(list) = out["Variables"]["postlist"].as_array_mut() {
                for p in list {
                    p["tid"] = Value::String(tid.clone());
                }
            }
            out["Variables"]["thread"]["tid"] = Value::String(tid.clone());
        }
        let body = serde_json::to_vec(&out).unwrap();
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(body.len() as u64, Ordering::Relaxed);
        ResponseTemplate::new(200).set_body_raw(body, "application/json")
    }
}

/// The captured vote thread (API v1): its posts and the first page's envelope.
fn captured() -> (Vec<Value>, Value) {
    let mut posts = Vec::new();
    let mut envelope = Value::Null;
    for p in 1..=4 {
        let page: Value = serde_json::from_slice(
            &std::fs::read(root().join(format!(
                "tests/fixtures/discuz/mobile/guest/v1/viewthread_tid3_vote_p{p}.json"
            )))
            .unwrap(),
        )
        .unwrap();
        posts.extend(page["Variables"]["postlist"].as_array().unwrap().clone());
        if p == 1 {
            envelope = page;
        }
    }
    (posts, envelope)
}

/// A reply made from a captured reply: new pid, position and time, in the vote thread (tid 3:
/// the daemon refuses a page carrying another thread's posts).
fn reply(template: &Value, pid: u64, position: usize, t: Time) -> Value {
    let mut p = template.clone();
    p["tid"] = Value::String("3".into());
    p["pid"] = Value::String(pid.to_string());
    p["first"] = Value::String("0".into());
    p["position"] = Value::String(position.to_string());
    p["number"] = Value::String(position.to_string());
    p["dbdateline"] = Value::String(t.timestamp().to_string());
    p["dateline"] = Value::String(t.format("%Y-%m-%d %H:%M").to_string());
    p
}

/// The captured discussion thread's replies (API v1): chatter, the bulk of any long thread.
fn chatter() -> Vec<Value> {
    (1..=7)
        .flat_map(|p| {
            let page: Value = serde_json::from_slice(
                &std::fs::read(root().join(format!(
                    "tests/fixtures/discuz/mobile/guest/v1/viewthread_tid4_discussion_p{p}.json"
                )))
                .unwrap(),
            )
            .unwrap();
            page["Variables"]["postlist"].as_array().unwrap().clone()
        })
        .filter(|p| p["first"] != "1")
        .collect()
}

/// The captured vote thread grown to `n` posts: the captured discussion's replies repeated with
/// new pids and times from `start` on, a minute apart, then the captured vote thread's replies
/// (its 36 ballots and comments) after them.
fn grown(n: usize, start: Time) -> (Vec<Value>, Value) {
    let (captured, envelope) = captured();
    let filler = chatter();
    let ballots: Vec<&Value> = captured.iter().filter(|p| p["first"] != "1").collect();
    let mut posts = vec![captured[0].clone()];
    let mut i = 0;
    while posts.len() < n - ballots.len() {
        let t = start + Duration::minutes(i as i64);
        posts.push(reply(
            &filler[i % filler.len()],
            100_000 + i as u64,
            posts.len() + 1,
            t,
        ));
        i += 1;
    }
    for (j, b) in ballots.iter().enumerate() {
        let t = start + Duration::minutes((i + j) as i64);
        posts.push(reply(b, 200_000 + j as u64, posts.len() + 1, t));
    }
    (posts, envelope)
}

async fn forum(posts: Vec<Value>, envelope: Value) -> (MockServer, Replay) {
    let replay = Replay {
        posts: Arc::new(Mutex::new(posts)),
        envelope: Arc::new(envelope),
        requests: Arc::new(AtomicU64::new(0)),
        bytes: Arc::new(AtomicU64::new(0)),
    };
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/mobile/index.php"))
        .respond_with(replay.clone())
        .mount(&server)
        .await;
    (server, replay)
}

/// A game with one day on the replayed thread (tid 3), its roster the captured game's.
fn game_toml(closes_at: &str) -> String {
    let base = std::fs::read_to_string(root().join("config/examples/banshayishi-12.toml")).unwrap();
    base.replace("discussion_threads = [4]\n", "").replace(
        "closes_at = \"2026-11-29 21:00:00\"",
        &format!("closes_at = \"{closes_at}\""),
    )
}

fn daemon_toml(forum: &str, ppp: u32, smtp: &str, extra_games: &[String]) -> String {
    daemon_toml_gap(forum, ppp, 0, smtp, extra_games)
}

/// The daemon config with `gap_ms` between two requests to the forum (the default is 1000).
fn daemon_toml_gap(
    forum: &str,
    ppp: u32,
    gap_ms: u64,
    smtp: &str,
    extra_games: &[String],
) -> String {
    let mut s = format!(
        "state_dir = \"state\"\n[forum]\nbase_url = \"{forum}/\"\nsource = \"api\"\nposts_per_page = {ppp}\n\
         min_gap_ms = {gap_ms}\nretries = 1\n\n{smtp}\n[judge]\nto = [\"judge@localhost\"]\n\
         [poll]\ninterim_every_hours = 0\n[status]\nlisten = \"127.0.0.1:0\"\n\n\
         [[games]]\nconfig = \"game.toml\"\n"
    );
    for g in extra_games {
        s += &format!("[[games]]\nconfig = \"{g}\"\n");
    }
    s
}

/// Mail written to a folder (no SMTP server needed).
const FOLDER: &str = "[smtp]\nfolder = \"mails\"\nfrom = \"bansha@localhost\"";

/// A directory with one game (closing at `closes_at`) and a daemon config for the replay
/// forum at `forum`.
fn configs(forum: &str, ppp: u32, closes_at: &str, smtp: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("game.toml"), game_toml(closes_at)).unwrap();
    let config = dir.path().join("daemon.toml");
    std::fs::write(&config, daemon_toml(forum, ppp, smtp, &[])).unwrap();
    (dir, config)
}

// ---------------------------------------------------------------- poll cost

async fn poll_cost() -> Value {
    let start = at(2026, 11, 20, 8, 0);
    let mut rows = Vec::new();
    for ppp in [10u32, 50] {
        for k in [1usize, 10, 100] {
            // 500 pages of 10 posts: 5,000 posts.
            let (posts, envelope) = grown(5000, start);
            let (server, replay) = forum(posts, envelope).await;
            let (_dir, config) = configs(&server.uri(), ppp, "2026-11-30 21:00:00", FOLDER);
            let daemon = Daemon::open(bansha::io::files::load_settings(&config).unwrap()).unwrap();
            let mut now = start + Duration::days(5);
            let t0 = Instant::now();
            let r = daemon.cycle(now).await;
            let full_ms = t0.elapsed().as_secs_f64() * 1e3;
            assert!(r.errors.is_empty(), "{:?}", r.errors);
            let full_requests = replay.requests.swap(0, Ordering::Relaxed);
            let full_bytes = replay.bytes.swap(0, Ordering::Relaxed);
            let cycles = 5;
            let (mut reqs, mut bytes, mut ms) = (Vec::new(), Vec::new(), Vec::new());
            for c in 0..cycles {
                now += Duration::minutes(5);
                {
                    let mut p = replay.posts.lock().unwrap();
                    let template = p[1].clone();
                    for j in 0..k {
                        let pos = p.len() + 1;
                        p.push(reply(&template, 900_000 + (c * 1000 + j) as u64, pos, now));
                    }
                }
                let t = Instant::now();
                let r = daemon.cycle(now).await;
                ms.push(t.elapsed().as_secs_f64() * 1e3);
                assert!(r.errors.is_empty(), "{:?}", r.errors);
                assert_eq!(
                    r.new_posts,
                    k,
                    "every new post recorded: {r:?} requests {}",
                    replay.requests.load(Ordering::Relaxed)
                );
                reqs.push(replay.requests.swap(0, Ordering::Relaxed));
                bytes.push(replay.bytes.swap(0, Ordering::Relaxed));
            }
            let max_req = *reqs.iter().max().unwrap();
            let target = 2 + k.div_ceil(ppp as usize) as u64;
            rows.push(json!({
                "ppp": ppp, "k": k, "thread_posts": 5000, "thread_pages": 5000usize.div_ceil(ppp as usize),
                "requests_per_cycle_max": max_req,
                "requests_per_cycle": reqs,
                "bytes_per_cycle_mean": bytes.iter().sum::<u64>() as f64 / cycles as f64,
                "cycle_ms_mean": ms.iter().sum::<f64>() / cycles as f64,
                "target_requests": target, "met": max_req <= target,
                "full_scan_requests": full_requests, "full_scan_bytes": full_bytes,
                "full_scan_ms": full_ms,
            }));
        }
    }
    Value::Array(rows)
}

// ---------------------------------------------------------------- latency

/// Mails received (when, raw bytes), and the one being received.
type Received = Arc<Mutex<Vec<(Instant, Vec<u8>)>>>;

#[derive(Clone, Default)]
struct Inbox(Received, Arc<Mutex<Vec<u8>>>);

impl mailin_embedded::Handler for Inbox {
    fn data_start(&mut self, _: &str, _: &str, _: bool, _: &[String]) -> mailin_embedded::Response {
        self.1.lock().unwrap().clear();
        mailin_embedded::response::OK
    }
    fn data(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.1.lock().unwrap().extend_from_slice(buf);
        Ok(())
    }
    fn data_end(&mut self) -> mailin_embedded::Response {
        let raw = self.1.lock().unwrap().clone();
        self.0.lock().unwrap().push((Instant::now(), raw));
        mailin_embedded::response::OK
    }
}

fn smtp() -> (Inbox, u16) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let inbox = Inbox::default();
    let mut server = mailin_embedded::Server::new(inbox.clone());
    server.with_name("bench.test").with_tcp_listener(listener);
    std::thread::spawn(move || {
        let _ = server.serve();
    });
    (inbox, port)
}

fn subject(raw: &[u8]) -> String {
    mail_parser::MessageParser::default()
        .parse(raw)
        .and_then(|m| m.subject().map(str::to_string))
        .unwrap_or_default()
}

async fn latency() -> Value {
    // (a) A new ballot → the interim tally: the cycle that reads it, on a 5,000-post thread.
    let start = at(2026, 11, 20, 8, 0);
    let (posts, envelope) = grown(5000, start);
    let (server, replay) = forum(posts, envelope).await;
    let (_dir, config) = configs(&server.uri(), 50, "2026-11-30 21:00:00", FOLDER);
    let settings = bansha::io::files::load_settings(&config).unwrap();
    let interval = settings.poll.interval_secs;
    let daemon = Daemon::open(settings).unwrap();
    let mut now = start + Duration::days(5);
    daemon.cycle(now).await;
    let mut cycle_ms = Vec::new();
    for i in 0..5 {
        now += Duration::minutes(5);
        {
            let mut p = replay.posts.lock().unwrap();
            let pos = p.len() + 1;
            // 小飞 changes to 冷雪 quoting nothing: a new ballot post either way.
            let mut b = reply(&p[1], 800_000 + i, pos, now);
            b["message"] = Value::String(format!("投票对象：冷雪<br />\n投票理由：第{i}次"));
            p.push(b);
        }
        let t = Instant::now();
        daemon.cycle(now).await;
        cycle_ms.push(t.elapsed().as_secs_f64() * 1e3);
        let views = daemon.views();
        let seen = views[0]
            .tally
            .ballots
            .iter()
            .any(|b| b.pid == Some(800_000 + i));
        assert!(seen, "the new ballot is in the tally after one cycle");
    }
    let cycle_mean = cycle_ms.iter().sum::<f64>() / cycle_ms.len() as f64;
    drop(server);

    // (b) The close → the final tally in the SMTP server's mailbox: the release binary as a
    // service on a 5,000-post thread (100 pages of 50), the default gap of a second between
    // two requests to the forum, its clock started 30 s before the close (its first read of
    // the thread done by then); the scheduler's one-shot job fires 5 s after the close.
    let (posts, envelope) = grown(5000, start);
    let (server, replay) = forum(posts, envelope).await;
    let (inbox, port) = smtp();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("game.toml"),
        game_toml("2026-11-29 21:00:00"),
    )
    .unwrap();
    let config = dir.path().join("daemon.toml");
    std::fs::write(
        &config,
        daemon_toml_gap(
            &server.uri(),
            50,
            1000,
            &format!(
                "[smtp]\nhost = \"127.0.0.1\"\nport = {port}\nsecurity = \"plain\"\nfrom = \"bansha@localhost\""
            ),
            &[],
        ),
    )
    .unwrap();
    let log = std::fs::File::create(dir.path().join("daemon.log")).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(["run", "--now", "2026-11-29 20:59:30", "--config"])
        .arg(&config)
        .stdout(std::process::Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let launched = Instant::now();
    let closes = launched + std::time::Duration::from_secs(30);
    let mut arrived = None;
    while launched.elapsed().as_secs() < 180 {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        let mails = inbox.0.lock().unwrap().clone();
        if let Some((t, _)) = mails
            .iter()
            .find(|(_, raw)| subject(raw).contains("最终计票"))
        {
            arrived = Some(t.saturating_duration_since(closes).as_secs_f64());
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let close_requests = replay.requests.load(Ordering::Relaxed);
    if arrived.is_none() {
        eprintln!(
            "no final mail; the daemon's log:\n{}",
            std::fs::read_to_string(dir.path().join("daemon.log")).unwrap_or_default()
        );
    }
    json!({
        "ballot_to_tally": {
            "cycle_ms_mean": cycle_mean, "cycle_ms": cycle_ms, "interval_s": interval,
            "worst_case_s": interval as f64 + cycle_mean / 1e3,
            "target": "within one poll interval",
            "met": cycle_mean / 1e3 < interval as f64,
        },
        "close_to_mailbox_s": arrived,
        "close_thread_pages": 100,
        "close_gap_ms": 1000,
        "close_requests": close_requests,
        "close_target_s": 30,
        "close_met": arrived.is_some_and(|s| s <= 30.0),
    })
}

// ---------------------------------------------------------------- scale

/// Peak RSS (KiB) and wall time of one run of the release binary.
fn measured(args: &[String]) -> (f64, u64, bool) {
    let (wall, peak, ok, _) = measured_with_log(args);
    (wall, peak, ok)
}

/// The child's own peak RSS (KiB) and wall time, and its stderr. The peak is its `VmHWM`,
/// read from /proc while it runs: `wait4`'s `ru_maxrss` would be this bench's own peak, which
/// a spawned child inherits at `exec`.
fn measured_with_log(args: &[String]) -> (f64, u64, bool, String) {
    let start = Instant::now();
    let log = tempfile::NamedTempFile::new().unwrap();
    // `BANSHA_BENCH_WRAP="heaptrack -o /tmp/catch"` runs the binary under a tool (for
    // looking into a figure; the peak it measures is then the tool's).
    let wrap = std::env::var("BANSHA_BENCH_WRAP").unwrap_or_default();
    let mut command = wrap
        .split_whitespace()
        .chain([env!("CARGO_BIN_EXE_bansha")]);
    let mut child = std::process::Command::new(command.next().unwrap())
        .args(command)
        .args(args)
        .stdout(log.reopen().unwrap())
        .stderr(log.reopen().unwrap())
        .spawn()
        .unwrap();
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    let status = loop {
        if let Ok(text) = std::fs::read_to_string(&status_file) {
            if let Some(kb) = text
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
            {
                peak = peak.max(kb);
            }
        }
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    let err = std::fs::read_to_string(log.path()).unwrap_or_default();
    (start.elapsed().as_secs_f64(), peak, status.success(), err)
}

/// The 42-player game of `scale`, kept for the daemon to catch up on (`catch_up`).
struct Game42 {
    dir: tempfile::TempDir,
    game: PathBuf,
    threads: HashMap<u64, Vec<Value>>,
    envelope: Value,
    posts: usize,
}

fn scale() -> (Value, Game42) {
    // A 15-day game of 42 players: each day a vote thread of 400 posts and a discussion thread
    // of 1,600, as API v1 pages of 50 posts (the forum's own answers, grown).
    let players = players();
    let dir = tempfile::tempdir().unwrap();
    let (vote, envelope) = captured();
    let discussion = chatter();
    let ballots: Vec<&Value> = vote.iter().filter(|p| p["first"] != "1").collect();
    let days = 15u32;
    let mut total_posts = 0usize;
    let mut day_blocks = String::new();
    let mut commands: Vec<Vec<String>> = Vec::new();
    let mut served: HashMap<u64, Vec<Value>> = HashMap::new();
    let game = dir.path().join("game.toml");
    for d in 1..=days {
        let opens = at(2026, 11, 1, 21, 0) + Duration::days(d as i64 - 1);
        let closes = opens + Duration::days(1);
        let mut threads = Vec::new();
        for (kind, tid, n, source) in [
            ("vote", 1000 + d as u64, 400usize, &ballots),
            (
                "talk",
                2000 + d as u64,
                1600usize,
                &discussion.iter().collect::<Vec<_>>(),
            ),
        ] {
            // The thread opens when its day does: a vote thread whose first post comes after
            // its deadline is a config the daemon refuses (a date typed wrong).
            let mut opening = vote[0].clone();
            opening["tid"] = Value::String(tid.to_string());
            opening["dbdateline"] = Value::String(opens.timestamp().to_string());
            opening["dateline"] = Value::String(opens.format("%Y-%m-%d %H:%M").to_string());
            let mut posts = vec![opening];
            for i in 0..n - 1 {
                let who = (i * 5 + d as usize) % players.len();
                let t = opens + Duration::seconds(60 + (i as i64 * 86_000 / n as i64));
                let mut p = reply(source[i % source.len()], tid * 10_000 + i as u64, i + 2, t);
                p["author"] = Value::String(players[who].clone());
                p["authorid"] = Value::String((100 + who).to_string());
                p["tid"] = Value::String(tid.to_string());
                posts.push(p);
            }
            total_posts += posts.len();
            served.insert(tid, posts.clone());
            let mut files = Vec::new();
            for (page, chunk) in posts.chunks(50).enumerate() {
                let mut out = envelope.clone();
                out["Variables"]["postlist"] = Value::Array(chunk.to_vec());
                out["Variables"]["thread"]["tid"] = Value::String(tid.to_string());
                out["Variables"]["thread"]["replies"] =
                    Value::String((posts.len() - 1).to_string());
                out["Variables"]["ppp"] = Value::String("50".into());
                out["Variables"]["page"] = Value::String((page + 1).to_string());
                let f = dir.path().join(format!("{kind}{d}_p{}.json", page + 1));
                std::fs::write(&f, serde_json::to_vec(&out).unwrap()).unwrap();
                files.push(f.display().to_string());
            }
            threads.push(files);
        }
        day_blocks += &format!(
            "[[days]]\nday = {d}\nvote_thread = {}\ndiscussion_threads = [{}]\nopens_at = \"{}\"\ncloses_at = \"{}\"\n\n",
            1000 + d,
            2000 + d,
            opens.format("%Y-%m-%d %H:%M:%S"),
            closes.format("%Y-%m-%d %H:%M:%S"),
        );
        let cfg = game.display().to_string();
        let mut tally = vec![
            "tally".into(),
            "--config".into(),
            cfg.clone(),
            "--day".into(),
            d.to_string(),
        ];
        tally.extend(threads[0].iter().cloned());
        let mut lurk = vec![
            "lurk".into(),
            "--config".into(),
            cfg,
            "--day".into(),
            d.to_string(),
        ];
        lurk.extend(threads[1].iter().cloned());
        lurk.extend(threads[0].iter().cloned());
        commands.push(tally);
        commands.push(lurk);
    }
    std::fs::write(
        &game,
        format!(
            "ruleset = \"m103\"\nname = \"bench 42\"\nid = \"bench-42\"\n[roster]\nplayers = [{}]\njudges = [\"版杀一室法官\", \"admin\"]\n\n{day_blocks}",
            players.iter().map(|p| format!("\"{p}\"")).collect::<Vec<_>>().join(", ")
        ),
    )
    .unwrap();
    let mut wall = 0.0;
    let mut peak = 0u64;
    let mut failed = Vec::new();
    for c in &commands {
        let (s, rss, ok) = measured(c);
        wall += s;
        peak = peak.max(rss);
        if !ok {
            failed.push(c[..5].join(" "));
        }
    }
    let figure = json!({
        "players": players.len(), "days": days, "posts": total_posts,
        "commands": commands.len(), "wall_s": wall, "peak_rss_mb": peak as f64 / 1024.0,
        "target_wall_s": 2.0, "target_rss_mb": 150.0,
        "met": wall <= 2.0 && (peak as f64 / 1024.0) <= 150.0 && failed.is_empty(),
        "failed": failed,
    });
    (
        figure,
        Game42 {
            dir,
            game,
            threads: served,
            envelope,
            posts: total_posts,
        },
    )
}

/// The threads of a game served by tid as the API serves them (any page size).
#[derive(Clone)]
struct Threads {
    threads: Arc<HashMap<u64, Vec<Value>>>,
    envelope: Arc<Value>,
}

impl Respond for Threads {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let q: HashMap<String, String> = req.url.query_pairs().into_owned().collect();
        let ppp: usize = q.get("ppp").and_then(|v| v.parse().ok()).unwrap_or(10);
        let page = q.get("page").and_then(|v| v.parse().ok()).unwrap_or(1usize);
        let tid: u64 = q.get("tid").and_then(|v| v.parse().ok()).unwrap_or(0);
        let Some(posts) = self.threads.get(&tid) else {
            return ResponseTemplate::new(404);
        };
        let mut out =
            bansha::io::replay::page(&self.envelope, posts, page, ppp, (posts.len() - 1) as u64);
        out["Variables"]["ppp"] = Value::String(ppp.to_string());
        out["Variables"]["thread"]["tid"] = Value::String(tid.to_string());
        ResponseTemplate::new(200)
            .set_body_raw(serde_json::to_vec(&out).unwrap(), "application/json")
    }
}

/// The same 42-player game caught up by the daemon in one process: every day closed, the
/// release binary's `run --once` reads each day's threads from a replay (the default page
/// sizes, no gap) and makes each day's final, 潜水 and mails (into a folder).
async fn catch_up(g: &Game42) -> Value {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/mobile/index.php"))
        .respond_with(Threads {
            threads: Arc::new(g.threads.clone()),
            envelope: Arc::new(g.envelope.clone()),
        })
        .mount(&server)
        .await;
    let config = g.dir.path().join("daemon.toml");
    std::fs::write(
        &config,
        daemon_toml(&server.uri(), 50, FOLDER, &[]).replace(
            "config = \"game.toml\"",
            &format!("config = {:?}", g.game.display().to_string()),
        ),
    )
    .unwrap();
    let args: Vec<String> = ["run", "--once", "--now", "2026-11-17 12:00:00", "--config"]
        .iter()
        .map(|s| s.to_string())
        .chain([config.display().to_string()])
        .collect();
    let (wall, rss_kb, ok, err) = tokio::task::spawn_blocking(move || measured_with_log(&args))
        .await
        .unwrap();
    if !ok {
        eprintln!(
            "the catch-up run failed:\n{}",
            err.chars()
                .rev()
                .take(2000)
                .collect::<String>()
                .chars()
                .rev()
                .collect::<String>()
        );
    }
    let mails = std::fs::read_dir(g.dir.path().join("mails"))
        .map(|d| d.count())
        .unwrap_or(0);
    json!({
        "posts": g.posts, "wall_s": wall, "peak_rss_mb": rss_kb as f64 / 1024.0, "mails": mails,
        "ok": ok, "target_wall_s": 5.0, "met": ok && mails > 0 && wall <= 5.0,
    })
}

// ---------------------------------------------------------------- idle

fn proc_figures(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let rss_kb = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name's closing parenthesis; utime and stime are 14 and 15.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = f.get(11).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0)
        + f.get(12).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    (rss_kb, ticks)
}

async fn idle() -> Value {
    // 10 games, each a day with its own vote thread and discussion thread of 2,000 posts.
    let (posts, envelope) = grown(2000, at(2026, 11, 20, 8, 0));
    let (server, _replay) = forum(posts, envelope).await;
    let dir = tempfile::tempdir().unwrap();
    let mut extra = Vec::new();
    let game = |i: u64| {
        game_toml("2026-11-30 21:00:00")
            .replace(
                "vote_thread = 3\n",
                &format!(
                    "vote_thread = {}\ndiscussion_threads = [{}]\n",
                    100 + i,
                    200 + i
                ),
            )
            .replace(
                "name = \"版杀一室 第十二局\"",
                &format!("name = \"第{i}局\""),
            )
            .replace("id = \"版杀一室 第十二局\"", &format!("id = \"game-{i}\""))
    };
    std::fs::write(dir.path().join("game.toml"), game(1)).unwrap();
    for i in 2..=10 {
        let name = format!("game{i}.toml");
        std::fs::write(dir.path().join(&name), game(i)).unwrap();
        extra.push(name);
    }
    let config = dir.path().join("daemon.toml");
    let status_port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    std::fs::write(
        &config,
        daemon_toml(&server.uri(), 50, FOLDER, &extra)
            .replace("127.0.0.1:0", &format!("127.0.0.1:{status_port}")),
    )
    .unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(["run", "--now", "2026-11-25 12:00:00", "--config"])
        .arg(&config)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Wait for the first cycle (the catch-up at start), then watch.
    bansha::io::tls::ensure_provider();
    let client = reqwest::Client::new();
    let mut caught_up = false;
    for _ in 0..1200 {
        if let Ok(r) = client
            .get(format!("http://127.0.0.1:{status_port}/status"))
            .send()
            .await
        {
            let v: Value =
                serde_json::from_str(&r.text().await.unwrap_or_default()).unwrap_or(Value::Null);
            if !v["last_cycle"].is_null() {
                caught_up = true;
                break;
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        caught_up && child.try_wait().ok().flatten().is_none(),
        "the idle daemon did not start or never finished its first cycle"
    );
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let window = if quick() { 5 } else { 60 };
    let (_, cpu0) = proc_figures(pid);
    let mut rss_max = 0;
    for _ in 0..window {
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        rss_max = rss_max.max(proc_figures(pid).0);
    }
    let (_, cpu1) = proc_figures(pid);
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
    let field = |name: &str| -> f64 {
        rollup
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
            / 1024.0
    };
    let (anon_mb, file_mb) = (field("Anonymous:"), field("Rss:") - field("Anonymous:"));
    if std::env::var_os("BANSHA_BENCH_SMAPS").is_some() {
        let smaps = std::fs::read_to_string(format!("/proc/{pid}/smaps")).unwrap_or_default();
        let mut cur = String::new();
        let mut rows: Vec<(u64, String)> = Vec::new();
        for l in smaps.lines() {
            if l.contains('-') && !l.contains(':')
                || l.split_whitespace().count() >= 5 && !l.ends_with("kB")
            {
                cur = l.to_string();
            } else if let Some(v) = l.strip_prefix("Rss:") {
                let kb: u64 = v.trim().trim_end_matches(" kB").trim().parse().unwrap_or(0);
                rows.push((kb, cur.clone()));
            }
        }
        rows.sort();
        for (kb, m) in rows.iter().rev().take(12) {
            eprintln!("{kb:>8} kB  {m}");
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let cpu_percent = (cpu1 - cpu0) as f64 / hz / window as f64 * 100.0;
    json!({
        "games": 10, "window_s": window, "rss_mb_max": rss_max as f64 / 1024.0,
        "rss_anon_mb": anon_mb, "rss_file_mb": file_mb,
        "cpu_percent": cpu_percent, "target_rss_mb": 30.0, "target_cpu_percent": 1.0,
        "met": (rss_max as f64 / 1024.0) <= 30.0 && cpu_percent <= 1.0,
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let out = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut figures = serde_json::Map::new();
    // `BANSHA_BENCH_ONLY=scale,idle` runs those figures alone (for looking into one; the
    // table is from a whole run).
    let only = std::env::var("BANSHA_BENCH_ONLY").ok();
    let want = |k: &str| only.as_deref().is_none_or(|o| o.split(',').any(|x| x == k));
    if want("parse") {
        eprintln!("parse …");
        figures.insert("parse".into(), parse());
    }
    if want("tally") {
        eprintln!("tallies …");
        figures.insert("tally".into(), tallies());
    }
    if want("wordcount") {
        eprintln!("word count …");
        figures.insert("wordcount".into(), wordcount());
    }
    if want("poll_cost") {
        eprintln!("poll cost …");
        figures.insert("poll_cost".into(), rt.block_on(poll_cost()));
    }
    if want("latency") {
        eprintln!("latency …");
        figures.insert("latency".into(), rt.block_on(latency()));
    }
    if want("scale") || want("catch_up") {
        eprintln!("scale …");
        let (figure, game42) = scale();
        figures.insert("scale".into(), figure);
        eprintln!("catch-up …");
        figures.insert("catch_up".into(), rt.block_on(catch_up(&game42)));
    }
    if want("idle") {
        eprintln!("idle daemon …");
        figures.insert("idle".into(), rt.block_on(idle()));
    }
    let text = serde_json::to_string_pretty(&Value::Object(figures)).unwrap();
    match out {
        Some(f) => std::fs::write(f, text).unwrap(),
        None => println!("{text}"),
    }
}
