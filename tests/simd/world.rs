//! The simulated world around the service: a Discuz forum answering the daemon's HTTP in the
//! same process (`io::http::Http`), a mail relay (`io::smtp::Relay`), the machine's clock
//! (`io::clock::Clock`) and the faults each can show. Nothing here opens a socket or sleeps;
//! time is what the simulator says it is.

use bansha::io::http::{Answer, Ask, BodyError, Exchange, Http, HttpError, Method};
use bansha::io::smtp::{Relay, SendError};
use chrono::{DateTime, FixedOffset, TimeZone};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

type Time = DateTime<FixedOffset>;

/// A fault the forum shows to one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForumFault {
    Status502,
    Timeout,
    Truncated,
    Bomb,
    Flood,
    Tainting,
    Empty,
    OtherThread,
    WrongCharset,
    RedirectLoop,
    FrontPage,
}

pub const FORUM_FAULTS: [ForumFault; 11] = [
    ForumFault::Status502,
    ForumFault::Timeout,
    ForumFault::Truncated,
    ForumFault::Bomb,
    ForumFault::Flood,
    ForumFault::Tainting,
    ForumFault::Empty,
    ForumFault::OtherThread,
    ForumFault::WrongCharset,
    ForumFault::RedirectLoop,
    ForumFault::FrontPage,
];

/// A fault the relay shows to one mail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelayFault {
    /// 451: try again later.
    Busy,
    /// 554: refused for good.
    Refused,
    /// The server took the mail, and the connection dropped before its answer.
    DropAfterDot,
}

/// One post of a simulated thread.
#[derive(Clone, Debug)]
pub struct SimPost {
    pub pid: u64,
    pub author: String,
    pub at: i64,
    /// The message as Discuz serves it (HTML).
    pub message: String,
    pub deleted_at: Option<i64>,
    /// (unix time, the message from then on, with Discuz's edit notice), in time order.
    pub edits: Vec<(i64, String)>,
}

impl SimPost {
    /// The message as the forum shows it at `now`: the last edit made by then, else the first.
    pub fn message_at(&self, now: i64) -> &str {
        self.edits
            .iter()
            .rev()
            .find(|(at, _)| *at <= now)
            .map_or(self.message.as_str(), |(_, m)| m.as_str())
    }
}

/// The notice Discuz puts at the head of an edited post's message (API v1 keeps it, as the
/// captured pages show: `<i class="pstatus"> 本帖最后由 X 于 2026-11-29 21:05 编辑 </i><br />`).
pub fn edit_notice(editor: &str, at: i64) -> String {
    let when = FixedOffset::east_opt(8 * 3600)
        .unwrap()
        .timestamp_opt(at, 0)
        .unwrap()
        .format("%Y-%m-%d %H:%M");
    format!("<i class=\"pstatus\"> 本帖最后由 {editor} 于 {when} 编辑 </i><br />\n")
}

pub struct SimThread {
    pub subject: String,
    pub posts: Vec<SimPost>,
    /// The next read of the thread is answered with Discuz's one-time redirect (a post was
    /// deleted since the last read).
    pub redirect_next: bool,
    /// Deletions already answered with their redirect.
    pub redirected: BTreeSet<u64>,
}

/// A private message to the judge (qipan's ballots, 003 L106).
#[derive(Clone, Debug)]
pub struct SimPm {
    pub pmid: u64,
    pub author: String,
    pub at: i64,
    pub text: String,
}

/// A poll in a thread (bansha42's ballots, 004 L72): its options and every vote, each at the
/// moment it was cast (the forum shows a vote from then on and never says when it came).
#[derive(Clone, Debug, Default)]
pub struct SimPoll {
    pub options: Vec<String>,
    pub maxchoices: usize,
    /// Unix: the poll takes no votes after it.
    pub expiration: i64,
    /// (voter, the options ticked by index, when).
    pub votes: Vec<(String, Vec<usize>, i64)>,
}

