//! The knowledge at one node of a play, as the symmetry checks see it, and
//! the certification of symbol and position transpositions.
//!
//! Input: the [`Reducer`]'s static facts, the fixed variables, the history
//! and optionally the codes still possible. Output: [`State`], which
//! answers "is this transposition a symmetry" and gives the classes of
//! interchangeable symbols and parameter positions.
//!
//! A *symmetry* of the state is `(σ, τ, ρ, π)`: a permutation σ of the
//! alphabet, a permutation τ of one experiment type's parameter positions,
//! a permutation ρ of the mappings and a permutation π of the variables,
//! such that
//! 1. `π(M(s)) = ρ(M)(σ(s))` for every mapping M and symbol s, where fixed
//!    variables count as their value (a fixed variable must meet one fixed
//!    to the same value; π moves only open variables);
//! 2. π maps the codes still possible onto themselves (checked on the
//!    codes when they are known, else syntactically: the normalised
//!    conjuncts of φ0 ∧ history, fixed variables substituted, are mapped
//!    onto themselves);
//! 3. for every experiment type, the leaf renaming `M$k ↦ ρ(M)$τ(k)`,
//!    `v ↦ π(v)` (τ the identity on other types) maps the set of its
//!    outcome templates (normalised, fixed variables substituted) onto
//!    itself, final outcomes onto final ones.
//!
//! Then experiment `(t, p)` on code `c` shows outcome o iff
//! `(t, σ∘p∘τ⁻¹)` shows the matching outcome o' on `π(c)`, so the two
//! split the codes still possible into parts of equal sizes, with equal
//! fixed-variable counts and the same finality: every strategy ranks them
//! alike, and the games after them are the same up to π (π maps every
//! experiment to an experiment, so an optimal search may use them too).
//! Each check is sufficient, not necessary: a symmetry it misses only
//! costs reduction, never correctness.

use std::collections::HashMap;

use super::norm::{Arena, Node, NodeId, TRUE};
use super::Reducer;
use crate::game::knowledge::Instance;
use crate::game::spec::Formula;

/// The codes still possible, packed one row per code (variable `v` is bit
/// `v % 64` of word `v / 64`), sorted for lookups.
#[derive(Clone, Debug)]
pub struct CodeSet {
    words: usize,
    rows: Vec<u64>,
}

impl CodeSet {
    /// From packed rows of `words` words each (any order, no duplicates
    /// needed).
    pub fn new(words: usize, rows: impl IntoIterator<Item = Vec<u64>>) -> CodeSet {
        let mut all: Vec<Vec<u64>> = rows.into_iter().collect();
        all.sort_unstable();
        all.dedup();
        CodeSet {
            words,
            rows: all.concat(),
        }
    }

    pub fn len(&self) -> usize {
        self.rows.len() / self.words.max(1)
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    fn row(&self, i: usize) -> &[u64] {
        &self.rows[i * self.words..(i + 1) * self.words]
    }

    fn contains(&self, row: &[u64]) -> bool {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.row(mid).cmp(row) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return true,
            }
        }
        false
    }

    /// Whether π (given by its moved variables `(v, π(v))`) maps the set
    /// onto itself.
    fn invariant(&self, moved: &[(u32, u32)]) -> bool {
        let mut image = vec![0u64; self.words];
        for i in 0..self.len() {
            let row = self.row(i);
            image.copy_from_slice(row);
            for &(v, _) in moved {
                image[v as usize / 64] &= !(1 << (v % 64));
            }
            for &(v, w) in moved {
                if row[v as usize / 64] >> (v % 64) & 1 == 1 {
                    image[w as usize / 64] |= 1 << (w % 64);
                }
            }
            if !self.contains(&image) {
                return false;
            }
        }
        true
    }
}

/// One node's knowledge for the symmetry checks.
pub struct State<'r, 's> {
    pub(super) red: &'r Reducer<'s>,
    pub(super) arena: Arena,
    pub(super) fixed: Vec<Option<bool>>,
    /// `templates[t][o]`: outcome `o` of type `t`, with `Param` leaves.
    pub(super) templates: Vec<Vec<NodeId>>,
    /// The conjuncts of φ0 ∧ history, sorted, with their variables.
    pub(super) conjuncts: Vec<NodeId>,
    supports: Vec<Vec<u32>>,
    codes: Option<CodeSet>,
    sym_classes: Option<Vec<u32>>,
}

