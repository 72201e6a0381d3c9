//! Racing searches: a search still running after [`DELAY`] is joined by
//! copies of itself whose SAT solvers are seeded differently, each on its
//! own thread; the first to answer wins and the others are stopped.
//!
//! Why: on hard puzzles the time of one search depends far more on where
//! the solver happens to start than on the puzzle (an open 15x15 waypoint
//! board took 0.5-4 s or over 12 s under different seeds). Racing two
//! seeds on two cores cuts that tail; a short solve never waits for the
//! delay, so it stays one search, on one core, with the same answer every
//! run.
//!
//! Measured (open 15x15 waypoint boards, `gen-grid.py --blocked 0`,
//! seeds 1-24, `solve --count 2` with one search each, conflicts to the
//! answer, a 20 s cap counted as over): BatSat's defaults (seed 0) median
//! 14.6k, 7 of 24 within 6k (about 2 s here), 4 capped; seed 1 (random
//! initial activities) 11.8k, 9, 3 capped; the better of the two, which
//! is what the race answers with, 6.0k, 12, 1 capped. Seed 0 with seed 2
//! instead: 7.7k, 11, 3. The second search without the branching hint
//! (`System::branch_vars`) diversifies worse: with seed 0 10.2k, 7, 2;
//! alone 22.6k. Timed races (`scripts/bench-fresh.sh --blocked 0`, seeds
//! 1-12, wall s): within 2 s 5 -> 7 of 12, the slowest >20 -> 4.9 s; two
//! searches slow each other somewhat (they share the memory bus), so a
//! puzzle the first search answers alone anyway can take longer. Seeds
//! 13-24: 2 -> 6 of 12, median 4.8 -> 1.6 s. Sparse boards, seeds 1-12,
//! 10 s cap, race against one search: hidato 15x15 with 10% of the path
//! shown answered 11 against 7 within the cap (median 5.8 against 8.0 s,
//! 1 within 2 s either way); numbrix 15x15 with 5% shown 8 against 7
//! (3 against 4 within 2 s: single runs here move by half either way).
//! Lost: starting the second search at once on big unrollings (the sum
//! of the domain sizes over all frames at least 150k values: open 15x15
//! waypoint ~220k, 12x12 ~90k, so the 15x15 skip the delay and the
//! domain analysis runs twice in parallel). Open 15x15 waypoint, seeds
//! 1-12 and 13-24, one run each, both builds side by side: within 2 s by
//! wall 9 -> 7 and 6 -> 7 of 12, median wall 1.17 -> 1.12 s and 1.15 ->
//! 1.25 s, CPU up 20-30%: noise at best, so the delay stays.
//!
//! Input: a [`System`] and [`BmcOptions`] with `jobs ≥ 2`. Output: the
//! [`BmcResult`] of the winning search, whose own [`BmcResult::seed`]
//! says which one it was, with [`BmcResult::time`] counted from the start
//! of the race.
//!
//! Invariants: every answer is the answer of one whole [`solve_one`]
//! (its traces checked against the system as always), so racing changes
//! which path of a puzzle with several comes back, never the verdict.
//! The first search to finish wins whatever it says: an answer, a limit
//! met, or an error (an engine bug must not be hidden by a luckier
//! search). A search with a conflict budget never races ([`super::solve`]):
//! the budget makes it a cheap first try before a sturdier model, the
//! searches that would join it start later and would almost surely meet
//! their budgets too, later (sparse 15x15 numbrix puzzles, whose first
//! model meets its budget after ~0.25 s, waited 0.2-0.4 s longer for
//! nothing).
//! The caller's interrupt flag and deadline hold for every search; the
//! searches that lose are stopped and joined before this returns.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use super::{solve_one, BmcError, BmcOptions, BmcResult};
use crate::ir::System;

/// How long the first search runs alone: longer than most puzzles take
/// (9x9 in ~20 ms, 15x15 with blocked cells in ~0.5 s), so only the hard
/// ones pay for a second search.
pub(super) const DELAY: Duration = Duration::from_millis(250);

/// The stack of a search's thread: the analysis and the encoder recurse
/// over expressions, and on the caller's thread they had the main
/// thread's (8 MB by default), not a spawned thread's 2 MB. Only what is
/// touched is ever allocated.
const STACK: usize = 64 << 20;

/// How often the race passes on the caller's interrupt flag.
const POLL: Duration = Duration::from_millis(20);

