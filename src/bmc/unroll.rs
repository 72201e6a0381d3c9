//! The unrolling: one copy of every state variable per step, the SAT
//! literals that encode its finite domain, and frames added on demand.
//!
//! Input: a [`System`] and a domain [`Encoding`]. Output: clauses in a
//! [`Sink`] such that the models of the clauses for frames `0..=k` are
//! exactly the paths `s0 … sk` that satisfy init, every transition and
//! every invariant (the goal is added by the caller, see
//! [`Unroller::assert_goal`] and [`Unroller::goal_lit`]); and the way back
//! from a SAT model to a [`Trace`].
//!
//! Invariants: every non-boolean variable copy satisfies "exactly one
//! value" in every model (the encoding's own clauses guarantee it);
//! frozen variables have a single copy, shared by all steps, and
//! invariants over frozen variables only are asserted once; a variable
//! whose assignments force its value at a step (see [`super::analyse`])
//! is that constant there, with no SAT variable; a boolean variable that
//! an INVAR defines outright (`x <-> e`, see [`analyse::aliases`]) is the
//! literal of `e` at every step, with no SAT variable and no channel
//! clauses (equivalent literals merged, not tied); SAT variable 0 is the
//! constant `TRUE` (asserted by a unit clause).

use rustsat::types::{Lit, Var};

use super::analyse;
use super::cnf::{Label, Meaning, Sink};
use super::domains::Domains;
use super::expr::{At, Fail, Term};
use super::fold::Accumulator;
use super::lazy;
use super::value_alias;
use super::{BmcError, Encoding};
use crate::ir::{Domain, System, Trace, Value, VarId};

/// A hash map with FxHash: the unroller's cache keys are literal lists and
/// small integers, not attacker-chosen.
pub(crate) type FxMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// The SAT form of one variable at one step.
#[derive(Clone, Debug)]
pub(crate) enum Copy {
    Bool(Lit),
    /// `eq[i]` is true iff the variable has the domain's `i`-th value.
    OneHot(Vec<Lit>),
    /// `ge[i]` is true iff the value's index is at least `i + 1`.
    Order(Vec<Lit>),
    /// The value's index in binary, least significant bit first.
    Log(Vec<Lit>),
    /// Forced by the assignments: the domain's `i`-th value.
    Const(usize),
}

/// The unroller; owns its clause sink (a solver or a clause log).
pub(crate) struct Unroller<'s, S: Sink> {
    pub sys: &'s System,
    pub sink: S,
    /// The encoding of each variable ([`Encoding::Auto`] resolved).
    encodings: Vec<Encoding>,
    /// The INVARs asserted at every step ([`System::step_invariants`]);
    /// the others, over frozen variables only, at step 0 only.
    invar_each: Vec<usize>,
    /// The cuts of the system's acyclicity hints ([`lazy::hint_cuts`]:
    /// hint and cut indices), asserted at step 0 after the INVARs.
    hint_cuts: Vec<(usize, usize)>,
    /// Per variable: the INVAR and expression that define it, if any (see
    /// [`analyse::aliases`]); its copy is then the expression's literal.
    aliases: Vec<Option<(usize, crate::ir::Expr)>>,
    /// Per variable: the INVARs that define its one-hot value literals
    /// (see [`super::value_alias`]); empty for most.
    value_aliases: Vec<Vec<Option<value_alias::ValueDef>>>,
    /// The values forced at the last step so far (empty before the first
    /// frame): the next step's are derived from them. One vector, reused
    /// while the pruned domains cover the steps (a fresh one per step was
    /// ~0.7 MB of new memory on a 9x9 waypoint puzzle).
    forced: Vec<Option<Value>>,
    n_vars: u32,
    n_clauses: usize,
    top: Lit,
    /// `copies[step][var]`; frozen variables at steps > 0 are not stored:
    /// `None` there, and a frame after the first ends at its last
    /// non-frozen variable (`live` entries).
    copies: Vec<Vec<Option<Copy>>>,
    /// The length of the frames after the first: one past the last
    /// non-frozen variable (the frozen ones the grid models declare last
    /// were 3/4 of every frame on waypoint puzzles, ~0.5 MB on a 9x9).
    live: usize,
    /// AND gates by their (sorted) inputs.
    gates: FxMap<Vec<Lit>, Lit>,
    /// DEFINEs compiled at a step.
    pub(crate) defines: FxMap<(u32, At), Term>,
    /// The goal literal per step (only when asked for).
    goals: FxMap<usize, Lit>,
    /// What each init and next assignment reads (for forced values),
    /// worked out the first time a frame the pruned domains do not cover
    /// asks (a solve at its exact bound never does: a 9x9 puzzle's 150
    /// assignments cost 139K instructions, 1% of numbrix-9x9-s1's run).
    reads: std::cell::OnceCell<analyse::AssignReads>,
    /// Per next assignment: the accumulator it is, if it is one.
    accumulators: Vec<Option<Accumulator>>,
    /// A reusable buffer for clauses.
    scratch: Vec<Lit>,
    /// A reusable buffer for the inputs of an AND gate.
    and_scratch: Vec<Lit>,
    /// The folds of the operands of the junctions being asserted (a
    /// stack: see `assert_junction`).
    pub(crate) folds: Vec<Option<bool>>,
    labels: Vec<Label>,
    /// Whether to keep `labels` and `fixed` (only the DIMACS text reads
    /// them: a solve would fill them with a label per literal for nothing).
    keep_labels: bool,
    /// Forced values, for the DIMACS comments: `(var, step, value
    /// index)` (the index, not the value: no clone per constant copy).
    fixed: Vec<(VarId, usize, usize)>,
    /// The values each variable can take per step, when the bound is
    /// known (see [`Unroller::prune_for`]).
    domains: Option<Domains>,
    /// Per variable: whether the solver may branch on its copies' SAT
    /// variables (see [`Unroller::branch_on`]); empty: on all of them.
    branch: Vec<bool>,
    /// Whether [`Unroller::fresh`] is making a copy of a branching
    /// variable (the gates made meanwhile, for a value's defining
    /// expression or an at-most-one ladder, are decisions too).
    deciding: bool,
    /// The INVARs left out (see [`Unroller::relax`]); empty: none.
    skipped: Vec<bool>,
    /// Per variable: its copies are the constant first value of its
    /// domain, whatever the constraints (see [`Unroller::relax`]); empty:
    /// none.
    constant: Vec<bool>,
    /// Every copy takes only values its pruned domain allows: no log
    /// encoding (its copies range over the holes too; the constants of a
    /// relaxation are read by no constraint encoded). What
    /// [`Unroller::proved`] needs.
    exact: bool,
}

