//! The config files, secret files and environment variables bansha reads at start: the real
//! `Sources` of the domain's loaders.

use crate::domain::config::{ConfigError, GameConfig};
use crate::domain::settings::{self, Settings};
use crate::domain::sources::Sources;
use std::path::Path;

/// The disk and the process environment.
pub struct Disk;

impl Sources for Disk {
    fn read(&self, path: &Path) -> std::io::Result<String> {
        let bytes = std::fs::read(path)?;
        // Notepad's "ANSI" on a Chinese Windows is GBK: say so, rather than "invalid UTF-8".
        String::from_utf8(bytes).map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "文件不是 UTF-8 编码（可能是记事本存成了 GBK/ANSI）：请另存为 UTF-8",
            )
        })
    }
    fn mode(&self, path: &Path) -> std::io::Result<Option<u32>> {
        let meta = std::fs::metadata(path)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            Ok(Some(meta.permissions().mode()))
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            Ok(None)
        }
    }
    fn env(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

/// Load and validate a game config file.
pub fn load_game(path: &Path) -> Result<GameConfig, ConfigError> {
    crate::domain::game::load_from(path, &Disk)
}

/// Load and validate the daemon config and every game it names.
pub fn load_settings(path: &Path) -> Result<Settings, ConfigError> {
    settings::load_from(path, &Disk)
}

/// `path` as the file system resolves it (links followed), to compare two configs' directories;
/// as an absolute path when it does not exist.
pub fn canonical(path: &Path) -> std::path::PathBuf {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// One config file as it was when read: what a reload compares and `bansha reload` shows.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileVersion {
    pub path: String,
    /// CRC-32 of the bytes, hex: the version a judge can compare.
    pub digest: String,
    /// The file's modification time (UTC, RFC 3339), when the file system tells it.
    pub modified: Option<String>,
}

/// Reads the disk as `Disk` does and remembers every file read (the daemon config, the game
/// configs, ruleset files, secret files): the files a change of which is a new config.
#[derive(Default)]
pub struct Recording {
    read: std::sync::Mutex<Vec<std::path::PathBuf>>,
}

impl Sources for Recording {
    fn read(&self, path: &Path) -> std::io::Result<String> {
        if let Ok(mut r) = self.read.lock() {
            if !r.iter().any(|p| p == path) {
                r.push(path.to_path_buf());
            }
        }
        Disk.read(path)
    }
    fn mode(&self, path: &Path) -> std::io::Result<Option<u32>> {
        Disk.mode(path)
    }
    fn env(&self, name: &str) -> Option<String> {
        Disk.env(name)
    }
}

/// Load the daemon config and its games, with the versions of every file read (also when the
/// load fails: the versions tell a broken file that has not changed since from one that has).
pub fn load_settings_versioned(path: &Path) -> (Result<Settings, ConfigError>, Vec<FileVersion>) {
    let rec = Recording::default();
    let result = settings::load_from(path, &rec);
    let mut read = rec.read.lock().map(|r| r.clone()).unwrap_or_default();
    if read.is_empty() {
        read.push(path.to_path_buf());
    }
    (result, versions(&read))
}

/// The versions of `paths` now (a file that cannot be read has the digest "无法读取").
pub fn versions(paths: &[std::path::PathBuf]) -> Vec<FileVersion> {
    paths
        .iter()
        .map(|p| {
            let digest = match std::fs::read(p) {
                Ok(bytes) => format!("{:08x}", crc32fast::hash(&bytes)),
                Err(_) => "无法读取".to_string(),
            };
            let modified = std::fs::metadata(p)
                .and_then(|m| m.modified())
                .ok()
                .map(|t| chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339());
            FileVersion {
                path: p.display().to_string(),
                digest,
                modified,
            }
        })
        .collect()
}

#[cfg(test)]
mod reload_tests {
    use super::*;

    #[test]
    fn a_changed_file_has_a_new_digest_and_an_unchanged_one_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("g.toml");
        std::fs::write(&p, "a = 1\n").unwrap();
        let one = versions(std::slice::from_ref(&p));
        assert_eq!(one, versions(std::slice::from_ref(&p)));
        std::fs::write(&p, "a = 2\n").unwrap();
        let two = versions(std::slice::from_ref(&p));
        assert_ne!(one[0].digest, two[0].digest);
        std::fs::remove_file(&p).unwrap();
        assert_eq!(versions(&[p])[0].digest, "无法读取");
    }
}
