//! The vote timeline drawn: plotters writes the SVG (the dashboard shows it as is) and resvg
//! renders the same SVG to PNG for the mail, with the machine's fonts (`io::fonts`; bansha
//! refuses to run without one that writes Chinese). What a judge asks of it — who voted whom
//! when, who changed, what did not count — is a row per voter coloured by the target of the
//! standing ballot, a dark edge at each change that counted, a numbered red circle at each
//! ballot that did not, listed with its reason under the legend. A long day's last hours (from
//! an hour before the lock to the close) get half the width.

use crate::domain::rules::timeline::{Mark, Timeline};
use chrono::{DateTime, Duration, FixedOffset};
use plotters::prelude::*;
use std::sync::Arc;

type Time = DateTime<FixedOffset>;

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

/// The picture's width; its height grows with the voters.
const WIDTH: i32 = 960;
/// The voters' names column.
const NAMES: i32 = 120;
const ROW: i32 = 28;
const TOP: i32 = 76;
/// The last hours before the close get this share of the width when the day is longer.
const CLOSE_SHARE: f64 = 0.5;

/// The time axis: linear, or in two panels — the day up to an hour before the lock, then
/// the last hours (that hour, the lock, the close) magnified to half the width.
struct Axis {
    start: Time,
    cut: Option<Time>,
    end: Time,
    x0: i32,
    xs: i32,
    x1: i32,
}

impl Axis {
    fn new(start: Time, end: Time, lock_from: Option<Time>) -> Axis {
        let (x0, x1) = (NAMES + 10, WIDTH - 34);
        let cut = lock_from
            .map(|l| l - Duration::hours(1))
            .filter(|c| *c > start && *c < end && (*c - start) > (end - *c));
        let xs = match cut {
            Some(_) => x1 - ((x1 - x0) as f64 * CLOSE_SHARE) as i32,
            None => x1,
        };
        Axis {
            start,
            cut,
            end,
            x0,
            xs,
            x1,
        }
    }

    fn x(&self, t: Time) -> i32 {
        let t = t.clamp(self.start, self.end);
        let frac = |a: Time, b: Time| {
            let span = (b - a).num_seconds().max(1) as f64;
            ((t - a).num_seconds() as f64 / span).clamp(0.0, 1.0)
        };
        match self.cut {
            Some(c) if t < c => self.x0 + (frac(self.start, c) * (self.xs - self.x0) as f64) as i32,
            Some(c) => self.xs + (frac(c, self.end) * (self.x1 - self.xs) as f64) as i32,
            None => self.x0 + (frac(self.start, self.end) * (self.x1 - self.x0) as f64) as i32,
        }
    }

    /// Tick moments between `a` and `b`, at round multiples of a step giving at most `n`.
    fn ticks(a: Time, b: Time, n: i64) -> Vec<Time> {
        let steps = [5, 10, 15, 30, 60, 120, 180, 360, 720, 1440];
        let span = (b - a).num_minutes().max(1);
        let step = steps
            .iter()
            .copied()
            .find(|s| span / s <= n)
            .unwrap_or(1440);
        let local = a.naive_local();
        let minutes = local.and_utc().timestamp() / 60;
        let first = (minutes + step - 1) / step * step;
        (0..)
            .map(|k| a + Duration::minutes(first + k * step - minutes))
            .map(|t| t - Duration::seconds(t.timestamp() % 60))
            .take_while(|t| *t <= b)
            .collect()
    }
}

/// An estimate of the drawn width of `s` at `size` px: CJK characters are square.
fn text_width(s: &str, size: i32) -> i32 {
    s.chars()
        .map(|c| if c.is_ascii() { size * 55 / 100 } else { size })
        .sum()
}

