//! Unit tests of the engine on hand-built systems, and a differential
//! test against brute-force enumeration of paths on random small systems.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::*;
use crate::ir::{Assign, Constraint, Domain, Expr, Value};

const ENCODINGS: [Encoding; 4] = [
    Encoding::OneHot,
    Encoding::Order,
    Encoding::Log,
    Encoding::Auto,
];

fn opts(enc: Encoding) -> BmcOptions {
    BmcOptions {
        encoding: enc,
        ..BmcOptions::default()
    }
}

/// Every solution of `sys` at its bound, with encoding `enc`.
fn count_all(sys: &System, enc: Encoding) -> BmcResult {
    let o = BmcOptions {
        count: Some(0),
        ..opts(enc)
    };
    solve(sys, &o).unwrap()
}

fn ints(t: &Trace, v: VarId) -> Vec<i64> {
    t.states
        .iter()
        .map(|s| match s[v.index()] {
            Value::Int(i) => i,
            ref other => panic!("not an int: {other}"),
        })
        .collect()
}

/// A counter 0..3 that must reach 3, stepping by 1 or 2 while below 2.
fn counter() -> (System, VarId) {
    let mut sys = System::default();
    let x = sys.add_var("x", Domain::Range { lo: 0, hi: 3 }, false);
    sys.init_assign.push(Assign {
        var: x,
        value: Expr::int(0),
    });
    sys.next_assign.push(Assign {
        var: x,
        value: Expr::Case(vec![
            (
                Expr::lt(Expr::var(x), Expr::int(2)),
                Expr::Set(vec![
                    Expr::Add(vec![Expr::var(x), Expr::int(1)]),
                    Expr::Add(vec![Expr::var(x), Expr::int(2)]),
                ]),
            ),
            (Expr::t(), Expr::int(3)),
        ]),
    });
    sys.goal = sys.add_define("goal", Expr::eq(Expr::var(x), Expr::int(3)));
    (sys, x)
}

#[test]
fn finds_the_shortest_bound_of_a_nondeterministic_counter() {
    let (sys, x) = counter();
    for enc in ENCODINGS {
        let r = solve(&sys, &opts(enc)).unwrap();
        assert_eq!(r.status, Status::Solved, "{enc}");
        assert_eq!(r.bound, 2);
        assert!(!r.bound_given);
        let path = ints(&r.traces[0], x);
        assert!(path == [0, 1, 3] || path == [0, 2, 3], "{path:?}");
        assert_eq!(r.unique, None);
    }
}

#[test]
fn counts_every_path_at_the_shortest_and_at_an_exact_bound() {
    let (sys, x) = counter();
    for enc in ENCODINGS {
        let all = BmcOptions {
            count: Some(0),
            ..opts(enc)
        };
        let r = solve(&sys, &all).unwrap();
        assert_eq!((r.found(), r.exhausted, r.unique), (2, true, Some(false)));
        let r = solve(
            &sys,
            &BmcOptions {
                bound: Some(3),
                ..all.clone()
            },
        )
        .unwrap();
        let mut paths: Vec<Vec<i64>> = r.traces.iter().map(|t| ints(t, x)).collect();
        paths.sort();
        assert_eq!(paths, [[0, 1, 2, 3], [0, 1, 3, 3], [0, 2, 3, 3]], "{enc}");
        assert!(r.exhausted && r.bound_given);
    }
}

#[test]
fn counting_keeps_only_the_first_traces_asked_for() {
    let (sys, x) = counter();
    let all = solve(
        &sys,
        &BmcOptions {
            count: Some(0),
            ..Default::default()
        },
    )
    .unwrap();
    for keep in [0, 1, 2, 3] {
        let o = BmcOptions {
            count: Some(0),
            keep,
            ..Default::default()
        };
        let r = solve(&sys, &o).unwrap();
        assert_eq!((r.found(), r.exhausted, r.unique), (2, true, Some(false)));
        assert_eq!(r.traces.len(), keep.min(2));
        for (t, first) in r.traces.iter().zip(&all.traces) {
            assert_eq!(ints(t, x), ints(first, x));
        }
    }
}

