//! The built-in bounded model checker: unroll the IR into CNF, solve it
//! with an embedded SAT solver, and read the model back as a [`Trace`].
//!
//! Input: a [`System`] (the IR, nothing else: no frontend-specific side
//! door) and [`BmcOptions`]. Output: a [`BmcResult`] whose traces have all
//! passed [`System::check`] (a trace that does not is an engine bug and is
//! reported as [`BmcError::Verify`], never returned); or the DIMACS text of
//! the unrolling ([`dimacs`]), with comment lines that map SAT variables to
//! `name@step=value` so any outside solver's model can be decoded
//! ([`decode_dimacs_model`]).
//!
//! How it searches:
//! * when the bound `k` is known ([`BmcOptions::bound`], else
//!   [`System::bound`]) it encodes frames `0..=k`, asserts the goal at `k`
//!   and solves once: no model means [`Status::Unsat`]; but when the
//!   static domain pruning ([`BmcOptions::prune`]) leaves every variable
//!   one value at every step and that path passes the IR check, it is the
//!   only solution and nothing is encoded or solved
//!   ([`BmcResult::solves`] is 0);
//! * otherwise it adds frames one at a time and solves with "goal at `k`"
//!   as an assumption for `k = 0, 1, 2, …`, so the answer has the shortest
//!   length; past [`BmcOptions::max_bound`] it gives up with
//!   [`Status::Unknown`];
//! * counting blocks each solution on [`System::solution_vars`] (every
//!   variable when empty) at every step and solves again, at the same
//!   bound;
//! * with [`BmcOptions::jobs`] above 1, a search still running after a
//!   quarter of a second is joined by differently seeded ones on other
//!   threads, and the first answer wins (`race`); with one job, the
//!   searches of a system and its fallbacks ([`solve_racing`]) take
//!   turns on the one core, each paused between its turns (`turns`);
//! * a system with an [`System::acyclic`] hint is unrolled without the
//!   hint's INVARs (with [`BmcOptions::lazy`], the default): a model whose
//!   successors close a cycle gets clauses that cut it off and is solved
//!   again, one without gets ranks of the engine's own and is checked
//!   against the whole system (`lazy`); [`dimacs`] writes the whole
//!   system, INVARs and all.
//!
//! Steps are 0-based (state `i` of a trace is step `i`; a bound `k` means
//! `k` transitions and `k + 1` states).

mod analyse;
mod cnf;
mod domains;
mod expr;
mod fold;
mod lazy;
mod program;
mod race;
mod solver;
mod turns;
mod unroll;
mod value_alias;

#[cfg(test)]
mod tests;

use std::fmt;
use std::rc::Rc;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, SyncSender};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use rustsat::types::Lit;
use serde::Serialize;
use thiserror::Error;

pub use cnf::{decode_dimacs_model, read_solver_output};

use crate::ir::{EvalError, System, Trace, VarId};
use cnf::ClauseLog;
use solver::{Answer, Backend, Watch};
use unroll::Unroller;

/// The embedded SAT solver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SolverKind {
    /// BatSat, pure Rust; always built in.
    #[default]
    Batsat,
    /// CaDiCaL; built in with the cargo feature `cadical`.
    Cadical,
}

impl SolverKind {
    /// Whether this solver is compiled into this build.
    pub fn available(self) -> bool {
        match self {
            SolverKind::Batsat => true,
            SolverKind::Cadical => cfg!(feature = "cadical"),
        }
    }
}

impl fmt::Display for SolverKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SolverKind::Batsat => "batsat",
            SolverKind::Cadical => "cadical",
        })
    }
}

impl FromStr for SolverKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "batsat" => Ok(SolverKind::Batsat),
            "cadical" => Ok(SolverKind::Cadical),
            _ => Err(format!(
                "unknown SAT solver `{s}` (expected batsat or cadical)"
            )),
        }
    }
}

/// How a finite-domain (non-boolean) variable becomes SAT variables.
/// Booleans are always one SAT variable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    /// One SAT variable per value, exactly one true (at-most-one pairwise
    /// up to 6 values, else by a ladder of auxiliary variables).
    OneHot,
    /// `x ≥ v` for every value but the first (a chain of implications);
    /// `x = v` is a two-literal conjunction.
    Order,
    /// The value's index in binary, codes past the domain forbidden;
    /// `x = v` is a conjunction of all bits.
    Log,
    /// Per variable: order for the variables compared with `<`/`≤`,
    /// one-hot for the others. The default: it won on the grid benchmark
    /// (see `scripts/bench-grid.sh`).
    #[default]
    Auto,
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Encoding::OneHot => "onehot",
            Encoding::Order => "order",
            Encoding::Log => "log",
            Encoding::Auto => "auto",
        })
    }
}

impl FromStr for Encoding {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "onehot" | "one-hot" => Ok(Encoding::OneHot),
            "order" => Ok(Encoding::Order),
            "log" => Ok(Encoding::Log),
            "auto" => Ok(Encoding::Auto),
            _ => Err(format!(
                "unknown encoding `{s}` (expected onehot, order, log or auto)"
            )),
        }
    }
}

