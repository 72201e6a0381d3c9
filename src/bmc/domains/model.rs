//! The checks' tables: what the analysis of [`super::Domains`] looks at.
//!
//! Input: a [`System`] and a bound. Output: a [`Model`]: its constraints
//! split into atoms ([`atoms`]) and compiled ([`Program`]), what each
//! atom and assignment reads ([`Reads`], by class), which checks read
//! each variable ([`Uses`], [`Watch`]), the accumulators
//! ([`Accumulator`]) and the keys of the per-check, per-step tables.
//!
//! Invariants: everything here is fixed before the first check and read
//! only after; the checks themselves are in the parent module.

use crate::bmc::program::{Node, NodeId, Place, Program};
use crate::ir::{Expr, System, Value, VarId};

/// A conjunct of a constraint ("atom"): `p1 | (p2 | (… | leaf))` for
/// the disjuncts `prefix` that [`atoms`] distributed over a conjunction,
/// by reference (nothing is copied); a prefix entry marked `true` is the
/// premise `a` of `a -> (b1 & …)` and stands for `!a`.
struct Atom<'e> {
    prefix: Vec<(&'e Expr, bool)>,
    leaf: &'e Expr,
    /// The atoms (by index) the outermost prefix entry (`prefix[0]`)
    /// was distributed over: all of them hold once it does.
    group: Option<std::ops::Range<usize>>,
}

impl<'e> Atom<'e> {
    fn parts(&self) -> impl Iterator<Item = &'e Expr> + '_ {
        self.prefix.iter().map(|&(e, _)| e).chain([self.leaf])
    }
}

