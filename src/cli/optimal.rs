//! `checkmate game optimal GAME …`: an optimal strategy, its figures, and
//! optionally the tree as JSON and Graphviz DOT.
//!
//! Input: a built-in game name or a spec file (see [`load_table`]), the
//! objective and limits. Output: a summary on
//! stdout (text or JSON), tree files written atomically, a progress line
//! on stderr while searching when stderr is a terminal.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use checkmate::game::optimal::{self, Objective, Options, Progress, Solution};
use checkmate::game::symmetry::{self, Symmetry};
use checkmate::game::table::Table;
use checkmate::game::tree_io;
use checkmate::game::{Game, Route};
use clap::{Args, ValueEnum};
use serde::Serialize;

#[derive(Debug, Args)]
pub struct OptimalArgs {
    /// The game: a spec file, or a built-in name (mastermind:PxC,
    /// black-peg:PxC, bulls-cows:PxC, coins:N, coins:N+1).
    pub game: String,
    /// What to minimise.
    #[arg(long, value_enum, default_value_t = ObjectiveArg::Total)]
    pub objective: ObjectiveArg,
    /// Every code must be found within this many experiments.
    #[arg(long, value_name = "D")]
    pub max_depth: Option<u32>,
    /// Play this experiment first (e.g. `AABB` or `guess AABB`) and
    /// optimise the rest.
    #[arg(long, value_name = "EXP")]
    pub first: Option<String>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// Write the strategy tree as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub tree: Option<std::path::PathBuf>,
    /// Write the strategy tree as Graphviz DOT to this file.
    #[arg(long, value_name = "FILE")]
    pub dot: Option<std::path::PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ObjectiveArg {
    /// Minimal total number of experiments over all codes (expected case).
    Total,
    /// Minimal worst case.
    Worst,
}

/// The machine-readable summary.
#[derive(Serialize)]
struct Report<'a> {
    game: &'a str,
    objective: String,
    max_depth: Option<u32>,
    total: u64,
    average: f64,
    worst: usize,
    histogram: &'a [u64],
    first: Option<String>,
    nodes: u64,
    /// Seconds.
    time: f64,
}

/// The table and symmetry of a game named on the command line: built-in
/// games get their native table and symmetry; spec files get the table
/// enumerated through SAT and no symmetry yet (the spec symmetry of
/// `game::reduce` can be adapted to [`Symmetry`] later).
pub fn load_table(game: &str) -> anyhow::Result<(Table, Option<Box<dyn Symmetry>>)> {
    let game = Game::load(game).map_err(super::bad_input)?;
    match game.builtin {
        Some(builtin) => {
            let table = builtin.table();
            let sym = symmetry::for_builtin(&builtin, &table);
            Ok((table, sym))
        }
        None => {
            let table = game.table(Route::Spec).map_err(super::bad_input)?;
            Ok((table, None))
        }
    }
}

pub fn run(args: OptimalArgs) -> anyhow::Result<ExitCode> {
    let (table, sym) = load_table(&args.game)?;
    let first = match &args.first {
        None => None,
        Some(name) => Some(tree_io::experiment_by_name(&table, name).ok_or_else(|| {
            super::bad_input(anyhow::anyhow!(
                "game {} has no experiment `{name}`",
                table.name
            ))
        })?),
    };
    let options = Options {
        objective: match args.objective {
            ObjectiveArg::Total => Objective::Total,
            ObjectiveArg::Worst => Objective::Worst,
        },
        max_depth: args.max_depth,
        first,
    };
    let show = |p: &Progress| {
        let best = p.best.map_or("-".to_string(), |b| b.to_string());
        eprint!(
            "\r\x1b[2Kbest {best}  nodes {}  {:.1}s",
            p.nodes,
            p.elapsed.as_secs_f64()
        );
    };
    let progress: Option<optimal::ProgressFn> = std::io::stderr().is_terminal().then_some(&show);
    let result = optimal::solve(&table, sym.as_deref(), &options, progress);
    if progress.is_some() {
        eprint!("\r\x1b[2K");
    }
    let solution = result.map_err(|e| match e {
        optimal::OptimalError::UselessFirst(_) | optimal::OptimalError::BadFirst(_) => {
            super::bad_input(e)
        }
        other => anyhow::Error::new(other),
    })?;
    if let Some(path) = &args.tree {
        super::write_atomically(path, tree_io::to_json(&table, &solution.tree).as_bytes())?;
    }
    if let Some(path) = &args.dot {
        super::write_atomically(path, tree_io::to_dot(&table, &solution.tree).as_bytes())?;
    }
    print_report(&table, &solution, args.json)?;
    Ok(ExitCode::SUCCESS)
}

fn print_report(table: &Table, s: &Solution, json: bool) -> anyhow::Result<()> {
    let a = &s.analysis;
    let first = s.first.map(|e| table.experiments[e].to_string());
    let mut out = std::io::stdout().lock();
    if json {
        let report = Report {
            game: &table.name,
            objective: s.objective.to_string(),
            max_depth: s.max_depth,
            total: a.total,
            average: a.average(),
            worst: a.worst,
            histogram: &a.histogram,
            first,
            nodes: s.nodes,
            time: s.elapsed.as_secs_f64(),
        };
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        let limit = s
            .max_depth
            .map(|d| format!(" within {d} experiments"))
            .unwrap_or_default();
        writeln!(
            out,
            "{}: optimal {} {}{limit}",
            table.name, s.objective, s.value
        )?;
        writeln!(
            out,
            "total {}  average {:.4}  worst {}  over {} codes",
            a.total,
            a.average(),
            a.worst,
            a.codes
        )?;
        if let Some(f) = first {
            writeln!(out, "first {f}")?;
        }
        let hist: Vec<String> = a
            .histogram
            .iter()
            .enumerate()
            .filter(|(_, &k)| k > 0)
            .map(|(d, k)| format!("{d}:{k}"))
            .collect();
        writeln!(out, "histogram {}", hist.join(" "))?;
        writeln!(
            out,
            "nodes {}  time {:.3}s",
            s.nodes,
            s.elapsed.as_secs_f64()
        )?;
    }
    Ok(())
}
