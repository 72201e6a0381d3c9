//! The IR: one finite-state transition system that every frontend produces
//! and every engine consumes.
//!
//! Input: built by a frontend (`grid`, `game`) through the small builder API
//! on [`System`]. Output: read by the SMV emitter (`smv`), the bounded model
//! checker (`bmc`), and the [`System::check`] evaluator that verifies every
//! answer before it is shown.
//!
//! Semantics (shared by all engines): a solution is a finite path
//! `s0 … sk` such that
//! * `s0` satisfies every [`System::init_assign`] and [`System::init`],
//! * every pair `(si, si+1)` satisfies every [`System::next_assign`] and
//!   [`System::trans`], and frozen variables keep their value,
//! * every state satisfies every [`System::invar`],
//! * `sk` satisfies [`System::goal`].
//!
//! In SMV terms this is `LTLSPEC !(F goal)` / `INVARSPEC !goal`: the
//! counterexample is the solution. An assignment's right-hand side may be an
//! [`Expr::Set`]: the variable takes any value of the set (nondeterministic
//! choice, as SMV's `next(x) := {1, 4}`).
//!
//! Invariants: variable ids are 0-based indices into [`System::vars`];
//! array elements are ordinary variables named `family[i]` (0-based) that
//! also record their family, so the emitter can declare SMV arrays; a
//! variable has at most one init and one next assignment, and a frozen
//! variable has no next assignment.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use thiserror::Error;

pub(crate) mod label;

/// A variable of the system: 0-based index into [`System::vars`].
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VarId(pub u32);

impl VarId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A named array of variables: 0-based index into [`System::families`].
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FamilyId(pub u32);

/// A named DEFINE: 0-based index into [`System::defines`].
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DefineId(pub u32);

/// A finite domain.
#[derive(Clone, Debug, PartialEq, Eq)]
// A tag byte of its own, as `Expr` has: the variant was kept in a niche
// of `Enum`'s vector (its capacity) and decoded at every match; the
// checker matches a domain per value (`contains`). solve --json,
// instructions: numbrix-9x9-s1 16.42M -> 16.23M, hidato-9x9-unique-s3
// 9.16M -> 9.07M, waypoint-9x9-unique-s3 8.32M -> 8.26M.
#[repr(u8)]
pub enum Domain {
    Bool,
    /// Integers `lo..=hi` (SMV `lo..hi`).
    Range {
        lo: i64,
        hi: i64,
    },
    /// Symbolic constants, in declaration order.
    Enum(Vec<String>),
}

impl Domain {
    /// Every value of the domain, in order (`FALSE` before `TRUE`).
    pub fn values(&self) -> Vec<Value> {
        match self {
            Domain::Bool => vec![Value::Bool(false), Value::Bool(true)],
            Domain::Range { lo, hi } => (*lo..=*hi).map(Value::Int).collect(),
            Domain::Enum(syms) => syms.iter().map(|s| Value::Sym(s.as_str().into())).collect(),
        }
    }

    pub fn size(&self) -> usize {
        match self {
            Domain::Bool => 2,
            Domain::Range { lo, hi } => (hi - lo + 1).max(0) as usize,
            Domain::Enum(syms) => syms.len(),
        }
    }

    pub fn contains(&self, v: &Value) -> bool {
        match (self, v) {
            (Domain::Bool, Value::Bool(_)) => true,
            (Domain::Range { lo, hi }, Value::Int(i)) => lo <= i && i <= hi,
            (Domain::Enum(syms), Value::Sym(s)) => syms.iter().any(|x| **x == **s),
            _ => false,
        }
    }

    /// Reads a value as a model checker prints it (`TRUE`, `-3`, `sym`).
    pub fn parse_value(&self, text: &str) -> Option<Value> {
        let text = text.trim();
        let v = match self {
            Domain::Bool => match text {
                "TRUE" | "1" => Value::Bool(true),
                "FALSE" | "0" => Value::Bool(false),
                _ => return None,
            },
            Domain::Range { .. } => Value::Int(text.parse().ok()?),
            Domain::Enum(_) => Value::Sym(text.into()),
        };
        self.contains(&v).then_some(v)
    }
}

/// A concrete value. A symbol is shared (`Arc<str>`): a trace holds
/// every variable at every step, and copying a state or reading a
/// variable then copies a pointer, not the name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Sym(Arc<str>),
}

impl fmt::Display for Value {
    /// SMV spelling: `TRUE`, `FALSE`, `3`, `sym`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(true) => f.write_str("TRUE"),
            Value::Bool(false) => f.write_str("FALSE"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Sym(s) => f.write_str(s),
        }
    }
}

/// A state variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Var {
    /// SMV name; array elements are `family[i]`.
    pub name: String,
    pub domain: Domain,
    /// Never changes along a path (SMV `FROZENVAR`).
    pub frozen: bool,
    /// The array this variable belongs to, and its 0-based index there.
    pub family: Option<(FamilyId, usize)>,
}

/// An array of variables sharing one domain: `name[0..len)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Family {
    pub name: String,
    pub domain: Domain,
    pub frozen: bool,
    /// Element `i` is `elems[i]`.
    pub elems: Vec<VarId>,
}

/// A named expression over the current state (SMV `DEFINE`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Define {
    pub name: String,
    pub expr: Expr,
}

