//! Days found on the forum: which new threads on the game's board are a day's vote and
//! discussion threads (`[discovery]` in the game config). Pure: the daemon reads the board's
//! thread list (`io::forum::thread_list`) and passes it in; what is found is proposed to the
//! judge, and what cannot be told for sure is a question, never a guess.

use crate::config::{DayConfig, GameConfig};
use bansha_parsers::threadlist::ThreadEntry;
use bansha_parsers::TimePrecision;
use chrono::{DateTime, FixedOffset};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

pub use crate::subject::SubjectPattern;

/// A day bansha found on the board, to propose to the judge (or watch at once, `auto_days`).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct FoundDay {
    pub day: u32,
    pub vote_thread: u64,
    pub discussion_threads: Vec<u64>,
    /// The vote thread's subject, author and opening time.
    pub subject: String,
    pub author: String,
    pub opened_at: Option<DateTime<FixedOffset>>,
}

impl FoundDay {
    /// What the record can key the proposal by, so that it is mailed once: the day and its
    /// vote thread.
    pub fn key(&self) -> String {
        format!("found-day/{}/{}", self.day, self.vote_thread)
    }
}

/// Why a thread cannot be placed without the judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum QuestionKind {
    /// The subject matches several days (`第二天投票帖（第三天讨论）`).
    SeveralDays,
    /// The subject matches both the vote and the discussion pattern.
    VoteOrDiscussion,
    /// Several new threads look like the same day's vote thread.
    SeveralVoteThreads,
    /// The day already has another vote thread (in the config, or proposed).
    OtherVoteThread,
    /// A discussion thread for a day already in the config (or proposed).
    ExtraDiscussion,
}

/// A question for the judge about threads of the board.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DayQuestion {
    pub kind: QuestionKind,
    /// The days the threads were matched as.
    pub days: Vec<u32>,
    /// The threads in question, and for `OtherVoteThread` the day's vote thread first.
    pub tids: Vec<u64>,
    pub subjects: Vec<String>,
}

impl DayQuestion {
    /// What the record can key the question by, so that it is asked once.
    pub fn key(&self) -> String {
        let join = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
        let days: Vec<u64> = self.days.iter().map(|d| u64::from(*d)).collect();
        format!(
            "day-question/{:?}/{}/{}",
            self.kind,
            join(&days),
            join(&self.tids)
        )
    }

    /// The question as the judge reads it.
    pub fn zh(&self) -> String {
        let days = self
            .days
            .iter()
            .map(|d| format!("第 {d} 天"))
            .collect::<Vec<_>>()
            .join("、");
        let tids = self
            .tids
            .iter()
            .map(|t| format!("tid {t}"))
            .collect::<Vec<_>>()
            .join("、");
        let subjects = self.subjects.join("”“");
        match self.kind {
            QuestionKind::SeveralDays => {
                format!("帖子 {tids}（“{subjects}”）的标题同时对得上{days}：是哪一天的？")
            }
            QuestionKind::VoteOrDiscussion => {
                format!("帖子 {tids}（“{subjects}”）的标题既像{days}的投票帖又像讨论帖：是哪一种？")
            }
            QuestionKind::SeveralVoteThreads => {
                format!("{days}有几个帖子像投票帖：{tids}（“{subjects}”）：监视哪一个？")
            }
            QuestionKind::OtherVoteThread => format!(
                "{days}已有投票帖 tid {}，新帖 {}（“{subjects}”）也像这一天的投票帖：要换吗？",
                self.tids.first().copied().unwrap_or_default(),
                self.tids
                    .iter()
                    .skip(1)
                    .map(|t| format!("tid {t}"))
                    .collect::<Vec<_>>()
                    .join("、"),
            ),
            QuestionKind::ExtraDiscussion => {
                format!("{days}已在配置里，新帖 {tids}（“{subjects}”）像这一天的讨论帖：要加上吗？")
            }
        }
    }
}

/// What a look at the board found.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Discovery {
    /// New days, each with its vote thread: to propose to the judge.
    pub days: Vec<FoundDay>,
    /// Days whose discussion threads are open but whose vote thread is not (yet): day and tids.
    pub waiting: Vec<(u32, Vec<u64>)>,
    pub questions: Vec<DayQuestion>,
}

/// A day bansha already knows: in the config, or proposed and not yet answered.
struct Known {
    vote_thread: Option<u64>,
}

