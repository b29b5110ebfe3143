//! The command line: one module per subcommand, each with its `run`; this module holds the
//! clap frame and maps results to exit codes.

pub mod check_post;
pub mod demo;
pub mod draw;
pub mod init;
pub mod lurk;
pub mod poll_pm;
pub mod posts;
pub mod run;
pub mod state;
pub mod tally;
pub mod wordcount;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// bansha：版杀法官的计票助手（Discuz! 论坛）
#[derive(Parser)]
#[command(name = "bansha", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// 读取保存的帖子页面（网页 HTML 或手机接口 JSON），每帖输出一行 JSON
    Posts {
        /// 保存的页面文件
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// 强制使用的字符编码（如 GBK）；默认按页面声明
        #[arg(long)]
        charset: Option<String>,
        /// 论坛时区偏移（Discuz 后台“默认时差”）
        #[arg(long, default_value = "+08:00")]
        utc_offset: String,
    },
    /// 读取保存的投票机页面（投票帖网页或手机接口 JSON，以及“查看投票参与人”页面），输出选项、票数和投票人（JSON）
    Poll {
        /// 保存的页面文件
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// 论坛时区偏移
        #[arg(long, default_value = "+08:00")]
        utc_offset: String,
    },
    /// 读取保存的短信页面（网页或手机接口 JSON），每条短信输出一行 JSON
    Pm {
        /// 保存的页面文件
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// 论坛时区偏移
        #[arg(long, default_value = "+08:00")]
        utc_offset: String,
    },
    /// 统计投票：读取保存的投票帖页面，按本局规则输出可直接发帖的统计（BBCode）或 JSON
    Tally {
        /// 本局配置文件（TOML）
        #[arg(long)]
        config: PathBuf,
        /// 第几天
        #[arg(long)]
        day: u32,
        /// 第几轮（1，或高票辩论的 2）
        #[arg(long, default_value_t = 1)]
        round: u32,
        /// 统计时刻（论坛时间，如 "2026-11-29 21:00"）；默认取页面上最新的时间
        #[arg(long)]
        at: Option<String>,
        /// 向正在运行的守护进程要实时统计（此时 --config 是守护进程配置，不需要页面文件）
        #[arg(long)]
        live: bool,
        /// 与 --live 一起用：游戏名（配置中的 name），默认第一个
        #[arg(long)]
        game: Option<String>,
        /// 输出 JSON（逐票明细）而不是 BBCode
        #[arg(long)]
        json: bool,
        /// 强制使用的字符编码（如 GBK）；默认按页面声明
        #[arg(long)]
        charset: Option<String>,
        /// 投票帖的页面文件（所有页）
        #[arg(required_unless_present = "live")]
        pages: Vec<PathBuf>,
    },
    /// 演示：在本机回放一局录下的游戏，守护进程按压缩的时间轮询、统计、写邮件，最后打印最终计票
    Demo {
        /// 演示文件（配置、记录、邮件）放在这里；重新运行会清空它
        #[arg(long, default_value = "bansha-demo")]
        dir: PathBuf,
    },
    /// 运行守护进程：轮询论坛、记录帖子、按时统计、发邮件给法官
    Run {
        /// 守护进程配置文件（TOML）
        #[arg(long)]
        config: PathBuf,
        /// 只运行一轮（抓取、统计、发信）然后退出
        #[arg(long)]
        once: bool,
        /// 把“现在”当作这个时刻（论坛时间）：与 --once 一起用于补算；单独用时时钟从这一刻起走（演练录下的游戏）
        #[arg(long)]
        now: Option<String>,
    },
    /// 查看正在运行的守护进程：监视哪些帖子、上一轮、下一个截止时间、待发邮件
    Status {
        /// 守护进程配置文件（TOML）
        #[arg(long)]
        config: PathBuf,
    },
    /// 潜水统计：读取保存的讨论帖（及投票帖）页面，按本局规则统计每位玩家当天的有效发言数
    Lurk {
        /// 本局配置文件（TOML）
        #[arg(long)]
        config: PathBuf,
        /// 第几天
        #[arg(long)]
        day: u32,
        /// 输出 JSON
        #[arg(long)]
        json: bool,
        /// 强制使用的字符编码（如 GBK）；默认按页面声明
        #[arg(long)]
        charset: Option<String>,
        /// 输出电梯楼（每位玩家只看该作者的链接和发言数，BBCode）
        #[arg(long)]
        elevator: bool,
        /// 当天各帖的页面文件（讨论帖、投票帖、灌水帖都可以给，按配置计数）
        #[arg(required = true)]
        pages: Vec<PathBuf>,
    },
    /// 检查报道、杀帖等必须的帖子：字数（Word 方式）、引用比例、重复、代号、编辑、原创
    CheckPost {
        /// 本局配置文件（TOML）
        #[arg(long)]
        config: PathBuf,
        /// 帖子种类（本局规则 [checks.*] 中的名字，如 report、kill、kill_iou）
        #[arg(long)]
        kind: String,
        /// 杀手代号（杀帖必须注明），可给多个
        #[arg(long = "code-name")]
        code_names: Vec<String>,
        /// 帖子被编辑过
        #[arg(long)]
        edited: bool,
        /// 与这些较早的文本比较相似度（原创首发）
        #[arg(long)]
        compare: Vec<PathBuf>,
        /// 输出 JSON
        #[arg(long)]
        json: bool,
        /// 帖子文本（UTF-8 或 GBK，[quote] 算引用）；“-” 表示标准输入
        file: PathBuf,
    },
    /// 按 Word 的方式数字数（报道、杀帖）：总字数、字符数、引用占比、去掉引用后的字数、重复句子占比
    Wordcount {
        /// 文本文件（UTF-8 或 GBK）；“-” 表示标准输入。[quote]…[/quote] 算引用
        file: PathBuf,
        /// 输出 JSON
        #[arg(long)]
        json: bool,
    },
    /// 违规记录（警告、蓝黄红牌、潜水）：查看正在运行的守护进程的记录，或由法官添加、撤销
    Ledger {
        /// 守护进程配置文件（TOML）
        #[arg(long)]
        config: PathBuf,
        /// 游戏名（配置中的 name），默认第一个
        #[arg(long)]
        game: Option<String>,
        /// 给这位玩家添加一条记录
        #[arg(long)]
        add: Option<String>,
        /// 记录种类：warning、blue_card、yellow_card、red_card、lurk
        #[arg(long)]
        kind: Option<String>,
        /// 原因
        #[arg(long)]
        reason: Option<String>,
        /// 第几天
        #[arg(long)]
        day: Option<u32>,
        /// 撤销这条记录（编号见列表中的方括号）
        #[arg(long)]
        remove: Option<String>,
    },
    /// 局面（仅法官可见）：每个座位的身份、存活或出局原因、胜负条件
    State {
        /// 本局配置文件（TOML）
        #[arg(long)]
        config: PathBuf,
        /// 局面文件，默认是配置文件旁的 <名字>.state.json
        #[arg(long)]
        state: Option<PathBuf>,
        /// 输出 JSON
        #[arg(long)]
        json: bool,
    },
    /// 记录局面变化（出局、复活、替补、身份变化、法官记录的事实、撤销），并检查胜负条件
    Change {
        /// 本局配置文件（TOML）
        #[arg(long)]
        config: PathBuf,
        /// 局面文件，默认是配置文件旁的 <名字>.state.json
        #[arg(long)]
        state: Option<PathBuf>,
        /// 变化发生的时间（论坛时间，如 2026-11-29 08:00），默认现在；此时间之后截止的投票中，出局者的票无效
        #[arg(long)]
        at: Option<String>,
        #[command(subcommand)]
        what: ChangeCmd,
    },
    /// 确认某天的投票结果：统计、按规则检查保护（帅、徽章、太子……），记录出局，检查胜负条件
    Confirm {
        /// 本局配置文件（TOML）
        #[arg(long)]
        config: PathBuf,
        /// 局面文件，默认是配置文件旁的 <名字>.state.json
        #[arg(long)]
        state: Option<PathBuf>,
        /// 第几天
        #[arg(long)]
        day: u32,
        /// 投票帖的页面文件（所有页）
        #[arg(required = true)]
        pages: Vec<PathBuf>,
    },
    /// 教会局的身份抽签（差额排序法）：列出计算过程，可写出身份表
    Draw {
        /// 抽签数字文件（TOML：seed、[[entry]] player / number / at）
        entries: PathBuf,
        /// 把身份表（[roster.roles] 配置片段）写到这个文件
        #[arg(long)]
        roster_out: Option<PathBuf>,
    },
    /// 从预设新建本局配置：在终端回答几个问题（规则、论坛地址、玩家名单文件、投票帖、截止时间）
    Init {
        /// 要写的本局配置文件；同一目录下没有 daemon.toml 时也写一个
        #[arg(long, default_value = "game.toml")]
        out: PathBuf,
    },
    /// 检查本局配置文件，错误会指出文件、行号和键名
    CheckConfig {
        /// 配置文件（TOML）
        file: PathBuf,
    },
}

