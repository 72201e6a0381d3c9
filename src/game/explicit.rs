//! The explicit engine for spec games: enumerate the codes once through
//! SAT, then evaluate every experiment's outcomes on every code into a
//! [`Table`].
//!
//! Input: a [`Game`]. Output: its [`Table`], with codes in canonical order
//! (see `knowledge`), experiments in declaration order of their types and
//! then lexicographic order of parameters (see `params`), and outcomes
//! numbered by first declaration (`(name, final)` pairs).
//!
//! Limits: at most [`MAX_CODES`] codes and [`MAX_CELLS`] table cells
//! (codes × experiments, one byte each); bigger games are left to the SAT
//! knowledge (`game deduce`), which never enumerates.
//!
//! Speed: outcome formulas are compiled once per experiment type into a
//! shared DAG (identical sub-formulas are one node, and a cardinality's
//! count is one node shared by `Exactly-0(L)`, `Exactly-1(L)`, …); per
//! experiment the DAG is instantiated with the parameters and every
//! variable the constraint fixes is folded to a constant, which leaves a
//! few dozen nodes to evaluate per code.

use std::collections::HashMap;
use std::sync::Arc;

use thiserror::Error;

use super::knowledge::{sort_codes, Knowledge, KnowledgeError};
use super::params;
use super::spec::{CardKind, ExperimentType, Formula, Spec};
use super::table::{Experiment, Table, Valuations};
use super::Game;

/// At most this many codes for the explicit engine.
pub const MAX_CODES: usize = 1 << 16;
/// At most this many table cells (bytes).
pub const MAX_CELLS: usize = 1 << 28;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ExplicitError {
    #[error(transparent)]
    Knowledge(#[from] KnowledgeError),
    #[error("the game has more than {MAX_CODES} codes, too many for the explicit engine (the SAT engine of `game deduce` has no such limit)")]
    TooManyCodes,
    #[error("{codes} codes and at least {experiments} experiments make more than {MAX_CELLS} table cells, too many for the explicit engine")]
    TooManyCells { codes: usize, experiments: u128 },
    #[error("the game has more than 256 distinct outcomes")]
    TooManyOutcomes,
    #[error("experiment `{experiment}` on code {code}: {} outcomes hold ({}), not exactly one: the game is not well-formed", holding.len(), holding.join(", "))]
    IllFormed {
        experiment: String,
        code: String,
        holding: Vec<String>,
    },
    #[error("`{0}` is not a built-in game: it has no native route")]
    NoNativeRoute(String),
}

/// Node of a compiled formula DAG; children are earlier node indices.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Node {
    Const(bool),
    Var(u32),
    /// `M$i` (templates only).
    Map(u32, u32),
    Not(u32),
    And(Vec<u32>),
    Or(Vec<u32>),
    Iff(u32, u32),
    /// `offset` plus the number of true children (an integer node).
    Count(u32, Vec<u32>),
    /// A cardinality test on a `Count` node.
    Card(CardKind, u32, u32),
}

/// A hash-consed DAG in topological order.
#[derive(Default)]
struct Dag {
    nodes: Vec<Node>,
    index: HashMap<Node, u32>,
}

impl Dag {
    fn intern(&mut self, n: Node) -> u32 {
        if let Some(&i) = self.index.get(&n) {
            return i;
        }
        let i = self.nodes.len() as u32;
        self.nodes.push(n.clone());
        self.index.insert(n, i);
        i
    }

    fn constant(&self, i: u32) -> Option<bool> {
        match self.nodes[i as usize] {
            Node::Const(b) => Some(b),
            _ => None,
        }
    }

    /// Adds a formula without folding (a template).
    fn add(&mut self, f: &Formula) -> u32 {
        let n = match f {
            Formula::Const(b) => Node::Const(*b),
            Formula::Var(v) => Node::Var(v.0),
            Formula::Map { map, param } => Node::Map(map.0, *param),
            Formula::Not(a) => Node::Not(self.add(a)),
            Formula::And(xs) => Node::And(xs.iter().map(|x| self.add(x)).collect()),
            Formula::Or(xs) => Node::Or(xs.iter().map(|x| self.add(x)).collect()),
            Formula::Implies(a, b) => {
                let na = self.add(a);
                let not_a = self.intern(Node::Not(na));
                Node::Or(vec![not_a, self.add(b)])
            }
            Formula::Iff(a, b) => Node::Iff(self.add(a), self.add(b)),
            Formula::Card { kind, k, args } => {
                let args = args.iter().map(|x| self.add(x)).collect();
                let count = self.intern(Node::Count(0, args));
                Node::Card(*kind, *k, count)
            }
        };
        self.intern(n)
    }

