//! Every mail the daemon sends the judge: subject and body, in Chinese. The daemon decides which
//! mails are due (`daemon::decide`) and queues them; the words are here.

use crate::domain::config::{DayConfig, GameConfig};
use crate::domain::mail::Mail;
use crate::domain::record::{KnownGame, StoredPost};
use crate::domain::rules::checks::PostVerdict;
use crate::domain::rules::ledger::{Entry, Standing};
use crate::domain::rules::lurk::{LurkReport, Verdict};
use crate::domain::rules::state::{GameState, Held, Holding};
use crate::domain::rules::tally::{fmt_votes, Ballot};
use crate::domain::rules::{OutcomeKind, Tally};
use crate::present::html::{subject, tally_mail, tally_subject, Drawing};
use chrono::{DateTime, FixedOffset};

type Time = DateTime<FixedOffset>;

fn fmt(t: Time) -> String {
    t.format("%Y-%m-%d %H:%M:%S").to_string()
}

/// The two phase times of a day.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Deadline {
    Lock,
    Close,
}

/// "版杀一室 第十二局 第2天 截止": the next deadline as `bansha status` shows it.
pub fn deadline_label(g: &GameConfig, d: &DayConfig, what: Deadline) -> String {
    let what = match what {
        Deadline::Lock => "锁定",
        Deadline::Close => "截止",
    };
    format!("{} 第{}天 {what}", g.name, d.day)
}

/// The tally mails: each is the tally (table, timeline, BBCode) with its own subject and intro.
#[derive(Debug, Clone, PartialEq)]
pub enum TallyMail {
    /// The lock window has begun.
    Lock,
    /// The leader changed: `leader` (ties joined with 、) with `top` votes.
    Leader { leader: String, top: f64 },
    /// The periodic interim tally, every `hours`.
    Interim { hours: u64 },
    /// The final tally at the close; below it, judge-only, what confirming it would do under
    /// the recorded state.
    Final,
    /// The final made again because the judge's rulings on the day changed after it (`why`:
    /// what changed); it replaces the earlier final.
    Corrected { why: String },
    /// The close has come but the final waits: the poll's voter lists do not name every vote
    /// it counts (`Tally::poll_gaps`), so who voted is not known.
    Held,
}

impl TallyMail {
    /// A final tally (the first, or one made again): the result of the round.
    pub fn is_final(&self) -> bool {
        matches!(self, TallyMail::Final | TallyMail::Corrected { .. })
    }
}

/// A final tally made well after its close says so: the daemon was not running or could not
/// read the forum at the close.
fn after_the_fact(closes_at: Time, now: Time) -> String {
    let late = now - closes_at;
    if late < chrono::Duration::minutes(10) {
        return String::new();
    }
    let (h, m) = (late.num_minutes() / 60, late.num_minutes() % 60);
    let late = match (h, m) {
        (0, m) => format!("{m} 分钟"),
        (h, 0) => format!("{h} 小时"),
        (h, m) => format!("{h} 小时 {m} 分钟"),
    };
    format!(
        "\n注意：这次最终计票是截止 {late}后（{}）才做的（当时守护进程没有运行，或读不到论坛）。截止后的帖子按发帖时间判为迟到；截止前后删除或编辑的帖子可能分辨不清，请核对。",
        fmt(now)
    )
}

/// The tally mail of `kind`. `state`: the judge's recorded game state, for the final's
/// judge-only part (an elimination's consequences under the roles).
pub fn tally(
    kind: &TallyMail,
    g: &GameConfig,
    d: &DayConfig,
    tally: &Tally,
    with: &Drawing,
    state: &GameState,
    now: Time,
) -> Mail {
    let (what, intro) = match kind {
        TallyMail::Lock => {
            let lock = tally
                .lock_from
                .map(|l| l.format("%H:%M").to_string())
                .unwrap_or_default();
            (
                format!("进入截止前锁定时段（{lock} 起不得改票）"),
                format!("当前统计（{}）：", fmt(now)),
            )
        }
        TallyMail::Leader { leader, top } => (
            format!("领先者变化：{leader}"),
            format!(
                "当前领先：{leader}（{} 票），统计时间 {}：",
                fmt_votes(*top),
                fmt(now)
            ),
        ),
        TallyMail::Interim { hours } => (
            format!("临时统计 {}", now.format("%m-%d %H:%M")),
            format!("定时临时统计（每 {hours} 小时一次）："),
        ),
        TallyMail::Final => (
            format!("最终计票：{}", tally.outcome.note),
            format!(
                "截止时间 {} 已到，以下是按截止时刻的帖子内容统计的结果（截止后的编辑不计）。{}\n可以直接复制到投票帖：",
                fmt(d.closes_at),
                after_the_fact(d.closes_at, now)
            ),
        ),
        TallyMail::Held => held_for_poll(d, tally, with.forum_base),
        TallyMail::Corrected { why } => (
            format!("更正后的最终计票：{}", tally.outcome.note),
            format!(
                "{why}。以下是按截止时刻的帖子内容和现在的裁定、局面重新统计的结果，取代之前的最终计票。\n可以直接复制到投票帖：",
            ),
        ),
    };
    let mut mail = tally_mail(g, d, tally, with, tally_subject(g, d, &what), &intro, now);
    if kind.is_final() && tally.outcome.kind == OutcomeKind::Eliminated {
        mail.body += &crate::present::judge::projection(g, state, &tally.outcome.players);
    }
    mail
}

/// How a mail names one post of a thread: the floor as it was read, the author, and the pid.
/// Discuz numbers floors by place, so after a deletion a later post is read at a floor an
/// earlier one was read at; the pid is the post's own, and the judge's link goes by it.
pub fn post_name(floor: &str, author: &str, pid: u64) -> String {
    format!("{floor} {author}（pid {pid}）")
}

/// How a mail names a ballot: a thread post by [`post_name`]; a message or a poll vote by its
/// own label, which is its own ("短信 <pmid>", "投票机").
fn ballot_name(b: &Ballot, pid: Option<u64>) -> String {
    match (pid, &b.source) {
        (Some(pid), crate::domain::rules::tally::Source::Post) => {
            post_name(&b.floor, &b.voter, pid)
        }
        _ => format!("{} {}", b.floor, b.voter),
    }
}

