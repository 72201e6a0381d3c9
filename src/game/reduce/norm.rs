//! Normalised formulas in a hash-consed arena: the common currency of the
//! symmetry checks (phase 1), the deduplication of experiments and the
//! graphs of phase 2.
//!
//! Input: spec [`Formula`]s, with a callback for their leaves (a variable,
//! possibly fixed to a constant, or a template parameter `M$i`). Output:
//! [`NodeId`]s into one [`Arena`].
//!
//! Invariants: nodes are built only through the smart constructors, which
//! fold constants, flatten nested `&`/`|`, sort the children of every
//! commutative operator (`&`, `|`, `<->`, cardinalities) by id and remove
//! duplicates where that keeps the meaning (`&`, `|`). Two formulas built in
//! the same arena that are equal up to these rewritings get the same id, so
//! "renaming the variables of `f` gives `f` back" is an id comparison. A
//! node's children always have smaller ids than the node (children are
//! built first), so id order is a topological order.

use std::collections::HashMap;

use crate::game::spec::{CardKind, Formula};

/// Index of a node in its [`Arena`] (0-based; 0 is false, 1 is true).
pub type NodeId = u32;

/// The constant false.
pub const FALSE: NodeId = 0;
/// The constant true.
pub const TRUE: NodeId = 1;

/// A normalised node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Const(bool),
    /// A spec variable (0-based index), never a fixed one.
    Var(u32),
    /// A template leaf `M$i`: mapping `map`, parameter `pos` (0-based).
    Param {
        map: u32,
        pos: u32,
    },
    Not(NodeId),
    /// At least two children, sorted, distinct.
    And(Vec<NodeId>),
    Or(Vec<NodeId>),
    /// Sorted pair of distinct non-constant children.
    Iff([NodeId; 2]),
    /// A cardinality over a sorted multiset of non-constant children with
    /// `0 < k < args.len()` (other bounds fold to `&`, `|`, constants).
    Card {
        kind: CardKind,
        k: u32,
        args: Vec<NodeId>,
    },
}

/// The arena of normalised nodes.
#[derive(Clone, Debug)]
pub struct Arena {
    nodes: Vec<Node>,
    index: HashMap<Node, NodeId>,
}

impl Default for Arena {
    fn default() -> Self {
        Arena::new()
    }
}