    /// Adds a node with its children already in `self`, folding constants.
    fn fold(&mut self, n: Node) -> u32 {
        let is_and = matches!(n, Node::And(_));
        let n = match n {
            Node::Not(a) => match self.constant(a) {
                Some(b) => Node::Const(!b),
                None => Node::Not(a),
            },
            Node::And(xs) | Node::Or(xs) => {
                let mut kept = Vec::with_capacity(xs.len());
                for x in xs {
                    match self.constant(x) {
                        Some(b) if b == is_and => {}
                        Some(_) => return self.intern(Node::Const(!is_and)),
                        None => kept.push(x),
                    }
                }
                kept.sort_unstable();
                kept.dedup();
                match kept.len() {
                    0 => Node::Const(is_and),
                    1 => return kept[0],
                    _ if is_and => Node::And(kept),
                    _ => Node::Or(kept),
                }
            }
            Node::Iff(a, b) => match (self.constant(a), self.constant(b)) {
                (Some(x), Some(y)) => Node::Const(x == y),
                (Some(true), None) => return b,
                (None, Some(true)) => return a,
                (Some(false), None) => return self.fold(Node::Not(b)),
                (None, Some(false)) => return self.fold(Node::Not(a)),
                _ => Node::Iff(a, b),
            },
            Node::Count(offset, xs) => {
                let mut offset = offset;
                let mut kept = Vec::with_capacity(xs.len());
                for x in xs {
                    match self.constant(x) {
                        Some(true) => offset += 1,
                        Some(false) => {}
                        None => kept.push(x),
                    }
                }
                kept.sort_unstable();
                Node::Count(offset, kept)
            }
            Node::Card(kind, k, c) => {
                if let Node::Count(offset, xs) = &self.nodes[c as usize] {
                    let (lo, hi) = (*offset, offset + xs.len() as u32);
                    // Decided whatever the open children are?
                    let always = (lo..=hi).all(|n| kind.holds(n, k));
                    let never = (lo..=hi).all(|n| !kind.holds(n, k));
                    if always || never {
                        return self.intern(Node::Const(always));
                    }
                }
                Node::Card(kind, k, c)
            }
            other => other,
        };
        self.intern(n)
    }
}

/// An experiment type's outcome formulas as one template DAG.
struct Template {
    dag: Dag,
    roots: Vec<u32>,
}

impl Template {
    fn new(ty: &ExperimentType) -> Template {
        let mut dag = Dag::default();
        let roots = ty.outcomes.iter().map(|o| dag.add(&o.formula)).collect();
        Template { dag, roots }
    }

    /// The folded program for one parameterisation.
    fn instantiate(&self, spec: &Spec, params: &[u32], fixed: &[Option<bool>]) -> Program {
        let mut dag = Dag::default();
        let mut map = Vec::with_capacity(self.dag.nodes.len());
        for n in &self.dag.nodes {
            let m = |i: &u32| map[*i as usize];
            let var = |v: u32| match fixed[v as usize] {
                Some(b) => Node::Const(b),
                None => Node::Var(v),
            };
            let node = match n {
                Node::Const(b) => Node::Const(*b),
                Node::Var(v) => var(*v),
                Node::Map(mp, p) => {
                    let sym = params[*p as usize] as usize;
                    var(spec.mappings[*mp as usize].targets[sym].0)
                }
                Node::Not(a) => Node::Not(m(a)),
                Node::And(xs) => Node::And(xs.iter().map(m).collect()),
                Node::Or(xs) => Node::Or(xs.iter().map(m).collect()),
                Node::Iff(a, b) => Node::Iff(m(a), m(b)),
                Node::Count(o, xs) => Node::Count(*o, xs.iter().map(m).collect()),
                Node::Card(kind, k, c) => Node::Card(*kind, *k, m(c)),
            };
            map.push(dag.fold(node));
        }
        Program {
            nodes: dag.nodes,
            roots: self.roots.iter().map(|&r| map[r as usize]).collect(),
        }
    }
}

/// A folded DAG, evaluated bottom-up on one code at a time.
struct Program {
    nodes: Vec<Node>,
    roots: Vec<u32>,
}

