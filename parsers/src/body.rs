//! Post bodies (HTML as Discuz renders BBCode) to plain text, with quotes, the edit notice and
//! the font facts kept apart. Shared by the desktop and API parsers.
//!
//! The walk is iterative (`traverse` yields open/close edges), so 10,000 nested quotes cost
//! time linear in the input and no stack.

use ego_tree::iter::Edge;
use ego_tree::NodeId;
use regex::Regex;
use scraper::{ElementRef, Node};
use std::sync::LazyLock;

static QUOTE_HEADER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(.*?)\s*发表于\s*(.*?)\s*$").unwrap());
static EDIT_NOTICE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"本帖最后由\s*(.*?)\s*于\s*(.*?)\s*编辑").unwrap());
static PID_IN_HREF: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[?&;]pid=(\d+)").unwrap());
static HEX_COLOR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$").unwrap());
static RGB_COLOR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^rgba?\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})").unwrap());
static CSS_COLOR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)(?:^|;|\s)color\s*:\s*([^;]+)").unwrap());
static CSS_FONT_SIZE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)font-size\s*:\s*([0-9.]+)\s*(px|pt|em|%)?").unwrap());
static CSS_HIDDEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)display\s*:\s*none").unwrap());

/// A quote block before its header is interpreted.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct RawQuote {
    pub header: Option<String>,
    pub pid: Option<u64>,
    pub text: String,
}

