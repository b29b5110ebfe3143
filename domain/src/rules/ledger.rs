//! The discipline ledger: warnings (chuhan, jiaohui: 2 → replacement), m103's cards (3 blue → 1
//! yellow, 3 yellow → 1 red), lurk days. Entries come from the daemon (automatic, e.g. a lurk
//! verdict at a close) or from the judge; the judge can strike any entry out. Pure: the store
//! keeps the entries, this module sums them up.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Entry {
    /// Stable id (the store key's last part).
    pub id: String,
    pub player: String,
    /// "warning", "blue_card", "yellow_card", "red_card", "lurk".
    pub kind: String,
    pub day: Option<u32>,
    pub reason: String,
    /// "auto" or "judge".
    pub source: String,
    pub at: String,
    /// Struck out by the judge.
    #[serde(default)]
    pub removed: bool,
    /// The day's duties this entry records as missed (qipan counts them per day; 0 in
    /// entries written before it was kept, read as 1).
    #[serde(default)]
    pub duties: u32,
    /// Struck out by the daemon itself, when a count made again (a ruling, a moved close) no
    /// longer found it; a later count that finds it again brings it back. The judge's own
    /// strikes are never undone.
    #[serde(default)]
    pub withdrawn: bool,
}

/// A day's automatic entries counted again (`fresh`, all with ids starting `prefix`) against
/// those already kept: the entries to write. New ones are added; ones the daemon withdrew and
/// found again come back; kept live ones no longer found are withdrawn; the judge's strikes
/// and entries stand.
pub fn recount(existing: &[Entry], fresh: &[Entry], prefix: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    for f in fresh {
        match existing.iter().find(|e| e.id == f.id) {
            None => out.push(f.clone()),
            Some(e) if e.removed && e.withdrawn => out.push(f.clone()),
            // Counted again with more (or fewer) duties or other reasons: a night move the
            // judge recorded after the close (qipan 003 L136).
            Some(e)
                if !e.removed
                    && (e.duties != f.duties || e.reason != f.reason || e.kind != f.kind) =>
            {
                out.push(f.clone())
            }
            Some(_) => {}
        }
    }
    for e in existing.iter().filter(|e| {
        e.source == "auto"
            && e.id.starts_with(prefix)
            && !e.removed
            && !fresh.iter().any(|f| f.id == e.id)
    }) {
        out.push(Entry {
            removed: true,
            withdrawn: true,
            reason: format!(
                "{}（重新统计后不再成立）",
                e.reason.trim_end_matches("（重新统计后不再成立）")
            ),
            ..e.clone()
        });
    }
    out
}

pub const KINDS: [&str; 5] = ["warning", "blue_card", "yellow_card", "red_card", "lurk"];

/// One player's standing.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Standing {
    pub player: String,
    pub warnings: u32,
    pub blue: u32,
    pub yellow: u32,
    pub red: u32,
    pub lurk: u32,
    /// What the rules say follows, in Chinese (empty when nothing).
    pub consequence: String,
    /// The days whose missed duties reach `duties_to_replace` (qipan: 潜水 and replacement),
    /// with how many were missed.
    pub replaced_days: Vec<(u32, u32)>,
}

/// Whether an entry records duties missed on its day (`duties_to_replace`): the automatic
/// ones (潜水 verdicts, round 2's vote), and the judge's warnings for a day — in a game that
/// counts duties a warning is what one missed duty costs (qipan 003 L136 "如果1个环节没有完成，
/// 警告"), such as a night move recorded by hand after the close.
fn records_duties(e: &Entry) -> bool {
    e.day.is_some() && (e.source == "auto" || e.kind == "warning")
}

