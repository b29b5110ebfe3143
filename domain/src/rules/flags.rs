//! Posts the judge should look at: what the rule posts forbid but only the judge can rule on
//! (red or enlarged font, a player out or a spectator posting in the game's threads, a large
//! quote, a watched word). Judge-only: never in public output. Pure.

use crate::config::{DayConfig, GameConfig};
use bansha_parsers::Post;
use serde::Serialize;

/// One flagged post, with why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Flag {
    pub tid: u64,
    pub pid: u64,
    /// The thread, for the judge ("投票帖", "讨论帖 tid 4").
    pub thread: String,
    pub floor: String,
    pub author: String,
    /// Why, in Chinese ("红色字体").
    pub what: String,
}

/// The flags of day `d` among `posts` (the day's game threads, as the record has them): posts
/// in the day's window, in thread and floor order, each with every reason that applies.
pub fn flags(config: &GameConfig, d: &DayConfig, posts: &[Post]) -> Vec<Flag> {
    let rules = &config.rules.flags;
    let (from, to) = crate::rules::lurk::window(config, d);
    let roster = &config.roster;
    let mut out = Vec::new();
    for p in posts {
        let inside = p
            .posted_at
            .is_none_or(|t| from.is_none_or(|f| t > f) && t <= to);
        if !inside || roster.judges.contains(&p.author) {
            continue;
        }
        let mut what: Vec<String> = Vec::new();
        if rules.red_font && p.red_font {
            what.push("红色字体".into());
        }
        if rules.large_font && p.large_font {
            what.push("放大字体".into());
        }
        let player = roster.players.contains(&p.author);
        if rules.dead_players && player && d.dead.contains(&p.author) {
            what.push("已出局的玩家在游戏帖发言".into());
        }
        if rules.spectators && !player {
            what.push("不是本局玩家（旁观者？替补请加入名单）".into());
        }
        if let Some(max) = rules.max_quote_chars {
            if let Some(q) = p.quotes.iter().find(|q| q.text.chars().count() > max) {
                what.push(format!(
                    "大段引用（{} 字{}）",
                    q.text.chars().count(),
                    q.author
                        .as_ref()
                        .map(|a| format!("，引用 {a}"))
                        .unwrap_or_default()
                ));
            }
        }
        let said: Vec<&String> = rules
            .keywords
            .iter()
            .filter(|k| !k.is_empty() && p.text.contains(k.as_str()))
            .collect();
        if !said.is_empty() {
            what.push(format!(
                "提到 {}",
                said.iter()
                    .map(|k| format!("“{k}”"))
                    .collect::<Vec<_>>()
                    .join("、")
            ));
        }
        if !what.is_empty() {
            let thread = if d.vote_thread == Some(p.tid) {
                "投票帖".to_string()
            } else if d.progress_thread == Some(p.tid) {
                "进程帖".to_string()
            } else {
                format!("讨论帖 tid {}", p.tid)
            };
            out.push(Flag {
                tid: p.tid,
                pid: p.pid,
                thread,
                floor: p.floor.clone(),
                author: p.author.clone(),
                what: what.join("；"),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(flags: &str) -> GameConfig {
        let text = include_str!("../../../config/examples/banshayishi-12.toml").to_string()
            + "\n[rules.flags]\n"
            + flags;
        crate::game::load_str(&text, std::path::Path::new("game.toml")).unwrap()
    }

    fn post(pid: u64, author: &str, text: &str, quote: Option<&str>) -> Post {
        let at = crate::time::parse_local_time(
            "2026-11-29 12:00",
            chrono::FixedOffset::east_opt(8 * 3600).unwrap(),
        )
        .ok();
        Post {
            quotes: quote
                .map(|q| {
                    vec![bansha_parsers::Quote {
                        author: Some("李逵".into()),
                        pid: None,
                        posted_at: None,
                        text: q.into(),
                    }]
                })
                .unwrap_or_default(),
            ..Post::text_only(pid, 4, format!("{pid}#"), author.into(), at, text.into())
        }
    }

    /// chuhan L124 (spectators), L133 (large quotes), qipan L85 (item talk as the judge's
    /// words); judges are never flagged, and nothing is flagged where the rules ask nothing.
    #[test]
    fn spectators_large_quotes_and_watched_words_are_flagged() {
        let long = "长".repeat(151);
        let posts = vec![
            post(1, "路人甲", "我觉得李逵是狼", None),
            post(2, "大灰狼", "同意", Some(&long)),
            post(3, "小飞", "我昨晚捡到一个道具", None),
            post(4, "版杀一室法官", "道具规则说明", None),
            post(5, "冷雪", "普通发言", Some("短引用")),
        ];
        let g = game("spectators = true\nmax_quote_chars = 150\nkeywords = [\"道具\"]\n");
        let d = g.day(2).unwrap();
        let f = flags(&g, d, &posts);
        let got: Vec<(u64, &str)> = f.iter().map(|x| (x.pid, x.what.as_str())).collect();
        assert_eq!(
            got,
            [
                (1, "不是本局玩家（旁观者？替补请加入名单）"),
                (2, "大段引用（151 字，引用 李逵）"),
                (3, "提到 “道具”"),
            ]
        );
        assert_eq!(f[0].thread, "讨论帖 tid 4");
        let quiet = game("");
        assert!(flags(&quiet, quiet.day(2).unwrap(), &posts).is_empty());
    }
}
