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
//! Nodes with more than [`Options::symbolic_above`] codes still possible
//! are worked *symbolically* (the `symbolic` module): the knowledge is a formula,
//! phase 1 and 2 work from its fixed variables (backbone) and history,
//! and every outcome of every kept experiment is counted exactly by
//! #SAT, so no code is listed. A game with more than
//! [`explicit::MAX_CODES`] codes (Mastermind 8x8) starts there (plays
//! only: `game play`), and once few codes remain they are listed through
//! SAT and the play goes on as below.
//!
//! Listed codes are held as one bit column per variable, so an
//! experiment's outcomes on a set of codes are evaluated 64 codes at a
//! time from its type's normalised outcome templates. At a node with
//! code set S:
//! * *reduced*: phase 1 generates candidates from the knowledge (fixed
//!   variables of S, the history, S itself for the symmetry checks);
//!   candidates splitting S identically (the same parts, whatever their
//!   outcome names, finals alike) are merged; phase 2 merges equivalent
//!   ones among those with equal part sizes;
//! * *table*: when the game's experiments fit in an explicit table (built
//!   once, on first use) and scanning it over S is estimated cheaper than
//!   evaluating phase 1's candidates on S ([`TableUse::Auto`]: as symmetry
//!   breaks down, phase 1 keeps more and more, and S gets small), every
//!   experiment, as in the explicit engine.
//!
//! Either way the candidates, in table order, go into a small [`Table`]
//! over S and [`Planner::choose`] picks one, so ranks and tie rules are
//! exactly those of the explicit engine; because reduction keeps the
//! first experiment of every class (see `reduce`), the tree is the one
//! the explicit engine builds on the full table. The switch point comes
//! from measured costs ([`NS_TABLE_CELL`] and friends).

use std::collections::HashMap;

use thiserror::Error;

use super::explicit::{self, ExplicitError};
use super::knowledge::{Instance, Knowledge, KnowledgeError};
use super::reduce::norm::{Arena, Node, NodeId};
use super::reduce::{canon, CodeSet, Counts, Reducer};
use super::spec::{CardKind, Formula, Spec};
use super::strategy::{Choice, Planner, Strategy, StrategyError, Ties};
use super::table::{Experiment, Table, Valuations};
use super::tree::Tree;
use super::Game;

/// Measured costs (release build, this machine) of the two ways to
/// work at a node, in nanoseconds: evaluating one template node on one
/// word of codes, the fixed cost of one reduced candidate (evaluation
/// set-up, merging, its row), and one cell of the explicit table scanned
/// by the planner. See `scripts/bench-reduce.sh --calibrate`.
pub const NS_NODE_WORD: f64 = 2.0;
pub const NS_CANDIDATE: f64 = 400.0;
pub const NS_TABLE_CELL: f64 = 1.5;

/// The switch point of a play on a game too big to list: the codes
/// still possible are listed (through SAT) once at most this many
/// remain, and the play goes on explicitly.
///
/// Measured (`scripts/calibrate-hybrid.sh`, release, max-models, one
/// node's choice; machine shared, load about 10 on 2 cores):
///
/// | game | depth | codes | symbolic ms | listing ms | explicit ms |
/// |---|---|---|---|---|---|
/// | mastermind:4x6 | 0 | 1296 | 84 | 82 | 18 |
/// | mastermind:4x6 | 1 | 256 | 351 | 79 | 2 |
/// | mastermind:4x6 | 1 | 114 | 443 | 37 | 2 |
/// | mastermind:4x6 | 2 | 34 | 2884 | 22 | 12 |
/// | mastermind:4x6 | 3 | 6 | 15482 | 13 | 2 |
/// | mastermind:5x6 | 0 | 7776 | 373 | 635 | 47 |
/// | mastermind:5x6 | 1 | 1290 | 164796 | 413 | 134 |
/// | mastermind:5x6 | 1 | 381 | 61362 | 12 | 14 |
/// | mastermind:5x6 | 2 | 24 | 5695 | 23 | 25 |
///
/// The symbolic side wins only at the root, where symmetry keeps a
/// handful of experiments (5x6: 373 ms against 682 ms to list and
/// choose, listing about 80 µs a code); one experiment later phase 1
/// without the code set keeps hundreds, each counted outcome by
/// outcome, and it is 100 to 1000 times slower than listing the codes
/// and choosing on them. So a play lists as soon as the codes fit
/// ([`explicit::MAX_CODES`]); and on listed codes the explicit side is
/// faster at every node measured (hence [`Options::symbolic_above`]
/// defaults to never).
pub const LIST_AT: usize = explicit::MAX_CODES;