/// An expression over the current state and, in `trans` and next
/// assignments, the next state.
#[derive(Clone, Debug, PartialEq, Eq)]
// A tag byte of its own: without it the variant was stored in a niche of
// `In`'s vector (its capacity), and every `match` decoded it from that
// word (five instructions more). 32 -> 40 bytes a node; solve --json,
// instructions: numbrix-9x9-s1 16.75M -> 16.50M, hidato-9x9-unique-s3
// 9.34M -> 9.18M, waypoint-9x9-unique-s3 8.54M -> 8.32M.
#[repr(u8)]
pub enum Expr {
    Const(Value),
    Var(VarId),
    /// The value of the variable in the next state.
    Next(VarId),
    Define(DefineId),
    Not(Box<Expr>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Implies(Box<Expr>, Box<Expr>),
    Iff(Box<Expr>, Box<Expr>),
    Eq(Box<Expr>, Box<Expr>),
    Lt(Box<Expr>, Box<Expr>),
    Le(Box<Expr>, Box<Expr>),
    /// Integer sum.
    Add(Vec<Expr>),
    /// Integer difference `a - b`.
    Sub(Box<Expr>, Box<Expr>),
    /// Number of true operands (integer).
    Count(Vec<Expr>),
    Ite(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `case g1 : v1; g2 : v2; … esac`: the value of the first true guard;
    /// no true guard is an evaluation error.
    Case(Vec<(Expr, Expr)>),
    /// Membership `e in {a, b, …}`.
    In(Box<Expr>, Vec<Expr>),
    /// A set of values: only as the right-hand side of an assignment or a
    /// case branch value there (nondeterministic choice).
    Set(Vec<Expr>),
}

impl Default for Expr {
    /// `TRUE`: the goal of a system that has not set one.
    fn default() -> Self {
        Expr::t()
    }
}

impl Expr {
    pub fn t() -> Expr {
        Expr::Const(Value::Bool(true))
    }
    pub fn f() -> Expr {
        Expr::Const(Value::Bool(false))
    }
    pub fn int(i: i64) -> Expr {
        Expr::Const(Value::Int(i))
    }
    pub fn sym(s: &str) -> Expr {
        Expr::Const(Value::Sym(s.into()))
    }
    pub fn var(v: VarId) -> Expr {
        Expr::Var(v)
    }
    pub fn next(v: VarId) -> Expr {
        Expr::Next(v)
    }
    pub fn negate(e: Expr) -> Expr {
        Expr::Not(Box::new(e))
    }
    pub fn eq(a: Expr, b: Expr) -> Expr {
        Expr::Eq(Box::new(a), Box::new(b))
    }
    pub fn lt(a: Expr, b: Expr) -> Expr {
        Expr::Lt(Box::new(a), Box::new(b))
    }
    pub fn le(a: Expr, b: Expr) -> Expr {
        Expr::Le(Box::new(a), Box::new(b))
    }
    pub fn implies(a: Expr, b: Expr) -> Expr {
        Expr::Implies(Box::new(a), Box::new(b))
    }
    pub fn iff(a: Expr, b: Expr) -> Expr {
        Expr::Iff(Box::new(a), Box::new(b))
    }
    pub fn ite(c: Expr, a: Expr, b: Expr) -> Expr {
        Expr::Ite(Box::new(c), Box::new(a), Box::new(b))
    }
    pub fn is_in(e: Expr, set: Vec<Expr>) -> Expr {
        Expr::In(Box::new(e), set)
    }

    /// `x = c` (either way round) for a variable or `next(...)` `x` and a
    /// constant `c`, as `(x, c)`: the usual `case` guard.
    #[inline]
    pub fn as_var_eq_const(&self) -> Option<(&Expr, &Value)> {
        match self {
            Expr::Eq(a, b) => Expr::var_and_const(a, b),
            _ => None,
        }
    }

    /// The operands of `a = b` as `(x, c)` when one is a variable or
    /// `next(...)` and the other a constant (see
    /// [`Expr::as_var_eq_const`]).
    #[inline]
    pub fn var_and_const<'e>(a: &'e Expr, b: &'e Expr) -> Option<(&'e Expr, &'e Value)> {
        match (a, b) {
            (x @ (Expr::Var(_) | Expr::Next(_)), Expr::Const(c))
            | (Expr::Const(c), x @ (Expr::Var(_) | Expr::Next(_))) => Some((x, c)),
            _ => None,
        }
    }

    /// Whether the expression mentions `next(...)` anywhere.
    pub fn mentions_next(&self) -> bool {
        let mut found = false;
        self.visit(&mut |e| found |= matches!(e, Expr::Next(_)));
        found
    }

    /// Calls `f` on this expression and every sub-expression (pre-order).
    /// Does not descend into DEFINEs.
    pub fn visit<'e>(&'e self, f: &mut impl FnMut(&'e Expr)) {
        f(self);
        // A leaf is handled here, not by a call of its own: about half
        // the nodes of a grid model are leaves, and the engine walks
        // every constraint several times before it starts.
        let mut go = |x: &'e Expr| match x {
            Expr::Const(_) | Expr::Var(_) | Expr::Next(_) | Expr::Define(_) => f(x),
            _ => x.visit(f),
        };
        match self {
            Expr::Const(_) | Expr::Var(_) | Expr::Next(_) | Expr::Define(_) => {}
            Expr::Not(a) => go(a),
            Expr::And(xs) | Expr::Or(xs) | Expr::Add(xs) | Expr::Count(xs) | Expr::Set(xs) => {
                xs.iter().for_each(go)
            }
            Expr::Implies(a, b)
            | Expr::Iff(a, b)
            | Expr::Eq(a, b)
            | Expr::Lt(a, b)
            | Expr::Le(a, b)
            | Expr::Sub(a, b) => {
                go(a);
                go(b);
            }
            Expr::Ite(c, a, b) => {
                go(c);
                go(a);
                go(b);
            }
            Expr::Case(arms) => arms.iter().for_each(|(g, v)| {
                go(g);
                go(v);
            }),
            Expr::In(a, xs) => {
                go(a);
                xs.iter().for_each(go);
            }
        }
    }
}

/// An assignment `init(var) := value` or `next(var) := value`; `value` may
/// be (or contain, in case branches) an [`Expr::Set`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assign {
    pub var: VarId,
    pub value: Expr,
}

/// A constraint with a label saying what it is for (shown as a comment in
/// SMV output and named when the evaluator finds it violated).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constraint {
    pub label: String,
    pub expr: Expr,
}

/// The transition system. See the module documentation for its semantics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct System {
    /// Module comment lines (what this system models).
    pub comment: Vec<String>,
    pub vars: Vec<Var>,
    pub families: Vec<Family>,
    pub defines: Vec<Define>,
    pub init_assign: Vec<Assign>,
    pub next_assign: Vec<Assign>,
    pub init: Vec<Constraint>,
    pub trans: Vec<Constraint>,
    pub invar: Vec<Constraint>,
    /// The goal; usually `Expr::Define` of a DEFINE named `goal`/`solved`.
    pub goal: Expr,
    /// Exact number of transitions of every solution, when the frontend
    /// knows it (a path puzzle has `open cells - 1` moves).
    pub bound: Option<usize>,
    /// The variables that tell two solutions apart (a path puzzle's
    /// position, a game's secret); engines that count solutions block on
    /// these only. Empty means every variable.
    pub solution_vars: Vec<VarId>,
    /// A search hint for SAT engines: every solution is fixed by these
    /// variables' values (the others follow from them by the model's own
    /// constraints), so a solver may branch on them alone. It changes no
    /// semantics: an engine that ignores it, or finds a variable the hint
    /// leaves open, must answer the same. Empty means no hint.
    pub branch_vars: Vec<VarId>,
    /// A hint for SAT engines: some INVARs only say that a successor
    /// graph has no cycle, through witness ranks (see [`Acyclic`]). An
    /// engine may leave those INVARs out, forbid cycles as it meets them
    /// and give the ranks values of its own; an engine that ignores the
    /// hint answers the same. Empty means no hint.
    pub acyclic: Vec<Acyclic>,
}

