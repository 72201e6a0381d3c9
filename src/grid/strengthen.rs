//! Redundant constraints for grid path puzzles: facts true of every
//! solution that the core model leaves for the engine to discover.
//!
//! Input: a [`Puzzle`] and the [`GridVars`] of its core model. Output:
//! extra variables and INVAR constraints added to the [`System`], so that
//! every engine (the SMV models as much as the bounded model checker)
//! sees them. Each extra is an [`Extra`] for [`CompileOptions::extras`];
//! [`options`] builds the options from names (`distance`, `order`).
//!
//! Invariants: an extra keeps every solution a solution and adds no new
//! one (its new variables are functions of the path: `rank[i]` is the
//! 1-based step at which cell `i` is visited, `succ_i` the direction of
//! the move out of it), so solution counts over `pos` are unchanged.
//! Distances are shortest-path lengths between open cells (at least the
//! Manhattan or king distance); on orthogonal grids, which are bipartite,
//! the step of a cell also has a fixed parity.

use thiserror::Error;

use super::compile::{CompileOptions, Extra, Givens, GridVars, NoRevisit};
use super::cuts::{self, Cut, Known};
use super::moves::{Dir, Moves};
use super::{CellId, Coord, Puzzle, Variant};
use crate::ir::label::{label, Piece};
use crate::ir::{Constraint, Domain, Expr, System, VarId};

/// The extras by name, in the order [`options`] applies them.
pub const EXTRAS: &[(&str, Extra)] = &[
    ("distance", distance),
    ("order", path_order),
    ("cover", cover),
    ("legs", legs),
    ("cycles", cycles),
    ("by-rank", by_rank),
    ("no-path", no_path),
    ("cut-steps", cut_steps),
];

/// An extra name that is not in [`EXTRAS`].
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("unknown redundant constraint set `{0}` (expected one of: distance, order, cover, legs, cycles, by-rank, no-path, cut-steps)")]
pub struct UnknownExtra(pub String);

/// Compile options with the named extras (and the core model's defaults).
pub fn options(names: &[&str]) -> Result<CompileOptions, UnknownExtra> {
    let mut opts = CompileOptions::default();
    for name in names {
        let (_, extra) = EXTRAS
            .iter()
            .find(|(n, _)| n == name)
            .ok_or_else(|| UnknownExtra(name.to_string()))?;
        opts.extras.push(*extra);
    }
    Ok(opts)
}

