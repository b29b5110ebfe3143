//! The process's memory between cycles: what a cycle allocated and dropped (a catch-up's pages,
//! a chart, a mail) is handed back to the system once it comes to more than a little (`trim`),
//! so the idle daemon holds what it keeps and at most a couple of MB more. glibc's allocator keeps freed memory in its arenas for reuse; `malloc_trim` returns
//! the free parts. Elsewhere (musl, other systems) nothing is done.

/// Return the allocator's free memory to the system, once the process holds `GROWN` more than
/// after the last trim. A trim walks every free chunk and gives each free page back, and the
/// next cycle faults them in again: after every cycle it was a tenth of a busy game's CPU (the
/// simulator's profile) where most cycles drop a few hundred KB. Between trims the idle
/// daemon's resident set is at most `GROWN` above what the last trim left; what the process
/// held then and let go since waits for the next (`trim_now` where that is much).
pub fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let after = AFTER.load(std::sync::atomic::Ordering::Relaxed);
        if after != 0 && resident().is_some_and(|b| b < after + GROWN) {
            return;
        }
    }
    trim_now();
}

/// Return the allocator's free memory to the system now: after something large was let go
/// that the process held at the last trim (the fonts, a minute after the last picture), which
/// `trim` would not see as growth.
pub fn trim_now() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: malloc_trim only walks the allocator's own free lists; it takes no pointers.
        unsafe {
            libc::malloc_trim(0);
        }
        AFTER.store(
            resident().unwrap_or(0),
            std::sync::atomic::Ordering::Relaxed,
        );
    }
}

/// The resident set after the last trim, in bytes (0: none yet).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
static AFTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

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