/// At most this many cells in a table of every experiment on one node's
/// codes (when the table on every code does not fit).
pub const LOCAL_CELLS: usize = 1 << 24;

/// At most this many experiments in an explicit table.
pub const TABLE_EXPERIMENTS: u64 = 1 << 16;

/// The root's count of every experiment stops here (`None`: more).
pub const TOTAL_CAP: u64 = 100_000;

/// Phase 2 runs at a node only if at most this many experiments share
/// their part sizes with another (each needs a canonical form, about a
/// millisecond on the coin games' graphs); else the node keeps every
/// distinct split, which changes no choice (phase 2 only merges
/// experiments that rank alike).
pub const PHASE2_BUDGET: usize = 2000;

/// Phase 1 gives up at a node past this many experiments.
pub const PHASE1_LIMIT: usize = 1 << 22;

/// When to work on the explicit table rather than on reduced sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableUse {
    /// When its estimated cost (experiments × codes × [`NS_TABLE_CELL`])
    /// is below the reduced set's (candidates × (template nodes × words ×
    /// [`NS_NODE_WORD`] + [`NS_CANDIDATE`])); the switch point.
    Auto,
    Never,
    /// Whenever the game has one.
    Always,
}

/// How the engine works.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Reduce experiments by symmetry (else: the explicit table at every
    /// node, which needs one).
    pub reduce: bool,
    /// Use phase 2 (canonical graphs) after phase 1.
    pub phase2: bool,
    pub table: TableUse,
    /// Nodes with more codes still possible than this are worked
    /// symbolically, by model counting with the SAT knowledge, even when
    /// the codes are listed (default: never; measured slower at every
    /// node, see [`LIST_AT`]; tests force it to check both sides agree).
    /// Only with `reduce`.
    pub symbolic_above: usize,
    /// A play on a game too big to list (more than
    /// [`explicit::MAX_CODES`] codes) is symbolic until at most this many
    /// codes remain (or `symbolic_above`, if smaller), then lists them.
    pub list_at: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            reduce: true,
            phase2: true,
            table: TableUse::Auto,
            symbolic_above: usize::MAX,
            list_at: LIST_AT,
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
    #[error(transparent)]
    Knowledge(#[from] KnowledgeError),
    #[error("no experiment tells the codes still possible apart after {depth} experiments")]
    NoUsefulExperiment { depth: usize },
}

/// Experiments at one depth of the tree, summed over its nodes.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DepthCounts {
    /// Nodes worked on reduced experiment sets.
    pub reduced_nodes: usize,
    /// Nodes worked on the explicit table.
    pub table_nodes: usize,
    /// Of the reduced nodes, those worked symbolically (counting).
    pub symbolic_nodes: usize,
    /// Experiments in all (table nodes: every experiment).
    pub generated: usize,
    /// After merging identical splits.
    pub distinct: usize,
    /// After phase 2.
    pub kept: usize,
    /// Nodes where phase 2 was skipped (over [`PHASE2_BUDGET`]).
    pub phase2_skipped: usize,
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

/// Split keys seen at a node, hashed with FxHash (the keys are bitsets,
/// not attacker-chosen).
type SplitKeys = rustc_hash::FxHashSet<Vec<(bool, Vec<u64>)>>;

/// An operation of a compiled template; operands are earlier slots.
#[derive(Clone, Debug)]
enum Op {
    Const(bool),
    Var(usize),
    Param {
        map: usize,
        pos: usize,
    },
    Not(usize),
    And(Vec<usize>),
    Or(Vec<usize>),
    Iff(usize, usize),
    Card {
        kind: CardKind,
        k: usize,
        args: Vec<usize>,
    },
}

/// One type's outcome templates as a straight-line program.
#[derive(Clone, Debug)]
struct Program {
    ops: Vec<Op>,
    /// The slot of each outcome.
    roots: Vec<usize>,
}

