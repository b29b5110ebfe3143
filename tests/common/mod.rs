//! Helpers shared by the integration tests: fixture paths and the captured response headers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The captured response beside a page: (HTTP status, Content-Type).
pub fn headers_of(page: &Path) -> (u16, Option<String>) {
    let mut name = page.as_os_str().to_owned();
    name.push(".headers.txt");
    let Ok(text) = std::fs::read_to_string(PathBuf::from(name)) else {
        return (200, None);
    };
    let mut status = 200;
    let mut content_type = None;
    for line in text.lines() {
        // The last status line wins (redirects are followed in some captures).
        if let Some(rest) = line.strip_prefix("HTTP ") {
            status = rest
                .split_whitespace()
                .next()
                .and_then(|s| s.parse().ok())
                .unwrap_or(status);
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.trim().eq_ignore_ascii_case("content-type") {
                content_type = Some(v.trim().to_string());
            }
        }
    }
    (status, content_type)
}

/// Every file under `dir` (recursively) whose name satisfies `keep`, sorted.
pub fn files_under(dir: &Path, keep: &dyn Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| !n.ends_with(".headers.txt") && keep(n))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Parse a fixture page (relative to `tests/fixtures`) with its captured Content-Type.
pub fn parse_fixture(rel: &str) -> Result<bansha_parsers::ThreadPage, bansha_parsers::PageError> {
    let path = fixtures().join(rel);
    let (_, ct) = headers_of(&path);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
    bansha_parsers::parse_thread_page(&bytes, ct.as_deref(), &Default::default())
}

/// Parse a fixture as an API answer, as the fetcher does when it asked for JSON.
pub fn parse_fixture_as_api(
    rel: &str,
) -> Result<bansha_parsers::ThreadPage, bansha_parsers::PageError> {
    let path = fixtures().join(rel);
    let (_, ct) = headers_of(&path);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
    bansha_parsers::parse_api_page(&bytes, ct.as_deref(), &Default::default())
}

/// A post for a page derived from a captured one (see [`derived_page`]).
pub struct DPost {
    pub pid: u64,
    pub author: &'static str,
    /// Forum time, "2026-11-29 20:15:00".
    pub at: &'static str,
    pub text: &'static str,
    /// The pid of a post in the same list this one quotes with the quote button.
    pub quotes: Option<u64>,
}

/// The uid of a member of the captured forum (`groundtruth/common_member.json`).
pub fn member_uid(name: &str) -> String {
    let members: Vec<serde_json::Value> = serde_json::from_slice(
        &std::fs::read(fixtures().join("discuz/groundtruth/common_member.json")).unwrap(),
    )
    .unwrap();
    members
        .iter()
        .find(|m| m["username"] == name)
        .map(|m| m["uid"].as_str().unwrap().to_string())
        .unwrap_or_else(|| panic!("{name} is not a member of the captured forum"))
}

/// A reply (not quoting anything) for a derived page.
pub fn post(pid: u64, author: &'static str, at: &'static str, text: &'static str) -> DPost {
    DPost {
        pid,
        author,
        at,
        text,
        quotes: None,
    }
}

