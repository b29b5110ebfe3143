//! The judge's dashboard page (`GET /` of the running daemon): fetch health, pending alerts,
//! and per game the next deadline, each watched day's phase, tally, timeline and 潜水 counts, and
//! the judge's record with roles (judge-only). Drawn from what the last cycle computed and what
//! the record holds, gathered by `daemon::http`; it counts nothing itself.

use crate::domain::config::GameConfig;
use crate::domain::report::{CycleReport, DayView};
use crate::domain::rules::state::GameState;
use crate::present::html::{esc, time_left};
use chrono::{DateTime, FixedOffset};
use std::collections::BTreeMap;

type Time = DateTime<FixedOffset>;

/// Everything the page shows.
pub struct Dashboard<'a> {
    pub now: Time,
    /// The last cycle's report.
    pub last: Option<CycleReport>,
    /// The service's health: its problems (none: healthy), the same value `bansha status` shows.
    pub problems: Vec<crate::domain::report::Problem>,
    /// Threads of the watched days that cannot be read, since when.
    pub failing: Vec<(u64, Time)>,
    /// Mails not yet accepted by the server: when queued, subject.
    pub outbox: Vec<(Time, String)>,
    /// Required posts that failed their checks.
    pub checks: Vec<String>,
    /// QQ messages the judge must read himself (`daemon::qq::for_judge`).
    pub qq: Vec<String>,
    /// Replies to players drafted and not sent: (key, to whom, text), each with its button.
    pub qq_drafts: Vec<(String, String, String)>,
    pub sent: usize,
    /// Mails the SMTP server refused for good (`refused_line`).
    pub refused: Vec<String>,
    pub games: &'a [GameConfig],
    pub views: Vec<DayView>,
    pub forum_base: &'a str,
    /// The judge's recorded state, by game name, where a state file reads.
    pub states: BTreeMap<String, GameState>,
    /// The judge's rulings on single ballots, by game name.
    pub rulings: BTreeMap<String, Vec<crate::domain::rules::rulings::Ruling>>,
    /// The forum account tallies are posted as, when the config allows posting them
    /// (`[forum] post_tally = "button"`).
    pub post_as: Option<String>,
    /// The tallies posted from the dashboard, by game name.
    pub posted: BTreeMap<String, Vec<crate::domain::reply::PostedTally>>,
    /// Days whose final waits for the judge's confirmation.
    pub to_confirm: Vec<crate::domain::report::ToConfirm>,
    /// Where each configured day stands.
    pub days: Vec<crate::domain::report::DayStatus>,
    /// Days found on the board, waiting for the judge.
    pub found_days: Vec<FoundDayView>,
    /// Running days whose first post now says another deadline: (game, day, read, words).
    pub moves: Vec<(String, u32, Time, String)>,
    /// Round 1 closed tied and the rules give round 2 no time: (game, day, candidates).
    pub runoffs: Vec<(String, u32, Vec<String>)>,
    /// The nights open now.
    pub nights: Vec<NightView>,
    /// The discipline ledger, by game name, as the judge reads it.
    pub ledgers: BTreeMap<String, String>,
}

/// An open night, as the dashboard shows it.
pub struct NightView {
    pub game: String,
    pub night: u32,
    pub deadline: Option<Time>,
    /// The actions received, one line each.
    pub actions: Vec<String>,
    /// Messages that read as no action.
    pub unread: Vec<String>,
    /// The resolution as it stands (judge-only text), or why it cannot be drawn.
    pub draft: Result<crate::domain::night::Resolution, String>,
    /// (the next day, its last close) when that close passed with the night unconfirmed.
    pub overdue: Option<(u32, Time)>,
}

/// A day found on the board, as the dashboard offers it.
pub struct FoundDayView {
    pub game: String,
    pub day: u32,
    /// "发现第 3 天的投票帖 tid 57，截止 12-02 21:00：开始监视？" (or why the deadline is asked).
    pub words: String,
    /// The deadline read for sure, if one was.
    pub closes_at: Option<Time>,
}

/// A watched day's timeline as SVG (the dashboard shows it inline and at `/timeline.svg`).
pub fn day_svg(v: &DayView) -> String {
    crate::present::chart::svg(
        &format!("{} 第{}天 投票时间线", v.game.name, v.day.day),
        &crate::domain::rules::timeline::of(&v.tally),
        v.tally.lock_from,
    )
}

/// The phase of a watched day at `now`, in Chinese.
fn phase(v: &DayView, now: Time) -> &'static str {
    if now >= v.day.closes_at {
        "已截止"
    } else if v.tally.lock_from.is_some_and(|l| now >= l) {
        "锁定时段（不得改票）"
    } else if v.day.opens_at.is_some_and(|o| now < o) {
        "尚未开始"
    } else {
        "投票中"
    }
}

