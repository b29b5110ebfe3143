//! bansha42 (seed 004): a round's kill posts and what they do. Night N follows day N's vote and
//! its result post; the kill posts sent after it (L60 "最迟在每晚结果帖发出后十五分钟内") belong
//! to round N + 1, whose vote they feed with half votes (L74): round 1 has no posts (L30).
//!
//! Actions (power in the seed's words; `by` a player or his code, L91–L101):
//! - 贴杀 (杀帖, 帖杀, 出贴): a kill post that passed `check-post`; `target` the victim.
//! - 白条 (L60), 重写 (a post that failed its check, L57, L64), 非原创 (L63): a post the
//!   judge has ruled on; 放弃 (L66): an owed post given up (the poster is out).
//! - 解药, 毒药, 魔术 (the 巫师, L16–L18); 禁权 (L20).

use super::{
    last_of_each, used_key, Action, Choice, Death, Feedback, Night, PowerUse, Resolution, Resolver,
};
use crate::rules::state::Seat;
use chrono::{DateTime, FixedOffset};
use std::collections::{BTreeMap, BTreeSet};

pub struct Bansha42;

const FIREWORKS: Choice = Choice {
    key: "fireworks_lapse",
    id: "A-B1",
    lines: "004 L22, L24 \"四轮出帖后烟花功能失效\"; L12 \"四轮结束后失效\"",
    readings: &[
        ("after_round_4", "第四轮的贴之后失效：第五轮起无烟花"),
        (
            "after_four_post_rounds",
            "出过四轮贴之后失效（第一轮无贴）：第六轮起无烟花",
        ),
    ],
    default: "after_round_4",
};
const HALF_VOTE: Choice = Choice {
    key: "half_vote_same_fate",
    id: "A-B2",
    lines: "004 L74 \"当轮被贴杀的人投票算半票\"",
    readings: &[
        ("egg_only", "接帖的蛋算被贴杀（半票），同归的出帖者不算"),
        ("egg_and_poster", "蛋与同归的出帖者都算半票"),
        ("neither", "同归的两人都不算半票"),
    ],
    default: "egg_only",
};
const SAVED_EGG: Choice = Choice {
    key: "saved_egg_poster",
    id: "A-B3",
    lines: "004 L22 \"接贴后与出帖人同归\"; L16 \"用解药救回一个被帖杀的死者\"",
    readings: &[
        ("poster_stays_dead", "烟花已放：只救回蛋，出帖者仍同归"),
        ("poster_revives", "蛋被救，同归不成立，出帖者也不死"),
    ],
    default: "poster_stays_dead",
};
const POISON_BLACK_EGG: Choice = Choice {
    key: "poison_black_egg",
    id: "A-B4",
    lines:
        "004 L12 \"失效前在晚上被禁权/巫师作用时，他会与禁权/巫师同归\"; L16 \"立刻失去所有技能\"",
    readings: &[
        ("witch_dies", "巫师毒黑蛋，巫师与黑蛋同归"),
        ("no_effect", "黑蛋被毒即失去技能，巫师不死"),
    ],
    default: "witch_dies",
};
const MAGIC_LAPSE: Choice = Choice {
    key: "magic_poison_lapse",
    id: "A-B5",
    lines: "004 L17 \"毒药在第四轮结束后失效\"; L18 \"可将一瓶解药变成毒药使用\"",
    readings: &[
        ("lapses", "魔术变出的毒药也是毒药，第四轮后失效"),
        ("usable", "魔术用的是解药，除最后一轮外都可用"),
    ],
    default: "lapses",
};
const BAN_POST: Choice = Choice {
    key: "ban_removes",
    id: "A-B6",
    lines: "004 L20 \"如果禁到黑道（除黑蛋），则该轮黑道少一帖\"",
    readings: &[
        ("black_total", "黑道总数少一帖（多出的一贴是最后交的）"),
        ("banned_group", "被禁者所在的组少一帖"),
    ],
    default: "black_total",
};
const LONE_ASSASSIN: Choice = Choice {
    key: "lone_assassin_post",
    id: "A-B7",
    lines: "004 L31–L33 \"独刺1\"; L66 \"按规则中代号顺序\"",
    readings: &[
        ("first_sent", "两名独刺谁先交谁出，后交的多出"),
        ("code_order", "按代号顺序轮流：出贴最少者中代号在前的出"),
    ],
    default: "first_sent",
};
const WITCH_SAME_ROUND: Choice = Choice {
    key: "witch_dies_same_round",
    id: "A-B8",
    lines: "004 L17 \"两种药可同时在一轮使用\"; L12 同归",
    readings: &[
        ("both_stand", "巫师同归的当轮，她的另一瓶药照样生效"),
        ("death_first", "巫师因同归出局，另一瓶药作废"),
    ],
    default: "both_stand",
};

const CHOICES: &[Choice] = &[
    FIREWORKS,
    HALF_VOTE,
    SAVED_EGG,
    POISON_BLACK_EGG,
    MAGIC_LAPSE,
    BAN_POST,
    LONE_ASSASSIN,
    WITCH_SAME_ROUND,
];

/// The last round of the table (L36 "第七轮…余1人定胜负").
const LAST_ROUND: u32 = 7;

/// Who owes posts (L31–L36 "杀2、联刺1，独刺1").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Group {
    Sha,
    LianCi,
    DuCi,
    HeiDan,
}

