//! The tally of one vote round: every ballot post gets a verdict and a reason, the standing
//! ballots are counted, and the outcome follows the game's rules. Pure: posts, the config and
//! an explicit `now` in; a [`Tally`] out.

use super::roster::{Resolved, Roster};
use crate::config::{DayConfig, FirstDay, GameConfig, NonVoter, OutcomeRule, TieRule};
use bansha_parsers::ballot::{Grammar, Wording};
use bansha_parsers::{Post, TimePrecision};
use chrono::{DateTime, Duration, FixedOffset};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

type Time = DateTime<FixedOffset>;

/// Why a tally cannot be made at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TallyError {
    NoSuchDay(u32),
    NoRunoff(u32),
    BadRound(u32),
}

impl fmt::Display for TallyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TallyError::NoSuchDay(d) => write!(f, "配置中没有第 {d} 天（[[days]] 里加上 day = {d}）"),
            TallyError::NoRunoff(d) => write!(
                f,
                "第 {d} 天没有第二轮（在该天的配置里加上 runoff = {{ closes_at = …, candidates = […] }}）"
            ),
            TallyError::BadRound(r) => write!(f, "轮次 {r} 不存在，只有第 1、2 轮"),
        }
    }
}

impl std::error::Error for TallyError {}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BallotKind {
    /// The voter's first ballot this round.
    First,
    /// A change of a standing ballot.
    Change,
    /// A first ballot that abstains.
    Abstain,
    /// The same target as the standing ballot: changes nothing, uses nothing.
    Repeat,
}

impl BallotKind {
    pub fn zh(self) -> &'static str {
        match self {
            BallotKind::First => "投票",
            BallotKind::Change => "改票",
            BallotKind::Abstain => "弃权",
            BallotKind::Repeat => "重复投票",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A post in the vote thread.
    Post,
    /// Entered by the judge in the config (代投 / 托票).
    Judge,
    /// A private message to the judge (qipan).
    Pm,
    /// A vote in the forum's poll (bansha42), timed by when bansha first saw it.
    Poll,
}

/// Where a poll's counts and its voter lists disagree (bansha42 L73 "以投票机数据为准", L77
/// "数据以投票机统计的为准": the poll's own record says who voted, so a vote bansha cannot put a
/// name to leaves that unknown). One option's count against the voters its list names, or the
/// poll's count of voters against the distinct voters all its lists name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct PollGap {
    /// The option's text; `None`: the poll's own count of voters ("共有 N 人参与投票").
    pub option: Option<String>,
    /// The option's `polloptionid`, where known (its voter list is `viewvote&polloptionid=`).
    pub option_id: Option<u64>,
    /// What the poll counts: the option's votes, or the voters of the whole poll.
    pub votes: u32,
    /// The voters the lists name; `None`: the option's list was not read.
    pub named: Option<u32>,
}

impl PollGap {
    /// Votes the poll counts whose voter bansha cannot name.
    pub fn unnamed(&self) -> u32 {
        self.votes.saturating_sub(self.named.unwrap_or(0))
    }
}

/// A ballot that is no post: a poll vote, as bansha first saw it. The forum does not say when a
/// poll vote was cast; it arrived after `since` (the previous reading of the poll, if any) and
/// by `at`.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Cast {
    pub voter: String,
    pub targets: Vec<String>,
    pub at: Time,
    pub since: Option<Time>,
}

/// One ballot post (or judge-entered ballot) and its verdict.
#[derive(Debug, Clone, Serialize)]
pub struct Ballot {
    pub pid: Option<u64>,
    /// The floor as the page shows it ("13#").
    pub floor: String,
    pub voter: String,
    pub posted_at: Option<Time>,
    pub source: Source,
    pub kind: BallotKind,
    /// The resolved target(s): player names, or "弃权". Empty when nothing resolved.
    pub targets: Vec<String>,
    /// The first resolved target, or the target as written when it did not resolve.
    pub target: Option<String>,
    /// The target as the player wrote it.
    pub written: String,
    /// For a change: the standing ballot's target(s) it would replace.
    pub replaces: Vec<String>,
    pub valid: bool,
    /// This ballot is the voter's standing ballot at the end of the tally.
    pub counted: bool,
    /// The verdict, in Chinese ("有效", "无效：对象不明确，可能是 李逵").
    pub reason: String,
    /// The judge's ruling on this ballot, with its reason ("按投 李逵 计：…"), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ruling: Option<String>,
    /// For a void ballot, what its voter can still do at the tally's moment (open, in the lock,
    /// with or without a ballot standing); None once the round is closed. For the judge only:
    /// the public BBCode never carries it (`reason_and_hint` is what the judge reads).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Void for something its voter can mend (not for its time, not a judge's entry or ruling).
    #[serde(skip)]
    mendable: bool,
}

impl Ballot {
    /// The verdict with what the voter can still do, as the judge reads it (mails, dashboard).
    pub fn reason_and_hint(&self) -> String {
        match &self.hint {
            Some(h) => format!("{}；{h}", self.reason),
            None => self.reason.clone(),
        }
    }
}

/// A post that is not counted and not a ballot of a player, listed so nothing is silently
/// dropped.
#[derive(Debug, Clone, Serialize)]
pub struct Ignored {
    pub pid: u64,
    pub floor: String,
    pub author: String,
    pub posted_at: Option<Time>,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct VoterRef {
    pub voter: String,
    pub pid: Option<u64>,
    pub floor: String,
    pub time: Option<Time>,
    /// 1, or the sheriff's weight.
    pub weight: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Adjustment {
    pub kind: AdjustmentKind,
    pub delta: f64,
}

/// A change of a target's count at the close (chuhan).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AdjustmentKind {
    /// 左士's curse: +1.
    Curse,
    /// 右士's blessing: −1.
    Bless,
}

#[derive(Debug, Clone, Serialize)]
pub struct Count {
    pub target: String,
    /// Ballots plus adjustments.
    pub votes: f64,
    pub voters: Vec<VoterRef>,
    pub adjustments: Vec<Adjustment>,
    /// Half votes of players killed by a kill post this round (bansha42): ties only.
    pub half_votes: f64,
    /// When the target last reached its final count.
    pub reached_at: Option<Time>,
}

impl Count {
    /// A target with no votes yet.
    fn empty(target: &str) -> Count {
        Count {
            target: target.to_string(),
            votes: 0.0,
            voters: Vec::new(),
            adjustments: Vec::new(),
            half_votes: 0.0,
            reached_at: None,
        }
    }
}

/// The rule this round is counted with, in the figures the outcome uses: the outcome reads
/// nothing else, and the public rule line (`present::bbcode`) is drawn from this alone, so the
/// two cannot say different things (issue 29: round 2 printed round 1's threshold).
#[derive(Debug, Clone, Serialize)]
pub struct Threshold {
    /// The rule this round applies (serialised "share_of_cast", "share_of_living",
    /// "plurality", "top_k"): the game's `[outcome]` rule in round 1; in round 2 the top goes
    /// out with no threshold ("plurality"), or bansha42's overtime is top-K again.
    pub rule: OutcomeRule,
    pub percent: Option<f64>,
    /// The votes cast (share_of_cast) or living players (share_of_living).
    pub base: Option<f64>,
    /// The votes needed to go out (inclusive); None where the round has no threshold.
    pub needed: Option<f64>,
    /// How many go out (top_k).
    pub eliminate: Option<u32>,
    /// How a tie at the top (at the cut, for top_k) is settled this round.
    pub tie: TieRule,
    /// The vote elects the sheriff instead of eliminating (m103 day 1).
    pub sheriff: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeKind {
    Eliminated,
    Runoff,
    None,
    Sheriff,
    /// Tied at the cut with the same arrival time (bansha42: 15 minutes of overtime).
    Overtime,
    /// The vote has not closed yet.
    Pending,
}

#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Outcome {
    pub kind: OutcomeKind,
    pub players: Vec<String>,
    /// Why, in Chinese.
    pub note: String,
    /// Overtime (bansha42 L79): those out whatever it decides, and how many of the tied
    /// (`players`) go out in it ("票一出X").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decided: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub places: Option<u32>,
}

#[derive(Debug, Clone, Serialize)]
pub struct NonVoterEntry {
    pub player: String,
    pub consequence: String,
}

/// The tally of one round of one day.
#[derive(Debug, Clone, Serialize)]
pub struct Tally {
    pub game: String,
    pub ruleset: String,
    pub day: u32,
    pub round: u32,
    pub opens_at: Option<Time>,
    pub closes_at: Time,
    /// Changes are void from this moment.
    pub lock_from: Option<Time>,
    /// The moment the tally describes.
    pub at: Time,
    /// `at` is at or after the close: this is the result, not a snapshot.
    pub closed: bool,
    pub total_votes: f64,
    pub abstentions: Vec<VoterRef>,
    pub threshold: Threshold,
    pub counts: Vec<Count>,
    pub ballots: Vec<Ballot>,
    pub ignored: Vec<Ignored>,
    pub non_voters: Vec<NonVoterEntry>,
    /// Living players with no ballot standing who did vote, but whose ballot's text at the close
    /// cannot be known (posted in time, first read after an edit at or after the close): void,
    /// and not non-voters (issue 29).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub undetermined: Vec<String>,
    pub outcome: Outcome,
    /// Whether the public tally may show who voted for whom.
    pub publish_voters: bool,
    /// Living players this day.
    pub living: usize,
    /// The game was accelerated (m103): changes are void.
    pub accelerated: bool,
    /// Where the poll's counts and voter lists disagree (bansha42): votes with no known voter.
    pub poll_gaps: Vec<PollGap>,
}

#[derive(Debug, Clone, PartialEq)]
enum Choice {
    Player(String),
    Abstain,
}

impl Choice {
    fn name(&self) -> String {
        match self {
            Choice::Player(p) => p.clone(),
            Choice::Abstain => ABSTAIN.to_string(),
        }
    }
}

pub const ABSTAIN: &str = "弃权";

struct Standing {
    choices: Vec<Choice>,
    ballot: usize,
    changes: u32,
    weight: f64,
}

/// Where a time with a given precision falls against a boundary.
#[derive(PartialEq)]
enum Side {
    Before,
    After,
    Unsure,
}

fn span(p: TimePrecision) -> Duration {
    match p {
        TimePrecision::Second => Duration::zero(),
        TimePrecision::Minute => Duration::seconds(59),
        TimePrecision::Hour => Duration::seconds(3599),
        TimePrecision::Day => Duration::seconds(86399),
    }
}

/// `t` (known to `precision`) against `boundary`: Before means at or before it.
fn side(t: Time, precision: TimePrecision, boundary: Time) -> Side {
    if t > boundary {
        Side::After
    } else if t + span(precision) <= boundary {
        Side::Before
    } else {
        Side::Unsure
    }
}

fn fmt_time(t: Time) -> String {
    t.format("%m-%d %H:%M:%S").to_string()
}

/// A vote count as the judge writes it: "4", "2.5".
impl Tally {
    /// What the abstentions add to the votes cast: each by its voter's weight (the sheriff's,
    /// m103 002 L153 "计算投票数量时警长投出的票计为1.5票"), a half voter's nothing (a half vote
    /// counts for ties only).
    pub fn abstain_votes(&self) -> f64 {
        self.abstentions
            .iter()
            .filter(|v| !is_half(v.weight))
            .map(|v| v.weight)
            .sum()
    }

