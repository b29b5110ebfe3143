//! What the daemon tests share: the replay forum (wiremock serving the captured thread, with
//! faults), the SMTP server (mailin-embedded), the configs, running the binary, reading mails.

pub(crate) use crate::common;
pub(crate) use mailin_embedded::{response, Handler, Response, Server};
pub(crate) use serde_json::Value;
pub(crate) use std::collections::{BTreeMap, BTreeSet};
pub(crate) use std::net::TcpListener;
pub(crate) use std::path::{Path, PathBuf};
pub(crate) use std::sync::atomic::{AtomicBool, Ordering};
pub(crate) use std::sync::{Arc, Mutex};
pub(crate) use wiremock::matchers::{method, path, query_param};
pub(crate) use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

// ---------------------------------------------------------------- SMTP

#[derive(Clone, Default)]
pub(crate) struct Mailbox {
    pub(crate) mails: Arc<Mutex<Vec<String>>>,
    pub(crate) current: Arc<Mutex<Vec<u8>>>,
    pub(crate) refuse: Arc<AtomicBool>,
    pub(crate) slow: Arc<AtomicBool>,
    /// Milliseconds each mail's transfer takes (before its end arrives).
    pub(crate) delay_ms: Arc<std::sync::atomic::AtomicU64>,
    /// Refuse (554, as a content filter does) the Nth mail transaction (counting from 1) at
    /// its DATA command. (mailin answers a refusal at the end of the data but then stays in
    /// its data state, so the refusal comes at DATA.)
    pub(crate) refuse_nth: Arc<Mutex<Option<usize>>>,
    pub(crate) data_starts: Arc<Mutex<usize>>,
    /// Refuse this recipient address at RCPT (550, a dead mailbox).
    pub(crate) dead_rcpt: Arc<Mutex<Option<String>>>,
    /// The recipients of each accepted mail, in the order of `mails`.
    pub(crate) rcpts: Arc<Mutex<Vec<Vec<String>>>>,
    pub(crate) current_rcpts: Arc<Mutex<Vec<String>>>,
}

impl Handler for Mailbox {
    fn rcpt(&mut self, to: &str) -> Response {
        if self
            .dead_rcpt
            .lock()
            .unwrap()
            .as_deref()
            .is_some_and(|d| to.contains(d))
        {
            return response::NO_MAILBOX;
        }
        response::OK
    }
    fn data_start(&mut self, _: &str, _: &str, _: bool, to: &[String]) -> Response {
        *self.current_rcpts.lock().unwrap() = to.to_vec();
        let n = {
            let mut n = self.data_starts.lock().unwrap();
            *n += 1;
            *n
        };
        if *self.refuse_nth.lock().unwrap() == Some(n) {
            return response::TRANSACTION_FAILED;
        }
        // A slow transfer: the mail is the server's only once its end has arrived.
        std::thread::sleep(std::time::Duration::from_millis(
            self.delay_ms.load(Ordering::SeqCst),
        ));
        if self.refuse.load(Ordering::SeqCst) {
            return response::INTERNAL_ERROR;
        }
        self.current.lock().unwrap().clear();
        response::OK
    }
    fn data(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.current.lock().unwrap().extend_from_slice(buf);
        Ok(())
    }
    fn data_end(&mut self) -> Response {
        if self.slow.load(Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_secs(3));
        }
        let raw = String::from_utf8_lossy(&self.current.lock().unwrap()).into_owned();
        self.mails.lock().unwrap().push(raw);
        self.rcpts
            .lock()
            .unwrap()
            .push(self.current_rcpts.lock().unwrap().clone());
        response::OK
    }
}

pub(crate) fn smtp() -> (Mailbox, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let mailbox = Mailbox::default();
    let mut server = Server::new(mailbox.clone());
    server.with_name("judge.test").with_tcp_listener(listener);
    std::thread::spawn(move || {
        let _ = server.serve();
    });
    (mailbox, port)
}

/// A received mail: Message-ID and decoded subject.
pub(crate) fn summary(raw: &str) -> (String, String) {
    let m = parsed(raw);
    (
        format!("<{}>", m.message_id().unwrap_or_default()),
        m.subject().unwrap_or_default().to_string(),
    )
}