/// A thread page for ballots the captured thread does not contain: the captured API v4 page of
/// the vote thread (`mobile/variants/v4_viewthread_tid3_ppp50_judge.json`, all 37 posts) with its
/// replies replaced. Every field keeps the captured form — the reply is a copy of a captured
/// reply (pid 65), and a quote is the captured `reply_wrap` block — only the pid, author, uid,
/// time, floor and text change. The judge's first post (the rules) stays.
pub fn derived_page(dir: &Path, name: &str, posts: &[DPost]) -> PathBuf {
    use serde_json::Value;
    let base = fixtures().join("discuz/mobile/variants/v4_viewthread_tid3_ppp50_judge.json");
    let mut page: Value = serde_json::from_slice(&std::fs::read(&base).unwrap()).unwrap();
    let uid = member_uid;
    let east8 = chrono::FixedOffset::east_opt(8 * 3600).unwrap();
    let unix = |at: &str| -> i64 {
        let naive = chrono::NaiveDateTime::parse_from_str(at, "%Y-%m-%d %H:%M:%S").unwrap();
        naive.and_local_timezone(east8).unwrap().timestamp()
    };
    let html = |text: &str| -> String { html_escape(text).replace('\n', "<br />\n") };
    let list = page["Variables"]["postlist"].as_array().unwrap().clone();
    let first = list.iter().find(|p| p["first"] == "1").unwrap().clone();
    let template = list.iter().find(|p| p["pid"] == "65").unwrap().clone();
    let mut out = vec![first];
    for (i, p) in posts.iter().enumerate() {
        let mut v = template.clone();
        let number = (i + 2).to_string();
        let mut message = String::new();
        if let Some(q) = p.quotes {
            let quoted = posts
                .iter()
                .find(|x| x.pid == q)
                .expect("quoted post in the list");
            message.push_str(&format!(
                "<div class=\"reply_wrap\"><a href=\"http://127.0.0.1:8080/forum.php?mod=redirect&amp;amp;goto=findpost&amp;amp;pid={}&amp;amp;ptid=3\"><font color=\"#999999\">{} 发表于 {}</font></a><br />\n{}</div><br />\n",
                quoted.pid,
                quoted.author,
                &quoted.at[..16],
                html(quoted.text)
            ));
        }
        message.push_str(&html(p.text));
        v["pid"] = Value::String(p.pid.to_string());
        v["author"] = Value::String(p.author.to_string());
        v["username"] = Value::String(p.author.to_string());
        v["authorid"] = Value::String(uid(p.author));
        v["dbdateline"] = Value::String(unix(p.at).to_string());
        v["dateline"] = Value::String(p.at[..16].to_string());
        v["message"] = Value::String(message);
        v["number"] = Value::String(number.clone());
        v["position"] = Value::String(number);
        out.push(v);
    }
    let replies = (out.len() - 1).to_string();
    page["Variables"]["thread"]["replies"] = Value::String(replies.clone());
    page["Variables"]["thread"]["maxposition"] = Value::String(out.len().to_string());
    page["Variables"]["postlist"] = Value::Array(out);
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(&page).unwrap()).unwrap();
    path
}

/// The captured poll (API v1 answer of tid 5, `poll/mobile_v1_viewthread_tid5_judge.json`) with
/// the counts of the options in `counts` (by polloptionid) and the count of voters replaced, and
/// `replies` after its captured ones, each a copy of the captured reply pid 120 with only its pid,
/// author, uid, time, floor and text changed.
pub fn derived_poll_page(
    dir: &Path,
    name: &str,
    counts: &[(u64, u32)],
    voters: u32,
    replies: &[DPost],
) -> PathBuf {
    use serde_json::Value;
    let base = fixtures().join("discuz/poll/mobile_v1_viewthread_tid5_judge.json");
    let mut page: Value = serde_json::from_slice(&std::fs::read(&base).unwrap()).unwrap();
    let east8 = chrono::FixedOffset::east_opt(8 * 3600).unwrap();
    let sp = &mut page["Variables"]["special_poll"];
    for (id, n) in counts {
        sp["polloptions"][id.to_string()]["votes"] = Value::String(n.to_string());
    }
    sp["voterscount"] = Value::String(voters.to_string());
    let mut list = page["Variables"]["postlist"].as_array().unwrap().clone();
    let template = list.iter().find(|p| p["pid"] == "120").unwrap().clone();
    for p in replies {
        let at = chrono::NaiveDateTime::parse_from_str(p.at, "%Y-%m-%d %H:%M:%S")
            .unwrap()
            .and_local_timezone(east8)
            .unwrap()
            .timestamp();
        let mut v = template.clone();
        let number = (list.len() + 1).to_string();
        v["pid"] = Value::String(p.pid.to_string());
        v["author"] = Value::String(p.author.to_string());
        v["authorid"] = Value::String(member_uid(p.author));
        v["dbdateline"] = Value::String(at.to_string());
        v["dateline"] = Value::String(p.at[..16].to_string());
        v["message"] = Value::String(html_escape(p.text).replace('\n', "<br />\n"));
        v["number"] = Value::String(number.clone());
        if v.get("position").is_some() {
            v["position"] = Value::String(number);
        }
        list.push(v);
    }
    page["Variables"]["thread"]["replies"] = Value::String((list.len() - 1).to_string());
    page["Variables"]["postlist"] = Value::Array(list);
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(&page).unwrap()).unwrap();
    path
}

