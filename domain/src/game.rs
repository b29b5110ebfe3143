//! Loading a game config whole: its shape and values (`config`), then the win conditions,
//! warnings and protections evaluated once on the starting roster (`rules::state`), so an
//! expression that cannot be computed is an error at load, pointing at `rules.win`.

use crate::config::{self, locate, ConfigError, GameConfig};
use crate::sources::Sources;
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
    check_night(&game, path, text)?;
    match crate::rules::state::validate(&game) {
        Ok(()) => Ok(game),
        Err(message) => Err(ConfigError {
            file: path.display().to_string(),
            line: locate(text, &["rules", "win"]),
            key: "rules.win".into(),
            message,
        }),
    }
}

/// `[night]`: a resolver bansha has, and readings its choices know (`night::check_readings`);
/// the error points at the key in the game config, else names the ruleset it comes from.
fn check_night(game: &GameConfig, path: &Path, text: &str) -> Result<(), ConfigError> {
    let night = &game.rules.night;
    let at = |key: &[&str], message: String| {
        let mut in_game = vec!["rules"];
        in_game.extend(key);
        match locate(text, &in_game) {
            Some(l) => ConfigError {
                file: path.display().to_string(),
                line: Some(l),
                key: in_game.join("."),
                message,
            },
            None => ConfigError {
                file: format!("{}（规则 {}）", path.display(), game.ruleset),
                line: None,
                key: in_game.join("."),
                message,
            },
        }
    };
    let Some(name) = night.resolver.as_deref() else {
        if let Some(k) = night.readings.keys().next() {
            return Err(at(
                &["night", "readings", k],
                "没有设夜晚结算（night.resolver），读法无从适用".into(),
            ));
        }
        return Ok(());
    };
    let Some(r) = crate::night::resolver(name) else {
        return Err(at(
            &["night", "resolver"],
            format!("bansha 没有“{name}”这个夜晚结算，请检查名字（如 chuhan）"),
        ));
    };
    if let Err(message) = crate::night::check_readings(r.choices(), &night.readings) {
        let bad = night
            .readings
            .iter()
            .find(|(k, v)| {
                !r.choices()
                    .iter()
                    .any(|c| c.key == k.as_str() && c.readings.iter().any(|(x, _)| x == v))
            })
            .map(|(k, _)| k.clone())
            .unwrap_or_default();
        return Err(at(&["night", "readings", &bad], message));
    }
    Ok(())
}
