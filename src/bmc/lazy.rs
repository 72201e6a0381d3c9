//! Lazy acyclicity: the INVARs of a [`System::acyclic`] hint are left out
//! of the CNF, the cycles of each model are cut off as they show up, and
//! the witness ranks get values of the engine's own at the end
//! (counterexample-guided refinement of a relaxed system).
//!
//! Input: a system with the hint. Output: a [`Lazy`] plan (or `None`
//! when the hint does not hold up, see [`Lazy::new`]): what to leave out
//! of the unrolling (the hint's INVARs, and the ranks as constants: see
//! `Unroller::relax`), and for each model either the cut clauses that
//! its cycles break ([`Refinement::Cuts`]) or the model completed with
//! ranks, to be checked against the whole system like any other trace.
//!
//! Why it is sound:
//! * the relaxed system is the whole one without the hint's INVARs and
//!   with each rank held at one value; nothing else reads a rank, so
//!   every solution of the whole system is one of the relaxed system
//!   (with its ranks replaced);
//! * a cut holds in every acyclic successor graph: following successors
//!   from any node of a node set `S` ends at a node without one, so some
//!   node of `S` has no successor or one outside `S`. The cuts taken are
//!   the sets of each cycle of the model and of each connected part of
//!   the nodes that lead into a cycle (connected through the pointers the
//!   domains allow, in either direction): a cut rules out at once every
//!   way of pointing all of the set inside it, each of which closes a
//!   cycle there;
//! * a model without a cycle gets `rank[i] = lo + n - 1 - d(i)`, `d(i)`
//!   the number of successors from `i` to the node without one: the ranks
//!   grow by one along every pointer and lie in `lo..=lo + n - 1`, so the
//!   hint's INVARs hold. The completed trace is still checked against the
//!   whole system, so a hint that breaks its own invariants gives an
//!   engine error, never a wrong answer.
//!
//! Counting is unchanged: solutions are blocked on the solution
//! variables, which must not be ranks (an eager search would count every
//! ranking of one graph; [`Lazy::new`] turns the lazy search down for
//! such a system), and a model with a cycle is not a solution, so it is
//! refined, not counted.

use crate::ir::{Acyclic, Domain, Expr, System, Trace, Value, VarId};

use super::unroll::{index_of, nth_value};

/// What the relaxed search leaves out, and the graphs whose cycles it
/// cuts.
pub(crate) struct Lazy {
    /// Per INVAR of the system: one of the hints' (left out).
    pub skip: Vec<bool>,
    /// The ranks (left to the engine: constant in the unrolling).
    pub witnesses: Vec<VarId>,
    graphs: Vec<Graph>,
}

/// One hint's graph, checked and with its neighbourhoods.
struct Graph {
    succ: Vec<VarId>,
    target: Vec<Vec<Option<usize>>>,
    rank: Vec<VarId>,
    /// The domain of each `succ[i]`.
    domains: Vec<Domain>,
    /// The lowest rank value.
    lo: i64,
    /// Nodes one allowed pointer away, either way.
    near: Vec<Vec<usize>>,
}

/// What a model of the relaxed system needs.
pub(crate) enum Refinement {
    /// Clauses (disjunctions of `var = value`) that the model breaks and
    /// every solution keeps.
    Cuts(Vec<Vec<(VarId, Value)>>),
    /// No cycle: the model with its ranks, a candidate solution.
    Complete(Trace),
}

impl Lazy {
    /// The plan for `sys`'s hints, or `None` when it has none or one of
    /// them breaks what [`Acyclic`] promises in a way that can be seen
    /// here (a variable not frozen, a rank read elsewhere, a rank range
    /// too small, a target out of range), or a rank is a solution
    /// variable: then the engine encodes the INVARs as they are.
    pub fn new(sys: &System) -> Option<Lazy> {
        if sys.acyclic.is_empty() {
            return None;
        }
        let graphs: Vec<Graph> = sys
            .acyclic
            .iter()
            .map(|h| Graph::new(sys, h))
            .collect::<Option<_>>()?;
        let mut dropped = vec![false; sys.invar.len()];
        for h in &sys.acyclic {
            for &i in &h.invars {
                *dropped.get_mut(i)? = true;
            }
        }
        let witnesses: Vec<VarId> = graphs.iter().flat_map(|g| g.rank.clone()).collect();
        let counted = |v: &VarId| sys.solution_vars.is_empty() || sys.solution_vars.contains(v);
        if witnesses.iter().any(counted) || reads_any_outside(sys, &witnesses, &dropped) {
            return None;
        }
        Some(Lazy {
            skip: dropped,
            witnesses,
            graphs,
        })
    }

