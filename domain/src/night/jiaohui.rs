//! jiaohui (教会 vs 异教徒, seed 001 三(一)–(五), 六): the night as the rule post says.
//!
//! The order of 三(四) (001 L114): the dusk powers (堕落, 感召; when they take effect is the
//! judge's reading A-J4), the monks' prayers and every player's defence, the kill lists, attack
//! against defence (attack − defence ≥ 0 dies, L98). Every skill of the night takes effect at
//! once whoever sent first (L94): a killer killed tonight still strikes, a search answers even if
//! the searcher dies. What carries to later nights is a fact: the 祭祀 bank and its rounds, a
//! spent armour or once-per-game power (`used:<player>:<power>`, and the ruleset's own
//! `堕落已用`/`感召已用` its protections read), the monks the crusaders found, and whether every
//! living monk is found (the church's win A, L102).

use super::{
    used_key, Action, Choice, Death, Feedback, Figure, Night, PowerUse, ReadingUsed, Refused,
    Resolution, Resolver, StateLine,
};
use std::collections::{BTreeMap, BTreeSet};

pub const LORD: &str = "黑暗领主";
pub const BARD: &str = "吟游诗人";
pub const CHILD: &str = "恶魔之子";
pub const HERETIC: &str = "异教徒";
pub const CRUSADER: &str = "十字军剑士";
pub const MONK: &str = "僧侣";

/// The heretics' 祭祀 bank: the attack accumulated (L64).
pub const BANK: &str = "恶魔的祭祀累计攻击力";
/// The rounds of 祭祀 in the bank (for the `recount` reading of A-J2).
pub const BANK_ROUNDS: &str = "恶魔的祭祀轮数";
/// Set by the vote (the ruleset's `[[protect]]`): only a vote breaks the badge (L58).
pub const BADGE_BROKEN: &str = "背德的徽章已损坏";
/// 1 when the crusaders have found every living monk (the ruleset's church win A, L102).
pub const ALL_FOUND: &str = "已找到全部存活僧侣";
/// The armour's power name in `used:<player>:<power>`.
pub const ARMOUR: &str = "祝福的铠甲";

/// The fact of a monk the crusaders' 搜索 found (L71, L102).
pub fn found_key(player: &str) -> String {
    format!("搜索到僧侣:{player}")
}

/// The ruleset's own fact of a once-per-game power spent ("堕落已用"), read by its
/// `[[protect]]` of the 领主 and the 诗人 (L86, L92).
pub fn spent_key(power: &str) -> String {
    format!("{power}已用")
}

const CHOICES: &[Choice] = &[
    Choice {
        key: "crusader_armour",
        id: "A-J1",
        lines: "001 L70 “拥有“祝福的铠甲”（防御力：1），可抵御异教徒的攻击力为1的一次攻击，不可抵御投杀”",
        readings: &[
            ("heretic_attack_once", "抵御异教徒（身份）一次攻击力为1的攻击：那一夜防御力+1，之后铠甲用掉；对恶魔之子的攻击、对祭祀后攻击力≥2的攻击无效"),
            ("permanent", "防御力永久+1"),
            ("until_first_attack", "防御力+1，直到第一次受到攻击（那一夜仍+1）"),
            ("single_attack_of_one", "抵御一次总攻击力为1的攻击（不论谁攻击），总攻击力≥2时无效"),
        ],
        default: "heretic_attack_once",
    },
    Choice {
        key: "sacrifice_bank_after_strike",
        id: "A-J2",
        lines: "001 L64 “可以累计攻击力，所累计的攻击力为当前异教徒的人数。“恶魔的祭祀”能力可无限轮累加”；L65 “第三轮时，异教徒再选择攻击某人，则攻击力记为3”",
        readings: &[
            ("spent", "累计的攻击力用于祭祀后的下一次攻击，攻击后清零（L65 的例子）"),
            ("kept", "累计的攻击力一直保留，之后每次攻击都用它"),
        ],
        default: "spent",
    },
    Choice {
        key: "sacrifice_bank_heretic_deaths",
        id: "A-J2",
        lines: "001 L64 “所累计的攻击力为当前异教徒的人数”",
        readings: &[
            ("as_banked", "按祭祀那一夜的异教徒人数累计，之后有异教徒死亡也不减"),
            ("recount", "攻击时按祭祀轮数 × 当前异教徒人数重算"),
        ],
        default: "as_banked",
    },
    Choice {
        key: "prayer_threshold",
        id: "A-J3",
        lines: "001 L76 “大于等于“当前僧侣数／当前异教徒人数（四舍五入）”位僧侣的祈祷”；L80 “有超过3名僧侣选择了对“蝈蝈”进行祈祷”",
        readings: &[
            ("at_least", "祈祷人数 ≥ 门槛即防御力+1（L76 的规则）"),
            ("more_than", "祈祷人数 > 门槛才+1（L80 的例子）"),
        ],
        default: "at_least",
    },
    Choice {
        key: "dusk_powers",
        id: "A-J4",
        lines: "001 L184 “投票截止后黑夜来临前，黑暗领主和吟游诗人决定是否使用权利”；L114 “征求黑暗领主和吟游诗人意见，是否使用特技 -> 宣布被投杀人是否死亡，公布其身份 ->僧侣祈祷”；L94 “所有在同一夜晚使用的技能…均判同时生效”",
        readings: &[
            ("before_night", "“堕落”“感召”在黑夜来临前生效：被杀者不参加当夜的行动，也不计入当夜的祈祷门槛和祭祀人数"),
            ("at_dawn", "与当夜其他技能同时生效，天亮时才出局"),
        ],
        default: "before_night",
    },
    Choice {
        key: "wrong_target_power",
        id: "A-J5",
        lines: "001 L84 “本能力全程只可使用一次，且只对十字军剑士有效”；L90 “且只对异教徒有效”；L59 “不受吟游诗人“感召”的影响”",
        readings: &[
            ("spent", "对无效的目标使用：没有效果，但这一次机会已用掉"),
            ("not_spent", "没有效果，也不算用过"),
        ],
        default: "spent",
    },
    Choice {
        key: "lord_bard_killers",
        id: "A-J6",
        lines: "001 L86 “在2项权力全部使用过之后，可被异教徒杀害”；L92 同",
        readings: &[
            ("heretics_only", "只有异教徒（身份）的攻击有效，恶魔之子的攻击无效"),
            ("heretics_and_child", "异教徒和恶魔之子的攻击都有效"),
        ],
        default: "heretics_only",
    },
    Choice {
        key: "monk_self_prayer",
        id: "A-J7",
        lines: "001 L76 “每轮每个僧侣提交一个自己祈祷的对象”（没有说能否为自己祈祷）",
        readings: &[
            ("counts", "为自己祈祷也计入"),
            ("void", "为自己祈祷不计"),
        ],
        default: "counts",
    },
    Choice {
        key: "sacrifice_with_kill",
        id: "A-J8",
        lines: "001 L64 “可在任何一轮向法官申请使用，则该轮不提交杀人名单”",
        readings: &[
            ("sacrifice", "祭祀成立，同一轮的杀人名单无效"),
            ("kill", "杀人名单成立，祭祀无效"),
            ("ask_judge", "两者都不结算，由法官向异教徒确认"),
        ],
        default: "sacrifice",
    },
    Choice {
        key: "prayer_threshold_zero",
        id: "A-J9",
        lines: "001 L76 “在提交的祈祷名单中，若某人获得了大于等于“当前僧侣数／当前异教徒人数（四舍五入）”位僧侣的祈祷”（僧侣少时门槛四舍五入为 0）",
        readings: &[
            ("in_the_list", "门槛为 0 时，祈祷名单中出现的人（至少 1 名僧侣祈祷）防御力+1"),
            ("everyone", "门槛为 0 时，人人都满足“大于等于 0 位”，全体防御力+1"),
        ],
        default: "in_the_list",
    },
    Choice {
        key: "action_change",
        id: "A-J10",
        lines: "001 L94 “所有在同一夜晚使用的技能，不论玩家发送先后，均判同时生效”（没有说夜里的行动能否更改，也没有说改成无效目标时怎样）",
        readings: &[
            ("last_valid", "时限内最后一条有效的为准：改成无效目标（已出局、不是本局玩家）的一条被拒，之前的行动照旧"),
            ("last_sent", "时限内最后一条为准：最后一条的目标无效时，这项能力当夜不发动"),
        ],
        default: "last_valid",
    },
];

