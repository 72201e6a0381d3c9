//! Cross-checks of the optimal search against the exhaustive reference,
//! and the published reference values.

use super::*;
use crate::game::symmetry;
use crate::game::table::Builtin;

fn solve_game(name: &str, options: &Options, with_symmetry: bool) -> Solution {
    let game: Builtin = name.parse().unwrap();
    let table = game.table();
    let sym = with_symmetry
        .then(|| symmetry::for_builtin(&game, &table))
        .flatten();
    solve(&table, sym.as_deref(), options, None).unwrap()
}

fn total(name: &str) -> u64 {
    solve_game(name, &Options::default(), true).value
}

fn worst(name: &str) -> u64 {
    let options = Options {
        objective: Objective::Worst,
        ..Options::default()
    };
    solve_game(name, &options, true).value
}

/// Branch and bound (with and without symmetry) equals exhaustive search
/// for every objective, including depth limits at and above the worst
/// case.
#[test]
fn branch_and_bound_equals_exhaustive_search() {
    let games = [
        "mastermind:2x2",
        "mastermind:2x3",
        "mastermind:2x4",
        "mastermind:3x2",
        "mastermind:3x3",
        "black-peg:2x2",
        "black-peg:2x3",
        "black-peg:3x2",
        "black-peg:3x3",
        "bulls-cows:2x3",
        "bulls-cows:2x4",
        "coins:3",
        "coins:4",
        "coins:5",
        "coins:3+1",
        "coins:4+1",
    ];
    for name in games {
        let table: Builtin = name.parse().unwrap();
        let table = table.table();
        let worst_ref = exhaustive(&table, Objective::Worst, None).unwrap();
        let total_ref = exhaustive(&table, Objective::Total, None).unwrap();
        for sym in [false, true] {
            let w = solve_game(
                name,
                &Options {
                    objective: Objective::Worst,
                    ..Options::default()
                },
                sym,
            );
            assert_eq!(w.value, worst_ref, "{name} worst (symmetry {sym})");
            let t = solve_game(name, &Options::default(), sym);
            assert_eq!(t.value, total_ref, "{name} total (symmetry {sym})");
            for d in [worst_ref as u32, worst_ref as u32 + 1] {
                let limited = exhaustive(&table, Objective::Total, Some(d)).unwrap();
                let options = Options {
                    max_depth: Some(d),
                    ..Options::default()
                };
                let s = solve_game(name, &options, sym);
                assert_eq!(s.value, limited, "{name} total within {d} (symmetry {sym})");
                assert!(s.analysis.worst <= d as usize);
            }
            let too_shallow = Options {
                max_depth: Some(worst_ref as u32 - 1),
                ..Options::default()
            };
            let table2: Builtin = name.parse().unwrap();
            let t2 = table2.table();
            assert!(matches!(
                solve(&t2, None, &too_shallow, None),
                Err(OptimalError::NoStrategy { .. })
            ));
        }
    }
}

/// The parallel paths (candidate evaluation, chunked counting over full
/// and symmetry-reduced candidate lists) and memo keys by symmetry class
/// agree with the reference when forced on small games.
#[test]
fn parallel_paths_equal_exhaustive_search() {
    let tiny = Tuning {
        par_set: 2,
        par_work: 1,
        chunk: 3,
        canon_min: 1,
        ..Tuning::default()
    };
    for name in [
        "mastermind:3x3",
        "bulls-cows:3x4",
        "coins:5",
        "black-peg:3x3",
    ] {
        let game: Builtin = name.parse().unwrap();
        let table = game.table();
        let sym = symmetry::for_builtin(&game, &table);
        let worst = exhaustive(&table, Objective::Worst, None).unwrap() as u32;
        for (objective, max_depth) in [
            (Objective::Total, None),
            (Objective::Worst, None),
            (Objective::Total, Some(worst)),
        ] {
            let want = exhaustive(&table, objective, max_depth).unwrap();
            for s in [None, sym.as_deref()] {
                let options = Options {
                    objective,
                    max_depth,
                    ..Options::default()
                };
                let got = solve_tuned(&table, s, &options, None, tiny).unwrap();
                assert_eq!(got.value, want, "{name} {objective} {max_depth:?}");
                // Scheduling and thresholds never change the tree.
                let plain = solve(&table, s, &options, None).unwrap();
                assert_eq!(got.tree, plain.tree, "{name} {objective} {max_depth:?}");
            }
        }
    }
}

