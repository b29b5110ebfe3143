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
    /// 交给正在运行的守护进程（它在夜里收集私信和 QQ 里的行动、截止时发结算草稿）：守护进程配置文件；与 --add 或 --confirm 一起用
    #[arg(long)]
    pub daemon: Option<PathBuf>,
    /// 替玩家录入一条行动（QQ、当面告诉法官的）：“谁 能力 对象 [炮架子]”，如 --add "宋江 杀人 李逵 吴用"
    #[arg(long, requires = "daemon")]
    pub add: Option<String>,
    /// 确认这一夜的结算：死亡、已用的特权和带到下一天的效果写入局面（在截止时间之后）
    #[arg(long, requires = "daemon", conflicts_with = "add")]
    pub confirm: bool,
    /// 离线结算的行动：夜间行动文件（.toml：[[action]] 含 by、power、target，可选 platform、sent_at），或保存的短信页面（法官收件箱里玩家的短信，按玩家自己的写法读，如“杀人：宋江 炮架子：吴用”）；可以给多个
    #[arg(required_unless_present = "daemon", conflicts_with = "daemon")]
    pub actions: Vec<PathBuf>,
}

/// The actions of the offline inputs: each `.toml` an actions file, anything else a saved page
/// of private messages to the judge, read in the players' own words (`night::read`); a
/// message by a player sent before the night (the day's last close) is not the night's, one that
/// reads as no action is told to the judge. `Err`: the exit code, the error written.
fn offline_actions(
    game: &crate::domain::config::GameConfig,
    night: u32,
    inputs: &[PathBuf],
    err: &mut dyn Write,
) -> anyhow::Result<Result<Vec<crate::domain::night::Action>, i32>> {
    let mut acts = Vec::new();
    let mut pages = Vec::new();
    for path in inputs {
        if path.extension().is_some_and(|e| e == "toml") {
            let text = std::fs::read_to_string(path)
                .map_err(|e| anyhow::anyhow!("无法读取行动文件 {}：{e}", path.display()))?;
            let file = path
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| path.display().to_string());
            match actions::parse(&file, &text, game.utc_offset) {
                Ok(a) => acts.extend(a),
                Err(e) => {
                    writeln!(err, "行动文件错误：{e}")?;
                    return Ok(Err(2));
                }
            }
        } else {
            pages.push(path.clone());
        }
    }
    if pages.is_empty() {
        return Ok(Ok(acts));
    }
    let opts = bansha_parsers::ParseOptions {
        utc_offset: game.utc_offset,
    };
    let mut problems = crate::cli::poll_pm::Problems::default();
    let messages = crate::cli::poll_pm::read_pms(&pages, &opts, &mut problems);
    for l in problems.errors.iter().chain(&problems.notes) {
        writeln!(err, "{l}")?;
    }
    if !problems.errors.is_empty() {
        return Ok(Err(1));
    }
    let opens = game.day(night).map(|d| d.last_close());
    for m in messages {
        if !game.roster.players.contains(&m.from) {
            continue;
        }
        if let (Some(at), Some(opens)) = (m.sent_at, opens) {
            if at < opens {
                continue;
            }
        }
        let source = format!("短消息 pmid {}", m.pmid);
        let read =
            crate::domain::night::read::actions_in(game, &m.from, &m.text, m.sent_at, &source);
        if read.is_empty() {
            writeln!(
                err,
                "提示：{source} {} 的短信读不出夜间行动，请自己看一下：{}",
                m.from,
                m.text.trim()
            )?;
        }
        acts.extend(read);
    }
    Ok(Ok(acts))
}

/// `bansha night --daemon D --add … | --confirm`: the running daemon records the judge's entry
/// or confirms the night, as the dashboard's form and button do.
fn to_daemon(
    c: &NightCommand,
    daemon: &std::path::Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let game = match crate::io::files::load_game(&c.config) {
        Ok(g) => g,
        Err(e) => {
            writeln!(err, "配置错误：{e}")?;
            return Ok(2);
        }
    };
    let body = if let Some(add) = &c.add {
        let words: Vec<&str> = add.split_whitespace().collect();
        if words.len() < 2 {
            writeln!(
                err,
                "错误：--add 要写“谁 能力 对象 [炮架子]”，如 --add \"宋江 杀人 李逵\""
            )?;
            return Ok(2);
        }
        serde_json::json!({
            "game": game.name, "night": c.night, "action": "add",
            "by": words[0], "power": words[1],
            "target": words.get(2).copied().unwrap_or(""),
            "platform": words.get(3).copied().unwrap_or(""),
        })
    } else if c.confirm {
        serde_json::json!({ "game": game.name, "night": c.night, "action": "confirm" })
    } else {
        writeln!(err, "错误：--daemon 要与 --add 或 --confirm 一起用")?;
        return Ok(2);
    };
    match crate::cli::client::ask_daemon_with(daemon, "/night", Some(body), err)? {
        Ok(text) => {
            write!(out, "{text}")?;
            Ok(0)
        }
        Err(code) => Ok(code),
    }
}

impl NightCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        if let Some(daemon) = &self.daemon {
            return to_daemon(&self, daemon, out, err);
        }
        let game = match crate::io::files::load_game(&self.config) {
            Ok(g) => g,
            Err(e) => {
                writeln!(err, "配置错误：{e}")?;
                return Ok(2);
            }
        };
        let state = load_state(&state_path(&self.config, self.state.as_deref()))?;
        let acts = match offline_actions(&game, self.night, &self.actions, err)? {
            Ok(a) => a,
            Err(code) => return Ok(code),
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
