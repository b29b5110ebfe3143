//! What QQ carries, in words: the short message a mail becomes (what happened, its key lines,
//! the dashboard link), the tally a group gets (the BBCode the rules publish, as text), the
//! replies drafted to players, and what the judge reads about QQ (messages to read himself, a
//! channel that keeps failing).

use crate::domain::mail::Mail;
use crate::domain::qq::{Inbound, Reading, ReplyKind, Streak};
use chrono::{DateTime, FixedOffset};

type Time = DateTime<FixedOffset>;

/// The key lines of a mail kept in its QQ message.
const KEY_LINES: usize = 12;
/// The longest key line kept whole.
const LINE_CHARS: usize = 120;

/// A mail as a short QQ message for the judge: the subject, the first lines of its text and
/// where the dashboard is (the mail stays the full record).
pub fn short(mail: &Mail, dashboard: &str) -> String {
    let mut out = format!("【bansha】{}\n", mail.subject);
    // The BBCode a mail carries for pasting reads as plain text in QQ.
    let body = bbcode_tags().replace_all(&mail.body, "");
    let lines: Vec<&str> = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    for l in lines.iter().take(KEY_LINES) {
        if l.chars().count() > LINE_CHARS {
            out.extend(l.chars().take(LINE_CHARS));
            out.push_str("…\n");
        } else {
            out.push_str(l);
            out.push('\n');
        }
    }
    if lines.len() > KEY_LINES {
        out.push_str(&format!(
            "……（另有 {} 行，见邮件）\n",
            lines.len() - KEY_LINES
        ));
    }
    out.push_str(&format!("仪表盘：{dashboard}"));
    out
}

/// What a group gets of a final tally mail: only the tally the rules publish, the BBCode
/// attached to it (`present::html`), as plain text. None: the mail carries no public tally.
pub fn group_tally(mail: &Mail) -> Option<String> {
    let file = mail
        .files
        .iter()
        .find(|f| f.cid.is_none() && f.name.ends_with(".txt"))?;
    let code = String::from_utf8_lossy(&file.data);
    Some(bbcode_tags().replace_all(&code, "").trim().to_string())
}

/// A BBCode tag: `[b]`, `[/color]`, `[url=…]`.
fn bbcode_tags() -> regex::Regex {
    regex::Regex::new(r"\[/?[a-zA-Z*]+(=[^\]\n]*)?\]").expect("valid")
}

/// The reply drafted to a player for what they sent (004 L76: the proxy vote is taken from
/// then on; a night action or kill post reached the judge), with its kind.
pub fn reply(m: &Inbound) -> Option<(ReplyKind, String)> {
    let when = m.at.format("%m-%d %H:%M:%S");
    Some(match &m.reading {
        Reading::ProxyVote { target } => (
            ReplyKind::ProxyVote,
            format!("法官已收到你的托票：票{target}（{when}）。托票后本人的投票无效；能否计入以截止时间为准。"),
        ),
        Reading::NightAction { power, target } => (
            ReplyKind::NightAction,
            format!(
                "法官已收到你的夜间行动：{power}{}（{when}）。",
                target.as_deref().map(|t| format!(" {t}")).unwrap_or_default()
            ),
        ),
        Reading::KillPost { chars } => (
            ReplyKind::KillPost,
            format!("法官已收到你的杀帖（{chars} 字，{when}）。"),
        ),
        Reading::Nothing => return None,
    })
}

/// One line for the judge about a message he must read himself.
pub fn unread_line(m: &Inbound) -> String {
    let who = match &m.player {
        Some(p) => format!("{}（QQ {}）", p.player, m.user_id),
        None => format!("QQ {}（不在任何游戏的 [roster.qq] 里）", m.user_id),
    };
    let text: String = m.text.chars().take(60).collect();
    let more = if m.text.chars().count() > 60 {
        "…"
    } else {
        ""
    };
    format!(
        "{} {who}：{}{more}",
        m.at.format("%m-%d %H:%M:%S"),
        text.replace('\n', " ")
    )
}

/// The mail about a QQ message bansha could not place (an unknown number, or a text that reads
/// as nothing): the whole text, for the judge to act on.
pub fn unread_mail(m: &Inbound, now: Time) -> Mail {
    let why = if m.player.is_none() {
        "发送者的 QQ 号不在任何游戏的 [roster.qq] 里"
    } else {
        "读不出是托票（票×××）、夜间行动（行动：技能 目标）还是杀帖"
    };
    let who = match &m.player {
        Some(p) => format!("{}（QQ {}）", p.player, m.user_id),
        None => format!("QQ {}", m.user_id),
    };
    Mail::text(
        format!("QQ 消息待法官处理：{who}"),
        format!(
            "{who} 在 {} 发来一条私聊，bansha 没有处理：{why}。\n\n原文：\n{}\n\n它已记录在案，并列在仪表盘和 bansha status 里。",
            m.at.format("%Y-%m-%d %H:%M:%S"),
            m.text
        ),
        now,
    )
}

