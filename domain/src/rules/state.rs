//! The game state the judge keeps: who is alive, with which secret role and faction, how each
//! change came about; and the win conditions evaluated on it. Pure: a list of events in, a
//! snapshot and the conditions that hold out.
//!
//! Win conditions are expressions (evalexpr) a judge can read and edit in the ruleset:
//! `alive_role("僧侣") == 0 && alive_faction("异教徒") >= 1`. Functions: `alive_role(r)`,
//! `dead_role(r)` (a role may be qualified by faction: `"楚:兵"`), `alive_faction(f)`,
//! `dead_faction(f)`, `alive(name)` (1 or 0), `total_alive()`, `fact(key)` (a number the judge
//! sets: nights without a kill, "searched" …; 0 when unset).

use crate::config::{GameConfig, WinRule};
use evalexpr::{ContextWithMutableFunctions, DefaultNumericTypes, Function, HashMapContext, Value};

type F = Function<DefaultNumericTypes>;
type V = Value<DefaultNumericTypes>;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Change {
    Eliminate {
        player: String,
        cause: String,
        day: Option<u32>,
    },
    Revive {
        player: String,
        cause: String,
    },
    /// A substitute (替补) takes over a seat, with its role and record.
    Replace {
        seat: String,
        by: String,
    },
    /// A role or faction change (bansha42's 叛变, m103's lovers).
    SetRole {
        player: String,
        role: Option<String>,
        faction: Option<String>,
    },
    Fact {
        key: String,
        value: f64,
    },
    /// A mark the rules link players by (m103's lovers: "情侣", L147).
    Mark {
        player: String,
        mark: String,
    },
    /// A faction surrenders (m103 L86–90 "该阵营优先判负，不公示"): it has lost.
    Surrender {
        faction: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub id: u32,
    pub at: String,
    pub change: Change,
    #[serde(default)]
    pub undone: bool,
    /// Recorded as a consequence of this event (a lover following): undone with it.
    #[serde(default)]
    pub follows: Option<u32>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GameState {
    pub events: Vec<Event>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Seat {
    /// The forum name playing the seat now.
    pub player: String,
    pub role: String,
    pub faction: String,
    pub code: Option<String>,
    pub alive: bool,
    /// The last elimination or revival, in Chinese.
    pub cause: Option<String>,
    /// Marks the rules link players by ("情侣").
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Snapshot {
    pub seats: Vec<Seat>,
    pub facts: BTreeMap<String, f64>,
    /// Factions judged lost: by a loss rule that holds now (or, where losses stand, held at
    /// any point of the recorded game), or by surrender.
    #[serde(skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    pub lost: std::collections::BTreeSet<String>,
    /// The loss rules (by name) behind `lost`: each holds now or held earlier.
    #[serde(skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    pub lost_by: std::collections::BTreeSet<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Condition {
    pub name: String,
    pub when: String,
    pub holds: bool,
    /// Set when the expression could not be evaluated.
    pub error: Option<String>,
}

impl GameState {
    /// Apply the live events to the roster, with the factions judged lost: where losses stand
    /// (m103 L172), every loss that held after any live event, else those that hold now.
    pub fn snapshot(&self, config: &GameConfig) -> Snapshot {
        let live: Vec<&Event> = self.events.iter().filter(|e| !e.undone).collect();
        let rules: Vec<&WinRule> = match complete(config) {
            true => config
                .rules
                .win
                .iter()
                .filter(|r| r.loses && r.faction.is_some())
                .collect(),
            // No loss on an incomplete roster (`losses`).
            false => Vec::new(),
        };
        let mut snap = start(config);
        let mut held: Vec<&WinRule> = Vec::new();
        // Where losses stand, every state after each live event (and before the first) is
        // judged, in one pass: a rule is judged again only after an event that can change it
        // (not a mark or a surrender, which no expression reads, nor a fact it does not name),
        // and no more once it has held.
        let standing = config.rules.victory.losses_stand;
        if standing {
            held.extend(losses_in(&snap, &rules, &held));
        }
        for e in &live {
            apply(&mut snap, e);
            if standing && held.len() < rules.len() && can_change(&e.change, &rules, &held) {
                held.extend(losses_in(&snap, &rules, &held));
            }
        }
        if !standing {
            held.extend(losses_in(&snap, &rules, &held));
        }
        for r in held {
            snap.lost_by.insert(r.name.clone());
            snap.lost.extend(r.faction.clone());
        }
        snap
    }

    /// Record a change; returns its id.
    pub fn push(&mut self, change: Change, at: String) -> u32 {
        let id = self.events.iter().map(|e| e.id).max().unwrap_or(0) + 1;
        self.events.push(Event {
            id,
            at,
            change,
            undone: false,
            follows: None,
        });
        id
    }

    /// Record a change that follows from event `of` (undone together with it).
    pub fn push_following(&mut self, change: Change, at: String, of: u32) -> u32 {
        let id = self.push(change, at);
        if let Some(e) = self.events.last_mut() {
            e.follows = Some(of);
        }
        id
    }

    /// Undo the last live change, with what followed from it; returns its id.
    pub fn undo(&mut self) -> Option<u32> {
        let id = self
            .events
            .iter()
            .rev()
            .find(|e| !e.undone && e.follows.is_none())?
            .id;
        for e in self
            .events
            .iter_mut()
            .filter(|e| e.id == id || e.follows == Some(id))
        {
            e.undone = true;
        }
        Some(id)
    }
}

fn role_matches(seat: &Seat, wanted: &str) -> bool {
    match wanted.split_once(':') {
        Some((faction, role)) => seat.faction == faction && seat.role == role,
        None => seat.role == wanted,
    }
}

/// The roster before any recorded event: the config's seats, the players its days list as
/// out already out.
fn start(config: &GameConfig) -> Snapshot {
    let mut seats: Vec<Seat> = config
        .roster
        .players
        .iter()
        .map(|p| {
            let r = config.roster.roles.get(p);
            Seat {
                player: p.clone(),
                role: r.map(|r| r.role.clone()).unwrap_or_default(),
                faction: r.map(|r| r.faction.clone()).unwrap_or_default(),
                code: r.and_then(|r| r.code.clone()),
                alive: true,
                cause: None,
                marks: r.map(|r| r.marks.clone()).unwrap_or_default(),
            }
        })
        .collect();
    // Players the game config already lists as out (a day's `dead`, for games that started
    // before bansha kept their state), before any recorded event.
    for d in &config.days {
        for name in &d.dead {
            if let Some(s) = seats.iter_mut().find(|s| &s.player == name && s.alive) {
                s.alive = false;
                s.cause = Some(format!("第{}天之前出局（配置 days.dead）", d.day));
            }
        }
    }
    Snapshot {
        seats,
        facts: BTreeMap::new(),
        lost: Default::default(),
        lost_by: Default::default(),
    }
}

/// One live event applied to the roster.
fn apply(snap: &mut Snapshot, e: &Event) {
    let seats = &mut snap.seats;
    let seat = |seats: &mut Vec<Seat>, name: &str| seats.iter_mut().position(|s| s.player == name);
    match &e.change {
        Change::Eliminate { player, cause, day } => {
            if let Some(i) = seat(seats, player) {
                seats[i].alive = false;
                seats[i].cause = Some(match day {
                    Some(d) => format!("第{d}天 {cause}"),
                    None => cause.clone(),
                });
            }
        }
        Change::Revive { player, cause } => {
            if let Some(i) = seat(seats, player) {
                seats[i].alive = true;
                seats[i].cause = Some(format!("复活：{cause}"));
            }
        }
        Change::Replace { seat: old, by } => {
            if let Some(i) = seat(seats, old) {
                seats[i].player = by.clone();
            }
        }
        Change::SetRole {
            player,
            role,
            faction,
        } => {
            if let Some(i) = seat(seats, player) {
                if let Some(r) = role {
                    seats[i].role = r.clone();
                }
                if let Some(f) = faction {
                    seats[i].faction = f.clone();
                }
            }
        }
        Change::Fact { key, value } => {
            snap.facts.insert(key.clone(), *value);
        }
        Change::Mark { player, mark } => {
            if let Some(i) = seat(seats, player) {
                if !seats[i].marks.contains(mark) {
                    seats[i].marks.push(mark.clone());
                }
            }
        }
        Change::Surrender { faction } => {
            snap.lost.insert(faction.clone());
        }
    }
}

/// Whether `change` can change whether a rule not yet held holds: the expressions read the
/// seats (who is alive, in which role and faction, under which name) and the facts they name,
/// never a mark or a surrender.
fn can_change(change: &Change, rules: &[&WinRule], held: &[&WinRule]) -> bool {
    match change {
        Change::Mark { .. } | Change::Surrender { .. } => false,
        Change::Fact { key, .. } => rules
            .iter()
            .filter(|r| !held.iter().any(|h| std::ptr::eq(*h, **r)))
            .any(|r| r.when.contains(key.as_str())),
        _ => true,
    }
}

/// The rules of `rules` not in `held` that hold at `snap`, judged together.
fn losses_in<'a>(snap: &Snapshot, rules: &[&'a WinRule], held: &[&'a WinRule]) -> Vec<&'a WinRule> {
    let pending: Vec<&'a WinRule> = rules
        .iter()
        .copied()
        .filter(|r| !held.iter().any(|h| std::ptr::eq(*h, *r)))
        .collect();
    if pending.is_empty() {
        return Vec::new();
    }
    judge(snap, &pending)
        .iter()
        .zip(pending)
        .filter(|(c, _)| c.holds)
        .map(|(_, r)| r)
        .collect()
}

/// Evaluate conditions on a snapshot.
pub fn evaluate(snapshot: &Snapshot, rules: &[WinRule]) -> Vec<Condition> {
    judge(snapshot, &rules.iter().collect::<Vec<_>>())
}

/// Evaluate `rules` on a snapshot, in one context (the seats shared by its functions).
fn judge(snapshot: &Snapshot, rules: &[&WinRule]) -> Vec<Condition> {
    let mut ctx = HashMapContext::new();
    let shared = std::sync::Arc::new(snapshot.seats.clone());
    let add = |ctx: &mut HashMapContext, name: &str, f: F| {
        ctx.set_function(name.to_string(), f)
            .expect("a mutable context");
    };
    for (name, alive, by_faction) in [
        ("alive_role", true, false),
        ("dead_role", false, false),
        ("alive_faction", true, true),
        ("dead_faction", false, true),
    ] {
        let seats = shared.clone();
        add(
            &mut ctx,
            name,
            Function::new(move |arg: &V| {
                let wanted = arg.as_string()?;
                Ok(Value::Int(
                    seats
                        .iter()
                        .filter(|s| s.alive == alive)
                        .filter(|s| {
                            if by_faction {
                                s.faction == wanted
                            } else {
                                role_matches(s, &wanted)
                            }
                        })
                        .count() as i64,
                ))
            }),
        );
    }
    let seats = shared;
    add(
        &mut ctx,
        "alive",
        Function::new(move |arg: &V| {
            let wanted = arg.as_string()?;
            Ok(Value::Int(
                seats
                    .iter()
                    .filter(|s| s.alive && s.player == wanted)
                    .count() as i64,
            ))
        }),
    );
    let total = snapshot.seats.iter().filter(|s| s.alive).count() as i64;
    add(
        &mut ctx,
        "total_alive",
        Function::new(move |_: &V| Ok(Value::Int(total))),
    );
    let facts = snapshot.facts.clone();
    add(
        &mut ctx,
        "fact",
        Function::new(move |arg: &V| {
            let key = arg.as_string()?;
            let v = facts.get(&key).copied().unwrap_or(0.0);
            // Whole numbers as integers, so `fact("x") == 1` compares as the judge expects.
            Ok(if v.fract() == 0.0 && v.abs() < 1e15 {
                Value::Int(v as i64)
            } else {
                Value::Float(v)
            })
        }),
    );
    rules
        .iter()
        .map(
            |r| match compiled(&r.when).and_then(|n| n.eval_boolean_with_context(&ctx)) {
                Ok(holds) => Condition {
                    name: r.name.clone(),
                    when: r.when.clone(),
                    holds,
                    error: None,
                },
                Err(e) => Condition {
                    name: r.name.clone(),
                    when: r.when.clone(),
                    holds: false,
                    error: Some(e.to_string()),
                },
            },
        )
        .collect()
}

/// `when` parsed once: the rules are judged after every event of a long game, many times a
/// cycle, and parsing was most of the cost. A memo of the few expressions of the games loaded
/// (emptied should a long-running service's reloads ever pile up many).
fn compiled(
    when: &str,
) -> evalexpr::EvalexprResult<evalexpr::Node<DefaultNumericTypes>, DefaultNumericTypes> {
    type Memo = std::collections::HashMap<
        String,
        evalexpr::EvalexprResult<evalexpr::Node<DefaultNumericTypes>, DefaultNumericTypes>,
    >;
    thread_local! {
        static MEMO: std::cell::RefCell<Memo> = std::cell::RefCell::new(Memo::new());
    }
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if let Some(n) = m.get(when) {
            return n.clone();
        }
        if m.len() >= 256 {
            m.clear();
        }
        let n = evalexpr::build_operator_tree::<DefaultNumericTypes>(when);
        m.insert(when.to_string(), n.clone());
        n
    })
}

/// Add to each day's `dead` the players the recorded events put out before that day's close (an
/// event counts from the time it is recorded as happening; a revival before the close brings the
/// player back). An event whose time cannot be read counts for every day.
pub fn apply_to_days(config: &mut GameConfig, state: &GameState) {
    let mut out: Vec<Vec<String>> = Vec::new();
    // The game without its days, cloned once (each day's snapshot needs the roster, not them).
    let days = std::mem::take(&mut config.days);
    let bare = config.clone();
    config.days = days;
    // Each event's time read once (a long game has thousands, and a day for each close).
    let times: Vec<Option<chrono::DateTime<chrono::FixedOffset>>> = state
        .events
        .iter()
        .map(|e| chrono::DateTime::parse_from_rfc3339(&e.at).ok())
        .collect();
    for d in &config.days {
        // Who is out is all this needs: the roster replayed, no loss judged, with the events
        // before the day's close (one whose time cannot be read counts).
        let mut snap = start(&bare);
        for (e, t) in state.events.iter().zip(&times) {
            if !e.undone && t.is_none_or(|t| t < d.closes_at) {
                apply(&mut snap, e);
            }
        }
        out.push(
            snap.seats
                .into_iter()
                .filter(|s| !s.alive)
                .map(|s| s.player)
                .collect(),
        );
    }
    let causes = config.rules.vote.half_vote_causes.clone();
    let closes: Vec<(u32, chrono::DateTime<chrono::FixedOffset>)> =
        config.days.iter().map(|d| (d.day, d.closes_at)).collect();
    let seats = config.roster.players.clone();
    for (d, dead) in config.days.iter_mut().zip(out) {
        for p in dead {
            if !d.dead.contains(&p) {
                d.dead.push(p);
            }
        }
        // bansha42 L74 "当轮被贴杀的人投票算半票，仅在平票时计算生效": killed by a kill post in
        // this very round (whenever the judge records it), the player still votes, at half
        // weight.
        for p in &seats {
            if killed_this_round(state, p, d.day, &closes, &causes) {
                d.dead.retain(|x| x != p);
                if !d.half_voters.contains(p) {
                    d.half_voters.push(p.clone());
                }
            }
        }
    }
}

/// Who is out on each day as the config says (`dead`, typed and carried) beside what the
/// recorded state says (eliminations, night deaths and substitutions before the day's close):
/// `(day, typed, recorded)` for each day, each list in roster order. `dead` is the judge's
/// override; a day where the two differ is worth a warning.
pub fn dead_side_by_side(
    config: &GameConfig,
    state: &GameState,
) -> Vec<(u32, Vec<String>, Vec<String>)> {
    let mut recorded = config.clone();
    for d in recorded.days.iter_mut() {
        d.dead.clear();
        d.half_voters.clear();
    }
    apply_to_days(&mut recorded, state);
    let order = |list: &[String]| -> Vec<String> {
        config
            .roster
            .players
            .iter()
            .filter(|p| list.contains(p))
            .cloned()
            .collect()
    };
    config
        .days
        .iter()
        .zip(&recorded.days)
        .map(|(typed, rec)| (typed.day, order(&typed.dead), order(&rec.dead)))
        .collect()
}

/// Whether `player`'s standing elimination has a half-vote cause (a kill post) and belongs to
/// `day`'s round: named as that day, or recorded after the day before closed. Standing as the
/// round's vote found it: what came of that vote or after it (his vote-out that day, named as
/// the day and stamped at its close; anything recorded after the close) does not undo his
/// half vote in it.
fn killed_this_round(
    state: &GameState,
    player: &str,
    day: u32,
    closes: &[(u32, chrono::DateTime<chrono::FixedOffset>)],
    causes: &[String],
) -> bool {
    if causes.is_empty() {
        return false;
    }
    let close = closes.iter().find(|(d, _)| *d == day).map(|(_, c)| *c);
    let posted = |cause: &str| causes.iter().any(|c| cause.contains(c.as_str()));
    let before_the_vote = |e: &Event| match &e.change {
        Change::Eliminate {
            day: Some(n),
            cause,
            ..
        } => *n < day || (*n == day && posted(cause)),
        _ => chrono::DateTime::parse_from_rfc3339(&e.at)
            .map_or(true, |t| close.is_none_or(|c| t < c)),
    };
    let last = state.events.iter().rev().find(|e| {
        !e.undone
            && matches!(&e.change,
                Change::Eliminate { player: p, .. } | Change::Revive { player: p, .. } if p == player)
            && before_the_vote(e)
    });
    let Some(Event {
        at,
        change: Change::Eliminate {
            cause, day: named, ..
        },
        ..
    }) = last
    else {
        return false;
    };
    if !posted(cause) {
        return false;
    }
    match named {
        Some(n) => *n == day,
        None => {
            let Ok(t) = chrono::DateTime::parse_from_rfc3339(at) else {
                return false;
            };
            let before = closes
                .iter()
                .filter(|(d, _)| *d < day)
                .map(|(_, c)| *c)
                .max();
            before.is_none_or(|b| t >= b) && close.is_some_and(|c| t < c)
        }
    }
}

/// The facts the game's rules read: those the win and warn conditions and the protections'
/// `unless` name (`fact("…")`), and those the protections and pardons set when used. A fact
/// outside this set changes nothing bansha decides (`bansha change fact` refuses it).
pub fn facts_read(config: &GameConfig) -> std::collections::BTreeSet<String> {
    fn walk(
        node: &evalexpr::Node<DefaultNumericTypes>,
        into: &mut std::collections::BTreeSet<String>,
    ) {
        if matches!(node.operator(), evalexpr::Operator::FunctionIdentifier { identifier } if identifier == "fact")
        {
            let mut stack: Vec<&evalexpr::Node<DefaultNumericTypes>> =
                node.children().iter().collect();
            while let Some(n) = stack.pop() {
                if let evalexpr::Operator::Const {
                    value: Value::String(key),
                } = n.operator()
                {
                    into.insert(key.clone());
                }
                stack.extend(n.children());
            }
        }
        for c in node.children() {
            walk(c, into);
        }
    }
    let rules = &config.rules;
    let mut out = std::collections::BTreeSet::new();
    let expressions = rules
        .win
        .iter()
        .chain(&rules.warn)
        .map(|w| w.when.as_str())
        .chain(rules.protect.iter().filter_map(|p| p.unless.as_deref()));
    for e in expressions {
        if let Ok(tree) = evalexpr::build_operator_tree::<DefaultNumericTypes>(e) {
            walk(&tree, &mut out);
        }
    }
    out.extend(rules.protect.iter().filter_map(|p| p.once_fact.clone()));
    out.extend(rules.pardon.iter().map(|p| p.used_fact.clone()));
    out
}

/// Check that every expression parses and evaluates on the starting roster (for check-config).
pub fn validate(config: &GameConfig) -> Result<(), String> {
    let snap = GameState::default().snapshot(config);
    let unless: Vec<WinRule> = config
        .rules
        .protect
        .iter()
        .filter_map(|p| {
            p.unless.as_ref().map(|u| WinRule {
                name: format!("保护 {}", p.role),
                when: u.clone(),
                faction: None,
                loses: false,
            })
        })
        .collect();
    for c in evaluate(&snap, &config.rules.win)
        .into_iter()
        .chain(evaluate(&snap, &config.rules.warn))
        .chain(evaluate(&snap, &unless))
    {
        if let Some(e) = c.error {
            return Err(format!("条件“{}”（{}）无法计算：{e}", c.name, c.when));
        }
    }
    Ok(())
}

/// The powers that could save `player`, voted out, at `snapshot`: each not used yet, held by
/// a living role, able to save that player's role. The judge asks before announcing (001 L114).
pub fn pardons_open<'a>(
    config: &'a GameConfig,
    snapshot: &Snapshot,
    player: &str,
) -> Vec<&'a crate::config::Pardon> {
    let Some(seat) = snapshot.seats.iter().find(|s| s.player == player) else {
        return Vec::new();
    };
    config
        .rules
        .pardon
        .iter()
        .filter(|p| snapshot.facts.get(&p.used_fact).copied().unwrap_or(0.0) < 1.0)
        .filter(|p| {
            snapshot
                .seats
                .iter()
                .any(|s| s.alive && role_matches(s, &p.by))
        })
        .filter(|p| p.targets.iter().any(|t| role_matches(seat, t)))
        .collect()
}

