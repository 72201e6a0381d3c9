//! CNF encoding of spec formulas into an incremental SAT solver (rustsat
//! with BatSat): Tseitin gates with structural hashing, and totalizers for
//! `AtLeast`/`AtMost`/`Exactly`.
//!
//! Input: [`Formula`]s, with a callback that gives the literal of each
//! variable or mapped parameter. Output: a literal equivalent to the
//! formula; clauses go straight into the solver.
//!
//! Invariants: every gate is encoded in both directions (the literal is
//! *equivalent* to the sub-formula, so it may be used negated or under
//! assumptions); a totalizer's output `j` (0-based) is true iff at least
//! `j + 1` of its inputs are true; constants are folded (variable 0 is the
//! constant true), so a formula over known values costs no clauses;
//! identical gates and counters are built once.

use std::cell::Cell;
use std::collections::HashMap;
use std::time::Instant;

use rustsat::solvers::{Solve, SolveIncremental, SolverResult};
use rustsat::types::{Lit, TernaryVal};
use thiserror::Error;

use super::spec::{CardKind, Formula};

/// The SAT solver gave no answer (not "unsatisfiable").
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SatError {
    #[error("the SAT solver reached its time limit")]
    TimeLimit,
    #[error("SAT solver: {0}")]
    Failed(String),
}

fn sat_err(e: impl std::fmt::Display) -> SatError {
    SatError::Failed(e.to_string())
}

/// BatSat callbacks that stop the search at a deadline (looking at the
/// clock only every 1024 checks: BatSat asks at every decision).
#[derive(Default)]
pub struct Deadline {
    at: Option<Instant>,
    calls: Cell<u32>,
}

impl batsat::Callbacks for Deadline {
    fn stop(&self) -> bool {
        let Some(at) = self.at else {
            return false;
        };
        let n = self.calls.get().wrapping_add(1);
        self.calls.set(n);
        n.is_multiple_of(1024) && Instant::now() >= at
    }
}

type Solver = rustsat_batsat::Solver<Deadline>;

#[derive(Clone, PartialEq, Eq, Hash)]
enum Gate {
    And(Vec<Lit>),
    Iff(Lit, Lit),
}

/// A solver plus the encoding caches.
pub struct Encoder {
    solver: Solver,
    n_vars: u32,
    truth: Lit,
    gates: HashMap<Gate, Lit>,
    counters: HashMap<Vec<Lit>, Vec<Lit>>,
    /// Every clause, kept for model counting ([`Encoder::count`]).
    clauses: Vec<Vec<Lit>>,
    /// `defs[v]`: the clauses defining gate or counter variable `v`.
    defs: Vec<Vec<u32>>,
    /// The clauses added through [`Encoder::add`] (assertions).
    asserted: Vec<u32>,
}

impl Default for Encoder {
    fn default() -> Self {
        Encoder::new()
    }
}

impl Encoder {
    pub fn new() -> Encoder {
        let mut enc = Encoder {
            solver: Solver::default(),
            n_vars: 0,
            truth: Lit::positive(0),
            gates: HashMap::new(),
            counters: HashMap::new(),
            clauses: Vec::new(),
            defs: Vec::new(),
            asserted: Vec::new(),
        };
        enc.truth = enc.fresh();
        enc.add(&[enc.truth]);
        enc
    }

    /// A new variable's positive literal.
    pub fn fresh(&mut self) -> Lit {
        let l = Lit::positive(self.n_vars);
        self.n_vars += 1;
        l
    }

    pub fn constant(&self, b: bool) -> Lit {
        if b {
            self.truth
        } else {
            !self.truth
        }
    }

    /// `Some(b)` if `l` is the constant `b`.
    pub fn known(&self, l: Lit) -> Option<bool> {
        if l == self.truth {
            Some(true)
        } else if l == !self.truth {
            Some(false)
        } else {
            None
        }
    }

    /// Adds a clause (the solver never fails on this).
    pub fn add(&mut self, clause: &[Lit]) {
        self.asserted.push(self.clauses.len() as u32);
        self.push_clause(clause);
    }

    /// Adds a clause of the definition of `owner` (a gate or counter
    /// output): counting follows definitions from the assertions down.
    fn define(&mut self, owner: Lit, clause: &[Lit]) {
        let v = owner.var().idx();
        if self.defs.len() <= v {
            self.defs.resize(v + 1, Vec::new());
        }
        self.defs[v].push(self.clauses.len() as u32);
        self.push_clause(clause);
    }

