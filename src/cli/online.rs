//! What the offline commands share when told to read the forum now (`tally --fetch`,
//! `lurk --fetch`, `check-post --fetch`): the daemon config loaded, one game chosen, the forum
//! client (logged in when configured, paced as the daemon paces its reads), and whole threads
//! read page by page. No daemon, no record: nothing is stored or mailed.

use crate::domain::config::GameConfig;
use crate::io::forum::{FetchError, Forum};
use bansha_parsers::{Post, ThreadPage};
use chrono::{DateTime, FixedOffset};
use std::io::Write;
use std::path::Path;

pub struct Online {
    pub game: GameConfig,
    forum: Forum,
    rt: tokio::runtime::Runtime,
}

/// A thread as read now: its pages' posts once each, and the forum's newest clock.
pub struct ReadThread {
    pub tid: u64,
    pub pages: usize,
    pub posts: Vec<Post>,
    pub server_time: Option<DateTime<FixedOffset>>,
}

impl Online {
    /// Load the daemon config at `config` and pick the game named `game_name` (the first when
    /// none), with the judge's state file applied. `Err(code)` after the error was written.
    pub fn open(
        config: &Path,
        game_name: Option<&str>,
        err: &mut dyn Write,
    ) -> anyhow::Result<Result<Online, i32>> {
        let settings = match crate::io::files::load_settings(config) {
            Ok(s) => s,
            Err(e) => {
                writeln!(err, "配置错误：{e}")?;
                return Ok(Err(2));
            }
        };
        let Some(game) = settings
            .games
            .iter()
            .find(|g| game_name.is_none_or(|n| g.name == n || g.id == n))
            .cloned()
        else {
            let names: Vec<&str> = settings.games.iter().map(|g| g.name.as_str()).collect();
            writeln!(
                err,
                "错误：--game：配置中没有名为 {} 的游戏；有：{}",
                game_name.unwrap_or(""),
                names.join("、")
            )?;
            return Ok(Err(2));
        };
        let game = crate::io::state_file::with_state(&game)?;
        let forum = match Forum::new(&settings.forum, settings.login.clone(), game.utc_offset) {
            Ok(f) => f,
            Err(e) => {
                writeln!(err, "配置错误：forum：{e}")?;
                return Ok(Err(2));
            }
        };
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        Ok(Ok(Online { game, forum, rt }))
    }

    /// Every page of thread `tid`, or until `stop` says the page read is enough.
    pub fn thread_until(
        &self,
        tid: u64,
        stop: impl Fn(&ThreadPage) -> bool,
    ) -> Result<ReadThread, FetchError> {
        self.rt.block_on(async {
            let mut read = ReadThread {
                tid,
                pages: 0,
                posts: Vec::new(),
                server_time: None,
            };
            let mut page = 1;
            loop {
                let p = self.forum.thread_page(tid, page).await?;
                read.pages += 1;
                read.server_time = read.server_time.max(p.server_time);
                for post in &p.posts {
                    if !read.posts.iter().any(|x| x.pid == post.pid) {
                        read.posts.push(post.clone());
                    }
                }
                let last = p.last_page.unwrap_or(1).max(1);
                if stop(&p) || page >= last {
                    return Ok(read);
                }
                page += 1;
            }
        })
    }

    /// Every page of thread `tid`.
    pub fn thread(&self, tid: u64) -> Result<ReadThread, FetchError> {
        self.thread_until(tid, |_| false)
    }

    /// A board's list of threads (who opened which thread when).
    pub fn board(&self, fid: u64) -> Result<bansha_parsers::threadlist::ThreadList, FetchError> {
        self.rt.block_on(self.forum.thread_list(fid))
    }

    /// The forum's time as the pages read show it, else the machine's.
    pub fn now(&self, read: &[&ReadThread]) -> DateTime<FixedOffset> {
        read.iter()
            .filter_map(|r| r.server_time)
            .max()
            .unwrap_or_else(|| {
                crate::io::clock::Clock::now(&crate::io::clock::SystemClock(self.game.utc_offset))
            })
    }

    /// Read thread `tid` whole, saying so on `err`; `Err(1)` after the failure was written.
    pub fn read_said(
        &self,
        tid: u64,
        what: &str,
        err: &mut dyn Write,
    ) -> anyhow::Result<Result<ReadThread, i32>> {
        match self.thread(tid) {
            Ok(r) => {
                writeln!(
                    err,
                    "已从论坛读取{what} tid {tid}：{} 页，{} 帖",
                    r.pages,
                    r.posts.len()
                )?;
                Ok(Ok(r))
            }
            Err(e) => {
                writeln!(err, "错误：读取{what} tid {tid} 失败：{e}")?;
                Ok(Err(1))
            }
        }
    }
}
