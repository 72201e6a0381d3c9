//! Tseitin encoding of IR expressions over the unrolled variable copies.
//!
//! Input: an [`Expr`] and the step(s) it is read at ([`At`]). Output: a
//! [`Term`] — a literal for boolean expressions; for integer and symbolic
//! expressions either a variable copy or a *value set*, a list of
//! `(value, literal)` pairs of which exactly one literal is true in every
//! model. Arithmetic (`Add`, `Sub`, `Count`) is computed on value sets, so
//! every integer expression is encoded through the values it can take.
//!
//! Top-level constraints go through [`Unroller::assert`], which turns
//! conjunctions, implications, disjunctions and equalities into clauses
//! directly (no auxiliary variable for the constraint itself); nested
//! sub-expressions get full (two-sided) Tseitin definitions, so a literal
//! can be used under either polarity.
//!
//! Semantics follow [`System::eval`](crate::ir::System::eval), with one
//! documented strengthening: a `case` without a true guard is an
//! evaluation error, so wherever a `case` is encoded one of its guards is
//! required to hold (frontends end their cases with a `TRUE` guard).

use std::collections::BTreeMap;

use rustsat::types::Lit;

use super::cnf::Sink;
use super::unroll::{index_of, nth_value, Copy, Unroller};
use super::BmcError;
use crate::ir::{Domain, Expr, System, Value, VarId};

/// Where an expression is read: `cur` for plain variables, `next` for
/// `next(...)` (only inside transitions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct At {
    pub cur: usize,
    pub next: Option<usize>,
}

/// The SAT form of an expression.
#[derive(Clone, Debug)]
pub(crate) enum Term {
    Bool(Lit),
    /// A non-boolean variable copy at a step, plus a constant offset (0
    /// unless the variable is an integer): `x@step + offset`.
    Var(VarId, usize, i64),
    /// Exactly one of the literals is true in every model.
    Vals(Vec<(Value, Lit)>),
}

/// Why an expression could not be encoded: a message for the caller to
/// locate, or a failure of the clause sink.
#[derive(Debug)]
pub(crate) enum Fail {
    Why(String),
    Sink(BmcError),
}

impl From<BmcError> for Fail {
    fn from(e: BmcError) -> Self {
        Fail::Sink(e)
    }
}

pub(crate) type R<T> = Result<T, Fail>;

fn why<T>(msg: impl Into<String>) -> R<T> {
    Err(Fail::Why(msg.into()))
}

