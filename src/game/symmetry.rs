//! Symmetry of the built-in games and of spec-file games, used by the
//! optimal search to try one experiment per class of equivalent
//! experiments.
//!
//! Spec-file games get phase 1 of the spec reduction ([`SpecSymmetry`],
//! in `symmetry/spec_game.rs`, which says why it is sound for an optimal
//! search); [`Counting`] wraps any symmetry to report what it kept.
//!
//! Input: a [`Table`] of a built-in game, the experiments played so far
//! and the codes still possible. Output: a list of experiments such that
//! every experiment of the table is equivalent to one of them — it has the
//! same optimal continuation value on the current set — or `None` when no
//! reduction is known (then every experiment is a candidate).
//!
//! Invariants (why the reductions are sound):
//! * Word games (Mastermind, black-peg, Bulls and Cows): the score is
//!   invariant under permuting positions and symbols of guess and code
//!   together. A permutation σ that fixes every guess played so far maps
//!   the set of possible codes onto itself, so `σ(g)` and `g` have the
//!   same value; we keep the lexicographically least image of each guess.
//!   Symbols never played are all interchangeable this way.
//! * A symbol absent from every possible code never scores, so in a guess
//!   it can be replaced by any other absent symbol without changing the
//!   outcome on any possible code: Mastermind and black-peg guesses use
//!   only the smallest absent symbol; Bulls and Cows (whose guesses must
//!   stay distinct) renumber absent symbols in order of appearance.
//! * Sets of codes ([`Symmetry::canonical`]): values are invariant under
//!   every position and symbol permutation, so a set is keyed by its
//!   least image, found by trying every position permutation with the
//!   symbol renaming that sorts symbols by their per-position counts
//!   (all orders of symbols with equal counts are tried, up to a cap;
//!   only for up to four positions, where it pays).
//! * Coins: coins with the same status (unknown, possibly heavy only,
//!   possibly light only, known genuine) are interchangeable, and swapping
//!   the pans only renames the outcomes; a weighing is represented by how
//!   many coins of each status lie on each pan.

mod spec_game;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use super::table::{Builtin, Table};

pub use spec_game::{SpecSymmetry, SpecSymmetryError, MIN_SET};

/// A source of equivalent-experiment reductions.
pub trait Symmetry: Sync {
    /// Representatives of every experiment class after `history` (indices
    /// of the experiments played, root first), where `set` (sorted code
    /// indices) is still possible; `None` if every experiment must be
    /// tried.
    fn candidates(&self, history: &[u32], set: &[u16]) -> Option<Vec<u32>>;

    /// A canonical image of `set` under the game's symmetries, written to
    /// `out` (sorted): equivalent sets get the same image, and the image
    /// is equivalent to `set`, so it can key a transposition table.
    /// `false` (and `out` unspecified) when no canonical form is known.
    fn canonical(&self, _set: &[u16], _out: &mut Vec<u16>) -> bool {
        false
    }
}

/// Candidates at the nodes of one depth (experiments played before the
/// node), summed over the nodes a search visited.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DepthCounts {
    /// Nodes that asked for candidates.
    pub nodes: u64,
    /// Of those, nodes where the symmetry reduced the experiments.
    pub reduced_nodes: u64,
    /// Experiments of the table, summed over the nodes.
    pub experiments: u64,
    /// Candidates kept, summed over the nodes (every experiment at nodes
    /// without reduction).
    pub kept: u64,
}

/// A [`Symmetry`] that counts what it is asked and what it keeps, per
/// depth, for reports. Counts depend on the nodes the search visits, so
/// with several threads they may vary a little from run to run (below
/// the root).
pub struct Counting<'a> {
    inner: &'a dyn Symmetry,
    n_exp: u64,
    depths: Mutex<Vec<DepthCounts>>,
}