/// Everything the world holds; shared by the forum, the relay and the simulator.
pub struct World {
    /// Polls by thread.
    pub polls: BTreeMap<u64, SimPoll>,
    /// The judge's inbox: players' messages to the judge, in the order sent.
    pub pms: Vec<SimPm>,
    /// The process has logged in as the judge since it started (its cookies live in memory).
    pub logged_in: bool,
    /// True time, unix seconds (the forum's clock).
    pub now: i64,
    /// The machine's clock minus true time, seconds.
    pub machine_skew: i64,
    pub threads: BTreeMap<u64, SimThread>,
    /// Faults for the next forum requests, in order.
    pub forum_faults: Vec<ForumFault>,
    /// Faults for the next mails, in order.
    pub relay_faults: Vec<RelayFault>,
    /// The relay is down (every mail 421) while set.
    pub relay_down: bool,
    /// IO calls (forum requests and mails) made so far; the run crashes at `crash_at`.
    pub io_calls: u64,
    pub crash_at: Option<u64>,
    /// (k-th IO call, seconds): the record's disk fills at that call, for that long.
    pub disk_full_at: Option<(u64, i64)>,
    /// The disk is full until then (unix).
    pub disk_until: i64,
    /// The switch the service's store reads.
    pub disk: Arc<std::sync::atomic::AtomicBool>,
    /// Told when the fatal IO call is made (the simulator drops the cycle there).
    pub fatal: Arc<tokio::sync::Notify>,
    /// Mails the relay took: (Message-ID, subject, plain body, whether the sender heard it).
    pub delivered: Vec<Delivered>,
    pub trace: Vec<String>,
    /// The days whose confirmation the judge's click was answered 200 for.
    pub confirmed: BTreeSet<u32>,
    /// The nights whose confirmation the judge's click was answered 200 for.
    pub nights: BTreeSet<u32>,
    /// (day, power): the pardons the judge granted when a confirmation asked, answered 200.
    pub pardons: BTreeMap<u32, String>,
    /// (night, by, power, target): the judge's dashboard entries answered 200.
    pub entered: Vec<(u32, String, String, String)>,
    /// Each post's first time on a thread page served without a fault: before an edit after
    /// the close, the service could have kept what it said at the close.
    pub seen: BTreeMap<u64, i64>,
    /// The inbox pages served, by URL, with how many messages had been sent: the same page of
    /// the same messages is the same bytes (`World::inbox` is a function of both).
    inbox_kept: BTreeMap<String, (usize, Vec<u8>)>,
    /// Each message's sender's uid, in `pms`' order.
    pm_uids: Vec<u64>,
    /// The messages sent by sender (`inbox`), with how many had been sent.
    pm_by: (usize, BTreeMap<u64, Vec<usize>>),
    /// The inbox's entries serialized, by what each is built from (`inbox`).
    pm_entries: BTreeMap<(u8, u64, u64, u64, u64), Vec<u8>>,
    /// The captured inbox pages the simulated ones are made from: the list, one conversation.
    pm_list: Value,
    pm_view: Value,
    envelope: Value,
    template: Value,
    poll_template: Value,
    voters_template: String,
}

#[derive(Clone, Debug)]
pub struct Delivered {
    pub message_id: String,
    pub subject: String,
    pub body: String,
    /// The relay took it, and the daemon heard so (false: dropped after the final dot).
    pub acknowledged: bool,
}

impl World {
    pub fn new(now: i64) -> World {
        let page: Value = serde_json::from_slice(
            &std::fs::read(
                crate::common::fixtures()
                    .join("discuz/mobile/guest/v1/viewthread_tid3_vote_p2.json"),
            )
            .unwrap(),
        )
        .unwrap();
        let template = page["Variables"]["postlist"][0].clone();
        let poll: Value =
            serde_json::from_slice(&fixture("discuz/poll/mobile_v1_viewthread_tid5_judge.json"))
                .unwrap();
        let voters_template = String::from_utf8(fixture(
            "discuz/poll/viewvote_tid5_option3_judge_inajax.xml",
        ))
        .unwrap();
        World {
            polls: BTreeMap::new(),
            pms: Vec::new(),
            logged_in: false,
            now,
            machine_skew: 0,
            threads: BTreeMap::new(),
            forum_faults: Vec::new(),
            relay_faults: Vec::new(),
            relay_down: false,
            io_calls: 0,
            crash_at: None,
            disk_full_at: None,
            disk_until: i64::MIN,
            disk: Default::default(),
            fatal: Default::default(),
            delivered: Vec::new(),
            inbox_kept: BTreeMap::new(),
            pm_uids: Vec::new(),
            pm_by: Default::default(),
            pm_entries: BTreeMap::new(),
            pm_list: serde_json::from_slice(&fixture("discuz/pm/mobile_v1_mypm_list_judge.json"))
                .unwrap(),
            pm_view: serde_json::from_slice(&fixture(
                "discuz/pm/mobile_v1_mypm_subop_view_touid10_judge.json",
            ))
            .unwrap(),
            trace: Vec::new(),
            confirmed: BTreeSet::new(),
            nights: BTreeSet::new(),
            entered: Vec::new(),
            pardons: BTreeMap::new(),
            seen: BTreeMap::new(),
            envelope: page,
            template,
            poll_template: poll["Variables"]["special_poll"].clone(),
            voters_template,
        }
    }

