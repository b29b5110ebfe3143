//! Which record a game is. The record keys a game by its `id` (else its name: configs written
//! before `id` existed, and any written by hand), and keeps, for each key, what tells the game
//! apart: its vote threads and its players. A game whose key the record does not know, but whose
//! vote threads it does, is a renamed game: with the same players the old key is kept (logged,
//! and the judge is told once); with other players bansha does not guess, and asks. It never
//! starts a recorded game over (every mail again) without a word.

use crate::domain::config::GameConfig;
use crate::domain::settings::Settings;
use crate::io::store::Store;
use std::collections::{BTreeMap, BTreeSet};

/// The store's key of the games it knows, by record key.
pub const KNOWN_KEY: &str = "known_games";

pub use crate::domain::record::KnownGame as Known;

/// What tells `g` apart.
pub fn known(g: &GameConfig) -> Known {
    Known {
        name: g.name.clone(),
        vote_threads: g.days.iter().filter_map(|d| d.vote_thread).collect(),
        players: g.roster.players.iter().cloned().collect(),
    }
}

/// What the record makes of a configured game.
#[derive(Debug, Clone, PartialEq)]
pub enum Recognised {
    /// The record knows it by its key, or knows nothing like it (a new game).
    AsConfigured,
    /// A renamed game the record keeps under `id` (named `was` when it last ran).
    Renamed { id: String, was: String },
    /// It shares vote threads with recorded games that are not surely it (other players, or
    /// more than one): the judge must say which it is.
    Unsure(Vec<(String, Known)>),
}

/// What the record makes of `g`, given what it knows and the keys other configured games take.
/// An `id` the judge wrote is their answer to an unsure match (a new game); a sure match is kept
/// even then, since the same vote threads and players are the same game.
pub fn recognise(
    g: &GameConfig,
    record: &BTreeMap<String, Known>,
    taken: &BTreeSet<String>,
) -> Recognised {
    if record.contains_key(&g.id) {
        return Recognised::AsConfigured;
    }
    let me = known(g);
    let like: Vec<(&String, &Known)> = record
        .iter()
        .filter(|(id, k)| !taken.contains(*id) && !k.vote_threads.is_disjoint(&me.vote_threads))
        .collect();
    match like.as_slice() {
        [] => Recognised::AsConfigured,
        [(id, k)] if k.players == me.players => Recognised::Renamed {
            id: (*id).clone(),
            was: k.name.clone(),
        },
        _ if g.id_given => Recognised::AsConfigured,
        _ => Recognised::Unsure(
            like.into_iter()
                .map(|(id, k)| (id.clone(), k.clone()))
                .collect(),
        ),
    }
}

/// The game keys a record made before it knew its games (no `KNOWN_KEY`) holds: those of its
/// days' one-time events (`what/ID/DAY…`).
pub fn keys_in_events(event_keys: &[String]) -> BTreeSet<String> {
    event_keys
        .iter()
        .filter_map(|k| {
            let mut parts = k.split('/');
            let what = parts.next()?;
            let id = parts.next()?;
            ["lock", "close", "recheck", "lurk", "corrected"]
                .contains(&what)
                .then(|| id.to_string())
        })
        .collect()
}

/// What the judge is told about a game's record at the start.
#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    /// `game` (named so now; the config's id `configured`) is kept under `id`, its record's key.
    Renamed {
        game: String,
        configured: String,
        id_given: bool,
        id: String,
        was: String,
    },
    /// `game` is new to a record an older bansha made, which holds games under `ids` whose
    /// vote threads it did not note: if it is one of them renamed, its id says so.
    Unverified { game: String, ids: Vec<String> },
}

impl Notice {
    /// The mail's key: once per rename, once per game.
    pub fn key(&self) -> String {
        match self {
            Notice::Renamed { game, id, .. } => format!("renamed/{id}/{game}"),
            Notice::Unverified { game, .. } => format!("unverified/{game}"),
        }
    }
}

