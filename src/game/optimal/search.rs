//! The branch-and-bound search over sets of possible codes.
//!
//! Input: a [`Table`], an optional [`Symmetry`], and a set of codes (sorted
//! 0-based code indices) with a budget β and a depth allowance. Output: a
//! [`Cost`] `v`: if `v < β` it is the exact optimal value of the set,
//! otherwise the optimal value is at least `v` (a proof that the set cannot
//! be done within the budget). The same contract holds for every recursive
//! call, which is what lets budgets flow down the tree.
//!
//! Invariants:
//! * Costs follow [`crate::game::tree`]: in games with final outcomes the
//!   experiment showing the final outcome counts; in identification games
//!   a set of one code costs nothing more.
//! * An experiment is a candidate for a set unless it is useless (all
//!   codes in one non-final part, nothing learnt and nothing hit) or
//!   ambiguous (a final outcome shown by two codes of the set, after which
//!   the play would end without a known code).
//! * Candidates are tried in order of their one-step lower bound (size of
//!   the set plus the size bound of every part), and the loop stops at the
//!   first candidate whose bound reaches the best value found, or when the
//!   best value meets the set's lower bound.
//! * Memo entries ([`Memo`]) are keyed by the set and the depth allowance
//!   (or, for the worst case, the depth asked), never by the history: the
//!   value of a set does not depend on how it was reached. Large sets of
//!   games with a canonical form ([`Symmetry::canonical`]) are keyed by
//!   their symmetry class; the experiment stored under such a key belongs
//!   to another member of the class and is never played on this one.
//!
//! Order of work at a node: the cheap facts ([`Search::known`]: size
//! bound, the perfect-split check, the memo); the set's own codes as
//! guesses ([`Search::probe_hits`]), which often reach the set's bound;
//! then one scan of every candidate's part counts (byte counts and SWAR
//! for one-final-outcome games, [`super::packed`]) and evaluation in
//! bound order, in parallel for large sets. Before recursing into a
//! candidate's parts, all parts' cheap facts are summed, so most hopeless
//! candidates stop without any recursion.

use std::cell::RefCell;
use std::collections::HashSet;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

use super::bounds::{Bounds, Cost, INF};
use super::memo::{self, Entry, Memo};
use super::packed::{linear_prefix, Packed};
use crate::game::symmetry::Symmetry;
use crate::game::table::Table;
use crate::game::tree::Tree;

/// Depth allowance meaning "no limit".
pub const UNLIMITED: u32 = u32::MAX;

/// Memo salt for worst-case feasibility questions.
const WORST_SALT: u32 = 0x4000_0000;

/// The open parts of a set under one experiment, in one buffer.
struct Parts {
    codes: Vec<u16>,
    /// (outcome, start, length), largest first.
    spans: Vec<(u8, u32, u32)>,
}

impl Parts {
    fn iter(&self) -> impl Iterator<Item = &[u16]> + '_ {
        self.spans
            .iter()
            .map(|&(_, at, k)| &self.codes[at as usize..(at + k) as usize])
    }
}

/// Candidates [`Search::probe_hits`] evaluates at most.
const PROBES: usize = 4;

/// When the search splits work between threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// Sets at least this large evaluate their candidates in parallel.
    pub par_set: usize,
    /// Work (set size × candidates) above which partitions are counted
    /// in parallel.
    pub par_work: usize,
    /// Candidates per parallel counting chunk.
    pub chunk: usize,
    /// Sets the memo records at most.
    pub memo_capacity: usize,
    /// Sets at least this large are keyed by their symmetry class (when
    /// the game's symmetry gives canonical forms).
    pub canon_min: usize,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            par_set: 64,
            par_work: 1 << 17,
            chunk: 256,
            memo_capacity: memo::DEFAULT_CAPACITY,
            canon_min: 12,
        }
    }
}

fn child_depth(d: u32) -> u32 {
    if d == UNLIMITED {
        UNLIMITED
    } else {
        d - 1
    }
}

fn add(a: Cost, b: Cost) -> Cost {
    a.saturating_add(b).min(INF)
}

/// (one-step bound, experiment) of a packed total-mode key.
#[inline]
fn unpack(key: u64) -> (Cost, u32) {
    ((key >> 33) as Cost, key as u32)
}

thread_local! {
    /// Per-thread scratch for part counts (candidates × outcomes).
    static COUNTS: RefCell<Vec<u16>> = const { RefCell::new(Vec::new()) };
    /// The same as bytes, for [`Packed`] scans.
    static BYTES: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// Canonical images of sets, for memo keys.
    static CANON: RefCell<Vec<u16>> = const { RefCell::new(Vec::new()) };
}

/// How a candidate scan filters and orders.
#[derive(Clone, Copy)]
enum Mode {
    /// Keep candidates whose one-step bound is below the limit; order by
    /// (bound, hits first, index).
    Total { limit: Cost },
    /// Keep candidates whose largest open part fits in `depth - 1`
    /// experiments; order by (largest part, bound, hits first, index).
    Worst { depth: u32 },
}

