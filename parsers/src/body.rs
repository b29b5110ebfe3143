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

/// An element as the renderer reads it: a DOM element, or a tag the fast reader
/// (`crate::markup`) took apart.
pub(crate) trait Tag {
    fn name(&self) -> &str;
    fn attr(&self, name: &str) -> Option<&str>;
    /// The class list as the DOM splits it (scraper: at ASCII whitespace only).
    fn has_class(&self, class: &str) -> bool {
        self.attr("class")
            .is_some_and(|c| c.split_ascii_whitespace().any(|x| x == class))
    }
}

impl Tag for scraper::node::Element {
    fn name(&self) -> &str {
        scraper::node::Element::name(self)
    }
    fn attr(&self, name: &str) -> Option<&str> {
        scraper::node::Element::attr(self, name)
    }
    fn has_class(&self, class: &str) -> bool {
        self.classes().any(|c| c == class)
    }
}

/// What the reader does with an element's content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Read it; `close` follows.
    Descend,
    /// Pass over it (never text, hidden): no text, no `close`.
    Skip,
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

/// A message rendered from a stream of elements opening and closing and text between them,
/// in document order: what a walk of the DOM gives, or the fast reader's tags. One renderer,
/// so both readers give the same body for the same tree.
pub(crate) struct Renderer {
    body: Body,
    main: Buf,
    quote_buf: Buf,
    header_buf: String,
    edit_buf: String,
    /// (depth of the element that opened the capture, what it captures)
    captures: Vec<(usize, Capture)>,
    current_quote: Option<RawQuote>,
    depth: usize,
    double_escaped: bool,
}

impl Renderer {
    /// `double_escaped`: API v4 escapes text once more than it renders it ("&amp;gt;" for
    /// ">"); its text nodes are unescaped a second time.
    pub(crate) fn new(double_escaped: bool) -> Self {
        Renderer {
            body: Body::default(),
            main: Buf::default(),
            quote_buf: Buf::default(),
            header_buf: String::new(),
            edit_buf: String::new(),
            captures: Vec::new(),
            current_quote: None,
            depth: 0,
            double_escaped,
        }
    }

    /// One text node (the whole run of text between two tags, entities decoded).
    pub(crate) fn text(&mut self, t: &str) {
        let out = match self.captures.last().map(|c| &c.1) {
            Some(Capture::QuoteHeader) => &mut self.header_buf,
            Some(Capture::EditNotice) => &mut self.edit_buf,
            Some(Capture::Quote) => &mut self.quote_buf.0,
            None => &mut self.main.0,
        };
        if self.double_escaped && t.contains('&') {
            out.push_str(&text_of(t, true));
        } else {
            push_plain(out, t);
        }
    }

    /// An element opens; `Step::Descend` means `close` follows its content.
    pub(crate) fn open(&mut self, el: &(impl Tag + ?Sized)) -> Step {
        let name = el.name();
        if never_text(el) {
            return Step::Skip;
        }
        if name == "div" && el.has_class("locked") {
            self.body.hidden_content = true;
            return Step::Skip;
        }
        self.depth += 1;
        let in_quote = self.current_quote.is_some();
        if name == "i" && el.has_class("pstatus") && !in_quote {
            self.captures.push((self.depth, Capture::EditNotice));
            return Step::Descend;
        }
        let opens_quote = (name == "div" && (el.has_class("quote") || el.has_class("reply_wrap")))
            || name == "blockquote";
        if opens_quote && !in_quote {
            self.main.soft_break();
            self.current_quote = Some(RawQuote::default());
            self.quote_buf = Buf::default();
            self.captures.push((self.depth, Capture::Quote));
            return Step::Descend;
        }
        if in_quote && name == "a" {
            let q = self.current_quote.as_mut().expect("in_quote");
            let href = el.attr("href").unwrap_or("");
            // X3.4 writes "引用:" before the header link.
            let before = self.quote_buf.0.trim();
            if q.header.is_none()
                && href.contains("findpost")
                && (before.is_empty() || before == "引用:" || before == "引用：")
            {
                self.quote_buf = Buf::default();
                q.pid = PID_IN_HREF.captures(href).and_then(|c| c[1].parse().ok());
                self.header_buf.clear();
                self.captures.push((self.depth, Capture::QuoteHeader));
                return Step::Descend;
            }
        }
        if name == "br" {
            match self.captures.last().map(|c| &c.1) {
                Some(Capture::Quote) => self.quote_buf.hard_break(),
                Some(_) => {}
                None => self.main.hard_break(),
            }
            return Step::Descend;
        }
        if name == "img" {
            if !in_quote {
                count_image(el, &mut self.body);
            }
            return Step::Descend;
        }
        if !in_quote && self.captures.is_empty() {
            self.body.red_font |= is_red(el);
            self.body.large_font |= is_large(el);
        }
        if is_block(name) {
            self.soft_break();
        }
        Step::Descend
    }

