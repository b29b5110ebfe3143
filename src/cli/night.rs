//! `bansha night --config GAME.toml --night N [--json] [--state STATE] ACTIONS.toml`: resolve a
//! night offline with the ruleset's resolver (`domain::night::resolve_game`): the roles from
//! `[roster.roles]`, who is alive and what is spent from the game's state file, the actions
//! from the file. Prints the resolution (Chinese text, or JSON with the resolution's keys). It
//! writes nothing: the judge records the night with `bansha change`.

use crate::domain::night::{actions, kill_post_placeholder, resolve_game};
use crate::io::state_file::{load_state, state_path};
use std::io::Write;
use std::path::PathBuf;

/// The arguments of `bansha night` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct NightCommand {
    /// 本局配置文件（TOML）；规则的 [night] 决定用哪种夜晚结算
    #[arg(long)]
    pub config: PathBuf,
    /// 第几夜（第 N 天之后的夜晚）
    #[arg(long)]
    pub night: u32,
    /// 局面文件，默认是配置文件旁的 <名字>.state.json（谁活着、哪些特权已用过）
    #[arg(long)]
    pub state: Option<PathBuf>,
    /// 行动截止时间（论坛时间，如 2026-11-29 08:50），之后寄出的算迟到；默认第 N 天截止后 night.deadline_after_close_minutes 分钟
    #[arg(long)]
    pub deadline: Option<String>,
    /// 杀人帖：杀手=文件，把天亮公告里该杀手的占位行换成文件内容（可写多次）
    #[arg(long = "kill-post", value_name = "杀手=文件")]
    pub kill_post: Vec<String>,
    /// 输出 JSON（键与结算结果相同）
    #[arg(long)]
    pub json: bool,
    /// 夜间行动文件（TOML：[[action]] 含 by、power、target，可选 platform、sent_at）
    pub actions: PathBuf,
}

impl NightCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        let game = match crate::io::files::load_game(&self.config) {
            Ok(g) => g,
            Err(e) => {
                writeln!(err, "配置错误：{e}")?;
                return Ok(2);
            }
        };
        let state = load_state(&state_path(&self.config, self.state.as_deref()))?;
        let text = std::fs::read_to_string(&self.actions)
            .map_err(|e| anyhow::anyhow!("无法读取行动文件 {}：{e}", self.actions.display()))?;
        let file = self
            .actions
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.actions.display().to_string());
        let acts = match actions::parse(&file, &text, game.utc_offset) {
            Ok(a) => a,
            Err(e) => {
                writeln!(err, "行动文件错误：{e}")?;
                return Ok(2);
            }
        };
        let deadline = match &self.deadline {
            Some(t) => match crate::domain::time::parse_local_time(t, game.utc_offset) {
                Ok(t) => Some(t),
                Err(e) => {
                    writeln!(err, "错误：--deadline {e}")?;
                    return Ok(2);
                }
            },
            None => game.rules.night.deadline_after_close_minutes.and_then(|m| {
                let d = game.day(self.night)?;
                Some(d.last_close() + chrono::Duration::minutes(i64::from(m)))
            }),
        };
        if self.deadline.is_none()
            && game.rules.night.deadline_after_close_minutes.is_some()
            && game.day(self.night).is_none()
        {
            writeln!(
                err,
                "提醒：配置中没有第 {} 天，算不出第 {} 夜的截止时间：所有行动都按时结算（可用 --deadline）",
                self.night, self.night
            )?;
        }
        let mut res = match resolve_game(&game, &state, self.night, &acts, deadline) {
            Ok(r) => r,
            Err(e) => {
                writeln!(err, "错误：{e}")?;
                return Ok(2);
            }
        };
        for kp in &self.kill_post {
            let Some((killer, path)) = kp.split_once('=') else {
                writeln!(
                    err,
                    "错误：--kill-post 要写成 杀手=文件（如 李逵=kill.txt），不是“{kp}”"
                )?;
                return Ok(2);
            };
            let body = std::fs::read_to_string(path)
                .map_err(|e| anyhow::anyhow!("无法读取杀人帖 {path}：{e}"))?;
            let holder = kill_post_placeholder(killer.trim());
            if !res.announce.contains(&holder) {
                writeln!(err, "错误：--kill-post {killer}：天亮公告里没有 {killer} 的杀人帖（他的杀人没有成功，或名字写错）")?;
                return Ok(2);
            }
            res.announce = res.announce.replace(&holder, body.trim());
        }
        if self.json {
            serde_json::to_writer_pretty(&mut *out, &res)?;
            writeln!(out)?;
        } else {
            if deadline.is_none() {
                writeln!(out, "（未设截止时间：所有行动都按时结算；可用 --deadline 或规则的 night.deadline_after_close_minutes）")?;
            }
            out.write_all(crate::present::night::text(&res).as_bytes())?;
        }
        Ok(0)
    }
}
