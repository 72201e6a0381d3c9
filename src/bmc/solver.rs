//! The embedded SAT solvers behind one small interface, and the watch
//! that stops a solve at a deadline or on an interrupt flag and reports
//! progress while it runs.
//!
//! Input: clauses and assumptions over rustsat literals. Output: the
//! answer of each solve and the model's values, always read through
//! positive literals (some rustsat 0.7 backends get negative ones wrong).
//!
//! Invariants: a solve stopped by the watch answers [`Answer::Stopped`]
//! and records why in [`Watch::stopped`]; a single long solve is
//! interrupted from inside the solver's own callback, not between solves.
//! The watch counts the conflicts of every solver it watches, so a
//! conflict budget covers a whole search (all its solves, and a search
//! started over without the branching hint). A race's first search
//! hands over to its race from inside the solver's callback too
//! ([`Watch::hand_over_if_due`]), without stopping the solve; a search
//! taking turns on one core waits there for its next turn ([`Seat`]),
//! its solver paused where it is.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustsat::solvers::{Solve, SolveIncremental, SolverResult};
use rustsat::types::{Lit, TernaryVal, Var};

use super::cnf::Sink;
use super::turns::Seat;
use super::{BmcError, Limit, Phase, Progress, ProgressFn, SolverKind};

/// Decides when to stop and emits progress lines during long solves.
pub(crate) struct Watch {
    deadline: Option<Instant>,
    /// Stop when any of these is set (the caller's flag, a race's).
    interrupts: Vec<Arc<AtomicBool>>,
    progress: Option<ProgressFn>,
    started: Instant,
    /// What to report while a solve runs (bound, sizes, ...).
    pub current: Cell<Progress>,
    solve_started: Cell<Instant>,
    last_report: Cell<Instant>,
    ticks: Cell<u32>,
    /// Conflicts met so far by the solvers watched, and the most allowed.
    conflicts: Cell<u64>,
    conflict_limit: Option<u64>,
    /// Where the count of conflicts is published for other threads.
    meter: Option<Arc<AtomicU64>>,
    /// A race's first search before its referee starts: the referee is
    /// due once the solver has looked at the watch 256 times, or
    /// elsewhere once this instant has passed ([`Watch::hand_over_if_due`]).
    hand_over: Cell<Option<Instant>>,
    /// Calls of [`Watch::hand_over_if_due`]: from outside the solver the
    /// clock is read at the first and every eighth after it (a 9x9 grid
    /// path asks ~470 times in 2 ms, once per step the domain analysis
    /// looks at and per frame encoded).
    polls: Cell<u32>,
    /// Taking turns on one core: where this search sits at the baton
    /// (its turn over, the solve waits in [`Watch::tick`] for the next).
    seat: Option<Seat>,
    pub stopped: Cell<Option<Limit>>,
}

/// How often a running solve reports progress.
const REPORT_EVERY: Duration = Duration::from_millis(500);

impl Watch {
    pub fn new(
        timeout: Option<Duration>,
        interrupts: Vec<Arc<AtomicBool>>,
        progress: Option<ProgressFn>,
        conflict_limit: Option<u64>,
        meter: Option<Arc<AtomicU64>>,
        hand_over: Option<Instant>,
        seat: Option<Seat>,
    ) -> Watch {
        let now = Instant::now();
        Watch {
            conflicts: Cell::new(0),
            conflict_limit,
            meter,
            hand_over: Cell::new(hand_over),
            polls: Cell::new(0),
            seat,
            // A deadline past what an `Instant` holds is no deadline.
            deadline: timeout.and_then(|t| now.checked_add(t)),
            interrupts,
            progress,
            started: now,
            current: Cell::new(Progress::default()),
            solve_started: Cell::new(now),
            last_report: Cell::new(now),
            ticks: Cell::new(0),
            stopped: Cell::new(None),
        }
    }

    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Whether a limit has been reached (and records which).
    pub fn check(&self) -> bool {
        if self.stopped.get().is_some() {
            return true;
        }
        if self.interrupts.iter().any(|f| f.load(Ordering::Relaxed)) {
            self.stopped.set(Some(Limit::Interrupted));
            return true;
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.stopped.set(Some(Limit::Timeout));
            return true;
        }
        false
    }

