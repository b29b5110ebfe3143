//! Game configs: a TOML file naming a ruleset (one of the five presets in `config/rulesets/`, or a
//! ruleset file of the judge's own), the roster, the days, and any rule the judge overrides.
//!
//! Loading never guesses: unknown keys are errors, and every error names the file, the line
//! when it can be found, and the key path (`rules.vote.lock_minutes`).

use crate::sources::{NoFiles, Sources};
use crate::time::parse_local_time;
use bansha_parsers::ballot::{FormatSpec, Grammar};
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The grammars compiled lately, by their formats and whether a reason is required, the most
/// recently used last: a daemon's games use a few.
#[allow(clippy::type_complexity)]
static GRAMMARS: Mutex<Vec<((Vec<FormatSpec>, bool), Arc<Grammar>)>> = Mutex::new(Vec::new());
const KEPT_GRAMMARS: usize = 16;

/// A preset by its code ("chuhan"), its number in `PRESETS` (1–5), or its Chinese name as its
/// description gives it ("楚汉", "棋盘", "42人局"), as a judge might type it.
pub fn preset_named(answer: &str) -> Option<&'static str> {
    let a = answer.trim();
    if let Ok(n) = a.parse::<usize>() {
        return PRESETS.get(n.checked_sub(1)?).map(|(code, _)| *code);
    }
    PRESETS
        .iter()
        .find(|(code, text)| {
            code.eq_ignore_ascii_case(a)
                || preset_description(text)
                    .split('：')
                    .next()
                    .is_some_and(|zh| !a.is_empty() && (zh.contains(a) || a.contains(zh)))
        })
        .map(|(code, _)| *code)
}

/// A preset's one-line description (its `description` key).
pub fn preset_description(text: &str) -> &str {
    text.lines()
        .find_map(|l| l.strip_prefix("description = \""))
        .and_then(|l| l.split('"').next())
        .unwrap_or("")
}

/// The five rule systems, built in so a game config can name them without the files.
pub const PRESETS: [(&str, &str); 5] = [
    ("chuhan", include_str!("../../config/rulesets/chuhan.toml")),
    (
        "jiaohui",
        include_str!("../../config/rulesets/jiaohui.toml"),
    ),
    ("m103", include_str!("../../config/rulesets/m103.toml")),
    ("qipan", include_str!("../../config/rulesets/qipan.toml")),
    (
        "bansha42",
        include_str!("../../config/rulesets/bansha42.toml"),
    ),
];

/// A config error: which file, which line (when found), which key, and what is wrong — in
/// Chinese, for the judge.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    pub file: String,
    pub line: Option<usize>,
    pub key: String,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, " 第 {line} 行")?;
        }
        if !self.key.is_empty() {
            write!(f, "，键 {}", self.key)?;
        }
        write!(f, "：{}", self.message)
    }
}

impl std::error::Error for ConfigError {}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct GameFile {
    ruleset: String,
    /// What the record keys the game by; the name when not given (then renaming the game makes
    /// it a new one to bansha).
    #[serde(default)]
    id: Option<String>,
    name: String,
    #[serde(default = "default_offset")]
    utc_offset: String,
    /// The game board's fid: the daemon reads its thread list for players' own threads (chuhan).
    board: Option<u64>,
    roster: RosterConfig,
    #[serde(default)]
    days: Vec<DayFile>,
    #[serde(default)]
    rules: Option<toml::Table>,
    /// `[discovery]`: how bansha finds the days' threads on the board, merged over the
    /// ruleset's own `[discovery]` (`DiscoveryRules`).
    #[serde(default)]
    discovery: Option<toml::Table>,
}

