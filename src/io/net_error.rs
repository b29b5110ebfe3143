//! A failed request said by its cause. reqwest's own text is "error sending request for url
//! (…)" whatever happened; the judge needs to know whether the name did not resolve, the
//! server refused, nothing answered in time, or the TLS handshake failed — each has its own
//! fix.

use std::error::Error;

/// The cause of a failed request, in Chinese, with the innermost system message kept at the
/// end (for a search).
pub fn cause(e: &reqwest::Error) -> String {
    let host = e
        .url()
        .map(|u| match (u.host_str(), u.port()) {
            (Some(h), Some(p)) => format!("{h}:{p}"),
            (Some(h), None) => h.to_string(),
            _ => u.to_string(),
        })
        .unwrap_or_else(|| "论坛".into());
    let mut chain: Vec<&(dyn Error + 'static)> = Vec::new();
    let mut next = e.source();
    while let Some(s) = next {
        chain.push(s);
        next = s.source();
    }
    let text = chain
        .iter()
        .map(|s| s.to_string().to_lowercase())
        .collect::<Vec<_>>()
        .join(" / ");
    let io_kind = chain
        .iter()
        .find_map(|s| s.downcast_ref::<std::io::Error>())
        .map(|io| io.kind());
    use std::io::ErrorKind;
    let why = if e.is_timeout() || io_kind == Some(ErrorKind::TimedOut) {
        format!("超时：{host} 在限定时间内没有回应（服务器忙，或网络不通）")
    } else if text.contains("dns error")
        || text.contains("failed to lookup address")
        || text.contains("name or service not known")
        || text.contains("no address associated")
    {
        format!("域名解析失败：找不到 {host}（地址写错了，或本机的 DNS 不通）")
    } else if io_kind == Some(ErrorKind::ConnectionRefused) {
        format!("连接被拒绝：{host} 上没有服务在这个端口（地址或端口写错了，或服务器没在运行）")
    } else if text.contains("certificate")
        || text.contains("tls")
        || text.contains("handshake")
        || text.contains("invalid peer")
        || text.contains("corrupt message")
    {
        format!(
            "TLS（https）握手失败：{host} 的证书不被信任、已过期或名字不符，或这个端口不说 https"
        )
    } else if io_kind == Some(ErrorKind::ConnectionReset)
        || io_kind == Some(ErrorKind::ConnectionAborted)
        || io_kind == Some(ErrorKind::UnexpectedEof)
    {
        format!("连接被 {host} 中途断开")
    } else if e.is_connect() {
        format!("无法连接 {host}")
    } else if e.is_body() || e.is_decode() {
        format!("读取 {host} 的回复时中断")
    } else {
        format!("请求 {host} 失败")
    };
    let inner = chain
        .last()
        .map(|s| s.to_string())
        .unwrap_or_else(|| e.to_string());
    format!("{why}（{inner}）")
}

#[cfg(test)]
mod tests {
    use super::cause;
    use std::time::Duration;

    fn client() -> reqwest::Client {
        crate::io::tls::ensure_provider();
        reqwest::Client::builder()
            .timeout(Duration::from_millis(700))
            .build()
            .unwrap()
    }

    async fn fail(url: String) -> String {
        let e = client().get(url).send().await.unwrap_err();
        let said = cause(&e);
        assert!(!said.contains("error sending request"), "{said}");
        said
    }

    #[tokio::test]
    async fn a_closed_port_is_a_refusal() {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let said = fail(format!("http://127.0.0.1:{port}/forum.php")).await;
        assert!(
            said.starts_with(&format!("连接被拒绝：127.0.0.1:{port}")),
            "{said}"
        );
    }

    #[tokio::test]
    async fn a_name_that_does_not_resolve_is_a_dns_failure() {
        // `.invalid` never resolves (RFC 6761).
        let said = fail("http://bbs.bansha-test.invalid/forum.php".into()).await;
        assert!(
            said.starts_with("域名解析失败：找不到 bbs.bansha-test.invalid"),
            "{said}"
        );
    }

    #[tokio::test]
    async fn a_server_that_never_answers_is_a_timeout() {
        let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = l.local_addr().unwrap().port();
        let _hold = tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((s, _)) = l.accept().await {
                held.push(s);
            }
        });
        let said = fail(format!("http://127.0.0.1:{port}/")).await;
        assert!(said.starts_with("超时："), "{said}");
    }

    #[tokio::test]
    async fn https_to_a_port_that_does_not_speak_it_is_a_tls_failure() {
        use tokio::io::AsyncWriteExt;
        let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = l.local_addr().unwrap().port();
        tokio::spawn(async move {
            while let Ok((mut s, _)) = l.accept().await {
                let _ = s
                    .write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                    .await;
            }
        });
        let said = fail(format!("https://127.0.0.1:{port}/")).await;
        assert!(said.starts_with("TLS（https）握手失败"), "{said}");
    }
}
