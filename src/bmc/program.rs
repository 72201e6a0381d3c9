//! Expressions compiled once for the domain analysis
//! ([`super::domains`]), so that evaluating them allocates nothing and
//! looks nothing up by name or address.
//!
//! Input: a [`System`] and the expressions the analysis evaluates (its
//! constraint atoms, assignments and goal). Output: a [`Program`]: flat
//! [`Node`]s whose children are [`NodeId`]s (0-based indices into
//! [`Program::nodes`]; a DEFINE is compiled once and shared by every
//! reference), variable reads as `(var, next)`, integer and symbol
//! constants as [`Uid`]s (0-based indices into the system's sorted value
//! universe, so a set of values is a bitset), and each `case` with its
//! exclusive runs of `x = c` guards ([`Run`]) resolved in advance. On
//! request, a boolean node split into its disjuncts
//! ([`Program::disjuncts`], negations added as new nodes) and the
//! variables a node reads ([`Program::vars_of`]).
//!
//! Invariants: the universe holds every integer and symbol constant of
//! the compiled expressions and every value of every non-boolean domain,
//! sorted by [`Value`]'s order (all integers, ascending, then all symbols),
//! without duplicates; a range domain's values are consecutive in it. A
//! node means exactly what its expression means (the evaluator in
//! [`super::domains`] gives the same abstract value and counts the same
//! work as it would on the [`Expr`]).

use crate::ir::{Domain, Expr, System, Value, VarId};

/// A node: its index in [`Program::nodes`] (0-based).
pub(crate) type NodeId = u32;

/// A value of the universe ([`Program::ints`] then [`Program::syms`]): its
/// index there (0-based).
pub(crate) type Uid = u32;

/// Children of an n-ary node: `start..start + len` in [`Program::kids`]
/// (or in [`Program::arms`] for a `case`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Span {
    pub start: u32,
    pub len: u32,
}

