//! Abstract evaluation: what an expression of the compiled [`Program`]
//! may evaluate to in the current value sets of [`Domains`] ([`Abs`]),
//! and the bitsets of values those abstract values use (one arena).
//!
//! Input: a node, a [`Ctx`] (the steps read, and the one value under
//! test). Output: an [`Abs`] (or a truth pair) that contains every
//! value the node takes in some state the sets allow; a set an
//! evaluation leaves on the arena is freed by its caller ([`Domains::free`]).

use super::{Ctx, Domains, Memo};
use crate::bmc::program::{Node, NodeId, Place, Program};
use crate::ir::VarId;

/// An abstract value: what an expression may evaluate to.
#[derive(Clone, Copy, Debug)]
pub(super) enum Abs {
    /// A boolean that may be true (`t`) and/or may be false (`f`).
    B { t: bool, f: bool },
    /// One of the universe values ([`Program::ints`], [`Program::syms`]: integers and
    /// symbols, never booleans) in the bitset at this offset of
    /// [`Domains::arena`].
    V(usize),
    /// Some integer in `lo..=hi`.
    R(i64, i64),
    /// Anything.
    Top,
}

pub(super) const EITHER: Abs = Abs::B { t: true, f: true };

fn b(t: bool, f: bool) -> Abs {
    Abs::B { t, f }
}

impl Abs {
    fn truth(self) -> (bool, bool) {
        match self {
            Abs::B { t, f } => (t, f),
            // Sets never hold booleans.
            Abs::V(_) | Abs::R(..) => (false, false),
            Abs::Top => (true, true),
        }
    }
}

/// A union of many abstract values: the values in a bitset of the arena,
/// the rest (booleans, ranges, anything) joined.
pub(super) struct Acc {
    vals: usize,
    rest: Option<Abs>,
}

impl Domains {
    // The value sets of the arena.

    /// A new empty set on top of the arena.
    #[inline]
    fn new_set(&mut self) -> usize {
        let o = self.arena.len();
        self.arena.resize(o + self.words, 0);
        o
    }

    #[inline]
    pub(super) fn has(&self, o: usize, u: usize) -> bool {
        self.arena[o + u / 64] >> (u % 64) & 1 == 1
    }

    #[inline]
    fn insert(&mut self, o: usize, u: usize) {
        self.arena[o + u / 64] |= 1 << (u % 64);
    }

    /// Adds set `from` to set `to` and drops `from` (the top set).
    #[inline]
    fn union_into(&mut self, to: usize, from: usize) {
        for w in 0..self.words {
            self.arena[to + w] |= self.arena[from + w];
        }
        self.arena.truncate(from);
    }

    fn set_len(&self, o: usize) -> u32 {
        self.arena[o..o + self.words]
            .iter()
            .map(|w| w.count_ones())
            .sum()
    }

    /// The least and greatest value of a set of integers (`None` when
    /// empty or when it holds a symbol).
    fn set_bounds(&self, p: &Program, o: usize) -> Option<(i64, i64)> {
        let set = &self.arena[o..o + self.words];
        let first = set.iter().position(|&w| w != 0)?;
        let last = set.iter().rposition(|&w| w != 0)?;
        let lo = first * 64 + set[first].trailing_zeros() as usize;
        let hi = last * 64 + 63 - set[last].leading_zeros() as usize;
        if hi >= p.ints.len() {
            return None;
        }
        Some((p.int_of(lo)?, p.int_of(hi)?))
    }

    /// Drops the set of `a`, if it has one (with every set above it).
    #[inline]
    pub(super) fn free(&mut self, a: Abs) {
        if let Abs::V(o) = a {
            self.arena.truncate(o);
        }
    }

    fn is_empty(&self, a: Abs) -> bool {
        match a {
            Abs::B { t, f } => !t && !f,
            Abs::V(o) => self.arena[o..o + self.words].iter().all(|&w| w == 0),
            Abs::R(lo, hi) => lo > hi,
            Abs::Top => false,
        }
    }

