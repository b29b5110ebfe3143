//! The night: one resolver per rule post. Pure: the game as it stood at dusk (the state's
//! snapshot), the night's actions and the judge's readings in; a [`Resolution`] out. No clock,
//! no IO; the daemon and the offline `bansha night` command feed it and show what it says.
//!
//! What the resolver decides is written to the state only when the judge confirms it, as the
//! same [`Change`]s `bansha change` records (eliminations, facts), stamped at the night's time:
//! `undo` and the win checks work unchanged. What carries from one night to the next (a power
//! spent, a 祭祀 bank, a broken 徽章) is a fact in the state: `used:<player>:<power>` = 1 and
//! named counters, so a restart or another machine reads the same night.
//!
//! Where a rule post can be read two ways (`../shared/NIGHT_AMBIGUITIES.md`), the resolver
//! declares a [`Choice`]; the ruleset's `[night.readings]` (overridable in the game config)
//! picks one, the default is the more literal reading, and the resolution lists each reading
//! that decided something ([`Resolution::readings_used`]).

pub mod actions;
pub mod bansha42;
pub mod chuhan;
pub mod jiaohui;
pub mod kill_posts;
pub mod m103;
pub mod qipan;
pub mod read;

use crate::config::GameConfig;
use crate::rules::state::{Change, GameState, Seat};
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One night action as the judge received it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Action {
    /// Who acts: one player, or several for a joint power (jiaohui's 异教徒 kill).
    pub by: Vec<String>,
    /// The power in the rule post's own word: 杀人, 炮架子, 查证, 禁锢, 救治, 诅咒, 庇佑, 祈祷,
    /// 抽将, 搜索, 祭祀, 堕落, 感召, 特赦, 圣光, 守卫, 指杀, 救药, 毒药, 查验, 移动 …
    pub power: String,
    /// The player acted on (or, for a move, the direction: 东/南/西/北 …).
    pub target: Option<String>,
    /// chuhan's 炮架子: the platform a 炮 fires over.
    pub platform: Option<String>,
    /// When it was sent (orders changes; decides lateness).
    pub sent_at: Option<DateTime<FixedOffset>>,
    /// Where it came from, in Chinese, for every line that names it: "actions.toml 第 3 条",
    /// "短消息 pmid 812", "法官录入".
    pub source: String,
}

/// What the resolver knows of the game at dusk.
#[derive(Debug, Clone)]
pub struct Night<'a> {
    /// The night's number: night N follows day N.
    pub number: u32,
    /// Every seat with its role, faction, marks and whether it is alive at dusk.
    pub seats: &'a [Seat],
    /// The state's facts: what earlier nights left (`used:<player>:<power>`, counters).
    pub facts: &'a BTreeMap<String, f64>,
    /// The judge's readings of the open points, validated against the resolver's choices.
    pub readings: &'a BTreeMap<String, String>,
    /// Actions sent after this are late: listed, not resolved.
    pub deadline: Option<DateTime<FixedOffset>>,
}

impl Night<'_> {
    pub fn seat(&self, player: &str) -> Option<&Seat> {
        self.seats.iter().find(|s| s.player == player)
    }
    pub fn alive(&self, player: &str) -> bool {
        self.seat(player).is_some_and(|s| s.alive)
    }
    pub fn fact(&self, key: &str) -> f64 {
        self.facts.get(key).copied().unwrap_or(0.0)
    }
    /// Whether `player` already spent `power` on an earlier night.
    pub fn used(&self, player: &str, power: &str) -> bool {
        self.fact(&used_key(player, power)) > 0.0
    }
    /// The reading the judge chose for `key`, or the choice's default.
    pub fn reading(&self, choice: &Choice) -> &str {
        self.readings
            .get(choice.key)
            .map(String::as_str)
            .unwrap_or(choice.default)
    }
}

/// The fact that records a power spent for good.
pub fn used_key(player: &str, power: &str) -> String {
    format!("used:{player}:{power}")
}

/// A player out at dawn.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Death {
    pub player: String,
    /// In Chinese: who killed, 兑子 with whom, 抽将 ….
    pub cause: String,
}

/// A state in effect that night (chuhan 无敌 / 禁锢 / 必杀 / 兑子), after every exception.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StateLine {
    pub player: String,
    pub state: String,
    /// Why, in Chinese ("被车禁锢", "别马腿：兑子失效").
    pub why: String,
}

