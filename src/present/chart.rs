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

/// Colours far apart from each other (no two yellows), in the order the series take them.
const COLOURS: [(u8, u8, u8); 12] = [
    (214, 39, 40),
    (31, 119, 180),
    (44, 160, 44),
    (255, 127, 14),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (23, 190, 207),
    (188, 189, 34),
    (127, 127, 127),
    (57, 59, 121),
    (99, 121, 57),
];

/// The width of the legend column to the right of the plot.
const LEGEND_WIDTH: u32 = 170;

fn draw_on<'a>(
    out: &'a mut String,
    title: &str,
    t: &Timeline,
    lock_from: Option<Time>,
) -> Result<(), Box<dyn std::error::Error + 'a>> {
    let root = SVGBackend::with_string(out, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(title, (FONT, 20))?;
    // The legend has its own column: it never covers the first hours of the day.
    let (plot, legend) = root.split_horizontally(SIZE.0 - LEGEND_WIDTH);
    let end = if t.end > t.start {
        t.end
    } else {
        t.start + Duration::minutes(1)
    };
    // A day whose votes come late in a long window starts where they start (a little before),
    // so the activity fills the picture rather than a corner of it.
    let first = t
        .series
        .iter()
        .filter_map(|s| s.points.first().map(|p| p.0))
        .chain(t.changes.iter().map(|c| c.at))
        .filter(|x| *x >= t.start && *x < end)
        .min();
    let start = match first {
        Some(f) if f > t.start => (f - (end - f) / 20).max(t.start),
        _ => t.start,
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
    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(32)
        .y_label_area_size(40)
        .build_cartesian_2d(start..end, 0f64..top)?;
    chart
        .configure_mesh()
        .x_labels(6)
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
        let color = series_colour(i);
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
        let steps: Vec<(Time, f64)> = steps.into_iter().map(|(x, v)| (x.max(start), v)).collect();
        chart.draw_series(LineSeries::new(steps, color.stroke_width(2)))?;
    }
    // Change labels take turns on three rows, are kept inside the plot (a label near the
    // right edge ends at its line), and are left out where they would overlap (the lines stay;
    // the mail and the dashboard list every change).
    let (plot_left, plot_right) = {
        let l = chart.backend_coord(&(start, 0.0)).0;
        let r = chart.backend_coord(&(end, 0.0)).0;
        (l, r)
    };
    let mut taken: [Vec<(i32, i32)>; 3] = Default::default();
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
        let (x, _) = chart.backend_coord(&(c.at, 0.0));
        let width = 11 * label.chars().count() as i32 + 4;
        let left = if x + width > plot_right {
            (x - width).max(plot_left)
        } else {
            x + 2
        };
        let span = (left, left + width);
        let Some(row) = (0..3).find(|r| taken[*r].iter().all(|(a, b)| span.1 < *a || span.0 > *b))
        else {
            continue;
        };
        taken[row].push(span);
        let y = chart.backend_coord(&(c.at, top - 0.2 - 0.3 * row as f64)).1;
        plot.draw(&Text::new(
            label,
            (left, y),
            (FONT, 11).into_font().color(&color),
        ))?;
    }
    draw_legend(&legend, t)?;
    root.present()?;
    Ok(())
}

/// The legend column: each target with its final count, in the order of the series.
fn draw_legend<'a, DB: DrawingBackend + 'a>(
    legend: &DrawingArea<DB, plotters::coord::Shift>,
    t: &Timeline,
) -> Result<(), Box<dyn std::error::Error + 'a>>
where
    DB::ErrorType: 'static,
{
    for (i, s) in t.series.iter().enumerate() {
        let y = 24 + 20 * i as i32;
        if y > SIZE.1 as i32 - 40 {
            legend.draw(&Text::new(
                format!("……另有 {} 人", t.series.len() - i),
                (8, y),
                (FONT, 12).into_font(),
            ))?;
            break;
        }
        legend.draw(&PathElement::new(
            vec![(6, y + 7), (26, y + 7)],
            series_colour(i).stroke_width(3),
        ))?;
        legend.draw(&Text::new(
            format!("{}（{}）", s.target, fmt_votes(s.points.last())),
            (32, y),
            (FONT, 13).into_font(),
        ))?;
    }
    Ok(())
}

/// The colour of the `i`th series.
fn series_colour(i: usize) -> RGBColor {
    let (r, g, b) = COLOURS[i % COLOURS.len()];
    RGBColor(r, g, b)
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