    /// Counts `n` more conflicts; at the conflict limit, stops.
    fn add_conflicts(&self, n: u64) {
        let total = self.conflicts.get() + n;
        self.conflicts.set(total);
        if let Some(m) = &self.meter {
            m.store(total, Ordering::Relaxed);
        }
        if let Some(limit) = self.conflict_limit {
            if total >= limit && self.stopped.get().is_none() {
                self.stopped.set(Some(Limit::Conflicts(limit)));
            }
        }
    }

    /// The conflicts a solve may still meet (`None`: no limit).
    #[cfg_attr(not(feature = "cadical"), allow(dead_code))]
    fn conflicts_left(&self) -> Option<u64> {
        self.conflict_limit
            .map(|l| l.saturating_sub(self.conflicts.get()))
    }

    /// Sends a progress event (if anyone listens).
    pub fn report(&self, phase: Phase) {
        if let Some(f) = &self.progress {
            let mut p = self.current.get();
            p.phase = phase;
            p.elapsed = self.elapsed();
            if phase == Phase::Solving {
                p.solve_elapsed = self.solve_started.get().elapsed();
            }
            f(&p);
            self.last_report.set(Instant::now());
        }
    }

    fn begin_solve(&self) {
        let now = Instant::now();
        self.solve_started.set(now);
        self.last_report.set(now);
    }

    /// Called by the solver very often: checks the limits every few
    /// hundred calls, reports progress every half second, calls
    /// `hand_over` when it is due ([`Watch::hand_over_if_due`]), and at
    /// the end of a turn ([`Seat`]) waits for the next (`hand_over` then
    /// starts the next search's thread, if it has none yet).
    fn tick(&self, hand_over: Option<&dyn Fn()>) -> bool {
        let t = self.ticks.get().wrapping_add(1);
        self.ticks.set(t);
        if !t.is_multiple_of(256) {
            return self.stopped.get().is_some();
        }
        if self.progress.is_some() && self.last_report.get().elapsed() >= REPORT_EVERY {
            self.report(Phase::Solving);
        }
        self.hand_over_if_due(true, hand_over);
        if let Some(seat) = self.seat.as_ref().filter(|s| s.due(self.conflicts.get())) {
            seat.pass(hand_over);
        }
        self.check()
    }

    /// Calls `hand_over` (a race's first search's) if it is due, once:
    /// asked by the solver (`in_solver`), as soon as it has looked at the
    /// watch 256 times (a solve that takes longer is no trivial one);
    /// elsewhere (the domain analysis, the encoding, a solver that cannot
    /// call back), once the race's delay has passed.
    pub fn hand_over_if_due(&self, in_solver: bool, hand_over: Option<&dyn Fn()>) {
        let Some(f) = hand_over else { return };
        let polls = self.polls.get().wrapping_add(1);
        self.polls.set(polls);
        let due = self
            .hand_over
            .get()
            .is_some_and(|at| in_solver || (polls % 8 == 1 && Instant::now() >= at));
        if due {
            self.hand_over.set(None);
            f();
        }
    }
}

/// The answer of one solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Answer {
    Sat,
    Unsat,
    Stopped,
}

/// An embedded incremental SAT solver.
pub(crate) trait Backend: Sink {
    fn solve(&mut self, assumptions: &[Lit]) -> Result<Answer, BmcError>;
    /// The value of `var` in the last model.
    fn value(&self, var: Var) -> Result<bool, BmcError>;
    /// Conflicts so far (a load-independent measure of solver effort).
    fn conflicts(&self) -> u64;
}

/// Makes the backend named by `kind`, watched by `watch`. `seed` 0 keeps
/// the solver's own defaults; any other seed randomises where its search
/// starts (BatSat: random initial variable activities; CaDiCaL: its
/// variables shuffled at random), so differently seeded solvers of one
/// CNF take different paths to the same answer. `hand_over`: what a
/// race's first search calls when [`Watch::hand_over_if_due`] (BatSat from
/// its callback; CaDiCaL's callback must outlive the race, so it calls
/// it when a solve starts), or what starts the next search's thread when
/// a search taking turns first passes the baton (BatSat only: with
/// CaDiCaL those threads start at once).
pub(crate) fn make<'h>(
    kind: SolverKind,
    watch: Rc<Watch>,
    seed: u32,
    hand_over: Option<&'h dyn Fn()>,
) -> Result<Box<dyn Backend + 'h>, BmcError> {
    match kind {
        SolverKind::Batsat => Ok(Box::new(Batsat::new(watch, seed, hand_over))),
        #[cfg(feature = "cadical")]
        SolverKind::Cadical => Ok(Box::new(Cadical::new(watch, seed, hand_over)?)),
        #[cfg(not(feature = "cadical"))]
        SolverKind::Cadical => Err(BmcError::SolverUnavailable(kind)),
    }
}