impl<'a> Counting<'a> {
    /// Counts the candidates `inner` gives on a table of `n_exp`
    /// experiments.
    pub fn new(inner: &'a dyn Symmetry, n_exp: usize) -> Counting<'a> {
        Counting {
            inner,
            n_exp: n_exp as u64,
            depths: Mutex::new(Vec::new()),
        }
    }

    /// Counts per depth so far (index 0: the root).
    pub fn depths(&self) -> Vec<DepthCounts> {
        self.depths
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl Symmetry for Counting<'_> {
    fn candidates(&self, history: &[u32], set: &[u16]) -> Option<Vec<u32>> {
        let got = self.inner.candidates(history, set);
        let mut depths = self.depths.lock().unwrap_or_else(|e| e.into_inner());
        let d = history.len();
        if depths.len() <= d {
            depths.resize(d + 1, DepthCounts::default());
        }
        let c = &mut depths[d];
        c.nodes += 1;
        c.experiments += self.n_exp;
        match &got {
            Some(list) => {
                c.reduced_nodes += 1;
                c.kept += list.len() as u64;
            }
            None => c.kept += self.n_exp,
        }
        got
    }

    fn canonical(&self, set: &[u16], out: &mut Vec<u16>) -> bool {
        self.inner.canonical(set, out)
    }
}

/// The symmetry of a built-in game's table, if it has a known one and the
/// table really is that game's.
pub fn for_builtin(game: &Builtin, table: &Table) -> Option<Box<dyn Symmetry>> {
    match *game {
        Builtin::Mastermind { pegs, colours } | Builtin::BlackPeg { pegs, colours } => {
            WordSymmetry::new(table, pegs, colours, AbsentMode::Collapse)
                .map(|s| Box::new(s) as Box<dyn Symmetry>)
        }
        Builtin::BullsCows { pegs, symbols } => {
            WordSymmetry::new(table, pegs, symbols, AbsentMode::Renumber)
                .map(|s| Box::new(s) as Box<dyn Symmetry>)
        }
        Builtin::Coins {
            coins,
            extra_genuine,
        } => CoinSymmetry::new(table, coins, coins + usize::from(extra_genuine))
            .map(|s| Box::new(s) as Box<dyn Symmetry>),
    }
}

/// What to do with symbols absent from every possible code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AbsentMode {
    /// Replace them all by the smallest absent symbol.
    Collapse,
    /// Renumber them in order of appearance (keeps symbols distinct).
    Renumber,
}

/// Position and symbol permutations of a word game whose experiments are
/// exactly its codes (`guess w` for every code `w`).
pub struct WordSymmetry {
    pegs: usize,
    symbols: usize,
    /// Experiment (= code) index → its symbols.
    words: Vec<Vec<u8>>,
    /// Code index → bit mask of the symbols it uses.
    masks: Vec<u32>,
    /// Every permutation of positions: `perm[j]` is the image of `j`.
    perms: Vec<Vec<u8>>,
    absent: AbsentMode,
    /// Word → experiment index, via [`WordSymmetry::rank`].
    by_rank: Vec<u32>,
    cache: Mutex<OrbitCache>,
}

impl WordSymmetry {
    pub fn new(table: &Table, pegs: usize, symbols: usize, absent: AbsentMode) -> Option<Self> {
        if symbols > 26 || pegs > 8 || table.codes.len() != table.experiments.len() {
            return None;
        }
        let mut words = Vec::with_capacity(table.experiments.len());
        for (e, exp) in table.experiments.iter().enumerate() {
            let word: Option<Vec<u8>> = exp
                .params
                .iter()
                .map(|p| {
                    let b = p.as_bytes();
                    (b.len() == 1 && b[0] >= b'A' && b[0] < b'A' + symbols as u8)
                        .then(|| b[0] - b'A')
                })
                .collect();
            let word = word?;
            if word.len() != pegs || exp.params.concat() != table.codes[e] {
                return None;
            }
            words.push(word);
        }
        let masks = words
            .iter()
            .map(|w| w.iter().fold(0u32, |m, &s| m | 1 << s))
            .collect();
        let mut by_rank = vec![u32::MAX; symbols.pow(pegs as u32)];
        let mut s = WordSymmetry {
            pegs,
            symbols,
            words,
            masks,
            perms: permutations(pegs),
            absent,
            by_rank: Vec::new(),
            cache: Mutex::new(OrbitCache::default()),
        };
        for (e, w) in s.words.iter().enumerate() {
            by_rank[s.rank(w)] = e as u32;
        }
        s.by_rank = by_rank;
        Some(s)
    }