    /// Integer bounds; `None` when unknown (or not integers).
    fn abs_bounds(&self, p: &Program, a: Abs) -> Option<(i64, i64)> {
        match a {
            Abs::R(lo, hi) => Some((lo, hi)),
            Abs::V(o) => self.set_bounds(p, o),
            _ => None,
        }
    }

    /// The join of `a` and `c`, whose sets (if any) are the top of the
    /// arena, `a`'s below `c`'s; the result's set replaces them.
    fn join(&mut self, p: &Program, a: Abs, c: Abs) -> Abs {
        if self.is_empty(a) {
            return match (a, c) {
                (Abs::V(x), Abs::V(y)) => {
                    self.arena.copy_within(y..y + self.words, x);
                    self.arena.truncate(x + self.words);
                    Abs::V(x)
                }
                _ => {
                    self.free(a);
                    c
                }
            };
        }
        if self.is_empty(c) {
            self.free(c);
            return a;
        }
        match (a, c) {
            (Abs::B { t, f }, Abs::B { t: t2, f: f2 }) => b(t || t2, f || f2),
            (Abs::V(x), Abs::V(y)) => {
                self.union_into(x, y);
                Abs::V(x)
            }
            _ => {
                let out = match (self.abs_bounds(p, a), self.abs_bounds(p, c)) {
                    (Some((l1, h1)), Some((l2, h2))) => Abs::R(l1.min(l2), h1.max(h2)),
                    _ => Abs::Top,
                };
                self.free(a);
                self.free(c);
                out
            }
        }
    }

    fn acc(&mut self) -> Acc {
        Acc {
            vals: self.new_set(),
            rest: None,
        }
    }

    fn acc_add(&mut self, p: &Program, acc: &mut Acc, a: Abs) {
        match a {
            Abs::V(o) => self.union_into(acc.vals, o),
            a => {
                let rest = acc.rest.take().unwrap_or(b(false, false));
                acc.rest = Some(self.join(p, rest, a));
            }
        }
    }

    fn acc_finish(&mut self, p: &Program, acc: Acc) -> Abs {
        let vals = Abs::V(acc.vals);
        match acc.rest {
            Some(rest) => self.join(p, rest, vals),
            None => vals,
        }
    }

    /// The values of a variable copy.
    fn var_abs(&mut self, p: &Program, var: VarId, step: usize, ctx: &Ctx) -> Abs {
        match &p.places[var.index()] {
            Place::Bool => b(self.ok(ctx, var, step, 1), self.ok(ctx, var, step, 0)),
            Place::Range { first, lo, hi } => {
                let n = self.sizes[var.index()];
                if self.n_ok(ctx, var, step) == n {
                    return Abs::R(*lo, *hi);
                }
                let o = self.new_set();
                if let Some(j) = self.single_of(ctx, var, step) {
                    self.insert(o, *first as usize + j);
                } else {
                    let at = self.at(var, self.step_of(var, step));
                    for j in 0..n {
                        if self.bits[at + j] {
                            self.insert(o, *first as usize + j);
                        }
                    }
                }
                Abs::V(o)
            }
            Place::Enum(uids) => {
                let o = self.new_set();
                for (j, &u) in uids.iter().enumerate() {
                    if self.ok(ctx, var, step, j) {
                        self.insert(o, u as usize);
                    }
                }
                Abs::V(o)
            }
        }
    }

    /// `var = value j of var2` at `step`, without building the value set.
    fn eq_const(&self, ctx: &Ctx, var: VarId, step: usize, j: Option<usize>) -> Abs {
        let n = self.n_ok(ctx, var, step);
        match j {
            Some(j) => {
                let t = self.ok(ctx, var, step, j);
                b(t, n > t as usize)
            }
            None => b(false, n > 0),
        }
    }

    /// The copy a node names: `Var` at `cur`, `Next` at `next`.
    #[inline]
    fn copy_of(p: &Program, e: NodeId, ctx: &Ctx) -> Option<(VarId, usize)> {
        match p.nodes[e as usize] {
            Node::Copy { var, next: false } => Some((var, ctx.cur)),
            Node::Copy { var, next: true } => ctx.next.map(|s| (var, s)),
            _ => None,
        }
    }

