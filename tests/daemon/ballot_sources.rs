//! Ballots that are not thread posts: the poll (bansha42), the judge's inbox (qipan), and
//! m103's acceleration requests.

use crate::support::*;

/// The poll as it stands: voter → options. Served as the captured API v1 answer of tid 5 with
/// the counts replaced, and the captured `inajax` voter list with the voters replaced.
#[derive(Default)]
pub(crate) struct PollState {
    pub(crate) votes: Vec<(&'static str, &'static str)>,
    pub(crate) requests: Vec<String>,
    /// The forum answers 502.
    pub(crate) down: bool,
    /// Replies in the poll thread after the captured ones (captured post form, see `post_like`).
    pub(crate) posts: Vec<Value>,
    /// Voters the poll counts whom their option's voter list leaves out (a list read short).
    pub(crate) unlisted: Vec<&'static str>,
}
pub(crate) struct PollResponder(pub(crate) Arc<Mutex<PollState>>);
impl Respond for PollResponder {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let mut st = self.0.lock().unwrap();
        st.requests.push(req.url.query().unwrap_or("").to_string());
        if st.down {
            return ResponseTemplate::new(502);
        }
        let q: BTreeMap<String, String> = req.url.query_pairs().into_owned().collect();
        if q.get("module").map(String::as_str) == Some("viewthread") {
            let mut v: Value = serde_json::from_slice(
                &std::fs::read(
                    common::fixtures().join("discuz/poll/mobile_v1_viewthread_tid5_judge.json"),
                )
                .unwrap(),
            )
            .unwrap();
            let options = v["Variables"]["special_poll"]["polloptions"]
                .as_object_mut()
                .unwrap();
            for o in options.values_mut() {
                let text = o["polloption"].as_str().unwrap().to_string();
                let n = st.votes.iter().filter(|(_, t)| *t == text).count();
                o["votes"] = Value::String(n.to_string());
            }
            let voters: BTreeSet<&str> = st.votes.iter().map(|(v, _)| *v).collect();
            v["Variables"]["special_poll"]["voterscount"] = Value::String(voters.len().to_string());
            // The thread's replies, paged as the request asks (the poll's own read asks page 1).
            let mut posts: Vec<Value> = v["Variables"]["postlist"].as_array().unwrap().clone();
            posts.extend(st.posts.iter().cloned());
            // The captured poll stands in for the poll of the thread asked for.
            let tid = q["tid"].clone();
            v["Variables"]["thread"]["tid"] = Value::String(tid.clone());
            for p in posts.iter_mut() {
                p["tid"] = Value::String(tid.clone());
            }
            let page: usize = q.get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
            let ppp: usize = q.get("ppp").and_then(|p| p.parse().ok()).unwrap_or(10);
            let replies = posts.len() as u64 - 1;
            let v = bansha::io::replay::page(&v, &posts, page, ppp, replies);
            return ResponseTemplate::new(200)
                .insert_header("content-type", "application/json; charset=utf-8")
                .set_body_bytes(serde_json::to_vec(&v).unwrap());
        }
        // The voter list of one option.
        // Without an option, Discuz shows the first one's list (with the selector of all).
        let option: u64 = q.get("polloptionid").map_or(1, |o| o.parse().unwrap());
        let captured = std::fs::read_to_string(
            common::fixtures().join("discuz/poll/viewvote_tid5_option3_judge_inajax.xml"),
        )
        .unwrap();
        let text = common_option_text(&captured, option);
        let items: String = st
            .votes
            .iter()
            .filter(|(v, t)| *t == text && !st.unlisted.contains(v))
            .map(|(v, _)| {
                format!(
                    "<li><p><a href=\"home.php?mod=space&amp;uid={}\" target=\"_blank\">{v}</a></p></li>\n",
                    common::member_uid(v)
                )
            })
            .collect();
        let start = captured.find("<ul class=\"ml mtm cl voterl\">").unwrap();
        let end = captured[start..].find("</ul>").unwrap() + start;
        let body = format!(
            "{}<ul class=\"ml mtm cl voterl\">\n{items}{}",
            &captured[..start],
            &captured[end..]
        )
        .replace(" selected=\"selected\"", "")
        .replace(
            &format!("<option value=\"{option}\">"),
            &format!("<option value=\"{option}\" selected=\"selected\">"),
        );
        ResponseTemplate::new(200)
            .insert_header("content-type", "text/xml; charset=utf-8")
            .set_body_string(body)
    }
}
/// The text of option `id` in the captured voter list's selector.
pub(crate) fn common_option_text(page: &str, id: u64) -> String {
    let marker = format!("<option value=\"{id}\"");
    let at = page.find(&marker).unwrap();
    let rest = &page[at..];
    let open = rest.find('>').unwrap() + 1;
    let close = rest.find("</option>").unwrap();
    rest[open..close].to_string()
}
/// Serve a poll thread `tid` (its page and its voter lists) from `state`; a lower `priority`
/// answers first where two polls are served.
pub(crate) async fn mount_poll(
    server: &MockServer,
    tid: &str,
    state: Arc<Mutex<PollState>>,
    priority: u8,
) {
    Mock::given(method("GET"))
        .and(path("/api/mobile/index.php"))
        .and(query_param("tid", tid))
        .respond_with(PollResponder(state.clone()))
        .with_priority(priority)
        .mount(server)
        .await;
    Mock::given(method("GET"))
        .and(path("/forum.php"))
        .and(query_param("action", "viewvote"))
        .and(query_param("tid", tid))
        .respond_with(PollResponder(state))
        .with_priority(priority)
        .mount(server)
        .await;
}

