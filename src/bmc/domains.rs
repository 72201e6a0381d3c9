//! Static domain pruning: the values each variable can still take at each
//! step of an unrolling of known length, found by propagating the IR's
//! constraints over per-variable value sets (forward images of the
//! assignments, backward support through the transitions, the invariants
//! and the goal at the last step).
//!
//! Input: a [`System`] and a bound `k` (frames `0..=k`, goal at `k`).
//! Output: [`Domains`], for every variable and step the allowed value
//! indices (0-based, in [`Domain::values`] order); frozen variables have
//! one set, shared by all steps.
//!
//! Invariants: the analysis is an over-approximation (non-relational
//! abstract interpretation, then arc consistency per step): every value a
//! variable has at some step of some solution of length `k` stays allowed.
//! Encoding only the allowed values therefore neither adds nor removes a
//! solution. The work is capped ([`BUDGET`] expression nodes); stopping
//! early only leaves sets larger, which is still sound.
//!
//! What keeps it cheap (none of it changes the result): a support check is
//! skipped when no copy it reads has lost a value since it last ran; a
//! constraint that holds whatever the values is never looked at again; an
//! image is recomputed only when its inputs changed; a run of `x = c`
//! guards in a `case` is a table look-up on `x`.

use super::analyse::reads;
use super::unroll::FxMap;
use crate::ir::{Domain, Expr, System, Value, VarId};
use std::rc::Rc;

/// The most expression nodes the analysis evaluates (a few hundred
/// milliseconds in a release build).
pub(crate) const BUDGET: u64 = 60_000_000;

/// A constraint is split into conjuncts ("atoms") so a support check only
/// evaluates the ones that read the variable under test.
fn atoms(e: &Expr, sys: &System, out: &mut Vec<Expr>) {
    match e {
        Expr::And(xs) => xs.iter().for_each(|x| atoms(x, sys, out)),
        Expr::Define(d) => match sys.defines.get(d.0 as usize) {
            Some(def) if matches!(def.expr, Expr::And(_)) => atoms(&def.expr, sys, out),
            _ => out.push(e.clone()),
        },
        // `a | (b1 & b2 & …)` with a small `a`: `(a | b1) & (a | b2) & …`.
        Expr::Or(xs) if xs.len() == 2 && matches!(xs[1], Expr::And(_)) => {
            let mut inner = Vec::new();
            atoms(&xs[1], sys, &mut inner);
            out.extend(inner.into_iter().map(|b| Expr::Or(vec![xs[0].clone(), b])));
        }
        _ => out.push(e.clone()),
    }
}

/// An abstract value: what an expression may evaluate to.
#[derive(Clone, Debug)]
enum Abs {
    /// A boolean that may be true (`t`) and/or may be false (`f`).
    B { t: bool, f: bool },
    /// One of these non-boolean values (sorted, no duplicates).
    V(Vec<Value>),
    /// Some integer in `lo..=hi`.
    R(i64, i64),
    /// Anything.
    Top,
}

const EITHER: Abs = Abs::B { t: true, f: true };

impl Abs {
    fn truth(&self) -> (bool, bool) {
        match self {
            Abs::B { t, f } => (*t, *f),
            Abs::V(vs) => (
                vs.contains(&Value::Bool(true)),
                vs.contains(&Value::Bool(false)),
            ),
            Abs::R(..) => (false, false),
            Abs::Top => (true, true),
        }
    }

    /// Integer bounds; `None` when unknown (or not integers).
    fn bounds(&self) -> Option<(i64, i64)> {
        match self {
            Abs::R(lo, hi) => Some((*lo, *hi)),
            Abs::V(vs) => {
                let mut out: Option<(i64, i64)> = None;
                for v in vs {
                    let Value::Int(i) = v else { return None };
                    let (lo, hi) = out.unwrap_or((*i, *i));
                    out = Some((lo.min(*i), hi.max(*i)));
                }
                out
            }
            _ => None,
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            Abs::B { t, f } => !t && !f,
            Abs::V(vs) => vs.is_empty(),
            Abs::R(lo, hi) => lo > hi,
            Abs::Top => false,
        }
    }

    /// Whether the concrete `v` is a possible value.
    fn admits(&self, v: &Value) -> bool {
        match (self, v) {
            (Abs::Top, _) => true,
            (Abs::B { t, f }, Value::Bool(b)) => {
                if *b {
                    *t
                } else {
                    *f
                }
            }
            (Abs::V(vs), _) => vs.binary_search(v).is_ok(),
            (Abs::R(lo, hi), Value::Int(i)) => lo <= i && i <= hi,
            _ => false,
        }
    }

    fn join(self, other: Abs) -> Abs {
        if self.is_empty() {
            return other;
        }
        if other.is_empty() {
            return self;
        }
        match (self, other) {
            (Abs::B { t, f }, Abs::B { t: t2, f: f2 }) => Abs::B {
                t: t || t2,
                f: f || f2,
            },
            (Abs::V(mut a), Abs::V(b)) => {
                a.extend(b);
                a.sort();
                a.dedup();
                Abs::V(a)
            }
            (a, b) => match (a.bounds(), b.bounds()) {
                (Some((l1, h1)), Some((l2, h2))) => Abs::R(l1.min(l2), h1.max(h2)),
                _ => Abs::Top,
            },
        }
    }
}

/// A union of many abstract values, sorted once at the end.
#[derive(Default)]
struct Acc {
    vals: Vec<Value>,
    rest: Option<Abs>,
}

impl Acc {
    fn add(&mut self, a: Abs) {
        match a {
            Abs::V(vs) => self.vals.extend(vs),
            a => {
                let rest = self.rest.take().unwrap_or(b(false, false));
                self.rest = Some(rest.join(a));
            }
        }
    }

    fn finish(mut self) -> Abs {
        self.vals.sort();
        self.vals.dedup();
        let vals = Abs::V(self.vals);
        match self.rest {
            Some(rest) => rest.join(vals),
            None => vals,
        }
    }
}

fn b(t: bool, f: bool) -> Abs {
    Abs::B { t, f }
}

