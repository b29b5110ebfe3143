//! The seeded game generator: from a u64, a game on a preset of 1–15 days whose vote threads
//! hold every kind of post the vote rules judge. Each post carries what the generator meant by
//! it (`Intent`), which the oracle judges; the tally reads only the text.
//!
//! The PRNG is ChaCha8 (`rand_chacha`), seeded with `SeedableRng::seed_from_u64`: its output
//! stream is specified and portable (the same on every platform and every `rand_chacha` 0.9.x),
//! and numbers are drawn only with `next_u64` and our own `below` — no `rand` distribution
//! whose algorithm could change between versions.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

pub struct Rng(ChaCha8Rng);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(ChaCha8Rng::seed_from_u64(seed))
    }
    /// A number in 0..n (the modulo's bias is below 2^-50 for the small n used here).
    pub fn below(&mut self, n: u64) -> u64 {
        self.0.next_u64() % n.max(1)
    }
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn pick<T: Clone>(&mut self, v: &[T]) -> T {
        v[self.below(v.len() as u64) as usize].clone()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preset {
    M103,
    Chuhan,
    Jiaohui,
    /// Ballots by private message to the judge, in the players' own words (003 L106, L130).
    Qipan,
    /// Votes in the forum's poll (004 L72), the judge's proxies (L76), K out a round (L30–L36).
    Bansha42,
}

/// The presets whose ballots are posts in a vote thread, drawn from the seed's first stream as
/// before qipan was simulated (so their seeds keep their games).
const THREAD_PRESETS: [Preset; 3] = [Preset::M103, Preset::Chuhan, Preset::Jiaohui];
/// Every simulated preset.
pub const PRESETS: [Preset; 5] = [
    Preset::M103,
    Preset::Chuhan,
    Preset::Jiaohui,
    Preset::Qipan,
    Preset::Bansha42,
];

impl Preset {
    pub fn name(self) -> &'static str {
        match self {
            Preset::M103 => "m103",
            Preset::Chuhan => "chuhan",
            Preset::Jiaohui => "jiaohui",
            Preset::Qipan => "qipan",
            Preset::Bansha42 => "bansha42",
        }
    }

    /// How long round 2 runs after round 1's close: a run-off's 24 hours (000 L105), bansha42's
    /// overtime of 15 minutes (004 L79 "则加时15分钟").
    pub fn runoff_secs(self) -> i64 {
        match self {
            Preset::Bansha42 => OVERTIME_SECS,
            _ => RUNOFF_SECS,
        }
    }
}

/// bansha42's rounds (004 L30–L36 "第一轮：杀1人。票1出1…第七轮：杀4人。票2出2"): each player's
/// votes and how many go out by vote, for rounds 1–7.
pub fn bansha42_round(day: u32) -> (usize, usize) {
    match day {
        1 => (1, 1),
        2..=4 => (2, 4),
        5 | 6 => (2, 3),
        _ => (2, 2),
    }
}

pub const OVERTIME_SECS: i64 = 15 * 60;

pub const PLAYERS: [&str; 14] = [
    "大灰狼",
    "小飞",
    "李逵",
    "花千树",
    "不见",
    "冷雪",
    "蝈蝈",
    "小熊维尼",
    "超人",
    "音乐虫子",
    "yucca",
    "龙舌",
    "青鸾花",
    "雪罂子",
];
pub const JUDGE: &str = "版杀一室法官";
/// A poster's uid: the judge's and the players' as on the captured forum (`common_member.json`:
/// 2, then 3–16 in the order above), outsiders after them.
pub fn uid_of(name: &str) -> u64 {
    if name == JUDGE {
        return 2;
    }
    PLAYERS
        .iter()
        .chain(OUTSIDERS.iter())
        .position(|m| *m == name)
        .map_or(99, |i| i as u64 + 3)
}

/// Posters who are not in the roster.
pub const OUTSIDERS: [&str; 2] = ["路人甲", "过路的猫"];
/// A target that is nobody in the game.
pub const NOBODY: &str = "张三丰";
const REASONS: [&str; 6] = ["划水", "发言奇怪", "直觉", "跟票", "悍跳", "站边有问题"];
const CHATTER: [&str; 4] = ["今天天气不错", "我再想想", "同意楼上的分析", "晚点来投"];

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    Player(String),
    Abstain,
}