/// The first model the built-in bounded model checker solves
/// (`checkmate solve`, whose other models are in [`sat_models`], and
/// `checkmate cnf`): no revisits said by the transition (the `count()`
/// invariant costs a cardinality network per step, 10x the variables), and
/// for waypoint puzzles the `order` constraints (rank and successor: 40x
/// fewer conflicts on 9x9) with `legs` and `cycles` (numbrix and hidato
/// with the usual share of numbers need no search to speak of once the
/// engine has pruned the domains, and there `order` only costs encoding
/// and checking time; with few numbers they do need it, see
/// [`sat_models`]). `distance` is left out: the engine's own
/// domain pruning derives its windows from the model; but not what the
/// board's cuts add to them, which numbrix and hidato get as `cut-steps`
/// ([`cut_steps`]; nothing on a board without a cut). Measured on 96
/// random thin hidato and numbrix boards (3x33, 4x24, 3x50, 4x40; 4 or 7
/// blocked, 2 or 4 numbers; `solve --count 2`, 20 s cap, one run each):
/// one with no path `unknown` -> `unsat` in 0.01 s (9 s with the race's
/// way back, [`BACK_BUDGET`]), three solved ones 0.75 -> 0.05, 1.58 ->
/// 0.13, 0.82 -> 0.42 s, none slower by 0.3 s; sparse 15x15 boards
/// (no cuts) unchanged. Instructions (callgrind, `solve`): hidato-9x9-s1
/// -16%, numbrix-9x9-s1 -2%, hidato-9x9-unique-s3 +7.6%,
/// numbrix-15x15-s1 +7.9% (its 30 cuts' fits, which narrow nothing
/// there). No model of the engine stutters: it solves at the exact
/// bound, where the goal first holds at the last frame, so the
/// `solved` arm of `next(pos)` and the `solved |` of the no-revisit
/// TRANS only cost analysis and clauses (numbrix-9x9-s1 -5%
/// instructions); `cnf --bound` past it asks for
/// [`SatModel::for_bound`]. Every model of
/// the engine has `no-path` ([`no_path`]: `FALSE` on a board the colours,
/// a cut or its dead ends leave without a path; a search refutes those
/// only by exhausting the board). Measured with `bench_grid`
/// (tests/bmc_grid.rs); NuSMV keeps the plain model.
///
/// Tried on waypoint 12x12/15x15 and lost: `order` without the ranks
/// (`rank[i] <= s` is `visited[i]` at step `s`, so a move `c -> d` is the
/// TRANS `succ_c = d -> (visited[c] <-> next(visited[d]))`): 40% fewer
/// variables, 35% fewer clauses, but 1.5-6x more conflicts; adding
/// `pos`/`succ` channels per step on top costs 3x the variables. Either
/// rank channel alone (`pos` or `visited`) moves conflicts up or down by
/// puzzle, no better overall. The time goes to BatSat's propagation,
/// about 1 ms per conflict at 15x15, whatever the encoding.
///
/// `legs` and `cycles` (prototyped first on a pure successor/rank CNF
/// without the unrolling, python-sat's MiniSat: legs cut the conflicts
/// 3-10x on most puzzles, bans of 4- and 6-cycles another 1.5-4x), then
/// measured with `solve --count 2` on 25 fresh waypoint puzzles
/// (`gen-grid.py waypoint 12 12` / `15 15`, 0-24 blocked cells, seeds
/// 101-108 and 11-16) and the corpus, CPU s under a 10 s CPU limit:
/// before, 12x12 median 0.8 (one > 10) and none of the 11 fresh 15x15
/// done; with both, every 12x12 within 1.9 (median 0.6) and 6 of the 11
/// 15x15 (2 within 2 s). Search stays heavy-tailed: corpus 15x15-s1
/// took 1.5 to 11 s across variants of this model, and a puzzle can move
/// 0.8 <-> 5 s with any change. Most of the CPU is search on the
/// unrolled CNF (1-2 ms per conflict at 15x15, against 0.2 ms for the
/// pure successor/rank CNF in MiniSat).
/// Tried and lost or no better: an undirected degree formulation with
/// the 2x2 ban; `leg = j -> rank` windows from the waypoints' windows;
/// the one-hot `rank = step` permutation constraint
/// (what the unrolling adds: fewer conflicts on some, 10x more on
/// others); BatSat's geometric restarts instead of Luby (fewer conflicts
/// on some waypoint puzzles, more on others, slower on hidato), its
/// `var_decay` 0.85/0.9, `phase_saving` 0, smaller learnt-clause
/// limits: noise.
///
/// Won (generic, in the unroller): `visited[c] <-> rank[c] <= step` is an
/// INVAR defining `visited`, so `visited[c]@s` is now the order literal
/// of `rank[c]` itself (no SAT variable, no channel clauses; see
/// `bmc::analyse::aliases`): 15x15 CNF 21% fewer variables, 8% fewer
/// clauses. `solve --count 2`, CPU s, same run, 15 s CPU cap: corpus
/// 15x15-s1 8.2/8.8 -> 4.8/5.6, s2 1.6/1.8 -> 1.9/2.3, 12x12-s1 0.9 ->
/// 0.7, the rest unchanged; 14 fresh puzzles (`gen-grid.py waypoint 15
/// 15`, seeds 201-210, blocked `7 * seed mod 25`; `12 12`, seeds
/// 301-304): 11 solved either way (one gained, one lost at the cap), on
/// the 10 both solve 42.6 -> 30.3 s in all, 7 faster (up to 3x), 3
/// slower (up to 1.3x). Numbrix and hidato CNFs are unchanged.
///
/// Won (generic, in the unroller, `bmc::value_alias`): likewise
/// `pos = c <-> rank[c] = step` defines the one-hot literal `pos@s = c`
/// as the rank gate `rank[c] = s` (one SAT variable instead of two tied
/// by channel clauses): 15x15 CNF 13% fewer variables, 5% fewer clauses,
/// about half the CPU per conflict (MiniSat on the DIMACS, 3 puzzles).
/// `solve --count 2`, CPU s (`scripts/bench-fresh.sh`, 12 fresh 15x15,
/// 18 blocked, seeds 1-12, 20 s cap): median 3.8 -> 2.9, within 2 s 1 ->
/// 5, the one over the cap done in 12.5; corpus (median of 3) 15x15-s1
/// 5.9 -> 1.9, s2 1.95 -> 1.74, 12x12 0.71/0.52 -> 0.27/0.59.
///
/// Won (generic, the order encoding): a value the pruned domain rules
/// out inside a variable's range makes "≥ v + 1" the same literal as
/// "≥ v" instead of a clause tying them; the parity windows leave every
/// other rank out, so 15x15 CNFs lose 31% of their variables and 22% of
/// their clauses. Same 12 fresh puzzles: conflicts summed 52k -> 37k,
/// median CPU 3.2 -> 2.2 s (one 9.9 -> 1.7); corpus 15x15-s1 1.9 -> 1.3,
/// s2 1.74 -> 0.66.
///
/// Won: [`by_rank`] (the ranks define `visited`; no `next(visited)`, no
/// no-revisit TRANS): 15x15 CNF another 22% fewer variables and 18%
/// fewer clauses, ~0.45 ms per conflict (from ~1 ms at the start of
/// these three). Same 12 fresh puzzles: median CPU 2.2 -> 1.2 s, within
/// 2 s 5 -> 8 (conflicts 37k -> 46k in all: heavy tails); corpus
/// 15x15-s1 1.3 -> 1.6, s2 0.66 -> 0.82.
///
/// Won: `a = b` between two order-encoded terms said once per distinct
/// pair of `≥` literals (the merged holes had doubled the `succ -> rank`
/// clauses): 15x15 CNF 479k -> 357k clauses; same 12 puzzles median CPU
/// 1.2 -> 0.9 s, within 2 s 8 (different ones: conflicts move 0.5-2.5x
/// either way with any change of clause order).
///
/// Won (generic, in the encoder): a `case` whose run of `x = c` guards
/// names every value `x` can have makes the arms after it dead (the core
/// model's `TRUE: pos` fallback of `next(pos)`): 10% fewer clauses on
/// every grid CNF (numbrix and hidato unchanged in time). 24 fresh 15x15
/// (the 12 above and seeds 13-24 with 8 blocked cells): within 2 s 11 ->
/// 18, slowest 10.2 -> 8.2 s (conflicts up on some, down on others).
///
/// Tried after these and lost (conflicts summed over the 12, default
/// ~48k): BatSat user polarity TRUE for every variable (~96k; it also
/// turns phase saving off) or FALSE (~81k); `random_var_freq` 0.01/0.02
/// and random initial activities: noise (median CPU 1.6-1.9 s against
/// 1.4 s in the same run). Tighter static rank windows (the union over
/// the legs of `lo_j + dist(w_j, c) ..= hi_j+1 - dist(c, w_j+1)`) left
/// the CNF unchanged: the engine's domain pruning already finds them.
///
/// Won: [`by_rank`] also drops `next(pos)` (the ranks and successors say
/// where `pos` goes): 15x15 CNF 328k -> 291k clauses, but the 37k it
/// loses are the long ones (`rank[c] = s -> rank[d1] = s + 1 | ...`, one
/// per cell and step), and BatSat's time per conflict halves (0.45 ->
/// 0.2 ms), with fewer conflicts too (summed over 48 fresh 15x15, one
/// run each: 234k -> 140k). Where the time went before: the first
/// solution (`CHECKMATE_PHASES=1` prints it); the uniqueness solve takes
/// 1-4 conflicts. `scripts/bench-fresh.sh -n 5` (waypoint 15x15, 18
/// blocked), same run: seeds 1-24 median CPU 1.41 -> 0.45 s, within 2 s
/// 20 -> 24 (slowest 9.2 -> 1.3 s); held-out seeds 25-48 1.17 -> 0.51 s,
/// 18 -> 24 (slowest 4.9 -> 1.8 s). Corpus (`scripts/bench-grid.sh
/// --no-nusmv -n 5`, `--count 2`): 15x15-s1 1.18 -> 0.54 s, s2 1.62 ->
/// 0.32, 12x12-s1 0.17 -> 0.09, 20x20-s1 > 30 -> 13.7 (s2 still > 30);
/// 9x9 and the unique puzzles unchanged (their pruned CNFs keep more
/// variables without the `next(pos)` table, 8k -> 12k on 15x15-unique,
/// at the same time).
///
/// Tried and lost or no better (fresh 15x15, one run each): a cell's
/// possible legs bound it between waypoints (`leg[c] >= j <-> rank[w_j]
/// < rank[c]`; before the change above, seeds 1-22): on a big board with
/// few numbers the slack lets most cells lie on most legs, so this is ~20
/// rank comparisons per cell, 4x the clauses, conflicts no fewer (113k ->
/// 122k); `long{j}_{d}` flags (a cell on leg `j` makes the leg at least
/// as long as the walk from `w_j` through it to `w_j+1`, `rank[w_j] + d
/// <= rank[w_j+1]`; with it, seeds 1-48): +15% clauses, conflicts within
/// noise (seeds 1-24 sum 65k -> 64k, 25-48 75k -> 82k). Rechecked
/// with it (conflicts summed, seeds 1-24 / 25-48): without `legs` 65k ->
/// 270k / 75k -> 310k, without `cycles` 110k / 116k: both still pay.
///
/// Open boards (fresh 15x15, 0 blocked cells, seeds 201-210) stay heavy:
/// first solve 2.4k-82k+ conflicts (seed 205 over 20 s), the uniqueness
/// solve 1 conflict (all ten have a second solution, a local change of
/// the first). Not BatSat: CaDiCaL (`--sat cadical`, same CNF) did 5 of
/// the 10 within 20 s, the fastest in 4.3 s. Not the CNF (75k variables, 352k clauses against
/// 62k/275k with 18 blocked, the same ~0.24 ms per conflict), not the
/// givens (20-40 numbers; the legs' slack, `n - 1 - Σ gaps`, is 38-59%
/// of `n`, as with 18 blocked). Likely cause: every inner cell has four
/// neighbours, so fewer moves are forced. A leg's colour counts add nothing: on a
/// bipartite grid the rank windows already fix every cell's rank parity.
/// Lost: rings of up to 4 squares (`RING_SQUARES`, cycles up to length
/// 10; +2% clauses): conflicts per seed 0.2-4.8x either way, median 23k
/// -> 20k, slowest >82k -> 58k, 201 2.4k -> 7k; `--encoding one-hot` on
/// seeds 203/205/210: 22k/>82k/61k -> 37k/22k/39k conflicts but 2x the
/// time per conflict; `log` none within 20 s.
///
/// Open boards, second look (conflicts of the first solve, one run each
/// under a 12-20 s wall cap, "capped" counted as the worst; fresh 15x15,
/// 0 blocked; default model on seeds 201-210: median 22.7k, 1 capped;
/// on 211-226: 20.6k, 3 capped). The tail is the search's, not the
/// puzzle's: BatSat's initial activities randomised (`rnd_init_act`,
/// three seeds each on 202/204/206/208/210/212) put one puzzle anywhere
/// in 12k-61k. Nor is it the legs' timing: with every waypoint pinned to
/// its step on the hidden path the first solve still took 0.7k-26k
/// (median 3.5k); the cost is covering the board. Lost, seeds 201-210
/// (median, capped): `pockets` on the ranks (at every step an unvisited
/// cell has an unvisited neighbour, two unless it is next; +54%
/// clauses): 47.6k, 4; its first half only (+11%): 30.6k, 2; `cuts`,
/// cut-set clauses (the path enters and leaves every polyomino of 2..4
/// or 2..5 cells unless it holds an end; +3% / +9% clauses): 23.5k, 2 /
/// 14.7k, 2, and on 211-226 24.1k, 4 against 20.6k, 3; the `succ`
/// variables numbered before the ranks (BatSat's first decisions on
/// them): 11.2k, 1 but 31.0k, 1 on 211-226; BatSat `restart_first` 512:
/// 17.0k, 2; `var_decay` 0.99: 20.6k, 0 (the others 1.5k-58k).
/// Lost too (fresh 15x15, 0 blocked, seeds 1-12, `scripts/bench-fresh.sh
/// -t 10`, both builds side by side): a connectivity theory in BatSat
/// (before each decision, when a `succ` literal became false, the moves
/// not yet ruled out must still connect every cell; if not, learn "one
/// of the moves across the cut is taken"): within 2 s 6 -> 4 of 12,
/// median 1.85 -> 2.79 s. It rarely fires (on seed 1, 234 cuts in 65k
/// looks and 40k conflicts, against 17k conflicts without it): the
/// ranks refute a board cut in two before the cut is complete, so the
/// conflicts are about ranks and legs, not reachability. Numbrix 15x15
/// at 5% numbers, seeds 1-12: 5 of 12 solved within the cap either way.
/// BatSat's `random_var_freq` 0.02 rechecked on the same seeds: median
/// 1.89 -> 3.0 s, within 2 s 6 -> 4. Where the clauses are (seed 3,
/// 358k): "a move adds one to the rank" 168k, the `pos@s = c` rank gates
/// with each step's one-hot clauses 131k, the other copies 37k, `legs`
/// 16k, `cycles` 3k. Without the one-hot at-most-one over those gates (a
/// throwaway build; the ranks imply it, and every answer still checked):
/// seeds 3 and 1 went 77k -> 12k and 16.6k -> 5.7k conflicts, but over
/// seeds 1-12 it was noise (6 of 12 within 2 s either way, median 1.68
/// vs 1.69 s).
/// Won, and built: only the `succ` literals as BatSat decision
/// variables ([`path_order`] names them [`System::branch_vars`]; the
/// ranks, and so `pos` and `visited`, follow by propagation once every
/// successor is set, the start's rank being 1; the engine falls back to
/// a plain search should a model leave a read variable unassigned, which
/// no puzzle below did). Same CNF; conflicts of the first solution,
/// fresh 15x15 boards, `--count 2`, one run each, 20 s cap, hinted vs
/// not side by side (wall times with both running): 0 blocked, seeds
/// 201-219: median 13.9k vs 23.8k (capped 0 vs 2; 2.3 s vs 4.6 s, 7 vs
/// 3 of 19 within 2 s; 11 puzzles need >20% fewer, 3 >25% more: 208
/// 11.0k -> 20.8k, 211 13.8k -> 38.9k, 214 11.0k -> 30.1k); 8 blocked,
/// 101-112: 2.9k vs 7.0k (capped 0 vs 1; 11 vs 7 of 12 within 2 s, max
/// 6.9 s); 18 blocked, 1-12: 1.7k vs 1.7k (8 fewer, 2 more), max 0.8 s
/// vs 1.2 s. The bench's waypoint-12x12-s1 loses (150 -> 491). A first
/// build declared the decisions one variable off (every `succ` literal
/// but the first, plus the first `rank >=` and the first `leg` literal):
/// 0 blocked median 7.4k on the same seeds. So close a decision set
/// giving half the conflicts says how noisy single puzzles are: compare
/// such variants on many seeds, not on these. Lost on top of it (0
/// blocked, seeds 201-226, median against 15.9k): branching on the
/// `leg` variables too, 23.5k (2 capped at 30 s); on the ranks too,
/// 19.8k; BatSat's user polarity TRUE on the decisions (a direction
/// first): 4 of 19 capped, and the second solve of `--count 2` far
/// longer. Branching on `pos` for numbrix/hidato bought nothing on the
/// 12x12-20x20 bench (all under 2.1 s either way), so they have no hint.
/// Unique open boards (`gen-grid.py --unique`) are no problem: the random
/// reveal order needs 178-214 numbers of 225, and they solve in 0.1 s.
///
/// Tried again after all of the above, and within noise: no `cycles`
/// (they cost only 0.2-0.5% of the clauses by now). Fresh boards
/// (`scripts/bench-fresh.sh`, 10 s cap, one run each, both builds side
/// by side), with -> without: 15x15, 0 blocked, seeds 1-12: over the cap
/// 2 -> 0, median 2.6 -> 1.9 s; seeds 13-24: 3 -> 3, 4.9 -> 2.2 s; seeds
/// 25-36: 2 -> 3, 4.2 -> 5.9 s (faster on 21 of the 36, slower on 13);
/// 18 blocked, seeds 1-12: median 0.58 -> 0.37 s; 12x12, 0 blocked,
/// seeds 1-16: 0.25 -> 0.27 s (faster on 6, slower on 9); the bench's
/// waypoint-20x20-s1 2.2 -> 4.9 s and -s2 18.6 -> over 30 s. Kept.
pub fn sat_options(p: &Puzzle) -> CompileOptions {
    let extras: Vec<Extra> = match p.variant {
        Variant::Waypoint => vec![no_path, path_order, legs, cycles, by_rank, cover],
        Variant::Numbrix | Variant::Hidato => vec![no_path, cover, cut_steps],
    };
    CompileOptions {
        stutter: false,
        no_revisit: Some(NoRevisit::Trans),
        extras,
        givens: Givens::Table,
    }
}

/// A model for the bounded model checker and the conflicts it is given
/// before the next model of [`sat_models`] takes over (`None`: no limit).
pub struct SatModel {
    pub kind: ModelKind,
    pub conflict_budget: Option<u64>,
}

/// Which system a [`SatModel`] compiles to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelKind {
    /// The step-by-step model ([`super::compile::compile_model`]) with
    /// these options.
    Steps(CompileOptions),
    /// The successor model of a waypoint puzzle ([`super::successor`]).
    Successors,
}

impl SatModel {
    fn steps(options: CompileOptions, conflict_budget: Option<u64>) -> SatModel {
        SatModel {
            kind: ModelKind::Steps(options),
            conflict_budget,
        }
    }

    /// This model with a solved path that stutters (`pos` stays put),
    /// for an unrolling past the puzzle's exact bound (`cnf --bound`):
    /// the models `solve` uses leave stuttering out (see [`sat_options`]).
    pub fn stuttering(mut self) -> SatModel {
        if let ModelKind::Steps(options) = &mut self.kind {
            options.stutter = true;
        }
        self
    }

    /// This model for an unrolling to bound `k` (`None`: the exact one):
    /// [`SatModel::stuttering`] when `k` is past a step model's exact
    /// bound (the open cells less one), else as it is.
    pub fn for_bound(self, p: &Puzzle, k: Option<usize>) -> SatModel {
        let steps = matches!(self.kind, ModelKind::Steps(_));
        match k {
            Some(k) if steps && k + 1 > p.open_count() => self.stuttering(),
            _ => self,
        }
    }

