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
//!
//! Other systems ([`super::solve_racing`]): the searches that join may be
//! of fallback systems (another model of the same puzzle, with the same
//! solutions), each built on its own thread, and they may join as soon as
//! the first search has met a number of conflicts. The first search may
//! have a budget of its own: when it meets it, its worker takes the next
//! search of the queue instead of answering. For numbrix and hidato
//! (`checkmate solve`), the step-by-step model starts; the rank model
//! joins at the step model's 200th conflict; the step model goes on up to
//! 2,000, then its core searches the rank model with the next seed.
//! Before, the step model stopped at 200 and two seeds of the rank model
//! raced. 18 boards (sparse 15x15 hidato and numbrix, 3x50 and 4x40
//! hidato and numbrix, generated and random; half of them never looked
//! at while this was built), two runs each, `--count 2`, 8 s timeout, wall
//! s summed with unknown as 8: before 132.9, step model up to 2,000
//! 109.8, up to 5,000 112.6; within 2 s 14 / 16 / 13 of 36, unknown
//! 6 / 5 / 4. The boards only the step model answers (a random 3x50
//! hidato with 3 numbers, a random 4x40 numbrix with no path) went from
//! unknown to 0.4-1.2 s; the rank model's wins got 0.1-0.8 s slower (it
//! shares the machine with the step model where it used to share it with
//! its second seed), 2-2.7 s with a budget of 5,000; a sparse 15x15 hidato
//! that the step model answers after ~3,000 conflicts stays unknown
//! with 2,000. After [`BACK_BUDGET`](crate::grid::strengthen::BACK_BUDGET)
//! conflicts of that second seed, the core goes back to the step model,
//! from the start and with no budget (the rank model's first seed goes
//! on on the other core): some boards with no path only the step model
//! refutes (two random hidato boards went from `unknown` at 20 s to
//! `unsat` in 9 s and 14 s; one the second seed answered at 59k
//! conflicts, in 12 s, is now `unknown` at 20 s; 96 random thin boards,
//! within 2 s 91 either way). Without it such a board was never
//! answered at all: no search left could refute it.
//!
//! The caller's interrupt flag and deadline hold for every search; the
//! searches that lose are stopped and joined before this returns.

use std::cell::OnceCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use super::turns::Seat;
use super::{solve_one, workers, BmcError, BmcOptions, BmcResult, Fallback, Limit, AUTO_JOBS};
use crate::ir::System;

/// How long the first search runs alone: longer than most puzzles take
/// (9x9 in ~20 ms, 15x15 with blocked cells in ~0.5 s), so only the hard
/// ones pay for a second search.
pub(super) const DELAY: Duration = Duration::from_millis(250);

/// The stack of a joining search's thread: the analysis and the encoder
/// recurse over expressions, and the first search has the caller's (the
/// main thread's 8 MB by default), not a spawned thread's 2 MB. Only what
/// is touched is ever allocated.
pub(super) const STACK: usize = 64 << 20;

/// The referee's stack: it only waits, looks at the board and starts
/// threads.
const REFEREE_STACK: usize = 256 << 10;

/// What a search answers.
pub(super) type Answer = Result<BmcResult, BmcError>;

/// What the searches tell the race, under one lock.
#[derive(Default)]
struct Board {
    /// The race has a winner: searches not yet started must not start.
    over: bool,
    /// Searches not yet finished.
    running: usize,
    /// The next search of the queue to start: also how many started.
    next: usize,
    /// Finished searches' answers, in the order they finished.
    results: Vec<Answer>,
    /// The answer of a search that met its budget with no search left to
    /// take: the race's answer only if no other one comes.
    spare: Option<Answer>,
}

impl Board {
    /// The next search of a queue of `n`, counted as started (`None`
    /// when the race is over or none is left).
    fn take(&mut self, n: usize) -> Option<usize> {
        if self.over || self.next >= n {
            return None;
        }
        self.next += 1;
        Some(self.next - 1)
    }
}

