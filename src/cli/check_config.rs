//! `bansha check-config`: a game config, or a daemon config and every game it names.

use std::io::Write;
use std::path::PathBuf;

/// Run `bansha check-config`: a game config, or a daemon config (one with `[forum]`) and every
/// game it names. Returns the exit code.
pub fn check_config(
    path: &std::path::Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    if is_daemon(path) {
        return match crate::io::files::load_settings(path) {
            Ok(s) => {
                let mut errors = 0;
                for g in &s.games {
                    let now =
                        crate::io::clock::Clock::now(&crate::io::clock::SystemClock(g.utc_offset));
                    for w in g.warnings().into_iter().chain(g.time_warnings(now, &[])) {
                        writeln!(err, "警告：{}：{w}", g.name)?;
                    }
                    for e in crate::domain::rules::window::close_errors(g) {
                        writeln!(err, "配置错误：{}：{e}", g.name)?;
                        errors += 1;
                    }
                }
                // The service draws the timeline pictures on this machine (`bansha run`
                // refuses to start without a font that writes Chinese).
                if let Err(why) = crate::io::fonts::check() {
                    writeln!(err, "配置错误：{why}")?;
                    errors += 1;
                }
                if errors > 0 {
                    return Ok(1);
                }
                let games: Vec<String> = s.games.iter().map(|g| g.name.clone()).collect();
                writeln!(
                    out,
                    "守护进程配置有效：论坛 {}，{}，邮件发给 {}，记录目录 {}，监视游戏：{}",
                    s.forum.base_url,
                    match &s.login {
                        Some(l) => format!("以 {} 登录", l.username),
                        None => "以游客身份读取".into(),
                    },
                    s.judge.to.join("、"),
                    s.state_dir.display(),
                    games.join("、")
                )?;
                if let Some(q) = &s.qq {
                    for line in crate::present::qq::settings_lines(q, &s.status.listen) {
                        writeln!(out, "{line}")?;
                    }
                }
                Ok(0)
            }
            Err(e) => {
                writeln!(err, "配置错误：{e}")?;
                Ok(1)
            }
        };
    }
    match crate::io::files::load_game(path) {
        Ok(g) => {
            let now = crate::io::clock::Clock::now(&crate::io::clock::SystemClock(g.utc_offset));
            for w in g.warnings().into_iter().chain(g.time_warnings(now, &[])) {
                writeln!(err, "警告：{w}")?;
            }
            let errors = crate::domain::rules::window::close_errors(&g);
            for e in &errors {
                writeln!(err, "配置错误：{e}")?;
            }
            if !errors.is_empty() {
                return Ok(1);
            }
            dead_against_state(&g, path, out, err)?;
            let days: Vec<String> = g.days.iter().map(|d| format!("第{}天", d.day)).collect();
            writeln!(
                out,
                "配置有效：{}（规则 {}），玩家 {} 人，法官 {} 人，已配置 {}",
                g.name,
                g.rules.name,
                g.roster.players.len(),
                g.roster.judges.len(),
                if days.is_empty() {
                    "0 天".to_string()
                } else {
                    days.join("、")
                }
            )?;
            Ok(0)
        }
        Err(e) => {
            writeln!(err, "配置错误：{e}")?;
            Ok(1)
        }
    }
}

/// Who is out on each day: the config's `dead` (an override) beside the state file's record,
/// a warning on each day where they differ.
fn dead_against_state(
    g: &crate::domain::config::GameConfig,
    path: &std::path::Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<()> {
    let state_path = crate::io::state_file::state_path(path, None);
    if !state_path.exists() {
        return Ok(());
    }
    let state = match crate::io::state_file::load_state(&state_path) {
        Ok(s) => s,
        Err(e) => {
            writeln!(err, "警告：局面文件 {} 读不了：{e:#}", state_path.display())?;
            return Ok(());
        }
    };
    let list = |l: &[String]| {
        if l.is_empty() {
            "无".to_string()
        } else {
            l.join("、")
        }
    };
    for (day, typed, recorded) in crate::domain::rules::state::dead_side_by_side(g, &state) {
        writeln!(
            out,
            "第{day}天 已出局：配置 dead = {}；局面记录 {}",
            list(&typed),
            list(&recorded)
        )?;
        let only_typed: Vec<String> = typed
            .iter()
            .filter(|p| !recorded.contains(p))
            .cloned()
            .collect();
        let only_recorded: Vec<String> = recorded
            .iter()
            .filter(|p| !typed.contains(p))
            .cloned()
            .collect();
        if !only_typed.is_empty() || !only_recorded.is_empty() {
            writeln!(
                err,
                "警告：第{day}天 配置的 dead 与局面记录不一致：{}{}（按两者合起来算出局；dead 是法官的补充，不需要时可以删掉，出局以局面记录为准）",
                if only_typed.is_empty() { String::new() } else { format!("只在配置里：{}；", only_typed.join("、")) },
                if only_recorded.is_empty() { String::new() } else { format!("只在局面记录里：{}", only_recorded.join("、")) },
            )?;
        }
    }
    Ok(())
}

/// A daemon config is one with `[forum]`.
fn is_daemon(path: &std::path::Path) -> bool {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| t.parse::<toml::Table>().ok())
        .is_some_and(|t| t.contains_key("forum"))
}