/// The captured voter lists of the poll of tid 5 (options 1 大灰狼, 3 李逵 and 13 弃权; the others
/// were not captured), as `inajax` XML.
pub fn captured_voter_lists() -> Vec<PathBuf> {
    ["1", "3", "13"]
        .iter()
        .map(|o| {
            fixtures().join(format!(
                "discuz/poll/viewvote_tid5_option{o}_judge_inajax.xml"
            ))
        })
        .collect()
}

/// Private messages to the judge for ballots sent by PM (qipan): the captured API v1
/// conversation answer (`pm/mobile_v1_mypm_subop_view_touid10_judge.json`) with its messages
/// replaced, each in the captured form: pmid (= the given id), sender, uid, exact time, text.
pub fn derived_pm_page(dir: &Path, name: &str, posts: &[DPost]) -> PathBuf {
    use serde_json::Value;
    let base = fixtures().join("discuz/pm/mobile_v1_mypm_subop_view_touid10_judge.json");
    let mut page: Value = serde_json::from_slice(&std::fs::read(&base).unwrap()).unwrap();
    let uid = member_uid;
    let east8 = chrono::FixedOffset::east_opt(8 * 3600).unwrap();
    let template = page["Variables"]["list"][0].clone();
    let mut list = Vec::new();
    for p in posts {
        let at = chrono::NaiveDateTime::parse_from_str(p.at, "%Y-%m-%d %H:%M:%S")
            .unwrap()
            .and_local_timezone(east8)
            .unwrap()
            .timestamp();
        let mut m = template.clone();
        m["pmid"] = Value::String(p.pid.to_string());
        m["plid"] = Value::String(p.pid.to_string());
        m["authorid"] = Value::String(uid(p.author));
        m["msgfromid"] = Value::String(uid(p.author));
        m["author"] = Value::String(p.author.to_string());
        m["msgfrom"] = Value::String(p.author.to_string());
        m["dateline"] = Value::String(at.to_string());
        m["message"] = Value::String(html_escape(p.text).replace('\n', "<br />"));
        m["subject"] = Value::String(String::new());
        list.push(m);
    }
    page["Variables"]["count"] = Value::String(list.len().to_string());
    page["Variables"]["perpage"] = Value::String(list.len().max(1).to_string());
    page["Variables"]["list"] = Value::Array(list);
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(&page).unwrap()).unwrap();
    path
}

