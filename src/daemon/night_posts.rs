//! bansha42's kill posts in the forum read into the open night (issue 34; 004 L60 "自己根据交帖
//! 口令提交至论坛"). Each post of the game's kill-post threads (`checked_threads` of kind `kill`,
//! any day) posted after the day's close, while the night is open, is checked as `check-post`
//! checks it (`[checks.kill]`, the code names, earlier texts for 原创首发) and kept in the night
//! record as `domain::night::kill_posts` reads it: a 贴杀 or 重写 action (one after the
//! deadline is late: the resolver lists it so), or a line for the judge in the digest. Each post
//! is read once (`NightRecord::posts`), across cycles and restarts.

use super::night::OpenNight;
use crate::daemon::Daemon;
use crate::domain::config::GameConfig;
use crate::domain::night::kill_posts::{read_kill_post, KillPost, Reading};
use chrono::{DateTime, FixedOffset};

type Time = DateTime<FixedOffset>;

/// The `[checks.KIND]` a kill post passes (config/rulesets/bansha42.toml).
const KIND: &str = "kill";

/// (pid, posted at, label, text) of a post seen before, for 原创首发.
type Earlier = (u64, Option<Time>, String, String);

impl Daemon {
    /// Read the kill posts of night `n` not read yet into its record (see the module).
    pub(crate) fn night_kill_posts(
        &self,
        g: &GameConfig,
        n: &mut OpenNight,
        now: Time,
    ) -> anyhow::Result<()> {
        let Some(rule) = g.rules.checks.get(KIND) else {
            return Ok(());
        };
        let tids = kill_threads(g);
        if tids.is_empty() {
            return Ok(());
        }
        let codes = code_names(g, n.night);
        let earlier = self.earlier_texts(g, n.night, &tids)?;
        for tid in tids {
            for p in self.store.posts_at_close(tid, now, now)? {
                let Some(at) = p.posted_at else {
                    continue;
                };
                if at <= n.opens || n.record.posts.contains(&p.pid) {
                    continue;
                }
                let quotes: Vec<&str> = p.quotes.iter().map(|q| q.text.as_str()).collect();
                let before: Vec<(String, String)> = earlier
                    .iter()
                    .filter(|(pid, t, _, _)| *pid != p.pid && t.is_some_and(|t| t < at))
                    .map(|(_, _, label, text)| (label.clone(), text.clone()))
                    .collect();
                let verdict = crate::domain::rules::checks::check_post(
                    rule,
                    &p.text,
                    &quotes,
                    &codes,
                    (p.edited_at.is_some(), false),
                    &before,
                );
                let post = KillPost {
                    tid,
                    pid: p.pid,
                    floor: &p.floor,
                    author: &p.author,
                    posted_at: p.posted_at,
                    text: &p.text,
                };
                match read_kill_post(g, &post, &verdict) {
                    Reading::Action(a) => n.record.actions.push(a),
                    Reading::ForJudge(line) => n.record.unread.push(line),
                    Reading::Nothing => {}
                }
                n.record.posts.insert(p.pid);
            }
        }
        Ok(())
    }

    /// Read the game's kill-post threads for night `n` ([`kill_threads`]) on every cycle until
    /// one read of them all after the night's actions were due (`settles_at`) went through:
    /// the thread may be listed on a day long past, or on one not typed yet when the night
    /// opens, and no day reads it then. The read after the deadline is a full one (a post
    /// deleted is gone from it) and is what `kill_unread` waits for; a night with no deadline
    /// waits for no read. The changes are left unsettled: a day that lists the thread and reads
    /// it later checks them as its own (`[checks.kill]`); where none does they stay pending, as
    /// many as the thread's changes.
    pub(crate) async fn read_kill_threads(
        &self,
        g: &GameConfig,
        n: &mut OpenNight,
        now: Time,
        report: &mut crate::domain::report::CycleReport,
    ) -> anyhow::Result<()> {
        let tids = kill_threads(g);
        let Some(settles) = self.settles_at(n) else {
            return Ok(());
        };
        if tids.is_empty() || n.record.kill_read_at.is_some_and(|t| t >= settles) {
            return Ok(());
        }
        let full = now >= settles;
        let mut whole = true;
        for tid in tids {
            if let Err(e) = self.read_thread(tid, full, now).await? {
                self.failed(g, tid, &e, now, report)?;
                whole = false;
            }
        }
        if whole && full {
            n.record.kill_read_at = Some(now);
        }
        Ok(())
    }

