//! The dependency rule of ARCHITECTURE.md, checked on the source: imports go one way,
//! `cli → daemon → {present, io} → domain → bansha-parsers`; `present` and `io` never import
//! each other; only `io` touches sockets, sled, SMTP, files, the terminal and the wall clock.
//!
//! Every `crate::…` path in `src/` and `domain/src/` (the domain is a crate of its own, where `crate::`
//! names the domain itself; grouped `use crate::{a, b}` and `super::` paths that climb
//! out of a layer included) is resolved to the layer it names and checked against the layer of
//! the file it is in. The checker is tested on made-up files first, so a rule it could not see
//! would fail here rather than pass quietly.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const LAYERS: [&str; 5] = ["cli", "daemon", "present", "io", "domain"];

/// What each layer may import (itself included).
fn allowed(from: &str) -> &'static [&'static str] {
    match from {
        "cli" => &["cli", "daemon", "present", "io", "domain"],
        "daemon" => &["daemon", "present", "io", "domain"],
        "present" => &["present", "domain"],
        "io" => &["io", "domain"],
        "domain" => &["domain"],
        // lib.rs declares the layers; main.rs only calls the command line.
        "root" => &["cli"],
        other => panic!("unknown layer {other}"),
    }
}

/// APIs that reach outside the process (or read the clock), by layer that must not use them.
/// `io` owns them all; `cli` reads the files and terminals it is given.
fn forbidden(layer: &str) -> &'static [&'static str] {
    const OUTSIDE: &[&str] = &[
        "std::fs",
        "tokio::fs",
        "File::open",
        "File::create",
        "std::net::TcpStream",
        "std::net::TcpListener",
        "std::net::UdpSocket",
        "tokio::net",
        "reqwest::",
        "sled::",
        "lettre::",
        "Utc::now",
        "Local::now",
        "SystemTime::now",
        "std::env::var",
        "sd_notify::",
        "eprintln!",
        "println!",
        "std::io::stdin",
        "std::io::stdout",
        "std::io::stderr",
    ];
    match layer {
        "domain" | "present" | "daemon" => OUTSIDE,
        _ => &[],
    }
}

#[derive(Debug, PartialEq)]
struct Violation {
    file: String,
    line: usize,
    what: String,
}

/// The module path of a source file below `src/`: `src/io/store.rs` → [io, store],
/// `src/domain/rules/mod.rs` → [domain, rules].
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|l| l == "mod") {
        parts.pop();
    }
    if parts == ["lib"] || parts == ["main"] {
        parts.clear();
    }
    parts
}

fn layer_of(module: &[String]) -> &str {
    module.first().map_or("root", |s| s.as_str())
}

/// Code without comments (line comments and doc comments; string contents are kept, which is
/// harmless: no import is written inside a string).
fn code_lines(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            let code = match l.find("//") {
                // Keep `http://…` inside a string literal from cutting the line short.
                Some(at) if !l[..at].ends_with(':') => &l[..at],
                _ => l,
            };
            (i + 1, code.to_string())
        })
        .collect()
}

/// The first segment of every `crate::` path in a line, with grouped imports expanded.
fn crate_roots(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        let before = &rest[..at];
        // `bansha_parsers::…` or an identifier ending in `crate` is not this crate.
        let boundary = before
            .chars()
            .last()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        let after = &rest[at + "crate::".len()..];
        if boundary {
            if let Some(group) = after.strip_prefix('{') {
                let inner = group.split('}').next().unwrap_or("");
                // Top-level names of the group: `a::b, c` → a, c (nested braces skipped).
                let mut depth = 0;
                let mut item = String::new();
                for ch in inner.chars().chain(std::iter::once(',')) {
                    match ch {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            let name: String = item
                                .trim()
                                .chars()
                                .take_while(|c| c.is_alphanumeric() || *c == '_')
                                .collect();
                            if !name.is_empty() {
                                out.push(name);
                            }
                            item.clear();
                        }
                        c if depth == 0 => item.push(c),
                        _ => {}
                    }
                }
            } else {
                let name: String = after
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.push(name);
                }
            }
        }
        rest = after;
    }
    out
}

