//! Night actions in the players' own words (a private message to the judge, a QQ message):
//! `杀人：宋江 炮架子：吴用`, `祈祷：李逵`, `查验 林冲`, and, for a move, `向东` / `往北走`.
//! Pure: text in, actions out. A power word is whatever stands before the target; the resolver
//! refuses one its rule post does not have, with the reason, so nothing is guessed here. A
//! message that names no known player and no move is returned as unread, for the judge.

use super::Action;
use crate::config::GameConfig;
use chrono::{DateTime, FixedOffset};

/// The actions a message reads as, or none (then the judge is shown the message).
pub fn actions_in(
    game: &GameConfig,
    from: &str,
    text: &str,
    sent_at: Option<DateTime<FixedOffset>>,
    source: &str,
) -> Vec<Action> {
    let mut out: Vec<Action> = Vec::new();
    for part in text.split(['\n', '；', ';', '，', ',', '。']) {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        // chuhan 000 L97 "所有玩家夜间都可以放弃行使当夜特权": "放弃" (all of the night's),
        // "放弃：杀人" (that power), in the player's words.
        if let Some(given_up) = give_up(part) {
            out.push(action(from, "放弃", given_up, sent_at, source));
            continue;
        }
        if let Some(dir) = direction(part).or_else(|| worded_move(part)) {
            out.push(action(from, "移动", Some(dir.to_string()), sent_at, source));
            continue;
        }
        let Some((power, target)) = power_and_target(game, part) else {
            continue;
        };
        if power == "炮架子" || power == "架子" {
            if let Some(kill) = out.iter_mut().rev().find(|a| a.platform.is_none()) {
                kill.platform = Some(target);
                continue;
            }
        }
        out.push(action(from, &power, Some(target), sent_at, source));
    }
    out
}

fn action(
    from: &str,
    power: &str,
    target: Option<String>,
    sent_at: Option<DateTime<FixedOffset>>,
    source: &str,
) -> Action {
    Action {
        by: vec![from.to_string()],
        power: power.to_string(),
        target,
        platform: None,
        sent_at,
        source: source.to_string(),
    }
}

/// `杀人：宋江`, `杀人:宋江`, `查验 林冲`: a power word of one to six characters, then a player
/// of the roster (or an alias of one).
fn power_and_target(game: &GameConfig, part: &str) -> Option<(String, String)> {
    let (power, rest) = match part.split_once(['：', ':']) {
        Some((p, r)) => (p.trim(), r.trim()),
        None => {
            let (p, r) = part.split_once(char::is_whitespace)?;
            (p.trim(), r.trim())
        }
    };
    let n = power.chars().count();
    if n == 0 || n > 6 || rest.is_empty() {
        return None;
    }
    let target = player(game, rest)?;
    Some((power.to_string(), target))
}

/// The roster player `name` means (exactly, or by an alias).
pub(super) fn player(game: &GameConfig, name: &str) -> Option<String> {
    let name = name.trim_matches(|c: char| c.is_whitespace() || "「」“”\"'【】[]".contains(c));
    if game.roster.players.iter().any(|p| p == name) {
        return Some(name.to_string());
    }
    game.roster
        .aliases
        .iter()
        .find(|(_, names)| names.iter().any(|a| a == name))
        .map(|(p, _)| p.clone())
}

/// A message giving up the night's powers: `Some(None)` all of them ("放弃", "今晚放弃",
/// "放弃行动"), `Some(Some(power))` one ("放弃：杀人", "放弃杀人").
fn give_up(part: &str) -> Option<Option<String>> {
    let mut bare = part.trim_start_matches(['我']);
    for when in ["今晚", "今夜", "本夜", "当夜"] {
        bare = bare.strip_prefix(when).unwrap_or(bare);
    }
    let bare = bare.trim_end_matches(['。', '！', '!', '.']);
    let rest = bare
        .strip_prefix("放弃")?
        .trim_start_matches(['：', ':', ' ']);
    const ALL: [&str; 8] = [
        "",
        "行动",
        "特权",
        "技能",
        "本夜行动",
        "今晚行动",
        "当夜特权",
        "夜间行动",
    ];
    if ALL.contains(&rest) {
        return Some(None);
    }
    (rest.chars().count() <= 4 && !rest.chars().any(char::is_whitespace))
        .then(|| Some(rest.to_string()))
}

