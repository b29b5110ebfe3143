//! `record.journal`: bansha's own copy of every write it makes to sled, so the record does not
//! depend on sled surviving a kill (issue 29, item 9; spacejam/sled #1527, #1509).
//!
//! Format, version 1: JSON lines, each prefixed by the CRC-32 of its JSON (8 hex digits and a
//! space). The first line is the header (`{"journal":"bansha-record","version":1,"snapshot":N}`);
//! the N lines after it are the record as it stood when the journal was last rewritten (one put
//! per entry); every line after them is one write, in the order it was made:
//!
//! - a put: `{"t":TREE,"k":KEY,"v":VALUE}` (the value is the JSON sled holds, verbatim; a key
//!   that is not UTF-8 is `"x":HEX`, a value that is not one line of JSON is `"h":HEX`);
//! - a removal: the same without a value;
//! - a flush mark `{"flushed":OFFSET}`: sled had made durable every write whose line starts
//!   before OFFSET (what the daemon acknowledged; writes after it are a cycle's unfinished tail).
//!
//! A line is written whole at the journal's end before sled is told of it (a kill after that
//! leaves it in the page cache; the daemon's flush fsyncs it before sled's). A last line cut
//! short, or failing its checksum, is a write the kill interrupted: ignored, and overwritten by
//! the next. A bad line with good lines after it is damage: skipped and counted.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

pub const VERSION: u32 = 1;
const NAME: &str = "bansha-record";

/// A journal longer than this beyond twice its snapshot is rewritten (`wants_rewrite`).
const SLACK: u64 = 4 << 20;

/// One write: `value` put under `key` in `tree`, or (None) the key removed.
#[derive(Debug, Clone, PartialEq)]
pub struct Op {
    pub tree: &'static str,
    pub key: Vec<u8>,
    pub value: Option<Vec<u8>>,
}

#[derive(Serialize, Deserialize)]
struct Header<'a> {
    journal: Cow<'a, str>,
    version: u32,
    snapshot: u64,
}

#[derive(Serialize, Deserialize, Default)]
struct Line<'a> {
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    t: Option<Cow<'a, str>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    k: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    x: Option<String>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    v: Option<&'a RawValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    h: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    flushed: Option<u64>,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Append one line (checksum, space, JSON, newline) to `out`.
fn push_line<T: Serialize>(out: &mut Vec<u8>, line: &T) {
    let json = serde_json::to_vec(line).expect("journal lines serialize");
    out.extend_from_slice(format!("{:08x} ", crc32fast::hash(&json)).as_bytes());
    out.extend_from_slice(&json);
    out.push(b'\n');
}

/// Append the line of one write to `out`.
pub fn encode(out: &mut Vec<u8>, op: &Op) {
    let mut line = Line {
        t: Some(Cow::Borrowed(op.tree)),
        ..Line::default()
    };
    match std::str::from_utf8(&op.key) {
        Ok(k) => line.k = Some(Cow::Borrowed(k)),
        Err(_) => line.x = Some(hex(&op.key)),
    }
    if let Some(v) = &op.value {
        // Verbatim when it is one line of JSON exactly (what serde_json writes), so the journal
        // reads as the record does and gives sled back the same bytes.
        match serde_json::from_slice::<&RawValue>(v) {
            Ok(raw) if raw.get().len() == v.len() && !v.contains(&b'\n') => line.v = Some(raw),
            _ => line.h = Some(hex(v)),
        }
    }
    push_line(out, &line);
}

/// What a key went through in the journal.
#[derive(Debug, Default)]
pub struct History<'a> {
    /// Its value after the last write (None: removed).
    pub last: Option<Cow<'a, [u8]>>,
    /// Its value as of the last flush mark (None: none or removed).
    pub flushed: Option<Cow<'a, [u8]>>,
    /// The values it took after the last flush mark (None: removed).
    pub tail: Vec<Option<Cow<'a, [u8]>>>,
}

/// A journal read back.
#[derive(Debug, Default)]
pub struct Replayed<'a> {
    /// Every key the journal names, by tree and key.
    pub keys: BTreeMap<(String, Vec<u8>), History<'a>>,
    /// Where the last whole line ends (what follows is a write cut short).
    pub end: u64,
    /// Bytes of the header and the snapshot.
    pub base: u64,
    /// Lines that failed their checksum or did not read, with good lines after them.
    pub damaged: usize,
    /// Bytes cut off at the end (a write the kill interrupted).
    pub torn: u64,
}

