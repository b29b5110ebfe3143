//! Numbers as judges write them in subjects and deadlines: ASCII or full-width digits, or
//! Chinese numerals (`三`, `十二`, `二十三`, `两`, `廿一`, `一百零五`).

/// The value of `s` when it is wholly one number: digits (ASCII or full-width) or Chinese
/// numerals up to 9999. `None` for anything else, and for a value that does not fit.
pub fn parse_number(s: &str) -> Option<u32> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    if s.chars().all(|c| fold_digit(c).is_some()) {
        if s.chars().count() > 9 {
            return None;
        }
        return Some(
            s.chars()
                .fold(0, |n, c| n * 10 + fold_digit(c).unwrap_or(0)),
        );
    }
    chinese(s)
}

/// A digit's value, ASCII or full-width.
pub fn fold_digit(c: char) -> Option<u32> {
    match c {
        '0'..='9' => Some(c as u32 - '0' as u32),
        '０'..='９' => Some(c as u32 - '０' as u32),
        _ => None,
    }
}

fn chinese_digit(c: char) -> Option<u32> {
    Some(match c {
        '零' | '〇' => 0,
        '一' | '壹' => 1,
        '二' | '两' | '贰' => 2,
        '三' | '叁' => 3,
        '四' | '肆' => 4,
        '五' | '伍' => 5,
        '六' | '陆' => 6,
        '七' | '柒' => 7,
        '八' | '捌' => 8,
        '九' | '玖' => 9,
        _ => return None,
    })
}

/// Chinese numerals: units 十, 百, 千 with their multipliers; 廿 (20) and 卅 (30); a run of
/// plain digits (`二〇二六`) read digit by digit.
fn chinese(s: &str) -> Option<u32> {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() > 12 {
        return None;
    }
    if chars.iter().all(|c| chinese_digit(*c).is_some()) {
        if chars.len() > 4 {
            return None;
        }
        return Some(
            chars
                .iter()
                .fold(0, |n, c| n * 10 + chinese_digit(*c).unwrap_or(0)),
        );
    }
    let mut total = 0u32;
    let mut pending: Option<u32> = None;
    let mut last_unit = u32::MAX;
    for c in chars {
        if let Some(d) = chinese_digit(c) {
            if pending.is_some() && d != 0 {
                return None; // two digits in a row inside a unit number: "二三十"
            }
            pending = if d == 0 { None } else { Some(d) };
            continue;
        }
        let (unit, implied) = match c {
            '十' | '拾' => (10, 1),
            '百' | '佰' => (100, 1),
            '千' | '仟' => (1000, 1),
            '廿' => (10, 2),
            '卅' => (10, 3),
            _ => return None,
        };
        if unit >= last_unit {
            return None; // "十十", "十百"
        }
        last_unit = unit;
        total += pending.take().unwrap_or(implied) * unit;
    }
    Some(total + pending.unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_of_both_widths() {
        assert_eq!(parse_number("3"), Some(3));
        assert_eq!(parse_number("３"), Some(3));
        assert_eq!(parse_number("１2"), Some(12));
        assert_eq!(parse_number("2026"), Some(2026));
    }

    #[test]
    fn chinese_numerals_up_to_and_past_thirty() {
        let expected =
            "一 二 三 四 五 六 七 八 九 十 十一 十二 十三 十四 十五 十六 十七 十八 十九 二十 \
                        二十一 二十二 二十三 二十四 二十五 二十六 二十七 二十八 二十九 三十 三十一";
        let expected: Vec<&str> = expected.split_whitespace().collect();
        assert_eq!(expected.len(), 31);
        for (i, s) in expected.iter().enumerate() {
            assert_eq!(parse_number(s), Some(i as u32 + 1), "{s}");
        }
        assert_eq!(parse_number("两"), Some(2));
        assert_eq!(parse_number("廿一"), Some(21));
        assert_eq!(parse_number("卅"), Some(30));
        assert_eq!(parse_number("一十二"), Some(12));
        assert_eq!(parse_number("一百零五"), Some(105));
        assert_eq!(parse_number("二〇二六"), Some(2026));
    }

    #[test]
    fn not_numbers() {
        for s in [
            "",
            "十十",
            "二三十",
            "三x",
            "天",
            "十百",
            "１２３４５６７８９０",
        ] {
            assert_eq!(parse_number(s), None, "{s}");
        }
    }
}
