//! The daemon config: the documented example loads; secrets are refused when others can read
//! them; errors name the key.

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn bansha() -> Command {
    Command::cargo_bin("bansha").unwrap()
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_documented_daemon_config_is_valid() {
    bansha()
        .arg("check-config")
        .arg(root().join("config/daemon.example.toml"))
        .env("BANSHA_FORUM_PASSWORD", "x")
        .env("BANSHA_SMTP_PASSWORD", "y")
        .assert()
        .success()
        .stdout(predicate::str::contains("守护进程配置有效"))
        .stdout(predicate::str::contains("监视游戏：版杀一室 第十二局"));
}

#[test]
fn a_missing_secret_names_its_key() {
    bansha()
        .arg("check-config")
        .arg(root().join("config/daemon.example.toml"))
        .env_remove("BANSHA_FORUM_PASSWORD")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("forum.login.password_env"))
        .stderr(predicate::str::contains("BANSHA_FORUM_PASSWORD 没有设置"));
}

fn daemon_config(dir: &Path, extra_forum: &str, password_mode: u32) -> PathBuf {
    std::fs::copy(
        root().join("config/examples/banshayishi-12.toml"),
        dir.join("game.toml"),
    )
    .unwrap();
    let pw = dir.join("pw");
    std::fs::write(&pw, "secret\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&pw, std::fs::Permissions::from_mode(password_mode)).unwrap();
    }
    let p = dir.join("daemon.toml");
    std::fs::write(
        &p,
        format!(
            "state_dir = \"state\"\n[forum]\nbase_url = \"http://127.0.0.1:9/\"\n{extra_forum}\n[forum.login]\nusername = \"u\"\npassword_file = \"pw\"\n\
             [smtp]\nhost = \"127.0.0.1\"\nsecurity = \"plain\"\nfrom = \"a@b.c\"\n[judge]\nto = [\"j@b.c\"]\n[[games]]\nconfig = \"game.toml\"\n"
        ),
    )
    .unwrap();
    p
}

#[cfg(unix)]
#[test]
fn a_secret_file_others_can_read_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = daemon_config(dir.path(), "", 0o644);
    bansha()
        .arg("check-config")
        .arg(&p)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("forum.login.password_file"))
        .stderr(predicate::str::contains("chmod 600"));
    let p = daemon_config(dir.path(), "", 0o600);
    bansha().arg("check-config").arg(&p).assert().success();
}

#[test]
fn unknown_daemon_keys_are_errors_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = daemon_config(dir.path(), "poll_every = 5", 0o600);
    bansha()
        .arg("check-config")
        .arg(&p)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("第 4 行"))
        .stderr(predicate::str::contains("poll_every"));
}

#[test]
fn run_refuses_a_bad_config_before_touching_anything() {
    let dir = tempfile::tempdir().unwrap();
    let p = daemon_config(dir.path(), "source = \"rss\"", 0o600);
    bansha()
        .args(["run", "--once", "--config"])
        .arg(&p)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("配置错误"));
    assert!(!dir.path().join("state").exists());
}

/// Mail goes encrypted unless the config names a relay on this machine: plain SMTP to any other
/// host is refused at load, pointing at `smtp.security`.
#[test]
fn plain_smtp_is_only_for_a_loopback_relay() {
    let dir = tempfile::tempdir().unwrap();
    let p = daemon_config(dir.path(), "", 0o600);
    let text = std::fs::read_to_string(&p).unwrap();
    for (host, ok) in [
        ("127.0.0.1", true),
        ("localhost", true),
        ("::1", true),
        ("smtp.example.com", false),
        ("192.168.1.10", false),
    ] {
        std::fs::write(
            &p,
            text.replace("host = \"127.0.0.1\"", &format!("host = \"{host}\"")),
        )
        .unwrap();
        let a = bansha().arg("check-config").arg(&p).assert();
        if ok {
            a.success();
        } else {
            a.code(1)
                .stderr(predicate::str::contains("smtp.security"))
                .stderr(predicate::str::contains(host))
                .stderr(predicate::str::contains("starttls"));
        }
    }
    // The same host with TLS is fine.
    std::fs::write(
        &p,
        text.replace("host = \"127.0.0.1\"", "host = \"smtp.example.com\"")
            .replace("security = \"plain\"", "security = \"tls\""),
    )
    .unwrap();
    bansha().arg("check-config").arg(&p).assert().success();
}

