//! Symmetry of spec-file games for the optimal search, from the certified
//! symmetries of [`crate::game::reduce`] (phase 1).
//!
//! Input: a game's [`Spec`], its explicit [`Table`] built through the spec
//! (experiments are the parameterisations of every type, types in
//! declaration order, parameters lexicographically; codes in canonical
//! order) and the codes as valuations, in table order. Output:
//! [`SpecSymmetry`], whose candidates at a node with code set S are phase
//! 1's experiments for S, as table indices.
//!
//! Why this is sound for an optimal search, which needs more than a
//! one-step strategy (equal part sizes are not enough: the games after
//! two experiments must be the same):
//! * A certified symmetry g = (σ, τ, ρ, π) of the node (see
//!   `reduce::state`) maps S onto S (checked on the codes of S
//!   themselves) and maps every experiment e = (t, p) to
//!   g(e) = (t, σ∘p∘τ⁻¹) so that, on every code c of S, e shows outcome o
//!   iff g(e) shows the matching outcome o' (same finality) on π(c).
//! * If every g(e) is an experiment of the table (or behaves on every code
//!   like one), g is an automorphism of the game restricted to S: by
//!   induction on |T|, every T ⊆ S has the optimal value of π(T) (total,
//!   worst case, within any depth), so e and g(e) have the same optimal
//!   continuation, and so do compositions of such g.
//! * σ∘p∘τ⁻¹ keeps `PARAMS_DISTINCT` (σ is a bijection, τ moves positions
//!   only within the same distinct groups) but may break
//!   `PARAMS_SORTED`. [`SpecSymmetry::new`] accepts a game only if
//!   re-sorting is harmless on every code: every sorted group is one of
//!   phase 1's clean groups or filters, each transposition inside a clean
//!   group and each filter's block swap maps the type's outcome templates
//!   onto themselves (finals onto finals) with variables and mappings
//!   unchanged, and a block swap maps every distinct group onto itself.
//! * Phase 1 keeps the least member of every class of the group the
//!   certified transpositions generate, and its padding rule (D) replaces
//!   an experiment by one of an earlier type that splits S identically.
//!
//! Phase 2 (canonical graphs) is not used: its graph isomorphisms map the
//! knowledge and one experiment's outcomes onto another's, but nothing
//! checks that they map experiments to experiments, which the optimal
//! value needs (see `reduce::canon`).
//!
//! Where phase 1 runs (a matter of speed only: every experiment is
//! always a sound candidate list): not on sets smaller than
//! [`SpecSymmetry::min_set`], and not below a node where phase 1 kept more
//! than [`SpecSymmetry::max_share`] of the experiments. Symmetry breaks
//! down as the history grows (Mastermind 4x6: phase 1 keeps 0.4 % at the
//! root, about 25 % after one guess, over 90 % after two), and past that
//! point a phase 1 call (about a millisecond there) costs more than the
//! candidates it removes.

use std::collections::HashMap;
use std::sync::Mutex;

use super::Symmetry;
use crate::game::knowledge::Instance;
use crate::game::reduce::norm::{Arena, NodeId};
use crate::game::reduce::{CodeSet, Reducer};
use crate::game::spec::{Formula, Spec};
use crate::game::table::Table;

/// Default of [`SpecSymmetry::min_set`] (measured with
/// `scripts/bench-optimal.sh`).
pub const MIN_SET: usize = 8;

/// Default of [`SpecSymmetry::max_share`].
pub const MAX_SHARE: f64 = 0.1;

/// Phase 1 gives up at a node past this many experiments (then every
/// experiment is a candidate).
const PHASE1_LIMIT: usize = 1 << 22;

/// Why a spec game gets no symmetry.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecSymmetryError {
    #[error("the table does not list the spec's experiments in table order")]
    Experiments,
    #[error("{0} valuations for {1} codes")]
    Codes(usize, usize),
    #[error(
        "experiment type `{0}`: its PARAMS_SORTED groups are not all harmless, \
         so symmetric images of experiments may leave the table"
    )]
    Sorted(String),
}