#[test]
fn count_two_decides_uniqueness_and_count_one_does_not() {
    let (mut sys, _) = counter();
    sys.bound = Some(3);
    let two = solve(
        &sys,
        &BmcOptions {
            count: Some(2),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        (two.found(), two.exhausted, two.unique),
        (2, false, Some(false))
    );
    let one = solve(
        &sys,
        &BmcOptions {
            count: Some(1),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!((one.found(), one.unique), (1, None));
    // At bound 1 nothing reaches 3: unsat, and (when counting) not unique.
    let r = solve(
        &sys,
        &BmcOptions {
            bound: Some(1),
            count: Some(2),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        (r.status, r.exhausted, r.unique),
        (Status::Unsat, true, Some(false))
    );
}

/// The counter at bound 2, forbidden to step through 1: only the path
/// 0, 2, 3 remains.
fn counter_through_two() -> (System, VarId) {
    let (mut sys, x) = counter();
    sys.bound = Some(2);
    sys.invar.push(Constraint {
        label: "no one".into(),
        expr: Expr::negate(Expr::eq(Expr::var(x), Expr::int(1))),
    });
    (sys, x)
}

#[test]
fn a_unique_solution_is_reported_unique() {
    let (sys, _) = counter_through_two();
    for enc in ENCODINGS {
        // Without the domain analysis, which would answer alone (see
        // below): the solver must find the path and prove it the only one.
        let r = solve(
            &sys,
            &BmcOptions {
                count: Some(2),
                prune: false,
                ..opts(enc)
            },
        )
        .unwrap();
        assert_eq!(
            (r.found(), r.exhausted, r.unique),
            (1, true, Some(true)),
            "{enc}"
        );
    }
}

#[test]
fn a_path_the_domains_determine_needs_no_solve_and_is_the_same() {
    // The pruned domains leave one value per step, so the answer comes
    // without a SAT solve, and it is the one the solver finds with
    // pruning off.
    let (sys, x) = counter_through_two();
    for count in [None, Some(1), Some(2), Some(0)] {
        let o = BmcOptions {
            count,
            ..BmcOptions::default()
        };
        let r = solve(&sys, &o).unwrap();
        let plain = solve(
            &sys,
            &BmcOptions {
                prune: false,
                ..o.clone()
            },
        )
        .unwrap();
        assert_eq!(r.solves, 0, "{count:?}");
        assert!(plain.solves > 0, "{count:?}");
        assert_eq!(ints(&r.traces[0], x), vec![0, 2, 3]);
        assert_eq!(r.traces, plain.traces, "{count:?}");
        assert_eq!(
            (r.status, r.exhausted, r.unique, r.limit),
            (plain.status, plain.exhausted, plain.unique, plain.limit),
            "{count:?}"
        );
    }
}

#[test]
fn unsat_at_an_exact_bound_and_unknown_past_the_search_limit() {
    let (mut sys, x) = counter();
    sys.invar.push(Constraint {
        label: "never 3".into(),
        expr: Expr::negate(Expr::eq(Expr::var(x), Expr::int(3))),
    });
    for enc in ENCODINGS {
        let r = solve(
            &sys,
            &BmcOptions {
                bound: Some(4),
                ..opts(enc)
            },
        )
        .unwrap();
        assert_eq!(r.status, Status::Unsat);
        assert!(r.exhausted && r.traces.is_empty() && r.limit.is_none());
        let r = solve(
            &sys,
            &BmcOptions {
                max_bound: 5,
                ..opts(enc)
            },
        )
        .unwrap();
        assert_eq!(r.status, Status::Unknown);
        assert_eq!(r.limit, Some(Limit::MaxBound(5)));
    }
}

/// `x` adds a frozen, unassigned step `s` each move until it would pass 9.
fn frozen_stepper() -> (System, VarId, VarId) {
    let mut sys = System::default();
    let x = sys.add_var("x", Domain::Range { lo: 0, hi: 9 }, false);
    let s = sys.add_var("s", Domain::Range { lo: 0, hi: 4 }, true);
    let sum = Expr::Add(vec![Expr::var(x), Expr::var(s)]);
    sys.init_assign.push(Assign {
        var: x,
        value: Expr::int(0),
    });
    sys.next_assign.push(Assign {
        var: x,
        value: Expr::Case(vec![
            (Expr::le(sum.clone(), Expr::int(9)), sum),
            (Expr::t(), Expr::var(x)),
        ]),
    });
    sys.goal = Expr::eq(Expr::var(x), Expr::int(6));
    sys.bound = Some(3);
    (sys, x, s)
}

#[test]
fn frozen_variables_keep_one_value_along_the_path() {
    let (sys, x, s) = frozen_stepper();
    for enc in ENCODINGS {
        let r = count_all(&sys, enc);
        assert_eq!((r.found(), r.unique), (1, Some(true)), "{enc}");
        assert_eq!(ints(&r.traces[0], x), [0, 2, 4, 6]);
        assert_eq!(ints(&r.traces[0], s), [2, 2, 2, 2]);
    }
}

#[test]
fn counting_blocks_on_the_solution_variables_only() {
    // Two booleans, free; only `a` tells solutions apart.
    let mut sys = System::default();
    let a = sys.add_var("a", Domain::Bool, false);
    let _b = sys.add_var("b", Domain::Bool, false);
    sys.bound = Some(0);
    sys.solution_vars = vec![a];
    let r = solve(
        &sys,
        &BmcOptions {
            count: Some(0),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(r.found(), 2);
    sys.solution_vars.clear();
    let r = solve(
        &sys,
        &BmcOptions {
            count: Some(0),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(r.found(), 4);
    let r = solve(
        &sys,
        &BmcOptions {
            count: Some(0),
            count_cap: 3,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        (r.found(), r.exhausted, r.limit),
        (3, false, Some(Limit::CountCap(3)))
    );
}

#[test]
fn integers_through_add_sub_and_count() {
    // b[0..4) free; n = count(b); goal: n + 1 = 3 and b[0] - b[0] ... as ints:
    // exactly two of four are set, and k - n < 1 for a frozen k in 0..3.
    let mut sys = System::default();
    let b = sys.add_family("b", 4, Domain::Bool, false);
    let n = sys.add_var("n", Domain::Range { lo: 0, hi: 4 }, false);
    let k = sys.add_var("k", Domain::Range { lo: 0, hi: 3 }, true);
    let count = Expr::Count(b.iter().map(|&v| Expr::var(v)).collect());
    sys.invar.push(Constraint {
        label: "n counts b".into(),
        expr: Expr::eq(Expr::var(n), count),
    });
    sys.goal = Expr::And(vec![
        Expr::eq(Expr::Add(vec![Expr::var(n), Expr::int(1)]), Expr::int(3)),
        Expr::lt(
            Expr::Sub(Box::new(Expr::var(k)), Box::new(Expr::var(n))),
            Expr::int(1),
        ),
    ]);
    sys.bound = Some(0);
    sys.solution_vars = b.clone();
    sys.solution_vars.push(k);
    for enc in ENCODINGS {
        let r = count_all(&sys, enc);
        // C(4, 2) = 6 ways, times k in {0, 1, 2}.
        assert_eq!((r.found(), r.exhausted), (18, true), "{enc}");
    }
}

#[test]
fn a_long_cardinality_bounded_by_a_constant_counts_exactly() {
    // Twelve free booleans, 2 <= count <= 3 (the counter stops at 4):
    // C(12, 2) + C(12, 3) = 66 + 220 solutions.
    let mut sys = System::default();
    let b = sys.add_family("b", 12, Domain::Bool, false);
    let count = || Expr::Count(b.iter().map(|&v| Expr::var(v)).collect());
    sys.invar.push(Constraint {
        label: "two or three".into(),
        expr: Expr::And(vec![
            Expr::le(Expr::int(2), count()),
            Expr::le(count(), Expr::int(3)),
        ]),
    });
    sys.goal = Expr::t();
    sys.bound = Some(0);
    sys.solution_vars = b.clone();
    for enc in ENCODINGS {
        let r = count_all(&sys, enc);
        assert_eq!((r.found(), r.exhausted), (286, true), "{enc}");
    }
}

#[test]
fn case_takes_the_first_true_guard() {
    // Overlapping guards: x >= 1 wins over x >= 0.
    let mut sys = System::default();
    let x = sys.add_var("x", Domain::Range { lo: 0, hi: 3 }, false);
    sys.init_assign.push(Assign {
        var: x,
        value: Expr::Set(vec![Expr::int(0), Expr::int(1)]),
    });
    sys.next_assign.push(Assign {
        var: x,
        value: Expr::Case(vec![
            (Expr::le(Expr::int(1), Expr::var(x)), Expr::int(0)),
            (Expr::le(Expr::int(0), Expr::var(x)), Expr::int(2)),
        ]),
    });
    sys.bound = Some(2);
    for enc in ENCODINGS {
        let r = count_all(&sys, enc);
        let mut paths: Vec<Vec<i64>> = r.traces.iter().map(|t| ints(t, x)).collect();
        paths.sort();
        assert_eq!(paths, [[0, 2, 0], [1, 0, 2]], "{enc}");
    }
}

#[test]
fn arms_after_a_run_naming_every_value_are_dead() {
    // `x = 0` … `x = 3` name every value: the `TRUE` arm is dead; the
    // paths are those of the named arms, with or without pruning.
    let mut sys = System::default();
    let x = sys.add_var("x", Domain::Range { lo: 0, hi: 3 }, false);
    sys.init_assign.push(Assign {
        var: x,
        value: Expr::Set(vec![Expr::int(0), Expr::int(1), Expr::int(2)]),
    });
    let arm = |c: i64, to: Vec<Expr>| (Expr::eq(Expr::var(x), Expr::int(c)), Expr::Set(to));
    sys.next_assign.push(Assign {
        var: x,
        value: Expr::Case(vec![
            arm(0, vec![Expr::int(1)]),
            arm(1, vec![Expr::int(2), Expr::int(0)]),
            arm(2, vec![Expr::int(0)]),
            arm(3, vec![Expr::int(3)]),
            (Expr::t(), Expr::Set(vec![Expr::int(3)])),
        ]),
    });
    sys.bound = Some(2);
    for enc in ENCODINGS {
        for prune in [true, false] {
            let r = solve(
                &sys,
                &BmcOptions {
                    count: Some(0),
                    prune,
                    ..opts(enc)
                },
            )
            .unwrap();
            let mut paths: Vec<Vec<i64>> = r.traces.iter().map(|t| ints(t, x)).collect();
            paths.sort();
            let want = [[0, 1, 0], [0, 1, 2], [1, 0, 1], [1, 2, 0], [2, 0, 1]];
            assert_eq!(paths, want, "{enc}, prune {prune}");
        }
    }
}

#[test]
fn enums_membership_and_ite() {
    let mut sys = System::default();
    let colours = Domain::Enum(vec!["red".into(), "green".into(), "blue".into()]);
    let c = sys.add_var("c", colours, false);
    let flip = sys.add_var("flip", Domain::Bool, false);
    sys.init_assign.push(Assign {
        var: c,
        value: Expr::sym("red"),
    });
    sys.next_assign.push(Assign {
        var: c,
        value: Expr::ite(
            Expr::var(flip),
            Expr::Set(vec![Expr::sym("green"), Expr::sym("blue")]),
            Expr::var(c),
        ),
    });
    sys.goal = Expr::is_in(Expr::var(c), vec![Expr::sym("blue")]);
    for enc in ENCODINGS {
        let r = count_all(&sys, enc);
        assert_eq!((r.bound, r.found()), (1, 2), "{enc}"); // flip at step 1: free
        let t = &r.traces[0];
        assert_eq!(t.states[0][flip.index()], Value::Bool(true));
    }
}

#[test]
fn encoding_errors_name_the_step_and_constraint() {
    let mut sys = System::default();
    let x = sys.add_var("x", Domain::Range { lo: 0, hi: 3 }, false);
    sys.invar.push(Constraint {
        label: "nonsense".into(),
        expr: Expr::And(vec![Expr::var(x)]),
    });
    let err = solve(
        &sys,
        &BmcOptions {
            bound: Some(0),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        matches!(&err, BmcError::Encode { step: 0, what, .. } if what.contains("nonsense")),
        "{err}"
    );
    let mut sys = System::default();
    let x = sys.add_var("x", Domain::Bool, false);
    sys.invar.push(Constraint {
        label: "no next here".into(),
        expr: Expr::next(x),
    });
    let err = solve(
        &sys,
        &BmcOptions {
            bound: Some(0),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("next(x) outside a transition"),
        "{err}"
    );
}

/// Pigeons into holes, one too few holes: hard for resolution.
fn pigeonhole(holes: i64) -> System {
    let mut sys = System::default();
    let p = sys.add_family(
        "p",
        holes as usize + 1,
        Domain::Range {
            lo: 0,
            hi: holes - 1,
        },
        true,
    );
    let mut distinct = Vec::new();
    for i in 0..p.len() {
        for j in i + 1..p.len() {
            distinct.push(Expr::negate(Expr::eq(Expr::var(p[i]), Expr::var(p[j]))));
        }
    }
    sys.goal = Expr::And(distinct);
    sys.bound = Some(0);
    sys
}

/// The solvers compiled into this build.
fn solvers() -> Vec<SolverKind> {
    [SolverKind::Batsat, SolverKind::Cadical]
        .into_iter()
        .filter(|s| s.available())
        .collect()
}

#[test]
fn a_timeout_interrupts_a_single_long_solve() {
    for solver in solvers() {
        let r = solve(
            &pigeonhole(12),
            &BmcOptions {
                timeout: Some(Duration::from_millis(200)),
                solver,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(
            (r.status, r.limit),
            (Status::Unknown, Some(Limit::Timeout)),
            "{solver}"
        );
        assert_eq!(r.solves, 1);
    }
}

#[test]
fn a_conflict_limit_stops_the_search_where_it_is_met() {
    for solver in solvers() {
        // Pigeonhole(6) is unsatisfiable and needs hundreds of conflicts.
        let limited = |limit| {
            solve(
                &pigeonhole(6),
                &BmcOptions {
                    conflict_limit: Some(limit),
                    solver,
                    ..Default::default()
                },
            )
            .unwrap()
        };
        let r = limited(20);
        assert_eq!(
            (r.status, r.limit),
            (Status::Unknown, Some(Limit::Conflicts(20))),
            "{solver}"
        );
        assert!((20..40).contains(&r.conflicts), "{solver}: {}", r.conflicts);
        // A budget the search stays within changes nothing.
        let r = limited(1_000_000);
        assert_eq!((r.status, r.limit), (Status::Unsat, None), "{solver}");
    }
}

#[test]
fn an_interrupt_flag_stops_the_search() {
    let flag = Arc::new(AtomicBool::new(true));
    let r = solve(
        &pigeonhole(4),
        &BmcOptions {
            interrupt: Some(flag),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        (r.status, r.limit),
        (Status::Unknown, Some(Limit::Interrupted))
    );
}

/// Options that race `jobs` searches with no delay (see [`race`]).
fn raced(jobs: usize, o: BmcOptions) -> impl Fn(&System) -> BmcResult {
    move |sys| {
        let o = BmcOptions { jobs, ..o.clone() };
        race::race(sys, &[], None, None, &o, race::Join::after(Duration::ZERO)).unwrap()
    }
}

/// A race whose first search answers before its solver has looked at
/// the watch 256 times (and before the race's delay) never starts its
/// referee, so no other search joins; a hard one is joined (here at its
/// 10th conflict, which only a referee started from inside its solve, or
/// after the delay, can see).
#[test]
fn a_trivial_first_search_is_never_joined() {
    let (sys, _) = counter();
    for solver in solvers() {
        let o = BmcOptions {
            count: Some(2),
            solver,
            jobs: 2,
            ..Default::default()
        };
        let join = race::Join {
            conflicts: Some(10),
            ..race::Join::after(race::DELAY)
        };
        let r = race::race(&sys, &[], None, None, &o, join).unwrap();
        assert_eq!((r.found(), r.searches), (2, 1), "{solver}");
        let o = BmcOptions {
            timeout: Some(race::DELAY * 2),
            ..o
        };
        let r = race::race(&pigeonhole(12), &[], None, None, &o, join).unwrap();
        assert_eq!((r.limit, r.searches), (Some(Limit::Timeout), 2), "{solver}");
    }
}

#[test]
fn racing_searches_answer_like_one() {
    let (sys, x) = counter();
    for solver in solvers() {
        for jobs in [2, 3] {
            let o = BmcOptions {
                count: Some(0),
                solver,
                seed: 5,
                ..Default::default()
            };
            let r = raced(jobs, o)(&sys);
            assert_eq!((r.found(), r.exhausted, r.bound), (2, true, 2), "{solver}");
            assert!((5..5 + jobs as u32).contains(&r.seed), "{}", r.seed);
            assert!((1..=jobs).contains(&r.searches));
            let mut paths: Vec<_> = r.traces.iter().map(|t| ints(t, x)).collect();
            paths.sort();
            assert_eq!(paths, [[0, 1, 3], [0, 2, 3]]);
            // Counting them all never races.
            let o = BmcOptions {
                count: Some(0),
                seed: 5,
                jobs,
                ..Default::default()
            };
            let r = solve(&sys, &o).unwrap();
            assert_eq!((r.found(), r.seed, r.searches), (2, 5, 1));
        }
    }
}

#[test]
fn a_race_keeps_the_deadline_and_the_interrupt() {
    for solver in solvers() {
        let o = BmcOptions {
            timeout: Some(Duration::from_millis(300)),
            solver,
            ..Default::default()
        };
        let r = raced(2, o)(&pigeonhole(12));
        assert_eq!(
            (r.status, r.limit, r.searches),
            (Status::Unknown, Some(Limit::Timeout), 2),
            "{solver}"
        );
        assert!(r.time >= Duration::from_millis(300), "{:?}", r.time);
        let flag = Arc::new(AtomicBool::new(false));
        let o = BmcOptions {
            interrupt: Some(flag.clone()),
            solver,
            ..Default::default()
        };
        let setter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            flag.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        let r = raced(2, o)(&pigeonhole(12));
        setter.join().unwrap();
        assert_eq!(
            (r.status, r.limit, r.searches),
            (Status::Unknown, Some(Limit::Interrupted), 2),
            "{solver}"
        );
    }
}

#[test]
fn a_race_ends_at_the_first_budget_met_and_solve_never_races_one() {
    for solver in solvers() {
        let o = BmcOptions {
            conflict_limit: Some(20),
            solver,
            ..Default::default()
        };
        let r = raced(2, o.clone())(&pigeonhole(6));
        assert_eq!(
            (r.status, r.limit),
            (Status::Unknown, Some(Limit::Conflicts(20))),
            "{solver}"
        );
        // Past the race's delay, under a budget it does not meet: one
        // search all the same.
        let o = BmcOptions {
            jobs: 2,
            conflict_limit: Some(u64::MAX),
            timeout: Some(race::DELAY * 2),
            ..o
        };
        let r = solve(&pigeonhole(12), &o).unwrap();
        assert_eq!((r.limit, r.searches), (Some(Limit::Timeout), 1));
        let r = solve(
            &pigeonhole(12),
            &BmcOptions {
                conflict_limit: None,
                ..o
            },
        )
        .unwrap();
        assert_eq!((r.limit, r.searches), (Some(Limit::Timeout), 2));
    }
}

#[test]
fn a_race_queue_runs_each_fallback_then_more_seeds_of_the_last() {
    let q = |jobs, fallbacks, limit| {
        race::queue(jobs, fallbacks, limit, None)
            .iter()
            .map(|s| (s.system, s.seed_offset, s.conflict_limit))
            .collect::<Vec<_>>()
    };
    assert_eq!(q(2, 0, None), [(0, 0, None), (0, 1, None)]);
    assert_eq!(q(2, 1, None), [(0, 0, None), (1, 0, None)]);
    // A budget for the first: its worker goes on with one more search.
    assert_eq!(
        q(2, 1, Some(9)),
        [(0, 0, Some(9)), (1, 0, None), (1, 1, None)]
    );
    assert_eq!(q(3, 2, None), [(0, 0, None), (1, 0, None), (2, 0, None)]);
    assert_eq!(q(1, 1, Some(9)), [(0, 0, Some(9)), (1, 0, None)]);
    // Going back: the first worker's second search has a budget too, and
    // the first system comes once more, with none.
    let back = |jobs, fallbacks| {
        race::queue(jobs, fallbacks, Some(9), Some(5))
            .iter()
            .map(|s| (s.system, s.seed_offset, s.conflict_limit))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        back(2, 1),
        [(0, 0, Some(9)), (1, 0, None), (1, 1, Some(5)), (0, 0, None)]
    );
    assert_eq!(back(1, 1), [(0, 0, Some(9)), (1, 0, Some(5)), (0, 0, None)]);
    // Nothing to go back from without a fallback.
    assert_eq!(back(2, 0), [(0, 0, Some(9)), (0, 1, None), (0, 2, None)]);
}

#[test]
fn a_race_goes_back_to_the_first_system_that_alone_can_answer() {
    // Pigeonhole 7 is refuted after a few hundred conflicts, 12 in no
    // time a test waits: the first worker meets its budget on 7, then on
    // the fallback's second seed, then refutes 7 from the start.
    let build = || pigeonhole(12);
    for solver in solvers() {
        // Without the way back the race would run on to its deadline.
        let o = BmcOptions {
            solver,
            jobs: 2,
            timeout: Some(Duration::from_secs(20)),
            ..Default::default()
        };
        let first = pigeonhole(7);
        let r = solve_racing(&first, &[&build], Some(1), Some(5), Some(5), &o).unwrap();
        assert_eq!(
            (r.status, r.system, r.searches),
            (Status::Unsat, 0, 4),
            "{solver}"
        );
    }
}

#[test]
fn a_race_with_a_fallback_answers_with_whichever_system_can() {
    let (easy, x) = counter();
    let build = || counter().0;
    for solver in solvers() {
        let o = BmcOptions {
            count: Some(2),
            solver,
            jobs: 2,
            ..Default::default()
        };
        // The first system cannot answer soon (pigeonhole, hard), the
        // fallback joins at its 10th conflict and answers.
        let hard = pigeonhole(10);
        let r = solve_racing(&hard, &[&build], Some(10), None, None, &o).unwrap();
        assert_eq!(
            (r.status, r.system, r.found()),
            (Status::Solved, 1, 2),
            "{solver}"
        );
        assert_eq!(r.searches, 2);
        // With one worker, the first search's budget hands the worker over
        // to the fallback (one search at a time).
        let one = BmcOptions {
            jobs: 1,
            ..o.clone()
        };
        let r = race::race(
            &hard,
            &[&build],
            Some(20),
            None,
            &one,
            race::Join::after(Duration::ZERO),
        )
        .unwrap();
        assert_eq!(
            (r.status, r.system, r.searches),
            (Status::Solved, 1, 2),
            "{solver}"
        );
        // An easy first system answers itself; its paths are the counter's.
        let r = solve_racing(&easy, &[&build], Some(10), Some(1000), None, &o).unwrap();
        assert_eq!((r.status, r.system, r.found()), (Status::Solved, 0, 2));
        let mut paths: Vec<_> = r.traces.iter().map(|t| ints(t, x)).collect();
        paths.sort();
        assert_eq!(paths, [[0, 1, 3], [0, 2, 3]]);
        // Not racing (one job): the first system alone, under the
        // caller's budget (not `first_limit`).
        let capped = BmcOptions {
            conflict_limit: Some(30),
            ..one.clone()
        };
        let r = solve_racing(&hard, &[&build], Some(10), Some(10), None, &capped).unwrap();
        let want = (Status::Unknown, 0, Some(Limit::Conflicts(30)));
        assert_eq!((r.status, r.system, r.limit), want);
    }
}

/// One job, turns of `ms` milliseconds, a 20 s deadline (never met).
fn one_core(solver: SolverKind, ms: u64) -> BmcOptions {
    BmcOptions {
        solver,
        jobs: 1,
        turn: Duration::from_millis(ms),
        timeout: Some(Duration::from_secs(20)),
        ..Default::default()
    }
}

#[test]
fn on_one_core_a_paused_first_system_goes_on_where_it_stopped() {
    // Pigeonhole 7 is refuted after a few hundred conflicts, 12 in no
    // time a test waits: paused at its first conflict, the first system
    // still answers, on its later turns (before, one core dropped it at
    // its budget and searched the fallback for ever).
    let build = || pigeonhole(12);
    for solver in solvers() {
        let r = solve_racing(
            &pigeonhole(7),
            &[&build],
            Some(1),
            None,
            None,
            &one_core(solver, 5),
        );
        let r = r.unwrap();
        assert_eq!(
            (r.status, r.system, r.searches),
            (Status::Unsat, 0, 2),
            "{solver}"
        );
        assert!(r.turns >= 3, "{solver}: {} turns", r.turns);
        // Paused, not restarted: its conflicts are those of one search
        // (alone it needs the same number; restarts would add up).
        let alone = solve(&pigeonhole(7), &one_core(solver, 5)).unwrap();
        assert_eq!(r.conflicts, alone.conflicts, "{solver}");
    }
}

#[test]
fn on_one_core_the_fallback_answers_when_it_can_and_easy_ones_take_no_turn() {
    let (easy, x) = counter();
    let build = || counter().0;
    for solver in solvers() {
        let o = BmcOptions {
            count: Some(2),
            ..one_core(solver, 5)
        };
        let r = solve_racing(&pigeonhole(12), &[&build], Some(10), None, None, &o).unwrap();
        assert_eq!(
            (r.status, r.system, r.found(), r.searches, r.turns),
            (Status::Solved, 1, 2, 2, 2),
            "{solver}"
        );
        let mut paths: Vec<_> = r.traces.iter().map(|t| ints(t, x)).collect();
        paths.sort();
        assert_eq!(paths, [[0, 1, 3], [0, 2, 3]]);
        // Answered within the first turn: the fallback is never built.
        let never = || -> System { panic!("the fallback was built") };
        let r = solve_racing(&easy, &[&never], Some(10), None, None, &o).unwrap();
        let searches = if solver == SolverKind::Batsat { 1 } else { 2 };
        assert_eq!(
            (r.status, r.system, r.found(), r.searches, r.turns),
            (Status::Solved, 0, 2, searches, 1),
            "{solver}"
        );
    }
}

#[test]
fn a_search_that_panics_while_taking_turns_ends_them_and_the_panic_comes_back() {
    // Were the panicking fallback's baton never passed back, the first
    // search would wait for it for ever and this test would hang.
    let broken = || -> System { panic!("the fallback cannot be built") };
    for solver in solvers() {
        let o = one_core(solver, 5);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            solve_racing(&pigeonhole(12), &[&broken], Some(1), None, None, &o)
        }));
        assert!(r.is_err(), "{solver}");
    }
}

#[test]
fn taking_turns_keeps_the_deadline_and_the_interrupt() {
    let build = || pigeonhole(12);
    for solver in solvers() {
        let o = BmcOptions {
            timeout: Some(Duration::from_millis(300)),
            ..one_core(solver, 20)
        };
        let r = solve_racing(&pigeonhole(12), &[&build], Some(1), None, None, &o).unwrap();
        assert_eq!(
            (r.status, r.limit, r.searches),
            (Status::Unknown, Some(Limit::Timeout), 2),
            "{solver}"
        );
        assert!(r.turns >= 3, "{solver}: {} turns", r.turns);
        assert!(r.time >= Duration::from_millis(300), "{:?}", r.time);
        let flag = Arc::new(AtomicBool::new(false));
        let o = BmcOptions {
            interrupt: Some(flag.clone()),
            ..one_core(solver, 20)
        };
        let setter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            flag.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        let r = solve_racing(&pigeonhole(12), &[&build], Some(1), None, None, &o).unwrap();
        setter.join().unwrap();
        assert_eq!(
            (r.status, r.limit, r.searches),
            (Status::Unknown, Some(Limit::Interrupted), 2),
            "{solver}"
        );
    }
}

#[test]
fn progress_reports_bounds_and_sizes() {
    let seen: Arc<Mutex<Vec<Progress>>> = Arc::default();
    let sink = seen.clone();
    let (sys, _) = counter();
    let r = solve(
        &sys,
        &BmcOptions {
            progress: Some(Arc::new(move |p: &Progress| sink.lock().unwrap().push(*p))),
            ..Default::default()
        },
    )
    .unwrap();
    let seen = seen.lock().unwrap();
    let bounds: Vec<usize> = seen
        .iter()
        .filter(|p| p.phase == Phase::Answered)
        .map(|p| p.bound)
        .collect();
    assert_eq!(bounds, [0, 1, 2]);
    let last = seen.last().unwrap();
    assert_eq!((last.found, last.vars), (1, r.vars));
    assert!(last.to_string().starts_with("bmc: bound 2, "), "{last}");
}

#[test]
fn cadical_is_reported_missing_or_agrees() {
    let (sys, _) = counter();
    let o = BmcOptions {
        solver: SolverKind::Cadical,
        count: Some(0),
        ..Default::default()
    };
    match solve(&sys, &o) {
        Ok(r) => {
            assert!(SolverKind::Cadical.available());
            assert_eq!(r.found(), 2);
        }
        Err(e) => {
            assert!(!SolverKind::Cadical.available());
            assert!(matches!(
                e,
                BmcError::SolverUnavailable(SolverKind::Cadical)
            ));
        }
    }
}

#[test]
fn dimacs_models_decode_to_the_same_traces() {
    // Decode a model found by the embedded solver on the DIMACS text
    // itself: every solution of the counter at bound 3, by enumeration
    // with a tiny DPLL-free check: the embedded traces' labelled literals.
    let (sys, _) = counter();
    for enc in ENCODINGS {
        let text = dimacs(&sys, 3, enc).unwrap();
        assert!(text.contains("c bound 3\n"));
        let p_line = text.lines().find(|l| l.starts_with("p cnf ")).unwrap();
        let n_clauses: usize = p_line.split_whitespace().nth(3).unwrap().parse().unwrap();
        let clause_lines = text
            .lines()
            .filter(|l| !l.starts_with('c') && !l.starts_with('p'));
        assert_eq!(clause_lines.count(), n_clauses);
        // Solve the text with batsat through rustsat's DIMACS reader.
        let model = solve_dimacs_text(&text).expect("satisfiable");
        let trace = decode_dimacs_model(&sys, &text, &model).unwrap();
        assert_eq!(sys.check(&trace), Ok(()), "{enc}");
    }
}

/// The system's comment (for a grid, what `pos`'s values mean) comes
/// along as `c model:` lines, and lines that read like the labels the
/// decoder looks for are not taken for them.
#[test]
fn dimacs_carries_the_systems_comment_apart_from_its_labels() {
    let (mut sys, _) = counter();
    sys.comment = vec![
        "the cells are numbered column by column".into(),
        "var 1 = x@0=3".into(),
        "fixed x@0=2".into(),
        "bound 9".into(),
    ];
    let text = dimacs(&sys, 3, Encoding::Auto).unwrap();
    for line in &sys.comment {
        assert!(text.contains(&format!("c model: {line}\n")), "{line}");
    }
    assert!(text.contains("c bound 3\n"));
    let model = solve_dimacs_text(&text).expect("satisfiable");
    let trace = decode_dimacs_model(&sys, &text, &model).unwrap();
    assert_eq!(sys.check(&trace), Ok(()));
}

/// Two frozen booleans, the goal reading `a` only: `b` is free.
fn free_pair() -> (System, VarId, VarId) {
    let mut sys = System::default();
    let a = sys.add_var("a", Domain::Bool, true);
    let b = sys.add_var("b", Domain::Bool, true);
    sys.goal = Expr::var(a);
    sys.bound = Some(1);
    (sys, a, b)
}

#[test]
fn a_branching_hint_that_covers_the_solutions_is_followed() {
    let (mut sys, a, b) = free_pair();
    sys.branch_vars = vec![a, b];
    let r = solve(
        &sys,
        &BmcOptions {
            count: Some(0),
            ..BmcOptions::default()
        },
    )
    .unwrap();
    assert_eq!((r.found(), r.exhausted, r.hint_fallback), (2, true, false));
}

#[test]
fn a_branching_hint_that_leaves_a_variable_open_falls_back() {
    // Branching on `a` alone, BatSat never assigns `b`: the model cannot
    // be read, and the search starts over without the hint.
    let (mut sys, a, _) = free_pair();
    sys.branch_vars = vec![a];
    for enc in ENCODINGS {
        let o = BmcOptions {
            count: Some(0),
            ..opts(enc)
        };
        let r = solve(&sys, &o).unwrap();
        assert_eq!(
            (r.found(), r.exhausted, r.hint_fallback),
            (2, true, true),
            "{enc}"
        );
        for t in &r.traces {
            assert_eq!(sys.check(t), Ok(()), "{enc}");
        }
    }
}

#[test]
fn a_variable_defined_by_an_invariant_is_its_definition() {
    // `low <-> x < 2` at every step: `low` gets the (negative) literal of
    // `x >= 2` instead of a SAT variable of its own; counts, traces and
    // the DIMACS labels (`low@s=FALSE` on that literal) still hold.
    let (mut sys, x) = counter();
    let low = sys.add_var("low", Domain::Bool, false);
    sys.invar.push(Constraint {
        label: "low".into(),
        expr: Expr::iff(Expr::var(low), Expr::lt(Expr::var(x), Expr::int(2))),
    });
    assert!(analyse::aliases(&sys)[low.index()].is_some());
    let plain = counter().0;
    for enc in ENCODINGS {
        let r = solve(
            &sys,
            &BmcOptions {
                bound: Some(3),
                count: Some(0),
                ..opts(enc)
            },
        )
        .unwrap();
        let o = BmcOptions {
            bound: Some(3),
            count: Some(0),
            ..opts(enc)
        };
        assert_eq!(r.found(), solve(&plain, &o).unwrap().found(), "{enc}");
        assert!(r.found() > 0);
        for t in &r.traces {
            assert_eq!(sys.check(t), Ok(()), "{enc}");
        }
        let text = dimacs(&sys, 3, enc).unwrap();
        let model = solve_dimacs_text(&text).expect("satisfiable");
        let trace = decode_dimacs_model(&sys, &text, &model).unwrap();
        assert_eq!(sys.check(&trace), Ok(()), "{enc}");
        if enc == Encoding::Order {
            assert!(
                text.contains("= low@") && text.contains("=FALSE\n"),
                "{text}"
            );
        }
    }
}

/// Solves DIMACS text with a fresh batsat; returns the model as DIMACS
/// literals, or `None` when unsatisfiable.
pub(crate) fn solve_dimacs_text(text: &str) -> Option<Vec<i32>> {
    use rustsat::instances::SatInstance;
    use rustsat::solvers::{Solve, SolverResult};
    let inst: SatInstance = SatInstance::from_dimacs(&mut std::io::BufReader::new(text.as_bytes()))
        .expect("our own DIMACS parses");
    let (cnf, vm) = inst.into_cnf();
    let mut s = rustsat_batsat::BasicSolver::default();
    s.add_cnf(cnf).unwrap();
    match s.solve().unwrap() {
        SolverResult::Sat => {}
        _ => return None,
    }
    let n = rustsat::instances::ManageVars::n_used(&vm);
    Some(
        (0..n)
            .map(|i| {
                let v = rustsat::types::Var::new(i);
                let on = s.lit_val(v.pos_lit()).unwrap() == rustsat::types::TernaryVal::True;
                if on {
                    v.to_ipasir()
                } else {
                    -v.to_ipasir()
                }
            })
            .collect(),
    )
}

mod random {
    //! Random small systems: the engine's count of paths at bound k must
    //! equal the number of state sequences that `System::check` accepts.

    use super::*;
    use proptest::prelude::*;

    /// A tiny deterministic generator (xorshift64*).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn chance(&mut self, pct: usize) -> bool {
            self.below(100) < pct
        }
    }

    #[derive(Clone, Copy, PartialEq)]
    enum Ty {
        Bool,
        Int,
        Sym,
    }

    struct Gen {
        rng: Rng,
        b: VarId,
        x: VarId,
        e: VarId,
        f: VarId,
        /// Whether `next(...)` may appear.
        next: bool,
    }

    impl Gen {
        fn var_of(&mut self, ty: Ty) -> Expr {
            let v = match ty {
                Ty::Bool => self.b,
                Ty::Int => [self.x, self.f][self.rng.below(2)],
                Ty::Sym => self.e,
            };
            if self.next && self.rng.chance(40) {
                Expr::next(v)
            } else {
                Expr::var(v)
            }
        }

        fn leaf(&mut self, ty: Ty) -> Expr {
            if self.rng.chance(40) {
                return match ty {
                    Ty::Bool => Expr::Const(Value::Bool(self.rng.chance(50))),
                    Ty::Int => Expr::int(self.rng.below(5) as i64 - 1),
                    Ty::Sym => Expr::sym(["p", "q"][self.rng.below(2)]),
                };
            }
            self.var_of(ty)
        }

        fn expr(&mut self, ty: Ty, depth: usize) -> Expr {
            if depth == 0 || self.rng.chance(25) {
                return self.leaf(ty);
            }
            let d = depth - 1;
            let pick = self.rng.below(4);
            if pick == 0 {
                let c = self.expr(Ty::Bool, d);
                return Expr::ite(c, self.expr(ty, d), self.expr(ty, d));
            }
            if pick == 1 {
                let n = 1 + self.rng.below(3);
                let mut arms: Vec<(Expr, Expr)> = (0..n)
                    .map(|_| (self.expr(Ty::Bool, d), self.expr(ty, d)))
                    .collect();
                arms.push((Expr::t(), self.expr(ty, d)));
                return Expr::Case(arms);
            }
            match ty {
                Ty::Sym => self.leaf(ty),
                Ty::Int => match self.rng.below(3) {
                    0 => Expr::Add(vec![self.expr(Ty::Int, d), self.expr(Ty::Int, d)]),
                    1 => Expr::Sub(
                        Box::new(self.expr(Ty::Int, d)),
                        Box::new(self.expr(Ty::Int, d)),
                    ),
                    _ => Expr::Count((0..3).map(|_| self.expr(Ty::Bool, d)).collect()),
                },
                Ty::Bool if self.rng.chance(15) => {
                    // A cardinality constraint, short or long.
                    let n = 1 + self.rng.below(8);
                    let count = Expr::Count((0..n).map(|_| self.expr(Ty::Bool, d)).collect());
                    let c = Expr::int(self.rng.below(n + 2) as i64 - 1);
                    match self.rng.below(4) {
                        0 => Expr::eq(count, c),
                        1 => Expr::le(count, c),
                        2 => Expr::lt(c, count),
                        _ => Expr::eq(c, count),
                    }
                }
                Ty::Bool => match self.rng.below(9) {
                    0 => Expr::negate(self.expr(Ty::Bool, d)),
                    1 => Expr::And(vec![self.expr(Ty::Bool, d), self.expr(Ty::Bool, d)]),
                    2 => Expr::Or(vec![self.expr(Ty::Bool, d), self.expr(Ty::Bool, d)]),
                    3 => Expr::implies(self.expr(Ty::Bool, d), self.expr(Ty::Bool, d)),
                    4 => Expr::iff(self.expr(Ty::Bool, d), self.expr(Ty::Bool, d)),
                    5 => {
                        let t = [Ty::Int, Ty::Sym][self.rng.below(2)];
                        Expr::eq(self.expr(t, d), self.expr(t, d))
                    }
                    6 => Expr::lt(self.expr(Ty::Int, d), self.expr(Ty::Int, d)),
                    7 => Expr::le(self.expr(Ty::Int, d), self.expr(Ty::Int, d)),
                    _ => {
                        let x = self.expr(Ty::Int, d);
                        let set = (0..2).map(|_| self.expr(Ty::Int, d)).collect();
                        Expr::is_in(x, set)
                    }
                },
            }
        }

        /// A transition table over `x`: `case x = c : {…}; …; TRUE : x esac`
        /// (distinct constants, so the guards are exclusive).
        fn table(&mut self) -> Expr {
            let subject = self.var_of(Ty::Int);
            let mut arms = Vec::new();
            for c in 0..3 {
                if self.rng.chance(60) {
                    let set = (0..1 + self.rng.below(2))
                        .map(|_| Expr::int(self.rng.below(4) as i64))
                        .collect();
                    arms.push((Expr::eq(subject.clone(), Expr::int(c)), Expr::Set(set)));
                }
            }
            let default = if self.rng.chance(50) {
                subject
            } else {
                self.expr(Ty::Int, 1)
            };
            arms.push((Expr::t(), default));
            Expr::Case(arms)
        }

        /// An assignment right-hand side: maybe a set, maybe a case of sets.
        fn rhs(&mut self, ty: Ty) -> Expr {
            if ty == Ty::Int && self.rng.chance(30) {
                return self.table();
            }
            match self.rng.below(3) {
                0 => self.expr(ty, 2),
                1 => Expr::Set((0..2).map(|_| self.expr(ty, 1)).collect()),
                _ => Expr::Case(vec![
                    (
                        self.expr(Ty::Bool, 1),
                        Expr::Set((0..2).map(|_| self.expr(ty, 1)).collect()),
                    ),
                    (Expr::t(), self.expr(ty, 1)),
                ]),
            }
        }
    }

    fn random_system(seed: u64) -> System {
        let mut sys = System::default();
        let b = sys.add_var("b", Domain::Bool, false);
        let x = sys.add_var("x", Domain::Range { lo: 0, hi: 2 }, false);
        let e = sys.add_var("e", Domain::Enum(vec!["p".into(), "q".into()]), false);
        let f = sys.add_var("f", Domain::Range { lo: 0, hi: 1 }, true);
        let mut g = Gen {
            rng: Rng(seed | 1),
            b,
            x,
            e,
            f,
            next: false,
        };
        let tys = [(b, Ty::Bool), (x, Ty::Int), (e, Ty::Sym), (f, Ty::Int)];
        for &(v, ty) in &tys {
            if g.rng.chance(50) {
                let value = g.rhs(ty);
                sys.init_assign.push(Assign { var: v, value });
            }
        }
        if g.rng.chance(50) {
            let d = sys.add_define("d", g.expr(Ty::Bool, 2));
            sys.invar.push(Constraint {
                label: "invar".into(),
                expr: Expr::Or(vec![d, g.expr(Ty::Bool, 2)]),
            });
        }
        if g.rng.chance(30) {
            let expr = g.expr(Ty::Bool, 2);
            sys.init.push(Constraint {
                label: "init".into(),
                expr,
            });
        }
        g.next = true;
        for &(v, ty) in &tys[..3] {
            if g.rng.chance(60) {
                let value = g.rhs(ty);
                sys.next_assign.push(Assign { var: v, value });
            }
        }
        if g.rng.chance(40) {
            let expr = g.expr(Ty::Bool, 3);
            sys.trans.push(Constraint {
                label: "trans".into(),
                expr,
            });
        }
        g.next = false;
        sys.goal = g.expr(Ty::Bool, 3);
        // Drawn last so that earlier seeds keep their systems: `b` defined
        // by an invariant (the unroller merges it with its definition).
        if g.rng.chance(40) {
            let def = g.expr(Ty::Bool, 2);
            let def = if g.rng.chance(50) {
                Expr::negate(def)
            } else {
                def
            };
            let (l, r) = if g.rng.chance(50) {
                (Expr::var(b), def)
            } else {
                (def, Expr::var(b))
            };
            sys.invar.push(Constraint {
                label: "defines b".into(),
                expr: Expr::iff(l, r),
            });
        }
        sys
    }

    /// [`random_system`] of `seed` with `b`'s next assignment an
    /// accumulator `b | next(y) = c` (either order; `c` in `y`'s domain
    /// or not), which the encoder folds and the checker checks by a
    /// shorter way than any other assignment.
    fn with_accumulator(seed: u64) -> System {
        let mut sys = random_system(seed);
        let mut rng = Rng(seed.rotate_left(29) | 1);
        let (b, x, e) = (VarId(0), VarId(1), VarId(2));
        let (y, c) = match rng.below(3) {
            0 => (x, Expr::int(rng.below(5) as i64 - 1)),
            1 => (e, Expr::sym(["p", "q", "r"][rng.below(3)])),
            _ => (b, Expr::Const(Value::Bool(rng.chance(50)))),
        };
        let (flag, hit) = (Expr::var(b), Expr::eq(Expr::next(y), c));
        let xs = if rng.chance(50) {
            vec![flag, hit]
        } else {
            vec![hit, flag]
        };
        sys.next_assign.retain(|a| a.var != b);
        sys.next_assign.push(Assign {
            var: b,
            value: Expr::Or(xs),
        });
        sys
    }

    /// Number of paths of `k` transitions that `System::check` accepts.
    fn brute_force_count(sys: &System, k: usize) -> usize {
        let states = crate::ir::all_states(sys);
        let mut count = 0;
        let mut idx = vec![0usize; k + 1];
        loop {
            let trace = Trace {
                states: idx.iter().map(|&i| states[i].clone()).collect(),
                loop_start: None,
            };
            count += sys.check(&trace).is_ok() as usize;
            let mut pos = 0;
            loop {
                if pos > k {
                    return count;
                }
                idx[pos] += 1;
                if idx[pos] < states.len() {
                    break;
                }
                idx[pos] = 0;
                pos += 1;
            }
        }
    }

    /// Seeds the proptest once found; kept so they run on every build.
    #[test]
    fn counts_match_brute_force_on_past_failures() {
        for (seed, k) in [(10441815522374635830, 1)] {
            let sys = random_system(seed);
            let expected = brute_force_count(&sys, k);
            for enc in ENCODINGS {
                let o = BmcOptions {
                    bound: Some(k),
                    count: Some(0),
                    ..opts(enc)
                };
                assert_eq!(
                    solve(&sys, &o).unwrap().found(),
                    expected,
                    "seed {seed}, {enc}"
                );
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]
        #[test]
        fn counts_match_brute_force(seed in any::<u64>(), k in 0usize..3) {
            let sys = random_system(seed);
            let expected = brute_force_count(&sys, k);
            for enc in ENCODINGS {
                let o = BmcOptions { bound: Some(k), count: Some(0), ..opts(enc) };
                let r = solve(&sys, &o).map_err(|e| TestCaseError::fail(format!("{e}\n{sys:#?}")))?;
                prop_assert_eq!(r.found(), expected, "{} at k={}: {:#?}", enc, k, sys);
                prop_assert!(r.exhausted);
                let status = if expected > 0 { Status::Solved } else { Status::Unsat };
                prop_assert_eq!(r.status, status);
            }
            for solver in solvers() {
                let o = BmcOptions { bound: Some(k), count: Some(0), solver, ..Default::default() };
                prop_assert_eq!(solve(&sys, &o).unwrap().found(), expected, "{}", solver);
            }
            // A branching hint on a random nonempty subset of the
            // variables, right or wrong, changes no answer.
            let mut hinted = sys.clone();
            let pick = (seed >> 7) as usize % ((1 << sys.vars.len()) - 1) + 1;
            hinted.branch_vars = (0..sys.vars.len() as u32)
                .filter(|i| pick >> i & 1 == 1)
                .map(VarId)
                .collect();
            let o = BmcOptions { bound: Some(k), count: Some(0), ..Default::default() };
            let r = solve(&hinted, &o).map_err(|e| TestCaseError::fail(format!("{e}\n{hinted:#?}")))?;
            prop_assert_eq!(r.found(), expected, "hint {:?}", hinted.branch_vars);
            prop_assert!(r.exhausted);
            // Seeded solvers racing, the hint too, change no answer.
            let o = BmcOptions { seed: (seed % 1000) as u32, ..o };
            for solver in solvers() {
                let r = raced(2, BmcOptions { solver, ..o.clone() })(&hinted);
                prop_assert_eq!(r.found(), expected, "{} raced, seed {}", solver, o.seed);
                prop_assert!(r.exhausted);
            }
            // An accumulator for `b`, counted with every encoding.
            let acc = with_accumulator(seed);
            let acc_expected = brute_force_count(&acc, k);
            for enc in ENCODINGS {
                let o = BmcOptions { bound: Some(k), count: Some(0), ..opts(enc) };
                let r = solve(&acc, &o).map_err(|e| TestCaseError::fail(format!("{e}\n{acc:#?}")))?;
                prop_assert_eq!(r.found(), acc_expected, "accumulator, {} at k={}: {:#?}", enc, k, acc);
            }
            // DIMACS of the same unrolling: satisfiable iff solutions exist,
            // and its model decodes to a verified trace.
            let text = dimacs(&sys, k, Encoding::OneHot).unwrap();
            match solve_dimacs_text(&text) {
                Some(model) => {
                    prop_assert!(expected > 0);
                    let t = decode_dimacs_model(&sys, &text, &model).unwrap();
                    prop_assert_eq!(sys.check(&t), Ok(()));
                }
                None => prop_assert_eq!(expected, 0),
            }
        }
    }
}

/// Frozen `x`, `y` in `0..=20` with the INVAR `x < y` (or `x <= y`);
/// when `holes`, `x` odd and `y` even, as the ranks of neighbours on a
/// grid (bipartite) have opposite parities.
fn ordered_pair(strict: bool, holes: bool) -> System {
    let mut sys = System::default();
    let range = Domain::Range { lo: 0, hi: 20 };
    let x = sys.add_var("x", range.clone(), true);
    let y = sys.add_var("y", range, true);
    if holes {
        for (v, parity) in [(x, 0), (y, 1)] {
            let banned: Vec<Expr> = (0..=20)
                .filter(|i| i % 2 == parity)
                .map(Expr::int)
                .collect();
            sys.invar.push(Constraint {
                label: "parity".into(),
                expr: Expr::negate(Expr::is_in(Expr::var(v), banned)),
            });
        }
    }
    let (a, b) = (Expr::var(x), Expr::var(y));
    sys.invar.push(Constraint {
        label: "ordered".into(),
        expr: if strict {
            Expr::lt(a, b)
        } else {
            Expr::le(a, b)
        },
    });
    sys.goal = Expr::t();
    sys.bound = Some(0);
    sys
}

fn clauses(text: &str) -> usize {
    let p_line = text.lines().find(|l| l.starts_with("p cnf ")).unwrap();
    p_line.split_whitespace().nth(3).unwrap().parse().unwrap()
}

#[test]
fn comparisons_of_two_order_encoded_terms_count_right_and_skip_holes() {
    for strict in [true, false] {
        for holes in [false, true] {
            let sys = ordered_pair(strict, holes);
            // x = 1, 3, .., 19 below y = 2, 4, .., 20: 10 + 9 + .. + 1.
            let pairs = match (holes, strict) {
                (true, _) => 55,
                (false, true) => 21 * 20 / 2,
                (false, false) => 21 * 22 / 2,
            };
            for enc in ENCODINGS {
                let r = count_all(&sys, enc);
                assert_eq!(r.found(), pairs, "strict {strict} holes {holes} {enc}");
            }
        }
        // Each pair of `≥` literals is said once: with the parities, `x ≥ t`
        // and `y ≥ t + 1` are the same literals for two `t` at a time.
        let full = clauses(&dimacs(&ordered_pair(strict, false), 0, Encoding::Order).unwrap());
        let even = clauses(&dimacs(&ordered_pair(strict, true), 0, Encoding::Order).unwrap());
        assert!(2 * even <= full + 2, "strict {strict}: {even} vs {full}");
    }
}

/// `n` nodes, each pointing at another or at none (frozen `p_i`, values
/// `to{j}` and `none`), at most one pointer into each node, exactly one
/// node without a successor, and ranks that grow along the pointers
/// (the [`System::acyclic`] hint): the solutions are the `n!` Hamiltonian
/// paths of the complete graph.
fn hamiltonian_paths(n: usize) -> System {
    let mut sys = System {
        bound: Some(0),
        ..System::default()
    };
    let names = |i: usize| -> Vec<String> {
        (0..n)
            .filter(|&j| j != i)
            .map(|j| format!("to{j}"))
            .chain(["none".to_string()])
            .collect()
    };
    let p: Vec<VarId> = (0..n)
        .map(|i| sys.add_var(format!("p{i}"), Domain::Enum(names(i)), true))
        .collect();
    let rank: Vec<VarId> = (0..n)
        .map(|i| {
            sys.add_var(
                format!("r{i}"),
                Domain::Range {
                    lo: 0,
                    hi: n as i64 - 1,
                },
                true,
            )
        })
        .collect();
    let points = |i: usize, j: usize| Expr::eq(Expr::var(p[i]), Expr::sym(&format!("to{j}")));
    for j in 0..n {
        let into: Vec<Expr> = (0..n).filter(|&i| i != j).map(|i| points(i, j)).collect();
        sys.invar.push(Constraint {
            label: format!("at most one pointer into {j}"),
            expr: Expr::le(Expr::Count(into), Expr::int(1)),
        });
    }
    let ends: Vec<Expr> = p
        .iter()
        .map(|&x| Expr::eq(Expr::var(x), Expr::sym("none")))
        .collect();
    sys.invar.push(Constraint {
        label: "one end".into(),
        expr: Expr::eq(Expr::Count(ends), Expr::int(1)),
    });
    let mut hint = crate::ir::Acyclic {
        succ: p.clone(),
        rank: rank.clone(),
        ..Default::default()
    };
    for i in 0..n {
        let mut targets = Vec::new();
        for name in names(i) {
            let j = name.strip_prefix("to").map(|j| j.parse::<usize>().unwrap());
            targets.push(j);
            if let Some(j) = j {
                hint.invars.push(sys.invar.len());
                sys.invar.push(Constraint {
                    label: format!("{i} -> {j} raises the rank"),
                    expr: Expr::implies(
                        points(i, j),
                        Expr::lt(Expr::var(rank[i]), Expr::var(rank[j])),
                    ),
                });
            }
        }
        hint.target.push(targets);
    }
    sys.acyclic.push(hint);
    sys.solution_vars = p;
    sys
}

#[test]
fn lazy_acyclicity_counts_what_the_ranks_count() {
    let sys = hamiltonian_paths(4);
    for enc in ENCODINGS {
        for lazy in [true, false] {
            let o = BmcOptions {
                count: Some(0),
                lazy,
                ..opts(enc)
            };
            let r = solve(&sys, &o).unwrap();
            assert_eq!((r.found(), r.exhausted), (24, true), "{enc}, lazy {lazy}");
            // Without the ranks the pointers close cycles: the lazy
            // search meets some and cuts them off.
            assert_eq!(r.cuts > 0, lazy, "{enc}, lazy {lazy}");
            for t in &r.traces {
                assert_eq!(sys.check(t), Ok(()));
            }
        }
    }
}

#[test]
fn a_hints_cuts_forbid_their_cycles_up_front_and_only_cycles() {
    let mut sys = hamiltonian_paths(4);
    // The value index of `to{j}` in `p_i`'s domain.
    let v = |i: usize, j: usize| if j < i { j } else { j - 1 };
    // Every cycle of two or three nodes, the pointers of the two-cycles
    // listed against their order (any order is a cycle).
    let mut cuts = Vec::new();
    for a in 0..4 {
        for b in a + 1..4 {
            cuts.push(vec![(b, v(b, a)), (a, v(a, b))]);
            for c in (a + 1..4).filter(|&c| c != b) {
                cuts.push(vec![(a, v(a, b)), (b, v(b, c)), (c, v(c, a))]);
            }
        }
    }
    sys.acyclic[0].cuts = cuts;
    let count = |sys: &System, lazy: bool| {
        let o = BmcOptions {
            count: Some(0),
            lazy,
            ..BmcOptions::default()
        };
        let r = solve(sys, &o).unwrap();
        (r.found(), r.exhausted, r.cuts)
    };
    // With one node without a successor, a cycle has at most three
    // nodes: the lazy search never meets one.
    assert_eq!(count(&sys, true), (24, true, 0));
    assert_eq!(count(&sys, false), (24, true, 0));
    // What is no cycle would forbid paths: it is left out.
    for bad in [
        vec![(0, v(0, 1)), (1, v(1, 2))],
        vec![(0, v(0, 1)), (1, v(1, 0)), (0, v(0, 1))],
        vec![(0, v(0, 1)), (1, v(1, 0)), (2, v(2, 3)), (3, v(3, 2))],
        vec![(0, v(0, 1)), (1, 3)],
        vec![(0, v(0, 1)), (9, 0)],
    ] {
        assert!(
            !lazy::is_cycle(&bad, &sys.acyclic[0].target, &mut Default::default()),
            "{bad:?}"
        );
        sys.acyclic[0].cuts = vec![bad];
        assert_eq!(count(&sys, true).0, 24);
    }
}

#[test]
fn the_waypoint_successor_models_cuts_are_all_cycles() {
    for text in [
        "variant: waypoint\n1 . . .\n. . . .\n. . X .\n. . . 2\n",
        "variant: waypoint\n. 2 . .\n1 . . 4\n. . 3 .\n",
    ] {
        let p = crate::grid::parse::parse(text).unwrap();
        let sys = crate::grid::successor::compile(&p).unwrap();
        let cuts = &sys.acyclic[0].cuts;
        assert!(!cuts.is_empty(), "{text}");
        assert_eq!(lazy::hint_cuts(&sys).len(), cuts.len(), "{text}");
    }
}

#[test]
fn a_rank_read_outside_the_hint_turns_the_lazy_search_off() {
    let mut sys = hamiltonian_paths(3);
    let r0 = sys.var_by_name("r0").unwrap();
    sys.invar.push(Constraint {
        label: "node 0 ranks lowest".into(),
        expr: Expr::eq(Expr::var(r0), Expr::int(0)),
    });
    let o = BmcOptions {
        count: Some(0),
        ..BmcOptions::default()
    };
    let r = solve(&sys, &o).unwrap();
    // The paths that start on node 0: 2 of the 6.
    assert_eq!((r.found(), r.exhausted, r.cuts), (2, true, 0));
}

#[test]
fn a_hint_whose_invariants_need_more_than_growing_ranks_is_an_engine_error() {
    let mut sys = hamiltonian_paths(3);
    let (r0, r1) = (
        sys.var_by_name("r0").unwrap(),
        sys.var_by_name("r1").unwrap(),
    );
    // Claimed by the hint, but not true of every ranking that grows.
    sys.acyclic[0].invars.push(sys.invar.len());
    sys.invar.push(Constraint {
        label: "ranks 0 and 1 two apart".into(),
        expr: Expr::eq(Expr::Add(vec![Expr::var(r0), Expr::int(2)]), Expr::var(r1)),
    });
    let r = solve(&sys, &BmcOptions::default());
    assert!(matches!(r, Err(BmcError::Verify { .. })), "{r:?}");
    let eager = BmcOptions {
        lazy: false,
        ..BmcOptions::default()
    };
    assert_eq!(solve(&sys, &eager).unwrap().status, Status::Solved);
}

#[test]
fn counting_with_a_second_core_checks_every_path_aside_and_finds_the_same() {
    let count = |jobs| BmcOptions {
        count: Some(0),
        jobs,
        ..BmcOptions::default()
    };
    // Paths of two states (a path of one is checked where it is found).
    let two_states = || System {
        bound: Some(1),
        ..hamiltonian_paths(3)
    };
    let text = "variant: hidato\n1 . .\n. . .\n. . 9\n";
    let p = crate::grid::parse::parse(text).unwrap();
    let grid = crate::grid::compile::compile(&p);
    for sys in [two_states(), grid] {
        let (one, two) = (solve(&sys, &count(1)), solve(&sys, &count(2)));
        let (one, two) = (one.unwrap(), two.unwrap());
        assert!(one.found() > 2 && one.exhausted, "{one:?}");
        assert_eq!(one.traces, two.traces);
        assert_eq!((one.found(), one.exhausted), (two.found(), two.exhausted));
    }
    // Claimed by the lazy search's hint (so left out of its CNF, which
    // finds the same paths in the same order) and true of the first path
    // only: the first passes its check, a later one fails on either core.
    let mut sys = two_states();
    let first = solve(&sys, &count(1)).unwrap().traces.remove(0);
    let ranks: Vec<Expr> = (0..3)
        .map(|i| {
            let r = sys.var_by_name(&format!("r{i}")).unwrap();
            Expr::eq(
                Expr::var(r),
                Expr::Const(first.states[0][r.index()].clone()),
            )
        })
        .collect();
    sys.acyclic[0].invars.push(sys.invar.len());
    sys.invar.push(Constraint {
        label: "the first path's ranks".into(),
        expr: Expr::And(ranks),
    });
    for jobs in [1, 2] {
        let r = solve(&sys, &count(jobs));
        assert!(matches!(r, Err(BmcError::Verify { .. })), "{jobs}: {r:?}");
    }
}
