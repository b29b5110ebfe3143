//! Required posts (reports, kill posts): Word-compatible figures against the game's thresholds,
//! the killer's code name, edits, and similarity to earlier texts (原创首发). Pure.

use crate::domain::config::PostCheck;
use bansha_parsers::ballot::normalize;
use bansha_parsers::wordcount::{figures, Figures};
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
pub fn check_post(
    rule: &PostCheck,
    own_text: &str,
    quotes: &[&str],
    code_names: &[String],
    edited: bool,
    earlier: &[(String, String)],
) -> PostVerdict {
    let f = figures(own_text, quotes);
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
    if let Some(max) = rule.max_quote_share {
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
    if rule.no_edits && edited {
        failures.push("帖子被编辑过（不允许编辑，修改需重新跟帖）".into());
    }
    let mine = normalize(own_text);
    let similar = earlier
        .iter()
        .map(|(label, t)| Similar {
            label: label.clone(),
            // Levenshtein on characters: strsim's sorensen_dice divides by byte lengths, which
            // undercounts Chinese text threefold.
            share: strsim::normalized_levenshtein(&mine, &normalize(t)),
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

#[cfg(test)]
mod tests {
    use super::*;

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
        };
        let a = "圣火令我觉得这一夜的月光格外清冷楚汉两军对峙已久".repeat(20);
        let b = a.replacen("楚汉", "秦汉", 3);
        let v = check_post(&rule, &b, &[], &[], false, &[("earlier".into(), a)]);
        assert!(!v.pass, "{v:?}");
    }
}
