//! The machine's fonts, for drawing the timeline PNG (`present::chart::png`).

use std::sync::Arc;

/// The machine's fonts, loaded for one rendering and dropped after it: charts are drawn a few
/// times a day, and a font database kept loaded holds the font files (several MB of a
/// long-running daemon's memory) for nothing in between. Only the family the chart uses is
/// kept, read into memory once.
pub fn system() -> Arc<resvg::usvg::fontdb::Database> {
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