    fn rank(&self, w: &[u8]) -> usize {
        w.iter().fold(0, |r, &s| r * self.symbols + s as usize)
    }

    /// The permutations fixing every guess of the history: for each valid
    /// position permutation, the symbol map it forces on played symbols.
    fn stabiliser(&self, history: &[u32]) -> Vec<(usize, [u8; 32])> {
        let mut out = Vec::new();
        'perm: for (pi, perm) in self.perms.iter().enumerate() {
            let mut tau = [u8::MAX; 32];
            let mut inv = [u8::MAX; 32];
            for &h in history {
                let w = &self.words[h as usize];
                for j in 0..self.pegs {
                    let (a, b) = (w[j], w[perm[j] as usize]);
                    if tau[a as usize] == u8::MAX && inv[b as usize] == u8::MAX {
                        tau[a as usize] = b;
                        inv[b as usize] = a;
                    } else if tau[a as usize] != b || inv[b as usize] != a {
                        continue 'perm;
                    }
                }
            }
            out.push((pi, tau));
        }
        out
    }

    /// The image of `w` under the position permutation `perm` with the
    /// symbol map `tau` on played symbols, unplayed symbols renamed in
    /// order of first appearance to the smallest unplayed ones.
    fn image(&self, w: &[u8], perm: &[u8], tau: &[u8; 32], unplayed: &[u8]) -> [u8; 8] {
        let mut src = [0u8; 8];
        for j in 0..self.pegs {
            src[perm[j] as usize] = w[j];
        }
        let mut fresh = [u8::MAX; 32];
        let mut next_fresh = 0;
        let mut img = [0u8; 8];
        for (t, &s) in img.iter_mut().zip(&src[..self.pegs]) {
            *t = if tau[s as usize] != u8::MAX {
                tau[s as usize]
            } else {
                if fresh[s as usize] == u8::MAX {
                    fresh[s as usize] = unplayed[next_fresh];
                    next_fresh += 1;
                }
                fresh[s as usize]
            };
        }
        img
    }

    /// Whether `w`'s unplayed symbols already appear as the smallest
    /// unplayed ones in order of first appearance.
    fn normalised(&self, w: &[u8], played: u32, unplayed: &[u8]) -> bool {
        let mut next = 0;
        let mut used = 0u32;
        for &s in w {
            if played >> s & 1 == 1 || used >> s & 1 == 1 {
                continue;
            }
            if unplayed.get(next) != Some(&s) {
                return false;
            }
            used |= 1 << s;
            next += 1;
        }
        true
    }

    fn reduce_absent(&self, word: &mut [u8], absent: &[u8]) {
        let is_absent = |s: u8| absent.contains(&s);
        match self.absent {
            AbsentMode::Collapse => {
                for s in word.iter_mut() {
                    if is_absent(*s) {
                        *s = absent[0];
                    }
                }
            }
            AbsentMode::Renumber => {
                let mut map = [u8::MAX; 32];
                let mut next = 0;
                for s in word.iter_mut() {
                    if is_absent(*s) {
                        if map[*s as usize] == u8::MAX {
                            map[*s as usize] = absent[next];
                            next += 1;
                        }
                        *s = map[*s as usize];
                    }
                }
            }
        }
    }
}

impl Symmetry for WordSymmetry {
    fn canonical(&self, set: &[u16], out: &mut Vec<u16>) -> bool {
        self.canonical_set(set, out)
    }

