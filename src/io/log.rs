//! The service log: lines on standard error (journald picks them up under systemd). English,
//! for developers; the judge reads mail.

/// One log line. A log that cannot be written (standard error sent to a file on a full disk,
/// a closed pipe) loses the line, never the cycle: `eprintln!` would panic.
pub fn line(s: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{s}");
}
