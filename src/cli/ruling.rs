//! `bansha ruling`: the judge's rulings on single ballots in the running daemon — count a post
//! as a vote for a player, void one, list them, undo one. The daemon keeps them in its record and
//! applies them at its next tally (`domain::rules::rulings`).

use std::io::Write;
use std::path::PathBuf;

/// The arguments of `bansha ruling` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct RulingCommand {
    /// 守护进程配置文件（TOML）
    #[arg(long)]
    pub config: PathBuf,
    /// 游戏名（配置中的 name），默认第一个
    #[arg(long)]
    pub game: Option<String>,
    /// 第几天
    #[arg(long)]
    pub day: Option<u32>,
    /// 裁定哪一帖（pid；短信投票为短信编号）
    #[arg(long)]
    pub pid: Option<u64>,
    /// 把这一帖按投给这位玩家计（格式有误的票照样算，或改判投给另一人）；也可写 弃权
    #[arg(long, conflicts_with = "void")]
    pub count_for: Option<String>,
    /// 把这一帖判为无效票
    #[arg(long)]
    pub void: bool,
    /// 裁定理由（公开统计里会显示）
    #[arg(long)]
    pub reason: Option<String>,
    /// 撤销这条裁定（编号见列表）
    #[arg(long)]
    pub remove: Option<String>,
}

impl RulingCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        let action = if self.remove.is_some() {
            "remove"
        } else if self.count_for.is_some() || self.void {
            "add"
        } else {
            "list"
        };
        if action == "add" && (self.day.is_none() || self.pid.is_none()) {
            writeln!(err, "错误：裁定需要 --day 和 --pid")?;
            return Ok(2);
        }
        if action == "add" && self.reason.as_deref().is_none_or(|r| r.trim().is_empty()) {
            writeln!(err, "错误：裁定需要 --reason（公开统计里会显示）")?;
            return Ok(2);
        }
        let body = serde_json::json!({
            "game": self.game, "action": action, "day": self.day, "pid": self.pid,
            "count_for": self.count_for, "void": self.void, "reason": self.reason,
            "id": self.remove,
        });
        match super::client::ask_daemon_with(&self.config, "/rulings", Some(body), err)? {
            Ok(text) => {
                out.write_all(text.as_bytes())?;
                Ok(0)
            }
            Err(code) => Ok(code),
        }
    }
}