impl Group {
    fn zh(self) -> &'static str {
        match self {
            Group::Sha => "联合杀",
            Group::LianCi => "情侣刺",
            Group::DuCi => "独立刺",
            Group::HeiDan => "黑蛋",
        }
    }
}

/// A seed role from the roster's word (the seed spaces some: "黑 蛋", "巫 师").
fn role(seat: &Seat) -> String {
    let r: String = seat.role.chars().filter(|c| !c.is_whitespace()).collect();
    match r.as_str() {
        "女巫" => "巫师".into(),
        "独刺" => "独立刺".into(),
        "联刺" => "情侣刺".into(),
        "杀手" => "联合杀".into(),
        _ => r,
    }
}

fn group(seat: &Seat) -> Option<Group> {
    match role(seat).as_str() {
        "联合杀" => Some(Group::Sha),
        "情侣刺" => Some(Group::LianCi),
        "独立刺" => Some(Group::DuCi),
        "黑蛋" => Some(Group::HeiDan),
        _ => None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Post,
    Iou,
    Rewrite,
    NotOriginal,
}

#[derive(Debug, Clone)]
struct Post {
    poster: String,
    victim: String,
    group: Group,
    kind: Kind,
    at: Option<DateTime<FixedOffset>>,
    action: Action,
}

/// The round's quotas (L31–L36) after 特注, 禁权 and the union.
struct Quota {
    union_round: bool,
    per_group: BTreeMap<Group, u32>,
    total: u32,
    notes: Vec<String>,
}

/// The night's working record.
struct Work<'a, 'n> {
    night: &'a Night<'n>,
    round: u32,
    res: Resolution,
    /// Dead at dawn: player → cause (the cause decides the half vote, L74).
    dead: BTreeMap<String, String>,
    /// The dawn post's line for a death.
    public: BTreeMap<String, String>,
    half: BTreeSet<String>,
    /// Players the posts killed, and who posted them.
    posted: BTreeMap<String, Vec<Post>>,
    announce: Vec<String>,
    /// Eggs posted this round → the posters who went with them (A-B3).
    fates: BTreeMap<String, Vec<String>>,
}

impl<'a, 'n> Work<'a, 'n> {
    fn seat(&self, who: &str) -> Option<&'a Seat> {
        let who = who.trim();
        self.night
            .seats
            .iter()
            .find(|s| s.player == who)
            .or_else(|| {
                self.night
                    .seats
                    .iter()
                    .find(|s| s.code.as_deref() == Some(who))
            })
    }
    fn refuse(&mut self, action: &Action, reason: impl Into<String>) {
        self.res.refuse(action, reason);
    }
    fn reading(&mut self, c: &Choice, decided: impl Into<String>) -> String {
        let r = self.night.reading(c).to_string();
        self.res.note_reading(c, &r, decided);
        r
    }
    /// Records a death at dawn; `public` is the dawn post's line (None: another line covers it).
    /// A player killed twice in the round (a poster gone with the egg he posted, or ruled out
    /// for his own post, and posted himself) was 贴杀 all the same: the kill post's death, with
    /// its half vote (L74), stands whichever the resolver met first, and the dawn post says both.
    fn kill(&mut self, player: &str, cause: String, public: Option<String>, half: bool) {
        if self.dead.contains_key(player) {
            if half && !self.half.contains(player) {
                self.dead.insert(player.to_string(), cause);
                self.half.insert(player.to_string());
                if let Some(line) = public {
                    let both = match self.public.get(player) {
                        Some(first) => format!("{first}；{line}"),
                        None => line,
                    };
                    self.public.insert(player.to_string(), both);
                }
            }
            return;
        }
        self.dead.insert(player.to_string(), cause);
        if let Some(line) = public {
            self.public.insert(player.to_string(), line);
        }
        if half {
            self.half.insert(player.to_string());
        }
    }
    fn unkill(&mut self, player: &str) {
        self.dead.remove(player);
        self.public.remove(player);
        self.half.remove(player);
    }
    fn used(&mut self, player: &str, power: &str) {
        self.res.powers_used.push(PowerUse {
            player: player.into(),
            power: power.into(),
        });
        self.res.facts.insert(used_key(player, power), 1.0);
    }
    fn by_role(&self, r: &str) -> Vec<&'a Seat> {
        self.night.seats.iter().filter(|s| role(s) == r).collect()
    }
}

impl Resolver for Bansha42 {
    fn choices(&self) -> &'static [Choice] {
        CHOICES
    }

    fn resolve(&self, night: &Night, actions: &[Action]) -> Resolution {
        let mut w = Work {
            night,
            round: night.number + 1,
            res: Resolution::default(),
            dead: BTreeMap::new(),
            public: BTreeMap::new(),
            half: BTreeSet::new(),
            posted: BTreeMap::new(),
            announce: Vec::new(),
            fates: BTreeMap::new(),
        };
        if night.number == 0 {
            w.res.for_judge.push(
                "004 L30 第一轮只投票不出贴：第 N 夜的杀帖属于第 N+1 轮，夜晚从第 1 夜算起".into(),
            );
        }
        let (posts, others) = sort_actions(&mut w, actions);
        let ban = ban_target(&mut w, &others);
        let quota = quotas(&mut w, ban);
        let accepted = accept(&mut w, posts, &quota);
        apply_posts(&mut w, &accepted);
        abandon(&mut w, &others);
        witch(&mut w, &others);
        finish(&mut w, &quota, &accepted);
        w.res
    }
}