/// What confirming a vote does to one player.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Confirmed {
    /// Out by the vote.
    Eliminated(String),
    /// Saved by a power the judge says was used (`pardon`: its name; `used`: the fact it
    /// sets); `kept`: the one-time protection's fact that is therefore not set (L95).
    Pardoned {
        player: String,
        pardon: String,
        used: String,
        kept: Option<String>,
    },
    /// Protected: the message for the judge; the fact a one-time protection used up, if any.
    Protected {
        player: String,
        message: String,
        used: Option<String>,
    },
}

/// Apply the rules' protections to the players a vote puts out.
/// `used`: the powers the judge says were used this round (by name); one that can save a
/// player comes before any protection of theirs, which is kept (jiaohui L95).
pub fn confirm(
    config: &GameConfig,
    snapshot: &Snapshot,
    players: &[String],
    used: &[String],
) -> Vec<Confirmed> {
    let mut out = Vec::new();
    for p in players {
        let Some(seat) = snapshot.seats.iter().find(|s| &s.player == p) else {
            continue;
        };
        let pardon = pardons_open(config, snapshot, p)
            .into_iter()
            .find(|x| used.contains(&x.name));
        let mut protected = None;
        for rule in &config.rules.protect {
            if !role_matches(seat, &rule.role) {
                continue;
            }
            if let Some(f) = &rule.once_fact {
                if snapshot.facts.get(f).copied().unwrap_or(0.0) >= 1.0 {
                    continue;
                }
            }
            if let Some(u) = &rule.unless {
                let lifted = evaluate(
                    snapshot,
                    &[WinRule {
                        name: String::new(),
                        when: u.clone(),
                        faction: None,
                        loses: false,
                    }],
                );
                if lifted.first().is_some_and(|c| c.holds) {
                    continue;
                }
            }
            protected = Some(Confirmed::Protected {
                player: p.clone(),
                message: rule.message.clone(),
                used: rule.once_fact.clone(),
            });
            break;
        }
        if let Some(x) = pardon {
            out.push(Confirmed::Pardoned {
                player: p.clone(),
                pardon: x.name.clone(),
                used: x.used_fact.clone(),
                kept: match protected {
                    Some(Confirmed::Protected { used, .. }) => used,
                    _ => None,
                },
            });
            continue;
        }
        out.push(protected.unwrap_or_else(|| Confirmed::Eliminated(p.clone())));
    }
    out
}

