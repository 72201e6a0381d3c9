//! Taking turns on one core: the searches of a system and its fallbacks
//! ([`super::solve_racing`] with [`BmcOptions::jobs`] 1) run one at a
//! time, each for a turn, and a search whose turn is over is paused
//! where it is, inside its SAT solver's callback, with everything it has
//! learnt, until its next turn.
//!
//! Why: on one core the models used to be tried one after the other,
//! the first under its conflict budget and the last with none, so a
//! puzzle only the first model decides was never answered (numbrix and
//! hidato boards with no path that only the step-by-step model refutes:
//! the rank model searches on forever). Restarting each model at its
//! turn lost all it had done (measured in stop 37: a sparse 15x15 hidato
//! went from 4.9 s to 12.5 s, a sparse numbrix from 10.2 s to unknown at
//! 20 s); paused, a search loses only the time the others had.
//!
//! The schedule: the first system searches until it has met `first`
//! conflicts (or one [`BmcOptions::turn`] has passed, for a solver that
//! counts its conflicts only when a solve ends); then each search in
//! turn (the fallbacks, then the first system) for [`BmcOptions::turn`],
//! then each for twice that, and so on: turn `t ≥ 1` lasts
//! `turn · 2^((t − 1) / n)` for `n` searches. So a search that needs a
//! time `T` alone answers at most `n · (2T + turn)` after the first turn
//! (it has had `turn · (2^m − 1) ≥ T` after its `m`-th turn, and the
//! others no more), and none is ever given up. A fallback's turn includes
//! building and analysing its system.
//!
//! Input: a [`System`], its fallbacks, the first turn's conflicts, and
//! [`BmcOptions`] (with one job). Output: the [`BmcResult`] of the search
//! that finished first (an answer, a limit met, or an error), with
//! [`BmcResult::turns`] the turns taken and its times counted from the
//! start.
//!
//! Invariants: at most one search runs at a time (the one holding the
//! baton; the others wait on a condition variable and use no CPU); a
//! search that finishes (or panics) ends the turns, and the others stop
//! at once (woken, they find the baton's stop flag set). A puzzle answered
//! within the first turn is searched exactly as by [`super::solve`]; the
//! same path comes back every run unless turns were taken by time.
//! BatSat starts the next system's thread only when the first turn is
//! over (a puzzle answered in it costs no thread); CaDiCaL's callback
//! must be `'static`, so with it the threads start at once and wait.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use super::race::{Answer, Entry, STACK};
use super::{solve_one, BmcError, BmcOptions, BmcResult, Fallback, SolverKind};
use crate::ir::System;

/// Who holds the baton, under one lock.
#[derive(Debug, Default)]
struct State {
    /// The search whose turn it is.
    holder: usize,
    /// Turns begun so far after the first (0 during the first).
    turn: u32,
    /// Searches whose thread has started (the first is the caller's).
    started: usize,
    /// The search that finished first, once one has.
    finished: Option<usize>,
}

/// The baton the searches pass round.
pub(crate) struct Baton {
    state: Mutex<State>,
    changed: Condvar,
    /// How many searches take turns.
    seats: usize,
    /// The first turn's conflicts.
    first: Option<u64>,
    /// [`BmcOptions::turn`].
    turn: Duration,
    /// Set once a search has finished: the others stop.
    stop: Arc<AtomicBool>,
}

impl Baton {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Search `me` has finished (the first to do so is the winner): the
    /// turns are over and every paused search is woken to stop.
    fn finish(&self, me: usize) {
        let mut s = self.lock();
        s.finished.get_or_insert(me);
        self.stop.store(true, Ordering::Relaxed);
        self.changed.notify_all();
    }

    /// When turn `t` (after the first) ends, if it begins now.
    fn end_of(&self, t: u32) -> TurnEnd {
        let doublings = ((t - 1) as usize / self.seats).min(20) as u32;
        TurnEnd {
            conflicts: None,
            at: Instant::now().checked_add(self.turn.saturating_mul(1 << doublings)),
        }
    }
}

/// When a search's turn is over: at this many conflicts of its own, or at
/// this instant, whichever comes first (`None`: never on that account).
#[derive(Clone, Copy, Debug)]
struct TurnEnd {
    conflicts: Option<u64>,
    at: Option<Instant>,
}

/// A search's place at the baton, held by its watch.
#[derive(Clone)]
pub(crate) struct Seat {
    baton: Arc<Baton>,
    me: usize,
    ends: Cell<TurnEnd>,
}

impl Seat {
    /// Whether this search's turn is over, having met `conflicts`.
    pub fn due(&self, conflicts: u64) -> bool {
        let end = self.ends.get();
        end.conflicts.is_some_and(|n| conflicts >= n)
            || end.at.is_some_and(|at| Instant::now() >= at)
    }

    /// Hands the baton to the next search, starting its thread with
    /// `start` if it has none yet, and waits for this search's next turn
    /// (or for the turns to end). Without a `start` for a search not yet
    /// started, this search keeps the baton for another turn.
    pub fn pass(&self, start: Option<&dyn Fn()>) {
        let b = &self.baton;
        let mut s = b.lock();
        if s.finished.is_some() {
            return;
        }
        let next = (self.me + 1) % b.seats;
        let starts = next >= s.started;
        s.turn += 1;
        if starts && start.is_none() {
            self.ends.set(b.end_of(s.turn));
            return;
        }
        s.holder = next;
        s.started += usize::from(starts);
        b.changed.notify_all();
        drop(s);
        if let (true, Some(f)) = (starts, start) {
            f();
        }
        self.wait_turn();
    }

