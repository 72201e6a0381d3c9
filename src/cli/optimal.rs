//! `checkmate game optimal GAME …`: an optimal strategy, its figures, and
//! optionally the tree as JSON and Graphviz DOT.
//!
//! Input: a built-in game name or a spec file (see [`load_table`]), the
//! objective and limits. Output: a summary on stdout (text or JSON) with
//! the experiments the symmetry kept (at the root and per depth), tree
//! files written atomically, a progress line on stderr while searching
//! when stderr is a terminal.

use std::io::{IsTerminal, Write};

use checkmate::game::optimal::{self, Objective, Options, Progress, Solution};
use checkmate::game::symmetry::{self, Counting, DepthCounts, SpecSymmetry, Symmetry};
use checkmate::game::table::{Table, Valuations};
use checkmate::game::{explicit, tree_io};
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
    /// Do not reduce experiments by symmetry (built-in games: no native
    /// symmetry; spec files: no phase 1 of the spec reduction): every
    /// experiment is a candidate at every node.
    #[arg(long)]
    pub no_reduce: bool,
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
    reduction: &'a ReductionReport,
}

/// What the symmetry did: which one, and the experiments it kept.
#[derive(Serialize)]
struct ReductionReport {
    /// `native`, `spec-phase1` or `none`.
    symmetry: &'static str,
    /// Why a spec game has no symmetry, when it has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    unavailable: Option<String>,
    /// The root's experiments in all and kept (absent with `--first`).
    root: Option<RootCounts>,
    /// Index = experiments played before the nodes.
    depths: Vec<DepthCounts>,
}

#[derive(Serialize)]
struct RootCounts {
    experiments: u64,
    kept: u64,
}

/// The game named on the command line and its table: built-in games get
/// their native table, spec files the table enumerated through SAT.
pub fn load_table(game: &str) -> anyhow::Result<(Game, Table)> {
    let game = Game::load(game).map_err(super::bad_input)?;
    let table = match game.builtin {
        Some(builtin) => builtin.table(),
        None => game.table(Route::Spec).map_err(super::bad_input)?,
    };
    Ok((game, table))
}

/// A symmetry for the search, its report name, and why there is none.
struct Chosen<'a> {
    sym: Option<Box<dyn Symmetry + 'a>>,
    name: &'static str,
    unavailable: Option<String>,
}

impl Chosen<'_> {
    fn none(unavailable: Option<String>) -> Self {
        Chosen {
            sym: None,
            name: "none",
            unavailable,
        }
    }
}

/// The symmetry the search uses: native for built-in games, phase 1 of
/// the spec reduction for spec files (`game::symmetry::SpecSymmetry`),
/// none with `--no-reduce`. Also its name, and why a spec game has none.
fn symmetry_for<'a>(game: &'a Game, table: &'a Table, reduce: bool) -> anyhow::Result<Chosen<'a>> {
    if !reduce {
        return Ok(Chosen::none(None));
    }
    if let Some(builtin) = game.builtin {
        let sym = symmetry::for_builtin(&builtin, table);
        let name = if sym.is_some() { "native" } else { "none" };
        return Ok(Chosen {
            sym,
            name,
            unavailable: None,
        });
    }
    // The same codes, in the same order, as the table's.
    let codes = explicit::codes(&game.spec, explicit::MAX_CODES).map_err(super::bad_input)?;
    let names_agree = codes.len() == table.n_codes()
        && codes
            .iter()
            .zip(&table.codes)
            .all(|(c, name)| game.code_name(c) == *name);
    if !names_agree {
        let why = "the codes do not match the table's".to_string();
        return Ok(Chosen::none(Some(why)));
    }
    let vals = Valuations::new(game.spec.vars.clone(), &codes);
    let rows = (0..codes.len()).map(|c| vals.row(c).to_vec()).collect();
    match SpecSymmetry::new(&game.spec, table, rows) {
        Ok(sym) => Ok(Chosen {
            sym: Some(Box::new(sym)),
            name: "spec-phase1",
            unavailable: None,
        }),
        Err(e) => Ok(Chosen::none(Some(e.to_string()))),
    }
}

pub fn run(args: OptimalArgs) -> anyhow::Result<()> {
    let (game, table) = load_table(&args.game)?;
    let chosen = symmetry_for(&game, &table, !args.no_reduce)?;
    let counting = chosen
        .sym
        .as_deref()
        .map(|s| Counting::new(s, table.experiments.len()));
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
        let first = p
            .first
            .map(|(done, total)| format!("  first {done}/{total}"))
            .unwrap_or_default();
        eprint!(
            "\r\x1b[2Kbest {best}{first}  nodes {}  {:.1}s",
            p.nodes,
            p.elapsed.as_secs_f64()
        );
    };
    let progress: Option<optimal::ProgressFn> = std::io::stderr().is_terminal().then_some(&show);
    let used = counting.as_ref().map(|c| c as &dyn Symmetry);
    let result = optimal::solve(&table, used, &options, progress);
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
    let depths = counting.map(|c| c.depths()).unwrap_or_default();
    let n_exp = table.experiments.len() as u64;
    let root = match (&depths.first(), args.first.is_some()) {
        (_, true) => None,
        (Some(d), false) if d.nodes > 0 => Some(RootCounts {
            experiments: n_exp,
            kept: d.kept / d.nodes,
        }),
        _ => Some(RootCounts {
            experiments: n_exp,
            kept: n_exp,
        }),
    };
    let reduction = ReductionReport {
        symmetry: chosen.name,
        unavailable: chosen.unavailable.clone(),
        root,
        depths,
    };
    print_report(&table, &solution, &reduction, args.json)?;
    Ok(())
}

fn print_report(
    table: &Table,
    s: &Solution,
    reduction: &ReductionReport,
    json: bool,
) -> anyhow::Result<()> {
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
            reduction,
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
        print_reduction(&mut out, reduction)?;
    }
    Ok(())
}

fn print_reduction(out: &mut impl Write, r: &ReductionReport) -> anyhow::Result<()> {
    write!(out, "symmetry {}", r.symmetry)?;
    if let Some(why) = &r.unavailable {
        write!(out, " ({why})")?;
    }
    writeln!(out)?;
    if let Some(root) = &r.root {
        writeln!(
            out,
            "experiments at the root: {} in all, {} kept",
            root.experiments, root.kept
        )?;
    }
    if r.depths.is_empty() {
        return Ok(());
    }
    writeln!(out, "depth  nodes  reduced  experiments (sum)  kept (sum)")?;
    for (d, c) in r.depths.iter().enumerate() {
        writeln!(
            out,
            "{d:>5}  {:>5}  {:>7}  {:>17}  {:>10}",
            c.nodes, c.reduced_nodes, c.experiments, c.kept
        )?;
    }
    Ok(())
}