impl Sink for Box<dyn Backend + '_> {
    fn add_clause(&mut self, lits: &[Lit]) -> Result<(), BmcError> {
        (**self).add_clause(lits)
    }

    fn declare(&mut self, var: Var, decision: bool) {
        (**self).declare(var, decision)
    }
}

fn solver_err(e: impl std::fmt::Display) -> BmcError {
    BmcError::Solver(e.to_string())
}

fn answer(r: SolverResult) -> Answer {
    match r {
        SolverResult::Sat => Answer::Sat,
        SolverResult::Unsat => Answer::Unsat,
        SolverResult::Interrupted => Answer::Stopped,
    }
}

fn read(v: TernaryVal) -> bool {
    // A variable the solver left unassigned may take either value; all
    // variables that matter occur in clauses and are assigned.
    v == TernaryVal::True
}

/// batsat's callbacks: count the conflicts (one learnt clause each) and
/// stop when the watch says so; hand over to a race when due.
#[derive(Default)]
struct Stopper<'h>(Option<Rc<Watch>>, Option<&'h dyn Fn()>);

impl batsat::Callbacks for Stopper<'_> {
    fn on_new_clause(&mut self, _c: &[batsat::Lit], kind: batsat::clause::Kind) {
        if kind == batsat::clause::Kind::Learnt {
            if let Some(w) = &self.0 {
                w.add_conflicts(1);
            }
        }
    }

    fn stop(&self) -> bool {
        self.0.as_ref().is_some_and(|w| w.tick(self.1))
    }
}

/// BatSat (pure Rust, always available). Under a branching hint it
/// decides only on the variables declared as decisions: a model may then
/// leave the others unassigned, and reading one is
/// [`BmcError::Unassigned`] (the caller solves again without the hint).
///
/// BatSat's own defaults are kept. Tried on fresh open 15x15 waypoint
/// boards (seeds 1-24, `solve --count 2 --jobs 1`, 10 s cap, CPU s
/// summed; default 12.0 s, 22 within 2 s): `var_decay` 0.9 22.3 s,
/// 0.98 13.9 s; no Luby restarts 52.9 s and `phase_saving` 1 73.0 s
/// (two timeouts each); `random_var_freq` 0.02 9.5 s (24 within 2 s)
/// did not hold on held-out seeds 25-48 (15.6 -> 14.6 s, median 0.17 ->
/// 0.29 s) nor on 18 other fresh 15x15 boards (numbrix 10%, hidato 20%,
/// waypoint 18 blocked: 8.7 -> 9.8 s), and 0.05 lost on 25-48 (31.9 s).
struct Batsat<'h> {
    solver: rustsat_batsat::Solver<Stopper<'h>>,
    watch: Rc<Watch>,
    /// Whether variables were declared (some may be non-decisions).
    hinted: bool,
    /// The clause being added, in batsat's literals (reused).
    clause: Vec<batsat::Lit>,
}

impl<'h> Batsat<'h> {
    fn new(watch: Rc<Watch>, seed: u32, hand_over: Option<&'h dyn Fn()>) -> Batsat<'h> {
        let mut solver = rustsat_batsat::Solver::<Stopper>::default();
        if seed != 0 {
            let opts = batsat::SolverOpts {
                rnd_init_act: true,
                random_seed: f64::from(seed),
                ..batsat::SolverOpts::default()
            };
            *solver.batsat_mut() = batsat::Solver::new(opts, Stopper::default());
        }
        *solver.batsat_mut().cb_mut() = Stopper(Some(watch.clone()), hand_over);
        Batsat {
            solver,
            watch,
            hinted: false,
            clause: Vec::new(),
        }
    }
}

impl Sink for Batsat<'_> {
    /// Straight to batsat through one reused buffer, as rustsat's
    /// `add_clause_ref` does through a new `Vec` per clause (and a running
    /// average of clause lengths): a fifth of the cost of a clause, 2% of
    /// the instructions of `solve` on a 9x9 waypoint puzzle (1,500
    /// clauses: 968K -> 754K, callgrind). Nothing of the wrapper's that
    /// this solver reads is skipped: its state says whether a model may
    /// be read, and every solve sets it (`solve_assumps`, the only way
    /// in); models are read only after a solve.
    fn add_clause(&mut self, lits: &[Lit]) -> Result<(), BmcError> {
        use batsat::SolverInterface;
        let s = self.solver.batsat_mut();
        self.clause.clear();
        self.clause.extend(
            lits.iter()
                .map(|l| batsat::Lit::new(s.var_of_int(l.vidx32()), l.is_pos())),
        );
        // `false`: the clauses are unsatisfiable, which the next solve
        // answers.
        s.add_clause_reuse(&mut self.clause);
        Ok(())
    }

