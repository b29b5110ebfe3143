//! Writing what the judge confirmed into the game config, the way a careful person edits it:
//! the judge's comments, key order and formatting kept (`toml_edit`), the new text loaded and
//! checked before it replaces the old, written atomically (a temporary file in the same
//! directory, fsync, rename, fsync of the directory) with the old text kept beside it as a
//! dated backup. The game config stays the whole truth about the days.
//!
//! The text edits (`with_day_added`, `with_closes_at`) are pure and tested on text; `add_day`
//! and `set_closes_at` are the same edits done to a file.

use crate::domain::config::{ConfigError, GameConfig};
use crate::domain::days::FoundDay;
use crate::domain::sources::Sources;
use crate::io::files::Disk;
use chrono::{DateTime, FixedOffset, Timelike};
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use toml_edit::{Array, ArrayOfTables, DocumentMut, Item, Table, Value};

/// A day to write as a `[[days]]` block.
#[derive(Debug, Clone, PartialEq)]
pub struct NewDay {
    pub day: u32,
    pub vote_thread: Option<u64>,
    pub discussion_threads: Vec<u64>,
    pub opens_at: Option<DateTime<FixedOffset>>,
    pub closes_at: DateTime<FixedOffset>,
    /// The thread the day was found from (for the comment), and its subject.
    pub found_in: Option<(u64, String)>,
}

impl NewDay {
    /// A found day the judge confirmed, closing at `closes_at` (read from its first post, or
    /// given by the judge): it opens when its vote thread was opened.
    pub fn from_found(found: &FoundDay, closes_at: DateTime<FixedOffset>) -> NewDay {
        NewDay {
            day: found.day,
            vote_thread: Some(found.vote_thread),
            discussion_threads: found.discussion_threads.clone(),
            opens_at: found.opened_at,
            closes_at,
            found_in: Some((found.vote_thread, found.subject.clone())),
        }
    }
}

/// What an edit of the file did.
#[derive(Debug)]
pub struct Edited {
    /// The game as the file now loads.
    pub game: GameConfig,
    /// Where the text before the edit was kept.
    pub backup: PathBuf,
}

fn error(path: &Path, key: &str, message: String) -> ConfigError {
    ConfigError {
        file: path.display().to_string(),
        line: None,
        key: key.into(),
        message,
    }
}

/// A config time, in the game's offset, as a judge writes it (`2026-12-02 21:00`).
fn local(t: DateTime<FixedOffset>, offset: FixedOffset) -> String {
    let t = t.with_timezone(&offset);
    if t.second() == 0 {
        t.format("%Y-%m-%d %H:%M").to_string()
    } else {
        t.format("%Y-%m-%d %H:%M:%S").to_string()
    }
}

/// One line of comment text: no line breaks from a subject.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn parse(text: &str, path: &Path) -> Result<DocumentMut, ConfigError> {
    text.parse::<DocumentMut>()
        .map_err(|e| error(path, "", format!("TOML 语法错误，bansha 不改这个文件：{e}")))
}