/// The captured vote thread's replies (desktop pages 1–4, as a guest saw them), as [`DPost`]s.
pub fn captured_replies() -> Vec<DPost> {
    let mut out = Vec::new();
    for p in 1..=4 {
        let page = parse_fixture(&format!(
            "discuz/desktop/guest/viewthread_tid3_vote_p{p}.html"
        ))
        .unwrap();
        for post in page.posts.into_iter().filter(|p| !p.first && !p.blocked) {
            out.push(DPost {
                pid: post.pid,
                author: Box::leak(post.author.into_boxed_str()),
                at: Box::leak(
                    post.posted_at
                        .unwrap()
                        .format("%Y-%m-%d %H:%M:%S")
                        .to_string()
                        .into_boxed_str(),
                ),
                text: Box::leak(post.text.into_boxed_str()),
                quotes: None,
            });
        }
    }
    out
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The captured game's players and judges, for game configs in the rule-system suites.
/// The players of [`ROSTER`], in its order.
pub const ROSTER_PLAYERS: [&str; 14] = [
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
    "龙舌",
    "青鸾花",
    "雪罂子",
];

pub const ROSTER: &str = r#"
[roster]
players = [
  "大灰狼", "小飞", "李逵", "花千树", "不见", "冷雪", "蝈蝈",
  "小熊维尼", "超人", "音乐虫子", "yucca", "龙舌", "青鸾花", "雪罂子",
]
judges = ["版杀一室法官", "admin"]
"#;

/// Where a case's ballots come from.
pub enum Pages {
    /// The captured vote thread, desktop pages 1–4 as a guest saw them.
    Captured,
    /// A page derived from the captured one with these replies (see [`derived_page`]).
    Derived(Vec<DPost>),
    /// The captured poll (tid 5): the API v1 answer and the voter lists of options 1, 3 and 13,
    /// through `bansha tally` (one reading).
    CapturedPoll,
    /// Ballots sent to the judge by private message (see [`derived_pm_page`]).
    Pm(Vec<DPost>),
    /// The captured vote thread's replies, sent instead by private message, pmid = pid.
    CapturedAsPm,
    /// Readings of a poll, each with the votes that appeared since the reading before, in
    /// the order the daemon would make them; the rules see when each vote was first seen.
    Poll(Vec<Reading>),
}

pub struct Reading {
    pub at: &'static str,
    pub new: Vec<(&'static str, Vec<&'static str>)>,
}

/// The casts a series of poll readings yields (the daemon's log, built the same way).
pub fn casts_of(
    readings: &[Reading],
    offset: chrono::FixedOffset,
) -> Vec<bansha::domain::rules::Cast> {
    use bansha_parsers::poll::{Poll, PollOption, PollVoter};
    let mut log = bansha::domain::rules::channels::PollLog::default();
    let mut all: Vec<(&str, Vec<&str>)> = Vec::new();
    for r in readings {
        // A voter seen again has changed their vote: the poll shows only the new one.
        for (voter, targets) in r.new.iter().cloned() {
            match all.iter_mut().find(|(v, _)| *v == voter) {
                Some(e) => e.1 = targets,
                None => all.push((voter, targets)),
            }
        }
        let mut options: Vec<PollOption> = Vec::new();
        for (voter, targets) in &all {
            for t in targets {
                let i = match options.iter().position(|o| o.text == *t) {
                    Some(i) => i,
                    None => {
                        options.push(PollOption {
                            id: Some(options.len() as u64 + 1),
                            index: options.len() as u32 + 1,
                            text: t.to_string(),
                            votes: 0,
                            voters: Some(Vec::new()),
                        });
                        options.len() - 1
                    }
                };
                options[i].votes += 1;
                options[i].voters.as_mut().unwrap().push(PollVoter {
                    uid: None,
                    name: voter.to_string(),
                });
            }
        }
        let poll = Poll {
            tid: Some(5),
            options,
            voters_total: Some(all.len() as u32),
            multiple: true,
            max_choices: Some(2),
            overt: Some(true),
            expires_at: None,
        };
        let at = bansha::domain::time::parse_local_time(r.at, offset).unwrap();
        log.observe(&poll, at);
    }
    log.casts
}

/// One rule of one game, as a test case: the seed line it comes from, a game config, pages,
/// and what the tally must say.
pub struct Case {
    pub name: &'static str,
    /// (seed file under tests/fixtures/seeds, line, text on that line).
    pub seed: (&'static str, usize, &'static str),
    /// The game config: `ruleset = …` and everything after the roster ([[days]], [rules…]).
    pub ruleset: &'static str,
    pub config: &'static str,
    pub pages: Pages,
    pub day: u32,
    pub round: u32,
    pub at: Option<&'static str>,
    pub check: fn(&Got),
}

/// What a case got: the JSON tally and the BBCode text.
pub struct Got {
    pub json: serde_json::Value,
    pub text: String,
}

impl Got {
    /// (valid, reason) of `voter`'s last ballot.
    pub fn verdict_of(&self, voter: &str) -> (bool, String) {
        let b = self.json["ballots"]
            .as_array()
            .unwrap()
            .iter()
            .rfind(|b| b["voter"] == voter)
            .unwrap_or_else(|| panic!("no ballot of {voter}: {}", self.json["ballots"]));
        (
            b["valid"].as_bool().unwrap(),
            b["reason"].as_str().unwrap().to_string(),
        )
    }

    /// Asserts `voter`'s last ballot is void for a reason containing `why`.
    pub fn void_of(&self, voter: &str, why: &str) {
        let (valid, reason) = self.verdict_of(voter);
        assert!(
            !valid && reason.contains(why),
            "{voter}: {reason} (wanted void: {why})"
        );
    }

    /// (valid, reason) of the ballot in post `pid`.
    pub fn verdict(&self, pid: u64) -> (bool, String) {
        let b = self.json["ballots"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["pid"] == pid)
            .unwrap_or_else(|| panic!("no ballot for pid {pid}: {}", self.json["ballots"]));
        (
            b["valid"].as_bool().unwrap(),
            b["reason"].as_str().unwrap().to_string(),
        )
    }

    /// What the tally tells the judge the voter of post `pid` can still do ("" for nothing).
    pub fn hint(&self, pid: u64) -> String {
        let b = self.json["ballots"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["pid"] == pid)
            .unwrap_or_else(|| panic!("no ballot for pid {pid}: {}", self.json["ballots"]));
        b["hint"].as_str().unwrap_or_default().to_string()
    }

    pub fn is_valid(&self, pid: u64) -> bool {
        self.verdict(pid).0
    }

    /// Asserts the ballot is void for a reason containing `why`.
    pub fn void(&self, pid: u64, why: &str) {
        let (valid, reason) = self.verdict(pid);
        assert!(
            !valid && reason.contains(why),
            "pid {pid}: {reason} (wanted void: {why})"
        );
    }

    pub fn votes(&self, target: &str) -> f64 {
        self.json["counts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["target"] == target)
            .map_or(0.0, |c| c["votes"].as_f64().unwrap())
    }

    pub fn outcome(&self) -> (String, Vec<String>) {
        let o = &self.json["outcome"];
        (
            o["kind"].as_str().unwrap().to_string(),
            o["players"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap().to_string())
                .collect(),
        )
    }

    pub fn assert_outcome(&self, kind: &str, players: &[&str]) {
        let (k, p) = self.outcome();
        assert_eq!(
            (k.as_str(), p.iter().map(String::as_str).collect::<Vec<_>>()),
            (kind, players.to_vec()),
            "{}",
            self.json["outcome"]
        );
    }

    pub fn non_voter(&self, player: &str) -> Option<String> {
        self.json["non_voters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["player"] == player)
            .map(|n| n["consequence"].as_str().unwrap().to_string())
    }

    pub fn total(&self) -> f64 {
        self.json["total_votes"].as_f64().unwrap()
    }
}

/// Run every case through `bansha tally` (the library entry behind the command: config file and
/// page files in, JSON and BBCode out).
pub fn run_cases(cases: &[Case]) {
    use bansha::cli::tally::{run, TallyArgs};
    assert!(cases.len() >= 15, "at least 15 cases per game");
    for case in cases {
        let (file, line, text) = case.seed;
        let seed = std::fs::read_to_string(fixtures().join("seeds").join(file)).unwrap();
        let got_line = seed.lines().nth(line - 1).unwrap_or("");
        assert!(
            got_line.contains(text),
            "{}: seed {file} line {line} does not say {text:?}",
            case.name
        );

        let dir = tempfile::tempdir().unwrap();
        let game = dir.path().join("game.toml");
        std::fs::write(
            &game,
            format!(
                "ruleset = \"{}\"\nname = \"测试局\"\n{ROSTER}\n{}",
                case.ruleset, case.config
            ),
        )
        .unwrap();
        if let Pages::Poll(readings) = &case.pages {
            // Poll readings go to the rules' entry point, as the daemon's cycle does.
            let g = bansha::io::files::load_game(&game).unwrap();
            let casts = casts_of(readings, g.utc_offset);
            let at = bansha::domain::time::parse_local_time(case.at.expect("a time"), g.utc_offset)
                .unwrap();
            let tally =
                bansha::domain::rules::tally_with(&g, case.day, case.round, at, &[], &casts)
                    .unwrap();
            let got = Got {
                json: serde_json::to_value(&tally).unwrap(),
                text: bansha::present::bbcode::tally(&g, &tally),
            };
            let result =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (case.check)(&got)));
            if result.is_err() {
                panic!("case {:?} failed; the tally was:\n{}", case.name, got.text);
            }
            continue;
        }
        let pages = match &case.pages {
            Pages::CapturedPoll => {
                let poll = fixtures().join("discuz/poll");
                let mut v = vec![poll.join("mobile_v1_viewthread_tid5_judge.json")];
                for o in ["1", "3", "13"] {
                    v.push(poll.join(format!("viewvote_tid5_option{o}_judge_inajax.xml")));
                }
                v
            }
            Pages::Poll(_) => unreachable!(),
            Pages::Pm(posts) => vec![derived_pm_page(dir.path(), "pm.json", posts)],
            Pages::CapturedAsPm => {
                vec![derived_pm_page(dir.path(), "pm.json", &captured_replies())]
            }
            Pages::Captured => (1..=4)
                .map(|p| {
                    fixtures().join(format!(
                        "discuz/desktop/guest/viewthread_tid3_vote_p{p}.html"
                    ))
                })
                .collect(),
            Pages::Derived(posts) => vec![derived_page(dir.path(), "page.json", posts)],
        };
        let mut outputs = Vec::new();
        for json in [true, false] {
            let args = TallyArgs {
                config: game.clone(),
                day: case.day,
                round: case.round,
                at: case.at.map(String::from),
                json,
                charset: None,
                pages: pages.clone(),
            };
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let code = run(&args, &mut out, &mut err).unwrap();
            assert_eq!(code, 0, "{}: {}", case.name, String::from_utf8_lossy(&err));
            outputs.push(String::from_utf8(out).unwrap());
        }
        let got = Got {
            json: serde_json::from_str(&outputs[0]).unwrap(),
            text: outputs.remove(1),
        };
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (case.check)(&got)));
        if result.is_err() {
            panic!("case {:?} failed; the tally was:\n{}", case.name, got.text);
        }
    }
}

