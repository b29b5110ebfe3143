//! Posting the tally to the vote thread as the judge's reply, from the dashboard's button
//! (`[forum] post_tally = "button"`): only the BBCode the judge was shown, only while it is the
//! current tally, once per text, and known to have gone through only when the reply is read
//! back from the thread.

use crate::daemon::Daemon;
use crate::domain::reply::{find_reply, PostedTally};
use crate::domain::settings::PostTally;
use chrono::{DateTime, FixedOffset};
use std::collections::BTreeSet;

type Time = DateTime<FixedOffset>;

/// Why a tally was not posted, in Chinese, and whether the judge's request or the forum is at
/// fault.
pub enum PostError {
    /// Not allowed or not current: the judge's request (HTTP 4xx).
    Refused(u16, String),
    /// The forum did not take it, or it cannot be found there (HTTP 502).
    Forum(String),
}

impl Daemon {
    /// The record key of the tallies posted for a game.
    fn posted_key(game_id: &str) -> String {
        format!("posted_tallies/{game_id}")
    }

    /// The tallies posted from the dashboard for game `game_id`.
    pub fn posted_tallies(&self, game_id: &str) -> Vec<PostedTally> {
        self.store
            .get_meta(&Self::posted_key(game_id))
            .ok()
            .flatten()
            .unwrap_or_default()
    }

    /// Post day `day`'s tally of game `game` to its vote thread, if `shown` is the BBCode the
    /// dashboard shows for it now.
    pub async fn post_tally(
        &self,
        game: &str,
        day: u32,
        shown: &str,
        now: Time,
    ) -> Result<PostedTally, PostError> {
        if self.settings().forum.post_tally == PostTally::Off {
            return Err(PostError::Refused(
                403,
                "没有开启发帖：在守护进程配置的 [forum] 写 post_tally = \"button\"".into(),
            ));
        }
        let settings = self.settings();
        let Some(login) = settings.login.as_ref() else {
            return Err(PostError::Refused(
                403,
                "没有配置法官账号 [forum.login]".into(),
            ));
        };
        let Some(view) = self
            .views()
            .into_iter()
            .find(|v| v.game.name == game && v.day.day == day)
        else {
            return Err(PostError::Refused(404, format!("{game} 第{day}天没有统计")));
        };
        let Some(tid) = view.day.vote_thread else {
            return Err(PostError::Refused(404, format!("第{day}天没有投票帖")));
        };
        let current = crate::present::bbcode::tally(&view.game, &view.tally);
        if current != shown {
            return Err(PostError::Refused(
                409,
                "统计已经更新：请刷新页面，看过新的统计再发".into(),
            ));
        }
        let key = Self::posted_key(&view.game.id);
        let mut posted = self.posted_tallies(&view.game.id);
        if let Some(p) = posted.iter().find(|p| p.day == day && p.bbcode == current) {
            return Err(PostError::Refused(
                409,
                format!("这份统计已经发过（{} {}，pid {}）", p.at, p.floor, p.pid),
            ));
        }
        let forum = |e: crate::io::forum::FetchError| PostError::Forum(e.zh());
        // The posts there before, so the reply is told from an earlier one with the same text.
        let before = self.last_posts(tid).await.map_err(forum)?;
        let known: BTreeSet<u64> = before.iter().map(|p| p.pid).collect();
        let answer = self.forum.post_reply(tid, &current).await.map_err(forum)?;
        let after = self.last_posts(tid).await.map_err(forum)?;
        let Some(reply) = find_reply(&after, &login.username, &current, &known) else {
            return Err(PostError::Forum(format!(
                "论坛没有显示这条回复（论坛的回答：{}）；请到投票帖看一下，需要时手动粘贴",
                if answer.is_empty() { "无" } else { &answer }
            )));
        };
        let entry = PostedTally {
            day,
            pid: reply.pid,
            floor: reply.floor.clone(),
            at: now.format("%Y-%m-%d %H:%M:%S").to_string(),
            bbcode: current,
        };
        posted.push(entry.clone());
        // Kept before answering: a second click finds it even if the service stops now.
        let kept = self
            .store
            .set_meta(&key, &posted)
            .and(self.store.flush_blocking());
        if let Err(e) = kept {
            crate::io::log::line(&format!(
                "发帖：tid {tid}：已发出（pid {}），但没能记入记录：{e}",
                entry.pid
            ));
        }
        crate::io::log::line(&format!(
            "发帖：{game} 第 {day} 天：计票已发到 tid {tid}（pid {}）",
            entry.pid
        ));
        Ok(entry)
    }

    /// The posts of a thread's last page (and of the page before, where a new reply may have
    /// moved the last page on).
    async fn last_posts(
        &self,
        tid: u64,
    ) -> Result<Vec<bansha_parsers::Post>, crate::io::forum::FetchError> {
        let first = self.forum.thread_page(tid, 1).await?;
        let last = first.last_page.unwrap_or(1).max(1);
        let mut posts = first.posts;
        for page in last.saturating_sub(1).max(2)..=last {
            posts.extend(self.forum.thread_page(tid, page).await?.posts);
        }
        Ok(posts)
    }
}