fn choice(key: &str) -> &'static Choice {
    CHOICES
        .iter()
        .find(|c| c.key == key)
        .expect("a choice declared above")
}

/// The resolver of seed 001.
pub struct Jiaohui;

impl Resolver for Jiaohui {
    fn choices(&self) -> &'static [Choice] {
        CHOICES
    }
    fn resolve(&self, night: &Night, actions: &[Action]) -> Resolution {
        Run::new(night).go(actions)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Power {
    Kill,
    Sacrifice,
    Search,
    Pray,
    Fall,
    Call,
    Pardon,
    Light,
}

impl Power {
    fn parse(word: &str) -> Option<Power> {
        Some(match word.trim() {
            "杀人" | "暗杀" | "杀" => Power::Kill,
            "祭祀" | "恶魔的祭祀" => Power::Sacrifice,
            "搜索" => Power::Search,
            "祈祷" => Power::Pray,
            "堕落" => Power::Fall,
            "感召" => Power::Call,
            "特赦" => Power::Pardon,
            "圣光" => Power::Light,
            _ => return None,
        })
    }
    fn word(self) -> &'static str {
        match self {
            Power::Kill => "杀人",
            Power::Sacrifice => "祭祀",
            Power::Search => "搜索",
            Power::Pray => "祈祷",
            Power::Fall => "堕落",
            Power::Call => "感召",
            Power::Pardon => "特赦",
            Power::Light => "圣光",
        }
    }
    fn roles(self) -> &'static [&'static str] {
        match self {
            Power::Kill => &[CHILD, HERETIC],
            Power::Sacrifice => &[HERETIC],
            Power::Search => &[CRUSADER],
            Power::Pray => &[MONK],
            Power::Fall | Power::Pardon => &[LORD],
            Power::Call | Power::Light => &[BARD],
        }
    }
    /// The seed line granting the power.
    fn line(self) -> &'static str {
        match self {
            Power::Kill => "001 L56、L63",
            Power::Sacrifice => "001 L64",
            Power::Search => "001 L71",
            Power::Pray => "001 L76",
            Power::Fall => "001 L84",
            Power::Call => "001 L90",
            Power::Pardon => "001 L85",
            Power::Light => "001 L91",
        }
    }
}

/// An action that passed the checks.
#[derive(Clone, Debug)]
struct Order {
    action: Action,
    power: Power,
    /// The living actors.
    actors: Vec<String>,
    /// The role acting (for 杀人: 恶魔之子 or 异教徒).
    role: &'static str,
    target: Option<String>,
}