/// The layer a `super::super::x` path reaches from `module`, when it leaves the file's layer.
fn super_roots(line: &str, module: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("super::") {
        let mut tail = &rest[at..];
        let mut ups = 0;
        while let Some(t) = tail.strip_prefix("super::") {
            ups += 1;
            tail = t;
        }
        // `super` from a module climbs to its parent; from the layer's top module (depth 1) to
        // the crate root, where the next segment names a layer.
        if ups >= module.len() {
            let name: String = tail
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
        rest = &rest[at + "super::".len() * ups..];
    }
    out
}

/// Check one file. `rel` is its module's path as if it were below `src/` (`domain/rules/x.rs`
/// for `domain/src/rules/x.rs`); `own_crate` is the layer that is a crate of its own (the
/// domain, issue 32), where `crate::x` names the layer itself.
fn check_file(
    rel: &Path,
    own_crate: Option<&str>,
    text: &str,
    imports_seen: &mut usize,
) -> Vec<Violation> {
    let module = module_path(rel);
    let layer = layer_of(&module).to_string();
    let mut out = Vec::new();
    let file = match own_crate {
        Some(l) => format!("{l}/src/{}", rel.strip_prefix(l).unwrap_or(rel).display()),
        None => format!("src/{}", rel.display()),
    };
    let mut in_tests = false;
    for (n, line) in code_lines(text) {
        // Unit tests of a pure module may build their inputs any way they like.
        if line.trim_start().starts_with("#[cfg(test)]") {
            in_tests = true;
        }
        if in_tests {
            continue;
        }
        let mut roots = crate_roots(&line);
        roots.extend(super_roots(&line, &module));
        for root in roots {
            *imports_seen += 1;
            let target = if let Some(l) = own_crate {
                // A crate of its own can name nothing of the others (the compiler sees to it).
                l.to_string()
            } else if LAYERS.contains(&root.as_str()) {
                root.clone()
            } else {
                // `crate::x` naming something that is not a layer: only lib.rs declares those.
                out.push(Violation {
                    file: file.clone(),
                    line: n,
                    what: format!("crate::{root} is not one of the layers {LAYERS:?}"),
                });
                continue;
            };
            if !allowed(&layer).contains(&target.as_str()) {
                out.push(Violation {
                    file: file.clone(),
                    line: n,
                    what: format!("{layer} imports {target}"),
                });
            }
        }
        for api in forbidden(&layer) {
            if line.contains(api) {
                out.push(Violation {
                    file: file.clone(),
                    line: n,
                    what: format!("{layer} uses {api} (only io may)"),
                });
            }
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_checker_sees_each_kind_of_import_against_the_rule() {
    let list: &[(&str, &str, usize)] = &[
        ("domain/x.rs", "use crate::io::store::Store;", 1),
        (
            "domain/rules/x.rs",
            "let a = crate::present::html::esc(s);",
            1,
        ),
        ("present/x.rs", "use crate::{domain::config, io::forum};", 1),
        ("io/x.rs", "use crate::present::chart;", 1),
        ("io/y.rs", "use crate::daemon::Daemon;", 1),
        ("daemon/x.rs", "use crate::cli::tally::run;", 1),
        ("domain/y.rs", "use super::super::io::store;", 1),
        ("domain/u.rs", "use super::rules::tally;", 0),
        ("present/y.rs", "let t = chrono::Utc::now();", 1),
        ("domain/config.rs", "let s = std::fs::read_to_string(p);", 1),
        ("daemon/y.rs", "let db = sled::open(p);", 1),
        ("domain/z.rs", "use crate::rules::tally;", 1),
        (
            "cli/x.rs",
            "use crate::{daemon::Daemon, io::store, present::html};",
            0,
        ),
        (
            "daemon/z.rs",
            "use crate::{domain::config, io::store, present::html};",
            0,
        ),
        (
            "io/store.rs",
            "use super::forum; use crate::domain::rules::ledger;",
            0,
        ),
        (
            "domain/rules/tally.rs",
            "use super::super::config::GameConfig;",
            0,
        ),
        (
            "domain/w.rs",
            "// see crate::io::store for where this is kept",
            0,
        ),
        (
            "domain/v.rs",
            "use bansha_parsers::Post; let u = \"http://x\";",
            0,
        ),
        (
            "io/z.rs",
            "let t = chrono::Utc::now(); let f = std::fs::read(p);",
            0,
        ),
    ];
    // The domain is a crate of its own: `crate::rules` is its own module there, and it still
    // may not reach outside.
    let own: &[(&str, &str, usize)] = &[
        ("domain/z.rs", "use crate::rules::tally;", 0),
        (
            "domain/rules/x.rs",
            "use super::super::config::GameConfig;",
            0,
        ),
        ("domain/config.rs", "let s = std::fs::read_to_string(p);", 1),
        ("domain/y.rs", "let t = chrono::Utc::now();", 1),
    ];
    for (file, text, want) in own {
        let mut seen = 0;
        let got = check_file(Path::new(file), Some("domain"), text, &mut seen);
        assert_eq!(got.len(), *want, "{file}: `{text}`: {got:?}");
    }
    for (file, text, want) in list {
        let mut seen = 0;
        let got = check_file(Path::new(file), None, text, &mut seen);
        assert_eq!(
            got.len(),
            *want,
            "{file}: `{text}` should give {want} violation(s), got {got:?}"
        );
    }
}

#[test]
fn imports_go_one_way_and_only_io_reaches_outside() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    // (file, its module's path as below src/, the crate-of-its-own layer)
    let mut all: Vec<(PathBuf, PathBuf, Option<&str>)> = files
        .iter()
        .map(|p| (p.clone(), p.strip_prefix(&src).unwrap().to_path_buf(), None))
        .collect();
    let domain = root.join("domain/src");
    let mut files = Vec::new();
    rust_files(&domain, &mut files);
    files.sort();
    for p in files {
        let rel = p.strip_prefix(&domain).unwrap();
        let rel = if rel == Path::new("lib.rs") {
            Path::new("domain/mod.rs").to_path_buf()
        } else {
            Path::new("domain").join(rel)
        };
        all.push((p.clone(), rel, Some("domain")));
    }
    let mut seen = 0;
    let mut violations = Vec::new();
    let mut per_layer: BTreeMap<String, usize> = BTreeMap::new();
    for (path, rel, own) in &all {
        let text = std::fs::read_to_string(path).unwrap();
        *per_layer
            .entry(layer_of(&module_path(rel)).to_string())
            .or_default() += 1;
        violations.extend(check_file(rel, *own, &text, &mut seen));
    }
    // The checker read the real tree: every layer has files and there are many imports.
    for layer in LAYERS {
        assert!(
            per_layer.get(layer).copied().unwrap_or(0) > 0,
            "no files in the {layer} layer"
        );
    }
    assert!(
        seen > 100,
        "only {seen} crate:: paths found: the scan is broken"
    );
    let report: Vec<String> = violations
        .iter()
        .map(|v| format!("{}:{}: {}", v.file, v.line, v.what))
        .collect();
    assert!(
        report.is_empty(),
        "{} import(s) against the layering rule:\n{}",
        report.len(),
        report.join("\n")
    );
}
