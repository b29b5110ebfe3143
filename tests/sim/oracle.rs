//! The oracle: a second, minimal counter written for the simulator from the seed posts, not
//! from the tally's code. It judges each post by what the generator meant by it (`Intent`),
//! never by its text, with only the plainest rules: who may vote, first ballots, the one
//! change, the lock, late ballots, the quote m103 asks of a change, and the outcome rule.
//! Seed lines are `nl -ba` lines of tests/fixtures/seeds/ (000 chuhan, 001 jiaohui, 002 m103,
//! 003 qipan).

use crate::gen::{Day, GenPost, Intent, Preset, Target, PLAYERS, RUNOFF_SECS};
use std::collections::{BTreeMap, BTreeSet};

/// One day's result as the oracle counts it.
#[derive(Debug, Clone, PartialEq)]
pub struct Counted {
    /// Each voter's counted ballot: its pid and target.
    pub ballots: BTreeMap<String, (u64, String)>,
    /// Votes per player (weighted).
    pub counts: BTreeMap<String, f64>,
    /// Abstentions (weighted).
    pub abstain: f64,
    /// The votes the share rules divide by.
    pub total: f64,
    /// Living players with no counted ballot at the close.
    pub non_voters: BTreeSet<String>,
    /// The outcome kind (the tally's snake_case name) and who, where the oracle models it.
    pub outcome: Option<(String, Vec<String>)>,
    /// A post the seed leaves open was met (a shrunk game can hold one): the day is not compared.
    pub unmodeled: Option<String>,
    /// bansha42: who goes out before an overtime settles the rest (004 L79).
    pub decided: Vec<String>,
}

/// The lock: no change in the last 60 minutes (all three presets: 000 L117 "投票时间结束前1小时内
/// 禁止改票", 001 L180 "投票时间结束前1小时内不允许改票", 002 L249 "白天结束前一个小时不得改票"). A
/// change at exactly 60 minutes before the close is inside the hour ("前1小时内").
const LOCK_SECS: i64 = 3600;

struct Standing {
    target: Target,
    pid: u64,
    changes: u32,
    /// The voter's own well-formed ballot posts so far (what a change may quote).
    own: Vec<u64>,
}

/// The players of the day: the roster less the dead (outsiders are none).
fn living(day: &Day) -> Vec<&'static str> {
    PLAYERS
        .iter()
        .copied()
        .filter(|p| !day.dead.iter().any(|d| d == p))
        .collect()
}

/// Round 1 of `day`.
pub fn count(preset: Preset, day: &Day) -> Counted {
    if preset == Preset::Bansha42 {
        let k = crate::gen::bansha42_round(day.day).1;
        return judge_poll(day, &day.posts, &day.readings, None, k);
    }
    let posts: Vec<(i64, &GenPost)> = day.posts.iter().map(|p| (p.secs, p)).collect();
    judge(preset, day, &posts, None)
}

/// Round 2 of `day`, if it has one: its posts, and in chuhan round 1's posts after round 1's
/// close (000 L119: ballots are replies in the day's one vote thread, and a post after round 1's
/// close is in round 2's time). Not in jiaohui, whose ballots name their round (001 L175 "第几次":
/// a "第一次" ballot is round 1's).
pub fn count_runoff(preset: Preset, day: &Day) -> Option<Counted> {
    let r = day.runoff.as_ref()?;
    if preset == Preset::Bansha42 {
        let k = r.places.unwrap_or(1) as usize;
        return Some(judge_poll(
            day,
            &r.posts,
            &r.readings,
            Some(&r.candidates),
            k,
        ));
    }
    let mut posts: Vec<(i64, &GenPost)> = r.posts.iter().map(|p| (p.secs, p)).collect();
    // qipan likewise: one inbox, round 2's time after round 1's close (003 L100).
    if matches!(preset, Preset::Chuhan | Preset::Qipan) {
        posts.extend(
            day.posts
                .iter()
                .filter(|p| p.secs > 0)
                .map(|p| (p.secs - RUNOFF_SECS, p)),
        );
    }
    Some(judge(preset, day, &posts, Some(&r.candidates)))
}

