//! The hybrid engine for spec games: one-step strategies over reduced
//! experiment sets while many codes remain, over the explicit outcome
//! table once few do.
//!
//! Input: a [`Game`] (its spec), a [`Strategy`], a [`Ties`] rule and
//! [`Options`]. Output: a decision [`Tree`] over every code with the
//! [`Table`] it refers to (only the experiments the tree plays, evaluated
//! on every code), per-depth counts of experiments generated and kept,
//! or one play.
//!
//! Codes are enumerated once through SAT (at most
//! [`explicit::MAX_CODES`]) and held as one bit column per variable, so an
//! experiment's outcomes on a set of codes are evaluated 64 codes at a
//! time from its type's normalised outcome templates. At a node with code
//! set S:
//! * *reduced* (|S| above the switch point, or no explicit table
//!   possible): phase 1 generates candidates from the knowledge (fixed
//!   variables of S, the history, S itself for the symmetry checks);
//!   candidates splitting S identically (the same parts, whatever their
//!   outcome names, finals alike) are merged; phase 2 merges equivalent
//!   ones among those with equal part sizes;
//! * *table* (|S| at most the switch point and every experiment of the
//!   game fits in an explicit table): every experiment, its row over all
//!   codes computed once and cached.
//!
//! Either way the candidates, in table order, go into a small [`Table`]
//! over S and [`Planner::choose`] picks one, so ranks and tie rules are
//! exactly those of the explicit engine; because reduction keeps the
//! first experiment of every class (see `reduce`), the tree is the one
//! the explicit engine builds on the full table. The switch point
//! [`SWITCH`] was measured (see `scripts/bench-reduce.sh`).

use std::collections::HashMap;

use thiserror::Error;

use super::explicit::{self, ExplicitError};
use super::knowledge::Instance;
use super::reduce::norm::{Arena, Node, NodeId};
use super::reduce::{canon, CodeSet, Counts, Reducer};
use super::spec::{CardKind, Formula, Spec};
use super::strategy::{Choice, Planner, Strategy, StrategyError, Ties};
use super::table::{Experiment, Table, Valuations};
use super::tree::Tree;
use super::Game;

/// Work on the explicit table at or below this many codes (when the game
/// has an explicit table at all). Measured on MM(4,6) from a spec file
/// with max-models: see `scripts/bench-reduce.sh`.
pub const SWITCH: usize = 256;

/// At most this many experiments in an explicit table.
pub const TABLE_EXPERIMENTS: u64 = 1 << 16;

/// Phase 1 gives up at a node past this many experiments.
pub const PHASE1_LIMIT: usize = 1 << 22;

/// How the engine works.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Reduce experiments by symmetry (else: the explicit table at every
    /// node, which needs one).
    pub reduce: bool,
    /// Use phase 2 (canonical graphs) after phase 1.
    pub phase2: bool,
    /// The table mode's switch point (codes).
    pub switch: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            reduce: true,
            phase2: true,
            switch: SWITCH,
        }
    }
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum HybridError {
    #[error(transparent)]
    Explicit(#[from] ExplicitError),
    #[error(transparent)]
    Strategy(#[from] StrategyError),
    #[error("{0} experiments in all: too many for an explicit table, and reduction is off")]
    NoTable(String),
    #[error("more than {limit} experiments survive phase 1 after {depth} experiments")]
    TooManyExperiments { depth: usize, limit: usize },
    #[error("`{0}` is not a code of the game")]
    UnknownCode(String),
}

/// Experiments at one depth of the tree, summed over its nodes.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DepthCounts {
    /// Nodes worked on reduced experiment sets.
    pub reduced_nodes: usize,
    /// Nodes worked on the explicit table.
    pub table_nodes: usize,
    /// Experiments in all (table nodes: every experiment).
    pub generated: usize,
    /// After merging identical splits.
    pub distinct: usize,
    /// After phase 2.
    pub kept: usize,
}

/// One experiment of a play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub experiment: Instance,
    /// Global outcome index (see [`Engine::outcomes`]).
    pub outcome: u8,
    pub remaining: usize,
    pub counts: Counts,
}