/// The judge's dashboard page.
pub fn page(d: &Dashboard) -> String {
    let now = d.now;
    let healthy = d.problems.is_empty();
    let last = &d.last;
    let fmt = |t: chrono::DateTime<chrono::FixedOffset>| t.format("%Y-%m-%d %H:%M:%S").to_string();
    let mut h = String::new();
    h += &format!(
        "<h1 style=\"margin:0 0 4px 0\">bansha 法官仪表盘</h1>\n<p style=\"color:#666;margin:0 0 12px 0\">仅法官可见（可能显示身份）。现在 {}，每分钟自动刷新。</p>\n",
        fmt(now)
    );

    // Fetch health.
    h += "<section id=\"health\"><h2>抓取状态</h2>\n";
    match &last {
        Some(r) => {
            h += &format!(
                "<p>{}　上次轮询 {}：{} 次请求，新帖 {}，编辑 {}，邮件待发 {}</p>\n",
                if healthy {
                    "<b style=\"color:#1a7f37\">正常</b>"
                } else {
                    "<b style=\"color:#c62828\">有问题</b>"
                },
                r.at.map(fmt).unwrap_or_default(),
                r.requests,
                r.new_posts,
                r.edited_posts,
                r.mails_waiting
            );
            if !r.errors.is_empty() {
                h += "<ul class=\"errors\">\n";
                for e in &r.errors {
                    h += &format!("<li>{}</li>\n", esc(e));
                }
                h += "</ul>\n";
            }
        }
        None => h += "<p><b style=\"color:#c62828\">有问题</b>　尚未完成第一次轮询。</p>\n",
    }
    // The problems the errors and the failing threads below do not already say.
    use crate::domain::report::Problem;
    for p in d.problems.iter().filter(|p| {
        !matches!(
            p,
            Problem::Errors { .. } | Problem::Unreadable { .. } | Problem::NoCycle
        )
    }) {
        h += &format!("<p style=\"color:#c62828\">{}</p>\n", esc(&problem_line(p)));
    }
    let mut failing: Vec<String> = d
        .failing
        .iter()
        .map(|(tid, since)| format!("tid {tid} 自 {} 起无法读取", fmt(*since)))
        .collect();
    failing.sort();
    failing.dedup();
    for f in failing {
        h += &format!("<p style=\"color:#c62828\">{}</p>\n", esc(&f));
    }
    h += "</section>\n";

    h += &waiting_html(&d.to_confirm, &d.found_days, &d.moves, &d.runoffs);
    for n in &d.nights {
        h += &night_html(n, d.now);
    }

    // Pending alerts: mails not yet accepted by the server, and required posts that failed.
    h += "<section id=\"alerts\"><h2>待处理提醒</h2>\n";
    let outbox = &d.outbox;
    let checks = &d.checks;
    if outbox.is_empty()
        && checks.is_empty()
        && d.refused.is_empty()
        && d.qq.is_empty()
        && d.qq_drafts.is_empty()
    {
        h += "<p>无（所有提醒邮件都已发出）。</p>\n";
    } else {
        h += "<ul>\n";
        for (created_at, subject) in outbox {
            h += &format!(
                "<li>未发出的邮件（{}）：{}</li>\n",
                fmt(*created_at),
                esc(subject)
            );
        }
        for r in &d.refused {
            h += &format!(
                "<li style=\"color:#c62828\">被拒收的邮件：{}</li>\n",
                esc(r)
            );
        }
        for c in checks {
            h += &format!("<li>不合格的帖子：{}</li>\n", esc(c));
        }
        for m in &d.qq {
            h += &format!("<li>待法官处理的 QQ 消息：{}</li>\n", esc(m));
        }
        for (key, to, text) in &d.qq_drafts {
            h += &format!(
                "<li class=\"qq-draft\">给 {} 的回复草稿：{} <button type=\"button\" onclick=\"var b=this;banshaPost('/qq-reply',{{key:b.dataset.key}},function(ok,x){{b.replaceWith(x);}})\" data-key=\"{}\">发到 QQ</button></li>\n",
                esc(to),
                esc(text),
                html_escape::encode_double_quoted_attribute(key)
            );
        }
        h += "</ul>\n";
    }
    h += &format!("<p>已发出邮件 {} 封。</p>\n</section>\n", d.sent);

    for g in d.games {
        h += &game_html(d, g);
    }
    h += RULING_SCRIPT;
    h += &refresh_script(REFRESH_SECONDS);
    crate::present::html::document("bansha 法官仪表盘", &h).replace(
        "<title>",
        &format!("<noscript><meta http-equiv=\"refresh\" content=\"{REFRESH_SECONDS}\"></noscript><title>"),
    )
}

