//! Judge-only text: the game state with roles, and what confirming a vote would do. Never in
//! public output.

use crate::domain::config::GameConfig;
use crate::domain::rules::state::{Change, Condition, GameState};

/// The judge's view as text.
pub fn state(game: &GameConfig, state: &GameState) -> String {
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
            .unwrap_or_default()
            + &x.marks.iter().map(|m| format!("，{m}")).collect::<String>();
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
    if !snap.lost.is_empty() {
        s += &format!(
            "已判负的阵营：{}\n",
            snap.lost.iter().cloned().collect::<Vec<_>>().join("、")
        );
    }
    if !snap.facts.is_empty() {
        let facts: Vec<String> = snap
            .facts
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        s += &format!("记录：{}\n", facts.join("，"));
    }
    let (win, warn) = crate::domain::rules::state::conditions(game, &snap);
    if !crate::domain::rules::state::complete(game) {
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

/// For the judge's private mail at a close: what confirming the vote would do under the roles —
/// protections, eliminations, and the conditions that would then hold. Empty without roles.
pub fn projection(game: &GameConfig, state: &GameState, outcome_players: &[String]) -> String {
    if game.roster.roles.is_empty() || outcome_players.is_empty() {
        return String::new();
    }
    let before = state.snapshot(game);
    let mut after = state.clone();
    let mut lines = Vec::new();
    // The powers the judge must ask about before announcing (jiaohui L114).
    for p in outcome_players {
        for x in crate::domain::rules::state::pardons_open(game, &before, p) {
            lines.push(format!(
                "宣布结果之前先征求：{} 是否对 {p} 使用“{}”（用了：bansha confirm --pardon {}）",
                x.by, x.name, x.name
            ));
        }
    }
    for c in crate::domain::rules::state::confirm(game, &before, outcome_players, &[]) {
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
            crate::domain::rules::state::Confirmed::Pardoned { player, pardon, .. } => {
                lines.push(format!("【{pardon}】{player} 被救回"));
            }
        }
    }
    let (win, warn) = crate::domain::rules::state::conditions(game, &after.snapshot(game));
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