/// One round's posts (each with its time from the round's close) judged and counted.
fn judge(
    preset: Preset,
    day: &Day,
    posts: &[(i64, &GenPost)],
    candidates: Option<&[String]>,
) -> Counted {
    // Only living players vote: 000 L109 "在所有活着的玩家之间进行，每人可以投一票"; 002 L61
    // "所有角色均可参与投票" (the roles: not outsiders) and L319 "禁止已出局角色在…投票帖…发言";
    // jiaohui's roster likewise (outsiders and the dead are no players of the day).
    let living = living(day);
    let mut standing: BTreeMap<String, Standing> = BTreeMap::new();
    let mut unmodeled = None;
    // Every change of a count, in time order (seconds from the close, target, delta): day 1's
    // sheriff is the first to reach the top count.
    let mut history: Vec<(i64, Target, f64)> = Vec::new();
    let mut posts: Vec<(i64, &GenPost)> = posts.to_vec();
    posts.sort_by_key(|(secs, p)| (*secs, p.pid));
    // Ballots void for whom they name (one out, not a candidate).
    let mut void_ballots: BTreeSet<u64> = BTreeSet::new();
    // Round 2 names only its candidates (000 L113 "所有最高票得主接受第二轮高票辩论投票", 001 L173
    // "进入第二轮高票辩论投票"); abstaining stays allowed (000 L118 "白天的各轮投票中…可以投弃权票").
    // Nor one already out (000 L109 "在所有活着的玩家之间进行": the vote is among the living; a
    // vote puts out whom it names, which one out already cannot be). The generator names only
    // the living, but the judge's confirmations put players out the generator did not know of.
    let allowed = |t: &Target| match (t, candidates) {
        (Target::Player(n), _) if day.dead.contains(n) => false,
        (Target::Player(n), Some(c)) => c.contains(n),
        _ => true,
    };
    for (secs, p) in posts {
        if !living.contains(&p.author.as_str()) {
            continue;
        }
        // Late: 002 L249 "投票截止时间是当天白天结束"; 000 L119 "允许在投票时间内再次投票或改票";
        // 001 L182 "超过一律视为弃权票". A post at the close itself is in time.
        if secs > 0 {
            continue;
        }
        // qipan: a ballot with no reasoning is void where the round asks for it (003 L130
        // "投票时需要写推理过程"), a ballot in round 2 (L100 "投票可以不写原因").
        let intent = match &p.intent {
            Intent::Unreasoned(t) if candidates.is_some() => Intent::Vote(t.clone()),
            Intent::Unreasoned(_) => Intent::Malformed,
            i => i.clone(),
        };
        // A message unreadable for naming two players may name one out since the generator
        // wrote it (the judge's confirmations put out players it did not know of): with one
        // living name left, qipan's free reading takes it as a ballot (found by simd seed
        // 3249: "冷雪和大灰狼都很可疑，先投大灰狼吧" with 冷雪 out). Not judged.
        if intent == Intent::Malformed && day.dead.iter().any(|d| p.text.contains(d.as_str())) {
            unmodeled = Some(format!(
                "{}: a malformed ballot naming one out since it was written",
                p.pid
            ));
        }
        match &intent {
            // Malformed: 002 L249 "投票格式有误的投票将算作废票"; 000 L119 "格式错误的投票或改票无效，
            // 允许在投票时间内再次投票或改票直至符合格式要求"; 001 L175 the format. A void ballot changes
            // nothing and uses nothing.
            Intent::Malformed | Intent::Chatter | Intent::Unreasoned(_) => {}
            // bansha42's (`judge_poll`).
            Intent::Poll(_) | Intent::Proxy(_) | Intent::InThread(_) => {}
            Intent::Vote(t) if !allowed(t) => {
                void_ballots.insert(p.pid);
            }
            Intent::Vote(t) if !standing.contains_key(&p.author) => {
                history.push((secs, t.clone(), 1.0));
                standing.insert(
                    p.author.clone(),
                    Standing {
                        target: t.clone(),
                        pid: p.pid,
                        changes: 0,
                        own: vec![p.pid],
                    },
                );
            }
            // A second ballot while one stands changes the vote, whatever its wording: 000 L116
            // "每轮投票允许玩家改票1次", L118 "弃权票也视为一次投票或改票"; 002 L249 "投票后，（只）有一次
            // 改票机会，改票时必须引用原投票帖". (Found by seed 100155: a chuhan round-1 ballot posted
            // after round 1's close is round 2's first ballot, and the round-2 ballot after it a
            // change; the oracle had ignored such a second ballot.)
            Intent::Vote(t) | Intent::Change(t) => {
                // m103: a change with no ballot before it has no 原投票帖 to quote (002 L249). In
                // chuhan and jiaohui the seed does not say (the generator writes none; shrinking
                // can leave one): the day is not compared.
                // m103: a change quoting the voter's own ballot that was void for whom it named
                // (one out since the generator wrote it): whether that is the 原投票帖 L249 asks
                // for the seed leaves open (the daemon takes any ballot post of the voter's).
                if preset == Preset::M103
                    && p.quote
                        .as_ref()
                        .is_some_and(|(q, a, _, _)| a == &p.author && void_ballots.contains(q))
                {
                    unmodeled = Some(format!(
                        "{}: a change quoting the voter's own void ballot",
                        p.pid
                    ));
                }
                let Some(s) = standing.get_mut(&p.author) else {
                    if preset != Preset::M103 {
                        unmodeled = Some(format!("{}: a change with no ballot before it", p.pid));
                    }
                    continue;
                };
                s.own.push(p.pid);
                // qipan sets no lock (003 L98 "允许改票一次", no window named).
                let in_lock = preset != Preset::Qipan && secs >= -LOCK_SECS;
                // One change: 000 L116 "每轮投票允许玩家改票1次，超过1次的改票无效", 001 L179 "每次投票只允许
                // 改票1次，超过1次的改票无效", 002 L249 "（只）有一次改票机会", 003 L98 "允许改票一次";
                // none in qipan's round 2 (003 L100 "但是不允许改票").
                let allowed_changes = if preset == Preset::Qipan && candidates.is_some() {
                    0
                } else {
                    1
                };
                let over = s.changes >= allowed_changes;
                // 002 L249 "改票时必须引用原投票帖".
                let unquoted = preset == Preset::M103
                    && !p.quote.as_ref().is_some_and(|(q, a, _, _)| {
                        a == &p.author && s.own.contains(q) && *q != p.pid
                    });
                if !(in_lock || over || unquoted) && allowed(t) && *t != s.target {
                    history.push((secs, s.target.clone(), -1.0));
                    history.push((secs, t.clone(), 1.0));
                    s.target = t.clone();
                    s.pid = p.pid;
                    s.changes += 1;
                }
            }
        }
    }
    let mut c = tally_up(preset, day, &living, standing, candidates.is_some());
    if preset == Preset::M103 && day.day == 1 && candidates.is_none() {
        c.outcome = sheriff(&c.counts, &history);
    }
    Counted { unmodeled, ..c }
}

