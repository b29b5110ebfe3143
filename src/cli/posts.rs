//! `bansha posts PATH...`: saved pages to one JSON object per post.

use anyhow::{bail, Context};
use bansha_parsers::{parse_thread_page, ParseOptions, Warning};
use chrono::FixedOffset;
use std::io::Write;
use std::path::PathBuf;

pub struct PostsArgs {
    pub paths: Vec<PathBuf>,
    /// Overrides the charset the page declares (e.g. "GBK").
    pub charset: Option<String>,
    pub utc_offset: FixedOffset,
}

/// Parse an offset such as "+08:00", "+8" or "-05:30".
///
/// ```
/// let east8 = bansha::cli::posts::parse_utc_offset("+8").unwrap();
/// assert_eq!(east8.local_minus_utc(), 8 * 3600);
/// assert!(bansha::cli::posts::parse_utc_offset("Beijing").is_err());
/// ```
pub fn parse_utc_offset(s: &str) -> anyhow::Result<FixedOffset> {
    let t = s.trim();
    let (sign, rest) = match t.chars().next() {
        Some('+') => (1, &t[1..]),
        Some('-') => (-1, &t[1..]),
        _ => bail!("时区偏移 {s:?} 格式不对，应写作 +08:00"),
    };
    let (h, m) = match rest.split_once(':') {
        Some((h, m)) => (h, m),
        None => (rest, "0"),
    };
    let h: i32 = h
        .parse()
        .with_context(|| format!("时区偏移 {s:?} 的小时不是数字"))?;
    let m: i32 = m
        .parse()
        .with_context(|| format!("时区偏移 {s:?} 的分钟不是数字"))?;
    FixedOffset::east_opt(sign * (h * 3600 + m * 60))
        .with_context(|| format!("时区偏移 {s:?} 超出范围"))
}

fn describe(w: &Warning) -> String {
    match w.pid {
        Some(pid) => format!("帖子 pid {pid}：{}（{}）", w.kind.zh(), w.detail),
        None => format!("{}（{}）", w.kind.zh(), w.detail),
    }
}

/// Run the command; returns the process exit code (0 all pages read, 1 some could not be).
pub fn run(args: &PostsArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
    let opts = ParseOptions {
        utc_offset: args.utc_offset,
    };
    let content_type = args
        .charset
        .as_ref()
        .map(|c| format!("text/html; charset={c}"));
    let mut failed = 0;
    for path in &args.paths {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                writeln!(err, "错误：无法打开文件 {}：{e}", path.display())?;
                failed += 1;
                continue;
            }
        };
        match parse_thread_page(&bytes, content_type.as_deref(), &opts) {
            Ok(page) => {
                for w in &page.warnings {
                    writeln!(err, "警告：{}：{}", path.display(), describe(w))?;
                }
                for post in &page.posts {
                    serde_json::to_writer(&mut *out, post)?;
                    out.write_all(b"\n")?;
                }
            }
            Err(e) => {
                writeln!(
                    err,
                    "错误：{} 不是可读取的帖子页面：{}（{}：{}）",
                    path.display(),
                    e.kind.zh(),
                    e.kind.code(),
                    e.detail
                )?;
                failed += 1;
            }
        }
    }
    out.flush()?;
    Ok(if failed == 0 { 0 } else { 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets() {
        assert_eq!(
            parse_utc_offset("+08:00").unwrap().local_minus_utc(),
            8 * 3600
        );
        assert_eq!(parse_utc_offset("+8").unwrap().local_minus_utc(), 8 * 3600);
        assert_eq!(
            parse_utc_offset("-05:30").unwrap().local_minus_utc(),
            -(5 * 3600 + 30 * 60)
        );
        assert!(parse_utc_offset("8").is_err());
        assert!(parse_utc_offset("+99").is_err());
    }
}
