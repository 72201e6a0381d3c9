//! One-step look-ahead strategies on an explicit table, built into
//! decision trees.
//!
//! Input: a [`Table`] (its codes' valuations too for the fixed-variable
//! strategies), a [`Strategy`] and a [`Ties`] rule. Output: a [`Tree`]
//! over every code (analysed by `Tree::analyze`), or one play.
//!
//! For the codes still possible S and an experiment e, the outcomes split
//! S into parts of sizes n_i (N = |S|) with f_i variables fixed in part i:
//! * `first-possible`: no look-ahead, the first experiment that can still
//!   show a final outcome (a possible code); in games without final
//!   outcomes, the first experiment that splits S;
//! * `max-models` (Knuth): minimise max n_i;
//! * `exp-models` (Irving): minimise Σ n_i² / N;
//! * `ent-models` (Neuwirth): maximise entropy, i.e. minimise Σ n_i log n_i;
//! * `parts` (Kooi): maximise the number of parts;
//! * `min-fixed`: maximise min f_i;
//! * `exp-fixed`: maximise Σ n_i f_i / N.
//!
//! Ranks are compared exactly: N is the same for every candidate, so the
//! integer numerators decide; entropy compares Π n_i^n_i, first with
//! floating point, and exactly (prime exponents and big integers) whenever
//! the two sums are too close for floating point to tell.
//!
//! Candidates are only *useful* experiments: ones that split S, or that
//! show a final outcome on S's only code (otherwise a play could loop).
//! Ties go to an experiment that can show a final outcome (`possible-first`,
//! default) and then to the first in table order (lexicographic), or
//! straight to the first (`lexicographic`).
//!
//! Speed without changing any answer: a candidate is dropped as soon as
//! its partial rank is strictly worse than the best so far (ranks only
//! grow as codes join parts); the scan stops once the best reaches the
//! ideal rank for |S| and no later tie could displace it; and below a node
//! only experiments that still matter are scanned: one that showed the
//! same outcome as an earlier one on every code of S does so on every
//! subset (same rank, same possibility, later in order), and one that
//! showed a single non-final outcome on S is useless on every subset.
//!
//! Invariants: a play ends on a final outcome, or, in games without final
//! outcomes, as soon as one code remains (see `tree`). A code of a game
//! with final outcomes that no experiment can confirm ends the play once
//! identified. Measured with `scripts/bench-games.sh`.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::str::FromStr;

use thiserror::Error;

use super::table::Table;
use super::tree::Tree;

/// A one-step look-ahead strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    FirstPossible,
    MaxModels,
    ExpModels,
    EntModels,
    Parts,
    MinFixed,
    ExpFixed,
}

impl Strategy {
    pub const ALL: [Strategy; 7] = [
        Strategy::FirstPossible,
        Strategy::MaxModels,
        Strategy::ExpModels,
        Strategy::EntModels,
        Strategy::Parts,
        Strategy::MinFixed,
        Strategy::ExpFixed,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Strategy::FirstPossible => "first-possible",
            Strategy::MaxModels => "max-models",
            Strategy::ExpModels => "exp-models",
            Strategy::EntModels => "ent-models",
            Strategy::Parts => "parts",
            Strategy::MinFixed => "min-fixed",
            Strategy::ExpFixed => "exp-fixed",
        }
    }

    fn needs_fixed(self) -> bool {
        matches!(self, Strategy::MinFixed | Strategy::ExpFixed)
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Strategy {
    type Err = String;

    fn from_str(s: &str) -> Result<Strategy, String> {
        Strategy::ALL
            .into_iter()
            .find(|x| x.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Strategy::ALL.iter().map(|x| x.name()).collect();
                format!(
                    "unknown strategy `{s}` (expected one of {})",
                    names.join(", ")
                )
            })
    }
}

/// How ties between equally ranked experiments are broken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ties {
    /// Prefer an experiment that can show a final outcome, then the first.
    PossibleFirst,
    /// The first in table order (COBRA's rule for exp-, ent- and fixed
    /// strategies).
    Lexicographic,
}

