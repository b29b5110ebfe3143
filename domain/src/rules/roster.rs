//! Who a written target means: exact name, then the judge's aliases; near misses are reported,
//! never counted.

use crate::config::GameConfig;
use bansha_parsers::ballot::normalize;

/// What a written target resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// A living player (canonical name).
    Player(String),
    /// An abstain word (弃权, 弃票).
    Abstain,
    /// A player who is out.
    Dead(String),
    /// Close to these players' names (one edit away, a unique prefix, or a name with more text
    /// run into it) — the judge decides.
    Near(Vec<String>),
    /// Several players named in one target.
    Several(Vec<String>),
    /// Nobody in the game.
    NotPlayer,
}

/// The roster as it stands on one day.
pub struct Roster<'a> {
    config: &'a GameConfig,
    dead: &'a [String],
    /// Each player's name folded (`key`), in roster order: folded once a tally, not once for
    /// each roster name at each post.
    player_keys: Vec<String>,
    judge_keys: Vec<String>,
    /// Every (name-as-written folded, player) pair: names and aliases.
    names: Vec<(String, &'a String)>,
}

/// Fold a name for comparison: width, spaces, ASCII case.
pub fn key(name: &str) -> String {
    normalize(name).to_lowercase()
}

const SEPARATORS: &[char] = &[
    ' ', ',', '、', '/', ';', '|', '.', '。', '!', '?', '~', '～', '…', ':', '(', ')', '（', '）',
];

impl<'a> Roster<'a> {
    pub fn new(config: &'a GameConfig, dead: &'a [String]) -> Self {
        let players = &config.roster.players;
        let player_keys: Vec<String> = players.iter().map(|p| key(p)).collect();
        let mut names: Vec<(String, &'a String)> =
            player_keys.iter().cloned().zip(players.iter()).collect();
        for (player, aliases) in &config.roster.aliases {
            if let Some(p) = players.iter().find(|p| *p == player) {
                names.extend(aliases.iter().map(|a| (key(a), p)));
            }
        }
        Roster {
            config,
            dead,
            player_keys,
            judge_keys: config.roster.judges.iter().map(|j| key(j)).collect(),
            names,
        }
    }

    pub fn players(&self) -> &'a [String] {
        &self.config.roster.players
    }

    pub fn is_alive(&self, name: &str) -> bool {
        self.players().iter().any(|p| p == name) && !self.dead.iter().any(|d| d == name)
    }

    pub fn is_judge(&self, name: &str) -> bool {
        let k = key(name);
        self.judge_keys.contains(&k)
    }

    /// The living players, in roster order.
    pub fn alive(&self) -> Vec<&'a String> {
        self.players().iter().filter(|p| self.is_alive(p)).collect()
    }

    /// The player a forum author name is (exact, width- and case-folded), if any.
    pub fn player_named(&self, author: &str) -> Option<&'a String> {
        let k = key(author);
        self.players()
            .iter()
            .zip(&self.player_keys)
            .find(|(_, pk)| **pk == k)
            .map(|(p, _)| p)
    }

    fn found(&self, player: &String) -> Resolved {
        if self.dead.iter().any(|d| d == player) {
            Resolved::Dead(player.clone())
        } else {
            Resolved::Player(player.clone())
        }
    }

    /// Resolve a cleaned target.
    pub fn resolve(&self, written: &str, abstain_words: &[String]) -> Resolved {
        let k = key(written);
        if k.is_empty() {
            return Resolved::NotPlayer;
        }
        if abstain_words.iter().any(|w| key(w) == k) {
            return Resolved::Abstain;
        }
        let names = &self.names;
        if let Some((_, p)) = names.iter().find(|(n, _)| *n == k) {
            return self.found(p);
        }
        // Names contained in the text; a name inside a longer found name does not count.
        let mut contained: Vec<(&str, &String)> = names
            .iter()
            .filter(|(n, _)| k.contains(n.as_str()))
            .map(|(n, p)| (n.as_str(), *p))
            .collect();
        let all = contained.clone();
        contained.retain(|(n, _)| !all.iter().any(|(m, _)| m.len() > n.len() && m.contains(n)));
        let mut players: Vec<&String> = contained.iter().map(|(_, p)| *p).collect();
        players.dedup();
        players.sort();
        players.dedup();
        if players.len() > 1 {
            return Resolved::Several(players.into_iter().cloned().collect());
        }
        if let Some(&(n, p)) = contained.first() {
            // "李逵 他太黑" — the name, a separator, then words: the name is the target.
            if let Some(rest) = k.strip_prefix(n) {
                if rest.starts_with(SEPARATORS) {
                    return self.found(p);
                }
            }
            return Resolved::Near(vec![p.clone()]);
        }
        // One edit away, or a prefix of exactly the names that start with it.
        let mut near: Vec<String> = Vec::new();
        for (n, p) in names {
            let close = strsim::levenshtein(&k, n) == 1
                || (n.starts_with(k.as_str()) && n.chars().count() > k.chars().count());
            if close && !near.contains(p) {
                near.push((*p).clone());
            }
        }
        if near.is_empty() {
            Resolved::NotPlayer
        } else {
            near.sort();
            Resolved::Near(near)
        }
    }
}