    /// Who voted: a counted ballot, or one whose text at the close cannot be known
    /// (`undetermined`). Everything that asks whether a player voted (the non-voters, 潜水's vote
    /// duty) asks this.
    pub fn voted(&self) -> std::collections::BTreeSet<String> {
        self.ballots
            .iter()
            .filter(|b| b.counted)
            .map(|b| b.voter.clone())
            .chain(self.undetermined.iter().cloned())
            .collect()
    }
}

/// A half voter's weight (`Engine::weight`): their vote counts for ties only.
pub fn is_half(weight: f64) -> bool {
    (weight - 0.5).abs() < 1e-9
}

/// The verdict on a ballot posted in time and edited at or after the close `e`.
fn edited_void(e: Time) -> String {
    format!(
        "无效：截止后编辑过（{}），截止前的内容无法确认",
        e.format("%m-%d %H:%M")
    )
}

pub fn fmt_votes(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        format!("{v}")
    }
}

fn join(names: &[String]) -> String {
    names.join("、")
}

/// Who cast a ballot, where and when, as the checks need it.
struct Origin {
    voter: String,
    pid: Option<u64>,
    floor: String,
    posted_at: Option<Time>,
    precision: TimePrecision,
    source: Source,
    /// The post quotes the voter's own earlier ballot post (a change must, where required).
    quoted_own: bool,
    /// The forum's edit notice: when, by whom.
    edit: Option<(Time, Option<String>)>,
    /// The judge ruled on this post: "按投 X 计：理由" / "作废：理由".
    ruling: Option<String>,
}

impl Origin {
    /// A ballot with no post behind it (the poll, the judge's proxy): its time to the second,
    /// no edit, and nothing to quote.
    fn unquoted(voter: String, floor: &str, at: Time, source: Source) -> Origin {
        Origin {
            voter,
            pid: None,
            floor: floor.into(),
            posted_at: Some(at),
            precision: TimePrecision::Second,
            source,
            quoted_own: true,
            edit: None,
            ruling: None,
        }
    }
}

/// What a message in the players' own words names (`Engine::names_in`).
struct FreeNames {
    rest: String,
    living: Vec<String>,
    dead: Vec<String>,
    abstains: bool,
    wording: Wording,
}

struct Attempt {
    wording: Wording,
    /// What the ballot seems to mean even when it is void (for its kind: a malformed restatement
    /// of the standing ballot is a repeat, not a change).
    intended: Option<Vec<Choice>>,
    written: String,
    choices: Result<Vec<Choice>, String>,
    reason: Option<String>,
    restated: bool,
    /// The round the ballot names (`{n}`: 第一次 = 1), when its format has one.
    ordinal: Option<u32>,
}

/// Make the tally of `round` (1, or 2 for the run-off) of `day` as it stands at `now`.
/// The words that make a ballot conditional (chuhan L120), as they follow the target.
const CONDITIONS: [&str; 10] = [
    "如果",
    "假如",
    "假使",
    "倘若",
    "要是",
    "若",
    "除非",
    "只要",
    "的话",
    "前提是",
];

/// The condition a ballot's target text sets on itself, if any: a condition word in it once
/// the players' names are taken out (a name containing one, such as 若水, is not a condition).
fn condition(written: &str, players: &[String]) -> Option<&'static str> {
    let mut names: Vec<&String> = players.iter().collect();
    names.sort_by_key(|n| std::cmp::Reverse(n.chars().count()));
    let mut rest = written.to_string();
    for n in names {
        rest = rest.replace(n.as_str(), " ");
    }
    CONDITIONS.into_iter().find(|w| rest.contains(w))
}

pub fn tally(
    config: &GameConfig,
    day: u32,
    round: u32,
    now: Time,
    posts: &[Post],
) -> Result<Tally, TallyError> {
    tally_with(config, day, round, now, posts, &[])
}

/// The tally with poll votes (`casts`) besides the posts (bansha42 votes only in the poll; posts
/// then carry no ballots but the judge's proxies).
pub fn tally_with(
    config: &GameConfig,
    day: u32,
    round: u32,
    now: Time,
    posts: &[Post],
    casts: &[Cast],
) -> Result<Tally, TallyError> {
    tally_ruled(config, day, round, now, posts, casts, &[])
}

/// `tally_with`, with the judge's rulings on single ballots applied (`rules::rulings`).
pub fn tally_ruled(
    config: &GameConfig,
    day: u32,
    round: u32,
    now: Time,
    posts: &[Post],
    casts: &[Cast],
    rulings: &[crate::rules::rulings::Ruling],
) -> Result<Tally, TallyError> {
    let inputs = Inputs {
        posts,
        casts,
        poll_gaps: &[],
        rulings,
    };
    tally_of(config, day, round, now, &inputs)
}

/// Everything a round's ballots come from: the thread's (or inbox's) posts, the poll's votes
/// as first seen and where its last reading could not name every voter, the judge's rulings.
#[derive(Debug, Clone, Copy, Default)]
pub struct Inputs<'a> {
    pub posts: &'a [Post],
    pub casts: &'a [Cast],
    pub poll_gaps: &'a [PollGap],
    pub rulings: &'a [crate::rules::rulings::Ruling],
}

