//! A desktop thread page read at its landmarks, without a DOM of the page: the page's facts
//! (subject, canonical link, pager, reply count) and each post's author, uid, floor, time and
//! reply link from the markup around their ids; the body through the strict markup reader
//! (`markup::render`) or, where it cannot vouch for the tree, a DOM of the body alone (as the API's bodies
//! are read). Whatever this reader is not sure of — an anonymous or blocked post, a floor or a
//! time it would warn about, a page fact in an unexpected form — it leaves to the DOM: the post
//! alone (its cut-out markup through `desktop::parse_post`), or the whole page (`None`). The result is
//! the DOM path's on every captured page (`desktop` tests).

use crate::body;
use crate::desktop::{find_lit_from, post_start, td_end};
use crate::model::{Post, TimePrecision, Warning};
use crate::time;
use crate::ParseOptions;
use chrono::{DateTime, FixedOffset};

type Time = DateTime<FixedOffset>;

/// What the page says of itself.
pub(crate) struct Facts {
    pub tid: Option<u64>,
    pub subject: Option<String>,
    pub page: Option<u32>,
    pub last_page: Option<u32>,
    pub replies: Option<u64>,
}

/// A post read at its landmarks, or its chunk of markup for the DOM.
pub(crate) enum Read<'a> {
    Post(Box<Post>),
    Dom(&'a str),
}

/// Text of a markup snippet as the DOM gives it: tags out, entities decoded, no-break spaces
/// as spaces.
fn text(snippet: &str) -> Option<String> {
    let mut out = String::with_capacity(snippet.len());
    let mut rest = snippet;
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        let gt = rest[lt..].find('>')? + lt;
        // A comment or a script would need the DOM's rules.
        if rest[lt..].starts_with("<!")
            || rest[lt + 1..gt].to_ascii_lowercase().starts_with("script")
        {
            return None;
        }
        rest = &rest[gt + 1..];
    }
    out.push_str(rest);
    if out.contains('&') {
        // Discuz writes `&nbsp;` in times; anything else goes through the entity table.
        let cheap = out.replace("&nbsp;", "\u{a0}");
        out = if cheap.contains('&') {
            html_escape::decode_html_entities(&out).into_owned()
        } else {
            cheap
        };
    }
    Some(out.replace('\u{a0}', " "))
}

fn count(hay: &str, needle: &str) -> usize {
    memchr::memmem::find_iter(hay.as_bytes(), needle.as_bytes()).count()
}

/// Where `id="postnum{pid}"`, `id="authorposton{pid}"` and `id="postmessage_{pid}"` occur in
/// `chunk`, each exactly once (one pass over the chunk's `id="`s: every occurrence of those
/// texts starts with one).
fn post_ids(chunk: &str, pid: u64) -> Option<[usize; 3]> {
    static ID: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new("id=\""));
    let pid = pid.to_string();
    let mut found: [Option<usize>; 3] = [None; 3];
    for at in ID.find_iter(chunk.as_bytes()) {
        let rest = &chunk[at + "id=\"".len()..];
        let (k, after) = if let Some(r) = rest.strip_prefix("postnum") {
            (0, r)
        } else if let Some(r) = rest.strip_prefix("authorposton") {
            (1, r)
        } else if let Some(r) = rest.strip_prefix("postmessage_") {
            (2, r)
        } else {
            continue;
        };
        if after
            .strip_prefix(pid.as_str())
            .is_some_and(|r| r.starts_with('"'))
        {
            if found[k].is_some() {
                return None;
            }
            found[k] = Some(at);
        }
    }
    Some([found[0]?, found[1]?, found[2]?])
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Where the value of attribute `name` is in an opening tag: the first ` name="`, as written.
fn attr_span(tag: &str, name: &str) -> Option<(usize, usize)> {
    let b = tag.as_bytes();
    let n = name.as_bytes();
    let a = memchr::memchr_iter(b' ', b)
        .find(|&i| b[i + 1..].starts_with(n) && b[i + 1 + n.len()..].starts_with(b"=\""))?
        + 1
        + n.len()
        + 2;
    let e = memchr::memchr(b'"', &b[a..])? + a;
    Some((a, e))
}

/// The value of attribute `name` in an opening tag, entities decoded.
fn attr(tag: &str, name: &str) -> Option<String> {
    let v = attr_raw(tag, name)?;
    if !v.contains('&') {
        return Some(v.to_string());
    }
    // Links carry `&amp;`; anything else goes through the full entity table.
    let cheap = v.replace("&amp;", "&");
    Some(if cheap.contains('&') {
        html_escape::decode_html_entities(v).into_owned()
    } else {
        cheap
    })
}

/// The value of attribute `name` in an opening tag as written (a link's numbers are read from
/// it as they stand: `&amp;tid=3` and `&tid=3` both say tid 3).
fn attr_raw<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let (a, e) = attr_span(tag, name)?;
    Some(&tag[a..e])
}

