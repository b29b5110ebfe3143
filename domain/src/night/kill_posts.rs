//! bansha42's kill posts read from the forum as night actions (004 L60 "自己根据交帖口令提交至
//! 论坛"). Pure: a post of a kill-post thread, its `[checks.kill]` verdict and the game in; what
//! the night record keeps of it out — an [`Action`] for the resolver or a line for the judge.
//!
//! - Who posted: the code the post names (L59 "杀帖必须注明杀手的代号"), mapped to its player
//!   through `[roster.roles]` codes (a post handed in "根据交帖口令" may come from an account
//!   that is not the killer's); else the author when he is a player. Two codes, or none and an
//!   author who is no player: the judge is asked.
//! - The victim: a header in the post's first lines, a kill word then a roster name (or alias):
//!   `贴杀：李逵`, `杀 李逵`, `被帖：李逵`. A victim read nowhere, or two different ones, is
//!   not guessed: the judge is asked.
//! - A post that passed its check is a 贴杀. One that failed it on its form (words, quotes,
//!   repetition, traditional characters, no code: L57–L59) is a 重写 (L64 "不符合杀帖要求的一律
//!   判出帖者重写"). One that looks copied (originality) is a ruling for the judge: L63 puts the
//!   poster out for a post not original or not first published, which is his call (L62: on a
//!   complaint), not a similarity figure's.
//!
//! Each action's `source` keeps the thread, floor and pid, so the judge finds the post.

use super::read::player;
use super::Action;
use crate::config::GameConfig;
use crate::rules::checks::PostVerdict;
use bansha_parsers::ballot::normalize;
use chrono::{DateTime, FixedOffset};

/// A post of a kill-post thread, as the forum shows it.
#[derive(Debug, Clone)]
pub struct KillPost<'a> {
    pub tid: u64,
    pub pid: u64,
    /// The floor label ("12#").
    pub floor: &'a str,
    pub author: &'a str,
    pub posted_at: Option<DateTime<FixedOffset>>,
    /// The body as plain text, quotes out.
    pub text: &'a str,
}

impl KillPost<'_> {
    /// Where the post is, as every line about it says.
    pub fn source(&self) -> String {
        format!("杀帖 tid {} {}（pid {}）", self.tid, self.floor, self.pid)
    }
}

/// What the night record keeps of one kill post.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    /// An action for the resolver: 贴杀 or 重写.
    Action(Action),
    /// A line for the judge (the digest's unread list): what could not be read, or the ruling
    /// he must make.
    ForJudge(String),
    /// No kill post: a judge's post naming no code (his notices in the thread).
    Nothing,
}

/// How many non-empty lines from the top hold the header.
const HEADER_LINES: usize = 3;

/// Read one kill post (see the module). `verdict` is its `[checks.kill]` verdict.
pub fn read_kill_post(game: &GameConfig, post: &KillPost, verdict: &PostVerdict) -> Reading {
    let source = post.source();
    let ask = |why: String| Reading::ForJudge(format!("{source} {}：{why}", post.author));
    if game.roster.judges.iter().any(|j| j == post.author)
        && named_codes(game, post.text).is_empty()
    {
        return Reading::Nothing;
    }
    let target = victim(game, post.text);
    let by = match poster(game, post, target.as_deref().ok()) {
        Ok(by) => by,
        Err(why) => return ask(why),
    };
    let target = match target {
        Ok(v) => v,
        Err(why) => return ask(why),
    };
    if let Some(s) = &verdict.similar {
        return ask(format!(
            "{by} 贴 {target} 的杀帖与 {} 高度相似（{:.1}%）：非原创或非首发的杀帖判出帖者出局、被帖者复活（004 L63），\
             请裁定后在仪表盘录入“非原创”，或认可为“贴杀”",
            s.label,
            s.share * 100.0
        ));
    }
    let power = if verdict.pass { "贴杀" } else { "重写" };
    let mut source = source;
    if !verdict.pass {
        source += &format!(
            "，不合格：{}（004 L64 判出帖者重写）",
            verdict.failures.join("；")
        );
    }
    Reading::Action(Action {
        by: vec![by],
        power: power.into(),
        target: Some(target),
        platform: None,
        sent_at: post.posted_at,
        source,
    })
}