/// A move written as a move word and its direction: "移动：东", "移动 西北", "行动:南" (the words
/// the resolver takes for 移动, qipan 003 L114 "发移动").
fn worded_move(part: &str) -> Option<&str> {
    let (word, rest) = part
        .split_once(['：', ':'])
        .or_else(|| part.split_once(char::is_whitespace))?;
    ["移动", "移", "走", "行动", "方向", "移动方向"]
        .contains(&word.trim())
        .then(|| direction(rest.trim()))
        .flatten()
}

/// A move in the player's own words: 向东, 东, 往北走, 向东南 (killers move diagonally).
fn direction(part: &str) -> Option<&str> {
    let bare = part
        .trim_start_matches(['向', '往', '朝'])
        .trim_end_matches(['走', '移', '行', '。'])
        .trim();
    const DIRS: [&str; 12] = [
        "东北", "东南", "西北", "西南", "北东", "南东", "北西", "南西", "东", "南", "西", "北",
    ];
    (part.chars().count() <= 5 && DIRS.contains(&bare)).then_some(part)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> GameConfig {
        crate::config::parse_str(
            "ruleset = \"chuhan\"\nname = \"t\"\n[roster]\nplayers = [\"宋江\", \"吴用\", \"李逵\"]\n\
             [roster.aliases]\n\"李逵\" = [\"黑旋风\"]\n",
            std::path::Path::new("t.toml"),
        )
        .unwrap()
    }

    #[test]
    fn a_kill_with_its_platform_a_prayer_and_a_move_read_as_actions() {
        let g = game();
        let a = actions_in(
            &g,
            "宋江",
            "杀人：吴用 \n炮架子：黑旋风",
            None,
            "短消息 pmid 1",
        );
        assert_eq!(a.len(), 1, "{a:?}");
        assert_eq!(a[0].power, "杀人");
        assert_eq!(a[0].target.as_deref(), Some("吴用"));
        assert_eq!(a[0].platform.as_deref(), Some("李逵"));
        let a = actions_in(&g, "宋江", "祈祷 李逵", None, "x");
        assert_eq!(
            (a[0].power.as_str(), a[0].target.as_deref()),
            ("祈祷", Some("李逵"))
        );
        let a = actions_in(&g, "宋江", "往北走", None, "x");
        assert_eq!(
            (a[0].power.as_str(), a[0].target.as_deref()),
            ("移动", Some("往北走"))
        );
    }

    /// qipan 003 L114 "所有存活的好人给法官发移动", in the player's own words: a move written as
    /// the power and its direction ("移动：东", "移动 西北", "行动:南") is a move, as "向东" is;
    /// a power word before a direction that is not a move stays unread.
    #[test]
    fn a_move_written_as_the_power_and_a_direction_is_a_move() {
        let g = game();
        for (text, dir) in [
            ("移动：东", "东"),
            ("移动 西北", "西北"),
            ("行动:南", "南"),
            ("移动：向北", "向北"),
        ] {
            let a = actions_in(&g, "宋江", text, None, "x");
            assert_eq!(a.len(), 1, "{text}: {a:?}");
            assert_eq!(
                (a[0].power.as_str(), a[0].target.as_deref()),
                ("移动", Some(dir)),
                "{text}"
            );
        }
        assert!(actions_in(&g, "宋江", "杀人：东", None, "x").is_empty());
    }

    /// 000 L97 "所有玩家夜间都可以放弃行使当夜特权": the resolver withdraws what was sent before.
    #[test]
    fn giving_up_is_read_as_an_action() {
        let g = game();
        let a = actions_in(&g, "宋江", "今晚放弃。", None, "x");
        assert_eq!(
            (a[0].power.as_str(), a[0].target.as_deref()),
            ("放弃", None)
        );
        let a = actions_in(&g, "宋江", "放弃：杀人", None, "x");
        assert_eq!(
            (a[0].power.as_str(), a[0].target.as_deref()),
            ("放弃", Some("杀人"))
        );
        assert!(actions_in(&g, "宋江", "放弃什么呢法官我还在想今晚的事", None, "x").is_empty());
    }

    #[test]
    fn a_message_naming_no_player_reads_as_nothing() {
        let g = game();
        assert!(actions_in(&g, "宋江", "法官你好，今晚我不行动了吗？", None, "x").is_empty());
        assert!(actions_in(&g, "宋江", "杀人：路人甲", None, "x").is_empty());
    }
}
