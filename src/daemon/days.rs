//! Days found on the forum (issue 30): each cycle, for a game with a `board`, the board's
//! thread list is read and the threads a judge opened whose subject names a new day
//! (`domain::days::discover`) are proposed to the judge with the deadline read from the vote
//! thread's first post (`domain::deadline::read_deadline`): one mail each, and the dashboard's
//! "等法官处理" with a button. Accepted (or at once with `auto_days` and a deadline read for
//! sure), the day is written into the game config (`io::config_edit::add_day`: comments and
//! order kept, atomic, a dated backup) and the reload takes it: the file stays the whole truth.
//! A deadline bansha cannot read, or reads differently from the config, is asked, never guessed.

use crate::daemon::Daemon;
use crate::domain::config::GameConfig;
use crate::domain::days::FoundDay;
use crate::domain::deadline::Deadline;
use crate::domain::report::CycleReport;
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

type Time = DateTime<FixedOffset>;

/// A found day waiting for the judge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Proposal {
    pub game: String,
    pub found: FoundDay,
    /// The deadline read for sure from the vote thread's first post, if one was.
    pub closes_at: Option<Time>,
    /// What the judge reads ("发现第 3 天的投票帖 tid 57，截止 12-02 21:00：开始监视？").
    pub words: String,
}

fn pending_key(g: &GameConfig) -> String {
    format!("found_days/{}", g.id)
}

impl Daemon {
    /// The found days waiting for the judge, of every game.
    pub fn proposals(&self) -> Vec<Proposal> {
        let settings = self.settings();
        settings
            .games
            .iter()
            .flat_map(|g| {
                self.store
                    .get_meta::<Vec<Proposal>>(&pending_key(g))
                    .ok()
                    .flatten()
                    .unwrap_or_default()
            })
            .collect()
    }

    /// Look for new days on each game's board (see the module).
    pub(crate) async fn find_days(&self, now: Time, report: &mut CycleReport) {
        let settings = self.settings();
        for g in settings.games.iter().filter(|g| g.board.is_some()) {
            if let Err(e) = self.find_days_of(g, now, report).await {
                report.errors.push(format!("{}：{e:#}", g.name));
            }
        }
    }

    async fn find_days_of(
        &self,
        g: &GameConfig,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        let Some(fid) = g.board else {
            return Ok(());
        };
        let list = match self.forum.thread_list(fid).await {
            Ok(l) => l,
            Err(e) => {
                report.errors.push(format!("board {fid}: {e}"));
                return Ok(());
            }
        };
        let mut pending: Vec<Proposal> = self.store.get_meta(&pending_key(g))?.unwrap_or_default();
        let known: Vec<FoundDay> = pending.iter().map(|p| p.found.clone()).collect();
        let found = crate::domain::days::discover(g, &list.threads, &known);
        for q in &found.questions {
            let key = format!("{}/{}", g.id, q.key());
            let text = q.zh();
            self.queue(&key, report, || {
                crate::present::mails::day_question(&g.name, &text, now)
            })?;
        }
        for f in found.days {
            let deadline = self.deadline_of(g, f.vote_thread, now).await?;
            let words = crate::present::days::found_day(&f, &deadline, g.utc_offset);
            let closes_at = deadline.at();
            if g.rules.discovery.auto_days {
                if let Some(at) = closes_at {
                    let done = self.write_day(g, &f, at, now);
                    let key = format!("{}/{}", g.id, f.key());
                    self.queue(&key, report, || {
                        crate::present::mails::day_found(&g.name, &words, Some(&done), now)
                    })?;
                    continue;
                }
            }
            let key = format!("{}/{}", g.id, f.key());
            self.queue(&key, report, || {
                crate::present::mails::day_found(&g.name, &words, None, now)
            })?;
            pending.push(Proposal {
                game: g.name.clone(),
                found: f,
                closes_at,
                words,
            });
        }
        // A day the config now has (the judge added it by hand) waits no more.
        pending.retain(|p| g.day(p.found.day).is_none());
        self.store.set_meta(&pending_key(g), &pending)?;
        Ok(())
    }