    fn candidates(&self, history: &[u32], set: &[u16]) -> Option<Vec<u32>> {
        let all = (1u32 << self.symbols) - 1;
        let present = set.iter().fold(0u32, |m, &c| m | self.masks[c as usize]);
        let played = history
            .iter()
            .fold(0u32, |m, &h| m | self.masks[h as usize]);
        let symbols = |mask: u32| -> Vec<u8> {
            (0..self.symbols as u8)
                .filter(|&s| mask >> s & 1 == 1)
                .collect()
        };
        let absent = symbols(all & !present);
        let unplayed = symbols(all & !played);
        let group = self.stabiliser(history);
        let trivial_group = group.len() <= 1 && unplayed.len() <= 1;
        if trivial_group && absent.len() <= 1 {
            return None;
        }
        if trivial_group && self.absent == AbsentMode::Collapse {
            // Only absent symbols reduce: keep guesses whose absent
            // symbols are all the smallest one.
            let others = (all & !present) & !(1u32 << absent[0]);
            return Some(
                (0..self.words.len() as u32)
                    .filter(|&e| self.masks[e as usize] & others == 0)
                    .collect(),
            );
        }
        let orbits = self.orbit_representatives(history, &group, played, &unplayed)?;
        if absent.len() < 2 {
            return Some(orbits.to_vec());
        }
        let mut seen = vec![false; self.words.len()];
        let mut reps = Vec::with_capacity(orbits.len());
        for &e in orbits.iter() {
            let mut rep = [0u8; 8];
            rep[..self.pegs].copy_from_slice(&self.words[e as usize]);
            self.reduce_absent(&mut rep[..self.pegs], &absent);
            let r = self.by_rank[self.rank(&rep[..self.pegs])];
            // A representative that is not an experiment cannot happen for
            // the built-in tables; fall back to no reduction if it does.
            if r == u32::MAX {
                return None;
            }
            if !seen[r as usize] {
                seen[r as usize] = true;
                reps.push(r);
            }
        }
        reps.sort_unstable();
        Some(reps)
    }
}

impl WordSymmetry {
    /// The least word of every orbit of the history's stabiliser, cached
    /// per history (siblings in the search share their history).
    fn orbit_representatives(
        &self,
        history: &[u32],
        group: &[(usize, [u8; 32])],
        played: u32,
        unplayed: &[u8],
    ) -> Option<Arc<[u32]>> {
        let mut key = history.to_vec();
        key.sort_unstable();
        let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(hit) = cache.map.get(&key) {
            return Some(hit.clone());
        }
        drop(cache);
        // Visit words in increasing order; the first normalised word of an
        // orbit is its least image, i.e. the canonical representative.
        let mut covered = vec![false; self.words.len()];
        let mut reps = Vec::new();
        for (e, w) in self.words.iter().enumerate() {
            if covered[e] || !self.normalised(w, played, unplayed) {
                continue;
            }
            for (pi, tau) in group {
                let img = self.image(w, &self.perms[*pi], tau, unplayed);
                let i = self.by_rank[self.rank(&img[..self.pegs])];
                if i == u32::MAX {
                    return None;
                }
                covered[i as usize] = true;
            }
            reps.push(e as u32);
        }
        let reps: Arc<[u32]> = reps.into();
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.stored + reps.len() > CACHE_LIMIT {
            cache.map.clear();
            cache.stored = 0;
        }
        cache.stored += reps.len();
        cache.map.insert(key, reps.clone());
        Some(reps)
    }
}

/// Representatives (summed over histories) the cache holds at most:
/// 16 MiB.
const CACHE_LIMIT: usize = 1 << 22;

/// Sorted history → least word of each orbit of its stabiliser.
#[derive(Default)]
struct OrbitCache {
    map: HashMap<Vec<u32>, Arc<[u32]>>,
    /// Representatives stored, summed over the map.
    stored: usize,
}

/// Symbol orders tried per position permutation at most when
/// canonicalising a set (beyond it the set keeps its own key).
const TIE_ORDERS: usize = 24;