/// The subject and opening of the mail that holds a final for the poll's voter lists: what
/// disagrees, each list's address, and what happens next.
fn held_for_poll(d: &DayConfig, tally: &Tally, base: &str) -> (String, String) {
    let tid = d.vote_thread.unwrap_or_default();
    let lines: Vec<String> = tally
        .poll_gaps
        .iter()
        .map(|g| {
            let link = g
                .option_id
                .map(|id| {
                    format!(
                        "\n  {base}forum.php?mod=misc&action=viewvote&tid={tid}&polloptionid={id}"
                    )
                })
                .unwrap_or_default();
            format!("- {}{link}", crate::present::bbcode::poll_gap(g))
        })
        .collect();
    (
        "最终计票暂缓：投票机名单不全".to_string(),
        format!(
            "截止时间 {} 已到，但投票机的票数与参与人名单对不上：\n{}\n\
             投票以投票机的记录为准，名单读不全就无法知道谁投了票，所以最终计票暂缓，不判任何人自杀。\
             bansha 每次轮询都会重新读取名单，读全后立即发出最终计票。\
             如果名单一直读不全（例如投票人的账号已被删除），请按投票机页面核对后手工统计。\n\
             以下是按已读到的名单做的统计，仅供核对，不要贴到投票帖：",
            fmt(d.closes_at),
            lines.join("\n")
        ),
    )
}

/// A void or late ballot (sent once).
/// Which round of a two-round day a mail about a ballot is about ("第一轮 "), nothing on a day
/// of one round.
fn round_words(round: Option<u32>) -> &'static str {
    match round {
        Some(2) => "第二轮 ",
        Some(_) => "第一轮 ",
        None => "",
    }
}

/// A void ballot; `round` names the round on a day with a run-off.
pub fn void_ballot(
    g: &GameConfig,
    d: &DayConfig,
    b: &Ballot,
    pid: u64,
    round: Option<u32>,
    now: Time,
) -> Mail {
    Mail::text(
        subject(
            g,
            d.day,
            &format!(
                "{}无效票：{}",
                round_words(round),
                ballot_name(b, Some(pid))
            ),
        ),
        format!(
            "{} {}（pid {pid}，{}）：{}\n写的对象：{}\n\n（此邮件只发一次。）",
            b.floor,
            b.voter,
            b.posted_at.map(fmt).unwrap_or_default(),
            b.reason_and_hint(),
            b.written
        ),
        now,
    )
}

/// Several void ballots found at once (a first read of a day under way): one mail listing
/// each, with its floor link where it is a post of the vote thread `tid`.
pub fn void_digest(
    g: &GameConfig,
    d: &DayConfig,
    ballots: &[&Ballot],
    base: &str,
    tid: Option<u64>,
    round: Option<u32>,
    now: Time,
) -> Mail {
    let mut body = format!(
        "这次读取新发现 {} 张无效票（每张只报一次）：\n\n",
        ballots.len()
    );
    for b in ballots {
        let pid = match (b.pid, &b.source) {
            (Some(pid), crate::domain::rules::tally::Source::Post) => format!("pid {pid}，"),
            _ => String::new(),
        };
        body += &format!(
            "{} {}（{pid}{}）：{}\n  写的对象：{}\n",
            b.floor,
            b.voter,
            b.posted_at.map(fmt).unwrap_or_default(),
            b.reason_and_hint(),
            b.written
        );
        if let (Some(pid), Some(tid), crate::domain::rules::tally::Source::Post) =
            (b.pid, tid, &b.source)
        {
            body += &format!("  {}\n", crate::present::html::floor_url(base, tid, pid));
        }
    }
    Mail::text(
        subject(
            g,
            d.day,
            &format!(
                "{}无效票 {} 张（汇总，{} 读取）",
                round_words(round),
                ballots.len(),
                now.format("%m-%d %H:%M")
            ),
        ),
        body,
        now,
    )
}

/// The line naming a required post (报道, 杀帖) that failed its check, with until when it may
/// be fixed (`fix_by`: the day and its close, for rules with `fix_by_day`).
pub fn check_line(post: &StoredPost, verdict: &PostVerdict, fix_by: Option<(u32, Time)>) -> String {
    let mut line = format!(
        "{} {} {}：{}",
        post.floor,
        post.author,
        verdict.label,
        verdict.failures.join("；")
    );
    // Until when it may be fixed (bansha42: reports by the end of round 1).
    if let Some((fix_day, deadline)) = fix_by {
        if post.posted_at.is_some_and(|t| t <= deadline) {
            line.push_str(&format!(
                "。须在第{fix_day}天截止（{}）前重新跟帖补正，否则出局",
                deadline.format("%m-%d %H:%M")
            ));
        } else {
            line.push_str(&format!("。已过第{fix_day}天截止，按规则判出局"));
        }
    }
    line
}

/// A required post that failed its check, with its figures.
pub fn check_failed(
    g: &GameConfig,
    d: &DayConfig,
    post: &StoredPost,
    verdict: &PostVerdict,
    line: &str,
    now: Time,
) -> Mail {
    let f = &verdict.figures;
    Mail::text(
        subject(
            g,
            d.day,
            &format!(
                "{}不合格：{}",
                verdict.label,
                post_name(&post.floor, &post.author, post.pid)
            ),
        ),
        format!(
            "{}（pid {}）\n总字数 {}，去掉引用后 {} 字，字符数 {}；引用 {} 字（{:.1}%）；重复句子 {} 字（{:.1}%）\n不合格：{}\n",
            line,
            post.pid,
            f.total.words,
            f.own.words,
            f.total.chars_no_spaces,
            f.quoted_words,
            f.quoted_share * 100.0,
            f.repeated_words,
            f.repeated_share * 100.0,
            verdict.failures.join("；")
        ),
        now,
    )
}