    fn push_clause(&mut self, clause: &[Lit]) {
        self.clauses.push(clause.to_vec());
        // BatSat's add_clause cannot fail; rustsat's signature allows it.
        let _ = self.solver.add_clause_ref(clause);
    }

    /// Solves under assumptions: `Ok(true)` if satisfiable.
    pub fn solve(&mut self, assumptions: &[Lit]) -> Result<bool, SatError> {
        match self.solver.solve_assumps(assumptions).map_err(sat_err)? {
            SolverResult::Sat => Ok(true),
            SolverResult::Unsat => Ok(false),
            SolverResult::Interrupted => Err(SatError::TimeLimit),
        }
    }

    /// Makes every later `solve` give up at `at` (`None`: never).
    pub fn set_deadline(&mut self, at: Option<Instant>) {
        self.solver.batsat_mut().cb_mut().at = at;
    }

    /// The value of `l` in the last model (read through the positive
    /// literal, see DESIGN.md).
    pub fn value(&self, l: Lit) -> Result<bool, SatError> {
        let v = self.solver.lit_val(l.var().pos_lit()).map_err(sat_err)?;
        Ok((v == TernaryVal::True) != l.is_neg())
    }

    /// A literal equivalent to the conjunction of `lits`.
    pub fn and(&mut self, lits: &[Lit]) -> Lit {
        let mut xs: Vec<Lit> = Vec::with_capacity(lits.len());
        for &l in lits {
            match self.known(l) {
                Some(true) => {}
                Some(false) => return self.constant(false),
                None => xs.push(l),
            }
        }
        xs.sort();
        xs.dedup();
        if xs.windows(2).any(|w| w[0] == !w[1]) {
            return self.constant(false);
        }
        match xs.len() {
            0 => return self.constant(true),
            1 => return xs[0],
            _ => {}
        }
        let key = Gate::And(xs);
        if let Some(&g) = self.gates.get(&key) {
            return g;
        }
        let g = self.fresh();
        let Gate::And(xs) = &key else { unreachable!() };
        let mut long: Vec<Lit> = xs.iter().map(|&l| !l).collect();
        long.push(g);
        for &l in xs {
            self.define(g, &[!g, l]);
        }
        self.define(g, &long);
        self.gates.insert(key, g);
        g
    }

    /// A literal equivalent to the disjunction of `lits`.
    pub fn or(&mut self, lits: &[Lit]) -> Lit {
        let neg: Vec<Lit> = lits.iter().map(|&l| !l).collect();
        !self.and(&neg)
    }

    /// A literal equivalent to `a <-> b`.
    pub fn iff(&mut self, a: Lit, b: Lit) -> Lit {
        match (self.known(a), self.known(b)) {
            (Some(x), _) => return if x { b } else { !b },
            (_, Some(y)) => return if y { a } else { !a },
            _ => {}
        }
        if a == b {
            return self.constant(true);
        }
        if a == !b {
            return self.constant(false);
        }
        let key = Gate::Iff(a.min(b), a.max(b));
        if let Some(&g) = self.gates.get(&key) {
            return g;
        }
        let g = self.fresh();
        self.define(g, &[!g, !a, b]);
        self.define(g, &[!g, a, !b]);
        self.define(g, &[g, a, b]);
        self.define(g, &[g, !a, !b]);
        self.gates.insert(key, g);
        g
    }

    /// Unary count of `lits` (sorted): output `j` is true iff at least
    /// `j + 1` inputs are true.
    fn totalizer(&mut self, lits: &[Lit]) -> Vec<Lit> {
        if lits.len() == 1 {
            return vec![lits[0]];
        }
        if let Some(out) = self.counters.get(lits) {
            return out.clone();
        }
        let (left, right) = lits.split_at(lits.len() / 2);
        let a = self.totalizer(left);
        let b = self.totalizer(right);
        let n = a.len() + b.len();
        let r: Vec<Lit> = (0..n).map(|_| self.fresh()).collect();
        for i in 0..=a.len() {
            for j in 0..=b.len() {
                // Up: a ≥ i and b ≥ j imply r ≥ i + j.
                if i + j > 0 {
                    let mut c = vec![r[i + j - 1]];
                    if i > 0 {
                        c.push(!a[i - 1]);
                    }
                    if j > 0 {
                        c.push(!b[j - 1]);
                    }
                    self.define(r[i + j - 1], &c);
                }
                // Down: a < i + 1 and b < j + 1 imply r < i + j + 1.
                if i + j < n {
                    let mut c = vec![!r[i + j]];
                    if i < a.len() {
                        c.push(a[i]);
                    }
                    if j < b.len() {
                        c.push(b[j]);
                    }
                    self.define(r[i + j], &c);
                }
            }
        }
        self.counters.insert(lits.to_vec(), r.clone());
        r
    }

