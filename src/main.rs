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
        libc::mallopt(libc::M_TOP_PAD, 4 << 20);
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
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