    /// The system of this model for `p` (the successor model exists for
    /// waypoint puzzles only; for the others this is [`sat_options`]'
    /// step-by-step model).
    pub fn compile(&self, p: &Puzzle) -> System {
        match &self.kind {
            ModelKind::Steps(options) => super::compile::compile_model(p, options).0,
            ModelKind::Successors => super::successor::compile(p)
                .unwrap_or_else(|| super::compile::compile_model(p, &sat_options(p)).0),
        }
    }
}

/// The models `checkmate solve` tries in turn on `p`, each but the last
/// under a conflict budget: for numbrix and hidato the step-by-step model
/// of [`sat_options`] (a few milliseconds when the numbers leave little
/// to search), then the successor/rank model (`order` and `by-rank` as
/// for waypoint puzzles, and for hidato `cycles`; the successors are the
/// branching hint); for waypoint puzzles the one-state successor model of
/// [`super::successor`] (ranks left to the engine's lazy cycle cuts), and
/// after it, never reached by `solve` (no budget), the step-by-step model
/// of [`sat_options`] for `--model 2`. The models have the same paths, so
/// the answer (a verified path, `unique`, `unsat`) does not depend on
/// which one gives it.
///
/// Waypoint, successor model against the step-by-step one (9a0b8c4), one
/// run each, side by side, `solve --count 2`, wall s, 10 s cap: open
/// 15x15 (`scripts/bench-fresh.sh --blocked 0`), seeds 1-24 within 2 s
/// 13 -> 21 of 24, median 1.47 -> 0.46 s; held-out seeds 25-48 14 -> 19,
/// 1.59 -> 0.46 s; the misses take 2.0-5.9 s, nearly all of it in the
/// first solve of the relaxed model (1-25 cuts, 40k-140k conflicts at
/// ~70 us each, against ~0.3 ms for the ranked CNF). Corpus
/// (`scripts/bench-grid.sh --no-nusmv -n 3`, CPU s): 9x9 24-46 -> 10-12
/// ms, 15x15 0.17-0.84 -> 0.03-0.13 s, 20x20 5.1-5.9 -> 1.5-2.4 s, peak
/// memory 213 -> 41 MB; `scripts/sweep-fresh.sh --variants waypoint`
/// (3x3 to 15x15, 3x50, 4x40, 2x60, 0 and ~10% blocked): the same answers,
/// every row faster, all within 2 s but one open 15x15 (2.8 s). Tried
/// and no better there: no short-cycle bans (open 15x15, seeds 1-48,
/// within 2 s 39 -> 41 of 48, median wall per half 0.52/0.44 -> 0.67/0.53
/// s: noise), the legs as decisions too (conflicts summed over 7 hard
/// seeds 517k -> 571k). The bans of rings up to 3 squares cost 40% of a
/// 9x9's instructions (19.0M against 11.7M with the 2x2 block's alone,
/// at the time; the whole waypoint-9x9-unique-s3 solve is 15.3M since
/// the cheaper model build and domain analysis of 2026-12) but pay on big boards: open 15x15, seeds 1-48, `--jobs 1`, conflicts
/// summed 1.13M against 2.05M, median 9.5k against 18.7k, fewer on 35 of
/// the 48.
///
/// Why two: with the default share of numbers (30%) the step-by-step
/// model needs at most a few hundred conflicts on numbrix 9x9-20x20 and
/// is the faster one (9x9 bench 6-9 ms against 11-15 ms), but with fewer
/// numbers its search blows up (a 9x9 numbrix with 3 numbers: 1,500
/// conflicts, 0.5 s; the successor/rank model: a few conflicts, 1.4 ms).
/// Fresh 15x15 boards, 0 blocked (`scripts/bench-fresh.sh --reveal F -t
/// 10`, one run each, CPU s), step-by-step alone (236ad68) against these
/// models in turn:
///
/// | puzzles | step-by-step: median, within 2 s, over 10 s | in turn |
/// |---|---|---|
/// | numbrix, 10% numbers, 12 | 7.6 s, 4, 6 | 1.0 s, 9, 0 (max 4.8) |
/// | numbrix, 20%, 12 | 0.13 s, 11, 0 (max 4.1) | 0.12 s, 12, 0 (max 0.7) |
/// | numbrix, 30%, 8 | 0.06 s, 8, 0 | 0.08 s, 8, 0 |
/// | hidato, 10%, 8 | >10 s, 0, 8 | 8.2 s, 0, 3 |
/// | hidato, 20%, 8 | 1.3 s, 4, 3 | 1.1 s, 5, 0 (max 4.5) |
/// | hidato, 30%, 8 | 0.27 s, 8, 0 | 0.38 s, 8, 0 |
///
/// Sparse hidato stays slow: king moves leave every cell eight
/// neighbours. Lost there (same puzzles): banning the three 4-cycles of
/// every 2x2 block besides its triangles (10%: median 6.8 s, 2 over 10 s
/// against 7.7 s, 3, other puzzles; 20%: 1.09 against 1.01 s); no
/// branching hint (10%: 7 of 8 over 10 s; numbrix 10%: one over 10 s,
/// median 0.7 s, a wash); the ranks as decisions too (10%: 7 of 8 over
/// 10 s against 3).
/// [`FALLBACK_BUDGET`] is where the first gives up.
///
/// Each model alone (`solve --model N --count 2`, no budget), fresh
/// boards with no blocked cells, seeds 1-3, CPU s, ">T" = unknown at a
/// 10 s wall cap (two runs side by side, so about 5 s of CPU):
///
/// | puzzles | model 1 alone | model 2 alone |
/// |---|---|---|
/// | numbrix 9x9, 2% numbers | 0.18, 0.36, 0.39 | 0.05, 0.06, 0.10 |
/// | numbrix 9x9, 30% | 0.01, 0.02, 0.02 | 0.02, 0.02, 0.03 |
/// | numbrix 12x12, 5% | 0.71, >T, 2.56 | 0.17, 1.37, 0.36 |
/// | numbrix 15x15, 2% | >T, >T, >T | 1.64, >T, 2.82 |
/// | numbrix 15x15, 10% | >T, 0.23, 9.07 | 4.36, 0.15, 1.15 |
/// | numbrix 15x15, 30% | 0.12, 0.11, 0.11 | 0.18, 0.18, 0.18 |
/// | hidato 12x12, 2% | 1.12, 4.37, >T | 0.30, 0.23, 0.37 |
/// | hidato 15x15, 10% | >T, >T, >T | 7.70, 6.79, >T |
/// | hidato 15x15, 20% | 7.41, 1.25, >T | 1.82, 0.76, 4.36 |
/// | hidato 15x15, 30% | 0.29, 0.24, 0.37 | 0.49, 0.19, 0.28 |
///
/// Model 2 is never far behind (its encoding costs 10-70 ms more), and
/// model 1 wins only by that much, on dense puzzles, which it solves in
/// under 200 conflicts; so model 2 alone would only slow the 9x9 bench
/// (6-9 ms against 11-15 ms), and model 1 alone loses every sparse board.
/// Where both fail (hidato 15x15 at 5-10%, numbrix 15x15 at 2-5%) the
/// path must cover an open board between a few pinned steps, and
/// CaDiCaL (Debian's binary on either model's DIMACS) needs ~200k
/// conflicts, 40-55 s, on a puzzle BatSat with the hint solves in 62k.
/// Lost there: `counts`, a cardinality constraint per given number `k`
/// ("exactly `k - 1` ranks below `k`", a totalizer over the rank order
/// literals) on model 2: numbrix 15x15 at 2%, seeds 1-12, 10 s cap, 0
/// within 2 s and 9 over the cap, against 1 and 6 (2.5x the time per
/// conflict; conflicts down on 2 of 3 puzzles looked at). Not built:
/// alldifferent (Hall set) pruning of the `pos@s = c` pairs the analysis
/// leaves: a matching-based prototype removed none of 2,357 pairs on
/// hidato 15x15 at 30% and about 1% (72-101 of 7-10k) on the 10-20% ones.
/// Lost: a one-state successor model for numbrix and hidato, as for
/// waypoint puzzles (ranks left to the lazy cycle cuts), whose steps come
/// from legs instead: frozen `leg[i] : 0..m` counts the givens met up to
/// cell `i`, a move into the `j`-th given leaves leg `j - 1`, any other
/// keeps its leg, and `count(leg[i] = j) = ` the cells the numbers leave
/// for leg `j`. Fresh 15x15, 0 blocked, seeds 1-6, numbrix at 5% and
/// hidato at 10% (`gen-grid.py --reveal`), `--jobs 1 --count 2`, 10 s
/// cap: none of the 12 within the cap, against 10 of 12 for model 2
/// (0.1-8.3 s). Its CNF is large (numbrix seed 2: 90k variables, 272k
/// clauses, against 24k and 117k; the leg counters are most of it) and
/// each solve between two cycle cuts took 0.5-2 s: cardinalities over
/// legs propagate far less than ranks pinned by the givens.
///
/// Won: no `cycles` in the numbrix model 2 (orthogonal moves; hidato
/// keeps them). Fresh 15x15 numbrix at 2% numbers, 10 s cap, one run
/// each, both builds side by side: seeds 1-12, over the cap 8 -> 3,
/// median 10 -> 4.6 s; seeds 13-24, 5 -> 2, median 7.9 -> 6.2 s; faster
/// on 14 of the 24, slower on 7. 12x12 at 3%, seeds 1-12: faster on 11,
/// median 0.40 -> 0.28 s. 15x15 at 10%: a wash (median 0.85 -> 0.69 s,
/// within 2 s 9 -> 8 of 12). Hidato 15x15 at 10% without them: 7 of 8
/// over the cap against 3, so king moves keep the bans. Numbrix 15x15 at
/// 5%, seeds 1-12: over the cap 3 -> 5, within 2 s 2 -> 4 (faster on 6,
/// slower on 4): over all 60 numbrix boards above, faster on 37, slower
/// on 15, over the cap 16 -> 10. (Waypoint puzzles were tried the same
/// way and keep them: see [`sat_options`].)
pub fn sat_models(p: &Puzzle) -> Vec<SatModel> {
    // King moves close triangles and other short cycles that the
    // `cycles` bans keep the search out of; on orthogonal grids the
    // ranks' parity and order refute them as cheaply (see above).
    let order = || CompileOptions {
        stutter: false,
        no_revisit: Some(NoRevisit::Trans),
        extras: if p.variant.diagonal() {
            vec![no_path, path_order, cycles, by_rank, cover]
        } else {
            vec![no_path, path_order, by_rank, cover]
        },
        givens: Givens::Table,
    };
    match p.variant {
        Variant::Waypoint => vec![
            SatModel {
                kind: ModelKind::Successors,
                conflict_budget: None,
            },
            SatModel::steps(sat_options(p), None),
        ],
        Variant::Numbrix | Variant::Hidato => vec![
            SatModel::steps(sat_options(p), Some(FALLBACK_BUDGET)),
            SatModel::steps(order(), None),
        ],
    }
}

/// The conflicts the step-by-step numbrix/hidato model gets before
/// [`sat_models`] moves on to the successor/rank model: a little over
/// what it needed on puzzles with the usual share of numbers (at most 179
/// on fresh numbrix 15x15 with 25-30% numbers, 129 on the hidato 9x9
/// bench), where it is the faster model. Past that it spends 0.3 ms
/// (9x9) to 1 ms (15x15) per conflict on a search the other model does
/// with far fewer, so a larger budget only adds waiting. Fresh 15x15,
/// one run each, budget 100 / 300 / 1000, CPU s summed: 16 numbrix with
/// 15-30% numbers 2.9 / 3.4 / 3.7, 6 with 10% 7.9 / 7.9 / 10.8, 16
/// hidato with 15-30% 33.9 / 35.3 / 38.4.
pub const FALLBACK_BUDGET: u64 = 200;

