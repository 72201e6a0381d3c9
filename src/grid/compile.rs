//! [`Puzzle`] → [`System`]: the transition system whose solutions are
//! exactly the puzzle's solutions.
//!
//! Input: a validated [`Puzzle`] and [`CompileOptions`]. Output: a
//! [`System`] (and, from [`compile_model`], the ids of its variables).
//!
//! The model is the straightforward hand encoding, tuned for NuSMV's BDD
//! engine (measured with `scripts/bench-nusmv.sh`):
//!
//! * `pos : 0..n-1` — the current cell, a [`CellId`] (open cells numbered
//!   along the board's longer side); declared first, because NuSMV orders BDD variables by
//!   declaration and every constraint reads `pos`;
//! * `step : 1..n` — the 1-based position on the path;
//! * `visited : array 0..n-1 of boolean` — the cells on the path so far;
//! * `solved` (DEFINE, the goal): `step = n`, and `pos` on the end when
//!   the puzzle fixes it (the highest waypoint, or the cell numbered `n`);
//! * `next(pos)` is a `case` table of neighbour sets (nondeterministic
//!   choice); once solved the path stutters (`pos` keeps its value), so the
//!   path can be extended forever: NuSMV's BDD LTL check of `!(F solved)`
//!   only reports infinite counterexamples. Under the IR's finite-path
//!   semantics the stuttering is never needed. The fixed end is a dead
//!   end: nothing leaves it;
//! * no cell twice: one TRANS, unless solved move onto an unvisited cell
//!   (one constraint rather than one per cell: NuSMV clusters the
//!   transition relation per constraint, and one conjunction makes its
//!   images much cheaper), or for Hidato one INVAR, `step = count(visited)`
//!   (see [`NoRevisit`]);
//! * waypoint: one INVAR, `visited[c(k+1)] -> visited[c(k)]` for the cells
//!   `c(k)` of consecutive waypoints: waypoint `k+1` can only be entered
//!   after waypoint `k`. (A "last waypoint reached" variable with a TRANS
//!   says the same but made NuSMV 3-6x slower, as did dropping `step`;
//!   the step counter and the `pos` conjunct in `solved` keep the backward
//!   fixpoint of the LTL check small.)
//! * numbrix/hidato: one INVAR pins the givens, `step = k <-> pos = c`
//!   (or, for the built-in engine, the same as a table on `step`: see
//!   [`Givens`]).
//!
//! Invariants: variable `pos` is [`POS`] (`VarId(0)`), its values are
//! [`CellId`]s; every solution has `n` states (`n - 1` moves), so
//! [`System::bound`] is `Some(n - 1)`; [`System::solution_vars`] is
//! `[pos]`; extra constraints from [`CompileOptions::extras`] are added
//! after the core model and only ever remove paths that are not solutions.

use crate::ir::label::{label, Piece};
use crate::ir::{Assign, Constraint, Domain, Expr, System, VarId};

use super::{Cell, CellId, Coord, Puzzle, Variant};

/// The `pos` variable of every compiled grid system (declared first).
pub const POS: VarId = VarId(0);

/// The variables of a compiled grid model, for decoders and for extra
/// constraints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GridVars {
    /// The current cell (values are [`CellId`]s).
    pub pos: VarId,
    /// The 1-based step, `1..=n`.
    pub step: VarId,
    /// `visited[i]`: open cell `i` is on the path so far.
    pub visited: Vec<VarId>,
    /// The goal (a reference to the `solved` DEFINE).
    pub solved: Expr,
}

/// Adds constraints to a compiled model; see [`CompileOptions::extras`].
pub type Extra = fn(&Puzzle, &GridVars, &mut System);

/// How to compile. `Default` gives the core model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    /// Let a solved path stutter forever (needed by NuSMV's BDD LTL check;
    /// harmless for bounded engines). Default `true`.
    pub stutter: bool,
    /// How to forbid revisiting a cell; `None` picks per variant (see
    /// [`NoRevisit`]).
    pub no_revisit: Option<NoRevisit>,
    /// Extra (redundant) constraints, applied in order after the core
    /// model. Each must keep every solution a solution.
    pub extras: Vec<Extra>,
    /// How numbrix/hidato numbers pin their steps. Default
    /// [`Givens::Pairs`].
    pub givens: Givens,
}

