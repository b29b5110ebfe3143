//! The client of the running daemon: `bansha status`, `bansha tally --live`, `bansha ledger`
//! ask its HTTP answers (the store is the daemon's: sled locks it). With no daemon running,
//! `bansha ledger` reads and writes the record itself, for the daemon to read when it starts.

use std::io::Write;
use std::path::PathBuf;

fn ask_daemon(
    config: &std::path::Path,
    path: &str,
    err: &mut dyn Write,
) -> anyhow::Result<Result<String, i32>> {
    ask_daemon_with(config, path, None, err)
}

/// Ask the running daemon at `path` (a POST of `body` when given): its answer, or the exit
/// code after the error is written.
pub(crate) fn ask_daemon_with(
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
    match ask(&settings, path, body)? {
        Asked::Answer(body) => Ok(Ok(body)),
        Asked::Refused(_, body) => {
            writeln!(err, "错误：{}", body.trim())?;
            Ok(Err(1))
        }
        Asked::NotRunning => {
            writeln!(
                err,
                "错误：守护进程没有在 {} 运行（先 bansha run，或检查 [status] listen）",
                settings.status.listen
            )?;
            Ok(Err(1))
        }
    }
}

/// What the daemon answered.
enum Asked {
    Answer(String),
    /// An answer saying no: its status and text.
    Refused(u16, String),
    /// No daemon answered at the configured address.
    NotRunning,
}

/// Ask the daemon of `settings` at `path` (a POST of `body` when given).
fn ask(
    settings: &crate::domain::settings::Settings,
    path: &str,
    body: Option<serde_json::Value>,
) -> anyhow::Result<Asked> {
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
                .header("x-bansha", "cli")
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
    Ok(match answer {
        Ok((s, body)) if s.is_success() => Asked::Answer(body),
        Ok((s, body)) => Asked::Refused(s.as_u16(), body),
        Err(_) => Asked::NotRunning,
    })
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
    writeln!(out, "状态：{}", if s.healthy { "正常" } else { "有问题" })?;
    for p in &s.problems {
        writeln!(out, "  {p}")?;
    }
    writeln!(
        out,
        "监视：{}",
        match (s.watching.is_empty(), s.upcoming.is_empty()) {
            (true, true) => "无".to_string(),
            (true, false) => format!("暂无（{}）", s.upcoming.join("；")),
            (false, _) => s.watching.join("；"),
        }
    )?;
    if !s.watching.is_empty() && !s.upcoming.is_empty() {
        writeln!(out, "之后：{}", s.upcoming.join("；"))?;
    }
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
    if !s.refused_mails.is_empty() {
        writeln!(out, "被邮件服务器拒收的邮件：")?;
        for r in &s.refused_mails {
            writeln!(out, "  {r}")?;
        }
    }
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
    let settings = match crate::io::files::load_settings(config) {
        Ok(s) => s,
        Err(e) => {
            writeln!(err, "配置错误：{e}")?;
            return Ok(2);
        }
    };
    let (status, text) = match ask(&settings, "/ledger", Some(body.clone()))? {
        Asked::Answer(text) => (200, text),
        Asked::Refused(status, text) => (status, text),
        // No daemon running: the record it reads is written here (sled lets one process hold
        // it; a daemon that holds it but does not answer is said to).
        Asked::NotRunning => {
            let store = match crate::io::store::Store::open(&settings.state_dir) {
                Ok(s) => s,
                Err(e) => {
                    writeln!(
                        err,
                        "错误：守护进程没有在 {} 应答，记录目录 {} 也打不开（是否有别的 bansha 正在使用它？）：{e}",
                        settings.status.listen,
                        settings.state_dir.display()
                    )?;
                    return Ok(1);
                }
            };
            let q: crate::daemon::http::LedgerRequest = serde_json::from_value(body)?;
            let offset = settings.games.first().map_or(
                chrono::FixedOffset::east_opt(8 * 3600).expect("valid"),
                |g| g.utc_offset,
            );
            let now = crate::io::clock::Clock::now(&crate::io::clock::SystemClock(offset));
            let (status, text) =
                crate::daemon::http::ledger_request(&store, &settings.games, &q, now);
            (status.as_u16(), text)
        }
    };
    match status {
        200..=299 => {
            out.write_all(text.as_bytes())?;
            Ok(0)
        }
        // What the judge asked for cannot be (a name, a kind, a missing day): as a usage error.
        400 => {
            writeln!(err, "错误：{}", text.trim())?;
            Ok(2)
        }
        _ => {
            writeln!(err, "错误：{}", text.trim())?;
            Ok(1)
        }
    }
}

/// The arguments of `bansha status` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct StatusCommand {
    /// 守护进程配置文件（TOML）
    #[arg(long)]
    pub config: PathBuf,
}

impl StatusCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        status(&self.config, out, err)
    }
}

/// The arguments of `bansha ledger` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct LedgerCommand {
    /// 守护进程配置文件（TOML）
    #[arg(long)]
    pub config: PathBuf,
    /// 游戏名（配置中的 name），默认第一个
    #[arg(long)]
    pub game: Option<String>,
    /// 给这位玩家添加一条记录
    #[arg(long)]
    pub add: Option<String>,
    /// 记录种类：warning、blue_card、yellow_card、red_card、lurk
    #[arg(long)]
    pub kind: Option<String>,
    /// 原因
    #[arg(long)]
    pub reason: Option<String>,
    /// 第几天
    #[arg(long)]
    pub day: Option<u32>,
    /// 撤销这条记录（编号见列表中的方括号）
    #[arg(long)]
    pub remove: Option<String>,
}

impl LedgerCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        ledger(
            &self.config,
            self.game.as_deref(),
            self.add.as_deref(),
            self.kind.as_deref(),
            self.reason.as_deref(),
            self.day,
            self.remove.as_deref(),
            out,
            err,
        )
    }
}