/// Splits the posts (each one counts; a post is not a changeable order) from the other powers
/// (the last of each counts), lists late ones and refuses what no rule lets the actor do.
fn sort_actions(w: &mut Work, actions: &[Action]) -> (Vec<Post>, Vec<Action>) {
    let mut posts: Vec<Post> = Vec::new();
    let mut rest: Vec<Action> = Vec::new();
    for a in actions {
        let kind = match a.power.trim() {
            "贴杀" | "杀帖" | "帖杀" | "出贴" | "出帖" => Some(Kind::Post),
            "白条" => Some(Kind::Iou),
            "重写" => Some(Kind::Rewrite),
            "非原创" | "非首发" => Some(Kind::NotOriginal),
            "放弃" | "解药" | "毒药" | "魔术" | "禁权" => None,
            other => {
                w.refuse(
                    a,
                    format!(
                        "“{other}”不是本局的夜晚行动：可用 贴杀、白条、重写、非原创、放弃、解药、毒药、魔术、禁权"
                    ),
                );
                continue;
            }
        };
        if a.by.len() != 1 {
            w.refuse(a, "本局的行动各由一人做出（杀帖注明一个代号，004 L59）");
            continue;
        }
        if let (Some(t), Some(d)) = (a.sent_at, w.night.deadline) {
            if t > d {
                w.res.late.push(a.clone());
                continue;
            }
        }
        let Some(seat) = w.seat(&a.by[0]) else {
            w.refuse(a, format!("{} 不是本局玩家，也不是本局的代号", a.by[0]));
            continue;
        };
        if !seat.alive {
            w.refuse(a, format!("{} 已出局", seat.player));
            continue;
        }
        let Some(kind) = kind else {
            let mut a = a.clone();
            a.by = vec![seat.player.clone()];
            rest.push(a);
            continue;
        };
        if let Some(p) = post(w, a, seat, kind) {
            if !posts
                .iter()
                .any(|q| q.poster == p.poster && q.victim == p.victim)
            {
                posts.push(p);
            }
        }
    }
    let (kept, late) = last_of_each(&rest, None);
    w.res.late.extend(late);
    (posts, kept)
}

/// One post checked: a poster who may post (L8–L12), a living victim.
fn post(w: &mut Work, a: &Action, seat: &Seat, kind: Kind) -> Option<Post> {
    let Some(g) = group(seat) else {
        w.refuse(
            a,
            format!(
                "{}（{}）没有贴杀权：出贴的是联合杀、情侣刺、独立刺（004 L8–L11），杀刺全部出局后的黑蛋（L12）",
                seat.player, seat.role
            ),
        );
        return None;
    };
    if g == Group::HeiDan && w.night.seats.iter().any(|s| s.alive && is_killer(s)) {
        w.refuse(
            a,
            format!(
                "{} 是黑蛋：杀刺全部出局后才可代杀刺出贴（004 L12）",
                seat.player
            ),
        );
        return None;
    }
    let Some(target) = a.target.as_deref() else {
        w.refuse(a, "杀帖要写被帖的玩家（target）");
        return None;
    };
    let Some(victim) = w.seat(target) else {
        w.refuse(a, format!("被帖的“{target}”不是本局玩家"));
        return None;
    };
    if !victim.alive {
        w.refuse(a, format!("被帖的 {} 已出局", victim.player));
        return None;
    }
    if w.round > LAST_ROUND || w.night.number == 0 {
        w.refuse(
            a,
            format!(
                "进程表（004 L30–L36）第 {} 轮没有杀帖；哨子调整进程（L39）请改规则",
                w.round
            ),
        );
        return None;
    }
    if kind == Kind::Iou && w.round == LAST_ROUND {
        w.kill(
            &seat.player,
            "大结局轮次不允许白条，视为放弃，出帖者出局（004 L65）".into(),
            Some(format!("{} 放弃贴杀，出局（004 L65）", seat.player)),
            false,
        );
        w.refuse(a, "大结局轮次不允许白条杀人（004 L65）：出帖者出局");
        return None;
    }
    Some(Post {
        poster: seat.player.clone(),
        victim: victim.player.clone(),
        group: g,
        kind,
        at: a.sent_at,
        action: a.clone(),
    })
}

fn is_killer(s: &Seat) -> bool {
    matches!(group(s), Some(Group::Sha | Group::LianCi | Group::DuCi))
}