/// The conflicts the first numbrix/hidato model gets when `solve` races
/// the models on two cores (the second joins at [`FALLBACK_BUDGET`]);
/// then its core goes to the second model with another seed. Where the
/// first model answered and the second had not (random 3x50 and 4x40
/// boards, sparse 15x15 hidato), it took 1,000-3,100 conflicts; each
/// conflict it spends past its answer delays the second model's second
/// seed, which answers most sparse 15x15 boards: 2,000 lost less there
/// than 5,000 and gained as much (measurements in `bmc::race`).
pub const RACE_BUDGET: u64 = 2000;

/// The conflicts the rank model's second seed gets on the core the step
/// model had (after [`RACE_BUDGET`]) before that core goes back to the
/// step model, from the start and with no budget (the other core keeps
/// the rank model's first seed). Why: on some boards with no path only
/// the step model ever answers, and without this a race dropped it for
/// good at its budget; random hidato boards with 2-4 numbers
/// (`gen-random-board.py hidato 3 33 7 2 3`, `4 24 7 4 2`) it refutes
/// alone in 8.6k and 22k conflicts (3 s and 7 s) stayed `unknown` at
/// 60 s, the rank model at 225k conflicts in 30 s without an answer;
/// with this they are `unsat` in 9 s and 14 s (the first is now refuted
/// without search by [`cut_steps`]; the second, whose neck has three
/// cells, is not). Its cost: a board the second seed answers past this
/// many conflicts loses that answer (random hidato 3x50, 4 blocked, 2
/// numbers, seed 1: the second seed's path at 59k conflicts, 12 s, now
/// `unknown` at 20 s; the first seed goes on, so it may still come).
/// At 7-14k conflicts a second, this is 3.5-7 s of the core: none of
/// the sparse 15x15 boards the second seed answers (at most ~25k) is
/// touched.
pub const BACK_BUDGET: u64 = 50_000;

/// Every open cell's neighbours, by cell id (computed once for the many
/// searches over one puzzle).
pub(super) fn adjacency(p: &Puzzle) -> Vec<Vec<CellId>> {
    (0..p.open_count() as u32)
        .map(|c| p.neighbours(CellId(c)))
        .collect()
}

/// Shortest-path lengths (in moves) from `from` to every open cell, over
/// the [`adjacency`] of the puzzle; `None` when unreachable.
pub(super) fn distances(adj: &[Vec<CellId>], from: CellId) -> Vec<Option<usize>> {
    let mut dist = vec![None; adj.len()];
    dist[from.index()] = Some(0);
    // Breadth first: every cell enters the queue at most once, and the
    // cells at distance `d` come before those at `d + 1`.
    let mut queue = Vec::with_capacity(adj.len());
    queue.push(from);
    let mut next = 0;
    while let Some(&c) = queue.get(next) {
        next += 1;
        let one_more = dist[c.index()].map_or(0, |d| d + 1);
        for &n in &adj[c.index()] {
            if dist[n.index()].is_none() {
                dist[n.index()] = Some(one_more);
                queue.push(n);
            }
        }
    }
    dist
}

/// The distance from each given to the next (in number order), the
/// number of open cells where there is no way between them.
fn gaps(p: &Puzzle, adj: &[Vec<CellId>], givens: &[(u32, CellId)]) -> Vec<usize> {
    givens
        .windows(2)
        .map(|w| distances(adj, w[0].1)[w[1].1.index()].unwrap_or(p.open_count()))
        .collect()
}

/// For every cell, the 1-based steps it can be visited at, as far as the
/// givens tell: at least `d` steps away from a number `k` that is `d` moves
/// away (numbrix/hidato), or from the first and last waypoint (waypoint);
/// of the right parity on orthogonal grids, where the colour counts tell
/// it too ([`colour_parity`]).
fn windows(p: &Puzzle) -> Vec<Vec<bool>> {
    windows_with(p, &adjacency(p), &anchors(p))
}

/// [`windows`] given the puzzle's [`adjacency`] and [`anchors`].
fn windows_with(p: &Puzzle, adj: &[Vec<CellId>], anchors: &[(usize, CellId)]) -> Vec<Vec<bool>> {
    windows_of(p, adj, anchors, &vec![true; p.open_count()])
}

/// [`windows_with`] of the cells `wanted` (by index) only: the others get
/// an empty list. The distances come from a search from each anchor, or
/// from each wanted cell when those are fewer (moves go both ways, so
/// either gives the same): a hidato with 65 numbers and 10 plain cells
/// needs 10 searches, not 65.
fn windows_of(
    p: &Puzzle,
    adj: &[Vec<CellId>],
    anchors: &[(usize, CellId)],
    wanted: &[bool],
) -> Vec<Vec<bool>> {
    let n = p.open_count();
    let mut ok = vec![vec![true; n + 1]; n];
    for row in &mut ok {
        row[0] = false;
    }
    let bipartite = !p.variant.diagonal();
    if bipartite {
        colour_parity(p, &mut ok);
    }
    if p.variant == Variant::Waypoint {
        waypoint_windows(p, adj, &mut ok);
    }
    let cells: Vec<usize> = (0..n).filter(|&c| wanted[c]).collect();
    // `dist(a, c)`: moves between anchor `a` (by index) and cell `c`.
    let by_anchor = anchors.len() <= cells.len();
    let from: Vec<_> = match by_anchor {
        true => anchors.iter().map(|&(_, at)| distances(adj, at)).collect(),
        false => cells
            .iter()
            .map(|&c| distances(adj, CellId(c as u32)))
            .collect(),
    };
    let dist = |a: usize, i: usize, c: usize| match by_anchor {
        true => from[a][c],
        false => from[i][anchors[a].1.index()],
    };
    for (i, &c) in cells.iter().enumerate() {
        let steps = &mut ok[c];
        // The parity each number leaves is one of two: each that comes
        // up is applied once, at the end.
        let mut banned = [false; 2];
        for (a, &(k, _)) in anchors.iter().enumerate() {
            let d = dist(a, i, c);
            keep_distance(steps, k, d);
            if let (true, Some(d)) = (bipartite, d) {
                banned[odd_gap_parity(k, d)] = true;
            }
        }
        for parity in (0..2).filter(|&x| banned[x]) {
            ban_parity(steps, parity);
        }
    }
    for (row, _) in ok.iter_mut().zip(wanted).filter(|(_, &w)| !w) {
        row.clear();
    }
    ok
}

/// Narrows the steps `ok` of a cell `d` moves from an anchor at step `k`
/// (`None`: it cannot reach it) to those at least `d` steps from `k`;
/// with [`ban_parity`] of [`odd_gap_parity`] on an orthogonal board,
/// [`in_reach`] in runs instead of step by step (which was most of the
/// time of [`windows`]: 5.9M instructions on a 9x9 hidato).
fn keep_distance(ok: &mut [bool], k: usize, d: Option<usize>) {
    if ok.len() <= 1 {
        return;
    }
    let Some(d) = d.filter(|&d| d > 0) else {
        // Unreachable: no step; the anchor's own cell: its step only.
        let keep = d.map(|_| k);
        for (s, allowed) in ok.iter_mut().enumerate().skip(1) {
            *allowed &= Some(s) == keep;
        }
        return;
    };
    let lo = k.saturating_sub(d - 1).max(1);
    let hi = (k + d - 1).min(ok.len() - 1);
    if lo <= hi {
        ok[lo..=hi].fill(false);
    }
}

/// On an orthogonal board, the parity of the steps a cell `d` moves from
/// an anchor at step `k` cannot be at (those where `|s - k| - d` is odd,
/// i.e. `s + k + d` is).
fn odd_gap_parity(k: usize, d: usize) -> usize {
    (k + d + 1) % 2
}

/// Rules out the steps of `parity` (from step 1 on).
fn ban_parity(ok: &mut [bool], parity: usize) {
    let first = if parity == 1 { 1 } else { 2 };
    ok.iter_mut()
        .skip(first)
        .step_by(2)
        .for_each(|a| *a = false);
}

/// Whether a cell `d` moves from an anchor at step `k` (`None`: it
/// cannot reach it) can be at step `s` ([`keep_distance`]).
pub(super) fn in_reach(s: usize, k: usize, d: Option<usize>, bipartite: bool) -> bool {
    let gap = s.abs_diff(k);
    // The anchor's own cell is at the anchor's step only.
    d.is_some_and(|d| gap >= d && (d > 0 || gap == 0) && !(bipartite && (gap - d) % 2 == 1))
}

/// [`windows`] narrowed by what the board's cuts of one or two cells
/// leave ([`cut_windows`]), for the `distance` extra (the SMV models).
/// Not in the bounded model checker's rank model: there the narrower
/// windows change its 15x15 CNFs a little and move the search about
/// as any such change does (fresh sparse hidato 15x15, CPU s, `--jobs 1
/// --count 2`: one of 14 puzzles 1.7 -> 8.6 s, others ±30%), while a
/// cut that refutes the board does so through [`no_path`] already.
pub(super) fn cut_narrowed_windows(p: &Puzzle) -> Vec<Vec<bool>> {
    let (adj, anchors) = (adjacency(p), anchors(p));
    let mut ok = windows_with(p, &adj, &anchors);
    cut_windows(cuts::cuts(p), &anchors, &mut ok);
    ok
}

/// Narrows the windows `ok` by what each cut of one or two cells leaves
/// ([`cuts::fit`]); empties them all when a cut leaves no path. Each cut
/// is looked at once, in the order [`cuts::cuts`] finds them, with the
/// windows the cuts before it left.
fn cut_windows(cuts: Vec<Cut>, anchors: &[(usize, CellId)], ok: &mut [Vec<bool>]) {
    let n = ok.len();
    for cut in cuts {
        // A cell whose window was not worked out (`windows_of`) allows
        // every step: a cut asks for its own cells' only.
        let windowed = |c: CellId, s: usize| ok[c.index()].get(s).copied().unwrap_or(true);
        let known = Known {
            n,
            anchors,
            ok: Some(&windowed),
        };
        let Some(fit) = cuts::fit(&cut, &known) else {
            ok.iter_mut().for_each(|w| w.fill(false));
            return;
        };
        for (c, steps) in ok.iter_mut().enumerate() {
            let left = match cut.cells.iter().position(|x| x.index() == c) {
                Some(i) => &fit.cells[i],
                None => &fit.parts[cut.part_of(CellId(c as u32)) as usize],
            };
            steps.iter_mut().zip(left).for_each(|(s, &l)| *s &= l);
        }
    }
}

/// The steps the puzzle fixes, as (step, cell): the given numbers, or the
/// first and last waypoint (the others fix only an order).
pub(super) fn anchors(p: &Puzzle) -> Vec<(usize, CellId)> {
    match p.variant {
        Variant::Waypoint => [
            p.start().map(|c| (1, c)),
            p.end().map(|c| (p.open_count(), c)),
        ]
        .into_iter()
        .flatten()
        .collect(),
        _ => p
            .givens()
            .into_iter()
            .map(|(k, c)| (k as usize, c))
            .collect(),
    }
}

/// The chessboard colour of a cell: 0 on the colour of the top-left
/// corner ("light"), 1 on the other.
pub(super) fn colour(p: &Puzzle, c: CellId) -> usize {
    let at = p.coord(c);
    (at.row + at.col) % 2
}