    /// Why night `n` cannot be settled yet for its kill posts: the game's kill-post threads not
    /// read since its actions were due (see `read_kill_threads`). A thread that cannot be read
    /// keeps the night waiting, as an inbox that cannot be read does; the judge hears of it by
    /// the forum-fault mail of its streak.
    pub(crate) fn kill_unread(&self, n: &OpenNight) -> Option<String> {
        let tids = kill_threads(&n.game);
        let settles = self.settles_at(n)?;
        if tids.is_empty() || n.record.kill_read_at.is_some_and(|t| t >= settles) {
            return None;
        }
        let list: Vec<String> = tids.iter().map(|t| format!("tid {t}")).collect();
        Some(format!(
            "第 {} 夜 {} 截止后还没有读完杀帖楼（{}）（论坛读不了或还没轮到）：截止前交的杀帖可能还没读到，读到后才能结算",
            n.night,
            settles.format("%m-%d %H:%M"),
            list.join("、")
        ))
    }

    /// The first versions of the posts in the kill-post threads and in the threads of the night's
    /// day and the next (vote, discussion, required posts), for 原创首发 (004 L63).
    fn earlier_texts(
        &self,
        g: &GameConfig,
        night: u32,
        kill_threads: &[u64],
    ) -> anyhow::Result<Vec<Earlier>> {
        let mut threads: Vec<u64> = kill_threads.to_vec();
        for d in g
            .days
            .iter()
            .filter(|d| d.day == night || d.day == night + 1)
        {
            threads.extend(d.vote_thread);
            threads.extend(&d.discussion_threads);
            threads.extend(d.checked_threads.iter().map(|c| c.tid));
        }
        threads.sort();
        threads.dedup();
        let mut out = Vec::new();
        for t in threads {
            for rec in self.store.records(t)? {
                if let Some(v) = rec.versions.first() {
                    out.push((
                        v.post.pid,
                        v.post.posted_at,
                        format!("{} {}（pid {}）", v.post.floor, v.post.author, v.post.pid),
                        v.post.text.clone(),
                    ));
                }
            }
        }
        Ok(out)
    }
}

/// The kill-post threads of a game whose nights bansha42's resolver settles: every typed day's
/// `checked_threads` of kind `kill` (004 L60; the thread is the game's, whichever day lists it).
pub(crate) fn kill_threads(g: &GameConfig) -> Vec<u64> {
    if g.rules.night.resolver.as_deref() != Some("bansha42") || !g.rules.checks.contains_key(KIND) {
        return Vec::new();
    }
    let mut tids: Vec<u64> = g
        .days
        .iter()
        .flat_map(|d| d.checked_threads.iter())
        .filter(|c| c.kind == KIND)
        .map(|c| c.tid)
        .collect();
    tids.sort();
    tids.dedup();
    tids
}

/// The code names a kill post of night `night` must name (004 L59): those of the round the
/// posts belong to (day `night + 1`), else of the day, else the roster's codes.
fn code_names(g: &GameConfig, night: u32) -> Vec<String> {
    for day in [night + 1, night] {
        if let Some(d) = g.day(day).filter(|d| !d.code_names.is_empty()) {
            return d.code_names.clone();
        }
    }
    g.roster
        .roles
        .values()
        .filter_map(|r| r.code.clone())
        .collect()
}
