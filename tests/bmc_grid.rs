//! The bounded model checker on grid puzzles: every puzzle in
//! `models/grid/` is solved and verified by the puzzle's own checker; and
//! `bench_grid` (ignored; run by `scripts/bench-grid.sh` in release mode)
//! prints one measurement line per puzzle.

use std::path::Path;
use std::time::{Duration, Instant};

use checkmate::bmc::{self, BmcOptions, Encoding, SolverKind, Status};
use checkmate::grid::compile::{compile_model, NoRevisit};
use checkmate::grid::{self, strengthen, CompileOptions, Puzzle};
use checkmate::ir::System;

fn load(path: &Path) -> Puzzle {
    let text = std::fs::read_to_string(path).unwrap();
    grid::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Decodes and checks every trace with the puzzle's own checker.
fn verify(puzzle: &Puzzle, r: &bmc::BmcResult) {
    for t in &r.traces {
        let sol = grid::decode(puzzle, t).unwrap();
        grid::check(puzzle, &sol).unwrap();
    }
}

#[test]
fn every_model_puzzle_is_solved_and_verified() {
    let mut seen = 0;
    for entry in std::fs::read_dir("models/grid").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "txt") {
            continue;
        }
        let puzzle = load(&path);
        let sys = grid::compile(&puzzle);
        let r = bmc::solve(
            &sys,
            &BmcOptions {
                count: Some(2),
                ..Default::default()
            },
        )
        .unwrap();
        let name = path.display();
        assert_ne!(r.status, Status::Unknown, "{name}");
        assert_eq!(r.bound, puzzle.open_count() - 1, "{name}");
        verify(&puzzle, &r);
        seen += 1;
    }
    assert!(seen > 0);
}

/// The published puzzles of `models/grid/` (files with `#=` lines: their
/// published solution, `X` off the board) are unique, and every model of
/// `checkmate solve` finds exactly that solution.
#[test]
fn published_puzzles_have_their_published_solution() {
    let mut seen = 0;
    for entry in std::fs::read_dir("models/grid").unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let expected: Vec<Vec<Option<u32>>> = text
            .lines()
            .filter_map(|l| l.strip_prefix("#="))
            .map(|l| l.split_whitespace().map(|t| t.parse().ok()).collect())
            .collect();
        if expected.is_empty() {
            continue;
        }
        let name = path.display();
        let puzzle = grid::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (i, model) in strengthen::sat_models(&puzzle).iter().enumerate() {
            let sys = model.compile(&puzzle);
            let opts = BmcOptions {
                count: Some(2),
                ..Default::default()
            };
            let r = bmc::solve(&sys, &opts).unwrap();
            verify(&puzzle, &r);
            assert_eq!((r.found(), r.exhausted), (1, true), "{name}: model {i}");
            let sol = grid::decode(&puzzle, &r.traces[0]).unwrap();
            let steps: Vec<Vec<Option<u32>>> = sol
                .steps_grid(puzzle.rows(), puzzle.cols())
                .into_iter()
                .map(|row| row.into_iter().map(|s| s.map(|s| s.0)).collect())
                .collect();
            assert_eq!(steps, expected, "{name}: model {i}");
        }
        seen += 1;
    }
    assert_eq!(
        seen, 3,
        "the Rosetta Code numbrix examples and Wikipedia's hidato"
    );
}

/// Each model `checkmate solve` gives the engine (redundant constraints,
/// pruned domains) has the same solutions as the plain one: the same
/// verdict and, up to 3, the same number of them, every one verified.
#[test]
fn the_solver_model_agrees_with_the_plain_model() {
    for entry in std::fs::read_dir("models/grid").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "txt") {
            continue;
        }
        let puzzle = load(&path);
        let count = |sys: &System, prune: bool| {
            let r = bmc::solve(
                sys,
                &BmcOptions {
                    count: Some(3),
                    prune,
                    ..Default::default()
                },
            )
            .unwrap();
            verify(&puzzle, &r);
            (r.status, r.found(), r.exhausted)
        };
        let plain_sys = compile_model(&puzzle, &CompileOptions::default()).0;
        let plain = count(&plain_sys, false);
        let name = path.display();
        for (i, model) in strengthen::sat_models(&puzzle).iter().enumerate() {
            assert_eq!(
                count(&model.compile(&puzzle), true),
                plain,
                "{name}: model {i}"
            );
        }
        assert_eq!(count(&plain_sys, true), plain, "{name}");
    }
}

