//! The `checkmate` binary: parses arguments, calls the library, prints
//! `checkmate: <error>` once and sets the exit code (0 success — including
//! "no solution exists" —, 1 failure of a tool or limit, 2 bad input).

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    restore_sigpipe();
    tune_malloc();
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("checkmate: {err:#}");
            ExitCode::from(cli::exit_code(&err))
        }
    }
}

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
fn tune_malloc() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets tuning parameters of the allocator; called
    // first thing in `main`, before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, TOP_PAD as i32);
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    huge_heap();
}

/// How much the heap grows at a time (see [`tune_malloc`]).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TOP_PAD: usize = 4 << 20;

/// How much of the heap [`huge_heap`] asks huge pages for.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const HUGE_HEAP: usize = 16 << 20;

/// Asks for the next 16 MiB of the heap to be backed by transparent huge
/// pages (honoured when `/sys/kernel/mm/transparent_hugepage/enabled` is
/// `always` or `madvise`; a no-op otherwise): the heap of a short run is
/// then faulted in one 2 MiB page at a time, not 4 KiB at a time (each
/// fault ~1.8 us here, the kernel zeroing and accounting the page).
///
/// How: the next small block comes from just past a fresh probe block;
/// a filler block that ends at the next 2 MiB boundary is taken and
/// never touched or freed (virtual memory only: no page of it but its
/// header's is ever faulted in), so the blocks after it start on the
/// boundary; taking it grows the heap by [`HUGE_HEAP`] (the padding is
/// raised for this one growth), and the whole 2 MiB pages of that growth
/// are advised. Only the pages touched are backed: a 9x9 `solve` touches
/// 2-3 of them. Nothing here is needed for correctness: when a step
/// fails the heap stays as it was.
///
/// Measured (`solve --count 2` of the 9x9 numbrix s1/s2, hidato
/// unique-s3, waypoint unique-s3; 61 interleaved runs of both builds):
/// page faults 406 -> 113 (numbrix s1), 470 -> 115 (waypoint); CPU ms,
/// medians 4.95/6.44/3.53/3.31 -> 4.84/6.29/3.44/3.08 (the 2 MiB pages
/// are zeroed too, which takes back part of the faults saved); peak
/// memory 5 -> 8 MB.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn huge_heap() {
    const HUGE: usize = 2 << 20;
    // SAFETY: malloc/free/sbrk(0)/madvise on the process's own heap,
    // first thing in `main`, before any other thread exists; sbrk(0) only
    // reads the break; MADV_HUGEPAGE changes no memory contents and only
    // covers pages inside the heap (between the filler and the break).
    unsafe {
        // black_box: the compiler may otherwise elide an allocation whose
        // block is never used (and it is not, but for where it lies).
        let probe = std::hint::black_box(libc::malloc(16));
        if probe.is_null() {
            return;
        }
        let at = probe as usize;
        let mut start = (at + HUGE) & !(HUGE - 1);
        if start - at < 4096 {
            start += HUGE;
        }
        // The filler's chunk header and the probe's take a few words.
        libc::mallopt(libc::M_TOP_PAD, HUGE_HEAP as i32);
        let filler = std::hint::black_box(libc::malloc(start - at - 64));
        libc::mallopt(libc::M_TOP_PAD, TOP_PAD as i32);
        libc::free(probe);
        if filler.is_null() {
            return;
        }
        let end = libc::sbrk(0) as usize & !(HUGE - 1);
        if end > start {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

/// Rust ignores SIGPIPE, so printing into a closed pipe (`checkmate … |
/// head`) would panic; like other command-line tools, end quietly instead.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any other thread exists;
    // SIG_DFL is a valid disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
