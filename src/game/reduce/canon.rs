//! Phase 2: a coloured graph per (knowledge, experiment), canonically
//! labelled; experiments with equal canonical graphs are equivalent.
//!
//! Input: a [`State`] and an experiment [`Instance`]. Output: a [`Key`];
//! equal keys (for the same state) mean equivalent experiments.
//!
//! The graph: one vertex per node of the normalised formulas of the
//! knowledge (φ0 ∧ history, fixed variables substituted, so fixed
//! variables are gone, as in the paper) and of the experiment's
//! instantiated outcomes, shared where the formulas share sub-formulas;
//! a vertex `K` with an edge to every conjunct of the knowledge, and one
//! vertex per outcome, coloured by whether it is final, with an edge to
//! its formula. Vertices are coloured by operator (variables all alike,
//! `&`, `|`, `!`, `<->`, each cardinality kind and bound its own colour);
//! edges go from an operator to its operands (a cardinality's repeated
//! operand is one edge labelled with its multiplicity).
//!
//! Why equal keys mean equivalent experiments: an isomorphism between the
//! graphs of e1 and e2 maps variables to variables (a permutation π of the
//! open variables), the knowledge's conjuncts onto themselves (π maps the
//! codes still possible onto themselves) and each outcome of e1 to an
//! outcome of e2 of the same finality with π mapping its formula onto the
//! other's. So π maps the part of every outcome of e1 onto the part of
//! one of e2: the parts have equal sizes and fixed-variable counts, the
//! same finality, and every one-step strategy ranks e1 and e2 alike.
//! (Outcome names may differ: a weighing's "lighter" may match the
//! mirrored weighing's "heavier". The games after the two are the same up
//! to π only if π also maps experiments to experiments, which this graph
//! does not check; phase 1's symmetries do.)

use std::collections::HashMap;

use canonical_form::Canonize;

use super::norm::{Node, NodeId};
use super::state::State;
use crate::game::knowledge::Instance;
use crate::game::spec::CardKind;

/// A labelled directed graph for [`Canonize`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Graph {
    colors: Vec<u64>,
    /// Operands, sorted: `(vertex, multiplicity)`.
    out: Vec<Vec<(usize, u32)>>,
    /// The vertices this one is an operand of, sorted.
    inn: Vec<Vec<usize>>,
}

/// A canonical graph: equal keys mean equivalent experiments.
pub type Key = Graph;

const K_ROOT: u64 = 1;
const OUTCOME: u64 = 2; // + final
const VAR: u64 = 10;
const CONST: u64 = 11; // + value
const NOT: u64 = 13;
const AND: u64 = 14;
const OR: u64 = 15;
const IFF: u64 = 16;
const CARD: u64 = 100; // + kind * 2^32 + k

impl Canonize for Graph {
    fn size(&self) -> usize {
        self.colors.len()
    }

    fn apply_morphism(&self, p: &[usize]) -> Graph {
        let n = self.colors.len();
        let mut colors = vec![0; n];
        let mut out = vec![Vec::new(); n];
        let mut inn = vec![Vec::new(); n];
        for u in 0..n {
            colors[p[u]] = self.colors[u];
            let mut o: Vec<(usize, u32)> = self.out[u].iter().map(|&(v, m)| (p[v], m)).collect();
            o.sort_unstable();
            out[p[u]] = o;
            let mut i: Vec<usize> = self.inn[u].iter().map(|&v| p[v]).collect();
            i.sort_unstable();
            inn[p[u]] = i;
        }
        Graph { colors, out, inn }
    }

    fn invariant_color(&self, u: usize) -> u64 {
        self.colors[u]
    }

    fn invariant_neighborhood(&self, u: usize) -> impl Iterator<Item = (usize, u64)> {
        let children = self.out[u].iter().map(|&(v, m)| (v, 2 + m as u64));
        let parents = self.inn[u].iter().map(|&v| (v, 1));
        children.chain(parents)
    }
}