/// Phase 1 of `reduce` as a [`Symmetry`] of a spec game's table.
pub struct SpecSymmetry<'s> {
    spec: &'s Spec,
    table: &'s Table,
    /// Table index → experiment.
    instances: Vec<Instance>,
    index: HashMap<Instance, u32>,
    /// Code (table index) → packed valuation.
    rows: Vec<Vec<u64>>,
    words: usize,
    /// `local[g]`: per type, the type's outcome index of global outcome
    /// `g` (`u8::MAX` if the type has no such outcome).
    local: Vec<Vec<u8>>,
    /// Sets below this size get no reduction.
    pub min_set: usize,
    /// The children of a node are reduced only if phase 1 kept at most
    /// this share of the experiments there (symmetry breaks down as the
    /// history grows: past that point phase 1 costs more than it saves).
    pub max_share: f64,
    /// History → whether its nodes' children are reduced (nodes where
    /// phase 1 ran).
    verdicts: Mutex<HashMap<Vec<u32>, bool>>,
    /// Reducers ready for use (each has its own cache; a reducer is not
    /// `Sync`, so threads take one out and put it back).
    pool: Mutex<Vec<Reducer<'s>>>,
}

impl<'s> SpecSymmetry<'s> {
    /// The symmetry of `spec`'s `table` (built through the spec, see the
    /// module doc); `rows` are the codes' packed valuations (variable `v`
    /// is bit `v % 64` of word `v / 64`), in table order.
    pub fn new(
        spec: &'s Spec,
        table: &'s Table,
        rows: Vec<Vec<u64>>,
    ) -> Result<SpecSymmetry<'s>, SpecSymmetryError> {
        if rows.len() != table.n_codes() {
            return Err(SpecSymmetryError::Codes(rows.len(), table.n_codes()));
        }
        let instances = instances(spec, table).ok_or(SpecSymmetryError::Experiments)?;
        let red = Reducer::new(spec);
        for (t, ty) in spec.experiments.iter().enumerate() {
            if !resorting_harmless(&red, t) {
                return Err(SpecSymmetryError::Sorted(ty.name.clone()));
            }
        }
        let index = instances
            .iter()
            .enumerate()
            .map(|(i, e)| (e.clone(), i as u32))
            .collect();
        let local = spec
            .experiments
            .iter()
            .map(|ty| {
                (0..table.outcomes.len())
                    .map(|g| {
                        (0..ty.outcomes.len())
                            .find(|&o| {
                                ty.outcomes[o].name == table.outcomes[g]
                                    && ty.is_final(o) == table.is_final[g]
                            })
                            .map_or(u8::MAX, |o| o as u8)
                    })
                    .collect()
            })
            .collect();
        let words = spec.vars.len().div_ceil(64).max(1);
        Ok(SpecSymmetry {
            spec,
            table,
            instances,
            index,
            rows,
            words,
            local,
            min_set: MIN_SET,
            max_share: MAX_SHARE,
            verdicts: Mutex::new(HashMap::new()),
            pool: Mutex::new(vec![red]),
        })
    }

    /// The experiment behind table index `e`.
    pub fn instance(&self, e: u32) -> &Instance {
        &self.instances[e as usize]
    }

    fn take_reducer(&self) -> Reducer<'s> {
        let mut pool = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        pool.pop().unwrap_or_else(|| Reducer::new(self.spec))
    }

    fn put_reducer(&self, red: Reducer<'s>) {
        let mut pool = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        pool.push(red);
    }

    /// Variables with one value on every code of `set`.
    fn fixed(&self, set: &[u16]) -> Vec<Option<bool>> {
        let mut any = vec![0u64; self.words];
        let mut all = vec![u64::MAX; self.words];
        for &c in set {
            for (w, &x) in self.rows[c as usize].iter().enumerate() {
                any[w] |= x;
                all[w] &= x;
            }
        }
        (0..self.spec.vars.len())
            .map(|v| {
                let (w, b) = (v / 64, v % 64);
                if all[w] >> b & 1 == 1 {
                    Some(true)
                } else if any[w] >> b & 1 == 0 {
                    Some(false)
                } else {
                    None
                }
            })
            .collect()
    }

    /// Phase 1's experiments for `set` after `history`, as sorted table
    /// indices; `None` if phase 1 gave up or named an experiment the table
    /// lacks (then no reduction).
    pub fn phase1(&self, history: &[u32], set: &[u16]) -> Option<Vec<u32>> {
        let first = *set.first()? as usize;
        let mut past = Vec::with_capacity(history.len());
        for &h in history {
            let exp = self.instances.get(h as usize)?;
            let g = self.table.outcome(h as usize, first);
            let o = self.local[exp.ty][g as usize];
            if o == u8::MAX {
                return None;
            }
            past.push((exp.clone(), o as usize));
        }
        let codes = CodeSet::new(
            self.words,
            set.iter().map(|&c| self.rows[c as usize].clone()),
        );
        let red = self.take_reducer();
        let found = {
            let mut state = red.state(self.fixed(set), &past, Some(codes));
            red.phase1(&mut state, PHASE1_LIMIT)
        };
        self.put_reducer(red);
        let mut out = Vec::with_capacity(found.as_ref().map_or(0, Vec::len));
        for exp in found.ok()? {
            out.push(*self.index.get(&exp)?);
        }
        out.sort_unstable();
        Some(out)
    }
}

