//! `bansha state` (the judge's view: seats with roles, alive/dead with causes, win conditions)
//! and `bansha change …` (eliminate, revive, replace, role, fact, undo). The state lives in a JSON
//! file beside the game config (`GAME.state.json`), written atomically. Judge-only output: it
//! shows roles and factions.

use crate::domain::rules::state::{conditions, Change};
use crate::io::state_file::{load_state, save_state, state_path};
use crate::present::judge::state as text;
use std::io::Write;
use std::path::{Path, PathBuf};

pub fn show(
    config: &Path,
    state_file: Option<&Path>,
    json: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let game = match crate::io::files::load_game(config) {
        Ok(g) => g,
        Err(e) => {
            writeln!(err, "配置错误：{e}")?;
            return Ok(2);
        }
    };
    let state = load_state(&state_path(config, state_file))?;
    if json {
        let snap = state.snapshot(&game);
        let (win, warn) = conditions(&game, &snap);
        serde_json::to_writer_pretty(
            &mut *out,
            &serde_json::json!({"seats": snap.seats, "facts": snap.facts, "win": win, "warn": warn, "events": state.events}),
        )?;
        writeln!(out)?;
    } else {
        out.write_all(text(&game, &state).as_bytes())?;
    }
    Ok(0)
}

/// Apply a change (or undo) and report what now holds that did not before.
pub fn change(
    config: &Path,
    state_file: Option<&Path>,
    change: Option<Change>,
    (at, free): (Option<&str>, bool),
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let game = match crate::io::files::load_game(config) {
        Ok(g) => g,
        Err(e) => {
            writeln!(err, "配置错误：{e}")?;
            return Ok(2);
        }
    };
    let path = state_path(config, state_file);
    let mut state = load_state(&path)?;
    let before = state.snapshot(&game);
    let (win_before, warn_before) = conditions(&game, &before);
    let name_ok = |n: &str| before.seats.iter().any(|s| s.player == n);
    match change {
        Some(c) => {
            let who = match &c {
                Change::Eliminate { player, .. }
                | Change::Revive { player, .. }
                | Change::SetRole { player, .. }
                | Change::Mark { player, .. } => Some(player.clone()),
                Change::Replace { seat, .. } => Some(seat.clone()),
                Change::Fact { .. } | Change::Surrender { .. } => None,
            };
            if let Change::Surrender { faction } = &c {
                if !before.seats.iter().any(|s| &s.faction == faction) {
                    let known: std::collections::BTreeSet<&str> =
                        before.seats.iter().map(|s| s.faction.as_str()).collect();
                    writeln!(
                        err,
                        "错误：本局没有“{faction}”阵营（有：{}）",
                        known.into_iter().collect::<Vec<_>>().join("、")
                    )?;
                    return Ok(2);
                }
            }
            if let (Change::Fact { key, .. }, false) = (&c, free) {
                let read = crate::domain::rules::state::facts_read(&game);
                if !read.contains(key) {
                    writeln!(
                        err,
                        "错误：没有哪条规则读“{key}”，记下它不会改变任何判断。本局规则读的事实：{}。\
                         若是写错了名字，请改用上面的名字；若确实是法官自己要记的事实，加上 --free",
                        if read.is_empty() {
                            "（无）".to_string()
                        } else {
                            read.into_iter().collect::<Vec<_>>().join("、")
                        }
                    )?;
                    return Ok(2);
                }
            }
            if let Some(w) = who.filter(|w| !name_ok(w)) {
                writeln!(err, "错误：{w} 不是本局的玩家（或座位已由替补接替）")?;
                return Ok(2);
            }
            match &c {
                Change::Eliminate { player, .. }
                    if before.seats.iter().any(|s| &s.player == player && !s.alive) =>
                {
                    writeln!(err, "错误：{player} 已经出局")?;
                    return Ok(2);
                }
                Change::Revive { player, .. }
                    if before.seats.iter().any(|s| &s.player == player && s.alive) =>
                {
                    writeln!(err, "错误：{player} 还活着")?;
                    return Ok(2);
                }
                _ => {}
            }
            let now = match at {
                Some(t) => match crate::domain::time::parse_local_time(t, game.utc_offset) {
                    Ok(t) => t.to_rfc3339(),
                    Err(e) => {
                        writeln!(err, "错误：--at {e}")?;
                        return Ok(2);
                    }
                },
                None => {
                    crate::io::clock::Clock::now(&crate::io::clock::SystemClock(game.utc_offset))
                        .to_rfc3339()
                }
            };
            let follow: Vec<Change> = match &c {
                Change::Eliminate { player, day, .. } => {
                    crate::domain::rules::state::followers(&game, &before, player)
                        .into_iter()
                        .map(|(p, cause)| Change::Eliminate {
                            player: p,
                            cause,
                            day: *day,
                        })
                        .collect()
                }
                _ => Vec::new(),
            };
            let id = state.push(c, now.clone());
            writeln!(out, "已记录 #{id}")?;
            for f in follow {
                if let Change::Eliminate { player, cause, .. } = &f {
                    writeln!(out, "{player} 随之出局（{cause}）")?;
                }
                state.push_following(f, now.clone(), id);
            }
        }
        None => match state.undo() {
            Some(id) => writeln!(out, "已撤销 #{id}")?,
            None => {
                writeln!(err, "错误：没有可以撤销的记录")?;
                return Ok(2);
            }
        },
    }
    save_state(&path, &state)?;
    for l in
        crate::domain::rules::confirm::new_conditions(&game, &state, (&win_before, &warn_before))
    {
        writeln!(out, "{l}")?;
    }
    out.write_all(text(&game, &state).as_bytes())?;
    Ok(0)
}

