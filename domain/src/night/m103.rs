//! m103 ([M103] 菁华浮梦, seed 002): the night of 游戏流程 step 3, (1)–(6) (L223–L229), with the
//! 红娘's 红线 of the game's start (L142, L222) on the first night. Lines cited are `nl -ba` lines
//! of the seed (tests/fixtures/seeds/002_m103.txt).
//!
//! The night, in the seed's order: (1) the 侍卫 guards (L127, each player at most once a game);
//! (2) the 刺客 (or, once their camp has lost, the eloped lovers: 寡妇刀, L149) name a kill
//! (L138); (3) the 太医 is told who was named (通灵, L119) and may use 救药 or 毒药 (L120–L121);
//! (4) the 密探 checks a camp (L116); (5) the kill is settled (L228: guarded → void; saved → no
//! exit; else out); (6) the poison is settled (L229). Every exit takes the lover with it (殉情,
//! L147); a win ends the settlement at once (L164, L170). Exits are announced in the order the
//! players went out (L54), without roles (L52); a camp's loss is never announced (L38).
//!
//! m103 needs the whole game in the middle of the night (its win rules, its links, its
//! sheriff), so it resolves through [`Resolver::resolve_in`]; `resolve` alone refuses.

use super::{
    missed_key, used_key, Action, Choice, Death, Feedback, Night, PowerUse, ReadingUsed, Refused,
    Resolution, Resolver, StateLine,
};
use crate::config::GameConfig;
use crate::rules::state::{self, Change, GameState, Snapshot};
use chrono::{DateTime, Duration, FixedOffset};
use std::collections::VecDeque;

const KILLERS: &str = "杀了狗皇帝";
const COURT: &str = "我爱皇帝";
const ELOPED: &str = "皇帝算什么";
const ASSASSIN: &str = "卧底刺客";
const SPY: &str = "大内密探";
const DOCTOR: &str = "妙手太医";
const GUARD: &str = "御前侍卫";
const PRINCE: &str = "东宫太子";
const MATCHMAKER: &str = "牵线红娘";
const CONSORT: &str = "绝色宠妃";
const EMPEROR: &str = "至尊帝王";
const LOVER: &str = "情侣";
/// The role a 红娘 of two 特 lovers takes (L142 "红娘身份变特…（算入阵营判负条件）"): the
/// preset's L194 loss rule counts it with the four 特.
pub const MATCHMAKER_TE: &str = "红娘（特）";
/// The 特 of L194 "此阵营的大内密探、妙手太医、御前侍卫、东宫太子".
const SPECIALS: [&str; 4] = [SPY, DOCTOR, GUARD, PRINCE];
/// The fact the preset's L194 loss rule reads for A-M5: 1 when the judge reads that an eloped
/// 特 must be out too. The night writes it from `[night.readings]`.
pub const ELOPED_FACT: &str = "m103:eloped_roles_in_loss";
/// L238 "收到通灵反馈后30分钟内女巫仍未给法官答复，视为放弃夜晚行动".
const DOCTOR_MINUTES: i64 = 30;

const A_M1: Choice = Choice {
    key: "doctor_both_potions",
    id: "A-M1",
    lines: "002 L120 “<救药>发动后，在该夜晚不可发动技能<毒药>”, L121 the converse",
    readings: &[
        ("first_counts", "先发的一种发动，后发的无效"),
        ("last_counts", "后发的一条替换先发的"),
        ("ask_again", "两种都不结算，请太医重新答复"),
    ],
    default: "first_counts",
};
const A_M2: Choice = Choice {
    key: "doctor_self_save",
    id: "A-M2",
    lines: "002 L120 “太医可以选择一名角色，对其使用救药” (silent on herself)",
    readings: &[
        ("allowed", "太医可以救自己"),
        ("not_allowed", "太医不能救自己"),
    ],
    default: "allowed",
};
const A_M3: Choice = Choice {
    key: "tongling_void_kill",
    id: "A-M3",
    lines: "002 L119 “反馈被指杀的角色”; void kills: L137, L146",
    readings: &[
        ("valid_only", "只反馈有效的指杀"),
        ("any_sent", "无效的指杀也反馈其目标"),
    ],
    default: "valid_only",
};
const A_M4: Choice = Choice {
    key: "matchmaker_te_fei",
    id: "A-M4",
    lines: "002 L142 “红娘的阵营转变为情侣所在阵营…若情侣身份为双特或双妃子，红娘身份变特或妃子”",
    readings: &[
        ("camp_only", "只转阵营，身份仍是红娘（不算入判负条件）"),
        ("as_te", "身份变特（算入 L194 判负条件）"),
        ("as_fei", "身份变妃子（算入 L196 判负条件）"),
    ],
    default: "camp_only",
};
const A_M5: Choice = Choice {
    key: "eloped_roles_in_loss",
    id: "A-M5",
    lines: "002 L194 “此阵营的大内密探、妙手太医、御前侍卫、东宫太子出局”",
    readings: &[
        ("vacuous", "只数本阵营现有的特：私奔走的不算"),
        ("original_roles", "私奔走的特也须出局"),
    ],
    default: "vacuous",
};
const A_M6: Choice = Choice {
    key: "action_change",
    id: "A-M6",
    lines: "002 L236–L238 (time limits only; no rule on changing a night action)",
    readings: &[
        ("first_counts", "第一条为准：发出即发动"),
        ("last_counts", "时限内最后一条为准"),
    ],
    default: "first_counts",
};
const A_M7: Choice = Choice {
    key: "win_before_lover",
    id: "A-M7",
    lines: "002 L147 “另一人立即出局”, L170 “宣布阵营获得胜利会立即终止一切结算”",
    readings: &[
        ("each_exit", "每人出局即判胜负：胜负已分则殉情不再发生"),
        ("after_lovers", "殉情与出局一起，之后判胜负"),
    ],
    default: "each_exit",
};
const A_M8: Choice = Choice {
    key: "missed_kill_duty",
    id: "A-M8",
    lines: "002 L235 “夜晚…刺客或黑情侣需要发动技能”, L237, L316",
    readings: &[
        (
            "every_member",
            "无人提交刀人目标：每名能出刀的存活角色各记一次",
        ),
        ("none", "出刀是共同的：不记潜水"),
    ],
    default: "every_member",
};
const CHOICES: &[Choice] = &[A_M1, A_M2, A_M3, A_M4, A_M5, A_M6, A_M7, A_M8];

/// The m103 night resolver (`night.resolver = "m103"`).
pub struct M103;