impl Program {
    fn new(spec: &Spec, ty: usize) -> Program {
        let mut arena = Arena::new();
        let roots: Vec<NodeId> = spec.experiments[ty]
            .outcomes
            .iter()
            .map(|o| {
                arena.build(&o.formula, &mut |a, leaf| match leaf {
                    Formula::Var(v) => a.var(v.0, &[]),
                    Formula::Map { map, param } => a.param(map.0, *param),
                    _ => unreachable!("build only asks for leaves"),
                })
            })
            .collect();
        let order = arena.reachable(&roots);
        let slot: HashMap<NodeId, usize> = order.iter().enumerate().map(|(i, &n)| (n, i)).collect();
        let list = |xs: &[NodeId]| xs.iter().map(|x| slot[x]).collect::<Vec<_>>();
        let ops = order
            .iter()
            .map(|&id| match arena.node(id) {
                Node::Const(b) => Op::Const(*b),
                Node::Var(v) => Op::Var(*v as usize),
                Node::Param { map, pos } => Op::Param {
                    map: *map as usize,
                    pos: *pos as usize,
                },
                Node::Not(x) => Op::Not(slot[x]),
                Node::And(xs) => Op::And(list(xs)),
                Node::Or(xs) => Op::Or(list(xs)),
                Node::Iff([x, y]) => Op::Iff(slot[x], slot[y]),
                Node::Card { kind, k, args } => Op::Card {
                    kind: *kind,
                    k: *k as usize,
                    args: list(args),
                },
            })
            .collect();
        Program {
            ops,
            roots: roots.iter().map(|r| slot[r]).collect(),
        }
    }
}

/// The engine for one game and strategy.
pub struct Engine<'g> {
    game: &'g Game,
    reducer: std::rc::Rc<Reducer<'g>>,
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
    programs: Vec<Program>,
    /// Scratch space for evaluation.
    scratch: std::cell::RefCell<Vec<u64>>,
    outcomes: Vec<String>,
    is_final: Vec<bool>,
    /// `global[t][o]`: the global index of outcome `o` of type `t`.
    global: Vec<Vec<u8>>,
    /// Every experiment, if the game has an explicit table.
    all: Option<Vec<Instance>>,
    /// The explicit table of `all`, built on first use.
    full: Option<Table>,
    used: Vec<Instance>,
    used_index: HashMap<Instance, usize>,
    depths: Vec<DepthCounts>,
    root: Counts,
    /// The SAT knowledge of the symbolic side, made on first use.
    knowledge: Option<Knowledge<'g>>,
    /// The codes were too many to list: only plays, symbolic at first.
    lazy: bool,
    /// The explicit table of every experiment on every code fits
    /// ([`explicit::MAX_CELLS`]); else table nodes build a table of every
    /// experiment on their own codes only (at most [`LOCAL_CELLS`]).
    full_fits: bool,
}