impl Arena {
    pub fn new() -> Arena {
        let mut a = Arena {
            nodes: Vec::new(),
            index: HashMap::new(),
        };
        a.intern(Node::Const(false));
        a.intern(Node::Const(true));
        a
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    fn intern(&mut self, n: Node) -> NodeId {
        if let Some(&id) = self.index.get(&n) {
            return id;
        }
        let id = self.nodes.len() as NodeId;
        self.nodes.push(n.clone());
        self.index.insert(n, id);
        id
    }

    pub fn constant(&mut self, b: bool) -> NodeId {
        if b {
            TRUE
        } else {
            FALSE
        }
    }

    /// Variable `v`, or its value if `fixed` knows it.
    pub fn var(&mut self, v: u32, fixed: &[Option<bool>]) -> NodeId {
        match fixed.get(v as usize).copied().flatten() {
            Some(b) => self.constant(b),
            None => self.intern(Node::Var(v)),
        }
    }

    pub fn param(&mut self, map: u32, pos: u32) -> NodeId {
        self.intern(Node::Param { map, pos })
    }

    pub fn not(&mut self, a: NodeId) -> NodeId {
        match self.node(a) {
            Node::Const(b) => {
                let b = !*b;
                self.constant(b)
            }
            Node::Not(x) => *x,
            _ => self.intern(Node::Not(a)),
        }
    }

    /// `&` (`is_and`) or `|` of `xs`.
    fn junction(&mut self, is_and: bool, xs: Vec<NodeId>) -> NodeId {
        let (unit, zero) = if is_and { (TRUE, FALSE) } else { (FALSE, TRUE) };
        let mut flat = Vec::with_capacity(xs.len());
        for x in xs {
            if x == unit {
                continue;
            }
            if x == zero {
                return zero;
            }
            match self.node(x) {
                Node::And(ys) if is_and => flat.extend_from_slice(ys),
                Node::Or(ys) if !is_and => flat.extend_from_slice(ys),
                _ => flat.push(x),
            }
        }
        flat.sort_unstable();
        flat.dedup();
        // x and !x together decide the junction.
        for &x in &flat {
            if let Node::Not(y) = self.node(x) {
                if flat.binary_search(y).is_ok() {
                    return zero;
                }
            }
        }
        match flat.len() {
            0 => unit,
            1 => flat[0],
            _ if is_and => self.intern(Node::And(flat)),
            _ => self.intern(Node::Or(flat)),
        }
    }

    pub fn and(&mut self, xs: Vec<NodeId>) -> NodeId {
        self.junction(true, xs)
    }

    pub fn or(&mut self, xs: Vec<NodeId>) -> NodeId {
        self.junction(false, xs)
    }

    pub fn iff(&mut self, a: NodeId, b: NodeId) -> NodeId {
        if a == b {
            return TRUE;
        }
        match (a, b) {
            (TRUE, x) | (x, TRUE) => return x,
            (FALSE, x) | (x, FALSE) => return self.not(x),
            _ => {}
        }
        if self.not(a) == b {
            return FALSE;
        }
        let (a, b) = (a.min(b), a.max(b));
        self.intern(Node::Iff([a, b]))
    }

    /// A cardinality constraint, folded to `&`/`|`/constants when its
    /// bound leaves no choice.
    pub fn card(&mut self, kind: CardKind, k: u32, args: Vec<NodeId>) -> NodeId {
        let mut trues = 0i64;
        let mut rest = Vec::with_capacity(args.len());
        for a in args {
            match a {
                TRUE => trues += 1,
                FALSE => {}
                _ => rest.push(a),
            }
        }
        let n = rest.len() as i64;
        let k = k as i64 - trues;
        let (lo, hi) = match kind {
            CardKind::AtLeast => (k, n),
            CardKind::AtMost => (0, k),
            CardKind::Exactly => (k, k),
        };
        let (lo, hi) = (lo.max(0), hi.min(n));
        if lo > hi {
            return FALSE;
        }
        if lo == 0 && hi == n {
            return TRUE;
        }
        rest.sort_unstable();
        if hi == n {
            return match lo {
                1 => self.or(rest),
                _ if lo == n => self.and(rest),
                _ => self.intern(Node::Card {
                    kind: CardKind::AtLeast,
                    k: lo as u32,
                    args: rest,
                }),
            };
        }
        if lo == 0 {
            if hi == 0 {
                let nots = rest.iter().map(|&x| self.not(x)).collect();
                return self.and(nots);
            }
            if hi == n - 1 {
                let nots = rest.iter().map(|&x| self.not(x)).collect();
                return self.or(nots);
            }
            return self.intern(Node::Card {
                kind: CardKind::AtMost,
                k: hi as u32,
                args: rest,
            });
        }
        if lo == hi {
            return self.intern(Node::Card {
                kind: CardKind::Exactly,
                k: lo as u32,
                args: rest,
            });
        }
        let at_least = self.intern(Node::Card {
            kind: CardKind::AtLeast,
            k: lo as u32,
            args: rest.clone(),
        });
        let at_most = self.card(CardKind::AtMost, hi as u32, rest);
        self.and(vec![at_least, at_most])
    }

    /// Builds `f`; `leaf` gives the node of every `Var` and `Map` leaf.
    pub fn build(
        &mut self,
        f: &Formula,
        leaf: &mut dyn FnMut(&mut Arena, &Formula) -> NodeId,
    ) -> NodeId {
        match f {
            Formula::Const(b) => self.constant(*b),
            Formula::Var(_) | Formula::Map { .. } => leaf(self, f),
            Formula::Not(a) => {
                let a = self.build(a, leaf);
                self.not(a)
            }
            Formula::And(xs) => {
                let xs = xs.iter().map(|x| self.build(x, leaf)).collect();
                self.and(xs)
            }
            Formula::Or(xs) => {
                let xs = xs.iter().map(|x| self.build(x, leaf)).collect();
                self.or(xs)
            }
            Formula::Implies(a, b) => {
                let a = self.build(a, leaf);
                let na = self.not(a);
                let b = self.build(b, leaf);
                self.or(vec![na, b])
            }
            Formula::Iff(a, b) => {
                let a = self.build(a, leaf);
                let b = self.build(b, leaf);
                self.iff(a, b)
            }
            Formula::Card { kind, k, args } => {
                let args = args.iter().map(|x| self.build(x, leaf)).collect();
                self.card(*kind, *k, args)
            }
        }
    }

    /// Rebuilds `root` with every leaf (`Var`, `Param`) replaced by
    /// `leaf(arena, node)`; constants and operators are rebuilt through the
    /// smart constructors. `memo` (indexed by node id, `u32::MAX` = not
    /// done) may be shared between calls with the same `leaf`.
    pub fn rename(
        &mut self,
        root: NodeId,
        memo: &mut Vec<NodeId>,
        leaf: &mut dyn FnMut(&mut Arena, &Node) -> NodeId,
    ) -> NodeId {
        if memo.len() <= root as usize {
            memo.resize(root as usize + 1, u32::MAX);
        }
        if memo[root as usize] != u32::MAX {
            return memo[root as usize];
        }
        let node = self.node(root).clone();
        let out = match node {
            Node::Const(_) => root,
            Node::Var(_) | Node::Param { .. } => leaf(self, &node),
            Node::Not(a) => {
                let a = self.rename(a, memo, leaf);
                self.not(a)
            }
            Node::And(xs) => {
                let xs = xs.iter().map(|&x| self.rename(x, memo, leaf)).collect();
                self.and(xs)
            }
            Node::Or(xs) => {
                let xs = xs.iter().map(|&x| self.rename(x, memo, leaf)).collect();
                self.or(xs)
            }
            Node::Iff([a, b]) => {
                let a = self.rename(a, memo, leaf);
                let b = self.rename(b, memo, leaf);
                self.iff(a, b)
            }
            Node::Card { kind, k, args } => {
                let args = args.iter().map(|&x| self.rename(x, memo, leaf)).collect();
                self.card(kind, k, args)
            }
        };
        memo[root as usize] = out;
        out
    }

    /// The children of a node, in order.
    pub fn children(&self, id: NodeId) -> &[NodeId] {
        match self.node(id) {
            Node::Not(a) => std::slice::from_ref(a),
            Node::Iff(ab) => ab,
            Node::And(xs) | Node::Or(xs) | Node::Card { args: xs, .. } => xs,
            _ => &[],
        }
    }

    /// Every node reachable from `roots`, in increasing id order (a
    /// topological order: children first).
    pub fn reachable(&self, roots: &[NodeId]) -> Vec<NodeId> {
        let mut seen = std::collections::HashSet::new();
        let mut stack: Vec<NodeId> = roots.to_vec();
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            stack.extend_from_slice(self.children(id));
        }
        let mut out: Vec<NodeId> = seen.into_iter().collect();
        out.sort_unstable();
        out
    }