impl<'s, S: Sink> Unroller<'s, S> {
    pub fn new(sys: &'s System, enc: Encoding, sink: S) -> Result<Self, BmcError> {
        let ordered = match enc {
            Encoding::Auto => analyse::ordered_vars(sys),
            _ => Default::default(),
        };
        let encodings: Vec<Encoding> = (0..sys.vars.len() as u32)
            .map(|i| match enc {
                Encoding::Auto if ordered.contains(&VarId(i)) => Encoding::Order,
                Encoding::Auto => Encoding::OneHot,
                e => e,
            })
            .collect();
        let invar_each = sys.step_invariants();
        let aliases = analyse::aliases(sys);
        let mut value_aliases = value_alias::value_aliases(sys, &aliases);
        for (defs, enc) in value_aliases.iter_mut().zip(&encodings) {
            if *enc != Encoding::OneHot {
                defs.clear();
            }
        }
        let exact = !encodings.contains(&Encoding::Log);
        let mut u = Unroller {
            sys,
            sink,
            encodings,
            invar_each,
            hint_cuts: lazy::hint_cuts(sys),
            aliases,
            value_aliases,
            forced: Vec::new(),
            n_vars: 0,
            n_clauses: 0,
            top: Var::new(0).pos_lit(),
            copies: Vec::new(),
            live: sys
                .vars
                .iter()
                .rposition(|v| !v.frozen)
                .map_or(0, |i| i + 1),
            gates: FxMap::default(),
            defines: FxMap::default(),
            goals: FxMap::default(),
            reads: std::cell::OnceCell::new(),
            accumulators: sys
                .next_assign
                .iter()
                .map(|a| Accumulator::of(sys, a))
                .collect(),
            scratch: Vec::new(),
            and_scratch: Vec::new(),
            folds: Vec::new(),
            labels: Vec::new(),
            keep_labels: false,
            fixed: Vec::new(),
            domains: None,
            branch: Vec::new(),
            deciding: false,
            skipped: Vec::new(),
            constant: Vec::new(),
            exact,
        };
        u.top = u.fresh();
        u.n_clauses = 1;
        u.sink.add_clause(&[u.top])?;
        Ok(u)
    }

    pub fn n_vars(&self) -> u32 {
        self.n_vars
    }

    pub fn n_clauses(&self) -> usize {
        self.n_clauses
    }

    /// [`System::step_invariants`], computed once (the checks of the
    /// traces found reuse it).
    pub fn invar_each(&self) -> &[usize] {
        &self.invar_each
    }

    /// Keeps the DIMACS labels of the literals and the forced values
    /// ([`Unroller::labels`], [`Unroller::fixed`]); call before the first
    /// frame.
    pub fn keep_labels(&mut self) {
        self.keep_labels = true;
    }

    pub fn labels(&self) -> &[Label] {
        &self.labels
    }

    /// The forced values: `(var, step, value)`.
    pub fn fixed(&self) -> Vec<(VarId, usize, Value)> {
        self.fixed
            .iter()
            .map(|&(v, step, i)| (v, step, nth_value(&self.sys.var(v).domain, i)))
            .collect()
    }

    pub fn top(&self) -> Lit {
        self.top
    }

    /// The constant literal of `b`: the top literal or its negation.
    pub fn truth(&self, b: bool) -> Lit {
        if b {
            self.top
        } else {
            !self.top
        }
    }

    pub fn fresh(&mut self) -> Lit {
        let v = Var::new(self.n_vars);
        self.n_vars += 1;
        if !self.branch.is_empty() {
            self.sink.declare(v, self.deciding);
        }
        v.pos_lit()
    }

    /// From now on the sink learns, for each new SAT variable, whether it
    /// belongs to a copy of one of `vars` (the system's
    /// [`System::branch_vars`]): the solver branches on those only. Call
    /// before the first frame (the variables made before it, the constant
    /// `TRUE`, stay decisions); no `vars`, no hint.
    pub fn branch_on(&mut self, vars: &[VarId]) {
        if vars.is_empty() {
            return;
        }
        self.branch = vec![false; self.sys.vars.len()];
        for v in vars {
            self.branch[v.index()] = true;
        }
    }

    /// Leaves INVAR `i` out wherever `skip[i]` (neither encoded nor seen
    /// by the domain analysis, nor used to define a variable), and makes
    /// every copy of the variables in `constant` the first value of its
    /// domain: for a relaxation whose traces the caller completes and
    /// checks against the whole system (see `super::lazy`). The traces
    /// this unroller reads back are then not checked runs of `sys`. Call
    /// before the first frame and before [`Unroller::prune_for`].
    ///
    /// The variables in `constant` must be read by nothing but the INVARs
    /// left out (as `super::lazy` checks before it relaxes): every
    /// constraint that is encoded then reads copies that keep to their
    /// allowed values, and the domains' proofs still let it be left out
    /// ([`Unroller::proved`]: on waypoint-9x9-unique-s3, 75 of its 1,233
    /// INVARs, 0.7% of the instructions of a solve).
    pub fn relax(&mut self, skip: &[bool], constant: &[VarId]) {
        self.skipped = skip.to_vec();
        self.constant = vec![false; self.sys.vars.len()];
        for v in constant {
            self.constant[v.index()] = true;
        }
        let gone = |c: usize| skip.get(c).copied().unwrap_or(false);
        for a in &mut self.aliases {
            if a.as_ref().is_some_and(|(c, _)| gone(*c)) {
                *a = None;
            }
        }
        for defs in &mut self.value_aliases {
            if defs.iter().flatten().any(|(c, _)| gone(*c)) {
                defs.clear();
            }
        }
    }

