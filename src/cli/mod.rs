//! Command-line interface: clap argument structs and the dispatch to the
//! library. Input: parsed arguments. Output: text or JSON on stdout, an
//! exit code. All real work lives in the library.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub mod game;
pub mod optimal;

/// Model checking for puzzles and games.
#[derive(Debug, Parser)]
#[command(name = "checkmate", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Deductive games: specs, knowledge, strategies, analysis.
    Game(game::GameArgs),
    /// Emit a deduction puzzle (a game plus a history) as an SMV model.
    Smv(game::SmvArgs),
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
        Command::Game(args) => game::run(args),
        Command::Smv(args) => game::smv_cmd(args),
    }
}