    /// The variables under `root`, sorted.
    pub fn support(&self, root: NodeId) -> Vec<u32> {
        let mut vars: Vec<u32> = self
            .reachable(&[root])
            .into_iter()
            .filter_map(|id| match self.node(id) {
                Node::Var(v) => Some(*v),
                _ => None,
            })
            .collect();
        vars.sort_unstable();
        vars
    }

    /// Evaluates `root` on a valuation (`code[v]`); parameters are bound by
    /// `param(map, pos)`.
    pub fn eval(&self, root: NodeId, code: &[bool], param: &dyn Fn(u32, u32) -> bool) -> bool {
        let rec = |x: &NodeId| self.eval(*x, code, param);
        match self.node(root) {
            Node::Const(b) => *b,
            Node::Var(v) => code[*v as usize],
            Node::Param { map, pos } => param(*map, *pos),
            Node::Not(a) => !rec(a),
            Node::And(xs) => xs.iter().all(rec),
            Node::Or(xs) => xs.iter().any(rec),
            Node::Iff([a, b]) => rec(a) == rec(b),
            Node::Card { kind, k, args } => {
                kind.holds(args.iter().filter(|x| rec(x)).count() as u32, *k)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::spec::{Formula, VarIdx};
    use proptest::prelude::*;

    fn v(i: u32) -> Formula {
        Formula::Var(VarIdx(i))
    }

    fn build(a: &mut Arena, f: &Formula, fixed: &[Option<bool>]) -> NodeId {
        a.build(f, &mut |a, leaf| match leaf {
            Formula::Var(x) => a.var(x.0, fixed),
            _ => unreachable!(),
        })
    }

    #[test]
    fn commutative_operators_share_ids() {
        let mut a = Arena::new();
        let f = Formula::Or(vec![
            Formula::And(vec![v(0), Formula::negate(v(2))]),
            Formula::And(vec![v(1), v(2)]),
        ]);
        let g = Formula::Or(vec![
            Formula::And(vec![v(2), v(1)]),
            Formula::And(vec![Formula::negate(v(2)), v(0)]),
        ]);
        assert_eq!(build(&mut a, &f, &[]), build(&mut a, &g, &[]));
        // Renaming 0 <-> 1 gives another formula.
        let id = build(&mut a, &f, &[]);
        let mut memo = Vec::new();
        let swapped = a.rename(id, &mut memo, &mut |a, n| match n {
            Node::Var(x) => a.var([1, 0, 2][*x as usize], &[]),
            _ => unreachable!(),
        });
        assert_ne!(swapped, id);
    }

    #[test]
    fn fixed_variables_fold_cardinalities() {
        let mut a = Arena::new();
        let f = Formula::card(CardKind::Exactly, 1, vec![v(0), v(1), v(2), v(3)]);
        let fixed = [Some(false), Some(false), Some(false), None];
        assert_eq!(build(&mut a, &f, &fixed), a.var(3, &[]));
        let fixed = [Some(true), None, None, None];
        let none = build(&mut a, &f, &fixed);
        assert!(matches!(a.node(none), Node::And(xs) if xs.len() == 3));
    }

    fn formula() -> impl Strategy<Value = Formula> {
        let leaf = prop_oneof![
            (0u32..4).prop_map(v),
            any::<bool>().prop_map(Formula::Const)
        ];
        leaf.prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                inner.clone().prop_map(Formula::negate),
                prop::collection::vec(inner.clone(), 0..4).prop_map(Formula::And),
                prop::collection::vec(inner.clone(), 0..4).prop_map(Formula::Or),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Formula::implies(a, b)),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Formula::iff(a, b)),
                (
                    prop_oneof![
                        Just(CardKind::AtLeast),
                        Just(CardKind::AtMost),
                        Just(CardKind::Exactly)
                    ],
                    0u32..5,
                    prop::collection::vec(inner, 0..5)
                )
                    .prop_map(|(kind, k, args)| Formula::card(kind, k, args)),
            ]
        })
    }

    proptest! {
        /// Normalisation keeps the meaning, with and without fixed values.
        #[test]
        fn normalisation_keeps_the_meaning(f in formula(), fix in prop::collection::vec(prop::option::of(any::<bool>()), 4)) {
            let spec = crate::game::spec::Spec::default();
            let mut a = Arena::new();
            let id = build(&mut a, &f, &fix);
            for mask in 0..16u32 {
                let code: Vec<bool> = (0..4).map(|i| mask >> i & 1 == 1).collect();
                if fix.iter().zip(&code).any(|(f, &c)| f.is_some_and(|b| b != c)) {
                    continue;
                }
                prop_assert_eq!(a.eval(id, &code, &|_, _| false), f.eval(&spec, &[], &code));
            }
        }
    }
}
