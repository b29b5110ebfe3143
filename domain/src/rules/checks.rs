//! Required posts (reports, kill posts): Word-compatible figures against the game's thresholds,
//! the killer's code name, edits, and similarity to earlier texts (原创首发). Pure.

use crate::config::PostCheck;
use bansha_parsers::ballot::normalize;
use bansha_parsers::wordcount::{post_figures, Figures};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct Similar {
    pub label: String,
    pub share: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct PostVerdict {
    pub label: String,
    pub figures: Figures,
    pub pass: bool,
    /// What fails, in Chinese.
    pub failures: Vec<String>,
    /// The most similar earlier text, when it is over the threshold.
    pub similar: Option<Similar>,
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// Check one post. `earlier`: (label, text) of texts seen before it, for originality.
/// `poetry`: the judge says it is a 古诗词赏析 post, whose quoted verses are not held to the
/// quote limit (bansha42 L58 "如是古诗词赏析杀帖中必须引用点评的诗词句不计").
pub fn check_post(
    rule: &PostCheck,
    own_text: &str,
    quotes: &[&str],
    code_names: &[String],
    (edited, poetry): (bool, bool),
    earlier: &[(String, String)],
) -> PostVerdict {
    // Inline quotations are quotes too, where the rules say so (the figures are
    // `wordcount --inline-quotes`'s, the same function).
    let f = post_figures(own_text, quotes, rule.inline_quotes);
    let (own_text, inline) = if rule.inline_quotes {
        bansha_parsers::wordcount::split_inline_quotes(own_text)
    } else {
        (own_text.to_string(), Vec::new())
    };
    let own_text = own_text.as_str();
    let all: Vec<&str> = quotes
        .iter()
        .copied()
        .chain(inline.iter().map(String::as_str))
        .collect();
    let mut failures = Vec::new();
    if let Some(n) = rule.min_words {
        if f.total.words < n {
            failures.push(format!("总字数 {}，少于 {n}", f.total.words));
        }
    }
    if let Some(n) = rule.min_own_words {
        if f.own.words < n {
            failures.push(format!("去掉引用后 {} 字，少于 {n}", f.own.words));
        }
    }
    if let Some(n) = rule.min_chars {
        if f.total.chars_no_spaces < n {
            failures.push(format!("字符数 {}，少于 {n}", f.total.chars_no_spaces));
        }
    }
    if let Some(max) = rule.max_quote_share.filter(|_| !poetry) {
        if f.quoted_share > max + 1e-12 {
            failures.push(format!(
                "引用 {} 字，占 {}，超过 {}",
                f.quoted_words,
                pct(f.quoted_share),
                pct(max)
            ));
        }
    }
    if let Some(max) = rule.max_repeat_share {
        if f.repeated_share > max + 1e-12 {
            failures.push(format!(
                "重复句子 {} 字，占 {}，超过 {}",
                f.repeated_words,
                pct(f.repeated_share),
                pct(max)
            ));
        }
    }
    if rule.must_name_code {
        let text = normalize(own_text);
        if code_names.is_empty() {
            failures.push("需要注明杀手代号，但没有给出代号（--code-name）".into());
        } else if !code_names.iter().any(|c| text.contains(&normalize(c))) {
            failures.push(format!("没有注明杀手代号（{}）", code_names.join(" 或 ")));
        }
    }
    if rule.simplified_only {
        let whole: String = std::iter::once(own_text)
            .chain(all.iter().copied())
            .collect();
        let trad = bansha_parsers::wordcount::traditional_chars(&whole);
        if !trad.is_empty() {
            let n: usize = trad.iter().map(|(_, n)| n).sum();
            let shown: String = trad.iter().take(20).map(|(c, _)| *c).collect();
            failures.push(format!(
                "含繁体字 {n} 个（{shown}{}），要求用简化汉字",
                if trad.len() > 20 { "…" } else { "" }
            ));
        }
    }
    if rule.no_edits && edited {
        failures.push("帖子被编辑过（不允许编辑，修改需重新跟帖）".into());
    }
    let mine = normalize(own_text);
    let similar = earlier
        .iter()
        .filter_map(|(label, t)| {
            let theirs = normalize(t);
            // The quadratic distance only where the linear bound can reach the threshold.
            (similarity_bound(&mine, &theirs) >= rule.max_similarity).then(|| Similar {
                label: label.clone(),
                // Levenshtein on characters: strsim's sorensen_dice divides by byte lengths,
                // which undercounts Chinese text threefold.
                share: strsim::normalized_levenshtein(&mine, &theirs),
            })
        })
        .filter(|s| s.share >= rule.max_similarity)
        .max_by(|a, b| {
            a.share
                .partial_cmp(&b.share)
                .unwrap_or(std::cmp::Ordering::Equal)
        });
    if let Some(s) = &similar {
        failures.push(format!(
            "与 {} 高度相似（{}），可能不是原创首发",
            s.label,
            pct(s.share)
        ));
    }
    PostVerdict {
        label: rule.label.clone(),
        figures: f,
        pass: failures.is_empty(),
        failures,
        similar,
    }
}

/// An upper bound of `strsim::normalized_levenshtein` (on characters): one less the bag
/// distance (the characters one text has more of than the other, the larger side), which no
/// edit script beats, over the longer length. Linear where the distance is quadratic: a long
/// kill post against every earlier text was most of a bansha42 night's work.
fn similarity_bound(a: &str, b: &str) -> f64 {
    let longest = a.chars().count().max(b.chars().count());
    if longest == 0 {
        return 1.0;
    }
    let mut counts: std::collections::HashMap<char, i64> = std::collections::HashMap::new();
    for c in a.chars() {
        *counts.entry(c).or_default() += 1;
    }
    for c in b.chars() {
        *counts.entry(c).or_default() -= 1;
    }
    let (more, fewer) = counts.values().fold(
        (0, 0),
        |(m, f), v| {
            if *v > 0 {
                (m + v, f)
            } else {
                (m, f - v)
            }
        },
    );
    1.0 - more.max(fewer) as f64 / longest as f64
}

/// Where a player stands at a required post's roll-call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Roll {
    /// A passing post (floor).
    Arrived(String),
    /// A failing post, then a passing one in time (the passing floor, the failing one).
    Fixed(String, String),
    /// No passing post by the deadline: why (the last failing one, or none at all).
    Missing(String),
}

/// One post as the roll-call weighs it: author, floor, text, quotes, edited.
pub struct Submitted<'a> {
    pub author: &'a str,
    pub floor: &'a str,
    pub text: &'a str,
    pub quotes: Vec<&'a str>,
    pub edited: bool,
}

