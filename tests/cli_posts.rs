//! `bansha posts` through the real binary.

mod common;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn bansha() -> Command {
    Command::cargo_bin("bansha").unwrap()
}

#[test]
fn prints_one_json_object_per_post_with_the_documented_fields() {
    let page = common::fixtures().join("discuz/desktop/guest/viewthread_tid3_vote_p2.html");
    let out = bansha().arg("posts").arg(&page).assert().success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let posts: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(posts.len(), 10);
    for field in [
        "pid",
        "tid",
        "floor",
        "position",
        "author",
        "author_uid",
        "posted_at",
        "edited_at",
        "edited_by",
        "text",
        "quotes",
        "red_font",
        "large_font",
    ] {
        assert!(posts[0].get(field).is_some(), "missing {field}");
    }
    let p65 = posts.iter().find(|p| p["pid"] == 65).unwrap();
    assert_eq!(p65["posted_at"], "2026-11-28T21:33:21+08:00");
    assert_eq!(p65["position"], Value::Null);
    assert_eq!(p65["quotes"][0]["pid"], 38);
    assert_eq!(p65["quotes"][0]["author"], "冷雪");
}

#[test]
fn reads_api_json_and_gbk_pages_in_one_call() {
    let api = common::fixtures().join("discuz/mobile/guest/v4/viewthread_tid3_vote_p3.json");
    let gbk = common::fixtures().join("discuz-gbk/desktop/guest/viewthread_tid2_vote_p2.html");
    let out = bansha().arg("posts").arg(&api).arg(&gbk).assert().success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let posts: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(posts.iter().any(|p| p["pid"] == 98 && p["position"] == 24));
    assert!(posts.iter().any(|p| p["author"] == "冷雪" && p["tid"] == 2));
}

#[test]
fn a_page_it_cannot_read_fails_with_a_chinese_message_naming_the_file() {
    let err = common::fixtures().join("discuz/errors/viewthread_tid9999_nonexistent_guest.html");
    let good = common::fixtures().join("discuz/desktop/guest/viewthread_tid3_vote_p4.html");
    bansha()
        .arg("posts")
        .arg(&err)
        .arg(&good)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "viewthread_tid9999_nonexistent_guest.html",
        ))
        .stderr(predicate::str::contains("主题不存在"))
        // The good page is still printed.
        .stdout(predicate::str::contains("\"pid\":121"));
    bansha()
        .args(["posts", "/nonexistent/page.html"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("无法打开文件"));
    bansha()
        .args(["posts", "--utc-offset", "eight"])
        .arg(&good)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("时区偏移"));
}

#[test]
fn utc_offset_changes_the_printed_times() {
    let api = common::fixtures().join("discuz/mobile/guest/v4/viewthread_tid3_vote_p4.json");
    bansha()
        .args(["posts", "--utc-offset", "+00:00"])
        .arg(&api)
        .assert()
        .success()
        // pid 121 was posted 2026-11-29 21:18:13 Beijing.
        .stdout(predicate::str::contains(
            "\"posted_at\":\"2026-11-29T13:18:13Z\"",
        ));
}