/// jiaohui's figures: the attack on and the defence of a player.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figure {
    pub player: String,
    pub attack: i64,
    pub defence: i64,
    /// How each figure was made up, in Chinese.
    pub detail: String,
}

/// What an acting player is told.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Feedback {
    pub to: String,
    pub text: String,
}

/// What carries into the next day's vote.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NextDay {
    /// Votes added to (+1, chuhan 诅咒) or taken from (−1, 庇佑) a player's count, round 1 only.
    pub adjust: BTreeMap<String, i32>,
    /// bansha42 L74: players killed by a post this round vote at half weight.
    pub half_voters: Vec<String>,
    /// Night duties missed (qipan, m103): go into the discipline ledger.
    pub missed: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PowerUse {
    pub player: String,
    pub power: String,
}

/// An action not resolved, with the reason in Chinese.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Refused {
    pub action: Action,
    pub reason: String,
}

/// A reading of an open point that decided something this night.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadingUsed {
    /// NIGHT_AMBIGUITIES id ("A-C1").
    pub id: String,
    pub key: String,
    pub reading: String,
    /// What it decided, in Chinese.
    pub decided: String,
}

/// A night resolved.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Resolution {
    pub night: u32,
    pub deaths: Vec<Death>,
    pub states: Vec<StateLine>,
    pub figures: Vec<Figure>,
    pub feedback: Vec<Feedback>,
    pub next_day: NextDay,
    pub powers_used: Vec<PowerUse>,
    /// Facts to set for later nights (banks, broken badges, powers spent for good).
    pub facts: BTreeMap<String, f64>,
    /// The dawn post as the seed allows it, BBCode ready to paste.
    pub announce: String,
    /// Win or loss conditions that hold on the state after the night (filled by the caller,
    /// which runs the state's win checks on [`Resolution::changes`] applied).
    pub win: Vec<String>,
    pub readings_used: Vec<ReadingUsed>,
    pub refused: Vec<Refused>,
    /// Sent after the deadline: listed, not resolved.
    pub late: Vec<Action>,
    /// Things the judge must decide or do that the resolver cannot (a rewrite to ask for).
    pub for_judge: Vec<String>,
    /// Other changes confirming writes, before the deaths, in order: marks, roles and camps
    /// (m103's 红线: the lovers' mark, 私奔, the 红娘's camp, 002 L142–L148).
    pub updates: Vec<Change>,
}

impl Resolution {
    /// List `action` as not resolved, with the reason in Chinese.
    pub fn refuse(&mut self, action: &Action, reason: impl Into<String>) {
        self.refused.push(Refused {
            action: action.clone(),
            reason: reason.into(),
        });
    }

    /// Record that `reading` of `choice` decided something (once per choice and decision).
    pub fn note_reading(&mut self, choice: &Choice, reading: &str, decided: impl Into<String>) {
        let decided = decided.into();
        if !self
            .readings_used
            .iter()
            .any(|u| u.id == choice.id && u.decided == decided)
        {
            self.readings_used.push(ReadingUsed {
                id: choice.id.into(),
                key: choice.key.into(),
                reading: reading.to_string(),
                decided,
            });
        }
    }

    /// Put the lists a resolver fills in the order of what they hold, not of the actions'
    /// arrival: the resolution of a night never depends on the order its actions came in
    /// (refused and late actions alike but for a target or a platform included).
    pub fn canonical_order(&mut self) {
        fn key(a: &Action) -> impl Ord + '_ {
            (
                &a.by,
                &a.power,
                &a.target,
                &a.platform,
                a.sent_at,
                &a.source,
            )
        }
        self.refused.sort_by(|x, y| {
            key(&x.action)
                .cmp(&key(&y.action))
                .then(x.reason.cmp(&y.reason))
        });
        self.late.sort_by(|x, y| key(x).cmp(&key(y)));
    }

    /// The changes confirming this night writes to the state.
    pub fn changes(&self) -> Vec<Change> {
        let mut out: Vec<Change> = self.updates.clone();
        out.extend(self.deaths.iter().map(|d| Change::Eliminate {
            player: d.player.clone(),
            cause: format!("第{}夜：{}", self.night, d.cause),
            day: None,
        }));
        for (key, value) in &self.facts {
            out.push(Change::Fact {
                key: key.clone(),
                value: *value,
            });
        }
        // What carries into the next day's vote, as facts `apply_to_days` reads back.
        let next = self.night + 1;
        for (player, by) in &self.next_day.adjust {
            out.push(Change::Fact {
                key: format!("adjust:{next}:{player}"),
                value: f64::from(*by),
            });
        }
        for player in &self.next_day.missed {
            let key = missed_key(self.night, player);
            if !self.facts.contains_key(&key) {
                out.push(Change::Fact { key, value: 1.0 });
            }
        }
        for player in &self.next_day.half_voters {
            out.push(Change::Fact {
                key: format!("half:{next}:{player}"),
                value: 1.0,
            });
        }
        out
    }
}