    /// Runs `make`, which builds a copy of `id`: the SAT variables it
    /// makes are decisions if `id`'s copies are branched on.
    fn copying<T>(&mut self, id: VarId, make: impl FnOnce(&mut Self) -> T) -> T {
        self.deciding = self.branch.get(id.index()).copied().unwrap_or(true);
        let made = make(self);
        self.deciding = false;
        made
    }

    /// Adds a clause after dropping false literals and duplicates; a
    /// clause with a true literal or a complementary pair is skipped, an
    /// empty one becomes `¬TRUE`.
    pub fn clause(&mut self, lits: &[Lit]) -> Result<(), BmcError> {
        self.add_clause_under(&[], lits)
    }

    /// Adds the clause `¬guard₁ ∨ … ∨ lits` ("the guard implies the
    /// disjunction"), simplified as [`Unroller::clause`] does.
    pub fn add_clause_under(&mut self, guard: &[Lit], lits: &[Lit]) -> Result<(), BmcError> {
        let top = self.top;
        if lits.contains(&top) || guard.contains(&!top) {
            return Ok(());
        }
        let mut c = std::mem::take(&mut self.scratch);
        c.clear();
        c.extend(guard.iter().map(|&l| !l).filter(|&l| l != !top));
        c.extend(lits.iter().copied().filter(|&l| l != !top));
        // Sorting puts duplicates and complementary pairs side by side.
        c.sort_unstable();
        c.dedup();
        let tautology = c.windows(2).any(|w| w[0] == !w[1]);
        if c.is_empty() {
            c.push(!self.top);
        }
        let result = if tautology {
            Ok(())
        } else {
            self.n_clauses += 1;
            self.sink.add_clause(&c)
        };
        self.scratch = c;
        result
    }

    /// A literal equivalent to the conjunction of `lits` (cached).
    pub fn and(&mut self, lits: &[Lit]) -> Result<Lit, BmcError> {
        self.and_of(lits.iter().copied())
    }

    /// [`Unroller::and`] over any literals; the inputs are gathered in a
    /// reused buffer, so a gate found in the cache costs no allocation.
    fn and_of(&mut self, lits: impl Iterator<Item = Lit>) -> Result<Lit, BmcError> {
        let top = self.top;
        let mut c = std::mem::take(&mut self.and_scratch);
        c.clear();
        let mut false_input = false;
        for l in lits {
            if l == !top {
                false_input = true;
                break;
            }
            if l != top {
                c.push(l);
            }
        }
        c.sort_unstable();
        c.dedup();
        let result = if false_input || c.windows(2).any(|w| w[0] == !w[1]) {
            Ok(!top)
        } else {
            match c.len() {
                0 => Ok(top),
                1 => Ok(c[0]),
                _ => match self.gates.get(c.as_slice()) {
                    Some(&g) => Ok(g),
                    None => self.new_gate(&c),
                },
            }
        };
        self.and_scratch = c;
        result
    }

    /// A new AND gate over the (sorted, distinct, non-constant) `inputs`.
    fn new_gate(&mut self, inputs: &[Lit]) -> Result<Lit, BmcError> {
        let g = self.fresh();
        for &l in inputs {
            self.clause(&[!g, l])?;
        }
        let mut long: Vec<Lit> = inputs.iter().map(|&l| !l).collect();
        long.push(g);
        self.clause(&long)?;
        self.gates.insert(inputs.to_vec(), g);
        Ok(g)
    }

    /// A literal equivalent to the disjunction of `lits`.
    pub fn or(&mut self, lits: &[Lit]) -> Result<Lit, BmcError> {
        Ok(!self.and_of(lits.iter().map(|&l| !l))?)
    }

    /// A literal equivalent to `a ↔ b`.
    pub fn iff(&mut self, a: Lit, b: Lit) -> Result<Lit, BmcError> {
        let both = self.and(&[a, b])?;
        let neither = self.and(&[!a, !b])?;
        self.or(&[both, neither])
    }

    /// Restricts the encoding to the values a solution of length `k` can
    /// have (see [`super::domains`]); call before the first frame. Once
    /// `stop` says so the analysis ends where it is (still sound).
    pub fn prune_for(&mut self, k: usize, stop: &dyn Fn() -> bool) {
        if self.copies.is_empty() {
            self.domains = Some(Domains::compute_skipping(self.sys, k, stop, &self.skipped));
        }
    }

    /// The one path the pruned domains leave (see [`Unroller::prune_for`]):
    /// `Some` when every variable has exactly one allowed value at every
    /// step `0..=k` (a constant of [`Unroller::relax`] its first). Every solution of length `k` keeps to the domains,
    /// so if this path is a solution it is the only one.
    pub fn determined(&self, k: usize) -> Option<Trace> {
        let d = self.domains.as_ref().filter(|d| d.steps() > k)?;
        // Most often a copy is left open: known without a look at each
        // (a 9x9 numbrix built 1,500 values to throw away, 0.6% of its
        // solve). Not in a relaxation: its constants count as one value.
        if self.constant.is_empty() && d.open() == Some(true) {
            return None;
        }
        let constant = |var: VarId| self.constant.get(var.index()).copied().unwrap_or(false);
        self.trace_of(k, |var, step| {
            d.only(var, step).or(constant(var).then_some(0)).ok_or(())
        })
        .ok()
    }