/// Receives [`Progress`] events; called on the solving thread.
pub type ProgressFn = Arc<dyn Fn(&Progress) + Send + Sync>;

/// What the engine is doing when it reports progress.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Phase {
    /// Frames up to `bound` have been encoded.
    #[default]
    Encoded,
    /// A solve at `bound` is running (reported every half second).
    Solving,
    /// A solve at `bound` has answered.
    Answered,
}

/// One progress event; its `Display` is a one-line summary for stderr.
#[derive(Clone, Copy, Debug, Default)]
pub struct Progress {
    pub phase: Phase,
    pub bound: usize,
    pub vars: usize,
    pub clauses: usize,
    /// Solver calls so far.
    pub solves: usize,
    /// Solutions found so far.
    pub found: usize,
    /// Time in the current solve (when solving).
    pub solve_elapsed: Duration,
    /// Time since the engine started.
    pub elapsed: Duration,
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bmc: bound {}, {} vars, {} clauses",
            self.bound, self.vars, self.clauses
        )?;
        if self.phase == Phase::Solving {
            write!(f, ", solving for {:.1} s", self.solve_elapsed.as_secs_f64())?;
        }
        if self.found > 0 {
            write!(f, ", {} found", self.found)?;
        }
        write!(f, ", {:.1} s", self.elapsed.as_secs_f64())
    }
}

/// Options of [`solve`].
#[derive(Clone)]
pub struct BmcOptions {
    /// Solve at exactly this bound; `None` uses [`System::bound`], and if
    /// that is unknown too, searches for the shortest bound.
    pub bound: Option<usize>,
    /// The largest bound tried by the search (when no bound is known).
    pub max_bound: usize,
    /// `None`: stop at the first solution. `Some(n)`, `n ≥ 1`: look for up
    /// to `n` solutions (`Some(2)` decides uniqueness). `Some(0)`: all of
    /// them, up to `count_cap`.
    pub count: Option<usize>,
    /// The most solutions `Some(0)` enumerates.
    pub count_cap: usize,
    /// The most traces [`BmcResult::traces`] keeps: the first ones found.
    /// Later solutions are still checked, blocked and counted
    /// ([`BmcResult::found`]), then dropped, so counting thousands of
    /// long paths does not hold them all (9x9 waypoint: ~0.7 MB each).
    /// Default: all.
    pub keep: usize,
    pub solver: SolverKind,
    pub encoding: Encoding,
    /// Give up (status unknown, or fewer solutions than asked) after this
    /// long; checked inside running solves too.
    pub timeout: Option<Duration>,
    /// Set this flag from another thread (e.g. on Ctrl-C) to stop.
    pub interrupt: Option<Arc<AtomicBool>>,
    pub progress: Option<ProgressFn>,
    /// At a known bound, encode only the values each variable can have
    /// there (static domain pruning, see `domains`). Default `true`.
    pub prune: bool,
    /// Give up (status unknown, [`Limit::Conflicts`]) once the SAT solver
    /// has met this many conflicts in all: a budget for trying a model
    /// that is cheap when it works before a sturdier one.
    pub conflict_limit: Option<u64>,
    /// The SAT solver's random seed: 0 (the default) keeps its own
    /// defaults, others randomise where its search starts.
    pub seed: u32,
    /// How many searches may race (the `race` module): `1` (the default)
    /// searches once; with more, a search still running after a quarter
    /// of a second is joined by others seeded `seed + 1`, `seed + 2`, …,
    /// and the first to answer wins. Only when one or two solutions are asked for (no
    /// `count`, or `Some(1)`, `Some(2)`): counting more is one long
    /// enumeration whatever the seed, and racing it would only double
    /// its time and memory. Never with a [`BmcOptions::conflict_limit`]
    /// (a cheap first try; see the `race` module). `0`: one per core, at
    /// most [`AUTO_JOBS`], counted only when the others are due to join
    /// (counting the cores reads cgroup files: ~0.05 ms, which a short
    /// solve need not pay). Counting more than two solutions with two
    /// jobs or more, the paths are checked on a second thread (see
    /// `Search::enumerate`).
    pub jobs: usize,
    /// Leave out the INVARs of the system's [`System::acyclic`] hint and
    /// cut off the cycles of each model as they show up (the `lazy`
    /// module). Default `true`; without a hint it changes nothing.
    pub lazy: bool,
    /// With one job and fallbacks ([`solve_racing`]), the first turn by
    /// time of each search (the `turns` module): later rounds get the
    /// same, then twice that, and so on. Default [`TURN`].
    pub turn: Duration,
}

/// [`BmcOptions::turn`] by default: longer than most puzzles take with
/// the model that answers them (a search that answers within its first
/// turn is not slowed by the others), short enough that a board only
/// one model decides waits for the others a few seconds at first.
pub const TURN: Duration = Duration::from_secs(2);