/// The 禁权's use (L20: rounds 2–4, once): returns the player banned when it takes effect. A
/// 黑蛋 banned before he lapses takes the 禁权 with him (L12).
fn ban_target<'a>(w: &mut Work<'a, '_>, others: &[Action]) -> Option<&'a Seat> {
    let mut found = None;
    for a in others.iter().filter(|a| a.power.trim() == "禁权") {
        let by = w.seat(&a.by[0])?;
        if role(by) == "禁权" {
            found = Some(a);
        } else {
            w.refuse(a, format!("{} 不是禁权（004 L20）", by.player));
        }
    }
    let a = found?;
    let by = w.seat(&a.by[0])?;
    if !(2..=4).contains(&w.round) {
        w.refuse(
            a,
            format!("禁权只在第 2–4 轮使用（004 L20），这是第 {} 轮", w.round),
        );
        return None;
    }
    if w.night.used(&by.player, "禁权") {
        w.refuse(a, "禁权整场只用一次（004 L20），已经用过");
        return None;
    }
    let Some(t) = a.target.as_deref().and_then(|t| w.seat(t)) else {
        w.refuse(a, "禁权要写对谁使用（target，本局玩家）");
        return None;
    };
    if !t.alive {
        w.refuse(a, format!("{} 已出局", t.player));
        return None;
    }
    w.used(&by.player, "禁权");
    w.announce
        .push("禁权出贴使用了技能（不公布对何人使用，004 L20）".into());
    w.res.for_judge.push(format!(
        "{}：禁权使用技能需出贴，且须在该轮开始晚上9点前通知哨子（004 L20）：请核对通知时间",
        by.player
    ));
    if role(t) == "黑蛋" && w.round <= 4 {
        w.kill(
            &t.player,
            format!("黑蛋被禁权 {} 作用，同归（004 L12）", by.player),
            Some(format!("{} 出局", t.player)),
            false,
        );
        w.kill(
            &by.player,
            format!("禁权作用于黑蛋 {}，同归（004 L12）", t.player),
            Some(format!("{} 出局", by.player)),
            false,
        );
        return None;
    }
    if t.faction.contains('黑') && role(t) != "黑蛋" {
        return Some(t);
    }
    None
}

/// The round table (L30–L36) with 特注 (L38), the union (L42, L10) and the 禁权 (L20, A-B6).
fn quotas(w: &mut Work, ban: Option<&Seat>) -> Quota {
    let r = w.round;
    let dead_black = w
        .night
        .seats
        .iter()
        .filter(|s| !s.alive && s.faction.contains('黑'))
        .count();
    let united = r >= 5 || dead_black >= 6;
    let union_round = united && w.night.fact(UNION) == 0.0;
    let mut per_group: BTreeMap<Group, u32> = BTreeMap::new();
    let mut total: u32 = match r {
        2..=4 => 4,
        5 | 6 => 3,
        7 => 2,
        _ => 0,
    };
    let mut notes = Vec::new();
    if (2..=4).contains(&r) && !united {
        per_group.insert(Group::Sha, 2);
        per_group.insert(Group::LianCi, 1);
        per_group.insert(Group::DuCi, 1);
    }
    if union_round && total > 0 {
        w.res.facts.insert(UNION.into(), f64::from(r));
        let why = if dead_black >= 6 {
            format!("黑道已出局 {dead_black} 人")
        } else {
            "四轮已结束".into()
        };
        notes.push(format!(
            "黑道联合（004 L42，{why}）：黑蛋永不联合；女巫与禁权联合（L43）；叛变的虾米可在本轮出贴前选人叛变（L13）"
        ));
        if w.by_role("情侣刺").iter().any(|s| !s.alive) {
            total += 1;
            notes.push("情侣刺联合前有人出局，已私奔：联合当轮加一贴（004 L10）".into());
        }
    }
    if let Some(b) = ban {
        let reading = if per_group.is_empty() {
            "black_total".to_string()
        } else {
            w.reading(&BAN_POST, format!("禁权禁到黑道 {}：本轮少一帖", b.player))
        };
        match (reading.as_str(), group(b)) {
            ("banned_group", Some(g)) if per_group.get(&g).copied().unwrap_or(0) > 0 => {
                *per_group.entry(g).or_default() -= 1;
            }
            _ => {}
        }
        total = total.saturating_sub(1);
        notes.push("禁权禁到黑道：本轮黑道少一帖（004 L20）".into());
    }
    Quota {
        union_round,
        per_group,
        total,
        notes,
    }
}

/// The fact holding the round the black side united in (L42).
const UNION: &str = "黑道联合轮";

/// The fact counting a player's posts (L66: who has not posted yet goes out first).
fn posts_key(player: &str) -> String {
    format!("贴数:{player}")
}

/// The `n` earliest of `posts` and the rest; `None` when which are the earliest cannot be told
/// (a post without a time, or two at the same time, at the boundary).
fn earliest(mut posts: Vec<Post>, n: usize) -> Option<(Vec<Post>, Vec<Post>)> {
    if posts.len() <= n {
        return Some((posts, Vec::new()));
    }
    if posts.iter().any(|p| p.at.is_none()) {
        return None;
    }
    posts.sort_by_key(|p| p.at);
    if n > 0 && posts[n - 1].at == posts[n].at {
        return None;
    }
    let rest = posts.split_off(n);
    Some((posts, rest))
}

