//! Symmetry reduction of experiments for any spec game (Klimoš–Kučera's
//! two phases): keep one experiment per class of experiments that are
//! equivalent under the current knowledge.
//!
//! Input: a [`Spec`], and per node of a play the fixed variables, the
//! history and (when known) the codes still possible. Output: the
//! experiments to consider, in table order (types in declaration order,
//! then parameters lexicographically), with counts of how many were
//! generated and kept.
//!
//! * Phase 1 ([`phase1`]) enumerates parameterisations lexicographically
//!   and skips prefixes that a certified symmetry of the state maps to a
//!   smaller prefix (symbols interchangeable given the knowledge and the
//!   prefix, interchangeable parameter positions). What is certified and
//!   why it is sound: [`state`].
//! * Phase 2 ([`canon`]) builds a coloured graph per (knowledge,
//!   experiment) from the normalised formulas with fixed variables removed
//!   and compares canonical forms (crate `canonical-form`): equal forms
//!   mean a variable permutation maps the knowledge onto itself and one
//!   experiment's outcomes onto the other's.
//!
//! Invariant (tested): the kept experiments include the lexicographically
//! first experiment of every equivalence class, so a strategy that takes
//! the best-ranked experiment and breaks ties by "possible first, then
//! table order" chooses the same experiment with and without reduction,
//! and builds the same tree.

pub mod canon;
pub mod norm;
pub mod phase1;
pub mod state;

use std::cell::RefCell;
use std::collections::HashMap;

use crate::game::knowledge::Instance;
use crate::game::spec::{Formula, Spec};

pub use phase1::Overflow;
pub use state::{CodeSet, State};

/// Static facts about one experiment type.
#[derive(Clone, Debug)]
pub(crate) struct TypeInfo {
    /// `usage[m][k]`: the templates mention `M$k` for mapping `m`.
    pub(crate) usage: Vec<Vec<bool>>,
    /// Variables the templates mention directly, sorted.
    pub(crate) plain: Vec<u32>,
    /// The `PARAMS_SORTED` groups allow phase 1: the clean ones pairwise
    /// disjoint, listed in increasing position order, each inside or
    /// outside every `PARAMS_DISTINCT` group; the others are filters.
    pub(crate) sorted_ok: bool,
    /// Indices of the clean sorted groups.
    pub(crate) clean: Vec<usize>,
    pub(crate) filters: Vec<Filter>,
}

type CacheKey = (usize, Vec<(u32, u32)>, Vec<Option<bool>>);

/// A `PARAMS_SORTED a, b` group that breaks a symmetry swapping two whole
/// sorted groups (a weighing's pans): `a` and `b` head sorted groups of
/// equal size, and `swaps` exchanges those groups position by position.
#[derive(Clone, Debug)]
pub(crate) struct Filter {
    pub(crate) a: usize,
    pub(crate) b: usize,
    pub(crate) swaps: Vec<(u32, u32)>,
}

/// The reducer of one spec.
pub struct Reducer<'s> {
    pub(crate) spec: &'s Spec,
    pub(crate) types: Vec<TypeInfo>,
    /// Mappings some template mentions.
    pub(crate) used_maps: Vec<bool>,
    pub(crate) cache: RefCell<HashMap<CacheKey, bool>>,
}

/// How many experiments one node had, before and after each phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    /// Every parameterisation (`None`: more than `u64::MAX`... or too many
    /// to count).
    pub total: Option<u64>,
    /// Left by phase 1.
    pub generated: usize,
    /// Left after merging experiments with identical partitions (or
    /// identical normalised outcomes).
    pub distinct: usize,
    /// Left after phase 2.
    pub kept: usize,
}

fn collect_leaves(f: &Formula, usage: &mut [Vec<bool>], plain: &mut Vec<u32>) {
    match f {
        Formula::Const(_) => {}
        Formula::Var(v) => plain.push(v.0),
        Formula::Map { map, param } => usage[map.index()][*param as usize] = true,
        Formula::Not(a) => collect_leaves(a, usage, plain),
        Formula::And(xs) | Formula::Or(xs) | Formula::Card { args: xs, .. } => {
            xs.iter().for_each(|x| collect_leaves(x, usage, plain))
        }
        Formula::Implies(a, b) | Formula::Iff(a, b) => {
            collect_leaves(a, usage, plain);
            collect_leaves(b, usage, plain);
        }
    }
}

