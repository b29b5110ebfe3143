//! One simulated game run by the whole service: a plan drawn from a seed (the game of the
//! tally simulator, deletions, faults at moments drawn at random), the service started on the
//! simulated forum, relay, clock and disk, driven tick by tick as its scheduler drives it,
//! killed and started again, and what it mailed checked against the oracles at the end.

use crate::gen::{self, Game, Rng, JUDGE};
use crate::world::{
    self, ForumFault, RelayFault, SimClock, SimForum, SimPost, SimRelay, SimThread, World,
};
use bansha::daemon::service::Service;
use bansha::daemon::{Daemon, Plants, Seams};
use bansha::domain::rules::Tally;
use chrono::{DateTime, Duration, FixedOffset};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

type Time = DateTime<FixedOffset>;

/// What happens to the world at a moment.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The next requests meet these faults.
    Forum(Vec<ForumFault>),
    /// The next mails meet these.
    Relay(Vec<RelayFault>),
    /// The relay answers every mail 421 for this many seconds.
    RelayDown(i64),
    /// The process is killed at its k-th IO call from now (forum request or mail).
    Crash(u64),
    /// The record's disk fills at the k-th IO call from now, for this many seconds.
    DiskFull(u64, i64),
    /// The machine sleeps this many seconds (nothing runs; the process keeps its memory).
    Sleep(i64),
    /// The machine's clock jumps by this many seconds (either way).
    ClockJump(i64),
    /// The forum forgets the judge's session (expired, or the judge logged in elsewhere): the
    /// next inbox read is answered as to a guest.
    LoggedOut,
}

/// Everything a seed decides.
#[derive(Clone, Debug)]
pub struct Plan {
    pub seed: u64,
    pub game: Game,
    /// (pid, unix time): a post deleted by a moderator before its round's close.
    pub deletions: Vec<(u64, i64)>,
    /// (unix time, event), in time order.
    pub events: Vec<(i64, Event)>,
    /// (unix time, day, by SIGHUP): when the judge types day N's block into the game config
    /// while the service runs (day 1's is there from the start), and whether they then run
    /// `systemctl reload` or leave it to the service to see the file changed.
    pub days_typed: Vec<(i64, u32, bool)>,
    /// The machine's clock minus the forum's from the start, seconds: a server whose clock was
    /// never set right (or runs another NTP source than the forum's) starts the game apart from
    /// the forum, and the catch-up cycle is the first to see it. `ClockJump`s add to it.
    pub machine_skew: i64,
    pub plants: Plants,
    /// The daemon enforces a lock one minute short of the rules' (a planted bug).
    pub lock_off_by_one: bool,
    /// Posts their authors edit before the close (the forum shows the new text from then on,
    /// under Discuz's edit notice).
    pub edits: Vec<Edit>,
    /// (unix time, day): when the judge first clicks "确认第 N 天结果" on the dashboard, after
    /// the day's last close; most within hours, some only after the next day's close.
    pub confirms: Vec<(i64, u32)>,
    /// chuhan: the 左士 and the 右士 (000 L80, L82), whose nights the simulator plays.
    pub shi: Option<(String, String)>,
    /// chuhan: 楚's 帅, who kills at night (000 L52 "帅每夜可以通过短消息向法官提交一篇杀帖，杀死一个玩家").
    pub shuai: Option<String>,
    /// jiaohui: the seats whose nights the simulator plays (001 三(一)).
    pub church: Option<Church>,
    /// m103: the seats whose nights the simulator plays (002 L12–L13, 游戏流程 3).
    pub court: Option<Court>,
    /// qipan: the map and the killers whose nights the simulator plays (003 L12–L49).
    pub board: Option<Board>,
    /// bansha42: the seats whose kill posts the simulator hands in to the forum (004 L8–L24).
    pub table: Option<Table>,
    /// chuhan, jiaohui, m103: each night's private messages, the judge's dashboard entries and
    /// his click confirming it.
    pub nights: Vec<NightPlan>,
}

/// A qipan game's night as the simulator plays it (003 L12–L49): a map of 4 × 4 cells less
/// two walls, each player's start cell, the 主杀 and the 副杀 (the 杀手, L42); every other player
/// is 好人. No items (L57–L75).
#[derive(Clone, Debug)]
pub struct Board {
    pub grid: Vec<String>,
    /// (row, column), row 1 the north, column 1 the west ("A1").
    pub start: BTreeMap<String, (i32, i32)>,
    pub chief: String,
    pub second: String,
}

