//! Command-line interface: clap argument structs and the dispatch to the
//! library. Input: parsed arguments. Output: text or JSON on stdout, an
//! exit code. All real work lives in the library.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;

use clap::{Parser, Subcommand};

pub mod game;
pub mod optimal;
pub mod puzzle;
pub mod reduce;

/// Model checking for puzzles and games.
#[derive(Debug, Parser)]
#[command(name = "checkmate", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write a puzzle (or a game's deduction puzzle / strategy) as a NuSMV or nuXmv model.
    Smv(puzzle::SmvArgs),
    /// Read a NuSMV/nuXmv counterexample (text or XML) back into a verified solution.
    Trace(puzzle::TraceArgs),
    /// Solve a grid puzzle with the built-in bounded model checker or NuSMV.
    Solve(puzzle::SolveArgs),
    /// Write the bounded unrolling of a puzzle as DIMACS CNF.
    Cnf(puzzle::CnfArgs),
    /// Deductive games: specs, knowledge, strategies, analysis.
    Game(game::GameArgs),
}

/// Marks an error as the user's input being wrong (exit code 2).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct BadInput(pub anyhow::Error);

/// From how many open cells `solve` asks for huge pages before it builds
/// its models ([`crate::huge_heap`]): a 5x5 board's whole run touches
/// too little heap for them to pay (1.59 -> 1.90 ms CPU), 6x6 boards come
/// out even, a 9x9 one gains 0.3-0.5 ms of ~3.
pub const HUGE_HEAP_CELLS: usize = 49;

/// Wraps an error about the user's input so `main` exits with code 2.
pub fn bad_input(err: impl Into<anyhow::Error>) -> anyhow::Error {
    anyhow::Error::new(BadInput(err.into()))
}

/// The exit code for an error: 2 for bad input, 1 otherwise.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    if err.chain().any(|e| e.is::<BadInput>()) {
        2
    } else {
        1
    }
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Smv(args) => puzzle::smv(args),
        Command::Trace(args) => puzzle::trace(args),
        Command::Solve(args) => puzzle::solve(args),
        Command::Cnf(args) => puzzle::cnf(args),
        Command::Game(args) => game::run(args),
    }
}

/// Writes `bytes` to `path` through a temporary file in the same
/// directory, so readers never see half a file.
///
/// Only a regular file (or a path that does not exist yet) is replaced
/// that way. Anything else is written in place: renaming a temporary
/// file over `/dev/null`, `/dev/stdout` or a named pipe would replace
/// the device, link or pipe itself with a regular file (run as root,
/// `-o /dev/null` once turned this machine's `/dev/null` into a file that
/// collected every program's discarded output). A symbolic link to a
/// regular file stays a link: its target is replaced, keeping its
/// permissions.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use std::io::Write;
    let cannot_write = || format!("cannot write `{}`", path.display());
    let target = match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .with_context(cannot_write)?;
            return f.write_all(bytes).with_context(cannot_write);
        }
        Ok(meta) => Some((
            std::fs::canonicalize(path).with_context(cannot_write)?,
            meta,
        )),
        Err(_) => None,
    };
    let path = target.as_ref().map_or(path, |(real, _)| real.as_path());
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot create a file in `{}`", dir.display()))?;
    tmp.write_all(bytes)?;
    if let Some((_, meta)) = &target {
        tmp.as_file()
            .set_permissions(meta.permissions())
            .with_context(cannot_write)?;
    }
    tmp.persist(path).with_context(cannot_write)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::write_atomically;
    use std::os::unix::fs::{symlink, FileTypeExt, PermissionsExt};

    #[test]
    fn replaces_a_regular_file_and_creates_a_new_one() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out.txt");
        write_atomically(&file, b"first").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&file, b"second").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"second");
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
    }

    #[test]
    fn a_link_to_a_file_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("real.txt");
        let link = dir.path().join("link.txt");
        std::fs::write(&file, b"old").unwrap();
        symlink(&file, &link).unwrap();
        write_atomically(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&file).unwrap(), b"new");
    }

    /// A named pipe stands for every file that is not a regular one
    /// (`/dev/null`, `/dev/stdout`): it must still be a pipe afterwards,
    /// and its reader must get the bytes.
    #[test]
    fn a_named_pipe_is_written_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a node.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        write_atomically(&fifo, b"through the pipe").unwrap();
        // Checked before joining: a replaced pipe would leave the reader
        // waiting for ever.
        let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo());
        assert_eq!(reader.join().unwrap(), b"through the pipe");
    }
}