/// Day 1 of m103: 002 L152 "在游戏的第一天投票结束后，最先获得投票数最多的角色当选警长". With changes a
/// count can reach the top, fall and reach it again: the seed does not say which reaching is
/// "最先" (the first time, or the time since which the count held). Where the two readings name
/// different players, or two reach it at the same second, the oracle does not judge (None).
fn sheriff(
    counts: &BTreeMap<String, f64>,
    history: &[(i64, Target, f64)],
) -> Option<(String, Vec<String>)> {
    let max = counts.values().cloned().fold(0.0, f64::max);
    if max <= 0.0 {
        return None;
    }
    let mut first: Vec<(i64, String)> = Vec::new();
    let mut held: Vec<(i64, String)> = Vec::new();
    for (name, v) in counts {
        if *v != max {
            continue;
        }
        let (mut running, mut f, mut h) = (0.0, None, None);
        for (t, who, delta) in history {
            if who.name() == name {
                let before = running;
                running += delta;
                if before < max && running >= max {
                    f = f.or(Some(*t));
                    h = Some(*t);
                }
            }
        }
        first.push((f?, name.clone()));
        held.push((h?, name.clone()));
    }
    first.sort();
    held.sort();
    let unique = |v: &[(i64, String)]| (v.len() == 1 || v[0].0 < v[1].0).then(|| v[0].1.clone());
    match (unique(&first), unique(&held)) {
        (Some(a), Some(b)) if a == b => Some(("sheriff".into(), vec![a])),
        _ => None,
    }
}

