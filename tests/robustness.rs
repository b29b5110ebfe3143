//! The parsers never panic and stay fast on arbitrary input: random bytes, and real pages
//! mutated (bytes flipped, cut, spliced, tags nested absurdly deep).

mod common;

use bansha_parsers::{parse_api_page, parse_thread_page, ParseOptions};
use proptest::prelude::*;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

static SEEDS: LazyLock<Vec<Vec<u8>>> = LazyLock::new(|| {
    [
        "discuz/desktop/guest/viewthread_tid3_vote_p2.html",
        "discuz/desktop/judge/viewthread_tid4_discussion_p5.html",
        "discuz/mobile/guest/v4/viewthread_tid4_discussion_p3.json",
        "discuz/mobile/judge/v1/viewthread_tid3_vote_p3.json",
        "discuz-gbk/desktop/guest/viewthread_tid1_discussion_p3.html",
        "discuz-gbk/mobile/guest/v4/viewthread_tid1_discussion_p1.json",
        "discuz/errors/viewthread_tid9999_nonexistent_inajax.xml",
    ]
    .iter()
    .map(|rel| std::fs::read(common::fixtures().join(rel)).unwrap())
    .collect()
});

/// Parse both ways; only a panic (or a runaway) fails the property.
fn parse_all(bytes: &[u8]) {
    let o = ParseOptions::default();
    let _ = parse_thread_page(bytes, None, &o);
    let _ = parse_thread_page(bytes, Some("text/html; charset=gbk"), &o);
    let _ = parse_api_page(bytes, None, &o);
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip { at: usize, byte: u8 },
    Cut { at: usize },
    Splice { at: usize, from: usize, len: usize },
    Insert { at: usize, text: &'static str },
}

fn apply(mut page: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
    for m in muts {
        let n = page.len().max(1);
        match *m {
            Mutation::Flip { at, byte } => {
                if !page.is_empty() {
                    page[at % n] = byte;
                }
            }
            Mutation::Cut { at } => page.truncate(at % n),
            Mutation::Splice { at, from, len } => {
                let from = from % n;
                let chunk: Vec<u8> = page[from..(from + len).min(page.len())].to_vec();
                let at = (at % n).min(page.len());
                page.splice(at..at, chunk);
            }
            Mutation::Insert { at, text } => {
                let at = (at % n).min(page.len());
                page.splice(at..at, text.bytes());
            }
        }
    }
    page
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let fragments = prop::sample::select(vec![
        "<div class=\"quote\"><blockquote>",
        "</blockquote></div>",
        "<i class=\"pstatus\"> 本帖最后由 ",
        "<td class=\"t_f\" id=\"postmessage_1\">",
        "<table id=\"pid7\" class=\"plhin\">",
        "\"postlist\":[{\"pid\":\"x\"}]",
        "&amp;amp;#99999999999;",
        "<span title=\"2026-99-99 99:99:99\">",
        "\u{0}\u{feff}\u{200b}",
        "<![CDATA[",
        "]]>",
    ]);
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Mutation::Flip { at, byte }),
        any::<usize>().prop_map(|at| Mutation::Cut { at }),
        (any::<usize>(), any::<usize>(), 0usize..4096)
            .prop_map(|(at, from, len)| Mutation::Splice { at, from, len }),
        (any::<usize>(), fragments).prop_map(|(at, text)| Mutation::Insert { at, text }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..4096)) {
        parse_all(&bytes);
    }

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,2000}") {
        parse_all(s.as_bytes());
        parse_all(format!("{{\"Version\":\"4\",\"Variables\":{{\"postlist\":[{{\"pid\":\"1\",\"message\":{}}}]}}}}", serde_json::to_string(&s).unwrap()).as_bytes());
    }

    #[test]
    fn mutated_real_pages_never_panic(
        seed in 0usize..7,
        muts in prop::collection::vec(mutation(), 1..8),
    ) {
        let page = apply(SEEDS[seed].clone(), &muts);
        parse_all(&page);
    }
}

/// Time-bounded cases: generous bounds (debug build, shared CI machine) that still catch a
/// quadratic blow-up, which takes minutes on these inputs.
fn assert_fast(what: &str, bytes: &[u8]) {
    let start = Instant::now();
    parse_all(bytes);
    let took = start.elapsed();
    assert!(took < Duration::from_secs(20), "{what}: {took:?}");
}

#[test]
fn ten_thousand_nested_quotes_parse_in_bounded_time() {
    let post = "<div class=\"quote\"><blockquote>".repeat(10_000) + "投票对象：李逵";
    let desktop = String::from_utf8(SEEDS[0].clone())
        .unwrap()
        .replacen("投票对象：李奎", &post, 1);
    assert_fast("desktop", desktop.as_bytes());
    let api = format!(
        "{{\"Version\":\"4\",\"Variables\":{{\"postlist\":[{{\"pid\":\"1\",\"message\":{}}}]}}}}",
        serde_json::to_string(&post).unwrap()
    );
    assert_fast("api", api.as_bytes());
    let page = parse_thread_page(api.as_bytes(), None, &ParseOptions::default()).unwrap();
    assert_eq!(page.posts[0].quotes.len(), 1);
}

#[test]
fn a_ten_megabyte_post_parses_in_bounded_time() {
    let body = "很长的发言。".repeat(10 * 1024 * 1024 / 18);
    let api = format!(
        "{{\"Version\":\"4\",\"Variables\":{{\"postlist\":[{{\"pid\":\"1\",\"message\":\"{body}\"}}]}}}}"
    );
    assert_fast("10 MB post", api.as_bytes());
    let zero_width = "\u{200b}\u{200c}\u{200d}\u{feff}".repeat(100_000);
    assert_fast("zero-width", zero_width.as_bytes());
}