/// Allowed values per variable and step.
#[derive(Clone, Debug)]
pub(crate) struct Domains {
    /// The allowed value indices, flat: index `i` of `var` at `step` is
    /// `bits[step * frame + base[var] + i]`; frozen variables only at
    /// step 0.
    bits: Vec<bool>,
    base: Vec<usize>,
    frame: usize,
    steps: usize,
    /// `counts[step * vars + var]`: number of allowed values.
    counts: Vec<usize>,
    /// `single[step * vars + var]`: the one allowed index, when only one
    /// is left.
    single: Vec<Option<usize>>,
    frozen: Vec<bool>,
    /// Every variable's domain values, in order.
    values: Vec<Vec<Value>>,
    /// Expression nodes evaluated.
    pub work: u64,
    /// Counts removals (from 1): `changed[step][var]` is the tick of the
    /// copy's last removal, `checked[step * slots + slot]` the tick at
    /// which a use of a variable was last checked (0: never).
    tick: u64,
    changed: Vec<Vec<u64>>,
    checked: Vec<u64>,
    slots: usize,
    /// Per constraint atom and step ([`Model::invar_key`] and friends):
    /// it holds whatever the values (see [`Domains::entails`]).
    entailed: Vec<bool>,
    /// Per key: the tick at which the atom was last found not entailed.
    entail_seen: Vec<u64>,
    /// Per assignment and step: the tick of the last image (0: never);
    /// initial assignments first, then next assignments by target step.
    imaged: Vec<u64>,
    /// The exclusive runs of the `case` expressions of the system, by the
    /// address of their arms (built by [`Domains::compute`], dropped after).
    cases: FxMap<usize, Rc<[Run]>>,
}

/// Consecutive arms of a `case` whose guards are `x = c` for one variable
/// copy `x` and distinct constants: at most one of them holds, and which
/// one is a table look-up on the value of `x`.
#[derive(Clone, Debug)]
struct Run {
    arms: std::ops::Range<usize>,
    /// The copy: `x` (`next == false`) or `next(x)`.
    var: VarId,
    next: bool,
    /// `arm[j]`: the arm whose guard is `x = value j`, if any.
    arm: Vec<Option<u32>>,
    /// The value indices some guard of the run tests.
    hits: Vec<usize>,
}

/// The runs of every `case` below `e` (through DEFINEs once).
fn index_cases(sys: &System, e: &Expr, out: &mut FxMap<usize, Rc<[Run]>>) {
    e.visit(&mut |x| {
        if let Expr::Case(arms) = x {
            out.entry(arms.as_ptr() as usize)
                .or_insert_with(|| case_runs(sys, arms).into());
        }
    });
}

/// The guard `x = c` (either way round) as `(var, is_next, value index)`;
/// the index is `None` when `c` is not in the domain (the guard never
/// holds).
fn eq_guard(sys: &System, g: &Expr) -> Option<(VarId, bool, Option<usize>)> {
    let Expr::Eq(a, b) = g else { return None };
    let (x, c) = match (a.as_ref(), b.as_ref()) {
        (x @ (Expr::Var(_) | Expr::Next(_)), Expr::Const(c)) => (x, c),
        (Expr::Const(c), x @ (Expr::Var(_) | Expr::Next(_))) => (x, c),
        _ => return None,
    };
    let (v, next) = match x {
        Expr::Var(v) => (*v, false),
        Expr::Next(v) => (*v, true),
        _ => return None,
    };
    let dom = &sys.vars.get(v.index())?.domain;
    Some((v, next, super::unroll::index_of(dom, c)))
}

/// The exclusive runs of two or more arms of a `case`.
fn case_runs(sys: &System, arms: &[(Expr, Expr)]) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    let mut cur: Option<Run> = None;
    for (i, (g, _)) in arms.iter().enumerate() {
        let guard = eq_guard(sys, g);
        if let (Some(run), Some((v, next, j))) = (&mut cur, guard) {
            let fresh = j.is_none_or(|j| run.arm[j].is_none());
            if run.var == v && run.next == next && fresh {
                if let Some(j) = j {
                    run.arm[j] = Some(i as u32);
                    run.hits.push(j);
                }
                run.arms.end = i + 1;
                continue;
            }
        }
        if let Some(run) = cur.take() {
            if run.arms.len() > 1 {
                runs.push(run);
            }
        }
        cur = guard.map(|(v, next, j)| {
            let mut arm = vec![None; sys.var(v).domain.size()];
            let mut hits = Vec::new();
            if let Some(j) = j {
                arm[j] = Some(i as u32);
                hits.push(j);
            }
            Run {
                arms: i..i + 1,
                var: v,
                next,
                arm,
                hits,
            }
        });
    }
    if let Some(run) = cur.take() {
        if run.arms.len() > 1 {
            runs.push(run);
        }
    }
    runs
}

/// Where an expression is evaluated, and the one value under test.
#[derive(Clone, Copy)]
struct Ctx {
    cur: usize,
    next: Option<usize>,
    /// `(var, step, index)`: this copy has only this value.
    fix: Option<(VarId, usize, usize)>,
}

/// A constraint (or assignment) that reads a variable, and the values
/// it compares the variable with when it only ever compares it with
/// constants (then every other value behaves alike and is checked once).
/// The third field numbers the use among all uses of all variables: its
/// slot in [`Domains::checked`].
type Use = (usize, Option<Vec<usize>>, usize);

/// Which constraints read a variable, by role.
#[derive(Default, Clone)]
struct Uses {
    invar: Vec<Use>,
    init: Vec<Use>,
    init_assign: Vec<Use>,
    trans_cur: Vec<Use>,
    trans_next: Vec<Use>,
    next_cur: Vec<Use>,
    next_next: Vec<Use>,
    goal: Option<Use>,
}

/// The value indices `x` (its `next` copy when `as_next`) is compared
/// with in `e`, or `None` when `e` reads it in any other way.
fn class(sys: &System, e: &Expr, x: VarId, as_next: bool) -> Option<Vec<usize>> {
    fn is_x(e: &Expr, x: VarId, as_next: bool) -> bool {
        match e {
            Expr::Var(v) => !as_next && *v == x,
            Expr::Next(v) => as_next && *v == x,
            _ => false,
        }
    }
    fn walk(sys: &System, e: &Expr, x: VarId, nx: bool, out: &mut Vec<usize>) -> bool {
        let dom = &sys.var(x).domain;
        let push = |c: &Value, out: &mut Vec<usize>| {
            if let Some(j) = super::unroll::index_of(dom, c) {
                out.push(j);
            }
        };
        let all = |xs: &[Expr], out: &mut Vec<usize>| xs.iter().all(|y| walk(sys, y, x, nx, out));
        match e {
            Expr::Eq(a, b) => match (&**a, &**b) {
                (a, Expr::Const(c)) | (Expr::Const(c), a) if is_x(a, x, nx) => {
                    push(c, out);
                    true
                }
                _ => walk(sys, a, x, nx, out) && walk(sys, b, x, nx, out),
            },
            Expr::In(a, items) if is_x(a, x, nx) => items.iter().all(|i| match i {
                Expr::Const(c) => {
                    push(c, out);
                    true
                }
                _ => false,
            }),
            Expr::Const(_) => true,
            Expr::Var(_) | Expr::Next(_) => !is_x(e, x, nx),
            Expr::Define(d) => sys
                .defines
                .get(d.0 as usize)
                .is_some_and(|def| walk(sys, &def.expr, x, nx, out)),
            Expr::Not(a) => walk(sys, a, x, nx, out),
            Expr::And(xs) | Expr::Or(xs) | Expr::Add(xs) | Expr::Count(xs) | Expr::Set(xs) => {
                all(xs, out)
            }
            Expr::Implies(a, b)
            | Expr::Iff(a, b)
            | Expr::Lt(a, b)
            | Expr::Le(a, b)
            | Expr::Sub(a, b) => walk(sys, a, x, nx, out) && walk(sys, b, x, nx, out),
            Expr::Ite(c, a, b) => {
                walk(sys, c, x, nx, out) && walk(sys, a, x, nx, out) && walk(sys, b, x, nx, out)
            }
            Expr::Case(arms) => arms
                .iter()
                .all(|(g, v)| walk(sys, g, x, nx, out) && walk(sys, v, x, nx, out)),
            Expr::In(a, items) => walk(sys, a, x, nx, out) && all(items, out),
        }
    }
    let mut out = Vec::new();
    walk(sys, e, x, as_next, &mut out).then(|| {
        out.sort_unstable();
        out.dedup();
        out
    })
}