impl Target {
    pub fn name(&self) -> &str {
        match self {
            Target::Player(p) => p,
            Target::Abstain => "弃权",
        }
    }
}

/// What a post is, as the generator wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Intent {
    /// A well-formed first ballot (vote wording).
    Vote(Target),
    /// A well-formed change (change wording).
    Change(Target),
    /// A ballot in the vote wording that the rules call malformed: no reason where one is
    /// required, or a target who is nobody in the game.
    Malformed,
    /// A first ballot with no reasoning (qipan): void where the round asks for reasoning (003
    /// L130 "投票时需要写推理过程"), a ballot where it does not (L100 "投票可以不写原因").
    Unreasoned(Target),
    /// No ballot of its own; it may quote someone else's ballot.
    Chatter,
    /// A vote in the forum's poll (bansha42): the options ticked, cast at the post's `secs`.
    Poll(Vec<Target>),
    /// The judge's proxy for the post's author (004 L76 托票), entered at the post's `secs`.
    Proxy(Target),
    /// A ballot posted in the poll's thread instead of cast in the poll (004 L72: void, and no
    /// suicide).
    InThread(Target),
}

/// Which post a post quotes (by generation index, resolved to a pid once pids are given).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QuoteOf {
    None,
    /// The voter's own first well-formed ballot.
    Own(usize),
    /// The latest earlier ballot post by somebody else (resolved at materialisation).
    Other,
}

#[derive(Clone, Debug)]
pub struct GenPost {
    pub pid: u64,
    pub author: String,
    /// Seconds from the day's close (negative: before it).
    pub secs: i64,
    pub intent: Intent,
    pub text: String,
    /// (pid, author, text, whether it is a well-formed ballot) of the quoted post.
    pub quote: Option<(u64, String, String, bool)>,
}

#[derive(Clone, Debug)]
pub struct Day {
    pub day: u32,
    pub dead: Vec<String>,
    pub sheriff: Option<String>,
    pub posts: Vec<GenPost>,
    /// Round 2, where round 1 ends in a tie at the top (chuhan, jiaohui), or bansha42's overtime.
    pub runoff: Option<Runoff>,
    /// bansha42: when bansha read the poll (seconds from the close), in order.
    pub readings: Vec<i64>,
    /// bansha42: living players killed by a kill post this round (004 L74 "当轮被贴杀的人投票算
    /// 半票，仅在平票时计算生效").
    pub half: Vec<String>,
    /// chuhan: votes added (+1, 左士's 诅咒) or taken (−1, 右士's 庇佑) at round 1's close, by
    /// player, as a confirmed night left them (none from the generator: the service simulator
    /// fills them from the judge's state).
    pub adjust: BTreeMap<String, i32>,
}

/// Round 2 of a day: its candidates and its posts (in the same thread), their `secs` counted
/// from round 2's close, `RUNOFF_SECS` after round 1's (000 L105 "白天自动延长真实时间的24小时").
#[derive(Clone, Debug)]
pub struct Runoff {
    pub candidates: Vec<String>,
    pub posts: Vec<GenPost>,
    /// bansha42's overtime: how many of the candidates go out (004 L79 "票一出X"), and when
    /// bansha read its poll.
    pub places: Option<u32>,
    pub readings: Vec<i64>,
}

pub const RUNOFF_SECS: i64 = 24 * 3600;

/// How long a qipan day's round 1 runs before its close (003 L96 "9：00—21：00 白天"): the judge
/// types its `opens_at`, and a message before it is too early.
pub const QIPAN_DAY_SECS: i64 = 12 * 3600;

#[derive(Clone, Debug)]
pub struct Game {
    pub seed: u64,
    pub preset: Preset,
    pub days: Vec<Day>,
}

