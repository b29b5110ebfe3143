//! Board thread lists of both captured forums against forum_thread.json.

mod common;

use bansha_parsers::threadlist::parse_thread_list;
use bansha_parsers::{ParseOptions, TimePrecision};
use serde_json::Value;

fn s(v: &Value) -> String {
    v.as_str()
        .map(String::from)
        .unwrap_or_else(|| v.to_string())
}

#[test]
fn thread_lists_match_the_thread_rows() {
    for (forum, page, expected_threads) in [
        ("discuz", "discuz/desktop/guest/forumdisplay_fid3.html", 4),
        (
            "discuz-gbk",
            "discuz-gbk/desktop/guest/forumdisplay_fid36.html",
            2,
        ),
    ] {
        let path = common::fixtures().join(page);
        let (_, ct) = common::headers_of(&path);
        let list = parse_thread_list(
            &std::fs::read(&path).unwrap(),
            ct.as_deref(),
            &ParseOptions::default(),
        )
        .unwrap();
        let rows: Vec<Value> = serde_json::from_slice(
            &std::fs::read(
                common::fixtures().join(format!("{forum}/groundtruth/forum_thread.json")),
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(list.threads.len(), expected_threads, "{page}");
        for t in &list.threads {
            let row = rows
                .iter()
                .find(|r| s(&r["tid"]) == t.tid.to_string())
                .unwrap_or_else(|| panic!("tid {}", t.tid));
            let subject = html_escape::decode_html_entities(&s(&row["subject"])).into_owned();
            assert_eq!(t.subject, subject, "{page} tid {}", t.tid);
            assert_eq!(t.author, s(&row["author"]), "{page} tid {}", t.tid);
            assert_eq!(
                t.author_uid.map(|u| u.to_string()),
                Some(s(&row["authorid"])),
                "{page} tid {}",
                t.tid
            );
            assert_eq!(
                t.replies.map(|r| r.to_string()),
                Some(s(&row["replies"])),
                "{page} tid {}",
                t.tid
            );
            let stored: i64 = s(&row["dateline"]).parse().unwrap();
            let got = t
                .created_at
                .unwrap_or_else(|| panic!("{page} tid {}: no time", t.tid))
                .timestamp();
            let slack = match t.created_precision {
                TimePrecision::Second => 0,
                TimePrecision::Minute => 59,
                TimePrecision::Hour => 3599,
                TimePrecision::Day => 86399,
            };
            assert!(
                got <= stored && stored - got <= slack,
                "{page} tid {}: {got} vs {stored} ({:?})",
                t.tid,
                t.created_precision
            );
        }
    }
}

#[test]
fn a_thread_page_is_not_a_thread_list() {
    let path = common::fixtures().join("discuz/desktop/guest/viewthread_tid3_vote_p1.html");
    assert!(parse_thread_list(
        &std::fs::read(path).unwrap(),
        None,
        &ParseOptions::default()
    )
    .is_err());
}