impl Default for BmcOptions {
    fn default() -> Self {
        BmcOptions {
            bound: None,
            max_bound: 1000,
            count: None,
            count_cap: 10_000,
            keep: usize::MAX,
            solver: SolverKind::default(),
            encoding: Encoding::default(),
            timeout: None,
            interrupt: None,
            progress: None,
            prune: true,
            conflict_limit: None,
            seed: 0,
            jobs: 1,
            lazy: true,
            turn: TURN,
        }
    }
}

impl fmt::Debug for BmcOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BmcOptions")
            .field("bound", &self.bound)
            .field("max_bound", &self.max_bound)
            .field("count", &self.count)
            .field("count_cap", &self.count_cap)
            .field("keep", &self.keep)
            .field("solver", &self.solver)
            .field("encoding", &self.encoding)
            .field("timeout", &self.timeout)
            .field("interrupt", &self.interrupt.is_some())
            .field("progress", &self.progress.is_some())
            .field("prune", &self.prune)
            .field("conflict_limit", &self.conflict_limit)
            .field("seed", &self.seed)
            .field("jobs", &self.jobs)
            .field("lazy", &self.lazy)
            .field("turn", &self.turn)
            .finish()
    }
}

/// The verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// At least one solution was found (and verified).
    Solved,
    /// No solution exists at the exact bound.
    Unsat,
    /// A limit was reached before an answer: see [`BmcResult::limit`].
    Unknown,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Solved => "solved",
            Status::Unsat => "unsat",
            Status::Unknown => "unknown",
        })
    }
}

/// The limit that ended a search early.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Limit {
    Timeout,
    Interrupted,
    /// No solution up to this bound (the search bound was unknown).
    MaxBound(usize),
    /// Counting stopped at this many solutions.
    CountCap(usize),
    /// The solver met this many conflicts ([`BmcOptions::conflict_limit`]).
    Conflicts(u64),
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Timeout => f.write_str("timeout"),
            Limit::Interrupted => f.write_str("interrupted"),
            Limit::MaxBound(k) => write!(f, "no solution up to bound {k}"),
            Limit::CountCap(n) => write!(f, "stopped counting at {n} solutions"),
            Limit::Conflicts(n) => write!(f, "stopped at the conflict limit ({n})"),
        }
    }
}

/// The answer of [`solve`].
#[derive(Clone, Debug)]
pub struct BmcResult {
    pub status: Status,
    /// The first solutions found (at most [`BmcOptions::keep`]), in the
    /// order found; like every solution counted, each verified by
    /// [`System::check`] and pairwise different on the solution variables.
    pub traces: Vec<Trace>,
    /// How many solutions were found (the kept ones and the dropped).
    pub solutions: usize,
    /// Every solution at this bound has been found (the last solve, with
    /// all found ones blocked, was unsatisfiable).
    pub exhausted: bool,
    /// `Some(true)`: exactly one solution exists; `Some(false)`: at least
    /// two; `None`: not decided (counting not asked for, or stopped).
    pub unique: Option<bool>,
    /// The bound of the answer: the solutions' length in transitions, the
    /// exact bound that was refuted, or the last bound tried.
    pub bound: usize,
    /// Whether the bound was given (options or system) rather than searched.
    pub bound_given: bool,
    /// Why the search stopped early, if it did.
    pub limit: Option<Limit>,
    pub vars: usize,
    pub clauses: usize,
    pub solves: usize,
    /// Conflicts of the SAT solver (effort independent of machine load).
    pub conflicts: u64,
    /// Time until the first solution was verified.
    pub time_to_first: Option<Duration>,
    pub time: Duration,
    /// Where [`BmcResult::time`] went.
    pub phases: Phases,
    pub solver: SolverKind,
    pub encoding: Encoding,
    /// The system's branching hint left a model incomplete, so this is
    /// the answer of a second search, without the hint (see [`solve`]).
    pub hint_fallback: bool,
    /// The seed of the search that answered ([`BmcOptions::seed`], plus
    /// its place in a race).
    pub seed: u32,
    /// How many searches ran ([`BmcOptions::jobs`]; 1 unless they raced
    /// or took turns).
    pub searches: usize,
    /// Which system the answer is of: 0 the one given, `i` the `i`-th
    /// fallback of [`solve_racing`].
    pub system: usize,
    /// How many turns the searches took on one core (the `turns` module,
    /// [`BmcOptions::turn`]); 0 when they did not take turns. A search
    /// that was paused counts the time it waited in its
    /// [`BmcResult::phases`] (as solving).
    pub turns: u32,
    /// Cut clauses added for models with a cycle ([`BmcOptions::lazy`]).
    pub cuts: usize,
}

