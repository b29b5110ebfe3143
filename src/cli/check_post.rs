//! `bansha check-post --config GAME.toml --kind KIND [--code-name X]... [--edited] [--poetry]
//! [--compare FILE]... [--pid P] FILE|-`: a report or kill post against the game's rules — as
//! BBCode text, or (with `--pid`) the post of a saved thread page.

use crate::domain::rules::checks::check_post;
use bansha_parsers::wordcount::split_bbcode_quotes;
use std::io::Write;
use std::path::PathBuf;

pub struct CheckArgs {
    pub config: PathBuf,
    pub kind: String,
    pub code_names: Vec<String>,
    pub edited: bool,
    pub poetry: bool,
    pub pid: Option<u64>,
    pub compare: Vec<PathBuf>,
    pub json: bool,
    pub file: PathBuf,
    /// Read the post from the forum now (`--config` is then the daemon config).
    pub fetch: Option<Fetch>,
}

/// Where `check-post --fetch` looks for its pid.
pub struct Fetch {
    pub game: Option<String>,
    /// The thread the post is in; else the day's (or every day's) required-post threads of the
    /// kind, then the others the config names.
    pub thread: Option<u64>,
    pub day: Option<u32>,
}

pub fn run(args: &CheckArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
    let online = match &args.fetch {
        Some(f) => match crate::cli::online::Online::open(&args.config, f.game.as_deref(), err)? {
            Ok(o) => Some(o),
            Err(code) => return Ok(code),
        },
        None => None,
    };
    let game = match &online {
        Some(o) => o.game.clone(),
        None => match crate::io::files::load_game(&args.config) {
            Ok(g) => crate::io::state_file::with_state(&g)?,
            Err(e) => {
                writeln!(err, "配置错误：{e}")?;
                return Ok(2);
            }
        },
    };
    let Some(rule) = game.rules.checks.get(&args.kind) else {
        return no_such_kind(&game, &args.kind, err);
    };
    // The earlier posts of the thread the post was found in (原创首发), when read from the forum.
    let mut thread_earlier: Vec<(String, String)> = Vec::new();
    // A saved page and a pid: that post's text, quotes and edit notice as the forum shows them.
    let from_page = match (args.pid, &online, &args.fetch) {
        (Some(pid), Some(online), Some(f)) => {
            let Some(post) = find_post(online, &game, f, &args.kind, pid, err)? else {
                return Ok(1);
            };
            let (post, earlier) = post;
            thread_earlier = earlier;
            Some(post)
        }
        (None, Some(_), _) => {
            writeln!(err, "错误：--fetch 要和 --pid 一起用（要检查的帖子的 pid）")?;
            return Ok(2);
        }
        (Some(pid), _, _) => {
            let opts = bansha_parsers::ParseOptions {
                utc_offset: game.utc_offset,
            };
            let pages = match crate::cli::tally::read_pages(
                std::slice::from_ref(&args.file),
                None,
                &opts,
            ) {
                Ok(p) => p,
                Err(e) => {
                    writeln!(err, "错误：{e:#}")?;
                    return Ok(1);
                }
            };
            let Some(post) = pages.posts.into_iter().find(|p| p.pid == pid) else {
                writeln!(
                    err,
                    "错误：{} 里没有 pid {pid} 的帖子（帖子在别的页？）",
                    args.file.display()
                )?;
                return Ok(1);
            };
            Some(post)
        }
        (None, _, _) => None,
    };
    let text = match &from_page {
        Some(p) => p.text.clone(),
        None => match crate::cli::wordcount::read_text(&args.file, err)? {
            Ok(t) => t,
            Err(m) => {
                writeln!(err, "错误：{m}")?;
                return Ok(1);
            }
        },
    };
    let mut earlier = thread_earlier;
    for p in &args.compare {
        match crate::cli::wordcount::read_text(p, err)? {
            Ok(t) => earlier.push((p.display().to_string(), t)),
            Err(m) => {
                writeln!(err, "错误：{m}")?;
                return Ok(1);
            }
        }
    }
    let (own, quotes) = match &from_page {
        Some(p) => (
            text.clone(),
            p.quotes.iter().map(|q| q.text.clone()).collect::<Vec<_>>(),
        ),
        None => split_bbcode_quotes(&text),
    };
    let q: Vec<&str> = quotes.iter().map(String::as_str).collect();
    let edited = args.edited || from_page.as_ref().is_some_and(|p| p.edited_at.is_some());
    let v = check_post(
        rule,
        &own,
        &q,
        &args.code_names,
        (edited, args.poetry),
        &earlier,
    );
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &v)?;
        writeln!(out)?;
        return Ok(0);
    }
    if let Some(p) = &from_page {
        writeln!(
            out,
            "{} {}（pid {}{}）",
            p.floor,
            p.author,
            p.pid,
            if p.edited_at.is_some() {
                "，编辑过"
            } else {
                ""
            }
        )?;
    }
    let f = &v.figures;
    writeln!(
        out,
        "{}：总字数 {}，去掉引用后 {} 字，字符数（不计空格）{}",
        v.label, f.total.words, f.own.words, f.total.chars_no_spaces
    )?;
    // What counted as quoted, as `wordcount` says it: the same figures, the rules' choice.
    let inline = match (f.inline_as_quotes, f.inline_quoted_words) {
        (true, _) => "，本局规则算作引用".to_string(),
        (false, 0) => String::new(),
        (false, n) => format!("；行内引号内 {n} 字，本局规则不算作引用"),
    };
    writeln!(
        out,
        "引用 {} 字（{:.1}%：{}{inline}），重复句子 {} 字（{:.1}%）",
        f.quoted_words,
        f.quoted_share * 100.0,
        crate::cli::wordcount::quoted_parts(f),
        f.repeated_words,
        f.repeated_share * 100.0
    )?;
    if v.pass {
        writeln!(out, "结论：合格")?;
    } else {
        writeln!(out, "结论：不合格——{}", v.failures.join("；"))?;
    }
    Ok(0)
}

