//! Constant folding over the unrolling: the value of an expression when
//! every variable copy it depends on is a constant (forced or pruned to
//! one value), without building any literal.
//!
//! Input: an [`Expr`], the step(s) it is read at ([`At`]) and the copies
//! of the [`Unroller`]. Output: `Some(value)` when the value is decided by
//! the constant copies alone, `None` otherwise (some copy is still a SAT
//! variable, or the expression would be an evaluation error, which the
//! encoder then reports).
//!
//! Invariants: a folded value is the value [`System::eval`] gives in every
//! state that agrees with the constant copies; `And`/`Or`/`Implies`/
//! `Ite`/`Case` short-circuit on a decided operand, as the evaluator does.
//! Once the domain analysis has pinned most copies, most constraints fold
//! to `TRUE` and cost no encoding at all.
//!
//! [`System::eval`]: crate::ir::System::eval

use super::cnf::Sink;
use super::expr::At;
use super::unroll::{index_of, Copy, Unroller};
use super::BmcError;
use crate::ir::{Assign, Domain, Expr, Value, VarId};
use rustsat::types::Lit;

/// A next assignment `next(v) := v | next(x) = c` of a boolean `v` (in
/// either order, [`crate::ir::accumulator`]: the visited flags of the
/// step-by-step grid models, one per cell and step), folded from three
/// copies' value indices ([`Unroller::fold_accumulator`]) rather than by
/// walking the expression: the same result, -3.6% of the instructions of
/// `solve --count 2` on numbrix-9x9-s1, whose 5,550 flags are nearly all
/// constants.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Accumulator {
    x: VarId,
    /// `c`'s value index in `x`'s domain (`None`: not in it).
    j: Option<usize>,
}

impl Accumulator {
    /// The accumulator `a` is, if it is one. `c` must be of `x`'s kind
    /// (else the expression is a type error, which the encoder reports).
    pub fn of(sys: &crate::ir::System, a: &Assign) -> Option<Accumulator> {
        let (x, c) = crate::ir::accumulator(a)?;
        if sys.var(a.var).domain != Domain::Bool {
            return None;
        }
        let dom = &sys.var(x).domain;
        let same_kind = matches!(
            (dom, c),
            (Domain::Bool, Value::Bool(_))
                | (Domain::Range { .. }, Value::Int(_))
                | (Domain::Enum(_), Value::Sym(_))
        );
        same_kind.then(|| Accumulator {
            x,
            j: index_of(dom, c),
        })
    }
}

/// A folded value, borrowed from the system or the expression (folding
/// allocates nothing; symbols are compared as strings, as [`Value`]s are).
/// Two machine words (a symbol by a thin `&String`), so a fold's result
/// is returned in registers.
#[derive(Clone, Copy, Debug)]
enum Folded<'a> {
    Bool(bool),
    Int(i64),
    Sym(&'a str),
}

impl PartialEq for Folded<'_> {
    /// As derived, but inlined (a call per comparison was a tenth of a
    /// fold).
    #[inline(always)]
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Folded::Bool(a), Folded::Bool(b)) => a == b,
            (Folded::Int(a), Folded::Int(b)) => a == b,
            (Folded::Sym(a), Folded::Sym(b)) => a == b,
            _ => false,
        }
    }
}

impl<'a> Folded<'a> {
    fn of(v: &'a Value) -> Self {
        match v {
            Value::Bool(b) => Folded::Bool(*b),
            Value::Int(i) => Folded::Int(*i),
            Value::Sym(s) => Folded::Sym(s),
        }
    }
}