    /// The trace of steps `0..=k` in which each variable has, at each
    /// step, the value of its domain at `index(var, step)` (which must lie
    /// inside the domain); a frozen variable is read at step 0 only and
    /// keeps that value.
    fn trace_of<E>(
        &self,
        k: usize,
        mut index: impl FnMut(VarId, usize) -> Result<usize, E>,
    ) -> Result<Trace, E> {
        let mut states: Vec<Vec<Value>> = Vec::with_capacity(k + 1);
        for step in 0..=k {
            let mut state = Vec::with_capacity(self.sys.vars.len());
            for (i, var) in self.sys.vars.iter().enumerate() {
                if var.frozen && step > 0 {
                    state.push(states[0][i].clone());
                    continue;
                }
                let j = index(VarId(i as u32), step)?;
                state.push(nth_value(&var.domain, j));
            }
            states.push(state);
        }
        Ok(Trace {
            states,
            loop_start: None,
        })
    }

    /// Encodes frames up to and including step `k`.
    pub fn extend_to(&mut self, k: usize) -> Result<(), BmcError> {
        while self.copies.len() <= k {
            self.add_frame()?;
        }
        Ok(())
    }

    fn add_frame(&mut self) -> Result<(), BmcError> {
        let step = self.copies.len();
        // The pruned domains subsume the forced values (one value left).
        let covered = matches!(&self.domains, Some(d) if step < d.steps());
        let forced = match covered {
            true => {
                // Taken out for the loan, put back below (also on error).
                let mut none = std::mem::take(&mut self.forced);
                if none.len() != self.sys.vars.len() || none.iter().any(Option::is_some) {
                    none.clear();
                    none.resize(self.sys.vars.len(), None);
                }
                none
            }
            false => {
                let last = (step > 0).then_some(self.forced.as_slice());
                let reads = self
                    .reads
                    .get_or_init(|| analyse::AssignReads::new(self.sys));
                analyse::forced_values(self.sys, reads, last)
            }
        };
        let stored = if step == 0 {
            self.sys.vars.len()
        } else {
            self.live
        };
        let mut frame = Vec::with_capacity(stored);
        let mut pending = Vec::new();
        // Taken out for the loan: `allowed` borrows it while clauses are
        // added (once per frame: the struct is large to move).
        let domains = self.domains.take();
        for (i, var) in self.sys.vars.iter().enumerate().take(stored) {
            let id = VarId(i as u32);
            if var.frozen && step > 0 {
                frame.push(None);
                continue;
            }
            // Pruned to one value (most copies of a grid path once the
            // domains are known): a constant, as `frame_copy` makes it
            // (nothing is forced while the domains cover the step),
            // without its other looks. Here, not first thing in
            // `frame_copy`: there (inlined, the alias look after it)
            // numbrix-9x9-s1 took 0.2M instructions more.
            if covered {
                if let Some(index) = domains.as_ref().and_then(|d| d.only(id, step)) {
                    self.note_fixed(id, step, index);
                    frame.push(Some(Copy::Const(index)));
                    continue;
                }
            }
            let alias = self.aliases[i].is_some() || !self.value_aliases[i].is_empty();
            match self.frame_copy(id, step, forced[i].as_ref(), domains.as_ref(), alias) {
                Ok(copy) => {
                    if copy.is_none() {
                        pending.push(i);
                    }
                    frame.push(copy);
                }
                Err(e) => {
                    self.domains = domains;
                    if covered {
                        self.forced = forced;
                    }
                    return Err(e);
                }
            }
        }
        self.domains = domains;
        self.copies.push(frame);
        self.forced = forced;
        let sys = self.sys;
        let here = At {
            cur: step,
            next: None,
        };
        // Defined variables last: their definitions read the others.
        let mut defining = vec![false; sys.invar.len()];
        // Valued ones first: the booleans' definitions may read them.
        for &i in &pending {
            if !self.value_aliases[i].is_empty() {
                let id = VarId(i as u32);
                let copy = self.copying(id, |u| u.defined_one_hot(id, step, &mut defining))?;
                self.copies[step][i] = Some(copy);
            }
        }
        for i in pending {
            // Taken out for the loan, not cloned (once per alias and step).
            let Some((c, e)) = self.aliases[i].take() else {
                continue;
            };
            let id = VarId(i as u32);
            let lit = self.lit(&e, here);
            self.aliases[i] = Some((c, e));
            let lit = lit
                .map_err(|why| encode_err(step, &format!("INVAR `{}`", sys.invar[c].label), why))?;
            let copy = if lit.var() == self.top.var() {
                let index = usize::from(lit == self.top);
                self.note_fixed(id, step, index);
                Copy::Const(index)
            } else {
                defining[c] = true;
                let copy = Copy::Bool(lit);
                self.label_copy(id, step, &sys.var(id).domain, &copy);
                copy
            };
            self.copies[step][i] = Some(copy);
        }
        if step == 0 {
            for i in 0..sys.invar.len() {
                self.assert_invar(i, here, &defining)?;
            }
            self.assert_hint_cuts()?;
        } else {
            // Taken out for the loan, put back below (also on error).
            let each = std::mem::take(&mut self.invar_each);
            let done = each
                .iter()
                .try_for_each(|&i| self.assert_invar(i, here, &defining));
            self.invar_each = each;
            done?;
        }
        if step == 0 {
            for a in &sys.init_assign {
                let x = self.var_term(a.var, 0);
                // The label is only spelled out for an error.
                self.assert_member(&[], &x, &a.value, here)
                    .map_err(|why| encode_err(0, &format!("init({})", sys.var(a.var).name), why))?;
            }
            for c in &sys.init {
                self.assert(&c.expr, here)
                    .map_err(|why| encode_err(0, &format!("INIT `{}`", c.label), why))?;
            }
        } else {
            let at = At {
                cur: step - 1,
                next: Some(step),
            };
            for (i, a) in sys.next_assign.iter().enumerate() {
                // Most targets are constants once pruned: folded straight
                // from the copy, as `assert_member` would fold them (to
                // the top literal mostly: no clause then, without a call).
                let folded = match self.accumulators[i] {
                    Some(acc) => self.fold_accumulator(acc, a.var, step)?,
                    None => self
                        .fold_allows_copy(&a.value, at, a.var, step)
                        .map(|holds| self.truth(holds)),
                };
                if let Some(lit) = folded {
                    if lit != self.top {
                        self.clause(&[lit])?;
                    }
                    continue;
                }
                let x = self.var_term(a.var, step);
                self.assert_member(&[], &x, &a.value, at).map_err(|why| {
                    encode_err(step - 1, &format!("next({})", sys.var(a.var).name), why)
                })?;
            }
            for (i, c) in sys.trans.iter().enumerate() {
                if self.proved(true, i, step - 1) {
                    continue;
                }
                self.assert(&c.expr, at)
                    .map_err(|why| encode_err(step - 1, &format!("TRANS `{}`", c.label), why))?;
            }
        }
        Ok(())
    }

