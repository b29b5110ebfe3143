//! Reading the times a judge writes in a config or on the command line.

use anyhow::{bail, Context};
use chrono::{DateTime, FixedOffset, NaiveDateTime, TimeZone};

/// "2026-11-29 21:00", "2026-11-29 21:00:00" (forum time, at `offset`) or RFC 3339.
/// The error is the Chinese message for the judge.
///
/// ```
/// use chrono::FixedOffset;
/// let east8 = FixedOffset::east_opt(8 * 3600).unwrap();
/// let t = bansha_domain::time::parse_local_time("2026-11-29 21:00", east8).unwrap();
/// assert_eq!(t.timestamp(), 1795957200);
/// assert!(bansha_domain::time::parse_local_time("明天九点", east8).is_err());
/// ```
pub fn parse_local_time(s: &str, offset: FixedOffset) -> Result<DateTime<FixedOffset>, String> {
    let t = s.trim();
    if let Ok(dt) = DateTime::parse_from_rfc3339(t) {
        return Ok(dt);
    }
    for fmt in [
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(naive) = NaiveDateTime::parse_from_str(t, fmt) {
            return offset
                .from_local_datetime(&naive)
                .single()
                .ok_or_else(|| format!("时间 {s:?} 无效"));
        }
    }
    Err(format!(
        "时间 {s:?} 格式不对，应写作 2026-11-29 21:00 或 2026-11-29 21:00:00（论坛时间）"
    ))
}

/// Parse an offset such as "+08:00", "+8" or "-05:30".
///
/// ```
/// let east8 = bansha_domain::time::parse_utc_offset("+8").unwrap();
/// assert_eq!(east8.local_minus_utc(), 8 * 3600);
/// assert!(bansha_domain::time::parse_utc_offset("Beijing").is_err());
/// ```
pub fn parse_utc_offset(s: &str) -> anyhow::Result<FixedOffset> {
    let t = s.trim();
    let (sign, rest) = match t.chars().next() {
        Some('+') => (1, &t[1..]),
        Some('-') => (-1, &t[1..]),
        _ => bail!("时区偏移 {s:?} 格式不对，应写作 +08:00"),
    };
    let (h, m) = match rest.split_once(':') {
        Some((h, m)) => (h, m),
        None => (rest, "0"),
    };
    let h: i32 = h
        .parse()
        .with_context(|| format!("时区偏移 {s:?} 的小时不是数字"))?;
    let m: i32 = m
        .parse()
        .with_context(|| format!("时区偏移 {s:?} 的分钟不是数字"))?;
    FixedOffset::east_opt(sign * (h * 3600 + m * 60))
        .with_context(|| format!("时区偏移 {s:?} 超出范围"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets() {
        assert_eq!(
            parse_utc_offset("+08:00").unwrap().local_minus_utc(),
            8 * 3600
        );
        assert_eq!(parse_utc_offset("+8").unwrap().local_minus_utc(), 8 * 3600);
        assert_eq!(
            parse_utc_offset("-05:30").unwrap().local_minus_utc(),
            -(5 * 3600 + 30 * 60)
        );
        assert!(parse_utc_offset("8").is_err());
        assert!(parse_utc_offset("+99").is_err());
    }
}