/// A candidate symmetry in the making.
struct Trial {
    sigma: Option<(u32, u32)>,
    /// Type and the image of each of its positions.
    tau: Option<(usize, Vec<u32>)>,
}

impl Trial {
    fn sigma(&self, s: u32) -> u32 {
        match self.sigma {
            Some((a, b)) if s == a => b,
            Some((a, b)) if s == b => a,
            _ => s,
        }
    }

    fn tau(&self, ty: usize, k: u32) -> u32 {
        match &self.tau {
            Some((t, perm)) if *t == ty => perm[k as usize],
            _ => k,
        }
    }

    fn positions(ty: usize, arity: usize, swaps: &[(u32, u32)]) -> Trial {
        let mut perm: Vec<u32> = (0..arity as u32).collect();
        for &(i, j) in swaps {
            perm.swap(i as usize, j as usize);
        }
        Trial {
            sigma: None,
            tau: Some((ty, perm)),
        }
    }
}

impl<'r, 's> State<'r, 's> {
    /// The state with `fixed` variables, after `history` (experiment,
    /// outcome index within its type); `codes`, when given, must be
    /// exactly the codes of φ0 ∧ history.
    pub fn new(
        red: &'r Reducer<'s>,
        fixed: Vec<Option<bool>>,
        history: &[(Instance, usize)],
        codes: Option<CodeSet>,
    ) -> State<'r, 's> {
        let spec = red.spec;
        let mut arena = Arena::new();
        let templates = spec
            .experiments
            .iter()
            .map(|ty| {
                ty.outcomes
                    .iter()
                    .map(|o| {
                        arena.build(&o.formula, &mut |a, leaf| match leaf {
                            Formula::Var(v) => a.var(v.0, &fixed),
                            Formula::Map { map, param } => a.param(map.0, *param),
                            _ => unreachable!("build only asks for leaves"),
                        })
                    })
                    .collect()
            })
            .collect();
        let mut roots: Vec<NodeId> = Vec::new();
        for c in &spec.constraints {
            roots.push(arena.build(c, &mut |a, leaf| match leaf {
                Formula::Var(v) => a.var(v.0, &fixed),
                _ => unreachable!("constraints have no parameters"),
            }));
        }
        for (exp, o) in history {
            let f = &spec.experiments[exp.ty].outcomes[*o].formula;
            roots.push(arena.build(f, &mut |a, leaf| match leaf {
                Formula::Var(v) => a.var(v.0, &fixed),
                Formula::Map { map, param } => {
                    let sym = exp.params[*param as usize] as usize;
                    a.var(spec.mappings[map.index()].targets[sym].0, &fixed)
                }
                _ => unreachable!("build only asks for leaves"),
            }));
        }
        let all = arena.and(roots);
        let mut conjuncts = match arena.node(all) {
            Node::And(xs) => xs.clone(),
            _ if all == TRUE => Vec::new(),
            _ => vec![all],
        };
        conjuncts.sort_unstable();
        let supports = conjuncts.iter().map(|&c| arena.support(c)).collect();
        State {
            red,
            arena,
            fixed,
            templates,
            conjuncts,
            supports,
            codes,
            sym_classes: None,
        }
    }

    /// [`State::symbol_classes`], computed once per state.
    pub fn symbol_classes_cached(&mut self) -> Vec<u32> {
        if self.sym_classes.is_none() {
            self.sym_classes = Some(self.symbol_classes());
        }
        self.sym_classes.clone().unwrap_or_default()
    }

    pub fn fixed(&self) -> &[Option<bool>] {
        &self.fixed
    }

    /// The fixed value of a variable, `None` if open.
    fn value(&self, v: u32) -> Option<bool> {
        self.fixed[v as usize]
    }

    /// Whether swapping symbols `a` and `b` (with the variables and
    /// mappings that follow) is a symmetry.
    pub fn symbols_swap(&mut self, a: u32, b: u32) -> bool {
        a == b
            || self.certify(
                &Trial {
                    sigma: Some((a, b)),
                    tau: None,
                },
                None,
            )
    }