/// The surviving candidates of a scan, as packed sort keys whose low 32
/// bits are the experiment, plus the least bound of those dropped.
struct Scan {
    keys: Vec<u64>,
    dropped_min: Cost,
}

impl Scan {
    fn merge(mut self, other: Scan) -> Scan {
        self.keys.extend(other.keys);
        self.dropped_min = self.dropped_min.min(other.dropped_min);
        self
    }
}

/// Everything the search shares between nodes and threads.
pub struct Search<'a> {
    table: &'a Table,
    n_out: usize,
    n_exp: usize,
    /// `cols[c * n_exp + e]`: outcome of experiment `e` on code `c` (the
    /// table transposed, so a code's outcomes are contiguous).
    cols: Vec<u8>,
    is_final: Vec<bool>,
    /// Outcomes after which play continues (identification games: all).
    open: Vec<usize>,
    /// Final outcomes (games with final outcomes).
    finals: Vec<usize>,
    final_game: bool,
    bounds: Bounds,
    /// `limited[d][k]`: bound for `k` codes within `d` experiments.
    limited: Vec<Vec<Cost>>,
    /// Byte-count layout, for games with one final outcome.
    packed: Option<Packed>,
    /// [`linear_prefix`] of the unlimited bounds and of each `limited`.
    tau: u8,
    tau_limited: Vec<u8>,
    /// Every experiment shows each final outcome on at most one code.
    single_hit: bool,
    /// `hitter[c]`: an experiment whose final outcome only code `c` shows
    /// (`u32::MAX` if none).
    hitter: Vec<u32>,
    symmetry: Option<&'a dyn Symmetry>,
    /// Thresholds for parallel work.
    pub tuning: Tuning,
    pub memo: Memo,
    pub nodes: AtomicU64,
    /// Best value found so far at the root (for progress reports).
    pub root_best: AtomicU32,
}

