//! 潜水 rules that span several days, through the daemon: each day's count comes from the
//! threads of that day, the earlier ones from the record.

use crate::support::*;

/// Unix time of a forum time text (+08:00).
fn unix(t: &str) -> i64 {
    chrono::DateTime::parse_from_str(&format!("{t} +0800"), "%Y-%m-%d %H:%M:%S %z")
        .unwrap()
        .timestamp()
}

/// Threads other than the captured two (tid 3 and 4), served from the API like them, as they
/// stood at the forum's `at`; and how often each was asked for.
#[derive(Default)]
pub(crate) struct Extra {
    pub(crate) threads: BTreeMap<u64, Vec<Value>>,
    pub(crate) requests: BTreeMap<u64, usize>,
}

struct ExtraResponder {
    forum: Arc<Mutex<Forum>>,
    extra: Arc<Mutex<Extra>>,
    envelope: Value,
}

impl Respond for ExtraResponder {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let q = |k: &str| {
            req.url
                .query_pairs()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.into_owned())
        };
        let tid: u64 = q("tid").and_then(|t| t.parse().ok()).unwrap_or(0);
        let page: usize = q("page").and_then(|p| p.parse().ok()).unwrap_or(1);
        let ppp: usize = q("ppp").and_then(|p| p.parse().ok()).unwrap_or(10);
        let at = self.forum.lock().unwrap().at;
        let mut extra = self.extra.lock().unwrap();
        *extra.requests.entry(tid).or_default() += 1;
        let Some(posts) = extra.threads.get(&tid) else {
            return ResponseTemplate::new(404);
        };
        let visible: Vec<Value> = posts
            .iter()
            .filter(|p| bansha::io::replay::dateline(p) <= at)
            .cloned()
            .collect();
        let mut envelope = self.envelope.clone();
        envelope["Variables"]["thread"]["tid"] = Value::String(tid.to_string());
        let replies = visible.len().saturating_sub(1) as u64;
        let mut out = bansha::io::replay::page(&envelope, &visible, page, ppp, replies);
        out["Variables"]["ppp"] = Value::String(ppp.to_string());
        ResponseTemplate::new(200).set_body_json(out)
    }
}

/// Serve `extra`'s threads on `server` (after the captured ones, which match first).
pub(crate) async fn serve_extra(
    server: &MockServer,
    forum: &Arc<Mutex<Forum>>,
    extra: &Arc<Mutex<Extra>>,
) {
    let envelope = forum.lock().unwrap().discussion_envelope.clone();
    Mock::given(method("GET"))
        .and(path("/api/mobile/index.php"))
        .and(query_param("module", "viewthread"))
        .respond_with(ExtraResponder {
            forum: forum.clone(),
            extra: extra.clone(),
            envelope,
        })
        .with_priority(10)
        .mount(server)
        .await;
}

/// A thread `tid` opened by the judge before `from`, then `posts` (author, how many) one a minute
/// from an hour later; pids from `pid`.
fn thread(
    template: &Value,
    tid: u64,
    pid: u64,
    from: i64,
    posts: &[(&str, u32, &str)],
) -> Vec<Value> {
    let mut out = Vec::new();
    let mut next = pid;
    let mut add = |author: &str, at: i64, message: &str| {
        let mut p = post_like(template, next, author, at, message);
        p["tid"] = Value::String(tid.to_string());
        p["first"] = Value::String(if out.is_empty() { "1" } else { "0" }.into());
        p["number"] = Value::String((out.len() + 1).to_string());
        out.push(p);
        next += 1;
    };
    add("版杀一室法官", from - 600, "本帖开始");
    let mut t = from + 3600;
    for (author, n, message) in posts {
        for i in 0..*n {
            add(author, t, &format!("{message}（{}）", i + 1));
            t += 60;
        }
    }
    out
}

const LIVING: [&str; 12] = [
    "大灰狼",
    "小飞",
    "李逵",
    "花千树",
    "不见",
    "冷雪",
    "蝈蝈",
    "小熊维尼",
    "超人",
    "音乐虫子",
    "yucca",
    "雪罂子",
];