    /// The clauses of the hints' cuts: some pointer of each is not taken.
    fn assert_hint_cuts(&mut self) -> Result<(), BmcError> {
        let sys = self.sys;
        let mut clause = Vec::new();
        for k in 0..self.hint_cuts.len() {
            let (h, c) = self.hint_cuts[k];
            let hint = &sys.acyclic[h];
            clause.clear();
            for &(i, v) in &hint.cuts[c] {
                clause.push(!self.eq_index(hint.succ[i], 0, v)?);
            }
            self.clause(&clause)?;
        }
        Ok(())
    }

    /// Whether the domain analysis found INVAR (`trans: false`) or TRANS
    /// `c` true at `step` whatever the allowed values: encoding it would
    /// only add clauses every assignment of the copies satisfies (4–5% of
    /// the instructions of `solve --count 2` on the 9x9 numbrix puzzles,
    /// whose CNFs are nearly empty once pruned).
    ///
    /// Sound only where every copy it reads keeps to its allowed values
    /// ([`Unroller::exact`]): not with the log encoding (its copies range
    /// over the whole domain, holes included); the constant variables of
    /// a relaxation (the first value, allowed or not) are read by no
    /// constraint that is encoded ([`Unroller::relax`]).
    fn proved(&self, trans: bool, c: usize, step: usize) -> bool {
        self.exact
            && matches!(&self.domains, Some(d) if step < d.steps() && d.holds(trans, c, step))
    }

    /// Asserts INVAR `i` at `here.cur`, unless it defines a variable
    /// there (`defining`) or the domains prove it ([`Unroller::proved`]).
    fn assert_invar(&mut self, i: usize, here: At, defining: &[bool]) -> Result<(), BmcError> {
        if defining[i] || self.skipped.get(i).copied().unwrap_or(false) {
            return Ok(());
        }
        if self.proved(false, i, here.cur) {
            return Ok(());
        }
        let c = &self.sys.invar[i];
        self.assert(&c.expr, here)
            .map_err(|why| encode_err(here.cur, &format!("INVAR `{}`", c.label), why))
    }

    /// The copy of `id` at `step`: a constant when its value is forced or
    /// the pruned domain has one value left, else new SAT variables, or
    /// `None` for an `alias` (a defined variable, built by the caller).
    fn frame_copy(
        &mut self,
        id: VarId,
        step: usize,
        forced: Option<&Value>,
        domains: Option<&Domains>,
        alias: bool,
    ) -> Result<Option<Copy>, BmcError> {
        let var = self.sys.var(id);
        let domains = domains.filter(|d| step < d.steps());
        let allowed: Option<&[bool]> = domains.map(|d| d.allowed(id, step));
        let single = domains.and_then(|d| d.only(id, step));
        let constant = self.constant.get(id.index()).copied().unwrap_or(false);
        let index = forced
            .and_then(|v| index_of(&var.domain, v))
            .or(single)
            .or(constant.then_some(0));
        if let Some(index) = index {
            self.note_fixed(id, step, index);
            return Ok(Some(Copy::Const(index)));
        }
        if alias {
            if allowed.is_some_and(|a| a.iter().all(|&x| !x)) {
                self.clause(&[])?;
            }
            return Ok(None);
        }
        let encoding = self.encodings[id.index()];
        let copy = self.copying(id, |u| u.new_copy(&var.domain, encoding, allowed))?;
        self.label_copy(id, step, &var.domain, &copy);
        Ok(Some(copy))
    }

