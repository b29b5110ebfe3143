//! The judge's QQ, both ways (issue 35), beside the mail and independent of it.
//!
//! Out: before the mail queue is sent, each newly queued mail of a kind `[qq] send` names also
//! becomes a short QQ message to each judge (`mirror`), and a final tally's published BBCode a
//! group message when `[qq] group` is set. The QQ queue is kept in the record and sent in order,
//! once, after the mails (`deliver`): a bot that is down or times out holds the QQ queue, a
//! failed retcode holds that target's messages; the mails never wait for QQ. A channel failing
//! `alert_after` times in a row is mailed to the judge once per streak and shown on the
//! dashboard. A timeout after the bot took the request leaves the message queued: it is sent
//! again at the next cycle (OneBot has no idempotency key), so it can arrive twice, never lost.
//!
//! In: `event`, the bot's event POSTs (`/onebot` on the dashboard's listener, outside its token
//! guard: the bot authenticates by `X-Signature`). Every message is kept in the record with its
//! time; a mapped player's proxy vote goes into that day's tally (`with_proxies`), a night
//! action is kept for the night (`night_actions`), anything else is listed for the judge.

use crate::daemon::cycle::Daemon;
use crate::daemon::service::Service;
use crate::domain::qq::{self as q, Inbound, Kind, Outgoing, Streak, Target};
use crate::domain::settings::QqSettings;
use crate::io::qq::{Qq, SendError};
use crate::present::qq as words;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, FixedOffset};
use std::collections::BTreeSet;
use std::sync::Arc;

type Time = DateTime<FixedOffset>;

/// The QQ queue, oldest first (`Vec<Outgoing>`).
const OUTBOX: &str = "qq/outbox";
/// The keys of the QQ messages the bot took.
const SENT: &str = "qq/sent";
/// The mail keys already looked at for QQ.
const MIRRORED: &str = "qq/mirrored";
/// Every message the bot delivered (`Vec<Inbound>`), in arrival order.
const INBOX: &str = "qq/inbox";
/// Replies drafted and not enabled in `[qq] replies`: they wait for the judge.
const DRAFTS: &str = "qq/drafts";
/// The current failure streak.
const STREAK: &str = "qq/streak";

/// The bot's side of a running daemon (`io::qq::Qq`), through the daemon's own methods: the
/// cycle and the service call these, so the import goes one way (this module → the cycle).
impl Daemon {
    pub(crate) fn qq_with_proxies(&self, g: &mut Arc<crate::domain::config::GameConfig>) {
        with_proxies(self, g)
    }
    pub(crate) async fn qq_deliver(&self, now: Time, errors: &mut Vec<String>) -> (usize, usize) {
        deliver(self, now, errors).await
    }
    pub(crate) fn qq_mirror(&self, now: Time) -> anyhow::Result<usize> {
        mirror(self, now)
    }
    pub fn qq_failing(&self) -> Option<String> {
        failing(self)
    }
}

fn dashboard_url(d: &Daemon) -> String {
    format!("http://{}/", d.settings().status.listen)
}

/// Turn the newly queued mails of the kinds `[qq] send` names into QQ messages (before the mails
/// go, so every mail is seen once while queued). Returns how many messages were queued.
pub fn mirror(d: &Daemon, now: Time) -> anyhow::Result<usize> {
    let Some(qq) = &d.qq else { return Ok(0) };
    let _g = qq.guard();
    let mut seen: BTreeSet<String> = d.store.get_meta(MIRRORED)?.unwrap_or_default();
    let mut out: Vec<Outgoing> = d.store.get_meta(OUTBOX)?.unwrap_or_default();
    let before = out.len();
    let s = &qq.settings;
    for (key, mail) in d.store.outbox()? {
        if !seen.insert(key.clone()) {
            continue;
        }
        // The QQ channel's own failure notice goes by mail only.
        if key.starts_with("qqfail/") {
            continue;
        }
        let Some(kind) = Kind::of_mail_key(&key) else {
            continue;
        };
        if !s.send.contains(&kind) {
            continue;
        }
        let text = words::short(&mail, &dashboard_url(d));
        for judge in &s.judges {
            push_parts(&mut out, &key, Target::Private(*judge), &text, s, now);
        }
        // A group gets only what the rules publish: the final tally's BBCode.
        if let (Kind::Final, Some(group)) = (kind, s.group) {
            if let Some(t) = words::group_tally(&mail) {
                push_parts(&mut out, &key, Target::Group(group), &t, s, now);
            }
        }
    }
    let queued = out.len() - before;
    d.store.set_meta(MIRRORED, &seen)?;
    d.store.set_meta(OUTBOX, &out)?;
    Ok(queued)
}

