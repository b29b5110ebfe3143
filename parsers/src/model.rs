use chrono::{DateTime, FixedOffset};
use serde::Serialize;

/// What the parser needs to know about the forum. No clock: times on the page are absolute or
/// relative to the server time the page itself prints.
#[derive(Debug, Clone)]
pub struct ParseOptions {
    /// The forum's time zone. Discuz stores it as a fixed hour offset (`timeoffset`), so a
    /// fixed offset is exact; the default is +08:00 (Beijing).
    pub utc_offset: FixedOffset,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            utc_offset: FixedOffset::east_opt(8 * 3600).expect("+08:00 is a valid offset"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PageSource {
    /// `forum.php?mod=viewthread` desktop HTML (or its `inajax=1` XML wrapper).
    Desktop,
    /// `api/mobile/index.php?module=viewthread` JSON.
    Api,
}

/// How exact a time taken from a page is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimePrecision {
    Second,
    Minute,
    /// Resolved from relative text such as "3 小时前" against the page's footer time.
    Hour,
    Day,
}

/// One page of a thread, as the forum showed it.
#[derive(Debug, Clone, Serialize)]
pub struct ThreadPage {
    pub source: PageSource,
    /// API version (1–4) for API pages.
    pub api_version: Option<u32>,
    /// The encoding the bytes were decoded with.
    pub charset: String,
    pub tid: Option<u64>,
    pub subject: Option<String>,
    /// Current page number, when the page says (desktop pager; the API does not say).
    pub page: Option<u32>,
    /// Last page number: the desktop pager, or derived from the API's reply count and `ppp`.
    pub last_page: Option<u32>,
    /// Reply count (posts minus the first) as the forum reports it.
    pub replies: Option<u64>,
    pub posts_per_page: Option<u32>,
    /// The server time printed in the desktop footer ("GMT+8, 2026-11-29 21:18").
    pub server_time: Option<DateTime<FixedOffset>>,
    /// The HTML ended before `</html>`: the page was cut off in transit. The last post on it
    /// is left out (it may be cut); the others are whole.
    pub truncated: bool,
    pub posts: Vec<Post>,
    pub warnings: Vec<Warning>,
}

/// One post, as shown. Hidden posts (deleted, in the recycle bin, awaiting moderation) are not
/// on the page at all; blocked (屏蔽) posts are, with `blocked` set and no text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Post {
    pub pid: u64,
    pub tid: u64,
    /// The floor label as shown: 楼主, 沙发, 板凳, 地板, then `N#`. Empty when the page shows
    /// none (pages served to bot User-Agents).
    pub floor: String,
    /// The running count behind the floor label. It drifts from `position` once a post has
    /// been deleted.
    pub number: Option<u32>,
    /// The stored position (API v4 only); `None` where the source does not give it.
    pub position: Option<u32>,
    /// The thread's first post (楼主).
    pub first: bool,
    pub author: String,
    /// `None` for anonymous posts and when the page does not link the author.
    pub author_uid: Option<u64>,
    pub posted_at: Option<DateTime<FixedOffset>>,
    pub posted_at_precision: TimePrecision,
    /// From the notice "本帖最后由 X 于 T 编辑" (to the minute). Discuz shows only the last
    /// edit and none for edits within 60 s or by admins.
    pub edited_at: Option<DateTime<FixedOffset>>,
    pub edited_by: Option<String>,
    /// The body as plain text, quote blocks and the edit notice taken out.
    pub text: String,
    pub quotes: Vec<Quote>,
    /// Red font used anywhere in the body (outside quotes).
    pub red_font: bool,
    /// Enlarged font (`[size]` above the default) used anywhere in the body (outside quotes).
    pub large_font: bool,
    /// Blocked by a moderator (屏蔽): the forum shows a notice instead of the body.
    pub blocked: bool,
    /// The body contains content hidden from this viewer (`[hide]`, purchase, login).
    pub hidden_content: bool,
    /// Smilies (表情) in the body; they are not part of `text`.
    pub smilies: u32,
    /// Images other than smilies; not part of `text`.
    pub images: u32,
}

impl Post {
    /// A post that is only its text: by `author` at `posted_at` (to the second), no quotes,
    /// fonts, images or edit notice. For ballots that are not thread posts (private messages)
    /// and posts a judge types to try the rules; the desktop readers start from it and add what
    /// they read.
    pub fn text_only(
        pid: u64,
        tid: u64,
        floor: String,
        author: String,
        posted_at: Option<DateTime<FixedOffset>>,
        text: String,
    ) -> Post {
        Post {
            pid,
            tid,
            floor,
            number: None,
            position: None,
            first: false,
            author,
            author_uid: None,
            posted_at,
            posted_at_precision: TimePrecision::Second,
            edited_at: None,
            edited_by: None,
            text,
            quotes: Vec::new(),
            red_font: false,
            large_font: false,
            blocked: false,
            hidden_content: false,
            smilies: 0,
            images: 0,
        }
    }
}

/// A quote block (`[quote]`), kept apart from the post's own text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Quote {
    /// The quoted author, from the "X 发表于 T" header the quote button writes; `None` for a
    /// hand-typed `[quote]`.
    pub author: Option<String>,
    /// The quoted post, from the header's `findpost` link.
    pub pid: Option<u64>,
    /// The quoted post's time as the header shows it (to the minute).
    pub posted_at: Option<DateTime<FixedOffset>>,
    /// The quoted excerpt (the forum cuts it to about 100 characters).
    pub text: String,
}

/// Something the parser met and could not fully understand. It still returned everything else.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    pub pid: Option<u64>,
    pub kind: WarningKind,
    /// The offending data, verbatim (cut to 200 characters).
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// The charset label was unknown, or bytes were invalid in it and were replaced.
    Charset,
    /// A post's time could not be read.
    Time,
    /// A post's author could not be read.
    Author,
    /// A post without a readable pid was skipped.
    PostId,
    /// A post's floor label could not be read.
    Floor,
    /// The edit notice could not be read.
    EditNotice,
    /// A field of the API JSON had an unexpected type or value.
    ApiField,
    /// The page ended early.
    Truncated,
}

impl WarningKind {
    /// The judge-facing (Chinese) description.
    pub fn zh(self) -> &'static str {
        match self {
            WarningKind::Charset => "字符编码有误，无法识别的字节已替换",
            WarningKind::Time => "无法读取发帖时间",
            WarningKind::Author => "无法读取作者",
            WarningKind::PostId => "无法读取帖子编号（pid），已跳过该帖",
            WarningKind::Floor => "无法读取楼层号",
            WarningKind::EditNotice => "无法读取编辑记录",
            WarningKind::ApiField => "接口数据字段异常",
            WarningKind::Truncated => "页面不完整（传输中断？）",
        }
    }
}

impl Warning {
    pub(crate) fn new(pid: Option<u64>, kind: WarningKind, detail: impl Into<String>) -> Self {
        let detail: String = detail.into();
        let detail = if detail.chars().count() > 200 {
            detail.chars().take(200).collect::<String>() + "…"
        } else {
            detail
        };
        Warning { pid, kind, detail }
    }
}