/// The opening tag that contains byte `at` (the `<` before it to the `>` after).
fn tag_around(hay: &str, at: usize) -> Option<&str> {
    let a = hay[..at].rfind('<')?;
    let e = find_lit_from!(hay, ">", at)? + 1;
    Some(&hay[a..e])
}

/// The page's facts from the markup above the first post and the head, or `None` where the
/// DOM is needed to be sure.
pub(crate) fn facts(markup: &str) -> Option<Facts> {
    let first = post_start(markup, 0)?;
    let head_end = find_lit_from!(markup, "</head>", 0).filter(|h| *h < first)?;
    // The canonical link (the DOM takes the first `link[rel=canonical]`).
    let mut tid = None;
    let mut from = 0;
    while let Some(l) = find_lit_from!(markup, "<link", from).filter(|l| *l < head_end) {
        let e = find_lit_from!(markup, ">", l)? + 1;
        let tag = &markup[l..e];
        if tag.contains("rel=\"canonical\"") {
            tid = attr(tag, "href").and_then(|h| crate::desktop::tid_in_href(&h));
            break;
        }
        from = e;
    }
    let top = &markup[head_end..first];
    // The subject.
    let subject = match find_lit_from!(top, "<span id=\"thread_subject\">", 0) {
        Some(a) => {
            let a = a + "<span id=\"thread_subject\">".len();
            let e = find_lit_from!(&top[a..], "</span>", 0)? + a;
            if find_lit_from!(&top[a..e], "<", 0).is_some() {
                return None;
            }
            Some(squash(&text(&top[a..e])?))
        }
        None if find_lit_from!(top, "thread_subject", 0).is_some() => return None,
        None => None,
    };
    // The first pager (`div.pg`): its current page, and "共 N 页".
    let (page, last_page) = match find_lit_from!(top, "<div class=\"pg\">", 0) {
        Some(a) => {
            if find_lit_from!(&top[..a], "class=\"pg ", 0).is_some()
                || find_lit_from!(&top[..a], " pg\"", 0).is_some()
            {
                return None;
            }
            let e = find_lit_from!(&top[a..], "</div>", 0)? + a;
            let pg = &top[a..e];
            let current = find_lit_from!(pg, "<strong>", 0).and_then(|s| {
                let s = s + "<strong>".len();
                let t = find_lit_from!(&pg[s..], "</strong>", 0)? + s;
                text(&pg[s..t])?.trim().parse::<u32>().ok()
            });
            let mut last = None;
            let mut from = 0;
            while let Some(t) = find_lit_from!(&pg[from..], "<span title=\"", 0).map(|t| t + from) {
                let tag = tag_around(pg, t + 1)?;
                if let Some(n) = attr(tag, "title").and_then(|v| crate::desktop::page_total(&v)) {
                    last = Some(n);
                    break;
                }
                from = t + 1;
            }
            (current, last.or(current))
        }
        None if find_lit_from!(top, "class=\"pg", 0).is_some() => return None,
        None => (Some(1), Some(1)),
    };
    // The reply count: the second `span.xi1` of `div.hm.ptn`.
    let replies = match find_lit_from!(top, "<div class=\"hm ptn\">", 0) {
        Some(a) => {
            let e = find_lit_from!(&top[a..], "</div>", 0)? + a;
            let hm = &top[a..e];
            let mut spans = hm.match_indices("<span class=\"xi1\">");
            spans.next();
            match spans.next() {
                Some((s, m)) => {
                    let s = s + m.len();
                    let t = find_lit_from!(&hm[s..], "</span>", 0)? + s;
                    text(&hm[s..t])?.trim().parse::<u64>().ok()
                }
                None => None,
            }
        }
        None if find_lit_from!(top, "hm ptn", 0).is_some() => return None,
        None => None,
    };
    Some(Facts {
        tid,
        subject,
        page,
        last_page,
        replies,
    })
}

/// One post's chunk (`<div id="post_N"` to the next) read at its landmarks, or left to the DOM.
pub(crate) fn post<'a>(
    chunk: &'a str,
    page_tid: Option<u64>,
    server_time: Option<Time>,
    opts: &ParseOptions,
) -> Read<'a> {
    read_post(chunk, page_tid, server_time, opts)
        .map(|p| Read::Post(Box::new(p)))
        .unwrap_or(Read::Dom(chunk))
}