/// The players who follow `player` out under the rules' links (m103's lovers, L147: the
/// players marked 情侣, whatever their camps), in roster order.
pub fn followers(config: &GameConfig, snapshot: &Snapshot, player: &str) -> Vec<(String, String)> {
    let Some(seat) = snapshot.seats.iter().find(|s| s.player == player) else {
        return Vec::new();
    };
    let linked = |link: &crate::config::Link, s: &Seat| {
        link.except_role.as_deref() != Some(s.role.as_str())
            && match (&link.faction, &link.mark) {
                (Some(f), _) => &s.faction == f,
                (None, Some(m)) => s.marks.contains(m),
                (None, None) => false,
            }
    };
    let mut out: Vec<(String, String)> = Vec::new();
    for link in config.rules.link.iter().filter(|l| linked(l, seat)) {
        for other in snapshot
            .seats
            .iter()
            .filter(|s| s.alive && s.player != player && linked(link, s))
        {
            if !out.iter().any(|(p, _)| p == &other.player) {
                out.push((other.player.clone(), link.cause.clone()));
            }
        }
    }
    out
}

/// For a condition that does not hold: the living players whose elimination alone would make it
/// hold ("one elimination away"), by name. Empty when no single elimination does.
pub fn one_away(snapshot: &Snapshot, rule: &WinRule) -> Vec<String> {
    let mut out = Vec::new();
    // A faction that has lost cannot win (m103 L172), however many go out.
    if !rule.loses
        && rule
            .faction
            .as_ref()
            .is_some_and(|f| snapshot.lost.contains(f))
    {
        return out;
    }
    for (i, seat) in snapshot.seats.iter().enumerate().filter(|(_, s)| s.alive) {
        let mut next = snapshot.clone();
        next.seats[i].alive = false;
        if evaluate(&next, std::slice::from_ref(rule))
            .first()
            .is_some_and(|c| c.holds)
        {
            out.push(seat.player.clone());
        }
    }
    out
}