/// Settings that would only fail at run time are refused by check-config, at their key and
/// line (issue 18, break 15).
#[test]
fn settings_that_fail_at_run_time_are_refused_at_their_key() {
    let dir = tempfile::tempdir().unwrap();
    for (extra, key) in [
        ("api_version = 0", "forum.api_version"),
        ("api_version = 9", "forum.api_version"),
        ("posts_per_page = 0", "forum.posts_per_page"),
        ("timeout_secs = 0", "forum.timeout_secs"),
    ] {
        let p = daemon_config(dir.path(), extra, 0o600);
        bansha()
            .arg("check-config")
            .arg(&p)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(key))
            .stderr(predicate::str::contains("第 4 行"));
    }
    let p = daemon_config(dir.path(), "api_version = 4\nposts_per_page = 50", 0o600);
    bansha().arg("check-config").arg(&p).assert().success();
}

/// An error in the third `[[days]]` block points at that block's line, not the first's.
#[test]
fn an_error_in_a_later_day_points_at_that_day() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("config/examples/banshayishi-12.toml")).unwrap();
    let mut game = text.clone();
    game.push_str(
        "\n[[days]]\nday = 3\nvote_thread = 7\ncloses_at = \"2026-11-30 21:00:00\"\n\n[[days]]\nday = 4\nvote_thread = 8\ncloses_at = \"2026-12-01 25:00:00\"\n",
    );
    let p = dir.path().join("game.toml");
    std::fs::write(&p, &game).unwrap();
    let line = game.lines().position(|l| l.contains("25:00:00")).unwrap() + 1;
    bansha()
        .arg("check-config")
        .arg(&p)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!("第 {line} 行")))
        .stderr(predicate::str::contains("days[2].closes_at"));
}

/// Two games of one name would share every key in the record (the second's final would never
/// be sent): refused (issue 18, break 11).
#[test]
fn two_games_with_one_name_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = daemon_config(dir.path(), "", 0o600);
    std::fs::copy(
        root().join("config/examples/banshayishi-12.toml"),
        dir.path().join("game2.toml"),
    )
    .unwrap();
    let mut text = std::fs::read_to_string(&p).unwrap();
    text.push_str("[[games]]\nconfig = \"game2.toml\"\n");
    std::fs::write(&p, text).unwrap();
    bansha()
        .arg("check-config")
        .arg(&p)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("games"))
        .stderr(predicate::str::contains("版杀一室 第十二局"));
}

/// Two games renamed apart but sharing an id would share every key in the record: refused;
/// a game without an id is warned about (renaming it makes it a new game).
#[test]
fn two_games_with_one_id_are_refused_and_a_missing_id_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let p = daemon_config(dir.path(), "", 0o600);
    let game = std::fs::read_to_string(root().join("config/examples/banshayishi-12.toml")).unwrap();
    std::fs::write(
        dir.path().join("game2.toml"),
        game.replace("name = \"版杀一室 第十二局\"", "name = \"另一局\""),
    )
    .unwrap();
    let mut text = std::fs::read_to_string(&p).unwrap();
    text.push_str("[[games]]\nconfig = \"game2.toml\"\n");
    std::fs::write(&p, &text).unwrap();
    bansha()
        .arg("check-config")
        .arg(&p)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("游戏 id 都是“版杀一室 第十二局”"));

    // Without an id: valid, with the warning that says what to add.
    std::fs::write(
        dir.path().join("game2.toml"),
        game.replace("name = \"版杀一室 第十二局\"", "name = \"另一局\"")
            .replace("id = \"版杀一室 第十二局\"\n", ""),
    )
    .unwrap();
    bansha()
        .arg("check-config")
        .arg(&p)
        .assert()
        .success()
        .stderr(predicate::str::contains("id = \"另一局\""));
}

