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
pub fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot create a file in `{}`", dir.display()))?;
    tmp.write_all(bytes)?;
    tmp.persist(path)
        .with_context(|| format!("cannot write `{}`", path.display()))?;
    Ok(())
}