/// Two equivalent ways to pin the given numbers of numbrix and hidato
/// (waypoint puzzles ignore it). The SMV models keep the pairs (NuSMV's
/// BDD times on numbrix-9x9-s1/s2 and hidato-9x9-unique-s3, three runs
/// each, were the same either way within its noise); the built-in
/// engine's models use the table, whose domain
/// analysis reads one atom per step instead of one per number: `step`
/// is known at every step of an unrolling, so the table is a look-up and
/// leaves a constraint on `pos` alone. The CNFs are the same (every
/// bench and grid `cnf`, both models, and those of 156 random and sparse
/// boards, byte for byte); instructions of `solve --count 2 --jobs 1`
/// (callgrind): hidato-9x9-unique-s3 (65 numbers) -13.2%, numbrix-9x9-s1
/// -4.1%, numbrix-15x15-s1 -2.7%, hidato-9x9-s1 -1.6%.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Givens {
    /// `(step = k <-> pos = c) & …`, one pair per number.
    #[default]
    Pairs,
    /// `case step = k : pos = c; … TRUE : !(pos in {numbered cells}) esac`:
    /// the same when no two numbers are equal (a parsed puzzle's never
    /// are; with a repeated number the pairs are written instead).
    Table,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            stutter: true,
            no_revisit: None,
            extras: Vec::new(),
            givens: Givens::Pairs,
        }
    }
}

/// Two equivalent ways to say "never the same cell twice". Which one
/// NuSMV's BDD engine handles better depends on the moves: the default is
/// [`NoRevisit::Count`] for Hidato (king moves; 5x faster on 9x9 boards)
/// and [`NoRevisit::Trans`] otherwise (up to 3x faster on orthogonal
/// boards).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NoRevisit {
    /// `TRANS solved | (!(next(pos) = 0 & visited[0]) & …)`.
    Trans,
    /// `INVAR step = count(visited[0], …)`.
    Count,
}

/// Compiles with the default options.
pub fn compile(puzzle: &Puzzle) -> System {
    compile_model(puzzle, &CompileOptions::default()).0
}

/// Compiles with `opts`; also returns the model's variables.
pub fn compile_model(puzzle: &Puzzle, opts: &CompileOptions) -> (System, GridVars) {
    let n = puzzle.open_count();
    let mut sys = System {
        comment: describe_steps(puzzle, opts.stutter),
        bound: Some(n - 1),
        ..System::default()
    };
    let pos = sys.add_var("pos", range(0, n - 1), false);
    let step = sys.add_var("step", range(1, n), false);
    let visited = sys.add_family("visited", n, Domain::Bool, false);
    let mut done = vec![Expr::eq(Expr::var(step), Expr::int(n as i64))];
    done.extend(puzzle.end().map(|end| pos_is(pos, end)));
    let solved = sys.add_define("solved", Expr::And(done));
    sys.goal = solved.clone();
    sys.solution_vars = vec![pos];
    let vars = GridVars {
        pos,
        step,
        visited,
        solved,
    };
    add_init(puzzle, &vars, &mut sys);
    add_next(puzzle, &vars, opts.stutter, &mut sys);
    add_no_revisit(puzzle, &vars, opts, &mut sys);
    add_numbers(puzzle, &vars, opts.givens, &mut sys);
    for extra in &opts.extras {
        extra(puzzle, &vars, &mut sys);
    }
    (sys, vars)
}

fn range(lo: usize, hi: usize) -> Domain {
    Domain::Range {
        lo: lo as i64,
        hi: hi as i64,
    }
}

fn cell(id: CellId) -> Expr {
    Expr::int(id.0 as i64)
}

fn pos_is(pos: VarId, id: CellId) -> Expr {
    Expr::eq(Expr::var(pos), cell(id))
}

fn next_pos_is(pos: VarId, id: CellId) -> Expr {
    Expr::eq(Expr::next(pos), cell(id))
}

fn ids(puzzle: &Puzzle) -> impl Iterator<Item = CellId> {
    (0..puzzle.open_count() as u32).map(CellId)
}