/// What waits for the judge: each day to confirm, with the rule post's questions first (jiaohui's
/// 特赦 / 圣光) and one button per answer.
fn waiting_html(
    to_confirm: &[crate::domain::report::ToConfirm],
    found: &[FoundDayView],
    moves: &[(String, u32, Time, String)],
    runoffs: &[(String, u32, Vec<String>)],
) -> String {
    let mut h = String::from("<section id=\"waiting\"><h2>等法官处理</h2>\n");
    if to_confirm.is_empty() && found.is_empty() && moves.is_empty() && runoffs.is_empty() {
        return h + "<p>无。</p>\n</section>\n";
    }
    h += "<ul>\n";
    for (game, day, candidates) in runoffs {
        let name = serde_json::to_string(game).unwrap_or_default();
        h += &format!(
            "<li class=\"runoff\">{}：第 {day} 天第一轮平票，进入第二轮（候选：{}）。本局规则没有规定第二轮何时截止，请设定：<br>\n\
             第二轮截止时间 <input class=\"closes\" placeholder=\"YYYY-MM-DD HH:MM\"> \
             <button onclick=\"{}\">设定第 {day} 天第二轮截止时间</button> <span class=\"msg\"></span></li>\n",
            esc(game),
            esc(&candidates.join("、")),
            crate::present::html::attr(&format!("banshaRunoff(this,{name},{day})")),
        );
    }
    for (game, day, at, words) in moves {
        let body = serde_json::json!({"game": game, "day": day, "closes_at": at.format("%Y-%m-%d %H:%M:%S").to_string()});
        h += &format!(
            "<li class=\"moved\">{}：{}<br>\n<button onclick=\"{}\">改为这个截止时间（{}）</button> <span class=\"msg\"></span></li>\n",
            esc(game),
            esc(words),
            crate::present::html::attr(&format!("banshaMoveClose(this,{body})")),
            at.format("%m-%d %H:%M")
        );
    }
    for f in found {
        let game = serde_json::to_string(&f.game).unwrap_or_default();
        h += &format!(
            "<li class=\"found-day\">{}：{}<br>\n截止时间 <input class=\"closes\" placeholder=\"2026-12-02 21:00\" value=\"{}\"> \
             <button onclick=\"{}\">开始监视第 {} 天</button> <span class=\"msg\"></span></li>\n",
            esc(&f.game),
            esc(&f.words),
            f.closes_at
                .map(|t| t.format("%Y-%m-%d %H:%M").to_string())
                .unwrap_or_default(),
            crate::present::html::attr(&format!("banshaAcceptDay(this,{game},{})", f.day)),
            f.day
        );
    }
    for c in to_confirm {
        let game = serde_json::to_string(&c.game).unwrap_or_default();
        let call = |pardon: &str, no_pardon: bool| {
            crate::present::html::attr(&format!(
                "banshaConfirm(this,{game},{},{},{no_pardon})",
                c.day,
                serde_json::to_string(&if pardon.is_empty() {
                    vec![]
                } else {
                    vec![pardon]
                })
                .unwrap_or_default()
            ))
        };
        h += &format!(
            "<li class=\"confirm\">{} 第{}天{}：{}<br>\n",
            esc(&c.game),
            c.day,
            if c.round == 2 { "第二轮" } else { "" },
            esc(&c.note)
        );
        if c.questions.is_empty() {
            h += &format!(
                "<button onclick=\"{}\">确认第 {} 天结果</button>",
                call("", false),
                c.day
            );
        } else {
            for q in &c.questions {
                h += &format!("先征求意见：{}<br>\n", esc(q));
            }
            for q in &c.questions {
                if let Some(name) = q.split('“').nth(1).and_then(|x| x.split('”').next()) {
                    h += &format!(
                        "<button onclick=\"{}\">用了“{}”，确认</button> ",
                        call(name, false),
                        esc(name)
                    );
                }
            }
            h += &format!(
                "<button onclick=\"{}\">都没有用，确认第 {} 天结果</button>",
                call("", true),
                c.day
            );
        }
        h += " <span class=\"msg\"></span></li>\n";
    }
    h + "</ul>\n</section>\n"
}

/// An open night: what arrived, an entry form for what the judge received elsewhere (QQ, in
/// person), the draft resolution and, once the deadline has passed, the confirm button.
fn night_html(n: &NightView, now: Time) -> String {
    let game = serde_json::to_string(&n.game).unwrap_or_default();
    let mut h = format!(
        "<section class=\"night\"><h2>{} 第{}夜（仅法官可见）</h2>\n<p>{}</p>\n",
        esc(&n.game),
        n.night,
        match n.deadline {
            Some(t) if t > now => format!(
                "行动截止 {}（{}）",
                t.format("%m-%d %H:%M"),
                time_left(t, now)
            ),
            Some(t) => format!("行动已于 {} 截止", t.format("%m-%d %H:%M")),
            None =>
                "本局没有设夜晚行动的截止时间（[night] deadline_after_close_minutes）：随时可以确认"
                    .into(),
        }
    );
    if let Some((day, at)) = n.overdue {
        h += &format!(
            "<p style=\"color:#c62828\">这一夜还没有确认，第{day}天已于 {} 截止：第{day}天的统计没有计入这一夜的死亡和能力。确认后写入局面，第{day}天的统计按这一夜重算，另发更正后的终票。</p>\n",
            at.format("%m-%d %H:%M")
        );
    }
    h += &format!("<h4>已收到的行动（{} 条）</h4>\n<ul>\n", n.actions.len());
    for a in &n.actions {
        h += &format!("<li>{}</li>\n", esc(a));
    }
    h += "</ul>\n";
    if !n.unread.is_empty() {
        h += "<h4>读不出行动、或要法官裁定的消息和杀帖</h4>\n<ul>\n";
        for u in &n.unread {
            h += &format!("<li>{}</li>\n", esc(u));
        }
        h += "</ul>\n";
    }
    h += &format!(
        "<form class=\"night-add\" onsubmit='event.preventDefault(); var f=this; banshaNight({{\"game\":{}, \"night\":{}, \"action\":\"add\", \"by\":f.by.value, \"power\":f.power.value, \"target\":f.target.value, \"platform\":f.platform.value}}, f)'>\n\
         录入行动：<input name=\"by\" placeholder=\"谁\"> <input name=\"power\" placeholder=\"能力（如 杀人）\"> <input name=\"target\" placeholder=\"对象\"> \
         <input name=\"platform\" placeholder=\"炮架子（可空）\"> <button>录入</button> <span class=\"msg\"></span></form>\n",
        esc(&game),
        n.night
    );
    match &n.draft {
        Ok(res) => {
            h += &format!(
                "<h4>结算草稿</h4>\n<pre style=\"white-space:pre-wrap\">{}</pre>\n",
                esc(&crate::present::night::text(res))
            );
            if n.deadline.is_none_or(|t| t <= now) {
                h += &format!(
                    "<p><button onclick=\"{}\">确认第 {} 夜结算</button> <span class=\"msg\"></span></p>\n",
                    crate::present::html::attr(&format!("banshaNightConfirm(this,{game},{})", n.night)),
                    n.night
                );
            }
        }
        Err(e) => h += &format!("<p style=\"color:#c62828\">还不能结算：{}</p>\n", esc(e)),
    }
    h + "</section>\n"
}