/// The arguments of `bansha check-post` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct CheckPostCommand {
    /// 本局配置文件（TOML）
    #[arg(long)]
    pub config: PathBuf,
    /// 帖子种类（本局规则 [checks.*] 中的名字，如 report、kill、kill_iou）
    #[arg(long)]
    pub kind: String,
    /// 杀手代号（杀帖必须注明），可给多个
    #[arg(long = "code-name")]
    pub code_names: Vec<String>,
    /// 帖子被编辑过
    #[arg(long)]
    pub edited: bool,
    /// 古诗词赏析帖：必须引用点评的诗词句不计入引用比例
    #[arg(long)]
    pub poetry: bool,
    /// FILE 是保存的帖子页面（网页或手机接口 JSON），检查其中这个 pid 的帖子
    #[arg(long)]
    pub pid: Option<u64>,
    /// 与这些较早的文本比较相似度（原创首发）
    #[arg(long)]
    pub compare: Vec<PathBuf>,
    /// 输出 JSON
    #[arg(long)]
    pub json: bool,
    /// 现在就从论坛读 --pid 这一帖（不需要守护进程；此时 --config 是守护进程配置）
    #[arg(long, requires = "pid")]
    pub fetch: bool,
    /// 与 --fetch 一起用：帖子所在主题的 tid；默认在配置的交帖帖（本类）和其他帖里找
    #[arg(long, requires = "fetch")]
    pub thread: Option<u64>,
    /// 与 --fetch 一起用：只在第几天的帖子里找
    #[arg(long, requires = "fetch")]
    pub day: Option<u32>,
    /// 与 --fetch 一起用：游戏名（配置中的 name），默认第一个
    #[arg(long, requires = "fetch")]
    pub game: Option<String>,
    /// 帖子文本（UTF-8 或 GBK，[quote] 算引用）；“-” 表示标准输入；有 --pid 时是保存的页面
    #[arg(required_unless_present = "fetch", conflicts_with = "fetch")]
    pub file: Option<PathBuf>,
}

