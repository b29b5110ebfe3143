//! The dashboard's listening socket (`[status] listen`).

/// Bind the address; the error names the key and says in the judge's words what the system
/// refused.
pub async fn bind(addr: &str) -> anyhow::Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("{}", explain(addr, &e)))
}

/// Why `addr` could not be listened on, in Chinese, with the system's own words kept at the
/// end for a search.
pub fn explain(addr: &str, e: &std::io::Error) -> String {
    use std::io::ErrorKind;
    let port = addr.rsplit(':').next().unwrap_or(addr);
    let why = match e.kind() {
        ErrorKind::AddrInUse => format!(
            "端口 {port} 已被占用：另一个 bansha 在运行？（systemctl status bansha 或 ss -ltnp 查看是谁占用；或在 [status] listen 换一个端口）"
        ),
        ErrorKind::PermissionDenied => format!(
            "没有权限监听端口 {port}：1024 以下的端口只有 root 能用；请在 [status] listen 用 1024 以上的端口（默认 8719）"
        ),
        ErrorKind::AddrNotAvailable => format!(
            "本机没有地址 {addr}：[status] listen 应是本机的地址（通常 127.0.0.1:8719）"
        ),
        _ => format!("无法监听 {addr}"),
    };
    format!("status.listen {addr}：{why}（系统：{e}）")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_port_in_use_is_said_in_the_judges_words() {
        let first = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = first.local_addr().unwrap().to_string();
        let port = first.local_addr().unwrap().port();
        let e = bind(&addr).await.unwrap_err().to_string();
        assert!(
            e.contains(&format!("端口 {port} 已被占用：另一个 bansha 在运行？")),
            "{e}"
        );
        assert!(e.starts_with(&format!("status.listen {addr}")), "{e}");
    }

    #[test]
    fn each_refusal_names_its_cause() {
        let e = |k| std::io::Error::from(k);
        use std::io::ErrorKind::*;
        assert!(explain("0.0.0.0:80", &e(PermissionDenied)).contains("没有权限监听端口 80"));
        assert!(
            explain("10.9.9.9:8719", &e(AddrNotAvailable)).contains("本机没有地址 10.9.9.9:8719")
        );
        assert!(explain("127.0.0.1:8719", &e(Other)).contains("无法监听 127.0.0.1:8719"));
    }
}