/// Part of the system that says a functional graph has no cycle: node
/// `i`'s successor is what the value of `succ[i]` points at, and the INVARs
/// `invars` say exactly `succ[i] points at j -> rank[i] < rank[j]` for
/// every pointer (ranks grow along the successors, so there is no cycle;
/// any ranks that grow along the pointers satisfy them).
///
/// Invariants the frontend keeps: `succ` and `rank` are frozen, one per
/// node; `target[i][v]` is the node (0-based index into `succ`) that the
/// `v`-th value of `succ[i]`'s domain points at, `None` for no successor;
/// every `rank[i]` is an integer range of at least `succ.len()` values,
/// and nothing but `invars` reads a rank. An engine that relies on the
/// hint checks what it can of this (see `bmc::lazy`) and still verifies
/// every answer against the whole system.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Acyclic {
    pub succ: Vec<VarId>,
    pub target: Vec<Vec<Option<usize>>>,
    pub rank: Vec<VarId>,
    /// Indices into [`System::invar`].
    pub invars: Vec<usize>,
    /// Short cycles of the graph worth forbidding before any model shows
    /// them (the frontend's choice: on a grid, the rings around small
    /// blocks of cells): each is its pointers `(i, v)`, node `i` taking
    /// the `v`-th value of `succ[i]`, in any order. Every one is
    /// implied by `invars`; they are not in [`System::invar`] (a checker
    /// has nothing more to check), and an engine that relies on the hint
    /// may add them as clauses, having checked that each is a cycle of
    /// `target`.
    pub cuts: Vec<Vec<(usize, usize)>>,
}

/// A finite path of full states, as read from any engine.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Trace {
    /// `states[i][v]` is the value of variable `VarId(v)` in state `i`.
    pub states: Vec<Vec<Value>>,
    /// 0-based index of the state where a lasso loop starts, if any.
    pub loop_start: Option<usize>,
}

/// Why a trace is not a solution of the system.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum EvalError {
    #[error("the trace has no states")]
    Empty,
    #[error("state {step}: variable `{var}` is missing")]
    Missing { step: usize, var: String },
    #[error("state {step}: variable `{var}` has value `{value}`, outside its domain")]
    OutOfDomain {
        step: usize,
        var: String,
        value: String,
    },
    #[error("state {step}: unknown variable `{var}`")]
    UnknownVar { step: usize, var: String },
    #[error("state {step}: frozen variable `{var}` changed")]
    FrozenChanged { step: usize, var: String },
    #[error("state {step}: {what} is violated")]
    Violated { step: usize, what: String },
    #[error("state {step}: the goal does not hold in the last state")]
    GoalFails { step: usize },
    #[error("state {step}: cannot evaluate {what}: {why}")]
    Type {
        step: usize,
        what: String,
        why: String,
    },
}

impl EvalError {
    /// The state (0-based) the error is about, and the variable if it
    /// names one.
    pub fn place(&self) -> Option<(usize, Option<&str>)> {
        match self {
            EvalError::Empty => None,
            EvalError::Missing { step, var }
            | EvalError::OutOfDomain { step, var, .. }
            | EvalError::UnknownVar { step, var }
            | EvalError::FrozenChanged { step, var } => Some((*step, Some(var))),
            EvalError::Violated { step, .. }
            | EvalError::GoalFails { step }
            | EvalError::Type { step, .. } => Some((*step, None)),
        }
    }
}

impl System {
    /// Adds a scalar variable and returns its id.
    pub fn add_var(&mut self, name: impl Into<String>, domain: Domain, frozen: bool) -> VarId {
        let id = VarId(self.vars.len() as u32);
        self.vars.push(Var {
            name: name.into(),
            domain,
            frozen,
            family: None,
        });
        id
    }

    /// Adds an array `name[0..len)` and returns its elements' ids.
    pub fn add_family(
        &mut self,
        name: impl Into<String>,
        len: usize,
        domain: Domain,
        frozen: bool,
    ) -> Vec<VarId> {
        let name = name.into();
        let fam = FamilyId(self.families.len() as u32);
        let elems: Vec<VarId> = (0..len)
            .map(|i| {
                let id = VarId(self.vars.len() as u32);
                self.vars.push(Var {
                    name: label::label!(name.as_str(), "[", i, "]"),
                    domain: domain.clone(),
                    frozen,
                    family: Some((fam, i)),
                });
                id
            })
            .collect();
        self.families.push(Family {
            name,
            domain,
            frozen,
            elems: elems.clone(),
        });
        elems
    }

    /// Adds a DEFINE and returns an expression referring to it.
    pub fn add_define(&mut self, name: impl Into<String>, expr: Expr) -> Expr {
        let id = DefineId(self.defines.len() as u32);
        self.defines.push(Define {
            name: name.into(),
            expr,
        });
        Expr::Define(id)
    }

    pub fn var(&self, v: VarId) -> &Var {
        &self.vars[v.index()]
    }

    pub fn var_by_name(&self, name: &str) -> Option<VarId> {
        self.vars
            .iter()
            .position(|v| v.name == name)
            .map(|i| VarId(i as u32))
    }

    /// Builds a full trace from name-keyed states as a model checker prints
    /// them (values already carried forward). Names the system does not
    /// know (DEFINEs, inputs) are ignored; a missing variable is an error.
    pub fn trace_from_named(
        &self,
        states: &[BTreeMap<String, String>],
        loop_start: Option<usize>,
    ) -> Result<Trace, EvalError> {
        let mut out = Vec::with_capacity(states.len());
        for (step, named) in states.iter().enumerate() {
            let mut state = Vec::with_capacity(self.vars.len());
            for var in &self.vars {
                let text = named.get(&var.name).ok_or_else(|| EvalError::Missing {
                    step,
                    var: var.name.clone(),
                })?;
                let value = var
                    .domain
                    .parse_value(text)
                    .ok_or_else(|| EvalError::OutOfDomain {
                        step,
                        var: var.name.clone(),
                        value: text.clone(),
                    })?;
                state.push(value);
            }
            out.push(state);
        }
        Ok(Trace {
            states: out,
            loop_start,
        })
    }

    /// The trace cut after the first state where the goal holds: model
    /// checkers report lassos that go on past the goal (stuttering), while
    /// a solution ends where the goal is first reached. Unchanged when the
    /// goal never holds (the evaluator will then say so).
    pub fn cut_at_goal(&self, trace: &Trace) -> Trace {
        let first = trace
            .states
            .iter()
            .position(|s| self.eval(s, None, &self.goal) == Ok(Value::Bool(true)));
        match first {
            Some(i) => Trace {
                states: trace.states[..=i].to_vec(),
                loop_start: None,
            },
            None => trace.clone(),
        }
    }

    /// Checks that `trace` is a solution (see the module documentation).
    pub fn check(&self, trace: &Trace) -> Result<(), EvalError> {
        self.check_with(trace, &self.step_invariants())
    }