/// The bansha42 game of the poll tests: day 1 votes in the poll of tid 5, closing at 21:00.
pub(crate) fn poll_game() -> String {
    format!(
        "ruleset = \"bansha42\"\nname = \"四十二人局\"\nid = \"g42\"\n{}\n[[days]]\nday = 1\nvote_thread = 5\nopens_at = \"2026-11-29 09:00:00\"\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n",
        common::ROSTER
    )
}

/// A bansha42 day voting in the poll (tid 5) against a server replaying the captured poll as
/// it changes; the final mail's outcome and each reading's cost.
/// `down`: the readings at which the forum answers 502.
pub(crate) async fn poll_day(
    readings: &[(&'static str, Vec<(&'static str, &'static str)>)],
    down: &[&str],
) -> (Vec<(String, String)>, Arc<Mutex<PollState>>) {
    let (mailbox, smtp_port) = smtp();
    let server = MockServer::start().await;
    let state = Arc::new(Mutex::new(PollState::default()));
    mount_poll(&server, "5", state.clone(), 1).await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    std::fs::write(dir.path().join("games/banshayishi-12.toml"), poll_game()).unwrap();
    for (at, new) in readings {
        let is_down = down.contains(at);
        {
            let mut st = state.lock().unwrap();
            st.votes.extend(new.iter().cloned());
            st.down = is_down;
        }
        let c = config.clone();
        let at = *at;
        let r = tokio::task::spawn_blocking(move || once(&c, at))
            .await
            .unwrap();
        if is_down {
            // The poll and the thread it sits in (read for its replies) both fail.
            assert_eq!(r["fetch_failures"], 2, "{at}: {r}");
        } else {
            assert_eq!(r["errors"], serde_json::json!([]), "{at}: {r}");
        }
    }
    let mails = mailbox
        .mails
        .lock()
        .unwrap()
        .iter()
        .map(|m| (summary(m).1, body(m)))
        .collect();
    (mails, state)
}
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn the_poll_is_read_over_time_and_later_arrivals_go_first() {
    let (mails, state) = poll_day(
        &[
            ("2026-11-29 19:50:00", vec![("花千树", "李逵")]),
            (
                "2026-11-29 20:00:00",
                vec![("大灰狼", "李逵"), ("小飞", "冷雪")],
            ),
            ("2026-11-29 20:10:00", vec![("李逵", "冷雪")]),
            ("2026-11-29 20:20:00", vec![]),
            ("2026-11-29 21:00:00", vec![]),
        ],
        &[],
    )
    .await;
    let (subject, text) = mails
        .iter()
        .find(|(s, _)| s.contains("最终计票"))
        .expect("a final mail");
    // 李逵 reached 2 at the 20:00 reading, 冷雪 at 20:10: 冷雪 got there later and goes out.
    assert!(subject.contains("冷雪"), "{subject}");
    assert!(text.contains("后到先出"), "{text}");
    assert!(
        text.contains("冷雪 2 票") && text.contains("李逵 2 票"),
        "{text}"
    );
    // Readings cost what changed: an unchanged poll is one request.
    let requests = state.lock().unwrap().requests.clone();
    let at_2020 = requests.iter().filter(|q| q.contains("viewvote")).count();
    assert_eq!(
        at_2020, 4,
        "voter lists only for changed options: 李逵 at 19:50 and 20:00, 冷雪 at 20:00 and 20:10: {requests:?}"
    );
    let polls = requests
        .iter()
        .filter(|q| q.contains("module=viewthread") && !q.contains("ppp="))
        .count();
    assert_eq!(polls, 5, "one reading of the poll a cycle: {requests:?}");
    // The thread's replies (a page each cycle: the thread is short) beside the poll.
    let thread = requests.iter().filter(|q| q.contains("ppp=")).count();
    assert_eq!(thread, 5, "{requests:?}");
    assert_eq!(requests.len(), 5 + 4 + 5, "{requests:?}");
}
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn votes_seen_in_the_same_reading_mean_overtime() {
    let (mails, _) = poll_day(
        &[
            ("2026-11-29 19:50:00", vec![]),
            (
                "2026-11-29 20:00:00",
                vec![("大灰狼", "李逵"), ("小飞", "冷雪")],
            ),
            ("2026-11-29 21:00:00", vec![]),
        ],
        &[],
    )
    .await;
    let (subject, text) = mails
        .iter()
        .find(|(s, _)| s.contains("最终计票"))
        .expect("a final mail");
    assert!(subject.contains("加时 15 分钟"), "{subject}");
    assert!(text.contains("同一次读取"), "{text}");
    // The judge is asked at once to open the overtime poll and name it (004 L79).
    let (subject, text) = mails
        .iter()
        .find(|(s, _)| s.contains("加时 15 分钟（至 21:15）"))
        .expect("the overtime mail");
    assert!(subject.contains("票一出1"), "{subject}");
    assert!(text.contains("eliminate = 1, vote_thread = tid"), "{text}");
}
/// bansha42's overtime through the daemon (004 L79 "如果平票者所有票都同时到，则加时15分钟，
/// 票一出X"): the close finds the tie, the judge is asked at once; once the day names the
/// overtime poll (tid 6), the daemon reads it and mails the overtime's final at 21:15.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn an_overtime_runs_in_the_poll_the_judge_names() {
    let (mailbox, smtp_port) = smtp();
    let server = MockServer::start().await;
    let day = Arc::new(Mutex::new(PollState::default()));
    let extra = Arc::new(Mutex::new(PollState::default()));
    mount_poll(&server, "6", extra.clone(), 1).await;
    mount_poll(&server, "5", day.clone(), 2).await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let game = dir.path().join("games/banshayishi-12.toml");
    let text = poll_game();
    std::fs::write(&game, &text).unwrap();
    let run = |now: &'static str| cycle_at(&config, now);
    run("2026-11-29 19:50:00").await;
    day.lock()
        .unwrap()
        .votes
        .extend([("大灰狼", "李逵"), ("小飞", "冷雪")]);
    run("2026-11-29 20:00:00").await;
    run("2026-11-29 21:00:05").await;
    assert!(
        subject_lines(&mailbox)
            .iter()
            .any(|s| s.contains("加时 15 分钟（至 21:15）")),
        "{:?}",
        subject_lines(&mailbox)
    );
    // The judge opens the overtime poll (tid 6) and names it.
    std::fs::write(
        &game,
        text.replace(
            "closes_at = \"2026-11-29 21:00:00\"\n",
            "closes_at = \"2026-11-29 21:00:00\"\nrunoff = { closes_at = \"2026-11-29 21:15:00\", candidates = [\"冷雪\", \"李逵\"], eliminate = 1, vote_thread = 6 }\n",
        ),
    )
    .unwrap();
    run("2026-11-29 21:02:00").await;
    extra
        .lock()
        .unwrap()
        .votes
        .extend([("花千树", "冷雪"), ("不见", "冷雪"), ("超人", "李逵")]);
    run("2026-11-29 21:06:00").await;
    let r = run("2026-11-29 21:15:05").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let subjects = subject_lines(&mailbox);
    let finals: Vec<&String> = subjects.iter().filter(|s| s.contains("最终计票")).collect();
    assert_eq!(finals.len(), 2, "{subjects:?}");
    assert!(
        finals[1].contains("加时投票统计（截止 21:15）最终计票"),
        "{}",
        finals[1]
    );
    let text = final_texts(&mailbox).pop().unwrap();
    assert!(text.contains("加时（票一出1）"), "{text}");
    assert!(text.contains("冷雪 2 票"), "{text}");
    assert!(text.contains("冷雪 出局"), "{text}");
}
/// A poll that cannot be read at the close gets no final tally from the last reading: the day
/// stays open and is tallied when the poll answers again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn a_poll_unreadable_at_the_close_is_tallied_when_it_answers() {
    let (mails, _) = poll_day(
        &[
            ("2026-11-29 19:50:00", vec![("花千树", "李逵")]),
            ("2026-11-29 21:00:05", vec![("大灰狼", "李逵")]),
            ("2026-11-29 21:01:00", vec![]),
            ("2026-11-29 21:03:00", vec![]),
        ],
        &["2026-11-29 21:00:05", "2026-11-29 21:01:00"],
    )
    .await;
    let finals: Vec<&(String, String)> = mails
        .iter()
        .filter(|(s, _)| s.contains("最终计票"))
        .collect();
    assert_eq!(finals.len(), 1, "{mails:#?}");
    assert!(finals[0].1.contains("大灰狼"), "{}", finals[0].1);
}
/// A reply in the poll thread in the captured form (a copy of the captured reply pid 120), by
/// `author` at `at` (forum time), saying `text`.
fn poll_reply(pid: u64, author: &str, at: &str, text: &str) -> Value {
    let captured: Value = serde_json::from_slice(
        &std::fs::read(common::fixtures().join("discuz/poll/mobile_v1_viewthread_tid5_judge.json"))
            .unwrap(),
    )
    .unwrap();
    let template = captured["Variables"]["postlist"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pid"] == "120")
        .unwrap()
        .clone();
    let unix = chrono::NaiveDateTime::parse_from_str(at, "%Y-%m-%d %H:%M:%S")
        .unwrap()
        .and_local_timezone(chrono::FixedOffset::east_opt(8 * 3600).unwrap())
        .unwrap()
        .timestamp();
    let mut p = post_like(&template, pid, author, unix, text);
    p["number"] = Value::String((pid - 126).to_string());
    p
}

/// A poll day (tid 5) whose cycles run at `at`, each after `change` has set the forum as it then
/// stands; every cycle without errors. The mailbox after the last.
async fn poll_cycles(
    at: &[&'static str],
    change: impl Fn(&str, &mut PollState),
) -> (Mailbox, Arc<Mutex<PollState>>) {
    let (mailbox, smtp_port) = smtp();
    let server = MockServer::start().await;
    let state = Arc::new(Mutex::new(PollState::default()));
    mount_poll(&server, "5", state.clone(), 1).await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    std::fs::write(dir.path().join("games/banshayishi-12.toml"), poll_game()).unwrap();
    for now in at {
        change(now, &mut state.lock().unwrap());
        let r = cycle_at(&config, now).await;
        assert_eq!(r["errors"], serde_json::json!([]), "{now}: {r}");
    }
    (mailbox, state)
}

/// 004 L72 "请使用投票机投票，如未用投票机，所投票视为废票，不算自杀": on a poll day the daemon reads
/// the poll thread's replies as well as the poll. 冷雪's "票 李逵" posted there between two
/// readings is a void ballot (废票, mailed to the judge with its reason), and 冷雪, who casts no
/// vote in the poll, is not judged a suicide; a player who neither voted nor posted is (L73
/// "逾期不投票的判为自杀").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn a_ballot_posted_in_the_poll_thread_is_void_and_not_a_suicide() {
    let (mailbox, _) = poll_cycles(
        &[
            "2026-11-29 19:50:00",
            "2026-11-29 20:00:00",
            "2026-11-29 20:30:00",
            "2026-11-29 21:00:05",
        ],
        |now, st| match now {
            "2026-11-29 19:50:00" => st.votes.push(("花千树", "李逵")),
            "2026-11-29 20:00:00" => {
                st.posts
                    .push(poll_reply(130, "冷雪", "2026-11-29 19:55:00", "票 李逵"));
                st.votes.push(("大灰狼", "李逵"));
            }
            "2026-11-29 20:30:00" => st.votes.push(("小飞", "冷雪")),
            _ => {}
        },
    )
    .await;
    let finals = final_texts(&mailbox);
    assert_eq!(finals.len(), 1, "{:?}", subject_lines(&mailbox));
    let text = &finals[0];
    assert!(!text.contains("冷雪（未投票，按自杀出局）"), "{text}");
    assert!(
        text.contains("冷雪（未用投票机投票（版面上的投票作废），不算自杀）"),
        "{text}"
    );
    // The void ballot is in the public tally with its reason.
    assert!(
        text.contains("冷雪（投票：李逵）：本局须用投票机投票，版面上的投票视为废票（不算自杀）"),
        "{text}"
    );
    assert!(text.contains("李逵 2 票"), "{text}");
    assert!(text.contains("不见（未投票，按自杀出局）"), "{text}");
    // The judge hears of the void ballot once, with the reason.
    let voids = mails_about(&mailbox, "无效票");
    assert_eq!(voids.len(), 1, "{:?}", subject_lines(&mailbox));
    assert!(voids[0].0.contains("冷雪"), "{}", voids[0].0);
    assert!(voids[0].1.contains("须用投票机投票"), "{}", voids[0].1);
}

/// 004 L73 "以投票机数据为准。逾期不投票的判为自杀", L77 "数据以投票机统计的为准": the poll's own record
/// decides who voted. When its count names more voters than its voter list shows (大灰狼 counted
/// for 李逵, left out of the list), bansha cannot say who voted: the final is held, the judge is
/// told why, and no one who may have voted is named a suicide. Once the list is read whole, the
/// final comes with 大灰狼's vote in it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn a_poll_whose_voter_lists_are_short_holds_the_final_until_they_are_read() {
    let (mailbox, _) = poll_cycles(
        &[
            "2026-11-29 19:50:00",
            "2026-11-29 20:30:00",
            "2026-11-29 21:00:05",
            "2026-11-29 21:01:00",
            "2026-11-29 21:02:00",
        ],
        |now, st| match now {
            "2026-11-29 19:50:00" => {
                st.votes.extend([("花千树", "李逵"), ("大灰狼", "李逵")]);
                st.unlisted.push("大灰狼");
            }
            "2026-11-29 20:30:00" => st.votes.push(("小飞", "冷雪")),
            "2026-11-29 21:02:00" => st.unlisted.clear(),
            _ => {}
        },
    )
    .await;
    let subjects = subject_lines(&mailbox);
    // Nothing names a possible voter a suicide, before the lists are whole.
    for m in mailbox.mails.lock().unwrap().iter() {
        let (s, b) = (summary(m).1, body(m));
        if !s.contains("最终计票：") {
            assert!(!b.contains("大灰狼（未投票，按自杀出局）"), "{s}\n{b}");
        }
    }
    let held = mails_about(&mailbox, "投票机名单不全");
    assert_eq!(held.len(), 1, "{subjects:?}");
    assert!(held[0].0.contains("最终计票暂缓"), "{}", held[0].0);
    assert!(held[0].1.contains("选项“李逵”"), "{}", held[0].1);
    assert!(held[0].1.contains("polloptionid=3"), "{}", held[0].1);
    let finals = final_texts(&mailbox);
    assert_eq!(finals.len(), 1, "{subjects:?}");
    // The final came only after the list was read whole (21:02), with 大灰狼's vote.
    let i_final = subjects
        .iter()
        .position(|s| s.contains("最终计票："))
        .unwrap();
    let i_held = subjects
        .iter()
        .position(|s| s.contains("投票机名单不全"))
        .unwrap();
    assert!(i_held < i_final, "{subjects:?}");
    assert!(finals[0].contains("李逵 2 票"), "{}", finals[0]);
    assert!(!finals[0].contains("大灰狼（未投票"), "{}", finals[0]);
    assert!(!finals[0].contains("投票机名单不全"), "{}", finals[0]);
}