    /// `[count of true lits ≥ k]`, constants folded.
    fn at_least(&mut self, known_true: usize, rest: &[Lit], k: usize) -> Lit {
        if k <= known_true {
            return self.constant(true);
        }
        let k = k - known_true;
        if k > rest.len() {
            return self.constant(false);
        }
        if k == 1 {
            return self.or(rest);
        }
        if k == rest.len() {
            return self.and(rest);
        }
        self.totalizer(rest)[k - 1]
    }

    /// A literal equivalent to the cardinality constraint.
    pub fn card(&mut self, kind: CardKind, k: u32, lits: &[Lit]) -> Lit {
        let mut rest: Vec<Lit> = Vec::with_capacity(lits.len());
        let mut known_true = 0;
        for &l in lits {
            match self.known(l) {
                Some(true) => known_true += 1,
                Some(false) => {}
                None => rest.push(l),
            }
        }
        rest.sort();
        let k = k as usize;
        let at_most = |enc: &mut Encoder| !enc.at_least(known_true, &rest, k + 1);
        match kind {
            CardKind::AtLeast => self.at_least(known_true, &rest, k),
            CardKind::AtMost => at_most(self),
            CardKind::Exactly => {
                let lo = self.at_least(known_true, &rest, k);
                let hi = at_most(self);
                self.and(&[lo, hi])
            }
        }
    }

    /// A literal equivalent to `f`; `leaf` gives the literal of every
    /// `Var` and `Map` node.
    pub fn encode(
        &mut self,
        f: &Formula,
        leaf: &mut dyn FnMut(&mut Encoder, &Formula) -> Lit,
    ) -> Lit {
        match f {
            Formula::Const(b) => self.constant(*b),
            Formula::Var(_) | Formula::Map { .. } => leaf(self, f),
            Formula::Not(a) => !self.encode(a, leaf),
            Formula::And(xs) => {
                let lits: Vec<Lit> = xs.iter().map(|x| self.encode(x, leaf)).collect();
                self.and(&lits)
            }
            Formula::Or(xs) => {
                let lits: Vec<Lit> = xs.iter().map(|x| self.encode(x, leaf)).collect();
                self.or(&lits)
            }
            Formula::Implies(a, b) => {
                let a = self.encode(a, leaf);
                let b = self.encode(b, leaf);
                self.or(&[!a, b])
            }
            Formula::Iff(a, b) => {
                let a = self.encode(a, leaf);
                let b = self.encode(b, leaf);
                self.iff(a, b)
            }
            Formula::Card { kind, k, args } => {
                let lits: Vec<Lit> = args.iter().map(|x| self.encode(x, leaf)).collect();
                self.card(*kind, *k, &lits)
            }
        }
    }
}

/// Counts of components already counted (see [`Encoder::count`]). A
/// component is a set of clauses over encoder variables, whose meaning
/// never changes, so one memo serves every count of one encoder.
#[derive(Default)]
pub struct CountMemo {
    map: HashMap<Vec<u32>, u128>,
    /// Literals stored in the keys; the memo is emptied past
    /// [`CountMemo::LIMIT`].
    size: usize,
}

impl CountMemo {
    const LIMIT: usize = 1 << 25;

    fn insert(&mut self, key: Vec<u32>, n: u128) {
        self.size += key.len();
        if self.size > Self::LIMIT {
            self.map.clear();
            self.size = key.len();
        }
        self.map.insert(key, n);
    }
}

/// A literal as `2 × variable + negated`.
fn code(l: Lit) -> u32 {
    (l.var().idx32() << 1) | u32::from(l.is_neg())
}

/// The exact model counter: DPLL with unit propagation, decomposition
/// into independent components, and a memo of component counts (the
/// scheme of sharpSAT, without its engineering).
struct Sharp<'m> {
    /// Per variable: 0 unassigned, 1 true, -1 false.
    val: Vec<i8>,
    memo: &'m mut CountMemo,
}

fn pow2(k: usize) -> u128 {
    if k >= 127 {
        u128::MAX
    } else {
        1u128 << k
    }
}

