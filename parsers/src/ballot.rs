//! Post text to ballots, in the formats a game's judge announces.
//!
//! A format is a template the judge writes in the game config, e.g.
//! `投票对象：{target}\n投票理由：{reason}` or
//! `{voter} 第{day}天 第{n}次 投票的对象是 {target} 原因是 {reason}`. Templates and post text are
//! normalised the same way before matching (full-width ASCII to half-width, every kind of space
//! to one, runs of spaces collapsed), so `投票对象：　李逵　` and `投票对象:李逵` both match. A space in
//! a template matches any run of spaces or none; a line break matches any whitespace (so both
//! lines may also be written on one); a colon matches `:` or `：` with spaces around it; Latin
//! letters match in either case (`##VOTE` = `##vote`).
//!
//! This module only reads text: who may vote, whether a target is a player, and what a change
//! costs are the rules' business. Reading never fails; a text that mentions a format's keyword
//! but does not fit it comes back as [`Malformed`].

use regex::Regex;
use std::fmt;

/// One ballot format as the judge writes it in the config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatSpec {
    /// A short name for messages ("格式一").
    pub name: String,
    /// The template of a ballot. Must contain `{target}`.
    pub vote: String,
    /// The template of a change (改票), when the format has its own wording. A change written
    /// after a restatement of the original ballot in the same post (jiaohui's
    /// `…；现在改为——投票的对象是 X`) is recognised as such.
    pub change: Option<String>,
}

/// Why a format template was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    pub format: String,
    pub which: &'static str,
    pub message: String,
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let which = match self.which {
            "vote" => "投票",
            "change" => "改票",
            _ => "投票格式",
        };
        if self.format.is_empty() {
            return write!(f, "{which}：{}", self.message);
        }
        write!(f, "格式“{}”的{which}模板：{}", self.format, self.message)
    }
}

impl std::error::Error for TemplateError {}

/// Whether a ballot is a first ballot or a change, by its wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Wording {
    Vote,
    Change,
}

/// One ballot found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Index of the format in the list given to [`Grammar::new`].
    pub format: usize,
    pub wording: Wording,
    /// The target as written, cleaned of `@`, brackets, BBCode residue and trailing punctuation.
    pub target: String,
    /// The target as the player typed it (full-width punctuation and all), cleaned as `target`
    /// is of markup, for quoting.
    pub written: String,
    /// The reason, trimmed; `None` when the template has no `{reason}` or the reason line is
    /// missing and the reason is optional.
    pub reason: Option<String>,
    /// The voter's own ID, for formats that carry one (`{voter}`).
    pub voter: Option<String>,
    /// The game day (`{day}`), as a number.
    pub day: Option<u32>,
    /// The ballot's ordinal (`{n}`: 第一次 = 1).
    pub ordinal: Option<u32>,
    /// Byte offset in the normalised text.
    pub at: usize,
}

/// What is wrong with a text that mentions a ballot keyword but fits no format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed {
    pub format: usize,
    pub wording: Wording,
    pub problem: Problem,
    /// What the target looks like, when it can be guessed (for the judge, never counted).
    pub guess: Option<String>,
    /// That guess as the player typed it (full-width punctuation kept), for quoting.
    pub written: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Problem {
    /// The keyword is there but the colon is not (`投票对象 超人`).
    MissingColon,
    /// The target line is there but the reason line the format requires is not.
    MissingReason,
    /// The keyword is there with nothing after it.
    MissingTarget,
    /// Anything else: the text does not follow the template.
    Other,
}

impl Problem {
    pub fn zh(self) -> &'static str {
        match self {
            Problem::MissingColon => "缺少冒号",
            Problem::MissingReason => "缺少理由",
            Problem::MissingTarget => "缺少投票对象",
            Problem::Other => "不符合格式",
        }
    }
}

/// What a text says, ballot-wise.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reading {
    /// Complete ballots, in text order.
    pub found: Vec<Found>,
    /// A format's keyword outside every complete ballot: an attempt that does not fit.
    pub malformed: Option<Malformed>,
}

