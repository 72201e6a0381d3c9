//! The game spec language (compatible with COBRA's low-level input): the
//! typed syntax tree, its printer, and the evaluation of formulas on a
//! concrete code.
//!
//! Input: spec text (see [`parse()`]) or a [`Spec`] built by a generator
//! (`game::generate`). Output: a resolved [`Spec`], whose formulas refer to
//! variables, mappings and parameters by index; printing a spec with
//! [`fmt::Display`] gives text that parses back to an equal spec.
//!
//! Invariants of a resolved spec: every index is in range ([`VarIdx`] into
//! [`Spec::vars`], [`MapIdx`] into [`Spec::mappings`], symbol indices into
//! [`Spec::alphabet`], parameters 0-based below the experiment's arity);
//! every mapping has one target per alphabet symbol; `M$i` occurs only in
//! outcome formulas; names are unique within their kind.
//!
//! Operator precedence, loosest first (the order of COBRA's grammar):
//! `<->` (right-associative), `->` (right-associative), `<-`
//! (left-associative; `a <- b` is read as `b -> a`), `|`, `&`, `!`.
//! So `!a & b | c -> d <-> e` is `(((!a & b) | c) -> d) <-> e`.

mod parse;

use std::fmt;

use thiserror::Error;

pub use parse::parse;

/// A variable: 0-based index into [`Spec::vars`].
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VarIdx(pub u32);