/// Wall-clock time per phase of one [`solve`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Phases {
    /// Static domain pruning ([`BmcOptions::prune`]).
    pub analyse: Duration,
    /// Unrolling into clauses (frames, goal, blocking clauses).
    pub encode: Duration,
    /// Inside the SAT solver.
    pub solve: Duration,
    /// Reading traces from models and checking them with [`System::check`]
    /// (when counting on two cores, the checks' own time on their thread;
    /// see `Search::enumerate`).
    pub verify: Duration,
    /// Of [`Phases::solve`], the part spent up to the first solution, and
    /// the solver's conflicts by then (the rest went to further solutions
    /// or to proving there are none: uniqueness). Zero without a solution.
    pub first_solve: Duration,
    /// The solver's conflicts up to the first solution.
    pub first_conflicts: u64,
}

impl fmt::Display for Phases {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        write!(
            f,
            "analyse {:.2} ms, encode {:.2} ms, solve {:.2} ms (to the first solution {:.2} ms, {} conflicts), verify {:.2} ms",
            ms(self.analyse),
            ms(self.encode),
            ms(self.solve),
            ms(self.first_solve),
            self.first_conflicts,
            ms(self.verify)
        )
    }
}

/// A model's value of a SAT variable, an unassigned one read as false.
fn lenient(value: Result<bool, BmcError>) -> Result<bool, BmcError> {
    match value {
        Err(BmcError::Unassigned(_)) => Ok(false),
        v => v,
    }
}

/// Runs `f` and adds its wall-clock time to `slot`.
fn timed<T>(slot: &mut Duration, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    *slot += start.elapsed();
    out
}

impl BmcResult {
    /// Number of solutions found.
    pub fn found(&self) -> usize {
        self.solutions
    }

    /// The answer of a search of `system` (of a race or of turns) that
    /// started `offset` after the race or turns did, with its times
    /// counted from their start.
    fn of_search(mut self, offset: Duration, system: usize) -> BmcResult {
        self.time += offset;
        self.time_to_first = self.time_to_first.map(|t| t + offset);
        self.system = system;
        self
    }
}

/// What can go wrong in the engine.
#[derive(Debug, Error)]
pub enum BmcError {
    #[error("step {step}: cannot encode {what}: {why}")]
    Encode {
        step: usize,
        what: String,
        why: String,
    },
    #[error("the SAT solver failed: {0}")]
    Solver(String),
    #[error("SAT solver `{0}` is not built in (rebuild checkmate with `--features {0}`)")]
    SolverUnavailable(SolverKind),
    #[error("state {step}: cannot decode `{var}` from the model: {why}")]
    Decode {
        step: usize,
        var: String,
        why: String,
    },
    #[error("engine bug: the trace found at bound {bound} is not a solution: {source}")]
    Verify {
        bound: usize,
        #[source]
        source: EvalError,
    },
    #[error("DIMACS line {line}: {why}")]
    Dimacs { line: usize, why: String },
    /// A model left a SAT variable the decoder reads unassigned (only
    /// under a branching hint; [`solve`] then searches again without it).
    #[error("engine bug: the model leaves SAT variable {0} unassigned")]
    Unassigned(u32),
}

/// Solves `sys` with the embedded bounded model checker (see the module
/// documentation for how it searches).
///
/// With BatSat and a [`System::branch_vars`] hint, the solver branches on
/// those variables only; should a model leave a variable the decoder
/// reads unassigned (the hint was wrong for this system), the search
/// starts over without the hint, under the same deadline
/// ([`BmcResult::hint_fallback`]). The hint never decides an answer: a
/// trace is still checked against the system, and an unsatisfiable CNF
/// is unsatisfiable whatever the solver branched on.
///
/// With [`BmcOptions::jobs`] above 1 (at most two solutions asked for,
/// no conflict budget), searches race (the `race` module): the answer is
/// one of theirs, so on a puzzle with several solutions which path comes
/// back may vary from run to run (the verdict does not).
pub fn solve(sys: &System, opts: &BmcOptions) -> Result<BmcResult, BmcError> {
    if races(opts) {
        race::race(sys, &[], None, None, opts, race::Join::after(race::DELAY))
    } else {
        solve_one(sys, opts, None)
    }
}

/// Whether [`solve`] races searches with these options.
pub fn races(opts: &BmcOptions) -> bool {
    opts.jobs != 1 && shares(opts)
}

/// Whether [`solve_racing`] has the searches of a system and its
/// fallbacks take turns on one core (the `turns` module) with these
/// options: one job, otherwise as [`races`].
pub fn takes_turns(opts: &BmcOptions) -> bool {
    opts.jobs == 1 && shares(opts)
}

/// Whether several searches may share the work of one solve: at most two
/// solutions asked for, and no conflict budget. Then [`solve_racing`]
/// races them ([`races`]) or, with one job, has them take turns
/// ([`takes_turns`]).
pub fn shares(opts: &BmcOptions) -> bool {
    few(opts) && opts.conflict_limit.is_none()
}

/// Whether at most two solutions are asked for (none, or `--count` 1 or
/// 2): finding them is the work, not checking them.
fn few(opts: &BmcOptions) -> bool {
    opts.count.is_none_or(|n| (1..=2).contains(&n))
}

