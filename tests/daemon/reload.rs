//! Configs that change while the service runs (issue 30): a game config edited into an error
//! is not taken (the running one stays, the judge is mailed once with file, line and key), and
//! the mended file is taken without a restart, by SIGHUP (`systemctl reload`) or
//! `bansha reload`.

use crate::support::*;

fn hup(child: &std::process::Child) {
    let ok = std::process::Command::new("kill")
        .args(["-HUP", &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

/// The service's /status, as JSON (the CLI cannot load a broken config to ask it).
async fn status_json(port: u16) -> serde_json::Value {
    let text = tokio::task::block_in_place(|| http_get(port, "/status"));
    let body = text
        .split("\r\n\r\n")
        .nth(1)
        .unwrap_or_default()
        .to_string();
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Waits until the status satisfies `ok` (the SIGHUP's cycle runs on its own task).
async fn status_until(port: u16, ok: impl Fn(&serde_json::Value) -> bool) -> serde_json::Value {
    let mut last = serde_json::Value::Null;
    for _ in 0..100 {
        last = status_json(port).await;
        if ok(&last) {
            return last;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the status never turned: {last:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_config_is_refused_and_mailed_once_and_the_mended_one_taken_without_a_restart() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795953600;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let port = pin_status_port(&config);
    let game = dir.path().join("games/banshayishi-12.toml");
    let good = std::fs::read_to_string(&game).unwrap();
    let (mut child, started) = start_service(&config, Some("2026-11-29 20:00:00")).await;
    assert!(started.contains("运行中的配置（启动时载入）"), "{started}");
    assert!(started.contains("banshayishi-12.toml  版本 "), "{started}");
    let first = status_json(port).await;
    let digest = |s: &serde_json::Value| -> String {
        s["configs"]["running"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"].as_str().unwrap().ends_with("banshayishi-12.toml"))
            .unwrap()["digest"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let running = digest(&first);

    // A typo under time pressure: an unknown key on line 26 of the day's block.
    let broken = good.replace(
        "closes_at = \"2026-11-29 21:00:00\"\n",
        "closes_at = \"2026-11-29 21:00:00\"\nclose_at = \"2026-11-29 21:30:00\"\n",
    );
    assert_ne!(broken, good);
    let line = broken
        .lines()
        .position(|l| l.starts_with("close_at"))
        .unwrap()
        + 1;
    std::fs::write(&game, &broken).unwrap();
    hup(&child);
    let refused = status_until(port, |s| !s["configs"]["error"].is_null()).await;
    let error = refused["configs"]["error"].as_str().unwrap();
    assert!(error.contains("banshayishi-12.toml"), "{error}");
    assert!(error.contains(&format!("第 {line} 行")), "{error}");
    assert!(error.contains("close_at"), "{error}");
    // The running config stays: the same version, the day still watched.
    assert_eq!(digest(&refused), running);
    assert!(
        refused["watching"][0].as_str().unwrap().contains("第2天"),
        "{refused:#}"
    );
    assert!(
        refused["problems"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p.as_str().unwrap().contains("改过的配置没有采用")),
        "{refused:#}"
    );
    // Asked again with nothing changed: no second mail.
    hup(&child);
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let mails = mails_about(&mailbox, "配置未采用");
    assert_eq!(mails.len(), 1, "{:#?}", subject_lines(&mailbox));
    assert!(
        mails[0].1.contains(&format!("第 {line} 行")),
        "{}",
        mails[0].1
    );
    assert!(mails[0].1.contains("close_at"), "{}", mails[0].1);

    // Mended, with the deadline moved to 21:30: taken at `bansha reload`, no restart.
    std::fs::write(
        &game,
        good.replace(
            "closes_at = \"2026-11-29 21:00:00\"",
            "closes_at = \"2026-11-29 21:30:00\"",
        ),
    )
    .unwrap();
    let (code, out, err) = tokio::task::block_in_place(|| cli(&config, &["reload"]));
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("重新载入"), "{out}");
    assert!(!out.contains("没有采用"), "{out}");
    let taken = status_json(port).await;
    assert!(taken["configs"]["error"].is_null(), "{taken:#}");
    assert_ne!(digest(&taken), running);
    assert_eq!(
        taken["next_deadline"][0].as_str().unwrap(),
        "2026-11-29 20:30:00",
        "the lock of the moved close (21:30 − 60 min): {taken:#}"
    );
    assert_eq!(child.try_wait().unwrap(), None, "the service kept running");
    // The mended config is not news: still one mail about configs.
    assert_eq!(mails_about(&mailbox, "配置").len(), 1);
}
