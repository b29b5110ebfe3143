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
/// code after the error is written. The daemon answering on the config's address must be this
/// config's (its `/status` says which record it keeps): another config's daemon on the same
/// port is named, and not asked.
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
    match ask(&settings, path, body, err)? {
        Asked::Answer(text) => Ok(Ok(text)),
        Asked::Refused(_, text) => {
            writeln!(err, "错误：{}", text.trim())?;
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
        Asked::Failed(code) => Ok(Err(code)),
    }
}

/// What this config's daemon answered.
enum Asked {
    Answer(String),
    /// An answer saying no: its status and text.
    Refused(u16, String),
    /// No daemon answered at the configured address.
    NotRunning,
    /// Not asked, or no answer to use: the exit code, the error written.
    Failed(i32),
}

/// Ask the daemon of `settings` at `path` (a POST of `body` when given), once its `/status`
/// says it is this config's daemon.
fn ask(
    settings: &crate::domain::settings::Settings,
    path: &str,
    body: Option<serde_json::Value>,
    err: &mut dyn Write,
) -> anyhow::Result<Asked> {
    let listen = &settings.status.listen;
    let status = match request(settings, "/status", None)? {
        Ok(status) => status,
        Err(Failure::Refused(_, text)) => {
            writeln!(err, "错误：{}", text.trim())?;
            return Ok(Asked::Failed(1));
        }
        Err(Failure::Unreachable) => return Ok(Asked::NotRunning),
    };
    let parsed: Option<crate::daemon::http::Status> = serde_json::from_str(&status).ok();
    let Some(parsed) = parsed else {
        writeln!(
            err,
            "错误：在 {listen} 回答的不是 bansha 守护进程（检查 [status] listen）"
        )?;
        return Ok(Asked::Failed(1));
    };
    let mine = crate::daemon::http::Identity::of(settings);
    match check_identity(&mine, parsed.identity.as_ref(), listen) {
        Identity::Foreign(why) => {
            writeln!(err, "错误：{why}")?;
            return Ok(Asked::Failed(1));
        }
        Identity::Changed(note) => writeln!(err, "注意：{note}")?,
        Identity::Mine => {}
    }
    if path == "/status" && body.is_none() {
        return Ok(Asked::Answer(status));
    }
    Ok(match request(settings, path, body)? {
        Ok(text) => Asked::Answer(text),
        Err(Failure::Refused(code, text)) => Asked::Refused(code, text),
        Err(Failure::Unreachable) => {
            writeln!(err, "错误：守护进程在 {listen} 没有回答（可能刚刚停止）")?;
            Asked::Failed(1)
        }
    })
}

/// Why the daemon gave no answer.
enum Failure {
    /// It answered with an error: its status and text.
    Refused(u16, String),
    /// Nothing answered.
    Unreachable,
}

/// One request to the daemon at the config's address (a POST of `body` when given).
fn request(
    settings: &crate::domain::settings::Settings,
    path: &str,
    body: Option<serde_json::Value>,
) -> anyhow::Result<Result<String, Failure>> {
    let url = format!("http://{}{path}", settings.status.listen);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    crate::io::tls::ensure_provider();
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
        Ok((s, body)) if s.is_success() => Ok(body),
        Ok((s, body)) => Err(Failure::Refused(s.as_u16(), body)),
        Err(_) => Err(Failure::Unreachable),
    })
}

/// Whether the daemon that answered is this config's.
#[derive(Debug, PartialEq)]
enum Identity {
    Mine,
    /// It keeps this config's record, but runs other games than the config now names (the
    /// config was changed after it started): a note.
    Changed(String),
    /// Another config's daemon, or one that cannot say: why, for the judge.
    Foreign(String),
}