/// The forum could not be read since `since`. `waiting`: the days past their close whose final
/// tally waits for it (day, close). `needs_judge`: the login needs the judge.
pub fn fetch_failed(
    g: &GameConfig,
    tid: u64,
    since: Time,
    error: &str,
    needs_judge: bool,
    waiting: &[(u32, Time)],
    now: Time,
) -> Mail {
    let waiting: String = waiting
        .iter()
        .map(|(day, closes_at)| {
            format!(
                "第{day}天已于 {} 截止：最终计票要等论坛恢复、读到截止前的全部投票后才发出。\n",
                fmt(*closes_at)
            )
        })
        .collect();
    Mail::text(
        format!("[{}] 无法读取论坛", g.name),
        format!(
            "自 {} 起无法读取帖子（tid {tid}）：\n{}\n\n{waiting}{}",
            fmt(since),
            error,
            if needs_judge {
                "需要法官处理（例如在浏览器里登录一次，或更新配置中的密码/cookie）；bansha 不会反复重试登录。"
            } else {
                "bansha 会继续重试；恢复后不再提醒。"
            }
        ),
        now,
    )
}

/// The day's 潜水 counts and verdicts at the close, with the discipline ledger.
pub fn lurk(
    g: &GameConfig,
    d: &DayConfig,
    lurk: &LurkReport,
    entries: &[Entry],
    standings: &[Standing],
    now: Time,
) -> Mail {
    let named = |v: Verdict| -> Vec<&str> {
        lurk.players
            .iter()
            .filter(|p| p.verdict == v)
            .map(|p| p.player.as_str())
            .collect()
    };
    let lurkers = named(Verdict::Lurk);
    let undecided = named(Verdict::Unknown);
    Mail::text(
        subject(
            g,
            d.day,
            &format!(
                "发言统计：{}{}",
                if lurkers.is_empty() {
                    "无人潜水".to_string()
                } else {
                    format!("潜水 {}", lurkers.join("、"))
                },
                if undecided.is_empty() {
                    String::new()
                } else {
                    format!("；论坛无法读取，待法官判定：{}", undecided.join("、"))
                }
            ),
        ),
        format!(
            "{}\n{}{}",
            crate::present::bbcode::lurk(g, lurk, standings),
            crate::present::bbcode::ledger(entries, standings),
            ledger_ids(entries)
        ),
        now,
    )
}

/// A day whose close cannot be one (`rules::window::misplaced_close`): held, nothing decided,
/// until the judge corrects the config.
pub fn close_misplaced(g: &GameConfig, d: &DayConfig, why: &str, now: Time) -> Mail {
    Mail::text(
        subject(g, d.day, "配置错误：截止时间不对，这一天暂不统计"),
        format!(
            "{why}\n\n在改正配置中第 {} 天的 closes_at（或 opens_at）并重新启动 bansha 之前，bansha 照常读帖、记录，\
             但这一天不出最终计票、不判潜水、不记违规、不发无效票通知。\n配置文件：{}\n",
            d.day,
            g.path.display()
        ),
        now,
    )
}

/// What the ledger decides changed after the judge was told it (a duty missed recorded after
/// the close, an entry added or struck out by hand): each change (`changed`: player, what was
/// said, what now holds, as `ledger::verdicts` words them), the 潜水 of the days it touches as
/// it now reads (to paste in place of the earlier one), and the ledger.
pub fn ledger_corrected(
    g: &GameConfig,
    changed: &[(String, String, String)],
    lurks: &[LurkReport],
    entries: &[Entry],
    standings: &[Standing],
    now: Time,
) -> Mail {
    let names: Vec<&str> = changed.iter().map(|(p, _, _)| p.as_str()).collect();
    let day = lurks
        .first()
        .map(|l| l.day)
        .or_else(|| entries.iter().filter_map(|e| e.day).max())
        .unwrap_or(1);
    let or_none = |s: &str| {
        if s.is_empty() {
            "无".to_string()
        } else {
            s.to_string()
        }
    };
    let mut body = String::from("记录改变了违规记录的判断（更正，以此为准）：\n");
    for (p, before, after) in changed {
        body += &format!("  {p}：{}（之前：{}）\n", or_none(after), or_none(before));
    }
    body += "\n";
    for l in lurks {
        body += &crate::present::bbcode::lurk(g, l, standings);
        body += "\n";
    }
    body += &crate::present::bbcode::ledger(entries, standings);
    body += &ledger_ids(entries);
    Mail::text(
        subject(g, day, &format!("违规记录更正：{}", names.join("、"))),
        body,
        now,
    )
}

/// The judge-only line under a mail's ledger: the ids `bansha ledger --remove` takes.
fn ledger_ids(entries: &[Entry]) -> String {
    let live: Vec<String> = entries
        .iter()
        .filter(|e| !e.removed)
        .map(|e| format!("{} {}", e.player, e.id))
        .collect();
    if live.is_empty() {
        return String::new();
    }
    format!(
        "\n—— 仅法官可见（不要贴到论坛）——\n撤销某条记录：bansha ledger --remove 编号。编号：{}\n",
        live.join("；")
    )
}

/// Round 2 closed and these living players did not vote in it, where every one must (chuhan
/// L118, qipan L136): what was written in the ledger, and the ledger as it stands.
pub fn runoff_duty(
    g: &GameConfig,
    d: &DayConfig,
    missed: &[Entry],
    entries: &[Entry],
    standings: &[Standing],
    now: Time,
) -> Mail {
    let names: Vec<&str> = missed.iter().map(|e| e.player.as_str()).collect();
    let kind = crate::present::bbcode::kind_zh(missed.first().map_or("warning", |e| &e.kind));
    Mail::text(
        subject(
            g,
            d.day,
            &format!("第二轮投票义务：{} 没有有效投票", names.join("、")),
        ),
        format!(
            "第 {} 天第二轮投票已截止，以下存活玩家没有有效投票，已各记{kind}一次：{}\n\n{}",
            d.day,
            names.join("、"),
            crate::present::bbcode::ledger(entries, standings) + &ledger_ids(entries)
        ),
        now,
    )
}

/// The judge-only part of the end-of-day mail: the posts flagged for the judge, each with its
/// floor link (empty when there are none). Below a line that says not to paste it.
pub fn flags(flags: &[crate::domain::rules::flags::Flag], base: &str) -> String {
    if flags.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "\n—— 仅法官可见（不要贴到论坛）：需要注意的帖子 {} 条 ——\n",
        flags.len()
    );
    for f in flags {
        s += &format!(
            "{} {} {}：{}\n  {}\n",
            f.thread,
            f.floor,
            f.author,
            f.what,
            crate::present::html::floor_url(base, f.tid, f.pid)
        );
    }
    s
}