    /// Whether swapping parameter positions `i` and `j` of type `ty` is a
    /// symmetry (the type's restrictions must treat `i` and `j` alike).
    pub fn positions_swap(&mut self, ty: usize, i: u32, j: u32) -> bool {
        if i == j {
            return true;
        }
        let t = &self.red.spec.experiments[ty];
        let info = &self.red.types[ty];
        let (ui, uj) = (i as usize, j as usize);
        let same = |g: &Vec<usize>| g.contains(&ui) == g.contains(&uj);
        let clean_ok = info.clean.iter().all(|&g| same(&t.sorted[g]));
        // A filter's positions move only within their own sorted group.
        let filters_ok = info.filters.iter().all(|f| {
            let touches = [f.a, f.b].iter().any(|&p| p == ui || p == uj);
            !touches
                || info
                    .clean
                    .iter()
                    .any(|&g| t.sorted[g].contains(&ui) && t.sorted[g].contains(&uj))
        });
        if !t.distinct.iter().all(same) || !clean_ok || !filters_ok {
            return false;
        }
        let trial = Trial::positions(ty, t.arity, &[(i, j)]);
        self.certify(&trial, Some((ty, vec![(i, j)])))
    }

    /// Whether the position permutation made of `swaps` (disjoint pairs) is
    /// a symmetry of type `ty`, outcomes allowed to trade places.
    pub fn positions_permute(&mut self, ty: usize, swaps: &[(u32, u32)]) -> bool {
        let t = &self.red.spec.experiments[ty];
        let trial = Trial::positions(ty, t.arity, swaps);
        self.certify(&trial, Some((ty, swaps.to_vec())))
    }

    /// The symbols whose every mapped variable is fixed ("dead": coins
    /// known to be genuine), by their pattern of values, one entry per
    /// symbol (`None`: not dead).
    pub fn dead_patterns(&self) -> Vec<Option<Vec<bool>>> {
        let spec = self.red.spec;
        (0..spec.alphabet.len())
            .map(|s| {
                spec.mappings
                    .iter()
                    .enumerate()
                    .filter(|&(m, _)| self.red.used_maps[m])
                    .map(|(_, mapping)| self.value(mapping.targets[s].0))
                    .collect()
            })
            .collect()
    }

    /// Padding: whether an experiment of type `ty` with a dead symbol of
    /// pattern `dead` in clean sorted group `ga` and another in group `gb`
    /// splits the codes exactly as an experiment of an earlier type
    /// without those two symbols. Checked on the templates: substituting
    /// the dead values for the last position of each group (every position
    /// of a clean group is alike: they are sorted, so the group is
    /// symmetric) and renumbering the rest gives an earlier type's
    /// templates, whose clean groups and restrictions are this type's
    /// minus those two positions.
    pub fn padding(&mut self, ty: usize, ga: usize, gb: usize, dead: &[bool]) -> bool {
        let spec = self.red.spec;
        let t = &spec.experiments[ty];
        let info = &self.red.types[ty];
        let (a, b) = (&t.sorted[info.clean[ga]], &t.sorted[info.clean[gb]]);
        let (i, j) = (a[a.len() - 1], b[b.len() - 1]);
        let renumber = |k: usize| -> Option<usize> {
            if k == i || k == j {
                None
            } else {
                Some(k - usize::from(k > i) - usize::from(k > j))
            }
        };
        let shape = |ty2: usize| -> bool {
            let t2 = &spec.experiments[ty2];
            let info2 = &self.red.types[ty2];
            let groups: Vec<Vec<usize>> = info
                .clean
                .iter()
                .map(|&g| t.sorted[g].iter().filter_map(|&k| renumber(k)).collect())
                .filter(|g: &Vec<usize>| g.len() > 1)
                .collect();
            let groups2: Vec<Vec<usize>> =
                info2.clean.iter().map(|&g| t2.sorted[g].clone()).collect();
            let distinct: Vec<Vec<usize>> = t
                .distinct
                .iter()
                .map(|d| d.iter().filter_map(|&k| renumber(k)).collect())
                .collect();
            let filters: Vec<(Option<usize>, Option<usize>)> = info
                .filters
                .iter()
                .map(|f| (renumber(f.a), renumber(f.b)))
                .collect();
            let filters2: Vec<(Option<usize>, Option<usize>)> = info2
                .filters
                .iter()
                .map(|f| (Some(f.a), Some(f.b)))
                .collect();
            t2.arity + 2 == t.arity
                && info2.sorted_ok
                && groups == groups2
                && distinct == t2.distinct
                && filters == filters2
                && t2.outcomes.len() == t.outcomes.len()
        };
        let Some(ty2) = (0..ty).find(|&x| shape(x)) else {
            return false;
        };
        let used: Vec<usize> = (0..spec.mappings.len())
            .filter(|&m| self.red.used_maps[m])
            .collect();
        let fixed = &self.fixed;
        let mut memo = Vec::new();
        let mut got: Vec<(bool, NodeId)> = Vec::new();
        for o in 0..t.outcomes.len() {
            let root = self.templates[ty][o];
            let renamed = self.arena.rename(root, &mut memo, &mut |ar, n| match n {
                Node::Var(v) => ar.var(*v, fixed),
                Node::Param { map, pos } => match renumber(*pos as usize) {
                    Some(k) => ar.param(*map, k as u32),
                    None => {
                        let m = used.iter().position(|&x| x == *map as usize).unwrap_or(0);
                        ar.constant(dead[m])
                    }
                },
                _ => unreachable!("rename only asks for leaves"),
            });
            got.push((t.is_final(o), renamed));
        }
        let t2 = &spec.experiments[ty2];
        let mut want: Vec<(bool, NodeId)> = (0..t2.outcomes.len())
            .map(|o| (t2.is_final(o), self.templates[ty2][o]))
            .collect();
        got.sort_unstable();
        want.sort_unstable();
        got == want
    }

