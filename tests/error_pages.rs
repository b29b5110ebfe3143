//! Pages that are not thread pages are recognised as what they are, never as a thread with
//! zero posts.

mod common;

use bansha_parsers::{parse_thread_page, PageErrorKind, ParseOptions};

fn kind_of(rel: &str) -> PageErrorKind {
    match common::parse_fixture(rel) {
        Ok(p) => panic!(
            "{rel}: parsed as a thread page with {} posts",
            p.posts.len()
        ),
        Err(e) => {
            assert!(!e.detail.is_empty(), "{rel}: error without detail");
            e.kind
        }
    }
}

#[test]
fn every_captured_error_page_is_classified() {
    use PageErrorKind::*;
    let cases = [
        (
            "discuz/errors/viewthread_tid9999_nonexistent_guest.html",
            NotFound,
        ),
        (
            "discuz/errors/viewthread_tid9999_nonexistent_judge.html",
            NotFound,
        ),
        (
            "discuz/errors/viewthread_tid9999_nonexistent_inajax.xml",
            NotFound,
        ),
        ("discuz/errors/viewthread_tid_abc_guest.html", NotFound),
        ("discuz/errors/viewpid86_deleted_inajax.xml", NotFound),
        (
            "discuz/errors/viewthread_tid2_private_board_guest.html",
            NoPermission,
        ),
        (
            "discuz/errors/viewthread_tid2_private_board_judge_no_permission.html",
            NoPermission,
        ),
        (
            "discuz/errors/forumdisplay_fid4_private_guest.html",
            NoPermission,
        ),
        (
            "discuz/errors/forumdisplay_fid999_nonexistent_guest.html",
            NotFound,
        ),
        (
            "discuz/errors/viewvote_tid3_not_a_poll_judge.html",
            ForumMessage,
        ),
        (
            "discuz/errors/mobile_v1_viewthread_tid9999_nonexistent_guest.json",
            NotFound,
        ),
        (
            "discuz/errors/mobile_v4_viewthread_tid9999_nonexistent_guest.json",
            NotFound,
        ),
        ("discuz/errors/mobile_v4_viewthread_tid_abc.json", NotFound),
        (
            "discuz/errors/mobile_v1_viewthread_tid2_private_guest.json",
            NoPermission,
        ),
        (
            "discuz/errors/mobile_v4_viewthread_tid2_private_judge.json",
            NoPermission,
        ),
        (
            "discuz/errors/mobile_v4_forumdisplay_fid4_private_guest.json",
            NoPermission,
        ),
        ("discuz/mobile/variants/v4_nosuchmodule.json", ApiError),
        // API v3 viewthread answers HTTP 503 with an HTML System Error page on this install.
        (
            "discuz/mobile/judge/v3/viewthread_tid4_discussion_p1.json",
            SystemError,
        ),
        // A wrong formhash or a quote in the URL: the "request_tainting" page.
        (
            "discuz/login/desktop_login_fail_badformhash_inajax.xml",
            RequestTainting,
        ),
        // Not thread pages at all.
        ("discuz/desktop/guest/forum_index.html", NotAThreadPage),
        (
            "discuz/desktop/variants/reply_form_repquote38_as_judge.html",
            NotAThreadPage,
        ),
        ("discuz/mobile/variants/v4_check.json", BadJson),
        ("discuz/mobile/guest/v4/forumdisplay_fid3.json", BadJson),
    ];
    for (rel, want) in cases {
        assert_eq!(kind_of(rel), want, "{rel}");
    }
}

#[test]
fn the_private_thread_is_readable_by_the_admin() {
    let page =
        common::parse_fixture("discuz/errors/viewthread_tid2_private_board_admin_ok.html").unwrap();
    assert_eq!(page.posts.len(), 1);
    assert_eq!(page.posts[0].pid, 18);
}

#[test]
fn html_where_json_was_expected_says_what_it_was() {
    let err =
        common::parse_fixture_as_api("discuz/mobile/judge/v3/viewthread_tid4_discussion_p1.json")
            .unwrap_err();
    assert_eq!(err.kind, PageErrorKind::NotJson);
    assert!(err.detail.contains("system_error"), "{}", err.detail);
    // And a thread page given where JSON was expected.
    let err = common::parse_fixture_as_api("discuz/desktop/guest/viewthread_tid3_vote_p1.html")
        .unwrap_err();
    assert_eq!(err.kind, PageErrorKind::NotJson);
}

#[test]
fn synthetic_flood_and_login_pages() {
    // The texts Discuz's showmessage and CC defence print; captured pages have none of these.
    let flood = "<html><body><div id=\"messagetext\" class=\"alert_error\"><p>抱歉，您的请求过于频繁，请稍后再试</p></div></body></html>";
    let login = "<html><body><div id=\"messagetext\" class=\"alert_error\"><p>抱歉，您尚未登录，没有权限访问该版块</p></div></body></html>";
    let cc = "<html><body>您访问本站速度过快或者刷新间隔时间小于两秒！请等待页面自动跳转 ...</body></html>";
    let o = ParseOptions::default();
    assert_eq!(
        parse_thread_page(flood.as_bytes(), None, &o)
            .unwrap_err()
            .kind,
        PageErrorKind::Flood
    );
    assert_eq!(
        parse_thread_page(login.as_bytes(), None, &o)
            .unwrap_err()
            .kind,
        PageErrorKind::LoginRequired
    );
    assert_eq!(
        parse_thread_page(cc.as_bytes(), None, &o).unwrap_err().kind,
        PageErrorKind::Flood
    );
    assert_eq!(
        parse_thread_page(b"   ", None, &o).unwrap_err().kind,
        PageErrorKind::Empty
    );
}

#[test]
fn a_truncated_page_keeps_what_arrived_and_says_so() {
    let path = common::fixtures().join("discuz/desktop/guest/viewthread_tid3_vote_p1.html");
    let bytes = std::fs::read(path).unwrap();
    let full = parse_thread_page(&bytes, None, &ParseOptions::default()).unwrap();
    assert!(!full.truncated);
    let cut = &bytes[..bytes.len() / 2];
    let page = parse_thread_page(cut, None, &ParseOptions::default()).unwrap();
    assert!(page.truncated);
    assert!(page.posts.len() < full.posts.len());
    assert_eq!(page.posts[..], full.posts[..page.posts.len()]);
}
