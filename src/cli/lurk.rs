//! `bansha lurk --config GAME.toml --day N [--json] PAGES...`: 潜水 counts from saved pages of the
//! day's threads (discussion, vote, chat — the config says which count).

use crate::cli::tally::read_pages;
use crate::domain::rules::lurk::lurk;
use bansha_parsers::ParseOptions;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;

pub struct LurkArgs {
    pub config: PathBuf,
    pub day: u32,
    pub json: bool,
    /// Print m103's 电梯楼 index instead.
    pub elevator: bool,
    pub charset: Option<String>,
    pub pages: Vec<PathBuf>,
}

/// The posts a day's 潜水 is counted from, and what the count must know about how they were read.
struct Read {
    posts: Vec<bansha_parsers::Post>,
    thread_list: Vec<bansha_parsers::threadlist::ThreadEntry>,
    /// A counted thread was read short (pages missing): the day cannot be judged for those
    /// who fall short.
    short: bool,
    /// The newest time the pages show.
    newest: Option<chrono::DateTime<chrono::FixedOffset>>,
}

pub fn run(args: &LurkArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
    let game = match crate::io::files::load_game(&args.config) {
        Ok(g) => g,
        Err(e) => {
            writeln!(err, "配置错误：{e}")?;
            return Ok(2);
        }
    };
    let game = crate::io::state_file::with_state(&game)?;
    let Some(d) = game.day(args.day) else {
        writeln!(err, "错误：配置中没有第 {} 天", args.day)?;
        return Ok(2);
    };
    let opts = ParseOptions {
        utc_offset: game.utc_offset,
    };
    // Thread-list pages (the board, forumdisplay) are read apart: chuhan players' own threads.
    let mut thread_list = Vec::new();
    let mut thread_pages = Vec::new();
    for p in &args.pages {
        let bytes = std::fs::read(p).unwrap_or_default();
        let is_list = String::from_utf8_lossy(&bytes).contains("normalthread_");
        let ct = args
            .charset
            .as_ref()
            .map(|c| format!("text/html; charset={c}"));
        match is_list
            .then(|| bansha_parsers::threadlist::parse_thread_list(&bytes, ct.as_deref(), &opts))
        {
            Some(Ok(list)) => thread_list.extend(list.threads),
            _ => thread_pages.push(p.clone()),
        }
    }
    let pages = match read_pages(&thread_pages, args.charset.as_deref(), &opts) {
        Ok(p) => p,
        Err(e) => {
            writeln!(err, "错误：{e:#}")?;
            return Ok(1);
        }
    };
    // Pages of several threads are expected here.
    for w in pages
        .warnings
        .iter()
        .filter(|w| !w.contains("页面来自不同的主题"))
    {
        writeln!(err, "警告：{w}")?;
    }
    let read = Read {
        short: pages.warnings.iter().any(|w| w.contains("缺少第")),
        posts: pages.posts,
        thread_list,
        newest: pages.newest,
    };
    print(&game, d, &read, args, out, err)
}

/// `bansha lurk --fetch`: the day's counted threads read from the forum now, every page (and
/// the board's thread list where players' own threads count), then counted as saved pages are.
pub fn fetch(
    args: &LurkArgs,
    game_name: Option<&str>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let online = match crate::cli::online::Online::open(&args.config, game_name, err)? {
        Ok(o) => o,
        Err(code) => return Ok(code),
    };
    let game = &online.game;
    let Some(d) = game.day(args.day) else {
        writeln!(err, "错误：配置中没有第 {} 天", args.day)?;
        return Ok(2);
    };
    // Every day the count spans (m103's run of days), each from its own threads.
    let mut threads = crate::domain::rules::lurk::spanned_threads(game, d);
    if game.rules.lurk.must_vote {
        threads.extend(d.vote_thread);
    }
    let mut thread_list = Vec::new();
    if game.rules.lurk.player_threads {
        if let Some(fid) = game.board {
            match online.board(fid) {
                Ok(list) => {
                    let (from, to) = crate::domain::rules::lurk::window(game, d);
                    threads.extend(
                        list.threads
                            .iter()
                            .filter(|t| game.roster.players.contains(&t.author))
                            .filter(|t| {
                                t.created_at
                                    .is_some_and(|c| from.is_none_or(|f| c > f) && c <= to)
                            })
                            .map(|t| t.tid),
                    );
                    thread_list = list.threads;
                }
                Err(e) => {
                    writeln!(err, "错误：读取版块 fid {fid} 的主题列表失败：{e}")?;
                    return Ok(1);
                }
            }
        }
    }
    threads.sort_unstable();
    threads.dedup();
    if threads.is_empty() {
        writeln!(
            err,
            "错误：第 {} 天没有要计数的帖子（discussion_threads / vote_thread）",
            args.day
        )?;
        return Ok(2);
    }
    let mut read = Vec::new();
    for tid in threads {
        match online.read_said(tid, "帖子", err)? {
            Ok(r) => read.push(r),
            Err(code) => return Ok(code),
        }
    }
    let newest = online.now(&read.iter().collect::<Vec<_>>());
    let read = Read {
        posts: read.into_iter().flat_map(|r| r.posts).collect(),
        thread_list,
        short: false,
        newest: Some(newest),
    };
    print(game, d, &read, args, out, err)
}