/// `checkmate solve` tries its models in turn: on a numbrix puzzle with
/// three numbers the step-by-step model meets its conflict budget, and
/// the successor/rank model after it answers, verified, with the answer
/// of the plain model.
#[test]
fn a_model_that_meets_its_conflict_budget_hands_over_to_the_next() {
    let puzzle = load(Path::new("tests/fixtures/grid/numbrix-9x9-sparse-s4.txt"));
    let models = strengthen::sat_models(&puzzle);
    assert_eq!(models.len(), 2);
    let run = |i: usize| {
        let sys = models[i].compile(&puzzle);
        let r = bmc::solve(
            &sys,
            &BmcOptions {
                count: Some(2),
                conflict_limit: models[i].conflict_budget,
                ..Default::default()
            },
        )
        .unwrap();
        verify(&puzzle, &r);
        r
    };
    let first = run(0);
    assert_eq!(
        (first.status, first.limit),
        (
            Status::Unknown,
            Some(bmc::Limit::Conflicts(strengthen::FALLBACK_BUDGET))
        )
    );
    let second = run(1);
    assert_eq!(models[1].conflict_budget, None);
    assert_eq!(
        (second.status, second.found(), second.unique),
        (Status::Solved, 2, Some(false))
    );
    assert!(
        second.conflicts < strengthen::FALLBACK_BUDGET,
        "{} conflicts",
        second.conflicts
    );
}

