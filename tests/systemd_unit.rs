//! The service unit: Type=notify with a watchdog, a state directory, and the hardening that
//! `systemd-analyze security` rates (checked with it when the machine has it).

use std::path::PathBuf;

fn unit() -> (PathBuf, String) {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("systemd/bansha.service");
    let text = std::fs::read_to_string(&p).unwrap();
    (p, text)
}

#[test]
fn the_unit_is_a_hardened_notify_service_with_a_watchdog() {
    let (_, text) = unit();
    let has = |line: &str| text.lines().any(|l| l.trim() == line);
    for line in [
        "Type=notify",
        "WatchdogSec=15min",
        "Restart=always",
        "StateDirectory=bansha",
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "ProtectHome=yes",
        "PrivateTmp=yes",
        "MemoryDenyWriteExecute=yes",
        "CapabilityBoundingSet=",
        "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
    ] {
        assert!(has(line), "missing {line}");
    }
    let exec = text.lines().find(|l| l.starts_with("ExecStart=")).unwrap();
    assert!(exec.contains(" run --config "), "{exec}");
}

#[test]
fn systemd_rates_the_unit_ok_or_better() {
    let (path, _) = unit();
    let Ok(out) = std::process::Command::new("systemd-analyze")
        .args(["security", "--offline=yes"])
        .arg(&path)
        .output()
    else {
        eprintln!("systemd-analyze is not installed here; the static checks above still ran");
        return;
    };
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let line = text
        .lines()
        .find(|l| l.contains("Overall exposure level"))
        .unwrap_or_else(|| panic!("no rating in:\n{text}"));
    let score: f64 = line
        .split(':')
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(score <= 2.0, "exposure must stay at 2.0 or less: {line}");
}

/// systemd itself reads the unit (`systemd-analyze verify`, with ExecStart at the binary built
/// here): every key known, every path it needs present. CI installs systemd for it.
#[test]
fn systemd_verifies_the_unit() {
    let (_, text) = unit();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("bansha.service");
    std::fs::write(
        &copy,
        text.replace("/usr/local/bin/bansha", env!("CARGO_BIN_EXE_bansha")),
    )
    .unwrap();
    let Ok(out) = std::process::Command::new("systemd-analyze")
        .args(["verify", "--man=no"])
        .arg(&copy)
        .output()
    else {
        eprintln!("systemd-analyze is not installed here; the static checks above still ran");
        return;
    };
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    let own: Vec<&str> = said
        .lines()
        .filter(|l| l.contains("bansha.service"))
        .collect();
    assert!(own.is_empty(), "systemd on the unit:\n{}", own.join("\n"));
}