/// m103 002 L314 (5、潜水 (1) "在未加快进程的单个讨论日不足五帖、或连续三个讨论日均不足十帖"; also
/// L354): the three days' counts are each day's own. The captured day is day 3 here, with days 1
/// and 2 in their own threads before it. 冷雪 posts 16, 13 and 5 (the captured thread): not under
/// ten on every day, so no card; 花千树 3, 2 and 5: under ten on all three, a card for it; 大灰狼
/// 12, 4 and 5: not. Before, the daemon handed the rule day 3's thread alone, found days 1 and
/// 2 empty, and carded 冷雪 and 大灰狼 for "连续 3 个讨论日每天都少于 10 帖" while `bansha lurk` on
/// the three days' pages did not. The earlier days come from the record: their threads, read
/// during their own days, are not asked for again on day 3.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn m103_three_day_lurk_counts_each_day_in_the_daemon() {
    three_days(true).await;
}

/// The same run of days where the daemon watched only day 3 (days 1 and 2 have no vote thread
/// it watches): the record lacks their threads, so day 3 reads each once, in full, and counts
/// from the record after that.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn m103_three_day_lurk_reads_unwatched_earlier_days_once() {
    three_days(false).await;
}

/// Days 1 and 2 (with their vote threads watched, or none), day 3 the captured one; the
/// verdicts of day 3's 潜水 mail and the requests for the earlier days' threads.
async fn three_days(watched: bool) {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let extra = Arc::new(Mutex::new(Extra::default()));
    serve_extra(&server, &forum, &extra).await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let game = dir.path().join("games/banshayishi-12.toml");
    let (v1, v2) = if watched {
        ("vote_thread = 8\n", "vote_thread = 9\n")
    } else {
        ("", "")
    };
    let text = std::fs::read_to_string(&game).unwrap().replace(
        "[[days]]\nday = 2\n",
        &format!(
            "[[days]]\nday = 1\n{v1}discussion_threads = [6]\n\
             opens_at = \"2026-11-25 21:00:00\"\ncloses_at = \"2026-11-26 21:00:00\"\n\
             dead = [\"龙舌\", \"青鸾花\"]\n\n\
             [[days]]\nday = 2\n{v2}discussion_threads = [7]\n\
             opens_at = \"2026-11-26 21:00:00\"\ncloses_at = \"2026-11-27 21:00:00\"\n\
             dead = [\"龙舌\", \"青鸾花\"]\n\n\
             [[days]]\nday = 3\nopens_at = \"2026-11-27 21:03:00\"\n"
        ),
    );
    std::fs::write(&game, text).unwrap();
    {
        let template = forum.lock().unwrap().discussion[1].clone();
        let others: Vec<(&str, u32, &str)> = LIVING
            .iter()
            .filter(|p| !["冷雪", "花千树", "大灰狼"].contains(p))
            .map(|p| (*p, 10, "分析"))
            .collect();
        let day1 = unix("2026-11-25 21:00:00");
        let day2 = unix("2026-11-26 21:00:00");
        let ballots: Vec<(&str, u32, &str)> = LIVING
            .iter()
            .map(|p| (*p, 1, "投票对象：李逵<br />\n投票理由：测试"))
            .collect();
        let mut e = extra.lock().unwrap();
        let mut d1 = vec![
            ("冷雪", 16, "分析"),
            ("花千树", 3, "分析"),
            ("大灰狼", 12, "分析"),
        ];
        d1.extend(others.iter().cloned());
        let mut d2 = vec![
            ("冷雪", 13, "分析"),
            ("花千树", 2, "分析"),
            ("大灰狼", 4, "分析"),
        ];
        d2.extend(others.iter().cloned());
        e.threads.insert(6, thread(&template, 6, 10_000, day1, &d1));
        e.threads
            .insert(8, thread(&template, 8, 20_000, day1, &ballots));
        e.threads.insert(7, thread(&template, 7, 30_000, day2, &d2));
        e.threads
            .insert(9, thread(&template, 9, 40_000, day2, &ballots));
    }
    let days_one_and_two = [
        "2026-11-26 12:00:00",
        "2026-11-26 21:00:05",
        "2026-11-26 21:15:00",
        "2026-11-27 12:00:00",
        "2026-11-27 21:00:05",
        "2026-11-27 21:15:00",
    ];
    for now in days_one_and_two.iter().filter(|_| watched) {
        forum.lock().unwrap().at = unix(now);
        let r = cycle_at(&config, now).await;
        assert_eq!(r["errors"], serde_json::json!([]), "{now}: {r}");
    }
    let asked = |tid: u64| {
        extra
            .lock()
            .unwrap()
            .requests
            .get(&tid)
            .copied()
            .unwrap_or(0)
    };
    let (six, seven) = (asked(6), asked(7));
    assert_eq!(
        six > 0 && seven > 0,
        watched,
        "days 1 and 2 read their own threads when watched"
    );
    forum.lock().unwrap().at = unix("2026-11-29 12:00:00");
    let r = cycle_at(&config, "2026-11-29 12:00:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let (six, seven) = if watched {
        (six, seven)
    } else {
        // Read once, in full, from day 3's first cycle.
        assert!(asked(6) > 0 && asked(7) > 0, "the record lacked them");
        (asked(6), asked(7))
    };
    for now in ["2026-11-29 20:00:00", "2026-11-29 21:00:05"] {
        forum.lock().unwrap().at = unix(now);
        let r = cycle_at(&config, now).await;
        assert_eq!(r["errors"], serde_json::json!([]), "{now}: {r}");
    }
    let lurk = mails_about(&mailbox, "第3天 发言统计")
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("day 3's 潜水 mail: {:?}", subject_lines(&mailbox)));
    let body = lurk.1;
    let verdict = body
        .split("[b]潜水[/b]：")
        .nth(1)
        .and_then(|x| x.lines().next())
        .unwrap_or_else(|| panic!("{body}"))
        .to_string();
    assert!(
        verdict.contains("花千树（") && verdict.contains("连续 3 个讨论日每天都少于 10 帖"),
        "3, 2 and 5 posts: {verdict}"
    );
    assert!(
        !body.contains("没有读全"),
        "every day of the run was read: {body}"
    );
    for not in ["冷雪（", "大灰狼（"] {
        assert!(!verdict.contains(not), "{not} {verdict}\n{body}");
    }
    assert_eq!(
        (asked(6), asked(7)),
        (six, seven),
        "day 3 counts days 1 and 2 from the record, not by asking again"
    );
}