/// How often the dashboard reloads itself, in seconds (the page's `?refresh=N` sets another
/// interval, for a test).
pub const REFRESH_SECONDS: u32 = 60;

/// The dashboard's own reload, every `seconds` (or the page's `?refresh=N`), which waits while
/// the judge is writing: a field with the focus, or one holding text (a ruling's reason, a
/// player, the tally's BBCode) or a choice not yet sent. A reload would erase it, and every
/// ruling needs its reason. The pause is shown at the top of the page.
fn refresh_script(seconds: u32) -> String {
    format!(
        "<div id=\"bansha-refresh\" style=\"position:fixed;top:0;right:0;background:#fff8e1;padding:2px 8px;font-size:12px\" hidden>有未提交的内容，自动刷新已暂停</div>\
<script>function banshaRefreshSeconds(){{var s=Number(new URLSearchParams(location.search).get('refresh'));return s>=1?s:{seconds};}}\
function banshaPending(){{var a=document.activeElement;if(a&&a.matches&&a.matches('input,textarea,select')){{return true;}}\
var some=function(q,f){{return Array.prototype.some.call(document.querySelectorAll(q),f);}};\
return some('input,textarea',function(e){{return e.type==='checkbox'||e.type==='radio'?e.checked!==e.defaultChecked:e.value!==e.defaultValue;}})\
||some('select',function(s){{var d=0;for(var i=0;i<s.options.length;i++){{if(s.options[i].defaultSelected){{d=i;}}}}return s.selectedIndex!==d;}});}}\
(function(){{var every=banshaRefreshSeconds()*1000;function tick(){{var wait=banshaPending();document.getElementById('bansha-refresh').hidden=!wait;\
if(wait){{setTimeout(tick,Math.min(every,5000));}}else{{location.reload();}}}}setTimeout(tick,every);}})();</script>"
    )
}

/// One game's section: its rule system, next deadline, each day shown, the rulings, the judge's
/// record.
fn game_html(d: &Dashboard, g: &GameConfig) -> String {
    let now = d.now;
    let views = &d.views;
    let fmt = |t: chrono::DateTime<chrono::FixedOffset>| t.format("%Y-%m-%d %H:%M:%S").to_string();
    let mut h = String::new();
    h += &format!(
        "<section class=\"game\"><h2>{}</h2>\n<p>规则：{}（{}）{}</p>\n",
        esc(&g.name),
        esc(&g.rules.name),
        esc(&g.ruleset),
        if g.rules.description.is_empty() {
            String::new()
        } else {
            format!("：{}", esc(&g.rules.description))
        }
    );
    h += &schedule_html(d, g);
    let days: Vec<_> = views.iter().filter(|v| v.game.name == g.name).collect();
    // This game's next lock start or close.
    let next = days
        .iter()
        .flat_map(|v| {
            [(v.tally.lock_from, "锁定"), (Some(v.day.closes_at), "截止")]
                .into_iter()
                .filter_map(move |(t, what)| t.map(|t| (t, v.day.day, what)))
        })
        .filter(|(t, _, _)| *t > now)
        .min();
    if let Some((t, day, what)) = next {
        h += &format!(
            "<p>下一个时间点：<b>第{day}天 {what}</b> {}（{}）</p>\n",
            fmt(t),
            time_left(t, now)
        );
    }
    if days.is_empty() {
        h += &nothing_watched(g, now);
    }
    // A closed day stays with its final; those before the newest one shown are folded.
    let newest = days.iter().map(|v| v.day.day).max();
    let posted = d.posted.get(&g.name).map(Vec::as_slice).unwrap_or(&[]);
    for v in days {
        // Round 1 of a day whose round 2 is shown is folded under it.
        let folded = now >= v.day.closes_at
            && (Some(v.day.day) != newest
                || (v.tally.round == 1
                    && d.views.iter().any(|x| {
                        x.game.name == g.name && x.day.day == v.day.day && x.tally.round == 2
                    })));
        let post = Posting {
            as_user: d.post_as.as_deref(),
            done: posted,
            base: d.forum_base,
        };
        h += &day_html(v, d.forum_base, now, folded, &post);
    }
    h += &rulings_html(g, d.rulings.get(&g.name).map(Vec::as_slice).unwrap_or(&[]));
    // The judge's record of the game: seats, roles, factions (judge-only).
    if let Some(state) = d.states.get(&g.name) {
        h += &format!(
            "<h3>局面（仅法官可见）</h3>\n<pre style=\"white-space:pre-wrap\">{}</pre>\n",
            esc(&crate::present::judge::state(g, state))
        );
    }
    if let Some(ledger) = d.ledgers.get(&g.name).filter(|l| !l.trim().is_empty()) {
        h += &format!(
            "<h3>违规记录</h3>\n<pre style=\"white-space:pre-wrap\">{}</pre>\n",
            esc(ledger)
        );
    }
    h += "</section>\n";
    h
}