/// Sum the live entries per player. Cards promote: 3 blue → 1 yellow, 3 yellow → 1 red.
/// `rules.warnings_to_replace`: warnings after which the player is replaced (chuhan, jiaohui:
/// 2); `rules.duties_to_replace`: duties missed on one day after which the player counts as
/// 潜水 and is replaced (qipan: 2).
pub fn standings(
    entries: &[Entry],
    players: &[String],
    rules: &crate::config::DisciplineRules,
) -> Vec<Standing> {
    let warnings_to_replace = rules.warnings_to_replace;
    let mut out = Vec::new();
    for p in players {
        let live: Vec<&Entry> = entries
            .iter()
            .filter(|e| &e.player == p && !e.removed)
            .collect();
        let n = |k: &str| live.iter().filter(|e| e.kind == k).count() as u32;
        let mut blue = n("blue_card");
        let mut yellow = n("yellow_card") + blue / 3;
        blue %= 3;
        let red = n("red_card") + yellow / 3;
        yellow %= 3;
        let warnings = n("warning");
        let lurk = n("lurk");
        let mut consequence = Vec::new();
        if red > 0 {
            consequence.push("红牌：罚下".to_string());
        }
        if let Some(limit) = warnings_to_replace {
            if warnings >= limit {
                consequence.push(format!("已累计 {warnings} 次警告：按规则替换"));
            }
        }
        let mut replaced_days = Vec::new();
        if let Some(limit) = rules.duties_to_replace {
            let mut per_day: std::collections::BTreeMap<u32, u32> = Default::default();
            for e in live.iter().filter(|e| records_duties(e)) {
                if let Some(day) = e.day {
                    *per_day.entry(day).or_default() += e.duties.max(1);
                }
            }
            for (day, n) in per_day.into_iter().filter(|(_, n)| *n >= limit) {
                consequence.push(format!(
                    "第 {day} 天 {n} 个环节没有完成：按潜水论处，按规则换人"
                ));
                replaced_days.push((day, n));
            }
        }
        if !entries.iter().any(|e| &e.player == p) {
            continue;
        }
        out.push(Standing {
            player: p.clone(),
            warnings,
            blue,
            yellow,
            red,
            lurk,
            consequence: consequence.join("；"),
            replaced_days,
        });
    }
    out
}

/// What the ledger decides of each player with entries, as the judge was told it: what follows
/// (`Standing::consequence`) and the days a 潜水 verdict of the daemon's stands. A recording
/// that changes it (a night move listed after the close, an entry added or struck out by hand)
/// is mailed to the judge as a corrected ledger.
pub fn verdicts(
    entries: &[Entry],
    standings: &[Standing],
) -> std::collections::BTreeMap<String, String> {
    standings
        .iter()
        .map(|st| {
            let mut days: Vec<u32> = entries
                .iter()
                .filter(|e| e.player == st.player && e.source == "auto" && !e.removed)
                .filter_map(|e| e.day)
                .collect();
            days.sort_unstable();
            days.dedup();
            let days: Vec<String> = days.iter().map(|d| format!("第 {d} 天")).collect();
            let mut v = st.consequence.clone();
            if !days.is_empty() {
                if !v.is_empty() {
                    v.push('；');
                }
                v.push_str(&format!("潜水记录：{}", days.join("、")));
            }
            (st.player.clone(), v)
        })
        .collect()
}

/// The automatic ledger entries of a day's 潜水 verdicts: one per lurker, of the kind the rules
/// give (`[lurk] penalty`: a yellow card, a 潜水 or a warning), with the reasons.
pub fn lurk_entries(
    g: &crate::config::GameConfig,
    day: u32,
    lurk: &crate::rules::lurk::LurkReport,
    now: chrono::DateTime<chrono::FixedOffset>,
) -> Vec<Entry> {
    let kind = match g.rules.lurk.penalty.as_str() {
        "yellow_card" => "yellow_card",
        "lurk" => "lurk",
        _ => "warning",
    };
    lurk.players
        .iter()
        .filter(|p| p.verdict == crate::rules::lurk::Verdict::Lurk)
        .map(|p| Entry {
            id: format!("auto-lurk-d{day}-{}", p.player),
            player: p.player.clone(),
            kind: kind.into(),
            day: Some(day),
            reason: format!("潜水：{}", p.reasons.join("；")),
            source: "auto".into(),
            at: now.to_rfc3339(),
            removed: false,
            duties: p.reasons.len().max(1) as u32,
            withdrawn: false,
        })
        .collect()
}

