//! The symbolic side of the hybrid engine: one-step strategies while too
//! many codes remain to list them, with the SAT knowledge.
//!
//! Input: the history of a node (experiment, outcome within its type).
//! Output: the experiment the strategy plays there, chosen among phase 1
//! and phase 2's experiments by exact model counts (#SAT,
//! [`Knowledge::count_exact`]) of every outcome, and backbones for the
//! fixed-variable strategies; or, for a play, every step until few codes
//! remain ([`Options::list_at`](super::Options::list_at)), when the codes still possible
//! are listed and the explicit side takes over.
//!
//! Ranks, usefulness, possibility and tie rules are the planner's
//! (`strategy`), computed from counts instead of a table, so a node gives
//! the same choice on either side (tested by forcing this side on small
//! games). What each strategy needs counted: every outcome but the last
//! (the last is N minus the others); max-models, exp-models and
//! ent-models stop counting a candidate as soon as its partial rank is
//! strictly worse than the best so far (ranks only grow as parts are
//! added), so only the winner is counted in full; first-possible stops at
//! the first useful, possible candidate; parts and the fixed strategies
//! count everything (min-fixed and exp-fixed also take one backbone per
//! non-empty part).

use std::cmp::Ordering;

use rustsat::types::Lit;

use super::{Engine, HybridError, Step, PHASE1_LIMIT, PHASE2_BUDGET};
use crate::game::explicit;
use crate::game::knowledge::{sort_codes, Instance, Knowledge};
use crate::game::reduce::{canon, Counts};
use crate::game::strategy::{ent_tolerance, exact, Strategy, Ties};

/// A rank from counts (smaller is better), as the planner's.
#[derive(Clone, Debug)]
enum Rank {
    Int(i128),
    /// Σ n ln n and the sorted sizes for exact comparison.
    Ent(f64, Vec<u32>),
}

fn compare(a: &Rank, b: &Rank) -> Ordering {
    match (a, b) {
        (Rank::Int(x), Rank::Int(y)) => x.cmp(y),
        (Rank::Ent(x, sx), Rank::Ent(y, sy)) => {
            if (x - y).abs() > ent_tolerance(*x, *y) || sx.is_empty() || sy.is_empty() {
                return x.total_cmp(y);
            }
            exact::compare_nlogn(sx, sy)
        }
        _ => Ordering::Equal,
    }
}

fn nlogn(n: u128) -> f64 {
    if n == 0 {
        0.0
    } else {
        let x = n as f64;
        x * x.ln()
    }
}

/// The partial rank of the parts counted so far is strictly worse than
/// `best`: the candidate cannot win (ranks only grow).
fn hopeless(strategy: Strategy, sizes: &[u128], best: Option<&Rank>) -> bool {
    let Some(best) = best else {
        return false;
    };
    match (strategy, best) {
        (Strategy::MaxModels, Rank::Int(b)) => sizes.iter().any(|&n| n as i128 > *b),
        (Strategy::ExpModels, Rank::Int(b)) => {
            sizes.iter().map(|&n| (n * n) as i128).sum::<i128>() > *b
        }
        (Strategy::EntModels, Rank::Ent(b, _)) => {
            let v: f64 = sizes.iter().map(|&n| nlogn(n)).sum();
            v > b + ent_tolerance(v, *b)
        }
        _ => false,
    }
}

/// One candidate, counted.
struct Counted {
    sizes: Vec<u128>,
    /// Fixed variables per part (fixed strategies only).
    fixed: Vec<u64>,
}

impl Counted {
    fn rank(&self, strategy: Strategy) -> Rank {
        let parts = || self.sizes.iter().copied().filter(|&n| n > 0);
        let with_fixed = || {
            self.sizes
                .iter()
                .zip(&self.fixed)
                .filter(|(&n, _)| n > 0)
                .map(|(&n, &f)| (n, f))
        };
        match strategy {
            Strategy::FirstPossible => Rank::Int(0),
            Strategy::MaxModels => Rank::Int(parts().max().unwrap_or(0) as i128),
            Strategy::ExpModels => Rank::Int(parts().map(|n| (n * n) as i128).sum()),
            Strategy::Parts => Rank::Int(-(parts().count() as i128)),
            Strategy::MinFixed => {
                Rank::Int(-(with_fixed().map(|(_, f)| f).min().unwrap_or(0) as i128))
            }
            Strategy::ExpFixed => Rank::Int(
                -with_fixed()
                    .map(|(n, f)| (n as i128) * f as i128)
                    .sum::<i128>(),
            ),
            Strategy::EntModels => {
                let mut exact: Vec<u32> = Vec::new();
                for n in parts() {
                    match u32::try_from(n) {
                        Ok(n) => exact.push(n),
                        Err(_) => {
                            exact.clear();
                            break;
                        }
                    }
                }
                exact.sort_unstable();
                Rank::Ent(parts().map(nlogn).sum(), exact)
            }
        }
    }
}