/// Which posts count against the round's quotas; the others are refused with why.
fn accept(w: &mut Work, posts: Vec<Post>, q: &Quota) -> Vec<Post> {
    let posts = lone_assassin(w, posts);
    let mut kept: Vec<Post> = Vec::new();
    if q.per_group.is_empty() || excess(w, &posts, q) == 0 {
        kept = posts;
    } else {
        let mut pool = 0usize;
        let mut over: Vec<Post> = Vec::new();
        for (g, n) in &q.per_group {
            let alive = w
                .night
                .seats
                .iter()
                .any(|s| s.alive && group(s) == Some(*g));
            if !alive {
                // L38 "如刺客或杀手全部出局，由幸存杀刺方同伴代为出帖".
                pool += *n as usize;
                continue;
            }
            let mine: Vec<Post> = posts.iter().filter(|p| p.group == *g).cloned().collect();
            let (k, e) = split(w, mine, *n as usize, g.zh());
            kept.extend(k);
            over.extend(e);
        }
        over.extend(
            posts
                .into_iter()
                .filter(|p| !q.per_group.contains_key(&p.group)),
        );
        let (k, e) = split(w, over, pool, "代出局同伴的贴（004 L38）");
        kept.extend(k);
        for p in e {
            let n = q.per_group.get(&p.group).copied().unwrap_or(0);
            let reason = format!("超出进程表：本轮{}应出 {n} 贴（004 L31–L33）", p.group.zh());
            w.refuse(&p.action, reason);
        }
    }
    let (k, e) = split(w, kept, q.total as usize, "黑道");
    for p in e {
        let reason = format!(
            "超出进程表：本轮黑道共应出 {} 贴，这一贴交得最晚（004 L30–L36）",
            q.total
        );
        w.refuse(&p.action, reason);
    }
    k
}

/// How many posts are beyond what their groups and the pool of the groups all out (L38) owe:
/// none, and no post needs to be told from another.
fn excess(w: &Work, posts: &[Post], q: &Quota) -> usize {
    let mut pool = 0usize;
    let mut over = 0usize;
    for (g, n) in &q.per_group {
        let alive = w
            .night
            .seats
            .iter()
            .any(|s| s.alive && group(s) == Some(*g));
        let c = posts.iter().filter(|p| p.group == *g).count();
        if alive {
            over += c.saturating_sub(*n as usize);
        } else {
            pool += *n as usize;
            over += c;
        }
    }
    over += posts
        .iter()
        .filter(|p| !q.per_group.contains_key(&p.group))
        .count();
    over.saturating_sub(pool)
}

/// The `n` earliest posts and the rest. When which are the earliest cannot be told, all of
/// them are refused and the judge is asked.
fn split(w: &mut Work, posts: Vec<Post>, n: usize, who: &str) -> (Vec<Post>, Vec<Post>) {
    let count = posts.len();
    if let Some(kr) = earliest(posts.clone(), n) {
        return kr;
    }
    w.res.for_judge.push(format!(
        "本轮{who}应出 {n} 贴，收到 {count} 贴，没有交帖时间（或时间相同）无法判断哪一贴多出：请法官指定后重算（004 L30–L36）"
    ));
    for p in posts {
        w.refuse(&p.action, "超出进程表且无法判断先后：等法官指定");
    }
    (Vec::new(), Vec::new())
}

/// A-B7: with the code-order reading, only the 独立刺 whose turn it is may post.
fn lone_assassin(w: &mut Work, posts: Vec<Post>) -> Vec<Post> {
    let du: Vec<&Post> = posts.iter().filter(|p| p.group == Group::DuCi).collect();
    let posters: BTreeSet<&str> = du.iter().map(|p| p.poster.as_str()).collect();
    if posters.len() < 2 {
        return posts;
    }
    let decided = "两名独立刺都交了贴".to_string();
    if w.reading(&LONE_ASSASSIN, decided) != "code_order" {
        return posts;
    }
    let turn = w
        .night
        .seats
        .iter()
        .filter(|s| s.alive && group(s) == Some(Group::DuCi))
        .min_by(|a, b| {
            let fa = w.night.fact(&posts_key(&a.player));
            let fb = w.night.fact(&posts_key(&b.player));
            fa.total_cmp(&fb)
        })
        .map(|s| s.player.clone());
    let mut out = Vec::new();
    for p in posts {
        if p.group == Group::DuCi && Some(&p.poster) != turn.as_ref() {
            let who = turn.clone().unwrap_or_default();
            w.refuse(
                &p.action,
                format!("按代号顺序本轮由独立刺 {who} 出贴（A-B7 code_order，004 L66）"),
            );
        } else {
            out.push(p);
        }
    }
    out
}

/// The victims of the counted posts, the fireworks (L12, L22, L24) and the posts the judge
/// ruled on (L57, L60–L64).
fn apply_posts(w: &mut Work, posts: &[Post]) {
    for p in posts {
        let code = w
            .seat(&p.poster)
            .and_then(|s| s.code.clone())
            .unwrap_or_else(|| p.poster.clone());
        *w.res
            .facts
            .entry(posts_key(&p.poster))
            .or_insert(w.night.fact(&posts_key(&p.poster))) += 1.0;
        w.res.powers_used.push(PowerUse {
            player: p.poster.clone(),
            power: "贴杀".into(),
        });
        match p.kind {
            Kind::NotOriginal => {
                w.kill(
                    &p.poster,
                    "出帖非原创或非首发，判出局（004 L63）".into(),
                    Some(format!(
                        "{code} 的帖子非原创或非首发：出帖者 {} 出局，被帖者 {} 不死（004 L63）",
                        p.poster, p.victim
                    )),
                    false,
                );
                continue;
            }
            Kind::Iou => w.res.for_judge.push(format!(
                "{}（{code}）白条贴 {}：最迟次日 12:00 前交给哨子、1200 字以上，否则视为无帖自杀出局、被帖玩家复活（004 L60）",
                p.poster, p.victim
            )),
            Kind::Rewrite => w.res.for_judge.push(format!(
                "{}（{code}）贴 {} 的杀帖不合格：重写 1500 字以上，最迟次日 12:00，未按时重写完毕则出帖者出局、被帖者复活（004 L57、L64）",
                p.poster, p.victim
            )),
            Kind::Post => {}
        }
        w.posted
            .entry(p.victim.clone())
            .or_default()
            .push(p.clone());
    }
    let victims: Vec<(String, Vec<Post>)> = w
        .posted
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (victim, by) in victims {
        if by.len() > 1 {
            w.res.for_judge.push(format!(
                "{victim} 本轮接了 {} 贴：每一贴都按接贴结算（烟花各与出帖者同归）",
                by.len()
            ));
        }
        let codes: Vec<String> = by
            .iter()
            .map(|p| {
                w.seat(&p.poster)
                    .and_then(|s| s.code.clone())
                    .unwrap_or_else(|| p.poster.clone())
            })
            .collect();
        let seat = w.seat(&victim).cloned();
        let egg = seat.as_ref().map(role).unwrap_or_default();
        match fireworks(w, &egg) {
            Some(Egg { publish }) => same_fate(w, &victim, &egg, &by, &codes, publish),
            None => {
                let public = format!(
                    "{victim} 被 {} 贴杀（本轮投票算半票，004 L74）",
                    codes.join("、")
                );
                w.kill(
                    &victim,
                    format!("被{}贴杀", codes.join("、")),
                    Some(public),
                    true,
                )
            }
        }
    }
}

