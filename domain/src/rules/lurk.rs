//! 潜水: counted posts per living player per game day, and who is lurking under the game's
//! rules. Pure: posts, the config, the hours bansha could not read the forum, and (for games
//! where not voting counts) who voted.
//!
//! A game day runs from the previous configured day's close (exclusive) to its own close
//! (inclusive): posts made during the night after a close fall into the next day, as the seeds
//! say ("前一天黑夜的发贴数量…计算到后一天的第一个游戏环节").

use crate::config::{DayConfig, GameConfig};
use bansha_parsers::ballot::normalize;
use bansha_parsers::Post;
use chrono::{DateTime, FixedOffset};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

type Time = DateTime<FixedOffset>;

/// Per living player: counted posts and the posts not counted.
type PerPlayer = BTreeMap<String, (u32, Vec<Excluded>)>;

#[derive(Debug, Clone, Serialize)]
pub struct Excluded {
    pub pid: u64,
    pub floor: String,
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Ok,
    Lurk,
    /// The forum could not be read for part of the day: no verdict.
    Unknown,
}

#[derive(Debug, Clone, Serialize)]
pub struct PlayerCount {
    pub player: String,
    /// The forum uid, when a post of theirs showed it (for the 电梯楼 links).
    pub uid: Option<u64>,
    pub counted: u32,
    pub excluded: Vec<Excluded>,
    pub voted: Option<bool>,
    pub verdict: Verdict,
    /// Why, in Chinese.
    pub reasons: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Ignored {
    pub pid: u64,
    pub tid: u64,
    pub author: String,
    pub reason: String,
}

/// A player who opened more threads on one day than the rules allow (chuhan: one).
#[derive(Debug, Clone, Serialize)]
pub struct ExtraThreads {
    pub player: String,
    pub tids: Vec<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct LurkReport {
    pub day: u32,
    pub from: Option<Time>,
    pub to: Time,
    pub threads: Vec<u64>,
    /// Threads players opened this day (counted when the rules allow player threads).
    pub player_threads: Vec<u64>,
    pub extra_threads: Vec<ExtraThreads>,
    pub average: f64,
    pub players: Vec<PlayerCount>,
    pub ignored: Vec<Ignored>,
    /// The penalty for lurking, in Chinese.
    pub penalty: String,
    pub rule: String,
}

/// The window of a day: after the previous configured day's last close, up to its own last
/// close — a day's run-off is part of the day (001 L208 counts "一个游戏环节的发贴数量"; the
/// run-off's debate is that 环节's, `DayConfig::last_close`).
pub fn window(config: &GameConfig, day: &DayConfig) -> (Option<Time>, Time) {
    let prev = config
        .days
        .iter()
        .filter(|d| d.closes_at < day.closes_at)
        .map(|d| d.last_close())
        .max();
    (prev.or(day.opens_at), day.last_close())
}

/// A day's window with a start, for an outage that covers it: a first day with no opening
/// starts a day before its close.
pub fn span(config: &GameConfig, day: &DayConfig) -> (Time, Time) {
    let (from, to) = window(config, day);
    (from.unwrap_or(to - chrono::Duration::days(1)), to)
}

/// An `exclude_patterns` entry compiled, once per pattern for the process (a report a cycle
/// compiled them all afresh: a few per cent of a simulated game's CPU). A regex clone shares
/// the compiled program. Bounded: configs hold a handful.
fn compiled(pattern: &str) -> Option<regex::Regex> {
    static MEMO: std::sync::Mutex<Vec<(String, regex::Regex)>> = std::sync::Mutex::new(Vec::new());
    let Ok(mut memo) = MEMO.lock() else {
        return regex::Regex::new(pattern).ok();
    };
    if let Some((_, re)) = memo.iter().find(|(p, _)| p == pattern) {
        return Some(re.clone());
    }
    let re = regex::Regex::new(pattern).ok()?;
    if memo.len() >= 64 {
        memo.remove(0);
    }
    memo.push((pattern.to_string(), re.clone()));
    Some(re)
}

/// Why a post does not count, under the game's exclusions.
/// `patterns`: the rules' `exclude_patterns`, compiled once per report (the config check has
/// already refused any that do not compile).
pub fn exclusion(config: &GameConfig, patterns: &[regex::Regex], p: &Post) -> Option<String> {
    let rules = &config.rules.lurk;
    let on = |k: &str| rules.exclude.iter().any(|e| e == k);
    let text = normalize(&p.text);
    let visible = text.trim();
    let emoji_only =
        !visible.is_empty() && visible.chars().all(|c| c.is_whitespace() || is_emoji(c));
    if visible.is_empty() && p.quotes.is_empty() && p.images == 0 && p.smilies == 0 && on("empty") {
        return Some("空帖".into());
    }
    if visible.is_empty() && !p.quotes.is_empty() && on("quote_only") {
        return Some("只有引用".into());
    }
    if ((visible.is_empty() && p.smilies > 0) || emoji_only) && on("emoji_only") {
        return Some("只有表情".into());
    }
    if on("number_only")
        && visible.chars().any(|c| c.is_ascii_digit())
        && visible.chars().all(|c| {
            c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | ',' | '!' | '。' | '！' | ' ')
        })
    {
        return Some("只有数字".into());
    }
    for pat in patterns {
        if pat.is_match(visible) {
            return Some(format!(
                "路过类帖子（{}）",
                visible.chars().take(10).collect::<String>()
            ));
        }
    }
    None
}

fn is_emoji(c: char) -> bool {
    matches!(c as u32,
        0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0x2B00..=0x2BFF | 0xFE0F | 0x200D | 0x231A..=0x23FF)
}

/// The threads whose posts count for a day (discussion and/or vote, per the rules).
pub fn threads_of(config: &GameConfig, d: &DayConfig) -> Vec<u64> {
    let mut t = Vec::new();
    let rules = &config.rules.lurk;
    if rules.threads.iter().any(|k| k == "discussion") {
        t.extend(&d.discussion_threads);
    }
    if rules.threads.iter().any(|k| k == "vote") {
        t.extend(d.vote_thread);
    }
    t
}

/// Counted posts per living player on a day, with what was excluded and what was ignored.
fn counts(
    config: &GameConfig,
    d: &DayConfig,
    posts: &[Post],
    own_threads: &[u64],
) -> (PerPlayer, Vec<Ignored>) {
    let (from, to) = window(config, d);
    let mut counted_threads = threads_of(config, d);
    counted_threads.extend(own_threads);
    let alive: Vec<&String> = config
        .roster
        .players
        .iter()
        .filter(|p| !d.dead.contains(p))
        .collect();
    let mut per: PerPlayer = alive
        .iter()
        .map(|p| ((*p).clone(), (0, Vec::new())))
        .collect();
    let mut ignored = Vec::new();
    let mut seen = BTreeSet::new();
    let patterns: Vec<regex::Regex> = config
        .rules
        .lurk
        .exclude_patterns
        .iter()
        .filter_map(|p| compiled(p))
        .collect();
    let judges: Vec<String> = config
        .roster
        .judges
        .iter()
        .map(|j| normalize(j).to_lowercase())
        .collect();
    for p in posts {
        if !seen.insert(p.pid) {
            continue;
        }
        let Some(t) = p.posted_at else {
            ignored.push(Ignored {
                pid: p.pid,
                tid: p.tid,
                author: p.author.clone(),
                reason: "无法读取发帖时间".into(),
            });
            continue;
        };
        if from.is_some_and(|f| t <= f) {
            continue; // an earlier day
        }
        if judges.contains(&normalize(&p.author).to_lowercase()) {
            continue;
        }
        let ignore = |reason: String| Ignored {
            pid: p.pid,
            tid: p.tid,
            author: p.author.clone(),
            reason,
        };
        if t > to {
            if config.roster.players.contains(&p.author) {
                ignored.push(ignore("截止后（夜间）的发言，计入下一天".into()));
            }
            continue;
        }
        if d.chat_threads.contains(&p.tid) {
            ignored.push(ignore("灌水帖的发言不计".into()));
            continue;
        }
        if !counted_threads.contains(&p.tid) {
            ignored.push(ignore(format!("主题 {} 不是本局规则计数的帖子", p.tid)));
            continue;
        }
        if !config.roster.players.contains(&p.author) {
            ignored.push(ignore("不是本局玩家".into()));
            continue;
        }
        let Some(entry) = per.get_mut(&p.author) else {
            ignored.push(ignore(format!("{} 已出局", p.author)));
            continue;
        };
        if p.blocked {
            entry.1.push(Excluded {
                pid: p.pid,
                floor: p.floor.clone(),
                reason: "被屏蔽，内容不可见".into(),
            });
            continue;
        }
        match exclusion(config, &patterns, p) {
            Some(reason) => entry.1.push(Excluded {
                pid: p.pid,
                floor: p.floor.clone(),
                reason,
            }),
            None => entry.0 += 1,
        }
    }
    (per, ignored)
}

/// The 潜水 report of `day`. `posts`: those of the threads of every day the report spans
/// (`spanned_threads`; a day of a run read short counts short). `outages`: hours the forum
/// could not be read. `voters`: who has a standing ballot at the close (for games where not
/// voting counts), when known.
pub fn lurk(
    config: &GameConfig,
    day: u32,
    posts: &[Post],
    outages: &[(Time, Time)],
    voters: Option<&BTreeSet<String>>,
    thread_list: &[bansha_parsers::threadlist::ThreadEntry],
) -> Option<LurkReport> {
    let d = config.day(day)?;
    let rules = &config.rules.lurk;
    let (from, to) = window(config, d);
    let (own_threads, extra_threads) = opened_threads(config, d, from, to, thread_list);
    let (per, ignored) = counts(config, d, posts, &own_threads);
    let total: u32 = per.values().map(|(c, _)| *c).sum();
    let average = if per.is_empty() {
        0.0
    } else {
        total as f64 / per.len() as f64
    };
    let outage = outages
        .iter()
        .find(|(a, b)| *b > from.unwrap_or(*a) && *a <= to);
    let earlier = earlier_days(config, d, posts);
    // The earlier days of a run (m103) not read in full: the run's rule cannot be judged.
    let unread: Vec<String> = spanned_days(config, d)
        .into_iter()
        .skip(1)
        .rev()
        .filter(|x| {
            let (f, t) = span(config, x);
            outages.iter().any(|(a, b)| *b > f && *a <= t)
        })
        .map(|x| format!("第 {} 天", x.day))
        .collect();

    let mut players = Vec::new();
    for (player, (counted, excluded)) in per {
        let mut reasons = reasons_of(config, counted, average);
        let mut unsure = None;
        match run_reason(config, &player, counted, &earlier) {
            Some(r) if unread.is_empty() => reasons.push(r),
            Some(r) => {
                unsure = Some(format!(
                    "可能{r}，但{}的帖子没有读全，无法判断",
                    unread.join("、")
                ))
            }
            None => {}
        }
        let voted = voters.map(|v| v.contains(&player));
        if rules.must_vote && voted == Some(false) {
            reasons.push("本讨论日没有投票".into());
        }
        // Post counts and the vote duty lapse once the game is accelerated (m103 L314–315
        // "在未加快进程的…"); a power not used in time does not (L316).
        let accelerated = rules.only_before_acceleration && d.accelerated_by(d.closes_at);
        if accelerated {
            reasons.clear();
            unsure = None;
        }
        if rules.night_move_duty && d.missed_night_moves.contains(&player) {
            reasons.push("没有在规定时间内行使夜间行动".into());
        }
        if accelerated && reasons.is_empty() {
            reasons = vec!["进程已加速，不再按发言数和投票判潜水".into()];
            players.push(PlayerCount {
                player,
                uid: None,
                counted,
                excluded,
                voted,
                verdict: Verdict::Ok,
                reasons,
            });
            continue;
        }
        let verdict = match (reasons.is_empty(), outage) {
            (true, _) if unsure.is_some() => {
                reasons.extend(unsure);
                Verdict::Unknown
            }
            (true, _) => Verdict::Ok,
            (false, Some((a, b))) => {
                reasons.push(format!(
                    "但论坛在 {} 至 {} 无法读取，无法判断",
                    a.format("%m-%d %H:%M"),
                    b.format("%m-%d %H:%M")
                ));
                Verdict::Unknown
            }
            (false, None) => Verdict::Lurk,
        };
        let uid = posts
            .iter()
            .find(|p| p.author == player)
            .and_then(|p| p.author_uid);
        players.push(PlayerCount {
            player,
            uid,
            counted,
            excluded,
            voted,
            verdict,
            reasons,
        });
    }
    // Roster order reads best for the judge.
    players.sort_by_key(|p| config.roster.players.iter().position(|x| *x == p.player));
    let (penalty, rule) = rule_words(rules);
    Some(LurkReport {
        day,
        from,
        to,
        threads: threads_of(config, d),
        player_threads: own_threads,
        extra_threads,
        average,
        players,
        ignored,
        penalty,
        rule,
    })
}

/// Threads living players opened during the day's window (from the board's list), and, where
/// the rules count them, who opened more than one.
fn opened_threads(
    config: &GameConfig,
    d: &DayConfig,
    from: Option<Time>,
    to: Time,
    thread_list: &[bansha_parsers::threadlist::ThreadEntry],
) -> (Vec<u64>, Vec<ExtraThreads>) {
    let rules = &config.rules.lurk;
    let mut by_player: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for t in thread_list {
        let Some(at) = t.created_at else { continue };
        let alive = config.roster.players.contains(&t.author) && !d.dead.contains(&t.author);
        if alive && from.is_none_or(|f| at > f) && at <= to {
            by_player.entry(t.author.clone()).or_default().push(t.tid);
        }
    }
    let own_threads: Vec<u64> = if rules.player_threads {
        by_player.values().flatten().copied().collect()
    } else {
        Vec::new()
    };
    let extra_threads: Vec<ExtraThreads> = by_player
        .iter()
        .filter(|(_, tids)| rules.player_threads && tids.len() > 1)
        .map(|(p, tids)| ExtraThreads {
            player: p.clone(),
            tids: tids.clone(),
        })
        .collect();
    (own_threads, extra_threads)
}

/// The days a day's 潜水 spans, the day itself first: where the rules judge a run of days
/// (m103 002 L314 "连续三个讨论日均不足十帖"), the configured days before it that the run reaches,
/// latest first. Each day of the run is counted from its own threads (`spanned_threads`), in the
/// daemon and offline alike.
pub fn spanned_days<'a>(config: &'a GameConfig, d: &'a DayConfig) -> Vec<&'a DayConfig> {
    let mut out = vec![d];
    if let Some(n) = config.rules.lurk.window_days {
        let mut prior: Vec<&DayConfig> = config
            .days
            .iter()
            .filter(|x| x.closes_at < d.closes_at)
            .collect();
        prior.sort_by_key(|x| std::cmp::Reverse(x.closes_at));
        out.extend(prior.into_iter().take(n.saturating_sub(1) as usize));
    }
    out
}

/// The threads a day's 潜水 is counted from: the counted threads (`threads_of`) of every day it
/// spans (`spanned_days`), each once, the day's own first.
pub fn spanned_threads(config: &GameConfig, d: &DayConfig) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::new();
    for x in spanned_days(config, d) {
        for t in threads_of(config, x) {
            if !out.contains(&t) {
                out.push(t);
            }
        }
    }
    out
}