    /// Waits until the baton is this search's (or the turns are over) and
    /// sets when its turn ends.
    fn wait_turn(&self) {
        let b = &self.baton;
        let mut s = b.lock();
        while s.holder != self.me && s.finished.is_none() {
            s = b.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        if s.turn > 0 {
            self.ends.set(b.end_of(s.turn));
        }
    }
}

/// Marks its search finished when dropped, so one that panics still ends
/// the turns (and no search waits for a baton that never comes back).
struct Finish<'a>(&'a Baton, usize);

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        self.0.finish(self.1);
    }
}

/// Searches `sys` and `fallbacks` in turn on one core (see the module
/// documentation); the first turn ends at `first` conflicts.
pub(super) fn take_turns(
    sys: &System,
    fallbacks: &[&Fallback],
    first: Option<u64>,
    opts: &BmcOptions,
) -> Result<BmcResult, BmcError> {
    let seats = fallbacks.len() + 1;
    let baton = Arc::new(Baton {
        state: Mutex::new(State {
            started: 1,
            ..State::default()
        }),
        changed: Condvar::new(),
        seats,
        first,
        turn: opts.turn,
        stop: Arc::default(),
    });
    let answers = Mutex::new((0..seats).map(|_| None).collect());
    let turns = Turns {
        sys,
        fallbacks,
        opts,
        baton: &baton,
        answers: &answers,
        started: Instant::now(),
        // CaDiCaL's callback cannot start a thread (see above).
        eager: opts.solver != SolverKind::Batsat,
    };
    thread::scope(|s| {
        if turns.eager {
            baton.lock().started = seats;
            for me in 1..seats {
                turns.start(s, me);
            }
        }
        turns.search(s, 0);
    });
    let state = baton.lock();
    let (winner, taken, searches) = (state.finished.unwrap_or(0), state.turn + 1, state.started);
    drop(state);
    let answer = lock(&answers)[winner].take();
    let mut r = answer.unwrap_or_else(|| Err(BmcError::Solver("no search answered".into())))?;
    r.turns = taken;
    r.searches = searches;
    Ok(r)
}

/// What the searches taking turns share.
#[derive(Clone, Copy)]
struct Turns<'a> {
    sys: &'a System,
    fallbacks: &'a [&'a Fallback<'a>],
    opts: &'a BmcOptions,
    baton: &'a Arc<Baton>,
    /// Each search's answer, by seat.
    answers: &'a Mutex<Vec<Option<Answer>>>,
    started: Instant,
    /// Every thread starts at once (else each when its first turn comes).
    eager: bool,
}

impl<'a> Turns<'a> {
    /// Starts the thread of search `me` (counted started by the caller):
    /// it waits for its turn. No thread: that search answers an error,
    /// and the turns are over.
    fn start<'s>(self, s: &'s thread::Scope<'s, 'a>, me: usize) {
        let spawned = thread::Builder::new()
            .name(format!("bmc-turn-{me}"))
            .stack_size(STACK)
            .spawn_scoped(s, move || self.search(s, me));
        if let Err(e) = spawned {
            let why = format!("cannot start a search thread: {e}");
            lock(self.answers)[me] = Some(Err(BmcError::Solver(why)));
            self.baton.finish(me);
        }
    }

    /// Search `me` (0: the caller's system, on the caller's thread; `i`:
    /// fallback `i`, built at its first turn), until it or another finishes.
    fn search<'s>(self, s: &'s thread::Scope<'s, 'a>, me: usize) {
        let _done = Finish(self.baton, me);
        let seat = Seat {
            baton: self.baton.clone(),
            me,
            ends: Cell::new(TurnEnd {
                conflicts: self.baton.first,
                at: self.started.checked_add(self.opts.turn),
            }),
        };
        let mut o = self.opts.clone();
        let built;
        let system = match me {
            0 => self.sys,
            _ => {
                seat.wait_turn();
                if self.baton.lock().finished.is_some() {
                    return;
                }
                o.progress = None;
                built = self.fallbacks[me - 1]();
                &built
            }
        };
        // The deadline and the times count from the start of the turns,
        // not from when this search's own watch starts (after its wait
        // and its build).
        let offset = self.started.elapsed();
        o.timeout = o.timeout.map(|t| t.saturating_sub(offset));
        // The search `pass` counted started is the last one.
        let start_next = || self.start(s, self.baton.lock().started - 1);
        let entry = Entry {
            stop: self.baton.stop.clone(),
            meter: None,
            hand_over: None,
            seat: Some(seat),
            start_next: (!self.eager).then_some(&start_next as &dyn Fn()),
        };
        let r = solve_one(system, &o, Some(&entry)).map(|r| r.of_search(offset, me));
        lock(self.answers)[me] = Some(r);
    }
}

/// The answers, even if a thread panicked while holding them.
fn lock(answers: &Mutex<Vec<Option<Answer>>>) -> MutexGuard<'_, Vec<Option<Answer>>> {
    answers.lock().unwrap_or_else(|e| e.into_inner())
}
