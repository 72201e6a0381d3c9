//! The DIMACS export against a real outside solver: Debian's `cadical`
//! binary must agree with the embedded solver (sat/unsat), and its model,
//! decoded through the `c var` comment lines, must pass `System::check`.
//!
//! Skips with a visible message when `cadical` is not installed, unless
//! `CI` is set, in which case a missing binary is a failure.

use std::process::Command;

use checkmate::bmc::{self, BmcOptions, Encoding, Status};
use checkmate::ir::{Assign, Constraint, Domain, Expr, System};

fn cadical() -> Option<std::path::PathBuf> {
    match which::which("cadical") {
        Ok(p) => Some(p),
        Err(_) if std::env::var_os("CI").is_some() => {
            panic!("CI is set but the `cadical` binary is missing (apt-get install cadical)")
        }
        Err(_) => {
            eprintln!("SKIPPED: the `cadical` binary is not installed (apt-get install cadical)");
            None
        }
    }
}

/// A walk on a ring of `n` cells that must visit cell `n / 2` and end on
/// cell 0, never standing still, with a frozen "direction bias" that
/// forbids stepping backwards twice in a row.
fn ring(n: i64) -> System {
    let mut sys = System::default();
    let pos = sys.add_var("pos", Domain::Range { lo: 0, hi: n - 1 }, false);
    let seen = sys.add_var("seen", Domain::Bool, false);
    let back = sys.add_var("back", Domain::Bool, false);
    let cw = sys.add_var("cw", Domain::Bool, true);
    sys.init_assign.push(Assign {
        var: pos,
        value: Expr::int(0),
    });
    sys.init_assign.push(Assign {
        var: seen,
        value: Expr::f(),
    });
    let arms = (0..n)
        .map(|i| {
            let up = (i + 1) % n;
            let down = (i + n - 1) % n;
            (
                Expr::eq(Expr::var(pos), Expr::int(i)),
                Expr::Set(vec![Expr::int(up), Expr::int(down)]),
            )
        })
        .collect();
    sys.next_assign.push(Assign {
        var: pos,
        value: Expr::Case(arms),
    });
    sys.next_assign.push(Assign {
        var: seen,
        value: Expr::Or(vec![
            Expr::var(seen),
            Expr::eq(Expr::next(pos), Expr::int(n / 2)),
        ]),
    });
    // `back` says the last move went against the frozen preferred direction.
    let went_up = Expr::Or(
        (0..n)
            .map(|i| {
                Expr::And(vec![
                    Expr::eq(Expr::var(pos), Expr::int(i)),
                    Expr::eq(Expr::next(pos), Expr::int((i + 1) % n)),
                ])
            })
            .collect(),
    );
    sys.trans.push(Constraint {
        label: "back means against cw".into(),
        expr: Expr::iff(
            Expr::next(back),
            Expr::iff(Expr::var(cw), Expr::negate(went_up)),
        ),
    });
    sys.trans.push(Constraint {
        label: "not back twice".into(),
        expr: Expr::negate(Expr::And(vec![Expr::var(back), Expr::next(back)])),
    });
    sys.goal = Expr::And(vec![
        Expr::var(seen),
        Expr::eq(Expr::var(pos), Expr::int(0)),
    ]);
    sys
}

fn run_cadical(bin: &std::path::Path, text: &str) -> Option<Vec<i32>> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("unrolling.cnf");
    std::fs::write(&path, text).unwrap();
    let out = Command::new(bin).arg("-q").arg(&path).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    // cadical exits 10 for SAT and 20 for UNSAT.
    assert!(
        matches!(out.status.code(), Some(10 | 20)),
        "cadical failed: {:?}\n{stdout}",
        out.status
    );
    bmc::read_solver_output(&stdout).unwrap()
}