fn check_identity(
    mine: &crate::daemon::http::Identity,
    theirs: Option<&crate::daemon::http::Identity>,
    listen: &str,
) -> Identity {
    let names = |i: &crate::daemon::http::Identity| {
        let n: Vec<&str> = i.games.iter().map(|(name, _)| name.as_str()).collect();
        if n.is_empty() {
            "无".to_string()
        } else {
            n.join("、")
        }
    };
    let Some(theirs) = theirs else {
        return Identity::Foreign(format!(
            "在 {listen} 回答的守护进程没有说明它属于哪个配置（版本较旧）：无法确认它是这个配置的守护进程；请重启 bansha run"
        ));
    };
    if theirs.state_dir != mine.state_dir {
        return Identity::Foreign(format!(
            "在 {listen} 回答的不是这个配置的守护进程：它的记录在 {}，运行的游戏：{}；这个配置的记录在 {}，游戏：{}。\
             两个配置用了同一个 [status] listen？请给每个配置一个自己的地址",
            theirs.state_dir.display(),
            names(theirs),
            mine.state_dir.display(),
            names(mine)
        ));
    }
    let set = |i: &crate::daemon::http::Identity| -> std::collections::BTreeSet<String> {
        i.games.iter().map(|(n, _)| n.clone()).collect()
    };
    if set(theirs) != set(mine) {
        return Identity::Changed(format!(
            "守护进程运行的游戏（{}）与这个配置现在的游戏（{}）不同：配置改过之后要重启 bansha run 才生效",
            names(theirs),
            names(mine)
        ));
    }
    Identity::Mine
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
    if let Some(c) = &s.configs {
        config_lines(c, out)?;
    }
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
    if !s.qq_messages.is_empty() {
        writeln!(out, "待法官处理的 QQ 消息：")?;
        for m in &s.qq_messages {
            writeln!(out, "  {m}")?;
        }
    }
    Ok(0)
}

/// The config versions running and a refused one, as the judge reads them.
fn config_lines(c: &crate::daemon::reload::Reload, out: &mut dyn Write) -> anyhow::Result<()> {
    writeln!(
        out,
        "运行中的配置{}：",
        c.taken_at
            .map(|t| format!("（{} 重新载入）", t.format("%Y-%m-%d %H:%M:%S")))
            .unwrap_or_else(|| "（启动时载入）".to_string())
    )?;
    for f in &c.running {
        writeln!(out, "  {}  版本 {}", f.path, f.digest)?;
    }
    if let Some(e) = &c.error {
        writeln!(out, "改过的配置没有采用（仍按上面的版本运行）：{e}")?;
    }
    if !c.restart_needed.is_empty() {
        writeln!(
            out,
            "要重启服务才生效的改动：{}",
            c.restart_needed.join("、")
        )?;
    }
    Ok(())
}

/// `bansha reload`: the running daemon looks at its config files now and takes a changed one
/// (or says why not); what runs after is printed.
pub fn reload(
    config: &std::path::Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let body = match ask_daemon_with(config, "/reload", Some(serde_json::json!({})), err)? {
        Ok(b) => b,
        Err(2) => {
            writeln!(
                err,
                "守护进程没有采用这份配置，仍按原来的配置运行；改正后它会自动采用（每轮都查看配置文件），也可以再运行 bansha reload"
            )?;
            return Ok(2);
        }
        Err(code) => return Ok(code),
    };
    let s: crate::daemon::http::Status = serde_json::from_str(&body)?;
    let Some(c) = &s.configs else {
        writeln!(
            err,
            "错误：这个守护进程的版本不支持重新载入配置（请重启服务）"
        )?;
        return Ok(1);
    };
    config_lines(c, out)?;
    Ok(if c.error.is_some() { 1 } else { 0 })
}

/// The arguments of `bansha reload` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct ReloadCommand {
    /// 守护进程配置文件（TOML）
    #[arg(long)]
    pub config: PathBuf,
}

impl ReloadCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        reload(&self.config, out, err)
    }
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
    let (status, text) = match ask(&settings, "/ledger", Some(body.clone()), err)? {
        Asked::Answer(text) => (200, text),
        Asked::Refused(status, text) => (status, text),
        Asked::Failed(code) => return Ok(code),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::daemon::http::Identity as Id;

    fn id(dir: &str, games: &[&str]) -> Id {
        Id {
            state_dir: dir.into(),
            games: games
                .iter()
                .map(|g| (g.to_string(), g.to_string()))
                .collect(),
        }
    }

    #[test]
    fn the_answering_daemon_is_this_configs_only_with_its_record() {
        let mine = id("/srv/a/state", &["版杀一室"]);
        assert_eq!(check_identity(&mine, Some(&mine), "x"), Identity::Mine);
        let other = id("/srv/b/state", &["教会 测试局"]);
        let Identity::Foreign(why) = check_identity(&mine, Some(&other), "127.0.0.1:8080") else {
            panic!("another record is another daemon")
        };
        assert!(
            why.contains("/srv/b/state") && why.contains("教会 测试局"),
            "{why}"
        );
        assert!(matches!(
            check_identity(&mine, None, "x"),
            Identity::Foreign(_)
        ));
        // The same record, the config changed since the daemon started: a note.
        let changed = id("/srv/a/state", &["版杀一室", "新的一局"]);
        let Identity::Changed(note) = check_identity(&changed, Some(&mine), "x") else {
            panic!("the same record")
        };
        assert!(note.contains("重启"), "{note}");
    }
}
