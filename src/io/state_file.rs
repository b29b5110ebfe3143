//! The judge's game state file (`GAME.state.json` beside the game config): the one place it is
//! read and written. Only `bansha change` / `confirm` write it; the daemon and the tally
//! commands read it.

use crate::domain::config::GameConfig;
use crate::domain::rules::state::GameState;
use std::path::{Path, PathBuf};

/// The state file of a game config: `--state` when given, else `<config stem>.state.json` beside it.
pub fn state_path(config: &Path, given: Option<&Path>) -> PathBuf {
    match given {
        Some(p) => p.to_path_buf(),
        None => {
            let stem = config
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "game".into());
            config.with_file_name(format!("{stem}.state.json"))
        }
    }
}

/// The recorded state; a missing file is the empty state, an unreadable one an error naming it.
pub fn load_state(path: &Path) -> anyhow::Result<GameState> {
    match std::fs::read(path) {
        Ok(b) => Ok(serde_json::from_slice(&b)
            .map_err(|e| anyhow::anyhow!("{} 无法读取：{e}", path.display()))?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(GameState::default()),
        Err(e) => Err(anyhow::anyhow!("{} 无法读取：{e}", path.display())),
    }
}

/// The game config with the recorded state's eliminations added to each day's `dead`, when a
/// state file sits beside it (so a player the judge has recorded as out cannot vote or be
/// counted for 潜水).
pub fn with_state(mut game: GameConfig) -> anyhow::Result<GameConfig> {
    let path = state_path(&game.path, None);
    if path.exists() {
        let state = load_state(&path)?;
        crate::domain::rules::state::apply_to_days(&mut game, &state);
        // What confirmed nights carry into the days (missed duties, 诅咒 / 庇佑, half votes).
        let facts = state.snapshot(&game).facts;
        crate::domain::night::apply_to_days(&mut game, &facts);
    }
    Ok(game)
}

/// Write the state atomically (a temporary file renamed over the old one).
pub fn save_state(path: &Path, state: &GameState) -> anyhow::Result<()> {
    let tmp = path.with_extension("json.tmp");
    // Roles: only the judge reads it.
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new();
        f.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            f.mode(0o600);
        }
        let mut file = f.open(&tmp)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        }
        file.write_all(&serde_json::to_vec_pretty(state)?)?;
        file.sync_all()?;
    }
    std::fs::rename(&tmp, path)?;
    Ok(())
}
