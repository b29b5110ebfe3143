//! jiaohui's role lottery, 差额排序法 (seed 001 §4.3): each player sends a 5-digit number
//! (20000–99999); the judge gives a seed (5000–15000); each number modulo the seed gives a
//! remainder; remainders sorted ascending (ties: earlier submission first) take the roles in the
//! listed order. Pure, and it shows its working so players can check it after the game.

use serde::Serialize;

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub player: String,
    pub number: u32,
    /// Submission time, as written (sortable: "2026-11-20 20:03:11").
    pub at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Drawn {
    pub player: String,
    pub number: u32,
    pub remainder: u32,
    pub at: String,
    pub role: String,
}

/// jiaohui's role order for 18 players (seed 001 L141).
pub const JIAOHUI_ROLES: [&str; 18] = [
    "黑暗领主",
    "吟游诗人",
    "恶魔之子",
    "异教徒",
    "异教徒",
    "异教徒",
    "十字军剑士",
    "十字军剑士",
    "十字军剑士",
    "僧侣",
    "僧侣",
    "僧侣",
    "僧侣",
    "僧侣",
    "僧侣",
    "僧侣",
    "僧侣",
    "僧侣",
];

/// The faction of a jiaohui role.
pub fn jiaohui_faction(role: &str) -> &'static str {
    match role {
        "黑暗领主" | "恶魔之子" | "异教徒" => "异教徒",
        _ => "教会",
    }
}

/// Draw. Errors (in Chinese) say which entry is wrong.
pub fn draw(entries: &[Entry], seed: u32, roles: &[String]) -> Result<Vec<Drawn>, String> {
    if !(5000..=15000).contains(&seed) {
        return Err(format!("种子数字 {seed} 不在 5000–15000 之间"));
    }
    if entries.len() != roles.len() {
        return Err(format!(
            "有 {} 名玩家，但有 {} 个身份",
            entries.len(),
            roles.len()
        ));
    }
    for e in entries {
        if !(20000..=99999).contains(&e.number) {
            return Err(format!(
                "{} 的抽签数字 {} 不在 20000–99999 之间",
                e.player, e.number
            ));
        }
        if let Some(other) = entries
            .iter()
            .find(|o| o.number == e.number && o.player != e.player)
        {
            return Err(format!(
                "{} 与 {} 的抽签数字重复（{}），需重新提交",
                e.player, other.player, e.number
            ));
        }
    }
    let mut rows: Vec<(u32, &Entry)> = entries.iter().map(|e| (e.number % seed, e)).collect();
    rows.sort_by(|a, b| (a.0, &a.1.at).cmp(&(b.0, &b.1.at)));
    Ok(rows
        .into_iter()
        .zip(roles)
        .map(|((remainder, e), role)| Drawn {
            player: e.player.clone(),
            number: e.number,
            remainder,
            at: e.at.clone(),
            role: role.clone(),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remainders_ascending_ties_by_time() {
        let e = |p: &str, n: u32, at: &str| Entry {
            player: p.into(),
            number: n,
            at: at.into(),
        };
        // seed 7000: 56987 % 7000 = 987; 21000 % 7000 = 0; 28001 % 7000 = 1; 35987 % 7000 = 987.
        let entries = [
            e("大灰狼", 56987, "2026-11-20 20:03:11"),
            e("小飞", 21000, "2026-11-20 20:05:42"),
            e("李逵", 28001, "2026-11-20 20:09:03"),
            e("花千树", 35987, "2026-11-20 20:01:00"),
        ];
        let roles: Vec<String> = ["黑暗领主", "吟游诗人", "恶魔之子", "异教徒"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let d = draw(&entries, 7000, &roles).unwrap();
        let got: Vec<(&str, u32, &str)> = d
            .iter()
            .map(|x| (x.player.as_str(), x.remainder, x.role.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("小飞", 0, "黑暗领主"),
                ("李逵", 1, "吟游诗人"),
                ("花千树", 987, "恶魔之子"),
                ("大灰狼", 987, "异教徒")
            ]
        );
        assert!(draw(&entries, 4000, &roles).unwrap_err().contains("5000"));
        let dup = [e("甲", 30000, "1"), e("乙", 30000, "2")];
        assert!(draw(&dup, 7000, &roles[..2]).unwrap_err().contains("重复"));
        assert_eq!(JIAOHUI_ROLES.len(), 18);
        assert_eq!(jiaohui_faction("恶魔之子"), "异教徒");
    }
}
