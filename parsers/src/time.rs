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
    let c = ABSOLUTE.captures(s)?;
    let num = |i: usize| -> Option<u32> { c.get(i)?.as_str().parse().ok() };
    let date = NaiveDate::from_ymd_opt(c[1].parse().ok()?, num(2)?, num(3)?)?;
    let (sec, precision) = match num(6) {
        Some(s) => (s, TimePrecision::Second),
        None => (0, TimePrecision::Minute),
    };
    let time = NaiveTime::from_hms_opt(num(4)?, num(5)?, sec)?;
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