impl VarIdx {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A mapping: 0-based index into [`Spec::mappings`].
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MapIdx(pub u32);

impl MapIdx {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Which cardinality constraint: `AtLeast-k`, `AtMost-k`, `Exactly-k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CardKind {
    AtLeast,
    AtMost,
    Exactly,
}

impl CardKind {
    pub fn keyword(self) -> &'static str {
        match self {
            CardKind::AtLeast => "AtLeast",
            CardKind::AtMost => "AtMost",
            CardKind::Exactly => "Exactly",
        }
    }

    /// Whether `count` true arguments satisfy the constraint with bound `k`.
    pub fn holds(self, count: u32, k: u32) -> bool {
        match self {
            CardKind::AtLeast => count >= k,
            CardKind::AtMost => count <= k,
            CardKind::Exactly => count == k,
        }
    }
}

/// A propositional formula over the spec's variables and, in outcomes,
/// mapped experiment parameters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Formula {
    /// `TRUE` / `FALSE` (an extension of COBRA's language; generators and
    /// substitution produce it, specs rarely need it).
    Const(bool),
    Var(VarIdx),
    /// `M$i`: the variable mapping `map` assigns to the symbol of
    /// parameter `param` (0-based here, 1-based in the text).
    Map {
        map: MapIdx,
        param: u32,
    },
    Not(Box<Formula>),
    And(Vec<Formula>),
    Or(Vec<Formula>),
    Implies(Box<Formula>, Box<Formula>),
    Iff(Box<Formula>, Box<Formula>),
    /// `AtLeast-k(…)`, `AtMost-k(…)`, `Exactly-k(…)`.
    Card {
        kind: CardKind,
        k: u32,
        args: Vec<Formula>,
    },
}

impl Formula {
    pub fn negate(f: Formula) -> Formula {
        Formula::Not(Box::new(f))
    }

    pub fn implies(a: Formula, b: Formula) -> Formula {
        Formula::Implies(Box::new(a), Box::new(b))
    }

    pub fn iff(a: Formula, b: Formula) -> Formula {
        Formula::Iff(Box::new(a), Box::new(b))
    }

    pub fn card(kind: CardKind, k: u32, args: Vec<Formula>) -> Formula {
        Formula::Card { kind, k, args }
    }

    /// Whether the formula mentions a mapped parameter (`M$i`).
    pub fn has_params(&self) -> bool {
        match self {
            Formula::Map { .. } => true,
            Formula::Const(_) | Formula::Var(_) => false,
            Formula::Not(a) => a.has_params(),
            Formula::And(xs) | Formula::Or(xs) | Formula::Card { args: xs, .. } => {
                xs.iter().any(Formula::has_params)
            }
            Formula::Implies(a, b) | Formula::Iff(a, b) => a.has_params() || b.has_params(),
        }
    }

    /// Replaces every `M$i` by the variable the mapping assigns to symbol
    /// `params[i]`. `params` must have one symbol per parameter.
    pub fn instantiate(&self, spec: &Spec, params: &[u32]) -> Formula {
        let rec = |f: &Formula| f.instantiate(spec, params);
        match self {
            Formula::Map { map, param } => {
                let sym = params[*param as usize] as usize;
                Formula::Var(spec.mappings[map.index()].targets[sym])
            }
            Formula::Const(_) | Formula::Var(_) => self.clone(),
            Formula::Not(a) => Formula::negate(rec(a)),
            Formula::And(xs) => Formula::And(xs.iter().map(rec).collect()),
            Formula::Or(xs) => Formula::Or(xs.iter().map(rec).collect()),
            Formula::Implies(a, b) => Formula::implies(rec(a), rec(b)),
            Formula::Iff(a, b) => Formula::iff(rec(a), rec(b)),
            Formula::Card { kind, k, args } => {
                Formula::card(*kind, *k, args.iter().map(rec).collect())
            }
        }
    }

    /// The truth value on a code (`code[v]` is variable `v`), with
    /// parameters bound to `params` (ignored if the formula has none).
    pub fn eval(&self, spec: &Spec, params: &[u32], code: &[bool]) -> bool {
        let rec = |f: &Formula| f.eval(spec, params, code);
        match self {
            Formula::Const(b) => *b,
            Formula::Var(v) => code[v.index()],
            Formula::Map { map, param } => {
                let sym = params[*param as usize] as usize;
                code[spec.mappings[map.index()].targets[sym].index()]
            }
            Formula::Not(a) => !rec(a),
            Formula::And(xs) => xs.iter().all(rec),
            Formula::Or(xs) => xs.iter().any(rec),
            Formula::Implies(a, b) => !rec(a) || rec(b),
            Formula::Iff(a, b) => rec(a) == rec(b),
            Formula::Card { kind, k, args } => {
                kind.holds(args.iter().filter(|a| rec(a)).count() as u32, *k)
            }
        }
    }

    /// The formula with the variables of `known` replaced by their values
    /// and constants folded away (equivalent wherever `known` holds).
    pub fn simplify(&self, known: &[Option<bool>]) -> Formula {
        use Formula::Const;
        let rec = |f: &Formula| f.simplify(known);
        match self {
            Formula::Var(v) => known[v.index()].map_or(self.clone(), Const),
            Const(_) | Formula::Map { .. } => self.clone(),
            Formula::Not(a) => match rec(a) {
                Const(b) => Const(!b),
                a => Formula::negate(a),
            },
            Formula::And(xs) | Formula::Or(xs) => {
                let and = matches!(self, Formula::And(_));
                let mut kept = Vec::new();
                for x in xs.iter().map(rec) {
                    match x {
                        Const(b) if b == and => {}
                        Const(_) => return Const(!and),
                        x => kept.push(x),
                    }
                }
                match kept.len() {
                    0 => Const(and),
                    1 => kept.remove(0),
                    _ if and => Formula::And(kept),
                    _ => Formula::Or(kept),
                }
            }
            Formula::Implies(a, b) => match (rec(a), rec(b)) {
                (Const(false), _) | (_, Const(true)) => Const(true),
                (Const(true), b) => b,
                (a, Const(false)) => Formula::negate(a),
                (a, b) => Formula::implies(a, b),
            },
            Formula::Iff(a, b) => match (rec(a), rec(b)) {
                (Const(x), Const(y)) => Const(x == y),
                (Const(true), f) | (f, Const(true)) => f,
                (Const(false), f) | (f, Const(false)) => Formula::negate(f),
                (a, b) => Formula::iff(a, b),
            },
            Formula::Card { kind, k, args } => {
                let mut t = 0;
                let mut rest = Vec::new();
                for x in args.iter().map(rec) {
                    match x {
                        Const(true) => t += 1,
                        Const(false) => {}
                        x => rest.push(x),
                    }
                }
                let n = rest.len() as u32;
                let always = (t..=t + n).all(|c| kind.holds(c, *k));
                let never = (t..=t + n).all(|c| !kind.holds(c, *k));
                if always || never {
                    return Const(always);
                }
                Formula::card(*kind, k - t.min(*k), rest)
            }
        }
    }

    /// Binding strength for printing (higher binds tighter).
    fn precedence(&self) -> u8 {
        match self {
            Formula::Iff(..) => 1,
            Formula::Implies(..) => 2,
            Formula::Or(xs) if xs.len() > 1 => 4,
            Formula::And(xs) if xs.len() > 1 => 5,
            Formula::Not(_) => 6,
            _ => 7,
        }
    }
}

/// `MAPPING M v1, v2, …`: symbol `i` of the alphabet maps to `targets[i]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    pub name: String,
    pub targets: Vec<VarIdx>,
}

/// `OUTCOME 'name' f` (declared final) or `OUTCOMEX 'name' f`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutcomeDef {
    pub name: String,
    /// Declared with `OUTCOME`. Whether observing it ends the play is
    /// decided per experiment type: see [`ExperimentType::is_final`].
    pub declared_final: bool,
    pub formula: Formula,
}

