//! Secrets never leave memory: a full run greps every output and file for them.

use crate::support::*;

/// The forum password and the SMTP credentials never show: not in the service's log, `run
/// --once`'s report, `bansha status`, `tally --live`, the dashboard, the queued mails or any file
/// of the record. The run logs in (the forum answers "no permission" first) and fails to
/// authenticate to the SMTP server (which offers no AUTH on a plain connection), so both secrets
/// are used and both failure paths speak.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_never_appear_in_any_output() {
    const FORUM_PW: &str = "F0rum-Secret-pw!";
    const SMTP_PW: &str = "Smtp-Secret-pw!";
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    {
        let mut f = forum.lock().unwrap();
        f.at = 1795955400; // 20:30
        f.faults = vec![Fault::NoPermission];
    }
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    std::fs::write(dir.path().join("forum-password"), format!("{FORUM_PW}\n")).unwrap();
    let smtp_pw = dir.path().join("smtp-password");
    std::fs::write(&smtp_pw, format!("{SMTP_PW}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&smtp_pw, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let port = pin_status_port(&config);
    let text = std::fs::read_to_string(&config).unwrap().replace(
        "security = \"plain\"\n",
        "security = \"plain\"\nusername = \"bansha-user\"\npassword_file = \"smtp-password\"\n",
    );
    std::fs::write(&config, text).unwrap();

    let mut outputs: Vec<(String, String)> = Vec::new();
    let log = dir.path().join("service.log");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(["run", "--now", "2026-11-29 20:30:00", "--config"])
        .arg(&config)
        .stdout(std::fs::File::create(dir.path().join("service.out")).unwrap())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let ask = |args: &[&str]| {
        let (_, out, err) = cli(&config, args);
        format!("{out}{err}")
    };
    let mut status = String::new();
    for _ in 0..150 {
        status = tokio::task::block_in_place(|| ask(&["status"]));
        if status.contains("上一轮") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    outputs.push(("status".into(), status.clone()));
    outputs.push((
        "tally --live".into(),
        tokio::task::block_in_place(|| ask(&["tally", "--live", "--day", "2"])),
    ));
    let dashboard = reqwest::get(format!("http://127.0.0.1:{port}/"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    outputs.push(("dashboard".into(), dashboard.clone()));
    let _ = child.kill();
    let _ = child.wait();
    outputs.push((
        "service log".into(),
        std::fs::read_to_string(&log).unwrap_or_default(),
    ));
    // The close, by hand: its report carries the SMTP error.
    forum.lock().unwrap().at = 1795957260;
    let c = config.clone();
    let report = tokio::task::spawn_blocking(move || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
            .args(["run", "--once", "--now", "2026-11-29 21:01:00", "--config"])
            .arg(&c)
            .output()
            .unwrap();
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
    .await
    .unwrap();
    outputs.push(("run --once".into(), report.clone()));

    // Both secrets were used, and both failure paths spoke.
    assert!(forum.lock().unwrap().logged_in, "the login happened");
    assert!(
        mailbox.mails.lock().unwrap().is_empty(),
        "no mail got through"
    );
    assert!(report.contains("mails_waiting"), "{report}");
    assert!(
        dashboard.contains("未发出的邮件"),
        "the queued mails are pending: {dashboard}"
    );
    assert!(
        report.contains("No compatible authentication mechanism"),
        "the SMTP login was tried and its failure reported: {report}"
    );

    for (what, text) in &outputs {
        for secret in [FORUM_PW, SMTP_PW] {
            assert!(!text.contains(secret), "{what} shows a secret: {text}");
        }
    }
    // Nor any file the daemon wrote (the record, queued mails), other than the secret files.
    for (path, bytes) in all_files(dir.path()) {
        if path.ends_with("forum-password") || path.ends_with("smtp-password") {
            continue;
        }
        for secret in [FORUM_PW, SMTP_PW] {
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "{} holds a secret",
                path.display()
            );
        }
    }
}
