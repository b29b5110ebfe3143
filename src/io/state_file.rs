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
///
/// The daemon reads the state many times a cycle (each open night's dusk, its dues, the days'
/// dead), and a long game's file is thousands of events: the last few files read are kept
/// parsed, each under its bytes, so a file that changed in any way is parsed again (no file
/// time or inode is trusted: they are coarse, and reused).
pub fn load_state(path: &Path) -> anyhow::Result<GameState> {
    Ok(GameState::clone(&*load_state_shared(path)?))
}

/// `load_state`, shared with the kept parse (for a reader: a long game's state is thousands
/// of events, and the night's and the dashboard's questions ask it many times a cycle).
pub fn load_state_shared(path: &Path) -> anyhow::Result<std::sync::Arc<GameState>> {
    state_of(path, state_bytes(path)?)
}

/// The state in the bytes read from `path` (`state_bytes`; none: no state yet).
pub fn state_of(path: &Path, bytes: Option<Bytes>) -> anyhow::Result<std::sync::Arc<GameState>> {
    match bytes {
        Some(b) => parsed(path, b),
        None => Ok(Default::default()),
    }
}

/// A state file's bytes as read, shared (a long game's file is tens of KB, and its readers
/// keep it as the key of what they worked out from it).
pub type Bytes = std::sync::Arc<[u8]>;

/// The state file's bytes, or None where there is none (an unreadable one an error naming it).
/// Inside `reading`, a file is read once (a failed read is not kept).
pub fn state_bytes(path: &Path) -> anyhow::Result<Option<Bytes>> {
    if let Ok(Some(kept)) = READ.try_with(|r| r.borrow().get(path).cloned()) {
        return Ok(kept);
    }
    let read = match std::fs::read(path) {
        Ok(b) => Some(Bytes::from(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(anyhow::anyhow!("{} 无法读取：{e}", path.display())),
    };
    let _ = READ.try_with(|r| r.borrow_mut().insert(path.to_path_buf(), read.clone()));
    Ok(read)
}

tokio::task_local! {
    /// The state files read in this task's `reading` scope, by path (None: there was none).
    static READ: std::cell::RefCell<std::collections::HashMap<PathBuf, Option<Bytes>>>;
}

/// Run `f` (a cycle, or one of the judge's requests) on one reading of each state file: the
/// first read of a file in it is what every later one gives, until the daemon writes the file
/// itself (`save_state`). A cycle asked for a game's state thousands of times in a long game,
/// each an open, a read and a close; and the cycle's questions are answered from one state,
/// not from whichever the judge's edit left at each moment (his edit is read by the next
/// cycle or request). A scope inside another is the outer one: a request that runs a cycle at
/// once (`Service::tick(true)` after a click) runs it on the request's reading, so such a
/// handler reads no state before the tick (or saves what it read, which drops it).
pub async fn reading<F: std::future::Future>(f: F) -> F::Output {
    if READ.try_with(|_| ()).is_ok() {
        return f.await;
    }
    READ.scope(Default::default(), f).await
}

/// The state in `bytes`, read from `path`: parsed once for the same bytes.
fn parsed(path: &Path, bytes: Bytes) -> anyhow::Result<std::sync::Arc<GameState>> {
    {
        let kept = PARSED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, _, state)) = kept.iter().find(|(p, b, _)| p == path && *b == bytes) {
            return Ok(state.clone());
        }
    }
    let state: std::sync::Arc<GameState> = std::sync::Arc::new(
        serde_json::from_slice(&bytes)
            .map_err(|e| anyhow::anyhow!("{} 无法读取：{e}", path.display()))?,
    );
    let mut kept = PARSED.lock().unwrap_or_else(|p| p.into_inner());
    kept.retain(|(p, _, _)| p != path);
    if kept.len() >= KEPT {
        kept.remove(0);
    }
    kept.push((path.to_path_buf(), bytes, state.clone()));
    Ok(state)
}