impl Ties {
    pub fn name(self) -> &'static str {
        match self {
            Ties::PossibleFirst => "possible-first",
            Ties::Lexicographic => "lexicographic",
        }
    }
}

impl fmt::Display for Ties {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Ties {
    type Err = String;

    fn from_str(s: &str) -> Result<Ties, String> {
        match s {
            "possible-first" => Ok(Ties::PossibleFirst),
            "lexicographic" => Ok(Ties::Lexicographic),
            _ => Err(format!(
                "unknown tie rule `{s}` (expected possible-first or lexicographic)"
            )),
        }
    }
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum StrategyError {
    #[error("{0} needs the codes as valuations, which this table does not have")]
    NoValuations(Strategy),
    #[error("no experiment tells codes {0} and {1} apart")]
    Indistinguishable(String, String),
    #[error("experiment `{experiment}` shows the final outcome `{outcome}` on {n} codes: a final outcome must identify the code")]
    FinalNotUnique {
        experiment: String,
        outcome: String,
        n: usize,
    },
    #[error("unknown code `{0}`")]
    UnknownCode(String),
}

/// What to do with the codes still possible.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// The code is known; the play is over.
    Known(usize),
    /// Play this experiment.
    Play(usize),
}

/// When to give up counting an experiment: its partial rank is strictly
/// worse than the best so far.
#[derive(Clone, Copy, Debug)]
enum Bound {
    None,
    /// Some part would exceed this many codes.
    Max(u32),
    /// Σ n² would exceed this.
    SumSq(u64),
    /// Σ n ln n would exceed this (already including a tolerance).
    Ent(f64),
}

/// The outcomes a split has touched, in order of first appearance.
struct Touched {
    list: [u8; 256],
    len: usize,
}

impl Default for Touched {
    fn default() -> Self {
        Touched {
            list: [0; 256],
            len: 0,
        }
    }
}

impl Touched {
    fn push(&mut self, o: u8) {
        self.list[self.len & 255] = o;
        self.len += 1;
    }

    fn as_slice(&self) -> &[u8] {
        &self.list[..self.len]
    }

    fn len(&self) -> usize {
        self.len
    }

    fn clear(&mut self) {
        self.len = 0;
    }
}

/// A hasher for keys that already are hashes.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

/// A candidate's rank: smaller is better.
#[derive(Clone, Debug)]
enum Rank {
    Int(u64),
    /// Σ n log n in floating point; `sizes` (sorted) for exact ties.
    Ent(f64, Vec<u32>),
}

/// Chooses experiments for one strategy on one table.
pub struct Planner<'t> {
    table: &'t Table,
    strategy: Strategy,
    ties: Ties,
    has_final: bool,
    counts: Box<[u32; 256]>,
    touched: Touched,
    words: usize,
    /// Per outcome, AND and OR of the part's valuations.
    and: Vec<u64>,
    or: Vec<u64>,
    /// The same when valuations fit one word (the common case), indexed
    /// by outcome without bounds checks.
    and1: Box<[u64; 256]>,
    or1: Box<[u64; 256]>,
    /// Valid variable bits per word.
    mask: Vec<u64>,
    /// n ln n for n up to the number of codes.
    nlogn: Vec<f64>,
    /// (n+1) ln(n+1) - n ln n.
    dnlogn: Vec<f64>,
    /// Per code, the first experiment with a final outcome on it
    /// (`u32::MAX`: none), filled on demand.
    first_final: Vec<Option<u32>>,
    /// The valuations of the codes being split, `words` per code, in order.
    sbits: Vec<u64>,
}

