//! A strict reader for the markup Discuz writes in a message (`<br />`, quotes, fonts, links,
//! smilies, lists, the edit notice) that feeds the body renderer without a DOM.
//!
//! It takes only markup whose tree an HTML parser builds exactly as written: known elements,
//! each closed by its own end tag (or, for `<li>`, by the next `<li>` or the list's end, as
//! Discuz leaves them), no `<a>` in an `<a>`, no `<p>`, tables, comments, raw `\r` or `\0`
//! inside tags, and only the character references the DOM would decode the same way. Anything
//! else is `None`, and the message goes through the DOM (`body::render`), so the result is
//! always the DOM's: tested on every captured message and on generated ones.

use crate::body::{entity, Body, Renderer, Step, Tag};
use std::borrow::Cow;

/// Deeper markup goes to the DOM (real messages nest a handful deep; `guard::MAX_DEPTH` is
/// far above this, so the DOM path never sees this markup cut).
const MAX_DEPTH: usize = 64;

/// Elements the HTML tree builder inserts as written when their end tags match.
fn container(name: &str) -> bool {
    matches!(
        name,
        "div"
            | "span"
            | "font"
            | "a"
            | "strong"
            | "b"
            | "i"
            | "u"
            | "em"
            | "strike"
            | "s"
            | "blockquote"
            | "ul"
            | "ol"
            | "li"
            | "center"
            | "sup"
            | "sub"
            | "small"
            | "big"
            | "ignore_js_op"
    )
}

fn void(name: &str) -> bool {
    matches!(name, "br" | "img" | "hr")
}

/// A start tag taken apart: its name and attributes (the first of a repeated name counts, as
/// in the DOM).
struct Open<'a> {
    name: &'a str,
    attrs: Vec<(&'a str, Cow<'a, str>)>,
}

impl Tag for Open<'_> {
    fn name(&self) -> &str {
        self.name
    }
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_ref())
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0c')
}

/// The name at `i` (lowercase ASCII letters, digits and `_`, starting with a letter) and where
/// it ends; `None` for any other.
fn name_at(html: &str, i: usize) -> Option<(&str, usize)> {
    let b = html.as_bytes();
    if !b.get(i)?.is_ascii_lowercase() {
        return None;
    }
    let mut e = i;
    while e < b.len() && (b[e].is_ascii_lowercase() || b[e].is_ascii_digit() || b[e] == b'_') {
        e += 1;
    }
    match b.get(e) {
        Some(c) if is_space(*c) || *c == b'/' || *c == b'>' || *c == b'=' => Some((&html[i..e], e)),
        _ => None,
    }
}

/// An attribute value (between its quotes) decoded as the DOM decodes it, or `None` where the
/// DOM's rules for a reference without `;` would be needed.
fn attr_value(v: &str) -> Option<Cow<'_, str>> {
    if !v.contains('&') {
        return Some(Cow::Borrowed(v));
    }
    let mut out = String::with_capacity(v.len());
    let mut rest = v;
    while let Some(a) = rest.find('&') {
        out.push_str(&rest[..a]);
        rest = &rest[a..];
        if let Some((c, after)) = entity(rest) {
            out.push(c);
            rest = after;
            continue;
        }
        // `&name=` is kept as written in an attribute (a link's `&goto=`), and so is an `&`
        // before a space; a reference that might be decoded is the DOM's.
        let run = rest[1..]
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        match rest.as_bytes().get(1 + run) {
            Some(b'=') if run > 0 => {}
            Some(c) if run == 0 && is_space(*c) => {}
            _ => return None,
        }
        out.push('&');
        rest = &rest[1..];
    }
    out.push_str(rest);
    Some(Cow::Owned(out))
}

