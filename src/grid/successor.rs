//! The successor model of a waypoint puzzle: the whole path in one state,
//! as the way it leaves each cell.
//!
//! Input: a waypoint [`Puzzle`]. Output: a [`System`] of bound 0 (one
//! state, every variable frozen) whose solutions are exactly the puzzle's
//! solutions:
//! * `succ_i` (variables `0..n`, in [`CellId`] order, so a decoder finds
//!   them without the system): the direction of the move out of open cell
//!   `i` (`n`, `ne`, … as in [`super::strengthen`]), or `end` on the last
//!   waypoint, the one cell without a successor;
//! * every cell but waypoint 1 has exactly one predecessor, waypoint 1
//!   none; no move goes back and forth;
//! * `leg[i]`: the legs of [`super::strengthen::legs`] (a move stays on
//!   its leg or enters the next waypoint), which put the waypoints in
//!   order along the path;
//! * `rank[i] : 1..n`: a move raises the rank, so the moves close no
//!   cycle; the system's [`System::acyclic`] hint names these INVARs, and
//!   the bounded model checker leaves them out and cuts off cycles as its
//!   models show them (`bmc::lazy`);
//! * the short cycles of [`super::strengthen::cycles`], as the hint's
//!   cuts (implied by the ranks: no INVAR, the engine adds them as
//!   clauses);
//! * `FALSE` when the board has no path at all
//!   ([`super::strengthen::no_path`]).
//!
//! Why exact: with one successor everywhere but on the last waypoint, one
//! predecessor everywhere but on the first, and no cycle, the moves form
//! one path from waypoint 1 to the last one through every open cell; the
//! legs make it meet the waypoints in order. Conversely every solution
//! has these successors, legs (the last waypoint met so far) and ranks
//! (the steps). Measured against the step-by-step model in
//! [`super::strengthen::sat_models`].

use super::moves::{Dir, Moves};
use super::strengthen::{add_legs, add_no_path, add_ranks, cycle_cuts, invar, END};
use super::{CellId, Coord, Puzzle, Variant};
use crate::ir::label::label;
use crate::ir::{Acyclic, Domain, Expr, System, Value, VarId};

/// Builds the successor model of a waypoint puzzle (`None` for the
/// other variants, whose numbers are steps: their successor model is the
/// rank model of [`super::strengthen::path_order`]).
pub fn compile(p: &Puzzle) -> Option<System> {
    if p.variant != Variant::Waypoint {
        return None;
    }
    let (start, end) = (p.start()?, p.end()?);
    let mut sys = System {
        comment: super::compile::describe(p),
        bound: Some(0),
        ..System::default()
    };
    let moves = Moves::new(p);
    let succ = add_successors(p, &moves, end, &mut sys);
    // The end has no successor: a move out of it is no value of its
    // variable (and SMV rejects a comparison with a value it lacks).
    let goes = |a: CellId, dir: Dir| match a == end {
        true => Expr::f(),
        false => dir.is(succ[a.index()]),
    };
    for i in 0..p.open_count() {
        let c = CellId(i as u32);
        let out = moves.from(c);
        if c != end && out.is_empty() {
            invar(&mut sys, label!("cell ", c.0, " has no way out"), Expr::f());
        }
        let preds: Vec<Expr> = out.iter().map(|&(d, dir)| goes(d, dir.reverse())).collect();
        let wanted: i64 = if c == start { 0 } else { 1 };
        invar(
            &mut sys,
            label!("cell ", c.0, " has ", wanted, " predecessor(s)"),
            Expr::eq(Expr::Count(preds), Expr::int(wanted)),
        );
        for &(d, dir) in out.iter().filter(|&&(d, _)| c < d && c != end && d != end) {
            invar(
                &mut sys,
                label!("no move back and forth between ", c.0, " and ", d.0),
                Expr::negate(Expr::And(vec![goes(c, dir), goes(d, dir.reverse())])),
            );
        }
    }
    add_no_path(p, &mut sys);
    add_legs(p, &moves, &succ, &mut sys);
    add_rank_witnesses(p, &moves, &succ, &mut sys);
    sys.solution_vars = succ.clone();
    sys.branch_vars = succ;
    Some(sys)
}