/// A built tree with its table and counts.
pub struct Built {
    /// The experiments the tree plays, rows over every code.
    pub table: Table,
    pub tree: Tree,
    /// Index = depth (number of experiments before the node).
    pub depths: Vec<DepthCounts>,
    /// The root's counts.
    pub root: Counts,
}

/// Outcome templates of every type, for bit-parallel evaluation.
struct Templates {
    arena: Arena,
    /// `roots[t][o]`.
    roots: Vec<Vec<NodeId>>,
    /// Per type, its nodes in topological order.
    order: Vec<Vec<NodeId>>,
    /// Slot of a node within its type's order (per type).
    slot: Vec<HashMap<NodeId, usize>>,
}

impl Templates {
    fn new(spec: &Spec) -> Templates {
        let mut arena = Arena::new();
        let roots: Vec<Vec<NodeId>> = spec
            .experiments
            .iter()
            .map(|t| {
                t.outcomes
                    .iter()
                    .map(|o| {
                        arena.build(&o.formula, &mut |a, leaf| match leaf {
                            Formula::Var(v) => a.var(v.0, &[]),
                            Formula::Map { map, param } => a.param(map.0, *param),
                            _ => unreachable!("build only asks for leaves"),
                        })
                    })
                    .collect()
            })
            .collect();
        let order: Vec<Vec<NodeId>> = roots.iter().map(|r| arena.reachable(r)).collect();
        let slot = order
            .iter()
            .map(|o| o.iter().enumerate().map(|(i, &n)| (n, i)).collect())
            .collect();
        Templates {
            arena,
            roots,
            order,
            slot,
        }
    }
}

/// The engine for one game and strategy.
pub struct Engine<'g> {
    game: &'g Game,
    reducer: Reducer<'g>,
    strategy: Strategy,
    ties: Ties,
    opts: Options,
    codes: Vec<Vec<bool>>,
    names: Vec<String>,
    /// Words per code column.
    nw: usize,
    /// `cols[v * nw + w]`: bit `c % 64` of word `c / 64` is code `c`'s
    /// value of variable `v`.
    cols: Vec<u64>,
    /// Codes as packed rows.
    rows: Vec<Vec<u64>>,
    templates: Templates,
    outcomes: Vec<String>,
    is_final: Vec<bool>,
    /// `global[t][o]`: the global index of outcome `o` of type `t`.
    global: Vec<Vec<u8>>,
    /// Every experiment, if the game has an explicit table.
    all: Option<Vec<Instance>>,
    /// Cached rows of `all` over every code.
    table_rows: HashMap<usize, Vec<u8>>,
    used: Vec<Instance>,
    used_index: HashMap<Instance, usize>,
    depths: Vec<DepthCounts>,
    root: Counts,
}

fn needs_fixed(s: Strategy) -> bool {
    matches!(s, Strategy::MinFixed | Strategy::ExpFixed)
}

/// Global outcome list as the explicit engine numbers it.
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

/// A set of codes: the indices, and per word of the code columns the
/// mask of members (only words with members).
struct Subset {
    codes: Vec<u32>,
    words: Vec<(usize, u64)>,
}

impl Subset {
    fn new(codes: Vec<u32>) -> Subset {
        let mut words: Vec<(usize, u64)> = Vec::new();
        for &c in &codes {
            let w = c as usize / 64;
            match words.last_mut() {
                Some((x, m)) if *x == w => *m |= 1 << (c % 64),
                _ => words.push((w, 1 << (c % 64))),
            }
        }
        Subset { codes, words }
    }
}

