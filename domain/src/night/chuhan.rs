//! 楚汉 (chuhan, seed 000 §2.4–2.9): the night. Every power is sent privately and takes effect
//! at dawn, all at once (L99); an effective 禁锢 voids every power of the imprisoned (L28, L99).
//!
//! The states hang on each other (a 兵's prayer makes a player 无敌, which voids his 禁锢, which
//! lets his 车 imprison the 兵, which voids the prayer …), so they are found as a fixed point:
//! starting with every power in force, the players whose 禁锢 holds are voided, their
//! contributions removed, and the states computed again until the voided set stops changing.
//! The seed's own cycles are settled as it says: two 车 imprisoning each other are both
//! imprisoned (L71); a 炮 and his own 车 imprisoning each other leave the 炮 imprisoned (L70);
//! a player whose own power imprisons one of those making him 无敌 is neither 无敌 nor 禁锢 and
//! his power stands (2.6.9, L90–L95).
//!
//! Nothing here depends on the order of the actions, except 2.6.2 (1) (L59): two 炮 naming each
//! other as 炮架子, where the first sent fires.

use super::{
    last_of_each, used_key, Action, Choice, Death, Feedback, Night, PowerUse, ReadingUsed, Refused,
    Resolution, Resolver, StateLine,
};
use chrono::{DateTime, FixedOffset};
use std::collections::{BTreeMap, BTreeSet};

pub struct Chuhan;

/// The open points of seed 000's night (`../shared/NIGHT_AMBIGUITIES.md`, A-C1 … A-C11; A-C12
/// and A-C13 found on a second reading of L78, A-C14 of L53 with L23, A-C15 of L59 with L96).
pub const CHOICES: &[Choice] = &[
    Choice {
        key: "imprison_own_side",
        id: "A-C1",
        lines: "000 L29 “当夜被对方的车禁锢”, L68 “被禁锢者当夜进入禁锢状态”, L70",
        readings: &[
            ("takes_effect", "车禁锢本方玩家（炮以外）也生效（L68 为准）"),
            ("no_effect", "车只能禁锢对方，禁锢本方炮以外的人无效（L29 为准）"),
        ],
        default: "takes_effect",
    },
    Choice {
        key: "heal_saved_mine",
        id: "A-C2",
        lines: "000 L42 “夜间被杀死时一定是和攻击者同归于尽”",
        readings: &[
            ("attacker_lives", "兑子者被相救下、没有被杀死，攻击者不死"),
            ("attacker_dies", "攻击兑子者即引爆（地雷），攻击者死"),
        ],
        default: "attacker_lives",
    },
    Choice {
        key: "void_prayer_blocks",
        id: "A-C3",
        lines: "000 L64, L77 “对方小兵选择祈祷的对象”, L99 “将使被禁锢方当夜行使的所有特权无效”",
        readings: &[
            ("choice_blocks", "被禁锢的兵选择的祈祷对象仍然别马腿、塞相眼"),
            ("void_blocks_nothing", "被禁锢的兵祈祷无效，不别马腿、不塞相眼"),
        ],
        default: "choice_blocks",
    },
    Choice {
        key: "lone_ma_mine",
        id: "A-C4",
        lines: "000 L43 “形成连环马且没有被别马腿的双马”, L65 “双马天然构成连环马”",
        readings: &[
            ("no_pair", "只剩一匹马时不成连环马，不处于兑子状态"),
            ("still_mine", "“天然”是马的属性，单马仍处于兑子状态"),
        ],
        default: "no_pair",
    },
    Choice {
        key: "ma_invulnerable_blocked",
        id: "A-C5",
        lines: "000 L31 (1), L43, L65 “除非双马被别马腿”, L66",
        readings: &[
            ("pair_blocked", "马被别马腿即使无敌，双马也都失去兑子"),
            ("effective_only", "只有生效的禁锢才使双马失去兑子"),
        ],
        default: "pair_blocked",
    },
    Choice {
        key: "chou_jiang_scope",
        id: "A-C6",
        lines: "000 L53 “今夜或者明天自己可能被杀或被投”, L54 “如果帅本轮并没有被杀或被投，浪费一次抽将权”",
        readings: &[
            ("this_night", "抽将只管当夜；当夜帅没有被杀即浪费"),
            ("night_and_next_day", "抽将管当夜和次日投票；两者都没有被杀或被投才浪费"),
        ],
        default: "this_night",
    },
    Choice {
        key: "chou_jiang_kill_post",
        id: "A-C6",
        lines: "000 L53 “帅也确实被成功杀死”, L101 “如果杀人未成功，则不公布杀人帖”, L100–L102",
        readings: &[
            ("publish", "抽将代死时，杀帅的杀人帖照常公布（杀帅成功）"),
            ("withhold", "抽将代死时不公布杀人帖（帅没有死）"),
        ],
        default: "publish",
    },
    Choice {
        key: "prayer_x_no_enemy_bing",
        id: "A-C7",
        lines: "000 L86 “x=当夜活着的本方小兵人数/当夜活着的对方小兵人数…且x最小等于2”",
        readings: &[
            ("unreachable", "对方小兵全灭时 x 为无穷大，祈祷不能使人无敌"),
            ("two", "对方小兵全灭时 x = 2"),
            ("own_count", "对方小兵全灭时 x = 本方活着的小兵人数（至少 2）"),
        ],
        default: "unreachable",
    },
    Choice {
        key: "several_attackers_mine",
        id: "A-C8",
        lines: "000 L42 “一定是和攻击者同归于尽”",
        readings: &[
            ("every_attacker", "几个攻击者杀死同一个兑子者，每个攻击者都同归于尽"),
            ("judge_decides", "几个攻击者时不自动判，由法官决定谁同归于尽"),
        ],
        default: "every_attacker",
    },
    Choice {
        key: "shi_xiang_all_dead",
        id: "A-C9",
        lines: "000 L17 “对方小兵全灭或士相全灭”",
        readings: &[
            ("shi_and_xiang", "士和相全部死亡"),
            ("shi_or_xiang", "士全部死亡，或相全部死亡"),
        ],
        default: "shi_and_xiang",
    },
    Choice {
        key: "deadline_boundary",
        id: "A-C10",
        lines: "000 L96 “截至天亮之前10分钟，玩家都可以更换行使特权的对象”",
        readings: &[
            ("in_time", "恰好在天亮前 10 分钟寄出的仍然有效"),
            ("late", "恰好在天亮前 10 分钟寄出的已算迟到"),
        ],
        default: "in_time",
    },
    Choice {
        key: "check_result_dead_ma",
        id: "A-C11",
        lines: "000 L63 “天亮时法官将通过论坛短消息告诉双马所查证对象的身份和所属阵营”, L99",
        readings: &[
            ("told", "当夜死去的马也得到查证结果（同时生效）"),
            ("not_told", "当夜死去的马得不到查证结果"),
        ],
        default: "told",
    },
    Choice {
        key: "xiang_invulnerable_blocked",
        id: "A-C12",
        lines: "000 L78 “一个相选择救治本方另一个相且没有被塞相眼时，构成连环相”, L77 “该相被塞相眼。当夜进入禁锢状态”, L31 (1)",
        readings: &[
            ("blocked", "相被塞相眼即使无敌（禁锢无效），也不构成连环相"),
            ("effective_only", "只有生效的塞相眼（禁锢）才使连环相不成立"),
        ],
        default: "blocked",
    },
    Choice {
        key: "lianhuan_xiang_healer",
        id: "A-C13",
        lines: "000 L78 “一个相选择救治本方另一个相…构成连环相。被救治的相进入兑子状态。…连环相都不能被普通杀人权（帅、炮）杀害，但是可以被必杀（重叠炮），但是必杀者也会同归于尽”",
        readings: &[
            ("both", "单向连环相的两个相都不能被普通杀人权杀害；救人的相被必杀时，必杀者也同归于尽"),
            ("healed_only", "只有被救治的相受保护，救人的相照常可被杀"),
        ],
        default: "both",
    },
    Choice {
        key: "chou_jiang_invulnerable_substitute",
        id: "A-C14",
        lines: "000 L53 “本方被抓来抽将的这个人被抽杀”, L23 “处于无敌状态的玩家，将不受任何负面特权（被杀、被禁锢、被诅咒）影响”, L54 “抽将无效，还是帅死”",
        readings: &[
            ("shuai_dies", "被抓来抽将的人当夜无敌，不受抽杀（L23），抽将无效，还是帅死"),
            ("substitute_dies", "抽杀不受无敌影响，被抓来的人照样代帅死"),
        ],
        default: "shuai_dies",
    },
    Choice {
        key: "overlap_first_sent",
        id: "A-C15",
        lines: "000 L59 “本方双炮互相选对方做炮架子的话，先寄出短消息那一方行使特权，后寄出那一方作炮架子”, L96 “截至天亮之前10分钟，玩家都可以更换行使特权的对象”",
        readings: &[
            ("first_message", "以各自第一次选对方作炮架子的短消息的寄出时间判先后"),
            ("last_message", "以各自最后一条（有效的）短消息的寄出时间判先后"),
        ],
        default: "first_message",
    },
    Choice {
        key: "change_to_void",
        id: "A-C16",
        lines: "000 L96 “截至天亮之前10分钟，玩家都可以更换行使特权的对象”；L75 “不能救治双方老帅…视为放弃一夜救治权”",
        readings: &[
            ("last_sent", "以最后一次为准：最后一次的对象无效（已出局、不是本局玩家等）时，当夜不行使这项特权"),
            ("last_valid", "最后一次的对象无效时这一次被拒，之前有效的一次照旧"),
        ],
        default: "last_sent",
    },
];