/// What confirmed nights carry into the days, read back from the state's facts: the duties
/// missed ([`missed_to_days`]); a +1 (chuhan's 诅咒, 000 L80) or −1 (庇佑, L82) on a player's
/// round-1 count of the day after (`adjust:<day>:<player>`, netted: the day's `night_adjust`,
/// which the tally uses unless the config names a `curse` / `bless` of the judge's own);
/// players who vote at half weight (`half:<day>:<player>`, bansha42
/// L74). The judge no longer types them into the next day's block.
pub fn apply_to_days(config: &mut GameConfig, facts: &BTreeMap<String, f64>) {
    missed_to_days(config, facts);
    for (key, value) in facts {
        let mut parts = key.splitn(3, ':');
        let (Some(kind), Some(day), Some(player)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let Ok(day) = day.parse::<u32>() else {
            continue;
        };
        let Some(d) = config.days.iter_mut().find(|d| d.day == day) else {
            continue;
        };
        match kind {
            "adjust" if *value != 0.0 => {
                d.night_adjust.insert(player.to_string(), *value as i32);
            }
            "half" if *value > 0.0 && !d.half_voters.iter().any(|p| p == player) => {
                d.half_voters.push(player.to_string())
            }
            _ => {}
        }
    }
}

/// What the record keeps of one night.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct NightRecord {
    pub actions: Vec<Action>,
    /// Messages during the night that read as no action: "pmid N 某某：text".
    pub unread: Vec<String>,
    /// The private messages already read for this night.
    pub seen: std::collections::BTreeSet<u64>,
    /// The kill posts (pids) of the forum already read for this night (bansha42 004 L60), each
    /// once across cycles and restarts (`kill_posts`).
    #[serde(default)]
    pub posts: std::collections::BTreeSet<u64>,
    /// When the game's kill-post threads were last read whole after the night's actions were
    /// due: before then a post handed in by the deadline may not have been read, and the night
    /// is neither drafted nor confirmed.
    #[serde(default)]
    pub kill_read_at: Option<DateTime<FixedOffset>>,
    /// How many actions the last digest mail covered.
    pub digested: usize,
    /// When the judge confirmed the night.
    pub confirmed: Option<DateTime<FixedOffset>>,
}

/// A point the rule post leaves open, with its readings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Choice {
    /// The key under `[night.readings]`.
    pub key: &'static str,
    /// NIGHT_AMBIGUITIES id ("A-C1").
    pub id: &'static str,
    /// The seed lines, quoted short.
    pub lines: &'static str,
    /// (reading, what it means in Chinese).
    pub readings: &'static [(&'static str, &'static str)],
    /// The more literal reading.
    pub default: &'static str,
}

/// One rule post's night.
pub trait Resolver {
    /// The open points this rule post's night has.
    fn choices(&self) -> &'static [Choice];
    /// Resolve the night. Never panics; an action it cannot use is in `refused` with why.
    fn resolve(&self, night: &Night, actions: &[Action]) -> Resolution;
    /// Resolve the night with the whole game at hand: its config (win rules, links, days) and
    /// the state at dusk (`night` is its snapshot), for a rule post whose settlement checks the
    /// win in the middle of the night (m103 002 L164, L170). [`resolve_game`] calls this; by
    /// default it is `resolve`.
    fn resolve_in(
        &self,
        game: &GameConfig,
        state: &GameState,
        night: &Night,
        actions: &[Action],
    ) -> Resolution {
        let _ = (game, state);
        self.resolve(night, actions)
    }

    /// Read what the game's `[night]` declares beyond the readings (qipan's map); an error in
    /// Chinese naming the key. Most rule posts need nothing.
    fn configure(&mut self, _rules: &crate::config::NightRules) -> Result<(), String> {
        Ok(())
    }
}

