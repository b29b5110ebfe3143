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
    let is_daemon = std::fs::read_to_string(path)
        .ok()
        .and_then(|t| t.parse::<toml::Table>().ok())
        .is_some_and(|t| t.contains_key("forum"));
    if is_daemon {
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

/// The arguments of `bansha check-config` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct CheckConfigCommand {
    /// 配置文件（TOML）
    pub file: PathBuf,
}

impl CheckConfigCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        check_config(&self.file, out, err)
    }
}