/// A deadline already past is warned about by check-config (issue 18, break 5), and days whose
/// deadlines run backwards are an error (issue 29 item 6): the daemon would tally such a day at once.
#[test]
fn past_and_backwards_deadlines_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("config/examples/banshayishi-12.toml")).unwrap();
    // The captured game's day 2 closed on 2026-11-29.
    let p = dir.path().join("past.toml");
    std::fs::write(&p, &text).unwrap();
    bansha()
        .arg("check-config")
        .arg(&p)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "第 2 天的截止时间 2026-11-29 21:00 已经过去",
        ));
    // Moved to 2099: no warning; a day 3 that closes before it: warned.
    let future = text.replace("2026-11-29 21:00:00", "2099-11-29 21:00:00");
    let p = dir.path().join("future.toml");
    std::fs::write(&p, &future).unwrap();
    bansha()
        .arg("check-config")
        .arg(&p)
        .assert()
        .success()
        .stderr(predicate::str::contains("已经过去").not());
    let backwards = format!(
        "{future}\n[[days]]\nday = 3\nvote_thread = 7\ncloses_at = \"2099-11-28 21:00:00\"\n"
    );
    // Since issue 29 item 6 a close at or before the day's opening (here day 2's close) is a
    // configuration error, not a warning: the daemon holds such a day and decides nothing.
    std::fs::write(&p, backwards).unwrap();
    bansha()
        .arg("check-config")
        .arg(&p)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "配置错误：第 3 天的截止时间 2099-11-28 21:00 不晚于这一天的开始 2099-11-29 21:00（第 2 天的截止时间）",
        ));
}

/// A secret as a systemd credential (issue 18, break 13): `password_file = "credential:NAME"`
/// reads `$CREDENTIALS_DIRECTORY/NAME`, the file systemd hands the service's dynamic user for
/// `LoadCredential=NAME:…`; outside systemd the error says what to set.
#[test]
fn a_secret_can_be_a_systemd_credential() {
    let dir = tempfile::tempdir().unwrap();
    let p = daemon_config(dir.path(), "", 0o600);
    let text = std::fs::read_to_string(&p).unwrap().replace(
        "password_file = \"pw\"",
        "password_file = \"credential:forum-password\"",
    );
    std::fs::write(&p, text).unwrap();
    let creds = dir.path().join("creds");
    std::fs::create_dir(&creds).unwrap();
    std::fs::write(creds.join("forum-password"), "secret\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            creds.join("forum-password"),
            std::fs::Permissions::from_mode(0o400),
        )
        .unwrap();
    }
    bansha()
        .arg("check-config")
        .arg(&p)
        .env("CREDENTIALS_DIRECTORY", &creds)
        .assert()
        .success();
    bansha()
        .arg("check-config")
        .arg(&p)
        .env_remove("CREDENTIALS_DIRECTORY")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("forum.login.password_file"))
        .stderr(predicate::str::contains("CREDENTIALS_DIRECTORY"));
    // The README says how to hand the secrets over (issue 32: one place; the unit points
    // there, tests/systemd_unit.rs).
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(readme.contains("LoadCredential=forum-password:"));
}