fn push_parts(
    out: &mut Vec<Outgoing>,
    key: &str,
    target: Target,
    text: &str,
    s: &QqSettings,
    now: Time,
) {
    let tkey = match target {
        Target::Private(n) => format!("p{n}"),
        Target::Group(n) => format!("g{n}"),
    };
    for (i, part) in q::split(text, s.max_chars).into_iter().enumerate() {
        out.push(Outgoing {
            key: format!("{key}\u{1f}{tkey}\u{1f}{i}"),
            target,
            text: part,
            queued_at: now,
        });
    }
}

/// Send the QQ queue in order, each message once. Returns (sent, still waiting).
pub async fn deliver(d: &Daemon, now: Time, errors: &mut Vec<String>) -> (usize, usize) {
    let Some(qq) = &d.qq else { return (0, 0) };
    let queue: Vec<Outgoing> = {
        let _g = qq.guard();
        d.store.get_meta(OUTBOX).ok().flatten().unwrap_or_default()
    };
    let mut held: BTreeSet<String> = BTreeSet::new();
    let mut sent = 0;
    for m in &queue {
        let target = m.target.to_string();
        if held.contains(&target) {
            continue;
        }
        match qq.bot.send(m.target, &m.text).await {
            Ok(()) => {
                if let Err(e) = done(d, qq, &m.key) {
                    errors.push(format!("qq: {e}"));
                    break;
                }
                sent += 1;
            }
            Err(e) => {
                errors.push(format!("qq: {target}: {e}"));
                failed(d, qq, &e, now, errors);
                match e {
                    // The bot: nothing more goes until the next cycle.
                    SendError::Down(_) | SendError::Timeout => break,
                    // This target only (a group the bot left, a stranger).
                    SendError::Failed(_) => {
                        held.insert(target);
                    }
                }
            }
        }
    }
    if sent > 0 && held.is_empty() {
        let _g = qq.guard();
        if d.store.get_meta::<Streak>(STREAK).ok().flatten().is_some() {
            let _ = d.store.remove_meta(STREAK);
        }
    }
    let _ = d.store.flush().await;
    let waiting = {
        let _g = qq.guard();
        d.store
            .get_meta::<Vec<Outgoing>>(OUTBOX)
            .ok()
            .flatten()
            .map_or(0, |v| v.len())
    };
    (sent, waiting)
}

/// The bot took a message: out of the queue, into the sent keys.
fn done(d: &Daemon, qq: &Qq, key: &str) -> anyhow::Result<()> {
    let _g = qq.guard();
    let mut out: Vec<Outgoing> = d.store.get_meta(OUTBOX)?.unwrap_or_default();
    out.retain(|m| m.key != key);
    let mut sent: BTreeSet<String> = d.store.get_meta(SENT)?.unwrap_or_default();
    sent.insert(key.to_string());
    d.store.set_meta(SENT, &sent)?;
    d.store.set_meta(OUTBOX, &out)?;
    Ok(())
}

/// One more failure in the streak; the judge is mailed once per streak.
fn failed(d: &Daemon, qq: &Qq, e: &SendError, now: Time, errors: &mut Vec<String>) {
    let _g = qq.guard();
    let mut s: Streak = d.store.get_meta(STREAK).ok().flatten().unwrap_or_default();
    let tell = s.failed(e.to_string(), now, qq.settings.alert_after);
    if let Err(e) = d.store.set_meta(STREAK, &s) {
        errors.push(format!("qq: {e}"));
    }
    if tell {
        let since = s.since.unwrap_or(now).timestamp();
        let mail = words::failing_mail(&qq.settings.api, &s, now);
        if let Err(e) = d.store.enqueue(&format!("qqfail/{since}"), &mail) {
            errors.push(format!("qq: {e}"));
        }
    }
}

/// The dashboard's and status's line about a failing QQ channel (none while it works).
pub fn failing(d: &Daemon) -> Option<String> {
    let qq = d.qq.as_ref()?;
    let s: Streak = d.store.get_meta(STREAK).ok().flatten()?;
    (s.count >= qq.settings.alert_after).then(|| words::failing_line(&s))
}

