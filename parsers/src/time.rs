//! Times as Discuz prints them, read in the forum's fixed UTC offset.

use chrono::{DateTime, Duration, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeZone};
use regex::Regex;
use std::sync::LazyLock;

use crate::model::TimePrecision;

static ABSOLUTE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(\d{4})-(\d{1,2})-(\d{1,2})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?").unwrap()
});
static RELATIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:(?P<n>\d+)\s*(?P<unit>秒|分钟|小时|天)前|(?P<half>半小时前)|(?P<now>刚刚)|(?P<day>昨天|前天)\s*(?P<h>\d{1,2}):(?P<m>\d{2}))$",
    )
    .unwrap()
});

/// Read the first "Y-n-j H:i[:s]" date in `s`, in `offset`.
pub(crate) fn parse_absolute(
    s: &str,
    offset: FixedOffset,
) -> Option<(DateTime<FixedOffset>, TimePrecision)> {
    // The commonest text, a date and nothing else, without the regex (the same fields).
    if let Some(f) = exact_absolute(s.trim()) {
        return at(f, offset);
    }
    let c = ABSOLUTE.captures(s)?;
    let num = |i: usize| -> Option<u32> { c.get(i)?.as_str().parse().ok() };
    let fields = [c[1].parse().ok()?, num(2)?, num(3)?, num(4)?, num(5)?];
    at((fields, num(6)), offset)
}

/// Year, month, day, hour, minute; and the second when the text has one.
type Fields = ([u32; 5], Option<u32>);

/// `s` when it is exactly "YYYY-M[M]-D[D] H[H]:MM[:SS]" in ASCII digits and spaces: the
/// regex's first match is then the whole of it, with these fields. `None` for anything else.
fn exact_absolute(s: &str) -> Option<Fields> {
    let b = s.as_bytes();
    let mut i = 0;
    let year = digits(b, &mut i, 4, 4, b'-')?;
    let month = digits(b, &mut i, 1, 2, b'-')?;
    let day = digits(b, &mut i, 1, 2, b' ')?;
    let hour = digits(b, &mut i, 1, 2, b':')?;
    if b.len() == i + 2 {
        let minute = digits(b, &mut i, 2, 2, 0)?;
        return Some(([year, month, day, hour, minute], None));
    }
    let minute = digits(b, &mut i, 2, 2, b':')?;
    let second = digits(b, &mut i, 2, 2, 0)?;
    Some(([year, month, day, hour, minute], Some(second)))
}

/// A run of `min..=max` ASCII digits at `*i`, then `then` (0: the end of the text; a space:
/// one or more); `*i` moves past both.
fn digits(b: &[u8], i: &mut usize, min: usize, max: usize, then: u8) -> Option<u32> {
    let start = *i;
    let mut v = 0u32;
    while *i < b.len() && b[*i].is_ascii_digit() && *i - start < max {
        v = v * 10 + u32::from(b[*i] - b'0');
        *i += 1;
    }
    if *i - start < min {
        return None;
    }
    match (b.get(*i), then) {
        (None, 0) => {}
        (Some(c), t) if *c == t && t != 0 => *i += 1,
        _ => return None,
    }
    if then == b' ' {
        while b.get(*i) == Some(&b' ') {
            *i += 1;
        }
    }
    Some(v)
}

fn at(
    ([year, month, day, hour, minute], second): Fields,
    offset: FixedOffset,
) -> Option<(DateTime<FixedOffset>, TimePrecision)> {
    let date = NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)?;
    let (sec, precision) = match second {
        Some(s) => (s, TimePrecision::Second),
        None => (0, TimePrecision::Minute),
    };
    let time = NaiveTime::from_hms_opt(hour, minute, sec)?;
    let local = offset
        .from_local_datetime(&NaiveDateTime::new(date, time))
        .single()?;
    Some((local, precision))
}