impl Symmetry for SpecSymmetry<'_> {
    fn candidates(&self, history: &[u32], set: &[u16]) -> Option<Vec<u32>> {
        if set.len() < self.min_set {
            return None;
        }
        if let Some((_, parent)) = history.split_last() {
            let mut verdicts = self.verdicts.lock().unwrap_or_else(|e| e.into_inner());
            if verdicts.get(parent) == Some(&false) {
                // Nor are its children.
                verdicts.insert(history.to_vec(), false);
                return None;
            }
        }
        let found = self.phase1(history, set);
        let share = found
            .as_ref()
            .map_or(1.0, |l| l.len() as f64 / self.instances.len() as f64);
        let mut verdicts = self.verdicts.lock().unwrap_or_else(|e| e.into_inner());
        verdicts.insert(history.to_vec(), share <= self.max_share);
        found
    }
}

/// The table's experiments as instances, if they are exactly the spec's
/// parameterisations in table order.
fn instances(spec: &Spec, table: &Table) -> Option<Vec<Instance>> {
    let mut out = Vec::with_capacity(table.experiments.len());
    for (t, ty) in spec.experiments.iter().enumerate() {
        let left = table.experiments.len() - out.len();
        let all = crate::game::params::all(ty, spec.alphabet.len(), left + 1)?;
        for params in all {
            let exp = table.experiments.get(out.len())?;
            let same = *exp.kind == *ty.name
                && exp.params.len() == params.len()
                && exp
                    .params
                    .iter()
                    .zip(&params)
                    .all(|(a, &s)| **a == *spec.alphabet[s as usize]);
            if !same {
                return None;
            }
            out.push(Instance { ty: t, params });
        }
    }
    (out.len() == table.experiments.len()).then_some(out)
}