/// Whether every player has a role: win conditions are judged only on a complete roster.
pub fn complete(game: &GameConfig) -> bool {
    game.roster
        .players
        .iter()
        .all(|p| game.roster.roles.contains_key(p))
}

/// The win conditions and warnings of the rules at `snap`; none on an incomplete roster.
pub fn conditions(game: &GameConfig, snap: &Snapshot) -> (Vec<Condition>, Vec<Condition>) {
    if !complete(game) {
        return (Vec::new(), Vec::new());
    }
    let mut win = evaluate(snap, &game.rules.win);
    for (c, r) in win.iter_mut().zip(&game.rules.win) {
        let Some(f) = &r.faction else { continue };
        if r.loses {
            // A loss that held stands (`victory.losses_stand`).
            c.holds |= snap.lost_by.contains(&r.name);
        } else if snap.lost.contains(f) {
            // "该阵营优先判负", "已经被判负的阵营无法再次达到胜利条件" (m103 L166, L172).
            c.holds = false;
        }
    }
    if game.rules.victory.last_faction_standing && !snap.lost.is_empty() {
        // "场上仅有一个阵营尚未被判负，游戏立即结束，宣布此阵营胜利" (m103 L168).
        let factions: std::collections::BTreeSet<&String> = snap
            .seats
            .iter()
            .map(|s| &s.faction)
            .chain(&snap.lost)
            .filter(|f| !f.is_empty())
            .collect();
        let standing: Vec<&&String> = factions
            .iter()
            .filter(|f| !snap.lost.contains(**f))
            .collect();
        if let [f] = standing.as_slice() {
            win.push(Condition {
                name: format!("{f} 胜：其余阵营均已判负"),
                when: "victory.last_faction_standing".into(),
                holds: true,
                error: None,
            });
        }
    }
    let warn = evaluate(snap, &game.rules.warn);
    (win, warn)
}

