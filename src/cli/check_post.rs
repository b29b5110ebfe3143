//! `bansha check-post --config GAME.toml --kind KIND [--code-name X]... [--edited]
//! [--compare FILE]... FILE|-`: a report or kill post against the game's rules.

use crate::domain::rules::checks::check_post;
use bansha_parsers::wordcount::split_bbcode_quotes;
use std::io::Write;
use std::path::PathBuf;

pub struct CheckArgs {
    pub config: PathBuf,
    pub kind: String,
    pub code_names: Vec<String>,
    pub edited: bool,
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
    let text = match crate::cli::wordcount::read_text(&args.file, err)? {
        Ok(t) => t,
        Err(m) => {
            writeln!(err, "错误：{m}")?;
            return Ok(1);
        }
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
    let (own, quotes) = split_bbcode_quotes(&text);
    let q: Vec<&str> = quotes.iter().map(String::as_str).collect();
    let v = check_post(rule, &own, &q, &args.code_names, args.edited, &earlier);
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &v)?;
        writeln!(out)?;
        return Ok(0);
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