/// A bansha42 game's seats with a part in the night, as the simulator plays them (004 L8–L24,
/// codes L93–L101): two 联合杀, one 情侣刺 and one 独立刺, who hand in kill posts to the game's
/// kill-post thread (L60 "自己根据交帖口令提交至论坛"), and the 明蛋 and the 暗蛋, whose fireworks
/// take a poster with them (L22, L24), and the 巫师, whose potions (L16–L17: a 解药 for one the
/// posts killed, a 毒药 for anyone alive, each once a game) reach the judge by QQ and are entered
/// on the dashboard ("用药需出贴": her post is the judge's to see). The others have no role
/// written: the roster is not complete, so no win is judged. No 禁权, 黑蛋 or 魔术.
#[derive(Clone, Debug)]
pub struct Table {
    /// (player, role, faction, code).
    pub seats: Vec<(String, &'static str, &'static str, &'static str)>,
}

impl Table {
    fn seat(&self, player: &str) -> Option<&(String, &'static str, &'static str, &'static str)> {
        self.seats.iter().find(|s| s.0 == player)
    }
    fn by_code(&self, code: &str) -> Option<&String> {
        self.seats.iter().find(|s| s.3 == code).map(|s| &s.0)
    }
}

/// An m103 game's seats, every player's (the roster complete, as the judge writes it: the win
/// conditions are judged only then), as the simulator plays their nights. Every action reaches
/// the 导演 by QQ (002 L215) and he enters it on the dashboard (`POST /night` "add"): the 卧底刺客's
/// kill (L138 "共同指杀一名角色"), the 御前侍卫's 守卫 (L127: each player once a game), the
/// 妙手太医's 救药 and 毒药 (L120–L121: each once a game), the 大内密探's 查验 (L116). The 牵线红娘
/// sends no 红线 (no lovers); no 东宫太子 (his 谁敢动我 against the vote, L124, is the day's).
#[derive(Clone, Debug)]
pub struct Court {
    pub assassins: Vec<String>,
    pub spy: String,
    pub doctor: String,
    pub guard: String,
    pub matchmaker: String,
    pub consorts: Vec<String>,
    pub emperor: String,
}

/// A jiaohui game's seats with night powers, as the simulator plays them: the 异教徒, who
/// submit one kill list together each night (001 L63, attack 1); the 僧侣, each praying for one
/// player (L76: +1 defence to whoever gets at least 当前僧侣数／当前异教徒人数, rounded half up);
/// the 十字军剑士, whose 祝福的铠甲 stops one attack of 1 by the 异教徒 (L70) and who searches
/// (L71); the 黑暗领主 and the 吟游诗人 (below). No 恶魔之子: his badge's protection against
/// one vote (L57) is not modelled.
#[derive(Clone, Debug)]
pub struct Church {
    pub heretics: Vec<String>,
    pub monks: Vec<String>,
    pub crusader: String,
    /// The 黑暗领主 and the 吟游诗人: protected from the vote and from attack until both their
    /// powers are used (L86, L92; the simulator sends no 堕落 nor 感召, so for the whole game),
    /// each with one pardon of a player voted out (特赦 a 异教徒, L85; 圣光 a 十字军剑士 or
    /// 僧侣, L91), which the judge grants or refuses when the confirmation asks (428).
    pub lord: String,
    pub bard: String,
}

/// A night of a chuhan game as the simulator plays it: the 左士's 诅咒 and the 右士's 庇佑 sent
/// to the judge by private message (000 L80 "每夜可以通过短消息向法官提交一个诅咒对象的名字",
/// L82), changed at times (L96 "截至天亮之前10分钟，玩家都可以更换行使特权的对象"), now and then the
/// wrong power or too late; and when the judge first clicks "确认第 N 夜结算".
#[derive(Clone, Debug)]
pub struct NightPlan {
    pub night: u32,
    /// (unix time, sender, text), in time order.
    pub messages: Vec<(i64, String, String)>,
    /// (unix time, by, power, target): an action that reached the judge another way (QQ,
    /// jiaohui L191), entered on the dashboard (`POST /night` "add") before the confirmation,
    /// by a player who sent no message of that power that night (of the team's, for the
    /// 异教徒's list).
    pub entries: Vec<(i64, String, String, String)>,
    pub confirm_at: i64,
}

/// The judge's dashboard entries of night `night` (opening at `opens`, confirmed at
/// `confirm_at`): one night in three, one action of a seat in `seats` (player, power, whether the
/// power is the team's) that sent none of it, from a stream of its own (the rest of every seed
/// stays as it was).
fn entries_of(
    seed: u64,
    night: u32,
    seats: &[(&String, &str, bool)],
    messages: &[(i64, String, String)],
    opens: i64,
    confirm_at: i64,
) -> Vec<(i64, String, String, String)> {
    let mut rng = Rng::new(seed ^ 0xe27e_e27e ^ ((night as u64) << 32));
    if !rng.chance(35) || confirm_at - 120 <= opens + 600 {
        return Vec::new();
    }
    let silent: Vec<&(&String, &str, bool)> = seats
        .iter()
        .filter(|(who, power, team)| {
            !messages.iter().any(|(_, from, text)| {
                text.starts_with(power)
                    && (from == *who || (*team && seats.iter().any(|s| s.0 == from && s.2)))
            })
        })
        .collect();
    if silent.is_empty() {
        return Vec::new();
    }
    // Mostly an action that changes the night's outcome: a kill, a curse, a blessing.
    let weighty: Vec<&(&String, &str, bool)> = silent
        .iter()
        .copied()
        .filter(|(_, p, _)| ["杀人", "诅咒", "庇佑"].contains(p))
        .collect();
    let pool = if !weighty.is_empty() && rng.chance(75) {
        weighty
    } else {
        silent
    };
    let (who, power, _) = pool[rng.below(pool.len() as u64) as usize];
    let target = loop {
        let p = rng.pick(&gen::PLAYERS).to_string();
        if p != **who || *power == "祈祷" {
            break p;
        }
    };
    let t = rng.range(opens + 600, confirm_at - 120);
    vec![(t, who.to_string(), power.to_string(), target)]
}

/// chuhan's night: its actions are due this long after the day's last close (the judge's
/// `[rules.night] deadline_after_close_minutes`, a 10-hour night less L96's ten minutes).
pub const NIGHT_SECS: i64 = 600 * 60;

/// A day's rounds: each one's posts and close.
fn rounds_of(preset: gen::Preset, d: &gen::Day) -> Vec<(&Vec<gen::GenPost>, Time)> {
    let mut out = vec![(&d.posts, crate::run::close_of(d.day))];
    if let Some(r) = &d.runoff {
        out.push((&r.posts, crate::run::runoff_close_of(preset, d.day)));
    }
    out
}

/// Day `day`'s round-1 close, unix seconds.
pub fn close_unix(day: u32) -> i64 {
    unix(crate::run::close_of(day))
}

/// An author's edit of a post: from `at` on it says `text` (what `intent` means).
#[derive(Clone, Debug)]
pub struct Edit {
    pub pid: u64,
    pub at: i64,
    pub intent: gen::Intent,
    pub text: String,
}

pub const TICK: i64 = 60;
const INTERVAL: i64 = 3600;
const NEAR_MINUTES: i64 = 5;
/// systemd's `RestartSec` (systemd/bansha.service).
const RESTART: i64 = 30;

fn unix(t: Time) -> i64 {
    t.timestamp()
}

fn at(u: i64) -> Time {
    use chrono::TimeZone;
    FixedOffset::east_opt(8 * 3600)
        .unwrap()
        .timestamp_opt(u, 0)
        .unwrap()
}

/// The vote thread of day `day`.
pub fn tid_of(day: u32) -> u64 {
    100 + day as u64
}

/// The thread of day `day`'s overtime poll (bansha42 L79), which the judge opens at the close.
pub fn overtime_tid_of(day: u32) -> u64 {
    150 + day as u64
}

/// A post in a thread: not a poll vote, nor a proxy the judge types into the config.
fn is_post(g: &gen::GenPost) -> bool {
    !matches!(g.intent, gen::Intent::Poll(_) | gen::Intent::Proxy(_))
}

/// The polls of a bansha42 game: each day's in its vote thread (the living and 弃权, as the
/// captured poll), each overtime's in a thread of its own (the tied), every vote at the moment
/// it was cast; the poll closes at its round's close.
fn polls(plan: &Plan) -> BTreeMap<u64, world::SimPoll> {
    let mut out = BTreeMap::new();
    if plan.game.preset != gen::Preset::Bansha42 {
        return out;
    }
    let poll = |options: Vec<String>, maxchoices: usize, close: i64, posts: &[gen::GenPost]| {
        let votes = posts
            .iter()
            .filter_map(|g| match &g.intent {
                gen::Intent::Poll(ts) => Some((
                    g.author.clone(),
                    ts.iter()
                        .filter_map(|t| options.iter().position(|o| o == t.name()))
                        .collect(),
                    close + g.secs,
                )),
                _ => None,
            })
            .collect();
        world::SimPoll {
            options,
            maxchoices,
            expiration: close,
            votes,
        }
    };
    for d in &plan.game.days {
        let mut options: Vec<String> = gen::PLAYERS
            .iter()
            .filter(|p| !d.dead.iter().any(|x| x == *p))
            .map(|p| p.to_string())
            .collect();
        options.push("弃权".into());
        let close = unix(crate::run::close_of(d.day));
        let votes = gen::bansha42_round(d.day).0;
        out.insert(tid_of(d.day), poll(options, votes, close, &d.posts));
        if let Some(r) = &d.runoff {
            let c2 = unix(crate::run::runoff_close_of(plan.game.preset, d.day));
            out.insert(
                overtime_tid_of(d.day),
                poll(r.candidates.clone(), 1, c2, &r.posts),
            );
        }
    }
    out
}

/// The closes of every round of the game (unix), in order.
pub fn closes(game: &Game) -> Vec<i64> {
    let mut v: Vec<i64> = game
        .days
        .iter()
        .flat_map(|d| {
            let mut c = vec![unix(crate::run::close_of(d.day))];
            if d.runoff.is_some() {
                c.push(unix(crate::run::runoff_close_of(game.preset, d.day)));
            }
            c
        })
        .collect();
    v.sort();
    v
}

/// The plan of a seed: the game the tally simulator makes of it, and from a second stream of
/// the same seed, deletions and faults.
pub fn plan(seed: u64) -> Plan {
    let game = gen::generate(seed);
    let mut rng = Rng::new(seed ^ 0x5eed_da7a);
    let mut deletions = Vec::new();
    for d in &game.days {
        for (posts, close) in rounds_of(game.preset, d) {
            if posts.is_empty() || !rng.chance(30) {
                continue;
            }
            // A moderator deletes some author's last post of the round before the close, late
            // in the day half the time (after the lock's full read).
            let p = &posts[rng.below(posts.len() as u64) as usize];
            let last = posts.iter().rev().find(|q| q.author == p.author).unwrap();
            if last.author == JUDGE || last.secs >= -1 {
                continue;
            }
            let from = if rng.chance(50) {
                last.secs.max(-3000)
            } else {
                last.secs
            };
            let when = rng.range(from + 1, -1);
            deletions.push((last.pid, unix(close) + when));
        }
    }
    if game.preset == gen::Preset::Qipan {
        // Private messages: nobody but the sender deletes one (drawn above all the same, so
        // the stream stays as it is).
        deletions.clear();
    }
    if game.preset == gen::Preset::Bansha42 {
        // Only posts can be deleted: not a poll's votes, nor the judge's proxies.
        let posts: BTreeSet<u64> = game
            .days
            .iter()
            .flat_map(|d| {
                d.posts
                    .iter()
                    .chain(d.runoff.iter().flat_map(|r| r.posts.iter()))
            })
            .filter(|g| is_post(g))
            .map(|g| g.pid)
            .collect();
        deletions.retain(|(pid, _)| posts.contains(pid));
    }
    let closes = closes(&game);
    let (start, end) = span(&game);
    let mut events = Vec::new();
    let n = rng.below(3 + game.days.len() as u64 * 2);
    for _ in 0..n {
        // Drawn towards the closes: most faults matter there.
        let t = if rng.chance(60) {
            let c = closes[rng.below(closes.len() as u64) as usize];
            c + rng.range(-2 * 3600, 2 * 3600)
        } else {
            rng.range(start, end)
        };
        let e = match rng.below(9) {
            0 | 1 => Event::Forum(
                (0..rng.range(1, 6))
                    .map(|_| {
                        world::FORUM_FAULTS[rng.below(world::FORUM_FAULTS.len() as u64) as usize]
                    })
                    .collect(),
            ),
            2 => Event::Relay(
                (0..rng.range(1, 3))
                    .map(|_| match rng.below(10) {
                        0 => RelayFault::Refused,
                        1..=3 => RelayFault::DropAfterDot,
                        _ => RelayFault::Busy,
                    })
                    .collect(),
            ),
            3 => Event::RelayDown(rng.range(60, 4 * 3600)),
            4 | 5 => Event::Crash(rng.range(1, 40) as u64),
            6 => Event::DiskFull(rng.range(1, 40) as u64, rng.range(30, 3 * 3600)),
            7 => Event::Sleep(rng.range(60, 6 * 3600)),
            _ => Event::ClockJump(rng.range(-2 * 3600, 2 * 3600)),
        };
        events.push((t.clamp(start, end), e));
    }
    events.sort_by_key(|(t, _)| *t);
    // The judge opens each day's thread 24 hours before its close (when the day before's
    // run-off closes) and types it into the game config within the next six hours.
    let days_typed = game
        .days
        .iter()
        .skip(1)
        .map(|d| {
            let opened = unix(crate::run::close_of(d.day)) - 24 * 3600;
            (opened + rng.range(60, 6 * 3600), d.day, rng.chance(50))
        })
        .collect();
    // A stream of its own, so that the games, deletions and faults of every seed stay what they
    // were before this was drawn: one machine in four starts minutes to hours apart, either way.
    let mut clock = Rng::new(seed ^ 0xc10c_a9a7);
    let machine_skew = if clock.chance(25) {
        let secs = clock.range(61, 3 * 3600);
        if clock.chance(50) {
            secs
        } else {
            -secs
        }
    } else {
        0
    };
    if game.preset == gen::Preset::Qipan {
        // The judge's session lost up to three times, drawn from a stream of its own (the
        // other events stay as they were); a close is the likeliest moment to matter.
        let mut lost = Rng::new(seed ^ 0x1066_ed00);
        for _ in 0..lost.below(4) {
            let t = if lost.chance(50) {
                closes[lost.below(closes.len() as u64) as usize] + lost.range(-600, 60)
            } else {
                lost.range(start, end)
            };
            events.push((t.clamp(start, end), Event::LoggedOut));
        }
        events.sort_by_key(|(t, _)| *t);
    }
    // The judge's confirmations, from a stream of their own (the rest stays as it was).
    let mut judge = Rng::new(seed ^ 0xc0f1_3ed0);
    let (_, end) = span(&game);
    let confirms = game
        .days
        .iter()
        .map(|d| {
            let last = match &d.runoff {
                Some(_) => crate::run::runoff_close_of(game.preset, d.day),
                None => crate::run::close_of(d.day),
            };
            let delay = if judge.chance(20) {
                judge.range(20 * 3600, 30 * 3600)
            } else {
                judge.range(600, 5 * 3600)
            };
            // Before the simulation ends (the last day's too).
            ((unix(last) + delay).min(end - 1800), d.day)
        })
        .collect();
    let mut edits = edits_of(seed, &game);
    edits.extend(late_edits_of(seed, &game));
    let (shi, shuai, mut nights) = nights_of(seed, &game, end);
    let church = church_of(seed, &game);
    if let Some(c) = &church {
        nights = church_nights(seed, &game, c, end);
    }
    let court = court_of(seed, &game);
    if let Some(c) = &court {
        nights = court_nights(seed, &game, c, end);
    }
    let board = board_of(seed, &game);
    if let Some(b) = &board {
        nights = board_nights(seed, &game, b, end);
    }
    let table = table_of(seed, &game);
    if let Some(t) = &table {
        nights = table_nights(seed, &game, t, end);
    }
    Plan {
        seed,
        game,
        deletions,
        events,
        days_typed,
        machine_skew,
        plants: Plants::default(),
        lock_off_by_one: false,
        confirms,
        edits,
        shi,
        shuai,
        church,
        court,
        board,
        table,
        nights,
    }
}

/// chuhan's nights, from a stream of their own (the rest of every seed stays as it was).
#[allow(clippy::type_complexity)]
fn nights_of(
    seed: u64,
    game: &Game,
    end: i64,
) -> (Option<(String, String)>, Option<String>, Vec<NightPlan>) {
    if game.preset != gen::Preset::Chuhan {
        return (None, None, Vec::new());
    }
    let mut rng = Rng::new(seed ^ 0x417e_5eed);
    let left = rng.pick(&gen::PLAYERS).to_string();
    let right = loop {
        let p = rng.pick(&gen::PLAYERS).to_string();
        if p != left {
            break p;
        }
    };
    let shuai = loop {
        let p = rng.pick(&gen::PLAYERS).to_string();
        if p != left && p != right {
            break p;
        }
    };
    let mut nights = Vec::new();
    for d in &game.days {
        let Some((opens, deadline)) = night_window(game, d, end) else {
            continue;
        };
        let mut messages = Vec::new();
        for (shi, power, other) in [(&left, "诅咒", "庇佑"), (&right, "庇佑", "诅咒")] {
            if !rng.chance(80) {
                continue;
            }
            for _ in 0..rng.range(1, 3) {
                // Most in time; one in twenty at the deadline's very second (in time by the
                // default reading of A-C10), one in twenty after it (late).
                let t = match rng.below(20) {
                    0 => deadline,
                    1 => deadline + rng.range(1, 1800),
                    _ => opens + rng.range(300, NIGHT_SECS - 60),
                };
                let power = if rng.chance(10) { other } else { power };
                let target = loop {
                    let p = rng.pick(&gen::PLAYERS).to_string();
                    if &p != shi {
                        break p;
                    }
                };
                messages.push((t, shi.clone(), format!("{power}：{target}")));
            }
        }
        // One message a second at most per sender: which came last is then never a tie.
        // 楚's 帅 kills (L52), now and then changing his target (L96), never himself (L98).
        if rng.chance(70) {
            for _ in 0..rng.range(1, 2) {
                let t = opens + rng.range(300, NIGHT_SECS + 600);
                let target = loop {
                    let p = rng.pick(&gen::PLAYERS).to_string();
                    if p != shuai {
                        break p;
                    }
                };
                messages.push((t, shuai.clone(), format!("杀人：{target}")));
            }
        }
        messages.sort();
        messages.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
        let delay = judge_delay(&mut rng);
        let confirm_at = (deadline + delay).min(end - 1800);
        let seats = [
            (&left, "诅咒", false),
            (&right, "庇佑", false),
            (&shuai, "杀人", false),
        ];
        nights.push(NightPlan {
            night: d.day,
            entries: entries_of(seed, d.day, &seats, &messages, opens, confirm_at),
            messages,
            confirm_at,
        });
    }
    (Some((left, right)), Some(shuai), nights)
}

/// How long after a night's deadline the judge first clicks its confirmation: within hours,
/// one night in five only the next day (the same draws from the caller's stream as before).
fn judge_delay(rng: &mut Rng) -> i64 {
    if rng.chance(20) {
        rng.range(12 * 3600, 40 * 3600)
    } else {
        rng.range(600, 5 * 3600)
    }
}

/// A planned night's opening (its day's last close) and deadline, or None when it would end
/// too near the simulation's end to be settled.
fn night_window(game: &Game, d: &gen::Day, end: i64) -> Option<(i64, i64)> {
    let opens = match &d.runoff {
        Some(_) => unix(crate::run::runoff_close_of(game.preset, d.day)),
        None => unix(crate::run::close_of(d.day)),
    };
    let deadline = opens + NIGHT_SECS;
    (deadline + 3600 <= end - 1800).then_some((opens, deadline))
}

/// A night whose actions are all messages or posts (none the judge enters), confirmed after
/// `judge_delay` from its deadline, before the simulation ends.
fn unentered(
    rng: &mut Rng,
    night: u32,
    messages: Vec<(i64, String, String)>,
    deadline: i64,
    end: i64,
) -> NightPlan {
    let delay = judge_delay(rng);
    NightPlan {
        night,
        messages,
        entries: Vec::new(),
        confirm_at: (deadline + delay).min(end - 1800),
    }
}

/// `n` players, drawn in order from the nights' own stream (the rest of every seed stays as it
/// was): the seats with night powers.
fn seats_drawn(seed: u64, n: usize) -> Vec<String> {
    let mut rng = Rng::new(seed ^ 0x417e_5eed);
    let mut seats: Vec<String> = Vec::new();
    while seats.len() < n {
        let p = rng.pick(&gen::PLAYERS).to_string();
        if !seats.contains(&p) {
            seats.push(p);
        }
    }
    seats
}

/// jiaohui's seats (from the nights' own stream): two 异教徒, three 僧侣, one 十字军剑士, the
/// 黑暗领主 and the 吟游诗人.
fn church_of(seed: u64, game: &Game) -> Option<Church> {
    if game.preset != gen::Preset::Jiaohui {
        return None;
    }
    let seats = seats_drawn(seed, 8);
    Some(Church {
        heretics: seats[..2].to_vec(),
        monks: seats[2..5].to_vec(),
        crusader: seats[5].clone(),
        lord: seats[6].clone(),
        bard: seats[7].clone(),
    })
}

/// jiaohui's nights: the 异教徒's `杀人：X` (001 L63; now and then changed, the last counting),
/// the 僧侣's `祈祷：X` (L76), the 十字军剑士's `搜索：X` (L71), and now and then a power its
/// sender does not have (L56–L76: refused), one sent too late, or one at the deadline's second.
fn church_nights(seed: u64, game: &Game, c: &Church, end: i64) -> Vec<NightPlan> {
    let mut rng = Rng::new(seed ^ (0xc4 << 40) ^ 0x417e_5eed);
    let mut nights = Vec::new();
    for d in &game.days {
        let Some((opens, deadline)) = night_window(game, d, end) else {
            continue;
        };
        let mut messages = Vec::new();
        let when = |rng: &mut Rng| match rng.below(20) {
            0 => deadline,
            1 => deadline + rng.range(1, 1800),
            _ => opens + rng.range(300, NIGHT_SECS - 60),
        };
        let anyone = |rng: &mut Rng, not: &str| loop {
            let p = rng.pick(&gen::PLAYERS).to_string();
            if p != not {
                break p;
            }
        };
        let mut senders: Vec<(&String, &str)> = Vec::new();
        for h in &c.heretics {
            if rng.chance(70) {
                senders.push((h, if rng.chance(10) { "祈祷" } else { "杀人" }));
            }
        }
        for m in &c.monks {
            if rng.chance(75) {
                senders.push((m, if rng.chance(10) { "杀人" } else { "祈祷" }));
            }
        }
        if rng.chance(40) {
            senders.push((&c.crusader, "搜索"));
        }
        for (who, power) in senders {
            for _ in 0..rng.range(1, 2) {
                let t = when(&mut rng);
                // Now and then a monk prays for himself (A-J7: counts).
                let target = if power == "祈祷" && rng.chance(15) {
                    who.clone()
                } else {
                    anyone(&mut rng, who)
                };
                messages.push((t, who.clone(), format!("{power}：{target}")));
            }
        }
        // One message a second at most, whoever sends it: the heretics' list is one action of
        // the group, and two sent the same second with different targets conflict (the
        // resolver's `pick`), which the oracle does not model.
        messages.sort();
        messages.dedup_by(|a, b| a.0 == b.0);
        let delay = judge_delay(&mut rng);
        let confirm_at = (deadline + delay).min(end - 1800);
        let seats: Vec<(&String, &str, bool)> = c
            .heretics
            .iter()
            .map(|h| (h, "杀人", true))
            .chain(c.monks.iter().map(|m| (m, "祈祷", false)))
            .chain([(&c.crusader, "搜索", true)])
            .collect();
        nights.push(NightPlan {
            night: d.day,
            entries: entries_of(seed, d.day, &seats, &messages, opens, confirm_at),
            messages,
            confirm_at,
        });
    }
    nights
}

/// m103's seats (from the nights' own stream), as L12–L13 less the 东宫太子: four 卧底刺客, the
/// 大内密探, the 妙手太医, the 御前侍卫, the 牵线红娘, five 绝色宠妃 and the 至尊帝王.
fn court_of(seed: u64, game: &Game) -> Option<Court> {
    if game.preset != gen::Preset::M103 {
        return None;
    }
    let seats = seats_drawn(seed, gen::PLAYERS.len());
    Some(Court {
        assassins: seats[..4].to_vec(),
        spy: seats[4].clone(),
        doctor: seats[5].clone(),
        guard: seats[6].clone(),
        matchmaker: seats[7].clone(),
        consorts: seats[8..13].to_vec(),
        emperor: seats[13].clone(),
    })
}

/// (player, role, faction) of each m103 seat.
fn court_seats(c: &Court) -> Vec<(&String, &str, &str)> {
    let court = "我爱皇帝";
    c.assassins
        .iter()
        .map(|a| (a, "卧底刺客", "杀了狗皇帝"))
        .chain([
            (&c.spy, "大内密探", court),
            (&c.doctor, "妙手太医", court),
            (&c.guard, "御前侍卫", court),
            (&c.matchmaker, "牵线红娘", court),
            (&c.emperor, "至尊帝王", court),
        ])
        .chain(c.consorts.iter().map(|p| (p, "绝色宠妃", court)))
        .collect()
}

/// m103's nights, every action entered by the judge: night 0 first (L223 "直接入夜", the
/// preset's `first_night`: open from before day 1, its settlement before "开始第一天讨论日",
/// L230), entered and confirmed in the game's first hours; then a night after each day's last
/// close, its actions due 30 minutes later (L236–L237), entered as they come by QQ and now and
/// then after the limit (untimed: the judge enters only what came in time). Now and then an
/// action the night cannot take: the other 刺客's different kill (no time tells which came
/// first: neither counts, the judge is asked), both potions (A-M1: the same), a kill by a player
/// without the power, a second 守卫 of a player, a potion already used, an actor or a target out.
fn court_nights(seed: u64, game: &Game, c: &Court, end: i64) -> Vec<NightPlan> {
    let mut rng = Rng::new(seed ^ (0x103 << 40) ^ 0x417e_5eed);
    let (start, _) = span(game);
    let mut windows = vec![(0, start, start + 3 * 3600)];
    for d in &game.days {
        if let Some((opens, _)) = night_window(game, d, end) {
            windows.push((d.day, opens, opens + 1800));
        }
    }
    let mut nights = Vec::new();
    for (night, opens, deadline) in windows {
        let anyone = |rng: &mut Rng| rng.pick(&gen::PLAYERS).to_string();
        let mut acts: Vec<(String, &str, String)> = Vec::new();
        let mut kill = None;
        if rng.chance(85) {
            let i = rng.below(c.assassins.len() as u64) as usize;
            let by = &c.assassins[i];
            let target = loop {
                let p = anyone(&mut rng);
                if !c.assassins.contains(&p) || rng.chance(5) {
                    break p;
                }
            };
            acts.push((by.clone(), "杀人", target.clone()));
            if rng.chance(12) {
                let other = if rng.chance(50) {
                    target.clone()
                } else {
                    anyone(&mut rng)
                };
                let j = (i + 1 + rng.below(3) as usize) % c.assassins.len();
                acts.push((c.assassins[j].clone(), "杀人", other));
            }
            kill = Some(target);
        }
        let aimed = |rng: &mut Rng, share: u64| match &kill {
            Some(k) if rng.chance(share) => k.clone(),
            _ => anyone(rng),
        };
        if rng.chance(75) {
            let t = aimed(&mut rng, 35);
            acts.push((c.guard.clone(), "守卫", t));
        }
        match rng.below(100) {
            0..=24 => {
                let t = aimed(&mut rng, 50);
                acts.push((c.doctor.clone(), "救药", t));
            }
            25..=34 => {
                let t = anyone(&mut rng);
                acts.push((c.doctor.clone(), "毒药", t));
            }
            35..=37 => {
                let (a, b) = (aimed(&mut rng, 50), anyone(&mut rng));
                acts.push((c.doctor.clone(), "救药", a));
                acts.push((c.doctor.clone(), "毒药", b));
            }
            _ => {}
        }
        if rng.chance(50) {
            let t = anyone(&mut rng);
            acts.push((c.spy.clone(), "查验", t));
        }
        if rng.chance(6) {
            let (by, t) = (anyone(&mut rng), anyone(&mut rng));
            acts.push((by, "杀人", t));
        }
        // The judge enters each as it comes, within the half hour mostly; one in ten after it.
        let mut entries: Vec<(i64, String, String, String)> = acts
            .into_iter()
            .map(|(by, power, target)| {
                let t = if rng.chance(10) {
                    deadline + rng.range(60, 3600)
                } else {
                    opens + rng.range(60, deadline - opens - 60)
                };
                (t, by, power.to_string(), target)
            })
            .collect();
        entries.sort();
        entries.dedup_by(|a, b| a.0 == b.0);
        let last = entries.last().map_or(deadline, |e| e.0.max(deadline));
        let delay = if night > 0 && rng.chance(20) {
            rng.range(12 * 3600, 40 * 3600)
        } else {
            rng.range(600, 2 * 3600)
        };
        nights.push(NightPlan {
            night,
            messages: Vec::new(),
            entries,
            confirm_at: (last + delay).min(end - 1800),
        });
    }
    nights
}

/// qipan's map and killers (from the nights' own stream).
fn board_of(seed: u64, game: &Game) -> Option<Board> {
    if game.preset != gen::Preset::Qipan {
        return None;
    }
    let mut rng = Rng::new(seed ^ 0x417e_5eed);
    let grid: Vec<String> = ["....", ".#..", "..#.", "...."]
        .iter()
        .map(|r| r.to_string())
        .collect();
    let cells = board_cells(&grid);
    let start = gen::PLAYERS
        .iter()
        .map(|p| (p.to_string(), rng.pick(&cells)))
        .collect();
    let chief = rng.pick(&gen::PLAYERS).to_string();
    let second = loop {
        let p = rng.pick(&gen::PLAYERS).to_string();
        if p != chief {
            break p;
        }
    };
    Some(Board {
        grid,
        start,
        chief,
        second,
    })
}

/// "B3": column 2, row 3.
fn board_cell_name((r, c): (i32, i32)) -> String {
    format!("{}{r}", char::from(b'A' + c as u8 - 1))
}

fn board_cells(grid: &[String]) -> Vec<(i32, i32)> {
    grid.iter()
        .enumerate()
        .flat_map(|(r, row)| {
            row.chars()
                .enumerate()
                .filter(|(_, ch)| *ch == '.')
                .map(move |(c, _)| (r as i32 + 1, c as i32 + 1))
        })
        .collect()
}

/// qipan's night: 12 hours from the close (L116 "22：00—9：00 夜晚"), the good players' moves due
/// in the first (L114 "截止时间为22:00").
const QIPAN_NIGHT_SECS: i64 = 720 * 60;
const QIPAN_MOVES_SECS: i64 = 3600;

/// The directions in the words the simulated players use, and the step each is (row, column):
/// the four a good player may take (L24), then the killers' four more (L36).
const DIRECTIONS: [(&str, (i32, i32)); 8] = [
    ("北", (-1, 0)),
    ("南", (1, 0)),
    ("东", (0, 1)),
    ("西", (0, -1)),
    ("东北", (-1, 1)),
    ("西北", (-1, -1)),
    ("东南", (1, 1)),
    ("西南", (1, -1)),
];

/// A move as the simulated players write it ("向东", "往北走", "移动：南", "西").
fn move_text(rng: &mut Rng, dir: &str) -> String {
    match rng.below(4) {
        0 => format!("向{dir}"),
        1 => format!("往{dir}走"),
        2 => format!("移动：{dir}"),
        _ => dir.to_string(),
    }
}

/// The step a simulated player's move text names (the simulator's own reading of its words).
fn move_of(text: &str) -> Option<(i32, i32)> {
    let core = text
        .trim_start_matches("移动：")
        .trim_start_matches(['向', '往'])
        .trim_end_matches('走');
    DIRECTIONS.iter().find(|(w, _)| *w == core).map(|d| d.1)
}

/// qipan's nights: each good player's move by private message (L114), now and then changed,
/// late, diagonal (L24: refused) or into a wall or off the map (L28: he stays); the killers'
/// moves in eight directions (L36) and the 主杀's `杀人：X` (L42, L46), mostly on a good player
/// around where the plan expects him, now and then the 副杀's (refused while the 主杀 lives).
fn board_nights(seed: u64, game: &Game, b: &Board, end: i64) -> Vec<NightPlan> {
    let mut rng = Rng::new(seed ^ (0x003 << 40) ^ 0x417e_5eed);
    let cells = board_cells(&b.grid);
    let mut at = b.start.clone();
    let mut nights = Vec::new();
    for d in &game.days {
        let Some((opens, _)) = night_window(game, d, end) else {
            continue;
        };
        let deadline = opens + QIPAN_NIGHT_SECS;
        let due = opens + QIPAN_MOVES_SECS;
        let mut messages: Vec<(i64, String, String)> = Vec::new();
        let mut go = |rng: &mut Rng,
                      p: &String,
                      t: i64,
                      four: bool,
                      at: &mut BTreeMap<String, (i32, i32)>,
                      counts: bool| {
            let n = if four && !rng.chance(5) { 4 } else { 8 };
            let (w, (dr, dc)) = DIRECTIONS[rng.below(n) as usize];
            messages.push((t, p.clone(), move_text(rng, w)));
            let from = at[p];
            let to = (from.0 + dr, from.1 + dc);
            if counts && cells.contains(&to) && (!four || dr == 0 || dc == 0) {
                at.insert(p.clone(), to);
            }
        };
        let killers = [&b.chief, &b.second];
        for p in gen::PLAYERS.iter().map(|p| p.to_string()) {
            if killers.contains(&&p) || !rng.chance(85) {
                continue;
            }
            let t = opens + rng.range(60, QIPAN_MOVES_SECS - 120);
            if rng.chance(12) {
                let change = rng.range(t + 1, due);
                go(&mut rng, &p, t, true, &mut at, false);
                go(&mut rng, &p, change, true, &mut at, true);
            } else {
                go(&mut rng, &p, t, true, &mut at, true);
            }
            if rng.chance(6) {
                let late = due + rng.range(1, 3000);
                go(&mut rng, &p, late, true, &mut at, false);
            }
        }
        for k in killers {
            if rng.chance(90) {
                // One in twenty at the deadline's very second (in time): the night ends when the
                // next day opens (9:00, L96), and a message after it is the day's.
                let t = match rng.below(20) {
                    0 => deadline,
                    _ => due + rng.range(60, QIPAN_NIGHT_SECS - QIPAN_MOVES_SECS - 120),
                };
                go(&mut rng, k, t, false, &mut at, true);
            }
        }
        let killer = if rng.chance(85) { &b.chief } else { &b.second };
        if rng.chance(85) {
            let near: Vec<&String> = at
                .iter()
                .filter(|(p, c)| {
                    !killers.contains(p)
                        && (c.0 - at[killer].0).abs() <= 1
                        && (c.1 - at[killer].1).abs() <= 1
                })
                .map(|(p, _)| p)
                .collect();
            let target = if !near.is_empty() && rng.chance(70) {
                near[rng.below(near.len() as u64) as usize].clone()
            } else {
                rng.pick(&gen::PLAYERS).to_string()
            };
            let t = due + rng.range(60, QIPAN_NIGHT_SECS - QIPAN_MOVES_SECS - 60);
            messages.push((t, killer.clone(), format!("杀人：{target}")));
        }
        messages.sort();
        messages.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
        nights.push(unentered(&mut rng, d.day, messages, deadline, end));
    }
    nights
}

/// bansha42's seats (from the nights' own stream; roles and codes 004 L8–L24, L93–L101).
fn table_of(seed: u64, game: &Game) -> Option<Table> {
    if game.preset != gen::Preset::Bansha42 {
        return None;
    }
    let seats = seats_drawn(seed, 7);
    let roles = [
        ("联合杀", "黑道", "七叶明芝"),
        ("联合杀", "黑道", "青鸾花"),
        ("情侣刺", "黑道", "圣火令"),
        ("独立刺", "黑道", "冰蚕丝"),
        ("明蛋", "白道", "墨魂剑"),
        ("暗蛋", "白道", "沥血剑"),
        ("巫师", "白道", "断肠草"),
    ];
    Some(Table {
        seats: seats
            .into_iter()
            .zip(roles)
            .map(|(p, (r, f, c))| (p, r, f, c))
            .collect(),
    })
}

/// The game's kill-post thread (004 L60), listed on day 1: the nights' posts are read from it
/// whichever day is typed.
pub const KILL_TID: u64 = 190;

/// bansha42's night: its kill posts are due 15 minutes after the day's last close (L60
/// "最迟在每晚结果帖发出后十五分钟内"; the preset's `deadline_after_close_minutes`).
const KILL_SECS: i64 = 15 * 60;

/// Characters of the simulated kill posts' prose: common simplified characters, none of a code,
/// of a kill word (a line of prose never reads as a header) or of a player's name.
fn prose_chars() -> Vec<char> {
    let banned: String = ["七叶明芝青鸾花圣火令冰蚕丝墨魂剑沥血剑龙舌雪罂子回天夜光蝶海棠杀贴帖"]
        .concat()
        + &gen::PLAYERS.concat();
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近矿千周委素技备半办省列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包住调满县局照参红细引听该铁价严"
        .chars()
        .filter(|c| !banned.contains(*c))
        .collect()
}

/// Prose of `n` characters in sentences of 8 to 20, each new (004 L57: nothing repeated).
fn prose(rng: &mut Rng, chars: &[char], n: usize) -> String {
    let mut out = String::new();
    let mut left = n;
    while left > 0 {
        let len = (rng.range(8, 20) as usize).min(left);
        out.extend((0..len).map(|_| chars[rng.below(chars.len() as u64) as usize]));
        out.push_str(if rng.chance(20) { "。\n" } else { "。" });
        left -= len;
    }
    out
}

/// bansha42's nights (004 L30–L66): the kill posts handed in to the game's kill-post thread,
/// each a header naming its victim (`贴杀：X`) and the killer's code (L59), then prose: most by
/// the black seats, now and then from the 交帖 account (no player) naming the code, short (a
/// 重写, L64), naming no code (a 重写 of the author's own), by a player who owes none (refused),
/// on one out already, more than the round table owes (L31–L36: the latest refused), at the
/// deadline's very second or after it (late), two on the same victim, one on an egg (L22: the
/// poster goes with it); the judge's notice opening each night.
fn table_nights(seed: u64, game: &Game, t: &Table, end: i64) -> Vec<NightPlan> {
    let mut rng = Rng::new(seed ^ (0x042 << 40) ^ 0x417e_5eed);
    let chars = prose_chars();
    let mut nights = Vec::new();
    for d in &game.days {
        let opens = match &d.runoff {
            Some(_) => unix(crate::run::runoff_close_of(game.preset, d.day)),
            None => unix(crate::run::close_of(d.day)),
        };
        let deadline = opens + KILL_SECS;
        if deadline + 3600 > end - 1800 {
            continue;
        }
        let mut messages: Vec<(i64, String, String)> = vec![(
            opens + rng.range(1, 60),
            JUDGE.to_string(),
            format!("第{}夜杀帖请按交帖口令提交到本楼，注明代号。", d.day),
        )];
        let mut posters: Vec<&(String, &str, &str, &str)> =
            t.seats.iter().filter(|s| s.2 == "黑道").collect();
        // A player who owes no post (an egg, or anyone) hands one in now and then.
        let anyone = rng.pick(&gen::PLAYERS).to_string();
        let stray = (anyone.clone(), "", "", "");
        if rng.chance(12) {
            posters.push(&stray);
        }
        for (who, _, _, code) in posters {
            // One in five posts twice: a group over its quota (L31–L33) now and then.
            let n = match rng.below(10) {
                0..=2 => 0,
                3..=7 => 1,
                _ => 2,
            };
            for _ in 0..n {
                let at = match rng.below(20) {
                    0 => deadline,
                    1 => deadline + rng.range(1, 1800),
                    _ => opens + rng.range(60, KILL_SECS - 20),
                };
                // Mostly a player other than the poster; one in four an egg, now and then
                // himself (L67 "不提倡自贴，但不禁止自贴").
                let victim = match rng.below(20) {
                    0 => who.clone(),
                    1..=5 => t.seats[4 + rng.below(2) as usize].0.clone(),
                    _ => loop {
                        let p = rng.pick(&gen::PLAYERS).to_string();
                        if p != *who {
                            break p;
                        }
                    },
                };
                let words = if rng.chance(12) {
                    rng.range(200, 700)
                } else {
                    rng.range(830, 1000)
                } as usize;
                let code_line = if code.is_empty() || rng.chance(6) {
                    String::new()
                } else {
                    format!("代号：{code}\n")
                };
                let author = if !code_line.is_empty() && rng.chance(20) {
                    "交帖口令".to_string()
                } else {
                    who.clone()
                };
                let text = format!(
                    "贴杀：{victim}\n{code_line}{}",
                    prose(&mut rng, &chars, words)
                );
                messages.push((at, author, text));
            }
        }
        // Distinct seconds: which post came first is never a tie (the resolver asks the judge
        // then, 004 L30–L36, which the oracle does not model).
        messages.sort_by_key(|m| m.0);
        for i in 1..messages.len() {
            if messages[i].0 <= messages[i - 1].0 {
                messages[i].0 = messages[i - 1].0 + 1;
            }
        }
        let mut night = unentered(&mut rng, d.day, messages, deadline, end);
        night.entries = potions(seed, d.day, t, &night, deadline);
        nights.push(night);
    }
    nights
}

/// The 巫师's potion of night `night`, from a stream of its own (the rest of every seed stays as
/// it was): one night in three, entered by the judge after the deadline and before his click —
/// mostly the 解药 on a victim of a post handed in by the deadline (L16), else the 毒药 on anyone
/// (some out already: refused).
fn potions(
    seed: u64,
    night: u32,
    t: &Table,
    plan: &NightPlan,
    deadline: i64,
) -> Vec<(i64, String, String, String)> {
    let mut rng = Rng::new(seed ^ 0xd0c7_0042 ^ (u64::from(night) << 32));
    if !rng.chance(35) || plan.confirm_at - 120 <= deadline + 60 {
        return Vec::new();
    }
    let witch = t.seats[6].0.clone();
    let victims: Vec<String> = plan
        .messages
        .iter()
        .filter(|m| m.0 <= deadline)
        .filter_map(|m| {
            m.2.lines()
                .next()?
                .strip_prefix("贴杀：")
                .map(str::to_string)
        })
        .collect();
    let (power, target) = if !victims.is_empty() && rng.chance(60) {
        (
            "解药",
            victims[rng.below(victims.len() as u64) as usize].clone(),
        )
    } else {
        ("毒药", rng.pick(&gen::PLAYERS).to_string())
    };
    let at = rng.range(deadline + 60, plan.confirm_at - 120);
    vec![(at, witch, power.to_string(), target)]
}

/// Edits, from a stream of their own (the rest of every seed stays as it was): in three rounds
/// of ten of a game played in a thread (not qipan's messages nor bansha42's poll), a player
/// rewrites one post of his own to say what another post of the round says (a ballot for
/// someone else, chatter, a malformed ballot), before the lock window and at least ten minutes
/// before it: the text at the close is the edited one, and no note asks the judge to check it.
fn edits_of(seed: u64, game: &Game) -> Vec<Edit> {
    let mut rng = Rng::new(seed ^ 0xed17_ed17);
    let mut out = Vec::new();
    if matches!(game.preset, gen::Preset::Qipan | gen::Preset::Bansha42) {
        return out;
    }
    let latest = -(2 * 3600);
    for d in &game.days {
        for (posts, close) in rounds_of(game.preset, d) {
            if !rng.chance(30) {
                continue;
            }
            let mine: Vec<&gen::GenPost> = posts
                .iter()
                .filter(|g| g.author != JUDGE && is_post(g) && g.secs < latest - 60)
                .collect();
            let donors: Vec<&gen::GenPost> = posts
                .iter()
                .filter(|g| {
                    g.author != JUDGE
                        && matches!(
                            g.intent,
                            gen::Intent::Vote(_) | gen::Intent::Chatter | gen::Intent::Malformed
                        )
                })
                .collect();
            if mine.is_empty() || donors.is_empty() {
                continue;
            }
            let g = mine[rng.below(mine.len() as u64) as usize];
            let donor = donors[rng.below(donors.len() as u64) as usize];
            // Not the same post, nor a ballot for its own author (the generator writes none).
            if donor.pid == g.pid
                || donor.intent == gen::Intent::Vote(gen::Target::Player(g.author.clone()))
            {
                continue;
            }
            out.push(Edit {
                pid: g.pid,
                at: unix(close) + rng.range(g.secs + 60, latest),
                intent: donor.intent.clone(),
                // jiaohui's ballot begins with its writer's name ("自己版杀id 第几天…", 001 L175).
                text: match donor.text.strip_prefix(donor.author.as_str()) {
                    Some(rest) if game.preset == gen::Preset::Jiaohui => g.author.clone() + rest,
                    _ => donor.text.clone(),
                },
            });
        }
    }
    out
}

/// Edits after the close, from a stream of their own: in one round of six of a game played in
/// a thread, a voter rewrites his ballot for another player between a minute and three hours
/// after the round's close. The close counts what the post said at the close (the service read
/// it then, or saw it before, or, first reading it after the edit, cannot know it and says so).
fn late_edits_of(seed: u64, game: &Game) -> Vec<Edit> {
    let mut rng = Rng::new(seed ^ 0x1a7e_ed17);
    let mut out = Vec::new();
    if matches!(game.preset, gen::Preset::Qipan | gen::Preset::Bansha42) {
        return out;
    }
    for d in &game.days {
        for (posts, close) in rounds_of(game.preset, d) {
            if !rng.chance(17) {
                continue;
            }
            let ballots: Vec<&gen::GenPost> = posts
                .iter()
                .filter(|g| {
                    g.author != JUDGE
                        && g.secs < 0
                        && is_post(g)
                        && matches!(g.intent, gen::Intent::Vote(gen::Target::Player(_)))
                })
                .collect();
            if ballots.is_empty() {
                continue;
            }
            let g = ballots[rng.below(ballots.len() as u64) as usize];
            let Some(donor) = posts.iter().find(|x| {
                x.author != JUDGE
                    && x.pid != g.pid
                    && matches!(&x.intent, gen::Intent::Vote(gen::Target::Player(p)) if *p != g.author)
                    && x.intent != g.intent
            }) else {
                continue;
            };
            out.push(Edit {
                pid: g.pid,
                at: unix(close) + rng.range(60, 3 * 3600),
                intent: donor.intent.clone(),
                text: match donor.text.strip_prefix(donor.author.as_str()) {
                    Some(rest) if game.preset == gen::Preset::Jiaohui => g.author.clone() + rest,
                    _ => donor.text.clone(),
                },
            });
        }
    }
    out
}

/// When the simulation starts (before day 1's thread opens) and ends (well after the last
/// close, with the last faults over: what is owed has had time to go out).
fn span(game: &Game) -> (i64, i64) {
    let first = unix(crate::run::close_of(1)) - 21 * 3600;
    let last = closes(game).last().copied().unwrap_or(first);
    (first, last + 6 * 3600)
}

/// The day's posts as the forum holds them.
fn threads(plan: &Plan) -> BTreeMap<u64, SimThread> {
    let mut out = BTreeMap::new();
    let deleted: BTreeMap<u64, i64> = plan.deletions.iter().copied().collect();
    for d in &plan.game.days {
        let tid = tid_of(d.day);
        let close = unix(crate::run::close_of(d.day));
        let mut posts = vec![SimPost {
            // Below the day's other pids (`gen::materialise`): Discuz numbers posts in order.
            pid: d.day as u64 * 1000,
            author: JUDGE.into(),
            at: close - 24 * 3600,
            message: world::message(
                &format!("第{}天投票帖。请按规则帖的格式投票。", d.day),
                None,
                tid,
            ),
            deleted_at: None,
            edits: Vec::new(),
        }];
        let mut add = |g: &gen::GenPost, close: i64| {
            let quote = g
                .quote
                .as_ref()
                .map(|(pid, a, t, _)| (*pid, a.as_str(), close - 3600, t.as_str()));
            let edits = plan
                .edits
                .iter()
                .filter(|e| e.pid == g.pid)
                .map(|e| {
                    let body = world::message(&e.text, quote, tid);
                    (e.at, world::edit_notice(&g.author, e.at) + &body)
                })
                .collect();
            posts.push(SimPost {
                pid: g.pid,
                author: g.author.clone(),
                at: close + g.secs,
                message: world::message(&g.text, quote, tid),
                deleted_at: deleted.get(&g.pid).copied(),
                edits,
            });
        };
        // qipan's ballots are private messages (`pms`): the thread holds the judge's posts;
        // bansha42's are in the poll (`polls`).
        let qipan = plan.game.preset == gen::Preset::Qipan;
        let shown = |g: &&gen::GenPost| (!qipan || g.author == JUDGE) && is_post(g);
        for g in d.posts.iter().filter(shown) {
            add(g, close);
        }
        if let Some(r) = &d.runoff {
            let c2 = unix(crate::run::runoff_close_of(plan.game.preset, d.day));
            for g in r.posts.iter().filter(shown) {
                add(g, c2);
            }
            if plan.game.preset == gen::Preset::Bansha42 {
                // The overtime's poll thread, opened by the judge at the close (004 L79).
                let tid = overtime_tid_of(d.day);
                out.insert(
                    tid,
                    SimThread {
                        subject: format!("【模拟局】第{}天加时投票", d.day),
                        posts: vec![SimPost {
                            pid: d.day as u64 * 1000 + 500,
                            author: JUDGE.into(),
                            at: close,
                            message: world::message("加时15分钟，票一出。", None, tid),
                            deleted_at: None,
                            edits: Vec::new(),
                        }],
                        redirect_next: false,
                        redirected: BTreeSet::new(),
                    },
                );
            }
        }
        // In the order the forum gives them: by time, then pid.
        posts.sort_by_key(|p| (p.at, p.pid));
        out.insert(
            tid,
            SimThread {
                subject: format!("【模拟局】投票帖 第{}天", d.day),
                posts,
                redirect_next: false,
                redirected: BTreeSet::new(),
            },
        );
    }
    out
}

/// bansha42's kill-post thread (004 L60): the judge's opening post, then every night's posts
/// in the order they were handed in.
fn kill_thread(plan: &Plan) -> Option<SimThread> {
    plan.table.as_ref()?;
    let (start, _) = span(&plan.game);
    let last = plan.game.days.len() as u32;
    let mut posts = vec![SimPost {
        pid: 700_000,
        author: JUDGE.into(),
        at: start,
        message: world::message(
            "杀帖楼：杀帖按交帖口令提交到本楼，注明代号（004 L59、L60）。",
            None,
            KILL_TID,
        ),
        deleted_at: None,
        edits: Vec::new(),
    }];
    let mut sent: Vec<&(i64, String, String)> = plan
        .nights
        .iter()
        .filter(|n| n.night <= last)
        .flat_map(|n| n.messages.iter())
        .collect();
    sent.sort_by_key(|m| m.0);
    for (i, (at, author, text)) in sent.into_iter().enumerate() {
        posts.push(SimPost {
            pid: 700_001 + i as u64,
            author: author.clone(),
            at: *at,
            message: world::message(text, None, KILL_TID),
            deleted_at: None,
            edits: Vec::new(),
        });
    }
    Some(SimThread {
        subject: "【模拟局】杀帖楼".into(),
        posts,
        redirect_next: false,
        redirected: BTreeSet::new(),
    })
}

/// The judge's inbox: a qipan game's every player's message (003 L106), none of the judge's,
/// and its nights' moves and kills; a chuhan or jiaohui game's night actions.
fn pms(plan: &Plan) -> Vec<world::SimPm> {
    let last = plan.game.days.len() as u32;
    let nights = plan
        .nights
        .iter()
        .filter(|n| n.night <= last)
        .flat_map(|n| n.messages.iter())
        .enumerate()
        .map(|(i, (t, from, text))| world::SimPm {
            pmid: 900_000 + i as u64,
            author: from.clone(),
            at: *t,
            text: text.clone(),
        });
    if matches!(plan.game.preset, gen::Preset::Chuhan | gen::Preset::Jiaohui) {
        return nights.collect();
    }
    if plan.game.preset != gen::Preset::Qipan {
        return Vec::new();
    }
    let mut out: Vec<world::SimPm> = crate::run::messages_of(&plan.game)
        .into_iter()
        .filter(|m| m.from != JUDGE)
        .map(|m| world::SimPm {
            pmid: m.pmid,
            author: m.from,
            at: m.sent_at.map_or(0, unix),
            text: m.text,
        })
        .chain(nights)
        .collect();
    out.sort_by_key(|m| (m.at, m.pmid));
    out
}

/// The game config with days 1 to `upto` typed.
fn write_game(plan: &Plan, dir: &std::path::Path, upto: u32) {
    let mut typed = plan.game.clone();
    typed.days.retain(|d| d.day <= upto);
    let mut game = crate::run::config_text(&typed);
    for d in &typed.days {
        game = game.replacen(
            &format!("[[days]]\nday = {}\n", d.day),
            &format!(
                "[[days]]\nday = {}\nvote_thread = {}\n",
                d.day,
                tid_of(d.day)
            ),
            1,
        );
    }
    // bansha42's overtime votes in its own poll (`polls`).
    for d in typed
        .days
        .iter()
        .filter(|d| d.runoff.is_some() && plan.game.preset == gen::Preset::Bansha42)
    {
        game = game.replacen(
            "runoff = { closes_at",
            &format!(
                "runoff = {{ vote_thread = {}, closes_at",
                overtime_tid_of(d.day)
            ),
            1,
        );
    }
    if plan.lock_off_by_one {
        game += "\n[rules.vote]\nlock_minutes = 59\n";
    }
    // chuhan's two 士, each side's (000 L80, L82; the preset's role 士 with a mark), and the
    // night's deadline.
    if let (Some((left, right)), Some(shuai)) = (&plan.shi, &plan.shuai) {
        game += &format!(
            "\n[roster.roles]\n\"{left}\" = {{ role = \"士\", faction = \"楚\", marks = [\"左士\"] }}\n\
             \"{right}\" = {{ role = \"士\", faction = \"汉\", marks = [\"右士\"] }}\n\
             \"{shuai}\" = {{ role = \"帅\", faction = \"楚\" }}\n\
             \n[rules.night]\ndeadline_after_close_minutes = {}\n",
            NIGHT_SECS / 60
        );
    }
    // jiaohui's seats with night powers (001 三(一)) and the judge's timetable for the night
    // (L199 "具体游戏时间请关注游戏进程": the preset's 12 hours, here the simulator's 10).
    if let Some(c) = &plan.church {
        game += "\n[roster.roles]\n";
        for h in &c.heretics {
            game += &format!("\"{h}\" = {{ role = \"异教徒\", faction = \"异教徒\" }}\n");
        }
        for m in &c.monks {
            game += &format!("\"{m}\" = {{ role = \"僧侣\", faction = \"教会\" }}\n");
        }
        game += &format!(
            "\"{}\" = {{ role = \"十字军剑士\", faction = \"教会\" }}\n\
             \"{}\" = {{ role = \"黑暗领主\", faction = \"异教徒\" }}\n\
             \"{}\" = {{ role = \"吟游诗人\", faction = \"教会\" }}\n\
             \n[rules.night]\ndeadline_after_close_minutes = {}\n",
            c.crusader,
            c.lord,
            c.bard,
            NIGHT_SECS / 60
        );
    }
    // m103's seats with night powers (002 L12–L13); the night's limit is the preset's (L236).
    if let Some(c) = &plan.court {
        game += "\n[roster.roles]\n";
        for (p, role, faction) in court_seats(c) {
            game += &format!("\"{p}\" = {{ role = \"{role}\", faction = \"{faction}\" }}\n");
        }
    }
    // bansha42's seats with their codes (004 L93–L101) and the game's kill-post thread on day 1
    // (its posts are the nights' whichever day is typed).
    if let Some(t) = &plan.table {
        game = game.replacen(
            "[[days]]\nday = 1\n",
            &format!(
                "[[days]]\nday = 1\nchecked_threads = [{{ tid = {KILL_TID}, kind = \"kill\" }}]\n"
            ),
            1,
        );
        game += "\n[roster.roles]\n";
        for (p, role, faction, code) in &t.seats {
            game += &format!(
                "\"{p}\" = {{ role = \"{role}\", faction = \"{faction}\", code = \"{code}\" }}\n"
            );
        }
    }
    // qipan's factions (003 L58: 好人 and 杀手, the 主杀 and the 副杀) and the map (L12).
    if let Some(b) = &plan.board {
        game += "\n[roster.roles]\n";
        for p in gen::PLAYERS {
            let role = match p {
                _ if p == b.chief => "主杀",
                _ if p == b.second => "副杀",
                _ => "好人",
            };
            let faction = if role == "好人" { "好人" } else { "杀手" };
            game += &format!("\"{p}\" = {{ role = \"{role}\", faction = \"{faction}\" }}\n");
        }
        let rows: Vec<String> = b.grid.iter().map(|r| format!("\"{r}\"")).collect();
        let start: Vec<String> = b
            .start
            .iter()
            .map(|(p, c)| format!("\"{p}\" = \"{}\"", board_cell_name(*c)))
            .collect();
        game += &format!(
            "\n[rules.night.map]\ngrid = [{}]\nstart = {{ {} }}\n",
            rows.join(", "),
            start.join(", ")
        );
    }
    std::fs::create_dir_all(dir.join("games")).unwrap();
    std::fs::write(dir.join("games/sim.toml"), game).unwrap();
}

fn config_files(plan: &Plan, dir: &std::path::Path) -> std::path::PathBuf {
    write_game(plan, dir, 1);
    let password = dir.join("forum-password");
    std::fs::write(&password, "sim-password\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&password, std::fs::Permissions::from_mode(0o600)).unwrap();
    let daemon = dir.join("daemon.toml");
    std::fs::write(
        &daemon,
        format!(
            r#"state_dir = "state"

[forum]
base_url = "http://127.0.0.1:9/"
source = "api"
api_version = 1
posts_per_page = 10
min_gap_ms = 0
timeout_secs = 5
retries = 2

[forum.login]
username = "{JUDGE}"
password_file = "forum-password"

[smtp]
host = "127.0.0.1"
port = 25
security = "plain"
from = "bansha@judge.test"

[judge]
to = ["judge@judge.test"]

[poll]
interval_secs = {INTERVAL}
near_close_secs = {TICK}
near_close_minutes = {NEAR_MINUTES}
interim_every_hours = 0

[status]
listen = "127.0.0.1:0"

[[games]]
config = "games/sim.toml"
"#
        ),
    )
    .unwrap();
    daemon
}

/// What one run found.
pub struct Outcome {
    pub trace: String,
    /// The first broken invariant.
    pub failure: Option<String>,
    pub cycles: u64,
    pub crashes: u64,
    pub mails: u64,
    pub finals: u64,
    /// Days the judge confirmed on the dashboard, and corrected finals (a confirmation after a
    /// later day's final changed who could vote that day).
    pub confirmed: u64,
    pub corrected: u64,
    /// Nights the judge confirmed on the dashboard, and the deaths the rule posts' oracles
    /// gave those nights (each found in the state, or the run fails).
    pub nights: u64,
    pub night_deaths: u64,
    /// The judge's night entries answered 200, and pardons granted.
    pub entered: u64,
    pub pardons: u64,
    /// Ballots edited after the close: as they stood at the close (a page served them before
    /// the edit), and voided as read after it; rounds whose final voided one a page had served
    /// before the edit (that read not kept).
    pub late_edits: (u64, u64, u64),
    /// What the record's directory held at the end (sled, the journal, the mail queue).
    pub disk_bytes: u64,
}

struct Running {
    service: Arc<Service>,
    /// The dashboard's router, built once a process as `serve` builds it.
    router: axum::Router,
}

/// Run the plan's game from before day 1 to after its last close.
pub fn run(plan: &Plan) -> Outcome {
    // On tmpfs where there is one: the record's fsyncs cost nothing there.
    let shm = std::path::Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        tempfile::tempdir_in(shm).unwrap()
    } else {
        tempfile::tempdir().unwrap()
    };
    let config = config_files(plan, dir.path());
    let (start, end) = span(&plan.game);
    // Past the last fault too, with room to recover: what is owed goes out after it.
    let end = plan
        .events
        .iter()
        .map(|(t, e)| match e {
            Event::RelayDown(s) | Event::Sleep(s) | Event::DiskFull(_, s) => t + s + 6 * 3600,
            _ => *t + 6 * 3600,
        })
        .fold(end, i64::max);
    let world = Arc::new(Mutex::new(World::new(start)));
    world.lock().unwrap().threads = threads(plan);
    if let Some(k) = kill_thread(plan) {
        world.lock().unwrap().threads.insert(KILL_TID, k);
    }
    world.lock().unwrap().pms = pms(plan);
    world.lock().unwrap().polls = polls(plan);
    world.lock().unwrap().machine_skew = plan.machine_skew;
    let disk = world.lock().unwrap().disk.clone();
    // As `bansha run` sets the allocator up before its runtime starts.
    bansha::io::memory::one_arena();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    bansha::io::log::capture();
    let mut out = Outcome {
        trace: format!(
            "seed {} preset {} days {} machine clock {:+}s deletions {:?}\nedits {:?}\nevents {:?}\nshi {:?} church {:?} court {:?} table {:?} nights {:?}\n",
            plan.seed,
            plan.game.preset.name(),
            plan.game.days.len(),
            plan.machine_skew,
            plan.deletions,
            plan.edits
                .iter()
                .map(|e| format!("{} at {} to {:?}", e.pid, at(e.at).format("%m-%d %H:%M:%S"), e.intent))
                .collect::<Vec<_>>(),
            plan.events,
            plan.shi,
            plan.church,
            plan.court,
            plan.table,
            plan.nights
                .iter()
                .map(|n| format!(
                    "{}: {:?} entered {:?} confirmed at {}",
                    n.night,
                    n.messages
                        .iter()
                        // A kill post by its header and length.
                        .map(|(t, f, x)| format!(
                            "{} {f} {}{}",
                            at(*t).format("%m-%d %H:%M:%S"),
                            x.lines().take(2).collect::<Vec<_>>().join(" "),
                            if x.lines().count() > 2 { format!(" …{} chars", x.chars().count()) } else { String::new() }
                        ))
                        .collect::<Vec<_>>(),
                    n.entries
                        .iter()
                        .map(|(t, f, p, x)| format!("{} {f} {p}：{x}", at(*t).format("%m-%d %H:%M:%S")))
                        .collect::<Vec<_>>(),
                    at(n.confirm_at).format("%m-%d %H:%M:%S")
                ))
                .collect::<Vec<_>>()
        ),
        failure: None,
        cycles: 0,
        crashes: 0,
        mails: 0,
        finals: 0,
        confirmed: 0,
        corrected: 0,
        nights: 0,
        night_deaths: 0,
        entered: 0,
        pardons: 0,
        late_edits: (0, 0, 0),
        disk_bytes: 0,
    };
    for d in &plan.game.days {
        let rounds = [Some(&d.posts), d.runoff.as_ref().map(|r| &r.posts)];
        for (r, posts) in rounds.into_iter().flatten().enumerate() {
            let list: Vec<String> = posts
                .iter()
                .map(|g| format!("{} {:+}s {} {:?}", g.pid, g.secs, g.author, g.intent))
                .collect();
            let _ = writeln!(
                out.trace,
                "day {} round {}: {}",
                d.day,
                r + 1,
                list.join("; ")
            );
        }
    }
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(drive(plan, &config, &world, &disk, start, end, &mut out))
    }));
    let logs = bansha::io::log::take();
    if result.is_err() {
        out.failure = Some("the service panicked".into());
    }
    {
        let w = world.lock().unwrap();
        for l in &w.trace {
            let _ = writeln!(out.trace, "{l}");
        }
    }
    // The temporary directory's name is the one thing a run does not choose.
    let here = dir.path().display().to_string();
    for l in &logs {
        let _ = writeln!(out.trace, "log {}", l.replace(&here, "<dir>"));
    }
    if out.failure.is_none() {
        out.failure = check(plan, &world.lock().unwrap(), dir.path(), &mut out);
    }
    // The record stays bounded: a game's record is its posts and mails, not its cycles. The
    // bound is generous (seeds 1–40: at most 6.6 MiB, a 13-day game, against 34 MiB); a
    // record that grows with every cycle (thousands a game) soon crosses it.
    out.disk_bytes = dir_bytes(dir.path());
    let bound = DISK_BOUND_FIXED + DISK_BOUND_PER_DAY * plan.game.days.len() as u64;
    if out.failure.is_none() && out.disk_bytes > bound {
        out.failure = Some(format!(
            "the record's directory holds {} bytes at the end, over the bound of {bound} for {} days",
            out.disk_bytes,
            plan.game.days.len()
        ));
    }
    out
}