/// Issue 29 item 14. 花千树's only ballot (pid 113, 32#) is posted at 20:59:58 while the daemon
/// sleeps (its last look was at 20:00) and edited at 21:05; the daemon wakes at 21:10. The ballot
/// is rightly void: its text at the close cannot be known (the record has only the edited one).
/// But she voted: m103's "任一讨论日未投票" (002 L314 (2); L249 "没有投票（或弃票）的玩家将记作
/// 一张黄牌") is not hers. The final does not list her as not voting, the 潜水 mail does not
/// mark her "未投票" nor card her for it. Before, both did: a yellow card for a vote she cast.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ballot_unknowable_for_an_edit_after_the_close_is_not_a_missed_vote() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    forum.lock().unwrap().at = unix("2026-11-29 20:00:00");
    let r = cycle_at(&config, "2026-11-29 20:00:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    {
        let mut f = forum.lock().unwrap();
        f.edits.insert(
            113,
            vec![(
                unix("2026-11-29 21:05:00"),
                "<i class=\"pstatus\"> 本帖最后由 花千树 于 2026-11-29 21:05 编辑 </i><br />\n<br />\n\
                 投票对象：蝈蝈<br />\n投票理由：改了"
                    .into(),
            )],
        );
        f.at = unix("2026-11-29 21:10:00");
    }
    let r = cycle_at(&config, "2026-11-29 21:10:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let finals = final_texts(&mailbox);
    let fin = finals.first().expect("the final");
    assert!(fin.contains("截止后编辑过"), "the ballot is void: {fin}");
    let non_voters = fin
        .split("[b]未投票[/b]：")
        .nth(1)
        .and_then(|x| x.lines().next())
        .unwrap_or_else(|| panic!("{fin}"));
    assert!(!non_voters.contains("花千树"), "she voted: {non_voters}");
    assert!(
        fin.contains("[b]投票内容无法确认[/b]：花千树"),
        "what she voted cannot be known: {fin}"
    );
    let (_, lurk) = mails_about(&mailbox, "发言统计")
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("{:?}", subject_lines(&mailbox)));
    let line = lurk
        .lines()
        .find(|l| l.starts_with("花千树 "))
        .unwrap_or_else(|| panic!("{lurk}"));
    assert!(!line.contains("未投票"), "{line}");
    let verdict = lurk
        .split("[b]潜水[/b]：")
        .nth(1)
        .and_then(|x| x.lines().next())
        .unwrap_or_else(|| panic!("{lurk}"));
    assert!(!verdict.contains("花千树（"), "{verdict}");
    assert!(
        !lurk.contains("auto-lurk-d2-花千树"),
        "no card in the ledger: {lurk}"
    );
}