/// `text` with a `[[days]]` block for `day` appended after the last one (at the end when there
/// is none), with a comment saying when (`now`) and from which thread bansha added it. Times
/// are written in the game's `offset`.
pub fn with_day_added(
    text: &str,
    path: &Path,
    day: &NewDay,
    offset: FixedOffset,
    now: DateTime<FixedOffset>,
) -> Result<String, ConfigError> {
    let mut doc = parse(text, path)?;
    let mut block = Table::new();
    block.insert("day", toml_edit::value(i64::from(day.day)));
    if let Some(t) = day.vote_thread {
        block.insert("vote_thread", toml_edit::value(t as i64));
    }
    if !day.discussion_threads.is_empty() {
        let tids: Array = day.discussion_threads.iter().map(|t| *t as i64).collect();
        block.insert("discussion_threads", toml_edit::value(tids));
    }
    if let Some(t) = day.opens_at {
        block.insert("opens_at", toml_edit::value(local(t, offset)));
    }
    block.insert("closes_at", toml_edit::value(local(day.closes_at, offset)));
    let from = match &day.found_in {
        Some((tid, subject)) => format!("，来自帖子 tid {tid}“{}”", one_line(subject)),
        None => String::new(),
    };
    block.decor_mut().set_prefix(format!(
        "\n# 第 {} 天：bansha 于 {} 经法官确认后添加{from}\n",
        day.day,
        local(now, offset)
    ));
    match doc.get_mut("days") {
        Some(Item::ArrayOfTables(days)) => {
            if days
                .iter()
                .any(|t| t.get("day").and_then(Item::as_integer) == Some(i64::from(day.day)))
            {
                return Err(error(
                    path,
                    "days",
                    format!("第 {} 天已经在配置里", day.day),
                ));
            }
            days.push(block);
        }
        Some(_) => {
            return Err(error(
                path,
                "days",
                "days 不是 [[days]] 块的写法：bansha 只追加 [[days]] 块，请把这一天手动写进去"
                    .into(),
            ))
        }
        None => {
            // No day yet: the block goes to the end of the file.
            block.set_position(Some(isize::MAX));
            let mut days = ArrayOfTables::new();
            days.push(block);
            doc.insert("days", Item::ArrayOfTables(days));
        }
    }
    Ok(doc.to_string())
}

/// `text` with day `day`'s `closes_at` set to `closes_at`, the judge's comments and the
/// value's own trailing comment kept, and a comment line above it saying when and why.
pub fn with_closes_at(
    text: &str,
    path: &Path,
    day: u32,
    closes_at: DateTime<FixedOffset>,
    why: &str,
    offset: FixedOffset,
    now: DateTime<FixedOffset>,
) -> Result<String, ConfigError> {
    let mut doc = parse(text, path)?;
    let missing = || error(path, "days", format!("配置里没有第 {day} 天的 [[days]] 块"));
    let Some(Item::ArrayOfTables(days)) = doc.get_mut("days") else {
        return Err(missing());
    };
    let block = days
        .iter_mut()
        .find(|t| t.get("day").and_then(Item::as_integer) == Some(i64::from(day)))
        .ok_or_else(missing)?;
    let Some(value) = block.get_mut("closes_at").and_then(Item::as_value_mut) else {
        return Err(missing());
    };
    let before = value.as_str().unwrap_or_default().to_string();
    let decor = value.decor().clone();
    *value = Value::from(local(closes_at, offset));
    *value.decor_mut() = decor;
    let Some(mut key) = block.key_mut("closes_at") else {
        return Err(missing());
    };
    let prefix = key
        .leaf_decor()
        .prefix()
        .and_then(|p| p.as_str())
        .unwrap_or_default()
        .to_string();
    // Comments above the key stay; the new line goes last, at the key's own indentation.
    let (body, indent) = match prefix.rfind('\n') {
        Some(i) => prefix.split_at(i + 1),
        None => ("", prefix.as_str()),
    };
    key.leaf_decor_mut().set_prefix(format!(
        "{body}{indent}# bansha 于 {} 把截止时间从 {before} 改为 {}：{}\n{indent}",
        local(now, offset),
        local(closes_at, offset),
        one_line(why)
    ));
    Ok(doc.to_string())
}

/// `text` with day `day`'s round 2 set (`runoff = { closes_at, candidates }`), as the judge
/// gave its time on the dashboard, with a comment line above it saying when and why. A day that
/// already has a `runoff` is refused: its time is the judge's to change by hand.
#[allow(clippy::too_many_arguments)]
pub fn with_runoff(
    text: &str,
    path: &Path,
    day: u32,
    closes_at: DateTime<FixedOffset>,
    candidates: &[String],
    offset: FixedOffset,
    now: DateTime<FixedOffset>,
) -> Result<String, ConfigError> {
    let mut doc = parse(text, path)?;
    let missing = || error(path, "days", format!("配置里没有第 {day} 天的 [[days]] 块"));
    let Some(Item::ArrayOfTables(days)) = doc.get_mut("days") else {
        return Err(missing());
    };
    let block = days
        .iter_mut()
        .find(|t| t.get("day").and_then(Item::as_integer) == Some(i64::from(day)))
        .ok_or_else(missing)?;
    if block.contains_key("runoff") || block.contains_key("no_runoff") {
        return Err(error(
            path,
            "runoff",
            format!("第 {day} 天的第二轮已经写在配置里：要改请直接编辑配置文件"),
        ));
    }
    let mut runoff = toml_edit::InlineTable::new();
    runoff.insert("closes_at", Value::from(local(closes_at, offset)));
    let names: Array = candidates.iter().map(String::as_str).collect();
    runoff.insert("candidates", Value::Array(names));
    block.insert("runoff", toml_edit::value(runoff));
    if let Some(mut key) = block.key_mut("runoff") {
        key.leaf_decor_mut().set_prefix(format!(
            "# bansha 于 {} 按法官在仪表盘给的时间写入第二轮（候选：{}）\n",
            local(now, offset),
            one_line(&candidates.join("、"))
        ));
    }
    Ok(doc.to_string())
}