pub fn zh_number(n: u32) -> String {
    const D: [&str; 10] = ["零", "一", "二", "三", "四", "五", "六", "七", "八", "九"];
    match n {
        0..=9 => D[n as usize].into(),
        10 => "十".into(),
        11..=19 => format!("十{}", D[(n - 10) as usize]),
        _ => n.to_string(),
    }
}

/// The text of a ballot in the preset's wording (m103 002 L254–L260, chuhan the same format,
/// jiaohui 001 L175–L179).
fn ballot_text(c: &Ctx, voter: &str, change: bool, target: &str, reason: Option<&str>) -> String {
    let r = reason.unwrap_or("");
    match (c.p, change) {
        (Preset::Jiaohui, false) => {
            let tail = reason.map(|r| format!(" 原因是 {r}")).unwrap_or_default();
            format!(
                "{voter} 第{}天 第{}次 投票的对象是 {target}{tail}",
                zh_number(c.day),
                zh_number(c.round)
            )
        }
        (Preset::Jiaohui, true) => format!("现在改为——投票的对象是 {target} 原因是 {r}"),
        // 003 L106, L130: no wording is given; players write the vote thread's labels or their
        // own words (`own_words`).
        (Preset::Qipan, _) if c.own_words => match (change, reason) {
            (false, Some(r)) if target == "弃权" => format!("弃票，{r}"),
            (false, None) if target == "弃权" => "弃票".into(),
            (false, Some(r)) => format!("我投{target}，理由是{r}"),
            (false, None) => format!("投{target}"),
            (true, _) => format!("改投{target}，理由是{r}"),
        },
        (_, false) => match reason {
            Some(r) => format!("投票对象：{target}\n投票理由：{r}"),
            None => format!("投票对象：{target}"),
        },
        (_, true) => format!("改票对象：{target}\n改票理由：{r}"),
    }
}

/// When a post goes up, in seconds from the close, drawn towards the rules' boundaries: the
/// lock (60 minutes before the close in all three presets) and the close itself.
fn when(rng: &mut Rng, c: &Ctx) -> i64 {
    let earliest = if c.p == Preset::Qipan && c.round == 1 {
        // qipan's day is 9:00 to 21:00 (003 L96), its night after it (L110, L116): no thread
        // tells a message's day, its time does (`QIPAN_DAY_SECS`).
        -QIPAN_DAY_SECS + 60
    } else if c.day == 1 && c.round == 1 {
        -20 * 3600
    } else {
        -23 * 3600
    };
    match rng.below(10) {
        0 => -3600 + rng.range(-120, 120),
        1 => rng.range(-3599, -1),
        2 => rng.range(-5, 5),
        3 => rng.range(1, 2 * 3600),
        _ => rng.range(earliest, -3601),
    }
}

/// What the posts of one round are written for: the preset, the day, the round (2: the run-off),
/// whom a ballot may name (the living; in round 2 the candidates), the living and the dead.
#[derive(Clone)]
struct Ctx {
    p: Preset,
    /// qipan: this voter writes in their own words rather than the labels.
    own_words: bool,
    day: u32,
    round: u32,
    pool: Vec<String>,
    living: Vec<String>,
    dead: Vec<String>,
}

struct Draft {
    author: String,
    secs: i64,
    intent: Intent,
    text: String,
    quote: QuoteOf,
}

fn living_target(rng: &mut Rng, living: &[String], not: &[&Target]) -> Target {
    for _ in 0..20 {
        let t = if rng.chance(10) {
            Target::Abstain
        } else {
            Target::Player(rng.pick(living))
        };
        if !not.contains(&&t) {
            return t;
        }
    }
    Target::Abstain
}

