//! The `checkmate` binary: parses arguments, calls the library, prints
//! `checkmate: <error>` once and sets the exit code (0 success — including
//! "no solution exists" —, 1 failure of a tool or limit, 2 bad input).

mod cli;
mod heap;

#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: heap::Allocator = heap::Allocator;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    restore_sigpipe();
    heap::tune_malloc();
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("checkmate: {err:#}");
            ExitCode::from(cli::exit_code(&err))
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