fn choice(key: &str) -> &'static Choice {
    CHOICES
        .iter()
        .find(|c| c.key == key)
        .expect("every key read is declared in CHOICES")
}

/// The powers of seed 000 and the roles that hold them (2.6).
const POWERS: &[(&str, &[&str])] = &[
    ("杀人", &["帅", "炮"]),
    ("抽将", &["帅"]),
    ("炮架子", &["炮"]),
    ("禁锢", &["车"]),
    ("查证", &["马"]),
    ("救治", &["相"]),
    ("诅咒", &["左士", "士"]),
    ("庇佑", &["右士", "士"]),
    ("祈祷", &["兵"]),
];

/// How many 抽将 a 帅 has (L53 “帅在游戏中有两次抽将权”).
const CHOU_JIANG_TIMES: f64 = 2.0;

impl Resolver for Chuhan {
    fn choices(&self) -> &'static [Choice] {
        CHOICES
    }

    fn resolve(&self, night: &Night, actions: &[Action]) -> Resolution {
        let mut r = Run {
            n: night,
            res: Resolution {
                night: night.number,
                ..Default::default()
            },
            used: BTreeSet::new(),
            quiet: false,
            originals: Vec::new(),
            named_at: BTreeMap::new(),
        };
        let mut acts = r.sort_out(actions);
        acts.kill = r.overlapping_pao(&acts);
        let st = r.states(&acts);
        r.outcome(&acts, &st);
        r.finish();
        r.res
    }
}

