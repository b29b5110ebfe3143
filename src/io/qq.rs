//! **The only module that talks to the QQ bot**: OneBot 11's HTTP API (communication/http.md).
//! One action per message: `POST {api}/send_private_msg` or `/send_group_msg` with a JSON body,
//! `Authorization: Bearer <access_token>` when one is set; the bot answers 200 with
//! `{status, retcode, data}` whether the action worked or not, 401/403 for a missing or wrong
//! token. Messages go as plain text (`auto_escape`: no CQ codes read in them).

use crate::domain::qq::Target;
use crate::domain::settings::QqSettings;
use serde::Deserialize;
use std::time::Duration;

/// Why a message did not go.
#[derive(Debug, Clone, PartialEq)]
pub enum SendError {
    /// No connection (the bot is down): nothing reached it.
    Down(String),
    /// No answer in time: the bot may have received the message and sent it (OneBot has no
    /// idempotency key, so sending it again may repeat it once).
    Timeout,
    /// The bot answered `failed` (or an HTTP error): it says the message did not go.
    Failed(String),
}

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SendError::Down(e) => write!(f, "连不上 QQ 机器人：{e}"),
            SendError::Timeout => f.write_str("QQ 机器人没有及时回答（消息可能已经发出）"),
            SendError::Failed(e) => write!(f, "QQ 机器人报告发送失败：{e}"),
        }
    }
}

#[derive(Deserialize)]
struct Answer {
    status: String,
    retcode: i64,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    wording: Option<String>,
}

pub struct Bot {
    client: reqwest::Client,
    api: String,
    token: Option<String>,
}

impl Bot {
    pub fn new(s: &QqSettings) -> Result<Bot, String> {
        crate::io::tls::ensure_provider();
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(s.timeout_secs))
            .connect_timeout(Duration::from_secs(s.timeout_secs))
            .build()
            .map_err(|e| format!("QQ 客户端：{e}"))?;
        Ok(Bot {
            client,
            api: s.api.trim_end_matches('/').to_string(),
            token: s.access_token.as_ref().map(|t| t.expose().to_string()),
        })
    }

    /// Send one message. `ok` and `async` (retcode 0 and 1) count as sent.
    pub async fn send(&self, target: Target, text: &str) -> Result<(), SendError> {
        let (action, body) = match target {
            Target::Private(id) => (
                "send_private_msg",
                serde_json::json!({"user_id": id, "message": text, "auto_escape": true}),
            ),
            Target::Group(id) => (
                "send_group_msg",
                serde_json::json!({"group_id": id, "message": text, "auto_escape": true}),
            ),
        };
        let mut req = self
            .client
            .post(format!("{}/{action}", self.api))
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string());
        if let Some(t) = &self.token {
            req = req.bearer_auth(t);
        }
        let resp = req.send().await.map_err(|e| {
            if e.is_timeout() {
                SendError::Timeout
            } else {
                SendError::Down(e.to_string())
            }
        })?;
        let status = resp.status();
        if !status.is_success() {
            return Err(SendError::Failed(match status.as_u16() {
                401 => "HTTP 401：没有提供 access token".into(),
                403 => "HTTP 403：access token 不对".into(),
                n => format!("HTTP {n}"),
            }));
        }
        let bytes = resp.bytes().await.map_err(|e| {
            if e.is_timeout() {
                SendError::Timeout
            } else {
                SendError::Down(e.to_string())
            }
        })?;
        let a: Answer = serde_json::from_slice(&bytes)
            .map_err(|e| SendError::Failed(format!("回答不是 OneBot 的格式：{e}")))?;
        match (a.status.as_str(), a.retcode) {
            ("ok", 0) | ("async", 1) => Ok(()),
            _ => Err(SendError::Failed(format!(
                "status {}，retcode {}{}",
                a.status,
                a.retcode,
                a.wording
                    .or(a.message)
                    .map(|m| format!("（{m}）"))
                    .unwrap_or_default()
            ))),
        }
    }

    /// `get_login_info`: the account the bot is logged in as (`check-config --online`).
    pub async fn login_info(&self) -> Result<(u64, String), SendError> {
        let mut req = self
            .client
            .post(format!("{}/get_login_info", self.api))
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body("{}");
        if let Some(t) = &self.token {
            req = req.bearer_auth(t);
        }
        let resp = req.send().await.map_err(|e| {
            if e.is_timeout() {
                SendError::Timeout
            } else {
                SendError::Down(e.to_string())
            }
        })?;
        let status = resp.status();
        if !status.is_success() {
            return Err(SendError::Failed(format!("HTTP {}", status.as_u16())));
        }
        let bytes = resp
            .bytes()
            .await
            .map_err(|e| SendError::Down(e.to_string()))?;
        let v: serde_json::Value = serde_json::from_slice(&bytes)
            .map_err(|e| SendError::Failed(format!("回答不是 OneBot 的格式：{e}")))?;
        match (v["retcode"].as_i64(), v["data"]["user_id"].as_u64()) {
            (Some(0), Some(id)) => {
                Ok((id, v["data"]["nickname"].as_str().unwrap_or("").to_string()))
            }
            _ => Err(SendError::Failed(format!("回答：{v}"))),
        }
    }
}

/// The QQ side of a running daemon.
pub struct Qq {
    pub settings: QqSettings,
    pub(crate) bot: Bot,
    /// The record's QQ values are read, changed and written under this (the cycle and the
    /// event handler both write them).
    lock: std::sync::Mutex<()>,
}

impl Qq {
    pub fn new(settings: &QqSettings) -> anyhow::Result<Qq> {
        Ok(Qq {
            settings: settings.clone(),
            bot: Bot::new(settings).map_err(anyhow::Error::msg)?,
            lock: std::sync::Mutex::new(()),
        })
    }

    pub(crate) fn guard(&self) -> std::sync::MutexGuard<'_, ()> {
        self.lock.lock().unwrap_or_else(|p| p.into_inner())
    }
}
