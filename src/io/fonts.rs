//! The machine's fonts, for drawing the timeline PNG (`present::chart::png`).

use std::sync::Arc;

/// The machine's fonts, loaded for one rendering and dropped after it: charts are drawn a few
/// times a day, and a font database kept loaded holds the font files mapped (several MB of a
/// long-running daemon's memory) for nothing in between.
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
    if let Some(family) = pick {
        db.set_sans_serif_family(family);
    }
    Arc::new(db)
}