fn color(n: &Node) -> u64 {
    match n {
        Node::Const(b) => CONST + *b as u64,
        Node::Var(_) => VAR,
        Node::Param { .. } => unreachable!("instantiated formulas have no parameters"),
        Node::Not(_) => NOT,
        Node::And(_) => AND,
        Node::Or(_) => OR,
        Node::Iff(_) => IFF,
        Node::Card { kind, k, .. } => {
            let kind = match kind {
                CardKind::AtLeast => 0,
                CardKind::AtMost => 1,
                CardKind::Exactly => 2,
            };
            CARD + (kind << 32) + *k as u64
        }
    }
}

impl State<'_, '_> {
    /// The outcome formulas of `exp` (normalised, fixed variables
    /// substituted), one per outcome of its type.
    pub fn outcomes(&mut self, exp: &Instance) -> Vec<NodeId> {
        let spec = self.red.spec;
        let fixed = &self.fixed;
        let mut memo = Vec::new();
        let roots = self.templates[exp.ty].clone();
        roots
            .into_iter()
            .map(|r| {
                self.arena.rename(r, &mut memo, &mut |a, n| match n {
                    Node::Var(v) => a.var(*v, fixed),
                    Node::Param { map, pos } => {
                        let sym = exp.params[*pos as usize] as usize;
                        a.var(spec.mappings[*map as usize].targets[sym].0, fixed)
                    }
                    _ => unreachable!("rename only asks for leaves"),
                })
            })
            .collect()
    }

    /// The phase 2 graph of `exp` (not yet canonical).
    pub fn graph(&mut self, exp: &Instance) -> Graph {
        let outcomes = self.outcomes(exp);
        let t = &self.red.spec.experiments[exp.ty];
        let mut roots = self.conjuncts.clone();
        roots.extend_from_slice(&outcomes);
        let nodes = self.arena.reachable(&roots);
        let index: HashMap<NodeId, usize> =
            nodes.iter().enumerate().map(|(i, &n)| (n, i)).collect();
        let base = nodes.len();
        let n = base + 1 + outcomes.len();
        let mut colors = vec![0; n];
        let mut out: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
        for (i, &id) in nodes.iter().enumerate() {
            colors[i] = color(self.arena.node(id));
            let mut edges: Vec<(usize, u32)> = Vec::new();
            for &c in self.arena.children(id) {
                let v = index[&c];
                match edges.iter_mut().find(|(w, _)| *w == v) {
                    Some((_, m)) => *m += 1,
                    None => edges.push((v, 1)),
                }
            }
            edges.sort_unstable();
            out[i] = edges;
        }
        colors[base] = K_ROOT;
        out[base] = self.conjuncts.iter().map(|c| (index[c], 1)).collect();
        out[base].sort_unstable();
        for (o, &r) in outcomes.iter().enumerate() {
            colors[base + 1 + o] = OUTCOME + t.is_final(o) as u64;
            out[base + 1 + o] = vec![(index[&r], 1)];
        }
        let mut inn = vec![Vec::new(); n];
        for (u, edges) in out.iter().enumerate() {
            for &(v, _) in edges {
                inn[v].push(u);
            }
        }
        Graph { colors, out, inn }
    }

    /// The canonical key of `exp`.
    pub fn key(&mut self, exp: &Instance) -> Key {
        self.graph(exp).canonical()
    }
}

/// Phase 2 over `candidates` (in table order): `keep[i]` is false when an
/// earlier candidate of the same `group` (experiments of different groups
/// are never compared; pass a necessary condition for equivalence, such
/// as the sorted part sizes, to save canonical forms) has an equal key.
/// `None` if more than `budget` candidates would need a canonical form.
pub fn phase2<G: std::hash::Hash + Eq>(
    state: &mut State,
    candidates: &[Instance],
    group: &[G],
    budget: usize,
) -> Option<Vec<bool>> {
    let mut sizes: HashMap<&G, usize> = HashMap::new();
    for g in group {
        *sizes.entry(g).or_default() += 1;
    }
    let work: usize = sizes.values().filter(|&&n| n > 1).sum();
    if work > budget {
        return None;
    }
    let mut seen: HashMap<(&G, Key), usize> = HashMap::new();
    let mut keep = vec![true; candidates.len()];
    for (i, exp) in candidates.iter().enumerate() {
        if sizes[&group[i]] < 2 {
            continue;
        }
        let key = state.key(exp);
        if seen.insert((&group[i], key), i).is_some() {
            keep[i] = false;
        }
    }
    Some(keep)
}
