//! `bansha tally` (saved vote-thread pages → the tally, as BBCode or JSON) and
//! `bansha check-config`.

use crate::domain::rules;
use crate::domain::time::parse_local_time;
use bansha_parsers::{parse_thread_page, ParseOptions, Post};
use chrono::{DateTime, FixedOffset};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;

pub struct TallyArgs {
    pub config: PathBuf,
    pub day: u32,
    pub round: u32,
    /// "2026-11-29 21:00" in forum time; default: the newest time the pages show.
    pub at: Option<String>,
    pub json: bool,
    pub charset: Option<String>,
    pub pages: Vec<PathBuf>,
}

/// Pages read for a tally: the posts, and what the judge must know about the pages.
pub struct Pages {
    pub posts: Vec<Post>,
    pub warnings: Vec<String>,
    /// The newest server time (footer) or post time seen.
    pub newest: Option<DateTime<FixedOffset>>,
}

/// Read saved thread pages. A page that cannot be read is an error (a tally missing a page
/// would be wrong); pages that do not cover the thread produce warnings.
pub fn read_pages(
    paths: &[PathBuf],
    charset: Option<&str>,
    opts: &ParseOptions,
) -> anyhow::Result<Pages> {
    let content_type = charset.map(|c| format!("text/html; charset={c}"));
    let mut posts = Vec::new();
    let mut warnings = Vec::new();
    let mut newest: Option<DateTime<FixedOffset>> = None;
    let mut seen_pages: BTreeSet<(u64, u32)> = BTreeSet::new();
    let mut last_pages: Vec<(u64, u32)> = Vec::new();
    let mut pids = BTreeSet::new();
    let mut v4_pages = 0;
    for path in paths {
        let bytes = std::fs::read(path)
            .map_err(|e| anyhow::anyhow!("无法打开文件 {}：{e}", path.display()))?;
        let page = parse_thread_page(&bytes, content_type.as_deref(), opts).map_err(|e| {
            anyhow::anyhow!(
                "{} 不是可读取的帖子页面：{}（{}：{}）",
                path.display(),
                e.kind.zh(),
                e.kind.code(),
                e.detail
            )
        })?;
        for w in &page.warnings {
            warnings.push(match w.pid {
                Some(pid) => format!(
                    "{}：帖子 pid {pid}：{}（{}）",
                    path.display(),
                    w.kind.zh(),
                    w.detail
                ),
                None => format!("{}：{}（{}）", path.display(), w.kind.zh(), w.detail),
            });
        }
        if page.api_version == Some(4) {
            v4_pages += 1;
        }
        if let (Some(tid), Some(p)) = (page.tid, page.page) {
            seen_pages.insert((tid, p));
            if let Some(last) = page.last_page {
                last_pages.push((tid, last));
            }
        }
        newest = newest.max(page.server_time);
        for p in page.posts {
            newest = newest.max(p.posted_at);
            if pids.insert(p.pid) {
                posts.push(p);
            }
        }
    }
    if v4_pages > 0 {
        warnings.push(format!(
            "{v4_pages} 个页面来自手机接口 v4，它不带“本帖最后由…编辑”记录：截止后编辑过的投票无法识别，\
             请改用网页或接口 v1 的页面核对"
        ));
    }
    let tids: BTreeSet<u64> = posts.iter().map(|p| p.tid).collect();
    if tids.len() > 1 {
        warnings.push(format!(
            "页面来自不同的主题（tid {}），请确认都是本轮的投票帖",
            tids.iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join("、")
        ));
    }
    for (tid, last) in last_pages.iter().collect::<BTreeSet<_>>() {
        let missing: Vec<String> = (1..=*last)
            .filter(|p| !seen_pages.contains(&(*tid, *p)))
            .map(|p| p.to_string())
            .collect();
        if !missing.is_empty() {
            warnings.push(format!(
                "主题 {tid} 共 {last} 页，缺少第 {} 页：这些页上的投票没有统计",
                missing.join("、")
            ));
        }
    }
    Ok(Pages {
        posts,
        warnings,
        newest,
    })
}