/// Posting the tally to the thread (issue 21) is the judge's account's doing: refused without
/// a login, at its key; accepted with one; an unknown mode is an error.
#[test]
fn posting_the_tally_needs_the_judges_login() {
    let dir = tempfile::tempdir().unwrap();
    let p = daemon_config(dir.path(), "post_tally = \"button\"", 0o600);
    bansha().arg("check-config").arg(&p).assert().success();
    let text = std::fs::read_to_string(&p).unwrap();
    let guest = text.replace(
        "[forum.login]\nusername = \"u\"\npassword_file = \"pw\"\n",
        "",
    );
    std::fs::write(&p, guest).unwrap();
    bansha()
        .arg("check-config")
        .arg(&p)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("forum.post_tally"))
        .stderr(predicate::str::contains("[forum.login]"));
    let p = daemon_config(dir.path(), "post_tally = \"auto\"", 0o600);
    bansha()
        .arg("check-config")
        .arg(&p)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("post_tally"));
}

/// The documented `[qq]` block (config/daemon.example.toml, uncommented) is valid, and
/// check-config says who gets what: a group only what the rules publish (issue 35).
#[test]
fn the_documented_qq_block_is_valid_and_says_what_a_group_gets() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("config/daemon.example.toml")).unwrap();
    let mut out = String::new();
    let mut in_qq = false;
    for line in text.lines() {
        if line == "# [qq]" {
            in_qq = true;
        }
        if in_qq && line.is_empty() {
            in_qq = false;
        }
        let line = match line.strip_prefix("# ").filter(|_| in_qq) {
            Some(l) if !l.starts_with(' ') => l,
            Some(_) => continue,
            None => line,
        };
        out.push_str(line);
        out.push('\n');
    }
    let game = root().join("config/examples/banshayishi-12.toml");
    let out = out.replace("\"examples/banshayishi-12.toml\"", &format!("{game:?}"));
    assert!(
        out.contains("\n[qq]\n") && out.contains("\njudges = [10001]"),
        "{out}"
    );
    let p = dir.path().join("daemon.toml");
    std::fs::write(&p, out).unwrap();
    bansha()
        .arg("check-config")
        .arg(&p)
        .env("BANSHA_FORUM_PASSWORD", "x")
        .env("BANSHA_SMTP_PASSWORD", "y")
        .env("BANSHA_QQ_TOKEN", "t")
        .env("BANSHA_QQ_SECRET", "s")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "私聊发给法官 QQ 10001：最终统计、作废票",
        ))
        .stdout(predicate::str::contains(
            "QQ 群 20002 只收到规则公开的内容：最终统计的 BBCode",
        ))
        .stdout(predicate::str::contains("自动回复玩家：收到托票"))
        .stdout(predicate::str::contains(
            "/onebot，签名（X-Signature）必须正确",
        ));
}

fn with_qq(dir: &Path, qq: &str) -> PathBuf {
    let p = daemon_config(dir, "", 0o600);
    let text = std::fs::read_to_string(&p)
        .unwrap()
        .replace("[[games]]", &format!("[qq]\n{qq}\n[[games]]"));
    std::fs::write(&p, text).unwrap();
    p
}

/// `[qq]`: an unknown key, an unknown kind, a missing judge are errors at their key; an event
/// endpoint off loopback needs the event secret.
#[test]
fn qq_settings_are_checked_at_their_key() {
    let dir = tempfile::tempdir().unwrap();
    let base = "api = \"http://127.0.0.1:3000/\"\njudges = [10001]\n";
    for (extra, key, says) in [
        (
            "sendd = [\"final\"]",
            "键 qq.sendd",
            "未知的键 sendd。是不是 send？",
        ),
        ("send = [\"tally\"]", "qq.send", "没有 tally 这种消息"),
        ("replies = [\"check\"]", "qq.replies", "没有 check 这种回复"),
        ("max_chars = 20", "qq.max_chars", "100 到 4500"),
    ] {
        let p = with_qq(dir.path(), &format!("{base}{extra}"));
        bansha()
            .arg("check-config")
            .arg(&p)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(key))
            .stderr(predicate::str::contains(says));
    }
    let p = with_qq(dir.path(), "api = \"127.0.0.1:3000\"\njudges = [1]");
    bansha()
        .arg("check-config")
        .arg(&p)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("qq.api"));
    let p = with_qq(dir.path(), "api = \"http://127.0.0.1:3000/\"\njudges = []");
    bansha()
        .arg("check-config")
        .arg(&p)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("qq.judges"));
    let p = with_qq(dir.path(), base);
    let text = std::fs::read_to_string(&p).unwrap().replace(
        "[qq]",
        "[status]\nlisten = \"0.0.0.0:8719\"\ntoken_file = \"pw\"\n[qq]",
    );
    std::fs::write(&p, text).unwrap();
    bansha()
        .arg("check-config")
        .arg(&p)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("event_secret_file"));
    let p = with_qq(dir.path(), base);
    bansha()
        .arg("check-config")
        .arg(&p)
        .assert()
        .success()
        .stdout(predicate::str::contains("没有设置 QQ 群：只发私聊给法官"));
}