    /// Integer bounds of a copy (of a range variable), without building
    /// its value set.
    fn copy_bounds(&self, p: &Program, ctx: &Ctx, var: VarId, step: usize) -> Option<(i64, i64)> {
        let Place::Range { lo, .. } = p.places[var.index()] else {
            return None;
        };
        if let Some(j) = self.single_of(ctx, var, step) {
            return Some((lo + j as i64, lo + j as i64));
        }
        let n = self.sizes[var.index()];
        let first = (0..n).find(|&j| self.ok(ctx, var, step, j))?;
        let last = (0..n).rev().find(|&j| self.ok(ctx, var, step, j))?;
        Some((lo + first as i64, lo + last as i64))
    }

    /// Integer bounds of an expression.
    fn bounds_of(&mut self, p: &Program, e: NodeId, ctx: &Ctx) -> Option<(i64, i64)> {
        if let Node::Val { int: Some(i), .. } = p.nodes[e as usize] {
            self.work += 1;
            return Some((i, i));
        }
        match Self::copy_of(p, e, ctx) {
            Some((v, s)) => {
                self.work += 1;
                self.copy_bounds(p, ctx, v, s)
            }
            None => {
                let a = self.eval(p, e, ctx);
                let out = self.abs_bounds(p, a);
                self.free(a);
                out
            }
        }
    }

    /// [`Domains::truth`] of a leaf (a constant, `x = c`, a boolean
    /// copy), in the caller's frame; `None` for any other node. Most
    /// nodes the analysis evaluates are leaves under a `!`, `&` or `|`,
    /// and a call of the whole of `truth` cost more than the leaf.
    #[inline(always)]
    fn leaf_truth(&mut self, p: &Program, e: NodeId, ctx: &Ctx) -> Option<(bool, bool)> {
        match p.nodes[e as usize] {
            Node::Bool(x) => {
                self.work += 1;
                Some((x, !x))
            }
            Node::EqConst { var, next, j } => {
                self.work += 1;
                let s = match next {
                    false => Some(ctx.cur),
                    true => ctx.next,
                };
                Some(match s {
                    Some(s) => {
                        let n = self.n_ok(ctx, var, s);
                        match j {
                            Some(j) => {
                                let t = self.ok(ctx, var, s, j as usize);
                                (t, n > t as usize)
                            }
                            None => (false, n > 0),
                        }
                    }
                    // Both sides evaluated: anything against a constant.
                    None => {
                        self.work += 2;
                        (true, true)
                    }
                })
            }
            Node::Copy { var, next } if matches!(p.places[var.index()], Place::Bool) => {
                self.work += 1;
                let s = match next {
                    false => Some(ctx.cur),
                    true => ctx.next,
                };
                Some(match s {
                    Some(s) => (self.ok(ctx, var, s, 1), self.ok(ctx, var, s, 0)),
                    None => (true, true),
                })
            }
            _ => None,
        }
    }

    /// [`Domains::truth`], with a leaf answered in the caller's frame.
    #[inline(always)]
    fn kid_truth(&mut self, p: &Program, e: NodeId, ctx: &Ctx) -> (bool, bool) {
        match self.leaf_truth(p, e, ctx) {
            Some(tf) => tf,
            None => self.truth(p, e, ctx),
        }
    }