/// The `succ_i` variables, by cell: the directions of a cell's moves
/// (none out of the `end`).
fn add_successors(p: &Puzzle, moves: &Moves, end: CellId, sys: &mut System) -> Vec<VarId> {
    (0..p.open_count() as u32)
        .map(|i| {
            let c = CellId(i);
            let dirs: Vec<String> = match c == end {
                true => vec![END.into()],
                false => moves
                    .from(c)
                    .iter()
                    .map(|&(_, d)| d.name().into())
                    .collect(),
            };
            sys.add_var(label!("succ_", i), directions(dirs), true)
        })
        .collect()
}

/// An enumeration of directions; a cell without neighbours (and not the
/// end) gets `end` so its domain is not empty, and an INVAR saying it
/// cannot be.
fn directions(mut dirs: Vec<String>) -> Domain {
    if dirs.is_empty() {
        dirs.push(END.into());
    }
    Domain::Enum(dirs)
}

/// The witness ranks: a move raises the rank. These INVARs are the
/// system's [`System::acyclic`] hint, with the short cycles of
/// [`super::strengthen::cycles`] as its cuts.
fn add_rank_witnesses(p: &Puzzle, moves: &Moves, succ: &[VarId], sys: &mut System) {
    let rank = add_ranks(p, sys);
    let mut hint = Acyclic {
        succ: succ.to_vec(),
        rank: rank.clone(),
        target: Vec::with_capacity(succ.len()),
        invars: Vec::with_capacity(moves.count()),
        cuts: Vec::new(),
    };
    for (i, &s) in succ.iter().enumerate() {
        let c = CellId(i as u32);
        let Domain::Enum(dirs) = &sys.var(s).domain else {
            unreachable!("successors are directions")
        };
        // The domain names the moves in order, or is `end` alone (the
        // end, or a cell without neighbours).
        let out = match &dirs[..] {
            [only] if only == END => &[][..],
            _ => moves.from(c),
        };
        let targets: Vec<Option<usize>> = match out.is_empty() {
            true => vec![None],
            false => out.iter().map(|&(d, _)| Some(d.index())).collect(),
        };
        debug_assert!(dirs
            .iter()
            .zip(&targets)
            .all(|(d, &t)| step_toward(p, p.coord(c), d).map(|x| x.index()) == t));
        for &(t, dir) in out {
            hint.invars.push(sys.invar.len());
            invar(
                sys,
                label!("a move ", c.0, " -> ", t.0, " raises the rank"),
                Expr::implies(
                    dir.is(s),
                    Expr::lt(Expr::var(rank[i]), Expr::var(rank[t.index()])),
                ),
            );
        }
        hint.target.push(targets);
    }
    hint.cuts = cycle_cuts(p, succ, sys);
    sys.acyclic.push(hint);
}

/// The open cell one move from `at` in direction `dir` (`None` for `end`
/// or off the open cells).
pub(super) fn step_toward(p: &Puzzle, at: Coord, dir: &str) -> Option<CellId> {
    let (dr, dc): (i64, i64) = match dir {
        "n" => (-1, 0),
        "s" => (1, 0),
        "w" => (0, -1),
        "e" => (0, 1),
        "nw" => (-1, -1),
        "ne" => (-1, 1),
        "sw" => (1, -1),
        "se" => (1, 1),
        _ => return None,
    };
    let r = usize::try_from(at.row as i64 + dr).ok()?;
    let c = usize::try_from(at.col as i64 + dc).ok()?;
    p.cell_id(Coord::new(r, c))
}

/// The path a successor-model state describes: from waypoint 1 along the
/// successors (`succ_i` is variable `i`). `None` when a value is not a
/// direction to an open cell before the end, or the walk is longer than
/// the board (a cycle; the IR check rules both out for a solution).
pub(super) fn walk(p: &Puzzle, state: &[Value]) -> Option<Vec<CellId>> {
    let n = p.open_count();
    let mut at = p.start()?;
    let mut path = vec![at];
    loop {
        let Value::Sym(dir) = state.get(at.index())? else {
            return None;
        };
        if &**dir == END {
            return Some(path);
        }
        at = step_toward(p, p.coord(at), dir)?;
        path.push(at);
        if path.len() > n {
            return None;
        }
    }
}