    /// Finds ρ, then π, then checks conditions 2 and 3 (see the module
    /// doc).
    fn certify(&mut self, trial: &Trial, cache: Option<(usize, Vec<(u32, u32)>)>) -> bool {
        let Some(rho) = self.rho(trial) else {
            return false;
        };
        let Some(moved) = self.pi(trial, &rho) else {
            return false;
        };
        let identity_rho = rho.iter().enumerate().all(|(m, &r)| m as u32 == r);
        if moved.is_empty() && identity_rho {
            if let Some((ty, swaps)) = cache {
                // With π and ρ the identity only the templates matter, and
                // they depend on the state only through the values of
                // their plain variables.
                let plain: Vec<Option<bool>> = self.red.types[ty]
                    .plain
                    .iter()
                    .map(|&v| self.value(v))
                    .collect();
                let key = (ty, swaps, plain);
                if let Some(&ok) = self.red.cache.borrow().get(&key) {
                    return ok;
                }
                let ok = self.templates_invariant(trial, &rho, &moved);
                self.red.cache.borrow_mut().insert(key, ok);
                return ok;
            }
        }
        self.templates_invariant(trial, &rho, &moved) && self.knowledge_invariant(&moved)
    }

    /// ρ: for each mapping, one with the image's usage and fixed pattern,
    /// itself if possible.
    fn rho(&self, trial: &Trial) -> Option<Vec<u32>> {
        let spec = self.red.spec;
        let n = spec.mappings.len();
        let n_sym = spec.alphabet.len() as u32;
        let mut taken = vec![false; n];
        let mut rho = vec![u32::MAX; n];
        let same_values = |x: u32, y: u32| match (self.value(x), self.value(y)) {
            (Some(x), Some(y)) => x == y,
            (None, None) => true,
            _ => false,
        };
        let fits = |m: usize, image: usize| -> bool {
            if m == image {
                // Only what the trial moves can differ.
                let usage_ok = match &trial.tau {
                    Some((ty, perm)) => {
                        let u = &self.red.types[*ty].usage[m];
                        (0..u.len()).all(|k| u[k] == u[perm[k] as usize])
                    }
                    None => true,
                };
                let targets = &spec.mappings[m].targets;
                return usage_ok
                    && match trial.sigma {
                        Some((a, b)) => same_values(targets[a as usize].0, targets[b as usize].0),
                        None => true,
                    };
            }
            let usage_ok = self.red.types.iter().enumerate().all(|(ty, info)| {
                (0..info.usage[m].len()).all(|k| {
                    info.usage[m][k] == info.usage[image][trial.tau(ty, k as u32) as usize]
                })
            });
            usage_ok
                && (0..n_sym).all(|s| {
                    let from = spec.mappings[m].targets[s as usize].0;
                    let to = spec.mappings[image].targets[trial.sigma(s) as usize].0;
                    same_values(from, to)
                })
        };
        for m in 0..n {
            if !self.red.used_maps[m] {
                // Mappings no template mentions are left alone.
                if taken[m] {
                    return None;
                }
                taken[m] = true;
                rho[m] = m as u32;
                continue;
            }
            let image = std::iter::once(m)
                .chain(0..n)
                .find(|&x| !taken[x] && self.red.used_maps[x] && fits(m, x))?;
            taken[image] = true;
            rho[m] = image as u32;
        }
        Some(rho)
    }