    /// The one-hot copy of `id` at `step` whose value literals are, where
    /// an INVAR `id = v <-> e` defines them (see [`super::value_alias`]),
    /// the literal of `e`: that INVAR is then not asserted at this step
    /// (`defining`). A value the pruned domain rules out is false, and so
    /// is its `e`; a definition that folds to `TRUE` or to a negative
    /// literal gets a fresh variable and its INVAR as usual (the DIMACS
    /// labels name positive literals of free variables only).
    fn defined_one_hot(
        &mut self,
        id: VarId,
        step: usize,
        defining: &mut [bool],
    ) -> Result<Copy, BmcError> {
        let sys = self.sys;
        let dom = &sys.var(id).domain;
        let allowed: Option<Vec<bool>> = self
            .domains
            .as_ref()
            .filter(|d| step < d.steps())
            .map(|d| d.allowed(id, step).to_vec());
        let here = At {
            cur: step,
            next: None,
        };
        let defs = self.value_aliases[id.index()].clone();
        let mut eq = Vec::with_capacity(dom.size());
        for (j, def) in defs.iter().enumerate() {
            let ok = allowed.as_ref().is_none_or(|a| a[j]);
            let Some((c, e)) = def else {
                eq.push(if ok { self.fresh() } else { !self.top });
                continue;
            };
            let lit = self.lit(e, here).map_err(|why| {
                encode_err(step, &format!("INVAR `{}`", sys.invar[*c].label), why)
            })?;
            if !ok {
                self.clause(&[!lit])?;
                defining[*c] = true;
                eq.push(!self.top);
            } else if lit == !self.top {
                defining[*c] = true;
                eq.push(lit);
            } else if lit.is_neg() || lit == self.top {
                eq.push(self.fresh());
            } else {
                defining[*c] = true;
                eq.push(lit);
            }
        }
        self.clause(&eq)?;
        let live: Vec<Lit> = eq.iter().copied().filter(|&l| l != !self.top).collect();
        self.at_most_one(&live)?;
        let copy = Copy::OneHot(eq);
        self.label_copy(id, step, dom, &copy);
        Ok(copy)
    }

    /// A new copy of a variable; `allowed` (by value index) restricts it
    /// to the values a solution can have there (no value: unsatisfiable).
    fn new_copy(
        &mut self,
        dom: &Domain,
        enc: Encoding,
        allowed: Option<&[bool]>,
    ) -> Result<Copy, BmcError> {
        let n = dom.size();
        let ok = |j: usize| allowed.is_none_or(|a| a[j]);
        if matches!(dom, Domain::Bool) {
            if !ok(0) && !ok(1) {
                self.clause(&[])?;
            }
            return Ok(Copy::Bool(self.fresh()));
        }
        let copy = match enc {
            Encoding::OneHot => {
                let eq: Vec<Lit> = if n == 1 {
                    vec![self.top]
                } else {
                    (0..n)
                        .map(|j| if ok(j) { self.fresh() } else { !self.top })
                        .collect()
                };
                self.clause(&eq)?;
                let live: Vec<Lit> = eq.iter().copied().filter(|&l| l != !self.top).collect();
                self.at_most_one(&live)?;
                Copy::OneHot(eq)
            }
            Encoding::Order => {
                let live: Vec<usize> = (0..n).filter(|&j| ok(j)).collect();
                let (Some(&lo), Some(&hi)) = (live.first(), live.last()) else {
                    self.clause(&[])?;
                    return Ok(Copy::Order(vec![self.top; n.saturating_sub(1)]));
                };
                // ge[i] means "index ≥ i + 1": true below lo, false past
                // hi. Across a hole `j` inside lo..hi, "≥ j + 1" is "≥ j":
                // the same literal (merged, not tied by clauses).
                let mut ge: Vec<Lit> = Vec::with_capacity(n.saturating_sub(1));
                for i in 1..n {
                    let lit = match i {
                        i if i <= lo => self.top,
                        i if i > hi => !self.top,
                        i if !ok(i - 1) => ge[i - 2],
                        _ => self.fresh(),
                    };
                    ge.push(lit);
                }
                for w in ge.windows(2) {
                    self.clause(&[!w[1], w[0]])?;
                }
                Copy::Order(ge)
            }
            Encoding::Log | Encoding::Auto => {
                if n == 0 {
                    self.clause(&[])?;
                }
                let width = bits_for(n);
                let bits: Vec<Lit> = (0..width).map(|_| self.fresh()).collect();
                self.forbid_above(&bits, n.saturating_sub(1))?;
                Copy::Log(bits)
            }
        };
        Ok(copy)
    }

    /// At most one of `lits`: pairwise for short lists, else a ladder
    /// (sequential counter: `s_i` = "one of the first i+1 is true").
    pub fn at_most_one(&mut self, lits: &[Lit]) -> Result<(), BmcError> {
        if lits.len() <= 6 {
            for i in 0..lits.len() {
                for j in i + 1..lits.len() {
                    self.clause(&[!lits[i], !lits[j]])?;
                }
            }
            return Ok(());
        }
        let mut prev: Option<Lit> = None;
        for (i, &x) in lits.iter().enumerate() {
            if let Some(p) = prev {
                self.clause(&[!p, !x])?;
            }
            if i + 1 < lits.len() {
                let s = self.fresh();
                self.clause(&[!x, s])?;
                if let Some(p) = prev {
                    self.clause(&[!p, s])?;
                }
                prev = Some(s);
            }
        }
        Ok(())
    }

    /// Forbids binary codes (LSB first) greater than `max`.
    fn forbid_above(&mut self, bits: &[Lit], max: usize) -> Result<(), BmcError> {
        for i in 0..bits.len() {
            if max >> i & 1 == 1 {
                continue;
            }
            let mut c = vec![!bits[i]];
            for (j, &b) in bits.iter().enumerate().skip(i + 1) {
                if max >> j & 1 == 1 {
                    c.push(!b);
                }
            }
            self.clause(&c)?;
        }
        Ok(())
    }

    fn note_fixed(&mut self, var: VarId, step: usize, index: usize) {
        if self.keep_labels {
            self.fixed.push((var, step, index));
        }
    }