fn tally_up(
    preset: Preset,
    day: &Day,
    living: &[&str],
    standing: BTreeMap<String, Standing>,
    round_two: bool,
) -> Counted {
    let mut counts: BTreeMap<String, f64> = BTreeMap::new();
    let mut abstain = 0.0;
    let mut ballots = BTreeMap::new();
    for (voter, s) in &standing {
        // 002 L153 "计算投票数量时警长投出的票计为1.5票".
        let w = if day.sheriff.as_deref() == Some(voter.as_str()) {
            1.5
        } else {
            1.0
        };
        match &s.target {
            Target::Player(t) => *counts.entry(t.clone()).or_default() += w,
            // Abstentions are votes cast: 000 L118 "弃权票也视为一次投票或改票", 001 L181, 002 L249.
            Target::Abstain => abstain += w,
        }
        ballots.insert(voter.clone(), (s.pid, s.target.name().to_string()));
    }
    let non_voters: BTreeSet<String> = living
        .iter()
        .filter(|p| !standing.contains_key(**p))
        .map(|p| p.to_string())
        .collect();
    let mut total = counts.values().sum::<f64>() + abstain;
    if preset == Preset::Jiaohui {
        // 001 L182 "超过一律视为弃权票", L181 "不能不投": who has no ballot abstains.
        total += non_voters.len() as f64;
    }
    // chuhan 000 L80 "第二天投票结束时法官将给被诅咒的对象多计一票", L82 "…少计一票", at round 1's
    // close only (L114 "诅咒和庇佑的效果不能带入第二轮投票"). Added to the counts, not to the
    // votes cast (L111's "总票数" counts ballots); a count is never below nothing.
    if !round_two {
        for sign in [1, -1] {
            for (p, by) in day.adjust.iter().filter(|(_, by)| by.signum() == sign) {
                let c = counts.entry(p.clone()).or_default();
                *c = (*c + f64::from(*by)).max(0.0);
            }
        }
        // A blessing on one with no vote leaves no count.
        counts.retain(|_, v| *v > 0.0);
    }
    let outcome = if round_two {
        runoff_outcome(preset, &counts)
    } else {
        outcome(preset, day.day, &counts, total, living.len())
    };
    Counted {
        ballots,
        counts,
        abstain,
        total,
        non_voters,
        outcome,
        unmodeled: None,
        decided: Vec::new(),
    }
}

/// Round 2's top goes out: 000 L113 "第二轮的最高票得主被处决。如再度平票，则当天不处决任何人"; 001
/// L173 "此轮得票最高者死" (a second tie the seed leaves open: not judged).
fn runoff_outcome(preset: Preset, counts: &BTreeMap<String, f64>) -> Option<(String, Vec<String>)> {
    let max = counts.values().cloned().fold(0.0, f64::max);
    let top: Vec<String> = counts
        .iter()
        .filter(|(_, v)| **v == max && max > 0.0)
        .map(|(k, _)| k.clone())
        .collect();
    match (top.len(), preset) {
        (1, _) => Some(("eliminated".into(), top)),
        (_, Preset::Chuhan) => Some(("none".into(), vec![])),
        _ => None,
    }
}