/// The player who posted: the code the post names (L59) — on a line starting 代号 when it has
/// one (a code may also be a forum name the story mentions), else anywhere — else its author
/// when a player.
fn poster(game: &GameConfig, post: &KillPost, victim: Option<&str>) -> Result<String, String> {
    let code_lines: String = post
        .text
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("代号"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut named = named_codes(game, &code_lines);
    if named.is_empty() {
        // Anywhere but the header that names the victim: a player may be called what a code
        // is, and the victim is not the poster, wherever the story names him again.
        named = named_codes(game, &without_victim_header(game, post.text));
        if let Some(v) = victim {
            named.retain(|(_, code)| normalize(code) != normalize(v));
        }
    }
    match named.as_slice() {
        [(p, _)] => Ok(p.to_string()),
        [] if game.roster.players.iter().any(|p| p == post.author) => Ok(post.author.to_string()),
        [] => Err(format!(
            "发帖人不是玩家，帖子里也没有本局的杀手代号（004 L59 杀帖必须注明杀手的代号）：读不出是谁出的帖{}",
            if game.roster.roles.values().all(|r| r.code.is_none()) {
                "（配置的 [roster.roles] 没有写 code）"
            } else {
                ""
            }
        )),
        many => Err(format!(
            "帖子里有多个代号（{}）：读不出是谁出的帖（004 L59），请法官指定",
            many.iter().map(|(_, c)| *c).collect::<Vec<_>>().join("、")
        )),
    }
}

/// The text less the lines of its header that name a victim (`header_victim`).
fn without_victim_header(game: &GameConfig, text: &str) -> String {
    let mut header = 0;
    text.lines()
        .filter(|l| {
            if l.trim().is_empty() || header >= HEADER_LINES {
                return true;
            }
            header += 1;
            header_victim(game, l.trim()).is_none()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The roster's (player, code) whose code the text names.
fn named_codes<'g>(game: &'g GameConfig, text: &str) -> Vec<(&'g str, &'g str)> {
    let text = normalize(text);
    game.roster
        .roles
        .iter()
        .filter_map(|(p, r)| Some((p.as_str(), r.code.as_deref()?)))
        .filter(|(_, code)| !code.trim().is_empty() && text.contains(&normalize(code)))
        .collect()
}

/// The victim the post's header names: in its first lines, a kill word then a player.
fn victim(game: &GameConfig, text: &str) -> Result<String, String> {
    let header: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(HEADER_LINES)
        .collect();
    let mut found: Vec<String> = Vec::new();
    for line in &header {
        if let Some(v) = header_victim(game, line) {
            if !found.contains(&v) {
                found.push(v);
            }
        }
    }
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(format!(
            "前 {HEADER_LINES} 行没有读出被帖的玩家（写法如“贴杀：李逵”），请法官看帖后录入：{}",
            excerpt(header.first().copied().unwrap_or(""))
        )),
        _ => Err(format!(
            "前 {HEADER_LINES} 行写了不止一个被帖的玩家（{}），请法官看帖后录入",
            found.join("、")
        )),
    }
}

/// The words a kill header starts with, longest first.
const KILL_WORDS: [&str; 10] = [
    "被贴杀",
    "被帖杀",
    "贴杀",
    "帖杀",
    "杀帖",
    "被贴",
    "被帖",
    "贴",
    "帖",
    "杀",
];

/// `贴杀：李逵`, `杀 李逵`, `被帖:黑旋风` → the player; anything else → None.
fn header_victim(game: &GameConfig, line: &str) -> Option<String> {
    let line = line.trim_start_matches(['【', '[', '（', '(']);
    let word = KILL_WORDS.iter().find(|w| line.starts_with(*w))?;
    let rest = line[word.len()..].trim_start_matches(['】', ']', '）', ')']);
    let name = rest
        .strip_prefix(['：', ':'])
        .or_else(|| rest.strip_prefix(char::is_whitespace))?;
    player(game, name.trim())
}

fn excerpt(line: &str) -> String {
    let short: String = line.chars().take(30).collect();
    if short.chars().count() < line.chars().count() {
        format!("“{short}…”")
    } else {
        format!("“{short}”")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::checks::check_post;

    /// A bansha42 game: 宋江 (联合杀, code 七叶明芝) and 吴用 (独立刺, 冰蚕丝), 李逵 and 林冲
    /// (白道, 游侠: L5); the codes of 004 L93, L95.
    fn game() -> GameConfig {
        crate::config::parse_str(
            "ruleset = \"bansha42\"\nname = \"t\"\n[roster]\nplayers = [\"宋江\", \"吴用\", \"李逵\", \"林冲\"]\n\
             [roster.aliases]\n\"李逵\" = [\"黑旋风\"]\n\
             [roster.roles]\n\"宋江\" = { role = \"联合杀\", faction = \"黑道\", code = \"七叶明芝\" }\n\
             \"吴用\" = { role = \"独立刺\", faction = \"黑道\", code = \"冰蚕丝\" }\n\
             \"李逵\" = { role = \"游侠\", faction = \"白道\" }\n\
             [[days]]\nday = 1\nvote_thread = 1\ncloses_at = \"2026-12-01 21:00:00\"\n\
             code_names = [\"七叶明芝\", \"冰蚕丝\"]\n",
            std::path::Path::new("t.toml"),
        )
        .unwrap()
    }

    /// A body of at least `n` words (Word's count: a Chinese character is a word, a number
    /// one), in simplified characters, no sentence repeated.
    fn body(n: usize) -> String {
        (1..=n / 12 + 1)
            .map(|i| format!("第{i}段月色如水照在江面上。"))
            .collect()
    }

    fn verdict(g: &GameConfig, text: &str, earlier: &[(String, String)]) -> PostVerdict {
        let rule = g.rules.checks.get("kill").unwrap();
        check_post(
            rule,
            text,
            &[],
            &g.days[0].code_names,
            (false, false),
            earlier,
        )
    }

    fn read(author: &str, text: &str) -> Reading {
        let g = game();
        let v = verdict(&g, text, &[]);
        read_at(&g, author, text, &v)
    }

    fn read_at(g: &GameConfig, author: &str, text: &str, v: &PostVerdict) -> Reading {
        let post = KillPost {
            tid: 7,
            pid: 901,
            floor: "12#",
            author,
            posted_at: DateTime::parse_from_rfc3339("2026-12-01T21:10:00+08:00").ok(),
            text,
        };
        read_kill_post(g, &post, v)
    }

    fn action(r: Reading) -> Action {
        match r {
            Reading::Action(a) => a,
            other => panic!("not an action: {other:?}"),
        }
    }

    fn question(r: Reading) -> String {
        match r {
            Reading::ForJudge(l) => l,
            other => panic!("not a question: {other:?}"),
        }
    }

    /// 004 L58 (801 words), L59 (the code), L60 (handed in to the forum "根据交帖口令": the
    /// account need not be the killer's): a passing post is the coded player's 贴杀 of the
    /// header's victim, with its time and where it is.
    #[test]
    fn a_passing_post_is_the_coded_players_kill_of_the_header_victim() {
        let text = format!("贴杀：李逵\n代号：七叶明芝\n{}", body(820));
        let a = action(read("交帖马甲", &text));
        assert_eq!(a.by, ["宋江"]);
        assert_eq!(a.power, "贴杀");
        assert_eq!(a.target.as_deref(), Some("李逵"));
        assert_eq!(a.source, "杀帖 tid 7 12#（pid 901）");
        assert!(a.sent_at.is_some());
    }

    /// A player may be called what a code is (the forum names of a real game are words of
    /// its story): a post whose header names that player as its victim and that names no code
    /// is its author's, not the code holder's (found by the simulator, seed 8439).
    #[test]
    fn a_victim_named_like_a_code_is_not_the_posters_code() {
        let g = crate::config::parse_str(
            "ruleset = \"bansha42\"\nname = \"t\"\n[roster]\nplayers = [\"宋江\", \"青鸾花\", \"李逵\"]\n\
             [roster.roles]\n\"宋江\" = { role = \"联合杀\", faction = \"黑道\", code = \"青鸾花\" }\n\
             [[days]]\nday = 1\nvote_thread = 1\ncloses_at = \"2026-12-01 21:00:00\"\n",
            std::path::Path::new("t.toml"),
        )
        .unwrap();
        for header in ["贴杀：青鸾花", "【贴杀】：青鸾花", "杀 青鸾花"] {
            let text = format!("{header}\n{}\n那一夜青鸾花没有回来。", body(820));
            let v = verdict(&g, &text, &[]);
            let a = action(read_at(&g, "李逵", &text, &v));
            assert_eq!(a.by, ["李逵"], "{header}");
            assert_eq!(a.target.as_deref(), Some("青鸾花"), "{header}");
        }
        // Named as the code on its own line, it is the code holder's.
        let text = format!("贴杀：李逵\n代号：青鸾花\n{}", body(820));
        let v = verdict(&g, &text, &[]);
        assert_eq!(action(read_at(&g, "路人", &text, &v)).by, ["宋江"]);
    }

    /// The code on the 代号 line is the poster's, whatever other code the story names (004
    /// L59 "杀帖必须注明杀手的代号").
    #[test]
    fn the_code_line_names_the_poster() {
        let text = format!("贴杀：李逵\n代号：冰蚕丝\n七叶明芝的故事{}", body(820));
        let a = action(read("交帖马甲", &text));
        assert_eq!(a.by, ["吴用"]);
    }

    /// The header's other forms: `杀 NAME`, `【贴杀】NAME`-style brackets, an alias; a post
    /// naming no code from a player's own account is his (L59 is then the check's business).
    #[test]
    fn header_forms_and_aliases() {
        for head in ["杀 李逵", "被帖:黑旋风", "【贴杀】：李逵", "帖杀 李逵"] {
            let text = format!("{head}\n代号：冰蚕丝\n{}", body(820));
            let a = action(read("吴用", &text));
            assert_eq!(a.target.as_deref(), Some("李逵"), "{head}");
            assert_eq!(a.by, ["吴用"], "{head}");
        }
    }

    /// Never guessed: a victim named only in the prose, or two in the header, or a post by an
    /// account that is no player naming no code, or naming two codes, goes to the judge with
    /// where it is.
    #[test]
    fn what_cannot_be_read_is_asked_not_guessed() {
        let q = question(read(
            "宋江",
            &format!("代号：七叶明芝\n李逵的故事\n{}", body(820)),
        ));
        assert!(q.starts_with("杀帖 tid 7 12#（pid 901） 宋江："), "{q}");
        assert!(q.contains("没有读出被帖的玩家"), "{q}");
        let q = question(read(
            "宋江",
            &format!("贴杀：李逵\n贴杀：林冲\n代号：七叶明芝\n{}", body(820)),
        ));
        assert!(q.contains("不止一个被帖的玩家（李逵、林冲）"), "{q}");
        let q = question(read("交帖马甲", &format!("贴杀：李逵\n{}", body(820))));
        assert!(q.contains("读不出是谁出的帖"), "{q}");
        let q = question(read(
            "交帖马甲",
            &format!("贴杀：李逵\n代号：七叶明芝、冰蚕丝\n{}", body(820)),
        ));
        assert!(q.contains("多个代号"), "{q}");
        // Without a 代号 line, two codes anywhere are two codes.
        let q = question(read(
            "交帖马甲",
            &format!("贴杀：李逵\n七叶明芝与冰蚕丝\n{}", body(820)),
        ));
        assert!(q.contains("多个代号"), "{q}");
        // "杀手" is no header: a kill word followed by more text, not a name.
        let q = question(read("宋江", &format!("杀手七叶明芝之歌\n{}", body(820))));
        assert!(q.contains("没有读出被帖的玩家"), "{q}");
    }

    /// The judge's notices in the thread are no kill posts; a kill post he hands in for a
    /// killer (L60 "给哨") names the code and is the killer's.
    #[test]
    fn the_judges_posts_are_read_only_when_they_name_a_code() {
        let mut g = game();
        std::sync::Arc::make_mut(&mut g.roster)
            .judges
            .push("哨子".into());
        let notice = "交帖楼：请按口令交帖，注明代号与被帖者";
        let v = verdict(&g, notice, &[]);
        assert_eq!(read_at(&g, "哨子", notice, &v), Reading::Nothing);
        let text = format!("贴杀：林冲\n代号：冰蚕丝\n{}", body(820));
        let v = verdict(&g, &text, &[]);
        let a = action(read_at(&g, "哨子", &text, &v));
        assert_eq!(a.by, ["吴用"]);
        assert_eq!(a.target.as_deref(), Some("林冲"));
    }

    /// 004 L64 "杀帖体裁不合格或字数不够引用过多等不符合杀帖要求的一律判出帖者重写": a short post is a
    /// 重写 of its victim, the failures in its source; L59 (no code named) likewise.
    #[test]
    fn a_post_failing_its_form_is_a_rewrite() {
        let a = action(read(
            "宋江",
            &format!("贴杀：李逵\n代号：七叶明芝\n{}", body(300)),
        ));
        assert_eq!(
            (a.power.as_str(), a.target.as_deref()),
            ("重写", Some("李逵"))
        );
        assert!(a.source.contains("少于 801"), "{}", a.source);
        assert!(a.source.contains("004 L64"), "{}", a.source);
        // From the player's own account without the code: the check's own failure (L59).
        let a = action(read("宋江", &format!("贴杀：李逵\n{}", body(820))));
        assert_eq!(a.power, "重写");
        assert!(a.source.contains("没有注明杀手代号"), "{}", a.source);
    }

    /// 004 L63 "非原创或非首发的杀帖一律判出帖者出局": a post the check finds copied is a ruling
    /// for the judge, not an action (the similarity is a figure; L62 makes it a complaint's).
    #[test]
    fn a_post_like_an_earlier_text_is_a_ruling_for_the_judge() {
        let g = game();
        let prose = body(820);
        let text = format!("贴杀：李逵\n代号：七叶明芝\n{prose}");
        let v = verdict(&g, &text, &[("讨论帖 5# 林冲".into(), prose.clone())]);
        assert!(v.similar.is_some());
        let q = question(read_at(&g, "宋江", &text, &v));
        assert!(
            q.contains("宋江 贴 李逵 的杀帖与 讨论帖 5# 林冲 高度相似"),
            "{q}"
        );
        assert!(q.contains("004 L63"), "{q}");
    }
}
