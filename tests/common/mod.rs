//! Helpers shared by the integration tests: fixture paths and the captured response headers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The captured response beside a page: (HTTP status, Content-Type).
pub fn headers_of(page: &Path) -> (u16, Option<String>) {
    let mut name = page.as_os_str().to_owned();
    name.push(".headers.txt");
    let Ok(text) = std::fs::read_to_string(PathBuf::from(name)) else {
        return (200, None);
    };
    let mut status = 200;
    let mut content_type = None;
    for line in text.lines() {
        // The last status line wins (redirects are followed in some captures).
        if let Some(rest) = line.strip_prefix("HTTP ") {
            status = rest
                .split_whitespace()
                .next()
                .and_then(|s| s.parse().ok())
                .unwrap_or(status);
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.trim().eq_ignore_ascii_case("content-type") {
                content_type = Some(v.trim().to_string());
            }
        }
    }
    (status, content_type)
}

/// Every file under `dir` (recursively) whose name satisfies `keep`, sorted.
pub fn files_under(dir: &Path, keep: &dyn Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| !n.ends_with(".headers.txt") && keep(n))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Parse a fixture page (relative to `tests/fixtures`) with its captured Content-Type.
pub fn parse_fixture(rel: &str) -> Result<bansha_parsers::ThreadPage, bansha_parsers::PageError> {
    let path = fixtures().join(rel);
    let (_, ct) = headers_of(&path);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
    bansha_parsers::parse_thread_page(&bytes, ct.as_deref(), &Default::default())
}

/// Parse a fixture as an API answer, as the fetcher does when it asked for JSON.
pub fn parse_fixture_as_api(
    rel: &str,
) -> Result<bansha_parsers::ThreadPage, bansha_parsers::PageError> {
    let path = fixtures().join(rel);
    let (_, ct) = headers_of(&path);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
    bansha_parsers::parse_api_page(&bytes, ct.as_deref(), &Default::default())
}