impl Resolver for M103 {
    fn choices(&self) -> &'static [Choice] {
        CHOICES
    }

    fn resolve(&self, night: &Night, actions: &[Action]) -> Resolution {
        Resolution {
            night: night.number,
            refused: actions
                .iter()
                .map(|a| Refused {
                    action: a.clone(),
                    reason: "m103 的夜晚要在整局中结算（结算中途即判胜负，L164、L170）".into(),
                })
                .collect(),
            ..Default::default()
        }
    }

    fn resolve_in(
        &self,
        game: &GameConfig,
        state: &GameState,
        night: &Night,
        actions: &[Action],
    ) -> Resolution {
        let mut run = Run::new(game, state, night);
        run.run(actions);
        run.res
    }
}

/// The 太医's limit (L238 "收到通灵反馈后30分钟内"): 30 minutes after the 通灵 feedback was
/// given, else after the night's deadline (the latest the feedback can come). While she owes
/// her answer the daemon drafts the night and offers its confirmation once this has passed, not
/// at the deadline ([`due`], `night::due`).
pub fn doctor_limit(
    deadline: Option<DateTime<FixedOffset>>,
    tongling: Option<DateTime<FixedOffset>>,
) -> Option<DateTime<FixedOffset>> {
    tongling
        .or(deadline)
        .map(|t| t + Duration::minutes(DOCTOR_MINUTES))
}

/// When `seat`'s night action is due (L236–L238): the 太医's answer by [`doctor_limit`] (the
/// 通灵 feedback's time, entered as a 通灵 action with its `sent_at`), every other power by the
/// night's deadline.
pub fn due(
    seat: &crate::rules::state::Seat,
    deadline: Option<DateTime<FixedOffset>>,
    actions: &[Action],
) -> Option<DateTime<FixedOffset>> {
    if seat.role != DOCTOR {
        return deadline;
    }
    let tongling = actions
        .iter()
        .filter(|a| power(a.power.trim()) == Some(Power::Tongling))
        .filter_map(|a| a.sent_at)
        .max();
    doctor_limit(deadline, tongling)
}

/// A power in the seed's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Power {
    RedThread,
    Guard,
    Kill,
    Tongling,
    Save,
    Poison,
    Check,
    Abstain,
}

fn power(word: &str) -> Option<Power> {
    Some(match word {
        "红线" => Power::RedThread,
        "守卫" | "守护" => Power::Guard,
        "杀人" | "指杀" | "出刀" | "刀人" => Power::Kill,
        "通灵" => Power::Tongling,
        "救药" => Power::Save,
        "毒药" => Power::Poison,
        "查验" => Power::Check,
        "放弃" | "请假" => Power::Abstain,
        _ => return None,
    })
}

impl Power {
    fn word(self) -> &'static str {
        match self {
            Power::RedThread => "红线",
            Power::Guard => "守卫",
            Power::Kill => "杀人",
            Power::Tongling => "通灵",
            Power::Save => "救药",
            Power::Poison => "毒药",
            Power::Check => "查验",
            Power::Abstain => "放弃",
        }
    }
}

/// An action read: its power and target.
#[derive(Debug, Clone)]
struct Msg {
    action: Action,
    power: Power,
    target: Option<String>,
}

impl Msg {
    fn actor(&self) -> &str {
        self.action.by.first().map(String::as_str).unwrap_or("")
    }
    fn by(&self) -> String {
        self.action.by.join("、")
    }
    fn content(&self) -> (&'static str, Option<&str>) {
        (self.power.word(), self.target.as_deref())
    }
    fn said(&self) -> String {
        match &self.target {
            Some(t) => format!("{} {} {t}", self.by(), self.power.word()),
            None => format!("{} {}", self.by(), self.power.word()),
        }
    }
}

/// What the night's own messages decided, one per power.
#[derive(Default)]
struct Chosen {
    guard: Option<Msg>,
    kill: Option<Msg>,
    doctor: Option<Msg>,
    check: Option<Msg>,
}

struct Run<'a> {
    game: &'a GameConfig,
    night: &'a Night<'a>,
    /// The state with the night's changes so far (what the win checks read). Changed only
    /// through [`Run::push`], which forgets `snapshot`.
    work: GameState,
    /// `work`'s snapshot, made once per change of it: the settlement reads it at every step,
    /// and each judges the win rules after every event of the game.
    snapshot: std::cell::RefCell<Option<Snapshot>>,
    res: Resolution,
    /// The wins that ended the settlement (L170), with the winning camp.
    over: Option<Vec<(String, Option<String>)>>,
    /// Who could name the kill when the night's actions were read (after the 红线).
    group: Vec<String>,
    /// In-time messages, valid or not: who contacted the judge (L235–L238).
    sent: Vec<Msg>,
    /// Targets of kills sent without the power (A-M3).
    void_kills: Vec<String>,
}

impl<'a> Run<'a> {
    fn new(game: &'a GameConfig, state: &GameState, night: &'a Night<'a>) -> Self {
        Run {
            game,
            night,
            work: state.clone(),
            snapshot: Default::default(),
            res: Resolution {
                night: night.number,
                ..Default::default()
            },
            over: None,
            group: Vec::new(),
            sent: Vec::new(),
            void_kills: Vec::new(),
        }
    }

    fn snap(&self) -> Snapshot {
        self.snapshot
            .borrow_mut()
            .get_or_insert_with(|| self.work.snapshot(self.game))
            .clone()
    }

    fn push(&mut self, c: Change) {
        self.work.push(c, String::new());
        self.snapshot.take();
    }

    fn run(&mut self, actions: &[Action]) {
        if let Some(wins) = wins(self.game, &self.snap()).first() {
            let reason = format!("游戏已经结束（L164）：{}", wins.0);
            self.res.for_judge.push(format!("{reason}：这一夜不结算"));
            for a in actions {
                self.refuse(a, &reason);
            }
            return;
        }
        let lost_before = self.snap().lost;
        self.eloped_reading();
        let msgs = self.intake(actions);
        let (threads, rest): (Vec<Msg>, Vec<Msg>) =
            msgs.into_iter().partition(|m| m.power == Power::RedThread);
        self.red_thread(threads);
        if self.over.is_none() {
            let chosen = self.choose(rest);
            self.settle(chosen);
        }
        self.missed_duties();
        self.after(&lost_before);
        self.announce();
        let key = |a: &Action| {
            (
                a.sent_at,
                a.source.clone(),
                a.power.clone(),
                a.target.clone(),
            )
        };
        self.res.refused.sort_by_key(|r| key(&r.action));
        self.res.late.sort_by_key(key);
    }

