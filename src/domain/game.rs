//! Loading a game config whole: its shape and values (`config`), then the win conditions,
//! warnings and protections evaluated once on the starting roster (`rules::state`), so an
//! expression that cannot be computed is an error at load, pointing at `rules.win`.

use crate::domain::config::{self, locate, ConfigError, GameConfig};
use crate::domain::sources::Sources;
use std::path::Path;

/// Load and validate a game config file, read through `src` (`io::files::load_game` reads the
/// disk).
pub fn load_from(path: &Path, src: &dyn Sources) -> Result<GameConfig, ConfigError> {
    let text = src.read(path).map_err(|e| ConfigError {
        file: path.display().to_string(),
        line: None,
        key: String::new(),
        message: format!("无法读取：{e}"),
    })?;
    checked(config::parse_str_from(&text, path, src)?, path, &text)
}

/// Load and validate a game config from its text; `path` names it in errors and anchors a
/// relative ruleset path (which, from text alone, cannot be read).
pub fn load_str(text: &str, path: &Path) -> Result<GameConfig, ConfigError> {
    checked(config::parse_str(text, path)?, path, text)
}

fn checked(game: GameConfig, path: &Path, text: &str) -> Result<GameConfig, ConfigError> {
    match crate::domain::rules::state::validate(&game) {
        Ok(()) => Ok(game),
        Err(message) => Err(ConfigError {
            file: path.display().to_string(),
            line: locate(text, &["rules", "win"]),
            key: "rules.win".into(),
            message,
        }),
    }
}