/// The game's days: each configured day with where it stands (its final and whether the
/// state records it), so the judge sees the whole game, not the watched day alone.
fn schedule_html(d: &Dashboard, g: &GameConfig) -> String {
    let rows: Vec<&crate::domain::report::DayStatus> =
        d.days.iter().filter(|s| s.game == g.name).collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut h = String::from(
        "<h3>赛程</h3>\n<table class=\"schedule\"><tr><th>天</th><th>投票帖</th><th>截止</th><th>状态</th><th>结果</th><th>确认</th></tr>\n",
    );
    for s in rows {
        h += &format!(
            "<tr><td>第{}天</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            s.day,
            s.vote_thread
                .map(|t| format!("tid {t}"))
                .unwrap_or_else(|| "未设置".into()),
            s.closes_at.format("%m-%d %H:%M"),
            s.stage.zh(),
            esc(s.result.as_deref().unwrap_or("")),
            match s.confirmed {
                Some(true) => "已确认",
                Some(false) => "<b>待确认</b>",
                None => "",
            }
        );
    }
    h + "</table>\n"
}

/// The judge's rulings on single ballots: the list, each with an undo button, and a form for a
/// new one. Both post JSON to `/rulings` (the dashboard's token, when set, rides along from the
/// page's address); a JSON post from another site is stopped by the browser and the daemon.
fn rulings_html(g: &GameConfig, rulings: &[crate::domain::rules::rulings::Ruling]) -> String {
    // JSON inside a single-quoted attribute: escaped for that attribute.
    let js = |v: &str| {
        html_escape::encode_single_quoted_attribute(&serde_json::to_string(v).unwrap_or_default())
            .into_owned()
    };
    let game = js(&g.name);
    let mut h = "<h3>法官裁定（单张票）</h3>\n".to_string();
    if rulings.is_empty() {
        h += "<p>还没有裁定。</p>\n";
    } else {
        h += "<ul class=\"rulings\">\n";
        for r in rulings {
            h += &format!(
                "<li>{}第{}天 pid {}：{}（{}）{}</li>\n",
                if r.removed { "<s>" } else { "" },
                r.day,
                r.pid,
                esc(&r.zh()),
                esc(&r.reason),
                if r.removed {
                    "</s> 已撤销".to_string()
                } else {
                    format!(
                        " <button type=\"button\" onclick='banshaRuling({{\"game\":{},\"action\":\"remove\",\"id\":{}}})'>撤销</button>",
                        game,
                        js(&r.id)
                    )
                }
            );
        }
        h += "</ul>\n";
    }
    let days: Vec<String> = g
        .days
        .iter()
        .map(|d| format!("<option value=\"{0}\">第{0}天</option>", d.day))
        .collect();
    h += &format!(
        "<form class=\"ruling\" onsubmit='event.preventDefault(); var f=this; banshaRuling({{\"game\":{}, \"action\":\"add\", \"day\":Number(f.day.value), \"pid\":Number(f.pid.value), \"void\":f.what.value===\"void\", \"count_for\":f.what.value===\"void\"?null:f.target.value, \"reason\":f.reason.value}})'>\n\
         <select name=\"day\">{}</select> pid <input name=\"pid\" size=\"6\" required> \
         <select name=\"what\"><option value=\"count\">按投给</option><option value=\"void\">判为无效</option></select> \
         <input name=\"target\" placeholder=\"玩家\" size=\"8\"> 理由 <input name=\"reason\" size=\"24\" required> \
         <button type=\"submit\">裁定</button></form>\n",
        game,
        days.join("")
    );
    h
}