#[derive(Clone)]
struct Compiled {
    wording: Wording,
    /// The whole template.
    full: Regex,
    /// The template up to the end of `{target}`, then the end of the line: used when the
    /// reason is optional, and to say "reason missing".
    head: Option<Regex>,
    /// The head with the colon before the target made optional: to say "colon missing".
    loose: Regex,
    /// The literal word just before `{target}` ("投票对象"): its presence marks an attempt.
    keyword: String,
    has_reason: bool,
}

/// A compiled set of ballot formats.
pub struct Grammar {
    formats: Vec<(usize, Compiled)>,
    reason_required: bool,
}

impl fmt::Debug for Grammar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Grammar")
            .field("formats", &self.formats.len())
            .field("reason_required", &self.reason_required)
            .finish()
    }
}

/// Fold a text for matching: full-width ASCII (U+FF01–U+FF5E) to ASCII, every Unicode space
/// (incl. U+3000 and no-break space) to a plain space, runs of spaces to one, spaces at line
/// ends removed, `\r\n` to `\n`.
///
/// ```
/// use bansha_parsers::ballot::normalize;
/// assert_eq!(normalize("投票对象：　李逵　 \r\n投票理由：  跟票  "), "投票对象:李逵\n投票理由:跟票");
/// assert_eq!(normalize("＃＃ｖｏｔｅ：小飞"), "##vote:小飞");
/// ```
pub fn normalize(text: &str) -> String {
    normalize_mapped(text).0
}

/// [`normalize`], with where each byte of the result came from in `text` (a byte offset of the
/// original character): what a ballot says can be quoted as the player wrote it.
pub fn normalize_mapped(text: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(text.len());
    let mut map: Vec<usize> = Vec::with_capacity(text.len());
    let push = |out: &mut String, map: &mut Vec<usize>, c: char, at: usize| {
        out.push(c);
        map.extend(std::iter::repeat_n(at, c.len_utf8()));
    };
    let mut pending_space: Option<usize> = None;
    let mut line_start = true;
    for (at, c) in text.char_indices() {
        let c = match c {
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
            '\r' => continue,
            '\n' => '\n',
            c if c.is_whitespace() => ' ',
            c => c,
        };
        match c {
            '\n' => {
                pending_space = None;
                line_start = true;
                push(&mut out, &mut map, '\n', at);
            }
            ' ' => {
                if !line_start && pending_space.is_none() {
                    pending_space = Some(at);
                }
            }
            c => {
                // Drop spaces after a colon so `投票对象: 李逵` and `投票对象:李逵` read alike.
                if let Some(space) = pending_space.take() {
                    if !out.ends_with(':') {
                        push(&mut out, &mut map, ' ', space);
                    }
                }
                line_start = false;
                push(&mut out, &mut map, c, at);
            }
        }
    }
    let start = out.len() - out.trim_start().len();
    let end = out.trim_end().len().max(start);
    (out[start..end].to_string(), map[start..end].to_vec())
}

/// The stretch of `original` that produced `normalized[from..to]` (`normalize_mapped`).
fn original_span<'a>(original: &'a str, map: &[usize], from: usize, to: usize) -> &'a str {
    if from >= to || to > map.len() {
        return "";
    }
    let a = map[from];
    let last = map[to - 1];
    let b = last + original[last..].chars().next().map_or(0, char::len_utf8);
    original.get(a..b).unwrap_or("")
}

const PLACEHOLDERS: [&str; 5] = ["target", "reason", "voter", "day", "n"];
const NUMERAL: &str = "[0-9零〇一二两三四五六七八九十百]+";

