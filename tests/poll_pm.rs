//! The poll (投票机) and the judge's private messages, parsed from every captured form and
//! compared with the database rows behind them (`groundtruth/forum_poll*.json`,
//! `ucenter_pm_*.json`).

mod common;

use bansha_parsers::pm::parse_pm;
use bansha_parsers::poll::{parse_poll, parse_voters};
use bansha_parsers::PageErrorKind;
use serde_json::Value;
use std::collections::BTreeMap;

fn rows(name: &str) -> Vec<Value> {
    let p = common::fixtures().join("discuz/groundtruth").join(name);
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

fn field(v: &Value, k: &str) -> String {
    v[k].as_str().unwrap_or_default().to_string()
}

fn num(v: &Value, k: &str) -> u64 {
    field(v, k).parse().unwrap()
}

fn read(rel: &str) -> (Vec<u8>, Option<String>) {
    let path = common::fixtures().join(rel);
    let (_, ct) = common::headers_of(&path);
    (std::fs::read(&path).unwrap(), ct)
}

fn members() -> BTreeMap<u64, String> {
    rows("common_member.json")
        .iter()
        .map(|m| (num(m, "uid"), field(m, "username")))
        .collect()
}

#[test]
fn poll_options_and_counts_match_the_database() {
    let truth = rows("forum_polloption.json");
    let poll_row = &rows("forum_poll.json")[0];
    let opts = Default::default();
    for (rel, has_ids) in [
        ("discuz/poll/mobile_v1_viewthread_tid5_judge.json", true),
        ("discuz/poll/mobile_v2_viewthread_tid5_judge.json", true),
        ("discuz/poll/mobile_v4_viewthread_tid5_judge.json", true),
        (
            "discuz/poll/viewthread_tid5_poll_judge_not_voted.html",
            true,
        ),
        ("discuz/poll/viewthread_tid5_poll_guest.html", false),
        (
            "discuz/poll/viewthread_tid5_poll_as_voter_dahuilang.html",
            false,
        ),
    ] {
        let (bytes, ct) = read(rel);
        let poll =
            parse_poll(&bytes, ct.as_deref(), &opts).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(poll.tid, Some(5), "{rel}");
        assert_eq!(poll.options.len(), truth.len(), "{rel}");
        for (o, t) in poll.options.iter().zip(&truth) {
            assert_eq!(o.text, field(t, "polloption"), "{rel}");
            assert_eq!(o.votes as u64, num(t, "votes"), "{rel} {}", o.text);
            if has_ids {
                assert_eq!(o.id, Some(num(t, "polloptionid")), "{rel} {}", o.text);
            }
        }
        assert_eq!(
            poll.voters_total.map(u64::from),
            Some(num(poll_row, "voters")),
            "{rel}"
        );
        assert!(!poll.multiple, "{rel}");
        assert_eq!(poll.max_choices, Some(1), "{rel}");
    }
    // v3 answers an HTML System Error with HTTP 503; a thread that is no poll says so.
    let (bytes, ct) = read("discuz/poll/mobile_v3_viewthread_tid5_judge.json");
    assert_eq!(
        parse_poll(&bytes, ct.as_deref(), &opts).unwrap_err().kind,
        PageErrorKind::SystemError
    );
    let (bytes, ct) = read("discuz/mobile/guest/v1/viewthread_tid3_vote_p1.json");
    assert_eq!(
        parse_poll(&bytes, ct.as_deref(), &opts).unwrap_err().kind,
        PageErrorKind::NotAThreadPage
    );
}

#[test]
fn poll_voters_match_the_database() {
    let truth: BTreeMap<u64, Vec<u64>> = rows("forum_polloption.json")
        .iter()
        .map(|t| {
            let mut ids: Vec<u64> = field(t, "voterids")
                .split('\t')
                .filter_map(|u| u.parse().ok())
                .collect();
            ids.sort();
            (num(t, "polloptionid"), ids)
        })
        .collect();
    let names = members();
    let mut seen = 0;
    for rel in [
        "discuz/poll/viewvote_tid5_judge.html",
        "discuz/poll/viewvote_tid5_judge_inajax.xml",
        "discuz/poll/viewvote_tid5_guest.html",
        "discuz/poll/viewvote_tid5_option1_judge.html",
        "discuz/poll/viewvote_tid5_option1_judge_inajax.xml",
        "discuz/poll/viewvote_tid5_option3_judge.html",
        "discuz/poll/viewvote_tid5_option3_judge_inajax.xml",
        "discuz/poll/viewvote_tid5_option13_judge.html",
        "discuz/poll/viewvote_tid5_option13_judge_inajax.xml",
    ] {
        let (bytes, ct) = read(rel);
        let list = parse_voters(&bytes, ct.as_deref()).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(list.options.len(), 13, "{rel}");
        let option = list.option_id.unwrap();
        let mut uids: Vec<u64> = list.voters.iter().map(|v| v.uid.unwrap()).collect();
        uids.sort();
        assert_eq!(uids, truth[&option], "{rel} option {option}");
        for v in &list.voters {
            assert_eq!(names[&v.uid.unwrap()], v.name, "{rel}");
        }
        assert_eq!((list.page, list.last_page), (1, 1), "{rel}");
        seen += list.voters.len();
    }
    assert!(seen > 10);
    // Asking a thread that is no poll for its voters: the forum's message, not an empty list.
    let (bytes, ct) = read("discuz/errors/viewvote_tid3_not_a_poll_judge.html");
    let e = parse_voters(&bytes, ct.as_deref()).unwrap_err();
    assert_eq!(e.kind, PageErrorKind::ForumMessage);
    assert!(e.detail.contains("本帖非投票帖"), "{e}");
}

#[test]
fn private_messages_match_the_database() {
    let truth: BTreeMap<u64, Value> = rows("ucenter_pm_messages.json")
        .into_iter()
        .map(|m| (num(&m, "pmid"), m))
        .collect();
    let names = members();
    let opts = Default::default();
    let mut compared = 0;
    for rel in common::files_under(&common::fixtures().join("discuz/pm"), &|n| {
        n.contains("subop_view")
    }) {
        let rel = rel.to_string_lossy().into_owned();
        let exact = rel.contains("mobile_v1");
        let relative_only = rel.contains("mobile_v4");
        let bytes = std::fs::read(&rel).unwrap();
        let (_, ct) = common::headers_of(std::path::Path::new(&rel));
        let page = parse_pm(&bytes, ct.as_deref(), &opts).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(page.viewer_uid, Some(2), "{rel}");
        assert!(!page.messages.is_empty(), "{rel}");
        for m in &page.messages {
            let t = &truth[&m.pmid];
            assert_eq!(
                m.from_uid,
                Some(num(t, "authorid")),
                "{rel} pmid {}",
                m.pmid
            );
            assert_eq!(m.from, names[&num(t, "authorid")], "{rel} pmid {}", m.pmid);
            assert_eq!(m.text, field(t, "message"), "{rel} pmid {}", m.pmid);
            let at = num(t, "dateline") as i64;
            match (exact, relative_only) {
                (true, _) => assert_eq!(m.sent_at.unwrap().timestamp(), at, "{rel}"),
                (_, true) => assert!(m.sent_at.is_none(), "{rel}: v4 gives relative times only"),
                _ => assert_eq!(m.sent_at.unwrap().timestamp(), at - at % 60, "{rel}"),
            }
            // The other party: the judge for a player's message, the player for the judge's.
            let to = m.to_uid.unwrap();
            assert!(
                (m.from_uid == Some(2)) != (to == 2),
                "{rel} pmid {}: {to}",
                m.pmid
            );
            compared += 1;
        }
        if relative_only {
            assert!(!page.warnings.is_empty(), "{rel}");
        }
    }
    assert!(compared >= 15, "{compared}");

    // The inbox list: one row per conversation, with the member that opens it.
    let lists: BTreeMap<u64, u64> = rows("ucenter_pm_lists.json")
        .iter()
        .map(|l| {
            let other = field(l, "min_max")
                .split('_')
                .map(|u| u.parse::<u64>().unwrap())
                .find(|u| *u != 2)
                .unwrap();
            (num(l, "plid"), other)
        })
        .collect();
    for rel in [
        "discuz/pm/mobile_v1_mypm_list_judge.json",
        "discuz/pm/mobile_v4_mypm_list_judge.json",
        "discuz/pm/space_do_pm_list_judge.html",
    ] {
        let (bytes, ct) = read(rel);
        let page = parse_pm(&bytes, ct.as_deref(), &opts).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(page.conversations.len(), lists.len(), "{rel}");
        for c in &page.conversations {
            assert_eq!(c.with_uid, Some(lists[&c.plid]), "{rel} plid {}", c.plid);
        }
    }
    // A guest gets the login prompt, as a page or as JSON.
    for rel in [
        "discuz/pm/space_do_pm_as_guest.html",
        "discuz/pm/mobile_v4_mypm_as_guest.json",
    ] {
        let (bytes, ct) = read(rel);
        assert_eq!(
            parse_pm(&bytes, ct.as_deref(), &opts).unwrap_err().kind,
            PageErrorKind::LoginRequired,
            "{rel}"
        );
    }
}

fn bansha() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("bansha").unwrap()
}