/// A constraint is split into conjuncts ("atoms") so a support check only
/// evaluates the ones that read the variable under test.
fn atoms<'e>(
    e: &'e Expr,
    sys: &'e System,
    prefix: &mut Vec<(&'e Expr, bool)>,
    out: &mut Vec<Atom<'e>>,
) {
    let leaf = |prefix: &Vec<(&'e Expr, bool)>, out: &mut Vec<Atom<'e>>| {
        out.push(Atom {
            prefix: prefix.clone(),
            leaf: e,
            group: None,
        })
    };
    // `a | (b1 & b2 & …)` with a small `a`: `(a | b1) & (a | b2) & …`;
    // likewise `a -> (b1 & …)` is `(a -> b1) & …` (a grid path's
    // `cover`: one atom per cell, not one that reads every cell). The
    // atoms share `a`: a true `a` (a false one, for `->`) makes every
    // one of them hold, found once for all ([`Model::groups`]).
    let mut distribute = |a: &'e Expr, premise: bool, b: &'e Expr| {
        let from = out.len();
        prefix.push((a, premise));
        atoms(b, sys, prefix, out);
        prefix.pop();
        let to = out.len();
        for atom in &mut out[from..to] {
            atom.group = Some(from..to);
        }
    };
    match e {
        Expr::And(xs) => xs.iter().for_each(|x| atoms(x, sys, prefix, out)),
        Expr::Define(d) => match sys.defines.get(d.0 as usize) {
            Some(def) if matches!(def.expr, Expr::And(_)) => atoms(&def.expr, sys, prefix, out),
            _ => leaf(prefix, out),
        },
        Expr::Or(xs) if xs.len() == 2 && matches!(xs[1], Expr::And(_)) => {
            distribute(&xs[0], false, &xs[1])
        }
        Expr::Implies(a, b) if matches!(**b, Expr::And(_)) => distribute(a, true, b),
        _ => leaf(prefix, out),
    }
}

/// Atoms that one shared disjunct makes hold (see [`atoms`]): `node`
/// (compiled) holds them all when it must be true, or when `premise`
/// (it is the premise of an implication) and it must be false.
pub(super) struct Group {
    pub(super) node: NodeId,
    pub(super) premise: bool,
    pub(super) atoms: std::ops::Range<usize>,
}

/// The value indices a copy is compared with, or `None` (see [`Reads`]).
pub(super) type Class = Option<Vec<usize>>;

/// A constraint (or assignment) that reads a variable, and the values
/// it compares the variable with when it only ever compares it with
/// constants (then every other value behaves alike and is checked once).
/// The third field numbers the use among all uses of all variables: its
/// slot in [`Domains::checked`](super::Domains::checked).
type Use = (usize, Class, usize);

/// The copies a check depends on: variables, their classes (as in
/// [`Reads`], by the same index) and the step they are read at.
pub(super) type Dep<'a> = (&'a [VarId], &'a [Class], usize);

/// The class of a copy read in any way: every removal matters.
pub(super) const ANY: &[Class] = &[None];

/// Which constraints read a variable, by role.
#[derive(Default, Clone)]
pub(super) struct Uses {
    pub(super) invar: Vec<Use>,
    pub(super) init: Vec<Use>,
    pub(super) init_assign: Vec<Use>,
    pub(super) trans_cur: Vec<Use>,
    pub(super) trans_next: Vec<Use>,
    pub(super) next_cur: Vec<Use>,
    pub(super) next_next: Vec<Use>,
    pub(super) goal: Option<Use>,
}

/// What an expression reads (through DEFINEs): the variables of the
/// current state and of the next, sorted, and for each of them (by the
/// same index) its class: the value indices the expression compares that
/// copy with (`x = c`, `x in {c, …}`), or `None` when it reads the copy
/// in any other way (then every value must be checked on its own).
#[derive(Default)]
pub(super) struct Reads {
    pub(super) cur: Vec<VarId>,
    pub(super) next: Vec<VarId>,
    pub(super) cur_class: Vec<Class>,
    pub(super) next_class: Vec<Class>,
}

/// Per copy `(var, next)` seen by [`sorted_reads`]: the constants
/// compared with, or `None`; kept between calls (one walk per atom: no
/// map or flags allocated each time).
struct Seen {
    /// `at[2 * var + next]`: the copy's place in `list` (`u32::MAX`: not
    /// seen).
    at: Vec<u32>,
    list: Vec<((VarId, bool), Class)>,
    /// Per DEFINE: walked already in this call; `walked` lists those.
    defines: Vec<bool>,
    walked: Vec<usize>,
}

impl Seen {
    pub(super) fn new(sys: &System) -> Seen {
        Seen {
            at: vec![u32::MAX; 2 * sys.vars.len()],
            list: Vec::new(),
            defines: vec![false; sys.defines.len()],
            walked: Vec::new(),
        }
    }

    /// The class of `x`, empty when it is new.
    fn entry(&mut self, x: (VarId, bool)) -> &mut Class {
        let k = 2 * x.0.index() + x.1 as usize;
        if k >= self.at.len() {
            self.at.resize(k + 1, u32::MAX);
        }
        if self.at[k] == u32::MAX {
            self.at[k] = self.list.len() as u32;
            self.list.push((x, Some(Vec::new())));
        }
        &mut self.list[self.at[k] as usize].1
    }

    fn insert(&mut self, x: (VarId, bool), class: Class) {
        *self.entry(x) = class;
    }
}

/// Reads and classes of the disjunction of `parts`, in one walk.
fn sorted_reads<'e>(
    sys: &System,
    seen: &mut Seen,
    parts: impl IntoIterator<Item = &'e Expr>,
) -> Reads {
    fn copy(e: &Expr) -> Option<(VarId, bool)> {
        match e {
            Expr::Var(v) => Some((*v, false)),
            Expr::Next(v) => Some((*v, true)),
            _ => None,
        }
    }
    fn push(sys: &System, seen: &mut Seen, x: (VarId, bool), c: &Value) {
        let j = sys
            .vars
            .get(x.0.index())
            .and_then(|var| crate::bmc::unroll::index_of(&var.domain, c));
        let entry = seen.entry(x);
        if let (Some(list), Some(j)) = (entry, j) {
            list.push(j);
        }
    }
    fn walk(sys: &System, e: &Expr, seen: &mut Seen) {
        match e {
            Expr::Eq(a, b) => match (&**a, &**b) {
                (x, Expr::Const(c)) | (Expr::Const(c), x) if copy(x).is_some() => {
                    if let Some(x) = copy(x) {
                        push(sys, seen, x, c);
                    }
                }
                _ => {
                    walk(sys, a, seen);
                    walk(sys, b, seen);
                }
            },
            Expr::In(a, items) if copy(a).is_some() => {
                if let Some(x) = copy(a) {
                    if items.iter().all(|i| matches!(i, Expr::Const(_))) {
                        // Read even when the set is empty.
                        seen.entry(x);
                        for i in items {
                            if let Expr::Const(c) = i {
                                push(sys, seen, x, c);
                            }
                        }
                    } else {
                        seen.insert(x, None);
                        items.iter().for_each(|i| walk(sys, i, seen));
                    }
                }
            }
            Expr::Const(_) => {}
            Expr::Var(_) | Expr::Next(_) => {
                if let Some(x) = copy(e) {
                    seen.insert(x, None);
                }
            }
            Expr::Define(d) => {
                // A second visit would find the same: once is enough.
                let i = d.0 as usize;
                if let (Some(def), Some(false)) = (sys.defines.get(i), seen.defines.get(i)) {
                    seen.defines[i] = true;
                    seen.walked.push(i);
                    walk(sys, &def.expr, seen);
                }
            }
            Expr::Not(a) => walk(sys, a, seen),
            Expr::And(xs) | Expr::Or(xs) | Expr::Add(xs) | Expr::Count(xs) | Expr::Set(xs) => {
                xs.iter().for_each(|x| walk(sys, x, seen))
            }
            Expr::Implies(a, b)
            | Expr::Iff(a, b)
            | Expr::Lt(a, b)
            | Expr::Le(a, b)
            | Expr::Sub(a, b) => {
                walk(sys, a, seen);
                walk(sys, b, seen);
            }
            Expr::Ite(c, a, b) => {
                walk(sys, c, seen);
                walk(sys, a, seen);
                walk(sys, b, seen);
            }
            Expr::Case(arms) => arms.iter().for_each(|(g, v)| {
                walk(sys, g, seen);
                walk(sys, v, seen);
            }),
            Expr::In(a, items) => {
                walk(sys, a, seen);
                items.iter().for_each(|i| walk(sys, i, seen));
            }
        }
    }
    for e in parts {
        walk(sys, e, seen);
    }
    for i in seen.walked.drain(..) {
        seen.defines[i] = false;
    }
    for &((v, next), _) in &seen.list {
        seen.at[2 * v.index() + next as usize] = u32::MAX;
    }
    seen.list.sort_unstable_by_key(|&((v, next), _)| (next, v));
    let mut out = Reads::default();
    for ((v, next), class) in seen.list.drain(..) {
        let class = class.map(|mut c| {
            c.sort_unstable();
            c.dedup();
            c
        });
        if next {
            out.next.push(v);
            out.next_class.push(class);
        } else {
            out.cur.push(v);
            out.cur_class.push(class);
        }
    }
    out
}