fn draw_on<'a>(
    out: &'a mut String,
    title: &str,
    t: &Timeline,
    lock_from: Option<Time>,
) -> Result<(), Box<dyn std::error::Error + 'a>> {
    let end = if t.end > t.start {
        t.end
    } else {
        t.start + Duration::minutes(1)
    };
    let axis = Axis::new(t.start, end, lock_from);
    // The ballots that did not count, numbered in the order they were posted.
    let mut notes: Vec<&Mark> = t.rows.iter().flat_map(|r| r.void.iter()).collect();
    notes.sort_by_key(|m| m.at);
    let rows_bottom = TOP + ROW * t.rows.len().max(1) as i32;
    let legend_lines = 1 + t.series.len() as i32 / 6;
    let height = rows_bottom + 44 + 26 * legend_lines + 22 * notes.len() as i32 + 16;
    let root = SVGBackend::with_string(out, (WIDTH as u32, height as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    root.draw(&Text::new(
        title.to_string(),
        (16, 12),
        (FONT, 22).into_font().style(FontStyle::Bold),
    ))?;
    let colour = |target: &str| -> RGBColor {
        match t.series.iter().position(|s| s.target == target) {
            Some(i) => series_colour(i),
            None => RGBColor(170, 170, 170),
        }
    };
    draw_frame(&root, &axis, lock_from, rows_bottom)?;
    for (i, r) in t.rows.iter().enumerate() {
        let y = TOP + ROW * i as i32;
        if i % 2 == 1 {
            root.draw(&Rectangle::new(
                [(axis.x0, y), (axis.x1, y + ROW)],
                RGBColor(246, 246, 246).filled(),
            ))?;
        }
        let name_w = text_width(&r.voter, 15);
        root.draw(&Text::new(
            r.voter.clone(),
            ((NAMES - name_w).max(4), y + 6),
            (FONT, 15).into_font(),
        ))?;
        for (j, (from, targets)) in r.spans.iter().enumerate() {
            let until = r.spans.get(j + 1).map(|s| s.0).unwrap_or(end);
            let (a, b) = (axis.x(*from), axis.x(until).max(axis.x(*from) + 2));
            let c = colour(targets.first().map(String::as_str).unwrap_or(""));
            root.draw(&Rectangle::new([(a, y + 5), (b, y + ROW - 5)], c.filled()))?;
            if j > 0 {
                // A change that counted: a dark edge where the colour changes.
                root.draw(&PathElement::new(
                    vec![(a, y + 1), (a, y + ROW - 1)],
                    BLACK.stroke_width(2),
                ))?;
            }
            let label = targets.join("、");
            if b - a >= text_width(&label, 13) + 8 {
                root.draw(&Text::new(
                    label,
                    (a + 4, y + 7),
                    (FONT, 13).into_font().color(&WHITE),
                ))?;
            }
        }
        for m in &r.void {
            let note = 1 + notes.iter().position(|n| std::ptr::eq(*n, m)).unwrap_or(0);
            let x = axis.x(m.at);
            let red = RGBColor(200, 20, 20);
            root.draw(&Circle::new((x, y + ROW / 2), 10, WHITE.filled()))?;
            root.draw(&Circle::new((x, y + ROW / 2), 10, red.stroke_width(2)))?;
            let n = note.to_string();
            root.draw(&Text::new(
                n.clone(),
                (x - text_width(&n, 12) / 2, y + ROW / 2 - 7),
                (FONT, 12).into_font().color(&red),
            ))?;
        }
    }
    let y = rows_bottom + 40;
    draw_legend(&root, t, y)?;
    let y = y + 26 * legend_lines;
    draw_notes(&root, &notes, end - t.start > Duration::hours(20), y)?;
    root.present()?;
    Ok(())
}

/// The ballots that did not count, one line each under the legend: number, time, voter,
/// what it named and why it did not count.
fn draw_notes<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    notes: &[&Mark],
    long: bool,
    y: i32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    for (k, m) in notes.iter().enumerate() {
        root.draw(&Text::new(
            format!(
                "({}) {}  {}{}：{}",
                k + 1,
                m.at.format(if long { "%m-%d %H:%M" } else { "%H:%M" }),
                m.voter,
                if m.to.is_empty() {
                    String::new()
                } else {
                    format!(" 投 {}", m.to.join("、"))
                },
                m.reason
            ),
            (16, y + 22 * k as i32),
            (FONT, 14).into_font().color(&RGBColor(170, 20, 20)),
        ))?;
    }
    Ok(())
}