#[test]
fn cadical_agrees_with_the_embedded_solver() {
    let Some(bin) = cadical() else { return };
    let sys = ring(6);
    // Odd bounds cannot return to 0 on an even ring; 6 goes round once.
    for k in [3, 5, 6, 7, 8] {
        for enc in [
            Encoding::OneHot,
            Encoding::Order,
            Encoding::Log,
            Encoding::Auto,
        ] {
            let embedded = bmc::solve(
                &sys,
                &BmcOptions {
                    bound: Some(k),
                    encoding: enc,
                    ..Default::default()
                },
            )
            .unwrap();
            let text = bmc::dimacs(&sys, k, enc).unwrap();
            let outside = run_cadical(&bin, &text);
            match outside {
                Some(model) => {
                    assert_eq!(embedded.status, Status::Solved, "k={k} {enc}");
                    let trace = bmc::decode_dimacs_model(&sys, &text, &model).unwrap();
                    assert_eq!(sys.check(&trace), Ok(()), "k={k} {enc}");
                    assert_eq!(trace.states.len(), k + 1);
                }
                None => assert_eq!(embedded.status, Status::Unsat, "k={k} {enc}"),
            }
        }
    }
}

/// The successor/rank model `checkmate solve` uses for waypoint puzzles
/// (and moves on to for numbrix and hidato) defines the one-hot `pos = c`
/// by the frozen rank (`pos = c <-> rank[c] = step`), so the position's
/// literals are shared with rank gates: the labels must still decode an
/// outside solver's model into a solution.
#[test]
fn cadical_model_of_a_successor_rank_model_with_defined_positions_decodes() {
    use checkmate::grid::{parse, strengthen};
    let Some(bin) = cadical() else { return };
    for file in [
        "models/bench/waypoint-6x6-s1.txt",
        "tests/fixtures/grid/numbrix-9x9-sparse-s4.txt",
    ] {
        let text = std::fs::read_to_string(file).unwrap();
        let puzzle = parse::parse(&text).unwrap();
        let models = strengthen::sat_models(&puzzle);
        let sys = models.last().unwrap().compile(&puzzle);
        let k = sys.bound.unwrap();
        let text = bmc::dimacs(&sys, k, Encoding::Auto).unwrap();
        assert!(text.contains("= pos@3="), "{file}: positions are labelled");
        let model = run_cadical(&bin, &text).expect("the puzzle has a solution");
        let trace = bmc::decode_dimacs_model(&sys, &text, &model).unwrap();
        assert_eq!(sys.check(&trace), Ok(()), "{file}");
    }
}

/// `checkmate cnf` writes a waypoint puzzle's successor model with its
/// acyclicity said by the ranks (the embedded solver leaves them out and
/// cuts cycles instead): an outside solver's model of that CNF decodes to
/// a run of the whole system, a path the puzzle's checker accepts.
#[test]
fn cadical_model_of_the_waypoint_successor_model_decodes_to_a_path() {
    use checkmate::grid::{self, parse, strengthen};
    let Some(bin) = cadical() else { return };
    for file in [
        "models/bench/waypoint-6x6-s1.txt",
        "models/bench/waypoint-9x9-unique-s3.txt",
    ] {
        let text = std::fs::read_to_string(file).unwrap();
        let puzzle = parse::parse(&text).unwrap();
        let sys = strengthen::sat_models(&puzzle)[0].compile(&puzzle);
        assert!(!sys.acyclic.is_empty(), "{file}: the successor model");
        let text = bmc::dimacs(&sys, 0, Encoding::Auto).unwrap();
        assert!(
            text.contains("= rank[0]@0>="),
            "{file}: the ranks are written"
        );
        let model = run_cadical(&bin, &text).expect("the puzzle has a solution");
        let trace = bmc::decode_dimacs_model(&sys, &text, &model).unwrap();
        assert_eq!(sys.check(&trace), Ok(()), "{file}");
        let path = grid::decode(&puzzle, &trace).unwrap();
        assert_eq!(grid::check(&puzzle, &path), Ok(()), "{file}");
    }
}