enum Token {
    Lit(char),
    Hole(&'static str),
}

fn tokenize(template: &str) -> Result<Vec<Token>, String> {
    let t = normalize(template);
    let mut out = Vec::new();
    let mut rest = t.as_str();
    while let Some(c) = rest.chars().next() {
        if c == '{' {
            let Some(end) = rest.find('}') else {
                return Err("“{” 没有配对的 “}”".into());
            };
            let name = &rest[1..end];
            let Some(&known) = PLACEHOLDERS.iter().find(|p| **p == name) else {
                return Err(format!(
                    "未知的占位符 {{{name}}}，可用：{{target}} {{reason}} {{voter}} {{day}} {{n}}"
                ));
            };
            if out
                .iter()
                .any(|t| matches!(t, Token::Hole(h) if *h == known))
            {
                return Err(format!("占位符 {{{name}}} 出现了两次"));
            }
            out.push(Token::Hole(known));
            rest = &rest[end + 1..];
        } else {
            out.push(Token::Lit(c));
            rest = &rest[c.len_utf8()..];
        }
    }
    if !out.iter().any(|t| matches!(t, Token::Hole("target"))) {
        return Err("缺少 {target}".into());
    }
    Ok(out)
}

/// Regex source for a token list. With `loose_colon`, the colon before `{target}` may be
/// missing (used only to say "colon missing").
fn pattern(tokens: &[Token], loose_colon: bool) -> String {
    let mut re = String::from("(?mi)");
    for (i, tok) in tokens.iter().enumerate() {
        let rest = &tokens[i + 1..];
        let next_is_end = rest.iter().all(|t| matches!(t, Token::Lit(' ' | '\n')));
        let before_target = matches!(
            rest.iter().find(|t| !matches!(t, Token::Lit(' ' | ':'))),
            Some(Token::Hole("target"))
        );
        match tok {
            Token::Lit(' ') => re.push_str("[ \\t]*"),
            Token::Lit('\n') => re.push_str("\\s*"),
            Token::Lit(':') if loose_colon && before_target => re.push_str("[ \\t]*:?[ \\t]*"),
            Token::Lit(':') => re.push_str("[ \\t]*:[ \\t]*"),
            // A ballot's round reads as 第一次 or 第一轮 (issue 29): "次" after `{n}` takes both.
            Token::Lit('次') if i > 0 && matches!(tokens[i - 1], Token::Hole("n")) => {
                re.push_str("[次轮]")
            }
            Token::Lit(c) => re.push_str(&regex::escape(&c.to_string())),
            Token::Hole("target") if next_is_end => re.push_str("(?P<target>[^\\n]+?)[ \\t]*$"),
            Token::Hole("target") => re.push_str("(?P<target>[^\\n]+?)"),
            Token::Hole("reason") if next_is_end => re.push_str("(?P<reason>[^\\n]*)"),
            Token::Hole("reason") => re.push_str("(?P<reason>[^\\n]*?)"),
            Token::Hole("voter") => re.push_str("(?P<voter>[^\\s:]+?)"),
            Token::Hole("day") => re.push_str(&format!("(?P<day>{NUMERAL})")),
            Token::Hole(_) => re.push_str(&format!("(?P<n>{NUMERAL})")),
        }
    }
    re
}

/// Compiled templates, by what the regexes are made of (the template and its wording; the
/// format's name only labels errors, which are not kept): a game's few formats are compiled once
/// per process, not at every tally (compiling the regexes was a fifth of a cycle's CPU).
/// Bounded: a process that meets many templates (the fuzzer) starts the memo over.
type Memo = std::collections::HashMap<(String, Wording), Compiled>;
static COMPILED: std::sync::LazyLock<std::sync::Mutex<Memo>> =
    std::sync::LazyLock::new(Default::default);
const COMPILED_MAX: usize = 256;

fn compile(
    spec_name: &str,
    which: &'static str,
    template: &str,
    wording: Wording,
) -> Result<Compiled, TemplateError> {
    let key = (template.to_string(), wording);
    // A poisoned lock only means another thread panicked mid-insert: the map is still whole.
    let known = COMPILED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&key)
        .cloned();
    if let Some(c) = known {
        return Ok(c);
    }
    let c = compile_uncached(spec_name, which, template, wording)?;
    let mut m = COMPILED.lock().unwrap_or_else(|e| e.into_inner());
    if m.len() >= COMPILED_MAX {
        m.clear();
    }
    m.insert(key, c.clone());
    Ok(c)
}

