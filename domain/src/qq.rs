//! QQ through a OneBot 11 bot (issue 35), the pure parts: which mails also go to QQ and to whom,
//! the event signature (`X-Signature: sha1=<hex HMAC-SHA1 of the body>`, OneBot 11
//! communication/http-post.md), events read from their JSON, a message split under the
//! platform's limit, QQ numbers mapped to players (`[roster.qq]`), and what a player's private
//! message reads as: a proxy vote (bansha42 托票, 004 L76 "托票必须明确指定＂票×××＂"), a night
//! action (m103 002 L215, L235–L237: actions go to the judge privately), a kill post (004 L60
//! "杀帖应当用ＱＱ或邮箱…给哨"), or nothing the judge must read himself.

use crate::config::{GameConfig, Proxy};
use crate::night::Action;
use chrono::{DateTime, FixedOffset, TimeZone};
use serde::{Deserialize, Serialize};

type Time = DateTime<FixedOffset>;

/// The kinds of mail that also go to QQ (`[qq] send`), by what the judge reads in the moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The final tally of a round (and a corrected one).
    Final,
    /// A void ballot, or a digest of them.
    Void,
    /// The lock window's start.
    Lock,
    /// A run-off the judge has to set (its time, or the overtime poll).
    Runoff,
    /// A failure the judge must act on: the forum, the login, the state file, a refused mail,
    /// a QQ channel that keeps failing.
    Failure,
    /// A win condition or warning that came to hold.
    Win,
    /// The night: the reminder before its deadline and the resolution's draft.
    Night,
}

impl Kind {
    pub const ALL: [Kind; 7] = [
        Kind::Final,
        Kind::Void,
        Kind::Lock,
        Kind::Runoff,
        Kind::Failure,
        Kind::Win,
        Kind::Night,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Final => "final",
            Kind::Void => "void",
            Kind::Lock => "lock",
            Kind::Runoff => "runoff",
            Kind::Failure => "failure",
            Kind::Win => "win",
            Kind::Night => "night",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }

    /// The kind of a queued mail, by its key (the keys `daemon::cycle` and `daemon::decide`
    /// queue mails under); None: the mail stays mail only.
    pub fn of_mail_key(key: &str) -> Option<Kind> {
        let head = key.split('/').next().unwrap_or("");
        Some(match head {
            "close" => Kind::Final,
            "void" | "voids" => Kind::Void,
            "lock" => Kind::Lock,
            "runoff_time" | "overtime" => Kind::Runoff,
            "fetchfail" | "loginfail" | "statefail" | "refused" | "qqfail" => Kind::Failure,
            "state" => Kind::Win,
            "night_draft" | "night_remind" => Kind::Night,
            _ => return None,
        })
    }
}

/// The replies bansha drafts to a player (`[qq] replies`): sent only for the kinds the judge
/// enabled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplyKind {
    /// 004 L76: a proxy vote reached the judge (and at what time).
    ProxyVote,
    /// A night action reached the judge.
    NightAction,
    /// A kill post reached the judge (004 L60).
    KillPost,
}

impl ReplyKind {
    pub const ALL: [ReplyKind; 3] = [
        ReplyKind::ProxyVote,
        ReplyKind::NightAction,
        ReplyKind::KillPost,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ReplyKind::ProxyVote => "proxy_vote",
            ReplyKind::NightAction => "night_action",
            ReplyKind::KillPost => "kill_post",
        }
    }

    pub fn parse(s: &str) -> Option<ReplyKind> {
        ReplyKind::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// Why an event POST is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignatureError {
    /// No `X-Signature` header (HTTP 401, as the specification's Koa example answers).
    Missing,
    /// A header that is not `sha1=` and the body's HMAC (HTTP 403).
    Wrong,
}