    fn declare(&mut self, var: Var, decision: bool) {
        use batsat::SolverInterface;
        let s = self.solver.batsat_mut();
        // Declared in order, before any clause mentions them; one a
        // clause made already (the unroller's constant) is a decision.
        while s.num_vars() <= var.idx32() {
            s.new_var(batsat::lbool::UNDEF, decision);
        }
        self.hinted = true;
    }
}

impl Backend for Batsat<'_> {
    fn solve(&mut self, assumptions: &[Lit]) -> Result<Answer, BmcError> {
        if self.watch.check() {
            return Ok(Answer::Stopped);
        }
        self.watch.begin_solve();
        let r = self.solver.solve_assumps(assumptions).map_err(solver_err)?;
        Ok(answer(r))
    }

    fn value(&self, var: Var) -> Result<bool, BmcError> {
        let v = self.solver.lit_val(var.pos_lit()).map_err(solver_err)?;
        if self.hinted && v == TernaryVal::DontCare {
            return Err(BmcError::Unassigned(var.idx32()));
        }
        Ok(read(v))
    }

    fn conflicts(&self) -> u64 {
        use batsat::SolverInterface;
        self.solver.batsat_ref().num_conflicts()
    }
}

/// CaDiCaL (C++, behind the `cadical` feature).
#[cfg(feature = "cadical")]
struct Cadical<'h> {
    solver: rustsat_cadical::CaDiCaL<'static, 'static>,
    watch: Rc<Watch>,
    /// Called as a solve starts (the terminator must be `'static`).
    hand_over: Option<&'h dyn Fn()>,
}

#[cfg(feature = "cadical")]
impl<'h> Cadical<'h> {
    fn new(
        watch: Rc<Watch>,
        seed: u32,
        hand_over: Option<&'h dyn Fn()>,
    ) -> Result<Cadical<'h>, BmcError> {
        use rustsat::solvers::{ControlSignal, Terminate};
        let mut solver = rustsat_cadical::CaDiCaL::default();
        if seed != 0 {
            let seed = i32::try_from(seed).unwrap_or(i32::MAX);
            for (name, value) in [("seed", seed), ("shuffle", 1), ("shufflerandom", 1)] {
                solver.set_option(name, value).map_err(solver_err)?;
            }
        }
        let w = watch.clone();
        solver.attach_terminator(move || {
            if w.tick(None) {
                ControlSignal::Terminate
            } else {
                ControlSignal::Continue
            }
        });
        Ok(Cadical {
            solver,
            watch,
            hand_over,
        })
    }
}

#[cfg(feature = "cadical")]
impl Sink for Cadical<'_> {
    fn add_clause(&mut self, lits: &[Lit]) -> Result<(), BmcError> {
        self.solver.add_clause_ref(lits).map_err(solver_err)
    }
}

#[cfg(feature = "cadical")]
impl Backend for Cadical<'_> {
    fn solve(&mut self, assumptions: &[Lit]) -> Result<Answer, BmcError> {
        if self.watch.check() {
            return Ok(Answer::Stopped);
        }
        self.watch.hand_over_if_due(true, self.hand_over);
        self.watch.begin_solve();
        use rustsat::solvers::LimitConflicts;
        let left = self.watch.conflicts_left();
        // rustsat hands CaDiCaL the limit as an `i32` (and fails on more):
        // a budget past that is no limit a solve could reach anyway.
        let left = left.and_then(|n| u32::try_from(n).ok().filter(|&n| n <= i32::MAX as u32));
        self.solver.limit_conflicts(left).map_err(solver_err)?;
        let before = self.conflicts();
        let r = self.solver.solve_assumps(assumptions).map_err(solver_err)?;
        self.watch.add_conflicts(self.conflicts() - before);
        Ok(answer(r))
    }

    fn value(&self, var: Var) -> Result<bool, BmcError> {
        Ok(read(
            self.solver.lit_val(var.pos_lit()).map_err(solver_err)?,
        ))
    }

    fn conflicts(&self) -> u64 {
        use rustsat::solvers::GetInternalStats;
        self.solver.conflicts() as u64
    }
}
