//! What loading a config reads from outside the text it is given: other files (a ruleset file,
//! the games a daemon config names, secret files) and environment variables. `io::files::Disk`
//! reads the real ones; the loaders stay pure.

use std::path::Path;

pub trait Sources {
    /// A file's text.
    fn read(&self, path: &Path) -> std::io::Result<String>;
    /// A file's permission bits, where the platform has them (`None` elsewhere).
    fn mode(&self, path: &Path) -> std::io::Result<Option<u32>>;
    /// An environment variable.
    fn env(&self, name: &str) -> Option<String>;
}

/// Nothing outside: every file is missing, every variable unset.
pub struct NoFiles;

impl Sources for NoFiles {
    fn read(&self, path: &Path) -> std::io::Result<String> {
        Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("{} is not available here", path.display()),
        ))
    }
    fn mode(&self, path: &Path) -> std::io::Result<Option<u32>> {
        self.read(path).map(|_| None)
    }
    fn env(&self, _: &str) -> Option<String> {
        None
    }
}