/// One night being resolved.
struct Run<'a, 'b> {
    n: &'a Night<'b>,
    res: Resolution,
    /// Readings already listed (each once).
    used: BTreeSet<(&'static str, String)>,
    /// While the states are iterated: readings are applied but not listed (the final pass
    /// lists those that decided the night).
    quiet: bool,
    /// 查证 actions made the pair's (normalised, as sent): refused and late lists show them as
    /// sent.
    originals: Vec<(Action, Action)>,
    /// When each 炮 first named a platform, by the deadline: (炮, platform) → time (L59, A-C15).
    named_at: BTreeMap<(String, String), DateTime<FixedOffset>>,
}

/// A kill (帅 or 炮), validated.
#[derive(Debug, Clone)]
struct Kill {
    target: String,
    platform: Option<String>,
    sent_at: Option<DateTime<FixedOffset>>,
}

/// The night's valid actions, by actor.
#[derive(Debug, Default)]
struct Acts {
    kill: BTreeMap<String, Kill>,
    imprison: BTreeMap<String, String>,
    /// Per faction: the 马 who sent and the target.
    check: BTreeMap<String, (Vec<String>, String)>,
    heal: BTreeMap<String, String>,
    curse: BTreeMap<String, String>,
    bless: BTreeMap<String, String>,
    pray: BTreeMap<String, String>,
    chou: BTreeMap<String, String>,
}

/// Every state after every exception.
#[derive(Debug, Default)]
struct States {
    /// Effective 禁锢: these players' powers are void tonight.
    void: BTreeSet<String>,
    imprison_why: BTreeMap<String, Vec<String>>,
    invulnerable: BTreeMap<String, Vec<String>>,
    /// 2.6.9: neither 无敌 nor 禁锢, his power stands.
    special: BTreeSet<String>,
    bisha: BTreeMap<String, String>,
    mine: BTreeMap<String, String>,
    /// Factions whose 马 were 别马腿.
    ma_blocked: BTreeSet<String>,
    /// 相 who were 塞相眼.
    xiang_blocked: BTreeSet<String>,
    /// The healer of a one-way 连环相 (healer → the 相 he heals), not in 兑子 himself (L78; A-C13).
    xiang_healers: BTreeMap<String, String>,
}

/// The conditions of 禁锢 and 无敌 given a set of voided players: (player → (source, why)).
#[derive(Debug, Default)]
struct Conds {
    imp: BTreeMap<String, Vec<(String, String)>>,
    inv: BTreeMap<String, Vec<(String, String)>>,
    ma_blocked: BTreeSet<String>,
    xiang_blocked: BTreeSet<String>,
}

impl<'b> Run<'_, 'b> {
    fn seat(&self, p: &str) -> Option<&'b crate::rules::state::Seat> {
        self.n.seats.iter().find(|s| s.player == p)
    }
    fn role(&self, p: &str) -> &'b str {
        self.seat(p).map(|s| s.role.as_str()).unwrap_or("")
    }
    fn faction(&self, p: &str) -> &'b str {
        self.seat(p).map(|s| s.faction.as_str()).unwrap_or("")
    }
    fn is_shuai(&self, p: &str) -> bool {
        self.role(p) == "帅"
    }
    fn enemies(&self, a: &str, b: &str) -> bool {
        self.faction(a) != self.faction(b)
    }
    /// Roster order, for every list the judge reads.
    fn order(&self, p: &str) -> usize {
        self.n
            .seats
            .iter()
            .position(|s| s.player == p)
            .unwrap_or(usize::MAX)
    }
    fn alive_of(&self, faction: &str, roles: &[&str]) -> usize {
        self.n
            .seats
            .iter()
            .filter(|s| s.alive && s.faction == faction && roles.contains(&s.role.as_str()))
            .count()
    }

    /// The reading of `key`, listed in `readings_used` with what it decided.
    fn reading(&mut self, key: &str, decided: String) -> String {
        let c = choice(key);
        let r = self.n.reading(c).to_string();
        if !self.quiet && self.used.insert((c.key, decided.clone())) {
            self.res.readings_used.push(ReadingUsed {
                id: c.id.into(),
                key: c.key.into(),
                reading: r.clone(),
                decided,
            });
        }
        r
    }
    fn refuse(&mut self, a: &Action, reason: impl Into<String>) {
        self.res.refused.push(Refused {
            action: a.clone(),
            reason: reason.into(),
        });
    }
    fn judge(&mut self, line: String) {
        if !self.res.for_judge.contains(&line) {
            self.res.for_judge.push(line);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Sorting the actions out: late, changed, refused, valid.

impl Run<'_, '_> {
    fn sort_out(&mut self, actions: &[Action]) -> Acts {
        let deadline = self.n.deadline;
        let mut timely: Vec<Action> = Vec::new();
        for a in actions {
            if let (Some(t), Some(d)) = (a.sent_at, deadline) {
                if t == d {
                    let rd = self.reading(
                        "deadline_boundary",
                        format!(
                            "{} 恰好在截止时刻 {} 寄出",
                            names(&a.by),
                            d.format("%m-%d %H:%M")
                        ),
                    );
                    if rd == "late" {
                        self.res.late.push(a.clone());
                        continue;
                    }
                }
            }
            let joint = self.joint_check(a);
            if joint.by != a.by {
                self.originals.push((joint.clone(), a.clone()));
            }
            timely.push(joint);
        }
        let timely = self.give_ups(timely);
        let timely = self.untimed_conflicts(timely);
        let timely = self.void_changes(timely);
        self.note_first_platforms(&timely);
        let (kept, late) = last_of_each(&timely, deadline);
        self.replaced(&timely, &kept, &late);
        self.res.late.extend(late);
        let mut acts = Acts::default();
        let platforms = self.platform_actions(&kept);
        for a in &kept {
            if a.power == "炮架子" {
                continue;
            }
            if let Err(why) = self.check_action(a) {
                self.refuse(a, why);
                continue;
            }
            self.file(a, &platforms, &mut acts);
        }
        self.shi_conflicts(&mut acts, &kept);
        acts
    }

    /// A-C16: a player's last action of a power void (its object out, no player, …) after an
    /// earlier valid one. "last_sent": the last counts (L96), so the power is not used tonight;
    /// "last_valid": the void ones after the last valid are refused and it stands. Either way
    /// the draft says which.
    fn void_changes(&mut self, timely: Vec<Action>) -> Vec<Action> {
        let mut groups: BTreeMap<(Vec<String>, String), Vec<usize>> = BTreeMap::new();
        for (i, a) in timely.iter().enumerate() {
            if a.power != "炮架子" && a.sent_at.is_some() {
                groups
                    .entry((a.by.clone(), a.power.clone()))
                    .or_default()
                    .push(i);
            }
        }
        let mut drop: BTreeSet<usize> = BTreeSet::new();
        for mut g in groups.into_values() {
            g.sort_by_key(|&i| timely[i].sent_at);
            let Some(&last) = g.last() else { continue };
            let Err(why) = self.check_action(&timely[last]) else {
                continue;
            };
            let Some(&valid) = g
                .iter()
                .rev()
                .find(|&&i| self.check_action(&timely[i]).is_ok())
            else {
                continue;
            };
            let (a, v) = (&timely[last], &timely[valid]);
            let said = format!(
                "{} 最后一次「{}」（{}）无效：{why}",
                names(&a.by),
                a.power,
                a.source
            );
            if self.n.reading(choice("change_to_void")) == "last_valid" {
                self.reading(
                    "change_to_void",
                    format!("{said}；之前的 {} 照旧", v.source),
                );
                for &i in g.iter().filter(|&&i| timely[i].sent_at > v.sent_at) {
                    let why = match self.check_action(&timely[i]) {
                        Err(w) => w,
                        Ok(()) => continue,
                    };
                    self.refuse(
                        &timely[i],
                        format!(
                            "{why}；按读法 last_valid（A-C16），之前的 {} 照旧",
                            v.source
                        ),
                    );
                    drop.insert(i);
                }
            } else {
                self.reading(
                    "change_to_void",
                    format!(
                        "{said}；以最后一次为准（L96），当夜不行使，之前的 {} 不结算",
                        v.source
                    ),
                );
            }
        }
        timely
            .into_iter()
            .enumerate()
            .filter(|(i, _)| !drop.contains(i))
            .map(|(_, a)| a)
            .collect()
    }

    /// L96: the actions a later one of the same player and power replaced, listed with it (not
    /// dropped silently).
    fn replaced(&mut self, timely: &[Action], kept: &[Action], late: &[Action]) {
        let mut rest: Vec<&Action> = kept.iter().chain(late).collect();
        for a in timely {
            if let Some(i) = rest.iter().position(|k| *k == a) {
                rest.remove(i);
                continue;
            }
            let same = |k: &&Action| k.by == a.by && k.power == a.power;
            // The same action sent again is one action.
            if let Some(k) = kept
                .iter()
                .find(|k| same(k) && (&k.target, &k.platform) != (&a.target, &a.platform))
            {
                let why = format!("已被之后的 {} 取代（L96 以最后一次为准）", k.source);
                self.refuse(a, why);
            }
        }
    }

    /// L97 “所有玩家夜间都可以放弃行使当夜特权”: a `放弃` (its target the power given up, or none
    /// for all of them) withdraws that player's actions of the power sent before it (untimed
    /// ones included); one sent after it counts again (L96). A 马 gives up the pair's 查证.
    fn give_ups(&mut self, actions: Vec<Action>) -> Vec<Action> {
        let (gives, rest): (Vec<Action>, Vec<Action>) =
            actions.into_iter().partition(|a| a.power == "放弃");
        let mut valid: Vec<(Action, Vec<&'static str>)> = Vec::new();
        for g in gives {
            if let (Some(t), Some(d)) = (g.sent_at, self.n.deadline) {
                if t > d {
                    self.res.late.push(g);
                    continue;
                }
            }
            match self.given_up(&g) {
                Ok(powers) => valid.push((g, powers)),
                Err(why) => self.refuse(&g, why),
            }
        }
        let mut out = Vec::new();
        for a in rest {
            let by = valid.iter().find(|(g, powers)| {
                a.by.iter().any(|b| g.by.contains(b))
                    && powers.contains(&a.power.as_str())
                    && match (a.sent_at, g.sent_at) {
                        (Some(x), Some(y)) => x <= y,
                        _ => true,
                    }
            });
            match by {
                Some((g, _)) => {
                    let why = format!(
                        "{} 之后放弃了当夜的「{}」（{}，L97）",
                        names(&g.by),
                        a.power,
                        g.source
                    );
                    self.refuse(&a, why);
                }
                None => out.push(a),
            }
        }
        out
    }

    /// The powers a `放弃` gives up: the one it names, or every power of the player's role.
    fn given_up(&self, g: &Action) -> Result<Vec<&'static str>, String> {
        let [b] = g.by.as_slice() else {
            return Err("「放弃」要由一名玩家提交".into());
        };
        let Some(s) = self.seat(b) else {
            return Err(format!("{b} 不是本局玩家"));
        };
        if !s.alive {
            return Err(format!("{b} 已经出局，不能行使特权"));
        }
        let named = |p: &str| match g.target.as_deref() {
            None => true,
            Some(t) => t == p || (t == "杀人" && p == "炮架子"),
        };
        let mut powers: Vec<&'static str> = POWERS
            .iter()
            .filter(|(p, roles)| roles.contains(&s.role.as_str()) && named(p))
            .map(|(p, _)| *p)
            .collect();
        if let Some(side) = shi_side(s) {
            let other = if side == "左士" { "庇佑" } else { "诅咒" };
            powers.retain(|p| *p != other);
        }
        if powers.is_empty() {
            return Err(format!(
                "{b} 的身份是{}，没有「{}」权可放弃（2.6）",
                s.role,
                g.target.as_deref().unwrap_or("")
            ));
        }
        Ok(powers)
    }

    /// The first time, by the deadline, each 炮 named each platform (in a kill or on its own).
    fn note_first_platforms(&mut self, timely: &[Action]) {
        for a in timely {
            let p = match a.power.as_str() {
                "杀人" => a.platform.as_ref(),
                "炮架子" => a.target.as_ref(),
                _ => None,
            };
            let (Some(p), Some(t), [by]) = (p, a.sent_at, a.by.as_slice()) else {
                continue;
            };
            if self.n.deadline.is_some_and(|d| t > d) {
                continue;
            }
            let e = self.named_at.entry((by.clone(), p.clone())).or_insert(t);
            *e = (*e).min(t);
        }
    }

    /// The 马 check is the pair's one action (L63 “共同向法官提交一个查证对象”): a 查证 by either
    /// 马 is the pair's, so a later one from the other 马 changes it. The pair is the 马 alive at
    /// dusk: a 马 whose partner is dead still holds the power (L63 “马拥有查证权”) and checks alone.
    fn joint_check(&self, a: &Action) -> Action {
        let mut a = a.clone();
        if a.power == "查证"
            && !a.by.is_empty()
            && a.by.iter().all(|b| self.role(b) == "马" && self.n.alive(b))
        {
            let f = self.faction(&a.by[0]);
            if a.by.iter().all(|b| self.faction(b) == f) {
                let mut pair: Vec<String> = self
                    .n
                    .seats
                    .iter()
                    .filter(|s| s.role == "马" && s.faction == f && s.alive)
                    .map(|s| s.player.clone())
                    .collect();
                pair.sort();
                a.by = pair;
            }
        }
        a
    }

    /// Two actions of one actor and power that differ and were sent at the same latest moment
    /// (or both without a time): nothing says which is the last (L96), so the actor's actions
    /// of that power are all refused, whatever their order in the file.
    fn untimed_conflicts(&mut self, actions: Vec<Action>) -> Vec<Action> {
        let key = |a: &Action| (a.by.clone(), a.power.clone());
        let deadline = self.n.deadline;
        let in_time = |a: &Action| match (a.sent_at, deadline) {
            (Some(t), Some(d)) => t <= d,
            _ => true,
        };
        let mut groups: BTreeMap<(Vec<String>, String), Vec<&Action>> = BTreeMap::new();
        for a in actions.iter().filter(|a| in_time(a)) {
            groups.entry(key(a)).or_default().push(a);
        }
        let mut bad: BTreeSet<(Vec<String>, String)> = BTreeSet::new();
        for (k, g) in &groups {
            let top = g.iter().map(|a| a.sent_at).max().flatten();
            let last: BTreeSet<(&Option<String>, &Option<String>)> = g
                .iter()
                .filter(|a| a.sent_at == top)
                .map(|a| (&a.target, &a.platform))
                .collect();
            if last.len() > 1 {
                bad.insert(k.clone());
            }
        }
        let mut out = Vec::new();
        for a in actions {
            if bad.contains(&key(&a)) && in_time(&a) {
                self.refuse(
                    &a,
                    format!(
                        "{} 的「{}」有两条不同的行动，寄出时间相同或都没有写，无法判断哪条是最后的（L96 以最后一次为准）",
                        names(&a.by),
                        a.power
                    ),
                );
            } else {
                out.push(a);
            }
        }
        out
    }

    /// 炮架子 sent as its own action: merged into the 炮's kill; alone, it is refused.
    fn platform_actions(&mut self, kept: &[Action]) -> BTreeMap<String, Action> {
        let mut out = BTreeMap::new();
        for a in kept.iter().filter(|a| a.power == "炮架子") {
            let by = a.by.join("、");
            let has_kill = kept.iter().any(|k| k.by == a.by && k.power == "杀人");
            if a.by.len() != 1 || !has_kill {
                self.refuse(
                    a,
                    format!("{by} 只给了炮架子、没有杀人对象：炮架子要和杀人一起提交（L57）"),
                );
            } else {
                out.insert(by, a.clone());
            }
        }
        out
    }

    /// Whether one action can be used at all; the reason in Chinese when not.
    fn check_action(&self, a: &Action) -> Result<(), String> {
        let by = names(&a.by);
        if a.by.is_empty() {
            return Err("没有写行动的玩家".into());
        }
        let Some(roles) = POWERS.iter().find(|(p, _)| *p == a.power).map(|(_, r)| r) else {
            let known: Vec<&str> = POWERS.iter().map(|(p, _)| *p).collect();
            return Err(format!(
                "「{}」不是楚汉的特权（有：{}）",
                a.power,
                known.join("、")
            ));
        };
        if a.by.len() > 1 && a.power != "查证" {
            return Err(format!("{by}：「{}」不是共同行使的特权", a.power));
        }
        for b in &a.by {
            let Some(s) = self.seat(b) else {
                return Err(format!("{b} 不是本局玩家"));
            };
            if !s.alive {
                return Err(format!("{b} 已经出局，不能行使特权"));
            }
            if !roles.contains(&s.role.as_str()) {
                return Err(format!(
                    "{b} 的身份是{}，没有「{}」权（2.6）",
                    s.role, a.power
                ));
            }
            match (shi_side(s), a.power.as_str()) {
                (Some("左士"), "庇佑") => {
                    return Err(format!("{b} 是左士，左士只有诅咒权（L80），没有庇佑权"))
                }
                (Some("右士"), "诅咒") => {
                    return Err(format!("{b} 是右士，右士只有庇佑权（L82），没有诅咒权"))
                }
                _ => {}
            }
        }
        if a.by.len() > 1
            && a.by
                .iter()
                .any(|b| self.faction(b) != self.faction(&a.by[0]))
        {
            return Err(format!("{by} 不是同一方的双马"));
        }
        let Some(t) = a.target.as_deref() else {
            return Err(format!("{by} 的「{}」没有写对象", a.power));
        };
        self.check_target(a, t)?;
        if a.power == "抽将" && self.n.fact(&used_key(&a.by[0], "抽将")) >= CHOU_JIANG_TIMES {
            return Err(format!("{by} 的两次抽将权已经用完（L53）"));
        }
        Ok(())
    }

    fn check_target(&self, a: &Action, t: &str) -> Result<(), String> {
        let by = names(&a.by);
        let Some(ts) = self.seat(t) else {
            return Err(format!("对象 {t} 不是本局玩家"));
        };
        if !ts.alive {
            return Err(format!("对象 {t} 已经出局"));
        }
        let actor_role = self.role(&a.by[0]);
        if a.by.iter().any(|b| b == t) && ["帅", "炮", "车", "马"].contains(&actor_role) {
            return Err(format!("{by}：帅、炮、车、马不能对自己行使特权（L98）"));
        }
        if ts.role == "帅" {
            let line = match a.power.as_str() {
                "禁锢" => Some("不能禁锢双方老帅（L69）"),
                "救治" => Some("不能救治双方老帅，视为放弃一夜救治权（L75）"),
                "祈祷" => Some("不能祈祷双方老帅（L87）"),
                _ => None,
            };
            if let Some(l) = line {
                return Err(format!("{by} → {t}：{l}"));
            }
        }
        Ok(())
    }

    /// A valid action into its table; a 炮's kill needs a valid 炮架子 (L57, L58).
    fn file(&mut self, a: &Action, platforms: &BTreeMap<String, Action>, acts: &mut Acts) {
        let by = a.by[0].clone();
        let t = a.target.clone().unwrap_or_default();
        match a.power.as_str() {
            "杀人" => {
                let mut platform = a.platform.clone();
                let mut sent_at = a.sent_at;
                if let Some(p) = platforms.get(&by) {
                    // Both given: the later counts (L96); at one moment, or untimed, they conflict.
                    let later = match (a.sent_at, p.sent_at) {
                        (Some(x), Some(y)) if y > x => Some(true),
                        (Some(x), Some(y)) if x > y => Some(false),
                        _ => None,
                    };
                    if platform.is_some() && platform != p.target && later.is_none() {
                        let why = format!("{by} 给了两个不同的炮架子（杀人里写的和单独寄的），无法判断哪个是最后的");
                        self.refuse(a, why.clone());
                        self.refuse(p, why);
                        return;
                    }
                    if platform.is_none() || later == Some(true) {
                        platform = p.target.clone();
                    }
                    sent_at = sent_at.max(p.sent_at);
                }
                if self.role(&by) == "炮" {
                    if let Err(why) = self.check_platform(&by, &t, platform.as_deref()) {
                        self.refuse(a, why);
                        return;
                    }
                } else {
                    platform = None;
                }
                acts.kill.insert(
                    by,
                    Kill {
                        target: t,
                        platform,
                        sent_at,
                    },
                );
            }
            "禁锢" => {
                if !self.enemies(&by, &t) && self.role(&t) != "炮" {
                    let rd = self.reading("imprison_own_side", format!("车 {by} 禁锢本方的 {t}"));
                    if rd == "no_effect" {
                        self.refuse(
                            a,
                            format!("车 {by} 禁锢本方的 {t}：按所选读法，车只能禁锢对方（L29）"),
                        );
                        return;
                    }
                }
                acts.imprison.insert(by, t);
            }
            "查证" => {
                let f = self.faction(&by).to_string();
                acts.check.insert(f, (a.by.clone(), t));
            }
            "救治" => {
                acts.heal.insert(by, t);
            }
            "诅咒" | "庇佑" => {
                if self
                    .seat(&by)
                    .is_some_and(|s| s.role == "士" && shi_side(s).is_none())
                {
                    self.judge(format!(
                        "士 {by} 未注明左右（名单 marks = [\"左士\"] 或 [\"右士\"]）：诅咒只属左士（L80），庇佑只属右士（L82），请法官核对他的「{}」",
                        a.power
                    ));
                }
                let table = if a.power == "诅咒" {
                    &mut acts.curse
                } else {
                    &mut acts.bless
                };
                table.insert(by, t);
            }
            "祈祷" => {
                acts.pray.insert(by, t);
            }
            "抽将" => {
                acts.chou.insert(by, t);
            }
            _ => {}
        }
    }

    /// L57 “必须指定一个活着的玩家作炮架子”, L58 “不能选双方老帅…也不能选自己要杀的人”.
    fn check_platform(&self, by: &str, target: &str, p: Option<&str>) -> Result<(), String> {
        let give_up = "视为放弃当夜的杀人权（L58）";
        let Some(p) = p else {
            return Err(format!("炮 {by} 杀人没有选炮架子，{give_up}"));
        };
        let Some(s) = self.seat(p) else {
            return Err(format!("炮 {by} 的炮架子 {p} 不是本局玩家，{give_up}"));
        };
        if !s.alive {
            return Err(format!("炮 {by} 的炮架子 {p} 已经出局，{give_up}"));
        }
        if s.role == "帅" {
            return Err(format!("炮 {by} 选了老帅 {p} 作炮架子，{give_up}"));
        }
        if p == target {
            return Err(format!("炮 {by} 选了自己要杀的 {p} 作炮架子，{give_up}"));
        }
        if p == by {
            return Err(format!("炮 {by} 选了自己作炮架子（L98），{give_up}"));
        }
        Ok(())
    }

    /// A 士 whose role does not say left or right may curse or bless, not both in one night.
    fn shi_conflicts(&mut self, acts: &mut Acts, kept: &[Action]) {
        let both: Vec<String> = acts
            .curse
            .keys()
            .filter(|p| acts.bless.contains_key(*p))
            .cloned()
            .collect();
        for p in both {
            acts.curse.remove(&p);
            acts.bless.remove(&p);
            for a in kept
                .iter()
                .filter(|a| a.by == [p.clone()] && (a.power == "诅咒" || a.power == "庇佑"))
            {
                self.refuse(
                    a,
                    format!("{p} 同一夜既诅咒又庇佑：两条行动冲突（一个士只有一种权）"),
                );
            }
        }
    }
}

/// Which 士 a seat is: its role (左士 / 右士), or for the preset's role 士 (its win checks count
/// 士) a mark on the seat; None when nothing says.
fn shi_side(s: &crate::rules::state::Seat) -> Option<&'static str> {
    ["左士", "右士"]
        .into_iter()
        .find(|side| s.role == *side || (s.role == "士" && s.marks.iter().any(|m| m == side)))
}

fn names(by: &[String]) -> String {
    by.join("、")
}

// ---------------------------------------------------------------------------------------------
// The states (2.5, 2.6's 特别规定, 2.6.9).

impl Run<'_, '_> {
    fn states(&mut self, acts: &Acts) -> States {
        let mut void: BTreeSet<String> = BTreeSet::new();
        let mut special = BTreeSet::new();
        let mut settled = false;
        self.quiet = true;
        for _ in 0..64 {
            let c = self.conds(acts, &void);
            let (next, sp) = self.voided(acts, &void, &c);
            special = sp;
            if next == void {
                settled = true;
                break;
            }
            void = next;
        }
        self.quiet = false;
        if !settled {
            self.judge("禁锢与无敌相互牵连、反复变化，无法确定：请法官按规则逐一裁定（列出的状态是最后一轮的结果）".into());
        }
        let c = self.conds(acts, &void);
        let mut st = States {
            void: void.clone(),
            special,
            ma_blocked: c.ma_blocked.clone(),
            xiang_blocked: c.xiang_blocked.clone(),
            ..Default::default()
        };
        for (p, why) in &c.inv {
            if !st.special.contains(p) {
                st.invulnerable
                    .insert(p.clone(), why.iter().map(|w| w.1.clone()).collect());
            }
        }
        for (p, why) in &c.imp {
            st.imprison_why
                .insert(p.clone(), why.iter().map(|w| w.1.clone()).collect());
        }
        self.bisha(acts, &mut st);
        self.mines(acts, &mut st);
        self.state_lines(&st);
        st
    }

    /// 2.6.2 (1) (L59): two 炮 of one side naming each other as 炮架子: the first sent fires and
    /// the later one is the platform (his kill is not made).
    fn overlapping_pao(&mut self, acts: &Acts) -> BTreeMap<String, Kill> {
        let mut kill = acts.kill.clone();
        let pairs: Vec<(String, String)> = acts
            .kill
            .iter()
            .filter_map(|(a, k)| {
                let b = k.platform.as_ref()?;
                let kb = acts.kill.get(b)?;
                (a < b && kb.platform.as_deref() == Some(a.as_str()))
                    .then(|| (a.clone(), b.clone()))
            })
            .collect();
        for (a, b) in pairs {
            let later = self.later_of_pair(&a, &b, acts);
            match later {
                Some(l) => {
                    let first = if l == a { &b } else { &a };
                    self.judge(format!(
                        "双炮 {first}、{l} 互选对方作炮架子：先寄出的 {first} 行使特权，后寄出的 {l} 作炮架子，{l} 当夜的杀人不生效（L59）"
                    ));
                    kill.remove(&l);
                }
                None => {
                    self.judge(format!(
                        "双炮 {a}、{b} 互选对方作炮架子，但无法从寄出时间判断先后（L59 先寄出者行使特权）：两人的杀人都未结算，请法官查明先后"
                    ));
                    kill.remove(&a);
                    kill.remove(&b);
                }
            }
        }
        kill
    }
}

impl Run<'_, '_> {
    /// L59 “先寄出短消息那一方行使特权，后寄出那一方作炮架子”: which of two 炮 naming each other
    /// sent later. A 炮 who changed his message (L96) sent first by his first message naming the
    /// other and last by the one that counts: A-C15 picks.
    fn later_of_pair(&mut self, a: &str, b: &str, acts: &Acts) -> Option<String> {
        let later =
            |ta: Option<DateTime<FixedOffset>>, tb: Option<DateTime<FixedOffset>>| match (ta, tb) {
                (Some(x), Some(y)) if x < y => Some(b.to_string()),
                (Some(x), Some(y)) if y < x => Some(a.to_string()),
                _ => None,
            };
        let by_last = later(acts.kill[a].sent_at, acts.kill[b].sent_at);
        let first = |x: &str, y: &str| self.named_at.get(&(x.to_string(), y.to_string())).copied();
        let by_first = later(first(a, b), first(b, a));
        if by_first == by_last || by_first.is_none() {
            return by_last;
        }
        let rd = self.reading(
            "overlap_first_sent",
            format!("双炮 {a}、{b} 互选对方作炮架子，其中有人改过短消息：谁算先寄出"),
        );
        if rd == "last_message" {
            by_last
        } else {
            by_first
        }
    }

    /// The 禁锢 and 无敌 conditions with the powers of `void` removed.
    fn conds(&mut self, acts: &Acts, void: &BTreeSet<String>) -> Conds {
        let mut c = Conds::default();
        let on = |p: &str| !void.contains(p);
        // L68, L71: a 车's 禁锢; two 车 imprisoning each other are both imprisoned.
        for (r, t) in &acts.imprison {
            let mutual = acts.imprison.get(t) == Some(r);
            if on(r) || mutual {
                c.imp.entry(t.clone()).or_default().push((
                    r.clone(),
                    if mutual && self.role(t) == "车" {
                        format!("与车 {r} 互相禁锢（L71）")
                    } else {
                        format!("被车 {r} 禁锢（L68）")
                    },
                ));
            }
        }
        // L57, L61, L70: the 炮架子.
        for (g, k) in &acts.kill {
            let Some(p) = k.platform.as_deref() else {
                continue;
            };
            if !on(g) {
                continue;
            }
            if self.enemies(g, p) {
                c.inv
                    .entry(p.into())
                    .or_default()
                    .push((g.clone(), format!("作对方炮 {g} 的炮架子（L24, L57）")));
            } else if self.role(p) == "马" {
                // L61 马后炮: the 马 is not imprisoned for being the platform.
            } else if acts.imprison.get(p).map(String::as_str) == Some(g.as_str()) {
                // L70: 车 and 炮 imprisoning each other: the 炮 is, the 车 is not.
            } else {
                c.imp
                    .entry(p.into())
                    .or_default()
                    .push((g.clone(), format!("作本方炮 {g} 的炮架子（L29, L57）")));
            }
        }
        self.blocks(acts, void, &mut c);
        self.prayers(acts, void, &mut c);
        // L26, L31 (2): the 帅 is never 无敌 nor 禁锢.
        let shuai: Vec<String> = c
            .imp
            .keys()
            .chain(c.inv.keys())
            .filter(|p| self.is_shuai(p))
            .cloned()
            .collect();
        for s in shuai {
            c.imp.remove(&s);
            c.inv.remove(&s);
        }
        c
    }

    /// 别马腿 (L64) and 塞相眼 (L77): an enemy 兵's prayer on the 马's check target or the 相's
    /// heal target. A prayer of an imprisoned 兵 blocks as A-C3 reads.
    fn blocks(&mut self, acts: &Acts, void: &BTreeSet<String>, c: &mut Conds) {
        let mut hits: Vec<(String, String, String)> = Vec::new(); // (blocked, 兵, target)
        for (f, (mas, t)) in &acts.check {
            for (b, pt) in &acts.pray {
                if pt == t && self.faction(b) != f {
                    for m in mas.iter().filter(|m| self.seat(m).is_some_and(|s| s.alive)) {
                        hits.push((m.clone(), b.clone(), t.clone()));
                    }
                }
            }
        }
        for (h, t) in &acts.heal {
            for (b, pt) in &acts.pray {
                if pt == t && self.enemies(b, h) {
                    hits.push((h.clone(), b.clone(), t.clone()));
                }
            }
        }
        for (p, b, t) in hits {
            if void.contains(&b) {
                let rd = self.reading(
                    "void_prayer_blocks",
                    format!("被禁锢的兵 {b} 祈祷 {t}：是否仍别马腿、塞相眼"),
                );
                if rd != "choice_blocks" {
                    continue;
                }
            }
            let why = if self.role(&p) == "马" {
                c.ma_blocked.insert(self.faction(&p).to_string());
                format!("被别马腿：对方兵 {b} 祈祷的正是查证对象 {t}（L64）")
            } else {
                c.xiang_blocked.insert(p.clone());
                format!("被塞相眼：对方兵 {b} 祈祷的正是救治对象 {t}（L77）")
            };
            c.imp.entry(p).or_default().push((b, why));
        }
    }

    /// L85, L86: x prayers of one's own side's 兵 make one 无敌.
    fn prayers(&mut self, acts: &Acts, void: &BTreeSet<String>, c: &mut Conds) {
        let mut by_target: BTreeMap<&String, Vec<&String>> = BTreeMap::new();
        for (b, t) in &acts.pray {
            if !void.contains(b) && !self.enemies(b, t) {
                by_target.entry(t).or_default().push(b);
            }
        }
        for (t, bs) in by_target {
            let f = self.faction(t).to_string();
            let Some(x) = self.x_for(&f) else {
                continue;
            };
            if bs.len() >= x {
                let who = bs.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("、");
                for b in &bs {
                    c.inv.entry(t.clone()).or_default().push((
                        (*b).clone(),
                        format!(
                            "得到本方 {} 个小兵（{who}）的祈祷，x = {x}（L85, L86）",
                            bs.len()
                        ),
                    ));
                }
            }
        }
    }

    /// L86: x = ⌈own 兵 alive ÷ enemy 兵 alive⌉, at least 2; None: no prayer suffices (A-C7).
    fn x_for(&mut self, faction: &str) -> Option<usize> {
        let own = self.alive_of(faction, &["兵"]);
        let enemy = self
            .n
            .seats
            .iter()
            .filter(|s| s.alive && s.faction != faction && s.role == "兵")
            .count();
        if enemy == 0 {
            let rd = self.reading(
                "prayer_x_no_enemy_bing",
                format!("{faction}方祈祷：对方小兵全灭时的 x"),
            );
            return match rd.as_str() {
                "two" => Some(2),
                "own_count" => Some(own.max(2)),
                _ => None,
            };
        }
        Some(own.div_ceil(enemy).max(2))
    }

    /// The players whose 禁锢 holds given the conditions; and those 2.6.9 saves.
    fn voided(
        &mut self,
        acts: &Acts,
        void: &BTreeSet<String>,
        c: &Conds,
    ) -> (BTreeSet<String>, BTreeSet<String>) {
        let mut next = BTreeSet::new();
        let mut special = BTreeSet::new();
        for p in c.imp.keys() {
            if c.inv.contains_key(p) {
                continue; // L31 (1)
            }
            // 2.6.9: the players voided only by p's own power, un-voided: is p 无敌 then?
            let only_by_p: BTreeSet<String> = void
                .iter()
                .filter(|v| {
                    c.imp
                        .get(*v)
                        .is_some_and(|s| !s.is_empty() && s.iter().all(|(src, _)| src == p))
                })
                .cloned()
                .collect();
            if !only_by_p.is_empty() {
                let less: BTreeSet<String> = void.difference(&only_by_p).cloned().collect();
                let c2 = self.conds(acts, &less);
                if c2
                    .inv
                    .get(p)
                    .is_some_and(|s| s.iter().any(|(src, _)| only_by_p.contains(src)))
                {
                    special.insert(p.clone());
                    continue;
                }
            }
            next.insert(p.clone());
        }
        (next, special)
    }

    /// 必杀 (L33–L38): a 炮 firing over his own other 炮 (重叠炮, L59), unless his 禁锢 holds.
    fn bisha(&mut self, acts: &Acts, st: &mut States) {
        for (g, k) in &acts.kill {
            let Some(p) = k.platform.as_deref() else {
                continue;
            };
            if self.role(p) == "炮" && !self.enemies(g, p) && self.role(g) == "炮" {
                if st.void.contains(g) {
                    self.judge(format!("炮 {g} 的必杀因自身被禁锢而无效（L37）"));
                } else {
                    st.bisha.insert(
                        g.clone(),
                        format!("以本方炮 {p} 作炮架子，构成重叠炮（L34, L59）"),
                    );
                }
            }
        }
    }
}

impl Run<'_, '_> {
    /// 兑子 (L41–L49): 连环炮 (L60), 连环马 (L65), 连环相 (L78).
    fn mines(&mut self, acts: &Acts, st: &mut States) {
        let mut mine: BTreeMap<String, String> = BTreeMap::new();
        // 连环炮: two 炮 of one side with one 炮架子 (L60); L49 (5): one imprisoned keeps the
        // other out of 兑子.
        for (a, ka) in &acts.kill {
            for (b, kb) in &acts.kill {
                if a != b
                    && self.role(a) == "炮"
                    && self.role(b) == "炮"
                    && !self.enemies(a, b)
                    && ka.platform.is_some()
                    && ka.platform == kb.platform
                    && !st.void.contains(b)
                {
                    mine.insert(a.clone(), format!("与炮 {b} 共选炮架子，构成连环炮（L60）"));
                }
            }
        }
        self.ma_mines(st, &mut mine);
        // 连环相 (L78): a 相 healing his own other 相, not 塞相眼 and not imprisoned (L49 (5)).
        let mut healers = BTreeMap::new();
        for (h, t) in &acts.heal {
            if self.role(t) == "相"
                && !self.enemies(h, t)
                && h != t
                && !st.void.contains(h)
                && !self.xiang_eye_blocks(h, st)
            {
                mine.insert(
                    t.clone(),
                    format!("得到本方相 {h} 的救治，构成连环相（L78）"),
                );
                healers.insert(h.clone(), t.clone());
            }
        }
        // L47: 无敌 and 兑子 → 兑子 is void.
        mine.retain(|p, _| !st.invulnerable.contains_key(p));
        healers.retain(|h, _| !mine.contains_key(h));
        st.mine = mine;
        st.xiang_healers = healers;
    }

    /// L78 “且没有被塞相眼”: whether the 塞相眼 of `h` keeps him out of 连环相; when his 禁锢 is
    /// invalid (无敌, L31 (1), or 2.6.9), as A-C12 reads.
    fn xiang_eye_blocks(&mut self, h: &str, st: &States) -> bool {
        if !st.xiang_blocked.contains(h) {
            return false;
        }
        if st.void.contains(h) {
            return true;
        }
        let rd = self.reading(
            "xiang_invulnerable_blocked",
            format!("相 {h} 被塞相眼但禁锢无效：是否仍不构成连环相"),
        );
        rd != "effective_only"
    }

    /// 连环马 (L65): both 马 of a side unless 别马腿 (L43, L65; A-C5) or one imprisoned (L49 (5));
    /// a lone 马 as A-C4 reads.
    fn ma_mines(&mut self, st: &States, mine: &mut BTreeMap<String, String>) {
        let mut factions: BTreeSet<String> = BTreeSet::new();
        for s in self.n.seats.iter().filter(|s| s.alive && s.role == "马") {
            factions.insert(s.faction.clone());
        }
        for f in factions {
            let mas: Vec<String> = self
                .n
                .seats
                .iter()
                .filter(|s| s.alive && s.role == "马" && s.faction == f)
                .map(|s| s.player.clone())
                .collect();
            if mas.len() == 1 {
                let rd = self.reading(
                    "lone_ma_mine",
                    format!("{f}方只剩一匹马 {}：是否处于兑子状态", mas[0]),
                );
                if rd != "still_mine" {
                    continue;
                }
            }
            let imprisoned = mas.iter().any(|m| st.void.contains(m));
            let blocked = st.ma_blocked.contains(&f);
            if blocked && !imprisoned {
                let rd = self.reading(
                    "ma_invulnerable_blocked",
                    format!("{f}方马被别马腿但禁锢因无敌无效：是否仍失去兑子"),
                );
                if rd == "pair_blocked" {
                    continue;
                }
            }
            if imprisoned || blocked {
                continue;
            }
            for m in &mas {
                mine.insert(m.clone(), "双马天然构成连环马（L65）".into());
            }
        }
    }

    fn state_lines(&mut self, st: &States) {
        let mut lines: Vec<(usize, crate::night::StateLine)> = Vec::new();
        let mut push = |me: &Self, p: &str, state: &str, why: String| {
            lines.push((
                me.order(p),
                StateLine {
                    player: p.into(),
                    state: state.into(),
                    why,
                },
            ));
        };
        for (p, why) in &st.invulnerable {
            push(self, p, "无敌", dedup(why));
        }
        for (p, why) in &st.imprison_why {
            if st.void.contains(p) {
                push(
                    self,
                    p,
                    "禁锢",
                    dedup(why) + "；当夜特权全部无效（L28, L99）",
                );
            } else if st.special.contains(p) {
                push(
                    self,
                    p,
                    "无（特例）",
                    format!(
                        "{}；但他的特权禁锢了使他无敌的人，按特例既不无敌也不禁锢，特权有效（2.6.9, L90–L95）",
                        dedup(why)
                    ),
                );
            } else if st.invulnerable.contains_key(p) {
                push(
                    self,
                    p,
                    "禁锢（无效）",
                    dedup(why) + "；同时无敌，禁锢无效（L31）",
                );
            }
        }
        for (p, why) in &st.bisha {
            push(self, p, "必杀", why.clone());
        }
        for (p, why) in &st.mine {
            push(self, p, "兑子", why.clone());
        }
        lines.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.state.cmp(&b.1.state)));
        self.res.states = lines.into_iter().map(|(_, l)| l).collect();
    }
}

