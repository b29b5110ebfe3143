//! The actions file of the offline `bansha night` command: `[[action]]` with `by` (a name or a
//! list for a joint power), `power`, `target`, optional `platform` and `sent_at`. Pure: text in,
//! actions or an error naming the entry and key out.

use super::Action;
use chrono::{DateTime, FixedOffset};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    action: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    by: By,
    power: String,
    target: Option<String>,
    platform: Option<String>,
    sent_at: Option<toml::value::Datetime>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum By {
    One(String),
    Many(Vec<String>),
}

/// Read an actions file. `offset` is the game's time zone, for times written without one.
pub fn parse(file: &str, text: &str, offset: FixedOffset) -> Result<Vec<Action>, String> {
    let parsed: File = toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        match line {
            Some(l) => format!("{file} 第 {l} 行：{}", e.message()),
            None => format!("{file}：{}", e.message()),
        }
    })?;
    let mut out = Vec::new();
    for (i, e) in parsed.action.into_iter().enumerate() {
        let n = i + 1;
        let by = match e.by {
            By::One(s) => vec![s],
            By::Many(v) => v,
        };
        if by.is_empty() || by.iter().any(|b| b.trim().is_empty()) {
            return Err(format!(
                "{file} 第 {n} 条 [[action]] 的 by：要写出行动的玩家"
            ));
        }
        let sent_at = match e.sent_at {
            None => None,
            Some(t) => Some(datetime(&t.to_string(), offset).ok_or_else(|| {
                format!("{file} 第 {n} 条 [[action]] 的 sent_at = {t}：要写日期和时间，如 2026-12-02T23:40:00")
            })?),
        };
        out.push(Action {
            by,
            power: e.power.trim().to_string(),
            target: e
                .target
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty()),
            platform: e
                .platform
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty()),
            sent_at,
            source: format!("{file} 第 {n} 条"),
        });
    }
    Ok(out)
}

fn datetime(text: &str, offset: FixedOffset) -> Option<DateTime<FixedOffset>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Some(t);
    }
    let naive = chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S")
        .or_else(|_| chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M"))
        .or_else(|_| chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S"))
        .ok()?;
    naive.and_local_timezone(offset).single()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tz() -> FixedOffset {
        FixedOffset::east_opt(8 * 3600).unwrap()
    }

    #[test]
    fn reads_single_and_joint_actors_and_local_times() {
        let text = r#"
[[action]]
by = "李逵"
power = "杀人"
target = "宋江"
platform = "吴用"
sent_at = 2026-12-02T23:40:00

[[action]]
by = ["甲", "乙"]
power = "杀人"
target = "丙"
"#;
        let a = parse("n.toml", text, tz()).unwrap();
        assert_eq!(a.len(), 2);
        assert_eq!(a[0].platform.as_deref(), Some("吴用"));
        assert_eq!(
            a[0].sent_at.unwrap().to_rfc3339(),
            "2026-12-02T23:40:00+08:00"
        );
        assert_eq!(a[1].by, vec!["甲", "乙"]);
        assert_eq!(a[1].source, "n.toml 第 2 条");
    }

    #[test]
    fn an_unknown_key_names_its_line() {
        let err = parse(
            "n.toml",
            "[[action]]\nby = \"a\"\npower = \"杀人\"\ntarget2 = \"b\"\n",
            tz(),
        )
        .unwrap_err();
        assert!(err.starts_with("n.toml 第 4 行"), "{err}");
    }
}
