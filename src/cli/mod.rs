//! Command-line interface: clap argument structs and the dispatch to the
//! library. Input: parsed arguments. Output: text or JSON on stdout, an
//! exit code. All real work lives in the library.

use std::path::Path;

use anyhow::Context;

use clap::{ArgMatches, Args, Command as ClapCommand, FromArgMatches, Parser, Subcommand};

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
    Smv(Deferred<puzzle::SmvArgs>),
    /// Read a NuSMV/nuXmv counterexample (text or XML) back into a verified solution.
    Trace(Deferred<puzzle::TraceArgs>),
    /// Solve a grid puzzle with the built-in bounded model checker or NuSMV.
    Solve(Deferred<puzzle::SolveArgs>),
    /// Write the bounded unrolling of a puzzle as DIMACS CNF.
    Cnf(Deferred<puzzle::CnfArgs>),
    /// Deductive games: specs, knowledge, strategies, analysis.
    Game(Deferred<game::GameArgs>),
}

/// A subcommand's arguments, described to clap only when that subcommand
/// is the one given (or its help is asked for): [`ClapCommand::defer`].
/// Building every subcommand's arguments (the `game` tree alone has
/// dozens) on every run was a quarter of the code a short `solve` first
/// touches, paid again by each run started after a pause (cachegrind on
/// numbrix-9x9-s1: clap 2,000 of 8,200 instruction-cache lines missed,
/// 1,100 of 7,300 deferred; `--version` 0.79 -> 0.64 ms CPU after a 50 ms
/// pause, medians of 31 interleaved runs).
#[derive(Debug)]
pub struct Deferred<T>(pub T);

impl<T: FromArgMatches> FromArgMatches for Deferred<T> {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(m).map(Deferred)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(m)
    }
}

impl<T: Args> Args for Deferred<T> {
    fn group_id() -> Option<clap::Id> {
        T::group_id()
    }

    fn augment_args(cmd: ClapCommand) -> ClapCommand {
        cmd.defer(T::augment_args)
    }

    fn augment_args_for_update(cmd: ClapCommand) -> ClapCommand {
        cmd.defer(T::augment_args_for_update)
    }
}

/// Marks an error as the user's input being wrong (exit code 2).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct BadInput(pub anyhow::Error);

/// From how many open cells `solve` asks for huge pages before it builds
/// its models ([`crate::heap::huge_heap`]): a 5x5 board's whole run touches
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

pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Smv(Deferred(args)) => puzzle::smv(args),
        Command::Trace(Deferred(args)) => puzzle::trace(args),
        Command::Solve(Deferred(args)) => puzzle::solve(args),
        Command::Cnf(Deferred(args)) => puzzle::cnf(args),
        Command::Game(Deferred(args)) => game::run(args),
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
    use super::{write_atomically, Cli, Command, Deferred};
    use clap::{CommandFactory, Parser};
    use std::os::unix::fs::{symlink, FileTypeExt, PermissionsExt};

    /// clap's own checks of every (sub)command, the deferred argument
    /// lists included: `debug_assert` builds the whole tree, which a run
    /// never does.
    #[test]
    fn every_subcommand_passes_clap_checks() {
        Cli::command().debug_assert();
    }

    /// Deferred arguments still parse, give their defaults, reject what
    /// they do not know, and show in the subcommand's help.
    #[test]
    fn deferred_arguments_parse_and_show_in_help() {
        let cli = Cli::try_parse_from(["checkmate", "solve", "p.txt", "--count", "2", "--json"]);
        let Ok(Cli {
            command: Command::Solve(Deferred(args)),
        }) = cli
        else {
            panic!("not a solve: {cli:?}");
        };
        assert_eq!(args.puzzle.to_str(), Some("p.txt"));
        assert_eq!(args.count, Some(2));
        assert!(args.json);
        assert_eq!(args.timeout, None);
        let err = Cli::try_parse_from(["checkmate", "cnf", "p.txt", "--bogus"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::UnknownArgument);
        let mut cmd = Cli::command();
        let help = cmd
            .find_subcommand_mut("solve")
            .expect("solve is a subcommand")
            .render_long_help()
            .to_string();
        assert!(help.contains("--count"), "{help}");
        let game = Cli::try_parse_from(["checkmate", "game", "spec", "--help"]).unwrap_err();
        assert_eq!(game.kind(), clap::error::ErrorKind::DisplayHelp);
    }

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