/// `bansha check-config --online`: what only the forum and the relay can say — the login, page
/// 1 of each game's vote threads, an SMTP session, the QQ bot's login (nothing is posted,
/// mailed or sent). Returns the
/// exit code: 0 when everything answered.
pub fn online(
    path: &std::path::Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let settings = match crate::io::files::load_settings(path) {
        Ok(s) => s,
        Err(e) => {
            writeln!(err, "配置错误：{e}")?;
            return Ok(1);
        }
    };
    let offset = settings.games[0].utc_offset;
    let forum = match crate::io::forum::Forum::new(&settings.forum, settings.login.clone(), offset)
    {
        Ok(f) => f,
        Err(e) => {
            writeln!(err, "配置错误：forum：{e}")?;
            return Ok(1);
        }
    };
    let mailer = match crate::io::smtp::Mailer::new(&settings.smtp, &settings.judge.to) {
        Ok(m) => m,
        Err(e) => {
            writeln!(err, "配置错误：{e}")?;
            return Ok(1);
        }
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut failed = 0;
    rt.block_on(async {
        if let Some(login) = &settings.login {
            match forum.log_in().await {
                Ok(()) => writeln!(out, "✓ 论坛登录成功：{}", login.username)?,
                Err(e) => {
                    failed += 1;
                    writeln!(
                        err,
                        "✗ 论坛登录失败（forum.login，用户 {}）：{e}",
                        login.username
                    )?;
                }
            }
        }
        let mut tids: Vec<(String, u64)> = Vec::new();
        for g in &settings.games {
            for d in &g.days {
                if let Some(t) = d.vote_thread.filter(|t| !tids.iter().any(|(_, x)| x == t)) {
                    tids.push((format!("{} 第{}天", g.name, d.day), t));
                }
            }
        }
        for (what, tid) in tids {
            match forum.thread_page(tid, 1).await {
                Ok(p) => {
                    writeln!(
                        out,
                        "✓ {what} 的投票帖 tid {tid} 可以读取：第 1 页 {} 帖",
                        p.posts.len()
                    )?;
                    // A close before the thread's first post: the daemon would hold the day.
                    let first = p.posts.iter().find_map(|x| x.posted_at);
                    for g in &settings.games {
                        for d in g.days.iter().filter(|d| d.vote_thread == Some(tid)) {
                            if let Some(why) =
                                crate::domain::rules::window::misplaced_close(g, d, first)
                            {
                                failed += 1;
                                writeln!(err, "✗ {}：{why}", g.name)?;
                            }
                        }
                    }
                }
                Err(e) => {
                    failed += 1;
                    writeln!(err, "✗ {what} 的投票帖 tid {tid} 读不出来：{e}")?;
                }
            }
        }
        match mailer.check().await {
            Ok(how) => writeln!(out, "✓ 邮件服务器可用（{how}；没有发信）")?,
            Err(e) => {
                failed += 1;
                writeln!(err, "✗ 邮件服务器不可用（smtp）：{e}")?;
            }
        }
        if let Some(q) = &settings.qq {
            let bot = crate::io::qq::Bot::new(q).map_err(anyhow::Error::msg)?;
            match bot.login_info().await {
                Ok((id, nick)) => {
                    writeln!(out, "✓ QQ 机器人可用：登录号 {id}（{nick}；没有发消息）")?
                }
                Err(e) => {
                    failed += 1;
                    writeln!(err, "✗ QQ 机器人不可用（qq.api {}）：{e}", q.api)?;
                }
            }
        }
        anyhow::Ok(())
    })?;
    Ok(if failed == 0 { 0 } else { 1 })
}

/// The arguments of `bansha check-config` (its help text is on `cli::Command`).
#[derive(clap::Args)]
pub struct CheckConfigCommand {
    /// 配置文件（TOML）
    pub file: PathBuf,
    /// 守护进程配置：再实际试一次论坛登录、读各局投票帖第 1 页、连上邮件服务器（不发帖、不发信）
    #[arg(long)]
    pub online: bool,
    /// 试一条投票：按本局规则（格式、改票、理由、名单）判断这段文字算不算票、投给谁，例如 --try "投票对象：李逵 投票理由：发言前后矛盾"（m103 的格式）
    #[arg(long = "try", value_name = "投票文字")]
    pub try_ballot: Option<String>,
    /// 与 --try 一起用：以这位玩家的身份发（默认名单上第一位存活的玩家）
    #[arg(long = "as", value_name = "玩家", requires = "try_ballot")]
    pub as_player: Option<String>,
    /// 与 --try 一起用：第几天（默认配置的最后一天）
    #[arg(long, requires = "try_ballot")]
    pub day: Option<u32>,
    /// 与 --try 一起用：发帖时间（论坛时间，如 "2026-11-29 20:00"；默认这一天投票开放期间、截止前一小时，开放不到一小时则取开放期间的中点）
    #[arg(long, value_name = "时间", requires = "try_ballot")]
    pub at: Option<String>,
}

impl CheckConfigCommand {
    pub fn run(self, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
        let code = check_config(&self.file, out, err)?;
        if code != 0 {
            return Ok(code);
        }
        if let Some(text) = &self.try_ballot {
            return try_ballot(
                &self.file,
                text,
                (self.as_player.as_deref(), self.day, self.at.as_deref()),
                out,
                err,
            );
        }
        if !self.online {
            return Ok(code);
        }
        if !is_daemon(&self.file) {
            writeln!(
                err,
                "错误：--online 检查的是守护进程配置（含 [forum] 的那个文件），{} 是游戏配置",
                self.file.display()
            )?;
            return Ok(2);
        }
        online(&self.file, out, err)
    }
}

/// When `--try` posts its sample ballot by default: inside the day's open window (issue 29: an
/// hour before the close fell before a day open half an hour) — an hour before the close, or
/// the middle of a shorter window.
fn try_time(
    game: &crate::domain::config::GameConfig,
    d: &crate::domain::config::DayConfig,
) -> chrono::DateTime<chrono::FixedOffset> {
    let hour_before = d.closes_at - chrono::Duration::hours(1);
    match crate::domain::rules::window::window_start(game, d) {
        Some(start) if start >= hour_before => start + (d.closes_at - start) / 2,
        _ => hour_before,
    }
}

/// `check-config --try TEXT`: the text as a post of a living player (`who`: the player, the day,
/// the time, each defaulted) inside the day's open window, through the same tally as the
/// daemon's, and what it made of it.
fn try_ballot(
    path: &std::path::Path,
    text: &str,
    who: (Option<&str>, Option<u32>, Option<&str>),
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let (as_player, day, at) = who;
    if is_daemon(path) {
        writeln!(
            err,
            "错误：--try 用在游戏配置上（{} 是守护进程配置）",
            path.display()
        )?;
        return Ok(2);
    }
    let game = match crate::io::files::load_game(path) {
        Ok(g) => g,
        Err(e) => {
            writeln!(err, "配置错误：{e}")?;
            return Ok(1);
        }
    };
    let Some(d) = (match day {
        Some(n) => game.day(n),
        None => game.days.iter().max_by_key(|d| d.day),
    }) else {
        writeln!(
            err,
            "错误：配置里没有{}",
            day.map_or("任何一天".to_string(), |n| format!("第 {n} 天"))
        )?;
        return Ok(2);
    };
    let voter = match as_player {
        Some(p) if game.roster.players.iter().any(|x| x == p) => p.to_string(),
        Some(p) => {
            writeln!(err, "错误：{p} 不在玩家名单里")?;
            return Ok(2);
        }
        None => match game
            .roster
            .players
            .iter()
            .find(|p| !d.dead.contains(p) && !game.roster.judges.contains(p))
        {
            Some(p) => p.clone(),
            None => {
                writeln!(err, "错误：第 {} 天没有存活的玩家", d.day)?;
                return Ok(2);
            }
        },
    };
    let at = match at {
        None => try_time(&game, d),
        Some(t) => match crate::domain::time::parse_local_time(t, game.utc_offset) {
            Ok(t) => t,
            Err(m) => {
                writeln!(err, "错误：--at：{m}")?;
                return Ok(2);
            }
        },
    };
    let post = bansha_parsers::Post::text_only(
        1,
        d.vote_thread.unwrap_or(0),
        "2#".into(),
        voter.clone(),
        Some(at),
        text.replace("\\n", "\n"),
    );
    let tally = match crate::domain::rules::tally_with(&game, d.day, 1, at, &[post], &[]) {
        Ok(t) => t,
        Err(e) => {
            writeln!(err, "错误：{e}")?;
            return Ok(2);
        }
    };
    writeln!(
        out,
        "以 {voter} 的身份在第 {} 天（{}）发这段文字：",
        d.day,
        at.format("%Y-%m-%d %H:%M")
    )?;
    if let Some(b) = tally.ballots.first() {
        if b.valid {
            writeln!(
                out,
                "结果：有效的{}，投给 {}",
                b.kind.zh(),
                b.targets.join("、")
            )?;
        } else {
            writeln!(out, "结果：{}", b.reason_and_hint())?;
        }
    } else if let Some(i) = tally.ignored.first() {
        writeln!(out, "结果：不算投票——{}", i.reason)?;
    } else {
        writeln!(out, "结果：不算投票（不是本局规则的投票格式）")?;
    }
    let formats: Vec<String> = game
        .rules
        .ballot
        .formats
        .iter()
        .map(|f| f.vote.replace('\n', " / "))
        .collect();
    if !formats.is_empty() {
        writeln!(out, "本局投票格式：{}", formats.join("；"))?;
    }
    Ok(0)
}