impl<S: Sink> Unroller<'_, S> {
    /// The literal of a boolean expression.
    pub fn lit(&mut self, e: &Expr, at: At) -> R<Lit> {
        let t = self.term(e, at)?;
        self.as_bool(&t)
    }

    fn as_bool(&mut self, t: &Term) -> R<Lit> {
        match t {
            Term::Bool(l) => Ok(*l),
            Term::Var(v, ..) => why(format!(
                "`{}` is not boolean where a condition is expected",
                self.sys.var(*v).name
            )),
            Term::Vals(vs) => {
                if let Some((v, _)) = vs.iter().find(|(v, _)| !matches!(v, Value::Bool(_))) {
                    return why(format!("`{v}` where a boolean is expected"));
                }
                let on = vs
                    .iter()
                    .find(|(v, _)| *v == Value::Bool(true))
                    .map(|(_, l)| *l);
                Ok(on.unwrap_or(!self.top()))
            }
        }
    }

    fn lits(&mut self, xs: &[Expr], at: At) -> R<Vec<Lit>> {
        xs.iter().map(|x| self.lit(x, at)).collect()
    }

    /// Encodes an expression.
    pub fn term(&mut self, e: &Expr, at: At) -> R<Term> {
        let top = self.top();
        Ok(match e {
            Expr::Const(Value::Bool(b)) => Term::Bool(self.truth(*b)),
            Expr::Const(v) => Term::Vals(vec![(v.clone(), top)]),
            Expr::Var(v) => self.var_term(*v, at.cur),
            Expr::Next(v) => match at.next {
                Some(n) => self.var_term(*v, n),
                None => {
                    return why(format!(
                        "next({}) outside a transition",
                        self.sys.var(*v).name
                    ))
                }
            },
            Expr::Define(d) => {
                if let Some(t) = self.defines.get(&(d.0, at)) {
                    return Ok(t.clone());
                }
                let sys = self.sys;
                let def = sys
                    .defines
                    .get(d.0 as usize)
                    .ok_or_else(|| Fail::Why(format!("unknown DEFINE #{}", d.0)))?;
                let t = self.term(&def.expr, at)?;
                self.defines.insert((d.0, at), t.clone());
                t
            }
            Expr::Not(a) => Term::Bool(!self.lit(a, at)?),
            Expr::And(xs) => {
                let ls = self.lits(xs, at)?;
                Term::Bool(self.and(&ls)?)
            }
            Expr::Or(xs) => {
                let ls = self.lits(xs, at)?;
                Term::Bool(self.or(&ls)?)
            }
            Expr::Implies(a, b) => {
                let (a, b) = (self.lit(a, at)?, self.lit(b, at)?);
                Term::Bool(self.or(&[!a, b])?)
            }
            Expr::Iff(a, b) => {
                let (a, b) = (self.lit(a, at)?, self.lit(b, at)?);
                Term::Bool(self.iff(a, b)?)
            }
            Expr::Eq(..) | Expr::Le(..) | Expr::Lt(..) if card_bounds(e).is_some() => {
                let Some((xs, lo, hi)) = card_bounds(e) else {
                    unreachable!()
                };
                let ls = self.lits(xs, at)?;
                Term::Bool(self.card_lit(&ls, lo, hi)?)
            }
            Expr::Eq(a, b) => Term::Bool(self.eq_expr(a, b, at)?),
            Expr::Lt(a, b) => Term::Bool(self.compare(a, b, true, at)?),
            Expr::Le(a, b) => Term::Bool(self.compare(a, b, false, at)?),
            Expr::Add(xs) => {
                let mut acc = Term::Vals(vec![(Value::Int(0), top)]);
                for x in xs {
                    let t = self.term(x, at)?;
                    acc = self.sum(&acc, &t, 1)?;
                }
                acc
            }
            Expr::Sub(a, b) => {
                let (a, b) = (self.term(a, at)?, self.term(b, at)?);
                self.sum(&a, &b, -1)?
            }
            Expr::Count(xs) => {
                let ls = self.lits(xs, at)?;
                self.count(&ls)?
            }
            Expr::Ite(c, a, b) => {
                let c = self.lit(c, at)?;
                let (a, b) = (self.term(a, at)?, self.term(b, at)?);
                self.select(&[(c, a), (!c, b)])?
            }
            Expr::Case(arms) => {
                let conds = self.case_conditions(arms, at, &[])?;
                let mut ts = Vec::with_capacity(arms.len());
                for (cond, (_, v)) in conds.iter().zip(arms) {
                    ts.push((self.and(cond)?, self.term(v, at)?));
                }
                self.select(&ts)?
            }
            Expr::In(x, set) => {
                let x = self.term(x, at)?;
                let mut ls = Vec::with_capacity(set.len());
                for s in set {
                    ls.push(self.member(&x, s, at)?);
                }
                Term::Bool(self.or(&ls)?)
            }
            Expr::Set(_) => return why("a set of values where one value is expected"),
        })
    }

    /// The constant value of a term, if it has one.
    fn as_const(&self, t: &Term) -> Option<Value> {
        match t {
            Term::Bool(l) if *l == self.top() => Some(Value::Bool(true)),
            Term::Bool(l) if *l == !self.top() => Some(Value::Bool(false)),
            Term::Vals(vs) if vs.len() == 1 && vs[0].1 == self.top() => Some(vs[0].0.clone()),
            _ => None,
        }
    }

    /// Every value a term can take, with its literal (materialises the
    /// equality literals of a variable copy).
    pub fn vals(&mut self, t: &Term) -> R<Vec<(Value, Lit)>> {
        match t {
            Term::Bool(l) => Ok(vec![(Value::Bool(false), !*l), (Value::Bool(true), *l)]),
            Term::Var(v, s, off) => {
                let dom = &self.sys.var(*v).domain;
                let values: Vec<Value> = (0..dom.size()).map(|i| nth_value(dom, i)).collect();
                let mut out = Vec::with_capacity(values.len());
                for (i, val) in values.into_iter().enumerate() {
                    let val = match val {
                        Value::Int(x) => Value::Int(x + off),
                        other => other,
                    };
                    out.push((val, self.eq_index(*v, *s, i)?));
                }
                Ok(out)
            }
            Term::Vals(vs) => Ok(vs.clone()),
        }
    }

    /// The literal "term = value".
    pub fn eq_const(&mut self, t: &Term, value: &Value) -> R<Lit> {
        let f = !self.top();
        Ok(match (t, value) {
            (Term::Bool(l), Value::Bool(b)) => {
                if *b {
                    *l
                } else {
                    !*l
                }
            }
            (Term::Bool(_), _) => f,
            (Term::Var(v, s, off), _) => {
                let value = match value {
                    Value::Int(x) => Value::Int(x - off),
                    _ if *off != 0 => return Ok(f),
                    other => other.clone(),
                };
                match index_of(&self.sys.var(*v).domain, &value) {
                    Some(i) => self.eq_index(*v, *s, i)?,
                    None => f,
                }
            }
            (Term::Vals(vs), _) => vs.iter().find(|(v, _)| v == value).map_or(f, |(_, l)| *l),
        })
    }

    /// The literal "a = b".
    pub fn eq_terms(&mut self, a: &Term, b: &Term) -> R<Lit> {
        if let (Term::Bool(x), Term::Bool(y)) = (a, b) {
            return Ok(self.iff(*x, *y)?);
        }
        if let Some(c) = self.as_const(b) {
            return self.eq_const(a, &c);
        }
        if let Some(c) = self.as_const(a) {
            return self.eq_const(b, &c);
        }
        if let (Term::Var(x, s, i), Term::Var(y, t, j)) = (a, b) {
            if x == y && s == t {
                return Ok(if i == j { self.top() } else { !self.top() });
            }
        }
        let va = self.vals(a)?;
        let mut both = Vec::new();
        for (v, la) in va {
            let lb = self.eq_const(b, &v)?;
            if lb != !self.top() {
                both.push(self.and(&[la, lb])?);
            }
        }
        Ok(self.or(&both)?)
    }

    fn eq_expr(&mut self, a: &Expr, b: &Expr, at: At) -> R<Lit> {
        if let Some(l) = self.eq_var_const(a, b, at)? {
            return Ok(l);
        }
        let (ta, tb) = (self.term(a, at)?, self.term(b, at)?);
        self.eq_terms(&ta, &tb)
    }

    /// `x = c` (either way round) for a non-boolean variable `x` and a
    /// constant `c`, straight from the copy: the literal [`Self::eq_terms`]
    /// gives on the two terms, without building them (case guards are
    /// mostly this). `None` for any other shape.
    fn eq_var_const(&mut self, a: &Expr, b: &Expr, at: At) -> R<Option<Lit>> {
        let Some((x, c)) = Expr::var_and_const(a, b) else {
            return Ok(None);
        };
        let (v, step) = match (x, at.next) {
            (Expr::Var(v), _) => (*v, at.cur),
            (Expr::Next(v), Some(n)) => (*v, n),
            _ => return Ok(None),
        };
        let dom = &self.sys.var(v).domain;
        if matches!(dom, Domain::Bool) || matches!(c, Value::Bool(_)) {
            return Ok(None);
        }
        Ok(Some(match index_of(dom, c) {
            Some(i) => self.eq_index(v, step, i)?,
            None => !self.top(),
        }))
    }

    /// Requires `guard → lo ≤ #true(ls) ≤ hi`: for short lists one clause
    /// per subset that would break a bound (no auxiliary variables), else
    /// through the counter.
    fn assert_card(&mut self, guard: &[Lit], ls: &[Lit], lo: i64, hi: i64) -> R<()> {
        let n = ls.len() as i64;
        let (lo, hi) = (lo.max(0), hi.min(n));
        if lo > hi {
            return self.clause_under(guard, &[]);
        }
        // At least `lo` true: every `n - lo + 1` of them has a true one.
        // At most `hi` true: every `hi + 1` of them has a false one.
        let small = |k: i64| k <= 0 || k > n || binomial(n as u64, k as u64) <= 64;
        if small(n - lo + 1) && small(hi + 1) {
            if lo > 0 {
                for sub in subsets(ls, (n - lo + 1) as usize) {
                    self.clause_under(guard, &sub)?;
                }
            }
            if hi < n {
                for sub in subsets(ls, (hi + 1) as usize) {
                    let neg: Vec<Lit> = sub.iter().map(|&l| !l).collect();
                    self.clause_under(guard, &neg)?;
                }
            }
            return Ok(());
        }
        let l = self.card_lit(ls, lo, hi)?;
        self.clause_under(guard, &[l])
    }

    /// The literal "`lo ≤ #true(ls) ≤ hi`".
    fn card_lit(&mut self, ls: &[Lit], lo: i64, hi: i64) -> R<Lit> {
        let n = ls.len() as i64;
        let (lo, hi) = (lo.max(0), hi.min(n));
        if lo > hi {
            return Ok(!self.top());
        }
        if lo == 0 && hi == n {
            return Ok(self.top());
        }
        if lo == n {
            return Ok(self.and(ls)?);
        }
        if hi == 0 {
            let neg: Vec<Lit> = ls.iter().map(|&l| !l).collect();
            return Ok(self.and(&neg)?);
        }
        if lo == 1 && hi == n {
            return Ok(self.or(ls)?);
        }
        // Counts above `hi` all fall outside: the counter stops at
        // `hi + 1` ("more"), n * (hi + 2) gates instead of n^2 / 2.
        let Term::Vals(counts) = self.count_capped(ls, hi as usize + 1)? else {
            unreachable!("count gives a value set")
        };
        let inside: Vec<Lit> = counts
            .iter()
            .filter(|(v, _)| matches!(v, Value::Int(j) if lo <= *j && *j <= hi))
            .map(|(_, l)| *l)
            .collect();
        Ok(self.or(&inside)?)
    }

    fn int_of(v: &Value) -> R<i64> {
        match v {
            Value::Int(i) => Ok(*i),
            other => why(format!("`{other}` where an integer is expected")),
        }
    }

    /// The value range of an order-encoded integer variable term.
    fn order_range(&self, t: &Term) -> Option<(i64, i64)> {
        let Term::Var(v, s, off) = t else {
            return None;
        };
        let Domain::Range { lo, hi } = self.sys.var(*v).domain else {
            return None;
        };
        matches!(self.copy(*v, *s), Copy::Order(_)).then_some((lo + off, hi + off))
    }

    /// The literal "t ≥ c" for an integer term.
    fn ge_const(&mut self, t: &Term, c: i64) -> R<Lit> {
        let top = self.top();
        match t {
            Term::Var(v, s, off) => {
                let Domain::Range { lo, hi } = self.sys.var(*v).domain else {
                    return why(format!("`{}` is not an integer", self.sys.var(*v).name));
                };
                let c = c - off;
                if c <= lo {
                    Ok(top)
                } else if c > hi {
                    Ok(!top)
                } else {
                    Ok(self.ge_index(*v, *s, (c - lo) as usize)?)
                }
            }
            Term::Bool(_) => why("a boolean where an integer is expected"),
            Term::Vals(vs) => {
                let mut ls = Vec::new();
                for (v, l) in vs {
                    if Self::int_of(v)? >= c {
                        ls.push(*l);
                    }
                }
                Ok(self.or(&ls)?)
            }
        }
    }

    /// The literal "a < b" (`strict`) or "a ≤ b".
    fn compare(&mut self, a: &Expr, b: &Expr, strict: bool, at: At) -> R<Lit> {
        let (ta, tb) = (self.term(a, at)?, self.term(b, at)?);
        // a < b  ⇔  b ≥ a + 1 ;  a ≤ b  ⇔  b ≥ a
        let gap = strict as i64;
        if let Some(c) = self.as_const(&tb) {
            // a < c ⇔ ¬(a ≥ c) ; a ≤ c ⇔ ¬(a ≥ c + 1)
            let c = Self::int_of(&c)?;
            return Ok(!self.ge_const(&ta, c + 1 - gap)?);
        }
        if let Some(c) = self.as_const(&ta) {
            let c = Self::int_of(&c)?;
            return self.ge_const(&tb, c + gap);
        }
        let va = self.vals(&ta)?;
        let mut ls = Vec::new();
        for (v, la) in va {
            let lb = self.ge_const(&tb, Self::int_of(&v)? + gap)?;
            ls.push(self.and(&[la, lb])?);
        }
        Ok(self.or(&ls)?)
    }

    /// The value set of `a + sign·b`.
    fn sum(&mut self, a: &Term, b: &Term, sign: i64) -> R<Term> {
        let top = self.top();
        // A variable plus a constant stays a variable (with an offset).
        match (a, b, self.as_const(a), self.as_const(b)) {
            (Term::Var(v, s, off), _, _, Some(Value::Int(c))) => {
                return Ok(Term::Var(*v, *s, off + sign * c))
            }
            (_, Term::Var(v, s, off), Some(Value::Int(c)), _) if sign > 0 => {
                return Ok(Term::Var(*v, *s, off + c))
            }
            _ => {}
        }
        if let Some(c) = self.as_const(a) {
            let c = Self::int_of(&c)?;
            let vb = self.vals(b)?;
            let mut out = Vec::with_capacity(vb.len());
            for (v, l) in vb {
                out.push((Value::Int(c + sign * Self::int_of(&v)?), l));
            }
            if sign < 0 {
                out.reverse();
            }
            return Ok(Term::Vals(out));
        }
        if let Some(c) = self.as_const(b) {
            let c = sign * Self::int_of(&c)?;
            let va = self.vals(a)?;
            let mut out = Vec::with_capacity(va.len());
            for (v, l) in va {
                out.push((Value::Int(Self::int_of(&v)? + c), l));
            }
            return Ok(Term::Vals(out));
        }
        let (va, vb) = (self.vals(a)?, self.vals(b)?);
        let mut by_sum: BTreeMap<i64, Vec<Lit>> = BTreeMap::new();
        for (x, lx) in &va {
            let x = Self::int_of(x)?;
            for (y, ly) in &vb {
                let s = x + sign * Self::int_of(y)?;
                let both = self.and(&[*lx, *ly])?;
                if both != !top {
                    by_sum.entry(s).or_default().push(both);
                }
            }
        }
        let mut out = Vec::with_capacity(by_sum.len());
        for (s, ls) in by_sum {
            out.push((Value::Int(s), self.or(&ls)?));
        }
        Ok(Term::Vals(out))
    }

    /// The value set of the number of true literals (a unary counter:
    /// `cnt[j]` = exactly `j` of the literals seen so far are true).
    fn count(&mut self, ls: &[Lit]) -> R<Term> {
        self.count_capped(ls, usize::MAX)
    }

    /// [`Self::count`] where every count of at least `cap` is one value,
    /// `cap` itself (a unary counter that stops there).
    fn count_capped(&mut self, ls: &[Lit], cap: usize) -> R<Term> {
        let top = self.top();
        let offset = ls.iter().filter(|&&l| l == top).count() as i64;
        let cap = cap.saturating_sub(offset as usize);
        let mut cnt = vec![top];
        for &x in ls.iter().filter(|&&l| l != top && l != !top) {
            let mut nxt = Vec::with_capacity(cnt.len() + 1);
            let last = cnt.len().min(cap);
            for j in 0..=last {
                let stay = match cnt.get(j) {
                    Some(&c) if j == cap => c,
                    Some(&c) => self.and(&[c, !x])?,
                    None => !top,
                };
                let step = match j.checked_sub(1) {
                    Some(p) => self.and(&[cnt[p], x])?,
                    None => !top,
                };
                nxt.push(self.or(&[stay, step])?);
            }
            cnt = nxt;
        }
        Ok(Term::Vals(
            cnt.into_iter()
                .enumerate()
                .map(|(j, l)| (Value::Int(offset + j as i64), l))
                .collect(),
        ))
    }

    /// The term that is `t_i` where `a_i` holds; the `a_i` must be
    /// mutually exclusive and one of them must hold.
    fn select(&mut self, arms: &[(Lit, Term)]) -> R<Term> {
        if arms.iter().all(|(_, t)| matches!(t, Term::Bool(_))) {
            let mut ls = Vec::with_capacity(arms.len());
            for (a, t) in arms {
                let Term::Bool(l) = t else { unreachable!() };
                ls.push(self.and(&[*a, *l])?);
            }
            return Ok(Term::Bool(self.or(&ls)?));
        }
        let mut values: Vec<Value> = Vec::new();
        for (_, t) in arms {
            for (v, _) in self.vals(t)? {
                if !values.contains(&v) {
                    values.push(v);
                }
            }
        }
        values.sort();
        let mut out = Vec::with_capacity(values.len());
        for v in values {
            let mut ls = Vec::new();
            for (a, t) in arms {
                let l = self.eq_const(t, &v)?;
                ls.push(self.and(&[*a, l])?);
            }
            out.push((v, self.or(&ls)?));
        }
        Ok(Term::Vals(out))
    }

    /// For each arm of a case, literals whose conjunction says "this arm
    /// is taken" (its guard holds and no earlier one does). Also requires
    /// (under `guard`) that some guard holds. A run of guards `x = c1`,
    /// `x = c2`, … on one variable with distinct constants is exclusive
    /// already, so inside such a run an arm needs only its own guard and
    /// "no guard of an earlier run holds".
    /// A condition is two literals, `TRUE` where there is only one or none
    /// (every user drops `TRUE` from a conjunction or a guard).
    fn case_conditions(
        &mut self,
        arms: &[(Expr, Expr)],
        at: At,
        guard: &[Lit],
    ) -> R<Vec<[Lit; 2]>> {
        let top = self.top();
        let mut gs = Vec::with_capacity(arms.len());
        for (g, _) in arms {
            gs.push(self.lit(g, at)?);
        }
        let mut exhaustive: Vec<Lit> = guard.iter().map(|&l| !l).collect();
        exhaustive.extend(&gs);
        self.clause(&exhaustive)?;
        let runs = exclusive_runs(self.sys, arms);
        let mut conds = Vec::with_capacity(arms.len());
        let mut none_before = top;
        for (r, run) in runs.iter().enumerate() {
            for &g in &gs[run.clone()] {
                conds.push([none_before, g]);
            }
            if r + 1 < runs.len() {
                // A run that names every value its variable can have
                // here always holds (exactly one value does): the arms
                // after it are dead.
                if self.run_covers(&arms[run.start].0, &gs[run.clone()], at)? {
                    none_before = !top;
                    continue;
                }
                let any = self.or(&gs[run.clone()])?;
                none_before = self.and(&[none_before, !any])?;
            }
        }
        Ok(conds)
    }

    /// Whether the guards `lits` of a run whose first guard is `first`
    /// (`x = c`) include the literal of every value `x` can have at `at`.
    fn run_covers(&mut self, first: &Expr, lits: &[Lit], at: At) -> R<bool> {
        let Expr::Eq(a, b) = first else {
            return Ok(false);
        };
        let x = match (a.as_ref(), b.as_ref()) {
            (x @ (Expr::Var(_) | Expr::Next(_)), Expr::Const(_))
            | (Expr::Const(_), x @ (Expr::Var(_) | Expr::Next(_))) => x,
            _ => return Ok(false),
        };
        let t = self.term(x, at)?;
        let no = !self.top();
        // Sorted, not hashed: a run names every value of a transition
        // table's variable (a cell per arm).
        let mut named = lits.to_vec();
        named.sort_unstable();
        Ok(self
            .vals(&t)?
            .iter()
            .all(|(_, l)| *l == no || named.binary_search(l).is_ok()))
    }

    /// The literal "the value of `x` is allowed by `rhs`" (an assignment's
    /// right-hand side, possibly a set or a case of sets).
    pub fn member(&mut self, x: &Term, rhs: &Expr, at: At) -> R<Lit> {
        match rhs {
            Expr::Set(xs) => {
                let mut ls = Vec::with_capacity(xs.len());
                for e in xs {
                    ls.push(self.member(x, e, at)?);
                }
                Ok(self.or(&ls)?)
            }
            Expr::Case(arms) => {
                let conds = self.case_conditions(arms, at, &[])?;
                let mut ls = Vec::with_capacity(arms.len());
                for ([a, b], (_, v)) in conds.into_iter().zip(arms) {
                    let m = self.member(x, v, at)?;
                    ls.push(self.and(&[a, b, m])?);
                }
                Ok(self.or(&ls)?)
            }
            Expr::Ite(c, p, q) => {
                let c = self.lit(c, at)?;
                let (mp, mq) = (self.member(x, p, at)?, self.member(x, q, at)?);
                let (a, b) = (self.and(&[c, mp])?, self.and(&[!c, mq])?);
                Ok(self.or(&[a, b])?)
            }
            _ => {
                let t = self.term(rhs, at)?;
                self.eq_terms(x, &t)
            }
        }
    }

    /// Adds the clause `guard → lits` (that is, `¬guard ∨ lits`).
    fn clause_under(&mut self, guard: &[Lit], lits: &[Lit]) -> R<()> {
        Ok(self.add_clause_under(guard, lits)?)
    }

    /// `guard ∧ cond` as a guard; no allocation for the usual empty
    /// `guard`.
    fn and_guard<'g>(guard: &'g [Lit], cond: &'g [Lit; 2]) -> std::borrow::Cow<'g, [Lit]> {
        if guard.is_empty() {
            std::borrow::Cow::Borrowed(cond)
        } else {
            std::borrow::Cow::Owned([guard, cond].concat())
        }
    }

    fn with(guard: &[Lit], l: Lit) -> Vec<Lit> {
        let mut g = guard.to_vec();
        g.push(l);
        g
    }

    /// Requires `guard → x ∈ rhs` for an assignment `x := rhs`.
    pub fn assert_member(&mut self, guard: &[Lit], x: &Term, rhs: &Expr, at: At) -> R<()> {
        // A false guard: every clause would be dropped (a dead case arm).
        if guard.contains(&!self.top()) {
            return Ok(());
        }
        if let Some(v) = self.as_const(x) {
            if let Some(allowed) = self.fold_allows(rhs, at, &v) {
                return match allowed {
                    true => Ok(()),
                    false => self.clause_under(guard, &[]),
                };
            }
        }
        match rhs {
            Expr::Case(arms) => {
                let conds = self.case_conditions(arms, at, guard)?;
                for (cond, (_, v)) in conds.iter().zip(arms) {
                    self.assert_member(&Self::and_guard(guard, cond), x, v, at)?;
                }
                self.assert_support(guard, x, arms, at)
            }
            Expr::Ite(c, p, q) => {
                let c = self.lit(c, at)?;
                self.assert_member(&Self::with(guard, c), x, p, at)?;
                self.assert_member(&Self::with(guard, !c), x, q, at)
            }
            Expr::Set(xs) => {
                let mut ls = Vec::with_capacity(xs.len());
                for e in xs {
                    ls.push(self.member(x, e, at)?);
                }
                self.clause_under(guard, &ls)
            }
            _ => {
                let t = self.term(rhs, at)?;
                self.assert_eq_under(guard, x, &t)
            }
        }
    }

    /// Redundant "support" clauses of a case assignment `x := case …`:
    /// `x = v` only if some arm allows `v`. They follow from the forward
    /// clauses (exactly one arm is taken, and `x` is in its set), but let
    /// unit propagation run forwards through a transition table (`pos = 3`
    /// rules out every `next(pos)` not adjacent to 3), not only backwards.
    /// An arm's support for `v` is a single literal implied by "the arm is
    /// taken and allows `v`": its guard for a constant set containing `v`,
    /// `y = v` for an arm whose value is the variable `y`. Cases with other
    /// arm values get no support clauses (they would need new variables).
    fn assert_support(&mut self, guard: &[Lit], x: &Term, arms: &[(Expr, Expr)], at: At) -> R<()> {
        let Term::Var(var, _, off) = *x else {
            return Ok(());
        };
        let values = self.vals(x)?;
        let no = !self.top();
        let dom = &self.sys.var(var).domain;
        // Only values `x` can take get a clause, and a false support
        // literal would be dropped from it: neither is collected. The
        // slot of a value is its index in `values` (`x` is the copy of
        // `var` plus `off`).
        let live = |v: &Value| {
            let j = match v {
                Value::Int(c) => index_of(dom, &Value::Int(c - off)),
                other => index_of(dom, other),
            }?;
            (values.get(j)?.1 != no).then_some(j)
        };
        let live_const = |c: &Expr| match c {
            Expr::Const(v) => live(v),
            _ => None,
        };
        // `(slot, literal)`: one clause per slot, the literals in any
        // order (a clause is sorted before it is added).
        let mut support: Vec<(usize, Lit)> = Vec::new();
        for (g, value) in arms {
            if is_constant_rhs(value) {
                // Called for every arm all the same: `lit` may make gates,
                // and the variable numbering stays as it was.
                let g = self.lit(g, at)?;
                if g == no {
                    continue;
                }
                let consts = match value {
                    Expr::Set(xs) => xs.as_slice(),
                    one => std::slice::from_ref(one),
                };
                for c in consts {
                    if let Some(j) = live_const(c) {
                        support.push((j, g));
                    }
                }
                continue;
            }
            let t = match value {
                Expr::Var(_) | Expr::Next(_) => self.term(value, at)?,
                _ => return Ok(()),
            };
            for (j, (v, xl)) in values.iter().enumerate() {
                let l = self.eq_const(&t, v)?;
                if l != no && *xl != no {
                    support.push((j, l));
                }
            }
        }
        support.sort_by_key(|&(j, _)| j);
        let mut c = Vec::new();
        let mut next = support.iter().peekable();
        for (j, (_, xl)) in values.iter().enumerate() {
            if *xl == no {
                continue;
            }
            c.clear();
            c.push(!*xl);
            while let Some(&(_, l)) = next.next_if(|&&(k, _)| k == j) {
                c.push(l);
            }
            self.clause_under(guard, &c)?;
        }
        Ok(())
    }

    /// Requires `guard → a = b` with one clause per value of `b` (valid
    /// because exactly one value literal of `b` is true).
    fn assert_eq_under(&mut self, guard: &[Lit], a: &Term, b: &Term) -> R<()> {
        if let (Term::Bool(x), Term::Bool(y)) = (a, b) {
            self.clause_under(guard, &[!*x, *y])?;
            return self.clause_under(guard, &[*x, !*y]);
        }
        if let Some(c) = self.as_const(b) {
            let l = self.eq_const(a, &c)?;
            return self.clause_under(guard, &[l]);
        }
        if let Some(c) = self.as_const(a) {
            let l = self.eq_const(b, &c)?;
            return self.clause_under(guard, &[l]);
        }
        if let (Some((lo_a, hi_a)), Some((lo_b, hi_b))) = (self.order_range(a), self.order_range(b))
        {
            // Order encodings: a = b iff a ≥ t ⇔ b ≥ t for every t (a
            // pair of literals repeated across pruned holes said once).
            let mut last = None;
            for t in lo_a.min(lo_b)..=hi_a.max(hi_b) + 1 {
                let (x, y) = (self.ge_const(a, t)?, self.ge_const(b, t)?);
                if last.replace((x, y)) == Some((x, y)) {
                    continue;
                }
                self.clause_under(guard, &[!x, y])?;
                self.clause_under(guard, &[x, !y])?;
            }
            return Ok(());
        }
        for (v, lb) in self.vals(b)? {
            if lb == !self.top() {
                continue;
            }
            let la = self.eq_const(a, &v)?;
            self.clause_under(guard, &[!lb, la])?;
        }
        Ok(())
    }

    /// Requires the boolean expression `e` (at top level: no auxiliary
    /// variable for the constraint itself where clauses say it directly).
    pub fn assert(&mut self, e: &Expr, at: At) -> R<()> {
        self.assert_under(&[], e, at)
    }

    fn assert_under(&mut self, guard: &[Lit], e: &Expr, at: At) -> R<()> {
        // A false guard: every clause would be dropped.
        if guard.contains(&!self.top()) {
            return Ok(());
        }
        let folded = match e {
            // Their operands are folded one by one, once (see below).
            Expr::And(_) | Expr::Or(_) => None,
            _ => self.fold_bool(e, at),
        };
        self.assert_folded(guard, e, at, folded)
    }

    /// [`Self::assert_under`] once `e` is folded (`folded`; `None` is not
    /// trusted for a junction, whose operands are folded here): decided
    /// by the constant copies, it is nothing to encode, or "the guard is
    /// false".
    fn assert_folded(&mut self, guard: &[Lit], e: &Expr, at: At, folded: Option<bool>) -> R<()> {
        match folded {
            Some(true) => return Ok(()),
            Some(false) => return self.clause_under(guard, &[]),
            None => {}
        }
        match e {
            Expr::Const(Value::Bool(true)) => Ok(()),
            Expr::And(xs) => self.assert_junction(guard, xs, at, false),
            Expr::Or(xs) => self.assert_junction(guard, xs, at, true),
            Expr::Implies(a, b) => {
                let a = self.lit(a, at)?;
                self.assert_under(&Self::with(guard, a), b, at)
            }
            Expr::Not(inner) => match inner.as_ref() {
                Expr::Or(xs) => {
                    for x in xs {
                        let l = self.lit(x, at)?;
                        self.clause_under(guard, &[!l])?;
                    }
                    Ok(())
                }
                Expr::Not(x) => self.assert_under(guard, x, at),
                Expr::Implies(a, b) => {
                    let (a, b) = (self.lit(a, at)?, self.lit(b, at)?);
                    self.clause_under(guard, &[a])?;
                    self.clause_under(guard, &[!b])
                }
                Expr::And(xs) => {
                    let ls: Vec<Lit> = self.lits(xs, at)?.into_iter().map(|l| !l).collect();
                    self.clause_under(guard, &ls)
                }
                _ => {
                    let l = self.lit(inner, at)?;
                    self.clause_under(guard, &[!l])
                }
            },
            Expr::Define(d) => {
                let sys = self.sys;
                match sys.defines.get(d.0 as usize) {
                    Some(def) => self.assert_under(guard, &def.expr, at),
                    None => why(format!("unknown DEFINE #{}", d.0)),
                }
            }
            Expr::Eq(..) | Expr::Le(..) | Expr::Lt(..) if card_bounds(e).is_some() => {
                let Some((xs, lo, hi)) = card_bounds(e) else {
                    unreachable!()
                };
                let ls = self.lits(xs, at)?;
                self.assert_card(guard, &ls, lo, hi)
            }
            Expr::Eq(a, b) => {
                let (ta, tb) = (self.term(a, at)?, self.term(b, at)?);
                self.assert_eq_under(guard, &ta, &tb)
            }
            Expr::Lt(a, b) | Expr::Le(a, b) => {
                let (ta, tb) = (self.term(a, at)?, self.term(b, at)?);
                match (self.order_range(&ta), self.order_range(&tb)) {
                    (Some((lo, hi)), Some(_)) => {
                        // a + gap ≤ b iff a ≥ t ⇒ b ≥ t + gap for every t.
                        let gap = matches!(e, Expr::Lt(..)) as i64;
                        let mut pairs: Vec<(Lit, Lit)> = Vec::new();
                        for t in lo..=hi {
                            let pair = (self.ge_const(&ta, t)?, self.ge_const(&tb, t + gap)?);
                            if pairs.last() != Some(&pair) {
                                pairs.push(pair);
                            }
                        }
                        for (x, y) in strongest_implications(&pairs) {
                            self.clause_under(guard, &[!x, y])?;
                        }
                        Ok(())
                    }
                    _ => {
                        let l = self.lit(e, at)?;
                        self.clause_under(guard, &[l])
                    }
                }
            }
            Expr::Iff(a, b) => {
                let (a, b) = (self.lit(a, at)?, self.lit(b, at)?);
                self.clause_under(guard, &[!a, b])?;
                self.clause_under(guard, &[a, !b])
            }
            Expr::Ite(c, p, q) => {
                let c = self.lit(c, at)?;
                self.assert_under(&Self::with(guard, c), p, at)?;
                self.assert_under(&Self::with(guard, !c), q, at)
            }
            Expr::Case(arms) => {
                let conds = self.case_conditions(arms, at, guard)?;
                for (cond, (_, v)) in conds.iter().zip(arms) {
                    self.assert_under(&Self::and_guard(guard, cond), v, at)?;
                }
                Ok(())
            }
            Expr::In(x, set) => {
                let x = self.term(x, at)?;
                let mut ls = Vec::with_capacity(set.len());
                for s in set {
                    ls.push(self.member(&x, s, at)?);
                }
                self.clause_under(guard, &ls)
            }
            _ => {
                let l = self.lit(e, at)?;
                self.clause_under(guard, &[l])
            }
        }
    }
}