fn compile_uncached(
    spec_name: &str,
    which: &'static str,
    template: &str,
    wording: Wording,
) -> Result<Compiled, TemplateError> {
    let err = |message: String| TemplateError {
        format: spec_name.to_string(),
        which,
        message,
    };
    let tokens = tokenize(template).map_err(err)?;
    let target_at = tokens
        .iter()
        .position(|t| matches!(t, Token::Hole("target")))
        .unwrap_or(0);
    let keyword: String = tokens[..target_at]
        .iter()
        .rev()
        .skip_while(|t| matches!(t, Token::Lit(' ' | ':')))
        .take_while(|t| matches!(t, Token::Lit(c) if !c.is_whitespace() && *c != ':'))
        .map(|t| match t {
            Token::Lit(c) => *c,
            Token::Hole(_) => ' ',
        })
        .collect::<Vec<char>>()
        .into_iter()
        .rev()
        .collect();
    if keyword.is_empty() {
        return Err(err(
            "{target} 前面需要一个固定的词（例如“投票对象：”），否则任何一行字都会被当成投票"
                .into(),
        ));
    }
    let has_reason = tokens.iter().any(|t| matches!(t, Token::Hole("reason")));
    let build = |src: String| Regex::new(&src).map_err(|e| err(format!("无法编译：{e}")));
    let full = build(pattern(&tokens, false))?;
    let head_tokens = &tokens[..=target_at];
    let head = if tokens[target_at + 1..]
        .iter()
        .any(|t| matches!(t, Token::Hole("reason")))
    {
        Some(build(pattern(head_tokens, false))?)
    } else {
        None
    };
    let loose = build(pattern(head_tokens, true))?;
    Ok(Compiled {
        wording,
        full,
        head,
        loose,
        keyword,
        has_reason,
    })
}

/// `s` starts with `lower` (already lower-case), ignoring case.
fn starts_with_ignore_case(s: &str, lower: &str) -> bool {
    let mut chars = s.chars().flat_map(char::to_lowercase);
    lower.chars().all(|c| chars.next() == Some(c))
}

/// A Chinese or Arabic numeral up to 999 (第二天, 第十二次, 第2天).
pub fn numeral(s: &str) -> Option<u32> {
    if let Ok(n) = s.parse::<u32>() {
        return Some(n);
    }
    let digit = |c: char| -> Option<u32> {
        Some(match c {
            '零' | '〇' => 0,
            '一' => 1,
            '二' | '两' => 2,
            '三' => 3,
            '四' => 4,
            '五' => 5,
            '六' => 6,
            '七' => 7,
            '八' => 8,
            '九' => 9,
            _ => return None,
        })
    };
    let mut total = 0;
    let mut current = 0;
    let mut any = false;
    for c in s.chars() {
        match c {
            '百' => {
                total += current.max(1) * 100;
                current = 0;
            }
            '十' => {
                total += current.max(1) * 10;
                current = 0;
            }
            c => current = current * 10 + digit(c)?,
        }
        any = true;
    }
    any.then_some(total + current)
}

/// Clean a target as written: BBCode residue, a leading `@`, surrounding brackets and quotes,
/// trailing punctuation.
pub fn clean_target(raw: &str) -> String {
    static BBCODE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let bbcode = BBCODE.get_or_init(|| {
        Regex::new(r"(?i)\[/?(?:b|i|u|s|color|size|font|url|align|backcolor|hr)(?:=[^\]]*)?\]")
            .expect("static regex")
    });
    let s = bbcode.replace_all(raw, "");
    let trim_chars: &[char] = &[
        ' ', '\t', '。', '.', ',', '，', '!', '！', '?', '？', ';', '；', '、', '~', '～', '…',
        '"', '\'', '“', '”', '‘', '’', '「', '」', '『', '』', '【', '】', '[', ']', '(', ')',
        '（', '）', '<', '>', '《', '》',
    ];
    let s = s.trim_matches(trim_chars);
    let s = s.trim_start_matches('@').trim_matches(trim_chars);
    s.to_string()
}