/// The script behind the rulings' buttons: post (JSON, with the header no other site can send
/// without the daemon's leave), then show the answer and reload. `banshaBallot` is a ballot
/// row's buttons: its reason (and the player, for 改判) from the row, the answer shown there.
const RULING_SCRIPT: &str = "<script>function banshaPost(path,body,done){var t=new URLSearchParams(location.search).get('token');\
fetch(path+(t?'?token='+encodeURIComponent(t):''),{method:'POST',headers:{'content-type':'application/json','x-bansha':'judge'},body:JSON.stringify(body)})\
.then(function(r){return r.text().then(function(x){done(r.ok,x);});});}\
function banshaConfirm(b,game,day,pardon,noPardon){var msg=b.parentNode.querySelector('.msg');b.disabled=true;msg.textContent='正在确认…';\
banshaPost('/confirm',{game:game,day:day,pardon:pardon,no_pardon:noPardon},function(ok,x){msg.style.color=ok?'#1a7f37':'#c62828';msg.textContent=x;if(ok){setTimeout(function(){location.reload();},1500);}else{b.disabled=false;}});}\
function banshaAcceptDay(b,game,day){var li=b.parentNode,msg=li.querySelector('.msg'),at=li.querySelector('.closes').value.trim();if(!at){msg.textContent='请填写截止时间';return;}b.disabled=true;msg.textContent='正在写入配置…';\
banshaPost('/accept-day',{game:game,day:day,closes_at:at},function(ok,x){msg.style.color=ok?'#1a7f37':'#c62828';msg.textContent=x;if(ok){setTimeout(function(){location.reload();},1500);}else{b.disabled=false;}});}\
function banshaNight(body,f){var msg=f.querySelector('.msg');msg.textContent='提交中…';banshaPost('/night',body,function(ok,x){msg.style.color=ok?'#1a7f37':'#c62828';msg.textContent=x;if(ok){setTimeout(function(){location.reload();},800);}});}\
function banshaNightConfirm(b,game,night){var msg=b.parentNode.querySelector('.msg');b.disabled=true;msg.textContent='正在写入局面…';\
banshaPost('/night',{game:game,night:night,action:'confirm'},function(ok,x){msg.style.color=ok?'#1a7f37':'#c62828';msg.textContent=ok?'已确认，已写入局面':x;if(ok){setTimeout(function(){location.reload();},1500);}else{b.disabled=false;}});}\
function banshaRunoff(b,game,day){var li=b.parentNode,msg=li.querySelector('.msg'),at=li.querySelector('.closes').value.trim();if(!at){msg.textContent='请填写第二轮截止时间';return;}b.disabled=true;msg.textContent='正在写入配置…';\
banshaPost('/runoff',{game:game,day:day,closes_at:at},function(ok,x){msg.style.color=ok?'#1a7f37':'#c62828';msg.textContent=x;if(ok){setTimeout(function(){location.reload();},1500);}else{b.disabled=false;}});}\
function banshaMoveClose(b,body){var msg=b.parentNode.querySelector('.msg');b.disabled=true;msg.textContent='正在改写配置…';\
banshaPost('/move-close',body,function(ok,x){msg.style.color=ok?'#1a7f37':'#c62828';msg.textContent=x;if(ok){setTimeout(function(){location.reload();},1500);}else{b.disabled=false;}});}\
function banshaRuling(body){banshaPost('/rulings',body,function(ok,x){if(!ok){alert(x);}else{location.reload();}});}\
function banshaBallot(b,game,day,pid,act,named){var row=b.parentNode,msg=row.querySelector('.msg'),why=row.querySelector('.why').value.trim(),to=row.querySelector('.to').value.trim();\
if(!why){msg.textContent='请先写理由';return;}var body={game:game,action:'add',day:day,pid:pid,reason:why,void:act==='void',count_for:null};\
if(act==='accept'){body.count_for=named;}if(act==='redirect'){if(!to){msg.textContent='请写改投给谁';return;}body.count_for=to;}\
msg.textContent='提交中…';banshaPost('/rulings',body,function(ok,x){if(!ok){msg.textContent=x;}else{msg.style.color='#1a7f37';msg.textContent='已裁定，正在重新统计…';setTimeout(function(){location.reload();},800);}});}\
function banshaPostTally(b,game,day,id){var box=b.parentNode.parentNode,msg=box.querySelector('.msg');b.disabled=true;msg.style.color='#666';msg.textContent='正在发帖…';\
banshaPost('/post-tally',{game:game,day:day,bbcode:document.getElementById(id).value},function(ok,x){msg.style.color=ok?'#1a7f37':'#c62828';msg.textContent=x;b.parentNode.hidden=true;});}</script>";

fn lurk_html(l: &crate::domain::rules::lurk::LurkReport, closed: bool) -> String {
    use crate::domain::rules::lurk::Verdict;
    let mut h = format!(
        "<h4>发言统计（潜水）{}</h4>\n<p>{}</p>\n<table class=\"lurk\" style=\"border-collapse:collapse\">\n<tr><th style=\"border:1px solid #ccc;padding:3px 8px\">玩家</th><th style=\"border:1px solid #ccc;padding:3px 8px\">有效发言</th><th style=\"border:1px solid #ccc;padding:3px 8px\">{}</th></tr>\n",
        if closed { "" } else { "：截至目前" },
        esc(&l.rule),
        if closed { "判定" } else { "目前" }
    );
    for p in &l.players {
        let verdict = match (p.verdict, closed) {
            (Verdict::Ok, _) => "达标".to_string(),
            (Verdict::Lurk, true) => format!("潜水：{}", p.reasons.join("；")),
            (Verdict::Lurk, false) => format!("尚未达标：{}", p.reasons.join("；")),
            (Verdict::Unknown, _) => "论坛曾无法读取，不判定".to_string(),
        };
        h += &format!(
            "<tr><td style=\"border:1px solid #ccc;padding:3px 8px\">{}</td><td style=\"border:1px solid #ccc;padding:3px 8px;text-align:right\">{}</td><td style=\"border:1px solid #ccc;padding:3px 8px\">{}</td></tr>\n",
            esc(&p.player),
            p.counted,
            esc(&verdict)
        );
    }
    h + "</table>\n"
}

/// One watched day: its tally, BBCode, timeline, 潜水 so far and the posts flagged.
/// Whether and as whom the day's tally can be posted to its vote thread, and what was posted.
struct Posting<'a> {
    as_user: Option<&'a str>,
    done: &'a [crate::domain::reply::PostedTally],
    base: &'a str,
}

