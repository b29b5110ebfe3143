//! The service log: lines on standard error (journald picks them up under systemd). Chinese,
//! like everything else the judge reads (issue 32: a judge looks in `journalctl -u bansha`);
//! what a script may grep stays as it is: tid/pid numbers, times, file names, the repair JSON.

/// One log line, written whole in one call (a process killed mid-line leaves no half line
/// for journald). A log that cannot be written (standard error sent to a file on a full disk,
/// a closed pipe) loses the line, never the cycle: `eprintln!` would panic.
pub fn line(s: &str) {
    use std::io::Write;
    if CAPTURED.with(|c| {
        c.borrow_mut()
            .as_mut()
            .map(|v| v.push(s.to_string()))
            .is_some()
    }) {
        return;
    }
    let _ = std::io::stderr()
        .lock()
        .write_all(format!("{s}\n").as_bytes());
}

thread_local! {
    /// Lines kept instead of written, on a thread that asked (`capture`).
    static CAPTURED: std::cell::RefCell<Option<Vec<String>>> = const { std::cell::RefCell::new(None) };
}

/// From now on, this thread's log lines are kept (for `take`) instead of written: the
/// simulator runs the whole service on one thread and keeps its log in the run's trace.
pub fn capture() {
    CAPTURED.with(|c| *c.borrow_mut() = Some(Vec::new()));
}

/// The lines this thread kept since the last `take`.
pub fn take() -> Vec<String> {
    CAPTURED.with(|c| {
        c.borrow_mut()
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    })
}