impl<'g> Engine<'g> {
    pub fn new(
        game: &'g Game,
        strategy: Strategy,
        ties: Ties,
        opts: Options,
    ) -> Result<Engine<'g>, HybridError> {
        let spec = &game.spec;
        let codes = explicit::codes(spec, explicit::MAX_CODES)?;
        let n = codes.len();
        let nv = spec.vars.len();
        let nw = n.div_ceil(64).max(1);
        let mut cols = vec![0u64; nv * nw];
        let rw = nv.div_ceil(64).max(1);
        let mut rows = Vec::with_capacity(n);
        for (c, code) in codes.iter().enumerate() {
            let mut row = vec![0u64; rw];
            for (v, &b) in code.iter().enumerate() {
                if b {
                    cols[v * nw + c / 64] |= 1 << (c % 64);
                    row[v / 64] |= 1 << (v % 64);
                }
            }
            rows.push(row);
        }
        let names = codes.iter().map(|c| game.code_name(c)).collect();
        let (outcomes, is_final, global) = outcome_numbering(spec)?;
        let total = Reducer::new(spec).total(TABLE_EXPERIMENTS);
        let all = total.map(|_| {
            let mut all = Vec::new();
            for (ty, t) in spec.experiments.iter().enumerate() {
                super::params::for_each(t, spec.alphabet.len(), |p| {
                    all.push(Instance {
                        ty,
                        params: p.to_vec(),
                    });
                    std::ops::ControlFlow::Continue(())
                });
            }
            all
        });
        if !opts.reduce && all.is_none() {
            return Err(HybridError::NoTable(format!(
                "more than {TABLE_EXPERIMENTS}"
            )));
        }
        Ok(Engine {
            game,
            reducer: Reducer::new(spec),
            strategy,
            ties,
            opts,
            codes,
            names,
            nw,
            cols,
            rows,
            templates: Templates::new(spec),
            outcomes,
            is_final,
            global,
            all,
            table_rows: HashMap::new(),
            used: Vec::new(),
            used_index: HashMap::new(),
            depths: Vec::new(),
            root: Counts::default(),
        })
    }

    pub fn n_codes(&self) -> usize {
        self.codes.len()
    }

    /// Global outcome names.
    pub fn outcomes(&self) -> &[String] {
        &self.outcomes
    }

    pub fn code_names(&self) -> &[String] {
        &self.names
    }

    /// Outcome bitsets of `exp` on `sub` (one entry per outcome of its
    /// type, words aligned with `sub.words`).
    fn eval(&self, exp: &Instance, sub: &Subset) -> Vec<Vec<u64>> {
        let spec = &self.game.spec;
        let t = &self.templates;
        let order = &t.order[exp.ty];
        let slot = &t.slot[exp.ty];
        let a = sub.words.len();
        let mut vals = vec![0u64; order.len() * a];
        let col = |v: usize, i: usize| self.cols[v * self.nw + sub.words[i].0];
        for (k, &id) in order.iter().enumerate() {
            let (done, rest) = vals.split_at_mut(k * a);
            let out = &mut rest[..a];
            let get = |x: &NodeId| &done[slot[x] * a..(slot[x] + 1) * a];
            match t.arena.node(id) {
                Node::Const(b) => out.fill(if *b { u64::MAX } else { 0 }),
                Node::Var(v) => (0..a).for_each(|i| out[i] = col(*v as usize, i)),
                Node::Param { map, pos } => {
                    let sym = exp.params[*pos as usize] as usize;
                    let v = spec.mappings[*map as usize].targets[sym].index();
                    (0..a).for_each(|i| out[i] = col(v, i));
                }
                Node::Not(x) => {
                    let x = get(x);
                    (0..a).for_each(|i| out[i] = !x[i]);
                }
                Node::And(xs) => {
                    out.fill(u64::MAX);
                    for x in xs {
                        let x = get(x);
                        (0..a).for_each(|i| out[i] &= x[i]);
                    }
                }
                Node::Or(xs) => {
                    out.fill(0);
                    for x in xs {
                        let x = get(x);
                        (0..a).for_each(|i| out[i] |= x[i]);
                    }
                }
                Node::Iff([x, y]) => {
                    let (x, y) = (get(x), get(y));
                    (0..a).for_each(|i| out[i] = !(x[i] ^ y[i]));
                }
                Node::Card { kind, k, args } => {
                    // at[j]: codes with at least j true operands so far.
                    let k = *k as usize;
                    let mut at = vec![0u64; (k + 2) * a];
                    at[..a].fill(u64::MAX);
                    for x in args {
                        let x = get(x);
                        for j in (1..k + 2).rev() {
                            for i in 0..a {
                                at[j * a + i] |= at[(j - 1) * a + i] & x[i];
                            }
                        }
                    }
                    for i in 0..a {
                        let (ge, gt) = (at[k * a + i], at[(k + 1) * a + i]);
                        out[i] = match kind {
                            CardKind::AtLeast => ge,
                            CardKind::AtMost => !gt,
                            CardKind::Exactly => ge & !gt,
                        };
                    }
                }
            }
        }
        t.roots[exp.ty]
            .iter()
            .map(|r| {
                let v = &vals[slot[r] * a..(slot[r] + 1) * a];
                v.iter().zip(&sub.words).map(|(x, (_, m))| x & m).collect()
            })
            .collect()
    }

    /// The global outcome of `exp` on every code of `sub`, in `sub` order.
    fn row_on(&self, exp: &Instance, sub: &Subset) -> Vec<u8> {
        let parts = self.eval(exp, sub);
        sub.codes
            .iter()
            .map(|&c| {
                let i = sub.words.partition_point(|&(w, _)| w < c as usize / 64);
                let bit = 1u64 << (c % 64);
                let o = parts.iter().position(|p| p[i] & bit != 0).unwrap_or(0);
                self.global[exp.ty][o]
            })
            .collect()
    }

    /// The row of experiment `all[e]` over every code (cached).
    fn table_row(&mut self, e: usize) -> &[u8] {
        if !self.table_rows.contains_key(&e) {
            let all = Subset::new((0..self.codes.len() as u32).collect());
            let exp = self.all.as_ref().expect("table mode has every experiment")[e].clone();
            let row = self.row_on(&exp, &all);
            self.table_rows.insert(e, row);
        }
        &self.table_rows[&e]
    }

    /// Variables with one value on every code of `sub`.
    fn fixed(&self, sub: &Subset) -> Vec<Option<bool>> {
        (0..self.game.spec.vars.len())
            .map(|v| {
                let (mut any, mut all) = (false, true);
                for &(w, m) in &sub.words {
                    let x = self.cols[v * self.nw + w] & m;
                    any |= x != 0;
                    all &= x == m;
                }
                if all {
                    Some(true)
                } else if !any {
                    Some(false)
                } else {
                    None
                }
            })
            .collect()
    }

    fn counts_at(&mut self, depth: usize) -> &mut DepthCounts {
        if self.depths.len() <= depth {
            self.depths.resize(depth + 1, DepthCounts::default());
        }
        &mut self.depths[depth]
    }

    /// The candidates at a node in table order, with their rows over
    /// `sub`.
    fn candidates(
        &mut self,
        sub: &Subset,
        history: &[(Instance, usize)],
        depth: usize,
    ) -> Result<Vec<(Instance, Vec<u8>)>, HybridError> {
        let table_mode =
            self.all.is_some() && (!self.opts.reduce || sub.codes.len() <= self.opts.switch);
        if table_mode {
            let n = self.all.as_ref().map_or(0, Vec::len);
            let mut out = Vec::with_capacity(n);
            for e in 0..n {
                let row = self.table_row(e);
                let cells = sub.codes.iter().map(|&c| row[c as usize]).collect();
                out.push((self.all.as_ref().expect("checked")[e].clone(), cells));
            }
            let d = self.counts_at(depth);
            d.table_nodes += 1;
            d.generated += n;
            d.distinct += n;
            d.kept += n;
            if depth == 0 {
                self.root = Counts {
                    total: Some(n as u64),
                    generated: n,
                    distinct: n,
                    kept: n,
                };
            }
            return Ok(out);
        }
        let fixed = self.fixed(sub);
        let codes = CodeSet::new(
            self.rows[0].len(),
            sub.codes.iter().map(|&c| self.rows[c as usize].clone()),
        );
        let mut state = self.reducer.state(fixed, history, Some(codes));
        let generated = self.reducer.phase1(&mut state, PHASE1_LIMIT).map_err(|_| {
            HybridError::TooManyExperiments {
                depth,
                limit: PHASE1_LIMIT,
            }
        })?;
        // Merge identical splits: the same parts, finals alike.
        let mut seen: HashMap<Vec<(bool, Vec<u64>)>, ()> = HashMap::new();
        let mut distinct: Vec<(Instance, Vec<Vec<u64>>)> = Vec::new();
        for exp in &generated {
            let parts = self.eval(exp, sub);
            let t = &self.game.spec.experiments[exp.ty];
            let mut key: Vec<(bool, Vec<u64>)> = parts
                .iter()
                .enumerate()
                .filter(|(_, p)| p.iter().any(|&x| x != 0))
                .map(|(o, p)| (t.is_final(o), p.clone()))
                .collect();
            key.sort_unstable();
            if seen.insert(key, ()).is_none() {
                distinct.push((exp.clone(), parts));
            }
        }
        let keep = if self.opts.phase2 {
            let groups: Vec<Vec<(bool, u32)>> = distinct
                .iter()
                .map(|(exp, parts)| {
                    let t = &self.game.spec.experiments[exp.ty];
                    let mut sig: Vec<(bool, u32)> = parts
                        .iter()
                        .enumerate()
                        .map(|(o, p)| (t.is_final(o), p.iter().map(|x| x.count_ones()).sum()))
                        .filter(|&(_, n)| n > 0)
                        .collect();
                    sig.sort_unstable();
                    sig
                })
                .collect();
            let exps: Vec<Instance> = distinct.iter().map(|(e, _)| e.clone()).collect();
            canon::phase2(&mut state, &exps, &groups)
        } else {
            vec![true; distinct.len()]
        };
        let counts = Counts {
            total: if depth == 0 {
                self.reducer.total(u64::MAX)
            } else {
                None
            },
            generated: generated.len(),
            distinct: distinct.len(),
            kept: keep.iter().filter(|&&k| k).count(),
        };
        if depth == 0 {
            self.root = counts;
        }
        let d = self.counts_at(depth);
        d.reduced_nodes += 1;
        d.generated += counts.generated;
        d.distinct += counts.distinct;
        d.kept += counts.kept;
        let mut out = Vec::with_capacity(counts.kept);
        for ((exp, _), k) in distinct.into_iter().zip(keep) {
            if k {
                let row = self.row_on(&exp, sub);
                out.push((exp, row));
            }
        }
        Ok(out)
    }

    /// The experiment to play on `codes` after `history`, with its
    /// outcomes on `codes`, or the code if the play is over.
    fn choose(
        &mut self,
        codes: &[u32],
        history: &[(Instance, usize)],
    ) -> Result<Result<(Instance, Vec<u8>), usize>, HybridError> {
        let sub = Subset::new(codes.to_vec());
        let cands = self.candidates(&sub, history, history.len())?;
        let spec = &self.game.spec;
        let experiments: Vec<Experiment> = cands.iter().map(|(e, _)| experiment(spec, e)).collect();
        let mut cells = Vec::with_capacity(cands.len() * codes.len());
        for (_, row) in &cands {
            cells.extend_from_slice(row);
        }
        let names = codes
            .iter()
            .map(|&c| self.names[c as usize].clone())
            .collect();
        let mut table = Table::new(
            self.game.name.clone(),
            names,
            experiments,
            self.outcomes.clone(),
            self.is_final.clone(),
            cells,
        );
        if needs_fixed(self.strategy) {
            let rows: Vec<Vec<bool>> = codes
                .iter()
                .map(|&c| self.codes[c as usize].clone())
                .collect();
            table = table.with_valuations(Valuations::new(spec.vars.clone(), &rows));
        }
        let local: Vec<u32> = (0..codes.len() as u32).collect();
        let choice = Planner::new(&table, self.strategy, self.ties)?.choose(&local)?;
        Ok(match choice {
            Choice::Known(k) => Err(codes[k] as usize),
            Choice::Play(e) => {
                let (exp, row) = cands
                    .into_iter()
                    .nth(e)
                    .expect("the planner chose a candidate");
                Ok((exp, row))
            }
        })
    }

    fn intern(&mut self, exp: &Instance) -> usize {
        if let Some(&i) = self.used_index.get(exp) {
            return i;
        }
        self.used.push(exp.clone());
        self.used_index.insert(exp.clone(), self.used.len() - 1);
        self.used.len() - 1
    }

    /// The local outcome index (within the type) of a global one.
    fn local(&self, ty: usize, o: u8) -> usize {
        self.global[ty].iter().position(|&g| g == o).unwrap_or(0)
    }

    /// The decision tree over every code.
    pub fn build(mut self, progress: &mut dyn FnMut(usize, usize)) -> Result<Built, HybridError> {
        let all: Vec<u32> = (0..self.codes.len() as u32).collect();
        let mut done = 0;
        let mut history = Vec::new();
        let tree = self.subtree(all, &mut history, &mut done, progress)?;
        let table = self.used_table();
        Ok(Built {
            table,
            tree,
            depths: self.depths,
            root: self.root,
        })
    }

    fn subtree(
        &mut self,
        s: Vec<u32>,
        history: &mut Vec<(Instance, usize)>,
        done: &mut usize,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Tree, HybridError> {
        let total = self.codes.len();
        let (exp, row) = match self.choose(&s, history)? {
            Err(code) => {
                *done += 1;
                progress(*done, total);
                return Ok(Tree::Leaf { code });
            }
            Ok(x) => x,
        };
        let e = self.intern(&exp);
        let mut parts: Vec<(u8, Vec<u32>)> = Vec::new();
        for (&c, &o) in s.iter().zip(&row) {
            match parts.iter_mut().find(|(x, _)| *x == o) {
                Some((_, p)) => p.push(c),
                None => parts.push((o, vec![c])),
            }
        }
        parts.sort_by_key(|(o, _)| *o);
        let mut children = Vec::with_capacity(parts.len());
        for (o, part) in parts {
            let child = if self.is_final[o as usize] {
                if part.len() != 1 {
                    return Err(StrategyError::FinalNotUnique {
                        experiment: exp.show(&self.game.spec),
                        outcome: self.outcomes[o as usize].clone(),
                        n: part.len(),
                    }
                    .into());
                }
                *done += 1;
                progress(*done, total);
                Tree::Leaf {
                    code: part[0] as usize,
                }
            } else {
                history.push((exp.clone(), self.local(exp.ty, o)));
                let t = self.subtree(part, history, done, progress);
                history.pop();
                t?
            };
            children.push((o, child));
        }
        Ok(Tree::Node {
            experiment: e,
            children,
        })
    }

    /// The table of the experiments used so far, over every code.
    fn used_table(&self) -> Table {
        let all = Subset::new((0..self.codes.len() as u32).collect());
        let mut cells = Vec::with_capacity(self.used.len() * self.codes.len());
        for exp in &self.used {
            cells.extend(self.row_on(exp, &all));
        }
        let spec = &self.game.spec;
        Table::new(
            self.game.name.clone(),
            self.names.clone(),
            self.used.iter().map(|e| experiment(spec, e)).collect(),
            self.outcomes.clone(),
            self.is_final.clone(),
            cells,
        )
        .with_valuations(Valuations::new(spec.vars.clone(), &self.codes))
    }

    /// One play against the code named `secret`.
    pub fn play(&mut self, secret: &str) -> Result<Vec<Step>, HybridError> {
        let wanted: String = secret.split_whitespace().collect();
        let code = self
            .names
            .iter()
            .position(|c| *c == wanted)
            .ok_or_else(|| HybridError::UnknownCode(secret.to_string()))?;
        let mut s: Vec<u32> = (0..self.codes.len() as u32).collect();
        let mut history = Vec::new();
        let mut steps = Vec::new();
        while let Ok((exp, row)) = self.choose(&s, &history)? {
            let k = s
                .iter()
                .position(|&c| c as usize == code)
                .expect("the secret stays");
            let o = row[k];
            s = s
                .iter()
                .zip(&row)
                .filter(|&(_, &x)| x == o)
                .map(|(&c, _)| c)
                .collect();
            let counts = self
                .depths
                .get(history.len())
                .map_or(Counts::default(), |d| Counts {
                    total: None,
                    generated: d.generated,
                    distinct: d.distinct,
                    kept: d.kept,
                });
            history.push((exp.clone(), self.local(exp.ty, o)));
            steps.push(Step {
                experiment: exp,
                outcome: o,
                remaining: s.len(),
                counts,
            });
            if self.is_final[o as usize] {
                break;
            }
        }
        Ok(steps)
    }
}

/// An instance as a table experiment.
fn experiment(spec: &Spec, e: &Instance) -> Experiment {
    let t = &spec.experiments[e.ty];
    Experiment {
        kind: t.name.as_str().into(),
        params: e
            .params
            .iter()
            .map(|&s| spec.alphabet[s as usize].as_str().into())
            .collect(),
    }
}

#[cfg(test)]
mod tests;