/// Every message the bot delivered, in arrival order.
pub fn inbox(d: &Daemon) -> Vec<Inbound> {
    d.store.get_meta(INBOX).ok().flatten().unwrap_or_default()
}

/// The messages the judge must read himself, one line each (dashboard, `bansha status`).
pub fn for_judge(d: &Daemon) -> Vec<String> {
    inbox(d)
        .iter()
        .filter(|m| m.for_judge())
        .map(words::unread_line)
        .collect()
}

/// The replies drafted and not sent (their kind not in `[qq] replies`): (key, to, text).
pub fn drafts(d: &Daemon) -> Vec<(String, String, String)> {
    d.store
        .get_meta::<Vec<Outgoing>>(DRAFTS)
        .ok()
        .flatten()
        .unwrap_or_default()
        .into_iter()
        .map(|m| (m.key, m.target.to_string(), m.text))
        .collect()
}

#[derive(serde::Deserialize)]
pub struct SendDraft {
    pub key: String,
}

/// `POST /qq-reply {key}` (the dashboard's button, behind its guard): the judge sends a drafted
/// reply; it joins the QQ queue and goes with the next cycle.
pub async fn send_draft(
    State(s): State<Arc<Service>>,
    axum::Json(q): axum::Json<SendDraft>,
) -> (StatusCode, String) {
    let d = &s.daemon;
    let Some(qq) = &d.qq else {
        return (StatusCode::NOT_FOUND, "没有配置 [qq]\n".into());
    };
    let moved = (|| -> anyhow::Result<bool> {
        let _g = qq.guard();
        let mut drafts: Vec<Outgoing> = d.store.get_meta(DRAFTS)?.unwrap_or_default();
        let Some(i) = drafts.iter().position(|m| m.key == q.key) else {
            return Ok(false);
        };
        let m = drafts.remove(i);
        let mut out: Vec<Outgoing> = d.store.get_meta(OUTBOX)?.unwrap_or_default();
        out.push(m);
        d.store.set_meta(OUTBOX, &out)?;
        d.store.set_meta(DRAFTS, &drafts)?;
        Ok(true)
    })();
    match moved {
        Ok(true) => match d.store.flush().await {
            Ok(()) => (StatusCode::OK, "已排入 QQ 发送队列，下一轮发出\n".into()),
            Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")),
        },
        Ok(false) => (
            StatusCode::NOT_FOUND,
            "没有这条草稿（可能已经发出）\n".into(),
        ),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")),
    }
}

/// The game with the proxy votes QQ brought added to its days (`Daemon::as_played` calls it,
/// so every pass that tallies counts them).
/// They stay counted when `[qq]` is later taken out: they are in the record.
pub fn with_proxies(d: &Daemon, g: &mut Arc<crate::domain::config::GameConfig>) {
    // The shared game is copied only when there is a proxy to add.
    for (day, p) in q::proxies(&inbox(d), g) {
        if let Some(dc) = Arc::make_mut(g).days.iter_mut().find(|x| x.day == day) {
            dc.proxies.push(p);
        }
    }
}

/// The night actions the players of game `game` (its id) sent by QQ in `[from, to)`, for the
/// night resolver.
pub fn night_actions(
    d: &Daemon,
    game: &str,
    from: Time,
    to: Time,
) -> Vec<crate::domain::night::Action> {
    q::night_actions(&inbox(d), game, from, to)
}

