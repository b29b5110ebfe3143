//! What the judge pastes into the thread: Discuz BBCode, Chinese. Player text (names, targets,
//! reasons) is made unable to open or close a tag; public output never carries roles.

use crate::domain::config::{GameConfig, NonVoter, OutcomeRule};
use crate::domain::rules::channels::PollGap;
use crate::domain::rules::tally::AdjustmentKind;
use crate::domain::rules::{self, BallotKind, OutcomeKind, Tally};
use chrono::{DateTime, FixedOffset};

/// Text from the forum or the config as it may stand in BBCode: brackets made full-width, so
/// nothing a player writes (a name, a target, a quote in a reason) can open or close a tag in
/// the post the judge pastes.
pub fn bb(s: &str) -> String {
    s.replace('[', "［").replace(']', "］")
}

fn t(x: DateTime<FixedOffset>) -> String {
    x.format("%Y-%m-%d %H:%M:%S").to_string()
}

use crate::domain::rules::tally::fmt_votes as votes;

fn floor(f: &str) -> String {
    if f.is_empty() {
        "?楼".into()
    } else {
        f.to_string()
    }
}

/// The tally as the judge posts it: Discuz BBCode, Chinese. Never roles or factions.
pub fn tally(game: &GameConfig, tally: &Tally) -> String {
    let mut s = header(game, tally);
    s += &counts(game, tally);
    s += &poll_gaps(tally);
    if tally.publish_voters {
        s += &changes_and_void(tally);
    }
    s += &rulings(tally);
    s += &non_voters(tally);
    s += &rule(tally);
    let color = match tally.outcome.kind {
        OutcomeKind::Pending => "blue",
        _ => "red",
    };
    s += &format!(
        "[b]结果[/b]：[color={color}]{}[/color]\n",
        bb(&tally.outcome.note)
    );
    s
}

/// The title, the deadline and lock, the living, and (before the close) that it is provisional.
fn header(game: &GameConfig, tally: &Tally) -> String {
    let mut s = String::new();
    let overtime = game
        .day(tally.day)
        .and_then(|d| d.runoff.as_ref())
        .and_then(|r| r.eliminate);
    let round = match (tally.round, overtime) {
        (2, Some(x)) => format!("加时（票一出{x}）"),
        (2, None) => "第二轮（高票辩论）".to_string(),
        _ => "第一轮".to_string(),
    };
    s += &format!(
        "[b]【{}】第{}天 {}投票统计[/b]\n",
        bb(&game.name),
        tally.day,
        round
    );
    s += &format!("截止时间：{}", t(tally.closes_at));
    if let Some(lock) = tally.lock_from {
        s += &format!("（{} 起不得改票）", lock.format("%H:%M:%S"));
    }
    s += "\n";
    s += &format!("存活玩家：{} 人", tally.living);
    if tally.accelerated {
        s += "（进程已加速，改票一律无效）";
    }
    s += "\n";
    if !tally.closed {
        s += &format!(
            "[color=blue]统计时间：{}，投票尚未截止，以下为临时统计[/color]\n",
            t(tally.at)
        );
    }
    s
}

/// Each target's votes (with the voters where the rules publish them), abstentions, the total.
fn counts(game: &GameConfig, tally: &Tally) -> String {
    let mut s = String::new();
    s += "\n[b]得票[/b]\n";
    if tally.counts.is_empty() {
        s += "（无人得票）\n";
    }
    for c in &tally.counts {
        s += &format!("{} {} 票", bb(&c.target), votes(c.votes));
        let adj: Vec<String> = c
            .adjustments
            .iter()
            .map(|a| match a.kind {
                AdjustmentKind::Curse => "含左士诅咒 +1".to_string(),
                AdjustmentKind::Bless => "含右士庇佑 −1".to_string(),
            })
            .collect();
        if !adj.is_empty() {
            s += &format!("（{}）", adj.join("，"));
        }
        if c.half_votes > 0.0 {
            s += &format!("（另有半票 {}，仅平票时计）", votes(c.half_votes));
        }
        if tally.publish_voters && !c.voters.is_empty() {
            s += &format!("：{}", voter_list(&c.voters));
        }
        s += "\n";
    }
    if !tally.abstentions.is_empty() {
        // By weight, as they count in the total (m103 002 L153: the sheriff's is 1.5).
        let n = tally.abstentions.len();
        let w = tally.abstain_votes();
        s += &format!("弃权 {} 票", votes(w));
        let mut how = weights(&tally.abstentions);
        if tally
            .abstentions
            .iter()
            .any(|v| rules::tally::is_half(v.weight))
        {
            how.push("半票的弃权不计入总票数".into());
        }
        if (w - n as f64).abs() > 1e-9 || !how.is_empty() {
            how.insert(0, format!("{n} 人"));
            s += &format!("（{}）", how.join("，"));
        }
        if tally.publish_voters {
            s += &format!("：{}", voter_list(&tally.abstentions));
        }
        s += "\n";
    }
    // How the total is made, where a reader could not add it up from the lines above.
    let counted: Vec<rules::tally::VoterRef> = tally
        .counts
        .iter()
        .flat_map(|c| c.voters.iter().cloned())
        .chain(tally.abstentions.iter().cloned())
        .collect();
    let mut how = weights(&counted);
    // jiaohui 001 L182: at the close each non-voter is one abstention in the total.
    let as_abstain = if tally.closed && game.rules.vote.non_voter == NonVoter::Abstain {
        tally.non_voters.len()
    } else {
        0
    };
    if as_abstain > 0 {
        how.push(format!("含未投票按弃权计的 {as_abstain} 票"));
    }
    s += &format!("总票数：{}", votes(tally.total_votes));
    if !how.is_empty() {
        s += &format!("（{}）", how.join("；"));
    }
    s += "\n";
    s
}