impl<'a> Search<'a> {
    /// Prepares a search; `max_depth` is the largest depth allowance any
    /// call will pass (bounds are tabulated up to it).
    pub fn new(
        table: &'a Table,
        symmetry: Option<&'a dyn Symmetry>,
        max_depth: Option<u32>,
        tuning: Tuning,
    ) -> Search<'a> {
        let n = table.n_codes();
        let n_exp = table.experiments.len();
        let mut single_hit = true;
        let mut hitter = vec![u32::MAX; n];
        let mut final_count = vec![0u32; table.outcomes.len()];
        let mut cols = vec![0u8; n * n_exp];
        for e in 0..n_exp {
            final_count.iter_mut().for_each(|x| *x = 0);
            let row = table.row(e);
            let mut finals = 0;
            for (c, &o) in row.iter().enumerate() {
                cols[c * n_exp + e] = o;
                if table.is_final[o as usize] {
                    final_count[o as usize] += 1;
                    finals += 1;
                }
            }
            if finals > 1 {
                single_hit = false;
            }
            for (c, &o) in row.iter().enumerate() {
                if table.is_final[o as usize]
                    && final_count[o as usize] == 1
                    && hitter[c] == u32::MAX
                {
                    hitter[c] = e as u32;
                }
            }
        }
        let final_game = table.has_final();
        let (finals, open): (Vec<usize>, Vec<usize>) =
            (0..table.outcomes.len()).partition(|&o| final_game && table.is_final[o]);
        let bounds = Bounds::new(table);
        let limited: Vec<Vec<Cost>> = (0..=max_depth.unwrap_or(0).min(n as u32 + 1))
            .map(|d| {
                (0..=n)
                    .map(|k| {
                        if bounds.depth[k] > d {
                            INF
                        } else {
                            bounds.total[k]
                        }
                    })
                    .collect()
            })
            .collect();
        let tau = linear_prefix(&bounds.total);
        let tau_limited = limited
            .iter()
            .map(|b: &Vec<Cost>| linear_prefix(b))
            .collect();
        Search {
            packed: Packed::new(&table.is_final).filter(|_| final_game),
            tau,
            tau_limited,
            table,
            n_out: table.outcomes.len(),
            n_exp,
            cols,
            is_final: table.is_final.clone(),
            open,
            finals,
            final_game,
            bounds,
            limited,
            single_hit,
            hitter,
            symmetry,
            tuning,
            memo: Memo::with_capacity(tuning.memo_capacity),
            nodes: AtomicU64::new(0),
            root_best: AtomicU32::new(INF),
        }
    }

    pub fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    /// Size bounds for sets that have `depth` experiments left.
    #[inline]
    fn bnd(&self, depth: u32) -> &[Cost] {
        if depth == UNLIMITED {
            &self.bounds.total
        } else {
            match self.limited.get(depth as usize) {
                Some(b) => b,
                // Deeper than any tree can need: no limit in effect.
                None => &self.bounds.total,
            }
        }
    }

    /// The memo key of `set` under `salt`, and whether it is the key of
    /// the set's symmetry class (a canonical image) rather than its own.
    fn memo_key(&self, set: &[u16], salt: u32) -> (u128, bool) {
        if set.len() >= self.tuning.canon_min {
            if let Some(sym) = self.symmetry {
                let key = CANON.with(|cell| {
                    let mut image = cell.borrow_mut();
                    sym.canonical(set, &mut image)
                        .then(|| memo::key(&image, salt))
                });
                if let Some(key) = key {
                    return (key, true);
                }
            }
        }
        (memo::key(set, salt), false)
    }

    /// The [`linear_prefix`] of [`Search::bnd`]`(depth)`.
    #[inline]
    fn tau(&self, depth: u32) -> u8 {
        if depth == UNLIMITED {
            self.tau
        } else {
            self.tau_limited
                .get(depth as usize)
                .copied()
                .unwrap_or(self.tau)
        }
    }

    /// Whether a part with outcome `o` and `k` codes needs no more
    /// experiments.
    #[inline]
    fn done(&self, o: usize, k: usize) -> bool {
        if self.final_game {
            self.is_final[o]
        } else {
            k <= 1
        }
    }

    // ----- shortcuts -------------------------------------------------

    /// Exact answers that need no candidate list: returns the value and
    /// an optimal experiment. The caller must have checked that the set's
    /// size bound fits the depth allowance.
    fn quick(&self, set: &[u16]) -> Option<(Cost, u32)> {
        let n = set.len();
        if self.final_game {
            if !self.single_hit {
                return None;
            }
            if n == 1 {
                let h = self.hitter[set[0] as usize];
                return (h != u32::MAX).then_some((1, h));
            }
            // A code that hits itself and splits the rest into singletons
            // reaches the complete-tree bound 2n − 1 (valid while n ≤ b+1).
            if n as u64 > self.bounds.shape.branching + 1 {
                return None;
            }
            'codes: for &c in set {
                let h = self.hitter[c as usize];
                if h == u32::MAX {
                    continue;
                }
                let row = self.table.row(h as usize);
                let mut seen = [0u64; 4];
                for &x in set {
                    let o = row[x as usize] as usize;
                    let (w, bit) = (o / 64, 1u64 << (o % 64));
                    if seen[w] & bit != 0 {
                        continue 'codes;
                    }
                    seen[w] |= bit;
                }
                // Every other code is alone in its part: one more guess each.
                let singles_ok = set
                    .iter()
                    .all(|&x| x == c || self.hitter[x as usize] != u32::MAX);
                if singles_ok {
                    return Some((2 * n as Cost - 1, h));
                }
            }
            None
        } else if n == 2 {
            let (a, b) = (set[0] as usize, set[1] as usize);
            let (ca, cb) = (self.col(a), self.col(b));
            (0..self.n_exp)
                .find(|&e| ca[e] != cb[e])
                .map(|e| (2, e as u32))
        } else {
            None
        }
    }

    /// Code `c`'s outcomes under every experiment.
    #[inline]
    fn col(&self, c: usize) -> &[u8] {
        &self.cols[c * self.n_exp..(c + 1) * self.n_exp]
    }

    /// A lower bound for `set` from its size, the quick check and the
    /// memo, and whether it is exact. `set` is not done and needs
    /// `depth` or fewer experiments.
    fn known(&self, set: &[u16], depth: u32) -> (Cost, bool) {
        let n = set.len();
        let lb = self.bnd(depth)[n];
        if lb >= INF {
            return (INF, true);
        }
        if let Some((v, _)) = self.quick(set) {
            return (v, true);
        }
        let mut lb = lb;
        if self.final_game && self.single_hit && n as u64 <= self.bounds.shape.branching + 1 {
            // No code splits the rest perfectly: every candidate leaves a
            // part of two or more, or hits nothing.
            lb = lb.max(2 * n as Cost);
        } else if !self.final_game && n == 2 {
            // No experiment separates the two codes.
            return (INF, true);
        }
        if n >= 3 {
            if let Some(entry) = self.memo.get(self.memo_key(set, depth).0) {
                if entry.exact {
                    return (entry.value, true);
                }
                lb = lb.max(entry.value);
            }
        }
        (lb, false)
    }

    // ----- candidates ------------------------------------------------

    /// Scans the candidates for `set` (all experiments, or the
    /// symmetry's representatives) and keeps those `mode` allows.
    fn scan(&self, set: &[u16], depth: u32, history: &[u32], mode: Mode) -> Scan {
        let reduced = self.symmetry.and_then(|s| s.candidates(history, set));
        let list = reduced.as_deref();
        let m = list.map_or(self.n_exp, |l| l.len());
        let Tuning {
            par_work, chunk, ..
        } = self.tuning;
        if set.len() * m >= par_work {
            (0..m.div_ceil(chunk))
                .into_par_iter()
                .map(|i| {
                    let range = i * chunk..((i + 1) * chunk).min(m);
                    self.scan_range(set, list, range, depth, mode)
                })
                .reduce(
                    || Scan {
                        keys: Vec::new(),
                        dropped_min: INF,
                    },
                    Scan::merge,
                )
        } else {
            self.scan_range(set, list, 0..m, depth, mode)
        }
    }

    /// Counts parts for candidates `range` (positions in `list`, or
    /// experiment indices) and filters them.
    fn scan_range(
        &self,
        set: &[u16],
        list: Option<&[u32]>,
        range: std::ops::Range<usize>,
        depth: u32,
        mode: Mode,
    ) -> Scan {
        if let (Some(p), Mode::Total { limit }) = (&self.packed, mode) {
            if set.len() <= u8::MAX as usize {
                return self.scan_packed(p, set, list, range, depth, limit);
            }
        }
        let k = self.n_out;
        let len = range.len();
        COUNTS.with(|cell| {
            let mut counts = cell.borrow_mut();
            counts.clear();
            counts.resize(len * k, 0);
            for &c in set {
                let col = self.col(c as usize);
                match list {
                    None => {
                        for (cnt, &o) in counts.chunks_exact_mut(k).zip(&col[range.clone()]) {
                            cnt[o as usize] += 1;
                        }
                    }
                    Some(list) => {
                        for (cnt, &e) in counts.chunks_exact_mut(k).zip(&list[range.clone()]) {
                            cnt[col[e as usize] as usize] += 1;
                        }
                    }
                }
            }
            let n = set.len() as u16;
            let mut scan = Scan {
                keys: Vec::new(),
                dropped_min: INF,
            };
            let experiment = |i: usize| match list {
                None => (range.start + i) as u32,
                Some(l) => l[range.start + i],
            };
            // Final outcomes: hit (one code) or ambiguous (more).
            let hits = |cnt: &[u16]| -> (bool, bool) {
                let mut hit = false;
                let mut ambiguous = false;
                for &o in &self.finals {
                    hit |= cnt[o] == 1;
                    ambiguous |= cnt[o] > 1;
                }
                (hit, ambiguous)
            };
            match mode {
                Mode::Total { limit } => {
                    let bnd = self.bnd(child_depth(depth));
                    for (i, cnt) in counts.chunks_exact(k).enumerate() {
                        let mut lb = n as u64;
                        let mut biggest = 0u16;
                        for &o in &self.open {
                            let x = cnt[o];
                            lb += bnd[x as usize] as u64;
                            biggest = biggest.max(x);
                        }
                        let (hit, ambiguous) = hits(cnt);
                        if biggest == n || ambiguous {
                            continue;
                        }
                        let lb = lb.min(INF as u64) as Cost;
                        if lb < limit {
                            let miss = u64::from(!hit) << 32;
                            scan.keys
                                .push((lb as u64) << 33 | miss | experiment(i) as u64);
                        } else {
                            scan.dropped_min = scan.dropped_min.min(lb);
                        }
                    }
                }
                Mode::Worst { depth } => {
                    let bnd = &self.bounds.total;
                    for (i, cnt) in counts.chunks_exact(k).enumerate() {
                        let mut lb = n as u64;
                        let mut biggest = 0u16;
                        for &o in &self.open {
                            let x = cnt[o];
                            lb += bnd[x as usize] as u64;
                            biggest = biggest.max(x);
                        }
                        let (hit, ambiguous) = hits(cnt);
                        if biggest == n || ambiguous {
                            continue;
                        }
                        // Identification games are done with singletons.
                        let open = if self.final_game || biggest > 1 {
                            biggest
                        } else {
                            0
                        };
                        if self.bounds.depth[open as usize] < depth {
                            let miss = u64::from(!hit) << 32;
                            let lb = lb.min(0x7fff);
                            scan.keys
                                .push((open as u64) << 48 | lb << 33 | miss | experiment(i) as u64);
                        }
                    }
                }
            }
            scan
        })
    }

    /// Adds one to `counts[candidate * S + outcome]` for every code of
    /// `set` and every candidate (experiments `range`, or `list`, already
    /// restricted to the range). `S` is a power of two above every
    /// outcome index, so masking never changes an index and the compiler
    /// drops the bounds checks.
    fn count_bytes<const S: usize>(
        &self,
        set: &[u16],
        list: Option<&[u32]>,
        range: std::ops::Range<usize>,
        counts: &mut [u8],
    ) {
        for &c in set {
            let col = self.col(c as usize);
            match list {
                None => {
                    for (cnt, &o) in counts.chunks_exact_mut(S).zip(&col[range.clone()]) {
                        cnt[o as usize & (S - 1)] += 1;
                    }
                }
                Some(list) => {
                    for (cnt, &e) in counts.chunks_exact_mut(S).zip(list) {
                        cnt[col[e as usize] as usize & (S - 1)] += 1;
                    }
                }
            }
        }
    }

    /// [`Search::scan_range`] in total mode with byte counts.
    fn scan_packed(
        &self,
        p: &Packed,
        set: &[u16],
        list: Option<&[u32]>,
        range: std::ops::Range<usize>,
        depth: u32,
        limit: Cost,
    ) -> Scan {
        let stride = p.stride;
        BYTES.with(|cell| {
            let mut counts = cell.borrow_mut();
            counts.clear();
            counts.resize(range.len() * stride, 0);
            let list = list.map(|l| &l[range.clone()]);
            match stride {
                8 => self.count_bytes::<8>(set, list, range.clone(), &mut counts),
                16 => self.count_bytes::<16>(set, list, range.clone(), &mut counts),
                32 => self.count_bytes::<32>(set, list, range.clone(), &mut counts),
                _ => self.count_bytes::<64>(set, list, range.clone(), &mut counts),
            }
            let sub = child_depth(depth);
            let bnd = self.bnd(sub);
            let tau = self.tau(sub);
            let n = set.len() as u32;
            let check_big = n > tau as u32;
            let mut scan = Scan {
                keys: Vec::new(),
                dropped_min: INF,
            };
            for (i, cnt) in counts.chunks_exact(stride).enumerate() {
                let s = p.summary(cnt, tau, check_big);
                if s.hits > 1 || (s.parts == 1 && s.hits == 0) {
                    continue;
                }
                let lb = if s.big {
                    let sum: u64 = self.open.iter().map(|&o| bnd[cnt[o] as usize] as u64).sum();
                    (n as u64 + sum).min(INF as u64) as Cost
                } else {
                    n + 2 * (n - s.hits) - s.parts
                };
                if lb < limit {
                    // `list` is already restricted to `range`.
                    let e = match list {
                        None => (range.start + i) as u32,
                        Some(l) => l[i],
                    };
                    let miss = u64::from(s.hits == 0) << 32;
                    scan.keys.push((lb as u64) << 33 | miss | e as u64);
                } else {
                    scan.dropped_min = scan.dropped_min.min(lb);
                }
            }
            scan
        })
    }

    /// The parts of `set` under `e` that need more experiments, largest
    /// first (ties by outcome).
    fn parts(&self, set: &[u16], e: u32) -> Parts {
        let row = self.table.row(e as usize);
        let mut count = [0u32; 256];
        for &c in set {
            count[row[c as usize] as usize] += 1;
        }
        let mut spans = Vec::new();
        let mut start = 0u32;
        for (o, &k) in count[..self.n_out].iter().enumerate() {
            if k > 0 && !self.done(o, k as usize) {
                spans.push((o as u8, start, k));
                start += k;
            }
        }
        let mut next = [u32::MAX; 256];
        for &(o, at, _) in &spans {
            next[o as usize] = at;
        }
        let mut codes = vec![0u16; start as usize];
        for &c in set {
            let slot = &mut next[row[c as usize] as usize];
            if *slot != u32::MAX {
                codes[*slot as usize] = c;
                *slot += 1;
            }
        }
        spans.sort_by_key(|&(o, _, k)| (std::cmp::Reverse(k), o));
        Parts { codes, spans }
    }

    /// The partition of `set` by `e` as a label sequence independent of
    /// outcome names (final outcomes keep their identity): equal
    /// signatures mean the same continuation.
    fn signature(&self, set: &[u16], e: u32) -> Vec<u16> {
        let row = self.table.row(e as usize);
        let mut label = vec![u16::MAX; self.n_out];
        let mut next = 0u16;
        set.iter()
            .map(|&c| {
                let o = row[c as usize] as usize;
                if self.is_final[o] {
                    return 0x100 | o as u16;
                }
                if label[o] == u16::MAX {
                    label[o] = next;
                    next += 1;
                }
                label[o]
            })
            .collect()
    }

    // ----- expected case (total), optionally depth-limited -----------

    /// The optimal total of `set` within `depth` experiments, under the
    /// budget contract of the module documentation.
    pub fn total(&self, set: &[u16], beta: Cost, depth: u32, history: &mut Vec<u32>) -> Cost {
        let n = set.len();
        if n == 0 || (!self.final_game && n == 1) {
            return 0;
        }
        let (lb, exact) = self.known(set, depth);
        if exact || lb >= beta {
            return lb;
        }
        self.search_total(set, beta, lb, depth, history)
    }

    /// [`Search::total`] after the cheap checks: `lb` is what they proved.
    fn search_total(
        &self,
        set: &[u16],
        beta: Cost,
        lb: Cost,
        depth: u32,
        history: &mut Vec<u32>,
    ) -> Cost {
        self.search_total_choice(set, beta, lb, depth, history).0
    }

    /// [`Search::search_total`], also returning the optimal experiment
    /// when the value is exact.
    fn search_total_choice(
        &self,
        set: &[u16],
        beta: Cost,
        lb: Cost,
        depth: u32,
        history: &mut Vec<u32>,
    ) -> (Cost, Option<u32>) {
        self.nodes.fetch_add(1, Ordering::Relaxed);
        let (key, _) = self.memo_key(set, depth);
        if let Some((v, e)) = self.probe_hits(set, lb, depth, history) {
            self.memo.put(key, Entry::exact(v, e));
            return (v, Some(e));
        }
        let scan = self.scan(set, depth, history, Mode::Total { limit: beta });
        let mut keys = scan.keys;
        if keys.is_empty() {
            let floor = scan.dropped_min.max(beta);
            self.memo.put(key, Entry::bound(floor));
            return (floor, None);
        }
        keys.sort_unstable();
        let (best, best_e, floor) = if set.len() >= self.tuning.par_set && keys.len() > 1 {
            self.total_parallel(set, &keys, beta, lb, depth, history)
        } else {
            self.total_sequential(set, &keys, beta, lb, depth, history)
        };
        match best_e {
            Some(e) => {
                self.memo.put(key, Entry::exact(best, e));
                (best, Some(e))
            }
            None => {
                let floor = floor.min(scan.dropped_min).max(beta);
                self.memo.put(key, Entry::bound(floor));
                (floor, None)
            }
        }
    }

    /// Before scanning every experiment: if a guess at one of the set's
    /// own codes reaches the set's lower bound `lb`, it is optimal. This
    /// settles most small sets for the price of an n×n count. The
    /// candidate chosen is the one the full search would choose first
    /// (hits precede misses at equal bounds, then experiment order).
    fn probe_hits(
        &self,
        set: &[u16],
        lb: Cost,
        depth: u32,
        history: &mut Vec<u32>,
    ) -> Option<(Cost, u32)> {
        if !(self.final_game && self.single_hit) || lb >= INF {
            return None;
        }
        let mut hitters: Vec<u32> = set
            .iter()
            .map(|&c| self.hitter[c as usize])
            .filter(|&h| h != u32::MAX)
            .collect();
        hitters.sort_unstable();
        hitters.dedup();
        let scan = self.scan_range(
            set,
            Some(&hitters),
            0..hitters.len(),
            depth,
            Mode::Total { limit: lb + 1 },
        );
        let mut keys = scan.keys;
        keys.sort_unstable();
        for &k in keys.iter().take(PROBES) {
            let (_, e) = unpack(k);
            let v = self.evaluate(set, e, lb + 1, depth, history);
            if v <= lb {
                return Some((v, e));
            }
        }
        None
    }

    /// Tries candidates (packed keys, best first) in order; returns (best,
    /// its experiment, the least proven bound of the candidates that
    /// failed).
    fn total_sequential(
        &self,
        set: &[u16],
        keys: &[u64],
        beta: Cost,
        lb: Cost,
        depth: u32,
        history: &mut Vec<u32>,
    ) -> (Cost, Option<u32>, Cost) {
        let mut best = beta;
        let mut best_e = None;
        let mut floor = INF;
        let mut tried: HashSet<Vec<u16>> = HashSet::new();
        for &k in keys {
            let (clb, e) = unpack(k);
            if clb >= best {
                floor = floor.min(clb);
                break;
            }
            if keys.len() > 1 && !tried.insert(self.signature(set, e)) {
                continue;
            }
            let v = self.evaluate(set, e, best, depth, history);
            if v < best {
                best = v;
                best_e = Some(e);
                self.report_root(history, v);
                if best <= lb {
                    break;
                }
            } else {
                floor = floor.min(v);
            }
        }
        (best, best_e, floor)
    }

    /// Like [`Search::total_sequential`], but after the first candidate
    /// the rest run in parallel against a shared best. Ties go to the
    /// earlier candidate and duplicates are removed in candidate order, so
    /// the result does not depend on scheduling.
    fn total_parallel(
        &self,
        set: &[u16],
        keys: &[u64],
        beta: Cost,
        lb: Cost,
        depth: u32,
        history: &[u32],
    ) -> (Cost, Option<u32>, Cost) {
        let mut h = history.to_vec();
        let (_, e0) = unpack(keys[0]);
        let first = self.evaluate(set, e0, beta, depth, &mut h);
        if first < beta {
            self.report_root(history, first);
            if first <= lb.max(unpack(keys[1]).0) {
                return (first, Some(e0), INF);
            }
        }
        let limit = first.min(beta);
        let floor = AtomicU32::new(if first < beta { INF } else { first });
        // The candidates that could still win, without duplicate
        // partitions (the first occurrence in candidate order stays).
        let mut seen = HashSet::new();
        seen.insert(self.signature(set, e0));
        let mut rest: Vec<(u32, Cost, u32)> = Vec::new();
        for (i, &k) in keys.iter().enumerate().skip(1) {
            let (clb, e) = unpack(k);
            if clb >= limit {
                floor.fetch_min(clb, Ordering::Relaxed);
                break;
            }
            if seen.insert(self.signature(set, e)) {
                rest.push((i as u32, clb, e));
            }
        }
        // best holds (value << 32 | candidate position).
        let init = if first < beta {
            (first as u64) << 32
        } else {
            (beta as u64) << 32 | u32::MAX as u64
        };
        let best = AtomicU64::new(init);
        rest.par_iter().for_each(|&(pos, clb, e)| {
            let cur = best.load(Ordering::Acquire);
            let (bv, bpos) = ((cur >> 32) as Cost, cur as u32);
            // A later candidate must beat the best; an earlier one may tie.
            let target = if bpos != u32::MAX && pos < bpos {
                bv + 1
            } else {
                bv
            };
            if clb >= target || (pos > bpos && bv <= lb) {
                floor.fetch_min(clb.max(target), Ordering::Relaxed);
                return;
            }
            let mut h = history.to_vec();
            let v = self.evaluate(set, e, target, depth, &mut h);
            if v < target {
                best.fetch_min((v as u64) << 32 | pos as u64, Ordering::AcqRel);
                self.report_root(history, v);
            } else {
                floor.fetch_min(v, Ordering::Relaxed);
            }
        });
        let cur = best.load(Ordering::Acquire);
        let (bv, bpos) = ((cur >> 32) as Cost, cur as u32);
        if bpos == u32::MAX {
            (beta, None, floor.load(Ordering::Relaxed).max(beta))
        } else {
            (bv, Some(unpack(keys[bpos as usize]).1), INF)
        }
    }

    /// Publishes an improvement found at the root (for progress reports).
    fn report_root(&self, history: &[u32], value: Cost) {
        if history.is_empty() {
            self.root_best.fetch_min(value, Ordering::Relaxed);
        }
    }

    /// The total of `set` when `e` is played now, if below `best`; else a
    /// lower bound that is at least `best`.
    fn evaluate(
        &self,
        set: &[u16],
        e: u32,
        best: Cost,
        depth: u32,
        history: &mut Vec<u32>,
    ) -> Cost {
        let parts = self.parts(set, e);
        let sub = child_depth(depth);
        let bnd = self.bnd(sub);
        let mut acc = set.len() as Cost;
        let mut rest: Cost = parts.iter().fold(0, |a, p| add(a, bnd[p.len()]));
        if add(acc, rest) >= best {
            return add(acc, rest);
        }
        // Cheap knowledge first: exact small parts, memo entries, the
        // "no perfect split" bound. Only then recurse, largest part first.
        let mut known: Vec<(Cost, bool)> = Vec::with_capacity(parts.spans.len());
        rest = 0;
        for part in parts.iter() {
            let (v, exact) = self.known(part, sub);
            if exact {
                acc = add(acc, v);
            } else {
                rest = add(rest, v);
            }
            known.push((v, exact));
        }
        if add(acc, rest) >= best {
            return add(acc, rest);
        }
        history.push(e);
        for (part, &(b, exact)) in parts.iter().zip(&known) {
            if exact {
                continue;
            }
            rest -= b;
            let budget = best - acc - rest;
            let v = if b >= budget {
                b
            } else {
                self.search_total(part, budget, b, sub, history)
            };
            if v >= budget {
                history.pop();
                return add(add(acc, v), rest);
            }
            acc += v;
        }
        history.pop();
        acc
    }

    /// The optimal tree of `set` within `depth` (the value must be
    /// finite): replays the memo, re-solving sets it does not hold.
    pub fn total_tree(&self, set: &[u16], depth: u32, history: &mut Vec<u32>) -> Tree {
        let e = match self.quick(set) {
            Some((_, e)) => e,
            None => {
                let (key, canonical) = self.memo_key(set, depth);
                match self.memo.get(key) {
                    Some(entry) if entry.exact && !canonical => entry.experiment,
                    // Not in the memo, or keyed by its class: solve it again
                    // (its parts are in the memo), within one of the optimum
                    // when that is known.
                    entry => {
                        let beta = match entry {
                            Some(en) if en.exact => en.value + 1,
                            _ => INF,
                        };
                        let (lb, _) = self.known(set, depth);
                        let lb = lb.min(beta - 1);
                        match self.search_total_choice(set, beta, lb, depth, history) {
                            (_, Some(e)) => e,
                            // A set on an optimal path always has a finite
                            // optimum; keep going with any useful experiment
                            // so the replay check reports the problem.
                            (_, None) => self.any_useful(set),
                        }
                    }
                }
            }
        };
        self.node(set, e, history, |part, h| {
            self.total_tree(part, child_depth(depth), h)
        })
    }

    /// The first experiment that tells something about `set`.
    fn any_useful(&self, set: &[u16]) -> u32 {
        (0..self.n_exp as u32)
            .find(|&e| self.is_useful(set, e))
            .unwrap_or(0)
    }

    /// A tree node playing `e` on `set`, with `sub` building the children
    /// that need more experiments.
    fn node(
        &self,
        set: &[u16],
        e: u32,
        history: &mut Vec<u32>,
        mut sub: impl FnMut(&[u16], &mut Vec<u32>) -> Tree,
    ) -> Tree {
        let row = self.table.row(e as usize);
        let mut buckets: Vec<Vec<u16>> = vec![Vec::new(); self.n_out];
        for &c in set {
            buckets[row[c as usize] as usize].push(c);
        }
        history.push(e);
        let mut children = Vec::new();
        for (o, part) in buckets.iter().enumerate() {
            if part.is_empty() {
                continue;
            }
            let child = if self.done(o, part.len()) {
                Tree::Leaf {
                    code: part[0] as usize,
                }
            } else {
                sub(part, history)
            };
            children.push((o as u8, child));
        }
        history.pop();
        Tree::Node {
            experiment: e as usize,
            children,
        }
    }

    // ----- worst case ------------------------------------------------

    /// Whether every code of `set` can be settled within `depth`
    /// experiments.
    pub fn feasible(&self, set: &[u16], depth: u32, history: &mut Vec<u32>) -> bool {
        match self.feasible_trivial(set, depth) {
            Some(answer) => answer.is_some(),
            None => {
                let (key, _) = self.memo_key(set, WORST_SALT | depth);
                match self.memo.get(key) {
                    Some(entry) => entry.exact,
                    None => self.feasible_search(set, depth, history, key).is_some(),
                }
            }
        }
    }

    /// Answers that need no search: `Some(answer)`, where the answer is
    /// an experiment (`u32::MAX` if nothing needs to be played) or `None`
    /// for infeasible.
    fn feasible_trivial(&self, set: &[u16], depth: u32) -> Option<Option<u32>> {
        let n = set.len();
        if n == 0 || (!self.final_game && n == 1) {
            return Some(Some(u32::MAX));
        }
        if self.bounds.depth[n] > depth {
            return Some(None);
        }
        if self.final_game && n == 1 && self.hitter[set[0] as usize] != u32::MAX {
            return Some(Some(self.hitter[set[0] as usize]));
        }
        None
    }

    /// An experiment that starts a strategy of depth at most `depth` for
    /// `set` (`Some(u32::MAX)` if nothing needs to be played).
    fn feasible_choice(&self, set: &[u16], depth: u32, history: &mut Vec<u32>) -> Option<u32> {
        if let Some(answer) = self.feasible_trivial(set, depth) {
            return answer;
        }
        let (key, canonical) = self.memo_key(set, WORST_SALT | depth);
        match self.memo.get(key) {
            Some(entry) if !entry.exact => return None,
            // A canonical key's experiment belongs to another set of the
            // class: search again (the parts are in the memo).
            Some(entry) if !canonical => return Some(entry.experiment),
            _ => {}
        }
        self.feasible_search(set, depth, history, key)
    }

    /// The candidate loop of [`Search::feasible_choice`].
    fn feasible_search(
        &self,
        set: &[u16],
        depth: u32,
        history: &mut Vec<u32>,
        key: u128,
    ) -> Option<u32> {
        self.nodes.fetch_add(1, Ordering::Relaxed);
        let mut keys = self.scan(set, depth, history, Mode::Worst { depth }).keys;
        keys.sort_unstable();
        let mut tried: HashSet<Vec<u16>> = HashSet::new();
        let mut found = None;
        for &k in &keys {
            let e = k as u32;
            if keys.len() > 1 && !tried.insert(self.signature(set, e)) {
                continue;
            }
            history.push(e);
            let ok = self
                .parts(set, e)
                .iter()
                .all(|part| self.feasible(part, depth - 1, history));
            history.pop();
            if ok {
                found = Some(e);
                break;
            }
        }
        self.memo.put(
            key,
            match found {
                Some(e) => Entry::exact(depth, e),
                None => Entry::bound(INF),
            },
        );
        found
    }

    /// A tree of depth at most `depth` for `set` (which must be feasible).
    pub fn worst_tree(&self, set: &[u16], depth: u32, history: &mut Vec<u32>) -> Tree {
        // The set was proven feasible; if that proof is gone (memo full
        // and a different path), any useful experiment keeps the tree
        // going and the replay check reports the problem.
        let e = self
            .feasible_choice(set, depth, history)
            .unwrap_or_else(|| self.any_useful(set));
        self.node(set, e, history, |part, h| {
            self.worst_tree(part, depth - 1, h)
        })
    }

    // ----- a forced first experiment ----------------------------------

    /// Whether `e` tells something about `set` or can end the play.
    pub fn is_useful(&self, set: &[u16], e: u32) -> bool {
        let mut counts = vec![0usize; self.n_out];
        for &c in set {
            counts[self.table.outcome(e as usize, c as usize) as usize] += 1;
        }
        let ambiguous = self.finals.iter().any(|&o| counts[o] > 1);
        let stuck = self.open.iter().any(|&o| counts[o] == set.len());
        !ambiguous && !stuck
    }

    /// The optimal total of `set` when `e` is played first.
    pub fn total_after(&self, set: &[u16], e: u32, depth: u32, history: &mut Vec<u32>) -> Cost {
        if depth == 0 {
            return INF;
        }
        self.evaluate(set, e, INF, depth, history)
    }

    /// The optimal tree of `set` starting with `e`.
    pub fn total_tree_after(
        &self,
        set: &[u16],
        e: u32,
        depth: u32,
        history: &mut Vec<u32>,
    ) -> Tree {
        self.node(set, e, history, |part, h| {
            self.total_tree(part, child_depth(depth), h)
        })
    }

    /// Whether `set` can be done within `depth` experiments starting with
    /// `e`.
    pub fn feasible_after(&self, set: &[u16], e: u32, depth: u32, history: &mut Vec<u32>) -> bool {
        if depth == 0 {
            return false;
        }
        history.push(e);
        let ok = self
            .parts(set, e)
            .iter()
            .all(|part| self.feasible(part, depth - 1, history));
        history.pop();
        ok
    }

    /// A tree of depth at most `depth` starting with `e`.
    pub fn worst_tree_after(
        &self,
        set: &[u16],
        e: u32,
        depth: u32,
        history: &mut Vec<u32>,
    ) -> Tree {
        self.node(set, e, history, |part, h| {
            self.worst_tree(part, depth - 1, h)
        })
    }
}
