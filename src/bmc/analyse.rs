//! Static facts about a system that make its unrolling smaller, derived
//! from the IR alone.
//!
//! Input: a [`System`]. Output (which invariants are asserted at every
//! step, not once for mentioning frozen variables only, is
//! [`System::step_invariants`]):
//! which variables are compared by order (they get the order encoding under
//! [`Encoding::Auto`](super::Encoding::Auto)), and, frame by frame, the
//! variables whose value is forced by their assignments alone (a step
//! counter `init(step) := 1; next(step) := step + 1` is the constant
//! `s + 1` at step `s`), which need no SAT variables at all; and the
//! boolean variables an invariant defines outright (`x <-> e`), which the
//! unroller replaces by their definition.
//!
//! Invariants: every fact is implied by the semantics of the system (a
//! forced value is the only one any path can have at that step), so using
//! them never adds or removes a solution.

use std::collections::HashSet;

use crate::ir::{Domain, Expr, System, Value, VarId};

/// The variables an expression reads, through DEFINEs: `(current, next)`.
pub(crate) fn reads(sys: &System, e: &Expr) -> (HashSet<VarId>, HashSet<VarId>) {
    let mut cur = HashSet::new();
    let mut nxt = HashSet::new();
    let mut seen_defines = HashSet::new();
    let mut todo = vec![e];
    while let Some(e) = todo.pop() {
        e.visit(&mut |x| match x {
            Expr::Var(v) => {
                cur.insert(*v);
            }
            Expr::Next(v) => {
                nxt.insert(*v);
            }
            Expr::Define(d) if seen_defines.insert(d.0) => {
                if let Some(def) = sys.defines.get(d.0 as usize) {
                    todo.push(&def.expr);
                }
            }
            _ => {}
        });
    }
    (cur, nxt)
}

/// The variables that appear as an operand of `<` or `≤` (directly, or
/// inside a sum or difference there).
pub(crate) fn ordered_vars(sys: &System) -> HashSet<VarId> {
    fn operands(e: &Expr, out: &mut HashSet<VarId>) {
        match e {
            Expr::Var(v) | Expr::Next(v) => {
                out.insert(*v);
            }
            Expr::Add(xs) => xs.iter().for_each(|x| operands(x, out)),
            Expr::Sub(a, b) => {
                operands(a, out);
                operands(b, out);
            }
            _ => {}
        }
    }
    let mut out = HashSet::new();
    let mut visit = |e: &Expr| {
        e.visit(&mut |x| {
            if let Expr::Lt(a, b) | Expr::Le(a, b) = x {
                operands(a, &mut out);
                operands(b, &mut out);
            }
        })
    };
    for d in &sys.defines {
        visit(&d.expr);
    }
    for a in sys.init_assign.iter().chain(&sys.next_assign) {
        visit(&a.value);
    }
    for c in sys.init.iter().chain(&sys.trans).chain(&sys.invar) {
        visit(&c.expr);
    }
    visit(&sys.goal);
    out
}

/// Boolean state variables that an invariant defines outright: an INVAR
/// `x <-> e` (either side) with `x` a non-frozen boolean that `e` does not
/// read, and `e` reading no next state and no other such variable. Since
/// the INVAR holds in every state, `x` equals `e` at every step, so the
/// unroller can use the literal of `e` as the copy of `x` (equivalent
/// literals merged rather than tied by channel clauses: no solution gained
/// or lost). `aliases[x]` is `Some((i, e))` for INVAR number `i`; `e`
/// reads no aliased variable.
pub(crate) fn aliases(sys: &System) -> Vec<Option<(usize, Expr)>> {
    let mut found: Vec<Option<(usize, Expr, HashSet<VarId>)>> = vec![None; sys.vars.len()];
    for (i, c) in sys.invar.iter().enumerate() {
        let Expr::Iff(a, b) = &c.expr else { continue };
        for (x, e) in [(a, b), (b, a)] {
            let Expr::Var(x) = **x else { continue };
            let var = sys.var(x);
            if var.frozen || !matches!(var.domain, Domain::Bool) || found[x.index()].is_some() {
                continue;
            }
            let (cur, nxt) = reads(sys, e);
            if nxt.is_empty() && !cur.contains(&x) {
                found[x.index()] = Some((i, (**e).clone(), cur));
                break;
            }
        }
    }
    // Drop any definition that reads an aliased variable (no chains, no
    // cycles): the aliases' copies are built after everyone else's.
    let aliased: HashSet<VarId> = (0..found.len())
        .filter(|&i| found[i].is_some())
        .map(|i| VarId(i as u32))
        .collect();
    found
        .into_iter()
        .map(|f| f.and_then(|(i, e, cur)| cur.is_disjoint(&aliased).then_some((i, e))))
        .collect()
}

