//! Optimal codebreaker strategies: exact minimal total (expected case),
//! minimal worst case, and minimal total within a depth limit.
//!
//! Input: a [`Table`], optionally a [`Symmetry`] of the game, and
//! [`Options`]. Output: a [`Solution`] whose tree has been replayed over
//! every code ([`Tree::analyze`]) and whose figures agree with the value
//! the search proved — an independent check of every answer.
//!
//! Invariants: costs follow [`crate::game::tree`] (final guess counted in
//! games with final outcomes; identification games stop at one code).
//! Experiments, codes and outcomes are 0-based table indices. The search
//! is exact: pruning only ever discards candidates whose proven lower
//! bound reaches a value already found, symmetry only discards
//! experiments equivalent to one kept, and the results are
//! cross-checked in tests against [`exhaustive`], which has neither.

mod bounds;
mod memo;
mod packed;
mod reference;
mod search;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use thiserror::Error;

pub use bounds::{Bounds, Cost, Shape, INF};
pub use reference::exhaustive;

use super::symmetry::Symmetry;
use super::table::Table;
use super::tree::{Analysis, ReplayError, Tree};
use search::{Search, Tuning, UNLIMITED};

/// What the strategy minimises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Objective {
    /// Sum over all codes of the experiments needed (expected case).
    Total,
    /// The largest number of experiments any code needs.
    Worst,
}

impl std::fmt::Display for Objective {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Objective::Total => "total",
            Objective::Worst => "worst",
        })
    }
}

/// What to compute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub objective: Objective,
    /// At most this many experiments for every code.
    pub max_depth: Option<u32>,
    /// Play this experiment (0-based index) first, optimise the rest.
    pub first: Option<usize>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            objective: Objective::Total,
            max_depth: None,
            first: None,
        }
    }
}

/// A snapshot of a running search, for progress displays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Best total found at the root so far (total objective).
    pub best: Option<u64>,
    /// Search nodes visited.
    pub nodes: u64,
    pub elapsed: Duration,
}

/// An optimal strategy and its figures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    pub objective: Objective,
    pub max_depth: Option<u32>,
    /// The proven optimum: the total (objective total) or the worst case.
    pub value: u64,
    pub tree: Tree,
    /// The tree replayed over every code.
    pub analysis: Analysis,
    /// The experiment at the root (`None` if no experiment is needed).
    pub first: Option<usize>,
    pub nodes: u64,
    /// Sets stored in the transposition table.
    pub memo_entries: usize,
    pub elapsed: Duration,
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum OptimalError {
    #[error("the optimal search handles at most 65535 codes; this game has {0}")]
    TooManyCodes(usize),
    #[error("no strategy finds every code{}", within(*.max_depth))]
    NoStrategy { max_depth: Option<u32> },
    #[error("experiment {0} does not exist")]
    BadFirst(usize),
    #[error("the first experiment `{0}` tells nothing about the code and cannot end the play")]
    UselessFirst(String),
    /// The search produced a tree that disagrees with its own value: a
    /// bug, reported rather than printed as an answer.
    #[error(
        "internal check failed: the optimal tree replays to {replayed}, the search proved {proved}"
    )]
    Mismatch { proved: u64, replayed: u64 },
    #[error("internal check failed: {0}")]
    Replay(#[from] ReplayError),
}

fn within(d: Option<u32>) -> String {
    d.map(|d| format!(" within {d} experiments"))
        .unwrap_or_default()
}

/// A progress callback, called from a helper thread about four times a
/// second while the search runs.
pub type ProgressFn<'a> = &'a (dyn Fn(&Progress) + Sync);

/// Computes an optimal strategy.
pub fn solve(
    table: &Table,
    symmetry: Option<&dyn Symmetry>,
    options: &Options,
    progress: Option<ProgressFn<'_>>,
) -> Result<Solution, OptimalError> {
    solve_tuned(table, symmetry, options, progress, Tuning::default())
}

