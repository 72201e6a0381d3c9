//! Parameterisations of an experiment type: every assignment of alphabet
//! symbols to its parameters that honours `PARAMS_DISTINCT` and
//! `PARAMS_SORTED`.
//!
//! Input: an [`ExperimentType`] and the alphabet size. Output: the
//! parameter lists in lexicographic order of symbol indices (`AAAA <
//! AAAB < …`), or their number.
//!
//! Invariants: a list has one 0-based symbol index per parameter; it is
//! produced iff [`ExperimentType::allows`] accepts it.

use std::ops::ControlFlow;

use super::spec::ExperimentType;

/// A check made when a parameter gets its symbol, against an earlier one.
#[derive(Clone, Copy)]
enum Check {
    /// Different from parameter `q`.
    Ne(usize),
    /// At least parameter `q`'s symbol.
    Ge(usize),
    /// At most parameter `q`'s symbol.
    Le(usize),
}

/// For each position, the checks against earlier positions.
fn checks(ty: &ExperimentType) -> Vec<Vec<Check>> {
    let mut out = vec![Vec::new(); ty.arity];
    for g in &ty.distinct {
        for (x, &i) in g.iter().enumerate() {
            for &j in &g[x + 1..] {
                if i != j {
                    out[i.max(j)].push(Check::Ne(i.min(j)));
                }
            }
        }
    }
    for g in &ty.sorted {
        for w in g.windows(2) {
            // params[w[0]] <= params[w[1]], checked at the later position.
            let (a, b) = (w[0], w[1]);
            if a < b {
                out[b].push(Check::Ge(a));
            } else if b < a {
                out[a].push(Check::Le(b));
            }
        }
    }
    out
}

/// Calls `f` on every parameterisation in lexicographic order, until it
/// breaks.
pub fn for_each(ty: &ExperimentType, n_sym: usize, mut f: impl FnMut(&[u32]) -> ControlFlow<()>) {
    let checks = checks(ty);
    let mut params = vec![0u32; ty.arity];
    let _ = go(0, n_sym as u32, &checks, &mut params, &mut f);
}

fn go(
    pos: usize,
    n_sym: u32,
    checks: &[Vec<Check>],
    params: &mut Vec<u32>,
    f: &mut impl FnMut(&[u32]) -> ControlFlow<()>,
) -> ControlFlow<()> {
    if pos == params.len() {
        return f(params);
    }
    for s in 0..n_sym {
        let ok = checks[pos].iter().all(|c| match *c {
            Check::Ne(q) => params[q] != s,
            Check::Ge(q) => s >= params[q],
            Check::Le(q) => s <= params[q],
        });
        if ok {
            params[pos] = s;
            go(pos + 1, n_sym, checks, params, f)?;
        }
    }
    ControlFlow::Continue(())
}

/// Every parameterisation, if there are at most `cap`.
pub fn all(ty: &ExperimentType, n_sym: usize, cap: usize) -> Option<Vec<Vec<u32>>> {
    let mut out = Vec::new();
    let mut over = false;
    for_each(ty, n_sym, |p| {
        if out.len() == cap {
            over = true;
            return ControlFlow::Break(());
        }
        out.push(p.to_vec());
        ControlFlow::Continue(())
    });
    (!over).then_some(out)
}

/// The number of parameterisations, exact (`Ok`) or known to exceed
/// `cap` (`Err(cap)`).
pub fn count(ty: &ExperimentType, n_sym: usize, cap: u64) -> Result<u64, u64> {
    if ty.distinct.is_empty() && ty.sorted.is_empty() {
        let n = (n_sym as u128)
            .checked_pow(ty.arity as u32)
            .unwrap_or(u128::MAX);
        return if n <= cap as u128 {
            Ok(n as u64)
        } else {
            Err(cap)
        };
    }
    let mut n = 0u64;
    let mut over = false;
    for_each(ty, n_sym, |_| {
        if n == cap {
            over = true;
            return ControlFlow::Break(());
        }
        n += 1;
        ControlFlow::Continue(())
    });
    if over {
        Err(cap)
    } else {
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::generate;
    use crate::game::table::Builtin;

    fn ty(arity: usize, distinct: Vec<Vec<usize>>, sorted: Vec<Vec<usize>>) -> ExperimentType {
        ExperimentType {
            name: "e".into(),
            arity,
            distinct,
            sorted,
            outcomes: Vec::new(),
        }
    }

    #[test]
    fn lexicographic_and_restricted() {
        let free = all(&ty(2, vec![], vec![]), 3, 100).unwrap();
        assert_eq!(free.len(), 9);
        assert_eq!(free[1], vec![0, 1]);
        let d = all(&ty(2, vec![vec![0, 1]], vec![]), 3, 100).unwrap();
        assert_eq!(
            d,
            vec![
                vec![0, 1],
                vec![0, 2],
                vec![1, 0],
                vec![1, 2],
                vec![2, 0],
                vec![2, 1]
            ]
        );
        // Sorted in listed order, even against position order.
        let s = all(&ty(2, vec![], vec![vec![1, 0]]), 3, 100).unwrap();
        assert!(s.iter().all(|p| p[1] <= p[0]));
        assert_eq!(s.len(), 6);
        assert!(all(&ty(2, vec![], vec![]), 3, 8).is_none());
        assert_eq!(count(&ty(8, vec![], vec![]), 8, u64::MAX), Ok(1 << 24));
        assert_eq!(count(&ty(3, vec![vec![0, 1, 2]], vec![]), 4, 10), Err(10));
    }

    #[test]
    fn coin_weighings_match_the_native_table() {
        for name in ["coins:12", "coins:5+1"] {
            let b: Builtin = name.parse().unwrap();
            let spec = generate::spec(b);
            let table = b.table();
            let mut from_spec = Vec::new();
            for t in &spec.experiments {
                for p in all(t, spec.alphabet.len(), 1 << 20).unwrap() {
                    assert!(t.allows(&p));
                    let syms: Vec<String> = p
                        .iter()
                        .map(|&s| spec.alphabet[s as usize].clone())
                        .collect();
                    from_spec.push((t.name.clone(), syms));
                }
            }
            let native: Vec<(String, Vec<String>)> = table
                .experiments
                .iter()
                .map(|e| {
                    let params = e.params.iter().map(|p| p.to_string()).collect();
                    (e.kind.to_string(), params)
                })
                .collect();
            assert_eq!(from_spec, native, "{name}");
        }
    }
}
