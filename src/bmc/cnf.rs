//! Clause sinks and the DIMACS form of an unrolling.
//!
//! Input: clauses produced by the unroller, and the labels of the SAT
//! variables that stand for state variables (`name@step=value`).
//! Output: a [`Sink`] (a live solver or an in-memory [`ClauseLog`]), DIMACS
//! text, and the way back: a model printed by an outside solver decoded
//! into a [`Trace`] through the comment lines of the DIMACS file.
//!
//! Invariants: SAT variables are 0-based in memory ([`rustsat::types::Var`])
//! and 1-based in DIMACS (`to_ipasir`); every label names exactly one SAT
//! variable (a SAT variable may carry several labels: a defined boolean
//! shares its definition's, labelled `name@step=FALSE` when it is the
//! negation); frozen state variables are labelled at step 0 only.

use std::collections::HashMap;
use std::fmt::Write as _;

use rustsat::types::{Lit, Var};

use super::BmcError;
use crate::ir::{System, Trace, Value};

/// Where the unroller puts its clauses.
pub(crate) trait Sink {
    fn add_clause(&mut self, lits: &[Lit]) -> Result<(), BmcError>;
    /// A new SAT variable, numbered one past the last, and whether the
    /// solver may branch on it (called only under a branching hint: see
    /// [`super::unroll::Unroller::branch_on`]).
    fn declare(&mut self, _var: Var, _decision: bool) {}
}

/// Clauses kept in memory, in the order they were produced.
#[derive(Debug, Default)]
pub(crate) struct ClauseLog {
    pub clauses: Vec<Vec<Lit>>,
}

impl Sink for ClauseLog {
    fn add_clause(&mut self, lits: &[Lit]) -> Result<(), BmcError> {
        self.clauses.push(lits.to_vec());
        Ok(())
    }
}

/// What a labelled SAT variable says about a state variable at a step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Meaning {
    /// True iff the variable has this value (`name@step=value`).
    Is(Value),
    /// True iff the variable's value is at least the domain's `index`-th
    /// value (order encoding; `name@step>=value`).
    AtLeast(usize),
    /// Bit `i` of the 0-based index of the value in the domain (log
    /// encoding; `name@step:bit<i>`).
    Bit(usize),
}

/// One comment line of the DIMACS output.
#[derive(Clone, Debug)]
pub(crate) struct Label {
    /// 0-based SAT variable index.
    pub sat_var: u32,
    pub var: crate::ir::VarId,
    pub step: usize,
    pub meaning: Meaning,
}

/// Renders DIMACS with the header comments and one `c var` line per label.
pub(crate) fn render(
    sys: &System,
    header: &[String],
    labels: &[Label],
    fixed: &[(crate::ir::VarId, usize, Value)],
    n_vars: u32,
    clauses: &[Vec<Lit>],
) -> String {
    let mut out = String::new();
    for line in header {
        let _ = writeln!(out, "c {line}");
    }
    for l in labels {
        let name = &sys.var(l.var).name;
        let n = l.sat_var + 1;
        let dom = &sys.var(l.var).domain;
        let _ = match &l.meaning {
            Meaning::Is(v) => writeln!(out, "c var {n} = {name}@{}={v}", l.step),
            Meaning::AtLeast(i) => {
                let v = &dom.values()[*i];
                writeln!(out, "c var {n} = {name}@{}>={v}", l.step)
            }
            Meaning::Bit(i) => writeln!(out, "c var {n} = {name}@{}:bit{i}", l.step),
        };
    }
    for (var, step, value) in fixed {
        let _ = writeln!(out, "c fixed {}@{step}={value}", sys.var(*var).name);
    }
    let _ = writeln!(out, "p cnf {} {}", n_vars, clauses.len());
    for c in clauses {
        for lit in c {
            let _ = write!(out, "{} ", lit.to_ipasir());
        }
        out.push_str("0\n");
    }
    out
}

/// Reads an outside solver's output (SAT competition format: an `s` line
/// and `v` lines). Returns `None` for `s UNSATISFIABLE`, the true/false
/// DIMACS literals for `s SATISFIABLE`.
pub fn read_solver_output(output: &str) -> Result<Option<Vec<i32>>, BmcError> {
    let mut status = None;
    let mut lits = Vec::new();
    for (i, line) in output.lines().enumerate() {
        let line = line.trim();
        if let Some(s) = line.strip_prefix("s ") {
            status = Some(s.trim() == "SATISFIABLE");
        } else if let Some(vs) = line.strip_prefix("v ") {
            for tok in vs.split_whitespace() {
                let lit: i32 = tok.parse().map_err(|_| BmcError::Dimacs {
                    line: i + 1,
                    why: format!("`{tok}` is not a literal"),
                })?;
                if lit != 0 {
                    lits.push(lit);
                }
            }
        }
    }
    match status {
        Some(true) => Ok(Some(lits)),
        Some(false) => Ok(None),
        None => Err(BmcError::Dimacs {
            line: output.lines().count(),
            why: "no `s SATISFIABLE` / `s UNSATISFIABLE` line".into(),
        }),
    }
}

