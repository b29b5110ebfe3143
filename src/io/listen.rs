//! The dashboard's listening socket (`[status] listen`).

/// Bind the address; the error names the key.
pub async fn bind(addr: &str) -> anyhow::Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("status.listen {addr}: {e}"))
}
