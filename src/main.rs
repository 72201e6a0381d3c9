//! The `checkmate` binary: parses arguments, calls the library, prints
//! `checkmate: <error>` once and sets the exit code (0 success — including
//! "no solution exists" —, 1 failure of a tool or limit, 2 bad input, 101
//! a panic).
//!
//! It starts as a C program does (`main` below, no Rust runtime set-up):
//! the runtime's start-up checks the standard descriptors, ignores
//! SIGPIPE, names the main thread and guards its stack, which reads
//! `/proc/self/maps` and maps an alternate signal stack: a dozen system
//! calls, ~0.1 ms of CPU here (an empty Rust program 0.81 -> 0.69 ms,
//! medians of 101 interleaved runs), 3-4% of a 9x9 `solve`. What is lost:
//! a stack overflow ends in SIGSEGV without the runtime's message, and a
//! panic names the thread `<unnamed>`. `std::env::args` still works (the
//! C library hands the arguments to the runtime's initialiser), and
//! leaving through [`std::process::exit`] flushes standard output.

#![cfg_attr(not(test), no_main)]

mod cli;
mod heap;

#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: heap::Allocator = heap::Allocator;

use clap::Parser;

#[cfg_attr(not(test), no_mangle)]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    // A panic must not unwind into the C caller: the message is printed
    // by the panic hook, and the exit code is the runtime's, 101.
    let code = std::panic::catch_unwind(run).unwrap_or(101);
    std::process::exit(code)
}

/// The whole command; its exit code.
fn run() -> i32 {
    restore_sigpipe();
    heap::tune_malloc();
    let args = cli::Cli::parse();
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