    fn refuse(&mut self, a: &Action, reason: &str) {
        self.res.refused.push(Refused {
            action: a.clone(),
            reason: reason.to_string(),
        });
    }

    fn read(&self, c: &Choice) -> &'a str {
        self.night.reading(c)
    }

    fn used_reading(&mut self, c: &Choice, decided: String) {
        self.res.readings_used.push(ReadingUsed {
            id: c.id.into(),
            key: c.key.into(),
            reading: self.read(c).into(),
            decided,
        });
    }

    fn alive(&self, player: &str) -> bool {
        self.snap()
            .seats
            .iter()
            .any(|s| s.player == player && s.alive)
    }

    /// The latest moment `m` may come (L236–L238): the night's deadline; for the 太医, 30
    /// minutes after the 通灵 feedback (recorded as a 通灵 action), else after the deadline
    /// (the latest the feedback can come).
    fn limit(
        &self,
        m: &Msg,
        tongling: Option<DateTime<FixedOffset>>,
    ) -> Option<DateTime<FixedOffset>> {
        let doctor = self.night.seat(m.actor()).is_some_and(|s| s.role == DOCTOR);
        match m.power {
            Power::Tongling | Power::RedThread => None,
            Power::Save | Power::Poison | Power::Abstain if doctor => {
                doctor_limit(self.night.deadline, tongling)
            }
            _ => self.night.deadline,
        }
    }

    /// Every action read: a word m103 does not have is refused, a late one listed.
    fn intake(&mut self, actions: &[Action]) -> Vec<Msg> {
        let mut msgs = Vec::new();
        for a in actions {
            let Some(p) = power(a.power.trim()) else {
                self.refuse(
                    a,
                    &format!(
                        "m103 没有这个夜间技能：“{}”（可用：红线、守卫、杀人、通灵、救药、毒药、查验、放弃）",
                        a.power
                    ),
                );
                continue;
            };
            msgs.push(Msg {
                action: a.clone(),
                power: p,
                target: a.target.clone().filter(|t| !t.trim().is_empty()),
            });
        }
        let tongling = msgs
            .iter()
            .filter(|m| m.power == Power::Tongling)
            .filter_map(|m| m.action.sent_at)
            .max();
        let mut kept = Vec::new();
        for m in msgs {
            match (m.action.sent_at, self.limit(&m, tongling)) {
                (Some(t), Some(l)) if t > l => self.res.late.push(m.action),
                _ => kept.push(m),
            }
        }
        kept
    }

    /// A-M5: the preset's L194 rule reads [`ELOPED_FACT`]; the night writes the judge's reading
    /// (among the updates, which confirming writes before the deaths).
    fn eloped_reading(&mut self) {
        let want = if self.read(&A_M5) == "original_roles" {
            1.0
        } else {
            0.0
        };
        if self.night.fact(ELOPED_FACT) != want {
            // Before the night's deaths: a loss that held for a moment would stand (L172).
            let c = Change::Fact {
                key: ELOPED_FACT.into(),
                value: want,
            };
            self.push(c.clone());
            self.res.updates.push(c);
        }
    }
}

// ---------------------------------------------------------------- the 红线 (L142–L149, L222)

impl Run<'_> {
    fn red_thread(&mut self, msgs: Vec<Msg>) {
        let mut valid = Vec::new();
        for m in msgs {
            self.sent.push(m.clone());
            match self.check_thread(&m) {
                Ok(()) => valid.push(m),
                Err(why) => self.refuse(&m.action, &why),
            }
        }
        let Some(m) = self.pick(valid, "红线") else {
            return;
        };
        let Some((a, b)) = m.target.as_deref().and_then(pair) else {
            return;
        };
        self.form_lovers(m.actor().to_string(), a, b);
        self.res.powers_used.push(PowerUse {
            player: m.actor().into(),
            power: "红线".into(),
        });
        if let Some(w) = wins(self.game, &self.snap()).into_iter().next() {
            self.end(vec![w]);
        }
    }

    fn check_thread(&self, m: &Msg) -> Result<(), String> {
        self.check_actor(m)?;
        let snap = self.snap();
        let seat = self.night.seat(m.actor());
        if seat.is_none_or(|s| s.role != MATCHMAKER) {
            return Err(format!("{} 不是牵线红娘：没有红线（L142）", m.actor()));
        }
        if snap
            .seats
            .iter()
            .any(|s| s.marks.iter().any(|k| k == LOVER))
        {
            return Err("情侣已经产生：红线只在游戏开始时选一次（L142、L222）".into());
        }
        let Some((a, b)) = m.target.as_deref().and_then(pair) else {
            return Err("红线要写两名角色，如“甲、乙”（L142 红娘须选择两名角色）".into());
        };
        if a == b {
            return Err(format!("红线的两名角色是同一人：{a}"));
        }
        for p in [&a, &b] {
            self.check_target(p)?;
            if self.night.seat(p).is_some_and(|s| s.role == EMPEROR) {
                return Err(format!("{p} 是皇帝：红线不含皇帝（L142）"));
            }
        }
        Ok(())
    }

    /// The lovers marked (L144), eloping if of two camps (L148), and the 红娘's camp (L142).
    fn form_lovers(&mut self, matchmaker: String, a: String, b: String) {
        let seat = |p: &str| self.night.seat(p).cloned();
        let (Some(sa), Some(sb)) = (seat(&a), seat(&b)) else {
            return;
        };
        let mut changes = vec![mark(&a), mark(&b)];
        let elope = sa.faction != sb.faction;
        let camp = if elope {
            changes.push(set_faction(&a, ELOPED));
            changes.push(set_faction(&b, ELOPED));
            ELOPED.to_string()
        } else {
            sa.faction.clone()
        };
        let single = matchmaker != a && matchmaker != b;
        if single {
            let role = self.matchmaker_role(&sa.role, &sb.role, elope);
            changes.push(Change::SetRole {
                player: matchmaker.clone(),
                role: role.clone(),
                faction: Some(camp.clone()),
            });
            let became = role.map(|r| format!("，身份变为{r}")).unwrap_or_default();
            self.tell(
                &matchmaker,
                format!("红线：{a} 与 {b} 成为情侣；你的阵营转为【{camp}】{became}（L142）"),
            );
        }
        for (me, other, my_role) in [(&a, &b, &sa.role), (&b, &a, &sb.role)] {
            let mut text = if sa.role == ASSASSIN && sb.role == ASSASSIN {
                format!("你与 {other} 成为情侣（双刺客情侣，仍在刺客群，L145）")
            } else {
                format!("你与 {other} 成为情侣，互知共群（L144–L145）")
            };
            if elope {
                text.push_str(&format!(
                    "；你们脱离各自的阵营，形成【{ELOPED}】（私奔，L148）"
                ));
                if my_role == ASSASSIN {
                    text.push_str("；你失去<杀人>技能，不再与刺客共群（L146）");
                }
            }
            self.tell(me, text);
        }
        for c in changes {
            self.push(c.clone());
            self.res.updates.push(c);
        }
    }

    /// The 红娘's role: 双刺客 → 刺客, 双特 → 特, 双妃 → 妃子 (L142); 特 + 妃 is A-M4.
    fn matchmaker_role(&mut self, a: &str, b: &str, elope: bool) -> Option<String> {
        if elope {
            return None;
        }
        let class = |r: &str| {
            if r == ASSASSIN {
                "刺客"
            } else if SPECIALS.contains(&r) {
                "特"
            } else if r == CONSORT {
                "妃"
            } else {
                "其他"
            }
        };
        match (class(a), class(b)) {
            ("刺客", "刺客") => Some(ASSASSIN.into()),
            ("特", "特") => Some(MATCHMAKER_TE.into()),
            ("妃", "妃") => Some(CONSORT.into()),
            ("特", "妃") | ("妃", "特") => {
                let role = match self.read(&A_M4) {
                    "as_te" => Some(MATCHMAKER_TE.to_string()),
                    "as_fei" => Some(CONSORT.to_string()),
                    _ => None,
                };
                let said = role.clone().unwrap_or_else(|| "红娘（不变）".into());
                self.used_reading(
                    &A_M4,
                    format!("情侣为一特一妃：红娘转入【{COURT}】，身份：{said}"),
                );
                role
            }
            _ => None,
        }
    }

    fn tell(&mut self, to: &str, text: String) {
        self.res.feedback.push(Feedback {
            to: to.into(),
            text,
        });
    }
}