/// The threads of `threads` (a board's list) that are new days of `game`: opened by one of the
/// judges (`discovery.judges`, else `roster.judges`), not before the game's first configured
/// day opens, whose subject matches `discovery.vote_subject` or `discussion_subject`. A day in
/// the config or in `pending` (proposed, not yet answered) is not proposed again; what cannot
/// be placed for sure is a question.
pub fn discover(game: &GameConfig, threads: &[ThreadEntry], pending: &[FoundDay]) -> Discovery {
    let rules = &game.rules.discovery;
    // Checked at load; a pattern that does not compile finds nothing.
    let (Ok(vote), Ok(discussion)) = (
        SubjectPattern::new(&rules.vote_subject),
        SubjectPattern::new(&rules.discussion_subject),
    ) else {
        return Discovery::default();
    };
    let judges = if rules.judges.is_empty() {
        &game.roster.judges
    } else {
        &rules.judges
    };
    let since = game.days.iter().map(DayConfig::watch_from).min();
    let (known, known_tids) = known_days(&game.days, pending);

    let mut out = Discovery::default();
    let mut votes: BTreeMap<u32, Vec<&ThreadEntry>> = BTreeMap::new();
    let mut talks: BTreeMap<u32, Vec<&ThreadEntry>> = BTreeMap::new();
    for t in threads {
        if !judges.contains(&t.author) || known_tids.contains(&t.tid) || opened_before(t, since) {
            continue;
        }
        let (v, d) = (vote.days_in(&t.subject), discussion.days_in(&t.subject));
        let all: BTreeSet<u32> = v.union(&d).copied().collect();
        let kind = match (v.len(), d.len(), all.len()) {
            (0, 0, _) => continue,
            (_, _, n) if n > 1 => Some(QuestionKind::SeveralDays),
            (1, 1, _) => Some(QuestionKind::VoteOrDiscussion),
            _ => None,
        };
        if let Some(kind) = kind {
            out.questions.push(question(kind, &all, &[t]));
            continue;
        }
        let (map, day) = match v.first() {
            Some(day) => (&mut votes, *day),
            None => (&mut talks, d.first().copied().unwrap_or_default()),
        };
        map.entry(day).or_default().push(t);
    }
    for (day, mut ts) in votes {
        ts.sort_by_key(|t| t.tid);
        let one = BTreeSet::from([day]);
        if let Some(k) = known.get(&day) {
            let mut tids: Vec<u64> = k.vote_thread.into_iter().collect();
            tids.extend(ts.iter().map(|t| t.tid));
            let mut q = question(QuestionKind::OtherVoteThread, &one, &ts);
            if k.vote_thread.is_none() {
                q.kind = QuestionKind::SeveralVoteThreads;
            }
            q.tids = tids;
            out.questions.push(q);
        } else if ts.len() > 1 {
            out.questions
                .push(question(QuestionKind::SeveralVoteThreads, &one, &ts));
        } else if let Some(t) = ts.first() {
            let discussion_threads = talks
                .remove(&day)
                .unwrap_or_default()
                .iter()
                .map(|t| t.tid)
                .collect();
            out.days.push(FoundDay {
                day,
                vote_thread: t.tid,
                discussion_threads,
                subject: t.subject.clone(),
                author: t.author.clone(),
                opened_at: t.created_at,
            });
        }
    }
    for (day, mut ts) in talks {
        ts.sort_by_key(|t| t.tid);
        if known.contains_key(&day) {
            let q = question(QuestionKind::ExtraDiscussion, &BTreeSet::from([day]), &ts);
            out.questions.push(q);
        } else {
            out.waiting.push((day, ts.iter().map(|t| t.tid).collect()));
        }
    }
    out
}

/// Whether the thread was surely opened before `since` (a list showing only the date says
/// the thread is of that whole day).
fn opened_before(t: &ThreadEntry, since: Option<DateTime<FixedOffset>>) -> bool {
    let (Some(since), Some(created)) = (since, t.created_at) else {
        return false;
    };
    let latest = match t.created_precision {
        TimePrecision::Day => created + chrono::Duration::days(1),
        _ => created,
    };
    latest < since
}