/// Reads `path` as `text` and everything else from the disk: a ruleset file next to the game
/// config is read as loading would read it.
struct Overlay<'a> {
    path: &'a Path,
    text: &'a str,
}

impl Sources for Overlay<'_> {
    fn read(&self, path: &Path) -> std::io::Result<String> {
        if path == self.path {
            Ok(self.text.to_string())
        } else {
            Disk.read(path)
        }
    }
    fn mode(&self, path: &Path) -> std::io::Result<Option<u32>> {
        Disk.mode(path)
    }
    fn env(&self, name: &str) -> Option<String> {
        Disk.env(name)
    }
}

fn load(path: &Path, text: &str) -> Result<GameConfig, ConfigError> {
    crate::domain::game::load_from(path, &Overlay { path, text })
}

/// Append a `[[days]]` block for a confirmed day to the game config at `path` (see
/// `with_day_added`). The file must load before the edit; the edited text must load to the
/// same days plus this one, or nothing is written.
pub fn add_day(
    path: &Path,
    day: &NewDay,
    now: DateTime<FixedOffset>,
) -> Result<Edited, ConfigError> {
    let text = read(path)?;
    let before = load(path, &text).map_err(unloadable)?;
    let new_text = with_day_added(&text, path, day, before.utc_offset, now)?;
    let after = load(path, &new_text)?;
    let kept = before
        .days
        .iter()
        .all(|d| after.day(d.day).is_some_and(|a| a == d));
    let added = after.day(day.day).is_some_and(|a| {
        a.vote_thread == day.vote_thread
            && a.closes_at == day.closes_at
            && a.discussion_threads == day.discussion_threads
    });
    if !kept || !added || after.days.len() != before.days.len() + 1 {
        return Err(error(
            path,
            "days",
            format!("添加第 {} 天后配置读出来不对，文件没有改动", day.day),
        ));
    }
    let backup = write_atomically(path, &text, &new_text, now)?;
    Ok(Edited {
        game: after,
        backup,
    })
}

/// Change day `day`'s `closes_at` in the game config at `path` (a moved deadline the judge
/// confirmed; see `with_closes_at`); `why` goes into the comment.
pub fn set_closes_at(
    path: &Path,
    day: u32,
    closes_at: DateTime<FixedOffset>,
    why: &str,
    now: DateTime<FixedOffset>,
) -> Result<Edited, ConfigError> {
    edit_day(
        path,
        day,
        (
            "days",
            format!("修改第 {day} 天的截止时间后配置读出来不对，文件没有改动"),
        ),
        |text, offset| with_closes_at(text, path, day, closes_at, why, offset, now),
        |d| d.closes_at == closes_at,
        now,
    )
}

/// Set day `day`'s round 2 in the game config at `path` (see `with_runoff`): the run-off's
/// time the judge gave on the dashboard, with round 1's tied candidates.
pub fn set_runoff(
    path: &Path,
    day: u32,
    closes_at: DateTime<FixedOffset>,
    candidates: &[String],
    now: DateTime<FixedOffset>,
) -> Result<Edited, ConfigError> {
    edit_day(
        path,
        day,
        (
            "runoff",
            format!("写入第 {day} 天的第二轮后配置读出来不对，文件没有改动"),
        ),
        |text, offset| with_runoff(text, path, day, closes_at, candidates, offset, now),
        |d| {
            d.runoff
                .as_ref()
                .is_some_and(|r| r.closes_at == closes_at && r.candidates == candidates)
        },
        now,
    )
}

