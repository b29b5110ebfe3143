//! Entry points shared by the cargo-fuzz targets (`fuzz/`) and the regression tests that replay
//! what fuzzing found (`parsers/tests/fuzz_regressions.rs`): each takes arbitrary bytes and
//! drives one parser the way bansha does. None may panic, whatever the bytes.

use crate::ballot::{FormatSpec, Grammar};
use crate::{parse_api_page, parse_thread_page, ParseOptions};
use std::sync::LazyLock;

/// Any bytes as a thread page: sniffed (desktop HTML, inajax XML, API JSON), and as declared GBK.
pub fn page(data: &[u8]) {
    let opts = ParseOptions::default();
    let _ = parse_thread_page(data, None, &opts);
    let _ = parse_thread_page(data, Some("text/html; charset=gbk"), &opts);
}

/// Any bytes as a mobile API answer: a thread page, a poll, a voter list, private messages.
pub fn api(data: &[u8]) {
    let opts = ParseOptions::default();
    let json = Some("application/json; charset=utf-8");
    let _ = parse_api_page(data, json, &opts);
    let _ = crate::poll::parse_poll(data, json, &opts);
    let _ = crate::poll::parse_voters(data, None);
    let _ = crate::pm::parse_pm(data, json, &opts);
}

fn spec(name: &str, vote: &str, change: Option<&str>) -> FormatSpec {
    FormatSpec {
        name: name.into(),
        vote: vote.into(),
        change: change.map(Into::into),
    }
}

/// The ballot formats of the five presets and of the captured game.
static GRAMMARS: LazyLock<Vec<Grammar>> = LazyLock::new(|| {
    let sets = [
        vec![spec(
            "格式",
            "投票对象：{target}\n投票理由：{reason}",
            Some("改票对象：{target}\n改票理由：{reason}"),
        )],
        vec![spec(
            "教会",
            "{voter} 第{day}天 第{n}次 投票的对象是 {target} 原因是 {reason}",
            Some("现在改为——投票的对象是 {target} 原因是 {reason}"),
        )],
        vec![spec("票", "票 {target}", None)],
    ];
    sets.iter()
        .flat_map(|s| [Grammar::new(s, true), Grammar::new(s, false)])
        .map(|g| g.expect("valid templates"))
        .collect()
});

/// Any text as a post read for ballots.
pub fn ballot(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for g in GRAMMARS.iter() {
        let _ = g.read(&text);
    }
    let _ = crate::ballot::clean_target(&text);
}

/// Any text counted as Word counts it, with a part of it as a quote.
pub fn wordcount(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = crate::wordcount::count(&text);
    let cut = (0..=text.len() / 2)
        .rev()
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(0);
    let _ = crate::wordcount::figures(&text, &[&text[..cut]]);
}

/// Any text as a day thread's first post read for its deadline, and as a number: every span
/// a deadline reports is a slice of the text equal to the phrase.
pub fn deadline(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let reading = crate::deadline::read_deadlines(&text);
    for c in &reading.candidates {
        assert_eq!(text.get(c.span.clone()), Some(c.text.as_str()));
    }
    let _ = crate::numerals::parse_number(&text);
}
