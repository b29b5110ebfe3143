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

/// `check-config --online` (issue 18, break 15): the login, page 1 of the vote thread and an
/// SMTP session are tried for real; a wrong password and a dead relay are named at their key;
/// nothing is mailed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn check_config_online_tries_the_login_the_thread_and_the_relay() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795924800;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let online = |config: &std::path::Path| {
        let out = tokio::task::block_in_place(|| {
            std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
                .args(["check-config", "--online"])
                .arg(config)
                .output()
                .unwrap()
        });
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, err) = online(&config);
    assert_eq!(code, Some(0), "{out}{err}");
    for said in [
        "✓ 论坛登录成功：版杀一室法官",
        "投票帖 tid 3 可以读取：第 1 页 10 帖",
        "✓ 邮件服务器可用",
    ] {
        assert!(out.contains(said), "{said}\n{out}");
    }
    assert!(
        mailbox.mails.lock().unwrap().is_empty(),
        "nothing is mailed"
    );

    // A wrong password, and a relay that is not there.
    Mock::given(method("POST"))
        .and(path("/member.php"))
        .respond_with(|_: &Request| {
            let body = std::fs::read(
                common::fixtures().join("discuz/login/desktop_login_fail_wrongpw_inajax.xml"),
            )
            .unwrap();
            ResponseTemplate::new(200).set_body_raw(body, "text/xml; charset=utf-8")
        })
        .with_priority(1)
        .mount(&server)
        .await;
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = closed.local_addr().unwrap().port();
    drop(closed);
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace(&format!("port = {smtp_port}"), &format!("port = {dead}"));
    std::fs::write(&config, text).unwrap();
    let (code, out, err) = online(&config);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        err.contains("✗ 论坛登录失败（forum.login，用户 版杀一室法官）"),
        "{err}"
    );
    assert!(err.contains("✗ 邮件服务器不可用（smtp）"), "{err}");
}