struct Egg {
    publish: bool,
}

/// Whether a post on a player of role `r` sets off fireworks this round (A-B1 for the eggs,
/// L12 "四轮结束后失效" for the 黑蛋).
fn fireworks(w: &mut Work, r: &str) -> Option<Egg> {
    match r {
        "明蛋" | "暗蛋" => {
            let last = if w.round >= 5 {
                let reading = w.reading(
                    &FIREWORKS,
                    format!("第 {} 轮的贴接到{r}：烟花是否仍有效", w.round),
                );
                if reading == "after_four_post_rounds" {
                    5
                } else {
                    4
                }
            } else {
                4
            };
            (w.round <= last).then_some(Egg { publish: true })
        }
        "黑蛋" => (w.round <= 4).then_some(Egg { publish: false }),
        _ => None,
    }
}

/// An egg posted: it and its posters go together (L12, L22, L24); A-B2 decides the half votes.
fn same_fate(w: &mut Work, victim: &str, r: &str, by: &[Post], codes: &[String], publish: bool) {
    let reading = w.reading(
        &HALF_VOTE,
        format!("{victim}（{r}）接帖同归：谁算当轮被贴杀"),
    );
    let egg_half = reading != "neither";
    let poster_half = reading == "egg_and_poster";
    let cause = if egg_half {
        format!("被{}贴杀，{r}接帖同归", codes.join("、"))
    } else {
        format!("{r}接帖，与出帖者{}同归", codes.join("、"))
    };
    w.kill(victim, cause, None, egg_half);
    for p in by {
        let cause = if poster_half {
            format!("{r} {victim} 接帖同归（按当轮被贴杀计半票）")
        } else {
            format!("{r} {victim} 接帖同归")
        };
        w.kill(&p.poster, cause, None, poster_half);
    }
    let posters: Vec<&str> = by.iter().map(|p| p.poster.as_str()).collect();
    w.fates.insert(
        victim.to_string(),
        posters.iter().map(|p| p.to_string()).collect(),
    );
    if publish {
        w.announce.push(format!(
            "{victim} 接帖，身份：{r}；出帖者 {} 同归（004 L22、L24）",
            posters.join("、")
        ));
        if by.iter().any(|p| p.kind == Kind::Iou) {
            w.res.for_judge.push(format!(
                "{victim} 的烟花来自白条：出帖者如不补白条，取消所有下场奖励，接帖者即使公布了身份也予以复活，但烟花功能失效（004 L61）"
            ));
        }
    } else {
        w.announce.push(format!(
            "{victim} 接帖，与出帖者 {} 同归",
            posters.join("、")
        ));
    }
}

/// L66 "放弃出帖等同自杀": an owed post given up; the poster is out.
fn abandon(w: &mut Work, others: &[Action]) {
    for a in others.iter().filter(|a| a.power.trim() == "放弃") {
        let Some(seat) = w.seat(&a.by[0]) else {
            continue;
        };
        if group(seat).is_none() {
            w.refuse(a, format!("{} 没有出贴的义务（004 L8–L12）", seat.player));
            continue;
        }
        let player = seat.player.clone();
        w.kill(
            &player,
            "放弃出帖，等同自杀（004 L66）".into(),
            Some(format!("{player} 放弃出帖，等同自杀（004 L66）")),
            false,
        );
    }
}