impl Order {
    /// Actions of one group replace or conflict with each other: a team's power is one per
    /// night (L66 “每轮共同使用一次权力”, L72), anyone else's is one per actor and power.
    fn group(&self) -> String {
        group_of(self.role, &self.actors, self.power)
    }
    fn by(&self) -> String {
        self.actors.join("、")
    }
}

/// The group of an action: the team's for the 异教徒 and the 十字军剑士, else its actors'.
fn group_of(role: &str, actors: &[String], power: Power) -> String {
    match role {
        HERETIC | CRUSADER => format!("{role}:{}", power.word()),
        _ => format!("{}:{}", actors.join("、"), power.word()),
    }
}

/// One part of the attack on a player.
struct Part {
    from: &'static str,
    value: i64,
    /// Why it does not count, if it does not.
    void: Option<String>,
}

struct Run<'a, 'n> {
    night: &'a Night<'n>,
    res: Resolution,
    /// Out before the night (A-J4 before_night).
    dusk_dead: BTreeSet<String>,
    /// Out at dawn, with causes.
    dead: BTreeMap<String, Vec<String>>,
    /// Powers spent at dusk that count tonight (A-J4 before_night).
    spent_tonight: BTreeSet<(String, &'static str)>,
    /// Actions refused for their target alone (out, no player), by group: a change to one is
    /// A-J10's point.
    void_targets: Vec<(String, Action, String)>,
}

impl<'a, 'n> Run<'a, 'n> {
    fn new(night: &'a Night<'n>) -> Self {
        Run {
            night,
            res: Resolution {
                night: night.number,
                ..Default::default()
            },
            dusk_dead: BTreeSet::new(),
            dead: BTreeMap::new(),
            spent_tonight: BTreeSet::new(),
            void_targets: Vec::new(),
        }
    }

    fn reading(&self, key: &str) -> &'n str {
        let c = choice(key);
        self.night
            .readings
            .get(c.key)
            .map(String::as_str)
            .unwrap_or(c.default)
    }

    fn used_reading(&mut self, key: &str, decided: String) {
        let c = choice(key);
        let reading = self.reading(key).to_string();
        let entry = ReadingUsed {
            id: c.id.into(),
            key: c.key.into(),
            reading,
            decided,
        };
        if !self.res.readings_used.contains(&entry) {
            self.res.readings_used.push(entry);
        }
    }