/// One living voter's posts this day: maybe a malformed try, a first ballot, up to two changes.
fn voter_posts(rng: &mut Rng, c: &Ctx, voter: &str, out: &mut Vec<Draft>) {
    let (p, living) = (c.p, &c.pool);
    if !rng.chance(85) {
        return;
    }
    // qipan: half the voters write their own words (drawn only there: the other presets' streams
    // stay as they were).
    let own = Ctx {
        own_words: p == Preset::Qipan && rng.chance(50),
        ..c.clone()
    };
    let c = &own;
    let mut t = when(rng, c);
    if p == Preset::Qipan && rng.chance(12) {
        // 003 L130 "投票时需要写推理过程": a name alone (void in round 1, a ballot in round 2, L100
        // "投票可以不写原因"); or a message naming two living players (no ballot: the judge is asked).
        let target = living_target(rng, living, &[]);
        let (intent, text) = if rng.chance(60) && target != Target::Abstain {
            let text = if c.own_words {
                format!("投{}", target.name())
            } else {
                format!("投票对象：{}", target.name())
            };
            (Intent::Unreasoned(target), text)
        } else {
            let (a, b) = (rng.pick(&c.living), rng.pick(&c.living));
            if a == b || a == voter || b == voter {
                (Intent::Chatter, rng.pick(&CHATTER).to_string())
            } else {
                (Intent::Malformed, format!("{a}和{b}都很可疑，先投{b}吧"))
            }
        };
        out.push(Draft {
            author: voter.into(),
            secs: t,
            intent,
            text,
            quote: QuoteOf::None,
        });
        t += rng.range(1, 3 * 3600);
    } else if p != Preset::Qipan && rng.chance(12) {
        // Round 2: a living player who is no candidate (000 L113 "所有最高票得主接受第二轮高票辩论投票").
        let outside: Vec<String> = c
            .living
            .iter()
            .filter(|l| !c.pool.contains(l))
            .cloned()
            .collect();
        let text = if p != Preset::Chuhan && rng.chance(50) {
            ballot_text(c, voter, false, &rng.pick(living), None)
        } else if c.round == 2 && !outside.is_empty() && rng.chance(50) {
            ballot_text(
                c,
                voter,
                false,
                &rng.pick(&outside),
                Some(rng.pick(&REASONS)),
            )
        } else {
            ballot_text(c, voter, false, NOBODY, Some(rng.pick(&REASONS)))
        };
        out.push(Draft {
            author: voter.into(),
            secs: t,
            intent: Intent::Malformed,
            text,
            quote: QuoteOf::None,
        });
        t += rng.range(1, 3 * 3600);
    }
    let first = living_target(rng, living, &[]);
    let first_text = ballot_text(c, voter, false, first.name(), Some(rng.pick(&REASONS)));
    let quote = if rng.chance(10) && p != Preset::Qipan {
        QuoteOf::Other
    } else {
        QuoteOf::None
    };
    let first_index = out.len();
    out.push(Draft {
        author: voter.into(),
        secs: t,
        intent: Intent::Vote(first.clone()),
        text: first_text.clone(),
        quote,
    });
    let mut targets = vec![first];
    for _ in 0..rng.below(3) {
        t += rng.range(1, 4 * 3600);
        if rng.chance(40) {
            t = t.max(when(rng, c));
        }
        let not: Vec<&Target> = targets.iter().collect();
        let to = living_target(rng, living, &not);
        let mut text = ballot_text(c, voter, true, to.name(), Some(rng.pick(&REASONS)));
        if p == Preset::Jiaohui {
            // 001 L179: the change restates the original line, then "现在改为——…".
            text = format!("“{first_text}”；{text}");
        }
        let quote = match (p, rng.below(10)) {
            (Preset::M103, 0) => QuoteOf::None,
            (Preset::M103, 1) => QuoteOf::Other,
            (Preset::M103, _) => QuoteOf::Own(first_index),
            _ => QuoteOf::None,
        };
        out.push(Draft {
            author: voter.into(),
            secs: t,
            intent: Intent::Change(to.clone()),
            text,
            quote,
        });
        targets.push(to);
    }
}

