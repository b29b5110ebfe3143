//! The judge's reply carrying a tally, found again among a thread's posts: how bansha knows a
//! post to the forum went through (the forum's answer to a post is not what it vouches by).

use bansha_parsers::Post;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// A tally posted to the vote thread from the dashboard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PostedTally {
    pub day: u32,
    pub pid: u64,
    pub floor: String,
    /// When it was posted (forum time, RFC 3339).
    pub at: String,
    /// The BBCode posted, as the judge saw it.
    pub bbcode: String,
}

/// The first line of a BBCode text as the forum shows it: tags out, spaces squeezed.
pub fn shown_first_line(bbcode: &str) -> String {
    let line = bbcode.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut out = String::new();
    let mut rest = line;
    // `[b]`, `[/b]`, `[color=red]`, `[url=…]`: a bracket with a tag name (ASCII letters) inside.
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let name: String = after
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect();
        match after.find(']') {
            Some(close) if !name.is_empty() => rest = &after[close + 1..],
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The post among `posts` that is the judge's reply with `bbcode`: by `author`, not among the
/// pids known before posting, its text beginning with the tally's first line as shown.
pub fn find_reply<'a>(
    posts: &'a [Post],
    author: &str,
    bbcode: &str,
    known: &BTreeSet<u64>,
) -> Option<&'a Post> {
    let first = shown_first_line(bbcode);
    posts.iter().find(|p| {
        p.author == author
            && !known.contains(&p.pid)
            && p.text
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .starts_with(&first)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_line_as_the_forum_shows_it() {
        assert_eq!(
            shown_first_line("\n[b]【版杀一室 第十二局】第2天 第一轮投票统计[/b]\n截止时间：…"),
            "【版杀一室 第十二局】第2天 第一轮投票统计"
        );
        assert_eq!(
            shown_first_line("[color=red]李逵[/color] [1] 票"),
            "李逵 [1] 票"
        );
    }

    #[test]
    fn the_reply_is_the_judges_new_post_with_the_tally() {
        let post = |pid: u64, author: &str, text: &str| {
            Post::text_only(pid, 3, format!("{pid}#"), author.into(), None, text.into())
        };
        let code = "[b]【局】第2天 统计[/b]\n李逵 4 票";
        let posts = vec![
            post(1, "法官", "【局】第2天 统计 李逵 3 票"),
            post(2, "李逵", "【局】第2天 统计 李逵 4 票"),
            post(3, "法官", "别的话"),
            post(4, "法官", "【局】第2天 统计\n李逵 4 票"),
        ];
        let known: BTreeSet<u64> = [1].into();
        assert_eq!(
            find_reply(&posts, "法官", code, &known).map(|p| p.pid),
            Some(4)
        );
        let known: BTreeSet<u64> = [1, 2, 3, 4].into();
        assert!(find_reply(&posts, "法官", code, &known).is_none());
    }
}