    fn soft_break(&mut self) {
        if self.current_quote.is_some() {
            self.quote_buf.soft_break()
        } else {
            self.main.soft_break()
        }
    }

    /// The element `open` descended into closes.
    pub(crate) fn close(&mut self, name: &str) {
        let depth = self.depth;
        self.depth = self.depth.saturating_sub(1);
        if self.captures.last().is_some_and(|c| c.0 == depth) {
            let (_, what) = self.captures.pop().expect("non-empty");
            match what {
                Capture::Quote => {
                    let mut q = self.current_quote.take().unwrap_or_default();
                    q.text = clean(&self.quote_buf.0);
                    self.body.quotes.push(q);
                    self.main.soft_break();
                }
                Capture::QuoteHeader => {
                    if let Some(q) = self.current_quote.as_mut() {
                        q.header = Some(self.header_buf.trim().to_string());
                    }
                }
                Capture::EditNotice => match EDIT_NOTICE.captures(&self.edit_buf) {
                    Some(c) => self.body.edit = Some((c[1].to_string(), c[2].to_string())),
                    None => self.body.edit_unreadable = Some(self.edit_buf.clone()),
                },
            }
            return;
        }
        if is_block(name) {
            self.soft_break();
        }
    }

    pub(crate) fn finish(mut self) -> Body {
        self.body.text = clean(&self.main.0);
        self.body
    }
}

/// Render the children of `root` (a `td.t_f` or an API message fragment's root).
///
/// `double_escaped`: API v4 escapes text once more than it renders it ("&amp;gt;" for ">");
/// its text nodes are unescaped a second time.
pub(crate) fn render(root: ElementRef<'_>, double_escaped: bool) -> Body {
    let mut r = Renderer::new(double_escaped);
    let mut skip: Option<NodeId> = None;
    let root_id = root.id();
    for edge in root.traverse() {
        match edge {
            Edge::Open(node) => {
                if skip.is_some() || node.id() == root_id {
                    continue;
                }
                match node.value() {
                    Node::Text(t) => r.text(t),
                    Node::Element(el) if r.open(el) == Step::Skip => skip = Some(node.id()),
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
                if let Node::Element(el) = node.value() {
                    r.close(el.name());
                }
            }
        }
    }
    r.finish()
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

/// `text_of(t, false)` appended to `out` without a copy of its own.
fn push_plain(out: &mut String, t: &str) {
    let b = t.as_bytes();
    let mut from = 0;
    // Line breaks go, no-break spaces (UTF-8 C2 A0) become spaces.
    for i in memchr::memchr3_iter(b'\n', b'\r', 0xc2, b) {
        if b[i] == 0xc2 && b.get(i + 1) != Some(&0xa0) {
            continue;
        }
        out.push_str(&t[from..i]);
        if b[i] == 0xc2 {
            out.push(' ');
            from = i + 2;
        } else {
            from = i + 1;
        }
    }
    out.push_str(&t[from..]);
}

/// Elements that are never text: scripts and styles, Discuz's anti-copy jammer, hidden
/// content, the "copy code" link, image tips.
fn never_text(el: &(impl Tag + ?Sized)) -> bool {
    let name = el.name();
    matches!(name, "script" | "style" | "noscript" | "template")
        || el.has_class("jammer")
        || el.attr("style").is_some_and(|s| CSS_HIDDEN.is_match(s))
        || (name == "em" && el.attr("onclick").is_some_and(|o| o.contains("copycode")))
        || el.has_class("tip")
        || el.has_class("aimg_tip")
}

/// An image outside quotes: a smiley, or a picture.
fn count_image(el: &(impl Tag + ?Sized), body: &mut Body) {
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

fn is_red(el: &(impl Tag + ?Sized)) -> bool {
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

fn is_large(el: &(impl Tag + ?Sized)) -> bool {
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

/// The entity `s` starts with, of those Discuz writes, and what follows it; `None` for any
/// other (the DOM decodes those).
pub(crate) fn entity(s: &str) -> Option<(char, &str)> {
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
}