/// Whether invariant atom `a` reads (in the current state, through
/// DEFINEs) only frozen variables, and not exactly one of them: no
/// variable is ever checked against it (a non-frozen one does not read
/// it, and a frozen one only meets its unary invariants).
fn never_checked(sys: &System, a: &Atom) -> bool {
    let mut reads = FrozenReads {
        sys,
        one: None,
        many: false,
        defines: Vec::new(),
    };
    a.parts().all(|e| reads.frozen_only(e)) && (reads.many || reads.one.is_none())
}

/// The walk of [`never_checked`]: it stops at the first variable that is
/// not frozen, and allocates only for DEFINEs (a grid model's atoms are
/// thousands of small trees over frozen variables, walked once each:
/// with [`Expr::visit`] and a stack per atom this was 6% of a 9x9
/// waypoint solve).
struct FrozenReads<'s> {
    sys: &'s System,
    /// The one variable read so far, and whether another one was too.
    one: Option<VarId>,
    many: bool,
    /// DEFINEs walked already.
    defines: Vec<u32>,
}

impl FrozenReads<'_> {
    /// Whether `e` reads frozen variables only (those it reads are noted).
    fn frozen_only(&mut self, e: &Expr) -> bool {
        match e {
            Expr::Var(v) => {
                match self.one {
                    None => self.one = Some(*v),
                    Some(w) => self.many |= w != *v,
                }
                self.sys.vars.get(v.index()).is_some_and(|var| var.frozen)
            }
            Expr::Const(_) | Expr::Next(_) => true,
            Expr::Define(d) => {
                if self.defines.contains(&d.0) {
                    return true;
                }
                self.defines.push(d.0);
                match self.sys.defines.get(d.0 as usize) {
                    Some(def) => self.frozen_only(&def.expr),
                    None => true,
                }
            }
            Expr::Not(a) => self.frozen_only(a),
            Expr::And(xs) | Expr::Or(xs) | Expr::Add(xs) | Expr::Count(xs) | Expr::Set(xs) => {
                xs.iter().all(|x| self.frozen_only(x))
            }
            Expr::Implies(a, b)
            | Expr::Iff(a, b)
            | Expr::Eq(a, b)
            | Expr::Lt(a, b)
            | Expr::Le(a, b)
            | Expr::Sub(a, b) => self.frozen_only(a) && self.frozen_only(b),
            Expr::Ite(c, a, b) => self.frozen_only(c) && self.frozen_only(a) && self.frozen_only(b),
            Expr::Case(arms) => arms
                .iter()
                .all(|(g, v)| self.frozen_only(g) && self.frozen_only(v)),
            Expr::In(a, xs) => self.frozen_only(a) && xs.iter().all(|x| self.frozen_only(x)),
        }
    }
}