/// The desktop poll as a voter sees it offers no vote form, so no option ids: the daemon takes
/// them from the voter list's own option selector and reads every list, so the poll's record
/// names every voter (L73, L77) and the final is mailed, not held. Served: the captured page of
/// a voter (大灰狼) and voter lists with the voters the captured counts call for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn a_desktop_poll_without_option_ids_is_read_through_the_voter_lists() {
    let (mailbox, smtp_port) = smtp();
    let server = MockServer::start().await;
    let state = Arc::new(Mutex::new(PollState::default()));
    state.lock().unwrap().votes = vec![
        ("小飞", "大灰狼"),
        ("花千树", "大灰狼"),
        ("超人", "大灰狼"),
        ("大灰狼", "小飞"),
        ("不见", "李逵"),
        ("蝈蝈", "李逵"),
        ("yucca", "李逵"),
        ("雪罂子", "李逵"),
        ("李逵", "花千树"),
        ("冷雪", "蝈蝈"),
        ("小熊维尼", "超人"),
        ("音乐虫子", "弃权"),
    ];
    mount_poll(&server, "5", state.clone(), 1).await;
    Mock::given(method("GET"))
        .and(path("/forum.php"))
        .and(query_param("mod", "viewthread"))
        .and(query_param("tid", "5"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw(
                std::fs::read(
                    common::fixtures()
                        .join("discuz/poll/viewthread_tid5_poll_as_voter_dahuilang.html"),
                )
                .unwrap(),
                "text/html; charset=utf-8",
            ),
        )
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("source = \"api\"", "source = \"desktop\"");
    std::fs::write(&config, text).unwrap();
    std::fs::write(dir.path().join("games/banshayishi-12.toml"), poll_game()).unwrap();
    let r = cycle_at(&config, "2026-11-29 21:00:05").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let requests = state.lock().unwrap().requests.clone();
    for id in [1, 2, 3, 4, 7, 9, 13] {
        assert!(
            requests
                .iter()
                .any(|q| q.contains(&format!("polloptionid={id}&"))),
            "option {id}: {requests:?}"
        );
    }
    let subjects = subject_lines(&mailbox);
    assert!(
        !subjects.iter().any(|s| s.contains("投票机名单不全")),
        "{subjects:?}"
    );
    let finals = final_texts(&mailbox);
    assert_eq!(finals.len(), 1, "{subjects:?}");
    assert!(finals[0].contains("李逵 4 票"), "{}", finals[0]);
    assert!(finals[0].contains("李逵 出局"), "{}", finals[0]);
    assert!(!finals[0].contains("大灰狼（未投票"), "{}", finals[0]);
}