    /// The deadline written in thread `tid`'s first post (read now if the record lacks it).
    async fn deadline_of(&self, g: &GameConfig, tid: u64, now: Time) -> anyhow::Result<Deadline> {
        let first = |d: &Daemon| {
            d.store
                .posts_as_of(tid, now)
                .unwrap_or_default()
                .into_iter()
                .find(|p| p.first)
        };
        let mut post = first(self);
        if post.is_none() {
            if let Ok(Err(e)) = self.read_thread(tid, false, now).await {
                crate::io::log::line(&format!("找到的白天帖 tid {tid} 读取失败：{e}"));
            }
            post = first(self);
        }
        Ok(match post {
            Some(p) => crate::domain::deadline::read_deadline(
                &p.text,
                p.posted_at.unwrap_or(now),
                g.utc_offset,
                &g.rules.discovery,
            ),
            None => {
                crate::domain::deadline::read_deadline("", now, g.utc_offset, &g.rules.discovery)
            }
        })
    }

    /// Write a found day into its game config and have the reload take it; what the judge is
    /// told.
    fn write_day(&self, g: &GameConfig, f: &FoundDay, closes_at: Time, now: Time) -> String {
        let day = crate::io::config_edit::NewDay::from_found(f, closes_at);
        match crate::io::config_edit::add_day(&g.path, &day, now) {
            Ok(edited) => {
                self.ask_reload();
                format!(
                    "已写入 {}（原文件备份为 {}），开始监视第 {} 天",
                    g.path.display(),
                    edited.backup.display(),
                    f.day
                )
            }
            Err(e) => format!("没能写入配置：{e}"),
        }
    }

    /// The judge accepts found day `day` of `game` (with the deadline he gives, else the one
    /// read): written into the config, taken at once.
    pub async fn accept_day(
        &self,
        game: &str,
        day: u32,
        closes_at: Option<Time>,
        now: Time,
    ) -> Result<String, String> {
        let settings = self.settings();
        let g = settings
            .games
            .iter()
            .find(|g| g.name == game || g.id == game)
            .ok_or_else(|| format!("没有游戏“{game}”"))?;
        let mut pending: Vec<Proposal> = self
            .store
            .get_meta(&pending_key(g))
            .map_err(|e| e.to_string())?
            .unwrap_or_default();
        let Some(i) = pending.iter().position(|p| p.found.day == day) else {
            return Err(format!("第 {day} 天不在待确认的新一天里"));
        };
        let Some(at) = closes_at.or(pending[i].closes_at) else {
            return Err(format!(
                "第 {day} 天的截止时间没能从帖子里读出：请写明截止时间再确认"
            ));
        };
        let day = crate::io::config_edit::NewDay::from_found(&pending[i].found, at);
        let edited =
            crate::io::config_edit::add_day(&g.path, &day, now).map_err(|e| e.to_string())?;
        pending.remove(i);
        self.store
            .set_meta(&pending_key(g), &pending)
            .map_err(|e| e.to_string())?;
        self.ask_reload();
        Ok(format!(
            "已把第 {} 天写入 {}（原文件备份为 {}），截止 {}；下一轮开始监视",
            day.day,
            g.path.display(),
            edited.backup.display(),
            at.format("%Y-%m-%d %H:%M")
        ))
    }

    /// The running days whose vote thread's first post (as recorded now, edits included) says
    /// another deadline than the config: (game, day, the deadline read, what the judge reads).
    pub fn deadline_moves(&self, now: Time) -> Vec<(String, u32, Time, String)> {
        let settings = self.settings();
        let mut out = Vec::new();
        for g in &settings.games {
            for d in g
                .days
                .iter()
                .filter(|d| now < d.closes_at && !d.opens_later(now))
            {
                let Some(tid) = d.vote_thread else { continue };
                if self.close_done(g, d).unwrap_or(true) {
                    continue;
                }
                let Some(first) = self
                    .store
                    .posts_as_of(tid, now)
                    .unwrap_or_default()
                    .into_iter()
                    .find(|p| p.first)
                else {
                    continue;
                };
                let read = crate::domain::deadline::read_deadline(
                    &first.text,
                    first.posted_at.unwrap_or(now),
                    g.utc_offset,
                    &g.rules.discovery,
                );
                let check = crate::domain::deadline::check_deadline(&read, d.closes_at);
                if let (
                    crate::domain::deadline::DeadlineCheck::Differs { read: at, .. },
                    Some(words),
                ) = (
                    &check,
                    crate::present::days::deadline_check(d.day, &check, g.utc_offset),
                ) {
                    out.push((g.name.clone(), d.day, *at, words));
                }
            }
        }
        out
    }