impl<S: Sink> Unroller<'_, S> {
    /// Requires `guard → xs₁ ∧ xs₂ ∧ …` (`or == false`) or `guard → xs₁ ∨
    /// xs₂ ∨ …` (`or == true`). Each operand is folded once, and the
    /// junction is decided as folding decides it (an
    /// operand equal to `or` decides; all decided decides); the open
    /// operands are then encoded without folding them again.
    fn assert_junction(&mut self, guard: &[Lit], xs: &[Expr], at: At, or: bool) -> R<()> {
        // Operands' folds live on a stack shared with nested junctions.
        let base = self.folds.len();
        let mut open = false;
        for x in xs {
            let f = self.fold_bool(x, at);
            if f == Some(or) {
                self.folds.truncate(base);
                return match or {
                    true => Ok(()),
                    false => self.clause_under(guard, &[]),
                };
            }
            open |= f.is_none();
            self.folds.push(f);
        }
        let result = match (open, or) {
            (false, true) => self.clause_under(guard, &[]),
            (false, false) => Ok(()),
            (true, false) => (0..xs.len()).try_for_each(|j| {
                let f = self.folds[base + j];
                self.assert_folded(guard, &xs[j], at, f)
            }),
            (true, true) => self.assert_disjunction(guard, xs, at, base),
        };
        self.folds.truncate(base);
        result
    }

    /// `guard → xs₁ ∨ xs₂ ∨ …` with the operands' folds at `folds[base..]`,
    /// none true. `a | (b & c)`: assert `b & c` under `!a` (no variable
    /// for the conjunction).
    fn assert_disjunction(&mut self, guard: &[Lit], xs: &[Expr], at: At, base: usize) -> R<()> {
        if let Some(i) = xs.iter().position(is_conjunction) {
            let mut g = guard.to_vec();
            for (j, x) in xs.iter().enumerate() {
                if j != i {
                    g.push(!self.lit(x, at)?);
                }
            }
            if g.contains(&!self.top()) {
                return Ok(());
            }
            let f = self.folds[base + i];
            return self.assert_folded(&g, &xs[i], at, f);
        }
        let ls = self.lits(xs, at)?;
        self.clause_under(guard, &ls)
    }
}

