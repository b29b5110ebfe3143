//! What one answer from the forum may cost: a gzip bomb (issue 18, break 9). The forum client
//! (`io::forum`, the daemon's only reader of the forum) is driven directly against a local
//! server sending 1 MB that unpacks to 1 GiB. The read must fail, saying why, and the process
//! must not grow by anything like the unpacked size. This file holds one test, so the
//! process's peak memory is this test's own.

use std::path::Path;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The process's peak resident memory so far, in KiB (`VmHWM`).
fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

fn settings(dir: &Path, forum: &str) -> bansha::domain::settings::Settings {
    let games = dir.join("games");
    std::fs::create_dir_all(&games).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("config/examples/banshayishi-12.toml"),
        games.join("game.toml"),
    )
    .unwrap();
    let config = dir.join("daemon.toml");
    std::fs::write(
        &config,
        format!(
            r#"state_dir = "state"

[forum]
base_url = "{forum}/"
source = "api"
api_version = 1
min_gap_ms = 0
timeout_secs = 20
retries = 2

[smtp]
folder = "mails"
from = "bansha@judge.test"

[judge]
to = ["judge@judge.test"]

[[games]]
config = "games/game.toml"
"#
        ),
    )
    .unwrap();
    bansha::io::files::load_settings(&config).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gzip_bomb_fails_the_read_without_unpacking_it() {
    let bomb = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/faults/bomb-1gib.json.gz"),
    )
    .unwrap();
    assert!(bomb.len() < 2 << 20, "the bomb is small on the wire");
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("Content-Encoding", "gzip")
                .set_body_raw(bomb, "application/json"),
        )
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let s = settings(dir.path(), &server.uri());
    let offset = chrono::FixedOffset::east_opt(8 * 3600).unwrap();
    let forum = bansha::io::forum::Forum::new(&s.forum, None, offset).unwrap();

    let before = peak_kib();
    let err = forum
        .thread_page(3, 1)
        .await
        .expect_err("a 1 GiB answer is not a thread page");
    let grown_mib = (peak_kib().saturating_sub(before)) / 1024;
    let text = err.to_string();
    assert!(
        text.contains("解压后超过"),
        "the error says the answer was too large: {text}"
    );
    assert!(
        grown_mib < 200,
        "reading the bomb grew the process by {grown_mib} MiB"
    );
    // Asking again cannot help: one request, no retries.
    assert_eq!(
        forum.requests.load(std::sync::atomic::Ordering::Relaxed),
        1,
        "{text}"
    );
}
