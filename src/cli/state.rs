//! `bansha state` (the judge's view: seats with roles, alive/dead with causes, win conditions)
//! and `bansha change …` (eliminate, revive, replace, role, fact, undo). The state lives in a JSON
//! file beside the game config (`GAME.state.json`), written atomically. Judge-only output: it
//! shows roles and factions.

use crate::domain::config::{self, GameConfig};
use crate::domain::rules::state::{evaluate, Change, Condition, GameState, Snapshot};
use std::io::Write;
use std::path::{Path, PathBuf};

pub fn state_path(config: &Path, given: Option<&Path>) -> PathBuf {
    match given {
        Some(p) => p.to_path_buf(),
        None => {
            let stem = config
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "game".into());
            config.with_file_name(format!("{stem}.state.json"))
        }
    }
}

pub fn load_state(path: &Path) -> anyhow::Result<GameState> {
    match std::fs::read(path) {
        Ok(b) => Ok(serde_json::from_slice(&b)
            .map_err(|e| anyhow::anyhow!("{} 无法读取：{e}", path.display()))?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(GameState::default()),
        Err(e) => Err(anyhow::anyhow!("{} 无法读取：{e}", path.display())),
    }
}

/// The game config with the recorded state's eliminations added to each day's `dead`, when a
/// state file sits beside it (so a player the judge has recorded as out cannot vote or be
/// counted for 潜水).
pub fn with_state(mut game: GameConfig) -> anyhow::Result<GameConfig> {
    let path = state_path(&game.path, None);
    if path.exists() {
        let state = load_state(&path)?;
        crate::domain::rules::state::apply_to_days(&mut game, &state);
    }
    Ok(game)
}

fn save_state(path: &Path, state: &GameState) -> anyhow::Result<()> {
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, serde_json::to_vec_pretty(state)?)?;
    std::fs::rename(&tmp, path)?;
    Ok(())
}

/// Whether every player has a role: win conditions are judged only on a complete roster.
pub fn complete(game: &GameConfig) -> bool {
    game.roster
        .players
        .iter()
        .all(|p| game.roster.roles.contains_key(p))
}

pub fn conditions(game: &GameConfig, snap: &Snapshot) -> (Vec<Condition>, Vec<Condition>) {
    if !complete(game) {
        return (Vec::new(), Vec::new());
    }
    (
        evaluate(snap, &game.rules.win),
        evaluate(snap, &game.rules.warn),
    )
}

/// The judge's view as text.
pub fn text(game: &GameConfig, state: &GameState) -> String {
    let snap = state.snapshot(game);
    let mut s = format!("【{}】局面（仅法官可见）\n", game.name);
    let alive: Vec<_> = snap.seats.iter().filter(|x| x.alive).collect();
    s += &format!("存活 {} 人：\n", alive.len());
    for x in &snap.seats {
        let role = if x.role.is_empty() {
            "未配置身份".to_string()
        } else {
            format!("{}（{}）", x.role, x.faction)
        };
        let code = x
            .code
            .as_ref()
            .map(|c| format!("，代号 {c}"))
            .unwrap_or_default();
        let status = if x.alive {
            match &x.cause {
                Some(c) => format!("存活（{c}）"),
                None => "存活".into(),
            }
        } else {
            format!("出局：{}", x.cause.clone().unwrap_or_default())
        };
        s += &format!("  {} — {role}{code} — {status}\n", x.player);
    }
    if !snap.facts.is_empty() {
        let facts: Vec<String> = snap
            .facts
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        s += &format!("记录：{}\n", facts.join("，"));
    }
    let (win, warn) = conditions(game, &snap);
    if !complete(game) {
        s += &format!(
            "身份表不完整（[roster.roles] 有 {} / {} 人），不判断胜负条件\n",
            game.roster.roles.len(),
            game.roster.players.len()
        );
        return s;
    }
    let held: Vec<&Condition> = win.iter().filter(|c| c.holds).collect();
    s += &format!(
        "胜负条件：{}\n",
        if held.is_empty() {
            "尚无成立".to_string()
        } else {
            held.iter()
                .map(|c| format!("【成立】{}", c.name))
                .collect::<Vec<_>>()
                .join("；")
        }
    );
    for c in warn.iter().filter(|c| c.holds) {
        s += &format!("提醒：{}\n", c.name);
    }
    // How far the others are: which single elimination would make each hold.
    for (c, rule) in win
        .iter()
        .zip(&game.rules.win)
        .filter(|(c, _)| !c.holds && c.error.is_none())
    {
        let away = crate::domain::rules::state::one_away(&snap, rule);
        if away.is_empty() {
            s += &format!("未成立：{}（任何一人出局都不足以成立）\n", c.name);
        } else {
            s += &format!(
                "未成立：{}（再出局一人即成立：{}）\n",
                c.name,
                away.join("、")
            );
        }
    }
    for c in win.iter().chain(&warn).filter(|c| c.error.is_some()) {
        s += &format!(
            "无法计算：{}（{}）\n",
            c.name,
            c.error.clone().unwrap_or_default()
        );
    }
    s
}