/// A worker's turn in the race: finished (with its answer, if it got
/// one) when dropped, so one that panics still stops counting as running.
struct Turn<'a> {
    board: &'a Mutex<Board>,
    changed: &'a Condvar,
    answer: Option<Answer>,
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let mut b = lock(self.board);
        b.running -= 1;
        b.results.extend(self.answer.take());
        self.changed.notify_all();
    }
}

/// When the workers after the first join a race: after `delay`, or once
/// the first search has met `conflicts` conflicts, whichever comes first.
#[derive(Clone, Copy, Debug)]
pub(super) struct Join {
    pub delay: Duration,
    pub conflicts: Option<u64>,
}

impl Join {
    pub fn after(delay: Duration) -> Join {
        Join {
            delay,
            conflicts: None,
        }
    }

    /// Whether the workers after the first join now (the first search's
    /// conflicts are in `meter`).
    fn met(self, meter: &AtomicU64, started: Instant) -> bool {
        started.elapsed() >= self.delay
            || self
                .conflicts
                .is_some_and(|n| meter.load(Ordering::Relaxed) >= n)
    }

    /// How long the race may wait before it looks at [`Join::met`] again.
    fn next_look(self, started: Instant) -> Duration {
        let left = self.delay.saturating_sub(started.elapsed());
        match self.conflicts {
            Some(_) => left.min(METER_POLL),
            None => left,
        }
    }
}

/// How often the race looks at the first search's conflicts while the
/// others wait to join.
const METER_POLL: Duration = Duration::from_millis(5);

/// How a search takes part in a race ([`super::solve_one`]).
pub(super) struct Entry<'r> {
    /// Set when the race is over: the search stops.
    pub stop: Arc<AtomicBool>,
    /// Where the first search publishes its conflicts (when the others
    /// join at a number of them).
    pub meter: Option<Arc<AtomicU64>>,
    /// For the first search (on the calling thread): when its referee is
    /// due at the latest, and what starts it ([`super::Search::hand_over`]).
    pub hand_over: Option<(Instant, &'r dyn Fn())>,
    /// Taking turns on one core (the `turns` module): the search's place
    /// at the baton, and what starts the next search's thread when it
    /// passes the baton to one not yet started.
    pub seat: Option<Seat>,
    pub start_next: Option<&'r dyn Fn()>,
}

/// One search of a race's queue: which system (0: the caller's, `i`:
/// fallback `i`), its seed past the caller's, and its conflict budget.
#[derive(Clone, Copy, Debug)]
pub(super) struct Search {
    pub system: usize,
    pub seed_offset: u32,
    pub conflict_limit: Option<u64>,
}

/// The queue of a race of `jobs` workers: the caller's system (with
/// `first_limit`), each fallback, then the last of them (or the caller's
/// system, without fallbacks) seeded `+ 1`, `+ 2`, …, one search per
/// worker, and one more when the first has a budget (its worker goes on
/// with it). With `back_after` too (and a fallback), that one more
/// search gets `back_after` conflicts, and then the caller's system is
/// searched once more, as at first but with no budget: the first
/// worker goes back to it.
pub(super) fn queue(
    jobs: usize,
    fallbacks: usize,
    first_limit: Option<u64>,
    back_after: Option<u64>,
) -> Vec<Search> {
    let n = jobs.max(1) + usize::from(first_limit.is_some());
    let mut q: Vec<Search> = (0..n)
        .map(|i| {
            let system = i.min(fallbacks);
            Search {
                system,
                seed_offset: (i - system) as u32,
                conflict_limit: first_limit.filter(|_| i == 0),
            }
        })
        .collect();
    if let (Some(_), Some(back), true) = (first_limit, back_after, fallbacks > 0) {
        q[n - 1].conflict_limit = Some(back);
        q.push(Search {
            system: 0,
            seed_offset: 0,
            conflict_limit: None,
        });
    }
    q
}

