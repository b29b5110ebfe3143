use std::fmt;

/// A page that is not a thread page: the forum answered with an error, or with something
/// that is not Discuz at all. Never reported as a thread with zero posts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageError {
    pub kind: PageErrorKind,
    /// What the forum said, verbatim where it said something.
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PageErrorKind {
    /// The thread does not exist, was deleted or awaits moderation.
    NotFound,
    /// The viewer may not read this board or thread.
    NoPermission,
    /// The forum asks the viewer to log in.
    LoginRequired,
    /// The anti-flood (防灌水 / CC defence) page: requests came too fast.
    Flood,
    /// Discuz's "request_tainting" System Error: the URL had characters it refuses.
    RequestTainting,
    /// Another Discuz "System Error" page (database down, PHP error).
    SystemError,
    /// Another Discuz message page (`showmessage`).
    ForumMessage,
    /// The API answered `{"error": ...}` (e.g. `module_not_exists`).
    ApiError,
    /// An API answer was expected and something else came.
    NotJson,
    /// JSON that is not a Discuz API answer, or not valid JSON.
    BadJson,
    /// HTML that is not a Discuz thread page.
    NotAThreadPage,
    /// Nothing at all.
    Empty,
}

impl PageErrorKind {
    /// A stable English code for logs and JSON.
    pub fn code(self) -> &'static str {
        match self {
            PageErrorKind::NotFound => "not_found",
            PageErrorKind::NoPermission => "no_permission",
            PageErrorKind::LoginRequired => "login_required",
            PageErrorKind::Flood => "flood",
            PageErrorKind::RequestTainting => "request_tainting",
            PageErrorKind::SystemError => "system_error",
            PageErrorKind::ForumMessage => "forum_message",
            PageErrorKind::ApiError => "api_error",
            PageErrorKind::NotJson => "not_json",
            PageErrorKind::BadJson => "bad_json",
            PageErrorKind::NotAThreadPage => "not_a_thread_page",
            PageErrorKind::Empty => "empty",
        }
    }

    /// The judge-facing (Chinese) description.
    pub fn zh(self) -> &'static str {
        match self {
            PageErrorKind::NotFound => "主题不存在、已被删除或正在审核",
            PageErrorKind::NoPermission => "没有权限访问该版块或主题",
            PageErrorKind::LoginRequired => "需要登录",
            PageErrorKind::Flood => "论坛防灌水/访问过快限制，请稍后再试",
            PageErrorKind::RequestTainting => "论坛拒绝了请求（请求中含有非法字符）",
            PageErrorKind::SystemError => "论坛系统错误",
            PageErrorKind::ForumMessage => "论坛返回了提示页面，不是帖子",
            PageErrorKind::ApiError => "手机接口返回错误",
            PageErrorKind::NotJson => "应为手机接口 JSON，实际不是",
            PageErrorKind::BadJson => "JSON 无法解析或不是 Discuz 接口数据",
            PageErrorKind::NotAThreadPage => "不是预期的 Discuz 页面（帖子、投票机、短信）",
            PageErrorKind::Empty => "内容为空",
        }
    }
}

impl PageError {
    pub(crate) fn new(kind: PageErrorKind, detail: impl Into<String>) -> Self {
        let detail: String = detail.into();
        let detail = if detail.chars().count() > 300 {
            detail.chars().take(300).collect::<String>() + "…"
        } else {
            detail
        };
        PageError { kind, detail }
    }
}

impl fmt::Display for PageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind.code())?;
        if !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
        }
        Ok(())
    }
}

impl std::error::Error for PageError {}
