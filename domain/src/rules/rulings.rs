//! The judge's rulings on single ballots: count a post (a malformed ballot, or a valid one for
//! someone else) as a vote for a named player, or void a valid one — by pid, with a reason. The
//! record keeps them (`io::store`, under the game's id), undoable; the daemon's tally applies
//! them (`tally::tally_ruled`), and the public tally shows each as 法官裁定 with its reason.

use serde::{Deserialize, Serialize};

/// One ruling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ruling {
    /// "r" and the milliseconds it was made at: what `--remove` names.
    pub id: String,
    pub day: u32,
    /// The post (or private message) ruled on.
    pub pid: u64,
    /// Count it as a vote for this player (or 弃权); `None`: void it.
    pub count_for: Option<String>,
    pub reason: String,
    /// When it was made (RFC 3339).
    pub at: String,
    /// Undone (kept, struck out).
    #[serde(default)]
    pub removed: bool,
}

impl Ruling {
    /// What it does, in Chinese: "按投 李逵 计" / "作废".
    pub fn zh(&self) -> String {
        match &self.count_for {
            Some(t) => format!("按投 {t} 计"),
            None => "作废".into(),
        }
    }
}

/// The rulings in force for `day`: the last one per pid that is not undone.
pub fn in_force(rulings: &[Ruling], day: u32) -> Vec<Ruling> {
    let mut out: Vec<Ruling> = Vec::new();
    for r in rulings.iter().filter(|r| r.day == day && !r.removed) {
        out.retain(|o| o.pid != r.pid);
        out.push(r.clone());
    }
    out
}

/// A fingerprint of the rulings on day `day` (live and undone alike): a final records it, and
/// a different one later means that final no longer says what the rulings do.
pub fn print(rulings: &[Ruling], day: u32) -> String {
    let mut ids: Vec<String> = rulings
        .iter()
        .filter(|r| r.day == day)
        .map(|r| format!("{}{}", r.id, if r.removed { "-" } else { "" }))
        .collect();
    ids.sort();
    ids.join(",")
}

/// What changed on day `day` since the fingerprint `before` ([`print`]), in Chinese: rulings
/// made since, and rulings undone since.
pub fn changes(rulings: &[Ruling], day: u32, before: &str) -> String {
    let before: Vec<&str> = before.split(',').filter(|x| !x.is_empty()).collect();
    let mut out = Vec::new();
    for r in rulings.iter().filter(|r| r.day == day) {
        let was_live = before.contains(&r.id.as_str());
        let was_undone = before.contains(&format!("{}-", r.id).as_str());
        let what = format!("pid {} {}（{}）", r.pid, r.zh(), r.reason);
        match (r.removed, was_live || was_undone) {
            (false, false) => out.push(format!("新裁定 {what}")),
            (true, false) => out.push(format!("新裁定后又撤销 {what}")),
            (true, true) if was_live => out.push(format!("撤销裁定 {what}")),
            _ => {}
        }
    }
    if out.is_empty() {
        "裁定有变".into()
    } else {
        out.join("；")
    }
}

/// The judge's list, one line each, for the CLI and the dashboard.
pub fn lines(rulings: &[Ruling]) -> String {
    if rulings.is_empty() {
        return "（没有法官裁定）\n".into();
    }
    rulings
        .iter()
        .map(|r| {
            format!(
                "{}{} 第{}天 pid {}：{}（{}）{}\n",
                if r.removed { "[已撤销] " } else { "" },
                r.id,
                r.day,
                r.pid,
                r.zh(),
                r.reason,
                r.at.get(..16).unwrap_or(&r.at).replace('T', " ")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_print_changes_with_a_ruling_and_its_undoing_and_says_which() {
        let mut all = vec![r("r1", 2, 98, Some("李逵"), false)];
        let before = print(&all, 2);
        assert_eq!(
            print(&all, 3),
            "",
            "another day's rulings are not this day's"
        );
        all.push(r("r2", 2, 99, None, false));
        let after = print(&all, 2);
        assert_ne!(before, after);
        assert_eq!(changes(&all, 2, &before), "新裁定 pid 99 作废（理由）");
        all[0].removed = true;
        assert_eq!(
            changes(&all, 2, &after),
            "撤销裁定 pid 98 按投 李逵 计（理由）"
        );
        assert_ne!(print(&all, 2), after, "an undo is a change");
    }

    fn r(id: &str, day: u32, pid: u64, count_for: Option<&str>, removed: bool) -> Ruling {
        Ruling {
            id: id.into(),
            day,
            pid,
            count_for: count_for.map(String::from),
            reason: "理由".into(),
            at: "2026-11-29T20:00:00+08:00".into(),
            removed,
        }
    }

    #[test]
    fn the_last_ruling_per_post_that_is_not_undone_holds() {
        let all = [
            r("r1", 2, 47, Some("李逵"), false),
            r("r2", 2, 47, None, false),
            r("r3", 2, 48, Some("小飞"), true),
            r("r4", 3, 47, Some("冷雪"), false),
        ];
        let held = in_force(&all, 2);
        assert_eq!(held, [all[1].clone()]);
        assert!(lines(&all).contains("[已撤销] r3 第2天 pid 48：按投 小飞 计（理由）"));
    }
}