    fn role(&self, player: &str) -> &'n str {
        let seats: &'n [crate::rules::state::Seat] = self.night.seats;
        seats
            .iter()
            .find(|s| s.player == player)
            .map(|s| s.role.as_str())
            .unwrap_or("")
    }

    /// Alive for the night's powers: alive at dusk, and not out at dusk.
    fn alive(&self, player: &str) -> bool {
        self.night.alive(player) && !self.dusk_dead.contains(player)
    }

    fn living(&self, role: &str) -> Vec<String> {
        self.night
            .seats
            .iter()
            .filter(|s| s.role == role && self.alive(&s.player))
            .map(|s| s.player.clone())
            .collect()
    }

    fn refuse(&mut self, action: &Action, reason: String) {
        self.res.refused.push(Refused {
            action: action.clone(),
            reason,
        });
    }

    fn go(mut self, actions: &[Action]) -> Resolution {
        let mut timely = Vec::new();
        for a in actions {
            match (a.sent_at, self.night.deadline) {
                (Some(t), Some(d)) if t > d => self.res.late.push(a.clone()),
                _ => timely.push(a.clone()),
            }
        }
        // Dusk first (L114, L184): who the night's checks see alive depends on it.
        let (dusk, night): (Vec<Action>, Vec<Action>) = timely
            .into_iter()
            .partition(|a| matches!(Power::parse(&a.power), Some(Power::Fall | Power::Call)));
        let dusk = self.checked(&dusk);
        let dusk = self.pick(dusk);
        self.dusk(dusk);
        let orders = self.checked(&night);
        let orders = self.pick(orders);
        self.night_powers(orders);
        self.finish();
        self.res
    }

    /// Each action checked against the roster; the ones that pass.
    fn checked(&mut self, actions: &[Action]) -> Vec<Order> {
        let mut out = Vec::new();
        for a in actions {
            match self.check(a) {
                Ok(o) => out.push(o),
                Err(why) => self.refuse(a, why),
            }
        }
        out
    }

    fn check(&mut self, a: &Action) -> Result<Order, String> {
        let Some(power) = Power::parse(&a.power) else {
            return Err(format!(
                "“{}”不是这个版杀的夜间能力（001 三(一)：杀人、祭祀、搜索、祈祷、堕落、感召）",
                a.power
            ));
        };
        if matches!(power, Power::Pardon | Power::Light) {
            return Err(format!(
                "“{}”在投票计出高票之后、宣布结果之前对被投杀的人使用（001 L114、L184、{}），由 bansha confirm 询问并记录，不在夜里结算",
                power.word(),
                power.line()
            ));
        }
        let role = self.actor_role(a, power)?;
        let actors: Vec<String> = a.by.iter().filter(|p| self.alive(p)).cloned().collect();
        if actors.is_empty() {
            let why = if a.by.iter().any(|p| self.dusk_dead.contains(p)) {
                "已在黄昏出局（A-J4 dusk_powers = before_night）"
            } else {
                "已出局"
            };
            return Err(format!("{} {why}，夜里不能行动", a.by.join("、")));
        }
        let gone: Vec<&String> = a.by.iter().filter(|p| !actors.contains(p)).collect();
        if !gone.is_empty() {
            let names: Vec<&str> = gone.iter().map(|s| s.as_str()).collect();
            self.res.for_judge.push(format!(
                "{}：{} 已出局，按其余成员（{}）的提交结算",
                a.source,
                names.join("、"),
                actors.join("、")
            ));
        }
        if matches!(power, Power::Fall | Power::Call) && self.spent(&actors[0], power.word()) {
            return Err(format!(
                "{} 的“{}”全程只可使用一次（{}），已经用过",
                actors[0],
                power.word(),
                power.line()
            ));
        }
        let target = match self.check_target(a, power) {
            Ok(t) => t,
            Err(why) => {
                let group = group_of(role, &actors, power);
                self.void_targets.push((group, a.clone(), why.clone()));
                return Err(why);
            }
        };
        Ok(Order {
            action: a.clone(),
            power,
            actors,
            role,
            target,
        })
    }

    /// The role acting: every actor a player whose role has the power; a joint action only for
    /// the heretics' kill and 祭祀 (L63, L66) and the crusaders' 搜索 (L72).
    fn actor_role(&self, a: &Action, power: Power) -> Result<&'static str, String> {
        let mut roles = BTreeSet::new();
        for p in &a.by {
            let Some(seat) = self.night.seat(p) else {
                return Err(format!("行动者“{p}”不是本局玩家"));
            };
            let Some(role) = power.roles().iter().find(|r| **r == seat.role) else {
                return Err(format!(
                    "{p} 的身份（{}）没有“{}”能力（{}）",
                    seat.role,
                    power.word(),
                    power.line()
                ));
            };
            roles.insert(*role);
        }
        let role = match roles.into_iter().collect::<Vec<_>>().as_slice() {
            [r] => *r,
            _ => {
                return Err(format!(
                    "{}：恶魔之子与异教徒互不知道身份（001 L60、L67），不能共同提交杀人名单",
                    a.by.join("、")
                ))
            }
        };
        if a.by.len() > 1 && !matches!(role, HERETIC | CRUSADER) {
            return Err(format!(
                "{}：“{}”由每人单独提交（{}），不能几人共同提交",
                a.by.join("、"),
                power.word(),
                power.line()
            ));
        }
        Ok(role)
    }

    fn check_target(&self, a: &Action, power: Power) -> Result<Option<String>, String> {
        if power == Power::Sacrifice {
            return Ok(None);
        }
        let Some(t) = a.target.as_deref() else {
            return Err(format!("“{}”没有写目标", power.word()));
        };
        if self.night.seat(t).is_none() {
            return Err(format!("目标“{t}”不是本局玩家"));
        }
        if !self.alive(t) {
            return Err(format!("目标 {t} 已出局"));
        }
        Ok(Some(t.to_string()))
    }

    /// Whether `player` spent a once-per-game power before tonight (or at dusk, A-J4).
    fn spent(&self, player: &str, power: &'static str) -> bool {
        self.night.used(player, power)
            || self.night.fact(&spent_key(power)) >= 1.0
            || self.spent_tonight.contains(&(player.to_string(), power))
    }

    /// One action per group: the last one sent counts; without times (or sent at the same
    /// time) different ones conflict and none counts. Independent of the actions' order.
    fn pick(&mut self, orders: Vec<Order>) -> Vec<Order> {
        let mut groups: BTreeMap<String, Vec<Order>> = BTreeMap::new();
        for o in orders {
            groups.entry(o.group()).or_default().push(o);
        }
        let mut out = Vec::new();
        for (group, mut g) in groups {
            g.sort_by(|a, b| {
                (a.action.sent_at, &a.action.source).cmp(&(b.action.sent_at, &b.action.source))
            });
            let timed = g.iter().all(|o| o.action.sent_at.is_some());
            let last_at = g.last().and_then(|o| o.action.sent_at);
            let (latest, earlier): (Vec<Order>, Vec<Order>) = g
                .into_iter()
                .partition(|o| !timed || o.action.sent_at == last_at);
            let targets: BTreeSet<&Option<String>> = latest.iter().map(|o| &o.target).collect();
            if targets.len() > 1 {
                let all: Vec<String> = latest
                    .iter()
                    .chain(&earlier)
                    .map(|o| o.action.source.clone())
                    .collect();
                for o in latest.iter().chain(&earlier) {
                    self.refuse(
                        &o.action,
                        format!(
                            "{} 的“{}”互相矛盾（{}），分不出先后，都不结算；请法官向玩家确认",
                            o.by(),
                            o.power.word(),
                            all.join("；")
                        ),
                    );
                }
                continue;
            }
            let mut latest = latest.into_iter();
            let Some(keep) = latest.next() else { continue };
            if !self.keeps_after_void_change(&group, &keep) {
                for o in latest.chain(earlier).chain([keep]) {
                    self.refuse(
                        &o.action,
                        "之后改成的一条目标无效：按读法 last_sent（A-J10），这项能力当夜不发动"
                            .into(),
                    );
                }
                continue;
            }
            for o in latest {
                self.refuse(
                    &o.action,
                    format!("与 {} 相同，只算一次", keep.action.source),
                );
            }
            for o in earlier {
                self.refuse(
                    &o.action,
                    format!("已被之后的 {} 取代（以最后一条为准）", keep.action.source),
                );
            }
            out.push(keep);
        }
        out
    }

    /// A-J10: whether the group's last valid action stands when a later one of the group was
    /// refused for its target (out, or no player); either way the draft says which.
    fn keeps_after_void_change(&mut self, group: &str, keep: &Order) -> bool {
        let Some(kept_at) = keep.action.sent_at else {
            return true;
        };
        let later: Vec<(Action, String)> = self
            .void_targets
            .iter()
            .filter(|(g, a, _)| g == group && a.sent_at.is_some_and(|t| t > kept_at))
            .map(|(_, a, why)| (a.clone(), why.clone()))
            .collect();
        let Some((last, why)) = later.last() else {
            return true;
        };
        let stands = self.reading("action_change") == "last_valid";
        let decided = if stands {
            format!(
                "{} 的“{}”后来改成的一条（{}）目标无效（{why}）：按之前的 {} 结算",
                keep.by(),
                keep.power.word(),
                last.source,
                keep.action.source
            )
        } else {
            format!(
                "{} 的“{}”后来改成的一条（{}）目标无效（{why}）：这项能力当夜不发动，之前的 {} 也不结算",
                keep.by(),
                keep.power.word(),
                last.source,
                keep.action.source
            )
        };
        self.used_reading("action_change", decided);
        stands
    }

    /// 堕落 (L84) and 感召 (L90): a direct kill of a 十字军剑士 / 异教徒, once per game.
    fn dusk(&mut self, orders: Vec<Order>) {
        let before = self.reading("dusk_powers") == "before_night";
        let mut killed = Vec::new();
        for o in orders {
            let (Some(t), actor) = (o.target.clone(), o.actors[0].clone()) else {
                continue;
            };
            let role = self.role(&t);
            let (valid, why_not) = match o.power {
                Power::Fall => (role == CRUSADER, "“堕落”只对十字军剑士有效（001 L84）"),
                _ if role == CHILD => (false, "恶魔之子不受“感召”的影响（001 L59）"),
                _ => (role == HERETIC, "“感召”只对异教徒有效（001 L90）"),
            };
            let spend = valid || self.reading("wrong_target_power") == "spent";
            if !valid {
                let what = if spend {
                    "机会已用掉"
                } else {
                    "不算用过"
                };
                self.used_reading(
                    "wrong_target_power",
                    format!("{actor} 对 {t} 使用“{}”：{why_not}，{what}", o.power.word()),
                );
                self.res.for_judge.push(format!(
                    "{actor} 对 {t} 使用“{}”没有效果：{why_not}",
                    o.power.word()
                ));
            }
            if spend {
                self.spend(&actor, o.power.word());
            }
            if valid {
                let cause = match o.power {
                    Power::Fall => format!("被黑暗领主 {actor} “堕落”（001 L84）"),
                    _ => format!("被吟游诗人 {actor} “感召”（001 L90）"),
                };
                killed.push((t, cause));
            }
        }
        for (t, cause) in killed {
            let when = if before { "黄昏" } else { "天亮" };
            self.used_reading("dusk_powers", format!("{t} 在{when}出局（{cause}）"));
            if before {
                self.res.for_judge.push(format!(
                    "{t} 在黄昏出局（A-J4 before_night）：何时公布由法官决定（001 L118 不公布特技的使用），天亮公告里也列出"
                ));
                self.dusk_dead.insert(t.clone());
            }
            self.dead.entry(t).or_default().push(cause);
        }
    }

    fn spend(&mut self, player: &str, power: &'static str) {
        self.res.facts.insert(used_key(player, power), 1.0);
        self.res.facts.insert(spent_key(power), 1.0);
        self.res.powers_used.push(PowerUse {
            player: player.into(),
            power: power.into(),
        });
        if self.reading("dusk_powers") == "before_night" {
            self.spent_tonight.insert((player.to_string(), power));
        }
    }

    fn night_powers(&mut self, orders: Vec<Order>) {
        let mut kills = Vec::new();
        let mut sacrifice = None;
        let mut prayers = Vec::new();
        let mut searches = Vec::new();
        for o in orders {
            match o.power {
                Power::Kill => kills.push(o),
                Power::Sacrifice => sacrifice = Some(o),
                Power::Pray => prayers.push(o),
                Power::Search => searches.push(o),
                _ => {}
            }
        }
        let team_kill = kills.iter().position(|o| o.role == HERETIC);
        let (team_kill, sacrifice) =
            self.sacrifice_or_kill(team_kill.map(|i| kills.remove(i)), sacrifice);
        let heretics = self.living(HERETIC).len() as i64;
        if let Some(s) = sacrifice {
            self.sacrifice(&s, heretics);
        }
        let blessed = self.prayers(prayers, heretics);
        let mut attacks: BTreeMap<String, Vec<Part>> = BTreeMap::new();
        for o in kills.iter().chain(&team_kill) {
            self.attack(o, heretics, &mut attacks);
        }
        self.judge(&blessed, attacks);
        for s in searches {
            self.search(&s);
        }
    }

    /// A-J8: the heretics asked for 祭祀 and sent a kill list the same night (L64 “则该轮不提交
    /// 杀人名单”).
    fn sacrifice_or_kill(
        &mut self,
        kill: Option<Order>,
        sacrifice: Option<Order>,
    ) -> (Option<Order>, Option<Order>) {
        let (Some(k), Some(s)) = (&kill, &sacrifice) else {
            return (kill, sacrifice);
        };
        let (void, keep_kill, keep_sac) = match self.reading("sacrifice_with_kill") {
            "kill" => (vec![s.clone()], true, false),
            "ask_judge" => (vec![k.clone(), s.clone()], false, false),
            _ => (vec![k.clone()], false, true),
        };
        let what = match (keep_kill, keep_sac) {
            (true, _) => "杀人名单成立，祭祀无效",
            (_, true) => "祭祀成立，杀人名单无效",
            _ => "两者都不结算，请法官向异教徒确认",
        };
        self.used_reading(
            "sacrifice_with_kill",
            format!("异教徒同一轮申请祭祀又提交杀人名单：{what}"),
        );
        for o in void {
            self.refuse(
                &o.action,
                format!("异教徒同一轮申请“祭祀”又提交杀人名单（001 L64 “则该轮不提交杀人名单”）：{what}（A-J8）"),
            );
        }
        if !keep_kill && !keep_sac {
            self.res.for_judge.push(
                "异教徒同一轮既申请祭祀又提交杀人名单：请向他们确认（A-J8 ask_judge）".into(),
            );
        }
        (kill.filter(|_| keep_kill), sacrifice.filter(|_| keep_sac))
    }

    /// 恶魔的祭祀 (L64, L65): no kill this round; the bank grows by the heretics alive now.
    fn sacrifice(&mut self, o: &Order, heretics: i64) {
        let bank = self.night.fact(BANK) + heretics as f64;
        let rounds = self.night.fact(BANK_ROUNDS) + 1.0;
        self.res.facts.insert(BANK.into(), bank);
        self.res.facts.insert(BANK_ROUNDS.into(), rounds);
        self.res.powers_used.push(PowerUse {
            player: o.by(),
            power: Power::Sacrifice.word().into(),
        });
        self.res.states.push(StateLine {
            player: o.by(),
            state: format!("恶魔的祭祀：累计攻击力 {bank}"),
            why: format!("本轮不杀人，累计当前异教徒人数 {heretics}（001 L64）"),
        });
    }

    /// The heretics' attack tonight: 1, or the 祭祀 bank (L65 “攻击力记为3”), which the strike
    /// spends or keeps (A-J2).
    fn team_attack(&mut self, heretics: i64) -> (i64, String) {
        let bank = self.night.fact(BANK) as i64;
        if bank <= 0 {
            return (1, "异教徒 1（001 L63）".into());
        }
        let rounds = self.night.fact(BANK_ROUNDS) as i64;
        let mut value = bank;
        // A bank the judge set by hand, without its rounds, cannot be recounted.
        let recount = self.reading("sacrifice_bank_heretic_deaths") == "recount" && rounds > 0;
        if recount && rounds * heretics != bank {
            value = rounds * heretics;
            self.used_reading(
                "sacrifice_bank_heretic_deaths",
                format!("祭祀 {rounds} 轮 × 当前异教徒 {heretics} 人 = 攻击力 {value}（累计时为 {bank}）"),
            );
        } else if rounds > 0 && rounds * heretics != bank {
            self.used_reading(
                "sacrifice_bank_heretic_deaths",
                format!("按累计时的人数：攻击力 {bank}（现在异教徒 {heretics} 人）"),
            );
        }
        if self.reading("sacrifice_bank_after_strike") == "spent" {
            self.res.facts.insert(BANK.into(), 0.0);
            self.res.facts.insert(BANK_ROUNDS.into(), 0.0);
            self.used_reading(
                "sacrifice_bank_after_strike",
                format!("祭祀累计的攻击力 {bank} 用于这次攻击，之后清零"),
            );
        } else {
            self.used_reading(
                "sacrifice_bank_after_strike",
                format!("祭祀累计的攻击力 {bank} 用于这次攻击，并继续保留"),
            );
        }
        (
            value,
            format!("异教徒 {value}（恶魔的祭祀累计，001 L64、L65）"),
        )
    }

    /// The prayers (L76): each player prayed for, whether he gets +1 defence tonight, and the
    /// count against the threshold.
    fn prayers(&mut self, prayers: Vec<Order>, heretics: i64) -> BTreeMap<String, (bool, String)> {
        let mut blessed = BTreeMap::new();
        if heretics == 0 {
            for o in prayers {
                self.refuse(
                    &o.action,
                    "异教徒已全灭，僧侣的“祈祷”能力消失（001 L78）".into(),
                );
            }
            return blessed;
        }
        let monks = self.living(MONK).len() as i64;
        // 四舍五入 (L76): round half up, in integers.
        let threshold = (2 * monks + heretics) / (2 * heretics);
        let mut count: BTreeMap<String, i64> = BTreeMap::new();
        for o in prayers {
            let (Some(t), by) = (o.target.clone(), o.by()) else {
                continue;
            };
            if t == by {
                let counts = self.reading("monk_self_prayer") == "counts";
                self.used_reading(
                    "monk_self_prayer",
                    format!("{by} 为自己祈祷：{}", if counts { "计入" } else { "不计" }),
                );
                if !counts {
                    self.refuse(
                        &o.action,
                        "为自己祈祷不计（A-J7 monk_self_prayer = void）".into(),
                    );
                    continue;
                }
            }
            self.res.powers_used.push(PowerUse {
                player: by,
                power: Power::Pray.word().into(),
            });
            *count.entry(t).or_default() += 1;
        }
        let more_than = self.reading("prayer_threshold") == "more_than";
        let everyone = threshold == 0 && self.reading("prayer_threshold_zero") == "everyone";
        if threshold == 0 {
            self.used_reading(
                "prayer_threshold_zero",
                format!(
                    "僧侣 {monks} ÷ 异教徒 {heretics} 四舍五入为 0：{}",
                    if everyone {
                        "全体防御力+1"
                    } else {
                        "至少 1 名僧侣祈祷才+1"
                    }
                ),
            );
        }
        let rule = format!("僧侣 {monks} ÷ 异教徒 {heretics} 四舍五入 = {threshold}");
        let seats: &'n [crate::rules::state::Seat] = self.night.seats;
        let living: Vec<&crate::rules::state::Seat> =
            seats.iter().filter(|s| self.alive(&s.player)).collect();
        for s in living {
            let n = count.get(&s.player).copied().unwrap_or(0);
            if n == threshold && threshold > 0 {
                self.used_reading(
                    "prayer_threshold",
                    format!(
                        "{} 恰好得到 {n} 名僧侣的祈祷（门槛 {threshold}）：{}",
                        s.player,
                        if more_than {
                            "不加防御"
                        } else {
                            "防御力+1"
                        }
                    ),
                );
            }
            let ok = if more_than {
                n > threshold
            } else {
                n >= threshold
            };
            let why = format!("{n} 名僧侣祈祷，门槛 {threshold}（{rule}，001 L76）");
            if everyone || (ok && n >= 1) {
                blessed.insert(s.player.clone(), (true, why));
            } else if n >= 1 {
                blessed.insert(s.player.clone(), (false, why));
            }
        }
        blessed
    }

    /// One kill list's attack on its target, with the immunities of L57, L86 and L92.
    fn attack(&mut self, o: &Order, heretics: i64, attacks: &mut BTreeMap<String, Vec<Part>>) {
        let Some(t) = o.target.clone() else { return };
        let (value, from) = if o.role == HERETIC {
            let (v, _) = self.team_attack(heretics);
            (v, HERETIC)
        } else {
            (1, CHILD)
        };
        self.res.powers_used.push(PowerUse {
            player: o.by(),
            power: Power::Kill.word().into(),
        });
        let void = self.immune(&t, from);
        attacks
            .entry(t)
            .or_default()
            .push(Part { from, value, void });
    }

    /// Why an attack by `from` on `t` does not count, if it does not.
    fn immune(&mut self, t: &str, from: &'static str) -> Option<String> {
        let role = self.role(t);
        match role {
            LORD | BARD => {
                let (a, b) = if role == LORD {
                    ("堕落", "特赦")
                } else {
                    ("感召", "圣光")
                };
                let line = if role == LORD { "001 L86" } else { "001 L92" };
                let done = self.night.fact(&format!("{role}权力已用完")) >= 1.0
                    || (self.spent(t, a) && self.spent(t, b));
                if !done {
                    return Some(format!("{role}在“{a}”和“{b}”都用过之前不被攻击（{line}）"));
                }
                if from == CHILD {
                    let only = self.reading("lord_bard_killers") == "heretics_only";
                    self.used_reading(
                        "lord_bard_killers",
                        format!(
                            "恶魔之子攻击{role} {t}：{}",
                            if only { "无效" } else { "有效" }
                        ),
                    );
                    if only {
                        return Some(format!("{role}两项权力用过之后“可被异教徒杀害”（{line}），恶魔之子的攻击无效（A-J6）"));
                    }
                }
                None
            }
            CHILD if from == HERETIC && self.night.fact(BADGE_BROKEN) < 1.0 => {
                Some("“背德的徽章”永远抵御异教徒的攻击（001 L57），只有投票才能毁坏（L58）".into())
            }
            _ => None,
        }
    }
}

