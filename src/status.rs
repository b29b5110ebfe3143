//! The running daemon answers on a loopback address: `GET /status` (what it watches, the last
//! cycle, the next deadline, queued mail) and `GET /tally?day=N[&game=NAME]` (the live tally as
//! BBCode). CLI commands ask here instead of opening the store, which sled locks.

use crate::schedule::Service;
use crate::tally_cmd::bbcode;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Debug, Serialize, Deserialize)]
pub struct Status {
    pub watching: Vec<String>,
    pub last_cycle: Option<crate::daemon::CycleReport>,
    pub next_deadline: Option<(String, String)>,
    pub mails_waiting: usize,
    pub mails_sent: usize,
    pub healthy: bool,
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
    let healthy = s.healthy().await;
    Json(Status {
        watching: d
            .active_days(now)
            .iter()
            .map(|(g, day)| {
                format!(
                    "{} 第{}天 投票帖 tid {}",
                    g.name,
                    day.day,
                    day.vote_thread.unwrap_or(0)
                )
            })
            .collect(),
        last_cycle,
        next_deadline: d
            .next_deadline(now)
            .map(|(t, what)| (t.format("%Y-%m-%d %H:%M:%S").to_string(), what)),
        mails_waiting: d.store.outbox().map(|q| q.len()).unwrap_or(0),
        mails_sent: d.store.sent_count(),
        healthy,
    })
}

async fn tally(State(s): State<Arc<Service>>, Query(q): Query<TallyQuery>) -> (StatusCode, String) {
    let d = &s.daemon;
    let game = match &q.game {
        Some(name) => d.settings.games.iter().find(|g| &g.name == name),
        None => d.settings.games.first(),
    };
    let Some(game) = game else {
        return (StatusCode::NOT_FOUND, "没有这个游戏\n".into());
    };
    let Some(day) = game.day(q.day) else {
        return (
            StatusCode::NOT_FOUND,
            format!("配置中没有第 {} 天\n", q.day),
        );
    };
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
    match crate::rules::tally(game, q.day, 1, at, &posts) {
        Ok(t) => (StatusCode::OK, bbcode(game, &t)),
        Err(e) => (StatusCode::BAD_REQUEST, format!("{e}\n")),
    }
}

/// Start answering on the configured loopback address.
pub async fn serve(service: Arc<Service>) -> anyhow::Result<()> {
    let addr = service.daemon.settings.status.listen.clone();
    let listener = tokio::net::TcpListener::bind(&addr)
        .await
        .map_err(|e| anyhow::anyhow!("status.listen {addr}: {e}"))?;
    let app = Router::new()
        .route("/status", get(status))
        .route("/tally", get(tally))
        .with_state(service);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(())
}