impl<'g> Engine<'g> {
    pub(super) fn knowledge(&mut self) -> Result<&mut Knowledge<'g>, HybridError> {
        if self.knowledge.is_none() {
            self.knowledge = Some(Knowledge::new(&self.game.spec)?);
        }
        Ok(self.knowledge.as_mut().expect("just made"))
    }

    /// The literals of a history's outcomes.
    pub(super) fn history_lits(
        &mut self,
        history: &[(Instance, usize)],
    ) -> Result<Vec<Lit>, HybridError> {
        let k = self.knowledge()?;
        Ok(history.iter().map(|(e, o)| k.outcome_lit(e, *o)).collect())
    }

    /// The number of codes still possible after `history`, by counting.
    pub(super) fn count_after(
        &mut self,
        history: &[(Instance, usize)],
    ) -> Result<u128, HybridError> {
        let lits = self.history_lits(history)?;
        Ok(self.knowledge()?.count_exact(&lits))
    }

    /// The experiment the strategy plays after `history` (at least two
    /// codes still possible), chosen by counting.
    pub(super) fn choose_symbolic(
        &mut self,
        history: &[(Instance, usize)],
    ) -> Result<Instance, HybridError> {
        let depth = history.len();
        let hist = self.history_lits(history)?;
        let k = self.knowledge()?;
        let n = k.count_exact(&hist);
        let fixed = k.backbone_under(&hist)?;
        let reducer = self.reducer.clone();
        let mut state = reducer.state(fixed, history, None);
        let generated = reducer.phase1(&mut state, PHASE1_LIMIT).map_err(|_| {
            HybridError::TooManyExperiments {
                depth,
                limit: PHASE1_LIMIT,
            }
        })?;
        let keep = if self.opts.phase2 {
            let groups = vec![(); generated.len()];
            canon::phase2(&mut state, &generated, &groups, PHASE2_BUDGET)
        } else {
            None
        };
        if self.opts.phase2 && keep.is_none() {
            self.counts_at(depth).phase2_skipped += 1;
        }
        let n_generated = generated.len();
        let cands: Vec<Instance> = match keep {
            Some(keep) => generated
                .into_iter()
                .zip(keep)
                .filter(|(_, k)| *k)
                .map(|(e, _)| e)
                .collect(),
            None => generated,
        };
        let counts = Counts {
            total: if depth == 0 {
                self.reducer.total(super::TOTAL_CAP)
            } else {
                None
            },
            generated: n_generated,
            distinct: n_generated,
            kept: cands.len(),
        };
        self.record(depth, counts, false);
        self.counts_at(depth).symbolic_nodes += 1;
        self.rank_candidates(&hist, n, cands, depth)
    }

    /// The planner's choice among `cands` (table order) from counts.
    fn rank_candidates(
        &mut self,
        hist: &[Lit],
        n: u128,
        cands: Vec<Instance>,
        depth: usize,
    ) -> Result<Instance, HybridError> {
        let (strategy, ties) = (self.strategy, self.ties);
        let has_final = self.is_final.iter().any(|&f| f);
        let spec = &self.game.spec;
        let mut best: Option<(usize, Rank, bool)> = None;
        let mut first_useful = None;
        for (i, exp) in cands.iter().enumerate() {
            let t = &spec.experiments[exp.ty];
            let m = t.outcomes.len();
            let finals: Vec<bool> = (0..m).map(|o| t.is_final(o)).collect();
            let k = self.knowledge.as_mut().expect("made by choose_symbolic");
            let mut sizes: Vec<u128> = Vec::with_capacity(m);
            let mut pruned = false;
            for o in 0..m {
                let size = if o + 1 == m {
                    n.saturating_sub(sizes.iter().sum())
                } else {
                    let mut a = hist.to_vec();
                    a.push(k.outcome_lit(exp, o));
                    k.count_exact(&a)
                };
                sizes.push(size);
                if hopeless(strategy, &sizes, best.as_ref().map(|b| &b.1)) {
                    pruned = true;
                    break;
                }
            }
            if pruned {
                continue;
            }
            let nonzero: Vec<usize> = (0..m).filter(|&o| sizes[o] > 0).collect();
            let useful = nonzero.len() > 1 || (nonzero.len() == 1 && finals[nonzero[0]]);
            if !useful {
                continue;
            }
            let possible = nonzero.iter().any(|&o| finals[o]);
            if strategy == Strategy::FirstPossible {
                if possible || !has_final {
                    return Ok(exp.clone());
                }
                first_useful.get_or_insert(i);
                continue;
            }
            let mut fixed = vec![0u64; m];
            if matches!(strategy, Strategy::MinFixed | Strategy::ExpFixed) {
                for &o in &nonzero {
                    let mut a = hist.to_vec();
                    a.push(k.outcome_lit(exp, o));
                    fixed[o] = k.backbone_under(&a)?.iter().flatten().count() as u64;
                }
            }
            let rank = Counted { sizes, fixed }.rank(strategy);
            let better = match &best {
                None => true,
                Some((_, b, best_possible)) => match compare(&rank, b) {
                    Ordering::Less => true,
                    Ordering::Greater => false,
                    Ordering::Equal => ties == Ties::PossibleFirst && possible && !*best_possible,
                },
            };
            if better {
                best = Some((i, rank, possible));
            }
        }
        match best.map(|b| b.0).or(first_useful) {
            Some(i) => Ok(cands[i].clone()),
            None => Err(HybridError::NoUsefulExperiment { depth }),
        }
    }

    /// The code named `secret` when the codes are not listed: a list of
    /// the variables it sets (`x7,y`), or, for games with single-character
    /// symbols, the parameters of an experiment whose final outcome
    /// confirms exactly that code (Mastermind's `ABCD`).
    fn secret_code(&mut self, secret: &str) -> Result<Vec<bool>, HybridError> {
        let wanted: String = secret.split_whitespace().collect();
        let spec = &self.game.spec;
        let unknown = || HybridError::UnknownCode(secret.to_string());
        let named: Option<Vec<bool>> = (|| {
            let mut code: Vec<bool> = self.game.units().iter().map(|u| *u == Some(true)).collect();
            if wanted != "-" {
                for name in wanted.split(',') {
                    code[spec.var(name)?.index()] = true;
                }
            }
            spec.is_code(&code).then_some(code)
        })();
        if let Some(code) = named {
            return Ok(code);
        }
        let symbols: Option<Vec<u32>> = spec
            .single_char_symbols()
            .then(|| {
                wanted
                    .chars()
                    .map(|c| {
                        spec.alphabet
                            .iter()
                            .position(|a| *a == c.to_string())
                            .map(|i| i as u32)
                    })
                    .collect::<Option<Vec<u32>>>()
            })
            .flatten();
        let params = symbols.ok_or_else(unknown)?;
        for ty in 0..spec.experiments.len() {
            let t = &spec.experiments[ty];
            if t.arity != params.len() || !t.allows(&params) {
                continue;
            }
            let exp = Instance {
                ty,
                params: params.clone(),
            };
            for o in (0..t.outcomes.len()).filter(|&o| t.is_final(o)) {
                let k = self.knowledge()?;
                let l = k.outcome_lit(&exp, o);
                let (codes, all) = k.enumerate_under(&[l], 2)?;
                if all && codes.len() == 1 {
                    return Ok(codes.into_iter().next().expect("one code"));
                }
            }
        }
        Err(unknown())
    }

    /// A play on a game whose codes were not listed: symbolic steps while
    /// more than [`Options::symbolic_above`](super::Options::symbolic_above) codes remain, then the codes
    /// still possible are listed and the play goes on explicitly.
    pub(super) fn play_lazy(&mut self, secret: &str) -> Result<Vec<Step>, HybridError> {
        let code = self.secret_code(secret)?;
        let spec = &self.game.spec;
        let mut history: Vec<(Instance, usize)> = Vec::new();
        let mut steps = Vec::new();
        let mut left = self.count_after(&history)?;
        let limit = (self.opts.list_at)
            .min(self.opts.symbolic_above)
            .min(explicit::MAX_CODES) as u128;
        while left > limit {
            let exp = self.choose_symbolic(&history)?;
            let t = &spec.experiments[exp.ty];
            let o = (0..t.outcomes.len())
                .find(|&o| t.outcomes[o].formula.eval(spec, &exp.params, &code))
                .ok_or_else(|| HybridError::UnknownCode(secret.to_string()))?;
            history.push((exp.clone(), o));
            left = self.count_after(&history)?;
            let counts = self.step_counts(history.len() - 1);
            steps.push(Step {
                experiment: exp.clone(),
                outcome: self.global[exp.ty][o],
                remaining: usize::try_from(left).unwrap_or(usize::MAX),
                counts,
            });
            if t.is_final(o) {
                return Ok(steps);
            }
        }
        let hist = self.history_lits(&history)?;
        let (mut codes, _) = self
            .knowledge()?
            .enumerate_under(&hist, explicit::MAX_CODES)?;
        sort_codes(&mut codes);
        self.load_codes(codes);
        let index = self
            .codes
            .iter()
            .position(|c| *c == code)
            .ok_or_else(|| HybridError::UnknownCode(secret.to_string()))?;
        let all: Vec<u32> = (0..self.codes.len() as u32).collect();
        self.play_from(index, all, history, steps)
    }
}