/// `sha1=<hex>`: the HMAC-SHA1 of `body` with `secret`, as a OneBot implementation signs.
pub fn sign(secret: &[u8], body: &[u8]) -> String {
    use hmac::Mac;
    let mut mac = hmac::Hmac::<sha1::Sha1>::new_from_slice(secret).expect("HMAC takes any key");
    mac.update(body);
    format!("sha1={}", hex::encode(mac.finalize().into_bytes()))
}

/// Check an event's `X-Signature` against its body (in constant time).
pub fn verify_signature(
    secret: &[u8],
    body: &[u8],
    header: Option<&str>,
) -> Result<(), SignatureError> {
    use hmac::Mac;
    let header = header.ok_or(SignatureError::Missing)?;
    let hex_sig = header
        .trim()
        .strip_prefix("sha1=")
        .ok_or(SignatureError::Wrong)?;
    let given = hex::decode(hex_sig).map_err(|_| SignatureError::Wrong)?;
    let mut mac = hmac::Hmac::<sha1::Sha1>::new_from_slice(secret).expect("HMAC takes any key");
    mac.update(body);
    mac.verify_slice(&given).map_err(|_| SignatureError::Wrong)
}

/// Split a text into messages of at most `limit` characters, at line breaks; a line longer
/// than the limit alone is cut at characters.
pub fn split(text: &str, limit: usize) -> Vec<String> {
    let limit = limit.max(1);
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut cur_len = 0;
    for line in text.trim_end().split('\n') {
        let line = line.trim_end_matches('\r');
        let n = line.chars().count();
        let extra = if cur.is_empty() { n } else { n + 1 };
        if cur_len + extra <= limit {
            if !cur.is_empty() {
                cur.push('\n');
            }
            cur.push_str(line);
            cur_len += extra;
            continue;
        }
        if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
            cur_len = 0;
        }
        let chars: Vec<char> = line.chars().collect();
        let mut chunks = chars.chunks(limit).peekable();
        while let Some(c) = chunks.next() {
            if chunks.peek().is_some() {
                out.push(c.iter().collect());
            } else {
                cur = c.iter().collect();
                cur_len = c.len();
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Where a QQ message goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Target {
    /// A private message to this QQ number (`send_private_msg`).
    Private(u64),
    /// A group (`send_group_msg`).
    Group(u64),
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Private(n) => write!(f, "QQ {n}"),
            Target::Group(n) => write!(f, "群 {n}"),
        }
    }
}

/// A QQ message in the record's queue: sent in order, once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outgoing {
    /// Unique: the mail's key (or the inbound message's), the target and the part.
    pub key: String,
    pub target: Target,
    pub text: String,
    pub queued_at: Time,
}

/// A OneBot 11 event as bansha reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// `post_type = "message"`, `message_type = "private"`.
    Private {
        user_id: u64,
        message_id: Option<i64>,
        time: i64,
        text: String,
    },
    /// `message_type = "group"`: kept, never read as a player's private message.
    Group {
        group_id: u64,
        user_id: u64,
        message_id: Option<i64>,
        time: i64,
        text: String,
    },
    /// Anything else (meta events such as the heartbeat, notices, requests): not kept.
    Other(String),
}

#[derive(Deserialize)]
struct EventJson {
    post_type: String,
    message_type: Option<String>,
    user_id: Option<u64>,
    group_id: Option<u64>,
    message_id: Option<i64>,
    time: Option<i64>,
    message: Option<serde_json::Value>,
    raw_message: Option<String>,
}

/// Read an event POST's body.
pub fn parse_event(body: &[u8]) -> Result<Event, String> {
    let e: EventJson =
        serde_json::from_slice(body).map_err(|e| format!("不是 OneBot 11 事件：{e}"))?;
    if e.post_type != "message" {
        return Ok(Event::Other(e.post_type));
    }
    let text = match (&e.message, &e.raw_message) {
        (Some(m), _) => message_text(m),
        (None, Some(raw)) => cq_text(raw),
        (None, None) => String::new(),
    };
    let user_id = e.user_id.ok_or("消息事件缺少 user_id")?;
    let time = e.time.ok_or("消息事件缺少 time")?;
    match e.message_type.as_deref() {
        Some("private") => Ok(Event::Private {
            user_id,
            message_id: e.message_id,
            time,
            text,
        }),
        Some("group") => Ok(Event::Group {
            group_id: e.group_id.ok_or("群消息缺少 group_id")?,
            user_id,
            message_id: e.message_id,
            time,
            text,
        }),
        other => Ok(Event::Other(format!("message/{}", other.unwrap_or("")))),
    }
}

