//! The `checkmate` binary: parses arguments, calls the library, prints
//! `checkmate: <error>` once and sets the exit code (0 success — including
//! "no solution exists" —, 1 failure of a tool or limit, 2 bad input; a
//! panic prints its message and ends the release build with SIGABRT, as
//! it is built with `panic = "abort"`, and a build that unwinds with 101).
//!
//! It starts as a C program does (`main` below, no Rust runtime set-up):
//! the runtime's start-up checks the standard descriptors, ignores
//! SIGPIPE, names the main thread and guards its stack, which reads
//! `/proc/self/maps` and maps an alternate signal stack: a dozen system
//! calls, ~0.1 ms of CPU here (an empty Rust program 0.81 -> 0.69 ms,
//! medians of 101 interleaved runs), 3-4% of a 9x9 `solve`. What is lost:
//! a stack overflow ends in SIGSEGV without the runtime's message, and a
//! panic names the thread `<unnamed>`. The arguments are read from C's
//! `argv` (not every C library hands them to the runtime without its
//! start-up), and leaving through [`std::process::exit`] flushes standard
//! output.

#![cfg_attr(not(test), no_main)]

mod cli;
mod heap;

#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: heap::Allocator = heap::Allocator;

use std::ffi::{c_char, c_int, CStr, OsStr, OsString};

use clap::Parser;

#[cfg_attr(not(test), no_mangle)]
extern "C" fn main(argc: c_int, argv: *const *const c_char) -> c_int {
    // SAFETY: the C runtime passes `argc` NUL-terminated strings in
    // `argv`, which live as long as the process.
    let args = unsafe { arguments(argc, argv) };
    // A panic must not unwind into the C caller (in a build that unwinds:
    // the release build aborts first): the message is printed by the
    // panic hook, and the exit code is the runtime's, 101.
    let code = std::panic::catch_unwind(|| run(args)).unwrap_or(101);
    std::process::exit(code)
}

/// The command line as C's `main` has it (not through `std::env::args`,
/// which not every C library hands to a program without the Rust
/// runtime).
///
/// # Safety
///
/// `argv` holds `argc` pointers to NUL-terminated strings.
unsafe fn arguments(argc: c_int, argv: *const *const c_char) -> Vec<OsString> {
    use std::os::unix::ffi::OsStrExt;
    let n = usize::try_from(argc).unwrap_or(0);
    (0..n)
        .map(|i| {
            // SAFETY: the caller's contract.
            let arg = unsafe { CStr::from_ptr(*argv.add(i)) };
            OsStr::from_bytes(arg.to_bytes()).to_os_string()
        })
        .collect()
}

/// The whole command; its exit code.
fn run(args: Vec<OsString>) -> i32 {
    restore_sigpipe();
    heap::tune_malloc();
    let args = cli::Cli::parse_from(args);
    match cli::run(args) {
        Ok(()) => 0,
        Err(err) => {
            eprintln!("checkmate: {err:#}");
            i32::from(cli::exit_code(&err))
        }
    }
}

/// Printing into a closed pipe (`checkmate … | head`) ends the process
/// quietly, as other command-line tools do (the Rust runtime, which would
/// ignore SIGPIPE and turn it into an error, is not set up; the signal's
/// disposition may still be inherited).
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any other thread exists;
    // SIG_DFL is a valid disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