    /// Cuts for the cycles of `trace` (a model of the relaxed unrolling),
    /// or the trace with ranks that grow along its pointers.
    pub fn refine(&self, mut trace: Trace) -> Refinement {
        let mut cuts = Vec::new();
        let Some(first) = trace.states.first() else {
            return Refinement::Complete(trace);
        };
        let nexts: Vec<Vec<Option<usize>>> = self.graphs.iter().map(|g| g.nexts(first)).collect();
        for (g, next) in self.graphs.iter().zip(&nexts) {
            g.cuts(next, &mut cuts);
        }
        if !cuts.is_empty() {
            return Refinement::Cuts(cuts);
        }
        for (g, next) in self.graphs.iter().zip(&nexts) {
            let depth = depths(next);
            let n = g.succ.len() as i64;
            for state in &mut trace.states {
                for (i, &r) in g.rank.iter().enumerate() {
                    state[r.index()] = Value::Int(g.lo + n - 1 - depth[i] as i64);
                }
            }
        }
        Refinement::Complete(trace)
    }
}

/// The cuts of `sys`'s hints ([`Acyclic::cuts`]) that are cycles of
/// their graph, as (hint, cut) indices: each is then implied by the
/// hint's INVARs (the ranks grow along every pointer, so no cycle is
/// ever closed), and a clause that one of its pointers is not taken
/// removes no solution. A cut that is no such cycle (a node or value out
/// of range, a node twice, pointers that leave the cut or close a
/// shorter cycle) is left out.
pub(crate) fn hint_cuts(sys: &System) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut scratch = CycleScratch::default();
    for (h, hint) in sys.acyclic.iter().enumerate() {
        // A node of `target` is one of `succ`.
        if hint.succ.len() != hint.target.len() {
            continue;
        }
        for (c, cut) in hint.cuts.iter().enumerate() {
            if is_cycle(cut, &hint.target, &mut scratch) {
                out.push((h, c));
            }
        }
    }
    out
}

/// [`is_cycle`]'s buffers, kept between calls: `pos[node]` is the
/// node's position in the cut being looked at (`usize::MAX`: not in it;
/// every entry is that again between calls), `to[k]` the position of the
/// node the `k`-th pointer points at.
#[derive(Default)]
pub(crate) struct CycleScratch {
    pos: Vec<usize>,
    to: Vec<usize>,
}

/// Whether the pointers `cut` (node, value index; in any order) form one
/// cycle through all their nodes in the graph `target`. Linear in the
/// cut's length: the cuts are short (a grid's small rings), but the
/// waypoint successor model has ~1,600 of them on a 9x9 board.
pub(crate) fn is_cycle(
    cut: &[(usize, usize)],
    target: &[Vec<Option<usize>>],
    scratch: &mut CycleScratch,
) -> bool {
    let n = cut.len();
    let CycleScratch { pos, to } = scratch;
    if pos.len() < target.len() {
        pos.resize(target.len(), usize::MAX);
    }
    // Each node once, and in range: `entered` of them are, up to the
    // first that is not.
    let mut entered = 0;
    for (k, &(i, _)) in cut.iter().enumerate() {
        if i >= target.len() || pos[i] != usize::MAX {
            break;
        }
        pos[i] = k;
        entered += 1;
    }
    // The position in `cut` of the node each pointer points at.
    to.clear();
    if entered == n {
        for &(i, v) in cut {
            match target[i].get(v).copied().flatten().map(|j| pos.get(j)) {
                Some(Some(&p)) if p != usize::MAX => to.push(p),
                _ => break,
            }
        }
    }
    for &(i, _) in &cut[..entered] {
        pos[i] = usize::MAX;
    }
    if to.len() < n {
        return false;
    }
    // Following the pointers from the first comes back after `n` moves,
    // and no sooner.
    let mut at = 0;
    for moves in 1..=n {
        at = to[at];
        if at == 0 {
            return moves == n && n >= 2;
        }
    }
    false
}

