//! The running daemon answers on a loopback address: `GET /` (the judge's dashboard: each
//! game's phase, next deadline, live tally, timeline, 潜水 counts, pending alerts and fetch
//! health), `GET /timeline.svg?day=N[&game=NAME]`, `GET /status` (JSON: what it watches, the last
//! cycle, the next deadline, queued mail) and `GET /tally?day=N[&game=NAME]` (the live tally as
//! BBCode). CLI commands ask here instead of opening the store, which sled locks.
//!
//! Judge-only: the dashboard shows roles. It listens on loopback unless configured otherwise,
//! and then every request needs the token (`?token=` or `Authorization: Bearer`).

use crate::daemon::service::Service;
use crate::present::bbcode::tally as bbcode;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Debug, Serialize, Deserialize)]
pub struct Status {
    pub watching: Vec<String>,
    /// Days with a vote thread not watched yet, with when they will be.
    #[serde(default)]
    pub upcoming: Vec<String>,
    pub last_cycle: Option<crate::daemon::CycleReport>,
    pub next_deadline: Option<(String, String)>,
    pub mails_waiting: usize,
    pub mails_sent: usize,
    pub healthy: bool,
    /// Required posts (报道, 杀帖) that failed their checks.
    #[serde(default)]
    pub failing_posts: Vec<String>,
    /// Mails the SMTP server refused for good, as the judge reads them.
    #[serde(default)]
    pub refused_mails: Vec<String>,
    /// What is wrong, one line each (empty when `healthy`).
    #[serde(default)]
    pub problems: Vec<String>,
    /// QQ messages the judge must read himself (an unknown number, a text read as nothing).
    #[serde(default)]
    pub qq_messages: Vec<String>,
    /// Which daemon this is, for a client to check it asked its own config's (none from a
    /// version before it was reported).
    #[serde(default)]
    pub identity: Option<Identity>,
    /// The config files running and what the last reload found (none from a version before
    /// configs were reloaded).
    #[serde(default)]
    pub configs: Option<crate::daemon::reload::Reload>,
}

/// What tells one daemon from another on the same machine: the record it keeps (one daemon
/// per state directory: sled locks it) and the games it runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Identity {
    /// The state directory, as the file system resolves it.
    pub state_dir: std::path::PathBuf,
    /// Each game's name and the id its record is kept under.
    pub games: Vec<(String, String)>,
}

impl Identity {
    pub fn of(settings: &crate::domain::settings::Settings) -> Identity {
        Identity {
            state_dir: crate::io::files::canonical(&settings.state_dir),
            games: settings
                .games
                .iter()
                .map(|g| (g.name.clone(), g.id.clone()))
                .collect(),
        }
    }
}

#[derive(Deserialize)]
pub struct LedgerRequest {
    pub game: Option<String>,
    /// "list", "add" or "remove".
    pub action: String,
    pub player: Option<String>,
    pub kind: Option<String>,
    pub reason: Option<String>,
    pub day: Option<u32>,
    pub id: Option<String>,
}

async fn ledger(
    State(s): State<Arc<Service>>,
    Json(q): Json<LedgerRequest>,
) -> (StatusCode, String) {
    let d = &s.daemon;
    ledger_request(&d.store, &d.settings().games, &q, s.clock.now())
}