/// One day's block edited in the file at `path`: the file must load before; `edit` makes the
/// new text (given the game's offset); the new text must load with day `day` as `changed`
/// says and every other day as it was, or nothing is written (`refused`: the key and message).
fn edit_day(
    path: &Path,
    day: u32,
    refused: (&str, String),
    edit: impl FnOnce(&str, FixedOffset) -> Result<String, ConfigError>,
    changed: impl Fn(&crate::domain::config::DayConfig) -> bool,
    now: DateTime<FixedOffset>,
) -> Result<Edited, ConfigError> {
    let text = read(path)?;
    let before = load(path, &text).map_err(unloadable)?;
    let new_text = edit(&text, before.utc_offset)?;
    let after = load(path, &new_text)?;
    let done = after.day(day).is_some_and(&changed);
    let others_kept = before
        .days
        .iter()
        .filter(|d| d.day != day)
        .all(|d| after.day(d.day) == Some(d));
    if !done || !others_kept || after.days.len() != before.days.len() {
        return Err(error(path, refused.0, refused.1));
    }
    let backup = write_atomically(path, &text, &new_text, now)?;
    Ok(Edited {
        game: after,
        backup,
    })
}

fn read(path: &Path) -> Result<String, ConfigError> {
    Disk.read(path)
        .map_err(|e| error(path, "", format!("无法读取：{e}")))
}

fn unloadable(e: ConfigError) -> ConfigError {
    ConfigError {
        message: format!(
            "配置文件现在有错误，bansha 先不改它（请先修好）：{}",
            e.message
        ),
        ..e
    }
}

/// Replace `path`'s text `old` by `new`: the old text is copied to a dated backup next to it,
/// the new one written to a temporary file in the same directory (same permissions), synced,
/// and renamed over the file; the directory is synced. When the file no longer holds `old`
/// (the judge saved it meanwhile), nothing is replaced.
fn write_atomically(
    path: &Path,
    old: &str,
    new: &str,
    now: DateTime<FixedOffset>,
) -> Result<PathBuf, ConfigError> {
    let io = |what: &str, e: std::io::Error| error(path, "", format!("{what}失败：{e}"));
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "game.toml".into());
    let stamp = now.format("%Y%m%d-%H%M%S");
    let mut backup = dir.join(format!("{name}.{stamp}.bak"));
    let mut n = 1;
    while backup.exists() {
        n += 1;
        backup = dir.join(format!("{name}.{stamp}-{n}.bak"));
    }
    let permissions = fs::metadata(path)
        .map_err(|e| io("读取文件属性", e))?
        .permissions();
    write_synced(&backup, old, &permissions).map_err(|e| io("写备份", e))?;

    let tmp = dir.join(format!(".{name}.bansha-{}.tmp", std::process::id()));
    let _ = fs::remove_file(&tmp);
    write_synced(&tmp, new, &permissions).map_err(|e| io("写临时文件", e))?;
    match fs::read_to_string(path) {
        Ok(now_text) if now_text == old => {}
        _ => {
            let _ = fs::remove_file(&tmp);
            return Err(error(
                path,
                "",
                "文件在 bansha 修改期间被改动了（法官刚保存过？）：这次没有写入，下一轮再试".into(),
            ));
        }
    }
    fs::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        io("替换文件", e)
    })?;
    File::open(&dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io("同步目录", e))?;
    Ok(backup)
}

fn write_synced(path: &Path, text: &str, permissions: &fs::Permissions) -> std::io::Result<()> {
    let mut f = OpenOptions::new().write(true).create_new(true).open(path)?;
    f.set_permissions(permissions.clone())?;
    f.write_all(text.as_bytes())?;
    f.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::game::load_str;

    fn t(s: &str) -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339(s).unwrap()
    }

    fn cst() -> FixedOffset {
        FixedOffset::east_opt(8 * 3600).unwrap()
    }

    const GAME: &str = r#"# 第十二局 — the judge's own notes stay.