pub(super) struct Model<'s> {
    pub(super) sys: &'s System,
    pub(super) invar_frozen: Vec<bool>,
    /// Per INVAR of the system (`None`: skipped) and per TRANS, its atoms:
    /// a range of the invariant atoms (`invar_reads` and friends) or of
    /// `trans`.
    pub(super) invar_span: Vec<Option<std::ops::Range<usize>>>,
    pub(super) trans_span: Vec<std::ops::Range<usize>>,
    init: Vec<Atom<'s>>,
    trans: Vec<Atom<'s>>,
    pub(super) uses: Vec<Uses>,
    /// What each atom, assignment and the goal reads, by the same index.
    pub(super) invar_reads: Vec<Reads>,
    pub(super) init_reads: Vec<Reads>,
    pub(super) trans_reads: Vec<Reads>,
    pub(super) init_assign_reads: Vec<Reads>,
    pub(super) next_assign_reads: Vec<Reads>,
    pub(super) goal_reads: Reads,
    /// Number of uses (slots) over all variables.
    pub(super) slots: usize,
    /// The invariant atoms some non-frozen variable is checked against
    /// (the others only in [`Domains::frozen_support`](super::Domains::frozen_support)), numbered from 0
    /// in `invar_dense` (`u32::MAX`: not checked), and their number.
    pub(super) invar_dense: Vec<u32>,
    invar_checked: usize,
    pub(super) k: usize,
    /// The atoms, assignments and goal compiled, by the same index.
    pub(super) prog: Program,
    pub(super) invar_n: Vec<NodeId>,
    pub(super) init_n: Vec<NodeId>,
    pub(super) trans_n: Vec<NodeId>,
    pub(super) init_assign_n: Vec<NodeId>,
    pub(super) next_assign_n: Vec<NodeId>,
    pub(super) goal_n: NodeId,
    /// The atoms that share a disjunct ([`Group`]), and per invariant and
    /// transition atom its group (`u32::MAX`: none).
    pub(super) groups: Vec<Group>,
    pub(super) invar_group: Vec<u32>,
    pub(super) trans_group: Vec<u32>,
    /// Per transition atom, its [`Clause`] form when it has one.
    pub(super) trans_clause: Vec<Option<Clause>>,
    /// Per next assignment, its [`Accumulator`] form when it has one.
    pub(super) next_accum: Vec<Option<Accumulator>>,
    /// Per next assignment that has the form of an [`Accumulator`]
    /// (`next(v) := v | next(x) = c`, also when [`Accumulator`]s are not
    /// used): the other variables the invariants that read `v` read. The
    /// sweep of [`Domains::compute_skipping`](super::Domains::compute_skipping)
    /// leaves its image out at a step where each of them has one value.
    /// By the index of the list in `unswept_lists` (`u32::MAX`: not of
    /// that form): one list serves many (a path's flags, all read with
    /// `step`).
    pub(super) unswept: Vec<u32>,
    pub(super) unswept_lists: Vec<Vec<VarId>>,
    /// The disjuncts of each compiled atom and assignment, by the same
    /// index.
    pub(super) invar_parts: Vec<Parts>,
    pub(super) init_parts: Vec<Parts>,
    pub(super) trans_parts: Vec<Parts>,
    pub(super) init_assign_parts: Vec<Parts>,
    pub(super) next_assign_parts: Vec<Parts>,
    pub(super) part_list: PartList,
    /// Per variable, the assignments whose image depends on a copy of it
    /// (it is read; an assignment's own variable is not watched, see
    /// [`Domains::image`](super::Domains::image)): initial assignments
    /// (everything at step 0), next assignments reading it in the current
    /// state (step `t - 1` for the image at `t`), and next assignments
    /// reading it in the next state (step `t`).
    pub(super) watch_init: Watch,
    pub(super) watch_cur: Watch,
    pub(super) watch_next: Watch,
}

/// A next assignment `next(v) := v | next(x) = c` of a boolean `v` (the
/// flag of a path model that says a cell was visited): `v` becomes true
/// once `x` takes value `c` and stays true. Its image is a few look-ups,
/// computed directly ([`Domains::accumulator_image`](super::Domains::accumulator_image)): that is cheaper than
/// finding out whether the inputs changed, and than evaluating the
/// expression (the same image: the truth of the disjunction).
#[derive(Clone, Copy)]
pub(super) struct Accumulator {
    pub(super) x: VarId,
    /// `c`'s value index in `x`'s domain (`None`: not in it).
    pub(super) j: Option<u32>,
}

/// Whether a test asked for no [`Accumulator`] or [`Clause`] (see the
/// tests).
#[cfg(test)]
fn generic_only() -> bool {
    super::tests::GENERIC_ONLY.get()
}