/// The panels' headings, the lock window, the close and the time axis under the rows.
fn draw_frame<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    axis: &Axis,
    lock_from: Option<Time>,
    bottom: i32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let grey = RGBColor(110, 110, 110);
    let long = axis.end - axis.start > Duration::hours(20);
    let heading =
        |text: String, a: i32| Text::new(text, (a, TOP - 24), (FONT, 14).into_font().color(&grey));
    if let Some(lock) = lock_from.filter(|l| *l < axis.end && *l >= axis.start) {
        let x = axis.x(lock);
        root.draw(&Rectangle::new(
            [(x, TOP - 4), (axis.x1, bottom)],
            RGBColor(253, 232, 232).filled(),
        ))?;
        root.draw(&Text::new(
            format!("{} 起锁定", lock.format("%H:%M")),
            (x + 4, TOP - 24),
            (FONT, 13).into_font().color(&RGBColor(190, 30, 30)),
        ))?;
    }
    match axis.cut {
        Some(c) => {
            root.draw(&heading(
                format!("全天（至 {}）", c.format("%H:%M")),
                axis.x0,
            ))?;
            root.draw(&heading(
                format!(
                    "最后 {} 小时（放大）",
                    ((axis.end - c).num_minutes() + 30) / 60
                ),
                axis.xs + 6,
            ))?;
            for dx in [-2, 2] {
                root.draw(&PathElement::new(
                    vec![(axis.xs + dx, TOP - 28), (axis.xs + dx, bottom + 6)],
                    grey.stroke_width(1),
                ))?;
            }
        }
        None => root.draw(&heading("全天".to_string(), axis.x0))?,
    }
    root.draw(&PathElement::new(
        vec![(axis.x0, bottom), (axis.x1, bottom)],
        grey.stroke_width(1),
    ))?;
    let mut ticks: Vec<(Time, bool)> = Vec::new();
    match axis.cut {
        Some(c) => {
            ticks.extend(Axis::ticks(axis.start, c, 5).into_iter().map(|t| (t, long)));
            ticks.extend(Axis::ticks(c, axis.end, 8).into_iter().map(|t| (t, false)));
        }
        None => ticks.extend(
            Axis::ticks(axis.start, axis.end, 8)
                .into_iter()
                .map(|t| (t, long)),
        ),
    }
    let mut last_right = i32::MIN;
    for (t, with_day) in ticks {
        let x = axis.x(t);
        let label = t
            .format(if with_day { "%m-%d %H:%M" } else { "%H:%M" })
            .to_string();
        let w = text_width(&label, 13);
        root.draw(&PathElement::new(
            vec![(x, TOP - 4), (x, bottom)],
            RGBColor(225, 225, 225).stroke_width(1),
        ))?;
        if x - w / 2 > last_right + 6 && x + w / 2 <= WIDTH {
            root.draw(&Text::new(
                label,
                (x - w / 2, bottom + 6),
                (FONT, 13).into_font().color(&grey),
            ))?;
            last_right = x + w / 2;
        }
    }
    let x = axis.x(axis.end);
    root.draw(&PathElement::new(
        vec![(x, TOP - 4), (x, bottom)],
        RGBColor(190, 30, 30).stroke_width(2),
    ))?;
    root.draw(&Text::new(
        format!("{} 截止", axis.end.format("%H:%M")),
        (x - 60, bottom + 22),
        (FONT, 13).into_font().color(&RGBColor(190, 30, 30)),
    ))?;
    Ok(())
}