impl Span {
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Node {
    Bool(bool),
    /// An integer or symbol constant; `int` is its integer.
    Val {
        u: Uid,
        int: Option<i64>,
    },
    /// `var` (`next == false`) or `next(var)`.
    Copy {
        var: VarId,
        next: bool,
    },
    /// A reference to a DEFINE: its compiled body, and its number in
    /// [`Program::define_reads`] (for the evaluator's memo).
    Define {
        body: NodeId,
        memo: u32,
    },
    /// A reference to a DEFINE that does not exist: anything.
    Missing,
    Not(NodeId),
    And(Span),
    Or(Span),
    Implies(NodeId, NodeId),
    Iff(NodeId, NodeId),
    Eq(NodeId, NodeId),
    /// `x = c` (either way round, `x` first) for a variable copy `x` and
    /// a constant `c`: `j` is `c`'s index in `x`'s domain (`None`: not
    /// in it).
    EqConst {
        var: VarId,
        next: bool,
        j: Option<u32>,
    },
    Lt(NodeId, NodeId),
    Le(NodeId, NodeId),
    Add(Span),
    Sub(NodeId, NodeId),
    Count(Span),
    Ite(NodeId, NodeId, NodeId),
    /// Arms in [`Program::arms`], runs in [`Program::runs`].
    Case {
        arms: Span,
        runs: Span,
    },
    /// `x in {items}`; `consts`: when every item is a constant and `x` a
    /// variable, the distinct value indices of `x`'s domain the items
    /// name (in [`Program::idx`]).
    In {
        x: NodeId,
        items: Span,
        consts: Option<Span>,
    },
    Set(Span),
}

/// Consecutive arms of a `case` whose guards are `x = c` for one variable
/// copy `x` and distinct constants: at most one of them holds, and which
/// one is a table look-up on the value of `x`.
#[derive(Clone, Debug)]
pub(crate) struct Run {
    /// Arm indices within the `case` (0-based).
    pub arms: std::ops::Range<usize>,
    /// The copy: `x` (`next == false`) or `next(x)`.
    pub var: VarId,
    pub next: bool,
    /// `arm[j]`: the arm whose guard is `x = value j`, if any.
    pub arm: Vec<Option<u32>>,
    /// The value indices some guard of the run tests.
    pub hits: Vec<usize>,
}

/// How a variable's domain values sit in the universe.
#[derive(Clone, Debug)]
pub(crate) enum Place {
    /// Booleans are never in the universe.
    Bool,
    /// A range `lo..=hi`: value `j` is [`Uid`] `first + j`.
    Range { first: Uid, lo: i64, hi: i64 },
    /// An enumeration: value `j` is `uids[j]`.
    Enum(Vec<Uid>),
}

/// The compiled expressions of one system.
#[derive(Default)]
pub(crate) struct Program {
    pub nodes: Vec<Node>,
    pub kids: Vec<NodeId>,
    /// `case` arms: `(guard, value)`.
    pub arms: Vec<(NodeId, NodeId)>,
    pub runs: Vec<Run>,
    pub idx: Vec<u32>,
    /// The universe: these integers (sorted; [`Uid`] `i` is `ints[i]`),
    /// then these symbols (sorted; [`Uid`] `ints.len() + i` is `syms[i]`).
    pub ints: Vec<i64>,
    pub syms: Vec<String>,
    /// Per variable.
    pub places: Vec<Place>,
    /// Words of a value set (bitset over the universe).
    pub words: usize,
    /// Compiled DEFINEs, by [`crate::ir::DefineId`].
    defines: Vec<Option<NodeId>>,
    /// Per compiled DEFINE (by the `memo` of its [`Node::Define`]): the
    /// variables it reads, through other DEFINEs.
    pub define_reads: Vec<Vec<VarId>>,
}

impl Program {
    /// A program for `sys` whose universe covers `exprs` (and every
    /// DEFINE); compile the expressions with [`Program::compile`].
    pub fn new<'e>(sys: &'e System, exprs: impl IntoIterator<Item = &'e Expr>) -> Program {
        let mut seen = Constants::new();
        exprs.into_iter().for_each(|e| seen.add(e));
        // DEFINEs are compiled when first referenced: their constants too.
        sys.defines.iter().for_each(|d| seen.add(&d.expr));
        let Constants {
            mut ints, mut syms, ..
        } = seen;
        let mut ranges = Vec::new();
        for var in &sys.vars {
            match &var.domain {
                Domain::Bool => {}
                Domain::Range { lo, hi } => ranges.push((*lo, *hi)),
                Domain::Enum(names) => syms.extend(names.iter().map(String::as_str)),
            }
        }
        ranges.sort_unstable();
        ranges.dedup();
        for (lo, hi) in ranges {
            ints.extend(lo..=hi);
        }
        ints.sort_unstable();
        ints.dedup();
        syms.sort_unstable();
        syms.dedup();
        let syms: Vec<String> = syms.into_iter().map(str::to_owned).collect();
        let n = ints.len();
        let places = sys
            .vars
            .iter()
            .map(|var| match &var.domain {
                Domain::Bool => Place::Bool,
                Domain::Range { lo, hi } => Place::Range {
                    first: ints.binary_search(lo).unwrap_or_default() as Uid,
                    lo: *lo,
                    hi: *hi,
                },
                Domain::Enum(names) => Place::Enum(
                    names
                        .iter()
                        .map(|s| (n + syms.binary_search(s).unwrap_or_default()) as Uid)
                        .collect(),
                ),
            })
            .collect();
        let words = (n + syms.len()).div_ceil(64).max(1);
        Program {
            places,
            words,
            defines: vec![None; sys.defines.len()],
            ints,
            syms,
            ..Program::default()
        }
    }

    /// The [`Uid`] of a constant in the universe.
    fn uid(&self, v: &Value) -> Uid {
        let i = match v {
            Value::Int(i) => self.ints.binary_search(i).unwrap_or_default(),
            Value::Sym(s) => {
                let at = self.syms.binary_search_by(|x| x.as_str().cmp(s));
                self.ints.len() + at.unwrap_or_default()
            }
            Value::Bool(_) => 0,
        };
        i as Uid
    }

