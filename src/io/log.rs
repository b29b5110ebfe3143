//! The service log: lines on standard error (journald picks them up under systemd). Chinese,
//! like everything else the judge reads (issue 32: a judge looks in `journalctl -u bansha`);
//! what a script may grep stays as it is: tid/pid numbers, times, file names, the repair JSON.

/// One log line, written whole in one call (a process killed mid-line leaves no half line
/// for journald). A log that cannot be written (standard error sent to a file on a full disk,
/// a closed pipe) loses the line, never the cycle: `eprintln!` would panic.
pub fn line(s: &str) {
    use std::io::Write;
    let _ = std::io::stderr()
        .lock()
        .write_all(format!("{s}\n").as_bytes());
}