/// Whether a search checks the paths it counts on a thread of its own
/// ([`Search::enumerate`]): when more than two solutions are asked for
/// (one long search, never raced) and the jobs leave a second core.
fn checks_aside(opts: &BmcOptions) -> bool {
    !few(opts) && workers(opts.jobs) >= 2
}

/// Paths waiting for the checking thread of [`Search::enumerate`] at
/// most: the search waits when it is that far ahead.
const ASIDE_QUEUE: usize = 32;

/// The most searches [`BmcOptions::jobs`] `0` races: each holds its own
/// CNF (2 x ~150 MB on the 20x20 bench puzzles).
pub const AUTO_JOBS: usize = 2;

/// How many searches race under [`BmcOptions::jobs`] `jobs`.
fn workers(jobs: usize) -> usize {
    match jobs {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get().min(AUTO_JOBS)),
        n => n,
    }
}

/// A system a race may search besides the one given, built on the thread
/// that searches it (one that never joins is never built). It must have
/// the same solutions over the variables the caller reads (another model
/// of the same puzzle).
pub type Fallback<'a> = dyn Fn() -> System + Sync + 'a;

/// [`solve`] where the searches that join a race search other systems:
/// the second one `fallbacks[0]`, and so on, the ones after the last
/// fallback that fallback with other seeds ([`BmcResult::system`] says
/// which answered). They join once the first search has met `join_at`
/// conflicts (`None`: never on that account), or after the usual delay.
/// The first system keeps searching, up to `first_limit` conflicts (a
/// cheap model that meets a small budget is often slow, not hopeless,
/// and from where it is it may still answer first); then its core goes
/// to the last fallback with the next seed, for `back_after` conflicts
/// when that is given, after which the core goes back to the first
/// system, searched from the start with no budget (a system only the
/// first model decides is never given up for good). With one job
/// ([`takes_turns`]) the searches of `sys` and the fallbacks take turns
/// on the one core instead, the first turn ending at `join_at`
/// conflicts (the `turns` module). Otherwise this is [`solve`] of
/// `sys`.
pub fn solve_racing(
    sys: &System,
    fallbacks: &[&Fallback],
    join_at: Option<u64>,
    first_limit: Option<u64>,
    back_after: Option<u64>,
    opts: &BmcOptions,
) -> Result<BmcResult, BmcError> {
    if takes_turns(opts) && !fallbacks.is_empty() {
        return turns::take_turns(sys, fallbacks, join_at, opts);
    }
    if !races(opts) {
        return solve(sys, opts);
    }
    let join = race::Join {
        conflicts: join_at,
        ..race::Join::after(race::DELAY)
    };
    race::race(sys, fallbacks, first_limit, back_after, opts, join)
}

/// One search of [`solve`], with the seed of `opts`; `entry`: how it
/// takes part in a race (none: it runs alone).
fn solve_one(
    sys: &System,
    opts: &BmcOptions,
    entry: Option<&race::Entry>,
) -> Result<BmcResult, BmcError> {
    let interrupts = opts.interrupt.iter().chain(entry.map(|e| &e.stop));
    let watch = Rc::new(Watch::new(
        opts.timeout,
        interrupts.cloned().collect(),
        opts.progress.clone(),
        opts.conflict_limit,
        entry.and_then(|e| e.meter.clone()),
        entry.and_then(|e| e.hand_over.map(|(at, _)| at)),
        entry.and_then(|e| e.seat.clone()),
    ));
    let hand_over = entry.and_then(|e| e.hand_over.map(|(_, f)| f).or(e.start_next));
    let lazy = opts.lazy.then(|| lazy::Lazy::new(sys)).flatten();
    let hinted = opts.solver == SolverKind::Batsat && !sys.branch_vars.is_empty();
    let search =
        |branch: &[VarId]| search(sys, opts, watch.clone(), hand_over, branch, lazy.as_ref());
    if hinted {
        match search(&sys.branch_vars) {
            Err(BmcError::Unassigned(_)) => {}
            done => return done,
        }
    }
    let mut r = search(&[])?;
    r.hint_fallback = hinted;
    Ok(r)
}

/// One search of [`solve`], branching on `branch` (all variables if
/// empty); with `lazy`, of its relaxation, each answer completed and
/// checked against `sys`. `hand_over` starts a race's referee (when the
/// watch says it is due; see [`Search::hand_over`]), or the next search's
/// thread of searches taking turns (when this one first passes the baton).
fn search<'s, 'o>(
    sys: &'s System,
    opts: &'o BmcOptions,
    watch: Rc<Watch>,
    hand_over: Option<&'o dyn Fn()>,
    branch: &[VarId],
    lazy: Option<&'s lazy::Lazy>,
) -> Result<BmcResult, BmcError> {
    let backend = solver::make(opts.solver, watch.clone(), opts.seed, hand_over)?;
    let mut u = Unroller::new(sys, opts.encoding, backend)?;
    u.branch_on(branch);
    if let Some(l) = lazy {
        u.relax(&l.skip, &l.witnesses);
    }
    let search = Search {
        u,
        lazy,
        cuts: 0,
        opts,
        watch,
        hand_over,
        traces: Vec::new(),
        found: 0,
        solves: 0,
        time_to_first: None,
        phases: Phases::default(),
    };
    match opts.bound.or(sys.bound) {
        Some(k) => search.exact(k),
        None => search.shortest(),
    }
}