/// Where the poll's counts and voter lists disagree (bansha42): what bansha could not read, and
/// that no one is judged for a vote it cannot name.
fn poll_gaps(tally: &Tally) -> String {
    if tally.poll_gaps.is_empty() {
        return String::new();
    }
    let mut s = "\n[b]投票机名单不全[/b]\n".to_string();
    for g in &tally.poll_gaps {
        s += &bb(&poll_gap(g));
        s += "\n";
    }
    if tally.poll_gaps.iter().any(|g| g.unnamed() > 0) {
        s += "这些票的投票人无从得知：未投票的玩家中可能有人已经投了票，不按自杀处理。\n";
    }
    s
}

/// One disagreement between the poll's counts and its voter lists, in words.
pub fn poll_gap(g: &PollGap) -> String {
    let id = g
        .option_id
        .map_or_else(|| "?".to_string(), |i| i.to_string());
    match (&g.option, g.named) {
        (Some(o), None) => format!(
            "选项“{o}”：投票机显示 {} 票，没有读到参与人名单（viewvote&polloptionid={id}）",
            g.votes
        ),
        (Some(o), Some(n)) if n < g.votes => format!(
            "选项“{o}”：投票机显示 {} 票，参与人名单上只有 {n} 人（viewvote&polloptionid={id}）",
            g.votes
        ),
        (Some(o), Some(n)) => format!(
            "选项“{o}”：参与人名单上有 {n} 人，多于投票机显示的 {} 票（viewvote&polloptionid={id}）",
            g.votes
        ),
        (None, Some(n)) if n < g.votes => format!(
            "投票机显示共 {} 人参与投票，参与人名单上只有 {n} 人",
            g.votes
        ),
        (None, n) => format!(
            "参与人名单上共有 {} 人，多于投票机显示的 {} 人",
            n.unwrap_or(0),
            g.votes
        ),
    }
}

/// Voters as the tally lists them: name, floor, and a weight other than one.
fn voter_list(voters: &[rules::tally::VoterRef]) -> String {
    let vs: Vec<String> = voters
        .iter()
        .map(|v| {
            let w = if (v.weight - 1.0).abs() > 1e-9 && !rules::tally::is_half(v.weight) {
                format!("，计 {} 票", votes(v.weight))
            } else {
                String::new()
            };
            format!("{}（{}{w}）", bb(&v.voter), floor(&v.floor))
        })
        .collect();
    vs.join("、")
}

/// A weight other than one among `voters`, in words: the sheriff's (m103 002 L153 "警长投出的
/// 票计为1.5票"; the only weight above one, `Engine::weight`).
fn weights(voters: &[rules::tally::VoterRef]) -> Vec<String> {
    voters
        .iter()
        .find(|v| (v.weight - 1.0).abs() > 1e-9 && !rules::tally::is_half(v.weight))
        .map(|v| format!("警长的一票计 {} 票", votes(v.weight)))
        .into_iter()
        .collect()
}

