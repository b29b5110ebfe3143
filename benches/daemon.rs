//! Daemon figures: requests per poll cycle on a long thread with a few new posts, and the time
//! from a new ballot on the forum to the judge's mail (one cycle: fetch, record, tally, SMTP).
//! The forum is a local HTTP server replaying the captured thread (mobile API v1) grown to 1,000
//! posts; the mail server is a local SMTP server. `cargo bench --bench daemon`.

use bansha::daemon::Daemon;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

struct Thread {
    posts: Arc<Mutex<Vec<Value>>>,
    envelope: Value,
}

impl Respond for Thread {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let q: std::collections::HashMap<String, String> =
            req.url.query_pairs().into_owned().collect();
        let ppp: usize = q.get("ppp").and_then(|v| v.parse().ok()).unwrap_or(10);
        let posts = self.posts.lock().unwrap();
        let page = q.get("page").and_then(|v| v.parse().ok()).unwrap_or(1usize);
        let mut out =
            bansha::io::replay::page(&self.envelope, &posts, page, ppp, (posts.len() - 1) as u64);
        out["Variables"]["ppp"] = Value::String(ppp.to_string());
        ResponseTemplate::new(200).set_body_json(out)
    }
}

#[derive(Clone)]
struct Sink(Arc<Mutex<usize>>);
impl mailin_embedded::Handler for Sink {
    fn data_end(&mut self) -> mailin_embedded::Response {
        *self.0.lock().unwrap() += 1;
        mailin_embedded::response::OK
    }
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut captured = Vec::new();
    let mut envelope = Value::Null;
    for p in 1..=4 {
        let page: Value = serde_json::from_slice(
            &std::fs::read(root.join(format!(
                "tests/fixtures/discuz/mobile/guest/v1/viewthread_tid3_vote_p{p}.json"
            )))
            .unwrap(),
        )
        .unwrap();
        captured.extend(
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
    // 1,000 posts: the captured ones, then chatter from the same players (copies of pid 43's
    // form with other authors' names and earlier times), all before 12:00 on the 29th.
    let mut posts: Vec<Value> = captured
        .iter()
        .filter(|p| p["dbdateline"].as_str().unwrap().parse::<i64>().unwrap() < 1795924800)
        .cloned()
        .collect();
    let chatter = captured.iter().find(|p| p["pid"] == "78").unwrap().clone();
    let mut pid = 1000;
    while posts.len() < 1000 {
        let mut c = chatter.clone();
        c["pid"] = Value::String(pid.to_string());
        c["message"] = Value::String(format!("第 {pid} 帖：继续讨论"));
        c["dbdateline"] = Value::String((1795900000 + pid).to_string());
        posts.push(c);
        pid += 1;
    }
    let later: Vec<Value> = captured
        .iter()
        .filter(|p| {
            let t = p["dbdateline"].as_str().unwrap().parse::<i64>().unwrap();
            (1795924800..1795953600).contains(&t)
        })
        .cloned()
        .collect();
    let posts = Arc::new(Mutex::new(posts));

    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .and(path("/api/mobile/index.php"))
            .respond_with(Thread { posts: posts.clone(), envelope })
            .mount(&server)
            .await;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let smtp_port = listener.local_addr().unwrap().port();
        let received = Arc::new(Mutex::new(0));
        let mut smtp = mailin_embedded::Server::new(Sink(received.clone()));
        smtp.with_tcp_listener(listener);
        std::thread::spawn(move || {
            let _ = smtp.serve();
        });

        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(root.join("config/examples/banshayishi-12.toml"), dir.path().join("game.toml")).unwrap();
        let config = dir.path().join("daemon.toml");
        std::fs::write(
            &config,
            format!(
                "state_dir = \"state\"\n[forum]\nbase_url = \"{}/\"\nposts_per_page = 50\nmin_gap_ms = 0\n\
                 [smtp]\nhost = \"127.0.0.1\"\nport = {smtp_port}\nsecurity = \"plain\"\nfrom = \"b@judge.test\"\n\
                 [judge]\nto = [\"j@judge.test\"]\n[poll]\ninterim_every_hours = 0\n[[games]]\nconfig = \"game.toml\"\n",
                server.uri()
            ),
        )
        .unwrap();
        let daemon = Daemon::open(bansha::io::files::load_settings(&config).unwrap()).unwrap();
        let at = |s: &str| chrono::DateTime::parse_from_rfc3339(s).unwrap();

        let t = Instant::now();
        let r = daemon.cycle(at("2026-11-29T12:00:00+08:00")).await;
        println!("first cycle, full scan of 1,000 posts (20 pages of 50): {} requests, {:?}", r.requests, t.elapsed());

        let mut rows = Vec::new();
        for p in later.iter().take(8) {
            posts.lock().unwrap().push(p.clone());
            let sent_before = *received.lock().unwrap();
            let t = Instant::now();
            let posted: i64 = p["dbdateline"].as_str().unwrap().parse().unwrap();
            let now = at("2026-11-29T12:00:00+08:00") + chrono::Duration::seconds(posted - 1795924800 + 60);
            let r = daemon.cycle(now).await;
            let took = t.elapsed();
            rows.push((r.requests, took, *received.lock().unwrap() - sent_before));
            assert!(r.errors.is_empty(), "{:?}", r.errors);
        }
        for (requests, took, mails) in &rows {
            println!("cycle with 1 new post: {requests} request(s), {mails} mail(s) sent, in {took:?}");
        }
        let mean = rows.iter().map(|r| r.1.as_secs_f64()).sum::<f64>() / rows.len() as f64;
        println!("mean cycle (fetch + record + tally + SMTP) {:.1} ms; worst-case ballot → mail = poll interval + cycle", mean * 1000.0);
    });
}