/// The header comment: the puzzle, its board with the number of each
/// open cell (the values of `pos`, or the cell indices of other models)
/// and its rules.
pub(super) fn describe(puzzle: &Puzzle) -> Vec<String> {
    let n = puzzle.open_count();
    let mut out = vec![
        format!(
            "{} puzzle \"{}\": {} rows x {} columns, {} open cells.",
            puzzle.variant,
            puzzle.title(),
            puzzle.rows(),
            puzzle.cols(),
            n
        ),
        String::new(),
    ];
    let highest = puzzle.givens().last().map_or(1, |g| g.0 as usize);
    let width = n.max(highest).to_string().len();
    out.push("The puzzle, and the number of each open cell (the values of `pos`):".into());
    // Each cell right-aligned to `width` as by `format!("{:>width$}")`,
    // without it: four of those per cell were most of this function.
    let cell = |out: &mut String, piece: &dyn Piece| {
        out.push(' ');
        out.extend(std::iter::repeat_n(
            ' ',
            width.saturating_sub(piece.width()),
        ));
        piece.push_to(out);
    };
    for r in 0..puzzle.rows() {
        let mut given = String::with_capacity(puzzle.cols() * (width + 1));
        let mut ids = given.clone();
        for c in 0..puzzle.cols() {
            let at = Coord::new(r, c);
            let here = (puzzle.cell(at), puzzle.cell_id(at));
            let (g, i): (&dyn Piece, &dyn Piece) = match &here {
                (Some(Cell::Number(k)), Some(id)) => (k, &id.0),
                (_, Some(id)) => (&".", &id.0),
                _ => (&"X", &"X"),
            };
            cell(&mut given, g);
            cell(&mut ids, i);
        }
        out.push(label!("  ", given.as_str(), "    ", ids.as_str()));
    }
    out.push(String::new());
    let rules: [&str; 2] = match puzzle.variant {
        Variant::Waypoint => [
            "Moves are orthogonal; numbered cells are visited in increasing order,",
            "the path starts on 1 and ends on the highest number.",
        ],
        Variant::Numbrix => [
            "Moves are orthogonal; a number k on a cell means the cell is the k-th",
            "of the path.",
        ],
        Variant::Hidato => [
            "Moves are orthogonal or diagonal; a number k on a cell means the cell",
            "is the k-th of the path.",
        ],
    };
    out.extend(rules.map(String::from));
    out
}

/// [`describe`] and what the step-by-step model's variables are; the
/// path stays put once solved only when the model lets it (`stutter`).
fn describe_steps(puzzle: &Puzzle, stutter: bool) -> Vec<String> {
    let mut out = describe(puzzle);
    out.push("`step` is the position on the path, `visited[i]` says cell i is on".into());
    out.push(format!(
        "the path so far. A counterexample to !(F solved) is a solution: {} moves",
        puzzle.open_count() - 1
    ));
    out.push(match stutter {
        true => "visiting every open cell exactly once; then the path stays put.".into(),
        false => "visiting every open cell exactly once.".into(),
    });
    out
}

fn add_init(puzzle: &Puzzle, v: &GridVars, sys: &mut System) {
    // Without a fixed start, `pos` starts anywhere (no init assignment).
    if let Some(start) = puzzle.start() {
        sys.init_assign.push(Assign {
            var: v.pos,
            value: cell(start),
        });
    }
    sys.init_assign.push(Assign {
        var: v.step,
        value: Expr::int(1),
    });
    for (i, &var) in v.visited.iter().enumerate() {
        sys.init_assign.push(Assign {
            var,
            value: pos_is(v.pos, CellId(i as u32)),
        });
    }
}