impl Program {
    /// Node values on a code: booleans as 0/1, counts as integers.
    fn eval(&self, vals: &mut Vec<u32>, code: &Valuations, c: usize) {
        vals.clear();
        for n in &self.nodes {
            let get = |i: &u32| vals[*i as usize];
            let v = match n {
                Node::Const(b) => *b as u32,
                Node::Var(v) => code.get(c, *v as usize) as u32,
                Node::Map(..) => 0, // instantiated programs have none
                Node::Not(a) => 1 - get(a),
                Node::And(xs) => xs.iter().all(|x| get(x) == 1) as u32,
                Node::Or(xs) => xs.iter().any(|x| get(x) == 1) as u32,
                Node::Iff(a, b) => (get(a) == get(b)) as u32,
                Node::Count(o, xs) => o + xs.iter().map(get).sum::<u32>(),
                Node::Card(kind, k, cnt) => kind.holds(get(cnt), *k) as u32,
            };
            vals.push(v);
        }
    }
}

/// Every code of the game through SAT, in canonical order, if there are
/// at most `limit`.
pub fn codes(spec: &Spec, limit: usize) -> Result<Vec<Vec<bool>>, ExplicitError> {
    let mut k = Knowledge::new(spec)?;
    let (mut codes, all) = k.enumerate(limit)?;
    if !all {
        return Err(ExplicitError::TooManyCodes);
    }
    sort_codes(&mut codes);
    Ok(codes)
}

/// The explicit table of a game, built through its spec.
pub fn build(game: &Game) -> Result<Table, ExplicitError> {
    build_with_limit(game, MAX_CODES)
}

/// [`build`] with another limit on the number of codes.
pub fn build_with_limit(game: &Game, max_codes: usize) -> Result<Table, ExplicitError> {
    let spec = &game.spec;
    let codes = codes(spec, max_codes)?;
    let n = codes.len();
    let vals = Valuations::new(spec.vars.clone(), &codes);
    // Variables with one value in every code are constants.
    let fixed: Vec<Option<bool>> = (0..spec.vars.len())
        .map(|v| {
            let b = codes[0][v];
            codes.iter().all(|c| c[v] == b).then_some(b)
        })
        .collect();
    let (outcomes, is_final, global) = outcome_numbering(spec)?;
    let max_experiments = MAX_CELLS / n.max(1);
    let mut experiments = Vec::new();
    let mut cells = Vec::new();
    let mut scratch = Vec::new();
    let symbols: Vec<Arc<str>> = spec
        .alphabet
        .iter()
        .map(|s| Arc::from(s.as_str()))
        .collect();
    for (t, ty) in spec.experiments.iter().enumerate() {
        let template = Template::new(ty);
        let kind: Arc<str> = Arc::from(ty.name.as_str());
        let left = max_experiments.saturating_sub(experiments.len());
        let Some(all) = params::all(ty, spec.alphabet.len(), left) else {
            return Err(ExplicitError::TooManyCells {
                codes: n,
                experiments: max_experiments as u128 + 1,
            });
        };
        for p in all {
            let prog = template.instantiate(spec, &p, &fixed);
            for (c, code) in codes.iter().enumerate() {
                prog.eval(&mut scratch, &vals, c);
                let mut holding = prog
                    .roots
                    .iter()
                    .enumerate()
                    .filter(|(_, &r)| scratch[r as usize] == 1);
                match (holding.next(), holding.next()) {
                    (Some((o, _)), None) => cells.push(global[t][o]),
                    _ => return Err(ill_formed(game, t, &p, code)),
                }
            }
            experiments.push(Experiment {
                kind: kind.clone(),
                params: p.iter().map(|&s| symbols[s as usize].clone()).collect(),
            });
        }
    }
    let names = codes.iter().map(|c| game.code_name(c)).collect();
    Ok(Table::new(
        game.name.clone(),
        names,
        experiments,
        outcomes,
        is_final,
        cells,
    )
    .with_valuations(vals))
}

/// The error for a code on which not exactly one outcome holds.
fn ill_formed(game: &Game, ty: usize, params: &[u32], code: &[bool]) -> ExplicitError {
    let spec = &game.spec;
    let t = &spec.experiments[ty];
    ExplicitError::IllFormed {
        experiment: format!("{} {}", t.name, spec.show_params(params)),
        code: game.code_name(code),
        holding: t
            .outcomes
            .iter()
            .filter(|o| o.formula.eval(spec, params, code))
            .map(|o| o.name.clone())
            .collect(),
    }
}

