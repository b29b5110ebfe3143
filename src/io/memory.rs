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