/// `POST /onebot`: an event from the bot. 401 without a signature, 403 with a wrong one (when
/// `[qq]` has an event secret), 400 for a body that is no event; 204 otherwise (no quick
/// operation: replies go through the queue).
pub async fn event(
    State(s): State<Arc<Service>>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let d = &s.daemon;
    let Some(qq) = &d.qq else {
        return (StatusCode::NOT_FOUND, "没有配置 [qq]\n").into_response();
    };
    // A bot posts JSON and sends no Origin. A web page can send neither without the daemon's
    // leave (CORS, never given), so without an event secret no page can forge an event.
    if headers.contains_key(axum::http::header::ORIGIN) {
        return (StatusCode::FORBIDDEN, "拒绝：来自网页的请求\n").into_response();
    }
    let json = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("application/json"));
    if !json {
        return (
            StatusCode::NOT_ACCEPTABLE,
            "事件必须是 JSON（Content-Type: application/json）\n",
        )
            .into_response();
    }
    if let Some(secret) = &qq.settings.event_secret {
        let sig = headers.get("x-signature").and_then(|v| v.to_str().ok());
        match q::verify_signature(secret.expose().as_bytes(), &body, sig) {
            Ok(()) => {}
            Err(q::SignatureError::Missing) => {
                return (StatusCode::UNAUTHORIZED, "缺少 X-Signature\n").into_response()
            }
            Err(q::SignatureError::Wrong) => {
                return (StatusCode::FORBIDDEN, "X-Signature 不对\n").into_response()
            }
        }
    }
    let e = match q::parse_event(&body) {
        Ok(e) => e,
        Err(m) => return (StatusCode::BAD_REQUEST, format!("{m}\n")).into_response(),
    };
    let now = s.clock.now() + d.clock_offset();
    let settings = d.settings();
    let offset = settings
        .games
        .first()
        .map(|g| g.utc_offset)
        .unwrap_or(*now.offset());
    let Some(m) = Inbound::of_event(&e, &settings.games, offset, now) else {
        return StatusCode::NO_CONTENT.into_response();
    };
    match keep(d, qq, m, now) {
        Ok(()) => {}
        Err(e) => {
            crate::io::log::line(&format!("QQ 消息未能保存：{e}"));
            return (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")).into_response();
        }
    }
    if let Err(e) = d.store.flush().await {
        return (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")).into_response();
    }
    StatusCode::NO_CONTENT.into_response()
}

/// The `[checks.kill]` verdict on a kill post sent by QQ, with the code names of the day it
/// follows (the last day closed when it was sent); None where the rules check no kill posts.
fn kill_check(
    g: &crate::domain::config::GameConfig,
    m: &Inbound,
) -> Option<crate::domain::rules::checks::PostVerdict> {
    let rule = g.rules.checks.get("kill")?;
    let day = g
        .days
        .iter()
        .filter(|d| d.closes_at <= m.at)
        .max_by_key(|d| d.closes_at)
        .or(g.days.first())?;
    Some(crate::domain::rules::checks::check_post(
        rule,
        &m.text,
        &[],
        &day.code_names,
        (false, false),
        &[],
    ))
}

/// Keep a message in the record (once: the bot repeats a POST it got no answer to); queue the
/// reply the judge enabled (else keep its draft); mail the judge one he must read himself.
fn keep(d: &Daemon, qq: &Qq, m: Inbound, now: Time) -> anyhow::Result<()> {
    let _g = qq.guard();
    let mut inbox: Vec<Inbound> = d.store.get_meta(INBOX)?.unwrap_or_default();
    if inbox.iter().any(|x| x.same(&m)) {
        return Ok(());
    }
    inbox.push(m.clone());
    d.store.set_meta(INBOX, &inbox)?;
    crate::io::log::line(&format!(
        "QQ：收到 {} 的消息，时间 {}（{:?}）",
        m.user_id,
        m.at.to_rfc3339(),
        m.reading
    ));
    if m.for_judge() {
        d.store
            .enqueue(&format!("qqmsg/{}", m.key()), &words::unread_mail(&m, now))?;
        return Ok(());
    }
    if m.group_id.is_some() {
        return Ok(());
    }
    if let (Some(p), q::Reading::KillPost { .. }) = (&m.player, &m.reading) {
        // A kill post by QQ (004 L60) is checked as one in the forum's kill-post thread is.
        let verdict = d
            .settings()
            .games
            .iter()
            .find(|g| g.id == p.game)
            .and_then(|g| kill_check(g, &m));
        d.store.enqueue(
            &format!("qqkill/{}", m.key()),
            &words::kill_post_mail(&m, verdict.as_ref(), now),
        )?;
    }
    if let Some((kind, text)) = words::reply(&m) {
        let reply = Outgoing {
            key: format!("reply/{}", m.key()),
            target: Target::Private(m.user_id),
            text,
            queued_at: now,
        };
        let which = if qq.settings.replies.contains(&kind) {
            OUTBOX
        } else {
            DRAFTS
        };
        let mut list: Vec<Outgoing> = d.store.get_meta(which)?.unwrap_or_default();
        list.push(reply);
        d.store.set_meta(which, &list)?;
    }
    Ok(())
}