/// The resolver for a ruleset's `night.resolver` name, if bansha has one.
pub fn resolver(name: &str) -> Option<Box<dyn Resolver>> {
    match name {
        "jiaohui" => Some(Box::new(jiaohui::Jiaohui)),
        "m103" => Some(Box::new(m103::M103)),
        "bansha42" => Some(Box::new(bansha42::Bansha42)),
        "qipan" => Some(Box::new(qipan::Qipan::default())),
        "chuhan" => Some(Box::new(chuhan::Chuhan)),
        _ => None,
    }
}

/// When `seat`'s night actions are due: a qipan good player's move by
/// `good_moves_after_close_minutes` after the day's close (003 L114 "截止时间为22:00", the
/// killers' night running on to the deadline, L116); m103's 太医 30 minutes after her 通灵
/// feedback (002 L238, [`m103::due`]); every other action by the night's deadline. The daemon
/// reminds each player half an hour before his own limit, and drafts the night once those who
/// still owe an action are past theirs.
pub fn due(
    rules: &crate::config::NightRules,
    seat: &Seat,
    close: DateTime<FixedOffset>,
    deadline: Option<DateTime<FixedOffset>>,
    actions: &[Action],
) -> Option<DateTime<FixedOffset>> {
    match (
        rules.resolver.as_deref(),
        rules.good_moves_after_close_minutes,
    ) {
        (Some("m103"), _) => m103::due(seat, deadline, actions),
        (_, Some(m)) if !qipan::is_killer(seat) => {
            Some(close + chrono::Duration::minutes(i64::from(m)))
        }
        _ => deadline,
    }
}

/// The time an action the judge enters himself is given: none (what reached him by QQ or in
/// person is often entered after it was sent, so it is not judged late), but for his own act
/// whose time is a limit's start, m103's 通灵 feedback to the 太医 (002 L238 "收到通灵反馈后30分钟
/// 内"): entered when he gives it, it is stamped `now`.
pub fn entered_at(power: &str, now: DateTime<FixedOffset>) -> Option<DateTime<FixedOffset>> {
    (power.trim() == "通灵").then_some(now)
}

/// The fact a night duty missed leaves in the state (`missed:<night>:<player>` = 1; m103 002
/// L316, qipan 003 L136): written when the judge confirms the night, read back into the days
/// by [`missed_to_days`].
pub fn missed_key(night: u32, player: &str) -> String {
    format!("missed:{night}:{player}")
}

/// Add to each day's `missed_night_moves` the night duties the confirmed nights recorded as
/// missed (the state's facts, [`missed_key`]): night N, which follows day N, counts for day N;
/// a first night before day 1 (night 0, m103 L223) for day 1. Called on the game as played
/// (where the state file is applied to the days), the 潜水 count needs no judge's entry.
pub fn missed_to_days(config: &mut GameConfig, facts: &BTreeMap<String, f64>) {
    for (key, value) in facts {
        let Some((night, player)) = key.strip_prefix("missed:").and_then(|k| k.split_once(':'))
        else {
            continue;
        };
        let Ok(night) = night.parse::<u32>() else {
            continue;
        };
        if *value <= 0.0 {
            continue;
        }
        if let Some(d) = config.days.iter_mut().find(|d| d.day == night.max(1)) {
            if !d.missed_night_moves.iter().any(|p| p == player) {
                d.missed_night_moves.push(player.to_string());
            }
        }
    }
}

/// The line standing in the dawn post for a kill post bansha does not have: the judge pastes
/// the killer's kill post there (`bansha night --kill-post KILLER=FILE` does it). It names the
/// killer, so the dawn post must not go out with it.
pub fn kill_post_placeholder(killer: &str) -> String {
    format!("（杀人帖：请在此贴上 {killer} 的杀人帖，发帖前替换本行）")
}