pub(crate) fn parsed(raw: &str) -> mail_parser::Message<'_> {
    mail_parser::MessageParser::default()
        .parse(raw.as_bytes())
        .expect("a MIME message")
}

/// A received mail's plain-text part, decoded.
pub(crate) fn body(raw: &str) -> String {
    parsed(raw)
        .body_text(0)
        .expect("a text part")
        .replace("\r\n", "\n")
}

/// A received mail's HTML part, decoded.
pub(crate) fn html(raw: &str) -> String {
    parsed(raw).body_html(0).expect("an HTML part").into_owned()
}

/// A received mail's attachments and inline parts: (file name or content id, content type, bytes).
pub(crate) fn files(raw: &str) -> Vec<(String, String, Vec<u8>)> {
    use mail_parser::MimeHeaders;
    let m = parsed(raw);
    m.attachments()
        .map(|a| {
            let ct = a
                .content_type()
                .map(|c| format!("{}/{}", c.ctype(), c.subtype().unwrap_or_default()))
                .unwrap_or_default();
            let name = a
                .attachment_name()
                .or(a.content_id())
                .unwrap_or_default()
                .to_string();
            (name, ct, a.contents().to_vec())
        })
        .collect()
}

// ---------------------------------------------------------------- the forum

#[derive(Clone, Debug)]
pub(crate) enum Fault {
    Status(u16),
    Delay(std::time::Duration),
    NoPermission,
    /// The connection closes half-way through the body (a Content-Length the body never
    /// reaches).
    Reset,
    /// A complete answer holding the first half of the page.
    Truncated,
    /// A Discuz HTML page (the captured forum index) where API JSON was asked for.
    Html,
    /// The anti-flood (CC defence) page; no captured page exists, the text is Discuz's.
    Flood,
    /// The captured "request_tainting" System Error page, with its HTTP 503.
    Tainting,
    /// A redirect to the same URL.
    RedirectLoop,
    /// 1 MB of gzip that unpacks to 1 GiB.
    GzipBomb,
    /// Discuz's answer to the first `viewthread` after a post of the thread was deleted
    /// (forum_viewthread.php, `$isdel_post`): a redirect to the thread's plain desktop URL.
    DeletionRedirect,
    /// The same redirect in another of its forms: the `Location` with `{tid}` and `{base}`
    /// (this server's scheme, host and port) filled in — the API's carries `&mobile=1`, as
    /// Discuz's `dheader()` appends under IN_MOBILE; an absolute one names the site.
    DeletionRedirectAs(&'static str),
    /// No fault: the page as it stands (to place a fault later in a read).
    Ok,
    /// A 200 with an empty post list.
    Empty,
    /// The discussion thread's page where the vote thread's was asked for.
    OtherThread,
    /// The page's bytes in GBK, declared as UTF-8.
    WrongCharset,
}

pub(crate) struct Forum {
    /// Every post of the captured vote thread (v1 JSON objects), in order.
    pub(crate) posts: Vec<Value>,
    pub(crate) envelope: Value,
    /// The captured discussion thread (tid 4), served as it stood at `at` too.
    pub(crate) discussion: Vec<Value>,
    pub(crate) discussion_envelope: Value,
    /// Show the thread as it stood at this unix time.
    pub(crate) at: i64,
    /// pids taken out (deleted).
    pub(crate) deleted: BTreeSet<u64>,
    /// Faults for the next thread-page requests, in order.
    pub(crate) faults: Vec<Fault>,
    /// Thread-page requests served.
    pub(crate) requests: usize,
    pub(crate) logged_in: bool,
    /// The reply count the thread claims instead of the true one.
    pub(crate) claim_replies: Option<u64>,
    /// (asked, served): this page number answers with that page.
    pub(crate) serve_instead: Option<(usize, usize)>,
    /// A fault for every thread-page request after `faults` ran out.
    pub(crate) always: Option<Fault>,
    /// The discussion thread answers 502.
    pub(crate) discussion_down: bool,
    /// Edits: pid → (unix time of each edit, the message from then on, with its notice), in
    /// time order.
    pub(crate) edits: BTreeMap<u64, Vec<(i64, String)>>,
    /// The forum's clock, this many seconds from the real one, in the `Date` of its answers
    /// (`None`: the server's own `Date`).
    pub(crate) date_offset: Option<i64>,
    /// The bodies of the replies posted through the reply form, as sent.
    pub(crate) replies: Vec<Vec<u8>>,
    /// Serve the page size the request asks for (`ppp`), as Discuz's API does; else 10 posts
    /// a page, as captured.
    pub(crate) honour_ppp: bool,
    /// The page size of the request being answered.
    pub(crate) asked_ppp: usize,
    /// The (page, `ppp`) of each thread-page request, in order.
    pub(crate) ppp_log: Vec<(usize, usize)>,
    /// Number the vote thread's floors from the posts visible now, as Discuz does when it
    /// numbers by place on the page (a deletion moves every later post up a floor); else the
    /// captured numbers.
    pub(crate) renumber: bool,
}

/// The answer with the forum's `Date` when the forum's clock is set apart from the real one.
fn dated(r: ResponseTemplate, offset: Option<i64>) -> ResponseTemplate {
    match offset {
        None => r,
        Some(o) => {
            let t = chrono::Utc::now() + chrono::Duration::seconds(o);
            r.insert_header(
                "Date",
                t.format("%a, %d %b %Y %H:%M:%S GMT").to_string().as_str(),
            )
        }
    }
}

/// The forum's front page, as a `HEAD` asking its time sees it.
pub(crate) struct FrontPage(pub(crate) Arc<Mutex<Forum>>);

impl Respond for FrontPage {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        let offset = self.0.lock().unwrap().date_offset;
        dated(ResponseTemplate::new(200), offset)
    }
}