/// The start tag at `i` (just past `<`): the element and where the tag ends, and whether it
/// closed itself (`/>`).
fn start_tag(html: &str, i: usize) -> Option<(Open<'_>, usize, bool)> {
    let b = html.as_bytes();
    let (name, mut j) = name_at(html, i)?;
    let mut attrs = Vec::new();
    loop {
        while j < b.len() && is_space(b[j]) {
            j += 1;
        }
        match b.get(j)? {
            b'>' => return Some((Open { name, attrs }, j + 1, false)),
            b'/' => {
                return (b.get(j + 1) == Some(&b'>')).then_some((Open { name, attrs }, j + 2, true))
            }
            _ => {}
        }
        let (key, e) = name_at(html, j).or_else(|| {
            // Attribute names may carry `-` and `:` (`data-x`, `xml:lang`).
            let mut e = j;
            while e < b.len()
                && (b[e].is_ascii_lowercase() || b[e].is_ascii_digit() || b"-_:".contains(&b[e]))
            {
                e += 1;
            }
            (e > j && matches!(b.get(e), Some(c) if is_space(*c) || b"/>=".contains(c)))
                .then(|| (&html[j..e], e))
        })?;
        j = e;
        while j < b.len() && is_space(b[j]) {
            j += 1;
        }
        if b.get(j) != Some(&b'=') {
            attrs.push((key, Cow::Borrowed("")));
            continue;
        }
        j += 1;
        while j < b.len() && is_space(b[j]) {
            j += 1;
        }
        let quote = *b.get(j)?;
        if quote != b'"' && quote != b'\'' {
            return None;
        }
        let end = memchr::memchr(quote, &b[j + 1..])? + j + 1;
        let raw = &html[j + 1..end];
        if raw.contains(['\r', '\0']) {
            return None;
        }
        attrs.push((key, attr_value(raw)?));
        j = end + 1;
        // The next attribute must be apart from this one.
        match b.get(j)? {
            c if is_space(*c) || *c == b'/' || *c == b'>' => {}
            _ => return None,
        }
    }
}

/// The reader's state: the open elements and the renderer they feed.
struct Reader<'a> {
    r: Renderer,
    stack: Vec<&'a str>,
    /// The depth of an element the renderer passes over: nothing under it reaches it.
    skip_at: Option<usize>,
}

impl<'a> Reader<'a> {
    fn text(&mut self, t: &str) {
        if !t.is_empty() && self.skip_at.is_none() {
            self.r.text(t);
        }
    }

    fn open(&mut self, el: &Open<'a>) {
        if self.skip_at.is_none() && self.r.open(el) == Step::Skip {
            self.skip_at = Some(self.stack.len());
        }
        self.stack.push(el.name);
    }

    fn pop(&mut self) {
        let Some(name) = self.stack.pop() else {
            return;
        };
        match self.skip_at {
            Some(d) if d == self.stack.len() => self.skip_at = None,
            Some(_) => {}
            None => self.r.close(name),
        }
    }

    fn top(&self) -> Option<&'a str> {
        self.stack.last().copied()
    }

    /// A start tag: `None` where the tree would not be the markup as written.
    fn start(&mut self, el: Open<'a>, self_closing: bool) -> Option<()> {
        let name = el.name;
        if void(name) {
            if self.skip_at.is_none() && self.r.open(&el) == Step::Descend {
                self.r.close(name);
            }
            return Some(());
        }
        if self_closing || !container(name) || self.stack.len() >= MAX_DEPTH {
            return None;
        }
        // An `<a>` in an `<a>` is the adoption agency's.
        if name == "a" && self.stack.contains(&"a") {
            return None;
        }
        if name == "li" {
            // The previous item ends here, as the tree builder ends it when it is the
            // current element.
            if self.top() == Some("li") {
                self.pop();
            }
            if !matches!(self.top(), Some("ul" | "ol")) {
                return None;
            }
        }
        self.open(&el);
        Some(())
    }

    /// An end tag: it must close the current element (or an item and its list).
    fn end(&mut self, name: &str) -> Option<()> {
        if self.top() == Some("li") && matches!(name, "ul" | "ol") {
            self.pop();
        }
        if self.top() != Some(name) {
            return None;
        }
        self.pop();
        Some(())
    }
}