/// A message's text: the string format with its CQ codes left out and unescaped
/// (message/string.md), or the array format's `text` segments.
pub fn message_text(m: &serde_json::Value) -> String {
    match m {
        serde_json::Value::String(s) => cq_text(s),
        serde_json::Value::Array(segs) => segs
            .iter()
            .filter(|s| s.get("type").and_then(|t| t.as_str()) == Some("text"))
            .filter_map(|s| s.pointer("/data/text").and_then(|t| t.as_str()))
            .collect(),
        _ => String::new(),
    }
}

/// The plain text of a string-format message: `[CQ:…]` codes dropped, `&amp;`, `&#91;`,
/// `&#93;` unescaped.
fn cq_text(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("[CQ:") {
        out.push_str(&rest[..i]);
        match rest[i..].find(']') {
            Some(j) => rest = &rest[i + j + 1..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out.replace("&#91;", "[")
        .replace("&#93;", "]")
        .replace("&#44;", ",")
        .replace("&amp;", "&")
}

/// What a player's private message reads as.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reading {
    /// 004 L76: "票×××" (optionally after 托票).
    ProxyVote { target: String },
    /// "行动：POWER TARGET" (夜晚行动 / 夜间行动 too).
    NightAction {
        power: String,
        target: Option<String>,
    },
    /// A text that starts with 杀帖, or is as long as one (004 L58: 801 字 and more).
    KillPost { chars: usize },
    /// Nothing bansha can read: listed for the judge.
    Nothing,
}

/// 004 L58: a kill post has more than 800 characters.
pub const KILL_POST_CHARS: usize = 801;

/// Read a player's private message.
pub fn read_message(text: &str) -> Reading {
    let t = text.trim();
    let chars = t.chars().filter(|c| !c.is_whitespace()).count();
    if t.starts_with("杀帖") || chars >= KILL_POST_CHARS {
        return Reading::KillPost { chars };
    }
    if t.contains('\n') {
        return Reading::Nothing;
    }
    let colon = |s: &str| {
        s.trim_start_matches([' ', '：', ':', '，', ','])
            .trim()
            .to_string()
    };
    let proxy = t
        .strip_prefix("托票")
        .map(colon)
        .unwrap_or_else(|| t.to_string());
    if let Some(target) = proxy.strip_prefix('票').map(colon) {
        if !target.is_empty() && !target.contains(char::is_whitespace) {
            return Reading::ProxyVote { target };
        }
    }
    for head in ["夜晚行动", "夜间行动", "行动"] {
        if let Some(rest) = t.strip_prefix(head) {
            let rest = colon(rest);
            let mut parts = rest
                .split([' ', '　', '：', ':', '，', ','])
                .filter(|p| !p.is_empty());
            if let Some(power) = parts.next() {
                let target = parts.next().map(str::to_string);
                if parts.next().is_none() {
                    return Reading::NightAction {
                        power: power.to_string(),
                        target,
                    };
                }
            }
        }
    }
    Reading::Nothing
}

/// A player as a QQ number maps them: the game's id and the player's name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlayerRef {
    pub game: String,
    pub player: String,
}

/// The player a QQ number is, in the first game whose `[roster.qq]` names it.
pub fn player_of(games: &[GameConfig], user_id: u64) -> Option<PlayerRef> {
    let key = user_id.to_string();
    games.iter().find_map(|g| {
        g.roster.qq.get(&key).map(|p| PlayerRef {
            game: g.id.clone(),
            player: p.clone(),
        })
    })
}

/// A message the bot delivered, as the record keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inbound {
    /// When the player sent it (the event's `time`, in the game's offset).
    pub at: Time,
    /// When bansha received it.
    pub received_at: Time,
    pub user_id: u64,
    #[serde(default)]
    pub group_id: Option<u64>,
    pub message_id: Option<i64>,
    pub text: String,
    /// None: a number no game's `[roster.qq]` names (or a group message).
    pub player: Option<PlayerRef>,
    pub reading: Reading,
}