#[test]
fn the_poll_command_prints_options_counts_and_voters() {
    let poll = common::fixtures().join("discuz/poll");
    let out = bansha()
        .arg("poll")
        .arg(poll.join("viewthread_tid5_poll_guest.html"))
        .args(["1", "3", "13"].map(|o| poll.join(format!("viewvote_tid5_option{o}_judge.html"))))
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let truth = rows("forum_polloption.json");
    let names = members();
    for (o, t) in v["options"].as_array().unwrap().iter().zip(&truth) {
        assert_eq!(o["text"], field(t, "polloption"));
        assert_eq!(o["votes"].as_u64().unwrap(), num(t, "votes"));
        let id = num(t, "polloptionid");
        if [1, 3, 13].contains(&id) {
            // The guest page has no ids; the voter lists supply them.
            assert_eq!(o["id"].as_u64(), Some(id));
            let mut got: Vec<String> = o["voters"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v["name"].as_str().unwrap().to_string())
                .collect();
            got.sort();
            let mut want: Vec<String> = field(t, "voterids")
                .split('\t')
                .filter_map(|u| u.parse::<u64>().ok())
                .map(|u| names[&u].clone())
                .collect();
            want.sort();
            assert_eq!(got, want, "option {id}");
        } else {
            assert!(o["voters"].is_null());
        }
    }
    // A page that is not a poll: exit 1, the file and the forum's words.
    bansha()
        .arg("poll")
        .arg(common::fixtures().join("discuz/errors/viewvote_tid3_not_a_poll_judge.html"))
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "viewvote_tid3_not_a_poll_judge.html",
        ))
        .stderr(predicates::str::contains("本帖非投票帖"));
}