fn dedup(v: &[String]) -> String {
    let mut seen: Vec<&String> = Vec::new();
    for s in v {
        if !seen.contains(&s) {
            seen.push(s);
        }
    }
    seen.into_iter().cloned().collect::<Vec<_>>().join("；")
}

// ---------------------------------------------------------------------------------------------
// The outcome: kills, 抽将, curses, checks, the dawn.

/// A kill that took effect: the killer's kill post is published (L100, L101).
struct Hit {
    killer: String,
}

impl Run<'_, '_> {
    fn outcome(&mut self, acts: &Acts, st: &States) {
        let mut deaths: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut hits: Vec<Hit> = Vec::new();
        let healed: BTreeMap<&String, &String> = acts
            .heal
            .iter()
            .filter(|(h, _)| !st.void.contains(*h))
            .map(|(h, t)| (t, h))
            .collect();
        // 兑子 targets killed, with their attackers (A-C8).
        let mut mine_hits: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut shuai_hit: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (a, k) in &acts.kill {
            if st.void.contains(a) {
                continue;
            }
            let t = &k.target;
            if self.is_shuai(t) {
                if self.shuai_killable(t) {
                    shuai_hit.entry(t.clone()).or_default().push(a.clone());
                } else {
                    self.judge(format!(
                        "{a} 杀帅 {t}：杀帅条件未满足（对方小兵全灭或士相全灭，L17），帅不死，浪费一次杀人权；法官不公布原因"
                    ));
                }
                continue;
            }
            if st.invulnerable.contains_key(t) {
                self.judge(format!("{a} 杀 {t}：{t} 无敌，杀人无效（L23）"));
                continue;
            }
            let bisha = st.bisha.contains_key(a);
            let guarded = self.xiang_guarded(a, t, st);
            if guarded && !bisha {
                self.judge(format!(
                    "{a} 杀 {t}：{t} 是连环相中救人的相，不能被普通杀人权杀害，不死（L78，A-C13）"
                ));
                continue;
            }
            if !bisha {
                if let Some(h) = healed.get(t) {
                    self.judge(format!(
                        "{a} 杀 {t}：被相 {h} 救治，不死；天亮后不公布（L73）"
                    ));
                    if st.mine.contains_key(t)
                        && !self.is_shuai(a)
                        && !st.invulnerable.contains_key(a)
                    {
                        let rd = self.reading(
                            "heal_saved_mine",
                            format!("兑子的 {t} 被 {a} 攻击但被相救下：{a} 是否同归于尽"),
                        );
                        if rd == "attacker_dies" {
                            deaths
                                .entry(a.clone())
                                .or_default()
                                .push(format!("攻击处于兑子状态的 {t}，同归于尽（L42）"));
                        }
                    }
                    continue;
                }
            } else if healed.contains_key(t) {
                self.judge(format!("{a} 必杀 {t}：相的救治不能对抗必杀（L39, L76）"));
            }
            let how = if bisha { "必杀" } else { "杀死" };
            deaths
                .entry(t.clone())
                .or_default()
                .push(format!("被{} {a} {how}", self.role(a)));
            hits.push(Hit { killer: a.clone() });
            // L42, L46: the attacker dies with a 兑子 target, unless 无敌 or the 帅.
            if st.mine.contains_key(t) && !self.is_shuai(a) && !st.invulnerable.contains_key(a) {
                mine_hits.entry(t.clone()).or_default().push(a.clone());
            }
            // L78 “必杀者也会同归于尽”: the 必杀 on a 连环相's healer, as A-C13 reads.
            if guarded && !self.is_shuai(a) && !st.invulnerable.contains_key(a) {
                deaths
                    .entry(a.clone())
                    .or_default()
                    .push(format!("必杀连环相的 {t}，同归于尽（L78）"));
            }
        }
        self.mine_deaths(mine_hits, &mut deaths);
        self.chou_jiang(acts, st, shuai_hit, &mut deaths, &mut hits);
        self.record_deaths(deaths, hits);
        self.curses(acts, st);
        self.checks(acts, st);
        self.used_powers(acts, st);
    }