    /// [`System::check`] given [`System::step_invariants`] (`each`): for
    /// a caller that checks many traces of one system (that walk over
    /// every INVAR cost as much as a check on grid models with many
    /// frozen variables).
    pub(crate) fn check_with(&self, trace: &Trace, each: &[usize]) -> Result<(), EvalError> {
        let last = trace.states.len().checked_sub(1).ok_or(EvalError::Empty)?;
        // Labels are only spelled out for the error: building them for
        // every constraint at every step was most of the checking time.
        let invar = |c: &Constraint| format!("INVAR `{}`", c.label);
        // An invariant over frozen variables only has the same value in
        // every state once the frozen variables are known not to change
        // (checked below for every transition): one evaluation suffices.
        for (step, state) in trace.states.iter().enumerate() {
            // A frozen variable's later values are its first (checked
            // below): its domain is checked at step 0 only.
            self.check_domains(step, state, step > 0)?;
            if step == 0 {
                for c in &self.invar {
                    self.require(step, state, None, &c.expr, || invar(c))?;
                }
                continue;
            }
            for c in each.iter().map(|&i| &self.invar[i]) {
                self.require(step, state, None, &c.expr, || invar(c))?;
            }
        }
        // `next(v) := v | next(x) = c` (a grid path's visited flags, one
        // per cell and step: 5,550 on a 9x9 numbrix) from three values;
        // a flag that fails goes through the evaluator, for its error.
        let accumulators: Vec<_> = self.next_assign.iter().map(accumulator).collect();
        let s0 = &trace.states[0];
        for a in &self.init_assign {
            let what = || format!("init({})", self.var(a.var).name);
            self.require_assign(0, s0, None, a, &s0[a.var.index()], what)?;
        }
        for c in &self.init {
            self.require(0, s0, None, &c.expr, || format!("INIT `{}`", c.label))?;
        }
        for (step, pair) in trace.states.windows(2).enumerate() {
            let (cur, nxt) = (&pair[0], &pair[1]);
            for (i, var) in self.vars.iter().enumerate() {
                if var.frozen && cur[i] != nxt[i] {
                    return Err(EvalError::FrozenChanged {
                        step: step + 1,
                        var: var.name.clone(),
                    });
                }
            }
            for (a, acc) in self.next_assign.iter().zip(&accumulators) {
                if let (Some((x, c)), Value::Bool(was), Value::Bool(now)) =
                    (acc, &cur[a.var.index()], &nxt[a.var.index()])
                {
                    if (*was || same(&nxt[x.index()], c)) == *now {
                        continue;
                    }
                }
                let what = || format!("next({})", self.var(a.var).name);
                self.require_assign(step, cur, Some(nxt), a, &nxt[a.var.index()], what)?;
            }
            for c in &self.trans {
                let what = || format!("TRANS `{}`", c.label);
                self.require(step, cur, Some(nxt), &c.expr, what)?;
            }
        }
        let state = &trace.states[last];
        match self.eval(state, None, &self.goal) {
            Ok(Value::Bool(true)) => Ok(()),
            Ok(_) => Err(EvalError::GoalFails { step: last }),
            Err(why) => Err(EvalError::Type {
                step: last,
                what: "the goal".into(),
                why,
            }),
        }
    }

    /// The INVARs (by index, in order) that read a variable that is not
    /// frozen, or `next(...)`: checked (or encoded) at every step. Each of
    /// the others has the same value in every state of a path and needs
    /// checking at one step only (a grid model with frozen variables has
    /// thousands of those, a few of the others).
    pub(crate) fn step_invariants(&self) -> Vec<usize> {
        let mut memo = vec![None; self.defines.len()];
        (0..self.invar.len())
            .filter(|&i| !self.reads_frozen_only(&self.invar[i].expr, &mut memo))
            .collect()
    }

    /// Whether `e` reads no `next(...)` and only frozen variables (through
    /// DEFINEs too). `memo` holds the answer per DEFINE (`None`: not known
    /// yet); a DEFINE being looked at counts as not frozen-only, so that a
    /// cycle ends (with the safe answer: checked at every step).
    fn reads_frozen_only(&self, e: &Expr, memo: &mut [Option<bool>]) -> bool {
        // A leaf is answered here, without a call: about half the nodes
        // of a grid model are leaves.
        let child = |x: &Expr, memo: &mut [Option<bool>]| match x {
            Expr::Const(_) => true,
            Expr::Var(v) => self.vars.get(v.index()).is_some_and(|v| v.frozen),
            _ => self.reads_frozen_only(x, memo),
        };
        let all = |xs: &[Expr], memo: &mut [Option<bool>]| xs.iter().all(|x| child(x, memo));
        match e {
            Expr::Const(_) => true,
            Expr::Var(v) => self.vars.get(v.index()).is_some_and(|v| v.frozen),
            Expr::Next(_) => false,
            Expr::Define(d) => {
                let i = d.0 as usize;
                match (memo.get(i).copied(), self.defines.get(i)) {
                    (Some(Some(known)), _) => known,
                    (Some(None), Some(def)) => {
                        memo[i] = Some(false);
                        let known = child(&def.expr, memo);
                        memo[i] = Some(known);
                        known
                    }
                    _ => false,
                }
            }
            Expr::Not(a) => child(a, memo),
            Expr::And(xs) | Expr::Or(xs) | Expr::Add(xs) | Expr::Count(xs) | Expr::Set(xs) => {
                all(xs, memo)
            }
            Expr::Implies(a, b)
            | Expr::Iff(a, b)
            | Expr::Eq(a, b)
            | Expr::Lt(a, b)
            | Expr::Le(a, b)
            | Expr::Sub(a, b) => child(a, memo) && child(b, memo),
            Expr::Ite(c, a, b) => child(c, memo) && child(a, memo) && child(b, memo),
            Expr::Case(arms) => arms.iter().all(|(g, v)| child(g, memo) && child(v, memo)),
            Expr::In(a, xs) => child(a, memo) && all(xs, memo),
        }
    }

    /// Every value of `state` in its variable's domain (but the frozen
    /// variables' when `skip_frozen`).
    fn check_domains(
        &self,
        step: usize,
        state: &[Value],
        skip_frozen: bool,
    ) -> Result<(), EvalError> {
        if state.len() != self.vars.len() {
            return Err(EvalError::Missing {
                step,
                var: format!("({} values for {} variables)", state.len(), self.vars.len()),
            });
        }
        for (var, value) in self.vars.iter().zip(state) {
            if skip_frozen && var.frozen {
                continue;
            }
            if !var.domain.contains(value) {
                return Err(EvalError::OutOfDomain {
                    step,
                    var: var.name.clone(),
                    value: value.to_string(),
                });
            }
        }
        Ok(())
    }

    /// `what` names the constraint in the error.
    fn require(
        &self,
        step: usize,
        cur: &[Value],
        nxt: Option<&[Value]>,
        e: &Expr,
        what: impl Fn() -> String,
    ) -> Result<(), EvalError> {
        // A boolean-shaped expression evaluates to a boolean or an error:
        // `eval_bool` gives the same verdict without building values.
        let holds = if is_boolean_shaped(e) {
            self.eval_bool(cur, nxt, e)
        } else {
            self.value(cur, nxt, e).map(|v| v == Value::Bool(true))
        };
        match holds {
            Ok(true) => Ok(()),
            Ok(false) => Err(EvalError::Violated { step, what: what() }),
            Err(why) => Err(EvalError::Type {
                step,
                what: what(),
                why: *why,
            }),
        }
    }