impl<S: Sink> Unroller<'_, S> {
    /// The constant value of a copy, if it has one.
    #[inline(always)]
    fn const_copy(&self, var: VarId, step: usize) -> Option<Folded<'_>> {
        let Copy::Const(i) = *self.copy(var, step) else {
            return None;
        };
        Some(match &self.sys.var(var).domain {
            Domain::Bool => Folded::Bool(i == 1),
            Domain::Range { lo, .. } => Folded::Int(lo + i as i64),
            Domain::Enum(syms) => Folded::Sym(syms.get(i)?.as_str()),
        })
    }

    /// The truth value of `e` if the constant copies decide it (`None`
    /// also when `e` folds to a non-boolean).
    #[inline(always)]
    pub fn fold_bool(&self, e: &Expr, at: At) -> Option<bool> {
        match self.fold_leaf(e, at)? {
            Folded::Bool(b) => Some(b),
            _ => None,
        }
    }

    #[inline(always)]
    fn fold_int(&self, e: &Expr, at: At) -> Option<i64> {
        match self.fold_leaf(e, at)? {
            Folded::Int(i) => Some(i),
            _ => None,
        }
    }

    /// [`Self::fold_in`] with the leaves (half the nodes), and `x = c`
    /// between two of them, folded in the caller's frame, not by a call
    /// that dispatches on the node again.
    #[inline(always)]
    fn fold_leaf<'a>(&'a self, e: &'a Expr, at: At) -> Option<Folded<'a>> {
        match e {
            Expr::Const(_) | Expr::Var(_) | Expr::Next(_) => self.fold_atom(e, at),
            Expr::Eq(p, q) if is_atom(p) && is_atom(q) => {
                same_kind(self.fold_atom(p, at)?, self.fold_atom(q, at)?)
            }
            // `!(a & b)`: one call, for the conjunction.
            Expr::Not(a) => match self.fold_in(a, at)? {
                Folded::Bool(b) => Some(Folded::Bool(!b)),
                _ => None,
            },
            _ => self.fold_in(e, at),
        }
    }

    /// The value of a constant or a copy ([`is_atom`]; `None` for any
    /// other expression).
    #[inline(always)]
    fn fold_atom<'a>(&'a self, e: &'a Expr, at: At) -> Option<Folded<'a>> {
        match e {
            Expr::Const(v) => Some(Folded::of(v)),
            Expr::Var(v) => self.const_copy(*v, at.cur),
            Expr::Next(v) => self.const_copy(*v, at.next?),
            _ => None,
        }
    }

    /// The value of `e` if the constant copies decide it: the boolean
    /// operators here, the rest in [`Self::fold_other`] (a small frame
    /// for the nodes that are folded most).
    fn fold_in<'a>(&'a self, e: &'a Expr, at: At) -> Option<Folded<'a>> {
        let b = |x: bool| Some(Folded::Bool(x));
        match e {
            Expr::Define(d) => self.fold_in(&self.sys.defines.get(d.0 as usize)?.expr, at),
            Expr::Not(a) => b(!self.fold_bool(a, at)?),
            Expr::And(xs) => self.fold_junction(xs, at, false).map(Folded::Bool),
            Expr::Or(xs) => self.fold_junction(xs, at, true).map(Folded::Bool),
            Expr::Implies(p, q) => match (self.fold_bool(p, at), self.fold_bool(q, at)) {
                (Some(false), _) | (_, Some(true)) => b(true),
                (Some(true), Some(false)) => b(false),
                _ => None,
            },
            Expr::Iff(p, q) => b(self.fold_bool(p, at)? == self.fold_bool(q, at)?),
            Expr::Eq(p, q) => same_kind(self.fold_leaf(p, at)?, self.fold_leaf(q, at)?),
            _ => self.fold_other(e, at),
        }
    }

    /// [`Self::fold_in`] of the atoms, comparisons, arithmetic and
    /// choices.
    #[inline(never)]
    fn fold_other<'a>(&'a self, e: &'a Expr, at: At) -> Option<Folded<'a>> {
        let b = |x: bool| Some(Folded::Bool(x));
        match e {
            Expr::Const(_) | Expr::Var(_) | Expr::Next(_) => self.fold_atom(e, at),
            Expr::Lt(p, q) => b(self.fold_int(p, at)? < self.fold_int(q, at)?),
            Expr::Le(p, q) => b(self.fold_int(p, at)? <= self.fold_int(q, at)?),
            Expr::Add(xs) => {
                let mut sum = 0i64;
                for x in xs {
                    sum = sum.checked_add(self.fold_int(x, at)?)?;
                }
                Some(Folded::Int(sum))
            }
            Expr::Sub(p, q) => Some(Folded::Int(
                self.fold_int(p, at)?.checked_sub(self.fold_int(q, at)?)?,
            )),
            Expr::Count(xs) => {
                let mut n = 0i64;
                for x in xs {
                    n += self.fold_bool(x, at)? as i64;
                }
                Some(Folded::Int(n))
            }
            Expr::Ite(c, p, q) => {
                if self.fold_bool(c, at)? {
                    self.fold_in(p, at)
                } else {
                    self.fold_in(q, at)
                }
            }
            Expr::Case(arms) => self.fold_in(self.case_arm(arms, at)?, at),
            Expr::In(x, items) => {
                let v = self.fold_in(x, at)?;
                for i in items {
                    if self.allows(i, at, v)? {
                        return b(true);
                    }
                }
                b(false)
            }
            // Handled by `fold_in`; a set is no single value.
            _ => None,
        }
    }

    /// The value expression of the arm a `case` takes, if the constant
    /// copies decide it: the first true guard, all guards before it
    /// false. A guard `x = c` is compared with `x`'s constant directly,
    /// and a run of them on one `x` (a transition table: one arm per
    /// cell) reads that copy once.
    fn case_arm<'a>(&'a self, arms: &'a [(Expr, Expr)], at: At) -> Option<&'a Expr> {
        let mut last: Option<(&Expr, Folded<'a>)> = None;
        for (g, v) in arms {
            let hit = match g.as_var_eq_const() {
                Some((x, c)) => {
                    // (Two copies of a variable compared in this frame:
                    // the derived comparison is a call per arm.)
                    let same = |y: &Expr| match (y, x) {
                        (Expr::Var(a), Expr::Var(b)) | (Expr::Next(a), Expr::Next(b)) => a == b,
                        _ => y == x,
                    };
                    let xv = match last {
                        Some((y, f)) if same(y) => f,
                        _ => {
                            let f = self.fold_leaf(x, at)?;
                            last = Some((x, f));
                            f
                        }
                    };
                    matches!(same_kind(xv, Folded::of(c))?, Folded::Bool(true))
                }
                None => self.fold_bool(g, at)?,
            };
            if hit {
                return Some(v);
            }
        }
        None
    }

    /// `And` (`or == false`) or `Or` (`or == true`): decided by one
    /// operand equal to `or`, or by all operands.
    #[inline(always)]
    fn fold_junction(&self, xs: &[Expr], at: At, or: bool) -> Option<bool> {
        let mut all = true;
        for x in xs {
            match self.fold_bool(x, at) {
                Some(v) if v == or => return Some(or),
                Some(_) => {}
                None => all = false,
            }
        }
        all.then_some(!or)
    }

    /// Whether the right-hand side `e` (an assignment's, possibly a set or
    /// a case of sets) allows `v`, if the constant copies decide it: all
    /// of a set's members must fold.
    pub fn fold_allows(&self, e: &Expr, at: At, v: &Value) -> Option<bool> {
        self.allows(e, at, Folded::of(v))
    }

    /// [`Self::fold_allows`] of the value of `var` at `step`, when its
    /// copy is a constant (no term or value built for it).
    pub fn fold_allows_copy(&self, e: &Expr, at: At, var: VarId, step: usize) -> Option<bool> {
        self.allows(e, at, self.const_copy(var, step)?)
    }

    /// [`Self::fold_allows_copy`] of accumulator `acc`, the next
    /// assignment of `v`, at `step` (> 0), when `v`'s copy there is a
    /// constant: the one literal the assignment comes to, if it comes to
    /// one. The top literal (or its negation) when the constant copies
    /// decide it (a disjunct true, or both false); when only `x`'s copy is
    /// open and `v` was false, `next(x) = c` if `v` is true at `step`, its
    /// negation if not (a 9x9 numbrix has some 125 of these, at the few
    /// steps where `pos` keeps two values: through [`Self::assert_member`]
    /// they cost 1.8K instructions more each, 0.9% of its `solve`).
    pub fn fold_accumulator(
        &mut self,
        acc: Accumulator,
        v: VarId,
        step: usize,
    ) -> Result<Option<Lit>, BmcError> {
        let index = |var: VarId, step: usize| match *self.copy(var, step) {
            Copy::Const(i) => Some(i),
            _ => None,
        };
        let Some(target) = index(v, step) else {
            return Ok(None);
        };
        let rhs = match (index(v, step - 1), index(acc.x, step), acc.j) {
            // Was true, or hit.
            (Some(1), _, _) => self.top(),
            (_, Some(i), j) if Some(i) == j => self.top(),
            // Was false and not hit (`c` no value of `x`: never hit).
            (Some(_), Some(_), _) | (Some(_), None, None) => !self.top(),
            // Was false, and only `x`'s copy is open.
            (Some(_), None, Some(j)) => self.eq_index(acc.x, step, j)?,
            (None, _, _) => return Ok(None),
        };
        Ok(Some(if target == 1 { rhs } else { !rhs }))
    }

    fn allows(&self, e: &Expr, at: At, v: Folded<'_>) -> Option<bool> {
        match e {
            Expr::Set(xs) => {
                let mut found = false;
                for x in xs {
                    found |= self.allows(x, at, v)?;
                }
                Some(found)
            }
            Expr::Case(arms) => self.allows(self.case_arm(arms, at)?, at, v),
            Expr::Ite(c, p, q) => {
                if self.fold_bool(c, at)? {
                    self.allows(p, at, v)
                } else {
                    self.allows(q, at, v)
                }
            }
            _ => Some(self.fold_leaf(e, at)? == v),
        }
    }
}

/// A constant or a variable copy: folded without recursion.
#[inline(always)]
fn is_atom(e: &Expr) -> bool {
    matches!(e, Expr::Const(_) | Expr::Var(_) | Expr::Next(_))
}

/// `x = y` folded; `None` when they are of different kinds (comparing a
/// boolean with an integer is an error for the encoder to report).
#[inline(always)]
fn same_kind<'a>(x: Folded<'a>, y: Folded<'a>) -> Option<Folded<'a>> {
    (std::mem::discriminant(&x) == std::mem::discriminant(&y)).then_some(Folded::Bool(x == y))
}