/// A day view's element id: the day, and `-r2` for its round 2 (both rounds are shown).
fn view_id(v: &DayView) -> String {
    match v.tally.round {
        2 => format!("{}-r2", v.day.day),
        _ => v.day.day.to_string(),
    }
}

fn day_html(v: &DayView, base: &str, now: Time, folded: bool, post: &Posting) -> String {
    let mut h = format!(
        "<details class=\"day\" id=\"day-{}\"{}><summary><h3 style=\"display:inline\">第{}天{} · {}</h3>{}</summary>\n",
        view_id(v),
        if folded { "" } else { " open" },
        v.day.day,
        if v.tally.round == 2 { " 第二轮" } else { "" },
        phase(v, now),
        if folded {
            format!("　{}", esc(&v.tally.outcome.note))
        } else {
            String::new()
        }
    );
    h += &crate::present::html::tally_html(&v.day, &v.tally, base);
    h += &ballots_html(v, base);
    h += &bbcode_box(v, post);
    h += "<h4>投票时间线</h4>\n<div class=\"timeline\">";
    h += &day_svg(v);
    h += "</div>\n";
    if let Some(l) = &v.lurk {
        h += &lurk_html(l, now >= v.day.closes_at);
    }
    h += &flags_html(&v.flags, base);
    h + "</details>\n"
}

/// Every ballot of the day with its verdict, and the judge's ruling buttons on each: count it
/// (for the target it names), void it, or count it for another player, with a reason. The
/// buttons post to `/rulings` as the form below does (`banshaBallot`).
fn ballots_html(v: &DayView, base: &str) -> String {
    let t = &v.tally;
    if t.ballots.is_empty() {
        return String::new();
    }
    let js = |s: &str| {
        html_escape::encode_single_quoted_attribute(&serde_json::to_string(s).unwrap_or_default())
            .into_owned()
    };
    let td = "border:1px solid #ccc;padding:3px 6px";
    let mut h = format!(
        "<details class=\"ballots\" open><summary><b>逐票明细与裁定</b>（{} 张；裁定要写理由，公开统计里会显示）</summary>\n<table class=\"ballots\" style=\"border-collapse:collapse;font-size:90%\">\n<tr><th style=\"{td}\">楼层</th><th style=\"{td}\">投票人</th><th style=\"{td}\">写的对象</th><th style=\"{td}\">判定</th><th style=\"{td}\">裁定</th></tr>\n",
        t.ballots.len()
    );
    let game = js(&v.game.name);
    for b in &t.ballots {
        let floor = match (b.pid, v.day.vote_thread) {
            (Some(pid), Some(tid)) => format!(
                "<a href=\"{}\">{}</a>",
                esc(&crate::present::html::floor_url(base, tid, pid)),
                esc(&b.floor)
            ),
            _ => esc(&b.floor),
        };
        // The verdict says the judge's ruling when there is one ("有效（法官裁定：…）").
        let verdict = if b.valid {
            esc(&b.reason)
        } else {
            format!(
                "<span style=\"color:#c62828\">{}</span>",
                esc(&b.reason_and_hint())
            )
        };
        // Rulings are by post: a ballot of the inbox or the poll has none to rule on here.
        let buttons = match b.pid {
            Some(pid) => {
                // Counting a void ballot as written: only where it names a player.
                let named = b
                    .target
                    .as_deref()
                    .filter(|_| !b.valid)
                    .filter(|x| v.game.roster.players.iter().any(|p| p == x))
                    .unwrap_or("");
                let call = |act: &str| {
                    format!(
                        "onclick='banshaBallot(this,{game},{},{pid},\"{act}\",{})'",
                        v.day.day,
                        js(named)
                    )
                };
                format!(
                    "<span class=\"rule\" data-pid=\"{pid}\"><input class=\"why\" placeholder=\"理由\" size=\"10\"> \
                     {}{}\
                     <input class=\"to\" placeholder=\"改投给\" size=\"5\"><button type=\"button\" class=\"redirect\" {}>改判</button> \
                     <span class=\"msg\" style=\"color:#c62828\"></span></span>",
                    if named.is_empty() {
                        String::new()
                    } else {
                        format!(
                            "<button type=\"button\" class=\"accept\" {}>按投 {} 计</button> ",
                            call("accept"),
                            esc(named)
                        )
                    },
                    if b.valid {
                        format!(
                            "<button type=\"button\" class=\"void\" {}>判无效</button> ",
                            call("void")
                        )
                    } else {
                        String::new()
                    },
                    call("redirect")
                )
            }
            None => "（不是帖子，不能按帖裁定）".into(),
        };
        h += &format!(
            "<tr><td style=\"{td}\">{floor}</td><td style=\"{td}\">{}</td><td style=\"{td}\">{}</td><td style=\"{td}\">{verdict}</td><td style=\"{td}\">{buttons}</td></tr>\n",
            esc(&b.voter),
            esc(&b.written),
        );
    }
    h + "</table></details>\n"
}

