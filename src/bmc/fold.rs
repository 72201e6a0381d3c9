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
use super::unroll::{nth_value, Copy, Unroller};
use crate::ir::{Expr, Value, VarId};

impl<S: Sink> Unroller<'_, S> {
    /// The constant value of a copy, if it has one.
    fn const_copy(&self, var: VarId, step: usize) -> Option<Value> {
        match self.copy(var, step) {
            Copy::Const(i) => Some(nth_value(&self.sys.var(var).domain, *i)),
            _ => None,
        }
    }

    fn fold_bool(&self, e: &Expr, at: At) -> Option<bool> {
        match self.fold(e, at)? {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    fn fold_int(&self, e: &Expr, at: At) -> Option<i64> {
        match self.fold(e, at)? {
            Value::Int(i) => Some(i),
            _ => None,
        }
    }

    /// The value of `e` if the constant copies decide it.
    pub fn fold(&self, e: &Expr, at: At) -> Option<Value> {
        let b = |x: bool| Some(Value::Bool(x));
        match e {
            Expr::Const(v) => Some(v.clone()),
            Expr::Var(v) => self.const_copy(*v, at.cur),
            Expr::Next(v) => self.const_copy(*v, at.next?),
            Expr::Define(d) => self.fold(&self.sys.defines.get(d.0 as usize)?.expr, at),
            Expr::Not(a) => b(!self.fold_bool(a, at)?),
            Expr::And(xs) => self.fold_junction(xs, at, false),
            Expr::Or(xs) => self.fold_junction(xs, at, true),
            Expr::Implies(p, q) => match (self.fold_bool(p, at), self.fold_bool(q, at)) {
                (Some(false), _) | (_, Some(true)) => b(true),
                (Some(true), Some(false)) => b(false),
                _ => None,
            },
            Expr::Iff(p, q) => b(self.fold_bool(p, at)? == self.fold_bool(q, at)?),
            Expr::Eq(p, q) => {
                let x = self.fold(p, at)?;
                let y = self.fold(q, at)?;
                // Comparing a boolean with an integer is an error to report.
                (std::mem::discriminant(&x) == std::mem::discriminant(&y))
                    .then(|| Value::Bool(x == y))
            }
            Expr::Lt(p, q) => b(self.fold_int(p, at)? < self.fold_int(q, at)?),
            Expr::Le(p, q) => b(self.fold_int(p, at)? <= self.fold_int(q, at)?),
            Expr::Add(xs) => {
                let mut sum = 0i64;
                for x in xs {
                    sum = sum.checked_add(self.fold_int(x, at)?)?;
                }
                Some(Value::Int(sum))
            }
            Expr::Sub(p, q) => Some(Value::Int(
                self.fold_int(p, at)?.checked_sub(self.fold_int(q, at)?)?,
            )),
            Expr::Count(xs) => {
                let mut n = 0i64;
                for x in xs {
                    n += self.fold_bool(x, at)? as i64;
                }
                Some(Value::Int(n))
            }
            Expr::Ite(c, p, q) => {
                if self.fold_bool(c, at)? {
                    self.fold(p, at)
                } else {
                    self.fold(q, at)
                }
            }
            Expr::Case(arms) => {
                for (g, v) in arms {
                    if self.fold_bool(g, at)? {
                        return self.fold(v, at);
                    }
                }
                None
            }
            Expr::In(x, items) => {
                let v = self.fold(x, at)?;
                for i in items {
                    if self.fold_set(i, at)?.contains(&v) {
                        return b(true);
                    }
                }
                b(false)
            }
            Expr::Set(_) => None,
        }
    }

    /// `And` (`or == false`) or `Or` (`or == true`): decided by one
    /// operand equal to `or`, or by all operands.
    fn fold_junction(&self, xs: &[Expr], at: At, or: bool) -> Option<Value> {
        let mut all = true;
        for x in xs {
            match self.fold_bool(x, at) {
                Some(v) if v == or => return Some(Value::Bool(or)),
                Some(_) => {}
                None => all = false,
            }
        }
        all.then_some(Value::Bool(!or))
    }

    /// Whether the right-hand side `e` allows `v`, if the constant copies
    /// decide it: [`Self::fold_set`] followed by `contains`, without
    /// building the list (`None` exactly when `fold_set` is `None`).
    pub fn fold_allows(&self, e: &Expr, at: At, v: &Value) -> Option<bool> {
        match e {
            Expr::Set(xs) => {
                let mut found = false;
                for x in xs {
                    found |= self.fold_allows(x, at, v)?;
                }
                Some(found)
            }
            Expr::Case(arms) => {
                for (g, val) in arms {
                    if self.fold_bool(g, at)? {
                        return self.fold_allows(val, at, v);
                    }
                }
                None
            }
            Expr::Ite(c, p, q) => {
                if self.fold_bool(c, at)? {
                    self.fold_allows(p, at, v)
                } else {
                    self.fold_allows(q, at, v)
                }
            }
            _ => Some(self.fold(e, at)? == *v),
        }
    }

    /// The values an assignment right-hand side allows (with sets), if
    /// the constant copies decide them.
    pub fn fold_set(&self, e: &Expr, at: At) -> Option<Vec<Value>> {
        match e {
            Expr::Set(xs) => {
                let mut out = Vec::with_capacity(xs.len());
                for x in xs {
                    out.extend(self.fold_set(x, at)?);
                }
                Some(out)
            }
            Expr::Case(arms) => {
                for (g, v) in arms {
                    if self.fold_bool(g, at)? {
                        return self.fold_set(v, at);
                    }
                }
                None
            }
            Expr::Ite(c, p, q) => {
                if self.fold_bool(c, at)? {
                    self.fold_set(p, at)
                } else {
                    self.fold_set(q, at)
                }
            }
            _ => Some(vec![self.fold(e, at)?]),
        }
    }
}