impl Inbound {
    /// Read an event into the record's form (None: not a message).
    pub fn of_event(
        e: &Event,
        games: &[GameConfig],
        offset: FixedOffset,
        now: Time,
    ) -> Option<Inbound> {
        let (user_id, group_id, message_id, time, text) = match e {
            Event::Private {
                user_id,
                message_id,
                time,
                text,
            } => (*user_id, None, *message_id, *time, text),
            Event::Group {
                group_id,
                user_id,
                message_id,
                time,
                text,
            } => (*user_id, Some(*group_id), *message_id, *time, text),
            Event::Other(_) => return None,
        };
        let at = offset.timestamp_opt(time, 0).single().unwrap_or(now);
        let player = group_id
            .is_none()
            .then(|| player_of(games, user_id))
            .flatten();
        let reading = match player {
            Some(_) => read_message(text),
            None => Reading::Nothing,
        };
        Some(Inbound {
            at,
            received_at: now,
            user_id,
            group_id,
            message_id,
            text: text.clone(),
            player,
            reading,
        })
    }

    /// The same message delivered again (the bot repeats a POST it got no answer to).
    pub fn same(&self, other: &Inbound) -> bool {
        self.user_id == other.user_id
            && self.group_id == other.group_id
            && self.at == other.at
            && match (self.message_id, other.message_id) {
                (Some(a), Some(b)) => a == b,
                _ => self.text == other.text,
            }
    }

    /// For the judge to read himself: from a number no game names, or reading as nothing.
    pub fn for_judge(&self) -> bool {
        self.group_id.is_none() && (self.player.is_none() || self.reading == Reading::Nothing)
    }

    /// The record key of this message (for its reply's key).
    pub fn key(&self) -> String {
        format!(
            "{}/{}/{}",
            self.user_id,
            self.at.timestamp(),
            self.message_id.unwrap_or_default()
        )
    }
}

/// The proxy votes QQ brought for a game, as the tally takes the judge's (`Proxy`), by day:
/// each goes to the first day whose round 1 closes at or after it was sent (round 2 of a day
/// whose run-off is open then). Its time is the message's; a late one is refused by the tally's
/// own cutoff (004 L76 "20：40起不再接受托票").
pub fn proxies(inbox: &[Inbound], g: &GameConfig) -> Vec<(u32, Proxy)> {
    let mut out = Vec::new();
    for m in inbox {
        let (Some(p), Reading::ProxyVote { target }) = (&m.player, &m.reading) else {
            continue;
        };
        if p.game != g.id {
            continue;
        }
        let mut days: Vec<_> = g.days.iter().filter(|d| d.vote_thread.is_some()).collect();
        days.sort_by_key(|d| d.closes_at);
        let place = days.iter().find_map(|d| {
            if m.at <= d.closes_at {
                return Some((d.day, 1));
            }
            d.runoff
                .as_ref()
                .filter(|r| m.at <= r.closes_at)
                .map(|_| (d.day, 2))
        });
        if let Some((day, round)) = place {
            out.push((
                day,
                Proxy {
                    voter: p.player.clone(),
                    target: target.clone(),
                    at: m.at,
                    round,
                    note: Some(format!("QQ 托票（{} 发）", m.at.format("%m-%d %H:%M:%S"))),
                },
            ));
        }
    }
    out
}