/// Global outcome list: `(name, final)` pairs by first declaration, and
/// for each type the global index of each of its outcomes.
#[allow(clippy::type_complexity)]
fn outcome_numbering(spec: &Spec) -> Result<(Vec<String>, Vec<bool>, Vec<Vec<u8>>), ExplicitError> {
    let mut names: Vec<String> = Vec::new();
    let mut finals: Vec<bool> = Vec::new();
    let mut global = Vec::new();
    for ty in &spec.experiments {
        let mut row = Vec::new();
        for (o, def) in ty.outcomes.iter().enumerate() {
            let fin = ty.is_final(o);
            let i = match (0..names.len()).find(|&i| names[i] == def.name && finals[i] == fin) {
                Some(i) => i,
                None => {
                    names.push(def.name.clone());
                    finals.push(fin);
                    names.len() - 1
                }
            };
            row.push(u8::try_from(i).map_err(|_| ExplicitError::TooManyOutcomes)?);
        }
        global.push(row);
    }
    Ok((names, finals, global))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::knowledge::Instance;
    use crate::game::table::Builtin;
    use crate::game::Route;

    /// The generic spec route and the native route give the same table:
    /// codes, names, experiments, outcomes, every cell, valuations.
    #[test]
    fn spec_route_equals_native_route() {
        for name in [
            "mastermind:2x3",
            "mastermind:3x3",
            "black-peg:3x3",
            "bulls-cows:3x4",
            "coins:4",
            "coins:4+1",
            "coins:6",
        ] {
            let game = Game::builtin(name.parse::<Builtin>().unwrap());
            let native = game.table(Route::Native).unwrap();
            let spec = game.table(Route::Spec).unwrap();
            assert_eq!(native.codes, spec.codes, "{name}");
            assert_eq!(native.experiments, spec.experiments, "{name}");
            assert_eq!(native.outcomes, spec.outcomes, "{name}");
            assert_eq!(native, spec, "{name}");
        }
    }

    /// The table agrees with the SAT knowledge: after observing an outcome,
    /// the codes SAT finds are the codes the table gives that outcome.
    #[test]
    fn sat_and_explicit_engines_agree() {
        let game = Game::builtin("mastermind:3x3".parse().unwrap());
        let table = game.table(Route::Spec).unwrap();
        let spec = &game.spec;
        for e in [0, 5, 13, 26] {
            let params: Vec<u32> = table.experiments[e]
                .params
                .iter()
                .map(|s| (s.as_bytes()[0] - b'A') as u32)
                .collect();
            let exp = Instance { ty: 0, params };
            for (o, name) in spec.experiments[0]
                .outcomes
                .iter()
                .map(|o| &o.name)
                .enumerate()
            {
                let mut k = Knowledge::new(spec).unwrap();
                k.observe(&exp, o);
                let (mut found, _) = k.enumerate(1000).unwrap();
                sort_codes(&mut found);
                let found: Vec<String> = found.iter().map(|c| game.code_name(c)).collect();
                let expected: Vec<String> = (0..table.n_codes())
                    .filter(|&c| &table.outcomes[table.outcome(e, c) as usize] == name)
                    .map(|c| table.codes[c].clone())
                    .collect();
                assert_eq!(found, expected, "guess {e} outcome {name}");
            }
        }
    }

    #[test]
    fn a_game_that_is_too_big_says_so() {
        let game = Game::builtin("mastermind:3x3".parse().unwrap());
        assert_eq!(
            build_with_limit(&game, 26),
            Err(ExplicitError::TooManyCodes)
        );
        assert!(build_with_limit(&game, 27).is_ok());
    }

    #[test]
    fn generic_codes_are_named_by_their_variables() {
        let text = "VARIABLES a, b, k\nCONSTRAINT Exactly-1(a, b) & k\nALPHABET 'p'\nMAPPING M a\nEXPERIMENT 'ask' 1\nOUTCOME 'yes' M$1\nOUTCOMEX 'no' !M$1\n";
        let game = Game::parse("t.game", text).unwrap();
        let table = game.table(Route::Spec).unwrap();
        assert_eq!(table.codes, vec!["a", "b"]);
        assert_eq!(table.outcomes, vec!["yes", "no"]);
        assert_eq!(table.is_final, vec![true, false]);
    }
}
