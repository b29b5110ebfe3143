//! The machine's clock against the forum's (issue 18, break 6): more than a minute apart,
//! bansha goes by the forum's `Date`, tells the judge once, and closes by the forum's time.
//! These cycles run on the system clock (`bansha run --once` with no `--now`); the replay
//! forum's clock is set apart from it.

use crate::support::*;

fn finals(mailbox: &Mailbox) -> usize {
    subject_lines(mailbox)
        .iter()
        .filter(|s| s.contains("最终计票："))
        .count()
}

/// A machine clock 19 minutes fast: the close has passed by it, not by the forum. No final
/// goes out early; the judge hears once; the close comes by the forum's clock.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn a_fast_machine_clock_does_not_close_early() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    forum.lock().unwrap().at = 4102444800;
    forum.lock().unwrap().date_offset = Some(-19 * 60);
    close_in(&config, -5 * 60);

    let r = tokio::task::block_in_place(|| once_at(&config, None));
    assert_eq!(
        finals(&mailbox),
        0,
        "no final before the forum's close: {:?}",
        subject_lines(&mailbox)
    );
    let off = r["clock_offset_secs"]
        .as_i64()
        .expect("the offset is reported");
    assert!((-19 * 60 - 2..=-19 * 60 + 2).contains(&off), "{r}");
    let told: Vec<String> = subject_lines(&mailbox)
        .into_iter()
        .filter(|s| s.contains("本机时钟"))
        .collect();
    assert_eq!(told, ["本机时钟比论坛快 19 分钟：按论坛时间截止"]);

    // Still apart at the next cycle: not mailed again.
    tokio::task::block_in_place(|| once_at(&config, None));
    assert_eq!(
        subject_lines(&mailbox)
            .iter()
            .filter(|s| s.contains("本机时钟"))
            .count(),
        1
    );

    // 90 s fast, the close 75 s ago by the machine: 15 s before it by the forum. Then the
    // forum's close passes and the final goes out.
    forum.lock().unwrap().date_offset = Some(-90);
    close_in(&config, -75);
    tokio::task::block_in_place(|| once_at(&config, None));
    assert_eq!(finals(&mailbox), 0, "{:?}", subject_lines(&mailbox));
    tokio::time::sleep(std::time::Duration::from_secs(17)).await;
    tokio::task::block_in_place(|| once_at(&config, None));
    assert_eq!(finals(&mailbox), 1, "{:?}", subject_lines(&mailbox));
}

/// A machine clock set back an hour: the close has passed by the forum's clock though the
/// machine's says half an hour to go. The final goes out now, at the close's cutoff.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn a_slow_machine_clock_does_not_hold_the_close() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    forum.lock().unwrap().at = 4102444800;
    forum.lock().unwrap().date_offset = Some(3600);
    close_in(&config, 30 * 60);

    let r = tokio::task::block_in_place(|| once_at(&config, None));
    assert_eq!(finals(&mailbox), 1, "{:?}", subject_lines(&mailbox));
    let off = r["clock_offset_secs"]
        .as_i64()
        .expect("the offset is reported");
    assert!((3598..=3602).contains(&off), "{r}");
    assert!(subject_lines(&mailbox)
        .iter()
        .any(|s| s == "本机时钟比论坛慢 60 分钟：按论坛时间截止"));
}

/// A forum whose clock agrees within a minute: the judge is not told (no offset reported, no
/// mail), yet the close still comes by the forum's clock: a machine a few seconds fast does not
/// take the final while ballots can still come in (found by the service simulator, seed 302: a
/// private message two seconds before the close missed by a machine 15 s fast).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn clocks_within_a_minute_are_not_told_but_the_close_is_the_forums() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    forum.lock().unwrap().at = 4102444800;
    forum.lock().unwrap().date_offset = Some(-8);
    // Past by the machine, 5 s ahead by the forum.
    close_in(&config, -3);
    let r = tokio::task::block_in_place(|| once_at(&config, None));
    assert!(r.get("clock_offset_secs").is_none(), "{r}");
    assert_eq!(finals(&mailbox), 0, "{:?}", subject_lines(&mailbox));
    tokio::time::sleep(std::time::Duration::from_secs(7)).await;
    tokio::task::block_in_place(|| once_at(&config, None));
    assert_eq!(finals(&mailbox), 1, "{:?}", subject_lines(&mailbox));
    assert!(!subject_lines(&mailbox)
        .iter()
        .any(|s| s.contains("本机时钟")));
}

/// Day 2 closes `secs` seconds from the real time now.
fn close_in(config: &std::path::Path, secs: i64) {
    let game = config.parent().unwrap().join("games/banshayishi-12.toml");
    let text = std::fs::read_to_string(&game).unwrap();
    let at = (chrono::Utc::now() + chrono::Duration::seconds(secs))
        .with_timezone(&chrono::FixedOffset::east_opt(8 * 3600).unwrap())
        .format("%Y-%m-%d %H:%M:%S");
    let re = regex::Regex::new(r#"closes_at = "[^"]*""#).unwrap();
    assert!(re.is_match(&text));
    let text = re.replace(&text, format!("closes_at = \"{at}\"").as_str());
    std::fs::write(game, text.as_ref()).unwrap();
}