impl Sharp<'_> {
    fn value(&self, l: u32) -> i8 {
        let v = self.val[(l >> 1) as usize];
        if l & 1 == 1 {
            -v
        } else {
            v
        }
    }

    fn set(&mut self, l: u32, trail: &mut Vec<u32>) {
        self.val[(l >> 1) as usize] = if l & 1 == 1 { -1 } else { 1 };
        trail.push(l);
    }

    /// `clauses` under `units` after unit propagation: the clauses left
    /// (false literals removed) and how many variables were assigned, or
    /// `None` on a conflict. Leaves no assignment behind.
    fn propagate(&mut self, clauses: &[Vec<u32>], units: &[u32]) -> Option<(Vec<Vec<u32>>, usize)> {
        let mut trail = Vec::new();
        let mut ok = true;
        for &u in units {
            match self.value(u) {
                1 => {}
                -1 => ok = false,
                _ => self.set(u, &mut trail),
            }
        }
        let mut changed = ok;
        while changed && ok {
            changed = false;
            for c in clauses {
                let (mut open, mut last, mut sat) = (0, 0, false);
                for &l in c {
                    match self.value(l) {
                        1 => {
                            sat = true;
                            break;
                        }
                        0 => {
                            open += 1;
                            last = l;
                        }
                        _ => {}
                    }
                }
                if sat {
                    continue;
                }
                if open == 0 {
                    ok = false;
                    break;
                }
                if open == 1 {
                    self.set(last, &mut trail);
                    changed = true;
                }
            }
        }
        let out = ok.then(|| {
            let rest = clauses
                .iter()
                .filter(|c| c.iter().all(|&l| self.value(l) != 1))
                .map(|c| c.iter().copied().filter(|&l| self.value(l) == 0).collect())
                .collect();
            (rest, trail.len())
        });
        for l in trail {
            self.val[(l >> 1) as usize] = 0;
        }
        out
    }

    /// Distinct variables of `clauses`.
    fn vars(clauses: &[Vec<u32>]) -> Vec<u32> {
        let mut vs: Vec<u32> = clauses.iter().flatten().map(|&l| l >> 1).collect();
        vs.sort_unstable();
        vs.dedup();
        vs
    }

    /// Models of `clauses` over their variables, component by component.
    fn product(&mut self, clauses: Vec<Vec<u32>>) -> u128 {
        if clauses.is_empty() {
            return 1;
        }
        let vars = Self::vars(&clauses);
        let index = |v: u32| vars.binary_search(&v).expect("a variable of the clauses");
        let mut parent: Vec<usize> = (0..vars.len()).collect();
        fn root(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                p[x] = p[p[x]];
                x = p[x];
            }
            x
        }
        for c in &clauses {
            let a = root(&mut parent, index(c[0] >> 1));
            for &l in &c[1..] {
                let b = root(&mut parent, index(l >> 1));
                parent[b] = a;
            }
        }
        let mut groups: HashMap<usize, Vec<Vec<u32>>> = HashMap::new();
        for c in clauses {
            let r = root(&mut parent, index(c[0] >> 1));
            groups.entry(r).or_default().push(c);
        }
        let mut comps: Vec<Vec<Vec<u32>>> = groups.into_values().collect();
        comps.sort_by_key(|c| c.len());
        let mut n = 1u128;
        for mut comp in comps {
            comp.sort_unstable();
            n = n.saturating_mul(self.component(comp));
            if n == 0 {
                break;
            }
        }
        n
    }

    /// Models of one connected, non-empty component over its variables.
    fn component(&mut self, clauses: Vec<Vec<u32>>) -> u128 {
        let mut key = Vec::with_capacity(clauses.iter().map(|c| c.len() + 1).sum());
        for c in &clauses {
            key.extend_from_slice(c);
            key.push(u32::MAX);
        }
        if let Some(&n) = self.memo.map.get(&key) {
            return n;
        }
        let vars = Self::vars(&clauses);
        // Branch on the first variable: the spec's variables come first,
        // in declaration order, so gate and counter outputs follow by
        // propagation and equal partial counts meet in the memo.
        let v = vars[0];
        let mut total = 0u128;
        for l in [v << 1, (v << 1) | 1] {
            if let Some((rest, assigned)) = self.propagate(&clauses, &[l]) {
                let left = Self::vars(&rest).len();
                let free = vars.len() - assigned - left;
                total = total.saturating_add(pow2(free).saturating_mul(self.product(rest)));
            }
        }
        self.memo.insert(key, total);
        total
    }
}