    /// Whether `t`, the healer of a one-way 连环相 (not in 兑子 himself), is one of the “连环相”
    /// that L78 keeps from a plain kill and that take the 必杀者 with them (A-C13).
    fn xiang_guarded(&mut self, a: &str, t: &str, st: &States) -> bool {
        let Some(partner) = st.xiang_healers.get(t) else {
            return false;
        };
        let rd = self.reading(
            "lianhuan_xiang_healer",
            format!("{a} 杀连环相中救人的相 {t}（他救治 {partner}）"),
        );
        rd == "both"
    }

    /// L42 (A-C8): every attacker of a 兑子 target dies with it, or the judge decides.
    fn mine_deaths(
        &mut self,
        mine_hits: BTreeMap<String, Vec<String>>,
        deaths: &mut BTreeMap<String, Vec<String>>,
    ) {
        for (t, attackers) in mine_hits {
            if attackers.len() > 1 {
                let rd = self.reading(
                    "several_attackers_mine",
                    format!("{} 都杀死了兑子的 {t}", attackers.join("、")),
                );
                if rd == "judge_decides" {
                    self.judge(format!(
                        "{} 都杀死了处于兑子状态的 {t}：谁同归于尽由法官决定（未记入死亡）",
                        attackers.join("、")
                    ));
                    continue;
                }
            }
            for a in attackers {
                deaths
                    .entry(a)
                    .or_default()
                    .push(format!("杀死处于兑子状态的 {t}，同归于尽（L42）"));
            }
        }
    }