/// The roll-call of a required post at its last day to fix it: who arrived, who fixed a
/// failing post in time, who is missing (bansha42 L48: out).
pub fn roll_call(
    g: &GameConfig,
    d: &DayConfig,
    label: &str,
    roll: &[(String, crate::domain::rules::checks::Roll)],
    now: Time,
) -> Mail {
    use crate::domain::rules::checks::Roll;
    let missing: Vec<&str> = roll
        .iter()
        .filter(|(_, r)| matches!(r, Roll::Missing(_)))
        .map(|(p, _)| p.as_str())
        .collect();
    let mut body = format!(
        "第 {} 天已截止（{}），{label}的点名：\n",
        d.day,
        fmt(d.closes_at)
    );
    for (p, r) in roll {
        body += &match r {
            Roll::Arrived(f) => format!("  {p}：已到（{f}）\n"),
            Roll::Fixed(f, bad) => format!("  {p}：已补齐（{bad} 不合格，{f} 合格）\n"),
            Roll::Missing(why) => format!("  {p}：未到——{why}\n"),
        };
    }
    if !missing.is_empty() {
        body += &format!(
            "\n按规则，截止后仍未有合格{label}的判出局：{}（确认后用 bansha change eliminate 记录）\n",
            missing.join("、")
        );
    }
    Mail::text(
        subject(
            g,
            d.day,
            &if missing.is_empty() {
                format!("{label}点名：全部已到")
            } else {
                format!("{label}点名：未到 {}", missing.join("、"))
            },
        ),
        body,
        now,
    )
}

/// One of the rules' reminders, due at `at` (m103's night deadlines).
pub fn reminder(g: &GameConfig, d: &DayConfig, text: &str, at: Time, now: Time) -> Mail {
    let first = text.split(['：', '。']).next().unwrap_or(text);
    Mail::text(
        subject(g, d.day, &format!("提醒：{first}")),
        format!("{}（{}）\n\n{text}\n\n（此提醒只发一次。）", first, fmt(at)),
        now,
    )
}

/// m103: more than half of the living have asked to accelerate in the progress thread `pt`.
pub fn acceleration(
    g: &GameConfig,
    d: &DayConfig,
    pt: u64,
    a: &crate::domain::rules::acceleration::Acceleration,
    now: Time,
) -> Mail {
    let lines: Vec<String> = a
        .requests
        .iter()
        .map(|r| {
            format!(
                "{} {}（pid {}，{}）",
                r.floor,
                r.player,
                r.pid,
                r.at.map(fmt).unwrap_or_default()
            )
        })
        .collect();
    Mail::text(
        subject(
            g,
            d.day,
            &format!("申请加速的玩家已过半（{}/{}）", a.requests.len(), a.living),
        ),
        format!(
            "进程帖（tid {pt}）中申请加速的存活玩家已超过半数（需要 {} 人，{} 时达到）：\n{}\n\n\
             确认加速后，请在本局配置的第 {} 天写上 accelerated_at = \"确认的时间\"：\
             此后的改票无效，潜水不再判定。\n",
            a.needed,
            a.reached_at.map(fmt).unwrap_or_default(),
            lines.join("\n"),
            d.day
        ),
        now,
    )
}

/// A win condition or warning that has come to hold, or is one elimination away (judge-only:
/// the state with roles follows). `last`: the state's last event id; `path`: its file.
pub fn condition(
    g: &GameConfig,
    held: &Held,
    state: &GameState,
    last: u32,
    path: &std::path::Path,
    now: Time,
) -> Mail {
    let (what, why) = match &held.holding {
        Holding::Win => (
            format!("胜负条件成立：{}", held.name),
            format!("条件：{}\n成立。", held.when),
        ),
        Holding::Warn => (
            format!("提醒：{}", held.name),
            format!("条件：{}\n成立。", held.when),
        ),
        Holding::OneAway(away) => (
            format!("再出局一人即成立：{}", held.name),
            format!(
                "条件：{}\n以下任何一人出局，该条件即成立：{}",
                held.when,
                away.join("、")
            ),
        ),
    };
    Mail::text(
        format!("[{}] {what}", g.name),
        format!(
            "{why}\n\n（仅法官可见）根据局面记录 {}（第 {last} 条记录之后）：\n\n{}",
            path.display(),
            crate::present::judge::state(g, state)
        ),
        now,
    )
}

/// A ballot post whose text changed: both versions, and whether the edit came after the close.
pub fn edited(
    g: &GameConfig,
    d: &DayConfig,
    before: &StoredPost,
    after: &StoredPost,
    seen_at: Time,
) -> Mail {
    let notice = match (&after.edited_at, &after.edited_by) {
        (Some(t), by) => format!(
            "论坛显示：本帖最后由 {} 于 {} 编辑",
            by.as_deref().unwrap_or("?"),
            t.format("%Y-%m-%d %H:%M")
        ),
        (None, _) => "论坛没有显示编辑记录（60 秒内的编辑或管理员编辑不留记录）".into(),
    };
    Mail::text(
        subject(
            g,
            d.day,
            &format!(
                "投票被编辑：{}",
                post_name(&after.floor, &after.author, after.pid)
            ),
        ),
        format!(
            "{} {}（pid {}）的帖子内容变了。\n{notice}\n{}\n之前看到的内容：\n{}\n\n{} 看到的内容：\n{}\n",
            after.floor,
            after.author,
            after.pid,
            if after.edited_at.is_some_and(|t| t >= d.closes_at) {
                format!(
                    "这次编辑在截止（{}）之后，最终计票按截止时的内容。\n",
                    fmt(d.closes_at)
                )
            } else {
                String::new()
            },
            before.text,
            fmt(seen_at),
            after.text
        ),
        seen_at,
    )
}

/// When a deleted ballot post was noticed, which decides whether a tally counts it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Gone {
    /// Before the close: it no longer counts.
    BeforeClose,
    /// By the close's own read: the final tally does not count it.
    AtClose,
    /// After the final tally was made from a read that still showed it.
    AfterFinal,
}