/// Posts that are not a living player's ballot: dead voters, outsiders, the judge, chatter,
/// quotes of others' ballots, and (m103) a change with no ballot before it.
fn other_posts(rng: &mut Rng, c: &Ctx, out: &mut Vec<Draft>) {
    let (p, living, dead) = (c.p, &c.pool, &c.dead);
    for _ in 0..rng.below(4) {
        let kind = rng.below(6);
        let author: String = match kind {
            0 if !dead.is_empty() => rng.pick(dead),
            0 | 1 => rng.pick(&OUTSIDERS).to_string(),
            2 => JUDGE.into(),
            _ => rng.pick(&c.living),
        };
        let secs = when(rng, c);
        let target = living_target(rng, living, &[]);
        let d = match kind {
            0..=2 => Draft {
                text: ballot_text(c, &author, false, target.name(), Some(rng.pick(&REASONS))),
                author,
                secs,
                intent: Intent::Vote(target),
                quote: QuoteOf::None,
            },
            3 if p == Preset::M103 => Draft {
                text: ballot_text(c, &author, true, target.name(), Some(rng.pick(&REASONS))),
                author,
                secs,
                intent: Intent::Change(target),
                quote: QuoteOf::None,
            },
            _ => Draft {
                text: rng.pick(&CHATTER).to_string(),
                author,
                secs,
                intent: Intent::Chatter,
                // A private message quotes nothing.
                quote: if rng.chance(60) && p != Preset::Qipan {
                    QuoteOf::Other
                } else {
                    QuoteOf::None
                },
            },
        };
        out.push(d);
    }
}

/// When bansha first saw a poll vote cast at `secs`: the first reading at or after it, and the
/// reading before that (None: the first reading already showed it). None: no reading saw it.
pub fn seen(readings: &[i64], secs: i64) -> Option<(i64, Option<i64>)> {
    let i = readings.iter().position(|r| *r >= secs)?;
    Some((readings[i], i.checked_sub(1).map(|j| readings[j])))
}

/// When bansha reads a poll from `from` to just after the close (seconds from the close): every
/// `step` or so. Votes cast between two readings are first seen together (004 L79 "同时到").
fn readings(rng: &mut Rng, from: i64, step: i64) -> Vec<i64> {
    let mut out = Vec::new();
    let mut t = from + rng.range(0, step);
    while t < 0 {
        out.push(t);
        t += rng.range(step / 2, step * 3 / 2);
    }
    // The reading at the close.
    out.push(rng.range(0, 300));
    out
}