/// `[roster.qq]` maps QQ numbers to players: a name not in the roster, or a number that is not
/// one, is an error at its key.
#[test]
fn roster_qq_names_players_by_number() {
    let dir = tempfile::tempdir().unwrap();
    let game = std::fs::read_to_string(root().join("config/examples/banshayishi-12.toml")).unwrap();
    for (entry, says) in [
        ("\"30001\" = \"宋江\"", "宋江 不在玩家名单中"),
        ("\"3000x\" = \"李逵\"", "3000x 不是 QQ 号"),
    ] {
        let p = dir.path().join("g.toml");
        std::fs::write(
            &p,
            game.replace("\n[[days]]", &format!("\n[roster.qq]\n{entry}\n\n[[days]]")),
        )
        .unwrap();
        bansha()
            .arg("check-config")
            .arg(&p)
            .assert()
            .code(1)
            .stderr(predicate::str::contains("roster.qq"))
            .stderr(predicate::str::contains(says));
    }
    let p = dir.path().join("g.toml");
    std::fs::write(
        &p,
        game.replace(
            "\n[[days]]",
            "\n[roster.qq]\n\"30001\" = \"李逵\"\n\n[[days]]",
        ),
    )
    .unwrap();
    bansha().arg("check-config").arg(&p).assert().success();
}

/// Issue 32: on a machine with no font that writes Chinese, the timeline pictures would lose
/// every word: check-config says so as an error and `bansha run` refuses to start, both in
/// Chinese with the package to install, before touching the record. The machine is simulated
/// with a fontconfig file that names the Latin fonts' directory only.
#[test]
fn without_a_chinese_font_check_config_and_run_refuse_with_what_to_install() {
    let dejavu = Path::new("/usr/share/fonts/truetype/dejavu");
    assert!(dejavu.exists(), "this test needs fonts-dejavu-core");
    let dir = tempfile::tempdir().unwrap();
    let p = daemon_config(dir.path(), "", 0o600);
    let conf = dir.path().join("fonts.conf");
    std::fs::write(
        &conf,
        format!(
            "<?xml version=\"1.0\"?>\n<fontconfig><dir>{}</dir></fontconfig>\n",
            dejavu.display()
        ),
    )
    .unwrap();
    let want = "本机没有能显示中文的字体";
    bansha()
        .arg("check-config")
        .arg(&p)
        .env("FONTCONFIG_FILE", &conf)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(want))
        .stderr(predicate::str::contains("fonts-wqy-microhei"));
    for args in [&["run", "--config"][..], &["run", "--once", "--config"][..]] {
        bansha()
            .args(args)
            .arg(&p)
            .env("FONTCONFIG_FILE", &conf)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!("错误：无法启动：{want}")));
    }
    assert!(!dir.path().join("state").exists());
    // With the machine's own fonts (CI installs fonts-wqy-microhei) the same config passes.
    bansha().arg("check-config").arg(&p).assert().success();
}