/// The state files last parsed: (path, bytes, state), oldest first.
type Parsed = Vec<(PathBuf, Bytes, std::sync::Arc<GameState>)>;
static PARSED: std::sync::Mutex<Parsed> = std::sync::Mutex::new(Vec::new());
/// Games a daemon runs, with room.
const KEPT: usize = 16;

/// The game config with the recorded state's eliminations added to each day's `dead`, when a
/// state file sits beside it (so a player the judge has recorded as out cannot vote or be
/// counted for 潜水).
///
/// The daemon asks this many times a cycle of the same config and state, and a long game's
/// replay is most of a cycle's work: the last results are kept, each under the state file's
/// bytes and the whole config as given (compared field by field), so a change to either
/// computes it again.
pub fn with_state(given: &GameConfig) -> anyhow::Result<GameConfig> {
    let path = state_path(&given.path, None);
    with_state_bytes(given, state_bytes(&path)?)
}

/// `with_state` with the state file's bytes as read (`state_bytes`).
pub fn with_state_bytes(given: &GameConfig, bytes: Option<Bytes>) -> anyhow::Result<GameConfig> {
    let path = state_path(&given.path, None);
    let Some(bytes) = bytes else {
        return Ok(given.clone());
    };
    {
        let played = PLAYED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, _, out)) = played.iter().find(|(b, g, _)| *b == bytes && g == given) {
            return Ok(out.clone());
        }
    }
    let mut game = given.clone();
    let state = parsed(&path, bytes.clone())?;
    crate::domain::rules::state::apply_to_days(&mut game, &state);
    // What confirmed nights carry into the days (missed duties, 诅咒 / 庇佑, half votes).
    let facts = state.snapshot(&game).facts;
    crate::domain::night::apply_to_days(&mut game, &facts);
    let mut played = PLAYED.lock().unwrap_or_else(|p| p.into_inner());
    // One result a game: a game whose state keeps changing does not push the others out.
    played.retain(|(_, g, _)| g.path != given.path);
    if played.len() >= KEPT {
        played.remove(0);
    }
    played.push((bytes, given.clone(), game.clone()));
    Ok(game)
}

/// The last configs with their state applied: (the state file's bytes, the config as given, the
/// config as played), oldest first.
type Played = Vec<(Bytes, GameConfig, GameConfig)>;
static PLAYED: std::sync::Mutex<Played> = std::sync::Mutex::new(Vec::new());

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
    // Read afresh by the rest of this scope (`reading`).
    let _ = READ.try_with(|r| r.borrow_mut().remove(path));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inside `reading`, a state file is read once: an edit by another process is seen by the
    /// next scope (not half-way through this one), the daemon's own save at once, and outside
    /// any scope every read is the file's bytes now.
    #[tokio::test]
    async fn a_scope_reads_a_state_file_once_and_its_own_save_afresh() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.state.json");
        let mut first = GameState::default();
        first.push(
            crate::domain::rules::state::Change::Fact {
                key: "a".into(),
                value: 1.0,
            },
            "2026-12-05T10:00:00+08:00".into(),
        );
        let events = |p: &Path| load_state_shared(p).unwrap().events.len();
        reading(async {
            assert_eq!(events(&path), 0, "no file yet");
            save_state(&path, &first).unwrap();
            assert_eq!(events(&path), 1, "the daemon's own save is read afresh");
            let mut edited = first.clone();
            edited.push(
                crate::domain::rules::state::Change::Fact {
                    key: "b".into(),
                    value: 2.0,
                },
                "2026-12-05T10:01:00+08:00".into(),
            );
            // The judge's edit, by another process.
            std::fs::write(&path, serde_json::to_vec(&edited).unwrap()).unwrap();
            assert_eq!(events(&path), 1, "this scope keeps its reading");
            // A scope inside it is the same scope.
            reading(async { assert_eq!(events(&path), 1) }).await;
        })
        .await;
        assert_eq!(events(&path), 2, "outside a scope: the file as it is");
        reading(async { assert_eq!(events(&path), 2, "the next scope reads the edit") }).await;
    }
}
