//! The sample ballots the documentation gives (`--try "…"` in README.md, config/README.md and
//! `bansha check-config --help`) are tried under the preset each names, through the binary: a
//! judge who copies one gets a valid ballot, not "格式错误，缺少理由" (issue 29 item 18: the
//! README's `--try "投票对象：李逵"` is void under m103, 002 L249 "明确说明投票对象和投票理由").

mod common;
use assert_cmd::Command;

const PRESETS: [&str; 5] = ["chuhan", "jiaohui", "m103", "qipan", "bansha42"];

/// Every `--try "TEXT"` in `doc`, with the preset named within the rest of its sentence (up to
/// the next "。", table cell or blank line): (text, preset or None, where).
fn examples(doc: &str, name: &str) -> Vec<(String, Option<&'static str>, String)> {
    let mut out = Vec::new();
    let mut rest = doc;
    let mut offset = 0;
    while let Some(i) = rest.find("--try \"") {
        let start = i + "--try \"".len();
        let Some(len) = rest[start..].find('"') else {
            break;
        };
        let text = rest[start..start + len].to_string();
        let after = &rest[start + len + 1..];
        let end = ["。", " | ", "\n\n", "；"]
            .iter()
            .filter_map(|s| after.find(s))
            .min()
            .unwrap_or(after.len());
        let sentence = &after[..end];
        let preset = PRESETS.iter().copied().find(|p| sentence.contains(p));
        let line = doc[..offset + i].lines().count();
        out.push((text, preset, format!("{name} line {line}")));
        offset += start + len + 1;
        rest = after;
    }
    out
}

#[test]
fn every_documented_sample_ballot_is_valid_under_the_preset_it_names() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    for doc in ["README.md", "config/README.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        all.extend(examples(&text, doc));
    }
    let help = Command::cargo_bin("bansha")
        .unwrap()
        .args(["check-config", "--help"])
        .assert()
        .success();
    let help = String::from_utf8_lossy(&help.get_output().stdout).to_string();
    all.extend(examples(&help, "check-config --help"));
    assert!(all.len() >= 4, "{all:?}");

    let dir = tempfile::tempdir().unwrap();
    let mut problems = Vec::new();
    for (text, preset, at) in &all {
        let Some(preset) = preset else {
            problems.push(format!(
                "{at}: --try \"{text}\" does not say which preset's ballot it is"
            ));
            continue;
        };
        let game = dir.path().join(format!("{preset}.toml"));
        std::fs::write(
            &game,
            format!(
                "ruleset = \"{preset}\"\nname = \"t\"\n{}\n[[days]]\nday = 1\ncloses_at = \"2026-11-29 21:00:00\"\n",
                common::ROSTER
            ),
        )
        .unwrap();
        let out = Command::cargo_bin("bansha")
            .unwrap()
            .args(["check-config", "--try", text])
            .arg(&game)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        if !said.contains("结果：有效的投票，投给 ") {
            problems.push(format!("{at}: --try \"{text}\" under {preset}:\n{said}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// Issue 32: the README's SSH tunnel reaches the dashboard where the shipped daemon config
/// listens: the tunnel's far end is the example's `[status] listen`, and the local page it
/// tells the judge to open is the tunnel's near end.
#[test]
fn the_readmes_ssh_tunnel_ends_where_the_dashboard_listens() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let example = std::fs::read_to_string(root.join("config/daemon.example.toml")).unwrap();
    let listen = example
        .lines()
        .find_map(|l| l.trim().strip_prefix("listen = \""))
        .and_then(|l| l.split('"').next())
        .expect("the example's [status] listen");
    let line = readme
        .lines()
        .find(|l| l.trim_start().starts_with("ssh -N -L "))
        .expect("the README's tunnel command");
    let spec = line.trim_start()["ssh -N -L ".len()..]
        .split_whitespace()
        .next()
        .unwrap();
    let (near, far) = spec.split_once(':').unwrap();
    assert_eq!(far, listen, "{line}");
    assert!(
        line.contains(&format!("http://127.0.0.1:{near}/")),
        "the page to open is the near end: {line}"
    );
}
