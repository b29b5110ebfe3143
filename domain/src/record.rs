//! The record of what the forum showed: each post's versions as first seen, deletions, the read
//! cursor, and what a read changed. Plain values: `io::store` keeps them in sled, the rules and
//! the daemon's decisions read them.

use bansha_parsers::Post;
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

type Time = DateTime<FixedOffset>;

/// What the record knows of a game under one key (`daemon::identity`): what tells it apart
/// when its name changes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KnownGame {
    /// Its name when it last ran.
    pub name: String,
    /// Every vote thread it has had.
    pub vote_threads: std::collections::BTreeSet<u64>,
    /// Its players when it last ran.
    pub players: std::collections::BTreeSet<String>,
}

/// The stored form of a post (the parser's `Post` is not deserialisable; this mirrors the fields
/// the rules read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredPost {
    pub pid: u64,
    pub tid: u64,
    pub floor: String,
    pub number: Option<u32>,
    pub first: bool,
    pub author: String,
    pub author_uid: Option<u64>,
    pub posted_at: Option<Time>,
    pub precision: String,
    pub edited_at: Option<Time>,
    pub edited_by: Option<String>,
    pub text: String,
    pub quotes: Vec<StoredQuote>,
    pub red_font: bool,
    pub large_font: bool,
    pub blocked: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredQuote {
    pub author: Option<String>,
    pub pid: Option<u64>,
    pub text: String,
}

impl StoredPost {
    pub fn from_post(p: &Post) -> Self {
        StoredPost {
            pid: p.pid,
            tid: p.tid,
            floor: p.floor.clone(),
            number: p.number,
            first: p.first,
            author: p.author.clone(),
            author_uid: p.author_uid,
            posted_at: p.posted_at,
            precision: serde_json::to_value(p.posted_at_precision)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_else(|| "second".into()),
            edited_at: p.edited_at,
            edited_by: p.edited_by.clone(),
            text: p.text.clone(),
            quotes: p
                .quotes
                .iter()
                .map(|q| StoredQuote {
                    author: q.author.clone(),
                    pid: q.pid,
                    text: q.text.clone(),
                })
                .collect(),
            red_font: p.red_font,
            large_font: p.large_font,
            blocked: p.blocked,
        }
    }

    pub fn to_post(&self) -> Post {
        use bansha_parsers::{Quote, TimePrecision};
        Post {
            pid: self.pid,
            tid: self.tid,
            floor: self.floor.clone(),
            number: self.number,
            position: None,
            first: self.first,
            author: self.author.clone(),
            author_uid: self.author_uid,
            posted_at: self.posted_at,
            posted_at_precision: match self.precision.as_str() {
                "minute" => TimePrecision::Minute,
                "hour" => TimePrecision::Hour,
                "day" => TimePrecision::Day,
                _ => TimePrecision::Second,
            },
            edited_at: self.edited_at,
            edited_by: self.edited_by.clone(),
            text: self.text.clone(),
            quotes: self
                .quotes
                .iter()
                .map(|q| Quote {
                    author: q.author.clone(),
                    pid: q.pid,
                    posted_at: None,
                    text: q.text.clone(),
                })
                .collect(),
            red_font: self.red_font,
            large_font: self.large_font,
            blocked: self.blocked,
            hidden_content: false,
            smilies: 0,
            images: 0,
        }
    }

    /// What makes two versions different: what the post says and its edit notice. The floor
    /// shifts when other posts are deleted and is not content.
    pub fn same_content(&self, other: &StoredPost) -> bool {
        self.text == other.text
            && self.quotes == other.quotes
            && self.edited_at == other.edited_at
            && self.blocked == other.blocked
            && self.author == other.author
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Version {
    /// When the daemon first saw this version.
    pub seen_at: Time,
    pub post: StoredPost,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PostRecord {
    pub versions: Vec<Version>,
    /// When a full scan first missed it (deleted, moved to the recycle bin, hidden).
    pub gone_at: Option<Time>,
}

/// What a fetch changed in the record. Kept in the record with the posts it comes from until
/// the cycle has acted on it (`Store::settle`), so a kill between the two loses no mail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Change {
    New {
        pid: u64,
    },
    Edited {
        pid: u64,
        before: Box<StoredPost>,
        after: Box<StoredPost>,
        seen_at: Time,
    },
    Gone {
        pid: u64,
        last: Box<StoredPost>,
        /// The last complete read that still showed it (the read before this one), when known.
        last_seen: Option<Time>,
    },
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Cursor {
    /// The last page number fetched.
    pub last_page: u32,
    pub last_full_scan: Option<Time>,
}

/// Why a page cannot be part of a complete reading of thread `tid`, if it cannot: the read's
/// first page with no post (Discuz serves the last page for a page number past it, and every
/// thread has its first post, so no page it serves is empty), posts of another thread, author names that
/// did not decode (the page's bytes are not in the charset it declared), or most posts' text
/// not decoding. Such a page fails the read: taken as complete, it would make every missing
/// post look deleted, or record the wrong thread's posts as ballots.
pub fn implausible(
    tid: u64,
    page: u32,
    first_of_read: bool,
    p: &bansha_parsers::ThreadPage,
) -> Option<String> {
    if let Some(other) = p.tid.filter(|t| *t != tid) {
        return Some(format!("第 {page} 页是 tid {other} 的页面，不是 tid {tid}"));
    }
    if let Some(post) = p.posts.iter().find(|x| x.tid != tid) {
        return Some(format!(
            "第 {page} 页有 tid {} 的帖子（pid {}），不是 tid {tid}",
            post.tid, post.pid
        ));
    }
    if first_of_read && p.posts.is_empty() {
        return Some(format!("第 {page} 页一个帖子也没有，不像论坛给出的页面"));
    }
    let broken = |s: &str| s.contains('\u{FFFD}');
    if let Some(post) = p.posts.iter().find(|x| broken(&x.author)) {
        return Some(format!(
            "第 {page} 页的作者名无法解码（pid {}，按 {} 读取）：页面声明的编码和实际不符",
            post.pid, p.charset
        ));
    }
    let garbled = p.posts.iter().filter(|x| broken(&x.text)).count();
    if !p.posts.is_empty() && garbled * 2 > p.posts.len() {
        return Some(format!(
            "第 {page} 页 {garbled}/{} 个帖子的内容无法解码（按 {} 读取）：页面声明的编码和实际不符",
            p.posts.len(),
            p.charset
        ));
    }
    None
}

/// What opening the store had to repair (issue 29, item 9): sled's files set aside, the record
/// rebuilt from bansha's own journal, entries sled had lost written back. The judge is told.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StoreRepair {
    /// sled could not open or read its files (its error): the record was rebuilt from the
    /// journal into a fresh store.
    pub rebuilt: Option<String>,
    /// Files moved out of sled's way, relative to the state directory.
    pub set_aside: Vec<String>,
    /// Entries written back from the journal, by kind (the store's tree names): all of them
    /// after a rebuild; otherwise the ones sled had lost after it had said they were on disk.
    pub restored: std::collections::BTreeMap<String, usize>,
    /// Journal lines that failed their checksum (skipped).
    pub damaged_lines: usize,
    /// There was no journal to rebuild from (a store written before it existed): what was lost
    /// is read again from the forum, and mails may go out again.
    pub no_journal: bool,
}

impl StoreRepair {
    /// Whether anything was repaired (a cycle's unfinished tail replayed is not a repair).
    pub fn any(&self) -> bool {
        self.rebuilt.is_some()
            || !self.set_aside.is_empty()
            || !self.restored.is_empty()
            || self.damaged_lines > 0
    }
}