/// A ballot post that is gone from the forum, with its last text, when it was last seen, and
/// what that means for the tally.
pub fn gone(
    g: &GameConfig,
    d: &DayConfig,
    last: &StoredPost,
    last_seen: Option<Time>,
    when: Gone,
    now: Time,
) -> Mail {
    let seen = match last_seen {
        Some(t) => format!(
            "上一次完整读取（{}）时还在，{} 的读取已看不到。",
            fmt(t),
            fmt(now)
        ),
        None => format!("{} 的读取已看不到。", fmt(now)),
    };
    let counted = match when {
        Gone::BeforeClose => "这张票不再计入统计。".to_string(),
        Gone::AtClose => format!(
            "截止（{}）时的读取已看不到这张票：最终计票不计入。",
            fmt(d.closes_at)
        ),
        Gone::AfterFinal => {
            "最终计票已按截止时的读取发出，当时这张票还在，已计入；如需更正，请法官处理。"
                .to_string()
        }
    };
    Mail::text(
        subject(
            g,
            d.day,
            &format!(
                "投票帖消失：{}",
                post_name(&last.floor, &last.author, last.pid)
            ),
        ),
        format!(
            "{} {}（pid {}）的帖子在论坛上看不到了（被删除或进入回收站）。{seen}\n{counted}\n最后看到的内容：\n{}\n",
            last.floor, last.author, last.pid, last.text
        ),
        now,
    )
}

/// The judge's state file cannot be read: nothing is decided for the game (no final tally, no
/// 潜水, no interim) until it reads again.
pub fn state_unreadable(
    g: &GameConfig,
    path: &std::path::Path,
    error: &str,
    since: Time,
    now: Time,
) -> Mail {
    Mail::text(
        format!("[{}] 局面文件无法读取，计票暂停", g.name),
        format!(
            "自 {} 起无法读取局面文件 {}：\n{error}\n\n             局面文件记录了出局的玩家；读不出来时，bansha 不发最终计票、潜水统计和临时统计（帖子照常记录）。\n             请修好这个文件（或用 bansha change 撤销最后一次修改）；修好后的下一轮会按截止时刻补发最终计票。\n",
            fmt(since),
            path.display()
        ),
        now,
    )
}

/// The relay refused a mail for good (a content filter, a dead address): what it was, who
/// refused it and why. Sent to the addresses that still take mail.
pub fn refused(subject: &str, queued_at: Time, refused: &[(String, String)], now: Time) -> Mail {
    let lines: Vec<String> = refused
        .iter()
        .map(|(to, why)| format!("收件人 {to}：{why}"))
        .collect();
    Mail::text(
        format!("邮件被拒收：{subject}"),
        format!(
            "邮件服务器拒收了 bansha 于 {} 排队的邮件“{subject}”：\n{}\n\n             bansha 不会再发这封邮件，其余邮件照常发出。内容可在仪表盘查看（bansha status 也会列出）；\n             如果是收件地址错了，请改 judge.to 后重启。\n",
            fmt(queued_at),
            lines.join("\n")
        ),
        now,
    )
}

/// One of the judge's addresses refuses mail while the others take it (a dead mailbox): told
/// once, at the addresses that work.
pub fn refused_address(to: &str, why: &str, first: &str, now: Time) -> Mail {
    Mail::text(
        format!("邮件被拒收：收件地址 {to} 不收信"),
        format!(
            "邮件服务器拒绝向 {to} 投递（第一次是“{first}”）：\n{why}\n\n             发往其他地址的邮件照常发出；发往 {to} 的邮件都会被拒收，bansha 不再为此提醒。\n             如果这个地址不用了，请从 judge.to 里删掉后重启。\n"
        ),
        now,
    )
}

/// The judge moved a closed day's deadline later: the final made for the earlier close is
/// withdrawn, and the day runs again to the new one.
pub fn withdrawn(g: &GameConfig, d: &DayConfig, old_close: Time, now: Time) -> Mail {
    Mail::text(
        subject(
            g,
            d.day,
            &format!(
                "截止时间改为 {}：之前的最终计票作废",
                d.closes_at.format("%m-%d %H:%M")
            ),
        ),
        format!(
            "配置中第{}天的截止时间从 {} 改成了 {}。\n按 {} 截止发出的最终计票作废（如已贴到投票帖，请说明）；这一天重新开始监视，到新的截止时间会重新锁定、重新出最终计票和发言统计。\n\
             之前因“截止后才投”判为无效的票，按新的截止时间重新判定：以新的最终计票为准。\n",
            d.day,
            fmt(old_close),
            fmt(d.closes_at),
            fmt(old_close)
        ),
        now,
    )
}

/// A post edited again and again: the edits seen in one window (after the one mailed at once),
/// with the last text.
pub fn edit_storm(
    g: &GameConfig,
    d: &DayConfig,
    last: &StoredPost,
    count: usize,
    from: Time,
    to: Time,
    now: Time,
) -> Mail {
    let notice = match &last.edited_at {
        Some(t) => format!("论坛显示的最后编辑时间：{}", t.format("%Y-%m-%d %H:%M")),
        None => "论坛没有显示编辑记录".into(),
    };
    Mail::text(
        subject(
            g,
            d.day,
            &format!(
                "投票被反复编辑：{}",
                post_name(&last.floor, &last.author, last.pid)
            ),
        ),
        format!(
            "{} {}（pid {}）在 {} 到 {} 之间又编辑了 {count} 次（每个帖子半小时内的编辑合并成一封邮件）。\n{notice}\n{}\n最后看到的内容：\n{}\n",
            last.floor,
            last.author,
            last.pid,
            fmt(from),
            fmt(to),
            if last.edited_at.is_some_and(|t| t >= d.closes_at) {
                format!("最后一次编辑在截止（{}）之后，最终计票按截止时的内容。", fmt(d.closes_at))
            } else {
                String::new()
            },
            last.text
        ),
        now,
    )
}