    fn require_assign(
        &self,
        step: usize,
        cur: &[Value],
        nxt: Option<&[Value]>,
        a: &Assign,
        actual: &Value,
        what: impl Fn() -> String,
    ) -> Result<(), EvalError> {
        match self.allows(cur, nxt, &a.value, actual) {
            Ok(true) => Ok(()),
            Ok(false) => Err(EvalError::Violated { step, what: what() }),
            Err(why) => Err(EvalError::Type {
                step,
                what: what(),
                why: *why,
            }),
        }
    }

    /// Evaluates an assignment right-hand side to the set of values it
    /// allows (a singleton unless it involves [`Expr::Set`]).
    pub fn eval_set(
        &self,
        cur: &[Value],
        nxt: Option<&[Value]>,
        e: &Expr,
    ) -> Result<Vec<Value>, String> {
        self.value_set(cur, nxt, e).map_err(|why| *why)
    }

    /// [`Self::eval_set`] with the evaluator's own error type.
    fn value_set(&self, cur: &[Value], nxt: Option<&[Value]>, e: &Expr) -> Result<Vec<Value>, Why> {
        match e {
            Expr::Set(xs) => {
                let mut out = Vec::new();
                for x in xs {
                    out.extend(self.value_set(cur, nxt, x)?);
                }
                Ok(out)
            }
            Expr::Case(_) | Expr::Ite(..) => self.value_set(cur, nxt, self.branch(cur, nxt, e)?),
            _ => Ok(vec![self.value(cur, nxt, e)?]),
        }
    }

    /// Whether the value of `x` is in [`Self::eval_set`]`(e)`, with the
    /// same errors (every member of a set is evaluated), without building
    /// the list.
    fn allows(
        &self,
        cur: &[Value],
        nxt: Option<&[Value]>,
        e: &Expr,
        x: &Value,
    ) -> Result<bool, Why> {
        match e {
            Expr::Set(xs) => {
                let mut found = false;
                for m in xs {
                    found |= self.allows(cur, nxt, m, x)?;
                }
                Ok(found)
            }
            Expr::Case(_) | Expr::Ite(..) => self.allows(cur, nxt, self.branch(cur, nxt, e)?, x),
            _ => match (operand(cur, nxt, e), x) {
                (Some(v), _) => Ok(same(v, x)),
                // A boolean value: no value built (`next(v[i]) := v[i] |
                // next(pos) = i`, once per cell and step of a grid path).
                (None, Value::Bool(b)) if is_boolean_shaped(e) => {
                    Ok(self.eval_bool(cur, nxt, e)? == *b)
                }
                (None, _) => Ok(self.value(cur, nxt, e)? == *x),
            },
        }
    }

    /// The boolean value of `e`: [`Self::eval`] followed by "expected a
    /// boolean", evaluated directly on the boolean operators (the checker
    /// spends its time here; no value is built or cloned). The leaves,
    /// and `x = c` between two of them, are evaluated in the caller's
    /// frame (half the nodes; a call of the whole evaluator cost more
    /// than the node).
    #[inline(always)]
    fn eval_bool(&self, cur: &[Value], nxt: Option<&[Value]>, e: &Expr) -> Result<bool, Why> {
        match e {
            // `!(a & b)`: the conjunction's leaves in this frame too (a
            // grid path's no-revisit TRANS, one per cell and step).
            Expr::Not(a) => match &**a {
                Expr::And(xs) => {
                    for x in xs {
                        if !self.leaf_bool(cur, nxt, x)? {
                            return Ok(true);
                        }
                    }
                    Ok(false)
                }
                _ => Ok(!self.eval_node(cur, nxt, a)?),
            },
            Expr::Lt(p, q) | Expr::Le(p, q) => match int_operands(cur, nxt, p, q) {
                Some((x, y)) => Ok(x < y || (x == y && matches!(e, Expr::Le(..)))),
                None => self.eval_node(cur, nxt, e),
            },
            _ => self.leaf_bool(cur, nxt, e),
        }
    }

    /// [`Self::eval_bool`] of a boolean variable or of `x = c` between
    /// operands in this frame, of any other node through
    /// [`Self::eval_node`].
    #[inline(always)]
    fn leaf_bool(&self, cur: &[Value], nxt: Option<&[Value]>, e: &Expr) -> Result<bool, Why> {
        if let Some(holds) = int_eq(cur, nxt, e) {
            return Ok(holds);
        }
        match e {
            Expr::Var(v) => as_bool(&cur[v.index()]),
            Expr::Eq(p, q) => match (operand(cur, nxt, p), operand(cur, nxt, q)) {
                (Some(x), Some(y)) => Ok(same(x, y)),
                _ => self.eval_node(cur, nxt, e),
            },
            _ => self.eval_node(cur, nxt, e),
        }
    }