/// Whether asserting `e` splits into several clauses (so that inside a
/// disjunction it is better asserted under the other disjuncts' negation).
fn is_conjunction(e: &Expr) -> bool {
    match e {
        Expr::And(_) | Expr::Implies(..) | Expr::Iff(..) | Expr::Case(_) | Expr::Ite(..) => true,
        Expr::Not(inner) => matches!(inner.as_ref(), Expr::Or(_) | Expr::Implies(..)),
        _ => false,
    }
}

/// The implications `x ⇒ y` among `pairs` that the others do not imply.
/// `pairs` are `(a ≥ t, b ≥ t + gap)` for growing `t`, consecutive
/// duplicates removed: a value a domain leaves out makes `≥ t` and `≥ t +
/// 1` one literal. Both sides weaken as `t` grows, so of two neighbours
/// with the same `x` the later (stronger `y`) implies the earlier, and of
/// two with the same `y` the earlier (weaker `x`) implies the later; the
/// ones kept are those that neither neighbour implies. (Two neighbours
/// never share both, so no implication is dropped twice over.)
fn strongest_implications(pairs: &[(Lit, Lit)]) -> impl Iterator<Item = (Lit, Lit)> + '_ {
    (0..pairs.len()).filter_map(move |i| {
        let (x, y) = pairs[i];
        let later_same_x = pairs.get(i + 1).is_some_and(|p| p.0 == x);
        let earlier_same_y = i > 0 && pairs[i - 1].1 == y;
        (!later_same_x && !earlier_same_y).then_some((x, y))
    })
}