/// What each init and each next assignment reads (computed once).
pub(crate) struct AssignReads {
    init: Vec<(HashSet<VarId>, HashSet<VarId>)>,
    next: Vec<(HashSet<VarId>, HashSet<VarId>)>,
}

impl AssignReads {
    pub fn new(sys: &System) -> AssignReads {
        let of =
            |assigns: &[crate::ir::Assign]| assigns.iter().map(|a| reads(sys, &a.value)).collect();
        AssignReads {
            init: of(&sys.init_assign),
            next: of(&sys.next_assign),
        }
    }
}

/// The values forced at one step: `forced[v]` is `Some(value)` when the
/// assignments of `v` leave it a single value there, given the values
/// forced at the previous step (`prev`, `None` at step 0).
pub(crate) fn forced_values(
    sys: &System,
    all_reads: &AssignReads,
    prev: Option<&[Option<Value>]>,
) -> Vec<Option<Value>> {
    let n = sys.vars.len();
    let mut forced: Vec<Option<Value>> = vec![None; n];
    let assigns = match prev {
        None => &sys.init_assign,
        Some(_) => &sys.next_assign,
    };
    if let Some(prev) = prev {
        // Frozen variables keep the value they were forced to.
        for (i, var) in sys.vars.iter().enumerate() {
            if var.frozen {
                forced[i] = prev[i].clone();
            }
        }
    }
    // Assignments may read each other's results (next(y) := next(x)):
    // repeat until nothing changes.
    let reads = match prev {
        None => &all_reads.init,
        Some(_) => &all_reads.next,
    };
    let filler = |v: &crate::ir::Var| v.domain.values().into_iter().next();
    loop {
        let mut changed = false;
        for (a, (cur, nxt)) in assigns.iter().zip(reads) {
            if forced[a.var.index()].is_some() {
                continue;
            }
            let (now, next): (&[Option<Value>], &[Option<Value>]) = match prev {
                None => (&forced, &[]),
                Some(p) => (p, &forced),
            };
            let known = |set: &HashSet<VarId>, vals: &[Option<Value>]| {
                set.iter()
                    .all(|v| vals.get(v.index()).is_some_and(Option::is_some))
            };
            let next_reads_ok = match prev {
                None => nxt.is_empty(),
                Some(_) => known(nxt, next),
            };
            if !known(cur, now) || !next_reads_ok {
                continue;
            }
            // A full state for the evaluator: forced values where read,
            // anything elsewhere (not read).
            let fill = |vals: &[Option<Value>]| -> Option<Vec<Value>> {
                sys.vars
                    .iter()
                    .enumerate()
                    .map(|(i, var)| vals.get(i).cloned().flatten().or_else(|| filler(var)))
                    .collect()
            };
            let (Some(cur_state), Some(next_state)) = (fill(now), fill(next)) else {
                continue;
            };
            let nxt_arg = prev.map(|_| next_state.as_slice());
            if let Ok(values) = sys.eval_set(&cur_state, nxt_arg, &a.value) {
                let var = sys.var(a.var);
                if let [v] = values.as_slice() {
                    if var.domain.contains(v) {
                        forced[a.var.index()] = Some(v.clone());
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return forced;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Assign, Domain};

    #[test]
    fn a_step_counter_is_forced_and_a_free_choice_is_not() {
        let mut sys = System::default();
        let step = sys.add_var("step", Domain::Range { lo: 1, hi: 4 }, false);
        let x = sys.add_var("x", Domain::Range { lo: 0, hi: 3 }, false);
        let y = sys.add_var("y", Domain::Range { lo: 0, hi: 9 }, false);
        sys.init_assign.push(Assign {
            var: step,
            value: Expr::int(1),
        });
        sys.init_assign.push(Assign {
            var: x,
            value: Expr::Set(vec![Expr::int(0), Expr::int(1)]),
        });
        sys.next_assign.push(Assign {
            var: step,
            value: Expr::Add(vec![Expr::var(step), Expr::int(1)]),
        });
        // y follows step in the same transition.
        sys.next_assign.push(Assign {
            var: y,
            value: Expr::Add(vec![Expr::next(step), Expr::int(5)]),
        });
        let r = AssignReads::new(&sys);
        let f0 = forced_values(&sys, &r, None);
        assert_eq!(f0, [Some(Value::Int(1)), None, None]);
        let f1 = forced_values(&sys, &r, Some(&f0));
        assert_eq!(f1, [Some(Value::Int(2)), None, Some(Value::Int(7))]);
        let f2 = forced_values(&sys, &r, Some(&f1));
        let f3 = forced_values(&sys, &r, Some(&f2));
        // step would be 5 at step 4: outside its domain, so not forced.
        let f4 = forced_values(&sys, &r, Some(&f3));
        assert_eq!(f3[0], Some(Value::Int(4)));
        assert_eq!(f4[0], None);
    }
}