impl Graph {
    fn new(sys: &System, h: &Acyclic) -> Option<Graph> {
        let n = h.succ.len();
        if n == 0 || h.target.len() != n || h.rank.len() != n {
            return None;
        }
        let var = |v: VarId| sys.vars.get(v.index());
        let mut lo = None;
        for (i, (&s, &r)) in h.succ.iter().zip(&h.rank).enumerate() {
            let (s, r) = (var(s)?, var(r)?);
            let ok_targets = h.target[i].len() == s.domain.size()
                && h.target[i].iter().flatten().all(|&j| j < n);
            let Domain::Range { lo: l, hi } = r.domain else {
                return None;
            };
            if !s.frozen || !r.frozen || !ok_targets || hi - l + 1 < n as i64 {
                return None;
            }
            // One lowest rank for all: the relaxed ranks are that value.
            if *lo.get_or_insert(l) != l {
                return None;
            }
        }
        let mut near = vec![Vec::new(); n];
        for (i, ts) in h.target.iter().enumerate() {
            for &j in ts.iter().flatten() {
                near[i].push(j);
                near[j].push(i);
            }
        }
        for x in &mut near {
            x.sort_unstable();
            x.dedup();
        }
        Some(Graph {
            succ: h.succ.clone(),
            target: h.target.clone(),
            rank: h.rank.clone(),
            domains: h.succ.iter().map(|&s| sys.var(s).domain.clone()).collect(),
            lo: lo?,
            near,
        })
    }

    /// Each node's successor in `state` (`None`: none, or a value outside
    /// the domain, which the check rejects anyway).
    fn nexts(&self, state: &[Value]) -> Vec<Option<usize>> {
        self.succ
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                index_of(&self.domains[i], &state[s.index()]).and_then(|v| self.target[i][v])
            })
            .collect()
    }

    /// Appends a cut for each cycle of `next` and for each connected part
    /// of the nodes that lead into a cycle (when it is more than the cycle).
    fn cuts(&self, next: &[Option<usize>], out: &mut Vec<Vec<(VarId, Value)>>) {
        let n = next.len();
        // 0: not seen, 1: on the current walk, 2: leads to no cycle,
        // 3: leads into a cycle.
        let mut mark = vec![0u8; n];
        let mut cycles: Vec<Vec<usize>> = Vec::new();
        let mut path = Vec::new();
        for start in 0..n {
            let mut i = start;
            let end = loop {
                if mark[i] != 0 {
                    break mark[i];
                }
                mark[i] = 1;
                path.push(i);
                match next[i] {
                    Some(j) => i = j,
                    None => break 2,
                }
            };
            let end = if end == 1 {
                // Closed a cycle at `i`: it is the tail of `path` from `i`.
                let from = path.iter().rposition(|&x| x == i).unwrap_or(0);
                cycles.push(path[from..].to_vec());
                3
            } else {
                end
            };
            for &j in &path {
                mark[j] = end;
            }
            path.clear();
        }
        if cycles.is_empty() {
            return;
        }
        let mut sets: Vec<Vec<usize>> = Vec::new();
        let mut seen = vec![false; n];
        for start in 0..n {
            if mark[start] != 3 || seen[start] {
                continue;
            }
            let mut part = vec![start];
            seen[start] = true;
            let mut k = 0;
            while k < part.len() {
                for &j in &self.near[part[k]] {
                    if mark[j] == 3 && !seen[j] {
                        seen[j] = true;
                        part.push(j);
                    }
                }
                k += 1;
            }
            sets.push(part);
        }
        for set in &mut sets {
            set.sort_unstable();
        }
        for mut c in cycles {
            c.sort_unstable();
            if !sets.contains(&c) {
                sets.push(c);
            }
        }
        let mut inside = vec![false; n];
        for set in sets {
            set.iter().for_each(|&i| inside[i] = true);
            let mut cut = Vec::new();
            for &i in &set {
                let dom = &self.domains[i];
                for (v, t) in self.target[i].iter().enumerate() {
                    if t.is_none_or(|j| !inside[j]) {
                        cut.push((self.succ[i], nth_value(dom, v)));
                    }
                }
            }
            set.iter().for_each(|&i| inside[i] = false);
            out.push(cut);
        }
    }
}