/// The DIMACS text of the unrolling at bound `k` with the goal asserted at
/// step `k`: exactly the clauses the embedded solver receives when it
/// solves at a known bound. Comment lines: `c bound K`, `c encoding E`,
/// and `c var N = name@step=value` (one-hot and booleans; booleans are
/// labelled by their `TRUE` value), `name@step>=value` (order) or
/// `name@step:bitI` (log); frozen variables appear at step 0 only. Then
/// the system's own comment, each line as `c model: …`: for a grid
/// puzzle the board with the number of each open cell, which is what
/// `pos`'s values mean, so an outside solver's model can be read back
/// into cells (the cells are numbered along the board's longer side, not
/// always row by row).
pub fn dimacs(sys: &System, k: usize, encoding: Encoding) -> Result<String, BmcError> {
    let mut u = Unroller::new(sys, encoding, ClauseLog::default())?;
    u.keep_labels();
    u.prune_for(k, &|| false);
    u.extend_to(k)?;
    u.assert_goal(k)?;
    let mut header = vec![
        "checkmate bounded model checking: the system unrolled, goal at the last step".to_string(),
        format!("bound {k}"),
        format!("encoding {encoding}"),
        "lines `var N = name@step=value`: SAT variable N is true iff the variable has that value"
            .into(),
    ];
    header.extend(sys.comment.iter().map(|line| format!("model: {line}")));
    Ok(cnf::render(
        sys,
        &header,
        u.labels(),
        &u.fixed(),
        u.n_vars(),
        &u.sink.clauses,
    ))
}

/// The state of one call of [`solve`].
struct Search<'s, 'o> {
    u: Unroller<'s, Box<dyn Backend + 'o>>,
    /// The plan of a lazy search: its models are of the unrolling without
    /// the hint's INVARs, and are completed before the check.
    lazy: Option<&'s lazy::Lazy>,
    /// Cut clauses added so far.
    cuts: usize,
    opts: &'o BmcOptions,
    watch: Rc<Watch>,
    /// In the first search of a race: starts the race's referee thread
    /// (which starts the other searches when they are due to join) once
    /// the search is no trivial one: when its solve has looked at the
    /// watch 256 times (from the solver's callback: the solve goes on
    /// undisturbed), or when the race's delay has passed during its
    /// domain analysis or encoding. A search that answers before that
    /// costs no other thread. Taking turns (the `turns` module): starts
    /// the next search's thread when the watch first passes the baton.
    hand_over: Option<&'o dyn Fn()>,
    traces: Vec<Trace>,
    /// Solutions found so far (kept in `traces` or not).
    found: usize,
    solves: usize,
    time_to_first: Option<Duration>,
    phases: Phases,
}

impl Search<'_, '_> {
    /// Solves at exactly bound `k`.
    fn exact(mut self, k: usize) -> Result<BmcResult, BmcError> {
        if self.opts.prune {
            let (watch, hand_over) = (&self.watch, self.hand_over);
            timed(&mut self.phases.analyse, || {
                self.u.prune_for(k, &|| {
                    watch.hand_over_if_due(false, hand_over);
                    watch.check()
                })
            });
            if let Some(trace) = self.determined(k) {
                self.keep(trace);
                self.report(k, Phase::Answered);
                // No other path exists; say so only when asked for more.
                let exhausted = self.target() > 1;
                return Ok(self.finish(k, true, exhausted));
            }
        }
        for step in 0..=k {
            self.watch.hand_over_if_due(false, self.hand_over);
            if self.watch.check() {
                return Ok(self.finish(k, true, false));
            }
            timed(&mut self.phases.encode, || self.u.extend_to(step))?;
        }
        timed(&mut self.phases.encode, || self.u.assert_goal(k))?;
        self.report(k, Phase::Encoded);
        let exhausted = self.enumerate(k, &[])?;
        Ok(self.finish(k, true, exhausted))
    }

    /// The path the pruned domains leave at bound `k`, when they leave
    /// one and it passes the IR check: then it is the only solution and
    /// needs no SAT encoding (a path that fails the check goes on to the
    /// usual search, which answers `unsat` or finds what the check
    /// missed).
    fn determined(&mut self, k: usize) -> Option<Trace> {
        let (u, lazy) = (&self.u, self.lazy);
        let trace = timed(&mut self.phases.verify, || {
            let trace = match (u.determined(k)?, lazy) {
                (t, None) => t,
                (t, Some(l)) => match l.refine(t) {
                    lazy::Refinement::Complete(t) => t,
                    lazy::Refinement::Cuts(_) => return None,
                },
            };
            u.sys.check_with(&trace, u.invar_each()).ok()?;
            Some(trace)
        })?;
        self.time_to_first = Some(self.watch.elapsed());
        Some(trace)
    }