impl WordSymmetry {
    /// Canonical set image; see [`Symmetry::canonical`].
    fn canonical_set(&self, set: &[u16], out: &mut Vec<u16>) -> bool {
        let p = self.pegs;
        // With five or more positions the permutations to try (120+) cost
        // more than the searches they save.
        if p > 4 || set.is_empty() {
            return false;
        }
        // cnt[j][x]: codes with symbol x at position j.
        let mut cnt = [[0u32; 32]; 8];
        for &c in set {
            for (j, &x) in self.words[c as usize].iter().enumerate() {
                cnt[j][x as usize] += 1;
            }
        }
        // Position permutations compete only if they list positions in
        // decreasing order of their symbol histograms (sorted counts, a
        // symbol-blind invariant), and then only those whose sorted symbol
        // signatures are lexicographically largest. Both choices are
        // invariant, so the result stays canonical; few remain.
        let k = self.symbols;
        let mut hist: Vec<Vec<u32>> = (0..p)
            .map(|j| {
                let mut h = cnt[j][..k].to_vec();
                h.sort_unstable_by(|a, b| b.cmp(a));
                h
            })
            .collect();
        // order[a][b]: how position a's histogram compares with b's.
        let mut order = [[std::cmp::Ordering::Equal; 8]; 8];
        for a in 0..p {
            for b in 0..p {
                order[a][b] = hist[a].cmp(&hist[b]);
            }
        }
        hist.clear();
        let mut sigs: Vec<u128> = vec![0; self.perms.len() * k];
        let mut allowed = vec![false; self.perms.len()];
        let mut best_at = usize::MAX;
        for (pi, perm) in self.perms.iter().enumerate() {
            let mut inv = [0usize; 8];
            for (j, &i) in perm.iter().enumerate() {
                inv[i as usize] = j;
            }
            if (1..p).any(|i| order[inv[i - 1]][inv[i]] == std::cmp::Ordering::Less) {
                continue;
            }
            allowed[pi] = true;
            let v = &mut sigs[pi * k..(pi + 1) * k];
            for (x, slot) in v.iter_mut().enumerate() {
                *slot = (0..p).fold(0u128, |acc, i| acc << 24 | cnt[inv[i]][x] as u128);
            }
            v.sort_unstable_by(|a, b| b.cmp(a));
            if best_at == usize::MAX
                || sigs[pi * k..(pi + 1) * k] > sigs[best_at * k..(best_at + 1) * k]
            {
                best_at = pi;
            }
        }
        let best_sig = sigs[best_at * k..(best_at + 1) * k].to_vec();
        let mut best: Vec<u16> = Vec::new();
        let mut image: Vec<u16> = Vec::with_capacity(set.len());
        for ((perm, v), &ok) in self.perms.iter().zip(sigs.chunks_exact(k)).zip(&allowed) {
            if !ok || v != best_sig.as_slice() {
                continue;
            }
            let mut inv = [0usize; 8];
            for (j, &i) in perm.iter().enumerate() {
                inv[i as usize] = j;
            }
            // A symbol's counts read in image position order.
            let sig = |x: usize| -> u128 {
                (0..p).fold(0u128, |acc, i| acc << 24 | cnt[inv[i]][x] as u128)
            };
            let mut present: Vec<(u128, u8)> = (0..self.symbols as u8)
                .map(|x| (sig(x as usize), x))
                .filter(|&(g, _)| g != 0)
                .collect();
            present.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            // Groups of equal signatures: every order of each is tried.
            let mut groups: Vec<(usize, usize)> = Vec::new();
            let mut i = 0;
            while i < present.len() {
                let j = (i..present.len())
                    .find(|&j| present[j].0 != present[i].0)
                    .unwrap_or(present.len());
                groups.push((i, j));
                i = j;
            }
            let orders: usize = groups.iter().map(|&(a, b)| factorial(b - a)).product();
            if orders > TIE_ORDERS {
                return false;
            }
            let mut order: Vec<u8> = present.iter().map(|&(_, x)| x).collect();
            for _ in 0..orders {
                let mut tau = [u8::MAX; 32];
                for (k, &x) in order.iter().enumerate() {
                    tau[x as usize] = k as u8;
                }
                image.clear();
                for &c in set {
                    let w = &self.words[c as usize];
                    let mut img = [0u8; 8];
                    for j in 0..p {
                        img[perm[j] as usize] = tau[w[j] as usize];
                    }
                    let e = self.by_rank[self.rank(&img[..p])];
                    if e == u32::MAX {
                        return false;
                    }
                    image.push(e as u16);
                }
                image.sort_unstable();
                if best.is_empty() || image < best {
                    std::mem::swap(&mut best, &mut image);
                }
                next_tie_order(&mut order, &groups);
            }
        }
        out.clear();
        out.extend_from_slice(&best);
        true
    }
}