/// The legend under the axis: each target's colour with its final count, in the order of the
/// series (the final leader first), six to a line.
fn draw_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    t: &Timeline,
    y: i32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    for (i, s) in t.series.iter().enumerate() {
        let (col, line) = ((i % 6) as i32, (i / 6) as i32);
        let x = 16 + col * 155;
        let y = y + 26 * line;
        root.draw(&Rectangle::new(
            [(x, y + 2), (x + 22, y + 16)],
            series_colour(i).filled(),
        ))?;
        root.draw(&Text::new(
            format!("{}（{}）", s.target, fmt_votes(s.points.last())),
            (x + 28, y),
            (FONT, 14).into_font(),
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
    encode_rgb(&pixmap)
}

/// The picture as an RGB PNG at the encoder's fast setting. Drawn on white, every pixel is
/// opaque, so the premultiplied RGBA pixels are the colours themselves and the alpha channel
/// says nothing; the default deflate level was most of a tally mail's CPU (the simulator's
/// profile: 13% of a whole game in `compress_inner` alone) for a picture a few KB smaller.
/// Streamed a row at a time: no RGB copy of the whole picture (a megabyte and more, allocated
/// and faulted in for every mail).
fn encode_rgb(pixmap: &resvg::tiny_skia::Pixmap) -> Option<Vec<u8>> {
    use std::io::Write;
    let width = pixmap.width() as usize;
    let mut out = Vec::with_capacity(width * pixmap.height() as usize / 2);
    {
        let mut encoder = png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        let mut writer = encoder.write_header().ok()?;
        let mut stream = writer.stream_writer().ok()?;
        let mut row = vec![0u8; width * 3];
        for line in pixmap.data().chunks_exact(width * 4) {
            // Pixel to pixel into a row of its final size: a push a pixel was a third of the
            // picture's CPU.
            for (to, p) in row.chunks_exact_mut(3).zip(line.chunks_exact(4)) {
                to.copy_from_slice(&p[..3]);
            }
            stream.write_all(&row).ok()?;
        }
        stream.finish().ok()?;
        writer.finish().ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::rules::timeline::{Row, Series};
    use chrono::TimeZone;

    fn at(d: u32, h: u32, m: u32) -> Time {
        FixedOffset::east_opt(8 * 3600)
            .unwrap()
            .with_ymd_and_hms(2026, 11, d, h, m, 0)
            .unwrap()
    }

    #[test]
    fn the_last_hours_of_a_long_day_get_half_the_width() {
        let axis = Axis::new(at(28, 12, 0), at(29, 21, 0), Some(at(29, 20, 0)));
        assert_eq!(axis.cut, Some(at(29, 19, 0)));
        let (a, b, c) = (
            axis.x(at(28, 12, 0)),
            axis.x(at(29, 19, 0)),
            axis.x(at(29, 21, 0)),
        );
        // 31 hours on the left half, 2 on the right.
        assert!(((c - b) - (b - a)).abs() <= 2, "{a} {b} {c}");
        assert!(axis.x(at(29, 20, 0)) - b >= (c - b) / 2 - 1);
        // A short day stays linear.
        let short = Axis::new(at(29, 18, 0), at(29, 21, 0), Some(at(29, 20, 0)));
        assert_eq!(short.cut, None);
    }

    #[test]
    fn each_voter_has_a_row_and_each_void_ballot_a_numbered_note() {
        let mark = |h, m, voter: &str, to: &str, reason: &str| Mark {
            at: at(29, h, m),
            voter: voter.into(),
            from: vec![],
            to: vec![to.into()],
            valid: false,
            reason: reason.into(),
        };
        let t = Timeline {
            start: at(28, 12, 0),
            end: at(29, 21, 0),
            series: vec![Series {
                target: "李逵".into(),
                points: vec![(at(28, 12, 0), 0.0), (at(28, 13, 0), 1.0)],
            }],
            changes: vec![],
            rows: vec![
                Row {
                    voter: "小飞".into(),
                    spans: vec![(at(28, 13, 0), vec!["李逵".into()])],
                    void: vec![mark(20, 31, "小飞", "冷雪", "无效：锁定时段内不得改票")],
                },
                Row {
                    voter: "超人".into(),
                    spans: vec![],
                    void: vec![mark(15, 22, "超人", "李逵", "无效：格式错误")],
                },
            ],
        };
        let svg = svg("第2天 投票时间线", &t, Some(at(29, 20, 0)));
        for text in [
            "小飞",
            "超人",
            "最后 2 小时（放大）",
            "20:00 起锁定",
            "21:00 截止",
            "李逵（1 票）",
            // Numbered in posting order: 超人's 15:22 before 小飞's 20:31.
            "(1) 11-29 15:22  超人 投 李逵：无效：格式错误",
            "(2) 11-29 20:31  小飞 投 冷雪：无效：锁定时段内不得改票",
        ] {
            assert!(svg.contains(text), "{text}\n{svg}");
        }
        assert!(!svg.contains("timeline chart:"), "{svg}");
    }

    /// The mail's RGB picture at the fast setting is the rendering itself: decoded, each pixel
    /// equals the rendered pixmap's (opaque on white), and the picture has its lines and words.
    #[test]
    fn the_png_is_the_rendered_picture_pixel_for_pixel() {
        let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><rect x="4" y="4" width="50" height="20" fill="#1f77b4"/><line x1="0" y1="35" x2="120" y2="30" stroke="#d62728" stroke-width="1.5"/></svg>"##;
        let fonts: Fonts = Arc::new(resvg::usvg::fontdb::Database::new());
        let bytes = png(svg, &fonts).expect("rendered");
        let decoder = ::png::Decoder::new(std::io::Cursor::new(&bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (120, 40));
        assert_eq!(info.color_type, ::png::ColorType::Rgb);
        // The same picture as tiny-skia draws it.
        let tree = resvg::usvg::Tree::from_str(svg, &resvg::usvg::Options::default()).unwrap();
        let mut pixmap = resvg::tiny_skia::Pixmap::new(120, 40).unwrap();
        pixmap.fill(resvg::tiny_skia::Color::WHITE);
        resvg::render(&tree, Default::default(), &mut pixmap.as_mut());
        for (i, px) in pixmap.pixels().iter().enumerate() {
            assert_eq!(px.alpha(), 255, "pixel {i} not opaque");
            let c = px.demultiply();
            assert_eq!(
                &buf[i * 3..i * 3 + 3],
                &[c.red(), c.green(), c.blue()],
                "pixel {i}"
            );
        }
        // The blue box and the red line are there (not a blank picture).
        assert!(buf.chunks(3).any(|p| p == [0x1f, 0x77, 0xb4]));
        assert!(buf.chunks(3).any(|p| p[0] > 150 && p[1] < 100));
    }
}
