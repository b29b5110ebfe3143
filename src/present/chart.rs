//! The vote timeline drawn: plotters writes the SVG (the dashboard shows it as is) and resvg
//! renders the same SVG to PNG for the mail, with the machine's fonts (Chinese names need a CJK
//! font such as fonts-wqy-microhei; without one the lines and axes still draw).

use crate::domain::rules::timeline::Timeline;
use chrono::{DateTime, Duration, FixedOffset};
use plotters::prelude::*;
use std::sync::Arc;

type Time = DateTime<FixedOffset>;

const SIZE: (u32, u32) = (860, 380);
const FONT: &str = "sans-serif";

/// The timeline as an SVG document. `lock_from`: the lock window is shaded from there to the
/// end.
pub fn svg(title: &str, t: &Timeline, lock_from: Option<Time>) -> String {
    let mut out = String::new();
    if let Err(e) = draw(&mut out, title, t, lock_from) {
        // Drawing into a string cannot fail on IO; anything else is a bug worth seeing, in the
        // picture itself (this module draws; it does not log).
        out.push_str(&format!(
            "<!-- timeline chart: {} -->",
            e.replace("--", "- -")
        ));
    }
    out
}

fn draw(
    out: &mut String,
    title: &str,
    t: &Timeline,
    lock_from: Option<Time>,
) -> Result<(), String> {
    draw_on(out, title, t, lock_from).map_err(|e| e.to_string())
}

fn draw_on<'a>(
    out: &'a mut String,
    title: &str,
    t: &Timeline,
    lock_from: Option<Time>,
) -> Result<(), Box<dyn std::error::Error + 'a>> {
    let root = SVGBackend::with_string(out, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let start = t.start;
    let end = if t.end > start {
        t.end
    } else {
        start + Duration::minutes(1)
    };
    let top = t
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0f64, f64::max)
        .max(1.0)
        .ceil()
        + 1.0;
    let long = end - start > Duration::hours(20);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, (FONT, 20))
        .margin(12)
        .x_label_area_size(32)
        .y_label_area_size(40)
        .build_cartesian_2d(start..end, 0f64..top)?;
    chart
        .configure_mesh()
        .x_labels(8)
        .y_labels(top as usize + 1)
        .y_label_formatter(&|v| format!("{v:.0}"))
        .x_label_formatter(&|x: &Time| {
            if long {
                x.format("%m-%d %H:%M").to_string()
            } else {
                x.format("%H:%M").to_string()
            }
        })
        .y_desc("票数")
        .label_style((FONT, 12))
        .light_line_style(RGBColor(238, 238, 238))
        .draw()?;
    if let Some(lock) = lock_from.filter(|l| *l < end) {
        let from = lock.max(start);
        chart.draw_series(std::iter::once(Rectangle::new(
            [(from, 0.0), (end, top)],
            RGBColor(253, 236, 236).filled(),
        )))?;
    }
    for (i, s) in t.series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        // A step function: each value holds until the next point.
        let mut steps = Vec::with_capacity(s.points.len() * 2 + 1);
        for (j, (at, v)) in s.points.iter().enumerate() {
            if j > 0 {
                steps.push((*at, s.points[j - 1].1));
            }
            steps.push((*at, *v));
        }
        if let Some((_, v)) = s.points.last() {
            steps.push((end, *v));
        }
        chart
            .draw_series(LineSeries::new(steps, color.stroke_width(2)))?
            .label(format!("{}（{}）", s.target, fmt_votes(s.points.last())))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(3))
            });
    }
    // Change labels take turns on three rows and are left out where they would overlap (the
    // lines stay; the mail and the dashboard list every change).
    let mut last_x: [Option<i32>; 3] = [None; 3];
    for c in &t.changes {
        if c.at < start || c.at > end {
            continue;
        }
        let color = if c.valid {
            RGBColor(120, 120, 120)
        } else {
            RGBColor(200, 30, 30)
        };
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(c.at, 0.0), (c.at, top - 0.35)],
            color.stroke_width(1),
        )))?;
        let label = if c.valid {
            format!("{}改票", c.voter)
        } else {
            format!("{}改票（无效）", c.voter)
        };
        let x = chart.backend_coord(&(c.at, 0.0)).0;
        let width = 11 * label.chars().count() as i32;
        if let Some(row) = (0..3).find(|r| last_x[*r].is_none_or(|l| x - l > width)) {
            last_x[row] = Some(x);
            chart.draw_series(std::iter::once(Text::new(
                label,
                (c.at, top - 0.25 - 0.3 * row as f64),
                (FONT, 11).into_font().color(&color),
            )))?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font((FONT, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(200, 200, 200))
        .draw()?;
    root.present()?;
    Ok(())
}

fn fmt_votes(p: Option<&(Time, f64)>) -> String {
    let v = p.map(|p| p.1).unwrap_or(0.0);
    format!("{} 票", crate::domain::rules::tally::fmt_votes(v))
}

/// The fonts a PNG is drawn with (`io::fonts` loads the machine's).
pub type Fonts = Arc<resvg::usvg::fontdb::Database>;

/// An SVG rendered to PNG. None when the SVG cannot be read (then the mail goes without it).
pub fn png(svg: &str, fonts: &Fonts) -> Option<Vec<u8>> {
    let opt = resvg::usvg::Options {
        fontdb: fonts.clone(),
        ..Default::default()
    };
    let tree = resvg::usvg::Tree::from_str(svg, &opt).ok()?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().ok()
}