/// Races the searches of [`queue`] on `opts.jobs` workers (see the
/// module documentation): the calling thread is worker 0 and runs the
/// first search itself; once that search is no trivial one, it starts a
/// referee thread ([`super::Search::hand_over`]), which starts the other
/// workers once `join` is met, each taking the next search of the
/// queue, and waits for the winner. A search that answers sooner costs
/// no other thread: the search's thread cost a 9x9 solve 0.2-0.5 ms
/// here (of 2-4 ms; CPU, medians and first quartiles of 150-200
/// interleaved runs), hidato-9x9-s1 (whose referee starts) ~0.8 ms. A
/// search that meets its conflict budget does not answer, its worker
/// takes the next one instead (if any is left; else its answer stands
/// once no other search runs).
pub(super) fn race(
    sys: &System,
    fallbacks: &[&Fallback],
    first_limit: Option<u64>,
    back_after: Option<u64>,
    opts: &BmcOptions,
    join: Join,
) -> Result<BmcResult, BmcError> {
    let started = Instant::now();
    // For as many workers as may join (the cores are counted if they do).
    let most = match opts.jobs {
        0 => AUTO_JOBS,
        n => n,
    };
    let queue = queue(most, fallbacks.len(), first_limit, back_after);
    // Every search stops at once when the race is over.
    let stop = Arc::new(AtomicBool::new(false));
    let meter = Arc::new(AtomicU64::new(0));
    let board = Mutex::new(Board::default());
    let changed = Condvar::new();
    let winner = thread::scope(|s| {
        let ctx = Workers {
            sys,
            fallbacks,
            opts,
            queue: &queue,
            board: &board,
            changed: &changed,
            stop: &stop,
            meter: &meter,
            join,
            started,
        };
        let referee = OnceCell::new();
        let start = || {
            referee.get_or_init(|| {
                thread::Builder::new()
                    .name("bmc-race".into())
                    .stack_size(REFEREE_STACK)
                    .spawn_scoped(s, move || ctx.referee(s, true))
                    .ok()
            });
        };
        let first = {
            let mut b = lock(&board);
            b.running += 1;
            b.take(queue.len())
        };
        ctx.work_from(first, Some((started + join.delay, &start)));
        match referee.into_inner().flatten() {
            Some(r) => r.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            // Never joined (or no thread for it): the first search's
            // answer is on the board.
            None => ctx.referee(s, false),
        }
    });
    let searches = lock(&board).next;
    let mut r = winner.unwrap_or_else(|| Err(BmcError::Solver("every search failed".into())))?;
    r.searches = searches;
    Ok(r)
}

/// What every worker of one race shares.
#[derive(Clone, Copy)]
struct Workers<'a> {
    sys: &'a System,
    fallbacks: &'a [&'a Fallback<'a>],
    opts: &'a BmcOptions,
    queue: &'a [Search],
    board: &'a Mutex<Board>,
    changed: &'a Condvar,
    stop: &'a Arc<AtomicBool>,
    meter: &'a Arc<AtomicU64>,
    join: Join,
    started: Instant,
}