impl Grammar {
    /// Compile the formats. `reason_required`: a ballot whose template has `{reason}` but whose
    /// reason line is missing is malformed (otherwise it is read with no reason).
    pub fn new(specs: &[FormatSpec], reason_required: bool) -> Result<Grammar, TemplateError> {
        let mut formats = Vec::new();
        for (i, spec) in specs.iter().enumerate() {
            formats.push((i, compile(&spec.name, "vote", &spec.vote, Wording::Vote)?));
            if let Some(change) = &spec.change {
                formats.push((i, compile(&spec.name, "change", change, Wording::Change)?));
            }
        }
        if formats.is_empty() {
            return Err(TemplateError {
                format: String::new(),
                which: "formats",
                message: "至少需要一种投票格式".into(),
            });
        }
        Ok(Grammar {
            formats,
            reason_required,
        })
    }

    /// Read the ballots in a post's own text (quotes already taken out by the page parser).
    pub fn read(&self, original: &str) -> Reading {
        let (text, map) = normalize_mapped(original);
        let mut found: Vec<Found> = Vec::new();
        let mut spans: Vec<(usize, usize)> = Vec::new();
        // Change templates first: a change template often contains the vote template's words
        // ("现在改为——投票的对象是 …"), and that stretch is the change, not another ballot.
        let mut order: Vec<&(usize, Compiled)> = self.formats.iter().collect();
        order.sort_by_key(|(_, c)| c.wording == Wording::Vote);
        for (index, c) in order {
            // Search only the stretches no earlier match has claimed, so a restated ballot
            // followed by its change reads as two ballots, not one with a long reason.
            let mut free = Vec::new();
            let mut from = 0;
            let mut claimed = spans.clone();
            claimed.sort();
            for &(s, e) in &claimed {
                if s > from {
                    free.push((from, s));
                }
                from = from.max(e);
            }
            free.push((from, text.len()));
            let mut regexes = vec![(&c.full, false)];
            if !self.reason_required {
                if let Some(head) = &c.head {
                    regexes.push((head, true));
                }
            }
            for (re, reason_missing) in regexes {
                for &(s, e) in &free {
                    let segment = &text[s..e];
                    for caps in re.captures_iter(segment) {
                        let m = caps.get(0).expect("group 0");
                        let (start, mut end) = (s + m.start(), s + m.end());
                        // A reason runs to the end of its line, but another ballot's keyword
                        // ends it ("…原因是 他分票；现在改为——投票的对象是 李逵" without a
                        // reason: the rest is a broken change, not part of this reason).
                        let mut reason = caps.name("reason").map(|g| (s + g.start(), g.as_str()));
                        if let Some((at, r)) = reason {
                            let others: Vec<String> = self
                                .formats
                                .iter()
                                .filter(|(_, other)| other.keyword != c.keyword)
                                .map(|(_, other)| other.keyword.to_lowercase())
                                .collect();
                            let cut = r.char_indices().map(|(i, _)| i).find(|&i| {
                                others.iter().any(|k| starts_with_ignore_case(&r[i..], k))
                            });
                            if let Some(cut) = cut {
                                end = at + cut;
                                reason = Some((at, &r[..cut]));
                            }
                        }
                        if spans.iter().any(|&(a, b)| start < b && a < end) {
                            continue;
                        }
                        // A reason line with nothing on it ("投票理由：", "原因是" and the end)
                        // is no reason where one is required: left for `diagnose`. (A change's
                        // missing reason is the rules' to judge: "改票未说明理由".)
                        let blank = |r: &str| {
                            r.chars().all(|ch| {
                                ch.is_whitespace()
                                    || ch.is_ascii_punctuation()
                                    || "。，、；：！？…—·".contains(ch)
                            })
                        };
                        if self.reason_required
                            && c.wording == Wording::Vote
                            && !reason_missing
                            && c.has_reason
                            && reason.is_none_or(|(_, r)| blank(r))
                        {
                            continue;
                        }
                        spans.push((start, end));
                        let group = |name| caps.name(name).map(|g| g.as_str().trim().to_string());
                        found.push(Found {
                            format: *index,
                            wording: c.wording,
                            target: clean_target(caps.name("target").map_or("", |g| g.as_str())),
                            written: caps
                                .name("target")
                                .map(|g| {
                                    clean_target(original_span(
                                        original,
                                        &map,
                                        s + g.start(),
                                        s + g.end(),
                                    ))
                                })
                                .unwrap_or_default(),
                            reason: if reason_missing {
                                None
                            } else {
                                reason.map(|(_, r)| r.trim().to_string())
                            },
                            voter: group("voter"),
                            day: caps.name("day").and_then(|g| numeral(g.as_str())),
                            ordinal: caps.name("n").and_then(|g| numeral(g.as_str())),
                            at: start,
                        });
                    }
                }
            }
        }
        found.retain(|f| !f.target.is_empty());
        found.sort_by_key(|f| f.at);
        // What is left once the ballots are cut out may hold a broken one (a change line
        // without its reason after a restated ballot).
        let mut rest = text.clone();
        for &(s, e) in &spans {
            rest.replace_range(s..e, &" ".repeat(e - s));
        }
        let malformed = self.diagnose(&rest, original, &map);
        Reading { found, malformed }
    }