pub fn show(
    config: &Path,
    state_file: Option<&Path>,
    json: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let game = match config::load(config) {
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
    at: Option<&str>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let game = match config::load(config) {
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
                | Change::SetRole { player, .. } => Some(player.clone()),
                Change::Replace { seat, .. } => Some(seat.clone()),
                Change::Fact { .. } => None,
            };
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
                None => crate::daemon::service::Clock::now(&crate::daemon::service::SystemClock(
                    game.utc_offset,
                ))
                .to_rfc3339(),
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
    let after = state.snapshot(&game);
    let (win, warn) = conditions(&game, &after);
    for c in win
        .iter()
        .filter(|c| c.holds && !win_before.iter().any(|b| b.name == c.name && b.holds))
    {
        writeln!(out, "【胜负条件成立】{}", c.name)?;
    }
    for c in warn
        .iter()
        .filter(|c| c.holds && !warn_before.iter().any(|b| b.name == c.name && b.holds))
    {
        writeln!(out, "【提醒】{}", c.name)?;
    }
    out.write_all(text(&game, &state).as_bytes())?;
    Ok(0)
}

/// `bansha confirm --day N PAGES…`: tally the day, apply the rules' protections, record the
/// eliminations, and report what now holds.
pub fn confirm(
    config: &Path,
    state_file: Option<&Path>,
    day: u32,
    pages: &[PathBuf],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let game = match config::load(config) {
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
    let now = read.newest.unwrap_or(d.closes_at).max(d.closes_at);
    let tally = match crate::domain::rules::tally_with(&game, day, 1, now, &read.posts, &casts) {
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
    let at =
        crate::daemon::service::Clock::now(&crate::daemon::service::SystemClock(game.utc_offset))
            .to_rfc3339();
    for c in crate::domain::rules::state::confirm(&game, &before, &tally.outcome.players) {
        match c {
            crate::domain::rules::state::Confirmed::Eliminated(p) => {
                state.push(
                    Change::Eliminate {
                        player: p.clone(),
                        cause: "投票出局".into(),
                        day: Some(day),
                    },
                    at.clone(),
                );
                writeln!(out, "{p} 投票出局，已记录")?;
                let of = state.events.last().map_or(0, |e| e.id);
                for (f, cause) in crate::domain::rules::state::followers(&game, &before, &p) {
                    writeln!(out, "{f} 随之出局（{cause}）")?;
                    state.push_following(
                        Change::Eliminate {
                            player: f,
                            cause,
                            day: Some(day),
                        },
                        at.clone(),
                        of,
                    );
                }
            }
            crate::domain::rules::state::Confirmed::Protected {
                player,
                message,
                used,
            } => {
                writeln!(out, "【保护】{player}：{message}")?;
                if let Some(f) = used {
                    state.push(Change::Fact { key: f, value: 1.0 }, at.clone());
                }
            }
        }
    }
    save_state(&path, &state)?;
    let after = state.snapshot(&game);
    let (win, warn) = conditions(&game, &after);
    for c in win
        .iter()
        .filter(|c| c.holds && !win_before.iter().any(|b| b.name == c.name && b.holds))
    {
        writeln!(out, "【胜负条件成立】{}", c.name)?;
    }
    for c in warn
        .iter()
        .filter(|c| c.holds && !warn_before.iter().any(|b| b.name == c.name && b.holds))
    {
        writeln!(out, "【提醒】{}", c.name)?;
    }
    Ok(0)
}

/// For the judge's private mail at a close: what confirming the vote would do under the roles —
/// protections, eliminations, and the conditions that would then hold. Empty without roles.
pub fn projection(game: &GameConfig, outcome_players: &[String]) -> String {
    if game.roster.roles.is_empty() || outcome_players.is_empty() {
        return String::new();
    }
    let state = load_state(&state_path(&game.path, None)).unwrap_or_default();
    let before = state.snapshot(game);
    let mut after = state.clone();
    let mut lines = Vec::new();
    for c in crate::domain::rules::state::confirm(game, &before, outcome_players) {
        match c {
            crate::domain::rules::state::Confirmed::Eliminated(p) => {
                lines.push(format!("{p} 出局"));
                after.push(
                    Change::Eliminate {
                        player: p.clone(),
                        cause: "投票出局".into(),
                        day: None,
                    },
                    String::new(),
                );
                for (f, cause) in crate::domain::rules::state::followers(game, &before, &p) {
                    lines.push(format!("{f} 随之出局（{cause}）"));
                    after.push(
                        Change::Eliminate {
                            player: f,
                            cause,
                            day: None,
                        },
                        String::new(),
                    );
                }
            }
            crate::domain::rules::state::Confirmed::Protected {
                player, message, ..
            } => {
                lines.push(format!("【保护】{player}：{message}"));
            }
        }
    }
    let (win, warn) = conditions(game, &after.snapshot(game));
    for c in win.iter().filter(|c| c.holds) {
        lines.push(format!("【胜负条件成立】{}", c.name));
    }
    for c in warn.iter().filter(|c| c.holds) {
        lines.push(format!("【提醒】{}", c.name));
    }
    format!(
        "\n—— 仅法官可见（按身份推算，确认后用 bansha confirm 记录）——\n{}\n",
        lines.join("\n")
    )
}