/// The open cells of each colour: (light, dark).
pub(super) fn colour_counts(p: &Puzzle) -> (usize, usize) {
    let n = p.open_count();
    let light = (0..n).filter(|&c| colour(p, CellId(c as u32)) == 0).count();
    (light, n - light)
}

/// The colour the counts `(light, dark)` put on the odd steps of every
/// path: `Some` when one colour has a cell more, `None` when they are
/// equal (the path's start decides); an error when they differ by more
/// than one (no path).
pub(super) fn odd_colour((light, dark): (usize, usize)) -> Result<Option<usize>, ()> {
    match light.cmp(&dark) {
        _ if light.abs_diff(dark) > 1 => Err(()),
        std::cmp::Ordering::Equal => Ok(None),
        std::cmp::Ordering::Greater => Ok(Some(0)),
        std::cmp::Ordering::Less => Ok(Some(1)),
    }
}

/// On an orthogonal grid every move changes the colour of the
/// checkerboard, so a path over all `n` open cells puts one colour on the
/// odd steps (`⌈n/2⌉` of them) and the other on the even ones. With one
/// colour a cell more than the other, that colour holds the odd steps;
/// with more than one more, there is no path at all (every window is
/// emptied). A counting fact the SAT solver cannot find by itself: on a
/// 10x10 numbrix without numbers and two corners of one colour blocked,
/// neither model decided `unsat` within 20 s; with it, the windows do at
/// once.
fn colour_parity(p: &Puzzle, ok: &mut [Vec<bool>]) {
    let odd = match odd_colour(colour_counts(p)) {
        Ok(None) => return,
        Ok(Some(o)) => Some(o),
        Err(_) => None,
    };
    for (c, steps) in ok.iter_mut().enumerate() {
        let colour = colour(p, CellId(c as u32));
        for (s, allowed) in steps.iter_mut().enumerate().skip(1) {
            // The colour on the odd steps; none when no path exists.
            let on_odd = odd.is_some_and(|o| (colour == o) == (s % 2 == 1));
            *allowed &= on_odd;
        }
    }
}

/// Waypoint `k` comes after the walk through waypoints `1..k`, each leg
/// at least as long as the distance between its ends, and before the
/// legs to the last one: its step lies in `1 + Σ before ..= n - Σ after`.
fn waypoint_windows(p: &Puzzle, adj: &[Vec<CellId>], ok: &mut [Vec<bool>]) {
    let n = p.open_count();
    let givens = p.givens();
    let legs = gaps(p, adj, &givens);
    let total: usize = legs.iter().sum();
    let mut before = 0;
    for (i, &(_, c)) in givens.iter().enumerate() {
        let lo = 1 + before;
        let hi = n.saturating_sub(total - before);
        for (s, allowed) in ok[c.index()].iter_mut().enumerate() {
            if s < lo || s > hi {
                *allowed = false;
            }
        }
        before += legs.get(i).copied().unwrap_or(0);
    }
}

fn cell(c: CellId) -> Expr {
    Expr::int(c.0 as i64)
}

/// `distance`: a cell `d` moves from a given number `k` is not visited at
/// a step closer than `d` to `k`, nor (waypoint) closer to the start or
/// the end than its distance to them, and on orthogonal grids only at
/// steps of the right parity, nor at a step the board's cuts of one or
/// two cells rule out: `pos = c -> !(step in {…})`. Numbered cells of
/// numbrix/hidato are pinned by the core model already.
pub fn distance(p: &Puzzle, v: &GridVars, sys: &mut System) {
    for (c, allowed) in cut_narrowed_windows(p).iter().enumerate() {
        ban_steps(p, v, sys, CellId(c as u32), allowed, "distance");
    }
}

/// `cut-steps`: the steps the board's cuts of one or two cells rule out
/// for a cell beyond its distance windows (which the engine's domain analysis
/// finds by itself from the model), `pos = c -> !(step in {…})`; a board
/// with no such cut gets nothing. Why: a random 3x33 hidato with two
/// numbers and a two-cell neck (`gen-random-board.py hidato 3 33 7 2 3`)
/// has no path, which the step model refuted in 8.6k conflicts (3 s) and
/// the rank model not in 30 s; with these it is `unsat` at 0 conflicts.
pub fn cut_steps(p: &Puzzle, v: &GridVars, sys: &mut System) {
    let adj = adjacency(p);
    let cuts = cuts::cuts(p);
    if cuts.is_empty() {
        return; // and no windows to work out
    }
    let anchors = anchors(p);
    // The cells `ban_steps` bans, and those a cut asks the windows of:
    // its own ([`Known::ok`]).
    let mut wanted: Vec<bool> = (0..p.open_count())
        .map(|c| bannable(p, CellId(c as u32)))
        .collect();
    cuts.iter()
        .flat_map(|cut| &cut.cells)
        .for_each(|c| wanted[c.index()] = true);
    let plain = windows_of(p, &adj, &anchors, &wanted);
    let mut cut = plain.clone();
    cut_windows(cuts, &anchors, &mut cut);
    for (c, (cut, plain)) in cut.iter().zip(&plain).enumerate() {
        if cut != plain {
            ban_steps(p, v, sys, CellId(c as u32), cut, "cut-steps");
        }
    }
}

/// `pos = c -> !(step in {…})` over the steps `allowed` rules out for
/// cell `c`, or `pos = c -> step in {…}` over those it leaves when they
/// are fewer (the same constraint, `step` being `1..n`; a short window
/// is a short set, which the domain analysis reads once per step:
/// numbrix-9x9-s1 -4.1% instructions, numbrix-15x15-s1 -8.2%, the same
/// CNFs); nothing when it rules out none, or for a numbered cell of
/// numbrix/hidato (the core model pins it); labelled by `extra`.
fn ban_steps(p: &Puzzle, v: &GridVars, sys: &mut System, c: CellId, allowed: &[bool], extra: &str) {
    if !bannable(p, c) {
        return;
    }
    let banned = allowed[1..].iter().filter(|&&a| !a).count();
    if banned == 0 {
        return;
    }
    let kept = allowed.len() - 1 - banned;
    // Which steps the set lists: the allowed ones, or the banned ones.
    let keep = kept > 0 && kept < banned;
    let set = (1..allowed.len())
        .filter(|&s| allowed[s] == keep)
        .map(|s| Expr::int(s as i64))
        .collect();
    let listed = Expr::is_in(Expr::var(v.step), set);
    let then = if keep { listed } else { Expr::negate(listed) };
    sys.invar.push(Constraint {
        label: format!("{extra}: steps cell {} cannot be visited at", c.0),
        expr: Expr::implies(Expr::eq(Expr::var(v.pos), cell(c)), then),
    });
}

/// Whether [`ban_steps`] writes anything for cell `c`: not for a
/// numbered cell of numbrix/hidato (the core model pins it).
fn bannable(p: &Puzzle, c: CellId) -> bool {
    p.variant == Variant::Waypoint || p.number(c).is_none()
}

/// `cover`: once the path is complete every cell has been visited,
/// `step = n -> (visited[0] & visited[1] & ...)` (the core model implies
/// it by counting, which a SAT solver cannot do: with this, a cell left
/// with few possible steps is forced into one of them). One implication,
/// not one per cell: the same clauses, and the domain analysis looks at
/// the premise once per step instead of each of `n` implications
/// (numbrix-9x9-s1 -4.2% instructions, hidato-9x9-unique-s3 -3.6%); it
/// splits the conclusion into one atom per cell under the shared premise
/// (`bmc::domains::model::Group`), so that at the last step a cell's flag
/// is checked against its own conjunct, not the whole (-2.2% and -5.2%).
pub fn cover(p: &Puzzle, v: &GridVars, sys: &mut System) {
    let full = Expr::eq(Expr::var(v.step), int(p.open_count()));
    let all = v.visited.iter().map(|&x| Expr::var(x)).collect();
    invar(
        sys,
        "cover: every cell is visited by the end".into(),
        Expr::implies(full, Expr::And(all)),
    );
}

/// `no-path`: `INVAR FALSE`, with the reason as its label, when the board
/// has no path through every open cell whatever the numbers in between
/// (the arguments are in [`super::no_path`]):
/// * the open cells are not connected;
/// * a cell with one neighbour (or none) can only be an end of the path:
///   more such cells than free ends, or one holding a number that is
///   not an end's, leave no path;
/// * a cell whose removal cuts the board is passed once, between a walk
///   through one part and a walk through the other: three parts or more
///   leave no path, and so do numbers that fit neither order of the two
///   (`cut_conflict`);
/// * two cells whose removal cuts the board are passed once each, with a
///   walk through one part before, between and after them: four parts
///   or more leave no path, and so do part sizes and numbers that fit no
///   way of passing them, or none once the two cells are kept as many
///   steps from each number as they are moves from it
///   (`pair_cut_conflict`, module `grid::cuts`; a 4x40 hidato with a
///   two-cell neck was undecided at 10 s before, `unsat` in 0.08 s with
///   it);
/// * on an orthogonal grid every move changes the colour of the
///   chessboard under the path, so its steps alternate two colours:
///   when the counts of open cells of the two colours differ by more
///   than one no path exists, when they differ by one the odd steps are
///   on the more numerous colour, and when they are equal the colour of
///   one known step (a given number; the first and last waypoint) fixes
///   the colour of every other.
///
/// Any other puzzle gets nothing. Why: a CDCL solver refutes a colour
/// or reachability argument only by exhausting the board. Before this,
/// waypoint 12x12 with the two ends on one colour took 244k conflicts
/// (2.2 s) and 14x14 over 30 s; numbrix and hidato 12x12 without numbers
/// and cut in two by a wall over 30 s (with a number, the domain
/// analysis reaches the other half from it and is done at once).
/// The distance windows (`distance`) have the colour facts too, but cost
/// a search per number.
pub fn no_path(p: &Puzzle, _v: &GridVars, sys: &mut System) {
    add_no_path(p, sys);
}

/// [`no_path`] for a system without the step-by-step variables (the
/// waypoint successor model).
pub(super) fn add_no_path(p: &Puzzle, sys: &mut System) {
    if let Some(why) = super::no_path::reason(p) {
        invar(sys, format!("no path: {why}"), Expr::f());
    }
}

/// The direction name of the move from `a` to the adjacent `b`.
pub(super) fn direction(p: &Puzzle, a: CellId, b: CellId) -> &'static str {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let (x, y) = (p.coord(a), p.coord(b));
    match (y.row.cmp(&x.row), y.col.cmp(&x.col)) {
        (Less, Less) => "nw",
        (Less, Equal) => "n",
        (Less, Greater) => "ne",
        (Equal, Less) => "w",
        (Equal, Equal) => "",
        (Equal, Greater) => "e",
        (Greater, Less) => "sw",
        (Greater, Equal) => "s",
        (Greater, Greater) => "se",
    }
}

/// The value of a `succ_i` variable on the last cell of the path.
pub(super) const END: &str = "end";

/// `succ = dir` for a direction or [`END`] (the symbol shared, see
/// [`Dir::value`]).
pub(super) fn succ_is(succ: VarId, dir: &str) -> Expr {
    match Dir::named(dir) {
        Some(dir) => dir.is(succ),
        None => Expr::eq(Expr::var(succ), Expr::sym(dir)),
    }
}

fn int(i: usize) -> Expr {
    Expr::int(i as i64)
}

pub(super) fn invar(sys: &mut System, label: String, expr: Expr) {
    sys.invar.push(Constraint { label, expr });
}