impl Run<'_, '_> {
    /// Every living player's defence (L98 base 1, L76 prayer, L70 armour) against the attack
    /// on him; attack − defence ≥ 0 dies (L98). All at once (L94).
    fn judge(
        &mut self,
        blessed: &BTreeMap<String, (bool, String)>,
        mut attacks: BTreeMap<String, Vec<Part>>,
    ) {
        let players: Vec<String> = self
            .night
            .seats
            .iter()
            .filter(|s| self.alive(&s.player))
            .map(|s| s.player.clone())
            .collect();
        for p in players {
            let parts = attacks.remove(&p).unwrap_or_default();
            let counted = |from: &str| -> i64 {
                parts
                    .iter()
                    .filter(|x| x.from == from && x.void.is_none())
                    .map(|x| x.value)
                    .sum()
            };
            let (h, c) = (counted(HERETIC), counted(CHILD));
            let attack = h + c;
            let mut a_detail: Vec<String> = Vec::new();
            for x in &parts {
                match &x.void {
                    None => a_detail.push(format!("{} {}", x.from, x.value)),
                    Some(why) => {
                        a_detail.push(format!("{} {}（不计：{why}）", x.from, x.value));
                        self.res.states.push(StateLine {
                            player: p.clone(),
                            state: "攻击无效".into(),
                            why: why.clone(),
                        });
                    }
                }
            }
            let mut defence = 1;
            let mut d_detail = vec!["基础 1（001 L98）".to_string()];
            match blessed.get(&p) {
                Some((true, why)) => {
                    defence += 1;
                    d_detail.push(format!("祈祷 1（{why}）"));
                    self.res.states.push(StateLine {
                        player: p.clone(),
                        state: "祈祷：防御力+1".into(),
                        why: why.clone(),
                    });
                }
                Some((false, why)) => d_detail.push(format!("祈祷 0（{why}，未达门槛）")),
                None => {}
            }
            if self.role(&p) == CRUSADER {
                if let Some(why) = self.armour(&p, h, c) {
                    defence += 1;
                    d_detail.push(format!("祝福的铠甲 1（{why}）"));
                }
            }
            let a_text = if a_detail.is_empty() {
                "无".to_string()
            } else {
                a_detail.join(" + ")
            };
            let detail = format!("攻击：{a_text}；防御：{}", d_detail.join(" + "));
            if attack > 0 && attack - defence >= 0 {
                let cause = format!(
                    "被攻击致死（001 L98）：攻击力 {attack} − 防御力 {defence} ≥ 0；{detail}"
                );
                self.dead.entry(p.clone()).or_default().push(cause);
            }
            self.res.figures.push(Figure {
                player: p,
                attack,
                defence,
                detail,
            });
        }
    }

