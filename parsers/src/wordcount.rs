//! Word counts the way Microsoft Word's 字数 (word count) counts mixed Chinese and Western text:
//! each East Asian character is one word; a maximal run of other non-space characters is one
//! word.
//!
//! East Asian characters (one word each): CJK ideographs (all blocks and extensions, and the
//! compatibility ideographs), kana (including half-width katakana), Hangul syllables and jamo,
//! bopomofo, CJK symbols and punctuation (U+3001–U+303F: 、。〈〉《》「」『』【】〔〕…), full-width
//! forms (U+FF01–U+FF60, U+FFE0–U+FFE6: ！，：；？ＡＢＣ１２３￥), CJK compatibility and vertical
//! forms, enclosed CJK letters (㈠ ㊣), and — a decision — the punctuation Chinese text sets
//! full-width from the General Punctuation block: “ ” ‘ ’ … — ― · ‥ (each one word, even in a
//! pair: …… is two, —— is two). Everything else that is not a space joins its neighbours into one
//! word: Latin letters, digits, half-width punctuation, emoji, `&#128514;` left by a GBK forum.
//! Spaces of every kind separate words and are not characters for `chars_no_spaces`; U+3000
//! (the ideographic space) is a space.
//!
//! The decisions on “ ” ‘ ’ … — · could not be confirmed against Word itself here; they follow how
//! Chinese fonts set them (full-width) and how judges count by hand. Word's behaviour for them
//! depends on the text's language setting.

use serde::Serialize;

/// Counts for one text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Counts {
    /// Word's 字数.
    pub words: usize,
    /// East Asian characters (each one word).
    pub east_asian: usize,
    /// Runs of other characters (each one word).
    pub runs: usize,
    /// Characters without spaces (字符数，不计空格).
    pub chars_no_spaces: usize,
    /// Characters with spaces.
    pub chars_with_spaces: usize,
}

/// Whether `c` counts as one word on its own.
pub fn is_east_asian(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF        // Hangul jamo
        | 0x2E80..=0x2FDF      // CJK radicals, Kangxi radicals
        | 0x2FF0..=0x2FFF      // ideographic description
        | 0x3001..=0x303F      // CJK symbols and punctuation (not U+3000, a space)
        | 0x3040..=0x30FF      // hiragana, katakana
        | 0x3100..=0x312F      // bopomofo
        | 0x3130..=0x318F      // Hangul compatibility jamo
        | 0x3190..=0x31FF      // kanbun, bopomofo ext, CJK strokes, katakana ext
        | 0x3200..=0x33FF      // enclosed CJK, CJK compatibility
        | 0x3400..=0x4DBF      // CJK ext A
        | 0x4E00..=0x9FFF      // CJK unified ideographs
        | 0xA960..=0xA97F      // Hangul jamo ext A
        | 0xAC00..=0xD7AF      // Hangul syllables
        | 0xD7B0..=0xD7FF      // Hangul jamo ext B
        | 0xF900..=0xFAFF      // CJK compatibility ideographs
        | 0xFE10..=0xFE1F      // vertical forms
        | 0xFE30..=0xFE4F      // CJK compatibility forms
        | 0xFE50..=0xFE6F      // small form variants
        | 0xFF01..=0xFF60      // full-width forms
        | 0xFF61..=0xFF9F      // half-width katakana (Asian script: one word each)
        | 0xFFE0..=0xFFE6      // full-width signs ￥ ￠
        | 0x1B000..=0x1B16F    // kana supplement / extended
        | 0x20000..=0x3FFFF    // CJK ext B and later, compatibility supplement
        // General Punctuation that Chinese text sets full-width (a decision, see above).
        | 0x2018 | 0x2019 | 0x201C | 0x201D | 0x2026 | 0x2025 | 0x2014 | 0x2015 | 0x00B7
    )
}

/// Count `text`.
///
/// ```
/// use bansha_parsers::wordcount::count;
/// assert_eq!(count("Hello、World。").words, 4);
/// assert_eq!(count("东京2024奥运").words, 5);
/// ```
pub fn count(text: &str) -> Counts {
    let mut c = Counts::default();
    let mut in_run = false;
    for ch in text.chars() {
        if matches!(ch, '\n' | '\r') {
            // Line breaks (Word's paragraph marks) are not characters.
            in_run = false;
            continue;
        }
        c.chars_with_spaces += 1;
        if ch.is_whitespace() {
            in_run = false;
            continue;
        }
        if ch.is_control() {
            // Zero-width and control characters are neither words nor visible characters.
            c.chars_with_spaces -= 1;
            continue;
        }
        if matches!(ch, '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}') {
            c.chars_with_spaces -= 1;
            continue;
        }
        c.chars_no_spaces += 1;
        if is_east_asian(ch) {
            c.east_asian += 1;
            in_run = false;
        } else if !in_run {
            c.runs += 1;
            in_run = true;
        }
    }
    c.words = c.east_asian + c.runs;
    c
}