/// `EXPERIMENT 'name' k` with its restrictions and outcomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExperimentType {
    pub name: String,
    /// Number of parameters `k`.
    pub arity: usize,
    /// `PARAMS_DISTINCT` groups, 0-based parameter positions: the
    /// parameters of a group take pairwise different symbols.
    pub distinct: Vec<Vec<usize>>,
    /// `PARAMS_SORTED` groups, 0-based: the symbols of a group are
    /// non-decreasing in alphabet order, in the order listed.
    pub sorted: Vec<Vec<usize>>,
    pub outcomes: Vec<OutcomeDef>,
}

impl ExperimentType {
    /// Whether outcome `o` ends the play. A play ends on an outcome only
    /// when its experiment type declares exactly one `OUTCOME` (as
    /// Mastermind's "all black"); types declaring none or several are
    /// played until the code is identified.
    pub fn is_final(&self, o: usize) -> bool {
        let declared = self.outcomes.iter().filter(|d| d.declared_final).count();
        declared == 1 && self.outcomes[o].declared_final
    }

    /// Whether `params` (symbol indices) honours the restrictions.
    pub fn allows(&self, params: &[u32]) -> bool {
        params.len() == self.arity && self.violation(params).is_none()
    }

    /// The first restriction `params` violates, as text
    /// (`PARAMS_DISTINCT 1, 2`).
    pub fn violation(&self, params: &[u32]) -> Option<String> {
        let show = |kw: &str, g: &[usize]| {
            let list: Vec<String> = g.iter().map(|p| (p + 1).to_string()).collect();
            format!("{kw} {}", list.join(", "))
        };
        for g in &self.distinct {
            for (a, &i) in g.iter().enumerate() {
                if g[a + 1..].iter().any(|&j| params[i] == params[j]) {
                    return Some(show("PARAMS_DISTINCT", g));
                }
            }
        }
        for g in &self.sorted {
            if g.windows(2).any(|w| params[w[0]] > params[w[1]]) {
                return Some(show("PARAMS_SORTED", g));
            }
        }
        None
    }
}

/// A resolved game spec.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spec {
    /// Comment lines before the first statement (without `#`).
    pub header: Vec<String>,
    /// Variable names, in declaration order.
    pub vars: Vec<String>,
    /// `CONSTRAINT` formulas; the codes are the models of their
    /// conjunction. They never mention parameters.
    pub constraints: Vec<Formula>,
    pub alphabet: Vec<String>,
    pub mappings: Vec<Mapping>,
    pub experiments: Vec<ExperimentType>,
}

impl Spec {
    pub fn var(&self, name: &str) -> Option<VarIdx> {
        self.vars
            .iter()
            .position(|v| v == name)
            .map(|i| VarIdx(i as u32))
    }

    /// The conjunction of every constraint.
    pub fn constraint(&self) -> Formula {
        Formula::And(self.constraints.clone())
    }

    /// Whether a code (a valuation of every variable) satisfies the
    /// constraints.
    pub fn is_code(&self, code: &[bool]) -> bool {
        code.len() == self.vars.len() && self.constraints.iter().all(|f| f.eval(self, &[], code))
    }

    /// Every symbol is one character, so parameters can be written as
    /// one word (`guess AABB`).
    pub fn single_char_symbols(&self) -> bool {
        self.alphabet.iter().all(|s| s.chars().count() == 1)
    }

    /// Writes parameters as in `game play` and history files.
    pub fn show_params(&self, params: &[u32]) -> String {
        let syms: Vec<&str> = params
            .iter()
            .map(|&p| self.alphabet[p as usize].as_str())
            .collect();
        if self.single_char_symbols() {
            syms.concat()
        } else {
            syms.join(" ")
        }
    }

    /// A formula in spec syntax.
    pub fn show<'a>(&'a self, f: &'a Formula) -> impl fmt::Display + 'a {
        Show { spec: self, f }
    }
}

struct Show<'a> {
    spec: &'a Spec,
    f: &'a Formula,
}

impl Show<'_> {
    fn sub(&self, f: &Formula, min: u8, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = Show { spec: self.spec, f };
        if f.precedence() < min {
            write!(out, "({inner})")
        } else {
            write!(out, "{inner}")
        }
    }

    fn list(
        &self,
        xs: &[Formula],
        sep: &str,
        min: u8,
        out: &mut fmt::Formatter<'_>,
    ) -> fmt::Result {
        for (i, x) in xs.iter().enumerate() {
            if i > 0 {
                out.write_str(sep)?;
            }
            self.sub(x, min, out)?;
        }
        Ok(())
    }
}

