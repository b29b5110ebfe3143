//! `bansha init`: write a game config from a preset, asking the judge on the terminal (the
//! forum, the rule system, the roster file, the day's threads and deadline), and a daemon config
//! beside it when there is none. Answers are read line by line from stdin, so the questions can
//! also be answered from a file; a wrong answer is asked again with the reason. The result is
//! loaded back the way `bansha check-config` loads it before the command says it is done.

use crate::domain::config::PRESETS;
use crate::domain::time::parse_local_time;
use chrono::FixedOffset;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

struct Asker<'a> {
    input: &'a mut dyn BufRead,
    err: &'a mut dyn Write,
    /// Answers that come from a file or a pipe are echoed, so the transcript reads right.
    echo: bool,
}

impl Asker<'_> {
    /// Ask until `check` accepts the answer; an empty answer takes `default` when there is one.
    fn ask<T>(
        &mut self,
        question: &str,
        default: Option<&str>,
        check: impl Fn(&str) -> Result<T, String>,
    ) -> anyhow::Result<T> {
        loop {
            match default {
                Some(d) if !d.is_empty() => write!(self.err, "{question}（默认 {d}）：")?,
                _ => write!(self.err, "{question}：")?,
            }
            self.err.flush()?;
            let mut line = String::new();
            if self.input.read_line(&mut line)? == 0 {
                anyhow::bail!("输入已结束，还没有回答：{question}");
            }
            let answer = line.trim();
            if self.echo {
                writeln!(self.err, "{answer}")?;
            }
            let answer = if answer.is_empty() {
                default.unwrap_or("")
            } else {
                answer
            };
            match check(answer) {
                Ok(v) => return Ok(v),
                Err(why) => writeln!(self.err, "  ✗ {why}，请重新输入")?,
            }
        }
    }
}

/// A thread id from "3", "…forum.php?mod=viewthread&tid=3…" or "…/thread-3-1-1.html".
pub fn thread_id(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Ok(n) = s.parse::<u64>() {
        return (n > 0).then_some(n);
    }
    let re = regex::Regex::new(r"(?:[?&]tid=|thread-)(\d+)").expect("valid");
    re.captures(s)
        .and_then(|c| c[1].parse().ok())
        .filter(|n| *n > 0)
}

/// Player names from a roster file: one per line, or separated by commas or 、; `#` starts a
/// comment.
pub fn roster(text: &str) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("");
        for name in line.split([',', '，', '、', '\t']) {
            let name = name.trim().trim_start_matches('\u{feff}');
            if name.is_empty() {
                continue;
            }
            if out.iter().any(|n| n == name) {
                return Err(format!("名单里 {name} 出现了两次"));
            }
            out.push(name.to_string());
        }
    }
    if out.len() < 3 {
        return Err(format!("名单里只有 {} 名玩家", out.len()));
    }
    Ok(out)
}

/// The roster answer: the path of a roster file when there is such a file, else the names
/// pasted inline (separated by 、，, or spaces). With where they came from, said to the judge.
fn roster_answer(s: &str) -> Result<(Vec<String>, String), String> {
    let p = Path::new(s);
    if p.is_file() {
        let text =
            std::fs::read_to_string(p).map_err(|e| format!("无法读取 {}：{e}", p.display()))?;
        let names = roster(&text).map_err(|e| format!("{}：{e}", p.display()))?;
        return Ok((names, format!("取自文件 {}", p.display())));
    }
    let inline: Vec<&str> = s
        .split([',', '，', '、', ' ', '\t', '\u{3000}'])
        .filter(|n| !n.trim().is_empty())
        .collect();
    if inline.len() < 2 {
        return Err(format!(
            "无法读取 {}：没有这个文件；若是直接粘贴的名单，请用 、，或空格分隔名字",
            p.display()
        ));
    }
    let names = roster(&inline.join("\n")).map_err(|e| format!("粘贴的名单：{e}"))?;
    Ok((names, "取自粘贴的名单".to_string()))
}