/// "甲、乙" (or 甲,乙 / 甲 和 乙 / 甲 乙) as two names.
fn pair(text: &str) -> Option<(String, String)> {
    let parts: Vec<&str> = text
        .split(['、', ',', '，', ' ', '和', '/', '／'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    match parts.as_slice() {
        [a, b] => Some((a.to_string(), b.to_string())),
        _ => None,
    }
}

fn mark(player: &str) -> Change {
    Change::Mark {
        player: player.into(),
        mark: LOVER.into(),
    }
}

fn set_faction(player: &str, faction: &str) -> Change {
    Change::SetRole {
        player: player.into(),
        role: None,
        faction: Some(faction.into()),
    }
}

// ---------------------------------------------------------------- checking each action

impl Run<'_> {
    /// Every actor a living player.
    fn check_actor(&self, m: &Msg) -> Result<(), String> {
        for b in &m.action.by {
            match self.night.seat(b) {
                None => return Err(format!("{b} 不是本局玩家")),
                Some(s) if !s.alive => return Err(format!("{b} 已出局，不能行使特权（L70）")),
                _ => {}
            }
        }
        if m.power != Power::Kill && m.action.by.len() > 1 {
            return Err(format!("{} 只能由一人发动", m.power.word()));
        }
        Ok(())
    }

    /// A target a living player (L74: the published dead are no target).
    fn check_target(&self, t: &str) -> Result<(), String> {
        match self.night.seat(t) {
            None => Err(format!("目标 {t} 不是本局玩家")),
            Some(s) if !s.alive => Err(format!("目标 {t} 已出局，不能被选为技能的目标（L74）")),
            _ => Ok(()),
        }
    }

    /// Who may name the night's kill now: the 刺客 of 杀了狗皇帝 (L138; a 红娘 made 刺客
    /// "可接刀", L142) until that camp has lost (L137), then the lovers of 皇帝算什么 (寡妇刀,
    /// L149).
    fn kill_group(&self) -> Vec<String> {
        let snap = self.snap();
        let killers_lost = snap.lost.contains(KILLERS);
        snap.seats
            .iter()
            .filter(|s| s.alive)
            .filter(|s| {
                if killers_lost {
                    s.faction == ELOPED && s.marks.iter().any(|m| m == LOVER)
                } else {
                    s.faction == KILLERS && s.role == ASSASSIN
                }
            })
            .map(|s| s.player.clone())
            .collect()
    }

    fn check(&self, m: &Msg, group: &[String]) -> Result<(), String> {
        self.check_actor(m)?;
        let snap = self.snap();
        let seat = snap.seats.iter().find(|s| s.player == m.actor());
        let role = seat.map(|s| s.role.as_str()).unwrap_or("");
        let me = m.actor();
        let needs = |r: &str, line: &str| {
            if role == r {
                Ok(())
            } else {
                Err(format!("{me} 不是{r}：没有{}（{line}）", m.power.word()))
            }
        };
        match m.power {
            Power::Guard => needs(GUARD, "L127")?,
            Power::Check => needs(SPY, "L116")?,
            Power::Save | Power::Poison | Power::Tongling => needs(DOCTOR, "L119–L121")?,
            Power::Kill => {
                if let Some(b) = m.action.by.iter().find(|b| !group.contains(b)) {
                    return Err(self.why_no_kill(b));
                }
            }
            Power::Abstain | Power::RedThread => {}
        }
        let lost = |p: &str| self.night.used(me, p);
        match m.power {
            Power::Save if lost("救药") => return Err("救药已经用过（L120）".into()),
            Power::Poison if lost("毒药") => return Err("毒药已经用过（L121）".into()),
            Power::Tongling if lost("通灵") => {
                return Err("太医用过救药，已失去通灵（L120）".into())
            }
            _ => {}
        }
        if matches!(m.power, Power::Abstain | Power::Tongling) {
            return Ok(());
        }
        let Some(t) = m.target.as_deref() else {
            return Err(format!("{} 要写目标", m.power.word()));
        };
        self.check_target(t)?;
        if m.power == Power::Guard && self.night.fact(&guarded_key(t)) > 0.0 {
            return Err(format!(
                "{t} 已被守卫过：每名角色一局游戏仅能被守卫一次（L127）"
            ));
        }
        Ok(())
    }

    fn why_no_kill(&self, by: &str) -> String {
        let snap = self.snap();
        let Some(s) = snap.seats.iter().find(|s| s.player == by) else {
            return format!("{by} 不是本局玩家");
        };
        let lover = s.marks.iter().any(|m| m == LOVER);
        if s.role == ASSASSIN && s.faction == KILLERS {
            format!("杀了狗皇帝阵营已判负，{by} 失去杀人技能（L137）")
        } else if lover && s.faction == ELOPED {
            format!("{by} 是【皇帝算什么】的情侣：杀了狗皇帝阵营判负之前没有杀人技能（L146、L149）")
        } else {
            format!("{by} 没有杀人技能（L138）")
        }
    }

    /// Whether a void kill by `m` is a kill someone meant (A-M3): by a 刺客 or a lover.
    fn meant_kill(&self, m: &Msg) -> bool {
        let snap = self.snap();
        m.action.by.iter().all(|b| {
            snap.seats.iter().any(|s| {
                s.player == *b
                    && s.alive
                    && (s.role == ASSASSIN || s.marks.iter().any(|k| k == LOVER))
            })
        })
    }
}

/// The fact that a player has been guarded (L127 "每名角色一局游戏仅能被守卫一次").
pub fn guarded_key(player: &str) -> String {
    format!("guarded:{player}")
}

// ---------------------------------------------------------------- one action per power

impl Run<'_> {
    /// Check every message, then keep one per power: the kill is the group's (L138 "共同指杀一
    /// 名角色"), the 太医's 救药 and 毒药 are one answer (L120–L121).
    fn choose(&mut self, msgs: Vec<Msg>) -> Chosen {
        let group = self.kill_group();
        self.group = group.clone();
        // (key, what the judge reads, the messages): one slot per power and player, one kill.
        let mut slots: Vec<(String, String, Vec<Msg>)> = Vec::new();
        for m in msgs {
            self.sent.push(m.clone());
            if let Err(why) = self.check(&m, &group) {
                let target_ok = m
                    .target
                    .as_deref()
                    .is_some_and(|t| self.check_target(t).is_ok());
                if m.power == Power::Kill && target_ok && self.meant_kill(&m) {
                    self.void_kills.extend(m.target.clone());
                }
                self.refuse(&m.action, &why);
                continue;
            }
            let (slot, label) = match m.power {
                Power::Kill => ("kill".to_string(), "指杀".to_string()),
                Power::Tongling | Power::Abstain => continue,
                p => (
                    format!("{}:{}", slot_of(p), m.actor()),
                    format!("{}（{}）", m.actor(), slot_word(p)),
                ),
            };
            match slots.iter_mut().find(|(s, _, _)| *s == slot) {
                Some((_, _, v)) => v.push(m),
                None => slots.push((slot, label, vec![m])),
            }
        }
        // In a fixed order, whatever the order of the actions.
        slots.sort_by(|a, b| a.0.cmp(&b.0));
        self.void_kills.sort();
        self.void_kills.dedup();
        let mut chosen = Chosen::default();
        for (slot, label, msgs) in slots {
            let m = if slot.starts_with("doctor") {
                self.doctor_answer(msgs)
            } else {
                self.pick(msgs, &label)
            };
            let Some(m) = m else { continue };
            match m.power {
                Power::Guard => chosen.guard = Some(m),
                Power::Kill => chosen.kill = Some(m),
                Power::Save | Power::Poison => chosen.doctor = Some(m),
                Power::Check => chosen.check = Some(m),
                _ => {}
            }
        }
        chosen
    }

    /// A-M1: 救药 and 毒药 both sent on one night.
    fn doctor_answer(&mut self, msgs: Vec<Msg>) -> Option<Msg> {
        let has = |p: Power| msgs.iter().any(|m| m.power == p);
        if !(has(Power::Save) && has(Power::Poison)) {
            return self.pick(msgs, "太医");
        }
        let reading = self.read(&A_M1);
        let winner = match reading {
            "first_counts" => extreme(&msgs, true),
            "last_counts" => extreme(&msgs, false),
            _ => None,
        };
        let Some(w) = winner.map(|i| msgs[i].power) else {
            let why = if reading == "ask_again" {
                "救药与毒药同夜只能发动一种（L120、L121），两条都不结算：请太医重新答复".to_string()
            } else {
                "救药与毒药同夜只能发动一种（L120、L121），两条分不出先后：请太医重新答复"
                    .to_string()
            };
            self.used_reading(&A_M1, "太医同夜发来救药和毒药：都不结算".into());
            self.res.for_judge.push(format!(
                "太医同夜发来救药和毒药（{}）：{why}",
                msgs.iter().map(Msg::said).collect::<Vec<_>>().join("；")
            ));
            for m in &msgs {
                self.refuse(&m.action, &why);
            }
            return None;
        };
        let (keep, drop): (Vec<Msg>, Vec<Msg>) = msgs.into_iter().partition(|m| m.power == w);
        for m in &drop {
            self.refuse(
                &m.action,
                &format!(
                    "救药与毒药同夜只能发动一种（L120、L121）：按读法 {reading}，{} 发动",
                    w.word()
                ),
            );
        }
        self.used_reading(
            &A_M1,
            format!("太医同夜发来救药和毒药：{} 发动，另一种无效", w.word()),
        );
        self.pick(keep, "太医")
    }

    /// One message of several for the same power (A-M6 when they differ).
    fn pick(&mut self, msgs: Vec<Msg>, what: &str) -> Option<Msg> {
        let first = msgs.first()?.content();
        if msgs.iter().all(|m| m.content() == first) {
            return Some(self.joined(&msgs[0], &msgs));
        }
        let reading = self.read(&A_M6);
        let Some(i) = extreme(&msgs, reading == "first_counts") else {
            let why = "同一技能发来几条不同的行动，分不出先后：请法官问清楚";
            self.res.for_judge.push(format!(
                "{why}（{}）",
                msgs.iter().map(Msg::said).collect::<Vec<_>>().join("；")
            ));
            for m in &msgs {
                self.refuse(&m.action, why);
            }
            return None;
        };
        let kept = msgs[i].clone();
        for (j, m) in msgs.iter().enumerate() {
            if j != i && m.content() != kept.content() {
                self.refuse(
                    &m.action,
                    &format!(
                        "同一技能另有一条为准：{}（读法 action_change = {reading}）",
                        kept.said()
                    ),
                );
            }
        }
        self.used_reading(&A_M6, format!("{what}：几条行动中以“{}”为准", kept.said()));
        Some(self.joined(&kept, &msgs))
    }

    /// `kept` sent by everyone who sent the same (the kill is the group's, L138), in roster
    /// order.
    fn joined(&self, kept: &Msg, msgs: &[Msg]) -> Msg {
        let mut out = kept.clone();
        let mut by: Vec<String> = msgs
            .iter()
            .filter(|m| m.content() == kept.content())
            .flat_map(|m| m.action.by.clone())
            .collect();
        let order = |p: &String| self.night.seats.iter().position(|s| &s.player == p);
        by.sort_by_key(order);
        by.dedup();
        out.action.by = by;
        out
    }
}