/// Resolve night `number` of a game: the state's snapshot at dusk (every recorded event; a
/// caller resolving an old night passes the state as it stood then), the ruleset's resolver and
/// readings, and the actions. The win checks of the ruleset are run on the state with the
/// night's changes applied, and their names put in `win`. The one entry point of the offline
/// command, the daemon and the tests.
pub fn resolve_game(
    game: &GameConfig,
    state: &GameState,
    number: u32,
    actions: &[Action],
    deadline: Option<DateTime<FixedOffset>>,
) -> Result<Resolution, String> {
    let night_rules = &game.rules.night;
    let Some(name) = night_rules.resolver.as_deref() else {
        return Err(format!(
            "规则 {} 没有设夜晚结算（[night] resolver）：这个版杀的夜晚由法官自己结算",
            game.rules.name
        ));
    };
    let Some(mut r) = resolver(name) else {
        return Err(format!(
            "night.resolver = \"{name}\"：bansha 没有这个夜晚结算"
        ));
    };
    check_readings(r.choices(), &night_rules.readings)?;
    r.configure(night_rules)?;
    // Dusk is the end of day `number`: a later day's `dead` (out before that day opens, it may
    // be this very night) is not out yet.
    let mut at_dusk = game.clone();
    for d in at_dusk.days.iter_mut().filter(|d| d.day > number) {
        d.dead.clear();
    }
    let game = &at_dusk;
    // Likewise a later day's vote-out the judge recorded while this night was still open: not
    // out at its dusk.
    let mut dusk_state = state.clone();
    for e in dusk_state.events.iter_mut() {
        if matches!(&e.change, Change::Eliminate { day: Some(d), .. } if *d > number) {
            e.undone = true;
        }
    }
    let state = &dusk_state;
    let snap = state.snapshot(game);
    let night = Night {
        number,
        seats: &snap.seats,
        facts: &snap.facts,
        readings: &night_rules.readings,
        deadline,
    };
    let mut res = r.resolve_in(game, state, &night, actions);
    res.night = number;
    res.canonical_order();
    let mut after = state.clone();
    for c in res.changes() {
        after.push(c, String::new());
    }
    let snap_after = after.snapshot(game);
    let (win, _) = crate::rules::state::conditions(game, &snap_after);
    res.win = win
        .into_iter()
        .filter(|c| c.holds)
        .map(|c| c.name)
        .collect();
    Ok(res)
}

/// Check the judge's readings against a resolver's choices: an unknown key or reading is an
/// error in Chinese naming the key and what it may be.
pub fn check_readings(
    choices: &[Choice],
    readings: &BTreeMap<String, String>,
) -> Result<(), String> {
    for (key, value) in readings {
        let Some(c) = choices.iter().find(|c| c.key == key) else {
            let known: Vec<&str> = choices.iter().map(|c| c.key).collect();
            return Err(format!(
                "night.readings.{key}：没有这个选项；可用的有：{}",
                known.join("、")
            ));
        };
        if !c.readings.iter().any(|(r, _)| r == value) {
            let known: Vec<String> = c
                .readings
                .iter()
                .map(|(r, what)| format!("\"{r}\"（{what}）"))
                .collect();
            return Err(format!(
                "night.readings.{key} = \"{value}\"：不是这一条的读法；可选：{}",
                known.join("、")
            ));
        }
    }
    Ok(())
}