/// The changes, the void ballots with their reasons, and the posts not counted.
fn changes_and_void(tally: &Tally) -> String {
    let mut s = String::new();
    let changes: Vec<&rules::Ballot> = tally
        .ballots
        .iter()
        .filter(|b| b.valid && b.kind == BallotKind::Change)
        .collect();
    if !changes.is_empty() {
        s += "\n[b]改票[/b]\n";
        for b in changes {
            s += &format!(
                "{} {}：{} → {}\n",
                floor(&b.floor),
                bb(&b.voter),
                bb(&b.replaces.join("、")),
                bb(&b.targets.join("、"))
            );
        }
    }
    let invalid: Vec<&rules::Ballot> = tally.ballots.iter().filter(|b| !b.valid).collect();
    if !invalid.is_empty() {
        s += "\n[b]无效票[/b]\n";
        for b in invalid {
            let what = match &b.target {
                Some(x) => format!("（{}：{}）", b.kind.zh(), bb(x)),
                None => format!("（{}）", b.kind.zh()),
            };
            s += &format!(
                "{} {}{what}：{}\n",
                floor(&b.floor),
                bb(&b.voter),
                bb(b.reason.trim_start_matches("无效："))
            );
        }
    }
    if !tally.ignored.is_empty() {
        s += "\n[b]不计的帖子[/b]\n";
        for i in &tally.ignored {
            s += &format!("{} {}：{}\n", floor(&i.floor), bb(&i.author), bb(&i.reason));
        }
    }
    s
}

/// The judge's rulings on single ballots, with their reasons (public: the players see what the
/// judge decided). Where the rules publish counts only, the voters and targets stay out.
fn rulings(tally: &Tally) -> String {
    let ruled: Vec<&rules::Ballot> = tally
        .ballots
        .iter()
        .filter(|b| b.ruling.is_some())
        .collect();
    if ruled.is_empty() {
        return String::new();
    }
    let mut s = "\n[b]法官裁定[/b]\n".to_string();
    for b in ruled {
        let ruling = b.ruling.as_deref().unwrap_or_default();
        if tally.publish_voters {
            s += &format!(
                "{} {}：{}\n",
                floor(b.floor.trim_end_matches("，法官裁定")),
                bb(&b.voter),
                bb(ruling)
            );
        } else {
            let why = ruling.split_once('：').map_or(ruling, |(_, w)| w);
            s += &format!(
                "一张票{}：{}\n",
                if b.valid {
                    "按法官裁定计入"
                } else {
                    "由法官裁定作废"
                },
                bb(why)
            );
        }
    }
    s
}

/// Who did not vote, and what it costs them.
fn non_voters(tally: &Tally) -> String {
    let mut s = String::new();
    s += "\n[b]未投票[/b]：";
    if tally.non_voters.is_empty() {
        s += "无\n";
    } else {
        let vs: Vec<String> = tally
            .non_voters
            .iter()
            .map(|n| format!("{}（{}）", bb(&n.player), bb(&n.consequence)))
            .collect();
        s += &format!("{}\n", vs.join("、"));
    }
    // They voted; what they wrote at the close cannot be known (their ballot is void).
    if !tally.undetermined.is_empty() {
        let vs: Vec<String> = tally.undetermined.iter().map(|p| bb(p)).collect();
        s += &format!(
            "[b]投票内容无法确认[/b]：{}（截止后编辑过，票作废，不算未投票）\n",
            vs.join("、")
        );
    }
    s
}

/// The rule the round was counted with and its tie rule, in words: drawn from the tally's
/// `threshold` alone, the values its outcome was decided by (a round 2 states no threshold
/// because its outcome applied none).
fn rule(tally: &Tally) -> String {
    use crate::domain::config::TieRule;
    let th = &tally.threshold;
    let fig = |x: Option<f64>| votes(x.unwrap_or(0.0));
    let (who, out) = if th.sheriff {
        ("第一天投票选警长：", "当选警长")
    } else if tally.round == 2 {
        ("第二轮：", "出局")
    } else {
        ("", "出局")
    };
    let mut s = format!("[b]规则[/b]：{who}");
    s += &match th.rule {
        OutcomeRule::ShareOfCast => format!(
            "最高票且不少于总票数的 {}%（{} × {}% = {} 票）{out}",
            fig(th.percent),
            fig(th.base),
            fig(th.percent),
            fig(th.needed)
        ),
        OutcomeRule::ShareOfLiving => format!(
            "最高票且不少于存活人数 {} 的 {}%（上取整 {} 票）{out}",
            fig(th.base),
            fig(th.percent),
            fig(th.needed)
        ),
        OutcomeRule::TopK => format!("票数前 {} 名{out}", th.eliminate.unwrap_or(1)),
        OutcomeRule::Plurality if tally.round == 2 => format!("不设门槛，得票最多者{out}"),
        OutcomeRule::Plurality => format!("得票最多者{out}"),
    };
    if th.sheriff {
        s += "，无人出局";
    }
    s += &match (th.tie, th.rule) {
        (TieRule::LastToReach, OutcomeRule::TopK) => {
            "；平票后到先出，票都同时到则加时 15 分钟".to_string()
        }
        (TieRule::Runoff, _) => "；最高票并列则进入第二轮".to_string(),
        (TieRule::None, _) if tally.round == 2 => "；再度平票则无人出局".to_string(),
        (TieRule::None, _) => "；平票无人出局".to_string(),
        (TieRule::FirstToReach, _) => {
            format!("；平票时先达到该票数者{out}，同时达到则无法区分")
        }
        (TieRule::LastToReach, _) => {
            format!("；平票时后达到该票数者{out}（后到先出），同时达到则无法区分")
        }
    };
    s += "\n";
    s
}