    /// The integer of a universe value, if it is one.
    #[inline]
    pub fn int_of(&self, u: usize) -> Option<i64> {
        self.ints.get(u).copied()
    }

    fn push(&mut self, n: Node) -> NodeId {
        self.nodes.push(n);
        (self.nodes.len() - 1) as NodeId
    }

    fn span(&mut self, ids: Vec<NodeId>) -> Span {
        let start = self.kids.len() as u32;
        self.kids.extend_from_slice(&ids);
        Span {
            start,
            len: ids.len() as u32,
        }
    }

    fn list(&mut self, sys: &System, xs: &[Expr]) -> Span {
        let ids: Vec<NodeId> = xs.iter().map(|x| self.compile(sys, x)).collect();
        self.span(ids)
    }

    /// `a | b`.
    pub fn or(&mut self, a: NodeId, b: NodeId) -> NodeId {
        let kids = self.span(vec![a, b]);
        self.push(Node::Or(kids))
    }

    /// `a -> b`.
    pub fn implies(&mut self, a: NodeId, b: NodeId) -> NodeId {
        self.push(Node::Implies(a, b))
    }

    /// The disjuncts of boolean node `n`, flattened through `|`, `->` and
    /// negated conjunctions (`!(a & b)` gives `!a`, `!b`; the negations
    /// are new nodes): `n` is true exactly when one of them is, in the
    /// evaluator's three-valued logic too. A DEFINE is one disjunct.
    pub fn disjuncts(&mut self, n: NodeId, out: &mut Vec<NodeId>) {
        match self.nodes[n as usize] {
            Node::Or(xs) => {
                for i in xs.range() {
                    let x = self.kids[i];
                    self.disjuncts(x, out);
                }
            }
            Node::Implies(a, b) => {
                let na = self.negation(a);
                self.disjuncts(na, out);
                self.disjuncts(b, out);
            }
            Node::Not(a) => match self.nodes[a as usize] {
                Node::And(xs) => {
                    for i in xs.range() {
                        let x = self.kids[i];
                        let nx = self.negation(x);
                        self.disjuncts(nx, out);
                    }
                }
                _ => out.push(n),
            },
            _ => out.push(n),
        }
    }

    /// `!a`, without a double negation.
    fn negation(&mut self, a: NodeId) -> NodeId {
        match self.nodes[a as usize] {
            Node::Not(x) => x,
            _ => self.push(Node::Not(a)),
        }
    }

    /// Appends the variables node `n` reads (at any step, through
    /// DEFINEs) to `out`, sorted and without duplicates; `todo` is an
    /// empty buffer (kept by the caller between calls).
    pub fn vars_of(&self, n: NodeId, out: &mut Vec<VarId>, todo: &mut Vec<NodeId>) {
        let start = out.len();
        todo.push(n);
        while let Some(n) = todo.pop() {
            match self.nodes[n as usize] {
                Node::Bool(_) | Node::Val { .. } | Node::Missing => {}
                Node::Copy { var, .. } | Node::EqConst { var, .. } => out.push(var),
                Node::Define { memo, .. } => {
                    out.extend_from_slice(&self.define_reads[memo as usize]);
                }
                Node::Not(a) => todo.push(a),
                Node::And(xs) | Node::Or(xs) | Node::Add(xs) | Node::Count(xs) | Node::Set(xs) => {
                    todo.extend_from_slice(&self.kids[xs.range()])
                }
                Node::Implies(a, b)
                | Node::Iff(a, b)
                | Node::Eq(a, b)
                | Node::Lt(a, b)
                | Node::Le(a, b)
                | Node::Sub(a, b) => todo.extend([a, b]),
                Node::Ite(c, a, b) => todo.extend([c, a, b]),
                Node::Case { arms, .. } => {
                    for &(g, v) in &self.arms[arms.range()] {
                        todo.extend([g, v]);
                    }
                }
                Node::In { x, items, .. } => {
                    todo.push(x);
                    todo.extend_from_slice(&self.kids[items.range()]);
                }
            }
        }
        let mut mine = out.split_off(start);
        mine.sort_unstable();
        mine.dedup();
        out.append(&mut mine);
    }