/// `next(pos)`: stay when solved, stop at the fixed end, else any
/// neighbour; `next(step)`; `next(visited[i])`.
fn add_next(puzzle: &Puzzle, v: &GridVars, stutter: bool, sys: &mut System) {
    let mut arms = Vec::new();
    if stutter {
        arms.push((v.solved.clone(), Expr::var(v.pos)));
    }
    let end = puzzle.end();
    for id in ids(puzzle) {
        let nbrs = puzzle.neighbours(id);
        // A dead end (the fixed end, or a cell without neighbours) keeps
        // `pos`; the TRANS then forbids the move unless solved.
        let to = if Some(id) == end || nbrs.is_empty() {
            Expr::var(v.pos)
        } else {
            Expr::Set(nbrs.into_iter().map(cell).collect())
        };
        arms.push((pos_is(v.pos, id), to));
    }
    // Never taken (the arms above cover every cell), but NuSMV's BMC
    // cannot see that and warns about a non-exhaustive case otherwise.
    arms.push((Expr::t(), Expr::var(v.pos)));
    sys.next_assign.push(Assign {
        var: v.pos,
        value: Expr::Case(arms),
    });
    let n = Expr::int(puzzle.open_count() as i64);
    sys.next_assign.push(Assign {
        var: v.step,
        value: Expr::Case(vec![
            (
                Expr::lt(Expr::var(v.step), n),
                Expr::Add(vec![Expr::var(v.step), Expr::int(1)]),
            ),
            (Expr::t(), Expr::var(v.step)),
        ]),
    });
    for (i, &var) in v.visited.iter().enumerate() {
        sys.next_assign.push(Assign {
            var,
            value: Expr::Or(vec![Expr::var(var), next_pos_is(v.pos, CellId(i as u32))]),
        });
    }
}

/// The label (or its end) of the no-revisit TRANS.
pub(crate) const NO_REVISIT: &str = "move onto an unvisited cell";

/// Forbids moving onto a visited cell: the TRANS, or the INVAR
/// `step = count(visited)` (a move onto a visited cell would add a step
/// but no visited cell).
fn add_no_revisit(puzzle: &Puzzle, v: &GridVars, opts: &CompileOptions, sys: &mut System) {
    let style = opts.no_revisit.unwrap_or(match puzzle.variant {
        Variant::Hidato => NoRevisit::Count,
        Variant::Waypoint | Variant::Numbrix => NoRevisit::Trans,
    });
    if style == NoRevisit::Count {
        sys.invar.push(Constraint {
            label: "no cell twice: the step is the number of visited cells".into(),
            expr: Expr::eq(
                Expr::var(v.step),
                Expr::Count(v.visited.iter().map(|&x| Expr::var(x)).collect()),
            ),
        });
        return;
    }
    let fresh = Expr::And(
        ids(puzzle)
            .map(|id| {
                Expr::negate(Expr::And(vec![
                    next_pos_is(v.pos, id),
                    Expr::var(v.visited[id.index()]),
                ]))
            })
            .collect(),
    );
    let (label, expr) = if opts.stutter {
        (
            format!("unless solved: {NO_REVISIT}"),
            Expr::Or(vec![v.solved.clone(), fresh]),
        )
    } else {
        (NO_REVISIT.to_string(), fresh)
    };
    sys.trans.push(Constraint { label, expr });
}

/// `case step = k : pos = c; … TRUE : !(pos in {…}) esac` over the
/// numbers `givens` (no two equal).
fn givens_table(givens: &[(u32, CellId)], v: &GridVars) -> Expr {
    let step_is = |k: u32| Expr::eq(Expr::var(v.step), Expr::int(k as i64));
    let mut arms: Vec<(Expr, Expr)> = givens
        .iter()
        .map(|&(k, id)| (step_is(k), pos_is(v.pos, id)))
        .collect();
    let cells = givens
        .iter()
        .map(|&(_, id)| Expr::int(id.0 as i64))
        .collect();
    let elsewhere = Expr::negate(Expr::is_in(Expr::var(v.pos), cells));
    arms.push((Expr::t(), elsewhere));
    Expr::Case(arms)
}

/// The label of the numbrix/hidato INVAR of the given numbers.
const GIVENS: &str = "given numbers: number k is the k-th cell";

