//! The one TLS crypto provider of the whole tree: ring.
//!
//! reqwest (forum reads) and lettre (mail) both run on rustls. reqwest's `rustls` feature would
//! compile aws-lc as its provider while lettre already uses ring; two crypto libraries doubled
//! the TLS part of a cold build, and aws-lc needs a C toolchain and cmake-like build steps on a
//! small server. So reqwest is built without a provider (`rustls-no-provider`) and ring is
//! installed here as the process default before any client is built.

/// Installs ring as rustls's process-wide provider; a second call (or one after another part
/// of the process installed the same) changes nothing.
pub fn ensure_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Losing a race to another thread installing a provider is fine: one is installed.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_client_builds_once_the_provider_is_installed() {
        super::ensure_provider();
        super::ensure_provider();
        assert!(reqwest::Client::builder().build().is_ok());
    }
}