/// A `bansha ledger` request carried out on `store` at `now`: the ledger as it then stands
/// (with the ids `--remove` takes), or the status and the judge's error. The running daemon
/// answers with it; with no daemon running the CLI calls it on the record itself.
pub fn ledger_request(
    store: &crate::io::store::Store,
    games: &[crate::domain::config::GameConfig],
    q: &LedgerRequest,
    now: chrono::DateTime<chrono::FixedOffset>,
) -> (StatusCode, String) {
    let Some(game) = game_in(games, q.game.as_deref()) else {
        return (StatusCode::NOT_FOUND, "没有这个游戏\n".into());
    };
    let bad = |m: &str| (StatusCode::BAD_REQUEST, format!("{m}\n"));
    match q.action.as_str() {
        "list" => {}
        "add" => {
            let Some(player) = q.player.clone().filter(|p| game.roster.players.contains(p)) else {
                return bad("--add 需要本局玩家的名字");
            };
            let kind = q.kind.clone().unwrap_or_default();
            if !crate::domain::rules::ledger::KINDS.contains(&kind.as_str()) {
                return bad("--kind 只能是 warning、blue_card、yellow_card、red_card、lurk");
            }
            // Where missed duties are counted per day (qipan 003 L136), a warning is one missed
            // duty of its day: without the day it could not count.
            if kind == "warning"
                && q.day.is_none()
                && game.rules.discipline.duties_to_replace.is_some()
            {
                return bad("本局按天计算没有完成的环节（一天两个环节没有完成即换人），记警告请用 --day 写明是第几天");
            }
            let entry = crate::domain::rules::ledger::Entry {
                id: format!("j{}", now.timestamp_millis()),
                player,
                kind,
                day: q.day,
                reason: q.reason.clone().unwrap_or_default(),
                source: "judge".into(),
                at: now.to_rfc3339(),
                removed: false,
                duties: 0,
                withdrawn: false,
            };
            if let Err(e) = store
                .ledger_add(&game.id, &entry)
                .and(store.flush_blocking())
            {
                return (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n"));
            }
        }
        "remove" => {
            let Some(id) = &q.id else {
                return bad("--remove 需要记录编号");
            };
            match store
                .ledger_remove(&game.id, id)
                .and_then(|found| store.flush_blocking().map(|_| found))
            {
                Ok(true) => {}
                Ok(false) => return (StatusCode::NOT_FOUND, format!("没有编号为 {id} 的记录\n")),
                Err(e) => return (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")),
            }
        }
        other => return bad(&format!("未知的操作 {other}")),
    }
    match store.ledger(&game.id) {
        Ok(entries) => {
            let st = crate::domain::rules::ledger::standings(
                &entries,
                &game.roster.players,
                &game.rules.discipline,
            );
            (
                StatusCode::OK,
                crate::present::bbcode::ledger_with_ids(&entries, &st),
            )
        }
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")),
    }
}

/// The game a request names (by its name), or the first.
fn game_named(
    d: &crate::daemon::Daemon,
    name: Option<&str>,
) -> Option<crate::domain::config::GameConfig> {
    game_in(&d.settings().games, name).cloned()
}

/// The game of `games` named `name`, or the first.
fn game_in<'a>(
    games: &'a [crate::domain::config::GameConfig],
    name: Option<&str>,
) -> Option<&'a crate::domain::config::GameConfig> {
    match name {
        Some(name) => games.iter().find(|g| g.name == name),
        None => games.first(),
    }
}

#[derive(Deserialize)]
pub struct RulingRequest {
    pub game: Option<String>,
    /// "list", "add" or "remove".
    pub action: String,
    pub day: Option<u32>,
    pub pid: Option<u64>,
    pub count_for: Option<String>,
    #[serde(default)]
    pub void: bool,
    pub reason: Option<String>,
    pub id: Option<String>,
}