/// What the searches tell the race, under one lock.
#[derive(Default)]
struct Board {
    /// The race has a winner: searches not yet started must not start.
    over: bool,
    /// Searches started so far, and those of them not yet finished.
    started: usize,
    running: usize,
    /// Finished searches' answers, in the order they finished.
    results: Vec<Result<BmcResult, BmcError>>,
}

/// A started search: finished (with its answer, if it got one) when
/// dropped, so one that panics still stops counting as running.
struct Entry<'a> {
    board: &'a Mutex<Board>,
    changed: &'a Condvar,
    answer: Option<Result<BmcResult, BmcError>>,
}

impl Drop for Entry<'_> {
    fn drop(&mut self) {
        let mut b = lock(self.board);
        b.running -= 1;
        b.results.extend(self.answer.take());
        self.changed.notify_all();
    }
}

/// Races `opts.jobs` searches of `sys` (see the module documentation);
/// search `i` (from 0) uses seed `opts.seed + i` and starts after `delay`
/// unless it is the first.
pub(super) fn race(
    sys: &System,
    opts: &BmcOptions,
    delay: Duration,
) -> Result<BmcResult, BmcError> {
    let started = Instant::now();
    // Every search stops at once: when the race is over, or when the
    // caller interrupts.
    let stop = Arc::new(AtomicBool::new(false));
    let board = Mutex::new(Board {
        started: 1,
        running: 1,
        ..Board::default()
    });
    let changed = Condvar::new();
    let winner = thread::scope(|s| {
        for i in 0..opts.jobs.max(1) {
            let (board, changed) = (&board, &changed);
            let stop = stop.clone();
            let spawned = thread::Builder::new()
                .name(format!("bmc-search-{i}"))
                .stack_size(STACK)
                .spawn_scoped(s, move || {
                    if i > 0 && !join_after(board, changed, delay) {
                        return;
                    }
                    let mut entry = Entry {
                        board,
                        changed,
                        answer: None,
                    };
                    let mut o = opts.clone();
                    o.jobs = 1;
                    o.seed = opts.seed.wrapping_add(i as u32);
                    o.interrupt = Some(stop);
                    let offset = started.elapsed();
                    if i > 0 {
                        // One progress line: the first search's.
                        o.progress = None;
                        o.timeout = opts.timeout.map(|t| t.saturating_sub(offset));
                    }
                    entry.answer = Some(solve_one(sys, &o).map(|mut r| {
                        r.time += offset;
                        r.time_to_first = r.time_to_first.map(|t| t + offset);
                        r
                    }));
                });
            if let Err(e) = spawned {
                // A later search that cannot start just does not race;
                // the first one must.
                if i == 0 {
                    drop(Entry {
                        board,
                        changed,
                        answer: Some(Err(BmcError::Solver(format!(
                            "cannot start a search thread: {e}"
                        )))),
                    });
                }
            }
        }
        let mut b = lock(&board);
        let winner = loop {
            if !b.results.is_empty() {
                break Some(b.results.swap_remove(0));
            }
            if b.running == 0 {
                // Every search that started panicked; the scope passes
                // the panic on.
                break None;
            }
            if opts
                .interrupt
                .as_ref()
                .is_some_and(|f| f.load(Ordering::Relaxed))
            {
                stop.store(true, Ordering::Relaxed);
            }
            b = changed
                .wait_timeout(b, POLL)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        };
        b.over = true;
        drop(b);
        stop.store(true, Ordering::Relaxed);
        changed.notify_all();
        winner
    });
    let searches = lock(&board).started;
    let mut r = winner.unwrap_or_else(|| Err(BmcError::Solver("every search failed".into())))?;
    r.searches = searches;
    Ok(r)
}

/// Waits `delay` for the race to end; if it has not, joins it (counts
/// itself started and running) and says so.
fn join_after(board: &Mutex<Board>, changed: &Condvar, delay: Duration) -> bool {
    let b = lock(board);
    let (mut b, _) = changed
        .wait_timeout_while(b, delay, |b| !b.over)
        .unwrap_or_else(|e| e.into_inner());
    if b.over {
        return false;
    }
    b.started += 1;
    b.running += 1;
    true
}

/// The board, even if a thread panicked while holding it.
fn lock(board: &Mutex<Board>) -> MutexGuard<'_, Board> {
    board.lock().unwrap_or_else(|e| e.into_inner())
}