#[cfg(not(test))]
fn generic_only() -> bool {
    false
}

impl Accumulator {
    fn of(p: &Program, v: VarId, n: NodeId) -> Option<Accumulator> {
        let Node::Or(xs) = p.nodes[n as usize] else {
            return None;
        };
        let kids = &p.kids[xs.range()];
        let &[a, b] = kids else { return None };
        let flag =
            |k: NodeId| matches!(p.nodes[k as usize], Node::Copy { var, next: false } if var == v);
        let hit = |k: NodeId| match p.nodes[k as usize] {
            Node::EqConst { var, next: true, j } if var != v => Some(Accumulator { x: var, j }),
            _ => None,
        };
        if !matches!(p.places[v.index()], Place::Bool) {
            return None;
        }
        match (flag(a), flag(b)) {
            (true, _) => hit(b),
            (_, true) => hit(a),
            _ => None,
        }
    }
}

/// One side of a [`Clause`]: `x = c` (`j`: `c`'s value index, `None`
/// when `c` is not in the domain) or a boolean `x` (`j == Some(1)`),
/// of the current state or the next, maybe negated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Lit {
    pub(super) var: VarId,
    pub(super) next: bool,
    pub(super) j: Option<u32>,
    pub(super) negated: bool,
}

impl Lit {
    fn of(p: &Program, n: NodeId) -> Option<Lit> {
        match p.nodes[n as usize] {
            Node::EqConst { var, next, j } => Some(Lit {
                var,
                next,
                j,
                negated: false,
            }),
            Node::Copy { var, next } if matches!(p.places[var.index()], Place::Bool) => Some(Lit {
                var,
                next,
                j: Some(1),
                negated: false,
            }),
            Node::Not(a) => Lit::of(p, a).map(Lit::negate),
            _ => None,
        }
    }

    fn negate(self) -> Lit {
        Lit {
            negated: !self.negated,
            ..self
        }
    }
}

/// A constraint atom that is a disjunction of two literals over two
/// different variables, `!(a & b)` (a grid path's no-revisit TRANS:
/// `!(next(pos) = c & visited[c])`), `a | b` or `a -> b`: a value of
/// one variable that makes its side false needs the other side true.
/// Its checks are a few look-ups ([`Domains::clause_support`](super::Domains::clause_support)), the same
/// as evaluating it, as [`Accumulator`]s are.
#[derive(Clone, Copy, Debug)]
pub(super) struct Clause {
    pub(super) lits: [Lit; 2],
    /// It is `a -> b` (`lits` are `!a`, `b`): with no value left on a
    /// side the evaluator's answer is not the other forms' (it is then
    /// evaluated as it is).
    pub(super) implies: bool,
}

impl Clause {
    fn of(p: &Program, n: NodeId) -> Option<Clause> {
        let pair = |a: NodeId, b: NodeId| Some([Lit::of(p, a)?, Lit::of(p, b)?]);
        let implies = matches!(p.nodes[n as usize], Node::Implies(..));
        let lits = match p.nodes[n as usize] {
            Node::Not(a) => match p.nodes[a as usize] {
                Node::And(xs) => match p.kids[xs.range()] {
                    [a, b] => pair(a, b)?.map(Lit::negate),
                    _ => return None,
                },
                _ => return None,
            },
            Node::Or(xs) => match p.kids[xs.range()] {
                [a, b] => pair(a, b)?,
                _ => return None,
            },
            Node::Implies(a, b) => {
                let [a, b] = pair(a, b)?;
                [a.negate(), b]
            }
            _ => return None,
        };
        (lits[0].var != lits[1].var).then_some(Clause { lits, implies })
    }
}

/// Who reads the copies of one step (see [`Model::watch_init`]):
/// `readers[var]`, and the variables with readers.
#[derive(Default)]
pub(super) struct Watch {
    pub(super) readers: Vec<Vec<usize>>,
    pub(super) vars: Vec<VarId>,
}

impl Watch {
    /// From `(reader, var)` pairs.
    pub(super) fn new(vars: usize, reads: &[(usize, VarId)]) -> Watch {
        let mut readers = vec![Vec::new(); vars];
        for &(i, v) in reads {
            readers[v.index()].push(i);
        }
        let vars = (0..vars)
            .filter(|&v| !readers[v].is_empty())
            .map(|v| VarId(v as u32))
            .collect();
        Watch { readers, vars }
    }
}

/// The disjuncts of a boolean node ([`Program::disjuncts`]): a range
/// of [`PartList::parts`]; empty when there is only one (then a check of
/// a variable the node reads cannot be decided by the others).
pub(super) type Parts = std::ops::Range<usize>;