    /// L17 (A-C9): a 帅 can be killed once his side's 兵 are all dead, or its 士 and 相.
    fn shuai_killable(&mut self, shuai: &str) -> bool {
        let f = self.faction(shuai).to_string();
        if self.alive_of(&f, &["兵"]) == 0 {
            return true;
        }
        let shi = self.alive_of(&f, &["士", "左士", "右士"]);
        let xiang = self.alive_of(&f, &["相"]);
        if shi + xiang == 0 {
            return true;
        }
        if shi == 0 || xiang == 0 {
            let rd = self.reading(
                "shi_xiang_all_dead",
                format!("{f}方士或相之一全灭（士 {shi}、相 {xiang}）：杀帅条件是否满足"),
            );
            return rd == "shi_or_xiang";
        }
        false
    }

    /// 抽将 (L53, L54): the 帅 killed with his conditions met lives and the own player he named
    /// dies instead; an enemy named: void, the 帅 dies; not killed: the 抽将 is wasted.
    fn chou_jiang(
        &mut self,
        acts: &Acts,
        st: &States,
        shuai_hit: BTreeMap<String, Vec<String>>,
        deaths: &mut BTreeMap<String, Vec<String>>,
        hits: &mut Vec<Hit>,
    ) {
        for (s, sub) in &acts.chou {
            let prev = self.n.fact(&used_key(s, "抽将"));
            self.res.facts.insert(used_key(s, "抽将"), prev + 1.0);
            if !shuai_hit.contains_key(s) {
                let rd = self.reading(
                    "chou_jiang_scope",
                    format!("帅 {s} 抽将 {sub}，当夜没有被杀"),
                );
                if rd == "night_and_next_day" {
                    self.judge(format!(
                        "帅 {s} 的抽将（{sub}）当夜没有用上，按所选读法仍适用于明天的投票：若明天帅被投票处决且杀帅条件满足，由 {sub} 代死"
                    ));
                } else {
                    self.judge(format!(
                        "帅 {s} 抽将 {sub}：当夜没有被杀，浪费一次抽将权，不公开宣布（L54）"
                    ));
                }
            }
        }
        for (s, killers) in shuai_hit {
            let cause = format!("被 {} 杀死", killers.join("、"));
            match acts.chou.get(&s) {
                Some(sub) if !self.enemies(&s, sub) && !self.spared(&s, sub, st) => {
                    deaths.entry(sub.clone()).or_default().push(format!(
                        "帅 {s} 被杀（{cause}），抽将：被抓来代帅抽杀（L53）"
                    ));
                    self.judge(format!(
                        "帅 {s} {cause}，抽将生效：{sub} 代死，帅不死（L53）"
                    ));
                    let rd = self.reading(
                        "chou_jiang_kill_post",
                        format!("帅 {s} 抽将由 {sub} 代死：是否公布杀帅的杀人帖"),
                    );
                    if rd == "publish" {
                        hits.extend(killers.into_iter().map(|killer| Hit { killer }));
                    }
                }
                Some(sub) => {
                    self.judge(if self.enemies(&s, sub) {
                        format!("帅 {s} 误抓了对方的 {sub} 抽将，抽将无效，还是帅死（L54）")
                    } else {
                        format!("帅 {s} 抽将的 {sub} 当夜无敌，不受抽杀，抽将无效，还是帅死（L23, L54，A-C14）")
                    });
                    deaths.entry(s.clone()).or_default().push(cause);
                    hits.extend(killers.into_iter().map(|killer| Hit { killer }));
                }
                None => {
                    deaths.entry(s.clone()).or_default().push(cause);
                    hits.extend(killers.into_iter().map(|killer| Hit { killer }));
                }
            }
        }
    }