fn outcome(
    preset: Preset,
    day: u32,
    counts: &BTreeMap<String, f64>,
    total: f64,
    living: usize,
) -> Option<(String, Vec<String>)> {
    let max = counts.values().cloned().fold(0.0, f64::max);
    let top: Vec<String> = counts
        .iter()
        .filter(|(_, v)| **v == max && max > 0.0)
        .map(|(k, _)| k.clone())
        .collect();
    let one = |kind: &str, top: Vec<String>| Some((kind.to_string(), top));
    match preset {
        // Day 1's sheriff: `sheriff`, from the history.
        Preset::M103 if day == 1 => None,
        // `judge_poll`.
        Preset::Bansha42 => None,
        // 002 L61 "获得投票最多的角色将出局。平票则无人出局".
        Preset::M103 => match top.len() {
            1 => one("eliminated", top),
            _ => one("none", vec![]),
        },
        // 000 L111 "得票等于或超过总票数30%的最高票得主被处决…如无人等于或超过总票数30%，则当天不处决任何人";
        // L113 several such top scorers go to round 2. 001 L172 "得票超过25%(含25%)的最高票被判出局",
        // L173 a tie among them goes to round 2.
        // 003 L98 "超过（指大于等于）存活人数30％的最高票者判作被投死", L100 "30％为上取整，如9人超过30％
        // 指的是3票和3票以上"; a tie among such top scorers goes to round 2 (L100).
        Preset::Qipan => {
            let needed = (living * 30).div_ceil(100) as f64;
            if top.is_empty() || max < needed {
                one("none", vec![])
            } else if top.len() == 1 {
                one("eliminated", top)
            } else {
                one("runoff", top)
            }
        }
        Preset::Chuhan | Preset::Jiaohui => {
            let percent = if preset == Preset::Chuhan { 30.0 } else { 25.0 };
            if top.is_empty() || max < total * percent / 100.0 {
                one("none", vec![])
            } else if top.len() == 1 {
                one("eliminated", top)
            } else {
                one("runoff", top)
            }
        }
    }
}