    /// Compiles `e` (whose constants must be in the universe).
    pub fn compile(&mut self, sys: &System, e: &Expr) -> NodeId {
        let node = match e {
            Expr::Const(Value::Bool(b)) => Node::Bool(*b),
            Expr::Const(v) => Node::Val {
                u: self.uid(v),
                int: match v {
                    Value::Int(i) => Some(*i),
                    _ => None,
                },
            },
            Expr::Var(v) => Node::Copy {
                var: *v,
                next: false,
            },
            Expr::Next(v) => Node::Copy {
                var: *v,
                next: true,
            },
            Expr::Define(d) => match sys.defines.get(d.0 as usize) {
                Some(def) => match self.defines[d.0 as usize] {
                    Some(n) => return n,
                    None => {
                        let body = self.compile(sys, &def.expr);
                        let (cur, next) = super::analyse::reads(sys, e);
                        let mut vars: Vec<VarId> = cur.into_iter().chain(next).collect();
                        vars.sort_unstable();
                        vars.dedup();
                        self.define_reads.push(vars);
                        let node = Node::Define {
                            body,
                            memo: (self.define_reads.len() - 1) as u32,
                        };
                        let n = self.push(node);
                        self.defines[d.0 as usize] = Some(n);
                        return n;
                    }
                },
                None => Node::Missing,
            },
            Expr::Not(a) => Node::Not(self.compile(sys, a)),
            Expr::And(xs) => Node::And(self.list(sys, xs)),
            Expr::Or(xs) => Node::Or(self.list(sys, xs)),
            Expr::Add(xs) => Node::Add(self.list(sys, xs)),
            Expr::Count(xs) => Node::Count(self.list(sys, xs)),
            Expr::Set(xs) => Node::Set(self.list(sys, xs)),
            Expr::Implies(a, b) => Node::Implies(self.compile(sys, a), self.compile(sys, b)),
            Expr::Iff(a, b) => Node::Iff(self.compile(sys, a), self.compile(sys, b)),
            Expr::Eq(a, b) => match eq_const(sys, a, b) {
                Some(n) => n,
                None => Node::Eq(self.compile(sys, a), self.compile(sys, b)),
            },
            Expr::Lt(a, b) => Node::Lt(self.compile(sys, a), self.compile(sys, b)),
            Expr::Le(a, b) => Node::Le(self.compile(sys, a), self.compile(sys, b)),
            Expr::Sub(a, b) => Node::Sub(self.compile(sys, a), self.compile(sys, b)),
            Expr::Ite(c, a, b) => Node::Ite(
                self.compile(sys, c),
                self.compile(sys, a),
                self.compile(sys, b),
            ),
            Expr::Case(arms) => {
                let compiled: Vec<(NodeId, NodeId)> = arms
                    .iter()
                    .map(|(g, v)| (self.compile(sys, g), self.compile(sys, v)))
                    .collect();
                let start = self.arms.len() as u32;
                self.arms.extend(compiled);
                let runs = case_runs(sys, arms);
                let rstart = self.runs.len() as u32;
                let rlen = runs.len() as u32;
                self.runs.extend(runs);
                Node::Case {
                    arms: Span {
                        start,
                        len: arms.len() as u32,
                    },
                    runs: Span {
                        start: rstart,
                        len: rlen,
                    },
                }
            }
            Expr::In(x, items) => {
                let consts = match x.as_ref() {
                    Expr::Var(v) | Expr::Next(v)
                        if items.iter().all(|i| matches!(i, Expr::Const(_))) =>
                    {
                        let dom = &sys.var(*v).domain;
                        let mut hit: Vec<u32> = items
                            .iter()
                            .filter_map(|i| match i {
                                Expr::Const(c) => super::unroll::index_of(dom, c),
                                _ => None,
                            })
                            .map(|j| j as u32)
                            .collect();
                        hit.sort_unstable();
                        hit.dedup();
                        let start = self.idx.len() as u32;
                        let len = hit.len() as u32;
                        self.idx.extend(hit);
                        Some(Span { start, len })
                    }
                    _ => None,
                };
                Node::In {
                    x: self.compile(sys, x),
                    items: self.list(sys, items),
                    consts,
                }
            }
        };
        self.push(node)
    }
}

