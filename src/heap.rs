//! How the binary's heap is laid out: glibc malloc's tuning for a process
//! that lives a few milliseconds ([`tune_malloc`]) and the huge pages
//! asked for a solve that allocates megabytes ([`huge_heap`]).
//!
//! Input: nothing but the process's own heap. Output: none; every step
//! here is a hint to the allocator or the kernel, and when one fails the
//! heap stays as it was (nothing here is needed for correctness).

/// Tunes glibc's malloc for a process that lives a few milliseconds and
/// allocates its large buffers once:
/// * the heap grows (and is kept) 4 MiB at a time rather than 128 KiB.
///   With the default, the domain analysis' large buffers of a 9x9
///   `solve` (180 and 450 KB) were mappings of their own, mapped and
///   unmapped per buffer; with the padding they come from the heap: 580
///   -> 463 page faults and 0.3-0.6 ms less CPU on `solve --count 2` of a
///   9x9 numbrix or hidato puzzle (~5 ms in all), 2-3% on waypoint
///   9x9/15x15;
/// * one arena for every thread, and buffers under 32 MiB from the heap
///   (not mappings of their own, returned only past 64 MiB free at the
///   top): a search runs on a thread of its own (`bmc::race`), whose
///   fresh arena took its memory page by page and mapped and unmapped
///   every large buffer. `solve` of the 9x9 hidato and waypoint puzzles,
///   CPU ms, lowest and first quartile of 200 interleaved runs: 3.77/5.25
///   -> 3.45/4.96 and 3.22/3.45 -> 3.19/3.40. Two racing searches share
///   the arena's lock only for blocks past the per-thread caches.
pub fn tune_malloc() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets tuning parameters of the allocator; called
    // first thing in `main`, before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, TOP_PAD as i32);
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
    }
}

/// How much the heap grows at a time (see [`tune_malloc`]).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TOP_PAD: usize = 4 << 20;

/// How much of the heap [`huge_heap`] asks huge pages for.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const HUGE_HEAP: usize = 16 << 20;

/// Asks for the next 16 MiB of the heap to be backed by transparent huge
/// pages (honoured when `/sys/kernel/mm/transparent_hugepage/enabled` is
/// `always` or `madvise`, a no-op otherwise): the heap is then faulted
/// in one 2 MiB page at a time, not 4 KiB at a time (each fault ~1.8 us
/// here, the kernel zeroing and accounting the page). For a command
/// about to allocate megabytes, while it has one thread (`solve` of a
/// board of [`crate::cli::HUGE_HEAP_CELLS`] open cells or more), not at
/// start-up: zeroing a 2 MiB page costs more than the faults it saves
/// on a run that touches less than about a megabyte.
///
/// How: a first 2 MiB block is taken from the heap's top, growing the
/// heap by [`HUGE_HEAP`] (the padding is raised for this one growth);
/// the whole 2 MiB pages of that growth from the first boundary a page
/// past its end are advised, then a filler block up to that boundary is
/// taken, so the blocks after it start on it. The two blocks are never
/// touched or freed (virtual memory only: no page of them but their
/// headers' is faulted in). The advice comes before anything in its
/// range is touched: a 2 MiB block with a 4 KiB page in it already is
/// never backed by a huge one (a filler that ran past the boundary and
/// put the heap's header in it took that from half the runs). Only the
/// pages touched are backed: a 9x9 `solve` touches 2-3 of them. Nothing
/// here is needed for correctness: when a step fails the heap stays as
/// it was.
///
/// Measured (`solve --count 2`): page faults 406 -> ~137 on numbrix
/// 9x9 s1, 470 -> ~137 on waypoint 9x9 unique-s3 (asked at start-up,
/// they were ~100-115, but every small run paid for a 2 MiB page: CPU
/// ms, medians of 61-101 interleaved runs, numbrix 3x3 1.02 -> 1.24, 5x5
/// 1.59 -> 1.90, `--version` 0.53 -> 0.58, hidato and waypoint 6x6
/// even, numbrix 12x12 18.2 -> 16.8; 9x9 puzzles 0.3-0.46 ms less);
/// peak memory of a 9x9 solve 5 -> 7-8 MB. CPU times on this shared
/// machine drift by 10-30% between runs of one binary, so the faults
/// are the firmer measure.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn huge_heap() {
    const HUGE: usize = 2 << 20;
    // SAFETY: malloc/mallopt/sbrk(0)/madvise on the process's own heap,
    // while the process has one thread (callers' contract; malloc is
    // thread-safe anyway, the blocks taken only leave a gap); sbrk(0)
    // only reads the break; MADV_HUGEPAGE changes no memory contents and
    // only covers whole pages inside the heap (past the first block, up
    // to the break).
    unsafe {
        // black_box: the compiler may otherwise elide an allocation whose
        // block is never used (and they are not, but for where they lie).
        libc::mallopt(libc::M_TOP_PAD, HUGE_HEAP as i32);
        let first = std::hint::black_box(libc::malloc(HUGE));
        libc::mallopt(libc::M_TOP_PAD, TOP_PAD as i32);
        if first.is_null() {
            return;
        }
        // Where the heap's free top starts (a chunk is its block and a
        // 16-byte header; the header of the next one ends the block).
        let top = first as usize + HUGE;
        let start = (top + 4096 + HUGE - 1) & !(HUGE - 1);
        let end = libc::sbrk(0) as usize & !(HUGE - 1);
        if end <= start {
            return;
        }
        // Advised before anything in it is touched: a 2 MiB block with
        // one 4 KiB page already in is never backed by a huge one.
        libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        // The rest of the top up to the boundary, with room for the
        // headers, so the next blocks start on it.
        std::hint::black_box(libc::malloc(start - top - 64));
    }
}

/// See the Linux version: elsewhere the heap is left as it is.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn huge_heap() {}