/// The mail with a kill post a player sent by QQ (004 L60 "杀帖应当用ＱＱ或邮箱…给哨"): the
/// verdict of `[checks.kill]` when the rules check kill posts, and the whole text.
pub fn kill_post_mail(
    m: &Inbound,
    verdict: Option<&crate::domain::rules::checks::PostVerdict>,
    now: Time,
) -> Mail {
    let who = m
        .player
        .as_ref()
        .map_or_else(|| format!("QQ {}", m.user_id), |p| p.player.clone());
    let (tag, lines) = match verdict {
        None => ("", "本局规则没有 [checks.kill]，没有检查。".to_string()),
        Some(v) if v.pass => ("（合格）", "检查：合格。".to_string()),
        Some(v) => (
            "（不合格）",
            format!("检查：不合格——{}。", v.failures.join("；")),
        ),
    };
    Mail::text(
        format!("QQ 杀帖：{who}{tag}"),
        format!(
            "{who}（QQ {}）在 {} 用 QQ 交来杀帖。\n{lines}\n\n原文：\n{}",
            m.user_id,
            m.at.format("%Y-%m-%d %H:%M:%S"),
            m.text
        ),
        now,
    )
}

/// The mail telling the judge a QQ channel keeps failing (once per streak); the mails go on.
pub fn failing_mail(api: &str, s: &Streak, now: Time) -> Mail {
    let since = s
        .since
        .map(|t| t.format("%m-%d %H:%M:%S").to_string())
        .unwrap_or_default();
    Mail::text(
        "QQ 发不出去了（邮件照常）".into(),
        format!(
            "从 {since} 起，发往 QQ 机器人（{api}）的消息连续失败 {} 次。\n最后一次：{}\n\n\
             邮件照常发送，内容不缺。QQ 消息按顺序留在记录里，机器人恢复后补发。\n\
             请检查机器人（NapCat、LLOneBot 等）是否在运行、是否登录、access token 是否一致。",
            s.count, s.last_error
        ),
        now,
    )
}

/// What each kind of QQ message is, in the judge's words.
pub fn kind_zh(k: crate::domain::qq::Kind) -> &'static str {
    use crate::domain::qq::Kind;
    match k {
        Kind::Final => "最终统计",
        Kind::Void => "作废票",
        Kind::Lock => "锁票开始",
        Kind::Runoff => "待定的加赛",
        Kind::Failure => "故障",
        Kind::Win => "胜负条件",
        Kind::Night => "夜晚结算",
    }
}

/// `check-config`'s lines about `[qq]`: who gets what, that a group gets only what the rules
/// publish, where the bot posts its events.
pub fn settings_lines(q: &crate::domain::settings::QqSettings, listen: &str) -> Vec<String> {
    let judges: Vec<String> = q.judges.iter().map(u64::to_string).collect();
    let kinds: Vec<&str> = q.send.iter().map(|k| kind_zh(*k)).collect();
    let mut out = vec![format!(
        "QQ（OneBot 11，{}）：私聊发给法官 QQ {}：{}（每条是简讯加仪表盘链接，邮件仍是完整记录）",
        q.api,
        judges.join("、"),
        kinds.join("、")
    )];
    out.push(match q.group {
        Some(g) => format!(
            "QQ 群 {g} 只收到规则公开的内容：最终统计的 BBCode（转成文字）；身份、作废票的提示等只给法官的内容从不发到群"
        ),
        None => "没有设置 QQ 群：只发私聊给法官".into(),
    });
    let replies: Vec<&str> = q
        .replies
        .iter()
        .map(|r| match r {
            ReplyKind::ProxyVote => "收到托票",
            ReplyKind::NightAction => "收到夜间行动",
            ReplyKind::KillPost => "收到杀帖",
        })
        .collect();
    out.push(if replies.is_empty() {
        "给玩家的回复只起草、不自动发送（[qq] replies 可以打开）".into()
    } else {
        format!("自动回复玩家：{}；其余回复只起草", replies.join("、"))
    });
    out.push(format!(
        "机器人的事件上报地址（http_post.url）：http://{listen}/onebot，{}",
        if q.event_secret.is_some() {
            "签名（X-Signature）必须正确"
        } else {
            "没有签名密钥：只接受本机回环地址上的上报"
        }
    ));
    out
}

/// The dashboard's and `bansha status`'s line about a failing QQ channel.
pub fn failing_line(s: &Streak) -> String {
    format!(
        "QQ 发送连续失败 {} 次（自 {} 起）：{}",
        s.count,
        s.since
            .map(|t| t.format("%m-%d %H:%M").to_string())
            .unwrap_or_default(),
        s.last_error
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::mail::MailFile;

    fn t() -> Time {
        DateTime::parse_from_rfc3339("2026-12-02T21:00:00+08:00").unwrap()
    }

    #[test]
    fn a_mail_becomes_its_subject_key_lines_and_the_link() {
        let body = (1..=20)
            .map(|i| format!("[b]第{i}行[/b]"))
            .collect::<Vec<_>>()
            .join("\n\n");
        let m = Mail::text("第2天最终统计".into(), body, t());
        let s = short(&m, "http://127.0.0.1:8719/");
        assert!(s.starts_with("【bansha】第2天最终统计\n第1行\n"), "{s}");
        assert!(s.contains("第12行\n……（另有 8 行，见邮件）"), "{s}");
        assert!(!s.contains("第13行"));
        assert!(s.ends_with("仪表盘：http://127.0.0.1:8719/"));
    }

    #[test]
    fn a_group_gets_the_published_tally_only() {
        let mut m = Mail::text("最终".into(), "法官才看的：身份……".into(), t());
        assert_eq!(group_tally(&m), None);
        m.files.push(MailFile {
            name: "第2天投票统计.txt".into(),
            content_type: "text/plain".into(),
            cid: None,
            data: "[b]第2天[/b]\n[color=red]宋江[/color] 3 票"
                .as_bytes()
                .to_vec(),
        });
        assert_eq!(group_tally(&m).unwrap(), "第2天\n宋江 3 票");
    }
}