impl<'a> Workers<'a> {
    /// Waits for the race's answer and returns it, having ended the race
    /// (the searches still running are told to stop). Meanwhile, if
    /// `may_join`, it starts workers 1.. once the join is due.
    fn referee<'s>(self, s: &'s thread::Scope<'s, 'a>, may_join: bool) -> Option<Answer> {
        let mut joined = !may_join;
        let mut b = lock(self.board);
        let winner = loop {
            if !b.results.is_empty() {
                break Some(b.results.swap_remove(0));
            }
            if b.running == 0 {
                // Only a search that met its budget answered, or every
                // search that started panicked (the scope passes the
                // panic on).
                break b.spare.take();
            }
            if !joined && self.join.met(self.meter, self.started) {
                joined = true;
                drop(b);
                for w in 1..workers(self.opts.jobs) {
                    if self.spawn(s, w).is_err() {
                        break;
                    }
                }
                b = lock(self.board);
                continue;
            }
            b = match joined {
                true => self.changed.wait(b).unwrap_or_else(|e| e.into_inner()),
                false => {
                    let wait = self.join.next_look(self.started);
                    let waited = self.changed.wait_timeout(b, wait);
                    waited.unwrap_or_else(|e| e.into_inner()).0
                }
            };
        };
        b.over = true;
        drop(b);
        self.stop.store(true, Ordering::Relaxed);
        winner
    }

    /// Starts worker `w` (counted running before it starts, so the race
    /// cannot end between the spawn and its first search): it takes the
    /// next search of the queue, and after a search that met its budget
    /// the next one, until one answers or none is left.
    fn spawn<'s>(self, s: &'s thread::Scope<'s, 'a>, w: usize) -> std::io::Result<()> {
        lock(self.board).running += 1;
        let spawned = thread::Builder::new()
            .name(format!("bmc-search-{w}"))
            .stack_size(STACK)
            .spawn_scoped(s, move || {
                let first = lock(self.board).take(self.queue.len());
                self.work_from(first, None)
            });
        if spawned.is_err() {
            lock(self.board).running -= 1;
            self.changed.notify_all();
        }
        spawned.map(drop)
    }

    /// A worker counted running: runs search `first` of the queue (none:
    /// the race is over, or no search is left) and the ones it goes on
    /// to. `hand_over`: the first worker's ([`Entry::hand_over`]).
    fn work_from(self, first: Option<usize>, hand_over: Option<(Instant, &dyn Fn())>) {
        let mut turn = Turn {
            board: self.board,
            changed: self.changed,
            answer: None,
        };
        let Some(mut i) = first else {
            return;
        };
        loop {
            let metered = i == 0 && self.join.conflicts.is_some();
            let entry = Entry {
                stop: self.stop.clone(),
                meter: metered.then(|| self.meter.clone()),
                hand_over,
                seat: None,
                start_next: None,
            };
            let r = run(
                self.sys,
                self.fallbacks,
                self.queue[i],
                i,
                self.opts,
                &entry,
                self.started,
            );
            let budget_met = matches!(&r, Ok(r) if matches!(r.limit, Some(Limit::Conflicts(_))))
                && self.queue[i].conflict_limit.is_some();
            if budget_met {
                let mut b = lock(self.board);
                if let Some(j) = b.take(self.queue.len()) {
                    i = j;
                    continue;
                }
                if b.running > 1 {
                    b.spare = Some(r);
                    return;
                }
            }
            turn.answer = Some(r);
            return;
        }
    }
}

/// Runs search `i` of the queue (`search`) as `entry`: builds its system
/// if it is a fallback, and counts its times from the start of the race.
fn run(
    sys: &System,
    fallbacks: &[&Fallback],
    search: Search,
    i: usize,
    opts: &BmcOptions,
    entry: &Entry,
    started: Instant,
) -> Result<BmcResult, BmcError> {
    let mut o = opts.clone();
    o.jobs = 1;
    o.seed = opts.seed.wrapping_add(search.seed_offset);
    o.conflict_limit = search.conflict_limit.or(opts.conflict_limit);
    let offset = started.elapsed();
    if i > 0 {
        // One progress line: the first search's.
        o.progress = None;
        o.timeout = opts.timeout.map(|t| t.saturating_sub(offset));
    }
    let built = (search.system > 0).then(|| fallbacks[search.system - 1]());
    let system = built.as_ref().unwrap_or(sys);
    solve_one(system, &o, Some(entry)).map(|r| r.of_search(offset, search.system))
}

/// The board, even if a thread panicked while holding it.
fn lock(board: &Mutex<Board>) -> MutexGuard<'_, Board> {
    board.lock().unwrap_or_else(|e| e.into_inner())
}