/// `Count(xs) = c`, `Count(xs) ≤ c`, `c < Count(xs)`, …: the operands and
/// the allowed range `[lo, hi]` of the count.
fn card_bounds(e: &Expr) -> Option<(&[Expr], i64, i64)> {
    let (a, b, strict, eq) = match e {
        Expr::Eq(a, b) => (a, b, false, true),
        Expr::Le(a, b) => (a, b, false, false),
        Expr::Lt(a, b) => (a, b, true, false),
        _ => return None,
    };
    let gap = strict as i64;
    match (a.as_ref(), b.as_ref()) {
        (Expr::Count(xs), Expr::Const(Value::Int(c))) => {
            Some((xs, if eq { *c } else { i64::MIN }, *c - gap))
        }
        (Expr::Const(Value::Int(c)), Expr::Count(xs)) => {
            Some((xs, *c + gap, if eq { *c } else { i64::MAX }))
        }
        _ => None,
    }
}

/// `n` choose `k`, saturating.
fn binomial(n: u64, k: u64) -> u64 {
    let k = k.min(n - k.min(n));
    (0..k).fold(1u64, |acc, i| acc.saturating_mul(n - i) / (i + 1))
}

/// Every `k`-element subset of `xs`, in lexicographic order of positions.
fn subsets(xs: &[Lit], k: usize) -> Vec<Vec<Lit>> {
    let mut out = Vec::new();
    let mut pick: Vec<usize> = (0..k).collect();
    if k > xs.len() {
        return out;
    }
    loop {
        out.push(pick.iter().map(|&i| xs[i]).collect());
        let Some(i) = (0..k).rev().find(|&i| pick[i] < xs.len() - k + i) else {
            return out;
        };
        pick[i] += 1;
        for j in i + 1..k {
            pick[j] = pick[j - 1] + 1;
        }
    }
}