/// m103's 电梯楼: the index a judge posts on the discussion thread's second floor — each player's
/// name linking to the thread filtered to that author, with the day's count.
pub fn elevator(report: &crate::domain::rules::lurk::LurkReport, tid: u64) -> String {
    let mut s = format!("[b]第{}天 电梯楼[/b]\n", report.day);
    for p in &report.players {
        match p.uid {
            Some(uid) => {
                s += &format!(
                "[url=forum.php?mod=viewthread&tid={tid}&page=1&authorid={uid}]{}[/url]（{} 帖）\n",
                bb(&p.player), p.counted
            )
            }
            None => s += &format!("{}（{} 帖）\n", bb(&p.player), p.counted),
        }
    }
    s
}

/// The 潜水 report as the judge reads it (BBCode, Chinese).
///
/// `standings`: the ledger as it stands (empty offline). Where the rules count the duties
/// missed per day (qipan 003 L136), a lurker whose day reaches the limit — in the ledger, or in
/// this report's own reasons — is named 潜水 and replaced, not warned: the line says what the
/// ledger below it says.
pub fn lurk(
    game: &crate::domain::config::GameConfig,
    report: &crate::domain::rules::lurk::LurkReport,
    standings: &[crate::domain::rules::ledger::Standing],
) -> String {
    let mut s = format!("[b]【{}】第{}天 发言统计[/b]\n", game.name, report.day);
    s += &format!(
        "统计时段：{} 至 {}；计入的帖子：{}\n",
        report
            .from
            .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
            .unwrap_or_else(|| "开始".into()),
        report.to.format("%Y-%m-%d %H:%M:%S"),
        report
            .threads
            .iter()
            .map(|t| format!("tid {t}"))
            .collect::<Vec<_>>()
            .join("、")
    );
    s += &format!(
        "当天平均：{:.1} 帖；潜水标准：{}\n\n",
        report.average, report.rule
    );
    for p in &report.players {
        s += &format!("{} {} 帖", p.player, p.counted);
        if !p.excluded.is_empty() {
            let ex: Vec<String> = p
                .excluded
                .iter()
                .map(|e| format!("{}：{}", e.floor, e.reason))
                .collect();
            s += &format!("（不计：{}）", ex.join("；"));
        }
        if p.voted == Some(false) {
            s += "（未投票）";
        }
        s += "\n";
    }
    let limit = game.rules.discipline.duties_to_replace;
    let replaced = |p: &crate::domain::rules::lurk::PlayerCount| -> Option<u32> {
        let booked = standings
            .iter()
            .filter(|st| st.player == p.player)
            .flat_map(|st| st.replaced_days.iter())
            .find(|(day, _)| *day == report.day)
            .map(|(_, n)| *n);
        let own = p.reasons.len() as u32;
        booked.or(limit.filter(|l| own >= *l).map(|_| own))
    };
    let mut lurkers: Vec<String> = Vec::new();
    let mut out_lurkers: Vec<String> = Vec::new();
    for p in report
        .players
        .iter()
        .filter(|p| p.verdict == crate::domain::rules::lurk::Verdict::Lurk)
    {
        let named = format!("{}（{}）", p.player, p.reasons.join("；"));
        match replaced(p) {
            Some(n) => out_lurkers.push(format!(
                "{named}按潜水论处，换人（第 {} 天 {n} 个环节没有完成）",
                report.day
            )),
            None => lurkers.push(named),
        }
    }
    let unknown: Vec<String> = report
        .players
        .iter()
        .filter(|p| p.verdict == crate::domain::rules::lurk::Verdict::Unknown)
        .map(|p| format!("{}（{}）", p.player, p.reasons.join("；")))
        .collect();
    let mut said = Vec::new();
    if !lurkers.is_empty() {
        said.push(format!("{}，各{}", lurkers.join("、"), report.penalty));
    }
    said.extend(out_lurkers);
    s += &format!(
        "\n[b]潜水[/b]：{}\n",
        if said.is_empty() {
            "无".to_string()
        } else {
            said.join("；")
        }
    );
    for x in &report.extra_threads {
        s += &format!(
            "[b]多开主题[/b]：{} 当天开了 {} 个主题帖（{}），规则每人每天只能开一个\n",
            x.player,
            x.tids.len(),
            x.tids
                .iter()
                .map(|t| format!("tid {t}"))
                .collect::<Vec<_>>()
                .join("、")
        );
    }
    if !unknown.is_empty() {
        s += &format!("[b]无法判断[/b]：{}\n", unknown.join("、"));
    }
    s
}