    fn label_copy(&mut self, var: VarId, step: usize, dom: &Domain, copy: &Copy) {
        if !self.keep_labels {
            return;
        }
        let top = self.top;
        // Constant literals carry no information, except a true `≥` of a
        // pruned order copy, which counts towards the value.
        let mut push = |lit: Lit, meaning: Meaning| {
            let counts = lit == top && matches!(meaning, Meaning::AtLeast(_));
            if lit.var() != top.var() || counts {
                self.labels.push(Label {
                    sat_var: lit.var().idx32(),
                    var,
                    step,
                    meaning,
                });
            }
        };
        match copy {
            // A defined variable's literal may be negative.
            Copy::Bool(l) => push(*l, Meaning::Is(Value::Bool(!l.is_neg()))),
            Copy::OneHot(eq) => {
                for (l, v) in eq.iter().zip(dom.values()) {
                    push(*l, Meaning::Is(v));
                }
            }
            Copy::Order(ge) => {
                for (i, l) in ge.iter().enumerate() {
                    push(*l, Meaning::AtLeast(i + 1));
                }
            }
            Copy::Log(bits) => {
                for (i, l) in bits.iter().enumerate() {
                    push(*l, Meaning::Bit(i));
                }
            }
            Copy::Const(_) => {}
        }
    }

    /// The copy of `var` used at `step`.
    #[inline(always)]
    pub fn copy(&self, var: VarId, step: usize) -> &Copy {
        // Most reads are of a copy stored at `step` (a frozen variable's
        // is at step 0 only): one look (5,600 reads per 9x9 solve, most
        // of them through `fold_accumulator`).
        match self.copies[step].get(var.index()) {
            Some(Some(copy)) => copy,
            _ => self.frozen_copy(var, step),
        }
    }

    /// [`Unroller::copy`] of a copy not stored at `step`: a frozen
    /// variable's, at step 0.
    fn frozen_copy(&self, var: VarId, step: usize) -> &Copy {
        let step = if self.sys.var(var).frozen { 0 } else { step };
        self.copies[step][var.index()]
            .as_ref()
            .expect("every variable has a copy at every encoded step")
    }

    /// The literal "`var` at `step` has the domain's `i`-th value"; `¬TRUE`
    /// when `i` is outside the domain.
    pub fn eq_index(&mut self, var: VarId, step: usize, i: usize) -> Result<Lit, BmcError> {
        let n = self.sys.var(var).domain.size();
        if i >= n {
            return Ok(!self.top);
        }
        // No clone of the copy: a one-hot copy is as long as the domain.
        let top = self.top;
        match self.copy(var, step) {
            Copy::Const(j) => Ok(self.truth(i == *j)),
            Copy::Bool(l) => Ok(if i == 1 { *l } else { !*l }),
            Copy::OneHot(eq) => Ok(eq[i]),
            Copy::Order(ge) => {
                let lo = if i == 0 { top } else { ge[i - 1] };
                let hi = if i + 1 < n { !ge[i] } else { top };
                self.and(&[lo, hi])
            }
            Copy::Log(bits) => {
                let lits: Vec<Lit> = bits
                    .iter()
                    .enumerate()
                    .map(|(b, &l)| if i >> b & 1 == 1 { l } else { !l })
                    .collect();
                self.and(&lits)
            }
        }
    }

    /// The literal "`var` at `step` has a value of index at least `i`".
    pub fn ge_index(&mut self, var: VarId, step: usize, i: usize) -> Result<Lit, BmcError> {
        let n = self.sys.var(var).domain.size();
        if i == 0 {
            return Ok(self.top);
        }
        if i >= n {
            return Ok(!self.top);
        }
        match self.copy(var, step) {
            Copy::Order(ge) => return Ok(ge[i - 1]),
            Copy::Const(j) => return Ok(self.truth(*j >= i)),
            _ => {}
        }
        let lits = (i..n)
            .map(|j| self.eq_index(var, step, j))
            .collect::<Result<Vec<_>, _>>()?;
        self.or(&lits)
    }

    /// The term of a variable copy: a literal for booleans.
    pub fn var_term(&self, var: VarId, step: usize) -> Term {
        match self.copy(var, step) {
            Copy::Bool(l) => Term::Bool(*l),
            Copy::Const(i) => match nth_value(&self.sys.var(var).domain, *i) {
                Value::Bool(b) => Term::Bool(self.truth(b)),
                v => Term::Vals(vec![(v, self.top)]),
            },
            _ => Term::Var(var, step, 0),
        }
    }

    /// The literal "the goal holds at `step`" (frames must reach `step`).
    pub fn goal_lit(&mut self, step: usize) -> Result<Lit, BmcError> {
        if let Some(&g) = self.goals.get(&step) {
            return Ok(g);
        }
        let sys = self.sys;
        let at = At {
            cur: step,
            next: None,
        };
        let g = self
            .lit(&sys.goal, at)
            .map_err(|why| encode_err(step, "the goal", why))?;
        self.goals.insert(step, g);
        Ok(g)
    }

    /// Asserts the goal at `step` as clauses (exact-bound solving, DIMACS).
    pub fn assert_goal(&mut self, step: usize) -> Result<(), BmcError> {
        let sys = self.sys;
        let at = At {
            cur: step,
            next: None,
        };
        self.assert(&sys.goal, at)
            .map_err(|why| encode_err(step, "the goal", why))
    }

    /// The literals saying "`var` at `step` has `value`": the blocking
    /// clause of a solution negates these.
    pub fn value_lit(&mut self, var: VarId, step: usize, value: &Value) -> Result<Lit, BmcError> {
        let dom = &self.sys.var(var).domain;
        match index_of(dom, value) {
            Some(i) => self.eq_index(var, step, i),
            None => Ok(!self.top),
        }
    }

    /// Reads the trace of steps `0..=k` from a model; `val` reads a SAT
    /// variable (through its positive literal).
    pub fn decode(
        &self,
        k: usize,
        val: &mut dyn FnMut(Var) -> Result<bool, BmcError>,
    ) -> Result<Trace, BmcError> {
        self.decode_with(k, val, false)
    }