/// Code columns (`cols[v * nw + w]`) and packed rows of `codes`.
fn columns(codes: &[Vec<bool>], nv: usize) -> (usize, Vec<u64>, Vec<Vec<u64>>) {
    let n = codes.len();
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
    (nw, cols, rows)
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
        let (codes, lazy) = match explicit::codes(spec, explicit::MAX_CODES) {
            Ok(codes) => (codes, false),
            Err(ExplicitError::TooManyCodes) if opts.reduce => (Vec::new(), true),
            Err(e) => return Err(e.into()),
        };
        let n = if lazy {
            explicit::MAX_CODES + 1
        } else {
            codes.len()
        };
        let (nw, cols, rows) = columns(&codes, spec.vars.len());
        let names = codes.iter().map(|c| game.code_name(c)).collect();
        let (outcomes, is_final, global) = outcome_numbering(spec)?;
        let total = Reducer::new(spec).total(TABLE_EXPERIMENTS);
        let full_fits = total.is_some_and(|t| t as usize * n <= explicit::MAX_CELLS);
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
        if !opts.reduce && !full_fits {
            return Err(HybridError::NoTable(format!(
                "more than {TABLE_EXPERIMENTS}"
            )));
        }
        Ok(Engine {
            game,
            reducer: std::rc::Rc::new(Reducer::new(spec)),
            strategy,
            ties,
            opts,
            codes,
            names,
            nw,
            cols,
            rows,
            programs: (0..spec.experiments.len())
                .map(|t| Program::new(spec, t))
                .collect(),
            scratch: std::cell::RefCell::new(Vec::new()),
            outcomes,
            is_final,
            global,
            all,
            full: None,
            used: Vec::new(),
            used_index: HashMap::new(),
            depths: Vec::new(),
            root: Counts::default(),
            knowledge: None,
            lazy,
            full_fits,
        })
    }

    /// Replaces the listed codes (a lazy play's codes still possible,
    /// once few remain).
    fn load_codes(&mut self, codes: Vec<Vec<bool>>) {
        let (nw, cols, rows) = columns(&codes, self.game.spec.vars.len());
        self.names = codes.iter().map(|c| self.game.code_name(c)).collect();
        (self.nw, self.cols, self.rows, self.codes) = (nw, cols, rows, codes);
        self.full = None;
        self.lazy = false;
        self.full_fits = self
            .all
            .as_ref()
            .is_some_and(|a| a.len() * self.codes.len() <= explicit::MAX_CELLS);
    }

    /// Whether the codes are too many to list (plays only).
    pub fn is_lazy(&self) -> bool {
        self.lazy
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
        let prog = &self.programs[exp.ty];
        let a = sub.words.len();
        let mut vals = self.scratch.borrow_mut();
        vals.clear();
        vals.resize(prog.ops.len() * a, 0);
        let mut at: Vec<u64> = Vec::new();
        let col = |v: usize, i: usize| self.cols[v * self.nw + sub.words[i].0];
        for (k, op) in prog.ops.iter().enumerate() {
            let (done, rest) = vals.split_at_mut(k * a);
            let out = &mut rest[..a];
            let get = |x: usize| &done[x * a..(x + 1) * a];
            match op {
                Op::Const(b) => out.fill(if *b { u64::MAX } else { 0 }),
                Op::Var(v) => (0..a).for_each(|i| out[i] = col(*v, i)),
                Op::Param { map, pos } => {
                    let sym = exp.params[*pos] as usize;
                    let v = spec.mappings[*map].targets[sym].index();
                    (0..a).for_each(|i| out[i] = col(v, i));
                }
                Op::Not(x) => {
                    let x = get(*x);
                    (0..a).for_each(|i| out[i] = !x[i]);
                }
                Op::And(xs) => {
                    out.fill(u64::MAX);
                    for &x in xs {
                        let x = get(x);
                        (0..a).for_each(|i| out[i] &= x[i]);
                    }
                }
                Op::Or(xs) => {
                    out.fill(0);
                    for &x in xs {
                        let x = get(x);
                        (0..a).for_each(|i| out[i] |= x[i]);
                    }
                }
                Op::Iff(x, y) => {
                    let (x, y) = (get(*x), get(*y));
                    (0..a).for_each(|i| out[i] = !(x[i] ^ y[i]));
                }
                Op::Card { kind, k, args } => {
                    // at[j]: codes with at least j true operands so far.
                    let k = *k;
                    at.clear();
                    at.resize((k + 2) * a, 0);
                    at[..a].fill(u64::MAX);
                    for &x in args {
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
        prog.roots
            .iter()
            .map(|&r| {
                let v = &vals[r * a..(r + 1) * a];
                v.iter().zip(&sub.words).map(|(x, (_, m))| x & m).collect()
            })
            .collect()
    }

    /// The global outcome of `exp` on every code of `sub`, in `sub` order.
    fn row_on(&self, exp: &Instance, sub: &Subset) -> Vec<u8> {
        let parts = self.eval(exp, sub);
        self.row_of(exp, &parts, sub)
    }

    /// [`Engine::row_on`] from the outcome bitsets (codes in `sub` are
    /// ascending, so a code's place is the members before it).
    fn row_of(&self, exp: &Instance, parts: &[Vec<u64>], sub: &Subset) -> Vec<u8> {
        let mut base = Vec::with_capacity(sub.words.len());
        let mut n = 0;
        for &(_, m) in &sub.words {
            base.push(n);
            n += m.count_ones() as usize;
        }
        let mut row = vec![0u8; n];
        for (o, p) in parts.iter().enumerate() {
            let g = self.global[exp.ty][o];
            for (i, &bits) in p.iter().enumerate() {
                let m = sub.words[i].1;
                let mut b = bits;
                while b != 0 {
                    let bit = b.trailing_zeros();
                    let below = m & ((1u64 << bit) - 1);
                    row[base[i] + below.count_ones() as usize] = g;
                    b &= b - 1;
                }
            }
        }
        row
    }

    /// The explicit table of every experiment (built on first use).
    fn full_table(&mut self) -> &Table {
        if self.full.is_none() {
            let all = self.all.as_ref().expect("only called with a table");
            let every = Subset::new((0..self.codes.len() as u32).collect());
            let mut cells = Vec::with_capacity(all.len() * self.codes.len());
            for exp in all {
                cells.extend(self.row_on(exp, &every));
            }
            let spec = &self.game.spec;
            let mut table = Table::new(
                self.game.name.clone(),
                self.names.clone(),
                all.iter().map(|e| experiment(spec, e)).collect(),
                self.outcomes.clone(),
                self.is_final.clone(),
                cells,
            );
            if needs_fixed(self.strategy) {
                table = table.with_valuations(Valuations::new(spec.vars.clone(), &self.codes));
            }
            self.full = Some(table);
        }
        self.full.as_ref().expect("just built")
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

    fn record(&mut self, depth: usize, counts: Counts, table: bool) {
        if depth == 0 {
            self.root = counts;
        }
        let d = self.counts_at(depth);
        if table {
            d.table_nodes += 1;
        } else {
            d.reduced_nodes += 1;
        }
        d.generated += counts.generated;
        d.distinct += counts.distinct;
        d.kept += counts.kept;
    }

    /// The experiment to play on `codes` after `history`, with its
    /// outcomes on `codes`, or the code if the play is over.
    #[allow(clippy::type_complexity)]
    ///
    /// Once a node works on the table, its descendants do too (`table`
    /// in and out): symmetry only breaks further down, and the sets only
    /// get smaller.
    fn choose(
        &mut self,
        codes: &[u32],
        history: &[(Instance, usize)],
        table: &mut bool,
    ) -> Result<Result<(Instance, Vec<u8>), usize>, HybridError> {
        let depth = history.len();
        if self.opts.reduce && codes.len() > self.opts.symbolic_above.max(1) {
            let exp = self.choose_symbolic(history)?;
            let row = self.row_on(&exp, &Subset::new(codes.to_vec()));
            return Ok(Ok((exp, row)));
        }
        if !self.opts.reduce || (*table && self.opts.table != TableUse::Never) {
            *table = true;
            return self.choose_table(codes, depth);
        }
        let sub = Subset::new(codes.to_vec());
        let fixed = self.fixed(&sub);
        let rows = CodeSet::new(
            self.rows[0].len(),
            codes.iter().map(|&c| self.rows[c as usize].clone()),
        );
        let reducer = self.reducer.clone();
        let mut state = reducer.state(fixed, history, Some(rows));
        let overflow = |_| HybridError::TooManyExperiments {
            depth,
            limit: PHASE1_LIMIT,
        };
        if self.all.is_none() || self.opts.table == TableUse::Never {
            // No table to fall back on: merge as phase 1 goes, keeping
            // only distinct splits.
            let mut seen = SplitKeys::default();
            let mut distinct = Vec::new();
            let mut generated = 0;
            reducer
                .phase1_each(&mut state, &mut |exp| {
                    generated += 1;
                    if generated > PHASE1_LIMIT {
                        return Err(crate::game::reduce::Overflow);
                    }
                    self.merge(exp, &sub, &mut seen, &mut distinct);
                    Ok(())
                })
                .map_err(overflow)?;
            return self.choose_reduced(state, generated, distinct, &sub, depth);
        }
        let generated = reducer.phase1(&mut state, PHASE1_LIMIT).map_err(overflow)?;
        let n_all = self.all.as_ref().map(Vec::len);
        let use_table = match (self.opts.table, n_all) {
            (_, None) | (TableUse::Never, _) => false,
            (_, Some(n)) if !self.full_fits && n * codes.len() > LOCAL_CELLS => false,
            (TableUse::Always, Some(_)) => true,
            (TableUse::Auto, Some(n)) => {
                let words = sub.words.len() as f64;
                let eval = |ty: usize| self.programs[ty].ops.len() as f64 * words * NS_NODE_WORD;
                let reduced: f64 = generated.iter().map(|e| eval(e.ty) + NS_CANDIDATE).sum();
                // A local table first evaluates every experiment on S.
                let build: f64 = if self.full_fits {
                    0.0
                } else {
                    let ops: f64 = self
                        .programs
                        .iter()
                        .map(|p| p.ops.len() as f64)
                        .sum::<f64>()
                        / self.programs.len().max(1) as f64;
                    n as f64 * ops * words * NS_NODE_WORD
                };
                build + (n * codes.len()) as f64 * NS_TABLE_CELL <= reduced
            }
        };
        if use_table {
            *table = true;
            return self.choose_table(codes, depth);
        }
        let mut seen = SplitKeys::default();
        let mut distinct = Vec::new();
        let n = generated.len();
        for exp in generated {
            self.merge(exp, &sub, &mut seen, &mut distinct);
        }
        self.choose_reduced(state, n, distinct, &sub, depth)
    }

    /// Adds `exp` to `distinct` unless an earlier experiment splits `sub`
    /// the same way (the same parts, finals alike, names aside).
    fn merge(
        &self,
        exp: Instance,
        sub: &Subset,
        seen: &mut SplitKeys,
        distinct: &mut Vec<(Instance, Vec<Vec<u64>>)>,
    ) {
        let parts = self.eval(&exp, sub);
        let t = &self.game.spec.experiments[exp.ty];
        let mut key: Vec<(bool, Vec<u64>)> = parts
            .iter()
            .enumerate()
            .filter(|(_, p)| p.iter().any(|&x| x != 0))
            .map(|(o, p)| (t.is_final(o), p.clone()))
            .collect();
        key.sort_unstable();
        if seen.insert(key) {
            distinct.push((exp, parts));
        }
    }

    fn choose_table(
        &mut self,
        codes: &[u32],
        depth: usize,
    ) -> Result<Result<(Instance, Vec<u8>), usize>, HybridError> {
        let n = self.all.as_ref().map_or(0, Vec::len);
        self.record(
            depth,
            Counts {
                total: Some(n as u64),
                generated: n,
                distinct: n,
                kept: n,
            },
            true,
        );
        if !self.full_fits {
            return self.choose_local_table(codes);
        }
        let (strategy, ties) = (self.strategy, self.ties);
        let table = self.full_table();
        let choice = Planner::new(table, strategy, ties)?.choose(codes)?;
        Ok(match choice {
            Choice::Known(c) => Err(c),
            Choice::Play(e) => {
                let row = codes
                    .iter()
                    .map(|&c| table.outcome(e, c as usize))
                    .collect();
                let exp = self.all.as_ref().expect("a table has every experiment")[e].clone();
                Ok((exp, row))
            }
        })
    }

    /// [`Engine::choose_table`] on a table of every experiment over
    /// `codes` alone (the table over every code does not fit).
    fn choose_local_table(
        &mut self,
        codes: &[u32],
    ) -> Result<Result<(Instance, Vec<u8>), usize>, HybridError> {
        let all = self
            .all
            .as_ref()
            .expect("only called with every experiment");
        let sub = Subset::new(codes.to_vec());
        let mut cells = Vec::with_capacity(all.len() * codes.len());
        for exp in all {
            cells.extend(self.row_on(exp, &sub));
        }
        let table = self.blank_table(codes, all.len(), cells);
        let local: Vec<u32> = (0..codes.len() as u32).collect();
        let choice = Planner::new(&table, self.strategy, self.ties)?.choose(&local)?;
        Ok(match choice {
            Choice::Known(k) => Err(codes[k] as usize),
            Choice::Play(e) => Ok((all[e].clone(), table.row(e).to_vec())),
        })
    }

    fn choose_reduced(
        &mut self,
        mut state: crate::game::reduce::State,
        generated: usize,
        distinct: Vec<(Instance, Vec<Vec<u64>>)>,
        sub: &Subset,
        depth: usize,
    ) -> Result<Result<(Instance, Vec<u8>), usize>, HybridError> {
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
            match canon::phase2(&mut state, &exps, &groups, PHASE2_BUDGET) {
                Some(keep) => keep,
                None => {
                    self.counts_at(depth).phase2_skipped += 1;
                    vec![true; distinct.len()]
                }
            }
        } else {
            vec![true; distinct.len()]
        };
        let counts = Counts {
            total: if depth == 0 {
                self.reducer.total(TOTAL_CAP)
            } else {
                None
            },
            generated,
            distinct: distinct.len(),
            kept: keep.iter().filter(|&&k| k).count(),
        };
        self.record(depth, counts, false);
        let n = sub.codes.len();
        let mut kept = Vec::with_capacity(counts.kept);
        let mut cells = Vec::with_capacity(counts.kept * n);
        for ((exp, parts), k) in distinct.into_iter().zip(keep) {
            if k {
                cells.extend(self.row_of(&exp, &parts, sub));
                kept.push(exp);
            }
        }
        // The planner reads experiment names only for errors it cannot
        // meet here; blank ones cost nothing.
        let table = self.blank_table(&sub.codes, kept.len(), cells);
        let local: Vec<u32> = (0..n as u32).collect();
        let choice = Planner::new(&table, self.strategy, self.ties)?.choose(&local)?;
        Ok(match choice {
            Choice::Known(k) => Err(sub.codes[k] as usize),
            Choice::Play(e) => {
                let row = table.row(e).to_vec();
                Ok((kept.swap_remove(e), row))
            }
        })
    }

    /// A table over `codes` (indices into the listed codes) with `n`
    /// unnamed experiments whose outcomes are `cells` (row-major, one row
    /// per experiment): the planner ranks by outcomes, so names are not
    /// needed; valuations are attached when the strategy reads fixed
    /// variables.
    fn blank_table(&self, codes: &[u32], n: usize, cells: Vec<u8>) -> Table {
        let blank = || Experiment {
            kind: "".into(),
            params: Vec::new(),
        };
        let names = codes
            .iter()
            .map(|&c| self.names[c as usize].clone())
            .collect();
        let table = Table::new(
            self.game.name.clone(),
            names,
            (0..n).map(|_| blank()).collect(),
            self.outcomes.clone(),
            self.is_final.clone(),
            cells,
        );
        if !needs_fixed(self.strategy) {
            return table;
        }
        let rows: Vec<Vec<bool>> = codes
            .iter()
            .map(|&c| self.codes[c as usize].clone())
            .collect();
        table.with_valuations(Valuations::new(self.game.spec.vars.clone(), &rows))
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
        if self.lazy {
            return Err(ExplicitError::TooManyCodes.into());
        }
        let all: Vec<u32> = (0..self.codes.len() as u32).collect();
        let mut done = 0;
        let mut history = Vec::new();
        let tree = self.subtree(all, &mut history, false, &mut done, progress)?;
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
        mut table: bool,
        done: &mut usize,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Tree, HybridError> {
        let total = self.codes.len();
        let (exp, row) = match self.choose(&s, history, &mut table)? {
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
                let t = self.subtree(part, history, table, done, progress);
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
        if self.lazy {
            return self.play_lazy(secret);
        }
        let wanted: String = secret.split_whitespace().collect();
        let code = self
            .names
            .iter()
            .position(|c| *c == wanted)
            .ok_or_else(|| HybridError::UnknownCode(secret.to_string()))?;
        let s: Vec<u32> = (0..self.codes.len() as u32).collect();
        self.play_from(code, s, Vec::new(), Vec::new())
    }

    /// The counts recorded at `depth` (a play has one node per depth).
    fn step_counts(&self, depth: usize) -> Counts {
        self.depths
            .get(depth)
            .map_or(Counts::default(), |d| Counts {
                total: None,
                generated: d.generated,
                distinct: d.distinct,
                kept: d.kept,
            })
    }

    /// A play against listed code `code` from the codes `s` after
    /// `history` (with its `steps` so far).
    fn play_from(
        &mut self,
        code: usize,
        mut s: Vec<u32>,
        mut history: Vec<(Instance, usize)>,
        mut steps: Vec<Step>,
    ) -> Result<Vec<Step>, HybridError> {
        let mut table = false;
        while let Ok((exp, row)) = self.choose(&s, &history, &mut table)? {
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
            let counts = self.step_counts(history.len());
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

mod symbolic;

#[cfg(test)]
mod tests;