/// Sentences for the repetition check: split after 。！？!?；; and line breaks, trimmed.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, ch) in text.char_indices() {
        if matches!(ch, '。' | '！' | '？' | '!' | '?' | '；' | ';' | '\n') {
            let end = i + ch.len_utf8();
            let s = text[start..end].trim_matches(|c: char| c.is_whitespace());
            if !s.is_empty() {
                out.push(s);
            }
            start = end;
        }
    }
    let s = text[start..].trim();
    if !s.is_empty() {
        out.push(s);
    }
    out
}

/// Words in repeated sentences: every occurrence of a sentence after its first (sentences are
/// compared without their final punctuation and spaces). Sentences of fewer than 4 words
/// ("是。", "对！") are not counted as repetition.
pub fn repeated_words(text: &str) -> usize {
    let mut seen = std::collections::HashSet::new();
    let mut repeated = 0;
    for s in sentences(text) {
        let key: String = s
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .trim_end_matches(['。', '！', '？', '!', '?', '；', ';', '.', '，', ','])
            .to_string();
        let words = count(&key).words;
        if words < 4 {
            continue;
        }
        if !seen.insert(key) {
            repeated += words;
        }
    }
    repeated
}

/// The figures a judge checks on a report or kill post.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Figures {
    /// The whole post, quotes included.
    pub total: Counts,
    /// The quoted part.
    pub quoted_words: usize,
    /// `quoted_words / total.words` (0 when empty).
    pub quoted_share: f64,
    /// The post without its quotes.
    pub own: Counts,
    /// Words in repeated sentences of the post's own text.
    pub repeated_words: usize,
    pub repeated_share: f64,
    /// Words inside inline quotation marks (“…”, 「…」, 『…』) of the post's own text, the marks
    /// not included: in `quoted_words` when `inline_as_quotes`, else in `own` (either way in
    /// `total`, which is Word's count of the post whatever counts as a quote).
    pub inline_quoted_words: usize,
    /// Whether the inline quotations are counted as quotes (bansha42, 004 L58).
    pub inline_as_quotes: bool,
}

/// Figures for a post whose quotes are its `[quote]` blocks (or the page's quote boxes) and,
/// with `inline_as_quotes`, the inline quotations of its own text too (bansha42 004 L58
/// "分散引用的累计计算"). The one place both `wordcount` and `check-post` get their figures: the
/// total is the same either way, only what is called quoted differs, and `Figures` says so.
pub fn post_figures(own_text: &str, quotes: &[&str], inline_as_quotes: bool) -> Figures {
    if !inline_as_quotes {
        return figures(own_text, quotes);
    }
    let (own, inline) = split_inline_quotes(own_text);
    let all: Vec<&str> = quotes
        .iter()
        .copied()
        .chain(inline.iter().map(String::as_str))
        .collect();
    let mut f = figures(&own, &all);
    f.inline_quoted_words = inline.iter().map(|q| count(q).words).sum();
    f.inline_as_quotes = true;
    f
}

/// Figures for a post: its own text and its quotes (as the page parser separates them). Inline
/// quotations stay in the own text (`inline_quoted_words` says how many words they hold).
pub fn figures(own_text: &str, quotes: &[&str]) -> Figures {
    let own = count(own_text);
    let quoted_words: usize = quotes.iter().map(|q| count(q).words).sum();
    let mut total = own;
    for q in quotes {
        let c = count(q);
        total.words += c.words;
        total.east_asian += c.east_asian;
        total.runs += c.runs;
        total.chars_no_spaces += c.chars_no_spaces;
        total.chars_with_spaces += c.chars_with_spaces;
    }
    let share = |n: usize, of: usize| if of == 0 { 0.0 } else { n as f64 / of as f64 };
    let repeated = repeated_words(own_text);
    Figures {
        total,
        quoted_words,
        quoted_share: share(quoted_words, total.words),
        own,
        repeated_words: repeated,
        repeated_share: share(repeated, own.words),
        inline_quoted_words: split_inline_quotes(own_text)
            .1
            .iter()
            .map(|q| count(q).words)
            .sum(),
        inline_as_quotes: false,
    }
}