fn quoted(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

fn list(items: &[String]) -> String {
    let q: Vec<String> = items.iter().map(|s| quoted(s)).collect();
    format!("[{}]", q.join(", "))
}

fn names(s: &str) -> Vec<String> {
    s.split([',', '，', '、', ' ', '\t'])
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect()
}

/// `bansha init --out GAME.toml`. Returns the exit code.
pub fn run(
    out_path: &Path,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    if out_path.exists() {
        writeln!(err, "错误：{} 已存在，不会覆盖", out_path.display())?;
        return Ok(1);
    }
    let base = out_path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let daemon_path = base.join("daemon.toml");
    use std::io::IsTerminal;
    let echo = !std::io::stdin().is_terminal();
    let mut a = Asker { input, err, echo };
    let result = ask_all(&mut a, &daemon_path);
    let err = a.err;
    let answers = match result {
        Ok(x) => x,
        Err(e) => {
            writeln!(err, "\n错误：{e:#}")?;
            return Ok(1);
        }
    };
    if !base.as_os_str().is_empty() {
        std::fs::create_dir_all(&base)?;
    }
    std::fs::write(out_path, game_toml(&answers))?;
    // Loaded back the way the daemon will load it.
    let game = match crate::io::files::load_game(out_path) {
        Ok(g) => g,
        Err(e) => {
            writeln!(err, "配置错误：{e}")?;
            return Ok(1);
        }
    };
    writeln!(out, "已写入本局配置：{}", out_path.display())?;
    // What the preset will do, so the judge sees it before the first ballot.
    for line in rules_summary(&game) {
        writeln!(out, "  {line}")?;
    }
    if !daemon_path.exists() {
        let rel = out_path
            .file_name()
            .map(PathBuf::from)
            .unwrap_or_else(|| out_path.to_path_buf());
        std::fs::write(&daemon_path, daemon_toml(&answers, &rel))?;
        writeln!(
            out,
            "已写入守护进程配置：{}（请填写 SMTP 和登录信息，然后运行 bansha check-config {}）",
            daemon_path.display(),
            daemon_path.display()
        )?;
    }
    writeln!(
        out,
        "下一步：bansha check-config {}；规则细节（格式、锁定、潜水）在预设 {} 里，需要改的键见 config/README.md",
        out_path.display(),
        answers.ruleset
    )?;
    Ok(0)
}

struct Answers {
    ruleset: String,
    name: String,
    forum: String,
    judge_mail: String,
    players: Vec<String>,
    judges: Vec<String>,
    day: u32,
    vote_thread: u64,
    discussion: Vec<u64>,
    closes_at: String,
    opens_at: Option<String>,
    chat: Vec<u64>,
    dead: Vec<String>,
    /// The sheriff, and the weight of their vote.
    sheriff: Option<(String, f64)>,
    /// The judge's own ballot wording (vote, change), replacing the preset's formats.
    format: Option<(String, Option<String>)>,
}

/// Thread ids written as tids or URLs, separated by commas or spaces.
fn thread_ids(s: &str) -> Result<Vec<u64>, String> {
    s.split([',', '，', '、', ' '])
        .filter(|x| !x.trim().is_empty())
        .map(|x| thread_id(x).ok_or_else(|| format!("{x:?} 里找不到 tid")))
        .collect()
}

/// A ballot template as the judge types it on one line: " / " (or "/") starts a new line.
fn template(s: &str) -> String {
    s.split('/').map(str::trim).collect::<Vec<_>>().join("\n")
}

/// Whether a template compiles as the tally will compile it.
fn template_ok(vote: &str, change: Option<&str>) -> Result<(), String> {
    bansha_parsers::ballot::Grammar::new(
        &[bansha_parsers::ballot::FormatSpec {
            name: "本局".into(),
            vote: vote.into(),
            change: change.map(String::from),
        }],
        false,
    )
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// The judge's own ballot wording (vote, change), if they give one.
type Wording = Option<(String, Option<String>)>;

/// The rule system, shown as it will read ballots, and the judge's own wording if any.
fn ask_rules(a: &mut Asker<'_>) -> anyhow::Result<(String, crate::domain::config::Rules, Wording)> {
    writeln!(a.err, "可用的规则：")?;
    for (i, (code, text)) in PRESETS.iter().enumerate() {
        writeln!(
            a.err,
            "  {}. {code}  {}",
            i + 1,
            crate::domain::config::preset_description(text)
        )?;
    }
    let ruleset = a.ask(
        "规则（编号、代码或中文名，如 2、jiaohui、教会）",
        None,
        |s| {
            crate::domain::config::preset_named(s)
                .map(String::from)
                .ok_or_else(|| format!("没有叫 {s:?} 的规则：请输入上面列出的编号、代码或中文名"))
        },
    )?;
    let preset = crate::domain::config::preset_rules(&ruleset)
        .ok_or_else(|| anyhow::anyhow!("预设 {ruleset} 读不出来"))?;
    writeln!(a.err, "  规则 {ruleset} 会这样读票：")?;
    for line in rules_lines(&preset) {
        writeln!(a.err, "    {line}")?;
    }
    let format = a.ask(
        "投票格式：回车沿用上面的；或写本局的格式（{target} 是投票对象，{reason} 是理由，换行写成 /）",
        Some(""),
        |s| {
            if s.is_empty() {
                return Ok(None);
            }
            let vote = template(s);
            template_ok(&vote, None).map(|()| Some(vote))
        },
    )?;
    let format = match format {
        None => None,
        Some(vote) => {
            let change = a.ask(
                "改票格式（如 改票对象：{target}；留空：改票也用投票格式）",
                Some(""),
                |s| {
                    if s.is_empty() {
                        return Ok(None);
                    }
                    let change = template(s);
                    template_ok(&vote, Some(&change)).map(|()| Some(change))
                },
            )?;
            Some((vote, change))
        }
    };
    Ok((ruleset, preset, format))
}

/// Who is out before the day, and the sheriff where the rules weigh the sheriff's vote.
type OutAndSheriff = (Vec<String>, Option<(String, f64)>);

fn ask_out_and_sheriff(
    a: &mut Asker<'_>,
    day: u32,
    players: &[String],
    preset: &crate::domain::config::Rules,
) -> anyhow::Result<OutAndSheriff> {
    let dead = if day > 1 {
        a.ask(
            "已经出局的玩家（逗号分隔，可留空）",
            Some(""),
            |s| {
                let n = names(s);
                match n.iter().find(|d| !players.contains(d)) {
                    Some(x) => Err(format!("{x} 不在玩家名单里")),
                    None => Ok(n),
                }
            },
        )?
    } else {
        Vec::new()
    };
    // m103's sheriff: the 1.5 vote decides ties (seed 003 L153), so the day's tally needs it.
    let sheriff = if preset.vote.sheriff_weight != 1.0 {
        a.ask(
            &format!(
                "第{day}天的警长（一票计 {} 票，平票时决定结果；还没选出就留空）",
                preset.vote.sheriff_weight
            ),
            Some(""),
            |s| {
                if s.is_empty() {
                    Ok(None)
                } else if !players.iter().any(|p| p == s) {
                    Err(format!("{s} 不在玩家名单里"))
                } else if dead.iter().any(|p| p == s) {
                    Err(format!("{s} 已经出局"))
                } else {
                    Ok(Some((s.to_string(), preset.vote.sheriff_weight)))
                }
            },
        )?
    } else {
        None
    };
    Ok((dead, sheriff))
}

fn ask_all(a: &mut Asker<'_>, daemon_path: &Path) -> anyhow::Result<Answers> {
    let offset = FixedOffset::east_opt(8 * 3600).expect("valid");
    let (ruleset, preset, format) = ask_rules(a)?;
    let name = a.ask("游戏名称（邮件标题里显示）", None, |s| {
        if s.is_empty() {
            Err("名称不能为空".into())
        } else {
            Ok(s.to_string())
        }
    })?;
    let (forum, judge_mail) = if daemon_path.exists() {
        (String::new(), String::new())
    } else {
        let forum = a.ask(
            "论坛地址（forum.php 所在的网址，例如 https://bbs.example.com/）",
            None,
            |s| {
                if s.starts_with("http://") || s.starts_with("https://") {
                    let root = s.split("forum.php").next().unwrap_or(s);
                    Ok(format!("{}/", root.trim_end_matches('/')))
                } else {
                    Err("应以 http:// 或 https:// 开头".into())
                }
            },
        )?;
        let mail = a.ask("法官的邮箱（统计结果发到这里）", None, |s| {
            if s.contains('@') && !s.contains(' ') {
                Ok(s.to_string())
            } else {
                Err("不是有效的邮箱地址".into())
            }
        })?;
        (forum, mail)
    };
    let (players, from) = a.ask(
        "玩家名单：名单文件的路径（每行一个论坛用户名，或用逗号、顿号分隔），或直接粘贴名单（用 、，或空格分隔）",
        None,
        roster_answer,
    )?;
    writeln!(
        a.err,
        "  ✓ {} 名玩家（{from}）：{}",
        players.len(),
        players.join("、")
    )?;
    let judges = a.ask(
        "法官的论坛用户名（多个用逗号分隔）",
        None,
        |s| {
            let n = names(s);
            if n.is_empty() {
                Err("至少一个".into())
            } else if let Some(p) = n.iter().find(|j| players.contains(j)) {
                Err(format!("{p} 在玩家名单里"))
            } else {
                Ok(n)
            }
        },
    )?;
    let day = a.ask("第几天", Some("1"), |s| {
        s.parse::<u32>()
            .ok()
            .filter(|d| *d >= 1)
            .ok_or_else(|| "应是 1 以上的数字".to_string())
    })?;
    let vote_thread = a.ask(
        &format!("第{day}天投票帖（tid 或帖子网址）"),
        None,
        |s| thread_id(s).ok_or_else(|| format!("{s:?} 里找不到 tid")),
    )?;
    let discussion = a.ask(
        &format!("第{day}天讨论帖（tid 或网址，多个用逗号分隔，可留空）"),
        Some(""),
        thread_ids,
    )?;
    let chat = a.ask(
        &format!("第{day}天灌水帖（发言不计入潜水；tid 或网址，可留空）"),
        Some(""),
        thread_ids,
    )?;
    let closes_at = a.ask(
        &format!("第{day}天投票截止时间（论坛时间，例如 2026-12-01 21:00）"),
        None,
        |s| {
            parse_local_time(s, offset)
                .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
                .map_err(|e| e.to_string())
        },
    )?;
    let close = parse_local_time(&closes_at, offset).expect("checked above");
    let opens_at = a.ask(
        &format!(
            "第{day}天从何时开始（论坛时间；潜水从这时算起，守护进程从这时开始监视；留空：{}）",
            if day > 1 {
                "前一天的截止时间"
            } else {
                "截止前一周开始监视"
            }
        ),
        Some(""),
        |s| {
            if s.is_empty() {
                return Ok(None);
            }
            let t = parse_local_time(s, offset).map_err(|e| e.to_string())?;
            if t >= close {
                return Err(format!("应早于截止时间 {closes_at}"));
            }
            Ok(Some(t.format("%Y-%m-%d %H:%M:%S").to_string()))
        },
    )?;
    let (dead, sheriff) = ask_out_and_sheriff(a, day, &players, &preset)?;
    Ok(Answers {
        ruleset,
        name,
        forum,
        judge_mail,
        players,
        judges,
        day,
        vote_thread,
        discussion,
        closes_at,
        opens_at,
        chat,
        dead,
        sheriff,
        format,
    })
}

/// The game's rules a judge checks first, and how to change them.
fn rules_summary(g: &crate::domain::config::GameConfig) -> Vec<String> {
    let mut out = rules_lines(&g.rules);
    out.push("要改格式、锁定或改票次数：在本局配置的 [rules] 下写，例如 [rules.vote] lock_minutes = 30（见 config/README.md）；用 bansha check-config --try \"投票文字\" 试一条票".into());
    out
}

/// The rules a judge checks first: the ballot formats, the lock, the changes allowed.
fn rules_lines(r: &crate::domain::config::Rules) -> Vec<String> {
    let v = &r.vote;
    let mut out: Vec<String> = r
        .ballot
        .formats
        .iter()
        .map(|f| format!("投票格式（{}）：{}", f.name, f.vote.replace('\n', " / ")))
        .collect();
    if r.ballot.free_wording {
        out.push("投票格式：不限（读玩家自己的写法）".into());
    }
    out.push(if v.lock_minutes > 0 {
        format!("截止前 {} 分钟锁定，不得改票", v.lock_minutes)
    } else {
        "截止前不锁定".into()
    });
    out.push(format!("每人最多改票 {} 次", v.changes_allowed));
    out
}

fn game_toml(a: &Answers) -> String {
    let mut s = format!(
        "# 由 bansha init 写成。规则来自预设 {ruleset:?}（config/rulesets/）；\n\
         # 要改哪一条，写在下面的 [rules] 里（键的说明见 config/README.md）。检查：\n\
         #   bansha check-config 本文件\n\
         #   bansha check-config --try \"投票对象：某人\" 本文件   # 试一条票\n\
         ruleset = {}\nname = {}\n\
         # 记录按 id 区分游戏：以后改名字时 id 不要改。\n\
         id = {}\nutc_offset = \"+08:00\"   # 论坛的时区（Discuz 后台“默认时差”）\n\n\
         [roster]\nplayers = {}\njudges = {}\n\n\
         # [rules.vote]\n# lock_minutes = 60        # 截止前多少分钟锁定\n# changes_allowed = 1     # 每人最多改票几次\n\n\
         [[days]]\nday = {}\nvote_thread = {}\n",
        quoted(&a.ruleset),
        quoted(&a.name),
        quoted(&a.name),
        list(&a.players),
        list(&a.judges),
        a.day,
        a.vote_thread,
        ruleset = a.ruleset,
    );
    if !a.discussion.is_empty() {
        let d: Vec<String> = a.discussion.iter().map(u64::to_string).collect();
        s += &format!("discussion_threads = [{}]\n", d.join(", "));
    }
    if !a.chat.is_empty() {
        let d: Vec<String> = a.chat.iter().map(u64::to_string).collect();
        s += &format!("chat_threads = [{}]   # 灌水帖：不计入潜水\n", d.join(", "));
    }
    match &a.opens_at {
        Some(t) => s += &format!("opens_at = {}   # 这一天从何时开始算\n", quoted(t)),
        None => {
            s += "# opens_at = \"2026-12-01 09:00:00\"   # 这一天从何时开始算（默认：前一天的截止时间）\n"
        }
    }
    s += &format!("closes_at = {}\n", quoted(&a.closes_at));
    if !a.dead.is_empty() {
        s += &format!("dead = {}\n", list(&a.dead));
    }
    match &a.sheriff {
        Some((p, w)) => s += &format!("sheriff = {}   # 警长：一票计 {w} 票\n", quoted(p)),
        None => {
            s += "# sheriff = \"玩家名\"   # 警长（m103：一票计 1.5 票；第 1 天选出后自动沿用）\n"
        }
    }
    if a.chat.is_empty() {
        s += "# chat_threads = []   # 灌水帖：不计入潜水\n";
    }
    s += "\n# 每一天再加一段 [[days]]，写上当天的投票帖和截止时间。\n";
    if let Some((vote, change)) = &a.format {
        s += &format!(
            "\n# 本局的投票格式（代替预设的格式）。\n[[rules.ballot.formats]]\nname = \"本局格式\"\nvote = {}\n",
            quoted(vote)
        );
        if let Some(c) = change {
            s += &format!("change = {}\n", quoted(c));
        }
    }
    s
}

fn daemon_toml(a: &Answers, game: &Path) -> String {
    format!(
        "# 由 bansha init 写成。填好邮件服务器（论坛版块需要登录时再填登录），然后：\n\
         #   bansha check-config daemon.toml && bansha run --config daemon.toml\n\
         # 每个键的说明见 config/daemon.example.toml。\n\
         # 记录目录（帖子、已发邮件）。相对路径：systemd 运行时在服务自己的目录下\n\
         # （StateDirectory=，/var/lib/bansha/state），否则在本文件旁边。\n\
         state_dir = \"state\"\n\n\
         [forum]\nbase_url = {}\nsource = \"api\"   # 论坛关闭了手机接口时改成 \"desktop\"\n\n\
         # [forum.login]\n# username = \"法官的用户名\"\n# password_file = \"forum-password\"   # chmod 600\n\n\
         [smtp]\n# host = \"smtp.example.com\"\n# port = 587\n# username = \"bansha@example.com\"\n\
         # password_file = \"smtp-password\"   # chmod 600\n\
         folder = \"mails\"   # 邮件服务器设好之前，邮件写成 .eml 文件放在这里\n\
         from = \"bansha@localhost\"\n\n\
         [judge]\nto = [{}]\n\n\
         [[games]]\nconfig = {}\n",
        quoted(&a.forum),
        quoted(&a.judge_mail),
        quoted(&game.display().to_string())
    )
}

/// The arguments of `bansha init` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct InitCommand {
    /// 要写的本局配置文件；同一目录下没有 daemon.toml 时也写一个
    #[arg(long, default_value = "game.toml")]
    pub out: PathBuf,
}

impl InitCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        run(&self.out, &mut std::io::stdin().lock(), out, err)
    }
}