fn default_offset() -> String {
    "+08:00".into()
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RosterConfig {
    /// Everyone who plays, dead or alive, by forum name.
    pub players: Vec<String>,
    /// The judges' forum names: their posts are never ballots.
    #[serde(default)]
    pub judges: Vec<String>,
    /// Other names the judge accepts for a player: `李逵 = ["黑旋风"]`.
    #[serde(default)]
    pub aliases: BTreeMap<String, Vec<String>>,
    /// Secret: each player's role, faction and code name. Judge-only; never in public output.
    #[serde(default)]
    pub roles: BTreeMap<String, RoleConfig>,
    /// Players' QQ numbers (`"10001" = "李逵"`): a private message from one of them to the
    /// judge's QQ bot is that player's message to the judge (issue 35, `domain::qq`).
    #[serde(default)]
    pub qq: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RoleConfig {
    pub role: String,
    pub faction: String,
    pub code: Option<String>,
    /// Marks the rules link players by ("情侣").
    #[serde(default)]
    pub marks: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct DayFile {
    day: u32,
    /// The day's vote thread (tid), for the daemon.
    vote_thread: Option<u64>,
    /// The day's discussion threads (tid): their posts count for 潜水.
    #[serde(default)]
    discussion_threads: Vec<u64>,
    /// Chat threads (灌水): never counted.
    #[serde(default)]
    chat_threads: Vec<u64>,
    /// Threads whose posts are required posts to check: `[{ tid = 7, kind = "report" }]`.
    #[serde(default)]
    checked_threads: Vec<CheckedThread>,
    /// The killers' code names (bansha42's 代号) a kill post must name.
    #[serde(default)]
    code_names: Vec<String>,
    /// Players whose report was challenged, the challenge upheld (judge input, bansha42 L49).
    #[serde(default)]
    challenged: Vec<String>,
    /// Players who did not make their night move (judge input: moves reach the judge privately).
    #[serde(default)]
    missed_night_moves: Vec<String>,
    closes_at: String,
    opens_at: Option<String>,
    #[serde(default)]
    dead: Vec<String>,
    sheriff: Option<String>,
    curse: Option<String>,
    bless: Option<String>,
    #[serde(default)]
    accelerated: bool,
    /// When the judge confirmed the acceleration (m103): changes from then on are void.
    accelerated_at: Option<String>,
    /// The progress thread (进程帖) where players ask to speed the game up (m103).
    progress_thread: Option<u64>,
    #[serde(default)]
    half_voters: Vec<String>,
    runoff: Option<RunoffFile>,
    /// The judge cancels this day's run-off (round 2 is not watched, whatever round 1 says).
    #[serde(default)]
    no_runoff: bool,
    #[serde(default)]
    proxies: Vec<ProxyFile>,
}

/// A thread of required posts (报道楼, 杀帖) and the `[checks.KIND]` its posts must pass.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CheckedThread {
    pub tid: u64,
    pub kind: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunoffFile {
    closes_at: String,
    /// When the judge opened round 2 (else: the judge's first post in the vote thread after
    /// round 1's close, else round 1's close).
    opens_at: Option<String>,
    candidates: Vec<String>,
    /// Round 2 votes in its own thread (bansha42's overtime poll).
    vote_thread: Option<u64>,
    /// Round 2 is an overtime of one vote each, this many going out (bansha42 L79 "票一出X").
    eliminate: Option<u32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProxyFile {
    voter: String,
    target: String,
    at: String,
    #[serde(default = "one")]
    round: u32,
    note: Option<String>,
}

fn one() -> u32 {
    1
}

/// One game day as the judge set it up.
#[derive(Debug, Clone, PartialEq)]
pub struct DayConfig {
    pub day: u32,
    /// The day's vote thread (tid) the daemon watches.
    pub vote_thread: Option<u64>,
    pub discussion_threads: Vec<u64>,
    pub chat_threads: Vec<u64>,
    pub checked_threads: Vec<CheckedThread>,
    pub code_names: Vec<String>,
    /// Players whose required post (report) was challenged and the challenge upheld: theirs
    /// must pass the check's `redo_kind` (bansha42 L49).
    pub challenged: Vec<String>,
    pub missed_night_moves: Vec<String>,
    pub opens_at: Option<DateTime<FixedOffset>>,
    pub closes_at: DateTime<FixedOffset>,
    /// Players out before this day's vote: the day's own `dead` with every earlier day's (as
    /// loaded, `carry_dead`), and, where the state file is read, the judge's recorded
    /// eliminations (`rules::state::apply_to_days`). Every consumer reads who is out here.
    pub dead: Vec<String>,
    /// The sheriff (m103): their vote weighs `rules.vote.sheriff_weight`.
    pub sheriff: Option<String>,
    /// 左士's curse target: +1 vote at the close of round 1 (chuhan).
    pub curse: Option<String>,
    /// 右士's blessing target: −1 vote at the close of round 1 (chuhan).
    pub bless: Option<String>,
    /// What a confirmed night adds to (or takes from) a player's round-1 count, netted per
    /// player (chuhan 诅咒 +1 / 庇佑 −1 of each 士: two curses are +2): from the state, never
    /// typed; used when the day names no `curse` / `bless` of the judge's own.
    pub night_adjust: std::collections::BTreeMap<String, i32>,
    /// The game has been accelerated (m103): changes are void (all day, or from
    /// `accelerated_at`).
    pub accelerated: bool,
    pub accelerated_at: Option<DateTime<FixedOffset>>,
    pub progress_thread: Option<u64>,
    /// Players killed by a kill post this round (bansha42): half votes, for ties only.
    pub half_voters: Vec<String>,
    pub runoff: Option<Runoff>,
    /// The judge cancelled the run-off (`no_runoff = true`).
    pub no_runoff: bool,
    pub proxies: Vec<Proxy>,
}

impl DayConfig {
    /// When the daemon starts watching this day: its `opens_at`, else a week before its close.
    pub fn watch_from(&self) -> DateTime<FixedOffset> {
        self.opens_at
            .unwrap_or(self.closes_at - chrono::Duration::days(7))
    }

    /// Not watched yet at `now`: a day with a vote thread that opens later.
    pub fn opens_later(&self, now: DateTime<FixedOffset>) -> bool {
        self.vote_thread.is_some() && now < self.watch_from()
    }

    /// When the day's last round closes: its run-off's close when one is set (the run-off is
    /// part of the day's 环节, 001 L208), else its own.
    pub fn last_close(&self) -> DateTime<FixedOffset> {
        match &self.runoff {
            Some(r) if !self.no_runoff => r.closes_at,
            _ => self.closes_at,
        }
    }

    /// Whether the game was accelerated by `t` (all day, or from the confirmed moment).
    pub fn accelerated_by(&self, t: DateTime<FixedOffset>) -> bool {
        self.accelerated || self.accelerated_at.is_some_and(|a| a <= t)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Runoff {
    pub closes_at: DateTime<FixedOffset>,
    /// When the judge opened round 2 (`rules::tally::round_two_opens` says when it opened
    /// without one).
    pub opens_at: Option<DateTime<FixedOffset>>,
    pub candidates: Vec<String>,
    /// Round 2's own vote thread (bansha42's overtime poll); the day's when absent.
    pub vote_thread: Option<u64>,
    /// An overtime of one vote each with this many going out (bansha42 L79 "票一出X").
    pub eliminate: Option<u32>,
}

/// A ballot the judge casts for a player (代投 / 托票), entered in the config.
#[derive(Debug, Clone, PartialEq)]
pub struct Proxy {
    pub voter: String,
    pub target: String,
    pub at: DateTime<FixedOffset>,
    pub round: u32,
    pub note: Option<String>,
}

/// The rules of a game: a preset, with the judge's overrides merged in.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub ballot: BallotRules,
    #[serde(default)]
    pub vote: VoteRules,
    pub outcome: OutcomeRules,
    pub runoff: Option<RunoffRules>,
    #[serde(default)]
    pub publish: PublishRules,
    #[serde(default)]
    pub schedule: ScheduleRules,
    #[serde(default)]
    pub lurk: LurkRules,
    /// Checks of required posts by kind ("report", "kill", …): `[checks.report]`.
    #[serde(default)]
    pub checks: BTreeMap<String, PostCheck>,
    #[serde(default)]
    pub discipline: DisciplineRules,
    /// Win conditions, as expressions over the game state (see `rules::state`).
    #[serde(default)]
    pub win: Vec<WinRule>,
    /// "One elimination away" and similar warnings, same form.
    #[serde(default)]
    pub warn: Vec<WinRule>,
    /// Roles a vote cannot eliminate (until a condition holds, or once).
    #[serde(default)]
    pub protect: Vec<Protect>,
    /// Players who go out together (m103's lovers).
    #[serde(default)]
    pub link: Vec<Link>,
    #[serde(default)]
    pub victory: VictoryRules,
    /// Powers that save a player voted out, asked before the result (jiaohui).
    #[serde(default)]
    pub pardon: Vec<Pardon>,
    /// Reminders to the judge at times around each day (m103).
    #[serde(default)]
    pub reminder: Vec<Reminder>,
    /// Posts flagged for the judge.
    #[serde(default)]
    pub flags: FlagRules,
    #[serde(default)]
    pub acceleration: AccelerationRules,
    /// The night: which resolver resolves it and the judge's readings of its open points.
    #[serde(default)]
    pub night: NightRules,
    /// `[discovery]`: finding the days' threads on the board (the game file's own top-level
    /// `[discovery]` is merged over the ruleset's).
    #[serde(default)]
    pub discovery: DiscoveryRules,
}

/// `[discovery]`: which new threads on the game's board are a day's threads.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DiscoveryRules {
    /// A regular expression over a thread's subject; `{day}` stands for the day's number
    /// (`3`, `３`, `三`, `十二`).
    pub vote_subject: String,
    pub discussion_subject: String,
    /// Watch a found day at once instead of asking the judge first.
    pub auto_days: bool,
    /// Who may open day threads; empty: the roster's judges.
    pub judges: Vec<String>,
    /// A deadline written as a time alone (`21:00截止`) closes on the day of the post: the
    /// rule post's timetable has each day close the evening it opens (qipan L94–L98).
    /// Otherwise such a deadline is asked, never guessed.
    pub time_only_same_day: bool,
}

impl Default for DiscoveryRules {
    fn default() -> Self {
        DiscoveryRules {
            vote_subject: "第{day}天[^（(]*投票[帖贴楼]|投票[帖贴楼][^（(]*[（(]?第{day}天".into(),
            discussion_subject: "第{day}天[^（(]*讨论[帖贴楼]|讨论[帖贴楼][^（(]*[（(]?第{day}天"
                .into(),
            auto_days: false,
            judges: Vec::new(),
            time_only_same_day: false,
        }
    }
}

/// `[night]`: the night resolver (`domain::night`) of a rule post.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct NightRules {
    /// The resolver ("chuhan"); none: the judge resolves the night by hand.
    pub resolver: Option<String>,
    /// The judge's readings of points the rule post leaves open (`domain::night::Choice`).
    pub readings: BTreeMap<String, String>,
    /// The night's deadline, in minutes after the day's last close.
    pub deadline_after_close_minutes: Option<u32>,
    /// qipan: the good players' moves are due earlier than the night's end (003 L114 "截止时间为
    /// 22:00", an hour after the 21:00 close; the killers act until 9:00, L116), in minutes
    /// after the close; a good player's move sent later is late.
    pub good_moves_after_close_minutes: Option<u32>,
    /// qipan: the map the judge draws (003 L12 "本地图形状不规则", L20 "共有30个有效的可移动格子"),
    /// declared in the game config's `[rules.night.map]`.
    pub map: Option<NightMap>,
    /// The players send night actions to the judge by the forum's private messages (站内短信):
    /// the daemon reads the judge's inbox during the night. Off where the rule post has them
    /// sent some other way (m103 by QQ, 002 L215; bansha42 kill posts in the thread).
    pub actions_by_pm: bool,
    /// The game starts with a night, before day 1 (m103, 002 L223 "直接入夜"; L222 the 红娘's
    /// 红线 "游戏开始时"): night 0, open until day 1's close, due when day 1 opens.
    pub first_night: bool,
}

/// `[night.map]` (qipan): the valid cells on a grid, each player's start, the items.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct NightMap {
    /// Rows from north to south, one character a cell: "." (or "o", "□") a cell, "#" (or a
    /// space, "　", "■") none. A cell is named by its column letter and row number: "A1" is the
    /// north-west corner, "B1" east of it, "A2" south of it.
    pub grid: Vec<String>,
    /// Each player's start cell (003 L14 "从4个出生地分别开始移动"): `"甲" = "A1"`.
    pub start: BTreeMap<String, String>,
    /// Items lying on cells (003 L75 "道具分布在地图的有效格上"): `B3 = ["解毒药"]`.
    pub items: BTreeMap<String, Vec<String>>,
    /// Items held from the start (003 L75 "杀手的道具是游戏一开始即具有的"):
    /// `"主杀名" = ["客栈", "客栈", "客栈", "隐身"]`.
    pub held: BTreeMap<String, Vec<String>>,
}

/// m103: players ask in the progress thread to speed the game up; more than half of the living
/// asking makes it so once the judge confirms.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct AccelerationRules {
    /// A regular expression a post's own text matches when it asks for acceleration; empty:
    /// the game has no acceleration.
    pub request: String,
}

/// When a member of `faction`, or a player marked `mark`, goes out, the other living members
/// (but `except_role`) follow.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Link {
    /// Everyone of this faction goes out together.
    pub faction: Option<String>,
    /// Everyone the judge marked with this (`bansha change mark PLAYER MARK`, or `marks` in
    /// `[roster.roles]`) goes out together: m103's lovers, whatever their camps (L147).
    pub mark: Option<String>,
    pub except_role: Option<String>,
    /// The cause recorded for those who follow ("殉情").
    pub cause: String,
}

