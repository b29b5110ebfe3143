//! The machine's fonts, for drawing the timeline PNG (`present::chart::png`), and the check
//! that one of them can write Chinese (`check`: `check-config` and `bansha run` refuse without
//! one, rather than mail pictures whose words are missing).

use std::sync::Arc;

/// The fonts of the last rendering and when they were loaded: kept for `KEEP`, so the tally
/// mails of one cycle (a close, its run-off, several games) load them once, and dropped by
/// `release_stale` after it, so an idle daemon does not hold the font files (several MB)
/// between the few times a day it draws.
static HELD: std::sync::Mutex<Option<(std::time::Instant, Arc<resvg::usvg::fontdb::Database>)>> =
    std::sync::Mutex::new(None);
const KEEP: std::time::Duration = std::time::Duration::from_secs(60);

/// The machine's fonts for a rendering: those loaded less than `KEEP` ago, or loaded now.
pub fn system() -> Arc<resvg::usvg::fontdb::Database> {
    let Ok(mut held) = HELD.lock() else {
        return load();
    };
    if let Some((at, db)) = held.as_ref() {
        if at.elapsed() < KEEP {
            return db.clone();
        }
    }
    let db = load();
    *held = Some((std::time::Instant::now(), db.clone()));
    db
}

/// Drop the held fonts once they are older than `KEEP` (the service calls it at each tick and
/// after each cycle; a font installed meanwhile is seen at the next load). Whether it dropped
/// them.
pub fn release_stale() -> bool {
    if let Ok(mut held) = HELD.lock() {
        if held.as_ref().is_some_and(|(at, _)| at.elapsed() >= KEEP) {
            *held = None;
            return true;
        }
    }
    false
}

/// The machine's fonts, loaded from its font directories. Only the family the chart uses is
/// kept, read into memory once.
fn load() -> Arc<resvg::usvg::fontdb::Database> {
    let mut db = resvg::usvg::fontdb::Database::new();
    db.load_system_fonts();
    // The SVG asks for "sans-serif"; point it at a font that has Chinese when there is one
    // (usvg skips text whose family it cannot resolve).
    let families: Vec<String> = db
        .faces()
        .flat_map(|f| f.families.iter().map(|(name, _)| name.clone()))
        .collect();
    let preferred = [
        "Noto Sans CJK SC",
        "Source Han Sans SC",
        "WenQuanYi Micro Hei",
        "WenQuanYi Zen Hei",
        "Droid Sans Fallback",
        "AR PL UMing CN",
        "DejaVu Sans",
    ];
    let pick = preferred
        .iter()
        .find(|p| families.iter().any(|f| f == *p))
        .map(|p| p.to_string())
        .filter(|p| p != "DejaVu Sans")
        .or_else(|| chinese_family(&db))
        .or_else(|| families.first().cloned());
    let Some(family) = pick else {
        return Arc::new(db);
    };
    // resvg reads a face's file each time it shapes text with it (hundreds of times for one
    // chart, 5 MB each for a CJK font: half the CPU of a catch-up). The chosen family's files
    // are read once, into a database of their own, held as bytes for this rendering.
    let mut files: Vec<std::path::PathBuf> = db
        .faces()
        .filter(|f| f.families.iter().any(|(n, _)| *n == family))
        .filter_map(|f| match &f.source {
            resvg::usvg::fontdb::Source::File(p) => Some(p.clone()),
            _ => None,
        })
        .collect();
    files.sort();
    files.dedup();
    let mut held = resvg::usvg::fontdb::Database::new();
    for f in &files {
        if let Ok(bytes) = std::fs::read(f) {
            held.load_font_data(bytes);
        }
    }
    if held.is_empty() {
        db.set_sans_serif_family(family);
        return Arc::new(db);
    }
    held.set_sans_serif_family(family);
    Arc::new(held)
}

/// Characters every timeline picture writes (its title, axis and legend words): a face that
/// has them all is taken to write Chinese.
const PROBE: &str = "第天投票截止锁定改票无效时间统计";

/// The first family of `db` with a face that has every character of `PROBE`.
pub fn chinese_family(db: &resvg::usvg::fontdb::Database) -> Option<String> {
    use skrifa::MetadataProvider;
    db.faces().find_map(|f| {
        let covers = db.with_face_data(f.id, |data, index| {
            skrifa::FontRef::from_index(data, index)
                .map(|font| {
                    let map = font.charmap();
                    PROBE.chars().all(|c| map.map(c).is_some())
                })
                .unwrap_or(false)
        })?;
        covers.then(|| f.families.first().map(|(n, _)| n.clone()))?
    })
}

/// Whether the machine can draw the timeline's words: the family found, or why not (Chinese,
/// for the judge). Without a Chinese font the picture would carry lines and no names.
pub fn check() -> Result<String, String> {
    let mut db = resvg::usvg::fontdb::Database::new();
    db.load_system_fonts();
    check_in(&db)
}

fn check_in(db: &resvg::usvg::fontdb::Database) -> Result<String, String> {
    chinese_family(db).ok_or_else(|| {
        format!(
            "本机没有能显示中文的字体（找到 {} 个字体，都不含中文）：邮件里投票时间线图片上的名字、时间和标题会全部缺失。\
             请先安装一个中文字体，例如 Debian/Ubuntu：sudo apt-get install fonts-wqy-microhei（或 fonts-noto-cjk），\
             Fedora：sudo dnf install wqy-microhei-fonts；装好后再运行",
            db.len()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(files: &[&str]) -> resvg::usvg::fontdb::Database {
        let mut db = resvg::usvg::fontdb::Database::new();
        for f in files {
            let _ = db.load_font_file(f);
        }
        db
    }

    const WQY: &str = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc";
    const DEJAVU: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

    #[test]
    fn the_fonts_are_loaded_once_for_the_mails_of_a_minute() {
        let first = system();
        let again = system();
        assert!(Arc::ptr_eq(&first, &again), "loaded twice within a minute");
        // Fresh fonts survive the end of a cycle; only those older than KEEP are dropped.
        assert!(!release_stale());
        assert!(Arc::ptr_eq(&first, &system()), "dropped before a minute");
        if let Ok(mut held) = HELD.lock() {
            if let Some((at, _)) = held.as_mut() {
                *at = at
                    .checked_sub(KEEP)
                    .expect("the machine is up for a minute");
            }
        }
        assert!(release_stale());
        assert!(HELD.lock().unwrap().is_none(), "kept past a minute");
        assert!(!Arc::ptr_eq(&first, &system()), "not loaded again");
    }

    #[test]
    fn a_machine_with_latin_fonts_only_is_refused_in_chinese() {
        let db = with(&[DEJAVU]);
        let e = check_in(&db).unwrap_err();
        assert!(e.starts_with("本机没有能显示中文的字体"), "{e}");
        assert!(e.contains("fonts-wqy-microhei"), "{e}");
        assert!(check_in(&with(&[])).is_err());
    }

    #[test]
    fn a_chinese_face_is_found_whatever_its_name() {
        // The CI machine has WenQuanYi (.ci/run installs it); the check reads the font's own
        // character map, not a list of names.
        assert!(
            std::path::Path::new(WQY).exists(),
            "{WQY} (fonts-wqy-microhei)"
        );
        let family = check_in(&with(&[DEJAVU, WQY])).unwrap();
        assert!(family.starts_with("WenQuanYi"), "{family}");
    }
}
