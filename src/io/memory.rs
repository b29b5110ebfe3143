//! The process's memory between cycles: what a cycle allocated and dropped (a catch-up's pages,
//! a chart, a mail) is handed back to the system, so the idle daemon holds what it keeps and no
//! more. glibc's allocator keeps freed memory in its arenas for reuse; `malloc_trim` returns
//! the free parts. Elsewhere (musl, other systems) nothing is done.

/// Return the allocator's free memory to the system.
pub fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists; it takes no pointers.
    unsafe {
        libc::malloc_trim(0);
    }
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
