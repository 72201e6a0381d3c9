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
//!   value of a set does not depend on how it was reached.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

use super::bounds::{Bounds, Cost, INF};
use super::memo::{self, Entry, Memo};
use crate::game::symmetry::Symmetry;
use crate::game::table::Table;
use crate::game::tree::Tree;

/// Depth allowance meaning "no limit".
pub const UNLIMITED: u32 = u32::MAX;

/// Memo salt for worst-case feasibility questions.
const WORST_SALT: u32 = 0x4000_0000;

/// Sets at least this large evaluate their candidates in parallel.
const PAR_SET: usize = 64;
/// Work (set size × candidates) above which partitions are counted in
/// parallel.
const PAR_WORK: usize = 1 << 16;

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

/// One candidate experiment with its one-step lower bound.
#[derive(Clone, Copy, Debug)]
struct Cand {
    lb: Cost,
    /// Largest part that still needs work (worst-case ordering).
    max_part: u32,
    /// Whether the experiment can end the play for one of the codes.
    hit: bool,
    e: u32,
}

/// Everything the search shares between nodes and threads.
pub struct Search<'a> {
    table: &'a Table,
    n_out: usize,
    is_final: Vec<bool>,
    final_game: bool,
    bounds: Bounds,
    /// Every experiment shows each final outcome on at most one code.
    single_hit: bool,
    /// `hitter[c]`: an experiment whose final outcome only code `c` shows
    /// (`u32::MAX` if none).
    hitter: Vec<u32>,
    symmetry: Option<&'a dyn Symmetry>,
    all: Vec<u32>,
    pub memo: Memo,
    pub nodes: AtomicU64,
    /// Best value found so far at the root (for progress reports).
    pub root_best: AtomicU32,
}