impl CheckPostCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        let args = CheckArgs {
            config: self.config,
            kind: self.kind,
            code_names: self.code_names,
            edited: self.edited,
            poetry: self.poetry,
            pid: self.pid,
            compare: self.compare,
            json: self.json,
            file: self.file.unwrap_or_default(),
            fetch: self.fetch.then_some(Fetch {
                game: self.game,
                thread: self.thread,
                day: self.day,
            }),
        };
        run(&args, out, err)
    }
}

/// The rules have no check of this kind: say which they have.
fn no_such_kind(
    game: &crate::domain::config::GameConfig,
    kind: &str,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let kinds: Vec<&str> = game.rules.checks.keys().map(String::as_str).collect();
    writeln!(
        err,
        "错误：本局规则没有“{kind}”这类帖子的要求；可用：{}",
        if kinds.is_empty() {
            "（无）".to_string()
        } else {
            kinds.join("、")
        }
    )?;
    Ok(2)
}

/// A post found on the forum, and its thread's earlier posts (label, text).
type Found = (bansha_parsers::Post, Vec<(String, String)>);

/// Find post `pid` on the forum: in `f.thread`, else in the threads the config names for the
/// day (or every day), required-post threads of `kind` first; each read page by page until the
/// pid shows. Returns the post and the thread's earlier posts (label, text), or `None` after
/// saying why on `err`.
fn find_post(
    online: &crate::cli::online::Online,
    game: &crate::domain::config::GameConfig,
    f: &Fetch,
    kind: &str,
    pid: u64,
    err: &mut dyn Write,
) -> anyhow::Result<Option<Found>> {
    let mut tids: Vec<u64> = Vec::new();
    match f.thread {
        Some(t) => tids.push(t),
        None => {
            let days: Vec<_> = game
                .days
                .iter()
                .filter(|d| f.day.is_none_or(|n| d.day == n))
                .collect();
            if days.is_empty() {
                writeln!(err, "错误：--day：配置中没有第 {} 天", f.day.unwrap_or(0))?;
                return Ok(None);
            }
            for d in &days {
                tids.extend(
                    d.checked_threads
                        .iter()
                        .filter(|c| c.kind == kind)
                        .map(|c| c.tid),
                );
            }
            for d in &days {
                tids.extend(d.checked_threads.iter().map(|c| c.tid));
                tids.extend(&d.discussion_threads);
                tids.extend(d.vote_thread);
            }
            let mut seen = std::collections::BTreeSet::new();
            tids.retain(|t| seen.insert(*t));
        }
    }
    if tids.is_empty() {
        writeln!(
            err,
            "错误：配置里没有可找的帖子：请用 --thread 给出帖子所在主题的 tid"
        )?;
        return Ok(None);
    }
    for &tid in &tids {
        let read = match online.thread_until(tid, |p| p.posts.iter().any(|x| x.pid == pid)) {
            Ok(r) => r,
            Err(e) => {
                writeln!(err, "错误：读取主题 tid {tid} 失败：{e}")?;
                return Ok(None);
            }
        };
        let Some(post) = read.posts.iter().find(|p| p.pid == pid).cloned() else {
            continue;
        };
        writeln!(
            err,
            "已从论坛读取主题 tid {tid}：{} 页，找到 pid {pid}",
            read.pages
        )?;
        let earlier = read
            .posts
            .iter()
            .filter(|p| p.pid != pid && p.posted_at.zip(post.posted_at).is_some_and(|(a, b)| a < b))
            .map(|p| {
                (
                    format!("{} {}（pid {}）", p.floor, p.author, p.pid),
                    p.text.clone(),
                )
            })
            .collect();
        return Ok(Some((post, earlier)));
    }
    writeln!(
        err,
        "错误：在主题 {} 里没有找到 pid {pid} 的帖子（已删除，或在别的主题：用 --thread 指定）",
        tids.iter()
            .map(|t| format!("tid {t}"))
            .collect::<Vec<_>>()
            .join("、")
    )?;
    Ok(None)
}