/// Read the saved pages a day's ballots come in, by the rules' `vote.source`: vote-thread pages,
/// private-message pages (qipan), or poll pages with their voter lists (bansha42). From saved
/// poll pages bansha sees one reading, taken at `at`: the order of the votes is unknown.
pub fn read_ballots(
    game: &crate::domain::config::GameConfig,
    day: &crate::domain::config::DayConfig,
    paths: &[PathBuf],
    charset: Option<&str>,
    opts: &ParseOptions,
    at: Option<DateTime<FixedOffset>>,
) -> anyhow::Result<(Pages, Vec<rules::Cast>)> {
    use crate::cli::poll_pm::Problems;
    use crate::domain::config::BallotSource;
    // A page that cannot be read fails the tally: a tally missing a page would be wrong.
    let fatal = |problems: &Problems| -> anyhow::Result<()> {
        match problems.errors.first() {
            Some(p) => Err(anyhow::anyhow!("{}", p.trim_start_matches("错误："))),
            None => Ok(()),
        }
    };
    match game.rules.vote.source {
        BallotSource::Thread => Ok((read_pages(paths, charset, opts)?, Vec::new())),
        BallotSource::Pm => {
            let mut problems = Problems::default();
            let messages = crate::cli::poll_pm::read_pms(paths, opts, &mut problems);
            fatal(&problems)?;
            let posts = rules::channels::pm_posts(game, day, &messages);
            let newest = messages.iter().filter_map(|m| m.sent_at).max();
            Ok((
                Pages {
                    posts,
                    warnings: strip_label(problems.notes),
                    newest,
                },
                Vec::new(),
            ))
        }
        BallotSource::Poll => {
            let mut problems = Problems::default();
            let poll = crate::cli::poll_pm::read_poll(paths, opts, &mut problems);
            fatal(&problems)?;
            let Some(poll) = poll else {
                anyhow::bail!(
                    "没有读到投票机（本局在投票机投票，需要投票帖页面或手机接口的 viewthread）"
                );
            };
            let at = at.unwrap_or(day.closes_at).min(day.closes_at);
            let casts = rules::channels::PollLog::default().observe(&poll, at);
            problems.notes.push(
                "保存的页面只是投票机的一次读取，看不出票的先后：平票时按同时到达处理。\
                 守护进程每次轮询都会记录新出现的票，先后以它的记录为准"
                    .into(),
            );
            Ok((
                Pages {
                    posts: Vec::new(),
                    warnings: strip_label(problems.notes),
                    newest: Some(at),
                },
                casts,
            ))
        }
    }
}

/// Notes as the tally prints them (it adds its own "警告：").
fn strip_label(notes: Vec<String>) -> Vec<String> {
    notes
        .into_iter()
        .map(|n| n.trim_start_matches("警告：").to_string())
        .collect()
}

