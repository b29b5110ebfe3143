//! Progress of long work (the first read of a thread of hundreds of pages): a bar on a terminal
//! (indicatif), progress lines in the log otherwise (every tenth of the way).

use std::io::IsTerminal;

/// Reads shorter than this many pages go without progress.
pub const LONG_READ_PAGES: u64 = 20;

pub struct Progress {
    label: String,
    total: u64,
    done: u64,
    bar: Option<indicatif::ProgressBar>,
    /// The last tenth logged.
    logged: u64,
}

impl Progress {
    /// `label` names the work (Chinese), on the terminal bar and in the log lines alike.
    pub fn new(label: String, total: u64) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new(total);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{msg} [{bar:40}] {pos}/{len} 页 · 剩余约 {eta}",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_message(label.clone());
            bar
        });
        Progress {
            label,
            total,
            done: 0,
            bar,
            logged: 0,
        }
    }

    /// The total grew (a thread got a page while being read).
    pub fn set_total(&mut self, total: u64) {
        self.total = total.max(self.done);
        if let Some(b) = &self.bar {
            b.set_length(self.total);
        }
    }

    pub fn inc(&mut self) {
        self.done += 1;
        match &self.bar {
            Some(b) => b.inc(1),
            None => {
                let tenth = self.done * 10 / self.total.max(1);
                if tenth > self.logged {
                    self.logged = tenth;
                    crate::io::log::line(&format!(
                        "{}：第 {}/{} 页（{}%）",
                        self.label,
                        self.done,
                        self.total,
                        self.done * 100 / self.total.max(1)
                    ));
                }
            }
        }
    }

    pub fn finish(self) {
        if let Some(b) = self.bar {
            b.finish_and_clear();
        }
    }
}
