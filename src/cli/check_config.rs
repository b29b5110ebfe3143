//! `bansha check-config`: a game config, or a daemon config and every game it names.

use std::io::Write;
use std::path::PathBuf;

/// Run `bansha check-config`: a game config, or a daemon config (one with `[forum]`) and every
/// game it names. Returns the exit code.
pub fn check_config(
    path: &std::path::Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    if is_daemon(path) {
        return match crate::io::files::load_settings(path) {
            Ok(s) => {
                for g in &s.games {
                    let now =
                        crate::io::clock::Clock::now(&crate::io::clock::SystemClock(g.utc_offset));
                    for w in g.warnings().into_iter().chain(g.time_warnings(now)) {
                        writeln!(err, "警告：{}：{w}", g.name)?;
                    }
                }
                let games: Vec<String> = s.games.iter().map(|g| g.name.clone()).collect();
                writeln!(
                    out,
                    "守护进程配置有效：论坛 {}，{}，邮件发给 {}，记录目录 {}，监视游戏：{}",
                    s.forum.base_url,
                    match &s.login {
                        Some(l) => format!("以 {} 登录", l.username),
                        None => "以游客身份读取".into(),
                    },
                    s.judge.to.join("、"),
                    s.state_dir.display(),
                    games.join("、")
                )?;
                Ok(0)
            }
            Err(e) => {
                writeln!(err, "配置错误：{e}")?;
                Ok(1)
            }
        };
    }
    match crate::io::files::load_game(path) {
        Ok(g) => {
            let now = crate::io::clock::Clock::now(&crate::io::clock::SystemClock(g.utc_offset));
            for w in g.warnings().into_iter().chain(g.time_warnings(now)) {
                writeln!(err, "警告：{w}")?;
            }
            let days: Vec<String> = g.days.iter().map(|d| format!("第{}天", d.day)).collect();
            writeln!(
                out,
                "配置有效：{}（规则 {}），玩家 {} 人，法官 {} 人，已配置 {}",
                g.name,
                g.rules.name,
                g.roster.players.len(),
                g.roster.judges.len(),
                if days.is_empty() {
                    "0 天".to_string()
                } else {
                    days.join("、")
                }
            )?;
            Ok(0)
        }
        Err(e) => {
            writeln!(err, "配置错误：{e}")?;
            Ok(1)
        }
    }
}

/// A daemon config is one with `[forum]`.
fn is_daemon(path: &std::path::Path) -> bool {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| t.parse::<toml::Table>().ok())
        .is_some_and(|t| t.contains_key("forum"))
}

/// `bansha check-config --online`: what only the forum and the relay can say — the login, page
/// 1 of each game's vote threads, an SMTP session (nothing is posted or mailed). Returns the
/// exit code: 0 when everything answered.
pub fn online(
    path: &std::path::Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let settings = match crate::io::files::load_settings(path) {
        Ok(s) => s,
        Err(e) => {
            writeln!(err, "配置错误：{e}")?;
            return Ok(1);
        }
    };
    let offset = settings.games[0].utc_offset;
    let forum = match crate::io::forum::Forum::new(&settings.forum, settings.login.clone(), offset)
    {
        Ok(f) => f,
        Err(e) => {
            writeln!(err, "配置错误：forum：{e}")?;
            return Ok(1);
        }
    };
    let mailer = match crate::io::smtp::Mailer::new(&settings.smtp, &settings.judge.to) {
        Ok(m) => m,
        Err(e) => {
            writeln!(err, "配置错误：{e}")?;
            return Ok(1);
        }
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut failed = 0;
    rt.block_on(async {
        if let Some(login) = &settings.login {
            match forum.log_in().await {
                Ok(()) => writeln!(out, "✓ 论坛登录成功：{}", login.username)?,
                Err(e) => {
                    failed += 1;
                    writeln!(
                        err,
                        "✗ 论坛登录失败（forum.login，用户 {}）：{e}",
                        login.username
                    )?;
                }
            }
        }
        let mut tids: Vec<(String, u64)> = Vec::new();
        for g in &settings.games {
            for d in &g.days {
                if let Some(t) = d.vote_thread.filter(|t| !tids.iter().any(|(_, x)| x == t)) {
                    tids.push((format!("{} 第{}天", g.name, d.day), t));
                }
            }
        }
        for (what, tid) in tids {
            match forum.thread_page(tid, 1).await {
                Ok(p) => writeln!(
                    out,
                    "✓ {what} 的投票帖 tid {tid} 可以读取：第 1 页 {} 帖",
                    p.posts.len()
                )?,
                Err(e) => {
                    failed += 1;
                    writeln!(err, "✗ {what} 的投票帖 tid {tid} 读不出来：{e}")?;
                }
            }
        }
        match mailer.check().await {
            Ok(how) => writeln!(out, "✓ 邮件服务器可用（{how}；没有发信）")?,
            Err(e) => {
                failed += 1;
                writeln!(err, "✗ 邮件服务器不可用（smtp）：{e}")?;
            }
        }
        anyhow::Ok(())
    })?;
    Ok(if failed == 0 { 0 } else { 1 })
}

/// The arguments of `bansha check-config` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct CheckConfigCommand {
    /// 配置文件（TOML）
    pub file: PathBuf,
    /// 守护进程配置：再实际试一次论坛登录、读各局投票帖第 1 页、连上邮件服务器（不发帖、不发信）
    #[arg(long)]
    pub online: bool,
}

impl CheckConfigCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        let code = check_config(&self.file, out, err)?;
        if code != 0 || !self.online {
            return Ok(code);
        }
        if !is_daemon(&self.file) {
            writeln!(
                err,
                "错误：--online 检查的是守护进程配置（含 [forum] 的那个文件），{} 是游戏配置",
                self.file.display()
            )?;
            return Ok(2);
        }
        online(&self.file, out, err)
    }
}
