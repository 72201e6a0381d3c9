//! Differential tests of the grid pipeline against the real NuSMV 2.5.4:
//! puzzle → `grid::compile` (and, for waypoint puzzles, the successor
//! model of `grid::successor`, the one `checkmate solve` gives its own
//! engine) → `smv::emit` → NuSMV (BDD, and SAT-based BMC at the solution
//! length) → trace → `System::check` → `grid::decode` → `grid::check`,
//! compared with the brute-force solver of `common`.
//!
//! Tests fail when `CI` is set and NuSMV is missing; otherwise they print
//! "skipping: …" and return.

mod common;
use common::nusmv;

use checkmate::checker::{Checker, Engine};
use checkmate::grid::{self, Cell, Puzzle, Variant};
use checkmate::ir::System;
use checkmate::smv::{emit, EmitOptions};
use checkmate::trace::Verdict;
use proptest::prelude::*;

/// What NuSMV said, after every check passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Answer {
    Solved,
    Unsat,
}

/// Runs NuSMV on the puzzle's model and verifies its answer; panics with
/// `name` on anything unexpected.
fn run(nusmv: &Checker, name: &str, puzzle: &Puzzle, engine: Engine) -> Answer {
    run_system(nusmv, name, puzzle, &grid::compile(puzzle), engine)
}

/// The answers of NuSMV on both engines for `sys`, a model of `puzzle`.
fn both_engines(nusmv: &Checker, name: &str, puzzle: &Puzzle, sys: &System) -> [Answer; 2] {
    let bound = sys.bound.unwrap();
    let bdd = run_system(nusmv, name, puzzle, sys, Engine::Bdd);
    [
        bdd,
        run_system(nusmv, name, puzzle, sys, Engine::Bmc { bound }),
    ]
}