/// With no memo at all the search is slower but gives the same values
/// and still builds replayable trees.
#[test]
fn no_memo_same_values() {
    let none = Tuning {
        memo_capacity: 0,
        ..Tuning::default()
    };
    for name in ["mastermind:3x3", "coins:4+1", "bulls-cows:2x4"] {
        let game: Builtin = name.parse().unwrap();
        let table = game.table();
        let sym = symmetry::for_builtin(&game, &table);
        for objective in [Objective::Total, Objective::Worst] {
            let want = exhaustive(&table, objective, None).unwrap();
            let options = Options {
                objective,
                ..Options::default()
            };
            let got = solve_tuned(&table, sym.as_deref(), &options, None, none).unwrap();
            assert_eq!(got.value, want, "{name} {objective}");
        }
    }
}

/// A forced first move is optimised after, and never beats the optimum.
#[test]
fn forced_first_experiment() {
    let game: Builtin = "mastermind:3x3".parse().unwrap();
    let table = game.table();
    let best = total("mastermind:3x3");
    for e in 0..table.experiments.len() {
        let options = Options {
            first: Some(e),
            ..Options::default()
        };
        let s = solve(&table, None, &options, None).unwrap();
        assert_eq!(s.first, Some(e));
        assert!(s.value >= best);
    }
}

#[test]
fn unsolvable_games_say_so() {
    // Two coins: "1 heavy" and "2 light" look the same on every scale.
    let table = Builtin::Coins {
        coins: 2,
        extra_genuine: false,
    }
    .table();
    for objective in [Objective::Total, Objective::Worst] {
        let options = Options {
            objective,
            ..Options::default()
        };
        assert!(matches!(
            solve(&table, None, &options, None),
            Err(OptimalError::NoStrategy { .. })
        ));
    }
}

#[test]
fn mastermind_two_pegs_reference_totals() {
    // MM(2,2) has 4 codes and totals 8, counting the final guess.
    let want = [8, 21, 45, 81, 132, 198, 284];
    for (c, w) in (2..=8).zip(want) {
        assert_eq!(total(&format!("mastermind:2x{c}")), w, "MM(2,{c})");
    }
}

#[test]
fn mastermind_three_pegs_reference_totals() {
    let want = [18, 73, 206, 451];
    for (c, w) in (2..=5).zip(want) {
        assert_eq!(total(&format!("mastermind:3x{c}")), w, "MM(3,{c})");
    }
}

#[test]
fn mastermind_small_reference_totals() {
    assert_eq!(total("mastermind:4x2"), 44);
    assert_eq!(total("mastermind:4x3"), 246);
    assert_eq!(total("mastermind:5x2"), 97);
    assert_eq!(total("mastermind:6x2"), 224);
}

/// Dyson: N coins (one heavier or lighter) in w weighings iff
/// 3 ≤ N ≤ (3^w − 3)/2; with an extra genuine coin, N ≤ (3^w − 1)/2.
fn dyson(n: u64, extra: bool) -> u64 {
    (1..)
        .find(|&w| {
            let cap = 3u64.pow(w as u32);
            if extra {
                n <= (cap - 1) / 2
            } else {
                n <= (cap - 3) / 2
            }
        })
        .unwrap()
}

#[test]
fn coins_worst_case_is_dysons_bound() {
    for n in 3..=9 {
        assert_eq!(worst(&format!("coins:{n}")), dyson(n, false), "coins:{n}");
        assert_eq!(
            worst(&format!("coins:{n}+1")),
            dyson(n, true),
            "coins:{n}+1"
        );
    }
}