impl RawQuote {
    /// The quoted author and the time text from "X 发表于 T".
    pub fn author_and_time(&self) -> (Option<String>, Option<String>) {
        match self
            .header
            .as_deref()
            .and_then(|h| QUOTE_HEADER.captures(h))
        {
            Some(c) => (Some(c[1].to_string()), Some(c[2].to_string())),
            None => (None, None),
        }
    }
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Body {
    pub text: String,
    pub quotes: Vec<RawQuote>,
    /// The edit notice's editor and time text, when the notice was present and readable.
    pub edit: Option<(String, String)>,
    /// The notice was present but did not read as "本帖最后由 X 于 T 编辑".
    pub edit_unreadable: Option<String>,
    pub red_font: bool,
    pub large_font: bool,
    pub hidden_content: bool,
    pub smilies: u32,
    pub images: u32,
}

/// Text being assembled: hard breaks from `<br>`, soft breaks at block boundaries.
#[derive(Default)]
struct Buf(String);

impl Buf {
    fn push(&mut self, s: &str) {
        self.0.push_str(s);
    }
    fn hard_break(&mut self) {
        self.0.push('\n');
    }
    fn soft_break(&mut self) {
        if !self.0.is_empty() && !self.0.ends_with('\n') {
            self.0.push('\n');
        }
    }
}

enum Capture {
    Quote,
    QuoteHeader,
    EditNotice,
}

fn is_block(name: &str) -> bool {
    matches!(
        name,
        "div"
            | "p"
            | "blockquote"
            | "ul"
            | "ol"
            | "li"
            | "table"
            | "tr"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "pre"
            | "dl"
            | "dt"
            | "dd"
            | "hr"
            | "center"
    )
}

fn has_class(el: &scraper::node::Element, class: &str) -> bool {
    el.classes().any(|c| c == class)
}

/// Render the children of `root` (a `td.t_f` or an API message fragment's root).
///
/// `double_escaped`: API v4 escapes text once more than it renders it ("&amp;gt;" for ">");
/// its text nodes are unescaped a second time.
pub(crate) fn render(root: ElementRef<'_>, double_escaped: bool) -> Body {
    let mut body = Body::default();
    let mut main = Buf::default();
    let mut quote_buf = Buf::default();
    let mut header_buf = String::new();
    let mut edit_buf = String::new();
    // (node that opened the capture, what it captures)
    let mut captures: Vec<(NodeId, Capture)> = Vec::new();
    let mut skip: Option<NodeId> = None;
    let mut current_quote: Option<RawQuote> = None;
    let root_id = root.id();

    for edge in root.traverse() {
        match edge {
            Edge::Open(node) => {
                if skip.is_some() || node.id() == root_id {
                    continue;
                }
                let in_quote = current_quote.is_some();
                match node.value() {
                    Node::Text(t) => {
                        let s = text_of(t, double_escaped);
                        match captures.last().map(|c| &c.1) {
                            Some(Capture::QuoteHeader) => header_buf.push_str(&s),
                            Some(Capture::EditNotice) => edit_buf.push_str(&s),
                            Some(Capture::Quote) => quote_buf.push(&s),
                            None => main.push(&s),
                        }
                    }
                    Node::Element(el) => {
                        let name = el.name();
                        if never_text(el) {
                            skip = Some(node.id());
                            continue;
                        }
                        if name == "div" && has_class(el, "locked") {
                            body.hidden_content = true;
                            skip = Some(node.id());
                            continue;
                        }
                        if name == "i" && has_class(el, "pstatus") && !in_quote {
                            captures.push((node.id(), Capture::EditNotice));
                            continue;
                        }
                        let opens_quote = (name == "div"
                            && (has_class(el, "quote") || has_class(el, "reply_wrap")))
                            || name == "blockquote";
                        if opens_quote && !in_quote {
                            main.soft_break();
                            current_quote = Some(RawQuote::default());
                            quote_buf = Buf::default();
                            captures.push((node.id(), Capture::Quote));
                            continue;
                        }
                        if in_quote && name == "a" {
                            let q = current_quote.as_mut().expect("in_quote");
                            let href = el.attr("href").unwrap_or("");
                            // X3.4 writes "引用:" before the header link.
                            let before = quote_buf.0.trim();
                            if q.header.is_none()
                                && href.contains("findpost")
                                && (before.is_empty() || before == "引用:" || before == "引用：")
                            {
                                quote_buf = Buf::default();
                                q.pid = PID_IN_HREF.captures(href).and_then(|c| c[1].parse().ok());
                                header_buf.clear();
                                captures.push((node.id(), Capture::QuoteHeader));
                                continue;
                            }
                        }
                        if name == "br" {
                            match captures.last().map(|c| &c.1) {
                                Some(Capture::Quote) => quote_buf.hard_break(),
                                Some(_) => {}
                                None => main.hard_break(),
                            }
                            continue;
                        }
                        if name == "img" {
                            if !in_quote {
                                count_image(el, &mut body);
                            }
                            continue;
                        }
                        if !in_quote && captures.is_empty() {
                            body.red_font |= is_red(el);
                            body.large_font |= is_large(el);
                        }
                        if is_block(name) {
                            if in_quote {
                                quote_buf.soft_break()
                            } else {
                                main.soft_break()
                            }
                        }
                    }
                    _ => {}
                }
            }
            Edge::Close(node) => {
                if let Some(id) = skip {
                    if id == node.id() {
                        skip = None;
                    }
                    continue;
                }
                if node.id() == root_id {
                    continue;
                }
                if let Some((id, _)) = captures.last() {
                    if *id == node.id() {
                        let (_, what) = captures.pop().expect("non-empty");
                        match what {
                            Capture::Quote => {
                                let mut q = current_quote.take().unwrap_or_default();
                                q.text = clean(&quote_buf.0);
                                body.quotes.push(q);
                                main.soft_break();
                            }
                            Capture::QuoteHeader => {
                                if let Some(q) = current_quote.as_mut() {
                                    q.header = Some(header_buf.trim().to_string());
                                }
                            }
                            Capture::EditNotice => match EDIT_NOTICE.captures(&edit_buf) {
                                Some(c) => body.edit = Some((c[1].to_string(), c[2].to_string())),
                                None => body.edit_unreadable = Some(edit_buf.clone()),
                            },
                        }
                        continue;
                    }
                }
                if let Node::Element(el) = node.value() {
                    if is_block(el.name()) {
                        if current_quote.is_some() {
                            quote_buf.soft_break()
                        } else {
                            main.soft_break()
                        }
                    }
                }
            }
        }
    }
    body.text = clean(&main.0);
    body
}

/// A text node as the body reads it: line breaks of the source dropped (`<br>` makes breaks),
/// API v4's second escaping undone, no-break spaces as spaces.
fn text_of(t: &str, double_escaped: bool) -> String {
    let mut s: String = t.chars().filter(|c| *c != '\n' && *c != '\r').collect();
    if double_escaped && s.contains('&') {
        s = html_escape::decode_html_entities(&s).into_owned();
    }
    s.replace('\u{a0}', " ")
}

/// Elements that are never text: scripts and styles, Discuz's anti-copy jammer, hidden
/// content, the "copy code" link, image tips.
fn never_text(el: &scraper::node::Element) -> bool {
    let name = el.name();
    matches!(name, "script" | "style" | "noscript" | "template")
        || has_class(el, "jammer")
        || CSS_HIDDEN.is_match(el.attr("style").unwrap_or(""))
        || (name == "em" && el.attr("onclick").is_some_and(|o| o.contains("copycode")))
        || has_class(el, "tip")
        || has_class(el, "aimg_tip")
}

/// An image outside quotes: a smiley, or a picture.
fn count_image(el: &scraper::node::Element, body: &mut Body) {
    let src = el.attr("src").unwrap_or("");
    if el.attr("smilieid").is_some() || src.contains("/smiley/") {
        body.smilies += 1;
    } else {
        body.images += 1;
    }
}

/// Trim line breaks at both ends; keep the inner layout and spaces (a judge compares it with
/// what the player typed).
fn clean(s: &str) -> String {
    let s = s.trim_matches(|c| c == '\n' || c == '\r');
    // A body of only whitespace is empty (the template's own spacing).
    if s.trim().is_empty() {
        return String::new();
    }
    s.to_string()
}

fn is_red(el: &scraper::node::Element) -> bool {
    let mut colors: Vec<&str> = Vec::new();
    if el.name() == "font" {
        if let Some(c) = el.attr("color") {
            colors.push(c);
        }
    }
    if let Some(style) = el.attr("style") {
        for c in CSS_COLOR.captures_iter(style) {
            colors.push(c.get(1).map_or("", |m| m.as_str()));
        }
    }
    colors.into_iter().any(color_is_red)
}

/// Red as a judge would see it: the named reds and any colour with a strong red channel and
/// weak green and blue.
pub(crate) fn color_is_red(c: &str) -> bool {
    let c = c.trim().trim_end_matches('!').trim().to_ascii_lowercase();
    if matches!(
        c.as_str(),
        "red" | "darkred" | "crimson" | "firebrick" | "orangered"
    ) {
        return true;
    }
    let (r, g, b) = if let Some(h) = HEX_COLOR.captures(&c) {
        let h = &h[1];
        let v = |s: &str| u8::from_str_radix(s, 16).unwrap_or(0);
        if h.len() == 3 {
            let d = |i: usize| v(&h[i..=i]) * 17;
            (d(0), d(1), d(2))
        } else {
            (v(&h[0..2]), v(&h[2..4]), v(&h[4..6]))
        }
    } else if let Some(m) = RGB_COLOR.captures(&c) {
        let v = |i: usize| m[i].parse::<u16>().unwrap_or(0).min(255) as u8;
        (v(1), v(2), v(3))
    } else {
        return false;
    };
    r >= 0xb0 && g <= 0x60 && b <= 0x60
}

fn is_large(el: &scraper::node::Element) -> bool {
    if el.name() == "font" {
        if let Some(size) = el.attr("size") {
            let size = size.trim();
            if let Some(rel) = size.strip_prefix('+') {
                return rel.parse::<u32>().is_ok_and(|n| n >= 1);
            }
            if let Ok(n) = size.parse::<u32>() {
                return n >= 4;
            }
        }
    }
    if let Some(style) = el.attr("style") {
        if let Some(c) = CSS_FONT_SIZE.captures(style) {
            let v: f32 = c[1].parse().unwrap_or(0.0);
            return match c.get(2).map(|m| m.as_str().to_ascii_lowercase()).as_deref() {
                Some("pt") => v > 12.0,
                Some("em") => v > 1.15,
                Some("%") => v > 115.0,
                _ => v > 16.0,
            };
        }
    }
    false
}

/// The fast path for the commonest message: text and line breaks only (`<br />`), with the
/// entities Discuz writes, and the edit notice (`<i class="pstatus">本帖最后由 … 编辑</i>`) of
/// plain text. Gives exactly what `render` gives for such a message (tested against it on every
/// captured message and on generated ones), without building a DOM; `None` for anything else,
/// which then goes through `render`.
pub(crate) fn render_plain(html: &str, double_escaped: bool) -> Option<Body> {
    const NOTICE: &str = "<i class=\"pstatus\">";
    let mut main = String::with_capacity(html.len());
    let mut body = Body::default();
    // The current text node, its entities decoded (the HTML parser joins them into one node).
    let mut node = String::new();
    let mut rest = html;
    while !rest.is_empty() {
        let cut = rest.find(['<', '&', '\0']).unwrap_or(rest.len());
        node.push_str(&rest[..cut]);
        rest = &rest[cut..];
        if rest.is_empty() {
            break;
        }
        if let Some(r) = rest.strip_prefix(NOTICE) {
            // The notice's text, one text node of its own, read apart from the message. A
            // second notice is the DOM's to read (its formatting rules decide which counts).
            if body.edit.is_some() || body.edit_unreadable.is_some() {
                return None;
            }
            let end = r.find("</i>")?;
            let inner = &r[..end];
            if inner.contains(['<', '\0']) {
                return None;
            }
            let mut notice = String::new();
            let mut text = inner;
            while let Some(a) = text.find('&') {
                notice.push_str(&text[..a]);
                let (c, after) = entity(&text[a..])?;
                notice.push(c);
                text = after;
            }
            notice.push_str(text);
            push_text(&mut main, &node, double_escaped);
            node.clear();
            let mut edit_buf = String::new();
            push_text(&mut edit_buf, &notice, double_escaped);
            match EDIT_NOTICE.captures(&edit_buf) {
                Some(c) => {
                    body.edit = Some((c[1].to_string(), c[2].to_string()));
                    body.edit_unreadable = None;
                }
                None => body.edit_unreadable = Some(edit_buf.clone()),
            }
            rest = &r[end + "</i>".len()..];
            continue;
        }
        if let Some(r) = ["<br />", "<br/>", "<br>"]
            .iter()
            .find_map(|t| rest.strip_prefix(t))
        {
            push_text(&mut main, &node, double_escaped);
            node.clear();
            main.push('\n');
            rest = r;
            continue;
        }
        if !rest.starts_with('&') {
            return None;
        }
        let (decoded, after) = entity(rest)?;
        node.push(decoded);
        rest = after;
    }
    push_text(&mut main, &node, double_escaped);
    body.text = clean(&main);
    Some(body)
}

/// The entity `s` starts with, of those Discuz writes, and what follows it; `None` for any
/// other (the DOM decodes those).
fn entity(s: &str) -> Option<(char, &str)> {
    let end = s.as_bytes()[..s.len().min(12)]
        .iter()
        .position(|b| *b == b';')?;
    let decoded = match &s[1..end] {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "nbsp" => '\u{a0}',
        num if num.starts_with('#') && num.len() > 1 => {
            let n: u32 = num[1..].parse().ok()?;
            // C1 controls and NUL are remapped by the HTML parser: leave those to it.
            if !(0x20..=0x7e).contains(&n) && n < 0xa0 {
                return None;
            }
            char::from_u32(n)?
        }
        _ => return None,
    };
    Some((decoded, &s[end + 1..]))
}

/// A text node as `render` treats it: source line breaks dropped, v4's second escaping undone,
/// no-break spaces as spaces.
fn push_text(main: &mut String, t: &str, double_escaped: bool) {
    if t.is_empty() {
        return;
    }
    let s: String = t.chars().filter(|c| *c != '\n' && *c != '\r').collect();
    let s = if double_escaped && s.contains('&') {
        html_escape::decode_html_entities(&s).into_owned()
    } else {
        s
    };
    main.push_str(&s.replace('\u{a0}', " "));
}

#[cfg(test)]
mod tests {
    use super::*;
    use scraper::Html;

