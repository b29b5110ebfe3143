//! systemd's notify socket: readiness, the watchdog ping, stopping. Silent outside systemd.

/// The service is up (after the first, catch-up cycle).
pub fn ready() {
    let _ = sd_notify::notify(&[sd_notify::NotifyState::Ready]);
}

/// The watchdog interval systemd set for the unit, if any.
pub fn watchdog_enabled() -> Option<std::time::Duration> {
    sd_notify::watchdog_enabled()
}

/// One watchdog ping (sent only while cycles keep completing).
pub fn watchdog() {
    let _ = sd_notify::notify(&[sd_notify::NotifyState::Watchdog]);
}

/// The service is shutting down.
pub fn stopping() {
    let _ = sd_notify::notify(&[sd_notify::NotifyState::Stopping]);
}