/// Run `bansha tally`; returns the exit code.
pub fn run(args: &TallyArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
    let game = match crate::io::files::load_game(&args.config) {
        Ok(g) => g,
        Err(e) => {
            writeln!(err, "配置错误：{e}")?;
            return Ok(2);
        }
    };
    let game = crate::io::state_file::with_state(game)?;
    let opts = ParseOptions {
        utc_offset: game.utc_offset,
    };
    let Some(day) = game.day(args.day) else {
        writeln!(err, "错误：{}", rules::TallyError::NoSuchDay(args.day))?;
        return Ok(2);
    };
    let at = match &args.at {
        Some(s) => match parse_local_time(s, game.utc_offset) {
            Ok(t) => Some(t),
            Err(m) => {
                writeln!(err, "错误：--at：{m}")?;
                return Ok(2);
            }
        },
        None => None,
    };
    let (pages, casts) =
        match read_ballots(&game, day, &args.pages, args.charset.as_deref(), &opts, at) {
            Ok(p) => p,
            Err(e) => {
                writeln!(err, "错误：{e:#}")?;
                return Ok(1);
            }
        };
    let now = match at {
        Some(t) => t,
        None => {
            let newest = pages.newest.unwrap_or(day.closes_at);
            if newest < day.closes_at {
                writeln!(
                    err,
                    "提示：页面上最新的时间是 {}，早于截止时间 {}，按临时统计处理；\
                     如果页面是截止后保存的，请用 --at 指定统计时刻",
                    newest.format("%Y-%m-%d %H:%M:%S"),
                    day.closes_at.format("%Y-%m-%d %H:%M:%S")
                )?;
            }
            newest
        }
    };
    let tally = match rules::tally_with(&game, args.day, args.round, now, &pages.posts, &casts) {
        Ok(t) => t,
        Err(e) => {
            writeln!(err, "错误：{e}")?;
            return Ok(2);
        }
    };
    for w in &pages.warnings {
        writeln!(err, "警告：{w}")?;
    }
    if args.json {
        let mut v = serde_json::to_value(&tally)?;
        v["warnings"] = serde_json::json!(pages.warnings);
        serde_json::to_writer_pretty(&mut *out, &v)?;
        writeln!(out)?;
    } else {
        out.write_all(crate::present::bbcode::tally(&game, &tally).as_bytes())?;
        if !tally.publish_voters {
            writeln!(
                err,
                "提示：按本局规则，本轮只公布各人得票数；逐票明细（含无效票）请用 --json 查看"
            )?;
        }
    }
    out.flush()?;
    Ok(0)
}

/// Run `bansha check-config`: a game config, or a daemon config (one with `[forum]`) and every
/// game it names. Returns the exit code.
pub fn check_config(
    path: &std::path::Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let is_daemon = std::fs::read_to_string(path)
        .ok()
        .and_then(|t| t.parse::<toml::Table>().ok())
        .is_some_and(|t| t.contains_key("forum"));
    if is_daemon {
        return match crate::io::files::load_settings(path) {
            Ok(s) => {
                let games: Vec<String> = s.games.iter().map(|g| g.name.clone()).collect();
                writeln!(
                    out,
                    "守护进程配置有效：论坛 {}，{}，邮件发给 {}，监视游戏：{}",
                    s.forum.base_url,
                    match &s.login {
                        Some(l) => format!("以 {} 登录", l.username),
                        None => "以游客身份读取".into(),
                    },
                    s.judge.to.join("、"),
                    games.join("、")
                )?;
                Ok(0)
            }
            Err(e) => {
                writeln!(err, "配置错误：{e}")?;
                Ok(1)
            }
        };
    }
    match crate::io::files::load_game(path) {
        Ok(g) => {
            for w in g.warnings() {
                writeln!(err, "警告：{w}")?;
            }
            let days: Vec<String> = g.days.iter().map(|d| format!("第{}天", d.day)).collect();
            writeln!(
                out,
                "配置有效：{}（规则 {}），玩家 {} 人，法官 {} 人，已配置 {}",
                g.name,
                g.rules.name,
                g.roster.players.len(),
                g.roster.judges.len(),
                if days.is_empty() {
                    "0 天".to_string()
                } else {
                    days.join("、")
                }
            )?;
            Ok(0)
        }
        Err(e) => {
            writeln!(err, "配置错误：{e}")?;
            Ok(1)
        }
    }
}

fn ask_daemon(
    config: &std::path::Path,
    path: &str,
    err: &mut dyn Write,
) -> anyhow::Result<Result<String, i32>> {
    ask_daemon_with(config, path, None, err)
}