/// The judge's rulings on single ballots (`bansha ruling`, the dashboard's form): list, add,
/// undo; kept in the record under the game's id and applied by the next cycle's tally, which
/// this starts at once.
async fn rulings(
    State(s): State<Arc<Service>>,
    Json(q): Json<RulingRequest>,
) -> (StatusCode, String) {
    use crate::domain::rules::rulings::{lines, Ruling};
    let d = &s.daemon;
    let Some(game) = game_named(d, q.game.as_deref()) else {
        return (StatusCode::NOT_FOUND, "没有这个游戏\n".into());
    };
    let key = format!("rulings/{}", game.id);
    let mut all: Vec<Ruling> = match d.store.get_meta(&key) {
        Ok(v) => v.unwrap_or_default(),
        Err(e) => return (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")),
    };
    let bad = |m: String| (StatusCode::BAD_REQUEST, format!("{m}\n"));
    match q.action.as_str() {
        "list" => return (StatusCode::OK, lines(&all)),
        "add" => {
            let (Some(day), Some(pid)) = (q.day, q.pid) else {
                return bad("裁定需要第几天（day）和帖子编号（pid）".into());
            };
            if game.day(day).is_none() {
                return bad(format!("配置中没有第 {day} 天"));
            }
            let reason = q.reason.clone().unwrap_or_default();
            if reason.trim().is_empty() {
                return bad("裁定需要理由（公开统计里会显示）".into());
            }
            let count_for = match (&q.count_for, q.void) {
                (Some(t), false) => {
                    let t = t.trim().to_string();
                    let known = game.roster.players.contains(&t)
                        || game.rules.ballot.abstain_words.contains(&t);
                    if !known {
                        return bad(format!("{t} 不是本局玩家"));
                    }
                    Some(t)
                }
                (None, true) => None,
                _ => return bad("请选一种：按投某人计（count_for），或作废（void）".into()),
            };
            let now = s.clock.now();
            all.push(Ruling {
                id: format!("r{}", now.timestamp_millis()),
                day,
                pid,
                count_for,
                reason,
                at: now.to_rfc3339(),
                removed: false,
            });
        }
        "remove" => {
            let Some(r) = all
                .iter_mut()
                .find(|r| Some(&r.id) == q.id.as_ref() && !r.removed)
            else {
                return (
                    StatusCode::NOT_FOUND,
                    format!("没有编号为 {} 的裁定\n", q.id.clone().unwrap_or_default()),
                );
            };
            r.removed = true;
        }
        other => return bad(format!("未知的操作 {other}")),
    }
    if let Err(e) = d.store.set_meta(&key, &all).and(d.store.flush_blocking()) {
        return (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n"));
    }
    // The tally the judge looks at next has the ruling in it.
    let service = s.clone();
    tokio::spawn(async move { service.tick(true).await });
    (StatusCode::OK, lines(&all))
}

#[derive(Deserialize)]
struct TallyQuery {
    day: u32,
    game: Option<String>,
}

async fn status(State(s): State<Arc<Service>>) -> Json<Status> {
    let now = s.clock.now();
    let d = &s.daemon;
    // Separate statements: a guard held in the struct literal would deadlock `healthy()`.
    let last_cycle = s.last.lock().await.as_ref().map(|(_, r)| r.clone());
    // One read of the reload's state for the configs and the problems: a refused config and
    // its problem are shown together.
    let configs = d.reload_state();
    let problems = s.health_with(&configs).await;
    let healthy = problems.is_empty();
    Json(Status {
        watching: d
            .active_days(&d.settings(), now)
            .iter()
            .map(|(g, day)| {
                format!(
                    "{} 第{}天 投票帖 tid {}",
                    g.name,
                    day.day,
                    day.vote_thread.unwrap_or(0)
                )
            })
            .chain(d.watched_runoffs(now).iter().map(|(g, day)| {
                format!(
                    "{} 第{}天 第二轮 投票帖 tid {}（{} 截止）",
                    g.name,
                    day.day,
                    day.vote_thread.unwrap_or(0),
                    day.closes_at.format("%Y-%m-%d %H:%M")
                )
            }))
            .collect(),
        upcoming: d
            .settings()
            .games
            .iter()
            .flat_map(|g| {
                g.days.iter().filter(|x| x.opens_later(now)).map(move |x| {
                    format!(
                        "{} 第{}天 投票帖 tid {}：{} 开始监视",
                        g.name,
                        x.day,
                        x.vote_thread.unwrap_or(0),
                        x.watch_from().format("%Y-%m-%d %H:%M")
                    )
                })
            })
            .collect(),
        last_cycle,
        next_deadline: d
            .next_deadline(now)
            .map(|(t, what)| (t.format("%Y-%m-%d %H:%M:%S").to_string(), what)),
        mails_waiting: d.store.outbox().map(|q| q.len()).unwrap_or(0),
        mails_sent: d.store.sent_count(),
        failing_posts: d
            .store
            .get_meta("check_failures")
            .ok()
            .flatten()
            .unwrap_or_default(),
        healthy,
        refused_mails: refused_lines(d),
        problems: problems
            .iter()
            .map(crate::present::dashboard::problem_line)
            .collect(),
        identity: Some(Identity::of(&d.settings())),
        configs: Some(configs),
        qq_messages: crate::daemon::qq::for_judge(d),
    })
}

#[derive(Deserialize)]
struct ConfirmBody {
    game: Option<String>,
    day: u32,
    #[serde(default)]
    pardon: Vec<String>,
    #[serde(default)]
    no_pardon: bool,
}

/// `POST /confirm` (the dashboard's "确认第 N 天结果", `bansha confirm --day N` without pages):
/// the day's result written into the game state from the final the record holds.
async fn confirm(
    State(s): State<Arc<Service>>,
    Json(b): Json<ConfirmBody>,
) -> (StatusCode, String) {
    use crate::daemon::confirm::Refusal;
    match s
        .daemon
        .confirm_day(b.game.as_deref(), b.day, &b.pardon, b.no_pardon)
        .await
    {
        Ok(lines) => (StatusCode::OK, lines.join("\n") + "\n"),
        Err(Refusal::Unknown(m)) => (StatusCode::NOT_FOUND, m + "\n"),
        Err(Refusal::NotNow(m)) => (StatusCode::CONFLICT, m + "\n"),
        Err(Refusal::Ask(lines)) => (StatusCode::PRECONDITION_REQUIRED, lines.join("\n") + "\n"),
    }
}

#[derive(Deserialize)]
struct AcceptDay {
    game: String,
    day: u32,
    /// The deadline the judge gives ("2026-12-02 21:00"), else the one read from the thread.
    closes_at: Option<String>,
}

/// `POST /accept-day` (the dashboard's "开始监视" on a day found on the board): the day written
/// into the game config and taken by a reload at once.
async fn accept_day(
    State(s): State<Arc<Service>>,
    Json(b): Json<AcceptDay>,
) -> (StatusCode, String) {
    let now = s.clock.now();
    let closes_at = match b
        .closes_at
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        None => None,
        Some(t) => match crate::domain::time::parse_local_time(t, now.timezone()) {
            Ok(at) => Some(at),
            Err(e) => return (StatusCode::BAD_REQUEST, format!("截止时间 {t}：{e}\n")),
        },
    };
    match s.daemon.accept_day(&b.game, b.day, closes_at, now).await {
        Ok(text) => {
            s.tick(true).await;
            (StatusCode::OK, text + "\n")
        }
        Err(m) => (StatusCode::CONFLICT, m + "\n"),
    }
}

#[derive(Deserialize)]
struct NightBody {
    game: String,
    night: u32,
    /// "add" (the judge's entry) or "confirm".
    action: String,
    #[serde(default)]
    by: String,
    #[serde(default)]
    power: String,
    #[serde(default)]
    target: String,
    #[serde(default)]
    platform: String,
}

/// `POST /night`: the judge enters an action received elsewhere, or confirms the night.
async fn night(State(s): State<Arc<Service>>, Json(b): Json<NightBody>) -> (StatusCode, String) {
    let now = s.clock.now() + s.daemon.clock_offset();
    let d = &s.daemon;
    let answer = match b.action.as_str() {
        "add" => {
            let by: Vec<String> =
                b.by.split(['、', ',', '，', ' '])
                    .map(str::trim)
                    .filter(|x| !x.is_empty())
                    .map(String::from)
                    .collect();
            if by.is_empty() || b.power.trim().is_empty() {
                return (StatusCode::BAD_REQUEST, "要写明谁、用什么能力\n".into());
            }
            let opt = |x: &str| Some(x.trim().to_string()).filter(|x| !x.is_empty());
            let action = crate::domain::night::Action {
                by,
                power: b.power.trim().to_string(),
                target: opt(&b.target),
                platform: opt(&b.platform),
                // The judge enters what reached him by QQ or in person, often after the
                // deadline: not judged late; his own 通灵 feedback is stamped now (m103 L238).
                sent_at: crate::domain::night::entered_at(&b.power, now),
                source: format!("法官录入（{}）", now.format("%m-%d %H:%M")),
            };
            d.add_night_action(&b.game, b.night, action, now).await
        }
        "confirm" => d.confirm_night(&b.game, b.night, now).await,
        other => return (StatusCode::BAD_REQUEST, format!("未知的操作 {other}\n")),
    };
    match answer {
        Ok(text) => {
            if b.action == "confirm" {
                s.tick(true).await;
            }
            (StatusCode::OK, text + "\n")
        }
        Err(m) => (StatusCode::CONFLICT, m + "\n"),
    }
}

#[derive(Deserialize)]
struct MoveClose {
    game: String,
    day: u32,
    closes_at: String,
}

/// `POST /move-close` (the dashboard's "改为这个截止时间" when a day's first post was edited to
/// another deadline): the close written into the game config and taken at once.
async fn move_close(
    State(s): State<Arc<Service>>,
    Json(b): Json<MoveClose>,
) -> (StatusCode, String) {
    let now = s.clock.now();
    let at = match crate::domain::time::parse_local_time(b.closes_at.trim(), now.timezone()) {
        Ok(t) => t,
        Err(e) => {
            return (
                StatusCode::BAD_REQUEST,
                format!("截止时间 {}：{e}\n", b.closes_at),
            )
        }
    };
    match s.daemon.move_close(&b.game, b.day, at, now) {
        Ok(text) => {
            s.tick(true).await;
            (StatusCode::OK, text + "\n")
        }
        Err(m) => (StatusCode::CONFLICT, m + "\n"),
    }
}

/// `POST /runoff` (the dashboard's "设定第 N 天第二轮截止时间" when round 1 closed tied and the
/// rules give round 2 no time): written into the game config and taken at once.
async fn runoff(State(s): State<Arc<Service>>, Json(b): Json<MoveClose>) -> (StatusCode, String) {
    let now = s.clock.now() + s.daemon.clock_offset();
    let at = match crate::domain::time::parse_local_time(b.closes_at.trim(), now.timezone()) {
        Ok(t) => t,
        Err(e) => {
            return (
                StatusCode::BAD_REQUEST,
                format!("第二轮截止时间 {}：{e}\n", b.closes_at),
            )
        }
    };
    match s.daemon.set_runoff(&b.game, b.day, at, now) {
        Ok(text) => {
            s.tick(true).await;
            (StatusCode::OK, text + "\n")
        }
        Err(m) => (StatusCode::CONFLICT, m + "\n"),
    }
}

/// `POST /reload` (`bansha reload`): look at the config files now, take a changed one (or say
/// why not), and answer the status after that cycle.
async fn reload(State(s): State<Arc<Service>>) -> Json<Status> {
    s.daemon.ask_reload();
    s.tick(true).await;
    status(State(s)).await
}

/// The refused mails, one line each: when, subject, who refused and why.
fn refused_lines(d: &crate::daemon::Daemon) -> Vec<String> {
    let list: Vec<crate::domain::report::Refused> = d
        .store
        .get_meta("refused_mails")
        .ok()
        .flatten()
        .unwrap_or_default();
    list.iter()
        .map(crate::present::dashboard::refused_line)
        .collect()
}

async fn tally(State(s): State<Arc<Service>>, Query(q): Query<TallyQuery>) -> (StatusCode, String) {
    let d = &s.daemon;
    let Some(game) = game_named(d, q.game.as_deref()) else {
        return (StatusCode::NOT_FOUND, "没有这个游戏\n".into());
    };
    let game = match d.as_played(&game) {
        Ok(g) => g,
        Err(e) => return (StatusCode::INTERNAL_SERVER_ERROR, format!("{e:#}\n")),
    };
    let game = &game;
    let Some(day) = game.day(q.day) else {
        return (
            StatusCode::NOT_FOUND,
            format!("配置中没有第 {} 天\n", q.day),
        );
    };
    // A thread never read in full has no tally to show: an empty one would look complete.
    if let Some(tid) = day.vote_thread {
        let read = d
            .store
            .cursor(tid)
            .map(|c| c.last_full_scan.is_some())
            .unwrap_or(false);
        if !read && game.rules.vote.source != crate::domain::config::BallotSource::Poll {
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                format!("还没有读到投票帖（tid {tid}）：论坛还没能读取，暂时没有可统计的内容\n"),
            );
        }
    }
    // The tally the last cycle computed (poll and PM ballots included), when it watched the day.
    // The day's latest round (views come by game, day, round).
    if let Some(v) = d
        .views()
        .into_iter()
        .rfind(|v| v.game.name == game.name && v.day.day == q.day)
    {
        return (StatusCode::OK, bbcode(&v.game, &v.tally));
    }
    let Some(tid) = day.vote_thread else {
        return (StatusCode::NOT_FOUND, "这一天没有设置投票帖\n".into());
    };
    let now = s.clock.now();
    let at = if now >= day.closes_at {
        day.closes_at
    } else {
        now
    };
    let posts = match d.store.posts_as_of(tid, at) {
        Ok(p) => p,
        Err(e) => return (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")),
    };
    match crate::domain::rules::tally(game, q.day, 1, at, &posts) {
        Ok(t) => (StatusCode::OK, bbcode(game, &t)),
        Err(e) => (StatusCode::BAD_REQUEST, format!("{e}\n")),
    }
}

/// Start answering on the configured loopback address; returns the address really bound (the
/// system's port when the configured one is 0).
pub async fn serve(service: Arc<Service>) -> anyhow::Result<std::net::SocketAddr> {
    let addr = service.daemon.settings().status.listen.clone();
    let listener = crate::io::listen::bind(&addr).await?;
    // Where the judge opens the dashboard (the token goes as ?token=… when one is set): the
    // address really bound, so `listen = "127.0.0.1:0"` shows the port the system gave.
    let bound = listener.local_addr()?;
    crate::io::log::line(&format!(
        "仪表盘（dashboard）：http://{bound}/{}",
        if service.daemon.settings().status_token.is_some() {
            "?token=…"
        } else {
            ""
        }
    ));
    let app = router(service);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(bound)
}

/// What the dashboard answers, with its guard: `serve` puts it on the socket; a simulation
/// sends it requests in process (the judge's clicks, without a socket).
pub fn router(service: Arc<Service>) -> Router {
    Router::new()
        .route("/", get(dashboard))
        .route("/timeline.svg", get(timeline_svg))
        .route("/status", get(status))
        .route("/reload", axum::routing::post(reload))
        .route("/confirm", axum::routing::post(confirm))
        .route("/accept-day", axum::routing::post(accept_day))
        .route("/night", axum::routing::post(night))
        .route("/move-close", axum::routing::post(move_close))
        .route("/runoff", axum::routing::post(runoff))
        .route("/tally", get(tally))
        .route("/ledger", axum::routing::post(ledger))
        .route("/rulings", axum::routing::post(rulings))
        .route("/post-tally", axum::routing::post(post_tally))
        .route(
            "/qq-reply",
            axum::routing::post(crate::daemon::qq::send_draft),
        )
        .layer(axum::middleware::from_fn_with_state(service.clone(), guard))
        // The QQ bot's events: outside the guard (the bot sends neither the dashboard's token
        // nor X-Bansha), checked by their X-Signature instead (`daemon::qq::event`).
        .route("/onebot", axum::routing::post(crate::daemon::qq::event))
        .with_state(service)
}

/// Every request carries the token when one is configured.
async fn guard(
    State(s): State<Arc<Service>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    // DNS rebinding: a page elsewhere whose name now points here sends its own Host. Without
    // a token (a loopback dashboard) only the names the dashboard is reached by are answered,
    // and a request that says it comes from another site (Origin) is refused. With a token,
    // every request carries it, which no other site has.
    let status = &s.daemon.settings().status;
    let open = s.daemon.settings().status_token.is_none();
    let host = req
        .headers()
        .get(axum::http::header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if open && !allowed_host(host, &status.listen, &status.hosts) {
        return (StatusCode::FORBIDDEN, "拒绝：未知的主机名（Host）\n").into_response();
    }
    if let Some(origin) = req
        .headers()
        .get(axum::http::header::ORIGIN)
        .and_then(|v| v.to_str().ok())
        .filter(|_| open)
    {
        let origin_host = origin
            .split_once("://")
            .map_or(origin, |(_, rest)| rest)
            .trim_end_matches('/');
        if !allowed_host(origin_host, &status.listen, &status.hosts) {
            return (StatusCode::FORBIDDEN, "拒绝：来自其他网站的请求\n").into_response();
        }
    }
    // A change (a ruling, a ledger entry, a post to the forum) carries a header a page on
    // another site cannot send without the daemon's leave (CORS, which it never gives): a
    // cross-site form or `fetch` without it is refused even where the browser sends no Origin.
    if req.method() == axum::http::Method::POST && !req.headers().contains_key("x-bansha") {
        return (
            StatusCode::FORBIDDEN,
            "拒绝：请求缺少 X-Bansha 头（仪表盘和 bansha 命令会带上；其他网站的请求不会）\n",
        )
            .into_response();
    }
    if let Some(token) = &s.daemon.settings().status_token {
        let bearer = req
            .headers()
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::to_string);
        let query = req.uri().query().and_then(|q| {
            q.split('&')
                .find_map(|kv| kv.strip_prefix("token="))
                .map(str::to_string)
        });
        let given = bearer.or(query).unwrap_or_default();
        if !constant_time_eq(given.as_bytes(), token.expose().as_bytes()) {
            return (StatusCode::UNAUTHORIZED, "需要令牌（token）\n").into_response();
        }
    }
    crate::io::state_file::reading(next.run(req)).await
}

/// Whether a Host (or Origin) value names this dashboard: a loopback name, the address it
/// listens on, or one of `[status] hosts`. The port is not compared (a rebinding page uses the
/// same one).
fn allowed_host(value: &str, listen: &str, hosts: &[String]) -> bool {
    let name = |v: &str| -> String {
        let v = v.trim();
        let name = if let Some(rest) = v.strip_prefix('[') {
            rest.split(']').next().unwrap_or("")
        } else {
            v.rsplit_once(':').map_or(v, |(n, _)| n)
        };
        name.to_ascii_lowercase()
    };
    let n = name(value);
    if n.is_empty() {
        return false;
    }
    ["127.0.0.1", "localhost", "::1"].contains(&n.as_str())
        || n == name(listen)
        || hosts.iter().any(|h| name(h) == n)
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[derive(Deserialize)]
struct DayQuery {
    day: u32,
    game: Option<String>,
}

async fn timeline_svg(
    State(s): State<Arc<Service>>,
    Query(q): Query<DayQuery>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let views = s.daemon.views();
    let view = views
        .iter()
        .rfind(|v| v.day.day == q.day && q.game.as_ref().is_none_or(|g| &v.game.name == g));
    match view {
        Some(v) => (
            [(
                axum::http::header::CONTENT_TYPE,
                "image/svg+xml; charset=utf-8",
            )],
            crate::present::dashboard::day_svg(v),
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "这一天不在监视中\n").into_response(),
    }
}

/// The judge's state file of each game, where there is one and it reads.
fn game_states(
    d: &crate::daemon::Daemon,
) -> std::collections::BTreeMap<String, crate::domain::rules::state::GameState> {
    let mut states = std::collections::BTreeMap::new();
    for g in &d.settings().games {
        let path = crate::io::state_file::state_path(&g.path, None);
        if path.exists() {
            if let Ok(state) = crate::io::state_file::load_state(&path) {
                states.insert(g.name.clone(), state);
            }
        }
    }
    states
}

/// The open nights as the dashboard shows them.
fn night_views(
    d: &crate::daemon::Daemon,
    now: chrono::DateTime<chrono::FixedOffset>,
) -> Vec<crate::present::dashboard::NightView> {
    d.open_nights(now)
        .into_iter()
        .map(|n| crate::present::dashboard::NightView {
            game: n.game.name.clone(),
            night: n.night,
            // The last limit of whoever still owes an action (m103's 太医, 002 L238).
            deadline: d.settles_at(&n),
            actions: n
                .record
                .actions
                .iter()
                .map(crate::present::night::action)
                .collect(),
            unread: n.record.unread.clone(),
            draft: d.draft_of(&n, now),
            overdue: n.overdue.map(|t| (n.night + 1, t)),
        })
        .collect()
}

/// Each game's discipline ledger as BBCode, with its standings.
fn ledgers(d: &crate::daemon::Daemon) -> std::collections::BTreeMap<String, String> {
    d.settings()
        .games
        .iter()
        .filter_map(|g| {
            let entries = d.store.ledger(&g.id).ok()?;
            let st = crate::domain::rules::ledger::standings(
                &entries,
                &g.roster.players,
                &g.rules.discipline,
            );
            Some((
                g.name.clone(),
                crate::present::bbcode::ledger(&entries, &st),
            ))
        })
        .collect()
}

/// The dashboard, from the last cycle's views and what the record holds.
async fn dashboard(State(s): State<Arc<Service>>) -> axum::response::Html<String> {
    let now = s.clock.now();
    let d = &s.daemon;
    let last = s.last.lock().await.as_ref().map(|(_, r)| r.clone());
    let problems = s.health().await;
    let views = d.views();
    let failing = d.failing_threads();
    let states = game_states(d);
    let page = crate::present::dashboard::page(&crate::present::dashboard::Dashboard {
        now,
        last,
        problems,
        failing,
        outbox: d
            .store
            .outbox()
            .unwrap_or_default()
            .into_iter()
            .map(|(_, m)| (m.created_at, m.subject))
            .collect(),
        checks: d
            .store
            .get_meta("check_failures")
            .ok()
            .flatten()
            .unwrap_or_default(),
        qq: crate::daemon::qq::for_judge(d),
        qq_drafts: crate::daemon::qq::drafts(d),
        sent: d.store.sent_count(),
        refused: refused_lines(d),
        games: &d.settings().games,
        views,
        forum_base: &d.settings().forum.base_url,
        states,
        to_confirm: d.to_confirm(),
        nights: night_views(d, now),
        moves: d.deadline_moves(now),
        runoffs: d
            .runoff_asks()
            .into_iter()
            .map(|a| (a.game, a.day, a.candidates))
            .collect(),
        found_days: d
            .proposals()
            .into_iter()
            .map(|p| crate::present::dashboard::FoundDayView {
                game: p.game,
                day: p.found.day,
                words: p.words,
                closes_at: p.closes_at,
            })
            .collect(),
        days: d.day_statuses(now),
        ledgers: ledgers(d),
        rulings: d
            .settings()
            .games
            .iter()
            .map(|g| {
                let list = d
                    .store
                    .get_meta(&format!("rulings/{}", g.id))
                    .ok()
                    .flatten()
                    .unwrap_or_default();
                (g.name.clone(), list)
            })
            .collect(),
        post_as: (d.settings().forum.post_tally != crate::domain::settings::PostTally::Off)
            .then(|| d.settings().login.as_ref().map(|l| l.username.clone()))
            .flatten(),
        posted: d
            .settings()
            .games
            .iter()
            .map(|g| (g.name.clone(), d.posted_tallies(&g.id)))
            .collect(),
    });
    axum::response::Html(page)
}

#[derive(Deserialize)]
struct PostTallyRequest {
    game: String,
    day: u32,
    /// The BBCode the dashboard showed the judge.
    bbcode: String,
}

/// The dashboard's "发到投票帖" button: the tally the judge was shown, posted as their reply.
async fn post_tally(
    State(s): State<Arc<Service>>,
    Json(q): Json<PostTallyRequest>,
) -> (StatusCode, String) {
    let now = s.clock.now();
    match s.daemon.post_tally(&q.game, q.day, &q.bbcode, now).await {
        Ok(p) => (
            StatusCode::OK,
            format!("已发到投票帖：{}（pid {}）\n", p.floor, p.pid),
        ),
        Err(crate::daemon::reply::PostError::Refused(code, m)) => (
            StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_REQUEST),
            format!("{m}\n"),
        ),
        Err(crate::daemon::reply::PostError::Forum(m)) => {
            (StatusCode::BAD_GATEWAY, format!("没有发出：{m}\n"))
        }
    }
}
