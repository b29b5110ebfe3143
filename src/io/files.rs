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