    /// Searches `k = 0, 1, …` with the goal at `k` as an assumption.
    fn shortest(mut self) -> Result<BmcResult, BmcError> {
        for k in 0..=self.opts.max_bound {
            self.watch.hand_over_if_due(false, self.hand_over);
            if self.watch.check() {
                return Ok(self.finish(k, false, false));
            }
            let u = &mut self.u;
            let goal = timed(&mut self.phases.encode, || {
                u.extend_to(k)?;
                u.goal_lit(k)
            })?;
            self.report(k, Phase::Encoded);
            let exhausted = self.enumerate(k, &[goal])?;
            if self.found > 0 || self.watch.stopped.get().is_some() {
                return Ok(self.finish(k, false, exhausted));
            }
        }
        let max = self.opts.max_bound;
        let mut r = self.finish(max, false, false);
        r.limit = Some(Limit::MaxBound(max));
        Ok(r)
    }

    /// How many solutions to look for.
    fn target(&self) -> usize {
        match self.opts.count {
            None => 1,
            Some(0) => self.opts.count_cap.max(1),
            Some(n) => n,
        }
    }

    /// Finds solutions at bound `k` under `assumptions` until the target
    /// is reached, the solver says there are no more (returns `true`), or
    /// a limit stops it.
    ///
    /// When counting ([`checks_aside`]) paths of more than one state,
    /// every path after the first is checked on a thread of its own while
    /// the solver looks for the next one: checking a path
    /// (`System::check_with`) is about half of the instructions per path
    /// of a 9x9 hidato count, the solver and the decoding the other half.
    /// `solve --count 0` (10,000 paths, the cap), wall s: hidato-9x9-s1
    /// 6.5 -> 4.6, hidato-12x12-s1 15.4 -> 10.6, for 15-22% more CPU
    /// (the two threads' caches and the allocator are shared). The paths
    /// are the same, in the same order; the count and the paths kept are
    /// returned only once every check has passed (the progress line may
    /// count a path whose check is still to come): the checks are waited
    /// for here, and one that fails is this search's error. Their time is
    /// counted in [`Phases::verify`].
    fn enumerate(&mut self, k: usize, assumptions: &[Lit]) -> Result<bool, BmcError> {
        // A path of one state (the waypoint successor model) checks in
        // less time than handing it over takes (counting waypoint-9x9-s1
        // aside: 0.72 -> 0.78 s).
        if !checks_aside(self.opts) || k == 0 {
            return self.enumerate_with(k, assumptions, None);
        }
        let (sys, each) = (self.u.sys, self.u.invar_each().to_vec());
        thread::scope(|s| {
            let (tx, rx) = mpsc::sync_channel::<Trace>(ASIDE_QUEUE);
            let checker = thread::Builder::new()
                .name("bmc-check".into())
                .spawn_scoped(s, move || {
                    let mut took = Duration::ZERO;
                    let checked = rx.iter().try_for_each(|t| {
                        let start = Instant::now();
                        let checked = sys.check_with(&t, &each);
                        took += start.elapsed();
                        checked
                    });
                    (took, checked)
                });
            let Ok(checker) = checker else {
                // No thread for it: checked here, as without a second core.
                return self.enumerate_with(k, assumptions, None);
            };
            let found = self.enumerate_with(k, assumptions, Some(&tx));
            drop(tx);
            let (took, checked) = checker
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            self.phases.verify += took;
            checked.map_err(|source| BmcError::Verify { bound: k, source })?;
            found
        })
    }