/// bansha42 (004): each living player's vote in the poll, as bansha first saw it (the forum
/// gives no poll vote a time: L77 "数据以投票机统计的为准"), and the judge's proxies (L76); the top
/// `k` go out (L30–L36), ties settled by arrival (L79). Round 2 is the overtime (`candidates`).
fn judge_poll(
    day: &Day,
    posts: &[GenPost],
    readings: &[i64],
    candidates: Option<&[String]>,
    k: usize,
) -> Counted {
    // L73 "活着的全部玩家参加投票": the dead and outsiders are no voters.
    let living = living(day);
    let mut unmodeled = None;
    // (seconds, 0 poll / 1 proxy, pid, post): a poll vote at the reading that first showed it.
    let mut events: Vec<(i64, u8, u64, &GenPost)> = Vec::new();
    for p in posts {
        match &p.intent {
            Intent::Poll(_) => {
                if let Some((at, _)) = crate::gen::seen(readings, p.secs) {
                    events.push((at, 0, p.pid, p));
                }
            }
            Intent::Proxy(_) => events.push((p.secs, 1, p.pid, p)),
            _ => {}
        }
    }
    events.sort_by_key(|e| (e.0, e.1, e.2));
    for w in events.windows(2) {
        if w[0].0 == w[1].0 && w[0].1 != w[1].1 && w[0].3.author == w[1].3.author {
            unmodeled = Some(format!(
                "{}: the proxy and the reading that first showed the vote at the same second",
                w[1].3.pid
            ));
        }
    }
    // Standing: voter → (targets, by proxy); history of counts for arrival.
    let mut standing: BTreeMap<String, (Vec<Target>, bool)> = BTreeMap::new();
    let mut proxied: BTreeSet<String> = BTreeSet::new();
    let mut history: Vec<(i64, String, f64)> = Vec::new();
    let half = |v: &str| day.half.iter().any(|h| h == v);
    for (secs, _, _, p) in &events {
        if !living.contains(&p.author.as_str()) {
            continue;
        }
        match &p.intent {
            Intent::Poll(ts) => {
                // L76 "一旦托票…不得再自行投票，本人所投票视为无效票"; L85 "哨子不接受任何自杀、弃权声明";
                // a vote for one out already is void (L73: the living vote, to put out the living).
                if proxied.contains(&p.author)
                    || ts.contains(&Target::Abstain)
                    || ts.iter().any(|t| day.dead.iter().any(|d| d == t.name()))
                {
                    continue;
                }
                if !half(&p.author) {
                    for t in ts {
                        history.push((*secs, t.name().to_string(), 1.0));
                    }
                }
                standing.insert(p.author.clone(), (ts.clone(), false));
            }
            Intent::Proxy(t) => {
                // L76 "20：40起不再接受托票"; "本身已投票玩家不接受其改票的托票"; a player who
                // proxied changes through the judge ("如需改票，请联系哨子，改票时间亦截止20:40").
                if *secs >= -1200 || day.dead.iter().any(|d| d == t.name()) {
                    continue;
                }
                match standing.get(&p.author) {
                    Some((_, false)) => continue,
                    // The same target again changes nothing, nor when its vote arrived (found by
                    // seed 216077: the oracle had moved the arrival to the repeat).
                    Some((old, true)) if old.len() == 1 && old[0] == *t => continue,
                    Some((old, true)) if !half(&p.author) => {
                        for o in old {
                            history.push((*secs, o.name().to_string(), -1.0));
                        }
                    }
                    _ => {}
                }
                if !half(&p.author) {
                    history.push((*secs, t.name().to_string(), 1.0));
                }
                proxied.insert(p.author.clone());
                standing.insert(p.author.clone(), (vec![t.clone()], true));
            }
            _ => {}
        }
    }
    let mut counts: BTreeMap<String, f64> = BTreeMap::new();
    let mut halves: BTreeMap<String, f64> = BTreeMap::new();
    let mut ballots = BTreeMap::new();
    for (voter, (ts, _)) in &standing {
        for t in ts {
            if half(voter) {
                *halves.entry(t.name().to_string()).or_default() += 0.5;
            } else {
                *counts.entry(t.name().to_string()).or_default() += 1.0;
            }
        }
        let names: Vec<&str> = ts.iter().map(|t| t.name()).collect();
        ballots.insert(voter.clone(), (0, names.join("、")));
    }
    // L72 "如未用投票机，所投票视为废票，不算自杀": who posted a ballot in the thread and has no
    // vote is no suicide; L74's half voters owe no vote.
    let in_thread = |v: &str| {
        posts
            .iter()
            .any(|p| p.author == v && matches!(p.intent, Intent::InThread(_)) && p.secs <= 0)
    };
    // A thread ballot naming one already out: whether L72 spares its author the suicide the
    // seed leaves open (the daemon does not, as for any ballot void in itself); not judged.
    for p in posts {
        if let Intent::InThread(t) = &p.intent {
            if p.secs <= 0
                && day.dead.iter().any(|d| d == t.name())
                && living.contains(&p.author.as_str())
                && !standing.contains_key(&p.author)
            {
                unmodeled = Some(format!(
                    "{}: a ballot in the thread for one out already (L72 leaves it open)",
                    p.pid
                ));
            }
        }
    }
    let non_voters: BTreeSet<String> = living
        .iter()
        .filter(|p| !standing.contains_key(**p) && !half(p))
        .map(|p| {
            if in_thread(p) {
                format!("{p}（版面投票，不算自杀）")
            } else {
                p.to_string()
            }
        })
        .collect();
    let reached = |name: &str, final_count: f64| {
        let (mut running, mut at) = (0.0, None);
        for (t, who, d) in &history {
            if who == name {
                let before = running;
                running += d;
                if before < final_count && running >= final_count {
                    at = Some(*t);
                }
            }
        }
        at
    };
    let total = counts.values().sum::<f64>();
    let counts: BTreeMap<String, f64> = counts.into_iter().filter(|(_, v)| *v > 0.0).collect();
    let mut ranked: Vec<(String, f64, f64, Option<i64>)> = counts
        .iter()
        .map(|(n, v)| {
            (
                n.clone(),
                *v,
                halves.get(n).copied().unwrap_or(0.0),
                reached(n, *v),
            )
        })
        .collect();
    ranked.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap());
    let (outcome, decided) = top_k(&ranked, k, candidates.is_some());
    Counted {
        ballots,
        counts,
        abstain: 0.0,
        total,
        non_voters,
        outcome,
        unmodeled,
        decided,
    }
}

