//! Discuz login pages: the login form (formhash, where to post, whether a captcha or a security
//! question is demanded) and the answer to a login (desktop `inajax` XML or API JSON).

use crate::charset::decode;
use regex::Regex;
use std::sync::OnceLock;

/// The desktop login form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginForm {
    pub formhash: String,
    /// Where the form posts, relative to the forum root (`member.php?mod=logging&…&loginhash=…`).
    pub action: String,
    /// A captcha (验证码, `seccode`) is demanded: bansha cannot log in by itself.
    pub captcha: bool,
    /// A security question (安全提问, `secqaa`) is demanded.
    pub question: bool,
    /// The charset of the page: form fields must be sent in it (a GBK forum wants GBK).
    pub charset: String,
}

/// What the forum answered to a login.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginOutcome {
    Success,
    /// 登录失败，您还可以尝试 N 次
    WrongPassword {
        attempts_left: Option<u32>,
    },
    /// 密码错误次数过多，请 15 分钟后重新登录
    LockedOut {
        minutes: Option<u32>,
    },
    /// A captcha is required or was wrong.
    Captcha,
    /// A security question is required.
    SecurityQuestion,
    /// Anything else, verbatim.
    Other(String),
}

impl LoginOutcome {
    pub fn zh(&self) -> String {
        match self {
            LoginOutcome::Success => "登录成功".into(),
            LoginOutcome::WrongPassword {
                attempts_left: Some(n),
            } => {
                format!("用户名或密码错误（论坛说还可以尝试 {n} 次）")
            }
            LoginOutcome::WrongPassword {
                attempts_left: None,
            } => "用户名或密码错误".into(),
            LoginOutcome::LockedOut { minutes: Some(m) } => {
                format!("密码错误次数过多，论坛锁定登录 {m} 分钟")
            }
            LoginOutcome::LockedOut { minutes: None } => {
                "密码错误次数过多，论坛暂时锁定登录".into()
            }
            LoginOutcome::Captcha => "论坛要求填写验证码，bansha 无法自动登录".into(),
            LoginOutcome::SecurityQuestion => "论坛要求回答安全提问，bansha 无法自动登录".into(),
            LoginOutcome::Other(s) => format!("论坛的回答：{s}"),
        }
    }
}

fn re(cell: &'static OnceLock<Regex>, src: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(src).expect("static regex"))
}

/// Read the login form from the login page or its `inajax` float form.
pub fn parse_login_form(bytes: &[u8], content_type: Option<&str>) -> Result<LoginForm, String> {
    static ACTION: OnceLock<Regex> = OnceLock::new();
    static HASH: OnceLock<Regex> = OnceLock::new();
    let d = decode(bytes, content_type);
    let text = d.text;
    let action = re(&ACTION, r#"<form[^>]*name="login"[^>]*action="([^"]+)""#)
        .captures(&text)
        .map(|c| html_escape::decode_html_entities(&c[1]).into_owned())
        .ok_or("no login form on the page")?;
    let formhash = re(&HASH, r#"name="formhash" value="([0-9a-zA-Z]+)""#)
        .captures(&text)
        .map(|c| c[1].to_string())
        .ok_or("no formhash in the login form")?;
    Ok(LoginForm {
        formhash,
        action,
        captcha: text.contains("seccode_") || text.contains("seccodeverify"),
        question: text.contains("secqaa_"),
        charset: d.encoding.to_string(),
    })
}

/// Read the answer to a desktop login post (`inajax=1` XML, or a full page).
pub fn parse_login_result(bytes: &[u8], content_type: Option<&str>) -> LoginOutcome {
    static CDATA: OnceLock<Regex> = OnceLock::new();
    static SCRIPT: OnceLock<Regex> = OnceLock::new();
    static TAGS: OnceLock<Regex> = OnceLock::new();
    static NUM: OnceLock<Regex> = OnceLock::new();
    let text = decode(bytes, content_type).text.into_owned();
    let body = re(&CDATA, r"(?s)<!\[CDATA\[(.*)\]\]>")
        .captures(&text)
        .map(|c| c[1].to_string())
        .unwrap_or_else(|| text.clone());
    let body = re(&SCRIPT, r"(?is)<script[^>]*>.*?</script>").replace_all(&body, "");
    let message = re(&TAGS, r"(?s)<[^>]*>").replace_all(&body, " ");
    let message = message.split_whitespace().collect::<Vec<_>>().join(" ");
    let number = || {
        re(&NUM, r"(\d+)")
            .captures(&message)
            .and_then(|c| c[1].parse().ok())
    };
    if message.contains("验证码") {
        LoginOutcome::Captcha
    } else if message.contains("安全提问") {
        LoginOutcome::SecurityQuestion
    } else if message.contains("错误次数过多") {
        LoginOutcome::LockedOut { minutes: number() }
    } else if message.contains("登录失败") || message.contains("密码错误") {
        LoginOutcome::WrongPassword {
            attempts_left: number(),
        }
    } else if message.is_empty() || message.contains("欢迎您回来") {
        LoginOutcome::Success
    } else {
        LoginOutcome::Other(message.chars().take(200).collect())
    }
}

/// Read the answer of the mobile API's `module=login`.
pub fn parse_api_login(bytes: &[u8]) -> LoginOutcome {
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return LoginOutcome::Other("不是 JSON".into());
    };
    match v["Message"]["messageval"].as_str().unwrap_or("") {
        "login_succeed" | "location_login_succeed" => LoginOutcome::Success,
        "login_invalid" => LoginOutcome::WrongPassword {
            attempts_left: None,
        },
        "login_strike" => LoginOutcome::LockedOut { minutes: None },
        "login_seccheck2" | "submit_seccode_invalid" => LoginOutcome::Captcha,
        "login_question_empty" | "login_question_invalid" => LoginOutcome::SecurityQuestion,
        other => LoginOutcome::Other(other.to_string()),
    }
}