/// Posts the judge should look at (never in public output): what the rule posts forbid but
/// only the judge can rule on.
#[derive(Debug, Clone, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct FlagRules {
    /// Red font (m103 L331 "禁止使用红色字体").
    pub red_font: bool,
    /// Enlarged font (m103 L332 "禁止使用放大字体").
    pub large_font: bool,
    /// Posts by players already out (chuhan L123, jiaohui L191, m103 L319).
    pub dead_players: bool,
    /// Posts by people who are neither players nor judges (chuhan L124 "旁观者不得在游戏室内发言").
    pub spectators: bool,
    /// A quote longer than this many characters (chuhan L133 "不得全文大段引用玩家的发言"; the
    /// forum's quote button cuts a quote to about 100).
    pub max_quote_chars: Option<usize>,
    /// Words the judge watches for in a post's own text (qipan L85: talk about items).
    pub keywords: Vec<String>,
}

/// A reminder the judge is mailed at a time the rules set around a day (m103's 30-minute night
/// deadlines, L235–239).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Reminder {
    /// "close" (the day's close) or "next_open" (the next day's `opens_at`).
    pub from: String,
    /// Minutes after it (negative: before).
    #[serde(default)]
    pub minutes: i64,
    /// Instead: the first time of day "HH:MM" after it (plus `minutes`), forum time
    /// (bansha42's "次日12点前", "次日的18:00").
    pub at: Option<String>,
    /// At a deadline: the posts of these `[checks]` kinds (in the game's checked threads)
    /// posted since the day's close, each with its verdict (bansha42: the IOUs and rewrites due
    /// by 12:00).
    #[serde(default)]
    pub verdict_kinds: Vec<String>,
    /// What the judge is told.
    pub text: String,
}

/// A power that saves a player voted out, asked before the result is announced (jiaohui's 特赦
/// and 圣光, 001 L85, L91, L114): once used, its fact is set; used in the same round as a
/// protection it takes precedence and the protection is kept (L95).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Pardon {
    /// Its name ("特赦").
    pub name: String,
    /// The role that decides whether to use it (it must be alive).
    pub by: String,
    /// The roles it can save (`"异教徒:恶魔之子"` qualifies by faction).
    pub targets: Vec<String>,
    /// The fact set to 1 once it is used ("特赦已用").
    pub used_fact: String,
}

/// A protection applied when the judge confirms a vote's outcome.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Protect {
    /// The protected role (`"楚:帅"` qualifies it by faction).
    pub role: String,
    /// The protection lifts when this expression holds.
    pub unless: Option<String>,
    /// A one-time protection: it absorbs one elimination, then this fact is set to 1.
    pub once_fact: Option<String>,
    /// What the judge is told (Chinese).
    pub message: String,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WinRule {
    /// What it means, for the judge ("异教徒方胜利（A）").
    pub name: String,
    /// e.g. `alive_role("僧侣") == 0 && alive_faction("异教徒") >= 1`.
    pub when: String,
    /// The faction it decides for, where the rules judge factions (m103): a faction that has
    /// lost cannot win, and with `victory` rules its loss stands.
    #[serde(default)]
    pub faction: Option<String>,
    /// It is that faction's loss (负), not its win.
    #[serde(default)]
    pub loses: bool,
}

/// How factions end, where the rules judge them one by one (m103 L164–172).
#[derive(Debug, Clone, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct VictoryRules {
    /// "场上仅有一个阵营尚未被判负，游戏立即结束，宣布此阵营胜利" (m103 L168).
    pub last_faction_standing: bool,
    /// "已经被判负的阵营无法再次达到胜利条件" (m103 L172): a faction's loss, once it held in
    /// the recorded game, stands (a revival does not lift it; an undone record never happened).
    pub losses_stand: bool,
}

#[derive(Debug, Clone, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct DisciplineRules {
    /// Warnings after which a player is replaced (chuhan, jiaohui: 2).
    pub warnings_to_replace: Option<u32>,
    /// Duties missed on one day (round-1 vote, round-2 vote, night move) that count as 潜水 and
    /// replacement (qipan L136: "2个环节没有完成，按潜水论处，直接换人").
    pub duties_to_replace: Option<u32>,
}

/// What a required post (a report, a kill post) must satisfy. Word counts are Word's 字数.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PostCheck {
    /// The name the judge reads ("报道", "杀帖").
    pub label: String,
    /// Words of the whole post, quotes included.
    pub min_words: Option<usize>,
    /// Words without the quotes.
    pub min_own_words: Option<usize>,
    /// Characters without spaces (chuhan counts 字 as characters).
    pub min_chars: Option<usize>,
    /// The quoted share of the words, at most.
    pub max_quote_share: Option<f64>,
    /// The share of words in repeated sentences, at most.
    pub max_repeat_share: Option<f64>,
    /// The post must name one of the code names given (bansha42: the killer's 代号).
    #[serde(default)]
    pub must_name_code: bool,
    /// An edited post fails (a fix must be a new post).
    #[serde(default)]
    pub no_edits: bool,
    /// Flag a post at least this similar (0–1: 1 − edit distance / length, on characters) to an
    /// earlier text.
    #[serde(default = "similarity")]
    pub max_similarity: f64,
    /// A failing post may be fixed (by a new post) until the close of this game day; after it a
    /// failing post means out (bansha42: reports, day 1).
    pub fix_by_day: Option<u32>,
    /// Inline quotations (“…”, 「…」, 『…』) count as quotes, summed with the others (bansha42
    /// L58 "分散引用的累计计算").
    #[serde(default)]
    pub inline_quotes: bool,
    /// Only simplified characters (bansha42 L57 "文字要求用中文简化汉字"): traditional ones fail
    /// the check, with their count.
    #[serde(default)]
    pub simplified_only: bool,
    /// The check a player's post must pass instead once the judge upheld a challenge to it
    /// (bansha42 L49: a challenged report is redone at 601 words, `report_redo`).
    #[serde(default)]
    pub redo_kind: Option<String>,
}

fn similarity() -> f64 {
    0.8
}

/// 潜水: how many posts a living player must make per game day, and in which threads.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LurkRules {
    /// Which of the day's threads count: "discussion", "vote".
    pub threads: Vec<String>,
    /// Fewer counted posts than this is lurking (0: no post quota).
    pub min_posts: u32,
    /// And (when set) fewer than this share of the day's average (chuhan, jiaohui: 0.2).
    pub min_share_of_average: Option<f64>,
    /// m103: fewer than `window_min_posts` on each of `window_days` consecutive days.
    pub window_days: Option<u32>,
    pub window_min_posts: Option<u32>,
    /// Not voting on the day is lurking too (m103, qipan).
    pub must_vote: bool,
    /// A missed night action counts too (qipan 003 L136, m103 002 L316): the day's
    /// `missed_night_moves`, the judge's and those a confirmed night recorded
    /// (`night::missed_to_days`). The night's reminder then names only those who owe one.
    pub night_move_duty: bool,
    /// No 潜水 verdicts once the game is accelerated (m103: "游戏进程加速以前").
    pub only_before_acceleration: bool,
    /// Posts that never count: "empty", "quote_only", "emoji_only", "number_only".
    pub exclude: Vec<String>,
    /// Regexes on a post's own text (width-folded, trimmed) for "路过"-style posts.
    pub exclude_patterns: Vec<String>,
    /// What lurking costs: "warning", "yellow_card", "lurk".
    pub penalty: String,
    /// Players may open their own analysis threads (chuhan): posts there count, and a second
    /// thread by the same player on the same day is flagged.
    pub player_threads: bool,
}

impl Default for LurkRules {
    fn default() -> Self {
        LurkRules {
            threads: vec!["discussion".into()],
            min_posts: 5,
            min_share_of_average: None,
            window_days: None,
            window_min_posts: None,
            must_vote: false,
            night_move_duty: false,
            only_before_acceleration: false,
            exclude: vec![
                "empty".into(),
                "quote_only".into(),
                "emoji_only".into(),
                "number_only".into(),
            ],
            exclude_patterns: vec![
                "^(路过|围观|沙发|板凳|地板|顶|签到|打卡|mark)[!！。.~～]*$".into()
            ],
            penalty: "warning".into(),
            player_threads: false,
        }
    }
}

#[derive(Debug, Clone, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct ScheduleRules {
    /// Real weekdays the game pauses (ISO: 1 = Monday … 7 = Sunday); no deadline should fall on
    /// them (chuhan: Saturday and Sunday).
    pub paused_weekdays: Vec<u32>,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BallotRules {
    pub formats: Vec<FormatRule>,
    #[serde(default = "abstain_words")]
    pub abstain_words: Vec<String>,
    #[serde(default)]
    pub reason: ReasonRule,
    /// Ballots in the players' own words where no template matches (qipan L106, L130: the rule
    /// post gives no wording for the private message to the judge): one living player named is
    /// the vote, an abstain word alone abstains, several names go to the judge as unreadable.
    #[serde(default)]
    pub free_wording: bool,
}