/// 004 L30–L36: the `k` with the most votes go out. Tied at the cut: L74's half votes first
/// ("仅在平票时计算生效"), then L79 "后到先出" (who reached the count later goes first); reached at
/// the same moment: "加时15分钟，票一出X" (an overtime). A second overtime, and a cut among the
/// tied that half votes do not settle (when half votes "arrive" the seed does not say), are not
/// judged.
type Ranked = (String, f64, f64, Option<i64>);
fn top_k(
    ranked: &[Ranked],
    k: usize,
    overtime: bool,
) -> (Option<(String, Vec<String>)>, Vec<String>) {
    let names = |v: &[&Ranked]| -> Vec<String> {
        let mut n: Vec<String> = v.iter().map(|r| r.0.clone()).collect();
        n.sort();
        n
    };
    if ranked.is_empty() {
        return (Some(("none".into(), vec![])), vec![]);
    }
    if ranked.len() <= k {
        let all: Vec<&Ranked> = ranked.iter().collect();
        return (Some(("eliminated".into(), names(&all))), vec![]);
    }
    let cut = ranked[k - 1].1;
    let mut out: Vec<&Ranked> = ranked.iter().filter(|r| r.1 > cut).collect();
    let mut group: Vec<&Ranked> = ranked.iter().filter(|r| r.1 == cut).collect();
    let mut places = k - out.len();
    if group.len() == places {
        out.extend(group);
        return (Some(("eliminated".into(), names(&out))), vec![]);
    }
    group.sort_by(|a, b| b.2.partial_cmp(&a.2).unwrap());
    let h = group[places - 1].2;
    if group[places].2 != h {
        out.extend(&group[..places]);
        return (Some(("eliminated".into(), names(&out))), vec![]);
    }
    if h > 0.0 {
        return (None, vec![]);
    }
    let above: Vec<&Ranked> = group.iter().copied().filter(|r| r.2 > h).collect();
    places -= above.len();
    out.extend(above);
    let mut sub: Vec<&Ranked> = group.iter().copied().filter(|r| r.2 == h).collect();
    sub.sort_by_key(|s| std::cmp::Reverse(s.3));
    let r = sub[places - 1].3;
    if sub[places].3 != r {
        out.extend(&sub[..places]);
        return (Some(("eliminated".into(), names(&out))), vec![]);
    }
    if overtime {
        return (None, vec![]);
    }
    out.extend(sub.iter().copied().filter(|s| s.3 > r));
    let tied: Vec<&Ranked> = sub.iter().copied().filter(|s| s.3 == r).collect();
    (Some(("overtime".into(), names(&tied))), names(&out))
}