impl<'a> Search<'a> {
    pub fn new(table: &'a Table, symmetry: Option<&'a dyn Symmetry>) -> Search<'a> {
        let n = table.n_codes();
        let mut single_hit = true;
        let mut hitter = vec![u32::MAX; n];
        let mut final_count = vec![0u32; table.outcomes.len()];
        for e in 0..table.experiments.len() {
            final_count.iter_mut().for_each(|x| *x = 0);
            let row = table.row(e);
            let mut finals = 0;
            for &o in row {
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
        Search {
            table,
            n_out: table.outcomes.len(),
            is_final: table.is_final.clone(),
            final_game: table.has_final(),
            bounds: Bounds::new(table),
            single_hit,
            hitter,
            symmetry,
            all: (0..table.experiments.len() as u32).collect(),
            memo: Memo::new(),
            nodes: AtomicU64::new(0),
            root_best: AtomicU32::new(INF),
        }
    }

    pub fn bounds(&self) -> &Bounds {
        &self.bounds
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
    /// an optimal experiment. Requires the set's depth bound to fit.
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
            let mut seen = vec![false; self.n_out];
            'codes: for &c in set {
                let h = self.hitter[c as usize];
                if h == u32::MAX {
                    continue;
                }
                let row = self.table.row(h as usize);
                seen.iter_mut().for_each(|s| *s = false);
                for &x in set {
                    let o = row[x as usize] as usize;
                    if seen[o] {
                        continue 'codes;
                    }
                    seen[o] = true;
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
            (0..self.table.experiments.len())
                .find(|&e| self.table.outcome(e, a) != self.table.outcome(e, b))
                .map(|e| (2, e as u32))
        } else {
            None
        }
    }

    /// The set's lower bound with `depth` experiments allowed, improved by
    /// what the quick check rules out.
    fn base_bound(&self, n: usize, depth: u32) -> Cost {
        let d = (depth != UNLIMITED).then_some(depth);
        self.bounds.total_within(n, d)
    }

    // ----- candidates ------------------------------------------------

    /// Counts the parts of `set` under experiment `e` and turns them into
    /// a candidate, or `None` if `e` is useless or ambiguous here.
    fn candidate(&self, set: &[u16], e: u32, depth: u32, counts: &mut [u32]) -> Option<Cand> {
        counts.iter_mut().for_each(|x| *x = 0);
        let row = self.table.row(e as usize);
        for &c in set {
            counts[row[c as usize] as usize] += 1;
        }
        let n = set.len() as u32;
        let sub = child_depth(depth);
        let mut lb = n;
        let mut hit = false;
        let mut max_part = 0;
        for (o, &k) in counts.iter().enumerate() {
            if k == 0 {
                continue;
            }
            if self.final_game && self.is_final[o] {
                if k > 1 {
                    return None;
                }
                hit = true;
            } else if !self.done(o, k as usize) {
                if k == n {
                    return None;
                }
                max_part = max_part.max(k);
                lb = add(lb, self.base_bound(k as usize, sub));
            }
        }
        Some(Cand {
            lb,
            max_part,
            hit,
            e,
        })
    }

    /// Every useful candidate for `set`, unsorted.
    fn candidates(&self, set: &[u16], depth: u32, history: &[u32]) -> Vec<Cand> {
        let reduced = self.symmetry.and_then(|s| s.candidates(history, set));
        let list: &[u32] = reduced.as_deref().unwrap_or(&self.all);
        if set.len() * list.len() >= PAR_WORK {
            list.par_chunks(64)
                .flat_map_iter(|chunk| {
                    let mut counts = vec![0u32; self.n_out];
                    chunk
                        .iter()
                        .filter_map(|&e| self.candidate(set, e, depth, &mut counts))
                        .collect::<Vec<_>>()
                })
                .collect()
        } else {
            let mut counts = vec![0u32; self.n_out];
            list.iter()
                .filter_map(|&e| self.candidate(set, e, depth, &mut counts))
                .collect()
        }
    }

    /// The parts of `set` under `e` that need more experiments, largest
    /// first, as (outcome, codes).
    fn parts(&self, set: &[u16], e: u32) -> Vec<(u8, Vec<u16>)> {
        let row = self.table.row(e as usize);
        let mut buckets: Vec<Vec<u16>> = vec![Vec::new(); self.n_out];
        for &c in set {
            buckets[row[c as usize] as usize].push(c);
        }
        let mut parts: Vec<(u8, Vec<u16>)> = buckets
            .into_iter()
            .enumerate()
            .filter(|(o, p)| !p.is_empty() && !self.done(*o, p.len()))
            .map(|(o, p)| (o as u8, p))
            .collect();
        parts.sort_by_key(|(o, p)| (std::cmp::Reverse(p.len()), *o));
        parts
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
        self.nodes.fetch_add(1, Ordering::Relaxed);
        let n = set.len();
        if n == 0 || (!self.final_game && n == 1) {
            return 0;
        }
        let mut lb = self.base_bound(n, depth);
        if lb >= beta {
            return lb;
        }
        if let Some((v, _)) = self.quick(set) {
            return v;
        }
        if self.final_game && self.single_hit && n as u64 <= self.bounds.shape.branching + 1 {
            // No code splits the rest perfectly: every candidate leaves a
            // part of two or more (or hits nothing).
            lb = lb.max(2 * n as Cost);
            if lb >= beta {
                return lb;
            }
        }
        let key = memo::key(set, depth);
        if let Some(entry) = self.memo.get(key) {
            if entry.exact || entry.value >= beta {
                return entry.value;
            }
            lb = lb.max(entry.value);
        }
        let mut cands = self.candidates(set, depth, history);
        cands.sort_unstable_by_key(|c| (c.lb, !c.hit, c.e));
        let (best, best_e, floor) = if n >= PAR_SET && cands.len() > 1 {
            self.total_parallel(set, &cands, beta, lb, depth, history)
        } else {
            self.total_sequential(set, &cands, beta, lb, depth, history)
        };
        if let Some(e) = best_e {
            self.memo.put(key, Entry::exact(best, e));
            best
        } else {
            self.memo.put(key, Entry::bound(floor));
            floor
        }
    }

    /// Tries candidates in order; returns (best, its experiment, the least
    /// proven bound of the candidates that failed).
    fn total_sequential(
        &self,
        set: &[u16],
        cands: &[Cand],
        beta: Cost,
        lb: Cost,
        depth: u32,
        history: &mut Vec<u32>,
    ) -> (Cost, Option<u32>, Cost) {
        let mut best = beta;
        let mut best_e = None;
        let mut floor = INF;
        let mut tried: HashSet<Vec<u16>> = HashSet::new();
        for c in cands {
            if c.lb >= best {
                floor = floor.min(c.lb);
                break;
            }
            if !tried.insert(self.signature(set, c.e)) {
                continue;
            }
            let v = self.evaluate(set, c.e, best, depth, history);
            if v < best {
                best = v;
                best_e = Some(c.e);
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
        cands: &[Cand],
        beta: Cost,
        lb: Cost,
        depth: u32,
        history: &[u32],
    ) -> (Cost, Option<u32>, Cost) {
        let mut h = history.to_vec();
        let first = self.evaluate(set, cands[0].e, beta, depth, &mut h);
        if first < beta {
            self.report_root(history, first);
            if first <= lb.max(cands[1].lb) {
                return (first, Some(cands[0].e), INF);
            }
        }
        let limit = first.min(beta);
        let floor = AtomicU32::new(if first < beta { INF } else { first });
        // The candidates that could still win, without duplicate
        // partitions (the first occurrence in candidate order stays).
        let mut seen = HashSet::new();
        seen.insert(self.signature(set, cands[0].e));
        let mut rest: Vec<(u32, Cand)> = Vec::new();
        for (i, c) in cands.iter().enumerate().skip(1) {
            if c.lb >= limit {
                floor.fetch_min(c.lb, Ordering::Relaxed);
                break;
            }
            if seen.insert(self.signature(set, c.e)) {
                rest.push((i as u32, *c));
            }
        }
        // best holds (value << 32 | candidate position).
        let init = if first < beta {
            (first as u64) << 32
        } else {
            (beta as u64) << 32 | u32::MAX as u64
        };
        let best = AtomicU64::new(init);
        rest.par_iter().for_each(|&(pos, c)| {
            let cur = best.load(Ordering::Acquire);
            let (bv, bpos) = ((cur >> 32) as Cost, cur as u32);
            // A later candidate must beat the best; an earlier one may tie.
            let target = if bpos != u32::MAX && pos < bpos {
                bv + 1
            } else {
                bv
            };
            if c.lb >= target || (pos > bpos && bv <= lb) {
                floor.fetch_min(c.lb.max(target), Ordering::Relaxed);
                return;
            }
            let mut h = history.to_vec();
            let v = self.evaluate(set, c.e, target, depth, &mut h);
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
            (bv, Some(cands[bpos as usize].e), INF)
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
        let bounds: Vec<Cost> = parts
            .iter()
            .map(|(_, p)| self.base_bound(p.len(), sub))
            .collect();
        let mut rest: Cost = bounds.iter().fold(0, |a, &b| add(a, b));
        let mut acc = set.len() as Cost;
        if add(acc, rest) >= best {
            return add(acc, rest);
        }
        history.push(e);
        for ((_, part), &b) in parts.iter().zip(&bounds) {
            rest -= b;
            let budget = best - acc - rest;
            let v = self.total(part, budget, sub, history);
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
                let key = memo::key(set, depth);
                match self.memo.get(key) {
                    Some(entry) if entry.exact => entry.experiment,
                    _ => {
                        self.total(set, INF, depth, history);
                        self.memo
                            .get(key)
                            .filter(|e| e.exact)
                            .map(|e| e.experiment)
                            .expect("a finite optimum is stored with its experiment")
                    }
                }
            }
        };
        self.node(set, e, history, |part, h| {
            self.total_tree(part, child_depth(depth), h)
        })
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
        self.feasible_choice(set, depth, history).is_some()
    }

    /// An experiment that starts a strategy of depth at most `depth` for
    /// `set` (`Some(u32::MAX)` if nothing needs to be played).
    fn feasible_choice(&self, set: &[u16], depth: u32, history: &mut Vec<u32>) -> Option<u32> {
        self.nodes.fetch_add(1, Ordering::Relaxed);
        let n = set.len();
        if n == 0 || (!self.final_game && n == 1) {
            return Some(u32::MAX);
        }
        if self.bounds.depth[n] > depth {
            return None;
        }
        if self.final_game && n == 1 && self.hitter[set[0] as usize] != u32::MAX {
            return Some(self.hitter[set[0] as usize]);
        }
        let key = memo::key(set, WORST_SALT | depth);
        if let Some(entry) = self.memo.get(key) {
            return entry.exact.then_some(entry.experiment);
        }
        let mut cands = self.candidates(set, depth, history);
        let fits = |c: &Cand| self.bounds.depth[c.max_part as usize] < depth;
        cands.retain(fits);
        cands.sort_unstable_by_key(|c| (c.max_part, c.lb, !c.hit, c.e));
        let mut tried: HashSet<Vec<u16>> = HashSet::new();
        let mut found = None;
        for c in &cands {
            if !tried.insert(self.signature(set, c.e)) {
                continue;
            }
            history.push(c.e);
            let ok = self
                .parts(set, c.e)
                .iter()
                .all(|(_, part)| self.feasible(part, depth - 1, history));
            history.pop();
            if ok {
                found = Some(c.e);
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
        let e = self
            .feasible_choice(set, depth, history)
            .expect("the set was proven feasible");
        self.node(set, e, history, |part, h| {
            self.worst_tree(part, depth - 1, h)
        })
    }
    // ----- a forced first experiment ----------------------------------

    /// Whether `e` tells something about `set` or can end the play.
    pub fn is_useful(&self, set: &[u16], e: u32) -> bool {
        let mut counts = vec![0u32; self.n_out];
        self.candidate(set, e, UNLIMITED, &mut counts).is_some()
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
            .all(|(_, part)| self.feasible(part, depth - 1, history));
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