pub(crate) fn captured_thread() -> (Vec<Value>, Value) {
    captured("tid3_vote", 4)
}

pub(crate) fn captured(thread: &str, pages: u32) -> (Vec<Value>, Value) {
    let mut posts = Vec::new();
    let mut envelope = Value::Null;
    for p in 1..=pages {
        let path = common::fixtures().join(format!(
            "discuz/mobile/guest/v1/viewthread_{thread}_p{p}.json"
        ));
        let page: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        posts.extend(
            page["Variables"]["postlist"]
                .as_array()
                .unwrap()
                .iter()
                .cloned(),
        );
        if p == 1 {
            envelope = page;
        }
    }
    (posts, envelope)
}

impl Forum {
    fn discussion_page(&self, page: usize) -> Value {
        let visible: Vec<Value> = self
            .discussion
            .iter()
            .filter(|p| p["dbdateline"].as_str().unwrap().parse::<i64>().unwrap() <= self.at)
            .filter(|p| {
                !self
                    .deleted
                    .contains(&p["pid"].as_str().unwrap().parse::<u64>().unwrap())
            })
            .cloned()
            .collect();
        let replies = visible.len() as u64 - 1;
        served(&self.discussion_envelope, &visible, page, replies)
    }

    fn page(&self, page: usize) -> Value {
        let mut visible: Vec<Value> = self
            .posts
            .iter()
            .filter(|p| p["dbdateline"].as_str().unwrap().parse::<i64>().unwrap() <= self.at)
            .filter(|p| {
                !self
                    .deleted
                    .contains(&p["pid"].as_str().unwrap().parse::<u64>().unwrap())
            })
            .cloned()
            .collect();
        // pid 98 before its edit at 21:05:30 (text as typed, from the scenario key).
        if self.at < 1795957530 {
            for p in visible.iter_mut().filter(|p| p["pid"] == "98") {
                p["message"] = Value::String("投票对象：冷雪<br />\n投票理由：她改票太随意".into());
            }
        }
        if self.renumber {
            for (i, p) in visible.iter_mut().enumerate() {
                p["number"] = Value::String((i + 1).to_string());
            }
        }
        for p in visible.iter_mut() {
            let pid: u64 = p["pid"].as_str().unwrap().parse().unwrap();
            let latest = self
                .edits
                .get(&pid)
                .and_then(|e| e.iter().rev().find(|(at, _)| self.at >= *at));
            if let Some((_, message)) = latest {
                p["message"] = Value::String(message.clone());
            }
        }
        let page = match self.serve_instead {
            Some((asked, instead)) if asked == page => instead,
            _ => page,
        };
        let replies = self.claim_replies.unwrap_or(visible.len() as u64 - 1);
        if self.honour_ppp {
            let mut out =
                bansha::io::replay::page(&self.envelope, &visible, page, self.asked_ppp, replies);
            out["Variables"]["ppp"] = Value::String(self.asked_ppp.to_string());
            return out;
        }
        served(&self.envelope, &visible, page, replies)
    }
}