/// The roll-call of a required post at its deadline (bansha42 L48 "第一轮结束后未补的判出局",
/// L51 "踩而未到视为未到": a failing post is no arrival): each of `players` with a passing post
/// among `posts` (in posting order, as they stood at the deadline). A player in `challenged`
/// must pass the redo check instead (L49 "需重新报道601字以上").
pub fn roll_call(
    rule: &PostCheck,
    redo: Option<&PostCheck>,
    posts: &[Submitted],
    players: &[String],
    challenged: &[String],
    code_names: &[String],
) -> Vec<(String, Roll)> {
    players
        .iter()
        .map(|p| {
            let rule = match redo.filter(|_| challenged.contains(p)) {
                Some(r) => r,
                None => rule,
            };
            let mut failed: Option<(String, String)> = None;
            let mut passed: Option<String> = None;
            // The first passing post counts; a failing one fixed is one before it.
            for s in posts.iter().filter(|s| s.author == p) {
                let v = check_post(rule, s.text, &s.quotes, code_names, (s.edited, false), &[]);
                if v.pass {
                    passed = Some(s.floor.to_string());
                    break;
                }
                failed = Some((s.floor.to_string(), v.failures.join("；")));
            }
            let roll = match (passed, failed) {
                (Some(ok), Some((bad, _))) => Roll::Fixed(ok, bad),
                (Some(ok), None) => Roll::Arrived(ok),
                (None, Some((bad, why))) => {
                    Roll::Missing(format!("{bad} 不合格（{why}），踩而未到视为未到"))
                }
                (None, None) => Roll::Missing("没有发".into()),
            };
            (p.clone(), roll)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    /// The bound is never below the distance's similarity (so no similar text is missed), for
    /// texts alike, apart, empty, of other lengths, reordered.
    #[test]
    fn the_similarity_bound_is_never_below_the_similarity() {
        let texts = [
            "",
            "月色如水照在江面上",
            "月色如水照在江面",
            "江面上月色如水照在",
            "春水向东流去不回头",
            "月色如火照在江面上。春水向东流",
            "abc月色",
            "月月月月月",
        ];
        for a in texts {
            for b in texts {
                let exact = strsim::normalized_levenshtein(a, b);
                let bound = super::similarity_bound(a, b);
                assert!(bound >= exact, "{a:?} {b:?}: {bound} < {exact}");
            }
        }
        // Reordered, the bound says alike where the distance does not: it only spares work.
        assert_eq!(super::similarity_bound("月色如水", "水如色月"), 1.0);
        assert!(super::similarity_bound("月色如水", "春风化雨") < 0.8);
    }

    use super::*;

    /// bansha42 L48, L49, L51: arrived, fixed in time, missing (a failing post is no
    /// arrival), and a challenged player held to the redo's 601 words.
    #[test]
    fn the_roll_call_of_reports() {
        let rule = |min: usize| PostCheck {
            label: "报道".into(),
            min_words: Some(min),
            min_own_words: Some(min),
            min_chars: None,
            max_quote_share: Some(0.1),
            max_repeat_share: None,
            must_name_code: false,
            no_edits: true,
            max_similarity: 0.8,
            fix_by_day: Some(1),
            inline_quotes: true,
            simplified_only: false,
            redo_kind: None,
        };
        let seed = include_str!("../../../tests/fixtures/seeds/004_bansha42.txt");
        let prose: String = seed
            .chars()
            .filter(|c| bansha_parsers::wordcount::is_east_asian(*c) && !"“”「」『』".contains(*c))
            .collect();
        let long: String = prose.chars().take(700).collect();
        let short: String = prose.chars().take(100).collect();
        let post =
            |author: &'static str, floor: &'static str, text: &'static str, edited| Submitted {
                author,
                floor,
                text,
                quotes: Vec::new(),
                edited,
            };
        let long: &'static str = Box::leak(long.into_boxed_str());
        let short: &'static str = Box::leak(short.into_boxed_str());
        let posts = vec![
            post("甲", "2#", long, false),
            post("乙", "3#", short, false),
            post("乙", "5#", long, false),
            post("丙", "4#", short, false),
            post("丁", "6#", long, true),
            post("戊", "7#", long, false),
        ];
        let players: Vec<String> = ["甲", "乙", "丙", "丁", "戊", "己"]
            .map(String::from)
            .to_vec();
        let roll = roll_call(
            &rule(301),
            Some(&rule(601)),
            &posts,
            &players,
            &["戊".to_string()],
            &[],
        );
        assert_eq!(roll[0].1, Roll::Arrived("2#".into()));
        assert_eq!(roll[1].1, Roll::Fixed("5#".into(), "3#".into()));
        assert!(
            matches!(&roll[2].1, Roll::Missing(w) if w.contains("4# 不合格") && w.contains("踩而未到视为未到"))
        );
        assert!(
            matches!(&roll[3].1, Roll::Missing(w) if w.contains("帖子被编辑过")),
            "L48 报道不得编辑"
        );
        assert_eq!(
            roll[4].1,
            Roll::Arrived("7#".into()),
            "700 words pass the redo's 601"
        );
        assert_eq!(roll[5].1, Roll::Missing("没有发".into()));
        // Held to 801, the challenged player's 700 words would not do.
        let strict = roll_call(
            &rule(301),
            Some(&rule(801)),
            &posts,
            &players,
            &["戊".to_string()],
            &[],
        );
        assert!(matches!(&strict[4].1, Roll::Missing(_)));
    }

    #[test]
    fn similar_texts_are_flagged() {
        let rule = PostCheck {
            label: "t".into(),
            min_words: None,
            min_own_words: None,
            min_chars: None,
            max_quote_share: None,
            max_repeat_share: None,
            must_name_code: false,
            no_edits: false,
            max_similarity: 0.8,
            fix_by_day: None,
            inline_quotes: false,
            simplified_only: false,
            redo_kind: None,
        };
        let a = "圣火令我觉得这一夜的月光格外清冷楚汉两军对峙已久".repeat(20);
        let b = a.replacen("楚汉", "秦汉", 3);
        let v = check_post(
            &rule,
            &b,
            &[],
            &[],
            (false, false),
            &[("earlier".into(), a)],
        );
        assert!(!v.pass, "{v:?}");
    }
}