/// Split text into what is outside and what is inside inline quotation marks (“…”, 「…」,
/// 『…』), outermost pairs only; a mark left open is text. The marks stay in the outside text:
/// they are words of the post (Word counts each), not of the quotation, so a post's total is
/// the same whether its quotations count as quotes or not. bansha42 counts inline quotations
/// as quotes (004 L58 "分散引用的累计计算").
pub fn split_inline_quotes(text: &str) -> (String, Vec<String>) {
    let mut own = String::new();
    let mut quotes = Vec::new();
    let mut open: Option<(char, usize)> = None;
    let mut depth = 0usize;
    let close_of = |c: char| match c {
        '“' => Some('”'),
        '「' => Some('」'),
        '『' => Some('』'),
        _ => None,
    };
    let mut last = 0;
    for (i, c) in text.char_indices() {
        match open {
            None => {
                if close_of(c).is_some() {
                    own.push_str(&text[last..i + c.len_utf8()]);
                    open = Some((c, i + c.len_utf8()));
                    depth = 1;
                }
            }
            Some((o, start)) => {
                if c == o && close_of(o) != Some(o) {
                    depth += 1;
                } else if Some(c) == close_of(o) {
                    depth -= 1;
                    if depth == 0 {
                        quotes.push(text[start..i].to_string());
                        open = None;
                        last = i;
                    }
                }
            }
        }
    }
    match open {
        // Never closed: what follows the mark (already in) is the post's own text.
        Some((_, start)) => own.push_str(&text[start..]),
        None => own.push_str(&text[last..]),
    }
    (own, quotes)
}

/// The traditional characters in `text` (004 L57 "文字要求用中文简化汉字"), each with how often it
/// appears, in order of first appearance: those OpenCC's traditional-to-simplified conversion
/// (phrase-aware, so 乾隆 stays) changes. Pure Rust (ferrous-opencc, its dictionaries built in).
pub fn traditional_chars(text: &str) -> Vec<(char, usize)> {
    use std::sync::LazyLock;
    static T2S: LazyLock<Option<ferrous_opencc::OpenCC>> = LazyLock::new(|| {
        ferrous_opencc::OpenCC::from_config(ferrous_opencc::config::BuiltinConfig::T2s).ok()
    });
    let Some(cc) = T2S.as_ref() else {
        return Vec::new();
    };
    let mut out: Vec<(char, usize)> = Vec::new();
    let mut note = |c: char| match out.iter_mut().find(|(x, _)| *x == c) {
        Some((_, n)) => *n += 1,
        None => out.push((c, 1)),
    };
    // Line by line: a conversion that changes a line's length (rare) is compared char by char.
    for line in text.lines() {
        let simplified = cc.convert(line);
        if simplified.chars().count() == line.chars().count() {
            for (a, b) in line.chars().zip(simplified.chars()) {
                if a != b {
                    note(a);
                }
            }
        } else {
            for a in line.chars() {
                if !cc.convert(&a.to_string()).starts_with(a) {
                    note(a);
                }
            }
        }
    }
    out
}

/// Split BBCode text into its own text and its `[quote]` blocks (for text a judge pastes).
pub fn split_bbcode_quotes(text: &str) -> (String, Vec<String>) {
    let lower = text.to_ascii_lowercase();
    let mut own = String::new();
    let mut quotes = Vec::new();
    let mut pos = 0;
    while let Some(open) = lower[pos..].find("[quote") {
        let open = pos + open;
        let Some(open_end) = lower[open..].find(']').map(|e| open + e + 1) else {
            break;
        };
        own.push_str(&text[pos..open]);
        // Nested quotes: find the matching close.
        let mut depth = 1;
        let mut i = open_end;
        let mut close_at = None;
        while i < lower.len() {
            if lower[i..].starts_with("[quote") {
                depth += 1;
                i += 6;
            } else if lower[i..].starts_with("[/quote]") {
                depth -= 1;
                if depth == 0 {
                    close_at = Some(i);
                    break;
                }
                i += 8;
            } else {
                i += lower[i..].chars().next().map_or(1, char::len_utf8);
            }
        }
        match close_at {
            Some(c) => {
                quotes.push(text[open_end..c].to_string());
                pos = c + 8;
            }
            None => {
                quotes.push(text[open_end..].to_string());
                pos = text.len();
            }
        }
    }
    own.push_str(&text[pos..]);
    (own, quotes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_quotations_outermost_nested_and_open() {
        let (own, q) = split_inline_quotes("他说“今夜「月」明”，又说『好』。");
        // The marks are the post's own words; what they enclose is the quotation.
        assert_eq!(own, "他说“”，又说『』。");
        assert_eq!(q, ["今夜「月」明", "好"]);
        let (own, q) = split_inline_quotes("未完“的引号");
        assert_eq!((own.as_str(), q.len()), ("未完“的引号", 0));
        let (own, q) = split_inline_quotes("”「」");
        assert_eq!((own.as_str(), q), ("”「」", vec![String::new()]));
    }

    #[test]
    fn traditional_characters_are_counted_phrases_kept() {
        assert_eq!(
            traditional_chars("憂鬱的台灣烏龜，烏龜"),
            [('憂', 1), ('鬱', 1), ('灣', 1), ('烏', 2), ('龜', 2)]
        );
        assert!(traditional_chars("乾隆皇帝在后宫，著名作家").is_empty());
        assert!(traditional_chars("").is_empty());
    }
}
