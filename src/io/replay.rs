//! A replay forum: captured Discuz mobile-API (v1) thread pages served again, as the thread
//! stood at a chosen moment. `bansha demo` serves it on loopback; the daemon tests and the
//! benches wrap the same pages in their own servers (with faults, or grown threads).

use serde_json::Value;

/// A captured thread: its posts in order, and the first page's envelope (everything around
/// the post list).
#[derive(Debug, Clone)]
pub struct Thread {
    pub posts: Vec<Value>,
    pub envelope: Value,
}

impl Thread {
    /// The thread from the JSON text of its captured pages, in page order.
    pub fn from_pages<S: AsRef<str>>(pages: &[S]) -> Result<Thread, serde_json::Error> {
        let mut posts = Vec::new();
        let mut envelope = Value::Null;
        for (i, page) in pages.iter().enumerate() {
            let v: Value = serde_json::from_str(page.as_ref())?;
            if let Some(list) = v["Variables"]["postlist"].as_array() {
                posts.extend(list.iter().cloned());
            }
            if i == 0 {
                envelope = v;
            }
        }
        Ok(Thread { posts, envelope })
    }

    /// The posts made by unix time `at` (the API's `dbdateline`).
    pub fn visible_at(&self, at: i64) -> Vec<Value> {
        self.posts
            .iter()
            .filter(|p| dateline(p) <= at)
            .cloned()
            .collect()
    }
}

/// Page `page` of a thread whose posts are `visible`, `ppp` to a page, claiming `replies`
/// replies. A page past the last is the last page, as Discuz clamps it.
pub fn page(envelope: &Value, visible: &[Value], page: usize, ppp: usize, replies: u64) -> Value {
    let ppp = ppp.max(1);
    let last = visible.len().div_ceil(ppp).max(1);
    let page = page.clamp(1, last);
    let mut out = envelope.clone();
    out["Variables"]["postlist"] = Value::Array(
        visible
            .iter()
            .skip((page - 1) * ppp)
            .take(ppp)
            .cloned()
            .collect(),
    );
    out["Variables"]["thread"]["replies"] = Value::String(replies.to_string());
    out
}

/// When a post was made, unix seconds (its `dbdateline`); a post without one is never shown.
pub fn dateline(p: &Value) -> i64 {
    p["dbdateline"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread() -> Thread {
        let pages: Vec<String> = (1..=3)
            .map(|p| {
                let posts: Vec<Value> = (0..10)
                    .map(|i| {
                        let n = (p - 1) * 10 + i;
                        serde_json::json!({"pid": n.to_string(), "dbdateline": (1000 + n).to_string()})
                    })
                    .take(if p == 3 { 5 } else { 10 })
                    .collect();
                serde_json::json!({"Variables": {"postlist": posts, "thread": {"replies": "24"}}})
                    .to_string()
            })
            .collect();
        Thread::from_pages(&pages).unwrap()
    }

    #[test]
    fn pages_are_cut_from_the_posts_visible_then_and_clamped_to_the_last() {
        let t = thread();
        assert_eq!(t.posts.len(), 25);
        let visible = t.visible_at(1014);
        assert_eq!(visible.len(), 15);
        let p2 = page(&t.envelope, &visible, 2, 10, 14);
        let pids: Vec<&str> = p2["Variables"]["postlist"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["pid"].as_str().unwrap())
            .collect();
        assert_eq!(pids, ["10", "11", "12", "13", "14"]);
        assert_eq!(p2["Variables"]["thread"]["replies"], "14");
        assert_eq!(page(&t.envelope, &visible, 9, 10, 14), p2, "clamped");
        assert_eq!(dateline(&serde_json::json!({})), i64::MAX);
    }
}
