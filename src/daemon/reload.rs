//! Configs that change while the service runs (issue 30).
//!
//! At the start of each cycle, with the cycle lock held, the files behind the running settings
//! (the daemon config, each game config, ruleset and secret files it reads) are looked at; one
//! that changed, or a reload asked for (SIGHUP from `systemctl reload`, `bansha reload`), has the
//! whole config loaded and validated again. A config that validates replaces the running games
//! and polling: a cycle never sees two versions, and what the record decided (finals sent, keys)
//! stays decided, since the record keys everything by game id and day. One that does not
//! validate is not taken: the running config stays, the judge is mailed the error once (file,
//! line, key), and `status` and the dashboard show it until a mended file is taken.
//!
//! The sections the running service is built from (the forum and its login, the mail relay,
//! the judges' addresses, the state directory, the listener and its token, the QQ bot) take effect at the
//! next restart; the judge is told so, once per version.

use crate::daemon::{CycleReport, Daemon};
use crate::domain::settings::Settings;
use crate::io::files::FileVersion;
use crate::present::mails;
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

type Time = DateTime<FixedOffset>;

/// What the service knows of its config files.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Reload {
    /// The files behind the running settings, as they were when taken.
    pub running: Vec<FileVersion>,
    /// When the running settings were taken by a reload (none: at the start).
    pub taken_at: Option<Time>,
    /// Why the last changed config was not taken (Chinese, with file, line and key).
    pub error: Option<String>,
    /// Changed sections that only a restart takes.
    pub restart_needed: Vec<String>,
    /// The versions refused: not loaded again until one of them changes.
    #[serde(skip)]
    refused: Vec<FileVersion>,
    /// A reload asked for (SIGHUP, `bansha reload`): load even if nothing looks changed.
    #[serde(skip)]
    pub asked: bool,
    /// Off for settings not read from files that can be read again.
    #[serde(skip)]
    enabled: bool,
}

impl Reload {
    /// The versions of the files a load of `path` reads now. A config that does not load from
    /// disk (it was built some other way) is never reloaded.
    pub fn at_start(path: &std::path::Path) -> Reload {
        let (loaded, running) = crate::io::files::load_settings_versioned(path);
        Reload {
            enabled: loaded.is_ok(),
            running,
            ..Reload::default()
        }
    }
}

/// Sections of `new` that differ from `old` and that only a restart takes, in the config's
/// own words.
pub fn restart_only(old: &Settings, new: &Settings) -> Vec<String> {
    let mut out = Vec::new();
    let secret =
        |s: &Option<crate::domain::settings::Secret>| s.as_ref().map(|s| s.expose().to_string());
    let login = |l: &Settings| {
        l.login.as_ref().map(|l| {
            (
                format!("{l:?}"),
                l.password.as_ref().map(|p| p.expose().to_string()),
            )
        })
    };
    let qq = |s: &Settings| {
        s.qq.as_ref().map(|q| {
            (
                format!("{q:?}"),
                secret(&q.access_token),
                secret(&q.event_secret),
            )
        })
    };
    let checks: [(&str, bool); 8] = [
        ("state_dir", old.state_dir != new.state_dir),
        (
            "[forum]",
            format!("{:?}", old.forum) != format!("{:?}", new.forum),
        ),
        ("[forum.login]", login(old) != login(new)),
        (
            "[smtp]",
            format!("{:?}", old.smtp) != format!("{:?}", new.smtp)
                || secret(&old.smtp.password) != secret(&new.smtp.password),
        ),
        (
            "[judge]",
            format!("{:?}", old.judge) != format!("{:?}", new.judge),
        ),
        (
            "[status]",
            format!("{:?}", old.status) != format!("{:?}", new.status),
        ),
        (
            "[status] 令牌",
            secret(&old.status_token) != secret(&new.status_token),
        ),
        // The bot's client is built at the start (`Daemon::qq`).
        ("[qq]", qq(old) != qq(new)),
    ];
    for (name, differs) in checks {
        if differs {
            out.push(name.to_string());
        }
    }
    out
}

impl Daemon {
    /// Ask for a reload at the next cycle (SIGHUP, `bansha reload`).
    pub fn ask_reload(&self) {
        if let Ok(mut r) = self.reload.lock() {
            r.asked = true;
        }
    }