fn read_post(
    chunk: &str,
    page_tid: Option<u64>,
    server_time: Option<Time>,
    opts: &ParseOptions,
) -> Option<Post> {
    let t = find_lit_from!(chunk, "<table id=\"pid", 0)?;
    let t_end = find_lit_from!(chunk, "\"", t + "<table id=\"pid".len())?;
    let pid: u64 = chunk[t + "<table id=\"pid".len()..t_end].parse().ok()?;
    // Blocked posts, hidden bodies and anything with a lock notice: the DOM's.
    if find_lit_from!(chunk, "locked", 0).is_some() {
        return None;
    }
    // The author line.
    let a = find_lit_from!(chunk, "<div class=\"authi\">", t_end)?;
    let a_end = find_lit_from!(chunk, "</div>", a)?;
    let authi = &chunk[a..a_end];
    let link = find_lit_from!(authi, "class=\"xw1\"", 0)?;
    let tag = tag_around(authi, link)?;
    if !tag.starts_with("<a ") || count(authi, "class=\"xw1\"") != 1 {
        return None;
    }
    let name_start = authi[..link].rfind('<')? + tag.len();
    let name_end = find_lit_from!(&authi[name_start..], "</a>", 0)? + name_start;
    let author = text(&authi[name_start..name_end])?.trim().to_string();
    let author_uid = attr_raw(tag, "href").and_then(crate::desktop::uid_in_href);
    // Elements with more than one of an id would need the DOM's choice.
    let [n, p, m] = post_ids(chunk, pid)?;
    // The floor.
    let ntag = tag_around(chunk, n)?;
    if !ntag.starts_with("<a ") {
        return None;
    }
    let n_start = chunk[..n].rfind('<')? + ntag.len();
    let n_end = find_lit_from!(chunk, "</a>", n_start)?;
    let floor = squash(&text(&chunk[n_start..n_end])?).replace(' ', "");
    let number = floor
        .strip_suffix('#')
        .and_then(|x| x.parse::<u32>().ok())
        .or_else(|| {
            crate::desktop::FLOOR_NAMES
                .iter()
                .position(|x| *x == floor)
                .map(|i| i as u32 + 1)
        });
    let number = number?;
    let tid = attr_raw(ntag, "href")
        .and_then(crate::desktop::tid_in_href)
        .or(page_tid)
        .unwrap_or(0);
    // The reply link: `reppost=` on the thread's first post.
    // One pass over the chunk's "fastre"s: none, or exactly one that is the reply link.
    let first = {
        static FASTRE: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::Finder::new("fastre"));
        let mut seen = FASTRE.find_iter(chunk.as_bytes());
        match (seen.next(), seen.next()) {
            (None, _) => number == 1 && floor == crate::desktop::FLOOR_NAMES[0],
            (Some(f), None) => {
                const LINK: &str = "<a class=\"fastre\" href=\"";
                let r = f.checked_sub("<a class=\"".len())?;
                if !chunk.as_bytes()[r..].starts_with(LINK.as_bytes()) {
                    return None;
                }
                attr_raw(tag_around(chunk, r + 1)?, "href")?.contains("reppost=")
            }
            (Some(_), Some(_)) => return None,
        }
    };
    // The time: the exact second in the span's title, else the text.
    let ptag = tag_around(chunk, p)?;
    if !ptag.starts_with("<em ") {
        return None;
    }
    let p_start = chunk[..p].rfind('<')? + ptag.len();
    let p_end = find_lit_from!(chunk, "</em>", p_start)?;
    let em = &chunk[p_start..p_end];
    if find_lit_from!(em, "<em", 0).is_some() {
        return None;
    }
    let titled = match find_lit_from!(em, "<span title=\"", 0) {
        Some(s) => {
            if count(em, "title=\"") != 1 {
                return None;
            }
            attr(tag_around(em, s + 1)?, "title")
                .and_then(|v| time::parse_absolute(&v, opts.utc_offset))
        }
        None if find_lit_from!(em, "title=", 0).is_some() => return None,
        None => None,
    };
    let shown = text(em)?;
    let shown = shown.trim().trim_start_matches("发表于").trim();
    let (posted_at, precision): (Time, TimePrecision) = titled
        .or_else(|| time::parse_absolute(shown, opts.utc_offset))
        .or_else(|| server_time.and_then(|now| time::parse_relative(shown, now)))?;
    // The body, when it is plain text.
    let b = chunk[..m].rfind("<td")?;
    if !chunk[b..m].starts_with("<td class=\"t_f\" ") {
        return None;
    }
    let b_open = find_lit_from!(chunk, ">", m)? + 1;
    let b_end = td_end(chunk, b)?;
    let inner = chunk.get(b_open..b_end.checked_sub("</td>".len())?)?;
    // Plain text without a DOM; anything else as the API's bodies are read, from a fragment.
    let rendered = match crate::markup::render(inner, false) {
        Some(b) => b,
        None => {
            let frag = scraper::Html::parse_fragment(&crate::guard::limit_nesting(inner));
            body::render(frag.root_element(), false)
        }
    };
    let mut post = Post::text_only(pid, tid, floor, author, Some(posted_at), String::new());
    post.first = first;
    post.number = Some(number);
    post.author_uid = author_uid;
    post.posted_at_precision = precision;
    let mut warnings: Vec<Warning> = Vec::new();
    crate::desktop::apply_body(&mut post, rendered, opts, &mut warnings);
    warnings.is_empty().then_some(post)
}