/// Node `i`'s number of successors up to a node without one, in a graph
/// without cycles.
fn depths(next: &[Option<usize>]) -> Vec<usize> {
    const UNKNOWN: usize = usize::MAX;
    let mut depth = vec![UNKNOWN; next.len()];
    let mut path = Vec::new();
    for start in 0..next.len() {
        let mut i = start;
        while depth[i] == UNKNOWN {
            path.push(i);
            match next[i] {
                Some(j) => i = j,
                None => {
                    depth[i] = 0;
                    path.pop();
                    break;
                }
            }
        }
        let mut d = depth[i];
        while let Some(j) = path.pop() {
            d += 1;
            depth[j] = d;
        }
    }
    depth
}

/// Whether any constraint, assignment, DEFINE or the goal reads one of
/// `vars`, INVARs marked in `skip` aside.
fn reads_any_outside(sys: &System, vars: &[VarId], skip: &[bool]) -> bool {
    let mut hit = vec![false; sys.vars.len()];
    for v in vars {
        hit[v.index()] = true;
    }
    let reads = |e: &Expr| {
        let mut found = false;
        e.visit(&mut |x| {
            if let Expr::Var(v) | Expr::Next(v) = x {
                found |= hit[v.index()];
            }
        });
        found
    };
    let invars = sys
        .invar
        .iter()
        .enumerate()
        .filter(|(i, _)| !skip[*i])
        .map(|(_, c)| &c.expr);
    let constraints = sys.init.iter().chain(&sys.trans).map(|c| &c.expr);
    let assigns = sys
        .init_assign
        .iter()
        .chain(&sys.next_assign)
        .map(|a| &a.value);
    let assigned = sys
        .init_assign
        .iter()
        .chain(&sys.next_assign)
        .any(|a| hit[a.var.index()]);
    assigned
        || invars
            .chain(constraints)
            .chain(assigns)
            .chain(sys.defines.iter().map(|d| &d.expr))
            .chain([&sys.goal])
            .any(reads)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depths_count_the_steps_to_the_end() {
        assert_eq!(depths(&[Some(1), Some(2), None, Some(2)]), vec![2, 1, 0, 1]);
    }

    /// Nodes 0..5 on a line, each may point at its neighbours or nowhere.
    fn line() -> (System, Graph) {
        let mut sys = System::default();
        let n: usize = 5;
        let mut h = Acyclic::default();
        for i in 0..n {
            let s = sys.add_var(
                format!("s{i}"),
                Domain::Enum(vec!["l".into(), "r".into(), "none".into()]),
                true,
            );
            h.succ.push(s);
            h.target
                .push(vec![i.checked_sub(1), (i + 1 < n).then_some(i + 1), None]);
        }
        for i in 0..n {
            h.rank
                .push(sys.add_var(format!("r{i}"), Domain::Range { lo: 0, hi: 9 }, true));
        }
        let g = Graph::new(&sys, &h).unwrap();
        (sys, g)
    }

    #[test]
    fn a_cycle_and_what_leads_into_it_are_cut_off() {
        let (_, g) = line();
        // 0 -> 1 -> 0 is a cycle, 2 leads into it, 3 -> 4 -> end.
        let mut cuts = Vec::new();
        g.cuts(&[Some(1), Some(0), Some(1), Some(4), None], &mut cuts);
        let sets: Vec<Vec<String>> = cuts
            .iter()
            .map(|c| c.iter().map(|(v, x)| format!("{}={x}", v.0)).collect())
            .collect();
        // The part {0, 1, 2} and the cycle {0, 1}: some node leaves them
        // (node 0's `l` points nowhere: it has no successor).
        assert_eq!(
            sets,
            vec![
                vec!["0=l", "0=none", "1=none", "2=r", "2=none"],
                vec!["0=l", "0=none", "1=r", "1=none"],
            ]
        );
        cuts.clear();
        g.cuts(&[None, Some(0), Some(1), Some(2), Some(3)], &mut cuts);
        assert!(cuts.is_empty());
    }
}
