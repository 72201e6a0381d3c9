//! `checkmate game …`: deductive games from the command line.

use std::process::ExitCode;

use clap::{Args, Subcommand};

#[derive(Debug, Args)]
pub struct GameArgs {
    #[command(subcommand)]
    pub command: GameCommand,
}

#[derive(Debug, Subcommand)]
pub enum GameCommand {
    /// Print a built-in game's outcome table size.
    Info {
        /// A built-in game name (mastermind:PxC, black-peg:PxC, bulls-cows:PxC, coins:N, coins:N+1).
        game: String,
    },
    /// Compute an optimal strategy (expected or worst case), optionally
    /// writing its tree as JSON and DOT.
    Optimal(super::optimal::OptimalArgs),
}

pub fn run(args: GameArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        GameCommand::Info { game } => {
            let builtin: checkmate::game::table::Builtin =
                game.parse().map_err(super::bad_input)?;
            let table = builtin.table();
            println!(
                "{}: {} codes, {} experiments, {} outcomes",
                table.name,
                table.n_codes(),
                table.experiments.len(),
                table.outcomes.len()
            );
            Ok(ExitCode::SUCCESS)
        }
        GameCommand::Optimal(args) => super::optimal::run(args),
    }
}