/// The integer and symbol constants of some expressions, each at least
/// once, repeats left to a sort. A grid model repeats a few direction
/// symbols and small integers thousands of times, and sorting the
/// repeats was half of [`Program::new`] (waypoint-9x9-unique-s3: 1,006
/// integers and 1,970 symbols sorted, 1.16M instructions; now 187 and
/// 248, 0.53M), so an integer in `0..1024` is pushed once, and
/// a symbol is not pushed again while it is the last one seen in its
/// slot of a small table (a shared symbol has one address).
struct Constants<'e> {
    ints: Vec<i64>,
    /// Borrowed while collecting, copied once known to be new.
    syms: Vec<&'e str>,
    /// Bit `i` set: `i` is in `ints`.
    small: [u64; 16],
    /// Address and length of a symbol's text, by a hash of the address.
    recent: [(usize, usize); 64],
}

impl<'e> Constants<'e> {
    fn new() -> Constants<'e> {
        Constants {
            ints: Vec::new(),
            syms: Vec::new(),
            small: [0; 16],
            recent: [(0, 0); 64],
        }
    }

    fn add(&mut self, e: &'e Expr) {
        e.visit(&mut |x| match x {
            Expr::Const(Value::Int(i)) => self.add_int(*i),
            Expr::Const(Value::Sym(s)) => {
                let key = (s.as_ptr() as usize, s.len());
                // Fibonacci hashing: the top 6 bits of the product.
                let slot = &mut self.recent[key.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58];
                if *slot != key {
                    *slot = key;
                    self.syms.push(s);
                }
            }
            _ => {}
        });
    }

    fn add_int(&mut self, i: i64) {
        let Some(word) = usize::try_from(i)
            .ok()
            .and_then(|i| self.small.get_mut(i / 64))
        else {
            return self.ints.push(i);
        };
        let bit = 1 << (i % 64);
        if *word & bit == 0 {
            *word |= bit;
            self.ints.push(i);
        }
    }
}

/// `x = c` (either way round) as [`Node::EqConst`].
fn eq_const(sys: &System, a: &Expr, b: &Expr) -> Option<Node> {
    let (var, next, j) = eq_parts(sys, a, b)?;
    Some(Node::EqConst {
        var,
        next,
        j: j.map(|j| j as u32),
    })
}

/// The guard `x = c` (either way round) as `(var, is_next, value index)`;
/// the index is `None` when `c` is not in the domain (the guard never
/// holds).
fn eq_guard(sys: &System, g: &Expr) -> Option<(VarId, bool, Option<usize>)> {
    let Expr::Eq(a, b) = g else { return None };
    eq_parts(sys, a, b)
}

