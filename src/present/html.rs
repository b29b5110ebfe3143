//! What the judge reads, as HTML: the tally (for the mail and the dashboard), and the mails
//! built around it. Everything a player wrote is escaped here, once, on the way out.

use crate::domain::config::{DayConfig, GameConfig};
use crate::domain::mail::{Mail, MailFile};
use crate::domain::rules::tally::{fmt_votes, Source};
use crate::domain::rules::{timeline, Tally};
use chrono::{DateTime, Duration, FixedOffset};

type Time = DateTime<FixedOffset>;

pub fn esc(s: &str) -> String {
    html_escape::encode_text(s).into_owned()
}

pub fn attr(s: &str) -> String {
    html_escape::encode_double_quoted_attribute(s).into_owned()
}

fn fmt(t: Time) -> String {
    t.format("%Y-%m-%d %H:%M:%S").to_string()
}

/// `[版杀一室 第十二局] 第2天 …`: sorts by game, then day, in a mail client.
pub fn subject(g: &GameConfig, day: u32, what: &str) -> String {
    format!("[{}] 第{day}天 {what}", g.name)
}

/// `[版杀一室 第十二局] 第2天 投票统计（截止 21:00）…`.
pub fn tally_subject(g: &GameConfig, d: &DayConfig, what: &str) -> String {
    // Round 2 as the daemon runs it: the day closes with its run-off.
    let round = match &d.runoff {
        Some(r) if r.closes_at == d.closes_at && r.eliminate.is_some() => "加时",
        Some(r) if r.closes_at == d.closes_at => "第二轮",
        _ => "",
    };
    subject(
        g,
        d.day,
        &format!(
            "{round}投票统计（截止 {}）{what}",
            d.closes_at.format("%H:%M")
        ),
    )
}

/// "还有 3 小时 12 分钟" or "已截止".
pub fn time_left(closes_at: Time, now: Time) -> String {
    let left = closes_at - now;
    if left <= Duration::zero() {
        return "已截止".into();
    }
    let mins = (left.num_seconds() + 59) / 60;
    match (mins / 60, mins % 60) {
        (0, m) => format!("还有 {m} 分钟"),
        (h, 0) => format!("还有 {h} 小时"),
        (h, m) => format!("还有 {h} 小时 {m} 分钟"),
    }
}

/// The forum's link to a post ("findpost" lands on the right page of the thread).
pub fn floor_url(base: &str, tid: u64, pid: u64) -> String {
    format!(
        "{}/forum.php?mod=redirect&goto=findpost&ptid={tid}&pid={pid}",
        base.trim_end_matches('/')
    )
}

struct Links<'a> {
    base: &'a str,
    tid: Option<u64>,
}

impl Links<'_> {
    /// The floor as a link to the post when it is a thread post.
    fn floor(&self, floor: &str, pid: Option<u64>, source: Source) -> String {
        let label = if floor.is_empty() { "?楼" } else { floor };
        match (self.tid, pid, source) {
            (Some(tid), Some(pid), Source::Post) => format!(
                "<a href=\"{}\">{}</a>",
                attr(&floor_url(self.base, tid, pid)),
                esc(label)
            ),
            (_, _, Source::Pm) => format!("{}（短信）", esc(label)),
            (_, _, Source::Poll) => "投票机".into(),
            (_, _, Source::Judge) => "法官录入".into(),
            _ => esc(label),
        }
    }
}

const TABLE: &str = "border-collapse:collapse;margin:6px 0 12px 0";
const TH: &str =
    "border:1px solid #ccc;padding:4px 10px;background:#f3f3f3;text-align:left;white-space:nowrap";
const TD: &str = "border:1px solid #ccc;padding:4px 10px;vertical-align:top";

