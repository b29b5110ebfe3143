//! Nothing a player writes, and no name on the roster, can put markup into what bansha writes
//! for the judge: the BBCode post (tags), the HTML mail and the dashboard (elements,
//! attributes), the timeline SVG. Players named `[/url][url=http://x]` and `<script>`, a ballot
//! naming `[/b][url=http://evil]点我[/url]`, a non-player named like an `<img>` element.

mod common;

use bansha::domain::config;
use bansha_parsers::{parse_thread_page, ParseOptions, Post};
use chrono::{Duration, TimeZone};

const BB_NAME: &str = "[/url][url=http://x]";
const HTML_NAME: &str = "<script>alert(1)</script>";
const IMG: &str = "<img src=x onerror=alert(1)>";
const BB_TARGET: &str = "[/b][url=http://evil]点我[/url]";

fn game() -> config::GameConfig {
    let toml = format!(
        "ruleset = \"m103\"\nname = \"hostile\"\n[roster]\nplayers = [{}, {}, \"李逵\", \"冷雪\", \"小飞\"]\n\
         judges = [\"法官\"]\n[[days]]\nday = 1\nvote_thread = 3\nopens_at = \"2026-12-01 08:00\"\n\
         closes_at = \"2026-12-01 21:00\"\n",
        toml::Value::String(BB_NAME.into()),
        toml::Value::String(HTML_NAME.into()),
    );
    bansha::domain::game::load_str(&toml, std::path::Path::new("hostile.toml")).unwrap()
}

fn posts() -> Vec<Post> {
    let page = std::fs::read(
        common::fixtures().join("discuz/mobile/guest/v1/viewthread_tid3_vote_p1.json"),
    )
    .unwrap();
    let template = parse_thread_page(&page, None, &ParseOptions::default())
        .unwrap()
        .posts[1]
        .clone();
    let east8 = chrono::FixedOffset::east_opt(8 * 3600).unwrap();
    let t0 = east8.with_ymd_and_hms(2026, 12, 1, 9, 0, 0).unwrap();
    let ballots = [
        (BB_NAME, "李逵"),
        (HTML_NAME, BB_NAME),
        ("李逵", HTML_NAME),
        ("冷雪", BB_TARGET),
        ("小飞", HTML_NAME),
        (IMG, "李逵"),
    ];
    ballots
        .iter()
        .enumerate()
        .map(|(i, (voter, target))| {
            let mut p = template.clone();
            p.pid = 500 + i as u64;
            p.tid = 3;
            p.floor = format!("{}#", i + 2);
            p.author = voter.to_string();
            p.posted_at = Some(t0 + Duration::minutes(i as i64));
            p.text = format!("投票对象：{target}\n投票理由：{HTML_NAME}{BB_TARGET}");
            p
        })
        .collect()
}

/// Every BBCode tag in `s`.
fn tags(s: &str) -> Vec<String> {
    let re = regex::Regex::new(r"\[(/?[a-z]+)(=[^\]]*)?\]").unwrap();
    re.captures_iter(s).map(|c| c[1].to_string()).collect()
}

#[test]
fn player_text_never_becomes_markup() {
    let g = game();
    let d = g.day(1).unwrap().clone();
    let posts = posts();
    let now = d.closes_at + Duration::minutes(1);
    let tally = bansha::domain::rules::tally(&g, 1, 1, now, &posts).unwrap();
    // The hostile names reach the outputs: as a counted voter, a non-voter, an ignored author;
    // a written target loses its markup when the ballot is read.
    assert!(tally
        .counts
        .iter()
        .any(|c| c.voters.iter().any(|v| v.voter == BB_NAME)));
    assert!(tally.non_voters.iter().any(|n| n.player == HTML_NAME));
    assert!(tally.ignored.iter().any(|i| i.author == IMG));
    assert!(tally.ballots.iter().any(|b| b.written == "点我"));

    // BBCode: only bansha's own tags.
    let code = bansha::present::bbcode::tally(&g, &tally);
    for t in tags(&code) {
        assert!(
            ["b", "/b", "color", "/color"].contains(&t.as_str()),
            "{t}: {code}"
        );
    }
    assert!(code.contains("［/url］［url=http://x］"), "{code}");
    assert!(
        code.contains(HTML_NAME),
        "BBCode shows HTML as text: {code}"
    );

    // The 电梯楼 post: bansha's links only, one per player whose uid is known.
    let lurk = bansha::domain::rules::lurk::lurk(&g, 1, &posts, &[], None, &[]).unwrap();
    let elevator = bansha::present::bbcode::elevator(&lurk, 3);
    let links = lurk.players.iter().filter(|p| p.uid.is_some()).count();
    assert!(links > 0);
    assert_eq!(elevator.matches("[url=").count(), links, "{elevator}");
    for t in tags(&elevator) {
        assert!(
            ["b", "/b", "url", "/url"].contains(&t.as_str()),
            "{t}: {elevator}"
        );
    }
    assert!(elevator.contains("［/url］［url=http://x］"), "{elevator}");

    // The HTML mail, the dashboard's tally and the timeline: no element of a player's.
    let mail = bansha::present::html::tally_mail(
        &g,
        &d,
        &tally,
        &bansha::present::html::Drawing {
            forum_base: "http://127.0.0.1/",
            fonts: bansha::io::fonts::system(),
        },
        bansha::present::html::tally_subject(&g, &d, "最终计票"),
        "测试",
        now,
    );
    let html = mail.html.clone().unwrap();
    let dashboard = bansha::present::html::tally_html(&d, &tally, "http://127.0.0.1/");
    let svg = bansha::present::chart::svg(
        "t",
        &bansha::domain::rules::timeline::of(&tally),
        tally.lock_from,
    );
    // Issue 32: the timeline has a row for each voter with a dated ballot, in the order of
    // their first ballot, each void ballot on its voter's row.
    let timeline = bansha::domain::rules::timeline::of(&tally);
    let mut voters: Vec<&str> = Vec::new();
    let mut dated: Vec<_> = tally
        .ballots
        .iter()
        .filter(|b| b.posted_at.is_some())
        .collect();
    dated.sort_by_key(|b| (b.posted_at, b.pid));
    for b in &dated {
        if !voters.contains(&b.voter.as_str()) {
            voters.push(&b.voter);
        }
    }
    let rows: Vec<&str> = timeline.rows.iter().map(|r| r.voter.as_str()).collect();
    assert_eq!(rows, voters);
    let void = dated.iter().filter(|b| !b.valid).count();
    assert_eq!(
        timeline.rows.iter().map(|r| r.void.len()).sum::<usize>(),
        void
    );
    for (what, out) in [("mail", &html), ("dashboard", &dashboard), ("svg", &svg)] {
        assert!(!out.contains("<script"), "{what}: {out}");
        assert!(!out.contains("<img src=x"), "{what}: {out}");
    }
    for (what, out) in [("mail", &html), ("dashboard", &dashboard)] {
        assert!(
            out.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{what} shows the name as text: {out}"
        );
    }
    assert!(
        html.contains("&lt;img src=x onerror=alert(1)&gt;"),
        "{html}"
    );
    // The mail's BBCode block and attachment are the escaped-for-BBCode text.
    let attached = mail
        .files
        .iter()
        .find(|f| f.name.ends_with(".txt"))
        .unwrap();
    assert_eq!(String::from_utf8(attached.data.clone()).unwrap(), code);
    assert!(mail.body.contains(&code));
}