impl<'t> Planner<'t> {
    pub fn new(
        table: &'t Table,
        strategy: Strategy,
        ties: Ties,
    ) -> Result<Planner<'t>, StrategyError> {
        let (words, mask) = match (&table.valuations, strategy.needs_fixed()) {
            (Some(v), true) => {
                let n = v.vars.len();
                let mask = (0..v.words())
                    .map(|w| {
                        let bits = n.saturating_sub(64 * w).min(64);
                        if bits == 64 {
                            u64::MAX
                        } else {
                            (1u64 << bits) - 1
                        }
                    })
                    .collect();
                (v.words(), mask)
            }
            (None, true) => return Err(StrategyError::NoValuations(strategy)),
            (_, false) => (0, Vec::new()),
        };
        let m = table.outcomes.len();
        Ok(Planner {
            table,
            strategy,
            ties,
            has_final: table.has_final(),
            counts: Box::new([0; 256]),
            touched: Touched::default(),
            words,
            and: vec![u64::MAX; m * words],
            or: vec![0; m * words],
            and1: Box::new([u64::MAX; 256]),
            or1: Box::new([0; 256]),
            mask,
            first_final: Vec::new(),
            sbits: Vec::new(),
            dnlogn: (0..table.n_codes())
                .map(|n| nlogn(n + 1) - nlogn(n))
                .collect(),
            nlogn: (0..=table.n_codes()).map(nlogn).collect(),
        })
    }

    /// Counts the parts of `s` under experiment `e` into `counts`/`touched`
    /// (and, for the fixed strategies, the AND/OR of the valuations
    /// gathered in `sbits`; rows of untouched outcomes are all-ones and
    /// all-zeros). Returns a hash of `e`'s outcomes on `s`, or `None` if it
    /// stopped early because the partial rank is already strictly worse
    /// than `bound` (ranks only grow as codes are added).
    fn split(&mut self, e: usize, s: &[u32], bound: Bound) -> Option<u64> {
        const PRIME: u64 = 0x0000_0100_0000_01b3;
        let row = self.table.row(e);
        let counts: &mut [u32; 256] = &mut self.counts;
        let touched = &mut self.touched;
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        macro_rules! bump {
            ($c:expr) => {{
                let o = row[$c as usize];
                hash = (hash ^ o as u64).wrapping_mul(PRIME);
                let n = &mut counts[o as usize];
                if *n == 0 {
                    touched.push(o);
                }
                *n += 1;
                *n - 1
            }};
        }
        match bound {
            Bound::None if self.words == 0 => {
                for &c in s {
                    let _ = bump!(c);
                }
            }
            Bound::None if self.words == 1 => {
                for (&c, &bits) in s.iter().zip(&self.sbits) {
                    let _ = bump!(c);
                    let o = row[c as usize] as usize;
                    self.and1[o] &= bits;
                    self.or1[o] |= bits;
                }
            }
            Bound::None => {
                let w = self.words;
                for (&c, bits) in s.iter().zip(self.sbits.chunks_exact(w)) {
                    let _ = bump!(c);
                    let o = row[c as usize] as usize;
                    for (i, &b) in bits.iter().enumerate() {
                        self.and[o * w + i] &= b;
                        self.or[o * w + i] |= b;
                    }
                }
            }
            Bound::Max(limit) => {
                for &c in s {
                    if bump!(c) >= limit {
                        return None;
                    }
                }
            }
            Bound::SumSq(limit) => {
                let mut acc = 0u64;
                for &c in s {
                    acc += 2 * bump!(c) as u64 + 1;
                    if acc > limit {
                        return None;
                    }
                }
            }
            Bound::Ent(limit) => {
                let mut acc = 0.0;
                for &c in s {
                    acc += self.dnlogn[bump!(c) as usize];
                    if acc > limit {
                        return None;
                    }
                }
            }
        }
        Some(hash)
    }

    /// Whether experiments `a` and `b` show the same outcome on every code
    /// of `s`.
    fn same_on(&self, a: usize, b: usize, s: &[u32]) -> bool {
        let (ra, rb) = (self.table.row(a), self.table.row(b));
        s.iter().all(|&c| ra[c as usize] == rb[c as usize])
    }

    fn clear(&mut self) {
        let w = self.words;
        for &o in self.touched.as_slice() {
            let o = o as usize;
            self.counts[o] = 0;
            if w == 1 {
                self.and1[o] = u64::MAX;
                self.or1[o] = 0;
            } else if w > 1 {
                self.and[o * w..(o + 1) * w].fill(u64::MAX);
                self.or[o * w..(o + 1) * w].fill(0);
            }
        }
        self.touched.clear();
    }

    fn fixed(&self, o: usize) -> u64 {
        let w = self.words;
        if w == 1 {
            return ((self.and1[o] | !self.or1[o]) & self.mask[0]).count_ones() as u64;
        }
        (0..w)
            .map(|i| {
                ((self.and[o * w + i] | !self.or[o * w + i]) & self.mask[i]).count_ones() as u64
            })
            .sum()
    }

    /// The rank of the current split (smaller is better).
    fn rank(&self) -> Rank {
        let parts = self
            .touched
            .as_slice()
            .iter()
            .map(|&o| (o as usize, self.counts[o as usize] as u64));
        match self.strategy {
            Strategy::FirstPossible => Rank::Int(0),
            Strategy::MaxModels => Rank::Int(parts.map(|(_, n)| n).max().unwrap_or(0)),
            Strategy::ExpModels => Rank::Int(parts.map(|(_, n)| n * n).sum()),
            Strategy::Parts => Rank::Int(u64::MAX - self.touched.len() as u64),
            Strategy::MinFixed => {
                Rank::Int(u64::MAX - parts.map(|(o, _)| self.fixed(o)).min().unwrap_or(0))
            }
            Strategy::ExpFixed => {
                Rank::Int(u64::MAX - parts.map(|(o, n)| n * self.fixed(o)).sum::<u64>())
            }
            Strategy::EntModels => {
                Rank::Ent(parts.map(|(_, n)| self.nlogn[n as usize]).sum(), Vec::new())
            }
        }
    }

    /// The abort bound for candidates after `best`.
    fn bound(&self, best: &Rank) -> Bound {
        match (self.strategy, best) {
            (Strategy::MaxModels, Rank::Int(m)) => Bound::Max(*m as u32),
            (Strategy::ExpModels, Rank::Int(q)) => Bound::SumSq(*q),
            (Strategy::EntModels, Rank::Ent(v, _)) => Bound::Ent(v + ent_tolerance(*v, *v)),
            _ => Bound::None,
        }
    }

    /// A rank no split of `k` codes can beat: parts as even as the number
    /// of outcomes allows (for the fixed strategies: all singletons).
    fn ideal(&self, k: usize) -> Rank {
        let m = self.table.outcomes.len().clamp(1, k.max(1));
        let (q, r) = (k / m, k % m);
        let even = || (0..m).map(move |i| (q + usize::from(i < r)) as u64);
        let nvars = self
            .table
            .valuations
            .as_ref()
            .map_or(0, |v| v.vars.len() as u64);
        match self.strategy {
            Strategy::FirstPossible => Rank::Int(0),
            Strategy::MaxModels => Rank::Int(even().max().unwrap_or(0)),
            Strategy::ExpModels => Rank::Int(even().map(|n| n * n).sum()),
            Strategy::Parts => Rank::Int(u64::MAX - m as u64),
            Strategy::MinFixed => Rank::Int(u64::MAX - nvars),
            Strategy::ExpFixed => Rank::Int(u64::MAX - k as u64 * nvars),
            Strategy::EntModels => {
                let mut sizes: Vec<u32> = even().filter(|&n| n > 0).map(|n| n as u32).collect();
                sizes.sort_unstable();
                Rank::Ent(sizes.iter().map(|&n| self.nlogn[n as usize]).sum(), sizes)
            }
        }
    }

    fn is_ideal(&self, rank: &Rank, ideal: &Rank) -> bool {
        match (rank, ideal) {
            (Rank::Int(a), Rank::Int(b)) => a <= b,
            (Rank::Ent(_, a), Rank::Ent(_, b)) => exact::compare_nlogn(a, b) != Ordering::Greater,
            _ => false,
        }
    }

    /// The sorted part sizes of `s` under `e` (counted afresh).
    fn sizes_of(&mut self, e: usize, s: &[u32]) -> Vec<u32> {
        self.split(e, s, Bound::None);
        let sizes = self.sizes();
        self.clear();
        sizes
    }

    fn sizes(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .touched
            .as_slice()
            .iter()
            .map(|&o| self.counts[o as usize])
            .collect();
        v.sort_unstable();
        v
    }

    /// Compares the current split's rank with `best`'s, filling in exact
    /// sizes when the entropy sums are too close to call.
    fn compare(&self, rank: &mut Rank, best: &mut Rank) -> Ordering {
        match (rank, best) {
            (Rank::Int(a), Rank::Int(b)) => (*a).cmp(b),
            (Rank::Ent(a, sa), Rank::Ent(b, sb)) => {
                if (*a - *b).abs() > ent_tolerance(*a, *b) {
                    return a.total_cmp(b);
                }
                if sa.is_empty() {
                    *sa = self.sizes();
                }
                exact::compare_nlogn(sa, sb)
            }
            _ => unreachable!("one strategy ranks one way"),
        }
    }

    /// The experiment to play on the codes `s` (non-empty, indices into
    /// the table), or the code if the play is over.
    pub fn choose(&mut self, s: &[u32]) -> Result<Choice, StrategyError> {
        let all: Vec<u32> = (0..self.table.experiments.len() as u32).collect();
        Ok(self.choose_among(s, &all)?.0)
    }

    /// [`Planner::choose`] among the candidate experiments `reps`
    /// (ascending). Also returns the candidates worth keeping for subsets
    /// of `s`: an experiment that shows the same outcome on every code of
    /// `s` as an earlier one stays identical to it on every subset (same
    /// rank, same possibility, later in order: it can never be chosen), and
    /// one that shows a single non-final outcome on `s` is useless on every
    /// subset; both are dropped.
    fn choose_among(
        &mut self,
        s: &[u32],
        reps: &[u32],
    ) -> Result<(Choice, Vec<u32>), StrategyError> {
        if s.len() == 1 {
            // One code left: every useful experiment shows it a final
            // outcome, ranks equal and is possible, so every strategy and
            // tie rule plays the first one.
            let c = s[0] as usize;
            if self.has_final {
                if let Some(e) = self.first_final(c) {
                    return Ok((Choice::Play(e), Vec::new()));
                }
            }
            return Ok((Choice::Known(c), Vec::new()));
        }
        if self.strategy == Strategy::FirstPossible && self.has_final {
            // The first experiment with a final outcome on some code of s
            // is the least of each code's first one; it splits s.
            let first = s.iter().filter_map(|&c| self.first_final(c as usize)).min();
            if let Some(e) = first {
                return Ok((Choice::Play(e), reps.to_vec()));
            }
        }
        if let Some(v) = self.table.valuations.as_ref().filter(|_| self.words > 0) {
            self.sbits.clear();
            for &c in s {
                self.sbits.extend_from_slice(v.row(c as usize));
            }
        }
        let mut best: Option<(usize, Rank, bool)> = None;
        let mut first_useful = None;
        let ideal = self.ideal(s.len());
        let mut seen: HashMap<u64, usize, BuildHasherDefault<Prehashed>> = HashMap::default();
        let mut keep = Vec::with_capacity(reps.len());
        for (i, &e) in reps.iter().enumerate() {
            let e = e as usize;
            let bound = match &best {
                Some((_, rank, _)) => self.bound(rank),
                None => Bound::None,
            };
            let Some(hash) = self.split(e, s, bound) else {
                // Strictly worse than the best here; maybe not below.
                self.clear();
                keep.push(e as u32);
                continue;
            };
            let useful = self.touched.len() > 1
                || (self.touched.len() == 1
                    && self.table.is_final[self.touched.as_slice()[0] as usize]);
            let duplicate = match seen.get(&hash) {
                Some(&f) => self.same_on(f, e, s),
                None => {
                    seen.insert(hash, e);
                    false
                }
            };
            if !useful || duplicate {
                self.clear();
                continue;
            }
            keep.push(e as u32);
            let possible = self
                .touched
                .as_slice()
                .iter()
                .any(|&o| self.table.is_final[o as usize]);
            if self.strategy == Strategy::FirstPossible {
                self.clear();
                if possible || !self.has_final {
                    keep.extend_from_slice(&reps[i + 1..]);
                    return Ok((Choice::Play(e), keep));
                }
                first_useful.get_or_insert(e);
                continue;
            }
            let mut rank = self.rank();
            let better = match &mut best {
                None => true,
                Some((_, best_rank, best_possible)) => match self.compare(&mut rank, best_rank) {
                    Ordering::Less => true,
                    Ordering::Greater => false,
                    Ordering::Equal => {
                        self.ties == Ties::PossibleFirst && possible && !*best_possible
                    }
                },
            };
            self.clear();
            if better {
                if let Rank::Ent(_, sizes) = &mut rank {
                    if sizes.is_empty() {
                        *sizes = self.sizes_of(e, s);
                    }
                }
                // Nothing later can rank better than the ideal, and a tie
                // only wins if it is possible and this one is not.
                let settled = self.ties == Ties::Lexicographic || possible || !self.has_final;
                let stop = settled && self.is_ideal(&rank, &ideal);
                best = Some((e, rank, possible));
                if stop {
                    keep.extend_from_slice(&reps[i + 1..]);
                    break;
                }
            }
        }
        if let Some(e) = best.map(|b| b.0).or(first_useful) {
            return Ok((Choice::Play(e), keep));
        }
        let name = |i: usize| self.table.codes[s[i] as usize].clone();
        Err(StrategyError::Indistinguishable(name(0), name(1)))
    }

    /// The first experiment that shows code `c` a final outcome.
    fn first_final(&mut self, c: usize) -> Option<usize> {
        if self.first_final.is_empty() {
            self.first_final = vec![None; self.table.n_codes()];
        }
        if let Some(e) = self.first_final[c] {
            return (e != u32::MAX).then_some(e as usize);
        }
        let found = (0..self.table.experiments.len())
            .find(|&e| self.table.is_final[self.table.outcome(e, c) as usize]);
        self.first_final[c] = Some(found.map_or(u32::MAX, |e| e as u32));
        found
    }

    /// The decision tree over every code; `progress(done, total)` is called
    /// as codes are placed in leaves.
    pub fn tree(&mut self, progress: &mut dyn FnMut(usize, usize)) -> Result<Tree, StrategyError> {
        let all: Vec<u32> = (0..self.table.n_codes() as u32).collect();
        let reps: Vec<u32> = (0..self.table.experiments.len() as u32).collect();
        let mut done = 0;
        self.subtree(all, &reps, &mut done, progress)
    }

    fn subtree(
        &mut self,
        s: Vec<u32>,
        reps: &[u32],
        done: &mut usize,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Tree, StrategyError> {
        let total = self.table.n_codes();
        let (e, keep) = match self.choose_among(&s, reps)? {
            (Choice::Known(code), _) => {
                *done += 1;
                progress(*done, total);
                return Ok(Tree::Leaf { code });
            }
            (Choice::Play(e), keep) => (e, keep),
        };
        let mut children = Vec::new();
        for (o, part) in self.parts(e, &s) {
            let child = if self.table.is_final[o as usize] {
                if part.len() != 1 {
                    return Err(StrategyError::FinalNotUnique {
                        experiment: self.table.experiments[e].to_string(),
                        outcome: self.table.outcomes[o as usize].clone(),
                        n: part.len(),
                    });
                }
                *done += 1;
                progress(*done, total);
                Tree::Leaf {
                    code: part[0] as usize,
                }
            } else {
                self.subtree(part, &keep, done, progress)?
            };
            children.push((o, child));
        }
        Ok(Tree::Node {
            experiment: e,
            children,
        })
    }

    /// The codes of `s` grouped by `e`'s outcome, by outcome index.
    fn parts(&self, e: usize, s: &[u32]) -> Vec<(u8, Vec<u32>)> {
        let row = self.table.row(e);
        let mut parts: Vec<(u8, Vec<u32>)> = Vec::new();
        for &c in s {
            let o = row[c as usize];
            match parts.iter_mut().find(|(x, _)| *x == o) {
                Some((_, p)) => p.push(c),
                None => parts.push((o, vec![c])),
            }
        }
        parts.sort_by_key(|(o, _)| *o);
        parts
    }

    /// One play against `secret` (a code index): each experiment, its
    /// outcome and how many codes remain after it.
    pub fn play(&mut self, secret: usize) -> Result<Vec<Step>, StrategyError> {
        let mut s: Vec<u32> = (0..self.table.n_codes() as u32).collect();
        let mut reps: Vec<u32> = (0..self.table.experiments.len() as u32).collect();
        let mut steps = Vec::new();
        while let (Choice::Play(e), keep) = self.choose_among(&s, &reps)? {
            let o = self.table.outcome(e, secret);
            s.retain(|&c| self.table.outcome(e, c as usize) == o);
            steps.push(Step {
                experiment: e,
                outcome: o,
                remaining: s.len(),
            });
            if self.table.is_final[o as usize] {
                break;
            }
            reps = keep;
        }
        Ok(steps)
    }
}