/// Decodes a model of a DIMACS file written by [`super::dimacs`] into a
/// trace of `sys`, through its `c var N = name@step…` comment lines and its
/// `c bound K` line. `model` holds DIMACS literals (positive = true); a
/// variable missing from it counts as false. The trace is not checked here.
pub fn decode_dimacs_model(sys: &System, dimacs: &str, model: &[i32]) -> Result<Trace, BmcError> {
    let truth: std::collections::HashSet<i32> = model.iter().copied().filter(|l| *l > 0).collect();
    let mut bound = None;
    // (var, step) -> (value index from AtLeast count / Is / bits)
    let mut found: HashMap<(usize, usize), Partial> = HashMap::new();
    for (i, line) in dimacs.lines().enumerate() {
        let bad = |why: String| BmcError::Dimacs { line: i + 1, why };
        if let Some(k) = line.strip_prefix("c bound ") {
            bound = Some(
                k.trim()
                    .parse::<usize>()
                    .map_err(|_| bad("bad bound".into()))?,
            );
            continue;
        }
        let (num, label) = if let Some(rest) = line.strip_prefix("c var ") {
            let (num, label) = rest
                .split_once(" = ")
                .ok_or_else(|| bad("expected `c var N = name@step…`".into()))?;
            let num: i32 = num
                .trim()
                .parse()
                .map_err(|_| bad(format!("bad variable `{num}`")))?;
            (Some(num), label)
        } else if let Some(label) = line.strip_prefix("c fixed ") {
            (None, label)
        } else {
            continue;
        };
        let (name, at) = label
            .rsplit_once('@')
            .ok_or_else(|| bad("expected `name@step`".into()))?;
        let var = sys
            .var_by_name(name)
            .ok_or_else(|| bad(format!("unknown variable `{name}`")))?;
        let step_end = at
            .find(|c: char| !c.is_ascii_digit())
            .ok_or_else(|| bad("expected `=`, `>=` or `:bit` after the step".into()))?;
        let step: usize = at[..step_end].parse().map_err(|_| bad("bad step".into()))?;
        let what = &at[step_end..];
        let dom = &sys.var(var).domain;
        // A fixed value holds in every model.
        let on = num.is_none_or(|n| truth.contains(&n));
        let entry = found.entry((var.index(), step)).or_default();
        if let Some(v) = what.strip_prefix(">=") {
            dom.parse_value(v)
                .ok_or_else(|| bad(format!("`{v}` not in domain")))?;
            entry.at_least += on as usize;
        } else if let Some(b) = what.strip_prefix(":bit") {
            let b: u32 = b.parse().map_err(|_| bad(format!("bad bit `{b}`")))?;
            entry.bits |= (on as usize) << b;
        } else if let Some(v) = what.strip_prefix('=') {
            let value = dom
                .parse_value(v)
                .ok_or_else(|| bad(format!("`{v}` not in domain")))?;
            if on {
                entry.is.push(value);
            } else {
                entry.off.push(value);
            }
        } else {
            return Err(bad(format!("cannot read `{what}`")));
        }
    }
    let k = bound.ok_or(BmcError::Dimacs {
        line: 0,
        why: "no `c bound K` line".into(),
    })?;
    let mut states = Vec::with_capacity(k + 1);
    for step in 0..=k {
        let mut state = Vec::with_capacity(sys.vars.len());
        for (i, var) in sys.vars.iter().enumerate() {
            let at = if var.frozen { 0 } else { step };
            let p = found.get(&(i, at)).cloned().unwrap_or_default();
            state.push(p.value(&var.domain).ok_or_else(|| BmcError::Decode {
                step,
                var: var.name.clone(),
                why: "the model gives it no single value".into(),
            })?);
        }
        states.push(state);
    }
    Ok(Trace {
        states,
        loop_start: None,
    })
}

/// What the labels of one `(var, step)` said.
#[derive(Clone, Debug, Default)]
struct Partial {
    is: Vec<Value>,
    /// Values of false `=` labels (a boolean labelled `=FALSE`, the
    /// negative literal of a defined variable, is TRUE when it is off).
    off: Vec<Value>,
    at_least: usize,
    bits: usize,
}

impl Partial {
    fn value(&self, dom: &crate::ir::Domain) -> Option<Value> {
        use crate::ir::Domain;
        match (dom, self.is.as_slice()) {
            // Booleans are labelled by the value their literal stands
            // for: TRUE unless a false `=FALSE` label says otherwise.
            (Domain::Bool, []) => Some(Value::Bool(self.off.contains(&Value::Bool(false)))),
            (_, [v]) => Some(v.clone()),
            (_, []) => {
                // Order and log encodings: one of the two counts is used.
                let i = self.at_least.max(self.bits);
                dom.values().get(i).cloned()
            }
            _ => None,
        }
    }
}