    /// Count one IO call; whether the process dies at it.
    fn io(&mut self) -> bool {
        self.io_calls += 1;
        if let Some((k, secs)) = self.disk_full_at {
            if k == self.io_calls {
                self.disk_until = self.now + secs;
                self.disk.store(true, std::sync::atomic::Ordering::Relaxed);
                self.disk_full_at = None;
                self.trace.push(format!("disk full for {secs}s"));
            }
        }
        if self.crash_at == Some(self.io_calls) {
            self.crash_at = None;
            self.fatal.notify_one();
            return true;
        }
        false
    }

    /// The posts of `tid` the forum shows now, in order, numbered by place.
    fn visible(&self, tid: u64) -> Vec<Value> {
        let Some(t) = self.threads.get(&tid) else {
            return Vec::new();
        };
        let offset = FixedOffset::east_opt(8 * 3600).unwrap();
        t.posts
            .iter()
            .filter(|p| p.at <= self.now && p.deleted_at.is_none_or(|d| d > self.now))
            .enumerate()
            .map(|(i, p)| {
                let mut v = self.template.clone();
                v["pid"] = Value::String(p.pid.to_string());
                v["tid"] = Value::String(tid.to_string());
                v["first"] = Value::String(if i == 0 { "1" } else { "0" }.into());
                v["author"] = Value::String(p.author.clone());
                v["username"] = Value::String(p.author.clone());
                v["authorid"] = Value::String(uid(&p.author).to_string());
                v["dbdateline"] = Value::String(p.at.to_string());
                v["dateline"] = Value::String(
                    offset
                        .timestamp_opt(p.at, 0)
                        .unwrap()
                        .format("%Y-%m-%d %H:%M")
                        .to_string(),
                );
                v["message"] = Value::String(p.message_at(self.now).to_string());
                v["number"] = Value::String((i + 1).to_string());
                v
            })
            .collect()
    }

    fn thread_page(&self, tid: u64, page: usize, ppp: usize) -> Value {
        let visible = self.visible(tid);
        let mut out = bansha::io::replay::page(
            &self.envelope,
            &visible,
            page,
            ppp,
            visible.len().saturating_sub(1) as u64,
        );
        out["Variables"]["ppp"] = Value::String(ppp.to_string());
        out["Variables"]["thread"]["tid"] = Value::String(tid.to_string());
        if let Some(t) = self.threads.get(&tid) {
            out["Variables"]["thread"]["subject"] = Value::String(t.subject.clone());
        }
        out["Variables"]["thread"]["maxposition"] = Value::String(visible.len().to_string());
        if let Some(poll) = self.polls.get(&tid) {
            out["Variables"]["special_poll"] = self.special_poll(poll);
        }
        out
    }

