//! clap's frame in Chinese: the help's headings and flags, and its parse errors, which clap
//! writes in English. The help is rendered by clap and its fixed English words replaced; an
//! error is told in Chinese from its kind and context (the argument, the value, the valid ones,
//! clap's own suggestion).

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, ArgAction, Command};
use std::error::Error as _;

/// The command with Chinese headings and help/version flags, on every subcommand.
pub fn localize(cmd: Command) -> Command {
    let cmd = cmd
        .disable_help_flag(true)
        .disable_version_flag(true)
        .disable_help_subcommand(true)
        .help_template("{about-with-newline}\n用法：{usage}\n\n{all-args}{after-help}")
        .subcommand_help_heading("子命令")
        .subcommand_value_name("子命令")
        .mut_args(|a| {
            if a.is_positional() {
                a.help_heading("参数")
            } else {
                a.help_heading("选项")
            }
        })
        .arg(
            Arg::new("help")
                .short('h')
                .long("help")
                .action(ArgAction::Help)
                .help("显示帮助")
                .help_heading("选项"),
        );
    let cmd = if cmd.get_version().is_some() {
        cmd.arg(
            Arg::new("version")
                .short('V')
                .long("version")
                .action(ArgAction::Version)
                .help("显示版本")
                .help_heading("选项"),
        )
    } else {
        cmd
    };
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    names
        .into_iter()
        .fold(cmd, |c, n| c.mut_subcommand(n, localize))
}

/// clap's fixed English words in a rendered help or usage, in Chinese.
pub fn help_text(rendered: &str) -> String {
    rendered
        .replace("[OPTIONS]", "[选项]")
        .replace("<COMMAND>", "<子命令>")
        .replace("[default: ", "[默认：")
        .replace("[possible values: ", "[可选值：")
        .replace("[aliases: ", "[别名：")
        .replace("Usage: ", "用法：")
}

fn context(e: &clap::Error, kind: ContextKind) -> Option<String> {
    e.get(kind).map(|v| match v {
        ContextValue::String(s) => s.clone(),
        ContextValue::Strings(v) => v.join("、"),
        ContextValue::StyledStr(s) => s.to_string(),
        ContextValue::StyledStrs(v) => v
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join("、"),
        ContextValue::Number(n) => n.to_string(),
        ContextValue::Bool(b) => b.to_string(),
        _ => String::new(),
    })
}

/// A parse error in Chinese: what is wrong, with what clap suggests, and the usage line.
pub fn error_text(e: &clap::Error) -> String {
    let arg = context(e, ContextKind::InvalidArg).unwrap_or_default();
    let value = context(e, ContextKind::InvalidValue).unwrap_or_default();
    let mut s = match e.kind() {
        ErrorKind::UnknownArgument => format!("错误：不认识的参数 {arg}"),
        ErrorKind::InvalidSubcommand => {
            let sub = context(e, ContextKind::InvalidSubcommand).unwrap_or_default();
            format!("错误：没有子命令 {sub}")
        }
        ErrorKind::InvalidValue => {
            let valid = context(e, ContextKind::ValidValue)
                .map(|v| format!("（可选：{v}）"))
                .unwrap_or_default();
            if value.is_empty() {
                format!("错误：{arg} 需要一个值{valid}")
            } else {
                format!("错误：{arg} 的值“{value}”不可用{valid}")
            }
        }
        ErrorKind::ValueValidation => {
            let why = e
                .source()
                .map(|s| {
                    let s = s.to_string();
                    if s.contains("invalid digit") || s.contains("cannot parse integer") {
                        "：要写一个整数".to_string()
                    } else if s.contains("number too large") {
                        "：数字太大".to_string()
                    } else {
                        format!("：{s}")
                    }
                })
                .unwrap_or_default();
            format!("错误：{arg} 的值“{value}”不对{why}")
        }
        ErrorKind::MissingRequiredArgument => {
            format!("错误：缺少必需的参数 {arg}")
        }
        ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            "错误：需要一个子命令（见下面的用法，或加 --help 看全部）".to_string()
        }
        ErrorKind::ArgumentConflict => {
            let prior = context(e, ContextKind::PriorArg).unwrap_or_default();
            format!("错误：{arg} 不能和 {prior} 一起用")
        }
        ErrorKind::TooManyValues => format!("错误：{arg} 的值太多（“{value}”）"),
        ErrorKind::TooFewValues | ErrorKind::WrongNumberOfValues => {
            format!("错误：{arg} 的值个数不对")
        }
        ErrorKind::NoEquals => format!("错误：{arg} 要写成 {arg}=值"),
        ErrorKind::InvalidUtf8 => "错误：参数不是有效的 UTF-8 文字".to_string(),
        _ => format!("错误：命令行参数有误（{}）", e.kind()),
    };
    for (kind, what) in [
        (ContextKind::SuggestedArg, "是不是想用"),
        (ContextKind::SuggestedSubcommand, "是不是想用子命令"),
        (ContextKind::SuggestedValue, "是不是想写"),
    ] {
        if let Some(v) = context(e, kind).filter(|v| !v.is_empty()) {
            s += &format!("\n  提示：{what} {v}");
        }
    }
    if let Some(u) = context(e, ContextKind::Usage) {
        s += &format!("\n\n{}", help_text(u.trim()));
    }
    s += "\n\n加上 --help 查看完整说明。\n";
    s
}