ruleset = "m103"   # preset
id = "g12"
name = "第十二局"

[roster]
players = ["大灰狼", "小飞", "李逵"]
judges = ["版杀一室法官"]

# Day one: written by hand.
[[days]]
day = 1
vote_thread = 3
discussion_threads = [4]
opens_at = "2026-11-27 21:00"
closes_at = "2026-11-28 21:00"   # as announced

[rules.vote]
lock_minutes = 60
"#;

    fn day2() -> NewDay {
        NewDay {
            day: 2,
            vote_thread: Some(57),
            discussion_threads: vec![58],
            opens_at: Some(t("2026-11-28T21:05:00+08:00")),
            closes_at: t("2026-11-29T21:00:00+08:00"),
            found_in: Some((57, "【第十二局】投票帖 第二天".into())),
        }
    }

    #[test]
    fn a_day_is_appended_after_the_last_with_everything_else_kept() {
        let now = t("2026-11-28T21:10:00+08:00");
        let out = with_day_added(GAME, Path::new("g.toml"), &day2(), cst(), now).unwrap();
        // The original text, untouched, with the block after the last day.
        let block = "\n# 第 2 天：bansha 于 2026-11-28 21:10 经法官确认后添加，来自帖子 tid 57“【第十二局】投票帖 第二天”\n\
                     [[days]]\nday = 2\nvote_thread = 57\ndiscussion_threads = [58]\n\
                     opens_at = \"2026-11-28 21:05\"\ncloses_at = \"2026-11-29 21:00\"\n";
        assert_eq!(
            out,
            GAME.replace("# as announced\n", &format!("# as announced\n{block}"))
        );
        let before = load_str(GAME, Path::new("g.toml")).unwrap();
        let after = load_str(&out, Path::new("g.toml")).unwrap();
        assert_eq!(after.days.len(), 2);
        assert_eq!(after.days[0], before.days[0]);
        assert_eq!(after.days[1].vote_thread, Some(57));
        assert_eq!(after.days[1].closes_at, t("2026-11-29T21:00:00+08:00"));
    }

    #[test]
    fn a_first_day_goes_to_the_end_and_a_known_day_is_refused() {
        let no_days = GAME.replace(
            &GAME[GAME.find("# Day one").unwrap()..GAME.find("[rules.vote]").unwrap()],
            "",
        );
        let now = t("2026-11-28T21:10:00+08:00");
        let out = with_day_added(&no_days, Path::new("g.toml"), &day2(), cst(), now).unwrap();
        assert!(out.starts_with(&no_days), "{out}");
        assert_eq!(load_str(&out, Path::new("g.toml")).unwrap().days.len(), 1);

        let mut one = day2();
        one.day = 1;
        let e = with_day_added(GAME, Path::new("g.toml"), &one, cst(), now).unwrap_err();
        assert!(e.message.contains("第 1 天已经在配置里"), "{e}");
    }

    #[test]
    fn a_runoff_time_given_on_the_dashboard_is_written_into_its_day_once() {
        let now = t("2026-11-28T21:05:00+08:00");
        let names = vec!["李逵".to_string(), "小飞".to_string()];
        let out = with_runoff(
            GAME,
            Path::new("g.toml"),
            1,
            t("2026-11-28T23:00:00+08:00"),
            &names,
            cst(),
            now,
        )
        .unwrap();
        // The judge's lines are all there, in order; one comment and one key added.
        let added: Vec<&str> = out.lines().filter(|l| !GAME.contains(*l)).collect();
        assert_eq!(
            added,
            [
                "# bansha 于 2026-11-28 21:05 按法官在仪表盘给的时间写入第二轮（候选：李逵、小飞）",
                "runoff = { closes_at = \"2026-11-28 23:00\", candidates = [\"李逵\", \"小飞\"] }"
            ],
            "{out}"
        );
        assert!(out.contains("closes_at = \"2026-11-28 21:00\"   # as announced\n"));
        let after = load_str(&out, Path::new("g.toml")).unwrap();
        let r = after.days[0].runoff.as_ref().unwrap();
        assert_eq!(r.closes_at, t("2026-11-28T23:00:00+08:00"));
        assert_eq!(r.candidates, names);
        // Once: a day whose run-off is written is the judge's to change by hand.
        let e = with_runoff(&out, Path::new("g.toml"), 1, now, &names, cst(), now).unwrap_err();
        assert_eq!(e.key, "runoff");
        assert!(e.message.contains("已经写在配置里"), "{e}");
    }

    #[test]
    fn a_moved_deadline_keeps_the_comments_around_it() {
        let now = t("2026-11-28T12:00:00+08:00");
        let out = with_closes_at(
            GAME,
            Path::new("g.toml"),
            1,
            t("2026-11-28T22:30:00+08:00"),
            "投票帖 tid 3 的首帖改了截止时间",
            cst(),
            now,
        )
        .unwrap();
        // Exactly one line added and one value changed; the value's own comment kept.
        let note = "# bansha 于 2026-11-28 12:00 把截止时间从 2026-11-28 21:00 改为 \
                    2026-11-28 22:30：投票帖 tid 3 的首帖改了截止时间\n";
        assert_eq!(
            out,
            GAME.replace(
                "closes_at = \"2026-11-28 21:00\"   # as announced\n",
                &format!("{note}closes_at = \"2026-11-28 22:30\"   # as announced\n")
            )
        );
        let after = load_str(&out, Path::new("g.toml")).unwrap();
        assert_eq!(after.days[0].closes_at, t("2026-11-28T22:30:00+08:00"));
        let e = with_closes_at(GAME, Path::new("g.toml"), 9, now, "", cst(), now).unwrap_err();
        assert!(e.message.contains("第 9 天"), "{e}");
    }

    #[test]
    fn files_are_replaced_atomically_with_a_backup() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.toml");
        fs::write(&path, GAME).unwrap();
        let now = t("2026-11-28T21:10:00+08:00");
        let edited = add_day(&path, &day2(), now).unwrap();
        assert_eq!(fs::read_to_string(&edited.backup).unwrap(), GAME);
        assert!(edited
            .backup
            .to_string_lossy()
            .ends_with("game.toml.20261128-211000.bak"));
        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(crate::io::files::load_game(&path).unwrap().days.len(), 2);
        assert_eq!(edited.game.days.len(), 2);
        // No temporary file is left; a second edit at the same second keeps both backups.
        let moved =
            set_closes_at(&path, 2, t("2026-11-29T22:00:00+08:00"), "首帖改了", now).unwrap();
        assert_ne!(moved.backup, edited.backup);
        assert_eq!(fs::read_to_string(&moved.backup).unwrap(), text);
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .collect();
        assert_eq!(names.len(), 3, "{names:?}");
        assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    }

    #[test]
    fn a_broken_file_is_not_touched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.toml");
        let broken = GAME.replace("lock_minutes = 60", "lock_minutes = \"sixty\"");
        fs::write(&path, &broken).unwrap();
        let e = add_day(&path, &day2(), t("2026-11-28T21:10:00+08:00")).unwrap_err();
        assert!(e.message.contains("先不改"), "{e}");
        assert_eq!(fs::read_to_string(&path).unwrap(), broken);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_last_day_with_a_runoff_table_and_no_final_newline() {
        let text = format!(
            "{}[days.runoff]\ncloses_at = \"2026-11-29 12:00\"\ncandidates = [\"小飞\", \"李逵\"]",
            &GAME[..GAME.find("[rules.vote]").unwrap()]
        );
        let now = t("2026-11-29T12:10:00+08:00");
        let out = with_day_added(&text, Path::new("g.toml"), &day2(), cst(), now).unwrap();
        assert!(out.starts_with(&text), "{out}");
        assert!(out[text.len()..].starts_with("\n\n# 第 2 天"), "{out}");
        let after = load_str(&out, Path::new("g.toml")).unwrap();
        assert!(after.days[0].runoff.is_some());
        assert_eq!(after.days[1].day, 2);
        assert!(after.days[1].runoff.is_none());
    }
}