/// n ln n (0 for n < 2).
fn nlogn(n: usize) -> f64 {
    if n < 2 {
        0.0
    } else {
        n as f64 * (n as f64).ln()
    }
}

/// Tolerance below which two entropy sums are compared exactly.
pub(crate) fn ent_tolerance(a: f64, b: f64) -> f64 {
    1e-7 * (1.0 + a.abs().max(b.abs()))
}

/// One experiment of a play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub experiment: usize,
    pub outcome: u8,
    /// Codes still possible after the outcome.
    pub remaining: usize,
}

/// Exact comparison of Π n^n for two multisets of part sizes.
pub(crate) mod exact {
    use std::cmp::Ordering;
    use std::collections::BTreeMap;

    /// Compares Π a^a with Π b^b (`a`, `b` sorted).
    pub fn compare_nlogn(a: &[u32], b: &[u32]) -> Ordering {
        if a == b {
            return Ordering::Equal;
        }
        // Prime exponents of the quotient Π a^a / Π b^b.
        let mut exps: BTreeMap<u64, i64> = BTreeMap::new();
        for (sizes, sign) in [(a, 1i64), (b, -1i64)] {
            for &n in sizes {
                for (p, k) in factor(n as u64) {
                    *exps.entry(p).or_default() += sign * k as i64 * n as i64;
                }
            }
        }
        let num = power_product(
            exps.iter()
                .filter(|(_, &e)| e > 0)
                .map(|(&p, &e)| (p, e as u64)),
        );
        let den = power_product(
            exps.iter()
                .filter(|(_, &e)| e < 0)
                .map(|(&p, &e)| (p, (-e) as u64)),
        );
        compare_big(&num, &den)
    }