/// `bansha confirm --day N PAGES…`: tally the day, apply the rules' protections, record the
/// eliminations, and report what now holds.
#[allow(clippy::too_many_arguments)]
pub fn confirm(
    config: &Path,
    state_file: Option<&Path>,
    day: u32,
    round: u32,
    pages: &[PathBuf],
    (pardon, no_pardon): (&[String], bool),
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let game = match crate::io::files::load_game(config) {
        Ok(g) => g,
        Err(e) => {
            writeln!(err, "配置错误：{e}")?;
            return Ok(2);
        }
    };
    let opts = bansha_parsers::ParseOptions {
        utc_offset: game.utc_offset,
    };
    let Some(d) = game.day(day) else {
        writeln!(err, "错误：配置中没有第 {day} 天")?;
        return Ok(2);
    };
    let (read, casts) = match crate::cli::tally::read_ballots(&game, d, pages, None, &opts, None) {
        Ok(p) => p,
        Err(e) => {
            writeln!(err, "错误：{e:#}")?;
            return Ok(1);
        }
    };
    // Round 2 (a run-off): as the daemon runs it, the deadline the judge or the rules give.
    let game = if round == 2 {
        crate::cli::tally::with_runoff(game.clone(), day, &read.posts, &casts)
    } else {
        game.clone()
    };
    let close = match (round, game.day(day).and_then(|d| d.runoff.as_ref())) {
        (2, Some(r)) => r.closes_at,
        _ => d.closes_at,
    };
    let now = read.newest.unwrap_or(close).max(close);
    // A poll whose lists do not name every voter gives no result to confirm (bansha42 L77).
    if !read.poll_gaps.is_empty() {
        writeln!(
            err,
            "错误：投票机名单不全，结果不能作准：请把缺的参与人页面（viewvote）一起保存后再确认"
        )?;
        for g in &read.poll_gaps {
            writeln!(err, "  {}", crate::present::bbcode::poll_gap(g))?;
        }
        return Ok(1);
    }
    let tally = match crate::domain::rules::tally_with(&game, day, round, now, &read.posts, &casts)
    {
        Ok(t) => t,
        Err(e) => {
            writeln!(err, "错误：{e}")?;
            return Ok(2);
        }
    };
    writeln!(out, "第{day}天投票结果：{}", tally.outcome.note)?;
    if tally.outcome.kind != crate::domain::rules::OutcomeKind::Eliminated {
        writeln!(out, "没有人因投票出局，局面不变")?;
        return Ok(0);
    }
    let path = state_path(config, state_file);
    let mut state = load_state(&path)?;
    let before = state.snapshot(&game);
    let (win_before, warn_before) = conditions(&game, &before);
    if let Err(issue) = crate::domain::rules::confirm::check_pardons(
        &game,
        &before,
        &tally.outcome.players,
        pardon,
        no_pardon,
    ) {
        for l in issue.lines() {
            writeln!(err, "{l}")?;
        }
        if let crate::domain::rules::confirm::PardonIssue::Ask { first, .. } = &issue {
            writeln!(
                err,
                "用了就加上 --pardon {first}，都不用就加上 --no-pardon，再运行一次 confirm（这次什么也没有记录）"
            )?;
        }
        return Ok(2);
    }
    // Stamped at its round's close (`apply_to_days`: out for the days closing after it).
    let confirmed =
        crate::domain::rules::state::confirm(&game, &before, &tally.outcome.players, pardon);
    for l in crate::domain::rules::confirm::record_confirmed(
        &game, &before, &mut state, confirmed, day, close,
    ) {
        writeln!(out, "{l}")?;
    }
    save_state(&path, &state)?;
    for l in
        crate::domain::rules::confirm::new_conditions(&game, &state, (&win_before, &warn_before))
    {
        writeln!(out, "{l}")?;
    }
    Ok(0)
}

/// `bansha confirm --day N --daemon DAEMON.toml`: the running daemon confirms the day from the
/// final it holds (stamped at the round's close), as the dashboard's button does.
fn confirm_from_record(
    c: &ConfirmCommand,
    daemon: &Path,
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
    if c.round == 2 {
        writeln!(
            err,
            "注意：从记录确认时自动取这一天的最终结果（有第二轮就取第二轮的），--round 不用写"
        )?;
    }
    let body = serde_json::json!({
        "game": game.name,
        "day": c.day,
        "pardon": c.pardon,
        "no_pardon": c.no_pardon,
    });
    match crate::cli::client::ask_daemon_with(daemon, "/confirm", Some(body), err)? {
        Ok(text) => {
            write!(out, "{text}")?;
            Ok(0)
        }
        Err(code) => Ok(code),
    }
}

