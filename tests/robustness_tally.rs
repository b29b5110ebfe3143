//! Ballot reading and tallying never panic, whatever players write, and the tally keeps its
//! invariants: one standing ballot per voter, counts that add up, every living player either
//! counted or listed as a non-voter.

use bansha::domain::config;
use bansha::domain::rules::tally;
use bansha_parsers::ballot::{FormatSpec, Grammar};
use bansha_parsers::{Post, Quote, TimePrecision};
use chrono::{DateTime, Duration, FixedOffset};
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::path::PathBuf;

const FRAGMENTS: &[&str] = &[
    "投票对象",
    "投票理由",
    "改票对象",
    "改票理由",
    "：",
    ":",
    " ",
    "\u{3000}",
    "\n",
    "李逵",
    "李奎",
    "大灰狼",
    "小飞",
    "yucca",
    "YUCCA",
    "弃权",
    "路人甲",
    "龙舌",
    "@",
    "、",
    "，",
    "。",
    "[b]",
    "[/b]",
    "第二天",
    "第一次",
    "投票的对象是",
    "原因是",
    "现在改为——",
    "##vote",
    "İ",
    "ẞ",
    "Ꮿ",
    "\u{0}",
    "😂",
    "&#128514;",
    "XXX",
    "——",
    "票 ",
];

fn grammar() -> Grammar {
    Grammar::new(
        &[
            FormatSpec {
                name: "一".into(),
                vote: "{voter} 第{day}天 第{n}次 投票的对象是 {target} 原因是 {reason}".into(),
                change: Some("现在改为——投票的对象是 {target} 原因是 {reason}".into()),
            },
            FormatSpec {
                name: "二".into(),
                vote: "投票对象：{target}\n投票理由：{reason}".into(),
                change: Some("改票对象：{target}\n改票理由：{reason}".into()),
            },
            FormatSpec {
                name: "三".into(),
                vote: "##vote:{target}".into(),
                change: None,
            },
        ],
        true,
    )
    .unwrap()
}

fn text_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        prop::collection::vec(prop::sample::select(FRAGMENTS), 0..40).prop_map(|v| v.concat()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn reading_never_panics(text in text_strategy()) {
        let g = grammar();
        let r = g.read(&text);
        for f in &r.found {
            prop_assert!(!f.target.is_empty());
        }
    }
}

fn east8() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).unwrap()
}

fn post(
    pid: u64,
    author: &str,
    at: DateTime<FixedOffset>,
    text: String,
    quote: Option<(u64, &str)>,
) -> Post {
    Post {
        pid,
        tid: 3,
        floor: format!("{pid}#"),
        number: Some(pid as u32),
        position: None,
        first: false,
        author: author.to_string(),
        author_uid: None,
        posted_at: Some(at),
        posted_at_precision: TimePrecision::Second,
        edited_at: None,
        edited_by: None,
        text,
        quotes: quote
            .map(|(pid, author)| {
                vec![Quote {
                    author: Some(author.to_string()),
                    pid: Some(pid),
                    posted_at: None,
                    text: String::new(),
                }]
            })
            .unwrap_or_default(),
        red_font: false,
        large_font: false,
        blocked: false,
        hidden_content: false,
        smilies: 0,
        images: 0,
    }
}

const AUTHORS: &[&str] = &[
    "大灰狼",
    "小飞",
    "李逵",
    "花千树",
    "不见",
    "冷雪",
    "龙舌",
    "路人甲",
    "版杀一室法官",
    "yucca",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn tallies_never_panic_and_add_up(
        posts in prop::collection::vec(
            (prop::sample::select(AUTHORS), 0i64..(3 * 86400), text_strategy(), any::<bool>(), any::<u8>()),
            0..60,
        ),
        at_offset in 0i64..(3 * 86400),
        ruleset in prop::sample::select(&["banshayishi", "chuhan", "jiaohui", "m103", "qipan", "bansha42"][..]),
    ) {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("config/examples/banshayishi-12.toml");
        let mut game = bansha::io::files::load_game(&path).unwrap();
        if ruleset != "banshayishi" {
            let text = std::fs::read_to_string(&path).unwrap();
            let text = text.replace("ruleset = \"m103\"", &format!("ruleset = \"{ruleset}\""));
            let text = text.split("\n[rules]").next().unwrap().to_string();
            game = bansha::domain::game::load_str(&text, &path).unwrap();
        }
        let start = DateTime::parse_from_rfc3339("2026-11-27T21:00:00+08:00").unwrap().with_timezone(&east8());
        let list: Vec<Post> = posts
            .iter()
            .enumerate()
            .map(|(i, (author, secs, text, quotes, q))| {
                let quote = (*quotes && i > 0).then(|| (100 + (*q as u64 % i as u64), AUTHORS[*q as usize % AUTHORS.len()]));
                post(100 + i as u64, author, start + Duration::seconds(*secs), text.clone(), quote)
            })
            .collect();
        let now = start + Duration::seconds(at_offset);
        for round in [1, 2] {
            let t = match tally(&game, 2, round, now, &list) {
                Ok(t) => t,
                Err(_) => continue, // round 2 is not configured
            };
            // One standing ballot per voter.
            let counted: Vec<&str> = t.ballots.iter().filter(|b| b.counted).map(|b| b.voter.as_str()).collect();
            let unique: BTreeSet<&str> = counted.iter().copied().collect();
            prop_assert_eq!(counted.len(), unique.len());
            // Every counted ballot is valid.
            prop_assert!(t.ballots.iter().all(|b| !b.counted || b.valid));
            // Counts add up to the total (no curse, no sheriff, no half voters in this config).
            let counted_votes: f64 = t.counts.iter().map(|c| c.votes).sum::<f64>() + t.abstentions.len() as f64;
            let non_voter_abstain = if t.closed && game.rules.vote.non_voter == config::NonVoter::Abstain {
                t.non_voters.len() as f64
            } else {
                0.0
            };
            prop_assert!((counted_votes + non_voter_abstain - t.total_votes).abs() < 1e-9, "{} vs {}", counted_votes, t.total_votes);
            // Every living player voted or is listed.
            for p in ["大灰狼", "小飞", "李逵", "花千树", "不见", "冷雪", "yucca"] {
                prop_assert!(unique.contains(p) || t.non_voters.iter().any(|n| n.player == p), "{} missing", p);
            }
            // Nobody outside the living roster is ever counted.
            prop_assert!(!unique.contains("龙舌") && !unique.contains("路人甲") && !unique.contains("版杀一室法官"));
        }
    }
}