/// A potion checked: the 巫师 (L16), once each (L17), in the rounds it works.
fn potion_ok(w: &mut Work, a: &Action) -> bool {
    let Some(seat) = w.seat(&a.by[0]) else {
        return false;
    };
    let power = a.power.trim();
    if role(seat) != "巫师" {
        w.refuse(
            a,
            format!("{} 不是巫师，没有{power}（004 L16）", seat.player),
        );
        return false;
    }
    // L18: 魔术 turns the one 解药 into a poison.
    let bottle = if power == "毒药" {
        "毒药"
    } else {
        "解药"
    };
    if w.night.used(&seat.player, bottle) {
        w.refuse(a, format!("{bottle}整场只能用一次（004 L17），已经用过"));
        return false;
    }
    let last_round = w.round >= LAST_ROUND;
    let lapsed = match power {
        "解药" => last_round.then_some("解药最后一轮不可用（004 L17）"),
        "毒药" => (w.round > 4).then_some("毒药在第四轮结束后失效（004 L17）"),
        _ if w.round > 4 => {
            let r = w.reading(&MAGIC_LAPSE, format!("第 {} 轮用魔术变出的毒药", w.round));
            if r == "lapses" {
                Some("魔术变出的毒药在第四轮结束后失效（004 L17、L18，A-B5）")
            } else {
                last_round.then_some("解药（魔术）最后一轮不可用（004 L17）")
            }
        }
        _ => None,
    };
    if let Some(why) = lapsed {
        w.refuse(a, why);
        return false;
    }
    if a.target.as_deref().and_then(|t| w.seat(t)).is_none() {
        w.refuse(a, format!("{power}要写作用于哪位本局玩家（target）"));
        return false;
    }
    true
}

/// Whether this potion makes the 巫师 go with the 黑蛋 (L12; a poison by A-B4).
fn fatal(w: &mut Work, a: &Action) -> bool {
    let Some(t) = w.seat(a.target.as_deref().unwrap_or_default()).cloned() else {
        return false;
    };
    if role(&t) != "黑蛋" || w.round > 4 {
        return false;
    }
    a.power.trim() == "解药"
        || w.reading(&POISON_BLACK_EGG, format!("巫师毒黑蛋 {}", t.player)) == "witch_dies"
}

/// The 巫师's potions after the kill list (L16–L18), the 黑蛋's 同归 (L12, A-B4) and a potion
/// beside her own 同归 (A-B8).
fn witch(w: &mut Work, others: &[Action]) {
    let mut acts: Vec<Action> = Vec::new();
    for a in others
        .iter()
        .filter(|a| matches!(a.power.trim(), "解药" | "毒药" | "魔术"))
    {
        if potion_ok(w, a) {
            acts.push(a.clone());
        }
    }
    if acts.iter().any(|a| a.power.trim() == "解药") {
        if let Some(m) = acts.iter().position(|a| a.power.trim() == "魔术") {
            let m = acts.remove(m);
            w.refuse(
                &m,
                "解药只有一瓶：同一夜已用解药救人，不能再用魔术（004 L18）",
            );
        }
    }
    let fatal_flags: Vec<bool> = acts.iter().map(|a| fatal(w, a)).collect();
    if acts.len() > 1 && fatal_flags.iter().any(|f| *f) {
        let r = w.reading(&WITCH_SAME_ROUND, "巫师同归的当轮还用了另一瓶药");
        if r == "death_first" {
            let mut keep = Vec::new();
            for (a, f) in acts.into_iter().zip(fatal_flags) {
                if f {
                    keep.push(a);
                } else {
                    w.refuse(&a, "巫师当轮因同归出局，这瓶药作废（A-B8 death_first）");
                }
            }
            acts = keep;
        }
    }
    for a in &acts {
        w.res
            .for_judge
            .push(format!("{}：巫师用药需出贴（004 L17）", a.by[0]));
        if a.power.trim() == "解药" {
            save(w, a);
        } else {
            poison(w, a);
        }
    }
}

/// L16 "用解药救回一个被帖杀的死者，该玩家当即恢复全票"; L17 "女巫解药可自救".
fn save(w: &mut Work, a: &Action) {
    let by = a.by[0].clone();
    let Some(t) = w.seat(a.target.as_deref().unwrap_or_default()).cloned() else {
        return;
    };
    if !w.posted.contains_key(&t.player) || !w.dead.contains_key(&t.player) {
        w.refuse(
            a,
            format!(
                "{} 不是本轮被帖杀的死者：解药只救被帖杀者（004 L16）",
                t.player
            ),
        );
        return;
    }
    w.used(&by, "解药");
    if role(&t) == "黑蛋" && w.round <= 4 {
        w.kill(
            &by,
            format!("巫师对黑蛋 {} 用药，同归（004 L12）", t.player),
            Some(format!("{by} 出局")),
            false,
        );
        w.res.for_judge.push(format!(
            "巫师救黑蛋 {}：黑蛋失效前被巫师作用，与巫师同归（004 L12），解药已用",
            t.player
        ));
        return;
    }
    w.unkill(&t.player);
    w.announce.push(format!(
        "巫师用解药救回 {}，该玩家恢复全票（004 L16）",
        t.player
    ));
    let Some(posters) = w.fates.get(&t.player).cloned() else {
        return;
    };
    let r = w.reading(
        &SAVED_EGG,
        format!("巫师救回接帖的 {}：出帖者是否仍同归", t.player),
    );
    if r == "poster_revives" {
        for p in &posters {
            w.unkill(p);
        }
        w.announce
            .retain(|l| !l.starts_with(&format!("{} 接帖", t.player)));
    }
}