/// The disjuncts of every atom and assignment, flat.
#[derive(Default)]
pub(super) struct PartList {
    /// A disjunct and the variables it reads: a range of `vars`
    /// (sorted).
    pub(super) parts: Vec<(NodeId, std::ops::Range<usize>)>,
    pub(super) vars: Vec<VarId>,
    /// Buffers.
    ds: Vec<NodeId>,
    todo: Vec<NodeId>,
}

impl PartList {
    fn add(&mut self, p: &mut Program, n: NodeId) -> Parts {
        self.ds.clear();
        p.disjuncts(n, &mut self.ds);
        let start = self.parts.len();
        if self.ds.len() < 2 {
            return start..start;
        }
        for &d in &self.ds {
            let from = self.vars.len();
            p.vars_of(d, &mut self.vars, &mut self.todo);
            self.parts.push((d, from..self.vars.len()));
        }
        start..self.parts.len()
    }
}

impl<'s> Model<'s> {
    pub(super) fn new(sys: &'s System, k: usize, skip: &[bool]) -> Model<'s> {
        let kept = |i: usize| !skip.get(i).copied().unwrap_or(false);
        let split = |cs: &mut dyn Iterator<Item = &'s crate::ir::Constraint>| {
            let mut out = Vec::new();
            let mut spans = Vec::new();
            for c in cs {
                let from = out.len();
                atoms(&c.expr, sys, &mut Vec::new(), &mut out);
                spans.push(from..out.len());
            }
            (out, spans)
        };
        let mut invars = sys
            .invar
            .iter()
            .enumerate()
            .filter(|&(i, _)| kept(i))
            .map(|(_, c)| c);
        let (invar, kept_spans) = split(&mut invars);
        let mut kept_spans = kept_spans.into_iter();
        let invar_span = (0..sys.invar.len())
            .map(|i| kept(i).then(|| kept_spans.next()).flatten())
            .collect();
        let (init, _) = split(&mut sys.init.iter());
        let (trans, trans_span) = split(&mut sys.trans.iter());
        let mut seen = Seen::new(sys);
        // An invariant atom over frozen variables only, and not over
        // exactly one, is never checked: its reads are not needed either.
        let invar_reads = invar
            .iter()
            .map(|a| match never_checked(sys, a) {
                true => Reads::default(),
                false => sorted_reads(sys, &mut seen, a.parts()),
            })
            .collect::<Vec<_>>();
        let mut all = |es: &[Atom]| {
            es.iter()
                .map(|e| sorted_reads(sys, &mut seen, e.parts()))
                .collect::<Vec<_>>()
        };
        let init_reads = all(&init);
        let trans_reads = all(&trans);
        let mut assigns = |xs: &[crate::ir::Assign]| {
            xs.iter()
                .map(|a| sorted_reads(sys, &mut seen, [&a.value]))
                .collect::<Vec<_>>()
        };
        let init_assign_reads = assigns(&sys.init_assign);
        let next_assign_reads = assigns(&sys.next_assign);
        let goal_reads = sorted_reads(sys, &mut seen, [&sys.goal]);
        let mut uses = vec![Uses::default(); sys.vars.len()];
        // Frozen variables are checked against their unary invariants
        // only (windows, pinned values): cheap, and what matters.
        let invar_frozen: Vec<bool> = invar_reads
            .iter()
            .map(|r| r.cur.len() == 1 && sys.var(r.cur[0]).frozen)
            .collect();
        let mut invar_dense = vec![u32::MAX; invar.len()];
        let mut invar_checked = 0;
        for (dense, r) in invar_dense.iter_mut().zip(&invar_reads) {
            if r.cur.iter().any(|&v| !sys.var(v).frozen) {
                *dense = invar_checked as u32;
                invar_checked += 1;
            }
        }
        // An atom over frozen variables only that is not unary is never
        // looked at: it gets no uses, no compiled node, no disjuncts.
        let invar_live: Vec<bool> = invar_dense
            .iter()
            .zip(&invar_frozen)
            .map(|(&dense, &frozen)| dense != u32::MAX || frozen)
            .collect();
        for (i, r) in invar_reads.iter().enumerate() {
            if !invar_live[i] {
                continue;
            }
            for (v, cls) in r.cur.iter().zip(&r.cur_class) {
                uses[v.index()].invar.push((i, cls.clone(), 0));
            }
        }
        for (i, r) in init_reads.iter().enumerate() {
            for (v, cls) in r.cur.iter().zip(&r.cur_class) {
                uses[v.index()].init.push((i, cls.clone(), 0));
            }
        }
        // An assignment's own variable is restricted by its image
        // ([`Domains::image`]); here only the variables it reads.
        for (i, (a, r)) in sys.init_assign.iter().zip(&init_assign_reads).enumerate() {
            // `init(x) := case x = 2 : …`: x's own value matters itself,
            // not only through the constants it is compared with.
            for (v, cls) in r.cur.iter().zip(&r.cur_class) {
                let cls = cls.clone().filter(|_| *v != a.var);
                uses[v.index()].init_assign.push((i, cls, 0));
            }
        }
        for (i, r) in trans_reads.iter().enumerate() {
            for (v, cls) in r.cur.iter().zip(&r.cur_class) {
                uses[v.index()].trans_cur.push((i, cls.clone(), 0));
            }
            for (v, cls) in r.next.iter().zip(&r.next_class) {
                uses[v.index()].trans_next.push((i, cls.clone(), 0));
            }
        }
        for (i, (a, r)) in sys.next_assign.iter().zip(&next_assign_reads).enumerate() {
            for (v, cls) in r.cur.iter().zip(&r.cur_class) {
                uses[v.index()].next_cur.push((i, cls.clone(), 0));
            }
            // Its own variable's value matters itself: no class then.
            for (v, cls) in r.next.iter().zip(&r.next_class) {
                let cls = cls.clone().filter(|_| *v != a.var);
                uses[v.index()].next_next.push((i, cls, 0));
            }
        }
        for (v, cls) in goal_reads.cur.iter().zip(&goal_reads.cur_class) {
            uses[v.index()].goal = Some((0, cls.clone(), 0));
        }
        // Frozen variables are never checked on their own (only in
        // [`Domains::frozen_support`](super::Domains::frozen_support)): their uses need no slot.
        let mut slots = 0;
        for u in uses.iter_mut().zip(&sys.vars).filter(|(_, v)| !v.frozen) {
            let u = u.0;
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
        let assigns = sys.init_assign.iter().chain(&sys.next_assign);
        let invars = sys
            .invar
            .iter()
            .enumerate()
            .filter(move |&(i, _)| kept(i))
            .map(|(_, c)| c);
        let constraints = invars.chain(&sys.init).chain(&sys.trans);
        let exprs = constraints.map(|c| &c.expr);
        let exprs = exprs.chain(assigns.map(|a| &a.value)).chain([&sys.goal]);
        let mut prog = Program::new(sys, exprs);
        let never = prog.compile(sys, &Expr::t());
        let mut compile_atoms = |atoms: &[Atom], live: &[bool]| {
            atoms
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    if !live.get(i).copied().unwrap_or(true) {
                        return never;
                    }
                    let leaf = prog.compile(sys, a.leaf);
                    a.prefix.iter().rev().fold(leaf, |node, &(p, premise)| {
                        let p = prog.compile(sys, p);
                        match premise {
                            true => prog.implies(p, node),
                            false => prog.or(p, node),
                        }
                    })
                })
                .collect::<Vec<_>>()
        };
        let invar_n = compile_atoms(&invar, &invar_live);
        let init_n = compile_atoms(&init, &[]);
        let trans_n = compile_atoms(&trans, &[]);
        let trans_clause = (trans_n.iter())
            .map(|&n| Clause::of(&prog, n).filter(|_| !generic_only()))
            .collect();
        let mut groups = Vec::new();
        let mut group_of = |atoms: &[Atom]| {
            let mut of = vec![u32::MAX; atoms.len()];
            for (i, a) in atoms.iter().enumerate() {
                match (&a.group, a.prefix.first()) {
                    (Some(range), Some(&(e, premise))) if range.start == i && range.len() > 1 => {
                        let g = groups.len() as u32;
                        of[range.clone()].iter_mut().for_each(|x| *x = g);
                        groups.push(Group {
                            node: prog.compile(sys, e),
                            premise,
                            atoms: range.clone(),
                        });
                    }
                    _ => {}
                }
            }
            of
        };
        let invar_group = group_of(&invar);
        let trans_group = group_of(&trans);
        let mut compile = |es: &mut dyn Iterator<Item = &Expr>| {
            es.map(|e| prog.compile(sys, e)).collect::<Vec<_>>()
        };
        let init_assign_n = compile(&mut sys.init_assign.iter().map(|a| &a.value));
        let next_assign_n = compile(&mut sys.next_assign.iter().map(|a| &a.value));
        let goal_n = prog.compile(sys, &sys.goal);
        let (mut init_r, mut cur_r, mut next_r) = (Vec::new(), Vec::new(), Vec::new());
        for (i, r) in init_assign_reads.iter().enumerate() {
            init_r.extend(r.cur.iter().chain(&r.next).map(|&v| (i, v)));
        }
        for (i, r) in next_assign_reads.iter().enumerate() {
            cur_r.extend(r.cur.iter().map(|&v| (i, v)));
            next_r.extend(r.next.iter().map(|&v| (i, v)));
        }
        let n = sys.vars.len();
        let watch_init = Watch::new(n, &init_r);
        let watch_cur = Watch::new(n, &cur_r);
        let watch_next = Watch::new(n, &next_r);
        let mut part_list = PartList::default();
        let mut parts = |ns: &[NodeId]| ns.iter().map(|&n| part_list.add(&mut prog, n)).collect();
        // (`never` is one disjunct: no parts.)
        let invar_parts = parts(&invar_n);
        let init_parts = parts(&init_n);
        let trans_parts = parts(&trans_n);
        let init_assign_parts = parts(&init_assign_n);
        let next_assign_parts = parts(&next_assign_n);
        let shapes: Vec<Option<Accumulator>> = (sys.next_assign.iter().zip(&next_assign_n))
            .map(|(a, &n)| Accumulator::of(&prog, a.var, n))
            .collect();
        let (unswept, unswept_lists) = unswept(sys, &shapes, &invar_reads);
        let next_accum = shapes
            .into_iter()
            .map(|acc| acc.filter(|_| !generic_only()))
            .collect();
        Model {
            unswept,
            unswept_lists,
            trans_clause,
            groups,
            invar_group,
            trans_group,
            next_accum,
            watch_init,
            watch_cur,
            watch_next,
            part_list,
            invar_parts,
            init_parts,
            trans_parts,
            init_assign_parts,
            next_assign_parts,
            prog,
            invar_n,
            init_n,
            trans_n,
            init_assign_n,
            next_assign_n,
            goal_n,
            sys,
            invar_frozen,
            invar_span,
            trans_span,
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
            invar_dense,
            invar_checked,
            k,
        }
    }
}