/// The variables an expression reads: current state, next state.
#[derive(Default)]
struct Reads {
    cur: Vec<VarId>,
    next: Vec<VarId>,
}

fn sorted_reads(sys: &System, e: &Expr) -> Reads {
    let (cur, next) = reads(sys, e);
    let sorted = |set: std::collections::HashSet<VarId>| {
        let mut v: Vec<VarId> = set.into_iter().collect();
        v.sort_unstable();
        v
    };
    Reads {
        cur: sorted(cur),
        next: sorted(next),
    }
}

struct Model<'s> {
    sys: &'s System,
    invar: Vec<Expr>,
    invar_frozen: Vec<bool>,
    init: Vec<Expr>,
    trans: Vec<Expr>,
    uses: Vec<Uses>,
    /// What each atom, assignment and the goal reads, by the same index.
    invar_reads: Vec<Reads>,
    init_reads: Vec<Reads>,
    trans_reads: Vec<Reads>,
    init_assign_reads: Vec<Reads>,
    next_assign_reads: Vec<Reads>,
    goal_reads: Reads,
    /// Number of uses (slots) over all variables.
    slots: usize,
    k: usize,
}

impl<'s> Model<'s> {
    fn new(sys: &'s System, k: usize) -> Model<'s> {
        let split = |cs: &[crate::ir::Constraint]| {
            let mut out = Vec::new();
            for c in cs {
                atoms(&c.expr, sys, &mut out);
            }
            out
        };
        let invar = split(&sys.invar);
        let init = split(&sys.init);
        let trans = split(&sys.trans);
        let all = |es: &[Expr]| es.iter().map(|e| sorted_reads(sys, e)).collect::<Vec<_>>();
        let invar_reads = all(&invar);
        let init_reads = all(&init);
        let trans_reads = all(&trans);
        let assigns = |xs: &[crate::ir::Assign]| {
            xs.iter()
                .map(|a| sorted_reads(sys, &a.value))
                .collect::<Vec<_>>()
        };
        let init_assign_reads = assigns(&sys.init_assign);
        let next_assign_reads = assigns(&sys.next_assign);
        let goal_reads = sorted_reads(sys, &sys.goal);
        let mut uses = vec![Uses::default(); sys.vars.len()];
        let with = |e: &Expr, v: &VarId, nx: bool, i: usize| (i, class(sys, e, *v, nx), 0);
        // Frozen variables are checked against their unary invariants
        // only (windows, pinned values): cheap, and what matters.
        let invar_frozen = invar_reads
            .iter()
            .map(|r| r.cur.len() == 1 && sys.var(r.cur[0]).frozen)
            .collect();
        for (i, (e, r)) in invar.iter().zip(&invar_reads).enumerate() {
            r.cur
                .iter()
                .for_each(|v| uses[v.index()].invar.push(with(e, v, false, i)));
        }
        for (i, (e, r)) in init.iter().zip(&init_reads).enumerate() {
            r.cur
                .iter()
                .for_each(|v| uses[v.index()].init.push(with(e, v, false, i)));
        }
        // An assignment's own variable is restricted by its image
        // ([`Domains::image`]); here only the variables it reads.
        for (i, (a, r)) in sys.init_assign.iter().zip(&init_assign_reads).enumerate() {
            // `init(x) := case x = 2 : …`: x's own value matters itself,
            // not only through the constants it is compared with.
            r.cur.iter().for_each(|v| {
                let (i, cls, slot) = with(&a.value, v, false, i);
                let cls = cls.filter(|_| *v != a.var);
                uses[v.index()].init_assign.push((i, cls, slot))
            });
        }
        for (i, (e, r)) in trans.iter().zip(&trans_reads).enumerate() {
            r.cur
                .iter()
                .for_each(|v| uses[v.index()].trans_cur.push(with(e, v, false, i)));
            r.next
                .iter()
                .for_each(|v| uses[v.index()].trans_next.push(with(e, v, true, i)));
        }
        for (i, (a, r)) in sys.next_assign.iter().zip(&next_assign_reads).enumerate() {
            r.cur
                .iter()
                .for_each(|v| uses[v.index()].next_cur.push(with(&a.value, v, false, i)));
            // Its own variable's value matters itself: no class then.
            r.next.iter().for_each(|v| {
                let (i, cls, slot) = with(&a.value, v, true, i);
                let cls = cls.filter(|_| *v != a.var);
                uses[v.index()].next_next.push((i, cls, slot))
            });
        }
        for v in &goal_reads.cur {
            uses[v.index()].goal = Some(with(&sys.goal, v, false, 0));
        }
        let mut slots = 0;
        for u in &mut uses {
            let lists = [
                &mut u.invar,
                &mut u.init,
                &mut u.init_assign,
                &mut u.trans_cur,
                &mut u.trans_next,
                &mut u.next_cur,
                &mut u.next_next,
            ];
            for list in lists {
                for use_ in list.iter_mut() {
                    use_.2 = slots;
                    slots += 1;
                }
            }
            if let Some(g) = &mut u.goal {
                g.2 = slots;
                slots += 1;
            }
        }
        Model {
            sys,
            invar,
            invar_frozen,
            init,
            trans,
            uses,
            invar_reads,
            init_reads,
            trans_reads,
            init_assign_reads,
            next_assign_reads,
            goal_reads,
            slots,
            k,
        }
    }
}

impl Model<'_> {
    /// Keys of the atoms in [`Domains::entailed`]: invariants and
    /// transitions per step (a transition by its current step), then the
    /// initial constraints.
    fn invar_key(&self, c: usize, t: usize) -> usize {
        t * self.invar.len() + c
    }