/// qipan votes by private message: the daemon logs in as the judge, reads the inbox (API v1,
/// exact times) and each conversation with something new, and mails the final tally — counts
/// only in round 1 (seed 003 L102). The server replays the captured inbox.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn qipan_ballots_come_from_the_judges_inbox() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    forum.lock().unwrap().at = 1795957200; // 21:00
    let requests = Arc::new(Mutex::new(Vec::<String>::new()));
    struct PmResponder(Arc<Mutex<Vec<String>>>);
    impl Respond for PmResponder {
        fn respond(&self, req: &Request) -> ResponseTemplate {
            let q: BTreeMap<String, String> = req.url.query_pairs().into_owned().collect();
            self.0
                .lock()
                .unwrap()
                .push(req.url.query().unwrap_or("").to_string());
            let file = match q.get("touid") {
                Some(u) => format!("discuz/pm/mobile_v1_mypm_subop_view_touid{u}_judge.json"),
                None => "discuz/pm/mobile_v1_mypm_list_judge.json".into(),
            };
            match std::fs::read(common::fixtures().join(&file)) {
                Ok(b) => ResponseTemplate::new(200)
                    .insert_header("content-type", "application/json; charset=utf-8")
                    .set_body_bytes(b),
                // Conversations not captured as API answers: the conversation's last message
                // as the captured inbox list gives it, in the captured view's form (the daemon
                // refuses a conversation page without the message the inbox lists as its last).
                Err(_) => {
                    let list: Value = serde_json::from_slice(
                        &std::fs::read(
                            common::fixtures().join("discuz/pm/mobile_v1_mypm_list_judge.json"),
                        )
                        .unwrap(),
                    )
                    .unwrap();
                    let mut view: Value = serde_json::from_slice(
                        &std::fs::read(
                            common::fixtures()
                                .join("discuz/pm/mobile_v1_mypm_subop_view_touid10_judge.json"),
                        )
                        .unwrap(),
                    )
                    .unwrap();
                    let touid = q["touid"].clone();
                    let c = list["Variables"]["list"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|c| c["touid"] == touid.as_str())
                        .unwrap()
                        .clone();
                    let mut m = view["Variables"]["list"][0].clone();
                    for k in [
                        "plid",
                        "pmid",
                        "dateline",
                        "message",
                        "msgfrom",
                        "msgfromid",
                        "msgtoid",
                        "authorid",
                    ] {
                        m[k] = c[k].clone();
                    }
                    m["author"] = c["msgfrom"].clone();
                    view["Variables"]["list"] = Value::Array(vec![m]);
                    view["Variables"]["count"] = Value::String("1".into());
                    ResponseTemplate::new(200)
                        .insert_header("content-type", "application/json; charset=utf-8")
                        .set_body_bytes(serde_json::to_vec(&view).unwrap())
                }
            }
        }
    }
    Mock::given(method("GET"))
        .and(path("/api/mobile/index.php"))
        .and(query_param("module", "mypm"))
        .respond_with(PmResponder(requests.clone()))
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    std::fs::write(
        dir.path().join("games/banshayishi-12.toml"),
        format!(
            "ruleset = \"qipan\"\nname = \"棋盘局\"\n{}\n[[days]]\nday = 2\nvote_thread = 3\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n[rules.ballot]\nreason = \"optional\"\nformats = [{{ name = \"票\", vote = \"票 {{target}}\" }}]\n",
            common::ROSTER
        ),
    )
    .unwrap();
    let r = cycle_at(&config, "2026-11-29 21:05:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let mails: Vec<(String, String)> = mailbox
        .mails
        .lock()
        .unwrap()
        .iter()
        .map(|m| (summary(m).1, body(m)))
        .collect();
    let (subject, text) = mails
        .iter()
        .find(|(s, _)| s.contains("最终计票"))
        .expect("a final mail");
    // 小熊维尼 votes 李逵 by PM at 18:30; yucca's 21:02 message is late. 花千树's 20:50 message
    // (her conversation's last in the inbox list) "票 李逵\n（怕投票帖卡，私信再投一次）" is read
    // too, and the game's loose format "票 {target}" also matches inside "投票帖卡…", naming
    // nobody in the game: the ballot is void ("不是本局玩家").
    assert!(text.contains("李逵 1 票\n"), "{text}");
    assert!(
        !text.contains("小熊维尼（"),
        "round 1 publishes counts only: {text}"
    );
    assert!(subject.contains("第2天"), "{subject}");
    let late = mails
        .iter()
        .find(|(s, _)| s.contains("无效票") && s.contains("yucca"))
        .expect("the late PM is reported");
    assert!(late.1.contains("截止"), "{}", late.1);
    // The inbox list, then each conversation.
    let q = requests.lock().unwrap().clone();
    assert!(
        q[0].contains("module=mypm") && !q[0].contains("touid"),
        "{q:?}"
    );
    assert_eq!(q.iter().filter(|x| x.contains("touid")).count(), 5, "{q:?}");
}
/// m103 acceleration (seed 002 L245): the daemon counts distinct living players asking in the
/// progress thread (here the captured discussion thread, tid 4, with requests added in the
/// captured post form) and tells the judge once, when more than half of the 12 living have asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn acceleration_requests_past_half_are_mailed_once() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let game = dir.path().join("games/banshayishi-12.toml");
    let text = std::fs::read_to_string(&game).unwrap().replace(
        "discussion_threads = [4]\n",
        "discussion_threads = [4]\nprogress_thread = 4\n",
    );
    std::fs::write(&game, text).unwrap();
    // 11:00 + i minutes (2026-11-29 +08:00).
    let requests: [(u64, &str, i64, &str); 12] = [
        (901, "大灰狼", 0, "申请加速"),
        (902, "小飞", 5, "同意加速，拖着没意思"),
        (903, "大灰狼", 10, "再次申请加速"), // the same player twice counts once
        (904, "龙舌", 15, "支持加速"),       // out: does not count
        (905, "李逵", 20, "我觉得还不到时候"), // not a request
        (906, "花千树", 25, "赞成进程加速"),
        (907, "不见", 30, "同意 加速"),
        (908, "冷雪", 35, "申请加速"),
        (909, "蝈蝈", 40, "支持加速"),
        // Against, in the words players use: not requests (L245 counts 申请加速).
        (911, "小熊维尼", 41, "不同意加速"),
        (912, "yucca", 42, "我不支持加速，还没讨论完"),
        (913, "雪罂子", 43, "反对加速"),
    ];
    let late = (910u64, "超人", 90i64, "同意加速"); // 12:30: the 7th of 12 living
    {
        let mut f = forum.lock().unwrap();
        let template = f.discussion[1].clone();
        for (pid, author, minutes, text) in requests.iter().copied().chain([late]) {
            let p = post_like(&template, pid, author, 1795921200 + minutes * 60, text);
            f.discussion.push(p);
        }
        f.at = 1795924800; // 12:00
    }
    let accel = |mailbox: &Mailbox| {
        subjects(mailbox)
            .into_iter()
            .filter(|(_, s)| s.contains("加速"))
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
    };
    let r = cycle_at(&config, "2026-11-29 12:00:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    assert!(accel(&mailbox).is_empty(), "6 of 12 is not more than half");

    forum.lock().unwrap().at = 1795927200; // 12:40
    for now in ["2026-11-29 12:40:00", "2026-11-29 12:50:00"] {
        let c = config.clone();
        let r = tokio::task::spawn_blocking(move || once(&c, now))
            .await
            .unwrap();
        assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    }
    assert_eq!(
        accel(&mailbox),
        ["[版杀一室 第十二局] 第2天 申请加速的玩家已过半（7/12）"]
    );
    let mails = mailbox.mails.lock().unwrap().clone();
    let text = body(
        mails
            .iter()
            .find(|m| summary(m).1.contains("加速"))
            .unwrap(),
    );
    assert!(
        text.contains("需要 7 人，2026-11-29 12:30:00 时达到"),
        "{text}"
    );
    assert!(text.contains("accelerated_at"), "{text}");
    assert!(!text.contains("龙舌") && !text.contains("李逵"), "{text}");
}

