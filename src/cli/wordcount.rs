//! `bansha wordcount [--json] [--inline-quotes] FILE|-`: Word-compatible counts of a text (a
//! report or kill post as the judge pastes it; `[quote]` blocks are the quoted part, and with
//! `--inline-quotes` the inline quotations “…” 「…」 『…』 too, as bansha42's `check-post` counts).

use bansha_parsers::wordcount::{post_figures, split_bbcode_quotes, Figures};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

pub fn run(
    path: &Path,
    (json, inline_quotes): (bool, bool),
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let text = match read_text(path, err)? {
        Ok(t) => t,
        Err(m) => {
            writeln!(err, "错误：{m}")?;
            return Ok(1);
        }
    };
    let (own, quotes) = split_bbcode_quotes(&text);
    let quote_refs: Vec<&str> = quotes.iter().map(String::as_str).collect();
    let f = post_figures(&own, &quote_refs, inline_quotes);
    if json {
        serde_json::to_writer_pretty(&mut *out, &f)?;
        writeln!(out)?;
    } else {
        writeln!(out, "字数：{}", f.total.words)?;
        writeln!(out, "字符数（不计空格）：{}", f.total.chars_no_spaces)?;
        writeln!(out, "字符数（计空格）：{}", f.total.chars_with_spaces)?;
        writeln!(
            out,
            "引用：{} 字，占 {:.1}%（{}）",
            f.quoted_words,
            f.quoted_share * 100.0,
            quoted_parts(&f)
        )?;
        if !f.inline_as_quotes && f.inline_quoted_words > 0 {
            writeln!(
                out,
                "行内引号（“…” 「…」 『…』）内 {} 字，未算作引用（bansha42 等规则把它也算作引用：加 --inline-quotes，或用 check-post 按本局规则计）",
                f.inline_quoted_words
            )?;
        }
        writeln!(out, "去掉引用后：{} 字", f.own.words)?;
        writeln!(
            out,
            "重复句子：{} 字，占 {:.1}%",
            f.repeated_words,
            f.repeated_share * 100.0
        )?;
    }
    Ok(0)
}

/// What the quoted words are made of: the `[quote]` blocks, and the inline quotations where
/// they count ("[quote] 块 24 字，行内引号内 5 字"). `check-post` says the same.
pub fn quoted_parts(f: &Figures) -> String {
    if f.inline_as_quotes {
        format!(
            "[quote] 块 {} 字，行内引号内 {} 字",
            f.quoted_words - f.inline_quoted_words,
            f.inline_quoted_words
        )
    } else {
        "[quote] 块".to_string()
    }
}

/// Read a text file (or standard input for "-"): UTF-8, else GBK (decoded as GB18030, with a
/// note on `err`). The error is the Chinese message for the judge.
pub fn read_text(path: &Path, err: &mut dyn Write) -> std::io::Result<Result<String, String>> {
    let mut bytes = Vec::new();
    let read = if path == Path::new("-") {
        std::io::stdin().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::read(path).map(|b| bytes = b)
    };
    if let Err(e) = read {
        return Ok(Err(format!("无法读取 {}：{e}", path.display())));
    }
    Ok(match String::from_utf8(bytes) {
        Ok(t) => Ok(t),
        Err(e) => {
            let (t, _, bad) = encoding_rs::GB18030.decode(e.as_bytes());
            if bad {
                Err(format!("{} 既不是 UTF-8 也不是 GBK 文本", path.display()))
            } else {
                writeln!(err, "提示：{} 按 GBK 读取", path.display())?;
                Ok(t.into_owned())
            }
        }
    })
}

/// The arguments of `bansha wordcount` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct WordcountCommand {
    /// 文本文件（UTF-8 或 GBK）；“-” 表示标准输入。[quote]…[/quote] 算引用
    pub file: PathBuf,
    /// 输出 JSON
    #[arg(long)]
    pub json: bool,
    /// 行内引号（“…” 「…」 『…』）内的文字也算引用（bansha42 的算法，与它的 check-post 一致）
    #[arg(long)]
    pub inline_quotes: bool,
}

impl WordcountCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        run(&self.file, (self.json, self.inline_quotes), out, err)
    }
}