/// The INVAR of the given numbers: waypoint order, or `step = k <-> pos = c`
/// (as pairs or a table: see [`Givens`]).
fn add_numbers(puzzle: &Puzzle, v: &GridVars, form: Givens, sys: &mut System) {
    let givens = puzzle.givens();
    let distinct = givens.windows(2).all(|w| w[0].0 != w[1].0);
    let table = puzzle.variant != Variant::Waypoint && form == Givens::Table && distinct;
    if table && !givens.is_empty() {
        sys.invar.push(Constraint {
            label: GIVENS.into(),
            expr: givens_table(&givens, v),
        });
        return;
    }
    let (label, rules): (&str, Vec<Expr>) = match puzzle.variant {
        Variant::Waypoint => (
            "waypoints in order: waypoint k+1 is visited only after waypoint k",
            givens
                .windows(2)
                .map(|w| {
                    Expr::implies(
                        Expr::var(v.visited[w[1].1.index()]),
                        Expr::var(v.visited[w[0].1.index()]),
                    )
                })
                .collect(),
        ),
        Variant::Numbrix | Variant::Hidato => (
            GIVENS,
            givens
                .iter()
                .map(|&(k, id)| {
                    Expr::iff(
                        Expr::eq(Expr::var(v.step), Expr::int(k as i64)),
                        pos_is(v.pos, id),
                    )
                })
                .collect(),
        ),
    };
    if !rules.is_empty() {
        sys.invar.push(Constraint {
            label: label.into(),
            expr: Expr::And(rules),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::parse;
    use crate::ir::{Trace, Value};

    fn trace(states: &[(i64, i64, &[bool])]) -> Trace {
        Trace {
            states: states
                .iter()
                .map(|(p, c, vis)| {
                    let mut s = vec![Value::Int(*p), Value::Int(*c)];
                    s.extend(vis.iter().map(|&b| Value::Bool(b)));
                    s
                })
                .collect(),
            loop_start: None,
        }
    }

    /// Every order of the open cells of `p` as a trace of its model.
    fn every_order(p: &Puzzle) -> Vec<Trace> {
        fn orders(left: &mut Vec<i64>, done: &mut Vec<i64>, out: &mut Vec<Vec<i64>>) {
            if left.is_empty() {
                out.push(done.clone());
            }
            for i in 0..left.len() {
                let c = left.remove(i);
                done.push(c);
                orders(left, done, out);
                done.pop();
                left.insert(i, c);
            }
        }
        let n = p.open_count();
        let mut all = Vec::new();
        orders(&mut (0..n as i64).collect(), &mut Vec::new(), &mut all);
        all.iter()
            .map(|order| {
                let states = (0..n).map(|t| {
                    let vis: Vec<bool> = (0..n as i64).map(|c| order[..=t].contains(&c)).collect();
                    (order[t], t as i64 + 1, vis)
                });
                let states: Vec<_> = states.collect();
                let refs: Vec<(i64, i64, &[bool])> = states
                    .iter()
                    .map(|(p, s, v)| (*p, *s, v.as_slice()))
                    .collect();
                trace(&refs)
            })
            .collect()
    }

    #[test]
    fn the_givens_table_says_what_the_pairs_say() {
        let table = CompileOptions {
            givens: Givens::Table,
            ..CompileOptions::default()
        };
        for text in [
            "variant: numbrix\n1 . .\n. . 6\n",
            "variant: numbrix\n. 2 .\n. . .\n",
            "variant: hidato\n. . 3\n6 . .\n",
            "variant: hidato\n. . .\n. 1 .\n",
            "variant: hidato\n. 5 .\n2 . .\n",
            "variant: numbrix\n. . .\n. . .\n",
        ] {
            let p = parse::parse(text).unwrap();
            let pairs = compile(&p);
            let (table, _) = compile_model(&p, &table);
            // The INVAR itself, in every state (of `pos` and `step`).
            let n = p.open_count() as i64;
            let givens = |sys: &System| {
                let c = sys.invar.iter().find(|c| c.label == GIVENS);
                c.map(|c| c.expr.clone())
            };
            let (a, b) = (givens(&pairs), givens(&table));
            assert_eq!(a.is_some(), b.is_some(), "{text}");
            for (a, b) in a.iter().zip(&b) {
                assert!(matches!(b, Expr::Case(_)), "{text}: {b:?}");
                for (c, s) in (0..n).flat_map(|c| (1..=n).map(move |s| (c, s))) {
                    let mut state = vec![Value::Int(c), Value::Int(s)];
                    state.extend((0..n).map(|_| Value::Bool(false)));
                    let (x, y) = (pairs.eval(&state, None, a), table.eval(&state, None, b));
                    assert_eq!(x, y, "{text}: pos = {c}, step = {s}");
                }
            }
            // Whole paths: the same accepted, the same refused.
            let (mut accepted, mut refused) = (0, 0);
            for t in every_order(&p) {
                let ok = pairs.check(&t).is_ok();
                assert_eq!(table.check(&t).is_ok(), ok, "{text}: {:?}", t.states);
                match ok {
                    true => accepted += 1,
                    false => refused += 1,
                }
            }
            assert!(
                accepted > 0 && refused > 0,
                "{text}: {accepted} paths, {refused} not"
            );
        }
    }

    #[test]
    fn waypoint_model_accepts_the_solution_and_rejects_others() {
        // `1 . 2`: the only solution walks left to right.
        let p = parse::parse("variant: waypoint\n1 . 2\n").unwrap();
        let sys = compile(&p);
        assert_eq!(sys.bound, Some(2));
        assert_eq!(sys.vars[0].name, "pos");
        let good = trace(&[
            (0, 1, &[true, false, false]),
            (1, 2, &[true, true, false]),
            (2, 3, &[true, true, true]),
        ]);
        assert_eq!(sys.check(&good), Ok(()));
        // Stuttering once solved is allowed.
        let mut longer = good.clone();
        longer.states.push(longer.states[2].clone());
        assert_eq!(sys.check(&longer), Ok(()));
        // Not solved yet.
        let short = trace(&[(0, 1, &[true, false, false]), (1, 2, &[true, true, false])]);
        assert!(sys.check(&short).is_err());
    }

    #[test]
    fn waypoints_out_of_order_break_the_invar() {
        let p = parse::parse("variant: waypoint\n1 . 3 2\n").unwrap();
        let sys = compile(&p);
        let t = trace(&[
            (0, 1, &[true, false, false, false]),
            (1, 2, &[true, true, false, false]),
            (2, 3, &[true, true, true, false]),
        ]);
        let err = sys.check(&t).unwrap_err().to_string();
        assert!(err.contains("waypoints in order"), "{err}");
    }

    #[test]
    fn both_styles_forbid_revisits() {
        let p = parse::parse("variant: hidato\n1 . . .\n").unwrap();
        let back = trace(&[
            (0, 1, &[true, false, false, false]),
            (1, 2, &[true, true, false, false]),
            (2, 3, &[true, true, true, false]),
            (1, 4, &[true, true, true, false]),
        ]);
        let err = compile(&p).check(&back).unwrap_err().to_string();
        assert!(err.contains("no cell twice"), "{err}");
        let opts = CompileOptions {
            no_revisit: Some(NoRevisit::Trans),
            ..CompileOptions::default()
        };
        let err = compile_model(&p, &opts)
            .0
            .check(&back)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unvisited"), "{err}");
    }

    #[test]
    fn numbrix_model_pins_givens() {
        let p = parse::parse("variant: numbrix\n. 1 .\n").unwrap();
        let sys = compile(&p);
        // 1 is in the middle: no Hamiltonian path starts there on a 1x3.
        let t = trace(&[(1, 1, &[false, true, false]), (0, 2, &[true, true, false])]);
        assert!(sys.check(&t).is_err());
        let q = parse::parse("variant: numbrix\n. . 1\n").unwrap();
        let sys = compile(&q);
        let t = trace(&[
            (2, 1, &[false, false, true]),
            (1, 2, &[false, true, true]),
            (0, 3, &[true, true, true]),
        ]);
        assert_eq!(sys.check(&t), Ok(()));
    }

    #[test]
    fn one_open_cell_is_solved_at_once() {
        for v in ["waypoint", "numbrix", "hidato"] {
            let p = parse::parse(&format!("variant: {v}\nX 1\n")).unwrap();
            let sys = compile(&p);
            assert_eq!(sys.bound, Some(0));
            let t = trace(&[(0, 1, &[true])]);
            assert_eq!(sys.check(&t), Ok(()), "{v}");
        }
    }
}