/// (line, quoted text) of each `Lnn "…"` (to the next ASCII quote) and `Lnn “…”` (nested
/// quotes balanced) in `text`.
pub fn seed_quotes(text: &str) -> Vec<(usize, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != 'L' || (i > 0 && chars[i - 1].is_ascii_alphanumeric()) {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while j < chars.len() && chars[j].is_ascii_digit() {
            j += 1;
        }
        if j == i + 1 || j + 1 >= chars.len() || chars[j] != ' ' {
            i += 1;
            continue;
        }
        let n: usize = chars[i + 1..j].iter().collect::<String>().parse().unwrap();
        let open = chars[j + 1];
        let mut k = j + 2;
        let mut depth = 1;
        let mut quote = String::new();
        match open {
            '"' => {
                while k < chars.len() && chars[k] != '"' {
                    quote.push(chars[k]);
                    k += 1;
                }
            }
            '“' => {
                while k < chars.len() {
                    match chars[k] {
                        '“' => depth += 1,
                        '”' => depth -= 1,
                        _ => {}
                    }
                    if depth == 0 {
                        break;
                    }
                    quote.push(chars[k]);
                    k += 1;
                }
            }
            _ => {
                i = j;
                continue;
            }
        }
        out.push((n, quote));
        i = k + 1;
    }
    out
}

/// Every quotation (`Lnn "…"`, `Lnn “…”`) in the night section of `preset` (from `section`) and
/// in the choices of the resolver `resolver` is in `seed` at that line, fragment by fragment
/// (between "…"); the number of fragments checked.
pub fn check_seed_quotes(seed: &str, preset: &str, section: &str, resolver: &str) -> usize {
    let night_part = &preset[preset.find(section).unwrap()..];
    let mut texts: Vec<String> = vec![night_part.replace("\n# ", "").replace("\n#   ", "")];
    let r = bansha::domain::night::resolver(resolver).unwrap();
    texts.extend(r.choices().iter().map(|c| c.lines.to_string()));
    let lines: Vec<&str> = seed.lines().collect();
    let mut checked = 0;
    for text in &texts {
        for (n, quote) in seed_quotes(text) {
            for frag in quote.split('…').filter(|f| !f.is_empty()) {
                assert!(
                    lines[n - 1].contains(frag),
                    "L{n}: “{frag}” is not in: {}",
                    lines[n - 1]
                );
                checked += 1;
            }
        }
    }
    checked
}