/// The machine's clock is more than a minute from the forum's: bansha goes by the forum's.
pub fn clock_skew(machine: Time, forum: Time, now: Time) -> Mail {
    let diff = forum - machine;
    let secs = diff.num_seconds().abs();
    let (m, s) = (secs / 60, secs % 60);
    let way = if diff.num_seconds() < 0 { "快" } else { "慢" };
    let amount = match (m, s) {
        (0, s) => format!("{s} 秒"),
        (m, 0) => format!("{m} 分钟"),
        (m, s) => format!("{m} 分 {s} 秒"),
    };
    Mail::text(
        format!("本机时钟比论坛{way} {amount}：按论坛时间截止"),
        format!(
            "运行 bansha 的机器时钟是 {}，论坛（它回答里的 Date）是 {}：本机比论坛{way} {amount}。\n\
             相差超过一分钟时，bansha 按论坛的时间计时：锁票、截止、最终计票和潜水统计都以论坛时间为准，\n\
             帖子的发帖时间本来就是论坛给的。\n\n\
             请校准这台机器的时钟（例如 timedatectl set-ntp true）；校准后不需要重启。\n",
            fmt(machine),
            fmt(forum)
        ),
        now,
    )
}

/// Round 1 ended in a tie that goes to round 2, and neither the rules nor the day's config say
/// when round 2 closes: the judge is asked to set it.
pub fn runoff_needs_time(g: &GameConfig, d: &DayConfig, candidates: &[String], now: Time) -> Mail {
    Mail::text(
        subject(g, d.day, &format!("进入第二轮（{}）：请设置第二轮截止时间", candidates.join("、"))),
        format!(
            "第{}天第一轮最高票并列，进入第二轮，候选人：{}。\n\
             本局规则没有规定第二轮何时截止（由法官安排）。请在游戏配置第{}天的 [[days]] 里写上\n\
               runoff = {{ closes_at = \"YYYY-MM-DD HH:MM\", candidates = [{}] }}\n\
             保存后 bansha 自动读入（不用重启），按这个时间监视、锁定、统计第二轮。也可以在仪表盘“等法官处理”里填第二轮截止时间，bansha 替你写进配置。\n\
             不进行第二轮请写 no_runoff = true。\n",
            d.day,
            candidates.join("、"),
            d.day,
            candidates
                .iter()
                .map(|c| format!("\"{c}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        now,
    )
}

/// The sheriff day 1 elected is out and the config names no successor (m103 L154–156).
pub fn sheriff_gone(g: &GameConfig, d: &DayConfig, name: &str, now: Time) -> Mail {
    Mail::text(
        subject(g, d.day, &format!("警长 {name} 已出局：请指定继任警长")),
        format!(
            "第一天选出的警长 {name} 已出局，第{}天起没有警长（投票不再有人计 {} 票）。\n\
             规则：警长并非因为罚下而出局后，须选择一名未出局的角色来继任警长；\n\
             警长因红牌罚下而出局后，下任警长将被随机指定。\n\n\
             继任者定下后，请在这一天及以后各天的 [[days]] 里写 sheriff = \"继任者\"，保存后 bansha 自动读入（不用重启）。\n",
            d.day,
            crate::domain::rules::tally::fmt_votes(g.rules.vote.sheriff_weight)
        ),
        now,
    )
}

/// bansha42's overtime (004 L79): the tied players' votes all arrived at once, so 15 minutes of
/// overtime decide `places` of them. Sent at the close: the judge opens the overtime poll and
/// names it in the config, and bansha runs it.
pub fn overtime(
    g: &GameConfig,
    d: &DayConfig,
    closes_at: Time,
    candidates: &[String],
    places: u32,
    now: Time,
) -> Mail {
    let names: Vec<String> = candidates.iter().map(|c| format!("\"{c}\"")).collect();
    Mail::text(
        subject(
            g,
            d.day,
            &format!(
                "加时 15 分钟（至 {}）：{} 票一出{places}",
                closes_at.format("%H:%M"),
                candidates.join("、")
            ),
        ),
        format!(
            "第{}天 {} 平票且票同时到：加时 15 分钟，到 {}，票一出{places}（每人一票，{places} 人出局）。\n\
             请开加时投票机，然后在游戏配置第{}天的 [[days]] 里写上（tid 换成加时投票机的帖子）：\n\
               runoff = {{ closes_at = \"{}\", candidates = [{}], eliminate = {places}, vote_thread = tid }}\n\
             保存后 bansha 自动读入（不用重启）；它会读加时投票机，到 {} 出加时的最终计票。\n",
            d.day,
            candidates.join("、"),
            fmt(closes_at),
            d.day,
            closes_at.format("%Y-%m-%d %H:%M:%S"),
            names.join(", "),
            fmt(closes_at)
        ),
        now,
    )
}

/// A renamed game whose record is kept (`daemon::identity`): told once per rename, with the
/// `id` line that makes it plain in the config. `configured`: the id the config gives (its
/// name when it gives none).
pub fn renamed(
    name: &str,
    configured: Option<&str>,
    id: &str,
    was: &str,
    known: &KnownGame,
    now: Time,
) -> Mail {
    let threads: Vec<String> = known.vote_threads.iter().map(|t| t.to_string()).collect();
    let said = match configured {
        Some(c) => format!("配置里写的 id 是“{c}”，记录里没有它"),
        None => format!("配置里没有 id，记录里也没有名字“{name}”"),
    };
    Mail::text(
        format!("[{name}] 游戏改名：沿用“{was}”的记录，不重发"),
        format!(
            "{said}；但记录里的“{was}”（记录键“{id}”）用的是同样的投票帖（tid {}）和同样的玩家名单：是同一局改了名字。\n\
             bansha 沿用它的记录：已发的邮件不再重发，裁定、记录和计票照旧。\n\n\
             请在这局的配置里写上一行（以后改名也不要改它）：\n  id = \"{id}\"\n",
            threads.join("、")
        ),
        now,
    )
}

/// A game new to a record an older bansha made, which holds games under `ids` whose vote
/// threads it did not note: told once, in case it is one of them renamed.
pub fn unverified(name: &str, ids: &[String], now: Time) -> Mail {
    Mail::text(
        format!("[{name}] 记录里没有这一局：如果是改名，请写 id"),
        format!(
            "记录里没有“{name}”。记录里另有 bansha 较早版本记下的：{}；那时没有记下投票帖，无法核对是不是这一局。\n\
             如果这局是其中一局改了名字，请在它的配置里写 id = \"旧名\"（保存后自动读入，不用重启），已发的邮件就不会重发；如果是新的一局，不用理会。\n",
            ids.join("、")
        ),
        now,
    )
}

/// Why the daemon does not start: `g` shares vote threads with recorded games that are not
/// surely it. What to write either way.
pub fn identity_question(g: &GameConfig, like: &[(String, KnownGame)]) -> String {
    let mine: std::collections::BTreeSet<&String> = g.roster.players.iter().collect();
    let mut s = format!(
        "游戏“{}”（{}）：记录里没有“{}”，但记录里有用同样投票帖的游戏：",
        g.name,
        g.path.display(),
        g.id
    );
    for (id, k) in like {
        let threads: Vec<String> = k.vote_threads.iter().map(|t| t.to_string()).collect();
        let only_old: Vec<&str> = k
            .players
            .iter()
            .filter(|p| !mine.contains(p))
            .map(String::as_str)
            .collect();
        let only_new: Vec<&str> = mine
            .iter()
            .filter(|p| !k.players.contains(**p))
            .map(|p| p.as_str())
            .collect();
        s += &format!("“{}”（投票帖 tid {}", k.name, threads.join("、"));
        if !only_old.is_empty() || !only_new.is_empty() {
            s += &format!(
                "；玩家名单不同：记录里有而配置里没有 {}，配置里有而记录里没有 {}",
                if only_old.is_empty() {
                    "无".into()
                } else {
                    only_old.join("、")
                },
                if only_new.is_empty() {
                    "无".into()
                } else {
                    only_new.join("、")
                }
            );
        }
        s += &format!("；记录键 id = \"{id}\"）");
    }
    s += &format!(
        "。bansha 不猜是不是同一局：如果是同一局改了名字，请在配置里写上那一局的 id（如 id = \"{}\"）；\
         如果是新的一局，请写 id = \"{}\"。改好后再启动。",
        like.first().map(|(id, _)| id.as_str()).unwrap_or_default(),
        g.id
    );
    s
}

/// What a kind of record entry (a store tree) is, for the judge.
fn record_kind(tree: &str) -> &'static str {
    match tree {
        "posts" => "帖子（各版本及首见时间、删帖）",
        "cursors" => "读帖进度",
        "events" => "已完成的事件（锁票、截止等）",
        "outbox" => "待发邮件",
        "sent" => "已发邮件记录",
        "meta" => "其他记录（投票机与私信的读数、裁定、改期等）",
        "ledger" => "账本条目",
        _ => "其他",
    }
}

/// The store had to be repaired when the daemon started (issue 29, item 9): what happened to
/// sled's files, what was rebuilt from bansha's own journal, what may be missing.
pub fn store_repaired(r: &crate::domain::record::StoreRepair, state_dir: &str, now: Time) -> Mail {
    let mut body = Vec::new();
    let subject = if let Some(why) = &r.rebuilt {
        body.push(format!(
            "bansha 启动时发现记录库（sled）的文件无法读取（{why}），多半是上次进程被强行终止时正在写入。"
        ));
        "记录已恢复：记录库损坏，已从日志重建"
    } else if !r.restored.is_empty() {
        body.push(
            "bansha 启动时发现记录库（sled）丢失了它已确认写入的内容，已按 bansha 自己的日志补回。"
                .to_string(),
        );
        "记录已恢复：记录库丢失的内容已从日志补回"
    } else {
        body.push(
            "bansha 启动时发现记录库（sled）上次被中断时留下了没写完的文件，会使记录库无法打开。"
                .to_string(),
        );
        "记录已恢复：已移开记录库中断时留下的文件"
    };
    if !r.set_aside.is_empty() {
        body.push(format!(
            "这些文件已移到记录目录（{state_dir}）下，没有删除：{}。",
            r.set_aside.join("、")
        ));
    }
    if r.no_journal {
        body.push(
            "没有可用的日志（这份记录由旧版 bansha 写成，当时还没有日志），记录只能重新开始：帖子从论坛重新读取，首见时间以重读为准；\
             已发出的邮件可能再发一次；投票机与私信的读数、裁定、账本中 bansha 自动写入的条目需要核对。"
                .to_string(),
        );
    } else if !r.restored.is_empty() {
        let what: Vec<String> = r
            .restored
            .iter()
            .map(|(tree, n)| format!("{} {n} 条", record_kind(tree)))
            .collect();
        body.push(format!(
            "已按日志（record.journal）恢复：{}。已发出的邮件不会重发，已确认的记录没有丢失。",
            what.join("；")
        ));
    } else if r.rebuilt.is_some() {
        body.push("日志中没有记录（新的记录目录），记录从空开始。".to_string());
    } else {
        body.push("记录本身完好，没有丢失任何内容。".to_string());
    }
    if r.damaged_lines > 0 {
        body.push(format!(
            "日志中有 {} 行校验失败（磁盘损坏？），已跳过：相关内容以论坛重读为准，请核对。",
            r.damaged_lines
        ));
    }
    body.push(format!("（{} 记录，无需操作。）", fmt(now)));
    Mail::text(subject.to_string(), body.join("\n\n") + "\n", now)
}

/// A changed config that was not taken: the running one stays (issue 30).
pub fn config_refused(error: &str, now: Time) -> Mail {
    let body = format!(
        "改过的配置文件没有通过检查，bansha 没有采用它，仍按原来的配置运行（已发出的结果不受影响）。\n\n\
         错误：{error}\n\n\
         改正后保存即可：bansha 每轮都会查看配置文件，通过检查的新配置会自动采用，不用重启服务。\
         也可以先在命令行检查：bansha check-config --config <守护进程配置>。\n"
    );
    Mail::text("配置未采用：改过的配置有错误".to_string(), body, now)
}

/// A reloaded config changed sections that only a restart takes.
pub fn config_needs_restart(sections: &[String], daemon_config: &str, now: Time) -> Mail {
    let body = format!(
        "新的配置已经采用（游戏和轮询设置立即生效），但 {daemon_config} 里这些部分改了，\
         要重启服务才会生效：{}。\n\n在那之前 bansha 仍按原来的这些设置运行。\
         重启：sudo systemctl restart bansha\n",
        sections.join("、")
    );
    Mail::text(
        format!("配置：{} 要重启服务才生效", sections.join("、")),
        body,
        now,
    )
}

/// A new day found on the board (issue 30): proposed, or (`auto_days`) already written.
pub fn day_found(game: &str, words: &str, done: Option<&str>, now: Time) -> Mail {
    let body = match done {
        Some(done) => format!("{words}\n\n{done}（配置里 auto_days = true）。\n"),
        None => format!(
            "{words}\n\n在仪表盘“等法官处理”里点“开始监视”，bansha 就把这一天写进游戏配置（保留原有注释，旧文件留备份）并开始监视；\
             截止时间不对或没读出时，在那里填上正确的时间。不点就不监视。\n"
        ),
    };
    Mail::text(
        format!("【{game}】发现新的一天：{}", first_line(words)),
        body,
        now,
    )
}

/// A day thread bansha could not place for sure.
pub fn day_question(game: &str, text: &str, now: Time) -> Mail {
    Mail::text(
        format!("【{game}】新的一天需要确认"),
        format!(
            "{text}\n\nbansha 没有自动处理：请在游戏配置里写明这一天的帖子（或在仪表盘确认）。\n"
        ),
        now,
    )
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// The night's actions received so far (one digest per cycle with news, not a mail each), and
/// the messages that read as none.
pub fn night_digest(
    game: &str,
    night: u32,
    record: &crate::domain::night::NightRecord,
    now: Time,
) -> Mail {
    let mut body = format!(
        "第 {night} 夜已收到的行动（共 {} 条，仅法官可见）：\n",
        record.actions.len()
    );
    for a in &record.actions {
        body += &format!("  {}\n", crate::present::night::action(a));
    }
    if !record.unread.is_empty() {
        body +=
            "\n读不出行动、或要法官裁定的消息和杀帖（请自己看一下，需要时在仪表盘替玩家录入）：\n";
        for u in &record.unread {
            body += &format!("  {u}\n");
        }
    }
    body += "\n截止时会发出结算草稿；在仪表盘确认之前不会写入局面。\n";
    Mail::text(
        format!(
            "【{game}】第{night}夜 已收到 {} 条行动",
            record.actions.len()
        ),
        body,
        now,
    )
}

/// Half an hour before the night's deadline: the living roles that have sent nothing.
pub fn night_reminder(
    game: &str,
    night: u32,
    silent: &[String],
    deadline: Time,
    now: Time,
) -> Mail {
    let body = format!(
        "第 {night} 夜 {} 截止。还没有收到这些玩家的行动（仅法官可见）：{}。\n\n\
         有的身份当夜可以不行动；需要的话提醒他们，或在仪表盘替他们录入（QQ、当面告诉你的行动）。\n",
        deadline.format("%m-%d %H:%M"),
        silent.join("、")
    );
    Mail::text(
        format!("【{game}】第{night}夜 还有 {} 人没有行动", silent.len()),
        body,
        now,
    )
}

/// The night is past its deadline but its draft waits: `why` says for what (the day's result
/// to confirm, the inbox to be read). Sent once a night.
pub fn night_waiting(game: &str, night: u32, why: &str, now: Time) -> Mail {
    let body = format!(
        "第 {night} 夜已截止，但结算草稿还不能出：{why}。\n\n         条件满足后 bansha 会自动发出草稿；仪表盘上也会显示。\n"
    );
    Mail::text(format!("【{game}】第{night}夜结算草稿要等一等"), body, now)
}

/// At an earlier limit of the night (qipan's good players' moves, 003 L114 "截止时间为22:00"):
/// what the resolver makes of the actions in so far, the reply each player is owed now (L26–L29,
/// L112 "法官将及时反馈位置信息") and the positions the killers are told before they move (L48).
pub fn night_feedback(
    game: &str,
    night: u32,
    feedback: &[crate::domain::night::Feedback],
    limit: Time,
    now: Time,
) -> Mail {
    let mut body = format!(
        "第 {night} 夜好人的移动已于 {} 截止。按截止前收到的移动，要发给各玩家的反馈（仅法官可见）：
",
        limit.format("%m-%d %H:%M")
    );
    for f in feedback {
        body += &format!(
            "  → {}：{}
",
            f.to, f.text
        );
    }
    if feedback.is_empty() {
        body += "  无
";
    }
    body += "
杀手行动之后，夜晚截止时会发出整夜的结算草稿；在仪表盘确认之前不会写入局面。
";
    Mail::text(
        format!(
            "【{game}】第{night}夜 好人移动结果（{} 截止）",
            limit.format("%H:%M")
        ),
        body,
        now,
    )
}

/// At the night's deadline: the resolution drafted by the rule post's resolver, for the judge
/// to check and confirm on the dashboard.
pub fn night_draft(game: &str, res: &crate::domain::night::Resolution, now: Time) -> Mail {
    let body = format!(
        "{}\n\n这是草稿：在仪表盘点“确认第 {} 夜结算”之后，死亡、已用的能力和带到下一天的效果才写入局面。\n",
        crate::present::night::text(res),
        res.night
    );
    Mail::text(
        format!(
            "【{game}】第{}夜结算草稿：{}",
            res.night,
            if res.deaths.is_empty() {
                "无人死亡".to_string()
            } else {
                res.deaths
                    .iter()
                    .map(|d| d.player.clone())
                    .collect::<Vec<_>>()
                    .join("、")
                    + " 死亡"
            }
        ),
        body,
        now,
    )
}

/// A running day's first post says another deadline than the config (an edit moved it).
pub fn deadline_moved(game: &str, words: &str, now: Time) -> Mail {
    Mail::text(
        format!("【{game}】截止时间可能改了"),
        format!(
            "{words}\n\nbansha 仍按配置里的时间截止。要改，在仪表盘“等法官处理”里点“改为这个截止时间”（bansha 改写游戏配置，旧文件留备份，不用重启），或自己改配置里的 closes_at。\n"
        ),
        now,
    )
}