    /// Mail the judge, once per deadline read, each running day whose first post now says
    /// another deadline (an edit that moved it); the dashboard offers the move.
    pub(crate) fn watch_deadlines(&self, now: Time, report: &mut CycleReport) {
        for (game, day, at, words) in self.deadline_moves(now) {
            let key = format!("deadline_moved/{game}/{day}/{}", at.timestamp());
            if let Err(e) = self.queue(&key, report, || {
                crate::present::mails::deadline_moved(&game, &words, now)
            }) {
                report.errors.push(e.to_string());
            }
        }
    }

    /// The judge moves day `day`'s close to `closes_at` (as the first post now says): written
    /// into the game config, taken by the reload at once.
    pub fn move_close(
        &self,
        game: &str,
        day: u32,
        closes_at: Time,
        now: Time,
    ) -> Result<String, String> {
        let settings = self.settings();
        let g = settings
            .games
            .iter()
            .find(|g| g.name == game || g.id == game)
            .ok_or_else(|| format!("没有游戏“{game}”"))?;
        let edited = crate::io::config_edit::set_closes_at(
            &g.path,
            day,
            closes_at,
            "投票帖首帖改了截止时间，法官在仪表盘确认",
            now,
        )
        .map_err(|e| e.to_string())?;
        self.ask_reload();
        Ok(format!(
            "第 {day} 天截止时间已改为 {}（{}，原文件备份为 {}）",
            closes_at.format("%Y-%m-%d %H:%M"),
            g.path.display(),
            edited.backup.display()
        ))
    }
}

/// A run-off whose time only the judge can give (the rules set none): round 1 closed tied.
#[derive(Debug, Clone, PartialEq)]
pub struct RunoffAsk {
    pub game: String,
    pub day: u32,
    pub candidates: Vec<String>,
    /// Round 1's close (round 2 must close after it).
    pub after: Time,
}

impl Daemon {
    /// The days whose round 1 closed tied into a run-off the rules give no time for
    /// (`decide::RunoffPlan::NeedsTime`): the dashboard asks the judge for its time.
    pub fn runoff_asks(&self) -> Vec<RunoffAsk> {
        let settings = self.settings();
        let mut out = Vec::new();
        for g in &settings.games {
            for d in g.days.iter().filter(|d| d.vote_thread.is_some()) {
                let meta = |what: &str| format!("{what}/{}/{}", g.id, d.day);
                let round1: Option<Vec<String>> = self
                    .store
                    .get_meta(&meta("runoff_candidates"))
                    .ok()
                    .flatten();
                let places: Option<u32> =
                    self.store.get_meta(&meta("runoff_places")).ok().flatten();
                if let crate::daemon::decide::RunoffPlan::NeedsTime(candidates) =
                    crate::daemon::decide::runoff_plan(g, d, round1.as_deref(), places)
                {
                    out.push(RunoffAsk {
                        game: g.name.clone(),
                        day: d.day,
                        candidates,
                        after: d.closes_at,
                    });
                }
            }
        }
        out
    }

    /// The judge gives day `day`'s run-off time on the dashboard: `runoff = { closes_at,
    /// candidates }` written into the game config (round 1's tied candidates, as recorded at
    /// its close) and taken by the reload at once.
    pub fn set_runoff(
        &self,
        game: &str,
        day: u32,
        closes_at: Time,
        now: Time,
    ) -> Result<String, String> {
        let Some(ask) = self
            .runoff_asks()
            .into_iter()
            .find(|a| a.game == game && a.day == day)
        else {
            return Err(format!(
                "{game} 第 {day} 天没有等待设定时间的第二轮（第一轮还没截止、没有平票，或已经设定）"
            ));
        };
        if closes_at <= now || closes_at <= ask.after {
            return Err(format!(
                "第二轮截止时间 {} 必须晚于现在（{}）和第一轮截止（{}）",
                closes_at.format("%Y-%m-%d %H:%M"),
                now.format("%m-%d %H:%M"),
                ask.after.format("%m-%d %H:%M")
            ));
        }
        let settings = self.settings();
        let g = settings
            .games
            .iter()
            .find(|g| g.name == game)
            .ok_or_else(|| format!("没有游戏“{game}”"))?;
        let edited =
            crate::io::config_edit::set_runoff(&g.path, day, closes_at, &ask.candidates, now)
                .map_err(|e| e.to_string())?;
        self.ask_reload();
        Ok(format!(
            "第 {day} 天第二轮（{}）截止时间已设为 {}（写入 {}，原文件备份为 {}）",
            ask.candidates.join("、"),
            closes_at.format("%Y-%m-%d %H:%M"),
            g.path.display(),
            edited.backup.display()
        ))
    }
}