    fn body_of(html: &str, double: bool) -> Body {
        let doc = Html::parse_fragment(&crate::guard::limit_nesting(html));
        render(doc.root_element(), double)
    }

    #[test]
    fn quote_is_kept_apart_with_author_and_pid() {
        let b = body_of(
            r##"<div class="quote"><blockquote><font size="2"><a href="http://x/forum.php?mod=redirect&amp;goto=findpost&amp;pid=38&amp;ptid=3" target="_blank"><font color="#999999">冷雪 发表于 2026-11-28 10:03</font></a></font><br />
投票对象：花千树<br />
投票理由：砍树。</blockquote></div><br />
改票对象：不见<br />
改票理由：突然打居"##,
            false,
        );
        assert_eq!(b.text, "改票对象：不见\n改票理由：突然打居");
        assert_eq!(b.quotes.len(), 1);
        let q = &b.quotes[0];
        assert_eq!(q.pid, Some(38));
        assert_eq!(q.author_and_time().0.as_deref(), Some("冷雪"));
        assert_eq!(q.text, "投票对象：花千树\n投票理由：砍树。");
        assert!(!b.red_font, "the grey quote header is not red");
    }

    #[test]
    fn fonts_smilies_images_and_edit_notice() {
        let b = body_of(
            r#"<i class="pstatus"> 本帖最后由 音乐虫子 于 2026-11-29 21:05 编辑 </i><br />
<br />
投票对象：<strong><font color="red">李逵</font></strong><br />
投票理由：<font size="5">就他了</font><img src="static/image/smiley/default/sweat.gif" smilieid="10" /><img src="a.png" />"#,
            false,
        );
        assert_eq!(b.text, "投票对象：李逵\n投票理由：就他了");
        assert_eq!(
            b.edit,
            Some(("音乐虫子".to_string(), "2026-11-29 21:05".to_string()))
        );
        assert!(b.red_font && b.large_font);
        assert_eq!((b.smilies, b.images), (1, 1));
    }

