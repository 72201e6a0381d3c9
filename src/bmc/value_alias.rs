//! One-hot value literals that an invariant defines outright.
//!
//! Input: a [`System`] and the boolean aliases of
//! [`analyse::aliases`](super::analyse::aliases). Output: for every
//! non-boolean, non-frozen variable `x`, the INVARs `x = v <-> e` (either
//! side, `v` a constant of `x`'s domain) whose `e` reads neither `x`, nor
//! a next state, nor any aliased variable (boolean or valued): the
//! unroller then uses the literal of `e` at a step as the one-hot literal
//! "`x = v`" there (equivalent literals merged rather than tied by
//! channel clauses), and still says "exactly one value" over the copy.
//!
//! This is [`analyse::aliases`](super::analyse::aliases) for the values of
//! a finite-domain variable: a grid model's `pos = c <-> rank[c] = step`
//! makes the step-by-step position the very literal of the frozen rank.
//!
//! Invariants: the INVAR holds in every state, so at every step `x = v`
//! and `e` have the same truth value in every solution; merging them
//! neither adds nor removes one. At most one definition per value.

use std::collections::HashSet;

use super::analyse::reads;
use super::unroll::index_of;
use crate::ir::{Domain, Expr, System, VarId};

/// The definition of one value: the INVAR's index and `e`.
pub(crate) type ValueDef = (usize, Expr);

/// A definition found, with the variables its `e` reads.
type Found = (usize, Expr, HashSet<VarId>);

/// `defs[x][i]`: the definition of "`x` has its domain's `i`-th value",
/// if any; `defs[x]` is empty for a variable with none.
pub(crate) fn value_aliases(
    sys: &System,
    bool_aliases: &[Option<(usize, Expr)>],
) -> Vec<Vec<Option<ValueDef>>> {
    let mut defs: Vec<Vec<Option<Found>>> = vec![Vec::new(); sys.vars.len()];
    for (i, c) in sys.invar.iter().enumerate() {
        let Expr::Iff(a, b) = &c.expr else { continue };
        for (side, e) in [(a, b), (b, a)] {
            let Some((x, index)) = value_test(sys, side) else {
                continue;
            };
            let slot = &mut defs[x.index()];
            if slot.is_empty() {
                slot.resize(sys.var(x).domain.size(), None);
            }
            if slot[index].is_some() {
                continue;
            }
            let (cur, nxt) = reads(sys, e);
            if nxt.is_empty() && !cur.contains(&x) {
                slot[index] = Some((i, (**e).clone(), cur));
                break;
            }
        }
    }
    // No definition reads an aliased variable (no chains, no cycles): the
    // aliases' copies are built after everyone else's.
    let aliased: HashSet<VarId> = (0..sys.vars.len())
        .filter(|&i| bool_aliases[i].is_some() || defs[i].iter().any(Option::is_some))
        .map(|i| VarId(i as u32))
        .collect();
    defs.into_iter()
        .map(|slot| {
            let kept: Vec<Option<ValueDef>> = slot
                .into_iter()
                .map(|d| d.and_then(|(i, e, cur)| cur.is_disjoint(&aliased).then_some((i, e))))
                .collect();
            if kept.iter().any(Option::is_some) {
                kept
            } else {
                Vec::new()
            }
        })
        .collect()
}

/// `x = v` (either side) for a non-frozen, non-boolean `x` and a constant
/// `v` of its domain: `(x, index of v)`.
fn value_test(sys: &System, e: &Expr) -> Option<(VarId, usize)> {
    let Expr::Eq(a, b) = e else { return None };
    let (x, v) = match (&**a, &**b) {
        (Expr::Var(x), Expr::Const(v)) | (Expr::Const(v), Expr::Var(x)) => (*x, v),
        _ => return None,
    };
    let var = sys.var(x);
    if var.frozen || matches!(var.domain, Domain::Bool) {
        return None;
    }
    Some((x, index_of(&var.domain, v)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Constraint;

    fn range(hi: i64) -> Domain {
        Domain::Range { lo: 0, hi }
    }

    #[test]
    fn finds_value_definitions_and_refuses_chains() {
        let mut sys = System::default();
        let x = sys.add_var("x", range(2), false);
        let r = sys.add_var("r", range(2), true);
        let y = sys.add_var("y", range(2), false);
        let invar = |sys: &mut System, expr| {
            sys.invar.push(Constraint {
                label: String::new(),
                expr,
            })
        };
        // x = 1 <-> r = 0; r = 2 <-> x = 2 (either side).
        invar(
            &mut sys,
            Expr::iff(
                Expr::eq(Expr::var(x), Expr::int(1)),
                Expr::eq(Expr::var(r), Expr::int(0)),
            ),
        );
        invar(
            &mut sys,
            Expr::iff(
                Expr::eq(Expr::var(r), Expr::int(2)),
                Expr::eq(Expr::int(2), Expr::var(x)),
            ),
        );
        // y = 0 <-> x = 0: reads an aliased variable, refused.
        invar(
            &mut sys,
            Expr::iff(
                Expr::eq(Expr::var(y), Expr::int(0)),
                Expr::eq(Expr::var(x), Expr::int(0)),
            ),
        );
        // A next state, or x itself: refused.
        invar(
            &mut sys,
            Expr::iff(
                Expr::eq(Expr::var(x), Expr::int(0)),
                Expr::eq(Expr::next(r), Expr::int(0)),
            ),
        );
        let defs = value_aliases(&sys, &vec![None; 3]);
        let found = |v: VarId| -> Vec<Option<usize>> {
            defs[v.index()]
                .iter()
                .map(|d| d.as_ref().map(|d| d.0))
                .collect()
        };
        assert_eq!(found(x), [None, Some(0), Some(1)]);
        assert!(defs[r.index()].is_empty() && defs[y.index()].is_empty());
    }
}