fn ask_daemon_with(
    config: &std::path::Path,
    path: &str,
    body: Option<serde_json::Value>,
    err: &mut dyn Write,
) -> anyhow::Result<Result<String, i32>> {
    let settings = match crate::io::files::load_settings(config) {
        Ok(s) => s,
        Err(e) => {
            writeln!(err, "配置错误：{e}")?;
            return Ok(Err(2));
        }
    };
    let url = format!("http://{}{path}", settings.status.listen);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let answer = rt.block_on(async {
        let client = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(10))
            .build()?;
        let req = match &body {
            Some(b) => client
                .post(&url)
                .header("content-type", "application/json")
                .body(b.to_string()),
            None => client.get(&url),
        };
        let req = match &settings.status_token {
            Some(t) => req.bearer_auth(t.expose()),
            None => req,
        };
        let r = req.send().await?;
        let status = r.status();
        Ok::<_, reqwest::Error>((status, r.text().await?))
    });
    match answer {
        Ok((s, body)) if s.is_success() => Ok(Ok(body)),
        Ok((_, body)) => {
            writeln!(err, "错误：{}", body.trim())?;
            Ok(Err(1))
        }
        Err(_) => {
            writeln!(
                err,
                "错误：守护进程没有在 {} 运行（先 bansha run，或检查 [status] listen）",
                settings.status.listen
            )?;
            Ok(Err(1))
        }
    }
}

/// `bansha tally --live`: the running daemon's tally.
pub fn live(
    config: &std::path::Path,
    day: u32,
    game: Option<&str>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let mut path = format!("/tally?day={day}");
    if let Some(g) = game {
        let enc: String = g.bytes().map(|b| format!("%{b:02X}")).collect();
        path.push_str(&format!("&game={enc}"));
    }
    match ask_daemon(config, &path, err)? {
        Ok(body) => {
            out.write_all(body.as_bytes())?;
            Ok(0)
        }
        Err(code) => Ok(code),
    }
}

/// `bansha status`: what the running daemon is doing, in Chinese.
pub fn status(
    config: &std::path::Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let body = match ask_daemon(config, "/status", err)? {
        Ok(b) => b,
        Err(code) => return Ok(code),
    };
    let s: crate::daemon::http::Status = serde_json::from_str(&body)?;
    writeln!(
        out,
        "状态：{}",
        if s.healthy {
            "正常"
        } else {
            "异常（最近没有完成轮询）"
        }
    )?;
    writeln!(
        out,
        "监视：{}",
        if s.watching.is_empty() {
            "无".to_string()
        } else {
            s.watching.join("；")
        }
    )?;
    if let Some(c) = &s.last_cycle {
        writeln!(
            out,
            "上一轮：{}，请求 {} 次，新帖 {}，编辑 {}，发出邮件 {}{}",
            c.at.map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
                .unwrap_or_default(),
            c.requests,
            c.new_posts,
            c.edited_posts,
            c.mails_sent,
            if c.errors.is_empty() {
                String::new()
            } else {
                format!("，错误：{}", c.errors.join("；"))
            }
        )?;
    }
    if let Some((t, what)) = &s.next_deadline {
        writeln!(out, "下一个时间点：{t}（{what}）")?;
    }
    writeln!(out, "待发邮件：{}，已发：{}", s.mails_waiting, s.mails_sent)?;
    if !s.failing_posts.is_empty() {
        writeln!(out, "不合格的帖子：")?;
        for f in &s.failing_posts {
            writeln!(out, "  {f}")?;
        }
    }
    Ok(0)
}

/// `bansha ledger`: the running daemon's discipline ledger; add or strike out entries.
#[allow(clippy::too_many_arguments)]
pub fn ledger(
    config: &std::path::Path,
    game: Option<&str>,
    add: Option<&str>,
    kind: Option<&str>,
    reason: Option<&str>,
    day: Option<u32>,
    remove: Option<&str>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let action = match (add, remove) {
        (Some(_), Some(_)) => {
            writeln!(err, "错误：--add 和 --remove 不能同时使用")?;
            return Ok(2);
        }
        (Some(_), None) => "add",
        (None, Some(_)) => "remove",
        (None, None) => "list",
    };
    let body = serde_json::json!({
        "game": game, "action": action, "player": add, "kind": kind,
        "reason": reason, "day": day, "id": remove,
    });
    match ask_daemon_with(config, "/ledger", Some(body), err)? {
        Ok(text) => {
            out.write_all(text.as_bytes())?;
            Ok(0)
        }
        Err(code) => Ok(code),
    }
}