    /// The votes of `poll` the forum shows now.
    fn poll_votes<'a>(
        &self,
        poll: &'a SimPoll,
    ) -> impl Iterator<Item = &'a (String, Vec<usize>, i64)> {
        let now = self.now;
        poll.votes.iter().filter(move |v| v.2 <= now)
    }

    /// The poll as API v1 gives it (`mobile_v1_viewthread_tid5_judge.json`'s `special_poll`,
    /// its first option the form of every option).
    fn special_poll(&self, poll: &SimPoll) -> Value {
        let mut sp = self.poll_template.clone();
        let form = sp["polloptions"]["1"].clone();
        let mut options = serde_json::Map::new();
        for (i, text) in poll.options.iter().enumerate() {
            let n = self.poll_votes(poll).filter(|v| v.1.contains(&i)).count();
            let mut o = form.clone();
            o["polloptionid"] = Value::String((i + 1).to_string());
            o["polloption"] = Value::String(text.clone());
            o["votes"] = Value::String(n.to_string());
            options.insert((i + 1).to_string(), o);
        }
        sp["polloptions"] = Value::Object(options);
        let voters: BTreeSet<&str> = self.poll_votes(poll).map(|v| v.0.as_str()).collect();
        sp["voterscount"] = Value::String(voters.len().to_string());
        sp["maxchoices"] = Value::String(poll.maxchoices.to_string());
        sp["multiple"] = Value::String(((poll.maxchoices > 1) as u8).to_string());
        sp["expirations"] = Value::String(poll.expiration.to_string());
        sp
    }

    /// One option's voter list (`viewvote_tid5_option3_judge_inajax.xml`: the selector of every
    /// option, then the voters), or None: no such poll or option.
    fn voter_list(&self, tid: u64, option: usize) -> Option<String> {
        let poll = self.polls.get(&tid)?;
        if option == 0 || option > poll.options.len() {
            return None;
        }
        let page = &self.voters_template;
        let select = page.find("<select").unwrap();
        let select = select + page[select..].find('>').unwrap() + 1;
        let end = page[select..].find("</select>").unwrap() + select;
        let opts: String = poll
            .options
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let sel = if i + 1 == option {
                    " selected=\"selected\""
                } else {
                    ""
                };
                format!("<option value=\"{}\"{sel}>{t}</option>\n", i + 1)
            })
            .collect();
        let items: String = self
            .poll_votes(poll)
            .filter(|v| v.1.contains(&(option - 1)))
            .map(|(v, _, _)| {
                format!(
                    "<li><p><a href=\"home.php?mod=space&amp;uid={}\" target=\"_blank\">{v}</a></p></li>\n",
                    uid(v)
                )
            })
            .collect();
        let ul = page.find("<ul class=\"ml mtm cl voterl\">").unwrap();
        let ul_end = page[ul..].find("</ul>").unwrap() + ul;
        Some(format!(
            "{}{opts}{}<ul class=\"ml mtm cl voterl\">\n{items}{}",
            &page[..select],
            &page[end..ul],
            &page[ul_end..]
        ))
    }

    /// The judge's inbox as Discuz's API v1 serves it (`mobile_v1_mypm_list_judge.json`, a
    /// conversation per player, the newest first, 15 a page) or one conversation
    /// (`…_subop_view_touid10_judge.json`, 5 messages a page, oldest first). `OtherThread`
    /// answers with another member's conversation.
    fn inbox(&mut self, q: &BTreeMap<String, String>, fault: Option<ForumFault>) -> Vec<u8> {
        let page: usize = q
            .get("page")
            .and_then(|p| p.parse().ok())
            .unwrap_or(1)
            .max(1);
        if self.pm_uids.len() != self.pms.len() {
            self.pm_uids = self.pms.iter().map(|m| uid(&m.author)).collect();
        }
        // The messages sent so far by sender (indices into `pms`, in `pms`' order): the same
        // for the same count sent, since a message is sent once the clock passes its time.
        let sent = self.pms.iter().filter(|m| m.at <= self.now).count();
        if self.pm_by.0 != sent {
            let mut by: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
            for (i, (m, u)) in self.pms.iter().zip(&self.pm_uids).enumerate() {
                if m.at <= self.now {
                    by.entry(*u).or_default().push(i);
                }
            }
            self.pm_by = (sent, by);
        }
        let by = &self.pm_by.1;
        let pms = &self.pms;
        let kept = &mut self.pm_entries;
        let s = |v: String| Value::String(v);
        // Each entry serialized once (`pm_entries`, by what it is built from): the page is its
        // shell with the entries' bytes put in the list's place, byte for byte what
        // serializing the whole page gives.
        let (mut v, entries, per, count): (Value, Vec<&Vec<u8>>, usize, usize) = match q
            .get("touid")
            .and_then(|t| t.parse::<u64>().ok())
        {
            Some(mut touid) => {
                if fault == Some(ForumFault::OtherThread) {
                    touid = by
                        .keys()
                        .find(|u| **u != touid)
                        .copied()
                        .unwrap_or(touid + 1);
                }
                let v = self.pm_view.clone();
                let template = &v["Variables"]["list"][0];
                let msgs: Vec<&SimPm> = by
                    .get(&touid)
                    .map(|ix| ix.iter().map(|i| &pms[*i]).collect())
                    .unwrap_or_default();
                // Only the page asked for is built.
                for m in msgs
                    .iter()
                    .skip((page - 1) * PMS_PER_PAGE)
                    .take(PMS_PER_PAGE)
                {
                    kept.entry((1, m.pmid, msgs[0].pmid, 0, 0))
                        .or_insert_with(|| {
                            let mut e = template.clone();
                            let from = uid(&m.author);
                            e["plid"] = s(from.to_string());
                            e["authorid"] = s(from.to_string());
                            e["pmid"] = s(m.pmid.to_string());
                            e["dateline"] = s(m.at.to_string());
                            e["message"] = s(m.text.clone());
                            e["subject"] = s(msgs[0].text.clone());
                            e["author"] = s(m.author.clone());
                            e["msgfrom"] = s(m.author.clone());
                            e["msgfromid"] = s(from.to_string());
                            e["touid"] = s("2".into());
                            e["msgtoid"] = s("2".into());
                            serde_json::to_vec(&e).unwrap()
                        });
                }
                let entries = msgs
                    .iter()
                    .skip((page - 1) * PMS_PER_PAGE)
                    .take(PMS_PER_PAGE)
                    .map(|m| &kept[&(1, m.pmid, msgs[0].pmid, 0, 0)])
                    .collect();
                let mut v = v;
                v["Variables"]["pmid"] = s(msgs.first().map_or(0, |m| m.pmid).to_string());
                (v, entries, PMS_PER_PAGE, msgs.len())
            }
            None => {
                let v = self.pm_list.clone();
                let template = &v["Variables"]["list"][0];
                let mut convs: Vec<(&u64, &Vec<usize>)> = by.iter().collect();
                convs.sort_by_key(|(u, ix)| {
                    (std::cmp::Reverse(ix.last().map_or(0, |i| pms[*i].at)), **u)
                });
                let count = convs.len();
                let shown: Vec<(u64, &SimPm, &SimPm, usize)> = convs
                    .into_iter()
                    .skip((page - 1) * CONVERSATIONS_PER_PAGE)
                    .take(CONVERSATIONS_PER_PAGE)
                    .map(|(u, ix)| (*u, &pms[ix[0]], &pms[ix[ix.len() - 1]], ix.len()))
                    .collect();
                for (u, first, last, n) in &shown {
                    kept.entry((0, *u, first.pmid, last.pmid, *n as u64))
                        .or_insert_with(|| {
                            let mut e = template.clone();
                            for k in [
                                "plid",
                                "authorid",
                                "touid",
                                "lastauthorid",
                                "msgfromid",
                                "msgtoid",
                            ] {
                                e[k] = s(u.to_string());
                            }
                            e["pmnum"] = s(n.to_string());
                            e["lastupdate"] = s(last.at.to_string());
                            e["lastdateline"] = s(last.at.to_string());
                            e["dateline"] = s(first.at.to_string());
                            e["pmid"] = s(last.pmid.to_string());
                            e["subject"] = s(first.text.clone());
                            e["lastsummary"] = s(last.text.clone());
                            e["message"] = s(last.text.clone());
                            for k in ["lastauthor", "msgfrom", "tousername"] {
                                e[k] = s(last.author.clone());
                            }
                            serde_json::to_vec(&e).unwrap()
                        });
                }
                let entries = shown
                    .iter()
                    .map(|(u, first, last, n)| &kept[&(0, *u, first.pmid, last.pmid, *n as u64)])
                    .collect();
                (v, entries, CONVERSATIONS_PER_PAGE, count)
            }
        };
        let shown: Vec<&Vec<u8>> = if fault == Some(ForumFault::Empty) {
            Vec::new()
        } else {
            entries
        };
        const LIST: &str = "@@simd-list@@";
        v["Variables"]["list"] = s(LIST.into());
        v["Variables"]["count"] = s(count.to_string());
        v["Variables"]["perpage"] = s(per.to_string());
        v["Variables"]["page"] = s(page.to_string());
        let shell = serde_json::to_vec(&v).unwrap();
        let quoted = format!("\"{LIST}\"");
        let at = shell
            .windows(quoted.len())
            .position(|w| w == quoted.as_bytes())
            .expect("the list's place in the page");
        let mut out =
            Vec::with_capacity(shell.len() + shown.iter().map(|e| e.len() + 1).sum::<usize>());
        out.extend_from_slice(&shell[..at]);
        out.push(b'[');
        for (i, e) in shown.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(e);
        }
        out.push(b']');
        out.extend_from_slice(&shell[at + quoted.len()..]);
        out
    }

    /// A body that is not a thread page with the request's fault applied to it.
    fn faulty(
        &self,
        fault: Option<ForumFault>,
        body: Vec<u8>,
        ct: &str,
        date: Option<String>,
    ) -> Result<Answer, HttpError> {
        let ok = |body: Vec<u8>, ct: &str| ok_answer(body, ct, &date);
        Ok(match fault {
            None | Some(ForumFault::Empty) | Some(ForumFault::OtherThread) => ok(body, ct),
            Some(ForumFault::Status502) => Answer {
                status: 502,
                ..ok(b"<html>Bad Gateway</html>".to_vec(), "text/html")
            },
            Some(ForumFault::Timeout) => {
                return Err(HttpError::Network("连接超时（论坛没有在规定时间内回答）".into()))
            }
            Some(ForumFault::Truncated) => {
                let mut b = body;
                b.truncate(b.len() / 2);
                ok(b, ct)
            }
            Some(ForumFault::Bomb) => Answer {
                body: Err(BodyError::TooLarge),
                ..ok(Vec::new(), ct)
            },
            Some(ForumFault::Flood) => ok(
                "<html><body>您访问本站速度过快或者刷新间隔时间小于两秒！请等待页面自动跳转 ...</body></html>"
                    .as_bytes()
                    .to_vec(),
                "text/html; charset=utf-8",
            ),
            Some(ForumFault::Tainting) => Answer {
                status: 503,
                ..ok(
                    fixture("discuz/login/desktop_login_fail_badformhash_inajax.xml"),
                    "text/html; charset=utf-8",
                )
            },
            Some(ForumFault::WrongCharset) => {
                let text = String::from_utf8_lossy(&body).into_owned();
                let (gbk, _, _) = encoding_rs::GBK.encode(&text);
                ok(gbk.into_owned(), ct)
            }
            Some(ForumFault::RedirectLoop) => {
                return Err(HttpError::RedirectLoop(
                    "error following redirect: too many redirects".into(),
                ))
            }
            Some(ForumFault::FrontPage) => ok(
                fixture("discuz/desktop/guest/forum_index.html"),
                "text/html; charset=utf-8",
            ),
        })
    }

    fn date(&self) -> String {
        chrono::Utc
            .timestamp_opt(self.now, 0)
            .unwrap()
            .format("%a, %d %b %Y %H:%M:%S GMT")
            .to_string()
    }

    /// The forum's answer to one request.
    fn answer(&mut self, ask: &Ask) -> Result<Answer, HttpError> {
        let date = Some(self.date());
        let ok = |body: Vec<u8>, ct: &str| ok_answer(body, ct, &date);
        if ask.method == Method::Head {
            return Ok(ok(Vec::new(), "text/html"));
        }
        let q = query(&ask.url);
        let get = |k: &str| q.get(k).and_then(|v| v.parse::<usize>().ok());
        let login =
            ask.url.contains("member.php") && q.get("action").map(String::as_str) == Some("login");
        let pm = q.get("module").map(String::as_str) == Some("mypm");
        let viewvote = q.get("action").map(String::as_str) == Some("viewvote");
        if !login && !pm && !viewvote && q.get("module").map(String::as_str) != Some("viewthread") {
            return Ok(Answer {
                status: 404,
                ..ok(b"<html>404</html>".to_vec(), "text/html")
            });
        }
        let tid = get("tid").unwrap_or(0) as u64;
        let (page, ppp) = (get("page").unwrap_or(1), get("ppp").unwrap_or(10));
        let fault = (!self.forum_faults.is_empty()).then(|| self.forum_faults.remove(0));
        if let Some(f) = fault {
            let what = if login {
                "the login".to_string()
            } else if viewvote {
                format!("the voters of tid {tid} option {:?}", q.get("polloptionid"))
            } else if pm {
                format!("the inbox p{page}")
            } else {
                format!("tid {tid} p{page}")
            };
            self.trace.push(format!("forum fault {f:?} on {what}"));
        }
        if login || pm {
            let body = match (login, ask.method == Method::Post) {
                // The login form (`Forum::log_in` reads its hash and action), then the answer to
                // the form: success, and the session holds until the process ends.
                (true, false) => fixture("discuz/login/desktop_login_float_form_inajax.xml"),
                (true, true) => {
                    if fault.is_none() {
                        self.logged_in = true;
                    }
                    fixture("discuz/login/desktop_login_success_inajax.xml")
                }
                // Discuz's answer to a guest asking for the inbox.
                (false, _) if !self.logged_in => fixture("discuz/pm/mobile_v4_mypm_as_guest.json"),
                // A fault that changes the content is built afresh; the others apply to the
                // bytes (`faulty`).
                (false, _)
                    if matches!(fault, Some(ForumFault::Empty | ForumFault::OtherThread)) =>
                {
                    self.inbox(&q, fault)
                }
                (false, _) => {
                    let sent = self.pms.iter().filter(|m| m.at <= self.now).count();
                    match self.inbox_kept.get(&ask.url) {
                        Some((n, b)) if *n == sent => b.clone(),
                        _ => {
                            let b = self.inbox(&q, fault);
                            self.inbox_kept.insert(ask.url.clone(), (sent, b.clone()));
                            b
                        }
                    }
                }
            };
            let ct = if login {
                "text/xml; charset=utf-8"
            } else {
                "application/json"
            };
            return self.faulty(fault, body, ct, date);
        }
        if viewvote {
            // Without an option Discuz lists the first one's voters.
            let option = get("polloptionid").unwrap_or(1);
            let body = match self.voter_list(tid, option) {
                Some(b) => b.into_bytes(),
                // Not asked of a poll that is not there (the daemon asks the options it read):
                // the forum's captured answer for a thread it does not have.
                None => std::fs::read(
                    crate::common::fixtures()
                        .join("discuz/errors/mobile_v1_viewthread_tid9999_nonexistent_guest.json"),
                )
                .unwrap(),
            };
            return self.faulty(fault, body, "text/xml; charset=utf-8", date);
        }
        // Discuz's one-time redirect after a deletion (forum_viewthread.php `$isdel_post`).
        if let Some(t) = self.threads.get_mut(&tid) {
            let newly: Vec<u64> = t
                .posts
                .iter()
                .filter(|p| p.deleted_at.is_some_and(|d| d <= self.now))
                .map(|p| p.pid)
                .filter(|pid| !t.redirected.contains(pid))
                .collect();
            if !newly.is_empty() {
                t.redirected.extend(newly);
                t.redirect_next = true;
            }
            if t.redirect_next && fault.is_none() {
                t.redirect_next = false;
                return Ok(Answer {
                    status: 302,
                    location: Some(format!("forum.php?mod=viewthread&tid={tid}&mobile=1")),
                    ..ok(Vec::new(), "text/html")
                });
            }
        }
        let json = |v: &Value| serde_json::to_vec(v).unwrap();
        // A thread not opened yet is one the forum does not have: its captured answer.
        let opened = self
            .threads
            .get(&tid)
            .is_some_and(|t| t.posts.first().is_some_and(|p| p.at <= self.now));
        if !opened && fault.is_none() {
            return Ok(ok(
                fixture("discuz/errors/mobile_v1_viewthread_tid9999_nonexistent_guest.json"),
                "application/json",
            ));
        }
        // The faults that change a thread page's content; the others are the same on every
        // route (`faulty`).
        Ok(match fault {
            Some(ForumFault::Truncated) => {
                let mut b = json(&self.thread_page(tid, page, ppp));
                b.truncate(b.len() / 2);
                ok(b, "application/json")
            }
            Some(ForumFault::Empty) => {
                let mut v = self.thread_page(tid, page, ppp);
                v["Variables"]["postlist"] = Value::Array(Vec::new());
                ok(json(&v), "application/json")
            }
            Some(ForumFault::OtherThread) => {
                let other = self
                    .threads
                    .keys()
                    .find(|t| **t != tid)
                    .copied()
                    .unwrap_or(tid + 1);
                let mut v = self.thread_page(other, page, ppp);
                if self.threads.len() < 2 {
                    v["Variables"]["thread"]["tid"] = Value::String(other.to_string());
                }
                ok(json(&v), "application/json")
            }
            Some(ForumFault::WrongCharset) => {
                let mut v = self.thread_page(tid, page, ppp);
                v["Charset"] = Value::String("UTF-8".into());
                let text = serde_json::to_string(&v).unwrap();
                let (gbk, _, _) = encoding_rs::GBK.encode(&text);
                ok(gbk.into_owned(), "application/json; charset=utf-8")
            }
            f => {
                let v = self.thread_page(tid, page, ppp);
                if f.is_none() {
                    let now = self.now;
                    for p in v["Variables"]["postlist"].as_array().into_iter().flatten() {
                        if let Some(pid) = p["pid"].as_str().and_then(|x| x.parse().ok()) {
                            self.seen.entry(pid).or_insert(now);
                        }
                    }
                }
                return self.faulty(f, json(&v), "application/json", date);
            }
        })
    }
}