/// Read a relative time ("3 分钟前", "半小时前", "昨天 21:03", "3 天前") against the server
/// time the page printed. The result is only as precise as the text.
pub(crate) fn parse_relative(
    s: &str,
    server_now: DateTime<FixedOffset>,
) -> Option<(DateTime<FixedOffset>, TimePrecision)> {
    let s: String = s
        .chars()
        .map(|c| if c == '\u{a0}' { ' ' } else { c })
        .collect();
    let c = RELATIVE.captures(s.trim())?;
    if c.name("now").is_some() {
        return Some((server_now, TimePrecision::Minute));
    }
    if c.name("half").is_some() {
        return Some((server_now - Duration::minutes(30), TimePrecision::Minute));
    }
    if let Some(day) = c.name("day") {
        let back = if day.as_str() == "昨天" { 1 } else { 2 };
        let date = server_now.date_naive() - Duration::days(back);
        let time = NaiveTime::from_hms_opt(c["h"].parse().ok()?, c["m"].parse().ok()?, 0)?;
        let t = server_now
            .offset()
            .from_local_datetime(&NaiveDateTime::new(date, time))
            .single()?;
        return Some((t, TimePrecision::Minute));
    }
    let n: i64 = c["n"].parse().ok()?;
    let (delta, precision) = match &c["unit"] {
        "秒" => (Duration::seconds(n), TimePrecision::Minute),
        "分钟" => (Duration::minutes(n), TimePrecision::Minute),
        "小时" => (Duration::hours(n), TimePrecision::Hour),
        _ => (Duration::days(n), TimePrecision::Day),
    };
    Some((server_now.checked_sub_signed(delta)?, precision))
}

/// A unix timestamp in `offset`.
pub(crate) fn from_unix(secs: i64, offset: FixedOffset) -> Option<DateTime<FixedOffset>> {
    DateTime::from_timestamp(secs, 0).map(|t| t.with_timezone(&offset))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cst() -> FixedOffset {
        FixedOffset::east_opt(8 * 3600).unwrap()
    }

    #[test]
    fn absolute_with_and_without_seconds() {
        let (t, p) = parse_absolute("发表于 2026-11-28 21:33:21", cst()).unwrap();
        assert_eq!(t.to_rfc3339(), "2026-11-28T21:33:21+08:00");
        assert_eq!(p, TimePrecision::Second);
        let (t, p) = parse_absolute("2026-1-5 9:03", cst()).unwrap();
        assert_eq!(t.to_rfc3339(), "2026-01-05T09:03:00+08:00");
        assert_eq!(p, TimePrecision::Minute);
        assert!(parse_absolute("2026-13-45 99:99", cst()).is_none());
    }

    /// The regex alone, as `parse_absolute` read every text before its exact path.
    fn by_regex(s: &str) -> Option<(DateTime<FixedOffset>, TimePrecision)> {
        let c = ABSOLUTE.captures(s)?;
        let num = |i: usize| -> Option<u32> { c.get(i)?.as_str().parse().ok() };
        let fields = [c[1].parse().ok()?, num(2)?, num(3)?, num(4)?, num(5)?];
        at((fields, num(6)), cst())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5_000))]
        /// Texts near the format (digits of every width, odd separators, trailing parts,
        /// fullwidth digits): the exact path and the regex read the same time.
        #[test]
        fn the_exact_path_reads_as_the_regex(
            prefix in "(|发表于 | |x|1)",
            year in 999u32..10_100,
            month in 0u32..14,
            day in 0u32..33,
            hour in 0u32..26,
            minute in 0u32..62,
            second in proptest::option::of(0u32..62),
            pad in proptest::collection::vec(proptest::bool::ANY, 6),
            gap in "( |  |\t|　|)",
            suffix in "(| |:|a|0)",
        ) {
            let f = |v: u32, p: bool| if p { format!("{v:02}") } else { v.to_string() };
            let mut s = format!(
                "{prefix}{year}-{}-{}{gap}{}:{}",
                f(month, pad[0]),
                f(day, pad[1]),
                f(hour, pad[2]),
                f(minute, pad[3]),
            );
            if let Some(sec) = second {
                s.push(':');
                s.push_str(&f(sec, pad[4]));
            }
            s.push_str(&suffix);
            proptest::prop_assert_eq!(parse_absolute(&s, cst()), by_regex(&s), "{:?}", s);
        }
    }

    #[test]
    fn relative_against_footer_time() {
        let (now, _) = parse_absolute("2026-11-29 21:18", cst()).unwrap();
        let r = |s| parse_relative(s, now).map(|(t, p)| (t.to_rfc3339(), p));
        assert_eq!(
            r("昨天\u{a0}21:33"),
            Some(("2026-11-28T21:33:00+08:00".into(), TimePrecision::Minute))
        );
        assert_eq!(
            r("前天 09:05").unwrap().0,
            "2026-11-27T09:05:00+08:00".to_string()
        );
        assert_eq!(
            r("半小时前").unwrap().0,
            "2026-11-29T20:48:00+08:00".to_string()
        );
        assert_eq!(
            r("13\u{a0}小时前"),
            Some(("2026-11-29T08:18:00+08:00".into(), TimePrecision::Hour))
        );
        assert_eq!(r("3 天前").unwrap().1, TimePrecision::Day);
        assert_eq!(r("下周"), None);
    }
}