fn slot_word(p: Power) -> &'static str {
    match p {
        Power::Save | Power::Poison => "救药或毒药",
        p => p.word(),
    }
}

fn slot_of(p: Power) -> &'static str {
    match p {
        Power::Save | Power::Poison => "doctor",
        Power::Guard => "guard",
        Power::Check => "check",
        _ => "other",
    }
}

/// The index of the first (or last) message in time, when every message has a time and no
/// other message with a different content shares it.
fn extreme(msgs: &[Msg], first: bool) -> Option<usize> {
    let times: Vec<DateTime<FixedOffset>> = msgs
        .iter()
        .map(|m| m.action.sent_at)
        .collect::<Option<_>>()?;
    let best = if first {
        *times.iter().min()?
    } else {
        *times.iter().max()?
    };
    let at: Vec<usize> = (0..msgs.len()).filter(|&i| times[i] == best).collect();
    let i = *at.first()?;
    at.iter()
        .all(|&j| msgs[j].content() == msgs[i].content())
        .then_some(i)
}

// ---------------------------------------------------------------- steps (1)–(6)

impl Run<'_> {
    fn settle(&mut self, c: Chosen) {
        let guarded = c.guard.as_ref().and_then(|m| m.target.clone());
        if let Some(m) = &c.guard {
            let g = m.target.clone().unwrap_or_default();
            self.res.facts.insert(guarded_key(&g), 1.0);
            self.used(m.actor(), "守卫");
            self.line(
                &g,
                "守卫",
                format!("{} 守卫：当晚指杀免疫（L127、L224）", m.actor()),
            );
        }
        let killed = c.kill.as_ref().and_then(|m| m.target.clone());
        if let Some(m) = &c.kill {
            for b in m.action.by.clone() {
                self.used(&b, "杀人");
            }
            let k = killed.clone().unwrap_or_default();
            self.line(&k, "被指杀", format!("{} 指杀（L138、L225）", m.by()));
        }
        self.tongling(killed.as_deref());
        let (saved, poisoned) = self.potions(c.doctor.as_ref());
        if let Some(m) = &c.check {
            self.check_camp(m);
        }
        // (5) L228.
        if let (Some(k), Some(m)) = (&killed, &c.kill) {
            if guarded.as_deref() == Some(k) {
                self.line(k, "指杀无效", "被指杀的角色是守护的目标（L228 一）".into());
            } else if saved.as_deref() == Some(k) {
                self.line(k, "救药", "此次有效指杀不会导致出局（L228 二）".into());
            } else {
                self.exit(k, format!("被指杀（{}）", m.by()));
            }
        }
        // (6) L229.
        if let (Some(p), Some(m)) = (&poisoned, &c.doctor) {
            if self.over.is_none() {
                self.exit(p, format!("被太医毒药（{}）", m.actor()));
            }
        }
    }

    fn used(&mut self, player: &str, power: &str) {
        self.res.powers_used.push(PowerUse {
            player: player.into(),
            power: power.into(),
        });
    }

    fn line(&mut self, player: &str, state: &str, why: String) {
        self.res.states.push(StateLine {
            player: player.into(),
            state: state.into(),
            why,
        });
    }

    /// (3) 通灵<强制> (L119): the 太医 is told who was named; lost once 救药 is used (L120).
    fn tongling(&mut self, killed: Option<&str>) {
        let Some(doc) = self.living_role(DOCTOR) else {
            return;
        };
        if self.night.used(&doc, "通灵") {
            return;
        }
        self.used(&doc, "通灵");
        let void: Vec<String> = self.void_kills.clone();
        let named = match killed {
            Some(k) => Some(k.to_string()),
            None if !void.is_empty() && self.read(&A_M3) == "any_sent" => Some(void.join("、")),
            None => None,
        };
        if killed.is_none() && !void.is_empty() {
            let said = match &named {
                Some(n) => format!("通灵反馈无效指杀的目标 {n}"),
                None => "通灵不反馈无效的指杀".into(),
            };
            self.used_reading(&A_M3, said);
        }
        let text = match named {
            Some(n) => format!("通灵：今夜被指杀的角色是 {n}（L119）"),
            None => "通灵：今夜无人被指杀（L119）".into(),
        };
        self.tell(&doc, text);
    }

    /// (3) 救药 or 毒药 (L120–L121): spent when used; 救药 takes 通灵 with it.
    fn potions(&mut self, m: Option<&Msg>) -> (Option<String>, Option<String>) {
        let Some(m) = m else {
            return (None, None);
        };
        let doc = m.actor().to_string();
        let t = m.target.clone().unwrap_or_default();
        if m.power == Power::Save {
            if t == doc {
                let ok = self.read(&A_M2) == "allowed";
                self.used_reading(
                    &A_M2,
                    format!("太医对自己用救药：{}", if ok { "有效" } else { "无效" }),
                );
                if !ok {
                    self.refuse(
                        &m.action,
                        "太医不能救自己（读法 doctor_self_save = not_allowed）",
                    );
                    return (None, None);
                }
            }
            self.used(&doc, "救药");
            for p in ["救药", "通灵"] {
                self.res.facts.insert(used_key(&doc, p), 1.0);
            }
            self.line(
                &t,
                "救药",
                format!("{doc} 使用救药：当晚不因被指杀出局（L120）"),
            );
            (Some(t), None)
        } else {
            self.used(&doc, "毒药");
            self.res.facts.insert(used_key(&doc, "毒药"), 1.0);
            self.line(
                &t,
                "毒药",
                format!("{doc} 使用毒药：毒药结算时出局（L121、L229）"),
            );
            (None, Some(t))
        }
    }

    /// (4) 查验 (L116): the camp answer only.
    fn check_camp(&mut self, m: &Msg) {
        let t = m.target.clone().unwrap_or_default();
        let court = self
            .snap()
            .seats
            .iter()
            .any(|s| s.player == t && s.faction == COURT);
        self.used(m.actor(), "查验");
        let answer = if court {
            "我爱皇帝阵营"
        } else {
            "非我爱皇帝阵营"
        };
        self.tell(m.actor(), format!("查验 {t}：<{answer}>（L116）"));
    }

    fn living_role(&self, role: &str) -> Option<String> {
        self.snap()
            .seats
            .iter()
            .find(|s| s.alive && s.role == role)
            .map(|s| s.player.clone())
    }

    /// A player out, the lovers following (殉情, L147), the win checked after each exit or
    /// after the lovers (A-M7); a win ends every settlement (L170).
    fn exit(&mut self, player: &str, cause: String) {
        let each = self.read(&A_M7) == "each_exit";
        let mut queue = VecDeque::from([(player.to_string(), cause)]);
        while let Some((p, cause)) = queue.pop_front() {
            if self.over.is_some() || !self.alive(&p) {
                continue;
            }
            self.push(Change::Eliminate {
                player: p.clone(),
                cause: cause.clone(),
                day: None,
            });
            self.res.deaths.push(Death {
                player: p.clone(),
                cause,
            });
            let follow = state::followers(self.game, &self.snap(), &p);
            if each || follow.is_empty() {
                let won = wins(self.game, &self.snap());
                if !won.is_empty() {
                    if !follow.is_empty() {
                        let names: Vec<&str> = follow.iter().map(|(f, _)| f.as_str()).collect();
                        self.used_reading(
                            &A_M7,
                            format!("{p} 出局即分胜负，{} 不再殉情", names.join("、")),
                        );
                    }
                    self.end(won);
                    return;
                }
            }
            for (f, c) in follow {
                queue.push_back((f, format!("{c}（{p}出局）")));
            }
        }
        if !each && self.over.is_none() {
            let won = wins(self.game, &self.snap());
            if !won.is_empty() {
                self.end(won);
            }
        }
    }

    fn end(&mut self, won: Vec<(String, Option<String>)>) {
        let names: Vec<&str> = won.iter().map(|(n, _)| n.as_str()).collect();
        self.res.for_judge.push(format!(
            "结算中胜负已分：{}。游戏立即结束，之后的结算不再进行（L164、L170）",
            names.join("；")
        ));
        self.over = Some(won);
    }
}