fn uid(name: &str) -> u64 {
    crate::gen::uid_of(name)
}

/// A 200 answer with the forum's `Date`.
fn ok_answer(body: Vec<u8>, ct: &str, date: &Option<String>) -> Answer {
    Answer {
        status: 200,
        content_type: Some(ct.into()),
        date: date.clone(),
        location: None,
        body: Ok(body),
    }
}

fn query(url: &str) -> BTreeMap<String, String> {
    url.split_once('?')
        .map(|(_, q)| q)
        .unwrap_or_default()
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A post's text as Discuz's API serves it: escaped, line breaks as `<br />`, a quote as the
/// captured quote block (`viewthread_tid3_vote_p2.json`, pid 65).
pub fn message(text: &str, quote: Option<(u64, &str, i64, &str)>, tid: u64) -> String {
    let esc = |s: &str| {
        html_escape::encode_text(s)
            .into_owned()
            .replace('\n', "<br />\n")
    };
    let mut m = String::new();
    if let Some((pid, author, at, qt)) = quote {
        let when = FixedOffset::east_opt(8 * 3600)
            .unwrap()
            .timestamp_opt(at, 0)
            .unwrap()
            .format("%Y-%m-%d %H:%M");
        m += &format!(
            "<div class=\"quote\"><blockquote><a href=\"http://127.0.0.1:8080/forum.php?mod=redirect&amp;goto=findpost&amp;pid={pid}&amp;ptid={tid}\" target=\"_blank\"><font color=\"#999999\">{author} 发表于 {when}</font></a><br />\n{}</blockquote></div><br />\n",
            esc(qt)
        );
    }
    m += &esc(text);
    m
}

/// The forum's side of the seam.
pub struct SimForum(pub Arc<Mutex<World>>);

impl Http for SimForum {
    fn send(&self, ask: Ask) -> Exchange<'_> {
        let answer = {
            let mut w = self.0.lock().unwrap();
            if w.io() {
                None
            } else {
                let a = w.answer(&ask);
                let line = match &a {
                    Ok(a) => format!("GET {} → {}", short(&ask.url), a.status),
                    Err(e) => format!("GET {} → {e:?}", short(&ask.url)),
                };
                w.trace.push(line);
                Some(a)
            }
        };
        Box::pin(async move {
            match answer {
                Some(a) => a,
                // The process dies here: the call never returns.
                None => std::future::pending().await,
            }
        })
    }
}