    fn trans_key(&self, c: usize, t: usize) -> usize {
        (self.k + 1) * self.invar.len() + t * self.trans.len() + c
    }

    fn init_key(&self, c: usize) -> usize {
        (self.k + 1) * (self.invar.len() + self.trans.len()) + c
    }

    fn keys(&self) -> usize {
        self.init_key(self.init.len())
    }
}

impl Domains {
    /// Every value allowed everywhere.
    fn full(sys: &System, k: usize) -> Domains {
        let sizes: Vec<usize> = sys.vars.iter().map(|v| v.domain.size()).collect();
        let mut base = Vec::with_capacity(sizes.len());
        let mut frame = 0;
        for n in &sizes {
            base.push(frame);
            frame += n;
        }
        let single: Vec<Option<usize>> = sizes.iter().map(|&n| (n == 1).then_some(0)).collect();
        Domains {
            bits: vec![true; frame * (k + 1)],
            base,
            frame,
            steps: k + 1,
            counts: sizes.repeat(k + 1),
            single: single.repeat(k + 1),
            frozen: sys.vars.iter().map(|v| v.frozen).collect(),
            values: sys.vars.iter().map(|v| v.domain.values()).collect(),
            work: 0,
            tick: 1,
            changed: vec![vec![0; sys.vars.len()]; k + 1],
            checked: Vec::new(),
            slots: 0,
            entailed: Vec::new(),
            entail_seen: Vec::new(),
            imaged: Vec::new(),
            cases: FxMap::default(),
        }
    }

    /// The number of steps analysed (`k + 1`).
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// The allowed value indices of `var` at `step`.
    pub fn allowed(&self, var: VarId, step: usize) -> &[bool] {
        let at = self.at(var, self.step_of(var, step));
        &self.bits[at..at + self.values[var.index()].len()]
    }

    /// Where the set of `var` at `step` (already mapped by `step_of`)
    /// starts in `bits`.
    #[inline]
    fn at(&self, var: VarId, step: usize) -> usize {
        step * self.frame + self.base[var.index()]
    }

    /// Index of a copy in `counts` and `single`.
    #[inline]
    fn copy_index(&self, var: VarId, step: usize) -> usize {
        step * self.frozen.len() + var.index()
    }

    fn step_of(&self, var: VarId, step: usize) -> usize {
        if self.frozen[var.index()] {
            0
        } else {
            step
        }
    }

    #[inline]
    fn ok(&self, ctx: &Ctx, var: VarId, step: usize, i: usize) -> bool {
        let step = self.step_of(var, step);
        match ctx.fix {
            Some((v, s, j)) if v == var && s == step => i == j,
            _ => self.bits[self.at(var, step) + i],
        }
    }

    fn n_ok(&self, ctx: &Ctx, var: VarId, step: usize) -> usize {
        let step = self.step_of(var, step);
        match ctx.fix {
            Some((v, s, _)) if v == var && s == step => 1,
            _ => self.counts[self.copy_index(var, step)],
        }
    }

    /// The only allowed index of a copy, if one is left.
    fn single_of(&self, ctx: &Ctx, var: VarId, step: usize) -> Option<usize> {
        let step = self.step_of(var, step);
        match ctx.fix {
            Some((v, s, j)) if v == var && s == step => Some(j),
            _ => self.single[self.copy_index(var, step)],
        }
    }

    /// Integer bounds of a copy (of a range variable), without building
    /// its value set.
    fn copy_bounds(&self, sys: &System, ctx: &Ctx, var: VarId, step: usize) -> Option<(i64, i64)> {
        let Domain::Range { lo, .. } = sys.var(var).domain else {
            return None;
        };
        if let Some(j) = self.single_of(ctx, var, step) {
            return Some((lo + j as i64, lo + j as i64));
        }
        let n = self.values[var.index()].len();
        let first = (0..n).find(|&j| self.ok(ctx, var, step, j))?;
        let last = (0..n).rev().find(|&j| self.ok(ctx, var, step, j))?;
        Some((lo + first as i64, lo + last as i64))
    }

    /// Integer bounds of an expression.
    fn bounds_of(&mut self, sys: &System, e: &Expr, ctx: &Ctx) -> Option<(i64, i64)> {
        if let Expr::Const(Value::Int(i)) = e {
            self.work += 1;
            return Some((*i, *i));
        }
        match Self::copy_of(e, ctx) {
            Some((v, s)) => {
                self.work += 1;
                self.copy_bounds(sys, ctx, v, s)
            }
            None => self.eval(sys, e, ctx).bounds(),
        }
    }