    /// 祝福的铠甲 (L70) as the judge reads it (A-J1): whether it adds 1 to the defence tonight
    /// (with why), spending it where the reading says.
    fn armour(&mut self, p: &str, h: i64, c: i64) -> Option<String> {
        let intact = !self.night.used(p, ARMOUR);
        let total = h + c;
        let reading = self.reading("crusader_armour");
        let applies = match reading {
            "permanent" => true,
            "until_first_attack" => intact,
            "single_attack_of_one" => intact && total == 1,
            _ => intact && h == 1,
        };
        let spent = match reading {
            "permanent" => false,
            "until_first_attack" => intact && total > 0,
            _ => applies,
        };
        if total > 0 && (intact || reading == "permanent") {
            self.used_reading(
                "crusader_armour",
                format!(
                    "{p} 受到攻击（异教徒 {h}、恶魔之子 {c}）：铠甲{}{}",
                    if applies {
                        "防御力+1"
                    } else {
                        "不起作用"
                    },
                    if spent { "，之后用掉" } else { "" }
                ),
            );
        }
        if spent {
            self.res.facts.insert(used_key(p, ARMOUR), 1.0);
        }
        applies.then(|| {
            let how = match reading {
                "permanent" => "永久",
                "until_first_attack" => "直到第一次受到攻击",
                "single_attack_of_one" => "抵御一次攻击力为1的攻击",
                _ => "抵御异教徒攻击力为1的一次攻击",
            };
            format!("{how}，001 L70")
        })
    }

