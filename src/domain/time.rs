//! Reading the times a judge writes in a config or on the command line.

use chrono::{DateTime, FixedOffset, NaiveDateTime, TimeZone};

/// "2026-11-29 21:00", "2026-11-29 21:00:00" (forum time, at `offset`) or RFC 3339.
/// The error is the Chinese message for the judge.
///
/// ```
/// use chrono::FixedOffset;
/// let east8 = FixedOffset::east_opt(8 * 3600).unwrap();
/// let t = bansha::domain::time::parse_local_time("2026-11-29 21:00", east8).unwrap();
/// assert_eq!(t.timestamp(), 1795957200);
/// assert!(bansha::domain::time::parse_local_time("明天九点", east8).is_err());
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