    /// [`Self::eval_bool`] of any node.
    #[inline(never)]
    fn eval_node(&self, cur: &[Value], nxt: Option<&[Value]>, e: &Expr) -> Result<bool, Why> {
        match e {
            Expr::Const(Value::Bool(b)) => Ok(*b),
            Expr::Var(v) => as_bool(&cur[v.index()]),
            Expr::Next(v) => match nxt {
                Some(n) => as_bool(&n[v.index()]),
                None => Err(self.next_outside(*v)),
            },
            Expr::Define(d) => self.eval_bool(cur, nxt, &self.defines[d.0 as usize].expr),
            Expr::Not(a) => Ok(!self.eval_bool(cur, nxt, a)?),
            Expr::And(xs) => {
                for x in xs {
                    if !self.eval_bool(cur, nxt, x)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Expr::Or(xs) => {
                for x in xs {
                    if self.eval_bool(cur, nxt, x)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Expr::Implies(p, q) => {
                Ok(!self.eval_bool(cur, nxt, p)? || self.eval_bool(cur, nxt, q)?)
            }
            Expr::Iff(p, q) => Ok(self.eval_bool(cur, nxt, p)? == self.eval_bool(cur, nxt, q)?),
            Expr::Eq(p, q) => match (operand(cur, nxt, p), operand(cur, nxt, q)) {
                (Some(x), Some(y)) => Ok(same(x, y)),
                _ => self.eval_other(cur, nxt, e),
            },
            Expr::Lt(p, q) | Expr::Le(p, q) => match int_operands(cur, nxt, p, q) {
                Some((x, y)) => Ok(x < y || (x == y && matches!(e, Expr::Le(..)))),
                None => self.eval_other(cur, nxt, e),
            },
            _ => self.eval_other(cur, nxt, e),
        }
    }

    /// [`Self::eval_node`] of the comparisons, choices and non-boolean
    /// nodes (out of line: a small frame for the nodes checked most).
    #[inline(never)]
    fn eval_other(&self, cur: &[Value], nxt: Option<&[Value]>, e: &Expr) -> Result<bool, Why> {
        match e {
            Expr::Eq(p, q) => Ok(self.value(cur, nxt, p)? == self.value(cur, nxt, q)?),
            Expr::Lt(p, q) => Ok(self.eval_int(cur, nxt, p)? < self.eval_int(cur, nxt, q)?),
            Expr::Le(p, q) => Ok(self.eval_int(cur, nxt, p)? <= self.eval_int(cur, nxt, q)?),
            Expr::Ite(..) | Expr::Case(_) => self.eval_bool(cur, nxt, self.branch(cur, nxt, e)?),
            _ => match self.value(cur, nxt, e)? {
                Value::Bool(b) => Ok(b),
                v => Err(not_bool(&v)),
            },
        }
    }

    /// The branch an `Ite` or a `Case` takes in this state (its chosen
    /// arm's expression); an error when no case guard holds.
    fn branch<'e>(
        &self,
        cur: &[Value],
        nxt: Option<&[Value]>,
        e: &'e Expr,
    ) -> Result<&'e Expr, Why> {
        match e {
            Expr::Ite(c, p, q) => Ok(if self.eval_bool(cur, nxt, c)? { p } else { q }),
            Expr::Case(arms) => {
                for (g, v) in arms {
                    // A guard `x = c` on an integer (a transition table's:
                    // one arm per cell) is read straight from the state.
                    // `leaf_bool` tries `int_eq` too, but through
                    // `eval_bool` a guard costs its dispatch: left to it,
                    // numbrix-9x9-s1 took 65K instructions more.
                    let hit = match int_eq(cur, nxt, g) {
                        Some(hit) => hit,
                        None => self.eval_bool(cur, nxt, g)?,
                    };
                    if hit {
                        return Ok(v);
                    }
                }
                Err(why("no case guard holds".into()))
            }
            _ => Err(why("expected an if-then-else or a case".into())),
        }
    }

    fn eval_int(&self, cur: &[Value], nxt: Option<&[Value]>, e: &Expr) -> Result<i64, Why> {
        match operand(cur, nxt, e) {
            Some(Value::Int(i)) => Ok(*i),
            _ => match self.value(cur, nxt, e)? {
                Value::Int(i) => Ok(i),
                v => Err(why(format!("expected an integer, got `{v}`"))),
            },
        }
    }

    /// The error of `next(v)` read outside a transition.
    #[cold]
    #[inline(never)]
    fn next_outside(&self, v: VarId) -> Why {
        why(format!("next({}) outside a transition", self.var(v).name))
    }

    /// Evaluates `e` in state `cur` (and `nxt` for `next(...)`).
    pub fn eval(&self, cur: &[Value], nxt: Option<&[Value]>, e: &Expr) -> Result<Value, String> {
        self.value(cur, nxt, e).map_err(|why| *why)
    }

    /// [`Self::eval`] with the evaluator's own error type.
    fn value(&self, cur: &[Value], nxt: Option<&[Value]>, e: &Expr) -> Result<Value, Why> {
        let b = |x: bool| Ok(Value::Bool(x));
        match e {
            Expr::Const(v) => Ok(v.clone()),
            Expr::Var(v) => Ok(cur[v.index()].clone()),
            Expr::Next(v) => match nxt {
                Some(n) => Ok(n[v.index()].clone()),
                None => Err(self.next_outside(*v)),
            },
            Expr::Define(d) => self.value(cur, nxt, &self.defines[d.0 as usize].expr),
            // The boolean operators: evaluated by `eval_bool`, which
            // handles each of them directly (no call back here).
            Expr::Not(_)
            | Expr::And(_)
            | Expr::Or(_)
            | Expr::Implies(..)
            | Expr::Iff(..)
            | Expr::Eq(..)
            | Expr::Lt(..)
            | Expr::Le(..) => b(self.eval_bool(cur, nxt, e)?),
            Expr::Add(xs) => {
                let mut sum = 0i64;
                for x in xs {
                    sum += self.eval_int(cur, nxt, x)?;
                }
                Ok(Value::Int(sum))
            }
            Expr::Sub(p, q) => Ok(Value::Int(
                self.eval_int(cur, nxt, p)? - self.eval_int(cur, nxt, q)?,
            )),
            Expr::Count(xs) => {
                let mut n = 0i64;
                for x in xs {
                    n += self.eval_bool(cur, nxt, x)? as i64;
                }
                Ok(Value::Int(n))
            }
            Expr::Ite(..) | Expr::Case(_) => self.value(cur, nxt, self.branch(cur, nxt, e)?),
            Expr::In(x, set) => {
                let v = self.value(cur, nxt, x)?;
                for s in set {
                    if let Expr::Const(c) = s {
                        if *c == v {
                            return b(true);
                        }
                    } else if self.value_set(cur, nxt, s)?.contains(&v) {
                        return b(true);
                    }
                }
                b(false)
            }
            Expr::Set(_) => Err(why("a set of values where one value is expected".into())),
        }
    }
}

/// Why an evaluation failed. Boxed, so that the evaluator's results
/// (`Result<bool, Why>`) are two machine words, returned in registers: a
/// bare `String` error made each one a 32-byte value written through
/// memory, at every node of every check.
type Why = Box<String>;

/// A [`Why`]; out of line: only a failing evaluation builds one.
#[cold]
#[inline(never)]
fn why(msg: String) -> Why {
    Box::new(msg)
}

#[cold]
#[inline(never)]
fn not_bool(v: &Value) -> Why {
    why(format!("expected a boolean, got `{v}`"))
}

#[inline(always)]
fn as_bool(v: &Value) -> Result<bool, Why> {
    match v {
        Value::Bool(b) => Ok(*b),
        other => Err(not_bool(other)),
    }
}

/// `x == y`, inlined for integers and booleans (a call per comparison
/// otherwise).
#[inline(always)]
fn same(x: &Value, y: &Value) -> bool {
    match (x, y) {
        (Value::Int(a), Value::Int(b)) => a == b,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        _ => x == y,
    }
}

/// The value of a constant or a variable, without copying it (`None`
/// for other expressions, and for `next(...)` outside a transition).
#[inline(always)]
fn operand<'a>(cur: &'a [Value], nxt: Option<&'a [Value]>, e: &'a Expr) -> Option<&'a Value> {
    match e {
        Expr::Const(v) => Some(v),
        Expr::Var(v) => cur.get(v.index()),
        Expr::Next(v) => nxt?.get(v.index()),
        _ => None,
    }
}

/// Whether `e`, when it is `x = c` or `next(x) = c` between an integer
/// variable and an integer constant, holds (what [`System::eval_bool`]
/// says of it, in a few instructions: a transition table's guards, a
/// grid path's `next(pos) = c`, one per cell and step); `None` for any
/// other expression, or a value that is no integer.
#[inline(always)]
fn int_eq(cur: &[Value], nxt: Option<&[Value]>, e: &Expr) -> Option<bool> {
    let Expr::Eq(p, q) = e else {
        return None;
    };
    let Expr::Const(Value::Int(c)) = &**q else {
        return None;
    };
    let x = match &**p {
        Expr::Var(x) => cur.get(x.index())?,
        Expr::Next(x) => nxt?.get(x.index())?,
        _ => return None,
    };
    match x {
        Value::Int(y) => Some(y == c),
        _ => None,
    }
}