/// Whether an assignment right-hand side is a constant or a set of
/// constants.
fn is_constant_rhs(e: &Expr) -> bool {
    match e {
        Expr::Const(_) => true,
        Expr::Set(xs) => xs.iter().all(|x| matches!(x, Expr::Const(_))),
        _ => false,
    }
}

/// The arms of a case split into runs (as index ranges): a run is either
/// one arm, or consecutive arms whose guards are equalities of one
/// variable (current or next) with pairwise distinct constants, so that
/// at most one guard of the run holds.
fn exclusive_runs(sys: &System, arms: &[(Expr, Expr)]) -> Vec<std::ops::Range<usize>> {
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    let mut subject: Option<&Expr> = None;
    let mut seen = RunConsts::default();
    for (i, (g, _)) in arms.iter().enumerate() {
        let eq = g.as_var_eq_const();
        match (eq, runs.last_mut()) {
            (Some((x, c)), Some(run)) if subject == Some(x) && seen.insert(sys, x, c) => {
                run.end = i + 1;
            }
            _ => {
                subject = eq.map(|(x, _)| x);
                seen.clear();
                if let Some((x, c)) = eq {
                    seen.insert(sys, x, c);
                }
                runs.push(i..i + 1);
            }
        }
    }
    runs
}

/// The constants of a run of `x = c` guards: by value index in the
/// domain of `x`, and the (rare) ones outside it by value. (A hash set
/// of the values cost ~300 instructions a guard, and a case is split at
/// every frame it is encoded at.)
#[derive(Default)]
struct RunConsts<'e> {
    by_index: Vec<bool>,
    outside: Vec<&'e Value>,
}

impl<'e> RunConsts<'e> {
    fn clear(&mut self) {
        self.by_index.clear();
        self.outside.clear();
    }

    /// Adds the constant `c` that `x` (a variable or `next(...)`) is
    /// compared with: whether it was new.
    fn insert(&mut self, sys: &System, x: &Expr, c: &'e Value) -> bool {
        let dom = match x {
            Expr::Var(v) | Expr::Next(v) => sys.vars.get(v.index()).map(|var| &var.domain),
            _ => None,
        };
        match dom.and_then(|d| index_of(d, c)) {
            Some(j) => {
                if j >= self.by_index.len() {
                    self.by_index.resize(j + 1, false);
                }
                !std::mem::replace(&mut self.by_index[j], true)
            }
            None if self.outside.contains(&c) => false,
            None => {
                self.outside.push(c);
                true
            }
        }
    }
}