/// The automatic ledger entries of a closed round 2 where every living player must vote
/// (chuhan L118, qipan L136): one per living player with no ballot standing, of the kind the
/// rules give a missed duty.
pub fn runoff_entries(
    g: &crate::config::GameConfig,
    tally: &crate::rules::Tally,
    now: chrono::DateTime<chrono::FixedOffset>,
) -> Vec<Entry> {
    if !g.rules.lurk.must_vote || !tally.closed || tally.round != 2 {
        return Vec::new();
    }
    let kind = match g.rules.lurk.penalty.as_str() {
        "yellow_card" => "yellow_card",
        "lurk" => "lurk",
        _ => "warning",
    };
    let day = tally.day;
    tally
        .non_voters
        .iter()
        .map(|n| Entry {
            id: format!("auto-lurk-d{day}r2-{}", n.player),
            player: n.player.clone(),
            kind: kind.into(),
            day: Some(day),
            // A void ballot is no vote; what it was is said, for the judge to weigh.
            reason: match tally
                .ballots
                .iter()
                .rfind(|b| b.voter == n.player && !b.valid)
            {
                Some(b) => format!("潜水：第二轮没有有效投票（{} {}）", b.floor, b.reason),
                None => "潜水：第二轮没有投票".into(),
            },
            source: "auto".into(),
            at: now.to_rfc3339(),
            removed: false,
            duties: 1,
            withdrawn: false,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(id: &str, player: &str, kind: &str) -> Entry {
        Entry {
            id: id.into(),
            player: player.into(),
            kind: kind.into(),
            day: Some(2),
            reason: "r".into(),
            source: "judge".into(),
            at: String::new(),
            removed: false,
            duties: 0,
            withdrawn: false,
        }
    }

    fn replace_after(n: u32) -> crate::config::DisciplineRules {
        crate::config::DisciplineRules {
            warnings_to_replace: Some(n),
            duties_to_replace: None,
        }
    }

    /// qipan 003 L136: duties missed on one day add up; on different days they do not.
    #[test]
    fn two_duties_missed_on_one_day_are_lurking() {
        let rules = crate::config::DisciplineRules {
            warnings_to_replace: None,
            duties_to_replace: Some(2),
        };
        let auto = |id: &str, day: u32, duties: u32| Entry {
            source: "auto".into(),
            day: Some(day),
            duties,
            ..e(id, "甲", "warning")
        };
        let players = vec!["甲".to_string()];
        // One entry of round 1 naming the vote and the night move (2 duties).
        let s = standings(&[auto("a", 2, 2)], &players, &rules);
        assert!(
            s[0].consequence.contains("第 2 天 2 个环节没有完成"),
            "{s:?}"
        );
        // Round 1's vote (an entry written before duties were kept: 0, read as 1) and round 2's.
        let s = standings(&[auto("a", 2, 0), auto("b", 2, 1)], &players, &rules);
        assert!(s[0].consequence.contains("按潜水论处"), "{s:?}");
        // One duty on day 2 and one on day 3: two warnings, no 潜水.
        let s = standings(&[auto("a", 2, 1), auto("b", 3, 1)], &players, &rules);
        assert_eq!((s[0].warnings, s[0].consequence.as_str()), (2, ""), "{s:?}");
        // Struck-out entries, and the judge's entries with no day or not a warning, do not
        // count as duties.
        let mut struck = auto("b", 2, 1);
        struck.removed = true;
        let undated = Entry {
            day: None,
            ..e("c", "甲", "warning")
        };
        let s = standings(
            &[auto("a", 2, 1), struck, undated, e("d", "甲", "blue_card")],
            &players,
            &rules,
        );
        assert_eq!(s[0].consequence, "", "{s:?}");
        // A warning the judge adds for the day (a night move missed, recorded by hand after the
        // close) is a second duty of that day (issue 29 item 5).
        let s = standings(
            &[auto("a", 2, 1), e("c", "甲", "warning")],
            &players,
            &rules,
        );
        assert!(
            s[0].consequence.contains("第 2 天 2 个环节没有完成"),
            "{s:?}"
        );
        assert_eq!(s[0].replaced_days, [(2, 2)], "{s:?}");
    }

    /// A count made again: new entries added, lost ones withdrawn, found-again ones back, the
    /// judge's strikes kept.
    #[test]
    fn a_recount_withdraws_restores_and_keeps_the_judges_strikes() {
        let auto = |id: &str, player: &str| Entry {
            source: "auto".into(),
            ..e(id, player, "warning")
        };
        let kept = vec![
            auto("auto-lurk-d2-甲", "甲"),
            auto("auto-lurk-d2r2-乙", "乙"),
        ];
        // 甲 no longer lurks; 丙 now does; round 2's entry is not this count's.
        let fresh = vec![auto("auto-lurk-d2-丙", "丙")];
        let w = recount(&kept, &fresh, "auto-lurk-d2-");
        assert_eq!(w.len(), 2, "{w:?}");
        assert_eq!(w[0].id, "auto-lurk-d2-丙");
        assert!(w[1].removed && w[1].withdrawn && w[1].reason.ends_with("（重新统计后不再成立）"));
        // Counted back: 甲 returns.
        let after = vec![w[1].clone(), w[0].clone(), kept[1].clone()];
        let w = recount(&after, &[auto("auto-lurk-d2-甲", "甲")], "auto-lurk-d2-");
        assert!(
            w.iter().any(|x| x.id == "auto-lurk-d2-甲" && !x.removed),
            "{w:?}"
        );
        assert!(
            w.iter().any(|x| x.id == "auto-lurk-d2-丙" && x.withdrawn),
            "{w:?}"
        );
        // Counted again with one more duty (a night move recorded after the close): updated.
        let more = Entry {
            duties: 2,
            reason: "潜水：没有投票；没有移动".into(),
            ..auto("auto-lurk-d2-甲", "甲")
        };
        let w = recount(
            &[auto("auto-lurk-d2-甲", "甲")],
            std::slice::from_ref(&more),
            "auto-lurk-d2-",
        );
        assert_eq!(w, [more], "{w:?}");
        // The judge struck 甲's entry: a recount finding it again leaves it struck.
        let mut judged = auto("auto-lurk-d2-甲", "甲");
        judged.removed = true;
        assert!(recount(&[judged], &[auto("auto-lurk-d2-甲", "甲")], "auto-lurk-d2-").is_empty());
    }

    #[test]
    fn cards_promote_and_warnings_replace() {
        let players = vec!["甲".to_string(), "乙".to_string(), "丙".to_string()];
        let mut entries = vec![
            e("1", "甲", "blue_card"),
            e("2", "甲", "blue_card"),
            e("3", "甲", "blue_card"),
            e("4", "甲", "yellow_card"),
            e("5", "甲", "yellow_card"),
            e("6", "乙", "warning"),
            e("7", "乙", "warning"),
        ];
        let s = standings(&entries, &players, &replace_after(2));
        assert_eq!(
            (s[0].blue, s[0].yellow, s[0].red),
            (0, 0, 1),
            "3 blue → yellow; 3 yellow → red"
        );
        assert!(s[0].consequence.contains("罚下"));
        assert!(s[1].consequence.contains("替换"));
        assert_eq!(s.len(), 2, "丙 has no entries");
        entries[6].removed = true;
        let s = standings(&entries, &players, &replace_after(2));
        assert_eq!(s[1].warnings, 1);
        entries[5].removed = true;
        let s = standings(&entries, &players, &replace_after(2));
        assert_eq!(
            s[1].warnings, 0,
            "struck-out entries are still listed, not counted"
        );
        assert!(s[1].consequence.is_empty());
    }
}