/// Two integer [`operand`]s, when both are (a comparison of two of
/// them is decided in the caller's frame: `visited[c] <-> rank[c] <=
/// step` is checked once per cell and step of a grid path).
#[inline(always)]
fn int_operands(cur: &[Value], nxt: Option<&[Value]>, p: &Expr, q: &Expr) -> Option<(i64, i64)> {
    match (operand(cur, nxt, p)?, operand(cur, nxt, q)?) {
        (Value::Int(x), Value::Int(y)) => Some((*x, *y)),
        _ => None,
    }
}

/// Every state of `sys`'s variables (every combination of their values):
/// for tests that check paths against brute force.
#[cfg(test)]
pub(crate) fn all_states(sys: &System) -> Vec<Vec<Value>> {
    let mut out: Vec<Vec<Value>> = vec![vec![]];
    for var in &sys.vars {
        out = out
            .into_iter()
            .flat_map(|s| {
                var.domain.values().into_iter().map(move |v| {
                    let mut s = s.clone();
                    s.push(v);
                    s
                })
            })
            .collect();
    }
    out
}

/// `a` as `next(v) := v | next(x) = c` (either order), if it is one:
/// `x` and `c`. Such an assignment allows `now` for `v` after `was`
/// exactly when both are booleans and `was | next(x) = c` is `now`.
pub(crate) fn accumulator(a: &Assign) -> Option<(VarId, &Value)> {
    let Expr::Or(xs) = &a.value else { return None };
    let [p, q] = xs.as_slice() else { return None };
    let flag = |e: &Expr| matches!(e, Expr::Var(v) if *v == a.var);
    let hit = match (p, q) {
        (f, h) | (h, f) if flag(f) => h,
        _ => return None,
    };
    match hit {
        Expr::Eq(l, r) => match (&**l, &**r) {
            (Expr::Next(x), Expr::Const(c)) => Some((*x, c)),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `e` evaluates to a boolean whenever it evaluates at all (its
/// operator is a boolean one).
fn is_boolean_shaped(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Not(_)
            | Expr::And(_)
            | Expr::Or(_)
            | Expr::Implies(..)
            | Expr::Iff(..)
            | Expr::Eq(..)
            | Expr::Lt(..)
            | Expr::Le(..)
            | Expr::In(..)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A counter 0..3 that must reach 3, with a nondeterministic step of 1 or 2.
    fn counter() -> (System, VarId) {
        let mut sys = System::default();
        let x = sys.add_var("x", Domain::Range { lo: 0, hi: 3 }, false);
        sys.init_assign.push(Assign {
            var: x,
            value: Expr::int(0),
        });
        sys.next_assign.push(Assign {
            var: x,
            value: Expr::Case(vec![
                (
                    Expr::lt(Expr::var(x), Expr::int(2)),
                    Expr::Set(vec![
                        Expr::Add(vec![Expr::var(x), Expr::int(1)]),
                        Expr::Add(vec![Expr::var(x), Expr::int(2)]),
                    ]),
                ),
                (Expr::t(), Expr::int(3)),
            ]),
        });
        sys.goal = sys.add_define("goal", Expr::eq(Expr::var(x), Expr::int(3)));
        (sys, x)
    }

    #[test]
    fn int_eq_says_what_the_generic_comparison_says() {
        // `x = c` and `next(x) = c` with every kind of value on either
        // side, and the reversed and non-constant forms it leaves alone.
        let values = [
            Value::Int(1),
            Value::Int(2),
            Value::Bool(true),
            Value::Sym("p".into()),
        ];
        let (x, y) = (VarId(0), VarId(1));
        let mut exprs = Vec::new();
        for c in &values {
            let c = Expr::Const(c.clone());
            exprs.push(Expr::eq(Expr::var(x), c.clone()));
            exprs.push(Expr::eq(Expr::next(x), c.clone()));
            exprs.push(Expr::eq(c, Expr::var(x)));
        }
        exprs.push(Expr::eq(Expr::var(x), Expr::var(y)));
        exprs.push(Expr::eq(Expr::var(VarId(7)), Expr::int(1)));
        let mut decided = 0;
        for (a, b) in values
            .iter()
            .flat_map(|a| values.iter().map(move |b| (a, b)))
        {
            let (cur, nxt) = (vec![a.clone(), b.clone()], vec![b.clone(), a.clone()]);
            for e in &exprs {
                for n in [Some(nxt.as_slice()), None] {
                    let Some(fast) = int_eq(&cur, n, e) else {
                        continue;
                    };
                    decided += 1;
                    let Expr::Eq(p, q) = e else { unreachable!() };
                    let (p, q) = (operand(&cur, n, p), operand(&cur, n, q));
                    assert_eq!(Some(fast), p.zip(q).map(|(p, q)| same(p, q)), "{e:?}");
                    assert!(matches!((p, q), (Some(Value::Int(_)), Some(Value::Int(_)))));
                }
            }
        }
        // Only the integer pairs: `x` (4 states each way) and `next(x)`.
        assert_eq!(decided, 2 * 2 * 4 * 2 + 2 * 2 * 4);
    }

    #[test]
    fn accumulators_are_checked_as_the_evaluator_checks_them() {
        // `next(v) := v | next(x) = c` in both orders, with `c` in and out
        // of `x`'s domain and of an enum's; every pair of states.
        let mut sys = System::default();
        let x = sys.add_var("x", Domain::Range { lo: 0, hi: 2 }, false);
        let e = sys.add_var("e", Domain::Enum(vec!["p".into(), "q".into()]), false);
        let acc = |v: VarId, y: VarId, c: Expr, swap: bool| {
            let (flag, hit) = (Expr::var(v), Expr::eq(Expr::next(y), c));
            let xs = if swap {
                vec![hit, flag]
            } else {
                vec![flag, hit]
            };
            Assign {
                var: v,
                value: Expr::Or(xs),
            }
        };
        let cases = [
            (x, Expr::int(1), false),
            (x, Expr::int(2), true),
            (x, Expr::int(5), false),
            (e, Expr::sym("q"), true),
            (e, Expr::sym("r"), false),
        ];
        for (i, (y, c, swap)) in cases.into_iter().enumerate() {
            let v = sys.add_var(format!("v{i}"), Domain::Bool, false);
            assert!(accumulator(&acc(v, y, c.clone(), swap)).is_some());
            sys.next_assign.push(acc(v, y, c, swap));
        }
        sys.goal = Expr::t();
        let states = all_states(&sys);
        let mut accepted = 0;
        for cur in &states {
            for nxt in &states {
                let by_evaluator = sys.next_assign.iter().all(|a| {
                    sys.allows(cur, Some(nxt), &a.value, &nxt[a.var.index()])
                        .unwrap()
                });
                let t = Trace {
                    states: vec![cur.clone(), nxt.clone()],
                    loop_start: None,
                };
                assert_eq!(sys.check(&t).is_ok(), by_evaluator, "{cur:?} -> {nxt:?}");
                accepted += usize::from(by_evaluator);
            }
        }
        // Each flag has one next value per pair: 6 x 32 states, 6 x 6
        // next x and e, and the flags follow.
        assert_eq!(accepted, states.len() * 6);
    }

    fn trace(xs: &[i64]) -> Trace {
        Trace {
            states: xs.iter().map(|&i| vec![Value::Int(i)]).collect(),
            loop_start: None,
        }
    }

    #[test]
    fn accepts_paths_through_nondeterministic_choice() {
        let (sys, _) = counter();
        assert_eq!(sys.check(&trace(&[0, 2, 3])), Ok(()));
        assert_eq!(sys.check(&trace(&[0, 1, 3])), Ok(()));
        assert_eq!(sys.check(&trace(&[0, 1, 2, 3])), Ok(()));
    }

    #[test]
    fn rejects_bad_init_step_goal_and_domain() {
        let (sys, _) = counter();
        assert!(matches!(
            sys.check(&trace(&[1, 3])),
            Err(EvalError::Violated { step: 0, .. })
        ));
        assert!(matches!(
            sys.check(&trace(&[0, 3])),
            Err(EvalError::Violated { step: 0, .. })
        ));
        assert!(matches!(
            sys.check(&trace(&[0, 2])),
            Err(EvalError::GoalFails { step: 1 })
        ));
        assert!(matches!(
            sys.check(&trace(&[0, 4])),
            Err(EvalError::OutOfDomain { step: 1, .. })
        ));
        assert_eq!(sys.check(&trace(&[])), Err(EvalError::Empty));
    }

    #[test]
    fn reads_named_states() {
        let (sys, _) = counter();
        let states: Vec<BTreeMap<String, String>> = ["0", "2", "3"]
            .iter()
            .map(|v| BTreeMap::from([("x".to_string(), v.to_string())]))
            .collect();
        let t = sys.trace_from_named(&states, None).unwrap();
        assert_eq!(t, trace(&[0, 2, 3]));
        let bad = vec![BTreeMap::from([("x".to_string(), "9".to_string())])];
        assert!(matches!(
            sys.trace_from_named(&bad, None),
            Err(EvalError::OutOfDomain { .. })
        ));
    }

    #[test]
    fn frozen_variables_must_not_change() {
        let mut sys = System::default();
        let s = sys.add_var("s", Domain::Bool, true);
        sys.goal = Expr::var(s);
        let t = Trace {
            states: vec![vec![Value::Bool(false)], vec![Value::Bool(true)]],
            loop_start: None,
        };
        assert!(matches!(
            sys.check(&t),
            Err(EvalError::FrozenChanged { step: 1, .. })
        ));
    }

    #[test]
    fn a_frozen_value_out_of_its_domain_later_is_still_caught() {
        let mut sys = System::default();
        sys.add_var("s", Domain::Range { lo: 0, hi: 1 }, true);
        sys.goal = Expr::t();
        let t = Trace {
            states: vec![vec![Value::Int(0)], vec![Value::Int(7)]],
            loop_start: None,
        };
        assert!(matches!(
            sys.check(&t),
            Err(EvalError::FrozenChanged { step: 1, .. })
        ));
    }

    #[test]
    fn comparisons_of_two_operands_agree_with_the_integers() {
        // `a < b`, `a <= next(b)` and `3 <= a` on every pair of values,
        // as invariant and transition, against Rust's own comparison.
        let mut sys = System::default();
        let a = sys.add_var("a", Domain::Range { lo: 0, hi: 3 }, false);
        let b = sys.add_var("b", Domain::Range { lo: 0, hi: 3 }, false);
        sys.goal = Expr::t();
        for (x, y) in (0..4).flat_map(|x| (0..4).map(move |y| (x, y))) {
            let state = vec![Value::Int(x), Value::Int(y)];
            let holds = |e: &Expr, nxt: Option<&[Value]>| sys.eval(&state, nxt, e);
            let lt = Expr::lt(Expr::var(a), Expr::var(b));
            let le = Expr::le(Expr::var(a), Expr::Next(b));
            let c = Expr::le(Expr::int(3), Expr::var(a));
            let after = [Value::Int(0), Value::Int(y)];
            assert_eq!(holds(&lt, None), Ok(Value::Bool(x < y)));
            assert_eq!(holds(&le, Some(&after)), Ok(Value::Bool(x <= y)));
            assert_eq!(holds(&c, None), Ok(Value::Bool(3 <= x)));
            // Through the checker (the boolean evaluator).
            let mut inv = sys.clone();
            inv.invar.push(Constraint {
                label: "a < b".into(),
                // `0 <= a` always holds: `lt` under an `<->`.
                expr: Expr::Iff(
                    Box::new(Expr::le(Expr::int(0), Expr::var(a))),
                    Box::new(lt.clone()),
                ),
            });
            let t = Trace {
                states: vec![state.clone()],
                loop_start: None,
            };
            assert_eq!(inv.check(&t).is_ok(), x < y, "{x} < {y}");
            let mut tr = sys.clone();
            tr.trans.push(Constraint {
                label: "a <= next(b)".into(),
                expr: le.clone(),
            });
            let t = Trace {
                states: vec![state.clone(), vec![Value::Int(x), Value::Int(y)]],
                loop_start: None,
            };
            assert_eq!(tr.check(&t).is_ok(), x <= y, "{x} <= next {y}");
        }
    }

    #[test]
    fn invariants_over_frozen_variables_are_checked() {
        // `s` frozen, `x` not: `!s` is checked once, `x -> s` everywhere.
        let mut sys = System::default();
        let s = sys.add_var("s", Domain::Bool, true);
        let x = sys.add_var("x", Domain::Bool, false);
        sys.invar.push(Constraint {
            label: "not s".into(),
            expr: Expr::negate(Expr::var(s)),
        });
        sys.invar.push(Constraint {
            label: "x needs s".into(),
            expr: Expr::implies(Expr::var(x), Expr::var(s)),
        });
        let t = |s0: bool, x1: bool| Trace {
            states: vec![
                vec![Value::Bool(s0), Value::Bool(false)],
                vec![Value::Bool(s0), Value::Bool(x1)],
            ],
            loop_start: None,
        };
        assert_eq!(sys.check(&t(false, false)), Ok(()));
        assert!(matches!(
            sys.check(&t(true, false)),
            Err(EvalError::Violated { step: 0, .. })
        ));
        assert!(matches!(
            sys.check(&t(false, true)),
            Err(EvalError::Violated { step: 1, .. })
        ));
    }
}