#[test]
#[ignore = "heavy: run from scripts/bench-optimal.sh or with --ignored in release"]
fn coins_worst_case_is_dysons_bound_up_to_14() {
    for n in 10..=14 {
        assert_eq!(worst(&format!("coins:{n}")), dyson(n, false), "coins:{n}");
        assert_eq!(
            worst(&format!("coins:{n}+1")),
            dyson(n, true),
            "coins:{n}+1"
        );
    }
}

#[test]
#[ignore = "heavy: run from scripts/bench-optimal.sh or with --ignored in release"]
fn mastermind_reference_totals_release() {
    let table = [
        ("mastermind:3x6", 854),
        ("mastermind:3x7", 1474),
        ("mastermind:3x8", 2359),
        ("mastermind:4x4", 905),
        ("mastermind:4x5", 2463),
        ("mastermind:4x6", 5625),
        ("mastermind:5x3", 816),
        ("mastermind:5x4", 3954),
        ("mastermind:6x3", 2649),
    ];
    for (name, want) in table {
        assert_eq!(total(name), want, "{name}");
    }
    let limited = Options {
        max_depth: Some(5),
        ..Options::default()
    };
    assert_eq!(solve_game("mastermind:4x6", &limited, true).value, 5626);
    assert_eq!(worst("mastermind:4x6"), 5);
}

/// Spec-file games: the optimal value with the spec symmetry (phase 1 of
/// `reduce`, at every node, and with the default thresholds) equals the
/// value without symmetry and the built-in game's native result, for the
/// total, the worst case and the total within the worst case's depth.
/// Every result is replay-checked by `solve` itself.
#[test]
fn spec_symmetry_keeps_the_optimal_values() {
    use crate::game::symmetry::{Counting, SpecSymmetry, Symmetry};
    use crate::game::{explicit, Game, Route};
    let games = [
        "mastermind:2x2",
        "mastermind:2x3",
        "mastermind:2x4",
        "mastermind:3x2",
        "mastermind:3x3",
        "black-peg:2x2",
        "black-peg:2x3",
        "black-peg:3x2",
        "black-peg:3x3",
        "bulls-cows:2x4",
        "coins:3",
        "coins:4",
        "coins:5",
        "coins:4+1",
    ];
    for name in games {
        let native: Builtin = name.parse().unwrap();
        // The spec as a spec file would give it: no built-in behind it.
        let game = Game::from_spec(name, Game::builtin(native).spec);
        let table = game.table(Route::Spec).unwrap();
        let codes = explicit::codes(&game.spec, explicit::MAX_CODES).unwrap();
        let vals = crate::game::table::Valuations::new(game.spec.vars.clone(), &codes);
        let rows: Vec<Vec<u64>> = (0..codes.len()).map(|c| vals.row(c).to_vec()).collect();
        let mut everywhere = SpecSymmetry::new(&game.spec, &table, rows.clone()).unwrap();
        everywhere.min_set = 0;
        everywhere.max_share = 1.0;
        let default = SpecSymmetry::new(&game.spec, &table, rows).unwrap();
        let worst_opts = Options {
            objective: Objective::Worst,
            ..Options::default()
        };
        let native_total = solve_game(name, &Options::default(), true).value;
        let native_worst = solve_game(name, &worst_opts, true).value;
        let limited = Options {
            max_depth: Some(native_worst as u32),
            ..Options::default()
        };
        let native_limited = solve_game(name, &limited, true).value;
        let counted = Counting::new(&everywhere, table.experiments.len());
        let syms: [Option<&dyn Symmetry>; 3] = [None, Some(&counted), Some(&default)];
        for sym in syms {
            let run = |o: &Options| solve(&table, sym, o, None).unwrap().value;
            assert_eq!(run(&Options::default()), native_total, "{name} total");
            assert_eq!(run(&worst_opts), native_worst, "{name} worst");
            assert_eq!(run(&limited), native_limited, "{name} limited");
        }
        // The reduction really happened at the root.
        let root = counted.depths()[0];
        assert!(root.kept < root.experiments, "{name}: {root:?}");
    }
}
