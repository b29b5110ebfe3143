//! The words about days found on the forum (issue 30): the proposal of a found day, the
//! questions about threads bansha cannot place, a deadline moved by an edit of the first post.
//! Plain text, for a mail body or (escaped by the page) the dashboard.

use crate::domain::days::FoundDay;
use crate::domain::deadline::{Deadline, DeadlineCheck};
use chrono::{DateTime, FixedOffset};

fn short(t: DateTime<FixedOffset>, offset: FixedOffset) -> String {
    t.with_timezone(&offset).format("%m-%d %H:%M").to_string()
}

/// "发现第 3 天的投票帖 tid 57，截止 12-02 21:00：开始监视？", with the thread's subject, who
/// opened it and when, its discussion threads, and, where the deadline could not be read, why
/// and what was read.
pub fn found_day(found: &FoundDay, deadline: &Deadline, offset: FixedOffset) -> String {
    let mut out = format!("发现第 {} 天的投票帖 tid {}", found.day, found.vote_thread);
    match deadline {
        Deadline::At { at, .. } => out += &format!("，截止 {}：开始监视？", short(*at, offset)),
        Deadline::Ask { reason, .. } => {
            out += &format!(
                "，截止时间无法确定（{}）：请填写截止时间后再开始监视",
                reason.zh()
            )
        }
    }
    out += &format!("\n标题：{}\n开帖：{}", found.subject, found.author);
    if let Some(t) = found.opened_at {
        out += &format!("，{}", short(t, offset));
    }
    if !found.discussion_threads.is_empty() {
        let tids: Vec<String> = found
            .discussion_threads
            .iter()
            .map(|t| format!("tid {t}"))
            .collect();
        out += &format!("\n讨论帖：{}", tids.join("、"));
    }
    match deadline {
        Deadline::At { phrase, .. } => out += &format!("\n首帖原文：{phrase}"),
        Deadline::Ask {
            phrases, warnings, ..
        } => {
            for p in phrases {
                out += &format!("\n读到：{p}");
            }
            for w in warnings {
                out += &format!("\n未采用：{}（{}）", w.text, w.kind.zh());
            }
        }
    }
    out
}

/// What the judge is told when a day's first post, read again, no longer says the configured
/// close; `None` when it still does.
pub fn deadline_check(day: u32, check: &DeadlineCheck, offset: FixedOffset) -> Option<String> {
    match check {
        DeadlineCheck::Same => None,
        DeadlineCheck::Differs { read, configured } => Some(format!(
            "第 {day} 天投票帖首帖的截止时间现在是 {}，配置里是 {}：要把截止时间改为 {} 吗？",
            short(*read, offset),
            short(*configured, offset),
            short(*read, offset)
        )),
        DeadlineCheck::Unreadable(reason) => Some(format!(
            "第 {day} 天投票帖首帖的截止时间读不出来了（{}）：截止时间仍按配置，请核对",
            reason.zh()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::config::DiscoveryRules;
    use crate::domain::deadline::{read_deadline, AskReason};

    fn t(s: &str) -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339(s).unwrap()
    }

    fn cst() -> FixedOffset {
        FixedOffset::east_opt(8 * 3600).unwrap()
    }

    fn found() -> FoundDay {
        FoundDay {
            day: 3,
            vote_thread: 57,
            discussion_threads: vec![58],
            subject: "【第十二局】投票帖 第三天".into(),
            author: "版杀一室法官".into(),
            opened_at: Some(t("2026-12-01T21:05:00+08:00")),
        }
    }

    #[test]
    fn the_proposal_reads_as_the_issue_words_it() {
        let d = read_deadline(
            "截止：2026年12月2日 21:00",
            t("2026-12-01T21:05:00+08:00"),
            cst(),
            &DiscoveryRules::default(),
        );
        let text = found_day(&found(), &d, cst());
        assert!(
            text.starts_with("发现第 3 天的投票帖 tid 57，截止 12-02 21:00：开始监视？"),
            "{text}"
        );
        assert!(text.contains("讨论帖：tid 58"), "{text}");
        assert!(
            text.contains("首帖原文：截止：2026年12月2日 21:00"),
            "{text}"
        );
    }

    #[test]
    fn an_unreadable_deadline_is_asked_with_what_was_read() {
        let d = read_deadline(
            "21:00截止",
            t("2026-12-01T21:05:00+08:00"),
            cst(),
            &DiscoveryRules::default(),
        );
        let text = found_day(&found(), &d, cst());
        assert!(text.contains(AskReason::TimeOnly.zh()), "{text}");
        assert!(text.contains("读到：21:00截止"), "{text}");
        assert!(!text.contains("开始监视？"), "{text}");
    }

    #[test]
    fn a_moved_deadline_is_told_a_kept_one_is_not() {
        let configured = t("2026-12-02T21:00:00+08:00");
        assert_eq!(deadline_check(3, &DeadlineCheck::Same, cst()), None);
        let moved = DeadlineCheck::Differs {
            read: t("2026-12-03T21:00:00+08:00"),
            configured,
        };
        assert_eq!(
            deadline_check(3, &moved, cst()).unwrap(),
            "第 3 天投票帖首帖的截止时间现在是 12-03 21:00，配置里是 12-02 21:00：要把截止时间改为 12-03 21:00 吗？"
        );
        let gone = DeadlineCheck::Unreadable(AskReason::NoneFound);
        assert!(deadline_check(3, &gone, cst())
            .unwrap()
            .contains("读不出来"));
    }
}