/// The record's bound: a fixed part (sled's files as created) and a part per game-day.
const DISK_BOUND_FIXED: u64 = 8 << 20;
const DISK_BOUND_PER_DAY: u64 = 2 << 20;

fn dir_bytes(dir: &std::path::Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => dir_bytes(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

/// Start the service as `bansha run` does: open the record, the catch-up cycle.
fn start_service(
    plan: &Plan,
    config: &std::path::Path,
    world: &Arc<Mutex<World>>,
    disk: &Arc<AtomicBool>,
) -> Result<Running, String> {
    // A new process has no session cookie.
    world.lock().unwrap().logged_in = false;
    let settings = bansha::io::files::load_settings(config)
        .unwrap_or_else(|e| panic!("the simulator's config does not load: {e:?}"));
    let daemon = Daemon::open_with(
        settings,
        Seams {
            http: Some(Arc::new(SimForum(world.clone()))),
            relay: Some(Arc::new(SimRelay(world.clone()))),
            disk_full: Some(disk.clone()),
            plants: plan.plants,
            // The timeline picture drawn without its words (nothing here reads them).
            fonts: Some(Arc::new(resvg::usvg::fontdb::Database::new())),
        },
    )
    .map_err(|e| format!("{e:#}"))?;
    daemon
        .check_clock
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let service = Arc::new(Service::new(
        Arc::new(daemon),
        Arc::new(SimClock(world.clone())),
    ));
    let router = bansha::daemon::http::router(service.clone());
    Ok(Running { service, router })
}

/// The phase times the scheduler's one-shot jobs fire at, on true time (the scheduler's
/// instants are monotonic: a machine clock set apart moves them with it).
fn phase_wakes(r: &Running, world: &Arc<Mutex<World>>) -> Vec<i64> {
    let (now, skew) = {
        let w = world.lock().unwrap();
        (w.now, w.machine_skew)
    };
    let machine = at(now + skew);
    let mut v: Vec<i64> =
        bansha::daemon::service::phase_jobs(&r.service.daemon.settings().games, machine)
            .into_iter()
            .map(|t| unix(t) - skew)
            .collect();
    v.extend(
        r.service
            .daemon
            .runoff_phases(machine)
            .into_iter()
            .flat_map(|(l, c)| [l, Some(c)])
            .flatten()
            .filter(|t| *t > machine)
            .map(|t| unix(t) - skew),
    );
    v
}

/// The simulation proper.
async fn drive(
    plan: &Plan,
    config: &std::path::Path,
    world: &Arc<Mutex<World>>,
    disk: &Arc<AtomicBool>,
    start: i64,
    end: i64,
    out: &mut Outcome,
) {
    let closes = closes(&plan.game);
    let mut events = plan.events.clone();
    events.reverse();
    let mut typed = plan.days_typed.clone();
    typed.reverse();
    let dir = config.parent().unwrap().to_path_buf();
    let mut forced: BTreeSet<i64> = typed.iter().filter(|x| x.2).map(|x| x.0).collect();
    // (when, day): the judge's next click on a day's confirmation.
    let mut confirms: Vec<(i64, u32)> = plan.confirms.clone();
    // (when, night): the judge's next click on a night's confirmation.
    let last_day = plan.game.days.len() as u32;
    let mut night_confirms: Vec<(i64, u32)> = plan
        .nights
        .iter()
        .filter(|n| n.night <= last_day)
        .map(|n| (n.confirm_at, n.night))
        .collect();
    // (when, night, by, power, target): the judge's next try at a dashboard entry.
    let mut night_entries: Vec<(i64, u32, String, String, String)> = plan
        .nights
        .iter()
        .filter(|n| n.night <= last_day)
        .flat_map(|n| {
            n.entries
                .iter()
                .map(|(t, by, p, x)| (*t, n.night, by.clone(), p.clone(), x.clone()))
        })
        .collect();
    let mut running: Option<Running> = None;
    let mut up_at = start;
    let mut relay_until = i64::MIN;
    let mut asleep_until = i64::MIN;
    let mut last_cycle: Option<i64> = None;
    let mut t = start;
    // Until the end, and on while faults are still queued (a forum failing at every read is
    // read again at most hourly: queued faults can outlast the last close by hours).
    let pending = |w: &World| !w.forum_faults.is_empty() || !w.relay_faults.is_empty();
    let mut last_pending = start;
    while t <= end.max(last_pending + 6 * 3600).min(end + 3 * 86400) {
        if pending(&world.lock().unwrap()) {
            last_pending = t;
        }
        {
            let mut w = world.lock().unwrap();
            w.now = t;
            while events.last().is_some_and(|(et, _)| *et <= t) {
                let (et, e) = events.pop().unwrap();
                w.trace
                    .push(format!("{} event {e:?}", at(et).format("%m-%d %H:%M:%S")));
                match e {
                    Event::Forum(f) => w.forum_faults.extend(f),
                    Event::Relay(f) => w.relay_faults.extend(f),
                    Event::RelayDown(s) => relay_until = t + s,
                    Event::Crash(k) => w.crash_at = Some(w.io_calls + k),
                    Event::DiskFull(k, s) => {
                        let at = w.io_calls + k;
                        w.disk_full_at = Some((at, s));
                    }
                    Event::Sleep(s) => asleep_until = t + s,
                    Event::ClockJump(s) => w.machine_skew += s,
                    Event::LoggedOut => w.logged_in = false,
                }
            }
            w.relay_down = t < relay_until;
            disk.store(t < w.disk_until, std::sync::atomic::Ordering::Relaxed);
        }
        let mut hup = false;
        while typed.last().is_some_and(|(tt, _, _)| *tt <= t) {
            let (_, day, sighup) = typed.pop().unwrap();
            write_game(plan, &dir, day);
            world.lock().unwrap().trace.push(format!(
                "{} the judge types day {day}{}",
                at(t).format("%m-%d %H:%M:%S"),
                if sighup { " and reloads" } else { "" }
            ));
            hup |= sighup;
        }
        if hup {
            if let Some(r) = &running {
                // `systemctl reload`: SIGHUP, a reload and a cycle at once.
                r.service.daemon.ask_reload();
            }
        }
        if t >= asleep_until {
            if running.is_none() && t >= up_at {
                match start_service(plan, config, world, disk) {
                    Ok(r) => {
                        forced.extend(phase_wakes(&r, world));
                        running = Some(r);
                        // `service::run`: the catch-up cycle at once.
                        tick(
                            &mut running,
                            world,
                            true,
                            t,
                            &mut up_at,
                            out,
                            &mut last_cycle,
                        )
                        .await;
                    }
                    Err(e) => {
                        world
                            .lock()
                            .unwrap()
                            .trace
                            .push(format!("start failed: {e}"));
                        // systemd tries again every `RestartSec`; while the disk stays full
                        // each try fails the same way, without a trace: every 10 minutes here.
                        let disk_until = world.lock().unwrap().disk_until;
                        up_at = if t < disk_until {
                            disk_until.min(t + 600).max(t + RESTART)
                        } else {
                            t + RESTART
                        };
                    }
                }
            } else if running.is_some() {
                let force = forced.remove(&t);
                tick(
                    &mut running,
                    world,
                    force,
                    t,
                    &mut up_at,
                    out,
                    &mut last_cycle,
                )
                .await;
                if let Some(r) = &running {
                    forced.extend(phase_wakes(r, world).into_iter().filter(|p| *p > t));
                }
            }
        }
        confirm_days(
            plan.seed,
            &mut confirms,
            running.as_ref(),
            world,
            t,
            t >= asleep_until,
        )
        .await;
        let live = running.as_ref().filter(|_| t >= asleep_until);
        if enter_nights(&mut night_entries, live, world, t).await {
            // Killed while the entry was written.
            running = None;
            out.crashes += 1;
            up_at = t + RESTART;
        }
        // The judge confirms a night once his entries of it are in.
        let (held, mut due_confirms): (Vec<_>, Vec<_>) = night_confirms
            .drain(..)
            .partition(|(_, n)| night_entries.iter().any(|e| e.1 == *n));
        if confirm_nights(
            &mut due_confirms,
            running.as_ref().filter(|_| t >= asleep_until),
            world,
            t,
        )
        .await
        {
            // Killed in the cycle the confirmation runs.
            running = None;
            out.crashes += 1;
            up_at = t + RESTART;
        }
        night_confirms = held
            .into_iter()
            .map(|(w, n)| {
                let first = night_entries.iter().filter(|e| e.1 == n).map(|e| e.0).min();
                (w.max(first.unwrap_or(w)), n)
            })
            .chain(due_confirms)
            .collect();
        let wake = |owed| {
            next_wake(
                t,
                start,
                &closes,
                &forced,
                last_cycle,
                running.is_none().then_some(up_at),
                asleep_until,
                owed,
            )
        };
        // Whether a final is owed (the service's own question, not cheap) matters only where
        // the simulator would otherwise sleep past the next tick.
        let mut next = wake(false);
        if next > t + TICK && running.as_ref().is_some_and(|r| owed(r, world)) {
            next = wake(true);
        }
        let next = next.min(
            confirms
                .iter()
                .chain(night_confirms.iter())
                .map(|c| c.0)
                .chain(night_entries.iter().map(|e| e.0))
                .min()
                .unwrap_or(i64::MAX)
                .max(t + 1),
        );
        // The monotonic clock the service's timers and the forum's `Date` age go by: it runs
        // with true time, but not while the machine sleeps (CLOCK_MONOTONIC on Linux).
        if t >= asleep_until {
            tokio::time::advance(std::time::Duration::from_secs((next - t) as u64)).await;
        }
        t = next;
    }
}

/// The judge's clicks on "确认第 N 天结果" that are due, through the dashboard's router as the
/// page sends them. Refused for now (no final yet: a run-off to close, a final not yet made)
/// or the dashboard unreachable (the service down, the machine asleep): clicked again later.
/// Asked about a pardon: answered "不赦免" at once.
async fn confirm_days(
    seed: u64,
    confirms: &mut Vec<(i64, u32)>,
    running: Option<&Running>,
    world: &Arc<Mutex<World>>,
    t: i64,
    awake: bool,
) {
    let mut later = Vec::new();
    for (when, day) in std::mem::take(confirms) {
        if when > t {
            later.push((when, day));
            continue;
        }
        let Some(r) = running.filter(|_| awake) else {
            later.push((t + 600, day));
            continue;
        };
        let mut answer = click(r, "/confirm", format!(r#"{{"day": {day}}}"#)).await;
        // Asked whether a pardon saves the player voted out (jiaohui L85 特赦, L91 圣光): the
        // judge grants the one it names half the time (his choice, drawn from the seed).
        let mut granted = None;
        if answer.0 == 428 {
            let power = ["特赦", "圣光"]
                .into_iter()
                .find(|p| answer.1.contains(p))
                .filter(|_| Rng::new(seed ^ 0x9a2d_0000 ^ u64::from(day)).chance(50));
            let body = match power {
                Some(p) => format!(r#"{{"day": {day}, "pardon": ["{p}"]}}"#),
                None => format!(r#"{{"day": {day}, "no_pardon": true}}"#),
            };
            answer = click(r, "/confirm", body).await;
            granted = power;
        }
        let (status, body) = answer;
        world.lock().unwrap().trace.push(format!(
            "{} the judge confirms day {day}: {status} {}",
            at(t).format("%m-%d %H:%M:%S"),
            body.trim().replace('\n', " / ")
        ));
        match status {
            200 => {
                let mut w = world.lock().unwrap();
                w.confirmed.insert(day);
                if let Some(p) = granted {
                    w.pardons.insert(day, p.to_string());
                }
            }
            // Already recorded (a click whose answer was lost): nothing more to do.
            409 if body.contains("已经确认过") => {}
            409 => later.push((t + 1800, day)),
            _ => {
                world
                    .lock()
                    .unwrap()
                    .trace
                    .push(format!("confirm failed: {status} {body}"));
            }
        }
    }
    *confirms = later;
}

/// The judge's clicks on "确认第 N 夜结算" that are due, through the dashboard's router. Refused
/// for now (the night not drafted yet, its day's result or an earlier night to confirm first,
/// the inbox not read since the deadline) or the dashboard unreachable: clicked again later,
/// until it is (a night stays open, overdue, past the next day's close). True when the process
/// was killed in the cycle a confirmation runs.
async fn confirm_nights(
    confirms: &mut Vec<(i64, u32)>,
    running: Option<&Running>,
    world: &Arc<Mutex<World>>,
    t: i64,
) -> bool {
    let mut later = Vec::new();
    let mut died = false;
    for (when, night) in std::mem::take(confirms) {
        if when > t || died {
            later.push((when, night));
            continue;
        }
        let Some(r) = running else {
            later.push((t + 600, night));
            continue;
        };
        let body = format!(r#"{{"game": "模拟局", "night": {night}, "action": "confirm"}}"#);
        // A confirmation runs a cycle at once: the process can die in it.
        let Some((status, body)) = click_or_die(r, world, body).await else {
            world.lock().unwrap().trace.push(format!(
                "{} killed in the cycle the judge's night {night} confirmation ran",
                at(t).format("%m-%d %H:%M:%S")
            ));
            died = true;
            // Whether it was written is the state file's to say: clicked again after the
            // restart (an open night is confirmed then; one confirmed is not open).
            later.push((t + 600, night));
            continue;
        };
        world.lock().unwrap().trace.push(format!(
            "{} the judge confirms night {night}: {status} {}",
            at(t).format("%m-%d %H:%M:%S"),
            body.trim().replace('\n', " / ")
        ));
        match status {
            200 => {
                world.lock().unwrap().nights.insert(night);
            }
            // Open until confirmed, overdue after the next day's close (its final then made
            // again): clicked again until it is.
            409 => later.push((t + 1800, night)),
            _ => {}
        }
    }
    *confirms = later;
    died
}

/// The judge's dashboard entries due by `t` (`POST /night` "add"): an answer of 200 is in
/// `World::entered`; a 409 (the night not open yet) is tried again every 30 minutes. Whether
/// the process died while the entry was written.
async fn enter_nights(
    entries: &mut Vec<(i64, u32, String, String, String)>,
    running: Option<&Running>,
    world: &Arc<Mutex<World>>,
    t: i64,
) -> bool {
    let mut later = Vec::new();
    let mut died = false;
    for e in std::mem::take(entries) {
        let (when, night, by, power, target) = e.clone();
        if when > t || died {
            later.push(e);
            continue;
        }
        let Some(r) = running else {
            later.push((t + 600, night, by, power, target));
            continue;
        };
        let body = serde_json::json!({
            "game": "模拟局", "night": night, "action": "add",
            "by": by, "power": power, "target": target,
        })
        .to_string();
        let Some((status, text)) = click_or_die(r, world, body).await else {
            world.lock().unwrap().trace.push(format!(
                "{} killed while the judge entered night {night}'s {by} {power}",
                at(t).format("%m-%d %H:%M:%S")
            ));
            died = true;
            // Not answered: the judge enters it again after the restart.
            later.push((t + 600, night, by, power, target));
            continue;
        };
        world.lock().unwrap().trace.push(format!(
            "{} the judge enters night {night}'s {by} {power}：{target}: {status} {}",
            at(t).format("%m-%d %H:%M:%S"),
            text.trim().replace('\n', " / ")
        ));
        match status {
            200 => world
                .lock()
                .unwrap()
                .entered
                .push((night, by, power, target)),
            409 => later.push((t + 1800, night, by, power, target)),
            _ => {}
        }
    }
    *entries = later;
    died
}

/// A POST to `/night` through the router, or None when the process was killed meanwhile (the
/// simulator's fatal IO call fell inside it).
async fn click_or_die(
    r: &Running,
    world: &Arc<Mutex<World>>,
    body: String,
) -> Option<(u16, String)> {
    let fatal = world.lock().unwrap().fatal.clone();
    tokio::select! {
        biased;
        a = click(r, "/night", body) => Some(a),
        _ = fatal.notified() => None,
    }
}

/// A POST to the dashboard's router, in process: (status, body).
async fn click(r: &Running, path: &str, body: String) -> (u16, String) {
    use tower::ServiceExt;
    let request = axum::http::Request::builder()
        .method("POST")
        .uri(path)
        .header("host", "127.0.0.1")
        .header("x-bansha", "1")
        .header("content-type", "application/json")
        .body(axum::body::Body::from(body))
        .unwrap();
    let Ok(response) = r.router.clone().oneshot(request).await;
    let status = response.status().as_u16();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .unwrap_or_default();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

/// One tick of the scheduler (a forced one at a phase time); the process killed if an IO call
/// of it was the fatal one, stopped (and started again by systemd) if the disk failed.
async fn tick(
    running: &mut Option<Running>,
    world: &Arc<Mutex<World>>,
    force: bool,
    t: i64,
    up_at: &mut i64,
    out: &mut Outcome,
    last_cycle: &mut Option<i64>,
) {
    let Some(r) = running.as_ref() else { return };
    let service = r.service.clone();
    let before = service.last.lock().await.as_ref().map(|(t, _)| *t);
    // The tick runs until it finishes or the process dies in it (an IO call that never returns).
    let fatal = world.lock().unwrap().fatal.clone();
    let died = tokio::select! {
        biased;
        _ = service.tick(force) => false,
        _ = fatal.notified() => true,
    };
    if died {
        world.lock().unwrap().trace.push(format!(
            "{} killed mid-cycle",
            at(t).format("%m-%d %H:%M:%S")
        ));
        *running = None;
        out.crashes += 1;
        *up_at = t + RESTART;
        return;
    }
    let last = service.last.lock().await.clone();
    if let Some((when, report)) = last {
        if Some(when) != before {
            out.cycles += 1;
            *last_cycle = Some(t);
            if report.store_failed {
                world
                    .lock()
                    .unwrap()
                    .trace
                    .push("store failed: the service stops".into());
                *running = None;
                *up_at = t + RESTART;
            }
        }
    }
}

/// Whether a final is owed: a day the service still watches is past its close (the service's
/// `due` then tries every tick, or as the backoff allows but at least every ten minutes).
fn owed(r: &Running, world: &Arc<Mutex<World>>) -> bool {
    let (now, skew) = {
        let w = world.lock().unwrap();
        (w.now, w.machine_skew)
    };
    let machine = at(now + skew) + r.service.daemon.clock_offset();
    bansha::daemon::service::phases(&r.service.daemon, machine)
        .iter()
        .any(|(_, close)| *close <= machine)
}

/// The next moment anything can happen: a phase's forced tick, the next tick at which a cycle
/// can be due (the normal interval, the fast cadence near a close and after one, every tick
/// while a cycle is owed or the forum is failing), a restart, the machine waking.
#[allow(clippy::too_many_arguments)]
fn next_wake(
    t: i64,
    start: i64,
    closes: &[i64],
    forced: &BTreeSet<i64>,
    last: Option<i64>,
    restart: Option<i64>,
    asleep_until: i64,
    owed: bool,
) -> i64 {
    let grid = |x: i64| start + ((x - start + TICK - 1) / TICK).max(0) * TICK;
    let next_tick = grid(t + 1);
    let mut c = vec![];
    if owed {
        c.push(next_tick);
    }
    if let Some(f) = forced.range(t + 1..).next() {
        c.push(*f);
    }
    match last {
        None => c.push(next_tick),
        Some(l) => c.push(grid(l + INTERVAL).max(next_tick)),
    }
    for &close in closes {
        if t + 1 >= close - NEAR_MINUTES * 60 && t < close + 3 * 3600 {
            c.push(next_tick);
        } else if close - NEAR_MINUTES * 60 > t {
            c.push(grid(close - NEAR_MINUTES * 60));
        }
    }
    if let Some(r) = restart {
        c.push(r.max(t + 1));
    }
    if asleep_until > t {
        c.push(asleep_until);
    }
    c.into_iter().min().unwrap_or(t + TICK)
}

/// The thread's posts as the forum showed them at `close`, for the offline tally: every post
/// not deleted by then (posts after it are late, and the tally says so). A post edited after
/// the close that no page served before the edit (`World::seen`) is one the service cannot know
/// as it stood: it reads the edit, after the close (the tally voids it and says why); the
/// pids of those.
fn truth(
    plan: &Plan,
    day: &gen::Day,
    seen: &BTreeMap<u64, i64>,
) -> (
    Vec<bansha_parsers::Post>,
    Vec<gen::GenPost>,
    Vec<gen::GenPost>,
) {
    let deleted: BTreeMap<u64, i64> = plan.deletions.iter().copied().collect();
    let c1 = crate::run::close_of(day.day);
    let gone = |g: &gen::GenPost| deleted.contains_key(&g.pid);
    // An edited post says what its edit says, from its own time: at the close, what its last
    // edit before the close says (`late_edits_of` come after it).
    let c2 = unix(crate::run::runoff_close_of(plan.game.preset, day.day));
    let before = |pid: u64, close: i64| {
        plan.edits
            .iter()
            .rev()
            .find(|e| e.pid == pid && e.at < close)
    };
    let edited = |close: i64| {
        move |g: &gen::GenPost| {
            let mut g = g.clone();
            if let Some(e) = before(g.pid, close) {
                g.intent = e.intent.clone();
                g.text = e.text.clone();
            }
            g
        }
    };
    let r1: Vec<gen::GenPost> = day
        .posts
        .iter()
        .filter(|g| !gone(g))
        .map(edited(unix(c1)))
        .collect();
    let r2: Vec<gen::GenPost> = day
        .runoff
        .as_ref()
        .map(|r| {
            r.posts
                .iter()
                .filter(|g| !gone(g))
                .map(edited(c2))
                .collect()
        })
        .unwrap_or_default();
    let in_r2: BTreeSet<u64> = r2.iter().map(|g| g.pid).collect();
    let edit_of = |p: &mut bansha_parsers::Post| {
        let close = if in_r2.contains(&p.pid) { c2 } else { unix(c1) };
        if let Some(e) = before(p.pid, close) {
            // The notice gives the minute.
            p.edited_at = Some(at(e.at - e.at.rem_euclid(60)));
            p.edited_by = Some(p.author.clone());
        }
    };
    if plan.game.preset == gen::Preset::Qipan {
        // The inbox holds the whole game's messages; the day's are picked as the daemon picks.
        let config = crate::run::load(&plan.game);
        let d = config.days.iter().find(|d| d.day == day.day).unwrap();
        let posts = bansha::domain::rules::channels::pm_posts(
            &config,
            d,
            &crate::run::messages_of(&plan.game),
        );
        return (posts, r1, r2);
    }
    let mut posts: Vec<bansha_parsers::Post> = r1
        .iter()
        .filter(|g| is_post(g))
        .map(|g| crate::run::post_of(day.day, c1, g))
        .collect();
    posts.extend(r2.iter().filter(|g| is_post(g)).map(|g| {
        crate::run::post_of(
            day.day,
            crate::run::runoff_close_of(plan.game.preset, day.day),
            g,
        )
    }));
    posts.iter_mut().for_each(edit_of);
    for p in &mut posts {
        let close = if in_r2.contains(&p.pid) { c2 } else { unix(c1) };
        let late = plan.edits.iter().find(|e| {
            e.pid == p.pid && e.at >= close && seen.get(&p.pid).is_none_or(|t| *t >= e.at)
        });
        if let Some(e) = late {
            p.text = e.text.clone();
            p.edited_at = Some(at(e.at - e.at.rem_euclid(60)));
            p.edited_by = Some(p.author.clone());
        }
    }
    (posts, r1, r2)
}

/// A note with each list of names ("甲、乙、丙") in sorted order.
fn unordered(note: &str) -> String {
    let list = regex::Regex::new(r"[^\s：；，（）]+(?:、[^\s：；，（）]+)+").unwrap();
    list.replace_all(note, |c: &regex::Captures| {
        let mut names: Vec<&str> = c[0].split('、').collect();
        names.sort();
        names.join("、")
    })
    .into_owned()
}

/// Readings at the moment of each poll vote (bansha42): each seen as it was cast.
fn exact_readings(posts: &[gen::GenPost]) -> Vec<i64> {
    let mut v: Vec<i64> = posts
        .iter()
        .filter(|g| matches!(g.intent, gen::Intent::Poll(_)))
        .map(|g| g.secs)
        .collect();
    v.sort();
    v.dedup();
    v
}

/// The count lines of a final's BBCode (target and votes, up to the voter list).
fn count_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for l in text.lines() {
        if l.contains("[b]得票[/b]") {
            inside = true;
            continue;
        }
        if inside {
            if l.trim().is_empty() || l.starts_with('[') && !l.starts_with("[color") {
                break;
            }
            out.push(l.split('：').next().unwrap_or(l).to_string());
        }
    }
    out
}

/// (day, round) of a final's subject.
fn final_of(subject: &str) -> Option<(u32, u32)> {
    if !subject.starts_with("[模拟局]") || !subject.contains("最终计票：") {
        return None;
    }
    let day: u32 = subject
        .split("第")
        .nth(1)?
        .split('天')
        .next()?
        .trim()
        .parse()
        .ok()?;
    let round = if subject.contains("第二轮投票统计") || subject.contains("加时投票统计")
    {
        2
    } else {
        1
    };
    Some((day, round))
}

/// The game as it is played: m103's day 1 vote elects the sheriff (002 L152 "在游戏的第一天投票
/// 结束后，最先获得投票数最多的角色当选警长"), whose vote counts 1.5 (L153) on the days after
/// while alive, where the judge names none. The simulator's own reading, from day 1's tally of the forum's truth.
///
/// And the judge's confirmations, as the state file the service wrote holds them: a player the
/// judge confirmed out (stamped at the close of the round his final came from) is out on every
/// day that closes later, whatever the config typed for it (a sheriff or half voter named for
/// him is no more).
fn as_played(
    plan: &Plan,
    out: &[(String, i64)],
    facts: &BTreeMap<String, f64>,
    seen: &BTreeMap<u64, i64>,
) -> Game {
    let mut game = plan.game.clone();
    // Days whose typed sheriff is out: the judge named one, so none is carried from day 1
    // (the daemon's `carry_sheriff`), and the one named votes no more.
    let mut named_out = BTreeSet::new();
    for d in &mut game.days {
        let close = unix(crate::run::close_of(d.day));
        for (p, _) in out.iter().filter(|(_, at)| *at < close) {
            if !d.dead.contains(p) {
                d.dead.push(p.clone());
            }
            d.half.retain(|h| h != p);
            if d.sheriff.as_ref() == Some(p) {
                d.sheriff = None;
                named_out.insert(d.day);
            }
        }
    }
    // chuhan: a confirmed night's 诅咒 / 庇佑 on the next day's round 1 (checked against the
    // rule post by `check_nights`), on one alive that day (000 L109: the vote is among the
    // living).
    for (key, v) in facts {
        let Some((day, player)) = key.strip_prefix("adjust:").and_then(|k| k.split_once(':'))
        else {
            continue;
        };
        if let Some(d) = game.days.iter_mut().find(|d| day.parse() == Ok(d.day)) {
            if *v != 0.0 && !d.dead.iter().any(|x| x == player) {
                d.adjust.insert(player.to_string(), *v as i32);
            }
        }
    }
    // bansha42 L74: a post victim of night N votes at half weight on day N + 1, not out that
    // day (the state's `half:` facts, checked against the rule post by `check_nights`).
    for (key, v) in facts {
        let Some((day, player)) = key.strip_prefix("half:").and_then(|k| k.split_once(':')) else {
            continue;
        };
        if *v <= 0.0 {
            continue;
        }
        if let Some(d) = game.days.iter_mut().find(|d| day.parse() == Ok(d.day)) {
            d.dead.retain(|x| x != player);
            if !d.half.iter().any(|h| h == player) {
                d.half.push(player.to_string());
            }
        }
    }
    let Some(day1) = game.days.first() else {
        return game;
    };
    let config = crate::run::load(&game);
    let (posts, _, _) = truth(plan, day1, seen);
    let close = crate::run::close_of(1) + Duration::hours(3);
    let elected = bansha::domain::rules::tally(&config, 1, 1, close, &posts)
        .ok()
        .filter(|t| t.outcome.kind == bansha::domain::rules::OutcomeKind::Sheriff)
        .and_then(|t| t.outcome.players.first().cloned());
    if let Some(name) = elected {
        for d in game.days.iter_mut().filter(|d| d.day > 1) {
            if d.sheriff.is_none() && !d.dead.contains(&name) && !named_out.contains(&d.day) {
                d.sheriff = Some(name.clone());
            }
        }
    }
    game
}

/// The judge's state as the service left it: its events, and each player out by an event not
/// undone with the time it is stamped at.
fn confirmed(
    dir: &std::path::Path,
) -> (bansha::domain::rules::state::GameState, Vec<(String, i64)>) {
    let path = bansha::io::state_file::state_path(&dir.join("games/sim.toml"), None);
    let state = bansha::io::state_file::load_state(&path).unwrap_or_default();
    let out = state
        .events
        .iter()
        .filter(|e| !e.undone)
        .filter_map(|e| match &e.change {
            bansha::domain::rules::state::Change::Eliminate { player, .. } => {
                let at = DateTime::parse_from_rfc3339(&e.at).ok()?;
                Some((player.clone(), at.timestamp()))
            }
            _ => None,
        })
        .collect();
    (state, out)
}

/// The state's facts: each key's value as its last live event set it.
fn facts_of(state: &bansha::domain::rules::state::GameState) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for e in state.events.iter().filter(|e| !e.undone) {
        if let bansha::domain::rules::state::Change::Fact { key, value } = &e.change {
            out.insert(key.clone(), *value);
        }
    }
    out
}

/// Each night the state says was confirmed holds, once, what its rule post makes of the
/// messages the forum's inbox held, from the players alive at dusk (000 L99, 001 L94: the powers
/// of the living), each power's last message sent by the deadline counting (000 L96; at its
/// very second in time, the default of A-C10), on a player alive at dusk. chuhan (`chuhan_night`):
/// the 帅's kill, the 诅咒 and 庇佑 on the next day's round 1. jiaohui (`church_night`): the
/// 异教徒's kill against the 僧侣's prayers and the 十字军剑士's armour. m103 (`court_night`): the
/// 刺客's kill against the 侍卫's 守卫 and the 太医's 救药, then her 毒药. A night the judge's click
/// was answered 200 for is one of them.
fn check_nights(
    plan: &Plan,
    w: &World,
    state: &bansha::domain::rules::state::GameState,
    round_two: &BTreeSet<u32>,
    bad: &mut Vec<String>,
) -> u64 {
    use bansha::domain::rules::state::Change;
    if plan.shi.is_none()
        && plan.church.is_none()
        && plan.court.is_none()
        && plan.board.is_none()
        && plan.table.is_none()
    {
        return 0;
    }
    let mut deaths = 0;
    let facts = facts_of(state);
    // jiaohui: whether the 十字军剑士's armour is still whole (L70 "一次攻击").
    let mut armour = true;
    // m103: who has been guarded (L127 "每名角色一局游戏仅能被守卫一次") and which potions are
    // spent (L120–L121).
    let mut spent = (BTreeSet::new(), BTreeSet::new());
    // qipan: where each living player stands (L14: the start, then each night's moves) and the
    // nights without a kill (L49).
    let mut board_at: BTreeMap<String, (i32, i32)> = plan
        .board
        .as_ref()
        .map(|b| b.start.clone())
        .unwrap_or_default();
    let mut no_kill = 0u32;
    // bansha42: whether the black side has united (L42: the round it does owes a post more
    // where the 情侣刺 eloped, L10).
    let mut united = false;
    // bansha42: the 巫师's potions spent (L17 "每瓶药只能使用一次").
    let mut potions_spent: BTreeSet<String> = BTreeSet::new();
    let mut settled = false;
    // The judge's inbox, every night's messages: a night takes those sent in its own window,
    // whichever night the plan wrote them for (a run-off the plan did not draw moves a night).
    let last = plan.game.days.len() as u32;
    let mut inbox: Vec<&(i64, String, String)> = plan
        .nights
        .iter()
        .filter(|n| n.night <= last)
        .flat_map(|n| n.messages.iter())
        .collect();
    inbox.sort();
    for n in plan
        .nights
        .iter()
        .filter(|n| n.night <= plan.game.days.len() as u32)
    {
        let key = format!("night_confirmed:{}", n.night);
        let marks = state
            .events
            .iter()
            .filter(|e| !e.undone && matches!(&e.change, Change::Fact { key: k, .. } if *k == key))
            .count();
        if marks > 1 {
            bad.push(format!("night {}: confirmed {marks} times", n.night));
        }
        if marks == 0 {
            if w.nights.contains(&n.night) {
                bad.push(format!(
                    "night {}: the judge's click was answered 200, the state has no confirmation",
                    n.night
                ));
            }
            continue;
        }
        settled = true;
        // A run-off the plan did not draw is the rules' own: its hours counted in game time
        // (chuhan pauses at the weekend, 000 L155), as the daemon counts them.
        let planned = plan
            .game
            .days
            .iter()
            .any(|d| d.day == n.night && d.runoff.is_some());
        let opens = match (round_two.contains(&n.night), planned) {
            // m103's actions are all the judge's entries: no inbox window.
            _ if plan.court.is_some() => 0,
            (false, _) => unix(crate::run::close_of(n.night)),
            (true, true) => unix(crate::run::runoff_close_of(plan.game.preset, n.night)),
            (true, false) => {
                let config = crate::run::load(&plan.game);
                let hours = config
                    .rules
                    .runoff
                    .as_ref()
                    .and_then(|r| r.hours)
                    .unwrap_or(24);
                unix(bansha::daemon::decide::game_time_after(
                    crate::run::close_of(n.night),
                    hours,
                    &config.rules.schedule.paused_weekdays,
                ))
            }
        };
        let deadline = opens
            + if plan.board.is_some() {
                QIPAN_NIGHT_SECS
            } else if plan.table.is_some() {
                KILL_SECS
            } else {
                NIGHT_SECS
            };
        let mut dead: BTreeSet<String> = plan
            .game
            .days
            .iter()
            .filter(|d| d.day <= n.night)
            .flat_map(|d| d.dead.iter().cloned())
            .collect();
        // Out at dusk, in the game's order: the votes of days up to the night's own (a run-off
        // the rules lengthened past the next day's close included) and the earlier nights'
        // deaths; not the night's own, nor a later day's vote.
        for e in state.events.iter().filter(|e| !e.undone) {
            if let Change::Eliminate { player, cause, day } = &e.change {
                let earlier_night = cause
                    .strip_prefix('第')
                    .and_then(|c| c.split_once("夜："))
                    .and_then(|(m, _)| m.parse::<u32>().ok())
                    .is_some_and(|m| m < n.night);
                if day.is_some_and(|d| d <= n.night) || earlier_night {
                    dead.insert(player.clone());
                }
            }
        }
        // The last message of a power sent in the night by one of `who` alive at dusk: its
        // target. jiaohui's resolver passes over a change to a target out at dusk (A-J10's
        // default, last_valid); chuhan's takes the last message, a void one voiding the power.
        // Else the judge's dashboard entry answered 200, untimed (the plan enters one only
        // for a seat that sent no message of the power that night, the team's for a team's).
        let skip_void = plan.church.is_some();
        let last_of = |who: &[&String], power: &str| {
            inbox
                .iter()
                .filter(|(t, from, text)| {
                    who.contains(&from)
                        && !dead.contains(from)
                        && (opens..=deadline).contains(t)
                        && text.starts_with(power)
                })
                .map(|(_, _, text)| text.split('：').nth(1).unwrap_or_default().to_string())
                .rfind(|target| !skip_void || !dead.contains(target))
                .or_else(|| {
                    w.entered
                        .iter()
                        .rfind(|(night, by, p, _)| {
                            *night == n.night
                                && p == power
                                && who.contains(&by)
                                && !dead.contains(by)
                        })
                        .map(|e| e.3.clone())
                })
        };
        let mut half_want = BTreeSet::new();
        let (mut killed, want) = match (&plan.shi, &plan.church, &plan.court) {
            _ if plan.table.is_some() => {
                let sent: Vec<&(i64, String, String)> = inbox
                    .iter()
                    .copied()
                    .filter(|m| m.0 > opens && m.0 <= deadline)
                    .collect();
                let t = plan.table.as_ref().unwrap();
                let entered: Vec<&(u32, String, String, String)> =
                    w.entered.iter().filter(|e| e.0 == n.night).collect();
                let (killed, half) = table_night(
                    t,
                    &dead,
                    &sent,
                    &entered,
                    n.night + 1,
                    (&mut united, &mut potions_spent),
                );
                half_want = half;
                (killed, BTreeMap::new())
            }
            _ if plan.board.is_some() => {
                let b = plan.board.as_ref().unwrap();
                let sent: Vec<&(i64, String, String)> = inbox
                    .iter()
                    .copied()
                    .filter(|m| (opens..=deadline).contains(&m.0))
                    .collect();
                (
                    board_night(b, &dead, &sent, opens, &mut board_at, &mut no_kill),
                    BTreeMap::new(),
                )
            }
            (Some(shi), _, _) => chuhan_night(plan, shi, &dead, &last_of),
            (_, Some(c), _) => (
                church_night(c, &dead, &last_of, &mut armour),
                BTreeMap::new(),
            ),
            (_, _, Some(c)) => {
                let entered: Vec<&(u32, String, String, String)> =
                    w.entered.iter().filter(|e| e.0 == n.night).collect();
                (court_night(c, &dead, &entered, &mut spent), BTreeMap::new())
            }
            _ => return deaths,
        };
        deaths += killed.len() as u64;
        let cause = format!("第{}夜：", n.night);
        let mut died: Vec<String> = state
            .events
            .iter()
            .filter(|e| !e.undone)
            .filter_map(|e| match &e.change {
                Change::Eliminate {
                    player, cause: c, ..
                } if c.starts_with(&cause) => Some(player.clone()),
                _ => None,
            })
            .collect();
        killed.sort();
        died.sort();
        if killed != died {
            bad.push(format!(
                "night {}: the state records the night's deaths {died:?}, the rule post's {killed:?}",
                n.night
            ));
        }
        let prefix = format!("adjust:{}:", n.night + 1);
        let got: BTreeMap<String, i32> = facts
            .iter()
            .filter_map(|(k, v)| Some((k.strip_prefix(&prefix)?.to_string(), *v as i32)))
            .filter(|(_, v)| *v != 0)
            .collect();
        if got != want {
            bad.push(format!(
                "night {}: the state records 诅咒/庇佑 {got:?}, the rule post's give {want:?}",
                n.night
            ));
        }
        // bansha42 L74: the round's post victims vote at half weight in it.
        let prefix = format!("half:{}:", n.night + 1);
        let half_got: BTreeSet<String> = facts
            .iter()
            .filter(|(_, v)| **v > 0.0)
            .filter_map(|(k, _)| Some(k.strip_prefix(&prefix)?.to_string()))
            .collect();
        if half_got != half_want {
            bad.push(format!(
                "night {}: the state records half votes for {half_got:?}, the rule post's for {half_want:?}",
                n.night
            ));
        }
    }
    // qipan: where the last confirmed night left each living player (the facts that carry to
    // the next night, 位置:<player> = row × 100 + column) and the nights without a kill.
    if plan.board.is_some() && settled {
        for (p, (r, c)) in &board_at {
            let got = facts.get(&format!("位置:{p}")).copied();
            if got != Some(f64::from(r * 100 + c)) {
                bad.push(format!(
                    "qipan: the state puts {p} at {got:?}, the moves put him at {}",
                    board_cell_name((*r, *c))
                ));
            }
        }
        let got = facts.get("未杀人夜数").copied().unwrap_or(0.0);
        if got != f64::from(no_kill) {
            bad.push(format!(
                "qipan: the state counts {got} nights without a kill, the nights {no_kill}"
            ));
        }
    }
    deaths
}

/// chuhan's night: the 帅's last kill of one alive at dusk (000 L52; no 兵, 相, 马 or 车 in these
/// games: no 无敌, 兑子 or 禁锢 to stop it), and each 士's last power of his own side: +1 for the
/// 左士's 诅咒 (L80), −1 for the 右士's 庇佑 (L82).
fn chuhan_night(
    plan: &Plan,
    (left, right): &(String, String),
    dead: &BTreeSet<String>,
    last_of: &dyn Fn(&[&String], &str) -> Option<String>,
) -> (Vec<String>, BTreeMap<String, i32>) {
    let killed: Vec<String> = plan
        .shuai
        .iter()
        .filter_map(|s| last_of(&[s], "杀人"))
        .filter(|t| !dead.contains(t))
        .collect();
    let mut want: BTreeMap<String, i32> = BTreeMap::new();
    for (shi, power, sign) in [(left, "诅咒", 1), (right, "庇佑", -1)] {
        if let Some(target) = last_of(&[shi], power).filter(|t| !dead.contains(t)) {
            *want.entry(target).or_default() += sign;
        }
    }
    want.retain(|_, v| *v != 0);
    (killed, want)
}

/// jiaohui's night, as the simulator plays it: the 异教徒's list (their last 杀人 together,
/// L63, attack 1) against the target's defence (L98: dies when attack − defence ≥ 0): 1, +1 when
/// at least 当前僧侣数／当前异教徒人数 living 僧侣 (rounded half up, L76; self-prayers counting,
/// A-J7; with a threshold of 0, at least one, A-J9) prayed for him, +1 for the 十字军剑士's
/// armour against the 异教徒's first attack of 1 on him, which spends it (L70, A-J1's default).
fn church_night(
    c: &Church,
    dead: &BTreeSet<String>,
    last_of: &dyn Fn(&[&String], &str) -> Option<String>,
    armour: &mut bool,
) -> Vec<String> {
    let heretics: Vec<&String> = c.heretics.iter().filter(|h| !dead.contains(*h)).collect();
    let Some(target) = last_of(&heretics, "杀人").filter(|t| !dead.contains(t)) else {
        return Vec::new();
    };
    // L86, L92: "不被投杀不被攻击" before both their powers are used.
    if target == c.lord || target == c.bard {
        return Vec::new();
    }
    let monks = c.monks.iter().filter(|m| !dead.contains(*m)).count();
    let threshold = (2 * monks + heretics.len()) / (2 * heretics.len());
    let prayers = c
        .monks
        .iter()
        .filter_map(|m| last_of(&[m], "祈祷"))
        .filter(|t| *t == target)
        .count();
    let mut defence = 1;
    if prayers >= threshold.max(1) {
        defence += 1;
    }
    if target == c.crusader && *armour {
        defence += 1;
        *armour = false;
    }
    if 1 >= defence {
        vec![target]
    } else {
        Vec::new()
    }
}

/// qipan's night (003 L14, L77), from the messages sent in it, each player's last of a kind
/// counting: the good players' moves sent by the first hour's end (L114), one cell 北/南/东/西
/// (L24: a diagonal is refused), failing into no cell (L28: he stays); the killers' by the
/// deadline, one cell in eight directions (L36); then the 主杀's kill (the 副杀's once the 主杀
/// is out, L42) of a living good player on his cell or one of the eight around it (L46). A
/// night without a kill adds to the count (L49).
fn board_night(
    b: &Board,
    dead: &BTreeSet<String>,
    sent: &[&(i64, String, String)],
    opens: i64,
    at: &mut BTreeMap<String, (i32, i32)>,
    no_kill: &mut u32,
) -> Vec<String> {
    let cells = board_cells(&b.grid);
    let alive = |p: &String| !dead.contains(p);
    let killer = |p: &String| *p == b.chief || *p == b.second;
    at.retain(|p, _| alive(p));
    for p in gen::PLAYERS
        .iter()
        .map(|p| p.to_string())
        .filter(|p| alive(p))
    {
        at.entry(p.clone()).or_insert(b.start[&p]);
    }
    let last = |p: &String, until: i64, kind: &dyn Fn(&str) -> bool| {
        sent.iter()
            .rfind(|m| m.1 == *p && m.0 <= until && kind(&m.2))
            .map(|m| m.2.clone())
    };
    let is_move = |x: &str| move_of(x).is_some();
    let players: Vec<String> = at.keys().cloned().collect();
    for killers in [false, true] {
        let until = if killers {
            opens + QIPAN_NIGHT_SECS
        } else {
            opens + QIPAN_MOVES_SECS
        };
        for p in players.iter().filter(|p| killer(p) == killers) {
            let Some((dr, dc)) = last(p, until, &is_move).and_then(|x| move_of(&x)) else {
                continue;
            };
            let to = (at[p].0 + dr, at[p].1 + dc);
            if (killers || dr == 0 || dc == 0) && cells.contains(&to) {
                at.insert(p.clone(), to);
            }
        }
    }
    let acting = [&b.chief, &b.second].into_iter().find(|k| alive(k));
    let victim = acting.and_then(|k| {
        let text = last(k, opens + QIPAN_NIGHT_SECS, &|x: &str| {
            x.starts_with("杀人：")
        })?;
        let t = text.trim_start_matches("杀人：").to_string();
        let (kc, tc) = (at[k], *at.get(&t)?);
        (!killer(&t) && (kc.0 - tc.0).abs() <= 1 && (kc.1 - tc.1).abs() <= 1).then_some(t)
    });
    match victim {
        Some(v) => {
            at.remove(&v);
            vec![v]
        }
        None => {
            *no_kill += 1;
            Vec::new()
        }
    }
}

/// Whether an m103 game is over at `dead` (no night is then settled, L164): 杀了狗皇帝 wins with
/// at least half the living (L181), or one camp alone is not lost (L168 "场上仅有一个阵营尚未
/// 被判负"): 杀了狗皇帝 lost when its 刺客 are all out (L185), 我爱皇帝 when its 密探, 太医 and
/// 侍卫 are (L194; no 太子 here), or its 宠妃 and 帝王 (L196).
/// bansha42's night, the simulator's own reading of 004: the kill posts handed in by the
/// deadline (L60) by a black seat alive at dusk (L8–L11; the code it names, L59, else its
/// author) on one alive at dusk, each (poster, victim) once; in rounds 2–4 each group's own
/// quota (L31–L33 "杀2、联刺1，独刺1"; a group all out leaves its quota to the others, L38) and
/// in every round the round's total (L30–L36; the union round one more where the 情侣刺 eloped,
/// L10, L42), the earliest counting; none after round 7. Each victim dies and votes at half
/// weight in the round (L74); a 明蛋 or 暗蛋 posted up to round 4 takes its posters with it
/// (L22, L24; A-B1's default), who vote no more (A-B2's default). Then the 巫师 alive at dusk,
/// her last entry of each potion, each once a game (L17): the 解药 brings back one the posts
/// killed with a whole vote (L16; not in round 7, L17; an egg's posters stay gone, A-B3's
/// default), the 毒药 kills one alive at dusk the posts did not kill, without a half vote (L16;
/// not after round 4, L17).
/// Returns who dies and who votes at half weight.
fn table_night(
    t: &Table,
    dead: &BTreeSet<String>,
    sent: &[&(i64, String, String)],
    entered: &[&(u32, String, String, String)],
    round: u32,
    (united, spent): (&mut bool, &mut BTreeSet<String>),
) -> (Vec<String>, BTreeSet<String>) {
    let mut posts: Vec<(i64, String, &'static str, String)> = Vec::new();
    for (at, author, text) in sent {
        let mut lines = text.lines();
        let Some(victim) = lines.next().and_then(|l| l.strip_prefix("贴杀：")) else {
            continue;
        };
        let poster = lines
            .next()
            .and_then(|l| l.strip_prefix("代号："))
            .and_then(|c| t.by_code(c))
            .unwrap_or(author)
            .clone();
        let Some(seat) = t.seat(&poster).filter(|s| s.2 == "黑道") else {
            continue;
        };
        if dead.contains(&poster) || dead.contains(victim) || round > 7 {
            continue;
        }
        if !posts.iter().any(|p| p.1 == poster && p.3 == victim) {
            posts.push((*at, poster, seat.1, victim.to_string()));
        }
    }
    let mut total: usize = match round {
        2..=4 => 4,
        5 | 6 => 3,
        7 => 2,
        _ => 0,
    };
    if round >= 5 && !*united && total > 0 {
        *united = true;
        if t.seats
            .iter()
            .any(|s| s.1 == "情侣刺" && dead.contains(&s.0))
        {
            total += 1;
        }
    }
    let earliest = |mut v: Vec<(i64, String, &'static str, String)>, n: usize| {
        v.sort_by_key(|p| p.0);
        let rest = v.split_off(n.min(v.len()));
        (v, rest)
    };
    let mut kept = posts.clone();
    if (2..=4).contains(&round) {
        let quotas = [("联合杀", 2usize), ("情侣刺", 1), ("独立刺", 1)];
        let alive = |g: &str| t.seats.iter().any(|s| s.1 == g && !dead.contains(&s.0));
        let mut pool = 0;
        let mut over = Vec::new();
        kept.clear();
        for (g, n) in quotas {
            if !alive(g) {
                pool += n;
                continue;
            }
            let (k, e) = earliest(posts.iter().filter(|p| p.2 == g).cloned().collect(), n);
            kept.extend(k);
            over.extend(e);
        }
        kept.extend(earliest(over, pool).0);
    }
    let kept = earliest(kept, total).0;
    let mut by_victim: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (_, poster, _, victim) in kept {
        by_victim.entry(victim).or_default().push(poster);
    }
    let mut killed = BTreeSet::new();
    let mut half = BTreeSet::new();
    for (victim, by) in by_victim {
        let egg = t
            .seat(&victim)
            .is_some_and(|s| s.1 == "明蛋" || s.1 == "暗蛋");
        if egg && round <= 4 {
            killed.extend(by);
        }
        killed.insert(victim.clone());
        half.insert(victim);
    }
    let witch = &t.seats[6].0;
    let last = |power: &str| {
        entered
            .iter()
            .rfind(|e| e.1 == *witch && e.2 == power)
            .map(|e| e.3.clone())
    };
    if !dead.contains(witch) {
        if let Some(target) = last("解药") {
            if !spent.contains("解药") && round < 7 && half.contains(&target) {
                spent.insert("解药".into());
                killed.remove(&target);
                half.remove(&target);
            }
        }
        // One potion a night at most in these games: the 毒药's target is checked against the
        // night's deaths as the posts left them.
        if let Some(target) = last("毒药") {
            if !spent.contains("毒药")
                && round <= 4
                && !dead.contains(&target)
                && !killed.contains(&target)
            {
                spent.insert("毒药".into());
                killed.insert(target);
            }
        }
    }
    (killed.into_iter().collect(), half)
}

fn court_over(c: &Court, dead: &BTreeSet<String>) -> bool {
    let alive = |p: &String| !dead.contains(p);
    let killers = c.assassins.iter().filter(|a| alive(a)).count();
    let living = gen::PLAYERS.iter().filter(|p| !dead.contains(**p)).count();
    let court_lost = ![&c.spy, &c.doctor, &c.guard].into_iter().any(alive)
        || !c.consorts.iter().chain([&c.emperor]).any(alive);
    (killers >= 1 && 2 * killers >= living) || ((killers == 0) != court_lost)
}

/// m103's night (游戏流程 3, L223–L229), from the judge's entries, untimed: each action of a
/// living player who holds the power (L70, L116–L138), on a living target (L74), a 守卫 not on
/// one guarded before (L127), a potion not spent (L120–L121); per power (the kill being the two
/// 刺客's together, L138, the 救药 and 毒药 the 太医's one answer), two that differ decide
/// nothing (A-M6, A-M1: no time tells which came first). The kill is void on the guarded (L228
/// 一), stopped by the 救药 (L228 二), else out; then the 毒药 (L229), unless the kill ended the
/// game (L170).
fn court_night(
    c: &Court,
    dead: &BTreeSet<String>,
    entered: &[&(u32, String, String, String)],
    (guarded, spent): &mut (BTreeSet<String>, BTreeSet<String>),
) -> Vec<String> {
    if court_over(c, dead) {
        return Vec::new();
    }
    let alive = |p: &String| !dead.contains(p);
    let one = |ok: &dyn Fn(&String, &str, &String) -> bool| {
        let mut v: Vec<(&str, &String)> = entered
            .iter()
            .filter(|e| alive(&e.1) && alive(&e.3) && ok(&e.1, &e.2, &e.3))
            .map(|e| (e.2.as_str(), &e.3))
            .collect();
        v.sort();
        v.dedup();
        (v.len() == 1).then(|| (v[0].0.to_string(), v[0].1.clone()))
    };
    let kill = one(&|by, p, _| p == "杀人" && c.assassins.contains(by)).map(|k| k.1);
    let guard = one(&|by, p, t| p == "守卫" && *by == c.guard && !guarded.contains(t)).map(|g| g.1);
    let doctor =
        one(&|by, p, _| *by == c.doctor && ["救药", "毒药"].contains(&p) && !spent.contains(p));
    if let Some(g) = &guard {
        guarded.insert(g.clone());
    }
    if let Some((p, _)) = &doctor {
        spent.insert(p.clone());
    }
    let mut out = Vec::new();
    let saved = doctor.as_ref().filter(|d| d.0 == "救药").map(|d| &d.1);
    if let Some(k) = kill.filter(|k| guard.as_ref() != Some(k) && saved != Some(k)) {
        out.push(k);
    }
    let mut after = dead.clone();
    after.extend(out.iter().cloned());
    if let Some((_, p)) = doctor.filter(|d| d.0 == "毒药") {
        if !court_over(c, &after) && !after.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// Where the judge's click confirmed day `day` (answered 200), the state holds exactly what its
/// last round put out, as out by the vote of that day, stamped at that round's close.
fn check_confirmed(
    plan: &Plan,
    state: &bansha::domain::rules::state::GameState,
    w: &World,
    day: u32,
    t: &Tally,
    bad: &mut Vec<String>,
) {
    if !w.confirmed.contains(&day) {
        return;
    }
    // jiaohui: the 黑暗领主 and the 吟游诗人 are not put out by the vote (L86, L92); one the
    // judge pardoned stays, the pardon spent (L85, L91: "全程只可使用一次").
    let mut spared: BTreeSet<&String> = plan
        .church
        .iter()
        .flat_map(|c| [&c.lord, &c.bard])
        .collect();
    if let Some(power) = w.pardons.get(&day) {
        spared.extend(t.outcome.players.iter());
        if facts_of(state).get(&format!("{power}已用")) != Some(&1.0) {
            bad.push(format!(
                "day {day}: the judge granted {power}, the state has it unspent"
            ));
        }
    }
    let mut recorded: Vec<(String, i64)> = state
        .events
        .iter()
        .filter(|e| !e.undone)
        .filter_map(|e| match &e.change {
            bansha::domain::rules::state::Change::Eliminate {
                player,
                cause,
                day: Some(d),
            } if *d == day && cause == "投票出局" => Some((
                player.clone(),
                DateTime::parse_from_rfc3339(&e.at).ok()?.timestamp(),
            )),
            _ => None,
        })
        .collect();
    recorded.sort();
    let mut want: Vec<(String, i64)> = match t.outcome.kind {
        bansha::domain::rules::OutcomeKind::Eliminated => t
            .outcome
            .players
            .iter()
            .filter(|p| !spared.contains(p))
            .map(|p| (p.clone(), t.closes_at.timestamp()))
            .collect(),
        _ => Vec::new(),
    };
    want.sort();
    if recorded != want {
        bad.push(format!(
            "day {day}: the judge's confirmation recorded {recorded:?}, the final puts out {want:?}"
        ));
    }
}

/// The invariants, over what the relay took.
fn check(plan: &Plan, w: &World, dir: &std::path::Path, out: &mut Outcome) -> Option<String> {
    out.mails = w.delivered.len() as u64;
    out.confirmed = w.confirmed.len() as u64;
    out.corrected = w
        .delivered
        .iter()
        .filter(|d| d.subject.contains("更正后的最终计票"))
        .count() as u64;
    let mut bad = Vec::new();
    // No mail twice, but for one the relay took while its sender heard nothing.
    let mut seen: BTreeMap<&str, u32> = BTreeMap::new();
    for d in &w.delivered {
        *seen.entry(&d.message_id).or_default() += 1;
    }
    for (id, n) in &seen {
        let unheard = w
            .delivered
            .iter()
            .filter(|d| d.message_id == *id && !d.acknowledged)
            .count() as u32;
        if *n > 1 + unheard {
            let s = &w
                .delivered
                .iter()
                .find(|d| d.message_id == *id)
                .unwrap()
                .subject;
            bad.push(format!("mail {id} ({s}) went out {n} times"));
        }
    }
    // Each streak of forum faults is told once per thread it hits (the key of the mail is the
    // streak's start; `Message-ID`s are checked above): no more such mails than fault events
    // times the two vote threads a cycle can read (a day's and, catching up, the day before).
    let streaks = plan
        .events
        .iter()
        .filter(|(_, e)| matches!(e, Event::Forum(_)))
        .count();
    let told: BTreeSet<&str> = w
        .delivered
        .iter()
        .filter(|d| d.subject.contains("无法读取论坛"))
        .map(|d| d.message_id.as_str())
        .collect();
    if told.len() > 2 * streaks {
        bad.push(format!(
            "{} mails say the forum cannot be read, for {streaks} fault events",
            told.len()
        ));
    }
    let (state, out_by_state) = confirmed(dir);
    let mut finals: BTreeMap<(u32, u32), Vec<&world::Delivered>> = BTreeMap::new();
    for d in &w.delivered {
        if let Some(k) = final_of(&d.subject) {
            finals.entry(k).or_default().push(d);
        }
    }
    // A night opens at its day's last final: round 2's where one ran (a tie the plan did not
    // draw goes to the run-off chuhan's rule post makes automatic, 000 L105).
    // The service's finals, not only those the relay took: one it refused (554) was made all
    // the same, and its night opened at its close.
    let sent = w
        .trace
        .iter()
        .filter_map(|l| l.strip_prefix("MAIL <")?.split_once("> ").map(|x| x.1))
        .filter_map(|subject| final_of(subject.split(" → ").next()?));
    let round_two: BTreeSet<u32> = finals
        .keys()
        .copied()
        .chain(sent)
        .filter(|k| k.1 == 2)
        .map(|k| k.0)
        .collect();
    out.night_deaths = check_nights(plan, w, &state, &round_two, &mut bad);
    out.nights = w.nights.len() as u64;
    out.entered = w.entered.len() as u64;
    out.pardons = w.pardons.len() as u64;
    let game = as_played(plan, &out_by_state, &facts_of(&state), &w.seen);
    let config = crate::run::load(&game);
    let refused = w.trace.iter().any(|l| l.contains("Some(Refused)"));
    for day in &game.days {
        let (posts, r1, r2) = truth(plan, day, &w.seen);
        // The same, every ballot edited after the close taken as read only after its edit: a
        // page served before the edit may never have reached the record (a crash, a full disk
        // in that cycle), and then the service cannot know it either.
        let (unkept, _, _) = truth(plan, day, &BTreeMap::new());
        let rounds = if day.runoff.is_some() { 2 } else { 1 };
        // Whether round 1 tied as played: the plan's round 2 was drawn for a tie the judge's
        // confirmations may have undone (a voter out since), and the service runs a typed
        // round 2 all the same; which final the judge then confirms turns on the moment.
        let mut round1_tied = false;
        for round in 1..=rounds {
            let close = if round == 1 {
                crate::run::close_of(day.day)
            } else {
                crate::run::runoff_close_of(plan.game.preset, day.day)
            };
            // bansha42: the poll as it stood at the close, each vote seen as it was cast (the
            // daemon sees it at its next reading: what the order of arrival rests on is the
            // tally simulator's to judge, with the readings explicit).
            let (mine, exact) = match (round, &day.runoff) {
                (2, Some(_)) => (&r2, exact_readings(&r2)),
                _ => (&r1, exact_readings(&r1)),
            };
            let casts = match plan.game.preset {
                gen::Preset::Bansha42 => crate::run::casts_of(close, mine, &exact),
                _ => Vec::new(),
            };
            let count = |posts: &[bansha_parsers::Post]| {
                bansha::domain::rules::tally_with(
                    &config,
                    day.day,
                    round,
                    close + Duration::hours(3),
                    posts,
                    &casts,
                )
            };
            let t: Tally = match count(&posts) {
                Ok(t) => t,
                Err(e) => {
                    bad.push(format!(
                        "day {} round {round}: the offline tally refused: {e}",
                        day.day
                    ));
                    continue;
                }
            };
            // Where the final is the other reading's (the read before the edit not kept), that
            // one is the truth the service could have.
            let mailed_note = finals
                .get(&(day.day, round))
                .and_then(|l| l.last())
                .map(|m| m.subject.clone())
                .unwrap_or_default();
            let says = |t: &Tally| mailed_note.ends_with(&format!("最终计票：{}", t.outcome.note));
            let (t, posts) = match (unkept != posts && !says(&t))
                .then(|| count(&unkept).ok())
                .flatten()
            {
                Some(u) if says(&u) => {
                    out.late_edits.2 += 1;
                    (u, &unkept)
                }
                _ => (t, &posts),
            };
            // The second oracle: the simulator's own counter, on the posts left.
            let mut left = day.clone();
            left.posts = r1.clone();
            left.readings = exact_readings(&r1);
            if let Some(r) = &mut left.runoff {
                r.posts = r2.clone();
                r.readings = exact_readings(&r2);
            }
            let want = if round == 1 {
                Some(crate::oracle::count(plan.game.preset, &left))
            } else {
                crate::oracle::count_runoff(plan.game.preset, &left)
            };
            // A cut tied on votes is settled by arrival as the daemon's readings saw it: not
            // judged here (the tally simulator judges it).
            let by_arrival = plan.game.preset == gen::Preset::Bansha42
                && want.as_ref().is_some_and(|w| {
                    let k = match (round, &day.runoff) {
                        (2, Some(r)) => r.places.unwrap_or(1) as usize,
                        _ => gen::bansha42_round(day.day).1,
                    };
                    let mut v: Vec<f64> = w.counts.values().copied().collect();
                    v.sort_by(|a, b| b.partial_cmp(a).unwrap());
                    v.len() > k && v[k - 1] == v[k]
                });
            // A vote cast before its voter's proxy: whether the daemon saw it before the proxy
            // rests on when it read the poll (004 L76; the tally simulator judges it).
            let mine_posts = if round == 1 { &r1 } else { &r2 };
            let by_readings = plan.game.preset == gen::Preset::Bansha42
                && mine_posts.iter().any(|v| {
                    matches!(v.intent, gen::Intent::Poll(_))
                        && mine_posts.iter().any(|x| {
                            matches!(x.intent, gen::Intent::Proxy(_))
                                && x.author == v.author
                                && x.secs > v.secs
                        })
                });
            // A ballot edited after the close and first read after the edit: the tally voids
            // it (its text at the close unknown); the simulator's counter has no such verdict.
            let read_late = posts.iter().any(|p| {
                mine_posts.iter().any(|g| g.pid == p.pid) && p.edited_at.is_some_and(|e| e >= close)
            });
            let want = want.map(|mut w| {
                if by_arrival {
                    w.outcome = None;
                }
                if read_late {
                    w.unmodeled =
                        Some("a ballot edited after the close, read after the edit".into());
                }
                if by_readings {
                    w.unmodeled = Some("a vote cast before its voter's proxy".into());
                }
                w
            });
            for g in mine_posts {
                if plan
                    .edits
                    .iter()
                    .any(|e| e.pid == g.pid && e.at >= unix(close))
                {
                    let voided = posts
                        .iter()
                        .any(|p| p.pid == g.pid && p.edited_at.is_some_and(|e| e >= close));
                    if voided {
                        out.late_edits.1 += 1;
                    } else {
                        out.late_edits.0 += 1;
                    }
                }
            }
            if let Some(want) = want {
                let mine = if round == 1 { &r1 } else { &r2 };
                for b in crate::run::compare(&left, mine, &want, &t) {
                    bad.push(format!(
                        "day {} round {round}: oracle and offline tally: {b}",
                        day.day
                    ));
                }
            }
            // The judge confirmed the day's last final: the state holds what it put out. A
            // round 1 tied where the plan has no round 2 (voters the judge's confirmations put
            // out changed the count) goes to a round 2 this simulator does not judge.
            let unplanned = matches!(
                t.outcome.kind,
                bansha::domain::rules::OutcomeKind::Runoff
                    | bansha::domain::rules::OutcomeKind::Overtime
            );
            if round == 1 {
                round1_tied = unplanned;
            }
            let undone = round == 2 && !round1_tied;
            if round == rounds && !by_arrival && !by_readings && !unplanned && !undone {
                check_confirmed(plan, &state, w, day.day, &t, &mut bad);
            }
            let expect = bansha::present::bbcode::tally(&config, &t);
            let got = finals.get(&(day.day, round));
            // A final the relay refused for good is told to the judge instead (the refusal
            // notice names it).
            let refusal = w.delivered.iter().any(|m| {
                m.subject.starts_with("邮件被拒收")
                    && final_of(m.subject.trim_start_matches("邮件被拒收："))
                        == Some((day.day, round))
            });
            // Unless the relay refused the notice too (a refused notice is not noticed again:
            // the dashboard and `bansha status` list both).
            let notice_refused = w.trace.iter().any(|l| {
                l.starts_with("MAIL ")
                    && l.ends_with("→ Some(Refused)")
                    && l.split_once("邮件被拒收：").is_some_and(|(_, s)| {
                        final_of(s.trim_end_matches(" → Some(Refused)")) == Some((day.day, round))
                    })
            });
            match got {
                None if refused && (refusal || notice_refused) => {}
                None => bad.push(format!(
                    "day {} round {round}: no final was mailed",
                    day.day
                )),
                Some(list) => {
                    out.finals += 1;
                    let ids: BTreeSet<&str> = list
                        .iter()
                        .filter(|d| !d.subject.contains("更正后"))
                        .map(|d| d.message_id.as_str())
                        .collect();
                    if ids.len() > 1 {
                        bad.push(format!(
                            "day {} round {round}: {} different finals",
                            day.day,
                            ids.len()
                        ));
                    }
                    // A confirmation after the final that changed who could vote makes it
                    // again: the last one stands.
                    let m = list[list.len() - 1];
                    let note = format!("最终计票：{}", t.outcome.note);
                    // bansha42 lists equal counts in order of arrival (as the daemon read it).
                    let (note, subject) = match plan.game.preset {
                        gen::Preset::Bansha42 => (unordered(&note), unordered(&m.subject)),
                        _ => (note, m.subject.clone()),
                    };
                    if !by_arrival && !by_readings && !subject.ends_with(&note) {
                        bad.push(format!(
                            "day {} round {round}: the final says {:?}, the oracle {note:?}",
                            day.day, m.subject
                        ));
                    }
                    let (mut want, mut have) = (count_lines(&expect), count_lines(&m.body));
                    if plan.game.preset == gen::Preset::Bansha42 {
                        // Equal counts are listed in order of arrival.
                        want.sort();
                        have.sort();
                    }
                    if want != have && !by_readings {
                        bad.push(format!(
                            "day {} round {round}: counts mailed {have:?}, oracle {want:?}",
                            day.day
                        ));
                    }
                }
            }
        }
    }
    (!bad.is_empty()).then(|| bad.join("\n"))
}