/// Frozen `rank[i] : 1..n`, one per open cell: the step it is visited at.
pub(super) fn add_ranks(p: &Puzzle, sys: &mut System) -> Vec<VarId> {
    let n = p.open_count();
    let range = Domain::Range {
        lo: 1,
        hi: n as i64,
    };
    sys.add_family("rank", n, range, true)
}

/// `order`: the path as a successor function and a rank. Frozen
/// `rank[i] : 1..n` is the step at which cell `i` is visited and frozen
/// `succ_i` the direction of the move out of it (`end` on the last cell):
/// a move adds one to the rank (numbrix, hidato) or raises it (waypoint);
/// every cell but the first has exactly one predecessor; ranks respect
/// the givens (numbrix/hidato) or the order of the waypoints with the
/// distance between them (waypoint), the distance windows of `distance`;
/// `pos = i <-> rank[i] = step` and `visited[i] <-> rank[i] <= step` tie
/// them to the path.
///
/// This is the Miller–Tucker–Zemlin view of a Hamiltonian path, channelled
/// to the step-by-step one: a SAT solver reasons on both. The successors
/// become the system's [`System::branch_vars`].
///
/// "Raises" says as much as "adds one": `pos = i <-> rank[i] = step` at
/// every step `1..=n` makes the ranks a permutation of `1..=n`; the one
/// cell ranked 1 is the only one without a predecessor, so the moves form
/// one path from it through every cell, and ranks that grow along it take
/// every value in turn. Order-encoded, "raises" is one clause per
/// threshold of `rank[c]` (`succ_c = d & rank[c] >= t -> rank[d] >= t +
/// 1`) where "adds one" is two. On waypoint puzzles that won: 15x15 CNF
/// 24% fewer clauses (the open board of seed 1: 360k -> 274k, with the
/// order comparisons of `bmc::expr` said once per pair of literals),
/// ~30% less time per conflict, conflicts about the same in sum; fresh
/// open 15x15 (`scripts/bench-fresh.sh --blocked 0 -t 10`, seeds 1-36,
/// one run each, before and after one after the other): within 2 s by
/// wall 23 -> 29 of 36, median wall per dozen 0.93/1.07/1.88 ->
/// 0.70/0.74/0.61 s (the misses: 21-26 numbers, 2.8-9.4 s); with `--jobs
/// 1`, 18 -> 26 within 2 s of solving, over 15 s 3 -> 0; 18 blocked,
/// seeds 1-12: median 0.32 -> 0.19 s wall; the bench's waypoint-20x20-s2
/// 16.0 -> 1.8 s CPU, s1 2.9 -> 1.7 s, 9x9 12-21 -> 10-17 ms. Numbrix
/// and hidato keep "adds one": there the givens pin
/// ranks, and "adds one" carries a pinned rank along the path both ways;
/// numbrix 15x15 with 5% numbers, `--jobs 1`, seeds 1-12, with "raises"
/// timed out on all 12 at 10 s, against 4 timeouts with "adds one";
/// hidato 15x15 with 10%, same setting: median over 10 s against 4.1 s.
pub fn path_order(p: &Puzzle, v: &GridVars, sys: &mut System) {
    add_path_order(p, v, sys);
}

/// [`path_order`], returning the `succ_i` variables (indexed by cell).
fn add_path_order(p: &Puzzle, v: &GridVars, sys: &mut System) -> Vec<VarId> {
    let n = p.open_count();
    let cells: Vec<CellId> = (0..n as u32).map(CellId).collect();
    let rank = add_ranks(p, sys);
    let succ: Vec<VarId> = cells
        .iter()
        .map(|&c| {
            let mut dirs: Vec<String> = p
                .neighbours(c)
                .into_iter()
                .map(|d| direction(p, c, d).to_string())
                .collect();
            dirs.push(END.into());
            sys.add_var(format!("succ_{}", c.0), Domain::Enum(dirs), true)
        })
        .collect();
    let r = |c: CellId| Expr::var(rank[c.index()]);
    let goes = |a: CellId, b: CellId| succ_is(succ[a.index()], direction(p, a, b));
    // What a move says of the ranks; see [`path_order`] for why waypoint
    // puzzles only need them to grow.
    let step_up = |c: CellId, d: CellId| match p.variant {
        Variant::Waypoint => (
            format!("order: a move {} -> {} raises the rank", c.0, d.0),
            Expr::lt(r(c), r(d)),
        ),
        Variant::Numbrix | Variant::Hidato => (
            format!("order: a move {} -> {} adds one to the rank", c.0, d.0),
            Expr::eq(r(d), Expr::Add(vec![r(c), Expr::int(1)])),
        ),
    };
    for &c in &cells {
        for d in p.neighbours(c) {
            let (label, rises) = step_up(c, d);
            invar(sys, label, Expr::implies(goes(c, d), rises));
            if c < d {
                invar(
                    sys,
                    format!("order: no move back and forth between {} and {}", c.0, d.0),
                    Expr::negate(Expr::And(vec![goes(c, d), goes(d, c)])),
                );
            }
        }
        invar(
            sys,
            format!("order: only the last cell has no successor ({})", c.0),
            Expr::iff(succ_is(succ[c.index()], END), Expr::eq(r(c), int(n))),
        );
        let preds: Vec<Expr> = p.neighbours(c).into_iter().map(|d| goes(d, c)).collect();
        invar(
            sys,
            format!("order: at most one predecessor ({})", c.0),
            Expr::le(Expr::Count(preds.clone()), Expr::int(1)),
        );
        invar(
            sys,
            format!(
                "order: every cell but the first has a predecessor ({})",
                c.0
            ),
            Expr::implies(
                Expr::lt(Expr::int(1), r(c)),
                Expr::le(Expr::int(1), Expr::Count(preds)),
            ),
        );
    }
    add_rank_givens(p, &rank, sys);
    for (c, allowed) in windows(p).into_iter().enumerate() {
        let steps: Vec<usize> = (1..=n).filter(|&s| allowed[s]).collect();
        let (Some(&lo), Some(&hi)) = (steps.first(), steps.last()) else {
            invar(sys, format!("order: cell {c} is unreachable"), Expr::f());
            continue;
        };
        let x = Expr::var(rank[c]);
        let banned: Vec<Expr> = (lo..=hi).filter(|&s| !allowed[s]).map(int).collect();
        let mut window = vec![Expr::le(int(lo), x.clone()), Expr::le(x.clone(), int(hi))];
        if !banned.is_empty() {
            window.push(Expr::negate(Expr::is_in(x, banned)));
        }
        invar(
            sys,
            format!("order: the steps cell {c} can have"),
            Expr::And(window),
        );
    }
    let step = Expr::var(v.step);
    for &c in &cells {
        invar(
            sys,
            format!("order: pos = {0} <-> rank[{0}] = step", c.0),
            Expr::iff(
                Expr::eq(Expr::var(v.pos), cell(c)),
                Expr::eq(r(c), step.clone()),
            ),
        );
        invar(
            sys,
            format!("order: visited[{0}] <-> rank[{0}] <= step", c.0),
            Expr::iff(
                Expr::var(v.visited[c.index()]),
                Expr::le(r(c), step.clone()),
            ),
        );
    }
    // The successors fix the path: the start's rank is 1 and the ranks
    // grow along the moves, and the ranks fix `pos` and `visited`.
    sys.branch_vars = succ.clone();
    succ
}

/// `by-rank` (adds [`path_order`] if needed): the ranks say what the
/// core model's bookkeeping says, so it goes. `visited[c] <-> rank[c] <=
/// step` defines `visited` (its init and next assignments are dropped),
/// and `pos = c <-> rank[c] = step` puts every cell on the path at one
/// step only (the no-revisit TRANS is dropped), and with the successors
/// it also says where `pos` goes next: the cell ranked `s < n` has a
/// neighbour for successor, ranked `s + 1`, which is `pos` at the next
/// step (the `next(pos)` table is dropped; once solved, `step` stays at
/// `n` and `pos` on the cell ranked `n`, as the table's stutter had it).
/// The paths over `pos` are the same; the bounded model checker, which
/// turns both INVARs into the ranks' own literals, no longer encodes a
/// gate and two channel clauses per cell and step for `next(visited)`, a
/// clause for the TRANS and one per cell and step for `next(pos)`
/// (`rank[c] = s -> rank[d1] = s + 1 | ...`), all implied by the ranks.
/// Only the unrolling of the hidato `count` invariant is left alone (it is
/// not a TRANS; numbrix and waypoint use the TRANS).
pub fn by_rank(p: &Puzzle, v: &GridVars, sys: &mut System) {
    succ_vars(p, v, sys);
    let visited = |a: &crate::ir::Assign| v.visited.contains(&a.var);
    sys.init_assign.retain(|a| !visited(a));
    sys.next_assign.retain(|a| !visited(a) && a.var != v.pos);
    sys.trans
        .retain(|c| !c.label.ends_with(super::compile::NO_REVISIT));
}

/// The `succ_i` variables of [`path_order`], adding it if it is not
/// there yet (so `legs` and `cycles` work alone as well as after `order`).
fn succ_vars(p: &Puzzle, v: &GridVars, sys: &mut System) -> Vec<VarId> {
    let found: Option<Vec<VarId>> = (0..p.open_count())
        .map(|c| sys.var_by_name(&format!("succ_{c}")))
        .collect();
    found.unwrap_or_else(|| add_path_order(p, v, sys))
}

/// `legs` (waypoint puzzles; adds [`path_order`] if needed): the leg
/// each cell lies on. Frozen `leg[i] : 0..m-2` (0-based, `m` waypoints)
/// is the index of the last waypoint visited at or before cell `i`,
/// `m - 2` on the end: a move into waypoint `j + 1` leaves from leg `j`,
/// any other move stays on its leg, waypoint `j` starts leg `j`; a cell
/// lies on leg `j` only if the detour through it fits the slack, i.e.
/// `dist(w_j, i) + dist(i, w_j+1)` is at most the leg's distance plus
/// the moves the other legs' distances leave over.
///
/// The ranks order the waypoints only through absolute steps, which the
/// solver learns late; the legs say which waypoints a stretch of the
/// path runs between without knowing when.
pub fn legs(p: &Puzzle, v: &GridVars, sys: &mut System) {
    let succ = succ_vars(p, v, sys);
    if p.variant == Variant::Waypoint {
        add_legs(p, &Moves::new(p), &succ, sys);
    }
}

/// `cycles` (adds [`path_order`] if needed): the successors never close
/// a short cycle: on an orthogonal grid, the boundary of any polyomino
/// of up to `RING_SQUARES` unit squares between cell centres (lengths
/// 4 to 8: the 2x2 block, the 2x3 ring, ...); with king moves, the
/// triangles of a 2x2 block. The ranks forbid every cycle, but only once
/// the ranks along it are known; these clauses forbid the short ones
/// outright.
pub fn cycles(p: &Puzzle, v: &GridVars, sys: &mut System) {
    let succ = succ_vars(p, v, sys);
    add_cycle_bans(p, &succ, sys);
}

/// The INVARs of [`cycles`] over the successor variables `succ` (by cell).
fn add_cycle_bans(p: &Puzzle, succ: &[VarId], sys: &mut System) {
    let mut ids = String::new();
    let mut bans = Vec::new();
    each_short_cycle(p, succ, sys, |ring, forward, moves| {
        ids.clear();
        for x in ring {
            ids.push(' ');
            x.0.push_to(&mut ids);
        }
        let way = if forward {
            " (one way)"
        } else {
            " (the other way)"
        };
        let all = moves.map(|(a, dir, _)| dir.is(succ[a.index()])).collect();
        bans.push(Constraint {
            label: label!("cycles: no cycle", ids.as_str(), way),
            expr: Expr::negate(Expr::And(all)),
        });
    });
    sys.invar.extend(bans);
}

