//! A day thread's subject pattern (`第{day}天.*投票帖`) compiled: a leaf of the domain, so
//! config validation and `days::discover` share it without importing each other.

use bansha_parsers::numerals::parse_number;
use regex::Regex;
use std::collections::BTreeSet;

/// What `{day}` stands for in a subject pattern: a day's number in digits of either width or
/// in Chinese numerals.
const DAY_GROUP: &str = "[0-9０-９]{1,3}|[零〇一二两三四五六七八九十廿卅百]{1,5}";
/// Subjects longer than this are read this far (a subject is at most 80 characters in Discuz).
const SUBJECT_CHARS: usize = 300;

/// A subject pattern with `{day}` compiled: `第{day}天.*投票[帖贴楼]`.
#[derive(Debug, Clone)]
pub struct SubjectPattern {
    re: Regex,
    groups: usize,
}

impl SubjectPattern {
    /// Compile a pattern; the error is Chinese, for the judge (`{day}` missing, invalid regex).
    pub fn new(pattern: &str) -> Result<Self, String> {
        // Compiled once a pattern (a compile is a million instructions; every reload of the
        // config and every look for a day's threads asks again). A clone shares the compiled
        // regex.
        static COMPILED: std::sync::LazyLock<
            std::sync::Mutex<std::collections::HashMap<String, Result<SubjectPattern, String>>>,
        > = std::sync::LazyLock::new(Default::default);
        const KEPT: usize = 64;
        if let Some(done) = COMPILED.lock().ok().and_then(|c| c.get(pattern).cloned()) {
            return done;
        }
        let done = Self::compile(pattern);
        if let Ok(mut c) = COMPILED.lock() {
            if c.len() >= KEPT {
                c.clear();
            }
            c.insert(pattern.to_string(), done.clone());
        }
        done
    }

    fn compile(pattern: &str) -> Result<Self, String> {
        let groups = pattern.matches("{day}").count();
        if groups == 0 {
            return Err(format!(
                "标题模式“{pattern}”里没有 {{day}}：要用 {{day}} 标出天数（如 第{{day}}天.*投票帖）"
            ));
        }
        let mut source = String::new();
        for (i, part) in pattern.split("{day}").enumerate() {
            if i > 0 {
                source.push_str(&format!("(?P<day{}>{DAY_GROUP})", i - 1));
            }
            source.push_str(part);
        }
        let re = Regex::new(&source)
            .map_err(|e| format!("标题模式“{pattern}”不是有效的正则表达式：{e}"))?;
        Ok(SubjectPattern { re, groups })
    }

    /// Every day number the subject matches as (several when it names several days).
    pub fn days_in(&self, subject: &str) -> BTreeSet<u32> {
        let end = subject
            .char_indices()
            .nth(SUBJECT_CHARS)
            .map_or(subject.len(), |(i, _)| i);
        let subject = &subject[..end];
        let mut days = BTreeSet::new();
        let mut at = 0;
        while at <= subject.len() {
            let Some(c) = self.re.captures_at(subject, at) else {
                break;
            };
            for g in 0..self.groups {
                if let Some(n) = c
                    .name(&format!("day{g}"))
                    .and_then(|m| parse_number(m.as_str()))
                {
                    days.insert(n);
                }
            }
            // Try again from the next character: a later start may name another day.
            let start = c.get(0).map_or(subject.len(), |m| m.start());
            at = subject[start..]
                .chars()
                .next()
                .map_or(subject.len() + 1, |ch| start + ch.len_utf8());
        }
        days
    }
}