/// The ledger as the judge pastes it: no record ids (`ledger_with_ids` gives them).
pub fn ledger(
    entries: &[crate::domain::rules::ledger::Entry],
    standings: &[crate::domain::rules::ledger::Standing],
) -> String {
    ledger_text(entries, standings, false)
}

/// The ledger with each record's id, for `bansha ledger` (what `--remove ID` names).
pub fn ledger_with_ids(
    entries: &[crate::domain::rules::ledger::Entry],
    standings: &[crate::domain::rules::ledger::Standing],
) -> String {
    ledger_text(entries, standings, true)
}

fn ledger_text(
    entries: &[crate::domain::rules::ledger::Entry],
    standings: &[crate::domain::rules::ledger::Standing],
    ids: bool,
) -> String {
    let mut s = String::from("[b]违规记录[/b]\n");
    if standings.is_empty() {
        s += "（无）\n";
        return s;
    }
    for st in standings {
        let mut parts = Vec::new();
        for (n, what) in [
            (st.warnings, "警告"),
            (st.blue, "蓝牌"),
            (st.yellow, "黄牌"),
            (st.red, "红牌"),
            (st.lurk, "潜水"),
        ] {
            if n > 0 {
                parts.push(format!("{what} {n}"));
            }
        }
        if parts.is_empty() {
            parts.push("无有效记录".into());
        }
        s += &format!("{}：{}", st.player, parts.join("，"));
        if !st.consequence.is_empty() {
            s += &format!("（{}）", st.consequence);
        }
        s += "\n";
        for e in entries.iter().filter(|e| e.player == st.player) {
            s += &format!(
                "  {}{}{}{}：{}{}\n",
                if ids {
                    format!("[{}] ", e.id)
                } else {
                    String::new()
                },
                e.day.map(|d| format!("第{d}天 ")).unwrap_or_default(),
                kind_zh(&e.kind),
                if e.source == "auto" {
                    "（自动）"
                } else {
                    "（法官）"
                },
                e.reason,
                if e.removed { "（已撤销）" } else { "" }
            );
        }
    }
    s
}

/// A ledger entry's kind in Chinese.
pub fn kind_zh(kind: &str) -> &'static str {
    match kind {
        "warning" => "警告",
        "blue_card" => "蓝牌",
        "yellow_card" => "黄牌",
        "red_card" => "红牌",
        "lurk" => "潜水",
        _ => "记录",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::rules::ledger::{standings, Entry};

    #[test]
    fn the_ledger_lists_struck_out_entries_as_such() {
        let e = |id: &str, kind: &str, removed: bool| Entry {
            id: id.into(),
            player: "乙".into(),
            kind: kind.into(),
            day: Some(2),
            reason: "潜水".into(),
            source: "judge".into(),
            at: String::new(),
            removed,
            duties: 0,
            withdrawn: false,
        };
        let entries = vec![e("1", "warning", false), e("2", "yellow_card", true)];
        let rules = crate::domain::config::DisciplineRules {
            warnings_to_replace: Some(2),
            duties_to_replace: None,
        };
        let s = standings(&entries, &["乙".to_string()], &rules);
        let text = ledger(&entries, &s);
        assert!(text.contains("乙：警告 1"), "{text}");
        assert!(
            text.contains("  第2天 黄牌（法官）：潜水（已撤销）"),
            "{text}"
        );
    }
}
