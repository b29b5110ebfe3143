//! `bansha posts PATH...`: saved pages to one JSON object per post.

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
    // A page's posts are written as one block: serde_json's many small writes go to a Vec,
    // not through the `dyn Write` one by one.
    let mut block: Vec<u8> = Vec::with_capacity(64 * 1024);
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
                block.clear();
                for post in &page.posts {
                    serde_json::to_writer(&mut block, post)?;
                    block.push(b'\n');
                }
                out.write_all(&block)?;
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

/// The arguments of `bansha posts` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct PostsCommand {
    /// 保存的页面文件
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// 强制使用的字符编码（如 GBK）；默认按页面声明
    #[arg(long)]
    pub charset: Option<String>,
    /// 论坛时区偏移（Discuz 后台“默认时差”）
    #[arg(long, default_value = "+08:00")]
    pub utc_offset: String,
}

impl PostsCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        let utc_offset = crate::domain::time::parse_utc_offset(&self.utc_offset)?;
        let args = PostsArgs {
            paths: self.paths,
            charset: self.charset,
            utc_offset,
        };
        // One line per post, thousands of them: written in blocks, not a write per line.
        let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
        run(&args, &mut out, err)
    }
}