    /// Whether `e` may be true, may be false: [`Domains::eval`] without
    /// the abstract value for the boolean nodes.
    pub(super) fn truth(&mut self, p: &Program, e: NodeId, ctx: &Ctx) -> (bool, bool) {
        if let Some(tf) = self.leaf_truth(p, e, ctx) {
            return tf;
        }
        match p.nodes[e as usize] {
            Node::Define { body, memo } => {
                self.work += 1;
                let fix = ctx
                    .fix
                    .filter(|f| p.define_reads[memo as usize].binary_search(&f.0).is_ok());
                let slots = &self.memo[memo as usize];
                for m in slots {
                    if m.tick == self.tick && m.cur == ctx.cur && m.next == ctx.next && m.fix == fix
                    {
                        self.work += m.work;
                        return m.truth;
                    }
                }
                let w0 = self.work;
                let truth = self.truth(p, body, ctx);
                let slots = &mut self.memo[memo as usize];
                // Keep the more recent one.
                let old = (slots[0].tick > slots[1].tick) as usize;
                slots[old] = Memo {
                    tick: self.tick,
                    cur: ctx.cur,
                    next: ctx.next,
                    fix,
                    truth,
                    work: self.work - w0,
                };
                truth
            }
            Node::Not(a) => {
                self.work += 1;
                let (t, f) = self.kid_truth(p, a, ctx);
                (f, t)
            }
            Node::And(xs) => {
                self.work += 1;
                let mut t = true;
                let mut f = false;
                for &x in &p.kids[xs.range()] {
                    let (xt, xf) = self.kid_truth(p, x, ctx);
                    if !xt {
                        return (false, true);
                    }
                    t &= xt;
                    f |= xf;
                }
                (t, f)
            }
            Node::Or(xs) => {
                self.work += 1;
                let mut t = false;
                let mut f = true;
                for &x in &p.kids[xs.range()] {
                    let (xt, xf) = self.kid_truth(p, x, ctx);
                    if !xf {
                        return (true, false);
                    }
                    t |= xt;
                    f &= xf;
                }
                (t, f)
            }
            Node::Implies(x, y) => {
                self.work += 1;
                let (pt, pf) = self.kid_truth(p, x, ctx);
                if pf && !pt {
                    // A premise that must be false: true whatever `y` is.
                    return (true, false);
                }
                let (qt, qf) = self.kid_truth(p, y, ctx);
                (pf || qt, pt && qf)
            }
            Node::Iff(x, y) => {
                self.work += 1;
                let (pt, pf) = self.kid_truth(p, x, ctx);
                let (qt, qf) = self.kid_truth(p, y, ctx);
                ((pt && qt) || (pf && qf), (pt && qf) || (pf && qt))
            }
            _ => {
                let a = self.eval(p, e, ctx);
                self.free(a);
                a.truth()
            }
        }
    }