/// L16 "用毒药杀死任意一个存活玩家，被毒杀者当即死亡，无半票"; a 黑蛋 poisoned before he lapses
/// (L12, A-B4).
fn poison(w: &mut Work, a: &Action) {
    let by = a.by[0].clone();
    let power = a.power.trim().to_string();
    let Some(t) = w.seat(a.target.as_deref().unwrap_or_default()).cloned() else {
        return;
    };
    if !t.alive || w.dead.contains_key(&t.player) {
        w.refuse(
            a,
            format!(
                "{} 已出局或本轮已被帖杀：毒药只毒存活玩家（004 L16）",
                t.player
            ),
        );
        return;
    }
    w.used(
        &by,
        if power == "毒药" {
            "毒药"
        } else {
            "解药"
        },
    );
    if power == "魔术" {
        w.res.powers_used.push(PowerUse {
            player: by.clone(),
            power: "魔术".into(),
        });
    }
    w.kill(
        &t.player,
        format!(
            "被巫师毒杀，无半票，立刻失去所有技能（004 L16{}）",
            if power == "魔术" {
                "、L18 魔术"
            } else {
                ""
            }
        ),
        Some(format!("{} 被毒杀（无半票）", t.player)),
        false,
    );
    if role(&t) == "黑蛋"
        && w.round <= 4
        && w.reading(&POISON_BLACK_EGG, format!("巫师毒黑蛋 {}", t.player)) == "witch_dies"
    {
        w.kill(
            &by,
            format!("巫师毒黑蛋 {}，同归（004 L12）", t.player),
            Some(format!("{by} 出局")),
            false,
        );
    }
}

/// Missing posts (L60, L66), the union's notices (L10, L42, L43), the deaths, half votes and
/// the dawn post.
fn finish(w: &mut Work, q: &Quota, accepted: &[Post]) {
    let abandoned: BTreeSet<String> = w
        .dead
        .iter()
        .filter(|(_, c)| c.contains("L66") || c.contains("L65"))
        .map(|(p, _)| p.clone())
        .collect();
    let sent = accepted.len() + abandoned.len();
    if (sent as u32) < q.total {
        let mut owing: Vec<&Seat> = w
            .night
            .seats
            .iter()
            .filter(|s| s.alive && is_killer(s) && !accepted.iter().any(|p| p.poster == s.player))
            .filter(|s| !abandoned.contains(&s.player))
            .collect();
        if owing.is_empty() {
            owing = w
                .night
                .seats
                .iter()
                .filter(|s| s.alive && group(s) == Some(Group::HeiDan))
                .collect();
        }
        owing.sort_by(|a, b| {
            let f = |s: &Seat| w.night.fact(&posts_key(&s.player));
            f(a).total_cmp(&f(b))
        });
        let names: Vec<String> = owing
            .iter()
            .map(|s| format!("{}（{}）", s.player, s.code.clone().unwrap_or_default()))
            .collect();
        w.res.for_judge.push(format!(
            "第 {} 轮黑道应出 {} 贴，只收到 {sent} 贴：最迟结果帖发出后十五分钟内交帖，否则视为放弃贴杀（特殊情况可白条，次日 12 点前 1200 字，004 L60）；放弃出帖等同自杀，联系不上时按代号顺序、未出过帖者先判出局（L66）。尚未出贴：{}",
            w.round,
            q.total,
            names.join("、")
        ));
    }
    for n in &q.notes {
        w.res.for_judge.push(n.clone());
    }
    if q.union_round {
        union_feedback(w);
    }
    let order: Vec<String> = w.night.seats.iter().map(|s| s.player.clone()).collect();
    let mut lines = Vec::new();
    for p in &order {
        if let Some(cause) = w.dead.get(p) {
            w.res.deaths.push(Death {
                player: p.clone(),
                cause: cause.clone(),
            });
            if let Some(l) = w.public.get(p) {
                lines.push(l.clone());
            }
        }
        if w.half.contains(p) {
            w.res.next_day.half_voters.push(p.clone());
        }
    }
    lines.extend(w.announce.iter().cloned());
    if lines.is_empty() {
        lines.push("本轮无人因贴出局".into());
    }
    w.res.announce = format!("[b]第{}轮贴杀结果[/b]\n{}", w.round, lines.join("\n"));
}

/// L42 "黑道联合…黑蛋永不联合"; L10 the eloped 情侣刺 learn all black but the 黑蛋; L43 the
/// 女巫 and 禁权 unite.
fn union_feedback(w: &mut Work) {
    let black: Vec<&Seat> = w
        .night
        .seats
        .iter()
        .filter(|s| s.alive && s.faction.contains('黑') && role(s) != "黑蛋")
        .collect();
    let names: Vec<String> = black
        .iter()
        .map(|s| format!("{}（{}）", s.player, role(s)))
        .collect();
    for s in &black {
        w.res.feedback.push(Feedback {
            to: s.player.clone(),
            text: format!("黑道联合（004 L42）：黑道同伴为 {}", names.join("、")),
        });
    }
    let white: Vec<&Seat> = w
        .night
        .seats
        .iter()
        .filter(|s| s.alive && matches!(role(s).as_str(), "巫师" | "禁权"))
        .collect();
    for s in &white {
        let other: Vec<String> = white
            .iter()
            .filter(|o| o.player != s.player)
            .map(|o| format!("{}（{}）", o.player, role(o)))
            .collect();
        if !other.is_empty() {
            w.res.feedback.push(Feedback {
                to: s.player.clone(),
                text: format!(
                    "白道联合（004 L43）：女巫与禁权联合，同伴为 {}",
                    other.join("、")
                ),
            });
        }
    }
}