/// One round of bansha42: votes cast in the forum's poll (004 L72 "请使用投票机投票"), the judge's
/// proxies (L76), ballots posted in the thread instead (L72: void, no suicide), poll votes by
/// the dead and by outsiders; no vote at all (L73: suicide). Round 2 is the overtime (L79: 15
/// minutes, one vote each among the tied). Returns the drafts and when bansha read the poll.
fn poll_round(rng: &mut Rng, c: &Ctx) -> (Vec<Draft>, Vec<i64>) {
    let overtime = c.round == 2;
    let start = match (overtime, c.day) {
        // After round 1's close (a post at the close itself is round 1's).
        (true, _) => -OVERTIME_SECS + 1,
        (false, 1) => -20 * 3600,
        _ => -23 * 3600,
    };
    let step = match (overtime, rng.chance(30)) {
        (true, true) => OVERTIME_SECS,
        (true, false) => 300,
        (false, true) => 3600,
        (false, false) => 600,
    };
    let readings = readings(rng, start, step);
    let votes = if overtime { 1 } else { bansha42_round(c.day).0 };
    let cast_at = |rng: &mut Rng| match rng.below(3) {
        0 => rng.range((-900).max(start), -1),
        _ => rng.range(start, -1),
    };
    // The poll's options are the pool's names and a 弃权 (the captured poll has one); the
    // overtime's, the tied alone.
    let ticks = |rng: &mut Rng| -> Vec<Target> {
        if !overtime && rng.chance(4) {
            return vec![Target::Abstain];
        }
        let n = rng.range(1, votes as i64) as usize;
        let mut out: Vec<Target> = Vec::new();
        for _ in 0..n {
            let t = Target::Player(rng.pick(&c.pool));
            if !out.contains(&t) {
                out.push(t);
            }
        }
        out
    };
    let draft = |author: &str, secs: i64, intent: Intent| {
        let text = match &intent {
            Intent::InThread(t) => format!("票 {}", t.name()),
            _ => String::new(),
        };
        Draft {
            author: author.into(),
            secs,
            intent,
            text,
            quote: QuoteOf::None,
        }
    };
    let mut out = Vec::new();
    for v in &c.living {
        match rng.below(100) {
            // L73 "逾期不投票的判为自杀".
            0..=7 => {}
            8..=13 => {
                let t = Target::Player(rng.pick(&c.pool));
                out.push(draft(v, cast_at(rng), Intent::InThread(t)));
            }
            14..=23 if !overtime => {
                // L76: a proxy, near the 20:40 cutoff or anywhere before it; perhaps the player's
                // own vote besides it, and perhaps a change through the judge.
                let at = match rng.below(3) {
                    0 => -1200 + rng.range(-3, 3),
                    1 => rng.range(-1199, -1),
                    _ => rng.range(start, -1201),
                };
                let t = Target::Player(rng.pick(&c.pool));
                out.push(draft(v, at, Intent::Proxy(t)));
                if rng.chance(40) {
                    let own: Vec<Target> = ticks(rng)
                        .into_iter()
                        .filter(|t| *t != Target::Abstain)
                        .collect();
                    if !own.is_empty() {
                        out.push(draft(v, cast_at(rng), Intent::Poll(own)));
                    }
                }
                if rng.chance(30) {
                    let later = rng.range(at + 1, (at + 4 * 3600).min(-1).max(at + 1));
                    let t = Target::Player(rng.pick(&c.pool));
                    out.push(draft(v, later, Intent::Proxy(t)));
                }
            }
            _ => {
                let t = ticks(rng);
                out.push(draft(v, cast_at(rng), Intent::Poll(t)));
                if rng.chance(5) {
                    let t = Target::Player(rng.pick(&c.pool));
                    out.push(draft(v, cast_at(rng), Intent::InThread(t)));
                }
            }
        }
    }
    // The poll lets anyone vote: the dead and outsiders too (L73 "活着的全部玩家参加投票").
    if !c.dead.is_empty() && rng.chance(30) {
        let v = rng.pick(&c.dead);
        let t = ticks(rng);
        out.push(draft(&v, cast_at(rng), Intent::Poll(t)));
    }
    if rng.chance(30) {
        let v = rng.pick(&OUTSIDERS);
        let t = ticks(rng);
        out.push(draft(v, cast_at(rng), Intent::Poll(t)));
    }
    (out, readings)
}

/// Give pids in the forum's order (by time) and resolve the quotes.
fn materialise(rng: &mut Rng, first_pid: u64, drafts: Vec<Draft>) -> Vec<GenPost> {
    let mut order: Vec<usize> = (0..drafts.len()).collect();
    order.sort_by_key(|&i| (drafts[i].secs, i));
    let mut pid_of = vec![0u64; drafts.len()];
    for (rank, &i) in order.iter().enumerate() {
        pid_of[i] = first_pid + rank as u64;
    }
    let mut posts: Vec<GenPost> = Vec::new();
    for &i in &order {
        let d = &drafts[i];
        let quote = match d.quote {
            QuoteOf::None => None,
            QuoteOf::Own(j) => Some((
                pid_of[j],
                drafts[j].author.clone(),
                drafts[j].text.clone(),
                true,
            )),
            QuoteOf::Other => {
                let others: Vec<&GenPost> = posts
                    .iter()
                    .filter(|q| q.author != d.author && !matches!(q.intent, Intent::Chatter))
                    .collect();
                (!others.is_empty()).then(|| {
                    let q = rng.pick(&others);
                    (
                        q.pid,
                        q.author.clone(),
                        q.text.clone(),
                        q.intent != Intent::Malformed,
                    )
                })
            }
        };
        posts.push(GenPost {
            pid: pid_of[i],
            author: d.author.clone(),
            // Every post is up within three hours of the close (the tally is read then).
            secs: d.secs.min(3 * 3600),
            intent: d.intent.clone(),
            text: d.text.clone(),
            quote,
        });
    }
    posts
}