    #[test]
    fn v4_text_is_unescaped_twice_and_jammer_is_skipped() {
        let b = body_of(
            "a &amp;gt; b &amp;amp;#128514;<font class=\"jammer\">x7</font><span style=\"display:none\">zz</span>",
            true,
        );
        assert_eq!(b.text, "a > b &#128514;");
    }

    #[test]
    fn red_colours() {
        for c in ["red", "#ff0000", "#F00", "rgb(230, 20, 20)", "Crimson"] {
            assert!(color_is_red(c), "{c}");
        }
        for c in ["#999999", "blue", "#ff9900", "brown", "green", "nonsense"] {
            assert!(!color_is_red(c), "{c}");
        }
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let html = "<div class=\"quote\"><blockquote>".repeat(20_000) + "x";
        let b = body_of(&html, false);
        assert_eq!(b.quotes.len(), 1);
    }

    /// Every message of every captured API page: where the fast path applies, it gives what
    /// the DOM path gives; and it applies to most of them.
    #[test]
    fn the_plain_fast_path_equals_the_dom_path_on_captured_messages() {
        let (mut seen, mut fast) = (0, 0);
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
                let Some(html) = post["message"].as_str() else {
                    continue;
                };
                seen += 1;
                if let Some(b) = render_plain(html, double) {
                    fast += 1;
                    assert_eq!(b, body_of(html, double), "{}: {html:?}", p.display());
                }
            }
        }
        assert!(seen > 300, "{seen} messages");
        assert!(fast * 2 > seen, "the fast path takes {fast} of {seen}");
    }

    proptest::proptest! {
        /// Generated messages of text, breaks, entities (valid, unknown, unterminated),
        /// line breaks and stray markup: the fast path, when it answers, agrees with the DOM.
        #[test]
        fn the_plain_fast_path_equals_the_dom_path(
            parts in proptest::collection::vec(proptest::prop_oneof![
                proptest::strategy::Just("<br />".to_string()),
                proptest::strategy::Just("<br>".to_string()),
                proptest::strategy::Just("\r\n".to_string()),
                proptest::strategy::Just("&amp;".to_string()),
                proptest::strategy::Just("&amp;gt;".to_string()),
                proptest::strategy::Just("&nbsp;".to_string()),
                proptest::strategy::Just("&#039;".to_string()),
                proptest::strategy::Just("&#128;".to_string()),
                proptest::strategy::Just("&#x4e00;".to_string()),
                proptest::strategy::Just("&copy;".to_string()),
                proptest::strategy::Just("&amp".to_string()),
                proptest::strategy::Just("<b>".to_string()),
                proptest::strategy::Just(" ".to_string()),
                proptest::strategy::Just("<i class=\"pstatus\"> 本帖最后由 冷雪 于 2026-11-29 21:05 编辑 </i>".to_string()),
                proptest::strategy::Just("<i class=\"pstatus\">本帖最后由 a&amp;b 于 2026-11-29 21:05:07 编辑</i>".to_string()),
                proptest::strategy::Just("<i class=\"pstatus\">编辑过</i>".to_string()),
                proptest::strategy::Just("<i class=\"pstatus\">".to_string()),
                proptest::strategy::Just("</i>".to_string()),
                "[a-z投票对象：冷雪 ]{0,6}",
            ], 0..12),
            double in proptest::bool::ANY,
        ) {
            let html: String = parts.concat();
            if let Some(b) = render_plain(&html, double) {
                proptest::prop_assert_eq!(b, body_of(&html, double), "{:?}", html);
            }
        }
    }
}