/// The operands `a = b` as `(var, is_next, value index)` when one side is
/// a (next-state) variable and the other a constant.
fn eq_parts(sys: &System, a: &Expr, b: &Expr) -> Option<(VarId, bool, Option<usize>)> {
    let (x, c) = Expr::var_and_const(a, b)?;
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
            // Same copy first: `j` indexes `v`'s domain, not another's.
            let same = run.var == v && run.next == next;
            if same && j.is_none_or(|j| run.arm[j].is_none()) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Integers first, sorted, then symbols; a range's values consecutive;
    /// a DEFINE referenced twice compiled once; `x = c` resolved to `c`'s
    /// index in `x`'s domain (none when outside it).
    #[test]
    fn the_universe_is_sorted_and_constants_are_resolved() {
        let mut sys = System::default();
        let x = sys.add_var("x", Domain::Range { lo: 2, hi: 4 }, false);
        let e = sys.add_var("e", Domain::Enum(vec!["q".into(), "p".into()]), false);
        let d = sys.add_define("d", Expr::eq(Expr::var(x), Expr::int(9)));
        let atom = Expr::And(vec![
            d.clone(),
            d,
            Expr::eq(Expr::sym("p"), Expr::next(e)),
            Expr::eq(Expr::var(x), Expr::int(3)),
        ]);
        let mut p = Program::new(&sys, [&atom]);
        let root = p.compile(&sys, &atom);
        assert_eq!(p.ints, [2, 3, 4, 9]);
        assert_eq!(p.syms, ["p", "q"]);
        assert!(matches!(
            p.places[x.index()],
            Place::Range {
                first: 0,
                lo: 2,
                hi: 4
            }
        ));
        assert!(matches!(&p.places[e.index()], Place::Enum(u) if u == &[5, 4]));
        let Node::And(kids) = p.nodes[root as usize] else {
            panic!("not an And: {:?}", p.nodes[root as usize]);
        };
        let kids: Vec<Node> = p.kids[kids.range()]
            .iter()
            .map(|&k| p.nodes[k as usize])
            .collect();
        let bodies: Vec<NodeId> = kids[..2]
            .iter()
            .filter_map(|n| match n {
                Node::Define { body, .. } => Some(*body),
                _ => None,
            })
            .collect();
        assert_eq!(bodies.len(), 2);
        assert_eq!(bodies[0], bodies[1]);
        assert_eq!(p.define_reads, [vec![x]]);
        assert!(matches!(
            p.nodes[bodies[0] as usize],
            Node::EqConst { var, next: false, j: None } if var == x
        ));
        assert!(matches!(
            kids[2],
            Node::EqConst { var, next: true, j: Some(1) } if var == e
        ));
        assert!(matches!(
            kids[3],
            Node::EqConst { var, next: false, j: Some(1) } if var == x
        ));
    }

    /// `!(a & next(b)) | (c -> d)` is the disjunction of `!a`, `!next(b)`,
    /// `!c` and `d` (a DEFINE stays whole), each with what it reads.
    #[test]
    fn a_constraint_splits_into_its_disjuncts() {
        let mut sys = System::default();
        let [a, b, c, d] = ["a", "b", "c", "d"].map(|n| sys.add_var(n, Domain::Bool, false));
        let x = sys.add_var("x", Domain::Range { lo: 0, hi: 3 }, false);
        let dd = sys.add_define("dd", Expr::And(vec![Expr::var(d), Expr::var(x)]));
        let e = Expr::Or(vec![
            Expr::negate(Expr::And(vec![Expr::var(a), Expr::next(b)])),
            Expr::implies(Expr::var(c), dd),
        ]);
        let mut p = Program::new(&sys, [&e]);
        let root = p.compile(&sys, &e);
        let mut parts = Vec::new();
        p.disjuncts(root, &mut parts);
        let shown: Vec<(String, Vec<VarId>)> = parts
            .iter()
            .map(|&n| {
                let (mut vars, mut todo) = (Vec::new(), Vec::new());
                p.vars_of(n, &mut vars, &mut todo);
                let kind = match p.nodes[n as usize] {
                    Node::Not(k) => format!("not {:?}", p.nodes[k as usize]),
                    other => format!("{other:?}"),
                };
                (kind, vars)
            })
            .collect();
        assert_eq!(shown.len(), 4, "{shown:?}");
        assert!(shown[0]
            .0
            .starts_with("not Copy { var: VarId(0), next: false"));
        assert!(shown[1]
            .0
            .starts_with("not Copy { var: VarId(1), next: true"));
        assert!(shown[2].0.starts_with("not Copy { var: VarId(2)"));
        assert!(shown[3].0.starts_with("Define"));
        let vars: Vec<Vec<VarId>> = shown.into_iter().map(|(_, v)| v).collect();
        assert_eq!(vars, [vec![a], vec![b], vec![c], vec![d, x]]);
    }
}
