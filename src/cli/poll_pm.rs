//! `bansha poll PATH...` and `bansha pm PATH...`: saved poll pages (the thread's poll panel or
//! API answer, and its voter lists) and private-message pages, printed as JSON.

use bansha_parsers::pm::{parse_pm, PrivateMessage};
use bansha_parsers::poll::{attach_voters, parse_poll, parse_voters, Poll, VoterList};
use bansha_parsers::{PageError, ParseOptions};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

/// What reading saved pages ran into: pages that could not be read (the command fails) and
/// notes for the judge (warnings and hints), each a full Chinese line.
#[derive(Debug, Default)]
pub struct Problems {
    pub errors: Vec<String>,
    pub notes: Vec<String>,
}

impl Problems {
    fn print(&self, err: &mut dyn Write) -> std::io::Result<()> {
        for l in self.errors.iter().chain(&self.notes) {
            writeln!(err, "{l}")?;
        }
        Ok(())
    }
}

fn page_error(path: &std::path::Path, what: &str, e: &PageError) -> String {
    format!(
        "错误：{} 不是可读取的{what}：{}（{}：{}）",
        path.display(),
        e.kind.zh(),
        e.kind.code(),
        e.detail
    )
}

/// Whether a page is a poll's voter list rather than the poll itself.
pub fn is_voter_list(bytes: &[u8]) -> bool {
    let probe = String::from_utf8_lossy(&bytes[..bytes.len().min(200_000)]);
    probe.contains("voterlist") && !probe.contains("class=\"pcht\"")
}

/// Read saved poll pages: the poll (its last page read) with the voters of every voter-list page
/// attached. Pages that cannot be read and lists that fit no option are reported in `problems`.
pub fn read_poll(paths: &[PathBuf], opts: &ParseOptions, problems: &mut Problems) -> Option<Poll> {
    let mut poll: Option<Poll> = None;
    let mut lists: Vec<VoterList> = Vec::new();
    for path in paths {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                problems
                    .errors
                    .push(format!("错误：无法打开文件 {}：{e}", path.display()));
                continue;
            }
        };
        if is_voter_list(&bytes) {
            match parse_voters(&bytes, None) {
                Ok(l) => lists.push(l),
                Err(e) => problems.errors.push(page_error(path, "投票参与人页面", &e)),
            }
            continue;
        }
        match parse_poll(&bytes, None, opts) {
            Ok(p) => poll = Some(p),
            // A later page of the poll thread: replies only (the tally reads them).
            Err(e)
                if e.kind == bansha_parsers::PageErrorKind::NotAThreadPage
                    && bansha_parsers::parse_thread_page(&bytes, None, opts).is_ok() => {}
            Err(e) => problems.errors.push(page_error(path, "投票机页面", &e)),
        }
    }
    let mut poll = poll?;
    for l in attach_voters(&mut poll, &lists) {
        problems.notes.push(format!(
            "警告：投票参与人页面（选项 {:?}）对不上投票机的任何选项",
            l.option_id
        ));
    }
    for o in &poll.options {
        match &o.voters {
            Some(v) if v.len() != o.votes as usize => problems.notes.push(format!(
                "警告：选项“{}”显示 {} 票，参与人名单有 {} 人（名单可能分页，或两页读取之间有人投票）",
                o.text,
                o.votes,
                v.len()
            )),
            None if o.votes > 0 => problems.notes.push(format!(
                "警告：选项“{}”有 {} 票，但没有它的参与人页面（viewvote&polloptionid={}）",
                o.text,
                o.votes,
                o.id.map(|i| i.to_string()).unwrap_or_else(|| "?".into())
            )),
            _ => {}
        }
    }
    Some(poll)
}

/// Run `bansha poll`: one JSON object, the poll with each option's voters where a voter list
/// was given. Exit 1 when a page could not be read.
pub fn poll(
    paths: &[PathBuf],
    opts: &ParseOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let mut problems = Problems::default();
    let poll = read_poll(paths, opts, &mut problems);
    let failed = !problems.errors.is_empty();
    problems.print(err)?;
    let Some(poll) = poll else {
        writeln!(
            err,
            "错误：没有读到投票机（需要投票帖页面或手机接口的 viewthread）"
        )?;
        return Ok(1);
    };
    serde_json::to_writer_pretty(&mut *out, &poll)?;
    writeln!(out)?;
    Ok(if failed { 1 } else { 0 })
}

/// Read saved private-message pages: each message once, with the most exact time any page gave.
pub fn read_pms(
    paths: &[PathBuf],
    opts: &ParseOptions,
    problems: &mut Problems,
) -> Vec<PrivateMessage> {
    let mut messages: BTreeMap<u64, PrivateMessage> = BTreeMap::new();
    for path in paths {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                problems
                    .errors
                    .push(format!("错误：无法打开文件 {}：{e}", path.display()));
                continue;
            }
        };
        match parse_pm(&bytes, None, opts) {
            Ok(page) => {
                for w in &page.warnings {
                    problems.notes.push(format!(
                        "警告：{}：短信 {}：{}（{}）",
                        path.display(),
                        w.pid.map(|p| p.to_string()).unwrap_or_default(),
                        w.kind.zh(),
                        w.detail
                    ));
                }
                if !page.conversations.is_empty() {
                    problems.notes.push(format!(
                        "提示：{} 是收件箱列表（{} 个对话），内容要从每个对话的页面读取",
                        path.display(),
                        page.conversations.len()
                    ));
                }
                // The same message from several sources: keep the most exact time.
                for m in page.messages {
                    let finer = messages.get(&m.pmid).is_none_or(|old| {
                        old.sent_at.is_none()
                            || (m.sent_at.is_some() && m.precision < old.precision)
                    });
                    if finer {
                        messages.insert(m.pmid, m);
                    }
                }
            }
            Err(e) => problems.errors.push(page_error(path, "短信页面", &e)),
        }
    }
    messages.into_values().collect()
}

/// Run `bansha pm`: one JSON object per private message (each once, in pmid order).
pub fn pm(
    paths: &[PathBuf],
    opts: &ParseOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let mut problems = Problems::default();
    let messages = read_pms(paths, opts, &mut problems);
    problems.print(err)?;
    for m in &messages {
        serde_json::to_writer(&mut *out, m)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(if problems.errors.is_empty() { 0 } else { 1 })
}

/// The arguments of `bansha poll` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct PollCommand {
    /// 保存的页面文件
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// 论坛时区偏移
    #[arg(long, default_value = "+08:00")]
    pub utc_offset: String,
}

impl PollCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        let utc_offset = crate::domain::time::parse_utc_offset(&self.utc_offset)?;
        poll(
            &self.paths,
            &bansha_parsers::ParseOptions { utc_offset },
            out,
            err,
        )
    }
}

/// The arguments of `bansha pm` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct PmCommand {
    /// 保存的页面文件
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// 论坛时区偏移
    #[arg(long, default_value = "+08:00")]
    pub utc_offset: String,
}

impl PmCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        let utc_offset = crate::domain::time::parse_utc_offset(&self.utc_offset)?;
        pm(
            &self.paths,
            &bansha_parsers::ParseOptions { utc_offset },
            out,
            err,
        )
    }
}