    /// Whether the own player named for 抽将 is 无敌 and, as A-C14 reads, not taken (L23).
    fn spared(&mut self, shuai: &str, sub: &str, st: &States) -> bool {
        if !st.invulnerable.contains_key(sub) {
            return false;
        }
        let rd = self.reading(
            "chou_jiang_invulnerable_substitute",
            format!("帅 {shuai} 抽将的 {sub} 当夜无敌：是否代帅死"),
        );
        rd == "shuai_dies"
    }

    fn record_deaths(&mut self, deaths: BTreeMap<String, Vec<String>>, hits: Vec<Hit>) {
        let mut ds: Vec<(usize, String, Vec<String>)> = deaths
            .into_iter()
            .map(|(p, c)| (self.order(&p), p, c))
            .collect();
        ds.sort();
        self.res.deaths = ds
            .iter()
            .map(|(_, p, c)| Death {
                player: p.clone(),
                cause: c.join("；"),
            })
            .collect();
        // L13, L102: the dead's role is told to his side's 帅 by private message.
        for (_, p, _) in &ds {
            // L152: every night death (a 帅's or a 炮's kill, 兑子) may leave last words.
            self.judge(format!(
                "通知 {p} 可以单开主题贴或跟帖留一次遗言，留完后禁言（L152）"
            ));
            let f = self.faction(p).to_string();
            let role = self.role(p).to_string();
            let shuai = self
                .n
                .seats
                .iter()
                .find(|s| s.role == "帅" && s.faction == f && s.alive && &s.player != p)
                .map(|s| s.player.clone());
            if let Some(s) = shuai {
                self.res.feedback.push(Feedback {
                    to: s,
                    text: format!("本方阵亡的 {p} 的身份：{role}（L13, L102）"),
                });
            }
        }
        let mut killers: Vec<String> = hits.into_iter().map(|h| h.killer).collect();
        killers.sort_by_key(|k| self.order(k));
        killers.dedup();
        self.res.announce = self.announce(&ds, &killers);
    }