    /// What the service knows of its config files now.
    pub fn reload_state(&self) -> Reload {
        self.reload.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// Take a changed config, or refuse it and say why (see the module). Called at the start
    /// of a cycle, the cycle lock held.
    pub(crate) fn reload_if_changed(&self, now: Time, report: &mut CycleReport) {
        let (path, known, asked) = match self.reload.lock() {
            Ok(mut r) if r.enabled => {
                let asked = std::mem::take(&mut r.asked);
                let known = if r.refused.is_empty() {
                    r.running.clone()
                } else {
                    r.refused.clone()
                };
                (self.settings().path.clone(), known, asked)
            }
            _ => return,
        };
        let paths: Vec<std::path::PathBuf> = known.iter().map(|v| v.path.clone().into()).collect();
        if !asked && crate::io::files::versions(&paths) == known {
            return;
        }
        let (loaded, seen) = crate::io::files::load_settings_versioned(&path);
        match loaded {
            Ok(new) => self.take(new, seen, now, report),
            Err(e) => self.refuse(&e.to_string(), seen, now, report),
        }
    }

    fn take(&self, new: Settings, seen: Vec<FileVersion>, now: Time, report: &mut CycleReport) {
        let old = self.settings();
        let restart = restart_only(&old, &new);
        let mut merged = (*old).clone();
        merged.games = new.games;
        merged.poll = new.poll;
        match crate::daemon::identity::settle(&mut merged, &self.store) {
            Ok(notices) => {
                if let Ok(mut known) = self.notices.lock() {
                    for n in notices {
                        if !known.contains(&n) {
                            known.push(n);
                        }
                    }
                }
            }
            Err(e) => report.errors.push(format!("{e:#}")),
        }
        for g in &merged.games {
            for w in g.warnings() {
                crate::io::log::line(&format!("配置 {}：{w}", g.path.display()));
            }
        }
        if let Ok(mut s) = self.settings.write() {
            *s = std::sync::Arc::new(merged);
        }
        let digest = digest_of(&seen);
        if let Ok(mut r) = self.reload.lock() {
            let was_refused = r.error.take().is_some();
            r.running = seen;
            r.refused.clear();
            r.taken_at = Some(now);
            r.restart_needed = restart.clone();
            crate::io::log::line(&format!(
                "配置已重新载入（{digest}）{}",
                if was_refused {
                    "：先前被拒的配置已修好"
                } else {
                    ""
                }
            ));
        }
        report.reloaded = true;
        if !restart.is_empty() {
            let key = format!("config_restart/{digest}");
            if let Err(e) = self.queue(&key, report, || {
                mails::config_needs_restart(&restart, &old.path.display().to_string(), now)
            }) {
                report.errors.push(e.to_string());
            }
        }
    }

    fn refuse(&self, error: &str, seen: Vec<FileVersion>, now: Time, report: &mut CycleReport) {
        let key = format!("config_refused/{}", digest_of(&seen));
        crate::io::log::line(&format!("配置未采用：{error}"));
        if let Ok(mut r) = self.reload.lock() {
            r.error = Some(error.to_string());
            r.refused = seen;
        }
        report.errors.push(format!("配置未采用：{error}"));
        if let Err(e) = self.queue(&key, report, || mails::config_refused(error, now)) {
            report.errors.push(e.to_string());
        }
    }
}

/// One digest for a set of file versions (the key a mail about them is sent once under).
fn digest_of(v: &[FileVersion]) -> String {
    let all: Vec<&str> = v.iter().map(|f| f.digest.as_str()).collect();
    format!("{:08x}", crc32fast::hash(all.join(",").as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::sources::Sources;
    use std::path::{Path, PathBuf};

    struct Files(Vec<(PathBuf, String)>);

    impl Sources for Files {
        fn read(&self, path: &Path) -> std::io::Result<String> {
            self.0
                .iter()
                .find(|(p, _)| p == path)
                .map(|(_, t)| t.clone())
                .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
        }
        fn mode(&self, path: &Path) -> std::io::Result<Option<u32>> {
            self.read(path).map(|_| Some(0o600))
        }
        fn env(&self, _: &str) -> Option<String> {
            None
        }
    }

    fn settings(qq: &str, token: &str) -> Settings {
        let dir = PathBuf::from("/etc/bansha");
        let daemon = format!(
            "state_dir = \"state\"\n[forum]\nbase_url = \"http://127.0.0.1:1/\"\n\
             [smtp]\nhost = \"127.0.0.1\"\nfrom = \"b@j.test\"\nsecurity = \"plain\"\n\
             [judge]\nto = [\"j@j.test\"]\n{qq}\n[[games]]\nconfig = \"g.toml\"\n"
        );
        let game = "ruleset = \"m103\"\nname = \"局\"\n[roster]\nplayers = [\"甲\", \"乙\"]\n\
                    [[days]]\nday = 1\nvote_thread = 3\ncloses_at = \"2026-11-29 21:00\"\n";
        let files = Files(vec![
            (dir.join("daemon.toml"), daemon),
            (dir.join("g.toml"), game.into()),
            (dir.join("qq-token"), token.into()),
        ]);
        crate::domain::settings::load_from(&dir.join("daemon.toml"), &files)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_changed_qq_section_or_its_token_needs_a_restart_and_says_so() {
        let qq = "[qq]\napi = \"http://127.0.0.1:3000/\"\naccess_token_file = \"qq-token\"\njudges = [10001]\n";
        let base = settings(qq, "t1\n");
        assert!(restart_only(&base, &settings(qq, "t1\n")).is_empty());
        assert_eq!(
            restart_only(&base, &settings(&qq.replace("10001", "10002"), "t1\n")),
            ["[qq]"]
        );
        assert_eq!(restart_only(&base, &settings(qq, "t2\n")), ["[qq]"]);
        assert_eq!(restart_only(&base, &settings("", "t1\n")), ["[qq]"]);
    }
}