/// [`run`] on the system `sys` of `puzzle`.
fn run_system(
    nusmv: &Checker,
    name: &str,
    puzzle: &Puzzle,
    sys: &System,
    engine: Engine,
) -> Answer {
    let model = emit(
        sys,
        &EmitOptions {
            title: name.to_string(),
            ..EmitOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    let out = nusmv
        .check_str(&model, engine)
        .unwrap_or_else(|e| panic!("{name} ({engine:?}): {e}\n{model}"))
        .output;
    assert_eq!(out.specs.len(), 1, "{name}: one verdict expected");
    let spec = &out.specs[0];
    let bound = sys.bound.unwrap();
    match spec.verdict {
        Verdict::False => {
            let named = spec
                .trace
                .as_ref()
                .unwrap_or_else(|| panic!("{name}: false without a trace"));
            let full = named.to_ir(sys).unwrap_or_else(|e| panic!("{name}: {e}"));
            // The whole lasso (stuttering after the goal) is a run of the
            // system, and so is the prefix up to the goal.
            assert_eq!(sys.check(&full), Ok(()), "{name}: full trace");
            let cut = sys.cut_at_goal(&full);
            assert_eq!(cut.states.len(), bound + 1, "{name}: path length");
            assert_eq!(sys.check(&cut), Ok(()), "{name}: trace up to the goal");
            let solution = grid::decode(puzzle, &cut).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(grid::check(puzzle, &solution), Ok(()), "{name}");
            Answer::Solved
        }
        Verdict::True => {
            assert_eq!(engine, Engine::Bdd, "{name}: only BDD proves");
            Answer::Unsat
        }
        Verdict::NoCounterexampleUpTo(k) => {
            // Every solution has exactly `bound` moves.
            assert_eq!(k, bound, "{name}: BMC stopped early");
            Answer::Unsat
        }
        Verdict::InductionFailed => panic!("{name}: induction failure for an LTL spec"),
    }
}

#[test]
fn corpus_puzzles_solve_through_nusmv_bdd_and_bmc() {
    let Some(nusmv) = nusmv() else { return };
    let mut checked = 0;
    let mut checked_successors = 0;
    for file in common::corpus("grid") {
        let (name, puzzle) = common::load(&file);
        if puzzle.open_count() > 40 {
            continue;
        }
        let expected = if name.contains("-unsat") {
            Answer::Unsat
        } else {
            Answer::Solved
        };
        let bound = puzzle.open_count() - 1;
        assert_eq!(
            run(&nusmv, &name, &puzzle, Engine::Bdd),
            expected,
            "{name} BDD"
        );
        assert_eq!(
            run(&nusmv, &name, &puzzle, Engine::Bmc { bound }),
            expected,
            "{name} BMC"
        );
        if let Some(succ) = grid::successor::compile(&puzzle).filter(|_| bound < 16) {
            let [bdd, bmc] = both_engines(&nusmv, &name, &puzzle, &succ);
            assert_eq!((bdd, bmc), (expected, expected), "{name} successor model");
            checked_successors += 1;
        }
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} puzzles checked");
    assert!(
        checked_successors >= 3,
        "only {checked_successors} successor models"
    );
}

/// A random small puzzle: 2..5 x 2..5, some blocked cells, a few numbers.
fn small_puzzle() -> impl Strategy<Value = Option<Puzzle>> {
    (
        0..3usize,
        2..=5usize,
        2..=5usize,
        proptest::collection::vec(0..100u32, 25),
        proptest::collection::vec(0..1000u32, 4),
        0..=4usize,
    )
        .prop_map(|(v, rows, cols, rolls, picks, numbers)| {
            let variant = Variant::ALL[v];
            let mut grid: Vec<Vec<Cell>> = (0..rows)
                .map(|r| {
                    (0..cols)
                        .map(|c| {
                            if rolls[r * 5 + c] < 15 {
                                Cell::Blocked
                            } else {
                                Cell::Blank
                            }
                        })
                        .collect()
                })
                .collect();
            let open: Vec<(usize, usize)> = (0..rows)
                .flat_map(|r| (0..cols).map(move |c| (r, c)))
                .filter(|&(r, c)| grid[r][c] == Cell::Blank)
                .collect();
            let n = open.len();
            // Waypoint: start and end, sometimes one more in between (more
            // numbers make nearly every random puzzle unsolvable).
            let wanted = if variant == Variant::Waypoint {
                2 + numbers % 2
            } else {
                numbers
            };
            let mut used = Vec::new();
            for (k, &pick) in picks.iter().take(wanted.min(n)).enumerate() {
                let cell = (0..n)
                    .map(|i| (pick as usize + i) % n.max(1))
                    .find(|i| !used.contains(i))?;
                used.push(cell);
                let number = if variant == Variant::Waypoint {
                    k as u32 + 1
                } else {
                    // Distinct numbers in 1..=n, spread by the pick.
                    let mut x = pick as usize % n + 1;
                    while used
                        .iter()
                        .any(|&u| grid[open[u].0][open[u].1] == Cell::Number(x as u32))
                    {
                        x = x % n + 1;
                    }
                    x as u32
                };
                let (r, c) = open[cell];
                grid[r][c] = Cell::Number(number);
            }
            Puzzle::new(variant, None, grid).ok()
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn nusmv_agrees_with_brute_force_on_small_puzzles(p in small_puzzle()) {
        let Some(puzzle) = p else { return Ok(()) };
        let Some(nusmv) = nusmv() else { return Ok(()) };
        let (count, _) = common::brute_force(&puzzle, 1);
        let expected = if count > 0 { Answer::Solved } else { Answer::Unsat };
        let name = format!("{puzzle:?}");
        prop_assert_eq!(run(&nusmv, &name, &puzzle, Engine::Bdd), expected);
        let bound = puzzle.open_count() - 1;
        let expected = if count > 0 { Answer::Solved } else { Answer::Unsat };
        prop_assert_eq!(run(&nusmv, &name, &puzzle, Engine::Bmc { bound }), expected);
        // NuSMV's BDDs for the successor model's ranks grow fast with the
        // board: the smaller boards only (a third of the time otherwise).
        let small = puzzle.open_count() <= 12;
        if let Some(succ) = grid::successor::compile(&puzzle).filter(|_| small) {
            let expected = if count > 0 { Answer::Solved } else { Answer::Unsat };
            let [bdd, bmc] = both_engines(&nusmv, &name, &puzzle, &succ);
            prop_assert_eq!(bdd, expected, "successor model, BDD");
            prop_assert_eq!(bmc, if count > 0 { Answer::Solved } else { Answer::Unsat }, "successor model, BMC");
        }
    }
}