fn factorial(k: usize) -> usize {
    (1..=k).product()
}

/// Steps the orders of every tie group like an odometer (each group
/// through all its permutations in lexicographic order).
fn next_tie_order(order: &mut [u8], groups: &[(usize, usize)]) {
    for &(a, b) in groups.iter().rev() {
        if next_permutation(&mut order[a..b]) {
            return;
        }
        // Wrapped around: the group is back to its first order.
    }
}

/// Lexicographic next permutation; on the last one, resets to the first
/// and returns `false`.
fn next_permutation(xs: &mut [u8]) -> bool {
    if xs.len() < 2 {
        return false;
    }
    let Some(i) = (0..xs.len() - 1).rev().find(|&i| xs[i] < xs[i + 1]) else {
        xs.reverse();
        return false;
    };
    let j = (i + 1..xs.len())
        .rev()
        .find(|&j| xs[j] > xs[i])
        .unwrap_or(i + 1);
    xs.swap(i, j);
    xs[i + 1..].reverse();
    true
}

/// Every permutation of `0..n`.
fn permutations(n: usize) -> Vec<Vec<u8>> {
    fn go(cur: &mut Vec<u8>, used: &mut [bool], out: &mut Vec<Vec<u8>>) {
        if cur.len() == used.len() {
            out.push(cur.clone());
            return;
        }
        for i in 0..used.len() {
            if !used[i] {
                used[i] = true;
                cur.push(i as u8);
                go(cur, used, out);
                cur.pop();
                used[i] = false;
            }
        }
    }
    let mut out = Vec::new();
    go(&mut Vec::new(), &mut vec![false; n], &mut out);
    out
}

/// Coin-status classes of the counterfeit-coin game.
pub struct CoinSymmetry {
    symbols: usize,
    /// Experiment → (left pan, right pan), 0-based symbols.
    pans: Vec<(Vec<u8>, Vec<u8>)>,
}

impl CoinSymmetry {
    /// Expects the codes `1h, 1l, 2h, …` (code `2i` = coin `i` heavy,
    /// `2i + 1` = light) and `weighing<m>` experiments.
    pub fn new(table: &Table, coins: usize, symbols: usize) -> Option<Self> {
        if table.codes.len() != 2 * coins || symbols > 64 {
            return None;
        }
        for (i, name) in table.codes.iter().enumerate() {
            let want = format!("{}{}", i / 2 + 1, if i % 2 == 0 { 'h' } else { 'l' });
            if *name != want {
                return None;
            }
        }
        let mut pans = Vec::with_capacity(table.experiments.len());
        for exp in &table.experiments {
            let coins: Option<Vec<u8>> = exp
                .params
                .iter()
                .map(|p| p.parse::<usize>().ok().filter(|&c| c >= 1 && c <= symbols))
                .map(|c| c.map(|c| (c - 1) as u8))
                .collect();
            let coins = coins?;
            if coins.len() % 2 != 0 {
                return None;
            }
            let (l, r) = coins.split_at(coins.len() / 2);
            pans.push((l.to_vec(), r.to_vec()));
        }
        Some(CoinSymmetry { symbols, pans })
    }
}