/// The tally's BBCode as the judge pastes it, with a button that copies it (the page's one
/// script: the clipboard, nothing sent anywhere).
fn bbcode_box(v: &DayView, post: &Posting) -> String {
    let code = crate::present::bbcode::tally(&v.game, &v.tally);
    let id = format!("bbcode-day-{}", view_id(v));
    let mut h = format!(
        "<h4>可直接粘贴到投票帖的 BBCode</h4>\n<textarea id=\"{id}\" class=\"bbcode\" readonly rows=\"8\" style=\"width:100%;font-family:monospace\">{}</textarea>\n<button type=\"button\" class=\"copy\" onclick=\"var t=document.getElementById('{id}');t.select();navigator.clipboard&&navigator.clipboard.writeText(t.value);this.textContent='已复制';\">复制 BBCode</button>\n",
        esc(&code)
    );
    // Posting it as the judge's reply: a button, then a second one to confirm (no dialog).
    if let (Some(user), Some(tid)) = (post.as_user, v.day.vote_thread) {
        let js = |s: &str| {
            html_escape::encode_single_quoted_attribute(
                &serde_json::to_string(s).unwrap_or_default(),
            )
            .into_owned()
        };
        h += &format!(
            "<span class=\"post-tally\"> <button type=\"button\" class=\"post\" onclick=\"this.nextElementSibling.hidden=false;this.hidden=true;\">发到投票帖…</button>\
             <span class=\"confirm\" hidden>以 <b>{}</b> 的账号在投票帖 tid {tid} 回复上面这份统计？ \
             <button type=\"button\" class=\"post-yes\" onclick='banshaPostTally(this,{},{},{})'>确认发帖</button> \
             <button type=\"button\" onclick=\"this.parentNode.hidden=true;this.parentNode.previousElementSibling.hidden=false;\">取消</button></span> \
             <span class=\"msg\"></span></span>\n",
            esc(user),
            js(&v.game.name),
            v.day.day,
            js(&id)
        );
    }
    for p in post.done.iter().filter(|p| p.day == v.day.day) {
        h += &format!(
            "<p class=\"posted\">{} 已发到投票帖：<a href=\"{}\">{}</a>{}</p>\n",
            esc(&p.at),
            esc(&crate::present::html::floor_url(
                post.base,
                v.day.vote_thread.unwrap_or_default(),
                p.pid
            )),
            esc(&p.floor),
            if p.bbcode == code {
                "（与上面的统计相同）"
            } else {
                "（之后统计有变化）"
            }
        );
    }
    h
}

/// A game with no day watched now: when its next one will be.
fn nothing_watched(g: &GameConfig, now: Time) -> String {
    let later: Vec<String> = g
        .days
        .iter()
        .filter(|x| x.opens_later(now))
        .map(|x| {
            format!(
                "第{}天 {} 开始监视",
                x.day,
                x.watch_from().format("%Y-%m-%d %H:%M:%S")
            )
        })
        .collect();
    if later.is_empty() {
        "<p>目前没有在监视的投票。</p>\n".into()
    } else {
        format!(
            "<p>目前没有在监视的投票：{}。</p>\n",
            esc(&later.join("；"))
        )
    }
}

/// The posts flagged for the judge on a day, each with its floor link (judge-only).
fn flags_html(flags: &[crate::domain::rules::flags::Flag], base: &str) -> String {
    if flags.is_empty() {
        return String::new();
    }
    let mut h = format!(
        "<h4>需要注意的帖子（仅法官可见，{} 条）</h4>\n<ul class=\"flags\">\n",
        flags.len()
    );
    for f in flags {
        h += &format!(
            "<li>{} <a href=\"{}\">{} {}</a>：{}</li>\n",
            esc(&f.thread),
            esc(&crate::present::html::floor_url(base, f.tid, f.pid)),
            esc(&f.floor),
            esc(&f.author),
            esc(&f.what)
        );
    }
    h + "</ul>\n"
}

/// A refused mail as the judge reads it (dashboard and `bansha status`).
pub fn refused_line(r: &crate::domain::report::Refused) -> String {
    format!(
        "{} “{}” 被 {} 拒收：{}",
        r.at.format("%m-%d %H:%M"),
        r.subject,
        r.to,
        r.reason
    )
}

/// A health problem as the judge reads it (dashboard and `bansha status`).
pub fn problem_line(p: &crate::domain::report::Problem) -> String {
    use crate::domain::report::Problem;
    let fmt = |t: &Time| t.format("%Y-%m-%d %H:%M:%S").to_string();
    match p {
        Problem::NoCycle => "尚未完成第一次轮询".into(),
        Problem::Stopped { last } => format!("轮询停了：上一轮在 {}", fmt(last)),
        Problem::Unreadable { tid, since } => format!("tid {tid} 自 {} 起无法读取", fmt(since)),
        Problem::Unsent { count, oldest } => {
            format!("{count} 封邮件还没发出去（最早的在 {} 排队）", fmt(oldest))
        }
        Problem::Refused { count } => format!("{count} 封邮件被邮件服务器拒收"),
        Problem::Errors { errors } => format!("上一轮出错：{}", errors.join("；")),
        Problem::QqFailing { line } => line.clone(),
        Problem::ClockOff { secs } => format!(
            "本机时钟比论坛{} {} 秒：按论坛时间计时，请校准本机时钟",
            if *secs < 0 { "快" } else { "慢" },
            secs.abs()
        ),
        Problem::ConfigRefused { error } => {
            format!("改过的配置没有采用（仍按原配置运行）：{error}")
        }
    }
}