/// Page `page` (10 posts a page, clamped to the last as Discuz does) of `visible`, in the
/// captured envelope, claiming `replies` replies.
pub(crate) fn served(envelope: &Value, visible: &[Value], page: usize, replies: u64) -> Value {
    bansha::io::replay::page(envelope, visible, page, 10, replies)
}

pub(crate) struct ThreadResponder(pub(crate) Arc<Mutex<Forum>>);

impl Respond for ThreadResponder {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let offset = self.0.lock().unwrap().date_offset;
        dated(self.answer(req), offset)
    }
}

impl ThreadResponder {
    fn answer(&self, req: &Request) -> ResponseTemplate {
        let mut f = self.0.lock().unwrap();
        f.requests += 1;
        let page: usize = req
            .url
            .query_pairs()
            .find(|(k, _)| k == "page")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(1);
        f.asked_ppp = req
            .url
            .query_pairs()
            .find(|(k, _)| k == "ppp")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(10);
        let asked = f.asked_ppp;
        f.ppp_log.push((page, asked));
        let fault = if f.faults.is_empty() {
            f.always.clone()
        } else {
            Some(f.faults.remove(0))
        };
        let fixture = |rel: &str| std::fs::read(common::fixtures().join(rel)).unwrap();
        match fault {
            None | Some(Fault::Ok) => ResponseTemplate::new(200).set_body_json(f.page(page)),
            Some(Fault::Status(s)) => {
                ResponseTemplate::new(s).set_body_string("<html>Bad Gateway</html>")
            }
            Some(Fault::Delay(d)) => ResponseTemplate::new(200)
                .set_delay(d)
                .set_body_json(f.page(page)),
            Some(Fault::NoPermission) => {
                f.logged_in = false;
                ResponseTemplate::new(200).set_body_raw(
                    fixture("discuz/errors/mobile_v1_viewthread_tid2_private_guest.json"),
                    "application/json",
                )
            }
            // Served whole: `cutting_proxy` in front of the server cuts it.
            Some(Fault::Reset) => ResponseTemplate::new(200).set_body_json(f.page(page)),
            Some(Fault::Truncated) => {
                let mut body = serde_json::to_vec(&f.page(page)).unwrap();
                body.truncate(body.len() / 2);
                ResponseTemplate::new(200).set_body_raw(body, "application/json")
            }
            Some(Fault::GzipBomb) => ResponseTemplate::new(200)
                .insert_header("Content-Encoding", "gzip")
                .set_body_raw(fixture("faults/bomb-1gib.json.gz"), "application/json"),
            Some(Fault::Html) => ResponseTemplate::new(200).set_body_raw(
                fixture("discuz/desktop/guest/forum_index.html"),
                "text/html; charset=utf-8",
            ),
            Some(Fault::Flood) => ResponseTemplate::new(200).set_body_raw(
                "<html><body>您访问本站速度过快或者刷新间隔时间小于两秒！请等待页面自动跳转 ...</body></html>",
                "text/html; charset=utf-8",
            ),
            Some(Fault::Tainting) => ResponseTemplate::new(503).set_body_raw(
                fixture("discuz/login/desktop_login_fail_badformhash_inajax.xml"),
                "text/html; charset=utf-8",
            ),
            Some(Fault::Empty) => {
                let mut v = f.page(page);
                v["Variables"]["postlist"] = Value::Array(Vec::new());
                ResponseTemplate::new(200).set_body_json(v)
            }
            Some(Fault::OtherThread) => ResponseTemplate::new(200).set_body_json(f.discussion_page(page)),
            Some(Fault::WrongCharset) => {
                // Unescaped Chinese, encoded in GBK, labelled UTF-8 (the envelope's own
                // "Charset" too).
                let mut v = f.page(page);
                v["Charset"] = Value::String("UTF-8".into());
                let text = serde_json::to_string(&v).unwrap();
                let (gbk, _, _) = encoding_rs::GBK.encode(&text);
                ResponseTemplate::new(200)
                    .set_body_raw(gbk.into_owned(), "application/json; charset=utf-8")
            }
            Some(Fault::DeletionRedirect) => {
                let tid = req
                    .url
                    .query_pairs()
                    .find(|(k, _)| k == "tid")
                    .map(|(_, v)| v.into_owned())
                    .unwrap_or_default();
                ResponseTemplate::new(302).insert_header(
                    "Location",
                    format!("forum.php?mod=viewthread&tid={tid}").as_str(),
                )
            }
            Some(Fault::DeletionRedirectAs(form)) => {
                let tid = req
                    .url
                    .query_pairs()
                    .find(|(k, _)| k == "tid")
                    .map(|(_, v)| v.into_owned())
                    .unwrap_or_default();
                let base = format!(
                    "{}://{}:{}",
                    req.url.scheme(),
                    req.url.host_str().unwrap_or_default(),
                    req.url.port().unwrap_or(80)
                );
                let to = form.replace("{tid}", &tid).replace("{base}", &base);
                ResponseTemplate::new(302).insert_header("Location", to.as_str())
            }
            Some(Fault::RedirectLoop) => {
                let to = format!("{}?{}", req.url.path(), req.url.query().unwrap_or_default());
                ResponseTemplate::new(302).insert_header("Location", to.as_str())
            }
        }
    }
}