/// Whether re-sorting the parameters of type `t` never changes what an
/// experiment shows (see the module doc): every sorted group is clean or
/// a filter, and their transpositions and block swaps map the outcome
/// templates onto themselves with variables and mappings unchanged.
fn resorting_harmless(red: &Reducer, t: usize) -> bool {
    let ty = &red.spec().experiments[t];
    let info = &red.types[t];
    if !info.sorted_ok {
        return false;
    }
    let mut swaps: Vec<Vec<(u32, u32)>> = Vec::new();
    for &g in &info.clean {
        for w in ty.sorted[g].windows(2) {
            swaps.push(vec![(w[0] as u32, w[1] as u32)]);
        }
    }
    for f in &info.filters {
        let keeps_distinct = ty.distinct.iter().all(|d| {
            f.swaps
                .iter()
                .all(|&(x, y)| d.contains(&(x as usize)) == d.contains(&(y as usize)))
        });
        if !keeps_distinct {
            return false;
        }
        swaps.push(f.swaps.clone());
    }
    let mut arena = Arena::new();
    let mut templates = |perm: &[u32]| -> Vec<(bool, NodeId)> {
        let mut out: Vec<(bool, NodeId)> = ty
            .outcomes
            .iter()
            .enumerate()
            .map(|(o, def)| {
                let root = arena.build(&def.formula, &mut |a, leaf| match leaf {
                    Formula::Var(v) => a.var(v.0, &[]),
                    Formula::Map { map, param } => a.param(map.0, perm[*param as usize]),
                    // `build` asks only for leaves.
                    _ => a.constant(false),
                });
                (ty.is_final(o), root)
            })
            .collect();
        out.sort_unstable();
        out
    };
    let identity: Vec<u32> = (0..ty.arity as u32).collect();
    let want = templates(&identity);
    swaps.iter().all(|s| {
        let mut perm = identity.clone();
        for &(i, j) in s {
            perm.swap(i as usize, j as usize);
        }
        templates(&perm) == want
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::table::Builtin;
    use crate::game::{explicit, Game, Route};

    fn with_symmetry<T>(name: &str, f: impl FnOnce(&Table, &SpecSymmetry) -> T) -> T {
        let game = Game::from_spec(name, Game::builtin(name.parse::<Builtin>().unwrap()).spec);
        let table = game.table(Route::Spec).unwrap();
        let codes = explicit::codes(&game.spec, explicit::MAX_CODES).unwrap();
        let vals = crate::game::table::Valuations::new(game.spec.vars.clone(), &codes);
        let rows = (0..codes.len()).map(|c| vals.row(c).to_vec()).collect();
        let sym = SpecSymmetry::new(&game.spec, &table, rows).unwrap();
        f(&table, &sym)
    }

    fn names(table: &Table, exps: &[u32]) -> Vec<String> {
        exps.iter()
            .map(|&e| table.experiments[e as usize].to_string())
            .collect()
    }

    #[test]
    fn root_classes_of_mastermind_and_coins() {
        with_symmetry("mastermind:3x3", |table, sym| {
            let all: Vec<u16> = (0..table.n_codes() as u16).collect();
            let got = sym.candidates(&[], &all).unwrap();
            assert_eq!(names(table, &got), ["guess AAA", "guess AAB", "guess ABC"]);
        });
        with_symmetry("coins:6", |table, sym| {
            let all: Vec<u16> = (0..table.n_codes() as u16).collect();
            let got = sym.candidates(&[], &all).unwrap();
            assert_eq!(got.len(), 3, "{:?}", names(table, &got));
        });
    }

    /// Sorted part sizes of `set` under `e`, finals apart.
    fn shape(table: &Table, set: &[u16], e: u32) -> Vec<(bool, usize)> {
        let mut count = vec![0usize; table.outcomes.len()];
        for &c in set {
            count[table.outcome(e as usize, c as usize) as usize] += 1;
        }
        let mut out: Vec<(bool, usize)> = count
            .iter()
            .enumerate()
            .filter(|&(_, &k)| k > 0)
            .map(|(o, &k)| (table.is_final[o], k))
            .collect();
        out.sort_unstable();
        out
    }

    #[test]
    fn the_history_breaks_symmetry_and_every_split_keeps_a_representative() {
        with_symmetry("mastermind:3x3", |table, sym| {
            let aab = table
                .experiments
                .iter()
                .position(|e| e.to_string() == "guess AAB")
                .unwrap() as u32;
            for o in 0..table.outcomes.len() as u8 {
                let set: Vec<u16> = (0..table.n_codes())
                    .filter(|&c| table.outcome(aab as usize, c) == o)
                    .map(|c| c as u16)
                    .collect();
                if set.len() < 2 {
                    continue;
                }
                let got = sym.phase1(&[aab], &set).unwrap();
                assert!(got.len() > 3, "{}", table.outcomes[o as usize]);
                let kept: std::collections::HashSet<_> =
                    got.iter().map(|&e| shape(table, &set, e)).collect();
                for e in 0..table.experiments.len() as u32 {
                    assert!(kept.contains(&shape(table, &set, e)));
                }
            }
        });
    }

    #[test]
    fn small_sets_are_not_reduced() {
        with_symmetry("mastermind:2x3", |_, sym| {
            assert_eq!(sym.candidates(&[], &[0, 1, 2]), None);
        });
    }
}