    fn diagnose(&self, text: &str, original: &str, map: &[usize]) -> Option<Malformed> {
        let lower = text.to_lowercase();
        let (index, c) = self
            .formats
            .iter()
            .filter(|(_, c)| lower.contains(&c.keyword.to_lowercase()))
            // Prefer the longest keyword: "改票对象" over a hypothetical "对象".
            .max_by_key(|(_, c)| c.keyword.chars().count())?;
        // The guess, cleaned, and as typed (`text` is the normalised text with the ballots
        // found blanked out, byte for byte, so `map` still applies).
        let guess_of = |caps: Option<regex::Captures<'_>>| {
            caps.and_then(|caps| caps.name("target"))
                .map(|g| {
                    (
                        clean_target(g.as_str()),
                        clean_target(original_span(original, map, g.start(), g.end())),
                    )
                })
                .filter(|(g, _)| !g.is_empty())
        };
        let (problem, guess) = if let Some(caps) = c.head.as_ref().and_then(|h| h.captures(text)) {
            let guess = guess_of(Some(caps));
            if guess.is_some() && c.has_reason {
                (Problem::MissingReason, guess)
            } else {
                (Problem::MissingTarget, None)
            }
        } else if let Some(g) = guess_of(c.loose.captures(text)) {
            (Problem::MissingColon, Some(g))
        } else {
            let after = lower
                .split(&c.keyword.to_lowercase())
                .nth(1)
                .map(|s| s.lines().next().unwrap_or(""))
                .map(|s| clean_target(s.trim_start_matches([':', ' '])))
                .unwrap_or_default();
            if after.is_empty() {
                (Problem::MissingTarget, None)
            } else {
                (Problem::Other, None)
            }
        };
        let (guess, written) = match guess {
            Some((g, w)) => (Some(g), Some(w)),
            None => (None, None),
        };
        Some(Malformed {
            format: *index,
            wording: c.wording,
            problem,
            guess,
            written,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mapped_normalisation_points_back_at_what_was_typed() {
        let typed = "  投票对象：　李逵，他  太黑 \r\n投票理由: 跟票";
        let (text, map) = normalize_mapped(typed);
        assert_eq!(text, normalize(typed));
        assert_eq!(text, "投票对象:李逵,他 太黑\n投票理由:跟票");
        let from = text.find("李逵").unwrap();
        let to = text.find('\n').unwrap();
        assert_eq!(original_span(typed, &map, from, to), "李逵，他  太黑");
        // Only white space: nothing, and no panic.
        assert_eq!(
            normalize_mapped(" \n\u{3000}\r\n"),
            (String::new(), Vec::new())
        );
    }

    fn grammar(reason_required: bool) -> Grammar {
        Grammar::new(
            &[
                FormatSpec {
                    name: "格式一".into(),
                    vote: "{voter} 第{day}天 第{n}次 投票的对象是 {target} 原因是 {reason}".into(),
                    change: Some("现在改为——投票的对象是 {target} 原因是 {reason}".into()),
                },
                FormatSpec {
                    name: "格式二".into(),
                    vote: "投票对象：{target}\n投票理由：{reason}".into(),
                    change: Some("改票对象：{target}\n改票理由：{reason}".into()),
                },
            ],
            reason_required,
        )
        .unwrap()
    }

    #[test]
    fn both_formats_and_the_inline_change() {
        let g = grammar(true);
        let r = g.read("大灰狼 第二天 第一次 投票的对象是 小飞 原因是 他分票");
        assert_eq!(r.found.len(), 1);
        let f = &r.found[0];
        assert_eq!(
            (f.target.as_str(), f.voter.as_deref(), f.day, f.ordinal),
            ("小飞", Some("大灰狼"), Some(2), Some(1))
        );
        assert_eq!(f.reason.as_deref(), Some("他分票"));
        // The round may be written 第X轮 (issue 29).
        let r = g.read("大灰狼 第二天 第二轮 投票的对象是 小飞 原因是 他分票");
        assert_eq!(r.found.len(), 1);
        assert_eq!(r.found[0].ordinal, Some(2));

        let r = g.read("大灰狼 第二天 第一次 投票的对象是 小飞 原因是 他分票；现在改为——投票的对象是 李逵 原因是 他太黑了。");
        let kinds: Vec<_> = r
            .found
            .iter()
            .map(|f| (f.wording, f.target.as_str()))
            .collect();
        assert_eq!(kinds, [(Wording::Vote, "小飞"), (Wording::Change, "李逵")]);

        let r = g.read("投票对象：　李逵　 \n投票理由：  跟票  ");
        assert_eq!(r.found[0].target, "李逵");
        assert_eq!(r.found[0].reason.as_deref(), Some("跟票"));
        let r = g.read("改票对象:不见\n改票理由:突然打居");
        assert_eq!(
            (r.found[0].wording, r.found[0].target.as_str()),
            (Wording::Change, "不见")
        );
        // Both lines on one line, name run into the next keyword.
        let r = g.read("投票对象：李逵投票理由：黑");
        assert_eq!(r.found[0].target, "李逵");
    }

    #[test]
    fn malformed_ballots_say_what_is_missing() {
        let g = grammar(true);
        let r = g.read("投票对象 超人\n投票理由 他跳预言家太假");
        assert!(r.found.is_empty());
        let m = r.malformed.unwrap();
        assert_eq!(
            (m.problem, m.guess.as_deref()),
            (Problem::MissingColon, Some("超人"))
        );
        let m = g.read("投票对象：大灰狼").malformed.unwrap();
        assert_eq!(
            (m.problem, m.guess.as_deref()),
            (Problem::MissingReason, Some("大灰狼"))
        );
        // With the reason optional the same text is a ballot.
        assert_eq!(
            grammar(false).read("投票对象：大灰狼").found[0].target,
            "大灰狼"
        );
        assert_eq!(g.read("+1 同意楼上"), Reading::default());
    }

    #[test]
    fn targets_are_cleaned() {
        assert_eq!(clean_target("@大灰狼"), "大灰狼");
        assert_eq!(clean_target("[b][color=red]李逵[/color][/b]。"), "李逵");
        assert_eq!(clean_target("“小飞”！"), "小飞");
        let g = Grammar::new(
            &[FormatSpec {
                name: "vote".into(),
                vote: "##vote:{target}".into(),
                change: None,
            }],
            true,
        )
        .unwrap();
        assert_eq!(g.read("＃＃ｖｏｔｅ：小飞！").found[0].target, "小飞");
    }

    #[test]
    fn numerals() {
        for (s, n) in [
            ("一", 1),
            ("十", 10),
            ("十二", 12),
            ("二十", 20),
            ("二十三", 23),
            ("2", 2),
            ("一百零五", 105),
        ] {
            assert_eq!(numeral(s), Some(n), "{s}");
        }
        assert_eq!(numeral("天"), None);
    }

    #[test]
    fn bad_templates_are_refused_with_a_reason() {
        let bad = |vote: &str| {
            Grammar::new(
                &[FormatSpec {
                    name: "x".into(),
                    vote: vote.into(),
                    change: None,
                }],
                true,
            )
            .unwrap_err()
            .message
        };
        assert!(bad("投票：{who}").contains("未知的占位符"));
        assert!(bad("投票理由：{reason}").contains("缺少 {target}"));
        assert!(bad("{target}").contains("固定的词"));
    }
}