    pub(super) fn eval(&mut self, p: &Program, e: NodeId, ctx: &Ctx) -> Abs {
        self.work += 1;
        match p.nodes[e as usize] {
            // Boolean nodes: [`Domains::truth`] counts their work.
            Node::Bool(_)
            | Node::EqConst { .. }
            | Node::Not(_)
            | Node::And(_)
            | Node::Or(_)
            | Node::Implies(..)
            | Node::Iff(..) => {
                self.work -= 1;
                let (t, f) = self.truth(p, e, ctx);
                b(t, f)
            }
            Node::Val { u, .. } => {
                let o = self.new_set();
                self.insert(o, u as usize);
                Abs::V(o)
            }
            Node::Copy { .. } => match Self::copy_of(p, e, ctx) {
                Some((v, s)) => self.var_abs(p, v, s, ctx),
                None => Abs::Top,
            },
            Node::Define { body, .. } => self.eval(p, body, ctx),
            Node::Missing => Abs::Top,
            Node::Eq(x, y) => self.eval_eq(p, x, y, ctx),
            Node::Lt(x, y) | Node::Le(x, y) => {
                let strict = matches!(p.nodes[e as usize], Node::Lt(..));
                let (Some((al, ah)), Some((bl, bh))) =
                    (self.bounds_of(p, x, ctx), self.bounds_of(p, y, ctx))
                else {
                    return EITHER;
                };
                if strict {
                    b(al < bh, ah >= bl)
                } else {
                    b(al <= bh, ah > bl)
                }
            }
            Node::Add(xs) => {
                let (mut lo, mut hi) = (0i64, 0i64);
                for &x in &p.kids[xs.range()] {
                    let Some((l, h)) = self.bounds_of(p, x, ctx) else {
                        return Abs::Top;
                    };
                    lo += l;
                    hi += h;
                }
                Abs::R(lo, hi)
            }
            Node::Sub(x, y) => match (self.bounds_of(p, x, ctx), self.bounds_of(p, y, ctx)) {
                (Some((al, ah)), Some((bl, bh))) => Abs::R(al - bh, ah - bl),
                _ => Abs::Top,
            },
            Node::Count(xs) => {
                let (mut lo, mut hi) = (0i64, 0i64);
                for &x in &p.kids[xs.range()] {
                    let (t, f) = self.truth(p, x, ctx);
                    hi += t as i64;
                    lo += (t && !f) as i64;
                }
                Abs::R(lo, hi)
            }
            Node::Ite(c, x, y) => {
                let (t, f) = self.truth(p, c, ctx);
                let mut out = b(false, false);
                if t {
                    let a = self.eval(p, x, ctx);
                    out = self.join(p, out, a);
                }
                if f {
                    let a = self.eval(p, y, ctx);
                    out = self.join(p, out, a);
                }
                out
            }
            Node::Case { arms, runs } => self.eval_case(p, arms, runs, ctx),
            Node::In { x, items, consts } => {
                if let (Some((v, s)), Some(consts)) = (Self::copy_of(p, x, ctx), consts) {
                    // Distinct allowed values: `f in {1, 1}` hits one.
                    let hits = p.idx[consts.range()]
                        .iter()
                        .filter(|&&j| self.ok(ctx, v, s, j as usize))
                        .count();
                    return b(hits > 0, self.n_ok(ctx, v, s) > hits);
                }
                let mut t = false;
                let mut f = true;
                for &i in &p.kids[items.range()] {
                    let a = self.eval_eq(p, x, i, ctx);
                    let (it, itf) = a.truth();
                    t |= it;
                    f &= itf;
                }
                b(t, f)
            }
            Node::Set(xs) => {
                let mut acc = self.acc();
                for &x in &p.kids[xs.range()] {
                    self.add_to(p, &mut acc, x, ctx);
                }
                self.acc_finish(p, acc)
            }
        }
    }

    /// Adds the values of `e` to a union (a constant without building
    /// its one-value set).
    fn add_to(&mut self, p: &Program, acc: &mut Acc, e: NodeId, ctx: &Ctx) {
        match p.nodes[e as usize] {
            Node::Val { u, .. } => {
                self.work += 1;
                self.insert(acc.vals, u as usize);
            }
            Node::Set(xs) => {
                for &x in &p.kids[xs.range()] {
                    self.add_to(p, acc, x, ctx);
                }
            }
            _ => {
                let a = self.eval(p, e, ctx);
                self.acc_add(p, acc, a);
            }
        }
    }

    /// A `case`: the values of the arms whose guard may hold, up to the
    /// first guard that must. An exclusive run of `x = c` guards is one
    /// look-up per allowed value of `x` instead of one guard per arm (the
    /// same answer as guard by guard).
    fn eval_case(
        &mut self,
        p: &Program,
        arms: crate::bmc::program::Span,
        runs: crate::bmc::program::Span,
        ctx: &Ctx,
    ) -> Abs {
        let arms = &p.arms[arms.range()];
        let mut runs = p.runs[runs.range()].iter().peekable();
        let mut acc = self.acc();
        let mut i = 0;
        while i < arms.len() {
            let run = runs.next_if(|r| r.arms.start == i);
            let copy = run.and_then(|r| match r.next {
                false => Some((r.var, ctx.cur)),
                true => ctx.next.map(|s| (r.var, s)),
            });
            if let (Some(run), Some((v, s))) = (run, copy) {
                self.work += 1;
                let mut hits = 0;
                if let Some(j) = self.single_of(ctx, v, s) {
                    if let Some(a) = run.arm[j] {
                        self.add_to(p, &mut acc, arms[a as usize].1, ctx);
                        hits = 1;
                    }
                } else {
                    for &j in &run.hits {
                        if self.ok(ctx, v, s, j) {
                            hits += 1;
                            let a = run.arm[j].unwrap_or_default() as usize;
                            self.add_to(p, &mut acc, arms[a].1, ctx);
                        }
                    }
                }
                // Exactly what one guard at a time gives: a guard must hold
                // only when `x` has one value left (or none).
                let n = self.n_ok(ctx, v, s);
                if n <= 1 && hits == n {
                    break;
                }
                i = run.arms.end;
                continue;
            }
            let (g, v) = arms[i];
            let (t, f) = self.truth(p, g, ctx);
            if t {
                self.add_to(p, &mut acc, v, ctx);
            }
            if !f {
                break;
            }
            i += 1;
        }
        self.acc_finish(p, acc)
    }

