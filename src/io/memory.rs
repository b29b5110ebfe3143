//! The process's memory between cycles: what a cycle allocated and dropped (a catch-up's pages,
//! a chart, a mail) is handed back to the system, so the idle daemon holds what it keeps and no
//! more. glibc's allocator keeps freed memory in its arenas for reuse; `malloc_trim` returns
//! the free parts. Elsewhere (musl, other systems) nothing is done.

/// Return the allocator's free memory to the system, once the process holds `GROWN` more than
/// after the last trim. A trim walks every free chunk and gives each free page back, and the
/// next cycle faults them in again: after every cycle it was a tenth of a busy game's CPU (the
/// simulator's profile) where most cycles drop a few hundred KB. The idle daemon holds at most
/// `GROWN` more than a trim would leave it.
pub fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::sync::atomic::{AtomicU64, Ordering};
        /// The resident set after the last trim, in bytes (0: none yet).
        static AFTER: AtomicU64 = AtomicU64::new(0);
        let before = resident();
        let after = AFTER.load(Ordering::Relaxed);
        if after != 0 && before.is_some_and(|b| b < after + GROWN) {
            return;
        }
        // SAFETY: malloc_trim only walks the allocator's own free lists; it takes no pointers.
        unsafe {
            libc::malloc_trim(0);
        }
        AFTER.store(resident().unwrap_or(0), Ordering::Relaxed);
    }
}

/// How much the resident set may grow after a trim before the next.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const GROWN: u64 = 2 * 1024 * 1024;

/// The process's resident set in bytes (`/proc/self/statm`), if it reads.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn resident() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf reads a constant of the system; it takes no pointers.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * u64::try_from(page).ok()?)
}

/// One allocator arena for the whole process. glibc gives each thread that allocates an arena
/// of its own (up to 8 per core), and each keeps its live scraps and free pages apart: the
/// idle daemon's runtime threads held ~6 MB that way. Its threads seldom allocate at once
/// (a cycle at a time), so they share one arena at no cost worth measuring. Called before the
/// runtime's threads start.
pub fn one_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt sets an allocator parameter; it takes no pointers.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}