enum Parsed<'a> {
    Header(u64),
    Put(String, Vec<u8>, Option<Cow<'a, [u8]>>),
    Flushed(u64),
}

fn parse(line: &[u8]) -> Option<Parsed<'_>> {
    let (sum, json) = (line.get(..8)?, line.get(9..)?);
    if line.get(8) != Some(&b' ') {
        return None;
    }
    let sum = u32::from_str_radix(std::str::from_utf8(sum).ok()?, 16).ok()?;
    if crc32fast::hash(json) != sum {
        return None;
    }
    if json.starts_with(b"{\"journal\"") {
        let h: Header = serde_json::from_slice(json).ok()?;
        return (h.journal == NAME).then_some(Parsed::Header(h.snapshot));
    }
    let l: Line = serde_json::from_slice(json).ok()?;
    if let Some(at) = l.flushed {
        return Some(Parsed::Flushed(at));
    }
    let tree = l.t?.into_owned();
    let key = match (l.k, l.x) {
        (Some(k), None) => k.into_owned().into_bytes(),
        (None, Some(x)) => unhex(&x)?,
        _ => return None,
    };
    let value = match (l.v, l.h) {
        (Some(v), None) => Some(Cow::Borrowed(v.get().as_bytes())),
        (None, Some(h)) => Some(Cow::Owned(unhex(&h)?)),
        (None, None) => None,
        _ => return None,
    };
    Some(Parsed::Put(tree, key, value))
}

/// The version a header line states, when it is a header at all (to refuse a newer format).
fn stated_version(line: &[u8]) -> Option<u32> {
    let json = line.get(9..)?;
    let h: Header = serde_json::from_slice(json).ok()?;
    (h.journal == NAME).then_some(h.version)
}

/// Read a journal's bytes. Fails only on a journal of a newer format than this program's.
pub fn replay(bytes: &[u8]) -> Result<Replayed<'_>, String> {
    let mut lines: Vec<(u64, Parsed)> = Vec::new();
    let mut out = Replayed::default();
    let mut bad_since_good = 0;
    let mut offset = 0u64;
    let mut snapshot_lines: Option<u64> = None;
    let mut rest = bytes;
    while let Some(n) = rest.iter().position(|b| *b == b'\n') {
        let line = &rest[..n];
        if offset == 0 {
            if let Some(v) = stated_version(line).filter(|v| *v > VERSION) {
                return Err(format!(
                    "record.journal is of format {v}, newer than this program's {VERSION}"
                ));
            }
        }
        match parse(line) {
            Some(p) => {
                out.damaged += bad_since_good;
                bad_since_good = 0;
                if let Parsed::Header(n) = p {
                    snapshot_lines = Some(n);
                } else {
                    lines.push((offset, p));
                }
                out.end = offset + n as u64 + 1;
                if snapshot_lines.is_some_and(|s| lines.len() as u64 == s) && out.base == 0 {
                    out.base = out.end;
                }
            }
            None => bad_since_good += 1,
        }
        offset += n as u64 + 1;
        rest = &rest[n + 1..];
    }
    out.torn = bytes.len() as u64 - out.end;
    // What sled had made durable: every line before the last mark's offset, and the snapshot.
    let flushed_to = lines
        .iter()
        .filter_map(|(_, p)| match p {
            Parsed::Flushed(at) => Some(*at),
            _ => None,
        })
        .max()
        .unwrap_or(0)
        .max(out.base);
    for (at, p) in lines {
        let Parsed::Put(tree, key, value) = p else {
            continue;
        };
        let h = out.keys.entry((tree, key)).or_default();
        if at < flushed_to {
            h.flushed = value.clone();
        } else {
            h.tail.push(value.clone());
        }
        h.last = value;
    }
    Ok(out)
}

/// The journal file, open for writing at the end of its last whole line.
pub struct Journal {
    path: PathBuf,
    file: std::fs::File,
    end: u64,
    base: u64,
    /// The offset the last flush mark vouches for.
    marked: u64,
    /// Bytes written since the last fsync.
    unsynced: bool,
    /// Where the journal ended once sled had made everything before it durable (the last flush
    /// mark, or a rewrite); None until the first flush after opening.
    settled_at: Option<u64>,
}

fn open_rw(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)
}