#[test]
fn the_pm_command_prints_each_message_once_with_the_exact_time() {
    let pm = common::fixtures().join("discuz/pm");
    let pages: Vec<std::path::PathBuf> = common::files_under(&pm, &|n| n.contains("subop_view"));
    let out = bansha().arg("pm").args(&pages).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let got: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let truth = rows("ucenter_pm_messages.json");
    assert_eq!(got.len(), truth.len());
    for (g, t) in got.iter().zip(&truth) {
        assert_eq!(g["pmid"].as_u64(), Some(num(t, "pmid")));
        assert_eq!(g["from_uid"].as_u64(), Some(num(t, "authorid")));
        assert_eq!(g["text"], field(t, "message"));
        // Where API v1 gave the second, it wins over the desktop page's minute.
        let at = chrono::DateTime::parse_from_rfc3339(g["sent_at"].as_str().unwrap()).unwrap();
        let exact = [3, 4, 5, 7].contains(&num(t, "pmid"));
        if exact {
            assert_eq!(at.timestamp(), num(t, "dateline") as i64);
            assert_eq!(g["precision"], "second");
        } else {
            assert_eq!(at.timestamp() / 60, num(t, "dateline") as i64 / 60);
        }
    }
    bansha()
        .arg("pm")
        .arg(pm.join("space_do_pm_as_guest.html"))
        .assert()
        .code(1)
        .stderr(predicates::str::contains("space_do_pm_as_guest.html"))
        .stderr(predicates::str::contains("login_required"));
}