/// The body of message markup `html`, as `body::render` gives it from the DOM, or `None`
/// where this reader cannot be sure of the tree.
pub(crate) fn render(html: &str, double_escaped: bool) -> Option<Body> {
    let b = html.as_bytes();
    let mut rd = Reader {
        r: Renderer::new(double_escaped),
        stack: Vec::new(),
        skip_at: None,
    };
    // The current text node, its references decoded (the parser joins them into one node).
    let mut node = String::new();
    let mut i = 0;
    loop {
        let Some(j) = memchr::memchr3(b'<', b'&', b'\0', &b[i..]).map(|x| x + i) else {
            node.push_str(&html[i..]);
            break;
        };
        node.push_str(&html[i..j]);
        match b[j] {
            b'&' => {
                if let Some((c, after)) = entity(&html[j..]) {
                    node.push(c);
                    i = html.len() - after.len();
                } else {
                    // A bare `&` is text; one that starts a reference is the DOM's to decode.
                    match b.get(j + 1) {
                        Some(c) if c.is_ascii_alphanumeric() || *c == b'#' => return None,
                        _ => node.push('&'),
                    }
                    i = j + 1;
                }
            }
            b'<' => match b.get(j + 1) {
                Some(b'/') => {
                    let (name, e) = name_at(html, j + 2)?;
                    let mut e = e;
                    while e < b.len() && is_space(b[e]) {
                        e += 1;
                    }
                    if b.get(e) != Some(&b'>') {
                        return None;
                    }
                    rd.text(&node);
                    node.clear();
                    rd.end(name)?;
                    i = e + 1;
                }
                Some(c) if c.is_ascii_alphabetic() || *c == b'!' || *c == b'?' => {
                    let (el, e, self_closing) = start_tag(html, j + 1)?;
                    if html[j..e].contains('\r') {
                        return None;
                    }
                    rd.text(&node);
                    node.clear();
                    rd.start(el, self_closing)?;
                    i = e;
                }
                // `<` before anything else is text.
                _ => {
                    node.push('<');
                    i = j + 1;
                }
            },
            _ => return None,
        }
    }
    rd.text(&node);
    // What is still open closes at the end, as the parser leaves it.
    while !rd.stack.is_empty() {
        rd.pop();
    }
    Some(rd.r.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn dom(html: &str, double: bool) -> Body {
        let doc = scraper::Html::parse_fragment(&crate::guard::limit_nesting(html));
        crate::body::render(doc.root_element(), double)
    }

    /// Every message of the captured pages: each API answer's, and each desktop post's body
    /// (`td.t_f`'s markup). Where this reader answers it gives what the DOM gives.
    fn captured_messages() -> Vec<(String, bool)> {
        let mut out = Vec::new();
        for p in crate::fixture_files(&["json"]) {
            let Ok(v) = serde_json::from_slice::<serde_json::Value>(&std::fs::read(&p).unwrap())
            else {
                continue;
            };
            let double = v["Version"].as_str().and_then(|s| s.parse::<u32>().ok()) >= Some(4);
            let list = match &v["Variables"]["postlist"] {
                serde_json::Value::Array(a) => a.clone(),
                serde_json::Value::Object(o) => o.values().cloned().collect(),
                _ => continue,
            };
            for post in list {
                if let Some(html) = post["message"].as_str() {
                    out.push((html.to_string(), double));
                }
            }
        }
        for p in crate::fixture_files(&["html"]) {
            let raw = std::fs::read(&p).unwrap();
            let page = crate::decode(&raw, None).text;
            let mut from = 0;
            while let Some(a) = crate::desktop::find_from(&page, "<td class=\"t_f\"", from) {
                let Some(open) = crate::desktop::find_from(&page, ">", a) else {
                    break;
                };
                let Some(end) = crate::desktop::td_end(&page, a) else {
                    break;
                };
                out.push((page[open + 1..end - "</td>".len()].to_string(), false));
                from = end;
            }
        }
        out
    }

    #[test]
    fn the_reader_equals_the_dom_on_every_captured_message() {
        let all = captured_messages();
        let mut fast = 0;
        for (html, double) in &all {
            if let Some(b) = render(html, *double) {
                fast += 1;
                assert_eq!(b, dom(html, *double), "{html:?}");
            }
        }
        eprintln!("the reader takes {fast} of {} messages", all.len());
        assert!(all.len() > 600, "{} messages", all.len());
        assert!(
            fast * 10 >= all.len() * 9,
            "the reader takes {fast} of {}",
            all.len()
        );
    }

    #[test]
    fn markup_it_cannot_vouch_for_goes_to_the_dom() {
        for html in [
            "<a href=\"x\">a<a href=\"y\">b</a></a>",
            "<p>x<div>y</div>",
            "<div>x</span></div>",
            "<table><tr><td>x</td></tr></table>",
            "a<!-- c -->b",
            "<DIV>x</DIV>",
            "<font color=red>x</font>",
            "&copy; &notit=",
            "<div/>x",
            "<li>x",
            "x\0y",
        ] {
            assert!(render(html, false).is_none(), "{html:?}");
        }
        // Text the parser reads as text.
        let b = render("a < b & c <3 x", false).unwrap();
        assert_eq!(b, dom("a < b & c <3 x", false));
        assert_eq!(b.text, "a < b & c <3 x");
    }

    const PIECES: &[&str] = &[
        "<br />",
        "<br>",
        "\r\n",
        "\n",
        " ",
        "&amp;",
        "&amp;gt;",
        "&nbsp;",
        "&#039;",
        "&#128;",
        "&copy;",
        "&amp",
        "& ",
        "<",
        "<3",
        "<div class=\"quote\"><blockquote>",
        "</blockquote></div>",
        "<blockquote>",
        "</blockquote>",
        "<a href=\"http://x/forum.php?mod=redirect&amp;goto=findpost&amp;pid=38&amp;ptid=3\" target=\"_blank\">",
        "<a href=\"forum.php?mod=redirect&goto=findpost&pid=7\">",
        "<a href=\"home.php?mod=space&amp;uid=3\">",
        "</a>",
        "<font color=\"#999999\">",
        "<font color=\"red\">",
        "<font size=\"5\">",
        "<font style=\"color: rgb(255, 0, 0)\">",
        "</font>",
        "<strong>",
        "</strong>",
        "<i class=\"pstatus\"> 本帖最后由 冷雪 于 2026-11-29 21:05 编辑 </i>",
        "<i class=\"pstatus\">",
        "</i>",
        "<ul type=\"1\" class=\"litype_1\">",
        "<ol>",
        "<li>",
        "</li>",
        "</ul>",
        "</ol>",
        "<div class=\"locked\">",
        "<div>",
        "</div>",
        "<span style=\"display:none\">",
        "<font class=\"jammer\">",
        "</span>",
        "<img src=\"static/image/smiley/default/sweat.gif\" smilieid=\"10\" border=\"0\" alt=\"\" />",
        "<img src=\"a.png\">",
        "<hr>",
        "<p>",
        "<b/>",
        "<u>",
        "</u>",
        "引用:",
        "冷雪 发表于 2026-11-28 10:03",
        "投票对象：李逵",
    ];

    proptest! {
        /// Generated messages of the markup Discuz writes, misnested and cut short as well:
        /// whenever the reader answers, it agrees with the DOM.
        #[test]
        fn the_reader_equals_the_dom_on_generated_markup(
            parts in proptest::collection::vec(0..PIECES.len(), 0..24),
            double in proptest::bool::ANY,
        ) {
            let html: String = parts.iter().map(|i| PIECES[*i]).collect();
            if let Some(b) = render(&html, double) {
                prop_assert_eq!(b, dom(&html, double), "{:?}", html);
            }
        }
    }

    const LEAVES: &[&str] = &[
        "<br />",
        "\r\n",
        " ",
        "&amp;",
        "&amp;gt;",
        "&nbsp;",
        "&#039;",
        "& ",
        "<3",
        "<img src=\"static/image/smiley/default/sweat.gif\" smilieid=\"10\" border=\"0\" alt=\"\" />",
        "<img src=\"a.png\">",
        "<hr>",
        "引用:",
        "冷雪 发表于 2026-11-28 10:03",
        "本帖最后由 冷雪 于 2026-11-29 21:05 编辑",
        "投票对象：李逵",
        "改票理由：",
    ];

    /// Elements (opening and closing tag) for the balanced trees below.
    const ELEMENTS: &[(&str, &str)] = &[
        ("<div class=\"quote\"><blockquote>", "</blockquote></div>"),
        ("<blockquote>", "</blockquote>"),
        ("<a href=\"forum.php?mod=redirect&amp;goto=findpost&amp;pid=38&amp;ptid=3\" target=\"_blank\">", "</a>"),
        ("<a href=\"home.php?mod=space&uid=3\">", "</a>"),
        ("<font color=\"#999999\">", "</font>"),
        ("<font color=\"red\">", "</font>"),
        ("<font size=\"+2\">", "</font>"),
        ("<span style=\"font-size: 18px\">", "</span>"),
        ("<span style=\"display: none\">", "</span>"),
        ("<font class=\"jammer\">", "</font>"),
        // Classes split at ASCII whitespace only, as the DOM splits them.
        ("<font class=\"jammer\u{3000}\">", "</font>"),
        ("<i class=\"pstatus\u{a0}x\">", "</i>"),
        ("<strong>", "</strong>"),
        ("<i class=\"pstatus\">", "</i>"),
        ("<i>", "</i>"),
        ("<div class=\"locked\">", "</div>"),
        ("<div align=\"center\">", "</div>"),
        ("<div class=\"reply_wrap\">", "</div>"),
        ("<ul>", "</ul>"),
        ("<ol type=\"1\">", "</ol>"),
        ("<center>", "</center>"),
        ("<ignore_js_op>", "</ignore_js_op>"),
    ];

    fn tree() -> impl Strategy<Value = String> {
        // Mostly what the reader takes, now and then a piece it may not.
        let leaf = prop_oneof![
            12 => proptest::sample::select(LEAVES.to_vec()).prop_map(str::to_string),
            1 => proptest::sample::select(PIECES.to_vec()).prop_map(str::to_string),
        ];
        leaf.prop_recursive(6, 160, 8, |inner| {
            (
                0..ELEMENTS.len(),
                proptest::collection::vec(inner, 0..6),
                proptest::bool::ANY,
            )
                .prop_map(|(e, kids, items)| {
                    let (open, close) = ELEMENTS[e];
                    let sep = if items && (open.starts_with("<ul") || open.starts_with("<ol")) {
                        "<li>"
                    } else {
                        ""
                    };
                    let mut s = open.to_string();
                    for k in kids {
                        s.push_str(sep);
                        s.push_str(&k);
                    }
                    s.push_str(close);
                    s
                })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Generated trees of the elements Discuz writes (lists with open `<li>`s, quotes in
        /// quotes, hidden and jammed text, notices) with the pieces above as leaves: whenever
        /// the reader answers, it agrees with the DOM.
        #[test]
        fn the_reader_equals_the_dom_on_generated_trees(
            parts in proptest::collection::vec(tree(), 1..4),
            double in proptest::bool::ANY,
        ) {
            let html: String = parts.concat();
            if let Some(b) = render(&html, double) {
                prop_assert_eq!(b, dom(&html, double), "{:?}", html);
            }
        }
    }
}