/// [`solve`] with explicit parallel thresholds (tests use tiny ones to
/// drive every parallel code path on small games).
pub(crate) fn solve_tuned(
    table: &Table,
    symmetry: Option<&dyn Symmetry>,
    options: &Options,
    progress: Option<ProgressFn<'_>>,
    tuning: Tuning,
) -> Result<Solution, OptimalError> {
    let n = table.n_codes();
    if n > u16::MAX as usize {
        return Err(OptimalError::TooManyCodes(n));
    }
    if let Some(e) = options.first {
        if e >= table.experiments.len() {
            return Err(OptimalError::BadFirst(e));
        }
    }
    let start = Instant::now();
    let search = Search::new(table, symmetry, options.max_depth, tuning);
    let done = std::sync::atomic::AtomicBool::new(false);
    let result = std::thread::scope(|scope| {
        if let Some(report) = progress {
            let (search, done) = (&search, &done);
            scope.spawn(move || watch(search, done, start, report));
        }
        let r = run(table, &search, options);
        done.store(true, Ordering::Release);
        r
    });
    let (value, tree) = result?;
    let analysis = tree.analyze(table)?;
    let replayed = match options.objective {
        Objective::Total => analysis.total,
        Objective::Worst => analysis.worst as u64,
    };
    if replayed != value
        || options
            .max_depth
            .is_some_and(|d| analysis.worst > d as usize)
    {
        return Err(OptimalError::Mismatch {
            proved: value,
            replayed,
        });
    }
    let first = match &tree {
        Tree::Node { experiment, .. } => Some(*experiment),
        Tree::Leaf { .. } => None,
    };
    Ok(Solution {
        objective: options.objective,
        max_depth: options.max_depth,
        value,
        tree,
        analysis,
        first,
        nodes: search.nodes.load(Ordering::Relaxed),
        memo_entries: search.memo.len(),
        elapsed: start.elapsed(),
    })
}

fn watch(
    search: &Search,
    done: &std::sync::atomic::AtomicBool,
    start: Instant,
    report: ProgressFn,
) {
    let tick = Duration::from_millis(50);
    let mut last = Instant::now();
    while !done.load(Ordering::Acquire) {
        std::thread::sleep(tick);
        if last.elapsed() >= Duration::from_millis(250) {
            last = Instant::now();
            let best = search.root_best.load(Ordering::Relaxed);
            report(&Progress {
                best: (best < INF).then_some(best as u64),
                nodes: search.nodes.load(Ordering::Relaxed),
                elapsed: start.elapsed(),
            });
        }
    }
}

/// The search proper: the optimal value and a tree reaching it.
fn run(table: &Table, search: &Search, options: &Options) -> Result<(u64, Tree), OptimalError> {
    let all: Vec<u16> = (0..table.n_codes() as u16).collect();
    let no_strategy = OptimalError::NoStrategy {
        max_depth: options.max_depth,
    };
    if !table.has_final() && all.len() <= 1 {
        // Nothing to find out.
        return Ok((0, Tree::Leaf { code: 0 }));
    }
    if all.is_empty() {
        return Err(no_strategy);
    }
    let mut history = Vec::new();
    match options.objective {
        Objective::Total => {
            let depth = options.max_depth.unwrap_or(UNLIMITED);
            let value = match options.first {
                None => search.total(&all, INF, depth, &mut history),
                Some(e) => {
                    check_first(table, search, &all, e)?;
                    search.total_after(&all, e as u32, depth, &mut history)
                }
            };
            if value >= INF {
                return Err(no_strategy);
            }
            let tree = match options.first {
                None => search.total_tree(&all, depth, &mut history),
                Some(e) => search.total_tree_after(&all, e as u32, depth, &mut history),
            };
            Ok((value as u64, tree))
        }
        Objective::Worst => {
            let n = all.len();
            let limit = options.max_depth.unwrap_or(n as u32 + 1);
            let lowest = search.bounds().depth[n].max(1);
            for d in lowest..=limit {
                let ok = match options.first {
                    None => search.feasible(&all, d, &mut history),
                    Some(e) => {
                        check_first(table, search, &all, e)?;
                        search.feasible_after(&all, e as u32, d, &mut history)
                    }
                };
                if ok {
                    let tree = match options.first {
                        None => search.worst_tree(&all, d, &mut history),
                        Some(e) => search.worst_tree_after(&all, e as u32, d, &mut history),
                    };
                    return Ok((d as u64, tree));
                }
            }
            Err(no_strategy)
        }
    }
}

/// A forced first experiment must tell something or end the play.
fn check_first(table: &Table, search: &Search, all: &[u16], e: usize) -> Result<(), OptimalError> {
    if search.is_useful(all, e as u32) {
        Ok(())
    } else {
        Err(OptimalError::UselessFirst(table.experiments[e].to_string()))
    }
}

#[cfg(test)]
mod tests;