/// The arguments of `bansha state` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct StateCommand {
    /// 本局配置文件（TOML）
    #[arg(long)]
    pub config: PathBuf,
    /// 局面文件，默认是配置文件旁的 <名字>.state.json
    #[arg(long)]
    pub state: Option<PathBuf>,
    /// 输出 JSON
    #[arg(long)]
    pub json: bool,
}

impl StateCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        show(&self.config, self.state.as_deref(), self.json, out, err)
    }
}

/// The arguments of `bansha change` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct ChangeCommand {
    /// 本局配置文件（TOML）
    #[arg(long)]
    pub config: PathBuf,
    /// 局面文件，默认是配置文件旁的 <名字>.state.json
    #[arg(long)]
    pub state: Option<PathBuf>,
    /// 变化发生的时间（论坛时间，如 2026-11-29 08:00），默认现在；此时间之后截止的投票中，出局者的票无效
    #[arg(long)]
    pub at: Option<String>,
    #[command(subcommand)]
    pub what: ChangeCmd,
}

impl ChangeCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        use crate::domain::rules::state::Change as C;
        let free = matches!(self.what, ChangeCmd::Fact { free: true, .. });
        let what = match self.what {
            ChangeCmd::Eliminate { player, cause, day } => {
                Some(C::Eliminate { player, cause, day })
            }
            ChangeCmd::Revive { player, cause } => Some(C::Revive { player, cause }),
            ChangeCmd::Replace { seat, by } => Some(C::Replace { seat, by }),
            ChangeCmd::Role {
                player,
                role,
                faction,
            } => Some(C::SetRole {
                player,
                role,
                faction,
            }),
            ChangeCmd::Fact { key, value, .. } => Some(C::Fact { key, value }),
            ChangeCmd::Mark { player, mark } => Some(C::Mark { player, mark }),
            ChangeCmd::Surrender { faction } => Some(C::Surrender { faction }),
            ChangeCmd::Undo => None,
        };
        change(
            &self.config,
            self.state.as_deref(),
            what,
            (self.at.as_deref(), free),
            out,
            err,
        )
    }
}

/// The arguments of `bansha confirm` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct ConfirmCommand {
    /// 本局配置文件（TOML）
    #[arg(long)]
    pub config: PathBuf,
    /// 局面文件，默认是配置文件旁的 <名字>.state.json
    #[arg(long)]
    pub state: Option<PathBuf>,
    /// 第几天
    #[arg(long)]
    pub day: u32,
    /// 第几轮：2 为高票辩论（第二轮）的结果
    #[arg(long, default_value_t = 1)]
    pub round: u32,
    /// 被投杀者被这项权力救回（如 特赦、圣光；可写多次）
    #[arg(long)]
    pub pardon: Vec<String>,
    /// 征求过意见，这次没有人使用救人的权力
    #[arg(long, conflicts_with = "pardon")]
    pub no_pardon: bool,
    /// 从正在运行的守护进程的记录确认（它已读过投票帖的每一帖）：守护进程配置文件；这时不用给页面文件
    #[arg(long)]
    pub daemon: Option<PathBuf>,
    /// 投票帖的页面文件（所有页），离线确认时用
    #[arg(required_unless_present = "daemon", conflicts_with = "daemon")]
    pub pages: Vec<PathBuf>,
}

impl ConfirmCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        if let Some(daemon) = &self.daemon {
            return confirm_from_record(&self, daemon, out, err);
        }
        confirm(
            &self.config,
            self.state.as_deref(),
            self.day,
            self.round,
            &self.pages,
            (&self.pardon, self.no_pardon),
            out,
            err,
        )
    }
}

/// What `bansha change` records.
#[derive(clap::Subcommand)]
pub enum ChangeCmd {
    /// 出局
    Eliminate {
        player: String,
        /// 原因：投票、夜杀、毒杀、殉情、红牌……
        #[arg(long)]
        cause: String,
        #[arg(long)]
        day: Option<u32>,
    },
    /// 复活（特赦、圣光、解药……）
    Revive {
        player: String,
        #[arg(long)]
        cause: String,
    },
    /// 替补接替座位（保留身份与记录）
    Replace { seat: String, by: String },
    /// 身份或阵营变化（叛变、情侣结成阵营）
    Role {
        player: String,
        #[arg(long)]
        role: Option<String>,
        #[arg(long)]
        faction: Option<String>,
    },
    /// 法官记录的事实（如 未杀人夜数 1）；只接受本局规则读的事实
    Fact {
        key: String,
        value: f64,
        /// 法官自己要记的事实：没有规则读它也记下
        #[arg(long)]
        free: bool,
    },
    /// 给玩家加上规则用到的标记（如 情侣：一人出局，另一人随之出局）
    Mark { player: String, mark: String },
    /// 某阵营投降：该阵营判负（不公示）
    Surrender { faction: String },
    /// 撤销上一条记录
    Undo,
}