/// The win conditions (not losses) that hold at `snap`, with the faction that wins.
fn wins(game: &GameConfig, snap: &Snapshot) -> Vec<(String, Option<String>)> {
    let (conds, _) = state::conditions(game, snap);
    conds
        .into_iter()
        .enumerate()
        .filter(|(_, c)| c.holds)
        .filter_map(|(i, c)| match game.rules.win.get(i) {
            Some(r) if r.loses => None,
            Some(r) => Some((c.name, r.faction.clone())),
            // `victory.last_faction_standing`: "{faction} 胜：其余阵营均已判负".
            None => {
                let f = c.name.split_once(' ').map(|(f, _)| f.to_string());
                Some((c.name, f))
            }
        })
        .collect()
}

// ---------------------------------------------------------------- after the settlement

impl Run<'_> {
    /// L235–L238 and L316: a role that must act and sent nothing in time gave the night up
    /// and missed a duty (潜水).
    fn missed_duties(&mut self) {
        let snap_dusk: Vec<_> = self.night.seats.iter().filter(|s| s.alive).collect();
        let contacted = |p: &str, powers: &[Power]| {
            self.sent.iter().any(|m| {
                m.action.by.iter().any(|b| b == p)
                    && (m.power == Power::Abstain || powers.contains(&m.power))
            })
        };
        let mut missed: Vec<(String, &str)> = Vec::new();
        for s in &snap_dusk {
            let p = s.player.as_str();
            let duty = match s.role.as_str() {
                GUARD => Some((&[Power::Guard][..], "L236 侍卫在30分钟内行动")),
                SPY => Some((&[Power::Check][..], "L237 密探关门后30分钟内")),
                DOCTOR if !(self.night.used(p, "救药") && self.night.used(p, "毒药")) => {
                    Some((
                        &[Power::Save, Power::Poison][..],
                        "L238 太医收到通灵反馈后30分钟内",
                    ))
                }
                _ => None,
            };
            if let Some((powers, line)) = duty {
                if !contacted(p, powers) {
                    missed.push((p.to_string(), line));
                }
            }
        }
        let group = self.group.clone();
        let group_sent = group.iter().any(|p| contacted(p, &[Power::Kill]));
        if !group.is_empty() && !group_sent {
            let every = self.read(&A_M8) == "every_member";
            self.used_reading(
                &A_M8,
                format!(
                    "无人提交刀人目标：{}",
                    if every {
                        "每名能出刀的角色各记一次潜水"
                    } else {
                        "不记潜水"
                    }
                ),
            );
            if every {
                for p in &group {
                    missed.push((p.clone(), "L237 刺客/黑情侣关门后30分钟内"));
                }
            }
        }
        let order = |p: &str| self.night.seats.iter().position(|s| s.player == p);
        missed.sort_by_key(|(p, _)| order(p));
        for (p, line) in missed {
            self.res.for_judge.push(format!(
                "{p} 未在时限内行动（{line}）：视为放弃，记潜水（L316 必须行使特权的角色未在规定时间内行使）"
            ));
            self.res
                .facts
                .insert(missed_key(self.night.number, &p), 1.0);
            self.res.next_day.missed.push(p);
        }
        let lovers = self
            .snap()
            .seats
            .iter()
            .any(|s| s.marks.iter().any(|m| m == LOVER));
        let matchmaker = snap_dusk.iter().any(|s| s.role == MATCHMAKER);
        if !lovers && matchmaker {
            self.res
                .for_judge
                .push("红娘尚未选择情侣：红线是强制技能，游戏开始时须选择（L142、L222）".into());
        }
    }

    /// Camps that lost this night (never announced, L38; told where the seed says so, L137,
    /// L149), the sheriff's 殉职 (L154–L156, L236), and A-M5 where it mattered.
    fn after(&mut self, lost_before: &std::collections::BTreeSet<String>) {
        let snap = self.snap();
        for f in snap.lost.difference(lost_before) {
            self.res.for_judge.push(format!(
                "【{f}】阵营今夜判负：不予公示，其角色不出局（L38、L166）"
            ));
        }
        if snap.lost.contains(KILLERS) && !lost_before.contains(KILLERS) {
            for s in snap.seats.iter().filter(|s| s.alive) {
                if s.faction == KILLERS && s.role == ASSASSIN {
                    self.tell(
                        &s.player,
                        "杀了狗皇帝阵营已判负：你们失去杀人技能（L137）".into(),
                    );
                } else if s.faction == ELOPED && s.marks.iter().any(|m| m == LOVER) {
                    self.tell(
                        &s.player,
                        "杀了狗皇帝阵营已判负：你们获得技能<杀人>（寡妇刀，L149）".into(),
                    );
                }
            }
        }
        if let Some(sheriff) = self.sheriff() {
            if self.res.deaths.iter().any(|d| d.player == sheriff) && self.over.is_none() {
                self.res.for_judge.push(format!(
                    "警长 {sheriff} 出局（非罚下）：须由其选择一名未出局的角色继任警长（殉职，L154）；未在时限内与法官联系则随机移交（L236），并补上公示的当日警长（L54）"
                ));
            }
        }
        self.eloped_mattered(&snap);
    }

    fn eloped_mattered(&mut self, snap: &Snapshot) {
        let count = |faction: Option<&str>| {
            snap.seats
                .iter()
                .filter(|s| s.alive && SPECIALS.contains(&s.role.as_str()))
                .filter(|s| faction.is_none_or(|f| s.faction == f))
                .count()
        };
        let in_camp = count(Some(COURT))
            + snap
                .seats
                .iter()
                .filter(|s| s.alive && s.faction == COURT && s.role == MATCHMAKER_TE)
                .count();
        let eloped = count(None) - count(Some(COURT));
        if in_camp == 0 && eloped > 0 {
            let holds = self.read(&A_M5) == "vacuous";
            self.used_reading(
                &A_M5,
                format!(
                    "我爱皇帝本阵营的特已全部出局，私奔走的特仍有 {eloped} 人存活：L194 判负{}",
                    if holds { "成立" } else { "不成立" }
                ),
            );
        }
    }

    /// The sheriff at dusk: the latest day up to this night naming one (the first night, 0,
    /// comes before day 1's election, L223, L230), if alive.
    fn sheriff(&self) -> Option<String> {
        let n = self.night.number;
        let name = self
            .game
            .days
            .iter()
            .filter(|d| d.day <= n && d.sheriff.is_some())
            .max_by_key(|d| d.day)?
            .sheriff
            .clone()?;
        self.night.alive(&name).then_some(name)
    }

    /// The dawn post (L54): the night's exits in the order they went out, no role (L52), no
    /// cause, no loss (L38); the day's sheriff; a win announced (L164).
    fn announce(&mut self) {
        let bb = |s: &str| s.replace('[', "［").replace(']', "］");
        let n = self.night.number;
        // Night 0 is the first, before day 1 (L223 "直接入夜").
        let title = if n == 0 {
            "首夜".to_string()
        } else {
            format!("第{n}夜")
        };
        let mut out = format!("[b]{title}[/b]\n");
        if self.res.deaths.is_empty() {
            out.push_str("夜晚出局：无\n");
        } else {
            let names: Vec<String> = self.res.deaths.iter().map(|d| bb(&d.player)).collect();
            out.push_str(&format!("夜晚出局（按出局顺序）：{}\n", names.join("、")));
        }
        if let Some(won) = &self.over {
            let camps: Vec<String> = won
                .iter()
                .map(|(name, f)| bb(f.as_deref().unwrap_or(name)))
                .collect();
            out.push_str(&format!(
                "[b]游戏结束：【{}】阵营胜利[/b]\n",
                camps.join("、")
            ));
        } else if let Some(s) = self.sheriff() {
            let day = n + 1;
            if self.res.deaths.iter().any(|d| d.player == s) {
                out.push_str(&format!(
                    "第{day}天警长：（{} 殉职，由其指定继任）\n",
                    bb(&s)
                ));
            } else {
                out.push_str(&format!("第{day}天警长：{}\n", bb(&s)));
            }
        }
        self.res.announce = out;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(power: Power, target: &str, at: Option<&str>) -> Msg {
        Msg {
            action: Action {
                by: vec!["甲".into()],
                power: power.word().into(),
                target: Some(target.into()),
                platform: None,
                sent_at: at.map(|t| DateTime::parse_from_rfc3339(t).unwrap()),
                source: String::new(),
            },
            power,
            target: Some(target.into()),
        }
    }

    #[test]
    fn a_red_thread_names_two_players_in_the_usual_ways() {
        for t in [
            "甲、乙",
            "甲,乙",
            "甲，乙",
            "甲 和 乙",
            "甲和乙",
            " 甲 / 乙 ",
        ] {
            assert_eq!(pair(t), Some(("甲".into(), "乙".into())), "{t}");
        }
        assert_eq!(pair("甲"), None);
        assert_eq!(pair("甲、乙、丙"), None);
    }

    #[test]
    fn the_first_or_last_message_needs_times_that_tell_them_apart() {
        let early = "2026-12-02T21:05:00+08:00";
        let late = "2026-12-02T21:15:00+08:00";
        let two = [
            msg(Power::Guard, "乙", Some(late)),
            msg(Power::Guard, "丙", Some(early)),
        ];
        assert_eq!(extreme(&two, true), Some(1));
        assert_eq!(extreme(&two, false), Some(0));
        let untimed = [
            msg(Power::Guard, "乙", None),
            msg(Power::Guard, "丙", Some(early)),
        ];
        assert_eq!(extreme(&untimed, true), None);
        let tied = [
            msg(Power::Guard, "乙", Some(early)),
            msg(Power::Guard, "丙", Some(early)),
        ];
        assert_eq!(extreme(&tied, true), None);
        let same = [
            msg(Power::Guard, "乙", Some(early)),
            msg(Power::Guard, "乙", Some(early)),
        ];
        assert_eq!(extreme(&same, true), Some(0));
    }

    #[test]
    fn without_the_game_the_night_is_refused_not_guessed() {
        let seats = Vec::new();
        let facts = Default::default();
        let readings = Default::default();
        let night = Night {
            number: 1,
            seats: &seats,
            facts: &facts,
            readings: &readings,
            deadline: None,
        };
        let a = msg(Power::Guard, "乙", None).action;
        let r = M103.resolve(&night, std::slice::from_ref(&a));
        assert_eq!(r.refused.len(), 1);
        assert!(r.refused[0].reason.contains("L170"));
        assert!(r.deaths.is_empty());
    }

    #[test]
    fn every_power_word_reads_back() {
        for p in [
            Power::RedThread,
            Power::Guard,
            Power::Kill,
            Power::Tongling,
            Power::Save,
            Power::Poison,
            Power::Check,
            Power::Abstain,
        ] {
            assert_eq!(power(p.word()), Some(p));
        }
        assert_eq!(power("指杀"), Some(Power::Kill));
        assert_eq!(power("守护"), Some(Power::Guard));
        assert_eq!(power("飞天"), None);
    }
}
