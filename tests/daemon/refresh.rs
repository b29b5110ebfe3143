//! The dashboard's periodic refresh against what the judge is typing (issue 29 item 17), in
//! headless Chromium.

use crate::browser::Browser;
use crate::support::*;
use std::time::Duration;

/// The dashboard reloads itself (every minute; `?refresh=2` makes it two seconds for this
/// test), but never over a reason the judge is typing: while a field has the focus or holds
/// text not yet sent, the reload waits. The reason typed across several refreshes is the one
/// the ruling records, and the page refreshes again once nothing is pending.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reason_being_typed_survives_the_dashboards_refresh() {
    let (_mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795953600; // 20:00
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let port = pin_status_port(&config);
    let (_child, status) = start_service(&config, Some("2026-11-29 20:00:00")).await;
    assert!(!status.is_empty(), "the service never answered");
    let ready = "document.querySelector('table.ballots')";
    let row = "document.querySelector('span.rule[data-pid=\"62\"]')";
    let reason = "路人甲是冷雪的旧ID";
    tokio::task::block_in_place(|| {
        let mut b = Browser::launch(&dir.path().join("cdp"));
        // The real page: once a minute.
        b.open(&format!("http://127.0.0.1:{port}/"), ready);
        assert_eq!(b.eval("banshaRefreshSeconds()"), 60);
        // Nothing typed: the page reloads at its interval.
        // The page already open has the ballots too: wait for the new address's page (read
        // during the navigation, the interval was null under load).
        b.open(
            &format!("http://127.0.0.1:{port}/?refresh=2"),
            &format!("location.search === '?refresh=2' && {ready}"),
        );
        assert_eq!(b.eval("banshaRefreshSeconds()"), 2);
        b.eval("window.banshaMark = 1");
        b.wait("window.banshaMark === undefined", Duration::from_secs(15));

        // 12# 不见 wrote 路人甲: the judge starts typing the reason.
        b.eval(&format!(
            "window.banshaMark = 2; var w = {row}.querySelector('.why'); w.focus(); w.value = {reason:?}; w.dispatchEvent(new Event('input', {{bubbles: true}}))"
        ));
        std::thread::sleep(Duration::from_secs(5));
        assert_eq!(b.eval("window.banshaMark"), 2, "reloaded while typing");
        assert_eq!(
            b.eval(&format!("{row}.querySelector('.why').value")),
            reason
        );
        // Looks away (the field loses the focus), the text still unsent; then the player.
        b.eval("document.activeElement.blur()");
        std::thread::sleep(Duration::from_secs(5));
        assert_eq!(b.eval("window.banshaMark"), 2, "reloaded over unsent text");
        b.eval(&format!(
            "var r = {row}; r.querySelector('.to').value = '冷雪'; r.querySelector('button.redirect').click()"
        ));
        b.wait(
            &format!("document.body.innerText.includes('按投 冷雪 计：{reason}')"),
            Duration::from_secs(30),
        );
        // Sent: nothing pending, the page refreshes again.
        b.eval("window.banshaMark = 3");
        b.wait("window.banshaMark === undefined", Duration::from_secs(15));
    });
    let (code, list, err) = tokio::task::block_in_place(|| cli(&config, &["ruling"]));
    assert_eq!(code, Some(0), "{err}");
    assert!(list.contains(reason), "{list}");
    assert_eq!(list.lines().count(), 1, "{list}");
}