/// The tally as an HTML fragment: deadline and time left, the outcome, the counts with the
/// voters (links to their floors), invalid ballots with reasons, who has not voted.
pub fn tally_html(d: &DayConfig, tally: &Tally, base: &str) -> String {
    let links = Links {
        base,
        tid: d.vote_thread,
    };
    let mut h = String::new();
    let lock = tally
        .lock_from
        .map(|l| format!("，{} 起不得改票", l.format("%H:%M")))
        .unwrap_or_default();
    h += &format!(
        "<p style=\"margin:4px 0\">截止：<b>{}</b>{lock}　统计时间：{}　<b>{}</b>　存活 {} 人{}</p>\n",
        fmt(tally.closes_at),
        fmt(tally.at),
        time_left(tally.closes_at, tally.at),
        tally.living,
        if tally.accelerated { "（进程已加速）" } else { "" }
    );
    let verdict = if tally.closed { "结果" } else { "目前" };
    h += &format!(
        "<p style=\"margin:4px 0\"><b>{verdict}：</b>{}</p>\n",
        esc(&tally.outcome.note)
    );
    h += &format!("<table class=\"tally\" style=\"{TABLE}\">\n<tr><th style=\"{TH}\">对象</th><th style=\"{TH}\">票数</th><th style=\"{TH}\">投票者</th></tr>\n");
    if tally.counts.is_empty() {
        h += &format!("<tr><td style=\"{TD}\" colspan=\"3\">（无人得票）</td></tr>\n");
    }
    let by_voter = |voter: &str| {
        tally
            .ballots
            .iter()
            .rev()
            .find(|b| b.counted && b.voter == voter)
    };
    for c in &tally.counts {
        let voters: Vec<String> = c
            .voters
            .iter()
            .map(|v| {
                let source = by_voter(&v.voter).map(|b| b.source).unwrap_or(Source::Post);
                let w = if (v.weight - 1.0).abs() > 1e-9 {
                    format!("，计 {} 票", fmt_votes(v.weight))
                } else {
                    String::new()
                };
                format!(
                    "{}（{}{w}）",
                    esc(&v.voter),
                    links.floor(&v.floor, v.pid, source)
                )
            })
            .collect();
        let mut extra = String::new();
        for a in &c.adjustments {
            extra += match a.kind {
                crate::domain::rules::tally::AdjustmentKind::Curse => "（含左士诅咒 +1）",
                crate::domain::rules::tally::AdjustmentKind::Bless => "（含右士庇佑 −1）",
            };
        }
        if c.half_votes > 0.0 {
            extra += &format!("（另有半票 {}，仅平票时计）", fmt_votes(c.half_votes));
        }
        h += &format!(
            "<tr><td style=\"{TD}\"><b>{}</b></td><td style=\"{TD};text-align:right\">{}{extra}</td><td style=\"{TD}\">{}</td></tr>\n",
            esc(&c.target),
            fmt_votes(c.votes),
            voters.join("、")
        );
    }
    if !tally.abstentions.is_empty() {
        let vs: Vec<String> = tally
            .abstentions
            .iter()
            .map(|v| {
                // By weight, as in the total (m103 002 L153: the sheriff's is 1.5).
                let w = if (v.weight - 1.0).abs() > 1e-9 {
                    format!("，计 {} 票", fmt_votes(v.weight))
                } else {
                    String::new()
                };
                format!(
                    "{}（{}{w}）",
                    esc(&v.voter),
                    links.floor(&v.floor, v.pid, Source::Post)
                )
            })
            .collect();
        h += &format!(
            "<tr><td style=\"{TD}\">弃权</td><td style=\"{TD};text-align:right\">{}</td><td style=\"{TD}\">{}</td></tr>\n",
            fmt_votes(tally.abstain_votes()),
            vs.join("、")
        );
    }
    h += "</table>\n";
    if !tally.poll_gaps.is_empty() {
        h += "<h3 style=\"margin:10px 0 4px 0;color:#b00\">投票机名单不全</h3>\n<ul class=\"poll-gaps\" style=\"margin:4px 0\">\n";
        for g in &tally.poll_gaps {
            h += &format!("<li>{}</li>\n", esc(&crate::present::bbcode::poll_gap(g)));
        }
        h += "</ul>\n";
    }

    let invalid: Vec<_> = tally.ballots.iter().filter(|b| !b.valid).collect();
    h += &format!(
        "<h3 style=\"margin:10px 0 4px 0\">无效票（{}）</h3>\n",
        invalid.len()
    );
    if invalid.is_empty() {
        h += "<p style=\"margin:4px 0\">无</p>\n";
    } else {
        h += &format!("<table class=\"invalid\" style=\"{TABLE}\">\n<tr><th style=\"{TH}\">楼层</th><th style=\"{TH}\">投票者</th><th style=\"{TH}\">时间</th><th style=\"{TH}\">写的对象</th><th style=\"{TH}\">原因</th></tr>\n");
        for b in invalid {
            h += &format!(
                "<tr><td style=\"{TD}\">{}</td><td style=\"{TD}\">{}</td><td style=\"{TD}\">{}</td><td style=\"{TD}\">{}</td><td style=\"{TD}\">{}</td></tr>\n",
                links.floor(&b.floor, b.pid, b.source),
                esc(&b.voter),
                b.posted_at.map(fmt).unwrap_or_default(),
                esc(&b.written),
                esc(&b.reason_and_hint())
            );
        }
        h += "</table>\n";
    }
    h += &non_voters(tally);
    // What the BBCode lists as 不计的帖子: posts read but not ballots of a player, each with why.
    if !tally.ignored.is_empty() {
        h += &format!(
            "<h3 style=\"margin:10px 0 4px 0\">不计的帖子（{}）</h3>\n<ul class=\"ignored\" style=\"margin:4px 0\">\n",
            tally.ignored.len()
        );
        for i in &tally.ignored {
            h += &format!(
                "<li>{} {}：{}</li>\n",
                links.floor(&i.floor, Some(i.pid), Source::Post),
                esc(&i.author),
                esc(&i.reason)
            );
        }
        h += "</ul>\n";
    }
    h
}