/// Settle which record each configured game is, before anything is read or sent: a renamed
/// game takes its record's key; a game the record cannot place is an error (the daemon does
/// not start) saying what to write. The games the record knows are written back. What the
/// judge is to be told is returned, for the first cycle to mail.
pub fn settle(settings: &mut Settings, store: &Store) -> anyhow::Result<Vec<Notice>> {
    let stored: Option<BTreeMap<String, Known>> = store.get_meta(KNOWN_KEY)?;
    let legacy = match &stored {
        Some(_) => BTreeSet::new(),
        None => keys_in_events(&store.event_keys()?),
    };
    let mut record = stored.unwrap_or_default();
    let mut taken: BTreeSet<String> = settings.games.iter().map(|g| g.id.clone()).collect();
    let mut notices = Vec::new();
    for g in settings.games.iter_mut() {
        match recognise(g, &record, &taken) {
            Recognised::AsConfigured => {
                let others: Vec<String> = legacy
                    .iter()
                    .filter(|id| !taken.contains(*id))
                    .cloned()
                    .collect();
                if !legacy.is_empty() && !legacy.contains(&g.id) && !others.is_empty() {
                    notices.push(Notice::Unverified {
                        game: g.name.clone(),
                        ids: others,
                    });
                }
            }
            Recognised::Renamed { id, was } => {
                crate::io::log::line(&format!(
                    "游戏 {:?}（{}）：记录沿用 {id:?} 下的（上次运行时名为 {was:?}）",
                    g.name,
                    g.path.display()
                ));
                notices.push(Notice::Renamed {
                    game: g.name.clone(),
                    configured: g.id.clone(),
                    id_given: g.id_given,
                    id: id.clone(),
                    was,
                });
                taken.insert(id.clone());
                g.id = id;
            }
            Recognised::Unsure(like) => {
                anyhow::bail!(crate::present::mails::identity_question(g, &like));
            }
        }
    }
    for g in &settings.games {
        let now = known(g);
        let k = record.entry(g.id.clone()).or_default();
        k.name = now.name;
        k.players = now.players;
        k.vote_threads.extend(now.vote_threads);
    }
    // Games an older bansha recorded: known from now on, with nothing to match them by.
    for id in legacy {
        record.entry(id.clone()).or_insert_with(|| Known {
            name: id,
            ..Known::default()
        });
    }
    store.set_meta(KNOWN_KEY, &record)?;
    Ok(notices)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(name: &str, id: Option<&str>, thread: u64, players: &[&str]) -> GameConfig {
        let text = format!(
            "ruleset = \"m103\"\nname = \"{name}\"\n{}[roster]\nplayers = [{}]\n[[days]]\nday = 1\nvote_thread = {thread}\ncloses_at = \"2026-11-29 21:00:00\"\n",
            id.map(|i| format!("id = \"{i}\"\n")).unwrap_or_default(),
            players
                .iter()
                .map(|p| format!("\"{p}\""))
                .collect::<Vec<_>>()
                .join(", ")
        );
        crate::domain::game::load_str(&text, std::path::Path::new("g.toml")).unwrap()
    }

    fn record_of(games: &[&GameConfig]) -> BTreeMap<String, Known> {
        games.iter().map(|g| (g.id.clone(), known(g))).collect()
    }

    #[test]
    fn a_game_is_its_key_or_its_vote_threads_and_players() {
        let old = game("一局", None, 3, &["甲", "乙", "丙"]);
        let record = record_of(&[&old]);
        let none = BTreeSet::new();
        assert_eq!(recognise(&old, &record, &none), Recognised::AsConfigured);
        // Renamed: the same thread, the same players (in any order).
        let renamed = game("一局（改名）", None, 3, &["丙", "甲", "乙"]);
        assert_eq!(
            recognise(&renamed, &record, &none),
            Recognised::Renamed {
                id: "一局".into(),
                was: "一局".into()
            }
        );
        // …also when the judge wrote a new id with the new name.
        let with_id = game("一局（改名）", Some("一局（改名）"), 3, &["甲", "乙", "丙"]);
        assert!(matches!(
            recognise(&with_id, &record, &none),
            Recognised::Renamed { .. }
        ));
        // Another thread: a new game.
        let new = game("二局", None, 9, &["甲", "乙", "丙"]);
        assert_eq!(recognise(&new, &record, &none), Recognised::AsConfigured);
        // The same thread, other players: asked, unless the judge's id answers it.
        let other = game("一局（改名）", None, 3, &["甲", "乙", "丁"]);
        assert!(matches!(
            recognise(&other, &record, &none),
            Recognised::Unsure(v) if v.len() == 1
        ));
        let answered = game("一局（改名）", Some("新局"), 3, &["甲", "乙", "丁"]);
        assert_eq!(
            recognise(&answered, &record, &none),
            Recognised::AsConfigured
        );
        // A key another configured game holds is not taken over.
        let taken: BTreeSet<String> = ["一局".to_string()].into();
        assert_eq!(
            recognise(&renamed, &record, &taken),
            Recognised::AsConfigured
        );
    }

    #[test]
    fn an_older_records_game_keys_are_read_from_its_events() {
        let keys = [
            "lock/一局/2",
            "close/一局/2/r1",
            "recheck/二局/1",
            "leader/三局/1/0",
        ]
        .map(String::from);
        assert_eq!(
            keys_in_events(&keys),
            ["一局".to_string(), "二局".to_string()].into()
        );
    }
}