    /// 2.9 (L102): who died and their faction, the kill posts of the kills that took effect
    /// (L100, L101); nothing about states, heals or who acted.
    fn announce(&self, deaths: &[(usize, String, Vec<String>)], killers: &[String]) -> String {
        let mut s = format!("[b]第{}夜 天亮[/b]\n", self.n.number);
        if deaths.is_empty() {
            s.push_str("当夜无人死亡。\n");
            return s;
        }
        for (_, p, _) in deaths {
            s.push_str(&format!("{}（{}方）死亡。\n", bb(p), bb(self.faction(p))));
        }
        for k in killers {
            s.push_str(&format!(
                "\n[quote]{}[/quote]\n",
                super::kill_post_placeholder(&bb(k))
            ));
        }
        s
    }

    /// 诅咒 +1 (L80), 庇佑 −1 (L82) in the next day's round 1 (L114); a 无敌 target is not
    /// cursed (L23).
    fn curses(&mut self, acts: &Acts, st: &States) {
        for (s, t) in &acts.curse {
            if st.void.contains(s) {
                continue;
            }
            if st.invulnerable.contains_key(t) {
                self.judge(format!("{s} 诅咒 {t}：{t} 无敌，不受诅咒（L23）"));
                continue;
            }
            *self.res.next_day.adjust.entry(t.clone()).or_default() += 1;
        }
        for (s, t) in &acts.bless {
            if !st.void.contains(s) {
                *self.res.next_day.adjust.entry(t.clone()).or_default() -= 1;
            }
        }
        self.res.next_day.adjust.retain(|_, v| *v != 0);
    }

    /// 查证 (L63): role and faction, to both 马; void when either 马 is imprisoned (L66).
    fn checks(&mut self, acts: &Acts, st: &States) {
        for (f, (mas, t)) in &acts.check {
            if mas.iter().any(|m| st.void.contains(m)) {
                continue;
            }
            let text = format!(
                "查证结果：{t} 的身份是{}，属{}方（L63）",
                self.role(t),
                self.faction(t)
            );
            for m in mas {
                if !self.seat(m).is_some_and(|s| s.alive) {
                    continue;
                }
                if self.res.deaths.iter().any(|d| &d.player == m) {
                    let rd = self.reading(
                        "check_result_dead_ma",
                        format!("{f}方马 {m} 当夜死亡：是否告知查证结果"),
                    );
                    if rd == "not_told" {
                        continue;
                    }
                }
                self.res.feedback.push(Feedback {
                    to: m.clone(),
                    text: text.clone(),
                });
            }
        }
    }

    fn used_powers(&mut self, acts: &Acts, st: &States) {
        let mut used: Vec<(usize, PowerUse)> = Vec::new();
        let mut add = |me: &Self, p: &str, power: &str| {
            if !st.void.contains(p) {
                used.push((
                    me.order(p),
                    PowerUse {
                        player: p.into(),
                        power: power.into(),
                    },
                ));
            }
        };
        for p in acts.kill.keys() {
            add(self, p, "杀人");
        }
        for p in acts.chou.keys() {
            add(self, p, "抽将");
        }
        for p in acts.imprison.keys() {
            add(self, p, "禁锢");
        }
        for (mas, _) in acts.check.values() {
            if !mas.iter().any(|m| st.void.contains(m)) {
                for m in mas.iter().filter(|m| self.seat(m).is_some_and(|s| s.alive)) {
                    add(self, m, "查证");
                }
            }
        }
        for p in acts.heal.keys() {
            add(self, p, "救治");
        }
        for p in acts.curse.keys() {
            add(self, p, "诅咒");
        }
        for p in acts.bless.keys() {
            add(self, p, "庇佑");
        }
        for p in acts.pray.keys() {
            add(self, p, "祈祷");
        }
        used.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.power.cmp(&b.1.power)));
        self.res.powers_used = used.into_iter().map(|(_, u)| u).collect();
    }

    /// Every list in a fixed order, whatever the order of the actions.
    fn finish(&mut self) {
        let mut originals = std::mem::take(&mut self.originals);
        let mut as_sent = |a: &mut Action| {
            if let Some(i) = originals.iter().position(|(n, _)| n == a) {
                *a = originals.remove(i).1;
            }
        };
        for r in &mut self.res.refused {
            as_sent(&mut r.action);
        }
        for a in &mut self.res.late {
            as_sent(a);
        }
        // A total order over what an action holds: two actions alike in all but their target
        // or platform must not keep the order they were sent in (the proptest found one).
        let key = |a: &Action| {
            (
                a.by.clone(),
                a.power.clone(),
                a.source.clone(),
                a.sent_at,
                a.target.clone(),
                a.platform.clone(),
            )
        };
        self.res.refused.sort_by(|x, y| {
            key(&x.action)
                .cmp(&key(&y.action))
                .then(x.reason.cmp(&y.reason))
        });
        self.res.late.sort_by_key(key);
        self.res.for_judge.sort();
        self.res
            .readings_used
            .sort_by(|a, b| (&a.id, &a.key, &a.decided).cmp(&(&b.id, &b.key, &b.decided)));
        let order = |p: &str| {
            self.n
                .seats
                .iter()
                .position(|s| s.player == p)
                .unwrap_or(usize::MAX)
        };
        self.res
            .feedback
            .sort_by(|a, b| order(&a.to).cmp(&order(&b.to)).then(a.text.cmp(&b.text)));
    }
}

/// BBCode-safe text: brackets from names become full-width, so only our own tags open.
fn bb(s: &str) -> String {
    s.replace('[', "［").replace(']', "］")
}