    fn factor(mut n: u64) -> Vec<(u64, u32)> {
        let mut out = Vec::new();
        let mut p = 2;
        while p * p <= n {
            let mut k = 0;
            while n.is_multiple_of(p) {
                n /= p;
                k += 1;
            }
            if k > 0 {
                out.push((p, k));
            }
            p += 1;
        }
        if n > 1 {
            out.push((n, 1));
        }
        out
    }

    /// Π p^e as little-endian base-2³² limbs.
    fn power_product(factors: impl Iterator<Item = (u64, u64)>) -> Vec<u32> {
        let mut x = vec![1u32];
        for (p, e) in factors {
            for _ in 0..e {
                let mut carry = 0u64;
                for limb in x.iter_mut() {
                    let v = *limb as u64 * p + carry;
                    *limb = v as u32;
                    carry = v >> 32;
                }
                while carry > 0 {
                    x.push(carry as u32);
                    carry >>= 32;
                }
            }
        }
        x
    }

    fn compare_big(a: &[u32], b: &[u32]) -> Ordering {
        a.len()
            .cmp(&b.len())
            .then_with(|| a.iter().rev().cmp(b.iter().rev()))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn compares_products_of_powers_exactly() {
            // 4^4 = 256 = 2^8 · 1: [4] vs [2, 2, 2, 2] (2^2·2^2·2^2·2^2 = 256).
            assert_eq!(compare_nlogn(&[4], &[2, 2, 2, 2]), Ordering::Equal);
            // 3^3 = 27 > 2^2 · 1 = 4.
            assert_eq!(compare_nlogn(&[3], &[1, 2]), Ordering::Greater);
            assert_eq!(compare_nlogn(&[1, 2], &[3]), Ordering::Less);
            // 6^6 = 46656 vs 2^2·4^4 = 1024.
            assert_eq!(compare_nlogn(&[6], &[2, 4]), Ordering::Greater);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::table::Builtin;

    fn analyze(game: &str, s: Strategy, ties: Ties) -> (crate::game::tree::Analysis, String) {
        let table = game.parse::<Builtin>().unwrap().table();
        let tree = Planner::new(&table, s, ties)
            .unwrap()
            .tree(&mut |_, _| {})
            .unwrap();
        let first = match &tree {
            Tree::Node { experiment, .. } => table.experiments[*experiment].to_string(),
            Tree::Leaf { .. } => String::new(),
        };
        (tree.analyze(&table).unwrap(), first)
    }

    #[test]
    fn mastermind_4x6_reference_results() {
        use Strategy::*;
        use Ties::*;
        let (a, first) = analyze("mastermind:4x6", MaxModels, PossibleFirst);
        assert_eq!((a.total, a.worst, first.as_str()), (5801, 5, "guess AABB"));
        assert_eq!(a.histogram, vec![0, 1, 6, 62, 533, 694]);
        let cases = [
            (FirstPossible, PossibleFirst, 7471, "guess AAAA"),
            (ExpModels, PossibleFirst, 5696, "guess AABC"),
            (EntModels, PossibleFirst, 5722, "guess ABCD"),
            (Parts, PossibleFirst, 5668, "guess AABC"),
            (ExpModels, Lexicographic, 5996, "guess AABC"),
            (EntModels, Lexicographic, 6017, "guess ABCD"),
        ];
        for (s, t, total, f) in cases {
            let (a, first) = analyze("mastermind:4x6", s, t);
            assert_eq!((a.total, first.as_str()), (total, f), "{s} {t}");
        }
    }

    /// COBRA's rules: possible-first ties for max-models and parts, plain
    /// lexicographic ties for exp-models.
    #[test]
    fn mastermind_3x3_reference_results() {
        let (a, _) = analyze("mastermind:3x3", Strategy::MaxModels, Ties::PossibleFirst);
        assert_eq!((a.codes, a.total), (27, 74));
        let (a, _) = analyze("mastermind:3x3", Strategy::ExpModels, Ties::Lexicographic);
        assert_eq!(a.total, 76);
        let (a, _) = analyze("mastermind:3x3", Strategy::Parts, Ties::PossibleFirst);
        assert_eq!(a.total, 73);
    }

    #[test]
    fn coins_12_reference_result() {
        let (a, _) = analyze("coins:12", Strategy::MaxModels, Ties::PossibleFirst);
        assert_eq!((a.codes, a.worst, a.total), (24, 3, 72));
    }

    #[test]
    fn plays_follow_the_tree() {
        let table = "mastermind:4x6".parse::<Builtin>().unwrap().table();
        let mut p = Planner::new(&table, Strategy::Parts, Ties::PossibleFirst).unwrap();
        let tree = p.tree(&mut |_, _| {}).unwrap();
        for secret in [0, 77, 1295] {
            let steps = p.play(secret).unwrap();
            assert_eq!(steps.len(), tree.cost(&table, secret).unwrap());
            let last = steps.last().unwrap();
            assert_eq!((last.experiment, last.remaining), (secret, 1));
        }
    }

    #[test]
    fn fixed_strategies_need_valuations_and_find_every_coin() {
        let mut table = "coins:5".parse::<Builtin>().unwrap().table();
        for s in [Strategy::MinFixed, Strategy::ExpFixed] {
            let tree = Planner::new(&table, s, Ties::PossibleFirst)
                .unwrap()
                .tree(&mut |_, _| {})
                .unwrap();
            let a = tree.analyze(&table).unwrap();
            assert_eq!(a.codes, 10);
            assert!(a.worst >= 3);
        }
        table.valuations = None;
        assert!(matches!(
            Planner::new(&table, Strategy::MinFixed, Ties::PossibleFirst),
            Err(StrategyError::NoValuations(_))
        ));
    }
}