/// [`Model::unswept`] and its lists: per next assignment of the form of
/// an accumulator (`shapes`, by assignment), the variables other than its
/// own that the invariant atoms reading its variable read (sorted, once
/// each).
fn unswept(
    sys: &System,
    shapes: &[Option<Accumulator>],
    invar_reads: &[Reads],
) -> (Vec<u32>, Vec<Vec<VarId>>) {
    let shaped: Vec<bool> = shapes.iter().map(Option::is_some).collect();
    let mut others: Vec<Option<Vec<VarId>>> = vec![None; sys.vars.len()];
    for (a, _) in sys.next_assign.iter().zip(&shaped).filter(|(_, &s)| s) {
        others[a.var.index()] = Some(Vec::new());
    }
    for r in invar_reads {
        for &v in &r.cur {
            if let Some(vs) = &mut others[v.index()] {
                vs.extend(r.cur.iter().filter(|&&w| w != v));
            }
        }
    }
    let mut lists: Vec<Vec<VarId>> = Vec::new();
    let index = (sys.next_assign.iter().zip(&shaped))
        .map(|(a, &shaped)| {
            let Some(vs) = others[a.var.index()].as_mut().filter(|_| shaped) else {
                return u32::MAX;
            };
            let mut vs = std::mem::take(vs);
            vs.sort_unstable();
            vs.dedup();
            let at = lists.iter().position(|l| *l == vs).unwrap_or_else(|| {
                lists.push(vs);
                lists.len() - 1
            });
            at as u32
        })
        .collect();
    (index, lists)
}

impl Model<'_> {
    /// Keys of the atoms in [`Domains::entailed`](super::Domains::entailed): invariants and
    /// transitions per step (a transition by its current step), then the
    /// initial constraints.
    pub(super) fn invar_key(&self, c: usize, t: usize) -> usize {
        t * self.invar_checked + self.invar_dense[c] as usize
    }

    /// [`Model::invar_key`] of an atom that has one (it is checked).
    pub(super) fn invar_key_of(&self, c: usize, t: usize) -> Option<usize> {
        (self.invar_dense[c] != u32::MAX).then(|| self.invar_key(c, t))
    }

    pub(super) fn trans_key(&self, c: usize, t: usize) -> usize {
        (self.k + 1) * self.invar_checked + t * self.trans.len() + c
    }

    pub(super) fn init_key(&self, c: usize) -> usize {
        (self.k + 1) * (self.invar_checked + self.trans.len()) + c
    }

    pub(super) fn keys(&self) -> usize {
        self.init_key(self.init.len())
    }
}
