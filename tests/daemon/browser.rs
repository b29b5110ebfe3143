//! Headless Chromium driven over the DevTools protocol, for the dashboard's buttons: a page is
//! loaded, fields are filled and buttons clicked by the page's own DOM (`element.click()` runs
//! the page's handlers, which post to the daemon as a judge's click does), and what the page
//! then shows is read back. A websocket (tungstenite) and four protocol methods
//! (`Target.createTarget`, `Target.attachToTarget`, `Runtime.evaluate`,
//! `Page.captureScreenshot`) are all it takes, so no driver crate (the ones on crates.io fetch
//! the protocol's description from the network while building).

use serde_json::{json, Value};
use std::io::BufRead;
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

pub(crate) struct Browser {
    child: std::process::Child,
    ws: WebSocket<MaybeTlsStream<TcpStream>>,
    session: String,
    next: u64,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Browser {
    /// Chromium with a page open on `about:blank`.
    pub(crate) fn launch(profile: &Path) -> Browser {
        let mut child = std::process::Command::new(crate::dashboard::chromium())
            .args(crate::dashboard::CHROMIUM_FLAGS)
            .args(["--remote-debugging-port=0", "--window-size=1280,1800"])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("chromium");
        // "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/ID" on stderr.
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                if let Some(url) = line.split("listening on ").nth(1) {
                    let _ = tx.send(url.trim().to_string());
                }
            }
        });
        let url = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("chromium's DevTools address");
        let (ws, _) = tungstenite::connect(&url).expect("the DevTools websocket");
        let mut b = Browser {
            child,
            ws,
            session: String::new(),
            next: 0,
        };
        let target = b.call(None, "Target.createTarget", json!({"url": "about:blank"}));
        let id = target["targetId"].as_str().unwrap().to_string();
        let attached = b.call(
            None,
            "Target.attachToTarget",
            json!({"targetId": id, "flatten": true}),
        );
        b.session = attached["sessionId"].as_str().unwrap().to_string();
        b
    }

    /// One protocol call (on the page when `page`), its result; events between are skipped.
    fn call(&mut self, page: Option<()>, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if page.is_some() {
            msg["sessionId"] = Value::String(self.session.clone());
        }
        self.ws.send(Message::text(msg.to_string())).unwrap();
        loop {
            let m = self.ws.read().expect("DevTools answer");
            let Ok(text) = m.to_text() else { continue };
            let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
            if v["id"] == id {
                if !v["error"].is_null() {
                    return json!({"error": v["error"]});
                }
                return v["result"].clone();
            }
        }
    }

    /// Evaluate `js` in the page (promises awaited); its value, or `Null` when it threw or the
    /// page was between documents.
    pub(crate) fn eval(&mut self, js: &str) -> Value {
        let r = self.call(
            Some(()),
            "Runtime.evaluate",
            json!({"expression": js, "returnByValue": true, "awaitPromise": true}),
        );
        if !r["exceptionDetails"].is_null() || !r["error"].is_null() {
            return Value::Null;
        }
        r["result"]["value"].clone()
    }

    /// Open `url` and wait until `ready` (a JS expression) is true.
    pub(crate) fn open(&mut self, url: &str, ready: &str) {
        self.eval(&format!("location.href = {}", json!(url)));
        self.wait(ready, Duration::from_secs(30));
    }

    /// Wait until the JS expression `cond` is true in the page (across reloads).
    pub(crate) fn wait(&mut self, cond: &str, timeout: Duration) {
        let start = Instant::now();
        while start.elapsed() < timeout {
            if self.eval(&format!("document.readyState === 'complete' && !!({cond})")) == true {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!(
            "the page never showed {cond}: {}",
            self.eval("document.body ? document.body.innerText : ''")
        );
    }

    /// The page as a PNG, whole.
    pub(crate) fn screenshot(&mut self, to: &Path) {
        use base64::Engine;
        let r = self.call(
            Some(()),
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": true}),
        );
        let png = base64::engine::general_purpose::STANDARD
            .decode(r["data"].as_str().expect("a screenshot"))
            .unwrap();
        std::fs::write(to, png).unwrap();
    }
}