/// How a win condition or warning stands, for the judge's mails.
#[derive(Debug, Clone, PartialEq)]
pub enum Holding {
    /// A win condition holds.
    Win,
    /// A warning holds.
    Warn,
    /// A win condition would hold if any one of these players went out.
    OneAway(Vec<String>),
}

/// A condition that holds (or is one elimination away) at `snap`, with its id (`win:NAME`,
/// `warn:NAME`, `away:NAME`: the daemon mails each id once while it keeps holding).
#[derive(Debug, Clone, PartialEq)]
pub struct Held {
    pub id: String,
    pub name: String,
    pub when: String,
    pub holding: Holding,
}

/// Every win condition and warning that holds at `snap`, then every win condition one
/// elimination away. None on an incomplete roster.
pub fn holdings(game: &GameConfig, snap: &Snapshot) -> Vec<Held> {
    let (win, warn) = conditions(game, snap);
    let held = |prefix: &str, c: &Condition, holding: Holding| Held {
        id: format!("{prefix}:{}", c.name),
        name: c.name.clone(),
        when: c.when.clone(),
        holding,
    };
    let mut out: Vec<Held> = Vec::new();
    out.extend(
        win.iter()
            .filter(|c| c.holds)
            .map(|c| held("win", c, Holding::Win)),
    );
    out.extend(
        warn.iter()
            .filter(|c| c.holds)
            .map(|c| held("warn", c, Holding::Warn)),
    );
    for (c, rule) in win.iter().zip(&game.rules.win).filter(|(c, _)| !c.holds) {
        let away = one_away(snap, rule);
        if !away.is_empty() {
            out.push(held("away", c, Holding::OneAway(away)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 14 seats of seed 002 L12–L13.
    const SEATS: [(&str, &str, &str); 14] = [
        ("刺一", "卧底刺客", "杀了狗皇帝"),
        ("刺二", "卧底刺客", "杀了狗皇帝"),
        ("刺三", "卧底刺客", "杀了狗皇帝"),
        ("刺四", "卧底刺客", "杀了狗皇帝"),
        ("密探", "大内密探", "我爱皇帝"),
        ("太医", "妙手太医", "我爱皇帝"),
        ("侍卫", "御前侍卫", "我爱皇帝"),
        ("太子", "东宫太子", "我爱皇帝"),
        ("红娘", "牵线红娘", "我爱皇帝"),
        ("妃一", "绝色宠妃", "我爱皇帝"),
        ("妃二", "绝色宠妃", "我爱皇帝"),
        ("妃三", "绝色宠妃", "我爱皇帝"),
        ("妃四", "绝色宠妃", "我爱皇帝"),
        ("帝王", "至尊帝王", "我爱皇帝"),
    ];

    fn game(seats: &[(&str, &str, &str)]) -> GameConfig {
        let names: Vec<String> = SEATS.iter().map(|(p, _, _)| format!("\"{p}\"")).collect();
        let mut text = format!(
            "ruleset = \"m103\"\nname = \"局\"\n[roster]\nplayers = [{}]\njudges = [\"导演\"]\n[roster.roles]\n",
            names.join(", ")
        );
        for (p, role, faction) in seats {
            text.push_str(&format!(
                "\"{p}\" = {{ role = \"{role}\", faction = \"{faction}\" }}\n"
            ));
        }
        text.push_str("[[days]]\nday = 1\ncloses_at = \"2026-12-01 21:00:00\"\n");
        crate::game::load_str(&text, std::path::Path::new("m103.toml")).unwrap()
    }

    fn state(changes: Vec<Change>) -> GameState {
        let mut st = GameState::default();
        for c in changes {
            st.push(c, "2026-12-01T12:00:00+08:00".into());
        }
        st
    }

    fn out(p: &str) -> Change {
        Change::Eliminate {
            player: p.into(),
            cause: "出局".into(),
            day: Some(1),
        }
    }

    fn fact(key: &str, value: f64) -> Change {
        Change::Fact {
            key: key.into(),
            value,
        }
    }

    const COURT_L194: &str = "我爱皇帝 负：本阵营的密探、太医、侍卫、太子全部出局";

    /// 002 L172 "已经被判负的阵营无法再次达到胜利条件" (the preset's `losses_stand`): L194's loss,
    /// met when the four 特 were out, stands after one of them comes back; where losses do
    /// not stand it is judged on the roster as it is now.
    #[test]
    fn a_loss_that_held_stands_after_a_revival() {
        let mut g = game(&SEATS);
        let mut changes: Vec<Change> = ["密探", "太医", "侍卫", "太子"].map(out).to_vec();
        changes.push(Change::Revive {
            player: "密探".into(),
            cause: "复活".into(),
        });
        let st = state(changes);
        let snap = st.snapshot(&g);
        assert!(snap.lost.contains("我爱皇帝"), "{:?}", snap.lost);
        assert!(snap.lost_by.contains(COURT_L194), "{:?}", snap.lost_by);
        std::sync::Arc::make_mut(&mut g.rules).victory.losses_stand = false;
        assert!(st.snapshot(&g).lost.is_empty());
    }

    /// A loss that held only while a fact it names was set (the judge's fact, then corrected)
    /// stands; a fact it does not name, a mark and a surrender change no rule's holding.
    #[test]
    fn a_loss_held_by_a_fact_alone_stands() {
        let mut g = game(&SEATS);
        std::sync::Arc::make_mut(&mut g.rules).win.push(WinRule {
            name: "测试负".into(),
            when: "fact(\"测试:负\") == 1".into(),
            faction: Some("杀了狗皇帝".into()),
            loses: true,
        });
        let st = state(vec![
            fact("测试:负", 1.0),
            fact("测试:负", 0.0),
            fact("别的:键", 1.0),
        ]);
        let snap = st.snapshot(&g);
        assert!(snap.lost_by.contains("测试负"), "{:?}", snap.lost_by);
        assert_eq!(snap.lost, ["杀了狗皇帝".to_string()].into());
        let st = state(vec![
            fact("别的:键", 1.0),
            Change::Mark {
                player: "刺一".into(),
                mark: "情侣".into(),
            },
        ]);
        assert!(st.snapshot(&g).lost.is_empty());
        // A surrender is a loss by itself (L86–90), not by a rule.
        let st = state(vec![Change::Surrender {
            faction: "我爱皇帝".into(),
        }]);
        let snap = st.snapshot(&g);
        assert_eq!(snap.lost, ["我爱皇帝".to_string()].into());
        assert!(snap.lost_by.is_empty());
    }

    /// Win conditions are judged only on a complete roster (`complete`): with one seat's role
    /// missing, no loss is judged however many are out.
    #[test]
    fn an_incomplete_roster_judges_no_loss() {
        let g = game(&SEATS[..13]);
        let st = state(["密探", "太医", "侍卫", "太子"].map(out).to_vec());
        assert!(st.snapshot(&g).lost.is_empty());
        let g = game(&SEATS);
        assert!(st.snapshot(&g).lost.contains("我爱皇帝"));
    }
}
