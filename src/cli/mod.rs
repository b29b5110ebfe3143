//! The command line: one module per subcommand, each with its `run`; this module holds the
//! clap frame and maps results to exit codes.

pub mod check_config;
pub mod check_post;
pub mod client;
pub mod demo;
pub mod draw;
pub mod init;
pub mod lurk;
pub mod night;
pub mod online;
pub mod poll_pm;
pub mod posts;
pub mod ruling;
pub mod run;
pub mod state;
pub mod tally;
pub mod wordcount;
mod zh;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::process::ExitCode;

/// bansha：版杀法官的计票助手（Discuz! 论坛）
#[derive(Parser)]
#[command(
    name = "bansha",
    version,
    about = "bansha：版杀法官的计票助手（Discuz! 论坛）",
    long_about = None
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// 读取保存的帖子页面（网页 HTML 或手机接口 JSON），每帖输出一行 JSON
    Posts(posts::PostsCommand),
    /// 读取保存的投票机页面（投票帖网页或手机接口 JSON，以及“查看投票参与人”页面），输出选项、票数和投票人（JSON）
    Poll(poll_pm::PollCommand),
    /// 读取保存的短信页面（网页或手机接口 JSON），每条短信输出一行 JSON
    Pm(poll_pm::PmCommand),
    /// 统计投票：读取保存的投票帖页面，按本局规则输出可直接发帖的统计（BBCode）或 JSON
    Tally(tally::TallyCommand),
    /// 演示：在本机回放一局录下的游戏，守护进程按压缩的时间轮询、统计、写邮件，最后打印最终计票
    Demo(demo::DemoCommand),
    /// 运行守护进程：轮询论坛、记录帖子、按时统计、发邮件给法官
    Run(run::RunCommand),
    /// 查看正在运行的守护进程：监视哪些帖子、上一轮、下一个截止时间、待发邮件
    Status(client::StatusCommand),
    /// 让正在运行的守护进程立即重新载入配置（改过的游戏配置、新的一天）；有错误的配置不会采用，原配置继续运行
    Reload(client::ReloadCommand),
    /// 潜水统计：读取保存的讨论帖（及投票帖）页面，按本局规则统计每位玩家当天的有效发言数
    Lurk(lurk::LurkCommand),
    /// 检查报道、杀帖等必须的帖子：字数（Word 方式）、引用比例、重复、代号、编辑、原创
    CheckPost(check_post::CheckPostCommand),
    /// 按 Word 的方式数字数（报道、杀帖）：总字数、字符数、引用占比、去掉引用后的字数、重复句子占比
    Wordcount(wordcount::WordcountCommand),
    /// 违规记录（警告、蓝黄红牌、潜水）：查看正在运行的守护进程的记录，或由法官添加、撤销
    Ledger(client::LedgerCommand),
    /// 法官裁定单张票：把某一帖按投给某人计、判为无效，或撤销裁定；守护进程下一次统计即按裁定计
    Ruling(ruling::RulingCommand),
    /// 局面（仅法官可见）：每个座位的身份、存活或出局原因、胜负条件
    State(state::StateCommand),
    /// 记录局面变化（出局、复活、替补、身份变化、法官记录的事实、撤销），并检查胜负条件
    Change(state::ChangeCommand),
    /// 夜晚结算（离线）：按本局规则的 [night] 结算一夜的行动文件，列出死亡、状态、私信反馈、次日加减票、天亮公告（BBCode）
    Night(night::NightCommand),
    /// 确认某天的投票结果：统计、按规则检查保护（帅、徽章、太子……），记录出局，检查胜负条件
    Confirm(state::ConfirmCommand),
    /// 教会局的身份抽签（差额排序法）：列出计算过程，可写出身份表
    Draw(draw::DrawCommand),
    /// 从预设新建本局配置：在终端回答几个问题（规则、论坛地址、玩家名单文件、投票帖、截止时间）
    Init(init::InitCommand),
    /// 检查本局配置文件，错误会指出文件、行号和键名
    CheckConfig(check_config::CheckConfigCommand),
}

/// The command line: parse the arguments, run the subcommand, map its result to an exit code.
pub fn main() -> ExitCode {
    // clap's frame in Chinese: its help, and its errors told from their kind (`zh`).
    let parsed = zh::localize(Cli::command())
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    print!("{}", zh::help_text(&e.render().to_string()));
                    ExitCode::SUCCESS
                }
                ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    eprint!("{}", zh::help_text(&e.render().to_string()));
                    ExitCode::from(2)
                }
                _ => {
                    eprint!("{}", zh::error_text(&e));
                    ExitCode::from(2)
                }
            };
        }
    };
    let out = &mut std::io::stdout().lock();
    let err = &mut std::io::stderr();
    let result = match cli.command {
        Command::Posts(c) => c.run(out, err),
        Command::Poll(c) => c.run(out, err),
        Command::Pm(c) => c.run(out, err),
        Command::Tally(c) => c.run(out, err),
        Command::Demo(c) => c.run(out, err),
        Command::Run(c) => c.run(out, err),
        Command::Status(c) => c.run(out, err),
        Command::Reload(c) => c.run(out, err),
        Command::Lurk(c) => c.run(out, err),
        Command::CheckPost(c) => c.run(out, err),
        Command::Wordcount(c) => c.run(out, err),
        Command::Ledger(c) => c.run(out, err),
        Command::Ruling(c) => c.run(out, err),
        Command::State(c) => c.run(out, err),
        Command::Change(c) => c.run(out, err),
        Command::Confirm(c) => c.run(out, err),
        Command::Night(c) => c.run(out, err),
        Command::Draw(c) => c.run(out, err),
        Command::Init(c) => c.run(out, err),
        Command::CheckConfig(c) => c.run(out, err),
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