/// The counts of the earlier days a run of days reaches (m103), latest first.
fn earlier_days(config: &GameConfig, d: &DayConfig, posts: &[Post]) -> Vec<PerPlayer> {
    spanned_days(config, d)
        .into_iter()
        .skip(1)
        .map(|x| counts(config, x, posts, &[]).0)
        .collect()
}

/// Why a player's count on the day falls short: under the minimum (and the share of the
/// average, where set).
fn reasons_of(config: &GameConfig, counted: u32, average: f64) -> Vec<String> {
    let rules = &config.rules.lurk;
    let mut reasons = Vec::new();
    if rules.min_posts > 0 && counted < rules.min_posts {
        match rules.min_share_of_average {
            Some(share) if (counted as f64) >= share * average => {}
            Some(share) => reasons.push(format!(
                "发言 {counted} 帖，少于 {} 帖且少于当天平均数 {:.1} 的 {}%",
                rules.min_posts,
                average,
                share * 100.0
            )),
            None => reasons.push(format!("发言 {counted} 帖，少于 {} 帖", rules.min_posts)),
        }
    }
    reasons
}

/// Under the run's minimum on every day of it (m103 002 L314 "连续三个讨论日均不足十帖"), from
/// the day's count and the earlier days' (`earlier_days`).
fn run_reason(
    config: &GameConfig,
    player: &str,
    counted: u32,
    earlier: &[PerPlayer],
) -> Option<String> {
    let rules = &config.rules.lurk;
    let (Some(n), Some(m)) = (rules.window_days, rules.window_min_posts) else {
        return None;
    };
    (earlier.len() + 1 == n as usize
        && counted < m
        && earlier
            .iter()
            .all(|e| e.get(player).is_some_and(|(c, _)| *c < m)))
    .then(|| format!("连续 {n} 个讨论日每天都少于 {m} 帖"))
}

/// The penalty and the 潜水 standard in words, for the report.
fn rule_words(rules: &crate::config::LurkRules) -> (String, String) {
    let penalty = match rules.penalty.as_str() {
        "yellow_card" => "黄牌一张",
        "lurk" => "记潜水一次",
        _ => "警告一次",
    }
    .to_string();
    let mut rule = match (rules.min_posts, rules.min_share_of_average) {
        (0, _) => "不限发言数".to_string(),
        (n, Some(s)) => format!("少于 {n} 帖且少于当天平均数的 {}%", s * 100.0),
        (n, None) => format!("少于 {n} 帖"),
    };
    if let (Some(n), Some(m)) = (rules.window_days, rules.window_min_posts) {
        rule.push_str(&format!("，或连续 {n} 天每天少于 {m} 帖"));
    }
    if rules.must_vote {
        rule.push_str("，或没有投票");
    }
    if rules.night_move_duty {
        rule.push_str("，或没有在规定时间内行使夜间行动");
    }
    (penalty, rule)
}
