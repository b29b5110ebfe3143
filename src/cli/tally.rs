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
    /// Where the saved poll's counts and voter lists disagree (a poll day).
    pub poll_gaps: Vec<rules::channels::PollGap>,
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
        poll_gaps: Vec::new(),
    })
}

/// Read the saved pages a day's ballots come in, by the rules' `vote.source`: vote-thread pages,
/// private-message pages (qipan), or poll pages with their voter lists (bansha42). From saved
/// poll pages bansha sees one reading, taken at `at`: the order of the votes is unknown. The poll
/// thread's pages are read for their replies too: a ballot posted there is void and its author
/// is no suicide (bansha42 L72 "如未用投票机，所投票视为废票，不算自杀").
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
                    poll_gaps: Vec::new(),
                },
                Vec::new(),
            ))
        }
        BallotSource::Poll => {
            let mut problems = Problems::default();
            let poll = crate::cli::poll_pm::read_poll(paths, opts, &mut problems);
            fatal(&problems)?;
            // The thread's replies: every page but the voter lists.
            let thread: Vec<PathBuf> = paths
                .iter()
                .filter(|p| std::fs::read(p).is_ok_and(|b| !crate::cli::poll_pm::is_voter_list(&b)))
                .cloned()
                .collect();
            let replies = read_pages(&thread, charset, opts)?;
            let Some(poll) = poll else {
                anyhow::bail!(
                    "没有读到投票机（本局在投票机投票，需要投票帖页面或手机接口的 viewthread）"
                );
            };
            let at = at.unwrap_or(day.closes_at).min(day.closes_at);
            let mut log = rules::channels::PollLog::default();
            let casts = log.observe(&poll, at);
            problems.notes.push(
                "保存的页面只是投票机的一次读取，看不出票的先后：平票时按同时到达处理。\
                 守护进程每次轮询都会记录新出现的票，先后以它的记录为准"
                    .into(),
            );
            let mut warnings = strip_label(problems.notes);
            warnings.extend(replies.warnings);
            Ok((
                Pages {
                    posts: replies.posts,
                    warnings,
                    newest: Some(at),
                    poll_gaps: log.gaps,
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
    let game = crate::io::state_file::with_state(&game)?;
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
    let game = if args.round == 2 {
        with_runoff(game, args.day, &pages.posts, &casts)
    } else {
        game
    };
    let inputs = rules::Inputs {
        posts: &pages.posts,
        casts: &casts,
        poll_gaps: &pages.poll_gaps,
        rulings: &[],
    };
    let tally = match rules::tally_of(&game, args.day, args.round, now, &inputs) {
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

/// The arguments of `bansha tally` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct TallyCommand {
    /// 本局配置文件（TOML）
    #[arg(long)]
    pub config: PathBuf,
    /// 第几天
    #[arg(long)]
    pub day: u32,
    /// 第几轮（1，或高票辩论的 2）
    #[arg(long, default_value_t = 1)]
    pub round: u32,
    /// 统计时刻（论坛时间，如 "2026-11-29 21:00"）；默认取页面上最新的时间
    #[arg(long)]
    pub at: Option<String>,
    /// 向正在运行的守护进程要实时统计（此时 --config 是守护进程配置，不需要页面文件）
    #[arg(long)]
    pub live: bool,
    /// 现在就从论坛读投票帖并统计（不需要守护进程；此时 --config 是守护进程配置，按其中的论坛地址和登录读取）
    #[arg(long, conflicts_with = "live")]
    pub fetch: bool,
    /// 与 --live / --fetch 一起用：游戏名（配置中的 name），默认第一个
    #[arg(long)]
    pub game: Option<String>,
    /// 输出 JSON（逐票明细）而不是 BBCode
    #[arg(long)]
    pub json: bool,
    /// 强制使用的字符编码（如 GBK）；默认按页面声明
    #[arg(long)]
    pub charset: Option<String>,
    /// 投票帖的页面文件（所有页）
    #[arg(required_unless_present_any = ["live", "fetch"])]
    pub pages: Vec<PathBuf>,
}

impl TallyCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        if self.live {
            return crate::cli::client::live(
                &self.config,
                self.day,
                self.game.as_deref(),
                out,
                err,
            );
        }
        if self.fetch {
            return fetch(
                &self.config,
                (self.day, self.round),
                self.game.as_deref(),
                self.json,
                out,
                err,
            );
        }
        let args = TallyArgs {
            config: self.config,
            day: self.day,
            round: self.round,
            at: self.at,
            json: self.json,
            charset: self.charset,
            pages: self.pages,
        };
        run(&args, out, err)
    }
}

/// `bansha tally --fetch`: the day's vote thread read from the forum now, every page, logged in
/// when the daemon config says so and paced as the daemon paces its reads; tallied at the
/// forum's own time and printed as `tally` prints saved pages. No daemon, no record.
pub fn fetch(
    config: &std::path::Path,
    (day, round): (u32, u32),
    game_name: Option<&str>,
    json: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let online = match crate::cli::online::Online::open(config, game_name, err)? {
        Ok(o) => o,
        Err(code) => return Ok(code),
    };
    let game = online.game.clone();
    let Some(d) = game.day(day) else {
        writeln!(err, "错误：{}", rules::TallyError::NoSuchDay(day))?;
        return Ok(2);
    };
    if game.rules.vote.source != crate::domain::config::BallotSource::Thread {
        writeln!(
            err,
            "错误：这一局的票不在投票帖里（投票机或短信）：请用守护进程（bansha run 后 bansha tally --live），或把页面保存下来用 bansha tally 统计"
        )?;
        return Ok(2);
    }
    let Some(tid) = d.vote_thread else {
        writeln!(err, "错误：第 {day} 天没有设 vote_thread（投票帖的 tid）")?;
        return Ok(2);
    };
    let read = match online.read_said(tid, "投票帖", err)? {
        Ok(r) => r,
        Err(code) => return Ok(code),
    };
    let now = online.now(&[&read]);
    writeln!(
        err,
        "统计时刻（论坛时间）：{}",
        now.format("%Y-%m-%d %H:%M:%S")
    )?;
    let posts = read.posts;
    let game = if round == 2 {
        with_runoff(game, day, &posts, &[])
    } else {
        game
    };
    let tally = match rules::tally_with(&game, day, round, now, &posts, &[]) {
        Ok(t) => t,
        Err(e) => {
            writeln!(err, "错误：{e}")?;
            return Ok(2);
        }
    };
    if json {
        serde_json::to_writer_pretty(&mut *out, &tally)?;
        writeln!(out)?;
    } else {
        out.write_all(crate::present::bbcode::tally(&game, &tally).as_bytes())?;
    }
    out.flush()?;
    Ok(0)
}

/// The game with day `day`'s run-off set as the daemon would run it (`decide::runoff_plan`):
/// the judge's, or the rules' from round 1's tie, so `--round 2` needs no hand-written
/// `runoff` where the rules give round 2's deadline (chuhan: 24 hours).
pub fn with_runoff(
    mut game: crate::domain::config::GameConfig,
    day: u32,
    posts: &[bansha_parsers::Post],
    casts: &[rules::Cast],
) -> crate::domain::config::GameConfig {
    let Some(d) = game.day(day).cloned() else {
        return game;
    };
    if d.runoff.is_some() {
        return game;
    }
    let Ok(round1) = rules::tally_with(&game, day, 1, d.closes_at, posts, casts) else {
        return game;
    };
    let places = round1.outcome.places;
    let tied = matches!(
        round1.outcome.kind,
        rules::OutcomeKind::Runoff | rules::OutcomeKind::Overtime
    )
    .then_some(round1.outcome.players);
    if let crate::daemon::decide::RunoffPlan::Run(r) =
        crate::daemon::decide::runoff_plan(&game, &d, tied.as_deref(), places)
    {
        if let Some(x) = game.days.iter_mut().find(|x| x.day == day) {
            x.runoff = Some(r);
        }
    }
    game
}