    /// π as its moved open variables `(v, π(v))`, if it is a
    /// well-defined permutation.
    fn pi(&self, trial: &Trial, rho: &[u32]) -> Option<Vec<(u32, u32)>> {
        let spec = self.red.spec;
        let mut image: HashMap<u32, u32> = HashMap::new();
        for (m, mapping) in spec.mappings.iter().enumerate() {
            if !self.red.used_maps[m] {
                continue;
            }
            let target = &spec.mappings[rho[m] as usize];
            for (s, v) in mapping.targets.iter().enumerate() {
                if self.value(v.0).is_some() {
                    continue;
                }
                let w = target.targets[trial.sigma(s as u32) as usize].0;
                match image.insert(v.0, w) {
                    Some(old) if old != w => return None,
                    _ => {}
                }
            }
        }
        // A bijection: no two variables share an image, and every image
        // that is not itself moved would then have two preimages.
        let mut moved: Vec<(u32, u32)> = image.into_iter().filter(|&(v, w)| v != w).collect();
        moved.sort_unstable();
        let mut targets: Vec<u32> = moved.iter().map(|&(_, w)| w).collect();
        targets.sort_unstable();
        let sources: Vec<u32> = moved.iter().map(|&(v, _)| v).collect();
        if targets != sources {
            return None;
        }
        Some(moved)
    }

    fn templates_invariant(&mut self, trial: &Trial, rho: &[u32], moved: &[(u32, u32)]) -> bool {
        let pi: HashMap<u32, u32> = moved.iter().copied().collect();
        let identity_rho = rho.iter().enumerate().all(|(m, &r)| m as u32 == r);
        for ty in 0..self.templates.len() {
            let info = &self.red.types[ty];
            let tau_here = matches!(&trial.tau, Some((t, _)) if *t == ty);
            let plain_moved = info.plain.iter().any(|v| pi.contains_key(v));
            if identity_rho && !tau_here && !plain_moved {
                continue;
            }
            let fixed = &self.fixed;
            let mut memo = Vec::new();
            // The outcomes may trade places, finals with finals.
            let t = &self.red.spec.experiments[ty];
            let mut want: Vec<(bool, NodeId)> = (0..t.outcomes.len())
                .map(|o| (t.is_final(o), self.templates[ty][o]))
                .collect();
            let mut got = Vec::with_capacity(want.len());
            for &(fin, root) in &want {
                let renamed = self.arena.rename(root, &mut memo, &mut |a, n| match n {
                    Node::Var(v) => a.var(*pi.get(v).unwrap_or(v), fixed),
                    Node::Param { map, pos } => a.param(rho[*map as usize], trial.tau(ty, *pos)),
                    _ => unreachable!("rename only asks for leaves"),
                });
                got.push((fin, renamed));
            }
            want.sort_unstable();
            got.sort_unstable();
            if want != got {
                return false;
            }
        }
        true
    }

    fn knowledge_invariant(&mut self, moved: &[(u32, u32)]) -> bool {
        if moved.is_empty() {
            return true;
        }
        if let Some(codes) = &self.codes {
            return codes.invariant(moved);
        }
        let pi: HashMap<u32, u32> = moved.iter().copied().collect();
        let fixed = &self.fixed;
        let mut memo = Vec::new();
        for c in 0..self.conjuncts.len() {
            if !self.supports[c].iter().any(|v| pi.contains_key(v)) {
                continue;
            }
            let renamed = self
                .arena
                .rename(self.conjuncts[c], &mut memo, &mut |a, n| match n {
                    Node::Var(v) => a.var(*pi.get(v).unwrap_or(v), fixed),
                    _ => unreachable!("knowledge has no parameters"),
                });
            if self.conjuncts.binary_search(&renamed).is_err() {
                return false;
            }
        }
        true
    }

    /// Classes of interchangeable symbols: `class[s]` is the least symbol
    /// of `s`'s class. Transpositions are certified against a class's
    /// least member; a chain of certified transpositions composes to one,
    /// so the classes are unions of certified swaps.
    pub fn symbol_classes(&mut self) -> Vec<u32> {
        let n = self.red.spec.alphabet.len() as u32;
        let mut reps: Vec<u32> = Vec::new();
        let mut class = vec![0; n as usize];
        for s in 0..n {
            let found = (0..reps.len()).find(|&r| self.symbols_swap(reps[r], s));
            match found {
                Some(r) => class[s as usize] = reps[r],
                None => {
                    reps.push(s);
                    class[s as usize] = s;
                }
            }
        }
        class
    }