    /// [`Unroller::decode`], but a copy whose literals name no single
    /// value (in a model that leaves them unassigned) reads as the
    /// domain's first value: for a look at a model's other variables only.
    pub fn decode_loose(
        &self,
        k: usize,
        val: &mut dyn FnMut(Var) -> Result<bool, BmcError>,
    ) -> Result<Trace, BmcError> {
        self.decode_with(k, val, true)
    }

    fn decode_with(
        &self,
        k: usize,
        val: &mut dyn FnMut(Var) -> Result<bool, BmcError>,
        loose: bool,
    ) -> Result<Trace, BmcError> {
        let mut lit_val = |l: Lit| -> Result<bool, BmcError> {
            if l == self.top {
                return Ok(true);
            }
            Ok(val(l.var())? != l.is_neg())
        };
        self.trace_of(k, |id, step| {
            let var = self.sys.var(id);
            let bad = |why: &str| BmcError::Decode {
                step,
                var: var.name.clone(),
                why: why.to_string(),
            };
            let index = match self.copy(id, step) {
                Copy::Const(j) => *j,
                Copy::Bool(l) => lit_val(*l)? as usize,
                Copy::OneHot(eq) => {
                    let mut on = Vec::new();
                    for (j, &l) in eq.iter().enumerate() {
                        if lit_val(l)? {
                            on.push(j);
                        }
                    }
                    match on.as_slice() {
                        [j] => *j,
                        _ if loose => 0,
                        _ => return Err(bad("not exactly one value is true")),
                    }
                }
                Copy::Order(ge) => {
                    let mut n = 0;
                    for &l in ge {
                        if lit_val(l)? {
                            n += 1;
                        }
                    }
                    n
                }
                Copy::Log(bits) => {
                    let mut n = 0;
                    for (b, &l) in bits.iter().enumerate() {
                        n |= (lit_val(l)? as usize) << b;
                    }
                    n
                }
            };
            if index >= var.domain.size() {
                if loose {
                    return Ok(0);
                }
                return Err(bad("value index outside the domain"));
            }
            Ok(index)
        })
    }
}

/// Locates an encoding failure at a step and a constraint.
fn encode_err(step: usize, what: &str, fail: Fail) -> BmcError {
    match fail {
        Fail::Why(why) => BmcError::Encode {
            step,
            what: what.to_string(),
            why,
        },
        Fail::Sink(e) => e,
    }
}

/// Number of bits needed to write indices `0..n`.
fn bits_for(n: usize) -> usize {
    let mut w = 0;
    while (1usize << w) < n {
        w += 1;
    }
    w
}

/// The `i`-th value of a domain (`i` within it).
pub(crate) fn nth_value(dom: &Domain, i: usize) -> Value {
    match dom {
        Domain::Bool => Value::Bool(i == 1),
        Domain::Range { lo, .. } => Value::Int(lo + i as i64),
        Domain::Enum(syms) => Value::Sym(syms[i].as_str().into()),
    }
}

/// 0-based index of `value` in `dom`, if it is there.
pub(crate) fn index_of(dom: &Domain, value: &Value) -> Option<usize> {
    match (dom, value) {
        (Domain::Bool, Value::Bool(b)) => Some(*b as usize),
        (Domain::Range { lo, hi }, Value::Int(i)) if lo <= i && i <= hi => Some((i - lo) as usize),
        (Domain::Enum(syms), Value::Sym(s)) => syms.iter().position(|x| **x == **s),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bmc::cnf::ClauseLog;

    #[test]
    fn order_merges_the_literals_across_holes() {
        // Values 0..=7 with 1, 3, 4 and 6 allowed: holes at 2 and 5.
        let dom = Domain::Range { lo: 0, hi: 7 };
        let allowed = [false, true, false, true, true, false, true, false];
        let sys = System::default();
        let mut u = Unroller::new(&sys, Encoding::Order, ClauseLog::default()).unwrap();
        let Copy::Order(ge) = u.new_copy(&dom, Encoding::Order, Some(&allowed)).unwrap() else {
            panic!("order copy expected")
        };
        let top = u.top();
        let mut vars: Vec<Var> = ge
            .iter()
            .map(|l| l.var())
            .filter(|&v| v != top.var())
            .collect();
        vars.dedup();
        assert_eq!(
            vars.len(),
            3,
            "one SAT variable per step between allowed values"
        );
        let mut values = Vec::new();
        for code in 0..(1usize << vars.len()) {
            let val = |l: Lit| {
                l == top
                    || (l != !top && {
                        let p = vars.iter().position(|&v| v == l.var()).unwrap();
                        (code >> p & 1 == 1) != l.is_neg()
                    })
            };
            if u.sink.clauses.iter().all(|c| c.iter().any(|&l| val(l))) {
                values.push(ge.iter().filter(|&&l| val(l)).count());
            }
        }
        values.sort();
        assert_eq!(values, [1, 3, 4, 6]);
    }

    #[test]
    fn log_forbids_exactly_the_codes_above_the_maximum() {
        for n in 1..=17usize {
            let mut sys = System::default();
            sys.add_var(
                "x",
                Domain::Range {
                    lo: 0,
                    hi: n as i64 - 1,
                },
                false,
            );
            let mut u = Unroller::new(&sys, Encoding::Log, ClauseLog::default()).unwrap();
            u.extend_to(0).unwrap();
            let Copy::Log(bits) = u.copy(VarId(0), 0).clone() else {
                panic!("log copy expected")
            };
            for code in 0..(1usize << bits.len()) {
                let sat = u.sink.clauses.iter().all(|c| {
                    c.iter().any(|l| {
                        if *l == u.top() {
                            return true;
                        }
                        let pos = bits.iter().position(|b| b.var() == l.var());
                        pos.is_some_and(|p| (code >> p & 1 == 1) != l.is_neg())
                    })
                });
                assert_eq!(sat, code < n, "n = {n}, code = {code}");
            }
        }
    }
}