/// The night actions players of `game` sent by QQ in `[from, to)`, as the night resolver takes
/// them: the player, the power and target as written, the time sent.
pub fn night_actions(inbox: &[Inbound], game: &str, from: Time, to: Time) -> Vec<Action> {
    inbox
        .iter()
        .filter(|m| m.at >= from && m.at < to)
        .filter_map(|m| {
            let p = m.player.as_ref().filter(|p| p.game == game)?;
            let Reading::NightAction { power, target } = &m.reading else {
                return None;
            };
            Some(Action {
                by: vec![p.player.clone()],
                power: power.clone(),
                target: target.clone(),
                platform: None,
                sent_at: Some(m.at),
                source: format!(
                    "QQ {} 的私聊（{}）",
                    m.user_id,
                    m.at.format("%Y-%m-%d %H:%M:%S")
                ),
            })
        })
        .collect()
}

/// A QQ channel's failures in a row (the bot down, a failed retcode, a timeout).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Streak {
    pub since: Option<Time>,
    pub count: u32,
    pub last_error: String,
    /// The judge was mailed about this streak.
    pub told: bool,
}

impl Streak {
    /// One more failure at `now`; true when the judge is to be told now (the `after`-th in a
    /// row, once per streak).
    pub fn failed(&mut self, error: String, now: Time, after: u32) -> bool {
        self.since.get_or_insert(now);
        self.count += 1;
        self.last_error = error;
        if self.count >= after.max(1) && !self.told {
            self.told = true;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Time {
        DateTime::parse_from_rfc3339(s).unwrap()
    }

    #[test]
    fn the_specifications_signature_example_verifies_and_others_do_not() {
        // Python: hmac.new(b"secret", b'{"a":1}', "sha1").hexdigest()
        let body = br#"{"a":1}"#;
        let sig = sign(b"secret", body);
        assert!(sig.starts_with("sha1=") && sig.len() == 45, "{sig}");
        assert_eq!(verify_signature(b"secret", body, Some(&sig)), Ok(()));
        assert_eq!(
            verify_signature(b"other", body, Some(&sig)),
            Err(SignatureError::Wrong)
        );
        assert_eq!(
            verify_signature(b"secret", br#"{"a":2}"#, Some(&sig)),
            Err(SignatureError::Wrong)
        );
        assert_eq!(
            verify_signature(b"secret", body, Some(&sig[5..])),
            Err(SignatureError::Wrong)
        );
        assert_eq!(
            verify_signature(b"secret", body, None),
            Err(SignatureError::Missing)
        );
    }

    #[test]
    fn a_known_hmac_sha1_vector() {
        // RFC 2202 test case 2.
        assert_eq!(
            sign(b"Jefe", b"what do ya want for nothing?"),
            "sha1=effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"
        );
    }

    #[test]
    fn splitting_keeps_lines_whole_under_the_limit() {
        let text = "第一行\n第二行很长很长\n三";
        assert_eq!(split(text, 100), vec![text.to_string()]);
        assert_eq!(split(text, 9), vec!["第一行", "第二行很长很长\n三"]);
        assert_eq!(split(text, 8), vec!["第一行", "第二行很长很长", "三"]);
        // A line longer than the limit is cut at characters, nothing lost.
        let parts = split("一二三四五六七", 3);
        assert_eq!(parts, vec!["一二三", "四五六", "七"]);
        for p in split(
            &"字"
                .repeat(50)
                .replace("字字字字字字字", "字字字字字字字\n"),
            10,
        ) {
            assert!(p.chars().count() <= 10, "{p}");
        }
        assert!(split("", 10).is_empty());
    }

    #[test]
    fn mails_map_to_kinds_by_their_keys() {
        assert_eq!(Kind::of_mail_key("close/g/2"), Some(Kind::Final));
        assert_eq!(Kind::of_mail_key("close/g/2/r1"), Some(Kind::Final));
        assert_eq!(Kind::of_mail_key("void/g/2/77"), Some(Kind::Void));
        assert_eq!(Kind::of_mail_key("lock/g/2"), Some(Kind::Lock));
        assert_eq!(Kind::of_mail_key("runoff_time/g/2"), Some(Kind::Runoff));
        assert_eq!(Kind::of_mail_key("fetchfail/3/100"), Some(Kind::Failure));
        assert_eq!(Kind::of_mail_key("state/g/x/1"), Some(Kind::Win));
        assert_eq!(Kind::of_mail_key("interim/g/2/5"), None);
        assert_eq!(Kind::of_mail_key("leader/g/2/0"), None);
    }

    #[test]
    fn events_are_read_in_both_message_formats() {
        let body = r#"{"time":1764680400,"self_id":1,"post_type":"message","message_type":"private","sub_type":"friend","message_id":12,"user_id":10001,"message":"[CQ:face,id=178]&#91;票&#93; 李逵","raw_message":"x","font":0,"sender":{}}"#;
        let e = parse_event(body.as_bytes()).unwrap();
        assert_eq!(
            e,
            Event::Private {
                user_id: 10001,
                message_id: Some(12),
                time: 1764680400,
                text: "[票] 李逵".into()
            }
        );
        let body = r#"{"time":1,"post_type":"message","message_type":"private","user_id":5,"message":[{"type":"face","data":{"id":"1"}},{"type":"text","data":{"text":"票宋江"}}]}"#;
        match parse_event(body.as_bytes()).unwrap() {
            Event::Private { text, .. } => assert_eq!(text, "票宋江"),
            e => panic!("{e:?}"),
        }
        let hb = br#"{"time":1,"post_type":"meta_event","meta_event_type":"heartbeat"}"#;
        assert_eq!(parse_event(hb).unwrap(), Event::Other("meta_event".into()));
        assert!(parse_event(b"not json").is_err());
    }

    #[test]
    fn messages_read_as_proxy_votes_night_actions_kill_posts_or_nothing() {
        // 004 L76: "票×××".
        assert_eq!(
            read_message("票李逵"),
            Reading::ProxyVote {
                target: "李逵".into()
            }
        );
        assert_eq!(
            read_message("托票：票 宋江"),
            Reading::ProxyVote {
                target: "宋江".into()
            }
        );
        // 004 L76 refuses "托某时某高": not a target.
        assert_eq!(read_message("票投给某时某高 的那个人"), Reading::Nothing);
        assert_eq!(
            read_message("行动：刀 宋江"),
            Reading::NightAction {
                power: "刀".into(),
                target: Some("宋江".into())
            }
        );
        assert_eq!(
            read_message("夜晚行动: 查验，吴用"),
            Reading::NightAction {
                power: "查验".into(),
                target: Some("吴用".into())
            }
        );
        assert!(matches!(
            read_message("杀帖\n代号A\n……"),
            Reading::KillPost { .. }
        ));
        assert!(matches!(
            read_message(&"字".repeat(801)),
            Reading::KillPost { chars: 801 }
        ));
        assert_eq!(read_message("法官晚上好"), Reading::Nothing);
    }

    #[test]
    fn a_failure_streak_is_told_once() {
        let mut s = Streak::default();
        let t = at("2026-12-02T20:00:00+08:00");
        assert!(!s.failed("down".into(), t, 3));
        assert!(!s.failed("down".into(), t, 3));
        assert!(s.failed("down".into(), t, 3));
        assert!(!s.failed("down".into(), t, 3));
        assert_eq!(s.count, 4);
        assert_eq!(s.since, Some(t));
    }

    fn game() -> GameConfig {
        crate::game::load_str(
            "ruleset = \"bansha42\"\nname = \"t\"\n[roster]\nplayers = [\"甲\", \"乙\", \"丙\"]\n\
             [roster.qq]\n\"101\" = \"甲\"\n\"102\" = \"乙\"\n\
             [[days]]\nday = 1\nvote_thread = 3\ncloses_at = \"2026-12-01 21:00\"\n\
             [[days]]\nday = 2\nvote_thread = 4\ncloses_at = \"2026-12-02 21:00\"\n",
            std::path::Path::new("t.toml"),
        )
        .unwrap()
    }

    fn private(user: u64, time: &str, id: i64, text: &str) -> Inbound {
        let g = game();
        let e = Event::Private {
            user_id: user,
            message_id: Some(id),
            time: at(time).timestamp(),
            text: text.into(),
        };
        let now = at("2026-12-03T00:00:00+08:00");
        Inbound::of_event(&e, &[g], FixedOffset::east_opt(8 * 3600).unwrap(), now).unwrap()
    }

    #[test]
    fn a_qq_proxy_vote_goes_to_the_day_it_was_sent_in_with_its_time() {
        let g = game();
        let inbox = vec![
            private(101, "2026-12-01T20:10:00+08:00", 1, "票丙"),
            // After day 1's close: day 2's.
            private(102, "2026-12-01T21:00:01+08:00", 2, "票甲"),
            // A stranger's "vote" is no vote.
            private(999, "2026-12-01T20:00:00+08:00", 3, "票丙"),
            // After the last close: no day.
            private(101, "2026-12-03T20:00:00+08:00", 4, "票乙"),
        ];
        let p = proxies(&inbox, &g);
        assert_eq!(p.len(), 2, "{p:?}");
        assert_eq!(
            (p[0].0, p[0].1.voter.as_str(), p[0].1.target.as_str()),
            (1, "甲", "丙")
        );
        assert_eq!(p[0].1.at, at("2026-12-01T20:10:00+08:00"));
        assert_eq!(p[0].1.round, 1);
        assert_eq!((p[1].0, p[1].1.voter.as_str()), (2, "乙"));
        assert!(inbox[2].for_judge() && !inbox[0].for_judge());
    }

    #[test]
    fn night_actions_are_the_games_in_the_window_as_the_resolver_takes_them() {
        let inbox = vec![
            private(101, "2026-12-01T22:00:00+08:00", 1, "行动：刀 乙"),
            private(102, "2026-12-01T22:05:00+08:00", 2, "夜晚行动：查验 甲"),
            private(101, "2026-12-02T22:00:00+08:00", 3, "行动：刀 丙"),
            private(102, "2026-12-01T22:06:00+08:00", 4, "晚上好"),
        ];
        let a = night_actions(
            &inbox,
            "t",
            at("2026-12-01T21:00:00+08:00"),
            at("2026-12-02T09:00:00+08:00"),
        );
        assert_eq!(a.len(), 2, "{a:?}");
        assert_eq!(a[0].by, vec!["甲"]);
        assert_eq!(
            (a[0].power.as_str(), a[0].target.as_deref()),
            ("刀", Some("乙"))
        );
        assert_eq!(a[0].sent_at, Some(at("2026-12-01T22:00:00+08:00")));
        assert!(a[0].source.starts_with("QQ 101"), "{}", a[0].source);
        assert_eq!(a[1].power, "查验");
        assert!(night_actions(
            &inbox,
            "other",
            at("2026-12-01T00:00:00+08:00"),
            at("2026-12-09T00:00:00+08:00")
        )
        .is_empty());
        assert!(
            inbox[3].for_judge(),
            "a text read as nothing is the judge's"
        );
    }

    #[test]
    fn a_repeated_post_of_one_message_is_the_same_message() {
        let a = private(101, "2026-12-01T22:00:00+08:00", 1, "行动：刀 乙");
        let mut b = a.clone();
        b.received_at = at("2026-12-03T01:00:00+08:00");
        assert!(a.same(&b));
        let c = private(101, "2026-12-01T22:00:00+08:00", 2, "行动：刀 乙");
        assert!(!a.same(&c), "another message id is another message");
    }
}