#[derive(Subcommand)]
enum ChangeCmd {
    /// 出局
    Eliminate {
        player: String,
        /// 原因：投票、夜杀、毒杀、殉情、红牌……
        #[arg(long)]
        cause: String,
        #[arg(long)]
        day: Option<u32>,
    },
    /// 复活（特赦、圣光、解药……）
    Revive {
        player: String,
        #[arg(long)]
        cause: String,
    },
    /// 替补接替座位（保留身份与记录）
    Replace { seat: String, by: String },
    /// 身份或阵营变化（叛变、情侣结成阵营）
    Role {
        player: String,
        #[arg(long)]
        role: Option<String>,
        #[arg(long)]
        faction: Option<String>,
    },
    /// 法官记录的事实（如 连续未杀人夜数 1）
    Fact { key: String, value: f64 },
    /// 撤销上一条记录
    Undo,
}

/// The command line: parse the arguments, run the subcommand, map its result to an exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Posts {
            paths,
            charset,
            utc_offset,
        } => crate::domain::time::parse_utc_offset(&utc_offset).and_then(|utc_offset| {
            let args = crate::cli::posts::PostsArgs {
                paths,
                charset,
                utc_offset,
            };
            crate::cli::posts::run(&args, &mut std::io::stdout().lock(), &mut std::io::stderr())
        }),
        Command::Poll { paths, utc_offset } => crate::domain::time::parse_utc_offset(&utc_offset)
            .and_then(|utc_offset| {
                crate::cli::poll_pm::poll(
                    &paths,
                    &bansha_parsers::ParseOptions { utc_offset },
                    &mut std::io::stdout().lock(),
                    &mut std::io::stderr(),
                )
            }),
        Command::Pm { paths, utc_offset } => crate::domain::time::parse_utc_offset(&utc_offset)
            .and_then(|utc_offset| {
                crate::cli::poll_pm::pm(
                    &paths,
                    &bansha_parsers::ParseOptions { utc_offset },
                    &mut std::io::stdout().lock(),
                    &mut std::io::stderr(),
                )
            }),
        Command::Tally {
            config,
            day,
            live: true,
            game,
            ..
        } => crate::cli::tally::live(
            &config,
            day,
            game.as_deref(),
            &mut std::io::stdout().lock(),
            &mut std::io::stderr(),
        ),
        Command::Tally {
            config,
            day,
            round,
            at,
            json,
            charset,
            pages,
            ..
        } => {
            let args = crate::cli::tally::TallyArgs {
                config,
                day,
                round,
                at,
                json,
                charset,
                pages,
            };
            crate::cli::tally::run(&args, &mut std::io::stdout().lock(), &mut std::io::stderr())
        }
        Command::Demo { dir } => {
            crate::cli::demo::run(&dir, &mut std::io::stdout().lock(), &mut std::io::stderr())
        }
        Command::Run { config, once, now } => crate::cli::run::run(
            &config,
            once,
            now.as_deref(),
            &mut std::io::stdout().lock(),
            &mut std::io::stderr(),
        ),
        Command::Status { config } => crate::cli::tally::status(
            &config,
            &mut std::io::stdout().lock(),
            &mut std::io::stderr(),
        ),
        Command::Lurk {
            config,
            day,
            json,
            elevator,
            charset,
            pages,
        } => crate::cli::lurk::run(
            &crate::cli::lurk::LurkArgs {
                config,
                day,
                json,
                elevator,
                charset,
                pages,
            },
            &mut std::io::stdout().lock(),
            &mut std::io::stderr(),
        ),
        Command::CheckPost {
            config,
            kind,
            code_names,
            edited,
            compare,
            json,
            file,
        } => crate::cli::check_post::run(
            &crate::cli::check_post::CheckArgs {
                config,
                kind,
                code_names,
                edited,
                compare,
                json,
                file,
            },
            &mut std::io::stdout().lock(),
            &mut std::io::stderr(),
        ),
        Command::Wordcount { file, json } => crate::cli::wordcount::run(
            &file,
            json,
            &mut std::io::stdout().lock(),
            &mut std::io::stderr(),
        ),
        Command::Ledger {
            config,
            game,
            add,
            kind,
            reason,
            day,
            remove,
        } => crate::cli::tally::ledger(
            &config,
            game.as_deref(),
            add.as_deref(),
            kind.as_deref(),
            reason.as_deref(),
            day,
            remove.as_deref(),
            &mut std::io::stdout().lock(),
            &mut std::io::stderr(),
        ),
        Command::State {
            config,
            state,
            json,
        } => crate::cli::state::show(
            &config,
            state.as_deref(),
            json,
            &mut std::io::stdout().lock(),
            &mut std::io::stderr(),
        ),
        Command::Change {
            config,
            state,
            at,
            what,
        } => {
            use crate::domain::rules::state::Change as C;
            let change = match what {
                ChangeCmd::Eliminate { player, cause, day } => {
                    Some(C::Eliminate { player, cause, day })
                }
                ChangeCmd::Revive { player, cause } => Some(C::Revive { player, cause }),
                ChangeCmd::Replace { seat, by } => Some(C::Replace { seat, by }),
                ChangeCmd::Role {
                    player,
                    role,
                    faction,
                } => Some(C::SetRole {
                    player,
                    role,
                    faction,
                }),
                ChangeCmd::Fact { key, value } => Some(C::Fact { key, value }),
                ChangeCmd::Undo => None,
            };
            crate::cli::state::change(
                &config,
                state.as_deref(),
                change,
                at.as_deref(),
                &mut std::io::stdout().lock(),
                &mut std::io::stderr(),
            )
        }
        Command::Confirm {
            config,
            state,
            day,
            pages,
        } => crate::cli::state::confirm(
            &config,
            state.as_deref(),
            day,
            &pages,
            &mut std::io::stdout().lock(),
            &mut std::io::stderr(),
        ),
        Command::Draw {
            entries,
            roster_out,
        } => crate::cli::draw::run(
            &entries,
            roster_out.as_ref(),
            &mut std::io::stdout().lock(),
            &mut std::io::stderr(),
        ),
        Command::Init { out } => crate::cli::init::run(
            &out,
            &mut std::io::stdin().lock(),
            &mut std::io::stdout().lock(),
            &mut std::io::stderr(),
        ),
        Command::CheckConfig { file } => crate::cli::tally::check_config(
            &file,
            &mut std::io::stdout().lock(),
            &mut std::io::stderr(),
        ),
    };
    match result {
        Ok(0) => ExitCode::SUCCESS,
        Ok(code) => ExitCode::from(code as u8),
        // `bansha posts … | head`: the reader went away; that is not an error.
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("错误：{e:#}");
            ExitCode::from(2)
        }
    }
}