    /// The index in `var`'s domain of constant node `c`: `Some(None)` when
    /// it is not in the domain, `None` when `c` is not a constant.
    fn const_index(p: &Program, var: VarId, c: NodeId) -> Option<Option<usize>> {
        match p.nodes[c as usize] {
            Node::Bool(x) => {
                Some(matches!(p.places[var.index()], Place::Bool).then_some(x as usize))
            }
            Node::Val { u, .. } => Some(Self::uid_index(p, var, u as usize)),
            _ => None,
        }
    }

    /// The index in `var`'s domain of universe value `u`.
    fn uid_index(p: &Program, var: VarId, u: usize) -> Option<usize> {
        match &p.places[var.index()] {
            Place::Bool => None,
            Place::Range { first, lo, hi } => {
                let j = u.checked_sub(*first as usize)?;
                (j < (hi - lo + 1).max(0) as usize).then_some(j)
            }
            Place::Enum(uids) => uids.iter().position(|&x| x as usize == u),
        }
    }

    fn eval_eq(&mut self, p: &Program, x: NodeId, y: NodeId, ctx: &Ctx) -> Abs {
        for (a, c) in [(x, y), (y, x)] {
            if let Some((v, s)) = Self::copy_of(p, a, ctx) {
                if let Some(j) = Self::const_index(p, v, c) {
                    return self.eq_const(ctx, v, s, j);
                }
            }
        }
        // A copy against a copy with one value left (a step counter).
        if let (Some((v, s)), Some((w, r))) = (Self::copy_of(p, x, ctx), Self::copy_of(p, y, ctx)) {
            for ((v, s), (w, r)) in [((v, s), (w, r)), ((w, r), (v, s))] {
                if let Some(j) = self.single_of(ctx, w, r) {
                    let i = match &p.places[w.index()] {
                        Place::Bool => matches!(p.places[v.index()], Place::Bool).then_some(j),
                        Place::Range { first, .. } => Self::uid_index(p, v, *first as usize + j),
                        Place::Enum(uids) => Self::uid_index(p, v, uids[j] as usize),
                    };
                    return self.eq_const(ctx, v, s, i);
                }
            }
        }
        let a = self.eval(p, x, ctx);
        let c = self.eval(p, y, ctx);
        let out = match (a, c) {
            (Abs::B { t, f }, Abs::B { t: t2, f: f2 }) => {
                b((t && t2) || (f && f2), (t && f2) || (f && t2))
            }
            (Abs::V(xs), Abs::V(ys)) => {
                let meet = (0..self.words).any(|w| self.arena[xs + w] & self.arena[ys + w] != 0);
                let single = self.set_len(xs) == 1
                    && self.set_len(ys) == 1
                    && self.arena[xs..xs + self.words] == self.arena[ys..ys + self.words];
                b(meet, !single)
            }
            _ => match (self.abs_bounds(p, a), self.abs_bounds(p, c)) {
                (Some((al, ah)), Some((bl, bh))) => {
                    let meet = al <= bh && bl <= ah;
                    let single = al == ah && bl == bh && al == bl;
                    b(meet, !single)
                }
                _ => EITHER,
            },
        };
        self.free(a);
        self.free(c);
        out
    }
}