/// Boards with no path whatever the numbers (`strengthen::no_path`): the
/// two ends of a waypoint path on one colour of an even board, two more
/// open cells of one colour than of the other, a numbrix `1` on the
/// colour of the even steps, a board cut in two, three cells with one
/// neighbour each. Every model of `checkmate solve` says `unsat` before
/// any search; without `no-path` in the models the waypoint successor
/// model took 244k conflicts on the 12x12 board and more than 30 s on
/// the 14x14, and the boards cut in two more than 30 s.
#[test]
fn boards_without_a_path_are_unsat_without_search() {
    let board = |variant: &str, n: usize, marks: &[(usize, usize, &str)]| {
        let mut rows = vec![vec!["."; n]; n];
        for &(r, c, m) in marks {
            rows[r][c] = m;
        }
        let grid: Vec<String> = rows.iter().map(|r| r.join(" ")).collect();
        grid::parse(&format!("variant: {variant}\n{}\n", grid.join("\n"))).unwrap()
    };
    let wall: Vec<(usize, usize, &str)> = (0..12).map(|r| (r, 6, "X")).collect();
    for (name, puzzle) in [
        (
            "ends on one colour",
            board("waypoint", 14, &[(0, 0, "1"), (13, 13, "2")]),
        ),
        (
            "12x12, two dark cells blocked",
            board(
                "waypoint",
                12,
                &[(0, 0, "1"), (1, 2, "X"), (3, 10, "X"), (11, 11, "2")],
            ),
        ),
        (
            "numbrix, two dark cells blocked",
            board("numbrix", 8, &[(1, 2, "X"), (3, 6, "X")]),
        ),
        (
            "numbrix, 1 on a dark cell",
            board("numbrix", 9, &[(0, 1, "1")]),
        ),
        ("hidato cut in two", board("hidato", 12, &wall)),
        ("numbrix cut in two", board("numbrix", 12, &wall)),
        (
            "three dead ends",
            board("numbrix", 12, &[(0, 1, "X"), (0, 10, "X"), (11, 1, "X")]),
        ),
    ] {
        for (i, model) in strengthen::sat_models(&puzzle).iter().enumerate() {
            let r = bmc::solve(
                &model.compile(&puzzle),
                &BmcOptions {
                    count: Some(2),
                    conflict_limit: Some(1000),
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(
                (r.status, r.conflicts),
                (Status::Unsat, 0),
                "{name}: model {i}"
            );
        }
    }
}

/// A 3x33 hidato with two numbers (`gen-random-board.py hidato 3 33 7 2
/// 3`): the two open cells of column 14 (the middle one is blocked) are
/// the only way into the 39 cells left of them, and the steps that leaves
/// those cells, with the numbers 9 and 78 where they are, leave no path.
/// The step model took 8.6k conflicts to refute it and the rank model
/// did not in 30 s; with the `cut-steps` windows the step model's
/// analysis does at once. A small open board has no cut: no window is
/// added there.
#[test]
fn the_steps_a_neck_leaves_refute_a_thin_board_without_search() {
    let text = "variant: hidato
 .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  .  X  .  .  .  .  .  .  .  .  .  .  .  .  .  X  .  .
 .  .  .  .  .  .  .  .  .  .  .  .  .  .  X  .  .  .  .  .  .  .  .  .  .  .  .  X  .  .  .  .  .
 .  .  .  X  .  .  .  .  .  X  .  X  .  .  . 78  .  .  .  .  .  9  .  .  .  .  .  .  .  .  .  .  .
";
    let cut_steps = |sys: &System| {
        sys.invar
            .iter()
            .filter(|c| c.label.starts_with("cut-steps"))
            .count()
    };
    let puzzle = grid::parse(text).unwrap();
    let sys = strengthen::sat_models(&puzzle)[0].compile(&puzzle);
    assert!(cut_steps(&sys) > 0);
    let r = bmc::solve(
        &sys,
        &BmcOptions {
            count: Some(2),
            conflict_limit: Some(1000),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!((r.status, r.conflicts), (Status::Unsat, 0));
    let open = grid::parse("variant: hidato\n. . . .\n. 3 . .\n. . . 9\n").unwrap();
    assert_eq!(
        cut_steps(&strengthen::sat_models(&open)[0].compile(&open)),
        0
    );
}

/// One line per puzzle, tab-separated:
/// `file open bound vars clauses first_ms unique_ms status found unique`.
/// Puzzles from `BENCH_PUZZLES` (comma-separated paths); options from
/// `BENCH_ENCODING`, `BENCH_SOLVER`, `BENCH_TIMEOUT` (seconds),
/// `BENCH_STUTTER` (0/1), `BENCH_STRENGTHEN` (comma-separated names),
/// `BENCH_NOREVISIT` (`trans` or `count`; default: the compiler's choice),
/// `BENCH_PRUNE` (0/1, the engine's domain pruning; default 1),
/// `BENCH_MODEL=sat` (the model `checkmate solve` uses; the other model
/// options are then ignored).
#[test]
#[ignore]
fn bench_grid() {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let encoding: Encoding =
        var("BENCH_ENCODING").map_or(Encoding::default(), |e| e.parse().unwrap());
    let solver: SolverKind =
        var("BENCH_SOLVER").map_or(SolverKind::default(), |e| e.parse().unwrap());
    let timeout =
        Duration::from_secs_f64(var("BENCH_TIMEOUT").map_or(60.0, |t| t.parse().unwrap()));
    let stutter = var("BENCH_STUTTER").is_none_or(|s| s != "0");
    let puzzles = var("BENCH_PUZZLES").expect("BENCH_PUZZLES");
    for file in puzzles.split(',') {
        let puzzle = load(Path::new(file));
        let names = var("BENCH_STRENGTHEN").unwrap_or_default();
        let names: Vec<&str> = names.split(',').filter(|n| !n.is_empty()).collect();
        let no_revisit = var("BENCH_NOREVISIT").map(|s| match s.as_str() {
            "trans" => NoRevisit::Trans,
            "count" => NoRevisit::Count,
            _ => panic!("BENCH_NOREVISIT: expected trans or count"),
        });
        let base = strengthen::options(&names).unwrap();
        let opts = CompileOptions {
            stutter,
            no_revisit: no_revisit.or(base.no_revisit),
            ..base
        };
        let opts = if var("BENCH_MODEL").is_some_and(|m| m == "sat") {
            strengthen::sat_options(&puzzle)
        } else {
            opts
        };
        let prune = var("BENCH_PRUNE").is_none_or(|s| s != "0");
        let (sys, _) = compile_model(&puzzle, &opts);
        let started = Instant::now();
        let encoded = std::sync::Arc::new(std::sync::Mutex::new(Duration::ZERO));
        let mark = encoded.clone();
        let r = bmc::solve(
            &sys,
            &BmcOptions {
                count: Some(2),
                encoding,
                solver,
                timeout: Some(timeout),
                prune,
                progress: Some(std::sync::Arc::new(move |p: &bmc::Progress| {
                    if p.phase == bmc::Phase::Encoded {
                        *mark.lock().unwrap() = p.elapsed;
                    }
                })),
                ..Default::default()
            },
        )
        .unwrap();
        let encoded = *encoded.lock().unwrap();
        let total = started.elapsed();
        verify(&puzzle, &r);
        let ms = |d: Duration| format!("{:.1}", d.as_secs_f64() * 1e3);
        println!(
            "BENCH\t{file}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            puzzle.open_count(),
            r.bound,
            r.vars,
            r.clauses,
            r.time_to_first.map_or("-".into(), ms),
            if r.unique.is_some() {
                ms(total)
            } else {
                "-".into()
            },
            r.status,
            r.found(),
            r.unique.map_or("-".into(), |u| u.to_string()),
            r.conflicts,
            ms(encoded),
        );
    }
}