    /// The mappings read at position `k` of type `ty`, if swapping two
    /// symbols there alone can be a symmetry of the game: those mappings
    /// are read at no other position of any type, every type that reads
    /// one of them reads exactly them at `k`, with `k` in no
    /// `PARAMS_DISTINCT`/`PARAMS_SORTED` group, and no template names
    /// their variables directly and no other mapping reaches them. (The
    /// pegs of black-peg Mastermind: `P3$3` only.)
    fn positional_maps(&self, ty: usize, k: usize) -> Option<Vec<usize>> {
        let spec = self.red.spec;
        let maps: Vec<usize> = (0..spec.mappings.len())
            .filter(|&m| self.red.types[ty].usage[m][k])
            .collect();
        if maps.is_empty() {
            return None;
        }
        for (t2, info) in self.red.types.iter().enumerate() {
            let reads = |m: usize, j: usize| info.usage[m].get(j).copied().unwrap_or(false);
            let arity = spec.experiments[t2].arity;
            if maps
                .iter()
                .any(|&m| (0..arity).any(|j| j != k && reads(m, j)))
            {
                return None;
            }
            let here: Vec<usize> = (0..spec.mappings.len()).filter(|&m| reads(m, k)).collect();
            if here.iter().any(|m| maps.contains(m)) {
                let t = &spec.experiments[t2];
                let grouped = t.distinct.iter().chain(&t.sorted).any(|g| g.contains(&k));
                if here != maps || grouped {
                    return None;
                }
            }
        }
        let mut vars: Vec<u32> = maps
            .iter()
            .flat_map(|&m| spec.mappings[m].targets.iter().map(|v| v.0))
            .collect();
        vars.sort_unstable();
        let n = vars.len();
        vars.dedup();
        let plain = self
            .red
            .types
            .iter()
            .any(|i| i.plain.iter().any(|v| vars.binary_search(v).is_ok()));
        let shared = (0..spec.mappings.len())
            .filter(|m| !maps.contains(m))
            .any(|m| {
                spec.mappings[m]
                    .targets
                    .iter()
                    .any(|v| vars.binary_search(&v.0).is_ok())
            });
        (n == vars.len() && !plain && !shared).then_some(maps)
    }

    /// Per position of type `ty`, classes of symbols interchangeable at
    /// that position alone (`class[s]`, the least symbol of `s`'s class;
    /// `None`: no such symmetry at the position). Swapping `a` and `b` at
    /// position `k` with π exchanging `M(a)` and `M(b)` for the mappings
    /// read there (`State::positional_maps`) maps the experiment to one
    /// differing only at `k`, changes no other position's variables, and
    /// is a symmetry when π keeps fixed values and the codes still
    /// possible. Phase 1 tries only the least symbol of each class there.
    pub fn positional_classes(&mut self, ty: usize) -> Vec<Option<Vec<u32>>> {
        let spec = self.red.spec;
        let n_sym = spec.alphabet.len() as u32;
        (0..spec.experiments[ty].arity)
            .map(|k| {
                let maps = self.positional_maps(ty, k)?;
                let mut reps: Vec<u32> = Vec::new();
                let mut class = vec![0; n_sym as usize];
                for s in 0..n_sym {
                    let found = reps.iter().copied().find(|&r| {
                        let mut moved = Vec::new();
                        let mut ok = true;
                        for &m in &maps {
                            let t = &spec.mappings[m].targets;
                            let (x, y) = (t[r as usize].0, t[s as usize].0);
                            match (self.value(x), self.value(y)) {
                                (None, None) => {
                                    moved.push((x, y));
                                    moved.push((y, x));
                                }
                                (Some(p), Some(q)) if p == q => {}
                                _ => ok = false,
                            }
                        }
                        moved.sort_unstable();
                        ok && self.knowledge_invariant(&moved)
                    });
                    match found {
                        Some(r) => class[s as usize] = r,
                        None => {
                            reps.push(s);
                            class[s as usize] = s;
                        }
                    }
                }
                Some(class)
            })
            .collect()
    }

    /// Classes of interchangeable parameter positions of type `ty`,
    /// `class[k]` the least position of `k`'s class.
    pub fn position_classes(&mut self, ty: usize) -> Vec<u32> {
        let n = self.red.spec.experiments[ty].arity as u32;
        let mut reps: Vec<u32> = Vec::new();
        let mut class = vec![0; n as usize];
        for k in 0..n {
            let found = (0..reps.len()).find(|&r| self.positions_swap(ty, reps[r], k));
            match found {
                Some(r) => class[k as usize] = reps[r],
                None => {
                    reps.push(k);
                    class[k as usize] = k;
                }
            }
        }
        class
    }
}
