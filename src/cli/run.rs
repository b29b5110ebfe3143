//! `bansha run` (the service) and `bansha status`.

use crate::daemon::service::Service;
use crate::daemon::{CycleReport, Daemon};
use crate::domain::time::parse_local_time;
use crate::io::clock::{Clock, ShiftedClock, SystemClock};
use std::io::Write;
use std::path::Path;
use std::path::PathBuf;
use std::sync::Arc;

/// `bansha run --config daemon.toml [--once] [--now TIME | --clock-file F]`. Returns the exit
/// code. Without `--once`, `--now` starts the service's clock at TIME (a rehearsal on a
/// recorded game); `--clock-file` reads "now" from a file at each look (a rehearsal stepped
/// by hand, days at a time, in one running service).
pub fn run(
    config: &Path,
    once: bool,
    now: Option<&str>,
    clock_file: Option<&Path>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let settings = match crate::io::files::load_settings(config) {
        Ok(s) => s,
        Err(e) => {
            writeln!(err, "配置错误：{e}")?;
            return Ok(2);
        }
    };
    // The mails' timeline pictures need a font that writes Chinese: refuse now, where the
    // judge looks (the terminal, or journalctl under systemd), not with wordless pictures later.
    if let Err(why) = crate::io::fonts::check() {
        writeln!(err, "错误：无法启动：{why}")?;
        return Ok(2);
    }
    let offset = settings.games[0].utc_offset;
    let clock = SystemClock(offset);
    let file_clock = match clock_file {
        None => None,
        Some(f) => match crate::io::clock::FileClock::open(f, offset) {
            Ok(c) => Some(Arc::new(c)),
            Err(m) => {
                writeln!(err, "错误：--clock-file：{m}")?;
                return Ok(2);
            }
        },
    };
    let now = match now {
        None => file_clock.as_ref().map(|c| c.now()),
        Some(s) => match parse_local_time(s, offset) {
            Ok(t) => Some(t),
            Err(m) => {
                writeln!(err, "错误：--now：{m}")?;
                return Ok(2);
            }
        },
    };
    crate::io::memory::one_arena();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result = rt.block_on(async {
        let daemon = match Daemon::open(settings) {
            // The system clock is checked against the forum's; a time given with --now is
            // the judge's and taken as given.
            Ok(d) => {
                d.check_clock
                    .store(now.is_none(), std::sync::atomic::Ordering::Relaxed);
                d
            }
            Err(e) => {
                writeln!(err, "错误：无法启动：{e:#}")?;
                return Ok(1);
            }
        };
        if !once {
            // A deadline already past is tallied at the first cycle: say so where the judge
            // looks when starting the service; not of a day whose round 2 is still running.
            let start = now.unwrap_or_else(|| clock.now());
            let runoffs = daemon.watched_runoffs(start);
            for g in &daemon.settings().games {
                let running: Vec<u32> = runoffs
                    .iter()
                    .filter(|(g2, _)| g2.name == g.name)
                    .map(|(_, d2)| d2.day)
                    .collect();
                for w in g.time_warnings(start, &running) {
                    writeln!(err, "警告：{}：{w}", g.name)?;
                }
            }
        }
        if once {
            let report: CycleReport = crate::io::state_file::reading(Box::pin(
                daemon.cycle(now.unwrap_or_else(|| clock.now())),
            ))
            .await;
            serde_json::to_writer(&mut *out, &report)?;
            writeln!(out)?;
            return Ok(if report.errors.is_empty() { 0 } else { 1 });
        }
        let clock: Arc<dyn Clock> = match (file_clock, now) {
            (Some(c), _) => c,
            (None, Some(t)) => Arc::new(ShiftedClock::new(t, 1)),
            (None, None) => Arc::new(clock),
        };
        let service = Arc::new(Service::new(Arc::new(daemon), clock));
        crate::daemon::http::serve(service.clone()).await?;
        if let Err(e) = crate::daemon::service::run(service).await {
            writeln!(err, "错误：{e:#}")?;
            return Ok(1);
        }
        Ok(0)
    });
    // Tasks still running (a cycle inside a request, a blocked write) do not hold the exit.
    rt.shutdown_timeout(std::time::Duration::from_secs(2));
    result
}

/// The arguments of `bansha run` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct RunCommand {
    /// 守护进程配置文件（TOML）
    #[arg(long)]
    pub config: PathBuf,
    /// 只运行一轮（抓取、统计、发信）然后退出
    #[arg(long)]
    pub once: bool,
    /// 把“现在”当作这个时刻（论坛时间）：与 --once 一起用于补算；单独用时时钟从这一刻起走（演练录下的游戏）
    #[arg(long)]
    pub now: Option<String>,
    /// 演练：每次需要“现在”时从这个文件读（文件里写论坛时间，如 2026-11-29 21:00:05），改文件即推进时间
    #[arg(long, conflicts_with = "now")]
    pub clock_file: Option<PathBuf>,
}

impl RunCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        run(
            &self.config,
            self.once,
            self.now.as_deref(),
            self.clock_file.as_deref(),
            out,
            err,
        )
    }
}