    /// 搜索 (L71): the crusaders are told 是 or 不是, even if someone dies tonight (L94).
    fn search(&mut self, o: &Order) {
        let Some(t) = o.target.clone() else { return };
        let monk = self.role(&t) == MONK;
        let answer = if monk { "是" } else { "不是" };
        for a in &o.actors {
            self.res.feedback.push(Feedback {
                to: a.clone(),
                text: format!("第{}夜搜索：{t} 是否为僧侣？{answer}", self.night.number),
            });
        }
        self.res.powers_used.push(PowerUse {
            player: o.by(),
            power: Power::Search.word().into(),
        });
        if monk {
            self.res.facts.insert(found_key(&t), 1.0);
        }
    }

    /// Deaths, the church's win A fact, the dawn post; every list in a fixed order, so the
    /// resolution does not depend on the order the actions came in (L94).
    fn finish(&mut self) {
        let seats = self.night.seats;
        for s in seats {
            if let Some(causes) = self.dead.get(&s.player) {
                self.res.deaths.push(Death {
                    player: s.player.clone(),
                    cause: causes.join("；"),
                });
                self.res.for_judge.push(format!(
                    "通知 {} 在截止时间前提供【遗言】，发到下一日的讨论贴（001 L191）",
                    s.player
                ));
            }
        }
        // L102 “十字军剑士搜索到所有存活僧侣”: every monk alive after the night found.
        let all_found = seats
            .iter()
            .filter(|s| s.role == MONK && s.alive && !self.dead.contains_key(&s.player))
            .all(|s| {
                let k = found_key(&s.player);
                self.night.fact(&k) >= 1.0 || self.res.facts.contains_key(&k)
            });
        let value = if all_found { 1.0 } else { 0.0 };
        // A game whose searches bansha never saw (no 搜索到僧侣 fact): the judge's own fact stands.
        let searched = self
            .night
            .facts
            .keys()
            .chain(self.res.facts.keys())
            .any(|k| k.starts_with(&found_key("")));
        if searched && self.night.fact(ALL_FOUND) != value {
            self.res.facts.insert(ALL_FOUND.into(), value);
        }
        self.res.announce = self.announce();
        self.res
            .refused
            .sort_by(|a, b| (&a.action.source, &a.reason).cmp(&(&b.action.source, &b.reason)));
        self.res
            .powers_used
            .sort_by(|a, b| (&a.player, &a.power).cmp(&(&b.player, &b.power)));
        self.res
            .feedback
            .sort_by(|a, b| (&a.to, &a.text).cmp(&(&b.to, &b.text)));
        self.res.late.sort_by(|a, b| a.source.cmp(&b.source));
        self.res.for_judge.sort();
        self.res
            .readings_used
            .sort_by(|a, b| (&a.id, &a.key, &a.decided).cmp(&(&b.id, &b.key, &b.decided)));
        self.res
            .states
            .sort_by(|a, b| (&a.player, &a.state, &a.why).cmp(&(&b.player, &b.state, &b.why)));
    }

    /// L117 “所有牺牲的角色都公布其真实身份”; L118 whether the 领主 or the 诗人 used a power is not
    /// published, so no causes.
    fn announce(&self) -> String {
        let mut out = format!("[b]第{}夜[/b]\n", self.night.number);
        if self.res.deaths.is_empty() {
            out.push_str("平安夜，无人死亡。\n");
        }
        for d in &self.res.deaths {
            out.push_str(&format!(
                "[b]{}[/b] 死亡，身份：[b]{}[/b]\n",
                d.player,
                self.role(&d.player)
            ));
        }
        out
    }
}
