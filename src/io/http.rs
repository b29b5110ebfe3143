//! The forum's transport: one HTTP exchange at a time, behind a narrow seam.
//!
//! `io::forum::Forum` keeps everything that is about Discuz (the gate between requests,
//! retries, the deletion redirect asked again, logging in, parsing); what goes over the wire is
//! an [`Http`]: `Reqwest` for the real forum (cookies, the redirect policy, the body unpacked
//! and capped as it arrives), or a simulated forum in the simulator (`tests/simd`), which
//! answers in the same process with no socket.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// What is asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Ask {
    pub method: Method,
    /// Absolute URL.
    pub url: String,
    /// A form (`application/x-www-form-urlencoded`) for a POST.
    pub form: Option<Vec<u8>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Head,
    Post,
}

/// What came back.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub status: u16,
    pub content_type: Option<String>,
    /// The `Date` header, as sent.
    pub date: Option<String>,
    /// The `Location` header of a redirect that was not followed.
    pub location: Option<String>,
    /// The body, unpacked; not read for a redirect or a HEAD.
    pub body: Result<Vec<u8>, BodyError>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum BodyError {
    /// Unpacked past `MAX_BODY`.
    TooLarge,
    /// Cut off or unreadable (the cause, in Chinese).
    Failed(String),
}

/// No answer.
#[derive(Debug, Clone, PartialEq)]
pub enum HttpError {
    /// The redirects went on past the policy's limit.
    RedirectLoop(String),
    /// The network failed (the cause, in Chinese: DNS, refused, timeout, TLS).
    Network(String),
}

pub type Exchange<'a> = Pin<Box<dyn Future<Output = Result<Answer, HttpError>> + Send + 'a>>;

/// One HTTP exchange.
pub trait Http: Send + Sync {
    fn send(&self, ask: Ask) -> Exchange<'_>;
}

/// The most one answer may unpack to. A Discuz page is tens of KB (a 500-post API page under
/// 2 MB); anything past this is a compression bomb or not a forum page at all.
pub const MAX_BODY: usize = 32 << 20;

/// The real transport.
pub struct Reqwest {
    client: reqwest::Client,
}

impl Reqwest {
    /// A client with the forum's cookies (`cookies`: `name=value; …` set for `base`), user
    /// agent and timeouts. Discuz redirects once or twice (login, findpost); more is a loop.
    /// The redirect it answers a thread read with after a deletion is not followed: the
    /// answer is the 302, and the forum asks again.
    pub fn new(
        base: &str,
        cookies: Option<&str>,
        user_agent: &str,
        timeout: Duration,
    ) -> Result<Reqwest, String> {
        let jar = std::sync::Arc::new(reqwest::cookie::Jar::default());
        if let Some(c) = cookies {
            let url: reqwest::Url = base.parse().map_err(|e| format!("forum.base_url: {e}"))?;
            for part in c.split(';') {
                let part = part.trim();
                if !part.is_empty() {
                    jar.add_cookie_str(&format!("{part}; Path=/"), &url);
                }
            }
        }
        crate::io::tls::ensure_provider();
        let client = reqwest::Client::builder()
            .cookie_provider(jar)
            .user_agent(user_agent.to_string())
            .timeout(timeout)
            .connect_timeout(timeout)
            .redirect(reqwest::redirect::Policy::custom(|attempt| {
                let original = attempt.previous().first().cloned();
                if original.is_some_and(|o| is_deletion_redirect(&o, attempt.url())) {
                    attempt.stop()
                } else if attempt.previous().len() > 5 {
                    attempt.error("too many redirects")
                } else {
                    attempt.follow()
                }
            }))
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Reqwest { client })
    }
}

impl Http for Reqwest {
    fn send(&self, ask: Ask) -> Exchange<'_> {
        Box::pin(async move {
            let req = match ask.method {
                Method::Get => self.client.get(&ask.url),
                Method::Head => self.client.head(&ask.url),
                Method::Post => self
                    .client
                    .post(&ask.url)
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .body(ask.form.unwrap_or_default()),
            };
            let resp = match req.send().await {
                Err(e) if e.is_redirect() => return Err(HttpError::RedirectLoop(e.to_string())),
                Err(e) => return Err(HttpError::Network(crate::io::net_error::cause(&e))),
                Ok(r) => r,
            };
            let header = |name: reqwest::header::HeaderName| {
                resp.headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(String::from)
            };
            let status = resp.status().as_u16();
            let content_type = header(reqwest::header::CONTENT_TYPE);
            let date = header(reqwest::header::DATE);
            let location = header(reqwest::header::LOCATION);
            let body = if resp.status().is_redirection() || ask.method == Method::Head {
                Ok(Vec::new())
            } else {
                read_capped(resp).await
            };
            Ok(Answer {
                status,
                content_type,
                date,
                location,
                body,
            })
        })
    }
}

/// The body, unpacked as it arrives, stopped at `MAX_BODY`.
async fn read_capped(mut resp: reqwest::Response) -> Result<Vec<u8>, BodyError> {
    if resp.content_length().is_some_and(|n| n > MAX_BODY as u64) {
        return Err(BodyError::TooLarge);
    }
    let mut body = Vec::new();
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| BodyError::Failed(crate::io::net_error::cause(&e)))?
    {
        if body.len() + chunk.len() > MAX_BODY {
            return Err(BodyError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Whether `next` is the redirect Discuz answers a thread read with after one of the thread's
/// posts was deleted (forum_viewthread.php, `$isdel_post`): to the thread's plain desktop URL
/// (`forum.php?mod=viewthread&tid=T`: its first page in the default view), from a read of that
/// thread — the mobile API's `module=viewthread` or a desktop page. It is told by what makes it
/// that page, not by its exact text: Discuz's `dheader()` appends `mobile=IN_MOBILE` to every
/// `Location` it sends under IN_MOBILE (the API's is `&mobile=1`, a touch session's `&mobile=2`),
/// `$_G['siteurl']` may make it absolute, and a fragment is not the server's. A parameter that
/// picks another page, post, author or order (findpost's `page=N#pidP`, a reply's `pid=…`)
/// makes it another redirect, which is followed.
pub fn is_deletion_redirect(original: &reqwest::Url, next: &reqwest::Url) -> bool {
    /// What chooses what a `viewthread` shows, other than the thread.
    const VIEW: [&str; 9] = [
        "page",
        "pid",
        "viewpid",
        "authorid",
        "ordertype",
        "goto",
        "from",
        "stand",
        "checkrush",
    ];
    let q = |u: &reqwest::Url, k: &str| {
        u.query_pairs()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.into_owned())
    };
    let reads_thread = q(original, "module").as_deref() == Some("viewthread")
        || q(original, "mod").as_deref() == Some("viewthread");
    reads_thread
        && next.path().ends_with("/forum.php")
        && q(next, "mod").as_deref() == Some("viewthread")
        && q(next, "tid").is_some()
        && q(next, "tid") == q(original, "tid")
        && !next.query_pairs().any(|(k, _)| VIEW.contains(&k.as_ref()))
}
