//! The daemon's durable record (the only module that touches sled): every version of every post
//! it has seen, fetch cursors, phase events done, and the mail outbox.
//!
//! Durability: a write the daemon acts on (an enqueued mail, a post version, an event marked
//! done) is flushed before the daemon goes on, so a kill -9 loses nothing acknowledged.

use crate::domain::mail::Mail;
use crate::domain::record::{Change, Cursor, PostRecord, StoredPost, Version};
use bansha_parsers::Post;
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};
use std::path::Path;

type Time = DateTime<FixedOffset>;

#[derive(Debug)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "store: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

impl From<sled::Error> for StoreError {
    fn from(e: sled::Error) -> Self {
        StoreError(e.to_string())
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError(format!("corrupt record: {e}"))
    }
}

/// Separates a mail's key from a recipient in the per-recipient marks of a mail sent to several
/// addresses (`KEY\u{1f}ADDRESS`): each recipient is marked done, through the journal, as the
/// server accepts or refuses it.
pub const PART: u8 = 0x1f;

/// The sent-log key of one recipient of a mail.
pub fn part_key(key: &str, recipient: &str) -> String {
    format!("{key}{}{recipient}", PART as char)
}

/// One entry of `Store::dump`: tree, key, value.
pub type DumpEntry = (String, Vec<u8>, Vec<u8>);

pub struct Store {
    db: sled::Db,
    posts: sled::Tree,
    cursors: sled::Tree,
    events: sled::Tree,
    outbox: sled::Tree,
    sent: sled::Tree,
    meta: sled::Tree,
    ledger: sled::Tree,
    /// `sent.journal`: one line per mail the SMTP server accepted, appended the moment it says
    /// so. A write to the page cache survives the process being killed where sled's flush may
    /// not have run yet; replayed into `sent` at the next open.
    journal: std::sync::Mutex<Journal>,
}

/// The sent journal and where its next line goes (written at an offset, not appended, so a
/// reserved line can be completed in place).
struct Journal {
    file: std::fs::File,
    end: u64,
}

/// A line reserved in the sent journal for a mail about to go out (`Store::reserve_sent`):
/// completing it overwrites one byte the disk already holds, so a mail the server accepts can
/// always be marked, full disk or not.
#[must_use]
pub struct Reserved {
    key: String,
    at: Time,
    offset: u64,
}

fn post_key(tid: u64, pid: u64) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&tid.to_be_bytes());
    k[8..].copy_from_slice(&pid.to_be_bytes());
    k
}