/// Who did not vote and what it costs them; who voted but whose vote cannot be known.
fn non_voters(tally: &Tally) -> String {
    let mut h = String::new();
    h += &format!(
        "<h3 style=\"margin:10px 0 4px 0\">未投票（{}）</h3>\n",
        tally.non_voters.len()
    );
    if tally.non_voters.is_empty() {
        h += "<p style=\"margin:4px 0\">无</p>\n";
    } else {
        h += "<ul class=\"non-voters\" style=\"margin:4px 0\">\n";
        for n in &tally.non_voters {
            let c = if n.consequence.is_empty() {
                String::new()
            } else {
                format!("：{}", esc(&n.consequence))
            };
            h += &format!("<li>{}{c}</li>\n", esc(&n.player));
        }
        h += "</ul>\n";
    }
    if !tally.undetermined.is_empty() {
        let vs: Vec<String> = tally.undetermined.iter().map(|p| esc(p)).collect();
        h += &format!(
            "<p style=\"margin:4px 0\">投票内容无法确认：{}（截止后编辑过，票作废，不算未投票）</p>\n",
            vs.join("、")
        );
    }
    h
}

/// A whole HTML document around a body fragment.
pub fn document(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"zh-CN\"><head><meta charset=\"utf-8\">\n<title>{}</title></head>\n\
         <body style=\"font-family:'PingFang SC','Microsoft YaHei','WenQuanYi Micro Hei',sans-serif;font-size:14px;color:#222;max-width:900px\">\n{body}\n\
         <p style=\"color:#888;font-size:12px;margin-top:24px\">bansha 自动统计，仅供法官核对；请以论坛原帖为准。</p>\n</body></html>\n",
        esc(title)
    )
}

/// A text mail's HTML alternative: the text as it is, escaped, line breaks kept.
pub fn text_as_html(subject: &str, body: &str) -> String {
    document(
        subject,
        &format!(
            "<pre style=\"white-space:pre-wrap;font-family:inherit\">{}</pre>",
            esc(body)
        ),
    )
}

/// The mail with its HTML alternative: its own, or the text body as HTML.
pub fn with_html(mail: &Mail) -> Mail {
    let mut m = mail.clone();
    if m.html.is_none() {
        m.html = Some(text_as_html(&m.subject, &m.body));
    }
    m
}

/// What a tally mail is drawn with besides the tally: the forum's address (floor links) and the
/// fonts of the timeline picture.
pub struct Drawing<'a> {
    pub forum_base: &'a str,
    pub fonts: crate::present::chart::Fonts,
}

/// A tally mail: the text body (intro + BBCode) with an HTML alternative holding the tally as a
/// table, the day's timeline as an inline PNG, and the BBCode both as a block to copy and as an
/// attached .txt file.
pub fn tally_mail(
    g: &GameConfig,
    d: &DayConfig,
    tally: &Tally,
    with: &Drawing,
    subject: String,
    intro: &str,
    now: Time,
) -> Mail {
    let code = crate::present::bbcode::tally(g, tally);
    let left = if tally.closed {
        String::new()
    } else {
        format!("距截止：{}\n", time_left(tally.closes_at, tally.at))
    };
    let body = format!("{intro}\n{left}\n{code}");
    let title = format!("{} 第{}天 投票时间线", g.name, d.day);
    let svg = crate::present::chart::svg(&title, &timeline::of(tally), tally.lock_from);
    let png = crate::present::chart::png(&svg, &with.fonts);
    let mut html = format!(
        "<h2 style=\"margin:0 0 6px 0\">{} 第{}天 投票统计</h2>\n<p style=\"margin:4px 0\">{}</p>\n",
        esc(&g.name),
        d.day,
        esc(intro).replace('\n', "<br>")
    );
    html += &tally_html(d, tally, with.forum_base);
    if png.is_some() {
        html += &format!(
            "<h3 style=\"margin:10px 0 4px 0\">投票时间线</h3>\n<img src=\"cid:timeline\" alt=\"{}\" width=\"860\" style=\"max-width:100%\">\n",
            attr(&title)
        );
    }
    let file = format!("第{}天投票统计.txt", d.day);
    html += &format!(
        "<h3 style=\"margin:10px 0 4px 0\">可直接粘贴到投票帖的 BBCode（也在附件 {}）</h3>\n\
         <pre class=\"bbcode\" style=\"white-space:pre-wrap;background:#f7f7f7;border:1px solid #ddd;padding:8px;font-family:monospace\">{}</pre>\n",
        esc(&file),
        esc(&code)
    );
    let mut files = vec![MailFile {
        name: file,
        content_type: "text/plain; charset=utf-8".into(),
        cid: None,
        data: code.into_bytes(),
    }];
    if let Some(png) = png {
        files.insert(
            0,
            MailFile {
                name: "timeline.png".into(),
                content_type: "image/png".into(),
                cid: Some("timeline".into()),
                data: png,
            },
        );
    }
    Mail {
        html: Some(document(&subject, &html)),
        subject,
        body,
        created_at: now,
        files,
    }
}