/// Keeps the last action of each (actor, power) sent by the deadline, and lists the late ones:
/// the rule posts let a player change a night action until the deadline, the last one counting
/// (chuhan 000 L96). Actions without a time keep their file order.
pub fn last_of_each(
    actions: &[Action],
    deadline: Option<DateTime<FixedOffset>>,
) -> (Vec<Action>, Vec<Action>) {
    let mut late = Vec::new();
    let mut kept: Vec<Action> = Vec::new();
    let mut ordered: Vec<&Action> = actions.iter().collect();
    // A stable sort: untimed actions stay where they were relative to each other.
    ordered.sort_by_key(|a| a.sent_at);
    for a in ordered {
        if let (Some(t), Some(d)) = (a.sent_at, deadline) {
            if t > d {
                late.push(a.clone());
                continue;
            }
        }
        kept.retain(|k| !(k.by == a.by && k.power == a.power));
        kept.push(a.clone());
    }
    (kept, late)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a confirmed night leaves (chuhan 000 L80 诅咒 +1, L82 庇佑 −1, round 1 of the next
    /// day; bansha42 004 L74 half votes; m103 002 L316 missed duties) reaches the next day's
    /// block without the judge typing `curse`, `bless`, `half_voters` or `missed_night_moves`,
    /// and a day the judge set by hand keeps his entry.
    #[test]
    fn a_confirmed_nights_facts_reach_the_next_day() {
        let game = crate::config::parse_str(
            "ruleset = \"chuhan\"\nname = \"t\"\n[roster]\nplayers = [\"甲\", \"乙\", \"丙\", \"丁\"]\n\
             [[days]]\nday = 1\nvote_thread = 1\ncloses_at = \"2026-12-01 21:00:00\"\n\
             [[days]]\nday = 2\nvote_thread = 2\ncloses_at = \"2026-12-02 21:00:00\"\n\
             [[days]]\nday = 3\nvote_thread = 3\ncloses_at = \"2026-12-03 21:00:00\"\ncurse = \"丁\"\n",
            std::path::Path::new("t.toml"),
        )
        .unwrap();
        let res = Resolution {
            night: 1,
            next_day: NextDay {
                adjust: [("甲".to_string(), 1), ("乙".to_string(), -1)].into(),
                half_voters: vec!["丙".into()],
                missed: vec![],
            },
            ..Default::default()
        };
        let mut state = GameState::default();
        for c in res.changes() {
            state.push(c, "2026-12-02T08:00:00+08:00".into());
        }
        state.push(
            Change::Fact {
                key: "adjust:3:甲".into(),
                value: 1.0,
            },
            String::new(),
        );
        state.push(
            Change::Fact {
                key: missed_key(2, "丁"),
                value: 1.0,
            },
            String::new(),
        );
        let mut played = game.clone();
        let facts = state.snapshot(&game).facts;
        apply_to_days(&mut played, &facts);
        let d2 = played.day(2).unwrap();
        assert_eq!(d2.night_adjust.get("甲"), Some(&1));
        assert_eq!(d2.night_adjust.get("乙"), Some(&-1));
        assert!(
            d2.curse.is_none() && d2.bless.is_none(),
            "the judge's keys stay his"
        );
        assert_eq!(d2.half_voters, ["丙"]);
        assert_eq!(d2.missed_night_moves, ["丁"]);
        assert!(played.day(1).unwrap().curse.is_none());
        assert_eq!(
            played.day(3).unwrap().curse.as_deref(),
            Some("丁"),
            "the judge's own"
        );
        // The tally counts them at round 1's close (000 L114): two curses of two 士 are +2.
        played.days[1].night_adjust.insert("甲".into(), 2);
        let close = chrono::DateTime::parse_from_rfc3339("2026-12-02T21:00:01+08:00").unwrap();
        let t = crate::rules::tally(&played, 2, 1, close, &[]).unwrap();
        let of = |n: &str| t.counts.iter().find(|c| c.target == n).map(|c| c.votes);
        assert_eq!(of("甲"), Some(2.0));
        assert_eq!(of("乙"), Some(0.0), "never below 0");
    }

    /// A night's 诅咒 or 庇佑 on a player out before the next day (killed that very night, say)
    /// adds nothing to that day's count: the vote is among the living (000 L109 "在所有活着的玩家
    /// 之间进行"), so one out has no count to add to (L80 "多计一票") and cannot go out by it.
    #[test]
    fn a_curse_on_a_player_out_by_the_next_day_counts_nothing() {
        let game = crate::config::parse_str(
            "ruleset = \"chuhan\"\nname = \"t\"\n[roster]\nplayers = [\"甲\", \"乙\", \"丙\", \"丁\"]\n\
             [[days]]\nday = 2\nvote_thread = 2\ncloses_at = \"2026-12-02 21:00:00\"\ndead = [\"丁\"]\n",
            std::path::Path::new("t.toml"),
        )
        .unwrap();
        let mut played = game.clone();
        played.days[0].night_adjust.insert("丁".into(), 1);
        played.days[0].night_adjust.insert("丙".into(), -1);
        let close = chrono::DateTime::parse_from_rfc3339("2026-12-02T21:00:01+08:00").unwrap();
        let t = crate::rules::tally(&played, 2, 1, close, &[]).unwrap();
        assert!(
            t.counts.iter().all(|c| c.target != "丁"),
            "no count for one out: {:?}",
            t.counts
        );
        assert!(
            t.outcome.players.iter().all(|p| p != "丁"),
            "{:?}",
            t.outcome
        );
    }

    /// Night N's dusk is the end of day N: a player the judge lists in a later day's `dead`
    /// (out before day N+1 opens, say killed that very night by the judge's own reckoning, or
    /// typed with the next day's block before the night is confirmed) is alive at dusk, and
    /// his power that night stands (000 L99: all powers take effect at dawn). Only `dead`
    /// lists of days up to the night's own count.
    #[test]
    fn a_later_days_dead_list_is_not_dead_at_this_nights_dusk() {
        let game = crate::config::parse_str(
            "ruleset = \"chuhan\"\nname = \"t\"\n[roster]\nplayers = [\"甲\", \"乙\", \"丙\", \"丁\"]\n\
             [roster.roles]\n\"甲\" = { role = \"左士\", faction = \"楚\" }\n\
             [[days]]\nday = 2\nvote_thread = 2\ncloses_at = \"2026-12-02 21:00:00\"\ndead = [\"丁\"]\n\
             [[days]]\nday = 3\nvote_thread = 3\ncloses_at = \"2026-12-03 21:00:00\"\ndead = [\"甲\"]\n",
            std::path::Path::new("t.toml"),
        )
        .unwrap();
        let t = |s: &str| DateTime::parse_from_rfc3339(s).unwrap();
        let curse = |target: &str| Action {
            by: vec!["甲".into()],
            power: "诅咒".into(),
            target: Some(target.into()),
            platform: None,
            sent_at: Some(t("2026-12-02T22:00:00+08:00")),
            source: "法官录入".into(),
        };
        let res = resolve_game(
            &game,
            &GameState::default(),
            2,
            &[curse("乙")],
            Some(t("2026-12-03T07:00:00+08:00")),
        )
        .unwrap();
        assert_eq!(
            res.next_day.adjust.get("乙"),
            Some(&1),
            "甲, out only before day 3, curses at night 2: {res:?}"
        );
        // 丁, out before day 2, is out at night 2's dusk: a curse on him is refused.
        let res = resolve_game(
            &game,
            &GameState::default(),
            2,
            &[curse("丁")],
            Some(t("2026-12-03T07:00:00+08:00")),
        )
        .unwrap();
        assert!(res.next_day.adjust.is_empty(), "{res:?}");
    }

    /// The same for the state: a player the judge's confirmation put out by a later day's vote
    /// (recorded while this night was still open, overdue) is alive at this night's dusk. Found
    /// by the service simulator (seed 6215): night 5, confirmed after day 6, refused the 帅's
    /// kill of a player day 6 voted out.
    #[test]
    fn a_later_days_vote_out_is_not_out_at_this_nights_dusk() {
        use crate::rules::state::Change;
        let game = crate::config::parse_str(
            "ruleset = \"chuhan\"\nname = \"t\"\n[roster]\nplayers = [\"甲\", \"乙\", \"丙\", \"丁\"]\n\
             [roster.roles]\n\"甲\" = { role = \"左士\", faction = \"楚\" }\n\
             [[days]]\nday = 2\nvote_thread = 2\ncloses_at = \"2026-12-02 21:00:00\"\n\
             [[days]]\nday = 3\nvote_thread = 3\ncloses_at = \"2026-12-03 21:00:00\"\n",
            std::path::Path::new("t.toml"),
        )
        .unwrap();
        let t = |s: &str| DateTime::parse_from_rfc3339(s).unwrap();
        let mut state = GameState::default();
        for (player, day, at) in [
            ("丁", 2, "2026-12-02T21:00:00+08:00"),
            ("乙", 3, "2026-12-03T21:00:00+08:00"),
        ] {
            state.push(
                Change::Eliminate {
                    player: player.into(),
                    cause: "投票出局".into(),
                    day: Some(day),
                },
                at.into(),
            );
        }
        let curse = |target: &str| Action {
            by: vec!["甲".into()],
            power: "诅咒".into(),
            target: Some(target.into()),
            platform: None,
            sent_at: Some(t("2026-12-02T22:00:00+08:00")),
            source: "法官录入".into(),
        };
        let night2 = |target: &str| {
            resolve_game(
                &game,
                &state,
                2,
                &[curse(target)],
                Some(t("2026-12-03T07:00:00+08:00")),
            )
            .unwrap()
        };
        assert_eq!(
            night2("乙").next_day.adjust.get("乙"),
            Some(&1),
            "乙 is out only by day 3's vote"
        );
        assert!(
            night2("丁").next_day.adjust.is_empty(),
            "丁 is out by day 2's vote"
        );
    }

    /// qipan 003 L114 "截止时间为22:00": a good player's move is due an hour after the 21:00
    /// close, the killers' actions by the night's deadline (L116, 9:00); m103's 太医 30
    /// minutes after her 通灵 (002 L238); elsewhere everything by the deadline.
    #[test]
    fn each_players_limit_is_the_rule_posts() {
        let t = |s: &str| DateTime::parse_from_rfc3339(s).unwrap();
        let close = t("2026-11-29T21:00:00+08:00");
        let deadline = Some(t("2026-11-30T09:00:00+08:00"));
        let seat = |role: &str, faction: &str| Seat {
            player: "甲".into(),
            role: role.into(),
            faction: faction.into(),
            code: None,
            alive: true,
            cause: None,
            marks: Vec::new(),
        };
        let rules = crate::config::NightRules {
            good_moves_after_close_minutes: Some(60),
            ..Default::default()
        };
        let good = seat("好人", "好人");
        assert_eq!(
            due(&rules, &good, close, deadline, &[]),
            Some(t("2026-11-29T22:00:00+08:00"))
        );
        let killer = seat("主杀", "杀手");
        assert_eq!(due(&rules, &killer, close, deadline, &[]), deadline);
        let rules = crate::config::NightRules::default();
        assert_eq!(due(&rules, &good, close, deadline, &[]), deadline);
        let rules = crate::config::NightRules {
            resolver: Some("m103".into()),
            ..Default::default()
        };
        let deadline = Some(t("2026-11-29T21:30:00+08:00"));
        let doctor = seat("妙手太医", "我爱皇帝");
        assert_eq!(
            due(&rules, &doctor, close, deadline, &[]),
            Some(t("2026-11-29T22:00:00+08:00")),
            "no feedback time entered: 30 minutes after the deadline"
        );
        let fed = act("乙", "通灵", "", "2026-11-29T21:20:00+08:00");
        assert_eq!(
            due(&rules, &doctor, close, deadline, &[fed]),
            Some(t("2026-11-29T21:50:00+08:00"))
        );
        let spy = seat("大内密探", "我爱皇帝");
        assert_eq!(due(&rules, &spy, close, deadline, &[]), deadline);
        // The judge's own 通灵 entry is stamped when he gives it; what reached him is not.
        assert_eq!(entered_at(" 通灵 ", close), Some(close));
        assert_eq!(entered_at("救药", close), None);
    }

    fn act(by: &str, power: &str, target: &str, at: &str) -> Action {
        Action {
            by: vec![by.into()],
            power: power.into(),
            target: Some(target.into()),
            platform: None,
            sent_at: DateTime::parse_from_rfc3339(at).ok(),
            source: format!("{by} {at}"),
        }
    }

    /// Found by chuhan's random nights in CI: two refused actions alike but for the platform
    /// kept the order they came in. Every resolver's lists are put in one order.
    #[test]
    fn refused_and_late_actions_come_in_one_order_whatever_the_arrival() {
        let mut a = act("甲", "杀人", "乙", "");
        let mut b = a.clone();
        b.platform = Some("丙".into());
        a.source = "x".into();
        b.source = "x".into();
        let res = |first: &Action, second: &Action| {
            let mut r = Resolution::default();
            for x in [first, second] {
                r.refuse(x, "冲突");
                r.late.push(x.clone());
            }
            r.canonical_order();
            r
        };
        assert_eq!(res(&a, &b), res(&b, &a));
    }

    #[test]
    fn the_last_action_by_the_deadline_counts_and_later_ones_are_late() {
        let deadline = DateTime::parse_from_rfc3339("2026-12-02T23:50:00+08:00").ok();
        let acts = [
            act("甲", "杀人", "乙", "2026-12-02T23:30:00+08:00"),
            act("甲", "杀人", "丙", "2026-12-02T23:10:00+08:00"),
            act("甲", "杀人", "丁", "2026-12-02T23:55:00+08:00"),
        ];
        let (kept, late) = last_of_each(&acts, deadline);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].target.as_deref(), Some("乙"));
        assert_eq!(late[0].target.as_deref(), Some("丁"));
    }

    #[test]
    fn readings_are_checked_against_the_choices() {
        const C: &[Choice] = &[Choice {
            key: "imprison_own_side",
            id: "A-C1",
            lines: "000 L29, L68, L70",
            readings: &[("takes_effect", "生效"), ("no_effect", "无效")],
            default: "takes_effect",
        }];
        let mut r = BTreeMap::new();
        r.insert("imprison_own_side".to_string(), "no_effect".to_string());
        assert!(check_readings(C, &r).is_ok());
        r.insert("imprison_own_side".to_string(), "maybe".to_string());
        assert!(check_readings(C, &r).unwrap_err().contains("takes_effect"));
        let mut r = BTreeMap::new();
        r.insert("nope".to_string(), "x".to_string());
        assert!(check_readings(C, &r)
            .unwrap_err()
            .contains("imprison_own_side"));
    }
}
