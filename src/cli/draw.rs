//! `bansha draw ENTRIES.toml [--roster-out FILE]`: jiaohui's role lottery, with its working.
//!
//! ```toml
//! seed = 7919                  # the judge's 身份种子数字 (5000–15000)
//! # roles = ["黑暗领主", …]    # optional: the order roles are handed out (default jiaohui's 18)
//! [[entry]]
//! player = "大灰狼"
//! number = 56987
//! at = "2026-11-20 20:03:11"   # when the number reached the judge (ties: earlier first)
//! ```

use crate::domain::rules::draw::{draw, jiaohui_faction, Entry, JIAOHUI_ROLES};
use serde::Deserialize;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EntriesFile {
    seed: u32,
    roles: Option<Vec<String>>,
    entry: Vec<EntryFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryFile {
    player: String,
    number: u32,
    at: String,
}

pub fn run(
    path: &Path,
    roster_out: Option<&PathBuf>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            writeln!(err, "错误：无法读取 {}：{e}", path.display())?;
            return Ok(1);
        }
    };
    let file: EntriesFile = match toml::from_str(&text) {
        Ok(f) => f,
        Err(e) => {
            writeln!(err, "错误：{}：{}", path.display(), e.message())?;
            return Ok(2);
        }
    };
    let roles: Vec<String> = file
        .roles
        .unwrap_or_else(|| JIAOHUI_ROLES.iter().map(|s| s.to_string()).collect());
    let entries: Vec<Entry> = file
        .entry
        .into_iter()
        .map(|e| Entry {
            player: e.player,
            number: e.number,
            at: e.at,
        })
        .collect();
    let drawn = match draw(&entries, file.seed, &roles) {
        Ok(d) => d,
        Err(m) => {
            writeln!(err, "错误：{m}")?;
            return Ok(2);
        }
    };
    writeln!(out, "身份抽签（差额排序法），种子数字 {}", file.seed)?;
    writeln!(out, "顺序  玩家  抽签数字  余数  提交时间  身份")?;
    for (i, d) in drawn.iter().enumerate() {
        writeln!(
            out,
            "{:>2}  {}  {}  {} mod {} = {}  {}  {}",
            i + 1,
            d.player,
            d.number,
            d.number,
            file.seed,
            d.remainder,
            d.at,
            d.role
        )?;
    }
    let mut roster = String::from("[roster.roles]\n");
    for d in &drawn {
        roster.push_str(&format!(
            "\"{}\" = {{ role = \"{}\", faction = \"{}\" }}\n",
            d.player,
            d.role,
            jiaohui_faction(&d.role)
        ));
    }
    match roster_out {
        Some(p) => {
            std::fs::write(p, &roster)?;
            writeln!(out, "身份表已写入 {}（机密，只给法官）", p.display())?;
        }
        None => writeln!(
            err,
            "提示：用 --roster-out FILE 把身份表写成配置片段（机密）"
        )?,
    }
    Ok(0)
}

/// The arguments of `bansha draw` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct DrawCommand {
    /// 抽签数字文件（TOML：seed、[[entry]] player / number / at）
    pub entries: PathBuf,
    /// 把身份表（[roster.roles] 配置片段）写到这个文件
    #[arg(long)]
    pub roster_out: Option<PathBuf>,
}

impl DrawCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        run(&self.entries, self.roster_out.as_ref(), out, err)
    }
}