fn abstain_words() -> Vec<String> {
    vec!["弃权".into(), "弃票".into()]
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FormatRule {
    pub name: String,
    pub vote: String,
    pub change: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum ReasonRule {
    #[default]
    Required,
    Optional,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct VoteRules {
    /// Votes each player has (bansha42: 2 from round 2 on; see `outcome.by_day`).
    pub votes_per_player: u32,
    /// Changes allowed per round; the (N+1)th is void.
    pub changes_allowed: u32,
    /// No change in the last N minutes before the close.
    pub lock_minutes: u32,
    /// A change must quote the voter's own ballot post (or restate it in the same post).
    pub change_must_quote: bool,
    /// A change must give a reason.
    pub change_needs_reason: bool,
    /// Whether a player may vote for themself.
    pub self_vote: bool,
    /// The sheriff's vote weight (m103: 1.5).
    pub sheriff_weight: f64,
    /// What happens to a living player who has no ballot at the close.
    pub non_voter: NonVoter,
    /// Where ballots are cast: posts in the vote thread, private messages to the judge (qipan),
    /// or the forum's poll (bansha42).
    pub source: BallotSource,
    /// Proxy ballots (代投 / 托票) the judge enters must be cast at least this many minutes
    /// before the close (m103: 30; bansha42: 20, "20:40 for a 21:00 close"); 0 = until the close.
    pub proxy_cutoff_minutes: u32,
    /// A proxy that changes a standing ballot must reach the judge this many minutes before
    /// the close (m103: 60).
    pub proxy_change_cutoff_minutes: u32,
    /// Handing the vote to the judge is final (bansha42 L76): the player's own ballots after it
    /// are void, and a player who has voted cannot change by proxy.
    pub proxy_final: bool,
    /// A ballot may not set a condition on itself (chuhan L120): a target followed by 如果 /
    /// 若 / 除非 / …的话 is void.
    pub no_conditions: bool,
    /// A change-form ballot from a player with no valid ballot standing: counted as a first
    /// ballot (`first`), or void, using up nothing (`void`: m103 L249, a change must quote the
    /// voter's own ballot).
    pub change_without_ballot: ChangeWithoutBallot,
    /// Causes of elimination (as the judge records them) after which the player still votes in
    /// that round at half weight, for ties only (bansha42 L74: 贴杀).
    pub half_vote_causes: Vec<String>,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum ChangeWithoutBallot {
    #[default]
    First,
    Void,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum BallotSource {
    #[default]
    Thread,
    Pm,
    Poll,
}

impl Default for VoteRules {
    fn default() -> Self {
        VoteRules {
            votes_per_player: 1,
            changes_allowed: 1,
            lock_minutes: 60,
            change_must_quote: false,
            change_needs_reason: false,
            self_vote: true,
            sheriff_weight: 1.0,
            non_voter: NonVoter::Nothing,
            source: BallotSource::Thread,
            proxy_cutoff_minutes: 0,
            proxy_change_cutoff_minutes: 0,
            proxy_final: false,
            no_conditions: false,
            change_without_ballot: ChangeWithoutBallot::First,
            half_vote_causes: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NonVoter {
    /// Nothing beyond being listed.
    Nothing,
    /// Counts as an abstention, in the total (jiaohui).
    Abstain,
    /// Counts as one 潜水 (chuhan).
    Lurk,
    /// A warning (qipan).
    Warning,
    /// A yellow card (m103).
    YellowCard,
    /// Out of the game (bansha42: 逾期不投票的判为自杀).
    Suicide,
}

impl NonVoter {
    pub fn zh(self) -> &'static str {
        match self {
            NonVoter::Nothing => "未投票",
            NonVoter::Abstain => "未投票，按弃权计",
            NonVoter::Lurk => "未投票，记潜水一次",
            NonVoter::Warning => "未投票，警告一次",
            NonVoter::YellowCard => "未投票，记黄牌一张",
            NonVoter::Suicide => "未投票，按自杀出局",
        }
    }
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OutcomeRules {
    pub rule: OutcomeRule,
    /// The share needed, in percent, inclusive (`share_of_cast`, `share_of_living`).
    pub percent: Option<f64>,
    #[serde(default)]
    pub tie: TieRule,
    /// What day 1's vote decides instead (m103: the sheriff).
    pub first_day: Option<FirstDay>,
    /// Per-day votes and eliminations (bansha42's round table), for `top_k`.
    #[serde(default)]
    pub by_day: Vec<ByDay>,
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeRule {
    /// Most votes goes out (m103).
    Plurality,
    /// Most votes goes out if they are at least `percent` of the votes cast (chuhan, jiaohui).
    ShareOfCast,
    /// Most votes goes out if they are at least `percent` of the living players, rounded up
    /// (qipan: 30% of 9 alive → 3).
    ShareOfLiving,
    /// The top K go out (bansha42), K from `by_day`.
    TopK,
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum TieRule {
    /// A second round among the tied.
    Runoff,
    /// Nobody goes out.
    #[default]
    None,
    /// The one who reached the count first.
    FirstToReach,
    /// The one who reached the count last goes out first (bansha42's 后到先出).
    LastToReach,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FirstDay {
    Sheriff,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ByDay {
    pub days: Vec<u32>,
    pub votes_per_player: u32,
    pub eliminate: u32,
}

#[derive(Debug, Clone, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct RunoffRules {
    #[serde(default)]
    pub changes_allowed: u32,
    #[serde(default)]
    pub reason: ReasonRule,
    #[serde(default)]
    pub tie: TieRule,
    /// Whether the runoff's tally shows who voted for whom.
    #[serde(default = "yes")]
    pub publish_voters: bool,
    /// How long round 2 runs after round 1's close, in hours of game time (chuhan L105: the
    /// day is extended by 24 real hours; paused weekdays do not count). None: the judge sets
    /// the round-2 deadline (`runoff = { closes_at, candidates }` on the day).
    #[serde(default)]
    pub hours: Option<u32>,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PublishRules {
    /// Whether round 1's public tally shows who voted for whom (qipan: counts only).
    pub voters: bool,
}

impl Default for PublishRules {
    fn default() -> Self {
        PublishRules { voters: true }
    }
}

/// A loaded, validated game config.
#[derive(Debug, Clone)]
pub struct GameConfig {
    pub path: PathBuf,
    /// The stable id the record keys everything of the game by (`id`, else the name): the
    /// name can change without the game becoming a new one.
    pub id: String,
    /// Whether `id` was given (a game keyed by its name is warned about).
    pub id_given: bool,
    pub name: String,
    /// The preset name or ruleset path the game names.
    pub ruleset: String,
    pub utc_offset: FixedOffset,
    /// The game board's fid (players' own threads, chuhan).
    pub board: Option<u64>,
    /// Shared as the rules are: set at load, copied with every copy of the game.
    pub roster: std::sync::Arc<RosterConfig>,
    pub days: Vec<DayConfig>,
    /// Shared: the rules are the bulk of a game's config and do not change once loaded, while
    /// the game is copied wherever a day is played (the state applied, round 2's id).
    pub rules: std::sync::Arc<Rules>,
}

/// Field by field, the shared rules and roster by pointer first (a copy of the same game shares
/// them; comparing the rules in full is most of the comparison). Every field named, so a new
/// one cannot be left out.
impl PartialEq for GameConfig {
    fn eq(&self, other: &Self) -> bool {
        let GameConfig {
            path,
            id,
            id_given,
            name,
            ruleset,
            utc_offset,
            board,
            roster,
            days,
            rules,
        } = self;
        *path == other.path
            && *id == other.id
            && *id_given == other.id_given
            && *name == other.name
            && *ruleset == other.ruleset
            && *utc_offset == other.utc_offset
            && *board == other.board
            && *days == other.days
            && (std::sync::Arc::ptr_eq(roster, &other.roster) || **roster == *other.roster)
            && (std::sync::Arc::ptr_eq(rules, &other.rules) || **rules == *other.rules)
    }
}

impl GameConfig {
    /// Things that are allowed but probably a mistake, in Chinese: a deadline on a paused day.
    /// What a judge should check about the days' times at `now`: a deadline already past (the
    /// daemon would tally it at once, from whatever it can read), and days whose deadlines run
    /// backwards.
    /// `running`: days the record says are still running (a round 2 the rules set after the
    /// close); a day runs to its last round's close.
    pub fn time_warnings(&self, now: DateTime<FixedOffset>, running: &[u32]) -> Vec<String> {
        let mut out = Vec::new();
        for d in self
            .days
            .iter()
            .filter(|d| d.last_close() <= now && !running.contains(&d.day))
        {
            out.push(format!(
                "第 {} 天的截止时间 {} 已经过去：这一天已结束可以不管；如果还在进行，请改 closes_at，否则守护进程一启动就会按这个时间出最终计票",
                d.day,
                d.last_close().format("%Y-%m-%d %H:%M")
            ));
        }
        out
    }

    pub fn warnings(&self) -> Vec<String> {
        use chrono::Datelike;
        const NAMES: [&str; 7] = ["一", "二", "三", "四", "五", "六", "日"];
        let paused = &self.rules.schedule.paused_weekdays;
        let mut out = Vec::new();
        for d in &self.days {
            let mut times = vec![("截止时间", d.closes_at)];
            if let Some(r) = &d.runoff {
                times.push(("第二轮截止时间", r.closes_at));
            }
            for (what, t) in times {
                let wd = t.weekday().number_from_monday();
                if paused.contains(&wd) {
                    out.push(format!(
                        "第 {} 天的{what} {} 是星期{}，本局规则在星期{}暂停",
                        d.day,
                        t.format("%Y-%m-%d %H:%M"),
                        NAMES[wd as usize - 1],
                        paused
                            .iter()
                            .filter_map(|w| NAMES.get(*w as usize - 1))
                            .copied()
                            .collect::<Vec<_>>()
                            .join("、")
                    ));
                }
            }
        }
        for j in self
            .roster
            .judges
            .iter()
            .filter(|j| self.roster.players.contains(j))
        {
            out.push(format!(
                "{j} 既是法官又在玩家名单里：法官的帖子从不计为投票，{j} 的票不会被统计（roster.judges 与 roster.players 只写一处）"
            ));
        }
        if !self.id_given {
            out.push(format!(
                "没有 id：记录按游戏名“{}”区分；改了名字时 bansha 按投票帖和玩家名单认出这一局（认不准时停下来问）。\
                 请加上一行 id = \"{}\"（以后改名也不要改它）",
                self.name, self.name
            ));
        }
        out
    }

    pub fn day(&self, day: u32) -> Option<&DayConfig> {
        self.days.iter().find(|d| d.day == day)
    }

    /// The ballot grammar for a round (round 2 may make the reason optional). Compiled once
    /// per set of formats and kept: a tally runs every cycle, and compiling threw away the
    /// regexes' lazily built automata each time (see `GRAMMARS`).
    pub fn grammar(&self, round: u32) -> Arc<Grammar> {
        let key = (self.format_specs(), self.reason_required(round));
        let mut kept = GRAMMARS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = kept.iter().position(|(k, _)| *k == key) {
            let hit = kept.remove(i);
            let grammar = hit.1.clone();
            kept.push(hit);
            return grammar;
        }
        let grammar = Arc::new(
            Grammar::new(&key.0, key.1).expect("templates were checked when the config was loaded"),
        );
        if kept.len() >= KEPT_GRAMMARS {
            kept.remove(0);
        }
        kept.push((key, grammar.clone()));
        grammar
    }

    /// Whether a ballot of this round must give its reason (round 2 has its own rule).
    pub fn reason_required(&self, round: u32) -> bool {
        let reason = match (&self.rules.runoff, round) {
            (Some(r), 2) => r.reason,
            _ => self.rules.ballot.reason,
        };
        reason == ReasonRule::Required
    }

    fn format_specs(&self) -> Vec<FormatSpec> {
        format_specs(&self.rules)
    }

    /// Votes per player and eliminations for a day (`outcome.by_day`, else the defaults).
    pub fn votes_per_player(&self, day: u32) -> u32 {
        self.rules
            .outcome
            .by_day
            .iter()
            .find(|b| b.days.contains(&day))
            .map_or(self.rules.vote.votes_per_player, |b| b.votes_per_player)
    }

    pub fn eliminate(&self, day: u32) -> u32 {
        self.rules
            .outcome
            .by_day
            .iter()
            .find(|b| b.days.contains(&day))
            .map_or(1, |b| b.eliminate)
    }
}

fn format_specs(rules: &Rules) -> Vec<FormatSpec> {
    rules
        .ballot
        .formats
        .iter()
        .map(|f| FormatSpec {
            name: f.name.clone(),
            vote: f.vote.clone(),
            change: f.change.clone(),
        })
        .collect()
}

/// The built-in preset of this name.
pub fn preset(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The rules of the built-in preset of this name, as a game without overrides gets them.
pub fn preset_rules(name: &str) -> Option<Rules> {
    toml::from_str(preset(name)?).ok()
}

/// Load and validate a game config from its text; `path` names it in errors and anchors a
/// relative ruleset path.
pub(crate) fn parse_str(text: &str, path: &Path) -> Result<GameConfig, ConfigError> {
    parse_str_from(text, path, &NoFiles)
}

/// `load_str`, with a ruleset file (not a preset) read through `src`.
pub(crate) fn parse_str_from(
    text: &str,
    path: &Path,
    src: &dyn Sources,
) -> Result<GameConfig, ConfigError> {
    let file = path.display().to_string();
    let game: GameFile = toml::from_str(text).map_err(|e| toml_error(&file, text, &e))?;
    let g = GameText { file: &file, text };
    let (rules, ruleset) = read_rules(&game, &g, path, src)?;
    let utc_offset = crate::time::parse_utc_offset(&game.utc_offset)
        .map_err(|e| g.at(&["utc_offset"], e.to_string()))?;
    check_rules(&rules, &g, &ruleset)?;
    check_roster(&game.roster, &g)?;
    check_discovery(&rules.discovery, &game.roster, &g, &ruleset)?;

    let mut days = Vec::new();
    let mut day_numbers = BTreeSet::new();
    for (i, d) in game.days.into_iter().enumerate() {
        if !day_numbers.insert(d.day) {
            return Err(ConfigError {
                file: file.clone(),
                line: locate(text, &["days", "day"]),
                key: format!("days[{i}].day"),
                message: format!("第 {} 天出现了两次", d.day),
            });
        }
        days.push(read_day(i, d, &g, &rules, &game.roster, utc_offset)?);
    }
    carry_dead(&mut days, &g)?;

    let id_given = game.id.is_some();
    let id = game.id.unwrap_or_else(|| game.name.clone());
    if id.trim().is_empty() || id.contains('/') || id.contains('\u{1f}') {
        return Err(ConfigError {
            file: file.clone(),
            line: locate(text, &["id"]),
            key: "id".into(),
            message: format!("游戏 id“{id}”不能为空，也不能含有“/”"),
        });
    }
    let config = GameConfig {
        path: path.to_path_buf(),
        id,
        id_given,
        name: game.name,
        ruleset: game.ruleset,
        utc_offset,
        board: game.board,
        roster: std::sync::Arc::new(game.roster),
        days,
        rules: std::sync::Arc::new(rules),
    };
    // Win conditions are checked by the rules that evaluate them (`domain::game`, which is
    // what loads a game): this module knows the shape of a config, not the game state.
    Ok(config)
}

/// The game file being loaded, for pointing at a key in errors.
struct GameText<'a> {
    file: &'a str,
    text: &'a str,
}

impl GameText<'_> {
    /// An error at `key`; a missing key points at the table it belongs in.
    fn at(&self, key: &[&str], message: String) -> ConfigError {
        ConfigError {
            file: self.file.to_string(),
            line: (1..=key.len())
                .rev()
                .find_map(|n| locate(self.text, &key[..n])),
            key: key.join("."),
            message,
        }
    }
}

/// The ruleset a game names (a preset, or a file next to it): its name and text, for errors.
struct RulesetText {
    file: String,
    text: String,
}

/// The rules: the ruleset with the game's `[rules]` merged over it.
fn read_rules(
    game: &GameFile,
    g: &GameText,
    path: &Path,
    src: &dyn Sources,
) -> Result<(Rules, RulesetText), ConfigError> {
    let (file, text) = (g.file.to_string(), g.text);
    // The ruleset: a preset name, or a file next to the game config.
    let (ruleset_file, ruleset_text) = match preset(&game.ruleset) {
        Some(t) => (format!("预设规则 {}", game.ruleset), t.to_string()),
        None => {
            let p = path.parent().unwrap_or(Path::new(".")).join(&game.ruleset);
            let t = src.read(&p).map_err(|e| ConfigError {
                file: file.clone(),
                line: locate(text, &["ruleset"]),
                key: "ruleset".into(),
                message: format!(
                    "“{}”既不是预设（chuhan、jiaohui、m103、qipan、bansha42），也无法作为文件读取：{e}",
                    game.ruleset
                ),
            })?;
            (p.display().to_string(), t)
        }
    };
    let mut merged: toml::Table =
        toml::from_str(&ruleset_text).map_err(|e| toml_error(&ruleset_file, &ruleset_text, &e))?;
    if let Some(over) = &game.rules {
        merge(&mut merged, over);
    }
    if let Some(over) = &game.discovery {
        let base = merged
            .entry("discovery")
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        match base {
            toml::Value::Table(b) => merge(b, over),
            other => *other = toml::Value::Table(over.clone()),
        }
    }
    let rules: Rules = serde_path_to_error::deserialize(merged).map_err(|e| {
        let segs: Vec<String> = e
            .path()
            .iter()
            .filter_map(|s| match s {
                serde_path_to_error::Segment::Map { key } => Some(key.clone()),
                serde_path_to_error::Segment::Seq { .. } => None,
                _ => None,
            })
            .collect();
        let key_refs: Vec<&str> = segs.iter().map(String::as_str).collect();
        let mut in_game = vec!["rules"];
        in_game.extend(&key_refs);
        // `[discovery]` is a table of the game file itself, merged over the ruleset's.
        let own = key_refs.first() == Some(&"discovery");
        let found = if own {
            locate(text, &key_refs)
        } else {
            locate(text, &in_game)
        };
        let (where_file, line) = match found {
            Some(l) => (file.clone(), Some(l)),
            None => (ruleset_file.clone(), locate(&ruleset_text, &key_refs)),
        };
        ConfigError {
            file: where_file,
            line,
            key: if own {
                e.path().to_string()
            } else {
                format!("rules.{}", e.path())
            },
            message: zh_serde(&e.inner().to_string()),
        }
    })?;

    Ok((
        rules,
        RulesetText {
            file: ruleset_file,
            text: ruleset_text,
        },
    ))
}

/// What the rules' own keys must satisfy: templates compile, outcome parameters fit the rule,
/// weekdays, votes and the acceleration pattern make sense.
fn check_rules(rules: &Rules, g: &GameText, ruleset: &RulesetText) -> Result<(), ConfigError> {
    let (file, text) = (g.file.to_string(), g.text);
    let (ruleset_file, ruleset_text) = (&ruleset.file, &ruleset.text);
    let at = |key: &[&str], message: String| g.at(key, message);
    // Templates compile.
    if let Err(e) = Grammar::new(&format_specs(rules), true) {
        let (file, line) = match locate(text, &["rules", "ballot", "formats"]) {
            Some(l) => (file.clone(), Some(l)),
            None => (
                ruleset_file.clone(),
                locate(ruleset_text, &["ballot", "formats"]),
            ),
        };
        return Err(ConfigError {
            file,
            line,
            key: "rules.ballot.formats".into(),
            message: e.to_string(),
        });
    }

    // Outcome parameters fit the rule.
    let o = &rules.outcome;
    match (o.rule, o.percent) {
        (OutcomeRule::ShareOfCast | OutcomeRule::ShareOfLiving, None) => {
            return Err(at(
                &["rules", "outcome", "percent"],
                "此结果规则需要 percent（门槛百分比）".into(),
            ))
        }
        (_, Some(p)) if !(0.0..=100.0).contains(&p) => {
            return Err(at(
                &["rules", "outcome", "percent"],
                format!("门槛百分比 {p} 不在 0–100 之间"),
            ))
        }
        _ => {}
    }
    if o.rule == OutcomeRule::TopK && o.by_day.is_empty() {
        return Err(at(
            &["rules", "outcome", "by_day"],
            "top_k 需要 by_day 表（每天几票、出局几人）".into(),
        ));
    }
    // The top K's cut is settled by arrival, later first, with an overtime for arrivals at one
    // moment (bansha42 L79): the only tie rule top_k applies, so the only one it may state.
    if o.rule == OutcomeRule::TopK && o.tie != TieRule::LastToReach {
        return Err(at(
            &["rules", "outcome", "tie"],
            "top_k 的平票只按“后到先出”处理（同时到则加时）：tie 须为 \"last_to_reach\"".into(),
        ));
    }
    if rules
        .schedule
        .paused_weekdays
        .iter()
        .any(|w| !(1..=7).contains(w))
    {
        return Err(at(
            &["rules", "schedule", "paused_weekdays"],
            "星期用 1（星期一）到 7（星期日）表示".into(),
        ));
    }
    if rules.vote.votes_per_player == 0 {
        return Err(at(
            &["rules", "vote", "votes_per_player"],
            "每人至少一票".into(),
        ));
    }
    if rules.vote.sheriff_weight.is_nan() || rules.vote.sheriff_weight <= 0.0 {
        return Err(at(
            &["rules", "vote", "sheriff_weight"],
            "警长票权重必须大于 0".into(),
        ));
    }
    if rules
        .link
        .iter()
        .any(|l| l.faction.is_some() == l.mark.is_some())
    {
        return Err(at(
            &["rules", "link"],
            "每条 link 只写 faction（同阵营一起出局）或 mark（同一标记一起出局，如情侣）之一"
                .into(),
        ));
    }
    if let Some(i) = rules.reminder.iter().position(|r| {
        r.at.as_ref()
            .is_some_and(|a| chrono::NaiveTime::parse_from_str(a, "%H:%M").is_err())
    }) {
        return Err(at(
            &["rules", "reminder"],
            format!("第 {} 条 reminder 的 at 要写成 HH:MM（如 12:00）", i + 1),
        ));
    }
    if let Some(i) = rules
        .reminder
        .iter()
        .position(|r| !["close", "next_open"].contains(&r.from.as_str()))
    {
        return Err(at(
            &["rules", "reminder"],
            format!(
                "第 {} 条 reminder 的 from 只能是 close（当天截止）或 next_open（次日开始）",
                i + 1
            ),
        ));
    }
    if let Err(e) = regex::Regex::new(&rules.acceleration.request) {
        return Err(at(
            &["rules", "acceleration", "request"],
            format!("不是有效的正则表达式：{e}"),
        ));
    }
    Ok(())
}

/// `[discovery]`: each subject pattern has `{day}` and compiles; who opens day threads is
/// no player.
fn check_discovery(
    d: &DiscoveryRules,
    roster: &RosterConfig,
    g: &GameText,
    ruleset: &RulesetText,
) -> Result<(), ConfigError> {
    for (key, pattern) in [
        ("vote_subject", &d.vote_subject),
        ("discussion_subject", &d.discussion_subject),
    ] {
        if let Err(message) = crate::subject::SubjectPattern::new(pattern) {
            let path = ["discovery", key];
            let (file, line) = match locate(g.text, &path) {
                Some(l) => (g.file.to_string(), Some(l)),
                None => (ruleset.file.clone(), locate(&ruleset.text, &path)),
            };
            return Err(ConfigError {
                file,
                line,
                key: path.join("."),
                message,
            });
        }
    }
    if let Some(p) = d.judges.iter().find(|j| roster.players.contains(j)) {
        return Err(g.at(
            &["discovery", "judges"],
            format!("{p} 在玩家名单里：玩家开的帖子不会被当作某一天的投票帖或讨论帖"),
        ));
    }
    Ok(())
}

/// The roster: players named once each, aliases and roles only for players.
fn check_roster(roster: &RosterConfig, g: &GameText) -> Result<(), ConfigError> {
    let at = |key: &[&str], message: String| g.at(key, message);
    if roster.players.is_empty() {
        return Err(at(&["roster", "players"], "玩家名单为空".into()));
    }
    let mut seen = BTreeSet::new();
    for p in &roster.players {
        if p.trim().is_empty() {
            return Err(at(&["roster", "players"], "名单中有空名字".into()));
        }
        if !seen.insert(p.as_str()) {
            return Err(at(&["roster", "players"], format!("玩家 {p} 重复")));
        }
    }
    let is_player = |n: &str| roster.players.iter().any(|p| p == n);
    for (number, name) in &roster.qq {
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) || number.len() > 12 {
            return Err(at(
                &["roster", "qq", number],
                format!("{number} 不是 QQ 号（只能是数字）"),
            ));
        }
        if !is_player(name) {
            return Err(at(
                &["roster", "qq", number],
                format!("{name} 不在玩家名单中"),
            ));
        }
    }
    let mut alias_owner: BTreeMap<&str, &str> = BTreeMap::new();
    for (name, aliases) in &roster.aliases {
        if !is_player(name) {
            return Err(at(
                &["roster", "aliases", name],
                format!("{name} 不在玩家名单中"),
            ));
        }
        for a in aliases {
            if is_player(a) && a != name {
                return Err(at(
                    &["roster", "aliases", name],
                    format!("别名 {a} 是另一位玩家的名字"),
                ));
            }
            if let Some(other) = alias_owner.insert(a, name) {
                if other != name {
                    return Err(at(
                        &["roster", "aliases", name],
                        format!("别名 {a} 同时属于 {other} 和 {name}"),
                    ));
                }
            }
        }
    }

    for name in roster.roles.keys() {
        if !is_player(name) {
            return Err(at(
                &["roster", "roles", name],
                format!("{name} 不在玩家名单中"),
            ));
        }
    }
    Ok(())
}

/// Who is out on each day, as a fact of the game: a player out before an earlier day is out
/// on every later one, whether or not the judge lists him again (each day's `dead` becomes its
/// own with every earlier day's, in day order). The judge's recorded eliminations are added on
/// top where the state file is read (`rules::state::apply_to_days`). A sheriff, curse or
/// blessing named on a day for a player already out is refused, as on the day that lists him.
fn carry_dead(days: &mut [DayConfig], g: &GameText) -> Result<(), ConfigError> {
    let mut order: Vec<usize> = (0..days.len()).collect();
    order.sort_by_key(|&i| days[i].day);
    let mut out: Vec<(String, u32)> = Vec::new();
    for i in order {
        let d = &mut days[i];
        for (p, _) in &out {
            if !d.dead.contains(p) {
                d.dead.push(p.clone());
            }
        }
        for p in &d.dead {
            if !out.iter().any(|(x, _)| x == p) {
                out.push((p.clone(), d.day));
            }
        }
        for (k, v) in [
            ("sheriff", &d.sheriff),
            ("curse", &d.curse),
            ("bless", &d.bless),
        ] {
            let Some((n, since)) = v
                .as_ref()
                .and_then(|n| out.iter().find(|(x, since)| x == n && *since < d.day))
            else {
                continue;
            };
            return Err(ConfigError {
                file: g.file.to_string(),
                line: locate_in_block(g.text, "days", i, k),
                key: format!("days[{i}].{k}"),
                message: format!("{n} 在第 {since} 天已出局（第 {since} 天的 dead）"),
            });
        }
    }
    Ok(())
}

/// A day's `runoff = { … }`: its times after round 1's close (`opens_at` between the two
/// closes), its candidates on the roster, an overtime's count below theirs.
fn read_runoff(
    r: RunoffFile,
    closes_at: DateTime<FixedOffset>,
    utc_offset: FixedOffset,
    err: &dyn Fn(&str, String) -> ConfigError,
    check: &dyn Fn(&str, &str) -> Result<(), ConfigError>,
) -> Result<Runoff, ConfigError> {
    let time = |k: &str, s: &str| parse_local_time(s, utc_offset).map_err(|m| err(k, m));
    let closes = time("closes_at", &r.closes_at)?;
    if closes <= closes_at {
        return Err(err("runoff", "第二轮截止时间必须晚于第一轮".into()));
    }
    let opens = r
        .opens_at
        .as_deref()
        .map(|o| time("runoff", o))
        .transpose()?;
    if opens.is_some_and(|o| o < closes_at || o >= closes) {
        return Err(err(
            "runoff",
            "第二轮开始时间（opens_at）须在第一轮截止之后、第二轮截止之前".into(),
        ));
    }
    for c in &r.candidates {
        check("runoff", c)?;
    }
    if r.candidates.len() < 2 {
        return Err(err("runoff", "第二轮至少需要两名候选人".into()));
    }
    if r.eliminate
        .is_some_and(|x| x == 0 || x as usize >= r.candidates.len())
    {
        return Err(err(
            "runoff",
            "加时出局人数（eliminate）须至少 1 人、少于候选人数".into(),
        ));
    }
    Ok(Runoff {
        closes_at: closes,
        opens_at: opens,
        candidates: r.candidates,
        vote_thread: r.vote_thread,
        eliminate: r.eliminate,
    })
}

/// One `[[days]]` block (the `i`th): times in the forum's offset, names on the roster.
fn read_day(
    i: usize,
    d: DayFile,
    g: &GameText,
    rules: &Rules,
    roster: &RosterConfig,
    utc_offset: FixedOffset,
) -> Result<DayConfig, ConfigError> {
    let is_player = |n: &str| roster.players.iter().any(|p| p == n);
    let key = |k: &str| format!("days[{i}].{k}");
    let err = |k: &str, message: String| ConfigError {
        file: g.file.to_string(),
        line: locate_in_block(g.text, "days", i, k),
        key: key(k),
        message,
    };
    let time = |k: &str, s: &str| parse_local_time(s, utc_offset).map_err(|m| err(k, m));
    let closes_at = time("closes_at", &d.closes_at)?;
    let opens_at = d
        .opens_at
        .as_deref()
        .map(|s| time("opens_at", s))
        .transpose()?;
    if opens_at.is_some_and(|o| o >= closes_at) {
        return Err(err("opens_at", "开始时间不早于截止时间".into()));
    }
    let check = |k: &str, n: &str| -> Result<(), ConfigError> {
        if is_player(n) {
            Ok(())
        } else {
            Err(err(k, format!("{n} 不在玩家名单中")))
        }
    };
    for n in &d.dead {
        check("dead", n)?;
    }
    for n in &d.half_voters {
        check("half_voters", n)?;
    }
    for n in &d.challenged {
        check("challenged", n)?;
    }
    for n in &d.missed_night_moves {
        check("missed_night_moves", n)?;
    }
    for (k, v) in [
        ("sheriff", &d.sheriff),
        ("curse", &d.curse),
        ("bless", &d.bless),
    ] {
        if let Some(n) = v {
            check(k, n)?;
            if d.dead.contains(n) {
                return Err(err(k, format!("{n} 已出局")));
            }
        }
    }
    for c in &d.checked_threads {
        if !rules.checks.contains_key(&c.kind) {
            return Err(err(
                "checked_threads",
                format!(
                    "“{}”不是本局规则中的帖子种类（[checks.*]：{}）",
                    c.kind,
                    rules.checks.keys().cloned().collect::<Vec<_>>().join("、")
                ),
            ));
        }
    }
    let runoff = match d.runoff {
        None => None,
        Some(r) => Some(read_runoff(r, closes_at, utc_offset, &err, &check)?),
    };
    let mut proxies = Vec::new();
    for p in d.proxies {
        check("proxies", &p.voter)?;
        if !(1..=2).contains(&p.round) {
            return Err(err("proxies", format!("轮次 {} 只能是 1 或 2", p.round)));
        }
        proxies.push(Proxy {
            at: time("proxies", &p.at)?,
            voter: p.voter,
            target: p.target,
            round: p.round,
            note: p.note,
        });
    }
    Ok(DayConfig {
        day: d.day,
        vote_thread: d.vote_thread,
        discussion_threads: d.discussion_threads,
        chat_threads: d.chat_threads,
        checked_threads: d.checked_threads,
        code_names: d.code_names,
        missed_night_moves: d.missed_night_moves,
        challenged: d.challenged,
        opens_at,
        closes_at,
        dead: d.dead,
        sheriff: d.sheriff,
        curse: d.curse,
        bless: d.bless,
        night_adjust: Default::default(),
        accelerated: d.accelerated,
        accelerated_at: match &d.accelerated_at {
            Some(t) => Some(time("accelerated_at", t)?),
            None => None,
        },
        progress_thread: d.progress_thread,
        half_voters: d.half_voters,
        runoff,
        no_runoff: d.no_runoff,
        proxies,
    })
}

/// Deep-merge `over` into `base`: tables merge key by key, anything else replaces.
fn merge(base: &mut toml::Table, over: &toml::Table) {
    for (k, v) in over {
        match (base.get_mut(k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

fn line_of(text: &str, byte: usize) -> usize {
    text[..byte.min(text.len())].matches('\n').count() + 1
}

/// A TOML file that does not read as the config: where, and what is wrong, in Chinese.
pub fn toml_error(file: &str, text: &str, e: &toml::de::Error) -> ConfigError {
    let line = e.span().map(|s| line_of(text, s.start));
    let mut message = zh_serde(e.message());
    // What Chinese keyboards and Notepad put into a TOML file, on the line the parser stopped.
    if let Some(l) = line.and_then(|n| text.lines().nth(n - 1)) {
        message += &keyboard_hints(l);
    }
    ConfigError {
        file: file.to_string(),
        line,
        key: line.map(|n| key_at_line(text, n)).unwrap_or_default(),
        message,
    }
}

/// The table a header line names (`[forum.login]`, `[[days]]`: "forum.login", "days").
fn header_name(line: &str) -> String {
    line.trim_start_matches('[')
        .split(']')
        .next()
        .unwrap_or("")
        .trim()
        .to_string()
}

/// The key path a TOML line sets ("forum.post_tally"): the table header above it and the key
/// before its `=`; empty when the line sets none (a header, a continued array).
fn key_at_line(text: &str, line: usize) -> String {
    let mut table = String::new();
    for l in text.lines().take(line.saturating_sub(1)) {
        let t = l.trim();
        if t.starts_with('[') {
            table = header_name(t);
        }
    }
    let Some(l) = text.lines().nth(line.saturating_sub(1)) else {
        return String::new();
    };
    let t = l.trim();
    if t.starts_with('[') || t.starts_with('#') {
        return header_name(t);
    }
    match t.split_once('=') {
        Some((k, _)) if !k.trim().is_empty() && !k.contains(['"', '[', '{', ',']) => {
            let k = k.trim();
            if table.is_empty() {
                k.to_string()
            } else {
                format!("{table}.{k}")
            }
        }
        _ => table,
    }
}

/// Hints for a TOML line typed on a Chinese keyboard: curly quotes, full-width commas, equals
/// signs and brackets.
fn keyboard_hints(line: &str) -> String {
    let mut hints = Vec::new();
    if line.contains(['“', '”', '‘', '’']) {
        hints.push("这一行用了中文引号 “ ” ‘ ’，TOML 要用英文引号 \"…\"");
    }
    if line.contains('，') && (line.contains('[') || line.contains('{')) {
        hints.push("列表里的逗号要用英文逗号 ,（不是 ，）");
    }
    if line.contains('＝') {
        hints.push("等号要用英文 =（不是 ＝）");
    }
    if line.contains(['［', '］', '｛', '｝']) {
        hints.push("括号要用英文 [ ] { }");
    }
    if line.contains('：') && !line.contains('=') {
        hints.push("键和值之间用 =，不用冒号");
    }
    hints.iter().map(|h| format!("\n  提示：{h}")).collect()
}

/// The names in serde's "expected one of `a`, `b`" (or "expected `a`").
fn expected_names(msg: &str) -> Vec<String> {
    let Some(rest) = msg.split("expected").nth(1) else {
        return Vec::new();
    };
    rest.split('`')
        .skip(1)
        .step_by(2)
        .map(String::from)
        .collect()
}

/// The first `…` of serde's message (the key or value it is about).
fn quoted(msg: &str) -> String {
    msg.split('`').nth(1).unwrap_or_default().to_string()
}

/// The closest of `names` to `written` when close enough to be a typo (close_at → closes_at).
fn did_you_mean(written: &str, names: &[String]) -> Option<String> {
    names
        .iter()
        .map(|n| (strsim::jaro_winkler(written, n), n))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal))
        .map(|(_, n)| n.clone())
}

/// serde's type words in Chinese.
fn type_zh(t: &str) -> &'static str {
    let t = t.trim();
    if t.contains("u64") || t.contains("u32") || t.contains("i64") || t.contains("integer") {
        "整数"
    } else if t.contains("f64") || t.contains("float") {
        "数字"
    } else if t.contains("bool") {
        "true 或 false"
    } else if t.contains("sequence") || t.contains("array") {
        "列表 [ … ]"
    } else if t.contains("string") || t.contains("str") || t.contains("char") {
        "加引号的文字"
    } else if t.contains("map") || t.contains("struct") || t.contains("table") {
        "表 { … }"
    } else {
        "别的类型"
    }
}

/// serde's and toml's English messages in Chinese, with the names they give and a guess at
/// the key meant.
fn zh_serde(msg: &str) -> String {
    if msg.starts_with("unknown field") || msg.starts_with("unknown variant") {
        let written = quoted(msg);
        let names = expected_names(msg);
        let what = if msg.starts_with("unknown field") {
            "未知的键"
        } else {
            "取值不在允许范围内："
        };
        let mut out = format!("{what} {written}");
        if let Some(m) = did_you_mean(&written, &names) {
            out += &format!("。是不是 {m}？");
        }
        if !names.is_empty() {
            out += &format!("（可用：{}）", names.join("、"));
        }
        return out;
    }
    if msg.starts_with("missing field") {
        return format!("缺少必填的键 {}", quoted(msg));
    }
    if msg.starts_with("duplicate key") {
        return format!("键 {} 写了两次", quoted(msg));
    }
    if let Some(rest) = msg.strip_prefix("invalid type: ") {
        // "string \"x\", expected u64"
        let (found, expected) = rest.split_once(", expected").unwrap_or((rest, ""));
        return format!(
            "类型不对：这里要{}，写的是{}",
            type_zh(expected),
            match found.split_once(' ') {
                Some((kind, value)) => format!("{} {value}", type_zh(kind)),
                None => type_zh(found).to_string(),
            }
        );
    }
    if let Some(rest) = msg.strip_prefix("invalid value: ") {
        return format!("取值不对（{rest}）");
    }
    if msg.contains("invalid unquoted key") {
        return "键名含中文时要加引号，例如 \"李逵\" = [\"黑旋风\"]".into();
    }
    format!("TOML 语法错误（{}）", msg.trim())
}

/// The line of a key path in a TOML text (`["rules", "vote", "lock_minutes"]`), found by
/// following table headers and `key =` lines. Dotted keys inside a line are not followed.
/// The line of `key` in the `index`th `[[table]]` block (counting from 0), or of the block's
/// header when the key is not written there.
pub fn locate_in_block(text: &str, table: &str, index: usize, key: &str) -> Option<usize> {
    let header = format!("[[{table}]]");
    let mut seen = 0;
    let mut in_block = false;
    let mut header_line = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('[') {
            if in_block {
                break;
            }
            if line.replace(' ', "") == header {
                if seen == index {
                    in_block = true;
                    header_line = Some(i + 1);
                }
                seen += 1;
            }
            continue;
        }
        if in_block {
            if let Some((k, _)) = line.split_once('=') {
                if k.trim().trim_matches('"') == key {
                    return Some(i + 1);
                }
            }
        }
    }
    header_line.or_else(|| locate(text, &[table, key]))
}

pub fn locate(text: &str, path: &[&str]) -> Option<usize> {
    let mut table: Vec<String> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        if let Some(h) = line.strip_prefix('[') {
            let h = h.trim_start_matches('[');
            let h = h.split(']').next().unwrap_or("");
            table = h
                .split('.')
                .map(|s| s.trim().trim_matches('"').to_string())
                .collect();
            if table.len() == path.len() && table.iter().zip(path).all(|(a, b)| a == b) {
                return Some(i + 1);
            }
            continue;
        }
        let Some((k, _)) = line.split_once('=') else {
            continue;
        };
        let mut full: Vec<&str> = table.iter().map(String::as_str).collect();
        full.extend(k.trim().trim_matches('"').split('.').map(str::trim));
        if full.len() >= path.len() && full[..path.len()] == *path {
            return Some(i + 1);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_loads() {
        for (name, _) in PRESETS {
            let text = format!(
                "ruleset = \"{name}\"\nname = \"t\"\n[roster]\nplayers = [\"甲\", \"乙\"]\n"
            );
            let g = parse_str(&text, Path::new("t.toml")).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(g.rules.name, name);
            g.grammar(1);
            g.grammar(2);
        }
    }

    /// Two games are equal when every field is (the rules and roster compared in full when they
    /// are not the same shared copy), and unequal when any one differs.
    #[test]
    fn games_compare_field_by_field_with_their_rules_and_roster_in_full() {
        let text = "ruleset = \"m103\"\nname = \"t\"\n[roster]\nplayers = [\"甲\", \"乙\"]\n\
                    [[days]]\nday = 1\ncloses_at = \"2026-12-01 21:00\"\n";
        let g = parse_str(text, Path::new("t.toml")).unwrap();
        let loaded_again = parse_str(text, Path::new("t.toml")).unwrap();
        assert!(!std::sync::Arc::ptr_eq(&g.rules, &loaded_again.rules));
        assert_eq!(g, loaded_again);
        assert_eq!(g, g.clone());
        let mut rules = loaded_again.clone();
        std::sync::Arc::make_mut(&mut rules.rules).vote.lock_minutes += 1;
        assert_ne!(g, rules);
        let mut roster = g.clone();
        std::sync::Arc::make_mut(&mut roster.roster)
            .players
            .push("丙".into());
        assert_ne!(g, roster);
        let mut days = g.clone();
        days.days[0].dead.push("甲".into());
        assert_ne!(g, days);
        let mut name = g.clone();
        name.name = "u".into();
        assert_ne!(g, name);
    }

    /// Issue 29: who is out is a fact of the game. Days listed out of order still carry in day
    /// order; a sheriff named for a player out on an earlier day is refused where it is written.
    #[test]
    fn players_out_on_a_day_stay_out_on_every_later_day() {
        let text = "ruleset = \"m103\"\nname = \"t\"\n[roster]\nplayers = [\"甲\", \"乙\", \"丙\", \"丁\"]\n\
                    [[days]]\nday = 4\ncloses_at = \"2026-12-01 21:00\"\n\
                    [[days]]\nday = 2\ncloses_at = \"2026-11-29 21:00\"\ndead = [\"甲\"]\n\
                    [[days]]\nday = 3\ncloses_at = \"2026-11-30 21:00\"\ndead = [\"乙\"]\n";
        let g = parse_str(text, Path::new("t.toml")).unwrap();
        let dead = |n: u32| g.day(n).unwrap().dead.clone();
        assert_eq!(dead(2), ["甲"]);
        assert_eq!(dead(3), ["乙", "甲"]);
        assert_eq!(dead(4), ["甲", "乙"]);
        let bad = text.replace(
            "day = 4\ncloses_at = \"2026-12-01 21:00\"\n",
            "day = 4\ncloses_at = \"2026-12-01 21:00\"\nsheriff = \"乙\"\n",
        );
        let e = parse_str(&bad, Path::new("t.toml")).unwrap_err();
        assert_eq!(e.key, "days[0].sheriff");
        assert!(e.message.contains("乙 在第 3 天已出局"), "{e}");
        assert_eq!(e.line, Some(8), "{e}");
    }

    #[test]
    fn locate_follows_headers() {
        let t = "a = 1\n[rules.vote]\n# c\nlock_minutes = 5\n[[days]]\nday = 2\n";
        assert_eq!(locate(t, &["rules", "vote", "lock_minutes"]), Some(4));
        assert_eq!(locate(t, &["rules", "vote"]), Some(2));
        assert_eq!(locate(t, &["days", "day"]), Some(6));
        assert_eq!(locate(t, &["b"]), None);
    }
}