/// The short cycles of [`cycles`] as cuts of an
/// [`Acyclic`](crate::ir::Acyclic) hint over `succ` (by cell): each its
/// moves as `(cell, value index of the move's direction in the cell's
/// domain)`. For a system that needs them in no INVAR (the successor
/// model, whose ranks forbid every cycle): no expression is built for
/// them. As INVARs they were a quarter of the instructions of `solve` on
/// the 9x9 waypoint bench (built, analysed and encoded one by one, and
/// the same clauses in the end).
pub(super) fn cycle_cuts(p: &Puzzle, succ: &[VarId], sys: &System) -> Vec<Vec<(usize, usize)>> {
    let mut cuts = Vec::new();
    each_short_cycle(p, succ, sys, |_, _, moves| {
        cuts.push(moves.map(|(a, _, value)| (a.index(), value)).collect());
    });
    cuts
}

/// Calls `f(ring, forward, moves)` for each short cycle of [`cycles`]
/// that the successor variables `succ` (by cell) can close: the ring's
/// cells, which way round, and its moves `(from, direction, the value
/// index of the direction in from's domain)`. A move its cell's variable
/// has no value for (out of the end of the successor model) closes none.
fn each_short_cycle(
    p: &Puzzle,
    succ: &[VarId],
    sys: &System,
    mut f: impl FnMut(&[CellId], bool, &mut dyn Iterator<Item = (CellId, Dir, usize)>),
) {
    let values: Vec<[u8; 9]> = succ
        .iter()
        .map(|&s| direction_values(&sys.var(s).domain))
        .collect();
    let id = |r: usize, c: usize| p.cell_id(Coord::new(r, c));
    // Tens of thousands of these on a big board: each shape's directions
    // worked out once, the ring in a reused buffer.
    let mut ring: Vec<CellId> = Vec::with_capacity(8);
    for r in 0..p.rows() {
        for c in 0..p.cols() {
            for shape in Shape::all(p.variant.diagonal()) {
                if r + shape.rows > p.rows() || c + shape.cols > p.cols() {
                    continue;
                }
                ring.clear();
                ring.extend(shape.cells.iter().map_while(|&(dr, dc)| id(r + dr, c + dc)));
                if ring.len() < shape.cells.len() {
                    continue;
                }
                for forward in [true, false] {
                    let moves = shape.moves(&ring, forward);
                    let value = |(a, dir): (CellId, Dir)| values[a.index()][dir.index()];
                    if moves.clone().all(|m| value(m) != u8::MAX) {
                        let mut moves = moves.map(|m| (m.0, m.1, value(m) as usize));
                        f(&ring, forward, &mut moves);
                    }
                }
            }
        }
    }
}

/// The value index of each direction (by [`Dir::index`]) in a `succ_i`
/// domain, `u8::MAX` for a direction it does not have (every one, for a
/// domain that is not an enumeration of directions).
fn direction_values(domain: &Domain) -> [u8; 9] {
    let mut at = [u8::MAX; 9];
    if let Domain::Enum(names) = domain {
        for (v, name) in names.iter().enumerate() {
            if let Some(dir) = Dir::named(name) {
                at[dir.index()] = v as u8;
            }
        }
    }
    at
}

/// A short cycle that [`cycles`] bans wherever it fits on the board: its
/// cells as `(row, col)` offsets, in cycle order, and the direction of
/// each move one way round.
struct Shape {
    cells: Vec<(usize, usize)>,
    /// `dirs[i]` goes from `cells[i]` to the next cell.
    dirs: Vec<Dir>,
    /// The rows and columns it spans.
    rows: usize,
    cols: usize,
}

impl Shape {
    fn new(cells: &[(usize, usize)]) -> Shape {
        let at = |i: usize| {
            let (r, c) = cells[i % cells.len()];
            Coord::new(r, c)
        };
        Shape {
            cells: cells.to_vec(),
            dirs: (0..cells.len())
                .map(|i| Dir::between(at(i), at(i + 1)))
                .collect(),
            rows: cells.iter().map(|x| x.0 + 1).max().unwrap_or(0),
            cols: cells.iter().map(|x| x.1 + 1).max().unwrap_or(0),
        }
    }

    /// The shapes for king moves (the triangles of a 2x2 block) or
    /// orthogonal ones (the rings of [`polyomino_rings`]): the same few
    /// for every board, worked out once.
    fn all(diagonal: bool) -> &'static [Shape] {
        use std::sync::OnceLock;
        static TRIANGLES: OnceLock<Vec<Shape>> = OnceLock::new();
        static RINGS: OnceLock<Vec<Shape>> = OnceLock::new();
        match diagonal {
            true => TRIANGLES.get_or_init(|| {
                [
                    &[(0, 0), (0, 1), (1, 1)][..],
                    &[(0, 0), (1, 1), (1, 0)],
                    &[(0, 0), (0, 1), (1, 0)],
                    &[(0, 1), (1, 1), (1, 0)],
                ]
                .map(Shape::new)
                .into()
            }),
            false => RINGS.get_or_init(|| {
                polyomino_rings(RING_SQUARES)
                    .iter()
                    .map(|r| Shape::new(r))
                    .collect()
            }),
        }
    }

    /// The moves `(from, direction)` around `ring` (this shape's cells
    /// on the board), one way or the other, the `i`-th between the ring's
    /// `i`-th cell and the next.
    fn moves<'a>(
        &'a self,
        ring: &'a [CellId],
        forward: bool,
    ) -> impl Iterator<Item = (CellId, Dir)> + Clone + 'a {
        let k = ring.len();
        self.dirs
            .iter()
            .enumerate()
            .map(move |(i, &dir)| match forward {
                true => (ring[i], dir),
                false => (ring[(i + 1) % k], dir.reverse()),
            })
    }
}

/// The INVARs of [`legs`] over the successor variables `succ` (by cell).
pub(super) fn add_legs(p: &Puzzle, moves: &Moves, succ: &[VarId], sys: &mut System) {
    let n = p.open_count();
    let givens = p.givens();
    let m = givens.len();
    if m < 2 {
        return;
    }
    let adj = adjacency(p);
    let dist: Vec<Vec<Option<usize>>> = givens.iter().map(|&(_, c)| distances(&adj, c)).collect();
    let gap = |j: usize| dist[j][givens[j + 1].1.index()].unwrap_or(n);
    let total: usize = (0..m - 1).map(gap).sum();
    let slack = (n - 1).saturating_sub(total);
    let leg = sys.add_family(
        "leg",
        n,
        Domain::Range {
            lo: 0,
            hi: (m - 2) as i64,
        },
        true,
    );
    // The index in `givens` of a cell's waypoint.
    let mut waypoint: Vec<Option<usize>> = vec![None; n];
    for (j, &(_, c)) in givens.iter().enumerate() {
        waypoint[c.index()] = Some(j);
    }
    let l = |c: CellId| Expr::var(leg[c.index()]);
    let end = p.end();
    for i in 0..n {
        let c = CellId(i as u32);
        match waypoint[i] {
            Some(j) => invar(
                sys,
                label!("legs: waypoint ", givens[j].0, " starts leg ", j.min(m - 2)),
                Expr::eq(l(c), int(j.min(m - 2))),
            ),
            None => {
                let banned: Vec<Expr> = (0..m - 1)
                    .filter(|&j| {
                        let detour = dist[j][i].zip(dist[j + 1][i]).map(|(a, b)| a + b);
                        detour.is_none_or(|d| d > gap(j) + slack)
                    })
                    .map(int)
                    .collect();
                if !banned.is_empty() {
                    invar(
                        sys,
                        label!("legs: the legs cell ", i, " is too far from"),
                        Expr::negate(Expr::is_in(l(c), banned)),
                    );
                }
            }
        }
        if Some(c) == end {
            continue;
        }
        for &(d, dir) in moves.from(c) {
            let (label, then) = match waypoint[d.index()] {
                Some(0) => continue,
                Some(j) => (
                    label!("legs: a move ", i, " -> ", d.0, " leaves leg ", j - 1),
                    Expr::eq(l(c), int(j - 1)),
                ),
                None => (
                    label!("legs: a move ", i, " -> ", d.0, " stays on its leg"),
                    Expr::eq(l(d), l(c)),
                ),
            };
            invar(sys, label, Expr::implies(dir.is(succ[i]), then));
        }
    }
}

/// Ranks of the givens: numbrix/hidato pin them; waypoints come in order,
/// at least their distance apart, from step 1 to step `n`.
fn add_rank_givens(p: &Puzzle, rank: &[VarId], sys: &mut System) {
    let givens = p.givens();
    let r = |c: CellId| Expr::var(rank[c.index()]);
    if p.variant != Variant::Waypoint {
        for &(k, c) in &givens {
            invar(
                sys,
                format!("order: number {k} is the {k}-th cell"),
                Expr::eq(r(c), Expr::int(k as i64)),
            );
        }
        return;
    }
    let gaps = gaps(p, &adjacency(p), &givens);
    for (pair, &gap) in givens.windows(2).zip(&gaps) {
        let ((a, x), (b, y)) = (pair[0], pair[1]);
        invar(
            sys,
            format!("order: waypoint {b} at least {gap} steps after waypoint {a}"),
            Expr::le(Expr::Add(vec![r(x), int(gap)]), r(y)),
        );
    }
}

/// The largest polyominoes whose boundaries [`cycles`] bans: up to 3
/// squares, cycles of length 4, 6 and 8. On 25 fresh 12x12/15x15
/// waypoint puzzles, 1 square (the 2x2 block) left 15x15s that 2 and 3
/// solve; 4 and 5 squares (lengths 10 and 12) gave no fewer conflicts than
/// 3, and more on 12x12 (sums 11k and 14k against 8k).
const RING_SQUARES: usize = 3;

/// The boundary cycles (cells as `(row, col)` offsets, in cycle order) of
/// the polyominoes of 1..=`max` unit squares whose boundary is one simple
/// cycle. A unit square `(r, c)` has the cells `(r, c)`, `(r, c+1)`,
/// `(r+1, c)`, `(r+1, c+1)` at its corners; a move between two cells is on
/// the boundary when exactly one of the two squares beside it is in the
/// polyomino.
fn polyomino_rings(max: usize) -> Vec<Vec<(usize, usize)>> {
    use std::collections::BTreeSet;
    let mut all: BTreeSet<Vec<(usize, usize)>> = BTreeSet::new();
    let mut layer: BTreeSet<Vec<(usize, usize)>> = BTreeSet::from([vec![(0, 0)]]);
    for _ in 0..max {
        all.extend(layer.iter().cloned());
        let mut next = BTreeSet::new();
        for poly in &layer {
            for &(r, c) in poly {
                // Grow in all four directions; shifted so no index is negative.
                for (dr, dc) in [(0i64, 1i64), (1, 0), (0, -1), (-1, 0)] {
                    let mut grown: Vec<(i64, i64)> =
                        poly.iter().map(|&(a, b)| (a as i64, b as i64)).collect();
                    let sq = (r as i64 + dr, c as i64 + dc);
                    if grown.contains(&sq) {
                        continue;
                    }
                    grown.push(sq);
                    let r0 = grown.iter().map(|x| x.0).min().unwrap_or(0);
                    let c0 = grown.iter().map(|x| x.1).min().unwrap_or(0);
                    let mut norm: Vec<(usize, usize)> = grown
                        .iter()
                        .map(|&(a, b)| ((a - r0) as usize, (b - c0) as usize))
                        .collect();
                    norm.sort();
                    next.insert(norm);
                }
            }
        }
        layer = next;
    }
    all.iter().filter_map(|poly| boundary_cycle(poly)).collect()
}