impl Encoder {
    /// The number of models of the assertions and `assumptions`, counted
    /// exactly (#SAT) over the variables they depend on: the assertions'
    /// variables and, transitively, the inputs of every gate and counter
    /// among them (the *cone*). Gates and counters are equivalences, so
    /// their outputs never add models: the count is the number of
    /// assignments to the cone's input variables. Each literal of `free`
    /// whose variable is outside the cone doubles the count (a spec
    /// variable nothing mentions). Saturates at `u128::MAX`.
    pub fn count(&self, assumptions: &[Lit], free: &[Lit], memo: &mut CountMemo) -> u128 {
        let n = self.n_vars as usize;
        let mut in_cone = vec![false; n];
        let mut taken = vec![false; self.clauses.len()];
        let mut cone: Vec<Vec<u32>> = Vec::new();
        let mut work: Vec<usize> = Vec::new();
        let mut take = |i: usize, work: &mut Vec<usize>, in_cone: &mut Vec<bool>| {
            if std::mem::replace(&mut taken[i], true) {
                return;
            }
            let mut c: Vec<u32> = self.clauses[i].iter().map(|&l| code(l)).collect();
            c.sort_unstable();
            c.dedup();
            for &l in &c {
                let v = (l >> 1) as usize;
                if !std::mem::replace(&mut in_cone[v], true) {
                    work.push(v);
                }
            }
            cone.push(c);
        };
        for &i in &self.asserted {
            take(i as usize, &mut work, &mut in_cone);
        }
        for &l in assumptions {
            let v = l.var().idx();
            if !std::mem::replace(&mut in_cone[v], true) {
                work.push(v);
            }
        }
        while let Some(v) = work.pop() {
            if let Some(defs) = self.defs.get(v) {
                for &i in defs {
                    take(i as usize, &mut work, &mut in_cone);
                }
            }
        }
        let outside = free.iter().filter(|l| !in_cone[l.var().idx()]).count();
        let cone_vars = in_cone.iter().filter(|&&b| b).count();
        let mut sharp = Sharp {
            val: vec![0; n],
            memo,
        };
        let units: Vec<u32> = assumptions.iter().map(|&l| code(l)).collect();
        let Some((rest, assigned)) = sharp.propagate(&cone, &units) else {
            return 0;
        };
        let left = Sharp::vars(&rest).len();
        let free_in_cone = cone_vars - assigned - left;
        pow2(outside + free_in_cone).saturating_mul(sharp.product(rest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts the models of `root` over `inputs` by brute force through
    /// the solver, and compares with `expected` on every assignment.
    fn check(enc: &mut Encoder, inputs: &[Lit], root: Lit, expected: impl Fn(&[bool]) -> bool) {
        for mask in 0..1u32 << inputs.len() {
            let bits: Vec<bool> = (0..inputs.len()).map(|i| mask >> i & 1 == 1).collect();
            let mut assumps: Vec<Lit> = inputs
                .iter()
                .zip(&bits)
                .map(|(&l, &b)| if b { l } else { !l })
                .collect();
            assumps.push(root);
            let sat = enc.solve(&assumps).unwrap();
            assert_eq!(sat, expected(&bits), "{bits:?}");
        }
    }

    #[test]
    fn cardinality_literals_are_equivalences() {
        for n in 1..6usize {
            for k in 0..=n as u32 + 1 {
                for kind in [CardKind::AtLeast, CardKind::AtMost, CardKind::Exactly] {
                    let mut enc = Encoder::new();
                    let xs: Vec<Lit> = (0..n).map(|_| enc.fresh()).collect();
                    let c = enc.card(kind, k, &xs);
                    let count = |b: &[bool]| b.iter().filter(|&&x| x).count() as u32;
                    check(&mut enc, &xs, c, |b| kind.holds(count(b), k));
                    check(&mut enc, &xs, !c, |b| !kind.holds(count(b), k));
                }
            }
        }
    }

    #[test]
    fn gates_fold_constants_and_share() {
        let mut enc = Encoder::new();
        let a = enc.fresh();
        let b = enc.fresh();
        let t = enc.constant(true);
        assert_eq!(enc.and(&[a, t]), a);
        assert_eq!(enc.and(&[a, !a]), enc.constant(false));
        let g = enc.and(&[a, b]);
        assert_eq!(enc.and(&[b, a]), g);
        let i = enc.iff(a, b);
        check(&mut enc, &[a, b], i, |v| v[0] == v[1]);
        check(&mut enc, &[a, b], !i, |v| v[0] != v[1]);
        let card = enc.card(CardKind::Exactly, 1, &[t, a]);
        assert_eq!(card, !a);
    }
}