impl Journal {
    /// Open the journal whose replay found its last whole line ending at `end`: what follows
    /// (a write cut short) is cut off.
    pub fn open(path: &Path, replayed: &Replayed) -> std::io::Result<Journal> {
        let file = open_rw(path)?;
        if file.metadata()?.len() != replayed.end {
            file.set_len(replayed.end)?;
        }
        Ok(Journal {
            path: path.to_path_buf(),
            file,
            end: replayed.end,
            base: replayed.base,
            marked: replayed.end,
            unsynced: false,
            settled_at: None,
        })
    }

    /// Write the lines of `ops` at the end, in one write. A write the disk took only in part is
    /// overwritten by the next (the end moves only past a whole write).
    pub fn append(&mut self, ops: &[Op]) -> std::io::Result<()> {
        let mut buf = Vec::new();
        for op in ops {
            encode(&mut buf, op);
        }
        self.write(&buf)
    }

    fn write(&mut self, buf: &[u8]) -> std::io::Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        self.file.write_all_at(buf, self.end)?;
        self.end += buf.len() as u64;
        self.unsynced = true;
        Ok(())
    }

    /// Make the lines written so far durable; the offset they reach.
    pub fn sync(&mut self) -> std::io::Result<u64> {
        if self.unsynced {
            self.file.sync_data()?;
            self.unsynced = false;
        }
        Ok(self.end)
    }

    /// Record that sled has made durable every write before `upto` (no fsync: a mark lost to a
    /// crash only makes those writes look unfinished).
    pub fn mark_flushed(&mut self, upto: u64) -> std::io::Result<()> {
        // Settled only if nothing was written after `upto` (another thread's write while sled
        // flushed is not vouched for by this flush).
        let quiet = self.end == upto;
        if upto <= self.marked {
            self.settled_at = quiet.then_some(self.end);
            return Ok(());
        }
        let mut buf = Vec::new();
        push_line(
            &mut buf,
            &Line {
                flushed: Some(upto),
                ..Line::default()
            },
        );
        self.write(&buf)?;
        self.marked = upto;
        self.settled_at = quiet.then_some(self.end);
        Ok(())
    }

    /// Nothing was written since sled last made the record durable: a flush has nothing to do.
    pub fn settled(&self) -> bool {
        self.settled_at == Some(self.end)
    }

    /// The journal has grown well past the record it describes.
    pub fn wants_rewrite(&self) -> bool {
        self.end > 2 * self.base + SLACK
    }

    /// Replace the journal with a snapshot of the record as sled holds it now (every entry
    /// durable in sled already): written beside it, fsynced, renamed over it.
    pub fn rewrite(
        &mut self,
        count: u64,
        entries: impl Iterator<Item = std::io::Result<Op>>,
    ) -> std::io::Result<()> {
        // Written as the entries come, a line at a time: the record can be tens of MB (a long
        // game's posts), and it is not held in memory twice to be written once.
        let tmp = self.path.with_extension("journal.new");
        let mut end = 0u64;
        {
            let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
            let mut line = Vec::new();
            push_line(
                &mut line,
                &Header {
                    journal: Cow::Borrowed(NAME),
                    version: VERSION,
                    snapshot: count,
                },
            );
            out.write_all(&line)?;
            end += line.len() as u64;
            let mut written = 0u64;
            for op in entries {
                line.clear();
                encode(&mut line, &op?);
                out.write_all(&line)?;
                end += line.len() as u64;
                written += 1;
            }
            if written != count {
                return Err(std::io::Error::other(format!(
                    "{written} entries written where {count} were counted"
                )));
            }
            out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        }
        std::fs::rename(&tmp, &self.path)?;
        if let Some(dir) = self.path.parent() {
            std::fs::File::open(dir)?.sync_all()?;
        }
        self.file = open_rw(&self.path)?;
        self.end = end;
        self.base = self.end;
        self.marked = self.end;
        self.unsynced = false;
        self.settled_at = Some(self.end);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(tree: &'static str, key: &[u8], value: &[u8]) -> Op {
        Op {
            tree,
            key: key.to_vec(),
            value: Some(value.to_vec()),
        }
    }

    /// A new journal in `dir` whose snapshot holds one entry (meta `a` = `1`).
    fn one_entry(dir: &Path) -> (PathBuf, Journal) {
        let path = dir.join("record.journal");
        let mut j = Journal::open(&path, &Replayed::default()).unwrap();
        j.rewrite(1, [Ok(put("meta", b"a", b"1"))].into_iter())
            .unwrap();
        (path, j)
    }

    /// The journal is settled (a flush has nothing to do) only when nothing was written since
    /// sled made the record durable: not after a write, and not when a write came between the
    /// flush's sync and its mark (another thread's, while sled flushed): that write's line is
    /// past what the mark vouches for, and the next flush must not be skipped.
    #[test]
    fn settled_only_when_nothing_was_written_since_the_flush() {
        let dir = tempfile::tempdir().unwrap();
        let (_, mut j) = one_entry(dir.path());
        assert!(j.settled(), "a rewrite leaves it settled");
        j.append(&[put("meta", b"b", b"2")]).unwrap();
        assert!(!j.settled());
        let upto = j.sync().unwrap();
        j.mark_flushed(upto).unwrap();
        assert!(j.settled());
        j.append(&[put("meta", b"c", b"3")]).unwrap();
        let upto = j.sync().unwrap();
        // Written while sled flushed what came before `upto`.
        j.append(&[put("meta", b"d", b"4")]).unwrap();
        j.mark_flushed(upto).unwrap();
        assert!(!j.settled(), "a write after the sync is not flushed yet");
    }

    /// A snapshot whose entries do not number what was counted (a write between the two) is
    /// refused, and the journal it would have replaced is left as it was.
    #[test]
    fn a_snapshot_short_of_its_count_replaces_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (path, mut j) = one_entry(dir.path());
        let before = std::fs::read(&path).unwrap();
        let e = j
            .rewrite(2, [Ok(put("meta", b"b", b"2"))].into_iter())
            .unwrap_err();
        assert!(e.to_string().contains("1 entries written where 2"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }

    #[test]
    fn writes_read_back_with_their_history_and_a_torn_tail_is_cut() {
        let dir = tempfile::tempdir().unwrap();
        let (path, mut j) = one_entry(dir.path());
        {
            j.append(&[
                put("posts", &[0, 0, 0xff, 7], br#"{"versions":[]}"#),
                put("meta", "版杀/é".as_bytes(), b"not json\n"),
            ])
            .unwrap();
            let upto = j.sync().unwrap();
            j.mark_flushed(upto).unwrap();
            j.append(&[Op {
                tree: "meta",
                key: b"a".to_vec(),
                value: None,
            }])
            .unwrap();
        }
        drop(j);
        let mut bytes = std::fs::read(&path).unwrap();
        let whole = bytes.len() as u64;
        bytes.extend_from_slice(b"0badc0de {\"t\":\"me");
        let r = replay(&bytes).unwrap();
        assert_eq!((r.end, r.torn, r.damaged), (whole, 17, 0));
        let a = &r.keys[&("meta".to_string(), b"a".to_vec())];
        assert_eq!(
            a.flushed.as_deref(),
            Some(&b"1"[..]),
            "the snapshot is flushed"
        );
        assert_eq!((a.last.as_deref(), a.tail.len()), (None, 1));
        let p = &r.keys[&("posts".to_string(), vec![0, 0, 0xff, 7])];
        assert_eq!(p.last.as_deref(), Some(&br#"{"versions":[]}"#[..]));
        let m = &r.keys[&("meta".to_string(), "版杀/é".as_bytes().to_vec())];
        assert_eq!(m.last.as_deref(), Some(&b"not json\n"[..]));
        assert!(String::from_utf8_lossy(&bytes).contains(r#""v":{"versions":[]}"#));
    }

    #[test]
    fn a_damaged_line_in_the_middle_is_skipped_and_counted() {
        let mut bytes = Vec::new();
        push_line(
            &mut bytes,
            &Header {
                journal: Cow::Borrowed(NAME),
                version: VERSION,
                snapshot: 0,
            },
        );
        encode(&mut bytes, &put("meta", b"a", b"1"));
        let at = bytes.len() + 12;
        encode(&mut bytes, &put("meta", b"b", b"2"));
        encode(&mut bytes, &put("meta", b"c", b"3"));
        bytes[at] ^= 1;
        let r = replay(&bytes).unwrap();
        assert_eq!((r.damaged, r.torn), (1, 0));
        assert_eq!(r.keys.len(), 2);
    }

    #[test]
    fn a_journal_of_a_newer_format_is_refused() {
        let mut bytes = Vec::new();
        push_line(
            &mut bytes,
            &Header {
                journal: Cow::Borrowed(NAME),
                version: VERSION + 1,
                snapshot: 0,
            },
        );
        assert!(replay(&bytes).unwrap_err().contains("newer"));
    }
}
