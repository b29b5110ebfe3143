//! A full disk (issue 18, break 7). The disk is made to fill by the process's file-size limit
//! (RLIMIT_FSIZE, with SIGXFSZ ignored): every write that would grow a file fails, as on a
//! full disk, with no mount or privilege; the limit is lifted ("space is freed") with
//! prlimit on the running process.

use crate::support::*;
use std::os::unix::process::CommandExt;

/// `bansha run --once --now NOW` unable to grow any file; exit code and report.
fn once_full(config: &std::path::Path, now: &str) -> (Option<i32>, String, String) {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"));
    cmd.args(["run", "--once", "--now", now, "--config"])
        .arg(config);
    unsafe {
        cmd.pre_exec(|| {
            full_disk(0);
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// In the child before exec: files may not grow past `bytes`; a write that would returns
/// EFBIG instead of killing the process.
fn full_disk(bytes: u64) {
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        let lim = libc::rlimit {
            rlim_cur: bytes,
            rlim_max: libc::RLIM_INFINITY,
        };
        libc::setrlimit(libc::RLIMIT_FSIZE, &lim);
    }
}

/// A store that cannot be opened on a full disk: the cycle says so and sends nothing; once the
/// disk has room, every mail goes out exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn a_store_that_cannot_open_sends_nothing() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    forum.lock().unwrap().at = 1795924800; // 12:00
    cycle_at(&config, "2026-11-29 12:00:00").await;
    let before = subject_lines(&mailbox);

    // The disk fills; the thread goes on (void ballots, a lock start: mails due).
    forum.lock().unwrap().at = 1795960800; // 22:00
    for now in [
        "2026-11-29 20:30:00",
        "2026-11-29 20:31:00",
        "2026-11-29 20:32:00",
    ] {
        let (code, out, err) = tokio::task::block_in_place(|| once_full(&config, now));
        assert_eq!(code, Some(1), "{out} {err}");
        assert!(err.contains("无法启动"), "{err}");
    }
    let during = subject_lines(&mailbox);

    // Space freed.
    cycle_at(&config, "2026-11-29 20:33:00").await;
    let after = subject_lines(&mailbox);
    let mut seen = std::collections::BTreeSet::new();
    let twice: Vec<&String> = after.iter().filter(|s| !seen.insert(*s)).collect();
    assert!(twice.is_empty(), "sent twice: {twice:?}");
    assert_eq!(
        during.len(),
        before.len(),
        "nothing sent while the disk was full: {during:?}"
    );
    assert!(after.len() > before.len());
}

/// Sets the running process's file-size limit (`None`: none).
fn limit_files(pid: u32, bytes: Option<u64>) {
    let lim = libc::rlimit {
        rlim_cur: bytes.unwrap_or(libc::RLIM_INFINITY),
        rlim_max: libc::RLIM_INFINITY,
    };
    let r = unsafe {
        libc::prlimit(
            pid as libc::pid_t,
            libc::RLIMIT_FSIZE,
            &lim,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(r, 0, "prlimit: {}", std::io::Error::last_os_error());
}

/// The service with a one-second cadence, its file-size limit settable, SIGXFSZ ignored.
fn fast_service(config: &std::path::Path, now: &str) -> std::process::Child {
    let text = std::fs::read_to_string(config).unwrap();
    if !text.contains("near_close_secs") {
        std::fs::write(
            config,
            text.replace(
                "[poll]\n",
                "[poll]\ninterval_secs = 1\nnear_close_secs = 1\n",
            ),
        )
        .unwrap();
    }
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"));
    cmd.args(["run", "--now", now, "--config"])
        .arg(config)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    unsafe {
        cmd.pre_exec(|| {
            full_disk(u64::MAX);
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    // The log, as journald would take it: through a pipe, kept in `LOG` beside the config.
    let mut stderr = child.stderr.take().unwrap();
    let log = config.with_extension("log");
    std::thread::spawn(move || {
        let mut f = std::fs::File::create(log).unwrap();
        let _ = std::io::copy(&mut stderr, &mut f);
    });
    child
}

/// The disk fills under the running service: nothing goes out twice, the service stops
/// (for systemd to start it again) instead of running on unhealthy; SIGTERM is quick.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn the_disk_filling_under_the_service_stops_it_and_sends_nothing_twice() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    forum.lock().unwrap().at = 1795924800; // 12:00
    let mut child = fast_service(&config, "2026-11-29 20:30:00");
    for _ in 0..100 {
        if !subject_lines(&mailbox).is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let before = subject_lines(&mailbox);
    assert!(!before.is_empty());

    limit_files(child.id(), Some(0));
    forum.lock().unwrap().at = 1795960800; // 22:00: void ballots, the lock, mails due
    let exited = exit_within(&mut child, 8);
    let during = subject_lines(&mailbox);
    let log = std::fs::read_to_string(config.with_extension("log")).unwrap();
    assert_eq!(
        during, before,
        "nothing sent while the disk is full:\n{log}"
    );
    let status =
        exited.unwrap_or_else(|| panic!("still running on a store that cannot write:\n{log}"));
    assert_eq!(status.code(), Some(1), "{log}");
    assert!(log.contains("记录无法写入磁盘"), "{log}");

    // Space freed, and systemd starts it again: every mail goes out, none twice.
    let mut child = fast_service(&config, "2026-11-29 20:35:00");
    for _ in 0..100 {
        if subject_lines(&mailbox).len() > before.len() + 5 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let after = subject_lines(&mailbox);
    let mut seen = std::collections::BTreeSet::new();
    let twice: Vec<&String> = after.iter().filter(|s| !seen.insert(*s)).collect();
    assert!(twice.is_empty(), "sent twice: {twice:?}");
    assert!(
        after.iter().any(|s| s.contains("无效票 7 张（汇总，")),
        "the mails held go out after the restart: {after:?}"
    );

    // SIGTERM while the disk is full again: out within seconds.
    limit_files(child.id(), Some(0));
    let t = std::time::Instant::now();
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let done = exit_within(&mut child, 10);
    assert!(done.is_some(), "SIGTERM did not stop it in 10 s");
    assert!(
        t.elapsed() < std::time::Duration::from_secs(7),
        "{:?}",
        t.elapsed()
    );
}

/// The child's exit status if it exits within `secs` seconds; else it is killed.
fn exit_within(child: &mut std::process::Child, secs: u64) -> Option<std::process::ExitStatus> {
    let t = std::time::Instant::now();
    while t.elapsed() < std::time::Duration::from_secs(secs) {
        if let Some(s) = child.try_wait().unwrap() {
            return Some(s);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}