/// The days known by number, and every thread they already use.
fn known_days(days: &[DayConfig], pending: &[FoundDay]) -> (BTreeMap<u32, Known>, BTreeSet<u64>) {
    let mut known = BTreeMap::new();
    let mut tids = BTreeSet::new();
    for d in days {
        known.insert(
            d.day,
            Known {
                vote_thread: d.vote_thread,
            },
        );
        tids.extend(d.vote_thread);
        tids.extend(&d.discussion_threads);
        tids.extend(&d.chat_threads);
        tids.extend(d.checked_threads.iter().map(|c| c.tid));
        tids.extend(d.progress_thread);
        tids.extend(d.runoff.as_ref().and_then(|r| r.vote_thread));
    }
    for f in pending {
        known.entry(f.day).or_insert(Known {
            vote_thread: Some(f.vote_thread),
        });
        tids.insert(f.vote_thread);
        tids.extend(&f.discussion_threads);
    }
    (known, tids)
}

fn question(kind: QuestionKind, days: &BTreeSet<u32>, threads: &[&ThreadEntry]) -> DayQuestion {
    DayQuestion {
        kind,
        days: days.iter().copied().collect(),
        tids: threads.iter().map(|t| t.tid).collect(),
        subjects: threads.iter().map(|t| t.subject.clone()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::load_str;
    use std::path::Path;

    fn pattern(p: &str) -> SubjectPattern {
        SubjectPattern::new(p).unwrap()
    }

    #[test]
    fn day_numbers_in_every_writing() {
        let p = pattern(&crate::config::DiscoveryRules::default().vote_subject);
        for (subject, day) in [
            ("【第十二局】投票帖 第二天", 2),
            ("第3天 投票帖", 3),
            ("第３天 投票帖", 3),
            ("第三天投票贴", 3),
            ("第十二天 投票楼", 12),
            ("第二十三天 投票帖", 23),
            ("第三十天 投票帖", 30),
            ("投票帖（第三十一天）", 31),
        ] {
            assert_eq!(p.days_in(subject), BTreeSet::from([day]), "{subject}");
        }
        // The captured board's poll thread names the vote thread inside brackets: not a vote
        // thread itself (the gap between the day and the word never crosses a bracket).
        assert!(p
            .days_in("【第十二局】第二天 投票机（仅供参考，以投票帖为准）")
            .is_empty());
        assert!(p.days_in("【第十二局】讨论帖 第二天").is_empty());
    }

    #[test]
    fn a_subject_naming_two_days_names_both() {
        let p = pattern("第{day}天.*投票帖");
        assert_eq!(
            p.days_in("第二天投票帖（第三天投票帖另开）"),
            BTreeSet::from([2, 3])
        );
    }

    #[test]
    fn patterns_without_day_or_not_compiling_are_refused() {
        // Asked twice: the second answer is the kept compile's, the same.
        for _ in 0..2 {
            assert!(SubjectPattern::new("投票帖").unwrap_err().contains("{day}"));
            assert!(SubjectPattern::new("第{day}天(投票")
                .unwrap_err()
                .contains("正则表达式"));
            let p = SubjectPattern::new("第{day}天.*{day}投票帖").unwrap();
            assert_eq!(p.days_in("第二天3投票帖"), BTreeSet::from([2, 3]));
        }
    }

    const GAME: &str = r#"
ruleset = "m103"
id = "g"
name = "第十二局"
board = 3

[roster]
players = ["大灰狼", "小飞", "李逵"]
judges = ["版杀一室法官"]

[[days]]
day = 1
vote_thread = 10
discussion_threads = [11]
opens_at = "2026-11-27 21:00"
closes_at = "2026-11-28 21:00"
"#;

    fn entry(tid: u64, subject: &str, author: &str) -> ThreadEntry {
        ThreadEntry {
            tid,
            subject: subject.into(),
            author: author.into(),
            author_uid: None,
            created_at: DateTime::parse_from_rfc3339("2026-11-28T21:05:00+08:00").ok(),
            created_precision: TimePrecision::Minute,
            replies: None,
        }
    }

    fn game() -> GameConfig {
        load_str(GAME, Path::new("g.toml")).unwrap()
    }

    #[test]
    fn a_new_day_with_its_threads_is_found() {
        let found = discover(
            &game(),
            &[
                entry(20, "【第十二局】投票帖 第二天", "版杀一室法官"),
                entry(21, "【第十二局】讨论帖 第二天", "版杀一室法官"),
                entry(22, "【第十二局】第二天 投票机（仅供参考）", "版杀一室法官"),
            ],
            &[],
        );
        assert_eq!(found.questions, vec![]);
        assert_eq!(found.days.len(), 1);
        let d = &found.days[0];
        assert_eq!(
            (d.day, d.vote_thread, d.discussion_threads.clone()),
            (2, 20, vec![21])
        );
        assert_eq!(d.author, "版杀一室法官");
        assert_eq!(d.key(), "found-day/2/20");
    }

    #[test]
    fn threads_by_players_or_already_configured_are_not_days() {
        let found = discover(
            &game(),
            &[
                entry(20, "第二天投票帖", "小飞"),
                entry(10, "第一天投票帖", "版杀一室法官"),
                entry(11, "第一天讨论帖", "版杀一室法官"),
            ],
            &[],
        );
        assert_eq!(found, Discovery::default());
    }

    #[test]
    fn a_configured_day_with_another_vote_thread_is_a_question() {
        let found = discover(
            &game(),
            &[entry(30, "第一天投票帖（重开）", "版杀一室法官")],
            &[],
        );
        assert!(found.days.is_empty());
        assert_eq!(found.questions.len(), 1);
        let q = &found.questions[0];
        assert_eq!(
            (q.kind, q.tids.clone()),
            (QuestionKind::OtherVoteThread, vec![10, 30])
        );
        assert!(q.zh().contains("已有投票帖 tid 10"), "{}", q.zh());
        assert_eq!(q.key(), "day-question/OtherVoteThread/1/10,30");
    }

    #[test]
    fn a_pending_day_is_not_proposed_again() {
        let first = discover(&game(), &[entry(20, "第二天投票帖", "版杀一室法官")], &[]);
        let again = discover(
            &game(),
            &[entry(20, "第二天投票帖", "版杀一室法官")],
            &first.days,
        );
        assert_eq!(again, Discovery::default());
        let other = discover(
            &game(),
            &[entry(25, "第二天投票帖", "版杀一室法官")],
            &first.days,
        );
        assert_eq!(other.questions[0].kind, QuestionKind::OtherVoteThread);
    }

    #[test]
    fn ambiguous_threads_are_questions() {
        let found = discover(
            &game(),
            &[
                entry(20, "第二天投票帖", "版杀一室法官"),
                entry(21, "第二天投票帖（备用）", "版杀一室法官"),
                entry(22, "第三天投票帖（第四天投票帖合并）", "版杀一室法官"),
                entry(23, "第五天 投票帖 讨论帖", "版杀一室法官"),
            ],
            &[],
        );
        assert!(found.days.is_empty(), "{found:?}");
        let kinds: Vec<_> = found.questions.iter().map(|q| q.kind).collect();
        assert!(
            kinds.contains(&QuestionKind::SeveralVoteThreads),
            "{kinds:?}"
        );
        assert!(kinds.contains(&QuestionKind::SeveralDays), "{kinds:?}");
        assert!(kinds.contains(&QuestionKind::VoteOrDiscussion), "{kinds:?}");
        for q in &found.questions {
            assert!(!q.zh().is_empty());
        }
    }

    #[test]
    fn a_discussion_thread_alone_waits_for_its_vote_thread() {
        let found = discover(&game(), &[entry(21, "第二天讨论帖", "版杀一室法官")], &[]);
        assert_eq!(found.waiting, vec![(2, vec![21])]);
        assert!(found.days.is_empty());
        let extra = discover(
            &game(),
            &[entry(31, "第一天讨论帖（二）", "版杀一室法官")],
            &[],
        );
        assert_eq!(extra.questions[0].kind, QuestionKind::ExtraDiscussion);
    }

    #[test]
    fn threads_older_than_the_game_are_another_games() {
        let mut old = entry(5, "第二天投票帖", "版杀一室法官");
        old.created_at = DateTime::parse_from_rfc3339("2026-10-01T21:00:00+08:00").ok();
        assert_eq!(discover(&game(), &[old], &[]), Discovery::default());
        // Shown by its date alone, a thread of the day the game opened may be the game's.
        let mut same_day = entry(6, "第二天投票帖", "版杀一室法官");
        same_day.created_at = DateTime::parse_from_rfc3339("2026-11-27T00:00:00+08:00").ok();
        same_day.created_precision = TimePrecision::Day;
        assert_eq!(discover(&game(), &[same_day], &[]).days.len(), 1);
    }

    /// Each preset's patterns against the thread names its rule post gives.
    #[test]
    fn presets_find_the_threads_their_rule_posts_name() {
        for (preset, vote_subject, discussion_subject, day) in [
            // 000 L119 投票专用贴, L128 分析专贴.
            ("chuhan", "第三天 投票专用贴", "第三天 分析专贴", 3),
            // 001 L155–L156 讨论帖（第一天）, 投票帖（第一天）.
            ("jiaohui", "投票帖（第一天）", "讨论帖（第一天）", 1),
            // 002 L50 讨论贴, 投票贴.
            ("m103", "【M103】第二天 投票贴", "【M103】第二天 讨论贴", 2),
            // 003 L120 自由讨论贴, 投票讨论贴.
            ("qipan", "第二天 投票讨论贴", "第二天 自由讨论贴", 2),
            // 004 L30–L36 rounds, L72 投票楼/投票机.
            ("bansha42", "第三轮 投票楼", "第三轮 讨论帖", 3),
        ] {
            let rules = crate::config::preset_rules(preset).unwrap().discovery;
            let vote = pattern(&rules.vote_subject);
            let talk = pattern(&rules.discussion_subject);
            assert_eq!(
                vote.days_in(vote_subject),
                BTreeSet::from([day]),
                "{preset}"
            );
            assert!(vote.days_in(discussion_subject).is_empty(), "{preset}");
            assert_eq!(
                talk.days_in(discussion_subject),
                BTreeSet::from([day]),
                "{preset}"
            );
            assert!(talk.days_in(vote_subject).is_empty(), "{preset}");
            assert!(!rules.auto_days, "{preset}");
        }
        // Only qipan's timetable closes a day the evening it opens (003 L96, L98).
        for preset in ["chuhan", "jiaohui", "m103", "qipan", "bansha42"] {
            let rules = crate::config::preset_rules(preset).unwrap().discovery;
            assert_eq!(rules.time_only_same_day, preset == "qipan", "{preset}");
        }
    }

    #[test]
    fn the_games_discovery_table_overrides_the_presets() {
        let text = format!(
            "{GAME}\n[discovery]\nvote_subject = \"【第十二局】.*第{{day}}天.*投票\"\nauto_days = true\n"
        );
        let g = load_str(&text, Path::new("g.toml")).unwrap();
        assert!(g.rules.discovery.auto_days);
        assert_eq!(
            g.rules.discovery.vote_subject,
            "【第十二局】.*第{day}天.*投票"
        );
        // Untouched keys keep the preset's.
        assert_eq!(
            g.rules.discovery.discussion_subject,
            crate::config::preset_rules("m103")
                .unwrap()
                .discovery
                .discussion_subject
        );
    }

    #[test]
    fn discovery_errors_point_at_file_line_and_key() {
        let bad_regex = format!("{GAME}\n[discovery]\nvote_subject = \"第{{day}}天(投票\"\n");
        let e = load_str(&bad_regex, Path::new("g.toml")).unwrap_err();
        assert_eq!(e.file, "g.toml");
        assert_eq!(e.key, "discovery.vote_subject");
        let line = bad_regex
            .lines()
            .position(|l| l.starts_with("vote_subject"))
            .unwrap()
            + 1;
        assert_eq!(e.line, Some(line));
        assert!(e.message.contains("正则表达式"), "{e}");

        let no_day = format!("{GAME}\n[discovery]\ndiscussion_subject = \"讨论帖\"\n");
        let e = load_str(&no_day, Path::new("g.toml")).unwrap_err();
        assert_eq!(e.key, "discovery.discussion_subject");
        assert!(e.message.contains("{day}"), "{e}");

        let unknown = format!("{GAME}\n[discovery]\nauto_day = true\n");
        let e = load_str(&unknown, Path::new("g.toml")).unwrap_err();
        assert!(e.key.starts_with("discovery"), "{e}");
        assert!(e.to_string().contains("auto_day"), "{e}");

        let player = format!("{GAME}\n[discovery]\njudges = [\"小飞\"]\n");
        let e = load_str(&player, Path::new("g.toml")).unwrap_err();
        assert_eq!(e.key, "discovery.judges");
        assert!(e.line.is_some());
    }
}