/// The boundary of a polyomino as one cycle of cells, if it is one.
fn boundary_cycle(poly: &[(usize, usize)]) -> Option<Vec<(usize, usize)>> {
    let has = |r: i64, c: i64| r >= 0 && c >= 0 && poly.contains(&(r as usize, c as usize));
    let rows = poly.iter().map(|x| x.0).max()? + 2;
    let cols = poly.iter().map(|x| x.1).max()? + 2;
    let mut edges: Vec<((usize, usize), (usize, usize))> = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            let (ri, ci) = (r as i64, c as i64);
            // (r, c) - (r, c+1): squares above (r-1, c) and below (r, c).
            if c + 1 < cols && has(ri - 1, ci) != has(ri, ci) {
                edges.push(((r, c), (r, c + 1)));
            }
            // (r, c) - (r+1, c): squares left (r, c-1) and right (r, c).
            if r + 1 < rows && has(ri, ci - 1) != has(ri, ci) {
                edges.push(((r, c), (r + 1, c)));
            }
        }
    }
    let next_of = |at: (usize, usize), from: Option<(usize, usize)>| {
        let ends: Vec<(usize, usize)> = edges
            .iter()
            .filter_map(|&(a, b)| (a == at).then_some(b).or((b == at).then_some(a)))
            .collect();
        (ends.len() == 2).then(|| {
            if Some(ends[0]) == from {
                ends[1]
            } else {
                ends[0]
            }
        })
    };
    let start = edges.first()?.0;
    let mut ring = vec![start];
    let mut prev = None;
    let mut at = start;
    loop {
        let nxt = next_of(at, prev)?;
        if nxt == start {
            break;
        }
        ring.push(nxt);
        prev = Some(at);
        at = nxt;
    }
    (ring.len() == edges.len()).then_some(ring)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{compile::compile_model, parse};

    #[test]
    fn windows_keep_distance_and_parity_from_the_givens() {
        // 1x5 numbrix with 3 in the middle: the ends are steps 1 and 5.
        let p = parse::parse("variant: numbrix\n. . 3 . .\n").unwrap();
        let w = windows(&p);
        let steps = |c: usize| (1..=5).filter(|&s| w[c][s]).collect::<Vec<_>>();
        assert_eq!(steps(0), [1, 5]);
        assert_eq!(steps(1), [2, 4]);
        assert_eq!(steps(2), [3]);
    }

    #[test]
    fn windows_of_some_cells_are_theirs_in_all_windows() {
        // Few plain cells (searches from them) and many (from the numbers).
        for text in [
            "variant: hidato\n1 2 3 4\n. 8 . 5\n9 . 7 6\n",
            "variant: numbrix\n1 . . .\n. . . .\n. . . 12\n",
            "variant: numbrix\n. . 3 . .\n. X . X .\n13 . . . 9\n",
        ] {
            let p = parse::parse(text).unwrap();
            let (adj, anchors) = (adjacency(&p), anchors(&p));
            let all = windows_with(&p, &adj, &anchors);
            let n = p.open_count();
            for pick in [
                (0..n)
                    .map(|c| p.number(CellId(c as u32)).is_none())
                    .collect(),
                (0..n).map(|c| c % 3 == 0).collect::<Vec<bool>>(),
            ] {
                let some = windows_of(&p, &adj, &anchors, &pick);
                for c in 0..n {
                    let want: &[bool] = if pick[c] { &all[c] } else { &[] };
                    assert_eq!(some[c], want, "{text}: cell {c}");
                }
            }
        }
    }

    #[test]
    fn keep_distance_rules_out_what_in_reach_does() {
        for len in 0..9 {
            for k in 1..9 {
                for d in [None, Some(0), Some(1), Some(2), Some(3), Some(7)] {
                    for bipartite in [false, true] {
                        let mut ok = vec![true; len];
                        keep_distance(&mut ok, k, d);
                        if let (true, Some(d)) = (bipartite, d) {
                            ban_parity(&mut ok, odd_gap_parity(k, d));
                        }
                        let want: Vec<bool> = (0..len)
                            .map(|s| s == 0 || in_reach(s, k, d, bipartite))
                            .collect();
                        assert_eq!(ok, want, "len {len} k {k} d {d:?} {bipartite}");
                    }
                }
            }
        }
    }

    #[test]
    fn colour_counts_fix_the_parity_or_rule_out_every_path() {
        // 3x3 numbrix, no numbers: 5 cells of the corners' colour, 4 of
        // the other; the corners' colour holds the odd steps.
        let p = parse::parse("variant: numbrix\n. . .\n. . .\n. . .\n").unwrap();
        let w = windows(&p);
        let steps = |c: usize| (1..=9).filter(|&s| w[c][s]).collect::<Vec<_>>();
        assert_eq!(steps(0), [1, 3, 5, 7, 9], "a corner");
        assert_eq!(steps(1), [2, 4, 6, 8], "an edge");
        // Two more of one colour (4x4, two opposite corners blocked): no
        // cell has a step left. Hidato moves diagonally: no colours.
        let text = "X . . .\n. . . .\n. . . .\n. . . X\n";
        let p = parse::parse(&format!("variant: numbrix\n{text}")).unwrap();
        assert!(windows(&p).iter().all(|w| w.iter().all(|&a| !a)));
        let p = parse::parse(&format!("variant: hidato\n{text}")).unwrap();
        assert!(windows(&p).iter().all(|w| w[1..].iter().all(|&a| a)));
    }

    #[test]
    fn extras_keep_the_solutions_of_small_puzzles() {
        for text in [
            "variant: waypoint\n1 . .\n. . .\n. . 2\n",
            "variant: waypoint\n1 . .\n. 3 .\n. . 2\n",
            "variant: waypoint\n. 2 . .\n1 . . 4\n. . 3 .\n",
            "variant: numbrix\n1 . .\n. . .\n. . 9\n",
            "variant: hidato\n. . 1\n. . .\n",
        ] {
            let p = parse::parse(text).unwrap();
            let (plain, _) = compile_model(&p, &CompileOptions::default());
            for names in [
                &["distance"][..],
                &["order"],
                &["cover"],
                &["legs"],
                &["cycles"],
                &["order", "legs", "cycles", "cover"],
                &["distance", "order", "cover"],
                &["distance", "legs", "cover"],
                &["by-rank"],
                &["no-path"],
                &["order", "legs", "cycles", "by-rank", "cover"],
            ] {
                let (strong, _) = compile_model(&p, &options(names).unwrap());
                let count = |sys: &System| {
                    crate::bmc::solve(
                        sys,
                        &crate::bmc::BmcOptions {
                            count: Some(0),
                            ..Default::default()
                        },
                    )
                    .unwrap()
                    .found()
                };
                assert_eq!(count(&plain), count(&strong), "{names:?} on {text}");
            }
        }
    }

    #[test]
    fn the_engines_models_stutter_only_when_asked() {
        // Every step model: the same solutions at the exact bound with or
        // without stuttering, and some two frames past it when asked to
        // stutter. Without, the first numbrix model, which only moves
        // `pos` by `next(pos)`, has none there (the models with ranks
        // also tie `pos` to the saturating `step`, which stays put).
        for (text, models, moving) in [
            ("variant: numbrix\n1 . .\n. . .\n. . 9\n", 0..2, Some(0)),
            ("variant: waypoint\n1 . .\n. . .\n. . 2\n", 1..2, None),
        ] {
            let p = parse::parse(text).unwrap();
            let exact = p.open_count() - 1;
            for i in models {
                let solve = |m: SatModel, k: usize| {
                    let sys = m.compile(&p);
                    let opts = crate::bmc::BmcOptions {
                        bound: Some(k),
                        count: Some(0),
                        ..Default::default()
                    };
                    crate::bmc::solve(&sys, &opts).unwrap().found()
                };
                let model = || sat_models(&p).swap_remove(i);
                let what = format!("model {i} of {text}");
                assert!(solve(model(), exact) > 0, "{what}");
                let stutters = solve(model().stuttering(), exact);
                assert_eq!(solve(model(), exact), stutters, "{what}");
                assert!(solve(model().stuttering(), exact + 2) > 0, "{what}");
                if moving == Some(i) {
                    assert_eq!(solve(model(), exact + 2), 0, "{what}");
                }
            }
        }
    }

    #[test]
    fn the_successor_models_cuts_are_the_cycles_the_bans_forbid() {
        for text in [
            "variant: waypoint\n1 . . .\n. . . .\n. . X .\n. . . 2\n",
            "variant: waypoint\n. 2 . .\n1 . . 4\n. . 3 .\n",
        ] {
            let p = parse::parse(text).unwrap();
            let sys = crate::grid::successor::compile(&p).unwrap();
            let hint = &sys.acyclic[0];
            // As many as the INVARs of `cycles` over the same variables.
            let mut banned = sys.clone();
            add_cycle_bans(&p, &hint.succ, &mut banned);
            assert_eq!(banned.invar.len() - sys.invar.len(), hint.cuts.len());
            // Each takes its nodes round one cycle.
            for cut in &hint.cuts {
                let mut to: Vec<usize> = cut
                    .iter()
                    .map(|&(i, v)| hint.target[i][v].unwrap())
                    .collect();
                let mut from: Vec<usize> = cut.iter().map(|&(i, _)| i).collect();
                to.sort_unstable();
                from.sort_unstable();
                from.dedup();
                assert_eq!((from.len(), &to), (cut.len(), &from), "{cut:?}");
            }
        }
    }

    #[test]
    fn polyomino_boundaries_are_the_short_cycles() {
        // 1 monomino (4 cells), 2 dominoes (6), 6 trominoes (8) and the
        // 19 fixed tetrominoes (8 for the square one, 10 for the others).
        let rings = polyomino_rings(4);
        let lengths = |k: usize| rings.iter().filter(|r| r.len() == k).count();
        assert_eq!(
            (rings.len(), lengths(4), lengths(6), lengths(8), lengths(10)),
            (28, 1, 2, 7, 18)
        );
        assert_eq!(polyomino_rings(1), [vec![(0, 0), (0, 1), (1, 1), (1, 0)]]);
        for ring in &rings {
            for (i, &(r, c)) in ring.iter().enumerate() {
                let (r2, c2) = ring[(i + 1) % ring.len()];
                assert_eq!(r.abs_diff(r2) + c.abs_diff(c2), 1, "{ring:?}");
            }
        }
    }

    #[test]
    fn unknown_names_are_refused() {
        assert_eq!(options(&["magic"]), Err(UnknownExtra("magic".into())));
        assert_eq!(options(&["order"]).unwrap().extras.len(), 1);
    }

    #[test]
    fn direction_names() {
        let p = parse::parse("variant: hidato\n1 . .\n. . .\n").unwrap();
        let id = |r, c| p.cell_id(crate::grid::Coord::new(r, c)).unwrap();
        assert_eq!(direction(&p, id(0, 0), id(0, 1)), "e");
        assert_eq!(direction(&p, id(1, 1), id(0, 0)), "nw");
        assert_eq!(direction(&p, id(0, 2), id(1, 2)), "s");
    }
}