/// Splits a type's sorted groups into clean groups and filters (see
/// [`Filter`]); the flag says whether phase 1 can work with them.
fn sorted_groups(t: &crate::game::spec::ExperimentType) -> (Vec<usize>, Vec<Filter>, bool) {
    // Clean: disjoint from every earlier clean group.
    let mut seen = vec![false; t.arity];
    let mut clean = Vec::new();
    let mut rest = Vec::new();
    for (i, g) in t.sorted.iter().enumerate() {
        if g.len() < 2 {
            continue; // says nothing
        }
        if g.iter().all(|&k| !seen[k]) {
            g.iter().for_each(|&k| seen[k] = true);
            clean.push(i);
        } else {
            rest.push(i);
        }
    }
    let increasing = clean
        .iter()
        .all(|&i| t.sorted[i].windows(2).all(|w| w[0] < w[1]));
    let compatible = clean.iter().all(|&i| {
        let g = &t.sorted[i];
        t.distinct.iter().all(|d| {
            let inside = g.iter().filter(|k| d.contains(k)).count();
            inside == 0 || inside == g.len()
        })
    });
    let group_of = |k: usize| clean.iter().copied().find(|&i| t.sorted[i].contains(&k));
    let mut filters = Vec::new();
    let mut ok = increasing && compatible;
    for i in rest {
        let g = &t.sorted[i];
        let filter = match g.as_slice() {
            &[a, b] if a < b => match (group_of(a), group_of(b)) {
                (Some(ga), Some(gb))
                    if ga != gb
                        && t.sorted[ga][0] == a
                        && t.sorted[gb][0] == b
                        && t.sorted[ga].len() == t.sorted[gb].len() =>
                {
                    let swaps = t.sorted[ga]
                        .iter()
                        .zip(&t.sorted[gb])
                        .map(|(&x, &y)| (x as u32, y as u32))
                        .collect();
                    Some(Filter { a, b, swaps })
                }
                (None, None) => Some(Filter {
                    a,
                    b,
                    swaps: vec![(a as u32, b as u32)],
                }),
                _ => None,
            },
            _ => None,
        };
        match filter {
            Some(f) => filters.push(f),
            None => ok = false,
        }
    }
    (clean, filters, ok)
}

impl<'s> Reducer<'s> {
    pub fn new(spec: &'s Spec) -> Reducer<'s> {
        let n_maps = spec.mappings.len();
        let types: Vec<TypeInfo> = spec
            .experiments
            .iter()
            .map(|t| {
                let mut usage = vec![vec![false; t.arity]; n_maps];
                let mut plain = Vec::new();
                for o in &t.outcomes {
                    collect_leaves(&o.formula, &mut usage, &mut plain);
                }
                plain.sort_unstable();
                plain.dedup();
                let (clean, filters, sorted_ok) = sorted_groups(t);
                TypeInfo {
                    usage,
                    plain,
                    sorted_ok,
                    clean,
                    filters,
                }
            })
            .collect();
        let used_maps = (0..n_maps)
            .map(|m| types.iter().any(|t| t.usage[m].iter().any(|&u| u)))
            .collect();
        Reducer {
            spec,
            types,
            used_maps,
            cache: RefCell::new(HashMap::new()),
        }
    }

    pub fn spec(&self) -> &'s Spec {
        self.spec
    }

    /// The state of a node: `fixed` variables, the `history` (experiment,
    /// outcome index within its type), and the codes still possible if
    /// known (exactly the models of φ0 ∧ history).
    pub fn state<'r>(
        &'r self,
        fixed: Vec<Option<bool>>,
        history: &[(Instance, usize)],
        codes: Option<CodeSet>,
    ) -> State<'r, 's> {
        State::new(self, fixed, history, codes)
    }

    /// Phase 1 over every type, in table order; [`Overflow`] if more than
    /// `limit` experiments survive.
    pub fn phase1(&self, state: &mut State, limit: usize) -> Result<Vec<Instance>, Overflow> {
        let mut out = Vec::new();
        for ty in 0..self.spec.experiments.len() {
            let left = limit.saturating_sub(out.len());
            for params in phase1::enumerate(state, ty, left)? {
                out.push(Instance { ty, params });
            }
        }
        Ok(out)
    }

    /// Phase 1 over every type, in table order, calling `emit` on each
    /// surviving experiment (nothing is collected).
    pub fn phase1_each(
        &self,
        state: &mut State,
        emit: &mut dyn FnMut(Instance) -> Result<(), Overflow>,
    ) -> Result<(), Overflow> {
        for ty in 0..self.spec.experiments.len() {
            phase1::for_each(state, ty, &mut |p| {
                emit(Instance {
                    ty,
                    params: p.to_vec(),
                })
            })?;
        }
        Ok(())
    }

    /// The number of parameterisations of every type together, if at most
    /// `cap`.
    pub fn total(&self, cap: u64) -> Option<u64> {
        let mut n = 0u64;
        for t in &self.spec.experiments {
            let c = crate::game::params::count(t, self.spec.alphabet.len(), cap).ok()?;
            n = n.checked_add(c).filter(|&x| x <= cap)?;
        }
        Some(n)
    }
}

#[cfg(test)]
mod tests;