/// A judge's inbox of private messages, served in the captured API v1 form
/// (`mobile_v1_mypm_list_judge.json`, `…subop_view_touid10…`): one conversation per player,
/// each message (player, sent at, text) as the captured ones are written.
pub(crate) struct Inbox(pub(crate) Arc<Mutex<Vec<Message>>>);
/// A private message to the judge: the player, when it was sent (Unix time), the text.
pub(crate) type Message = (&'static str, i64, &'static str);
impl Respond for Inbox {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let q: BTreeMap<String, String> = req.url.query_pairs().into_owned().collect();
        let msgs = self.0.lock().unwrap().clone();
        let players: Vec<&str> = common::ROSTER_PLAYERS.to_vec();
        let uid = |p: &str| 100 + players.iter().position(|x| *x == p).unwrap() as u64;
        let fixture = match q.get("touid") {
            Some(_) => "discuz/pm/mobile_v1_mypm_subop_view_touid10_judge.json",
            None => "discuz/pm/mobile_v1_mypm_list_judge.json",
        };
        let mut v: Value =
            serde_json::from_slice(&std::fs::read(common::fixtures().join(fixture)).unwrap())
                .unwrap();
        let list: Vec<Value> = match q.get("touid").and_then(|u| u.parse::<u64>().ok()) {
            Some(touid) => msgs
                .iter()
                .enumerate()
                .filter(|(_, (p, _, _))| uid(p) == touid)
                .map(|(i, (p, at, text))| {
                    serde_json::json!({
                        "plid": touid.to_string(), "authorid": touid.to_string(), "pmtype": "1",
                        "subject": text, "members": "2", "dateline": at.to_string(),
                        "pmid": (1000 + i).to_string(), "message": text, "touid": "2",
                        "author": p, "msgfromid": touid.to_string(), "msgfrom": p, "msgtoid": "2"
                    })
                })
                .collect(),
            None => {
                let mut last: BTreeMap<u64, (&str, i64, &str)> = BTreeMap::new();
                for (p, at, text) in &msgs {
                    last.insert(uid(p), (p, *at, text));
                }
                last.iter()
                    .map(|(u, (p, at, text))| {
                        serde_json::json!({
                            "plid": u.to_string(), "isnew": "0", "pmnum": "1", "lastupdate": "0",
                            "lastdateline": at.to_string(), "authorid": u.to_string(),
                            "pmtype": "1", "subject": text, "members": "2",
                            "dateline": at.to_string(), "touid": u.to_string(),
                            "pmid": u.to_string(), "lastauthorid": u.to_string(),
                            "lastauthor": p, "lastsummary": text, "msgfromid": u.to_string(),
                            "msgfrom": p, "message": text, "msgtoid": u.to_string(),
                            "tousername": p
                        })
                    })
                    .collect()
            }
        };
        v["Variables"]["count"] = Value::String(list.len().to_string());
        v["Variables"]["list"] = Value::Array(list);
        ResponseTemplate::new(200)
            .insert_header("content-type", "application/json; charset=utf-8")
            .set_body_string(v.to_string())
    }
}