pub(crate) struct LoginResponder {
    pub(crate) forum: Arc<Mutex<Forum>>,
    pub(crate) file: &'static str,
    pub(crate) logs_in: bool,
}

impl Respond for LoginResponder {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        if self.logs_in {
            self.forum.lock().unwrap().logged_in = true;
        }
        let body = std::fs::read(common::fixtures().join(self.file)).unwrap();
        ResponseTemplate::new(200).set_body_raw(body, "text/xml; charset=utf-8")
    }
}

pub(crate) struct DiscussionResponder(pub(crate) Arc<Mutex<Forum>>);

impl Respond for DiscussionResponder {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let f = self.0.lock().unwrap();
        let page: usize = req
            .url
            .query_pairs()
            .find(|(k, _)| k == "page")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(1);
        if f.discussion_down {
            return ResponseTemplate::new(502).set_body_string("<html>Bad Gateway</html>");
        }
        dated(
            ResponseTemplate::new(200).set_body_json(f.discussion_page(page)),
            f.date_offset,
        )
    }
}

pub(crate) async fn forum_server() -> (MockServer, Arc<Mutex<Forum>>) {
    let (posts, envelope) = captured_thread();
    let (discussion, discussion_envelope) = captured("tid4_discussion", 7);
    let state = Arc::new(Mutex::new(Forum {
        posts,
        envelope,
        discussion,
        discussion_envelope,
        at: 0,
        deleted: BTreeSet::new(),
        faults: Vec::new(),
        requests: 0,
        logged_in: false,
        claim_replies: None,
        serve_instead: None,
        always: None,
        discussion_down: false,
        edits: BTreeMap::new(),
        date_offset: None,
        replies: Vec::new(),
        honour_ppp: false,
        asked_ppp: 10,
        ppp_log: Vec::new(),
        renumber: false,
    }));
    let server = MockServer::start().await;
    Mock::given(method("HEAD"))
        .and(path("/forum.php"))
        .respond_with(FrontPage(state.clone()))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/mobile/index.php"))
        .and(query_param("module", "viewthread"))
        .and(query_param("tid", "3"))
        .respond_with(ThreadResponder(state.clone()))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/mobile/index.php"))
        .and(query_param("module", "viewthread"))
        .and(query_param("tid", "4"))
        .respond_with(DiscussionResponder(state.clone()))
        .mount(&server)
        .await;
    // The judge's inbox, empty unless a test mounts its own (at the default priority, 5,
    // before this one): the night reads it where actions come by private message.
    Mock::given(method("GET"))
        .and(path("/api/mobile/index.php"))
        .and(query_param("module", "mypm"))
        .respond_with(crate::ballot_sources::Inbox(Arc::new(Mutex::new(
            Vec::new(),
        ))))
        .with_priority(10)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/member.php"))
        .and(query_param("action", "login"))
        .respond_with(LoginResponder {
            forum: state.clone(),
            file: "discuz/login/desktop_login_float_form_inajax.xml",
            logs_in: false,
        })
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/member.php"))
        .and(query_param("loginsubmit", "yes"))
        .respond_with(LoginResponder {
            forum: state.clone(),
            file: "discuz/login/desktop_login_success_inajax.xml",
            logs_in: true,
        })
        .mount(&server)
        .await;
    // The desktop reply form (captured for this thread, as the judge), its post, and the
    // thread page Discuz's redirect after a reply lands on.
    Mock::given(method("GET"))
        .and(path("/forum.php"))
        .and(query_param("mod", "post"))
        .and(query_param("action", "reply"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw(
                std::fs::read(
                    common::fixtures()
                        .join("discuz/desktop/variants/reply_form_repquote38_as_judge.html"),
                )
                .unwrap(),
                "text/html; charset=utf-8",
            ),
        )
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/forum.php"))
        .and(query_param("mod", "post"))
        .and(query_param("replysubmit", "yes"))
        .respond_with(ReplyResponder(state.clone()))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/forum.php"))
        .and(query_param("mod", "viewthread"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw(
                std::fs::read(
                    common::fixtures().join("discuz/desktop/guest/viewthread_tid3_vote_p1.html"),
                )
                .unwrap(),
                "text/html; charset=utf-8",
            ),
        )
        .mount(&server)
        .await;
    (server, state)
}

/// A reply posted through the form: kept as sent, and added to the vote thread as the judge's
/// post (the message's BBCode drawn as Discuz draws bold and line breaks), then the redirect
/// to the thread Discuz answers a posted reply with.
struct ReplyResponder(Arc<Mutex<Forum>>);

impl Respond for ReplyResponder {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let mut f = self.0.lock().unwrap();
        f.replies.push(req.body.clone());
        let message: String = url::form_urlencoded::parse(&req.body)
            .find(|(k, _)| k == "message")
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default();
        let html = message
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace("[b]", "<strong>")
            .replace("[/b]", "</strong>")
            .replace('\n', "<br />\n");
        let mut post = f.posts[0].clone();
        let pid = f
            .posts
            .iter()
            .filter_map(|p| p["pid"].as_str()?.parse::<u64>().ok())
            .max()
            .unwrap_or(0)
            + 1;
        post["pid"] = Value::String(pid.to_string());
        post["first"] = Value::String("0".into());
        post["number"] = Value::String((f.posts.len() + 1).to_string());
        post["dbdateline"] = Value::String(f.at.to_string());
        post["message"] = Value::String(html);
        f.posts.push(post);
        ResponseTemplate::new(302).insert_header(
            "Location",
            format!("forum.php?mod=viewthread&tid=3&pid={pid}&page=1&extra=#pid{pid}").as_str(),
        )
    }
}

// ---------------------------------------------------------------- the daemon

pub(crate) fn setup(dir: &Path, forum: &str, smtp_port: u16) -> PathBuf {
    let games = dir.join("games");
    std::fs::create_dir_all(&games).unwrap();
    std::fs::copy(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("config/examples/banshayishi-12.toml"),
        games.join("banshayishi-12.toml"),
    )
    .unwrap();
    let pw = dir.join("forum-password");
    std::fs::write(&pw, "test1234\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&pw, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let config = dir.join("daemon.toml");
    std::fs::write(
        &config,
        format!(
            r#"state_dir = "state"

[forum]
base_url = "{forum}/"
source = "api"
api_version = 1
posts_per_page = 10
min_gap_ms = 10
timeout_secs = 2
retries = 2

[forum.login]
username = "版杀一室法官"
password_file = "forum-password"

[smtp]
host = "127.0.0.1"
port = {smtp_port}
security = "plain"
from = "bansha@judge.test"

[judge]
to = ["judge@judge.test"]

[poll]
interim_every_hours = 0

[status]
listen = "127.0.0.1:0"

[[games]]
config = "games/banshayishi-12.toml"
"#
        ),
    )
    .unwrap();
    config
}

pub(crate) fn once(config: &Path, now: &str) -> Value {
    once_at(config, Some(now))
}

/// `bansha run --once`, at `now` or (None) on the system clock; its report.
pub(crate) fn once_at(config: &Path, now: Option<&str>) -> Value {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"));
    cmd.args(["run", "--once"]);
    if let Some(now) = now {
        cmd.args(["--now", now]);
    }
    let out = cmd.arg("--config").arg(config).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.trim()).unwrap_or_else(|_| {
        panic!(
            "no report at {now:?}: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// A post of a replayed thread in the captured form: `template` (a captured post) with its pid,
/// author (and uid), unix time and message replaced.
pub(crate) fn post_like(template: &Value, pid: u64, author: &str, at: i64, message: &str) -> Value {
    let mut p = template.clone();
    p["pid"] = Value::String(pid.to_string());
    p["author"] = Value::String(author.into());
    if p.get("username").is_some() {
        p["username"] = Value::String(author.into());
    }
    p["authorid"] = Value::String(common::member_uid(author));
    p["dbdateline"] = Value::String(at.to_string());
    p["message"] = Value::String(message.into());
    p
}

/// Give the service's dashboard a free loopback port (the tests' config says 127.0.0.1:0,
/// which only `--once` runs can leave unresolved, since the CLI must find the service).
pub(crate) fn pin_status_port(config: &Path) -> u16 {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let text = std::fs::read_to_string(config)
        .unwrap()
        .replace("127.0.0.1:0", &format!("127.0.0.1:{port}"));
    std::fs::write(config, text).unwrap();
    port
}

/// `bansha ARGS --config CONFIG`: exit code, stdout, stderr.
pub(crate) fn cli(config: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(args)
        .arg("--config")
        .arg(config)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The `delay` of `once_killed` that kills the run the moment sled has begun writing a
/// snapshot (`db/snap.*.generating` appears; sled writes one at every open that finds its log
/// advanced), when it does within 3 s.
pub(crate) const AT_SNAPSHOT: std::time::Duration = std::time::Duration::from_secs(3600);

/// `bansha run --once --now NOW`, SIGKILLed after `delay` (or `AT_SNAPSHOT`). A run that ended before the kill
/// must have ended well: it panics with the run's log when the run failed (a start that
/// cannot open the record, a cycle with errors).
pub(crate) fn once_killed(config: &Path, now: &str, delay: std::time::Duration) {
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(["run", "--once", "--now", now, "--config"])
        .arg(config)
        .stdout(std::process::Stdio::null())
        .stderr(log.reopen().unwrap())
        .spawn()
        .unwrap();
    if delay == AT_SNAPSHOT {
        // The soak's moment: sled writing the snapshot it writes at every open.
        let db = config.parent().unwrap().join("state/db");
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_secs(3)
            && child.try_wait().unwrap().is_none()
            && !std::fs::read_dir(&db).is_ok_and(|d| {
                d.filter_map(|e| e.ok())
                    .any(|e| e.file_name().to_string_lossy().ends_with(".generating"))
            })
        {
            std::thread::yield_now();
        }
    } else {
        std::thread::sleep(delay);
    }
    let ended = child.try_wait().unwrap();
    let _ = child.kill(); // SIGKILL
    let _ = child.wait();
    if let Some(status) = ended {
        assert!(
            status.success(),
            "a run at {now} ended by itself before its kill at {delay:?}, failing ({status}):\n{}",
            std::fs::read_to_string(log.path()).unwrap_or_default()
        );
    }
}

pub(crate) fn subjects(mailbox: &Mailbox) -> Vec<(String, String)> {
    mailbox
        .mails
        .lock()
        .unwrap()
        .iter()
        .map(|m| summary(m))
        .collect()
}

/// Every file under `dir`, recursively, as bytes with its path.
pub(crate) fn all_files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(b) = std::fs::read(&p) {
                out.push((p, b));
            }
        }
    }
    out
}

/// A running `bansha run`: killed when dropped, so a test that fails midway leaves no daemon
/// behind.
pub(crate) struct Running(pub(crate) std::process::Child);
impl std::ops::Deref for Running {
    type Target = std::process::Child;
    fn deref(&self) -> &std::process::Child {
        &self.0
    }
}
impl std::ops::DerefMut for Running {
    fn deref_mut(&mut self) -> &mut std::process::Child {
        &mut self.0
    }
}
impl Drop for Running {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// `bansha run` as a service (its clock started at `now` when given), and `bansha status` as it
/// first answers after a completed cycle (empty if it never does).
pub(crate) async fn start_service(config: &Path, now: Option<&str>) -> (Running, String) {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_bansha"));
    cmd.arg("run");
    if let Some(now) = now {
        cmd.args(["--now", now]);
    }
    let child = cmd
        .arg("--config")
        .arg(config)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    for _ in 0..150 {
        let (code, out, _) = tokio::task::block_in_place(|| cli(config, &["status"]));
        if code == Some(0) && out.contains("上一轮") {
            return (Running(child), out);
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    (Running(child), String::new())
}

/// One cycle, `bansha run --once --now NOW`, run off the async runtime's threads; its report.
pub(crate) async fn cycle_at(config: &Path, now: &str) -> Value {
    let (config, now) = (config.to_path_buf(), now.to_string());
    tokio::task::spawn_blocking(move || once(&config, &now))
        .await
        .unwrap()
}

/// The subjects of the mails received so far, in order.
pub(crate) fn subject_lines(mailbox: &Mailbox) -> Vec<String> {
    mailbox
        .mails
        .lock()
        .unwrap()
        .iter()
        .map(|m| summary(m).1)
        .collect()
}

/// The text of every final-tally mail received so far, in order.
pub(crate) fn final_texts(mailbox: &Mailbox) -> Vec<String> {
    mailbox
        .mails
        .lock()
        .unwrap()
        .iter()
        .filter(|m| summary(m).1.contains("最终计票："))
        .map(|m| body(m))
        .collect()
}

/// The mails received so far whose subject contains `needle`: (subject, plain-text body).
pub(crate) fn mails_about(mailbox: &Mailbox, needle: &str) -> Vec<(String, String)> {
    mailbox
        .mails
        .lock()
        .unwrap()
        .iter()
        .map(|m| (summary(m).1, body(m)))
        .filter(|(s, _)| s.contains(needle))
        .collect()
}

/// A GET of `path` from the daemon's dashboard on loopback, the raw answer.
pub(crate) fn http_get(port: u16, path: &str) -> String {
    raw_http(
        port,
        &format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"),
    )
}

/// A POST of JSON `body` to the dashboard's `path`, as the dashboard's own buttons send it
/// (the `X-Bansha` header), and the whole answer.
pub(crate) fn post_json(port: u16, path: &str, body: &str) -> String {
    raw_http(
        port,
        &format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Bansha: judge\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    )
}

/// One HTTP request written as given to the dashboard on `port`, and the whole answer.
pub(crate) fn raw_http(port: u16, request: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out
}

/// Replace the captured game with a bansha42 game named `name` whose ballots are thread posts
/// (the captured vote thread stands in for the poll, which the poll tests replay): `days` are its
/// `[[days]]` blocks.
pub(crate) fn bansha42_game(dir: &Path, name: &str, days: &str) {
    std::fs::write(
        dir.join("games/banshayishi-12.toml"),
        format!(
            "ruleset = \"bansha42\"\nname = \"{name}\"\n{}\n{days}[rules.vote]\nsource = \"thread\"\n",
            common::ROSTER
        ),
    )
    .unwrap();
}

/// One cycle at each (forum time text, forum Unix time), each without errors.
pub(crate) async fn cycles(config: &Path, forum: &Arc<Mutex<Forum>>, at: &[(&str, i64)]) {
    for (now, ts) in at {
        forum.lock().unwrap().at = *ts;
        let r = cycle_at(config, now).await;
        assert_eq!(r["errors"], serde_json::json!([]), "{now}: {r}");
    }
}