impl Store {
    /// Open (or create) the store in `dir`. Fails with a clear message when another process
    /// holds it.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| StoreError(format!("{}: {e}", dir.display())))?;
        // A game's record is a few MB; sled's default page cache (1 GiB) would only let the idle
        // daemon grow. 1 MiB: the file's pages are in the system's cache anyway, and a cycle
        // reads a day's record once.
        //
        // Memory to know about: sled 0.34 allocates its metrics histograms (41 × 512 KiB) even
        // with metrics off. They stay out of RSS only because the optimiser turns their
        // zero-fill into `calloc`. Building sled at `opt-level = "s"` put the idle daemon's
        // anonymous memory at 36 MB instead of 16 (benches/figures.rs, the idle figure), so keep
        // sled at full optimisation.
        let db = sled::Config::new()
            .path(dir.join("db"))
            .cache_capacity(1024 * 1024)
            .open()
            .map_err(|e| match e {
                // The record's lock is held: another daemon (or `demo`) has it open.
                sled::Error::Io(ref io)
                    if io.kind() == std::io::ErrorKind::WouldBlock
                        || io.raw_os_error() == Some(11)
                        || io.to_string().contains("lock") =>
                {
                    StoreError(format!(
                        "记录目录 {} 正被另一个 bansha 进程使用（同一份记录只能由一个守护进程打开：先停掉另一个，例如 systemctl stop bansha，或给这个进程换一个 state_dir）",
                        dir.display()
                    ))
                }
                other => StoreError(other.to_string()),
            })?;
        let journal_path = dir.join("sent.journal");
        let io = |e: std::io::Error| StoreError(format!("{}: {e}", journal_path.display()));
        let store = Store {
            posts: db.open_tree("posts")?,
            cursors: db.open_tree("cursors")?,
            events: db.open_tree("events")?,
            outbox: db.open_tree("outbox")?,
            sent: db.open_tree("sent")?,
            meta: db.open_tree("meta")?,
            ledger: db.open_tree("ledger")?,
            db,
            journal: std::sync::Mutex::new(Journal {
                file: std::fs::OpenOptions::new()
                    .create(true)
                    .truncate(false)
                    .read(true)
                    .write(true)
                    .open(&journal_path)
                    .map_err(io)?,
                end: 0,
            }),
        };
        // Mails accepted by the server after the last flush of the record: sent, not to be
        // sent again. A torn last line (the process died inside the write) is skipped: its
        // mail was not marked, so at worst it goes out twice.
        // Read as bytes: a torn line may end inside a character, and is skipped like any other
        // line that does not parse.
        let lines = std::fs::read(&journal_path).map_err(io)?;
        let mut replayed = 0;
        for line in lines.split(|b| *b == b'\n') {
            // `?…`: reserved, and the server's acceptance never recorded (at worst the mail
            // goes out twice, as it must when the process died inside that window); `!…`: a
            // reserved line completed; a bare line: marked in one write.
            let line = match line.first() {
                Some(b'?') => continue,
                Some(b'!') => &line[1..],
                _ => line,
            };
            if let Ok((key, at)) = serde_json::from_slice::<(String, Time)>(line) {
                if !store.sent.contains_key(&key)? {
                    store.sent.insert(key.as_str(), serde_json::to_vec(&at)?)?;
                    store.outbox.remove(key.as_str())?;
                    replayed += 1;
                }
            }
        }
        if !lines.is_empty() {
            store.db.flush()?;
            store
                .journal
                .lock()
                .map_err(|_| StoreError("sent journal lock poisoned".into()))?
                .file
                .set_len(0)
                .map_err(io)?;
            if replayed > 0 {
                crate::io::log::line(&format!(
                    "store: {replayed} mails the server had accepted before the last stop are marked sent"
                ));
            }
        }
        Ok(store)
    }

    /// Every entry of every tree but the meta entries named in `skip`, in key order: two stores
    /// compare equal when they hold the same record (the crash-safety test).
    pub fn dump(&self, skip: &[&str]) -> Result<Vec<DumpEntry>, StoreError> {
        let mut out = Vec::new();
        for (name, tree) in [
            ("posts", &self.posts),
            ("cursors", &self.cursors),
            ("events", &self.events),
            ("outbox", &self.outbox),
            ("sent", &self.sent),
            ("meta", &self.meta),
            ("ledger", &self.ledger),
        ] {
            for kv in tree.iter() {
                let (k, v) = kv?;
                if name == "meta" && skip.iter().any(|s| k.as_ref() == s.as_bytes()) {
                    continue;
                }
                out.push((name.to_string(), k.to_vec(), v.to_vec()));
            }
        }
        Ok(out)
    }

    /// Make everything written so far durable, from synchronous code.
    pub fn flush_blocking(&self) -> Result<(), StoreError> {
        self.db.flush()?;
        Ok(())
    }

    /// Make everything written so far durable.
    pub async fn flush(&self) -> Result<(), StoreError> {
        self.db.flush_async().await?;
        Ok(())
    }

    /// Record the posts of a fetched page set. `full` says the pages cover the whole thread, so
    /// a known post missing from them is gone.
    pub fn record(
        &self,
        tid: u64,
        posts: &[Post],
        seen_at: Time,
        full: bool,
    ) -> Result<Vec<Change>, StoreError> {
        let mut changes = Vec::new();
        let mut present = std::collections::BTreeSet::new();
        for p in posts {
            present.insert(p.pid);
            let key = post_key(tid, p.pid);
            let now = StoredPost::from_post(p);
            let mut rec: PostRecord = match self.posts.get(key)? {
                Some(v) => serde_json::from_slice(&v)?,
                None => {
                    changes.push(Change::New { pid: p.pid });
                    PostRecord {
                        versions: Vec::new(),
                        gone_at: None,
                    }
                }
            };
            let last = rec.versions.last().map(|v| v.post.clone());
            match last {
                Some(last) if last.same_content(&now) => {
                    // Floors drift; keep the latest without calling it a version.
                    if last.floor != now.floor {
                        if let Some(v) = rec.versions.last_mut() {
                            v.post.floor = now.floor.clone();
                            v.post.number = now.number;
                        }
                    } else if rec.gone_at.is_none() {
                        continue;
                    }
                }
                Some(last) => {
                    changes.push(Change::Edited {
                        pid: p.pid,
                        before: Box::new(last),
                        after: Box::new(now.clone()),
                        seen_at,
                    });
                    rec.versions.push(Version { seen_at, post: now });
                }
                None => rec.versions.push(Version { seen_at, post: now }),
            }
            rec.gone_at = None;
            self.posts.insert(key, serde_json::to_vec(&rec)?)?;
        }
        if full {
            for item in self.posts.scan_prefix(tid.to_be_bytes()) {
                let (k, v) = item?;
                let mut rec: PostRecord = serde_json::from_slice(&v)?;
                let pid = u64::from_be_bytes(k[8..16].try_into().expect("16-byte key"));
                if !present.contains(&pid) && rec.gone_at.is_none() {
                    rec.gone_at = Some(seen_at);
                    if let Some(last) = rec.versions.last() {
                        changes.push(Change::Gone {
                            pid,
                            last: Box::new(last.post.clone()),
                            last_seen: None,
                        });
                    }
                    self.posts.insert(k, serde_json::to_vec(&rec)?)?;
                }
            }
        }
        Ok(changes)
    }

    /// One post's record.
    pub fn post_record(&self, tid: u64, pid: u64) -> Result<Option<PostRecord>, StoreError> {
        Ok(match self.posts.get(post_key(tid, pid))? {
            Some(v) => Some(serde_json::from_slice(&v)?),
            None => None,
        })
    }

    /// Every post record of a thread, by pid.
    pub fn records(&self, tid: u64) -> Result<Vec<PostRecord>, StoreError> {
        let mut out = Vec::new();
        for item in self.posts.scan_prefix(tid.to_be_bytes()) {
            let (_, v) = item?;
            out.push(serde_json::from_slice(&v)?);
        }
        Ok(out)
    }

    /// When the thread's first post (its lowest pid recorded with a time: the opening post)
    /// was posted, if the record has it.
    pub fn first_posted_at(&self, tid: u64) -> Result<Option<Time>, StoreError> {
        for item in self.posts.scan_prefix(tid.to_be_bytes()) {
            let (_, v) = item?;
            let rec: PostRecord = serde_json::from_slice(&v)?;
            if let Some(t) = rec.versions.first().and_then(|v| v.post.posted_at) {
                return Ok(Some(t));
            }
        }
        Ok(None)
    }

    /// The thread as it stood at `t`: for each post, the last version seen at or before `t`;
    /// a post first seen after `t` in its first version (so a late ballot is judged late, and an
    /// edit after `t` is not applied). Posts gone before `t` are left out.
    pub fn posts_as_of(&self, tid: u64, t: Time) -> Result<Vec<Post>, StoreError> {
        self.posts_read_at(tid, t, t)
    }

    /// The posts as they stood at the close `t`, as the close's own read at `read_at` found the
    /// thread: a post that read no longer showed is not counted at the close (a deletion is only
    /// noticed by a complete read, so one in the last hour would otherwise still count).
    pub fn posts_at_close(
        &self,
        tid: u64,
        t: Time,
        read_at: Time,
    ) -> Result<Vec<Post>, StoreError> {
        self.posts_read_at(tid, t, read_at.max(t))
    }

    /// Each post's version as of `t`, leaving out those gone by `gone_by`.
    fn posts_read_at(&self, tid: u64, t: Time, gone_by: Time) -> Result<Vec<Post>, StoreError> {
        let mut out = Vec::new();
        for rec in self.records(tid)? {
            if rec.gone_at.is_some_and(|g| g <= gone_by) {
                continue;
            }
            // The text at `t`: the last version seen by then, or one first seen later whose
            // edit notice (the forum's own time) says it was written by then. An edit notice
            // inside the minute of `t` picks that version too; the tally then finds the edit
            // "at or after the close" and says the text at the close cannot be known.
            let v = rec
                .versions
                .iter()
                .rev()
                .find(|v| v.seen_at <= t || v.post.edited_at.is_some_and(|e| e <= t))
                .or_else(|| rec.versions.first());
            if let Some(v) = v {
                out.push(v.post.to_post());
            }
        }
        Ok(out)
    }

    pub fn cursor(&self, tid: u64) -> Result<Cursor, StoreError> {
        Ok(match self.cursors.get(tid.to_be_bytes())? {
            Some(v) => serde_json::from_slice(&v)?,
            None => Cursor::default(),
        })
    }

    pub fn set_cursor(&self, tid: u64, c: &Cursor) -> Result<(), StoreError> {
        self.cursors
            .insert(tid.to_be_bytes(), serde_json::to_vec(c)?)?;
        Ok(())
    }

    pub fn event_done(&self, key: &str) -> Result<bool, StoreError> {
        Ok(self.events.contains_key(key)?)
    }

    pub fn mark_event(&self, key: &str, at: Time) -> Result<(), StoreError> {
        self.events.insert(key, serde_json::to_vec(&at)?)?;
        Ok(())
    }

    /// Queue a mail under an idempotent key; false if that key was queued or sent before.
    /// A mail with this key is queued or was sent.
    pub fn mail_known(&self, key: &str) -> Result<bool, StoreError> {
        Ok(self.sent.contains_key(key)?
            || self.outbox.contains_key(key)?
            || self.meta.contains_key(format!("covered/{key}"))?)
    }

    /// Mark the mail `key` as told by another one (a digest): it is not queued on its own.
    pub fn cover(&self, key: &str) -> Result<(), StoreError> {
        self.meta.insert(format!("covered/{key}"), b"1".to_vec())?;
        Ok(())
    }

    pub fn enqueue(&self, key: &str, mail: &Mail) -> Result<bool, StoreError> {
        if self.sent.contains_key(key)? {
            return Ok(false);
        }
        let r = self.outbox.compare_and_swap(
            key,
            None as Option<&[u8]>,
            Some(serde_json::to_vec(mail)?),
        )?;
        Ok(r.is_ok())
    }

    /// Queued mails, oldest first.
    pub fn outbox(&self) -> Result<Vec<(String, Mail)>, StoreError> {
        let mut out = Vec::new();
        for item in self.outbox.iter() {
            let (k, v) = item?;
            out.push((
                String::from_utf8_lossy(&k).into_owned(),
                serde_json::from_slice::<Mail>(&v)?,
            ));
        }
        out.sort_by_key(|(k, m)| (m.created_at, k.clone()));
        Ok(out)
    }

    /// The SMTP server accepted the mail: move it from the outbox to the sent log.
    pub fn mark_sent(&self, key: &str, at: Time) -> Result<(), StoreError> {
        let mut line = serde_json::to_string(&(key, at))?;
        line.push('\n');
        self.journal_write(line.as_bytes())?;
        self.sent.insert(key, serde_json::to_vec(&at)?)?;
        self.outbox.remove(key)?;
        Ok(())
    }

    /// Before a mail goes to the server: a line in the journal that `confirm_sent` completes
    /// once the server accepts it. Fails when the disk cannot take the line, and then the mail
    /// must not go: it could not be marked sent, and would go again at every cycle.
    pub fn reserve_sent(&self, key: &str, at: Time) -> Result<Reserved, StoreError> {
        let mut line = b"?".to_vec();
        line.extend(serde_json::to_vec(&(key, at))?);
        line.push(b'\n');
        let offset = self.journal_write(&line)?;
        Ok(Reserved {
            key: key.to_string(),
            at,
            offset,
        })
    }

    /// The server accepted a reserved mail: its journal line completed in place (one byte the
    /// disk already holds), then the record.
    pub fn confirm_sent(&self, r: Reserved) -> Result<(), StoreError> {
        use std::os::unix::fs::FileExt;
        self.journal
            .lock()
            .map_err(|_| StoreError("sent journal lock poisoned".into()))?
            .file
            .write_all_at(b"!", r.offset)
            .map_err(|e| StoreError(format!("sent.journal: {e}")))?;
        self.sent
            .insert(r.key.as_str(), serde_json::to_vec(&r.at)?)?;
        self.outbox.remove(r.key.as_str())?;
        Ok(())
    }

    /// Write a whole line at the journal's end; where it starts. A line the disk took only in
    /// part is overwritten by the next.
    fn journal_write(&self, line: &[u8]) -> Result<u64, StoreError> {
        use std::os::unix::fs::FileExt;
        let mut j = self
            .journal
            .lock()
            .map_err(|_| StoreError("sent journal lock poisoned".into()))?;
        let at = j.end;
        j.file
            .write_all_at(line, at)
            .map_err(|e| StoreError(format!("sent.journal: {e}")))?;
        j.end += line.len() as u64;
        Ok(at)
    }

    /// Mails sent (or set aside as refused), not counting the per-recipient marks of a mail to
    /// several addresses.
    pub fn sent_count(&self) -> usize {
        self.sent
            .iter()
            .keys()
            .filter(|k| k.as_ref().is_ok_and(|k| !k.contains(&PART)))
            .count()
    }

    /// Whether a key is in the sent log.
    pub fn is_sent(&self, key: &str) -> Result<bool, StoreError> {
        Ok(self.sent.contains_key(key)?)
    }

    pub fn get_meta<T: for<'de> Deserialize<'de>>(
        &self,
        key: &str,
    ) -> Result<Option<T>, StoreError> {
        Ok(match self.meta.get(key)? {
            Some(v) => Some(serde_json::from_slice(&v)?),
            None => None,
        })
    }

    pub fn set_meta<T: Serialize>(&self, key: &str, value: &T) -> Result<(), StoreError> {
        self.meta.insert(key, serde_json::to_vec(value)?)?;
        Ok(())
    }

    /// Add a ledger entry under its id; false if that id exists (automatic entries are
    /// idempotent).
    pub fn ledger_add(
        &self,
        game: &str,
        entry: &crate::domain::rules::ledger::Entry,
    ) -> Result<bool, StoreError> {
        let key = format!("{game}/{}", entry.id);
        let r = self.ledger.compare_and_swap(
            key,
            None as Option<&[u8]>,
            Some(serde_json::to_vec(entry)?),
        )?;
        Ok(r.is_ok())
    }

    /// Write a ledger entry under its id, over what is there (a recount's withdrawal or
    /// return, `ledger::recount`).
    pub fn ledger_put(
        &self,
        game: &str,
        entry: &crate::domain::rules::ledger::Entry,
    ) -> Result<(), StoreError> {
        self.ledger
            .insert(format!("{game}/{}", entry.id), serde_json::to_vec(entry)?)?;
        Ok(())
    }

    /// A game's ledger entries, in the order they were added.
    pub fn ledger(
        &self,
        game: &str,
    ) -> Result<Vec<crate::domain::rules::ledger::Entry>, StoreError> {
        let mut out: Vec<crate::domain::rules::ledger::Entry> = Vec::new();
        for item in self.ledger.scan_prefix(format!("{game}/")) {
            let (_, v) = item?;
            out.push(serde_json::from_slice(&v)?);
        }
        out.sort_by(|a, b| (a.at.as_str(), a.id.as_str()).cmp(&(b.at.as_str(), b.id.as_str())));
        Ok(out)
    }

    /// Strike an entry out (it stays, marked); false if there is no such id.
    pub fn ledger_remove(&self, game: &str, id: &str) -> Result<bool, StoreError> {
        let key = format!("{game}/{id}");
        let Some(v) = self.ledger.get(&key)? else {
            return Ok(false);
        };
        let mut e: crate::domain::rules::ledger::Entry = serde_json::from_slice(&v)?;
        e.removed = true;
        self.ledger.insert(key, serde_json::to_vec(&e)?)?;
        Ok(true)
    }

    pub fn remove_meta(&self, key: &str) -> Result<(), StoreError> {
        self.meta.remove(key)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> Time {
        DateTime::parse_from_rfc3339("2026-11-29T21:00:05+08:00").unwrap()
    }

    /// Open the store again in the same process: sled's background flusher of the store just
    /// dropped may still hold the directory's lock for a moment (a restarted process has no
    /// such wait: the dead one holds nothing).
    fn reopen(dir: &Path) -> Result<Store, StoreError> {
        let mut last = None;
        for _ in 0..100 {
            match Store::open(dir) {
                Ok(s) => return Ok(s),
                Err(e) if e.0.contains("could not acquire lock") => {
                    last = Some(e);
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                Err(e) => return Err(e),
            }
        }
        Err(last.expect("tried"))
    }

    #[test]
    fn a_mail_the_journal_calls_sent_is_not_sent_again() {
        let dir = tempfile::tempdir().unwrap();
        let mail = Mail::text("主题".into(), "正文".into(), at());
        {
            let store = Store::open(dir.path()).unwrap();
            assert!(store.enqueue("close/g/2", &mail).unwrap());
            assert!(store.enqueue("lurk/g/2", &mail).unwrap());
            store.flush_blocking().unwrap();
        }
        // The server accepted close/g/2 and the process died before sled flushed: only the
        // journal line made it (plus a torn line from a write cut short).
        std::fs::write(
            dir.path().join("sent.journal"),
            format!(
                "{}\n[\"lurk/g",
                serde_json::to_string(&("close/g/2", at())).unwrap()
            ),
        )
        .unwrap();
        let store = reopen(dir.path()).unwrap();
        let outbox: Vec<String> = store.outbox().unwrap().into_iter().map(|m| m.0).collect();
        assert_eq!(outbox, ["lurk/g/2"]);
        assert!(!store.enqueue("close/g/2", &mail).unwrap(), "sent already");
        assert_eq!(
            std::fs::metadata(dir.path().join("sent.journal"))
                .unwrap()
                .len(),
            0,
            "merged into the record and emptied"
        );
        // Marking writes the journal first.
        store.mark_sent("lurk/g/2", at()).unwrap();
        let journal = std::fs::read_to_string(dir.path().join("sent.journal")).unwrap();
        assert!(journal.contains("lurk/g/2"), "{journal}");
    }

    #[test]
    fn a_reserved_mail_counts_as_sent_only_once_confirmed() {
        let dir = tempfile::tempdir().unwrap();
        let mail = Mail::text("主题".into(), "正文".into(), at());
        {
            let store = Store::open(dir.path()).unwrap();
            assert!(store.enqueue("void/g/2/7", &mail).unwrap());
            assert!(store.enqueue("void/g/2/11", &mail).unwrap());
            assert!(store.enqueue("void/g/2/12", &mail).unwrap());
            store.flush_blocking().unwrap();
            let a = store.reserve_sent("void/g/2/7", at()).unwrap();
            let _b = store.reserve_sent("void/g/2/11", at()).unwrap();
            // The server took the first; the process died before the second's answer.
            let journal = dir.path().join("sent.journal");
            let len = std::fs::metadata(&journal).unwrap().len();
            store.confirm_sent(a).unwrap();
            assert_eq!(
                std::fs::metadata(&journal).unwrap().len(),
                len,
                "completing a reserved line takes no more room"
            );
        }
        // A third, reserved and completed, that sled never heard of.
        let journal = dir.path().join("sent.journal");
        let mut text = std::fs::read(&journal).unwrap();
        text.extend(b"!");
        text.extend(serde_json::to_vec(&("void/g/2/12", at())).unwrap());
        text.extend(b"\n");
        std::fs::write(&journal, text).unwrap();
        let store = reopen(dir.path()).unwrap();
        let outbox: Vec<String> = store.outbox().unwrap().into_iter().map(|m| m.0).collect();
        assert_eq!(
            outbox,
            ["void/g/2/11"],
            "reserved, never confirmed: not sent"
        );
        assert!(store.is_sent("void/g/2/7").unwrap());
        assert!(store.is_sent("void/g/2/12").unwrap());
    }

    #[test]
    fn a_journal_torn_inside_a_character_is_read_to_its_last_whole_line() {
        // Keys carry game names, so a line is often Chinese; a kill inside the write can cut a
        // character's bytes in half (issue 18, break 8).
        let dir = tempfile::tempdir().unwrap();
        let mail = Mail::text("主题".into(), "正文".into(), at());
        {
            let store = Store::open(dir.path()).unwrap();
            assert!(store.enqueue("close/版杀一室/2", &mail).unwrap());
            assert!(store.enqueue("lurk/版杀一室/2", &mail).unwrap());
            store.flush_blocking().unwrap();
        }
        let whole = serde_json::to_string(&("close/版杀一室/2", at())).unwrap();
        let torn = serde_json::to_string(&("lurk/版杀一室/2", at())).unwrap();
        let cut = torn.find('版').unwrap() + 1; // one byte into a three-byte character
        let mut bytes = format!("{whole}\n").into_bytes();
        bytes.extend_from_slice(&torn.as_bytes()[..cut]);
        assert!(std::str::from_utf8(&bytes).is_err());
        std::fs::write(dir.path().join("sent.journal"), bytes).unwrap();
        let store = reopen(dir.path()).expect("a torn journal does not stop the daemon");
        let outbox: Vec<String> = store.outbox().unwrap().into_iter().map(|m| m.0).collect();
        assert_eq!(
            outbox,
            ["lurk/版杀一室/2"],
            "the whole line counts, the torn one not"
        );
    }
}
