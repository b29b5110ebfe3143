//! The service log: lines on standard error (journald picks them up under systemd). English,
//! for developers; the judge reads mail.

/// One log line.
pub fn line(s: &str) {
    eprintln!("{s}");
}