fn short(url: &str) -> String {
    let q = query(url);
    match (q.get("tid"), q.get("page")) {
        (Some(t), Some(p)) => format!("tid={t}&page={p}&ppp={}", q.get("ppp").map_or("", |v| v)),
        _ => url.rsplit('/').next().unwrap_or(url).to_string(),
    }
}

/// The relay's side of the seam.
pub struct SimRelay(pub Arc<Mutex<World>>);

impl Relay for SimRelay {
    fn send(
        &self,
        message: &lettre::Message,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), SendError>> + Send + '_>>
    {
        let raw = message.formatted();
        let result = {
            let mut w = self.0.lock().unwrap();
            if w.io() {
                None
            } else {
                let parsed = mail_parser::MessageParser::default().parse(&raw[..]);
                let (id, subject, body) = parsed
                    .map(|m| {
                        (
                            format!("<{}>", m.message_id().unwrap_or_default()),
                            m.subject().unwrap_or_default().to_string(),
                            m.body_text(0).map(|b| b.into_owned()).unwrap_or_default(),
                        )
                    })
                    .unwrap_or_default();
                let fault = if w.relay_down {
                    Some(RelayFault::Busy)
                } else if !w.relay_faults.is_empty() {
                    Some(w.relay_faults.remove(0))
                } else {
                    None
                };
                w.trace.push(format!("MAIL {id} {subject} → {fault:?}"));
                let mut deliver = |ack: bool| {
                    w.delivered.push(Delivered {
                        message_id: id.clone(),
                        subject: subject.clone(),
                        body: body.clone(),
                        acknowledged: ack,
                    })
                };
                Some(match fault {
                    None => {
                        deliver(true);
                        Ok(())
                    }
                    Some(RelayFault::Busy) => Err(SendError::Temporary(
                        "451 4.3.0 服务器繁忙，请稍后再试".into(),
                    )),
                    Some(RelayFault::Refused) => Err(SendError::Refused("554 5.7.1 拒收".into())),
                    Some(RelayFault::DropAfterDot) => {
                        deliver(false);
                        Err(SendError::Temporary("连接在邮件结束符之后断开".into()))
                    }
                })
            }
        };
        Box::pin(async move {
            match result {
                Some(r) => r,
                None => std::future::pending().await,
            }
        })
    }
}

/// The machine's clock: true time plus its skew.
pub struct SimClock(pub Arc<Mutex<World>>);

impl bansha::io::clock::Clock for SimClock {
    fn now(&self) -> Time {
        let w = self.0.lock().unwrap();
        FixedOffset::east_opt(8 * 3600)
            .unwrap()
            .timestamp_opt(w.now + w.machine_skew, 0)
            .unwrap()
    }
}

/// A captured page under `tests/fixtures`, read from the disk once a process.
fn fixture(rel: &str) -> Vec<u8> {
    static READ: Mutex<BTreeMap<String, Vec<u8>>> = Mutex::new(BTreeMap::new());
    let mut read = READ.lock().unwrap_or_else(|p| p.into_inner());
    read.entry(rel.to_string())
        .or_insert_with(|| std::fs::read(crate::common::fixtures().join(rel)).unwrap())
        .clone()
}

/// Discuz's page sizes for one conversation's messages and for the list of conversations.
const PMS_PER_PAGE: usize = 5;
const CONVERSATIONS_PER_PAGE: usize = 15;