    /// [`Search::enumerate`], the paths after the first checked by the
    /// thread that `aside` sends them to (if any).
    fn enumerate_with(
        &mut self,
        k: usize,
        assumptions: &[Lit],
        aside: Option<&SyncSender<Trace>>,
    ) -> Result<bool, BmcError> {
        let target = self.target();
        loop {
            let sink = &mut self.u.sink;
            let answer = timed(&mut self.phases.solve, || sink.solve(assumptions))?;
            self.solves += 1;
            if answer == Answer::Sat && self.found == 0 {
                self.phases.first_solve = self.phases.solve;
                self.phases.first_conflicts = self.u.sink.conflicts();
            }
            if answer != Answer::Sat {
                self.report(k, Phase::Answered);
                return Ok(answer == Answer::Unsat);
            }
            let (u, lazy) = (&self.u, self.lazy);
            let here = aside.is_none() || self.found == 0;
            let trace = timed(&mut self.phases.verify, || {
                let strict = || u.decode(k, &mut |v| u.sink.value(v));
                let trace = match lazy {
                    None => strict()?,
                    // A model with a cycle may leave variables on the
                    // cycle unassigned under the branching hint (a leg
                    // on a cycle of plain cells): only the successors
                    // matter to its cuts. A model without one is read
                    // again, strictly.
                    Some(l) => {
                        match l.refine(u.decode_loose(k, &mut |v| lenient(u.sink.value(v)))?) {
                            lazy::Refinement::Cuts(cuts) => return Ok(Err(cuts)),
                            lazy::Refinement::Complete(_) => match l.refine(strict()?) {
                                lazy::Refinement::Complete(t) => t,
                                lazy::Refinement::Cuts(cuts) => return Ok(Err(cuts)),
                            },
                        }
                    }
                };
                if here {
                    u.sys
                        .check_with(&trace, u.invar_each())
                        .map_err(|source| BmcError::Verify { bound: k, source })?;
                }
                Ok::<_, BmcError>(Ok(trace))
            })?;
            let trace = match trace {
                Ok(t) => t,
                Err(cuts) => {
                    let start = Instant::now();
                    self.add_cuts(&cuts)?;
                    self.phases.encode += start.elapsed();
                    continue;
                }
            };
            self.time_to_first.get_or_insert(self.watch.elapsed());
            let start = Instant::now();
            self.block(k, &trace)?;
            self.phases.encode += start.elapsed();
            match aside.filter(|_| !here) {
                Some(tx) => {
                    let copy = (self.traces.len() < self.opts.keep).then(|| trace.clone());
                    // Refused only once the checker has stopped, on a
                    // path that failed: `enumerate` returns that error.
                    tx.send(trace)
                        .map_err(|_| BmcError::Solver("the path checker stopped".into()))?;
                    self.found += 1;
                    self.traces.extend(copy);
                }
                None => self.keep(trace),
            }
            self.report(k, Phase::Answered);
            if self.found >= target {
                return Ok(false);
            }
        }
    }

    /// Adds the clauses of a lazy search's cuts (each a disjunction of
    /// `var = value` at step 0: the graph's variables are frozen).
    fn add_cuts(&mut self, cuts: &[Vec<(VarId, crate::ir::Value)>]) -> Result<(), BmcError> {
        for cut in cuts {
            let mut clause = Vec::with_capacity(cut.len());
            for (v, value) in cut {
                clause.push(self.u.value_lit(*v, 0, value)?);
            }
            self.u.clause(&clause)?;
        }
        self.cuts += cuts.len();
        Ok(())
    }

    /// Counts a solution, and keeps it if fewer than
    /// [`BmcOptions::keep`] are kept.
    fn keep(&mut self, trace: Trace) {
        self.found += 1;
        if self.traces.len() < self.opts.keep {
            self.traces.push(trace);
        }
    }

    /// Forbids `trace` (on the solution variables) from being found again.
    fn block(&mut self, k: usize, trace: &Trace) -> Result<(), BmcError> {
        let sys = self.u.sys;
        let vars: Vec<VarId> = if sys.solution_vars.is_empty() {
            (0..sys.vars.len() as u32).map(VarId).collect()
        } else {
            sys.solution_vars.clone()
        };
        let mut clause = Vec::new();
        for step in 0..=k {
            for &v in &vars {
                if sys.var(v).frozen && step > 0 {
                    continue;
                }
                let l = self.u.value_lit(v, step, &trace.states[step][v.index()])?;
                clause.push(!l);
            }
        }
        self.u.clause(&clause)
    }

    fn report(&self, k: usize, phase: Phase) {
        self.watch.current.set(Progress {
            phase: Phase::Encoded,
            bound: k,
            vars: self.u.n_vars() as usize,
            clauses: self.u.n_clauses(),
            solves: self.solves,
            found: self.found,
            solve_elapsed: Duration::ZERO,
            elapsed: Duration::ZERO,
        });
        self.watch.report(phase);
    }

    fn finish(self, k: usize, bound_given: bool, exhausted: bool) -> BmcResult {
        let found = self.found;
        let limit = self.watch.stopped.get().or_else(|| {
            (self.opts.count == Some(0) && !exhausted && found >= self.target())
                .then_some(Limit::CountCap(found))
        });
        let status = if found > 0 {
            Status::Solved
        } else if exhausted && bound_given {
            Status::Unsat
        } else {
            Status::Unknown
        };
        let counting = self.opts.count.is_some();
        let unique = match (found, exhausted) {
            (2.., _) => Some(false),
            (1, true) => Some(true),
            (0, true) if counting => Some(false),
            _ => None,
        };
        BmcResult {
            status,
            traces: self.traces,
            solutions: found,
            exhausted,
            unique,
            bound: k,
            bound_given,
            limit,
            vars: self.u.n_vars() as usize,
            clauses: self.u.n_clauses(),
            solves: self.solves,
            conflicts: self.u.sink.conflicts(),
            time_to_first: self.time_to_first,
            time: self.watch.elapsed(),
            phases: self.phases,
            solver: self.opts.solver,
            encoding: self.opts.encoding,
            hint_fallback: false,
            seed: self.opts.seed,
            searches: 1,
            system: 0,
            turns: 0,
            cuts: self.cuts,
        }
    }
}