/// Round 2's posts, when the oracle's round 1 ends in a run-off: the judge configures it with
/// the tied top scorers as candidates (000 L113, 001 L173); bansha42's overtime, with how many
/// of them go out (004 L79 "票一出X").
fn runoff(rng: &mut Rng, base: &Ctx, probe: &Day) -> Option<Runoff> {
    let counted = crate::oracle::count(base.p, probe);
    let (kind, candidates) = counted.outcome?;
    if kind != "runoff" && kind != "overtime" {
        return None;
    }
    let c = Ctx {
        round: 2,
        pool: candidates.clone(),
        living: base.living.clone(),
        dead: base.dead.clone(),
        ..*base
    };
    let first_pid = c.day as u64 * 1000 + 501;
    if base.p == Preset::Bansha42 {
        let k = bansha42_round(base.day).1;
        let (drafts, readings) = poll_round(rng, &c);
        return Some(Runoff {
            candidates,
            posts: materialise(rng, first_pid, drafts),
            places: Some((k - counted.decided.len()) as u32),
            readings,
        });
    }
    let mut drafts = Vec::new();
    for v in &c.living {
        voter_posts(rng, &c, v, &mut drafts);
    }
    other_posts(rng, &c, &mut drafts);
    let posts = materialise(rng, first_pid, drafts);
    Some(Runoff {
        candidates,
        posts,
        places: None,
        readings: Vec::new(),
    })
}

pub fn generate(seed: u64) -> Game {
    let mut rng = Rng::new(seed);
    let preset = rng.pick(&THREAD_PRESETS);
    // One seed in four plays qipan, one in five of the others bansha42, each drawn from a stream
    // of its own: the others keep the games they had before qipan and bansha42 were simulated.
    let preset = if Rng::new(seed ^ 0x0091_9a77).chance(25) {
        Preset::Qipan
    } else if Rng::new(seed ^ 0x0b42_0b42).chance(20) {
        Preset::Bansha42
    } else {
        preset
    };
    let mut days = rng.range(1, 15) as u32;
    if preset == Preset::Bansha42 {
        // Seven rounds (004 L30–L36).
        days = 1 + (days - 1) % 7;
    }
    let mut dead: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for day in 1..=days {
        if day > 1 {
            for _ in 0..rng.below(3) {
                let living: Vec<String> = PLAYERS
                    .iter()
                    .map(|s| s.to_string())
                    .filter(|p| !dead.contains(p))
                    .collect();
                if living.len() > 4 {
                    dead.push(rng.pick(&living));
                }
            }
        }
        let living: Vec<String> = PLAYERS
            .iter()
            .map(|s| s.to_string())
            .filter(|p| !dead.contains(p))
            .collect();
        let sheriff =
            (preset == Preset::M103 && day > 1 && rng.chance(50)).then(|| rng.pick(&living));
        let c = Ctx {
            p: preset,
            own_words: false,
            day,
            round: 1,
            pool: living.clone(),
            living,
            dead: dead.clone(),
        };
        let mut probe = Day {
            day,
            dead: dead.clone(),
            sheriff,
            posts: Vec::new(),
            runoff: None,
            readings: Vec::new(),
            half: Vec::new(),
            adjust: BTreeMap::new(),
        };
        let mut drafts = Vec::new();
        if preset == Preset::Bansha42 {
            // L74: killed by a kill post this round, yet voting at half weight.
            if day > 1 && rng.chance(40) {
                for _ in 0..rng.range(1, 2) {
                    let h = rng.pick(&c.living);
                    if !probe.half.contains(&h) {
                        probe.half.push(h);
                    }
                }
            }
            let (d, readings) = poll_round(&mut rng, &c);
            drafts = d;
            probe.readings = readings;
        } else {
            for v in &c.living {
                voter_posts(&mut rng, &c, v, &mut drafts);
            }
            other_posts(&mut rng, &c, &mut drafts);
        }
        probe.posts = materialise(&mut rng, day as u64 * 1000 + 1, drafts);
        probe.runoff = runoff(&mut rng, &c, &probe);
        out.push(probe);
    }
    Game {
        seed,
        preset,
        days: out,
    }
}