/// The tally of `inputs`. Where the poll counts votes bansha cannot name (`poll_gaps`), the tally
/// says so, and a living player with no known vote is not judged a non-voter: any of them may be
/// one of the voters the lists did not name (bansha42 L73 "以投票机数据为准。逾期不投票的判为自杀").
pub fn tally_of(
    config: &GameConfig,
    day: u32,
    round: u32,
    now: Time,
    inputs: &Inputs,
) -> Result<Tally, TallyError> {
    let Inputs {
        posts,
        casts,
        poll_gaps,
        rulings,
    } = *inputs;
    let d = config.day(day).ok_or(TallyError::NoSuchDay(day))?;
    if !(1..=2).contains(&round) {
        return Err(TallyError::BadRound(round));
    }
    let runoff = match round {
        2 => Some(d.runoff.as_ref().ok_or(TallyError::NoRunoff(day))?),
        _ => None,
    };
    let round_two_opens = round_two_opens(config, d, posts, now);
    let (opens_at, closes_at) = match runoff {
        Some(r) => (Some(round_two_opens), r.closes_at),
        // Private-message ballots have a window even with no `opens_at` (channels::pm_posts).
        None if config.rules.vote.source == crate::config::BallotSource::Pm => (
            Some(crate::rules::window::pm_window_start(config, d)),
            d.closes_at,
        ),
        // A day with no `opens_at` opens at the close of the day before it (a thread the days
        // share counts each day's own ballots).
        None => (crate::rules::window::window_start(config, d), d.closes_at),
    };
    let rules = &config.rules;
    let changes_allowed = match (round, &rules.runoff) {
        (2, Some(r)) => r.changes_allowed,
        _ => rules.vote.changes_allowed,
    };
    let lock_from = (rules.vote.lock_minutes > 0)
        .then(|| closes_at - Duration::minutes(rules.vote.lock_minutes as i64));
    // bansha42's overtime (L79 "票一出X"): one vote each.
    let overtime = runoff.and_then(|r| r.eliminate);
    let votes_per_player = if overtime.is_some() {
        1
    } else {
        config.votes_per_player(day) as usize
    };
    let grammar = config.grammar(round);
    let roster = Roster::new(config, &d.dead);
    let mut engine = Engine {
        config,
        day: d,
        round,
        roster: &roster,
        grammar: &grammar,
        candidates: runoff.map(|r| r.candidates.clone()),
        opens_at,
        closes_at,
        round_one_close: d.closes_at,
        round_two_opens,
        round_two_posts: Default::default(),
        lock_from,
        changes_allowed,
        votes_per_player,
        ballots: Vec::new(),
        ignored: Vec::new(),
        standing: BTreeMap::new(),
        history: Vec::new(),
        ballot_pids: BTreeMap::new(),
        proxied: std::collections::BTreeSet::new(),
        thread_voters: Default::default(),
        unnamed_votes: poll_gaps.iter().any(|g| g.unnamed() > 0),
        undetermined: Default::default(),
        rulings: crate::rules::rulings::in_force(rulings, day)
            .into_iter()
            .map(|r| (r.pid, r))
            .collect(),
    };

    // Posts and judge-entered ballots, in time order (pid breaks ties: it is the forum's order).
    let mut items: Vec<(Option<Time>, u64, Item<'_>)> = Vec::new();
    for p in posts {
        items.push((p.posted_at, p.pid, Item::Post(p)));
    }
    for x in d.proxies.iter().filter(|x| x.round == round) {
        items.push((Some(x.at), u64::MAX, Item::Proxy(x)));
    }
    for c in casts {
        items.push((Some(c.at), u64::MAX - 1, Item::Cast(c)));
    }
    items.sort_by_key(|a| (a.0, a.1));
    let mut seen = std::collections::BTreeSet::new();
    for (t, _, item) in items {
        if t.is_some_and(|t| t > now) {
            continue;
        }
        match item {
            Item::Post(p) => {
                if seen.insert(p.pid) {
                    engine.post(p);
                }
            }
            Item::Proxy(x) => engine.proxy(x),
            Item::Cast(c) => engine.cast(c),
        }
    }

    let closed = now >= closes_at;
    let round_two_posts = std::mem::take(&mut engine.round_two_posts);
    let mut t = engine.finish(now, closed);
    t.poll_gaps = poll_gaps.to_vec();
    if closed && !poll_gaps.is_empty() {
        t.outcome.note += &unsure_outcome(poll_gaps);
    }
    if round == 1 && round_two_runs(d, &t) {
        round_two_aside(&mut t, &round_two_posts, round_two_opens);
    }
    if !casts.is_empty() {
        // The forum gives no time for a poll vote: say what the order rests on.
        if t.outcome.kind == OutcomeKind::Overtime {
            t.outcome.note += "（这些票出现在投票机的同一次读取中，两次读取之间的先后无从得知）";
        } else if t.outcome.note.contains("后到先出") {
            t.outcome.note += "（先后以 bansha 每次读取投票机时首次看到的时间为准）";
        }
    }
    Ok(t)
}

/// What an outcome from a poll whose lists and counts disagree rests on.
fn unsure_outcome(gaps: &[PollGap]) -> String {
    let unnamed: u32 = gaps.iter().map(PollGap::unnamed).sum();
    if unnamed > 0 {
        format!(
            "（投票机名单不全：有 {unnamed} 票未能读到投票人，以上按已读到的名单统计，名单读全前不能作准）"
        )
    } else {
        "（投票机名单不全：票数与参与人名单对不上，名单读全前不能作准）".to_string()
    }
}

/// The words a judge's post announcing round 2 uses (第二轮, 高票辩论, PK, 加时), compared on
/// width-folded, lower-cased text; a post after the close that names none (the captured "投票截
/// 止。统计中…") announces nothing.
const ROUND_TWO_WORDS: [&str; 5] = ["二轮", "2轮", "高票辩论", "pk", "加时"];

/// When round 2 of day `d` opens (whether or not it runs): the judge's `runoff.opens_at`, else
/// the judge's first post in the vote thread after round 1's close and before round 2's that
/// announces it (`ROUND_TWO_WORDS`), else round 1's close. A post after round 1's close belongs
/// to round 2 from then on, unless its ballot names its round (`round_of`).
pub fn round_two_opens(config: &GameConfig, d: &DayConfig, posts: &[Post], now: Time) -> Time {
    if let Some(o) = d.runoff.as_ref().and_then(|r| r.opens_at) {
        return o;
    }
    let before_close = |t: &Time| d.runoff.as_ref().is_none_or(|r| *t < r.closes_at);
    let roster = Roster::new(config, &d.dead);
    let announces = |p: &Post| {
        let text = bansha_parsers::ballot::normalize(&p.text).to_lowercase();
        ROUND_TWO_WORDS.iter().any(|w| text.contains(w))
    };
    posts
        .iter()
        .filter(|p| roster.is_judge(&p.author) && announces(p))
        .filter_map(|p| p.posted_at)
        .filter(|t| *t > d.closes_at && *t <= now && before_close(t))
        .min()
        .unwrap_or(d.closes_at)
}

/// Which round of its day a post belongs to: up to round 1's close, round 1; after it, the
/// round its ballot names (jiaohui's "第几次", 001 L175: 第一次 is round 1's, however late),
/// else round 2 once round 2 has opened, round 1 (a late ballot) before.
fn round_of(t: Time, ordinal: Option<u32>, round_one_close: Time, round_two_opens: Time) -> u32 {
    if t <= round_one_close {
        return 1;
    }
    match ordinal {
        Some(n) => n.clamp(1, 2),
        None if t > round_two_opens => 2,
        None => 1,
    }
}

/// Whether round 1 of `d`, as tallied in `t`, is followed by a round 2: the judge's `runoff`
/// block, or a tie the rules send to one.
fn round_two_runs(d: &DayConfig, t: &Tally) -> bool {
    !d.no_runoff
        && (d.runoff.is_some()
            || matches!(t.outcome.kind, OutcomeKind::Runoff | OutcomeKind::Overtime))
}

/// Round 1's tally with the posts that belong to round 2 (`round_of`) taken out of its late
/// ballots: each is accounted for among the ignored, as round 2's.
fn round_two_aside(t: &mut Tally, pids: &std::collections::BTreeSet<u64>, opens: Time) {
    let (theirs, ours): (Vec<Ballot>, Vec<Ballot>) = std::mem::take(&mut t.ballots)
        .into_iter()
        .partition(|b| b.pid.is_some_and(|p| pids.contains(&p)));
    t.ballots = ours;
    for b in theirs {
        t.ignored.push(Ignored {
            pid: b.pid.unwrap_or_default(),
            floor: b.floor,
            author: b.voter,
            posted_at: b.posted_at,
            reason: format!("第二轮（{} 开始）的投票，计入第二轮", fmt_time(opens)),
        });
    }
}

enum Item<'a> {
    Post(&'a Post),
    Proxy(&'a crate::config::Proxy),
    Cast(&'a Cast),
}

struct Engine<'a> {
    config: &'a GameConfig,
    day: &'a DayConfig,
    round: u32,
    roster: &'a Roster<'a>,
    grammar: &'a Grammar,
    candidates: Option<Vec<String>>,
    opens_at: Option<Time>,
    closes_at: Time,
    /// Round 1's close and round 2's opening (`round_two_opens`): which round a later post is.
    round_one_close: Time,
    round_two_opens: Time,
    /// Round 1: the posts after its close that belong to round 2 (set aside if it runs).
    round_two_posts: std::collections::BTreeSet<u64>,
    lock_from: Option<Time>,
    changes_allowed: u32,
    votes_per_player: usize,
    ballots: Vec<Ballot>,
    ignored: Vec<Ignored>,
    standing: BTreeMap<String, Standing>,
    /// (time, target, delta) whenever a standing ballot moves: for "who reached it first/last".
    history: Vec<(Option<Time>, String, f64)>,
    /// Each voter's ballot posts (valid or not): a change must quote one of them.
    ballot_pids: BTreeMap<String, Vec<u64>>,
    /// The poll counts votes whose voter bansha could not name: who did not vote is unknown.
    unnamed_votes: bool,
    /// Players who have handed their vote to the judge (bansha42: their own ballots are void).
    proxied: std::collections::BTreeSet<String>,
    /// Players who voted in the thread where the poll is the ballot (bansha42 L72: void, and
    /// not a suicide).
    thread_voters: std::collections::BTreeSet<String>,
    /// Players whose ballot was posted in time but whose text at the close cannot be known
    /// (edited at or after the close, the version before it never read): they voted.
    undetermined: std::collections::BTreeSet<String>,
    /// The judge's rulings in force for the day, by pid.
    rulings: BTreeMap<u64, crate::rules::rulings::Ruling>,
}

impl Engine<'_> {
    fn ignore(&mut self, p: &Post, reason: String) {
        self.ignored.push(Ignored {
            pid: p.pid,
            floor: p.floor.clone(),
            author: p.author.clone(),
            posted_at: p.posted_at,
            reason,
        });
    }

    fn weight(&self, voter: &str) -> f64 {
        if self.day.sheriff.as_deref() == Some(voter) {
            self.config.rules.vote.sheriff_weight
        } else if self.day.half_voters.iter().any(|h| h == voter) {
            0.5
        } else {
            1.0
        }
    }

    /// Resolve a written target into the choices of one ballot.
    fn choices(&self, written: &str) -> Result<Vec<Choice>, String> {
        let abstain = &self.config.rules.ballot.abstain_words;
        let pieces: Vec<String> = if self.votes_per_player > 1 {
            written
                .split([',', '、', '/', ';', '|', ' ', '和'])
                .map(bansha_parsers::ballot::clean_target)
                .filter(|s| !s.is_empty())
                .collect()
        } else {
            vec![written.to_string()]
        };
        let mut out: Vec<Choice> = Vec::new();
        for piece in &pieces {
            let c = match self.roster.resolve(piece, abstain) {
                Resolved::Player(p) => Choice::Player(p),
                Resolved::Abstain => Choice::Abstain,
                Resolved::Dead(p) => return Err(format!("无效：{p} 已出局")),
                Resolved::Near(c) => {
                    return Err(format!("无效：对象不明确，可能是 {}", c.join(" 或 ")))
                }
                Resolved::Several(c) => {
                    return Err(format!("无效：一票写了多个对象：{}", join(&c)))
                }
                Resolved::NotPlayer
                    if abstain.is_empty() && ["弃权", "弃票"].contains(&piece.as_str()) =>
                {
                    return Err("无效：本局不接受弃权".into())
                }
                Resolved::NotPlayer => return Err(format!("无效：{piece} 不是本局玩家")),
            };
            if !out.contains(&c) {
                out.push(c);
            }
        }

        if out.contains(&Choice::Abstain) && out.len() > 1 {
            return Err("无效：弃权与投票对象同时出现".into());
        }
        if out.len() > self.votes_per_player {
            return Err(format!(
                "无效：写了 {} 个对象，每人只有 {} 票",
                out.len(),
                self.votes_per_player
            ));
        }
        if out.is_empty() {
            return Err("无效：没有投票对象".into());
        }
        Ok(out)
    }

    /// What one post's own text says (None: no ballot at all).
    fn read(&self, p: &Post) -> Option<Attempt> {
        let reading = self.grammar.read(&p.text);
        if reading.found.is_empty() && self.config.rules.ballot.free_wording {
            return self.read_free(&p.text, &p.author);
        }
        let broken_change = reading.malformed.as_ref().is_some_and(|m| {
            m.wording == Wording::Change
                && !reading.found.iter().any(|f| f.wording == Wording::Change)
        });
        if reading.found.is_empty() || broken_change {
            let m = reading.malformed?;
            let guessed = m.guess.as_deref().map(|g| self.choices(g));
            let hint = match &guessed {
                Some(Ok(c)) => format!(
                    "，看起来是投 {}",
                    join(&c.iter().map(Choice::name).collect::<Vec<_>>())
                ),
                Some(Err(e)) => format!("（{}）", e.trim_start_matches("无效：")),
                None => String::new(),
            };
            let problem = format!("无效：格式错误，{}{}", m.problem.zh(), hint);
            return Some(Attempt {
                intended: guessed.and_then(Result::ok),
                wording: m.wording,
                written: m.written.or(m.guess).unwrap_or_default(),
                choices: Err(problem),
                reason: None,
                restated: false,
                ordinal: None,
            });
        }
        let changes: Vec<_> = reading
            .found
            .iter()
            .filter(|f| f.wording == Wording::Change)
            .collect();
        let (wording, chosen, restated) = if let Some(first_change) = changes.first() {
            let restated = reading
                .found
                .iter()
                .any(|f| f.wording == Wording::Vote && f.at < first_change.at);
            (Wording::Change, changes, restated)
        } else {
            (Wording::Vote, reading.found.iter().collect(), false)
        };
        let last = chosen.last().expect("non-empty");
        // Several ballots of the chosen kind must agree.
        let mut resolved = Vec::new();
        for f in &chosen {
            resolved.push(self.choices(&f.target));
        }
        let distinct: Vec<String> = {
            let mut v: Vec<String> = Vec::new();
            for r in resolved.iter().flatten() {
                let n = join(&r.iter().map(Choice::name).collect::<Vec<_>>());
                if !v.contains(&n) {
                    v.push(n);
                }
            }
            v
        };
        let mut problem = None;
        if chosen.len() > 1 && distinct.len() > 1 {
            problem = Some(format!(
                "无效：一帖中有多个不同的投票对象（{}）",
                distinct.join("、")
            ));
        }
        // The ID and day written in the ballot must be the voter's and today's.
        if let Some(v) = last.voter.as_deref() {
            let v = bansha_parsers::ballot::clean_target(v);
            let author = self.roster.player_named(&p.author);
            let named =
                self.roster
                    .player_named(&v)
                    .or_else(|| match self.roster.resolve(&v, &[]) {
                        Resolved::Player(n) | Resolved::Dead(n) => {
                            self.roster.players().iter().find(|p| **p == n)
                        }
                        _ => None,
                    });
            if author.is_some() && named != author {
                problem.get_or_insert(format!("无效：格式中的 ID（{v}）不是发帖人"));
            }
        }
        if self.config.rules.vote.no_conditions {
            if let Some(m) = condition(&last.target, self.roster.players()) {
                // Before the other problems: a condition naming a second player is not two
                // targets.
                problem = Some(format!("无效：投票设定了生效条件（“{m}”），规则不允许"));
            }
        }
        if let Some(day) = last.day {
            if day != self.day.day {
                problem.get_or_insert(format!(
                    "无效：写的是第 {day} 天，本帖统计第 {} 天",
                    self.day.day
                ));
            }
        }
        Some(Attempt {
            intended: resolved.last().cloned().and_then(Result::ok),
            wording,
            // As the player typed it, for quoting (full-width punctuation kept).
            written: if last.written.is_empty() {
                last.target.clone()
            } else {
                last.written.clone()
            },
            choices: match &problem {
                Some(pr) => Err(pr.clone()),
                None => resolved.pop().expect("non-empty"),
            },
            reason: last.reason.clone().filter(|r| !r.is_empty()),
            restated,
            // A change line restates the ballot it changes, which names the round.
            ordinal: reading.found.iter().rev().find_map(|f| f.ordinal),
        })
    }

    /// The living and dead players a message (or the ballot part of one) names, the longest
    /// names first (so 李逵 inside 李逵逵 is not a second one), whether it abstains, whether it
    /// reads as a change, and what is left of it.
    fn names_in(&self, text: &str, author: &str) -> FreeNames {
        let mut rest = text.to_string();
        let mut names: Vec<&String> = self.config.roster.players.iter().collect();
        names.sort_by_key(|n| std::cmp::Reverse(n.chars().count()));
        let (mut living, mut dead) = (Vec::new(), Vec::new());
        for n in names {
            if rest.contains(n.as_str()) {
                rest = rest.replace(n.as_str(), " ");
                if self.roster.is_alive(n) {
                    living.push(n.clone());
                } else {
                    dead.push(n.clone());
                }
            }
        }
        // The sender's own name beside another is a signature or the ID a ballot starts with
        // ("大灰狼 第二天 投票的对象是 李逵"), not a second target.
        if living.len() > 1 {
            living.retain(|n| n != author);
        }
        let abstains = self
            .config
            .rules
            .ballot
            .abstain_words
            .iter()
            .any(|w| rest.contains(w.as_str()));
        let wording = if rest.contains('改') {
            Wording::Change
        } else {
            Wording::Vote
        };
        FreeNames {
            rest,
            living,
            dead,
            abstains,
            wording,
        }
    }

    /// A ballot in the player's own words (`ballot.free_wording`: qipan's private messages,
    /// 003 L106/L130, where the rule post gives no wording): the living players it names (the
    /// longest names first, so 李逵 inside 李逵逵 is not a second one), an abstain word, and
    /// what is left as the reasoning.
    fn read_free(&self, text: &str, author: &str) -> Option<Attempt> {
        let whole = bansha_parsers::ballot::normalize(text);
        // A reason label splits the message: the ballot before it, the reasoning after ("我投李逵，
        // 理由是跟票", "投李逵，原因：小飞说他是狼"), however short, and names in the reasoning are
        // no targets ("投龙舌，理由是小飞说的" is a vote for the dead 龙舌, not for 小飞). Where the
        // part before the label names nobody ("理由：…，所以投李逵"), the whole message is read as one.
        let label = ["理由", "原因"]
            .iter()
            .filter_map(|l| whole.find(l).map(|i| (i, i + l.len())))
            .min();
        let split = label.and_then(|(at, after)| {
            let read = self.names_in(&whole[..at], author);
            (!read.living.is_empty() || !read.dead.is_empty() || read.abstains).then(|| {
                let reason = whole[after..]
                    .trim_start_matches(|c: char| c.is_whitespace() || "是为:：,，".contains(c))
                    .trim()
                    .to_string();
                let written = reason
                    .chars()
                    .filter(|c| !c.is_ascii_punctuation() && !"。！？、，；…".contains(*c))
                    .count();
                (read, (written > 0).then_some(reason))
            })
        });
        let (read, reason) = match split {
            Some(s) => s,
            None => {
                let read = self.names_in(&whole, author);
                // The reasoning: what is left once the names, the verbs and the labels are out.
                let mut reason = read.rest.clone();
                for w in [
                    "改票", "改投", "投票", "理由", "原因", "对象", "我", "投", "票", "给", "改",
                    "是", "为", "：", ":", "，", ",", "。", "！", "!", "、",
                ] {
                    reason = reason.replace(w, " ");
                }
                for w in &self.config.rules.ballot.abstain_words {
                    reason = reason.replace(w.as_str(), " ");
                }
                let reason = reason.split_whitespace().collect::<Vec<_>>().join(" ");
                let reason = (reason.chars().filter(|c| !c.is_ascii_punctuation()).count() >= 2)
                    .then_some(reason);
                (read, reason)
            }
        };
        let FreeNames {
            living,
            dead,
            abstains,
            wording,
            ..
        } = read;
        let attempt = |choices: Result<Vec<Choice>, String>, written: String| Attempt {
            intended: choices.clone().ok(),
            wording,
            written,
            choices,
            reason: reason.clone(),
            restated: true,
            ordinal: None,
        };
        let unreasoned = reason.is_none() && self.config.reason_required(self.round);
        Some(match (living.as_slice(), abstains) {
            // L130 "投票时需要写推理过程": where the round asks for reasoning, a name alone is void.
            ([one], _) if unreasoned && wording == Wording::Vote => attempt(
                Err(format!("无效：投 {one} 但没有写推理过程（本轮投票需要写）")),
                one.clone(),
            ),
            ([one], _) => attempt(Ok(vec![Choice::Player(one.clone())]), one.clone()),
            ([], true) => attempt(Ok(vec![Choice::Abstain]), "弃权".into()),
            ([], false) if !dead.is_empty() => attempt(
                Err(format!("无效：{} 已出局，不能投", join(&dead))),
                dead.join("、"),
            ),
            ([], false) => return None,
            (many, _) => attempt(
                Err(format!(
                    "无效：短信里提到了多名存活玩家（{}），无法确定投给谁；请法官判定",
                    join(many)
                )),
                many.join("、"),
            ),
        })
    }

    /// A post as the judge ruled it: a vote for the named player (resolved as any target is),
    /// or void.
    fn ruled(&self, r: &crate::rules::rulings::Ruling, p: &Post) -> Attempt {
        let choices = match &r.count_for {
            Some(t) => self.choices(t),
            None => Err(format!("无效（法官裁定）：{}", r.reason)),
        };
        Attempt {
            intended: choices.clone().ok(),
            wording: if self.standing.contains_key(p.author.as_str()) {
                Wording::Change
            } else {
                Wording::Vote
            },
            written: r.count_for.clone().unwrap_or_default(),
            choices,
            reason: Some(r.reason.clone()),
            restated: true,
            ordinal: None,
        }
    }

    fn post(&mut self, p: &Post) {
        if self.roster.is_judge(&p.author) {
            return;
        }
        let player = self.roster.player_named(&p.author).cloned();
        if p.blocked {
            if player.is_some() {
                self.ignore(p, "帖子被屏蔽，内容不可见，请法官核对".into());
            }
            return;
        }
        let ruled = self.rulings.get(&p.pid).cloned();
        let read = match &ruled {
            Some(r) => Some(self.ruled(r, p)),
            None => self.read(p),
        };
        let Some(attempt) = read else {
            // A player's post whose only ballot is inside a quote of someone else.
            let quoted = p
                .quotes
                .iter()
                .any(|q| !self.grammar.read(&q.text).found.is_empty());
            if quoted && player.is_some() {
                self.ignore(p, "只引用了别人的投票，自己没有投票，不计".into());
            } else if self.config.rules.ballot.free_wording
                && player.is_some()
                && p.posted_at.zip(self.opens_at).is_none_or(|(t, o)| t >= o)
            {
                // Every message a player sends the judge is accounted for.
                self.ignore(
                    p,
                    "没有提到任何存活玩家，也没有写弃票：不是投票，请法官过目".into(),
                );
            }
            return;
        };
        let Some(voter) = player else {
            self.ignore(p, format!("{} 不是本局玩家，投票不计", p.author));
            return;
        };
        if !self.roster.is_alive(&voter) {
            self.ignore(p, format!("{voter} 已出局，投票不计"));
            return;
        }
        // Which round the post is (a post with no readable time is judged by the time rules).
        if let Some(t) = p.posted_at {
            let of = round_of(
                t,
                attempt.ordinal,
                self.round_one_close,
                self.round_two_opens,
            );
            match (self.round, of) {
                (2, 1) if t > self.round_one_close && attempt.ordinal == Some(1) => {
                    self.ignore(
                        p,
                        "写明是第一次投票：第一轮（已截止）的票，不计入第二轮".into(),
                    );
                    return;
                }
                (2, 1) => return,
                (1, 2) => {
                    self.round_two_posts.insert(p.pid);
                }
                _ => {}
            }
        }
        self.ballot_pids
            .entry(voter.clone())
            .or_default()
            .push(p.pid);
        let quoted_own = p.quotes.iter().any(|q| match q.pid {
            Some(pid) => self
                .ballot_pids
                .get(&voter)
                .is_some_and(|pids| pids.contains(&pid) && pid != p.pid),
            None => q.author.as_deref() == Some(voter.as_str()),
        });
        let edit = p.edited_at.map(|e| (e, p.edited_by.clone()));
        let source = match self.config.rules.vote.source {
            crate::config::BallotSource::Pm => Source::Pm,
            _ => Source::Post,
        };
        self.decide(
            Origin {
                voter,
                pid: Some(p.pid),
                floor: match &ruled {
                    Some(_) => format!("{}，法官裁定", p.floor),
                    None => p.floor.clone(),
                },
                posted_at: p.posted_at,
                precision: p.posted_at_precision,
                source,
                quoted_own,
                edit,
                ruling: ruled.map(|r| format!("{}：{}", r.zh(), r.reason)),
            },
            attempt,
        );
    }

    /// A poll vote as first seen: the voter's options, at the reading that first showed them.
    fn cast(&mut self, c: &Cast) {
        let ignore = |me: &mut Self, reason: String| {
            me.ignored.push(Ignored {
                pid: 0,
                floor: "投票机".into(),
                author: c.voter.clone(),
                posted_at: Some(c.at),
                reason,
            })
        };
        let Some(voter) = self.roster.player_named(&c.voter).cloned() else {
            ignore(self, format!("{} 不是本局玩家，投票机中的票不计", c.voter));
            return;
        };
        if !self.roster.is_alive(&voter) {
            ignore(self, format!("{voter} 已出局，投票机中的票不计"));
            return;
        }
        let written = c.targets.join("、");
        let mut choices: Result<Vec<Choice>, String> = Ok(Vec::new());
        for t in &c.targets {
            match (
                self.choices(&bansha_parsers::ballot::clean_target(t)),
                &mut choices,
            ) {
                (Ok(more), Ok(all)) => {
                    // Two votes for the same player count once.
                    for m in more {
                        if !all.contains(&m) {
                            all.push(m);
                        }
                    }
                }
                (Err(e), Ok(_)) => choices = Err(e),
                _ => {}
            }
        }
        if let Ok(all) = &choices {
            if all.len() > self.votes_per_player {
                choices = Err(format!(
                    "无效：选了 {} 项，每人只有 {} 票",
                    all.len(),
                    self.votes_per_player
                ));
            }
        }
        let attempt = Attempt {
            intended: choices.clone().ok(),
            wording: Wording::Vote,
            written,
            choices,
            reason: None,
            restated: true,
            ordinal: None,
        };
        // The judge's proxy for this voter inside the span the vote came in: which came first
        // is unknown (004 L76 "本身已投票玩家不接受其改票的托票" turns on it).
        let between = self
            .day
            .proxies
            .iter()
            .find(|x| {
                x.round == self.round
                    && self.roster.player_named(&x.voter) == Some(&voter)
                    && x.at <= c.at
                    && c.since.is_none_or(|s| x.at > s)
            })
            .map(|x| x.at);
        self.decide(
            Origin::unquoted(voter, "投票机", c.at, Source::Poll),
            attempt,
        );
        if let Some(b) = self.ballots.last_mut() {
            b.reason += &match c.since {
                Some(s) => format!(
                    "（投票机 {} 首次看到，上次读取 {}，在此之间投出）",
                    fmt_time(c.at),
                    fmt_time(s)
                ),
                None => format!("（投票机 {} 首次读取时已有，投出时间不明）", fmt_time(c.at)),
            };
            if let Some(at) = between {
                b.reason += &format!(
                    "；法官代投（{}）在这两次读取之间，与这张票的先后无从得知：如代投时本人已在投票机投票，代投应无效、这张票有效，请法官核对",
                    fmt_time(at)
                );
            }
            if c.since.is_some_and(|s| s >= self.closes_at) {
                b.reason += &format!(
                    "；截止（{}）后的读取中才出现：以投票机为准计入，如投票机截止后仍可投票，请法官核对",
                    fmt_time(self.closes_at)
                );
            }
        }
    }

    fn proxy(&mut self, x: &crate::config::Proxy) {
        let Some(voter) = self.roster.player_named(&x.voter).cloned() else {
            return;
        };
        let vote = &self.config.rules.vote;
        let standing = self.standing.contains_key(&voter);
        // bansha42 L76 "本身已投票玩家不接受其改票的托票": a ballot of the player's own; one the
        // judge entered for them is changed through the judge ("如需改票，请联系哨子，改票时间亦
        // 截止20:40").
        let voted_themselves = self
            .standing
            .get(&voter)
            .is_some_and(|s| self.ballots[s.ballot].source != Source::Judge);
        let cutoff = if standing {
            vote.proxy_change_cutoff_minutes
                .max(vote.proxy_cutoff_minutes)
        } else {
            vote.proxy_cutoff_minutes
        };
        // From the cutoff on, as the lock is from its first second (bansha42 L76 "即20：40起不再
        // 接受托票"; m103 L369 "在投票截止前30分钟内…该票作废").
        // Only the living vote, whoever enters the ballot (bansha42 L73 "活着的全部玩家参加投票";
        // a post or a poll vote by one out is refused the same way): a proxy the judge typed
        // before recording the player out, stamped before the close, counts nothing.
        let refused = if !self.roster.is_alive(&voter) {
            Some(format!("无效：{voter} 已出局，代投不计"))
        } else if voted_themselves && vote.proxy_final {
            Some("无效：本人已经投票，不接受改票的托票".to_string())
        } else if cutoff > 0 && x.at >= self.closes_at - Duration::minutes(cutoff as i64) {
            Some(format!(
                "无效：{}须在截止前 {cutoff} 分钟（{}）之前",
                if standing { "代投改票" } else { "代投" },
                fmt_time(self.closes_at - Duration::minutes(cutoff as i64))
            ))
        } else {
            None
        };
        let choices = self.choices(&bansha_parsers::ballot::clean_target(&x.target));
        // A proxy that names no one it can count for (one out already, a name not read) is no
        // proxy: it gives up nothing of the player's own vote (L76 "一旦托票，视为放弃自行投票").
        if vote.proxy_final && !standing && refused.is_none() && choices.is_ok() {
            self.proxied.insert(voter.clone());
        }
        if let Some(refused) = refused {
            let attempt = Attempt {
                intended: None,
                wording: Wording::Vote,
                written: x.target.clone(),
                choices: Err(refused),
                reason: x.note.clone(),
                restated: true,
                ordinal: None,
            };
            self.decide(
                Origin::unquoted(voter, "法官代投", x.at, Source::Judge),
                attempt,
            );
            return;
        }
        let attempt = Attempt {
            intended: choices.clone().ok(),
            wording: Wording::Vote,
            written: x.target.clone(),
            choices,
            reason: x.note.clone(),
            restated: true,
            ordinal: None,
        };
        self.decide(
            Origin::unquoted(voter, "法官代投", x.at, Source::Judge),
            attempt,
        );
    }

    /// A ballot's verdict, in the order the checks are made (the first failure is the reason),
    /// and what a valid one changes in the standing ballots.
    fn decide(&mut self, o: Origin, attempt: Attempt) {
        let standing = self.standing.get(&o.voter);
        let choices = attempt.choices.clone();
        let same = match (&attempt.intended, standing) {
            (Some(c), Some(s)) => *c == s.choices,
            _ => false,
        };
        let kind = match (&attempt.intended, standing) {
            (_, Some(_)) if same => BallotKind::Repeat,
            (_, Some(_)) => BallotKind::Change,
            (Some(c), None) if c == &[Choice::Abstain] => BallotKind::Abstain,
            _ => BallotKind::First,
        };
        let used = standing.map_or(0, |s| s.changes);
        // A change-form ballot from a player with no valid ballot standing, where the rules
        // void it (m103: a change must quote the voter's own ballot; there is none to change).
        let nothing_to_change = (attempt.wording == Wording::Change
            && standing.is_none()
            && self.config.rules.vote.change_without_ballot
                == crate::config::ChangeWithoutBallot::Void)
            .then(|| {
                "无效：改票格式，但此前没有可改的投票（改票须引用自己的原投票帖）".to_string()
            });
        // bansha42 L72 "请使用投票机投票，如未用投票机，所投票视为废票，不算自杀": a vote for a player
        // posted in the thread. Words that only look like a ballot ("投票机和投票帖对不上啊" reads
        // as "票 机和…") name no player: void as well, but no vote, so no excuse from L73.
        // Only a ballot posted within the round's time is a vote not made in the poll: one
        // after the close is no vote in time at all (L73 "逾期不投票的判为自杀").
        let in_thread = self.config.rules.vote.source == crate::config::BallotSource::Poll
            && o.source == Source::Post;
        let late = in_thread.then(|| self.void_by_time(&o)).flatten();
        let not_the_poll = in_thread.then(|| match (&choices, &late) {
            (_, Some(late)) => format!(
                "无效：本局须用投票机投票，版面上的投票视为废票；{}",
                late.trim_start_matches("无效：")
            ),
            (Ok(c), None) if c.iter().any(|c| matches!(c, Choice::Player(_))) => {
                self.thread_voters.insert(o.voter.clone());
                "无效：本局须用投票机投票，版面上的投票视为废票（不算自杀）".to_string()
            }
            (Ok(_), None) => "无效：本局须用投票机投票，版面上的投票视为废票".to_string(),
            (Err(e), None) => format!(
                "无效：本局须用投票机投票，版面上的投票视为废票；{}",
                e.trim_start_matches("无效：")
            ),
        });
        // The judge's ruling is the verdict: a vote for the named player stands whatever the
        // format, time or change rules said; a voided one is void.
        if let Some(ruling) = &o.ruling {
            let void = match &choices {
                Ok(_) => None,
                Err(e) => Some(e.clone()),
            };
            let reason = format!("有效（法官裁定：{ruling}）");
            let ruling = Some(ruling.clone());
            return self.record(o, &attempt, kind, void, reason, ruling);
        }
        let void = not_the_poll
            .or_else(|| self.void_by_time(&o))
            .or(nothing_to_change)
            .or_else(|| self.void_by_target(&o.voter, &choices))
            .or_else(|| {
                // The poll has no change limit of its own: what it shows is the vote (bansha42
                // L77 "数据以投票机统计的为准").
                (kind == BallotKind::Change && o.source != Source::Poll)
                    .then(|| self.void_as_change(&o, &attempt, used))
                    .flatten()
            });
        // What the voter can still do is said at the tally's moment (`hints`), not here: not
        // for a ballot void for its time (nothing mends that), nor for the judge's own entry.
        let timed = void.is_some() && void == self.void_by_time(&o);
        // Void only because its text at the close cannot be known: it was cast in time, so its
        // voter voted (not a non-voter, no 潜水 for it).
        if timed && void == self.edited_after_close(&o).map(edited_void) {
            self.undetermined.insert(o.voter.clone());
        }
        let mendable = void.is_some() && !timed && o.source != Source::Judge;
        let mut note = if kind == BallotKind::Change {
            format!("改票（第 {} 次）", used + 1)
        } else {
            String::new()
        };
        if void.is_none() {
            note.push_str(&self.edit_note(&o));
        }
        note.push_str(&self.double_vote_note(&attempt));
        let reason = match &void {
            Some(r) => r.clone(),
            None => match kind {
                BallotKind::Repeat => "有效，与现有投票相同，不算改票".into(),
                BallotKind::Change => format!("有效，{}", note.trim_start_matches('；')),
                _ if attempt.wording == Wording::Change => {
                    format!("有效，此前没有有效投票，按首次投票计{note}")
                }
                _ => format!("有效{note}"),
            },
        };
        self.record(o, &attempt, kind, void, reason, None);
        if let Some(b) = self.ballots.last_mut() {
            b.mendable = mendable;
        }
    }

    /// A ballot's verdict into the list, and a valid one into its place.
    fn record(
        &mut self,
        o: Origin,
        attempt: &Attempt,
        kind: BallotKind,
        void: Option<String>,
        valid_reason: String,
        ruling: Option<String>,
    ) {
        let choices = attempt.choices.clone();
        let names: Vec<String> = match &choices {
            Ok(c) => c.iter().map(Choice::name).collect(),
            Err(_) => Vec::new(),
        };
        let replaces: Vec<String> = match (kind, self.standing.get(&o.voter)) {
            (BallotKind::Change, Some(s)) => s.choices.iter().map(Choice::name).collect(),
            _ => Vec::new(),
        };
        let valid = void.is_none();
        let reason = void.unwrap_or(valid_reason);
        let index = self.ballots.len();
        self.ballots.push(Ballot {
            pid: o.pid,
            floor: o.floor,
            voter: o.voter.clone(),
            posted_at: o.posted_at,
            source: o.source,
            kind,
            target: names
                .first()
                .cloned()
                .or_else(|| (!attempt.written.is_empty()).then(|| attempt.written.clone())),
            targets: names,
            written: attempt.written.clone(),
            replaces,
            valid,
            counted: false,
            reason,
            ruling,
            hint: None,
            mendable: false,
        });
        if let (true, Ok(new)) = (valid, choices) {
            self.stand(o.voter, kind, new, index, o.posted_at);
        }
    }

    /// What the voter of a void ballot can still do at `now`, for the judge; nothing at or
    /// after the close. A first ballot until the close — the lock forbids changes only (chuhan
    /// 000 L117 "投票时间结束前1小时内禁止改票", jiaohui 001 L180 "投票时间结束前1小时内不允许改票",
    /// m103 002 L249 "白天结束前一个小时不得改票") — or, with a ballot standing, a change before
    /// the lock while changes are left and the game is not accelerated.
    fn hint_at(&self, voter: &str, source: Source, now: Time) -> Option<String> {
        if now >= self.closes_at {
            return None;
        }
        let close = fmt_time(self.closes_at);
        let locked = self.lock_from.filter(|l| now >= *l);
        let Some(s) = self.standing.get(voter) else {
            // bansha42 L72: a ballot in the thread is void; the poll is where to vote.
            if source == Source::Post
                && self.config.rules.vote.source == crate::config::BallotSource::Poll
            {
                return Some(format!("可在截止（{close}）前用投票机投票"));
            }
            return Some(match locked {
                Some(l) => format!(
                    "锁定时段（{} 起）只禁止改票：尚无有效投票，仍可在截止（{close}）前投票",
                    l.format("%H:%M:%S")
                ),
                None => format!("可在截止（{close}）前重新投票"),
            });
        };
        let current = format!("现有投票（{}）仍有效", self.ballots[s.ballot].floor);
        Some(
            if self.changes_allowed == 0 || s.changes >= self.changes_allowed {
                format!("{current}，已不能再改票")
            } else if self.day.accelerated_by(now) {
                format!("{current}，进程已加速，不能再改票")
            } else {
                match (self.lock_from, locked) {
                    (_, Some(l)) => format!(
                        "{current}，已进入锁定时段（{} 起不得改票），不能再改票",
                        l.format("%H:%M:%S")
                    ),
                    (Some(l), None) => format!("{current}，如要改票须在 {} 前", fmt_time(l)),
                    (None, None) => format!("{current}，如要改票须在截止（{close}）前"),
                }
            },
        )
    }

    /// Each mendable void ballot's hint at `now` (see `hint_at`).
    fn hints(&mut self, now: Time) {
        let hints: Vec<Option<String>> = self
            .ballots
            .iter()
            .map(|b| {
                b.mendable
                    .then(|| self.hint_at(&b.voter, b.source, now))
                    .flatten()
            })
            .collect();
        for (b, h) in self.ballots.iter_mut().zip(hints) {
            b.hint = h;
        }
    }

    /// Void for when it was posted or edited: a ballot given to the judge by proxy, no readable
    /// time, before the round, after the close (or perhaps after it, at a coarse precision), an
    /// edit at or after the close.
    fn void_by_time(&self, o: &Origin) -> Option<String> {
        if o.source != Source::Judge && self.proxied.contains(&o.voter) {
            return Some("无效：已托票给法官，托票后本人的投票无效".into());
        }
        let Some(t) = o.posted_at else {
            return Some("无效：无法读取发帖时间".into());
        };
        // The poll decides when voting ends (bansha42 L77 "投票截止时间：以投票机能投票为准"): a
        // vote in it is never late by when bansha first saw it (a reading at the close may have
        // failed); `cast` notes one that appeared after a reading past the close.
        if o.source == Source::Poll {
            return None;
        }
        if let Some(open) = self.opens_at {
            if self.round == 1 && t < open {
                return Some(format!("无效：早于本轮开始（{}）", fmt_time(open)));
            }
        }
        match side(t, o.precision, self.closes_at) {
            Side::After => {
                return Some(format!("无效：截止（{}）后投票", fmt_time(self.closes_at)))
            }
            Side::Unsure => {
                return Some(format!(
                    "无效：发帖时间只精确到{}，无法确认在截止前",
                    if o.precision == TimePrecision::Minute {
                        "分钟"
                    } else {
                        "小时"
                    }
                ))
            }
            Side::Before => {}
        }
        self.edited_after_close(o).map(edited_void)
    }

    /// When a ballot was edited, if at or after the close: its text at the close cannot be
    /// known (void for it only when posted in time: `void_by_time`).
    fn edited_after_close(&self, o: &Origin) -> Option<Time> {
        let (e, _) = o.edit.as_ref()?;
        // The notice is to the minute: 21:00 may be 21:00:59.
        (side(*e, TimePrecision::Minute, self.closes_at) != Side::Before).then_some(*e)
    }

    /// Void for whom it names: unreadable or ambiguous, not a run-off candidate, oneself where
    /// the rules forbid it.
    fn void_by_target(&self, voter: &str, choices: &Result<Vec<Choice>, String>) -> Option<String> {
        let c = match choices {
            Err(e) => return Some(e.clone()),
            Ok(c) => c,
        };
        if let Some(cands) = &self.candidates {
            for ch in c {
                if let Choice::Player(n) = ch {
                    if !cands.contains(n) {
                        return Some(format!("无效：{n} 不是第二轮候选人（{}）", join(cands)));
                    }
                }
            }
        }
        (!self.config.rules.vote.self_vote && c.contains(&Choice::Player(voter.to_string())))
            .then(|| "无效：不能投自己".into())
    }

    /// Void as a change (`used` changes so far): not allowed this round or after acceleration,
    /// in the lock window, over the limit, not quoting one's own ballot, without a reason.
    fn void_as_change(&self, o: &Origin, attempt: &Attempt, used: u32) -> Option<String> {
        let rules = &self.config.rules.vote;
        let posted_at = o.posted_at;
        if self.changes_allowed == 0 {
            return Some(if self.round == 2 {
                "无效：第二轮不允许改票".into()
            } else {
                "无效：本局不允许改票".into()
            });
        }
        if let Some(a) = self.day.accelerated_at {
            // From the moment the judge confirmed it; a change at an unsure time is void.
            if posted_at.is_none_or(|t| side(t, o.precision, a) != Side::Before || t == a) {
                return Some(format!(
                    "无效：进程已于 {} 加速，加速后不允许改票",
                    fmt_time(a)
                ));
            }
        } else if self.day.accelerated {
            return Some("无效：进程加速后不允许改票".into());
        }
        if let (Some(lock), Some(t)) = (self.lock_from, posted_at) {
            if side(t, o.precision, lock) != Side::Before || t == lock {
                return Some(format!(
                    "无效：截止前 {} 分钟内（{} 起）不得改票",
                    rules.lock_minutes,
                    fmt_time(lock)
                ));
            }
        }
        if used >= self.changes_allowed {
            return Some(format!(
                "无效：超过改票次数（每轮最多 {} 次）",
                self.changes_allowed
            ));
        }
        if rules.change_must_quote && !(o.quoted_own || attempt.restated) {
            return Some("无效：改票未引用自己的原投票帖".into());
        }
        if rules.change_needs_reason && attempt.reason.is_none() {
            return Some("无效：改票未说明理由".into());
        }
        None
    }

    /// A valid ballot edited within the lock window's hour: the judge should check it.
    fn edit_note(&self, o: &Origin) -> String {
        match (&o.edit, self.lock_from) {
            (Some((e, by)), Some(lock)) if *e + Duration::seconds(59) >= lock => format!(
                "；{} 于 {} 编辑过（截止前一小时内），请核对",
                by.as_deref().unwrap_or("作者"),
                e.format("%H:%M")
            ),
            _ => String::new(),
        }
    }

    /// Two votes for the same player, where a player has several: they count once.
    fn double_vote_note(&self, attempt: &Attempt) -> String {
        if self.votes_per_player <= 1 {
            return String::new();
        }
        let Some(c) = &attempt.intended else {
            return String::new();
        };
        let pieces = attempt
            .written
            .split([',', '、', '/', ';', '|', ' ', '和'])
            .filter(|s| !s.trim().is_empty())
            .count();
        if pieces > c.len() {
            "；同一人的两票作一票计".into()
        } else {
            String::new()
        }
    }

    /// A valid ballot takes its place: a first ballot stands, a change replaces the standing
    /// one (its votes leave the timeline), a repeat changes nothing.
    fn stand(
        &mut self,
        voter: String,
        kind: BallotKind,
        new: Vec<Choice>,
        index: usize,
        posted_at: Option<Time>,
    ) {
        let weight = self.weight(&voter);
        match kind {
            BallotKind::Repeat => {}
            BallotKind::Change => {
                let s = self.standing.get_mut(&voter).expect("standing ballot");
                for c in &s.choices {
                    self.history.push((posted_at, c.name(), -s.weight));
                }
                for c in &new {
                    self.history.push((posted_at, c.name(), weight));
                }
                s.choices = new;
                s.ballot = index;
                s.changes += 1;
            }
            _ => {
                for c in &new {
                    self.history.push((posted_at, c.name(), weight));
                }
                self.standing.insert(
                    voter,
                    Standing {
                        choices: new,
                        ballot: index,
                        changes: 0,
                        weight,
                    },
                );
            }
        }
    }

    fn finish(mut self, now: Time, closed: bool) -> Tally {
        self.hints(now);
        let (mut counts, abstentions, mut total) = self.count_standing();
        let non_voters = self.non_voters(closed, &mut total);
        self.mark_reached(&mut counts);
        if self.round == 1 {
            self.adjust(&mut counts);
        }
        let mut counts: Vec<Count> = counts.into_values().collect();
        counts.sort_by(|a, b| {
            b.votes
                .partial_cmp(&a.votes)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(a.reached_at.cmp(&b.reached_at))
                .then(a.target.cmp(&b.target))
        });
        // Killed by a kill post this round (bansha42 L74): a half vote if they vote, but not
        // among the living.
        let living = self
            .roster
            .alive()
            .iter()
            .filter(|p| !self.day.half_voters.contains(*p))
            .count() as f64;
        let threshold = self.threshold(total, living);
        let outcome = if !closed {
            Outcome {
                decided: Vec::new(),
                places: None,
                kind: OutcomeKind::Pending,
                players: Vec::new(),
                note: format!(
                    "投票尚未截止（截止时间 {}），以上为临时统计",
                    fmt_time(self.closes_at)
                ),
            }
        } else {
            self.outcome(&counts, &threshold)
        };
        let rules = &self.config.rules;
        let publish_voters = match (self.round, &rules.runoff) {
            (2, Some(r)) => r.publish_voters,
            _ => rules.publish.voters,
        };
        Tally {
            game: self.config.name.clone(),
            ruleset: rules.name.clone(),
            day: self.day.day,
            round: self.round,
            opens_at: self.opens_at,
            closes_at: self.closes_at,
            lock_from: self.lock_from,
            at: now,
            closed,
            total_votes: total,
            abstentions,
            threshold,
            counts,
            ballots: self.ballots,
            ignored: self.ignored,
            non_voters,
            undetermined: self
                .roster
                .alive()
                .into_iter()
                .filter(|p| {
                    !self.standing.contains_key(p.as_str())
                        && self.undetermined.contains(p.as_str())
                })
                .cloned()
                .collect(),
            outcome,
            publish_voters,
            living: living as usize,
            accelerated: self.day.accelerated_by(now),
            poll_gaps: Vec::new(),
        }
    }

    /// The standing ballots counted: votes per target (a half voter's as half votes, for ties
    /// only), the abstentions, and the votes cast. Each standing ballot is marked counted.
    fn count_standing(&mut self) -> (BTreeMap<String, Count>, Vec<VoterRef>, f64) {
        let mut counts: BTreeMap<String, Count> = BTreeMap::new();
        let mut abstentions = Vec::new();
        let mut total = 0.0;
        for (voter, s) in &self.standing {
            self.ballots[s.ballot].counted = true;
            let b = &self.ballots[s.ballot];
            let vref = VoterRef {
                voter: voter.clone(),
                pid: b.pid,
                floor: b.floor.clone(),
                time: b.posted_at,
                weight: s.weight,
            };
            let is_half = self.day.half_voters.contains(voter);
            for c in &s.choices {
                match c {
                    Choice::Abstain => {
                        if !is_half {
                            total += s.weight;
                        }
                        abstentions.push(vref.clone());
                    }
                    Choice::Player(p) => {
                        let e = counts.entry(p.clone()).or_insert_with(|| Count::empty(p));
                        if is_half {
                            e.half_votes += 0.5;
                        } else {
                            e.votes += s.weight;
                            total += s.weight;
                        }
                        e.voters.push(vref.clone());
                    }
                }
            }
        }
        (counts, abstentions, total)
    }

    /// Living players with no standing ballot and what it costs them; at the close, where the
    /// rules count a non-voter as abstaining, each adds one to the votes cast.
    fn non_voters(&self, closed: bool, total: &mut f64) -> Vec<NonVoterEntry> {
        let rules = &self.config.rules;
        let mut out = Vec::new();
        for p in self.roster.alive() {
            // Killed by a kill post this round (bansha42 L74 "当轮被贴杀的人投票算半票"): the
            // duty of L73 "活着的全部玩家参加投票…逾期不投票的判为自杀" is not theirs.
            if self.day.half_voters.contains(p) {
                continue;
            }
            if !self.standing.contains_key(p.as_str()) && !self.undetermined.contains(p.as_str()) {
                // One vote each and a vote of theirs seen in the poll: not one of the unnamed.
                let seen_in_poll = self.votes_per_player == 1
                    && self
                        .ballots
                        .iter()
                        .any(|b| b.source == Source::Poll && b.voter == *p);
                let unknown = self.unnamed_votes && !seen_in_poll;
                let consequence = if unknown && !closed {
                    "投票机名单不全，无法确认是否已投票".to_string()
                } else if unknown {
                    // Not judged: nothing is added to the votes cast either.
                    out.push(NonVoterEntry {
                        player: p.clone(),
                        consequence: "投票机名单不全，无法确认是否投票（不按自杀处理）".into(),
                    });
                    continue;
                } else if !closed {
                    "尚未投票".to_string()
                } else if self.thread_voters.contains(p.as_str()) {
                    "未用投票机投票（版面上的投票作废），不算自杀".to_string()
                } else {
                    rules.vote.non_voter.zh().to_string()
                };
                if closed && rules.vote.non_voter == NonVoter::Abstain {
                    *total += 1.0;
                }
                out.push(NonVoterEntry {
                    player: p.clone(),
                    consequence,
                });
            }
        }
        out
    }

    /// When each target last reached its final count: the start of the last stretch during
    /// which it had at least that many votes. Voters in time order.
    fn mark_reached(&self, counts: &mut BTreeMap<String, Count>) {
        for (target, c) in counts.iter_mut() {
            let mut running: f64 = 0.0;
            for (t, who, delta) in &self.history {
                if who == target {
                    let before = running;
                    running += delta;
                    if before + 1e-9 < c.votes && running + 1e-9 >= c.votes {
                        c.reached_at = *t;
                    }
                }
            }
            c.voters.sort_by_key(|v| v.time);
        }
    }

    /// Curse (+1) and blessing (−1) at the close (round 1 only); a count never goes below 0.
    fn adjust(&self, counts: &mut BTreeMap<String, Count>) {
        for (name, kind, delta) in [
            (&self.day.curse, AdjustmentKind::Curse, 1.0),
            (&self.day.bless, AdjustmentKind::Bless, -1.0),
        ] {
            if let Some(n) = name {
                let e = counts.entry(n.clone()).or_insert_with(|| Count::empty(n));
                e.votes = (e.votes + delta).max(0.0);
                e.adjustments.push(Adjustment { kind, delta });
            }
        }
        // A confirmed night's (netted per player), where the judge named neither; not on one
        // out by this day (killed that night, say): the vote is among the living (000 L109).
        if self.day.curse.is_none() && self.day.bless.is_none() {
            for (n, by) in &self.day.night_adjust {
                if self.day.dead.contains(n) {
                    continue;
                }
                let (kind, delta) = match by.signum() {
                    1 => (AdjustmentKind::Curse, 1.0),
                    -1 => (AdjustmentKind::Bless, -1.0),
                    _ => continue,
                };
                let e = counts.entry(n.clone()).or_insert_with(|| Count::empty(n));
                for _ in 0..by.unsigned_abs() {
                    e.votes = (e.votes + delta).max(0.0);
                    e.adjustments.push(Adjustment { kind, delta });
                }
            }
        }
    }

    /// The rule this round is counted with, from the votes cast and the living: the one place
    /// it is decided (the outcome and the rule line both read what this returns).
    fn threshold(&self, total: f64, living: f64) -> Threshold {
        let outcome = &self.config.rules.outcome;
        let round_two = self.round == 2;
        // m103 L152 "在游戏的第一天投票结束后，最先获得投票数最多的角色当选警长".
        let sheriff =
            self.day.day == 1 && !round_two && outcome.first_day == Some(FirstDay::Sheriff);
        // Round 2 has no threshold, its top goes out: chuhan 000 L113 "第二轮的最高票得主被处决",
        // jiaohui 001 L173 "此轮得票最高者死", qipan 003 L100 "第二次高票对决" (the 30% of its
        // "也必须超过总票数30%" is the tie's in round 1). bansha42's overtime is top-K again.
        let rule = match outcome.rule {
            OutcomeRule::ShareOfCast | OutcomeRule::ShareOfLiving if round_two => {
                OutcomeRule::Plurality
            }
            r => r,
        };
        let p = outcome.percent.unwrap_or(0.0);
        let (percent, base, needed, eliminate) = match rule {
            OutcomeRule::Plurality => (None, None, None, None),
            OutcomeRule::ShareOfCast => (Some(p), Some(total), Some(total * p / 100.0), None),
            OutcomeRule::ShareOfLiving => (
                Some(p),
                Some(living),
                Some((living * p / 100.0 - 1e-9).ceil()),
                None,
            ),
            OutcomeRule::TopK => (
                None,
                None,
                None,
                Some(
                    self.day
                        .runoff
                        .as_ref()
                        .and_then(|r| r.eliminate)
                        .filter(|_| round_two)
                        .unwrap_or_else(|| self.config.eliminate(self.day.day)),
                ),
            ),
        };
        let tie = if rule == OutcomeRule::TopK {
            // bansha42 L79 "平票不加时，后到先出。如果平票者所有票都同时到，则加时15分钟": the cut
            // is settled by arrival in round 1 and in the overtime alike (config validation
            // holds top_k to this tie rule).
            TieRule::LastToReach
        } else if sheriff {
            TieRule::FirstToReach
        } else if round_two {
            // A round 2 never leads to a third: tied again, nobody goes out unless the run-off
            // rules settle it by arrival.
            match self.config.rules.runoff.as_ref().map(|r| r.tie) {
                Some(t @ (TieRule::FirstToReach | TieRule::LastToReach)) => t,
                _ => TieRule::None,
            }
        } else {
            outcome.tie
        };
        Threshold {
            rule,
            percent,
            base,
            needed,
            eliminate,
            tie,
            sheriff,
        }
    }

    /// The outcome by `threshold` (the round's rule) and nothing else of the rules.
    fn outcome(&self, counts: &[Count], threshold: &Threshold) -> Outcome {
        let none = |note: String| Outcome {
            decided: Vec::new(),
            places: None,
            kind: OutcomeKind::None,
            players: Vec::new(),
            note,
        };
        let Some(top) = counts.first().filter(|c| c.votes > 1e-9) else {
            return none("无人得票，无人出局".into());
        };
        let sheriff_day = threshold.sheriff;
        let out_kind = if sheriff_day {
            OutcomeKind::Sheriff
        } else {
            OutcomeKind::Eliminated
        };
        let out_word = if sheriff_day {
            "当选警长"
        } else {
            "出局"
        };

        if threshold.rule == OutcomeRule::TopK {
            return self.top_k(counts, threshold.eliminate.unwrap_or(1));
        }
        // Only where the round has one (not round 2: `threshold`).
        if let Some(needed) = threshold.needed {
            if top.votes + 1e-9 < needed {
                return none(format!(
                    "最高票 {} 票，未达到门槛 {} 票，无人出局",
                    fmt_votes(top.votes),
                    fmt_votes(needed)
                ));
            }
        }
        let mut tied: Vec<&Count> = counts
            .iter()
            .filter(|c| (c.votes - top.votes).abs() < 1e-9)
            .collect();
        if tied.len() > 1 {
            // Half votes (bansha42) only ever break ties.
            let best_half = tied.iter().map(|c| c.half_votes).fold(0.0, f64::max);
            if best_half > 0.0 {
                tied.retain(|c| (c.half_votes - best_half).abs() < 1e-9);
            }
        }
        if tied.len() == 1 {
            return Outcome {
                decided: Vec::new(),
                places: None,
                kind: out_kind,
                players: vec![tied[0].target.clone()],
                note: format!(
                    "{} 以 {} 票最高，{out_word}",
                    tied[0].target,
                    fmt_votes(tied[0].votes)
                ),
            };
        }
        let names: Vec<String> = tied.iter().map(|c| c.target.clone()).collect();
        let tie = threshold.tie;
        let pick = |later: bool| {
            let mut by_time: Vec<&&Count> = tied.iter().collect();
            by_time.sort_by_key(|c| c.reached_at);
            if later {
                by_time.reverse();
            }
            if by_time.len() > 1 && by_time[0].reached_at == by_time[1].reached_at {
                None
            } else {
                Some(by_time[0].target.clone())
            }
        };
        match tie {
            TieRule::Runoff => Outcome {
                decided: Vec::new(),
                places: None,
                kind: OutcomeKind::Runoff,
                players: names.clone(),
                note: format!(
                    "{} 平票（各 {} 票），进入第二轮（高票辩论）",
                    join(&names),
                    fmt_votes(top.votes)
                ),
            },
            TieRule::FirstToReach | TieRule::LastToReach => {
                let later = tie == TieRule::LastToReach;
                match pick(later) {
                    Some(p) => Outcome {
                        decided: Vec::new(),
                        places: None,
                        kind: out_kind,
                        players: vec![p.clone()],
                        note: format!(
                            "{} 平票（各 {} 票），{} {}达到该票数，{out_word}",
                            join(&names),
                            fmt_votes(top.votes),
                            p,
                            if later { "最后" } else { "最先" }
                        ),
                    },
                    None => none(format!("{} 平票且同时达到该票数，无法区分", join(&names))),
                }
            }
            _ => none(format!(
                "{} 平票（各 {} 票），无人出局",
                join(&names),
                fmt_votes(top.votes)
            )),
        }
    }

    /// bansha42: the top K go out; among the tied at the cut, the one who got there later goes
    /// first (后到先出); all there at the same moment → overtime.
    fn top_k(&self, counts: &[Count], k: u32) -> Outcome {
        let mut ranked: Vec<&Count> = counts.iter().filter(|c| c.votes > 1e-9).collect();
        ranked.sort_by(|a, b| {
            b.votes
                .partial_cmp(&a.votes)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(
                    b.half_votes
                        .partial_cmp(&a.half_votes)
                        .unwrap_or(std::cmp::Ordering::Equal),
                )
                .then(b.reached_at.cmp(&a.reached_at))
        });
        let k = k as usize;
        if ranked.len() <= k {
            let players: Vec<String> = ranked.iter().map(|c| c.target.clone()).collect();
            return Outcome {
                decided: Vec::new(),
                places: None,
                kind: OutcomeKind::Eliminated,
                note: format!("得票者 {} 出局", join(&players)),
                players,
            };
        }
        let cut_in = ranked[k - 1];
        let cut_out = ranked[k];
        let same = |a: &Count, b: &Count| {
            (a.votes - b.votes).abs() < 1e-9
                && (a.half_votes - b.half_votes).abs() < 1e-9
                && a.reached_at == b.reached_at
        };
        if same(cut_in, cut_out) {
            let tied: Vec<String> = ranked
                .iter()
                .filter(|c| same(c, cut_in))
                .map(|c| c.target.clone())
                .collect();
            let decided: Vec<String> = ranked
                .iter()
                .take_while(|c| !same(c, cut_in))
                .map(|c| c.target.clone())
                .collect();
            let places = (k - decided.len()) as u32;
            let out = if decided.is_empty() {
                String::new()
            } else {
                format!("{} 出局；", join(&decided))
            };
            return Outcome {
                kind: OutcomeKind::Overtime,
                players: tied.clone(),
                note: format!(
                    "{out}{} 平票且票同时到，加时 15 分钟，票一出{places}",
                    join(&tied)
                ),
                decided,
                places: Some(places),
            };
        }
        let players: Vec<String> = ranked[..k].iter().map(|c| c.target.clone()).collect();
        let tie_note = if (cut_in.votes - cut_out.votes).abs() < 1e-9 {
            "；平票者后到先出"
        } else {
            ""
        };
        Outcome {
            decided: Vec::new(),
            places: None,
            kind: OutcomeKind::Eliminated,
            note: format!("票数前 {k} 名 {} 出局{tie_note}", join(&players)),
            players,
        }
    }
}