/// Count the day's 潜水 from `read` and print it as the arguments ask.
fn print(
    game: &crate::domain::config::GameConfig,
    d: &crate::domain::config::DayConfig,
    read: &Read,
    args: &LurkArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    // Pages missing from a counted thread: the day cannot be judged for those who fall short.
    let mut outages: Vec<_> = if read.short {
        vec![crate::domain::rules::lurk::span(game, d)]
    } else {
        Vec::new()
    };
    // An earlier day of a run of days (m103) whose threads were not given: its rule cannot be
    // judged.
    for x in crate::domain::rules::lurk::spanned_days(game, d)
        .into_iter()
        .skip(1)
    {
        let missing: Vec<String> = crate::domain::rules::lurk::threads_of(game, x)
            .into_iter()
            .filter(|t| !read.posts.iter().any(|p| p.tid == *t))
            .map(|t| format!("tid {t}"))
            .collect();
        if !missing.is_empty() {
            writeln!(
                err,
                "警告：第 {} 天要计数的帖子（{}）没有给出页面；连续多天的潜水规则对这一天无法判断，请一并给出",
                x.day,
                missing.join("、")
            )?;
            outages.push(crate::domain::rules::lurk::span(game, x));
        }
    }
    let voters: Option<BTreeSet<String>> = match d.vote_thread {
        Some(tid) if game.rules.lurk.must_vote && read.posts.iter().any(|p| p.tid == tid) => {
            let vote_posts: Vec<_> = read
                .posts
                .iter()
                .filter(|p| p.tid == tid)
                .cloned()
                .collect();
            let now = read.newest.unwrap_or(d.closes_at).max(d.closes_at);
            crate::domain::rules::tally(game, args.day, 1, now, &vote_posts)
                .ok()
                .map(|t| t.voted())
        }
        _ => None,
    };
    let Some(report) = lurk(
        game,
        args.day,
        &read.posts,
        &outages,
        voters.as_ref(),
        &read.thread_list,
    ) else {
        writeln!(err, "错误：配置中没有第 {} 天", args.day)?;
        return Ok(2);
    };
    if args.elevator {
        let Some(&tid) = d.discussion_threads.first() else {
            writeln!(err, "错误：第 {} 天没有配置 discussion_threads", args.day)?;
            return Ok(2);
        };
        out.write_all(crate::present::bbcode::elevator(&report, tid).as_bytes())?;
        return Ok(0);
    }
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &report)?;
        writeln!(out)?;
        return Ok(0);
    }
    out.write_all(crate::present::bbcode::lurk(game, &report, &[]).as_bytes())?;
    Ok(0)
}

/// The arguments of `bansha lurk` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct LurkCommand {
    /// 本局配置文件（TOML）
    #[arg(long)]
    pub config: PathBuf,
    /// 第几天
    #[arg(long)]
    pub day: u32,
    /// 输出 JSON
    #[arg(long)]
    pub json: bool,
    /// 强制使用的字符编码（如 GBK）；默认按页面声明
    #[arg(long)]
    pub charset: Option<String>,
    /// 输出电梯楼（每位玩家只看该作者的链接和发言数，BBCode）
    #[arg(long)]
    pub elevator: bool,
    /// 现在就从论坛读当天要计数的各帖（不需要守护进程；此时 --config 是守护进程配置）
    #[arg(long)]
    pub fetch: bool,
    /// 与 --fetch 一起用：游戏名（配置中的 name），默认第一个
    #[arg(long, requires = "fetch")]
    pub game: Option<String>,
    /// 当天各帖的页面文件（讨论帖、投票帖、灌水帖都可以给，按配置计数）
    #[arg(required_unless_present = "fetch", conflicts_with = "fetch")]
    pub pages: Vec<PathBuf>,
}

impl LurkCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        let args = LurkArgs {
            config: self.config,
            day: self.day,
            json: self.json,
            elevator: self.elevator,
            charset: self.charset,
            pages: self.pages,
        };
        if self.fetch {
            return fetch(&args, self.game.as_deref(), out, err);
        }
        run(&args, out, err)
    }
}
