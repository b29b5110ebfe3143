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
}

pub fn run(args: &CheckArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
    let game = match crate::io::files::load_game(&args.config) {
        Ok(g) => g,
        Err(e) => {
            writeln!(err, "配置错误：{e}")?;
            return Ok(2);
        }
    };
    let game = crate::io::state_file::with_state(game)?;
    let Some(rule) = game.rules.checks.get(&args.kind) else {
        let kinds: Vec<&String> = game.rules.checks.keys().collect();
        writeln!(
            err,
            "错误：本局规则没有“{}”这类帖子的要求；可用：{}",
            args.kind,
            if kinds.is_empty() {
                "（无）".to_string()
            } else {
                kinds
                    .iter()
                    .map(|k| k.as_str())
                    .collect::<Vec<_>>()
                    .join("、")
            }
        )?;
        return Ok(2);
    };
    // A saved page and a pid: that post's text, quotes and edit notice as the forum shows them.
    let from_page = match args.pid {
        Some(pid) => {
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
        None => None,
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
    let mut earlier = Vec::new();
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
    writeln!(
        out,
        "引用 {} 字（{:.1}%），重复句子 {} 字（{:.1}%）",
        f.quoted_words,
        f.quoted_share * 100.0,
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
    /// 帖子文本（UTF-8 或 GBK，[quote] 算引用）；“-” 表示标准输入；有 --pid 时是保存的页面
    pub file: PathBuf,
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
            file: self.file,
        };
        run(&args, out, err)
    }
}