impl Symmetry for CoinSymmetry {
    fn candidates(&self, _history: &[u32], set: &[u16]) -> Option<Vec<u32>> {
        // Status bits per symbol: 1 = may be heavy, 2 = may be light.
        let mut status = vec![0u8; self.symbols];
        for &c in set {
            status[c as usize / 2] |= 1 << (c % 2);
        }
        let pan_key = |pan: &[u8]| -> u64 {
            pan.iter()
                .fold(0u64, |k, &s| k + (1u64 << (16 * status[s as usize])))
        };
        let mut seen = HashSet::new();
        let mut reps = Vec::new();
        for (e, (l, r)) in self.pans.iter().enumerate() {
            let (a, b) = (pan_key(l), pan_key(r));
            if seen.insert((a.min(b), a.max(b))) {
                reps.push(e as u32);
            }
        }
        Some(reps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{Just, Strategy};

    fn reps(game: &str, history: &[&str]) -> Vec<String> {
        let game: Builtin = game.parse().unwrap();
        let table = game.table();
        let sym = for_builtin(&game, &table).unwrap();
        let index = |name: &str| table.codes.iter().position(|c| c == name).unwrap() as u32;
        let history: Vec<u32> = history.iter().map(|h| index(h)).collect();
        let all: Vec<u16> = (0..table.n_codes() as u16).collect();
        sym.candidates(&history, &all)
            .unwrap()
            .into_iter()
            .map(|e| table.experiments[e as usize].params.concat())
            .collect()
    }

    #[test]
    fn first_guess_classes_of_mastermind() {
        assert_eq!(
            reps("mastermind:4x6", &[]),
            ["AAAA", "AAAB", "AABB", "AABC", "ABCD"]
        );
        assert_eq!(reps("bulls-cows:4x10", &[]), ["ABCD"]);
    }

    #[test]
    fn second_guesses_respect_the_first() {
        let r = reps("mastermind:4x6", &["AABB"]);
        // Swapping A and B together with the two halves fixes AABB, so
        // CCAA is BBCC in disguise.
        assert!(r.contains(&"BBCC".to_string()));
        assert!(!r.contains(&"CCAA".to_string()));
        assert!(r.contains(&"ABCD".to_string()));
        assert!(!r.contains(&"ABCE".to_string()));
        assert!(r.len() < 100, "{}", r.len());
    }

    /// MM(4,5) and its word symmetry, built once for all cases.
    fn mm45() -> &'static (Table, WordSymmetry) {
        static CELL: std::sync::OnceLock<(Table, WordSymmetry)> = std::sync::OnceLock::new();
        CELL.get_or_init(|| {
            let table = "mastermind:4x5".parse::<Builtin>().unwrap().table();
            let sym = WordSymmetry::new(&table, 4, 5, AbsentMode::Collapse).unwrap();
            (table, sym)
        })
    }

    /// Applies position permutation `perm` and symbol permutation `tau`
    /// to every code of `set`.
    fn apply(sym: &WordSymmetry, set: &[u16], perm: &[u8], tau: &[u8]) -> Vec<u16> {
        let mut out: Vec<u16> = set
            .iter()
            .map(|&c| {
                let w = &sym.words[c as usize];
                let mut img = vec![0u8; w.len()];
                for j in 0..w.len() {
                    img[perm[j] as usize] = tau[w[j] as usize];
                }
                sym.by_rank[sym.rank(&img)] as u16
            })
            .collect();
        out.sort_unstable();
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Equivalent sets get the same canonical image, and the image is
        /// equivalent to the set (same size, same pairwise scores).
        #[test]
        fn canonical_images_are_class_invariants(
            picks in proptest::collection::vec(0u16..625, 1..40),
            perm in Just((0u8..4).collect::<Vec<_>>()).prop_shuffle(),
            tau in Just((0u8..5).collect::<Vec<_>>()).prop_shuffle(),
        ) {
            let (table, sym) = mm45();
            let mut set = picks.clone();
            set.sort_unstable();
            set.dedup();
            let moved = apply(sym, &set, &perm, &tau);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let ok_a = sym.canonical(&set, &mut a);
            let ok_b = sym.canonical(&moved, &mut b);
            proptest::prop_assert_eq!(ok_a, ok_b);
            if ok_a {
                proptest::prop_assert_eq!(&a, &b);
                proptest::prop_assert_eq!(a.len(), set.len());
                let scores = |s: &[u16]| {
                    let mut h = vec![0usize; table.outcomes.len()];
                    for &x in s {
                        for &y in s {
                            h[table.outcome(x as usize, y as usize) as usize] += 1;
                        }
                    }
                    h
                };
                proptest::prop_assert_eq!(scores(&a), scores(&set));
            }
        }
    }

    #[test]
    fn coin_weighings_by_status_counts() {
        // 4 coins, nothing known: 1 vs 1 and 2 vs 2.
        assert_eq!(reps("coins:4", &[]).len(), 2);
        // With an extra genuine coin: 1v1, 1v(genuine), 2v2, 2v(1+genuine).
        assert_eq!(reps("coins:4+1", &[]).len(), 4);
    }
}