    /// Computes the domains of `sys` unrolled to bound `k`.
    pub fn compute(sys: &System, k: usize) -> Domains {
        let m = Model::new(sys, k);
        let mut d = Domains::full(sys, k);
        let mut cases = FxMap::default();
        let assigns = sys.init_assign.iter().chain(&sys.next_assign);
        for e in m.invar.iter().chain(&m.init).chain(&m.trans) {
            index_cases(sys, e, &mut cases);
        }
        for e in assigns
            .map(|a| &a.value)
            .chain(sys.defines.iter().map(|d| &d.expr))
        {
            index_cases(sys, e, &mut cases);
        }
        index_cases(sys, &sys.goal, &mut cases);
        d.cases = cases;
        d.slots = m.slots;
        d.checked = vec![0; m.slots * (k + 1)];
        d.entailed = vec![false; m.keys()];
        d.entail_seen = vec![0; m.keys()];
        d.imaged = vec![0; sys.init_assign.len() + k * sys.next_assign.len()];
        d.frozen_support(&m);
        // `changed[t]`: tick of the last change at step t; a step is
        // checked again when it or a neighbour changed since its last check.
        let mut tick = 1u64;
        let mut changed = vec![1u64; k + 1];
        let mut checked = vec![0u64; k + 1];
        'passes: for pass in 0..8 {
            let steps: Vec<usize> = if pass % 2 == 0 {
                (0..=k).collect()
            } else {
                (0..=k).rev().collect()
            };
            let mut any = false;
            for t in steps {
                let lo = t.saturating_sub(1);
                let hi = (t + 1).min(k);
                if (lo..=hi).all(|s| changed[s] <= checked[t]) {
                    continue;
                }
                checked[t] = tick;
                if d.image(&m, t) | d.support(&m, t) {
                    tick += 1;
                    changed[t] = tick;
                    any = true;
                }
                if d.work > BUDGET {
                    break 'passes;
                }
            }
            if !any {
                break;
            }
        }
        d.cases = FxMap::default();
        d
    }

    fn remove(&mut self, var: VarId, step: usize, i: usize) {
        let s = self.step_of(var, step);
        let v = var.index();
        let at = self.at(var, s);
        if self.bits[at + i] {
            self.tick += 1;
            self.changed[s][v] = self.tick;
            self.bits[at + i] = false;
            let c = self.copy_index(var, s);
            self.counts[c] -= 1;
            self.single[c] = match self.counts[c] {
                1 => self.allowed(var, s).iter().position(|&x| x),
                _ => None,
            };
        }
    }

    /// Values of frozen variables that break an invariant over that
    /// variable alone.
    fn frozen_support(&mut self, m: &Model) {
        for (i, var) in m.sys.vars.iter().enumerate() {
            if !var.frozen {
                continue;
            }
            let x = VarId(i as u32);
            for j in 0..var.domain.size() {
                if !self.allowed(x, 0)[j] {
                    continue;
                }
                let ctx = Ctx {
                    cur: 0,
                    next: None,
                    fix: Some((x, 0, j)),
                };
                let ok = m.uses[i]
                    .invar
                    .iter()
                    .filter(|(c, ..)| m.invar_frozen[*c])
                    .all(|(c, ..)| self.eval(m.sys, &m.invar[*c], &ctx).truth().0);
                if !ok {
                    self.remove(x, 0, j);
                }
            }
        }
    }

    /// Intersects each non-frozen variable at `t` with the image of its
    /// assignment; whether anything changed.
    fn image(&mut self, m: &Model, t: usize) -> bool {
        let sys = m.sys;
        let (assigns, ctx) = if t == 0 {
            (
                &sys.init_assign,
                Ctx {
                    cur: 0,
                    next: None,
                    fix: None,
                },
            )
        } else {
            (
                &sys.next_assign,
                Ctx {
                    cur: t - 1,
                    next: Some(t),
                    fix: None,
                },
            )
        };
        let mut changed = false;
        for (i, a) in assigns.iter().enumerate() {
            if sys.var(a.var).frozen && t > 0 {
                continue;
            }
            // Unchanged inputs (and target: the right-hand side may read
            // it) since the last image: the same image.
            let (r, key) = match t {
                0 => (&m.init_assign_reads[i], i),
                _ => (&m.next_assign_reads[i], (t - 1) * assigns.len() + i),
            };
            let key = key + if t == 0 { 0 } else { sys.init_assign.len() };
            let own = std::slice::from_ref(&a.var);
            let deps = [
                (&r.cur[..], t.saturating_sub(1)),
                (&r.next[..], t),
                (own, t),
            ];
            let last = self.imaged[key];
            if last > 0 && self.unchanged_since(&deps, last, None) {
                continue;
            }
            self.imaged[key] = self.tick;
            let img = self.eval_set(sys, &a.value, &ctx);
            for j in 0..self.values[a.var.index()].len() {
                if self.allowed(a.var, t)[j] && !img.admits(&self.values[a.var.index()][j]) {
                    self.remove(a.var, t, j);
                    changed = true;
                }
            }
        }
        changed
    }

    /// Removes the values at `t` without support; whether any was removed.
    fn support(&mut self, m: &Model, t: usize) -> bool {
        let mut changed = false;
        for (i, var) in m.sys.vars.iter().enumerate() {
            let x = VarId(i as u32);
            if var.frozen || self.counts[self.copy_index(x, t)] < 2 {
                continue;
            }
            let mut alive = self.allowed(x, t).to_vec();
            self.prune_var(m, x, t, &mut alive);
            for (j, &a) in alive.iter().enumerate() {
                if !a && self.allowed(x, t)[j] {
                    self.remove(x, t, j);
                    changed = true;
                }
            }
        }
        changed
    }

    /// Clears `alive[j]` for the values of `x` at `t` that some
    /// constraint, assignment or the goal cannot accept.
    fn prune_var(&mut self, m: &Model, x: VarId, t: usize, alive: &mut [bool]) {
        let sys = m.sys;
        let u = &m.uses[x.index()];
        let at = |cur: usize, next: Option<usize>| Ctx {
            cur,
            next,
            fix: None,
        };
        let here = at(t, None);
        for (c, cls, slot) in &u.invar {
            let r = &m.invar_reads[*c];
            let key = m.invar_key(*c, t);
            let deps = [(&r.cur[..], t)];
            if self.entailed[key] || self.up_to_date(*slot, x, t, &deps) {
                continue;
            }
            if self.entails(key, &deps, sys, &m.invar[*c], &here) {
                continue;
            }
            self.filter(x, t, alive, cls, &here, |d, ctx| {
                d.may(sys, &m.invar[*c], ctx)
            });
        }
        if t == 0 {
            for (c, cls, slot) in &u.init {
                let r = &m.init_reads[*c];
                let key = m.init_key(*c);
                let deps = [(&r.cur[..], 0)];
                if self.entailed[key] || self.up_to_date(*slot, x, t, &deps) {
                    continue;
                }
                if self.entails(key, &deps, sys, &m.init[*c], &here) {
                    continue;
                }
                self.filter(x, t, alive, cls, &here, |d, ctx| {
                    d.may(sys, &m.init[*c], ctx)
                });
            }
            for (i, cls, slot) in &u.init_assign {
                let (a, r) = (&sys.init_assign[*i], &m.init_assign_reads[*i]);
                if self.up_to_date(
                    *slot,
                    x,
                    t,
                    &[(&r.cur, 0), (std::slice::from_ref(&a.var), 0)],
                ) {
                    continue;
                }
                self.filter(x, t, alive, cls, &here, |d, ctx| {
                    d.meets(sys, &a.value, a.var, 0, ctx)
                });
            }
        } else {
            let before = at(t - 1, Some(t));
            for (c, cls, slot) in &u.trans_next {
                let r = &m.trans_reads[*c];
                let key = m.trans_key(*c, t - 1);
                let deps = [(&r.cur[..], t - 1), (&r.next[..], t)];
                if self.entailed[key] || self.up_to_date(*slot, x, t, &deps) {
                    continue;
                }
                if self.entails(key, &deps, sys, &m.trans[*c], &before) {
                    continue;
                }
                self.filter(x, t, alive, cls, &before, |d, ctx| {
                    d.may(sys, &m.trans[*c], ctx)
                });
            }
            for (i, cls, slot) in &u.next_next {
                let (a, r) = (&sys.next_assign[*i], &m.next_assign_reads[*i]);
                let deps = [
                    (&r.cur[..], t - 1),
                    (&r.next[..], t),
                    (std::slice::from_ref(&a.var), t),
                ];
                if self.up_to_date(*slot, x, t, &deps) {
                    continue;
                }
                self.filter(x, t, alive, cls, &before, |d, ctx| {
                    d.meets(sys, &a.value, a.var, t, ctx)
                });
            }
        }
        if t < m.k {
            let after = at(t, Some(t + 1));
            for (c, cls, slot) in &u.trans_cur {
                let r = &m.trans_reads[*c];
                let key = m.trans_key(*c, t);
                let deps = [(&r.cur[..], t), (&r.next[..], t + 1)];
                if self.entailed[key] || self.up_to_date(*slot, x, t, &deps) {
                    continue;
                }
                if self.entails(key, &deps, sys, &m.trans[*c], &after) {
                    continue;
                }
                self.filter(x, t, alive, cls, &after, |d, ctx| {
                    d.may(sys, &m.trans[*c], ctx)
                });
            }
            for (i, cls, slot) in &u.next_cur {
                let (a, r) = (&sys.next_assign[*i], &m.next_assign_reads[*i]);
                let deps = [
                    (&r.cur[..], t),
                    (&r.next[..], t + 1),
                    (std::slice::from_ref(&a.var), t + 1),
                ];
                if self.up_to_date(*slot, x, t, &deps) {
                    continue;
                }
                self.filter(x, t, alive, cls, &after, |d, ctx| {
                    d.meets(sys, &a.value, a.var, t + 1, ctx)
                });
            }
        }
        if t == m.k {
            if let Some((_, cls, slot)) = &u.goal {
                if !self.up_to_date(*slot, x, t, &[(&m.goal_reads.cur, t)]) {
                    self.filter(x, t, alive, cls, &here, |d, ctx| d.may(sys, &sys.goal, ctx));
                }
            }
        }
    }

    /// Whether constraint `e` holds in every state the sets allow (then
    /// it supports every value of every variable it reads, now and after
    /// any later removal): remembered under `key` once it does.
    /// `deps` are the copies it reads: unchanged since the last time it
    /// was not entailed, it still is not.
    fn entails(
        &mut self,
        key: usize,
        deps: &[(&[VarId], usize)],
        sys: &System,
        e: &Expr,
        ctx: &Ctx,
    ) -> bool {
        if self.entailed[key] {
            return true;
        }
        let last = self.entail_seen[key];
        if last > 0 && self.unchanged_since(deps, last, None) {
            return false;
        }
        self.entail_seen[key] = self.tick;
        let (t, f) = self.eval(sys, e, ctx).truth();
        self.entailed[key] = t && !f;
        self.entailed[key]
    }

    /// Whether use `slot` of `x` at `t` was checked after the last change
    /// of every copy it depends on (`deps`: variables and the step they
    /// are read at; `x` at `t` itself excluded: removing values of `x`
    /// never takes support away from its other values). If not, records
    /// that it is being checked now.
    fn up_to_date(&mut self, slot: usize, x: VarId, t: usize, deps: &[(&[VarId], usize)]) -> bool {
        let i = t * self.slots + slot;
        let last = self.checked[i];
        let me = (x, self.step_of(x, t));
        let fresh = last > 0 && self.unchanged_since(deps, last, Some(me));
        if !fresh {
            self.checked[i] = self.tick;
        }
        fresh
    }

    /// Whether no copy in `deps` (but `except`) lost a value after tick
    /// `last`.
    fn unchanged_since(
        &self,
        deps: &[(&[VarId], usize)],
        last: u64,
        except: Option<(VarId, usize)>,
    ) -> bool {
        deps.iter().all(|(vars, step)| {
            vars.iter().all(|&v| {
                let s = self.step_of(v, *step);
                Some((v, s)) == except || self.changed[s][v.index()] <= last
            })
        })
    }

    /// Whether `e` may be true.
    fn may(&mut self, sys: &System, e: &Expr, ctx: &Ctx) -> bool {
        self.eval(sys, e, ctx).truth().0
    }

    /// Clears `alive[j]` where `ok` fails with `x` at `t` fixed to `j`;
    /// with a class (the constants `x` is compared with), the values
    /// outside it behave alike and are checked by one representative.
    #[allow(clippy::too_many_arguments)]
    fn filter(
        &mut self,
        x: VarId,
        t: usize,
        alive: &mut [bool],
        class: &Option<Vec<usize>>,
        ctx: &Ctx,
        mut ok: impl FnMut(&mut Domains, &Ctx) -> bool,
    ) {
        let mut test = |d: &mut Domains, j: usize| {
            let c = Ctx {
                fix: Some((x, t, j)),
                ..*ctx
            };
            ok(d, &c)
        };
        match class {
            None => {
                for (j, a) in alive.iter_mut().enumerate() {
                    if *a && !test(self, j) {
                        *a = false;
                    }
                }
            }
            Some(cs) => {
                for &j in cs {
                    if alive[j] && !test(self, j) {
                        alive[j] = false;
                    }
                }
                let outside = |j: &usize| cs.binary_search(j).is_err();
                let rep = (0..alive.len()).find(|j| alive[*j] && outside(j));
                if let Some(r) = rep {
                    if !test(self, r) {
                        (0..alive.len())
                            .filter(outside)
                            .for_each(|j| alive[j] = false);
                    }
                }
            }
        }
    }

    /// Whether assignment `value` can give `var` at `step` an allowed value.
    fn meets(&mut self, sys: &System, value: &Expr, var: VarId, step: usize, ctx: &Ctx) -> bool {
        let img = self.eval_set(sys, value, ctx);
        self.values[var.index()]
            .iter()
            .enumerate()
            .any(|(j, v)| self.ok(ctx, var, step, j) && img.admits(v))
    }

    /// The values of a variable copy.
    fn var_abs(&self, sys: &System, var: VarId, step: usize, ctx: &Ctx) -> Abs {
        let dom = &sys.var(var).domain;
        match dom {
            Domain::Bool => b(self.ok(ctx, var, step, 1), self.ok(ctx, var, step, 0)),
            Domain::Range { lo, hi } if self.n_ok(ctx, var, step) == dom.size() => Abs::R(*lo, *hi),
            _ => {
                let mut vs: Vec<Value> = self.values[var.index()]
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| self.ok(ctx, var, step, *j))
                    .map(|(_, v)| v.clone())
                    .collect();
                // Symbols are kept in declaration order by the domain;
                // integers are sorted already.
                if matches!(dom, Domain::Enum(_)) {
                    vs.sort();
                }
                Abs::V(vs)
            }
        }
    }

    /// `var = value` at `step`, without building the value set.
    fn eq_const(&self, sys: &System, var: VarId, step: usize, c: &Value, ctx: &Ctx) -> Abs {
        let dom = &sys.var(var).domain;
        let n = self.n_ok(ctx, var, step);
        match super::unroll::index_of(dom, c) {
            Some(j) => {
                let t = self.ok(ctx, var, step, j);
                b(t, n > t as usize)
            }
            None => b(false, n > 0),
        }
    }

    /// The copy an expression names: `Var` at `cur`, `Next` at `next`.
    fn copy_of(e: &Expr, ctx: &Ctx) -> Option<(VarId, usize)> {
        match e {
            Expr::Var(v) => Some((*v, ctx.cur)),
            Expr::Next(v) => ctx.next.map(|s| (*v, s)),
            _ => None,
        }
    }

    /// Abstract value of an assignment right-hand side (with `Set`).
    fn eval_set(&mut self, sys: &System, e: &Expr, ctx: &Ctx) -> Abs {
        self.eval(sys, e, ctx)
    }

    fn eval(&mut self, sys: &System, e: &Expr, ctx: &Ctx) -> Abs {
        self.work += 1;
        match e {
            Expr::Const(Value::Bool(x)) => b(*x, !*x),
            Expr::Const(v) => Abs::V(vec![v.clone()]),
            Expr::Var(_) | Expr::Next(_) => match Self::copy_of(e, ctx) {
                Some((v, s)) => self.var_abs(sys, v, s, ctx),
                None => Abs::Top,
            },
            Expr::Define(d) => match sys.defines.get(d.0 as usize) {
                Some(def) => self.eval(sys, &def.expr, ctx),
                None => Abs::Top,
            },
            Expr::Not(a) => {
                let (t, f) = self.eval(sys, a, ctx).truth();
                b(f, t)
            }
            Expr::And(xs) => {
                let mut t = true;
                let mut f = false;
                for x in xs {
                    let (xt, xf) = self.eval(sys, x, ctx).truth();
                    if !xt {
                        return b(false, true);
                    }
                    t &= xt;
                    f |= xf;
                }
                b(t, f)
            }
            Expr::Or(xs) => {
                let mut t = false;
                let mut f = true;
                for x in xs {
                    let (xt, xf) = self.eval(sys, x, ctx).truth();
                    if !xf {
                        return b(true, false);
                    }
                    t |= xt;
                    f &= xf;
                }
                b(t, f)
            }
            Expr::Implies(p, q) => {
                let (pt, pf) = self.eval(sys, p, ctx).truth();
                let (qt, qf) = self.eval(sys, q, ctx).truth();
                b(pf || qt, pt && qf)
            }
            Expr::Iff(p, q) => {
                let (pt, pf) = self.eval(sys, p, ctx).truth();
                let (qt, qf) = self.eval(sys, q, ctx).truth();
                b((pt && qt) || (pf && qf), (pt && qf) || (pf && qt))
            }
            Expr::Eq(p, q) => self.eval_eq(sys, p, q, ctx),
            Expr::Lt(p, q) | Expr::Le(p, q) => {
                let strict = matches!(e, Expr::Lt(..));
                let (Some((al, ah)), Some((bl, bh))) =
                    (self.bounds_of(sys, p, ctx), self.bounds_of(sys, q, ctx))
                else {
                    return EITHER;
                };
                if strict {
                    b(al < bh, ah >= bl)
                } else {
                    b(al <= bh, ah > bl)
                }
            }
            Expr::Add(xs) => {
                let (mut lo, mut hi) = (0i64, 0i64);
                for x in xs {
                    let Some((l, h)) = self.bounds_of(sys, x, ctx) else {
                        return Abs::Top;
                    };
                    lo += l;
                    hi += h;
                }
                Abs::R(lo, hi)
            }
            Expr::Sub(p, q) => match (self.bounds_of(sys, p, ctx), self.bounds_of(sys, q, ctx)) {
                (Some((al, ah)), Some((bl, bh))) => Abs::R(al - bh, ah - bl),
                _ => Abs::Top,
            },
            Expr::Count(xs) => {
                let (mut lo, mut hi) = (0i64, 0i64);
                for x in xs {
                    let (t, f) = self.eval(sys, x, ctx).truth();
                    hi += t as i64;
                    lo += (t && !f) as i64;
                }
                Abs::R(lo, hi)
            }
            Expr::Ite(c, p, q) => {
                let (t, f) = self.eval(sys, c, ctx).truth();
                let mut out = b(false, false);
                if t {
                    out = out.join(self.eval(sys, p, ctx));
                }
                if f {
                    out = out.join(self.eval(sys, q, ctx));
                }
                out
            }
            Expr::Case(arms) => self.eval_case(sys, arms, ctx),
            Expr::In(x, items) => {
                let mut t = false;
                let mut f = true;
                if let Some((v, s)) = Self::copy_of(x, ctx) {
                    if items.iter().all(|i| matches!(i, Expr::Const(_))) {
                        let dom = &sys.var(v).domain;
                        // Distinct allowed values: `f in {1, 1}` hits one.
                        let mut hit: Vec<usize> = items
                            .iter()
                            .filter_map(|i| match i {
                                Expr::Const(c) => super::unroll::index_of(dom, c),
                                _ => None,
                            })
                            .filter(|&j| self.ok(ctx, v, s, j))
                            .collect();
                        hit.sort_unstable();
                        hit.dedup();
                        let hits = hit.len();
                        return b(hits > 0, self.n_ok(ctx, v, s) > hits);
                    }
                }
                for i in items {
                    let (it, itf) = self.eval_eq(sys, x, i, ctx).truth();
                    t |= it;
                    f &= itf;
                }
                b(t, f)
            }
            Expr::Set(xs) => {
                let mut out = Acc::default();
                for x in xs {
                    self.add_to(&mut out, sys, x, ctx);
                }
                out.finish()
            }
        }
    }

    /// Adds the values of `e` to a union (a constant without building
    /// its one-value set).
    fn add_to(&mut self, out: &mut Acc, sys: &System, e: &Expr, ctx: &Ctx) {
        match e {
            Expr::Const(v @ (Value::Int(_) | Value::Sym(_))) => {
                self.work += 1;
                out.vals.push(v.clone());
            }
            Expr::Set(xs) => {
                for x in xs {
                    self.add_to(out, sys, x, ctx);
                }
            }
            _ => {
                let a = self.eval(sys, e, ctx);
                out.add(a);
            }
        }
    }

    /// A `case`: the values of the arms whose guard may hold, up to the
    /// first guard that must. An exclusive run of `x = c` guards is one
    /// look-up per allowed value of `x` instead of one guard per arm (the
    /// same answer as guard by guard).
    fn eval_case(&mut self, sys: &System, arms: &[(Expr, Expr)], ctx: &Ctx) -> Abs {
        let runs = self.cases.get(&(arms.as_ptr() as usize)).cloned();
        let runs: &[Run] = runs.as_deref().unwrap_or(&[]);
        let mut runs = runs.iter().peekable();
        let mut out = Acc::default();
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
                        self.add_to(&mut out, sys, &arms[a as usize].1, ctx);
                        hits = 1;
                    }
                } else {
                    for &j in &run.hits {
                        if self.ok(ctx, v, s, j) {
                            hits += 1;
                            let a = run.arm[j].unwrap_or_default() as usize;
                            self.add_to(&mut out, sys, &arms[a].1, ctx);
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
            let (g, v) = &arms[i];
            let (t, f) = self.eval(sys, g, ctx).truth();
            if t {
                self.add_to(&mut out, sys, v, ctx);
            }
            if !f {
                break;
            }
            i += 1;
        }
        out.finish()
    }

    fn eval_eq(&mut self, sys: &System, p: &Expr, q: &Expr, ctx: &Ctx) -> Abs {
        for (x, c) in [(p, q), (q, p)] {
            if let (Some((v, s)), Expr::Const(c)) = (Self::copy_of(x, ctx), c) {
                return self.eq_const(sys, v, s, c, ctx);
            }
        }
        // A copy against a copy with one value left (a step counter).
        if let (Some((v, s)), Some((w, r))) = (Self::copy_of(p, ctx), Self::copy_of(q, ctx)) {
            for ((v, s), (w, r)) in [((v, s), (w, r)), ((w, r), (v, s))] {
                if let Some(j) = self.single_of(ctx, w, r) {
                    let c = self.values[w.index()][j].clone();
                    return self.eq_const(sys, v, s, &c, ctx);
                }
            }
        }
        let a = self.eval(sys, p, ctx);
        let c = self.eval(sys, q, ctx);
        match (&a, &c) {
            (Abs::B { t, f }, Abs::B { t: t2, f: f2 }) => {
                b((*t && *t2) || (*f && *f2), (*t && *f2) || (*f && *t2))
            }
            (Abs::V(xs), Abs::V(ys)) => {
                let meet = xs.iter().any(|x| ys.binary_search(x).is_ok());
                let single = xs.len() == 1 && ys.len() == 1 && xs == ys;
                b(meet, !single)
            }
            _ => match (a.bounds(), c.bounds()) {
                (Some((al, ah)), Some((bl, bh))) => {
                    let meet = al <= bh && bl <= ah;
                    let single = al == ah && bl == bh && al == bl;
                    b(meet, !single)
                }
                _ => EITHER,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Assign, Constraint};

    /// A counter `x` on a line `0..=5` that moves by one (or stays), must
    /// end on 5 at bound 5: at step `t` it can only be `t`.
    #[test]
    fn forward_and_backward_reachability_pin_a_walk() {
        let mut sys = System::default();
        let x = sys.add_var("x", Domain::Range { lo: 0, hi: 5 }, false);
        sys.init_assign.push(Assign {
            var: x,
            value: Expr::int(0),
        });
        let arms = (0..=5)
            .map(|i| {
                let to = if i < 5 {
                    Expr::Set(vec![Expr::int(i), Expr::int(i + 1)])
                } else {
                    Expr::int(5)
                };
                (Expr::eq(Expr::var(x), Expr::int(i)), to)
            })
            .collect();
        sys.next_assign.push(Assign {
            var: x,
            value: Expr::Case(arms),
        });
        sys.goal = Expr::eq(Expr::var(x), Expr::int(5));
        let d = Domains::compute(&sys, 5);
        for t in 0..=5 {
            let allowed: Vec<usize> = (0..6).filter(|&j| d.allowed(x, t)[j]).collect();
            assert_eq!(allowed, [t], "step {t}");
        }
        // With one more step the walk may pause once anywhere.
        let d = Domains::compute(&sys, 6);
        let allowed: Vec<usize> = (0..6).filter(|&j| d.allowed(x, 3)[j]).collect();
        assert_eq!(allowed, [2, 3]);
    }

    #[test]
    fn invariants_prune_and_frozen_sets_are_shared() {
        let mut sys = System::default();
        let r = sys.add_var("r", Domain::Range { lo: 1, hi: 4 }, true);
        let y = sys.add_var("y", Domain::Bool, false);
        sys.invar.push(Constraint {
            label: "r small".into(),
            expr: Expr::le(Expr::var(r), Expr::int(2)),
        });
        sys.invar.push(Constraint {
            label: "y iff r is 2".into(),
            expr: Expr::iff(Expr::var(y), Expr::eq(Expr::var(r), Expr::int(3))),
        });
        let d = Domains::compute(&sys, 2);
        assert_eq!(d.allowed(r, 2), [true, true, false, false]);
        assert_eq!(d.allowed(y, 1), [true, false]);
    }

    /// `init(x) := case x = 2 : {0, 1}; TRUE : 1; esac` holds only for
    /// `x = 1`: x's own value decides, so the values outside the constants
    /// it is compared with must not be judged by one representative (found
    /// by the random differential test, seed 3588066917317563488).
    #[test]
    fn a_self_referencing_initial_assignment_keeps_its_fixed_point() {
        let mut sys = System::default();
        let x = sys.add_var("x", Domain::Range { lo: 0, hi: 2 }, false);
        sys.init_assign.push(Assign {
            var: x,
            value: Expr::Case(vec![
                (
                    Expr::eq(Expr::var(x), Expr::int(2)),
                    Expr::Set(vec![Expr::int(0), Expr::int(1)]),
                ),
                (Expr::t(), Expr::int(1)),
            ]),
        });
        sys.goal = Expr::t();
        let d = Domains::compute(&sys, 0);
        assert_eq!(d.allowed(x, 0), [false, true, false]);
    }

    /// `f in {1, 1}` over `f : 0..1` may be false: a repeated member is one
    /// value, not two (counted twice, the analysis took the test for always
    /// true and pruned every solution; random differential test, seed
    /// 10441815522374635830 at k = 1).
    #[test]
    fn a_repeated_set_member_counts_once() {
        let mut sys = System::default();
        let f = sys.add_var("f", Domain::Range { lo: 0, hi: 1 }, false);
        let y = sys.add_var("y", Domain::Bool, false);
        sys.invar.push(Constraint {
            label: "y iff f in {1, 1}".into(),
            expr: Expr::iff(
                Expr::var(y),
                Expr::is_in(Expr::var(f), vec![Expr::int(1), Expr::int(1)]),
            ),
        });
        sys.goal = Expr::negate(Expr::var(y));
        let d = Domains::compute(&sys, 0);
        assert_eq!(d.allowed(f, 0), [true, false]);
        assert_eq!(d.allowed(y, 0), [true, false]);
    }
}