impl fmt::Display for Show<'_> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.f {
            Formula::Const(true) => out.write_str("TRUE"),
            Formula::Const(false) => out.write_str("FALSE"),
            Formula::Var(v) => out.write_str(&self.spec.vars[v.index()]),
            Formula::Map { map, param } => {
                write!(
                    out,
                    "{}${}",
                    self.spec.mappings[map.index()].name,
                    param + 1
                )
            }
            Formula::Not(a) => {
                out.write_str("!")?;
                self.sub(a, 6, out)
            }
            // An empty or one-element conjunction has no operator to
            // print: write the neutral element or the element itself,
            // parenthesised so it parses back as a single atom.
            Formula::And(xs) if xs.is_empty() => out.write_str("TRUE"),
            Formula::Or(xs) if xs.is_empty() => out.write_str("FALSE"),
            Formula::And(xs) | Formula::Or(xs) if xs.len() == 1 => self.sub(&xs[0], 7, out),
            Formula::And(xs) => self.list(xs, " & ", 6, out),
            // `(a & b) | c` reads better than `a & b | c`; both parse alike.
            Formula::Or(xs) => self.list(xs, " | ", 6, out),
            Formula::Implies(a, b) => {
                self.sub(a, 3, out)?;
                out.write_str(" -> ")?;
                self.sub(b, 2, out)
            }
            Formula::Iff(a, b) => {
                self.sub(a, 2, out)?;
                out.write_str(" <-> ")?;
                self.sub(b, 1, out)
            }
            Formula::Card { kind, k, args } => {
                write!(out, "{}-{k}(", kind.keyword())?;
                self.list(args, ", ", 1, out)?;
                out.write_str(")")
            }
        }
    }
}

/// Quotes a name or symbol for spec text.
fn quote(s: &str) -> String {
    if s.contains('\'') {
        format!("\"{s}\"")
    } else {
        format!("'{s}'")
    }
}

/// Writes `items` separated by commas, breaking lines every `per_line`.
fn write_list(out: &mut fmt::Formatter<'_>, items: &[String], per_line: usize) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.write_str(",")?;
            out.write_str(if i % per_line == 0 { "\n    " } else { " " })?;
        }
        out.write_str(item)?;
    }
    Ok(())
}

impl fmt::Display for Spec {
    /// The spec as text that [`parse()`] reads back to an equal spec.
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        for line in &self.header {
            if line.is_empty() {
                writeln!(out, "#")?;
            } else {
                writeln!(out, "# {line}")?;
            }
        }
        if !self.vars.is_empty() {
            out.write_str("VARIABLES ")?;
            write_list(out, &self.vars, 12)?;
            writeln!(out)?;
        }
        for c in &self.constraints {
            writeln!(out, "CONSTRAINT {}", self.show(c))?;
        }
        if !self.alphabet.is_empty() {
            out.write_str("ALPHABET ")?;
            let syms: Vec<String> = self.alphabet.iter().map(|s| quote(s)).collect();
            write_list(out, &syms, 16)?;
            writeln!(out)?;
        }
        for m in &self.mappings {
            write!(out, "MAPPING {} ", m.name)?;
            let targets: Vec<String> = m
                .targets
                .iter()
                .map(|v| self.vars[v.index()].clone())
                .collect();
            write_list(out, &targets, 12)?;
            writeln!(out)?;
        }
        for e in &self.experiments {
            writeln!(out, "EXPERIMENT {} {}", quote(&e.name), e.arity)?;
            let group = |g: &Vec<usize>| {
                g.iter()
                    .map(|p| (p + 1).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            for g in &e.distinct {
                writeln!(out, "  PARAMS_DISTINCT {}", group(g))?;
            }
            for g in &e.sorted {
                writeln!(out, "  PARAMS_SORTED {}", group(g))?;
            }
            for o in &e.outcomes {
                let kw = if o.declared_final {
                    "OUTCOME"
                } else {
                    "OUTCOMEX"
                };
                writeln!(out, "  {kw} {} {}", quote(&o.name), self.show(&o.formula))?;
            }
        }
        Ok(())
    }
}

/// A 1-based line and column in spec or history text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

impl Pos {
    /// The position of byte `offset` of `text` (columns count characters).
    pub fn at(text: &str, offset: usize) -> Pos {
        let (line, col) = crate::input::line_column(text, offset);
        Pos { line, col }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A syntax or name error in spec text.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{pos}: {message}")]
pub struct SpecError {
    pub pos: Pos,
    pub message: String,
}

#[cfg(test)]
mod tests;