/// qipan (003 L100–102, L136) through the daemon, ballots by private message: round 1 ties at
/// the top with ≥ 30% of the living, so round 2 runs among the tied, at the time the judge sets
/// (L100 "具体时间由法官根据情况安排": the judge is asked first). Round 2 needs no reason and
/// allows no change; its result shows who voted for whom (L102); a living player who does not
/// vote in it has missed a duty (L136 "1个环节没有完成，警告。2个环节没有完成，按潜水论处").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
pub(crate) async fn a_qipan_tie_runs_round_two_from_the_inbox() {
    let (mailbox, smtp_port) = smtp();
    let (server, forum) = forum_server().await;
    let at = |t: &str| {
        chrono::DateTime::parse_from_str(&format!("2026-11-29 {t} +0800"), "%Y-%m-%d %H:%M %z")
            .unwrap()
            .timestamp()
    };
    // 12 living (龙舌, 青鸾花 dead): 30% is 4 (L100 上取整). 李逵 4, 花千树 4, 大灰狼 2, and
    // 冷雪 and 雪罂子 send nothing.
    let round1: Vec<Message> = vec![
        ("大灰狼", at("18:00"), "投李逵，理由是他昨天发言前后矛盾"),
        ("小飞", at("18:05"), "我投李逵，因为他一直在带节奏"),
        ("不见", at("18:10"), "票：李逵\n推理：夜里移动路线可疑"),
        ("蝈蝈", at("18:20"), "投李逵，理由：跟票跟得太快"),
        ("李逵", at("18:30"), "投花千树，理由是她在保护杀手"),
        ("超人", at("18:40"), "我投花千树，理由是她的移动对不上"),
        ("音乐虫子", at("18:50"), "投花千树，理由：昨天的发言太含糊"),
        ("yucca", at("19:00"), "投花千树，因为她回避了问题"),
        ("花千树", at("19:10"), "投大灰狼，理由是他在带节奏"),
        ("小熊维尼", at("19:20"), "投大灰狼，理由：怀疑他是副杀"),
    ];
    let inbox = Arc::new(Mutex::new(round1));
    Mock::given(method("GET"))
        .and(path("/api/mobile/index.php"))
        .and(query_param("module", "mypm"))
        .respond_with(Inbox(inbox.clone()))
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), &server.uri(), smtp_port);
    let game = dir.path().join("games/banshayishi-12.toml");
    std::fs::write(
        &game,
        format!(
            "ruleset = \"qipan\"\nname = \"棋盘局\"\n{}\n[[days]]\nday = 2\nvote_thread = 3\nopens_at = \"2026-11-29 09:00:00\"\ncloses_at = \"2026-11-29 21:00:00\"\ndead = [\"龙舌\", \"青鸾花\"]\n",
            common::ROSTER
        ),
    )
    .unwrap();
    forum.lock().unwrap().at = at("21:01");
    let r = cycle_at(&config, "2026-11-29 21:01:00").await;
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    let subjects = subject_lines(&mailbox);
    let asks: Vec<&String> = subjects
        .iter()
        .filter(|s| s.contains("请设置第二轮截止时间"))
        .collect();
    assert_eq!(
        asks.len(),
        1,
        "L100: the judge sets round 2's time: {subjects:?}"
    );
    let round1_final = final_texts(&mailbox).remove(0);
    assert!(round1_final.contains("李逵 4 票"), "{round1_final}");
    assert!(
        !round1_final.contains("大灰狼、小飞"),
        "L102: round 1 publishes counts only: {round1_final}"
    );

    // The judge sets round 2 to 22:30. 花千树 changes her mind (void: no change, L100), 小飞
    // gives no reason (fine in round 2), 大灰狼 votes for a non-candidate (void).
    std::fs::write(
        &game,
        std::fs::read_to_string(&game).unwrap().replace(
            "closes_at = \"2026-11-29 21:00:00\"\n",
            "closes_at = \"2026-11-29 21:00:00\"\nrunoff = { closes_at = \"2026-11-29 22:30:00\", candidates = [\"李逵\", \"花千树\"] }\n",
        ),
    )
    .unwrap();
    inbox.lock().unwrap().extend([
        ("小飞", at("21:10"), "投李逵"),
        ("不见", at("21:12"), "投李逵"),
        ("蝈蝈", at("21:14"), "投李逵"),
        ("李逵", at("21:16"), "投花千树"),
        ("超人", at("21:18"), "投花千树"),
        ("音乐虫子", at("21:20"), "投花千树"),
        ("yucca", at("21:22"), "投李逵"),
        ("花千树", at("21:24"), "投李逵"),
        ("花千树", at("21:40"), "改投花千树"),
        ("小熊维尼", at("21:30"), "投李逵"),
        ("大灰狼", at("21:32"), "投小飞"),
    ]);
    for t in ["21:45", "22:30"] {
        forum.lock().unwrap().at = at(t) + 5;
        let r = cycle_at(&config, &format!("2026-11-29 {t}:05")).await;
        assert_eq!(r["errors"], serde_json::json!([]), "{t}: {r}");
    }
    let texts = final_texts(&mailbox);
    assert_eq!(texts.len(), 2, "{:?}", subject_lines(&mailbox));
    let r2 = &texts[1];
    assert!(r2.contains("李逵 6 票"), "{r2}");
    assert!(r2.contains("花千树 3 票"), "{r2}");
    assert!(
        r2.contains("小飞") && r2.contains("yucca") && r2.contains("小熊维尼"),
        "L102: round 2 publishes who voted for whom: {r2}"
    );
    assert!(r2.contains("不是第二轮候选人"), "{r2}");
    let subjects = subject_lines(&mailbox);
    let void_change = subjects
        .iter()
        .any(|s| s.contains("无效票") && s.contains("花千树"));
    assert!(void_change, "L100 不允许改票: {subjects:?}");
    // L136: 冷雪 and 雪罂子 missed round 2 as well as round 1: two duties on one day.
    let duty: Vec<(String, String)> = mails_about(&mailbox, "第二轮投票义务");
    assert_eq!(duty.len(), 1, "{subjects:?}");
    let (subject, text) = &duty[0];
    assert!(
        subject.contains("大灰狼、冷雪、雪罂子 没有有效投票"),
        "{subject}"
    );
    assert!(
        text.contains("第二轮没有有效投票（短信") && text.contains("不是第二轮候选人"),
        "a void ballot is no vote, and the mail says what it was: {text}"
    );
    assert!(
        text.contains("冷雪：警告 2（第 2 天 2 个环节没有完成：按潜水论处，按规则换人）"),
        "{text}"
    );
}
